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

/// The invocation a span stands for.
pub(crate) struct Invocation {
    pub(super) function: String,
    pub(super) invocation_id: String,
    pub(super) call_sid: Option<String>,
    /// Values scrubbed from this invocation's lines only (see
    /// [`crate::secret::invocation_secrets`]).
    pub(super) secrets: Vec<Box<str>>,
    /// The identity as JSON members, written once for all its lines
    /// (when the first is written).
    json: std::sync::OnceLock<JsonIdentity>,
    /// When the function times out, for the clients to stop before it.
    deadline: Option<std::time::Instant>,
}

impl Invocation {
    pub(crate) fn new(
        function: String,
        invocation_id: String,
        call_sid: Option<String>,
        secrets: Vec<Box<str>>,
    ) -> Self {
        Invocation {
            function,
            invocation_id,
            call_sid,
            secrets,
            json: std::sync::OnceLock::new(),
            deadline: None,
        }
    }

    /// The same invocation, timing out at `deadline`.
    pub(crate) fn with_deadline(mut self, deadline: std::time::Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    pub(super) fn json(&self) -> &JsonIdentity {
        self.json.get_or_init(|| {
            JsonIdentity::new(
                Some(&self.function),
                Some(&self.invocation_id),
                self.call_sid.as_deref(),
            )
        })
    }
}

/// `,"function":…,"invocation_id":…` and `,"call_sid":…` as written in a
/// JSON line (each empty when absent).
pub(super) struct JsonIdentity {
    pub(super) function_and_id: String,
    pub(super) call_sid: String,
}

impl JsonIdentity {
    pub(super) fn new(
        function: Option<&str>,
        invocation_id: Option<&str>,
        call_sid: Option<&str>,
    ) -> Self {
        let member = |name: &str, value: Option<&str>| {
            let mut out = String::new();
            if let Some(value) = value {
                out.push(',');
                crate::text::json::push_str(&mut out, name);
                out.push(':');
                crate::text::json::push_str(&mut out, value);
            }
            out
        };
        JsonIdentity {
            function_and_id: member("function", function) + &member("invocation_id", invocation_id),
            call_sid: member("call_sid", call_sid),
        }
    }
}

scoped_tls::scoped_thread_local!(static CURRENT: Invocation);

/// Whether this thread is polling an invocation now.
pub(crate) fn in_invocation() -> bool {
    CURRENT.is_set()
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

pin_project_lite::pin_project! {
    /// Polls an invocation's future with its identity (and the values its
    /// lines must not show) at hand for the layer, which then need not look
    /// it up among the spans.
    pub(crate) struct InInvocation<F> {
        invocation: Invocation,
        #[pin]
        future: F,
    }
}

impl<F> InInvocation<F> {
    pub(crate) fn new(invocation: Invocation, future: F) -> Self {
        InInvocation { invocation, future }
    }
}

impl<F: std::future::Future> std::future::Future for InInvocation<F> {
    type Output = F::Output;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let this = self.project();
        // The lines of this poll go to the writer together.
        background::batched(|| CURRENT.set(this.invocation, || this.future.poll(cx)))
    }
}

/// Calls `f` with the invocation this thread is polling; only while
/// [`in_invocation`].
pub(super) fn with_current<R>(f: impl FnOnce(&Invocation) -> R) -> R {
    CURRENT.with(f)
}
