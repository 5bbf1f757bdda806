//! Kept as a test binary of its own, not a module of `tests/it`: it needs a
//! process where no other test's capture is registered, or the bug it
//! guards against cannot show (see the last paragraph).
//!
//! A line the handler writes is captured even when a thread with no
//! subscriber wrote through the same callsite first, during the capture.
//!
//! `tracing` settles a callsite's interest once, when it is first hit;
//! while a single dispatcher is registered, tracing-core 0.1 asks the
//! default of the thread that hits it (tokio-rs/tracing#3611), which for
//! a thread with no subscriber is "never". This file is its own process,
//! so the capture below is the only dispatcher `invoke` does not add.

use ccfn_core::prelude::*;
use ccfn_testkit::{invoke, FakeContext, FakeEvent};

/// One callsite, for both threads.
fn shared_line(who: &str) {
    tracing::info!(who, "shared line");
}

/// Writes through a callsite another thread hits first.
///
/// # Trigger
/// Test.
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn second_to_the_line(_context: Context, _event: Event, callback: Callback) -> Completion {
    std::thread::spawn(|| shared_line("a thread with no subscriber"))
        .join()
        .expect("the thread ends");
    shared_line("the handler");
    callback.success(VoiceResponse::new())
}

#[tokio::test]
async fn a_callsite_first_hit_elsewhere_still_writes_the_handler_s_line() {
    let run = invoke(second_to_the_line, FakeContext::new(), FakeEvent::voice()).await;
    run.assert_contract();
    let handler_lines: Vec<_> = run
        .lines()
        .iter()
        .filter(|line| line.contains("shared line"))
        .collect();
    assert_eq!(handler_lines.len(), 1, "{:#?}", run.lines());
    assert!(
        handler_lines[0].contains("\"who\":\"the handler\""),
        "{}",
        handler_lines[0]
    );
}
