//! Compile-time tests of `#[contact_fn]`, through the `ccfn_core` re-export.
//!
//! - `tests/ui/pass/*.rs` must compile, and their `main` must run without
//!   panicking (each asserts what the expansion produced).
//! - `tests/ui/fail/*.rs` must fail to compile with exactly the errors in the
//!   `.stderr` file next to them. Each file makes one mistake and is named
//!   after it.
//!
//! The `.stderr` files are pinned to the toolchain CI uses (rustc 1.95):
//! rustc's wording and notes change between releases, so run these tests on
//! that toolchain. After changing a diagnostic on purpose, regenerate the
//! snapshots and review the diff:
//!
//! ```text
//! TRYBUILD=overwrite cargo test -p ccfn-core --test ui
//! ```
//!
//! Then read every changed `.stderr`: the error must point at the user's
//! token and its message must say how to fix the mistake.
//!
//! A test binary of its own, not a module of `tests/it`: trybuild builds
//! and runs each file as a crate of its own, which takes minutes, and
//! `--test ui` runs (or, with `TRYBUILD=overwrite`, rewrites) just these.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
