//! The example catalogue over real HTTP: the runtime serves the three
//! example functions on a random loopback port, with the fake task router,
//! the fake email provider and a stand-in for the recording storage
//! configured through the context's values, as a deployment would be.
//! Every path of every example is checked for what the caller gets back,
//! what the fakes saw, and the records the invocation wrote (present, in
//! order), read from the process's JSON log; no secret reaches any line.

use std::sync::OnceLock;
use std::time::Duration;

use crate::common::{
    basic_auth, recording_bytes, temp_path, RecordingServer, ACCOUNT, RECORDING_BYTES,
    RECORDING_SID,
};
use ccfn_core::context::{ContextBuilder, Thresholds};
use ccfn_core::record::{init_logging_with, parse_filter, LogFormat};
use ccfn_core::runtime::{Runtime, RuntimeConfig};
use ccfn_core::{signature, Context};
use ccfn_testkit::fake_email::FakeEmailProvider;
use ccfn_testkit::fake_task_router::FakeTaskRouter;
use ccfn_testkit::FakeResponse;
use ccfn_testkit::LogBuffer;
use example_contact_center::{LOCAL_DEFAULTS, NOTICE_URL, WAIT_URL};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

const AUTH_TOKEN: &str = "canary-example-auth-token-5f2a9c";
const EMAIL_KEY: &str = "canary-example-email-key-81d3e0";
const WORKSPACE: &str = "WSaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const WORKFLOW: &str = "WW11111111111111111111111111111111";
const QUEUE: &str = "WQ11111111111111111111111111111111";
const OTHER_QUEUE: &str = "WQ22222222222222222222222222222222";
const LOCAL_WORKFLOW: &str = "WWlocal0000000000000000000000000000";
const INBOUND_URL: &str = "/features/inbound-call/calls/enqueue";
const CALLER_MESSAGE: &str = "Option not available at this time";
const FORM: &str = "application/x-www-form-urlencoded";
const CALL_SID: &str = "CA123";
const VOICE: [(&str, &str); 3] = [
    ("CallSid", CALL_SID),
    ("From", "+15551230000"),
    ("To", "+15559870000"),
];
const XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>"#;

// ---------------------------------------------------------------------------
// The process's log, as JSON lines
// ---------------------------------------------------------------------------

fn logs() -> &'static LogBuffer {
    static LINES: OnceLock<LogBuffer> = OnceLock::new();
    LINES.get_or_init(|| {
        let lines = LogBuffer::default();
        // Every ccfn record, and the handlers' own lines from `info` up.
        let filter = parse_filter("info,ccfn=trace").unwrap();
        init_logging_with(LogFormat::Json, filter, lines.clone()).unwrap();
        lines
    })
}

/// Every line logged so far.
fn all_lines() -> Vec<String> {
    logs().contents().lines().map(str::to_owned).collect()
}

/// The records of one invocation, in order.
fn records_of(id: &str) -> Vec<Value> {
    all_lines()
        .iter()
        .map(|line| serde_json::from_str::<Value>(line).expect("every line is JSON"))
        .filter(|record| record["invocation_id"] == id)
        .collect()
}

fn steps(records: &[Value]) -> Vec<&str> {
    records
        .iter()
        .map(|r| r["step"].as_str().unwrap())
        .collect()
}

/// The only record of `step`.
fn only<'a>(records: &'a [Value], step: &str) -> &'a Value {
    let found: Vec<&Value> = records.iter().filter(|r| r["step"] == step).collect();
    assert_eq!(
        found.len(),
        1,
        "expected one `{step}` record, got {}: {records:#?}",
        found.len()
    );
    found[0]
}

/// Checks that `expected` appear in this order among the steps (other
/// steps may come between them).
#[track_caller]
fn assert_in_order(records: &[Value], expected: &[&str]) {
    let steps = steps(records);
    let mut at = 0;
    for step in expected {
        match steps[at..].iter().position(|s| s == step) {
            Some(found) => at += found + 1,
            None => panic!("`{step}` missing or out of order in {expected:?}: got {steps:?}"),
        }
    }
}

/// The steps every successful voice invocation writes around its own.
#[track_caller]
fn assert_voice_success(records: &[Value], own: &[&str]) {
    let steps = steps(records);
    let mut expected = vec![
        "start",
        "validation",
        "validation",
        "processing",
        "caller",
        "flow",
    ];
    expected.extend_from_slice(own);
    expected.extend_from_slice(&[
        "voice_response",
        "voice_response",
        "taskrouter_config",
        "metrics",
        "success",
        "end",
    ]);
    assert_eq!(steps, expected, "{records:#?}");
}

// ---------------------------------------------------------------------------
// The runtime on loopback
// ---------------------------------------------------------------------------

/// A context builder with the error-rate alert off: every test of the
/// process shares its window, and a test's invocations are not traffic.
fn builder() -> ContextBuilder {
    let mut thresholds = Thresholds::default();
    thresholds.error_rate = 1.0;
    Context::builder().thresholds(thresholds)
}

/// The context `main` makes: `LOCAL_DEFAULTS` under the values set.
fn with_local_defaults(context: Context) -> Context {
    LOCAL_DEFAULTS
        .iter()
        .fold(context, |context, (name, value)| {
            context.with_default(name, value)
        })
}

/// A deployment's context: the platform's credentials and the email
/// provider's key, pointed at the fakes.
fn deployed(router: &FakeTaskRouter, email: &FakeEmailProvider) -> ContextBuilder {
    builder()
        .value("ACCOUNT_SID", ACCOUNT)
        .value("AUTH_TOKEN", AUTH_TOKEN)
        .value("PLATFORM_WORKSPACE_SID", WORKSPACE)
        .value("workflowSid", WORKFLOW)
        .value("TASKROUTER_BASE_URL", router.url())
        .value("EMAILPROVIDER_API_KEY", EMAIL_KEY)
        .value("EMAILPROVIDER_DOMAIN", "mg.example.com")
        .value("EMAILPROVIDER_BASE_URL", email.url())
        .value("VOICEMAIL_TO", "oncall@example.com, team@example.com")
        .value("VOICEMAIL_FROM", "voicemail@mg.example.com")
}

/// A workflow that routes every task to `queue`.
fn routing(queue: &str) -> Value {
    json!({
        "task_routing": {
            "filters": [{ "filter_friendly_name": "callbacks", "expression": "type == \"callback\"", "targets": [{ "queue": queue }] }],
            "default_filter": { "queue": queue }
        }
    })
}

async fn router_with_workflow() -> FakeTaskRouter {
    FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE))
}

/// A plain HTTP client (ccfn builds reqwest without a default TLS provider).
fn client() -> reqwest::Client {
    ccfn_core::http::install_crypto_provider();
    reqwest::Client::new()
}

struct Server {
    base: String,
    token: Option<String>,
    stop: Option<oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<Result<(), ccfn_core::Error>>,
}

/// What the runtime answered.
struct Answer {
    status: u16,
    content_type: String,
    id: String,
    body: String,
}

impl Answer {
    fn records(&self) -> Vec<Value> {
        records_of(&self.id)
    }
}

impl Server {
    /// The example runtime, as `main` builds it, serving `context`.
    async fn start(context: Context) -> Server {
        logs();
        let token = context.secret("AUTH_TOKEN").map(|s| s.expose().to_owned());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let mut config = RuntimeConfig::default();
        config.shutdown_grace = Duration::from_secs(5);
        let runtime = example_contact_center::runtime(Runtime::new(context, config));
        runtime.check().expect("the runtime starts");
        let (stop, stopped) = oneshot::channel::<()>();
        let done = tokio::spawn(runtime.serve_with(listener, async {
            let _ = stopped.await;
        }));
        Server {
            base,
            token,
            stop: Some(stop),
            done,
        }
    }

    /// POSTs `params` as a form to `path` (with its query), signed as the
    /// platform signs when the context has an auth token.
    async fn post(&self, path: &str, params: &[(&str, &str)]) -> Answer {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(params)
            .finish();
        self.send(path, params, body).await
    }

    /// POSTs `body` exactly as given.
    async fn post_raw(&self, path: &str, body: &str) -> Answer {
        let params: Vec<(String, String)> = form_urlencoded::parse(body.as_bytes())
            .into_owned()
            .collect();
        let params: Vec<(&str, &str)> = params
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        self.send(path, &params, body.to_owned()).await
    }

    async fn send(&self, path: &str, params: &[(&str, &str)], body: String) -> Answer {
        let url = format!("{}{path}", self.base);
        let mut request = client().post(&url).header("content-type", FORM).body(body);
        if let Some(token) = &self.token {
            request = request.header(
                signature::SIGNATURE_HEADER,
                signature::compute_signature(token, &url, params),
            );
        }
        let response = request.send().await.unwrap();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_owned())
                .unwrap_or_default()
        };
        let (content_type, id) = (header("content-type"), header("x-ccfn-invocation-id"));
        assert!(!id.is_empty(), "every answer carries its invocation id");
        Answer {
            status: response.status().as_u16(),
            content_type,
            id,
            body: response.text().await.unwrap(),
        }
    }

    async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.done.await.unwrap().unwrap();
    }
}

/// The caller's answer when the option cannot be served.
fn unavailable_twiml() -> String {
    format!(
        r#"{XML}<Response><Say>{CALLER_MESSAGE}</Say><Redirect method="POST">{WAIT_URL}</Redirect></Response>"#
    )
}

fn voicemail_twiml() -> String {
    format!(
        r#"{XML}<Response><Say>Please leave a message after the beep. Press the pound key when you are done.</Say><Record action="{WAIT_URL}?mode=voicemail-done" method="POST" maxLength="120" playBeep="true" finishOnKey="{hash}" recordingStatusCallback="{NOTICE_URL}?From=%2B15551230000"/></Response>"#,
        hash = "#"
    )
}

// ---------------------------------------------------------------------------
// Wait experience
// ---------------------------------------------------------------------------

#[tokio::test]
async fn wait_experience_without_mode_plays_the_menu() {
    let server = Server::start(with_local_defaults(builder().build())).await;
    let answer = server.post(WAIT_URL, &VOICE).await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type, "text/xml");
    assert_eq!(
        answer.body,
        format!(
            r#"{XML}<Response><Gather input="dtmf" numDigits="1" timeout="5" action="{WAIT_URL}" method="POST"><Say>All of our agents are busy. Press 1 to leave a voicemail, or 2 to request a callback.</Say></Gather><Say>Please hold. An agent will be with you shortly.</Say><Redirect method="POST">{WAIT_URL}</Redirect></Response>"#
        )
    );
    let records = answer.records();
    assert_voice_success(&records, &[]);
    assert_eq!(
        only(&records, "taskrouter_config")["workflow_sid"],
        LOCAL_WORKFLOW
    );
    let returned = &records[records.len() - 5];
    assert_eq!(returned["phase"], "returned");
    assert_eq!(returned["twiml"], answer.body.as_str());
    assert_eq!(
        returned["modified"], true,
        "the loop-back redirect is the change"
    );
    let built = &records[records.len() - 6];
    assert_eq!(built["phase"], "built");
    assert!(!built["twiml"].as_str().unwrap().contains("<Redirect"));
    server.stop().await;
}

#[tokio::test]
async fn wait_experience_voicemail_records_with_the_notice_callback() {
    let server = Server::start(with_local_defaults(builder().build())).await;
    // The menu's Gather posts Digits=1; a Studio widget passes mode=voicemail.
    let digits = server
        .post(WAIT_URL, &[VOICE[0], VOICE[1], VOICE[2], ("Digits", "1")])
        .await;
    let mode = server
        .post(&format!("{WAIT_URL}?mode=voicemail"), &VOICE)
        .await;
    for answer in [&digits, &mode] {
        assert_eq!(answer.status, 200);
        assert_eq!(answer.content_type, "text/xml");
        assert_eq!(answer.body, voicemail_twiml());
        assert_voice_success(&answer.records(), &[]);
    }
    // The caller's number is percent-encoded into the callback: a `+` left
    // as is would arrive as a space.
    assert!(mode.body.contains("recordingStatusCallback=\"/features/callback-and-voicemail-with-email/voicemail/recording-complete?From=%2B15551230000\""));
    server.stop().await;
}

#[tokio::test]
async fn wait_experience_voicemail_done_thanks_and_hangs_up() {
    let server = Server::start(with_local_defaults(builder().build())).await;
    let answer = server
        .post(
            &format!("{WAIT_URL}?mode=voicemail-done"),
            &[VOICE[0], VOICE[1], VOICE[2], ("Digits", "#")],
        )
        .await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.body,
        format!(
            "{XML}<Response><Say>Thank you. Your message has been recorded. Goodbye.</Say><Hangup/></Response>"
        )
    );
    assert_voice_success(&answer.records(), &[]);
    server.stop().await;
}

#[tokio::test]
async fn callback_creates_the_task_in_the_workflow() {
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    email.expect(0);
    let server = Server::start(deployed(&router, &email).build()).await;
    let answer = server
        .post(
            WAIT_URL,
            &[
                VOICE[0],
                VOICE[1],
                VOICE[2],
                ("mode", "callback"),
                ("FlowSid", "FW123"),
            ],
        )
        .await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.body,
        format!("{XML}<Response><Say>Thank you. An agent will call you back at this number as soon as possible. Goodbye.</Say><Hangup/></Response>")
    );

    // The workflow was looked up, then the task created in it.
    let requests = router.requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    assert_eq!(requests[0].method(), "GET");
    assert_eq!(
        requests[0].path(),
        format!("/v1/Workspaces/{WORKSPACE}/Workflows/{WORKFLOW}")
    );
    let create = &requests[1];
    assert_eq!(create.method(), "POST");
    assert_eq!(create.path(), format!("/v1/Workspaces/{WORKSPACE}/Tasks"));
    assert_eq!(create.username().as_deref(), Some(ACCOUNT));
    assert!(create.password().as_deref() == Some(AUTH_TOKEN));
    assert_eq!(create.form("WorkflowSid").as_deref(), Some(WORKFLOW));
    let attributes: Value =
        serde_json::from_str(create.form("Attributes").as_deref().unwrap()).unwrap();
    assert_eq!(
        attributes,
        json!({
            "type": "callback",
            "call_sid": CALL_SID,
            "from": "+15551230000",
            "to": "+15559870000",
            "flow_sid": "FW123",
        })
    );
    assert_eq!(create.form("Priority").as_deref(), Some("10"));
    assert_eq!(create.form("Timeout").as_deref(), Some("86400"));
    assert_eq!(create.form("TaskChannel").as_deref(), Some("voice"));
    assert_eq!(router.tasks().len(), 1);

    let records = answer.records();
    assert_voice_success(
        &records,
        &[
            "api_request",
            "auth",
            "api_response",
            "workflow",
            "task_attributes",
            "api_request",
            "auth",
            "api_response",
            "critical",
        ],
    );
    let critical = only(&records, "critical");
    assert_eq!(critical["task_sid"], "WT00000000000000000000000000000001");
    assert_eq!(critical["queue_sid"], QUEUE);
    assert_eq!(critical["workflow_sid"], WORKFLOW);
    assert_eq!(critical["attributes"], attributes);
    assert_eq!(only(&records, "workflow")["workflow_sid"], WORKFLOW);
    assert_eq!(only(&records, "task_attributes")["attributes"], attributes);
    assert!(records.iter().all(|r| r["step"] != "task_error"));
    server.stop().await;
}

/// Runs `mode=callback` against `router` and checks that the caller hears
/// exactly the message and that the `task_error` record names `cause`.
async fn callback_fails(router: &FakeTaskRouter, context: Context, cause: &str) -> Vec<Value> {
    let server = Server::start(context).await;
    let answer = server
        .post(&format!("{WAIT_URL}?mode=callback"), &VOICE)
        .await;
    assert_eq!(
        answer.status, 200,
        "the caller is answered: {}",
        answer.body
    );
    assert_eq!(answer.content_type, "text/xml");
    assert_eq!(answer.body, unavailable_twiml());
    let records = answer.records();
    let error = only(&records, "task_error");
    assert_eq!(error["level"], "ERROR");
    assert_eq!(error["cause"], cause, "{error:#}");
    assert_eq!(error["caller_message"], CALLER_MESSAGE);
    assert!(!router.requests().is_empty(), "the fake was called");
    assert_in_order(
        &records,
        &["task_error", "voice_response", "success", "end"],
    );
    server.stop().await;
    records
}

#[tokio::test]
async fn callback_with_a_workflow_of_another_environment_is_not_available() {
    // The workflow SID of another environment: this workspace answers 404.
    let router = FakeTaskRouter::start().await.with_workflow(
        "WW99999999999999999999999999999999",
        "Callbacks",
        routing(QUEUE),
    );
    let email = FakeEmailProvider::start().await;
    let records = callback_fails(
        &router,
        deployed(&router, &email).build(),
        "workflow_deleted",
    )
    .await;
    let error = only(&records, "task_error");
    assert_eq!(error["workflow_sid"], WORKFLOW);
    assert_eq!(
        error["message"],
        format!("Task routing failed: workflow {WORKFLOW} does not exist (404): it was deleted, or its SID belongs to another workspace or environment")
    );
    // The 404, then the account's workspaces, which this fake lists none of.
    let first = records
        .iter()
        .find(|r| r["step"] == "api_response")
        .unwrap();
    assert_eq!(first["status"], 404);
    assert!(router.tasks().is_empty());
    assert!(records.iter().all(|r| r["step"] != "critical"));
}

#[tokio::test]
async fn callback_with_a_hanging_task_router_is_not_available() {
    // The task router answers after 3 s; its client gives up after its own
    // timeout, well before the function's, so the caller hears the
    // fallback rather than the call failing with a 504.
    let router = router_with_workflow().await;
    router.delay(Duration::from_secs(3));
    let email = FakeEmailProvider::start().await;
    let started = std::time::Instant::now();
    let records = callback_fails(
        &router,
        deployed(&router, &email)
            .value("TASKROUTER_TIMEOUT_MS", "300")
            .build(),
        "lookup_failed",
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(3));
    let error = only(&records, "api_error");
    let message = error["error"].as_str().unwrap();
    assert!(
        message.ends_with("failed: timed out after 300 ms"),
        "{message}"
    );
    assert!(only(&records, "task_error")["message"]
        .as_str()
        .unwrap()
        .contains("timed out after 300 ms"));
}

#[tokio::test]
async fn callback_with_a_disabled_workflow_is_not_available() {
    let router = router_with_workflow().await.disable(WORKFLOW);
    let email = FakeEmailProvider::start().await;
    let records = callback_fails(
        &router,
        deployed(&router, &email).build(),
        "workflow_disabled",
    )
    .await;
    let error = only(&records, "task_error");
    assert_eq!(error["workflow_sid"], WORKFLOW);
    assert_eq!(
        error["message"],
        format!("Task routing failed: workflow {WORKFLOW} is disabled: its routing configuration has no filters and no default filter, so it cannot route tasks")
    );
    assert_eq!(router.requests().len(), 1, "looked up, not created");
    assert!(router.tasks().is_empty());
}

#[tokio::test]
async fn callback_when_the_lookup_fails_is_not_available() {
    let router = router_with_workflow().await;
    router.fail_with(FakeResponse::status(500).body(
        "application/json",
        r#"{"code": 20500, "message": "Internal Server Error", "status": 500}"#,
    ));
    let email = FakeEmailProvider::start().await;
    let records = callback_fails(&router, deployed(&router, &email).build(), "lookup_failed").await;
    let error = only(&records, "task_error");
    assert_eq!(error["workflow_sid"], Value::Null);
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("Task routing failed: task router lookup failed: GET http://127.0.0.1:")
            && message.ends_with(&format!(
                "/v1/Workspaces/{WORKSPACE}/Workflows/{WORKFLOW} answered 500: Internal Server Error (error 20500)"
            )),
        "{message}"
    );
    assert_eq!(only(&records, "api_response")["level"], "WARN");
    assert_eq!(router.requests().len(), 1);
}

#[tokio::test]
async fn callback_routed_to_another_queue_is_not_available() {
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    let context = deployed(&router, &email)
        .value("CALLBACK_QUEUE_SID", OTHER_QUEUE)
        .build();
    let records = callback_fails(&router, context, "queue_mismatch").await;
    let error = only(&records, "task_error");
    assert_eq!(
        error["message"],
        format!("Task routing failed: task WT00000000000000000000000000000001 was routed by workflow {WORKFLOW} to queue {QUEUE}, expected queue {OTHER_QUEUE}: check the workflow's filters")
    );
    // The task exists all the same, and its creation is on record.
    assert_eq!(router.tasks().len(), 1);
    assert_in_order(&records, &["critical", "task_error"]);
    assert_eq!(only(&records, "critical")["queue_sid"], QUEUE);
}

#[tokio::test]
async fn callback_with_the_right_queue_is_created() {
    // The counterpart of the mismatch: CALLBACK_QUEUE_SID set to the queue
    // the workflow routes to.
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    let context = deployed(&router, &email)
        .value("CALLBACK_QUEUE_SID", QUEUE)
        .build();
    let server = Server::start(context).await;
    let answer = server
        .post(WAIT_URL, &[VOICE[0], VOICE[1], VOICE[2], ("Digits", "2")])
        .await;
    assert!(
        answer.body.contains("An agent will call you back"),
        "{}",
        answer.body
    );
    assert!(answer.records().iter().all(|r| r["step"] != "task_error"));
    assert_eq!(router.tasks().len(), 1);
    server.stop().await;
}

#[tokio::test]
async fn issue_callback_post_without_credentials_uses_the_local_store() {
    let dir = temp_path("store");
    let store = dir.join("tasks.jsonl");
    let context = with_local_defaults(
        builder()
            .value("CCFN_TASK_STORE", store.display().to_string())
            .build(),
    );
    let server = Server::start(context).await;
    let answer = server
        .post_raw(
            WAIT_URL,
            "CallSid=CA123&From=%2B15551230000&To=%2B15559870000&mode=callback",
        )
        .await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.body,
        format!("{XML}<Response><Say>Thank you. An agent will call you back at this number as soon as possible. Goodbye.</Say><Hangup/></Response>")
    );
    let lines: Vec<Value> = std::fs::read_to_string(&store)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    let task = &lines[0];
    assert_eq!(task["workflow_sid"], LOCAL_WORKFLOW);
    assert_eq!(
        task["attributes"],
        json!({"type": "callback", "call_sid": "CA123", "from": "+15551230000", "to": "+15559870000", "flow_sid": null})
    );
    assert_eq!(task["priority"], 10);
    assert_eq!(task["timeout"], 86400);
    assert_eq!(task["task_channel"], "voice");
    assert_eq!(task["status"], "pending");

    let records = answer.records();
    assert_voice_success(
        &records,
        &["task_store", "workflow", "task_attributes", "critical"],
    );
    let announced = only(&records, "task_store");
    assert_eq!(announced["level"], "WARN");
    assert_eq!(announced["path"], store.display().to_string());
    assert_eq!(only(&records, "critical")["task_sid"], task["sid"]);
    server.stop().await;
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn issue_voicemail_post_returns_the_voicemail_document() {
    let server = Server::start(with_local_defaults(builder().build())).await;
    let answer = server
        .post_raw(
            WAIT_URL,
            "CallSid=CA123&From=%2B15551230000&To=%2B15559870000&mode=voicemail",
        )
        .await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type, "text/xml");
    assert_eq!(answer.body, voicemail_twiml());
    server.stop().await;
}

// ---------------------------------------------------------------------------
// Voicemail notice
// ---------------------------------------------------------------------------

/// The recording server's base URL, standing in for the platform's host.
fn platform_base(recording_url: &str) -> String {
    let path = recording_url.find("/2010-04-01").expect("a recording URL");
    format!("{}/", &recording_url[..path])
}

/// The recording status callback's path, `From` in the query as the wait
/// experience puts it.
fn notice_path() -> String {
    format!("{NOTICE_URL}?From=%2B15551230000")
}

fn notice_params<'a>(url: &'a str, duration: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("CallSid", CALL_SID),
        ("RecordingSid", RECORDING_SID),
        ("RecordingUrl", url),
        ("RecordingDuration", duration),
        ("RecordingStatus", "completed"),
    ]
}

#[tokio::test]
async fn small_recording_is_attached_to_the_email() {
    let recordings = RecordingServer::start().await;
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    email.expect(1);
    let url = recordings.recording_url();
    let server = Server::start(
        deployed(&router, &email)
            .value("RECORDINGS_BASE_URL", platform_base(&url))
            .build(),
    )
    .await;
    let answer = server
        .post(&notice_path(), &notice_params(&url, "12"))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.content_type, "application/json");
    assert_eq!(
        serde_json::from_str::<Value>(&answer.body).unwrap(),
        json!({"email_id": "<fake.1@mg.example.com>", "attached": true})
    );

    // The recording was fetched once, as MP3, with the account's credentials.
    let fetched = recordings.requests();
    assert_eq!(fetched.len(), 1);
    assert_eq!(
        fetched[0].0,
        format!("/2010-04-01/Accounts/{ACCOUNT}/Recordings/{RECORDING_SID}.mp3")
    );
    assert!(fetched[0].1.as_deref() == Some(basic_auth(ACCOUNT, AUTH_TOKEN).as_str()));

    let sent = &email.emails()[0];
    assert_eq!(sent.domain, "mg.example.com");
    assert_eq!(sent.authorization_user.as_deref(), Some("api"));
    assert!(sent.password == EMAIL_KEY);
    assert_eq!(sent.from, "voicemail@mg.example.com");
    assert_eq!(sent.to, ["oncall@example.com", "team@example.com"]);
    assert_eq!(sent.subject, "New voicemail from +15551230000");
    assert_eq!(
        sent.text.as_deref(),
        Some("New voicemail from +15551230000 (12 s), call CA123.\nThe recording is attached.\n")
    );
    assert_eq!(
        sent.attachments,
        [(
            format!("{RECORDING_SID}.mp3"),
            "audio/mpeg".to_owned(),
            RECORDING_BYTES
        )]
    );

    let records = answer.records();
    assert_eq!(
        steps(&records),
        [
            "start",
            "validation",
            "validation",
            "processing",
            "caller",
            "api_request",
            "auth",
            "api_response",
            "email_request",
            "attachment",
            "api_request",
            "auth",
            "api_response",
            "email_result",
            "metrics",
            "success",
            "end"
        ],
        "{records:#?}"
    );
    let attachment = only(&records, "attachment");
    assert_eq!(attachment["filename"], format!("{RECORDING_SID}.mp3"));
    assert_eq!(attachment["size"], RECORDING_BYTES);
    assert_eq!(attachment["content_type"], "audio/mpeg");
    let result = only(&records, "email_result");
    assert_eq!(result["id"], "<fake.1@mg.example.com>");
    assert_eq!(result["recipient_count"], 2);
    server.stop().await;
    email.verify();
}

/// A recording larger than the attachment limit is linked, whether its
/// host declares its length or streams it without one: the download is
/// abandoned at the cap, never read whole.
async fn huge_recording_is_abandoned_at_the_cap(declared: bool) {
    let recordings = RecordingServer::start().await;
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    email.expect(1);
    let server = Server::start(deployed(&router, &email).build()).await;
    let url = recordings.huge_url(declared);
    // The duration the request claims says nothing of the size: a short
    // one does not make a huge recording small.
    let answer = server.post(&notice_path(), &notice_params(&url, "3")).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        serde_json::from_str::<Value>(&answer.body).unwrap(),
        json!({"email_id": "<fake.1@mg.example.com>", "attached": false})
    );
    assert_eq!(recordings.requests().len(), 1, "one download, abandoned");
    // Of 512 MiB, no more than the cap and what the sockets buffer left the
    // server: the rest was never read, nor held in memory.
    let sent = recordings.huge_bytes_sent();
    assert!(
        sent < example_contact_center::ATTACH_MAX_BYTES + 16 * 1024 * 1024,
        "{sent} bytes sent: the download was not abandoned at the cap"
    );
    let sent = &email.emails()[0];
    assert!(sent.attachments.is_empty());
    assert_eq!(
        sent.text.as_deref().unwrap(),
        format!("New voicemail from +15551230000 (3 s), call CA123.\nListen to the recording: {url}.mp3\n")
    );
    let records = answer.records();
    assert!(records.iter().all(|r| r["step"] != "attachment"));
    assert_in_order(
        &records,
        &[
            "caller",
            "api_request",
            "api_error",
            "log",
            "email_request",
            "email_result",
            "success",
            "end",
        ],
    );
    let error = only(&records, "api_error");
    assert_eq!(error["level"], "ERROR");
    assert_eq!(
        error["max_response_bytes"],
        example_contact_center::ATTACH_MAX_BYTES
    );
    assert_eq!(error["status"], 200);
    let what = if declared {
        format!("Content-Length {}", crate::common::HUGE_RECORDING_BYTES)
    } else {
        format!(
            "over {} bytes received",
            example_contact_center::ATTACH_MAX_BYTES
        )
    };
    assert_eq!(
        error["error"],
        format!(
            "GET {url}.mp3 failed: the response (200) is larger than the {}-byte cap ({what}); abandoned",
            example_contact_center::ATTACH_MAX_BYTES
        )
    );
    server.stop().await;
}

#[tokio::test]
async fn huge_recording_with_its_length_declared_is_not_read() {
    huge_recording_is_abandoned_at_the_cap(true).await;
}

#[tokio::test]
async fn huge_recording_streamed_without_a_length_is_abandoned_at_the_cap() {
    huge_recording_is_abandoned_at_the_cap(false).await;
}

#[tokio::test]
async fn a_claimed_duration_does_not_stop_a_small_recording_being_attached() {
    // The request says the recording is enormously long; the host sends
    // 4 kB. What the host sends decides.
    let recordings = RecordingServer::start().await;
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    let server = Server::start(deployed(&router, &email).build()).await;
    let url = recordings.recording_url();
    let answer = server
        .post(&notice_path(), &notice_params(&url, "100000000000000000"))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        serde_json::from_str::<Value>(&answer.body).unwrap(),
        json!({"email_id": "<fake.1@mg.example.com>", "attached": true})
    );
    assert_eq!(recordings.requests().len(), 1);
    assert_eq!(email.emails()[0].attachments.len(), 1);
    server.stop().await;
}

#[tokio::test]
async fn recording_bytes_are_not_logged_as_text() {
    // The download's `api_response` may say how many bytes came, not write
    // the MP3 into the log as mangled text (control characters, escape
    // sequences and U+FFFD in every line that shows it).
    let recordings = RecordingServer::start().await;
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    let server = Server::start(deployed(&router, &email).build()).await;
    let url = recordings.recording_url();
    let answer = server
        .post(&notice_path(), &notice_params(&url, "12"))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let records = answer.records();
    let download = records
        .iter()
        .find(|r| r["step"] == "api_response" && r["content_type"] == "audio/mpeg")
        .expect("the download's api_response");
    assert_eq!(download["response_bytes"], RECORDING_BYTES);
    let data = download["data"].to_string();
    let garbled: Vec<char> = serde_json::from_str::<Value>(&data)
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .chars()
        .filter(|c| *c == '\u{fffd}' || (c.is_control() && !matches!(c, '\n' | '\t')))
        .collect();
    assert!(
        garbled.is_empty(),
        "the recording's bytes are logged as text ({} garbled characters): {}",
        garbled.len(),
        data.chars().take(200).collect::<String>()
    );
    server.stop().await;
}

#[tokio::test]
async fn failed_download_is_linked_with_a_warning() {
    let recordings = RecordingServer::start().await;
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    email.expect(1);
    let server = Server::start(deployed(&router, &email).build()).await;
    let url = recordings.missing_url();
    let answer = server
        .post(&notice_path(), &notice_params(&url, "12"))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        serde_json::from_str::<Value>(&answer.body).unwrap(),
        json!({"email_id": "<fake.1@mg.example.com>", "attached": false})
    );
    assert_eq!(recordings.requests().len(), 1);
    let sent = &email.emails()[0];
    assert!(sent.attachments.is_empty());
    assert!(
        sent.text
            .as_deref()
            .unwrap()
            .ends_with(&format!("Listen to the recording: {url}.mp3\n")),
        "{:?}",
        sent.text
    );

    let records = answer.records();
    assert_in_order(
        &records,
        &[
            "api_request",
            "api_response",
            "log",
            "email_request",
            "email_result",
            "success",
        ],
    );
    let warning = only(&records, "log");
    assert_eq!(warning["level"], "WARN");
    assert_eq!(
        warning["message"],
        "the recording could not be downloaded; linking it instead"
    );
    assert_eq!(warning["error"], "the recording answered status 404");
    assert_eq!(
        records
            .iter()
            .find(|r| r["step"] == "api_response")
            .unwrap()["status"],
        404
    );
    server.stop().await;
}

#[tokio::test]
async fn notice_without_a_key_writes_the_local_outbox() {
    let recordings = RecordingServer::start().await;
    let outbox = temp_path("outbox");
    let context = with_local_defaults(
        builder()
            .value("CCFN_OUTBOX_DIR", outbox.display().to_string())
            .build(),
    );
    let server = Server::start(context).await;
    let url = recordings.recording_url();
    let answer = server
        .post(&notice_path(), &notice_params(&url, "12"))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let body: Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(body["attached"], true);
    let id = body["email_id"].as_str().unwrap();
    assert!(
        id.starts_with("<outbox.") && id.ends_with("@ccfn.local>"),
        "{id}"
    );
    // No credentials: the recording is fetched without any.
    assert_eq!(recordings.requests()[0].1, None);

    let folder = outbox.join(id.trim_start_matches('<').trim_end_matches('>'));
    let message: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("message.json")).unwrap())
            .unwrap();
    assert_eq!(message["from"], "voicemail@example.com");
    assert_eq!(message["to"], json!(["contact-center-team@example.com"]));
    assert_eq!(message["subject"], "New voicemail from +15551230000");
    assert_eq!(
        message["text"],
        "New voicemail from +15551230000 (12 s), call CA123.\nThe recording is attached.\n"
    );
    assert_eq!(message["attachments"][0]["content_type"], "audio/mpeg");
    assert_eq!(message["attachments"][0]["size"], RECORDING_BYTES);
    assert_eq!(
        std::fs::read(folder.join(format!("attachments/{RECORDING_SID}.mp3"))).unwrap(),
        recording_bytes()
    );

    let records = answer.records();
    assert_in_order(
        &records,
        &[
            "api_request",
            "api_response",
            "email_request",
            "attachment",
            "email_result",
            "success",
            "end",
        ],
    );
    assert_eq!(
        only(&records, "email_request")["url"],
        format!("outbox:{}", outbox.display())
    );
    assert_eq!(
        only(&records, "email_result")["path"],
        folder.display().to_string()
    );
    server.stop().await;
    std::fs::remove_dir_all(&outbox).unwrap();
}

#[tokio::test]
async fn notice_without_recording_url_is_400_with_the_exact_message() {
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    email.expect(0);
    let server = Server::start(deployed(&router, &email).build()).await;
    let answer = server
        .post(
            &notice_path(),
            &[("CallSid", CALL_SID), ("RecordingSid", RECORDING_SID)],
        )
        .await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.content_type, "application/json");
    assert_eq!(
        answer.body,
        r#"{"message":"Missing required parameter: RecordingUrl"}"#
    );
    let records = answer.records();
    assert_eq!(
        steps(&records),
        ["start", "validation", "validation_error", "metrics", "end"]
    );
    let error = only(&records, "validation_error");
    assert_eq!(error["level"], "WARN");
    assert!(
        error["message"].as_str().unwrap().contains("RecordingUrl"),
        "{error:#}"
    );
    server.stop().await;
}

// ---------------------------------------------------------------------------
// Inbound call
// ---------------------------------------------------------------------------

fn inbound_twiml(workflow: &str, language: &str) -> String {
    let task = json!({
        "type": "inbound_call",
        "caller": "+15551230000",
        "called": "+15559870000",
        "call_sid": CALL_SID,
        "language": language,
    })
    .to_string();
    format!(
        r#"{XML}<Response><Say>Thank you for calling. Please hold while we find an agent.</Say><Enqueue workflowSid="{workflow}" waitUrl="{WAIT_URL}" waitUrlMethod="POST"><Task priority="1">{task}</Task></Enqueue></Response>"#
    )
}

#[tokio::test]
async fn inbound_call_enqueues_through_the_workflow() {
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    let server = Server::start(deployed(&router, &email).build()).await;

    let default = server.post(INBOUND_URL, &VOICE).await;
    assert_eq!(default.status, 200);
    assert_eq!(default.content_type, "text/xml");
    assert_eq!(default.body, inbound_twiml(WORKFLOW, "en-US"));
    let records = default.records();
    assert_voice_success(&records, &[]);
    let config = only(&records, "taskrouter_config");
    assert_eq!(config["workspace_sid"], WORKSPACE);
    assert_eq!(config["workflow_sid"], WORKFLOW);
    assert_eq!(config["queue"], Value::Null);

    let spanish = server
        .post(
            INBOUND_URL,
            &[VOICE[0], VOICE[1], VOICE[2], ("Language", "es-MX")],
        )
        .await;
    assert_eq!(spanish.body, inbound_twiml(WORKFLOW, "es-MX"));
    assert!(
        router.requests().is_empty(),
        "the Enqueue verb routes, not the function"
    );
    server.stop().await;

    // DEFAULT_LANGUAGE when the call says none; the local defaults' workflow.
    let context = with_local_defaults(builder().value("DEFAULT_LANGUAGE", "fr-CA").build());
    let server = Server::start(context).await;
    let local = server.post(INBOUND_URL, &VOICE).await;
    assert_eq!(local.body, inbound_twiml(LOCAL_WORKFLOW, "fr-CA"));
    let config = only(&local.records(), "taskrouter_config").clone();
    assert_eq!(
        config["workspace_sid"],
        "WSlocal0000000000000000000000000000"
    );
    assert_eq!(config["workflow_sid"], LOCAL_WORKFLOW);
    let language = server
        .post(
            INBOUND_URL,
            &[VOICE[0], VOICE[1], VOICE[2], ("Language", "de-DE")],
        )
        .await;
    assert_eq!(language.body, inbound_twiml(LOCAL_WORKFLOW, "de-DE"));
    server.stop().await;
}

// ---------------------------------------------------------------------------
// Secrets
// ---------------------------------------------------------------------------

#[tokio::test]
async fn canaries_never_reach_a_log_line() {
    let recordings = RecordingServer::start().await;
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    let url = recordings.recording_url();
    let server = Server::start(
        deployed(&router, &email)
            .value("RECORDINGS_BASE_URL", platform_base(&url))
            .build(),
    )
    .await;
    let answers = vec![
        server.post(WAIT_URL, &VOICE).await,
        server
            .post(
                WAIT_URL,
                &[VOICE[0], VOICE[1], VOICE[2], ("mode", "callback")],
            )
            .await,
        server
            .post(&notice_path(), &notice_params(&url, "12"))
            .await,
        server
            .post(
                &notice_path(),
                &notice_params(&recordings.missing_url(), "12"),
            )
            .await,
        server.post(INBOUND_URL, &VOICE).await,
        // A request that fails, with its error record and event.
        server
            .post(
                &notice_path(),
                &[("CallSid", CALL_SID), ("AUTH_TOKEN", AUTH_TOKEN)],
            )
            .await,
        // A request with a forged signature, rejected before the function.
        {
            let response = client()
                .post(format!("{}{WAIT_URL}", server.base))
                .header("content-type", FORM)
                .header(signature::SIGNATURE_HEADER, "forged")
                .body(format!(
                    "CallSid=CA123&From=%2B1&To=%2B2&token={AUTH_TOKEN}"
                ))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 403);
            Answer {
                status: 403,
                content_type: String::new(),
                id: response.headers()["x-ccfn-invocation-id"]
                    .to_str()
                    .unwrap()
                    .to_owned(),
                body: response.text().await.unwrap(),
            }
        },
    ];
    let statuses: Vec<u16> = answers.iter().map(|a| a.status).collect();
    assert_eq!(statuses, [200, 200, 200, 200, 200, 400, 403]);
    server.stop().await;

    // The fakes got the credentials...
    let task_requests = router.requests();
    assert_eq!(task_requests.len(), 2);
    assert!(task_requests
        .iter()
        .all(|r| r.username().as_deref() == Some(ACCOUNT)
            && r.password().as_deref() == Some(AUTH_TOKEN)));
    let emails = email.emails();
    assert_eq!(emails.len(), 2);
    assert!(emails.iter().all(|e| e.password == EMAIL_KEY));
    let expected = basic_auth(ACCOUNT, AUTH_TOKEN);
    assert!(recordings
        .requests()
        .iter()
        .all(|(_, auth)| auth.as_deref() == Some(expected.as_str())));

    // ...and no line of the process shows them, while every invocation
    // above wrote its records.
    for answer in &answers {
        assert!(!answer.records().is_empty(), "records of {}", answer.id);
        assert!(!answer.body.contains(AUTH_TOKEN) && !answer.body.contains(EMAIL_KEY));
    }
    let lines = all_lines();
    for canary in [AUTH_TOKEN, EMAIL_KEY] {
        let leaks: Vec<&String> = lines.iter().filter(|l| l.contains(canary)).collect();
        assert!(leaks.is_empty(), "a log line leaks a secret: {leaks:#?}");
    }
    // The basic-auth header, encoded, is a secret too.
    let encoded = expected.trim_start_matches("Basic ");
    assert!(lines.iter().all(|l| !l.contains(encoded)));
}

#[tokio::test]
async fn credentials_never_go_to_a_url_that_only_starts_like_the_platform() {
    // `http://127.0.0.1:1` is a string prefix of the recording server's
    // `http://127.0.0.1:1xxxx/...`, as `https://api.twilio.com` is of
    // `https://api.twilio.com.evil.example/...`: only the same scheme,
    // host and port, and a path under the platform's, get credentials.
    let recordings = RecordingServer::start().await;
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    let url = recordings.recording_url();
    let port = url.split(':').nth(2).unwrap().split('/').next().unwrap();
    let prefix_port = &port[..1];
    let bases = [
        format!("http://127.0.0.1:{prefix_port}"),
        format!("https://127.0.0.1:{port}/"),
        format!("http://127.0.0.1:{port}/2010-04-01/Accounts/{ACCOUNT}/Recordings/RE0"),
        format!("http://127.0.0.1:{port}/2010"),
    ];
    for base in bases {
        assert!(
            url.starts_with(&base) || base.starts_with("https"),
            "{base}"
        );
        let server = Server::start(
            deployed(&router, &email)
                .value("RECORDINGS_BASE_URL", base.as_str())
                .build(),
        )
        .await;
        let answer = server
            .post(&notice_path(), &notice_params(&url, "12"))
            .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        server.stop().await;
    }
    let fetched = recordings.requests();
    assert_eq!(fetched.len(), 4);
    assert!(
        fetched
            .iter()
            .all(|(_, authorization)| authorization.is_none()),
        "credentials sent to a URL outside the platform's: {fetched:?}"
    );
}

#[tokio::test]
async fn credentials_go_to_the_platform_host_only() {
    let recordings = RecordingServer::start().await;
    let router = router_with_workflow().await;
    let email = FakeEmailProvider::start().await;
    // The default platform host is not the recording server's.
    let server = Server::start(deployed(&router, &email).build()).await;
    let url = recordings.recording_url();
    let answer = server
        .post(&notice_path(), &notice_params(&url, "12"))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let fetched = recordings.requests();
    assert_eq!(fetched.len(), 1);
    assert_eq!(fetched[0].1, None, "no credentials to another host");
    server.stop().await;
}

/// The context `main` makes from `vars`, in the mode their `CCFN_MODE`
/// says.
fn server_context_of(vars: &[(&str, &str)]) -> Result<Context, ccfn_core::Error> {
    let env = ccfn_core::config::Env::from_vars(vars.iter().copied());
    let mode = RuntimeConfig::from_source(&env).unwrap().mode;
    example_contact_center::server_context(&env, mode)
}

#[test]
fn production_mode_refuses_the_local_placeholders_and_names_each_missing_value() {
    let error = server_context_of(&[
        ("CCFN_MODE", "production"),
        ("workflowSid", WORKFLOW),
        // Blank is unset.
        ("VOICEMAIL_FROM", " "),
    ])
    .unwrap_err();
    assert_eq!(error.kind(), ccfn_core::ErrorKind::Configuration);
    assert_eq!(
        error.message(),
        "cannot start in production mode without the examples' own settings (their placeholders are for local mode only):\n  \
         PLATFORM_WORKSPACE_SID: the task-routing workspace (WS...) the wait experience and the inbound call create tasks in\n  \
         VOICEMAIL_TO: who the voicemail notice emails, addresses separated by commas\n  \
         VOICEMAIL_FROM: the voicemail notice's sender, an address of the email provider's sending domain"
    );

    // Every value set: the values as set, no placeholder.
    let context = server_context_of(&[
        ("CCFN_MODE", "production"),
        ("PLATFORM_WORKSPACE_SID", WORKSPACE),
        ("workflowSid", WORKFLOW),
        ("VOICEMAIL_TO", "oncall@cc.example.org"),
        ("VOICEMAIL_FROM", "voicemail@mg.example.org"),
    ])
    .unwrap();
    assert_eq!(context.get("workflowSid"), Some(WORKFLOW));
    assert_eq!(context.get("PLATFORM_WORKSPACE_SID"), Some(WORKSPACE));
    assert_eq!(context.get("VOICEMAIL_TO"), Some("oncall@cc.example.org"));

    // Local mode (the default): the placeholders fill in what is unset.
    let context = server_context_of(&[("workflowSid", WORKFLOW)]).unwrap();
    assert_eq!(context.get("workflowSid"), Some(WORKFLOW));
    for (name, value) in LOCAL_DEFAULTS.iter().filter(|(n, _)| *n != "workflowSid") {
        assert_eq!(context.get(name), Some(*value), "{name}");
    }
}
