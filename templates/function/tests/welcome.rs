//! The functions, run under the logging contract with fake inputs.

use ccfn_core::Reply;
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
    let Some(Reply::Voice(voice)) = run.reply() else {
        panic!("expected voice markup, got {:?}", run.completion());
    };
    assert!(
        voice
            .xml()
            .contains(r#"<Say language="fr-FR">Thank you for calling Example Co.</Say>"#),
        "{}",
        voice.xml()
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
    assert_eq!(
        run.error_message(),
        Some("Missing required environment variable: COMPANY_NAME")
    );
}
