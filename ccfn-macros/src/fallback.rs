//! What is emitted when the attribute is misused: the original item,
//! unchanged, followed by the errors, so that rustc reports only them.

use proc_macro2::TokenStream;

/// The original item followed by one `compile_error!` per error.
pub(crate) fn fallback(item: TokenStream, err: &syn::Error) -> TokenStream {
    let mut tokens = item;
    tokens.extend(err.to_compile_error());
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;
    use quote::quote;

    #[test]
    fn keeps_item_and_appends_every_error() {
        let item = quote!(
            fn f() {
                let x = 1;
            }
        );
        let mut err = syn::Error::new(Span::call_site(), "first");
        err.combine(syn::Error::new(Span::call_site(), "second"));
        let out = fallback(item.clone(), &err).to_string();
        assert!(out.starts_with(&item.to_string()), "{out}");
        assert_eq!(out.matches("compile_error").count(), 2, "{out}");
        assert!(
            out.contains("\"first\"") && out.contains("\"second\""),
            "{out}"
        );
    }
}
