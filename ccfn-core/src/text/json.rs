//! JSON written straight into a line, exactly as `serde_json` writes it, but faster where records spend their time: strings (a voice
//! document logged in full is mostly quotes to escape) are scanned eight
//! bytes at a time.

use serde_json::Value;

/// Appends `value` as compact JSON, byte for byte what
/// `serde_json::to_writer` writes.
pub(crate) fn push_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => {
            if let Some(n) = number.as_u64() {
                push_u64(out, n);
            } else if let Some(n) = number.as_i64() {
                push_i64(out, n);
            } else {
                push_f64(out, number.as_f64().unwrap_or(f64::NAN));
            }
        }
        Value::String(text) => push_str(out, text),
        Value::Array(items) => {
            out.push('[');
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                push_value(out, item);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (at, (name, member)) in members.iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                push_str(out, name);
                out.push(':');
                push_value(out, member);
            }
            out.push('}');
        }
    }
}

/// Appends `n` as `serde_json` writes it.
pub(crate) fn push_u64(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Appends `n` as `serde_json` writes it.
pub(crate) fn push_i64(out: &mut String, n: i64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Appends `n` as `serde_json` writes it: the shortest text that reads
/// back as `n` (`zmij`, as `serde_json` uses), `null` when not finite.
pub(crate) fn push_f64(out: &mut String, n: f64) {
    if n.is_finite() {
        out.push_str(zmij::Buffer::new().format_finite(n));
    } else {
        out.push_str("null");
    }
}

/// Appends `text` as a JSON string, escaped as `serde_json` escapes it:
/// `\"`, `\\`, the short escapes `\b \t \n \f \r`, and `\u00XX` for the
/// other control characters.
///
/// Sixteen bytes at a time: each chunk is compared at once (SSE2 on
/// x86-64, eight-byte words elsewhere), stored whole past the end of the
/// line, and counted in up to its next byte to escape, whose escape is
/// written over what follows; the rest of the chunk is stored again after
/// it. A short run between the quotes of a voice document costs a store,
/// and the last chunk of a text (or a text shorter than sixteen bytes) is
/// read padded with bytes that need no escape, not byte by byte.
pub(crate) fn push_str(out: &mut String, text: &str) {
    escape(out, text, true);
}

/// Appends `text` escaped as in a JSON string, without the quotes around
/// it: the string's content, to be written in parts (see
/// [`push_str`]).
pub(crate) fn push_escaped(out: &mut String, text: &str) {
    escape(out, text, false);
}

/// [`push_str`], with the quotes when `quoted`.
#[inline(always)]
fn escape(out: &mut String, text: &str, quoted: bool) {
    // SAFETY: only `text`'s bytes, in order, and ASCII escapes are counted
    // in. A chunk may end inside a character, whose other bytes the next
    // chunk adds; once all of `text` is in, the line is UTF-8 again, and
    // nothing reads it before (nothing here panics, short of an
    // allocation larger than the address space).
    let out = unsafe { out.as_mut_vec() };
    let bytes = text.as_bytes();
    // Room for the text, a byte in eight escaped, its quotes and a chunk
    // stored whole past its end; a chunk with a byte to escape makes room
    // for its worst case first when that is not enough (see
    // `Line::escaped`).
    out.reserve(string_room(bytes.len()));
    let mut line = Line::at_end(out);
    if quoted {
        line.put(b'"');
    }
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..).and_then(<[u8]>::first_chunk::<CHUNK>) {
        at += CHUNK;
        line.chunk(*chunk, CHUNK, bytes.len() - at);
    }
    let left = bytes.len() - at;
    if left > 0 {
        line.chunk(last_padded(bytes, left), left, 0);
    }
    if quoted {
        line.put(b'"');
    }
    line.done();
}

/// Bytes that need no escape, after a chunk's own.
const PAD: [u8; CHUNK] = [b'a'; CHUNK];

/// `first`, then bytes that need no escape, from byte `from` on (at most
/// sixteen): a load from a copy on the stack.
#[inline(always)]
fn window(first: &[u8; CHUNK], from: usize) -> [u8; CHUNK] {
    let mut both = [PAD, PAD];
    both[0] = *first;
    let both = both.as_flattened();
    *both[from..]
        .first_chunk::<CHUNK>()
        .expect("at most sixteen from")
}

/// The last `left` bytes of `bytes` (fewer than sixteen), then bytes that
/// need no escape: read in a few loads, none outside `bytes`.
#[inline(always)]
fn last_padded(bytes: &[u8], left: usize) -> [u8; CHUNK] {
    debug_assert!(0 < left && left < CHUNK && left <= bytes.len());
    if let Some(last) = bytes.last_chunk::<CHUNK>() {
        // A text of sixteen bytes or more: its last sixteen, those taken
        // already skipped.
        return window(last, CHUNK - left);
    }
    let mut padded = PAD;
    let len = bytes.len();
    // Two loads that overlap where they hold the same bytes.
    let mut copy = |at: usize, n: usize| padded[at..at + n].copy_from_slice(&bytes[at..at + n]);
    match len {
        8.. => {
            copy(0, 8);
            copy(len - 8, 8);
        }
        4..=7 => {
            copy(0, 4);
            copy(len - 4, 4);
        }
        _ => {
            copy(0, 1);
            copy(len / 2, 1);
            copy(len - 1, 1);
        }
    }
    padded
}

/// The room [`push_str`] asks for to write a text of `len` bytes: what a
/// new buffer for one is made with. A voice document is a quote every
/// dozen bytes or so; a buffer made for a text without escapes would be
/// grown, and copied, at its first.
pub(crate) fn string_room(len: usize) -> usize {
    len + len / 8 + 2 + CHUNK + CHUNK * MOST_ESCAPED
}

/// Bytes compared and stored at once.
const CHUNK: usize = 16;

/// The most bytes one byte's escape takes (`\u00XX`).
const MOST_ESCAPED: usize = 6;

/// The end of a line being written past its length: `at` bytes after it,
/// with room reserved beyond (see each method).
struct Line<'a> {
    out: &'a mut Vec<u8>,
    at: usize,
}

impl<'a> Line<'a> {
    fn at_end(out: &'a mut Vec<u8>) -> Self {
        let at = out.len();
        Line { out, at }
    }

    /// Writes `byte`; room for it was reserved.
    fn put(&mut self, byte: u8) {
        debug_assert!(self.at < self.out.capacity());
        // SAFETY: within the capacity, as reserved by the caller.
        unsafe { self.out.as_mut_ptr().add(self.at).write(byte) };
        self.at += 1;
    }

    /// Stores all of `chunk` at the end, counting in its first `n` bytes;
    /// room for sixteen was reserved.
    fn store(&mut self, chunk: &[u8; CHUNK], n: usize) {
        debug_assert!(self.at + CHUNK <= self.out.capacity());
        // SAFETY: within the capacity, as reserved by the caller.
        unsafe {
            self.out
                .as_mut_ptr()
                .add(self.at)
                .cast::<[u8; CHUNK]>()
                .write_unaligned(*chunk);
        }
        self.at += n;
    }

    /// Writes the first `n` bytes of `chunk`, each byte to escape
    /// escaped; `rest` more bytes of the text follow it. Room for the
    /// chunk unescaped, the rest and the closing quote, and a chunk stored
    /// past them, is reserved.
    #[inline(always)]
    fn chunk(&mut self, chunk: [u8; CHUNK], n: usize, rest: usize) {
        let escapes = escapes_16(&chunk) & ((1 << n) - 1);
        if escapes == 0 {
            self.store(&chunk, n);
        } else {
            self.chunk_escaped(chunk, n, escapes, rest);
        }
    }

    /// [`Line::chunk`] for a chunk with bytes to escape, marked in
    /// `escapes`: each run before one is stored from where it starts,
    /// sixteen bytes at once.
    fn chunk_escaped(&mut self, chunk: [u8; CHUNK], n: usize, mut escapes: u32, rest: usize) {
        self.escaped(n, rest);
        let mut from = 0;
        while escapes != 0 {
            let first = escapes.trailing_zeros() as usize;
            self.store(&window(&chunk, from), first - from);
            self.escape(chunk[first]);
            from = first + 1;
            escapes &= escapes - 1;
        }
        if from < n {
            self.store(&window(&chunk, from), n - from);
        }
    }

    /// Makes room for `n` bytes each escaped, the `rest` of the text and
    /// its closing quote unescaped, and a chunk stored past them.
    #[cold]
    fn escaped(&mut self, n: usize, rest: usize) {
        let room = n * MOST_ESCAPED + rest + 1 + CHUNK;
        if self.out.capacity() - self.at < room {
            // SAFETY: the bytes up to `at` were written (see `done`).
            unsafe { self.out.set_len(self.at) };
            self.out.reserve(room);
        }
    }

    /// Writes the escape of `byte`, a byte that needs one.
    fn escape(&mut self, byte: u8) {
        match ESCAPE[usize::from(byte)] {
            b'u' => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                for escaped in [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(byte >> 4)],
                    HEX[usize::from(byte & 0xF)],
                ] {
                    self.put(escaped);
                }
            }
            escape => {
                self.put(b'\\');
                self.put(escape);
            }
        }
    }

    /// Counts in what was written.
    fn done(self) {
        debug_assert!(self.at <= self.out.capacity());
        // SAFETY: every byte up to `at` was written, within the capacity.
        unsafe { self.out.set_len(self.at) };
    }
}

/// The bytes of `chunk` that are a control character, `"` or `\\`, one
/// bit each (SSE2, which every x86-64 processor has).
#[cfg(target_arch = "x86_64")]
fn escapes_16(chunk: &[u8; CHUNK]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of every x86-64 processor, and `chunk` is
    // sixteen readable bytes, which an unaligned load reads exactly.
    unsafe {
        let bytes = _mm_loadu_si128(chunk.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\\' as i8));
        // Below 0x20, unsigned: the larger of the byte and 0x1F is 0x1F.
        let low = _mm_set1_epi8(0x1F);
        let control = _mm_cmpeq_epi8(_mm_max_epu8(bytes, low), low);
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn escapes_16(chunk: &[u8; CHUNK]) -> u32 {
    escapes_16_portable(chunk)
}

/// [`escapes_16`] where SSE2 is not at hand: two eight-byte words.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn escapes_16_portable(chunk: &[u8; CHUNK]) -> u32 {
    let (low, high) = chunk.split_at(8);
    let word = |half: &[u8]| u64::from_le_bytes(half.try_into().expect("eight bytes"));
    escapes(word(low)) | (escapes(word(high)) << 8)
}

/// The bytes of `word` that are a control character, `"` or `\\`, one
/// bit each (bit `n` for byte `n`), each exact.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn escapes(word: u64) -> u32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each zero byte of `x`: no carry crosses a byte.
    let zero = |x: u64| !(((x & LOW) + LOW) | x) & HIGH;
    let marks = zero(word & (ONES * 0xE0))
        | zero(word ^ (ONES * u64::from(b'"')))
        | zero(word ^ (ONES * u64::from(b'\\')));
    // Each byte's high bit gathered into bit `n`.
    ((marks >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// For each byte: 0 when it stands for itself, else the letter after the
/// backslash (`u` for `\u00XX`).
static ESCAPE: [u8; 256] = {
    let mut table = [0; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0A] = b'n';
    table[0x0C] = b'f';
    table[0x0D] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(text: &str) -> String {
        let mut out = String::new();
        push_str(&mut out, text);
        out
    }

    #[test]
    fn every_ascii_byte_at_every_offset_is_escaped_as_serde_json_does() {
        for byte in 0..=0x7F_u8 {
            let c = char::from(byte);
            // Every offset in a sixteen-byte chunk and in the tail.
            for before in 0..40 {
                for after in 0..10 {
                    let text = format!("{}{c}{}", "a".repeat(before), "é".repeat(after));
                    assert_eq!(
                        ours(&text),
                        serde_json::to_string(&text).unwrap(),
                        "{byte:#x}"
                    );
                }
            }
        }
    }

    #[test]
    fn generated_strings_are_escaped_as_serde_json_does() {
        const PIECES: [&str; 12] = [
            "a", "\"", "\\", "\n", "\u{1}", "\u{1f}", " ", "é", "€", "😀", "<Say>", "\u{7f}",
        ];
        // A fixed sequence of pseudo-random strings (xorshift), so that a
        // failure can be replayed.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..20_000 {
            let mut text = String::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = state % 40;
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push_str(PIECES[(state % PIECES.len() as u64) as usize]);
            }
            assert_eq!(
                ours(&text),
                serde_json::to_string(&text).unwrap(),
                "{text:?}"
            );
            // Escaped in two parts, split at any character, it is the
            // same string's content.
            let mut split = (state as usize >> 8) % (text.len() + 1);
            while !text.is_char_boundary(split) {
                split -= 1;
            }
            let mut parts = String::from("\"");
            push_escaped(&mut parts, &text[..split]);
            push_escaped(&mut parts, &text[split..]);
            parts.push('"');
            assert_eq!(parts, ours(&text), "{text:?} at {split}");
        }
    }

    /// The portable comparison marks exactly the bytes to escape, each
    /// at its bit, whatever is around it; as the SSE2 one does.
    #[test]
    fn every_byte_to_escape_is_marked_exactly() {
        let expected = |chunk: &[u8]| {
            chunk
                .iter()
                .enumerate()
                .filter(|(_, b)| ESCAPE[usize::from(**b)] != 0)
                .fold(0_u32, |marks, (at, _)| marks | (1 << at))
        };
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut chunk = [0_u8; 16];
        for round in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Every byte value, at every place, among random neighbours
            // (those to escape made common).
            for (at, byte) in chunk.iter_mut().enumerate() {
                let random = (state >> (at * 4)) as u8;
                *byte = match random % 4 {
                    0 => random & 0x3F,
                    1 => b"\"\\"[usize::from(random) % 2],
                    _ => random,
                };
            }
            chunk[round % 16] = (round / 16 % 256) as u8;
            let word = |at: usize| u64::from_le_bytes(chunk[at..at + 8].try_into().unwrap());
            assert_eq!(escapes(word(0)), expected(&chunk[..8]), "{chunk:?}");
            assert_eq!(escapes(word(8)), expected(&chunk[8..]), "{chunk:?}");
            assert_eq!(escapes_16(&chunk), expected(&chunk), "{chunk:?}");
            assert_eq!(escapes_16_portable(&chunk), expected(&chunk), "{chunk:?}");
        }
    }

    #[test]
    fn values_are_written_as_serde_json_writes_them() {
        let value = serde_json::json!({
            "null": null,
            "bools": [true, false],
            "numbers": [0, -7, 18446744073709551615_u64, -9223372036854775808_i64, 0.047, 1e300, -0.0, 5e-324, 1.5],
            "text": "<Gather action=\"/x?a=1&b=2\">\r\n\t</Gather>",
            "nested": {"empty": {}, "list": [], "k\"ey": ["\u{0}"]},
        });
        let mut out = String::new();
        push_value(&mut out, &value);
        assert_eq!(out, serde_json::to_string(&value).unwrap());
    }
}

#[cfg(test)]
mod properties {
    //! Whatever the text, the writer's output is exactly what `serde_json`
    //! writes, and `serde_json` reads it back as the value written.

    use proptest::prelude::*;
    use serde_json::{Map, Number, Value};

    use super::{push_str, push_value};

    /// Characters the escaper treats specially, and their neighbours.
    const SPECIAL: &str =
        "\0\u{1}\u{7}\u{8}\t\n\u{b}\u{c}\r\u{1b}\u{1f} !\"#/[\\]\u{7f}\u{80}\u{9f}é€\
        \u{2028}\u{2029}\u{FEFF}\u{FFFD}\u{FFFE}\u{FFFF}\u{10000}😀\u{10FFFF}";

    /// One of [`SPECIAL`].
    fn special() -> impl Strategy<Value = char> {
        prop::sample::select(SPECIAL.chars().collect::<Vec<_>>())
    }

    /// Strings of up to a few dozen characters: arbitrary Unicode biased
    /// towards [`SPECIAL`], or arbitrary bytes read lossily (replacement
    /// characters among the rest).
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => prop::collection::vec(
                prop_oneof![
                    3 => special(),
                    2 => prop::char::range(' ', '~'),
                    1 => any::<char>(),
                ],
                0..40,
            )
            .prop_map(String::from_iter),
            1 => prop::collection::vec(any::<u8>(), 0..64)
                .prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
            1 => any::<String>(),
        ]
    }

    /// 100 kB strings and more: a generated piece repeated, arbitrary bytes
    /// read lossily, or one special character at any offset of a long run
    /// that the word-at-a-time scan skips.
    fn large_text() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::collection::vec(text(), 1..8).prop_map(|pieces| {
                let unit = pieces.concat() + "\"";
                unit.repeat(100_000 / unit.len() + 1)
            }),
            prop::collection::vec(any::<u8>(), 100_000..100_100)
                .prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
            (0..100_000_usize, special()).prop_map(|(offset, special)| {
                format!("{}{special}{}", "a".repeat(offset), "é".repeat(50_000))
            }),
        ]
    }

    /// Numbers `serde_json` reads back exactly: any integer, and dyadic
    /// fractions with few digits. (Without its `float_roundtrip` feature
    /// `serde_json` may read an arbitrary float one ulp off, whoever wrote
    /// it; [`arbitrary_floats_are_written_as_serde_json_writes_them`]
    /// covers the writing of every float.)
    fn number() -> impl Strategy<Value = Number> {
        prop_oneof![
            any::<i64>().prop_map(Number::from),
            any::<u64>().prop_map(Number::from),
            (-(1_i32 << 20)..(1_i32 << 20), 0..=10_u32).prop_map(|(mantissa, shift)| {
                let value = f64::from(mantissa) / f64::from(1_u32 << shift);
                Number::from_f64(value).expect("finite")
            }),
        ]
    }

    /// Any JSON value, nested up to four levels.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            number().prop_map(Value::Number),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec((text(), inner), 0..8)
                    .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    /// `push_str` after `prefix`.
    fn written(prefix: &str, text: &str) -> Vec<u8> {
        let mut out = prefix.to_owned();
        push_str(&mut out, text);
        out.into_bytes()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        /// `push_str` appends exactly `serde_json::to_string(text)` to what
        /// the buffer already holds, and that reads back as `text`.
        #[test]
        fn strings_are_serde_json_strings(
            prefix in "\\PC{0,8}",
            text in text(),
        ) {
            let out = written(&prefix, &text);
            prop_assert_eq!(&out[..prefix.len()], prefix.as_bytes());
            let json = &out[prefix.len()..];
            let expected = serde_json::to_vec(&text).unwrap();
            prop_assert_eq!(json, expected.as_slice());
            prop_assert_eq!(serde_json::from_slice::<String>(json).unwrap(), text);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// `push_value` writes any value (nested arrays and objects, any
        /// member names) as `serde_json::to_string` does, and it reads back
        /// as the same value, members in the same order. (Except an object
        /// whose first member is named `$serde_json::private::RawValue`,
        /// which `serde_json`, with the `raw_value` feature axum turns on,
        /// reads as the JSON text in that member, whoever wrote it; the
        /// generated names never are.)
        #[test]
        fn values_are_serde_json_values(value in value()) {
            let mut out = String::new();
            push_value(&mut out, &value);
            prop_assert_eq!(&out, &serde_json::to_string(&value).unwrap());
            prop_assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), value);
        }

        /// Every float, integer and negative integer written on its own
        /// is what `serde_json` writes for it (a float that is not
        /// finite: `null`).
        #[test]
        fn numbers_are_written_as_serde_json_writes_them(
            float in prop::num::f64::ANY,
            unsigned in any::<u64>(),
            signed in any::<i64>(),
        ) {
            let mut out = String::new();
            super::push_f64(&mut out, float);
            prop_assert_eq!(&out, &serde_json::to_string(&Value::from(float)).unwrap());
            out.clear();
            super::push_u64(&mut out, unsigned);
            prop_assert_eq!(&out, &serde_json::to_string(&unsigned).unwrap());
            out.clear();
            super::push_i64(&mut out, signed);
            prop_assert_eq!(&out, &serde_json::to_string(&signed).unwrap());
        }

        /// Every finite float, normal or not, is written as `serde_json`
        /// writes it.
        #[test]
        fn arbitrary_floats_are_written_as_serde_json_writes_them(
            float in prop::num::f64::POSITIVE
                | prop::num::f64::NEGATIVE
                | prop::num::f64::NORMAL
                | prop::num::f64::SUBNORMAL
                | prop::num::f64::ZERO,
        ) {
            let value = Value::from(float);
            let mut out = String::new();
            push_value(&mut out, &value);
            prop_assert_eq!(out.into_bytes(), serde_json::to_vec(&value).unwrap());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// The same for strings of 100 kB and more.
        #[test]
        fn large_strings_are_serde_json_strings(text in large_text()) {
            let out = written("", &text);
            prop_assert!(out == serde_json::to_vec(&text).unwrap());
            prop_assert!(serde_json::from_slice::<String>(&out).unwrap() == text);
        }
    }
}
