//! Test ccfn functions: fake contexts and events, [`invoke`] with per-test
//! log capture, a one-call check of the whole logging contract, stable
//! snapshots of the records for `insta`, and fakes of the services a
//! function calls.
//!
//! # Fakes
//!
//! [`fake_email::FakeEmailProvider`], [`fake_task_router::FakeTaskRouter`]
//! and [`fake_api::FakeApi`] (your own APIs) serve real HTTP on loopback,
//! and each is made, pointed at, inspected and broken the same way:
//! `start().await`, `url()`, `requests()` (each a [`Request`]),
//! `fail_with(`[`FakeResponse`]`)` and `delay(..)`, `expect(n)` and
//! `verify()`, checked again when the fake is dropped (unless the test
//! is already panicking). [`FakeContext`] points a context at each.
//!
//! # Whole calls
//!
//! [`call::Call`] plays the platform's side of a phone call against a
//! runtime served on loopback: the caller dials, hears, presses, speaks,
//! waits (in simulated time) and hangs up; each invocation is captured
//! and checked like an [`invoke`]'s, and the transcript snapshots with
//! `insta`.
//!
//! # Example
//!
//! ```
//! use ccfn_core::prelude::*;
//! use ccfn_testkit::{invoke, FakeContext, FakeEvent};
//!
//! /// Tells the caller their position in the queue.
//! ///
//! /// # Trigger
//! /// Queue wait URL.
//! /// # Dependencies
//! /// None.
//! /// # Critical logging
//! /// None beyond the contract.
//! /// # Contacts
//! /// oncall@example.com
//! #[contact_fn(required = [CallSid, From, To])]
//! async fn position(_context: Context, _event: Event, callback: Callback) -> Completion {
//!     let mut twiml = VoiceResponse::new();
//!     twiml.say("You are next.");
//!     callback.success(twiml)
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let run = invoke(position, FakeContext::new(), FakeEvent::voice()).await;
//! run.assert_contract();
//! assert_eq!(
//!     run.steps(),
//!     [
//!         "start", "validation", "validation", "processing", "caller", "flow",
//!         "voice_response", "voice_response", "taskrouter_config",
//!         "metrics", "success", "end",
//!     ]
//! );
//! # });
//! ```
#![doc(test(attr(deny(warnings))))]

pub mod call;
mod capture;
pub mod contract;
mod fake;
pub mod fake_api;
pub mod fake_email;
pub mod fake_task_router;
mod loopback;
mod redact;
mod request;
mod run;

pub use capture::{BufferWriter, LogBuffer};
pub use fake::{
    FakeContext, FakeEvent, DEFAULT_CONTEXT, FAKE_AUTH_TOKEN, FAKE_EMAIL_KEY, VOICE_EVENT,
};
pub use loopback::ClosedPort;
pub use redact::{record as redact, snapshot_settings};
pub use request::{FakeResponse, Request};
pub use run::{invoke, Record, Run};

/// What ccfn's own fakes outside this crate share with these: not API, no
/// semver promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::loopback::{answer, lock, read, record, verify, Book, Server};
}
