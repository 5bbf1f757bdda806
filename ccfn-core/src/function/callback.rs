//! How a function completes: the callback, the completion it makes (how
//! the invocation ended), and the reply the caller receives.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;

/// The callback a handler completes through.
///
/// It is not `Clone` and its methods take it by value, so a handler that
/// never completes, or completes twice, does not compile:
///
/// ```compile_fail
/// use ccfn_core::{Callback, Completion};
///
/// fn twice(callback: Callback) -> Completion {
///     let _ = callback.success("first");
///     callback.success("second") // error: use of moved value
/// }
/// ```
#[derive(Debug)]
pub struct Callback {
    invocation_id: InvocationId,
}

impl Callback {
    /// The callback of the invocation `invocation_id`.
    pub(crate) fn new(invocation_id: InvocationId) -> Self {
        Callback { invocation_id }
    }

    /// Completes with a result: a [`crate::voice::VoiceResponse`] (sent as
    /// `text/xml`), an [`HttpReply`], or any serializable value (sent as
    /// JSON).
    pub fn success(self, result: impl IntoReply) -> Completion {
        Completion::new(self.invocation_id, result.into_reply())
    }

    /// Completes with an error.
    pub fn error(self, error: impl Into<Error>) -> Completion {
        Completion::new(self.invocation_id, Err(error.into()))
    }
}

/// How an invocation ended: its identifier, and the reply or the error
/// it completed with.
///
/// A handler makes one only through its [`Callback`]
/// ([`Callback::success`], [`Callback::error`]), which is proof that it
/// completed. [`ContactFunction::invoke`](crate::function::ContactFunction::invoke)
/// returns the invocation's, with the contract's own error in place of the
/// handler's result when a required parameter was missing, the handler
/// panicked or it timed out.
#[must_use = "return the completion from the handler, or read how the invocation ended"]
#[derive(Debug)]
pub struct Completion {
    invocation_id: InvocationId,
    result: Result<Reply, Error>,
}

impl Completion {
    /// The completion of the invocation `invocation_id` with `result`.
    pub(crate) fn new(invocation_id: InvocationId, result: Result<Reply, Error>) -> Self {
        Completion {
            invocation_id,
            result,
        }
    }

    /// The invocation's identifier: in every record of it, and in the
    /// `x-ccfn-invocation-id` response header.
    #[must_use]
    pub fn invocation_id(&self) -> &InvocationId {
        &self.invocation_id
    }

    /// The reply, or the error the invocation completed with.
    ///
    /// # Errors
    /// The invocation failed: the handler completed with an error, or the
    /// contract ended it (a missing parameter, a panic, the timeout).
    pub fn result(&self) -> Result<&Reply, &Error> {
        self.result.as_ref()
    }

    /// The reply, or the error the invocation completed with, by value.
    ///
    /// # Errors
    /// As [`Completion::result`].
    pub fn into_result(self) -> Result<Reply, Error> {
        self.result
    }

    /// The HTTP status the runtime answers with: an [`HttpReply`]'s own,
    /// 200 for any other reply, and the error kind's
    /// ([`crate::ErrorKind::http_status`]) on failure.
    #[must_use]
    pub fn status(&self) -> u16 {
        match &self.result {
            Ok(Reply::Http(reply)) => reply.status(),
            Ok(_) => 200,
            Err(error) => error.kind().http_status(),
        }
    }

    /// The identifier and the result, by value.
    #[cfg(feature = "runtime")]
    pub(crate) fn into_parts(self) -> (InvocationId, Result<Reply, Error>) {
        (self.invocation_id, self.result)
    }
}

/// What a successful function sends back.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Reply {
    /// A JSON value, sent as `200 application/json`.
    Json(Value),
    /// A markup document, sent as `200 text/xml`.
    Xml(String),
    /// A [`crate::voice::VoiceResponse`], sent as `200 text/xml`.
    Voice(VoiceReply),
    /// A reply with its own status, headers and body.
    Http(HttpReply),
}

impl Reply {
    /// The size in bytes of the body the caller receives.
    #[must_use]
    pub fn body_len(&self) -> usize {
        match self {
            Reply::Json(value) => serde_json::to_vec(value).map_or(0, |body| body.len()),
            Reply::Xml(xml) => xml.len(),
            Reply::Voice(voice) => voice.xml.len(),
            Reply::Http(reply) => reply.body.len(),
        }
    }

    /// The reply as logged in the `success` record (JSON members with a
    /// sensitive name redacted).
    #[must_use]
    pub fn to_log_json(&self) -> Value {
        match self {
            Reply::Json(value) => crate::secret::redact_json(value),
            Reply::Xml(xml) => Value::from(xml.as_str()),
            Reply::Voice(voice) => Value::from(voice.xml.as_str()),
            Reply::Http(reply) => serde_json::json!({
                "status": reply.status,
                "body": String::from_utf8_lossy(&reply.body),
            }),
        }
    }
}

/// A reply with a chosen status, headers and body.
///
/// ```
/// use ccfn_core::reply::HttpReply;
///
/// let reply = HttpReply::new(202)
///     .header("content-type", "text/plain")
///     .body("accepted");
/// assert_eq!(reply.status(), 202);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use = "give the reply to callback.success"]
pub struct HttpReply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl HttpReply {
    /// An empty reply with `status`.
    pub fn new(status: u16) -> Self {
        HttpReply {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    /// The status code.
    #[must_use]
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The headers, in order.
    pub fn headers(&self) -> impl Iterator<Item = (&str, &str)> {
        self.headers.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// The body.
    #[must_use]
    pub fn body_bytes(&self) -> &[u8] {
        &self.body
    }
}

/// A value a function can succeed with.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a function's result",
    note = "succeed with a `VoiceResponse`, an `HttpReply`, or a value that implements `serde::Serialize`"
)]
pub trait IntoReply {
    /// Converts into a reply; a value that cannot be serialized is an error.
    ///
    /// # Errors
    /// The value cannot be serialized to JSON.
    fn into_reply(self) -> Result<Reply, Error>;
}

impl<T: Serialize> IntoReply for T {
    fn into_reply(self) -> Result<Reply, Error> {
        serde_json::to_value(self)
            .map(Reply::Json)
            .map_err(|e| Error::msg(format!("the result cannot be serialized: {e}")).with_source(e))
    }
}

impl IntoReply for HttpReply {
    fn into_reply(self) -> Result<Reply, Error> {
        Ok(Reply::Http(self))
    }
}

impl IntoReply for crate::voice::VoiceResponse {
    fn into_reply(self) -> Result<Reply, Error> {
        let (workflow_sid, queue) = self.enqueued().unwrap_or_default();
        let (workflow_sid, queue) = (workflow_sid.map(str::to_owned), queue.map(str::to_owned));
        let (xml, built_end) = self.to_xml_marked();
        Ok(Reply::Voice(VoiceReply {
            xml,
            built_end,
            response: self,
            workflow_sid,
            queue,
        }))
    }
}

impl IntoReply for &crate::voice::VoiceResponse {
    fn into_reply(self) -> Result<Reply, Error> {
        self.clone().into_reply()
    }
}

/// A voice document as returned, with what the voice records log of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoiceReply {
    xml: String,
    /// Where the document as first built stops being the beginning of
    /// `xml`, when it does (see `VoiceResponse::to_xml_marked`).
    built_end: Option<usize>,
    /// The response it was written from, for the document as first built
    /// (written only when asked for).
    response: crate::voice::VoiceResponse,
    workflow_sid: Option<String>,
    queue: Option<String>,
}

impl VoiceReply {
    /// The document as returned.
    #[must_use]
    pub fn xml(&self) -> &str {
        &self.xml
    }

    /// The document as returned, moved out (the response it was written
    /// from dropped): the body of the answer.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    pub(crate) fn into_xml(self) -> String {
        self.xml
    }

    /// The document as first built (see
    /// [`crate::voice::VoiceResponse::mark_built`]).
    #[must_use]
    pub fn built(&self) -> Option<&str> {
        if self.response.unchanged_since_built() {
            Some(&self.xml)
        } else if let Some(end) = self.built_end {
            self.response.built_from(&self.xml, end)
        } else {
            self.response.built()
        }
    }

    /// How many bytes the document as first built has in common with the
    /// document as returned, at its beginning, known without comparing
    /// them: all of it when unchanged, the verbs it kept else (0 when
    /// unknown).
    pub(crate) fn built_in_common(&self) -> usize {
        if self.response.unchanged_since_built() {
            self.xml.len()
        } else {
            self.built_end.unwrap_or(0)
        }
    }

    /// The `workflowSid` of the first `<Enqueue>`.
    #[must_use]
    pub fn workflow_sid(&self) -> Option<&str> {
        self.workflow_sid.as_deref()
    }

    /// The queue name of the first `<Enqueue>`.
    #[must_use]
    pub fn queue(&self) -> Option<&str> {
        self.queue.as_deref()
    }
}

impl IntoReply for Reply {
    fn into_reply(self) -> Result<Reply, Error> {
        Ok(self)
    }
}

/// What a `#[contact_fn]` handler may return: a [`Completion`], or a
/// `Result<Completion, E>` whose error converts into [`Error`] (so `?`
/// works in the handler).
#[diagnostic::on_unimplemented(
    message = "a `#[contact_fn]` handler must return `Completion` or `Result<Completion, E>`, not `{Self}`",
    note = "complete through the callback: `callback.success(..)` or `callback.error(..)`; for `Result<Completion, E>`, `E` must convert into `ccfn_core::Error`"
)]
pub trait IntoCompletion {
    /// Converts into a completion.
    fn into_completion(self) -> Result<Reply, Error>;
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Result<Reply, Error> {
        self.result
    }
}

impl<E: Into<Error>> IntoCompletion for Result<Completion, E> {
    fn into_completion(self) -> Result<Reply, Error> {
        match self {
            Ok(completion) => completion.result,
            Err(error) => {
                let error: Error = error.into();
                // Made by the conversion above (the handler returned another
                // error type): where it arose is unknown, not this line.
                let here = error.location().is_some_and(|at| at.file() == file!());
                Err(if here { error.unlocated() } else { error })
            }
        }
    }
}

/// The bits of `value` mixed (SplitMix64's finaliser): one to one, so
/// that different counts give different numbers, each bit of the result
/// depending on every bit of `value`.
fn mix(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The identifier of one invocation: in every record of it, and in the
/// `x-ccfn-invocation-id` response header.
///
/// Twenty-four lowercase hexadecimal digits, held inline: copying one
/// (into the callback, the invocation's records, the response header)
/// allocates nothing.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct InvocationId([u8; InvocationId::LEN]);

impl InvocationId {
    /// How many digits an identifier has.
    const LEN: usize = 24;

    /// A new identifier, unique in this process and unlikely to repeat
    /// across processes.
    #[must_use]
    pub fn new() -> Self {
        use std::hash::{BuildHasher, RandomState};
        use std::sync::atomic::{AtomicU64, Ordering};
        use std::sync::OnceLock;
        // Random for each process, once.
        static SEED: OnceLock<u64> = OnceLock::new();
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        let seed = *SEED.get_or_init(|| RandomState::new().hash_one(0u64));
        let random = mix(seed ^ count);
        // `{random:016x}{count as u32:08x}`, without the formatter.
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut hex = [0u8; InvocationId::LEN];
        let (high, low) = hex.split_at_mut(16);
        for (at, digit) in high.iter_mut().enumerate() {
            *digit = HEX[((random >> (4 * (15 - at))) & 0xF) as usize];
        }
        let count = count as u32;
        for (at, digit) in low.iter_mut().enumerate() {
            *digit = HEX[((count >> (4 * (7 - at))) & 0xF) as usize];
        }
        InvocationId(hex)
    }

    /// The identifier `text` spells, when it is one (as
    /// [`InvocationId::as_str`] writes it): what a response's
    /// `x-ccfn-invocation-id` header carries back.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        let bytes: [u8; InvocationId::LEN] = text.as_bytes().try_into().ok()?;
        bytes
            .iter()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            .then_some(InvocationId(bytes))
    }

    /// The identifier as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        // Only ASCII digits are ever written into it (see `new`): tested
        // as ASCII, three words, where `from_utf8` costs ten times as much.
        if self.0.is_ascii() {
            // SAFETY: ASCII is UTF-8.
            unsafe { std::str::from_utf8_unchecked(&self.0) }
        } else {
            ""
        }
    }
}

impl From<InvocationId> for crate::record::scope::IdText {
    fn from(id: InvocationId) -> Self {
        crate::record::scope::IdText::Inline(id.0)
    }
}

impl Default for InvocationId {
    fn default() -> Self {
        InvocationId::new()
    }
}

impl fmt::Display for InvocationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for InvocationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InvocationId({})", self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voice::VoiceResponse;

    /// The document as first built, made from the document as returned,
    /// is the one its verbs write, whatever was added since and around.
    #[test]
    fn the_document_as_first_built_is_the_one_its_verbs_write() {
        type Change = fn(&mut VoiceResponse);
        let starts: [Change; 4] = [
            |_| {},
            |t| {
                t.say("Hi & <bye> \"all\"");
            },
            |t| {
                t.gather().say("Press 1");
                t.pause();
            },
            |t| {
                t.comment_before("b").comment_after("a").comment_after("a2");
                t.comment("c").say("x");
            },
        ];
        let changes: [Change; 6] = [
            |_| {},
            |t| {
                t.say("more");
            },
            |t| {
                t.comment("later");
            },
            |t| {
                t.comment_after("after");
            },
            |t| {
                t.comment_before("before").hangup();
            },
            |t| {
                t.redirect("/next");
                t.comment_after("z");
            },
        ];
        for start in starts {
            for change in changes {
                let mut twiml = VoiceResponse::new();
                start(&mut twiml);
                twiml.mark_built();
                change(&mut twiml);
                // Written from its verbs, as when no document is at hand.
                let expected = twiml.clone().built().map(str::to_owned);
                let Ok(Reply::Voice(voice)) = twiml.into_reply() else {
                    panic!("a voice reply");
                };
                assert_eq!(voice.built().map(str::to_owned), expected);
                let built = voice.built().unwrap_or_default();
                let common = voice.built_in_common();
                assert_eq!(voice.xml()[..common], built[..common]);
            }
        }
    }

    #[test]
    fn an_invocation_id_reads_back_from_its_text_only() {
        let id = InvocationId::new();
        assert_eq!(InvocationId::parse(id.as_str()), Some(id));
        assert_eq!(InvocationId::parse(&id.as_str()[1..]), None);
        assert_eq!(InvocationId::parse(&id.as_str().to_uppercase()), None);
        assert_eq!(InvocationId::parse("zzzzzzzzzzzzzzzzzzzzzzzz"), None);
    }

    #[test]
    fn success_and_error_make_completions() {
        let ok = Callback::new(InvocationId::new()).success(serde_json::json!({"ok": true}));
        assert_eq!(
            ok.into_completion().unwrap(),
            Reply::Json(serde_json::json!({"ok": true}))
        );
        let err = Callback::new(InvocationId::new()).error(Error::msg("no"));
        assert_eq!(err.into_completion().unwrap_err().message(), "no");
    }

    #[test]
    fn unserializable_result_is_an_error() {
        let mut map = std::collections::HashMap::new();
        map.insert((1, 2), "tuple keys are not JSON");
        let result = Callback::new(InvocationId::new())
            .success(map)
            .into_completion();
        assert!(result
            .unwrap_err()
            .message()
            .starts_with("the result cannot be serialized"));
    }

    #[test]
    fn result_of_completion_converts() {
        let failed: Result<Completion, std::io::Error> = Err(std::io::Error::other("disk"));
        let error = failed.into_completion().unwrap_err();
        assert_eq!(error.message(), "disk");
        // Converted here, on the handler's behalf: where it arose is not
        // known, and the stack says no line of ccfn's.
        assert!(error.location().is_none());
        assert_eq!(error.stack(), "function: disk");
        let http = HttpReply::new(201).header("a", "b").body("c");
        let reply = Callback::new(InvocationId::new())
            .success(http)
            .into_completion()
            .unwrap();
        assert_eq!(
            reply.to_log_json(),
            serde_json::json!({"status": 201, "body": "c"})
        );
    }

    #[test]
    fn invocation_ids_are_unique() {
        let a = InvocationId::new();
        let b = InvocationId::new();
        assert_ne!(a, b);
        assert_eq!(a.as_str().len(), 24);
        assert!(a
            .as_str()
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        // The last eight digits count invocations (other tests may make
        // some in between).
        let count = |id: &InvocationId| u32::from_str_radix(&id.as_str()[16..], 16).unwrap();
        assert!(count(&b) > count(&a));
    }

    #[test]
    fn consecutive_counts_mix_to_unrelated_numbers() {
        let mixed: std::collections::HashSet<u64> = (0..10_000).map(super::mix).collect();
        assert_eq!(mixed.len(), 10_000);
        // Neighbours differ in about half their bits.
        let flipped = (super::mix(41) ^ super::mix(42)).count_ones();
        assert!((16..=48).contains(&flipped), "{flipped}");
    }
}
