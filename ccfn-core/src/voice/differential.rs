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

/// The helper's vocabulary as the generator read it: class → (attribute
/// names, child method names).
type Vocabulary = BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>;

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
                (names(&sets["attributes"]), names(&sets["children"])),
            )
        })
        .collect()
}

fn ours() -> Vocabulary {
    VOCABULARY
        .iter()
        .map(|(class, attributes, children)| {
            let set = |names: &[&str]| names.iter().map(|name| name.to_string()).collect();
            (class.to_string(), (set(attributes), set(children)))
        })
        .collect()
}

/// Every builder, for the differential test to check the vocabulary
/// against the helper library's.
const VOCABULARY: &[(&str, &[&str], &[&str])] = &[
    ("VoiceResponse", &[], VoiceResponse::CHILDREN),
    ("AiSession", AiSession::ATTRIBUTES, AiSession::CHILDREN),
    (
        "Application",
        Application::ATTRIBUTES,
        Application::CHILDREN,
    ),
    (
        "ApplicationSid",
        ApplicationSid::ATTRIBUTES,
        ApplicationSid::CHILDREN,
    ),
    ("Autopilot", Autopilot::ATTRIBUTES, Autopilot::CHILDREN),
    ("Client", Client::ATTRIBUTES, Client::CHILDREN),
    ("Conference", Conference::ATTRIBUTES, Conference::CHILDREN),
    ("Config", Config::ATTRIBUTES, Config::CHILDREN),
    ("Connect", Connect::ATTRIBUTES, Connect::CHILDREN),
    (
        "Conversation",
        Conversation::ATTRIBUTES,
        Conversation::CHILDREN,
    ),
    (
        "ConversationRelay",
        ConversationRelay::ATTRIBUTES,
        ConversationRelay::CHILDREN,
    ),
    (
        "ConversationRelaySession",
        ConversationRelaySession::ATTRIBUTES,
        ConversationRelaySession::CHILDREN,
    ),
    ("Dial", Dial::ATTRIBUTES, Dial::CHILDREN),
    ("Echo", Echo::ATTRIBUTES, Echo::CHILDREN),
    ("Enqueue", Enqueue::ATTRIBUTES, Enqueue::CHILDREN),
    ("Gather", Gather::ATTRIBUTES, Gather::CHILDREN),
    ("Hangup", Hangup::ATTRIBUTES, Hangup::CHILDREN),
    ("Header", Header::ATTRIBUTES, Header::CHILDREN),
    ("Headers", Headers::ATTRIBUTES, Headers::CHILDREN),
    ("Identity", Identity::ATTRIBUTES, Identity::CHILDREN),
    ("Language", Language::ATTRIBUTES, Language::CHILDREN),
    ("Leave", Leave::ATTRIBUTES, Leave::CHILDREN),
    ("Number", Number::ATTRIBUTES, Number::CHILDREN),
    ("Parameter", Parameter::ATTRIBUTES, Parameter::CHILDREN),
    ("Pause", Pause::ATTRIBUTES, Pause::CHILDREN),
    ("Pay", Pay::ATTRIBUTES, Pay::CHILDREN),
    ("Play", Play::ATTRIBUTES, Play::CHILDREN),
    ("Prompt", Prompt::ATTRIBUTES, Prompt::CHILDREN),
    ("Queue", Queue::ATTRIBUTES, Queue::CHILDREN),
    ("Record", Record::ATTRIBUTES, Record::CHILDREN),
    ("Recording", Recording::ATTRIBUTES, Recording::CHILDREN),
    ("Redirect", Redirect::ATTRIBUTES, Redirect::CHILDREN),
    ("Refer", Refer::ATTRIBUTES, Refer::CHILDREN),
    ("ReferSip", ReferSip::ATTRIBUTES, ReferSip::CHILDREN),
    ("Reject", Reject::ATTRIBUTES, Reject::CHILDREN),
    ("Room", Room::ATTRIBUTES, Room::CHILDREN),
    ("Say", Say::ATTRIBUTES, Say::CHILDREN),
    ("Sim", Sim::ATTRIBUTES, Sim::CHILDREN),
    ("Sip", Sip::ATTRIBUTES, Sip::CHILDREN),
    ("SipUri", SipUri::ATTRIBUTES, SipUri::CHILDREN),
    ("Siprec", Siprec::ATTRIBUTES, Siprec::CHILDREN),
    ("Sms", Sms::ATTRIBUTES, Sms::CHILDREN),
    ("SsmlBreak", SsmlBreak::ATTRIBUTES, SsmlBreak::CHILDREN),
    (
        "SsmlEmphasis",
        SsmlEmphasis::ATTRIBUTES,
        SsmlEmphasis::CHILDREN,
    ),
    ("SsmlLang", SsmlLang::ATTRIBUTES, SsmlLang::CHILDREN),
    ("SsmlP", SsmlP::ATTRIBUTES, SsmlP::CHILDREN),
    (
        "SsmlPhoneme",
        SsmlPhoneme::ATTRIBUTES,
        SsmlPhoneme::CHILDREN,
    ),
    (
        "SsmlProsody",
        SsmlProsody::ATTRIBUTES,
        SsmlProsody::CHILDREN,
    ),
    ("SsmlS", SsmlS::ATTRIBUTES, SsmlS::CHILDREN),
    ("SsmlSayAs", SsmlSayAs::ATTRIBUTES, SsmlSayAs::CHILDREN),
    ("SsmlSub", SsmlSub::ATTRIBUTES, SsmlSub::CHILDREN),
    ("SsmlW", SsmlW::ATTRIBUTES, SsmlW::CHILDREN),
    ("Start", Start::ATTRIBUTES, Start::CHILDREN),
    ("Stop", Stop::ATTRIBUTES, Stop::CHILDREN),
    ("Stream", Stream::ATTRIBUTES, Stream::CHILDREN),
    ("Task", Task::ATTRIBUTES, Task::CHILDREN),
    (
        "Transcription",
        Transcription::ATTRIBUTES,
        Transcription::CHILDREN,
    ),
    (
        "VirtualAgent",
        VirtualAgent::ATTRIBUTES,
        VirtualAgent::CHILDREN,
    ),
    ("WhatsApp", WhatsApp::ATTRIBUTES, WhatsApp::CHILDREN),
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
        let empty = (BTreeSet::new(), BTreeSet::new());
        let (h, o) = (
            helper.get(class).unwrap_or(&empty),
            ours.get(class).unwrap_or(&empty),
        );
        for (what, h, o) in [("attribute", &h.0, &o.0), ("child", &h.1, &o.1)] {
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

    // Every setter and method was driven at least once.
    let hits = HITS.with(|hits| hits.borrow().clone());
    let missed: Vec<String> = VOCABULARY
        .iter()
        .flat_map(|(class, attributes, children)| {
            attributes
                .iter()
                .chain(children.iter())
                .map(move |name| (*class, *name))
        })
        .filter(|key| !hits.contains(key))
        .map(|(class, name)| format!("{class}.{name}"))
        .collect();
    assert!(
        missed.is_empty(),
        "never exercised by the documents: {missed:?}"
    );
}
