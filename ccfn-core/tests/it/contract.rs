//! The logging contract, run by run: every path of the design's record
//! sequence, checked by `assert_contract` and pinned by snapshots.

use std::time::Duration;

use ccfn_core::prelude::*;
use ccfn_core::{ErrorKind, Reply};
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};

/// Answers the caller with a short message.
///
/// # Trigger
/// Incoming call webhook of the support number.
/// # Dependencies
/// None.
/// # Critical logging
/// None beyond the contract.
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn hold_message(_context: Context, _event: Event, callback: Callback) -> Completion {
    let mut twiml = VoiceResponse::new();
    twiml.say("Please hold.");
    callback.success(twiml)
}

/// Fails with an error from a library, through `?`.
///
/// # Trigger
/// Test.
/// # Optional parameters
/// priority
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn parse_priority(
    _context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let priority: u32 = event.get("priority").unwrap_or("high").parse()?;
    Ok(callback.success(priority))
}

/// Panics.
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
async fn panics(_context: Context, event: Event, _callback: Callback) -> Completion {
    let queue: Vec<&str> = Vec::new();
    panic!(
        "no agent for {}: queue has {} entries",
        event.call_sid().unwrap_or("?"),
        queue.len()
    )
}

/// Takes longer than the alert threshold set by the test.
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
async fn slow(_context: Context, _event: Event, callback: Callback) -> Completion {
    tokio::time::sleep(Duration::from_millis(30)).await;
    callback.success("done")
}

/// Never finishes within its timeout.
///
/// # Trigger
/// Test.
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To], timeout_ms = 50)]
async fn stuck(_context: Context, _event: Event, callback: Callback) -> Completion {
    tokio::time::sleep(Duration::from_secs(3600)).await;
    callback.success("never")
}

/// Creates a callback task in the configured workflow.
///
/// # Trigger
/// Test.
/// # Dependencies
/// Task router.
/// # Critical logging
/// Task creation result.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = [PLATFORM_WORKSPACE_SID, "workflowSid"])]
async fn needs_workflow(context: Context, _event: Event, callback: Callback) -> Completion {
    callback.success(serde_json::json!({ "workflow": context.get("workflowSid") }))
}

/// Sends a notice; not a voice function.
///
/// # Trigger
/// Recording status callback.
/// # Dependencies
/// Email provider.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [RecordingUrl], kind = email, name = "voicemail-notice")]
async fn notice(_context: Context, _event: Event, callback: Callback) -> Completion {
    callback.error(Error::msg("email provider refused the message"))
}

/// Fails when asked to.
///
/// # Trigger
/// Test.
/// # Optional parameters
/// fail
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn flaky(_context: Context, event: Event, callback: Callback) -> Completion {
    if event.get("fail") == Some("yes") {
        callback.error(Error::msg("asked to fail"))
    } else {
        callback.success("ok")
    }
}

/// Answers more than the call-flow designer accepts.
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
async fn verbose_answer(_context: Context, _event: Event, callback: Callback) -> Completion {
    callback.success("x".repeat(200))
}

fn snapshot(name: &str, run: &Run) {
    insta::assert_snapshot!(name, run.snapshot());
}

#[tokio::test]
async fn success() {
    let run = invoke(hold_message, FakeContext::new(), FakeEvent::voice()).await;
    run.assert_contract();
    assert_eq!(
        run.steps(),
        [
            "start",
            "validation",
            "validation",
            "processing",
            "caller",
            "flow",
            "voice_response",
            "voice_response",
            "taskrouter_config",
            "metrics",
            "success",
            "end"
        ]
    );
    assert!(
        matches!(run.reply(), Some(Reply::Voice(voice)) if voice.xml().contains("<Say>Please hold.</Say>"))
    );
    snapshot("success", &run);
    insta::assert_snapshot!("success_pretty", run.pretty_snapshot());
    insta::assert_snapshot!("success_pretty_full", run.pretty_full_snapshot());
}

#[tokio::test]
async fn each_missing_parameter() {
    for missing in ["CallSid", "From", "To"] {
        let run = invoke(
            hold_message,
            FakeContext::new(),
            FakeEvent::voice().without(missing),
        )
        .await;
        run.assert_contract();
        let expected = format!("Missing required parameter: {missing}");
        assert_eq!(run.error_message(), Some(expected.as_str()));
        assert_eq!(run.error().map(Error::kind), Some(ErrorKind::Validation));
        assert_eq!(
            run.steps(),
            ["start", "validation", "validation_error", "metrics", "end"]
        );
        snapshot(&format!("missing_{missing}"), &run);
    }
}

#[tokio::test]
async fn blank_parameters_are_missing() {
    let event = FakeEvent::voice().param("From", "   ");
    let run = invoke(hold_message, FakeContext::new(), event).await;
    run.assert_contract();
    assert_eq!(
        run.error_message(),
        Some("Missing required parameter: From")
    );
}

#[tokio::test]
async fn all_three_missing_are_logged_in_declared_order() {
    let run = invoke(hold_message, FakeContext::new(), FakeEvent::empty()).await;
    run.assert_contract();
    assert_eq!(
        run.error_message(),
        Some("Missing required parameter: CallSid")
    );
    let named: Vec<_> = run
        .records_of("validation_error")
        .iter()
        .map(|r| r["parameter"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(named, ["CallSid", "From", "To"]);
    snapshot("missing_all", &run);
}

#[tokio::test]
async fn missing_environment_value() {
    let run = invoke(needs_workflow, FakeContext::new(), FakeEvent::voice()).await;
    run.assert_contract();
    assert_eq!(
        run.error_message(),
        Some("Missing required environment variable: workflowSid")
    );
    snapshot("missing_env", &run);

    assert_eq!(
        run.error().map(Error::kind),
        Some(ErrorKind::Configuration),
        "a deployment fault, answered with 500"
    );

    let context = FakeContext::new().value("workflowSid", "WW0123");
    let run = invoke(needs_workflow, context, FakeEvent::voice()).await;
    run.assert_contract();
    assert!(run.reply().is_some());
}

#[tokio::test]
async fn error_returned_through_question_mark() {
    let run = invoke(parse_priority, FakeContext::new(), FakeEvent::voice()).await;
    run.assert_contract();
    assert_eq!(run.error_message(), Some("invalid digit found in string"));
    assert_eq!(
        run.steps(),
        [
            "start",
            "validation",
            "validation",
            "processing",
            "caller",
            "flow",
            "error",
            "metrics",
            "end"
        ]
    );
    let error = run.record("error").unwrap();
    assert_eq!(error["account_sid"], "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    assert_eq!(
        error["event"]["CallSid"],
        "CA0123456789abcdef0123456789abcdef"
    );
    snapshot("error", &run);
}

#[tokio::test]
async fn panic_is_caught_and_logged() {
    let run = invoke(panics, FakeContext::new(), FakeEvent::voice()).await;
    run.assert_contract();
    assert_eq!(run.error().map(Error::kind), Some(ErrorKind::Panic));
    assert_eq!(
        run.error_message(),
        Some("function panicked: no agent for CA0123456789abcdef0123456789abcdef: queue has 0 entries")
    );
    let stack = run.record("error").unwrap()["stack"].as_str().unwrap();
    assert!(
        stack.contains("panicked at ccfn-core/tests/it/contract.rs:"),
        "{stack}"
    );
    snapshot("panic", &run);
}

#[tokio::test]
async fn timeout_still_logs_error_metrics_and_end() {
    let run = invoke(stuck, FakeContext::new(), FakeEvent::voice()).await;
    run.assert_contract();
    assert_eq!(run.error().map(Error::kind), Some(ErrorKind::Timeout));
    assert_eq!(run.error_message(), Some("Function timed out after 50 ms"));
    snapshot("timeout", &run);
}

#[tokio::test]
async fn verbose_mode_from_context_or_event() {
    let context = FakeContext::new().value("ENABLE_LOCAL_LOGGING", "true");
    let run = invoke(hold_message, context, FakeEvent::voice()).await;
    run.assert_contract();
    let verbose = run.record("verbose").expect("verbose record");
    assert_eq!(
        verbose["event_keys"],
        serde_json::json!(["CallSid", "From", "To"])
    );
    assert!(verbose["context_keys"]
        .as_array()
        .unwrap()
        .contains(&"ENABLE_LOCAL_LOGGING".into()));
    snapshot("verbose", &run);

    let event = FakeEvent::voice().param("ENABLE_LOCAL_LOGGING", "true");
    let run = invoke(hold_message, FakeContext::new(), event).await;
    assert!(run.record("verbose").is_some());
    let run = invoke(hold_message, FakeContext::new(), FakeEvent::voice()).await;
    assert!(run.record("verbose").is_none());
}

#[tokio::test]
async fn debug_mode_from_context_or_mode_parameter() {
    let context = FakeContext::new()
        .value("DEBUG_MODE", "true")
        .value("FUNCTION_VERSION", "ZN0001")
        .value("EXECUTION_ENVIRONMENT", "staging");
    let run = invoke(hold_message, context, FakeEvent::voice()).await;
    run.assert_contract();
    let debug = run.record("debug").expect("debug record");
    assert_eq!(debug["function_name"], "hold-message");
    assert_eq!(debug["function_version"], "ZN0001");
    assert_eq!(debug["execution_environment"], "staging");
    snapshot("debug", &run);

    let run = invoke(
        hold_message,
        FakeContext::new(),
        FakeEvent::voice().mode("debug"),
    )
    .await;
    run.assert_contract();
    assert_eq!(run.record("processing").unwrap()["mode"], "debug");
    assert_eq!(
        run.record("debug").unwrap()["execution_environment"],
        "local"
    );
    snapshot("debug_mode_parameter", &run);
}

#[tokio::test]
async fn flow_transition_data_when_the_flow_sends_all_three() {
    let event = FakeEvent::voice()
        .param("FlowSid", "FW0123456789abcdef0123456789abcdef")
        .param("ExecutionSid", "FN0123456789abcdef0123456789abcdef")
        .param("StepSid", "FT0123456789abcdef0123456789abcdef");
    let run = invoke(hold_message, FakeContext::new(), event).await;
    run.assert_contract();
    let flow = run.record("flow").unwrap();
    assert_eq!(flow["message"], "Flow transition data");
    assert_eq!(flow["absent"], serde_json::json!([]));
    snapshot("flow_complete", &run);
}

#[tokio::test]
async fn execution_time_alert() {
    let context = FakeContext::new().execution_alert_after(Duration::from_millis(10));
    let run = invoke(slow, context, FakeEvent::voice()).await;
    run.assert_contract();
    let alert = run.record("alert").expect("alert record");
    assert_eq!(alert["kind"], "execution_time");
    assert_eq!(alert["threshold"], 10.0);
    assert!(alert["value"].as_f64().unwrap() >= 30.0);
    snapshot("execution_alert", &run);

    let run = invoke(slow, FakeContext::new(), FakeEvent::voice()).await;
    assert!(
        run.record("alert").is_none(),
        "no alert under the 10 s default"
    );
}

#[tokio::test]
async fn memory_alert_when_over_the_share_of_the_limit() {
    let context = FakeContext::new().memory_limit(Some(1024));
    let run = invoke(hold_message, context, FakeEvent::voice()).await;
    run.assert_contract();
    let alert = run.record("alert").expect("alert record");
    assert_eq!(alert["kind"], "memory");
    assert_eq!(alert["threshold"], 819);
    snapshot("memory_alert", &run);
}

#[tokio::test]
async fn mode_and_non_voice_functions() {
    let run = invoke(
        notice,
        FakeContext::new(),
        FakeEvent::empty().param("RecordingUrl", "https://example.com/r.wav"),
    )
    .await;
    run.assert_contract();
    assert_eq!(run.record("start").unwrap()["function"], "voicemail-notice");
    assert_eq!(run.record("processing").unwrap()["mode"], "initial");
    assert_eq!(
        run.error_message(),
        Some("email provider refused the message")
    );
}

#[tokio::test]
async fn concurrent_invocations_keep_their_own_records() {
    let (a, b) = tokio::join!(
        invoke(
            slow,
            FakeContext::new(),
            FakeEvent::voice().param("CallSid", "CAone")
        ),
        invoke(
            slow,
            FakeContext::new(),
            FakeEvent::voice().param("CallSid", "CAtwo")
        ),
    );
    for (run, sid) in [(&a, "CAone"), (&b, "CAtwo")] {
        run.assert_contract();
        assert!(run.records().iter().all(|r| r["call_sid"] == sid));
    }
    assert_ne!(a.invocation_id(), b.invocation_id());
}

#[tokio::test]
async fn error_rate_alert_once_per_crossing() {
    let context = || FakeContext::new().error_rate_alert(0.05, Duration::from_secs(600));
    let alerts = |run: &Run| {
        run.records_of("alert")
            .iter()
            .filter(|r| r["kind"] == "error_rate")
            .count()
    };
    let failing = || FakeEvent::voice().param("fail", "yes");
    // 1 of 1 failed: over 5 %, one alert.
    let run = invoke(flaky, context(), failing()).await;
    run.assert_contract();
    assert_eq!(alerts(&run), 1);
    let alert = run.records_of("alert")[0];
    assert_eq!(alert["value"], 1.0);
    assert_eq!(alert["threshold"], 0.05);
    snapshot("error_rate_alert", &run);
    // Still over: no second alert.
    assert_eq!(alerts(&invoke(flaky, context(), failing()).await), 0);
    // 2 of 41 failed (4.9 %): back under the threshold.
    for _ in 0..39 {
        let run = invoke(flaky, context(), FakeEvent::voice()).await;
        assert_eq!(alerts(&run), 0);
    }
    // 3 of 42 failed (7.1 %): a new crossing, a new alert.
    assert_eq!(alerts(&invoke(flaky, context(), failing()).await), 1);
}

#[tokio::test]
async fn error_rate_waits_for_enough_invocations() {
    let mut thresholds = ccfn_core::context::Thresholds::default();
    thresholds.error_min_invocations = 3;
    let context = || FakeContext::new().thresholds(thresholds);
    let failing = || {
        FakeEvent::voice()
            .param("fail", "yes")
            .param("CallSid", "CAmin")
    };
    let alerts = |run: &Run| run.records_of("alert").len();
    assert_eq!(
        alerts(&invoke(flaky_min, context(), failing()).await),
        0,
        "1 of 1"
    );
    assert_eq!(
        alerts(&invoke(flaky_min, context(), failing()).await),
        0,
        "2 of 2"
    );
    assert_eq!(
        alerts(&invoke(flaky_min, context(), failing()).await),
        1,
        "3 of 3"
    );
}

#[tokio::test]
async fn error_rate_alerts_on_3_failures_of_10_with_the_defaults() {
    // The production defaults: more than 5 % over 10 minutes, judged from
    // 10 invocations.
    let context = || FakeContext::new().thresholds(ccfn_core::context::Thresholds::default());
    let event = |fail: bool| {
        FakeEvent::voice()
            .param("fail", if fail { "yes" } else { "no" })
            .param("CallSid", "CAten")
    };
    let mut alerts = Vec::new();
    for at in 1..=10 {
        let run = invoke(flaky_ten, context(), event(at > 7)).await;
        run.assert_contract();
        for alert in run.records_of("alert") {
            alerts.push((at, alert["kind"].clone(), alert["value"].clone()));
        }
    }
    assert_eq!(
        alerts,
        [(10, serde_json::json!("error_rate"), serde_json::json!(0.3))]
    );
}

/// Fails when asked to (its own error-rate window, default thresholds).
///
/// # Trigger
/// Test.
/// # Optional parameters
/// fail
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn flaky_ten(_context: Context, event: Event, callback: Callback) -> Completion {
    if event.get("fail") == Some("yes") {
        callback.error(Error::msg("asked to fail"))
    } else {
        callback.success("ok")
    }
}

/// Fails when asked to (its own error-rate window).
///
/// # Trigger
/// Test.
/// # Optional parameters
/// fail
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn flaky_min(_context: Context, event: Event, callback: Callback) -> Completion {
    if event.get("fail") == Some("yes") {
        callback.error(Error::msg("asked to fail"))
    } else {
        callback.success("ok")
    }
}

/// Logs with fields named like the record's own.
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
async fn shadowing_fields(_context: Context, _event: Event, callback: Callback) -> Completion {
    tracing::info!(
        function = "not-me",
        call_sid = "CAfake",
        queue = "support",
        "routing"
    );
    callback.success("ok")
}

#[tokio::test]
async fn handler_logs_cannot_shadow_record_fields() {
    let run = invoke(shadowing_fields, FakeContext::new(), FakeEvent::voice()).await;
    run.assert_contract();
    let log = run.record("log").expect("the handler's own line");
    assert_eq!(log["function"], "shadowing-fields");
    assert_eq!(log["call_sid"], "CA0123456789abcdef0123456789abcdef");
    assert_eq!(log["fields.function"], "not-me");
    assert_eq!(log["fields.call_sid"], "CAfake");
    assert_eq!(log["queue"], "support");
    assert_eq!(log["message"], "routing");
    let keys: Vec<&String> = log.keys().collect();
    let mut unique = keys.clone();
    unique.dedup();
    assert_eq!(keys.len(), unique.len(), "no duplicate keys");
}

#[tokio::test]
async fn response_size_alert() {
    let mut thresholds = ccfn_core::context::Thresholds::default();
    thresholds.response_bytes = 100;
    let run = invoke(
        verbose_answer,
        FakeContext::new().thresholds(thresholds),
        FakeEvent::voice(),
    )
    .await;
    run.assert_contract();
    let alert = run.record("alert").expect("alert record");
    assert_eq!(alert["kind"], "response_size");
    assert_eq!(alert["value"], 202);
    assert_eq!(alert["threshold"], 100);
    snapshot("response_size_alert", &run);
    let run = invoke(verbose_answer, FakeContext::new(), FakeEvent::voice()).await;
    assert!(
        run.record("alert").is_none(),
        "200 bytes is under the 64 kB default"
    );
}

/// Builds a response, then changes it, and enqueues the caller.
///
/// # Trigger
/// Test.
/// # Dependencies
/// Task router (through Enqueue).
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn enqueue_caller(_context: Context, _event: Event, callback: Callback) -> Completion {
    let mut twiml = VoiceResponse::new();
    twiml.say("Connecting you.");
    twiml.mark_built();
    twiml
        .enqueue_name("support")
        .workflow_sid("WW0123456789abcdef0123456789abcdef");
    callback.success(twiml)
}

#[tokio::test]
async fn voice_records_show_the_document_before_and_after_and_the_routing() {
    let event = FakeEvent::voice().param("FlowSid", "FW0123456789abcdef0123456789abcdef");
    let run = invoke(enqueue_caller, FakeContext::new(), event).await;
    run.assert_contract();
    let flow = run.record("flow").unwrap();
    assert_eq!(flow["flow_sid"], "FW0123456789abcdef0123456789abcdef");
    assert_eq!(flow["execution_sid"], serde_json::Value::Null);
    assert_eq!(
        flow["absent"],
        serde_json::json!(["ExecutionSid", "StepSid"])
    );
    assert_eq!(
        flow["message"],
        "Flow transition data, without ExecutionSid, StepSid"
    );

    let voice = run.records_of("voice_response");
    assert_eq!(voice[0]["phase"], "built");
    assert_eq!(
        voice[0]["twiml"],
        r#"<?xml version="1.0" encoding="UTF-8"?><Response><Say>Connecting you.</Say></Response>"#
    );
    assert_eq!(voice[1]["phase"], "returned");
    assert_eq!(voice[1]["modified"], true);
    assert_eq!(
        voice[1]["twiml"],
        r#"<?xml version="1.0" encoding="UTF-8"?><Response><Say>Connecting you.</Say><Enqueue workflowSid="WW0123456789abcdef0123456789abcdef">support</Enqueue></Response>"#
    );

    let routing = run.record("taskrouter_config").unwrap();
    assert_eq!(
        routing["workspace_sid"],
        "WSaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    );
    assert_eq!(
        routing["workflow_sid"],
        "WW0123456789abcdef0123456789abcdef"
    );
    assert_eq!(routing["queue"], "support");
    snapshot("voice_enqueue", &run);
}

#[tokio::test]
async fn non_voice_functions_have_no_voice_records() {
    let run = invoke(
        notice,
        FakeContext::new(),
        FakeEvent::empty().param("RecordingUrl", "https://example.com/r.wav"),
    )
    .await;
    for step in ["flow", "voice_response", "taskrouter_config"] {
        assert!(run.record(step).is_none(), "{step}");
    }
}

/// Fails when asked to (its own error-rate window, a short one).
///
/// # Trigger
/// Test.
/// # Optional parameters
/// fail
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn flaky_window(_context: Context, event: Event, callback: Callback) -> Completion {
    if event.get("fail") == Some("yes") {
        callback.error(Error::msg("asked to fail"))
    } else {
        callback.success("ok")
    }
}

#[tokio::test]
async fn error_rate_window_slides() {
    let context = || FakeContext::new().error_rate_alert(0.05, Duration::from_millis(120));
    let failing = || FakeEvent::voice().param("fail", "yes");
    let alerts = |run: &Run| run.records_of("alert").len();
    assert_eq!(alerts(&invoke(flaky_window, context(), failing()).await), 1);
    // The failure leaves the window; a success brings the rate to 0 %.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        alerts(&invoke(flaky_window, context(), FakeEvent::voice()).await),
        0
    );
    // 1 of 2 in the window: a new crossing, a new alert.
    assert_eq!(alerts(&invoke(flaky_window, context(), failing()).await), 1);
}
