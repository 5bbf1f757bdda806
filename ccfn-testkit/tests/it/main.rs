//! The testkit's integration tests, one module per subject, linked into a
//! single test binary: one link instead of one per file, and the same
//! tests. Run one subject with `cargo test -p ccfn-testkit --test it
//! fakes::`. They test the testkit itself: what a run reads off
//! (`answers`), how it shows reads past a function's declarations
//! (`declarations`) and its fakes (`fakes`); ccfn-core's clients and logging
//! contract are tested in ccfn-core's own `tests/it`.
//!
//! A test that needs a process of its own stays a file of its own beside
//! this folder, saying why in its first lines (`tests/interest.rs`).

mod answers;
mod calls;
mod declarations;
mod fakes;
