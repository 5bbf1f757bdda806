//! Handlers written the ways users write them, which must compile and run:
//! each module is one way (every option, attributes kept, names shadowed,
//! no prelude, `pub` handlers...), and its test asserts what the expansion
//! produced. The compile errors of `#[contact_fn]` are trybuild cases in
//! `ccfn-macros/ui/tests/ui/fail`; these need no crate of their own, so they
//! are built once, with the rest of this binary.

mod all_options;
mod attributes_kept;
mod docs_with_code_fence;
mod generic_kind_string_params;
mod minimal_voice;
mod pub_visibility;
mod result_return;
mod shadowing;
mod without_prelude;
