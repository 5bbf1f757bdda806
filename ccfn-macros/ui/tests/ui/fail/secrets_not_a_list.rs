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

// Registered and tested as a user's code does: the macro's error is the
// only one.
use ccfn_core::runtime::{Feature, Runtime};
use ccfn_testkit::{invoke, FakeContext, FakeEvent};

/// What the runtime serves.
fn runtime(runtime: Runtime) -> Runtime {
    runtime.feature(Feature::new("calls").function("calls/lookup", lookup))
}

/// The function's test.
async fn answers() {
    invoke(lookup, FakeContext::new(), FakeEvent::voice())
        .await
        .assert_contract();
}

fn main() {
    let _ = (runtime, answers);
}
