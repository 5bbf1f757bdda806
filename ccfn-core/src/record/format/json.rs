//! JSON lines: one object per record, written straight from its fields.

use crate::record::entry::Entry;
use crate::record::scope::JsonIdentity;
use crate::text::json::push_str;

/// Writes `entry` as one JSON object (without the final newline); returns
/// where its message begins (`,"message":`): what comes before is the
/// time, the level, who wrote it and the step.
pub(crate) fn write(entry: &Entry<'_>, out: &mut String) -> usize {
    // Most of a line's strings are its header's: ccfn's own plain text
    // is copied, not scanned, and the keys and quotes around it are
    // copied with their neighbours, a few pieces per line.
    if entry.plain_header {
        debug_assert!([entry.timestamp, entry.level, entry.step]
            .iter()
            .all(|text| !text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\')));
        if entry.json.opening.is_empty() {
            out.push_str("{\"timestamp\":\"");
            out.push_str(entry.timestamp);
        } else {
            out.push_str(entry.json.opening);
        }
        match level_member(entry.level) {
            Some(member) => out.push_str(member),
            None => {
                out.push_str("\",\"level\":\"");
                out.push_str(entry.level);
                out.push('"');
            }
        }
    } else {
        out.push_str("{\"timestamp\":");
        push_str(out, entry.timestamp);
        out.push_str(",\"level\":");
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
    // A record's own `call_sid` field takes its place.
    written.write(out, entry.own_call_sid);
    let message;
    if entry.plain_header && !entry.json.step.is_empty() {
        message = out.len() + entry.json.step.len() - MESSAGE_KEY.len();
        out.push_str(entry.json.step);
    } else if entry.plain_header {
        out.push_str(",\"step\":\"");
        out.push_str(entry.step);
        message = out.len() + 1;
        out.push_str("\",\"message\":");
    } else {
        out.push_str(",\"step\":");
        push_str(out, entry.step);
        message = out.len();
        out.push_str(MESSAGE_KEY);
    }
    if entry.json.plain_message {
        debug_assert!(!entry
            .message
            .bytes()
            .any(|b| b < 0x20 || b == b'"' || b == b'\\'));
        out.push('"');
        out.push_str(entry.message);
        out.push('"');
    } else {
        push_str(out, entry.message);
    }
    entry.fields.write_json(out);
    out.push('}');
    message
}

/// The message's key, with the comma before it.
const MESSAGE_KEY: &str = ",\"message\":";

/// What follows a plain time for one of `tracing`'s levels: the time's
/// closing quote and the level's member, in one piece.
fn level_member(level: &str) -> Option<&'static str> {
    Some(match level {
        "INFO" => "\",\"level\":\"INFO\"",
        "WARN" => "\",\"level\":\"WARN\"",
        "ERROR" => "\",\"level\":\"ERROR\"",
        "DEBUG" => "\",\"level\":\"DEBUG\"",
        "TRACE" => "\",\"level\":\"TRACE\"",
        _ => return None,
    })
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
                assert!(
                    crate::record::value::is_plain(name),
                    "{}: {name}",
                    step.name()
                );
            }
        }
        assert!(!crate::record::value::is_plain("odd \"name\""));
    }

    /// A line written from the pieces made before its record (its
    /// opening with the time, its step with the message's key) is the
    /// line written piece by piece, its message at the same place.
    #[test]
    fn a_line_from_pieces_made_before_is_the_same_line() {
        use crate::record::entry::{Entry, Identity, JsonHead};
        let fields = crate::record::value::Members(std::iter::empty());
        let time = "2026-11-26T10:00:00.000Z";
        let opening = format!("{{\"timestamp\":\"{time}");
        for step in crate::record::ALL {
            let entry = |json| Entry {
                json,
                step: step.name(),
                ..Entry::log(time, Identity::default(), "m \"q\"", &fields, true)
            };
            let (mut plain, mut pieces) = (String::new(), String::new());
            let at = super::write(&entry(JsonHead::default()), &mut plain);
            let head = JsonHead {
                opening: &opening,
                step: step.json_member(),
                plain_message: false,
            };
            assert_eq!(
                super::write(&entry(head), &mut pieces),
                at,
                "{}",
                step.name()
            );
            assert_eq!(pieces, plain);
            assert!(plain[at..].starts_with(",\"message\":"), "{plain}");
        }
    }

    /// A fixed message, known to need no escaping, is written as it
    /// would be escaped; one that would need it is not a fixed message.
    #[test]
    fn a_fixed_message_is_written_as_escaped() {
        use crate::record::entry::Message;
        use crate::record::entry::{Entry, Identity, JsonHead};
        let fields = crate::record::value::Members(std::iter::empty());
        const FIXED: Message<'static> = Message::fixed("Voice response as first built");
        let (mut escaped, mut copied) = (String::new(), String::new());
        for (plain_message, out) in [(false, &mut escaped), (true, &mut copied)] {
            let entry = Entry {
                json: JsonHead {
                    plain_message,
                    ..JsonHead::default()
                },
                ..Entry::log("t", Identity::default(), FIXED.text, &fields, true)
            };
            super::write(&entry, out);
        }
        assert_eq!(copied, escaped);
        for text in ["a \"quoted\" one", "a \\ one", "a\nline"] {
            assert!(
                std::panic::catch_unwind(|| Message::fixed(text)).is_err(),
                "{text:?}"
            );
        }
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
