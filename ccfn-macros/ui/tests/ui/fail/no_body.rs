// A trait method without a body.
use ccfn_core::prelude::*;

trait Functions {
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
    async fn answer(context: Context, event: Event, callback: Callback) -> Completion;
}

// Registered and tested as a user's code does: the macro's error is the
// only one.
use ccfn_core::runtime::{Feature, Runtime};
use ccfn_testkit::{invoke, FakeContext, FakeEvent};

struct Handlers;

impl Functions for Handlers {}

/// What the runtime serves.
fn runtime(runtime: Runtime) -> Runtime {
    runtime.feature(Feature::new("calls").function("calls/answer", Handlers::answer))
}

/// The function's test.
async fn answers() {
    invoke(Handlers::answer, FakeContext::new(), FakeEvent::voice())
        .await
        .assert_contract();
}

fn main() {
    let _ = (runtime, answers);
}
