//! Text as ccfn writes it: JSON strings, XML text and attributes, and
//! caller-controlled text shown on a terminal. The lowest layer: it
//! depends on nothing else in the crate.

use std::fmt::Write as _;

pub(crate) mod json;
pub(crate) mod xml;

/// Appends `text` with every control character but the line feed shown
/// as `\u{..}`: a caller-controlled value must not drive the terminal.
pub(crate) fn push_clean(out: &mut String, text: &str) {
    for c in text.chars() {
        if c.is_control() && c != '\n' {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
}

/// Appends `text` on one line: as [`push_clean`], with the line feed shown
/// as `\n` too.
pub(crate) fn push_one_line(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}
