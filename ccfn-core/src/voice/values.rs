//! The values attributes take: HTTP methods, the platform's enumerations,
//! lists of them, and the few values with a shape of their own.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// A value the platform does not know for an attribute of a fixed set,
/// from [`FromStr`] on one of this module's enums.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownValue {
    /// The type it was read as, e.g. `Method`.
    pub kind: &'static str,
    /// The value as given.
    pub value: String,
}

impl fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a {} the platform knows",
            self.value, self.kind
        )
    }
}

impl std::error::Error for UnknownValue {}

/// A value an attribute list is made of: an enum of this module or a
/// number.
pub trait Token: sealed::Sealed {
    /// Writes the value as the markup has it.
    fn write_token(&self, out: &mut String);

    /// The value as the markup has it, when that is a fixed string.
    fn as_static(&self) -> Option<&'static str> {
        None
    }
}

impl Token for u32 {
    fn write_token(&self, out: &mut String) {
        out.push_str(&self.to_string());
    }
}

/// One value or several, for an attribute holding a space-separated list
/// (`statusCallbackEvent`, `input`, `validCardTypes`, ...): a single `T`,
/// an array, a slice or a `Vec` of them. An empty list writes an empty
/// attribute, as the helper libraries do.
///
/// ```
/// use ccfn_core::voice::{CallEvent, VoiceResponse};
///
/// let mut twiml = VoiceResponse::new();
/// let dial = twiml.dial();
/// dial.number("+15551230000").status_callback_event(CallEvent::Answered);
/// dial.number("+15551230001").status_callback_event([CallEvent::Ringing, CallEvent::Completed]);
/// assert!(twiml.to_xml().contains(r#"statusCallbackEvent="ringing completed""#));
/// ```
pub trait Values<T: Token> {
    /// The values joined by single spaces.
    fn join(self) -> String;

    /// [`Values::join`], without allocating when that is one value of a
    /// fixed set (a single enum value).
    fn joined(self) -> Cow<'static, str>
    where
        Self: Sized,
    {
        Cow::Owned(self.join())
    }
}

fn join<'a, T: Token + 'a>(values: impl IntoIterator<Item = &'a T>) -> String {
    let mut out = String::new();
    for (i, value) in values.into_iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        value.write_token(&mut out);
    }
    out
}

impl<T: Token> Values<T> for T {
    fn join(self) -> String {
        join([&self])
    }

    fn joined(self) -> Cow<'static, str> {
        match self.as_static() {
            Some(text) => Cow::Borrowed(text),
            None => Cow::Owned(self.join()),
        }
    }
}

impl<T: Token, const N: usize> Values<T> for [T; N] {
    fn join(self) -> String {
        join(&self)
    }
}

impl<T: Token> Values<T> for &[T] {
    fn join(self) -> String {
        join(self)
    }
}

impl<T: Token> Values<T> for Vec<T> {
    fn join(self) -> String {
        join(&self)
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
}

/// How long a [`Gather`](super::Gather) waits after the caller stops
/// speaking (its `speechTimeout`). A plain `u32` converts to
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

impl fmt::Display for SpeechTimeout {
    /// `auto` or the number of seconds, as the markup has it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpeechTimeout::Auto => f.write_str("auto"),
            SpeechTimeout::Seconds(seconds) => write!(f, "{seconds}"),
        }
    }
}

impl FromStr for SpeechTimeout {
    type Err = UnknownValue;

    /// Reads `auto` or a number of seconds.
    fn from_str(value: &str) -> Result<Self, UnknownValue> {
        match value {
            "auto" => Ok(SpeechTimeout::Auto),
            _ => value
                .parse()
                .map(SpeechTimeout::Seconds)
                .map_err(|_| UnknownValue {
                    kind: "SpeechTimeout",
                    value: value.to_owned(),
                }),
        }
    }
}

/// The text of a [`Task`](super::Task): the task's JSON attributes.
///
/// Built from a `&str`/`String` (written exactly as given) or from a
/// [`serde_json::Value`] (written as `serde_json` writes it compactly, i.e.
/// `value.to_string()`, object keys in the order they were inserted, as
/// `JSON.stringify` writes them).
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

impl From<TaskBody> for String {
    fn from(body: TaskBody) -> Self {
        body.0
    }
}

/// Whether `text` can be written in an attribute or element text as it
/// is: it holds nothing but ASCII letters, digits and `-_.:+/ #*`. Every
/// value of a fixed set is checked with this when the crate compiles.
const fn needs_no_escaping(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if !matches!(bytes[at], b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b':' | b'+' | b'/' | b' ' | b'#' | b'*')
        {
            return false;
        }
        at += 1;
    }
    true
}

/// Declares enums of fixed values: `as_str`, [`FromStr`], [`Token`].
macro_rules! values {
    ($( $(#[$doc:meta])* $name:ident { $( $variant:ident = $value:literal, )* } )*) => {$(
        $(#[$doc])*
        ///
        /// Non-exhaustive: the platform adds values.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $( #[doc = concat!("`", $value, "`")] $variant, )*
        }

        impl $name {
            /// The value as written in the markup.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $value, )*
                }
            }
        }

        impl FromStr for $name {
            type Err = UnknownValue;

            /// Reads the value as written in the markup.
            fn from_str(value: &str) -> Result<Self, UnknownValue> {
                match value {
                    $( $value => Ok($name::$variant), )*
                    _ => Err(UnknownValue { kind: stringify!($name), value: value.to_owned() }),
                }
            }
        }

        impl fmt::Display for $name {
            /// Writes [`Self::as_str`].
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl sealed::Sealed for $name {}

        impl Token for $name {
            fn write_token(&self, out: &mut String) {
                out.push_str(self.as_str());
            }

            fn as_static(&self) -> Option<&'static str> {
                Some(self.as_str())
            }
        }

        // Written without escaping (`Value::Plain`): checked here.
        const _: () = {
            $( assert!(needs_no_escaping($value), concat!("`", $value, "` needs escaping")); )*
        };
    )*};
}

values! {
    /// The HTTP method the platform uses for a callback URL (`method`,
    /// `statusCallbackMethod`, `waitUrlMethod`, ...).
    Method {
        Get = "GET",
        Post = "POST",
    }

    /// A call progress event reported to a status callback (`statusCallbackEvent` of [`Number`](super::Number), [`Client`](super::Client), [`Sip`](super::Sip), [`Application`](super::Application), [`WhatsApp`](super::WhatsApp)).
    CallEvent {
        Initiated = "initiated",
        Ringing = "ringing",
        Answered = "answered",
        Completed = "completed",
    }

    /// When a [`Conference`](super::Conference) beeps (its `beep`).
    ConferenceBeep {
        True = "true",
        False = "false",
        OnEnter = "onEnter",
        OnExit = "onExit",
    }

    /// A [`Conference`](super::Conference)'s jitter buffer (its `jitterBufferSize`).
    ConferenceJitterBufferSize {
        Large = "large",
        Medium = "medium",
        Small = "small",
        Off = "off",
    }

    /// Whether a [`Conference`](super::Conference) is recorded (its `record`).
    ConferenceRecord {
        DoNotRecord = "do-not-record",
        RecordFromStart = "record-from-start",
    }

    /// A recording status event reported to `recordingStatusCallback`.
    RecordingEvent {
        InProgress = "in-progress",
        Completed = "completed",
        Absent = "absent",
    }

    /// Where a [`Conference`](super::Conference)'s media is mixed (its `region`).
    ConferenceRegion {
        Us1 = "us1",
        Us2 = "us2",
        Ie1 = "ie1",
        Sg1 = "sg1",
        Br1 = "br1",
        Au1 = "au1",
        Jp1 = "jp1",
        De1 = "de1",
    }

    /// A conference event reported to a [`Conference`](super::Conference)'s `statusCallback`.
    ConferenceEvent {
        Start = "start",
        End = "end",
        Join = "join",
        Leave = "leave",
        Mute = "mute",
        Hold = "hold",
        Modify = "modify",
        Speaker = "speaker",
        Announcement = "announcement",
    }

    /// Whether silence is trimmed from a recording (`trim`).
    Trim {
        TrimSilence = "trim-silence",
        DoNotTrim = "do-not-trim",
    }

    /// Whether a [`Conversation`](super::Conversation) is recorded (its `record`).
    ConversationRecord {
        DoNotRecord = "do-not-record",
        RecordFromAnswer = "record-from-answer",
        RecordFromRinging = "record-from-ringing",
        RecordFromAnswerDual = "record-from-answer-dual",
        RecordFromRingingDual = "record-from-ringing-dual",
        True = "true",
        False = "false",
    }

    /// A call event reported to a [`Conversation`](super::Conversation)'s `statusCallback`.
    ConversationEvent {
        CallInitiated = "call-initiated",
        CallRinging = "call-ringing",
        CallAnswered = "call-answered",
        CallCompleted = "call-completed",
    }

    /// Events a [`Dial`](super::Dial) subscribes to (its `events`).
    DialEvent {
        CallProgressEvent = "call-progress-event",
    }

    /// Whether and how a [`Dial`](super::Dial) is recorded (its `record`).
    DialRecord {
        DoNotRecord = "do-not-record",
        RecordFromAnswer = "record-from-answer",
        RecordFromRinging = "record-from-ringing",
        RecordFromAnswerDual = "record-from-answer-dual",
        RecordFromRingingDual = "record-from-ringing-dual",
    }

    /// Which audio a recording holds (`recordingTrack` of [`Dial`](super::Dial), `track` of [`Recording`](super::Recording)).
    RecordingTrack {
        Both = "both",
        Inbound = "inbound",
        Outbound = "outbound",
    }

    /// What a [`Gather`](super::Gather) listens for (its `input`: one or both).
    GatherInput {
        Dtmf = "dtmf",
        Speech = "speech",
    }

    /// The kind of bank account a [`Pay`](super::Pay) charges (its `bankAccountType`).
    PayBankAccountType {
        ConsumerChecking = "consumer-checking",
        ConsumerSavings = "consumer-savings",
        CommercialChecking = "commercial-checking",
        CommercialSavings = "commercial-savings",
    }

    /// How a [`Pay`](super::Pay) takes input (its `input`).
    PayInput {
        Dtmf = "dtmf",
    }

    /// How a [`Pay`](super::Pay) is paid (its `paymentMethod`).
    PayPaymentMethod {
        AchDebit = "ach-debit",
        CreditCard = "credit-card",
    }

    /// The kind of token a [`Pay`](super::Pay) creates (its `tokenType`).
    PayTokenType {
        OneTime = "one-time",
        Reusable = "reusable",
        PaymentMethod = "payment-method",
    }

    /// A payment card brand (`validCardTypes` of [`Pay`](super::Pay), `cardType` of [`Prompt`](super::Prompt)).
    CardType {
        Visa = "visa",
        Mastercard = "mastercard",
        Amex = "amex",
        Maestro = "maestro",
        Discover = "discover",
        Optima = "optima",
        Jcb = "jcb",
        DinersClub = "diners-club",
        Enroute = "enroute",
    }

    /// The error a [`Prompt`](super::Prompt) is for (its `errorType`).
    PromptErrorType {
        Timeout = "timeout",
        InvalidCardNumber = "invalid-card-number",
        InvalidCardType = "invalid-card-type",
        InvalidDate = "invalid-date",
        InvalidSecurityCode = "invalid-security-code",
        InternalError = "internal-error",
        InputMatchingFailed = "input-matching-failed",
    }

    /// The step of a [`Pay`](super::Pay) a [`Prompt`](super::Prompt) is for (its `for`).
    PromptFor {
        PaymentCardNumber = "payment-card-number",
        ExpirationDate = "expiration-date",
        SecurityCode = "security-code",
        PostalCode = "postal-code",
        PaymentProcessing = "payment-processing",
        BankAccountNumber = "bank-account-number",
        BankRoutingNumber = "bank-routing-number",
    }

    /// The channels of a [`Recording`](super::Recording) (its `channels`).
    RecordingChannels {
        Mono = "mono",
        Dual = "dual",
    }

    /// Why a call is refused ([`Reject::reason`](super::Reject::reason)): what the caller hears.
    RejectReason {
        Rejected = "rejected",
        Busy = "busy",
    }

    /// Which audio a [`Stream`](super::Stream), [`Siprec`](super::Siprec) or [`Transcription`](super::Transcription) takes (its `track`).
    StreamTrack {
        InboundTrack = "inbound_track",
        OutboundTrack = "outbound_track",
        BothTracks = "both_tracks",
    }

    /// How long an SSML [`SsmlBreak`](super::SsmlBreak) is, by strength (its `strength`).
    SsmlBreakStrength {
        None = "none",
        XWeak = "x-weak",
        Weak = "weak",
        Medium = "medium",
        Strong = "strong",
        XStrong = "x-strong",
    }

    /// How strong an SSML [`SsmlEmphasis`](super::SsmlEmphasis) is (its `level`).
    SsmlEmphasisLevel {
        Strong = "strong",
        Moderate = "moderate",
        Reduced = "reduced",
    }

    /// The phonetic alphabet of an SSML [`SsmlPhoneme`](super::SsmlPhoneme) (its `alphabet`).
    SsmlPhonemeAlphabet {
        Ipa = "ipa",
        XSampa = "x-sampa",
        XAmazonJyutping = "x-amazon-jyutping",
        XAmazonPinyin = "x-amazon-pinyin",
        XAmazonPronKana = "x-amazon-pron-kana",
        XAmazonYomigana = "x-amazon-yomigana",
    }

    /// The order of a date read by an SSML [`SsmlSayAs`](super::SsmlSayAs) (its `format`).
    SsmlSayAsFormat {
        Mdy = "mdy",
        Dmy = "dmy",
        Ymd = "ymd",
        Md = "md",
        Dm = "dm",
        Ym = "ym",
        My = "my",
        D = "d",
        M = "m",
        Y = "y",
        Yyyymmdd = "yyyymmdd",
    }

    /// How an SSML [`SsmlSayAs`](super::SsmlSayAs) reads its words (its `interpret-as`).
    SsmlSayAsInterpretAs {
        Characters = "characters",
        SpellOut = "spell-out",
        Cardinal = "cardinal",
        Number = "number",
        Ordinal = "ordinal",
        Digits = "digits",
        Fraction = "fraction",
        Unit = "unit",
        Date = "date",
        Time = "time",
        Address = "address",
        Expletive = "expletive",
        Telephone = "telephone",
    }
}
