//! A record's fields, typed: each field of a catalogue record has its own
//! type (a number, a flag, borrowed text, a list, a JSON value from
//! upstream), and every sink reads it through [`FieldValue`] in the form it
//! writes (JSON text, a human line, a span attribute, a captured value),
//! straight from where the value lives. Nothing is written twice and no
//! sink reads another's output.

use serde_json::Value;

use crate::text::json::{push_escaped, push_f64, push_i64, push_str, push_u64, push_value};

/// What a field's value is, as the sinks that do not write JSON see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Shape<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A whole number.
    U64(u64),
    /// A whole number that may be negative.
    I64(i64),
    /// A number with a fraction (not finite is written `null`).
    F64(f64),
    /// Text.
    Str(&'a str),
    /// A JSON object or array.
    Composite,
}

/// A typed field value, borrowed from where it lives.
pub(crate) trait FieldValue {
    /// What it is.
    fn shape(&self) -> Shape<'_>;

    /// Appends it as compact JSON, byte for byte what `serde_json` writes.
    fn write_json(&self, out: &mut String);

    /// Appends it as indented JSON, as `serde_json::to_string_pretty`
    /// writes it; what the human format shows of an object or array.
    fn write_pretty(&self, out: &mut String) {
        self.write_json(out);
    }

    /// It as a JSON value (what the testkit captures).
    fn to_value(&self) -> Value;
}

/// The shape of a scalar, for the implementations below.
fn scalar_json(shape: Shape<'_>, out: &mut String) {
    match shape {
        Shape::Null | Shape::Composite => out.push_str("null"),
        Shape::Bool(true) => out.push_str("true"),
        Shape::Bool(false) => out.push_str("false"),
        Shape::U64(n) => push_u64(out, n),
        Shape::I64(n) => push_i64(out, n),
        Shape::F64(n) => push_f64(out, n),
        Shape::Str(text) => push_str(out, text),
    }
}

fn scalar_value(shape: Shape<'_>) -> Value {
    match shape {
        Shape::Null | Shape::Composite => Value::Null,
        Shape::Bool(b) => Value::Bool(b),
        Shape::U64(n) => Value::from(n),
        Shape::I64(n) => Value::from(n),
        Shape::F64(n) => Value::from(n),
        Shape::Str(text) => Value::from(text),
    }
}

macro_rules! scalar {
    ($($ty:ty => |$v:ident| $shape:expr),* $(,)?) => {$(
        impl FieldValue for $ty {
            fn shape(&self) -> Shape<'_> {
                let $v = self;
                $shape
            }

            fn write_json(&self, out: &mut String) {
                scalar_json(self.shape(), out);
            }

            fn to_value(&self) -> Value {
                scalar_value(self.shape())
            }
        }
    )*};
}

scalar! {
    str => |text| Shape::Str(text),
    String => |text| Shape::Str(text),
    bool => |b| Shape::Bool(*b),
    u16 => |n| Shape::U64(u64::from(*n)),
    u32 => |n| Shape::U64(u64::from(*n)),
    u64 => |n| Shape::U64(*n),
    usize => |n| Shape::U64(*n as u64),
    u128 => |n| Shape::U64(u64::try_from(*n).unwrap_or(u64::MAX)),
    i64 => |n| Shape::I64(*n),
    f64 => |n| Shape::F64(*n),
}

impl<T: FieldValue + ?Sized> FieldValue for &T {
    fn shape(&self) -> Shape<'_> {
        (**self).shape()
    }

    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }

    fn write_pretty(&self, out: &mut String) {
        (**self).write_pretty(out);
    }

    fn to_value(&self) -> Value {
        (**self).to_value()
    }
}

/// `None` is `null`.
impl<T: FieldValue> FieldValue for Option<T> {
    fn shape(&self) -> Shape<'_> {
        self.as_ref().map_or(Shape::Null, FieldValue::shape)
    }

    fn write_json(&self, out: &mut String) {
        match self {
            Some(value) => value.write_json(out),
            None => out.push_str("null"),
        }
    }

    fn write_pretty(&self, out: &mut String) {
        match self {
            Some(value) => value.write_pretty(out),
            None => out.push_str("null"),
        }
    }

    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, FieldValue::to_value)
    }
}

/// A JSON value: an event, a response body, a task's attributes.
impl FieldValue for Value {
    fn shape(&self) -> Shape<'_> {
        match self {
            Value::Null => Shape::Null,
            Value::Bool(b) => Shape::Bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(n), _) => Shape::U64(n),
                (None, Some(n)) => Shape::I64(n),
                _ => Shape::F64(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(text) => Shape::Str(text),
            Value::Array(_) | Value::Object(_) => Shape::Composite,
        }
    }

    fn write_json(&self, out: &mut String) {
        push_value(out, self);
    }

    fn write_pretty(&self, out: &mut String) {
        out.push_str(&serde_json::to_string_pretty(self).unwrap_or_default());
    }

    fn to_value(&self) -> Value {
        self.clone()
    }
}

/// A list of strings, written as a JSON array.
/// Appends `items` as a JSON array of strings.
fn push_strings<'a>(out: &mut String, items: impl Iterator<Item = &'a str>) {
    out.push('[');
    for (at, item) in items.enumerate() {
        if at > 0 {
            out.push(',');
        }
        push_str(out, item);
    }
    out.push(']');
}

macro_rules! strings {
    ($($ty:ty),*) => {$(
        impl FieldValue for [$ty] {
            fn shape(&self) -> Shape<'_> {
                Shape::Composite
            }

            fn write_json(&self, out: &mut String) {
                push_strings(out, self.iter().map(|item| &**item));
            }

            fn write_pretty(&self, out: &mut String) {
                out.push_str(&serde_json::to_string_pretty(self).unwrap_or_default());
            }

            fn to_value(&self) -> Value {
                Value::from_iter(self.iter().map(|item| Value::from(&**item)))
            }
        }
    )*};
}
strings!(&str, String);

/// Names from a function's declaration, written as one JSON array: its
/// required parameters, or its settings then its secrets' names. Each
/// declaration is `'static`: its JSON text is made once per thread and
/// copied after (a `validation` record writes two lists per invocation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Declared {
    first: &'static [&'static str],
    then: &'static [&'static str],
}

/// The most declarations whose JSON text a thread keeps.
const DECLARED_KEPT: usize = 64;

thread_local! {
    /// The JSON text of the declarations this thread wrote, by where
    /// their names are.
    static DECLARED: std::cell::RefCell<Vec<([usize; 4], Box<str>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl Declared {
    /// The names of `first`, then those of `then`.
    pub(crate) const fn new(first: &'static [&'static str], then: &'static [&'static str]) -> Self {
        Declared { first, then }
    }

    fn names(&self) -> impl Iterator<Item = &'static str> {
        self.first.iter().chain(self.then).copied()
    }

    /// Writes the array, each name escaped.
    fn write_each(&self, out: &mut String) {
        push_strings(out, self.names());
    }
}

impl FieldValue for Declared {
    fn shape(&self) -> Shape<'_> {
        Shape::Composite
    }

    fn write_json(&self, out: &mut String) {
        // Static names never change: where they are says what they are.
        let key = [
            self.first.as_ptr() as usize,
            self.first.len(),
            self.then.as_ptr() as usize,
            self.then.len(),
        ];
        DECLARED.with(|kept| {
            let Ok(mut kept) = kept.try_borrow_mut() else {
                return self.write_each(out);
            };
            if let Some((_, json)) = kept.iter().find(|(at, _)| *at == key) {
                return out.push_str(json);
            }
            let from = out.len();
            self.write_each(out);
            if kept.len() < DECLARED_KEPT {
                kept.push((key, out[from..].into()));
            }
        });
    }

    fn write_pretty(&self, out: &mut String) {
        let names: Vec<&str> = self.names().collect();
        out.push_str(&serde_json::to_string_pretty(&names).unwrap_or_default());
    }

    fn to_value(&self) -> Value {
        Value::from_iter(self.names().map(Value::from))
    }
}

/// A composite value (the event) written as JSON by more than one sink
/// (the log line, and the exporter's event) when `keep`: its JSON text is
/// kept by the first to write it and copied by the others.
pub(crate) struct KeptJson<'a> {
    value: &'a dyn FieldValue,
    keep: bool,
    json: std::cell::OnceCell<String>,
}

impl<'a> KeptJson<'a> {
    /// `value`, its JSON text kept when `keep`.
    pub(crate) fn new(value: &'a dyn FieldValue, keep: bool) -> Self {
        KeptJson {
            value,
            keep,
            json: std::cell::OnceCell::new(),
        }
    }
}

impl FieldValue for KeptJson<'_> {
    fn shape(&self) -> Shape<'_> {
        self.value.shape()
    }

    fn write_json(&self, out: &mut String) {
        if let Some(json) = self.json.get() {
            return out.push_str(json);
        }
        let from = out.len();
        self.value.write_json(out);
        if self.keep {
            let _ = self.json.set(out[from..].to_owned());
        }
    }

    fn write_pretty(&self, out: &mut String) {
        self.value.write_pretty(out);
    }

    fn to_value(&self) -> Value {
        self.value.to_value()
    }
}

/// A duration in milliseconds, to the microsecond (`12.345`), written from
/// its whole microseconds: the digits `zmij` finds for the `f64`, without
/// its search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Millis(u64);

impl Millis {
    /// Below it, microseconds in milliseconds are written exactly as `zmij`
    /// writes the `f64` (about 12 days): the `f64`'s neighbours are
    /// closer to it than a thousandth of a millisecond, so the shortest
    /// text that reads back as it is the one with three decimals or fewer.
    const EXACT: u64 = 1 << 40;

    /// `duration`, to the microsecond.
    pub(crate) fn of(duration: std::time::Duration) -> Self {
        Millis(u64::try_from(duration.as_micros()).unwrap_or(u64::MAX))
    }

    /// It as an `f64`: what the field holds.
    #[allow(clippy::cast_precision_loss)]
    pub(crate) fn as_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }
}

impl FieldValue for Millis {
    fn shape(&self) -> Shape<'_> {
        Shape::F64(self.as_f64())
    }

    fn write_json(&self, out: &mut String) {
        if self.0 >= Millis::EXACT {
            return push_f64(out, self.as_f64());
        }
        push_u64(out, self.0 / 1000);
        out.push('.');
        let fraction = self.0 % 1000;
        #[allow(clippy::cast_possible_truncation)]
        let digits = [
            b'0' + (fraction / 100) as u8,
            b'0' + (fraction / 10 % 10) as u8,
            b'0' + (fraction % 10) as u8,
        ];
        // Without its trailing zeros, one digit at least (`12.0`).
        let len = if fraction.is_multiple_of(100) {
            1
        } else if fraction.is_multiple_of(10) {
            2
        } else {
            3
        };
        for digit in &digits[..len] {
            out.push(char::from(*digit));
        }
    }

    fn to_value(&self) -> Value {
        Value::from(self.as_f64())
    }
}

/// Text that one record or several carry (the voice document, as built
/// and as returned): carried by several, its JSON form is written once,
/// by the first record, and copied by the others; by one, it is written
/// straight into that record's line. A text that begins as another does
/// (the document as first built, when verbs were added after it) copies
/// the JSON form of that beginning from the other's.
pub(crate) struct SharedText<'a> {
    text: &'a str,
    json: Json<'a>,
}

/// How a [`SharedText`] is written as JSON.
enum Json<'a> {
    /// Straight into the line, by its one record.
    Once,
    /// Once, by the first of its records: the JSON string, and where in
    /// it the content of `text[..common]` ends.
    Shared {
        common: usize,
        json: std::cell::OnceCell<(String, usize)>,
    },
    /// The JSON of its first `common` bytes taken from `of`'s, which
    /// begins with them (its `Shared` common part), the rest escaped.
    Prefix {
        of: &'a SharedText<'a>,
        common: usize,
    },
}

impl<'a> SharedText<'a> {
    /// `text`, carried by several records, one of which may carry a text
    /// that begins with its first `common` bytes (see
    /// [`SharedText::prefix`]); 0 when none does.
    pub(crate) fn with_common(text: &'a str, common: usize) -> Self {
        let common = if text.is_char_boundary(common) {
            common
        } else {
            0
        };
        SharedText {
            text,
            json: Json::Shared {
                common,
                json: std::cell::OnceCell::new(),
            },
        }
    }

    /// `text`, carried by one record.
    #[cfg(test)]
    pub(crate) fn once(text: &'a str) -> Self {
        SharedText {
            text,
            json: Json::Once,
        }
    }

    /// `text`, carried by one record, which begins with the first
    /// `common` bytes `of` was made [`SharedText::with_common`]; written
    /// on its own when it does not.
    pub(crate) fn prefix(text: &'a str, of: &'a SharedText<'a>) -> Self {
        let json = match of.json {
            Json::Shared { common, .. }
                if common > 0
                    && text.as_bytes().get(..common) == of.text.as_bytes().get(..common) =>
            {
                Json::Prefix { of, common }
            }
            _ => Json::Once,
        };
        SharedText { text, json }
    }

    /// The JSON string of a `Shared` text, written by the first to ask,
    /// and where the content of its common part ends in it.
    fn shared_json(&self) -> Option<(&str, usize)> {
        let Json::Shared { common, json } = &self.json else {
            return None;
        };
        let (json, end) = json.get_or_init(|| {
            let mut json = String::with_capacity(crate::text::json::string_room(self.text.len()));
            json.push('"');
            push_escaped(&mut json, &self.text[..*common]);
            let end = json.len();
            push_escaped(&mut json, &self.text[*common..]);
            json.push('"');
            (json, end)
        });
        Some((json, *end))
    }
}

impl FieldValue for SharedText<'_> {
    fn shape(&self) -> Shape<'_> {
        Shape::Str(self.text)
    }

    fn write_json(&self, out: &mut String) {
        match &self.json {
            Json::Once => push_str(out, self.text),
            Json::Shared { .. } => {
                if let Some((json, _)) = self.shared_json() {
                    out.push_str(json);
                }
            }
            Json::Prefix { of, common } => match of.shared_json() {
                Some((json, end)) => {
                    out.push_str(&json[..end]);
                    push_escaped(out, &self.text[*common..]);
                    out.push('"');
                }
                None => push_str(out, self.text),
            },
        }
    }

    fn to_value(&self) -> Value {
        Value::from(self.text)
    }
}

/// A record's fields, in order: each one's name and value.
pub(crate) trait Fields {
    /// Calls `f` with each field, in the order they are written.
    fn each(&self, f: &mut dyn FnMut(&str, &dyn FieldValue));

    /// Appends each field as a member of a JSON object: `,"name":value`
    /// for each. A catalogue record writes its own, each name with its
    /// quotes and colon in one piece known at compile time.
    fn write_json(&self, out: &mut String) {
        write_members(self, out);
    }
}

/// Whether `name` needs no escaping in JSON, tested in one pass.
pub(crate) fn is_plain(name: &str) -> bool {
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}

/// `,"name":`; names are almost always plain (a step's field names, a
/// handler's identifiers), and then need no escaping.
fn push_name(out: &mut String, name: &str) {
    if is_plain(name) {
        out.push_str(",\"");
        out.push_str(name);
        out.push_str("\":");
    } else {
        out.push(',');
        push_str(out, name);
        out.push(':');
    }
}

/// Appends each of `fields` as a member of a JSON object, its name
/// escaped when it needs to be: [`Fields::write_json`] unless a record
/// writes its own.
pub(crate) fn write_members<F: Fields + ?Sized>(fields: &F, out: &mut String) {
    fields.each(&mut |name, value| {
        push_name(out, name);
        value.write_json(out);
    });
}

/// The members of a JSON object as a record's fields: a record read back.
pub(crate) struct Members<'a, I>(pub(crate) I)
where
    I: Iterator<Item = (&'a str, &'a Value)> + Clone;

impl<'a, I> Fields for Members<'a, I>
where
    I: Iterator<Item = (&'a str, &'a Value)> + Clone,
{
    fn each(&self, f: &mut dyn FnMut(&str, &dyn FieldValue)) {
        for (name, value) in self.0.clone() {
            f(name, value);
        }
    }
}

/// The members of `object` as a record's fields (none when it is not an
/// object): a record in a test.
#[cfg(test)]
pub(crate) fn members(object: &Value) -> Members<'_, impl Iterator<Item = (&str, &Value)> + Clone> {
    Members(
        object
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, value)| (name.as_str(), value)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A text carried by one record or by several is written as
    /// `serde_json` writes it, each time it is written.
    #[test]
    fn a_shared_text_is_written_alike_once_or_shared() {
        let text = "<?xml version=\"1.0\"?><Response><Say>a \\ b\n</Say></Response>";
        let expected = serde_json::to_string(text).unwrap();
        for shared in [SharedText::with_common(text, 0), SharedText::once(text)] {
            for _ in 0..2 {
                let mut out = String::from("x");
                shared.write_json(&mut out);
                assert_eq!(out, format!("x{expected}"));
            }
            assert_eq!(shared.to_value(), json!(text));
        }
    }

    /// A value whose JSON text is kept is written alike each time, and as
    /// the value itself writes it.
    #[test]
    fn a_kept_json_text_is_the_value_s() {
        let value = json!({"CallSid": "CA1", "n": [1, "two \"2\""]});
        let expected = serde_json::to_string(&value).unwrap();
        for keep in [false, true] {
            let kept = KeptJson::new(&value, keep);
            for _ in 0..2 {
                let mut out = String::from("x");
                kept.write_json(&mut out);
                assert_eq!(out, format!("x{expected}"));
            }
            assert_eq!(kept.json.get().is_some(), keep);
            assert_eq!(kept.to_value(), value);
            assert_eq!(kept.shape(), Shape::Composite);
        }
    }

    /// A declaration's names are written as the list of them is, the
    /// first time and after, a list apart from another of the same names.
    #[test]
    fn declared_names_are_written_as_their_list() {
        static REQUIRED: [&str; 3] = ["CallSid", "From", "To \"quoted\""];
        static ENV: [&str; 1] = ["API_KEY"];
        static SECRETS: [&str; 2] = ["TOKEN", "KEY"];
        for (declared, names) in [
            (Declared::new(&REQUIRED, &[]), REQUIRED.to_vec()),
            (
                Declared::new(&ENV, &SECRETS),
                vec!["API_KEY", "TOKEN", "KEY"],
            ),
            (Declared::new(&REQUIRED[..2], &[]), vec!["CallSid", "From"]),
            (Declared::new(&[], &[]), vec![]),
        ] {
            for _ in 0..2 {
                let mut out = String::from("x");
                declared.write_json(&mut out);
                assert_eq!(out, format!("x{}", serde_json::to_string(&names).unwrap()));
            }
            assert_eq!(declared.to_value(), json!(names));
            assert_eq!(declared.shape(), Shape::Composite);
        }
    }

    /// A text that begins as a shared one does is written as `serde_json`
    /// writes it, before the shared one or after, and on its own when it
    /// does not begin so.
    #[test]
    fn a_text_beginning_as_a_shared_one_is_written_alike() {
        let whole = "<?xml?><Response><Say>\"é\" \\ a\n</Say><Pause/></Response>";
        let common = whole.find("<Pause/>").unwrap();
        let built = format!("{}</Response><!-- \"a\" -->", &whole[..common]);
        for (common, text) in [
            (common, built.as_str()),
            (common, "<?xml?>x"),
            (0, built.as_str()),
        ] {
            for prefix_first in [true, false] {
                let shared = SharedText::with_common(whole, common);
                let prefix = SharedText::prefix(text, &shared);
                let written = |value: &SharedText<'_>| {
                    let mut out = String::from("x");
                    value.write_json(&mut out);
                    out
                };
                let (a, b) = if prefix_first {
                    let a = written(&prefix);
                    (a, written(&shared))
                } else {
                    let b = written(&shared);
                    (written(&prefix), b)
                };
                assert_eq!(a, format!("x{}", serde_json::to_string(text).unwrap()));
                assert_eq!(b, format!("x{}", serde_json::to_string(whole).unwrap()));
                assert_eq!(prefix.shape(), Shape::Str(text));
            }
        }
    }

    /// Milliseconds from microseconds are written as `serde_json` writes
    /// the `f64`: every count of the first second and around each power
    /// of two up to where they are no longer exact, and beyond.
    #[test]
    fn milliseconds_are_written_as_serde_json_writes_the_f64() {
        let around_powers = (10..=44).flat_map(|power| {
            let at = 1_u64 << power;
            at - 1001..at + 1001
        });
        let xorshift = std::iter::successors(Some(0x9E37_79B9_7F4A_7C15_u64), |state| {
            let mut state = *state;
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            Some(state)
        })
        .take(200_000)
        .map(|state| state % Millis::EXACT);
        for micros in (0..1_000_000)
            .chain(around_powers)
            .chain(xorshift)
            .chain([u64::MAX])
        {
            let millis = Millis(micros);
            let mut json = String::new();
            millis.write_json(&mut json);
            assert_eq!(
                json,
                serde_json::to_string(&Value::from(millis.as_f64())).unwrap(),
                "{micros}"
            );
            assert_eq!(millis.to_value(), Value::from(millis.as_f64()));
            assert_eq!(millis.shape(), Shape::F64(millis.as_f64()));
        }
        assert_eq!(
            Millis::of(std::time::Duration::from_nanos(12_345_678)),
            Millis(12_345)
        );
        assert_eq!(Millis::of(std::time::Duration::MAX), Millis(u64::MAX));
    }

    #[test]
    fn values_are_written_as_serde_json_writes_them() {
        let event = json!({"CallSid": "CA1", "n": [1, 2.5, null]});
        let list = ["a", "b\"c"];
        let owned = [String::from("d")];
        let values: [(&str, &dyn FieldValue); 10] = [
            ("text", &"a \"quoted\"\nline"),
            ("missing", &None::<&str>),
            ("count", &7_usize),
            ("negative", &-3_i64),
            ("ratio", &0.25),
            ("infinite", &f64::INFINITY),
            ("flag", &true),
            ("event", &event),
            ("list", &list.as_slice()),
            ("owned", &owned.as_slice()),
        ];
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
        for (name, value) in values {
            let mut json = String::new();
            value.write_json(&mut json);
            assert_eq!(
                json,
                serde_json::to_string(&expected[name]).unwrap(),
                "{name}"
            );
            assert_eq!(value.to_value(), expected[name], "{name}");
            let mut pretty = String::new();
            value.write_pretty(&mut pretty);
            assert_eq!(
                pretty,
                serde_json::to_string_pretty(&expected[name]).unwrap(),
                "{name}"
            );
        }
        assert_eq!("x".shape(), Shape::Str("x"));
        assert_eq!(json!(-1).shape(), Shape::I64(-1));
        assert_eq!(json!(1.5).shape(), Shape::F64(1.5));
        assert_eq!(event.shape(), Shape::Composite);
        assert_eq!(Some(3_u64).shape(), Shape::U64(3));
        assert_eq!(u128::MAX.shape(), Shape::U64(u64::MAX));
        let shared = SharedText::with_common("<Say voice=\"alice\">Hi</Say>", 0);
        for _ in 0..2 {
            let mut json = String::new();
            shared.write_json(&mut json);
            assert_eq!(json, serde_json::to_string(shared.text).unwrap());
        }
        assert_eq!(shared.shape(), Shape::Str(shared.text));
    }
}
