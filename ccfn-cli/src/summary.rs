//! `ccfn logs --invocations`: one line per invocation, built from its
//! records as they stream by and written when its `end` record arrives.

use std::collections::{HashMap, VecDeque};

use serde_json::{Map, Value};

/// Invocations whose `end` has not been read yet, at most: past this, the
/// oldest are forgotten (an invocation cut off by a crash never ends).
const OPEN_MAX: usize = 65_536;

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

/// The invocations being read.
#[derive(Debug, Default)]
pub(crate) struct Open {
    by_id: HashMap<String, Invocation>,
    order: VecDeque<String>,
}

impl Open {
    /// Takes in one record; returns its invocation when it was the `end`.
    pub(crate) fn add(&mut self, record: &Map<String, Value>) -> Option<Invocation> {
        let text = |key: &str| record.get(key).and_then(Value::as_str);
        let id = text("invocation_id")?;
        let step = text("step").unwrap_or_default();
        if !self.by_id.contains_key(id) {
            if self.by_id.len() == OPEN_MAX {
                if let Some(oldest) = self.order.pop_front() {
                    self.by_id.remove(&oldest);
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
            invocation.time = text("timestamp").unwrap_or_default().to_owned();
        }
        if let Some(function) = text("function") {
            invocation.function = function.to_owned();
        }
        if let Some(call) = text("call_sid") {
            invocation.call_sid = Some(call.to_owned());
        }
        let level = text("level");
        if invocation.first_error.is_none()
            && (level == Some("ERROR") || step == "validation_error")
        {
            let error = text("error").or_else(|| text("message"));
            invocation.first_error = error.map(str::to_owned);
        }
        if level == Some("WARN") {
            invocation.warned = true;
        }
        if invocation.steps.last().map(String::as_str) != Some(step) {
            invocation.steps.push(step.to_owned());
        }
        if step != "end" {
            return None;
        }
        invocation.outcome = text("outcome").unwrap_or("unknown").to_owned();
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
        assert!(!open.by_id.contains_key("0"));
    }
}
