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

use super::value::{FieldValue, Fields, Shape};

/// A record of one step: a struct the catalogue defines for each step ccfn
/// writes, whose fields are the step's, by name, each of its own type.
/// Its [`Fields`] are each field in the catalogue's order, an optional
/// one only when it is there.
pub(crate) trait Record: Fields {
    /// Its step.
    const STEP: &'static Step;

    /// Emits the record's `tracing` event at `level` (at `INFO` on the
    /// critical target when `critical`), carrying each field, for layers
    /// other than ccfn's.
    fn event(&self, level: tracing::Level, critical: bool, message: &str);
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

/// Whether `fields` holds `name`: for a step's constant.
const fn holds_name(fields: &[&str], name: &str) -> bool {
    let mut at = 0;
    while at < fields.len() {
        if fields[at].len() == name.len() {
            let (field, name) = (fields[at].as_bytes(), name.as_bytes());
            let mut byte = 0;
            while byte < name.len() && field[byte] == name[byte] {
                byte += 1;
            }
            if byte == name.len() {
                return true;
            }
        }
        at += 1;
    }
    false
}

/// One step of the catalogue.
pub struct Step {
    name: &'static str,
    levels: &'static [Level],
    fields: &'static [&'static str],
    /// Whether `call_sid` is among `fields`: its records' own call then
    /// takes the invocation's place.
    own_call_sid: bool,
    optional: &'static [&'static str],
    headline: &'static [&'static str],
    open: bool,
    summary: &'static str,
    /// Its records' step and their message's key, as a JSON line has
    /// them: `,"step":"…","message":`.
    json_member: &'static str,
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

/// A field's value as layers other than ccfn's see it on the record's
/// `tracing` event: a string as itself, anything else as JSON text,
/// scrubbed as the contract's lines are; written only if a layer records
/// it.
pub(crate) struct Shown<'a>(pub(crate) &'a dyn FieldValue);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::new();
        match self.0.shape() {
            Shape::Str(value) => text.push_str(value),
            _ => self.0.write_json(&mut text),
        }
        super::scope::scrub_for_current(&mut text);
        f.write_str(&text)
    }
}

impl Step {
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

    /// Whether its records carry a call of their own (`call_sid` among
    /// their fields), which takes the place of the invocation's.
    pub(crate) const fn own_call_sid(&self) -> bool {
        self.own_call_sid
    }

    /// Its records' step and their message's key, as a JSON line has
    /// them: `,"step":"…","message":` (a step's name is plain text).
    pub(crate) const fn json_member(&self) -> &'static str {
        self.json_member
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
        $ident:ident = $name:literal as $record:tt $(<$lt:lifetime>)?, [$($level:ident),+]
            { $($(#[$mark:ident])? $field:ident: $ty:ty),* }
            $(optional { $($(#[$optional_mark:ident])? $optional:ident: $oty:ty),* })?
            $(+ $open:ident)?;
    )+) => {
        $(
            $(#[doc = $doc])+
            pub(crate) const $ident: Step = Step {
                name: $name,
                levels: &[$(Level::$level),+],
                fields: &[$(stringify!($field)),*],
                own_call_sid: holds_name(&[$(stringify!($field)),*], "call_sid"),
                optional: &[$($(stringify!($optional)),*)?],
                headline: &[
                    $($(catalogue!(@headline $mark $field),)?)*
                    $($($(catalogue!(@headline $optional_mark $optional),)?)*)?
                ],
                open: catalogue!(@open $($open)?),
                summary: concat!($($doc),+),
                json_member: concat!(",\"step\":\"", $name, "\",\"message\":"),
            };

            catalogue!(@record $record [$($lt)?], $ident, $name, [$($field: $ty),*], [$($($optional: $oty),*)?]);
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
    (@record _ $($rest:tt)*) => {};
    (@record $record:ident [$($lt:lifetime)?], $ident:ident, $name:literal, [$($field:ident: $ty:ty),*], [$($optional:ident: $oty:ty),*]) => {
        #[doc = concat!("A `", $name, "` record: each field of [`", stringify!($ident), "`], by name.")]
        #[derive(Clone, Copy)]
        #[cfg_attr(not(all(feature = "clients", feature = "runtime", feature = "otel")), allow(dead_code))]
        pub(crate) struct $record $(<$lt>)? {
            $(pub(crate) $field: $ty,)*
            $(pub(crate) $optional: Option<$oty>,)*
        }

        impl $(<$lt>)? Fields for $record $(<$lt>)? {
            fn each(&self, f: &mut dyn FnMut(&str, &dyn FieldValue)) {
                $(f(stringify!($field), &self.$field);)*
                $(if let Some(value) = &self.$optional {
                    f(stringify!($optional), value);
                })*
            }

            // Its fields' names are Rust identifiers: nothing in them
            // needs escaping in JSON.
            fn write_json(&self, out: &mut String) {
                $(
                    out.push_str(concat!(",\"", stringify!($field), "\":"));
                    FieldValue::write_json(&self.$field, out);
                )*
                $(if let Some(value) = &self.$optional {
                    out.push_str(concat!(",\"", stringify!($optional), "\":"));
                    FieldValue::write_json(value, out);
                })*
            }
        }

        impl $(<$lt>)? Record for $record $(<$lt>)? {
            const STEP: &'static Step = &$ident;

            fn event(&self, level: tracing::Level, critical: bool, message: &str) {
                macro_rules! at {
                    ($target:literal, $at:expr) => {
                        tracing::event!(
                            target: $target,
                            $at,
                            step = $name,
                            $($field = tracing::field::display(Shown(&self.$field)),)*
                            $($optional = self.$optional.as_ref().map(|value| tracing::field::display(Shown(value))),)*
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
        }
    };
}

catalogue! {

    /// The invocation begins: the event as received and the domain.
    START = "start" as Start<'a>, [Info] { event: &'a dyn FieldValue, domain: Option<&'a str> };

    /// `ENABLE_LOCAL_LOGGING` is on: the event's and context's keys and
    /// memory use.
    VERBOSE = "verbose" as Verbose<'a>, [Info] { #[headline] event_keys: &'a [&'a str], #[headline] context_keys: &'a [&'a str], memory_bytes: Option<u64> };

    /// `DEBUG_MODE` is on or `mode=debug`: the function's name, version and
    /// environment.
    DEBUG = "debug" as DebugMode<'a>, [Info] { #[headline] function_name: &'a str, #[headline] function_version: Option<&'a str>, #[headline] execution_environment: &'a str };

    /// Before (`phase` `begin`) and after (`passed`) the required
    /// parameters and environment values are checked.
    VALIDATION = "validation" as Validation<'a>, [Info] { phase: &'a str, required: super::value::Declared } optional { env: super::value::Declared };

    /// A required parameter or environment value is missing.
    VALIDATION_ERROR = "validation_error" as ValidationError<'a>, [Warn] { parameter: &'a str, error: &'a str };

    /// A handler read a parameter or value past what its function
    /// declares (`source` `event` or `context`; `problem` `undeclared`,
    /// `looks_sensitive` or `secret`): once per function, name and problem
    /// in a server (in every invocation under the testkit), with the fix
    /// in the message and, for a name close to one the function may read,
    /// that name as `suggestion`.
    DECLARATION = "declaration" as Declaration<'a>, [Warn] { source: &'a str, #[headline] name: &'a str, #[headline] problem: &'a str } optional { suggestion: &'a str };

    /// The business logic starts, in this mode.
    PROCESSING = "processing" as Processing<'a>, [Info] { mode: &'a str };

    /// Who calls whom, on which call.
    CALLER = "caller" as Caller<'a>, [Info] { #[headline] from: Option<&'a str>, #[headline] to: Option<&'a str>, #[headline] call_sid: Option<&'a str> };

    /// The flow transition data a voice function received.
    FLOW = "flow" as Flow<'a>, [Info] { #[headline] flow_sid: Option<&'a str>, execution_sid: Option<&'a str>, step_sid: Option<&'a str>, absent: super::value::Declared };

    /// An external call is about to be sent.
    API_REQUEST = "api_request" as ApiRequest<'a>, [Info] { method: &'a str, url: &'a str, headers: &'a serde_json::Value, request_bytes: u64 };

    /// Every external call's authentication status: whether it carries
    /// credentials, their kind and expiry, never their value.
    AUTH = "auth" as Auth<'a>, [Info] { authenticated: bool, #[headline] token_type: &'a str, expires_at: Option<&'a str> };

    /// An external call's whole response.
    API_RESPONSE = "api_response" as ApiResponse<'a>, [Info, Warn] { #[headline] status: u16, ok: bool, content_type: Option<&'a str>, response_bytes: usize, data: &'a serde_json::Value, #[headline] elapsed_ms: f64 } optional { data_truncated: bool, data_cut_bytes: usize };

    /// An external call that got no whole response.
    API_ERROR = "api_error" as ApiError<'a>, [Error] { method: &'a str, url: &'a str, error: &'a str, #[headline] elapsed_ms: f64 } optional { max_response_bytes: u64, #[headline] status: u16 };

    /// The workflow a task is created in.
    WORKFLOW = "workflow" as Workflow<'a>, [Info] { workflow_sid: &'a str };

    /// The attributes of a task about to be created, members of a sensitive name `[REDACTED]` at any depth (as in `critical`).
    TASK_ATTRIBUTES = "task_attributes" as TaskAttributes<'a>, [Info] { #[headline] attributes: &'a serde_json::Value };

    /// A task was created: written whatever the log filter says.
    CRITICAL = "critical" as Critical<'a>, [Info] { task_sid: &'a str, queue_sid: Option<&'a str>, workflow_sid: &'a str, attributes: &'a serde_json::Value };

    /// A task could not be created, and why; the caller hears the
    /// fallback.
    TASK_ERROR = "task_error" as TaskError<'a>, [Error] { #[headline] cause: &'a str, workflow_sid: Option<&'a str>, caller_message: &'a str } optional { workspace_sid: &'a str };

    /// Tasks go to the local task store, for want of credentials.
    TASK_STORE = "task_store" as TaskStore<'a>, [Warn] { path: &'a str, missing: &'a [&'a str] };

    /// An email is about to be sent.
    EMAIL_REQUEST = "email_request" as EmailRequest<'a>, [Info] { url: &'a str, domain: &'a str, #[headline] recipients: &'a [String], #[headline] subject: &'a str };

    /// One attachment of an email.
    ATTACHMENT = "attachment" as Attachment<'a>, [Info] { filename: &'a str, size: u64, content_type: &'a str };

    /// An email was accepted.
    EMAIL_RESULT = "email_result" as EmailResult<'a>, [Info] { #[headline] id: &'a str, recipient_count: usize } optional { #[headline] path: &'a str };

    /// An email was not sent.
    EMAIL_ERROR = "email_error" as EmailError<'a>, [Error] { error: &'a str, #[headline] kind: &'a str, domain: &'a str } optional { #[headline] status: u16 };

    /// The voice document as first built and as returned.
    VOICE_RESPONSE = "voice_response" as VoiceResponse<'a>, [Info] { phase: &'a str, twiml: &'a super::value::SharedText<'a> } optional { #[headline] modified: bool };

    /// The task-routing configuration of a voice function.
    TASKROUTER_CONFIG = "taskrouter_config" as TaskrouterConfig<'a>, [Info] { workspace_sid: Option<&'a str>, #[headline] workflow_sid: Option<&'a str>, #[headline] queue: Option<&'a str> };

    /// Execution time and memory, before the end.
    METRICS = "metrics" as Metrics, [Info] { #[headline] execution_ms: super::value::Millis, #[headline] memory_bytes: Option<u64>, memory_limit_bytes: Option<u64> };

    /// A threshold was crossed.
    ALERT = "alert" as Alert<'a>, [Warn] { #[headline] kind: &'a str, value: &'a serde_json::Value, threshold: &'a serde_json::Value };

    /// The function succeeded, with this result.
    SUCCESS = "success" as Success<'a>, [Info] { #[headline] result: &'a dyn FieldValue };

    /// The `debug` lines the invocation held back follow (`reason` `error`,
    /// or `requested` by the handler): how many, and how many older ones
    /// were dropped to stay within the buffer.
    DEBUG_BUFFER = "debug_buffer" as DebugBuffer<'a>, [Info] { reason: &'a str, #[headline] lines: u64, #[headline] dropped: u64 };

    /// The function failed: the error with its stack, the event and the
    /// context.
    ERROR = "error" as Error<'a>, [Error] { #[headline] kind: &'a str, #[headline] error: &'a str, stack: &'a str, event: &'a dyn FieldValue, domain: Option<&'a str>, account_sid: Option<&'a str> };

    /// The invocation ends.
    END = "end" as End<'a>, [Info] { #[headline] outcome: &'a str, #[headline] execution_ms: super::value::Millis };

    /// A handler's own line, with its own fields.
    LOG = "log" as _, [Error, Warn, Info, Debug, Trace] {} + open;

    /// A request was answered without invoking the function.
    REQUEST_REJECTED = "request_rejected" as RequestRejected<'a>, [Warn, Error] { #[headline] status: u16, #[headline] method: &'a str, #[headline] path: &'a str, error: &'a str };

    /// OpenTelemetry export failed (`signal` `traces` or `metrics`), or
    /// spans were dropped for a full queue: at most one a minute per
    /// signal, with the counts since the last.
    TELEMETRY = "telemetry" as Telemetry<'a>, [Warn] { signal: &'a str, #[headline] error: &'a str, #[headline] failed: u64, #[headline] dropped: u64 };

    /// Log lines were dropped because the writer could not keep up.
    LOG_DROPPED = "log_dropped" as LogDropped, [Warn] { dropped: usize, total_dropped: usize };

    /// The runtime started, stopped, or could not do something.
    RUNTIME = "runtime" as Runtime<'a>, [Info, Warn] {} optional { addr: &'a str, functions: &'a [String] };
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

    /// A step's constant says whether `call_sid` is among its fields, as
    /// the list itself does.
    #[test]
    fn own_call_sid_is_known_from_the_fields() {
        for step in ALL {
            assert_eq!(
                step.own_call_sid(),
                step.fields().contains(&"call_sid"),
                "{}",
                step.name()
            );
        }
        assert!(CALLER.own_call_sid());
        assert!(!holds_name(&["call", "call_sidx", "all_sid"], "call_sid"));
    }

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

    fn names(record: &impl Record) -> Vec<String> {
        let mut names = Vec::new();
        record.each(&mut |name, _| names.push(name.to_owned()));
        names
    }

    #[test]
    fn a_record_has_its_step_fields_in_order_and_optional_ones_when_there() {
        let begin = Validation {
            phase: "begin",
            required: super::super::value::Declared::new(&[], &[]),
            env: Some(super::super::value::Declared::new(&["API_KEY"], &[])),
        };
        assert_eq!(names(&begin), ["phase", "required", "env"]);
        let passed = Validation { env: None, ..begin };
        assert_eq!(names(&passed), Validation::STEP.fields());
        let event = serde_json::Value::Null;
        let start = Start {
            event: &event,
            domain: None,
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
