//! Conformance: `VoiceResponse` must write every vector of
//! `tests/vectors/twiml-vectors.json` byte for byte.
//!
//! The vectors directory is `$CCFN_VECTORS_DIR` when set, else
//! `tests/vectors` (the public vectors, copied verbatim). Every vector needs an arm in
//! [`build`]: a vector without one fails the test, and so does an arm whose
//! vector is gone.

use std::path::PathBuf;

use ccfn_core::voice::{GatherInput, Method, VoiceResponse};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct Vector {
    name: String,
    description: String,
    expected_xml: String,
    source: String,
}

/// Names handled by [`build`], so that an arm whose vector was removed or
/// renamed is noticed.
const KNOWN: &[&str] = &[
    "empty_response",
    "say_language_loop_voice",
    "play_loop_digits",
    "gather_nested_say",
    "gather_input_action_numdigits",
    "record_transcribe_maxlength",
    "voicemail_say_record_hangup",
    "enqueue_task_priority_timeout",
    "enqueue_workflowsid_task_json",
    "dial_number_then_reject_redirect_pause",
    "redirect_method_get",
    "hangup",
    "escape_ampersand_in_attribute",
    "escape_ampersand_in_text",
    "escape_text_and_attribute_specials",
];

/// Builds the response a vector describes, or `None` for an unknown name.
fn build(name: &str) -> Option<VoiceResponse> {
    let mut twiml = VoiceResponse::new();
    match name {
        "empty_response" => {}
        "say_language_loop_voice" => {
            twiml
                .say("Hello Monkey")
                .language("fr")
                .loop_(3)
                .voice("man");
        }
        "play_loop_digits" => {
            twiml.play_url("www.twilio.com").loop_(2).digits("123");
        }
        "gather_nested_say" => {
            twiml
                .gather()
                .timeout(5)
                .finish_on_key("abcd")
                .say("hello world!")
                .loop_(2);
        }
        "gather_input_action_numdigits" => {
            twiml
                .gather()
                .input([GatherInput::Dtmf, GatherInput::Speech])
                .action("/features/ivr/menu-choice")
                .num_digits(1)
                .timeout(5)
                .say("Press 1 for sales. Press 2 for support.")
                .voice("Polly.Joanna");
        }
        "record_transcribe_maxlength" => {
            twiml
                .record()
                .transcribe(true)
                .max_length(100)
                .method(Method::Get)
                .transcribe_callback("www.twilio.ca");
        }
        "voicemail_say_record_hangup" => {
            twiml.say("Please leave a message after the beep.");
            twiml
                .record()
                .action("/features/voicemail/recording-complete")
                .max_length(120)
                .transcribe(true)
                .play_beep(true)
                .finish_on_key("#");
            twiml.hangup();
        }
        "enqueue_task_priority_timeout" => {
            twiml
                .enqueue()
                .method(Method::Post)
                .task("foo")
                .priority(1)
                .timeout(4);
        }
        "enqueue_workflowsid_task_json" => {
            twiml
                .enqueue()
                .workflow_sid("123123123")
                .task(r#"{"account_sid": "AC123123123"}"#);
        }
        "dial_number_then_reject_redirect_pause" => {
            twiml.dial().timeout(5).number("+11234567890");
            twiml.reject();
            twiml.redirect("www.twilio.com");
            twiml.pause().length(5);
        }
        "redirect_method_get" => {
            twiml.redirect("www.twilio.ca").method(Method::Get);
        }
        "hangup" => {
            twiml.hangup();
        }
        "escape_ampersand_in_attribute" => {
            twiml
                .dial()
                .number("+11234567890")
                .status_callback("https://example.com?action=getTwiml&param=dial");
        }
        "escape_ampersand_in_text" => {
            twiml
                .redirect("example.com?id=34&action=hey")
                .method(Method::Post);
        }
        "escape_text_and_attribute_specials" => {
            twiml.say(r#"Tom & Jerry <cartoon> "quoted" 'single'"#);
            twiml
                .gather()
                .action(r#"/features/ivr/menu?a=1&b="x"<y>"#)
                .say("hi");
        }
        _ => return None,
    }
    Some(twiml)
}

fn vectors_file() -> PathBuf {
    let dir = std::env::var_os("CCFN_VECTORS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors")));
    dir.join("twiml-vectors.json")
}

/// A message that shows both strings one above the other and points at the
/// first differing byte.
fn mismatch(v: &Vector, actual: &str) -> String {
    let at = v
        .expected_xml
        .bytes()
        .zip(actual.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| v.expected_xml.len().min(actual.len()));
    format!(
        "vector `{}` ({})\n  source:   {}\n  expected: {}\n  actual:   {}\n  first difference at byte {at}: expected {:?}, actual {:?}",
        v.name,
        v.description,
        v.source,
        v.expected_xml,
        actual,
        v.expected_xml.get(at..).unwrap_or(""),
        actual.get(at..).unwrap_or(""),
    )
}

#[test]
fn twiml_vectors_match_byte_for_byte() {
    let path = vectors_file();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} (set CCFN_VECTORS_DIR?): {e}",
            path.display()
        )
    });
    let vectors: Vec<Vector> = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not a vector list: {e}", path.display()));
    assert!(!vectors.is_empty(), "{} holds no vectors", path.display());

    let mut failures = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for v in &vectors {
        if !seen.insert(v.name.as_str()) {
            failures.push(format!("vector `{}` appears twice", v.name));
            continue;
        }
        match build(&v.name) {
            None => failures.push(format!(
                "vector `{}` has no builder arm in tests/it/twiml_vectors.rs: add one (and to KNOWN)\n  description: {}\n  expected: {}",
                v.name, v.description, v.expected_xml
            )),
            Some(twiml) => {
                let actual = twiml.to_xml();
                if actual != v.expected_xml {
                    failures.push(mismatch(v, &actual));
                } else if twiml.to_string() != actual {
                    failures.push(format!("vector `{}`: Display differs from to_xml", v.name));
                }
            }
        }
    }
    for name in KNOWN {
        if !seen.contains(name) {
            failures.push(format!(
                "builder arm `{name}` has no vector in {}: remove it",
                path.display()
            ));
        }
    }
    for v in &vectors {
        if build(&v.name).is_some() && !KNOWN.contains(&v.name.as_str()) {
            failures.push(format!(
                "vector `{}` is built but missing from KNOWN",
                v.name
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} twiml vectors failed:\n\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n\n")
    );
}
