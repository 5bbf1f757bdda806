//! What the caller receives, read off a run without matching `Reply`
//! variants: `xml()`, `json()` and `status()`.

use ccfn_core::prelude::*;
use ccfn_core::ErrorKind;
use ccfn_testkit::{invoke, FakeContext, FakeEvent};
use serde_json::json;

/// Answers by `then`: markup, JSON, a custom reply, or an upstream error.
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
#[contact_fn(required = [CallSid, From, To])]
async fn answers(_context: Context, event: Event, callback: Callback) -> Completion {
    match event.get("then").unwrap_or_default() {
        "json" => callback.success(json!({ "queued": true })),
        "teapot" => callback.success(
            HttpReply::new(418)
                .header("Content-Type", "application/json")
                .body(r#"{"short":"stout"}"#),
        ),
        "upstream" => callback.error(Error::new(
            ErrorKind::Upstream,
            "GET https://crm.internal/customers?phone=%2B15551230000 answered 503",
        )),
        _ => {
            let mut twiml = VoiceResponse::new();
            twiml.say("Please hold.");
            callback.success(twiml)
        }
    }
}

#[tokio::test]
async fn markup_json_status_and_the_error_answer() {
    let run = invoke(answers, FakeContext::new(), FakeEvent::voice()).await;
    assert_eq!(run.status(), 200);
    assert_eq!(
        run.xml(),
        r#"<?xml version="1.0" encoding="UTF-8"?><Response><Say>Please hold.</Say></Response>"#
    );

    let run = invoke(
        answers,
        FakeContext::new(),
        FakeEvent::voice().param("then", "json"),
    )
    .await;
    assert_eq!((run.status(), run.json()), (200, json!({ "queued": true })));

    let run = invoke(
        answers,
        FakeContext::new(),
        FakeEvent::voice().param("then", "teapot"),
    )
    .await;
    assert_eq!(
        (run.status(), run.json()),
        (418, json!({ "short": "stout" }))
    );

    let run = invoke(
        answers,
        FakeContext::new(),
        FakeEvent::voice().without("From"),
    )
    .await;
    assert_eq!(
        (run.status(), run.json()),
        (
            400,
            json!({ "message": "Missing required parameter: From" })
        )
    );

    // The caller never reads the internal URL or the caller's number.
    let run = invoke(
        answers,
        FakeContext::new(),
        FakeEvent::voice().param("then", "upstream"),
    )
    .await;
    assert_eq!(
        (run.status(), run.json()),
        (500, json!({ "message": "upstream service error" }))
    );
}

#[tokio::test]
#[should_panic(expected = "`answers` answered no XML")]
async fn xml_of_a_json_answer_says_what_it_was() {
    let run = invoke(
        answers,
        FakeContext::new(),
        FakeEvent::voice().param("then", "json"),
    )
    .await;
    let _ = run.xml();
}
