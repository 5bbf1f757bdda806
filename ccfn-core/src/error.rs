//! The error a function completes with, and the configuration error a
//! start-up reports.

use std::any::Any;
use std::backtrace::{Backtrace, BacktraceStatus};
use std::error::Error as StdError;
use std::fmt;

/// What went wrong, in the terms the runtime answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A required parameter is missing (HTTP 400).
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
/// causes and a backtrace (captured when `RUST_BACKTRACE` or
/// `RUST_LIB_BACKTRACE` asks for one).
///
/// Any `std::error::Error` converts into it, so `?` works in handlers that
/// return `Result<Completion, ccfn_core::Error>`:
///
/// ```
/// use ccfn_core::{Error, ErrorKind};
///
/// fn parse(priority: &str) -> Result<u32, Error> {
///     Ok(priority.parse::<u32>()?)
/// }
/// let error = parse("high").unwrap_err();
/// assert_eq!(error.kind(), ErrorKind::Function);
/// assert_eq!(error.message(), "invalid digit found in string");
/// ```
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn StdError + Send + Sync + 'static>>,
    backtrace: Backtrace,
}

impl Error {
    /// An error of `kind` with `message`; a backtrace is captured (when
    /// the environment asks for one) for function and upstream errors,
    /// where it shows where the error was made.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        let backtrace = match kind {
            ErrorKind::Function | ErrorKind::Upstream => Backtrace::capture(),
            _ => Backtrace::disabled(),
        };
        Error {
            kind,
            message: message.into(),
            source: None,
            backtrace,
        }
    }

    /// A function error with `message`.
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

    /// The message, exactly as the caller receives it.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error that caused this one, if any.
    #[must_use]
    pub fn source(&self) -> Option<&(dyn StdError + Send + Sync + 'static)> {
        self.source.as_deref()
    }

    /// The backtrace, captured when the environment asks for one.
    pub fn backtrace(&self) -> &Backtrace {
        &self.backtrace
    }

    /// The stack as logged in the `error` record: the message, each cause
    /// (`caused by: ..`), then the backtrace when one was captured.
    #[must_use]
    pub fn stack(&self) -> String {
        let mut stack = format!("{}: {}", self.kind.as_str(), self.message);
        let mut cause = self.source.as_deref().map(|e| e as &dyn StdError);
        // The first source usually repeats the message; skip it when it does.
        if let Some(first) = cause {
            if first.to_string() == self.message {
                cause = first.source();
            }
        }
        while let Some(error) = cause {
            stack.push_str("\ncaused by: ");
            stack.push_str(&error.to_string());
            cause = error.source();
        }
        if self.backtrace.status() == BacktraceStatus::Captured {
            stack.push_str("\nbacktrace:\n");
            stack.push_str(&self.backtrace.to_string());
        }
        stack
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind)
            .field("message", &self.message)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// The error as a `std::error::Error`, for `?` in code that returns
/// `Box<dyn std::error::Error + Send + Sync>` (a `main`, say).
///
/// ```
/// fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
///     let checked: Result<(), ccfn_core::Error> = Ok(());
///     checked?;
///     Ok(())
/// }
/// ```
impl From<Error> for Box<dyn StdError + Send + Sync + 'static> {
    fn from(error: Error) -> Self {
        Box::new(StdErrorAdapter(error))
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

impl StdError for StdErrorAdapter {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.0
            .source
            .as_deref()
            .map(|e| e as &(dyn StdError + 'static))
    }
}

/// Any error as a function error, but a [`ConfigError`], which becomes a
/// configuration error (`?` on a setting reports a deployment fault, never
/// a request's).
impl<E: StdError + Send + Sync + 'static> From<E> for Error {
    fn from(error: E) -> Self {
        let is_config = (&error as &dyn Any).is::<ConfigError>();
        let (kind, backtrace) = if is_config {
            (ErrorKind::Configuration, Backtrace::disabled())
        } else {
            (ErrorKind::Function, Backtrace::capture())
        };
        Error {
            kind,
            message: error.to_string(),
            source: Some(Box::new(error)),
            backtrace,
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
    fn converts_into_a_boxed_std_error_with_its_source() {
        let io = std::io::Error::other("connection reset");
        let error = Error::new(ErrorKind::Upstream, "task router unreachable").with_source(io);
        let boxed: Box<dyn StdError + Send + Sync> = error.into();
        assert_eq!(boxed.to_string(), "task router unreachable");
        assert_eq!(boxed.source().unwrap().to_string(), "connection reset");
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
        assert_eq!(error.stack(), format!("configuration: {config}"));
        let io = Error::from(std::io::Error::other("x"));
        assert_eq!(io.kind(), ErrorKind::Function);
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
