//! The records ccfn writes: the catalogue of steps (what each record is),
//! how a record becomes a `tracing` event, and the layer that writes the
//! events as lines. Below everything but the text and secret helpers.
//!
//! The catalogue defines every step ccfn writes, once. Each [`Step`] says its name (the `step` field of its records), the
//! levels it is written at, the fields every one of its records has, the
//! fields some have, and what it is for. [`ALL`] lists them; the writer
//! emits records by these definitions, `ccfn-testkit` checks every record
//! against them, and a test keeps `docs/logging-contract.md` in step. To
//! add a step, add it here.
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
mod catalogue;
pub(crate) mod emit;
pub(crate) mod fields;
pub(crate) mod panic;
pub(crate) mod scope;
pub(crate) mod writer;

pub use catalogue::*;
pub(crate) use emit::{emit, enabled, SPAN_NAME};
pub(crate) use fields::Field;
pub(crate) use scope::{InInvocation, Invocation};
