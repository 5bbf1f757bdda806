// The same name twice in `env`.
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
#[contact_fn(required = [CallSid, From, To], env = [PLATFORM_WORKSPACE_SID, workflowSid, "PLATFORM_WORKSPACE_SID"])]
async fn answer(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = (context, event);
    callback.success(VoiceResponse::new())
}

fn main() {}
