// The body never completes through the callback, and alone uses an
// import: the macro's error is the only one (no mismatched type, and the
// import is not reported unused).
use ccfn_core::prelude::*;
use std::collections::BTreeMap;

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
    let _ = (context, event);
    let _ = BTreeMap::<u8, u8>::new();
    let mut twiml = VoiceResponse::new();
    twiml.say("Hello")
}

// Registered and tested as a user's code does: the macro's error is the
// only one.
ccfn_macros_ui::registered_and_tested!(answer);
