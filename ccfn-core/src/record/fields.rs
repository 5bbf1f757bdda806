//! A record's fields, written once as JSON text straight from where their
//! values live (no `serde_json::Value` is built for them), then copied
//! whole into each line.

use std::fmt::Write as _;
use std::ops::Range;

use serde_json::Value;
use tracing::field::{Field as TracingField, Visit};

use crate::text::json::{push_str, push_value};

/// A field's value, borrowed from where it lives.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Field<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A whole number.
    U64(u64),
    /// A whole number that may be negative.
    I64(i64),
    /// A number; not finite is `null`, as `serde_json` writes it.
    F64(f64),
    /// A string.
    Str(&'a str),
    /// Any JSON value.
    Json(&'a Value),
    /// A list of strings.
    Strs(&'a [&'a str]),
    /// A list of owned strings.
    Strings(&'a [String]),
}

impl Field<'_> {
    fn write(self, out: &mut String) {
        match self {
            Field::Null => out.push_str("null"),
            Field::Bool(true) => out.push_str("true"),
            Field::Bool(false) => out.push_str("false"),
            Field::U64(n) => {
                let _ = write!(out, "{n}");
            }
            Field::I64(n) => {
                let _ = write!(out, "{n}");
            }
            Field::F64(n) => push_value(out, &Value::from(n)),
            Field::Str(text) => push_str(out, text),
            Field::Json(value) => push_value(out, value),
            Field::Strs(items) => push_strs(out, items.iter().copied()),
            Field::Strings(items) => push_strs(out, items.iter().map(String::as_str)),
        }
    }
}

/// Appends `items` as a JSON array of strings.
fn push_strs<'a>(out: &mut String, items: impl Iterator<Item = &'a str>) {
    out.push('[');
    for (at, item) in items.enumerate() {
        if at > 0 {
            out.push(',');
        }
        push_str(out, item);
    }
    out.push(']');
}

impl<'a> From<&'a str> for Field<'a> {
    fn from(text: &'a str) -> Self {
        Field::Str(text)
    }
}

impl<'a> From<&'a String> for Field<'a> {
    fn from(text: &'a String) -> Self {
        Field::Str(text)
    }
}

impl<'a, T: Into<Field<'a>>> From<Option<T>> for Field<'a> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Field::Null, Into::into)
    }
}

impl<'a> From<&'a [&'a str]> for Field<'a> {
    fn from(items: &'a [&'a str]) -> Self {
        Field::Strs(items)
    }
}

impl<'a> From<&'a [String]> for Field<'a> {
    fn from(items: &'a [String]) -> Self {
        Field::Strings(items)
    }
}

impl<'a> From<&'a Value> for Field<'a> {
    fn from(value: &'a Value) -> Self {
        Field::Json(value)
    }
}

impl From<bool> for Field<'_> {
    fn from(value: bool) -> Self {
        Field::Bool(value)
    }
}

impl From<f64> for Field<'_> {
    fn from(value: f64) -> Self {
        Field::F64(value)
    }
}

macro_rules! unsigned {
    ($($ty:ty),*) => {$(
        impl From<$ty> for Field<'_> {
            fn from(value: $ty) -> Self {
                Field::U64(value as u64)
            }
        }
    )*};
}
unsigned!(u8, u16, u32, u64, usize);

impl From<i64> for Field<'_> {
    fn from(value: i64) -> Self {
        Field::I64(value)
    }
}

impl From<u128> for Field<'_> {
    fn from(value: u128) -> Self {
        Field::U64(u64::try_from(value).unwrap_or(u64::MAX))
    }
}

/// The fields of one record, written: `,"name":value` for each, in order.
#[derive(Debug, Default)]
pub(crate) struct Written {
    json: String,
    /// Each field's name, where its value is in `json`, and whether that
    /// value is a string.
    fields: Vec<(&'static str, Range<usize>, bool)>,
}

impl Written {
    pub(crate) fn clear(&mut self) {
        self.json.clear();
        self.fields.clear();
    }

    /// Appends field `name` (a plain name, as the catalogue's are) with
    /// `value` written by `write`.
    fn push_with(&mut self, name: &'static str, is_str: bool, write: impl FnOnce(&mut String)) {
        debug_assert!(name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        self.json.push_str(",\"");
        self.json.push_str(name);
        self.json.push_str("\":");
        let start = self.json.len();
        write(&mut self.json);
        self.fields.push((name, start..self.json.len(), is_str));
    }

    pub(crate) fn push(&mut self, name: &'static str, value: Field<'_>) {
        let is_str = matches!(value, Field::Str(_) | Field::Json(Value::String(_)));
        self.push_with(name, is_str, |out| value.write(out));
    }

    /// Every field as JSON object members, each after a comma.
    pub(crate) fn members(&self) -> &str {
        &self.json
    }

    /// Whether there is a field `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.fields.iter().any(|(field, _, _)| *field == name)
    }

    /// The JSON text of field `name`'s value, and whether it is a string.
    pub(crate) fn get(&self, name: &str) -> Option<(&str, bool)> {
        self.fields
            .iter()
            .find(|(field, _, _)| *field == name)
            .map(|(_, range, is_str)| (&self.json[range.clone()], *is_str))
    }

    /// Each field's name and the JSON text of its value, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> + '_ {
        self.fields
            .iter()
            .map(|(name, range, _)| (*name, &self.json[range.clone()]))
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_are_written_as_serde_json_writes_them() {
        let event = json!({"CallSid": "CA1", "n": [1, 2.5, null]});
        let mut written = Written::default();
        for (name, value) in [
            ("text", Field::from("a \"quoted\"\nline")),
            ("missing", Field::from(None::<&str>)),
            ("count", Field::from(7_usize)),
            ("negative", Field::from(-3_i64)),
            ("ratio", Field::from(0.25)),
            ("infinite", Field::from(f64::INFINITY)),
            ("flag", Field::from(true)),
            ("event", Field::from(&event)),
            ("list", Field::from(["a", "b\"c"].as_slice())),
            ("owned", Field::from([String::from("d")].as_slice())),
        ] {
            written.push(name, value);
        }
        let expected = json!({
            "text": "a \"quoted\"\nline",
            "missing": null,
            "count": 7,
            "negative": -3,
            "ratio": 0.25,
            "infinite": null,
            "flag": true,
            "event": event,
            "list": ["a", "b\"c"],
            "owned": ["d"],
        });
        let object = format!("{{{}}}", &written.members()[1..]);
        assert_eq!(object, serde_json::to_string(&expected).unwrap());
        assert_eq!(written.get("text"), Some((r#""a \"quoted\"\nline""#, true)));
        assert_eq!(written.get("count"), Some(("7", false)));
        assert!(written.has("event") && !written.has("call_sid"));
        let names: Vec<_> = written.iter().map(|(name, _)| name).collect();
        assert_eq!(names[..3], ["text", "missing", "count"]);
        written.clear();
        assert_eq!(written.members(), "");
    }
}
