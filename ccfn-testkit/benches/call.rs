//! What a simulated call costs in wall time: a ten-step call (the dial,
//! then nine steps of the caller) through a looping menu, each step a
//! signed request over loopback to a runtime, each invocation captured;
//! servers started and stopped in each iteration.
//!
//! Run with `cargo bench -p ccfn-testkit --bench call`.

use ccfn_core::prelude::*;
use ccfn_core::runtime::{Feature, Runtime, RuntimeConfig};
use ccfn_testkit::call::Call;
use ccfn_testkit::{FakeContext, FAKE_AUTH_TOKEN};
use criterion::{criterion_main, Criterion};

/// A menu that loops until the caller presses 9.
///
/// # Trigger
/// Benchmark.
/// # Optional parameters
/// Digits
/// # Dependencies
/// None.
/// # Critical logging
/// None beyond the contract.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn menu(_context: Context, event: Event, callback: Callback) -> Completion {
    let mut twiml = VoiceResponse::new();
    match event.get("Digits") {
        Some("9") => {
            twiml.say("Goodbye.");
            twiml.hangup();
        }
        Some(digit) => {
            twiml.say(format!("You pressed {digit}."));
            twiml.gather().num_digits(1).say("Press a key.");
            twiml.redirect("menu");
        }
        None => {
            twiml.gather().num_digits(1).say("Press a key.");
            twiml.redirect("menu");
        }
    }
    callback.success(twiml)
}

/// The dial and nine steps of the caller.
async fn ten_steps() {
    let context = FakeContext::new()
        .secret("AUTH_TOKEN", FAKE_AUTH_TOKEN)
        .build();
    let runtime = Runtime::new(context, RuntimeConfig::default())
        .feature(Feature::new("bench").function("menu", menu));
    let mut call = Call::new(runtime).await.auth_token(FAKE_AUTH_TOKEN);
    call.dial("/features/bench/menu").await;
    for step in 1..=4 {
        call.press(&step.to_string()).await;
        call.waits(5).await;
    }
    call.press("9").await;
    call.hears("Goodbye.").assert_ended();
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    c.bench_function("a ten-step call", |b| {
        b.iter(|| runtime.block_on(ten_steps()));
    });
}

fn benches() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
}

criterion_main!(benches);
