// A handler that returns its result instead of completing.
use ccfn_core::prelude::*;

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
async fn answer(context: Context, event: Event, callback: Callback) -> String {
    let _ = (context, callback);
    event.from().unwrap_or_default().to_owned()
}

// Registered and tested as a user's code does: the macro's error is the
// only one.
ccfn_macros_ui::registered_and_tested!(answer);
