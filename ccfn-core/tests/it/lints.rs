//! The code `#[contact_fn]` generates triggers no lint, even under the
//! strictest settings a user may choose (thiserror's `test_lints.rs`,
//! tokio's `macros_clippy.rs`). Clippy's half of this test runs with
//! `cargo clippy -p ccfn-core --tests -- -D warnings`.
//!
//! No handler here awaits anything: `clippy::unused_async` (pedantic) must
//! not fire on them, since a handler cannot drop `async`.
#![deny(
    unused_qualifications,
    clippy::pedantic,
    deprecated,
    missing_docs,
    warnings,
    rust_2018_idioms,
    unreachable_pub,
    missing_debug_implementations,
    unsafe_code,
    clippy::all
)]

use ccfn_core::function::{ContactFunction, Kind};
use ccfn_core::prelude::*;
use ccfn_core::Reply;

/// Offers voicemail or a callback while the caller waits.
///
/// # Trigger
/// Studio "Run Function" widget on the queue's wait URL.
/// # Optional parameters
/// mode (`voicemail`, `callback`)
/// # Dependencies
/// Task router
/// # Critical logging
/// Task creation result
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(
    required = [CallSid, From, To],
    env = [PLATFORM_WORKSPACE_SID, "workflowSid"],
    name = "wait-experience",
    kind = voice,
    timeout_ms = 5000,
)]
pub async fn wait_experience(context: Context, event: Event, callback: Callback) -> Completion {
    let mut twiml = VoiceResponse::new();
    if context.get("workflowSid").is_some() && event.mode() == "callback" {
        twiml.say("We will call you back.");
    } else {
        twiml.say("Please hold.");
    }
    callback.success(twiml)
}

/// Looks up a customer's open tickets.
///
/// # Trigger
/// CRM webhook.
/// # Optional environment
/// LIMIT
/// # Dependencies
/// None
/// # Critical logging
/// None beyond the contract
/// # Contacts
/// crm-team@example.com
#[contact_fn(kind = generic, required = ["CustomerId"], env = [CRM_URL])]
pub async fn open_tickets(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let limit: u32 = context.get("LIMIT").unwrap_or("10").parse()?;
    let customer = event.get("CustomerId").unwrap_or_default();
    Ok(callback.success(serde_json::json!({ "customer": customer, "limit": limit })))
}

/// Sends the voicemail notice email.
///
/// # Trigger
/// Recording status callback.
/// # Dependencies
/// Email provider
/// # Critical logging
/// Email send result
/// # Contacts
/// voicemail-team@example.com
#[contact_fn(kind = email, required = [RecordingUrl], crate = "::ccfn_core")]
pub(crate) async fn voicemail_notice(
    context: Context,
    event: Event,
    callback: Callback,
) -> Completion {
    drop((context, event));
    callback.error(Error::msg("no email provider configured"))
}

#[test]
fn metas() {
    assert_eq!(wait_experience::META.name(), "wait-experience");
    assert_eq!(
        wait_experience::META.env(),
        ["PLATFORM_WORKSPACE_SID", "workflowSid"]
    );
    assert_eq!(wait_experience::META.timeout_ms(), 5000);
    assert_eq!(open_tickets::META.kind(), Kind::Generic);
    assert_eq!(open_tickets::META.required(), ["CustomerId"]);
    assert_eq!(voicemail_notice::META.kind(), Kind::Email);
    let functions: [&dyn ContactFunction; 3] = [&wait_experience, &open_tickets, &voicemail_notice];
    let names: Vec<&str> = functions.iter().map(|f| f.meta().name()).collect();
    assert_eq!(
        names,
        ["wait-experience", "open-tickets", "voicemail-notice"]
    );
}

#[tokio::test]
async fn invokes() {
    let event: Event = [("CustomerId", "C7")].into_iter().collect();
    let context = Context::builder().value("CRM_URL", "http://crm").build();
    let completion = open_tickets.invoke(context, event).await;
    match completion.into_result() {
        Ok(Reply::Json(value)) => {
            assert_eq!(value, serde_json::json!({ "customer": "C7", "limit": 10 }));
        }
        other => panic!("expected JSON, got {other:?}"),
    }
}
