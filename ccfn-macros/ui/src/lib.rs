//! Nothing to use: this crate holds the UI tests of `#[contact_fn]`
//! (`tests/ui.rs`), each compile error the macro can give with the exact
//! message rustc prints.
