//! The human format: one line per record (brief), or the header line and
//! each field on a line of its own (full), never a raw control character.

use std::fmt::Write as _;

use crate::record::entry::{Entry, LAMBDA_KEYS};
use crate::record::value::{FieldValue, Shape};
use crate::text::{push_clean, push_one_line};

/// One line: the time of day (the whole timestamp when `dated`), level,
/// function, invocation id, step and message, then the fields the step
/// marks as headline (every field of an open step's record, or of a step
/// the catalogue does not know); on Lambda, a `start` line also shows the
/// request id and the cold start.
pub(super) fn write_brief(entry: &Entry<'_>, dated: bool, out: &mut String) {
    let also = entry.identity.secrets();
    // `2026-11-21T20:35:01.123Z` becomes `20:35:01.123Z`, unless dated.
    let time = if dated {
        entry.timestamp
    } else {
        entry
            .timestamp
            .split_once('T')
            .map_or(entry.timestamp, |(_, time)| time)
    };
    let _ = write!(
        out,
        "{time} {:<5} {} {} [{}]",
        entry.level,
        entry.identity.function.unwrap_or(""),
        entry.identity.invocation_id.unwrap_or(""),
        entry.step,
    );
    if !entry.message.is_empty() {
        out.push(' ');
        push_brief_text(out, entry.message, also);
    }
    let starts = entry.step == "start";
    if let Some(lambda) = entry.identity.lambda.filter(|_| starts) {
        brief_field(out, LAMBDA_KEYS[0], &lambda.request_id.as_str(), also);
        brief_field(out, LAMBDA_KEYS[1], &lambda.cold_start, also);
    }
    let step = crate::record::catalogue::step(entry.step);
    // `call_sid` is every record's, shown only where the step marks it
    // (`caller`); a record read back has it among its fields.
    let shown = |key: &str| match step {
        // The Lambda invocation is shown where it starts.
        _ if LAMBDA_KEYS.contains(&key) => starts,
        Some(step) if step.headline().contains(&key) => true,
        _ if key == "call_sid" => false,
        Some(step) => step.is_open(),
        None => true,
    };
    entry.fields.each(&mut |key, value| {
        if shown(key) {
            brief_field(out, key, value, also);
        }
    });
}

/// Every field: the header line, then each field on its own line.
pub(super) fn write_full(entry: &Entry<'_>, out: &mut String) {
    let also = entry.identity.secrets();
    let _ = write!(
        out,
        "{} {:<5} {} {} [{}] ",
        entry.timestamp,
        entry.level,
        entry.identity.function.unwrap_or(""),
        entry.identity.invocation_id.unwrap_or(""),
        entry.step,
    );
    push_escaped(out, entry.message, also, push_clean);
    if let Some(call_sid) = entry.identity.call_sid.filter(|_| !entry.own_call_sid) {
        full_field(out, "call_sid", &call_sid, also);
    }
    if let Some(lambda) = entry.identity.lambda {
        full_field(out, LAMBDA_KEYS[0], &lambda.request_id.as_str(), also);
        full_field(out, LAMBDA_KEYS[1], &lambda.cold_start, also);
    }
    entry
        .fields
        .each(&mut |key, value| full_field(out, key, value, also));
}

/// ` name=value`: a string bare when it has no space, quote, `=` or
/// control character, else as a JSON string; an object or an array as
/// compact JSON; anything else as in JSON. Never a line break.
fn brief_field(out: &mut String, key: &str, value: &dyn FieldValue, also: &[Box<str>]) {
    out.push(' ');
    push_brief_text(out, key, also);
    out.push('=');
    match value.shape() {
        Shape::Str(text) => {
            let bare = !text.is_empty()
                && !text
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '=' | '\\'));
            if bare {
                push_brief_text(out, text, also);
            } else {
                // Scrubbed before it is quoted: a secret with a line break
                // or a quote would no longer match afterwards.
                let mut text = text.to_owned();
                crate::secret::scrub(&mut text, also);
                let mut quoted = String::with_capacity(text.len() + 2);
                crate::text::json::push_str(&mut quoted, &text);
                push_clean(out, &quoted);
            }
        }
        Shape::Composite => {
            let mut json = String::new();
            value.write_json(&mut json);
            push_brief_text(out, &json, also);
        }
        _ => value.write_json(out),
    }
}

/// `text` on one line: with every control character, the line feed
/// included, shown escaped.
fn push_brief_text(out: &mut String, text: &str, also: &[Box<str>]) {
    push_escaped(out, text, also, push_one_line);
}

/// `text` with its control characters shown by `escape`, scrubbed first
/// when it has any: a secret would no longer match once they are escaped
/// (a tab within an XML-escaped password, a PEM's line breaks).
fn push_escaped(out: &mut String, text: &str, also: &[Box<str>], escape: fn(&mut String, &str)) {
    if text.chars().any(char::is_control) {
        let mut text = text.to_owned();
        crate::secret::scrub(&mut text, also);
        escape(out, &text);
    } else {
        out.push_str(text);
    }
}

/// `\n  name: value`: a string as itself (several lines indented), an
/// object or an array as indented JSON, anything else as in JSON.
fn full_field(out: &mut String, key: &str, value: &dyn FieldValue, also: &[Box<str>]) {
    let _ = write!(out, "\n  {key}: ");
    match value.shape() {
        Shape::Str(s) if !s.contains('\n') => push_escaped(out, s, also, push_clean),
        Shape::Str(s) => {
            // Scrubbed before it is indented line by line: a secret of
            // several lines (a PEM key) would no longer match afterwards.
            let mut s = s.to_owned();
            crate::secret::scrub(&mut s, also);
            if s.contains('\n') {
                for line in s.lines() {
                    out.push_str("\n    ");
                    push_clean(out, line);
                }
            } else {
                // Its line breaks were a secret's: it is shown as the
                // JSON line's scrubbed value is.
                push_clean(out, &s);
            }
        }
        Shape::Composite => {
            let mut pretty = String::new();
            value.write_pretty(&mut pretty);
            out.push_str(&pretty.replace('\n', "\n  "));
        }
        _ => value.write_json(out),
    }
}
