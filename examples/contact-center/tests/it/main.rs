//! The integration tests of the contact-center example, in one test
//! binary (one link rather than one per file); each module was a file of
//! `tests/`. Run one module with
//! `cargo test -p example-contact-center --test it faults::`.
//!
//! They share one process: `catalogue` installs the global subscriber
//! (once), `snapshots` captures each invocation with a subscriber of its
//! own, and the others start the examples server as a child process.

mod calls;
mod catalogue;
mod common;
mod dotenv;
mod faults;
mod inspector;
mod otel;
mod server;
mod snapshots;
