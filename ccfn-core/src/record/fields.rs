//! A handler's own `tracing` event, read into the fields of its record.

use std::fmt::Write as _;

use serde_json::Value;
use tracing::field::{Field as TracingField, Visit};

/// Collects `step` and `message` of a contract record, or every field of a
/// handler's own event.
#[derive(Default)]
pub(crate) struct EventVisitor {
    pub(crate) step: Option<String>,
    pub(crate) message: String,
    pub(crate) others: Vec<(String, Value)>,
}

impl Visit for EventVisitor {
    fn record_str(&mut self, field: &TracingField, value: &str) {
        match field.name() {
            "step" => self.step = Some(value.to_owned()),
            "message" => self.message = value.to_owned(),
            name => self.others.push((name.to_owned(), Value::from(value))),
        }
    }

    fn record_debug(&mut self, field: &TracingField, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.message.clear();
            let _ = write!(self.message, "{value:?}");
        } else {
            self.record_str(field, &format!("{value:?}"));
        }
    }

    fn record_i64(&mut self, field: &TracingField, value: i64) {
        self.others
            .push((field.name().to_owned(), Value::from(value)));
    }

    fn record_u64(&mut self, field: &TracingField, value: u64) {
        self.others
            .push((field.name().to_owned(), Value::from(value)));
    }

    fn record_f64(&mut self, field: &TracingField, value: f64) {
        self.others
            .push((field.name().to_owned(), Value::from(value)));
    }

    fn record_bool(&mut self, field: &TracingField, value: bool) {
        self.others
            .push((field.name().to_owned(), Value::from(value)));
    }
}
