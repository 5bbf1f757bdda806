//! How a record is emitted: handed, typed, to the contract layer, and put
//! on a `tracing` event for any other layer.

use std::cell::RefCell;

use tracing::Level;

use super::catalogue::{DebugBuffer, Record};
use super::scope;

/// The largest message buffer a thread keeps for its next message.
const MESSAGE_KEPT_BYTES: usize = 4 * 1024;

thread_local! {
    /// The buffer this thread joins a message given in parts in, kept
    /// between records.
    static MESSAGE: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Calls `f` with `parts` joined, in a buffer the thread keeps: a
/// message made of its fixed text and a value or two
/// (`=== FUNCTION START: {name} ===`) costs no allocation, and every sink
/// reads the same text.
pub(crate) fn with_joined<T>(parts: &[&str], f: impl FnOnce(&str) -> T) -> T {
    MESSAGE.with(|buffer| match buffer.try_borrow_mut() {
        Ok(mut buffer) => {
            buffer.clear();
            for part in parts {
                buffer.push_str(part);
            }
            let result = f(&buffer);
            if buffer.capacity() > MESSAGE_KEPT_BYTES {
                *buffer = String::new();
            }
            result
        }
        // A record emitted while this thread emits another.
        Err(_) => f(&parts.concat()),
    })
}

pub(crate) use super::entry::Message;

/// Hands the record to the contract layer and, for any other layer, emits
/// its `tracing` event.
fn emit_with<R: Record>(level: Level, critical: bool, message: Message<'_>, record: &R) {
    debug_assert!(
        critical || R::STEP.levels().iter().any(|l| l.to_tracing() == level),
        "`{}` is not written at {level}",
        R::STEP.name()
    );
    super::layer::dispatch(level, critical, message, record);
}

/// [`emit`] with a fixed message (see [`Message::fixed`]): its JSON
/// lines copy it, unscanned.
pub(crate) fn emit_fixed<R: Record>(message: Message<'static>, record: &R) {
    emit_with(R::STEP.levels()[0].to_tracing(), false, message, record);
}

/// Whether a contract record at `level` would be written by the
/// subscriber in place: when not, its fields need not be built.
pub(crate) fn enabled(level: Level) -> bool {
    super::layer::enabled(level)
}

/// Emits `record` at its step's first level (the only one of most
/// steps).
pub(crate) fn emit<R: Record>(message: &str, record: &R) {
    emit_with(
        R::STEP.levels()[0].to_tracing(),
        false,
        message.into(),
        record,
    );
}

/// Emits `record` at its step's first level, with the message `parts`
/// joined (see [`with_joined`]).
pub(crate) fn emit_parts<R: Record>(parts: &[&str], record: &R) {
    with_joined(parts, |message| emit(message, record));
}

/// Emits `record` at `level`, one of its step's levels.
#[cfg_attr(not(any(feature = "clients", feature = "runtime")), allow(dead_code))]
pub(crate) fn emit_at<R: Record>(level: Level, message: &str, record: &R) {
    emit_with(level, false, message.into(), record);
}

/// Emits a record that is written whatever the log filter says: the
/// spec's critical events (the task creation result).
#[cfg_attr(not(feature = "clients"), allow(dead_code))]
pub(crate) fn emit_critical<R: Record>(message: &str, record: &R) {
    emit_with(Level::INFO, true, message.into(), record);
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
            reason,
            lines,
            dropped,
        },
    );
    for line in &held {
        super::layer::dispatch_held(line);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;
    use crate::record::catalogue::{Step, START};
    use crate::record::value::{FieldValue, Fields};
    use crate::record::{ContractLayer, LogFormat};

    /// A `start` record that counts how often its fields are read.
    struct Counted<'a>(&'a Cell<usize>);

    impl Fields for Counted<'_> {
        fn each(&self, _: &mut dyn FnMut(&str, &dyn FieldValue)) {
            self.0.set(self.0.get() + 1);
        }
    }

    impl Record for Counted<'_> {
        const STEP: &'static Step = &START;

        fn event(&self, _: Level, _: bool, _: &str) {}
    }

    #[test]
    fn parts_are_joined_in_the_thread_s_buffer_and_apart_when_it_is_in_use() {
        with_joined(&["a ", "b", " c"], |outer| {
            assert_eq!(outer, "a b c");
            // A record emitted while another is: joined on its own.
            with_joined(&["d", "e"], |inner| assert_eq!(inner, "de"));
            assert_eq!(outer, "a b c");
        });
        with_joined(&[], |empty| assert_eq!(empty, ""));
        let long = "x".repeat(MESSAGE_KEPT_BYTES + 1);
        with_joined(&[&long, "y"], |joined| {
            assert_eq!(joined.len(), long.len() + 1)
        });
        MESSAGE.with(|buffer| assert_eq!(buffer.borrow().capacity(), 0, "not kept"));
        with_joined(&["kept"], |_| ());
        MESSAGE.with(|buffer| assert!(buffer.borrow().capacity() >= 4));
    }

    #[test]
    fn a_record_no_subscriber_writes_is_not_written_out() {
        let written = Cell::new(0);
        let warn = tracing_subscriber::filter::Targets::new().with_target("ccfn", Level::WARN);
        let warn_only = tracing_subscriber::registry()
            .with(ContractLayer::new(LogFormat::Json, std::io::sink).with_filter(warn));
        tracing::subscriber::with_default(warn_only, || {
            emit("filtered out", &Counted(&written));
            assert_eq!(written.get(), 0, "INFO under a WARN filter");
            emit_critical("critical", &Counted(&written));
            assert_eq!(written.get(), 1, "critical records are always written");
        });
        let info = tracing_subscriber::filter::Targets::new().with_target("ccfn", Level::INFO);
        let info = tracing_subscriber::registry()
            .with(ContractLayer::new(LogFormat::Json, std::io::sink).with_filter(info));
        tracing::subscriber::with_default(info, || {
            emit("kept", &Counted(&written));
        });
        assert_eq!(written.get(), 2);
    }
}
