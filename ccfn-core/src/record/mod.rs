//! The records ccfn writes: the catalogue of steps (what each record is),
//! how a record becomes a `tracing` event, and the layer that writes the
//! events as lines ([`ContractLayer`], in a [`LogFormat`]), which
//! [`init_logging`] installs for the process, with every secret value
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
//! - a struct with one field per record field, by name, which is the only
//!   way ccfn's own code emits a record of the step: a field misspelt,
//!   missing or not defined is a compile error, not a test failure;
//! - the `tracing` event that carries every field, so that any layer can
//!   read them.
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
pub(crate) mod catalogue;
pub(crate) mod emit;
pub(crate) mod fields;
pub(crate) mod panic;
pub(crate) mod scope;
pub(crate) mod writer;

pub use crate::secret::{
    display_url, is_sensitive_name, redact_url_userinfo, register_url_secrets, scrub_secrets,
    scrubbed, MIN_SCRUBBED_LEN, REDACTED, SENSITIVE_WORDS,
};
pub use catalogue::*;
#[cfg(any(feature = "clients", feature = "runtime"))]
pub(crate) use emit::emit_at;
pub(crate) use emit::flush_debug_lines;
pub(crate) use emit::{emit, enabled, SPAN_NAME};
pub(crate) use fields::Field;
pub(crate) use scope::{InInvocation, Invocation};
pub use writer::{
    init_logging, init_logging_to, init_logging_with, parse_filter, ContractLayer, LogFormat,
    LogGuard, LOG_QUEUE_LINES,
};
