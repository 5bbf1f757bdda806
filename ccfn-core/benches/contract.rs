//! What the contract wrapper costs per invocation: the same handler called
//! bare, and through `#[contact_fn]` with full JSON-lines logging into a
//! sink (formatting and scrubbing included, no I/O).
//!
//! Run with `cargo bench -p ccfn-core --bench contract`.

use std::hint::black_box;

use ccfn_core::function::ContactFunction;
use ccfn_core::prelude::*;
use ccfn_core::record::{ContractLayer, LogFormat};
use criterion::{criterion_main, Criterion};
use tracing_subscriber::layer::SubscriberExt as _;

/// The handler's work: a small voice document.
fn answer(event: &Event) -> String {
    let mut twiml = VoiceResponse::new();
    twiml.say(format!(
        "Thanks for calling, {}.",
        event.from().unwrap_or("caller")
    ));
    twiml.to_xml()
}

/// Answers the caller.
///
/// # Trigger
/// Benchmark.
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn wrapped(_context: Context, event: Event, callback: Callback) -> Completion {
    callback.success(ccfn_core::Reply::Xml(answer(&event)))
}

async fn bare(event: Event) -> String {
    answer(&event)
}

fn event() -> Event {
    Event::from_pairs([
        ("CallSid", "CA0123456789abcdef0123456789abcdef"),
        ("From", "+15551230000"),
        ("To", "+15559870000"),
        ("FlowSid", "FW0123456789abcdef0123456789abcdef"),
    ])
}

fn contract(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let context = Context::builder()
        .value("DOMAIN_NAME", "localhost:3001")
        .value("ACCOUNT_SID", "AC0123456789abcdef0123456789abcdef")
        .secret("AUTH_TOKEN", "bench-auth-token-0001")
        .build();
    let subscriber =
        tracing_subscriber::registry().with(ContractLayer::new(LogFormat::Json, std::io::sink));
    let _guard = tracing::subscriber::set_default(subscriber);

    let mut group = c.benchmark_group("invocation");
    group.bench_function("bare handler", |b| {
        b.iter(|| black_box(runtime.block_on(bare(black_box(event())))));
    });
    group.bench_function("#[contact_fn] handler, JSON logs", |b| {
        b.iter(|| {
            let outcome = runtime.block_on(wrapped.invoke(context.clone(), black_box(event())));
            black_box(outcome)
        });
    });
    group.finish();
}

// `criterion_group!` makes an undocumented public fn.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::contract);
}
use group::benches;
criterion_main!(benches);
