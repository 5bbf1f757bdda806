//! Where text reaches the operator: standard output and standard error.
//!
//! What `ccfn` shows comes mostly from outside: log records written from
//! callers' requests, the platform's answers, a server's body. Such text
//! can hold terminal control sequences (an escape that moves the cursor,
//! rewrites a line, or with OSC 52 writes the operator's clipboard) and
//! secrets. Everything written goes through this module, which
//!
//! - scrubs every secret value this process knows
//!   ([`ccfn_core::record::scrub_secrets`]),
//! - shows every URL by ccfn's URL rule: its user information
//!   (`user:password@`) and sensitive query values written `[REDACTED]`
//!   ([`ccfn_core::record::display_url`]), and
//! - writes every control character visibly escaped ([`visible`]): C0
//!   but newline and tab as `\x1b`, DEL as `\x7f`, C1 as `\u{9b}`; JSON
//!   text keeps its syntax ([`visible_json`]).
//!
//! Output that streams (`ccfn logs`) goes through a [`Stream`], which
//! applies the same rule line by line, without copying a line that has
//! nothing to hide or escape. No other module of `ccfn` prints: a test
//! scans the sources.

use std::borrow::Cow;
use std::io::{self, IsTerminal as _, Write};

use ccfn_core::record::scrubbed;

use crate::error::Problem;

/// Whether `c` is written escaped in text for a person: every control
/// character but newline and tab.
fn escaped(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `text` with every control character but newline and tab escaped, so
/// that what reaches a terminal is what it shows: C0 and DEL as `\x1b`,
/// C1 as `\u{9b}`.
///
/// A backslash is left as it is: the escapes are there to be seen, not
/// to be undone.
pub(crate) fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !escaped(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

/// JSON `text` (as `serde_json` writes it) with the control characters
/// it leaves raw in strings (DEL and C1) written as `\u00XX`: the same
/// JSON, and nothing a terminal acts on. JSON's own syntax is ASCII, so
/// such a character can only be inside a string.
pub(crate) fn visible_json(text: &str) -> Cow<'_, str> {
    let raw = |c: char| c.is_control() && c != '\n';
    if !text.chars().any(raw) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if raw(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` as it may be shown: every secret scrubbed, every URL shown by
/// ccfn's URL rule (user information and sensitive query values
/// `[REDACTED]`, [`ccfn_core::record::display_url`]). Borrowed when
/// nothing was.
pub(crate) fn clean(text: &str) -> Cow<'_, str> {
    scrubbed(text)
}

/// Writes `text` to standard output, scrubbed and with its control
/// characters escaped; a closed pipe is not an error.
pub(crate) fn write_out(text: &str) -> Result<(), Problem> {
    write_raw(&visible(&clean(text)))
}

/// Writes JSON `text` to standard output, scrubbed and with no raw
/// control character; a closed pipe is not an error.
pub(crate) fn write_json_out(text: &str) -> Result<(), Problem> {
    write_raw(&visible_json(&clean(text)))
}

fn write_raw(text: &str) -> Result<(), Problem> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe => {
            Err(Problem::Output(err.to_string()))
        }
        _ => Ok(()),
    }
}

/// Writes `ccfn{command}: {text}` and a newline to standard error,
/// scrubbed and with its control characters escaped (a newline in
/// `text` too: one message, one line). `command` is `""` or `" logs"`.
pub(crate) fn say(command: &str, text: &str) {
    let one_line = visible(&clean(text)).replace('\n', "\\n");
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "ccfn{command}: {one_line}");
}

/// Writes `text` to standard error as [`write_out`] writes to standard
/// output (several lines allowed): for a usage message.
pub(crate) fn write_err(text: &str) {
    let mut err = io::stderr().lock();
    let _ = write_visible(&mut err, &clean(text)).and_then(|()| err.flush());
}

/// Whether standard output is a terminal (where colour is on by default).
pub(crate) fn stdout_is_terminal() -> bool {
    io::stdout().is_terminal()
}

/// Standard output as [`stdout_stream`] writes it: locked and buffered.
pub(crate) type Stdout = io::BufWriter<io::StdoutLock<'static>>;

/// Standard output, buffered, as a [`Stream`]: for output written line
/// by line as it is read.
pub(crate) fn stdout_stream() -> Stream<Stdout> {
    Stream::new(io::BufWriter::with_capacity(1 << 16, io::stdout().lock()))
}

/// A writer that applies this module's rule to every text it is given:
/// scrubbed, URLs without user information, control characters escaped
/// (written as they are escaped, with no copy of a text that has nothing
/// to hide or escape). The only raw bytes it writes are the colours ccfn
/// itself adds ([`Stream::line_styled`]).
pub(crate) struct Stream<W: Write> {
    out: W,
}

impl<W: Write> Stream<W> {
    /// A stream writing to `out`.
    pub(crate) fn new(out: W) -> Self {
        Stream { out }
    }

    /// Writes `text` and a newline, as [`write_out`] does.
    pub(crate) fn line(&mut self, text: &str) -> io::Result<()> {
        write_visible(&mut self.out, &clean(text))?;
        self.out.write_all(b"\n")
    }

    /// Writes JSON `text` and a newline, as [`write_json_out`] does.
    pub(crate) fn json_line(&mut self, text: &str) -> io::Result<()> {
        let text = clean(text);
        let mut kept = 0;
        for (at, c) in text.char_indices() {
            if c.is_control() && c != '\n' {
                self.out.write_all(&text.as_bytes()[kept..at])?;
                write!(self.out, "\\u{:04x}", c as u32)?;
                kept = at + c.len_utf8();
            }
        }
        self.out.write_all(&text.as_bytes()[kept..])?;
        self.out.write_all(b"\n")
    }

    /// Writes `text` and a newline as [`Stream::line`] does, with the
    /// part `style` picks (a byte range of the cleaned text, and an SGR
    /// colour code such as `31`) in that colour: the text is cleaned and
    /// escaped first, the colour added after, so no data can colour or
    /// move anything.
    pub(crate) fn line_styled(
        &mut self,
        text: &str,
        style: impl FnOnce(&str) -> Option<(std::ops::Range<usize>, &'static str)>,
    ) -> io::Result<()> {
        let text = clean(text);
        let Some((range, code)) = style(&text).filter(|(r, code)| {
            text.get(r.clone()).is_some() && code.bytes().all(|b| b.is_ascii_digit() || b == b';')
        }) else {
            write_visible(&mut self.out, &text)?;
            return self.out.write_all(b"\n");
        };
        write_visible(&mut self.out, &text[..range.start])?;
        write!(self.out, "\x1b[{code}m")?;
        write_visible(&mut self.out, &text[range.clone()])?;
        self.out.write_all(b"\x1b[0m")?;
        write_visible(&mut self.out, &text[range.end..])?;
        self.out.write_all(b"\n")
    }

    /// Flushes what is buffered.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Writes `text` to `out` as [`visible`] shows it, without a copy.
fn write_visible(out: &mut impl Write, text: &str) -> io::Result<()> {
    let mut kept = 0;
    for (at, c) in text.char_indices() {
        if escaped(c) {
            out.write_all(&text.as_bytes()[kept..at])?;
            if (c as u32) < 0x80 {
                write!(out, "\\x{:02x}", c as u32)?;
            } else {
                write!(out, "\\u{{{:x}}}", c as u32)?;
            }
            kept = at + c.len_utf8();
        }
    }
    out.write_all(&text.as_bytes()[kept..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert!(matches!(visible("plain\ttext\n"), Cow::Borrowed(_)));
        assert_eq!(
            visible("\u{1b}]52;c;aGk=\u{7}x\r\u{7f}\u{9b}2J"),
            "\\x1b]52;c;aGk=\\x07x\\x0d\\x7f\\u{9b}2J"
        );
        assert_eq!(visible("é ✓ \\x1b"), "é ✓ \\x1b");
    }

    #[test]
    fn a_stream_writes_what_visible_shows() {
        let _secret = ccfn_core::Secret::new("canary-stream-key-0a11");
        let hostile =
            "t \u{1b}]52;c;aGk=\u{7} \u{9b}2J canary-stream-key-0a11 https://u:canary-pw@h/x\r";
        let mut stream = Stream::new(Vec::new());
        stream.line(hostile).unwrap();
        stream
            .json_line(&serde_json::json!({"k\u{1b}": hostile, "d": "\u{7f}\u{9b}"}).to_string())
            .unwrap();
        stream
            .line_styled("2026 ERROR \u{1b}[31mred", |t| {
                let start = t.find(' ')? + 1;
                Some((start..start + 5, "31"))
            })
            .unwrap();
        // A colour code that is not digits is not written.
        stream
            .line_styled("x", |_| Some((0..1, "0m\u{1b}]52")))
            .unwrap();
        let out = String::from_utf8(stream.out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "t \\x1b]52;c;aGk=\\x07 \\u{9b}2J [REDACTED] https://[REDACTED]@h/x\\x0d"
        );
        let json: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(json["d"], "\u{7f}\u{9b}");
        assert!(!lines[1].contains("canary") && !lines[1].contains("u:canary-pw@"));
        assert_eq!(lines[2], "2026 \u{1b}[31mERROR\u{1b}[0m \\x1b[31mred");
        assert_eq!(lines[3], "x");
        // Outside the colours ccfn adds, no raw control character.
        let raw: Vec<char> = out
            .replace("\u{1b}[31m", "")
            .replace("\u{1b}[0m", "")
            .chars()
            .filter(|c| c.is_control() && *c != '\n')
            .collect();
        assert!(raw.is_empty(), "{raw:?} in {out}");
    }

    /// Every module of `ccfn` writes through this one: a direct print
    /// anywhere else fails here.
    #[test]
    fn no_other_module_prints() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let banned = [
            "print!(",
            "println!(",
            "eprint!(",
            "eprintln!(",
            "dbg!(",
            "stdout(",
            "stderr(",
            "io::stdout",
            "io::stderr",
            "StdoutLock",
            "StderrLock",
        ];
        let mut found = Vec::new();
        let mut files = 0;
        // The sources, those of the modules in directories too.
        let mut paths = Vec::new();
        let mut dirs = vec![src.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    paths.push(path);
                }
            }
        }
        for path in paths {
            if path.extension().is_none_or(|e| e != "rs") || path.ends_with("terminal.rs") {
                continue;
            }
            files += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                for word in banned {
                    // The word itself, not the end of another name
                    // (`use_stderr(`).
                    let alone = code.match_indices(word).any(|(at, _)| {
                        !code[..at]
                            .chars()
                            .next_back()
                            .is_some_and(|c| c.is_alphanumeric() || c == '_')
                    });
                    if alone {
                        found.push(format!("{}:{}: {code}", path.display(), n + 1));
                    }
                }
            }
        }
        assert!(
            files >= 10,
            "the sources were not found in {}",
            src.display()
        );
        assert!(
            found.is_empty(),
            "write through terminal.rs instead:\n{}",
            found.join("\n")
        );
    }

    #[test]
    fn json_stays_json() {
        let value = serde_json::json!({"a": "\u{1b}[2J\u{9b}\u{7f}\n"});
        let text = format!("{value:#}");
        let shown = visible_json(&text);
        assert!(
            !shown.chars().any(|c| c.is_control() && c != '\n'),
            "{shown}"
        );
        let back: serde_json::Value = serde_json::from_str(&shown).unwrap();
        assert_eq!(back, value);
    }
}
