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
    let pairs = crate::runtime::parse_form(input, "body")?;
    Ok(pairs
        .into_iter()
        .map(|(name, value)| match value {
            Value::String(value) => (name, value),
            other => panic!("the form value {other} of {name:?} is not a string"),
        })
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
