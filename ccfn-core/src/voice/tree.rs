//! The document as a tree of elements, and how an element is written.

use std::borrow::Cow;

use ref_cast::{ref_cast_custom, RefCastCustom};

use crate::text::xml::{escape_attr, escape_comment, escape_text};

/// One element: its tag, its attributes in the order they were first set,
/// the text it was created with, and what was added to it since.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct El {
    pub(super) tag: Cow<'static, str>,
    attrs: Vec<(Cow<'static, str>, Value)>,
    pub(super) text: String,
    pub(super) children: Vec<Node>,
}

/// An attribute's value as kept until the document is written: only text
/// given by the caller is a `String`; values of a fixed set and numbers
/// are kept without allocating.
#[derive(Debug, Clone)]
pub(super) enum Value {
    /// Text, escaped when written: the caller's, or a list of values
    /// ([`Values::joined`](super::Values::joined)).
    Text(Cow<'static, str>),
    /// A value of a fixed set (an enum's, `true`, `auto`, ...): written as
    /// it is, having no character that needs escaping (the enums' values
    /// are checked when the crate compiles, in `values.rs`).
    Plain(&'static str),
    /// A number, as its decimal digits.
    Number(Digits),
}

impl Value {
    /// The value as written before escaping.
    pub(super) fn as_str(&self) -> &str {
        match self {
            Value::Text(text) => text,
            Value::Plain(text) => text,
            Value::Number(digits) => digits.as_str(),
        }
    }

    /// Appends the value, escaped for an attribute, to `out`.
    fn write(&self, out: &mut String) {
        match self {
            Value::Text(text) => escape_attr(text, out),
            Value::Plain(text) => out.push_str(text),
            Value::Number(digits) => out.push_str(digits.as_str()),
        }
    }
}

/// Equal when written the same: `loop_(3)` and `attr("loop", "3")` set
/// equal values.
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Value {}

impl From<u32> for Value {
    fn from(number: u32) -> Self {
        Value::Number(Digits::new(number))
    }
}

impl From<bool> for Value {
    fn from(value: bool) -> Self {
        Value::Plain(if value { "true" } else { "false" })
    }
}

impl From<String> for Value {
    fn from(text: String) -> Self {
        Value::Text(Cow::Owned(text))
    }
}

/// The decimal digits of a `u32`, kept inline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Digits {
    bytes: [u8; 10],
    /// Where the digits start in `bytes` (they end at its end).
    start: u8,
}

impl Digits {
    fn new(mut number: u32) -> Self {
        let mut bytes = [b'0'; 10];
        let mut start = bytes.len();
        loop {
            start -= 1;
            // `number % 10` is a digit: the cast cannot truncate.
            bytes[start] = b'0' + (number % 10) as u8;
            number /= 10;
            if number == 0 {
                break;
            }
        }
        Digits {
            bytes,
            // At most 10: the cast cannot truncate.
            start: start as u8,
        }
    }

    fn as_str(&self) -> &str {
        // Only ASCII digits were written.
        std::str::from_utf8(&self.bytes[usize::from(self.start)..]).unwrap_or_default()
    }
}

/// What an element holds after its first text: elements and more text, in
/// the order they were added; in the response, comments too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Node {
    El(El),
    Text(String),
    /// An XML comment, `<!-- text -->`.
    Comment(String),
}

impl Node {
    /// Appends the node as XML to `out`.
    pub(super) fn write(&self, out: &mut String) {
        match self {
            Node::El(el) => el.write(out),
            Node::Text(text) => escape_text(text, out),
            Node::Comment(text) => write_comment(text, out),
        }
    }
}

/// Writes `<!-- text -->` as the helper libraries write a comment, with
/// [`escape_comment`]'s replacements: never `--` inside, so it cannot
/// close early.
pub(super) fn write_comment(text: &str, out: &mut String) {
    out.push_str("<!-- ");
    escape_comment(text, out);
    out.push_str(" -->");
}

impl El {
    pub(super) fn new(tag: impl Into<Cow<'static, str>>, text: String) -> Self {
        El {
            tag: tag.into(),
            attrs: Vec::new(),
            text,
            children: Vec::new(),
        }
    }

    /// Sets attribute `name`, replacing an earlier value in place (keeping
    /// its position) or appending a new attribute. `slots` is the room
    /// the first attribute makes: the number of attributes the element
    /// has setters for (at most [`MAX_SLOTS`]), so that setting them does
    /// not grow the list again and again.
    pub(super) fn set(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        value: impl Into<Value>,
        slots: usize,
    ) {
        let name = name.into();
        let value = value.into();
        match self.attrs.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => {
                if self.attrs.capacity() == 0 {
                    self.attrs.reserve_exact(slots.clamp(1, MAX_SLOTS));
                }
                self.attrs.push((name, value));
            }
        }
    }

    /// The value of attribute `name`, if set.
    pub(super) fn get(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find_map(|(n, value)| (n == name).then_some(value.as_str()))
    }

    /// The first text the element holds: the one it was created with, or
    /// else the first added; `None` when it holds none.
    pub(super) fn first_text(&self) -> Option<&str> {
        Some(self.text.as_str())
            .filter(|text| !text.is_empty())
            .or_else(|| {
                self.children.iter().find_map(|child| match child {
                    Node::Text(text) => Some(text.as_str()),
                    Node::El(_) | Node::Comment(_) => None,
                })
            })
    }

    /// Appends a child element and returns it as the builder type `T`.
    pub(super) fn push<T: Element>(&mut self, text: String) -> &mut T {
        T::cast(self.push_el(El::new(T::TAG, text)))
    }

    pub(super) fn push_el(&mut self, el: El) -> &mut El {
        self.children.push(Node::El(el));
        match self.children.last_mut() {
            Some(Node::El(el)) => el,
            _ => unreachable!("the element just pushed is last"),
        }
    }

    pub(super) fn push_text(&mut self, text: String) {
        // The helper libraries write nothing for empty text, and an element
        // holding only that is still written `<X/>`.
        if !text.is_empty() {
            self.children.push(Node::Text(text));
        }
    }

    /// Writes `<tag attrs>text children</tag>`, or `<tag attrs/>` when it
    /// holds nothing.
    pub(super) fn write(&self, out: &mut String) {
        out.push('<');
        out.push_str(&self.tag);
        for (name, value) in &self.attrs {
            out.push(' ');
            out.push_str(name);
            out.push_str("=\"");
            value.write(out);
            out.push('"');
        }
        if self.text.is_empty() && self.children.is_empty() {
            out.push_str("/>");
            return;
        }
        out.push('>');
        escape_text(&self.text, out);
        for child in &self.children {
            child.write(out);
        }
        out.push_str("</");
        out.push_str(&self.tag);
        out.push('>');
    }
}

/// The most room an element's attribute list makes at once.
pub(super) const MAX_SLOTS: usize = 8;

/// A builder type over one [`El`].
pub(super) trait Element {
    /// The tag it is written with.
    const TAG: &'static str;

    /// The builder over `el`.
    fn cast(el: &mut El) -> &mut Self;
}

/// Something children are added to: the response or an element.
pub(super) trait Parent {
    fn el_mut(&mut self) -> &mut El;
}

/// Panics unless `name` is an XML name (XML 1.0's `Name`, as the helper
/// libraries check it): what an element or attribute name must be for the
/// document to be well-formed.
pub(super) fn check_name(name: &str) -> &str {
    let start = |c: char| {
        matches!(c,
            ':' | 'A'..='Z' | '_' | 'a'..='z' | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}'
            | '\u{F8}'..='\u{2FF}' | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}'
            | '\u{200C}'..='\u{200D}' | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}'
            | '\u{3001}'..='\u{D7FF}' | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}'
            | '\u{10000}'..='\u{EFFFF}')
    };
    let rest = |c: char| {
        start(c)
            || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
    };
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(start) && chars.all(rest);
    assert!(
        valid,
        "{name:?} is not an XML name, so it cannot be written as an element or attribute name"
    );
    name
}

// ---------------------------------------------------------------------------
// Elements the builders do not know
// ---------------------------------------------------------------------------

/// An element added with `child(tag)`: one the platform added after these
/// builders were written. It takes any attribute, text and child.
#[derive(Debug, PartialEq, Eq, RefCastCustom)]
#[repr(transparent)]
pub struct GenericElement(El);

impl GenericElement {
    #[ref_cast_custom]
    pub(super) fn from_el(el: &mut El) -> &mut Self;

    /// Sets attribute `name` to `value` (replacing an earlier value in
    /// place).
    ///
    /// # Panics
    ///
    /// If `name` is not an XML name.
    pub fn attr(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        value: impl Into<String>,
    ) -> &mut Self {
        let name = name.into();
        check_name(&name);
        self.0.set(name, Into::<String>::into(value), 1);
        self
    }

    /// Appends an element tagged `tag`.
    ///
    /// # Panics
    ///
    /// If `tag` is not an XML name.
    pub fn child(&mut self, tag: impl Into<Cow<'static, str>>) -> &mut GenericElement {
        let tag = tag.into();
        check_name(&tag);
        GenericElement::from_el(self.0.push_el(El::new(tag, String::new())))
    }

    /// Appends text, after what the element already holds.
    pub fn add_text(&mut self, text: impl Into<String>) -> &mut Self {
        self.0.push_text(text.into());
        self
    }

    /// The element's tag.
    pub fn tag(&self) -> &str {
        &self.0.tag
    }
}
