//! Semantic checks: every problem is collected, then reported at once.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::ext::IdentExt;
use syn::{FnArg, Ident, Lit, LitStr, Path, Safety};

use crate::args::{ContactOption, NameItem, NameList, Options, DEBUG_BUFFER_HELP, TIMEOUT_HELP};
use crate::item::{doc_lines, headings, kebab_case, parse_header, ContactItem, Header};

/// The shape every handler must have, for error messages.
fn expected_shape(name: &str) -> String {
    format!("`async fn {name}(context: Context, event: Event, callback: Callback) -> Completion`")
}

/// Collects errors so that all of them are reported together.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    /// Adds an error.
    pub(crate) fn add(&mut self, err: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(err),
            None => self.0 = Some(err),
        }
    }

    /// Adds an error with this span and message.
    pub(crate) fn push(&mut self, span: Span, message: impl std::fmt::Display) {
        self.add(syn::Error::new(span, message));
    }

    /// Adds an error spanning every token of `node`, not only its first.
    pub(crate) fn push_spanned(&mut self, node: impl ToTokens, message: impl std::fmt::Display) {
        self.add(syn::Error::new_spanned(node, message));
    }

    /// How many errors were added.
    pub(crate) fn len(&self) -> usize {
        self.0
            .as_ref()
            .map_or(0, |err| err.clone().into_iter().count())
    }

    /// Every error combined; one saying so if none was added (callers
    /// only ask after adding one).
    pub(crate) fn into_error(self) -> syn::Error {
        self.0.unwrap_or_else(|| {
            syn::Error::new(
                Span::call_site(),
                "#[contact_fn]: internal error, please report it",
            )
        })
    }
}

/// `kind = ..`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// `voice` (the default).
    Voice,
    /// `email`.
    Email,
    /// `task`.
    Task,
    /// `generic`.
    Generic,
}

impl Kind {
    /// Reads `voice`, `email`, `task` or `generic`.
    fn from_word(word: &str) -> Option<Kind> {
        match word {
            "voice" => Some(Kind::Voice),
            "email" => Some(Kind::Email),
            "task" => Some(Kind::Task),
            "generic" => Some(Kind::Generic),
            _ => None,
        }
    }

    /// The variant's name in `ccfn_core::function::Kind`.
    pub(crate) fn variant(self) -> &'static str {
        match self {
            Kind::Voice => "Voice",
            Kind::Email => "Email",
            Kind::Task => "Task",
            Kind::Generic => "Generic",
        }
    }
}

/// A value together with the span it came from (`call_site` for defaults).
#[derive(Clone, Debug)]
pub(crate) struct WithSpan<T> {
    /// The value.
    pub(crate) value: T,
    /// Where it was written.
    pub(crate) span: Span,
}

impl<T> WithSpan<T> {
    fn new(value: T, span: Span) -> Self {
        WithSpan { value, span }
    }
}

/// The texts of the doc-comment header, ready for `FunctionMeta`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HeaderTexts {
    /// First paragraph.
    pub(crate) purpose: String,
    /// `# Trigger`.
    pub(crate) trigger: String,
    /// `# Optional parameters`, or empty.
    pub(crate) optional: String,
    /// `# Optional environment`, or empty.
    pub(crate) optional_env: String,
    /// `# Dependencies`.
    pub(crate) dependencies: String,
    /// `# Critical logging`.
    pub(crate) critical_logging: String,
    /// `# Contacts`.
    pub(crate) contacts: String,
}

/// Everything the expansion needs, all checked.
pub(crate) struct Checked {
    /// The function.
    pub(crate) item: ContactItem,
    /// The path of ccfn-core (`::ccfn_core` unless `crate = ".."`).
    pub(crate) krate: TokenStream,
    /// `name = ".."` or the kebab-case fn name.
    pub(crate) name: WithSpan<String>,
    /// `kind = ..` or `voice`.
    pub(crate) kind: WithSpan<Kind>,
    /// `timeout_ms = ..` or 10000.
    pub(crate) timeout_ms: WithSpan<u64>,
    /// `debug_buffer_bytes = ..`, when written.
    pub(crate) debug_buffer_bytes: Option<WithSpan<u64>>,
    /// `required = [..]`, in order.
    pub(crate) required: Vec<NameItem>,
    /// `env = [..]`, in order (empty if absent).
    pub(crate) env: Vec<NameItem>,
    /// `secrets = [..]`, in order (empty if absent).
    pub(crate) secrets: Vec<NameItem>,
    /// The header from the doc comment.
    pub(crate) header: HeaderTexts,
    /// Where `required` was written, when a call parameter missing from a
    /// voice function was taken for a misspelled identifier (`Frm`): the
    /// expansion then checks the voice rule again at compile time, in case
    /// that identifier is a well-known parameter after all.
    pub(crate) voice_recheck: Option<Span>,
}

/// The default `timeout_ms`.
pub(crate) const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// The parameters every voice function must require.
const VOICE_PARAMS: [&str; 3] = ["CallSid", "From", "To"];

/// The options after duplicates are removed (first occurrence wins).
#[derive(Default)]
struct Chosen<'a> {
    required: Option<&'a NameList>,
    env: Option<&'a NameList>,
    secrets: Option<&'a NameList>,
    name: Option<&'a LitStr>,
    kind: Option<&'a Ident>,
    timeout_ms: Option<&'a Lit>,
    debug_buffer_bytes: Option<&'a Lit>,
    krate: Option<&'a LitStr>,
}

/// A function `#[contact_fn]` rejected: every error, and what the
/// expansion emits in its place so that registering the function reports
/// no error of its own.
pub(crate) struct Rejected {
    /// Every error, combined.
    pub(crate) error: syn::Error,
    /// The path of ccfn-core: as written when it parsed, else `::ccfn_core`.
    pub(crate) krate: TokenStream,
    /// The function with every part that was checked, and a default for
    /// each part that was not (name, kind, timeout, header texts);
    /// `None` when the item is not a function with a body.
    pub(crate) parts: Option<Box<Checked>>,
    /// What becomes of the handler.
    pub(crate) handler: Handler,
}

/// What a rejected function's expansion does with its handler. It is
/// always emitted, so that rustc resolves the names of its body (an import
/// used only there is not reported unused) and checks it, but only as far
/// as no error of rustc's repeats the macro's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Handler {
    /// Signature and body passed their checks: emitted and called as in a
    /// valid expansion.
    Called,
    /// The signature was rejected (or a secret is read as text): emitted
    /// without `const` (rustc rejects `const async fn` itself), never
    /// called.
    Kept,
    /// The body never uses the callback, so it cannot end with a
    /// `Completion`: emitted with its last expression as a statement, never
    /// called (rustc would otherwise report the mismatched type as well).
    KeptWithoutTail,
}

/// Runs every check; on success returns what the expansion needs, else all
/// errors combined with the parts that parsed.
pub(crate) fn check(options: Options, item: syn::Result<ContactItem>) -> Result<Checked, Rejected> {
    let mut errors = Errors::default();
    for err in &options.errors {
        errors.add(err.clone());
    }
    let chosen = choose(&options.list, &mut errors);

    let required = check_required(chosen.required, &options, &mut errors);
    let env = chosen
        .env
        .map(|list| check_list(list, "name", &mut errors))
        .unwrap_or_default();
    let secrets = chosen
        .secrets
        .map(|list| check_list(list, "name", &mut errors))
        .unwrap_or_default();
    check_secret_not_env(&env, &secrets, &mut errors);
    let kind = check_kind(chosen.kind, &mut errors);
    let timeout_ms = check_timeout(chosen.timeout_ms, &mut errors);
    let debug_buffer_bytes = chosen
        .debug_buffer_bytes
        .map(|lit| check_debug_buffer(lit, &mut errors));
    let krate = check_crate(chosen.krate, &mut errors);
    let name = chosen.name.and_then(|lit| check_name(lit, &mut errors));
    // Without a usable `required` (missing or broken) its own error is
    // enough: one mistake, one error.
    let mut voice_recheck = None;
    if let (Some(Kind::Voice), Some(list)) = (kind.as_ref().map(|k| k.value), chosen.required)
        && !options.is_broken("required")
        && !options.is_broken("kind")
    {
        voice_recheck = check_voice(list, &mut errors);
    }

    let item = match item {
        Ok(item) => item,
        Err(err) => {
            errors.add(err);
            return Err(Rejected {
                error: errors.into_error(),
                krate: krate.unwrap_or_else(|| quote!(::ccfn_core)),
                parts: None,
                handler: Handler::Kept,
            });
        }
    };
    let before = errors.len();
    let mut handler = Handler::Called;
    if check_signature(&item, &mut errors) && !check_callback_used(&item, &mut errors) {
        handler = Handler::KeptWithoutTail;
    }
    check_secret_reads(&item, &secrets, &mut errors);
    if handler == Handler::Called && errors.len() != before {
        handler = Handler::Kept;
    }
    let name = name.or_else(|| default_name(&item, chosen.name.is_some(), &mut errors));
    let header = check_header(&item, &mut errors);

    if errors.len() == 0 {
        if let (Some(krate), Some(name), Some(kind), Some(timeout_ms), Some(required)) = (
            krate.clone(),
            name.clone(),
            kind.clone(),
            timeout_ms.clone(),
            required.clone(),
        ) && let Some(debug_buffer_bytes) = match &debug_buffer_bytes {
            None => Some(None),
            Some(bytes) => bytes.clone().map(Some),
        } {
            return Ok(Checked {
                item,
                krate,
                name,
                kind,
                timeout_ms,
                debug_buffer_bytes,
                required,
                env,
                secrets,
                header,
                voice_recheck,
            });
        }
        // Every check that leaves a part out reports why.
        errors.push(
            Span::call_site(),
            "#[contact_fn]: internal error, please report it",
        );
    }
    // The stand-in's parts. `required` as strings only: an identifier
    // is resolved by the probe alone, so that a misspelt one is reported
    // once.
    let krate = krate.unwrap_or_else(|| quote!(::ccfn_core));
    let ident = &item.sig.ident;
    let parts = Checked {
        name: name
            .unwrap_or_else(|| WithSpan::new(kebab_case(&ident.unraw().to_string()), ident.span())),
        kind: kind.unwrap_or_else(|| WithSpan::new(Kind::Voice, Span::call_site())),
        timeout_ms: timeout_ms
            .unwrap_or_else(|| WithSpan::new(DEFAULT_TIMEOUT_MS, Span::call_site())),
        debug_buffer_bytes: debug_buffer_bytes.flatten(),
        required: required
            .unwrap_or_default()
            .iter()
            .map(|item| NameItem::Str(LitStr::new(&item.value(), item.span())))
            .collect(),
        env,
        secrets,
        header,
        voice_recheck: None,
        krate: krate.clone(),
        item,
    };
    Err(Rejected {
        error: errors.into_error(),
        krate,
        parts: Some(Box::new(parts)),
        handler,
    })
}

/// Keeps the first of each option and reports the others.
fn choose<'a>(options: &'a [ContactOption], errors: &mut Errors) -> Chosen<'a> {
    let mut chosen = Chosen::default();
    for option in options {
        let fresh = match option {
            ContactOption::Required(list) => set(&mut chosen.required, list),
            ContactOption::Env(list) => set(&mut chosen.env, list),
            ContactOption::Secrets(list) => set(&mut chosen.secrets, list),
            ContactOption::Name(_, lit) => set(&mut chosen.name, lit),
            ContactOption::Kind(_, word) => set(&mut chosen.kind, word),
            ContactOption::TimeoutMs(_, lit) => set(&mut chosen.timeout_ms, lit),
            ContactOption::DebugBufferBytes(_, lit) => set(&mut chosen.debug_buffer_bytes, lit),
            ContactOption::Crate(_, lit) => set(&mut chosen.krate, lit),
        };
        if !fresh {
            let keyword = option.keyword();
            errors.push(
                keyword.span(),
                format!("`{keyword}` specified more than once"),
            );
        }
    }
    chosen
}

/// Stores `value` if the slot is empty; returns whether it was.
fn set<'a, T>(slot: &mut Option<&'a T>, value: &'a T) -> bool {
    let fresh = slot.is_none();
    if fresh {
        *slot = Some(value);
    }
    fresh
}

/// `required = [..]`: present, non-empty, no duplicates.
fn check_required(
    list: Option<&NameList>,
    options: &Options,
    errors: &mut Errors,
) -> Option<Vec<NameItem>> {
    let Some(list) = list else {
        if !options.is_broken("required") {
            errors.push(
                Span::call_site(),
                "missing `required = [..]`, e.g. `#[contact_fn(required = [CallSid, From, To])]`",
            );
        }
        return None;
    };
    if list.items.is_empty() {
        errors.push(
            list.span(),
            "`required` must list at least one parameter, e.g. `required = [CallSid, From, To]`",
        );
    }
    let mut items = check_list(list, "parameter", errors);
    for item in &mut items {
        let NameItem::Ident(ident) = item else {
            continue;
        };
        let name = ident.unraw().to_string();
        // A near-miss of a platform parameter is left to rustc, whose
        // "similar name" hint names it.
        if !is_platform_param_or_near(&name) {
            errors.push(
                ident.span(),
                format!(
                    "`{name}` is not one of the platform's parameters; write a parameter of your own as a string: `\"{name}\"`"
                ),
            );
            // Reported here: not looked up in `params` as well.
            *item = NameItem::Str(syn::LitStr::new(&name, ident.span()));
        }
    }
    Some(items)
}

/// Whether bare `name` in `required` is one of the platform's parameters,
/// or a near-miss of one that rustc's "similar name" hint will name.
pub(crate) fn is_platform_param_or_near(name: &str) -> bool {
    PLATFORM_PARAMS.iter().any(|param| looks_like(name, param))
}

/// The platform's parameters, written bare in `required = [..]`: the names
/// of `ccfn_core::params` (a test there keeps the two lists equal).
const PLATFORM_PARAMS: [&str; 21] = [
    "CallSid",
    "From",
    "To",
    "AccountSid",
    "Caller",
    "Called",
    "CallStatus",
    "Direction",
    "Digits",
    "SpeechResult",
    "RecordingUrl",
    "RecordingSid",
    "RecordingDuration",
    "TranscriptionText",
    "FlowSid",
    "ExecutionSid",
    "StepSid",
    "TaskSid",
    "WorkflowSid",
    "QueueSid",
    "mode",
];

/// No empty names, no duplicates (reported at the second occurrence).
fn check_list(list: &NameList, noun: &str, errors: &mut Errors) -> Vec<NameItem> {
    let keyword = &list.keyword;
    let mut seen = HashSet::new();
    for item in &list.items {
        let value = item.value();
        if value.trim().is_empty() {
            errors.push(
                item.span(),
                format!("empty name in `{keyword}`; write a name such as `\"CustomerId\"`"),
            );
        } else if !seen.insert(value.clone()) {
            errors.push(
                item.span(),
                format!("duplicate {noun} `{value}` in `{keyword}`"),
            );
        }
    }
    list.items.iter().cloned().collect()
}

/// A name in both `env` and `secrets`: a secret is required already, and
/// one list must say what the value is.
fn check_secret_not_env(env: &[NameItem], secrets: &[NameItem], errors: &mut Errors) {
    for item in env {
        let value = item.value();
        if secrets.iter().any(|secret| secret.value() == value) {
            errors.push(
                item.span(),
                format!(
                    "`{value}` is in both `env` and `secrets`; a secret is required as `env` \
                     values are: keep it in `secrets` only"
                ),
            );
        }
    }
}

/// `kind = voice | email | task | generic`, default `voice`.
fn check_kind(word: Option<&Ident>, errors: &mut Errors) -> Option<WithSpan<Kind>> {
    let Some(word) = word else {
        return Some(WithSpan::new(Kind::Voice, Span::call_site()));
    };
    match Kind::from_word(&word.unraw().to_string()) {
        Some(kind) => Some(WithSpan::new(kind, word.span())),
        None => {
            errors.push(
                word.span(),
                format!(
                    "unknown kind `{word}`, expected one of: `voice`, `email`, `task`, `generic`"
                ),
            );
            None
        }
    }
}

/// `debug_buffer_bytes = <integer>`: a whole number of bytes, `0` for
/// none.
fn check_debug_buffer(lit: &Lit, errors: &mut Errors) -> Option<WithSpan<u64>> {
    match lit {
        Lit::Int(int) if matches!(int.suffix(), "" | "u64") => match int.base10_parse::<u64>() {
            Ok(bytes) => Some(WithSpan::new(bytes, lit.span())),
            Err(_) => {
                errors.push(lit.span(), DEBUG_BUFFER_HELP);
                None
            }
        },
        _ => {
            errors.push(lit.span(), DEBUG_BUFFER_HELP);
            None
        }
    }
}

/// `timeout_ms = <positive integer>`, default 10000.
fn check_timeout(lit: Option<&Lit>, errors: &mut Errors) -> Option<WithSpan<u64>> {
    let Some(lit) = lit else {
        return Some(WithSpan::new(DEFAULT_TIMEOUT_MS, Span::call_site()));
    };
    let parsed = match lit {
        Lit::Int(int) if matches!(int.suffix(), "" | "u64") => int.base10_parse::<u64>().ok(),
        _ => None,
    };
    match parsed {
        Some(0) => {
            errors.push(
                lit.span(),
                "`timeout_ms` must be greater than 0, e.g. `timeout_ms = 10000`",
            );
            None
        }
        Some(ms) => Some(WithSpan::new(ms, lit.span())),
        None => {
            errors.push(lit.span(), TIMEOUT_HELP);
            None
        }
    }
}

/// `crate = "path"`, default `::ccfn_core`.
fn check_crate(lit: Option<&LitStr>, errors: &mut Errors) -> Option<TokenStream> {
    let Some(lit) = lit else {
        return Some(quote!(::ccfn_core));
    };
    match lit.parse_with(Path::parse_mod_style) {
        Ok(path) => Some(path.into_token_stream()),
        Err(_) => {
            errors.push(
                lit.span(),
                format!(
                    "`crate` must be a path to ccfn-core, e.g. `crate = \"::ccfn_core\"`, found `{}`",
                    lit.value()
                ),
            );
            None
        }
    }
}

/// Why a function name is invalid, if it is.
fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("is empty".to_owned());
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
        .map(|c| format!("contains {}", describe_char(c)))
}

/// A character as a message shows it: white space and invisible characters
/// by name or code point, others in backquotes.
fn describe_char(c: char) -> String {
    match c {
        ' ' => "a space".to_owned(),
        '\t' => "a tab".to_owned(),
        '\n' | '\r' => "a line break".to_owned(),
        '`' => "a backquote".to_owned(),
        c if c.is_whitespace() => format!("white space (U+{:04X})", u32::from(c)),
        c if c.is_ascii_graphic() || c.is_alphanumeric() => format!("`{c}`"),
        c => format!("the character U+{:04X}", u32::from(c)),
    }
}

/// `name = ".."`: non-empty, only `[A-Za-z0-9_-]`.
fn check_name(lit: &LitStr, errors: &mut Errors) -> Option<WithSpan<String>> {
    let value = lit.value();
    match name_problem(&value) {
        None => Some(WithSpan::new(value, lit.span())),
        Some(problem) if value.is_empty() => {
            errors.push(
                lit.span(),
                format!("`name` {problem}; write a name such as `name = \"wait-experience\"`, or remove it to use the fn name in kebab-case"),
            );
            None
        }
        Some(problem) => {
            errors.push(
                lit.span(),
                format!(
                    "`name = \"{value}\"` {problem}; use only ASCII letters, digits, `-` and `_`"
                ),
            );
            None
        }
    }
}

/// The kebab-case fn name, when `name` was not given.
fn default_name(
    item: &ContactItem,
    name_given: bool,
    errors: &mut Errors,
) -> Option<WithSpan<String>> {
    if name_given {
        // `name` was given but invalid: already reported.
        return None;
    }
    let ident = &item.sig.ident;
    let name = kebab_case(&ident.unraw().to_string());
    match name_problem(&name) {
        None => Some(WithSpan::new(name, ident.span())),
        Some(problem) => {
            errors.push(
                ident.span(),
                format!("the default function name `{name}` {problem}; set one with `name = \"..\"` using only ASCII letters, digits, `-` and `_`"),
            );
            None
        }
    }
}

/// `kind = voice` requires `CallSid`, `From` and `To`.
///
/// A missing one that a bare identifier of the list looks like a misspelling
/// of (`Frm` for `From`) is not reported here: rustc reports the identifier
/// itself, at the identifier, with a "similar name" hint. In that case the
/// list's span is returned, so that the expansion checks the rule again in
/// case the identifier is a well-known parameter after all.
fn check_voice(list: &NameList, errors: &mut Errors) -> Option<Span> {
    let present: HashSet<String> = list.items.iter().map(NameItem::value).collect();
    let misspelled = |param: &str| {
        list.items.iter().any(|item| match item {
            NameItem::Ident(ident) => {
                let name = ident.unraw().to_string();
                !VOICE_PARAMS.contains(&name.as_str()) && looks_like(&name, param)
            }
            NameItem::Str(_) => false,
        })
    };
    let (excused, missing): (Vec<&str>, Vec<&str>) = VOICE_PARAMS
        .into_iter()
        .filter(|p| !present.contains(*p))
        .partition(|p| misspelled(p));
    if !missing.is_empty() {
        let pronoun = if missing.len() == 1 { "it" } else { "them" };
        errors.push(
            list.span(),
            format!(
                "voice functions must require {}: missing {}; add {pronoun} to `required`, or declare another kind with `kind = email | task | generic`",
                and_list(&VOICE_PARAMS),
                and_list(&missing),
            ),
        );
    }
    (!excused.is_empty()).then(|| list.span())
}

/// Whether heading `written` looks meant as section `name`: the same
/// ignoring case, a plural or singular of it, or a near-miss.
fn looks_like_heading(written: &str, name: &str) -> bool {
    let (written, name) = (written.to_ascii_lowercase(), name.to_ascii_lowercase());
    written == name
        || written.trim_end_matches('s') == name.trim_end_matches('s')
        || edit_distance(&written, &name) <= 2
}

/// The option `written` stands for, when it is a near-miss of one.
pub(crate) fn suggested_option(written: &str) -> Option<&'static str> {
    const NAMES: [&str; 8] = [
        "required",
        "env",
        "secrets",
        "name",
        "kind",
        "timeout_ms",
        "debug_buffer_bytes",
        "crate",
    ];
    let written = written.to_ascii_lowercase();
    NAMES.into_iter().find(|name| {
        name.starts_with(&written) && written.len() >= 3
            || written.starts_with(name) && name.len() >= 4
            || edit_distance(&written, name) <= 1
    })
}

/// Whether `written` looks like a misspelling of `name`: the same ignoring
/// ASCII case, or one character added, removed, replaced, or two adjacent
/// characters swapped.
fn looks_like(written: &str, name: &str) -> bool {
    written.eq_ignore_ascii_case(name) || edit_distance(written, name) <= 1
}

/// The optimal-string-alignment distance (`strsim`'s): insertions,
/// deletions, substitutions and swaps of adjacent characters.
fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// "`A`", "`A` and `B`", "`A`, `B` and `C`".
pub(crate) fn and_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// `async`, not generic, exactly `(context, event, callback)`, no `self`.
/// Returns whether the parameters are three, by value, without `self`
/// (so that the callback's use can be checked).
fn check_signature(item: &ContactItem, errors: &mut Errors) -> bool {
    let sig = &item.sig;
    let shape = expected_shape(&sig.ident.unraw().to_string());
    if sig.asyncness.is_none() {
        errors.push(sig.fn_token.span, "#[contact_fn] requires an `async fn`");
    }
    if let Some(constness) = &sig.constness {
        errors.push(
            constness.span,
            "#[contact_fn] handlers cannot be `const`; remove `const`",
        );
    }
    if let Safety::Unsafe(unsafety) = &sig.safety {
        errors.push(
            unsafety.span,
            "#[contact_fn] handlers cannot be `unsafe`; remove `unsafe`",
        );
    }
    if let Some(abi) = &sig.abi {
        errors.push_spanned(
            abi,
            "#[contact_fn] handlers cannot be `extern`; remove the ABI",
        );
    }
    let generics = &sig.generics;
    if generics.lt_token.is_some() || !generics.params.is_empty() {
        errors.push_spanned(
            generics,
            format!(
                "#[contact_fn] handlers cannot be generic; remove the generic parameters: {shape}"
            ),
        );
    }
    if let Some(where_clause) = &generics.where_clause {
        errors.push_spanned(
            where_clause,
            format!("#[contact_fn] handlers cannot have a `where` clause; remove it: {shape}"),
        );
    }
    let receiver = sig.inputs.iter().find_map(|arg| match arg {
        FnArg::Receiver(receiver) => Some(receiver),
        FnArg::Typed(_) => None,
    });
    if let Some(receiver) = receiver {
        errors.push_spanned(
            receiver,
            format!("#[contact_fn] handlers cannot take `self`; write a free function {shape}"),
        );
    } else if let Some((ty, pat, inner)) = sig.inputs.iter().find_map(|arg| match arg {
        FnArg::Typed(typed) => match &*typed.ty {
            syn::Type::Reference(reference) => Some((&typed.ty, &typed.pat, &reference.elem)),
            _ => None,
        },
        FnArg::Receiver(_) => None,
    }) {
        let inner = quote::ToTokens::to_token_stream(inner).to_string();
        let pat = quote::ToTokens::to_token_stream(pat).to_string();
        errors.push_spanned(
            ty,
            format!(
                "#[contact_fn] handlers take their parameters by value: write `{pat}: {inner}`, not `{pat}: &{inner}` ({shape})"
            ),
        );
    } else if sig.inputs.len() != 3 || sig.variadic.is_some() {
        let found = sig.inputs.len() + usize::from(sig.variadic.is_some());
        errors.push(
            sig.paren_token.span.join(),
            format!(
                "#[contact_fn] handlers take exactly 3 parameters, found {found}; write {shape}"
            ),
        );
    } else {
        return true;
    }
    false
}

/// The callback is the only way to make a `Completion`: a body that never
/// names it cannot complete, and rustc would only say "expected
/// `Completion`, found `()`". A body that stops at `todo!()` and the like
/// is left alone.
///
/// Returns whether it passed.
fn check_callback_used(item: &ContactItem, errors: &mut Errors) -> bool {
    let Some(FnArg::Typed(callback)) = item.sig.inputs.iter().nth(2) else {
        return true;
    };
    let syn::Pat::Ident(pat) = &*callback.pat else {
        return true;
    };
    let name = pat.ident.unraw().to_string();
    let body = item.body.stream();
    if mentions_ident(&body, &name)
        || ["todo", "unimplemented", "panic", "unreachable"]
            .iter()
            .any(|macro_name| calls_macro(&body, macro_name))
    {
        return true;
    }
    let fn_name = item.sig.ident.unraw();
    errors.push(
        pat.ident.span(),
        format!(
            "`{name}` is never used, so `{fn_name}` never completes: end its body with \
             `{name}.success(..)` or `{name}.error(..)`, without a semicolon (or \
             `Ok({name}.success(..))` when it returns a `Result`)"
        ),
    );
    false
}

/// A declared secret read as plain text, `context.get("NAME")` or
/// `context.required("NAME")` with the name written as a literal, does not
/// compile: the error says which method returns the `Secret` instead.
/// (Other reads, and names from `CCFN_SECRETS`, get `None` and a
/// `declaration` warning at run time.)
fn check_secret_reads(item: &ContactItem, secrets: &[NameItem], errors: &mut Errors) {
    if secrets.is_empty() {
        return;
    }
    let Some(FnArg::Typed(context)) = item.sig.inputs.first() else {
        return;
    };
    let syn::Pat::Ident(pat) = &*context.pat else {
        return;
    };
    let context = pat.ident.unraw().to_string();
    let secrets: Vec<String> = secrets.iter().map(NameItem::value).collect();
    plain_reads(&item.body.stream(), &context, &mut |method, literal| {
        let name = literal.value();
        if !secrets.contains(&name) {
            return;
        }
        let instead = if method == "get" {
            "secret"
        } else {
            "required_secret"
        };
        errors.push(
            literal.span(),
            format!(
                "`{name}` is declared in `secrets`, so `{context}.{method}` cannot read it as \
                 plain text: write `{context}.{instead}(\"{name}\")`, which returns a `Secret` \
                 that is never printed (`.expose()` gives the text where it is sent)"
            ),
        );
    });
}

/// Calls `found` for each `context.get("..")` and `context.required("..")`
/// in `tokens`, at any depth, with the method and the literal.
fn plain_reads(
    tokens: &proc_macro2::TokenStream,
    context: &str,
    found: &mut dyn FnMut(&str, &LitStr),
) {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (at, tree) in trees.iter().enumerate() {
        if let TokenTree::Group(group) = tree {
            plain_reads(&group.stream(), context, found);
        }
        let [TokenTree::Ident(receiver), TokenTree::Punct(dot), TokenTree::Ident(method), TokenTree::Group(args)] =
            trees.get(at..at + 4).unwrap_or_default()
        else {
            continue;
        };
        if receiver.unraw() != context
            || dot.as_char() != '.'
            || !(method == "get" || method == "required")
            || args.delimiter() != proc_macro2::Delimiter::Parenthesis
        {
            continue;
        }
        if let Ok(literal) = syn::parse2::<LitStr>(args.stream()) {
            found(&method.to_string(), &literal);
        }
    }
}

/// Whether `tokens` holds the identifier `name`, at any depth.
fn mentions_ident(tokens: &proc_macro2::TokenStream, name: &str) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => ident.unraw() == name,
        proc_macro2::TokenTree::Group(group) => mentions_ident(&group.stream(), name),
        _ => false,
    })
}

/// Whether `tokens` calls macro `name!`, at any depth.
fn calls_macro(tokens: &proc_macro2::TokenStream, name: &str) -> bool {
    let trees: Vec<proc_macro2::TokenTree> = tokens.clone().into_iter().collect();
    trees.iter().enumerate().any(|(at, tree)| match tree {
        proc_macro2::TokenTree::Ident(ident) => {
            ident == name
                && matches!(trees.get(at + 1), Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == '!')
        }
        proc_macro2::TokenTree::Group(group) => calls_macro(&group.stream(), name),
        _ => false,
    })
}

/// A required section of the doc comment and how to fix it.
struct RequiredSection {
    name: &'static str,
    example: &'static str,
    fix: &'static str,
}

/// The sections every doc comment must have, in the order they are checked.
/// The doc-comment lines that add `sections`, each a heading and its
/// example, as an error message shows them to be copied.
fn section_lines<'a>(sections: impl IntoIterator<Item = &'a RequiredSection>) -> String {
    sections
        .into_iter()
        .map(|s| format!("\n/// # {}\n/// {}", s.name, s.example))
        .collect()
}

const REQUIRED_SECTIONS: [RequiredSection; 4] = [
    RequiredSection {
        name: "Trigger",
        example: "<what invokes this function, e.g. Studio \"Run Function\" widget>",
        fix: "say what invokes this function",
    },
    RequiredSection {
        name: "Dependencies",
        example: "<external services this function calls, e.g. email provider, task router>",
        fix: "list the external services this function calls, or write `None`",
    },
    RequiredSection {
        name: "Critical logging",
        example: "<what is always logged, e.g. task creation result>",
        fix: "say what this function always logs",
    },
    RequiredSection {
        name: "Contacts",
        example: "<who to contact when it fails, e.g. an on-call address>",
        fix: "say who to contact when it fails",
    },
];

/// The optional sections.
const OPTIONAL_SECTIONS: [&str; 2] = ["Optional parameters", "Optional environment"];

/// Purpose and required sections present and non-empty; no section twice.
fn check_header(item: &ContactItem, errors: &mut Errors) -> HeaderTexts {
    let header = parse_header(&doc_lines(&item.attrs));
    let ident = &item.sig.ident;
    let fn_name = ident.unraw().to_string();
    let doc_of = format!("the doc comment of `{fn_name}`");
    if item.attrs.iter().all(|attr| !attr.path().is_ident("doc")) {
        // One mistake, one error: the whole header to write, not one
        // error per section it lacks.
        let template = section_lines(&REQUIRED_SECTIONS);
        errors.push(
            ident.span(),
            format!(
                "`{fn_name}` has no doc comment; write one directly above the function (a doc comment above another item, or separated from the function by one, belongs to that item):\n/// <what the function does>\n///{template}"
            ),
        );
        return header_texts(&header);
    } else if header.purpose.is_empty() {
        errors.push(
            ident.span(),
            format!("missing purpose: {doc_of} must start with a paragraph saying what the function does"),
        );
    }
    let headings = headings(&doc_lines(&item.attrs));
    let mut missing = Vec::new();
    for section in &REQUIRED_SECTIONS {
        let name = section.name;
        // A heading written as another level, or a near-miss of the name.
        let near = headings.iter().find(|(level, written, _)| {
            let a_section = *level == 1
                && REQUIRED_SECTIONS
                    .iter()
                    .map(|s| s.name)
                    .chain(OPTIONAL_SECTIONS)
                    .any(|s| s.eq_ignore_ascii_case(written));
            !a_section && looks_like_heading(written, name)
        });
        match header.sections_named(name).next() {
            None if near.is_some() => {
                let (level, written, span) = near.unwrap_or_else(|| unreachable!());
                let hashes = "#".repeat(*level);
                errors.push(
                    *span,
                    format!(
                        "`{hashes} {written}` is not the `# {name}` section {doc_of} needs; write it as `# {name}`, a level-one heading with that name"
                    ),
                );
            }
            None => missing.push(section),
            Some(found) if found.text.is_empty() => errors.push(
                found.span,
                format!("`# {name}` section is empty in {doc_of}; {}", section.fix),
            ),
            Some(_) => {}
        }
    }
    // The sections missing outright: one error with the lines to add.
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|s| format!("# {}", s.name)).collect();
        let sections = if missing.len() == 1 {
            "section"
        } else {
            "sections"
        };
        let lines = section_lines(missing.iter().copied());
        errors.push(
            ident.span(),
            format!(
                "missing {} {sections} in {doc_of}; add:{lines}",
                and_list(&names.iter().map(String::as_str).collect::<Vec<_>>())
            ),
        );
    }
    for name in REQUIRED_SECTIONS
        .iter()
        .map(|s| s.name)
        .chain(OPTIONAL_SECTIONS)
    {
        if let Some(second) = header.sections_named(name).nth(1) {
            errors.push(
                second.span,
                format!(
                    "`# {name}` section appears more than once in {doc_of}; merge them into one"
                ),
            );
        }
    }
    header_texts(&header)
}

/// The texts for `FunctionMeta`.
fn header_texts(header: &Header) -> HeaderTexts {
    HeaderTexts {
        purpose: header.purpose.clone(),
        trigger: header.text_of("Trigger").to_owned(),
        optional: header.text_of(OPTIONAL_SECTIONS[0]).to_owned(),
        optional_env: header.text_of(OPTIONAL_SECTIONS[1]).to_owned(),
        dependencies: header.text_of("Dependencies").to_owned(),
        critical_logging: header.text_of("Critical logging").to_owned(),
        contacts: header.text_of("Contacts").to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::parse_options;

    const DOC: &str = "\
/// Queue wait experience: offers voicemail
/// or a callback while the caller waits.
///
/// # Trigger
/// Studio \"Run Function\" widget on the queue's wait URL.
/// # Optional parameters
/// mode (`voicemail`, `callback`), FlowSid
/// # Dependencies
/// Email provider, task router
/// # Critical logging
/// Task creation result
/// # Contacts
/// contact-center-oncall@example.com
";

    const SIG: &str =
        "pub async fn wait_experience(context: Context, event: Event, callback: Callback) -> Completion { todo!() }";

    const VOICE: &str = "required = [CallSid, From, To]";

    fn run(args: &str, item: &str) -> syn::Result<Checked> {
        let args: TokenStream = args.parse().expect("args lex");
        check(parse_options(args), syn::parse_str(item)).map_err(|rejected| rejected.error)
    }

    fn ok(args: &str, item: &str) -> Checked {
        match run(args, item) {
            Ok(checked) => checked,
            Err(err) => panic!("unexpected errors: {:?}", messages(err)),
        }
    }

    fn messages(err: syn::Error) -> Vec<String> {
        err.into_iter().map(|e| e.to_string()).collect()
    }

    /// (message, source text under the span or "<call_site>").
    fn errors(args: &str, item: &str) -> Vec<(String, String)> {
        let Err(err) = run(args, item) else {
            panic!("expected errors")
        };
        err.into_iter()
            .map(|e| {
                let text = e
                    .span()
                    .source_text()
                    .unwrap_or_else(|| "<call_site>".to_owned());
                (e.to_string(), text)
            })
            .collect()
    }

    fn only_error(args: &str, item: &str) -> (String, String) {
        let mut all = errors(args, item);
        assert_eq!(all.len(), 1, "{all:#?}");
        all.remove(0)
    }

    fn with_sig(sig: &str) -> String {
        format!("{DOC}{sig}")
    }

    fn good() -> String {
        with_sig(SIG)
    }

    fn pair(message: &str, text: &str) -> (String, String) {
        (message.to_owned(), text.to_owned())
    }

    #[test]
    fn a_declared_secret_read_as_text_does_not_compile() {
        let args =
            "required = [CallSid, From, To], env = [CRM_URL], secrets = [CRM_SESSION, \"crmKey\"]";
        let body = |body: &str| {
            with_sig(&format!(
                "async fn f(r#ctx: Context, event: Event, callback: Callback) -> Completion {{ {body} callback.success(()) }}"
            ))
        };
        let get = "`CRM_SESSION` is declared in `secrets`, so `ctx.get` cannot read it as plain text: write `ctx.secret(\"CRM_SESSION\")`, which returns a `Secret` that is never printed (`.expose()` gives the text where it is sent)";
        assert_eq!(
            only_error(args, &body("let a = ctx.get(\"CRM_SESSION\");")),
            pair(get, "\"CRM_SESSION\"")
        );
        // At any depth, and for `required`.
        let (message, text) = only_error(
            args,
            &body("if true { f(vec![ctx.required(\"crmKey\")]); }"),
        );
        assert!(
            message.contains("write `ctx.required_secret(\"crmKey\")`"),
            "{message}"
        );
        assert_eq!(text, "\"crmKey\"");
        // Not a secret, not the context, not a literal, not a plain read: fine.
        for fine in [
            "ctx.get(\"CRM_URL\");",
            "other.get(\"CRM_SESSION\");",
            "ctx.get(NAME);",
            "ctx.secret(\"CRM_SESSION\");",
            "ctx.is_present(\"crmKey\");",
            "event.get(\"CRM_SESSION\");",
        ] {
            ok(args, &body(fine));
        }
        // Without `secrets`, nothing to check.
        ok(VOICE, &body("ctx.get(\"CRM_SESSION\");"));
    }

    #[test]
    fn a_body_that_never_names_the_callback_cannot_complete() {
        let sig = |body: &str| {
            with_sig(&format!(
                "async fn wait_experience(context: Context, event: Event, cb: Callback) -> Completion {{ {body} }}"
            ))
        };
        assert_eq!(
            only_error(VOICE, &sig("let mut twiml = VoiceResponse::new(); twiml.say(\"Hi\");")),
            pair(
                "`cb` is never used, so `wait_experience` never completes: end its body with `cb.success(..)` or `cb.error(..)`, without a semicolon (or `Ok(cb.success(..))` when it returns a `Result`)",
                "cb"
            )
        );
        for body in [
            "cb.success(VoiceResponse::new())",
            "helper(context, event, cb).await",
            "if true { return cb.error(\"no\"); } unreachable!()",
            "todo!()",
            "let _ = (context, event); unimplemented!(\"later\")",
        ] {
            ok(VOICE, &sig(body));
        }
    }

    #[test]
    fn defaults() {
        let c = ok(VOICE, &good());
        assert_eq!(c.name.value, "wait-experience");
        assert_eq!(c.name.span.source_text().unwrap(), "wait_experience");
        assert_eq!(c.kind.value, Kind::Voice);
        assert_eq!(c.timeout_ms.value, 10_000);
        assert!(c.debug_buffer_bytes.is_none(), "the setting decides");
        assert_eq!(c.krate.to_string(), ":: ccfn_core");
        let required: Vec<String> = c.required.iter().map(NameItem::value).collect();
        assert_eq!(required, ["CallSid", "From", "To"]);
        assert!(c.env.is_empty());
        assert_eq!(
            c.header,
            HeaderTexts {
                purpose:
                    "Queue wait experience: offers voicemail or a callback while the caller waits."
                        .to_owned(),
                trigger: "Studio \"Run Function\" widget on the queue's wait URL.".to_owned(),
                optional: "mode (`voicemail`, `callback`), FlowSid".to_owned(),
                optional_env: String::new(),
                dependencies: "Email provider, task router".to_owned(),
                critical_logging: "Task creation result".to_owned(),
                contacts: "contact-center-oncall@example.com".to_owned(),
            }
        );
    }

    #[test]
    fn every_option() {
        let c = ok(
            "required = [\"CustomerId\"], env = [A, \"workflowSid\"], name = \"My_fn-2\", \
             kind = generic, timeout_ms = 250u64, debug_buffer_bytes = 0, crate = \"::my::core\"",
            &good(),
        );
        assert_eq!(c.debug_buffer_bytes.map(|bytes| bytes.value), Some(0));
        assert_eq!(c.name.value, "My_fn-2");
        assert_eq!(c.kind.value, Kind::Generic);
        assert_eq!(c.kind.span.source_text().unwrap(), "generic");
        assert_eq!(c.timeout_ms.value, 250);
        assert_eq!(c.krate.to_string(), ":: my :: core");
        let env: Vec<String> = c.env.iter().map(NameItem::value).collect();
        assert_eq!(env, ["A", "workflowSid"]);
        for (word, kind) in [
            ("email", Kind::Email),
            ("task", Kind::Task),
            ("voice", Kind::Voice),
        ] {
            let c = ok(&format!("{VOICE}, kind = {word}"), &good());
            assert_eq!(c.kind.value, kind);
        }
        assert_eq!(
            ok(&format!("{VOICE}, crate = \"crate\""), &good())
                .krate
                .to_string(),
            "crate"
        );
    }

    #[test]
    fn no_optional_parameters_section_is_fine() {
        let doc = DOC.replace(
            "/// # Optional parameters\n/// mode (`voicemail`, `callback`), FlowSid\n",
            "",
        );
        let c = ok(VOICE, &format!("{doc}{SIG}"));
        assert_eq!(c.header.optional, "");
    }

    #[test]
    fn section_headings_ignore_case() {
        let doc = DOC
            .replace("# Trigger", "# TRIGGER")
            .replace("# Critical logging", "# critical  Logging");
        let c = ok(VOICE, &format!("{doc}{SIG}"));
        assert_eq!(c.header.critical_logging, "Task creation result");
    }

    #[test]
    fn unknown_and_repeated_options() {
        assert_eq!(
            errors(&format!("{VOICE}, foo = 1, kind = email, kind = task, required = [A]"), &good()),
            [
                pair(
                    "unknown option `foo`, expected one of: `required`, `env`, `secrets`, `name`, `kind`, `timeout_ms`, `debug_buffer_bytes`, `crate`",
                    "foo"
                ),
                pair("`kind` specified more than once", "kind"),
                pair("`required` specified more than once", "required"),
            ]
        );
        let all = errors(&format!("{VOICE}, kind = email, kind = task"), &good());
        assert_eq!(all.len(), 1);
        let second = run(&format!("{VOICE}, kind = email, kind = task"), &good())
            .err()
            .unwrap()
            .span()
            .start()
            .column;
        assert!(
            second > 40,
            "span must be on the second `kind`, got column {second}"
        );
    }

    #[test]
    fn missing_required() {
        assert_eq!(
            errors("", &good()),
            [
                // Not also the voice error: one mistake, one error.
                pair(
                    "missing `required = [..]`, e.g. `#[contact_fn(required = [CallSid, From, To])]`",
                    "<call_site>"
                ),
            ]
        );
        assert_eq!(
            only_error("kind = task", &good()),
            pair(
                "missing `required = [..]`, e.g. `#[contact_fn(required = [CallSid, From, To])]`",
                "<call_site>"
            )
        );
    }

    #[test]
    fn broken_required_is_not_also_missing() {
        assert_eq!(
            only_error("required = CallSid", &good()),
            pair(
                "expected a list in brackets, e.g. `required = [CallSid, From, To]`",
                "CallSid"
            )
        );
    }

    #[test]
    fn empty_required() {
        assert_eq!(
            only_error("required = [], kind = email", &good()),
            pair(
                "`required` must list at least one parameter, e.g. `required = [CallSid, From, To]`",
                "[]"
            )
        );
    }

    #[test]
    fn secrets_are_checked_like_env_and_not_both() {
        assert_eq!(
            errors(
                "required = [CallSid, From, To], env = [CRM_URL, CRM_KEY], secrets = [CRM_KEY, \"\", CRM_KEY]",
                &good()
            ),
            [
                pair("empty name in `secrets`; write a name such as `\"CustomerId\"`", "\"\""),
                pair("duplicate name `CRM_KEY` in `secrets`", "CRM_KEY"),
                pair(
                    "`CRM_KEY` is in both `env` and `secrets`; a secret is required as `env` values are: keep it in `secrets` only",
                    "CRM_KEY"
                ),
            ]
        );
    }

    #[test]
    fn duplicates_in_lists() {
        assert_eq!(
            errors(
                "required = [CallSid, From, To, \"CallSid\"], env = [A, \"B\", B, \"\"]",
                &good()
            ),
            [
                pair("duplicate parameter `CallSid` in `required`", "\"CallSid\""),
                pair("duplicate name `B` in `env`", "B"),
                pair(
                    "empty name in `env`; write a name such as `\"CustomerId\"`",
                    "\"\""
                ),
            ]
        );
        assert_eq!(
            only_error("required = [CallSid, From, To, \" \"]", &good()),
            pair(
                "empty name in `required`; write a name such as `\"CustomerId\"`",
                "\" \""
            )
        );
    }

    #[test]
    fn bad_kind() {
        assert_eq!(
            only_error(&format!("{VOICE}, kind = sms"), &good()),
            pair(
                "unknown kind `sms`, expected one of: `voice`, `email`, `task`, `generic`",
                "sms"
            )
        );
    }

    #[test]
    fn bad_timeouts() {
        let zero = "`timeout_ms` must be greater than 0, e.g. `timeout_ms = 10000`";
        assert_eq!(
            only_error(&format!("{VOICE}, timeout_ms = 0"), &good()),
            pair(zero, "0")
        );
        assert_eq!(
            only_error(&format!("{VOICE}, timeout_ms = 0u64"), &good()),
            pair(zero, "0u64")
        );
        for bad in ["\"5\"", "1.5", "5u32", "99999999999999999999999", "true"] {
            assert_eq!(
                only_error(&format!("{VOICE}, timeout_ms = {bad}"), &good()),
                pair(TIMEOUT_HELP, bad),
                "{bad}"
            );
        }
        assert_eq!(
            only_error(&format!("{VOICE}, timeout_ms = -5"), &good()).0,
            TIMEOUT_HELP
        );
    }

    #[test]
    fn bad_names() {
        assert_eq!(
            only_error(&format!("{VOICE}, name = \"\""), &good()),
            pair(
                "`name` is empty; write a name such as `name = \"wait-experience\"`, or remove it to use the fn name in kebab-case",
                "\"\""
            )
        );
        assert_eq!(
            only_error(&format!("{VOICE}, name = \"wait experience\""), &good()),
            pair(
                "`name = \"wait experience\"` contains a space; use only ASCII letters, digits, `-` and `_`",
                "\"wait experience\""
            )
        );
        assert_eq!(
            only_error(&format!("{VOICE}, name = \"wait/experience\""), &good()).0,
            "`name = \"wait/experience\"` contains `/`; use only ASCII letters, digits, `-` and `_`"
        );
        assert_eq!(
            only_error(VOICE, &with_sig(&SIG.replace("wait_experience", "café"))),
            pair(
                "the default function name `café` contains `é`; set one with `name = \"..\"` using only ASCII letters, digits, `-` and `_`",
                "café"
            )
        );
        ok(
            &format!("{VOICE}, name = \"cafe\""),
            &with_sig(&SIG.replace("wait_experience", "café")),
        );
    }

    #[test]
    fn bad_crate_path() {
        assert_eq!(
            only_error(&format!("{VOICE}, crate = \"a b\""), &good()),
            pair(
                "`crate` must be a path to ccfn-core, e.g. `crate = \"::ccfn_core\"`, found `a b`",
                "\"a b\""
            )
        );
        assert_eq!(
            only_error(&format!("{VOICE}, crate = \"a::<T>\""), &good()).1,
            "\"a::<T>\""
        );
    }

    #[test]
    fn not_async() {
        assert_eq!(
            only_error(VOICE, &with_sig(&SIG.replace("async ", ""))),
            pair("#[contact_fn] requires an `async fn`", "fn")
        );
    }

    #[test]
    fn modifiers() {
        let sig = SIG.replace("pub async fn", "pub const unsafe extern \"C\" fn");
        assert_eq!(
            errors(VOICE, &with_sig(&sig)),
            [
                pair("#[contact_fn] requires an `async fn`", "fn"),
                pair(
                    "#[contact_fn] handlers cannot be `const`; remove `const`",
                    "const"
                ),
                pair(
                    "#[contact_fn] handlers cannot be `unsafe`; remove `unsafe`",
                    "unsafe"
                ),
                pair(
                    "#[contact_fn] handlers cannot be `extern`; remove the ABI",
                    "extern \"C\""
                ),
            ]
        );
    }

    #[test]
    fn wrong_parameters() {
        let shape = "`async fn wait_experience(context: Context, event: Event, callback: Callback) -> Completion`";
        assert_eq!(
            only_error(
                VOICE,
                &with_sig(
                    "async fn wait_experience(context: Context, event: Event) -> Completion {}"
                )
            ),
            pair(
                &format!(
                    "#[contact_fn] handlers take exactly 3 parameters, found 2; write {shape}"
                ),
                "(context: Context, event: Event)"
            )
        );
        assert_eq!(
            only_error(VOICE, &with_sig("async fn wait_experience() {}")).0,
            format!("#[contact_fn] handlers take exactly 3 parameters, found 0; write {shape}")
        );
        assert_eq!(
            only_error(
                VOICE,
                &with_sig("async fn wait_experience(&self, event: Event, callback: Callback) {}")
            ),
            pair(
                &format!(
                    "#[contact_fn] handlers cannot take `self`; write a free function {shape}"
                ),
                "&self"
            )
        );
        assert_eq!(
            only_error(
                VOICE,
                &with_sig(
                    "async fn wait_experience(self: Box<Self>, event: Event, callback: Callback) {}"
                )
            )
            .1,
            "self: Box<Self>"
        );
    }

    #[test]
    fn generics() {
        let shape = "`async fn wait_experience(context: Context, event: Event, callback: Callback) -> Completion`";
        let all = errors(
            VOICE,
            &with_sig(
                &SIG.replace("wait_experience(", "wait_experience<T>(")
                    .replace("{", "where T: Send {"),
            ),
        );
        assert_eq!(all.len(), 2, "{all:#?}");
        assert_eq!(
            all[0].0,
            format!(
                "#[contact_fn] handlers cannot be generic; remove the generic parameters: {shape}"
            )
        );
        assert_eq!(all[0].1, "<T>");
        assert_eq!(
            all[1].0,
            format!("#[contact_fn] handlers cannot have a `where` clause; remove it: {shape}")
        );
        assert_eq!(all[1].1, "where T: Send");
        assert_eq!(
            only_error(
                VOICE,
                &with_sig(&SIG.replace("wait_experience(", "wait_experience<'a>("))
            )
            .0,
            format!(
                "#[contact_fn] handlers cannot be generic; remove the generic parameters: {shape}"
            )
        );
    }

    #[test]
    fn voice_requires_call_parameters() {
        assert_eq!(
            only_error("required = [CallSid, From]", &good()),
            pair(
                "voice functions must require `CallSid`, `From` and `To`: missing `To`; add it to `required`, or declare another kind with `kind = email | task | generic`",
                "[CallSid, From]"
            )
        );
        assert_eq!(
            only_error("required = [CallSid, \"X\"], kind = voice", &good()).0,
            "voice functions must require `CallSid`, `From` and `To`: missing `From` and `To`; add them to `required`, or declare another kind with `kind = email | task | generic`"
        );
        ok("required = [\"CallSid\", \"From\", \"To\"]", &good());
        ok("required = [From], kind = email", &good());
        // An unknown kind reports only itself.
        assert_eq!(
            only_error("required = [From], kind = fax", &good()).1,
            "fax"
        );
        // A broken kind does not imply voice.
        assert_eq!(
            only_error("required = [From], kind = \"email\"", &good()).1,
            "\"email\""
        );
    }

    #[test]
    fn no_doc_comment_is_one_error_with_the_whole_header() {
        assert_eq!(
            errors(VOICE, SIG),
            [pair(
                "`wait_experience` has no doc comment; write one directly above the function (a doc comment above another item, or separated from the function by one, belongs to that item):\n\
                 /// <what the function does>\n\
                 ///\n\
                 /// # Trigger\n/// <what invokes this function, e.g. Studio \"Run Function\" widget>\n\
                 /// # Dependencies\n/// <external services this function calls, e.g. email provider, task router>\n\
                 /// # Critical logging\n/// <what is always logged, e.g. task creation result>\n\
                 /// # Contacts\n/// <who to contact when it fails, e.g. an on-call address>",
                "wait_experience"
            )]
        );
    }

    #[test]
    fn missing_sections_are_one_error_with_the_lines_to_add() {
        let doc = DOC
            .replace(
                "/// # Trigger\n/// Studio \"Run Function\" widget on the queue's wait URL.\n",
                "",
            )
            .replace(
                "/// # Contacts\n/// contact-center-oncall@example.com\n",
                "",
            );
        assert_eq!(
            errors(VOICE, &format!("{doc}{SIG}")),
            [pair(
                "missing `# Trigger` and `# Contacts` sections in the doc comment of `wait_experience`; add:\n\
                 /// # Trigger\n/// <what invokes this function, e.g. Studio \"Run Function\" widget>\n\
                 /// # Contacts\n/// <who to contact when it fails, e.g. an on-call address>",
                "wait_experience"
            )]
        );
    }

    #[test]
    fn empty_and_duplicate_sections() {
        let doc = DOC
            .replace("/// contact-center-oncall@example.com\n", "///\n")
            .replace("/// Task creation result\n", "")
            .replace(
                "/// # Dependencies",
                "/// # Trigger\n/// again\n/// # Dependencies",
            );
        assert_eq!(
            errors(VOICE, &format!("{doc}{SIG}")),
            [
                pair(
                    "`# Critical logging` section is empty in the doc comment of `wait_experience`; say what this function always logs",
                    "/// # Critical logging"
                ),
                pair(
                    "`# Contacts` section is empty in the doc comment of `wait_experience`; say who to contact when it fails",
                    "/// # Contacts"
                ),
                pair(
                    "`# Trigger` section appears more than once in the doc comment of `wait_experience`; merge them into one",
                    "/// # Trigger"
                ),
            ]
        );
        let doc = DOC
            .replace(
                "Studio \"Run Function\" widget on the queue's wait URL.",
                "",
            )
            .replace("Email provider, task router", "");
        let messages: Vec<String> = errors(VOICE, &format!("{doc}{SIG}"))
            .into_iter()
            .map(|e| e.0)
            .collect();
        assert_eq!(
            messages,
            [
                "`# Trigger` section is empty in the doc comment of `wait_experience`; say what invokes this function",
                "`# Dependencies` section is empty in the doc comment of `wait_experience`; list the external services this function calls, or write `None`",
            ]
        );
    }

    #[test]
    fn headings_in_code_fences_do_not_count() {
        let doc = "/// Purpose.\n/// ```\n/// # Trigger\n/// # Dependencies\n/// # Critical logging\n/// # Contacts\n/// ```\n";
        let messages: Vec<String> = errors(VOICE, &format!("{doc}{SIG}"))
            .into_iter()
            .map(|e| e.0)
            .collect();
        assert_eq!(messages.len(), 1, "{messages:#?}");
        assert!(
            messages[0].starts_with(
                "missing `# Trigger`, `# Dependencies`, `# Critical logging` and `# Contacts` sections"
            ),
            "{messages:#?}"
        );
    }

    #[test]
    fn missing_purpose_only() {
        let doc = DOC.replace(
            "/// Queue wait experience: offers voicemail\n/// or a callback while the caller waits.\n///\n",
            "",
        );
        assert_eq!(
            only_error(VOICE, &format!("{doc}{SIG}")).0,
            "missing purpose: the doc comment of `wait_experience` must start with a paragraph saying what the function does"
        );
    }

    #[test]
    fn not_a_function() {
        assert_eq!(
            only_error(VOICE, "pub struct S;"),
            pair(
                "#[contact_fn] can only be applied to an `async fn`",
                "struct"
            )
        );
    }

    #[test]
    fn no_body() {
        assert_eq!(
            only_error(VOICE, &with_sig(&SIG.replace(" { todo!() }", ";"))),
            pair(
                "#[contact_fn] handlers need a body: write the handler as a free `async fn` with a `{ .. }` body",
                ";"
            )
        );
    }

    #[test]
    fn option_and_item_errors_are_combined() {
        let all = errors("kind = fax, timeout_ms = 0, bogus", "fn f(x: u8) {}");
        let messages: Vec<&str> = all.iter().map(|e| e.0.as_str()).collect();
        assert_eq!(messages.len(), 7, "{messages:#?}");
        assert!(messages[0].starts_with("unknown option `bogus`"));
        assert!(messages[1].starts_with("missing `required"));
        assert!(messages[2].starts_with("unknown kind `fax`"));
        assert!(messages[3].starts_with("`timeout_ms` must be greater than 0"));
        assert_eq!(messages[4], "#[contact_fn] requires an `async fn`");
        assert!(messages[5].contains("found 1"));
        assert!(messages[6].starts_with("`f` has no doc comment"));
    }

    #[test]
    fn characters_are_described_readably() {
        assert_eq!(describe_char(' '), "a space");
        assert_eq!(describe_char('\t'), "a tab");
        assert_eq!(describe_char('\n'), "a line break");
        assert_eq!(describe_char('`'), "a backquote");
        assert_eq!(describe_char('\u{a0}'), "white space (U+00A0)");
        assert_eq!(describe_char('/'), "`/`");
        assert_eq!(describe_char('é'), "`é`");
        assert_eq!(describe_char('\u{200b}'), "the character U+200B");
        assert_eq!(name_problem("a\tb").unwrap(), "contains a tab",);
    }

    #[test]
    fn a_custom_parameter_written_bare_says_to_quote_it() {
        assert_eq!(
            only_error("required = [CallSid, From, To, CustomerId]", &good()),
            pair(
                "`CustomerId` is not one of the platform's parameters; write a parameter of your own as a string: `\"CustomerId\"`",
                "CustomerId"
            )
        );
        // The platform's own, and near-misses of them (rustc names those).
        let _ = ok("required = [CallSid, From, To, Digits]", &good());
        let _ = ok("required = [CallSid, From, To, Frm]", &good());
    }

    #[test]
    fn near_miss_options_and_headings_say_the_right_one() {
        assert_eq!(suggested_option("timeout"), Some("timeout_ms"));
        assert_eq!(suggested_option("require"), Some("required"));
        assert_eq!(suggested_option("kinds"), Some("kind"));
        assert_eq!(suggested_option("foo"), None);
        assert_eq!(suggested_option("bogus"), None);
        for written in ["## Contacts", "# Contact", "### Contacts:"] {
            let doc = DOC.replace("# Contacts", written);
            let (message, text) = only_error(VOICE, &format!("{doc}{SIG}"));
            assert!(
                message.ends_with("write it as `# Contacts`, a level-one heading with that name"),
                "{message}"
            );
            assert_eq!(text, format!("/// {written}"));
        }
    }

    #[test]
    fn parameters_by_reference_say_to_take_them_by_value() {
        let sig = SIG.replace("context: Context", "context: &Context");
        let (message, text) = only_error(VOICE, &with_sig(&sig));
        assert!(
            message.starts_with("#[contact_fn] handlers take their parameters by value: write `context: Context`, not `context: &Context`"),
            "{message}"
        );
        assert_eq!(text, "&Context");
    }

    #[test]
    fn misspelled_call_parameters_are_left_to_rustc() {
        // `Frm` is reported by rustc at `Frm`; nothing else is missing.
        let c = ok("required = [CallSid, Frm, To]", &good());
        assert_eq!(
            c.voice_recheck.unwrap().source_text().unwrap(),
            "[CallSid, Frm, To]"
        );
        for typo in ["from", "Form", "Fromm", "CalSid", "callsid", "Tp"] {
            let args = format!("required = [CallSid, From, To, {typo}]").replacen(
                &format!("{}, ", closest(typo)),
                "",
                1,
            );
            assert!(ok(&args, &good()).voice_recheck.is_some(), "{args}");
        }
        // Only the others are reported.
        assert_eq!(
            only_error("required = [CallSid, Frm]", &good()),
            pair(
                "voice functions must require `CallSid`, `From` and `To`: missing `To`; add it to `required`, or declare another kind with `kind = email | task | generic`",
                "[CallSid, Frm]"
            )
        );
        // Not a misspelling: a different well-known parameter, or a string.
        assert!(only_error("required = [Called, From, To]", &good())
            .0
            .contains("missing `CallSid`"));
        assert!(only_error("required = [CallSid, \"Frm\", To]", &good())
            .0
            .contains("missing `From`"));
        // Nothing excused, nothing to check again.
        assert!(ok(VOICE, &good()).voice_recheck.is_none());
        assert!(ok("required = [Frm], kind = task", &good())
            .voice_recheck
            .is_none());
    }

    /// The voice parameter `typo` stands for.
    fn closest(typo: &str) -> &'static str {
        VOICE_PARAMS
            .into_iter()
            .find(|p| looks_like(typo, p))
            .unwrap()
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("From", "From"), 0);
        assert_eq!(edit_distance("Frm", "From"), 1);
        assert_eq!(edit_distance("Form", "From"), 1);
        assert_eq!(edit_distance("Fromm", "From"), 1);
        assert_eq!(edit_distance("Called", "CallSid"), 2);
        assert_eq!(edit_distance("", "To"), 2);
        assert!(looks_like("callsid", "CallSid"));
        assert!(!looks_like("Caller", "CallSid"));
    }

    #[test]
    fn and_list_forms() {
        assert_eq!(and_list(&[]), "");
        assert_eq!(and_list(&["A"]), "`A`");
        assert_eq!(and_list(&["A", "B"]), "`A` and `B`");
        assert_eq!(and_list(&["A", "B", "C"]), "`A`, `B` and `C`");
    }
}
