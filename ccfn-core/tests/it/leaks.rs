//! Ways a secret could slip into a line, each closed: fields named like
//! secrets, tokens in results, secrets of several lines in the human
//! format, and the forms a secret takes in URLs.

use ccfn_core::prelude::*;
use ccfn_testkit::{invoke, FakeContext, FakeEvent};
use serde_json::json;

const PEM: &str = "-----BEGIN PRIVATE KEY-----\nMIIEvQ-canary-line-two\n-----END PRIVATE KEY-----";

/// Leaks what it is told to, every way but the log layer's own.
///
/// # Trigger: test
/// # Dependencies: none
/// # Critical logging: none
/// # Contacts: oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn careless(context: Context, _event: Event, callback: Callback) -> Completion {
    let pem = context.secret("PRIVATE_KEY").unwrap().expose().to_owned();
    tracing::info!(authorization = "Basic header-canary-0001", "calling out");
    tracing::info!(detail = %format!("loaded {pem}"), "key loaded");
    tracing::info!("signed url https://blob.example.com/x?sig=Ab%2Bcd%2FEF%3Dgh12");
    callback.success(json!({ "access_token": "minted-canary-0002", "ok": true }))
}

#[tokio::test]
async fn none_of_these_reach_a_line() {
    let context = FakeContext::new()
        .secret("PRIVATE_KEY", PEM)
        .secret("BLOB_SAS", "Ab+cd/EF=gh12");
    let run = invoke(careless, context, FakeEvent::voice()).await;
    run.assert_contract();
    run.assert_no_leak(&[
        "header-canary-0001",
        "minted-canary-0002",
        "MIIEvQ-canary-line-two",
        "Ab%2Bcd%2FEF%3Dgh12",
    ]);
    let logs = run.records_of("log");
    assert_eq!(
        logs[0]["authorization"], "[REDACTED]",
        "a field named like a secret"
    );
    assert_eq!(
        run.record("success").unwrap()["result"],
        json!({ "access_token": "[REDACTED]", "ok": true }),
        "a token in the result"
    );
    assert!(
        run.pretty().contains("[REDACTED]"),
        "the PEM, in the human format"
    );
    assert!(logs[2]["message"]
        .as_str()
        .unwrap()
        .contains("sig=[REDACTED]"));
}
