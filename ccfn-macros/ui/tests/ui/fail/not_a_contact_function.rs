// A handler without `#[contact_fn]` given where a function is expected.
use ccfn_core::prelude::*;

/// Answers the call.
async fn answer(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = (context, event);
    callback.success(VoiceResponse::new())
}

// Registered and tested as a user's code does: both name the function
// that lacks the attribute.
use ccfn_core::runtime::{Feature, Runtime};
use ccfn_testkit::{invoke, FakeContext, FakeEvent};

/// What the runtime serves.
fn runtime(runtime: Runtime) -> Runtime {
    runtime.feature(Feature::new("calls").function("calls/answer", answer))
}

/// The function's test.
async fn answers() {
    invoke(answer, FakeContext::new(), FakeEvent::voice())
        .await
        .assert_contract();
}

fn main() {
    let _ = (runtime, answers);
}
