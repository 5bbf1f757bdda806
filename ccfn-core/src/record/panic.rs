//! Panics inside a handler: caught, described, and kept out of standard
//! error (the `error` record carries them, scrubbed, instead).

use std::any::Any;
use std::backtrace::BacktraceStatus;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::sync::Once;
use std::task::{Context, Poll};

thread_local! {
    static IN_HANDLER: Cell<bool> = const { Cell::new(false) };
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs, once per process, a panic hook that records where a handler
/// panicked (and the backtrace, when `CCFN_BACKTRACE` is `on`) for the
/// `error` record; every other panic is reported on standard error as the
/// default hook would, with every secret value scrubbed.
pub(crate) fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(move |info| {
            if IN_HANDLER.with(Cell::get) {
                let mut stack = match info.location() {
                    Some(at) => format!("panicked at {}:{}:{}", at.file(), at.line(), at.column()),
                    None => "panicked".to_string(),
                };
                let backtrace = crate::error::backtrace_here();
                if backtrace.status() == BacktraceStatus::Captured {
                    stack.push_str("\nbacktrace:\n");
                    stack.push_str(&backtrace.to_string());
                }
                LAST.with(|last| *last.borrow_mut() = Some(stack));
            } else {
                // Not a handler's: report it as the default hook would, but
                // scrubbed, since the message may quote a secret.
                let thread = std::thread::current();
                let mut text = format!("thread '{}' {info}", thread.name().unwrap_or("<unnamed>"));
                let backtrace = crate::error::backtrace_here();
                if backtrace.status() == BacktraceStatus::Captured {
                    text.push_str(&format!("\nstack backtrace:\n{backtrace}"));
                }
                crate::secret::scrub(&mut text, &[]);
                eprintln!("{text}");
            }
        }));
    });
}

/// Where the last handler panic on this thread happened, taken.
pub(crate) fn take_location() -> Option<String> {
    LAST.with(|last| last.borrow_mut().take())
}

/// The message of a panic payload.
pub(crate) fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

pin_project_lite::pin_project! {
    /// Polls the handler's future with the hook told that a panic belongs
    /// to a handler.
    pub(crate) struct InHandler<F> {
        #[pin]
        future: F,
    }
}

impl<F> InHandler<F> {
    pub(crate) fn new(future: F) -> Self {
        InHandler { future }
    }
}

impl<F: Future> Future for InHandler<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        struct Reset(bool);
        impl Drop for Reset {
            fn drop(&mut self) {
                IN_HANDLER.with(|flag| flag.set(self.0));
            }
        }
        let _reset = Reset(IN_HANDLER.with(|flag| flag.replace(true)));
        self.project().future.poll(cx)
    }
}
