//! How a record becomes a `tracing` event: its step and fields are set
//! aside for the contract layer, and put on the event for any other.

use tracing::Level;

use super::catalogue::Step;
use super::fields::{RecordFields, Written};

/// Target of contract records.
pub(crate) const TARGET: &str = "ccfn";
/// Target of records written whatever the filter says.
pub(crate) const CRITICAL_TARGET: &str = "ccfn::critical";
/// Name of the span around each invocation.
pub(crate) const SPAN_NAME: &str = "ccfn.invocation";

/// The record being emitted: its step, message and written fields.
#[derive(Debug, Default)]
pub(super) struct Emitted {
    pub(super) step: &'static str,
    pub(super) message: String,
    pub(super) fields: Written,
}

impl Emitted {
    fn fill(&mut self, step: &'static Step, message: &str, fields: &(impl RecordFields + ?Sized)) {
        self.step = step.name();
        self.message.clear();
        self.message.push_str(message);
        self.fields.clear();
        fields.write_to(&mut self.fields);
    }
}

scoped_tls::scoped_thread_local!(static EMITTED: Emitted);

thread_local! {
    /// Where this thread writes the records it emits, kept between them.
    static BUFFER: std::cell::RefCell<Emitted> = std::cell::RefCell::default();
}

/// Writes the record's fields once, then emits its `tracing` event with the
/// record at hand for the contract layer.
fn emit_with(
    level: Level,
    critical: bool,
    step: &'static Step,
    message: &str,
    fields: &(impl RecordFields + ?Sized),
) {
    let dispatch = |emitted: &Emitted| {
        EMITTED.set(emitted, || {
            step.event(level, critical, &emitted.message, &emitted.fields);
        });
    };
    BUFFER.with(|buffer| {
        // A record emitted while another is being written (by a layer)
        // gets a buffer of its own.
        if let Ok(mut emitted) = buffer.try_borrow_mut() {
            emitted.fill(step, message, fields);
        } else {
            let mut own = Emitted::default();
            own.fill(step, message, fields);
            return dispatch(&own);
        }
        dispatch(&buffer.borrow());
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
pub(crate) fn emit(
    level: Level,
    step: &'static Step,
    message: &str,
    fields: &(impl RecordFields + ?Sized),
) {
    emit_with(level, false, step, message, fields);
}

/// Emits a record that is written whatever the log filter says: the
/// spec's critical events (the task creation result).
#[cfg_attr(not(feature = "clients"), allow(dead_code))]
pub(crate) fn emit_critical(
    step: &'static Step,
    message: &str,
    fields: &(impl RecordFields + ?Sized),
) {
    emit_with(Level::INFO, true, step, message, fields);
}

/// Whether this thread is emitting a contract record now.
pub(super) fn emitting() -> bool {
    EMITTED.is_set()
}

/// Calls `f` with the record this thread is emitting; only while
/// [`emitting`].
pub(super) fn with_emitted<R>(f: impl FnOnce(&Emitted) -> R) -> R {
    EMITTED.with(f)
}
