//! Snapshots of the records of every path of every example, in every
//! format (JSON lines, and the human format brief and with every field),
//! through the testkit's
//! `invoke` with the fake task router, the fake email provider and a
//! stand-in for the recording storage. What changes from run to run is
//! replaced by placeholders: the testkit's (times, durations, ids, the
//! fakes' loopback ports), and the local store's and outbox's paths and
//! random identifiers.

use crate::common::{stable, temp_path, RecordingServer, RECORDING_BYTES, RECORDING_SID};
use ccfn_core::Context;
use ccfn_testkit::fake_email::FakeEmailProvider;
use ccfn_testkit::fake_task_router::FakeTaskRouter;
use ccfn_testkit::FakeResponse;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};
use example_contact_center::{inbound_call, voicemail_notice, wait_experience, LOCAL_DEFAULTS};
use serde_json::{json, Value};

const AUTH_TOKEN: &str = "canary-snapshot-auth-token-c41e07";
const EMAIL_KEY: &str = "canary-snapshot-email-key-9ab2f5";
const WORKFLOW: &str = "WW11111111111111111111111111111111";
const QUEUE: &str = "WQ11111111111111111111111111111111";
const OTHER_QUEUE: &str = "WQ22222222222222222222222222222222";
const CALLER_MESSAGE: &str = "Option not available at this time";

/// Snapshots the run's records in every format as `{name}` (JSON lines),
/// `{name}_pretty` (the human format, one line per record) and
/// `{name}_pretty_full` (the human format, every field), after the
/// contract and leak checks.
#[track_caller]
fn snapshot(name: &str, run: &Run, replacements: &[(&str, &str)]) {
    run.assert_contract();
    run.assert_no_leak(&[AUTH_TOKEN, EMAIL_KEY]);
    let json = stable(&run.snapshot(), replacements);
    let pretty = stable(&run.pretty_snapshot(), replacements);
    let pretty_full = stable(&run.pretty_full_snapshot(), replacements);
    insta::assert_snapshot!(name.to_owned(), json);
    insta::assert_snapshot!(format!("{name}_pretty"), pretty);
    insta::assert_snapshot!(format!("{name}_pretty_full"), pretty_full);
}

/// The context with `LOCAL_DEFAULTS` for what it does not set, as `main`
/// makes it.
fn local(context: FakeContext) -> Context {
    LOCAL_DEFAULTS
        .iter()
        .fold(context.build(), |context, (name, value)| {
            context.with_default(name, value)
        })
}

/// A deployment's context, pointed at the fakes.
fn deployed(router: &FakeTaskRouter, email: &FakeEmailProvider) -> FakeContext {
    FakeContext::new()
        .value("AUTH_TOKEN", AUTH_TOKEN)
        .value("workflowSid", WORKFLOW)
        .value("TASKROUTER_BASE_URL", router.url())
        .value("EMAILPROVIDER_API_KEY", EMAIL_KEY)
        .value("EMAILPROVIDER_BASE_URL", email.url())
        .value("VOICEMAIL_TO", "oncall@example.com")
        .value("VOICEMAIL_FROM", "voicemail@mg.example.com")
}

fn routing(queue: &str) -> Value {
    json!({ "task_routing": { "filters": [], "default_filter": { "queue": queue } } })
}

async fn router() -> FakeTaskRouter {
    FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE))
}

/// The field `field` of the only record of `step`.
fn field<'a>(run: &'a Run, step: &str, field: &str) -> &'a Value {
    assert_eq!(
        run.records_of(step).len(),
        1,
        "one `{step}`: {:?}",
        run.steps()
    );
    &run.record(step).unwrap()[field]
}

/// The reply's document or JSON, as text.
fn reply(run: &Run) -> String {
    match run.reply().unwrap_or_else(|| panic!("{:?}", run.error())) {
        ccfn_core::Reply::Voice(voice) => voice.xml().to_owned(),
        ccfn_core::Reply::Json(value) => value.to_string(),
        other => panic!("unexpected reply {other:?}"),
    }
}

async fn wait(context: impl Into<Context>, event: FakeEvent) -> Run {
    invoke(wait_experience, context, event).await
}

// ---------------------------------------------------------------------------
// Wait experience
// ---------------------------------------------------------------------------

#[tokio::test]
async fn wait_experience_menu() {
    let run = wait(local(FakeContext::new()), FakeEvent::voice()).await;
    assert!(reply(&run).contains("<Gather"));
    snapshot("wait_menu", &run, &[]);
}

#[tokio::test]
async fn wait_experience_voicemail() {
    let digits = wait(
        local(FakeContext::new()),
        FakeEvent::voice().param("Digits", "1"),
    )
    .await;
    let mode = wait(
        local(FakeContext::new()),
        FakeEvent::voice().mode("voicemail"),
    )
    .await;
    assert_eq!(reply(&digits), reply(&mode));
    assert!(reply(&mode).contains("?From=%2B15551230000\""));
    snapshot("wait_voicemail_digits", &digits, &[]);
    snapshot("wait_voicemail_mode", &mode, &[]);
}

#[tokio::test]
async fn wait_experience_voicemail_done() {
    let run = wait(
        local(FakeContext::new()),
        FakeEvent::voice().mode("voicemail-done"),
    )
    .await;
    assert!(reply(&run).ends_with("<Hangup/></Response>"));
    snapshot("wait_voicemail_done", &run, &[]);
}

#[tokio::test]
async fn wait_experience_callback_created() {
    let router = router().await;
    let email = FakeEmailProvider::start().await;
    let run = wait(
        deployed(&router, &email),
        FakeEvent::voice()
            .param("Digits", "2")
            .param("FlowSid", "FW0123456789abcdef0123456789abcdef"),
    )
    .await;
    assert_eq!(router.tasks().len(), 1);
    assert_eq!(
        field(&run, "critical", "task_sid"),
        "WT00000000000000000000000000000001"
    );
    snapshot("wait_callback_created", &run, &[]);
}

/// A callback that cannot be served: the caller hears the message, and
/// `task_error` names `cause`.
async fn unavailable(name: &str, router: &FakeTaskRouter, context: FakeContext, cause: &str) {
    let run = wait(context, FakeEvent::voice().mode("callback")).await;
    assert!(
        reply(&run).contains(&format!("<Say>{CALLER_MESSAGE}</Say>")),
        "{}",
        reply(&run)
    );
    assert_eq!(field(&run, "task_error", "cause"), cause);
    assert!(!router.requests().is_empty());
    snapshot(name, &run, &[]);
}

#[tokio::test]
async fn wait_experience_callback_workflow_of_another_environment() {
    let router = FakeTaskRouter::start().await.with_workflow(
        "WW99999999999999999999999999999999",
        "Callbacks",
        routing(QUEUE),
    );
    let email = FakeEmailProvider::start().await;
    let context = deployed(&router, &email);
    unavailable(
        "wait_callback_workflow_deleted",
        &router,
        context,
        "workflow_deleted",
    )
    .await;
}

#[tokio::test]
async fn wait_experience_callback_workflow_disabled() {
    let router = router().await.disable(WORKFLOW);
    let email = FakeEmailProvider::start().await;
    let context = deployed(&router, &email);
    unavailable(
        "wait_callback_workflow_disabled",
        &router,
        context,
        "workflow_disabled",
    )
    .await;
}

#[tokio::test]
async fn wait_experience_callback_lookup_failed() {
    let router = router().await;
    router.fail_with(FakeResponse::status(500).body(
        "application/json",
        r#"{"code": 20500, "message": "Internal Server Error", "status": 500}"#,
    ));
    let email = FakeEmailProvider::start().await;
    let context = deployed(&router, &email);
    unavailable(
        "wait_callback_lookup_failed",
        &router,
        context,
        "lookup_failed",
    )
    .await;
}

#[tokio::test]
async fn wait_experience_callback_queue_mismatch() {
    let router = router().await;
    let email = FakeEmailProvider::start().await;
    let context = deployed(&router, &email).value("CALLBACK_QUEUE_SID", OTHER_QUEUE);
    unavailable(
        "wait_callback_queue_mismatch",
        &router,
        context,
        "queue_mismatch",
    )
    .await;
}

#[tokio::test]
async fn wait_experience_callback_local_store() {
    let dir = temp_path("snapshot-store");
    let store = dir.join("tasks.jsonl").display().to_string();
    let context = local(FakeContext::new().value("CCFN_TASK_STORE", &store));
    let run = wait(context, FakeEvent::voice().mode("callback")).await;
    let sid = field(&run, "critical", "task_sid")
        .as_str()
        .unwrap()
        .to_owned();
    let stored = std::fs::read_to_string(&store).unwrap();
    assert_eq!(stored.lines().count(), 1);
    assert!(stored.contains(&sid));
    snapshot(
        "wait_callback_local_store",
        &run,
        &[(&sid, "[task_sid]"), (&store, "[store]")],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// Voicemail notice
// ---------------------------------------------------------------------------

fn notice_event(url: &str, duration: &str) -> FakeEvent {
    FakeEvent::voice()
        .without("To")
        .param("RecordingSid", RECORDING_SID)
        .param("RecordingUrl", url)
        .param("RecordingDuration", duration)
        .param("RecordingStatus", "completed")
}

#[tokio::test]
async fn voicemail_notice_attached() {
    let recordings = RecordingServer::start().await;
    let router = router().await;
    let email = FakeEmailProvider::start().await;
    email.expect(1);
    let run = invoke(
        voicemail_notice,
        deployed(&router, &email),
        notice_event(&recordings.recording_url(), "12"),
    )
    .await;
    assert_eq!(
        reply(&run),
        r#"{"email_id":"<fake.1@mg.example.com>","attached":true}"#
    );
    let sent = &email.emails()[0];
    assert_eq!(sent.attachments[0].1, "audio/mpeg");
    assert_eq!(sent.attachments[0].2, RECORDING_BYTES);
    snapshot("notice_attached", &run, &[]);
}

#[tokio::test]
async fn voicemail_notice_long_recording_linked() {
    let recordings = RecordingServer::start().await;
    let router = router().await;
    let email = FakeEmailProvider::start().await;
    email.expect(1);
    let run = invoke(
        voicemail_notice,
        deployed(&router, &email),
        // A recording over the attachment cap, whatever the duration says:
        // its download is abandoned at the cap.
        notice_event(&recordings.huge_url(true), "3"),
    )
    .await;
    assert_eq!(
        reply(&run),
        r#"{"email_id":"<fake.1@mg.example.com>","attached":false}"#
    );
    assert_eq!(recordings.requests().len(), 1);
    assert!(
        recordings.huge_bytes_sent() < 64 * 1024 * 1024,
        "not read whole"
    );
    assert!(email.emails()[0].attachments.is_empty());
    snapshot("notice_linked_long", &run, &[]);
}

#[tokio::test]
async fn voicemail_notice_download_failed() {
    let recordings = RecordingServer::start().await;
    let router = router().await;
    let email = FakeEmailProvider::start().await;
    email.expect(1);
    let run = invoke(
        voicemail_notice,
        deployed(&router, &email),
        notice_event(&recordings.missing_url(), "12"),
    )
    .await;
    assert_eq!(
        reply(&run),
        r#"{"email_id":"<fake.1@mg.example.com>","attached":false}"#
    );
    assert_eq!(field(&run, "log", "level"), "WARN");
    snapshot("notice_download_failed", &run, &[]);
}

#[tokio::test]
async fn voicemail_notice_outbox() {
    let recordings = RecordingServer::start().await;
    let dir = temp_path("snapshot-outbox").display().to_string();
    let run = invoke(
        voicemail_notice,
        local(FakeContext::new().value("CCFN_OUTBOX_DIR", &dir)),
        notice_event(&recordings.recording_url(), "12"),
    )
    .await;
    let id = field(&run, "email_result", "id")
        .as_str()
        .unwrap()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_owned();
    assert!(std::path::Path::new(&dir)
        .join(&id)
        .join("message.json")
        .is_file());
    snapshot(
        "notice_outbox",
        &run,
        &[(&id, "outbox.[id]@ccfn.local"), (&dir, "[outbox]")],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn voicemail_notice_without_recording_url() {
    let router = router().await;
    let email = FakeEmailProvider::start().await;
    email.expect(0);
    let run = invoke(
        voicemail_notice,
        deployed(&router, &email),
        notice_event("unused", "12").without("RecordingUrl"),
    )
    .await;
    assert_eq!(
        run.error_message(),
        Some("Missing required parameter: RecordingUrl")
    );
    snapshot("notice_missing_recording_url", &run, &[]);
}

// ---------------------------------------------------------------------------
// Inbound call
// ---------------------------------------------------------------------------

#[tokio::test]
async fn inbound_call_enqueued() {
    let router = router().await;
    let email = FakeEmailProvider::start().await;
    let run = invoke(
        inbound_call,
        deployed(&router, &email),
        FakeEvent::voice().param("Language", "es-MX"),
    )
    .await;
    assert!(reply(&run).contains(&format!("<Enqueue workflowSid=\"{WORKFLOW}\"")));
    assert_eq!(field(&run, "taskrouter_config", "workflow_sid"), WORKFLOW);
    snapshot("inbound_call", &run, &[]);
}

#[tokio::test]
async fn inbound_call_default_language() {
    let run = invoke(
        inbound_call,
        local(FakeContext::new().value("DEFAULT_LANGUAGE", "fr-CA")),
        FakeEvent::voice(),
    )
    .await;
    assert!(reply(&run).contains(r#""language":"fr-CA""#));
    snapshot("inbound_call_default_language", &run, &[]);
}

/// `docs/logging-contract.md` shows the brief human format with this
/// snapshot, as it is.
#[test]
fn the_logging_contract_shows_the_callback_snapshot() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let snapshot = std::fs::read_to_string(format!(
        "{root}/examples/contact-center/tests/it/snapshots/it__snapshots__wait_callback_created_pretty.snap"
    ))
    .unwrap();
    let body = snapshot.splitn(3, "---\n").nth(2).unwrap();
    let page = std::fs::read_to_string(format!("{root}/docs/logging-contract.md")).unwrap();
    assert!(
        page.contains(&format!("```text\n{body}```")),
        "docs/logging-contract.md does not show this snapshot as it is:\n{body}"
    );
}
