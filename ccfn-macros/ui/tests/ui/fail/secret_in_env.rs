// The same name in `env` and `secrets`: one list must say what it is.
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
#[contact_fn(required = [CallSid, From, To], env = [CRM_URL, CRM_SESSION], secrets = [CRM_SESSION])]
async fn lookup(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = (context, event);
    callback.success(VoiceResponse::new())
}

fn main() {}
