//! The `ccfn` command's integration tests, one module per command, linked
//! into a single test binary: one link instead of one per file, and the
//! same tests. Run one command's with `cargo test -p ccfn-cli --test it
//! doctor::`.
//!
//! A test that needs a process of its own stays a file of its own beside
//! this folder, saying why in its first lines (`tests/diagnose_rejected.rs`).

mod common;

mod call;
mod diagnose;
mod doctor;
mod help;
mod logs;
mod package;
mod platform;
mod probe;
