//! Stable placeholders for what changes from run to run.

use insta::internals::Content;
use serde_json::Value;

use crate::run::Record;

/// Fields replaced whatever their value: the catalogue's fields whose
/// values vary from run to run.
const ALWAYS: [(&str, &str); 6] = ccfn_core::record::VARYING_FIELDS;

/// A copy of `record` with what changes from run to run replaced by the
/// placeholders of [`Run::snapshot`](crate::Run::snapshot): times, ids,
/// durations, memory, measured alert values, code locations and loopback
/// ports. For records captured another way, such as a
/// [`LogBuffer`](crate::LogBuffer) behind a whole runtime.
///
/// ```
/// use serde_json::json;
///
/// let line = json!({
///     "timestamp": "2026-11-21T21:01:10.510Z",
///     "level": "INFO",
///     "step": "runtime",
///     "message": "listening on http://127.0.0.1:41234",
/// });
/// let redacted = ccfn_testkit::redact(line.as_object().unwrap());
/// assert_eq!(
///     serde_json::Value::Object(redacted).to_string(),
///     r#"{"timestamp":"[timestamp]","level":"INFO","step":"runtime","message":"listening on http://127.0.0.1:[port]"}"#
/// );
/// ```
#[must_use]
pub fn record(record: &Record) -> Record {
    let mut out = record.clone();
    for (key, placeholder) in ALWAYS {
        if let Some(value) = out.get_mut(key)
            && !value.is_null()
        {
            *value = Value::from(placeholder);
        }
    }
    let measured = matches!(
        out.get("kind").and_then(Value::as_str),
        Some("execution_time" | "memory" | "api_response_time" | "error_rate" | "response_size")
    );
    if out.get("step").and_then(Value::as_str) == Some("alert") && measured {
        out.insert("value".into(), Value::from("[measured]"));
        if let Some(Value::String(message)) = out.get_mut("message") {
            *message = redact_numbers(message);
        }
    }
    if let Some(Value::String(stack)) = out.get_mut("stack") {
        *stack = redact_stack(stack);
    }
    for value in out.values_mut() {
        redact_ports(value);
    }
    out
}

/// Replaces the port of every loopback address in every string, at any
/// depth (`127.0.0.1:41234` becomes `127.0.0.1:[port]`): the fakes listen
/// on a free port, a different one every run.
fn redact_ports(value: &mut Value) {
    match value {
        Value::String(text) if text.contains("127.0.0.1:") || text.contains("[::1]:") => {
            *text = loopback_ports(text);
        }
        Value::Array(items) => items.iter_mut().for_each(redact_ports),
        Value::Object(members) => members.values_mut().for_each(redact_ports),
        _ => {}
    }
}

/// `text` with the digits after each `127.0.0.1:` and `[::1]:` replaced
/// by `[port]`.
fn loopback_ports(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = ["127.0.0.1:", "[::1]:"]
            .iter()
            .filter_map(|host| rest.find(host).map(|at| (at, host.len())))
            .min();
        let Some((at, len)) = next else {
            out.push_str(rest);
            return out;
        };
        let after = &rest[at + len..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        out.push_str(&rest[..at + len]);
        if digits > 0 {
            out.push_str("[port]");
        }
        rest = &after[digits..];
    }
}

/// `insta` settings that make structured snapshots
/// (`assert_json_snapshot!`, `assert_yaml_snapshot!`, ...) as stable as
/// [`Run::snapshot`](crate::Run::snapshot), through insta's own
/// redactions, on top of the settings in force:
///
/// - a member named after a field that varies from run to run, at any
///   depth, is replaced unless it is null: `timestamp` by `[timestamp]`,
///   `invocation_id` by `[invocation_id]`, `execution_ms` and `elapsed_ms`
///   by `[ms]`, `memory_bytes` and `memory_limit_bytes` by `[bytes]`;
/// - the port of every loopback address (`127.0.0.1`, `[::1]`) in any string, however deep, becomes `[port]`.
///
/// Add your own redactions to what it returns, then bind it around the
/// assertion:
///
/// ```
/// use serde_json::json;
///
/// let reply = json!({
///     "callback_url": "http://127.0.0.1:41234/calls/CA1",
///     "invocation_id": "5f2c0a9e41b7d3a800000001",
///     "queued_at": "2026-11-21T20:35:01Z",
/// });
/// let mut settings = ccfn_testkit::snapshot_settings();
/// settings.add_redaction(".queued_at", "[time]");
/// settings.bind(|| {
///     insta::assert_json_snapshot!(reply, @r#"
///     {
///       "callback_url": "http://127.0.0.1:[port]/calls/CA1",
///       "invocation_id": "[invocation_id]",
///       "queued_at": "[time]"
///     }
///     "#);
/// });
/// ```
#[must_use]
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    for (key, placeholder) in ALWAYS {
        settings.add_dynamic_redaction(&format!(".**.{key}"), move |content, _| match content {
            Content::None | Content::Unit => content,
            _ => Content::from(placeholder),
        });
    }
    settings.add_dynamic_redaction(".", |content, _| content_ports(content));
    settings
}

/// Every string in `content`, however deep, map keys included, with its
/// loopback ports replaced.
fn content_ports(content: Content) -> Content {
    let seq = |items: Vec<Content>| items.into_iter().map(content_ports).collect();
    let fields = |fields: Vec<(&'static str, Content)>| {
        fields
            .into_iter()
            .map(|(name, value)| (name, content_ports(value)))
            .collect()
    };
    match content {
        Content::String(text) if text.contains("127.0.0.1:") || text.contains("[::1]:") => {
            Content::String(loopback_ports(&text))
        }
        Content::Some(inner) => Content::Some(Box::new(content_ports(*inner))),
        Content::NewtypeStruct(name, inner) => {
            Content::NewtypeStruct(name, Box::new(content_ports(*inner)))
        }
        Content::NewtypeVariant(name, index, variant, inner) => {
            Content::NewtypeVariant(name, index, variant, Box::new(content_ports(*inner)))
        }
        Content::Seq(items) => Content::Seq(seq(items)),
        Content::Tuple(items) => Content::Tuple(seq(items)),
        Content::TupleStruct(name, items) => Content::TupleStruct(name, seq(items)),
        Content::TupleVariant(name, index, variant, items) => {
            Content::TupleVariant(name, index, variant, seq(items))
        }
        Content::Map(entries) => Content::Map(
            entries
                .into_iter()
                .map(|(key, value)| (content_ports(key), content_ports(value)))
                .collect(),
        ),
        Content::Struct(name, members) => Content::Struct(name, fields(members)),
        Content::StructVariant(name, index, variant, members) => {
            Content::StructVariant(name, index, variant, fields(members))
        }
        other => other,
    }
}

/// Keeps the stack's messages and causes; drops the backtrace (present
/// only when `CCFN_BACKTRACE` is `on`) and the line and column of a
/// panic location and of where the error arose (`at file:line:column`).
fn redact_stack(stack: &str) -> String {
    let mut lines = Vec::new();
    for line in stack.lines() {
        if line == "backtrace:" {
            break;
        }
        let marker = if line.starts_with("at ") {
            Some((0, "at "))
        } else {
            line.find("panicked at ").map(|at| (at, "panicked at "))
        };
        lines.push(match marker {
            Some((at, marker)) => {
                let location = &line[at + marker.len()..];
                let file = location.split(':').next().unwrap_or(location);
                format!("{}{marker}{file}:[line]:[column]", &line[..at])
            }
            None => line.to_owned(),
        });
    }
    lines.join("\n")
}

/// Replaces every run of digits (and decimal point) with `[n]`.
fn redact_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_number = false;
    for c in text.chars() {
        if c.is_ascii_digit() || (in_number && c == '.') {
            if !in_number {
                out.push_str("[n]");
                in_number = true;
            }
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_replace_what_changes() {
        let record = json!({
            "timestamp": "2026-11-21T20:35:01.123Z",
            "invocation_id": "abc",
            "step": "metrics",
            "execution_ms": 1.25,
            "memory_bytes": 1234,
            "memory_limit_bytes": null,
        });
        let redacted = super::record(record.as_object().unwrap());
        assert_eq!(
            Value::Object(redacted),
            json!({
                "timestamp": "[timestamp]",
                "invocation_id": "[invocation_id]",
                "step": "metrics",
                "execution_ms": "[ms]",
                "memory_bytes": "[bytes]",
                "memory_limit_bytes": null,
            })
        );
    }

    #[test]
    fn loopback_ports_are_replaced_at_any_depth() {
        let record = json!({
            "step": "api_request",
            "message": "API request: GET http://127.0.0.1:41234/v1/x",
            "url": "http://[::1]:8080/y?next=http://127.0.0.1:9/z",
            "data": { "links": ["127.0.0.1:", "localhost:3001", 127] },
        });
        let redacted = super::record(record.as_object().unwrap());
        assert_eq!(
            Value::Object(redacted),
            json!({
                "step": "api_request",
                "message": "API request: GET http://127.0.0.1:[port]/v1/x",
                "url": "http://[::1]:[port]/y?next=http://127.0.0.1:[port]/z",
                "data": { "links": ["127.0.0.1:", "localhost:3001", 127] },
            })
        );
    }

    #[test]
    fn snapshot_settings_redact_through_insta() {
        let reply = json!({
            "links": { "next": "http://127.0.0.1:41234/page/2" },
            "timestamp": "2026-11-21T20:35:01.123Z",
            "elapsed_ms": null,
            "queued": 3,
        });
        let mut settings = snapshot_settings();
        settings.add_redaction(".queued", "[count]");
        settings.bind(|| {
            insta::assert_json_snapshot!(reply, @r#"
            {
              "links": {
                "next": "http://127.0.0.1:[port]/page/2"
              },
              "timestamp": "[timestamp]",
              "elapsed_ms": null,
              "queued": "[count]"
            }
            "#);
        });
    }

    #[test]
    fn alert_values_and_panic_locations() {
        let alert = json!({"step": "alert", "kind": "execution_time", "value": 31.5, "threshold": 10.0,
            "message": "ALERT: f took 32 ms, over the 10 ms threshold"});
        let redacted = super::record(alert.as_object().unwrap());
        assert_eq!(redacted["value"], "[measured]");
        assert_eq!(redacted["threshold"], 10.0);
        assert_eq!(
            redacted["message"],
            "ALERT: f took [n] ms, over the [n] ms threshold"
        );
        assert_eq!(
            redact_stack("panic: boom\ncaused by: panicked at src/lib.rs:10:5\nbacktrace:\n  0: x"),
            "panic: boom\ncaused by: panicked at src/lib.rs:[line]:[column]"
        );
        assert_eq!(
            redact_stack(
                "function: no digits\ncaused by: x\nat src/lib.rs:42:17\nbacktrace:\n  0: x"
            ),
            "function: no digits\ncaused by: x\nat src/lib.rs:[line]:[column]"
        );
    }
}
