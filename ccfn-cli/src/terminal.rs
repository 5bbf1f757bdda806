//! Where text reaches the operator: standard output and standard error.
//!
//! What `ccfn` shows comes mostly from outside: log records written from
//! callers' requests, the platform's answers, a server's body. Such text
//! can hold terminal control sequences (an escape that moves the cursor,
//! rewrites a line, or with OSC 52 writes the operator's clipboard) and
//! secrets. Everything written goes through this module, which
//!
//! - scrubs every secret value this process knows
//!   ([`ccfn_core::record::scrub_secrets`]), and
//! - writes every control character visibly escaped ([`visible`]): C0
//!   but newline and tab as `\x1b`, DEL as `\x7f`, C1 as `\u{9b}`; JSON
//!   text keeps its syntax ([`visible_json`]).

use std::borrow::Cow;
use std::io::Write as _;

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

/// Writes `text` to standard output, scrubbed and with its control
/// characters escaped; a closed pipe is not an error.
pub(crate) fn write_out(text: &str) -> Result<(), String> {
    let scrubbed = ccfn_core::record::scrub_secrets(text);
    write_raw(&visible(&scrubbed))
}

/// Writes JSON `text` to standard output, scrubbed and with no raw
/// control character; a closed pipe is not an error.
pub(crate) fn write_json_out(text: &str) -> Result<(), String> {
    let scrubbed = ccfn_core::record::scrub_secrets(text);
    write_raw(&visible_json(&scrubbed))
}

fn write_raw(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write: {err}"))
        }
        _ => Ok(()),
    }
}

/// Writes `ccfn{command}: {text}` and a newline to standard error,
/// scrubbed and with its control characters escaped (a newline in
/// `text` too: one message, one line). `command` is `""` or `" logs"`.
pub(crate) fn say(command: &str, text: &str) {
    let scrubbed = ccfn_core::record::scrub_secrets(text);
    let one_line = visible(&scrubbed).replace('\n', "\\n");
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "ccfn{command}: {one_line}");
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
