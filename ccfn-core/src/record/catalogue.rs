//! The record catalogue: every step ccfn writes, defined once (see the
//! module above for how it is used).

use std::fmt;

/// The fields every record has, whatever its step, in the order they are
/// written (`function`, `invocation_id` and `call_sid` only inside an
/// invocation, `call_sid` only when known; `function_request_id` and
/// `cold_start` only inside an invocation served on AWS Lambda).
pub const COMMON_FIELDS: [&str; 9] = [
    "timestamp",
    "level",
    "function",
    "invocation_id",
    "call_sid",
    "function_request_id",
    "cold_start",
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

impl Level {
    /// As a `tracing` level.
    pub(crate) const fn to_tracing(self) -> tracing::Level {
        match self {
            Level::Error => tracing::Level::ERROR,
            Level::Warn => tracing::Level::WARN,
            Level::Info => tracing::Level::INFO,
            Level::Debug => tracing::Level::DEBUG,
            Level::Trace => tracing::Level::TRACE,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

use super::fields::{Field, Written};

/// A record of one step: a struct the catalogue defines for each step ccfn
/// writes, whose fields are the step's, by name.
pub(crate) trait Record {
    /// Its step.
    const STEP: &'static Step;

    /// Writes each field into `written`, in the catalogue's order; an
    /// optional field only when it is there.
    fn write_to(&self, written: &mut Written);
}

/// One `cause` of a `task_error` record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskErrorCause {
    /// The code, as the record writes it.
    pub name: &'static str,
    /// Whether the task router itself failed (no answer, credentials
    /// refused, an error status, a refusal to create the task), rather than
    /// answering something about the workflow, the queue or the task.
    pub external: bool,
    /// What it means, in words.
    pub meaning: &'static str,
}

/// Every `cause` a `task_error` record can name, in the order the task
/// router's client checks them.
pub const TASK_ERROR_CAUSES: [TaskErrorCause; 9] = [
    TaskErrorCause {
        name: "workflow_not_found",
        external: false,
        meaning: "no workflow of the workspace has this friendly name or SID",
    },
    TaskErrorCause {
        name: "workflow_disabled",
        external: false,
        meaning: "the workflow exists but cannot route tasks",
    },
    TaskErrorCause {
        name: "workflow_deleted",
        external: false,
        meaning: "the task router answers 404 for the workflow: deleted, or its SID belongs to another workspace or environment",
    },
    TaskErrorCause {
        name: "workflow_other_workspace",
        external: false,
        meaning: "the workflow is not in this workspace but in another workspace of the account (`workspace_sid`): its SID is another environment's",
    },
    TaskErrorCause {
        name: "queue_mismatch",
        external: false,
        meaning: "the task was created but landed in another queue than expected",
    },
    TaskErrorCause {
        name: "invalid_task",
        external: false,
        meaning: "the task is not valid (no workflow, or attributes that are not an object); nothing was sent",
    },
    TaskErrorCause {
        name: "lookup_failed",
        external: true,
        meaning: "talking to the task router failed: connection, timeout, credentials refused, an error status, or an answer that does not parse",
    },
    TaskErrorCause {
        name: "rejected",
        external: true,
        meaning: "the task router refused to create the task",
    },
    TaskErrorCause {
        name: "task_store",
        external: false,
        meaning: "the local task store could not be written",
    },
];

/// The cause named `name`, if a `task_error` record can name it.
#[must_use]
pub fn task_error_cause(name: &str) -> Option<&'static TaskErrorCause> {
    TASK_ERROR_CAUSES.iter().find(|cause| cause.name == name)
}

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
    headline: &'static [&'static str],
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
            .field("headline", &self.headline)
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

    /// The fields the brief human format (`CCFN_LOG_DETAIL=brief`, the
    /// default) writes on a record's one line, after its message, in
    /// record order: what an operator scans for at this step, marked
    /// `#[headline]` in the catalogue. Every field of a record of an
    /// [open](Step::is_open) step (a handler's own line) is written too.
    ///
    /// ```
    /// let response = ccfn_core::record::step("api_response").unwrap();
    /// assert_eq!(response.headline(), ["status", "elapsed_ms"]);
    /// ```
    #[must_use]
    pub const fn headline(&self) -> &'static [&'static str] {
        self.headline
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
        $ident:ident = $name:literal as $record:tt, [$($level:ident),+]
            { $($(#[$mark:ident])? $field:ident),* }
            $(optional { $($(#[$optional_mark:ident])? $optional:ident),* })?
            $(+ $open:ident)?;
    )+) => {
        $(
            $(#[doc = $doc])+
            pub(crate) const $ident: Step = Step {
                name: $name,
                levels: &[$(Level::$level),+],
                fields: &[$(stringify!($field)),*],
                optional: &[$($(stringify!($optional)),*)?],
                headline: &[
                    $($(catalogue!(@headline $mark $field),)?)*
                    $($($(catalogue!(@headline $optional_mark $optional),)?)*)?
                ],
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
                                    $($field = field(fields, stringify!($field)),)*
                                    $($($optional = field(fields, stringify!($optional)),)*)?
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

            catalogue!(@record $record, $ident, $name, [$($field),*], [$($($optional),*)?]);
        )+

        /// Every step, in the order an invocation writes them, then those
        /// written outside invocations.
        pub const ALL: &[&Step] = &[$(&$ident),+];
    };
    // The one mark a field takes: `#[headline]`.
    (@headline headline $field:ident) => { stringify!($field) };
    (@open open) => { true };
    (@open) => { false };
    // An open step's records are a handler's own: ccfn writes none.
    (@record _, $($rest:tt)*) => {};
    (@record $record:ident, $ident:ident, $name:literal, [$($field:ident),*], [$($optional:ident),*]) => {
        #[doc = concat!("A `", $name, "` record: each field of [`", stringify!($ident), "`], by name.")]
        #[derive(Clone, Copy, Debug)]
        #[cfg_attr(not(all(feature = "clients", feature = "runtime", feature = "otel")), allow(dead_code))]
        pub(crate) struct $record<'a> {
            $(pub(crate) $field: Field<'a>,)*
            $(pub(crate) $optional: Option<Field<'a>>,)*
        }

        impl Record for $record<'_> {
            const STEP: &'static Step = &$ident;

            fn write_to(&self, written: &mut Written) {
                $(written.push(stringify!($field), self.$field);)*
                $(if let Some(value) = self.$optional {
                    written.push(stringify!($optional), value);
                })*
            }
        }
    };
}

catalogue! {

    /// The invocation begins: the event as received and the domain.
    START = "start" as Start, [Info] { event, domain };

    /// `ENABLE_LOCAL_LOGGING` is on: the event's and context's keys and
    /// memory use.
    VERBOSE = "verbose" as Verbose, [Info] { #[headline] event_keys, #[headline] context_keys, memory_bytes };

    /// `DEBUG_MODE` is on or `mode=debug`: the function's name, version and
    /// environment.
    DEBUG = "debug" as DebugMode, [Info] { #[headline] function_name, #[headline] function_version, #[headline] execution_environment };

    /// Before (`phase` `begin`) and after (`passed`) the required
    /// parameters and environment values are checked.
    VALIDATION = "validation" as Validation, [Info] { phase, required } optional { env };

    /// A required parameter or environment value is missing.
    VALIDATION_ERROR = "validation_error" as ValidationError, [Warn] { parameter, error };

    /// A handler read a parameter or value past what its function
    /// declares (`source` `event` or `context`; `problem` `undeclared`,
    /// `looks_sensitive` or `secret`): once per function, name and problem,
    /// with the fix in the message.
    DECLARATION = "declaration" as Declaration, [Warn] { source, #[headline] name, #[headline] problem };

    /// The business logic starts, in this mode.
    PROCESSING = "processing" as Processing, [Info] { mode };

    /// Who calls whom, on which call.
    CALLER = "caller" as Caller, [Info] { #[headline] from, #[headline] to, #[headline] call_sid };

    /// The flow transition data a voice function received.
    FLOW = "flow" as Flow, [Info] { #[headline] flow_sid, execution_sid, step_sid, absent };

    /// An external call is about to be sent.
    API_REQUEST = "api_request" as ApiRequest, [Info] { method, url, headers, request_bytes };

    /// Every external call's authentication status: whether it carries
    /// credentials, their kind and expiry, never their value.
    AUTH = "auth" as Auth, [Info] { authenticated, #[headline] token_type, expires_at };

    /// An external call's whole response.
    API_RESPONSE = "api_response" as ApiResponse, [Info, Warn] { #[headline] status, ok, content_type, response_bytes, data, #[headline] elapsed_ms } optional { data_truncated, data_cut_bytes };

    /// An external call that got no whole response.
    API_ERROR = "api_error" as ApiError, [Error] { method, url, error, #[headline] elapsed_ms } optional { max_response_bytes, #[headline] status };

    /// The workflow a task is created in.
    WORKFLOW = "workflow" as Workflow, [Info] { workflow_sid };

    /// The attributes of a task about to be created.
    TASK_ATTRIBUTES = "task_attributes" as TaskAttributes, [Info] { #[headline] attributes };

    /// A task was created: written whatever the log filter says.
    CRITICAL = "critical" as Critical, [Info] { task_sid, queue_sid, workflow_sid, attributes };

    /// A task could not be created, and why; the caller hears the
    /// fallback.
    TASK_ERROR = "task_error" as TaskError, [Error] { #[headline] cause, workflow_sid, caller_message } optional { workspace_sid };

    /// Tasks go to the local task store, for want of credentials.
    TASK_STORE = "task_store" as TaskStore, [Warn] { path, missing };

    /// An email is about to be sent.
    EMAIL_REQUEST = "email_request" as EmailRequest, [Info] { url, domain, #[headline] recipients, #[headline] subject };

    /// One attachment of an email.
    ATTACHMENT = "attachment" as Attachment, [Info] { filename, size, content_type };

    /// An email was accepted.
    EMAIL_RESULT = "email_result" as EmailResult, [Info] { #[headline] id, recipient_count } optional { #[headline] path };

    /// An email was not sent.
    EMAIL_ERROR = "email_error" as EmailError, [Error] { error, #[headline] kind, domain } optional { #[headline] status };

    /// The voice document as first built and as returned.
    VOICE_RESPONSE = "voice_response" as VoiceResponse, [Info] { phase, twiml } optional { #[headline] modified };

    /// The task-routing configuration of a voice function.
    TASKROUTER_CONFIG = "taskrouter_config" as TaskrouterConfig, [Info] { workspace_sid, #[headline] workflow_sid, #[headline] queue };

    /// Execution time and memory, before the end.
    METRICS = "metrics" as Metrics, [Info] { #[headline] execution_ms, #[headline] memory_bytes, memory_limit_bytes };

    /// A threshold was crossed.
    ALERT = "alert" as Alert, [Warn] { #[headline] kind, value, threshold };

    /// The function succeeded, with this result.
    SUCCESS = "success" as Success, [Info] { #[headline] result };

    /// The `debug` lines the invocation held back follow (`reason` `error`,
    /// or `requested` by the handler): how many, and how many older ones
    /// were dropped to stay within the buffer.
    DEBUG_BUFFER = "debug_buffer" as DebugBuffer, [Info] { reason, #[headline] lines, #[headline] dropped };

    /// The function failed: the error with its stack, the event and the
    /// context.
    ERROR = "error" as Error, [Error] { #[headline] kind, #[headline] error, stack, event, domain, account_sid };

    /// The invocation ends.
    END = "end" as End, [Info] { #[headline] outcome, #[headline] execution_ms };

    /// A handler's own line, with its own fields.
    LOG = "log" as _, [Error, Warn, Info, Debug, Trace] {} + open;

    /// A request was answered without invoking the function.
    REQUEST_REJECTED = "request_rejected" as RequestRejected, [Warn, Error] { #[headline] status, #[headline] method, #[headline] path, error };

    /// OpenTelemetry export failed (`signal` `traces` or `metrics`), or
    /// spans were dropped for a full queue: at most one a minute per
    /// signal, with the counts since the last.
    TELEMETRY = "telemetry" as Telemetry, [Warn] { signal, #[headline] error, #[headline] failed, #[headline] dropped };

    /// Log lines were dropped because the writer could not keep up.
    LOG_DROPPED = "log_dropped" as LogDropped, [Warn] { dropped, total_dropped };

    /// The runtime started, stopped, or could not do something.
    RUNTIME = "runtime" as Runtime, [Info, Warn] {} optional { addr, functions };
}

#[cfg(feature = "runtime")]
impl Runtime<'_> {
    /// A `runtime` record with no field of its own.
    pub(crate) const BARE: Runtime<'static> = Runtime {
        addr: None,
        functions: None,
    };
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

    fn names(record: &impl Record) -> Vec<&'static str> {
        let mut written = Written::default();
        record.write_to(&mut written);
        written.iter().map(|(name, _)| name).collect()
    }

    #[test]
    fn a_record_writes_its_step_fields_in_order_and_optional_ones_when_there() {
        let begin = Validation {
            phase: Field::from("begin"),
            required: Field::Null,
            env: Some(Field::Null),
        };
        assert_eq!(names(&begin), ["phase", "required", "env"]);
        let passed = Validation { env: None, ..begin };
        assert_eq!(names(&passed), Validation::STEP.fields());
        let start = Start {
            event: Field::Null,
            domain: Field::Null,
        };
        assert_eq!(names(&start), START.fields());
        assert_eq!(Start::STEP.name(), "start");
    }

    #[test]
    fn the_headline_is_the_marked_fields_in_record_order() {
        assert_eq!(API_RESPONSE.headline(), ["status", "elapsed_ms"]);
        // Optional fields can be marked too, and follow the others.
        assert_eq!(EMAIL_RESULT.headline(), ["id", "path"]);
        assert_eq!(CALLER.headline(), ["from", "to", "call_sid"]);
        assert!(START.headline().is_empty());
        assert!(LOG.headline().is_empty() && LOG.is_open());
    }

    #[test]
    fn the_headline_leaves_out_the_bulky_fields() {
        // What can run to many lines stays for `CCFN_LOG_DETAIL=full`:
        // one line per record is the point of the brief format.
        let bulky = ["event", "data", "twiml", "stack", "headers"];
        for step in ALL {
            for field in step.headline() {
                assert!(!bulky.contains(field), "{}.{field}", step.name());
            }
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
