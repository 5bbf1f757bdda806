//! The questions of the decision tree, one function each, over the
//! selected records; [`decide`] asks them in order and stops at the first
//! "no".

use super::*;

/// Question 1.
fn receives(selection: &Selection, what: &str) -> Finding {
    let starts: Vec<&Record> = selection.of_step("start").collect();
    if !starts.is_empty() {
        let evidence = starts
            .iter()
            .map(|r| Evidence::of(r, format!("{} received a request", str_of(r, "function"))))
            .collect();
        return finding(1, Answer::Yes, evidence, Vec::new());
    }
    let evidence: Vec<Evidence> = selection
        .rejected
        .iter()
        .map(|r| {
            Evidence::of(
                r,
                format!(
                    "{} {}: {}",
                    str_of(r, "method"),
                    str_of(r, "path"),
                    str_of(r, "error")
                ),
            )
        })
        .collect();
    let mut specifically = vec![format!(
        "No invocation started for {what} in the records read."
    )];
    if let Some(first) = selection.rejected.first() {
        specifically.push(format!(
            "Requests reached the runtime but were answered {} before the function ran: {}",
            first
                .get("status")
                .map_or_else(String::new, Value::to_string),
            str_of(first, "error")
        ));
    }
    if selection.records_in_window == 0 {
        specifically =
            vec!["The logs hold no ccfn record in the time asked: they cannot answer.".to_owned()];
        return rejected_finding(selection, Answer::Unknown, evidence, specifically);
    }
    rejected_finding(selection, Answer::No, evidence, specifically)
}

/// Question 1's finding on the `request_rejected` records: those beyond the
/// few kept count as more evidence.
fn rejected_finding(
    selection: &Selection,
    answer: Answer,
    evidence: Vec<Evidence>,
    specifically: Vec<String>,
) -> Finding {
    let mut found = finding(1, answer, evidence, specifically);
    found.more = selection
        .rejected_total
        .saturating_sub(found.evidence.len());
    found
}

/// Question 2.
fn parameters(selection: &Selection) -> Finding {
    let mut problems = Vec::new();
    for (_, records) in &selection.invocations {
        let Some(start) = records.iter().find(|r| str_of(r, "step") == "start") else {
            continue;
        };
        let event = start.get("event").and_then(Value::as_object);
        let required: Vec<&str> = records
            .iter()
            .find(|r| str_of(r, "step") == "validation")
            .and_then(|r| r.get("required"))
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for name in required {
            if event.is_none_or(|e| !e.contains_key(name)) {
                problems.push(Evidence::of(
                    start,
                    format!("`{name}` is required and was not sent"),
                ));
            }
        }
        // A parameter the handler itself requires (`Event::parse`, say),
        // reported as its validation error.
        for error in records
            .iter()
            .filter(|r| str_of(r, "step") == "error" && str_of(r, "kind") == "validation")
        {
            if let Some(name) = missing_parameter(str_of(error, "error"))
                && event.is_none_or(|e| !e.contains_key(name))
            {
                problems.push(Evidence::of(
                    error,
                    format!("`{name}` is required and was not sent"),
                ));
            }
        }
        for (name, value) in event.into_iter().flatten() {
            let Some(value) = value.as_str() else {
                continue;
            };
            if value.trim().is_empty() {
                problems.push(Evidence::of(start, format!("`{name}` was sent empty")));
            } else if value.contains("{{") && value.contains("}}") {
                problems.push(Evidence::of(
                    start,
                    format!("`{name}` is template text the flow did not render: {value}"),
                ));
            }
        }
    }
    if problems.is_empty() {
        return finding(2, Answer::Yes, Vec::new(), Vec::new());
    }
    let specifically = problems.iter().map(|e| e.says.clone()).collect();
    finding(2, Answer::No, problems, specifically)
}

/// The parameter a validation error's text says is missing, if it says
/// so (the spec's `Missing required parameter: <name>`).
fn missing_parameter(error: &str) -> Option<&str> {
    error
        .strip_prefix("Missing required parameter: ")
        .map(str::trim)
        .filter(|name| !name.is_empty())
}

/// Question 3: validation that failed on what was there (a missing
/// parameter is question 2's).
fn validation(selection: &Selection) -> Finding {
    let mut errors = Vec::new();
    for (_, records) in &selection.invocations {
        // The texts of this invocation's validation errors, each once:
        // an `email_error` and the `error` that passes it on say the same.
        let mut said = std::collections::HashSet::new();
        for record in records {
            let step = str_of(record, "step");
            let text = str_of(record, "error");
            let failed = match step {
                // A missing environment value: the deployment's, not the
                // caller's (a missing parameter is question 2's).
                "validation_error" => missing_parameter(text).is_none(),
                // A value present but invalid (`Invalid parameter Digits:
                // ..`), or too large to attach: nothing was sent.
                "error" | "email_error" => {
                    str_of(record, "kind") == "validation" && missing_parameter(text).is_none()
                }
                _ => false,
            };
            if failed && said.insert(text) {
                errors.push(Evidence::of(record, text));
            }
        }
    }
    if errors.is_empty() {
        return finding(3, Answer::Yes, Vec::new(), Vec::new());
    }
    let specifically = errors.iter().map(|e| e.says.clone()).collect();
    finding(3, Answer::No, errors, specifically)
}

/// Whether an answer's status says the call failed for want of
/// credentials, quota or a working server.
fn failed_status(status: u64) -> bool {
    matches!(status, 401 | 403 | 407 | 429) || status >= 500
}

/// Question 4.
fn external_calls(selection: &Selection) -> Finding {
    let mut failures = Vec::new();
    for (_, records) in &selection.invocations {
        // The request an `api_response` answers: the last one before it.
        let mut request: Option<&Record> = None;
        for record in records {
            let says = match str_of(record, "step") {
                "api_request" => {
                    request = Some(record);
                    None
                }
                // The server answered past the cap the function set (a
                // recording too large to attach, linked instead): the
                // call did not fail.
                "api_error" if record.contains_key("max_response_bytes") => None,
                "api_error" => Some(str_of(record, "error").to_owned()),
                // Only what the provider refused or could not be sent:
                // a message the client refused itself (kind `validation`,
                // `function`) was never sent.
                "email_error" if matches!(str_of(record, "kind"), "validation" | "function") => {
                    None
                }
                "email_error" => Some(str_of(record, "error").to_owned()),
                "api_response" => {
                    let status = record.get("status").and_then(Value::as_u64).unwrap_or(0);
                    failed_status(status).then(|| {
                        let target = request.map_or_else(String::new, |r| {
                            format!("{} {} ", str_of(r, "method"), str_of(r, "url"))
                        });
                        let data = match record.get("data") {
                            Some(Value::String(text)) => format!(": {}", cut(text, 200)),
                            Some(Value::Null) | None => String::new(),
                            Some(other) => format!(": {}", cut(&other.to_string(), 200)),
                        };
                        format!("{target}answered {status}{data}")
                    })
                }
                "task_error" => {
                    let cause = str_of(record, "cause");
                    record::task_error_cause(cause)
                        .filter(|c| c.external)
                        .map(|c| {
                            format!(
                                "{} (cause `{cause}`: {})",
                                str_of(record, "message"),
                                c.meaning
                            )
                        })
                }
                _ => None,
            };
            if let Some(says) = says {
                failures.push(Evidence::of(record, says));
            }
        }
    }
    if failures.is_empty() {
        return finding(4, Answer::Yes, Vec::new(), Vec::new());
    }
    let specifically = failures.iter().map(|e| e.says.clone()).collect();
    finding(4, Answer::No, failures, specifically)
}

/// Question 5.
fn business_logic(selection: &Selection) -> Finding {
    let mut failures = Vec::new();
    let mut causes = Vec::new();
    let mut cut_off = Vec::new();
    for (_, records) in &selection.invocations {
        let mut explained = false;
        for record in records {
            match str_of(record, "step") {
                "task_error" => {
                    let cause = str_of(record, "cause");
                    if let Some(c) = record::task_error_cause(cause).filter(|c| !c.external) {
                        failures.push(Evidence::of(record, str_of(record, "message")));
                        causes.push(format!("task_error cause `{cause}`: {}", c.meaning));
                        explained = true;
                    }
                }
                "error" => {
                    failures.push(Evidence::of(
                        record,
                        format!("{}: {}", str_of(record, "kind"), str_of(record, "error")),
                    ));
                    explained = true;
                }
                _ => {}
            }
        }
        match records.iter().find(|r| str_of(r, "step") == "end") {
            Some(end) if str_of(end, "outcome") == "error" && !explained => {
                failures.push(Evidence::of(end, "the invocation ended with an error"));
            }
            None if records.iter().any(|r| str_of(r, "step") == "start") => {
                cut_off.push(Evidence::of(
                    &records[0],
                    "the invocation has no `end` record: cut off, or still running",
                ));
            }
            _ => {}
        }
    }
    if !failures.is_empty() {
        let mut specifically: Vec<String> = failures.iter().map(|e| e.says.clone()).collect();
        specifically.extend(causes);
        return finding(5, Answer::No, failures, specifically);
    }
    if !cut_off.is_empty() {
        let specifically = cut_off.iter().map(|e| e.says.clone()).collect();
        return finding(5, Answer::Unknown, cut_off, specifically);
    }
    finding(5, Answer::Yes, Vec::new(), Vec::new())
}

fn finding(
    number: u8,
    answer: Answer,
    mut evidence: Vec<Evidence>,
    mut specifically: Vec<String>,
) -> Finding {
    let more = evidence.len().saturating_sub(EVIDENCE_MAX);
    evidence.truncate(EVIDENCE_MAX);
    let mut seen = std::collections::HashSet::new();
    specifically.retain(|line| seen.insert(line.clone()));
    specifically.truncate(EVIDENCE_MAX + 2);
    Finding {
        number,
        answer,
        evidence,
        more,
        specifically,
    }
}

/// `text`, cut to `max` characters.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The decision tree over `selection`, up to the first answer that is not
/// yes.
pub(super) fn decide(selection: &Selection, what: &str) -> Vec<Finding> {
    let questions: [&dyn Fn() -> Finding; 5] = [
        &|| receives(selection, what),
        &|| parameters(selection),
        &|| validation(selection),
        &|| external_calls(selection),
        &|| business_logic(selection),
    ];
    let mut findings = Vec::new();
    for question in questions {
        let finding = question();
        let stop = finding.answer != Answer::Yes;
        findings.push(finding);
        if stop {
            break;
        }
    }
    findings
}
