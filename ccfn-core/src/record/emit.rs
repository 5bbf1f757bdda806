//! How a record becomes a `tracing` event: its step and fields are set
//! aside for the contract layer, and put on the event for any other.

use tracing::Level;

use super::buffer::Held;
use super::catalogue::{DebugBuffer, Record, Step};
use super::fields::{Field, Written};
use super::scope;

/// Target of contract records.
pub(crate) const TARGET: &str = "ccfn";
/// Target of records written whatever the filter says.
pub(crate) const CRITICAL_TARGET: &str = "ccfn::critical";
/// Name of the span around each invocation.
pub(crate) const SPAN_NAME: &str = "ccfn.invocation";

/// The record being emitted: its step, message and written fields.
#[derive(Debug, Default)]
pub(crate) struct Emitted {
    pub(crate) step: &'static str,
    pub(crate) message: String,
    pub(crate) fields: Written,
}

impl Emitted {
    fn fill<R: Record>(&mut self, message: &str, record: &R) {
        self.step = R::STEP.name();
        self.message.clear();
        self.message.push_str(message);
        self.fields.clear();
        record.write_to(&mut self.fields);
    }
}

scoped_tls::scoped_thread_local!(static EMITTED: Emitted);

thread_local! {
    /// Where this thread writes the records it emits, kept between them.
    static BUFFER: std::cell::RefCell<Emitted> = std::cell::RefCell::default();
}

/// Writes the record's fields once, then emits its `tracing` event with the
/// record at hand for the contract layer.
fn emit_with<R: Record>(level: Level, critical: bool, message: &str, record: &R) {
    let step: &'static Step = R::STEP;
    debug_assert!(
        critical || step.levels().iter().any(|l| l.to_tracing() == level),
        "`{}` is not written at {level}",
        step.name()
    );
    // A record no subscriber would write is not written out at all;
    // critical ones are written whatever the filter says.
    if !critical && !enabled(level) {
        return;
    }
    let dispatch = |emitted: &Emitted| {
        EMITTED.set(emitted, || {
            step.event(level, critical, &emitted.message, &emitted.fields);
        });
    };
    BUFFER.with(|buffer| {
        // A record emitted while another is being written (by a layer)
        // gets a buffer of its own.
        if let Ok(mut emitted) = buffer.try_borrow_mut() {
            emitted.fill(message, record);
        } else {
            let mut own = Emitted::default();
            own.fill(message, record);
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

/// Emits `record` at its step's first level (the only one of most
/// steps).
pub(crate) fn emit<R: Record>(message: &str, record: &R) {
    emit_with(R::STEP.levels()[0].to_tracing(), false, message, record);
}

/// Emits `record` at `level`, one of its step's levels.
#[cfg_attr(not(any(feature = "clients", feature = "runtime")), allow(dead_code))]
pub(crate) fn emit_at<R: Record>(level: Level, message: &str, record: &R) {
    emit_with(level, false, message, record);
}

/// Emits a record that is written whatever the log filter says: the
/// spec's critical events (the task creation result).
#[cfg_attr(not(feature = "clients"), allow(dead_code))]
pub(crate) fn emit_critical<R: Record>(message: &str, record: &R) {
    emit_with(Level::INFO, true, message, record);
}

/// Whether this thread is emitting a contract record now.
pub(crate) fn emitting() -> bool {
    EMITTED.is_set()
}

/// Calls `f` with the record this thread is emitting; only while
/// [`emitting`].
pub(crate) fn with_emitted<R>(f: impl FnOnce(&Emitted) -> R) -> R {
    EMITTED.with(f)
}

scoped_tls::scoped_thread_local!(static REPLAYED: Held);

/// Calls `f` with the held line being written again, if this thread is
/// writing one.
pub(crate) fn with_replayed<R>(f: impl FnOnce(&Held) -> R) -> Option<R> {
    REPLAYED.is_set().then(|| REPLAYED.with(f))
}

/// Writes the `debug` lines the invocation this thread polls has held back
/// (see [`super::buffer`]), after a `debug_buffer` record giving `reason`
/// (`error` or `requested`) and the counts; nothing when it holds none
/// and dropped none.
pub(crate) fn flush_debug_lines(reason: &str) {
    let Some((held, dropped)) = scope::take_held() else {
        return;
    };
    if held.is_empty() && dropped == 0 {
        return;
    }
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let lines = held.len() as u64;
    let mut message = format!(
        "{lines} debug line{} held back until {}",
        plural(lines),
        if reason == "error" {
            "this error"
        } else {
            "the handler asked"
        },
    );
    if dropped > 0 {
        message.push_str(&format!(
            "; {dropped} older one{} dropped to stay within the buffer",
            plural(dropped)
        ));
    }
    emit(
        &message,
        &DebugBuffer {
            reason: Field::from(reason),
            lines: Field::from(lines),
            dropped: Field::from(dropped),
        },
    );
    for line in &held {
        REPLAYED.set(line, || {
            tracing::event!(target: "ccfn::buffered", Level::DEBUG, "{}", line.event.message);
        });
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;
    use crate::record::catalogue::START;

    /// A `start` record that counts how often its fields are written.
    struct Counted<'a>(&'a Cell<usize>);

    impl Record for Counted<'_> {
        const STEP: &'static Step = &START;

        fn write_to(&self, _: &mut Written) {
            self.0.set(self.0.get() + 1);
        }
    }

    #[test]
    fn a_record_no_subscriber_writes_is_not_written_out() {
        let written = Cell::new(0);
        let warn_only = tracing_subscriber::registry()
            .with(tracing_subscriber::filter::Targets::new().with_target("ccfn", Level::WARN));
        tracing::subscriber::with_default(warn_only, || {
            emit("filtered out", &Counted(&written));
            assert_eq!(written.get(), 0, "INFO under a WARN filter");
            emit_critical("critical", &Counted(&written));
            assert_eq!(written.get(), 1, "critical records are always written");
        });
        let info = tracing_subscriber::registry()
            .with(tracing_subscriber::filter::Targets::new().with_target("ccfn", Level::INFO));
        tracing::subscriber::with_default(info, || {
            emit("kept", &Counted(&written));
        });
        assert_eq!(written.get(), 2);
    }
}
