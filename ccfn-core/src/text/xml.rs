//! Escaping text for XML: element text and attribute values, as the
//! platform's helper library escapes them.

/// The bytes that [`escape_with`] must look at for element text: `& < >`,
/// carriage return, the controls XML 1.0 cannot hold, and 0xEF (which
/// starts U+FFFE and U+FFFF).
const TEXT_STOPS: [bool; 256] = stops(b"&<>\r");
/// The same for attribute values: `& < "`, tab, line feed, carriage return.
const ATTR_STOPS: [bool; 256] = stops(b"&<\"\t\n\r");

const fn stops(escaped: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = !matches!(byte as u8, b'\t' | b'\n' | b'\r');
        byte += 1;
    }
    table[0xEF] = true;
    let mut at = 0;
    while at < escaped.len() {
        table[escaped[at] as usize] = true;
        at += 1;
    }
    table
}

/// Appends `s` to `out`, replacing each (ASCII) byte for which `replace`
/// returns `Some`, and each character XML 1.0 cannot hold (controls other
/// than tab, line feed and carriage return; U+FFFE and U+FFFF) with U+FFFD.
/// `stops` marks every byte that may need either; the runs between them
/// are copied whole.
fn escape_with(
    s: &str,
    out: &mut String,
    stops: &[bool; 256],
    replace: impl Fn(u8) -> Option<&'static str>,
) {
    let bytes = s.as_bytes();
    let mut copied = 0;
    let mut at = 0;
    while let Some(offset) = bytes[at..]
        .iter()
        .position(|&byte| stops[usize::from(byte)])
    {
        at += offset;
        let byte = bytes[at];
        // Every byte stopped at here starts a character, so `copied` and
        // `at` stay on character boundaries.
        let (replacement, width) = match replace(byte) {
            Some(replacement) => (replacement, 1),
            None if byte < 0x20 && !matches!(byte, b'\t' | b'\n' | b'\r') => ("\u{FFFD}", 1),
            // U+FFFE and U+FFFF: EF BF BE, EF BF BF.
            None if byte == 0xEF
                && matches!(bytes.get(at + 1..at + 3), Some([0xBF, 0xBE | 0xBF])) =>
            {
                ("\u{FFFD}", 3)
            }
            None => {
                at += 1;
                continue;
            }
        };
        out.push_str(&s[copied..at]);
        out.push_str(replacement);
        at += width;
        copied = at;
    }
    out.push_str(&s[copied..]);
}

/// Element text: `& < >` and carriage return.
pub(crate) fn escape_text(s: &str, out: &mut String) {
    escape_with(s, out, &TEXT_STOPS, |byte| match byte {
        b'&' => Some("&amp;"),
        b'<' => Some("&lt;"),
        b'>' => Some("&gt;"),
        b'\r' => Some("&#xD;"),
        _ => None,
    });
}

/// Attribute values: `& < "`, tab, line feed and carriage return.
pub(crate) fn escape_attr(s: &str, out: &mut String) {
    escape_with(s, out, &ATTR_STOPS, |byte| match byte {
        b'&' => Some("&amp;"),
        b'<' => Some("&lt;"),
        b'"' => Some("&quot;"),
        b'\t' => Some("&#x9;"),
        b'\n' => Some("&#xA;"),
        b'\r' => Some("&#xD;"),
        _ => None,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Character by character, as the platform's helper escapes.
    fn naive(s: &str, attr: bool) -> String {
        let mut out = String::new();
        for c in s.chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' if !attr => out.push_str("&gt;"),
                '"' if attr => out.push_str("&quot;"),
                '\t' if attr => out.push_str("&#x9;"),
                '\n' if attr => out.push_str("&#xA;"),
                '\r' => out.push_str("&#xD;"),
                '\t' | '\n' => out.push(c),
                c if u32::from(c) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                    out.push('\u{FFFD}');
                }
                c => out.push(c),
            }
        }
        out
    }

    #[test]
    fn the_table_stops_at_every_byte_that_needs_it() {
        let mut every: String = (0u8..0x80).map(char::from).collect();
        every.push_str("\u{FFFE}x\u{FFFF}\u{FFFD}\u{EFFF}é€😀 plain text, then > and \" again");
        for s in [every.as_str(), "", "no escapes at all", "&", "trailing <"] {
            let (mut text, mut attr) = (String::new(), String::new());
            escape_text(s, &mut text);
            escape_attr(s, &mut attr);
            assert_eq!(text, naive(s, false), "{s:?}");
            assert_eq!(attr, naive(s, true), "{s:?}");
        }
    }
}
