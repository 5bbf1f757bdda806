//! How a listing is shown: columns or fields read through the types of
//! [`crate::resources`], or the items as JSON; redacted, phone numbers
//! masked when asked, every secret scrubbed.

use super::*;

/// `item`, with its sensitive fields redacted, read as a `T`.
pub(super) fn typed<T: DeserializeOwned>(resource: &str, item: &Value) -> Result<T, Problem> {
    let mut item = item.clone();
    redact(&mut item);
    Ok(resources::parse(resource, item)?)
}

/// Each of `items` as a `T` (see [`typed`]).
pub(super) fn typed_all<T: DeserializeOwned>(
    resource: &str,
    items: &[Value],
) -> Result<Vec<T>, Problem> {
    items.iter().map(|item| typed(resource, item)).collect()
}

/// Prints one item as `label  value` lines, or as JSON.
pub(super) fn show<T: DeserializeOwned>(
    resource: &str,
    item: &Value,
    output: &Output,
    labels: Columns<T>,
) -> Result<ExitCode, Problem> {
    if output.json {
        json_write(&Shown::new(item, output), std::slice::from_ref(item))?;
    } else {
        let item: T = typed(resource, item)?;
        text_out(&fields(&item, labels, output.mask_pii))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `label  value` lines.
pub(super) fn fields<T>(item: &T, labels: Columns<T>, mask: bool) -> String {
    let width = labels
        .iter()
        .map(|(label, _)| label.len())
        .max()
        .unwrap_or(0);
    labels
        .iter()
        .map(|(label, read)| format!("{label:<width$}  {}\n", tidy(&read(item), mask)))
        .collect()
}

/// Prints `items` as columns, or as JSON.
pub(super) fn print<T: DeserializeOwned>(
    resource: &str,
    items: &[Value],
    output: &Output,
    cols: Columns<T>,
) -> Result<ExitCode, Problem> {
    if output.json {
        let shown = ShownItems {
            items,
            mask: output.mask_pii,
        };
        json_write(&shown, items)?;
    } else {
        let items: Vec<T> = typed_all(resource, items)?;
        text_out(&columns(&items, cols, output.mask_pii))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes `value` as JSON: sensitive fields redacted, phone numbers
/// masked when asked, every secret scrubbed.
pub(super) fn json_out(value: Value, output: &Output) -> Result<(), Problem> {
    json_write(&Shown::new(&value, output), std::slice::from_ref(&value))
}

/// Writes `shown` (a view of `values`) as pretty JSON, as `{value:#}`
/// writes a value, with a newline: every secret of `values` (the value of
/// each field with a sensitive name) registered first, so that it is
/// scrubbed from all the text written, wherever else it shows.
pub(super) fn json_write(shown: &impl serde::Serialize, values: &[Value]) -> Result<(), Problem> {
    values.iter().for_each(register_sensitive);
    let mut text =
        serde_json::to_string_pretty(shown).map_err(|err| Problem::Output(err.to_string()))?;
    text.push('\n');
    crate::terminal::write_json_out(&text)
}

/// Registers with the scrubber the text value of every field with a
/// sensitive name in `value`, at any depth (as [`redact`] does, without
/// changing it).
pub(super) fn register_sensitive(value: &Value) {
    match value {
        Value::Object(map) => {
            for (name, field) in map {
                if ccfn_core::record::is_sensitive_name(name) {
                    if let Value::String(secret) = field
                        && !secret.is_empty()
                    {
                        drop(ccfn_core::Secret::new(secret.as_str()));
                    }
                } else {
                    register_sensitive(field);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(register_sensitive),
        _ => {}
    }
}

/// A value as the JSON output shows it, read from the platform's answer
/// as it is, without a copy: every non-null field with a sensitive name
/// written `[REDACTED]` (see [`redact`]), every string a phone number
/// masked when asked (see [`mask_value`]).
#[derive(Clone, Copy)]
pub(super) struct Shown<'a> {
    value: &'a Value,
    mask: bool,
}

impl<'a> Shown<'a> {
    fn new(value: &'a Value, output: &Output) -> Shown<'a> {
        Shown {
            value,
            mask: output.mask_pii,
        }
    }

    fn of(self, value: &'a Value) -> Shown<'a> {
        Shown { value, ..self }
    }
}

impl serde::Serialize for Shown<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        match self.value {
            Value::String(text) if self.mask => serializer.serialize_str(&mask_phone(text)),
            Value::Array(items) => serializer.collect_seq(items.iter().map(|item| self.of(item))),
            Value::Object(map) => {
                let mut out = serializer.serialize_map(Some(map.len()))?;
                for (name, field) in map {
                    if ccfn_core::record::is_sensitive_name(name) && !field.is_null() {
                        out.serialize_entry(name, ccfn_core::record::REDACTED)?;
                    } else {
                        out.serialize_entry(name, &self.of(field))?;
                    }
                }
                out.end()
            }
            other => other.serialize(serializer),
        }
    }
}

/// Items as the JSON output shows them: an array of each [`Shown`].
pub(super) struct ShownItems<'a> {
    items: &'a [Value],
    mask: bool,
}

impl serde::Serialize for ShownItems<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.items.iter().map(|value| Shown {
            value,
            mask: self.mask,
        }))
    }
}

/// Writes `text` with every secret value this process knows (the
/// credentials, the environment's secrets, any the platform returned)
/// replaced by `[REDACTED]`, and its control characters escaped.
pub(super) fn text_out(text: &str) -> Result<(), Problem> {
    write_out(text)
}

/// Replaces the value of every field with a sensitive name (the
/// account's `auth_token`, a `secret`, a `password`...) with
/// `[REDACTED]`, registering it so that it is scrubbed wherever else it
/// shows.
pub(super) fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (name, field) in map.iter_mut() {
                if ccfn_core::record::is_sensitive_name(name) {
                    if let Value::String(secret) = field
                        && !secret.is_empty()
                    {
                        drop(ccfn_core::Secret::new(secret.as_str()));
                    }
                    if !field.is_null() {
                        *field = Value::from(ccfn_core::record::REDACTED);
                    }
                } else {
                    redact(field);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

/// A cell's text on one line (whatever the platform wrote), its phone
/// number masked when asked.
pub(super) fn tidy(text: &str, mask: bool) -> String {
    let text = if text.is_empty() { "-" } else { text };
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if mask {
        mask_phone(&text)
    } else {
        text
    }
}

/// Columns aligned on the widest cell, a header first.
pub(super) fn columns<T>(items: &[T], cols: Columns<T>, mask: bool) -> String {
    let rows: Vec<Vec<String>> = items
        .iter()
        .map(|item| {
            cols.iter()
                .map(|(_, read)| tidy(&read(item), mask))
                .collect()
        })
        .collect();
    let widths: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, (header, _))| {
            rows.iter()
                .map(|row| row[i].chars().count())
                .chain([header.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let mut line = |cells: Vec<&str>| {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                text.push_str(&format!("{cell:<width$}  ", width = widths[i]));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(cols.iter().map(|(header, _)| *header).collect());
    for row in &rows {
        line(row.iter().map(String::as_str).collect());
    }
    out
}

/// A phone number with all but its last four digits masked; anything
/// else as it is.
pub(crate) fn mask_phone(text: &str) -> String {
    let is_phone =
        text.starts_with('+') && text.len() >= 8 && text[1..].bytes().all(|b| b.is_ascii_digit());
    if !is_phone {
        return text.to_owned();
    }
    let keep = text.len() - 4;
    format!("+{}{}", "•".repeat(keep - 1), &text[keep..])
}

/// Masks every phone number in `value`.
pub(super) fn mask_value(value: &mut Value) {
    match value {
        Value::String(text) => *text = mask_phone(text),
        Value::Array(items) => items.iter_mut().for_each(mask_value),
        Value::Object(map) => map.values_mut().for_each(mask_value),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn phone_numbers_are_masked_and_nothing_else() {
        assert_eq!(mask_phone("+15551230000"), "+•••••••0000");
        assert_eq!(mask_phone("+1555"), "+1555");
        assert_eq!(mask_phone("CA123"), "CA123");
        assert_eq!(mask_phone("+1 555 123"), "+1 555 123");
        let mut value = json!({"from": "+15551230000", "list": ["+445551230001", 3]});
        mask_value(&mut value);
        assert_eq!(
            value,
            json!({"from": "+•••••••0000", "list": ["+••••••••0001", 3]})
        );
    }

    #[test]
    fn columns_align_and_stay_on_one_line() {
        let items: Vec<Call> = typed_all(
            "calls",
            &[
                json!({"sid": "CA1", "status": "failed", "to": "+15551230000"}),
                json!({"sid": "CA22", "status": "line\nbreak", "to": null}),
            ],
        )
        .unwrap();
        let cols: Columns<Call> = &[
            ("SID", |c| opt(&c.sid)),
            ("STATUS", |c| c.status.clone()),
            ("TO", |c| opt(&c.to)),
        ];
        assert_eq!(
            columns(&items, cols, true),
            "SID   STATUS      TO\nCA1   failed      +•••••••0000\nCA22  line break  -\n"
        );
    }

    /// The JSON written from the items as they are is, byte for byte,
    /// the JSON of a redacted and masked copy: on hostile values
    /// (sensitive fields of every type and depth, nulls, phone numbers in
    /// arrays, control characters, non-ASCII, big numbers, empty
    /// containers), masked and not.
    #[test]
    fn json_shown_without_a_copy_is_the_json_of_the_redacted_copy() {
        let items = vec![
            json!({
                "sid": "CA1", "auth_token": "tok-1", "api_key": null,
                "nested": {"Password": {"deep": 1}, "list": [{"secret": ["a"]}, "+15551230000"]},
                "from": "+15551230000", "text": "esc \u{1b}]52;c;aGk=\u{7} \u{9b} é ☎ \"q\"",
                "n": 12345678901234567890u64, "f": 0.5, "neg": -3, "b": true,
                "empty": {}, "none": [], "signature": "",
            }),
            json!([]),
            json!("+445551230001"),
            json!(null),
        ];
        for mask in [false, true] {
            let output = Output {
                json: true,
                mask_pii: mask,
            };
            let mut copy = Value::Array(items.clone());
            redact(&mut copy);
            if mask {
                mask_value(&mut copy);
            }
            let shown = ShownItems {
                items: &items,
                mask,
            };
            assert_eq!(
                serde_json::to_string_pretty(&shown).unwrap(),
                format!("{copy:#}"),
                "mask {mask}"
            );
            assert_eq!(
                serde_json::to_string_pretty(&ShownItems { items: &[], mask }).unwrap(),
                format!("{:#}", json!([]))
            );
            for item in &items {
                let mut copy = item.clone();
                redact(&mut copy);
                if mask {
                    mask_value(&mut copy);
                }
                assert_eq!(
                    serde_json::to_string_pretty(&Shown::new(item, &output)).unwrap(),
                    format!("{copy:#}")
                );
            }
        }
    }
}
