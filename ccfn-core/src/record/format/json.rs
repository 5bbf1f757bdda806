//! JSON lines: one object per record, written straight from its fields.

use crate::record::entry::Entry;
use crate::record::scope::JsonIdentity;
use crate::text::json::push_str;

/// Whether `name` needs no escaping in JSON, tested in one pass.
fn is_plain(name: &str) -> bool {
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

/// Writes `entry` as one JSON object (without the final newline); returns
/// where its message begins (`,"message":`): what comes before is the
/// time, the level, who wrote it and the step.
pub(crate) fn write(entry: &Entry<'_>, out: &mut String) -> usize {
    // Most of a line's strings are its header's: ccfn's own plain text
    // is copied, not scanned.
    let plain = |out: &mut String, text: &str| {
        debug_assert!(!text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\'));
        out.push('"');
        out.push_str(text);
        out.push('"');
    };
    out.push_str("{\"timestamp\":");
    if entry.plain_header {
        plain(out, entry.timestamp);
    } else {
        push_str(out, entry.timestamp);
    }
    out.push_str(",\"level\":");
    if entry.plain_header {
        plain(out, entry.level);
    } else {
        push_str(out, entry.level);
    }
    let identity = &entry.identity;
    let rendered;
    let written = match identity.invocation {
        Some(invocation) => invocation.json(),
        None => {
            rendered = JsonIdentity::new(
                identity.function,
                identity.invocation_id,
                identity.call_sid,
                identity.lambda,
            );
            &rendered
        }
    };
    out.push_str(&written.function_and_id);
    // A record's own `call_sid` field takes its place.
    if !entry.own_call_sid {
        out.push_str(&written.call_sid);
    }
    out.push_str(&written.lambda);
    out.push_str(",\"step\":");
    if entry.plain_header {
        plain(out, entry.step);
    } else {
        push_str(out, entry.step);
    }
    let message = out.len();
    out.push_str(",\"message\":");
    push_str(out, entry.message);
    if entry.fields.plain_names() {
        entry.fields.each(&mut |name, value| {
            debug_assert!(is_plain(name), "{name}");
            out.push_str(",\"");
            out.push_str(name);
            out.push_str("\":");
            value.write_json(out);
        });
    } else {
        entry.fields.each(&mut |name, value| {
            push_name(out, name);
            value.write_json(out);
        });
    }
    out.push('}');
    message
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Map, Value};

    use crate::record::LogFormat;

    /// Every catalogue record says its names are plain, which lets its
    /// line skip the test: so they must be.
    #[test]
    fn every_catalogue_field_name_is_plain() {
        for step in crate::record::ALL {
            for name in step.fields().iter().chain(step.optional()) {
                assert!(super::is_plain(name), "{}: {name}", step.name());
            }
        }
        assert!(!super::is_plain("odd \"name\""));
    }

    #[test]
    fn json_is_one_line_with_nested_objects() {
        let record = json!({
            "timestamp": "2026-11-21T20:35:01.123Z",
            "level": "INFO",
            "step": "start",
            "message": "m \"quoted\"",
            "event": {"From": "+1"},
            "odd \"name\"": 1
        });
        let text = LogFormat::Json.render(record.as_object().unwrap());
        assert_eq!(
            text,
            r#"{"timestamp":"2026-11-21T20:35:01.123Z","level":"INFO","step":"start","message":"m \"quoted\"","event":{"From":"+1"},"odd \"name\"":1}"#
        );
        let parsed: Map<String, Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(&parsed, record.as_object().unwrap());
    }
}
