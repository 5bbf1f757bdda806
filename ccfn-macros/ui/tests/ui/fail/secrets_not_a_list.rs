// `secrets` takes a list in brackets.
use ccfn_core::prelude::*;

/// Looks the caller up in the CRM.
///
/// # Trigger
/// Incoming call webhook.
/// # Dependencies
/// CRM
/// # Critical logging
/// None beyond the contract
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To], secrets = "CRM_SESSION")]
async fn lookup(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = (context, event);
    callback.success(VoiceResponse::new())
}

fn main() {}
