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
