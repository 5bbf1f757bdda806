//! The voice markup on arbitrary text and attribute values: the document
//! is well-formed XML 1.0, and an XML parser reads back every text and
//! attribute value as given, except that each character XML 1.0 cannot
//! hold (controls other than tab, line feed and carriage return; U+FFFE
//! and U+FFFF) reads back as U+FFFD.

#![no_main]

use ccfn_core::voice::{Method, VoiceResponse};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

/// One verb, with the text and attribute values it is built with.
#[derive(Debug, Arbitrary)]
enum Verb {
    Say(String, String, String),
    Gather(String, String, String),
    Redirect(String),
    Record(String, String),
    Dial(String, String, String, String),
    Enqueue(String, String, String),
}

/// An element as an XML parser reads it back: name, attributes in order,
/// the text directly inside it (references resolved, line ends normalised)
/// and its child elements.
#[derive(Debug, PartialEq, Eq)]
struct Element {
    name: String,
    attrs: Vec<(String, String)>,
    text: String,
    children: Vec<Element>,
}

impl Element {
    fn new(name: &str, attrs: &[(&str, &str)], text: &str, children: Vec<Element>) -> Self {
        Element {
            name: name.to_owned(),
            attrs: attrs
                .iter()
                .map(|(name, value)| ((*name).to_owned(), xml_text(value)))
                .collect(),
            text: xml_text(text),
            children,
        }
    }
}

/// XML 1.0's `Char` production.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// `text` as it reads back: characters XML 1.0 cannot hold become U+FFFD.
fn xml_text(text: &str) -> String {
    text.chars()
        .map(|c| if is_xml_char(c) { c } else { '\u{FFFD}' })
        .collect()
}

/// Adds `verb`, returning the element it should read back as.
fn add(twiml: &mut VoiceResponse, verb: &Verb) -> Element {
    match verb {
        Verb::Say(text, voice, language) => {
            twiml.say(text).voice(voice).language(language);
            Element::new(
                "Say",
                &[("voice", voice), ("language", language)],
                text,
                vec![],
            )
        }
        Verb::Gather(action, finish_on_key, prompt) => {
            twiml
                .gather()
                .action(action)
                .finish_on_key(finish_on_key)
                .say(prompt);
            Element::new(
                "Gather",
                &[("action", action), ("finishOnKey", finish_on_key)],
                "",
                vec![Element::new("Say", &[], prompt, vec![])],
            )
        }
        Verb::Redirect(url) => {
            twiml.redirect(url).method(Method::Post);
            Element::new("Redirect", &[("method", "POST")], url, vec![])
        }
        Verb::Record(action, finish_on_key) => {
            twiml.record().action(action).finish_on_key(finish_on_key);
            Element::new(
                "Record",
                &[("action", action), ("finishOnKey", finish_on_key)],
                "",
                vec![],
            )
        }
        Verb::Dial(number, caller_id, other, digits) => {
            twiml
                .dial_number(number)
                .caller_id(caller_id)
                .number(other)
                .send_digits(digits);
            Element::new(
                "Dial",
                &[("callerId", caller_id)],
                number,
                vec![Element::new(
                    "Number",
                    &[("sendDigits", digits)],
                    other,
                    vec![],
                )],
            )
        }
        Verb::Enqueue(name, wait_url, task) => {
            twiml
                .enqueue_name(name)
                .wait_url(wait_url)
                .task(task.as_str());
            Element::new(
                "Enqueue",
                &[("waitUrl", wait_url)],
                name,
                vec![Element::new("Task", &[], task, vec![])],
            )
        }
    }
}

/// Parses a whole document with quick-xml, reading every event to the end,
/// and checks what quick-xml does not: that every character, written or
/// referenced, is an XML 1.0 `Char`, that `]]>` does not occur in text,
/// that the declaration comes first and that there is exactly one root
/// element.
fn parse(xml: &str) -> Result<Element, String> {
    if let Some(c) = xml.chars().find(|c| !is_xml_char(*c)) {
        return Err(format!("{c:?} is not allowed in XML 1.0"));
    }
    let mut reader = Reader::from_str(xml);
    let mut open: Vec<Element> = Vec::new();
    let mut root = None;
    let mut declared = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("at byte {}: {e}", reader.error_position()))?;
        match event {
            Event::Decl(decl) if !declared && open.is_empty() && root.is_none() => {
                let version = decl.version().map_err(|e| e.to_string())?;
                if version != "1.0" {
                    return Err(format!("version {version}"));
                }
                declared = true;
            }
            Event::Start(start) => open.push(element(&start)?),
            Event::Empty(start) => close(&mut open, &mut root, element(&start)?)?,
            Event::End(_) => {
                // quick-xml checks that the name matches.
                let element = open.pop().ok_or("an end tag without a start tag")?;
                close(&mut open, &mut root, element)?;
            }
            Event::Text(text) if text.contains("]]>") => {
                return Err("`]]>` in text".to_owned());
            }
            Event::Text(text) => open
                .last_mut()
                .ok_or("text outside the root element")?
                .text
                .push_str(&text.xml10_content()),
            Event::GeneralRef(reference) => {
                let resolved = match reference.resolve_char_ref().map_err(|e| e.to_string())? {
                    Some(c) if is_xml_char(c) => c.to_string(),
                    Some(c) => return Err(format!("a reference to {c:?}")),
                    None => resolve_predefined_entity(&reference)
                        .ok_or_else(|| format!("an unknown entity `{}`", &*reference))?
                        .to_owned(),
                };
                open.last_mut()
                    .ok_or("a reference outside the root element")?
                    .text
                    .push_str(&resolved);
            }
            Event::Eof => break,
            other => return Err(format!("unexpected {other:?}")),
        }
    }
    if !declared {
        return Err("no XML declaration".to_owned());
    }
    if !open.is_empty() {
        return Err("unclosed elements".to_owned());
    }
    root.ok_or_else(|| "no root element".to_owned())
}

fn element(start: &BytesStart<'_>) -> Result<Element, String> {
    let mut attrs = Vec::new();
    // Duplicate attributes are errors too.
    for attr in start.attributes() {
        let attr = attr.map_err(|e| e.to_string())?;
        let value = attr
            .normalized_value(XmlVersion::Explicit1_0)
            .map_err(|e| e.to_string())?;
        if let Some(c) = value.chars().find(|c| !is_xml_char(*c)) {
            return Err(format!("a reference to {c:?}"));
        }
        attrs.push((attr.key.as_ref().to_owned(), value.into_owned()));
    }
    Ok(Element {
        name: start.name().as_ref().to_owned(),
        attrs,
        text: String::new(),
        children: Vec::new(),
    })
}

/// Attaches a finished element to its parent, or makes it the root.
fn close(open: &mut [Element], root: &mut Option<Element>, element: Element) -> Result<(), String> {
    match open.last_mut() {
        Some(parent) => parent.children.push(element),
        None if root.is_none() => *root = Some(element),
        None => return Err("a second root element".to_owned()),
    }
    Ok(())
}

fuzz_target!(|verbs: Vec<Verb>| {
    let mut twiml = VoiceResponse::new();
    let expected = verbs.iter().map(|verb| add(&mut twiml, verb)).collect();
    let xml = twiml.to_xml();
    assert_eq!(
        parse(&xml),
        Ok(Element::new("Response", &[], "", expected)),
        "{xml}"
    );
});
