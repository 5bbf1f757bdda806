//! The error a function completes with, and the configuration error a
//! start-up reports.

use std::backtrace::{Backtrace, BacktraceStatus};
use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether errors and panics capture a backtrace: ccfn's own switch
/// (`CCFN_BACKTRACE`, set by the runtime), so that a `RUST_BACKTRACE`
/// exported in a shell does not make every error record long and slow.
static BACKTRACES: AtomicBool = AtomicBool::new(false);

/// A backtrace of here, boxed, when capture is on.
fn captured_here() -> Option<Box<Backtrace>> {
    let backtrace = backtrace_here();
    (backtrace.status() == BacktraceStatus::Captured).then(|| Box::new(backtrace))
}

/// Turns backtrace capture on or off for the process.
#[cfg(feature = "runtime")]
pub(crate) fn capture_backtraces(on: bool) {
    BACKTRACES.store(on, Ordering::Relaxed);
}

/// A backtrace of here when capture is on; a disabled one otherwise.
pub(crate) fn backtrace_here() -> Backtrace {
    if BACKTRACES.load(Ordering::Relaxed) {
        Backtrace::force_capture()
    } else {
        Backtrace::disabled()
    }
}

/// What went wrong, in the terms the runtime answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// What the request sent cannot be used (HTTP 400): a required
    /// parameter is missing, a value is invalid, or what it names is too
    /// large to attach to an email.
    Validation,
    /// A setting or a required environment value is missing or cannot be
    /// used: a deployment fault (HTTP 500), never a request's fault. Every
    /// [`ConfigError`] converts into an error of this kind.
    Configuration,
    /// The function failed (HTTP 500).
    Function,
    /// The function panicked (HTTP 500).
    Panic,
    /// The function ran past its timeout (HTTP 504).
    Timeout,
    /// An external call failed (HTTP 500).
    Upstream,
    /// The invocation was dropped before it completed: the client went
    /// away, or the server stopped after its shutdown grace.
    Cancelled,
}

impl ErrorKind {
    /// The HTTP status the runtime answers an invocation that failed with
    /// this kind: 400 for [`ErrorKind::Validation`], 504 for
    /// [`ErrorKind::Timeout`], 500 for every other.
    #[must_use]
    pub const fn http_status(self) -> u16 {
        match self {
            ErrorKind::Validation => 400,
            ErrorKind::Timeout => 504,
            _ => 500,
        }
    }

    /// The kind's name in log records.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Validation => "validation",
            ErrorKind::Configuration => "configuration",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Function => "function",
            ErrorKind::Panic => "panic",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Upstream => "upstream",
        }
    }
}

/// The error a function completes with: a message, a kind, the chain of
/// causes and a backtrace (captured when the runtime's `CCFN_BACKTRACE` is
/// `on`; `RUST_BACKTRACE` has no say).
///
/// Whatever a `Box<dyn std::error::Error + Send + Sync>` can be made of
/// converts into it: any `std::error::Error + Send + Sync`, a `&str`, a
/// `String`, and such a box itself. So `?` works in handlers that return
/// `Result<Completion, ccfn_core::Error>`, and so do
/// `Result<Completion, String>` and
/// `Result<Completion, Box<dyn std::error::Error + Send + Sync>>`:
///
/// ```
/// use ccfn_core::{Error, ErrorKind};
///
/// fn parse(priority: &str) -> Result<u32, Error> {
///     if priority.is_empty() {
///         return Err("no priority given".into());
///     }
///     Ok(priority.parse::<u32>()?)
/// }
/// let error = parse("high").unwrap_err();
/// assert_eq!(error.kind(), ErrorKind::Function);
/// assert_eq!(error.message(), "invalid digit found in string");
/// assert_eq!(parse("").unwrap_err().message(), "no priority given");
/// ```
///
/// [`ResultExt::context`] says what was being done, as anyhow's does. For
/// that reason `Error` is not itself a `std::error::Error` (the blanket
/// conversion above would then convert it into itself);
/// [`Error::into_boxed_dyn_error`] gives one, with the same message and
/// causes. Its `Debug` reads as a sentence with its causes, so a `main`
/// that returns `Result<(), ccfn_core::Error>` prints a readable error;
/// `{:#?}` shows the fields.
pub struct Error {
    kind: ErrorKind,
    message: String,
    /// What the caller is told, when not the message.
    caller_message: Option<Cow<'static, str>>,
    /// Whether a voice function that fails with it says the caller message
    /// and succeeds, as a handler that handled it would.
    spoken: bool,
    source: Option<Box<dyn StdError + Send + Sync + 'static>>,
    /// Boxed, and only when captured: most errors have none, and an
    /// error stays small enough to return by value.
    backtrace: Option<Box<Backtrace>>,
    /// Where the error arose: the code that made it, or the `?` that
    /// converted it (recorded whatever `CCFN_BACKTRACE` says; a pointer).
    location: Option<&'static Location<'static>>,
}

impl Error {
    /// An error of `kind` with `message`; a backtrace is captured (when
    /// `CCFN_BACKTRACE` is `on`) for function and upstream errors, where
    /// it shows where the error was made.
    /// Every URL in `message` (as in the messages of
    /// [`Error::context`] and of converted errors) is kept as
    /// [`crate::record::display_url`] shows it: no user information, no
    /// sensitive query value.
    ///
    /// Where it is called is the error's [`Error::location`].
    #[track_caller]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        let backtrace = match kind {
            ErrorKind::Function | ErrorKind::Upstream => captured_here(),
            _ => None,
        };
        Error {
            kind,
            message: shown(message.into()),
            caller_message: None,
            spoken: false,
            source: None,
            backtrace,
            location: Some(Location::caller()),
        }
    }

    /// A function error with `message`.
    #[track_caller]
    pub fn msg(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Function, message)
    }

    /// Attaches the error that caused this one.
    #[must_use]
    pub fn with_source(mut self, source: impl StdError + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// What went wrong.
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The whole message, as the `error` record logs it.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What the caller is told (the `message` of the runtime's JSON
    /// answer): the message of a validation, configuration, function or
    /// timeout error; for an upstream error or a panic, which can carry
    /// another service's answer, an internal URL or a caller's number,
    /// a short text that says what failed (an email provider's error
    /// says `email provider error (status 501)`). The whole message is in
    /// the `error` record, under the id the answer carries.
    ///
    /// ```
    /// use ccfn_core::{Error, ErrorKind};
    ///
    /// let error = Error::new(ErrorKind::Upstream, "GET https://crm.internal/customers?phone=%2B15550100 failed: connection refused");
    /// assert_eq!(error.caller_message(), "upstream service error");
    /// let error = error.with_caller_message("CRM unavailable");
    /// assert_eq!(error.caller_message(), "CRM unavailable");
    /// assert_eq!(Error::msg("the queue is closed").caller_message(), "the queue is closed");
    /// ```
    #[must_use]
    pub fn caller_message(&self) -> &str {
        match (&self.caller_message, self.kind) {
            (Some(message), _) => message,
            (None, ErrorKind::Upstream) => "upstream service error",
            (None, ErrorKind::Panic) => "function panicked",
            (None, _) => &self.message,
        }
    }

    /// Sets what the caller is told (see [`Error::caller_message`]).
    #[must_use]
    pub fn with_caller_message(mut self, message: impl Into<Cow<'static, str>>) -> Self {
        self.caller_message = Some(message.into());
        self
    }

    /// The same error, which a voice function answers by saying the caller
    /// message (and succeeding) rather than by failing.
    #[cfg_attr(not(feature = "clients"), allow(dead_code))]
    pub(crate) fn spoken(mut self) -> Self {
        self.spoken = true;
        self
    }

    /// Whether a voice function answers this error by saying the caller
    /// message (see [`Error::spoken`]).
    pub(crate) fn is_spoken(&self) -> bool {
        self.spoken
    }

    /// This error, said to have happened while doing `context`: the
    /// message becomes `context: message`; kind, causes and backtrace
    /// stay. See [`ResultExt`].
    #[must_use]
    pub fn context(mut self, context: impl fmt::Display) -> Self {
        self.message = shown(format!("{context}: {}", self.message));
        self
    }

    /// This error as a `std::error::Error`, with the same message and
    /// causes, for code that returns
    /// `Box<dyn std::error::Error + Send + Sync>`; converting the box back
    /// into an [`Error`] gives this one again.
    ///
    /// ```
    /// use ccfn_core::{Error, ErrorKind};
    ///
    /// fn start() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    ///     let checked: Result<(), Error> = Ok(());
    ///     checked.map_err(Error::into_boxed_dyn_error)?;
    ///     Ok(())
    /// }
    /// start().unwrap();
    ///
    /// let boxed = Error::new(ErrorKind::Upstream, "unreachable").into_boxed_dyn_error();
    /// assert_eq!(Error::from(boxed).kind(), ErrorKind::Upstream);
    /// ```
    #[must_use]
    pub fn into_boxed_dyn_error(self) -> Box<dyn StdError + Send + Sync + 'static> {
        Box::new(StdErrorAdapter(self))
    }

    /// The error that caused this one, if any.
    #[must_use]
    pub fn source(&self) -> Option<&(dyn StdError + Send + Sync + 'static)> {
        self.source.as_deref()
    }

    /// The backtrace, captured when `CCFN_BACKTRACE` is `on`.
    pub fn backtrace(&self) -> &Backtrace {
        static DISABLED: Backtrace = Backtrace::disabled();
        self.backtrace.as_deref().unwrap_or(&DISABLED)
    }

    /// Where the error arose, whatever `CCFN_BACKTRACE` says: where
    /// [`Error::new`] or [`Error::msg`] was called, or the `?` (or
    /// `.into()`, [`ResultExt::context`]) that converted another error
    /// into this one. `None` when ccfn itself converted a handler's other
    /// error type (a handler that returns `Result<Completion, String>`).
    ///
    /// ```
    /// use ccfn_core::Error;
    ///
    /// fn parse(digits: &str) -> Result<u8, Error> {
    ///     Ok(digits.parse::<u8>()?)
    /// }
    /// let error = parse("x").unwrap_err();
    /// let at = error.location().unwrap();
    /// assert!(error.stack().ends_with(&format!("\nat {}:{}:{}", at.file(), at.line(), at.column())));
    /// ```
    #[must_use]
    pub fn location(&self) -> Option<&'static Location<'static>> {
        self.location
    }

    /// The same error, its location unknown: made by ccfn's own conversion
    /// of a handler's other error type, whose location would be ccfn's.
    pub(crate) fn unlocated(mut self) -> Self {
        self.location = None;
        self
    }

    /// Where [`Error::stack`] says the error arose: not for the errors
    /// the runtime makes itself (a panic, which names its own location,
    /// a timeout, a cancellation), whose location is ccfn's.
    fn shown_location(&self) -> Option<&'static Location<'static>> {
        match self.kind {
            ErrorKind::Panic | ErrorKind::Timeout | ErrorKind::Cancelled => None,
            _ => self.location,
        }
    }

    /// The chain of causes, without a first one that only repeats the
    /// message (as text made into an error does).
    fn causes(&self) -> impl Iterator<Item = &(dyn StdError + 'static)> {
        let first = self
            .source
            .as_deref()
            .map(|e| e as &(dyn StdError + 'static));
        let first = match first {
            Some(error) if error.to_string() == self.message => error.source(),
            other => other,
        };
        std::iter::successors(first, |&error| error.source())
    }

    /// The stack as logged in the `error` record: the message, each cause
    /// (`caused by: ..`), where the error arose (`at file:line:column`,
    /// see [`Error::location`]; not for a panic, a timeout or a
    /// cancellation), then the backtrace when one was captured.
    #[must_use]
    pub fn stack(&self) -> String {
        use fmt::Write as _;
        let mut stack = format!("{}: {}", self.kind.as_str(), self.message);
        for cause in self.causes() {
            stack.push_str("\ncaused by: ");
            stack.push_str(&cause.to_string());
        }
        if let Some(at) = self.shown_location() {
            let _ = write!(stack, "\nat {}:{}:{}", at.file(), at.line(), at.column());
        }
        if self.backtrace().status() == BacktraceStatus::Captured {
            stack.push_str("\nbacktrace:\n");
            stack.push_str(&self.backtrace().to_string());
        }
        stack
    }
}

/// An error's message with every URL in it shown as ccfn writes URLs
/// ([`crate::secret::display_url`]): an error's text is written, logged
/// or returned to a caller.
fn shown(message: String) -> String {
    match crate::secret::display_url(&message) {
        Cow::Borrowed(_) => message,
        Cow::Owned(shown) => shown,
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            return f
                .debug_struct("Error")
                .field("kind", &self.kind)
                .field("message", &self.message)
                .field("source", &self.source)
                .finish_non_exhaustive();
        }
        write!(f, "{} ({} error)", self.message, self.kind.as_str())?;
        for (at, cause) in self.causes().enumerate() {
            if at == 0 {
                f.write_str("\n\nCaused by:")?;
            }
            write!(
                f,
                "\n    {}",
                crate::secret::display_url(&cause.to_string())
            )?;
        }
        Ok(())
    }
}

/// An [`Error`] seen as a `std::error::Error` (it cannot implement the
/// trait itself, since every `std::error::Error` converts into it).
struct StdErrorAdapter(Error);

impl fmt::Debug for StdErrorAdapter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for StdErrorAdapter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// `error` and each error under it ([`std::error::Error::source`]) on one
/// line, joined by `: `; a cause whose text the line already holds is
/// said once (a client error often repeats its source's). What ccfn's
/// command and clients write for an error from a library.
///
/// ```
/// let io = std::io::Error::other("connection refused");
/// assert_eq!(ccfn_core::error_chain(&io), "connection refused");
/// ```
#[must_use]
pub fn error_chain(error: &dyn StdError) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
}

impl StdError for StdErrorAdapter {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.0
            .source
            .as_deref()
            .map(|e| e as &(dyn StdError + 'static))
    }
}

/// Any error, or text, as a function error; but a [`ConfigError`] becomes
/// a configuration error (`?` on a setting reports a deployment fault,
/// never a request's), and an [`Error`] that went through
/// [`Error::into_boxed_dyn_error`] comes back as it was.
impl<E: Into<Box<dyn StdError + Send + Sync + 'static>>> From<E> for Error {
    /// Located where it is called: the `?` that converts.
    #[track_caller]
    fn from(error: E) -> Self {
        let error: Box<dyn StdError + Send + Sync + 'static> = error.into();
        let error = match error.downcast::<StdErrorAdapter>() {
            Ok(adapter) => return adapter.0,
            Err(error) => error,
        };
        let message = shown(error.to_string());
        if error.is::<ConfigError>() {
            return Error {
                kind: ErrorKind::Configuration,
                message,
                caller_message: None,
                spoken: false,
                source: Some(error),
                backtrace: None,
                location: Some(Location::caller()),
            };
        }
        Error {
            kind: ErrorKind::Function,
            message,
            caller_message: None,
            spoken: false,
            source: Some(error),
            backtrace: captured_here(),
            location: Some(Location::caller()),
        }
    }
}

/// Says what was being done when an error happened, as anyhow's
/// `Context` does: on a `Result` whose error converts into an [`Error`],
/// and on an `Option` (whose `None` becomes a function error).
///
/// The new message is the context, a colon, and the error's own message;
/// the kind (upstream, validation, ...) and the causes stay.
///
/// ```
/// use ccfn_core::{Error, ErrorKind, ResultExt as _};
///
/// fn tier(level: &str) -> Result<u8, Error> {
///     level.parse::<u8>().context("reading the caller's tier")
/// }
/// let error = tier("gold").unwrap_err();
/// assert_eq!(error.message(), "reading the caller's tier: invalid digit found in string");
/// assert_eq!(error.kind(), ErrorKind::Function);
///
/// let upstream = Err::<(), _>(Error::new(ErrorKind::Upstream, "GET /customers answered 503"));
/// let error = upstream.with_context(|| format!("looking up {}", "the caller")).unwrap_err();
/// assert_eq!(error.kind(), ErrorKind::Upstream);
///
/// let missing: Option<&str> = None;
/// assert_eq!(missing.context("no queue configured").unwrap_err().message(), "no queue configured");
/// ```
pub trait ResultExt<T>: Sized {
    /// The error, said to have happened while doing `context`.
    ///
    /// # Errors
    /// `self` is an error (or `None`).
    fn context<C: fmt::Display>(self, context: C) -> Result<T, Error>;

    /// [`ResultExt::context`], the context made only on error.
    ///
    /// # Errors
    /// `self` is an error (or `None`).
    fn with_context<C: fmt::Display, F: FnOnce() -> C>(self, context: F) -> Result<T, Error>;
}

impl<T, E: Into<Error>> ResultExt<T> for Result<T, E> {
    #[track_caller]
    fn context<C: fmt::Display>(self, context: C) -> Result<T, Error> {
        match self {
            Ok(value) => Ok(value),
            Err(error) => Err(error.into().context(context)),
        }
    }

    #[track_caller]
    fn with_context<C: fmt::Display, F: FnOnce() -> C>(self, context: F) -> Result<T, Error> {
        match self {
            Ok(value) => Ok(value),
            Err(error) => Err(error.into().context(context())),
        }
    }
}

impl<T> ResultExt<T> for Option<T> {
    #[track_caller]
    fn context<C: fmt::Display>(self, context: C) -> Result<T, Error> {
        match self {
            Some(value) => Ok(value),
            None => Err(Error::msg(context.to_string())),
        }
    }

    #[track_caller]
    fn with_context<C: fmt::Display, F: FnOnce() -> C>(self, context: F) -> Result<T, Error> {
        match self {
            Some(value) => Ok(value),
            None => Err(Error::msg(context().to_string())),
        }
    }
}

/// A setting that cannot be used: its message names the variable, says
/// what it accepts and quotes the value (never a secret's). It converts
/// into an [`Error`] of kind [`ErrorKind::Configuration`]. See
/// [`crate::config`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    variable: Option<&'static str>,
    accepted: Option<String>,
    message: String,
}

impl ConfigError {
    /// An error about `variable` (none for a `.env` file that cannot be
    /// read), which accepts `accepted`, with the whole `message`.
    pub(crate) fn new(
        variable: Option<&'static str>,
        accepted: Option<String>,
        message: String,
    ) -> Self {
        ConfigError {
            variable,
            accepted,
            message,
        }
    }

    /// The variable to fix, when the error is about one.
    #[must_use]
    pub fn variable(&self) -> Option<&'static str> {
        self.variable
    }

    /// What the variable accepts, when the error is about the form of its
    /// value.
    #[must_use]
    pub fn accepted(&self) -> Option<&str> {
        self.accepted.as_deref()
    }

    /// The message.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl StdError for ConfigError {}

#[cfg(test)]
mod tests {
    /// An error that says `text`, caused by `source`.
    #[derive(Debug)]
    struct Chain(&'static str, Option<Box<Chain>>);

    impl fmt::Display for Chain {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Chain {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|c| c as _)
        }
    }

    #[test]
    fn a_chain_is_one_line_each_cause_said_once() {
        let chain = Chain(
            "error sending request: connection refused",
            Some(Box::new(Chain(
                "connection refused",
                Some(Box::new(Chain("os error 111", None))),
            ))),
        );
        assert_eq!(
            super::error_chain(&chain),
            "error sending request: connection refused: os error 111"
        );
        assert_eq!(super::error_chain(&Chain("alone", None)), "alone");
    }

    #[test]
    fn urls_in_messages_and_causes_are_shown_without_credentials() {
        let url = "https://ops:pw-canary-e1@crm.example.com/v1?access_token=tok-canary-e1&page=2";
        let shown = "https://[REDACTED]@crm.example.com/v1?access_token=[REDACTED]&page=2";
        let made = super::Error::new(super::ErrorKind::Upstream, format!("GET {url} failed"));
        assert_eq!(made.to_string(), format!("GET {shown} failed"));
        let with_context = super::Error::msg("x").context(url);
        assert_eq!(with_context.message(), format!("{shown}: x"));
        let converted = super::Error::from(std::io::Error::other(format!("no answer from {url}")));
        assert_eq!(converted.message(), format!("no answer from {shown}"));
        #[derive(Debug)]
        struct Cause(String);
        impl std::fmt::Display for Cause {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl std::error::Error for Cause {}
        let caused = super::Error::msg("failed").with_source(Cause(url.to_owned()));
        let debug = format!("{caused:?}");
        assert!(debug.contains(shown), "{debug}");
        assert!(!debug.contains("canary"), "{debug}");
    }

    use super::*;

    #[derive(Debug)]
    struct Outer(std::io::Error);
    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("could not read the recording")
        }
    }
    impl StdError for Outer {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn stack_lists_the_source_chain() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let error = Error::from(Outer(io));
        assert_eq!(error.message(), "could not read the recording");
        assert!(error
            .stack()
            .starts_with("function: could not read the recording\ncaused by: no such file"));
    }

    #[test]
    fn converts_into_a_boxed_std_error_with_its_source_and_back() {
        let io = std::io::Error::other("connection reset");
        let error = Error::new(ErrorKind::Upstream, "task router unreachable").with_source(io);
        let boxed = error.into_boxed_dyn_error();
        assert_eq!(boxed.to_string(), "task router unreachable");
        assert_eq!(boxed.source().unwrap().to_string(), "connection reset");
        let back = Error::from(boxed);
        assert_eq!(back.kind(), ErrorKind::Upstream);
        assert_eq!(back.message(), "task router unreachable");
        assert!(back.stack().contains("caused by: connection reset"));
    }

    #[test]
    fn text_and_boxed_errors_convert() {
        let from_str = Error::from("no digits");
        assert_eq!(
            (from_str.kind(), from_str.message()),
            (ErrorKind::Function, "no digits")
        );
        assert_eq!(
            format!("{from_str:?}"),
            "no digits (function error)",
            "the text is not repeated as its own cause"
        );
        assert_eq!(Error::from(String::from("owned")).message(), "owned");
        let boxed: Box<dyn StdError + Send + Sync> = Box::new(Outer(std::io::Error::other("gone")));
        let error = Error::from(boxed);
        assert_eq!(error.message(), "could not read the recording");
        assert!(error.stack().contains("caused by: gone"));
    }

    #[test]
    fn debug_reads_as_a_sentence_with_its_causes() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let error = Error::from(Outer(io)).context("sending the voicemail");
        assert_eq!(
            format!("{error:?}"),
            "sending the voicemail: could not read the recording (function error)\n\nCaused by:\n    could not read the recording\n    no such file"
        );
        let plain = Error::new(ErrorKind::Configuration, "AUTH_TOKEN is not set");
        assert_eq!(
            format!("{plain:?}"),
            "AUTH_TOKEN is not set (configuration error)"
        );
        assert!(format!("{plain:#?}").starts_with("Error {\n    kind: Configuration,"));
    }

    #[test]
    fn context_keeps_kind_and_causes() {
        let io = std::io::Error::other("connection reset");
        let error = Err::<(), _>(
            Error::new(ErrorKind::Upstream, "task router unreachable").with_source(io),
        )
        .context("creating the callback task")
        .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Upstream);
        assert_eq!(
            error.message(),
            "creating the callback task: task router unreachable"
        );
        assert!(error.stack().contains("caused by: connection reset"));
        let none: Option<u8> = None;
        let error = none.with_context(|| "no digits pressed").unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Function);
        assert_eq!(error.message(), "no digits pressed");
    }

    #[cfg(feature = "runtime")]
    #[test]
    fn backtraces_follow_ccfn_s_switch_not_the_environment() {
        // RUST_BACKTRACE may be set in the shell that runs the tests.
        assert_eq!(
            Error::msg("x").backtrace().status(),
            BacktraceStatus::Disabled
        );
        capture_backtraces(true);
        let captured = Error::msg("x").backtrace().status();
        let config = Error::new(ErrorKind::Validation, "x").backtrace().status();
        capture_backtraces(false);
        assert_eq!(captured, BacktraceStatus::Captured);
        assert_eq!(config, BacktraceStatus::Disabled);
    }

    #[test]
    fn only_function_and_upstream_errors_capture_a_backtrace() {
        for kind in [
            ErrorKind::Validation,
            ErrorKind::Timeout,
            ErrorKind::Panic,
            ErrorKind::Cancelled,
        ] {
            let error = Error::new(kind, "x");
            assert_eq!(
                error.backtrace().status(),
                BacktraceStatus::Disabled,
                "{kind:?}"
            );
        }
    }

    #[test]
    fn a_config_error_becomes_a_configuration_error() {
        let config = ConfigError::new(
            Some("CCFN_MODE"),
            Some("`local` or `production`".to_owned()),
            "CCFN_MODE=\"prod\": expected `local` or `production`".to_owned(),
        );
        let error = Error::from(config.clone());
        assert_eq!(error.kind(), ErrorKind::Configuration);
        assert_eq!(error.message(), config.message());
        assert_eq!(error.backtrace().status(), BacktraceStatus::Disabled);
        assert_eq!(
            error.stack(),
            format!(
                "configuration: {config}\nat {}:{}:{}",
                file!(),
                error.location().unwrap().line(),
                error.location().unwrap().column()
            )
        );
        let io = Error::from(std::io::Error::other("x"));
        assert_eq!(io.kind(), ErrorKind::Function);
    }

    /// The `at` line of `stack`, when there is one.
    fn at_line(stack: &str) -> Option<&str> {
        stack.lines().find(|line| line.starts_with("at "))
    }

    #[test]
    fn the_stack_says_where_the_error_arose_without_a_backtrace() {
        fn parse(digits: &str) -> Result<u32, Error> {
            Ok(digits.parse::<u32>()?)
        }
        let question_mark = line!() - 2;
        let error = parse("x").unwrap_err();
        assert_eq!(error.backtrace().status(), BacktraceStatus::Disabled);
        let at = error.location().unwrap();
        assert_eq!((at.file(), at.line()), (file!(), question_mark));
        assert_eq!(
            error.stack(),
            format!(
                "function: invalid digit found in string\nat {}:{question_mark}:{}",
                file!(),
                at.column()
            )
        );
        // Made here, by each constructor and conversion.
        let made = [
            (Error::new(ErrorKind::Upstream, "503"), line!()),
            (Error::msg("no digits"), line!()),
            (Error::from("text"), line!()),
            (
                Err::<(), _>(std::io::Error::other("reset"))
                    .context("reading")
                    .unwrap_err(),
                line!() - 2,
            ),
            (
                Err::<(), _>("text").with_context(|| "reading").unwrap_err(),
                line!() - 1,
            ),
            (None::<u8>.context("no queue").unwrap_err(), line!()),
            (
                Error::from(ConfigError::new(None, None, "x".into())),
                line!() - 1,
            ),
        ];
        for (error, line) in made {
            let at = error.location().unwrap();
            assert_eq!((at.file(), at.line()), (file!(), line), "{error:?}");
            let expected = format!("at {}:{line}:{}", file!(), at.column());
            assert_eq!(at_line(&error.stack()), Some(expected.as_str()));
        }
        // An error keeps where it arose through context.
        let kept = Err::<(), _>(Error::msg("first"))
            .context("then")
            .unwrap_err();
        assert_eq!(kept.location().unwrap().line(), line!() - 3);
        // `.into()` says where it is called, in generic code too.
        fn generic<E: Into<Error>>(error: E) -> Error {
            error.into()
        }
        let line = line!() - 2;
        assert_eq!(generic(String::from("x")).location().unwrap().line(), line);
        // Unknown: no `at` line.
        let unlocated = Error::msg("x").unlocated();
        assert_eq!(
            (unlocated.location(), at_line(&unlocated.stack())),
            (None, None)
        );
        // The runtime's own errors name no location of ccfn's.
        for kind in [ErrorKind::Panic, ErrorKind::Timeout, ErrorKind::Cancelled] {
            assert_eq!(at_line(&Error::new(kind, "x").stack()), None, "{kind:?}");
        }
    }

    #[test]
    fn the_location_comes_before_the_backtrace() {
        let io = std::io::Error::other("connection reset");
        let error = Error::new(ErrorKind::Upstream, "unreachable").with_source(io);
        let stack = error.stack();
        let lines: Vec<&str> = stack.lines().collect();
        assert_eq!(
            lines[..2],
            ["upstream: unreachable", "caused by: connection reset"]
        );
        assert!(lines[2].starts_with(&format!("at {}:", file!())), "{stack}");
    }

    #[test]
    fn with_source_keeps_message_and_adds_cause() {
        let io = std::io::Error::other("connection reset");
        let error = Error::new(ErrorKind::Upstream, "task router unreachable").with_source(io);
        assert_eq!(error.kind(), ErrorKind::Upstream);
        assert_eq!(error.to_string(), "task router unreachable");
        assert!(error.stack().contains("caused by: connection reset"));
        assert!(error.source().is_some());
    }
}
