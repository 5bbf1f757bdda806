//! `ccfn logs --invocations`: one line per invocation, built from its
//! records as they stream by and written when its `end` record arrives.

use std::collections::{HashMap, VecDeque};

use serde_json::{Map, Value};

/// Invocations held at once by default, at most: those whose `end` is not
/// read yet (`logs --invocations`, `package`), those judged (`diagnose`).
/// Past it the oldest is given up, and counted: an invocation cut off by
/// a crash never ends, and a log of them must not grow the command. A
/// function's concurrent invocations are far fewer (the platform's own
/// concurrency limits are in the hundreds), so a log that interleaves
/// more than this is one whose invocations did not end. Each is held in
/// at most a few KiB (see [`TEXT_MAX`], [`NAME_MAX`], [`STEPS_MAX`]):
/// a few tens of MiB in all.
pub(crate) const OPEN_MAX: usize = 4_096;

/// The longest text kept for a summary (an invocation's first error), in
/// bytes: longer is cut at a character boundary and marked with
/// [`cut`]'s marker. An error message that helps is a line or two; the
/// runtime cuts what it logs of an answer at 16 KiB, so 1 KiB keeps the
/// message and drops what is only payload.
pub(crate) const TEXT_MAX: usize = 1024;

/// The longest name kept (an invocation id, a function, a call, a time, a
/// step), in bytes: the platform's ids are 34 characters, ccfn's 36, its
/// steps a few words; longer is not one of them, cut as [`TEXT_MAX`].
pub(crate) const NAME_MAX: usize = 128;

/// Distinct steps kept per invocation, at most: the catalogue has fewer
/// (see `ccfn_core::record::ALL`); a log that names more is hostile.
pub(crate) const STEPS_MAX: usize = 64;

/// `text`, cut at `max` bytes (at a character boundary) with a marker that
/// says how long it was: `… (cut: 524288 bytes)`.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut at = max;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    format!("{}… (cut: {} bytes)", &text[..at], text.len())
}

/// One invocation, as far as its records were read.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Invocation {
    pub(crate) id: String,
    /// The `start` record's time, else the first record's.
    pub(crate) time: String,
    pub(crate) function: String,
    pub(crate) call_sid: Option<String>,
    /// `success` or `error`, from the `end` record.
    pub(crate) outcome: String,
    pub(crate) execution_ms: Option<f64>,
    /// What went wrong first: the `error` field (else the message) of the
    /// first ERROR or `validation_error` record.
    pub(crate) first_error: Option<String>,
    /// Whether a WARN record was written.
    pub(crate) warned: bool,
    /// The steps written, in order, without repeats.
    pub(crate) steps: Vec<String>,
}

impl Invocation {
    /// The summary as one JSON object.
    pub(crate) fn to_json(&self) -> Value {
        serde_json::json!({
            "time": self.time,
            "invocation_id": self.id,
            "function": self.function,
            "call_sid": self.call_sid,
            "outcome": self.outcome,
            "execution_ms": self.execution_ms,
            "first_error": self.first_error,
        })
    }

    /// The summary as one line of columns.
    pub(crate) fn to_line(&self) -> String {
        let duration = self
            .execution_ms
            .map_or_else(|| "-".to_owned(), |ms| format!("{ms:.1} ms"));
        format!(
            "{}  {:<20} {}  {:<34}  {:<7}  {:>10}  {}",
            self.time,
            self.function,
            self.id,
            self.call_sid.as_deref().unwrap_or("-"),
            self.outcome,
            duration,
            self.first_error.as_deref().unwrap_or("-")
        )
    }
}

/// The invocations being read, at most a bound of them open at once.
#[derive(Debug)]
pub(crate) struct Open {
    by_id: HashMap<String, Invocation>,
    order: VecDeque<String>,
    max: usize,
    /// Invocations given up before their `end`, the oldest first, for
    /// want of room.
    given_up: u64,
}

impl Default for Open {
    fn default() -> Open {
        Open::new(OPEN_MAX)
    }
}

impl Open {
    /// At most `max` invocations open at once.
    pub(crate) fn new(max: usize) -> Open {
        Open {
            by_id: HashMap::new(),
            order: VecDeque::new(),
            max: max.max(1),
            given_up: 0,
        }
    }

    /// How many invocations were given up before their `end`, for want of
    /// room (the oldest first).
    pub(crate) fn given_up(&self) -> u64 {
        self.given_up
    }

    /// How many are open now.
    pub(crate) fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Takes in one record; returns its invocation when it was the `end`.
    pub(crate) fn add(&mut self, record: &Map<String, Value>) -> Option<Invocation> {
        let text = |key: &str| record.get(key).and_then(Value::as_str);
        let name = |key: &str| text(key).map(|t| cut(t, NAME_MAX));
        let id = name("invocation_id")?;
        let id = id.as_str();
        let step = name("step").unwrap_or_default();
        let step = step.as_str();
        if !self.by_id.contains_key(id) {
            while self.by_id.len() >= self.max {
                let Some(oldest) = self.order.pop_front() else {
                    break;
                };
                if self.by_id.remove(&oldest).is_some() {
                    self.given_up += 1;
                }
            }
            self.order.push_back(id.to_owned());
            self.by_id.insert(
                id.to_owned(),
                Invocation {
                    id: id.to_owned(),
                    ..Invocation::default()
                },
            );
        }
        let invocation = self.by_id.get_mut(id)?;
        if invocation.time.is_empty() || step == "start" {
            invocation.time = name("timestamp").unwrap_or_default();
        }
        if let Some(function) = name("function") {
            invocation.function = function;
        }
        if let Some(call) = name("call_sid") {
            invocation.call_sid = Some(call);
        }
        let level = text("level");
        if invocation.first_error.is_none()
            && (level == Some("ERROR") || step == "validation_error")
        {
            let error = text("error").or_else(|| text("message"));
            invocation.first_error = error.map(|e| cut(e, TEXT_MAX));
        }
        if level == Some("WARN") {
            invocation.warned = true;
        }
        if invocation.steps.len() < STEPS_MAX && !invocation.steps.iter().any(|s| s == step) {
            invocation.steps.push(step.to_owned());
        }
        if step != "end" {
            return None;
        }
        invocation.outcome = name("outcome").unwrap_or_else(|| "unknown".to_owned());
        invocation.execution_ms = record.get("execution_ms").and_then(Value::as_f64);
        let ended = self.by_id.remove(id);
        if let Some(at) = self.order.iter().position(|open| open == id) {
            self.order.remove(at);
        }
        ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn an_invocation_is_summed_up_at_its_end() {
        let mut open = Open::default();
        let base = |step: &str, level: &str| serde_json::json!({"timestamp": format!("2026-11-21T21:01:1{}.000Z", step.len() % 10), "level": level, "function": "wait-experience", "invocation_id": "a1", "call_sid": "CA1", "step": step});
        assert!(open.add(&record(base("start", "INFO"))).is_none());
        let mut error = base("task_error", "ERROR");
        error["message"] = "Task routing failed: workflow not found".into();
        assert!(open.add(&record(error)).is_none());
        let mut second = base("error", "ERROR");
        second["error"] = "later".into();
        assert!(open.add(&record(second)).is_none());
        let mut end = base("end", "INFO");
        end["outcome"] = "error".into();
        end["execution_ms"] = 12.25.into();
        let done = open.add(&record(end)).unwrap();
        assert_eq!(done.time, "2026-11-21T21:01:15.000Z");
        assert_eq!(done.outcome, "error");
        assert_eq!(done.execution_ms, Some(12.25));
        assert_eq!(
            done.first_error.as_deref(),
            Some("Task routing failed: workflow not found")
        );
        assert_eq!(done.steps, ["start", "task_error", "error", "end"]);
        assert!(open.by_id.is_empty() && open.order.is_empty());
        // Records outside an invocation are not one.
        assert!(open
            .add(&record(serde_json::json!({"step": "runtime"})))
            .is_none());
    }

    #[test]
    fn invocations_that_never_end_do_not_grow_without_bound() {
        let mut open = Open::default();
        for n in 0..OPEN_MAX + 10 {
            open.add(&record(
                serde_json::json!({"invocation_id": n.to_string(), "step": "start"}),
            ));
        }
        assert_eq!(open.by_id.len(), OPEN_MAX);
        assert_eq!(open.order.len(), OPEN_MAX);
        assert!(!open.by_id.contains_key("0"));
        assert_eq!(open.given_up(), 10);
    }

    #[test]
    fn the_oldest_open_is_given_up_and_the_others_still_end() {
        let mut open = Open::new(2);
        let add = |open: &mut Open, id: &str, step: &str| {
            open.add(&record(
                serde_json::json!({"invocation_id": id, "step": step, "outcome": "success"}),
            ))
        };
        assert!(add(&mut open, "a", "start").is_none());
        assert!(add(&mut open, "b", "start").is_none());
        assert!(add(&mut open, "c", "start").is_none());
        assert_eq!((open.given_up(), open.len()), (1, 2));
        // `a` was given up; the others are summed up whole.
        assert_eq!(add(&mut open, "b", "end").unwrap().steps, ["start", "end"]);
        assert_eq!(add(&mut open, "c", "end").unwrap().steps, ["start", "end"]);
        assert_eq!((open.given_up(), open.len()), (1, 0));
    }

    #[test]
    fn long_texts_are_cut_with_a_marker_and_names_too() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("0123456789", 10), "0123456789");
        assert_eq!(cut("0123456789ab", 10), "0123456789… (cut: 12 bytes)");
        // At a character boundary.
        assert_eq!(cut("ééé", 3), "é… (cut: 6 bytes)");
        let mut open = Open::default();
        let error = "E".repeat(512 * 1024);
        let id = "i".repeat(4096);
        open.add(&record(
            serde_json::json!({"invocation_id": id, "step": "start", "function": "f".repeat(4096)}),
        ));
        open.add(&record(serde_json::json!({"invocation_id": id, "step": "error", "level": "ERROR", "error": error})));
        for n in 0..1000 {
            open.add(&record(
                serde_json::json!({"invocation_id": id, "step": format!("step {n}")}),
            ));
        }
        let done = open
            .add(&record(
                serde_json::json!({"invocation_id": id, "step": "end", "outcome": "error"}),
            ))
            .unwrap();
        let first_error = done.first_error.unwrap();
        assert!(first_error.starts_with(&"E".repeat(TEXT_MAX)));
        assert!(
            first_error.ends_with("… (cut: 524288 bytes)"),
            "{}",
            &first_error[TEXT_MAX..]
        );
        assert!(done.id.len() < NAME_MAX + 32 && done.function.len() < NAME_MAX + 32);
        assert_eq!(done.steps.len(), STEPS_MAX);
    }
}
