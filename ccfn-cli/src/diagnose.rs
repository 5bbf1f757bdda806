//! `ccfn diagnose`: the spec's decision tree over the records, question by
//! question, stopping at the first "no".
//!
//! What answers each question is defined in `docs/diagnostics.md`
//! (section "ccfn diagnose"), one function per question below.

use std::collections::{HashMap, VecDeque};
use std::ops::ControlFlow;
use std::process::ExitCode;
use std::time::SystemTime;

use ccfn_core::record;
use serde_json::{json, Map, Value};

use crate::filter::{Filter, Select};
use crate::input::{self, Source};
use crate::line::Raw;

pub(crate) type Record = Map<String, Value>;

/// Invocations kept, at most: the last ones read.
const INVOCATIONS_MAX: usize = 2_000;
/// Evidence records shown per question, at most.
const EVIDENCE_MAX: usize = 5;

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  ccfn diagnose --call CA0123456789abcdef0123456789abcdef app.log
  ccfn diagnose --function voicemail-notice --since 2h app.log.1.gz app.log
  ccfn diagnose --json app.log | jq '.questions[] | select(.answer != \"yes\")'

Exit status: 0 when every question is answered yes, 1 at the first no, 2
when the logs cannot answer (no records for the selection's time, an
invocation cut off before its end) or on an error.")]
pub(crate) struct DiagnoseArgs {
    /// Logs to read, in order: plain or gzip-compressed files, `-` for
    /// standard input (the default).
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    #[command(flatten)]
    select: Select,
    /// The verdict as one JSON object.
    #[arg(long)]
    json: bool,
}

/// An answer to a question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    Yes,
    No,
    Unknown,
}

impl Answer {
    fn as_str(self) -> &'static str {
        match self {
            Answer::Yes => "yes",
            Answer::No => "no",
            Answer::Unknown => "unknown",
        }
    }
}

/// A record an answer rests on, and what it says.
#[derive(Clone, Debug)]
pub(crate) struct Evidence {
    timestamp: String,
    invocation_id: String,
    step: String,
    says: String,
}

impl Evidence {
    fn of(record: &Record, says: impl Into<String>) -> Evidence {
        let text = |key: &str| {
            record
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("-")
                .to_owned()
        };
        Evidence {
            timestamp: text("timestamp"),
            invocation_id: text("invocation_id"),
            step: text("step"),
            says: says.into(),
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "timestamp": self.timestamp,
            "invocation_id": self.invocation_id,
            "step": self.step,
            "says": self.says,
        })
    }
}

/// One question of the decision tree and its answer.
#[derive(Debug)]
pub(crate) struct Finding {
    number: u8,
    answer: Answer,
    evidence: Vec<Evidence>,
    /// How many records said the same, beyond the evidence shown.
    more: usize,
    /// What the records say specifically, at a "no".
    specifically: Vec<String>,
}

/// The questions and the spec's action at a "no".
const QUESTIONS: [(&str, &str); 5] = [
    (
        "Does the function receive requests?",
        "Check the phone-number webhook configuration.",
    ),
    (
        "Are the parameters passed correctly?",
        "Check the flow widget configuration.",
    ),
    (
        "Does parameter validation pass?",
        "Review the required-parameter list and validation logic.",
    ),
    (
        "Do external API calls succeed?",
        "Check credentials and network connectivity.",
    ),
    (
        "Does the business logic execute correctly?",
        "Review function logic and error handling.",
    ),
];

/// What the spec says to check when every answer is yes.
const ALL_YES: &str = "Check result handling and callback execution.";

/// The records read for the selection, by invocation, and the rest.
#[derive(Debug, Default)]
struct Selection {
    /// The invocations, in the order their first record was read.
    invocations: Vec<(String, Vec<Record>)>,
    /// `request_rejected` records of the selected function (or of any
    /// function without `--function`), which never reach an invocation.
    rejected: Vec<Record>,
    /// ccfn records read in the time window, selected or not.
    records_in_window: u64,
    skipped: u64,
}

/// The invocations being read, the oldest forgotten past
/// [`INVOCATIONS_MAX`].
#[derive(Debug, Default)]
struct Invocations {
    by_id: HashMap<String, Vec<Record>>,
    order: VecDeque<String>,
}

impl Invocations {
    fn add(&mut self, record: Record) {
        let Some(id) = record.get("invocation_id").and_then(Value::as_str) else {
            return;
        };
        if let Some(records) = self.by_id.get_mut(id) {
            records.push(record);
            return;
        }
        if self.order.len() == INVOCATIONS_MAX {
            if let Some(oldest) = self.order.pop_front() {
                self.by_id.remove(&oldest);
            }
        }
        let id = id.to_owned();
        self.order.push_back(id.clone());
        self.by_id.insert(id, vec![record]);
    }

    fn into_ordered(mut self) -> Vec<(String, Vec<Record>)> {
        self.order
            .into_iter()
            .filter_map(|id| self.by_id.remove(&id).map(|records| (id, records)))
            .collect()
    }
}

impl Selection {
    fn records(&self) -> impl Iterator<Item = &Record> {
        self.invocations.iter().flat_map(|(_, records)| records)
    }

    fn of_step<'a>(&'a self, step: &'a str) -> impl Iterator<Item = &'a Record> + 'a {
        self.records().filter(move |r| str_of(r, "step") == step)
    }
}

fn str_of<'a>(record: &'a Record, key: &str) -> &'a str {
    record.get(key).and_then(Value::as_str).unwrap_or_default()
}

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
        return finding(1, Answer::Unknown, evidence, specifically);
    }
    finding(1, Answer::No, evidence, specifically)
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

/// Question 3.
fn validation(selection: &Selection) -> Finding {
    let errors: Vec<Evidence> = selection
        .of_step("validation_error")
        .map(|r| Evidence::of(r, str_of(r, "error")))
        .collect();
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
                "api_error" | "email_error" => Some(str_of(record, "error").to_owned()),
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
fn decide(selection: &Selection, what: &str) -> Vec<Finding> {
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

/// Reads the sources into a selection.
fn read(args: &DiagnoseArgs, filter: &Filter, seek_to: Option<&str>) -> Result<Selection, String> {
    let sources: Vec<Source> = if args.files.is_empty() {
        vec![Source::Stdin]
    } else {
        args.files.iter().map(|f| Source::new(f)).collect()
    };
    let mut selection = Selection::default();
    let mut invocations = Invocations::default();
    let rejected = memchr::memmem::Finder::new(br#""step":"request_rejected""#);
    for source in &sources {
        let mut on_line = |line: &[u8]| {
            let Some(raw) = Raw::find(line) else {
                if !line.iter().all(u8::is_ascii_whitespace) {
                    selection.skipped += 1;
                }
                return ControlFlow::Continue(());
            };
            if !filter.in_time(raw.timestamp) {
                return ControlFlow::Continue(());
            }
            selection.records_in_window += 1;
            let select = &args.select;
            if select.call.is_none() && select.invocation.is_none() && raw.contains(&rejected) {
                if let Some(record) = raw
                    .parse()
                    .filter(|r| str_of(r, "step") == "request_rejected")
                {
                    if select
                        .function
                        .as_ref()
                        .is_none_or(|f| str_of(&record, "function") == f)
                    {
                        selection.rejected.push(record);
                    }
                    return ControlFlow::Continue(());
                }
            }
            if filter.matches(&raw) {
                if let Some(record) = raw.parse() {
                    invocations.add(record);
                }
            }
            ControlFlow::Continue(())
        };
        let result = input::read_whole(source, seek_to, &mut on_line);
        result.map_err(|err| format!("cannot read {}: {err}", source.name()))?;
    }
    selection.invocations = invocations.into_ordered();
    Ok(selection)
}

/// A verdict in both forms, and the exit status it means.
#[derive(Debug)]
pub(crate) struct Verdict {
    pub(crate) human: String,
    pub(crate) json: Value,
    pub(crate) code: u8,
    pub(crate) skipped: u64,
}

impl DiagnoseArgs {
    /// The arguments that diagnose everything in `files`.
    pub(crate) fn over(files: Vec<String>) -> DiagnoseArgs {
        DiagnoseArgs {
            files,
            select: Select::default(),
            json: false,
        }
    }
}

/// Runs `ccfn diagnose`.
pub(crate) fn run(args: &DiagnoseArgs) -> Result<ExitCode, String> {
    let verdict = verdict(args)?;
    if args.json {
        crate::terminal::write_json_out(&format!("{}\n", verdict.json))?;
    } else {
        crate::write_out(&verdict.human)?;
    }
    if verdict.skipped > 0 {
        crate::terminal::say(
            " diagnose",
            &format!(
                "skipped {} lines that are not ccfn records",
                verdict.skipped
            ),
        );
    }
    Ok(ExitCode::from(verdict.code))
}

/// The decision tree over the logs `args` names.
pub(crate) fn verdict(args: &DiagnoseArgs) -> Result<Verdict, String> {
    let selected = args.select.read(SystemTime::now())?;
    let seek_to = selected.seek_to();
    let what = selected.what.unwrap_or_else(|| "every function".to_owned());
    let filter = selected.filter;
    let selection = read(args, &filter, seek_to.as_deref())?;
    Ok(judge(&selection, &what))
}

/// The decision tree over one call's records in `files`, and those
/// records, in the order read.
pub(crate) fn for_call(files: &[String], call: &str) -> Result<(Verdict, Vec<Record>), String> {
    let select = Select {
        call: Some(call.to_owned()),
        ..Select::default()
    };
    for_selection(files, select)
}

/// The decision tree over one function's records in `files`, and those
/// records.
pub(crate) fn for_function(
    files: &[String],
    function: &str,
) -> Result<(Verdict, Vec<Record>), String> {
    let select = Select {
        function: Some(function.to_owned()),
        ..Select::default()
    };
    for_selection(files, select)
}

fn for_selection(files: &[String], select: Select) -> Result<(Verdict, Vec<Record>), String> {
    let args = DiagnoseArgs {
        files: files.to_vec(),
        select,
        json: true,
    };
    let selected = args.select.read(SystemTime::now())?;
    let what = selected.what.unwrap_or_else(|| "every function".to_owned());
    let selection = read(&args, &selected.filter, None)?;
    let verdict = judge(&selection, &what);
    let records = selection
        .invocations
        .into_iter()
        .flat_map(|(_, records)| records)
        .collect();
    Ok((verdict, records))
}

/// The verdict over `selection`.
fn judge(selection: &Selection, what: &str) -> Verdict {
    let findings = decide(selection, what);
    let last = findings.last().expect("question 1 is always asked");
    let code = match last.answer {
        Answer::Yes => 0,
        Answer::No => 1,
        Answer::Unknown => 2,
    };
    let action = match last.answer {
        Answer::Yes => ALL_YES,
        _ => QUESTIONS[usize::from(last.number - 1)].1,
    };
    let questions: Vec<Value> = findings
        .iter()
        .map(|f| {
            json!({
                "number": f.number,
                "question": QUESTIONS[usize::from(f.number - 1)].0,
                "answer": f.answer.as_str(),
                "evidence": f.evidence.iter().map(Evidence::to_json).collect::<Vec<_>>(),
                "more_evidence": f.more,
                "specifically": f.specifically,
            })
        })
        .collect();
    let json = json!({
        "selection": what,
        "invocations": selection.invocations.len(),
        "questions": questions,
        "stopped_at": (last.answer != Answer::Yes).then_some(last.number),
        "answer": last.answer.as_str(),
        "action": action,
    });
    Verdict {
        human: human(&findings, selection, what, action),
        json,
        code,
        skipped: selection.skipped,
    }
}

/// The verdict for a person.
fn human(findings: &[Finding], selection: &Selection, what: &str, action: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let count = selection.invocations.len();
    let _ = writeln!(
        out,
        "Diagnosis of {what}: {count} invocation{} read",
        if count == 1 { "" } else { "s" }
    );
    let _ = writeln!(out);
    for f in findings {
        let question = QUESTIONS[usize::from(f.number - 1)].0;
        let _ = writeln!(out, "{}. {question:<44} {}", f.number, f.answer.as_str());
        for e in &f.evidence {
            let _ = writeln!(
                out,
                "     {} {} [{}] {}",
                e.timestamp, e.invocation_id, e.step, e.says
            );
        }
        if f.more > 0 {
            let _ = writeln!(out, "     ... and {} more", f.more);
        }
    }
    let last = findings.last().expect("question 1 is always asked");
    let _ = writeln!(out);
    match last.answer {
        Answer::Yes => {
            let _ = writeln!(out, "Every answer is yes. {action}");
        }
        answer => {
            let _ = writeln!(
                out,
                "Stopped at question {} ({}). {action}",
                last.number,
                answer.as_str()
            );
            for line in &last.specifically {
                let _ = writeln!(out, "  - {line}");
            }
        }
    }
    out
}
