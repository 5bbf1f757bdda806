//! The records of an invocation as events of its span.
//!
//! Per record, the texts are checked for anything to scrub once, all
//! together, one a line: what the scrubber changes in one text it
//! changes in the lines (a URL ends at a line's end, and starts after
//! it; a secret in one text is in them all), so when it changes nothing
//! there, each text is taken as it is; else each is scrubbed on its own,
//! as it always is. Field names and steps of the catalogue are the
//! catalogue's own `'static` texts, not copies.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::sync::LazyLock;

use opentelemetry::trace::{Status, TraceContextExt as _};
use opentelemetry::{Key, KeyValue, Value};

use crate::record::entry::Entry;
use crate::record::layer::Lines;
use crate::record::value::Shape;

use super::scrub::{shown, with_current_secrets};

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
        let attributes = SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut scratch) => attributes(entry, &mut scratch),
            // A record written while this thread adds another.
            Err(_) => attributes(entry, &mut Scratch::default()),
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
        span.add_event(name(entry.step), attributes);
    }
}

/// The event attributes of `entry`, a record written outside any
/// invocation's span (a refused request's): made as those of the
/// invocations' records are.
pub(super) fn record_attributes(entry: &Entry<'_>) -> Vec<KeyValue> {
    SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => attributes(entry, &mut scratch),
        Err(_) => attributes(entry, &mut Scratch::default()),
    })
}

/// What a record's attributes are made from: every text of it (its
/// message first) one after the other, and each field's name, what it is
/// and where its text is.
#[derive(Default)]
struct Scratch {
    text: String,
    fields: Vec<(Key, Kind, usize, usize)>,
}

/// What a field is; its text (its JSON, for all but `Str`) is in
/// [`Scratch::text`].
#[derive(Clone, Copy)]
enum Kind {
    Bool(bool),
    Str,
    Composite,
    U64(u64),
    I64(i64),
    F64(f64),
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// The event attributes of `entry`: its level, message and fields, each
/// scrubbed with the process's secrets and those of the invocation this
/// thread polls.
fn attributes(entry: &Entry<'_>, scratch: &mut Scratch) -> Vec<KeyValue> {
    let Scratch { text, fields } = scratch;
    text.clear();
    fields.clear();
    text.push_str(entry.message);
    let message = text.len();
    entry.fields.each(&mut |name, value| {
        let shape = value.shape();
        match shape {
            Shape::Null => return,
            Shape::Bool(b) => {
                fields.push((key(name), Kind::Bool(b), 0, 0));
                return;
            }
            _ => {}
        }
        // Each text on a line of its own.
        text.push('\n');
        let start = text.len();
        let kind = match shape {
            Shape::Str(value) => {
                text.push_str(value);
                Kind::Str
            }
            shape => {
                value.write_json(text);
                match shape {
                    Shape::U64(n) => Kind::U64(n),
                    Shape::I64(n) => Kind::I64(n),
                    Shape::F64(n) => Kind::F64(n),
                    _ => Kind::Composite,
                }
            }
        };
        fields.push((key(name), kind, start, text.len()));
    });
    with_current_secrets(|secrets| {
        // Nothing in any text to scrub, when nothing is in all of them.
        let clean = matches!(crate::secret::scrubbed(text), Cow::Borrowed(_))
            && !secrets.iter().any(|secret| text.contains(&**secret));
        let scrubbed = |value: &str| {
            if clean {
                value.to_owned()
            } else {
                shown(value, secrets).into_owned()
            }
        };
        let mut attributes = Vec::with_capacity(2 + fields.len());
        attributes.push(KeyValue::new("level", level(entry.level)));
        attributes.push(KeyValue::new("message", scrubbed(&text[..message])));
        for (key, kind, start, end) in fields.drain(..) {
            let value = &text[start..end];
            if let Some(value) = typed(kind, value, clean, secrets) {
                attributes.push(KeyValue::new(key, value));
            }
        }
        attributes
    })
}

/// A field's value as an attribute value: text as itself, numbers and
/// booleans as themselves, arrays and objects as their JSON `text`, each
/// scrubbed as the line is (a number that is a secret's value becomes
/// `[REDACTED]`) unless the record is `clean`; `None` for a number that
/// is not finite (`null`).
fn typed(kind: Kind, text: &str, clean: bool, secrets: &[Box<str>]) -> Option<Value> {
    let shown = if clean {
        Cow::Borrowed(text)
    } else {
        shown(text, secrets)
    };
    Some(match kind {
        Kind::Bool(b) => Value::from(b),
        Kind::Str | Kind::Composite => Value::from(shown.into_owned()),
        _ if matches!(shown, Cow::Owned(_)) => Value::from(shown.into_owned()),
        Kind::U64(n) => i64::try_from(n).map_or(Value::from(n as f64), Value::from),
        Kind::I64(n) => Value::from(n),
        Kind::F64(n) if n.is_finite() => Value::from(n),
        Kind::F64(_) => return None,
    })
}

/// FNV-1a: a hash for the short names looked up for every field, much
/// cheaper than the default's for them.
#[derive(Default)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut hash = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for byte in bytes {
            hash = (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = hash;
    }
}

/// The field names and steps of the catalogue (and the names the
/// handler's events add), as the `'static` texts they are.
static NAMES: LazyLock<HashSet<&'static str, BuildHasherDefault<Fnv>>> = LazyLock::new(|| {
    let mut names: HashSet<&'static str, BuildHasherDefault<Fnv>> =
        ["target", "user_step"].into_iter().collect();
    for step in crate::record::catalogue::ALL {
        names.insert(step.name());
        names.extend(step.fields());
        names.extend(step.optional());
    }
    names
});

/// `name` as an attribute key: the catalogue's own text, else a copy.
fn key(name: &str) -> Key {
    match NAMES.get(name) {
        Some(name) => Key::from_static_str(name),
        None => Key::new(name.to_owned()),
    }
}

/// `step` as an event name: the catalogue's own text, else a copy.
fn name(step: &str) -> Cow<'static, str> {
    match NAMES.get(step) {
        Some(step) => Cow::Borrowed(step),
        None => Cow::Owned(step.to_owned()),
    }
}

/// A record's level, as the five texts levels are.
fn level(level: &str) -> Value {
    match level {
        "TRACE" => Value::from("TRACE"),
        "DEBUG" => Value::from("DEBUG"),
        "INFO" => Value::from("INFO"),
        "WARN" => Value::from("WARN"),
        "ERROR" => Value::from("ERROR"),
        other => Value::from(other.to_owned()),
    }
}

/// The string value of attribute `key`, if there is one.
fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.as_str().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::entry::Identity;
    use crate::record::value::Members;
    use serde_json::json;

    /// The event attributes of a record with `message` and `fields`.
    fn of(message: &str, fields: &serde_json::Value) -> Vec<KeyValue> {
        let members = Members(
            fields
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.as_str(), v)),
        );
        let entry = Entry {
            timestamp: "2026-01-01T00:00:00.000Z",
            level: "INFO",
            identity: Identity::default(),
            step: "start",
            message,
            fields: &members,
            own_call_sid: false,
            plain_header: true,
        };
        attributes(&entry, &mut Scratch::default())
    }

    fn value<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a Value> {
        attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| &kv.value)
    }

    #[test]
    fn fields_keep_their_type() {
        let attributes = of(
            "started",
            &json!({"none": null, "yes": true, "status": 503, "delta": -2,
                    "ratio": 0.25, "text": "a\nb", "object": {"a": 1},
                    "big": u64::MAX}),
        );
        assert_eq!(value(&attributes, "level"), Some(&Value::from("INFO")));
        assert_eq!(value(&attributes, "message"), Some(&Value::from("started")));
        assert_eq!(value(&attributes, "none"), None);
        assert_eq!(value(&attributes, "yes"), Some(&Value::from(true)));
        assert_eq!(value(&attributes, "status"), Some(&Value::from(503_i64)));
        assert_eq!(value(&attributes, "delta"), Some(&Value::from(-2_i64)));
        assert_eq!(value(&attributes, "ratio"), Some(&Value::from(0.25)));
        assert_eq!(value(&attributes, "text"), Some(&Value::from("a\nb")));
        assert_eq!(
            value(&attributes, "object"),
            Some(&Value::from("{\"a\":1}"))
        );
        assert_eq!(
            value(&attributes, "big"),
            Some(&Value::from(u64::MAX as f64))
        );
        assert_eq!(attributes.len(), 9);
    }

    #[test]
    fn a_record_holding_a_secret_or_a_url_has_each_value_scrubbed() {
        let secret = crate::secret::Secret::new("canary-layer-31d7e0");
        let digits = crate::secret::Secret::new("73914628501");
        let attributes = of(
            &format!("sent with {}", secret.expose()),
            &json!({"key": format!("k {}", secret.expose()), "plain": "as is",
                    "code": 73_914_628_501_u64, "other": 7,
                    "object": {"token": secret.expose()}}),
        );
        assert_eq!(
            value(&attributes, "message"),
            Some(&Value::from("sent with [REDACTED]"))
        );
        assert_eq!(
            value(&attributes, "key"),
            Some(&Value::from("k [REDACTED]"))
        );
        assert_eq!(value(&attributes, "plain"), Some(&Value::from("as is")));
        assert_eq!(value(&attributes, "code"), Some(&Value::from("[REDACTED]")));
        assert_eq!(value(&attributes, "other"), Some(&Value::from(7_i64)));
        assert_eq!(
            value(&attributes, "object"),
            Some(&Value::from("{\"token\":\"[REDACTED]\"}"))
        );
        let attributes = of(
            "called",
            &json!({"url": "https://ops:pw@x.example/?token=t&keep=1", "n": 73_914_628_501_u64}),
        );
        assert_eq!(
            value(&attributes, "url"),
            Some(&Value::from(
                "https://[REDACTED]@x.example/?token=[REDACTED]&keep=1"
            ))
        );
        assert_eq!(value(&attributes, "n"), Some(&Value::from("[REDACTED]")));
        drop((secret, digits));
    }

    #[test]
    fn catalogue_names_are_not_copied() {
        assert!(NAMES.contains("outcome") && NAMES.contains("end"));
        assert_eq!(key("outcome"), Key::from_static_str("outcome"));
        assert!(matches!(name("end"), Cow::Borrowed("end")));
        assert!(matches!(name("no such step"), Cow::Owned(_)));
    }
}
