//! Errors that convert: a handler may fail with text, a `String`, a boxed
//! error or any `std::error::Error`, with `?` or through the callback, and
//! say what it was doing with `.context(..)`; each becomes the function's
//! error, with its `error` record.

use std::error::Error as StdError;

use ccfn_core::prelude::*;
use ccfn_core::ErrorKind;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};

/// Fails with a `String`.
///
/// # Trigger
/// Test.
/// # Dependencies
/// None
/// # Critical logging
/// None
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid], kind = generic)]
async fn with_string(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, String> {
    let _ = context;
    let digits = event.get("Digits").ok_or("no digits pressed")?;
    Ok(callback.success(digits.to_owned()))
}

/// Fails with a boxed error.
///
/// # Trigger
/// Test.
/// # Optional parameters
/// Count
/// # Dependencies
/// None
/// # Critical logging
/// None
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid], kind = generic)]
async fn with_box(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Box<dyn StdError + Send + Sync>> {
    let _ = context;
    let count: u32 = event.get("Count").unwrap_or("many").parse()?;
    Ok(callback.success(count))
}

/// Fails through the callback with text.
///
/// # Trigger
/// Test.
/// # Dependencies
/// None
/// # Critical logging
/// None
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid], kind = generic)]
async fn with_callback(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = (context, event);
    callback.error("no digits")
}

/// Says what it was doing.
///
/// # Trigger
/// Test.
/// # Optional parameters
/// Tier
/// # Optional environment
/// CALLBACK_QUEUE
/// # Dependencies
/// None
/// # Critical logging
/// None
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid], kind = generic)]
async fn with_context(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let queue = context
        .get("CALLBACK_QUEUE")
        .context("choosing the callback queue")
        .map(str::to_owned);
    let tier: u8 = event
        .get("Tier")
        .unwrap_or("gold")
        .parse()
        .with_context(|| {
            format!(
                "reading the tier of {}",
                event.from().unwrap_or("the caller")
            )
        })?;
    Ok(callback.success(serde_json::json!({ "queue": queue.ok(), "tier": tier })))
}

async fn check(run: Run, message: &str) {
    run.assert_contract();
    assert_eq!(run.error_message(), Some(message));
    let error = run.error().expect("an error");
    assert_eq!(error.kind(), ErrorKind::Function);
    let record = run.record("error").expect("an error record");
    assert_eq!(record["kind"], "function");
    assert_eq!(record["error"], message);
    assert!(
        record["stack"]
            .as_str()
            .unwrap()
            .starts_with(&format!("function: {message}")),
        "{record:?}"
    );
}

#[tokio::test]
async fn a_string_error_is_the_function_error() {
    let run = invoke(
        with_string,
        FakeContext::new(),
        FakeEvent::empty().param("CallSid", "CA1"),
    )
    .await;
    check(run, "no digits pressed").await;
}

#[tokio::test]
async fn a_boxed_error_is_the_function_error() {
    let run = invoke(
        with_box,
        FakeContext::new(),
        FakeEvent::empty().param("CallSid", "CA1"),
    )
    .await;
    check(run, "invalid digit found in string").await;
}

#[tokio::test]
async fn text_given_to_the_callback_is_the_function_error() {
    let run = invoke(
        with_callback,
        FakeContext::new(),
        FakeEvent::empty().param("CallSid", "CA1"),
    )
    .await;
    check(run, "no digits").await;
}

#[tokio::test]
async fn context_says_what_was_being_done() {
    let event = FakeEvent::empty()
        .param("CallSid", "CA1")
        .param("From", "+15550100");
    let run = invoke(with_context, FakeContext::new(), event).await;
    check(
        run,
        "reading the tier of +15550100: invalid digit found in string",
    )
    .await;
}
