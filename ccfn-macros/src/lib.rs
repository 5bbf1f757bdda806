//! The `#[contact_fn]` attribute of ccfn; use it through `ccfn-core`, which re-exports it.

mod args;
mod expand;
mod item;
mod validate;

use proc_macro::TokenStream;

/// Turns an `async fn` handler into a contact-center function with a checked header.
///
/// See the documentation of `ccfn_core::contact_fn` for the options, the required
/// doc-comment sections and what is generated.
#[proc_macro_attribute]
pub fn contact_fn(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::contact_fn(args.into(), item.into()).into()
}
