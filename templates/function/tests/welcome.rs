//! The functions, run under the logging contract with fake inputs.

use ccfn_testkit::{invoke, FakeContext, FakeEvent};
use {{crate_name}}::welcome;

fn context() -> FakeContext {
    FakeContext::new().value("COMPANY_NAME", "Example Co")
}

#[tokio::test]
async fn welcomes_the_caller_in_their_language() {
    let run = invoke(
        welcome,
        context(),
        FakeEvent::voice().param("Language", "fr-FR"),
    )
    .await;
    run.assert_contract();
    assert_eq!(run.status(), 200);
    assert!(
        run.xml()
            .contains(r#"<Say language="fr-FR">Thank you for calling Example Co.</Say>"#),
        "{}",
        run.xml()
    );
}

/// Every record of an invocation, with what changes from run to run (times,
/// ids, durations, memory, loopback ports) replaced by placeholders:
/// `tests/snapshots/welcome__welcome_records.snap`. A change shows as a
/// `.snap.new` file beside it; review it with `cargo insta review`.
#[tokio::test]
async fn welcome_records() {
    let run = invoke(welcome, context(), FakeEvent::voice()).await;
    run.assert_contract();
    insta::assert_snapshot!("welcome_records", run.snapshot());
}

#[tokio::test]
async fn without_its_company_name_it_fails_before_running() {
    let run = invoke(
        welcome,
        context().without("COMPANY_NAME"),
        FakeEvent::voice(),
    )
    .await;
    run.assert_contract();
    assert_eq!(run.status(), 500);
    assert_eq!(
        run.json(),
        serde_json::json!({ "message": "Missing required environment variable: COMPANY_NAME" })
    );
}
