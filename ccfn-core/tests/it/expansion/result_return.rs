// A handler returning `Result<Completion, Error>`, so that `?` works.
use ccfn_core::function::ContactFunction;
use ccfn_core::prelude::*;
use ccfn_core::{ErrorKind, Reply};

/// Reads the caller's menu choice.
///
/// # Trigger
/// Gather action URL of the main menu.
/// # Dependencies
/// None
/// # Critical logging
/// None beyond the contract
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To, Digits])]
async fn menu(context: Context, event: Event, callback: Callback) -> Result<Completion, Error> {
    let _ = context;
    let choice: u8 = event.get("Digits").unwrap_or_default().parse()?;
    let mut twiml = VoiceResponse::new();
    twiml.say(format!("You chose {choice}."));
    Ok(callback.success(twiml))
}

#[test]
fn expands_and_runs() {
    assert_eq!(menu::META.required(), ["CallSid", "From", "To", "Digits"]);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let event = |digits: &str| -> Event {
        [
            ("CallSid", "CA1"),
            ("From", "+15550001"),
            ("To", "+15550002"),
            ("Digits", digits),
        ]
        .into_iter()
        .collect()
    };

    let completion = runtime.block_on(menu.invoke(Context::builder().build(), event("2")));
    match completion.into_result() {
        Ok(Reply::Voice(voice)) => assert!(voice.xml().contains("You chose 2."), "{voice:?}"),
        other => panic!("expected a voice document, got {other:?}"),
    }

    // The `?` turned the parse error into the function's error.
    let completion = runtime.block_on(menu.invoke(Context::builder().build(), event("two")));
    let error = completion.into_result().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Function);
    assert_eq!(error.message(), "invalid digit found in string");
}
