//! Voice markup ("TwiML") builder: the instructions a voice webhook answers
//! with.
//!
//! A [`VoiceResponse`] is a list of verbs. Every verb, noun and attribute
//! of the platform's voice markup has a builder here, with the names the
//! platform's helper libraries use (in snake case): a verb or noun is added
//! by a method of its parent, which returns it as `&mut` for chained
//! attribute setters and for its own children. Nesting is enforced by the
//! types: a [`Gather`] has [`Gather::say`], a [`Say`] has no `dial`.
//!
//! - Attributes are written in the order their setters were first called;
//!   calling a setter again replaces the value in place.
//! - Children (and text added with `add_text`) are written in call order:
//!   [`Enqueue::task`] called twice gives two `<Task>`s.
//! - Where the platform has a fixed set of values (HTTP methods, events,
//!   tracks, recording modes, ...) the setter takes an enum; an attribute
//!   holding a space-separated list takes one value or several
//!   ([`Values`]). Voices, languages and ring tones are free text: the
//!   platform's lists of them are long and grow.
//! - Only text is kept as a `String`: a number, a boolean, an enum's value
//!   or a list of one value is kept as the digits or `&'static str` it is
//!   written as, so setting it allocates nothing.
//! - For what the platform adds later, every element has
//!   [`attr`](Say::attr) (any attribute) and [`child`](Say::child) (any
//!   element, as a [`GenericElement`]), so nothing is out of reach.
//!
//! [`VoiceResponse::to_xml`] (and [`Display`](std::fmt::Display)) produce
//! exactly the string the platform's helper libraries produce: the XML
//! declaration, compact XML with no whitespace between elements, `<X/>` for
//! empty elements, and the helper libraries' escaping (see
//! [Escaping](#escaping)). In CI, a test replays a thousand random
//! documents that the platform's Node helper built over its whole
//! vocabulary through these builders and compares them byte for byte
//! (`src/voice/differential.rs`).
//!
//! # Example
//!
//! ```
//! use ccfn_core::voice::{GatherInput, Method, VoiceResponse};
//!
//! let mut twiml = VoiceResponse::new();
//! twiml
//!     .gather()
//!     .input([GatherInput::Dtmf, GatherInput::Speech])
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
//! # The verbs
//!
//! | Verb | Added with | What it holds |
//! |---|---|---|
//! | [`<Say>`](Say) | [`say`](VoiceResponse::say) | text and SSML: [`break_`](Say::break_), [`emphasis`](Say::emphasis), [`lang`](Say::lang), [`p`](Say::p), [`phoneme`](Say::phoneme), [`prosody`](Say::prosody), [`s`](Say::s), [`say_as`](Say::say_as), [`sub`](Say::sub), [`w`](Say::w) |
//! | [`<Play>`](Play) | [`play`](VoiceResponse::play), [`play_url`](VoiceResponse::play_url) | the audio URL |
//! | [`<Pause>`](Pause) | [`pause`](VoiceResponse::pause) | nothing |
//! | [`<Gather>`](Gather) | [`gather`](VoiceResponse::gather) | [`Say`], [`Play`], [`Pause`] |
//! | [`<Record>`](Record) | [`record`](VoiceResponse::record) | nothing |
//! | [`<Dial>`](Dial) | [`dial`](VoiceResponse::dial), [`dial_number`](VoiceResponse::dial_number) | [`Number`], [`Client`], [`Conference`], [`Queue`], [`Sip`], [`Sim`], [`Application`], [`WhatsApp`] |
//! | [`<Enqueue>`](Enqueue) | [`enqueue`](VoiceResponse::enqueue), [`enqueue_name`](VoiceResponse::enqueue_name) | [`Task`] |
//! | [`<Leave>`](Leave) | [`leave`](VoiceResponse::leave) | nothing |
//! | [`<Connect>`](Connect) | [`connect`](VoiceResponse::connect) | [`Stream`], [`ConversationRelay`], [`VirtualAgent`], [`AiSession`], [`ConversationRelaySession`], [`Conversation`], [`Room`], [`Autopilot`] |
//! | [`<Start>`](Start) | [`start`](VoiceResponse::start) | [`Stream`], [`Siprec`], [`Transcription`], [`Recording`] |
//! | [`<Stop>`](Stop) | [`stop`](VoiceResponse::stop) | [`Stream`], [`Siprec`], [`Transcription`] |
//! | [`<Refer>`](Refer) | [`refer`](VoiceResponse::refer) | [`ReferSip`] |
//! | [`<Pay>`](Pay) | [`pay`](VoiceResponse::pay) | [`Prompt`], [`Parameter`] |
//! | [`<Echo>`](Echo) | [`echo`](VoiceResponse::echo) | nothing |
//! | [`<Sms>`](Sms) | [`sms`](VoiceResponse::sms) | the message |
//! | [`<Redirect>`](Redirect) | [`redirect`](VoiceResponse::redirect) | the URL |
//! | [`<Reject>`](Reject) | [`reject`](VoiceResponse::reject) | [`Parameter`] |
//! | [`<Hangup>`](Hangup) | [`hangup`](VoiceResponse::hangup) | [`Parameter`] |
//!
//! The response also has [`queue`](VoiceResponse::queue) and
//! [`prompt`](VoiceResponse::prompt), because the helper libraries do; the
//! platform reads `<Queue>` only inside `<Dial>` and `<Prompt>` only inside
//! `<Pay>`.
//!
//! Method names are the helper libraries' in snake case, except where Rust
//! or a clash asks otherwise: [`break_`](Say::break_), `loop_` and
//! [`for_`](Prompt::for_) (keywords); [`language_element`](ConversationRelay::language_element)
//! (`<ConversationRelay>` has a `language` attribute too); the forms
//! with text of the elements whose text is optional (see
//! [Optional text](#optional-text)); and `<ConversationRelay>`'s all-lowercase
//! attributes split into words ([`background_noise_reduction`](ConversationRelay::background_noise_reduction),
//! [`deepgram_smart_format`](ConversationRelay::deepgram_smart_format),
//! [`ignore_backchannel`](ConversationRelay::ignore_backchannel),
//! [`speech_timeout`](ConversationRelay::speech_timeout), free text there
//! where [`Gather::speech_timeout`] takes a [`SpeechTimeout`]).
//!
//! One example per verb, each with the document it writes:
//!
//! ```
//! use ccfn_core::voice::*;
//!
//! fn xml(build: impl FnOnce(&mut VoiceResponse)) -> String {
//!     let twiml = VoiceResponse::build(build);
//!     let xml = twiml.to_xml();
//!     xml["<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response>".len()..]
//!         .trim_end_matches("</Response>")
//!         .to_owned()
//! }
//!
//! // <Say>, with SSML.
//! assert_eq!(
//!     xml(|t| {
//!         let say = t.say("Your balance is ");
//!         say.voice("Polly.Joanna").language("en-US");
//!         say.say_as("42").interpret_as(SsmlSayAsInterpretAs::Cardinal);
//!         say.break_().time("500ms");
//!         say.add_text(" dollars.");
//!     }),
//!     r#"<Say voice="Polly.Joanna" language="en-US">Your balance is <say-as interpret-as="cardinal">42</say-as><break time="500ms"/> dollars.</Say>"#
//! );
//! // <Play>, audio or digits.
//! assert_eq!(
//!     xml(|t| {
//!         t.play_url("https://example.com/hold.mp3").loop_(0);
//!         t.play().digits("ww1234#");
//!     }),
//!     r#"<Play loop="0">https://example.com/hold.mp3</Play><Play digits="ww1234#"/>"#
//! );
//! // <Pause>.
//! assert_eq!(xml(|t| { t.pause().length(2); }), r#"<Pause length="2"/>"#);
//! // <Gather>, prompting while it listens.
//! assert_eq!(
//!     xml(|t| {
//!         let gather = t.gather();
//!         gather
//!             .input([GatherInput::Dtmf, GatherInput::Speech])
//!             .speech_timeout(SpeechTimeout::Auto)
//!             .action("/menu");
//!         gather.say("Press 1 or say sales.");
//!     }),
//!     r#"<Gather input="dtmf speech" speechTimeout="auto" action="/menu"><Say>Press 1 or say sales.</Say></Gather>"#
//! );
//! // <Record>, a voicemail.
//! assert_eq!(
//!     xml(|t| {
//!         t.record()
//!             .max_length(120)
//!             .recording_status_callback("/voicemail/done")
//!             .recording_status_callback_event([RecordingEvent::Completed, RecordingEvent::Absent]);
//!     }),
//!     r#"<Record maxLength="120" recordingStatusCallback="/voicemail/done" recordingStatusCallbackEvent="completed absent"/>"#
//! );
//! // <Dial>, a warm transfer into a conference with a supervisor's coach.
//! assert_eq!(
//!     xml(|t| {
//!         let dial = t.dial();
//!         dial.answer_on_bridge(true).ring_tone("us");
//!         dial.conference("case-1234")
//!             .start_conference_on_enter(true)
//!             .status_callback_event([ConferenceEvent::Join, ConferenceEvent::Leave]);
//!     }),
//!     r#"<Dial answerOnBridge="true" ringTone="us"><Conference startConferenceOnEnter="true" statusCallbackEvent="join leave">case-1234</Conference></Dial>"#
//! );
//! // <Enqueue>, handing the call to a task router workflow.
//! assert_eq!(
//!     xml(|t| {
//!         let enqueue = t.enqueue();
//!         enqueue.workflow_sid("WW0123");
//!         enqueue.task(serde_json::json!({"skill": "billing"})).priority(5);
//!     }),
//!     r#"<Enqueue workflowSid="WW0123"><Task priority="5">{"skill":"billing"}</Task></Enqueue>"#
//! );
//! // <Leave>, out of the queue (in a queue's wait markup).
//! assert_eq!(xml(|t| { t.leave(); }), r#"<Leave/>"#);
//! // <Connect>, to a live conversation with an AI agent.
//! assert_eq!(
//!     xml(|t| {
//!         let relay = t.connect().action("/after").conversation_relay();
//!         relay.url("wss://bot.example.com/ws").welcome_greeting("Hi!");
//!         relay.language_element().code("fr-FR").voice("Google.fr-FR-Neural2-A");
//!         relay.parameter().name("case").value("1234");
//!     }),
//!     r#"<Connect action="/after"><ConversationRelay url="wss://bot.example.com/ws" welcomeGreeting="Hi!"><Language code="fr-FR" voice="Google.fr-FR-Neural2-A"/><Parameter name="case" value="1234"/></ConversationRelay></Connect>"#
//! );
//! // <Start>, a stream in the background.
//! assert_eq!(
//!     xml(|t| {
//!         t.start().stream().name("live").url("wss://media.example.com").track(StreamTrack::BothTracks);
//!     }),
//!     r#"<Start><Stream name="live" url="wss://media.example.com" track="both_tracks"/></Start>"#
//! );
//! // <Stop>, that stream.
//! assert_eq!(
//!     xml(|t| { t.stop().stream().name("live"); }),
//!     r#"<Stop><Stream name="live"/></Stop>"#
//! );
//! // <Refer>, a SIP transfer.
//! assert_eq!(
//!     xml(|t| { t.refer().action("/referred").sip("sip:agent@pbx.example.com"); }),
//!     r#"<Refer action="/referred"><Sip>sip:agent@pbx.example.com</Sip></Refer>"#
//! );
//! // <Pay>, with a prompt of its own.
//! assert_eq!(
//!     xml(|t| {
//!         let pay = t.pay();
//!         pay.charge_amount("10.00").payment_connector("stripe").valid_card_types([CardType::Visa, CardType::Amex]);
//!         pay.prompt().for_(PromptFor::PaymentCardNumber).say("Enter your card number.");
//!     }),
//!     r#"<Pay chargeAmount="10.00" paymentConnector="stripe" validCardTypes="visa amex"><Prompt for="payment-card-number"><Say>Enter your card number.</Say></Prompt></Pay>"#
//! );
//! // <Echo>.
//! assert_eq!(xml(|t| { t.echo(); }), r#"<Echo/>"#);
//! // <Sms>.
//! assert_eq!(
//!     xml(|t| { t.sms("We got your call.").to("+15551230000"); }),
//!     r#"<Sms to="+15551230000">We got your call.</Sms>"#
//! );
//! // <Redirect>.
//! assert_eq!(
//!     xml(|t| { t.redirect("/ivr/menu").method(Method::Get); }),
//!     r#"<Redirect method="GET">/ivr/menu</Redirect>"#
//! );
//! // <Reject>.
//! assert_eq!(
//!     xml(|t| { t.reject().reason(RejectReason::Busy); }),
//!     r#"<Reject reason="busy"/>"#
//! );
//! // <Hangup>, with a parameter for the status callback.
//! assert_eq!(
//!     xml(|t| { t.hangup().parameter().name("reason").value("done"); }),
//!     r#"<Hangup><Parameter name="reason" value="done"/></Hangup>"#
//! );
//! ```
//!
//! Nesting is checked when the code compiles: a `<Say>` cannot hold a
//! `<Dial>`.
//!
//! ```compile_fail
//! use ccfn_core::voice::VoiceResponse;
//!
//! let mut twiml = VoiceResponse::new();
//! twiml.say("Hello").dial(); // error: no method named `dial` on `Say`
//! ```
//!
//! # Optional text
//!
//! One rule, the helper libraries' own: where the helper requires an
//! element's text, the method takes it (`say(message)`,
//! `conference(name)`, `redirect(url)`...; an empty text writes none).
//! Where the helper's text is optional, there are two methods: the
//! helper's name alone adds the element without text, and the helper's
//! name followed by what the text is (the helper's parameter, without a
//! word the name already says) adds it with that text:
//!
//! | Without text | With text | Element |
//! |---|---|---|
//! | [`VoiceResponse::dial`] | [`VoiceResponse::dial_number`] | `<Dial>` |
//! | [`VoiceResponse::enqueue`] | [`VoiceResponse::enqueue_name`] | `<Enqueue>` |
//! | [`VoiceResponse::play`], [`Gather::play`], [`Prompt::play`] | [`VoiceResponse::play_url`], [`Gather::play_url`], [`Prompt::play_url`] | `<Play>` |
//! | [`Dial::application`] | [`Dial::application_sid`] | `<Application>` |
//! | [`Dial::client`] | [`Dial::client_identity`] | `<Client>` |
//! | [`Dial::sip`] | [`Dial::sip_url`] | `<Sip>` |
//! | [`Sip::uri`] | [`Sip::uri_sip_url`] | `<Uri>` |
//!
//! ```
//! use ccfn_core::voice::VoiceResponse;
//!
//! let mut twiml = VoiceResponse::new();
//! twiml.play_url("https://example.com/hold.mp3");
//! twiml.play().digits("1234#");
//! let dial = twiml.dial();
//! dial.client_identity("agent_42");
//! dial.client().identity("agent_7");
//! assert_eq!(
//!     twiml.to_xml(),
//!     concat!(
//!         r#"<?xml version="1.0" encoding="UTF-8"?><Response>"#,
//!         r#"<Play>https://example.com/hold.mp3</Play><Play digits="1234#"/>"#,
//!         r#"<Dial><Client>agent_42</Client><Client><Identity>agent_7</Identity></Client></Dial>"#,
//!         r#"</Response>"#,
//!     )
//! );
//! ```
//!
//! # Comments
//!
//! The response has the helper libraries' three comment methods (no
//! element has them, as in the helpers):
//! [`comment`](VoiceResponse::comment) inside `<Response>` among the
//! verbs, [`comment_before`](VoiceResponse::comment_before) between the
//! declaration and `<Response>`, and
//! [`comment_after`](VoiceResponse::comment_after) after `</Response>`
//! (each right after it, so several come out last added first). A comment
//! is written `<!-- text -->`, the text as given: nothing is escaped.
//!
//! XML forbids `--` in a comment, and the helper libraries refuse it;
//! [`VoiceResponse::to_xml`] cannot fail, so a comment whose text holds
//! `--` anywhere is written with every hyphen of it as U+FFFD (`�`), and
//! a comment can never close early (`-->`). Characters XML 1.0 cannot hold
//! are written U+FFFD, as in text. A secret in a comment is scrubbed from
//! log lines like one in text.
//!
//! ```
//! use ccfn_core::voice::VoiceResponse;
//!
//! let mut twiml = VoiceResponse::new();
//! twiml.comment_before("built by menu v2");
//! twiml.comment("a & <b> -- c-d");
//! twiml.say("Hello.");
//! twiml.comment_after("end");
//! assert_eq!(
//!     twiml.to_xml(),
//!     concat!(
//!         r#"<?xml version="1.0" encoding="UTF-8"?><!-- built by menu v2 --><Response>"#,
//!         "<!-- a & <b> \u{FFFD}\u{FFFD} c\u{FFFD}d -->",
//!         r#"<Say>Hello.</Say></Response><!-- end -->"#,
//!     )
//! );
//! ```
//!
//! # What the platform adds later
//!
//! ```
//! use ccfn_core::voice::VoiceResponse;
//!
//! let mut twiml = VoiceResponse::new();
//! twiml.say("Hello").attr("futureAttribute", "on");
//! twiml.child("FutureVerb").attr("mode", "fast").add_text("now");
//! assert_eq!(
//!     twiml.to_xml(),
//!     concat!(
//!         r#"<?xml version="1.0" encoding="UTF-8"?><Response>"#,
//!         r#"<Say futureAttribute="on">Hello</Say><FutureVerb mode="fast">now</FutureVerb>"#,
//!         r#"</Response>"#,
//!     )
//! );
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

use std::borrow::Cow;
use std::fmt;

#[macro_use]
mod table;
mod elements;
mod tree;
mod values;

#[cfg(test)]
mod differential;
#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;

pub use elements::*;
pub use tree::GenericElement;
pub use values::*;

#[cfg(test)]
use differential::{hit, Build};
use tree::{check_name, write_comment, El, Element, Node, Parent};

/// The XML declaration every response starts with.
const DECLARATION: &str = r#"<?xml version="1.0" encoding="UTF-8"?>"#;

// ---------------------------------------------------------------------------
// The response
// ---------------------------------------------------------------------------

/// A voice response: the `<Response>` document a voice webhook returns.
///
/// Verbs are appended in call order. See the [module docs](self) for an
/// example and the list of verbs.
#[derive(Debug, Clone)]
pub struct VoiceResponse {
    root: El,
    /// The comments before `<Response>` and after `</Response>`: few
    /// documents have any, so they take one pointer until then.
    around: Option<Box<Around>>,
    /// The document as first built, when [`VoiceResponse::mark_built`]
    /// was called.
    built: Option<Built>,
}

/// The comments around `<Response>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Around {
    /// Before `<Response>`, in call order.
    before: Vec<String>,
    /// After `</Response>`, in call order (written in reverse).
    after: Vec<String>,
}

/// The document as first built: verbs and comments are only ever
/// appended, so it is the first `nodes` verbs and comments in the
/// response and the first `before` and `after` comments around it,
/// written only when someone asks for it (with logging off, nobody does).
#[derive(Debug, Clone)]
struct Built {
    nodes: usize,
    before: usize,
    after: usize,
    xml: std::sync::OnceLock<String>,
}

impl Default for VoiceResponse {
    fn default() -> Self {
        VoiceResponse {
            root: El::new("Response", String::new()),
            around: None,
            built: None,
        }
    }
}

/// Two responses are equal when they write the same document; a
/// [`VoiceResponse::mark_built`] snapshot does not count.
impl PartialEq for VoiceResponse {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root && self.before() == other.before() && self.after() == other.after()
    }
}

impl Eq for VoiceResponse {}

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

    /// Whether no verb has been added yet (comments are not verbs).
    pub fn is_empty(&self) -> bool {
        !self
            .root
            .children
            .iter()
            .any(|node| matches!(node, Node::El(_)))
    }

    /// Appends an XML comment inside `<Response>`, among the verbs in call
    /// order: `<!-- text -->`, as the platform's helper libraries write it
    /// (see [Comments](self#comments) for what a comment cannot hold).
    ///
    /// ```
    /// use ccfn_core::voice::VoiceResponse;
    ///
    /// let mut twiml = VoiceResponse::new();
    /// twiml.comment("menu v2");
    /// twiml.say("Hello.");
    /// assert_eq!(
    ///     twiml.to_xml(),
    ///     r#"<?xml version="1.0" encoding="UTF-8"?><Response><!-- menu v2 --><Say>Hello.</Say></Response>"#
    /// );
    /// ```
    pub fn comment(&mut self, text: impl Into<String>) -> &mut Self {
        self.root.children.push(Node::Comment(text.into()));
        self
    }

    /// Adds an XML comment before `<Response>`, after the XML
    /// declaration; several are written in call order.
    ///
    /// ```
    /// use ccfn_core::voice::VoiceResponse;
    ///
    /// let mut twiml = VoiceResponse::new();
    /// twiml.comment_before("first").comment_before("second");
    /// assert_eq!(
    ///     twiml.to_xml(),
    ///     r#"<?xml version="1.0" encoding="UTF-8"?><!-- first --><!-- second --><Response/>"#
    /// );
    /// ```
    pub fn comment_before(&mut self, text: impl Into<String>) -> &mut Self {
        self.around.get_or_insert_default().before.push(text.into());
        self
    }

    /// Adds an XML comment right after `</Response>`: several are written
    /// in the reverse of call order, the last added first, as the
    /// platform's helper libraries write them.
    ///
    /// ```
    /// use ccfn_core::voice::VoiceResponse;
    ///
    /// let mut twiml = VoiceResponse::new();
    /// twiml.hangup();
    /// twiml.comment_after("first").comment_after("second");
    /// assert_eq!(
    ///     twiml.to_xml(),
    ///     r#"<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response><!-- second --><!-- first -->"#
    /// );
    /// ```
    pub fn comment_after(&mut self, text: impl Into<String>) -> &mut Self {
        self.around.get_or_insert_default().after.push(text.into());
        self
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
            nodes: self.root.children.len(),
            before: self.before().len(),
            after: self.after().len(),
            xml: std::sync::OnceLock::new(),
        });
        self
    }

    /// The document remembered by [`VoiceResponse::mark_built`].
    pub fn built(&self) -> Option<&str> {
        let built = self.built.as_ref()?;
        Some(built.xml.get_or_init(|| {
            write_document(
                &self.root.children[..built.nodes],
                &self.before()[..built.before],
                &self.after()[..built.after],
            )
        }))
    }

    /// The document, and where in it the document as first built stops
    /// being its beginning: `Some(end)` when the document as first built
    /// is `document[..end]`, then `</Response>` and its comments after
    /// (it had verbs, and no comment was added before `<Response>` since),
    /// so that [`VoiceResponse::built_from`] can make it without writing
    /// its verbs again.
    pub(crate) fn to_xml_marked(&self) -> (String, Option<usize>) {
        let mark = self.built.as_ref().and_then(|built| {
            (built.nodes > 0 && built.before == self.before().len()).then_some(built.nodes)
        });
        write_document_marked(&self.root.children, self.before(), self.after(), mark)
    }

    /// The document as first built, made from `document` (this response's
    /// document) and `end`, what [`VoiceResponse::to_xml_marked`] gave
    /// with it.
    pub(crate) fn built_from(&self, document: &str, end: usize) -> Option<&str> {
        let built = self.built.as_ref()?;
        Some(built.xml.get_or_init(|| {
            let after = &self.after()[..built.after];
            let mut xml = String::with_capacity(end + "</Response>".len() + 32 * after.len());
            xml.push_str(&document[..end]);
            xml.push_str("</Response>");
            for comment in after.iter().rev() {
                write_comment(comment, &mut xml);
            }
            xml
        }))
    }

    /// Whether the document was marked as built and has not changed since.
    pub(crate) fn unchanged_since_built(&self) -> bool {
        self.built.as_ref().is_some_and(|built| {
            built.nodes == self.root.children.len()
                && built.before == self.before().len()
                && built.after == self.after().len()
        })
    }

    /// The workflow and queue name of the first `<Enqueue>`, if any:
    /// `(workflowSid, queue name)`, each `None` when not set (the name is
    /// the text the element was created with, or else the first text
    /// added to it).
    pub fn enqueued(&self) -> Option<(Option<&str>, Option<&str>)> {
        self.root.children.iter().find_map(|verb| match verb {
            Node::El(el) if el.tag == Enqueue::TAG => {
                Some((el.get("workflowSid"), el.first_text()))
            }
            _ => None,
        })
    }

    /// Appends an element the builders do not know (one the platform added
    /// later), tagged `tag`.
    ///
    /// # Panics
    ///
    /// If `tag` is not an XML name.
    pub fn child(&mut self, tag: impl Into<Cow<'static, str>>) -> &mut GenericElement {
        let tag = tag.into();
        check_name(&tag);
        GenericElement::from_el(self.root.push_el(El::new(tag, String::new())))
    }

    /// The XML document, byte for byte what the platform's helper libraries
    /// write: declaration, then compact XML.
    pub fn to_xml(&self) -> String {
        write_document(&self.root.children, self.before(), self.after())
    }

    /// The comments before `<Response>`, in call order.
    fn before(&self) -> &[String] {
        self.around.as_ref().map_or(&[], |around| &around.before)
    }

    /// The comments after `</Response>`, in call order.
    fn after(&self) -> &[String] {
        self.around.as_ref().map_or(&[], |around| &around.after)
    }
}

// The verbs.
children! {
    VoiceResponse {
        connect = "connect" -> Connect;
        dial = "dial" -> Dial | dial_number(number);
        echo = "echo" -> Echo;
        enqueue = "enqueue" -> Enqueue | enqueue_name(name);
        gather = "gather" -> Gather;
        hangup = "hangup" -> Hangup;
        leave = "leave" -> Leave;
        pause = "pause" -> Pause;
        pay = "pay" -> Pay;
        play = "play" -> Play | play_url(url);
        prompt = "prompt" -> Prompt;
        queue = "queue" -> Queue(name);
        record = "record" -> Record;
        redirect = "redirect" -> Redirect(url);
        refer = "refer" -> Refer;
        reject = "reject" -> Reject;
        say = "say" -> Say(message);
        sms = "sms" -> Sms(message);
        start = "start" -> Start;
        stop = "stop" -> Stop;
    }
}

impl Parent for VoiceResponse {
    fn el_mut(&mut self) -> &mut El {
        &mut self.root
    }
}

/// The document whose verbs (and comments) are `verbs`, with comments
/// `before` and `after` it (in call order): declaration, then compact
/// XML.
fn write_document(verbs: &[Node], before: &[String], after: &[String]) -> String {
    write_document_marked(verbs, before, after, None).0
}

/// [`write_document`], and where the verb at `mark` starts (the end of
/// the verbs before it), when `mark` is given and the document has verbs.
fn write_document_marked(
    verbs: &[Node],
    before: &[String],
    after: &[String],
    mark: Option<usize>,
) -> (String, Option<usize>) {
    // Room for a typical menu at once: growing the buffer verb by verb
    // costs more than the memory.
    let mut out = String::with_capacity(1024.max(DECLARATION.len() + 24 + 96 * verbs.len()));
    let mut marked = None;
    out.push_str(DECLARATION);
    for comment in before {
        write_comment(comment, &mut out);
    }
    if verbs.is_empty() {
        out.push_str("<Response/>");
    } else {
        out.push_str("<Response>");
        for (at, verb) in verbs.iter().enumerate() {
            if Some(at) == mark {
                marked = Some(out.len());
            }
            verb.write(&mut out);
        }
        if mark == Some(verbs.len()) {
            marked = Some(out.len());
        }
        out.push_str("</Response>");
    }
    // Each is added right after `</Response>`, before those added earlier.
    for comment in after.iter().rev() {
        write_comment(comment, &mut out);
    }
    (out, marked)
}

impl fmt::Display for VoiceResponse {
    /// Writes [`VoiceResponse::to_xml`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_xml())
    }
}
