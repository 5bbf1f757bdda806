//! `ccfn package`: step 9 of the spec's procedure (package the evidence)
//! as one command: a folder named with the UTC time, and a `.tar.gz` of
//! it, with every file scrubbed of every secret the environment holds.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use ccfn_core::record::{self, is_sensitive_name, scrub_secrets};
use ccfn_core::Secret;
use serde_json::{Map, Value};

use crate::filter::{Filter, Select};
use crate::input::{self, Source};
use crate::line::Raw;
use crate::summary::{Invocation, Open};
use crate::{diagnose, probe, when};

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  ccfn package --logs app.log --call CA0123456789abcdef0123456789abcdef -o escalations
  ccfn package --logs app.log.1.gz app.log --function voicemail-notice --since 2h \\
      --url https://cc.example.com/features/callback-and-voicemail-with-email/voicemail/recording-complete -o .

Every value of the environment that is a secret (a sensitive name, ccfn's
secret settings, the names in CCFN_SECRETS) is scrubbed from every file.

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
    ("reproduce.sh", "A command per failing invocation, rebuilt from its `start` record's event: `ccfn probe` (signed) and `curl`. Sensitive values are placeholders to fill in."),
    ("environment.txt", "The ccfn version, the system, the command line, and the ccfn settings set in the environment (secret values written `[REDACTED]`)."),
    ("README.md", "This file."),
];

/// Registers every secret value of the environment with the scrubber;
/// returns how many.
pub(crate) fn register_secrets() -> usize {
    let declared: Vec<String> = std::env::var("CCFN_SECRETS")
        .unwrap_or_default()
        .split(',')
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .collect();
    let mut count = 0;
    for (name, value) in std::env::vars_os() {
        let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
            continue;
        };
        if is_secret(name, &declared) && !value.is_empty() {
            // Made for the scrubber, which registers every secret made.
            drop(Secret::new(value));
            count += 1;
        }
    }
    count
}

/// Whether the variable `name` holds a secret.
fn is_secret(name: &str, declared: &[String]) -> bool {
    is_sensitive_name(name)
        || declared.iter().any(|d| d == name)
        || ccfn_core::config::SETTINGS
            .iter()
            .any(|s| s.name() == name && s.is_secret())
}

/// Failing invocations given a reproduction command, at most.
const REPRODUCED_MAX: usize = 200;
/// `start` records of invocations still open, at most.
const STARTS_MAX: usize = 65_536;

/// What is read from the logs for the package; the records, the summary
/// and the errors are written to their files as they are read, so memory
/// does not grow with the logs.
#[derive(Default)]
struct Gathered {
    count: u64,
    invocations: u64,
    /// The failing invocations, with their `start` record when it was read.
    failing: Vec<(Invocation, Option<Map<String, Value>>)>,
    failing_total: u64,
    skipped: u64,
}

/// A file of the package, written line by line, each scrubbed.
struct Lines {
    path: PathBuf,
    out: std::io::BufWriter<std::fs::File>,
}

impl Lines {
    fn create(dir: &Path, name: &str) -> Result<Lines, String> {
        let path = dir.join(name);
        let file = std::fs::File::create(&path)
            .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
        Ok(Lines {
            path,
            out: std::io::BufWriter::new(file),
        })
    }

    fn line(&mut self, text: &str) -> std::io::Result<()> {
        writeln!(self.out, "{}", scrub_secrets(text))
    }

    fn finish(mut self) -> Result<(), String> {
        self.out
            .flush()
            .map_err(|err| format!("cannot write {}: {err}", self.path.display()))
    }
}

fn gather(args: &PackageArgs, filter: &Filter, dir: &Path) -> Result<Gathered, String> {
    let mut gathered = Gathered::default();
    let mut open = Open::default();
    let mut starts: HashMap<String, Map<String, Value>> = HashMap::new();
    let mut records = Lines::create(dir, "records.jsonl")?;
    let mut summary = Lines::create(dir, "invocations.txt")?;
    let mut errors = Lines::create(dir, "errors.txt")?;
    let mut failed: Option<std::io::Error> = None;
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
            let written = records.line(&String::from_utf8_lossy(raw.json));
            let Some(record) = raw.parse() else {
                return ControlFlow::Continue(());
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
            if step == "start" && starts.len() < STARTS_MAX {
                starts.insert(text("invocation_id").to_owned(), record.clone());
            }
            let mut written_summary = Ok(());
            if let Some(ended) = open.add(&record) {
                gathered.invocations += 1;
                written_summary = summary.line(&ended.to_line());
                let start = starts.remove(&ended.id);
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
        input::read_whole(&source, None, &mut on_line)
            .map_err(|err| format!("cannot read {}: {err}", source.name()))?;
        if let Some(err) = failed.take() {
            return Err(format!("cannot write the package: {err}"));
        }
    }
    records.finish()?;
    summary.finish()?;
    errors.finish()?;
    Ok(gathered)
}

/// `text` quoted for a POSIX shell.
fn shell(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The reproduction script: a `ccfn probe` and a `curl` per failing
/// invocation.
fn reproduce(gathered: &Gathered, url: Option<&str>) -> String {
    let mut out = String::from(
        "#!/bin/sh\n\
         # Reproduction commands for the failing invocations of this package, rebuilt\n\
         # from each invocation's `start` record. URL is the function's URL, as the\n\
         # platform calls it; a value the logs hid is a variable to set (its name\n\
         # says which). `ccfn probe` signs the request when AUTH_TOKEN is set; `curl`\n\
         # sends it unsigned (for a runtime without AUTH_TOKEN).\n\
         set -eu\n",
    );
    let _ = writeln!(
        out,
        "URL=\"${{URL:-{}}}\"",
        url.unwrap_or("https://set-URL-to-the-function-s-URL.invalid/")
    );
    if gathered.failing.is_empty() {
        out.push_str("\n# No invocation failed in the records of this package.\n");
    }
    if gathered.failing_total > gathered.failing.len() as u64 {
        let _ = writeln!(
            out,
            "\n# The first {} of {} failing invocations.",
            gathered.failing.len(),
            gathered.failing_total
        );
    }
    for (invocation, start) in &gathered.failing {
        let _ = writeln!(
            out,
            "\n# {} {} ({}): {}",
            invocation.time,
            invocation.function,
            invocation.id,
            invocation
                .first_error
                .as_deref()
                .unwrap_or(&invocation.outcome)
        );
        let event = start
            .as_ref()
            .and_then(|start| start.get("event"))
            .and_then(Value::as_object);
        let Some(event) = event else {
            out.push_str("# (its `start` record is not in the logs: no event to rebuild)\n");
            continue;
        };
        let mut probe_args = String::new();
        let mut curl_args = String::new();
        for (name, value) in event {
            let value = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            let pair = if value == record::REDACTED || is_sensitive_name(name) {
                let variable: String = name
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() {
                            c.to_ascii_uppercase()
                        } else {
                            '_'
                        }
                    })
                    .collect();
                format!("\"{name}=${{{variable}:?the value of {name}}}\"")
            } else {
                shell(&format!("{name}={value}"))
            };
            let _ = write!(probe_args, " --param {pair}");
            let _ = write!(curl_args, " --data-urlencode {pair}");
        }
        if !event.contains_key("mode") {
            probe_args.push_str(" --param mode=");
        }
        let _ = writeln!(out, "ccfn probe \"$URL\"{probe_args}");
        let _ = writeln!(out, "curl -sS -i -X POST \"$URL\"{curl_args}");
    }
    out
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
pub(crate) fn run(args: &PackageArgs) -> Result<ExitCode, String> {
    let secrets = register_secrets();
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
        return Err(format!("{} exists already", dir.display()));
    }
    std::fs::create_dir_all(&dir)
        .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;

    let gathered = gather(args, &filter, &dir)?;
    let mut written: Vec<&str> = Vec::new();
    let write = |file: &str, text: &str| -> Result<(), String> {
        let path = dir.join(file);
        std::fs::write(&path, scrub_secrets(text))
            .map_err(|err| format!("cannot write {}: {err}", path.display()))
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
        .map_err(|err| format!("cannot write {}: {err}", tarball.display()))?;
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
