// Only the attribute is imported: the handler's signature still names
// `Context`, `Event`, `Callback` and `Completion`, which the expansion
// glob-imports (rustc would otherwise suggest `std::task::Context`).
#![deny(unused_imports)]
use ccfn_core::contact_fn;

/// Answers the call.
///
/// # Trigger
/// Incoming call webhook.
/// # Dependencies
/// None
/// # Critical logging
/// None beyond the contract
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn answer(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = context;
    callback.success(event.from().unwrap_or_default().to_owned())
}

/// Answers with `?` in the body.
///
/// # Trigger
/// Incoming call webhook.
/// # Dependencies
/// None
/// # Critical logging
/// None beyond the contract
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn fallible(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, ccfn_core::Error> {
    let _ = (context, event);
    Ok(callback.success("fine"))
}

#[test]
fn expands_and_runs() {
    assert_eq!(answer::META.name(), "answer");
    assert_eq!(fallible::META.name(), "fallible");
}
