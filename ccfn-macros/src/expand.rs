//! Token generation for `#[contact_fn]`.

use proc_macro2::{Delimiter, Group, Ident, Literal, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::{FnArg, LitStr, Path, ReturnType};

use crate::args::{parse_options, ContactOption, NameItem, Options};
use crate::item::{AttrRole, ContactItem};
use crate::validate::{check, Checked, Handler, Rejected};

/// The whole macro on `proc_macro2` tokens: the expansion, or the errors
/// with a stand-in for what registering the function needs (see
/// [`rejected`]).
pub(crate) fn contact_fn(args: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_options(args);
    let probe = params_probe(&options);
    let parsed = syn::parse2::<ContactItem>(item.clone());
    match check(options, parsed) {
        Ok(checked) => expand(&checked),
        Err(rejected) => self::rejected(item, &probe, rejected),
    }
}

/// What a rejected function expands to: its errors, and what registering
/// it needs, so that its errors are the only ones (the runtime's
/// `.function(..)` and the testkit's `invoke(..)` take it without a
/// "not a contact-center function" error of their own):
/// - a free function: the items of a valid expansion, with the parts that
///   were checked and defaults for the others. When the signature and the
///   body passed their checks, the handler is emitted and called as in a
///   valid expansion; otherwise `invoke` is a stand-in that completes with
///   an error, and the handler is kept, never called (see
///   [`kept_handler`]);
/// - a method, or a function without a body (in an `impl` or a trait,
///   where no struct can be emitted): an associated constant of the same
///   name, of the stand-in type `__private::Rejected` (and the method,
///   renamed and kept);
/// - a struct, enum or union without generics: the item, and a stand-in
///   `ContactFunction` impl for it;
/// - anything else: the item unchanged.
///
/// The errors come with every stand-in, so it is never compiled into a
/// program, let alone run.
fn rejected(item: TokenStream, probe: &TokenStream, rejected: Rejected) -> TokenStream {
    let errors = rejected.error.to_compile_error();
    let krate = &rejected.krate;
    let stand_in = match &rejected.parts {
        Some(parts) if has_receiver(&parts.item) => {
            let name = Ident::new(
                &format!(
                    "__ccfn_rejected_{}",
                    syn::ext::IdentExt::unraw(&parts.item.sig.ident)
                ),
                parts.item.sig.ident.span(),
            );
            let kept = kept_handler(&parts.item, name, rejected.handler);
            let stand_in = associated_stand_in(parts);
            quote! {
                #stand_in
                #kept
            }
        }
        Some(parts) => {
            let cfgs = cfg_attrs(parts);
            let probe = (!probe.is_empty()).then(|| {
                quote! {
                    #cfgs
                    const _: () = { #probe };
                }
            });
            let signature_names = signature_names(parts);
            let struct_item = struct_item(parts);
            let (inherent_impl, trait_impl) = if rejected.handler == Handler::Called {
                (inherent_impl(parts), trait_impl(parts))
            } else {
                let ident = &parts.item.sig.ident;
                let meta = meta_const(parts);
                let name = Ident::new("__ccfn_handler", ident.span());
                let kept = kept_handler(&parts.item, name, rejected.handler);
                (
                    quote! {
                        #cfgs
                        impl #ident {
                            #meta
                            #kept
                        }
                    },
                    stand_in_impl(krate, ident, &cfgs, &quote!(&Self::META)),
                )
            };
            quote! {
                #signature_names
                #struct_item
                #inherent_impl
                #trait_impl
                #probe
            }
        }
        None => item_stand_in(item, krate),
    };
    quote! {
        #stand_in
        #errors
    }
}

/// The handler of a rejected function, named `name` and never called:
/// emitted so that rustc resolves its body (an import used only there is
/// not reported unused) and reports the body's own mistakes, but none that
/// repeats the macro's. So `const` is removed (rustc rejects `const async
/// fn` itself) and `async` added (a body with `.await` needs it); and a
/// body that never uses the callback (see [`Handler::KeptWithoutTail`])
/// ends with its last expression as a statement and `loop {}`, which has
/// every type, in place of the `Completion` it cannot make. Everything else is as written: generics,
/// parameters, `unsafe`, the ABI.
fn kept_handler(item: &ContactItem, name: Ident, handler: Handler) -> TokenStream {
    let mut sig = item.sig.clone();
    sig.constness = None;
    // A body with `.await` would be one more error without it.
    sig.asyncness.get_or_insert_with(Default::default);
    sig.ident = name;
    let others = item.attrs_with(AttrRole::Other);
    let body = match handler {
        Handler::KeptWithoutTail => {
            let mut stmts = item.body.stream();
            let ends_with_semicolon = matches!(
                stmts.clone().into_iter().last(),
                Some(TokenTree::Punct(p)) if p.as_char() == ';'
            );
            if !ends_with_semicolon {
                stmts.extend(quote!(;));
            }
            stmts.extend(quote!(loop {}));
            let mut body = Group::new(Delimiter::Brace, stmts);
            body.set_span(item.body.span());
            body
        }
        Handler::Called | Handler::Kept => item.body.clone(),
    };
    quote! {
        #[allow(
            dead_code,
            unused_variables,
            unused_mut,
            unused_must_use,
            unreachable_code,
            clippy::all
        )]
        #(#others)*
        #sig #body
    }
}

/// Whether the function takes `self`: it is a method, in an `impl`.
fn has_receiver(item: &ContactItem) -> bool {
    item.sig
        .inputs
        .iter()
        .any(|arg| matches!(arg, FnArg::Receiver(_)))
}

/// `const name: P::__private::Rejected = P::__private::Rejected;`, for a
/// function where only associated items can go (an `impl` or a trait).
fn associated_stand_in(parts: &Checked) -> TokenStream {
    let cfgs = cfg_attrs(parts);
    let krate = &parts.krate;
    let vis = &parts.item.vis;
    let ident = &parts.item.sig.ident;
    associated_const(&cfgs, vis, ident, krate)
}

/// The associated constant of [`associated_stand_in`].
fn associated_const(
    cfgs: &TokenStream,
    vis: &syn::Visibility,
    ident: &Ident,
    krate: &TokenStream,
) -> TokenStream {
    quote! {
        #cfgs
        #[allow(non_upper_case_globals)]
        #vis const #ident: #krate::__private::Rejected = #krate::__private::Rejected;
    }
}

/// `impl P::function::ContactFunction for name` whose `invoke` completes
/// with an error without running anything of the user's.
fn stand_in_impl(
    krate: &TokenStream,
    ident: &Ident,
    cfgs: &TokenStream,
    meta: &TokenStream,
) -> TokenStream {
    quote! {
        #cfgs
        #[automatically_derived]
        impl #krate::function::ContactFunction for #ident {
            fn meta(&self) -> &'static #krate::function::FunctionMeta {
                #meta
            }
            fn invoke(
                &self,
                context: #krate::Context,
                event: #krate::Event,
            ) -> #krate::function::BoxFuture<#krate::Completion> {
                #krate::__private::rejected(#meta, context, event)
            }
        }
    }
}

/// The stand-in for an item that did not parse as a function with a body.
fn item_stand_in(item: TokenStream, krate: &TokenStream) -> TokenStream {
    // A function without a body: a declaration in a trait, which gets
    // a constant with a value in its place.
    if let Ok(f) = syn::parse2::<syn::TraitItemFn>(item.clone())
        && f.default.is_none()
    {
        let cfgs: TokenStream = f
            .attrs
            .iter()
            .filter(|a| crate::item::attr_role(a) == AttrRole::Cfg)
            .map(ToTokens::to_token_stream)
            .collect();
        return associated_const(&cfgs, &syn::Visibility::Inherited, &f.sig.ident, krate);
    }
    let stand_in = match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Struct(s)) if s.generics.params.is_empty() => Some((s.attrs, s.ident)),
        Ok(syn::Item::Enum(e)) if e.generics.params.is_empty() => Some((e.attrs, e.ident)),
        Ok(syn::Item::Union(u)) if u.generics.params.is_empty() => Some((u.attrs, u.ident)),
        _ => None,
    };
    let Some((attrs, ident)) = stand_in else {
        return item;
    };
    let cfgs: TokenStream = attrs
        .iter()
        .filter(|a| crate::item::attr_role(a) == AttrRole::Cfg)
        .map(ToTokens::to_token_stream)
        .collect();
    let meta = quote!(#krate::__private::Rejected::META);
    let meta = quote!(&#meta);
    let impl_ = stand_in_impl(krate, &ident, &cfgs, &meta);
    quote! {
        #item
        #impl_
    }
}

/// `use P::params::{CallSid as _};` for each identifier of `required`,
/// spanned at the identifier, so that rustc still reports a misspelled one
/// (with its "similar name" hint) when the macro fails for another reason.
/// An import, because rustc resolves imports even when expansion failed
/// (a path in an expression would never be reported next to the macro's
/// errors). Empty when `required` or `crate` did not parse.
fn params_probe(options: &Options) -> TokenStream {
    if options.is_broken("crate") {
        return TokenStream::new();
    }
    let krate = match options.list.iter().find_map(|o| match o {
        ContactOption::Crate(_, lit) => Some(lit),
        _ => None,
    }) {
        None => quote!(::ccfn_core),
        Some(lit) => match lit.parse_with(Path::parse_mod_style) {
            Ok(path) => path.into_token_stream(),
            Err(_) => return TokenStream::new(),
        },
    };
    let Some(list) = options.list.iter().find_map(|o| match o {
        ContactOption::Required(list) => Some(list),
        _ => None,
    }) else {
        return TokenStream::new();
    };
    list.items
        .iter()
        .filter_map(|item| match item {
            // Not one of the platform's: the macro's own error says so.
            NameItem::Ident(ident)
                if !crate::validate::is_platform_param_or_near(
                    &syn::ext::IdentExt::unraw(ident).to_string(),
                ) =>
            {
                None
            }
            NameItem::Ident(ident) => Some(quote_spanned! {ident.span()=>
                #[allow(unused_imports)]
                use #krate::params::{#ident as _};
            }),
            NameItem::Str(_) => None,
        })
        .collect()
}

/// The struct, its inherent impl and its `ContactFunction` impl.
fn expand(c: &Checked) -> TokenStream {
    let signature_names = signature_names(c);
    let struct_item = struct_item(c);
    let inherent_impl = inherent_impl(c);
    let trait_impl = trait_impl(c);
    let voice_recheck = voice_recheck(c);
    quote! {
        #signature_names
        #struct_item
        #inherent_impl
        #trait_impl
        #voice_recheck
    }
}

/// `use P::__private::signature::*;`: `Context`, `Event`, `Callback` and
/// `Completion` in the handler's module, so that its signature resolves
/// without the prelude (rustc would otherwise suggest importing
/// `std::task::Context`). A glob: the module's own imports and items of
/// those names shadow it, so explicit imports stay used, and it is allowed
/// to be unused.
fn signature_names(c: &Checked) -> TokenStream {
    let cfgs = cfg_attrs(c);
    let krate = &c.krate;
    quote! {
        #cfgs
        #[allow(unused_imports)]
        use #krate::__private::signature::*;
    }
}

/// The compile-time error of [`voice_recheck`].
const VOICE_RECHECK: &str = "voice functions must require `CallSid`, `From` and `To`; add the missing ones to `required`, or declare another kind with `kind = email | task | generic`";

/// When validation took an identifier of a voice function's `required` for
/// a misspelled call parameter, the voice rule is checked again at compile
/// time, in case that identifier is a well-known parameter after all.
fn voice_recheck(c: &Checked) -> TokenStream {
    let Some(span) = c.voice_recheck else {
        return TokenStream::new();
    };
    let cfgs = cfg_attrs(c);
    let krate = &c.krate;
    let ident = &c.item.sig.ident;
    let check = respan(quote!(#krate::__private::has_voice_params), span);
    let message = LitStr::new(VOICE_RECHECK, span);
    quote_spanned! {span=>
        #cfgs
        const _: () = ::core::assert!(#check(#ident::META.required()), #message);
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
    if !c.secrets.is_empty() {
        docs.extend([
            String::new(),
            "# Secrets".to_owned(),
            String::new(),
            code_list(&c.secrets),
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

/// `const META: P::function::FunctionMeta =
/// P::__private::meta(P::__private::MetaFields { name: .., .. });`.
fn meta_const(c: &Checked) -> TokenStream {
    let krate = &c.krate;
    let vis = &c.item.vis;
    let fields = meta_fields(c).into_iter().map(|(name, value)| {
        let name = Ident::new(name, Span::call_site());
        quote!(#name: #value)
    });
    quote! {
        /// The function's header: name, purpose, trigger, parameters, dependencies, critical logging, contacts, environment.
        #vis const META: #krate::function::FunctionMeta =
            #krate::__private::meta(#krate::__private::MetaFields { #(#fields),* });
    }
}

/// The fields of `__private::MetaFields`, each with its value.
fn meta_fields(c: &Checked) -> Vec<(&'static str, TokenStream)> {
    let h = &c.header;
    let text = |s: &str| LitStr::new(s, Span::call_site()).into_token_stream();
    let kind = Ident::new(c.kind.value.variant(), c.kind.span);
    let krate = &c.krate;
    let mut timeout = Literal::u64_suffixed(c.timeout_ms.value);
    timeout.set_span(c.timeout_ms.span);
    let debug_buffer = match &c.debug_buffer_bytes {
        Some(bytes) => {
            let mut literal = Literal::u64_suffixed(bytes.value);
            literal.set_span(bytes.span);
            quote!(::core::option::Option::Some(#literal))
        }
        None => quote!(::core::option::Option::None),
    };
    vec![
        (
            "name",
            LitStr::new(&c.name.value, c.name.span).into_token_stream(),
        ),
        ("purpose", text(&h.purpose)),
        ("trigger", text(&h.trigger)),
        ("required", required_list(c)),
        ("optional", text(&h.optional)),
        ("optional_env", text(&h.optional_env)),
        ("dependencies", text(&h.dependencies)),
        ("critical_logging", text(&h.critical_logging)),
        ("contacts", text(&h.contacts)),
        ("env", name_list(&c.env)),
        ("secrets", name_list(&c.secrets)),
        (
            "kind",
            quote_spanned!(kind.span()=> #krate::function::Kind::#kind),
        ),
        ("timeout_ms", timeout.into_token_stream()),
        ("debug_buffer_bytes", debug_buffer),
        ("module_path", quote!(::core::module_path!())),
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
fn name_list(list: &[NameItem]) -> TokenStream {
    let items = list
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
    // Users cannot drop `async` when the body has no `.await`.
    quote! {
        #[allow(clippy::unused_async)]
        #(#others)*
        #asyncness fn #name(#inputs) #output #body
    }
}

/// `impl P::function::ContactFunction for name`.
fn trait_impl(c: &Checked) -> TokenStream {
    let cfgs = cfg_attrs(c);
    let krate = &c.krate;
    let ident = &c.item.sig.ident;
    let handler_call = handler_call(c);
    let shadows = param_shadows(c);
    // rustc reports an unmet bound of `run` on the handler's output at this
    // call: it is spanned at the return type, where `completion` reports
    // the same bound, so that rustc reports the mistake once, there.
    let output = return_type_range(&c.item);
    let run = output.call(
        respan(quote!(#krate::__private::run), output.lo),
        quote!(&Self::META, context, event, #handler_call),
    );
    quote! {
        #cfgs
        #[automatically_derived]
        impl #krate::function::ContactFunction for #ident {
            fn meta(&self) -> &'static #krate::function::FunctionMeta {
                &Self::META
            }
            fn invoke(
                &self,
                context: #krate::Context,
                event: #krate::Event,
            ) -> #krate::function::BoxFuture<#krate::Completion> {
                #shadows
                #run
            }
        }
    }
}

/// The closure given to `run`:
///
/// ```text
/// |__ccfn_context, __ccfn_event, __ccfn_callback| P::__private::completion(
///     Self::__ccfn_handler(P::__private::param::<Context, P::Context>(__ccfn_context), ..),
/// )
/// ```
///
/// Each `param` call is spanned at the user's parameter type and the rest
/// at the return type, so that a wrong type is reported there, in the words
/// of `__private::Param` and `IntoCompletion`.
fn handler_call(c: &Checked) -> TokenStream {
    let krate = &c.krate;
    let mut names = Vec::new();
    let mut args = Vec::new();
    for (index, input) in c.item.sig.inputs.iter().enumerate() {
        let expected = match index {
            0 => quote!(#krate::Context),
            1 => quote!(#krate::Event),
            _ => quote!(#krate::Callback),
        };
        let ty = match input {
            FnArg::Typed(pat_type) => pat_type.ty.to_token_stream(),
            // Rejected by validation; kept total.
            FnArg::Receiver(receiver) => receiver.to_token_stream(),
        };
        let at = SpanRange::of(&ty);
        let name = param_name(index, at.lo);
        // The user's type keeps its spans, so an error inside it is the one
        // rustc reports for the signature.
        let head = respan(quote!(#krate::__private::param::<), at.lo);
        let tail = respan(quote!(, #expected>), at.hi);
        args.push(at.call(quote!(#head #ty #tail), name.to_token_stream()));
        names.push(name);
    }
    let output = return_type_range(&c.item);
    let handler = output.call(
        respan(quote!(Self::__ccfn_handler), output.lo),
        quote!(#(#args),*),
    );
    let completion = output.call(
        respan(quote!(#krate::__private::completion), output.lo),
        handler,
    );
    let bar = respan(quote!(|), output.lo);
    quote!(#bar #(#names),* | #completion)
}

/// The closure's parameter at `index`, located at the user's parameter
/// type, with mixed-site hygiene.
fn param_name(index: usize, at: Span) -> Ident {
    let name = match index {
        0 => "__ccfn_context",
        1 => "__ccfn_event",
        _ => "__ccfn_callback",
    };
    Ident::new(name, Span::mixed_site().located_at(at))
}

/// `fn __ccfn_context() {}`, ... for the closure's parameters: a parameter
/// named like a unit struct, `const` or `static` in scope would be a pattern
/// (hygiene does not hide items), but not when a local fn shadows the item.
fn param_shadows(c: &Checked) -> TokenStream {
    let names = (0..c.item.sig.inputs.len()).map(|i| param_name(i, Span::call_site()));
    quote! {
        #(
            #[allow(dead_code)]
            fn #names() {}
        )*
    }
}

/// The user's return type, or the `)` after the parameters when there is
/// none (where `-> Completion` belongs).
fn return_type_range(item: &ContactItem) -> SpanRange {
    match &item.sig.output {
        ReturnType::Type(_, ty) => SpanRange::of(ty),
        ReturnType::Default => {
            let close = item.sig.paren_token.span.close();
            SpanRange {
                lo: close,
                hi: close,
            }
        }
    }
}

/// The spans of the first and the last token of a node: a call spanned
/// from one to the other is reported by rustc over the whole node (a
/// single `Span` covers only the first token on stable Rust).
#[derive(Clone, Copy)]
struct SpanRange {
    lo: Span,
    hi: Span,
}

impl SpanRange {
    /// The range of `node`'s tokens.
    fn of(node: impl ToTokens) -> SpanRange {
        let mut trees = node.into_token_stream().into_iter();
        let lo = trees.next().map_or_else(Span::call_site, |t| t.span());
        let hi = trees.last().map_or(lo, |t| t.span());
        SpanRange { lo, hi }
    }

    /// `callee(args)`, with the parentheses at the end of the range;
    /// `callee` and `args` keep their spans.
    fn call(self, callee: TokenStream, args: TokenStream) -> TokenStream {
        let mut args = Group::new(Delimiter::Parenthesis, args);
        args.set_span(self.hi);
        quote!(#callee #args)
    }
}

/// `tokens` with every span set to `span`, so that rustc reports an error
/// about them at `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(group) = &tree {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tree = TokenTree::Group(inner);
            }
            tree.set_span(span);
            tree
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
            #[allow(unused_imports)]
            use ::ccfn_core::__private::signature::*;

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
                pub const META: ::ccfn_core::function::FunctionMeta =
                    ::ccfn_core::__private::meta(::ccfn_core::__private::MetaFields {
                        name: "wait-experience",
                        purpose: "Queue wait experience.",
                        trigger: "Studio widget.",
                        required: &[::ccfn_core::params::CallSid, ::ccfn_core::params::From, ::ccfn_core::params::To],
                        optional: "",
                        optional_env: "",
                        dependencies: "Email provider",
                        critical_logging: "Task creation result",
                        contacts: "oncall@example.com",
                        env: &[],
                        secrets: &[],
                        kind: ::ccfn_core::function::Kind::Voice,
                        timeout_ms: 10000u64,
                        debug_buffer_bytes: ::core::option::Option::None,
                        module_path: ::core::module_path!()
                    });

                #[allow(clippy::unused_async)]
                #[allow(unused_variables)]
                #[cfg_attr(test, allow(dead_code))]
                async fn __ccfn_handler(context: Context, event: Event, callback: Callback) -> Completion {
                    helper(context, event, callback).await
                }
            }

            #[cfg(feature = "voice")]
            #[automatically_derived]
            impl ::ccfn_core::function::ContactFunction for wait_experience {
                fn meta(&self) -> &'static ::ccfn_core::function::FunctionMeta {
                    &Self::META
                }
                fn invoke(
                    &self,
                    context: ::ccfn_core::Context,
                    event: ::ccfn_core::Event,
                ) -> ::ccfn_core::function::BoxFuture<::ccfn_core::Completion> {
                    #[allow(dead_code)]
                    fn __ccfn_context() {}
                    #[allow(dead_code)]
                    fn __ccfn_event() {}
                    #[allow(dead_code)]
                    fn __ccfn_callback() {}
                    ::ccfn_core::__private::run(
                        &Self::META,
                        context,
                        event,
                        |__ccfn_context, __ccfn_event, __ccfn_callback| ::ccfn_core::__private::completion(
                            Self::__ccfn_handler(
                                ::ccfn_core::__private::param::<Context, ::ccfn_core::Context>(__ccfn_context),
                                ::ccfn_core::__private::param::<Event, ::ccfn_core::Event>(__ccfn_event),
                                ::ccfn_core::__private::param::<Callback, ::ccfn_core::Callback>(__ccfn_callback)
                            )
                        )
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
    fn cfg_attrs_go_on_all_four_items() {
        let out = default_output().to_string();
        assert_eq!(
            out.matches("# [cfg (feature = \"voice\")]").count(),
            4,
            "{out}"
        );
        assert_eq!(
            out.matches("# [cfg_attr (test , allow (dead_code))]")
                .count(),
            4,
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
        assert!(out.contains("__private :: run (& Self :: META , context , event , | __ccfn_context , __ccfn_event , __ccfn_callback | :: ccfn_core :: __private :: completion (Self :: __ccfn_handler (:: ccfn_core :: __private :: param :: < Context , :: ccfn_core :: Context > (__ccfn_context) , :: ccfn_core :: __private :: param :: < Event , :: ccfn_core :: Event > (__ccfn_event) , :: ccfn_core :: __private :: param :: < Callback , :: ccfn_core :: Callback > (__ccfn_callback))))"), "{out}");
    }

    #[test]
    fn handler_is_allowed_to_not_await() {
        let out = default_output().to_string();
        assert!(
            out.contains("# [allow (clippy :: unused_async)] # [allow (unused_variables)] async fn __ccfn_handler"),
            "{out}"
        );
        assert_eq!(out.matches("clippy :: unused_async").count(), 1, "{out}");
    }

    #[test]
    fn closure_parameters_are_shadowed_by_local_fns() {
        let out = default_output().to_string();
        assert!(out.contains("-> :: ccfn_core :: function :: BoxFuture < :: ccfn_core :: Completion > { # [allow (dead_code)] fn __ccfn_context () { } # [allow (dead_code)] fn __ccfn_event () { } # [allow (dead_code)] fn __ccfn_callback () { } :: ccfn_core :: __private :: run"), "{out}");
    }

    #[test]
    fn env_docs_and_meta_with_every_option() {
        let out = expand_str(
            "required = [CallSid, \"CustomerId\"], env = [PLATFORM_WORKSPACE_SID, \"workflowSid\"], \
             secrets = [CRM_API_KEY, \"crmPassword\"], name = \"wait\", kind = task, timeout_ms = 2500, debug_buffer_bytes = 8192, crate = \"::my_core\"",
            ITEM,
        )
        .to_string();
        assert!(out.contains("# [doc = \"# Required parameters\"] # [doc = \"\"] # [doc = \"`CallSid`, `CustomerId`\"] # [doc = \"\"] # [doc = \"# Required environment\"] # [doc = \"\"] # [doc = \"`PLATFORM_WORKSPACE_SID`, `workflowSid`\"] # [doc = \"\"] # [doc = \"# Secrets\"] # [doc = \"\"] # [doc = \"`CRM_API_KEY`, `crmPassword`\"] # [allow"), "{out}");
        assert!(out.contains(":: my_core :: __private :: meta (:: my_core :: __private :: MetaFields { name : \"wait\" , purpose : \"Queue wait experience.\" , trigger : \"Studio widget.\" , required : & [:: my_core :: params :: CallSid , \"CustomerId\"] , optional : \"\" , optional_env : \"\" , dependencies : \"Email provider\" , critical_logging : \"Task creation result\" , contacts : \"oncall@example.com\" , env : & [\"PLATFORM_WORKSPACE_SID\" , \"workflowSid\"] , secrets : & [\"CRM_API_KEY\" , \"crmPassword\"] , kind : :: my_core :: function :: Kind :: Task , timeout_ms : 2500u64 , debug_buffer_bytes : :: core :: option :: Option :: Some (8192u64) , module_path : :: core :: module_path ! () })"), "{out}");
        assert!(!out.contains("ccfn_core"), "{out}");
        assert!(
            out.contains("impl :: my_core :: function :: ContactFunction for wait_experience"),
            "{out}"
        );
    }

    #[test]
    fn optional_parameters_text_is_passed() {
        let item = ITEM.replace(
            "/// # Dependencies",
            "/// # Optional parameters\n/// mode, FlowSid\n/// # Optional environment\n/// CALLBACK_QUEUE_SID\n/// # Dependencies",
        );
        let out = expand_str("required = [CallSid, From, To]", &item).to_string();
        assert!(out.contains("trigger : \"Studio widget.\" , required : & [:: ccfn_core :: params :: CallSid , :: ccfn_core :: params :: From , :: ccfn_core :: params :: To] , optional : \"mode, FlowSid\" , optional_env : \"CALLBACK_QUEUE_SID\" , dependencies : \"Email provider\""), "{out}");
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

    /// The source text under the span of every identifier named `name`.
    fn texts_of(tokens: &TokenStream, name: &str) -> Vec<String> {
        all_idents(tokens)
            .iter()
            .filter(|i| *i == name)
            .map(|i| i.span().source_text().unwrap_or_default())
            .collect()
    }

    /// The source text under the span of the group right after each
    /// identifier named `name` (a call's parentheses), depth first.
    fn call_parens(tokens: TokenStream, name: &str, out: &mut Vec<String>) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            if let TokenTree::Group(group) = tree {
                call_parens(group.stream(), name, out);
            }
            if matches!(tree, TokenTree::Ident(ident) if ident == name) {
                let parens = trees[i + 1..].iter().find_map(|t| match t {
                    TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => Some(g),
                    _ => None,
                });
                out.push(parens.unwrap().span().source_text().unwrap_or_default());
            }
        }
    }

    #[test]
    fn handler_arguments_are_spanned_at_the_user_types() {
        let item = ITEM
            .replace("callback: Callback", "callback: MyCallback")
            .replace("event: Event", "event: ccfn_core::Event");
        let out = expand_str("required = [CallSid, From, To]", &item);
        // `param` at the type's first token, its parentheses at the last.
        assert_eq!(
            texts_of(&out, "param"),
            ["Context", "ccfn_core", "MyCallback"]
        );
        let mut parens = Vec::new();
        call_parens(out.clone(), "param", &mut parens);
        assert_eq!(parens, ["Context", "Event", "MyCallback"]);
        // The closure's parameters are located at the types too.
        assert_eq!(
            texts_of(&out, "__ccfn_event"),
            ["", "ccfn_core", "ccfn_core"],
            "the local fn, the parameter, the argument"
        );
    }

    #[test]
    fn handler_output_is_spanned_at_the_return_type() {
        let item = ITEM.replace("-> Completion", "-> Result<Completion, MyError>");
        let out = expand_str("required = [CallSid, From, To]", &item);
        for name in ["run", "completion"] {
            assert_eq!(texts_of(&out, name), ["Result"], "{name}");
            let mut parens = Vec::new();
            call_parens(out.clone(), name, &mut parens);
            assert_eq!(parens, [">"], "{name}");
        }
        assert_eq!(
            texts_of(&out, "__ccfn_handler"),
            ["wait_experience", "Result"],
            "the handler fn, then its call"
        );
        // No return type: at the `)` where `-> Completion` belongs.
        let item = ITEM.replace(" -> Completion", "");
        let out = expand_str("required = [CallSid, From, To]", &item);
        assert_eq!(texts_of(&out, "completion"), [")"]);
    }

    #[test]
    fn kind_and_timeout_keep_user_spans() {
        let out = expand_str("required = [Digits], kind = email, timeout_ms = 5", ITEM);
        let idents = all_idents(&out);
        let email = idents.iter().find(|i| *i == "Email").unwrap();
        assert_eq!(email.span().source_text().unwrap(), "email");
        assert!(out
            .to_string()
            .contains(":: Kind :: Email , timeout_ms : 5u64 , debug_buffer_bytes : :: core :: option :: Option :: None ,"));
    }

    #[test]
    fn body_tokens_are_untouched() {
        let item = ITEM.replace(
            "helper(context, event, callback).await",
            "#![allow(clippy::all)] let r#type = m!(@ weird $ tokens callback); r#type",
        );
        let out = expand_str("required = [CallSid, From, To]", &item).to_string();
        assert!(out.contains("-> Completion { #! [allow (clippy :: all)] let r#type = m ! (@ weird $ tokens callback) ; r#type }"), "{out}");
    }

    /// The output without its `compile_error!`s, which must parse as
    /// items.
    fn without_errors(out: &TokenStream) -> String {
        let text = out.to_string();
        let at = text.find(":: core :: compile_error").unwrap_or(text.len());
        syn::parse_str::<syn::File>(&text[..at]).expect("the stand-in is valid Rust");
        text[..at].to_owned()
    }

    #[test]
    fn a_rejected_signature_keeps_what_registration_needs() {
        let item = ITEM.replace("async ", "");
        let out = expand_str("required = [CallSid, Frm]", &item);
        let text = out.to_string();
        assert_eq!(text.matches("compile_error").count(), 2, "{text}");
        assert!(text.contains("requires an `async fn`"), "{text}");
        assert!(text.contains("missing `To`"), "{text}");
        let stand_in = without_errors(&out);
        // The struct, its `META` and its `ContactFunction` impl, as in a
        // valid expansion; `invoke` is the stand-in. The handler is kept,
        // `async` added, never called: rustc resolves and checks its body
        // (an import used only there is not reported unused).
        assert!(stand_in.contains("# [allow (dead_code , unused_variables , unused_mut , unused_must_use , unreachable_code , clippy :: all)] # [allow (unused_variables)] async fn __ccfn_handler (context : Context , event : Event , callback : Callback) -> Completion { helper (context , event , callback) . await }"), "{stand_in}");
        assert_eq!(
            stand_in.matches("__ccfn_handler").count(),
            1,
            "never called: {stand_in}"
        );
        assert!(
            stand_in.contains("pub struct wait_experience ;"),
            "{stand_in}"
        );
        assert!(
            stand_in.contains("pub const META : :: ccfn_core :: function :: FunctionMeta"),
            "{stand_in}"
        );
        assert!(
            stand_in
                .contains("impl :: ccfn_core :: function :: ContactFunction for wait_experience"),
            "{stand_in}"
        );
        assert!(stand_in.contains("fn meta (& self) -> & 'static :: ccfn_core :: function :: FunctionMeta { & Self :: META }"), "{stand_in}");
        assert!(
            stand_in.contains(
                ":: ccfn_core :: __private :: rejected (& Self :: META , context , event)"
            ),
            "{stand_in}"
        );
        // `required` as strings: the names are looked up by the probe
        // alone, so that a typo is reported once.
        assert!(
            stand_in.contains("required : & [\"CallSid\" , \"Frm\"]"),
            "{stand_in}"
        );
        assert!(
            stand_in.contains("name : \"wait-experience\""),
            "{stand_in}"
        );
        // The probe: a `use P::params::{.. as _};` per identifier, each
        // spanned at the user's identifier, so rustc reports a typo there.
        assert!(stand_in.contains("const _ : () = { # [allow (unused_imports)] use :: ccfn_core :: params :: { CallSid as _ } ; # [allow (unused_imports)] use :: ccfn_core :: params :: { Frm as _ } ; } ;"), "{stand_in}");
        assert_eq!(texts_of(&out, "Frm"), ["Frm"]);
        // (The first is the signature's glob import.)
        assert_eq!(texts_of(&out, "use"), ["", "CallSid", "Frm"]);
        // The cfgs go on every item, as in a valid expansion.
        assert_eq!(
            stand_in.matches("# [cfg (feature = \"voice\")]").count(),
            5,
            "{stand_in}"
        );
    }

    #[test]
    fn a_rejected_handler_keeps_its_generics_and_loses_const() {
        let item = ITEM.replace(
            "pub async fn wait_experience(",
            "pub const async unsafe extern \"C\" fn wait_experience<T: Copy>(",
        );
        let stand_in = without_errors(&expand_str("required = [CallSid, From, To]", &item));
        assert!(
            stand_in.contains(
                "async unsafe extern \"C\" fn __ccfn_handler < T : Copy > (context : Context"
            ),
            "{stand_in}"
        );
        assert!(!stand_in.contains("const async"), "{stand_in}");
    }

    #[test]
    fn a_body_that_never_uses_the_callback_is_kept_without_its_tail() {
        for (body, kept) in [
            (
                "let twiml = VoiceResponse::new(); twiml",
                "{ let twiml = VoiceResponse :: new () ; twiml ; loop { } }",
            ),
            ("let _ = 1;", "{ let _ = 1 ; loop { } }"),
            (
                "if true { 1 } else { 2 }",
                "{ if true { 1 } else { 2 } ; loop { } }",
            ),
        ] {
            let item = ITEM.replace("helper(context, event, callback).await", body);
            let out = expand_str("required = [CallSid, From, To]", &item);
            assert!(out.to_string().contains("is never used"), "{out}");
            let stand_in = without_errors(&out);
            assert!(
                stand_in.contains(&format!("-> Completion {kept}")),
                "{body}: {stand_in}"
            );
            assert!(stand_in.contains("__private :: rejected"), "{stand_in}");
        }
    }

    #[test]
    fn a_rejected_header_keeps_the_handler_and_calls_it() {
        let out = expand_str("required = [CallSid, From, To], timeout_ms = 0", ITEM);
        let text = out.to_string();
        assert_eq!(text.matches("compile_error").count(), 1, "{text}");
        let stand_in = without_errors(&out);
        // The body is still checked by rustc, and the handler is used.
        assert!(stand_in.contains("async fn __ccfn_handler (context : Context , event : Event , callback : Callback) -> Completion { helper (context , event , callback) . await }"), "{stand_in}");
        assert!(
            stand_in.contains(":: ccfn_core :: __private :: run (& Self :: META"),
            "{stand_in}"
        );
        assert!(!stand_in.contains("rejected"), "{stand_in}");
        // The default for what was rejected.
        assert!(stand_in.contains("timeout_ms : 10000u64"), "{stand_in}");
    }

    #[test]
    fn a_rejected_crate_path_falls_back_to_ccfn_core() {
        let out = expand_str("required = [CallSid, From, To], crate = \"a b\"", ITEM);
        let stand_in = without_errors(&out);
        assert!(
            stand_in
                .contains("impl :: ccfn_core :: function :: ContactFunction for wait_experience"),
            "{stand_in}"
        );
        let out = expand_str(
            "required = [CallSid, From, To], crate = \"my_core\", kind = fax",
            ITEM,
        );
        let stand_in = without_errors(&out);
        assert!(
            stand_in.contains("impl my_core :: function :: ContactFunction for wait_experience"),
            "{stand_in}"
        );
        assert!(
            stand_in.contains("kind : my_core :: function :: Kind :: Voice"),
            "{stand_in}"
        );
    }

    #[test]
    fn fallback_probe_skips_strings() {
        let out = expand_str(
            "required = [\"CallSid\", From, To], crate = \"my_core\", bogus",
            ITEM,
        )
        .to_string();
        assert!(out.contains("const _ : () = { # [allow (unused_imports)] use my_core :: params :: { From as _ } ; # [allow (unused_imports)] use my_core :: params :: { To as _ } ; } ;"), "{out}");
        assert!(!out.contains("params :: { CallSid"), "{out}");
    }

    #[test]
    fn no_fallback_probe_without_a_usable_list_or_crate() {
        for args in [
            "required = [CallSid, From To]",
            "required = [CallSid, From, To], crate = \"a b\"",
            "required = [CallSid, From, To], crate = ccfn_core",
            "kind = task",
        ] {
            let out = expand_str(args, ITEM).to_string();
            assert!(!out.contains("params :: {"), "{args}: {out}");
            assert!(!out.contains("const _"), "{args}: {out}");
            assert!(out.contains("compile_error"), "{args}: {out}");
        }
        // Nor in a successful expansion, where `META` resolves the names:
        // its only import is the signature's names.
        let out = default_output().to_string();
        assert_eq!(out.matches("use ").count(), 1, "{out}");
        assert!(
            out.contains("use :: ccfn_core :: __private :: signature :: * ;"),
            "{out}"
        );
    }

    #[test]
    fn a_rejected_method_becomes_an_associated_constant() {
        let item = ITEM.replace("(context: Context,", "(&self,");
        let out = expand_str("required = [CallSid, From, To]", &item);
        let text = out.to_string();
        assert!(text.contains("# [cfg (feature = \"voice\")] # [cfg_attr (test , allow (dead_code))] # [allow (non_upper_case_globals)] pub const wait_experience : :: ccfn_core :: __private :: Rejected = :: ccfn_core :: __private :: Rejected ;"), "{text}");
        assert!(!text.contains("struct"), "no struct in an impl: {text}");
        // The method itself, renamed, so that its body is resolved.
        assert!(text.contains("async fn __ccfn_rejected_wait_experience (& self , event : Event , callback : Callback) -> Completion { helper (context , event , callback) . await }"), "{text}");
        assert!(text.contains("cannot take `self`"), "{text}");
        // A trait's declaration without a body: a constant with a value.
        let declaration = ITEM
            .replace("{\n    helper(context, event, callback).await\n}", ";")
            .replace("pub async", "async");
        let out = expand_str("required = [CallSid, From, To]", &declaration).to_string();
        assert!(out.contains("# [allow (non_upper_case_globals)] const wait_experience : :: ccfn_core :: __private :: Rejected = :: ccfn_core :: __private :: Rejected ;"), "{out}");
        assert!(out.contains("need a body"), "{out}");
    }

    #[test]
    fn non_function_gets_a_stand_in_impl() {
        let out = expand_str("required = [A], kind = task", "#[cfg(test)] struct S;").to_string();
        assert!(out.starts_with("# [cfg (test)] struct S ;"), "{out}");
        assert!(out.contains("# [cfg (test)] # [automatically_derived] impl :: ccfn_core :: function :: ContactFunction for S { fn meta (& self) -> & 'static :: ccfn_core :: function :: FunctionMeta { & :: ccfn_core :: __private :: Rejected :: META }"), "{out}");
        assert!(
            out.contains("can only be applied to an `async fn`"),
            "{out}"
        );
        // A generic type, or an item of another kind, is left as it is.
        for item in ["struct G<T>(T);", "const C: u8 = 1;"] {
            let out = expand_str("required = [A], kind = task", item).to_string();
            assert!(!out.contains("impl"), "{out}");
            assert!(
                out.starts_with(&item.parse::<TokenStream>().unwrap().to_string()),
                "{out}"
            );
        }
    }

    #[test]
    fn voice_rule_is_checked_again_when_a_misspelling_was_assumed() {
        let out = expand_str("required = [CallSid, Frm, To]", ITEM);
        let text = out.to_string();
        assert!(text.ends_with(&format!("const _ : () = :: core :: assert ! (:: ccfn_core :: __private :: has_voice_params (wait_experience :: META . required ()) , {VOICE_RECHECK:?}) ;")), "{text}");
        assert_eq!(texts_of(&out, "has_voice_params"), ["[CallSid, Frm, To]"]);
        assert_eq!(texts_of(&out, "assert"), ["[CallSid, Frm, To]"]);
        assert!(!default_output().to_string().contains("has_voice_params"));
    }
}
