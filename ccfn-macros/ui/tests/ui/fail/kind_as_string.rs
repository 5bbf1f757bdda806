// `kind` written as a string.
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
#[contact_fn(required = [From], kind = "email")]
async fn answer(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = (context, event);
    callback.success(VoiceResponse::new())
}

// Registered and tested as a user's code does: the macro's error is the
// only one.
ccfn_macros_ui::registered_and_tested!(answer);
