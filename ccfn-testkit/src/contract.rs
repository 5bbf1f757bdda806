//! The rules [`crate::Run::assert_contract`] checks.
//!
//! - Every record has `timestamp` (RFC 3339, UTC), `level`, `function`,
//!   `invocation_id` (the same in all, and the completion's), `step` and
//!   `message`, and `call_sid` when the event had one.
//! - Exactly one `start`, first, and one `end`, last, whose `outcome`
//!   matches the result.
//! - After `start` (and `verbose` / `debug` when on): `validation` begin.
//!   Then either one `validation_error` per missing value, `metrics`,
//!   alerts and `end`, the callback error naming the first missing value;
//!   or `validation` passed, `processing`, `caller`, the business steps,
//!   and `metrics`, alerts, `success`, `end` on success, or `error`,
//!   `metrics`, alerts, `end` on failure.
//! - Each record is of a step of the catalogue (`ccfn_core::record`), at
//!   one of its levels, with the fields that step defines.
//! - Each JSON line, parsed, is exactly the record the layer captured from
//!   its typed fields.
//! - No secret value of the context appears in any line of any format.
//! - The human format, brief and full, shows each record as
//!   `ccfn_core::record::LogFormat::render` renders its JSON line (the
//!   timestamps aside: each layer reads the clock itself).
//!
//! Then, once the contract holds: the handler read nothing past what its
//! function declares. Each `declaration` record (an undeclared parameter
//! or value, one whose name looks sensitive, a declared secret read as
//! text) fails the run with its message: the name, the function, the fix
//! and, for a misspelt name, the declared or platform name it is near
//! ("did you mean `Digits`?"). The testkit writes that record in every
//! invocation that makes the read, so this holds whatever ran before.

use serde_json::Value;

use crate::run::{step_of, Record, Run};

const COMMON: [&str; 6] = [
    "timestamp",
    "level",
    "function",
    "invocation_id",
    "step",
    "message",
];

/// Every broken rule, described.
pub(crate) fn check(run: &Run) -> Vec<String> {
    let mut violations = Vec::new();
    let records = run.records();
    if records.is_empty() {
        violations.push("no record was written".to_owned());
        return violations;
    }
    check_lines(run, &mut violations);
    check_common(run, &mut violations);
    check_fields(records, &mut violations);
    check_order(run, &mut violations);
    check_secrets(run, &mut violations);
    check_human(run, &mut violations);
    violations
}

/// Each read past the function's declarations: its `declaration`
/// record's message, which names the read, the function and the fix.
pub(crate) fn undeclared_reads(run: &Run) -> Vec<String> {
    run.records_of("declaration")
        .into_iter()
        .map(|record| {
            let message = record.get("message").and_then(Value::as_str).unwrap_or("");
            let problem = record.get("problem").and_then(Value::as_str).unwrap_or("");
            format!("{problem}: {message}")
        })
        .collect()
}

/// Each JSON line holds exactly its record: parsed, it is the JSON object
/// the layer captured from the record's typed fields.
fn check_lines(run: &Run, violations: &mut Vec<String>) {
    let (lines, records) = (run.lines(), run.records());
    if lines.len() != records.len() {
        violations.push(format!(
            "{} JSON lines for {} records",
            lines.len(),
            records.len()
        ));
        return;
    }
    for (index, (line, record)) in lines.iter().zip(records).enumerate() {
        match serde_json::from_str::<Record>(line) {
            Ok(parsed) if parsed == *record => {}
            Ok(parsed) => violations.push(format!(
                "record {index} (`{}`): its JSON line holds {} but the record is {}",
                step_of(record),
                Value::Object(parsed),
                Value::Object(record.clone()),
            )),
            Err(error) => violations.push(format!(
                "record {index} (`{}`): its JSON line is not a JSON object: {error}",
                step_of(record)
            )),
        }
    }
}

/// Each record's rendering from its JSON line, in order, is what the
/// human-format layer wrote, but for the first word of each (the time).
fn check_human(run: &Run, violations: &mut Vec<String>) {
    use ccfn_core::record::LogFormat;
    for (format, written) in [
        (LogFormat::Pretty, run.pretty()),
        (LogFormat::PrettyFull, run.pretty_full()),
    ] {
        let mut rest = written;
        for (index, record) in run.records().iter().enumerate() {
            let rendered = format.render(record);
            let expected = rendered.split_once(' ').map_or("", |(_, after)| after);
            let line = rest.split_once(' ').and_then(|(_, after)| {
                after
                    .strip_prefix(expected)
                    .and_then(|after| after.strip_prefix('\n'))
            });
            match line {
                Some(after) => rest = after,
                None => {
                    violations.push(format!(
                        "record {index} (`{}`) in the {format:?} format is not its JSON line's rendering:\n  expected  {expected:?}\n  written   {:?}",
                        step_of(record),
                        rest.split('\n')
                            .take(expected.split('\n').count())
                            .collect::<Vec<_>>()
                            .join("\n"),
                    ));
                    break;
                }
            }
        }
        if !rest.is_empty() && violations.is_empty() {
            violations.push(format!(
                "the {format:?} format has lines no record has: {rest:?}"
            ));
        }
    }
}

fn check_common(run: &Run, violations: &mut Vec<String>) {
    let id = run.invocation_id().as_str();
    for (index, record) in run.records().iter().enumerate() {
        let step = step_of(record);
        for key in COMMON {
            if !record.get(key).is_some_and(Value::is_string) {
                violations.push(format!("record {index} (`{step}`) has no `{key}`"));
            }
        }
        if let Some(Value::String(time)) = record.get("timestamp")
            && !is_rfc3339_utc(time)
        {
            violations.push(format!(
                "record {index} (`{step}`): timestamp `{time}` is not RFC 3339 UTC"
            ));
        }
        let text = |key: &str| record.get(key).and_then(Value::as_str);
        if text("invocation_id").is_some_and(|got| got != id) {
            violations.push(format!(
                "record {index} (`{step}`) has invocation_id {:?}, expected {id:?}",
                text("invocation_id")
            ));
        }
        if text("function").is_some_and(|got| got != run.function_name()) {
            violations.push(format!(
                "record {index} (`{step}`) has function {:?}, expected {:?}",
                text("function"),
                run.function_name()
            ));
        }
        if let Some(expected) = run.expected_call_sid()
            && text("call_sid") != Some(expected)
        {
            violations.push(format!(
                "record {index} (`{step}`) has call_sid {:?}, expected {expected:?}",
                text("call_sid")
            ));
        }
    }
}

/// Each record against its step in `ccfn_core::record`.
fn check_fields(records: &[Record], violations: &mut Vec<String>) {
    for (index, record) in records.iter().enumerate() {
        for violation in ccfn_core::record::violations(record) {
            violations.push(format!("record {index}: {violation}"));
        }
    }
    if let Some(start) = records.iter().find(|r| step_of(r) == "start")
        && !start.get("event").is_some_and(Value::is_object)
    {
        violations.push("`start` logs `event` as something other than a JSON object".into());
    }
}

fn phase(record: &Record) -> Option<&str> {
    record.get("phase").and_then(Value::as_str)
}

/// The records in the contract's order: `start` first, validation, then
/// either the validation errors or the processing, the business steps
/// and the closing tail (`metrics`, `success` or `error`), `end` last.
fn check_order(run: &Run, violations: &mut Vec<String>) {
    check_ends(run, violations);
    let records = run.records();
    let steps = run.steps();
    let mut at = 1;
    while at < steps.len() && matches!(steps[at], "verbose" | "debug") {
        at += 1;
    }
    if steps.get(at) != Some(&"validation") || records.get(at).and_then(phase) != Some("begin") {
        violations.push(format!(
            "expected `validation` (phase begin) after `start`, found `{}`",
            steps.get(at).unwrap_or(&"nothing")
        ));
        return;
    }
    at += 1;
    let ok = run.reply().is_some();
    let expected: Vec<&str> = if steps.get(at) == Some(&"validation_error") {
        at += check_validation_errors(run, at, violations);
        vec!["metrics"]
    } else {
        let Some(tail) = check_processing(run, at, violations) else {
            return;
        };
        at = tail;
        if ok {
            vec!["metrics", "success"]
        } else {
            vec!["error", "metrics"]
        }
    };
    let tail: Vec<&str> = steps[at..steps.len().saturating_sub(1)]
        .iter()
        .copied()
        .filter(|s| *s != "alert")
        .collect();
    if tail != expected {
        violations.push(format!(
            "expected the invocation to close with {} then `end`, found {}",
            expected.join(", "),
            tail.join(", ")
        ));
    }
}

/// Exactly one `start`, first, and one `end`, last, whose outcome is the
/// run's.
fn check_ends(run: &Run, violations: &mut Vec<String>) {
    let steps = run.steps();
    let count = |step: &str| steps.iter().filter(|s| **s == step).count();
    if count("start") != 1 || steps.first() != Some(&"start") {
        violations.push(format!(
            "expected exactly one `start`, first; found {} (first is `{}`)",
            count("start"),
            steps[0]
        ));
    }
    if count("end") != 1 || steps.last() != Some(&"end") {
        violations.push(format!(
            "expected exactly one `end`, last; found {} (last is `{}`)",
            count("end"),
            steps[steps.len() - 1]
        ));
    }
    let outcome = run
        .records()
        .last()
        .and_then(|r| r.get("outcome"))
        .and_then(Value::as_str);
    let expected_outcome = if run.reply().is_some() {
        "success"
    } else {
        "error"
    };
    if outcome != Some(expected_outcome) {
        violations.push(format!(
            "`end` has outcome {outcome:?}, expected {expected_outcome:?}"
        ));
    }
}

/// The `validation_error` records from `at`: the callback's error is the
/// first one's, and each says which parameter or variable is missing.
/// Their count.
fn check_validation_errors(run: &Run, at: usize, violations: &mut Vec<String>) -> usize {
    let records = run.records();
    let errors = run.steps()[at..]
        .iter()
        .take_while(|s| **s == "validation_error")
        .count();
    let first = records[at].get("error").and_then(Value::as_str);
    if run.error_message() != first {
        violations.push(format!(
            "the callback error is {:?}, expected the first validation error {first:?}",
            run.error_message()
        ));
    }
    for record in &records[at..at + errors] {
        let parameter = record
            .get("parameter")
            .and_then(Value::as_str)
            .unwrap_or("");
        let message = record.get("error").and_then(Value::as_str).unwrap_or("");
        let known = run.required().iter().any(|name| name == parameter);
        let expected_message = if known {
            format!("Missing required parameter: {parameter}")
        } else {
            format!("Missing required environment variable: {parameter}")
        };
        if message != expected_message {
            violations.push(format!(
                "validation_error says {message:?}, expected {expected_message:?}"
            ));
        }
    }
    errors
}

/// Validation passed, `processing` and `caller` from `at`, then business
/// steps: where the closing tail starts (`None`, a violation pushed, when
/// the records are out of order).
fn check_processing(run: &Run, at: usize, violations: &mut Vec<String>) -> Option<usize> {
    let steps = run.steps();
    let head = ["validation", "processing", "caller"];
    for (offset, want) in head.iter().enumerate() {
        if steps.get(at + offset) != Some(want) {
            violations.push(format!(
                "expected `{want}` at record {}, found `{}`",
                at + offset,
                steps.get(at + offset).unwrap_or(&"nothing")
            ));
            return None;
        }
    }
    if run.records().get(at).and_then(phase) != Some("passed") {
        violations.push("the second `validation` record is not phase `passed`".into());
    }
    let at = at + head.len();
    // Business steps run until the tail that closes the invocation.
    let ok = run.reply().is_some();
    let tail_start = if ok {
        steps.iter().rposition(|s| *s == "metrics")
    } else {
        steps.iter().rposition(|s| *s == "error")
    };
    match tail_start {
        Some(tail) if tail >= at => Some(tail),
        _ => {
            violations.push(format!(
                "expected the invocation to close with {}",
                if ok {
                    "`metrics`, `success`, `end`"
                } else {
                    "`error`, `metrics`, `end`"
                }
            ));
            None
        }
    }
}

fn check_secrets(run: &Run, violations: &mut Vec<String>) {
    for secret in run.secrets() {
        let leaks = run
            .every_line()
            .filter(|line| line.contains(secret.as_str()))
            .count();
        if leaks > 0 {
            violations.push(format!(
                "a secret value of the context appears in {leaks} line(s)"
            ));
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.fff]Z`.
fn is_rfc3339_utc(time: &str) -> bool {
    let bytes = time.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .is_some_and(|b| b.iter().all(u8::is_ascii_digit))
    };
    bytes.len() >= 20
        && digits(0..4)
        && bytes[4] == b'-'
        && digits(5..7)
        && bytes[7] == b'-'
        && digits(8..10)
        && bytes[10] == b'T'
        && digits(11..13)
        && bytes[13] == b':'
        && digits(14..16)
        && bytes[16] == b':'
        && digits(17..19)
        && time.ends_with('Z')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert!(is_rfc3339_utc("2026-11-21T20:35:01.123Z"));
        assert!(is_rfc3339_utc("2026-11-21T20:35:01Z"));
        assert!(!is_rfc3339_utc("2026-11-21 20:35:01Z"));
        assert!(!is_rfc3339_utc("21/11/2026"));
    }
}
