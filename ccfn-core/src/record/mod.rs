//! The records ccfn writes: the catalogue of steps (what each record is),
//! how a record is emitted, and the layer that hands every record to its
//! sinks ([`ContractLayer`]: lines in a [`LogFormat`], values in
//! [`Captured`], the inspector, OpenTelemetry), which [`init_logging`]
//! installs for the process, with every secret value
//! scrubbed: what counts as a sensitive name ([`is_sensitive_name`]), what
//! takes a redacted value's place ([`REDACTED`]), and how short a secret
//! may be and not be scrubbed ([`MIN_SCRUBBED_LEN`]). Below everything but
//! the text and secret helpers.
//!
//! The catalogue defines every step ccfn writes, once, in one table. Each
//! entry gives the step's name (the `step` field of its records), the
//! levels it is written at, the fields every one of its records has, the
//! fields some have, which of them the brief human format shows on the
//! record's line (each marked `#[headline]`), and what it is for (its doc
//! comment). From that one entry come:
//!
//! - the public [`Step`] (in [`ALL`]), which `ccfn-testkit` checks every
//!   record against ([`violations`]) and a test compares with
//!   `docs/logging-contract.md`;
//! - a struct with one field per record field, by name, each of its own
//!   type, which is the only way ccfn's own code emits a record of the
//!   step: a field misspelt, missing, not defined or of the wrong type is
//!   a compile error, not a test failure;
//! - the `tracing` event that carries every field, so that any layer can
//!   read them.
//!
//! How a record is written, in words: ccfn's code builds the step's
//! struct, borrowing each value where it lives, and calls `emit`. `emit`
//! finds the [`ContractLayer`] of the current `tracing` dispatcher and
//! hands it the record; the layer adds the time and the invocation's
//! identity and hands the same record to each sink, which writes it in
//! its own form, straight from the typed fields: the JSON line (written
//! once, shared by every sink that wants it, such as the inspector), the
//! human line, the span event, the captured value. Then, unless ccfn
//! installed the layer alone, `emit` emits the record's `tracing` event
//! for any other layer. A handler's own `tracing` event reaches the layer
//! as an event and becomes a record of step `log`.
//!
//! To add a step, add its entry to the table.
//!
//! ```
//! use ccfn_core::record::{self, Step};
//!
//! let start: &Step = record::step("start").unwrap();
//! assert_eq!(start.fields(), ["event", "domain"]);
//! assert!(record::ALL.iter().any(|step| step.name() == "critical"));
//! assert!(record::step("no-such-step").is_none());
//! ```

pub(crate) mod background;
pub(crate) mod buffer;
mod captured;
pub(crate) mod catalogue;
pub(crate) mod emit;
pub(crate) mod entry;
pub(crate) mod fields;
mod format;
mod install;
pub(crate) mod layer;
pub(crate) mod panic;
pub(crate) mod scope;
pub(crate) mod value;

pub use crate::secret::{
    display_url, is_sensitive_name, redact_url_userinfo, register_url_secrets, scrub_secrets,
    scrubbed, MIN_SCRUBBED_LEN, REDACTED, SENSITIVE_WORDS,
};
pub use captured::Captured;
pub use catalogue::*;
#[cfg(any(feature = "clients", feature = "runtime"))]
pub(crate) use emit::emit_at;
pub(crate) use emit::flush_debug_lines;
pub(crate) use emit::{emit, emit_parts, enabled};
#[cfg_attr(not(feature = "runtime"), allow(unused_imports))]
pub(crate) use entry::Entry;
pub use format::LogFormat;
#[cfg_attr(not(feature = "runtime"), allow(unused_imports))]
pub(crate) use install::init_logging_beside;
pub use install::{
    init_logging, init_logging_to, init_logging_with, parse_filter, LogGuard, LOG_QUEUE_LINES,
};
pub use layer::ContractLayer;
pub(crate) use layer::SPAN_NAME;
#[cfg_attr(not(feature = "runtime"), allow(unused_imports))]
pub(crate) use layer::{Lines, Sink};
pub(crate) use scope::{InInvocation, Invocation};
