//! `ccfn diagnose`: the spec's decision tree over the records, question by
//! question, stopping at the first "no".
//!
//! What answers each question is defined in `docs/diagnostics.md`
//! (section "ccfn diagnose"), one function per question in [`questions`].

use std::collections::{HashMap, VecDeque};
use std::ops::ControlFlow;
use std::process::ExitCode;
use std::time::SystemTime;

use ccfn_core::record;
use serde_json::{json, Map, Value};

use crate::error::{Error, Problem};
use crate::filter::{Filter, Select};
use crate::input::{self, Bounds, Source};
use crate::line::Raw;
use crate::summary;

mod questions;

use questions::decide;

pub(crate) type Record = Map<String, Value>;

/// Evidence records shown per question, at most.
const EVIDENCE_MAX: usize = 5;
/// Records kept per invocation, at most (its `end` is kept past it): an
/// invocation of the examples writes about a dozen, one that retries its
/// calls a few dozen. Past it the records are counted, not judged.
const RECORDS_MAX: usize = 256;
/// Entries kept per JSON object or array of a record (the `event`'s
/// parameters, an answer's `data`): the platform's webhooks send a few
/// dozen parameters. Past it the entries are dropped.
const ENTRIES_MAX: usize = 256;
/// How deep a record is kept as JSON: the record, its `event` or `data`,
/// their values. Deeper values are kept as their JSON text, cut.
const DEPTH_MAX: usize = 3;
/// What the records kept may weigh in all, in bytes counted as
/// [`weight`] counts them (the text, and 64 bytes a value for the
/// structure around it): with texts cut at [`summary::TEXT_MAX`] a record
/// weighs a few KiB, so this holds thousands of invocations; past it the
/// oldest invocations are given up, and counted, so that the command stays
/// within the 128 MiB the operator's machine is promised.
const KEPT_BYTES_MAX: usize = 32 << 20;
/// What a value weighs besides its text in [`weight`].
const VALUE_BYTES: usize = 64;

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
    #[command(flatten)]
    bounds: Bounds,
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
    /// The first `request_rejected` records of the selected function (or
    /// of any function without `--function`), of the selected call (its
    /// `call_sid`, with `--call`), which never reach an invocation:
    /// [`EVIDENCE_MAX`] of them.
    rejected: Vec<Record>,
    /// How many `request_rejected` records were read, kept or not.
    rejected_total: usize,
    /// ccfn records read in the time window, selected or not.
    records_in_window: u64,
    skipped: u64,
    /// What the bounds gave up.
    given_up: GivenUp,
}

/// What the bounds on memory made `diagnose` give up: it judges the rest,
/// and says so.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct GivenUp {
    /// Lines skipped for being longer than `--max-line-bytes`.
    lines_too_long: u64,
    /// Invocations given up, the oldest first, past
    /// `--max-open-invocations` or [`KEPT_BYTES_MAX`].
    invocations: u64,
    /// Records of those invocations.
    records_of_invocations: u64,
    /// Records past [`RECORDS_MAX`] of an invocation kept.
    records: u64,
}

/// `value` as kept: texts cut at [`summary::TEXT_MAX`], at most
/// [`ENTRIES_MAX`] entries an object or array, and below [`DEPTH_MAX`]
/// the JSON text, cut.
fn keep(value: Value, depth: usize) -> Value {
    match value {
        Value::String(text) if text.len() > summary::TEXT_MAX => {
            Value::String(summary::cut(&text, summary::TEXT_MAX))
        }
        Value::Array(_) | Value::Object(_) if depth >= DEPTH_MAX => {
            Value::String(summary::cut(&value.to_string(), summary::TEXT_MAX))
        }
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .take(ENTRIES_MAX)
                .map(|v| keep(v, depth + 1))
                .collect(),
        ),
        Value::Object(map) => Value::Object(keep_record(map, depth)),
        other => other,
    }
}

/// A record (or an object at `depth`) as [`keep`] keeps it.
fn keep_record(map: Record, depth: usize) -> Record {
    map.into_iter()
        .take(ENTRIES_MAX)
        .map(|(k, v)| (summary::cut(&k, summary::NAME_MAX), keep(v, depth + 1)))
        .collect()
}

/// What a kept value weighs: its texts, and [`VALUE_BYTES`] for each
/// value.
fn weight(value: &Value) -> usize {
    VALUE_BYTES
        + match value {
            Value::String(text) => text.len(),
            Value::Array(items) => items.iter().map(weight).sum(),
            Value::Object(map) => weight_of_record(map),
            _ => 0,
        }
}

/// What a kept record (or object) weighs besides its own value: its keys
/// and values (see [`weight`]).
fn weight_of_record(map: &Record) -> usize {
    map.iter().map(|(k, v)| k.len() + weight(v)).sum()
}

/// The invocations being read, the oldest given up past the bound on
/// their number or on what their records weigh.
#[derive(Debug)]
struct Invocations {
    by_id: HashMap<String, (Vec<Record>, usize)>,
    order: VecDeque<String>,
    max: usize,
    /// What the records kept weigh (see [`weight`]).
    bytes: usize,
    given_up: GivenUp,
}

impl Invocations {
    fn new(max: usize) -> Invocations {
        Invocations {
            by_id: HashMap::new(),
            order: VecDeque::new(),
            max: max.max(1),
            bytes: 0,
            given_up: GivenUp::default(),
        }
    }

    fn add(&mut self, record: Record) {
        let Some(id) = record.get("invocation_id").and_then(Value::as_str) else {
            return;
        };
        let id = summary::cut(id, summary::NAME_MAX);
        let end = str_of(&record, "step") == "end";
        if self
            .by_id
            .get(&id)
            .is_some_and(|(records, _)| records.len() >= RECORDS_MAX && !end)
        {
            self.given_up.records += 1;
            return;
        }
        let record = keep_record(record, 0);
        let size = VALUE_BYTES + weight_of_record(&record) + id.len();
        let new = !self.by_id.contains_key(&id);
        // Room: the oldest others given up first.
        loop {
            let over_count = new && self.order.len() >= self.max;
            if !over_count && self.bytes + size <= KEPT_BYTES_MAX {
                break;
            }
            let Some(at) = self.order.iter().position(|open| *open != id) else {
                break;
            };
            let Some(oldest) = self.order.remove(at) else {
                break;
            };
            if let Some((records, bytes)) = self.by_id.remove(&oldest) {
                self.bytes -= bytes;
                self.given_up.invocations += 1;
                self.given_up.records_of_invocations += records.len() as u64;
            }
        }
        if self.bytes + size > KEPT_BYTES_MAX {
            // This invocation alone is over what may be kept.
            self.given_up.records += 1;
            return;
        }
        self.bytes += size;
        if let Some((records, bytes)) = self.by_id.get_mut(&id) {
            records.push(record);
            *bytes += size;
            return;
        }
        self.order.push_back(id.clone());
        self.by_id.insert(id, (vec![record], size));
    }

    fn into_ordered(mut self) -> (Vec<(String, Vec<Record>)>, GivenUp) {
        let ordered = self
            .order
            .into_iter()
            .filter_map(|id| self.by_id.remove(&id).map(|(records, _)| (id, records)))
            .collect();
        (ordered, self.given_up)
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

/// Reads the sources into a selection.
fn read(args: &DiagnoseArgs, filter: &Filter, seek_to: Option<&str>) -> Result<Selection, Problem> {
    let sources: Vec<Source> = if args.files.is_empty() {
        vec![Source::Stdin]
    } else {
        args.files.iter().map(|f| Source::new(f)).collect()
    };
    let mut selection = Selection::default();
    let mut invocations = Invocations::new(args.bounds.max_open_invocations);
    let mut too_long = 0;
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
            if select.invocation.is_none()
                && raw.contains(&rejected)
                && let Some(record) = raw
                    .parse()
                    .filter(|r| str_of(r, "step") == "request_rejected")
            {
                // With `--call`, the rejections of requests about that
                // call: the runtime writes the request's `CallSid`.
                if select
                    .function
                    .as_ref()
                    .is_none_or(|f| str_of(&record, "function") == f)
                    && select
                        .call
                        .as_ref()
                        .is_none_or(|c| str_of(&record, "call_sid") == c)
                {
                    selection.rejected_total += 1;
                    if selection.rejected.len() < EVIDENCE_MAX {
                        selection.rejected.push(keep_record(record, 0));
                    }
                }
                return ControlFlow::Continue(());
            }
            if filter.matches(&raw)
                && let Some(record) = raw.parse()
            {
                invocations.add(record);
            }
            ControlFlow::Continue(())
        };
        let result = input::read_bounded(source, seek_to, args.bounds.max_line_bytes, &mut on_line);
        too_long += result.map_err(|err| Problem::read(&source.name(), err))?;
    }
    let (ordered, given_up) = invocations.into_ordered();
    selection.invocations = ordered;
    selection.given_up = GivenUp {
        lines_too_long: too_long,
        ..given_up
    };
    Ok(selection)
}

/// A verdict in both forms, and the exit status it means.
#[derive(Debug)]
pub(crate) struct Verdict {
    pub(crate) human: String,
    pub(crate) json: Value,
    pub(crate) code: u8,
    pub(crate) skipped: u64,
    /// What the bounds on memory gave up.
    given_up: GivenUp,
}

impl DiagnoseArgs {
    /// The arguments that diagnose everything in `files`.
    pub(crate) fn over(files: Vec<String>) -> DiagnoseArgs {
        DiagnoseArgs {
            files,
            select: Select::default(),
            json: false,
            bounds: Bounds::default(),
        }
    }
}

/// Runs `ccfn diagnose`.
pub(crate) fn run(args: &DiagnoseArgs) -> Result<ExitCode, Error> {
    show(args).map_err(Error::of("diagnose"))
}

/// Writes the verdict on `args`' logs, and what was skipped or given up.
fn show(args: &DiagnoseArgs) -> Result<ExitCode, Problem> {
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
    for line in given_up_lines(&verdict.given_up, &args.bounds) {
        crate::terminal::say(" diagnose", &line);
    }
    Ok(ExitCode::from(verdict.code))
}

/// The decision tree over the logs `args` names.
pub(crate) fn verdict(args: &DiagnoseArgs) -> Result<Verdict, Problem> {
    let selected = args.select.read(SystemTime::now())?;
    let seek_to = selected.seek_to();
    let what = selected.what.unwrap_or_else(|| "every function".to_owned());
    let filter = selected.filter;
    let selection = read(args, &filter, seek_to.as_deref())?;
    Ok(judge(&selection, &what))
}

/// The decision tree over one call's records in `files`, and those
/// records, in the order read.
pub(crate) fn for_call(files: &[String], call: &str) -> Result<(Verdict, Vec<Record>), Problem> {
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
) -> Result<(Verdict, Vec<Record>), Problem> {
    let select = Select {
        function: Some(function.to_owned()),
        ..Select::default()
    };
    for_selection(files, select)
}

fn for_selection(files: &[String], select: Select) -> Result<(Verdict, Vec<Record>), Problem> {
    let args = DiagnoseArgs {
        files: files.to_vec(),
        select,
        json: true,
        bounds: Bounds::default(),
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
        "given_up": given_up_json(&selection.given_up),
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
        given_up: selection.given_up,
    }
}

/// What the bounds gave up, as JSON.
fn given_up_json(given_up: &GivenUp) -> Value {
    json!({
        "lines_too_long": given_up.lines_too_long,
        "invocations": given_up.invocations,
        "records_of_those_invocations": given_up.records_of_invocations,
        "records_past_the_bound": given_up.records,
    })
}

/// What the bounds gave up, in words: one line each, none when nothing
/// was.
fn given_up_lines(given_up: &GivenUp, bounds: &Bounds) -> Vec<String> {
    let mut lines = Vec::new();
    if given_up.lines_too_long > 0 {
        lines.push(format!(
            "skipped {} line{} longer than {} (--max-line-bytes)",
            given_up.lines_too_long,
            if given_up.lines_too_long == 1 {
                ""
            } else {
                "s"
            },
            input::size(bounds.max_line_bytes)
        ));
    }
    if given_up.invocations > 0 {
        lines.push(format!(
            "gave up the {} oldest invocation{} ({} records) unjudged: more than {} at once (--max-open-invocations) or more than {} of records",
            given_up.invocations,
            if given_up.invocations == 1 { "" } else { "s" },
            given_up.records_of_invocations,
            bounds.max_open_invocations,
            input::size(KEPT_BYTES_MAX)
        ));
    }
    if given_up.records > 0 {
        lines.push(format!(
            "did not judge {} record{} past the first {RECORDS_MAX} of an invocation",
            given_up.records,
            if given_up.records == 1 { "" } else { "s" },
        ));
    }
    lines
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
    let given_up = &selection.given_up;
    if given_up.invocations + given_up.records > 0 {
        let _ = writeln!(
            out,
            "Not judged, for want of memory: {} older invocation{}, {} records (see stderr)",
            given_up.invocations,
            if given_up.invocations == 1 { "" } else { "s" },
            given_up.records_of_invocations + given_up.records
        );
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, step: &str, error: &str) -> Record {
        json!({"timestamp": "2026-11-21T21:01:11.994Z", "level": "INFO", "invocation_id": id, "step": step, "error": error})
            .as_object()
            .unwrap()
            .clone()
    }

    #[test]
    fn invocations_past_the_bound_are_given_up_the_oldest_first_and_counted() {
        let mut invocations = Invocations::new(3);
        for n in 0..5 {
            invocations.add(record(&n.to_string(), "start", ""));
            invocations.add(record(&n.to_string(), "error", "failed"));
        }
        let (kept, given_up) = invocations.into_ordered();
        let ids: Vec<&str> = kept.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["2", "3", "4"]);
        assert!(kept.iter().all(|(_, records)| records.len() == 2));
        assert_eq!(
            given_up,
            GivenUp {
                invocations: 2,
                records_of_invocations: 4,
                ..GivenUp::default()
            }
        );
    }

    #[test]
    fn records_past_the_bound_are_counted_and_the_end_is_kept() {
        let mut invocations = Invocations::new(3);
        for _ in 0..RECORDS_MAX + 7 {
            invocations.add(record("a", "api_request", ""));
        }
        invocations.add(record("a", "end", ""));
        let (kept, given_up) = invocations.into_ordered();
        assert_eq!(kept[0].1.len(), RECORDS_MAX + 1);
        assert_eq!(str_of(kept[0].1.last().unwrap(), "step"), "end");
        assert_eq!(given_up.records, 7);
    }

    #[test]
    fn what_is_kept_of_a_record_is_cut_and_weighed() {
        let mut big = record("a", "error", &"E".repeat(512 * 1024));
        let deep = json!({"one": {"two": {"three": "x".repeat(4096)}}});
        big.insert("event".to_owned(), deep);
        big.insert(
            "data".to_owned(),
            Value::Array((0..10_000).map(Value::from).collect()),
        );
        let kept = keep_record(big, 0);
        let error = str_of(&kept, "error");
        assert!(
            error.ends_with("… (cut: 524288 bytes)"),
            "{}",
            &error[1000..]
        );
        assert!(error.len() < summary::TEXT_MAX + 32);
        assert_eq!(kept["data"].as_array().unwrap().len(), ENTRIES_MAX);
        // Below the depth kept, JSON text, cut.
        let two = kept["event"]["one"]["two"].as_str().unwrap();
        assert!(two.starts_with(r#"{"three":"xxx"#) && two.len() < summary::TEXT_MAX + 32);
        assert!(weight(&Value::Object(kept)) < 64 * 1024);
        // Many heavy invocations stay within what may be kept.
        let mut invocations = Invocations::new(usize::MAX);
        let heavy = "h".repeat(summary::TEXT_MAX);
        let mut added = 0;
        while added * summary::TEXT_MAX < 2 * KEPT_BYTES_MAX {
            let mut one = record(&added.to_string(), "start", &heavy);
            for n in 0..40 {
                one.insert(format!("field{n}"), Value::from(heavy.clone()));
            }
            invocations.add(one);
            added += 41;
        }
        assert!(invocations.bytes <= KEPT_BYTES_MAX);
        let total = invocations.order.len() as u64 + invocations.given_up.invocations;
        assert_eq!(total, (added / 41) as u64);
        assert!(invocations.given_up.invocations > 0);
    }
}
