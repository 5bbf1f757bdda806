//! Trace ids from call SIDs: a call SID is `CA` and 32 hexadecimal digits,
//! exactly a 128-bit trace id.

use std::cell::Cell;

use opentelemetry::trace::{SpanId, TraceId};
use opentelemetry_sdk::trace::{IdGenerator, RandomIdGenerator};

/// The trace id of call `call_sid`; `None` when it is not a call SID.
pub(super) fn from_call_sid(call_sid: &str) -> Option<TraceId> {
    let hex = call_sid.strip_prefix("CA")?;
    if hex.len() != 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let id = u128::from_str_radix(hex, 16).ok()?;
    // All zeros is not a valid trace id.
    (id != 0).then(|| TraceId::from(id))
}

thread_local! {
    /// The trace id the next root span on this thread takes.
    static NEXT: Cell<Option<TraceId>> = const { Cell::new(None) };
}

/// Calls `f` with root spans started on this thread taking `trace_id`.
pub(super) fn with_trace_id<R>(trace_id: TraceId, f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            NEXT.with(|next| next.set(None));
        }
    }
    NEXT.with(|next| next.set(Some(trace_id)));
    let _reset = Reset;
    f()
}

/// Random ids, except for a root span started in [`with_trace_id`].
#[derive(Debug, Default)]
pub(super) struct CallIdGenerator {
    random: RandomIdGenerator,
}

impl IdGenerator for CallIdGenerator {
    fn new_trace_id(&self) -> TraceId {
        NEXT.with(Cell::take)
            .unwrap_or_else(|| self.random.new_trace_id())
    }

    fn new_span_id(&self) -> SpanId {
        self.random.new_span_id()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_sid_is_a_trace_id() {
        let id = from_call_sid("CA0123456789abcdef0123456789ABCDEF").unwrap();
        assert_eq!(id.to_string(), "0123456789abcdef0123456789abcdef");
        for not_one in [
            "CA0123",
            "CAzz23456789abcdef0123456789abcdef",
            "CX0123456789abcdef0123456789abcdef",
            "CA00000000000000000000000000000000",
            "CA0123456789abcdef0123456789abcdef0",
        ] {
            assert!(from_call_sid(not_one).is_none(), "{not_one}");
        }
    }

    #[test]
    fn only_the_next_root_span_takes_it() {
        let ids = CallIdGenerator::default();
        let call = from_call_sid("CA0123456789abcdef0123456789abcdef").unwrap();
        let taken = with_trace_id(call, || ids.new_trace_id());
        assert_eq!(taken, call);
        assert_ne!(ids.new_trace_id(), call);
        with_trace_id(call, || ());
        assert_ne!(ids.new_trace_id(), call, "reset when unused");
    }
}
