//! The record catalogue: every step ccfn writes, defined once (see the
//! module above for how it is used).

use std::fmt;

/// The fields every record has, whatever its step, in the order they are
/// written (`function`, `invocation_id` and `call_sid` only inside an
/// invocation, `call_sid` only when known).
pub const COMMON_FIELDS: [&str; 7] = [
    "timestamp",
    "level",
    "function",
    "invocation_id",
    "call_sid",
    "step",
    "message",
];

/// A level a step is written at: the `level` field of its records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Level {
    /// `ERROR`.
    Error,
    /// `WARN`.
    Warn,
    /// `INFO`.
    Info,
    /// `DEBUG`.
    Debug,
    /// `TRACE`.
    Trace,
}

impl Level {
    /// As written in the `level` field.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Level::Error => "ERROR",
            Level::Warn => "WARN",
            Level::Info => "INFO",
            Level::Debug => "DEBUG",
            Level::Trace => "TRACE",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

use super::fields::Written;

/// The fields whose values differ from one run to the next (times, ids,
/// durations, memory), wherever they appear, each with what a snapshot
/// shows in its place: `ccfn-testkit`'s snapshot redactions read this
/// list.
pub const VARYING_FIELDS: [(&str, &str); 6] = [
    ("timestamp", "[timestamp]"),
    ("invocation_id", "[invocation_id]"),
    ("execution_ms", "[ms]"),
    ("elapsed_ms", "[ms]"),
    ("memory_bytes", "[bytes]"),
    ("memory_limit_bytes", "[bytes]"),
];

/// One step of the catalogue.
pub struct Step {
    name: &'static str,
    levels: &'static [Level],
    fields: &'static [&'static str],
    optional: &'static [&'static str],
    open: bool,
    summary: &'static str,
    /// Emits a `tracing` event of this step carrying each of its fields
    /// (as JSON text), so that any layer can read them.
    event: fn(tracing::Level, bool, &str, &Written),
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Step")
            .field("name", &self.name)
            .field("levels", &self.levels)
            .field("fields", &self.fields)
            .field("optional", &self.optional)
            .finish_non_exhaustive()
    }
}

/// A field's value as a `tracing` field: its JSON text, with every secret
/// scrubbed as in the log lines, written only if a layer records it.
/// A field's value as other layers see it: a string as itself, anything
/// else as JSON text, scrubbed as the contract's lines are.
struct JsonText<'a> {
    json: &'a str,
    is_str: bool,
}

impl fmt::Display for JsonText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = if self.is_str {
            serde_json::from_str::<String>(self.json).unwrap_or_default()
        } else {
            self.json.to_owned()
        };
        super::scope::scrub_for_current(&mut text);
        f.write_str(&text)
    }
}

/// The value of field `name` of a record, as a `tracing` value.
fn field<'a>(
    fields: &'a Written,
    name: &str,
) -> Option<tracing::field::DisplayValue<JsonText<'a>>> {
    fields
        .get(name)
        .map(|(json, is_str)| tracing::field::display(JsonText { json, is_str }))
}

impl Step {
    /// Emits the `tracing` event of a record of this step.
    pub(crate) fn event(
        &'static self,
        level: tracing::Level,
        critical: bool,
        message: &str,
        fields: &Written,
    ) {
        (self.event)(level, critical, message, fields);
    }

    /// The `step` field of its records.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The levels it is written at.
    #[must_use]
    pub const fn levels(&self) -> &'static [Level] {
        self.levels
    }

    /// The fields every record of this step has, beyond
    /// [`COMMON_FIELDS`], in order.
    #[must_use]
    pub const fn fields(&self) -> &'static [&'static str] {
        self.fields
    }

    /// The fields some records of this step have.
    #[must_use]
    pub const fn optional(&self) -> &'static [&'static str] {
        self.optional
    }

    /// Whether its records may carry fields of their own beyond these
    /// (a handler's own lines).
    #[must_use]
    pub const fn is_open(&self) -> bool {
        self.open
    }

    /// What the step is for, in a sentence.
    #[must_use]
    pub const fn summary(&self) -> &'static str {
        self.summary
    }

    /// Whether a record of this step may have a field named `field`.
    #[must_use]
    pub fn admits(&self, field: &str) -> bool {
        self.open
            || COMMON_FIELDS.contains(&field)
            || self.fields.contains(&field)
            || self.optional.contains(&field)
    }
}

/// What is wrong with `record` (one parsed JSON line) by the catalogue:
/// a step that is not in it, a level the step is not written at, a field
/// the step must have and lacks, or one it does not define. Empty when
/// nothing is.
///
/// ```
/// use ccfn_core::record::violations;
///
/// let line = r#"{"timestamp":"2026-11-22T10:00:00.000Z","level":"INFO","step":"processing","message":"Processing mode: initial","mode":"initial"}"#;
/// let record = serde_json::from_str(line).unwrap();
/// assert!(violations(&record).is_empty());
///
/// let line = r#"{"level":"INFO","step":"processing","message":"m","mood":"initial"}"#;
/// let record = serde_json::from_str(line).unwrap();
/// assert_eq!(
///     violations(&record),
///     ["`processing` has no `mode` field", "`processing` has a `mood` field its step does not define"]
/// );
/// ```
#[must_use]
pub fn violations(record: &serde_json::Map<String, serde_json::Value>) -> Vec<String> {
    let mut found = Vec::new();
    let name = record.get("step").and_then(|s| s.as_str()).unwrap_or("");
    let Some(step) = step(name) else {
        found.push(format!("step `{name}` is not in the record catalogue"));
        return found;
    };
    let level = record.get("level").and_then(|l| l.as_str()).unwrap_or("");
    if !step.levels.iter().any(|l| l.as_str() == level) {
        found.push(format!(
            "`{name}` is at level {level}, not one of {:?}",
            step.levels
        ));
    }
    for field in step.fields {
        if !record.contains_key(*field) {
            found.push(format!("`{name}` has no `{field}` field"));
        }
    }
    for field in record.keys() {
        if !step.admits(field) {
            found.push(format!(
                "`{name}` has a `{field}` field its step does not define"
            ));
        }
    }
    found
}

/// The step named `name`.
#[must_use]
pub fn step(name: &str) -> Option<&'static Step> {
    ALL.iter().copied().find(|step| step.name == name)
}

macro_rules! catalogue {
    ($(
        $(#[doc = $doc:literal])+
        $ident:ident = $name:literal, [$($level:ident),+],
            fields [$($field:literal),*]
            $(optional [$($optional:literal),*])?
            $(+ $open:ident)?;
    )+) => {
        $(
            $(#[doc = $doc])+
            pub const $ident: Step = Step {
                name: $name,
                levels: &[$(Level::$level),+],
                fields: &[$($field),*],
                optional: &[$($($optional),*)?],
                open: catalogue!(@open $($open)?),
                summary: concat!($($doc),+),
                event: {
                    fn event(level: tracing::Level, critical: bool, message: &str, fields: &Written) {
                        let _ = fields;
                        macro_rules! at {
                            ($target:literal, $at:expr) => {
                                tracing::event!(
                                    target: $target,
                                    $at,
                                    step = $name,
                                    $({ $field } = field(fields, $field),)*
                                    $($({ $optional } = field(fields, $optional),)*)?
                                    "{}",
                                    message
                                )
                            };
                        }
                        match level {
                            _ if critical => at!("ccfn::critical", tracing::Level::INFO),
                            tracing::Level::ERROR => at!("ccfn", tracing::Level::ERROR),
                            tracing::Level::WARN => at!("ccfn", tracing::Level::WARN),
                            tracing::Level::DEBUG => at!("ccfn", tracing::Level::DEBUG),
                            tracing::Level::TRACE => at!("ccfn", tracing::Level::TRACE),
                            _ => at!("ccfn", tracing::Level::INFO),
                        }
                    }
                    event
                },
            };
        )+

        /// Every step, in the order an invocation writes them, then those
        /// written outside invocations.
        pub const ALL: &[&Step] = &[$(&$ident),+];
    };
    (@open open) => { true };
    (@open) => { false };
}

catalogue! {
    /// The invocation begins: the event as received and the domain.
    START = "start", [Info], fields ["event", "domain"];
    /// `ENABLE_LOCAL_LOGGING` is on: the event's and context's keys and
    /// memory use.
    VERBOSE = "verbose", [Info], fields ["event_keys", "context_keys", "memory_bytes"];
    /// `DEBUG_MODE` is on or `mode=debug`: the function's name, version and
    /// environment.
    DEBUG = "debug", [Info], fields ["function_name", "function_version", "execution_environment"];
    /// Before (`phase` `begin`) and after (`passed`) the required
    /// parameters and environment values are checked.
    VALIDATION = "validation", [Info], fields ["phase", "required"] optional ["env"];
    /// A required parameter or environment value is missing.
    VALIDATION_ERROR = "validation_error", [Warn], fields ["parameter", "error"];
    /// The business logic starts, in this mode.
    PROCESSING = "processing", [Info], fields ["mode"];
    /// Who calls whom, on which call.
    CALLER = "caller", [Info], fields ["from", "to", "call_sid"];
    /// The flow transition data a voice function received.
    FLOW = "flow", [Info], fields ["flow_sid", "execution_sid", "step_sid", "absent"];
    /// An external call is about to be sent.
    API_REQUEST = "api_request", [Info], fields ["method", "url", "headers", "request_bytes"];
    /// An authenticated external call: the kind of credentials and their
    /// expiry, never their value.
    AUTH = "auth", [Info], fields ["authenticated", "token_type", "expires_at"];
    /// An external call's whole response.
    API_RESPONSE = "api_response", [Info, Warn],
        fields ["status", "ok", "content_type", "response_bytes", "data", "elapsed_ms"] optional ["data_truncated", "data_cut_bytes"];
    /// An external call that got no whole response.
    API_ERROR = "api_error", [Error], fields ["method", "url", "error", "elapsed_ms"] optional ["max_response_bytes", "status"];
    /// The workflow a task is created in.
    WORKFLOW = "workflow", [Info], fields ["workflow_sid"];
    /// The attributes of a task about to be created.
    TASK_ATTRIBUTES = "task_attributes", [Info], fields ["attributes"];
    /// A task was created: written whatever the log filter says.
    CRITICAL = "critical", [Info], fields ["task_sid", "queue_sid", "workflow_sid", "attributes"];
    /// A task could not be created, and why; the caller hears the
    /// fallback.
    TASK_ERROR = "task_error", [Error], fields ["cause", "workflow_sid", "caller_message"];
    /// Tasks go to the local task store, for want of credentials.
    TASK_STORE = "task_store", [Warn], fields ["path", "missing"];
    /// An email is about to be sent.
    EMAIL_REQUEST = "email_request", [Info], fields ["url", "domain", "recipients", "subject"];
    /// One attachment of an email.
    ATTACHMENT = "attachment", [Info], fields ["filename", "size", "content_type"];
    /// An email was accepted.
    EMAIL_RESULT = "email_result", [Info], fields ["id", "recipient_count"] optional ["path"];
    /// An email was not sent.
    EMAIL_ERROR = "email_error", [Error], fields ["error", "kind", "domain"] optional ["status"];
    /// The voice document as first built and as returned.
    VOICE_RESPONSE = "voice_response", [Info], fields ["phase", "twiml"] optional ["modified"];
    /// The task-routing configuration of a voice function.
    TASKROUTER_CONFIG = "taskrouter_config", [Info], fields ["workspace_sid", "workflow_sid", "queue"];
    /// Execution time and memory, before the end.
    METRICS = "metrics", [Info], fields ["execution_ms", "memory_bytes", "memory_limit_bytes"];
    /// A threshold was crossed.
    ALERT = "alert", [Warn], fields ["kind", "value", "threshold"];
    /// The function succeeded, with this result.
    SUCCESS = "success", [Info], fields ["result"];
    /// The function failed: the error with its stack, the event and the
    /// context.
    ERROR = "error", [Error], fields ["kind", "error", "stack", "event", "domain", "account_sid"];
    /// The invocation ends.
    END = "end", [Info], fields ["outcome", "execution_ms"];
    /// A handler's own line, with its own fields.
    LOG = "log", [Error, Warn, Info, Debug, Trace], fields [] +open;
    /// A request was answered without invoking the function.
    REQUEST_REJECTED = "request_rejected", [Warn, Error], fields ["status", "method", "path", "error"];
    /// Log lines were dropped because the writer could not keep up.
    LOG_DROPPED = "log_dropped", [Warn], fields ["dropped", "total_dropped"];
    /// The runtime started, stopped, or could not do something.
    RUNTIME = "runtime", [Info, Warn], fields [] optional ["addr", "functions"];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_fields_distinct() {
        for (i, step) in ALL.iter().enumerate() {
            assert!(
                ALL[i + 1..].iter().all(|other| other.name != step.name),
                "{} twice",
                step.name
            );
            for field in step.fields.iter().chain(step.optional) {
                assert!(!COMMON_FIELDS.contains(field) || *field == "call_sid");
                assert_eq!(
                    step.fields
                        .iter()
                        .chain(step.optional)
                        .filter(|f| *f == field)
                        .count(),
                    1,
                    "{}.{field}",
                    step.name
                );
            }
            assert!(!step.summary.is_empty());
            assert!(!step.levels.is_empty());
        }
    }

    #[test]
    fn admits_its_fields_only() {
        assert!(API_RESPONSE.admits("data_cut_bytes"));
        assert!(API_RESPONSE.admits("timestamp"));
        assert!(!API_RESPONSE.admits("max_response_bytes"));
        assert!(LOG.admits("anything"));
    }
}
