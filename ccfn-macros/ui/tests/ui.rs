//! The compile errors of `#[contact_fn]`, used as users use it: through
//! the `ccfn_core` re-export. Each `tests/ui/fail/*.rs` makes one mistake,
//! is named after it, and must fail to compile with exactly the errors in
//! the `.stderr` file next to it. Each also registers its function with
//! the runtime and invokes it from the testkit, as a user's code does, so
//! that the `.stderr` shows the macro's error is the only one: one
//! mistake, one error, the one that says the fix. (Handlers that must compile and run are
//! ordinary tests: `ccfn-core/tests/it/expansion/`.)
//!
//! The `.stderr` files are pinned to the toolchain CI uses (rustc 1.95):
//! rustc's wording and notes change between releases, so run these tests on
//! that toolchain. After changing a diagnostic on purpose, regenerate the
//! snapshots and review the diff:
//!
//! ```text
//! TRYBUILD=overwrite cargo test -p ccfn-macros-ui --test ui
//! ```
//!
//! Then read every changed `.stderr`: the error must point at the user's
//! token and its message must say how to fix the mistake.
//!
//! Why a crate of its own, and why only `compile_fail` cases: see its
//! `Cargo.toml`. With only `compile_fail` cases trybuild needs `cargo
//! check` alone, and checks them all in one run; one `pass` case would make
//! it build every case, one `cargo build` each.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/fail/*.rs");
}
