//! Compile-time tests of `#[contact_fn]`, used as users use it: through
//! the `ccfn_core` re-export.
//!
//! - `tests/ui/fail/*.rs` must fail to compile with exactly the errors in the
//!   `.stderr` file next to them. Each file makes one mistake and is named
//!   after it.
//! - `tests/ui/pass/*.rs` must compile, and their `main` must run without
//!   panicking (each asserts what the expansion produced).
//!
//! The `.stderr` files are pinned to the toolchain CI uses (rustc 1.95):
//! rustc's wording and notes change between releases, so run these tests on
//! that toolchain. After changing a diagnostic on purpose, regenerate the
//! snapshots and review the diff:
//!
//! ```text
//! TRYBUILD=overwrite cargo test -p ccfn-macros --test ui
//! ```
//!
//! Then read every changed `.stderr`: the error must point at the user's
//! token and its message must say how to fix the mistake.
//!
//! Why here, and why so arranged (as tokio's `tests-build` crate is):
//! trybuild builds the cases in a project of its own whose dependencies are
//! this crate's dev-dependencies, so they are kept small (`ccfn-core`
//! without its clients or runtime), not `ccfn-core`'s test dependencies.
//! And it checks every `compile_fail` case in one `cargo check` only when
//! no `pass` case shares its runner (a `pass` case needs `cargo build`, and
//! then trybuild builds each case on its own), hence two runners, one after
//! the other.

#[test]
fn ui() {
    {
        let fail = trybuild::TestCases::new();
        fail.compile_fail("tests/ui/fail/*.rs");
        // Runs here, when it is dropped.
    }
    let pass = trybuild::TestCases::new();
    pass.pass("tests/ui/pass/*.rs");
}
