//! Strict parsing of form bodies and query strings.

use serde_json::Value;

/// Parses `application/x-www-form-urlencoded` text into ordered pairs,
/// decoding `+` and percent escapes exactly once.
///
/// # Errors
/// A `%` not followed by two hexadecimal digits, or a name or value that
/// is not UTF-8 once decoded; the message says which and where.
pub(crate) fn parse_form(input: &[u8], what: &str) -> Result<Vec<(String, Value)>, String> {
    let mut pairs = Vec::new();
    for (index, part) in input.split(|b| *b == b'&').enumerate() {
        if part.is_empty() {
            continue;
        }
        let (name, value) = match part.iter().position(|b| *b == b'=') {
            Some(at) => (&part[..at], &part[at + 1..]),
            None => (part, &part[..0]),
        };
        let name =
            decode(name).map_err(|e| format!("{what}: pair {} has {e} in its name", index + 1))?;
        let value = decode(value).map_err(|e| {
            format!(
                "{what}: parameter `{}` has {e}",
                super::handler::echo(&name)
            )
        })?;
        pairs.push((name, Value::String(value)));
    }
    Ok(pairs)
}

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
                        out.push(u8::try_from(high * 16 + low).unwrap_or(b'?'));
                        at += 2;
                    }
                    _ => {
                        let escape = String::from_utf8_lossy(&bytes[at..bytes.len().min(at + 3)])
                            .into_owned();
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

/// Parses a JSON body: an object whose members become parameters.
///
/// # Errors
/// Not JSON, or JSON that is not an object.
pub(crate) fn parse_json(input: &[u8]) -> Result<Vec<(String, Value)>, String> {
    match serde_json::from_slice::<Value>(input) {
        // Numbers and booleans become the text they were sent as, as the
        // platform's form parameters are; objects and arrays stay JSON.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(input: &str) -> Vec<(String, String)> {
        parse_form(input.as_bytes(), "body")
            .unwrap()
            .into_iter()
            .map(|(k, v)| (k, v.as_str().unwrap().to_owned()))
            .collect()
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
            parse_form(b"CallSid=CA1&To=%2", "body").unwrap_err(),
            "body: parameter `To` has a malformed percent escape `%2` (expected `%` and two hexadecimal digits)"
        );
        assert_eq!(
            parse_form(b"To=%zz1", "query string").unwrap_err(),
            "query string: parameter `To` has a malformed percent escape `%zz` (expected `%` and two hexadecimal digits)"
        );
        assert_eq!(
            parse_form(b"Name=%FF%FE", "body").unwrap_err(),
            "body: parameter `Name` has bytes that are not UTF-8"
        );
        assert_eq!(
            parse_form(b"ok=1&\xff=2", "body").unwrap_err(),
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
