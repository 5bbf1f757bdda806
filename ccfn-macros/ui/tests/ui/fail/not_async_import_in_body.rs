// A handler that is not `async`, whose body alone uses an import: the
// macro's error is the only one (the body is still resolved, so the
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
fn answer(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = (context, event);
    let _ = BTreeMap::<u8, u8>::new();
    callback.success(VoiceResponse::new())
}

// Registered and tested as a user's code does: the macro's error is the
// only one.
ccfn_macros_ui::registered_and_tested!(answer);
