//! Token generation for `#[contact_fn]`.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{FnArg, LitStr};

use crate::args::{parse_options, NameItem};
use crate::fallback::fallback;
use crate::item::{AttrRole, ContactItem};
use crate::validate::{check, Checked};

/// The whole macro on `proc_macro2` tokens: the expansion, or the original
/// item plus every error.
pub(crate) fn contact_fn(args: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_options(args);
    let parsed = syn::parse2::<ContactItem>(item.clone());
    match check(options, parsed) {
        Ok(checked) => expand(&checked),
        Err(err) => fallback(item, &err),
    }
}

/// The struct, its inherent impl and its `ContactFunction` impl.
fn expand(c: &Checked) -> TokenStream {
    let struct_item = struct_item(c);
    let inherent_impl = inherent_impl(c);
    let trait_impl = trait_impl(c);
    quote! {
        #struct_item
        #inherent_impl
        #trait_impl
    }
}

/// `#[cfg]` / `#[cfg_attr]` of the function, for every generated item.
fn cfg_attrs(c: &Checked) -> TokenStream {
    let cfgs = c.item.attrs_with(AttrRole::Cfg);
    quote!(#(#cfgs)*)
}

/// The doc lines appended to the struct's docs.
fn appended_docs(c: &Checked) -> Vec<String> {
    let mut docs = vec![
        String::new(),
        "# Required parameters".to_owned(),
        String::new(),
        code_list(&c.required),
    ];
    if !c.env.is_empty() {
        docs.extend([
            String::new(),
            "# Required environment".to_owned(),
            String::new(),
            code_list(&c.env),
        ]);
    }
    docs
}

/// "`A`, `B`".
fn code_list(items: &[NameItem]) -> String {
    items
        .iter()
        .map(|i| format!("`{}`", i.value()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The unit struct named like the function, carrying its docs.
fn struct_item(c: &Checked) -> TokenStream {
    let cfgs = cfg_attrs(c);
    let docs = c.item.attrs_with(AttrRole::Doc);
    let extra = appended_docs(c);
    let vis = &c.item.vis;
    let ident = &c.item.sig.ident;
    quote! {
        #cfgs
        #(#docs)*
        #(#[doc = #extra])*
        #[allow(non_camel_case_types)]
        #[derive(
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::fmt::Debug,
            ::core::default::Default
        )]
        #vis struct #ident;
    }
}

/// `impl name { const META; async fn __ccfn_handler }`.
fn inherent_impl(c: &Checked) -> TokenStream {
    let cfgs = cfg_attrs(c);
    let ident = &c.item.sig.ident;
    let meta = meta_const(c);
    let handler = handler_fn(&c.item);
    quote! {
        #cfgs
        impl #ident {
            #meta
            #handler
        }
    }
}

/// `const META: P::FunctionMeta = P::__private::meta(..);`.
fn meta_const(c: &Checked) -> TokenStream {
    let krate = &c.krate;
    let vis = &c.item.vis;
    let args = meta_args(c);
    quote! {
        /// The function's header: name, purpose, trigger, parameters, dependencies, critical logging, contacts, environment.
        #vis const META: #krate::FunctionMeta = #krate::__private::meta(#(#args),*);
    }
}

/// The arguments of `__private::meta`, in order.
fn meta_args(c: &Checked) -> Vec<TokenStream> {
    let h = &c.header;
    let text = |s: &str| LitStr::new(s, Span::call_site()).into_token_stream();
    let kind = Ident::new(c.kind.value.variant(), c.kind.span);
    let krate = &c.krate;
    let mut timeout = Literal::u64_suffixed(c.timeout_ms.value);
    timeout.set_span(c.timeout_ms.span);
    vec![
        LitStr::new(&c.name.value, c.name.span).into_token_stream(),
        text(&h.purpose),
        text(&h.trigger),
        required_list(c),
        text(&h.optional),
        text(&h.dependencies),
        text(&h.critical_logging),
        text(&h.contacts),
        env_list(c),
        quote_spanned!(kind.span()=> #krate::Kind::#kind),
        timeout.into_token_stream(),
    ]
}

/// `&[P::params::CallSid, "CustomerId"]`: each identifier resolved in
/// `P::params` at the user's identifier, so a typo errors there.
fn required_list(c: &Checked) -> TokenStream {
    let krate = &c.krate;
    let items = c.required.iter().map(|item| match item {
        NameItem::Ident(ident) => quote_spanned!(ident.span()=> #krate::params::#ident),
        NameItem::Str(lit) => lit.to_token_stream(),
    });
    quote!(&[#(#items),*])
}

/// `&["PLATFORM_WORKSPACE_SID", "workflowSid"]`.
fn env_list(c: &Checked) -> TokenStream {
    let items = c
        .env
        .iter()
        .map(|item| LitStr::new(&item.value(), item.span()));
    quote!(&[#(#items),*])
}

/// The user's function, renamed `__ccfn_handler`, body tokens untouched.
fn handler_fn(item: &ContactItem) -> TokenStream {
    let others = item.attrs_with(AttrRole::Other);
    let asyncness = &item.sig.asyncness;
    let inputs = &item.sig.inputs;
    let output = &item.sig.output;
    let body = &item.body;
    // Spanned at the user's fn name, so rustc's "defined here" notes point there.
    let name = Ident::new("__ccfn_handler", item.sig.ident.span());
    quote! {
        #(#others)*
        #asyncness fn #name(#inputs) #output #body
    }
}

/// `impl P::ContactFunction for name`.
fn trait_impl(c: &Checked) -> TokenStream {
    let cfgs = cfg_attrs(c);
    let krate = &c.krate;
    let ident = &c.item.sig.ident;
    let handler_call = handler_call(&c.item);
    quote! {
        #cfgs
        #[automatically_derived]
        impl #krate::ContactFunction for #ident {
            fn meta(&self) -> &'static #krate::FunctionMeta {
                &Self::META
            }
            fn invoke(
                &self,
                context: #krate::Context,
                event: #krate::Event,
            ) -> #krate::__private::BoxFuture<#krate::Outcome> {
                #krate::__private::run(&Self::META, context, event, #handler_call)
            }
        }
    }
}

/// `|__ccfn_context, __ccfn_event, __ccfn_callback| Self::__ccfn_handler(..)`,
/// each argument spanned at the user's parameter type, so a wrong type
/// errors there.
fn handler_call(item: &ContactItem) -> TokenStream {
    let args: Vec<TokenStream> = item
        .sig
        .inputs
        .iter()
        .enumerate()
        .map(|(index, input)| {
            let span = match input {
                FnArg::Typed(pat_type) => pat_type.ty.span(),
                FnArg::Receiver(receiver) => receiver.span(),
            };
            match index {
                0 => quote_spanned!(span=> __ccfn_context),
                1 => quote_spanned!(span=> __ccfn_event),
                _ => quote_spanned!(span=> __ccfn_callback),
            }
        })
        .collect();
    quote!(|#(#args),*| Self::__ccfn_handler(#(#args),*))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::TokenTree;

    const ITEM: &str = "\
/// Queue wait experience.
///
/// # Trigger
/// Studio widget.
/// # Dependencies
/// Email provider
/// # Critical logging
/// Task creation result
/// # Contacts
/// oncall@example.com
#[cfg(feature = \"voice\")]
#[allow(unused_variables)]
#[cfg_attr(test, allow(dead_code))]
pub async fn wait_experience(context: Context, event: Event, callback: Callback) -> Completion {
    helper(context, event, callback).await
}";

    fn expand_str(args: &str, item: &str) -> TokenStream {
        contact_fn(args.parse().unwrap(), item.parse().unwrap())
    }

    fn default_output() -> TokenStream {
        expand_str("required = [CallSid, From, To]", ITEM)
    }

    /// Every identifier in the output, depth first.
    fn idents(tokens: TokenStream, out: &mut Vec<Ident>) {
        for tree in tokens {
            match tree {
                TokenTree::Ident(ident) => out.push(ident),
                TokenTree::Group(group) => idents(group.stream(), out),
                _ => {}
            }
        }
    }

    fn all_idents(tokens: &TokenStream) -> Vec<Ident> {
        let mut out = Vec::new();
        idents(tokens.clone(), &mut out);
        out
    }

    #[test]
    fn exact_expansion() {
        let out = default_output();
        let expected = quote! {
            #[cfg(feature = "voice")]
            #[doc = " Queue wait experience."]
            #[doc = ""]
            #[doc = " # Trigger"]
            #[doc = " Studio widget."]
            #[doc = " # Dependencies"]
            #[doc = " Email provider"]
            #[doc = " # Critical logging"]
            #[doc = " Task creation result"]
            #[doc = " # Contacts"]
            #[doc = " oncall@example.com"]
            #[doc = ""]
            #[doc = "# Required parameters"]
            #[doc = ""]
            #[doc = "`CallSid`, `From`, `To`"]
            #[allow(non_camel_case_types)]
            #[derive(
                ::core::clone::Clone,
                ::core::marker::Copy,
                ::core::fmt::Debug,
                ::core::default::Default
            )]
            pub struct wait_experience;

            #[cfg(feature = "voice")]
            impl wait_experience {
                /// The function's header: name, purpose, trigger, parameters, dependencies, critical logging, contacts, environment.
                pub const META: ::ccfn_core::FunctionMeta = ::ccfn_core::__private::meta(
                    "wait-experience",
                    "Queue wait experience.",
                    "Studio widget.",
                    &[::ccfn_core::params::CallSid, ::ccfn_core::params::From, ::ccfn_core::params::To],
                    "",
                    "Email provider",
                    "Task creation result",
                    "oncall@example.com",
                    &[],
                    ::ccfn_core::Kind::Voice,
                    10000u64
                );

                #[allow(unused_variables)]
                #[cfg_attr(test, allow(dead_code))]
                async fn __ccfn_handler(context: Context, event: Event, callback: Callback) -> Completion {
                    helper(context, event, callback).await
                }
            }

            #[cfg(feature = "voice")]
            #[automatically_derived]
            impl ::ccfn_core::ContactFunction for wait_experience {
                fn meta(&self) -> &'static ::ccfn_core::FunctionMeta {
                    &Self::META
                }
                fn invoke(
                    &self,
                    context: ::ccfn_core::Context,
                    event: ::ccfn_core::Event,
                ) -> ::ccfn_core::__private::BoxFuture<::ccfn_core::Outcome> {
                    ::ccfn_core::__private::run(
                        &Self::META,
                        context,
                        event,
                        |__ccfn_context, __ccfn_event, __ccfn_callback| Self::__ccfn_handler(__ccfn_context, __ccfn_event, __ccfn_callback)
                    )
                }
            }
        };
        // cfg_attr goes on every item too; rebuild the expectation with it.
        let expected = expected
            .to_string()
            .replace(
                "# [cfg (feature = \"voice\")]",
                "# [cfg (feature = \"voice\")] # [cfg_attr (test , allow (dead_code))]",
            )
            .replace(
                "# [allow (unused_variables)] # [cfg_attr (test , allow (dead_code))]",
                "# [allow (unused_variables)]",
            );
        assert_eq!(out.to_string(), expected);
        syn::parse2::<syn::File>(out).expect("the expansion is valid Rust");
    }

    #[test]
    fn cfg_attrs_go_on_all_three_items() {
        let out = default_output().to_string();
        assert_eq!(
            out.matches("# [cfg (feature = \"voice\")]").count(),
            3,
            "{out}"
        );
        assert_eq!(
            out.matches("# [cfg_attr (test , allow (dead_code))]")
                .count(),
            3,
            "{out}"
        );
        assert_eq!(
            out.matches("# [allow (unused_variables)]").count(),
            1,
            "{out}"
        );
    }

    #[test]
    fn calls_run_with_the_handler() {
        let out = default_output().to_string();
        assert!(out.contains("__private :: run (& Self :: META , context , event , | __ccfn_context , __ccfn_event , __ccfn_callback | Self :: __ccfn_handler (__ccfn_context , __ccfn_event , __ccfn_callback))"), "{out}");
    }

    #[test]
    fn env_docs_and_meta_with_every_option() {
        let out = expand_str(
            "required = [CallSid, \"CustomerId\"], env = [PLATFORM_WORKSPACE_SID, \"workflowSid\"], \
             name = \"wait\", kind = task, timeout_ms = 2500, crate = \"::my_core\"",
            ITEM,
        )
        .to_string();
        assert!(out.contains("# [doc = \"# Required parameters\"] # [doc = \"\"] # [doc = \"`CallSid`, `CustomerId`\"] # [doc = \"\"] # [doc = \"# Required environment\"] # [doc = \"\"] # [doc = \"`PLATFORM_WORKSPACE_SID`, `workflowSid`\"] # [allow"), "{out}");
        assert!(out.contains(":: my_core :: __private :: meta (\"wait\" , \"Queue wait experience.\" , \"Studio widget.\" , & [:: my_core :: params :: CallSid , \"CustomerId\"] , \"\" , \"Email provider\" , \"Task creation result\" , \"oncall@example.com\" , & [\"PLATFORM_WORKSPACE_SID\" , \"workflowSid\"] , :: my_core :: Kind :: Task , 2500u64)"), "{out}");
        assert!(!out.contains("ccfn_core"), "{out}");
        assert!(
            out.contains("impl :: my_core :: ContactFunction for wait_experience"),
            "{out}"
        );
    }

    #[test]
    fn optional_parameters_text_is_passed() {
        let item = ITEM.replace(
            "/// # Dependencies",
            "/// # Optional parameters\n/// mode, FlowSid\n/// # Dependencies",
        );
        let out = expand_str("required = [CallSid, From, To]", &item).to_string();
        assert!(out.contains("\"Studio widget.\" , & [:: ccfn_core :: params :: CallSid , :: ccfn_core :: params :: From , :: ccfn_core :: params :: To] , \"mode, FlowSid\" , \"Email provider\""), "{out}");
    }

    #[test]
    fn required_idents_are_resolved_at_the_user_ident() {
        let out = expand_str("required = [CallSid, Frm, To], kind = task", ITEM);
        let idents = all_idents(&out);
        let at = idents
            .iter()
            .position(|i| i == "Frm")
            .expect("Frm is emitted");
        assert_eq!(idents[at].span().source_text().unwrap(), "Frm");
        assert_eq!(idents[at - 1], "params");
        assert_eq!(idents[at - 1].span().source_text().unwrap(), "Frm");
    }

    #[test]
    fn handler_arguments_are_spanned_at_the_user_types() {
        let item = ITEM.replace("callback: Callback", "callback: MyCallback");
        let out = expand_str("required = [CallSid, From, To]", &item);
        let idents = all_idents(&out);
        let spans: Vec<String> = idents
            .iter()
            .filter(|i| i.to_string().starts_with("__ccfn_c") || *i == "__ccfn_event")
            .map(|i| i.span().source_text().unwrap_or_default())
            .collect();
        assert_eq!(
            spans,
            [
                "Context",
                "Event",
                "MyCallback",
                "Context",
                "Event",
                "MyCallback"
            ]
        );
    }

    #[test]
    fn kind_and_timeout_keep_user_spans() {
        let out = expand_str("required = [A], kind = email, timeout_ms = 5", ITEM);
        let idents = all_idents(&out);
        let email = idents.iter().find(|i| *i == "Email").unwrap();
        assert_eq!(email.span().source_text().unwrap(), "email");
        assert!(out.to_string().contains(":: Kind :: Email , 5u64)"));
    }

    #[test]
    fn body_tokens_are_untouched() {
        let item = ITEM.replace(
            "helper(context, event, callback).await",
            "#![allow(clippy::all)] let r#type = m!(@ weird $ tokens); r#type",
        );
        let out = expand_str("required = [CallSid, From, To]", &item).to_string();
        assert!(out.contains("-> Completion { #! [allow (clippy :: all)] let r#type = m ! (@ weird $ tokens) ; r#type }"), "{out}");
    }

    #[test]
    fn errors_fall_back_to_the_original_item() {
        let item = ITEM.replace("async ", "");
        let out = expand_str("required = [CallSid, From]", &item);
        let original: TokenStream = item.parse().unwrap();
        let out = out.to_string();
        assert!(out.starts_with(&original.to_string()), "{out}");
        assert_eq!(out.matches("compile_error").count(), 2, "{out}");
        assert!(out.contains("requires an `async fn`"), "{out}");
        assert!(out.contains("voice functions must require"), "{out}");
        assert!(!out.contains("__ccfn_handler"), "{out}");
    }

    #[test]
    fn non_function_falls_back() {
        let out = expand_str("required = [A]", "struct S;").to_string();
        assert!(out.starts_with("struct S ;"), "{out}");
        assert!(
            out.contains("can only be applied to an `async fn`"),
            "{out}"
        );
    }
}
