//! The contract wrapper: what `#[contact_fn]` runs around every handler.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use futures_util::FutureExt as _;
use serde_json::{json, Value};
use tracing::Level;

use crate::error::Error;
use crate::error::ErrorKind;
use crate::function::callback::{
    Callback, Completion, IntoCompletion, IntoReply as _, InvocationId, Reply,
};
use crate::function::context::Context;
use crate::function::event::Event;
use crate::function::event::Logged;
use crate::function::meta::FunctionMeta;
use crate::function::meta::Kind;
use crate::function::metrics;
use crate::record::emit::Message;
use crate::record::panic;
use crate::record::value::{Declared, FieldValue, KeptJson, Millis, SharedText};
use crate::record::{emit, emit_parts, InInvocation, Invocation, SPAN_NAME};
use crate::secret::{invocation_secrets, is_sensitive_name};

/// A boxed, sendable future: what
/// [`ContactFunction::invoke`](crate::function::ContactFunction::invoke)
/// returns.
pub type BoxFuture<T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Emits an INFO record; its message and fields are not even built when
/// no subscriber would write it.
macro_rules! info {
    (parts $parts:expr, $record:expr $(,)?) => {
        if crate::record::enabled(Level::INFO) {
            emit_parts(&$parts, &$record);
        }
    };
    (fixed $message:expr, $record:expr $(,)?) => {
        if crate::record::enabled(Level::INFO) {
            crate::record::emit::emit_fixed($message, &$record);
        }
    };
    ($message:literal, $record:expr $(,)?) => {
        if crate::record::enabled(Level::INFO) {
            crate::record::emit::emit_fixed(
                const { crate::record::emit::Message::fixed($message) },
                &$record,
            );
        }
    };
    ($message:expr, $record:expr $(,)?) => {
        if crate::record::enabled(Level::INFO) {
            emit($message, &$record);
        }
    };
}

/// The `start` record's message, `=== FUNCTION START: {name} ===`, in
/// parts: joined without an allocation.
fn start_message(name: &str) -> [&str; 3] {
    ["=== FUNCTION START: ", name, " ==="]
}

/// The `processing` record's message, `Processing mode: {mode}`, in parts.
fn processing_message(mode: &str) -> [&str; 2] {
    ["Processing mode: ", mode]
}

/// The `end` record's message, `=== FUNCTION END: {name} ===`, in parts.
fn end_message(name: &str) -> [&str; 3] {
    ["=== FUNCTION END: ", name, " ==="]
}

/// Runs `handler` under the logging contract: the records of
/// `design.md`'s "The log record", validation of required parameters and
/// environment, panic capture and the timeout. Called by the code
/// `#[contact_fn]` generates; needs a Tokio runtime with time enabled.
#[doc(hidden)]
pub fn run<F, Fut>(
    meta: &'static FunctionMeta,
    context: Context,
    event: Event,
    handler: F,
) -> BoxFuture<Completion>
where
    F: FnOnce(Context, Event, Callback) -> Fut + Send + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCompletion,
{
    Box::pin(async move {
        // Made on first poll, so that it belongs to the subscriber the
        // future runs under.
        let invocation_id = InvocationId::new();
        // Lines written in the invocation's own polls know it without a
        // span: one is made only for those who read it (see
        // `InvocationStart::span_read`), as making, entering and closing it
        // cost as much as a good part of the contract.
        let start = crate::record::layer::InvocationStart::ask();
        let mut sensitive = Vec::new();
        for (name, value) in event.secret_candidates() {
            sensitive_values(value, is_sensitive_name(name), &mut sensitive);
        }
        // Most requests have nothing sensitive: nothing to put in forms.
        let secrets = {
            let mut headers = event
                .headers()
                .filter(|(name, _)| is_sensitive_name(name))
                .map(|(_, value)| value)
                .peekable();
            if sensitive.is_empty() && headers.peek().is_none() {
                Vec::new()
            } else {
                invocation_secrets(sensitive.iter().map(String::as_str).chain(headers))
            }
        };
        // Made once the invocation's secrets are known: everything it
        // exports is scrubbed of them, as its lines are.
        let observed = crate::observe::observer().and_then(|observer| {
            observer.start_invocation(&crate::observe::InvocationStart {
                function: meta.name(),
                invocation_id: invocation_id.as_str(),
                call_sid: event.call_sid(),
                flow_sid: event.flow_sid(),
                execution_sid: event.execution_sid(),
                mode: event.mode(),
                traceparent: event.header("traceparent"),
                tracestate: event.header("tracestate"),
                request: event.server_request(),
                secrets: &secrets,
            })
        });
        let invocation = Invocation::new(
            meta.name(),
            invocation_id,
            event.call_sid().map(str::to_owned),
            secrets,
        )
        .with_level_bits(start.level_bits)
        .with_deadline(Instant::now() + Duration::from_millis(meta.timeout_ms()))
        .with_debug_buffer(
            meta.debug_buffer_bytes()
                .unwrap_or_else(|| context.debug_buffer_bytes()),
            meta.module_path(),
        )
        .with_observed(observed.as_ref().and_then(|observed| observed.scope()));
        let invocation = std::sync::Arc::new(invocation);
        // Made within the invocation, which it then carries.
        let span = if start.span_read {
            crate::record::scope::within(&invocation, || {
                tracing::info_span!(
                    target: "ccfn",
                    SPAN_NAME,
                    function = meta.name(),
                    invocation_id = invocation_id.as_str(),
                    call_sid = event.call_sid(),
                )
            })
        } else {
            tracing::Span::none()
        };
        let callback = Callback::new(invocation_id);
        let result = InInvocation::new(
            invocation,
            span,
            contract(meta, context, event, callback, handler),
        )
        .await;
        let completion = Completion::new(invocation_id, result);
        if let Some(observed) = observed {
            let error = completion.result().err().map(|error| error.kind().as_str());
            observed.end(completion.status(), error);
        }
        completion
    })
}

/// Collects the values a function must not see in its lines: under a
/// sensitive name (`sensitive`), every string, number and the compact JSON
/// of every array and object, at any depth; elsewhere, those of members
/// with a sensitive name.
fn sensitive_values(value: &Value, sensitive: bool, out: &mut Vec<String>) {
    match value {
        Value::String(text) if sensitive => out.push(text.clone()),
        Value::Number(number) if sensitive => out.push(number.to_string()),
        Value::Array(items) => {
            if sensitive {
                out.push(value.to_string());
            }
            for item in items {
                sensitive_values(item, sensitive, out);
            }
        }
        Value::Object(members) => {
            if sensitive {
                out.push(value.to_string());
            }
            for (name, member) in members {
                sensitive_values(member, sensitive || is_sensitive_name(name), out);
            }
        }
        _ => {}
    }
}

/// The logging contract around one handler call: the opening records,
/// validation, the handler under its timeout with its panics caught, and
/// the closing records, whichever way it ended.
async fn contract<F, Fut>(
    meta: &'static FunctionMeta,
    context: Context,
    event: Event,
    callback: Callback,
    handler: F,
) -> Result<Reply, Error>
where
    F: FnOnce(Context, Event, Callback) -> Fut,
    Fut: Future,
    Fut::Output: IntoCompletion,
{
    let started = Instant::now();
    // From here on, the handler's reads are checked against what it
    // declares.
    let context = context.for_function(meta);
    let event = event.for_function(meta);
    let logged = log_start(meta, &context, &event);
    let domain = context.shown_domain();
    // The event as received, for an `error` record (the handler takes the
    // event); `null` when no error record would be written.
    let logged: &(dyn FieldValue + Sync) = match &logged {
        Some(event) => &Logged(event),
        None => &Value::Null,
    };
    log_validating(meta);
    if let Some(error) = validate(meta, &context, &event) {
        crate::record::flush_debug_lines("error");
        let elapsed = finish(meta, &context, started, None);
        end(meta, elapsed, false);
        return Err(error);
    }
    log_validated(meta, &event);

    // Boxed once: the wrappers it goes in (panic capture, timeout) and
    // the futures they are part of move a pointer, not the handler's
    // whole state, each time one of them is made.
    let handler = panic::InHandler::new(Box::pin(handler(context.clone(), event, callback)));
    // Until the handler completes, dropping this future (a client that
    // went away, a shutdown past its grace) must still close the
    // invocation's records.
    let mut unfinished = Unfinished {
        meta,
        context: &context,
        started,
        event: logged,
        domain,
        armed: true,
    };
    let result = handled(meta, handler).await;
    unfinished.armed = false;
    drop(unfinished);

    let elapsed = match &result {
        Ok(reply) => log_success(meta, &context, started, reply),
        Err(error) => {
            log_error(meta, &context, error, logged, domain);
            finish(meta, &context, started, None)
        }
    };
    end(meta, elapsed, result.is_ok());
    result
}

/// Writes the `start` record, and the `verbose` and `debug_mode` records
/// when asked for; returns a copy of the event for the `error` record,
/// when one would be written.
fn log_start(meta: &FunctionMeta, context: &Context, event: &Event) -> Option<Event> {
    let name = meta.name();
    // Logged in `start` and `error`: not made when neither is written.
    let logged = crate::record::enabled(Level::ERROR).then(|| event.for_records());

    // With an exporter, the event is written twice (the line, the span's
    // event): its JSON text is kept from the first.
    let shown = Logged(event);
    let shown = KeptJson::new(&shown, crate::record::scope::observed_now());
    info!(
        parts start_message(name),
        crate::record::Start {
            event: &shown,
            domain: context.shown_domain()
        }
    );
    if !crate::record::enabled(Level::INFO) {
        // None of the records below would be written: the event and the
        // context need not even be read for them.
        return logged;
    }
    if context.local_logging() || event.lookup_str("ENABLE_LOCAL_LOGGING") == Some("true") {
        info!(
            "Verbose logging enabled",
            crate::record::Verbose {
                event_keys: event.keys().as_slice(),
                context_keys: context.keys().collect::<Vec<_>>().as_slice(),
                memory_bytes: metrics::rss_bytes_sampled()
            }
        );
    }
    if context.debug_mode() || event.mode() == "debug" {
        info!(
            "Debug mode enabled",
            crate::record::DebugMode {
                function_name: context.plain("FUNCTION_NAME").unwrap_or(name),
                function_version: context.plain("FUNCTION_VERSION"),
                execution_environment: context.plain("EXECUTION_ENVIRONMENT").unwrap_or("local")
            }
        );
    }
    logged
}

/// Writes the `validation` record of phase `begin`: what is required.
fn log_validating(meta: &FunctionMeta) {
    if crate::record::enabled(Level::INFO) {
        crate::record::emit::emit_fixed(
            const { crate::record::emit::Message::fixed("Validating required parameters") },
            &crate::record::Validation {
                phase: "begin",
                required: Declared::new(meta.required(), &[]),
                // Secrets are required values too.
                env: Some(Declared::new(meta.env(), meta.secrets())),
            },
        );
    }
}

/// Writes what follows a passed validation: the `validation` record of
/// phase `passed`, `processing`, `caller`, and for a voice function
/// `flow`.
fn log_validated(meta: &FunctionMeta, event: &Event) {
    if !crate::record::enabled(Level::INFO) {
        return;
    }
    info!(
        "Validation passed",
        crate::record::Validation {
            phase: "passed",
            required: Declared::new(meta.required(), &[]),
            env: None
        }
    );

    let mode = event.mode();
    info!(
        parts processing_message(mode),
        crate::record::Processing { mode }
    );
    info!(
        "Caller info",
        crate::record::Caller {
            from: event.from(),
            to: event.to(),
            call_sid: event.call_sid()
        }
    );

    if meta.kind() == Kind::Voice {
        flow(event);
    }
}

/// The handler's answer: what it completed with (a spoken error of a
/// voice function said to the caller as a voice document), or the error
/// of its panic or of its timeout.
async fn handled<Fut>(meta: &FunctionMeta, handler: panic::InHandler<Fut>) -> Result<Reply, Error>
where
    Fut: Future,
    Fut::Output: IntoCompletion,
{
    let timeout = Duration::from_millis(meta.timeout_ms());
    match tokio::time::timeout(timeout, AssertUnwindSafe(handler).catch_unwind()).await {
        Ok(Ok(output)) => match output.into_completion() {
            // Said to the caller, as a handler that handled it would.
            Err(error) if error.is_spoken() && meta.kind() == Kind::Voice => {
                let mut twiml = crate::voice::VoiceResponse::new();
                twiml.say(error.caller_message());
                twiml.into_reply()
            }
            result => result,
        },
        Ok(Err(payload)) => {
            let message = format!("function panicked: {}", panic::message(&*payload));
            Err(match panic::take_location() {
                Some(location) => {
                    Error::new(ErrorKind::Panic, message).with_source(Location(location))
                }
                None => Error::new(ErrorKind::Panic, message),
            })
        }
        Err(_) => Err(Error::new(
            ErrorKind::Timeout,
            format!("Function timed out after {} ms", meta.timeout_ms()),
        )),
    }
}

/// Writes the records of a handler that succeeded with `reply`: the voice
/// records of a voice function, the closing ones, and `success`.
/// Writes the records of a handler that answered; returns how long the
/// invocation took.
fn log_success(
    meta: &FunctionMeta,
    context: &Context,
    started: Instant,
    reply: &Reply,
) -> Duration {
    if meta.kind() == Kind::Voice {
        voice_records(context, reply);
    }
    let elapsed = finish(meta, context, started, Some(reply));
    // A voice document is already in full in `voice_response`
    // (phase returned): the success record points at it rather than
    // write it a third time.
    if !crate::record::enabled(Level::INFO) {
        return elapsed;
    }
    let other;
    let result: &dyn FieldValue = match (meta.kind(), reply) {
        (Kind::Voice, Reply::Voice(voice)) => &VoiceResult {
            bytes: voice.xml().len(),
        },
        _ => {
            other = reply.to_log_json();
            &other
        }
    };
    crate::record::emit::emit_fixed(
        const { crate::record::emit::Message::fixed("Function completed successfully") },
        &crate::record::Success { result },
    );
    elapsed
}

/// A voice function's `success` result: where its document is written
/// (the `voice_response` record of phase `returned`) and its size, as
/// `{"voice_response":"returned","bytes":N}`, written without a JSON map
/// made for it.
struct VoiceResult {
    bytes: usize,
}

impl FieldValue for VoiceResult {
    fn shape(&self) -> crate::record::value::Shape<'_> {
        crate::record::value::Shape::Composite
    }

    fn write_json(&self, out: &mut String) {
        out.push_str("{\"voice_response\":\"returned\",\"bytes\":");
        self.bytes.write_json(out);
        out.push('}');
    }

    fn write_pretty(&self, out: &mut String) {
        out.push_str("{\n  \"voice_response\": \"returned\",\n  \"bytes\": ");
        self.bytes.write_json(out);
        out.push_str("\n}");
    }

    fn to_value(&self) -> Value {
        json!({ "voice_response": "returned", "bytes": self.bytes })
    }
}

/// Logs the `flow` record: the flow transition data the flow passed, and
/// which it did not (a call-flow widget sends only what it is configured
/// to send).
fn flow(event: &Event) {
    if !crate::record::enabled(Level::INFO) {
        return;
    }
    let values = [event.flow_sid(), event.execution_sid(), event.step_sid()];
    // Which are absent, one bit each, in order.
    let absent = values.iter().enumerate().fold(0, |bits, (at, value)| {
        bits | usize::from(value.is_none()) << at
    });
    let (absent, message) = ABSENT[absent];
    info!(
        fixed message,
        crate::record::Flow {
            flow_sid: values[0],
            execution_sid: values[1],
            step_sid: values[2],
            absent: Declared::new(absent, &[])
        }
    );
}

/// The flow transition parameters a `flow` record names absent, in
/// order, for each set of them (one bit each: `FlowSid`,
/// `ExecutionSid`, `StepSid`), and its message.
const ABSENT: [(&[&str], Message<'static>); 8] = [
    (&[], Message::fixed("Flow transition data")),
    (
        &["FlowSid"],
        Message::fixed("Flow transition data, without FlowSid"),
    ),
    (
        &["ExecutionSid"],
        Message::fixed("Flow transition data, without ExecutionSid"),
    ),
    (
        &["FlowSid", "ExecutionSid"],
        Message::fixed("Flow transition data, without FlowSid, ExecutionSid"),
    ),
    (
        &["StepSid"],
        Message::fixed("Flow transition data, without StepSid"),
    ),
    (
        &["FlowSid", "StepSid"],
        Message::fixed("Flow transition data, without FlowSid, StepSid"),
    ),
    (
        &["ExecutionSid", "StepSid"],
        Message::fixed("Flow transition data, without ExecutionSid, StepSid"),
    ),
    (
        &["FlowSid", "ExecutionSid", "StepSid"],
        Message::fixed(
            "No flow transition data: the flow passed no FlowSid, ExecutionSid or StepSid",
        ),
    ),
];

/// Logs a voice function's `voice_response` records (the document as first
/// built and as returned) and its `taskrouter_config`.
fn voice_records(context: &Context, reply: &Reply) {
    if !crate::record::enabled(Level::INFO) {
        // Nothing below would be written: not even the document as first
        // built need be written out.
        return;
    }
    let (workflow_sid, queue) = match reply {
        Reply::Voice(voice) => {
            let built = voice.built().unwrap_or(voice.xml());
            let modified = built != voice.xml();
            // The contract asks for the document before and after any
            // change; unchanged, it is escaped once for both records;
            // changed by verbs added, the part they share is.
            let returned = SharedText::with_common(voice.xml(), voice.built_in_common());
            let built = modified.then(|| SharedText::prefix(built, &returned));
            info!(
                "Voice response as first built",
                crate::record::VoiceResponse {
                    phase: "built",
                    twiml: built.as_ref().unwrap_or(&returned),
                    modified: None
                }
            );
            info!(
                "Voice response as returned",
                crate::record::VoiceResponse {
                    phase: "returned",
                    twiml: &returned,
                    modified: Some(modified)
                }
            );
            (voice.workflow_sid(), voice.queue())
        }
        _ => (None, None),
    };
    let workflow_sid = workflow_sid.or_else(|| context.workflow_sid());
    // Without an `<Enqueue>` queue: the queue a task the function created
    // went to, as the task router answered.
    let routed = crate::record::scope::routed_queue();
    let queue = queue.or(routed.as_deref());
    info!(
        "Task-routing configuration",
        crate::record::TaskrouterConfig {
            workspace_sid: context.workspace_sid(),
            workflow_sid,
            queue
        }
    );
}

/// Logs the `error` record.
fn log_error(
    meta: &FunctionMeta,
    context: &Context,
    error: &Error,
    event: &dyn FieldValue,
    domain: Option<&str>,
) {
    // What led to it comes first.
    crate::record::flush_debug_lines("error");
    emit(
        &format!("=== FUNCTION ERROR: {} ===", meta.name()),
        &crate::record::Error {
            kind: error.kind().as_str(),
            error: error.message(),
            stack: &error.stack(),
            event,
            domain,
            account_sid: context.account_sid(),
        },
    );
}

/// Closes the records of an invocation dropped while its handler ran.
struct Unfinished<'a> {
    meta: &'static FunctionMeta,
    context: &'a Context,
    started: Instant,
    event: &'a (dyn FieldValue + Sync),
    domain: Option<&'a str>,
    armed: bool,
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let error = Error::new(
            ErrorKind::Cancelled,
            "invocation cancelled before it completed: the client went away or the server stopped",
        );
        // Dropped with the invocation's future, inside its span (when it
        // has one) and as the invocation: `InInvocation` enters both while
        // it drops the future.
        log_error(self.meta, self.context, &error, self.event, self.domain);
        let elapsed = finish(self.meta, self.context, self.started, None);
        end(self.meta, elapsed, false);
    }
}

/// Where a panic happened, as the source of the panic's error.
#[derive(Debug)]
struct Location(String);

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Location {}

/// Logs one `validation_error` per missing parameter, then per missing
/// environment value, and returns the error naming the first.
fn validate(meta: &'static FunctionMeta, context: &Context, event: &Event) -> Option<Error> {
    let missing_params = meta
        .required()
        .iter()
        // Declared: required.
        .filter(|name| !event.has_value(name))
        .map(|name| (*name, format!("Missing required parameter: {name}")));
    // Looked up name by name only while one may be missing.
    let complete = context.has_all_required(meta);
    // A declared secret a runtime in local mode lets go unset is not
    // missing: the handler runs without it.
    let missing_secrets = meta
        .secrets()
        .iter()
        .filter(|name| !context.may_leave_unset(name));
    let missing_env = meta
        .env()
        .iter()
        .chain(missing_secrets)
        .filter(|name| !complete && !context.is_present(name))
        .map(|name| {
            (
                *name,
                format!("Missing required environment variable: {name}"),
            )
        });
    let mut first = None;
    for (parameter, message) in missing_params.chain(missing_env) {
        emit(
            &message,
            &crate::record::ValidationError {
                parameter,
                error: &message,
            },
        );
        first.get_or_insert(message);
    }
    first.map(|message| {
        let kind = if message.starts_with("Missing required parameter") {
            ErrorKind::Validation
        } else {
            ErrorKind::Configuration
        };
        Error::new(kind, message)
    })
}

/// Logs `metrics`, then an `alert` for each threshold crossed; `reply` is
/// the reply of a successful invocation.
fn finish(
    meta: &FunctionMeta,
    context: &Context,
    started: Instant,
    reply: Option<&Reply>,
) -> Duration {
    // One reading of the clock for the whole end of the invocation.
    let now = Instant::now();
    let elapsed = now.saturating_duration_since(started);
    let memory = metrics::rss_bytes_sampled_at(now);
    let limit = context.memory_limit();
    if let (Some(observer), Some(memory)) = (crate::observe::observer(), memory) {
        observer.memory(meta.name(), memory);
    }
    info!(
        "Execution metrics",
        crate::record::Metrics {
            execution_ms: Millis::of(elapsed),
            memory_bytes: memory,
            memory_limit_bytes: limit
        }
    );
    let thresholds = context.thresholds();
    if elapsed > thresholds.execution {
        alert(
            "execution_time",
            &format!(
                "{} took {:.0} ms, over the {} ms threshold",
                meta.name(),
                millis(elapsed),
                thresholds.execution.as_millis()
            ),
            json!(millis(elapsed)),
            json!(millis(thresholds.execution)),
        );
    }
    if let (Some(memory), Some(limit)) = (memory, limit) {
        #[allow(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )]
        let threshold = (limit as f64 * thresholds.memory_ratio) as u64;
        // One alert per crossing: memory is the process's, not the
        // invocation's, and stays high across many invocations.
        static OVER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        let over = memory > threshold;
        if over && !OVER.swap(true, std::sync::atomic::Ordering::Relaxed) {
            alert(
                "memory",
                &format!("memory use {memory} bytes is over the {threshold} bytes threshold"),
                json!(memory),
                json!(threshold),
            );
        } else if !over {
            OVER.store(false, std::sync::atomic::Ordering::Relaxed);
        }
    }
    if let Some(size) = reply.map(Reply::body_len)
        && size > thresholds.response_bytes
    {
        alert(
            "response_size",
            &format!(
                "{} answered {size} bytes, over the {} bytes the call-flow designer accepts",
                meta.name(),
                thresholds.response_bytes
            ),
            json!(size),
            json!(thresholds.response_bytes),
        );
    }
    if let Some(rate) = error_rate::record(meta.name(), reply.is_some(), thresholds, now) {
        alert(
            "error_rate",
            &format!(
                "{} failed {} of {} invocations ({:.1} %) in the last {} s, over {:.1} %",
                meta.name(),
                rate.failed,
                rate.total,
                rate.ratio * 100.0,
                thresholds.error_window.as_secs(),
                thresholds.error_rate * 100.0
            ),
            json!(rate.ratio),
            json!(thresholds.error_rate),
        );
    }
    elapsed
}

mod error_rate {
    //! The error rate of each function over a sliding window, in 60
    //! buckets, with one alert per crossing of the threshold.

    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    use crate::function::context::Thresholds;

    const BUCKETS: usize = 60;

    /// The rate that crossed the threshold.
    pub(super) struct Crossing {
        pub(super) failed: u64,
        pub(super) total: u64,
        pub(super) ratio: f64,
    }

    struct Window {
        width: Duration,
        /// The latest bucket counted in: the window is the `BUCKETS`
        /// buckets up to it.
        now: u64,
        /// (invocations, failures) of each bucket of the window, bucket
        /// `b` at `b % BUCKETS`; those of the buckets before it emptied.
        buckets: [(u64, u64); BUCKETS],
        /// The sums of `buckets`: kept as they change, not added up on
        /// every invocation.
        total: u64,
        failed: u64,
        alerting: bool,
    }

    impl Window {
        fn new(width: Duration, now: u64) -> Window {
            Window {
                width,
                now,
                buckets: [(0, 0); BUCKETS],
                total: 0,
                failed: 0,
                alerting: false,
            }
        }

        /// Moves the window on to end at bucket `now`, emptying the
        /// buckets it leaves behind (all of them after `BUCKETS` or more).
        fn advance(&mut self, now: u64) {
            if now <= self.now {
                return;
            }
            if now - self.now >= BUCKETS as u64 {
                self.buckets = [(0, 0); BUCKETS];
                self.total = 0;
                self.failed = 0;
            } else {
                for bucket in self.now + 1..=now {
                    let slot = &mut self.buckets[(bucket % BUCKETS as u64) as usize];
                    self.total -= slot.0;
                    self.failed -= slot.1;
                    *slot = (0, 0);
                }
            }
            self.now = now;
        }
    }

    /// The window of each function, by name: a list, as a server has few
    /// functions, whose names are found by address before they are
    /// compared (no hashing of the name on every invocation).
    fn windows() -> &'static Mutex<Vec<(&'static str, Window)>> {
        static WINDOWS: Mutex<Vec<(&'static str, Window)>> = Mutex::new(Vec::new());
        &WINDOWS
    }

    /// Where `function`'s window is in `windows`, if it has one.
    fn find(windows: &[(&'static str, Window)], function: &'static str) -> Option<usize> {
        windows
            .iter()
            .position(|(name, _)| std::ptr::eq(*name, function))
            .or_else(|| windows.iter().position(|(name, _)| *name == function))
    }

    /// Counts one invocation of `function`, ended at `now`; returns the
    /// rate when this one makes it cross the threshold.
    pub(super) fn record(
        function: &'static str,
        ok: bool,
        thresholds: &Thresholds,
        now: Instant,
    ) -> Option<Crossing> {
        let width = (thresholds.error_window / BUCKETS as u32).max(Duration::from_micros(1));
        let width_micros = u64::try_from(width.as_micros()).unwrap_or(u64::MAX);
        let now = crate::function::metrics::micros_since_epoch(now) / width_micros;
        let mut windows = windows().lock().unwrap_or_else(|e| e.into_inner());
        let at = find(&windows, function).unwrap_or_else(|| {
            windows.push((function, Window::new(width, now)));
            windows.len() - 1
        });
        let window = &mut windows[at].1;
        if window.width != width {
            *window = Window::new(width, now);
        }
        window.advance(now);
        // The clock does not go back; were it to, the latest bucket counts.
        let slot = &mut window.buckets[(window.now % BUCKETS as u64) as usize];
        slot.0 += 1;
        slot.1 += u64::from(!ok);
        window.total += 1;
        window.failed += u64::from(!ok);
        let (total, failed) = (window.total, window.failed);
        #[allow(clippy::cast_precision_loss)]
        let ratio = failed as f64 / total.max(1) as f64;
        let over = total >= thresholds.error_min_invocations && ratio > thresholds.error_rate;
        let crossing = over && !window.alerting;
        window.alerting = over;
        crossing.then_some(Crossing {
            failed,
            total,
            ratio,
        })
    }

    #[cfg(test)]
    mod tests {
        use crate::function::contract::error_rate::{Window, BUCKETS};
        use std::time::Duration;

        /// Counts `failures` of `invocations` in the latest bucket.
        fn count(window: &mut Window, invocations: u64, failures: u64) {
            let slot = &mut window.buckets[(window.now % BUCKETS as u64) as usize];
            slot.0 += invocations;
            slot.1 += failures;
            window.total += invocations;
            window.failed += failures;
        }

        #[test]
        fn a_bucket_counts_until_the_window_has_moved_past_it() {
            let mut window = Window::new(Duration::from_secs(1), 100);
            count(&mut window, 5, 2);
            window.advance(101);
            count(&mut window, 3, 1);
            window.advance(159);
            assert_eq!((window.total, window.failed), (8, 3));
            // Bucket 100 leaves; 101 stays until 161.
            window.advance(160);
            assert_eq!((window.total, window.failed), (3, 1));
            window.advance(160);
            assert_eq!((window.total, window.failed), (3, 1));
            window.advance(161);
            assert_eq!((window.total, window.failed), (0, 0));
            count(&mut window, 4, 4);
            // A jump of a whole window or more empties it.
            window.advance(161 + BUCKETS as u64);
            assert_eq!((window.total, window.failed), (0, 0));
            assert!(window.buckets.iter().all(|slot| *slot == (0, 0)));
        }
    }
}

/// Logs an `alert` record.
pub(crate) fn alert(kind: &str, message: &str, value: Value, threshold: Value) {
    crate::observe::alert(kind);
    emit(
        &format!("ALERT: {message}"),
        &crate::record::Alert {
            kind,
            value: &value,
            threshold: &threshold,
        },
    );
}

fn end(meta: &'static FunctionMeta, elapsed: Duration, ok: bool) {
    if let Some(observer) = crate::observe::observer() {
        observer.invocation(meta.name(), if ok { "success" } else { "error" }, elapsed);
    }
    info!(
        parts end_message(meta.name()),
        crate::record::End {
            outcome: if ok { "success" } else { "error" },
            execution_ms: Millis::of(elapsed)
        }
    );
}

/// Milliseconds with microsecond precision.
fn millis(duration: Duration) -> f64 {
    (duration.as_micros() as f64) / 1000.0
}

#[cfg(test)]
mod tests {
    use super::error_rate::record;
    use crate::function::context::Thresholds;

    /// Each set of absent flow parameters names them in order.
    #[test]
    fn each_set_of_absent_flow_parameters_is_named_in_order() {
        let names = ["FlowSid", "ExecutionSid", "StepSid"];
        for bits in 0..8 {
            let expected: Vec<&str> = (0..3)
                .filter(|at| bits & (1 << at) != 0)
                .map(|at| names[at])
                .collect();
            let (absent, message) = super::ABSENT[bits];
            assert_eq!(absent, expected, "{bits:03b}");
            let said = match expected.len() {
                0 => "Flow transition data".to_owned(),
                3 => "No flow transition data: the flow passed no FlowSid, ExecutionSid or StepSid"
                    .to_owned(),
                _ => format!("Flow transition data, without {}", expected.join(", ")),
            };
            assert_eq!(message.text, said);
        }
    }

    /// Runs `handler` as an invocation of `meta` with `event`, under a
    /// subscriber whose only layer is `layer`, on a runtime of its own.
    fn invoke<F, Fut>(
        layer: crate::record::ContractLayer,
        meta: &'static crate::function::meta::FunctionMeta,
        event: crate::function::event::Event,
        handler: F,
    ) -> crate::function::callback::Completion
    where
        F: FnOnce(
                crate::function::context::Context,
                crate::function::event::Event,
                crate::function::callback::Callback,
            ) -> Fut
            + Send
            + 'static,
        Fut: std::future::Future + Send + 'static,
        Fut::Output: crate::function::callback::IntoCompletion,
    {
        use tracing_subscriber::layer::SubscriberExt as _;
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, || {
            tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .unwrap()
                .block_on(super::run(
                    meta,
                    crate::function::context::Context::builder().build(),
                    event,
                    handler,
                ))
        })
    }

    /// Whether the handler of an invocation runs inside the invocation's
    /// `tracing` span, under a subscriber whose contract layer writes
    /// `filter` (and is its only layer when `alone`).
    fn runs_in_span(filter: &str, alone: bool) -> bool {
        use crate::function::callback::{Callback, Reply};
        use crate::function::meta::{meta, test_fields};
        use crate::record::{parse_filter, ContractLayer, LogFormat, SPAN_NAME};
        static META: crate::function::meta::FunctionMeta = meta(test_fields("span-check"));
        let mut layer = ContractLayer::new(LogFormat::Json, std::io::sink)
            .with_filter(parse_filter(filter).unwrap());
        if alone {
            layer = layer.alone();
        }
        let completion = invoke(
            layer,
            &META,
            crate::function::event::Event::new(),
            |_, _, callback: Callback| async move {
                let inside = tracing::Span::current()
                    .metadata()
                    .is_some_and(|span| span.name() == SPAN_NAME);
                callback.success(serde_json::json!({ "inside": inside }))
            },
        );
        match completion.into_result() {
            Ok(Reply::Json(value)) => value["inside"].as_bool().unwrap(),
            other => panic!("{other:?}"),
        }
    }

    /// The span is made for whoever reads it: the layer when it writes
    /// ccfn's records, other layers beside it; with neither, not at all.
    #[test]
    fn the_invocation_span_is_made_only_when_something_reads_it() {
        assert!(!runs_in_span("off", true));
        assert!(runs_in_span("ccfn=error", true));
        assert!(runs_in_span("info", true));
        assert!(runs_in_span("off", false));
    }

    /// A line written in the invocation's span outside its own polls (a
    /// thread the handler started, in its span) is the invocation's: its
    /// function, id and call, and its own secrets scrubbed.
    #[test]
    fn a_line_in_the_span_outside_its_polls_is_the_invocations() {
        use crate::function::callback::Callback;
        use crate::function::meta::{meta, test_fields};
        use crate::record::{ContractLayer, LogFormat};
        use std::sync::{Arc, Mutex};
        static META: crate::function::meta::FunctionMeta = meta(test_fields("span-side"));
        const CALL: &str = "CA0123456789abcdef0123456789abcdef";
        const CANARY: &str = "canary-side-line-5e1c07";

        #[derive(Clone, Default)]
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Shared {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        impl tracing_subscriber::fmt::MakeWriter<'_> for Shared {
            type Writer = Shared;
            fn make_writer(&self) -> Shared {
                self.clone()
            }
        }

        let written = Shared::default();
        let completion = invoke(
            ContractLayer::new(LogFormat::Json, written.clone()).alone(),
            &META,
            crate::function::event::Event::from_pairs([("CallSid", CALL), ("ApiToken", CANARY)]),
            |_, _, callback: Callback| async move {
                let span = tracing::Span::current();
                let dispatch = tracing::dispatcher::get_default(Clone::clone);
                std::thread::spawn(move || {
                    tracing::dispatcher::with_default(&dispatch, || {
                        span.in_scope(|| tracing::info!("from the side: {CANARY}"));
                    });
                })
                .join()
                .unwrap();
                callback.success(serde_json::json!({}))
            },
        );
        assert!(completion.into_result().is_ok());
        let written = String::from_utf8(written.0.lock().unwrap().clone()).unwrap();
        assert!(!written.contains(CANARY), "{written}");
        let side = written
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .find(|record| {
                record["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("from the side"))
            })
            .unwrap_or_else(|| panic!("no line from the side in {written}"));
        assert_eq!(side["message"], "from the side: [REDACTED]");
        assert_eq!(side["function"], "span-side");
        assert_eq!(side["call_sid"], CALL);
        let start = written.lines().next().unwrap();
        let start: serde_json::Value = serde_json::from_str(start).unwrap();
        assert_eq!(side["invocation_id"], start["invocation_id"]);
    }

    /// Each message given in parts is, joined, the text it stands for.
    #[test]
    fn a_message_in_parts_is_the_formatted_one() {
        use crate::record::emit::with_joined;
        for name in ["wait-experience", "", "f \"q\" ==="] {
            with_joined(&super::start_message(name), |joined| {
                assert_eq!(joined, format!("=== FUNCTION START: {name} ==="));
            });
            with_joined(&super::end_message(name), |joined| {
                assert_eq!(joined, format!("=== FUNCTION END: {name} ==="));
            });
        }
        for mode in ["initial", "debug", ""] {
            with_joined(&super::processing_message(mode), |joined| {
                assert_eq!(joined, format!("Processing mode: {mode}"));
            });
        }
    }

    /// A voice function's `success` result is written as the JSON map it
    /// stands for, in every form.
    #[test]
    fn a_voice_result_is_written_as_its_json_map() {
        use crate::record::value::{FieldValue, Shape};
        for bytes in [0, 7, 433, usize::MAX] {
            let result = super::VoiceResult { bytes };
            let map = serde_json::json!({ "voice_response": "returned", "bytes": bytes });
            let mut json = String::new();
            result.write_json(&mut json);
            assert_eq!(json, serde_json::to_string(&map).unwrap());
            let mut pretty = String::new();
            result.write_pretty(&mut pretty);
            assert_eq!(pretty, serde_json::to_string_pretty(&map).unwrap());
            assert_eq!(result.to_value(), map);
            assert_eq!(result.shape(), Shape::Composite);
        }
    }

    /// Records `outcomes` (true: succeeded) in order; the invocation
    /// (1-based) of each crossing, with its counts.
    fn crossings(
        function: &'static str,
        outcomes: &[bool],
        thresholds: &Thresholds,
    ) -> Vec<(usize, u64, u64)> {
        outcomes
            .iter()
            .enumerate()
            .filter_map(|(at, ok)| {
                record(function, *ok, thresholds, std::time::Instant::now())
                    .map(|c| (at + 1, c.failed, c.total))
            })
            .collect()
    }

    #[test]
    fn three_failures_in_ten_invocations_cross_the_default_threshold() {
        let defaults = Thresholds::default();
        assert_eq!(defaults.error_min_invocations, 10);
        let mut outcomes = vec![true; 7];
        outcomes.extend([false; 3]);
        assert_eq!(
            crossings("error-rate-unit-late", &outcomes, &defaults),
            [(10, 3, 10)]
        );
        // Failures first: judged once the window holds 10.
        let mut outcomes = vec![false; 3];
        outcomes.extend([true; 7]);
        assert_eq!(
            crossings("error-rate-unit-early", &outcomes, &defaults),
            [(10, 3, 10)]
        );
    }

    /// A function's window is found by its name, not by where the name
    /// is stored.
    #[test]
    fn the_same_name_at_two_addresses_shares_one_window() {
        let defaults = Thresholds::default();
        let first: &'static str = Box::leak("error-rate-unit-shared".into());
        let second: &'static str = Box::leak("error-rate-unit-shared".into());
        assert!(!std::ptr::eq(first, second));
        assert!(crossings(first, &[true; 7], &defaults).is_empty());
        assert_eq!(crossings(second, &[false; 3], &defaults), [(3, 3, 10)]);
    }

    #[test]
    fn one_failure_of_one_is_not_an_incident() {
        let defaults = Thresholds::default();
        assert!(crossings("error-rate-unit-one", &[false], &defaults).is_empty());
        // Nor 3 of 9: the window does not hold the minimum yet.
        let mut outcomes = vec![false; 3];
        outcomes.extend([true; 6]);
        assert!(crossings("error-rate-unit-nine", &outcomes, &defaults).is_empty());
    }

    #[test]
    fn under_the_rate_no_alert_and_one_alert_per_crossing() {
        let defaults = Thresholds::default();
        // 0 of 10, then 1 failure: 1 of 11 (9 %), over 5 %: one alert;
        // still over on the next failure: none.
        let mut outcomes = vec![true; 10];
        outcomes.extend([false, false]);
        assert_eq!(
            crossings("error-rate-unit-crossing", &outcomes, &defaults),
            [(11, 1, 11)]
        );
        // A minimum of 0 judges from the first invocation.
        let mut eager = defaults;
        eager.error_min_invocations = 0;
        assert_eq!(
            crossings("error-rate-unit-eager", &[false], &eager),
            [(1, 1, 1)]
        );
    }
}
