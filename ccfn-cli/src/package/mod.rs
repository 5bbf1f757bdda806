//! `ccfn package`: step 9 of the spec's procedure (package the evidence)
//! as one command: a folder named with the UTC time, and a `.tar.gz` of
//! it, with every file scrubbed of every secret the environment holds.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::io::Write as _;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use ccfn_core::record::{self, is_sensitive_name};
use ccfn_core::Secret;
use serde_json::{Map, Value};

use crate::error::{Error, Problem};
use crate::filter::{Filter, Select};
use crate::input::{self, Source};
use crate::line::Raw;
use crate::summary::{self, Invocation, Open};
use crate::{diagnose, probe, when};

mod reproduce;
mod secrets;

use reproduce::reproduce;
use secrets::{is_secret, redact_sensitive};
pub(crate) use secrets::{register_argument_secrets, register_known_secrets, register_secrets};

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  ccfn package --logs app.log --call CA0123456789abcdef0123456789abcdef -o escalations
  ccfn package --logs app.log.1.gz app.log --function voicemail-notice --since 2h \\
      --url https://cc.example.com/features/callback-and-voicemail-with-email/voicemail/recording-complete -o .

Every value of the environment that is a secret (a sensitive name, ccfn's
secret settings, the names in CCFN_SECRETS, each value of the OTLP headers,
the password of every URL) is scrubbed from every file, in every form a line
can show it in; in the records, every field with a sensitive name is written
[REDACTED], at any depth.

Exit status: 0 when the package was written, 2 on an error.")]
pub(crate) struct PackageArgs {
    /// Logs to take the records from, in order: plain or gzip-compressed
    /// files, `-` for standard input.
    #[arg(long = "logs", value_name = "FILE", num_args = 1.., required = true)]
    logs: Vec<String>,
    #[command(flatten)]
    select: Select,
    /// The function's URL: `ccfn probe` runs against it, and the
    /// reproduction commands call it.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// The folder to write the package in.
    #[arg(long = "out", short = 'o', value_name = "DIR")]
    out: PathBuf,
    #[command(flatten)]
    bounds: input::Bounds,
}

/// The files of a package, in the order the README lists them, with what
/// each holds.
const FILES: [(&str, &str); 10] = [
    ("records.jsonl", "The records of the selection, as the functions wrote them (JSON lines)."),
    ("invocations.txt", "One line per invocation: time, function, invocation id, call, outcome, duration, first error (`ccfn logs --invocations`)."),
    ("errors.txt", "The exact error messages: every ERROR record and every validation error, with its time, invocation and step."),
    ("diagnose.txt", "The decision tree run over the records (`ccfn diagnose`); `diagnose.json` is the same as data."),
    ("diagnose.json", "The verdict of `diagnose.txt`, as JSON."),
    ("probe.txt", "The endpoint test (`ccfn probe`): DNS, TLS, HEAD, a signed POST; `probe.json` is the same as data. Only with `--url`."),
    ("doctor.txt", "The call followed across the platform and the records (`ccfn doctor --all`); `doctor.json` is the same as data. Only with `--call` and the platform's credentials (`ACCOUNT_SID` with `AUTH_TOKEN` or an API key pair)."),
    ("reproduce.sh", "A command per failing invocation, rebuilt from its `start` record's event: `ccfn probe` (signed) and `curl`. Sensitive values are placeholders to fill in; an event over 8 KiB is kept cut, and marked `# CUT:`."),
    ("environment.txt", "The ccfn version, the system, the command line, and the ccfn settings set in the environment (secret values written `[REDACTED]`)."),
    ("README.md", "This file."),
];

/// Failing invocations given a reproduction command, at most.
const REPRODUCED_MAX: usize = 200;
/// What is kept of a `start` record's event to rebuild a reproduction,
/// at most, in bytes (each parameter's name and value counted): the
/// platform's requests carry a few dozen short parameters (a voice
/// webhook's are under 2 KiB), so 8 KiB keeps every real one whole, and
/// [`summary::OPEN_MAX`] open invocations hold at most 32 MiB of them.
/// A parameter that does not fit is left out, and the script says so.
pub(crate) const START_EVENT_MAX: usize = 8 * 1024;

/// Names of the parameters left out of a cut event kept, at most, to be
/// named in the script.
const LEFT_OUT_NAMED: usize = 8;

/// What is kept of an invocation's `start` record: its event's
/// parameters (name, value as text), those that fit in
/// [`START_EVENT_MAX`], in order.
#[derive(Debug, Default, PartialEq)]
struct Start {
    params: Vec<(String, String)>,
    /// Whether the event holds a `mode` parameter (kept or not).
    has_mode: bool,
    /// The parameters left out, when some were: how many, their bytes,
    /// the first names (cut as [`summary::NAME_MAX`]).
    left_out: Option<LeftOut>,
}

/// The parameters of an event left out of what is kept.
#[derive(Debug, Default, PartialEq)]
struct LeftOut {
    count: usize,
    bytes: usize,
    names: Vec<String>,
}

impl Start {
    /// What is kept of `record`'s event (none when it holds no object
    /// `event`).
    fn keep(record: &Map<String, Value>) -> Option<Start> {
        let event = record.get("event")?.as_object()?;
        let mut start = Start {
            has_mode: event.contains_key("mode"),
            ..Start::default()
        };
        let mut room = START_EVENT_MAX;
        for (name, value) in event {
            let size = name.len()
                + value
                    .as_str()
                    .map_or_else(|| value.to_string().len(), str::len);
            if size <= room {
                room -= size;
                let value = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned);
                start.params.push((name.clone(), value));
            } else {
                let left_out = start.left_out.get_or_insert_with(LeftOut::default);
                left_out.count += 1;
                left_out.bytes += size;
                if left_out.names.len() < LEFT_OUT_NAMED {
                    left_out.names.push(summary::cut(name, summary::NAME_MAX));
                }
            }
        }
        Some(start)
    }
}

/// The `start` records kept of the invocations being read: an entry per
/// invocation open (its `start` record's event once read), at most a
/// bound of them, given up the oldest first exactly as
/// [`summary::Open`] gives up its invocations (the same bound, the same
/// order), so that the invocations counted as given up are the same.
#[derive(Debug)]
struct Starts {
    by_id: HashMap<String, Option<Start>>,
    order: VecDeque<String>,
    max: usize,
    given_up: u64,
}

impl Starts {
    fn new(max: usize) -> Starts {
        Starts {
            by_id: HashMap::new(),
            order: VecDeque::new(),
            max: max.max(1),
            given_up: 0,
        }
    }

    /// Takes in one record (before [`summary::Open::add`] takes it);
    /// returns what was kept of its invocation's `start` when it is the
    /// `end`.
    fn add(&mut self, record: &Map<String, Value>) -> Option<Option<Start>> {
        let text = |key: &str| record.get(key).and_then(Value::as_str);
        let id = summary::cut(text("invocation_id")?, summary::NAME_MAX);
        let step = text("step").unwrap_or_default();
        if !self.by_id.contains_key(&id) {
            while self.by_id.len() >= self.max {
                let Some(oldest) = self.order.pop_front() else {
                    break;
                };
                if self.by_id.remove(&oldest).is_some() {
                    self.given_up += 1;
                }
            }
            self.order.push_back(id.clone());
            self.by_id.insert(id.clone(), None);
        }
        let kept = self.by_id.get_mut(&id)?;
        if step == "start" && kept.is_none() {
            *kept = Start::keep(record);
        }
        if step != "end" {
            return None;
        }
        if let Some(at) = self.order.iter().position(|open| *open == id) {
            self.order.remove(at);
        }
        self.by_id.remove(&id)
    }
}

/// What is read from the logs for the package; the records, the summary
/// and the errors are written to their files as they are read, so memory
/// does not grow with the logs.
#[derive(Default)]
struct Gathered {
    count: u64,
    invocations: u64,
    /// The failing invocations, with what was kept of their `start`
    /// record when it was read.
    failing: Vec<(Invocation, Option<Start>)>,
    failing_total: u64,
    /// Invocations given up before their end (and their `start` record
    /// with them), for want of room.
    given_up: u64,
    skipped: u64,
    /// Whether a field with a sensitive name was redacted (its value
    /// registered after earlier lines were written).
    redacted: bool,
}

/// A file of the package, written line by line, each cleaned ([`clean`]).
struct Lines {
    name: &'static str,
    path: PathBuf,
    out: std::io::BufWriter<std::fs::File>,
}

impl Lines {
    fn create(dir: &Path, name: &'static str) -> Result<Lines, Problem> {
        let path = dir.join(name);
        let file = std::fs::File::create(&path)
            .map_err(|err| Problem::write(&path.display().to_string(), err))?;
        Ok(Lines {
            name,
            path,
            out: std::io::BufWriter::new(file),
        })
    }

    /// Writes `text` as one line: a newline in it is written `\n`.
    fn line(&mut self, text: &str) -> std::io::Result<()> {
        writeln!(self.out, "{}", clean(self.name, text).replace('\n', "\\n"))
    }

    fn finish(mut self) -> Result<(), Problem> {
        self.out
            .flush()
            .map_err(|err| Problem::write(&self.path.display().to_string(), err))
    }
}

fn gather(args: &PackageArgs, filter: &Filter, dir: &Path) -> Result<Gathered, Problem> {
    let mut gathered = Gathered::default();
    let mut open = Open::new(args.bounds.max_open_invocations);
    let mut starts = Starts::new(args.bounds.max_open_invocations);
    let mut records = Lines::create(dir, "records.jsonl")?;
    let mut summary = Lines::create(dir, "invocations.txt")?;
    let mut errors = Lines::create(dir, "errors.txt")?;
    let mut failed: Option<std::io::Error> = None;
    let mut too_long = 0;
    for arg in &args.logs {
        let source = Source::new(arg);
        let mut on_line = |line: &[u8]| {
            let Some(raw) = Raw::find(line) else {
                if !line.iter().all(u8::is_ascii_whitespace) {
                    gathered.skipped += 1;
                }
                return ControlFlow::Continue(());
            };
            if !filter.matches(&raw) {
                return ControlFlow::Continue(());
            }
            gathered.count += 1;
            let Some(mut record) = raw.parse() else {
                let written = records.line(&String::from_utf8_lossy(raw.json));
                return match written {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(err) => {
                        failed = Some(err);
                        ControlFlow::Break(())
                    }
                };
            };
            let mut whole = Value::Object(std::mem::take(&mut record));
            let written = if redact_sensitive(&mut whole) {
                gathered.redacted = true;
                records.line(&whole.to_string())
            } else {
                records.line(&String::from_utf8_lossy(raw.json))
            };
            let Value::Object(record) = whole else {
                unreachable!("an object stays an object")
            };
            let text = |key: &str| record.get(key).and_then(Value::as_str).unwrap_or("-");
            let step = text("step");
            let mut written_error = Ok(());
            if text("level") == "ERROR" || step == "validation_error" {
                let what = record
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or(text("message"));
                written_error = errors.line(&format!(
                    "{} {} {} [{}] {what}",
                    text("timestamp"),
                    text("function"),
                    text("invocation_id"),
                    step
                ));
            }
            let start = starts.add(&record);
            let mut written_summary = Ok(());
            if let Some(ended) = open.add(&record) {
                gathered.invocations += 1;
                written_summary = summary.line(&ended.to_line());
                let start = start.flatten();
                if ended.outcome != "success" || ended.first_error.is_some() {
                    gathered.failing_total += 1;
                    if gathered.failing.len() < REPRODUCED_MAX {
                        gathered.failing.push((ended, start));
                    }
                }
            }
            match written.and(written_error).and(written_summary) {
                Ok(()) => ControlFlow::Continue(()),
                Err(err) => {
                    failed = Some(err);
                    ControlFlow::Break(())
                }
            }
        };
        too_long += input::read_bounded(&source, None, args.bounds.max_line_bytes, &mut on_line)
            .map_err(|err| Problem::read(&source.name(), err))?;
        if let Some(err) = failed.take() {
            return Err(Problem::write("the package", err));
        }
    }
    records.finish()?;
    summary.finish()?;
    errors.finish()?;
    let (given_up, still_open) = (open.given_up(), open.len());
    debug_assert_eq!(given_up, starts.given_up, "the same invocations given up");
    gathered.given_up = given_up;
    crate::logs::report_bounds(" package", too_long, &args.bounds, given_up, still_open);
    if gathered.redacted {
        // A value registered at line N may be in an earlier line.
        for file in ["records.jsonl", "invocations.txt", "errors.txt"] {
            rescrub(dir, file)
                .map_err(|err| Problem::write(&dir.join(file).display().to_string(), err))?;
        }
    }
    Ok(gathered)
}

/// Scrubs the file `name` of `dir` again, line by line, with every
/// secret registered since it was written.
fn rescrub(dir: &Path, name: &str) -> std::io::Result<()> {
    use std::io::BufRead as _;
    let path = dir.join(name);
    let again = path.with_extension("scrubbing");
    {
        let input = std::io::BufReader::new(std::fs::File::open(&path)?);
        let mut out = std::io::BufWriter::new(std::fs::File::create(&again)?);
        for line in input.split(b'\n') {
            writeln!(out, "{}", clean(name, &String::from_utf8_lossy(&line?)))?;
        }
        out.flush()?;
    }
    std::fs::rename(&again, path)
}

/// `text` as the package's file `name` holds it: every secret scrubbed,
/// the user information of every URL removed, and no raw control
/// character but newline and tab (escaped as on the terminal, and as
/// `\u00XX` in JSON, which stays the same JSON): a file read with `cat`
/// cannot act on the reader's terminal.
fn clean(name: &str, text: &str) -> String {
    let text = crate::terminal::clean(text);
    if name.ends_with(".json") || name.ends_with(".jsonl") {
        crate::terminal::visible_json(&text).into_owned()
    } else {
        crate::terminal::visible(&text).into_owned()
    }
}

/// The environment file: versions, system, command line, settings.
fn environment(now: SystemTime) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "taken: {}", when::stamp(now));
    let _ = writeln!(out, "ccfn: {}", clap::crate_version!());
    let _ = writeln!(
        out,
        "system: {} {}",
        std::env::consts::OS,
        std::env::consts::ARCH
    );
    let args: Vec<String> = std::env::args().collect();
    let _ = writeln!(out, "command: {}", args.join(" "));
    let _ = writeln!(out, "\nccfn settings set in the environment:");
    let declared: Vec<String> = std::env::var("CCFN_SECRETS")
        .unwrap_or_default()
        .split(',')
        .map(|name| name.trim().to_owned())
        .collect();
    let mut any = false;
    for setting in ccfn_core::config::SETTINGS {
        let name = setting.name();
        let Some(value) = std::env::var_os(name) else {
            continue;
        };
        any = true;
        let shown = if is_secret(name, &declared) {
            record::REDACTED.to_owned()
        } else {
            value.to_string_lossy().into_owned()
        };
        let _ = writeln!(out, "  {name}={shown}");
    }
    if !any {
        out.push_str("  (none)\n");
    }
    out
}

fn readme(now: SystemTime, what: &str, written: &[&str], gathered: &Gathered) -> String {
    let mut out = format!(
        "# ccfn escalation package\n\n\
         Taken {} (UTC) by `ccfn package`, for {what}: {} records, {} invocations.\n\
         Every file was scrubbed of the secret values of the environment it was\n\
         taken in.\n\n| File | What it holds |\n|---|---|\n",
        when::stamp(now),
        gathered.count,
        gathered.invocations
    );
    for (name, holds) in FILES {
        if written.contains(&name) {
            let _ = writeln!(out, "| `{name}` | {holds} |");
        }
    }
    out
}

/// Runs `ccfn package`.
pub(crate) fn run(args: &PackageArgs) -> Result<ExitCode, Error> {
    write_package(args).map_err(Error::of("package"))
}

fn write_package(args: &PackageArgs) -> Result<ExitCode, Problem> {
    let secrets = register_secrets()
        + register_argument_secrets()
        + args.url.as_deref().map_or(0, record::register_url_secrets);
    let now = SystemTime::now();
    let selected = args.select.read(now)?;
    let what = selected.what.unwrap_or_else(|| "every record".to_owned());
    let filter = selected.filter;

    let stamp: String = when::stamp(now)
        .chars()
        .filter(|c| !matches!(c, '-' | ':'))
        .take(15)
        .collect::<String>()
        + "Z";
    let name = format!("ccfn-package-{stamp}");
    let dir = args.out.join(&name);
    if dir.exists() {
        return Err(Problem::exists(&dir.display().to_string()));
    }
    std::fs::create_dir_all(&dir)
        .map_err(|err| Problem::create(&dir.display().to_string(), err))?;

    let gathered = gather(args, &filter, &dir)?;
    let mut written: Vec<&str> = Vec::new();
    let write = |file: &str, text: &str| -> Result<(), Problem> {
        let path = dir.join(file);
        std::fs::write(&path, clean(file, text))
            .map_err(|err| Problem::write(&path.display().to_string(), err))
    };
    written.extend(["records.jsonl", "invocations.txt", "errors.txt"]);

    let verdict = diagnose::verdict(&diagnose::DiagnoseArgs::over(vec![dir
        .join("records.jsonl")
        .to_string_lossy()
        .into_owned()]))?;
    write("diagnose.txt", &verdict.human)?;
    write("diagnose.json", &format!("{:#}\n", verdict.json))?;
    written.extend(["diagnose.txt", "diagnose.json"]);

    if let Some(url) = &args.url {
        let results = probe::results(&probe::ProbeArgs::url(url))?;
        write("probe.txt", &results.human)?;
        write("probe.json", &format!("{:#}\n", results.json))?;
        written.extend(["probe.txt"]);
    }
    if let Some(call) = &args.select.call {
        let records = dir.join("records.jsonl").to_string_lossy().into_owned();
        match crate::doctor::examine(&crate::doctor::DoctorArgs::for_package(call, records)) {
            Ok((text, json, _)) => {
                write("doctor.txt", &text)?;
                write("doctor.json", &format!("{json:#}\n"))?;
                written.push("doctor.txt");
            }
            Err(err) => crate::terminal::say(" package", &format!("doctor.txt not written: {err}")),
        }
    }
    write("reproduce.sh", &reproduce(&gathered, args.url.as_deref()))?;
    write("environment.txt", &environment(now))?;
    written.extend(["reproduce.sh", "environment.txt", "README.md"]);
    write("README.md", &readme(now, &what, &written, &gathered))?;

    let tarball = args.out.join(format!("{name}.tar.gz"));
    archive(&dir, &name, &tarball)
        .map_err(|err| Problem::write(&tarball.display().to_string(), err))?;
    let mut out = String::new();
    let _ = writeln!(out, "{}", dir.display());
    let _ = writeln!(out, "{}", tarball.display());
    crate::write_out(&out)?;
    crate::terminal::say(
        " package",
        &format!(
            "{} records, {} invocations, diagnose: {}; {secrets} secret values scrubbed from every file",
            gathered.count,
            gathered.invocations,
            verdict.json["answer"].as_str().unwrap_or("-"),
        ),
    );
    if gathered.skipped > 0 {
        crate::terminal::say(
            " package",
            &format!(
                "skipped {} lines that are not ccfn records",
                gathered.skipped
            ),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `dir` as `name/..` in a gzip-compressed tar file at `tarball`.
fn archive(dir: &Path, name: &str, tarball: &Path) -> std::io::Result<()> {
    let file = std::fs::File::create(tarball)?;
    let encoder = flate2::write::GzEncoder::new(file, flate2::Compression::default());
    let mut tar = tar::Builder::new(encoder);
    tar.append_dir_all(name, dir)?;
    let mut encoder = tar.into_inner()?;
    encoder.flush()?;
    encoder.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, step: &str) -> Map<String, Value> {
        let value = serde_json::json!({
            "invocation_id": id, "step": step,
            "event": {"Digits": id},
        });
        value.as_object().unwrap().clone()
    }

    /// The starts kept give up the very invocations the summary gives up,
    /// whatever the order of the records (an invocation's first record
    /// not its `start`, ids longer than kept).
    #[test]
    fn starts_give_up_what_the_summary_gives_up() {
        let mut open = Open::new(5);
        let mut starts = Starts::new(5);
        let long = "x".repeat(500);
        for n in 0..200 {
            let id = format!("{}{}", if n % 7 == 0 { long.as_str() } else { "" }, n % 37);
            let step = ["log", "start", "end", "start"][n % 4];
            let kept = starts.add(&record(&id, step));
            let ended = open.add(&record(&id, step));
            assert_eq!(kept.is_some(), ended.is_some(), "record {n}");
            assert_eq!(starts.given_up, open.given_up(), "record {n}");
            assert_eq!(starts.by_id.len(), open.len(), "record {n}");
            assert!(starts.by_id.len() <= 5 && starts.order.len() <= 5);
        }
        assert!(open.given_up() > 0);
    }

    /// An event is kept whole up to [`START_EVENT_MAX`]; past it, the
    /// parameters that do not fit are left out and counted.
    #[test]
    fn an_event_is_kept_up_to_its_bound() {
        let whole = serde_json::json!({"step": "start", "event": {
            "A": "a".repeat(START_EVENT_MAX - 1),
        }});
        let kept = Start::keep(whole.as_object().unwrap()).unwrap();
        assert_eq!(kept.params.len(), 1);
        assert_eq!(kept.left_out, None);
        let over = serde_json::json!({"step": "start", "event": {
            "A": "a".repeat(START_EVENT_MAX), "mode": 1, "B": [1, 2],
        }});
        let kept = Start::keep(over.as_object().unwrap()).unwrap();
        assert!(kept.has_mode);
        assert_eq!(kept.params.len(), 2, "{:?}", kept.params);
        assert!(kept.params.contains(&("B".to_owned(), "[1,2]".to_owned())));
        assert!(kept.params.contains(&("mode".to_owned(), "1".to_owned())));
        let left_out = kept.left_out.unwrap();
        assert_eq!(
            (left_out.count, left_out.bytes, left_out.names),
            (1, START_EVENT_MAX + 1, vec!["A".to_owned()])
        );
    }
}
