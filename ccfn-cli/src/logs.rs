//! `ccfn logs`: the spec's log filters over files, gzip files and standard
//! input, streamed.

use std::collections::VecDeque;
use std::io::{self, Read, Seek as _, SeekFrom, Write};
use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;
use std::time::SystemTime;

use ccfn_core::record::{self, LogFormat};
use memchr::memmem::Finder;

use crate::error::{Error, Problem};
use crate::filter::{Filter, Select, DISORDER};
use crate::input::{self, Bounds, Change, Followed, Lines, Opened, Source};
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
    #[command(flatten)]
    bounds: Bounds,
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

/// What `--limit` holds of the records (or summaries) it keeps, at most,
/// in bytes: 100 records (the limit `--since` implies) of the longest
/// line would be 100 MiB, so the last records are kept up to 64 MiB, and
/// the count shown says how many were.
const RING_BYTES_MAX: usize = 64 << 20;

/// What is printed: records, or invocation summaries.
enum Item {
    Record(Vec<u8>),
    Invocation(Invocation),
}

impl Item {
    /// About what the item holds, in bytes.
    fn weight(&self) -> usize {
        match self {
            Item::Record(json) => json.len(),
            Item::Invocation(i) => {
                let texts = [&i.id, &i.time, &i.function, &i.outcome];
                let steps: usize = i.steps.iter().map(String::len).sum();
                texts.iter().map(|t| t.len()).sum::<usize>()
                    + i.call_sid.as_ref().map_or(0, String::len)
                    + i.first_error.as_ref().map_or(0, String::len)
                    + steps
                    + 256
            }
        }
    }
}

/// The last items matched, for `--limit`: at most `limit` of them, and at
/// most `bytes_max` bytes of them (the newest always kept).
struct Ring {
    limit: usize,
    bytes_max: usize,
    items: VecDeque<(Item, usize)>,
    bytes: usize,
}

impl Ring {
    fn new(limit: usize, bytes_max: usize) -> Ring {
        Ring {
            limit,
            bytes_max,
            items: VecDeque::new(),
            bytes: 0,
        }
    }

    fn push(&mut self, item: Item) {
        let weight = item.weight();
        self.bytes += weight;
        self.items.push_back((item, weight));
        while self.items.len() > self.limit || (self.bytes > self.bytes_max && self.items.len() > 1)
        {
            if let Some((_, dropped)) = self.items.pop_front() {
                self.bytes -= dropped;
            }
        }
    }

    fn len(&self) -> usize {
        self.items.len()
    }
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
    ring: Option<Ring>,
    matched: u64,
    skipped: u64,
    /// Lines skipped for being longer than `--max-line-bytes`.
    too_long: u64,
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
        if let Some(ring) = &mut self.ring {
            ring.push(item);
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
        let mut lines = Lines::new(self.args.bounds.max_line_bytes);
        let result = self.opened(source, opened, &mut lines);
        self.too_long += lines.skipped_long();
        result
    }

    fn opened(&mut self, source: &Source, opened: Opened, lines: &mut Lines) -> io::Result<()> {
        match opened {
            Opened::Plain(mut file) => {
                if let Some(target) = &self.seek_to {
                    let start = input::seek_time(&mut file, target.as_bytes())?;
                    file.seek(SeekFrom::Start(start))?;
                }
                let flow = self.read(lines, &mut file, true)?;
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
                let position = file.stream_position()?;
                self.follow(path, Followed::at(file, position)?, lines)
            }
            Opened::Gzip(_) if self.args.follow => Err(io::Error::other(
                "--follow cannot follow a gzip-compressed file",
            )),
            Opened::Gzip(mut reader) => {
                let flow = self.read(lines, &mut reader, false)?;
                if flow.is_continue() {
                    lines.finish(&mut |line| self.line(line, false));
                }
                Ok(())
            }
            Opened::Stdin(stdin) => {
                if self.args.follow {
                    self.flush_ring();
                }
                let flow = self.read(lines, &mut stdin.lock(), false)?;
                if flow.is_continue() {
                    lines.finish(&mut |line| self.line(line, false));
                }
                Ok(())
            }
        }
    }

    /// Follows the file at `path`, read up to where `followed` is, as
    /// `tail -F` does: through truncation (noticed by the size, or by the
    /// bytes before the offset no longer being those read), rotation and
    /// removal (noticed by the file's identity: device and inode).
    fn follow(&mut self, path: &Path, mut followed: Followed, lines: &mut Lines) -> io::Result<()> {
        self.flush_ring();
        loop {
            std::thread::sleep(input::POLL);
            match followed.change(path)? {
                Change::Same => continue,
                Change::Grew => {}
                Change::Truncated => {
                    // What was read is gone: the unfinished line too.
                    lines.clear();
                    followed.rewind()?;
                }
                Change::Replaced => {
                    // What the old file got last, then the new one.
                    if self.read(lines, &mut followed, false)?.is_break() {
                        return Ok(());
                    }
                    lines.finish(&mut |line| self.line(line, false));
                    followed = match std::fs::File::open(path) {
                        Ok(file) => Followed::at(file, 0)?,
                        Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
                        Err(err) => return Err(err),
                    };
                }
            }
            let flow = self.read(lines, &mut followed, false)?;
            if flow.is_break() || self.printer.out.flush().is_err() {
                return Ok(());
            }
        }
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
        if let Some(ring) = self.ring.take() {
            for (item, _) in &ring.items {
                if self.emit(item).is_break() {
                    break;
                }
            }
        }
        let _ = self.printer.out.flush();
    }
}

/// Runs `ccfn logs`.
pub(crate) fn run(args: &LogsArgs) -> Result<ExitCode, Error> {
    read_all(args).map_err(Error::of("logs"))
}

fn read_all(args: &LogsArgs) -> Result<ExitCode, Problem> {
    let now = SystemTime::now();
    let selected = args.select.read(now)?;
    let (since, until) = (selected.since, selected.until);
    let seek_to = selected.seek_to();
    let filter = with_flags(selected.filter, args);
    let sources: Vec<Source> = if args.files.is_empty() {
        vec![Source::Stdin]
    } else {
        args.files.iter().map(|f| Source::new(f)).collect()
    };
    if args.follow && sources.len() != 1 {
        return Err(Problem::Usage(
            "--follow reads one file (or standard input)".to_owned(),
        ));
    }
    let limit = args
        .limit
        .or((since.is_some() || until.is_some()).then_some(DATE_LIMIT as u64));
    let mut run = Run {
        args,
        seek_to,
        stop_after: until.and_then(|u| u.checked_add(DISORDER)).map(when::stamp),
        filter,
        summary_steps: [
            Finder::new(br#""step":"start""#).into_owned(),
            Finder::new(br#""step":"end""#).into_owned(),
        ],
        open: Open::new(args.bounds.max_open_invocations),
        printer: printer(args),
        ring: limit.map(|n| Ring::new(usize::try_from(n).unwrap_or(usize::MAX), RING_BYTES_MAX)),
        matched: 0,
        skipped: 0,
        too_long: 0,
        closed: false,
    };
    for source in &sources {
        if let Err(err) = run.source(source) {
            let _ = run.printer.out.flush();
            return Err(Problem::read(&source.name(), err));
        }
        if run.closed {
            break;
        }
    }
    let kept = run.ring.as_ref().map(|ring| ring.len() as u64);
    run.flush_ring();
    let _ = run.printer.out.flush();
    say_what_was_left(&run, kept, limit);
    Ok(if run.matched > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `filter` narrowed by the flags of `args`: `--error`, `--warn`,
/// `--success`, `--step`.
fn with_flags(mut filter: Filter, args: &LogsArgs) -> Filter {
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
    filter
}

/// Standard output, with the format (`--json`, `--full`) and the colour
/// (`--color`, else a terminal without `NO_COLOR`) `args` ask for.
fn printer(args: &LogsArgs) -> Printer<terminal::Stdout> {
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
    Printer {
        out: terminal::stdout_stream(),
        format,
        color,
    }
}

/// Says on standard error what the reading left out: records past the
/// limit (`kept` of them shown), lines that are not records, and what the
/// bounds gave up.
fn say_what_was_left<W: Write>(run: &Run<'_, W>, kept: Option<u64>, limit: Option<u64>) {
    let args = run.args;
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
    if let (Some(kept), Some(limit)) = (kept, limit)
        && kept < limit
        && kept < run.matched
    {
        crate::terminal::say(
            " logs",
            &format!(
                "{kept} {what} shown, not {limit}: more would have held over {} (--limit)",
                input::size(RING_BYTES_MAX)
            ),
        );
    }
    if run.skipped > 0 {
        terminal::say(
            " logs",
            &format!("skipped {} lines that are not ccfn records", run.skipped),
        );
    }
    report_bounds(
        " logs",
        run.too_long,
        &args.bounds,
        run.open.given_up(),
        run.open.len(),
    );
}

/// Says, once each, what the bounds made a command skip or give up:
/// lines over the limit, invocations given up before their end, and
/// (when some were given up) those left open at the end.
pub(crate) fn report_bounds(
    command: &str,
    too_long: u64,
    bounds: &Bounds,
    given_up: u64,
    open_at_end: usize,
) {
    if too_long > 0 {
        crate::terminal::say(
            command,
            &format!(
                "skipped {too_long} line{} longer than {} (--max-line-bytes)",
                if too_long == 1 { "" } else { "s" },
                input::size(bounds.max_line_bytes)
            ),
        );
    }
    if given_up > 0 {
        crate::terminal::say(
            command,
            &format!(
                "gave up {given_up} invocation{} before {} end, the oldest first: more than {} open at once (--max-open-invocations); {open_at_end} still open at the end",
                if given_up == 1 { "" } else { "s" },
                if given_up == 1 { "its" } else { "their" },
                bounds.max_open_invocations,
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_of_limit_keeps_the_last_items_within_its_bytes() {
        let mut ring = Ring::new(3, 100);
        for n in 0..5u8 {
            ring.push(Item::Record(vec![n; 10]));
        }
        let firsts = |ring: &Ring| -> Vec<u8> {
            ring.items
                .iter()
                .map(|(item, _)| match item {
                    Item::Record(json) => json[0],
                    Item::Invocation(_) => unreachable!(),
                })
                .collect()
        };
        assert_eq!(firsts(&ring), [2, 3, 4]);
        assert_eq!(ring.bytes, 30);
        // Heavier items: as many of the last as fit, the newest always.
        ring.push(Item::Record(vec![5; 60]));
        assert_eq!((firsts(&ring), ring.bytes), (vec![3, 4, 5], 80));
        ring.push(Item::Record(vec![6; 35]));
        assert_eq!((firsts(&ring), ring.bytes), (vec![5, 6], 95));
        ring.push(Item::Record(vec![7; 150]));
        assert_eq!((firsts(&ring), ring.bytes), (vec![7], 150));
        ring.push(Item::Record(vec![8; 10]));
        assert_eq!((firsts(&ring), ring.bytes), (vec![8], 10));
    }
}
