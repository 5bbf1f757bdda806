//! Strict parsing of form bodies and query strings.

use serde_json::Value;

use crate::function::event::Text;

/// Parses `application/x-www-form-urlencoded` text into ordered pairs,
/// decoding `+` and percent escapes exactly once, each name and value a
/// [`Text::Sent`] range of `sent`.
///
/// `input` is appended to `sent` whole when it is UTF-8, and a name or
/// value with nothing to decode is read there, not copied; a decoded one
/// is appended to `sent` after it (so `sent` needs room for twice
/// `input` to grow no more). No name or value is a `String` of its own.
///
/// # Errors
/// A `%` not followed by two hexadecimal digits, or a name or value that
/// is not UTF-8 once decoded; the message says which and where.
pub(crate) fn parse_form(
    input: &[u8],
    what: &str,
    sent: &mut String,
) -> Result<Vec<(Text, Text)>, String> {
    let base = sent.len();
    let whole = match std::str::from_utf8(input) {
        Ok(text) => {
            sent.push_str(text);
            true
        }
        Err(_) => false,
    };
    let piece = |start: usize, end: usize, sent: &mut String| -> Result<Text, String> {
        let bytes = &input[start..end];
        if memchr::memchr2(b'+', b'%', bytes).is_some() {
            return decode_into(bytes, sent);
        }
        if whole {
            // Split at ASCII bytes: on character boundaries.
            return Ok(Text::Sent {
                start: base + start,
                end: base + end,
            });
        }
        std::str::from_utf8(bytes)
            .map(|text| Text::sent(text, sent))
            .map_err(|_| "bytes that are not UTF-8".to_owned())
    };
    // Each pair ends at a `&` or at the end; its name at its first `=`;
    // whether the name and the value have anything to decode is looked
    // up in each (searches that read many bytes a step).
    let mut pairs = Vec::with_capacity(memchr::memchr_iter(b'&', input).count() + 1);
    let mut start = 0;
    let ends = memchr::memchr_iter(b'&', input).chain(std::iter::once(input.len()));
    for (index, at) in ends.enumerate() {
        if at > start {
            let (name_end, value_start) = memchr::memchr(b'=', &input[start..at])
                .map_or((at, at), |equals| (start + equals, start + equals + 1));
            let name = piece(start, name_end, sent)
                .map_err(|e| format!("{what}: pair {} has {e} in its name", index + 1))?;
            let value = piece(value_start, at, sent).map_err(|e| {
                format!(
                    "{what}: parameter `{}` has {e}",
                    crate::secret::echo(name.get(sent))
                )
            })?;
            pairs.push((name, value));
        }
        start = at + 1;
    }
    Ok(pairs)
}

/// The longest text decoded on the stack; a longer one is decoded in a
/// buffer of its own.
const ON_STACK: usize = 256;

/// `bytes` with `+` and percent escapes decoded, the runs between them
/// copied whole, appended to `sent`: its range there.
fn decode_into(bytes: &[u8], sent: &mut String) -> Result<Text, String> {
    // Decoding never lengthens a text.
    let mut stack = [0u8; ON_STACK];
    let mut heap = Vec::new();
    let out: &mut [u8] = if bytes.len() <= ON_STACK {
        &mut stack[..bytes.len()]
    } else {
        heap.resize(bytes.len(), 0);
        &mut heap
    };
    let mut len = 0;
    let mut at = 0;
    while let Some(offset) = memchr::memchr2(b'+', b'%', &bytes[at..]) {
        out[len..len + offset].copy_from_slice(&bytes[at..at + offset]);
        len += offset;
        at += offset;
        if bytes[at] == b'+' {
            out[len] = b' ';
            len += 1;
            at += 1;
            continue;
        }
        let hex = |b: Option<&u8>| b.and_then(|b| (*b as char).to_digit(16));
        match (hex(bytes.get(at + 1)), hex(bytes.get(at + 2))) {
            (Some(high), Some(low)) => {
                out[len] = u8::try_from(high * 16 + low).unwrap_or(b'?');
                len += 1;
                at += 3;
            }
            _ => {
                let escape =
                    String::from_utf8_lossy(&bytes[at..bytes.len().min(at + 3)]).into_owned();
                return Err(format!(
                    "a malformed percent escape `{escape}` (expected `%` and two hexadecimal digits)"
                ));
            }
        }
    }
    let rest = bytes.len() - at;
    out[len..len + rest].copy_from_slice(&bytes[at..]);
    len += rest;
    std::str::from_utf8(&out[..len])
        .map(|text| Text::sent(text, sent))
        .map_err(|_| "bytes that are not UTF-8".to_owned())
}

/// Parses a JSON body: an object whose members become parameters.
///
/// Read as plain JSON, as every other reader reads it: `serde_json`'s own
/// `Value` gives a member named `$serde_json::private::RawValue` a meaning
/// of its own when its `raw_value` feature is on (axum turns it on), and
/// would read `{"$serde_json::private::RawValue": "{\"To\": ..}"}` as the
/// parameter `To`.
///
/// # Errors
/// Not JSON, or JSON that is not an object.
pub(crate) fn parse_json(input: &[u8]) -> Result<Vec<(String, Value)>, String> {
    match serde_json::from_slice::<PlainJson>(input).map(|plain| plain.0) {
        // Numbers and booleans become text, as the platform's form
        // parameters are (a number as serde_json writes it: `1.50` gives
        // `1.5`, `1e2` gives `100.0`); objects and arrays stay JSON.
        Ok(Value::Object(map)) => Ok(map
            .into_iter()
            .map(|(name, value)| {
                let value = match value {
                    Value::Number(n) => Value::String(n.to_string()),
                    Value::Bool(b) => Value::String(b.to_string()),
                    other => other,
                };
                (name, value)
            })
            .collect()),
        Ok(_) => Err("the JSON body must be an object of parameters".to_owned()),
        Err(e) => Err(format!("the body is not valid JSON: {e}")),
    }
}

/// A JSON value read with no member name reserved.
struct PlainJson(Value);

impl<'de> serde::Deserialize<'de> for PlainJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(PlainVisitor).map(PlainJson)
    }
}

struct PlainVisitor;

impl<'de> serde::de::Visitor<'de> for PlainVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(PlainJson(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = serde_json::Map::new();
        while let Some((name, PlainJson(value))) = map.next_entry::<String, PlainJson>()? {
            // The last of repeated names wins, as with `serde_json::Value`.
            members.insert(name, value);
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserved_member_name_is_an_ordinary_parameter() {
        let body = br#"{"$serde_json::private::RawValue":"{\"To\":\"+15551230000\"}","n":1.5,"big":18446744073709551615,"a":[true,null,{"b":-2}]}"#;
        let params = parse_json(body).unwrap();
        assert_eq!(
            params,
            vec![
                (
                    "$serde_json::private::RawValue".to_owned(),
                    Value::from(r#"{"To":"+15551230000"}"#)
                ),
                ("n".to_owned(), Value::from("1.5")),
                ("big".to_owned(), Value::from("18446744073709551615")),
                ("a".to_owned(), serde_json::json!([true, null, {"b": -2}])),
            ]
        );
        // Nested too, and with a null member (an error for serde_json's Value).
        let nested = parse_json(br#"{"x":{"$serde_json::private::RawValue":null}}"#).unwrap();
        assert_eq!(
            nested,
            vec![(
                "x".to_owned(),
                serde_json::json!({"$serde_json::private::RawValue": null})
            )]
        );
    }

    /// The pairs of `input`, parsed after `before` in the text they are
    /// read in, as text.
    pub(super) fn parsed(
        before: &str,
        input: &[u8],
        what: &str,
    ) -> Result<Vec<(String, String)>, String> {
        let mut sent = before.to_owned();
        let pairs = parse_form(input, what, &mut sent)?;
        Ok(pairs
            .into_iter()
            .map(|(k, v)| (k.get(&sent).to_owned(), v.get(&sent).to_owned()))
            .collect())
    }

    fn pairs(input: &str) -> Vec<(String, String)> {
        parsed("", input.as_bytes(), "body").unwrap()
    }

    #[test]
    fn names_and_values_are_read_in_the_text_after_what_it_held() {
        let mut sent = "query=1".to_owned();
        let pairs = parse_form(b"From=%2B1555&To=1666", "body", &mut sent).unwrap();
        // The body whole, then what was decoded: nothing else.
        assert_eq!(sent, "query=1From=%2B1555&To=1666+1555");
        let read: Vec<&str> = pairs
            .iter()
            .flat_map(|(k, v)| [k.get(&sent), v.get(&sent)])
            .collect();
        assert_eq!(read, ["From", "+1555", "To", "1666"]);
        // Not UTF-8 as a whole: each piece is checked and copied.
        let mut sent = String::new();
        assert!(parse_form(b"a=1&b=\xff", "body", &mut sent).is_err());
        let long = format!("v={}", "%41".repeat(300));
        assert_eq!(pairs_of(&long), [("v".to_owned(), "A".repeat(300))]);
    }

    fn pairs_of(input: &str) -> Vec<(String, String)> {
        parsed("before", input.as_bytes(), "body").unwrap()
    }

    #[test]
    fn decodes_once() {
        assert_eq!(
            pairs("From=%2B15551230000&Body=a+b%2Bc&Pct=%2525"),
            [
                ("From".to_owned(), "+15551230000".to_owned()),
                ("Body".to_owned(), "a b+c".to_owned()),
                ("Pct".to_owned(), "%25".to_owned()),
            ]
        );
    }

    #[test]
    fn keeps_repeated_keys_and_empty_values() {
        assert_eq!(
            pairs("a=1&&a=2&flag&b="),
            [
                ("a".to_owned(), "1".to_owned()),
                ("a".to_owned(), "2".to_owned()),
                ("flag".to_owned(), String::new()),
                ("b".to_owned(), String::new()),
            ]
        );
    }

    #[test]
    fn malformed_escapes_and_bad_utf8_are_errors() {
        assert_eq!(
            parsed("", b"CallSid=CA1&To=%2", "body").unwrap_err(),
            "body: parameter `To` has a malformed percent escape `%2` (expected `%` and two hexadecimal digits)"
        );
        assert_eq!(
            parsed("", b"To=%zz1", "query string").unwrap_err(),
            "query string: parameter `To` has a malformed percent escape `%zz` (expected `%` and two hexadecimal digits)"
        );
        assert_eq!(
            parsed("", b"Name=%FF%FE", "body").unwrap_err(),
            "body: parameter `Name` has bytes that are not UTF-8"
        );
        assert_eq!(
            parsed("", b"ok=1&\xff=2", "body").unwrap_err(),
            "body: pair 2 has bytes that are not UTF-8 in its name"
        );
    }

    #[test]
    fn json_must_be_an_object() {
        assert_eq!(
            parse_json(br#"{"a":1,"b":true,"c":{"d":null}}"#).unwrap(),
            [
                ("a".to_owned(), Value::from("1")),
                ("b".to_owned(), Value::from("true")),
                ("c".to_owned(), serde_json::json!({"d": null})),
            ]
        );
        assert_eq!(
            parse_json(b"[1]").unwrap_err(),
            "the JSON body must be an object of parameters"
        );
        assert!(parse_json(b"{")
            .unwrap_err()
            .starts_with("the body is not valid JSON"));
    }
}

#[cfg(test)]
mod properties {
    //! The form parser takes any bytes without panicking and reads back
    //! exactly what a standard form encoder writes; the JSON body parser
    //! takes any bytes without panicking.

    use proptest::prelude::*;
    use serde_json::{Map, Value};

    use super::parse_json;

    /// The pairs parsed from `input` as text.
    fn texts(input: &[u8]) -> Vec<(String, String)> {
        super::tests::parsed("", input, "body").unwrap()
    }

    /// The form parser as first written, byte by byte, every name and
    /// value decoded into a string of its own: what `parse_form` must
    /// still read from any input.
    fn reference(input: &[u8], what: &str) -> Result<Vec<(String, String)>, String> {
        fn decode(bytes: &[u8]) -> Result<String, String> {
            let mut out = Vec::with_capacity(bytes.len());
            let mut at = 0;
            while at < bytes.len() {
                match bytes[at] {
                    b'+' => out.push(b' '),
                    b'%' => {
                        let hex = |b: Option<&u8>| b.and_then(|b| (*b as char).to_digit(16));
                        match (hex(bytes.get(at + 1)), hex(bytes.get(at + 2))) {
                            (Some(high), Some(low)) => {
                                out.push(u8::try_from(high * 16 + low).unwrap());
                                at += 2;
                            }
                            _ => {
                                let escape =
                                    String::from_utf8_lossy(&bytes[at..bytes.len().min(at + 3)]);
                                return Err(format!(
                                    "a malformed percent escape `{escape}` (expected `%` and two hexadecimal digits)"
                                ));
                            }
                        }
                    }
                    byte => out.push(byte),
                }
                at += 1;
            }
            String::from_utf8(out).map_err(|_| "bytes that are not UTF-8".to_owned())
        }
        let mut pairs = Vec::new();
        for (index, part) in input.split(|b| *b == b'&').enumerate() {
            if part.is_empty() {
                continue;
            }
            let (name, value) = match part.iter().position(|b| *b == b'=') {
                Some(at) => (&part[..at], &part[at + 1..]),
                None => (part, &part[..0]),
            };
            let name = decode(name)
                .map_err(|e| format!("{what}: pair {} has {e} in its name", index + 1))?;
            let value = decode(value).map_err(|e| {
                format!("{what}: parameter `{}` has {e}", crate::secret::echo(&name))
            })?;
            pairs.push((name, value));
        }
        Ok(pairs)
    }

    /// `application/x-www-form-urlencoded` as browsers and the platform
    /// write it: `name=value` pairs joined by `&`, space as `+`, and
    /// everything but `*-._` and ASCII letters and digits percent-encoded.
    fn encode(pairs: &[(String, String)]) -> String {
        form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish()
    }

    /// Bytes biased towards those the form parser looks at.
    fn form_bytes() -> impl Strategy<Value = Vec<u8>> {
        const SPECIAL: &[u8] = b"%%&&==+09afAFgz \x00\xc3\xa9\xe2\x82\xac\xff\x80";
        prop::collection::vec(
            prop_oneof![2 => any::<u8>(), 3 => prop::sample::select(SPECIAL)],
            0..128,
        )
    }

    /// Names and values: arbitrary Unicode (control characters included),
    /// biased towards the form syntax's own characters, often empty.
    fn text() -> impl Strategy<Value = String> {
        const SPECIAL: &[char] = &[
            '&', '=', '+', '%', ' ', ';', '#', '?', '*', '-', '.', '_', '~', '\0', '\t', '\n',
            '\r', '\u{1f}', '\u{7f}', 'é', '\u{FEFF}', '\u{FFFD}', '\u{FFFF}', '😀',
        ];
        prop::collection::vec(
            prop_oneof![
                3 => prop::sample::select(SPECIAL),
                2 => prop::char::range('0', 'z'),
                1 => any::<char>(),
            ],
            0..12,
        )
        .prop_map(String::from_iter)
    }

    /// Bytes biased towards JSON syntax.
    fn json_bytes() -> impl Strategy<Value = Vec<u8>> {
        const SPECIAL: &[u8] = b"{}[]\":,\\ 0123456789-+.eEtruefalsnu\x00\xff";
        prop::collection::vec(
            prop_oneof![1 => any::<u8>(), 4 => prop::sample::select(SPECIAL)],
            0..128,
        )
    }

    /// JSON values whose numbers `serde_json` writes in the form it reads
    /// them back in (integers).
    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((text(), inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        /// Any bytes give `Ok` or `Err`, never a panic; what is accepted
        /// is a list of string pairs that, encoded again, parses to the
        /// same pairs.
        #[test]
        fn form_never_panics_and_accepted_input_reencodes(input in form_bytes()) {
            if super::tests::parsed("", &input, "body").is_ok() {
                let pairs = texts(&input);
                prop_assert_eq!(texts(encode(&pairs).as_bytes()), pairs);
            }
        }

        /// Whatever the bytes, the pairs (read in the input where they
        /// were not decoded) or the error are exactly those of the parser
        /// that decoded every name and value into a string of its own.
        #[test]
        fn ranges_read_what_decoding_everything_reads(input in form_bytes()) {
            let parsed = super::tests::parsed("held", &input, "query string");
            prop_assert_eq!(parsed, reference(&input, "query string"));
        }

        /// What a standard encoder writes parses back to exactly the pairs
        /// encoded, in order, repeated names included, whatever the text.
        ///
        /// Nothing is lost: the encoder writes every pair as `name=value`
        /// (a pair with an empty name and value as `=`, which the parser
        /// reads as that pair) and joins them with one `&`, so none of the
        /// forms the parser reads differently ever occurs in its output
        /// (an empty part from `&&` or a leading or trailing `&` is
        /// skipped; a bare `name` without `=` reads as an empty value).
        #[test]
        fn encoded_pairs_round_trip(pairs in prop::collection::vec((text(), text()), 0..8)) {
            prop_assert_eq!(texts(encode(&pairs).as_bytes()), pairs);
        }

        /// Every byte of the names and values written as a percent escape,
        /// with upper- or lower-case hexadecimal digits, decodes to the
        /// same pairs: escapes are decoded exactly once.
        #[test]
        fn fully_percent_encoded_pairs_round_trip(
            pairs in prop::collection::vec((text(), text()), 0..6),
            upper in any::<bool>(),
        ) {
            let escape = |text: &str| -> String {
                text.bytes()
                    .map(|byte| if upper { format!("%{byte:02X}") } else { format!("%{byte:02x}") })
                    .collect()
            };
            let input = pairs
                .iter()
                .map(|(name, value)| format!("{}={}", escape(name), escape(value)))
                .collect::<Vec<_>>()
                .join("&");
            prop_assert_eq!(texts(input.as_bytes()), pairs);
        }

        /// Any bytes give `Ok` or `Err`, never a panic.
        #[test]
        fn json_never_panics(input in json_bytes()) {
            let _ = parse_json(&input);
        }

        /// A JSON object's members become the parameters, in order; numbers
        /// and booleans become the text `serde_json` writes for them, and
        /// everything else stays as it was, whatever the names (the one
        /// `serde_json` reserves included: see
        /// `a_reserved_member_name_is_an_ordinary_parameter`).
        #[test]
        fn json_objects_become_parameters(
            members in prop::collection::vec((text(), json_value()), 0..8),
        ) {
            let object: Map<String, Value> = members.into_iter().collect();
            let body = serde_json::to_vec(&object).unwrap();
            let expected: Vec<(String, Value)> = object
                .into_iter()
                .map(|(name, value)| {
                    let value = match value {
                        Value::Number(n) => Value::String(n.to_string()),
                        Value::Bool(b) => Value::String(b.to_string()),
                        other => other,
                    };
                    (name, value)
                })
                .collect();
            prop_assert_eq!(parse_json(&body).unwrap(), expected);
        }
    }
}
