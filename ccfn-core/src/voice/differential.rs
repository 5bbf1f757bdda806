//! The builders against the platform's own helper library: documents that
//! `tests/voice-helper/generate.js` built at random with the Node helper
//! (`twilio`, pinned), replayed through these builders, must come out byte
//! for byte as the helper wrote them; and the helper's vocabulary, read
//! from its type definitions, must be exactly the builders' vocabulary.
//!
//! The documents are generated, not committed: `.ci/run` generates them
//! and sets `CCFN_TEST_VOICE_HELPER=required`, so that a missing file fails
//! there. Elsewhere a missing file skips the comparison and says how to
//! generate it.

#![cfg(test)]

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::*;

/// A builder driven by the helper's names.
pub(super) trait Build {
    /// The helper's class name.
    fn class(&self) -> &'static str;
    /// Calls the setter of the helper's attribute `name`; `false` when
    /// there is none.
    fn set_named(&mut self, name: &str, value: &Value) -> bool;
    /// Calls the method the helper calls `method`; `None` when there is
    /// none.
    fn add_named(&mut self, method: &str, text: Option<&str>) -> Option<&mut dyn Build>;
    /// `attr(name, value)`.
    fn set_other(&mut self, name: String, value: String);
    /// `child(tag)`.
    fn add_other(&mut self, tag: String) -> &mut dyn Build;
    /// `add_text(text)`.
    fn add_words(&mut self, text: &str);
    /// `comment(text)`, `comment_before(text)` or `comment_after(text)`
    /// (`place` is `inside`, `before` or `after`): only the response has
    /// them, as only the helper's response has.
    fn add_comment(&mut self, place: &str, text: &str) {
        panic!(
            "{} has no comments, not even {place} {text:?}",
            self.class()
        )
    }
}

thread_local! {
    static HITS: RefCell<BTreeSet<(&'static str, &'static str)>> = const { RefCell::new(BTreeSet::new()) };
}

/// Notes that the setter or method the helper calls `name` on `class` ran.
pub(super) fn hit(class: &'static str, name: &'static str) {
    HITS.with(|hits| hits.borrow_mut().insert((class, name)));
}

impl Build for VoiceResponse {
    fn class(&self) -> &'static str {
        "VoiceResponse"
    }

    fn set_named(&mut self, _: &str, _: &Value) -> bool {
        false
    }

    fn add_named(&mut self, method: &str, text: Option<&str>) -> Option<&mut dyn Build> {
        self.add_by_name(method, text)
    }

    fn set_other(&mut self, name: String, _: String) {
        panic!("the response has no attributes, not even {name:?}")
    }

    fn add_other(&mut self, tag: String) -> &mut dyn Build {
        self.child(tag)
    }

    fn add_words(&mut self, text: &str) {
        panic!("the response holds no text, not even {text:?}")
    }

    fn add_comment(&mut self, place: &str, text: &str) {
        match place {
            "inside" => {
                hit("VoiceResponse", "fn comment");
                self.comment(text)
            }
            "before" => {
                hit("VoiceResponse", "fn comment_before");
                self.comment_before(text)
            }
            "after" => {
                hit("VoiceResponse", "fn comment_after");
                self.comment_after(text)
            }
            _ => panic!("a comment {place:?}"),
        };
    }
}

impl Build for GenericElement {
    fn class(&self) -> &'static str {
        "GenericNode"
    }

    fn set_named(&mut self, _: &str, _: &Value) -> bool {
        false
    }

    fn add_named(&mut self, _: &str, _: Option<&str>) -> Option<&mut dyn Build> {
        None
    }

    fn set_other(&mut self, name: String, value: String) {
        self.attr(name, value);
    }

    fn add_other(&mut self, tag: String) -> &mut dyn Build {
        self.child(tag)
    }

    fn add_words(&mut self, text: &str) {
        self.add_text(text);
    }
}

/// Replays one node of a generated document (its children, attributes
/// having been set by the caller) onto `parent`.
fn replay(parent: &mut dyn Build, node: &Value, at: &str) {
    for (i, child) in node["children"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = format!("{at}/{i}");
        if let Some(place) = child.get("comment") {
            let place = place.as_str().expect("where the comment goes");
            parent.add_comment(place, child["text"].as_str().expect("text"));
            continue;
        }
        if child.get("method").is_none() {
            parent.add_words(child["text"].as_str().expect("text"));
            continue;
        }
        let method = child["method"].as_str().expect("a method");
        let text = child.get("text").and_then(Value::as_str);
        let class = parent.class();
        let built: &mut dyn Build = if method == "addChild" {
            parent.add_other(child["tag"].as_str().expect("a tag").to_owned())
        } else {
            let built = parent
                .add_named(method, text)
                .unwrap_or_else(|| panic!("{at}: {class} has no {method:?}"));
            // The builder of the helper's class: `Refer::sip` is a
            // `ReferSip`, though both `Sip`s write `<Sip>`.
            assert_eq!(built.class(), child["class"], "{at}: {class}.{method}");
            built
        };
        for attr in child["attrs"].as_array().into_iter().flatten() {
            let name = attr[0].as_str().expect("an attribute name");
            let value = &attr[1];
            // A third element marks an attribute the helper has no name
            // for (or an element it does not know): it goes through
            // `attr`, as the platform's later additions would.
            if attr.get(2).is_some() || method == "addChild" {
                let value = value.as_str().expect("a string").to_owned();
                built.set_other(name.to_owned(), value);
            } else {
                let class = built.class();
                assert!(
                    built.set_named(name, value),
                    "{at}: {class} has no attribute {name:?}"
                );
            }
        }
        replay(built, child, &at);
    }
}

/// The comment methods of the response, which the helper's response has
/// beside the methods adding its children.
const COMMENTS: &[&str] = &["comment", "comment_before", "comment_after"];

/// The helper's vocabulary as the generator read it: class → (attribute
/// names, child method names, the names of those whose text is optional).
type Vocabulary = BTreeMap<String, (BTreeSet<String>, BTreeSet<String>, BTreeSet<String>)>;

fn read_vocabulary(line: &Value) -> Vocabulary {
    let names = |value: &Value| -> BTreeSet<String> {
        value
            .as_array()
            .expect("names")
            .iter()
            .map(|name| name.as_str().expect("a name").to_owned())
            .collect()
    };
    line["vocabulary"]
        .as_object()
        .expect("the vocabulary line")
        .iter()
        .map(|(class, sets)| {
            (
                class.clone(),
                (
                    names(&sets["attributes"]),
                    names(&sets["children"]),
                    names(&sets["optional"]),
                ),
            )
        })
        .collect()
}

fn ours() -> Vocabulary {
    VOCABULARY
        .iter()
        .map(|class| {
            let set = |names: &[&str]| names.iter().map(|name| name.to_string()).collect();
            (
                class.name.to_string(),
                (
                    set(class.attributes),
                    set(class.children),
                    set(class.optional),
                ),
            )
        })
        .collect()
}

/// One builder, for the differential test to check the vocabulary
/// against the helper library's: the helper's names of its attributes,
/// of its child methods and of those whose text is optional, and the
/// builders' own names of those methods.
struct Class {
    name: &'static str,
    attributes: &'static [&'static str],
    children: &'static [&'static str],
    optional: &'static [&'static str],
    methods: &'static [&'static str],
}

macro_rules! classes {
    ($($ty:ident),* $(,)?) => {
        &[$(Class {
            name: stringify!($ty),
            attributes: $ty::ATTRIBUTES,
            children: $ty::CHILDREN,
            optional: $ty::OPTIONAL,
            methods: $ty::METHODS,
        }),*]
    };
}

impl VoiceResponse {
    /// The response has no attributes.
    const ATTRIBUTES: &'static [&'static str] = &[];
}

/// Every builder.
const VOCABULARY: &[Class] = classes![
    VoiceResponse,
    AiSession,
    Application,
    ApplicationSid,
    Autopilot,
    Client,
    Conference,
    Config,
    Connect,
    Conversation,
    ConversationRelay,
    ConversationRelaySession,
    Dial,
    Echo,
    Enqueue,
    Gather,
    Hangup,
    Header,
    Headers,
    Identity,
    Language,
    Leave,
    Number,
    Parameter,
    Pause,
    Pay,
    Play,
    Prompt,
    Queue,
    Record,
    Recording,
    Redirect,
    Refer,
    ReferSip,
    Reject,
    Room,
    Say,
    Sim,
    Sip,
    SipUri,
    Siprec,
    Sms,
    SsmlBreak,
    SsmlEmphasis,
    SsmlLang,
    SsmlP,
    SsmlPhoneme,
    SsmlProsody,
    SsmlS,
    SsmlSayAs,
    SsmlSub,
    SsmlW,
    Start,
    Stop,
    Stream,
    Task,
    Transcription,
    VirtualAgent,
    WhatsApp,
];

const DOCUMENTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/voice-helper/documents.jsonl"
);

#[test]
fn every_helper_document_is_written_byte_for_byte() {
    let Ok(text) = std::fs::read_to_string(DOCUMENTS) else {
        assert!(
            std::env::var("CCFN_TEST_VOICE_HELPER").as_deref() != Ok("required"),
            "{DOCUMENTS} is missing; CCFN_TEST_VOICE_HELPER=required says it must be there"
        );
        eprintln!(
            "skipped: no {DOCUMENTS}; generate it with \
             `cd ccfn-core/tests/voice-helper && npm ci && node generate.js documents.jsonl`"
        );
        return;
    };
    let mut lines = text.lines();
    let header: Value =
        serde_json::from_str(lines.next().expect("a vocabulary line")).expect("JSON");

    // The vocabulary: exactly the helper's, class by class.
    let helper = read_vocabulary(&header);
    let ours = ours();
    let classes: BTreeSet<&String> = helper.keys().chain(ours.keys()).collect();
    let mut differences = Vec::new();
    for class in classes {
        let empty = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        let (h, o) = (
            helper.get(class).unwrap_or(&empty),
            ours.get(class).unwrap_or(&empty),
        );
        for (what, h, o) in [
            ("attribute", &h.0, &o.0),
            ("child", &h.1, &o.1),
            ("child with optional text", &h.2, &o.2),
        ] {
            for name in h.difference(o) {
                differences.push(format!("{class}: {what} {name:?} is missing"));
            }
            for name in o.difference(h) {
                differences.push(format!("{class}: {what} {name:?} is not the helper's"));
            }
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));

    // The documents.
    let mut count = 0;
    for (n, line) in lines.enumerate() {
        let line: Value = serde_json::from_str(line).expect("JSON");
        let mut twiml = VoiceResponse::new();
        replay(&mut twiml, &line["doc"], &format!("document {n}"));
        let expected = line["xml"].as_str().expect("the helper's XML");
        assert_eq!(twiml.to_xml(), expected, "document {n}: {}", line["doc"]);
        count += 1;
    }
    assert!(count >= 1000, "only {count} documents");

    // Every setter and method was driven at least once, by the helper's
    // names and by the builders' own (both forms of an optional text),
    // and so was each comment method.
    let hits: BTreeSet<String> = HITS.with(|hits| {
        hits.borrow()
            .iter()
            .map(|(class, name)| format!("{class}.{name}"))
            .collect()
    });
    let ours = |names: &'static [&'static str]| {
        names
            .iter()
            .map(|name| format!("fn {name}"))
            .collect::<Vec<_>>()
    };
    let missed: Vec<String> = VOCABULARY
        .iter()
        .flat_map(|class| {
            class
                .attributes
                .iter()
                .chain(class.children)
                .map(|name| name.to_string())
                .chain(ours(class.methods))
                .map(move |name| (class.name, name))
        })
        .chain(
            ours(COMMENTS)
                .into_iter()
                .map(|name| ("VoiceResponse", name)),
        )
        .map(|(class, name)| format!("{class}.{name}"))
        .filter(|key| !hits.contains(key))
        .collect();
    assert!(
        missed.is_empty(),
        "never exercised by the documents: {missed:?}"
    );
}
