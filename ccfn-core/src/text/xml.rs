//! Escaping text for XML: element text and attribute values, as the
//! platform's helper library escapes them.

/// Appends `s` to `out`, replacing each (ASCII) byte for which `replace`
/// returns `Some`, and each character XML 1.0 cannot hold (controls other
/// than tab, line feed and carriage return; U+FFFE and U+FFFF) with U+FFFD.
fn escape_with(s: &str, out: &mut String, replace: impl Fn(u8) -> Option<&'static str>) {
    let bytes = s.as_bytes();
    let mut copied = 0;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        // Every byte matched here starts a character, so `copied` and `at`
        // stay on character boundaries.
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
    escape_with(s, out, |byte| match byte {
        b'&' => Some("&amp;"),
        b'<' => Some("&lt;"),
        b'>' => Some("&gt;"),
        b'\r' => Some("&#xD;"),
        _ => None,
    });
}

/// Attribute values: `& < "`, tab, line feed and carriage return.
pub(crate) fn escape_attr(s: &str, out: &mut String) {
    escape_with(s, out, |byte| match byte {
        b'&' => Some("&amp;"),
        b'<' => Some("&lt;"),
        b'"' => Some("&quot;"),
        b'\t' => Some("&#x9;"),
        b'\n' => Some("&#xA;"),
        b'\r' => Some("&#xD;"),
        _ => None,
    });
}
