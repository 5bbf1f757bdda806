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
//!
//! # Names
//!
//! Each item has one path; the [`prelude`] is the only second one. The
//! crate root holds what a handler names: [`contact_fn`], its parameters
//! [`Context`], [`Event`] and [`Callback`], the [`Completion`] it returns
//! (how the invocation ended), the [`Reply`] it succeeded with, and
//! [`Error`], [`ErrorKind`], [`ResultExt`] (`.context(..)` on a result)
//! and [`Secret`]. Everything else is in the module of its concept, but
//! for [`tracing`], the macros of the `tracing` crate the records are
//! written with.
//!
//! # Layers and features
//!
//! The crate is built in layers, each using only those below it (a test
//! reads the sources and fails on any import that points upwards):
//!
//! | layer | modules | feature |
//! |---|---|---|
//! | text and secrets | [`Secret`], [`params`], [`signature`] | always |
//! | the configuration | [`config`] (every variable ccfn reads, [`config::ConfigError`]) | always |
//! | the voice markup | [`voice`] | always |
//! | records and their writer | [`record`] (the steps, [`record::init_logging`], [`record::ContractLayer`], what is scrubbed) | always |
//! | OpenTelemetry export, below the records' writer, which adds each record to its invocation's span | `otel` (traces and metrics over OTLP/HTTP, one trace per call; see `docs/observability.md`) | `otel` |
//! | the function model and its contract | [`contact_fn`], [`Context`] ([`context`]), [`Event`], [`Callback`], [`Completion`], [`Reply`] ([`reply`]), [`Error`], [`function`] (what the runtime and the testkit run) | always |
//! | the clients | `http`, `email`, `taskrouter` (`context.http()`, ...) | `clients` (default) |
//! | the runtime | `runtime` | `runtime` (default); `lambda` adds AWS Lambda |
//!
//! The clients reach the context through its extension slot
//! ([`context::Extension`]), so the function model does not depend on
//! them. A crate that only writes and tests functions that call nothing
//! can leave both out: `ccfn-core = { default-features = false }`.
#![doc(test(attr(deny(warnings))))]

// The layers, each depending only on those listed before it (checked by
// `tests/it/layers.rs`): text and secrets; the configuration; the voice markup; the records and
// their writer; the function model and its contract; the clients; the
// runtime.
#[doc(hidden)]
pub mod __private;
#[cfg(feature = "clients")]
mod client;
pub mod config;
mod error;
pub mod function;
// Built in tests too, so that a change to a parser it wraps cannot
// leave the fuzz targets broken unnoticed.
#[cfg(any(fuzzing, all(test, feature = "runtime")))]
#[doc(hidden)]
pub mod fuzz;
mod observe;
#[cfg(feature = "otel")]
pub mod otel;
pub mod params;
pub mod record;
#[cfg(feature = "runtime")]
pub mod runtime;
mod secret;
pub mod signature;
mod text;
// Public through `http` with the clients; the exporters' alone without.
#[cfg(any(feature = "clients", feature = "otel"))]
#[cfg_attr(not(feature = "clients"), allow(unreachable_pub, dead_code))]
mod tls;
pub mod voice;

#[cfg(feature = "clients")]
pub use client::{email, http, taskrouter};
pub use error::{error_chain, Error, ErrorKind, ResultExt};
pub use function::callback::{Callback, Completion, Reply};
pub use function::context::Context;
pub use function::event::Event;
pub use secret::Secret;

#[doc(inline)]
pub use ccfn_macros::contact_fn;

pub mod tracing {
    //! The macros of the `tracing` crate, the very version ccfn writes its
    //! records with: a function's own events
    //! (`ccfn_core::tracing::info!(queue = "support", "routed")`) are
    //! records of step `log` in the invocation's stream, with its
    //! `function`, `invocation_id` and `call_sid`, and every secret
    //! scrubbed. Through this path a project needs no `tracing`
    //! dependency of its own to keep in step with ccfn's.
    //!
    //! The macros of each level (`trace!` to `error!`, and `info_span!`
    //! and the like), `enabled!` and [`Level`] are here; `tracing`'s
    //! modules and types are not (nor `event!` and `span!`, which share
    //! their names with modules), so that none of them shares a name with
    //! ccfn's own: [`Event`](crate::Event) is the handler's event, not
    //! `tracing::Event`, and compiler messages keep naming it `Event`.
    //!
    //! ```
    //! use ccfn_core::prelude::*;
    //!
    //! /// Routes the caller to the support queue.
    //! ///
    //! /// # Trigger
    //! /// Studio "Run Function" widget.
    //! /// # Dependencies
    //! /// None.
    //! /// # Critical logging
    //! /// None beyond the contract.
    //! /// # Contacts
    //! /// contact-center-oncall@example.com
    //! #[contact_fn(required = [CallSid], kind = generic)]
    //! async fn route(_context: Context, _event: Event, callback: Callback) -> Completion {
    //!     ccfn_core::tracing::info!(queue = "support", "routed");
    //!     if ccfn_core::tracing::enabled!(ccfn_core::tracing::Level::DEBUG) {
    //!         ccfn_core::tracing::debug!(attempt = 1, "asked");
    //!     }
    //!     callback.success(serde_json::json!({ "queue": "support" }))
    //! }
    //! # let _ = route;
    //! ```

    pub use ::tracing::{
        debug, debug_span, enabled, error, error_span, info, info_span, trace, trace_span, warn,
        warn_span, Level,
    };
}

/// What goes with the function [`Context`]: its builder, its alert
/// thresholds and its extension slot.
pub mod context {
    pub use crate::function::context::{ContextBuilder, Extension, Thresholds};
}

pub mod reply {
    //! What a function replies with, beside a JSON value or markup: a
    //! reply with its own status, headers and body ([`HttpReply`]), the
    //! voice document of [`Reply::Voice`](crate::Reply::Voice)
    //! ([`VoiceReply`]), and the values
    //! [`Callback::success`](crate::Callback::success) accepts
    //! ([`IntoReply`]).

    pub use crate::function::callback::{HttpReply, IntoReply, VoiceReply};
}

pub mod prelude {
    //! What a function module needs, with `use ccfn_core::prelude::*;`:
    //! the [`contact_fn`] attribute, a handler's parameters ([`Context`],
    //! [`Event`], [`Callback`]) and return type ([`Completion`]), its
    //! [`Error`] with `.context(..)` ([`ResultExt`](crate::ResultExt)), and
    //! the replies it builds beside JSON ([`VoiceResponse`], [`HttpReply`]),
    //! and the platform's parameter names ([`params`], for
    //! `event.required(params::To)`).

    pub use crate::params;
    pub use crate::reply::HttpReply;
    pub use crate::voice::VoiceResponse;
    pub use crate::ResultExt as _;
    pub use crate::{contact_fn, Callback, Completion, Context, Error, Event};
}
