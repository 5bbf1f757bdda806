//! Debug lines kept until they matter: a function's `debug` lines that the
//! filter leaves out (the testkit writes `info` and up for a handler's
//! crate) are held back during the invocation, and written only when it
//! fails or the handler asks, after a `debug_buffer` record.

use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};

/// `lookup`, a generic function holding `$bytes` of debug lines (`None`:
/// the setting decides), whose body is the given statements.
macro_rules! lookup {
    ($($option:ident = $value:literal),* => |$context:ident, $event:ident| $($body:tt)*) => {
        /// Looks a caller up in the CRM.
        ///
        /// # Trigger
        /// A webhook.
        /// # Optional parameters
        /// Fail (`yes`: the CRM fails)
        /// # Dependencies
        /// The CRM.
        /// # Critical logging
        /// None.
        /// # Contacts
        /// contact-center-oncall@example.com
        #[contact_fn(required = [CallSid, From, To], kind = generic, timeout_ms = 200 $(, $option = $value)*)]
        pub(super) async fn lookup($context: Context, $event: Event, callback: Callback) -> Completion {
            let result: Result<serde_json::Value, Error> = async { $($body)* }.await;
            match result {
                Ok(found) => callback.success(found),
                Err(error) => callback.error(error),
            }
        }
    };
}

/// Two debug lines around an info one, then the CRM's answer decides.
macro_rules! crm_story {
    ($event:ident) => {
        tracing::debug!(customer = "C-1042", "looking the caller up");
        tracing::info!("calling the CRM");
        tracing::debug!(status = 503, attempt = 1, "the CRM answered");
        if $event.get("Fail") == Some("yes") {
            return Err(Error::new(ccfn_core::ErrorKind::Upstream, "the CRM is unavailable"));
        }
        return Ok(serde_json::json!({ "found": true }));
    };
}

mod held {
    use ccfn_core::prelude::*;
    lookup!(debug_buffer_bytes = 4096 => |_context, event| crm_story!(event););
}

mod by_setting {
    use ccfn_core::prelude::*;
    lookup!(=> |_context, event| crm_story!(event););
}

mod none {
    use ccfn_core::prelude::*;
    lookup!(debug_buffer_bytes = 0 => |_context, event| crm_story!(event););
}

mod small {
    use ccfn_core::prelude::*;
    lookup!(debug_buffer_bytes = 300 => |_context, _event|
        for attempt in 1..=10 {
            tracing::debug!(attempt, "retrying the CRM");
        }
        Err(Error::new(ccfn_core::ErrorKind::Upstream, "the CRM is unavailable"))
    );
}

mod requested {
    use ccfn_core::prelude::*;
    lookup!(debug_buffer_bytes = 4096 => |context, _event|
        tracing::debug!(candidates = 0, "no caller matched");
        context.flush_debug_records();
        tracing::debug!("after the flush: held again, and forgotten");
        Ok(serde_json::json!({ "found": false }))
    );
}

mod slow {
    use ccfn_core::prelude::*;
    lookup!(debug_buffer_bytes = 4096 => |_context, _event|
        tracing::debug!("waiting for the CRM");
        tokio::time::sleep(std::time::Duration::from_secs(5)).await;
        Ok(serde_json::json!({}))
    );
}

mod secret {
    use ccfn_core::prelude::*;
    lookup!(debug_buffer_bytes = 4096 => |context, _event|
        let key = context.secret("CRM_API_KEY").unwrap();
        tracing::debug!(header = format!("Bearer {}", key.expose()), "calling with the key");
        Err(Error::new(ccfn_core::ErrorKind::Upstream, "the CRM refused the key"))
    );
}

mod logging_value {
    use ccfn_core::prelude::*;

    /// A value whose `Debug` logs a line of its own.
    pub(super) struct Chatty;

    impl std::fmt::Debug for Chatty {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            tracing::debug!("formatting a chatty value");
            f.write_str("chatty")
        }
    }

    lookup!(debug_buffer_bytes = 4096 => |_context, _event|
        tracing::debug!(value = ?Chatty, "a value that logs while it is read");
        Err(Error::new(ccfn_core::ErrorKind::Upstream, "the CRM is unavailable"))
    );
}

fn failing() -> FakeEvent {
    FakeEvent::voice().param("Fail", "yes")
}

/// The messages of the run's `log` records, in order.
fn logged(run: &Run) -> Vec<&str> {
    run.records_of("log")
        .iter()
        .map(|record| record["message"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_failing_invocation_writes_what_led_to_it() {
    let run = invoke(held::lookup, FakeContext::new(), failing()).await;
    run.assert_contract();
    let steps = run.steps();
    let at = |step: &str| steps.iter().position(|s| *s == step).unwrap();
    // The info line in place; the held lines just before the error.
    assert!(at("log") < at("debug_buffer") && at("debug_buffer") < at("error"));
    assert_eq!(
        logged(&run),
        [
            "calling the CRM",
            "looking the caller up",
            "the CRM answered"
        ]
    );
    let buffer = run.record("debug_buffer").unwrap();
    assert_eq!(buffer["reason"], "error");
    assert_eq!(buffer["lines"], 2);
    assert_eq!(buffer["dropped"], 0);
    let held = &run.records_of("log")[1];
    assert_eq!(held["level"], "DEBUG");
    assert_eq!(held["customer"], "C-1042");
    // Written with the time it was logged at, not the time of the flush.
    assert!(held["timestamp"].as_str() <= buffer["timestamp"].as_str());
    insta::assert_snapshot!("failing", run.snapshot());
}

#[tokio::test]
async fn a_passing_invocation_writes_none_of_them() {
    let run = invoke(held::lookup, FakeContext::new(), FakeEvent::voice()).await;
    run.assert_contract();
    assert_eq!(logged(&run), ["calling the CRM"]);
    assert!(run.record("debug_buffer").is_none());
    insta::assert_snapshot!("passing", run.snapshot());
}

#[tokio::test]
async fn the_setting_holds_them_unless_the_function_says_otherwise() {
    let on = || FakeContext::new().value("CCFN_DEBUG_BUFFER_BYTES", "4096");
    let run = invoke(by_setting::lookup, on(), failing()).await;
    assert_eq!(run.record("debug_buffer").unwrap()["lines"], 2);
    // Without the setting, the filter decides alone.
    let run = invoke(by_setting::lookup, FakeContext::new(), failing()).await;
    assert_eq!(logged(&run), ["calling the CRM"]);
    // `debug_buffer_bytes = 0` wins over the setting.
    let run = invoke(none::lookup, on(), failing()).await;
    assert_eq!(logged(&run), ["calling the CRM"]);
    assert!(run.record("debug_buffer").is_none());
}

#[tokio::test]
async fn a_full_buffer_drops_the_oldest_and_says_how_many() {
    let run = invoke(small::lookup, FakeContext::new(), FakeEvent::voice()).await;
    run.assert_contract();
    let buffer = run.record("debug_buffer").unwrap();
    let lines = buffer["lines"].as_u64().unwrap();
    let dropped = buffer["dropped"].as_u64().unwrap();
    assert!(lines > 0 && dropped > 0, "{buffer:?}");
    assert_eq!(lines + dropped, 10);
    // The newest are kept, in order.
    let attempts: Vec<u64> = run
        .records_of("log")
        .iter()
        .map(|record| record["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(attempts, (dropped + 1..=10).collect::<Vec<_>>());
    assert!(buffer["message"]
        .as_str()
        .unwrap()
        .contains(&format!("{dropped} older ones dropped")));
}

#[tokio::test]
async fn the_handler_can_ask_for_them() {
    let run = invoke(requested::lookup, FakeContext::new(), FakeEvent::voice()).await;
    run.assert_contract();
    let buffer = run.record("debug_buffer").unwrap();
    assert_eq!(buffer["reason"], "requested");
    assert_eq!(buffer["lines"], 1);
    assert_eq!(logged(&run), ["no caller matched"]);
    assert_eq!(run.record("end").unwrap()["outcome"], "success");
}

#[tokio::test]
async fn a_timeout_writes_them_too() {
    let run = invoke(slow::lookup, FakeContext::new(), FakeEvent::voice()).await;
    run.assert_contract();
    assert_eq!(run.record("error").unwrap()["kind"], "timeout");
    assert_eq!(logged(&run), ["waiting for the CRM"]);
}

#[tokio::test]
async fn a_held_line_is_scrubbed_as_any_other() {
    let key = "crm-key-canary-5f0c2a";
    let context = FakeContext::new().secret("CRM_API_KEY", key);
    let run = invoke(secret::lookup, context, FakeEvent::voice()).await;
    assert_eq!(run.records_of("log")[0]["header"], "Bearer [REDACTED]");
    run.assert_no_leak(&[key]);
}

#[tokio::test]
async fn a_value_that_logs_while_it_is_read_is_held_whole() {
    let run = invoke(
        logging_value::lookup,
        FakeContext::new(),
        FakeEvent::voice(),
    )
    .await;
    run.assert_contract();
    // `tracing` does not dispatch an event logged while another is being
    // dispatched on the same thread: the inner line is lost, as it is
    // without a buffer; the outer one is held and written whole.
    assert_eq!(logged(&run), ["a value that logs while it is read"]);
    assert_eq!(run.records_of("log")[0]["value"], "chatty");
}
