// The smallest voice function: the default kind, the three call parameters,
// the four required sections and a purpose.
use ccfn_core::function::{ContactFunction, Kind};
use ccfn_core::prelude::*;
use ccfn_core::Reply;

/// Answers the call and hangs up.
///
/// # Trigger
/// Incoming call webhook of the support number.
/// # Dependencies
/// None.
/// # Critical logging
/// None beyond the contract.
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn answer(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = (context, event);
    let mut twiml = VoiceResponse::new();
    twiml.say("Goodbye.");
    callback.success(twiml)
}

#[test]
fn expands_and_runs() {
    let meta = answer::META;
    assert_eq!(meta.name(), "answer");
    assert_eq!(meta.purpose(), "Answers the call and hangs up.");
    assert_eq!(
        meta.trigger(),
        "Incoming call webhook of the support number."
    );
    assert_eq!(meta.required(), ["CallSid", "From", "To"]);
    assert_eq!(meta.optional(), "");
    assert_eq!(meta.dependencies(), "None.");
    assert_eq!(meta.critical_logging(), "None beyond the contract.");
    assert_eq!(meta.contacts(), "contact-center-oncall@example.com");
    assert!(meta.env().is_empty());
    assert_eq!(meta.kind(), Kind::Voice);
    assert_eq!(meta.timeout_ms(), 10_000);
    assert_eq!(answer.meta(), &answer::META);

    let event: Event = [
        ("CallSid", "CA1"),
        ("From", "+15550001"),
        ("To", "+15550002"),
    ]
    .into_iter()
    .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let completion = runtime.block_on(answer.invoke(Context::builder().build(), event));
    match completion.into_result() {
        Ok(Reply::Voice(voice)) => assert!(voice.xml().contains("Goodbye."), "{voice:?}"),
        other => panic!("expected a voice document, got {other:?}"),
    }
}
