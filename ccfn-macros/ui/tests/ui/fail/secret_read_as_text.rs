// A declared secret read with `get` or `required`, which return plain
// text: each read is an error that names the method returning a `Secret`.
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
#[contact_fn(required = [CallSid, From, To], env = [CRM_URL], secrets = [CRM_SESSION, "crmKey"])]
async fn lookup(ctx: Context, event: Event, callback: Callback) -> Completion {
    let _ = (ctx.get("CRM_URL"), event);
    let session = ctx.get("CRM_SESSION").unwrap_or_default();
    let key = if session.is_empty() { ctx.required("crmKey") } else { session };
    callback.success(key.len())
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
