//! Faults against the examples server as it ships: the binary `main`
//! builds, started as a child process on a free port of `127.0.0.1`, with
//! its JSON log in a file of its own and nothing in its environment but
//! what each test sets.
//!
//! - Upstreams that misbehave: the email provider (behind the voicemail
//!   notice) and the task router (behind the wait experience's callback)
//!   refusing connections, answering 401, 404, 500 or a 2xx that is not
//!   JSON, or closing the connection in the middle of the body.
//! - Clients that misbehave: gone in the middle of their body, trickling
//!   headers or body, an oversized or malformed body, too many parameters.
//! - SIGTERM with an invocation in flight, within and past the shutdown
//!   grace.
//!
//! Each test checks what the caller gets and the records the server
//! wrote, read from its log once it has stopped, so that every line is
//! there; every line of every log must be JSON.

// On AWS Lambda: frozen the moment a reply is in (the `lambda` feature).
#[cfg(all(feature = "lambda", target_os = "linux"))]
mod lambda;

use std::time::{Duration, Instant};

use axum::Router;
use ccfn_testkit::fake_email::FakeEmailProvider;
use ccfn_testkit::fake_task_router::FakeTaskRouter;
use ccfn_testkit::FakeResponse;
use example_contact_center::{NOTICE_URL, WAIT_URL};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};

use crate::server::{Log, Server};

const EMAIL_KEY: &str = "canary-faults-email-key-3c8e51";
const API_KEY_SID: &str = "SKaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const API_KEY_SECRET: &str = "canary-faults-api-key-secret-90d2";
const ACCOUNT: &str = "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const WORKSPACE: &str = "WSaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const WORKFLOW: &str = "WW11111111111111111111111111111111";
const DOMAIN: &str = "mg.example.com";
const FORM: &str = "application/x-www-form-urlencoded";
const VOICE: &str = "CallSid=CAfaults&From=%2B15551230000&To=%2B15559870000";
const CALLER_MESSAGE: &str = "Option not available at this time";
const XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>"#;
/// The size of the recording the recording server serves.
const RECORDING_BYTES: usize = 2048;

fn steps(records: &[Value]) -> Vec<&str> {
    records
        .iter()
        .map(|r| r["step"].as_str().unwrap())
        .collect()
}

/// The only record of `step`.
#[track_caller]
fn only<'a>(records: &'a [Value], step: &str) -> &'a Value {
    let found: Vec<&Value> = records.iter().filter(|r| r["step"] == step).collect();
    assert_eq!(found.len(), 1, "one `{step}` record expected: {records:#?}");
    found[0]
}

#[track_caller]
fn none_of(records: &[Value], absent: &[&str]) {
    for step in absent {
        assert!(
            records.iter().all(|r| r["step"] != *step),
            "unexpected `{step}` record: {:?}",
            steps(records)
        );
    }
}

/// Checks that `expected` appear in this order among the steps (others
/// may come between them).
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

/// The single `request_rejected` record of a request that never reached
/// its function: checks it and that no invocation started.
#[track_caller]
fn assert_rejected(log: &Log, id: &str, status: u16, message: &str) {
    let records = log.of(id);
    assert_eq!(steps(&records), ["request_rejected"], "{records:#?}");
    let record = &records[0];
    assert_eq!(record["status"], status);
    assert_eq!(record["level"], "WARN");
    assert_eq!(record["error"], message);
    assert_eq!(record["method"], "POST");
    assert_eq!(record["path"], WAIT_URL);
    assert!(log.all("start").is_empty(), "an invocation started");
}

// ---------------------------------------------------------------------------
// Clients
// ---------------------------------------------------------------------------

/// What the server answered.
#[derive(Debug)]
struct Answer {
    status: u16,
    content_type: String,
    id: String,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

async fn post(url: &str, content_type: &str, body: impl Into<reqwest::Body>) -> Answer {
    ccfn_core::http::install_crypto_provider();
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    let (content_type, id) = (header("content-type"), header("x-ccfn-invocation-id"));
    assert_eq!(id.len(), 24, "every answer carries its invocation id");
    Answer {
        status: response.status().as_u16(),
        content_type,
        id,
        body: response.text().await.unwrap(),
    }
}

/// Whether `answer` holds a whole response: its head and the body its
/// `Content-Length` announces.
fn complete(answer: &[u8]) -> bool {
    let text = String::from_utf8_lossy(answer);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    body.len() >= length
}

/// Parses a raw answer into an [`Answer`].
fn parse_raw(answer: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole answer");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {head}"));
    let header = |name: &str| {
        head.lines()
            .find_map(|line| {
                let (n, v) = line.split_once(':')?;
                n.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
            })
            .unwrap_or_default()
    };
    Answer {
        status,
        content_type: header("content-type"),
        id: header("x-ccfn-invocation-id"),
        body: body.to_owned(),
    }
}

/// How a trickling client ended.
struct Trickled {
    /// What the server sent before the end.
    answer: Vec<u8>,
    /// Whether the server closed the connection (else it answered whole).
    closed: bool,
    elapsed: Duration,
}

/// Connects, sends `head`, then one more byte `x` every 50 ms, reading
/// meanwhile, until the server closes the connection or has answered in
/// full; fails after 10 s.
async fn trickle(addr: &str, head: &[u8]) -> Trickled {
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(head).await.unwrap();
    let mut answer = Vec::new();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "still open after 10 s; answered {:?}",
            String::from_utf8_lossy(&answer)
        );
        // The server may close while the client still writes.
        let _ = stream.write_all(b"x").await;
        let mut buffer = [0; 4096];
        match tokio::time::timeout(Duration::from_millis(50), stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => {
                return Trickled {
                    answer,
                    closed: true,
                    elapsed: started.elapsed(),
                }
            }
            Ok(Ok(read)) => {
                answer.extend_from_slice(&buffer[..read]);
                if complete(&answer) {
                    return Trickled {
                        answer,
                        closed: false,
                        elapsed: started.elapsed(),
                    };
                }
            }
            Err(_) => {}
        }
    }
}

/// Sends `request` on a fresh connection and reads the whole answer.
async fn raw(addr: &str, request: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), async {
        let mut buffer = [0; 4096];
        while !complete(&answer) {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(read) => answer.extend_from_slice(&buffer[..read]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "no whole answer within 10 s");
    parse_raw(&answer)
}

// ---------------------------------------------------------------------------
// Upstreams
// ---------------------------------------------------------------------------

/// Reads one whole request (head, then a `Content-Length` or chunked
/// body) so that closing the connection afterwards is a clean close, not
/// a reset.
async fn read_request(stream: &mut TcpStream) {
    let mut request = Vec::new();
    let mut buffer = [0; 8192];
    loop {
        let text = String::from_utf8_lossy(&request).to_ascii_lowercase();
        if let Some(end) = text.find("\r\n\r\n") {
            let head = &text[..end];
            let body = request.len() - end - 4;
            let length = head.lines().find_map(|line| {
                line.strip_prefix("content-length:")
                    .and_then(|v| v.trim().parse::<usize>().ok())
            });
            let done = match length {
                Some(length) => body >= length,
                None if head.contains("transfer-encoding: chunked") => {
                    text.ends_with("\r\n0\r\n\r\n")
                }
                None => true,
            };
            if done {
                return;
            }
        }
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(read) => request.extend_from_slice(&buffer[..read]),
        }
    }
}

/// A server that reads each request whole, answers a head announcing 100
/// bytes of JSON, sends 12 of them and closes the connection. Returns its
/// `http://` origin.
async fn cut_in_the_middle_of_the_body() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                read_request(&mut stream).await;
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"sid\": \"WW1")
                    .await;
                let _ = stream.shutdown().await;
            });
        }
    });
    format!("http://{addr}")
}

/// The platform's recording storage on loopback: every request gets a
/// 2 KiB "MP3", once released. Stops when dropped.
struct Recordings {
    /// The `RecordingUrl` to send (without its extension, as the
    /// platform sends it).
    url: String,
    arrived: mpsc::UnboundedReceiver<()>,
    release: watch::Sender<bool>,
    server: tokio::task::JoinHandle<()>,
}

impl Recordings {
    /// Starts the server; with `held`, requests wait for
    /// [`Recordings::release`] (for ever, if it never comes).
    async fn start(held: bool) -> Recordings {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (arrivals, arrived) = mpsc::unbounded_channel();
        let (release, released) = watch::channel(!held);
        let app = Router::new().fallback(move || {
            let arrivals = arrivals.clone();
            let mut released = released.clone();
            async move {
                let _ = arrivals.send(());
                let _ = released.wait_for(|released| *released).await;
                (
                    [(axum::http::header::CONTENT_TYPE, "audio/mpeg")],
                    vec![0x55_u8; RECORDING_BYTES],
                )
            }
        });
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Recordings {
            url: format!("http://{addr}/2010-04-01/Accounts/{ACCOUNT}/Recordings/RE1"),
            arrived,
            release,
            server,
        }
    }

    /// Waits until a request for the recording has arrived.
    async fn arrived(&mut self) {
        tokio::time::timeout(Duration::from_secs(10), self.arrived.recv())
            .await
            .expect("the recording was asked for within 10 s");
    }

    fn release(&self) {
        let _ = self.release.send(true);
    }
}

impl Drop for Recordings {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// A voicemail notice about `recording_url`.
/// The call a voicemail notice of these tests is about.
const NOTICE_CALL: &str = "CA0123456789abcdef0123456789abcdef";

fn notice_body(recording_url: &str) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("CallSid", NOTICE_CALL),
            ("From", "+15551230000"),
            ("RecordingSid", "RE1"),
            ("RecordingDuration", "3"),
            ("RecordingUrl", recording_url),
        ])
        .finish()
}

// ---------------------------------------------------------------------------
// The email provider, behind the voicemail notice
// ---------------------------------------------------------------------------

/// Posts a voicemail notice to a server whose email provider is at
/// `provider`; returns what the caller got and the server's log.
async fn notice_through(provider: &str) -> (Answer, Log) {
    let recordings = Recordings::start(false).await;
    let server = Server::start(&[
        ("EMAILPROVIDER_API_KEY", EMAIL_KEY),
        ("EMAILPROVIDER_DOMAIN", DOMAIN),
        ("EMAILPROVIDER_BASE_URL", provider),
    ])
    .await;
    let answer = post(&server.url(NOTICE_URL), FORM, notice_body(&recordings.url)).await;
    (answer, server.stop().await)
}

/// What every email fault gives: the caller gets 500 with the message of
/// the `email_error` record; the recording was downloaded and attached;
/// the invocation ends with `email_error`, `error` (kind `upstream`),
/// `metrics` and `end`; nothing says the email was sent; the key is in no
/// line. Returns the invocation's records.
#[track_caller]
fn assert_email_fault(answer: &Answer, log: &Log, message: &str) -> Vec<Value> {
    assert_eq!(answer.status, 500, "{answer:?}");
    assert_eq!(answer.content_type, "application/json");
    let records = log.of(&answer.id);
    // The caller is told what failed; the whole message is in the records.
    let told = match only(&records, "email_error").get("status") {
        Some(status) => format!("email provider error (status {status})"),
        None => "email provider error (no answer)".to_owned(),
    };
    assert_eq!(answer.json(), json!({ "message": told }));
    assert_in_order(
        &records,
        &[
            "start",
            "api_request",
            "api_response",
            "email_request",
            "attachment",
            "api_request",
            "auth",
            "email_error",
            "error",
            "metrics",
            "end",
        ],
    );
    assert_eq!(records.last().unwrap()["step"], "end");
    assert_eq!(records.last().unwrap()["outcome"], "error");
    let email_error = only(&records, "email_error");
    assert_eq!(email_error["level"], "ERROR");
    assert_eq!(email_error["error"], message);
    assert_eq!(email_error["kind"], "upstream");
    assert_eq!(email_error["domain"], DOMAIN);
    let error = only(&records, "error");
    assert_eq!(error["kind"], "upstream");
    assert_eq!(error["error"], message);
    assert_eq!(only(&records, "attachment")["size"], RECORDING_BYTES);
    none_of(&records, &["email_result", "success"]);
    log.assert_no_secret(EMAIL_KEY);
    records
}

/// The whole message of the `error` record of `answer`'s invocation.
fn error_message(log: &Log, answer: &Answer) -> String {
    let records = log.of(&answer.id);
    only(&records, "error")["error"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The provider's response record, the one after `email_request`.
fn provider_response<'a>(records: &'a [Value], step: &str) -> &'a Value {
    let sent = records
        .iter()
        .position(|r| r["step"] == "email_request")
        .unwrap();
    let found: Vec<&Value> = records[sent..]
        .iter()
        .filter(|r| r["step"] == step)
        .collect();
    assert_eq!(found.len(), 1, "one `{step}` after email_request");
    found[0]
}

#[tokio::test]
async fn email_provider_refusing_connections_is_500_naming_the_refusal() {
    let closed = ccfn_testkit::ClosedPort::new();
    let origin = format!("http://{}", closed.addr());
    let (answer, log) = notice_through(&origin).await;
    let message = format!(
        "email not sent: POST {origin}/{DOMAIN}/messages failed: the connection was refused"
    );
    let records = assert_email_fault(&answer, &log, &message);
    let api_error = provider_response(&records, "api_error");
    assert_eq!(api_error["level"], "ERROR");
    assert_eq!(
        api_error["error"],
        format!("POST {origin}/{DOMAIN}/messages failed: the connection was refused")
    );
    assert_eq!(only(&records, "email_error").get("status"), None);
}

/// Runs a notice against a fake provider that answers `answer`, and
/// checks that it was asked once and the response was logged with its
/// status.
async fn notice_answered(answer: FakeResponse, status: u16, message: &str) -> Vec<Value> {
    let provider = FakeEmailProvider::start().await;
    provider.expect(1).fail_with(answer);
    let (answer, log) = notice_through(&provider.url()).await;
    let records = assert_email_fault(&answer, &log, message);
    let response = provider_response(&records, "api_response");
    assert_eq!(response["status"], status);
    assert_eq!(
        response["level"],
        if status < 300 { "INFO" } else { "WARN" }
    );
    assert_eq!(only(&records, "email_error")["status"], status);
    let sent = provider.emails();
    assert_eq!(sent[0].password, EMAIL_KEY, "the key reached the provider");
    assert_eq!(sent[0].attachments[0].2, RECORDING_BYTES);
    records
}

#[tokio::test]
async fn email_provider_401_is_500_naming_the_likely_causes() {
    notice_answered(
        FakeResponse::status(401).body("text/plain", "Forbidden"),
        401,
        "the email provider refused the API key (status 401): use the domain's sending key, \
         not the private account key; check that the sending domain mg.example.com is verified; \
         check the region (US or EU) of the base URL",
    )
    .await;
}

#[tokio::test]
async fn email_provider_404_is_500_naming_the_domain_and_region() {
    notice_answered(
        FakeResponse::status(404).json(json!({"message": "Domain not found: mg.example.com"})),
        404,
        "the email provider does not know the sending domain mg.example.com (status 404): \
         Domain not found: mg.example.com; check EMAILPROVIDER_DOMAIN and the region (US or EU) \
         of the base URL",
    )
    .await;
}

#[tokio::test]
async fn email_provider_500_is_500_saying_the_email_was_not_sent() {
    notice_answered(
        FakeResponse::status(500).json(json!({"message": "Internal Server Error"})),
        500,
        "the email provider failed (status 500): Internal Server Error; \
         the email was not sent, try again later",
    )
    .await;
}

#[tokio::test]
async fn email_provider_answering_200_that_is_not_json_is_500() {
    let provider = FakeEmailProvider::start().await;
    provider
        .expect(1)
        .fail_with(FakeResponse::status(200).body("text/plain", "<html>maintenance</html>"));
    let (answer, log) = notice_through(&provider.url()).await;
    let message = error_message(&log, &answer);
    assert!(
        message.starts_with(
            "the email provider answered status 200 without the expected JSON `id` and `message`: "
        ),
        "{message}"
    );
    let records = assert_email_fault(&answer, &log, &message);
    let response = provider_response(&records, "api_response");
    assert_eq!(response["status"], 200);
    assert_eq!(response["data"], "<html>maintenance</html>");
    assert_eq!(only(&records, "email_error")["status"], 200);
}

#[tokio::test]
async fn email_provider_closing_in_the_middle_of_the_body_is_500() {
    let origin = cut_in_the_middle_of_the_body().await;
    let (answer, log) = notice_through(&origin).await;
    let message = error_message(&log, &answer);
    let call = format!("POST {origin}/{DOMAIN}/messages failed reading the response: ");
    assert!(
        message.starts_with(&format!("email not sent: {call}")),
        "{message}"
    );
    let records = assert_email_fault(&answer, &log, &message);
    let api_error = provider_response(&records, "api_error");
    assert!(
        api_error["error"].as_str().unwrap().starts_with(&call),
        "{api_error}"
    );
    assert!(records
        .iter()
        .skip_while(|r| r["step"] != "email_request")
        .all(|r| r["step"] != "api_response"));
}

// ---------------------------------------------------------------------------
// The task router, behind the wait experience's callback
// ---------------------------------------------------------------------------

/// Asks for a callback from a server whose task router is at `base_url`
/// (with an API key, so no request signature is needed); returns what the
/// caller got and the server's log.
async fn callback_through(base_url: &str) -> (Answer, Log) {
    let server = Server::start(&[
        ("PLATFORM_WORKSPACE_SID", WORKSPACE),
        ("workflowSid", WORKFLOW),
        ("ACCOUNT_SID", ACCOUNT),
        ("API_KEY_SID", API_KEY_SID),
        ("API_KEY_SECRET", API_KEY_SECRET),
        ("TASKROUTER_BASE_URL", base_url),
    ])
    .await;
    let answer = post(
        &server.url(&format!("{WAIT_URL}?mode=callback")),
        FORM,
        VOICE,
    )
    .await;
    (answer, server.stop().await)
}

/// What every task-router fault gives: the caller hears exactly "Option
/// not available at this time" and is sent back to the menu (200,
/// `text/xml`); a `task_error` with cause `lookup_failed` says why; no
/// task was created; the invocation succeeds. Returns its records.
#[track_caller]
fn assert_callback_not_available(answer: &Answer, log: &Log) -> Vec<Value> {
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.content_type, "text/xml");
    assert_eq!(
        answer.body,
        format!(
            r#"{XML}<Response><Say>{CALLER_MESSAGE}</Say><Redirect method="POST">{WAIT_URL}</Redirect></Response>"#
        )
    );
    let records = log.of(&answer.id);
    let call_failed = records.iter().any(|r| r["step"] == "api_error");
    assert_eq!(
        steps(&records),
        [
            "start",
            "validation",
            "validation",
            "processing",
            "caller",
            "flow",
            "api_request",
            "auth",
            if call_failed {
                "api_error"
            } else {
                "api_response"
            },
            "task_error",
            "voice_response",
            "voice_response",
            "taskrouter_config",
            "metrics",
            "success",
            "end",
        ],
        "{records:#?}"
    );
    let task_error = only(&records, "task_error");
    assert_eq!(task_error["level"], "ERROR");
    assert_eq!(task_error["cause"], "lookup_failed");
    assert_eq!(task_error["caller_message"], CALLER_MESSAGE);
    assert_eq!(only(&records, "end")["outcome"], "success");
    log.assert_no_secret(API_KEY_SECRET);
    records
}

/// The call the wait experience makes first: the workflow's lookup.
fn lookup(base_url: &str) -> String {
    format!("GET {base_url}/Workspaces/{WORKSPACE}/Workflows/{WORKFLOW}")
}

#[tokio::test]
async fn task_router_refusing_connections_leaves_the_caller_the_fallback() {
    let closed = ccfn_testkit::ClosedPort::new();
    let base_url = format!("http://{}/v1", closed.addr());
    let (answer, log) = callback_through(&base_url).await;
    let records = assert_callback_not_available(&answer, &log);
    let failed = format!("{} failed: the connection was refused", lookup(&base_url));
    assert_eq!(only(&records, "api_error")["error"], failed);
    assert_eq!(
        only(&records, "task_error")["message"],
        format!("Task routing failed: task router lookup failed: {failed}")
    );
}

#[tokio::test]
async fn task_router_401_leaves_the_caller_the_fallback() {
    let router = FakeTaskRouter::start().await;
    router.fail_with(FakeResponse::status(401).body("application/json", r#"{"code": 20003, "message": "Authenticate", "more_info": "https://www.twilio.com/docs/errors/20003", "status": 401}"#));
    let (answer, log) = callback_through(&router.url()).await;
    let records = assert_callback_not_available(&answer, &log);
    let response = only(&records, "api_response");
    assert_eq!(response["status"], 401);
    assert_eq!(response["level"], "WARN");
    assert_eq!(
        only(&records, "task_error")["message"],
        format!(
            "Task routing failed: task router lookup failed: {} answered 401: the credentials were refused (Authenticate (error 20003)); check ACCOUNT_SID and AUTH_TOKEN, or API_KEY_SID and API_KEY_SECRET, and that they belong to the workspace's account",
            lookup(&router.url())
        )
    );
    let asked = router.requests();
    assert_eq!(asked.len(), 1, "looked up, never created");
    assert_eq!(asked[0].password().as_deref(), Some(API_KEY_SECRET));
    assert!(router.tasks().is_empty());
}

#[tokio::test]
async fn task_router_answering_200_that_is_not_json_leaves_the_caller_the_fallback() {
    let router = FakeTaskRouter::start().await;
    router.fail_with(FakeResponse::status(200).body("text/plain", "<html>maintenance</html>"));
    let (answer, log) = callback_through(&router.url()).await;
    let records = assert_callback_not_available(&answer, &log);
    let response = only(&records, "api_response");
    assert_eq!(response["status"], 200);
    assert_eq!(response["data"], "<html>maintenance</html>");
    let message = only(&records, "task_error")["message"]
        .as_str()
        .unwrap()
        .to_owned();
    // The `api_response` just before names the call; this message does
    // not.
    assert!(
        message.starts_with(
            "Task routing failed: task router lookup failed: the response (status 200) is not the JSON expected: "
        ),
        "{message}"
    );
    assert!(router.tasks().is_empty());
}

#[tokio::test]
async fn task_router_closing_in_the_middle_of_the_body_leaves_the_caller_the_fallback() {
    let base_url = format!("{}/v1", cut_in_the_middle_of_the_body().await);
    let (answer, log) = callback_through(&base_url).await;
    let records = assert_callback_not_available(&answer, &log);
    let failed = format!("{} failed reading the response: ", lookup(&base_url));
    let api_error = only(&records, "api_error")["error"].as_str().unwrap();
    assert!(api_error.starts_with(&failed), "{api_error}");
    assert_eq!(
        only(&records, "task_error")["message"],
        format!("Task routing failed: task router lookup failed: {api_error}")
    );
}

// ---------------------------------------------------------------------------
// Clients of the runtime
// ---------------------------------------------------------------------------

#[tokio::test]
async fn a_client_gone_in_the_middle_of_its_body_starts_no_invocation() {
    let server = Server::start(&[]).await;
    let mut stream = TcpStream::connect(&server.addr).await.unwrap();
    stream
        .write_all(
            format!(
                "POST {WAIT_URL} HTTP/1.1\r\nhost: {}\r\ncontent-type: {FORM}\r\ncontent-length: 200\r\n\r\nCallSid=CAgone&Fr",
                server.addr
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    drop(stream);
    server
        .wait_for(r#""step":"request_rejected""#, Duration::from_secs(5))
        .await;
    let log = server.stop().await;
    let rejected = log.all("request_rejected");
    assert_eq!(rejected.len(), 1);
    let id = rejected[0]["invocation_id"].as_str().unwrap();
    let message = rejected[0]["error"].as_str().unwrap();
    assert!(
        message.starts_with("the request body could not be read: "),
        "{message}"
    );
    assert_rejected(&log, id, 400, message);
}

#[tokio::test]
async fn trickling_headers_are_cut_off_without_a_record() {
    let server = Server::start(&[("CCFN_HEADER_TIMEOUT_MS", "300")]).await;
    let head = format!(
        "POST {WAIT_URL} HTTP/1.1\r\nhost: {}\r\nx-slow: ",
        server.addr
    );
    let trickled = trickle(&server.addr, head.as_bytes()).await;
    assert!(trickled.closed, "the connection was closed");
    let answer = String::from_utf8_lossy(&trickled.answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    assert!(
        trickled.elapsed >= Duration::from_millis(250),
        "closed after {:?}, before the header timeout",
        trickled.elapsed
    );
    // The server still serves requests that arrive in time.
    let ok = post(&server.url(WAIT_URL), FORM, VOICE).await;
    assert_eq!(ok.status, 200);
    let log = server.stop().await;
    assert!(log.all("request_rejected").is_empty());
    assert_eq!(log.all("start").len(), 1, "only the timely request started");
    assert_eq!(log.of(&ok.id)[0]["step"], "start");
}

#[tokio::test]
async fn a_trickling_body_is_408_with_a_request_rejected_record() {
    let server = Server::start(&[("CCFN_BODY_TIMEOUT_MS", "300")]).await;
    let head = format!(
        "POST {WAIT_URL} HTTP/1.1\r\nhost: {}\r\ncontent-type: {FORM}\r\ncontent-length: 1000\r\n\r\nCallSid=CAslow&",
        server.addr
    );
    let trickled = trickle(&server.addr, head.as_bytes()).await;
    let answer = parse_raw(&trickled.answer);
    assert_eq!(answer.status, 408);
    assert_eq!(answer.content_type, "application/json");
    let message = "the request body did not arrive within 300 ms";
    assert_eq!(answer.json(), json!({ "message": message }));
    assert!(trickled.elapsed >= Duration::from_millis(250));
    let log = server.stop().await;
    assert_rejected(&log, &answer.id, 408, message);
}

#[tokio::test]
async fn an_oversized_body_is_413_declared_or_chunked() {
    let server = Server::start(&[("CCFN_BODY_LIMIT_BYTES", "1024")]).await;
    let message = "the request body is larger than the 1024 bytes allowed";
    let padding = "x".repeat(2000);

    // Declared in Content-Length: refused before the body is read.
    let declared = post(
        &server.url(WAIT_URL),
        FORM,
        format!("{VOICE}&Pad={padding}"),
    )
    .await;
    assert_eq!(declared.status, 413);
    assert_eq!(declared.json(), json!({ "message": message }));

    // Chunked, with no length: refused once the bytes read pass the limit.
    let chunk = format!("{VOICE}&Pad={padding}");
    let chunked = raw(
        &server.addr,
        format!(
            "POST {WAIT_URL} HTTP/1.1\r\nhost: {}\r\ncontent-type: {FORM}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n{:x}\r\n{chunk}\r\n0\r\n\r\n",
            server.addr,
            chunk.len()
        )
        .as_bytes(),
    )
    .await;
    assert_eq!(chunked.status, 413);
    assert_eq!(chunked.json(), json!({ "message": message }));

    // Just under the limit is served.
    let under = post(&server.url(WAIT_URL), FORM, format!("{VOICE}&Pad=x")).await;
    assert_eq!(under.status, 200);

    let log = server.stop().await;
    for id in [&declared.id, &chunked.id] {
        let records = log.of(id);
        assert_eq!(steps(&records), ["request_rejected"]);
        assert_eq!(records[0]["status"], 413);
        assert_eq!(records[0]["error"], message);
    }
    assert_eq!(
        log.all("start").len(),
        1,
        "only the request under the limit"
    );
}

#[tokio::test]
async fn a_malformed_body_is_400_naming_what_is_wrong() {
    let server = Server::start(&[]).await;
    let escape = post(
        &server.url(WAIT_URL),
        FORM,
        "CallSid=CA%zz&From=%2B15551230000&To=%2B15559870000",
    )
    .await;
    let escape_message = "malformed request: body: parameter `CallSid` has a malformed percent escape `%zz` (expected `%` and two hexadecimal digits)";
    assert_eq!(escape.status, 400);
    assert_eq!(escape.json(), json!({ "message": escape_message }));

    let json_body = post(
        &server.url(WAIT_URL),
        "application/json",
        r#"{"CallSid": "CA1", "From": "#,
    )
    .await;
    assert_eq!(json_body.status, 400);
    let json_message = json_body.json()["message"].as_str().unwrap().to_owned();
    assert!(
        json_message.starts_with("malformed request: the body is not valid JSON: "),
        "{json_message}"
    );

    let bytes = post(&server.url(WAIT_URL), FORM, b"CallSid=\xff\xfe".to_vec()).await;
    let bytes_message = "malformed request: body: parameter `CallSid` has bytes that are not UTF-8";
    assert_eq!(bytes.status, 400);
    assert_eq!(bytes.json(), json!({ "message": bytes_message }));

    let log = server.stop().await;
    for (answer, message) in [
        (&escape, escape_message),
        (&json_body, json_message.as_str()),
        (&bytes, bytes_message),
    ] {
        assert_rejected(&log, &answer.id, 400, message);
    }
}

#[tokio::test]
async fn too_many_parameters_are_413_counting_body_and_query() {
    let server = Server::start(&[("CCFN_MAX_PARAMS", "5")]).await;
    // Five in the body and one in the query string: six.
    let answer = post(
        &server.url(&format!("{WAIT_URL}?mode=callback")),
        FORM,
        format!("{VOICE}&A=1&B=2"),
    )
    .await;
    let message = "the request has 6 parameters, over the 5 allowed";
    assert_eq!(answer.status, 413);
    assert_eq!(answer.content_type, "application/json");
    assert_eq!(answer.json(), json!({ "message": message }));
    // Five are served.
    let five = post(&server.url(WAIT_URL), FORM, format!("{VOICE}&A=1&B=2")).await;
    assert_eq!(five.status, 200);
    let log = server.stop().await;
    let records = log.of(&answer.id);
    assert_eq!(steps(&records), ["request_rejected"]);
    assert_eq!(records[0]["status"], 413);
    assert_eq!(records[0]["level"], "WARN");
    assert_eq!(records[0]["error"], message);
    assert_eq!(log.all("start").len(), 1, "only the request of five");
}

// ---------------------------------------------------------------------------
// SIGTERM
// ---------------------------------------------------------------------------

/// Starts a voicemail notice whose recording download is held by
/// `recordings`, and returns once the server is waiting on it.
async fn notice_in_flight(
    server: &Server,
    recordings: &mut Recordings,
) -> tokio::task::JoinHandle<Answer> {
    let url = server.url(NOTICE_URL);
    let body = notice_body(&recordings.url);
    let request = tokio::spawn(async move { post(&url, FORM, body).await });
    recordings.arrived().await;
    request
}

#[tokio::test]
async fn sigterm_lets_an_invocation_in_flight_finish_within_the_grace() {
    let mut recordings = Recordings::start(true).await;
    let mut server = Server::start(&[("CCFN_SHUTDOWN_GRACE_MS", "10000")]).await;
    let request = notice_in_flight(&server, &mut recordings).await;
    server.terminate();
    server
        .wait_for("shutting down: finishing", Duration::from_secs(5))
        .await;
    // The listener closes: new connections are refused, while the
    // invocation in flight goes on.
    let deadline = Instant::now() + Duration::from_secs(2);
    while TcpStream::connect(&server.addr).await.is_ok() {
        assert!(
            Instant::now() < deadline,
            "connections still accepted 2 s after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    recordings.release();

    let answer = tokio::time::timeout(Duration::from_secs(10), request)
        .await
        .expect("answered within 10 s")
        .unwrap();
    assert_eq!(answer.status, 200, "{answer:?}");
    let body = answer.json();
    assert_eq!(body["attached"], true);
    assert!(
        body["email_id"].as_str().unwrap().ends_with("@ccfn.local>"),
        "{body}"
    );
    let status = server.exit(Duration::from_secs(10)).await;
    assert!(status.success(), "{status}");

    let log = server.log();
    let records = log.of(&answer.id);
    assert_in_order(
        &records,
        &[
            "start",
            "api_request",
            "api_response",
            "email_request",
            "attachment",
            "email_result",
            "metrics",
            "success",
            "end",
        ],
    );
    none_of(&records, &["error"]);
    assert!(
        log.runtime()
            .ends_with(&["shutting down: finishing in-flight invocations", "stopped"]),
        "{:?}",
        log.runtime()
    );
    // The end came after the shutdown began, and before it stopped.
    let at = |pred: &dyn Fn(&Value) -> bool| log.records.iter().position(pred).unwrap();
    let shutting_down = at(&|r| r["message"] == "shutting down: finishing in-flight invocations");
    let end = at(&|r| r["step"] == "end");
    let stopped = at(&|r| r["message"] == "stopped");
    assert!(shutting_down < end && end < stopped);
    assert!(log.all("request_rejected").is_empty());
}

#[tokio::test]
async fn sigterm_past_the_grace_answers_503_and_closes_the_invocation() {
    // The recording is never released: the invocation is still running
    // when the grace runs out.
    let mut recordings = Recordings::start(true).await;
    let mut server = Server::start(&[("CCFN_SHUTDOWN_GRACE_MS", "300")]).await;
    let request = notice_in_flight(&server, &mut recordings).await;
    let signalled = Instant::now();
    server.terminate();

    let answer = tokio::time::timeout(Duration::from_secs(10), request)
        .await
        .expect("answered within 10 s")
        .unwrap();
    assert_eq!(answer.status, 503, "{answer:?}");
    assert_eq!(answer.content_type, "application/json");
    assert_eq!(
        answer.json(),
        json!({"message": "the server is shutting down"})
    );
    let status = server.exit(Duration::from_secs(10)).await;
    assert!(status.success(), "{status}");
    let elapsed = signalled.elapsed();
    assert!(
        elapsed >= Duration::from_millis(300) && elapsed < Duration::from_secs(5),
        "stopped {elapsed:?} after SIGTERM"
    );

    let log = server.log();
    // The answer carries the id of its `request_rejected` record.
    let rejected = log.of(&answer.id);
    assert_eq!(steps(&rejected), ["request_rejected"]);
    assert_eq!(rejected[0]["status"], 503);
    assert_eq!(rejected[0]["level"], "ERROR");
    assert_eq!(rejected[0]["error"], "the server is shutting down");
    assert_eq!(rejected[0]["path"], NOTICE_URL);
    // It names the call, as the invocation it cut short does.
    assert_eq!(rejected[0]["call_sid"], NOTICE_CALL);

    // The invocation itself is closed as cancelled.
    let starts = log.all("start");
    assert_eq!(starts.len(), 1);
    assert_eq!(starts[0]["call_sid"], NOTICE_CALL);
    let invocation = log.of(starts[0]["invocation_id"].as_str().unwrap());
    assert_in_order(
        &invocation,
        &["start", "api_request", "error", "metrics", "end"],
    );
    none_of(
        &invocation,
        &["api_response", "email_request", "email_result", "success"],
    );
    let error = only(&invocation, "error");
    assert_eq!(error["kind"], "cancelled");
    assert_eq!(
        error["error"],
        "invocation cancelled before it completed: the client went away or the server stopped"
    );
    assert_eq!(only(&invocation, "end")["outcome"], "error");

    assert!(
        log.runtime().ends_with(&[
            "shutting down: finishing in-flight invocations",
            "shutdown grace of 300 ms expired: in-flight invocations were cancelled",
            "stopped"
        ]),
        "{:?}",
        log.runtime()
    );
    // In order: the invocation's end, its rejection, the grace's record.
    let at = |pred: &dyn Fn(&Value) -> bool| log.records.iter().position(pred).unwrap();
    let end = at(&|r| r["step"] == "end");
    let rejection = at(&|r| r["step"] == "request_rejected");
    let expired = at(&|r| {
        r["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("shutdown grace"))
    });
    assert!(end < rejection && rejection < expired);
    insta::assert_snapshot!("sigterm_past_the_grace", log.snapshot(&server.dir));
    drop(recordings);
}

#[tokio::test]
async fn requests_for_no_function_or_with_a_forged_signature_are_rejected() {
    let server = Server::start(&[("AUTH_TOKEN", "canary-faults-auth-token-77b1")]).await;
    let nowhere = post(
        &server.url("/features/wait-experience"),
        FORM,
        "CallSid=CA1",
    )
    .await;
    assert_eq!(nowhere.status, 404, "{nowhere:?}");
    let forged = reqwest::Client::new()
        .post(server.url(WAIT_URL))
        .header("content-type", FORM)
        .header("x-twilio-signature", "AAAAAAAAAAAAAAAAAAAAAAAAAAA=")
        .body("CallSid=CA0123456789abcdef0123456789abcdef&From=%2B15551230000&To=%2B15559870000")
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 403);
    let dir = server.dir.clone();
    let log = server.stop().await;
    assert_eq!(log.all("request_rejected").len(), 2);
    assert!(log.all("start").is_empty(), "an invocation started");
    log.assert_no_secret("canary-faults-auth-token-77b1");
    insta::assert_snapshot!("rejected", log.snapshot(&dir));
}
