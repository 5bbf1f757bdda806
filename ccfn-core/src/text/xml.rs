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
    while let Some(stop) = next_stop(bytes, at, stops) {
        at = stop;
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

/// The first byte at or after `at` that `stops` marks: sixteen bytes at a
/// time where the processor compares sixteen at once, then eight at a
/// time while none of them can be one (see [`may_stop`]), then byte by
/// byte.
fn next_stop(bytes: &[u8], mut at: usize, stops: &[bool; 256]) -> Option<usize> {
    let marked = |chunk: &[u8]| chunk.iter().position(|&byte| stops[usize::from(byte)]);
    #[cfg(target_arch = "x86_64")]
    while let Some(chunk) = bytes.get(at..).and_then(<[u8]>::first_chunk::<16>) {
        // The candidates, lowest first: the first that `stops` marks is
        // the answer (a `>` or `"` is one in only one of the tables).
        let mut candidates = may_stop_16(chunk);
        while candidates != 0 {
            let offset = candidates.trailing_zeros() as usize;
            if stops[usize::from(chunk[offset])] {
                return Some(at + offset);
            }
            candidates &= candidates - 1;
        }
        at += 16;
    }
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        if may_stop(word)
            && let Some(offset) = marked(chunk)
        {
            return Some(at + offset);
        }
        at += 8;
    }
    marked(&bytes[at..]).map(|offset| at + offset)
}

/// The bytes of `chunk` that either table may mark, one bit each: a
/// control (below 0x20), a byte of a character beyond ASCII, or one of
/// `" & < >` (SSE2, which every x86-64 processor has).
#[cfg(target_arch = "x86_64")]
fn may_stop_16(chunk: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of every x86-64 processor, and `chunk` is
    // sixteen readable bytes, which an unaligned load reads exactly.
    unsafe {
        let bytes = _mm_loadu_si128(chunk.as_ptr().cast());
        let is = |byte: u8| _mm_cmpeq_epi8(bytes, _mm_set1_epi8(byte as i8));
        // Signed, bytes of 0x80 and above are negative: one comparison
        // finds them and the controls.
        let low_or_high = _mm_cmplt_epi8(bytes, _mm_set1_epi8(0x20));
        let marks = _mm_or_si128(
            _mm_or_si128(low_or_high, _mm_or_si128(is(b'"'), is(b'&'))),
            _mm_or_si128(is(b'<'), is(b'>')),
        );
        _mm_movemask_epi8(marks) as u32
    }
}

/// Whether one of the eight bytes of `word` may be one that either table
/// marks: a control (below 0x20), a byte of a character beyond ASCII, or
/// one of `" & < >`. Each test is exact for "some byte is": a word it
/// passes holds none of them.
fn may_stop(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    // `"` (0x22) and `&` (0x26) differ by one bit, as `<` (0x3C) and `>`
    // (0x3E) do: each pair is one comparison.
    let quote_or_amp = has_zero((word | (ONES * 0x04)) ^ (ONES * 0x26));
    let angle = has_zero((word | (ONES * 0x02)) ^ (ONES * 0x3E));
    (control | word | quote_or_amp | angle) & HIGH != 0
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

/// Comment text, as written between `<!-- ` and ` -->`: nothing is
/// escaped (the helper libraries write comments as given), each character
/// XML 1.0 cannot hold is written U+FFFD, and so is every hyphen of a
/// text that holds `--` anywhere: XML forbids `--` in a comment, the
/// helper libraries refuse it, and a comment must not close early.
pub(crate) fn escape_comment(s: &str, out: &mut String) {
    comment_with(s, s.contains("--"), out);
}

/// [`escape_comment`], every hyphen written U+FFFD when `hyphens`
/// (whatever `s` holds): the two forms a text takes in a comment, which
/// the scrubber looks for (a secret's own hyphens change with the text
/// around it).
pub(crate) fn comment_with(s: &str, hyphens: bool, out: &mut String) {
    // Character by character: comments are few and short.
    out.extend(s.chars().map(|c| {
        let refused = matches!(c, '\u{0}'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}')
            || matches!(c, '\u{FFFE}' | '\u{FFFF}')
            || (hyphens && c == '-');
        if refused {
            '\u{FFFD}'
        } else {
            c
        }
    }));
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

    /// Every byte in every lane of a word, among plain letters: the word
    /// test flags exactly the bytes it says it does.
    #[test]
    fn the_word_test_flags_exactly_its_bytes() {
        for byte in 0..=255u8 {
            let expected = !(0x20..0x80).contains(&byte) || b"\"&<>".contains(&byte);
            for lane in 0..8 {
                let mut word = [b'a'; 8];
                word[lane] = byte;
                assert_eq!(
                    may_stop(u64::from_le_bytes(word)),
                    expected,
                    "byte {byte:#04x} in lane {lane}"
                );
            }
        }
        assert!(!may_stop(u64::from_le_bytes(*b"plain ok")));
    }

    /// Every byte in every lane of sixteen, among plain letters: the
    /// sixteen-byte test flags exactly the bytes the word test does.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_sixteen_byte_test_flags_exactly_its_bytes() {
        for byte in 0..=255u8 {
            let expected = !(0x20..0x80).contains(&byte) || b"\"&<>".contains(&byte);
            for lane in 0..16 {
                let mut chunk = [b'a'; 16];
                chunk[lane] = byte;
                let marks = may_stop_16(&chunk);
                let want = if expected { 1 << lane } else { 0 };
                assert_eq!(marks, want, "byte {byte:#04x} in lane {lane}");
            }
        }
    }

    /// Candidates the table does not mark (characters beyond ASCII, `>`
    /// in an attribute, `"` in text) before the one it does, in one chunk
    /// of sixteen and across chunks.
    #[test]
    fn candidates_the_table_does_not_mark_are_passed_over() {
        for s in [
            "é>\"é>\"é>\"&tail of it",
            "ééééééééé<",
            "\">\">\">\">\">\">\">\">\">\r",
            "€€€€€€€€€€€€ and then a plain run of text, then &",
        ] {
            let (mut text, mut attr) = (String::new(), String::new());
            escape_text(s, &mut text);
            escape_attr(s, &mut attr);
            assert_eq!(text, naive(s, false), "{s:?}");
            assert_eq!(attr, naive(s, true), "{s:?}");
        }
    }

    /// A byte to escape at every offset of a longer text, so that it falls
    /// in every lane of a word and in the tail after the last whole word.
    #[test]
    fn escapes_are_found_at_every_offset() {
        let specials = [
            "&", "<", ">", "\"", "\t", "\n", "\r", "\u{1}", "\u{FFFE}", "\u{FFFF}", "é", "😀",
        ];
        for special in specials {
            for before in 0..20 {
                for after in [0, 1, 7, 8, 9, 17] {
                    let s = format!(
                        "{}{special}{}",
                        "a b".repeat(before)[..before].to_owned(),
                        "z".repeat(after)
                    );
                    let (mut text, mut attr) = (String::new(), String::new());
                    escape_text(&s, &mut text);
                    escape_attr(&s, &mut attr);
                    assert_eq!(text, naive(&s, false), "{s:?}");
                    assert_eq!(attr, naive(&s, true), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn comments_are_written_as_given_but_for_what_xml_forbids() {
        let comment = |s: &str| {
            let mut out = String::new();
            escape_comment(s, &mut out);
            out
        };
        // Nothing is escaped; single hyphens are kept, at either end too.
        assert_eq!(
            comment("a & <b> \"c\" 'd' \r\n\t-e-"),
            "a & <b> \"c\" 'd' \r\n\t-e-"
        );
        assert_eq!(comment("-"), "-");
        assert_eq!(comment(""), "");
        // `--` anywhere: every hyphen of the text, so `-->` cannot close it.
        assert_eq!(comment("a-b -->"), "a\u{FFFD}b \u{FFFD}\u{FFFD}>");
        assert_eq!(comment("---"), "\u{FFFD}\u{FFFD}\u{FFFD}");
        // What XML 1.0 cannot hold, as in text.
        assert_eq!(
            comment("\u{0}\u{1b}\u{7f}\u{FFFE}\u{FFFF}\u{FFFD}é"),
            "\u{FFFD}\u{FFFD}\u{7f}\u{FFFD}\u{FFFD}\u{FFFD}é"
        );
        let mut out = String::new();
        comment_with("a-b", true, &mut out);
        assert_eq!(out, "a\u{FFFD}b");
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
