//! Debug lines kept until they matter: during an invocation whose function
//! holds them back (`debug_buffer_bytes = ..`, `CCFN_DEBUG_BUFFER_BYTES`),
//! the `debug` lines of the function's crate that the log filter leaves
//! out are kept in a buffer of a bounded size, oldest dropped first. When
//! the invocation fails (or the handler asks), a `debug_buffer` record
//! says how many follow and how many were dropped, and each is written
//! with the time it was logged at; otherwise they are forgotten.
//!
//! A line is held once, whatever the number of layers: the first
//! [`super::ContractLayer`] that sees it keeps it (`scope::hold`) and
//! stops it for all. It is written again (`emit::flush_debug_lines`) as
//! an event on [`BUFFERED_TARGET`], with the held line at hand for the
//! layers, which write it as it was.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError, RwLock};

use serde_json::Value;
use tracing::{Level, Metadata};

use super::fields::EventVisitor;

/// Target of the events that write held lines.
pub(crate) const BUFFERED_TARGET: &str = "ccfn::buffered";

/// One line held back.
pub(crate) struct Held {
    /// When it was logged, as written.
    pub(crate) timestamp: String,
    pub(crate) target: String,
    pub(crate) event: EventVisitor,
    /// What it counts for against the buffer's size.
    size: usize,
}

impl Held {
    pub(super) fn new(timestamp: &str, target: &str, event: EventVisitor) -> Held {
        let size = timestamp.len()
            + target.len()
            + event.message.len()
            + event
                .others
                .iter()
                .map(|(name, value)| name.len() + value_size(value))
                .sum::<usize>();
        Held {
            timestamp: timestamp.to_owned(),
            target: target.to_owned(),
            event,
            size,
        }
    }
}

/// About what `value` takes as JSON text.
fn value_size(value: &Value) -> usize {
    match value {
        Value::String(text) => text.len() + 2,
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 20,
        other => other.to_string().len(),
    }
}

/// An invocation's held lines.
pub(crate) struct DebugBuffer {
    limit: usize,
    /// The crate whose lines are held: the first segment of the
    /// function's module path.
    krate: &'static str,
    lines: Mutex<Lines>,
}

#[derive(Default)]
struct Lines {
    held: VecDeque<Held>,
    bytes: usize,
    dropped: u64,
}

impl std::fmt::Debug for DebugBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DebugBuffer")
            .field("limit", &self.limit)
            .field("krate", &self.krate)
            .finish_non_exhaustive()
    }
}

/// The crates some invocation has held lines of: their `debug` callsites
/// are asked about at each event, all others are settled once.
static CRATES: RwLock<Vec<&'static str>> = RwLock::new(Vec::new());
/// Whether [`CRATES`] has any: the callsites' fast way out.
static ANY: AtomicBool = AtomicBool::new(false);

impl DebugBuffer {
    /// A buffer of `limit` bytes for the `debug` lines of the crate of
    /// `module_path`; `None` for `0`.
    pub(crate) fn new(limit: u64, module_path: &'static str) -> Option<DebugBuffer> {
        if limit == 0 {
            return None;
        }
        let krate = module_path.split("::").next().unwrap_or(module_path);
        let known = CRATES
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&krate);
        if !known {
            CRATES
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .push(krate);
            ANY.store(true, Ordering::Release);
            // Callsites of this crate settled as never written must now be
            // asked at each event.
            tracing::callsite::rebuild_interest_cache();
        }
        Some(DebugBuffer {
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            krate,
            lines: Mutex::default(),
        })
    }

    /// Whether lines of `target` are this buffer's.
    pub(super) fn holds(&self, target: &str) -> bool {
        in_crate(target, self.krate)
    }

    /// Keeps `held`, dropping the oldest lines (or `held` itself, when it
    /// is larger than the whole buffer) to stay within the limit.
    pub(super) fn push(&self, held: Held) {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if held.size > self.limit {
            lines.dropped += 1;
            return;
        }
        while lines.bytes + held.size > self.limit {
            let Some(oldest) = lines.held.pop_front() else {
                break;
            };
            lines.bytes -= oldest.size;
            lines.dropped += 1;
        }
        lines.bytes += held.size;
        lines.held.push_back(held);
    }

    /// The held lines and the count of those dropped, leaving it empty.
    pub(super) fn take(&self) -> (VecDeque<Held>, u64) {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        let taken = std::mem::take(&mut *lines);
        (taken.held, taken.dropped)
    }
}

/// Whether `target` is `krate` or one of its modules.
fn in_crate(target: &str, krate: &str) -> bool {
    target
        .strip_prefix(krate)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
}

/// Whether an event of `metadata` may be held by some invocation: a
/// `debug` event of a crate one has held lines of.
pub(super) fn may_hold(metadata: &Metadata<'_>) -> bool {
    ANY.load(Ordering::Acquire)
        && metadata.is_event()
        && *metadata.level() == Level::DEBUG
        && CRATES
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|krate| in_crate(metadata.target(), krate))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(message: &str) -> Held {
        Held::new(
            "t",
            "c",
            EventVisitor {
                message: message.to_owned(),
                ..EventVisitor::default()
            },
        )
    }

    #[test]
    fn the_oldest_lines_go_first_and_are_counted() {
        // Each line counts 2 bytes (timestamp and target) plus its message.
        let buffer = DebugBuffer::new(20, "a_crate::module").unwrap();
        for message in ["one-----", "two-----", "three---"] {
            buffer.push(held(message));
        }
        let (lines, dropped) = buffer.take();
        let messages: Vec<_> = lines.iter().map(|h| h.event.message.as_str()).collect();
        assert_eq!(messages, ["two-----", "three---"]);
        assert_eq!(dropped, 1);
        let (lines, dropped) = buffer.take();
        assert!(lines.is_empty() && dropped == 0, "taking empties it");
    }

    #[test]
    fn a_line_larger_than_the_buffer_is_dropped_alone() {
        let buffer = DebugBuffer::new(12, "a_crate").unwrap();
        buffer.push(held("short"));
        buffer.push(held("much too long for it"));
        let (lines, dropped) = buffer.take();
        assert_eq!(lines.len(), 1);
        assert_eq!(dropped, 1);
    }

    #[test]
    fn a_crate_holds_its_modules_only() {
        let buffer = DebugBuffer::new(1, "my_functions::voice").unwrap();
        assert!(buffer.holds("my_functions"));
        assert!(buffer.holds("my_functions::crm"));
        assert!(!buffer.holds("my_functions_extra"));
        assert!(!buffer.holds("hyper::proto"));
        assert!(DebugBuffer::new(0, "my_functions").is_none());
    }
}
