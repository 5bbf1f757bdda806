//! Secrets that cannot be printed by accident, and the scrubber that keeps
//! every secret value out of every log line.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use aho_corasick::{AhoCorasick, MatchKind};

/// What a secret prints as, in `Debug`, `Display` and scrubbed log lines.
pub const REDACTED: &str = "[REDACTED]";

/// A secret value: an API key, an auth token, a bearer token.
///
/// `Debug` and `Display` print `[REDACTED]`, it is not `Serialize`, and its
/// value is registered with the process-wide scrubber when it is made, so
/// that it is replaced by `[REDACTED]` in every log line written by ccfn,
/// whichever field it hides in. Read the value with [`Secret::expose`],
/// only where it is sent.
///
/// ```
/// use ccfn_core::Secret;
///
/// let key = Secret::new("key-3ax6xnjp29jd6fds4gc373sgvjxteol0");
/// assert_eq!(format!("{key} {key:?}"), "[REDACTED] [REDACTED]");
/// assert_eq!(key.expose(), "key-3ax6xnjp29jd6fds4gc373sgvjxteol0");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Arc<str>);

impl Secret {
    /// Holds `value` as a secret and registers it with the scrubber (when it
    /// has at least [`MIN_SCRUBBED_LEN`] characters).
    pub fn new(value: impl Into<String>) -> Self {
        let value: Arc<str> = Arc::from(value.into());
        register(&value);
        Secret(value)
    }

    /// The secret value, to put on the wire. Never log it.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the value is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret::new(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret::new(value)
    }
}

/// The same secret, shared: what [`crate::Context::secret`] hands out is
/// enough wherever an `impl Into<Secret>` is taken.
impl From<&Secret> for Secret {
    fn from(secret: &Secret) -> Self {
        secret.clone()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

/// The words that make a name sensitive (see [`is_sensitive_name`]), in
/// lowercase: the one list, from which the docs' list is generated.
pub const SENSITIVE_WORDS: &[&str] = &[
    "token",
    "secret",
    "signature",
    "key",
    "pass",
    "pwd",
    "private",
    "auth",
    "cookie",
    "credential",
    "jwt",
    "dsn",
];

/// Whether a header, parameter or configuration name says its value is
/// sensitive: it contains one of [`SENSITIVE_WORDS`], ignoring ASCII case
/// (so `Authorization`, `Set-Cookie`, `X-Twilio-Signature`, `AUTH_TOKEN`
/// and `password` are).
///
/// ```
/// use ccfn_core::record::is_sensitive_name;
///
/// assert!(is_sensitive_name("X-Twilio-Signature"));
/// assert!(is_sensitive_name("EMAILPROVIDER_API_KEY"));
/// assert!(!is_sensitive_name("CallSid"));
/// ```
#[must_use]
pub fn is_sensitive_name(name: &str) -> bool {
    // Called for every parameter and header of every invocation: one pass,
    // no allocation, every word followed at once (shift-and matching: bit
    // `i` of `state` is set when the bytes so far end with the letters of
    // a word up to its letter `i`).
    let mut state = 0u64;
    for &byte in name.as_bytes() {
        state = ((state << 1) | WORD_BITS.first) & WORD_BITS.letter[usize::from(byte)];
        if state & WORD_BITS.last != 0 {
            return true;
        }
    }
    false
}

/// [`SENSITIVE_WORDS`] laid end to end in the 64 bits of a `u64`: each
/// bit stands for one letter of one word.
struct WordBits {
    /// By byte: the letters it is, in either case.
    letter: [u64; 256],
    /// The first letter of each word.
    first: u64,
    /// The last letter of each word.
    last: u64,
}

static WORD_BITS: WordBits = {
    let mut bits = WordBits {
        letter: [0; 256],
        first: 0,
        last: 0,
    };
    let mut at = 0;
    let mut word = 0;
    while word < SENSITIVE_WORDS.len() {
        let letters = SENSITIVE_WORDS[word].as_bytes();
        assert!(
            !letters.is_empty() && at + letters.len() <= 64,
            "the sensitive words must fit in 64 bits"
        );
        bits.first |= 1 << at;
        let mut i = 0;
        while i < letters.len() {
            let letter = letters[i];
            bits.letter[letter.to_ascii_lowercase() as usize] |= 1 << at;
            bits.letter[letter.to_ascii_uppercase() as usize] |= 1 << at;
            at += 1;
            i += 1;
        }
        bits.last |= 1 << (at - 1);
        word += 1;
    }
    bits
};

/// A copy of `value` in which the value of every object member with a
/// sensitive name (see [`is_sensitive_name`]) is `[REDACTED]`, at any
/// depth: how external responses are logged.
#[must_use]
pub(crate) fn redact_json(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if is_sensitive_name(k) {
                        Value::from(REDACTED)
                    } else {
                        redact_json(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact_json).collect()),
        other => other.clone(),
    }
}

/// Every secret value made in this process, in the forms it can take in a
/// line, and the automaton that finds them all in one pass: replaced
/// whole when a secret is registered, and read by each thread through its
/// own copy of the `Arc` ([`with_registry`]).
static REGISTRY: RwLock<Option<Arc<Registry>>> = RwLock::new(None);
/// Counts the registrations: a thread's copy of the registry is current
/// while the count it was taken at is.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// How many times secrets were registered: a text found clean stays
/// clean while this count does not move.
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) fn generation() -> u64 {
    GENERATION.load(Ordering::Acquire)
}
static ANY: AtomicBool = AtomicBool::new(false);

struct Registry {
    forms: Vec<Box<str>>,
    /// Finds the leftmost, longest form: a secret containing another is
    /// replaced whole.
    finder: Option<AhoCorasick>,
    /// Tells whether a text holds any form: the same SIMD search the
    /// finder runs first (Teddy), called without the finder's layers
    /// around it, as every line is asked once. `None` past its limits
    /// (many forms): the finder answers.
    detector: Option<aho_corasick::packed::Searcher>,
    /// [`Registry::detector`] that also finds a `://`: whether a line may
    /// change, in one pass.
    touches: Option<aho_corasick::packed::Searcher>,
}

impl Registry {
    fn new(forms: Vec<Box<str>>) -> Registry {
        // Building fails only past limits far above any set of secrets;
        // the forms are then searched one by one.
        let finder = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(forms.iter().map(|form| form.as_bytes()))
            .ok();
        let detector = aho_corasick::packed::Config::new()
            .builder()
            .extend(forms.iter().map(|form| form.as_bytes()))
            .build();
        let touches = aho_corasick::packed::Config::new()
            .builder()
            .extend(forms.iter().map(|form| form.as_bytes()))
            .add("://")
            .build();
        Registry {
            forms,
            finder,
            detector,
            touches,
        }
    }

    /// Whether `text` holds any form.
    fn holds(&self, text: &(impl AsRef<[u8]> + ?Sized)) -> bool {
        let text = text.as_ref();
        if let Some(detector) = &self.detector {
            return detector.find(text).is_some();
        }
        match &self.finder {
            Some(finder) => finder.find(text).is_some(),
            None => self
                .forms
                .iter()
                .any(|form| memchr::memmem::find(text, form.as_bytes()).is_some()),
        }
    }
}

/// Whether `bytes` hold any form of a registered secret: for a writer
/// whose output is not text (a protobuf message), whose texts are all
/// in it.
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) fn holds_registered(bytes: &[u8]) -> bool {
    ANY.load(Ordering::Acquire)
        && with_registry(|registry| registry.is_some_and(|r| r.holds(bytes)))
}

/// Whether `bytes` hold a `://`: without one, no text in them is a URL
/// for [`display_url`] to change.
pub(crate) fn find_url(bytes: &[u8], from: usize) -> Option<usize> {
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new("://"));
    FINDER.find(bytes.get(from..)?).map(|found| from + found)
}

thread_local! {
    /// This thread's copy of the registry, and the registration count it
    /// was taken at.
    static SEEN: std::cell::RefCell<(u64, Option<Arc<Registry>>)> =
        const { std::cell::RefCell::new((0, None)) };
}

/// Runs `f` with the registry (none before the first secret).
///
/// Every line written is searched: with a lock taken for each, threads
/// writing lines at once would contend for the lock's one cache line. A
/// thread takes the lock only when a secret was registered since it last
/// looked; otherwise it reads one counter that is only ever written at a
/// registration.
fn with_registry<R>(mut f: impl FnMut(Option<&Registry>) -> R) -> R {
    let current = || REGISTRY.read().unwrap_or_else(|e| e.into_inner()).clone();
    let generation = GENERATION.load(Ordering::Acquire);
    let seen = SEEN.try_with(|seen| {
        let mut seen = seen.try_borrow_mut().ok()?;
        if seen.0 != generation {
            *seen = (generation, current());
        }
        Some(f(seen.1.as_deref()))
    });
    match seen {
        Ok(Some(result)) => result,
        // This thread's copy is gone (its storage torn down as it ends)
        // or in use further up the stack: the registry itself.
        _ => f(current().as_deref()),
    }
}

/// Secret values shorter than this are not scrubbed from lines: replacing
/// every `5` or `in` would garble every record. They still print as
/// `[REDACTED]` through [`Secret`].
pub const MIN_SCRUBBED_LEN: usize = 6;

fn register(value: &str) {
    if value.chars().count() < MIN_SCRUBBED_LEN {
        return;
    }
    let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    let mut known = registry
        .as_ref()
        .map(|registry| registry.forms.clone())
        .unwrap_or_default();
    let before = known.len();
    for form in forms(value) {
        if !known.contains(&form) {
            known.push(form);
        }
    }
    if known.len() > before {
        *registry = Some(Arc::new(Registry::new(known)));
        GENERATION.fetch_add(1, Ordering::Release);
    }
    ANY.store(true, Ordering::Release);
}

/// The forms a value can take in a line, each once: as is, XML-escaped
/// (as element text, as an attribute value and as a comment, a JSON
/// string put in the voice markup included), percent-encoded (with `+` or `%20` for a
/// space), and each of those JSON-escaped once and twice (a voice
/// document is a JSON string in a line, and a JSON value may hold JSON
/// text), plus the form the human format shows control characters in.
pub(crate) fn forms(value: &str) -> Vec<Box<str>> {
    let mut forms: Vec<Box<str>> = Vec::with_capacity(4);
    if value.is_empty() {
        return forms;
    }
    let mut add = |form: String| {
        if !form.is_empty() && !forms.iter().any(|f| **f == *form) {
            forms.push(form.into_boxed_str());
        }
    };
    let json = |text: &str| {
        let quoted = serde_json::to_string(text).unwrap_or_default();
        quoted
            .get(1..quoted.len().saturating_sub(1))
            .unwrap_or_default()
            .to_owned()
    };
    let xml = |text: &str, escape: fn(&str, &mut String)| {
        let mut out = String::with_capacity(text.len());
        escape(text, &mut out);
        out
    };
    // In a voice markup comment: as is, or with every hyphen replaced
    // (a comment holding `--` anywhere is written so).
    let comment = |text: &str, hyphens: bool| {
        let mut out = String::with_capacity(text.len());
        crate::text::xml::comment_with(text, hyphens, &mut out);
        out
    };
    let once = json(value);
    let encoded: String = form_urlencoded::byte_serialize(value.as_bytes()).collect();
    let bases = [
        value.to_owned(),
        xml(value, crate::text::xml::escape_text),
        xml(value, crate::text::xml::escape_attr),
        xml(&once, crate::text::xml::escape_text),
        xml(&once, crate::text::xml::escape_attr),
        comment(value, false),
        comment(value, true),
        comment(&once, false),
        comment(&once, true),
        encoded.replace('+', "%20"),
        encoded,
    ];
    for base in bases {
        let once = json(&base);
        let twice = json(&once);
        add(base);
        add(once);
        add(twice);
    }
    let mut clean = String::with_capacity(value.len());
    crate::text::push_clean(&mut clean, value);
    add(clean);
    // JSON written with every non-ASCII character as `\uXXXX` (Python's
    // `json.dumps`, Java's and .NET's default encoders).
    if !value.is_ascii() {
        let ascii = json_ascii(&once);
        add(json(&ascii));
        add(ascii);
    }
    // Percent-encoding with lowercase hex digits (`%2f`), as some
    // encoders write it.
    let lower =
        lowercase_percent(&form_urlencoded::byte_serialize(value.as_bytes()).collect::<String>());
    add(lower.replace('+', "%20"));
    add(lower);
    // Base64 (standard and URL-safe alphabets): a Basic `Authorization`
    // header, a `data:` URL, a configuration blob. Where the value starts
    // inside the encoded bytes decides how its encoding looks, so each of
    // the three alignments gives the characters that depend on the
    // value's bytes alone.
    for form in base64_cores(value.as_bytes()) {
        add(form);
    }
    forms
}

/// JSON string text `escaped` (without its quotes) with every non-ASCII
/// character written `\uXXXX` (two escapes, a surrogate pair, past the
/// basic plane).
fn json_ascii(escaped: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(escaped.len() * 2);
    for c in escaped.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out
}

/// `encoded` with the hex digits of its `%XX` escapes in lowercase.
fn lowercase_percent(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut hex = 0;
    for c in encoded.chars() {
        if c == '%' {
            hex = 2;
            out.push(c);
        } else if hex > 0 {
            hex -= 1;
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Base64 characters (at least this many) a value's encoding must keep,
/// at an alignment, to be scrubbed in that form: fewer would match by
/// chance in ordinary text.
const MIN_BASE64_CORE: usize = 8;

/// The base64 text of `value` at each of the three byte alignments it
/// can start at inside a longer encoded text (`user:password` in a Basic
/// header), keeping only the characters made of the value's bytes alone,
/// in the standard and URL-safe alphabets.
fn base64_cores(value: &[u8]) -> Vec<String> {
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    use base64::Engine as _;
    let mut cores = Vec::with_capacity(6);
    for lead in 0..3usize {
        let mut bytes = vec![0u8; lead];
        bytes.extend_from_slice(value);
        // Whole groups of three bytes made of the value's bytes only.
        let first = lead.div_ceil(3);
        let groups = bytes.len() / 3;
        if groups <= first {
            continue;
        }
        let within = &bytes[first * 3..groups * 3];
        for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
            let core = engine.encode(within);
            if core.len() >= MIN_BASE64_CORE && !cores.contains(&core) {
                cores.push(core);
            }
        }
    }
    cores
}

/// The values of an invocation's sensitive parameters (a `Password`
/// field of the event, say), in the forms they take in a line, longest
/// first: scrubbed from the lines of that invocation only, not registered
/// for the life of the process.
pub(crate) fn invocation_secrets<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<Box<str>> {
    let mut forms: Vec<Box<str>> = values
        .into_iter()
        .filter(|value| value.chars().count() >= MIN_SCRUBBED_LEN)
        .flat_map(forms)
        .collect();
    forms.sort_by_key(|v| std::cmp::Reverse(v.len()));
    forms.dedup();
    forms
}

/// How many times a line is searched again after its secrets were
/// replaced: a secret that begins with the end of `[REDACTED]` can appear
/// anew where one was replaced.
const MAX_SCRUB_PASSES: usize = 8;

/// `text` with every secret value of this process (every [`Secret`] made,
/// in every form a line can show it: JSON-, XML- or percent-encoded)
/// replaced by `[REDACTED]`, and every URL in it shown as [`display_url`]
/// shows it: the scrubber the log writer applies to each line, for text written another way, such as the files an operator
/// sends.
///
/// ```
/// use ccfn_core::{record, Secret};
///
/// let key = Secret::new("key-canary-4f1d0c");
/// let text = r#"{"message":"sent with key-canary-4f1d0c"}"#;
/// assert_eq!(record::scrub_secrets(text), r#"{"message":"sent with [REDACTED]"}"#);
/// # drop(key);
/// ```
#[must_use]
pub fn scrub_secrets(text: &str) -> String {
    let mut text = text.to_owned();
    scrub(&mut text, &[]);
    text
}

/// `text` scrubbed as [`scrub_secrets`] does, borrowed when it holds no
/// secret: for writers that must not copy every line they pass on.
#[must_use]
pub fn scrubbed(text: &str) -> std::borrow::Cow<'_, str> {
    if let std::borrow::Cow::Owned(_) = display_url(text) {
        return std::borrow::Cow::Owned(scrub_secrets(text));
    }
    if !ANY.load(Ordering::Acquire) {
        return std::borrow::Cow::Borrowed(text);
    }
    let holds = with_registry(|registry| registry.is_some_and(|r| r.holds(text)));
    if holds {
        std::borrow::Cow::Owned(scrub_secrets(text))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Whether the `://` at `at` of `bytes` follows a URL scheme: a letter,
/// then letters, digits, `+`, `-` or `.`.
fn scheme_before(bytes: &[u8], at: usize) -> bool {
    let start = bytes[..at]
        .iter()
        .rposition(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
        .map_or(0, |p| p + 1);
    start < at && bytes[start].is_ascii_alphabetic()
}

/// The URLs in `text` (`scheme://authority...`), each as the range of
/// its user information and the `@` that ends it.
fn userinfo_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(at) = find_scheme_end(text, from) {
        from = at + 3;
        if !scheme_before(bytes, at) {
            continue;
        }
        let start = at + 3;
        let end = bytes[start..]
            .iter()
            .position(|b| {
                matches!(
                    b,
                    b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>' | b'`' | b'\\'
                ) || b.is_ascii_whitespace()
                    || b.is_ascii_control()
            })
            .map_or(bytes.len(), |p| start + p);
        if let Some(last) = bytes[start..end].iter().rposition(|b| *b == b'@') {
            spans.push(start..start + last + 1);
            from = start + last + 1;
        }
    }
    spans
}

/// `text` with the user information (`user:password@`) of every URL in
/// it written `[REDACTED]@`: what a URL is shown as, on a terminal or in
/// a file sent to someone, still saying that it carries credentials (a
/// webhook URL with basic authentication, say). Borrowed when no URL in
/// it has any, or only `[REDACTED]@` already.
///
/// ```
/// use ccfn_core::record::redact_url_userinfo;
///
/// assert_eq!(
///     redact_url_userinfo("GET https://ops:hunter2-pass@cc.example.com/x failed"),
///     "GET https://[REDACTED]@cc.example.com/x failed"
/// );
/// ```
#[must_use]
pub fn redact_url_userinfo(text: &str) -> std::borrow::Cow<'_, str> {
    let redacted = |span: &std::ops::Range<usize>| text[span.start..span.end - 1] == *REDACTED;
    let spans = userinfo_spans(text);
    if spans.iter().all(redacted) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut kept = 0;
    for span in spans {
        out.push_str(&text[kept..span.start]);
        out.push_str(REDACTED);
        out.push('@');
        kept = span.end;
    }
    out.push_str(&text[kept..]);
    std::borrow::Cow::Owned(out)
}

/// `text` with every URL in it shown as ccfn writes URLs anywhere (log
/// records, errors, telemetry): its user information (`user:password@`)
/// written `[REDACTED]@`, and the value of every query parameter whose
/// name is sensitive ([`is_sensitive_name`], the name percent-decoded
/// first: `token`, `access_token`, `X-Amz-Signature`, `api%5Fkey`...)
/// written `[REDACTED]`; every other byte as it was. A URL is a scheme
/// and `://`, up to white space, a control character or one of `"`,
/// `'`, `<`, `>`, `` ` `` and `\`, so URLs inside JSON or prose are
/// found too.
///
/// Borrowed when there is nothing to do: a text without `://` costs one
/// scan. Applying it twice changes nothing more.
///
/// ```
/// use ccfn_core::record::display_url;
///
/// assert_eq!(
///     display_url("GET https://ops:pw-canary@cc.example.com/cb?token=t-canary&keep=1 failed"),
///     "GET https://[REDACTED]@cc.example.com/cb?token=[REDACTED]&keep=1 failed"
/// );
/// assert!(matches!(display_url("no URL here"), std::borrow::Cow::Borrowed(_)));
/// ```
#[must_use]
pub fn display_url(text: &str) -> std::borrow::Cow<'_, str> {
    if find_scheme_end(text, 0).is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    let edits = url_edits(text);
    if edits.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut kept = 0;
    for (range, with) in edits {
        out.push_str(&text[kept..range.start]);
        out.push_str(with);
        kept = range.end;
    }
    out.push_str(&text[kept..]);
    std::borrow::Cow::Owned(out)
}

/// Where the next `://` at or after `from` in `text` is.
fn find_scheme_end(text: &str, from: usize) -> Option<usize> {
    find_url(text.as_bytes(), from)
}

/// Whether `b` ends a URL written in a text.
fn ends_url(b: u8) -> bool {
    matches!(b, b'"' | b'\'' | b'<' | b'>' | b'`' | b'\\')
        || b.is_ascii_whitespace()
        || b.is_ascii_control()
}

/// The replacements [`display_url`] makes in `text`, in order and not
/// overlapping: each range and what it is written as.
fn url_edits(text: &str) -> Vec<(std::ops::Range<usize>, &'static str)> {
    const USERINFO: &str = "[REDACTED]@";
    let bytes = text.as_bytes();
    let mut edits: Vec<(std::ops::Range<usize>, &'static str)> = Vec::new();
    let mut from = 0;
    while let Some(at) = find_scheme_end(text, from) {
        from = at + 3;
        if !scheme_before(bytes, at) {
            continue;
        }
        let start = at + 3;
        let end = bytes[start..]
            .iter()
            .position(|b| ends_url(*b))
            .map_or(bytes.len(), |p| start + p);
        let authority_end = bytes[start..end]
            .iter()
            .position(|b| matches!(b, b'/' | b'?' | b'#'))
            .map_or(end, |p| start + p);
        if let Some(last) = bytes[start..authority_end].iter().rposition(|b| *b == b'@') {
            let userinfo = start..start + last + 1;
            if text[userinfo.start..userinfo.end - 1] != *REDACTED {
                edits.push((userinfo, USERINFO));
            }
        }
        let fragment = bytes[authority_end..end]
            .iter()
            .position(|b| *b == b'#')
            .map_or(end, |p| authority_end + p);
        let Some(question) = bytes[authority_end..fragment]
            .iter()
            .position(|b| *b == b'?')
        else {
            continue;
        };
        let mut param = authority_end + question + 1;
        while param < fragment {
            let param_end = bytes[param..fragment]
                .iter()
                .position(|b| *b == b'&')
                .map_or(fragment, |p| param + p);
            if let Some(equals) = bytes[param..param_end].iter().position(|b| *b == b'=') {
                let name = &text[param..param + equals];
                let value = param + equals + 1..param_end;
                let shown = &text[value.clone()];
                if !shown.is_empty()
                    && shown != REDACTED
                    && !shown.eq_ignore_ascii_case("%5BREDACTED%5D")
                    && is_sensitive_name(&percent_decode(name))
                {
                    edits.push((value, REDACTED));
                }
            }
            param = param_end + 1;
        }
    }
    // A URL inside a query value is found again on its own: an edit
    // inside one already made is dropped.
    edits.sort_by_key(|(range, _)| range.start);
    let mut kept: Vec<(std::ops::Range<usize>, &'static str)> = Vec::with_capacity(edits.len());
    for edit in edits {
        if kept.last().is_none_or(|(last, _)| last.end <= edit.0.start) {
            kept.push(edit);
        }
    }
    kept
}

/// Registers with the scrubber the password of every URL in `text` that
/// carries user information (`https://user:password@host`), as written
/// and percent-decoded; a user name alone (`https://TOKEN@host`, a token
/// given as the user) is registered the same way. Returns how many values
/// were registered (those of at least [`MIN_SCRUBBED_LEN`] characters).
fn register_url_userinfo(text: &str) -> usize {
    let mut count = 0;
    for span in userinfo_spans(text) {
        let userinfo = &text[span.start..span.end - 1];
        let secret = match userinfo.split_once(':') {
            Some((_, password)) => password,
            None => userinfo,
        };
        count += register_written_and_decoded(secret, &percent_decode(secret));
    }
    count
}

/// Registers `written` and, when it differs, `decoded`, each of at least
/// [`MIN_SCRUBBED_LEN`] characters; returns how many.
fn register_written_and_decoded(written: &str, decoded: &str) -> usize {
    let values = if decoded == written {
        &[written][..]
    } else {
        &[written, decoded][..]
    };
    let mut count = 0;
    for value in values {
        if value.chars().count() >= MIN_SCRUBBED_LEN {
            register(value);
            count += 1;
        }
    }
    count
}

/// Registers with the scrubber every secret the URLs in `text` carry: the
/// password of their user information (`https://user:password@host`; a
/// user name alone, `https://TOKEN@host`, a token given as the user) and
/// the value of every query parameter [`display_url`] hides (a sensitive
/// name: `token`, `api_key`, `X-Amz-Signature`...), as written and
/// percent-decoded, so that the value is scrubbed wherever else it shows
/// up, not only inside its URL. Returns how many values were registered
/// (those of at least [`MIN_SCRUBBED_LEN`] characters).
///
/// ```
/// use ccfn_core::record::{register_url_secrets, scrub_secrets};
///
/// register_url_secrets("http://ops:s3cret%21pass@collector.example:4318/?token=t0ken-canary");
/// assert_eq!(scrub_secrets("password s3cret!pass"), "password [REDACTED]");
/// assert_eq!(scrub_secrets("the token t0ken-canary"), "the token [REDACTED]");
/// ```
pub fn register_url_secrets(text: &str) -> usize {
    let mut count = register_url_userinfo(text);
    for (range, with) in url_edits(text) {
        if with != REDACTED {
            // User information, registered above.
            continue;
        }
        let written = &text[range];
        // A query value's `+` is a space.
        count += register_written_and_decoded(written, &percent_decode(&written.replace('+', " ")));
    }
    count
}

/// `text` with its `%XX` escapes decoded (bytes that are not UTF-8 are
/// replaced).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[at] == b'%'
            && at + 2 < bytes.len()
            && let (Some(high), Some(low)) = (hex(bytes[at + 1]), hex(bytes[at + 2]))
        {
            out.push((high * 16 + low) as u8);
            at += 3;
            continue;
        }
        out.push(bytes[at]);
        at += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Shows every URL in `line` as [`display_url`] does, then replaces every
/// registered secret value in `line`, and every value of `also` (see
/// [`invocation_secrets`]), with `[REDACTED]`, until none is left. The
/// line is left as it is when it holds no URL and no secret (most do).
/// Whether it changed.
pub(crate) fn scrub(line: &mut String, also: &[Box<str>]) -> bool {
    touched(line, also) && scrub_touched(line, also)
}

/// [`scrub`] for the part of `line` from byte `from` on (a character
/// boundary); the line is left as it is, and not copied, when that part
/// holds no URL and no secret. Whether it changed.
pub(crate) fn scrub_from(line: &mut String, from: usize, also: &[Box<str>]) -> bool {
    if !touched(&line[from..], also) {
        return false;
    }
    let mut rest = line.split_off(from);
    let changed = scrub_touched(&mut rest, also);
    line.push_str(&rest);
    changed
}

/// Whether `text` holds a form of a registered secret, a value of
/// `also`, or a `://` (where a URL may be to show otherwise): whether
/// [`scrub`] may change it.
pub(crate) fn touched(text: &str, also: &[Box<str>]) -> bool {
    let registered_or_url = || {
        with_registry(|registry| match registry {
            Some(Registry {
                touches: Some(touches),
                ..
            }) => touches.find(text).is_some(),
            Some(registry) => registry.holds(text) || find_scheme_end(text, 0).is_some(),
            None => find_scheme_end(text, 0).is_some(),
        })
    };
    let found = if ANY.load(Ordering::Acquire) {
        registered_or_url()
    } else {
        find_scheme_end(text, 0).is_some()
    };
    found || also.iter().any(|secret| text.contains(&**secret))
}

/// [`scrub`] for a line [`touched`] said it may change.
fn scrub_touched(line: &mut String, also: &[Box<str>]) -> bool {
    let mut changed = false;
    // Every URL as ccfn shows URLs (`display_url`): whatever is scrubbed
    // is about to be written.
    if let std::borrow::Cow::Owned(shown) = display_url(line) {
        *line = shown;
        changed = true;
    }
    for _ in 0..MAX_SCRUB_PASSES {
        if !replace_once(line, also, REDACTED) {
            return changed;
        }
        changed = true;
    }
    // A line built to regrow a secret around each marker: cutting the
    // secrets out shortens it on every pass, so this ends.
    while replace_once(line, also, "") {}
    true
}

/// Replaces each secret found in `line` with `with`; whether any was.
fn replace_once(line: &mut String, also: &[Box<str>], with: &str) -> bool {
    let found = ANY.load(Ordering::Acquire)
        && with_registry(|registry| {
            let Some(registry) = registry else {
                return false;
            };
            match &registry.finder {
                // Every line is searched once; most hold no secret and are
                // left as they are.
                Some(finder) => {
                    if finder.find(line.as_str()).is_none() {
                        return false;
                    }
                    let mut scrubbed = String::with_capacity(line.len());
                    finder.replace_all_with(line, &mut scrubbed, |_, _, out| {
                        out.push_str(with);
                        true
                    });
                    *line = scrubbed;
                    true
                }
                None => replace_each(line, &registry.forms, with),
            }
        });
    replace_each(line, also, with) || found
}

/// Replaces each of `secrets` (longest first) in `line`; whether any was
/// there.
fn replace_each(line: &mut String, secrets: &[Box<str>], with: &str) -> bool {
    let mut found = false;
    for secret in secrets {
        if line.contains(&**secret) {
            *line = line.replace(&**secret, with);
            found = true;
        }
    }
    found
}

/// How much of a request's own text (a media type, a path, a method, a
/// parameter name) a record or an answer repeats.
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
pub(crate) const MAX_ECHOED_BYTES: usize = 128;

/// `text` as a record or an answer may repeat it: secrets scrubbed,
/// control characters shown as `\u{..}`, and cut at
/// [`MAX_ECHOED_BYTES`] with an ellipsis. Whatever a client sends, it
/// cannot make a long line or put a token in one this way.
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
pub(crate) fn echo(text: &str) -> String {
    let mut end = text.len().min(MAX_ECHOED_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + 4);
    crate::text::push_clean(&mut out, &text[..end]);
    scrub(&mut out, &[]);
    if end < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrub_from_scrubs_the_rest_of_a_line_and_leaves_a_clean_one_alone() {
        let also = invocation_secrets(["canary-from-9d3b21"]);
        let mut line =
            String::from("head canary-from-9d3b21|tail canary-from-9d3b21 https://u:p@h/");
        scrub_from(&mut line, 24, &also);
        assert_eq!(
            line,
            "head canary-from-9d3b21|tail [REDACTED] https://[REDACTED]@h/"
        );
        let mut clean = String::with_capacity(64);
        clean.push_str("head|nothing to see");
        let before = clean.as_ptr();
        scrub_from(&mut clean, 5, &also);
        assert_eq!(clean, "head|nothing to see");
        assert_eq!(clean.as_ptr(), before, "not copied");
        // With secrets registered: a secret, a URL, or neither.
        let _registered = Secret::new("canary-detect-5c07aa");
        for (line, scrubbed) in [
            ("x|a canary-detect-5c07aa b", "x|a [REDACTED] b"),
            (
                "x|see https://ops:pw@h.example/",
                "x|see https://[REDACTED]@h.example/",
            ),
            ("x|\"canary-detect-5c07aa\"", "x|\"[REDACTED]\""),
        ] {
            let mut line = line.to_owned();
            scrub_from(&mut line, 2, &[]);
            assert_eq!(line, scrubbed);
        }
        let mut clean = String::with_capacity(64);
        clean.push_str("x|https is not a URL, nor is canary-detect");
        let before = clean.as_ptr();
        scrub_from(&mut clean, 2, &[]);
        assert_eq!(clean, "x|https is not a URL, nor is canary-detect");
        assert_eq!(clean.as_ptr(), before, "not copied");
    }

    /// The detector every line is asked with says what the finder says,
    /// for texts shorter and longer than its SIMD search takes, a form
    /// anywhere in them or none; the one that also finds `://` finds it
    /// anywhere too.
    #[test]
    fn the_detector_agrees_with_the_finder() {
        let forms: Vec<Box<str>> = ["canary-detector-1a2b", "%22q%22x", "c2VjcmV0", "tok\\\"en"]
            .iter()
            .flat_map(|value| forms(value))
            .collect();
        let registry = Registry::new(forms.clone());
        assert!(registry.detector.is_some());
        let finder = registry.finder.as_ref().unwrap();
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        for len in 0..120 {
            for form in forms.iter().map(|form| Some(&**form)).chain([None]) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let mut text: String = (0..len)
                    .map(|at| char::from(b'a' + ((state >> (at % 60)) % 26) as u8))
                    .collect();
                if let Some(form) = form {
                    let at = (state % (len as u64 + 1)) as usize;
                    text.insert_str(at, form);
                }
                assert_eq!(
                    registry.holds(&text),
                    finder.find(text.as_str()).is_some(),
                    "{text:?}"
                );
                assert_eq!(registry.holds(&text), form.is_some(), "{text:?}");
                let touches = registry.touches.as_ref().unwrap();
                assert_eq!(touches.find(&text).is_some(), form.is_some(), "{text:?}");
                let mut at = (state % (text.len() as u64 + 1)) as usize;
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                let mut with_url = text.clone();
                with_url.insert_str(at, "://");
                assert!(touches.find(&with_url).is_some(), "{with_url:?}");
            }
        }
    }

    #[test]
    fn a_thread_sees_a_secret_registered_after_it_last_looked() {
        use std::sync::mpsc;
        let _first = Secret::new("canary-seen-first-41d0");
        let (ask, asked) = mpsc::channel::<&'static str>();
        let (tell, told) = mpsc::channel::<String>();
        let writer = std::thread::spawn(move || {
            for line in asked {
                tell.send(scrubbed(line).into_owned()).unwrap();
            }
        });
        ask.send("a canary-seen-first-41d0 b canary-seen-later-7e2c")
            .unwrap();
        assert_eq!(
            told.recv().unwrap(),
            "a [REDACTED] b canary-seen-later-7e2c",
            "not a secret yet"
        );
        let _later = Secret::new("canary-seen-later-7e2c");
        ask.send("a canary-seen-first-41d0 b canary-seen-later-7e2c")
            .unwrap();
        assert_eq!(told.recv().unwrap(), "a [REDACTED] b [REDACTED]");
        drop(ask);
        writer.join().unwrap();
    }

    #[test]
    fn every_word_is_found_in_either_case() {
        for word in SENSITIVE_WORDS {
            assert_eq!(word.to_ascii_lowercase(), *word);
            assert!(is_sensitive_name(word));
            assert!(is_sensitive_name(&format!(
                "X_{}_Y",
                word.to_ascii_uppercase()
            )));
            // Its letters but the last, or apart, are not it.
            let short = &word[..word.len() - 1];
            assert!(!SENSITIVE_WORDS.iter().any(|other| short.contains(other)));
            assert!(!is_sensitive_name(short), "{short}");
            let apart = format!("{}_{}", &word[..1], &word[1..]);
            assert!(!is_sensitive_name(&apart), "{apart}");
        }
    }

    #[test]
    fn debug_and_display_are_redacted() {
        let secret = Secret::new("canary-debug-0001");
        assert_eq!(format!("{secret}"), REDACTED);
        assert_eq!(format!("{secret:?}"), REDACTED);
        assert_eq!(format!("{:?}", Some(&secret)), "Some([REDACTED])");
    }

    #[test]
    fn scrub_replaces_raw_and_json_escaped_forms() {
        let _secret = Secret::new("canary\"quoted\\0002");
        let mut raw = String::from("value canary\"quoted\\0002 here");
        scrub(&mut raw, &[]);
        assert_eq!(raw, "value [REDACTED] here");
        let mut json = serde_json::json!({ "v": "canary\"quoted\\0002" }).to_string();
        scrub(&mut json, &[]);
        assert_eq!(json, r#"{"v":"[REDACTED]"}"#);
    }

    #[test]
    fn percent_encoded_forms_are_scrubbed_too() {
        let _sas = Secret::new("Ab+cd/EF=gh12");
        let mut line = String::from("url=/blob?sig=Ab%2Bcd%2FEF%3Dgh12 raw=Ab+cd/EF=gh12");
        scrub(&mut line, &[]);
        assert_eq!(line, "url=/blob?sig=[REDACTED] raw=[REDACTED]");
    }

    #[test]
    fn nested_encodings_are_scrubbed() {
        let value = "canary<&\"'>\t+/= 5%";
        let _secret = Secret::new(value);
        let json = |s: &str| serde_json::to_string(s).unwrap();
        let mut xml_text = String::new();
        crate::text::xml::escape_text(value, &mut xml_text);
        let mut xml_attr = String::new();
        crate::text::xml::escape_attr(value, &mut xml_attr);
        let percent: String = form_urlencoded::byte_serialize(value.as_bytes()).collect();
        // A voice document holding the value, as a JSON line holds it.
        let markup =
            format!("<Say>{xml_text}</Say><Redirect a=\"{xml_attr}\">/x?p={percent}</Redirect>");
        let task = {
            let mut out = String::new();
            crate::text::xml::escape_text(&json(value), &mut out);
            format!("<Task>{{\"p\":{out}}}</Task>")
        };
        for text in [
            value.to_owned(),
            json(value),
            json(&json(value)),
            json(&markup),
            json(&task),
            json(&json(&markup)),
            percent.replace('+', "%20"),
        ] {
            let mut line = format!("line {text} end");
            scrub(&mut line, &[]);
            for form in forms(value) {
                assert!(!line.contains(&*form), "{form:?} left in {line:?}");
            }
            assert!(line.contains(REDACTED), "{line}");
        }
    }

    #[test]
    fn a_secret_cannot_regrow_around_its_marker() {
        // "ED]ab1" begins with the end of "[REDACTED]": replacing the first
        // occurrence in "ED]ab1ab1" makes "[REDACTED]ab1", a new one.
        let _secret = Secret::new("ED]ab1");
        let mut line = String::from("x ED]ab1ab1 y");
        scrub(&mut line, &[]);
        assert!(!line.contains("ED]ab1"), "{line}");
        let also = invocation_secrets(["TED]zz9"]);
        let mut line = String::from("TED]zz9zz9zz9");
        scrub(&mut line, &also);
        assert!(!line.contains("TED]zz9"), "{line}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// The name check is the plain "contains one of the words,
        /// whatever the case", only faster.
        #[test]
        fn a_name_is_sensitive_when_it_contains_a_word(
            name in "[a-zA-Z_-]{0,8}(TOKEN|secret|Key|pAss|pwd|Signature|auth|cookie|credential|private|jwt|dsn|to|se|ke|pa|au|co|cr|pr|jw|ds)?[a-zA-Z_-]{0,8}",
        ) {
            const WORDS: [&str; 12] = [
                "token", "secret", "key", "pass", "pwd", "signature", "auth", "cookie",
                "credential", "private", "jwt", "dsn",
            ];
            let lower = name.to_ascii_lowercase();
            let expected = WORDS.iter().any(|word| lower.contains(word));
            proptest::prop_assert_eq!(is_sensitive_name(&name), expected, "{}", name);
        }

        /// Whatever the secret (of at least `MIN_SCRUBBED_LEN` characters)
        /// and whatever surrounds it, none of its forms is left in a line
        /// that holds any of them.
        #[test]
        fn no_form_of_a_secret_survives_scrubbing(
            secret in "\\PC{6,24}",
            before in "\\PC{0,16}",
            after in "\\PC{0,16}",
            pick in 0usize..64,
        ) {
            let also = invocation_secrets([secret.as_str()]);
            let all = forms(&secret);
            let form = &all[pick % all.len()];
            let mut line = format!("{before}{form}{after}{before}{secret}{after}");
            scrub(&mut line, &also);
            for form in &all {
                proptest::prop_assert!(!line.contains(&**form), "{:?} left in {:?}", form, line);
            }
        }
    }

    #[test]
    fn a_basic_header_and_other_base64_texts_are_scrubbed() {
        use base64::engine::general_purpose::{STANDARD, URL_SAFE};
        use base64::Engine as _;
        let password = "canary-basic-pass-7c21";
        let _secret = Secret::new(password);
        // Every alignment: the user name's length decides it.
        for user in ["ops", "op", "o", "operator"] {
            for engine in [&STANDARD, &URL_SAFE] {
                let encoded = engine.encode(format!("{user}:{password}"));
                let mut line = format!("Authorization: Basic {encoded}");
                scrub(&mut line, &[]);
                assert!(line.contains(REDACTED), "{user}: {line}");
                let left = line.trim_start_matches("Authorization: Basic ");
                // At most the characters shared with the user name and two
                // of the last group are left of the encoding.
                assert!(
                    left.len() <= REDACTED.len() + 16,
                    "{user}: {line} from {encoded}"
                );
            }
        }
        // An encoding too short to tell from ordinary text is left.
        assert!(base64_cores(b"abcdef")
            .iter()
            .all(|c| c.len() >= MIN_BASE64_CORE));
    }

    #[test]
    fn ascii_only_json_and_lowercase_percent_forms_are_scrubbed() {
        let value = "canary-é✓-🙂-key";
        let _secret = Secret::new(value);
        let mut python = String::from(r#"{"k": "canary-\u00e9\u2713-\ud83d\ude42-key"}"#);
        scrub(&mut python, &[]);
        assert_eq!(python, r#"{"k": "[REDACTED]"}"#);
        let _sas = Secret::new("Ab+cd/EF=gh34");
        let mut line = String::from("sig=Ab%2bcd%2fEF%3dgh34");
        scrub(&mut line, &[]);
        assert_eq!(line, "sig=[REDACTED]");
    }

    #[test]
    fn url_user_information_is_stripped_and_its_password_registered() {
        assert_eq!(
            redact_url_userinfo("a http://u:p%40ss-word@h:1/x?q=http://z@y b ftp://t@s"),
            "a http://[REDACTED]@h:1/x?q=http://[REDACTED]@y b ftp://[REDACTED]@s"
        );
        assert!(matches!(
            redact_url_userinfo("https://[REDACTED]@h/x"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert!(matches!(
            redact_url_userinfo("mail oncall@example.com at https://h/p@q"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            redact_url_userinfo("\"https://k@h\""),
            "\"https://[REDACTED]@h\""
        );
        assert_eq!(
            register_url_userinfo("CCFN_PUBLIC_URL=https://ops:canary%2Furl-pass@cc.example.com"),
            2
        );
        assert_eq!(
            scrub_secrets("canary%2Furl-pass canary/url-pass"),
            "[REDACTED] [REDACTED]"
        );
        assert_eq!(register_url_userinfo("https://canary-url-token-9d@h/"), 1);
        assert_eq!(scrub_secrets("t=canary-url-token-9d"), "t=[REDACTED]");
        assert_eq!(register_url_userinfo("http://user:short@h/ http://h/"), 0);
    }

    #[test]
    fn urls_are_shown_without_credentials_or_sensitive_query_values() {
        let shown = |text: &str| display_url(text).into_owned();
        assert_eq!(
            shown("https://ops:pw-canary-7a@host/path?token=tok-canary-7a&keep=1"),
            "https://[REDACTED]@host/path?token=[REDACTED]&keep=1"
        );
        // Names: any case, percent-encoded, words inside longer names.
        assert_eq!(
            shown("http://h/?access_token=a1&X-Amz-Signature=s1&api%5Fkey=k1&Password=p1&page=2"),
            "http://h/?access_token=[REDACTED]&X-Amz-Signature=[REDACTED]&api%5Fkey=[REDACTED]&Password=[REDACTED]&page=2"
        );
        // A fragment is not the query; an empty value stays empty.
        assert_eq!(
            shown("http://h/p?secret=&a=1#token=frag"),
            "http://h/p?secret=&a=1#token=frag"
        );
        // Inside JSON, a line of prose, a URL in a query value.
        assert_eq!(
            shown(r#"{"url":"https://u:p@h/x?signature=abc","n":1} then http://h?token=t2 ok"#),
            r#"{"url":"https://[REDACTED]@h/x?signature=[REDACTED]","n":1} then http://h?token=[REDACTED] ok"#
        );
        assert_eq!(
            shown("http://h/?next=http://a:b@c/&token=http://d:e@f/?token=g"),
            "http://h/?next=http://[REDACTED]@c/&token=[REDACTED]"
        );
        assert_eq!(
            shown("a http://u:p%40ss-word@h:1/x?q=http://z@y b ftp://t@s"),
            "a http://[REDACTED]@h:1/x?q=http://[REDACTED]@y b ftp://[REDACTED]@s"
        );
        // Already shown, or nothing to show: borrowed, so idempotent.
        for text in [
            "https://[REDACTED]@host/path?token=[REDACTED]&keep=1",
            "x?token=%5BREDACTED%5D http://h/?token=%5BREDACTED%5D",
            "mail oncall@example.com at https://h/p@q?page=1",
            "token=raw-but-no-url",
            "",
            "://token=x@y",
        ] {
            assert!(
                matches!(display_url(text), std::borrow::Cow::Borrowed(_)),
                "{text}"
            );
        }
        // Hostile texts: never a panic, never a secret left.
        for text in [
            "http://",
            "http://@",
            "http://?",
            "http://h?&&=&token",
            "http://h?token=é-canary&é=1",
            "1http://u:p@h",
            "http://h?token=a\"http://h?token=b",
        ] {
            let once = shown(text);
            assert_eq!(shown(&once), once, "{text}");
            assert!(!once.contains("canary"), "{text}");
        }
        // The scrubbers apply it.
        assert_eq!(
            scrub_secrets("GET http://h/?token=tok-canary-7b"),
            "GET http://h/?token=[REDACTED]"
        );
        assert_eq!(scrubbed("GET http://u:p@h/"), "GET http://[REDACTED]@h/");
    }

    #[test]
    fn scrubbed_borrows_a_line_without_secrets() {
        let _secret = Secret::new("canary-borrow-0005");
        assert!(matches!(
            scrubbed("nothing to hide"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(scrubbed("x canary-borrow-0005"), "x [REDACTED]");
    }

    #[test]
    fn longer_secret_wins_over_its_prefix() {
        let _short = Secret::new("canary-prefix");
        let _long = Secret::new("canary-prefix-and-more-0003");
        let mut line = String::from("x canary-prefix-and-more-0003 y");
        scrub(&mut line, &[]);
        assert_eq!(line, "x [REDACTED] y");
    }

    #[test]
    fn short_secrets_are_not_scrubbed() {
        let empty = Secret::new("");
        assert!(empty.is_empty());
        let short = Secret::new("in");
        let days = Secret::new("5");
        let mut line = String::from("listening on +15551230000");
        scrub(&mut line, &[]);
        assert_eq!(line, "listening on +15551230000");
        assert_eq!(format!("{short} {days}"), "[REDACTED] [REDACTED]");
    }

    #[test]
    fn invocation_values_are_scrubbed_only_where_given() {
        let values = invocation_secrets(["canary-event-0004", "short"]);
        assert_eq!(
            values,
            invocation_secrets(["canary-event-0004"]),
            "short values are left alone"
        );
        let mut line = String::from("p=canary-event-0004");
        scrub(&mut line, &values);
        assert_eq!(line, "p=[REDACTED]");
        let mut outside = String::from("p=canary-event-0004");
        scrub(&mut outside, &[]);
        assert_eq!(outside, "p=canary-event-0004");
    }

    #[test]
    fn json_members_with_sensitive_names_are_redacted_at_any_depth() {
        let value = serde_json::json!({
            "id": "1",
            "authorization": "Basic abc",
            "nested": [{"api_key": "k", "ok": true}],
        });
        assert_eq!(
            redact_json(&value),
            serde_json::json!({
                "id": "1",
                "authorization": "[REDACTED]",
                "nested": [{"api_key": "[REDACTED]", "ok": true}],
            })
        );
    }

    #[test]
    fn sensitive_names() {
        for name in [
            "Authorization",
            "proxy-authorization",
            "Cookie",
            "Set-Cookie",
            "X-Api-Key",
            "AUTH_TOKEN",
            "client_secret",
            "password",
            "X-Twilio-Signature",
            "x-PrIvAtE-id",
            "database_DSN",
            "ÄpiKey",
            "PWD",
            "jwt",
        ] {
            assert!(is_sensitive_name(name), "{name}");
        }
        for name in [
            "CallSid",
            "From",
            "To",
            "Content-Type",
            "mode",
            "",
            "k",
            "ke",
            "jw",
            "クッキー",
        ] {
            assert!(!is_sensitive_name(name), "{name}");
        }
    }
}
