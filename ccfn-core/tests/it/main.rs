//! The integration tests of ccfn-core, in one test binary (one link
//! rather than one per file); each module was a file of `tests/`.
//!
//! Run one module with `cargo test -p ccfn-core --test it runtime::`.
//! Kept in binaries of their own, each saying why: `tests/log_overload.rs`
//! (a global subscriber of its own) and `tests/macros_rename.rs` (a
//! crate-level `extern crate`). The macro's compile errors are
//! `ccfn-macros/ui/tests/ui.rs`.

//!
//! The client and contract tests run functions through `ccfn_testkit`
//! (`invoke`, its fake email provider and task router) over real HTTP on
//! loopback: `canary`, `contract`, `debug_buffer`, `declarations`,
//! `email`, `errors`, `handler_events`, `http_client`,
//! `http_client_shape`, `leaks` and `task_router`.

mod canary;
mod catalogue_docs;
#[cfg(feature = "runtime")]
mod common;
mod contract;
mod contract_examples;
mod debug_buffer;
mod declarations;
mod email;
mod errors;
mod examples_from_snapshots;
mod expansion;
mod handler_events;
mod http_client;
mod http_client_shape;
#[cfg(feature = "lambda")]
mod lambda;
mod layers;
mod leaks;
mod lints;
mod macro_params;
#[cfg(feature = "clients")]
mod record_fields;
mod reliability_doc;
#[cfg(all(feature = "runtime", feature = "clients"))]
mod runtime;
#[cfg(all(feature = "runtime", feature = "clients"))]
mod runtime_embed;
mod settings_doc;
mod signature_vectors;
mod task_router;
mod twiml_vectors;
