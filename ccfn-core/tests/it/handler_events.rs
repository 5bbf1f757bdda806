//! A handler's own `tracing` events, as `docs/logging-contract.md` shows
//! them: each run is pinned in a snapshot that the page's examples are
//! generated from. An event's target is its module path; these name the
//! page's crate, `contact_functions`, so that the examples read as a
//! user's would.

use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};

/// `create_callback`, a task function whose body is the given statements.
macro_rules! handler {
    ($context:ident => $($body:tt)*) => {
        /// Writes one event of its own.
        ///
        /// # Trigger
        /// Studio "Run Function" widget, `mode=callback`.
        /// # Dependencies
        /// Task router.
        /// # Critical logging
        /// Task creation result.
        /// # Contacts
        /// contact-center-oncall@example.com
        #[contact_fn(required = [CallSid, From, To], kind = task)]
        pub(super) async fn create_callback($context: Context, _event: Event, callback: Callback) -> Completion {
            $($body)*
            callback.success("ok")
        }
    };
}

mod critical {
    use ccfn_core::prelude::*;
    handler!(_context => tracing::info!(
        target: "ccfn::critical",
        task_sid = "WT0123456789abcdef0123456789abcdef",
        "task created"
    ););
}

mod own_fields {
    use ccfn_core::prelude::*;
    handler!(_context => tracing::info!(target: "contact_functions", queue = "support", position = 3, "caller queued"););
}

mod shadowing {
    use ccfn_core::prelude::*;
    handler!(_context => tracing::info!(
        target: "contact_functions",
        function = "not-me",
        call_sid = "CAfake",
        queue = "support",
        "routing"
    ););
}

mod secret_in_message {
    use ccfn_core::prelude::*;
    handler!(context =>
        let key = context.secret("EMAILPROVIDER_API_KEY").unwrap();
        tracing::info!(target: "contact_functions", "calling the provider with {} ({key})", key.expose());
    );
}

mod short_secret {
    use ccfn_core::prelude::*;
    handler!(context =>
        let days = context.secret("API_KEY_ROTATION_DAYS").unwrap();
        tracing::info!(target: "contact_functions", "rotating every {} days ({days})", days.expose());
    );
}

fn the_log(run: &Run) -> &ccfn_testkit::Record {
    run.assert_contract();
    run.record("log").expect("the handler's own line")
}

#[tokio::test]
async fn a_critical_event_keeps_its_target() {
    let run = invoke(
        critical::create_callback,
        FakeContext::new(),
        FakeEvent::voice(),
    )
    .await;
    assert_eq!(the_log(&run)["target"], "ccfn::critical");
    insta::assert_snapshot!("critical", run.snapshot());
}

#[tokio::test]
async fn an_event_s_fields_follow_its_target() {
    let run = invoke(
        own_fields::create_callback,
        FakeContext::new(),
        FakeEvent::voice(),
    )
    .await;
    let log = the_log(&run);
    assert_eq!(log["queue"], "support");
    assert_eq!(log["position"], 3);
    insta::assert_snapshot!("own_fields", run.snapshot());
}

#[tokio::test]
async fn an_event_cannot_shadow_the_record_s_fields() {
    let run = invoke(
        shadowing::create_callback,
        FakeContext::new(),
        FakeEvent::voice(),
    )
    .await;
    let log = the_log(&run);
    assert_eq!(log["function"], "create-callback");
    assert_eq!(log["fields.function"], "not-me");
    assert_eq!(log["fields.call_sid"], "CAfake");
    insta::assert_snapshot!("shadowing", run.snapshot());
}

#[tokio::test]
async fn a_secret_in_a_message_is_scrubbed() {
    let key = "key-canary-0123456789abcdef";
    let context = FakeContext::new().secret("EMAILPROVIDER_API_KEY", key);
    let run = invoke(
        secret_in_message::create_callback,
        context,
        FakeEvent::voice(),
    )
    .await;
    assert_eq!(
        the_log(&run)["message"],
        "calling the provider with [REDACTED] ([REDACTED])"
    );
    run.assert_no_leak(&[key]);
    insta::assert_snapshot!("secret_in_message", run.snapshot());
}

#[tokio::test]
async fn a_short_secret_is_scrubbed_only_where_ccfn_prints_it() {
    let context = FakeContext::new().secret("API_KEY_ROTATION_DAYS", "5");
    let run = invoke(short_secret::create_callback, context, FakeEvent::voice()).await;
    assert_eq!(
        the_log(&run)["message"],
        "rotating every 5 days ([REDACTED])"
    );
    insta::assert_snapshot!("short_secret", run.snapshot());
}
