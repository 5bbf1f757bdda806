//! `invoke`: run a function under the contract and capture what it logged.

use std::fmt::Write as _;
use std::sync::OnceLock;

use ccfn_core::function::{BoxFuture, ContactFunction, InvocationId};
use ccfn_core::record::{Captured, ContractLayer, LogFormat};
use ccfn_core::{Completion, Context, Error, Event, Reply};
use serde_json::{Map, Value};
use tracing::instrument::WithSubscriber as _;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt as _;

use crate::capture::Buffer;

/// One record as written: a JSON object.
pub type Record = Map<String, Value>;

/// Runs `function` on `event` under the logging contract, with its log
/// records captured for this call alone (tests running in parallel never
/// see each other's lines), in every format (JSON lines, and the human
/// format both brief and with every field): every ccfn record, and the
/// handler's own `tracing` events from `INFO` up.
///
/// Needs a Tokio runtime (`#[tokio::test]`).
///
/// ```
/// use ccfn_core::prelude::*;
/// use ccfn_testkit::{invoke, FakeContext, FakeEvent};
///
/// /// Answers with a greeting.
/// ///
/// /// # Trigger
/// /// Incoming call webhook.
/// /// # Dependencies
/// /// None.
/// /// # Critical logging
/// /// None beyond the contract.
/// /// # Contacts
/// /// oncall@example.com
/// #[contact_fn(required = [CallSid, From, To])]
/// async fn hello(_context: Context, _event: Event, callback: Callback) -> Completion {
///     let mut twiml = VoiceResponse::new();
///     twiml.say("Hello");
///     callback.success(twiml)
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let run = invoke(hello, FakeContext::new(), FakeEvent::voice().without("To")).await;
/// run.assert_contract();
/// assert_eq!(run.error_message(), Some("Missing required parameter: To"));
/// # });
/// ```
///
/// A plain function returning a boxed future, not an `async fn`: its
/// return type does not name `F`, so that given a function that is not a
/// contact-center function (a handler without `#[contact_fn]`), rustc
/// reports the unmet bound once, at the argument, rather than also at the
/// call and at its `.await`.
pub fn invoke<F: ContactFunction>(
    function: F,
    context: impl Into<Context>,
    event: impl Into<Event>,
) -> BoxFuture<Run> {
    Box::pin(run(function, context.into(), event.into()))
}

/// [`invoke`], its arguments converted.
async fn run<F: ContactFunction>(function: F, context: Context, event: Event) -> Run {
    // A read past the declarations is a `declaration` warning in every
    // invocation that makes it (the runtime writes it once per process),
    // so that a run's records do not depend on what ran before it.
    let (context, event) = ccfn_core::__private::declarations_per_invocation(&context, event);
    let secrets = context
        .secrets()
        .map(|(_, secret)| secret.expose().to_owned())
        // Shorter values are not scrubbed (see `MIN_SCRUBBED_LEN`).
        .filter(|value| value.chars().count() >= ccfn_core::record::MIN_SCRUBBED_LEN)
        .collect();
    let expected_call_sid = event.call_sid().map(str::to_owned);
    let capture = Capture::new();
    let completion = function
        .invoke(context, event)
        .with_subscriber(capture.subscriber())
        .await;
    capture.finish(
        Meta {
            name: function.meta().name().to_owned(),
            required: function
                .meta()
                .required()
                .iter()
                .map(|r| (*r).to_owned())
                .collect(),
        },
        completion,
        secrets,
        expected_call_sid,
    )
}

/// The function a run is of: its name, and the parameters it requires.
pub(crate) struct Meta {
    pub(crate) name: String,
    pub(crate) required: Vec<String>,
}

/// One invocation's records, captured as `invoke` captures them: in
/// every format, and as values from their typed fields.
#[derive(Clone, Default)]
pub(crate) struct Capture {
    json: Buffer,
    pretty: Buffer,
    pretty_full: Buffer,
    captured: Captured,
}

impl Capture {
    /// A new capture, with what every capture needs installed.
    pub(crate) fn new() -> Capture {
        ccfn_core::__private::install_panic_hook();
        keep_callsites_asking_every_dispatcher();
        Capture::default()
    }

    /// The subscriber an invocation runs under to be captured here.
    pub(crate) fn subscriber(&self) -> impl tracing::Subscriber + Send + Sync + 'static {
        // Every ccfn record, and the handler's own lines from `info` up
        // (not the debug chatter of HTTP libraries).
        let filter = Targets::new()
            .with_default(tracing::Level::INFO)
            .with_target("ccfn", tracing::Level::TRACE);
        // One layer: each record is handed to it once, and written in
        // every format and kept as a value from its typed fields.
        tracing_subscriber::registry().with(
            ContractLayer::new(LogFormat::Json, self.json.clone())
                .also(LogFormat::Pretty, self.pretty.clone())
                .also(LogFormat::PrettyFull, self.pretty_full.clone())
                .capture(&self.captured)
                .with_filter(filter),
        )
    }

    /// The records captured so far.
    pub(crate) fn records(&self) -> Vec<Record> {
        self.captured.records()
    }

    /// The function the records name, when one does.
    pub(crate) fn function(&self) -> Option<String> {
        self.records()
            .iter()
            .find_map(|r| r.get("function").and_then(Value::as_str).map(str::to_owned))
    }

    /// The run of `meta`'s function that ended with `completion`.
    pub(crate) fn finish(
        self,
        meta: Meta,
        completion: Completion,
        secrets: Vec<String>,
        expected_call_sid: Option<String>,
    ) -> Run {
        Run {
            meta_name: meta.name,
            required: meta.required,
            completion,
            lines: self.json.contents().lines().map(str::to_owned).collect(),
            records: self.captured.records(),
            pretty: self.pretty.contents(),
            pretty_full: self.pretty_full.contents(),
            secrets,
            expected_call_sid,
        }
    }
}

/// Keeps a second dispatcher registered for the life of the process.
///
/// `tracing` settles each callsite's interest once, when it is first hit.
/// While exactly one dispatcher is registered, tracing-core 0.1 asks the
/// default of the thread that hits it first (tokio-rs/tracing#3611): a
/// thread with no subscriber (a fake service's, a runtime worker) then
/// settles a ccfn callsite as never written, and a capture running at the
/// same time loses every record of it. With two registered, it asks
/// every live dispatcher, the capture among them.
fn keep_callsites_asking_every_dispatcher() {
    static SECOND: OnceLock<tracing::Dispatch> = OnceLock::new();
    SECOND.get_or_init(|| tracing::Dispatch::new(tracing::subscriber::NoSubscriber::default()));
}

/// What one invocation did and logged.
pub struct Run {
    meta_name: String,
    required: Vec<String>,
    completion: Completion,
    lines: Vec<String>,
    records: Vec<Record>,
    pretty: String,
    pretty_full: String,
    secrets: Vec<String>,
    expected_call_sid: Option<String>,
}

/// Prints the completion and the steps (never the context's secrets).
impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("function", &self.meta_name)
            .field("completion", &self.completion)
            .field("steps", &self.steps())
            .finish_non_exhaustive()
    }
}

impl Run {
    /// A line as a failure message may show it: any secret of the context
    /// that leaked into it is masked, so the failure does not leak it too.
    fn masked(&self, line: &str) -> String {
        let mut line = line.to_owned();
        for secret in &self.secrets {
            line = line.replace(secret.as_str(), "[LEAKED SECRET]");
        }
        line
    }

    /// How the invocation ended: its identifier and its result.
    pub fn completion(&self) -> &Completion {
        &self.completion
    }

    /// The invocation's identifier.
    #[must_use]
    pub fn invocation_id(&self) -> &InvocationId {
        self.completion.invocation_id()
    }

    /// The reply, when the function succeeded.
    #[must_use]
    pub fn reply(&self) -> Option<&Reply> {
        self.completion.result().ok()
    }

    /// The error, when the function failed.
    #[must_use]
    pub fn error(&self) -> Option<&Error> {
        self.completion.result().err()
    }

    /// The HTTP status the runtime would answer (see
    /// `ccfn_core::Completion::status`): 200, an `HttpReply`'s own, 400 for
    /// a missing parameter, 504 for a timeout, 500 for any other failure.
    #[must_use]
    pub fn status(&self) -> u16 {
        self.completion.status()
    }

    /// The voice markup (or other XML) the function answered.
    ///
    /// # Panics
    /// The function failed, or answered something else; the message shows
    /// what.
    #[must_use]
    #[track_caller]
    pub fn xml(&self) -> &str {
        match self.completion.result() {
            Ok(Reply::Voice(voice)) => voice.xml(),
            Ok(Reply::Xml(xml)) => xml,
            other => panic!("`{}` answered no XML: {other:?}", self.meta_name),
        }
    }

    /// The JSON the caller receives: the function's JSON result (or an
    /// `HttpReply`'s JSON body), or, when it failed, the runtime's error
    /// answer `{"message": ..}`, with the message the caller is told.
    ///
    /// # Panics
    /// The function answered voice markup, or a body that is not JSON; the
    /// message shows what.
    #[must_use]
    #[track_caller]
    pub fn json(&self) -> Value {
        match self.completion.result() {
            Ok(Reply::Json(value)) => value.clone(),
            Ok(Reply::Http(reply)) => {
                serde_json::from_slice(reply.body_bytes()).unwrap_or_else(|e| {
                    panic!(
                        "`{}` answered a body that is not JSON ({e}): {}",
                        self.meta_name,
                        String::from_utf8_lossy(reply.body_bytes())
                    )
                })
            }
            Err(error) => serde_json::json!({ "message": error.caller_message() }),
            Ok(other) => panic!("`{}` answered no JSON: {other:?}", self.meta_name),
        }
    }

    /// The error's message, when the function failed.
    #[must_use]
    pub fn error_message(&self) -> Option<&str> {
        self.error().map(Error::message)
    }

    /// Every record, in order.
    #[must_use]
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// The JSON lines as written.
    #[must_use]
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The human-format output as written: one line per record
    /// (`CCFN_LOG_DETAIL=brief`, the default).
    #[must_use]
    pub fn pretty(&self) -> &str {
        &self.pretty
    }

    /// The human-format output with every field, as written
    /// (`CCFN_LOG_DETAIL=full`).
    #[must_use]
    pub fn pretty_full(&self) -> &str {
        &self.pretty_full
    }

    /// Every line written, in every format: the JSON lines, then the
    /// human format's, brief then full.
    pub(crate) fn every_line(&self) -> impl Iterator<Item = &str> {
        self.lines
            .iter()
            .map(String::as_str)
            .chain(self.pretty.lines())
            .chain(self.pretty_full.lines())
    }

    /// The step of every record, in order.
    #[must_use]
    pub fn steps(&self) -> Vec<&str> {
        self.records.iter().map(step_of).collect()
    }

    /// The first record of `step`.
    #[must_use]
    pub fn record(&self, step: &str) -> Option<&Record> {
        self.records.iter().find(|r| step_of(r) == step)
    }

    /// Every record of `step`.
    #[must_use]
    pub fn records_of(&self, step: &str) -> Vec<&Record> {
        self.records.iter().filter(|r| step_of(r) == step).collect()
    }

    /// The records as stable text for `insta`: one JSON object per line,
    /// with times, durations, memory, ids and code locations replaced by
    /// placeholders.
    #[must_use]
    pub fn snapshot(&self) -> String {
        let mut out = String::new();
        for record in self.redacted() {
            let _ = writeln!(out, "{}", Value::Object(record));
        }
        out
    }

    /// The records in the human format, one line each, redacted as
    /// [`Run::snapshot`], except the time: `[date]T[time]` where the line
    /// shows the whole timestamp (a `start` line), `[time]` where it shows
    /// the time of day.
    #[must_use]
    pub fn pretty_snapshot(&self) -> String {
        self.rendered(LogFormat::Pretty)
    }

    /// The records in the human format with every field, redacted as
    /// [`Run::snapshot`], except the time: `[date]T[time]`.
    #[must_use]
    pub fn pretty_full_snapshot(&self) -> String {
        self.rendered(LogFormat::PrettyFull)
    }

    fn rendered(&self, format: LogFormat) -> String {
        let mut out = String::new();
        for mut record in self.redacted() {
            // Date and time apart, so that a snapshot shows which lines
            // carry the date.
            if let Some(timestamp) = record.get_mut("timestamp") {
                *timestamp = Value::from("[date]T[time]");
            }
            let _ = writeln!(out, "{}", format.render(&record));
        }
        out
    }

    fn redacted(&self) -> Vec<Record> {
        self.records.iter().map(crate::redact::record).collect()
    }

    /// Checks the run against every rule of the logging contract, and
    /// panics with what was expected against what was captured when one is
    /// broken; then that the handler read nothing past what the function
    /// declares, and panics with each such read, its function and the
    /// fix when it did. See [`crate::contract`] for the rules.
    #[track_caller]
    pub fn assert_contract(&self) {
        let violations = crate::contract::check(self);
        if !violations.is_empty() {
            panic!(
                "the run of `{}` breaks the logging contract:\n{}\n\ncaptured steps: {}\n\ncaptured lines:\n{}",
                self.meta_name,
                bullets(&violations),
                self.steps().join(", "),
                self.masked(&self.lines.join("\n")),
            );
        }
        let undeclared = crate::contract::undeclared_reads(self);
        if !undeclared.is_empty() {
            panic!(
                "the run of `{}` reads past what `{}` declares; each read, with its fix:\n{}",
                self.meta_name,
                self.meta_name,
                bullets(&undeclared),
            );
        }
    }

    /// Panics if any written line, in any format, contains one of
    /// `values`. [`Run::assert_contract`] already checks the context's
    /// secrets; use this for canaries planted elsewhere.
    #[track_caller]
    pub fn assert_no_leak(&self, values: &[&str]) {
        for value in values {
            for line in self.every_line() {
                assert!(
                    !line.contains(value),
                    "a log line leaks a secret value:\n{}",
                    line.replace(value, "[LEAKED SECRET]")
                );
            }
        }
    }

    pub(crate) fn secrets(&self) -> &[String] {
        &self.secrets
    }

    pub(crate) fn required(&self) -> &[String] {
        &self.required
    }

    pub(crate) fn function_name(&self) -> &str {
        &self.meta_name
    }

    pub(crate) fn expected_call_sid(&self) -> Option<&str> {
        self.expected_call_sid.as_deref()
    }
}

/// Each of `items` on a line of its own, after `  - `.
fn bullets(items: &[String]) -> String {
    items
        .iter()
        .map(|item| format!("  - {item}"))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn step_of(record: &Record) -> &str {
    record.get("step").and_then(Value::as_str).unwrap_or("")
}
