//! Voice markup ("TwiML") builder: the instructions a voice webhook answers
//! with.
//!
//! A [`VoiceResponse`] is a list of verbs ([`Say`], [`Play`], [`Pause`],
//! [`Gather`], [`Record`], [`Enqueue`], [`Dial`], [`Redirect`], [`Reject`],
//! `Hangup`, `Leave`). Verbs that take attributes or children are returned
//! as `&mut` builders with chained setters; attributes are written in the
//! order their setters were first called, and calling a setter again
//! replaces the value in place.
//!
//! [`VoiceResponse::to_xml`] (and [`Display`](std::fmt::Display)) produce
//! exactly the string the platform's helper libraries produce: the XML
//! declaration, compact XML with no whitespace between elements, `<X/>` for
//! empty elements, and the helper libraries' escaping (see
//! [Escaping](#escaping)).
//!
//! # Example
//!
//! ```
//! use ccfn_core::voice::{GatherInput, Method, VoiceResponse};
//!
//! let mut twiml = VoiceResponse::new();
//! twiml
//!     .gather()
//!     .input(GatherInput::DtmfSpeech)
//!     .action("/ivr/menu?lang=en&retry=1")
//!     .num_digits(1)
//!     .say("Press 1 for sales & 2 for support.")
//!     .voice("Polly.Joanna");
//! twiml.redirect("/ivr/menu").method(Method::Post);
//! twiml.hangup();
//!
//! assert_eq!(
//!     twiml.to_xml(),
//!     concat!(
//!         r#"<?xml version="1.0" encoding="UTF-8"?><Response>"#,
//!         r#"<Gather input="dtmf speech" action="/ivr/menu?lang=en&amp;retry=1" numDigits="1">"#,
//!         r#"<Say voice="Polly.Joanna">Press 1 for sales &amp; 2 for support.</Say>"#,
//!         r#"</Gather>"#,
//!         r#"<Redirect method="POST">/ivr/menu</Redirect>"#,
//!         r#"<Hangup/>"#,
//!         r#"</Response>"#,
//!     )
//! );
//! assert_eq!(twiml.to_string(), twiml.to_xml());
//! ```
//!
//! # Escaping
//!
//! Element text escapes `&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;` and a
//! carriage return → `&#xD;`; quotes are left as they are. Attribute values
//! (always written between double quotes) escape `&` → `&amp;`,
//! `<` → `&lt;`, `"` → `&quot;`, tab → `&#x9;`, line feed → `&#xA;` and
//! carriage return → `&#xD;`; `>` and `'` are left as they are. This is what
//! the helper libraries' XML writer does, and what the conformance vectors
//! check.
//!
//! Characters that XML 1.0 does not allow at all (control characters other
//! than tab, line feed and carriage return, and U+FFFE / U+FFFF) cannot be
//! written; where the helper libraries throw, [`VoiceResponse::to_xml`]
//! cannot fail and writes U+FFFD (`�`) in their place instead.

use std::fmt;

use crate::text::xml::{escape_attr, escape_text};

/// The XML declaration every response starts with.
const DECLARATION: &str = r#"<?xml version="1.0" encoding="UTF-8"?>"#;

// ---------------------------------------------------------------------------
// Typed attribute values
// ---------------------------------------------------------------------------

/// HTTP method the platform uses for a callback URL (`method`,
/// `waitUrlMethod`, `statusCallbackMethod`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`
    Get,
    /// `POST`
    Post,
}

impl Method {
    /// The value as written in the markup (`GET` or `POST`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// What a [`Gather`] listens for (its `input` attribute).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GatherInput {
    /// Key presses only: `dtmf`.
    Dtmf,
    /// Speech only: `speech`.
    Speech,
    /// Key presses or speech: `dtmf speech`.
    DtmfSpeech,
}

impl GatherInput {
    /// The value as written in the markup.
    pub const fn as_str(self) -> &'static str {
        match self {
            GatherInput::Dtmf => "dtmf",
            GatherInput::Speech => "speech",
            GatherInput::DtmfSpeech => "dtmf speech",
        }
    }
}

/// Why a call is refused ([`Reject::reason`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RejectReason {
    /// The caller hears a "not in service" message: `rejected`.
    Rejected,
    /// The caller hears a busy signal: `busy`.
    Busy,
}

impl RejectReason {
    /// The value as written in the markup.
    pub const fn as_str(self) -> &'static str {
        match self {
            RejectReason::Rejected => "rejected",
            RejectReason::Busy => "busy",
        }
    }
}

/// Whether silence is trimmed from a recording ([`Record::trim`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordTrim {
    /// Trim leading and trailing silence: `trim-silence`.
    TrimSilence,
    /// Keep the recording as it is: `do-not-trim`.
    DoNotTrim,
}

impl RecordTrim {
    /// The value as written in the markup.
    pub const fn as_str(self) -> &'static str {
        match self {
            RecordTrim::TrimSilence => "trim-silence",
            RecordTrim::DoNotTrim => "do-not-trim",
        }
    }
}

/// Whether and how a [`Dial`] is recorded ([`Dial::record`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DialRecord {
    /// No recording: `do-not-record`.
    DoNotRecord,
    /// Record from when the call is answered, mono: `record-from-answer`.
    RecordFromAnswer,
    /// Record from when ringing starts, mono: `record-from-ringing`.
    RecordFromRinging,
    /// Record from answer, one channel per leg: `record-from-answer-dual`.
    RecordFromAnswerDual,
    /// Record from ringing, one channel per leg: `record-from-ringing-dual`.
    RecordFromRingingDual,
}

impl DialRecord {
    /// The value as written in the markup.
    pub const fn as_str(self) -> &'static str {
        match self {
            DialRecord::DoNotRecord => "do-not-record",
            DialRecord::RecordFromAnswer => "record-from-answer",
            DialRecord::RecordFromRinging => "record-from-ringing",
            DialRecord::RecordFromAnswerDual => "record-from-answer-dual",
            DialRecord::RecordFromRingingDual => "record-from-ringing-dual",
        }
    }
}

/// How long a [`Gather`] waits after the caller stops speaking
/// ([`Gather::speech_timeout`]). A plain `u32` converts to
/// [`SpeechTimeout::Seconds`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpeechTimeout {
    /// Let the platform decide when speech has ended: `auto`.
    Auto,
    /// A fixed number of seconds of silence.
    Seconds(u32),
}

impl From<u32> for SpeechTimeout {
    fn from(seconds: u32) -> Self {
        SpeechTimeout::Seconds(seconds)
    }
}

impl SpeechTimeout {
    fn to_attr(self) -> String {
        match self {
            SpeechTimeout::Auto => "auto".to_owned(),
            SpeechTimeout::Seconds(s) => s.to_string(),
        }
    }
}

/// The text of a [`Task`]: the task's JSON attributes.
///
/// Built from a `&str`/`String` (written exactly as given) or from a
/// [`serde_json::Value`] (written as `serde_json` writes it compactly, i.e.
/// `value.to_string()`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TaskBody(String);

impl TaskBody {
    /// The body text, before escaping.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for TaskBody {
    fn from(text: &str) -> Self {
        TaskBody(text.to_owned())
    }
}

impl From<String> for TaskBody {
    fn from(text: String) -> Self {
        TaskBody(text)
    }
}

impl From<&serde_json::Value> for TaskBody {
    fn from(json: &serde_json::Value) -> Self {
        TaskBody(json.to_string())
    }
}

impl From<serde_json::Value> for TaskBody {
    fn from(json: serde_json::Value) -> Self {
        TaskBody::from(&json)
    }
}

// ---------------------------------------------------------------------------
// Attributes, escaping and writing
// ---------------------------------------------------------------------------

/// Attributes in the order they were first set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Attrs(Vec<(&'static str, String)>);

impl Attrs {
    /// Sets `name`, replacing an earlier value in place (keeping its
    /// position) or appending a new attribute.
    fn set(&mut self, name: &'static str, value: String) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((name, value)),
        }
    }

    fn write(&self, out: &mut String) {
        for (name, value) in &self.0 {
            out.push(' ');
            out.push_str(name);
            out.push_str("=\"");
            escape_attr(value, out);
            out.push('"');
        }
    }
}

/// Something that writes itself as one XML element.
trait WriteXml {
    fn write_xml(&self, out: &mut String);
}

/// Writes `<name attrs>text children</name>`, or `<name attrs/>` when there
/// is neither text nor a child.
fn write_element<C: WriteXml>(
    out: &mut String,
    name: &str,
    attrs: &Attrs,
    text: &str,
    children: &[C],
) {
    out.push('<');
    out.push_str(name);
    attrs.write(out);
    if text.is_empty() && children.is_empty() {
        out.push_str("/>");
        return;
    }
    out.push('>');
    escape_text(text, out);
    for child in children {
        child.write_xml(out);
    }
    out.push_str("</");
    out.push_str(name);
    out.push('>');
}

/// An element kind with no children (used as the child type of leaves).
#[derive(Debug)]
enum NoChild {}

impl WriteXml for NoChild {
    fn write_xml(&self, _out: &mut String) {
        match *self {}
    }
}

/// Writes an element that only has attributes and text.
fn write_leaf(out: &mut String, name: &str, attrs: &Attrs, text: &str) {
    write_element::<NoChild>(out, name, attrs, text, &[]);
}

/// Pushes `$variant($value)` onto `$vec` and returns `&mut` to the value.
macro_rules! push_get {
    ($vec:expr, $variant:path, $value:expr) => {{
        let vec = &mut $vec;
        vec.push($variant($value));
        match vec.last_mut() {
            Some($variant(pushed)) => pushed,
            _ => unreachable!("the element just pushed is last"),
        }
    }};
}

/// Generates chained attribute setters on a struct with an `attrs` field.
///
/// Kinds: `text` (`impl Into<String>`), `u32`, `bool`, or a typed value
/// with `as_str()` ([`Method`], [`GatherInput`], ...).
macro_rules! attr_setters {
    ($( $(#[$doc:meta])* $fn:ident($name:literal): $kind:ident; )*) => {
        $( attr_setters!(@one $(#[$doc])* $fn $name $kind); )*
    };
    (@one $(#[$doc:meta])* $fn:ident $name:literal text) => {
        $(#[$doc])*
        pub fn $fn(&mut self, value: impl Into<String>) -> &mut Self {
            self.attrs.set($name, value.into());
            self
        }
    };
    (@one $(#[$doc:meta])* $fn:ident $name:literal u32) => {
        $(#[$doc])*
        pub fn $fn(&mut self, value: u32) -> &mut Self {
            self.attrs.set($name, value.to_string());
            self
        }
    };
    (@one $(#[$doc:meta])* $fn:ident $name:literal bool) => {
        $(#[$doc])*
        pub fn $fn(&mut self, value: bool) -> &mut Self {
            self.attrs.set($name, if value { "true" } else { "false" }.to_owned());
            self
        }
    };
    (@one $(#[$doc:meta])* $fn:ident $name:literal $ty:ident) => {
        $(#[$doc])*
        pub fn $fn(&mut self, value: $ty) -> &mut Self {
            self.attrs.set($name, value.as_str().to_owned());
            self
        }
    };
}

// ---------------------------------------------------------------------------
// The response
// ---------------------------------------------------------------------------

/// A voice response: the `<Response>` document a voice webhook returns.
///
/// Verbs are appended in call order. See the [module docs](self) for an
/// example.
#[derive(Debug, Clone, Default)]
pub struct VoiceResponse {
    verbs: Vec<Verb>,
    /// The document as first built, when [`VoiceResponse::mark_built`]
    /// was called.
    built: Option<Built>,
}

/// The document as first built: verbs are only ever appended, so it is
/// the first `verbs` verbs, written only when someone asks for it (with
/// logging off, nobody does).
#[derive(Debug, Clone)]
struct Built {
    verbs: usize,
    xml: std::sync::OnceLock<String>,
}

/// Two responses are equal when they write the same document; a
/// [`VoiceResponse::mark_built`] snapshot does not count.
impl PartialEq for VoiceResponse {
    fn eq(&self, other: &Self) -> bool {
        self.verbs == other.verbs
    }
}

impl Eq for VoiceResponse {}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Verb {
    Say(Say),
    Play(Play),
    Pause(Pause),
    Gather(Gather),
    Record(Record),
    Enqueue(Enqueue),
    Dial(Dial),
    Redirect(Redirect),
    Reject(Reject),
    Hangup,
    Leave,
}

impl WriteXml for Verb {
    fn write_xml(&self, out: &mut String) {
        match self {
            Verb::Say(v) => v.write_xml(out),
            Verb::Play(v) => v.write_xml(out),
            Verb::Pause(v) => v.write_xml(out),
            Verb::Gather(v) => v.write_xml(out),
            Verb::Record(v) => v.write_xml(out),
            Verb::Enqueue(v) => v.write_xml(out),
            Verb::Dial(v) => v.write_xml(out),
            Verb::Redirect(v) => v.write_xml(out),
            Verb::Reject(v) => v.write_xml(out),
            Verb::Hangup => out.push_str("<Hangup/>"),
            Verb::Leave => out.push_str("<Leave/>"),
        }
    }
}

impl VoiceResponse {
    /// An empty response (`<Response/>`).
    pub fn new() -> Self {
        Self::default()
    }

    /// A response built by `f`, in one expression.
    ///
    /// ```
    /// use ccfn_core::voice::VoiceResponse;
    ///
    /// let twiml = VoiceResponse::build(|twiml| {
    ///     twiml.say("Please hold.");
    /// });
    /// assert_eq!(
    ///     twiml.to_xml(),
    ///     r#"<?xml version="1.0" encoding="UTF-8"?><Response><Say>Please hold.</Say></Response>"#
    /// );
    /// ```
    pub fn build(f: impl FnOnce(&mut VoiceResponse)) -> Self {
        let mut response = VoiceResponse::new();
        f(&mut response);
        response
    }

    /// Whether no verb has been added yet.
    pub fn is_empty(&self) -> bool {
        self.verbs.is_empty()
    }

    /// Remembers the document as it is now, as first built: a voice
    /// function's `voice_response` records then show it before and after
    /// the changes made since.
    ///
    /// ```
    /// use ccfn_core::voice::VoiceResponse;
    ///
    /// let mut twiml = VoiceResponse::new();
    /// twiml.say("Please hold.");
    /// twiml.mark_built();
    /// twiml.hangup();
    /// assert_eq!(
    ///     twiml.built().unwrap(),
    ///     r#"<?xml version="1.0" encoding="UTF-8"?><Response><Say>Please hold.</Say></Response>"#
    /// );
    /// ```
    pub fn mark_built(&mut self) -> &mut Self {
        self.built = Some(Built {
            verbs: self.verbs.len(),
            xml: std::sync::OnceLock::new(),
        });
        self
    }

    /// The document remembered by [`VoiceResponse::mark_built`].
    pub fn built(&self) -> Option<&str> {
        let built = self.built.as_ref()?;
        Some(
            built
                .xml
                .get_or_init(|| write_document(&self.verbs[..built.verbs])),
        )
    }

    /// Whether the document was marked as built and has not changed since.
    pub(crate) fn unchanged_since_built(&self) -> bool {
        self.built
            .as_ref()
            .is_some_and(|built| built.verbs == self.verbs.len())
    }

    /// The workflow and queue name of the first `<Enqueue>`, if any:
    /// `(workflowSid, queue name)`, each `None` when not set.
    pub fn enqueued(&self) -> Option<(Option<&str>, Option<&str>)> {
        self.verbs.iter().find_map(|verb| match verb {
            Verb::Enqueue(enqueue) => {
                let workflow =
                    enqueue.attrs.0.iter().find_map(|(name, value)| {
                        (*name == "workflowSid").then_some(value.as_str())
                    });
                let queue = Some(enqueue.name.as_str()).filter(|name| !name.is_empty());
                Some((workflow, queue))
            }
            _ => None,
        })
    }

    /// Appends `<Say>` speaking `text`.
    pub fn say(&mut self, text: impl Into<String>) -> &mut Say {
        push_get!(self.verbs, Verb::Say, Say::new(text.into()))
    }

    /// Appends `<Play>` playing the audio at `url` (an empty `url` gives an
    /// element without text, e.g. to play only [`Play::digits`]).
    pub fn play(&mut self, url: impl Into<String>) -> &mut Play {
        push_get!(self.verbs, Verb::Play, Play::new(url.into()))
    }

    /// Appends `<Pause>`.
    pub fn pause(&mut self) -> &mut Pause {
        push_get!(self.verbs, Verb::Pause, Pause::default())
    }

    /// Appends `<Gather>`; add prompts with [`Gather::say`],
    /// [`Gather::play`] and [`Gather::pause`].
    pub fn gather(&mut self) -> &mut Gather {
        push_get!(self.verbs, Verb::Gather, Gather::default())
    }

    /// Appends `<Record>`.
    pub fn record(&mut self) -> &mut Record {
        push_get!(self.verbs, Verb::Record, Record::default())
    }

    /// Appends `<Enqueue>` without a queue name (e.g. to hand the call to a
    /// workflow with [`Enqueue::workflow_sid`] and [`Enqueue::task`]).
    pub fn enqueue(&mut self) -> &mut Enqueue {
        push_get!(self.verbs, Verb::Enqueue, Enqueue::default())
    }

    /// Appends `<Enqueue>` putting the call into the queue called `name`.
    pub fn enqueue_named(&mut self, name: impl Into<String>) -> &mut Enqueue {
        let enqueue = Enqueue {
            name: name.into(),
            ..Enqueue::default()
        };
        push_get!(self.verbs, Verb::Enqueue, enqueue)
    }

    /// Appends `<Dial>` without text; add whom to call with
    /// [`Dial::number`], [`Dial::client`], [`Dial::queue`] or [`Dial::sip`].
    pub fn dial(&mut self) -> &mut Dial {
        push_get!(self.verbs, Verb::Dial, Dial::default())
    }

    /// Appends `<Dial>` calling `number`, given as the element's text.
    pub fn dial_number(&mut self, number: impl Into<String>) -> &mut Dial {
        let dial = Dial {
            number: number.into(),
            ..Dial::default()
        };
        push_get!(self.verbs, Verb::Dial, dial)
    }

    /// Appends `<Redirect>` to the markup at `url`.
    pub fn redirect(&mut self, url: impl Into<String>) -> &mut Redirect {
        push_get!(
            self.verbs,
            Verb::Redirect,
            Redirect {
                attrs: Attrs::default(),
                url: url.into(),
            }
        )
    }

    /// Appends `<Reject>`, refusing the call.
    pub fn reject(&mut self) -> &mut Reject {
        push_get!(self.verbs, Verb::Reject, Reject::default())
    }

    /// Appends `<Hangup/>`.
    pub fn hangup(&mut self) -> &mut Self {
        self.verbs.push(Verb::Hangup);
        self
    }

    /// Appends `<Leave/>`, taking the caller out of its queue.
    pub fn leave(&mut self) -> &mut Self {
        self.verbs.push(Verb::Leave);
        self
    }

    /// The XML document, byte for byte what the platform's helper libraries
    /// write: declaration, then compact XML.
    pub fn to_xml(&self) -> String {
        write_document(&self.verbs)
    }
}

/// The document of `verbs`: declaration, then compact XML.
fn write_document(verbs: &[Verb]) -> String {
    // Room for a typical menu at once: growing the buffer verb by verb
    // costs more than the memory.
    let mut out = String::with_capacity(1024.max(DECLARATION.len() + 24 + 96 * verbs.len()));
    out.push_str(DECLARATION);
    write_element(&mut out, "Response", &Attrs::default(), "", verbs);
    out
}

impl fmt::Display for VoiceResponse {
    /// Writes [`VoiceResponse::to_xml`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_xml())
    }
}

// ---------------------------------------------------------------------------
// Verbs
// ---------------------------------------------------------------------------

/// `<Say>`: text-to-speech.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Say {
    attrs: Attrs,
    text: String,
}

impl Say {
    fn new(text: String) -> Self {
        Say {
            attrs: Attrs::default(),
            text,
        }
    }

    attr_setters! {
        /// `voice`: the voice to speak with, e.g. `alice` or `Polly.Joanna`.
        voice("voice"): text;
        /// `language`: the language and locale, e.g. `en-US`.
        language("language"): text;
        /// `loop`: how many times to speak the text (0: until the call ends).
        loop_("loop"): u32;
    }
}

impl WriteXml for Say {
    fn write_xml(&self, out: &mut String) {
        write_leaf(out, "Say", &self.attrs, &self.text);
    }
}

/// `<Play>`: plays an audio file or sends digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Play {
    attrs: Attrs,
    url: String,
}

impl Play {
    fn new(url: String) -> Self {
        Play {
            attrs: Attrs::default(),
            url,
        }
    }

    attr_setters! {
        /// `loop`: how many times to play (0: until the call ends).
        loop_("loop"): u32;
        /// `digits`: DTMF digits to play (`w` waits half a second).
        digits("digits"): text;
    }
}

impl WriteXml for Play {
    fn write_xml(&self, out: &mut String) {
        write_leaf(out, "Play", &self.attrs, &self.url);
    }
}

/// `<Pause>`: silence.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pause {
    attrs: Attrs,
}

impl Pause {
    attr_setters! {
        /// `length`: seconds of silence.
        length("length"): u32;
    }
}

impl WriteXml for Pause {
    fn write_xml(&self, out: &mut String) {
        write_leaf(out, "Pause", &self.attrs, "");
    }
}

/// `<Gather>`: collects key presses or speech, optionally while prompting
/// with nested [`Say`], [`Play`] and [`Pause`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gather {
    attrs: Attrs,
    children: Vec<GatherChild>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum GatherChild {
    Say(Say),
    Play(Play),
    Pause(Pause),
}

impl WriteXml for GatherChild {
    fn write_xml(&self, out: &mut String) {
        match self {
            GatherChild::Say(v) => v.write_xml(out),
            GatherChild::Play(v) => v.write_xml(out),
            GatherChild::Pause(v) => v.write_xml(out),
        }
    }
}

impl Gather {
    attr_setters! {
        /// `input`: what to listen for.
        input("input"): GatherInput;
        /// `action`: URL the result is sent to.
        action("action"): text;
        /// `method`: HTTP method for `action`.
        method("method"): Method;
        /// `numDigits`: stop after this many digits.
        num_digits("numDigits"): u32;
        /// `timeout`: seconds to wait for input.
        timeout("timeout"): u32;
        /// `finishOnKey`: key(s) that end the input.
        finish_on_key("finishOnKey"): text;
        /// `hints`: comma-separated words or phrases to expect in speech.
        hints("hints"): text;
        /// `actionOnEmptyResult`: call `action` even when nothing was
        /// gathered.
        action_on_empty_result("actionOnEmptyResult"): bool;
        /// `language`: language of the expected speech, e.g. `en-US`.
        language("language"): text;
        /// `partialResultCallback`: URL receiving partial speech results.
        partial_result_callback("partialResultCallback"): text;
    }

    /// `speechTimeout`: seconds of silence that end speech, or
    /// [`SpeechTimeout::Auto`]; a `u32` works too.
    pub fn speech_timeout(&mut self, value: impl Into<SpeechTimeout>) -> &mut Self {
        self.attrs.set("speechTimeout", value.into().to_attr());
        self
    }

    /// Nests `<Say>` speaking `text`.
    pub fn say(&mut self, text: impl Into<String>) -> &mut Say {
        push_get!(self.children, GatherChild::Say, Say::new(text.into()))
    }

    /// Nests `<Play>` playing the audio at `url`.
    pub fn play(&mut self, url: impl Into<String>) -> &mut Play {
        push_get!(self.children, GatherChild::Play, Play::new(url.into()))
    }

    /// Nests `<Pause>`.
    pub fn pause(&mut self) -> &mut Pause {
        push_get!(self.children, GatherChild::Pause, Pause::default())
    }
}

impl WriteXml for Gather {
    fn write_xml(&self, out: &mut String) {
        write_element(out, "Gather", &self.attrs, "", &self.children);
    }
}

/// `<Record>`: records the caller.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    attrs: Attrs,
}

impl Record {
    attr_setters! {
        /// `action`: URL called when the recording ends.
        action("action"): text;
        /// `method`: HTTP method for `action`.
        method("method"): Method;
        /// `timeout`: seconds of silence that end the recording.
        timeout("timeout"): u32;
        /// `finishOnKey`: key(s) that end the recording.
        finish_on_key("finishOnKey"): text;
        /// `maxLength`: longest recording, in seconds.
        max_length("maxLength"): u32;
        /// `playBeep`: beep before recording starts.
        play_beep("playBeep"): bool;
        /// `trim`: whether silence is trimmed.
        trim("trim"): RecordTrim;
        /// `transcribe`: transcribe the recording.
        transcribe("transcribe"): bool;
        /// `transcribeCallback`: URL receiving the transcription.
        transcribe_callback("transcribeCallback"): text;
        /// `recordingStatusCallback`: URL receiving recording status.
        recording_status_callback("recordingStatusCallback"): text;
        /// `recordingStatusCallbackMethod`: HTTP method for
        /// `recordingStatusCallback`.
        recording_status_callback_method("recordingStatusCallbackMethod"): Method;
    }
}

impl WriteXml for Record {
    fn write_xml(&self, out: &mut String) {
        write_leaf(out, "Record", &self.attrs, "");
    }
}

/// `<Enqueue>`: puts the call into a queue or hands it to a workflow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Enqueue {
    attrs: Attrs,
    name: String,
    tasks: Vec<Task>,
}

impl Enqueue {
    attr_setters! {
        /// `workflowSid`: the workflow that routes the task.
        workflow_sid("workflowSid"): text;
        /// `waitUrl`: markup played while the caller waits.
        wait_url("waitUrl"): text;
        /// `waitUrlMethod`: HTTP method for `waitUrl`.
        wait_url_method("waitUrlMethod"): Method;
        /// `action`: URL called when the caller leaves the queue.
        action("action"): text;
        /// `method`: HTTP method for `action`.
        method("method"): Method;
    }

    /// Adds a `<Task>` child whose text is the task's JSON attributes: a
    /// `&str`/`String` is written as given, a [`serde_json::Value`]
    /// compactly. Each call adds one, after those before it, as the
    /// platform's helper library does.
    pub fn task(&mut self, body: impl Into<TaskBody>) -> &mut Task {
        self.tasks.push(Task {
            attrs: Attrs::default(),
            body: body.into().0,
        });
        let last = self.tasks.len() - 1;
        &mut self.tasks[last]
    }
}

impl WriteXml for Enqueue {
    fn write_xml(&self, out: &mut String) {
        write_element(out, "Enqueue", &self.attrs, &self.name, &self.tasks);
    }
}

/// `<Task>` inside [`Enqueue`]: the task created for the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    attrs: Attrs,
    body: String,
}

impl Task {
    attr_setters! {
        /// `priority`: the task's priority.
        priority("priority"): u32;
        /// `timeout`: seconds before the task is cancelled.
        timeout("timeout"): u32;
    }
}

impl WriteXml for Task {
    fn write_xml(&self, out: &mut String) {
        write_leaf(out, "Task", &self.attrs, &self.body);
    }
}

/// `<Dial>`: connects the caller to another party.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dial {
    attrs: Attrs,
    number: String,
    children: Vec<DialNoun>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum DialNoun {
    Number(Number),
    Client(Client),
    Queue(Queue),
    Sip(Sip),
}

impl WriteXml for DialNoun {
    fn write_xml(&self, out: &mut String) {
        match self {
            DialNoun::Number(v) => write_leaf(out, "Number", &v.attrs, &v.number),
            DialNoun::Client(v) => write_leaf(out, "Client", &v.attrs, &v.identity),
            DialNoun::Queue(v) => write_leaf(out, "Queue", &v.attrs, &v.name),
            DialNoun::Sip(v) => write_leaf(out, "Sip", &v.attrs, &v.uri),
        }
    }
}

impl Dial {
    attr_setters! {
        /// `callerId`: the caller ID shown to the called party.
        caller_id("callerId"): text;
        /// `timeout`: seconds to let the call ring.
        timeout("timeout"): u32;
        /// `action`: URL called when the dialed call ends.
        action("action"): text;
        /// `method`: HTTP method for `action`.
        method("method"): Method;
        /// `record`: whether and how the call is recorded.
        record("record"): DialRecord;
        /// `timeLimit`: longest call, in seconds.
        time_limit("timeLimit"): u32;
        /// `hangupOnStar`: let the caller hang up the called party with `*`.
        hangup_on_star("hangupOnStar"): bool;
        /// `answerOnBridge`: keep the caller ringing until the called party
        /// answers.
        answer_on_bridge("answerOnBridge"): bool;
    }

    /// Nests `<Number>` calling the phone number `number`.
    pub fn number(&mut self, number: impl Into<String>) -> &mut Number {
        let noun = Number {
            attrs: Attrs::default(),
            number: number.into(),
        };
        push_get!(self.children, DialNoun::Number, noun)
    }

    /// Nests `<Client>` calling the client `identity`.
    pub fn client(&mut self, identity: impl Into<String>) -> &mut Client {
        let noun = Client {
            attrs: Attrs::default(),
            identity: identity.into(),
        };
        push_get!(self.children, DialNoun::Client, noun)
    }

    /// Nests `<Queue>` connecting to the first caller in the queue `name`.
    pub fn queue(&mut self, name: impl Into<String>) -> &mut Queue {
        let noun = Queue {
            attrs: Attrs::default(),
            name: name.into(),
        };
        push_get!(self.children, DialNoun::Queue, noun)
    }

    /// Nests `<Sip>` calling the SIP URI `uri`.
    pub fn sip(&mut self, uri: impl Into<String>) -> &mut Sip {
        let noun = Sip {
            attrs: Attrs::default(),
            uri: uri.into(),
        };
        push_get!(self.children, DialNoun::Sip, noun)
    }
}

impl WriteXml for Dial {
    fn write_xml(&self, out: &mut String) {
        write_element(out, "Dial", &self.attrs, &self.number, &self.children);
    }
}

/// `<Number>` inside [`Dial`]: a phone number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Number {
    attrs: Attrs,
    number: String,
}

impl Number {
    attr_setters! {
        /// `sendDigits`: digits to send once the call is answered.
        send_digits("sendDigits"): text;
        /// `url`: markup run for the called party before connecting.
        url("url"): text;
        /// `method`: HTTP method for `url`.
        method("method"): Method;
        /// `statusCallback`: URL receiving call progress events.
        status_callback("statusCallback"): text;
        /// `statusCallbackEvent`: space-separated events to report.
        status_callback_event("statusCallbackEvent"): text;
        /// `statusCallbackMethod`: HTTP method for `statusCallback`.
        status_callback_method("statusCallbackMethod"): Method;
    }
}

/// `<Client>` inside [`Dial`]: a client application identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    attrs: Attrs,
    identity: String,
}

impl Client {
    attr_setters! {
        /// `url`: markup run for the called party before connecting.
        url("url"): text;
        /// `method`: HTTP method for `url`.
        method("method"): Method;
        /// `statusCallback`: URL receiving call progress events.
        status_callback("statusCallback"): text;
        /// `statusCallbackEvent`: space-separated events to report.
        status_callback_event("statusCallbackEvent"): text;
        /// `statusCallbackMethod`: HTTP method for `statusCallback`.
        status_callback_method("statusCallbackMethod"): Method;
    }
}

/// `<Queue>` inside [`Dial`]: a queue whose first caller is connected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queue {
    attrs: Attrs,
    name: String,
}

impl Queue {
    attr_setters! {
        /// `url`: markup run for the dequeued caller before connecting.
        url("url"): text;
        /// `method`: HTTP method for `url`.
        method("method"): Method;
        /// `reservationSid`: the task reservation being accepted.
        reservation_sid("reservationSid"): text;
        /// `postWorkActivitySid`: the worker's activity after the call.
        post_work_activity_sid("postWorkActivitySid"): text;
    }
}

/// `<Sip>` inside [`Dial`]: a SIP endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sip {
    attrs: Attrs,
    uri: String,
}

impl Sip {
    attr_setters! {
        /// `username`: SIP authentication user name.
        username("username"): text;
        /// `password`: SIP authentication password.
        password("password"): text;
        /// `url`: markup run for the called party before connecting.
        url("url"): text;
        /// `method`: HTTP method for `url`.
        method("method"): Method;
        /// `statusCallback`: URL receiving call progress events.
        status_callback("statusCallback"): text;
        /// `statusCallbackEvent`: space-separated events to report.
        status_callback_event("statusCallbackEvent"): text;
        /// `statusCallbackMethod`: HTTP method for `statusCallback`.
        status_callback_method("statusCallbackMethod"): Method;
    }
}

/// `<Redirect>`: continues with the markup at another URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    attrs: Attrs,
    url: String,
}

impl Redirect {
    attr_setters! {
        /// `method`: HTTP method for the URL.
        method("method"): Method;
    }
}

impl WriteXml for Redirect {
    fn write_xml(&self, out: &mut String) {
        write_leaf(out, "Redirect", &self.attrs, &self.url);
    }
}

/// `<Reject>`: refuses the call without answering it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reject {
    attrs: Attrs,
}

impl Reject {
    attr_setters! {
        /// `reason`: what the caller hears.
        reason("reason"): RejectReason;
    }
}

impl WriteXml for Reject {
    fn write_xml(&self, out: &mut String) {
        write_leaf(out, "Reject", &self.attrs, "");
    }
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    const DECL: &str = r#"<?xml version="1.0" encoding="UTF-8"?>"#;

    fn doc(body: &str) -> String {
        format!("{DECL}<Response>{body}</Response>")
    }

    #[test]
    fn empty_response() {
        let twiml = VoiceResponse::new();
        assert!(twiml.is_empty());
        assert_eq!(twiml.to_xml(), format!("{DECL}<Response/>"));
        assert_eq!(twiml.to_string(), twiml.to_xml());
        assert_eq!(twiml, VoiceResponse::default());
    }

    #[test]
    fn text_escaping_exact() {
        let mut twiml = VoiceResponse::new();
        twiml.say(r#"a & b < c > d "e" 'f'"#);
        assert_eq!(
            twiml.to_xml(),
            doc(r#"<Say>a &amp; b &lt; c &gt; d "e" 'f'</Say>"#)
        );
    }

    #[test]
    fn attribute_escaping_exact() {
        let mut twiml = VoiceResponse::new();
        twiml.redirect("/next").method(Method::Get);
        twiml.say("x").voice(r#"a & b < c > d "e" 'f'"#);
        assert_eq!(
            twiml.to_xml(),
            doc(concat!(
                r#"<Redirect method="GET">/next</Redirect>"#,
                r#"<Say voice="a &amp; b &lt; c > d &quot;e&quot; 'f'">x</Say>"#,
            ))
        );
    }

    #[test]
    fn whitespace_and_invalid_characters() {
        let mut twiml = VoiceResponse::new();
        twiml
            .say("l1\r\nl2\tend\u{0}\u{1b}\u{FFFF}")
            .language("a\tb\nc\rd");
        assert_eq!(
            twiml.to_xml(),
            doc("<Say language=\"a&#x9;b&#xA;c&#xD;d\">l1&#xD;\nl2\tend\u{FFFD}\u{FFFD}\u{FFFD}</Say>")
        );
    }

    #[test]
    fn characters_next_to_the_invalid_ones_are_kept() {
        let kept = "\u{7f}\u{FFFD}\u{FFBF}\u{EFFF}\u{E000}\u{10FFFF}é";
        let mut twiml = VoiceResponse::new();
        twiml.say(format!("{kept}\u{FFFE}")).voice(kept);
        assert_eq!(
            twiml.to_xml(),
            doc(&format!("<Say voice=\"{kept}\">{kept}\u{FFFD}</Say>"))
        );
    }

    #[test]
    fn non_ascii_text_is_kept() {
        let mut twiml = VoiceResponse::new();
        twiml.say("Grüß dich & 日本 🚀").language("de-DE");
        assert_eq!(
            twiml.to_xml(),
            doc(r#"<Say language="de-DE">Grüß dich &amp; 日本 🚀</Say>"#)
        );
    }

    #[test]
    fn nested_gather() {
        let mut twiml = VoiceResponse::new();
        let gather = twiml.gather();
        gather
            .input(GatherInput::Speech)
            .speech_timeout(SpeechTimeout::Auto)
            .hints("sales, support")
            .action_on_empty_result(true);
        gather.say("Say sales or support.").loop_(2);
        gather.pause().length(1);
        gather.play("https://example.com/beep.mp3");
        twiml.say("Goodbye");
        assert_eq!(
            twiml.to_xml(),
            doc(concat!(
                r#"<Gather input="speech" speechTimeout="auto" hints="sales, support" actionOnEmptyResult="true">"#,
                r#"<Say loop="2">Say sales or support.</Say>"#,
                r#"<Pause length="1"/>"#,
                r#"<Play>https://example.com/beep.mp3</Play>"#,
                r#"</Gather>"#,
                r#"<Say>Goodbye</Say>"#,
            ))
        );
    }

    #[test]
    fn empty_gather_and_empty_text_are_self_closing() {
        let mut twiml = VoiceResponse::new();
        twiml.gather().timeout(3).speech_timeout(4);
        twiml.play("").digits("ww1");
        assert_eq!(
            twiml.to_xml(),
            doc(r#"<Gather timeout="3" speechTimeout="4"/><Play digits="ww1"/>"#)
        );
    }

    #[test]
    fn enqueue_task_json_value_is_escaped_as_text() {
        let mut twiml = VoiceResponse::new();
        let json = serde_json::json!({ "note": "a \"b\" & <c>" });
        twiml
            .enqueue()
            .workflow_sid("WW123")
            .task(&json)
            .priority(5)
            .timeout(30);
        assert_eq!(
            twiml.to_xml(),
            doc(concat!(
                r#"<Enqueue workflowSid="WW123">"#,
                r#"<Task priority="5" timeout="30">{"note":"a \"b\" &amp; &lt;c&gt;"}</Task>"#,
                r#"</Enqueue>"#,
            ))
        );
    }

    #[test]
    fn enqueue_tasks_are_written_as_given_in_call_order() {
        let mut twiml = VoiceResponse::new();
        let enqueue = twiml.enqueue_named("support");
        enqueue
            .wait_url("/hold?music=1&x=2")
            .wait_url_method(Method::Get);
        enqueue.task("first").priority(9);
        enqueue.task(String::from(r#"{"skill": "billing"}"#));
        assert_eq!(
            twiml.to_xml(),
            doc(concat!(
                r#"<Enqueue waitUrl="/hold?music=1&amp;x=2" waitUrlMethod="GET">support"#,
                r#"<Task priority="9">first</Task><Task>{"skill": "billing"}</Task></Enqueue>"#,
            ))
        );
    }

    #[test]
    fn task_body_conversions() {
        let value = serde_json::json!({ "a": [1, true, null] });
        assert_eq!(TaskBody::from(&value).as_str(), r#"{"a":[1,true,null]}"#);
        assert_eq!(TaskBody::from(value).as_str(), r#"{"a":[1,true,null]}"#);
        assert_eq!(TaskBody::from("{ }").as_str(), "{ }");
    }

    #[test]
    fn attribute_replacement_keeps_position() {
        let mut twiml = VoiceResponse::new();
        twiml
            .say("hi")
            .voice("man")
            .language("en-US")
            .loop_(1)
            .voice("alice")
            .loop_(3);
        assert_eq!(
            twiml.to_xml(),
            doc(r#"<Say voice="alice" language="en-US" loop="3">hi</Say>"#)
        );
    }

    #[test]
    fn typed_enums() {
        assert_eq!(Method::Get.as_str(), "GET");
        assert_eq!(Method::Post.as_str(), "POST");
        assert_eq!(GatherInput::Dtmf.as_str(), "dtmf");
        assert_eq!(GatherInput::Speech.as_str(), "speech");
        assert_eq!(GatherInput::DtmfSpeech.as_str(), "dtmf speech");
        assert_eq!(RejectReason::Rejected.as_str(), "rejected");
        assert_eq!(RejectReason::Busy.as_str(), "busy");
        assert_eq!(RecordTrim::TrimSilence.as_str(), "trim-silence");
        assert_eq!(RecordTrim::DoNotTrim.as_str(), "do-not-trim");
        assert_eq!(
            DialRecord::RecordFromAnswerDual.as_str(),
            "record-from-answer-dual"
        );
        assert_eq!(SpeechTimeout::from(7), SpeechTimeout::Seconds(7));

        let mut twiml = VoiceResponse::new();
        twiml.reject().reason(RejectReason::Busy);
        twiml
            .record()
            .trim(RecordTrim::DoNotTrim)
            .play_beep(false)
            .method(Method::Post);
        twiml
            .dial()
            .record(DialRecord::RecordFromRinging)
            .hangup_on_star(false);
        assert_eq!(
            twiml.to_xml(),
            doc(concat!(
                r#"<Reject reason="busy"/>"#,
                r#"<Record trim="do-not-trim" playBeep="false" method="POST"/>"#,
                r#"<Dial record="record-from-ringing" hangupOnStar="false"/>"#,
            ))
        );
    }

    #[test]
    fn dial_nouns_and_text() {
        let mut twiml = VoiceResponse::new();
        twiml
            .dial_number("+15551230000")
            .caller_id("+15550001111")
            .time_limit(600);
        let dial = twiml.dial();
        dial.action("/after-dial").method(Method::Post);
        dial.number("+15551234567")
            .send_digits("ww12")
            .status_callback_event("initiated answered");
        dial.client("agent_42").url("/whisper");
        dial.queue("support").reservation_sid("WR1");
        dial.sip("sip:bob@example.com;transport=tls")
            .username("bob")
            .password("p\"w&");
        twiml.leave().hangup();
        assert_eq!(
            twiml.to_xml(),
            doc(concat!(
                r#"<Dial callerId="+15550001111" timeLimit="600">+15551230000</Dial>"#,
                r#"<Dial action="/after-dial" method="POST">"#,
                r#"<Number sendDigits="ww12" statusCallbackEvent="initiated answered">+15551234567</Number>"#,
                r#"<Client url="/whisper">agent_42</Client>"#,
                r#"<Queue reservationSid="WR1">support</Queue>"#,
                r#"<Sip username="bob" password="p&quot;w&amp;">sip:bob@example.com;transport=tls</Sip>"#,
                r#"</Dial><Leave/><Hangup/>"#,
            ))
        );
    }

    #[test]
    fn clone_and_equality() {
        let mut a = VoiceResponse::new();
        a.say("hi").voice("alice");
        let mut b = a.clone();
        assert_eq!(a, b);
        b.hangup();
        assert_ne!(a, b);
        assert!(!a.is_empty());
    }
}

#[cfg(test)]
mod properties {
    //! Whatever the text and attribute values, the document is well-formed
    //! XML 1.0, and an XML parser reads back every text and attribute value
    //! exactly as given, except that each character XML 1.0 cannot hold
    //! (controls other than tab, line feed and carriage return; U+FFFE and
    //! U+FFFF) reads back as U+FFFD. Tab, line feed and carriage return
    //! survive everywhere: in attributes all three are written as character
    //! references, which attribute-value normalisation leaves alone; in text
    //! a carriage return is written as a reference, which end-of-line
    //! normalisation leaves alone.

    use proptest::prelude::*;
    use quick_xml::escape::resolve_predefined_entity;
    use quick_xml::events::{BytesStart, Event};
    use quick_xml::{Reader, XmlVersion};

    use super::*;

    /// An element as an XML parser reads it back: name, attributes in
    /// order, the text directly inside it (references resolved, line ends
    /// normalised) and its child elements.
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Element {
        name: String,
        attrs: Vec<(String, String)>,
        text: String,
        children: Vec<Element>,
    }

    impl Element {
        fn new(name: &str, attrs: &[(&str, &str)], text: &str, children: Vec<Element>) -> Self {
            Element {
                name: name.to_owned(),
                attrs: attrs
                    .iter()
                    .map(|(name, value)| ((*name).to_owned(), xml_text(value)))
                    .collect(),
                text: xml_text(text),
                children,
            }
        }
    }

    /// XML 1.0's `Char` production.
    fn is_xml_char(c: char) -> bool {
        matches!(c, '\t' | '\n' | '\r' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
    }

    /// `text` as it reads back: characters XML 1.0 cannot hold become
    /// U+FFFD.
    fn xml_text(text: &str) -> String {
        text.chars()
            .map(|c| if is_xml_char(c) { c } else { '\u{FFFD}' })
            .collect()
    }

    /// Parses a whole document with quick-xml, reading every event to the
    /// end, and checks what quick-xml does not: that every character,
    /// written or referenced, is an XML 1.0 `Char`, that `]]>` does not
    /// occur in text, that the declaration comes first and that there is
    /// exactly one root element.
    fn parse(xml: &str) -> Result<Element, String> {
        if let Some(c) = xml.chars().find(|c| !is_xml_char(*c)) {
            return Err(format!("{c:?} is not allowed in XML 1.0"));
        }
        let mut reader = Reader::from_str(xml);
        let mut open: Vec<Element> = Vec::new();
        let mut root = None;
        let mut declared = false;
        loop {
            let event = reader
                .read_event()
                .map_err(|e| format!("at byte {}: {e}", reader.error_position()))?;
            match event {
                Event::Decl(decl) if !declared && open.is_empty() && root.is_none() => {
                    let version = decl.version().map_err(|e| e.to_string())?;
                    if version != "1.0" {
                        return Err(format!("version {version}"));
                    }
                    declared = true;
                }
                Event::Start(start) => open.push(element(&start)?),
                Event::Empty(start) => close(&mut open, &mut root, element(&start)?)?,
                Event::End(_) => {
                    // quick-xml checks that the name matches.
                    let element = open.pop().ok_or("an end tag without a start tag")?;
                    close(&mut open, &mut root, element)?;
                }
                // `]]>` may not occur in text (quick-xml does not check).
                Event::Text(text) if text.contains("]]>") => {
                    return Err("`]]>` in text".to_owned());
                }
                Event::Text(text) => open
                    .last_mut()
                    .ok_or("text outside the root element")?
                    .text
                    .push_str(&text.xml10_content()),
                Event::GeneralRef(reference) => {
                    let resolved = match reference.resolve_char_ref().map_err(|e| e.to_string())? {
                        Some(c) if is_xml_char(c) => c.to_string(),
                        Some(c) => return Err(format!("a reference to {c:?}")),
                        None => resolve_predefined_entity(&reference)
                            .ok_or_else(|| format!("an unknown entity `{}`", &*reference))?
                            .to_owned(),
                    };
                    open.last_mut()
                        .ok_or("a reference outside the root element")?
                        .text
                        .push_str(&resolved);
                }
                Event::Eof => break,
                other => return Err(format!("unexpected {other:?}")),
            }
        }
        if !declared {
            return Err("no XML declaration".to_owned());
        }
        if !open.is_empty() {
            return Err("unclosed elements".to_owned());
        }
        root.ok_or_else(|| "no root element".to_owned())
    }

    fn element(start: &BytesStart<'_>) -> Result<Element, String> {
        let mut attrs = Vec::new();
        // Duplicate attributes are errors too.
        for attr in start.attributes() {
            let attr = attr.map_err(|e| e.to_string())?;
            let value = attr
                .normalized_value(XmlVersion::Explicit1_0)
                .map_err(|e| e.to_string())?;
            if let Some(c) = value.chars().find(|c| !is_xml_char(*c)) {
                return Err(format!("a reference to {c:?}"));
            }
            let name = attr.key.as_ref().to_owned();
            attrs.push((name, value.into_owned()));
        }
        let name = start.name().as_ref().to_owned();
        Ok(Element {
            name,
            attrs,
            text: String::new(),
            children: Vec::new(),
        })
    }

    /// Attaches a finished element to its parent, or makes it the root.
    fn close(
        open: &mut [Element],
        root: &mut Option<Element>,
        element: Element,
    ) -> Result<(), String> {
        match open.last_mut() {
            Some(parent) => parent.children.push(element),
            None if root.is_none() => *root = Some(element),
            None => return Err("a second root element".to_owned()),
        }
        Ok(())
    }

    /// Characters that XML escaping, line-end and attribute normalisation,
    /// or XML 1.0's character range treat specially.
    const SPECIAL: &str =
        "\0\u{1}\u{8}\u{b}\u{c}\u{1b}\u{1f}\t\n\r &<>\"';#]\u{7f}\u{85}\u{a0}\u{2028}\
        \u{D7FF}\u{E000}\u{FEFF}\u{FFFD}\u{FFFE}\u{FFFF}\u{10000}😀\u{10FFFF}é日";

    /// Longer pieces with a meaning in XML.
    const PIECES: &[&str] = &[
        "\r\n", "]]>", "<![CDATA", "[", "<!--", "-->", "?>", "&amp;", "&#xD;", "&#0;", "&lt",
    ];

    /// Text of up to a few dozen pieces: arbitrary Unicode biased towards
    /// [`SPECIAL`] and [`PIECES`], or arbitrary bytes read lossily.
    fn text() -> impl Strategy<Value = String> {
        let special = SPECIAL.chars().map(String::from).collect::<Vec<_>>();
        prop_oneof![
            4 => prop::collection::vec(
                prop_oneof![
                    3 => prop::sample::select(special),
                    1 => prop::sample::select(PIECES).prop_map(str::to_owned),
                    2 => prop::char::range(' ', '~').prop_map(String::from),
                    1 => any::<char>().prop_map(String::from),
                ],
                0..24,
            )
            .prop_map(|pieces| pieces.concat()),
            1 => prop::collection::vec(any::<u8>(), 0..48)
                .prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
        ]
    }

    /// One verb, with the text and attribute values it is built with.
    #[derive(Debug, Clone)]
    enum Spec {
        Say(String, String, String),
        Gather(String, String, String),
        Redirect(String),
        Record(String, String),
        Dial(String, String, String, String),
        Enqueue(String, String, String),
    }

    fn spec() -> impl Strategy<Value = Spec> {
        prop_oneof![
            (text(), text(), text()).prop_map(|(a, b, c)| Spec::Say(a, b, c)),
            (text(), text(), text()).prop_map(|(a, b, c)| Spec::Gather(a, b, c)),
            text().prop_map(Spec::Redirect),
            (text(), text()).prop_map(|(a, b)| Spec::Record(a, b)),
            (text(), text(), text(), text()).prop_map(|(a, b, c, d)| Spec::Dial(a, b, c, d)),
            (text(), text(), text()).prop_map(|(a, b, c)| Spec::Enqueue(a, b, c)),
        ]
    }

    /// Adds the verb `spec` describes, returning the element it should read
    /// back as.
    fn add(twiml: &mut VoiceResponse, spec: &Spec) -> Element {
        match spec {
            Spec::Say(text, voice, language) => {
                twiml.say(text).voice(voice).language(language);
                Element::new(
                    "Say",
                    &[("voice", voice), ("language", language)],
                    text,
                    vec![],
                )
            }
            Spec::Gather(action, finish_on_key, prompt) => {
                twiml
                    .gather()
                    .action(action)
                    .finish_on_key(finish_on_key)
                    .say(prompt);
                Element::new(
                    "Gather",
                    &[("action", action), ("finishOnKey", finish_on_key)],
                    "",
                    vec![Element::new("Say", &[], prompt, vec![])],
                )
            }
            Spec::Redirect(url) => {
                twiml.redirect(url).method(Method::Post);
                Element::new("Redirect", &[("method", "POST")], url, vec![])
            }
            Spec::Record(action, finish_on_key) => {
                twiml.record().action(action).finish_on_key(finish_on_key);
                Element::new(
                    "Record",
                    &[("action", action), ("finishOnKey", finish_on_key)],
                    "",
                    vec![],
                )
            }
            Spec::Dial(number, caller_id, other, digits) => {
                twiml
                    .dial_number(number)
                    .caller_id(caller_id)
                    .number(other)
                    .send_digits(digits);
                Element::new(
                    "Dial",
                    &[("callerId", caller_id)],
                    number,
                    vec![Element::new(
                        "Number",
                        &[("sendDigits", digits)],
                        other,
                        vec![],
                    )],
                )
            }
            Spec::Enqueue(name, wait_url, task) => {
                twiml
                    .enqueue_named(name)
                    .wait_url(wait_url)
                    .task(task.as_str());
                Element::new(
                    "Enqueue",
                    &[("waitUrl", wait_url)],
                    name,
                    vec![Element::new("Task", &[], task, vec![])],
                )
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any verbs with any text and attribute values: a well-formed
        /// document that reads back as the verbs built, every value as
        /// given except for U+FFFD in place of what XML 1.0 cannot hold.
        #[test]
        fn any_text_and_attributes_read_back(specs in prop::collection::vec(spec(), 0..6)) {
            let mut twiml = VoiceResponse::new();
            let verbs = specs.iter().map(|spec| add(&mut twiml, spec)).collect();
            let xml = twiml.to_xml();
            prop_assert_eq!(parse(&xml), Ok(Element::new("Response", &[], "", verbs)), "{}", xml);
        }
    }

    /// Line breaks and tabs, as written and as read back.
    #[test]
    fn line_breaks_and_tabs_survive() {
        let mut twiml = VoiceResponse::new();
        twiml.say("a\r\nb\rc\td").voice("e\r\nf\rg\th\ni");
        let xml = twiml.to_xml();
        assert!(xml.contains(r#"<Say voice="e&#xD;&#xA;f&#xD;g&#x9;h&#xA;i">a&#xD;"#));
        assert!(xml.contains("a&#xD;\nb&#xD;c\td</Say>"));
        assert_eq!(
            parse(&xml),
            Ok(Element::new(
                "Response",
                &[],
                "",
                vec![Element::new(
                    "Say",
                    &[("voice", "e\r\nf\rg\th\ni")],
                    "a\r\nb\rc\td",
                    vec![]
                )]
            ))
        );
        // Written as they are, they would not survive: a parser reads
        // line breaks and tabs in an attribute as spaces, and a carriage
        // return in text as a line feed.
        assert_eq!(
            parse("<?xml version=\"1.0\"?><Say voice=\"e\r\nf\tg\">a\r\nb\rc</Say>"),
            Ok(Element::new(
                "Say",
                &[("voice", "e f g")],
                "a\nb\nc",
                vec![]
            ))
        );
    }

    /// The checker itself finds what is not well-formed.
    #[test]
    fn the_checker_rejects_what_is_not_well_formed() {
        let decl = r#"<?xml version="1.0" encoding="UTF-8"?>"#;
        for body in [
            "<Say>\u{1}</Say>",
            "<Say>&#x1;</Say>",
            "<Say a=\"&#xFFFE;\"/>",
            "<Say>\u{FFFF}</Say>",
            "<Say>a & b</Say>",
            "<Say>a &nbsp; b</Say>",
            "<Say>a < b</Say>",
            "<Say>a]]>b</Say>",
            "<Say a=\"x\" a=\"y\"/>",
            "<Say a=\"x\"\"/>",
            "<Say></Play>",
            "<Say>",
            "<Say/><Say/>",
            "",
        ] {
            assert!(parse(&format!("{decl}{body}")).is_err(), "{body:?}");
        }
        assert!(parse("<Say/>").is_err(), "no declaration");
    }
}
