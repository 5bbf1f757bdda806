//! The one hook through which the invocations, the clients and the
//! runtime tell an observer what happens: an invocation starts and ends,
//! an external call starts and ends, a threshold is crossed, a request is
//! refused before any function runs. OpenTelemetry
//! export (`crate::otel`) is such an observer; nothing else names it.
//!
//! One observer per process, [`install`]ed once; until then (and for good
//! when none is) each moment costs a load and a branch, and builds,
//! allocates and boxes nothing.
//!
//! The exporter built into the crate also gives the logging its record
//! layer and the runtime its start ([`Export`], [`Exporter`]): the one
//! place that says which exporter is built in.

use std::any::Any;
use std::sync::OnceLock;
use std::time::Duration;

use crate::config::Source;
use crate::error::Error;

/// What an invocation's telemetry starts from (read by the observers
/// built in: none without an exporter).
#[derive(Debug, Default)]
#[allow(dead_code)]
pub(crate) struct InvocationStart<'a> {
    pub(crate) function: &'static str,
    pub(crate) invocation_id: &'a str,
    pub(crate) call_sid: Option<&'a str>,
    pub(crate) flow_sid: Option<&'a str>,
    pub(crate) execution_sid: Option<&'a str>,
    pub(crate) mode: &'a str,
    /// The request's `traceparent` and `tracestate` headers.
    pub(crate) traceparent: Option<&'a str>,
    pub(crate) tracestate: Option<&'a str>,
    /// What the request says of itself, when it came over HTTP.
    pub(crate) request: Option<ServerRequest<'a>>,
    /// The invocation's secrets ([`crate::secret::invocation_secrets`]):
    /// scrubbed from everything it exports, as from its lines.
    pub(crate) secrets: &'a [Box<str>],
}

/// What a request over HTTP says of itself, under the names of the HTTP
/// server semantic conventions (given by the runtime, through the event).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(dead_code)]
pub(crate) struct ServerRequest<'a> {
    /// `http.request.method`.
    pub(crate) method: &'a str,
    /// `url.path`.
    pub(crate) path: &'a str,
    /// `http.route`.
    pub(crate) route: &'a str,
    /// `url.scheme`.
    pub(crate) scheme: &'a str,
    /// `server.address`, `server.port`.
    pub(crate) host: Option<&'a str>,
    pub(crate) port: Option<u16>,
    /// `client.address`.
    pub(crate) client: Option<&'a str>,
    /// `user_agent.original`.
    pub(crate) user_agent: Option<&'a str>,
    /// `network.protocol.version`.
    pub(crate) version: Option<&'static str>,
}

/// A request the runtime refused before invoking a function (a bad
/// signature, an unknown path, a method, a body too large...), told as
/// its answer is made (read by the observers built in: none without an
/// exporter).
#[allow(dead_code)]
pub(crate) struct Rejected<'a> {
    /// The function whose route the request matched, when it did.
    pub(crate) function: Option<&'static str>,
    /// The invocation id the answer carries.
    pub(crate) invocation_id: &'a str,
    /// The call the request was about, when its parameters name one.
    pub(crate) call_sid: Option<&'a str>,
    /// The status it was answered with.
    pub(crate) status: u16,
    /// The request's `traceparent` and `tracestate` headers.
    pub(crate) traceparent: Option<&'a str>,
    pub(crate) tracestate: Option<&'a str>,
    /// What the request says of itself; its `route` is empty when it
    /// matched no function's.
    pub(crate) request: ServerRequest<'a>,
    /// From the refusal to its answer (the runtime knows no earlier
    /// moment of a request it refuses).
    pub(crate) elapsed: Duration,
    /// Its `request_rejected` record, as written: the level (`WARN`, or
    /// `ERROR` for a 5xx), the message and the record.
    pub(crate) level: &'static str,
    pub(crate) message: &'a str,
    pub(crate) record: &'a crate::record::catalogue::RequestRejected<'a>,
}

/// What is told of the moments of the process. Every method does nothing
/// unless the observer says otherwise.
pub(crate) trait Observer: Send + Sync + 'static {
    /// An invocation starts, once its secrets are known; what follows it
    /// to its end, if the observer follows it.
    fn start_invocation(&self, start: &InvocationStart<'_>) -> Option<Box<dyn ObservedInvocation>> {
        let _ = start;
        None
    }

    /// An invocation of `function` ended with `outcome` (`success` or
    /// `error`) after `elapsed`.
    fn invocation(&self, function: &'static str, outcome: &'static str, elapsed: Duration) {
        let _ = (function, outcome, elapsed);
    }

    /// `bytes` of memory were in use at the end of an invocation of
    /// `function`.
    fn memory(&self, function: &'static str, bytes: u64) {
        let _ = (function, bytes);
    }

    /// `function` (`-` outside an invocation) raised an alert of `kind`.
    fn alert(&self, function: &str, kind: &str) {
        let _ = (function, kind);
    }

    /// An external call of `method` to `url` (as logged: without
    /// credentials, sensitive query values redacted) starts, on the
    /// thread of the invocation that makes it; what follows it to its
    /// response, if the observer follows it.
    #[cfg_attr(not(feature = "clients"), allow(dead_code))]
    fn start_call(&self, method: &str, url: &str) -> Option<Box<dyn ObservedCall>> {
        let _ = (method, url);
        None
    }

    /// The runtime refused a request before invoking a function: what
    /// the observer makes of it (its own span and counts), once, as the
    /// answer is made.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    fn rejected(&self, rejected: &Rejected<'_>) {
        let _ = rejected;
    }

    /// Whatever the observer holds must leave now (the process may be
    /// frozen next); blocks.
    fn flush(&self) {}
}

/// An invocation an observer follows, from its start to its answer.
pub(crate) trait ObservedInvocation: Send {
    /// What the invocation carries while it runs, for the observer to
    /// find again from its records and calls
    /// ([`crate::record::Invocation::observed`]).
    fn scope(&self) -> Option<Box<dyn Any + Send + Sync>>;

    /// The invocation answered with `status`; `error` is the kind of its
    /// error (`validation`, `timeout`...) when it failed: ccfn's own text.
    fn end(self: Box<Self>, status: u16, error: Option<&'static str>);
}

/// An external call an observer follows: ended by [`ObservedCall::finish`]
/// with its response or, dropped before, as a call that got none.
#[cfg_attr(not(feature = "clients"), allow(dead_code))]
pub(crate) trait ObservedCall: Send {
    /// The `traceparent` header that continues the call's trace upstream.
    fn traceparent(&self) -> Option<String>;

    /// The call got its whole response: `status`, `bytes` of body.
    fn finish(self: Box<Self>, status: u16, bytes: usize);
}

static OBSERVER: OnceLock<Box<dyn Observer>> = OnceLock::new();

/// Makes `observer` the process's, once (what an exporter's start does:
/// unused without one).
///
/// # Errors
/// One is already installed: `observer` is given back.
#[allow(dead_code)]
pub(crate) fn install(observer: Box<dyn Observer>) -> Result<(), Box<dyn Observer>> {
    OBSERVER.set(observer)
}

/// The process's observer, when one is installed.
#[inline]
pub(crate) fn observer() -> Option<&'static dyn Observer> {
    OBSERVER.get().map(|observer| &**observer)
}

/// Whether an observer is installed: what the runtime asks before it
/// gathers what a request says of itself for it.
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
#[inline]
pub(crate) fn active() -> bool {
    OBSERVER.get().is_some()
}

/// Tells the observer of an alert of `kind`, raised by the invocation
/// this thread polls, if any.
#[inline]
pub(crate) fn alert(kind: &str) {
    let Some(observer) = observer() else {
        return;
    };
    if crate::record::scope::in_invocation() {
        crate::record::scope::with_current(|invocation| {
            observer.alert(invocation.function(), kind);
        });
    } else {
        observer.alert("-", kind);
    }
}

/// The telemetry exporter built into the crate: how the logging gets its
/// record sink and the runtime starts export.
pub(crate) trait Export: Sized {
    /// Whether there is one (false: built without; the runtime says so
    /// when export is asked for).
    const BUILT: bool;

    /// What keeps export running; dropped, it exports what is left and
    /// stops.
    type Running: Send;

    /// The sink that sees every record, installed with the logging's
    /// layer; `None` without an exporter.
    fn sink() -> Option<Box<dyn crate::record::layer::Sink>>;

    /// Starts export as `source` says, installing its observer; `None`
    /// when `source` asks for none.
    ///
    /// # Errors
    /// The settings are wrong, or export cannot be started.
    fn start<S: Source + ?Sized>(source: &S) -> Result<Option<Self::Running>, Error>;

    /// Where `running` exports to, as said to the user.
    fn destination(running: &Self::Running) -> &str;
}

/// What keeps the built-in exporter running.
pub(crate) type Running = <Exporter as Export>::Running;

/// The built-in exporter's record sink, for the process's logging;
/// `None` without one.
pub(crate) fn record_sink() -> Option<Box<dyn crate::record::layer::Sink>> {
    Exporter::sink()
}

/// Whether an exporter is built in.
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
pub(crate) const EXPORTER_BUILT: bool = <Exporter as Export>::BUILT;

/// Starts the built-in exporter as `source` says ([`Export::start`]).
///
/// # Errors
/// As [`Export::start`].
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
pub(crate) fn start_export<S: Source + ?Sized>(source: &S) -> Result<Option<Running>, Error> {
    Exporter::start(source)
}

/// Where `running` exports to, as said to the user.
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
pub(crate) fn destination(running: &Running) -> &str {
    Exporter::destination(running)
}

/// Stops the export `running` keeps (if any): what is left is exported,
/// waiting up to its timeout.
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
pub(crate) fn stop_export(running: Option<Running>) {
    let _stopped_here = running;
}

/// Has the observer send out what it holds ([`Observer::flush`]); blocks.
#[cfg_attr(not(feature = "lambda"), allow(dead_code))]
pub(crate) fn flush() {
    if let Some(observer) = observer() {
        observer.flush();
    }
}

/// The exporter built in: OpenTelemetry's (named by its record sink)
/// with the `otel` feature.
#[cfg(feature = "otel")]
pub(crate) type Exporter = crate::otel::layer::OtelSink;

/// The exporter built in: none, without the `otel` feature.
#[cfg(not(feature = "otel"))]
pub(crate) type Exporter = NoExporter;

/// No exporter: nothing to layer, nothing to start (unused when one is
/// built in).
#[derive(Debug)]
#[allow(dead_code)]
pub(crate) enum NoExporter {}

impl Export for NoExporter {
    const BUILT: bool = false;
    type Running = NoExporter;

    fn sink() -> Option<Box<dyn crate::record::layer::Sink>> {
        None
    }

    fn start<S: Source + ?Sized>(_source: &S) -> Result<Option<Self::Running>, Error> {
        Ok(None)
    }

    fn destination(running: &Self::Running) -> &str {
        match *running {}
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Mutex, OnceLock, PoisonError};

    use serde_json::json;

    use super::*;
    use crate::config::Env;
    use crate::function::contract;
    use crate::function::meta::{meta, FunctionMeta, Kind, MetaFields};
    use crate::{Context, Event};

    /// The function these tests invoke: what the recorder keeps.
    const FUNCTION: &str = "observed-by-the-recorder";
    const CALL_SID: &str = "CA0123456789abcdef0123456789abcdef";
    const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    /// The path of the calls the recorder keeps.
    const CALLED: &str = "/observed-call";

    static META: FunctionMeta = meta(MetaFields {
        name: FUNCTION,
        purpose: "",
        trigger: "test",
        required: &["CallSid"],
        optional: "",
        optional_env: "",
        dependencies: "",
        critical_logging: "",
        contacts: "",
        env: &[],
        secrets: &[],
        kind: Kind::Generic,
        timeout_ms: 5_000,
        debug_buffer_bytes: None,
        module_path: module_path!(),
    });

    /// Writes down every moment of [`FUNCTION`] and of the calls to
    /// [`CALLED`], in order, each with the `CallSid` of the invocation it
    /// belongs to (the tests run at once).
    #[derive(Default)]
    struct Recorder(Mutex<Vec<(String, String)>>);

    impl Recorder {
        /// Notes `moment` of the invocation this thread polls.
        fn note(&self, moment: String) {
            let scope = crate::record::scope::in_invocation()
                .then(|| {
                    crate::record::scope::with_current(|invocation| invocation.observed::<String>())
                })
                .flatten()
                .unwrap_or_default();
            let call_sid = scope.strip_prefix("scope of ").unwrap_or("outside");
            self.note_of(call_sid, moment);
        }

        fn note_of(&self, call_sid: &str, moment: String) {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((call_sid.to_owned(), moment));
        }

        /// The moments of the invocation whose `CallSid` is `call_sid`
        /// (`-` for none), `outside` for those of none.
        fn of(&self, call_sid: &str) -> Vec<String> {
            let moments = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            moments
                .iter()
                .filter(|(of, _)| of == call_sid)
                .map(|(_, moment)| moment.clone())
                .collect()
        }
    }

    /// The recorder, installed as the process's observer once.
    fn recorder() -> &'static Recorder {
        static RECORDER: OnceLock<&'static Recorder> = OnceLock::new();
        RECORDER.get_or_init(|| {
            struct Installed(&'static Recorder);
            impl Observer for Installed {
                fn start_invocation(
                    &self,
                    start: &InvocationStart<'_>,
                ) -> Option<Box<dyn ObservedInvocation>> {
                    if start.function != FUNCTION {
                        return None;
                    }
                    let call_sid = start.call_sid.unwrap_or("-").to_owned();
                    self.0
                        .note_of(&call_sid, format!("start {FUNCTION} {call_sid}"));
                    Some(Box::new(Followed {
                        recorder: self.0,
                        call_sid,
                    }))
                }

                fn invocation(&self, function: &'static str, outcome: &'static str, _: Duration) {
                    if function == FUNCTION {
                        self.0.note(format!("invocation {outcome}"));
                    }
                }

                fn alert(&self, function: &str, kind: &str) {
                    if function == FUNCTION || kind == "observed-outside" {
                        self.0.note(format!("alert {function} {kind}"));
                    }
                }

                fn start_call(&self, method: &str, url: &str) -> Option<Box<dyn ObservedCall>> {
                    if !url.ends_with(CALLED) {
                        return None;
                    }
                    self.0.note(format!("call {method}"));
                    Some(Box::new(Call {
                        recorder: self.0,
                        finished: false,
                    }))
                }
            }

            struct Followed {
                recorder: &'static Recorder,
                call_sid: String,
            }
            impl ObservedInvocation for Followed {
                fn scope(&self) -> Option<Box<dyn Any + Send + Sync>> {
                    Some(Box::new(format!("scope of {}", self.call_sid)))
                }
                fn end(self: Box<Self>, status: u16, error: Option<&'static str>) {
                    let moment = format!("end {status} {}", error.unwrap_or("-"));
                    self.recorder.note_of(&self.call_sid, moment);
                }
            }

            struct Call {
                recorder: &'static Recorder,
                finished: bool,
            }
            impl ObservedCall for Call {
                fn traceparent(&self) -> Option<String> {
                    Some(TRACEPARENT.to_owned())
                }
                fn finish(mut self: Box<Self>, status: u16, bytes: usize) {
                    self.finished = true;
                    self.recorder.note(format!("finish {status} {bytes}"));
                }
            }
            impl Drop for Call {
                fn drop(&mut self) {
                    if !self.finished {
                        self.recorder.note("dropped".to_owned());
                    }
                }
            }

            let recorder: &'static Recorder = Box::leak(Box::default());
            assert!(
                install(Box::new(Installed(recorder))).is_ok(),
                "another observer is installed"
            );
            recorder
        })
    }

    /// A server on loopback answering one request with the `traceparent`
    /// it came with; its URL.
    async fn echoing_traceparent() -> String {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut request = vec![0; 8192];
            let read = stream.read(&mut request).await.unwrap();
            let request = String::from_utf8_lossy(&request[..read]).into_owned();
            let traceparent = request
                .lines()
                .find_map(|line| line.strip_prefix("traceparent: "))
                .unwrap_or("none")
                .to_owned();
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{traceparent}",
                traceparent.len()
            );
            stream.write_all(answer.as_bytes()).await.unwrap();
        });
        format!("http://{addr}{CALLED}")
    }

    #[cfg(feature = "clients")]
    #[tokio::test]
    async fn an_invocation_its_alert_and_its_call_are_told_to_the_observer() {
        let recorder = recorder();
        let url = echoing_traceparent().await;
        let context = Context::from_source(&Env::default()).unwrap();
        let mut event = Event::new();
        event.push("CallSid", CALL_SID);
        let completion = contract::run(&META, context, event, move |context, _, callback| {
            async move {
                let scope = crate::record::scope::with_current(|invocation| {
                    invocation.observed::<String>()
                });
                contract::alert("observed-inside", "a test alert", json!(1), json!(0));
                let upstream = context.http().unwrap().get(url).send().await.unwrap();
                // A call that gets no response is dropped unfinished.
                let refused = context
                    .http()
                    .unwrap()
                    .get(format!("http://127.0.0.1:9{CALLED}"));
                assert!(refused.send().await.is_err());
                callback.success(json!({ "scope": scope, "upstream": upstream.text() }))
            }
        })
        .await;
        assert_eq!(completion.status(), 200);
        assert_eq!(
            completion.result().ok(),
            Some(&crate::Reply::Json(json!({
                "scope": format!("scope of {CALL_SID}"),
                "upstream": TRACEPARENT
            })))
        );
        assert_eq!(
            recorder.of(CALL_SID),
            [
                format!("start {FUNCTION} {CALL_SID}"),
                format!("alert {FUNCTION} observed-inside"),
                "call GET".to_owned(),
                format!("finish 200 {}", TRACEPARENT.len()),
                "call GET".to_owned(),
                "dropped".to_owned(),
                "invocation success".to_owned(),
                "end 200 -".to_owned(),
            ]
        );
    }

    #[tokio::test]
    async fn a_refused_invocation_ends_with_its_error_kind() {
        let recorder = recorder();
        let context = Context::from_source(&Env::default()).unwrap();
        // No `CallSid`: refused by validation.
        let completion = contract::run(&META, context, Event::new(), |_, _, callback| async move {
            callback.success(json!({}))
        })
        .await;
        let status = completion.status();
        assert_eq!(
            recorder.of("-"),
            [
                format!("start {FUNCTION} -"),
                "invocation error".to_owned(),
                format!("end {status} validation"),
            ]
        );
    }

    #[test]
    fn an_alert_outside_an_invocation_is_nobody_s() {
        let recorder = recorder();
        alert("observed-outside");
        assert_eq!(recorder.of("outside"), ["alert - observed-outside"]);
    }
}
