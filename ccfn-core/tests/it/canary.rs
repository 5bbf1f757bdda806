//! Canary secrets planted in the context and the event never reach a log
//! line, in any format (JSON lines, the human format brief and full), on
//! any path of the contract.

use std::time::Duration;

use ccfn_core::prelude::*;
use ccfn_core::Secret;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};

const API_KEY: &str = "canary-api-key-5f1d8c";
const AUTH_TOKEN: &str = "canary-auth-token-9b2e47";
const EVENT_PASSWORD: &str = "canary-event-password-31ac";

fn context() -> FakeContext {
    FakeContext::new()
        .value("EMAILPROVIDER_API_KEY", API_KEY)
        .secret("AUTH_TOKEN", AUTH_TOKEN)
        .value("ENABLE_LOCAL_LOGGING", "true")
        .value("DEBUG_MODE", "true")
        .execution_alert_after(Duration::from_millis(1))
}

fn event() -> FakeEvent {
    FakeEvent::voice()
        .param("Password", EVENT_PASSWORD)
        .param("Notes", &format!("token {AUTH_TOKEN} pasted by mistake"))
}

/// Leaks the secrets every way a handler can: its own log lines, its
/// result, its error, its panic.
///
/// # Trigger
/// Test.
/// # Optional parameters
/// then
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To], timeout_ms = 100)]
async fn leaky(context: Context, event: Event, callback: Callback) -> Completion {
    let key = context
        .secret("EMAILPROVIDER_API_KEY")
        .unwrap()
        .expose()
        .to_owned();
    tracing::info!(key = %key, "calling the provider with {key}");
    tracing::warn!(?context, "context is {context:?}");
    match event.get("then") {
        Some("error") => callback.error(Error::msg(format!("provider refused key {key}"))),
        Some("panic") => panic!("key {key} rejected"),
        Some("hang") => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            callback.success("never")
        }
        _ => callback.success(serde_json::json!({ "used": key, "echo": event })),
    }
}

fn assert_clean(run: &Run) {
    run.assert_contract();
    run.assert_no_leak(&[API_KEY, AUTH_TOKEN, EVENT_PASSWORD]);
    for (format, text) in [
        ("json", run.lines().join("\n")),
        ("brief", run.pretty().to_owned()),
        ("full", run.pretty_full().to_owned()),
    ] {
        for canary in [API_KEY, AUTH_TOKEN, EVENT_PASSWORD] {
            assert!(
                !text.contains(canary),
                "{canary} leaked in {format}:\n{text}"
            );
        }
        // The brief format shows no event; the handler's own lines carry
        // a redacted `key` when it ran.
        let shows_a_secret = format != "brief" || !run.records_of("log").is_empty();
        assert_eq!(
            text.contains("[REDACTED]"),
            shows_a_secret,
            "secrets are shown as redacted in {format}:\n{text}"
        );
    }
}

#[tokio::test]
async fn no_canary_on_any_path() {
    for then in ["success", "error", "panic", "hang"] {
        let run = invoke(leaky, context(), event().param("then", then)).await;
        assert_clean(&run);
    }
    let run = invoke(leaky, context(), event().without("To")).await;
    assert_clean(&run);
}

#[tokio::test]
async fn secrets_made_anywhere_are_scrubbed() {
    let bearer = Secret::new("canary-bearer-0c7d");
    let run = invoke(
        leaky,
        FakeContext::new(),
        FakeEvent::voice().param("Comment", "canary-bearer-0c7d"),
    )
    .await;
    run.assert_no_leak(&[bearer.expose()]);
}

/// A password with every escaping hazard: XML (`& < > " '`), JSON (`"`,
/// `\`, tab), percent-encoding (`+ / = %` and a space).
const HAZARDOUS: &str = "canary<pa&ss>\"wo'rd\\\t+/= 100%";
/// Sensitive values that are not strings.
const IN_OBJECT: &str = "canary-object-member-6d0e";
const IN_ARRAY: &str = "canary-array-item-a41f";

/// Every form a value can take in a line, written out here rather than
/// taken from ccfn, so that the test checks ccfn's forms, not itself.
fn encodings(value: &str) -> Vec<String> {
    let json = |s: &str| {
        let quoted = serde_json::to_string(s).unwrap();
        quoted[1..quoted.len() - 1].to_owned()
    };
    let xml = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\t', "&#x9;")
    };
    let xml_text = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let percent: String = form_urlencoded::byte_serialize(value.as_bytes()).collect();
    let mut forms = Vec::new();
    for base in [
        value.to_owned(),
        xml(value),
        xml_text(value),
        xml(&json(value)),
        xml_text(&json(value)),
        percent.clone(),
        percent.replace('+', "%20"),
    ] {
        forms.push(json(&json(&base)));
        forms.push(json(&base));
        // As the human format shows it on a terminal: the tab as `\u{9}`.
        forms.push(base.replace('\t', "\\u{9}"));
        forms.push(base);
    }
    forms
}

/// Copies the event's sensitive values everywhere a handler can: the voice
/// markup's text and attributes, a task's attributes inside the markup, its
/// own log lines percent-encoded, and its result.
///
/// # Trigger
/// Test.
/// # Optional parameters
/// Password, credentials, tokens
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn copies(_context: Context, event: Event, callback: Callback) -> Completion {
    let password = event.get("Password").unwrap_or_default().to_owned();
    let object = event
        .get_value("credentials")
        .map(ToString::to_string)
        .unwrap_or_default();
    let array = event
        .get_value("tokens")
        .map(ToString::to_string)
        .unwrap_or_default();
    let encoded: String = form_urlencoded::byte_serialize(password.as_bytes()).collect();
    tracing::info!(url = %format!("/next?p={encoded}"), "next {encoded}");
    let mut twiml = VoiceResponse::new();
    twiml.say(format!("{password} {object} {array}"));
    twiml.redirect(format!("/next?p={encoded}&q={password}"));
    twiml.mark_built();
    twiml
        .enqueue()
        .workflow_sid("WW0123")
        .task(serde_json::json!({ "p": password, "o": object, "a": array }));
    callback.success(twiml)
}

#[tokio::test]
async fn sensitive_values_are_scrubbed_in_every_encoding_and_copy() {
    let mut event: Event = FakeEvent::voice().param("Password", HAZARDOUS).into();
    event.push(
        "credentials",
        serde_json::json!({ "user": "u", "key": IN_OBJECT }),
    );
    event.push("tokens", serde_json::json!([IN_ARRAY, 7]));
    let run = invoke(copies, FakeContext::new(), event).await;
    run.assert_contract();
    let voice = run.records_of("voice_response");
    assert_eq!(voice.len(), 2, "the markup is logged");
    for secret in [HAZARDOUS, IN_OBJECT, IN_ARRAY] {
        run.assert_no_leak(
            &encodings(secret)
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
    }
    assert!(run.lines().iter().any(|line| line.contains("[REDACTED]")));
}

#[tokio::test]
async fn registered_secrets_are_scrubbed_in_every_encoding() {
    let secret = Secret::new("canary-registered<&\"'>\t+/= 42%");
    let event = FakeEvent::voice().param("Note", secret.expose());
    let run = invoke(copies, FakeContext::new(), event).await;
    run.assert_contract();
    let value = secret.expose();
    // The function copies `Note` nowhere but the event: put it through the
    // markup too, by the name it reads.
    let run2 = invoke(
        copies,
        FakeContext::new(),
        FakeEvent::voice().param("Password", value),
    )
    .await;
    for run in [&run, &run2] {
        run.assert_no_leak(
            &encodings(value)
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
    }
}
