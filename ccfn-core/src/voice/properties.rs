//! Whatever the text and attribute values, the document is well-formed
//! XML 1.0, and an XML parser reads back every text and attribute value
//! exactly as given, except that each character XML 1.0 cannot hold
//! (controls other than tab, line feed and carriage return; U+FFFE and
//! U+FFFF) reads back as U+FFFD. Tab, line feed and carriage return
//! survive everywhere: in attributes all three are written as character
//! references, which attribute-value normalisation leaves alone; in text
//! a carriage return is written as a reference, which end-of-line
//! normalisation leaves alone.

#![cfg(test)]

use proptest::prelude::*;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::*;

/// An element as an XML parser reads it back: name, attributes in
/// order, the text directly inside it (references resolved, line ends
/// normalised) and its child elements.
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// `text` as it reads back: characters XML 1.0 cannot hold become
/// U+FFFD.
fn xml_text(text: &str) -> String {
    text.chars()
        .map(|c| if is_xml_char(c) { c } else { '\u{FFFD}' })
        .collect()
}

/// Parses a whole document with quick-xml, reading every event to the
/// end, and checks what quick-xml does not: that every character,
/// written or referenced, is an XML 1.0 `Char`, that `]]>` does not
/// occur in text, that the declaration comes first and that there is
/// exactly one root element.
fn parse(xml: &str) -> Result<Element, String> {
    parse_document(xml).map(|(root, _)| root)
}

/// Where a comment is: before the root element, inside it, after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Before,
    Inside,
    After,
}

/// [`parse`], with the comments read back in document order, each with
/// where it is (a comment holding `--` is an error).
fn parse_document(xml: &str) -> Result<(Element, Vec<(Place, String)>), String> {
    if let Some(c) = xml.chars().find(|c| !is_xml_char(*c)) {
        return Err(format!("{c:?} is not allowed in XML 1.0"));
    }
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_comments = true;
    let mut comments = Vec::new();
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
            // `]]>` may not occur in text (quick-xml does not check).
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
            Event::Comment(text) => {
                let place = match (open.is_empty(), root.is_some()) {
                    (false, _) => Place::Inside,
                    (true, false) => Place::Before,
                    (true, true) => Place::After,
                };
                let text: &str = &text[..];
                comments.push((place, text.to_owned()));
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
    let root = root.ok_or_else(|| "no root element".to_owned())?;
    Ok((root, comments))
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
        let name = attr.key.as_ref().to_owned();
        attrs.push((name, value.into_owned()));
    }
    let name = start.name().as_ref().to_owned();
    Ok(Element {
        name,
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

/// Characters that XML escaping, line-end and attribute normalisation,
/// or XML 1.0's character range treat specially.
const SPECIAL: &str =
    "\0\u{1}\u{8}\u{b}\u{c}\u{1b}\u{1f}\t\n\r &<>\"';#]\u{7f}\u{85}\u{a0}\u{2028}\
    \u{D7FF}\u{E000}\u{FEFF}\u{FFFD}\u{FFFE}\u{FFFF}\u{10000}😀\u{10FFFF}é日";

/// Longer pieces with a meaning in XML.
const PIECES: &[&str] = &[
    "\r\n", "]]>", "<![CDATA", "[", "<!--", "-->", "?>", "&amp;", "&#xD;", "&#0;", "&lt",
];

/// Text of up to a few dozen pieces: arbitrary Unicode biased towards
/// [`SPECIAL`] and [`PIECES`], or arbitrary bytes read lossily.
fn text() -> impl Strategy<Value = String> {
    let special = SPECIAL.chars().map(String::from).collect::<Vec<_>>();
    prop_oneof![
        4 => prop::collection::vec(
            prop_oneof![
                3 => prop::sample::select(special),
                1 => prop::sample::select(PIECES).prop_map(str::to_owned),
                2 => prop::char::range(' ', '~').prop_map(String::from),
                1 => any::<char>().prop_map(String::from),
            ],
            0..24,
        )
        .prop_map(|pieces| pieces.concat()),
        1 => prop::collection::vec(any::<u8>(), 0..48)
            .prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
    ]
}

/// One verb, with the text and attribute values it is built with.
#[derive(Debug, Clone)]
enum Spec {
    Say(String, String, String),
    Gather(String, String, String),
    Redirect(String),
    Record(String, String),
    Dial(String, String, String, String),
    Enqueue(String, String, String),
}

fn spec() -> impl Strategy<Value = Spec> {
    prop_oneof![
        (text(), text(), text()).prop_map(|(a, b, c)| Spec::Say(a, b, c)),
        (text(), text(), text()).prop_map(|(a, b, c)| Spec::Gather(a, b, c)),
        text().prop_map(Spec::Redirect),
        (text(), text()).prop_map(|(a, b)| Spec::Record(a, b)),
        (text(), text(), text(), text()).prop_map(|(a, b, c, d)| Spec::Dial(a, b, c, d)),
        (text(), text(), text()).prop_map(|(a, b, c)| Spec::Enqueue(a, b, c)),
    ]
}

/// Adds the verb `spec` describes, returning the element it should read
/// back as.
fn add(twiml: &mut VoiceResponse, spec: &Spec) -> Element {
    match spec {
        Spec::Say(text, voice, language) => {
            twiml.say(text).voice(voice).language(language);
            Element::new(
                "Say",
                &[("voice", voice), ("language", language)],
                text,
                vec![],
            )
        }
        Spec::Gather(action, finish_on_key, prompt) => {
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
        Spec::Redirect(url) => {
            twiml.redirect(url).method(Method::Post);
            Element::new("Redirect", &[("method", "POST")], url, vec![])
        }
        Spec::Record(action, finish_on_key) => {
            twiml.record().action(action).finish_on_key(finish_on_key);
            Element::new(
                "Record",
                &[("action", action), ("finishOnKey", finish_on_key)],
                "",
                vec![],
            )
        }
        Spec::Dial(number, caller_id, other, digits) => {
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
        Spec::Enqueue(name, wait_url, task) => {
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any verbs with any text and attribute values: a well-formed
    /// document that reads back as the verbs built, every value as
    /// given except for U+FFFD in place of what XML 1.0 cannot hold.
    #[test]
    fn any_text_and_attributes_read_back(specs in prop::collection::vec(spec(), 0..6)) {
        let mut twiml = VoiceResponse::new();
        let verbs = specs.iter().map(|spec| add(&mut twiml, spec)).collect();
        let xml = twiml.to_xml();
        prop_assert_eq!(parse(&xml), Ok(Element::new("Response", &[], "", verbs)), "{}", xml);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any comment text, before, inside or after the response, among
    /// verbs: a well-formed document (no `--` in a comment), the verbs
    /// as built and each comment read back as written: as given, except
    /// for U+FFFD in place of what XML 1.0 cannot hold and of every
    /// hyphen of a text holding `--`.
    #[test]
    fn any_comment_text_reads_back(
        items in prop::collection::vec(
            prop_oneof![
                spec().prop_map(Err),
                (0..3u8, text()).prop_map(Ok),
            ],
            0..8,
        )
    ) {
        let mut twiml = VoiceResponse::new();
        let mut verbs = Vec::new();
        let (mut before, mut inside, mut after) = (Vec::new(), Vec::new(), Vec::new());
        for item in &items {
            match item {
                Err(spec) => verbs.push(add(&mut twiml, spec)),
                Ok((place, text)) => {
                    let hyphens = text.contains("--");
                    let read: String = xml_text(text)
                        .chars()
                        .map(|c| if hyphens && c == '-' { '\u{FFFD}' } else { c })
                        .collect();
                    let read = format!(" {read} ");
                    match place {
                        0 => {
                            twiml.comment_before(text);
                            before.push((Place::Before, read));
                        }
                        1 => {
                            twiml.comment(text);
                            inside.push((Place::Inside, read));
                        }
                        _ => {
                            twiml.comment_after(text);
                            // Each goes right after the response.
                            after.insert(0, (Place::After, read));
                        }
                    }
                }
            }
        }
        let xml = twiml.to_xml();
        let comments = [before, inside, after].concat();
        prop_assert_eq!(
            parse_document(&xml),
            Ok((Element::new("Response", &[], "", verbs), comments)),
            "{}",
            xml
        );
    }
}

/// Line breaks and tabs, as written and as read back.
#[test]
fn line_breaks_and_tabs_survive() {
    let mut twiml = VoiceResponse::new();
    twiml.say("a\r\nb\rc\td").voice("e\r\nf\rg\th\ni");
    let xml = twiml.to_xml();
    assert!(xml.contains(r#"<Say voice="e&#xD;&#xA;f&#xD;g&#x9;h&#xA;i">a&#xD;"#));
    assert!(xml.contains("a&#xD;\nb&#xD;c\td</Say>"));
    assert_eq!(
        parse(&xml),
        Ok(Element::new(
            "Response",
            &[],
            "",
            vec![Element::new(
                "Say",
                &[("voice", "e\r\nf\rg\th\ni")],
                "a\r\nb\rc\td",
                vec![]
            )]
        ))
    );
    // Written as they are, they would not survive: a parser reads
    // line breaks and tabs in an attribute as spaces, and a carriage
    // return in text as a line feed.
    assert_eq!(
        parse("<?xml version=\"1.0\"?><Say voice=\"e\r\nf\tg\">a\r\nb\rc</Say>"),
        Ok(Element::new(
            "Say",
            &[("voice", "e f g")],
            "a\nb\nc",
            vec![]
        ))
    );
}

/// The checker itself finds what is not well-formed.
#[test]
fn the_checker_rejects_what_is_not_well_formed() {
    let decl = r#"<?xml version="1.0" encoding="UTF-8"?>"#;
    for body in [
        "<Say>\u{1}</Say>",
        "<Say>&#x1;</Say>",
        "<Say a=\"&#xFFFE;\"/>",
        "<Say>\u{FFFF}</Say>",
        "<Say>a & b</Say>",
        "<Say>a &nbsp; b</Say>",
        "<Say>a < b</Say>",
        "<Say>a]]>b</Say>",
        "<Say a=\"x\" a=\"y\"/>",
        "<Say a=\"x\"\"/>",
        "<Say></Play>",
        "<Say>",
        "<Say/><Say/>",
        "<Say/><!-- a -- b -->",
        "<!-- a --->",
        "",
    ] {
        assert!(parse(&format!("{decl}{body}")).is_err(), "{body:?}");
    }
    assert!(parse("<Say/>").is_err(), "no declaration");
}
