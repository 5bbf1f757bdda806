//! The records of an invocation as events of its span.

use opentelemetry::trace::{Status, TraceContextExt as _};
use opentelemetry::{KeyValue, Value};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::Context as LayerContext;
use tracing_subscriber::Layer;

use crate::record::buffer::BUFFERED_TARGET;
use crate::record::emit;
use crate::record::fields::EventVisitor;
use crate::record::scope;
use crate::secret::{is_sensitive_name, REDACTED};

use super::scrub::current as scrubbed;

/// Adds every record written inside an invocation to its span, as an event
/// named after its step, with its level, message and fields as
/// attributes, scrubbed as the lines are; and sets the span's outcome and
/// error status from the `end` and `error` records.
#[derive(Debug, Default)]
pub(crate) struct OtelLayer;

impl<S: Subscriber> Layer<S> for OtelLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: LayerContext<'_, S>) {
        if !scope::in_invocation() {
            return;
        }
        let Some(cx) = scope::with_current(|it| it.observed::<opentelemetry::Context>()) else {
            return;
        };
        let span = cx.span();
        if !span.is_recording() {
            return;
        }
        let meta = event.metadata();
        let mut attributes = vec![KeyValue::new("level", meta.level().as_str())];
        let step = if meta.target().starts_with(emit::TARGET) && emit::emitting() {
            emit::with_emitted(|emitted| {
                attributes.push(KeyValue::new("message", scrubbed(&emitted.message)));
                for (name, json) in emitted.fields.iter() {
                    if let Some(value) = typed(json) {
                        attributes.push(KeyValue::new(name, value));
                    }
                }
                emitted.step
            })
        } else if meta.target() == BUFFERED_TARGET {
            let replayed = emit::with_replayed(|held| {
                handler_fields(&held.event, &held.target, &mut attributes);
            });
            if replayed.is_none() {
                return;
            }
            "log"
        } else {
            let mut visitor = EventVisitor::default();
            event.record(&mut visitor);
            handler_fields(&visitor, meta.target(), &mut attributes);
            "log"
        };
        match step {
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
        span.add_event(step, attributes);
    }
}

/// The string value of attribute `key`, if there is one.
fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.as_str().into_owned())
}

/// A handler's line: its message, target, and fields (a sensitive name's
/// value redacted).
fn handler_fields(event: &EventVisitor, target: &str, attributes: &mut Vec<KeyValue>) {
    attributes.push(KeyValue::new("message", scrubbed(&event.message)));
    attributes.push(KeyValue::new("target", target.to_owned()));
    if let Some(step) = &event.step {
        attributes.push(KeyValue::new("user_step", scrubbed(step)));
    }
    for (name, value) in &event.others {
        let value = if is_sensitive_name(name) {
            Value::from(REDACTED)
        } else {
            match value {
                serde_json::Value::String(text) => Value::from(scrubbed(text)),
                serde_json::Value::Bool(b) => Value::from(*b),
                serde_json::Value::Number(n) if scrubbed(&n.to_string()) != n.to_string() => {
                    Value::from(scrubbed(&n.to_string()))
                }
                serde_json::Value::Number(n) => match n.as_i64() {
                    Some(i) => Value::from(i),
                    None => Value::from(n.as_f64().unwrap_or(f64::NAN)),
                },
                other => Value::from(scrubbed(&other.to_string())),
            }
        };
        attributes.push(KeyValue::new(name.clone(), value));
    }
}

/// A record field's JSON text as an attribute value: strings as text,
/// numbers and booleans as themselves, arrays and objects as their JSON;
/// `None` for `null`.
fn typed(json: &str) -> Option<Value> {
    Some(match json {
        "null" => return None,
        "true" => Value::from(true),
        "false" => Value::from(false),
        _ if json.starts_with('"') => Value::from(scrubbed(
            &serde_json::from_str::<String>(json).unwrap_or_default(),
        )),
        _ if json.starts_with(['[', '{']) => Value::from(scrubbed(json)),
        // A number that is a secret's value is written as the line
        // writes it: `[REDACTED]`.
        _ if scrubbed(json) != json => Value::from(scrubbed(json)),
        _ => match json.parse::<i64>() {
            Ok(i) => Value::from(i),
            Err(_) => match json.parse::<f64>() {
                Ok(f) => Value::from(f),
                Err(_) => Value::from(scrubbed(json)),
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_keep_their_json_type() {
        assert_eq!(typed("null"), None);
        assert_eq!(typed("true"), Some(Value::from(true)));
        assert_eq!(typed("503"), Some(Value::from(503_i64)));
        assert_eq!(typed("0.25"), Some(Value::from(0.25)));
        assert_eq!(typed("\"a\\nb\""), Some(Value::from("a\nb".to_owned())));
        assert_eq!(
            typed("{\"a\":1}"),
            Some(Value::from("{\"a\":1}".to_owned()))
        );
    }
}
