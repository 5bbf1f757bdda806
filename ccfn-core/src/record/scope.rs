//! The invocation a thread is polling: its identity and deadline, and the
//! values its records must not show.

use super::background;
use crate::secret::scrub;

/// No values to scrub beyond the registered secrets.
const NONE: &[Box<str>] = &[];

/// Scrubs `text` of every registered secret, and of the values of the
/// invocation this thread is polling: how a record's fields reach layers
/// other than ccfn's own.
pub(crate) fn scrub_for_current(text: &mut String) {
    if CURRENT.is_set() {
        CURRENT.with(|invocation| scrub(text, &invocation.secrets));
    } else {
        scrub(text, NONE);
    }
}

/// An invocation's identifier: the ASCII text of its own, held inline
/// (see `InvocationId`), or the text a span gave.
pub(crate) enum IdText {
    Inline([u8; 24]),
    Given(String),
}

impl IdText {
    pub(crate) fn as_str(&self) -> &str {
        match self {
            // Asked for by every record: an ASCII test of three words,
            // where `from_utf8` costs ten times as much.
            IdText::Inline(bytes) if bytes.is_ascii() => {
                // SAFETY: ASCII is UTF-8.
                unsafe { std::str::from_utf8_unchecked(bytes) }
            }
            IdText::Inline(_) => "",
            IdText::Given(text) => text,
        }
    }
}

impl From<String> for IdText {
    fn from(text: String) -> Self {
        IdText::Given(text)
    }
}

impl From<&str> for IdText {
    fn from(text: &str) -> Self {
        IdText::Given(text.to_owned())
    }
}

/// Which levels of contract records a subscriber writes, in one byte: bit
/// `n` for level `n` (`ERROR` to `TRACE`), [`LevelBits::NO_LAYER`] when
/// it has no contract layer, [`LevelBits::KNOWN`] once asked.
pub(crate) struct LevelBits;

impl LevelBits {
    pub(crate) const KNOWN: u8 = 0x80;
    pub(crate) const NO_LAYER: u8 = 0x20;

    /// The byte for `levels` (`None`: no contract layer).
    pub(crate) fn of(levels: Option<[bool; 5]>) -> u8 {
        levels.map_or(LevelBits::NO_LAYER, |levels| {
            (0..5).fold(0, |bits, at| bits | (u8::from(levels[at]) << at))
        })
    }
}

/// The invocation a span stands for.
pub(crate) struct Invocation {
    /// The function's name: its own `'static` one, or the text a span gave.
    pub(super) function: std::borrow::Cow<'static, str>,
    pub(super) invocation_id: IdText,
    pub(super) call_sid: Option<String>,
    /// Values scrubbed from this invocation's lines only (see
    /// [`crate::secret::invocation_secrets`]).
    pub(super) secrets: Vec<Box<str>>,
    /// The identity as JSON members, written once for all its lines
    /// (when the first is written).
    json: std::sync::OnceLock<JsonIdentity>,
    /// When the function times out, for the clients to stop before it.
    deadline: Option<std::time::Instant>,
    /// The queue the first task it created went to, as the task router
    /// answered (its name, else its SID), for `taskrouter_config`.
    routed_queue: std::sync::OnceLock<String>,
    /// Which levels of contract records the logging it runs under writes,
    /// read once (see [`Invocation::level_bits`]).
    levels: std::sync::atomic::AtomicU8,
    /// The subscriber its records are handed to, when it has ccfn's
    /// layer: found once (see [`Invocation::subscriber`]).
    subscriber: std::sync::OnceLock<Option<tracing::Dispatch>>,
    /// Where its `debug` lines are held back, when they are.
    debug_buffer: Option<super::buffer::DebugBuffer>,
    /// What the process's observer carries for it while it runs (see
    /// [`crate::observe`]): under OpenTelemetry, its span's context.
    observed: Option<Box<dyn std::any::Any + Send + Sync>>,
    /// The Lambda invocation it serves, when it runs on Lambda.
    pub(super) lambda: Option<OnLambda>,
}

/// The Lambda invocation a function's invocation serves: what joins its
/// records with the platform's own lines (`REPORT`).
#[derive(Clone, Debug)]
#[cfg_attr(not(feature = "lambda"), allow(dead_code))]
pub(crate) struct OnLambda {
    /// The platform's request id (`Lambda-Runtime-Aws-Request-Id`).
    pub(crate) request_id: String,
    /// Whether it is the first invocation of the process.
    pub(crate) cold_start: bool,
}

tokio::task_local! {
    /// The Lambda invocation being served, set around the router's
    /// handling of its request.
    static ON_LAMBDA: OnLambda;
}

/// Runs `future` (the handling of one Lambda invocation's request) with
/// `lambda` at hand for every invocation it starts.
#[cfg(feature = "lambda")]
pub(crate) async fn on_lambda<F: std::future::Future>(lambda: OnLambda, future: F) -> F::Output {
    ON_LAMBDA.scope(lambda, future).await
}

impl Invocation {
    pub(crate) fn new(
        function: impl Into<std::borrow::Cow<'static, str>>,
        invocation_id: impl Into<IdText>,
        call_sid: Option<String>,
        secrets: Vec<Box<str>>,
    ) -> Self {
        Invocation {
            function: function.into(),
            invocation_id: invocation_id.into(),
            call_sid,
            secrets,
            json: std::sync::OnceLock::new(),
            deadline: None,
            routed_queue: std::sync::OnceLock::new(),
            levels: std::sync::atomic::AtomicU8::new(0),
            subscriber: std::sync::OnceLock::new(),
            debug_buffer: None,
            observed: None,
            lambda: ON_LAMBDA.try_with(OnLambda::clone).ok(),
        }
    }

    /// The same invocation, carrying `observed` for the process's
    /// observer.
    pub(crate) fn with_observed(
        mut self,
        observed: Option<Box<dyn std::any::Any + Send + Sync>>,
    ) -> Self {
        self.observed = observed;
        self
    }

    /// What it carries for the observer, when that is a `T`: how the
    /// observer finds its own again (a copy: it is a handle). Unused
    /// without an exporter built in.
    #[allow(dead_code)]
    pub(crate) fn observed<T: std::any::Any + Clone>(&self) -> Option<T> {
        self.observed_ref().cloned()
    }

    /// What it carries for the observer, when that is a `T`, borrowed.
    #[allow(dead_code)]
    pub(crate) fn observed_ref<T: std::any::Any>(&self) -> Option<&T> {
        self.observed.as_deref()?.downcast_ref::<T>()
    }

    /// The same invocation, knowing already which levels of contract
    /// records are written ([`LevelBits::of`]).
    pub(crate) fn with_level_bits(self, bits: u8) -> Self {
        self.levels.store(
            bits | LevelBits::KNOWN,
            std::sync::atomic::Ordering::Relaxed,
        );
        self
    }

    /// Which levels of contract records the logging it runs under writes,
    /// as [`LevelBits`]: `ask` is asked the first time only.
    #[inline]
    pub(super) fn level_bits(&self, ask: impl FnOnce() -> u8) -> u8 {
        use std::sync::atomic::Ordering::Relaxed;
        let bits = self.levels.load(Relaxed);
        if bits & LevelBits::KNOWN != 0 {
            return bits;
        }
        let bits = ask() | LevelBits::KNOWN;
        self.levels.store(bits, Relaxed);
        bits
    }

    /// The subscriber its records are handed to, as `find` finds it the
    /// first time: an invocation runs under one subscriber, as it writes
    /// one set of levels.
    pub(super) fn subscriber(
        &self,
        find: impl FnOnce() -> Option<tracing::Dispatch>,
    ) -> Option<&tracing::Dispatch> {
        self.subscriber.get_or_init(find).as_ref()
    }

    /// Whether the process's observer follows it (its records are then
    /// also an exporter's).
    fn is_observed(&self) -> bool {
        self.observed.is_some()
    }

    /// The function invoked.
    pub(crate) fn function(&self) -> &str {
        &self.function
    }

    /// The same invocation, holding back up to `bytes` of the `debug`
    /// lines of the crate of `module_path` (none for `0`).
    pub(crate) fn with_debug_buffer(mut self, bytes: u64, module_path: &'static str) -> Self {
        self.debug_buffer = super::buffer::DebugBuffer::new(bytes, module_path);
        self
    }

    /// Where its `debug` lines are held back, when they are.
    pub(super) fn debug_buffer(&self) -> Option<&super::buffer::DebugBuffer> {
        self.debug_buffer.as_ref()
    }

    /// The same invocation, timing out at `deadline`.
    pub(crate) fn with_deadline(mut self, deadline: std::time::Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    pub(super) fn json(&self) -> &JsonIdentity {
        self.json.get_or_init(|| {
            let mut identity = JsonIdentity::new(
                Some(&self.function),
                Some(self.invocation_id.as_str()),
                self.call_sid.as_deref(),
                self.lambda.as_ref(),
            );
            // Scrubbed once for all its lines (the call SID is the
            // caller's to choose): searched whole, each part scrubbed
            // only when the search finds anything.
            identity.join();
            if crate::secret::touched(&identity.whole, &self.secrets) {
                for part in [
                    &mut identity.function_and_id,
                    &mut identity.call_sid,
                    &mut identity.lambda,
                ] {
                    scrub(part, &self.secrets);
                }
                identity.join();
            }
            identity
        })
    }
}

/// `,"function":…,"invocation_id":…`, `,"call_sid":…` and
/// `,"function_request_id":…,"cold_start":…` as written in a JSON line
/// (each empty when absent), and the three together, as most lines write
/// them (empty until [`JsonIdentity::join`]).
pub(super) struct JsonIdentity {
    pub(super) function_and_id: String,
    pub(super) call_sid: String,
    pub(super) lambda: String,
    pub(super) whole: String,
}

impl JsonIdentity {
    pub(super) fn new(
        function: Option<&str>,
        invocation_id: Option<&str>,
        call_sid: Option<&str>,
        lambda: Option<&OnLambda>,
    ) -> Self {
        use crate::text::json::push_str;
        let member = |out: &mut String, name: &str, value: Option<&str>| {
            if let Some(value) = value {
                out.push_str(",\"");
                out.push_str(name);
                out.push_str("\":");
                push_str(out, value);
            }
        };
        // Each made at its size, with the room `push_str` asks for (see
        // `string_room`): grown, each would be allocated again.
        let room = |texts: &[Option<&str>]| {
            texts
                .iter()
                .map(|text| 32 + crate::text::json::string_room(text.map_or(0, str::len)))
                .sum::<usize>()
        };
        let mut function_and_id = String::with_capacity(room(&[function, invocation_id]));
        member(&mut function_and_id, "function", function);
        member(&mut function_and_id, "invocation_id", invocation_id);
        let mut call_sid_member = String::new();
        if call_sid.is_some() {
            call_sid_member.reserve(room(&[call_sid]));
        }
        member(&mut call_sid_member, "call_sid", call_sid);
        let mut lambda_members = String::new();
        if let Some(lambda) = lambda {
            member(
                &mut lambda_members,
                "function_request_id",
                Some(&lambda.request_id),
            );
            lambda_members.push_str(if lambda.cold_start {
                ",\"cold_start\":true"
            } else {
                ",\"cold_start\":false"
            });
        }
        JsonIdentity {
            function_and_id,
            call_sid: call_sid_member,
            lambda: lambda_members,
            whole: String::new(),
        }
    }

    /// Makes [`JsonIdentity::whole`]: for an invocation's identity, whose
    /// lines each write it.
    pub(super) fn join(&mut self) {
        self.whole = [&*self.function_and_id, &self.call_sid, &self.lambda].concat();
    }

    /// Appends the identity as a line writes it: without the call when
    /// the record has its own.
    pub(crate) fn write(&self, out: &mut String, own_call_sid: bool) {
        if !own_call_sid && !self.whole.is_empty() {
            out.push_str(&self.whole);
            return;
        }
        out.push_str(&self.function_and_id);
        if !own_call_sid {
            out.push_str(&self.call_sid);
        }
        out.push_str(&self.lambda);
    }
}

scoped_tls::scoped_thread_local!(static CURRENT: std::sync::Arc<Invocation>);

/// Whether this thread is polling an invocation now.
pub(crate) fn in_invocation() -> bool {
    CURRENT.is_set()
}

/// Whether the invocation this thread is polling is followed by the
/// process's observer (its records are then an exporter's too).
pub(crate) fn observed_now() -> bool {
    CURRENT.is_set() && CURRENT.with(|invocation| invocation.is_observed())
}

/// Runs `f` as `invocation`: its records, and the invocation span made in
/// it (which then carries it, see `ContractLayer::on_new_span`), are
/// that invocation's.
pub(crate) fn within<R>(invocation: &std::sync::Arc<Invocation>, f: impl FnOnce() -> R) -> R {
    CURRENT.set(invocation, f)
}

/// When the invocation this thread is polling times out, if it is polling
/// one.
#[cfg_attr(not(feature = "clients"), allow(dead_code))]
pub(crate) fn invocation_deadline() -> Option<std::time::Instant> {
    if CURRENT.is_set() {
        CURRENT.with(|invocation| invocation.deadline)
    } else {
        None
    }
}

/// Notes that the invocation this thread is polling created a task that
/// went to `queue` (the first such task is the one kept).
#[cfg_attr(not(feature = "clients"), allow(dead_code))]
pub(crate) fn note_routed_queue(queue: &str) {
    if CURRENT.is_set() {
        CURRENT.with(|invocation| {
            let _ = invocation.routed_queue.set(queue.to_owned());
        });
    }
}

/// The queue the first task of the invocation this thread is polling
/// went to, when it created one.
pub(crate) fn routed_queue() -> Option<String> {
    if CURRENT.is_set() {
        CURRENT.with(|invocation| invocation.routed_queue.get().cloned())
    } else {
        None
    }
}

pin_project_lite::pin_project! {
    /// Polls an invocation's future inside its span, when it has one, with
    /// its identity (and the values its lines must not show) at hand for
    /// the layer, which then need not look it up among the spans; and
    /// drops it so too, so that an invocation cancelled while it runs
    /// closes its records as its own.
    pub(crate) struct InInvocation<F> {
        invocation: std::sync::Arc<Invocation>,
        // Entered only when there is one: an invocation without a span
        // (no layer reads it) pays nothing for it.
        span: Option<tracing::Span>,
        #[pin]
        future: Option<F>,
    }

    impl<F> PinnedDrop for InInvocation<F> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            let mut future = this.future;
            let _entered = this.span.as_ref().map(tracing::Span::enter);
            CURRENT.set(this.invocation, || future.set(None));
        }
    }
}

impl<F> InInvocation<F> {
    /// `future`, run as `invocation` inside `span` (none when
    /// [`tracing::Span::is_none`]; made [`within`] the invocation, so
    /// that it carries it).
    pub(crate) fn new(
        invocation: std::sync::Arc<Invocation>,
        span: tracing::Span,
        future: F,
    ) -> Self {
        InInvocation {
            invocation,
            span: (!span.is_none()).then_some(span),
            future: Some(future),
        }
    }
}

impl<F: std::future::Future> std::future::Future for InInvocation<F> {
    type Output = F::Output;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let this = self.project();
        let Some(future) = this.future.as_pin_mut() else {
            unreachable!("an invocation's future is only gone once dropped")
        };
        let _entered = this.span.as_ref().map(tracing::Span::enter);
        // The lines of this poll go to the writer together.
        background::batched(|| CURRENT.set(this.invocation, || future.poll(cx)))
    }
}

/// Calls `f` with the invocation this thread is polling; only while
/// [`in_invocation`].
pub(crate) fn with_current<R>(f: impl FnOnce(&Invocation) -> R) -> R {
    CURRENT.with(|invocation| f(invocation))
}

/// [`with_current`], shared: for what keeps it past the poll.
pub(crate) fn with_current_shared<R>(f: impl FnOnce(&std::sync::Arc<Invocation>) -> R) -> R {
    CURRENT.with(f)
}

/// Whether the invocation this thread polls holds back `debug` lines of
/// `metadata`'s target.
pub(super) fn holds_now(metadata: &tracing::Metadata<'_>) -> bool {
    *metadata.level() == tracing::Level::DEBUG
        && metadata.is_event()
        && CURRENT.is_set()
        && CURRENT.with(|invocation| {
            invocation
                .debug_buffer()
                .is_some_and(|buffer| buffer.holds(metadata.target()))
        })
}

/// Holds the fields of an event of `target`, logged at `timestamp`, in
/// the buffer of the invocation this thread polls (see [`holds_now`]).
pub(super) fn hold(target: &str, timestamp: &str, event: super::fields::EventVisitor) {
    let held = super::buffer::Held::new(timestamp, target, event);
    if CURRENT.is_set() {
        CURRENT.with(|invocation| {
            if let Some(buffer) = invocation.debug_buffer() {
                buffer.push(held);
            }
        });
    }
}

/// The lines the invocation this thread polls has held back, and how many
/// it dropped, leaving its buffer empty; `None` outside an invocation or
/// when it holds none back.
pub(super) fn take_held() -> Option<(std::collections::VecDeque<super::buffer::Held>, u64)> {
    if !CURRENT.is_set() {
        return None;
    }
    CURRENT.with(|invocation| {
        invocation
            .debug_buffer()
            .map(super::buffer::DebugBuffer::take)
    })
}

#[cfg(test)]
mod tests {
    use super::{IdText, Invocation, LevelBits};

    /// An invocation's identity is written whole, or without its call
    /// when the record has its own, the same joined or in pieces.
    #[test]
    fn an_identity_is_written_with_or_without_its_call() {
        let invocation = Invocation::new("f", "abc", Some("CA1".to_owned()), Vec::new());
        let mut pieces = super::JsonIdentity::new(Some("f"), Some("abc"), Some("CA1"), None);
        for identity in [invocation.json(), &pieces] {
            let written = |own_call_sid| {
                let mut out = String::new();
                identity.write(&mut out, own_call_sid);
                out
            };
            assert_eq!(
                written(false),
                r#","function":"f","invocation_id":"abc","call_sid":"CA1""#
            );
            assert_eq!(written(true), r#","function":"f","invocation_id":"abc""#);
        }
        pieces.join();
        assert_eq!(
            pieces.whole,
            r#","function":"f","invocation_id":"abc","call_sid":"CA1""#
        );
    }

    /// An identifier held inline reads as its text; bytes that are not
    /// ASCII (never written by `InvocationId`) read as nothing.
    #[test]
    fn an_inline_identifier_reads_as_its_ascii_text() {
        let id = crate::function::callback::InvocationId::new();
        assert_eq!(IdText::from(id).as_str(), id.as_str());
        assert_eq!(id.as_str().len(), 24);
        let mut bytes = *b"0123456789abcdef01234567";
        assert_eq!(IdText::Inline(bytes).as_str(), "0123456789abcdef01234567");
        bytes[23] = 0xC3;
        assert_eq!(IdText::Inline(bytes).as_str(), "");
        assert_eq!(IdText::from("given").as_str(), "given");
    }

    /// Every set of levels, and no layer at all, kept as given; the
    /// question asked the first time only.
    #[test]
    fn the_levels_are_asked_once_and_kept_as_given() {
        let every = (0..32u8).map(|bits| Some(std::array::from_fn(|at| bits & (1 << at) != 0)));
        for given in every.chain([None]) {
            let invocation = Invocation::new("f", "abc", None, Vec::new());
            let mut asked = 0;
            let bits = invocation.level_bits(|| {
                asked += 1;
                LevelBits::of(given)
            });
            assert_eq!(invocation.level_bits(|| unreachable!("asked again")), bits);
            assert_eq!(asked, 1);
            let told = Invocation::new("f", "abc", None, Vec::new())
                .with_level_bits(LevelBits::of(given))
                .level_bits(|| unreachable!("told already"));
            assert_eq!(told, bits);
            assert_eq!(bits & LevelBits::NO_LAYER != 0, given.is_none());
            for at in 0..5 {
                let on = given.is_some_and(|levels| levels[at]);
                assert_eq!(bits & (1 << at) != 0, on, "{given:?} {at}");
            }
        }
    }
}
