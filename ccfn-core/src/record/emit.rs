//! How a record becomes a `tracing` event: its step and fields are set
//! aside for the contract layer, and put on the event for any other.

use serde_json::Value;
use tracing::Level;

use super::catalogue::Step;

/// The fields of one record, in order.
pub(crate) type Fields = Vec<(&'static str, Value)>;

/// Target of contract records.
pub(crate) const TARGET: &str = "ccfn";
/// Target of records written whatever the filter says.
pub(crate) const CRITICAL_TARGET: &str = "ccfn::critical";
/// Name of the span around each invocation.
pub(crate) const SPAN_NAME: &str = "ccfn.invocation";

scoped_tls::scoped_thread_local!(static FIELDS: Fields);

thread_local! {
    /// The step and message of the record being emitted on this thread,
    /// so that the layer need not visit the event for them.
    static TEXT: std::cell::RefCell<(String, String)> = const {
        std::cell::RefCell::new((String::new(), String::new()))
    };
}

fn set_text(step: &str, message: &str) {
    TEXT.with(|text| {
        let mut text = text.borrow_mut();
        text.0.clear();
        text.0.push_str(step);
        text.1.clear();
        text.1.push_str(message);
    });
}

/// Whether a contract record at `level` would be written by the
/// subscriber in place: when not, its fields need not be built.
pub(crate) fn enabled(level: Level) -> bool {
    match level {
        Level::ERROR => tracing::enabled!(target: "ccfn", Level::ERROR),
        Level::WARN => tracing::enabled!(target: "ccfn", Level::WARN),
        Level::INFO => tracing::enabled!(target: "ccfn", Level::INFO),
        Level::DEBUG => tracing::enabled!(target: "ccfn", Level::DEBUG),
        _ => tracing::enabled!(target: "ccfn", Level::TRACE),
    }
}

/// Emits one contract record of `step`, whose fields are `fields`.
pub(crate) fn emit(level: Level, step: &'static Step, message: &str, fields: &Fields) {
    set_text(step.name(), message);
    FIELDS.set(fields, || step.event(level, false, message, fields));
}

/// Emits a record that is written whatever the log filter says: the
/// spec's critical events (the task creation result).
#[cfg_attr(not(feature = "clients"), allow(dead_code))]
pub(crate) fn emit_critical(step: &'static Step, message: &str, fields: &Fields) {
    set_text(step.name(), message);
    FIELDS.set(fields, || step.event(Level::INFO, true, message, fields));
}

/// Whether this thread is emitting a contract record now.
pub(super) fn emitting() -> bool {
    FIELDS.is_set()
}

/// Calls `f` with the step, message and fields of the record this thread
/// is emitting; only while [`emitting`].
pub(super) fn with_emitted<R>(f: impl FnOnce(&str, &str, &Fields) -> R) -> R {
    TEXT.with(|text| {
        let text = text.borrow();
        FIELDS.with(|fields| f(&text.0, &text.1, fields))
    })
}
