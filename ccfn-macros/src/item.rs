//! The typed view of the annotated function, and the header parsed from its
//! doc comment.

use proc_macro2::{Delimiter, Group, Span};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Lit, Meta, Signature, Visibility};

/// The annotated function: attributes, visibility, signature, and the body
/// kept as tokens (it is never re-parsed).
pub(crate) struct ContactItem {
    /// Every outer attribute, in order.
    pub(crate) attrs: Vec<Attribute>,
    /// `pub`, `pub(crate)`, ...
    pub(crate) vis: Visibility,
    /// `async fn name(..) -> ..`
    pub(crate) sig: Signature,
    /// The `{ .. }` body, untouched.
    pub(crate) body: Group,
}

/// The error for an item that is not a function.
pub(crate) const NOT_A_FN: &str = "#[contact_fn] can only be applied to an `async fn`";

/// The error for a function without a body (a trait method declaration).
pub(crate) const NO_BODY: &str =
    "#[contact_fn] handlers need a body: write the handler as a free `async fn` with a `{ .. }` body";

impl Parse for ContactItem {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let not_a_fn = |err: syn::Error| syn::Error::new(err.span(), NOT_A_FN);
        let attrs = input.call(Attribute::parse_outer).map_err(not_a_fn)?;
        let vis = input.parse().map_err(not_a_fn)?;
        let sig = input.parse().map_err(not_a_fn)?;
        let body: Group = match input.parse::<Group>() {
            Ok(group) if group.delimiter() == Delimiter::Brace => group,
            Ok(group) => return Err(syn::Error::new(group.span(), NO_BODY)),
            Err(err) => return Err(syn::Error::new(err.span(), NO_BODY)),
        };
        Ok(ContactItem {
            attrs,
            vis,
            sig,
            body,
        })
    }
}

/// What an attribute of the function becomes in the expansion.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum AttrRole {
    /// `#[doc ..]`: goes on the generated struct.
    Doc,
    /// `#[cfg ..]` / `#[cfg_attr ..]`: goes on every generated item.
    Cfg,
    /// Anything else: stays on the handler fn.
    Other,
}

/// Classifies an attribute by its path.
pub(crate) fn attr_role(attr: &Attribute) -> AttrRole {
    let path = attr.path();
    if path.is_ident("doc") {
        AttrRole::Doc
    } else if path.is_ident("cfg") || path.is_ident("cfg_attr") {
        AttrRole::Cfg
    } else {
        AttrRole::Other
    }
}

impl ContactItem {
    /// The attributes with the given role, in order.
    pub(crate) fn attrs_with(&self, role: AttrRole) -> Vec<&Attribute> {
        self.attrs.iter().filter(|a| attr_role(a) == role).collect()
    }
}

/// One line of the doc comment with the span of the attribute it came from.
#[derive(Clone, Debug)]
pub(crate) struct DocLine {
    /// The line, with one leading space stripped.
    pub(crate) text: String,
    /// The `///` line (or `#[doc]` attribute) it came from.
    pub(crate) span: Span,
}

/// The lines of every `#[doc = "..."]` attribute, one leading space
/// stripped from each line. Other doc attributes (`#[doc(hidden)]`,
/// `#[doc = include_str!(..)]`) contribute nothing.
pub(crate) fn doc_lines(attrs: &[Attribute]) -> Vec<DocLine> {
    let mut lines = Vec::new();
    for attr in attrs {
        let Meta::NameValue(nv) = &attr.meta else {
            continue;
        };
        if !nv.path.is_ident("doc") {
            continue;
        }
        let Some(text) = string_value(&nv.value) else {
            continue;
        };
        for line in text.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            lines.push(DocLine {
                text: line.strip_prefix(' ').unwrap_or(line).to_owned(),
                span: attr.span(),
            });
        }
    }
    lines
}

/// The value of a string-literal expression, looking through invisible
/// groups (doc comments forwarded by `macro_rules!`).
fn string_value(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        Expr::Group(group) => string_value(&group.expr),
        _ => None,
    }
}

/// A `# Name` section of the doc comment.
#[derive(Clone, Debug)]
pub(crate) struct Section {
    /// The heading as written, whitespace collapsed (`Critical logging`).
    pub(crate) name: String,
    /// The heading's doc line.
    pub(crate) span: Span,
    /// The content: non-blank lines trimmed and joined with single spaces.
    pub(crate) text: String,
}

impl Section {
    /// Whether the heading is `name`, ignoring ASCII case.
    pub(crate) fn is(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
    }
}

/// The header read from the doc comment.
#[derive(Clone, Debug, Default)]
pub(crate) struct Header {
    /// The first paragraph, lines joined with single spaces; empty if absent.
    pub(crate) purpose: String,
    /// Every `# Name` section in order (headings inside code fences do not
    /// count).
    pub(crate) sections: Vec<Section>,
}

impl Header {
    /// The sections whose heading is `name` (ignoring case).
    pub(crate) fn sections_named<'a, 'n>(
        &'a self,
        name: &'n str,
    ) -> impl Iterator<Item = &'a Section> + use<'a, 'n> {
        self.sections.iter().filter(move |s| s.is(name))
    }

    /// The text of the first section named `name`, or `""`.
    pub(crate) fn text_of(&self, name: &str) -> &str {
        self.sections_named(name)
            .next()
            .map_or("", |s| s.text.as_str())
    }
}

/// Reads the purpose and the sections from the doc lines.
pub(crate) fn parse_header(lines: &[DocLine]) -> Header {
    let mut header = Header {
        purpose: purpose(lines),
        sections: Vec::new(),
    };
    let mut fence = Fence::default();
    let mut current: Option<(Section, Vec<&str>)> = None;
    for line in lines {
        if !fence.update(&line.text)
            && let Some(heading) = level_one_heading(&line.text)
        {
            finish(&mut header, current.take());
            // `# Contacts: oncall@example.com` is the one-line form of
            // a heading followed by its content.
            let (name, inline) = match heading.split_once(':') {
                Some((name, inline)) if !name.trim().is_empty() => (name, Some(inline)),
                _ => (heading, None),
            };
            let section = Section {
                name: name.split_whitespace().collect::<Vec<_>>().join(" "),
                span: line.span,
                text: String::new(),
            };
            current = Some((section, inline.into_iter().collect()));
            continue;
        }
        if let Some((_, content)) = &mut current {
            content.push(&line.text);
        }
    }
    finish(&mut header, current);
    header
}

/// Every heading outside code fences, of any level: its level, its name
/// (before any `:`, whitespace collapsed) and its line.
pub(crate) fn headings(lines: &[DocLine]) -> Vec<(usize, String, Span)> {
    let mut fence = Fence::default();
    let mut found = Vec::new();
    for line in lines {
        if fence.update(&line.text) {
            continue;
        }
        if let Some(level) = heading_level(&line.text) {
            let text = unindent(&line.text).unwrap_or(&line.text)[level..].trim();
            let name = text.split_once(':').map_or(text, |(name, _)| name);
            found.push((
                level,
                name.split_whitespace().collect::<Vec<_>>().join(" "),
                line.span,
            ));
        }
    }
    found
}

/// Closes a section: joins its content and stores it.
fn finish(header: &mut Header, current: Option<(Section, Vec<&str>)>) {
    if let Some((mut section, content)) = current {
        section.text = join_lines(content);
        header.sections.push(section);
    }
}

/// Non-blank lines, trimmed, joined with single spaces.
fn join_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    lines
        .into_iter()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first paragraph: text before the first blank line, heading or code
/// fence (leading blank lines skipped).
fn purpose(lines: &[DocLine]) -> String {
    let paragraph = lines
        .iter()
        .map(|l| l.text.as_str())
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| {
            !l.trim().is_empty() && heading_level(l).is_none() && fence_marker(l).is_none()
        });
    join_lines(paragraph)
}

/// Strips up to three spaces of indentation (four make a code block).
fn unindent(line: &str) -> Option<&str> {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    (spaces < 4).then(|| &line[spaces..])
}

/// The level of an ATX heading (`#` to `######` then a space or the end).
fn heading_level(line: &str) -> Option<usize> {
    let line = unindent(line)?;
    let level = line.len() - line.trim_start_matches('#').len();
    let rest = &line[level..];
    ((1..=6).contains(&level) && (rest.is_empty() || rest.starts_with([' ', '\t'])))
        .then_some(level)
}

/// The name of a level-one heading `# Name`.
fn level_one_heading(line: &str) -> Option<&str> {
    (heading_level(line)? == 1).then(|| unindent(line).unwrap_or(line)[1..].trim())
}

/// A code fence opener/closer: the fence character and its length.
fn fence_marker(line: &str) -> Option<(char, usize)> {
    let line = unindent(line)?;
    let ch = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = line.len() - line.trim_start_matches(ch).len();
    (len >= 3).then_some((ch, len))
}

/// Tracks whether we are inside a fenced code block.
#[derive(Default)]
struct Fence {
    open: Option<(char, usize)>,
}

impl Fence {
    /// Feeds a line; returns true if the line is a fence line or inside a
    /// fence (so it cannot be a heading).
    fn update(&mut self, line: &str) -> bool {
        match (self.open, fence_marker(line)) {
            (None, Some(marker)) => {
                self.open = Some(marker);
                true
            }
            (Some((ch, len)), Some((c, l))) if c == ch && l >= len => {
                self.open = None;
                true
            }
            (Some(_), _) => true,
            (None, None) => false,
        }
    }
}

/// `wait_experience` -> `wait-experience`; `waitExperience` ->
/// `wait-experience`; raw prefix and outer underscores dropped.
pub(crate) fn kebab_case(ident: &str) -> String {
    let ident = ident.strip_prefix("r#").unwrap_or(ident);
    let mut out = String::new();
    let mut prev_lower = false;
    for c in ident.trim_matches('_').chars() {
        if c == '_' {
            if !out.ends_with('-') {
                out.push('-');
            }
            prev_lower = false;
        } else if c.is_uppercase() {
            if prev_lower && !out.ends_with('-') {
                out.push('-');
            }
            out.extend(c.to_lowercase());
            prev_lower = false;
        } else {
            out.push(c);
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn lines(text: &[&str]) -> Vec<DocLine> {
        text.iter()
            .map(|t| DocLine {
                text: (*t).to_owned(),
                span: Span::call_site(),
            })
            .collect()
    }

    fn header(text: &[&str]) -> Header {
        parse_header(&lines(text))
    }

    fn names(h: &Header) -> Vec<&str> {
        h.sections.iter().map(|s| s.name.as_str()).collect()
    }

    #[test]
    fn parses_item_and_keeps_body_tokens() {
        let item: ContactItem = syn::parse2(quote! {
            /// Doc.
            #[cfg(test)]
            #[allow(unused)]
            pub async fn f(context: Context, event: Event, callback: Callback) -> Completion {
                let x = 1 +;
            }
        })
        .unwrap();
        assert_eq!(item.sig.ident, "f");
        assert!(item.sig.asyncness.is_some());
        assert!(matches!(item.vis, Visibility::Public(_)));
        assert_eq!(item.body.stream().to_string(), "let x = 1 + ;");
        assert_eq!(item.attrs_with(AttrRole::Doc).len(), 1);
        assert_eq!(item.attrs_with(AttrRole::Cfg).len(), 1);
        assert_eq!(item.attrs_with(AttrRole::Other).len(), 1);
    }

    #[test]
    fn rejects_non_functions() {
        assert!(syn::parse2::<ContactItem>(quote!(
            struct S;
        ))
        .is_err());
        let err = syn::parse2::<ContactItem>(quote!(
            fn f();
        ))
        .err()
        .unwrap();
        assert_eq!(err.to_string(), NO_BODY);
        let err = syn::parse2::<ContactItem>(quote!(
            struct S;
        ))
        .err()
        .unwrap();
        assert_eq!(err.to_string(), NOT_A_FN);
    }

    #[test]
    fn attr_roles() {
        let item: ContactItem = syn::parse2(quote! {
            #[doc(hidden)]
            #[cfg_attr(test, allow(dead_code))]
            #[must_use]
            fn f() {}
        })
        .unwrap();
        let roles: Vec<AttrRole> = item.attrs.iter().map(attr_role).collect();
        assert_eq!(roles, [AttrRole::Doc, AttrRole::Cfg, AttrRole::Other]);
    }

    #[test]
    fn doc_lines_strip_one_space_and_split_blocks() {
        let item: ContactItem = syn::parse2(quote! {
            #[doc = " one"]
            #[doc = "  two"]
            #[doc = "three\n four\n"]
            #[doc(hidden)]
            #[doc = include_str!("x")]
            fn f() {}
        })
        .unwrap();
        let texts: Vec<String> = doc_lines(&item.attrs).into_iter().map(|l| l.text).collect();
        assert_eq!(texts, ["one", " two", "three", "four", ""]);
    }

    #[test]
    fn purpose_is_first_paragraph() {
        let h = header(&[
            "",
            "Queue wait",
            "experience.",
            "",
            "More.",
            "# Trigger",
            "x",
        ]);
        assert_eq!(h.purpose, "Queue wait experience.");
        assert_eq!(header(&["Purpose", "# Trigger", "x"]).purpose, "Purpose");
        assert_eq!(header(&["Purpose", "## Sub"]).purpose, "Purpose");
        assert_eq!(header(&["# Trigger", "x"]).purpose, "");
        assert_eq!(header(&["```", "code", "```"]).purpose, "");
        assert_eq!(header(&[]).purpose, "");
    }

    #[test]
    fn sections_are_split_at_level_one_headings() {
        let h = header(&[
            "Purpose.",
            "",
            "# Trigger",
            "Studio widget",
            "  on the wait URL.  ",
            "",
            "## Details",
            "more",
            "#  Critical   Logging ",
            "Task result",
            "# Contacts",
            "#NotAHeading",
            "    # indented code",
            "# Empty",
        ]);
        assert_eq!(
            names(&h),
            ["Trigger", "Critical Logging", "Contacts", "Empty"]
        );
        assert_eq!(
            h.sections[0].text,
            "Studio widget on the wait URL. ## Details more"
        );
        assert_eq!(h.text_of("critical logging"), "Task result");
        assert_eq!(h.text_of("CONTACTS"), "#NotAHeading # indented code");
        assert_eq!(h.text_of("empty"), "");
        assert_eq!(h.text_of("missing"), "");
        assert!(h.sections[1].is("critical logging"));
    }

    #[test]
    fn a_section_can_be_written_on_its_heading_line() {
        let h = header(&[
            "Holds.",
            "# Trigger: Studio widget",
            "# Dependencies: none",
            "# Contacts:",
            "oncall@example.com",
        ]);
        assert_eq!(h.purpose, "Holds.");
        assert_eq!(h.text_of("Trigger"), "Studio widget");
        assert_eq!(h.text_of("dependencies"), "none");
        assert_eq!(h.text_of("Contacts"), "oncall@example.com");
        let empty = header(&["Holds.", "# Contacts:"]);
        assert_eq!(empty.sections[0].name, "Contacts");
        assert_eq!(empty.text_of("Contacts"), "");
    }

    #[test]
    fn headings_inside_code_fences_do_not_count() {
        let h = header(&[
            "Purpose.",
            "# Trigger",
            "```",
            "# Contacts",
            "```",
            "after",
            "~~~~",
            "# Dependencies",
            "~~~",
            "still in fence",
            "~~~~",
            "# Contacts",
            "me",
        ]);
        assert_eq!(names(&h), ["Trigger", "Contacts"]);
        assert_eq!(
            h.text_of("trigger"),
            "``` # Contacts ``` after ~~~~ # Dependencies ~~~ still in fence ~~~~"
        );
        assert_eq!(h.sections_named("contacts").count(), 1);
    }

    #[test]
    fn duplicate_sections_are_kept() {
        let h = header(&["p", "# Trigger", "a", "# trigger", "b"]);
        assert_eq!(h.sections_named("Trigger").count(), 2);
        assert_eq!(h.text_of("trigger"), "a");
    }

    #[test]
    fn kebab() {
        assert_eq!(kebab_case("wait_experience"), "wait-experience");
        assert_eq!(kebab_case("r#type"), "type");
        assert_eq!(kebab_case("_private__fn_"), "private-fn");
        assert_eq!(kebab_case("waitExperience2"), "wait-experience2");
        assert_eq!(kebab_case("voicemail2_email"), "voicemail2-email");
        assert_eq!(kebab_case("f"), "f");
    }
}
