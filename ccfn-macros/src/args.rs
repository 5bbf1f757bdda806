//! Parsing of the options inside `#[contact_fn(..)]`.
//!
//! This is syntax only: every option is kept with its spans, and the
//! semantic checks (duplicates, missing `required`, valid values) live in
//! `validate.rs`. Options are split at top-level commas first, so a broken
//! option does not hide the errors of the others.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{bracketed, token, Ident, Lit, LitStr, Token};

/// Keywords of the options.
pub(crate) mod kw {
    syn::custom_keyword!(required);
    syn::custom_keyword!(env);
    syn::custom_keyword!(secrets);
    syn::custom_keyword!(name);
    syn::custom_keyword!(kind);
    syn::custom_keyword!(timeout_ms);
    syn::custom_keyword!(debug_buffer_bytes);
}

/// Every option, as listed in the "unknown option" error.
pub(crate) const OPTIONS: &str =
    "`required`, `env`, `secrets`, `name`, `kind`, `timeout_ms`, `debug_buffer_bytes`, `crate`";

/// The example shown whenever `timeout_ms` has a bad value.
pub(crate) const TIMEOUT_HELP: &str =
    "`timeout_ms` must be a positive integer literal of milliseconds, e.g. `timeout_ms = 10000`";

/// The example shown whenever `debug_buffer_bytes` has a bad value.
pub(crate) const DEBUG_BUFFER_HELP: &str =
    "`debug_buffer_bytes` must be an integer literal of bytes (`0` for none), e.g. `debug_buffer_bytes = 65536`";

/// One option of `#[contact_fn(..)]`.
pub(crate) enum ContactOption {
    /// `required = [CallSid, "CustomerId"]`
    Required(NameList),
    /// `env = [PLATFORM_WORKSPACE_SID, "workflowSid"]`
    Env(NameList),
    /// `secrets = [CRM_API_KEY]`
    Secrets(NameList),
    /// `name = "wait-experience"`
    Name(Ident, LitStr),
    /// `kind = voice`
    Kind(Ident, Ident),
    /// `timeout_ms = 10000`
    TimeoutMs(Ident, Lit),
    /// `debug_buffer_bytes = 65536`
    DebugBufferBytes(Ident, Lit),
    /// `crate = "::ccfn_core"`
    Crate(Ident, LitStr),
}

impl ContactOption {
    /// The option's keyword, spanned where the user wrote it.
    pub(crate) fn keyword(&self) -> &Ident {
        match self {
            ContactOption::Required(list)
            | ContactOption::Env(list)
            | ContactOption::Secrets(list) => &list.keyword,
            ContactOption::Name(k, _)
            | ContactOption::Kind(k, _)
            | ContactOption::TimeoutMs(k, _)
            | ContactOption::DebugBufferBytes(k, _)
            | ContactOption::Crate(k, _) => k,
        }
    }
}

/// A bracketed list such as `[CallSid, "CustomerId"]`, with its keyword.
pub(crate) struct NameList {
    /// `required`, `env` or `secrets`.
    pub(crate) keyword: Ident,
    /// The `[..]`.
    pub(crate) bracket: token::Bracket,
    /// The entries, in order.
    pub(crate) items: Punctuated<NameItem, Token![,]>,
}

impl NameList {
    /// The span of the whole `[..]`.
    pub(crate) fn span(&self) -> Span {
        self.bracket.span.join()
    }
}

/// An entry of `required = [..]` or `env = [..]`.
#[derive(Clone)]
pub(crate) enum NameItem {
    /// A bare identifier: a well-known parameter (checked by rustc).
    Ident(Ident),
    /// A string literal: a custom name (unchecked).
    Str(LitStr),
}

impl NameItem {
    /// The name as a plain string (raw identifiers unrawed).
    pub(crate) fn value(&self) -> String {
        match self {
            NameItem::Ident(ident) => ident.unraw().to_string(),
            NameItem::Str(lit) => lit.value(),
        }
    }

    /// Where the entry was written.
    pub(crate) fn span(&self) -> Span {
        match self {
            NameItem::Ident(ident) => ident.span(),
            NameItem::Str(lit) => lit.span(),
        }
    }
}

impl Parse for NameItem {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let lookahead = input.lookahead1();
        if lookahead.peek(Ident) {
            input.parse().map(NameItem::Ident)
        } else if lookahead.peek(LitStr) {
            input.parse().map(NameItem::Str)
        } else {
            Err(lookahead.error())
        }
    }
}

impl Parse for ContactOption {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let lookahead = input.lookahead1();
        let option = if lookahead.peek(kw::required)
            || lookahead.peek(kw::env)
            || lookahead.peek(kw::secrets)
        {
            let keyword = Ident::parse_any(input)?;
            input.parse::<Token![=]>()?;
            let list = parse_list(keyword, input)?;
            if list.keyword == "required" {
                ContactOption::Required(list)
            } else if list.keyword == "env" {
                ContactOption::Env(list)
            } else {
                ContactOption::Secrets(list)
            }
        } else if lookahead.peek(kw::name) {
            let keyword = Ident::parse_any(input)?;
            input.parse::<Token![=]>()?;
            ContactOption::Name(keyword, parse_string_value("name", input)?)
        } else if lookahead.peek(kw::kind) {
            let keyword = Ident::parse_any(input)?;
            input.parse::<Token![=]>()?;
            ContactOption::Kind(keyword, parse_kind_value(input)?)
        } else if lookahead.peek(kw::timeout_ms) {
            let keyword = Ident::parse_any(input)?;
            input.parse::<Token![=]>()?;
            ContactOption::TimeoutMs(keyword, parse_literal_value(input, TIMEOUT_HELP)?)
        } else if lookahead.peek(kw::debug_buffer_bytes) {
            let keyword = Ident::parse_any(input)?;
            input.parse::<Token![=]>()?;
            ContactOption::DebugBufferBytes(keyword, parse_literal_value(input, DEBUG_BUFFER_HELP)?)
        } else if lookahead.peek(Token![crate]) {
            let keyword = Ident::parse_any(input)?;
            input.parse::<Token![=]>()?;
            ContactOption::Crate(keyword, parse_string_value("crate", input)?)
        } else if input.peek(Ident::peek_any) {
            let unknown = Ident::parse_any(input)?;
            let message = match crate::validate::suggested_option(&unknown.to_string()) {
                Some(option) => format!(
                    "unknown option `{unknown}`; did you mean `{option}`? expected one of: {OPTIONS}"
                ),
                None => format!("unknown option `{unknown}`, expected one of: {OPTIONS}"),
            };
            return Err(syn::Error::new(unknown.span(), message));
        } else {
            return Err(lookahead.error());
        };
        if !input.is_empty() {
            return Err(input.error("expected `,` between options"));
        }
        Ok(option)
    }
}

/// `[a, "b", ..]` after `required =` / `env =`.
fn parse_list(keyword: Ident, input: ParseStream<'_>) -> syn::Result<NameList> {
    if !input.peek(token::Bracket) {
        return Err(input.error(format!(
            "expected a list in brackets, e.g. `{keyword} = [{}]`",
            if keyword == "required" {
                "CallSid, From, To"
            } else {
                list_example(&keyword)
            }
        )));
    }
    let content;
    let bracket = bracketed!(content in input);
    let example = list_example(&keyword);
    let mut items = Punctuated::new();
    while !content.is_empty() {
        if !(content.peek(Ident) || content.peek(LitStr)) {
            let entry = tokens_before_comma(&content)?;
            let what = if keyword == "required" {
                "a parameter name or a string"
            } else {
                "a name or a string"
            };
            return Err(syn::Error::new_spanned(
                entry,
                format!("expected {what} in `{keyword}`, e.g. `{keyword} = [{example}]`"),
            ));
        }
        items.push_value(content.parse()?);
        if content.is_empty() {
            break;
        }
        if !content.peek(Token![,]) {
            return Err(content.error(format!(
                "expected `,` between the entries of `{keyword}`, e.g. `{keyword} = [{example}]`"
            )));
        }
        items.push_punct(content.parse()?);
    }
    Ok(NameList {
        keyword,
        bracket,
        items,
    })
}

/// The example list shown in the errors of `required`, `env` and
/// `secrets`.
fn list_example(keyword: &Ident) -> &'static str {
    if keyword == "required" {
        "CallSid, From, To, \"CustomerId\""
    } else if keyword == "env" {
        "PLATFORM_WORKSPACE_SID, \"workflowSid\""
    } else {
        "CRM_API_KEY"
    }
}

/// The tokens up to the next `,` (or the end), consumed.
fn tokens_before_comma(input: ParseStream<'_>) -> syn::Result<TokenStream> {
    input.step(|cursor| {
        let mut rest = *cursor;
        let mut tokens = TokenStream::new();
        while let Some((tree, next)) = rest.token_tree() {
            if matches!(&tree, TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            tokens.extend([tree]);
            rest = next;
        }
        Ok((tokens, rest))
    })
}

/// The string after `name =` or `crate =`. Anything else is an error that
/// spans the whole value and shows it quoted when it is one token (or, for
/// `crate`, a path).
fn parse_string_value(keyword: &str, input: ParseStream<'_>) -> syn::Result<LitStr> {
    if input.peek(LitStr) {
        return input.parse();
    }
    if input.is_empty() {
        return Err(syn::Error::new(
            input.span(),
            format!("expected a string after `{keyword} =`"),
        ));
    }
    let value: TokenStream = input.parse()?;
    let quotable = if keyword == "crate" {
        syn::parse2::<syn::Path>(value.clone())
            .ok()
            .map(|path| path.to_token_stream().to_string().replace(' ', ""))
    } else {
        let mut trees = value.clone().into_iter();
        match (trees.next(), trees.next()) {
            (Some(TokenTree::Ident(ident)), None) => Some(ident.to_string()),
            (Some(TokenTree::Literal(lit)), None) => Some(lit.to_string()),
            _ => None,
        }
    };
    let message = match quotable {
        Some(text) => format!("`{keyword}` takes a string: write `{keyword} = \"{text}\"`"),
        None if keyword == "crate" => {
            "`crate` takes a string holding a path, e.g. `crate = \"::ccfn_core\"`".to_owned()
        }
        None => format!("`{keyword}` takes a string, e.g. `{keyword} = \"wait-experience\"`"),
    };
    Err(syn::Error::new_spanned(value, message))
}

/// The single literal after `timeout_ms =` or `debug_buffer_bytes =`;
/// anything else (a constant, an expression, a negative number) is an
/// error spanning the whole value, saying `help`.
fn parse_literal_value(input: ParseStream<'_>, help: &str) -> syn::Result<Lit> {
    // syn reads `-1` as one literal spanned at `-` only: keep it whole.
    if !input.peek(Token![-]) {
        let fork = input.fork();
        if fork.parse::<Lit>().is_ok() && fork.is_empty() {
            return input.parse();
        }
    }
    if input.is_empty() {
        return Err(syn::Error::new(input.span(), help));
    }
    let value: TokenStream = input.parse()?;
    Err(syn::Error::new_spanned(value, help))
}

/// The bare word after `kind =`.
fn parse_kind_value(input: ParseStream<'_>) -> syn::Result<Ident> {
    if input.peek(LitStr) {
        let lit: LitStr = input.parse()?;
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`kind` takes a bare word, not a string: write `kind = {}`",
                lit.value()
            ),
        ));
    }
    Ident::parse_any(input)
}

/// The options of one `#[contact_fn(..)]`, as far as they parsed.
#[derive(Default)]
pub(crate) struct Options {
    /// The options that parsed, in order.
    pub(crate) list: Vec<ContactOption>,
    /// One error per option that did not parse.
    pub(crate) errors: Vec<syn::Error>,
    /// The keywords of the options that did not parse (`required`, ...),
    /// so that no "missing" error is reported for them.
    pub(crate) broken: Vec<String>,
}

impl Options {
    /// Whether an option with this keyword was written but did not parse.
    pub(crate) fn is_broken(&self, keyword: &str) -> bool {
        self.broken.iter().any(|k| k == keyword)
    }
}

/// Parses the attribute's arguments option by option.
pub(crate) fn parse_options(args: TokenStream) -> Options {
    let mut options = Options::default();
    for chunk in split_top_level_commas(args) {
        match chunk {
            Chunk::Empty(span) => options.errors.push(syn::Error::new(
                span,
                format!("expected an option, one of: {OPTIONS}"),
            )),
            Chunk::Tokens(tokens) => {
                let first = match tokens.clone().into_iter().next() {
                    Some(TokenTree::Ident(ident)) => Some(ident.to_string()),
                    _ => None,
                };
                match syn::parse2::<ContactOption>(tokens) {
                    Ok(option) => options.list.push(option),
                    Err(err) => {
                        options.errors.push(err);
                        options.broken.extend(first);
                    }
                }
            }
        }
    }
    options
}

/// The tokens between two top-level commas.
enum Chunk {
    /// Nothing between two commas (`a,,b`), spanned at the second comma.
    Empty(Span),
    /// One option's tokens.
    Tokens(TokenStream),
}

/// Splits `a = 1, b = [x, y]` into `a = 1` and `b = [x, y]`; a trailing
/// comma is allowed.
fn split_top_level_commas(args: TokenStream) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut current = TokenStream::new();
    for tree in args {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                let done = std::mem::take(&mut current);
                if done.is_empty() {
                    chunks.push(Chunk::Empty(p.span()));
                } else {
                    chunks.push(Chunk::Tokens(done));
                }
            }
            _ => current.extend([tree]),
        }
    }
    if !current.is_empty() {
        chunks.push(Chunk::Tokens(current));
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse_ok(args: TokenStream) -> Vec<ContactOption> {
        let options = parse_options(args);
        let messages: Vec<String> = options.errors.iter().map(ToString::to_string).collect();
        assert!(messages.is_empty(), "unexpected errors: {messages:?}");
        assert!(options.broken.is_empty());
        options.list
    }

    fn parse_err(args: TokenStream) -> Vec<String> {
        let options = parse_options(args);
        assert!(options.list.is_empty(), "some options parsed");
        options.errors.iter().map(ToString::to_string).collect()
    }

    fn values(list: &NameList) -> Vec<String> {
        list.items.iter().map(NameItem::value).collect()
    }

    #[test]
    fn parses_every_option() {
        let options = parse_ok(quote! {
            required = [CallSid, From, "CustomerId"],
            env = [PLATFORM_WORKSPACE_SID, "workflowSid"],
            name = "wait",
            kind = email,
            timeout_ms = 2500,
            crate = "my_core",
        });
        assert_eq!(options.len(), 6);
        match &options[0] {
            ContactOption::Required(list) => {
                assert_eq!(values(list), ["CallSid", "From", "CustomerId"]);
                assert!(matches!(list.items[0], NameItem::Ident(_)));
                assert!(matches!(list.items[2], NameItem::Str(_)));
            }
            _ => panic!("expected required"),
        }
        match &options[1] {
            ContactOption::Env(list) => {
                assert_eq!(values(list), ["PLATFORM_WORKSPACE_SID", "workflowSid"]);
            }
            _ => panic!("expected env"),
        }
        match &options[2] {
            ContactOption::Name(k, v) => {
                assert_eq!(k, "name");
                assert_eq!(v.value(), "wait");
            }
            _ => panic!("expected name"),
        }
        match &options[3] {
            ContactOption::Kind(k, v) => {
                assert_eq!(k, "kind");
                assert_eq!(v, "email");
            }
            _ => panic!("expected kind"),
        }
        match &options[4] {
            ContactOption::TimeoutMs(k, Lit::Int(v)) => {
                assert_eq!(k, "timeout_ms");
                assert_eq!(v.base10_digits(), "2500");
            }
            _ => panic!("expected timeout_ms"),
        }
        match &options[5] {
            ContactOption::Crate(k, v) => {
                assert_eq!(k, "crate");
                assert_eq!(v.value(), "my_core");
            }
            _ => panic!("expected crate"),
        }
    }

    #[test]
    fn keyword_is_kept() {
        let options = parse_ok(quote!(env = [], crate = "x"));
        let names: Vec<String> = options.iter().map(|o| o.keyword().to_string()).collect();
        assert_eq!(names, ["env", "crate"]);
    }

    #[test]
    fn empty_lists_and_trailing_commas_parse() {
        let options = parse_ok(quote!(required = [], env = [A, B,],));
        match &options[1] {
            ContactOption::Env(list) => assert_eq!(values(list), ["A", "B"]),
            _ => panic!("expected env"),
        }
        assert!(parse_ok(TokenStream::new()).is_empty());
    }

    #[test]
    fn raw_identifiers_are_unrawed() {
        let options = parse_ok(quote!(env = [r#type]));
        match &options[0] {
            ContactOption::Env(list) => assert_eq!(values(list), ["type"]),
            _ => panic!("expected env"),
        }
    }

    #[test]
    fn unknown_option_is_reported_and_others_still_parse() {
        let options = parse_options(quote!(foo = 1, required = [CallSid], bar));
        assert_eq!(options.list.len(), 1);
        assert_eq!(options.broken, ["foo", "bar"]);
        let messages: Vec<String> = options.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "unknown option `foo`, expected one of: `required`, `env`, `secrets`, `name`, `kind`, `timeout_ms`, `debug_buffer_bytes`, `crate`",
                "unknown option `bar`, expected one of: `required`, `env`, `secrets`, `name`, `kind`, `timeout_ms`, `debug_buffer_bytes`, `crate`",
            ]
        );
    }

    #[test]
    fn syntax_errors() {
        assert_eq!(
            parse_err(quote!(required = CallSid)),
            ["expected a list in brackets, e.g. `required = [CallSid, From, To]`"]
        );
        assert_eq!(
            parse_err(quote!(env = "x")),
            ["expected a list in brackets, e.g. `env = [PLATFORM_WORKSPACE_SID, \"workflowSid\"]`"]
        );
        assert_eq!(
            parse_err(quote!(required = [CallSid From])),
            ["expected `,` between the entries of `required`, e.g. `required = [CallSid, From, To, \"CustomerId\"]`"]
        );
        assert_eq!(
            parse_err(quote!(env = [A B])),
            ["expected `,` between the entries of `env`, e.g. `env = [PLATFORM_WORKSPACE_SID, \"workflowSid\"]`"]
        );
        assert_eq!(
            parse_err(quote!(required = [1])),
            ["expected a parameter name or a string in `required`, e.g. `required = [CallSid, From, To, \"CustomerId\"]`"]
        );
        assert_eq!(
            parse_err(quote!(env = [A, 1])),
            ["expected a name or a string in `env`, e.g. `env = [PLATFORM_WORKSPACE_SID, \"workflowSid\"]`"]
        );
        assert_eq!(
            parse_err(quote!(required = [A] env = [])),
            ["expected `,` between options"]
        );
        assert_eq!(
            parse_err(quote!(name = greeting)),
            ["`name` takes a string: write `name = \"greeting\"`"]
        );
        assert_eq!(
            parse_err(quote!(name = 42)),
            ["`name` takes a string: write `name = \"42\"`"]
        );
        assert_eq!(
            parse_err(quote!(name = wait - experience)),
            ["`name` takes a string, e.g. `name = \"wait-experience\"`"]
        );
        assert_eq!(
            parse_err(quote!(name =)),
            ["expected a string after `name =`"]
        );
        assert_eq!(
            parse_err(quote!(crate = ccfn_core)),
            ["`crate` takes a string: write `crate = \"ccfn_core\"`"]
        );
        assert_eq!(
            parse_err(quote!(crate = ::my::core)),
            ["`crate` takes a string: write `crate = \"::my::core\"`"]
        );
        assert_eq!(
            parse_err(quote!(crate = 1 + 1)),
            ["`crate` takes a string holding a path, e.g. `crate = \"::ccfn_core\"`"]
        );
        assert_eq!(parse_err(quote!(kind voice)), ["expected `=`"]);
        assert_eq!(
            parse_err(quote!(kind = "email")),
            ["`kind` takes a bare word, not a string: write `kind = email`"]
        );
        assert_eq!(parse_err(quote!(timeout_ms = TEN)), [TIMEOUT_HELP]);
        assert_eq!(parse_err(quote!(timeout_ms = -5)), [TIMEOUT_HELP]);
        assert_eq!(parse_err(quote!(timeout_ms = 10 * 1000)), [TIMEOUT_HELP]);
        assert_eq!(parse_err(quote!(timeout_ms =)), [TIMEOUT_HELP]);
        assert_eq!(
            parse_err(quote!(debug_buffer_bytes = -1)),
            [DEBUG_BUFFER_HELP]
        );
        assert_eq!(
            parse_err(quote!(debug_buffer_bytes = 64 * 1024)),
            [DEBUG_BUFFER_HELP]
        );
        assert_eq!(
            parse_err(quote!(1)),
            ["expected one of: `required`, `env`, `secrets`, `name`, `kind`, `timeout_ms`, `debug_buffer_bytes`, `crate`"]
        );
    }

    #[test]
    fn double_comma_is_an_error_between_good_options() {
        let options = parse_options(quote!(required = [A],, env = []));
        assert_eq!(options.list.len(), 2);
        let messages: Vec<String> = options.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            ["expected an option, one of: `required`, `env`, `secrets`, `name`, `kind`, `timeout_ms`, `debug_buffer_bytes`, `crate`"]
        );
    }

    #[test]
    fn values_keep_their_spans() {
        let tokens: TokenStream = "required = [CallSid, \"Custom\"], name = \"n\", kind = task"
            .parse()
            .unwrap();
        let options = parse_ok(tokens);
        let ContactOption::Required(list) = &options[0] else {
            panic!("expected required")
        };
        assert_eq!(list.span().source_text().unwrap(), "[CallSid, \"Custom\"]");
        assert_eq!(list.items[1].span().source_text().unwrap(), "\"Custom\"");
        let ContactOption::Kind(k, v) = &options[2] else {
            panic!("expected kind")
        };
        assert_eq!(k.span().source_text().unwrap(), "kind");
        assert_eq!(v.span().source_text().unwrap(), "task");
    }

    #[test]
    fn unknown_option_error_is_on_the_option() {
        let tokens: TokenStream = "required = [A], bogus = 1".parse().unwrap();
        let options = parse_options(tokens);
        assert_eq!(options.errors[0].span().source_text().unwrap(), "bogus");
    }

    #[test]
    fn broken_options_are_remembered() {
        let options = parse_options(quote!(required = CallSid, kind = "voice", name = "n"));
        assert_eq!(options.list.len(), 1);
        assert!(options.is_broken("required"));
        assert!(options.is_broken("kind"));
        assert!(!options.is_broken("name"));
    }

    #[test]
    fn timeout_accepts_any_literal_for_validation() {
        let options = parse_ok(quote!(timeout_ms = "5"));
        assert!(matches!(
            &options[0],
            ContactOption::TimeoutMs(_, Lit::Str(_))
        ));
        let options = parse_ok(quote!(timeout_ms = true));
        assert!(matches!(
            &options[0],
            ContactOption::TimeoutMs(_, Lit::Bool(_))
        ));
    }

    /// The source text under each error's span.
    fn error_texts(args: &str) -> Vec<String> {
        parse_options(args.parse().unwrap())
            .errors
            .iter()
            .map(|e| e.span().source_text().unwrap())
            .collect()
    }

    #[test]
    fn errors_span_the_whole_value() {
        assert_eq!(error_texts("timeout_ms = -1"), ["-1"]);
        assert_eq!(error_texts("timeout_ms = 10 * 1000"), ["10 * 1000"]);
        assert_eq!(
            error_texts("name = wait - experience"),
            ["wait - experience"]
        );
        assert_eq!(error_texts("crate = ::ccfn_core"), ["::ccfn_core"]);
        assert_eq!(error_texts("required = [CallSid, -1, To]"), ["-1"]);
        assert_eq!(error_texts("required = [CallSid, From To]"), ["To"]);
    }

    #[test]
    fn split_keeps_nested_commas() {
        let chunks = split_top_level_commas(quote!(a = [x, y], b = 1,));
        assert_eq!(chunks.len(), 2);
        let Chunk::Tokens(first) = &chunks[0] else {
            panic!("expected tokens")
        };
        assert_eq!(first.to_string(), quote!(a = [x, y]).to_string());
    }
}
