//! The testkit's integration tests, one module per subject, linked into a
//! single test binary: one link instead of one per file, and the same
//! tests. Run one subject with `cargo test -p ccfn-testkit --test it
//! contract::`.
//!
//! A test that needs a process of its own stays a file of its own beside
//! this folder, saying why in its first lines (`tests/interest.rs`).

mod answers;
mod canary;
mod contract;
mod debug_buffer;
mod declarations;
mod email;
mod errors;
mod fakes;
mod handler_events;
mod http_client;
mod http_client_shape;
mod leaks;
mod task_router;
