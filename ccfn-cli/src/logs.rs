//! `ccfn logs`: the spec's log filters over files, gzip files and standard
//! input, streamed.

use std::collections::VecDeque;
use std::io::{self, Read, Seek as _, SeekFrom, Write};
use std::ops::ControlFlow;
use std::process::ExitCode;
use std::time::SystemTime;

use ccfn_core::record::{self, LogFormat};
use memchr::memmem::Finder;

use crate::filter::{Filter, Select, DISORDER};
use crate::input::{self, Change, Lines, Opened, Source};
use crate::line::Raw;
use crate::summary::{Invocation, Open};
use crate::terminal::{self, Stream};
use crate::when;

/// The limit `--since` and `--until` imply when `--limit` is not given.
const DATE_LIMIT: usize = 100;

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  ccfn logs --error --since 2026-11-21 --limit 100 app.log
  ccfn logs --call CA0123456789abcdef0123456789abcdef app.log.1.gz app.log
  ccfn logs --function wait-experience --warn --error --since 2h app.log
  kubectl logs deploy/contact-center | ccfn logs --invocations
  ccfn logs --follow --error app.log

Exit status: 0 when a record matched, 1 when none did, 2 on an error
(an unreadable file, a bad option).")]
pub(crate) struct LogsArgs {
    /// Logs to read, in order: plain or gzip-compressed files, `-` for
    /// standard input (the default).
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    /// Records at level ERROR.
    #[arg(long)]
    error: bool,
    /// Records at level WARN.
    #[arg(long)]
    warn: bool,
    /// The `success` records ("Function completed successfully").
    /// `--error`, `--warn` and `--success` add up.
    #[arg(long)]
    success: bool,
    #[command(flatten)]
    select: Select,
    /// Only the last N matching records (the last 100 when `--since` or
    /// `--until` is given).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    limit: Option<u64>,
    /// Records of this step (`start`, `error`, `task_error`, ...).
    #[arg(long, value_name = "STEP", value_parser = step_name)]
    step: Option<String>,
    /// Keep reading as the file grows (through rotation and truncation).
    #[arg(long, short = 'f')]
    follow: bool,
    /// The matching records as they are, one JSON object per line.
    #[arg(long)]
    json: bool,
    /// One line per invocation: time, function, invocation id, call,
    /// outcome, duration, first error. With `--json`, one object each.
    #[arg(long)]
    invocations: bool,
    /// Every field of each record, not only the headline.
    #[arg(long, conflicts_with_all = ["json", "invocations"])]
    full: bool,
    /// Colour the human format: `auto` (on a terminal, unless NO_COLOR is
    /// set), `always` or `never`.
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    color: clap::ColorChoice,
}

/// A step of the record catalogue.
fn step_name(name: &str) -> Result<String, String> {
    if record::step(name).is_some() {
        return Ok(name.to_owned());
    }
    let names: Vec<&str> = record::ALL.iter().map(|step| step.name()).collect();
    Err(format!(
        "not a step ccfn writes; one of: {}",
        names.join(", ")
    ))
}

/// What is printed: records, or invocation summaries.
enum Item {
    Record(Vec<u8>),
    Invocation(Invocation),
}

/// Writes items as the options ask, through the terminal module's rule.
struct Printer<W: Write> {
    out: Stream<W>,
    format: Option<LogFormat>,
    color: bool,
}

impl<W: Write> Printer<W> {
    fn print_record(&mut self, json: &[u8]) -> io::Result<()> {
        let Some(format) = self.format else {
            return self.out.json_line(&String::from_utf8_lossy(json));
        };
        let Ok(record) = serde_json::from_slice(json) else {
            // Not JSON after all: shown as it is, escaped.
            return self.out.line(&String::from_utf8_lossy(json));
        };
        let text = format.render(&record);
        if self.color {
            self.out.line_styled(&text, level_colour)
        } else {
            self.out.line(&text)
        }
    }

    fn print_invocation(&mut self, invocation: &Invocation) -> io::Result<()> {
        if self.format.is_none() {
            self.out.json_line(&invocation.to_json().to_string())
        } else {
            self.out.line(&invocation.to_line())
        }
    }

    fn print(&mut self, item: &Item) -> io::Result<()> {
        match item {
            Item::Record(json) => self.print_record(json),
            Item::Invocation(invocation) => self.print_invocation(invocation),
        }
    }
}

/// Where the level (the second word of a human-format line) is, and its
/// colour.
fn level_colour(text: &str) -> Option<(std::ops::Range<usize>, &'static str)> {
    let mut words = text.splitn(3, ' ');
    let (Some(time), Some(level), Some(_)) = (words.next(), words.next(), words.next()) else {
        return None;
    };
    let code = match level {
        "ERROR" => "31",
        "WARN" => "33",
        "INFO" => "32",
        _ => "2",
    };
    let start = time.len() + 1;
    Some((start..start + level.len(), code))
}

/// Counts and the ring of `--limit`.
struct Run<'a, W: Write> {
    args: &'a LogsArgs,
    filter: Filter,
    /// Prefilter of the records an invocation summary needs.
    summary_steps: [Finder<'static>; 2],
    open: Open,
    printer: Printer<W>,
    ring: Option<(usize, VecDeque<Item>)>,
    matched: u64,
    skipped: u64,
    /// `--since` less the allowed disorder: where a time-ordered file's
    /// search for the first record lands.
    seek_to: Option<String>,
    /// `--until` plus the allowed disorder: a time-ordered file can stop
    /// reading past it.
    stop_after: Option<String>,
    /// Whether stdout was closed (`| head`): stop quietly.
    closed: bool,
}

impl<W: Write> Run<'_, W> {
    /// Handles one line; breaks when reading can stop.
    fn line(&mut self, line: &[u8], ordered: bool) -> ControlFlow<()> {
        let Some(raw) = Raw::find(line) else {
            if !line.iter().all(u8::is_ascii_whitespace) {
                self.skipped += 1;
            }
            return ControlFlow::Continue(());
        };
        if ordered
            && self
                .filter
                .is_past(raw.timestamp, self.stop_after.as_deref())
        {
            return ControlFlow::Break(());
        }
        let item = if self.args.invocations {
            match self.invocation(&raw) {
                Some(invocation) => Item::Invocation(invocation),
                None => return ControlFlow::Continue(()),
            }
        } else if self.filter.matches(&raw) {
            Item::Record(raw.json.to_vec())
        } else {
            return ControlFlow::Continue(());
        };
        self.matched += 1;
        if let Some((limit, ring)) = &mut self.ring {
            if ring.len() == *limit {
                ring.pop_front();
            }
            ring.push_back(item);
            return ControlFlow::Continue(());
        }
        self.emit(&item)
    }

    fn emit(&mut self, item: &Item) -> ControlFlow<()> {
        match self.printer.print(item) {
            Ok(()) => ControlFlow::Continue(()),
            Err(err) if err.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                ControlFlow::Break(())
            }
            Err(err) => {
                terminal::say(" logs", &format!("cannot write: {err}"));
                self.closed = true;
                ControlFlow::Break(())
            }
        }
    }

    /// Takes a record into its invocation; the invocation when it ended
    /// and passes the filters.
    fn invocation(&mut self, raw: &Raw<'_>) -> Option<Invocation> {
        let needed = raw.level == b"ERROR"
            || raw.level == b"WARN"
            || self.args.step.is_some()
            || self.summary_steps.iter().any(|step| raw.contains(step));
        if !needed {
            return None;
        }
        let ended = self.open.add(&raw.parse()?)?;
        let a = self.args;
        let kind = (!a.error && !a.warn && !a.success)
            || (a.error && ended.outcome == "error")
            || (a.warn && ended.warned)
            || (a.success && ended.outcome == "success");
        let select = &a.select;
        let fields = select
            .call
            .as_ref()
            .is_none_or(|c| ended.call_sid.as_ref() == Some(c))
            && select.invocation.as_ref().is_none_or(|i| *i == ended.id)
            && select
                .function
                .as_ref()
                .is_none_or(|f| *f == ended.function)
            && a.step.as_ref().is_none_or(|s| ended.steps.contains(s));
        (kind && fields && self.filter.in_time(ended.time.as_bytes())).then_some(ended)
    }

    /// Reads one source to its end (or, following, forever).
    fn source(&mut self, source: &Source) -> io::Result<()> {
        let opened = input::open(source)?;
        let mut lines = Lines::new();
        match opened {
            Opened::Plain(mut file) => {
                if let Some(target) = &self.seek_to {
                    let start = input::seek_time(&mut file, target.as_bytes())?;
                    file.seek(SeekFrom::Start(start))?;
                }
                let flow = self.read(&mut lines, &mut file, true)?;
                let mut position = file.stream_position()?;
                if flow.is_break() {
                    return Ok(());
                }
                if !self.args.follow {
                    lines.finish(&mut |line| self.line(line, true));
                    return Ok(());
                }
                let Source::File(path) = source else {
                    unreachable!("a plain file has a path")
                };
                self.flush_ring();
                loop {
                    std::thread::sleep(input::POLL);
                    match input::change(path, &file, position)? {
                        Change::Same => continue,
                        Change::Grew => {}
                        Change::Truncated => {
                            lines.clear();
                            file.seek(SeekFrom::Start(0))?;
                        }
                        Change::Replaced => {
                            // What the old file got last, then the new one.
                            if self.read(&mut lines, &mut file, false)?.is_break() {
                                return Ok(());
                            }
                            lines.finish(&mut |line| self.line(line, false));
                            file = match std::fs::File::open(path) {
                                Ok(file) => file,
                                Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
                                Err(err) => return Err(err),
                            };
                        }
                    }
                    let flow = self.read(&mut lines, &mut file, false)?;
                    position = file.stream_position()?;
                    if flow.is_break() || self.printer.out.flush().is_err() {
                        return Ok(());
                    }
                }
            }
            Opened::Gzip(_) if self.args.follow => {
                return Err(io::Error::other(
                    "--follow cannot follow a gzip-compressed file",
                ));
            }
            opened @ (Opened::Gzip(_) | Opened::Stdin(_)) => {
                if self.args.follow {
                    self.flush_ring();
                }
                input::read_opened(opened, None, &mut |line| self.line(line, false))?;
            }
        }
        Ok(())
    }

    fn read(
        &mut self,
        lines: &mut Lines,
        reader: &mut dyn Read,
        ordered: bool,
    ) -> io::Result<ControlFlow<()>> {
        lines.read(reader, &mut |line| self.line(line, ordered))
    }

    /// Prints what `--limit` kept, then streams from there on.
    fn flush_ring(&mut self) {
        if let Some((_, ring)) = self.ring.take() {
            for item in &ring {
                if self.emit(item).is_break() {
                    break;
                }
            }
        }
        let _ = self.printer.out.flush();
    }
}

/// Runs `ccfn logs`.
pub(crate) fn run(args: &LogsArgs) -> Result<ExitCode, String> {
    let now = SystemTime::now();
    let selected = args.select.read(now)?;
    let (since, until) = (selected.since, selected.until);
    let seek_to = selected.seek_to();
    let mut filter = selected.filter;
    if args.error {
        filter = filter.level("ERROR");
    }
    if args.warn {
        filter = filter.level("WARN");
    }
    if args.success {
        filter = filter.success();
    }
    if let Some(step) = &args.step {
        filter = filter.field("step", step);
    }
    let sources: Vec<Source> = if args.files.is_empty() {
        vec![Source::Stdin]
    } else {
        args.files.iter().map(|f| Source::new(f)).collect()
    };
    if args.follow && sources.len() != 1 {
        return Err("--follow reads one file (or standard input)".to_owned());
    }
    let limit = args
        .limit
        .or((since.is_some() || until.is_some()).then_some(DATE_LIMIT as u64));
    let color = match args.color {
        clap::ColorChoice::Always => true,
        clap::ColorChoice::Never => false,
        clap::ColorChoice::Auto => {
            terminal::stdout_is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    let format = if args.json {
        None
    } else if args.full {
        Some(LogFormat::PrettyFull)
    } else {
        Some(LogFormat::Pretty)
    };
    let mut run = Run {
        args,
        seek_to,
        stop_after: until.and_then(|u| u.checked_add(DISORDER)).map(when::stamp),
        filter,
        summary_steps: [
            Finder::new(br#""step":"start""#).into_owned(),
            Finder::new(br#""step":"end""#).into_owned(),
        ],
        open: Open::default(),
        printer: Printer {
            out: terminal::stdout_stream(),
            format,
            color,
        },
        ring: limit.map(|n| (usize::try_from(n).unwrap_or(usize::MAX), VecDeque::new())),
        matched: 0,
        skipped: 0,
        closed: false,
    };
    for source in &sources {
        if let Err(err) = run.source(source) {
            let _ = run.printer.out.flush();
            return Err(format!("cannot read {}: {err}", source.name()));
        }
        if run.closed {
            break;
        }
    }
    let kept = run.ring.as_ref().map(|(_, ring)| ring.len() as u64);
    run.flush_ring();
    let _ = run.printer.out.flush();
    let what = if args.invocations {
        "invocations"
    } else {
        "records"
    };
    if let Some(kept) = kept.filter(|kept| *kept < run.matched) {
        terminal::say(
            " logs",
            &format!(
                "showing the last {kept} of {} matching {what} (--limit)",
                run.matched
            ),
        );
    }
    if run.skipped > 0 {
        terminal::say(
            " logs",
            &format!("skipped {} lines that are not ccfn records", run.skipped),
        );
    }
    Ok(if run.matched > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
