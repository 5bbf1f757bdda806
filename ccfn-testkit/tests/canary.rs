//! Canary secrets planted in the context and the event never reach a log
//! line, in either format, on any path of the contract.

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
    let everything = format!("{}\n{}", run.lines().join("\n"), run.pretty());
    for canary in [API_KEY, AUTH_TOKEN, EVENT_PASSWORD] {
        assert!(
            !everything.contains(canary),
            "{canary} leaked:\n{everything}"
        );
    }
    assert!(
        everything.contains("[REDACTED]"),
        "secrets are shown as redacted"
    );
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
