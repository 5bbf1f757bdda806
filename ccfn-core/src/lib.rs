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

mod callback;
mod context;
mod contract;
mod error;
mod event;
mod function;
mod log;
mod meta;
pub mod metrics;
mod panic;
pub mod params;
pub mod runtime;
mod secret;
pub mod signature;
pub mod voice;

pub use callback::{
    Callback, Completion, IntoCompletion, IntoReply, InvocationId, Outcome, Reply, Response,
};
pub use context::{Context, ContextBuilder, Thresholds};
pub use contract::BoxFuture;
pub use error::{Error, ErrorKind};
pub use event::{Event, DEFAULT_MODE};
pub use function::ContactFunction;
pub use log::{
    init_logging, init_logging_with, parse_filter, ContractLayer, LogFormat, LogGuard,
    LOG_QUEUE_LINES,
};
pub use meta::{FunctionMeta, Kind};
pub use secret::{is_sensitive_name, Secret, REDACTED};
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
}

/// The README's example compiles.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
