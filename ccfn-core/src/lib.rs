//! Write, test and operate the serverless functions behind a voice contact
//! center: annotate a plain async handler with [`contact_fn`] and get every
//! line of the logging contract, compile-time checks of the pre-deployment
//! checklist, and a runtime that serves it.
//!
//! # Example
//!
//! ```
//! use ccfn_core::prelude::*;
//!
//! /// Greets the caller and says goodbye.
//! ///
//! /// # Trigger
//! /// Incoming call webhook of the support number.
//! /// # Dependencies
//! /// None.
//! /// # Critical logging
//! /// None beyond the contract.
//! /// # Contacts
//! /// contact-center-oncall@example.com
//! #[contact_fn(required = [CallSid, From, To])]
//! async fn greeting(_context: Context, event: Event, callback: Callback) -> Completion {
//!     callback.success(serde_json::json!({ "greeted": event.from() }))
//! }
//!
//! assert_eq!(greeting::META.name(), "greeting");
//! assert_eq!(greeting::META.required(), ["CallSid", "From", "To"]);
//! ```
//!
//! # What the contract logs
//!
//! Each invocation writes `start`, `validation` (begin and passed),
//! `processing`, `caller`, the business steps, `metrics`, `success` or
//! `error`, and `end`; a missing parameter writes `validation_error` and
//! completes with `Missing required parameter: <name>`. Every record is a
//! `tracing` event with a stable `step` field, written in the human or the
//! JSON-lines format with every secret value scrubbed. See
//! `docs/logging-contract.md`.
#![doc(test(attr(deny(warnings))))]

mod background;
mod callback;
mod context;
mod contract;
pub mod email;
mod error;
mod event;
mod function;
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzz;
pub mod http;
mod json;
mod log;
mod meta;
pub mod metrics;
mod panic;
pub mod params;
pub mod record;
pub mod runtime;
mod secret;
pub mod signature;
pub mod taskrouter;
pub mod voice;

pub use callback::{
    Callback, Completion, IntoCompletion, IntoReply, InvocationId, Outcome, Reply, Response,
    VoiceReply,
};
pub use context::{Context, ContextBuilder, Thresholds};
pub use contract::BoxFuture;
pub use error::{Error, ErrorKind};
pub use event::{Event, DEFAULT_MODE};
pub use function::ContactFunction;
pub use log::{
    init_logging, init_logging_to, init_logging_with, parse_filter, ContractLayer, LogFormat,
    LogGuard, LOG_QUEUE_LINES,
};
pub use meta::{FunctionMeta, Kind};
pub use secret::{is_sensitive_name, redact_json, Secret, MIN_SCRUBBED_LEN, REDACTED};
pub use voice::VoiceResponse;

#[doc(inline)]
pub use ccfn_macros::contact_fn;

/// What a function module needs: `use ccfn_core::prelude::*;`.
pub mod prelude {
    pub use crate::{
        contact_fn, Callback, Completion, Context, Error, Event, Response, VoiceResponse,
    };
}

/// Support for the code `#[contact_fn]` generates. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::contract::{run, BoxFuture};
    pub use crate::meta::meta;

    /// Installs the hook that keeps handler panics out of standard error
    /// and records where they happened; the testkit calls it.
    pub fn install_panic_hook() {
        crate::panic::install_hook();
    }

    /// A handler parameter's declared type, which must be `Expected`.
    #[diagnostic::on_unimplemented(
        message = "this parameter of a `#[contact_fn]` handler must be `{Expected}`, not `{Self}`",
        label = "must be `{Expected}`",
        note = "a handler takes `(context: Context, event: Event, callback: Callback)`, in this order"
    )]
    pub trait Param<Expected> {
        /// The argument as the handler declares it.
        fn from_arg(arg: Expected) -> Self;
    }

    macro_rules! params {
        ($($ty:ty),*) => {$(
            #[diagnostic::do_not_recommend]
            impl Param<$ty> for $ty {
                fn from_arg(arg: $ty) -> Self {
                    arg
                }
            }
        )*};
    }
    params!(crate::Context, crate::Event, crate::Callback);

    /// Passes a handler its argument; spanned at the parameter's type, so a
    /// wrong type is reported there.
    pub fn param<T: Param<U>, U>(arg: U) -> T {
        T::from_arg(arg)
    }

    /// The handler's future, unchanged; spanned at its return type, so a
    /// wrong return type is reported there.
    pub fn completion<F>(future: F) -> F
    where
        F: core::future::Future,
        F::Output: crate::IntoCompletion,
    {
        future
    }

    /// Whether `required` holds `CallSid`, `From` and `To`.
    ///
    /// `#[contact_fn]` checks this itself, except when it takes an
    /// identifier for a misspelled call parameter (`Frm`) and leaves it to
    /// rustc; the expansion then asserts this at compile time, in case that
    /// identifier is a well-known parameter after all.
    #[must_use]
    pub const fn has_voice_params(required: &[&str]) -> bool {
        contains(required, "CallSid") && contains(required, "From") && contains(required, "To")
    }

    /// `names.contains(&name)`, in a `const fn`.
    const fn contains(names: &[&str], name: &str) -> bool {
        let mut i = 0;
        while i < names.len() {
            if eq(names[i].as_bytes(), name.as_bytes()) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// `a == b`, in a `const fn`.
    const fn eq(a: &[u8], b: &[u8]) -> bool {
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
}
