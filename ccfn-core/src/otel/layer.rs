//! The records of an invocation as events of its span.

use opentelemetry::trace::{Status, TraceContextExt as _};
use opentelemetry::{KeyValue, Value};

use crate::record::entry::Entry;
use crate::record::layer::Lines;
use crate::record::value::{FieldValue, Shape};

use super::scrub::current as scrubbed;

/// Adds every record written inside an invocation to its span, as an event
/// named after its step, with its level, message and fields as
/// attributes, scrubbed as the lines are; and sets the span's outcome and
/// error status from the `end` and `error` records.
#[derive(Debug, Default)]
pub(crate) struct OtelSink;

impl crate::record::layer::Sink for OtelSink {
    fn take(&self, entry: &Entry<'_>, _lines: &mut Lines) {
        let Some(invocation) = entry.identity.invocation else {
            return;
        };
        let Some(cx) = invocation.observed::<opentelemetry::Context>() else {
            return;
        };
        let span = cx.span();
        if !span.is_recording() {
            return;
        }
        let mut attributes = vec![
            KeyValue::new("level", entry.level.to_owned()),
            KeyValue::new("message", scrubbed(entry.message)),
        ];
        entry.fields.each(&mut |name, value| {
            if let Some(value) = typed(value) {
                attributes.push(KeyValue::new(name.to_owned(), value));
            }
        });
        match entry.step {
            "end" => {
                if let Some(outcome) = attribute(&attributes, "outcome") {
                    span.set_attribute(KeyValue::new("ccfn.outcome", outcome));
                }
            }
            "error" => {
                if let Some(kind) = attribute(&attributes, "kind") {
                    span.set_attribute(KeyValue::new("error.type", kind));
                }
                let message = attribute(&attributes, "error").unwrap_or_default();
                span.set_status(Status::error(message));
            }
            _ => {}
        }
        span.add_event(entry.step.to_owned(), attributes);
    }
}

/// The string value of attribute `key`, if there is one.
fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.as_str().into_owned())
}

/// A field's value as an attribute value: text as itself, numbers and
/// booleans as themselves, arrays and objects as their JSON, each
/// scrubbed as the line is (a number that is a secret's value becomes
/// `[REDACTED]`); `None` for `null`.
fn typed(value: &dyn FieldValue) -> Option<Value> {
    let json = |value: &dyn FieldValue| {
        let mut json = String::new();
        value.write_json(&mut json);
        json
    };
    Some(match value.shape() {
        Shape::Null => return None,
        Shape::Bool(b) => Value::from(b),
        Shape::Str(text) => Value::from(scrubbed(text)),
        Shape::Composite => Value::from(scrubbed(&json(value))),
        Shape::U64(_) | Shape::I64(_) | Shape::F64(_) => {
            let text = json(value);
            let shown = scrubbed(&text);
            if shown != text {
                Value::from(shown)
            } else {
                match value.shape() {
                    Shape::U64(n) => i64::try_from(n).map_or(Value::from(n as f64), Value::from),
                    Shape::I64(n) => Value::from(n),
                    Shape::F64(n) if n.is_finite() => Value::from(n),
                    _ => return None,
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_keep_their_type() {
        assert_eq!(typed(&None::<&str>), None);
        assert_eq!(typed(&true), Some(Value::from(true)));
        assert_eq!(typed(&503_u16), Some(Value::from(503_i64)));
        assert_eq!(typed(&-2_i64), Some(Value::from(-2_i64)));
        assert_eq!(typed(&0.25), Some(Value::from(0.25)));
        assert_eq!(typed(&"a\nb"), Some(Value::from("a\nb".to_owned())));
        assert_eq!(
            typed(&json!({"a": 1})),
            Some(Value::from("{\"a\":1}".to_owned()))
        );
    }
}
