//! Entry points for the fuzz targets in `fuzz/`: thin public wrappers over
//! crate-internal parsers and writers. Compiled only when fuzzing (`cargo
//! fuzz` builds with `--cfg fuzzing`); not part of the public API.

use serde_json::Value;

/// Parses an `application/x-www-form-urlencoded` body into ordered
/// `(name, value)` pairs, as the runtime does.
///
/// # Errors
/// A malformed percent escape, or a name or value that is not UTF-8 once
/// decoded.
pub fn parse_form(input: &[u8]) -> Result<Vec<(String, String)>, String> {
    let mut sent = String::new();
    let pairs = crate::runtime::parse_form(input, "body", &mut sent)?;
    Ok(pairs
        .into_iter()
        .map(|(name, value)| (name.get(&sent).to_owned(), value.get(&sent).to_owned()))
        .collect())
}

/// Parses a JSON body into parameters, as the runtime does.
///
/// # Errors
/// Not JSON, or JSON that is not an object.
pub fn parse_json(input: &[u8]) -> Result<Vec<(String, Value)>, String> {
    crate::runtime::parse_json(input)
}

/// `text` as a JSON string, written by the log writer's string escaper.
pub fn json_string(text: &str) -> Vec<u8> {
    let mut out = String::new();
    crate::text::json::push_str(&mut out, text);
    out.into_bytes()
}

/// `value` as compact JSON, written by the log writer.
pub fn json_value(value: &Value) -> Vec<u8> {
    let mut out = String::new();
    crate::text::json::push_value(&mut out, value);
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_points_read_and_write_as_the_runtime_and_the_log_writer_do() {
        let pairs = parse_form(b"CallSid=CA1&Body=caf%C3%A9+au+lait&Body=2").unwrap();
        assert_eq!(
            pairs,
            [
                ("CallSid".to_owned(), "CA1".to_owned()),
                ("Body".to_owned(), "café au lait".to_owned()),
                ("Body".to_owned(), "2".to_owned()),
            ]
        );
        assert!(parse_form(b"a=%zz").is_err());
        assert_eq!(parse_json(br#"{"a":1}"#).unwrap()[0].0, "a");
        assert_eq!(json_string("a\"b"), br#""a\"b""#);
        assert_eq!(json_value(&serde_json::json!([1, "x"])), br#"[1,"x"]"#);
    }
}
