//! The runtime over real HTTP on loopback: every status code, parameter
//! merging and decoding, signatures, the catalogue, shutdown with an
//! invocation in flight, and exactly one `start` and `end` per request.

use std::collections::HashMap;
use std::time::Duration;

use crate::common::logs;
use ccfn_core::prelude::*;
use ccfn_core::runtime::{Feature, Mode, Runtime, RuntimeConfig};
use ccfn_core::signature;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// The records of one invocation, each checked against the record
/// catalogue.
fn records_of(id: &str) -> Vec<Value> {
    let records: Vec<Value> = logs()
        .contents()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("every line is JSON"))
        .filter(|record| record["invocation_id"] == id)
        .collect();
    for record in &records {
        let problems = ccfn_core::record::violations(record.as_object().unwrap());
        assert!(problems.is_empty(), "{problems:?} in {record}");
    }
    records
}

#[tokio::test]
async fn every_line_of_the_runtime_is_a_catalogued_record() {
    let server = Server::local().await;
    let _ = post(&server.url("/features/test/nothing"), FORM, VOICE).await;
    let _ = post(&server.url("/features/test/echo"), FORM, VOICE).await;
    server.stop().await.unwrap();
    // Whatever the other tests of this file wrote so far too: rejections,
    // invocations, the runtime's own records.
    let lines = logs().contents();
    let mut steps = std::collections::BTreeSet::new();
    for line in lines.lines() {
        let record: Value = serde_json::from_str(line).expect("every line is JSON");
        let problems = ccfn_core::record::violations(record.as_object().unwrap());
        assert!(problems.is_empty(), "{problems:?} in {line}");
        steps.insert(record["step"].as_str().unwrap().to_owned());
    }
    for step in ["request_rejected", "runtime", "start", "end"] {
        assert!(steps.contains(step), "no `{step}` record seen: {steps:?}");
    }
}

fn steps_of(id: &str) -> Vec<String> {
    records_of(id)
        .iter()
        .map(|r| r["step"].as_str().unwrap().to_owned())
        .collect()
}

/// The steps without alerts (the error rate is shared by every test).
fn contract_steps_of(id: &str) -> Vec<String> {
    steps_of(id).into_iter().filter(|s| s != "alert").collect()
}

/// Answers with its parameters and headers.
///
/// # Trigger
/// Test.
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = ["Name"], kind = generic)]
async fn echo(_context: Context, event: Event, callback: Callback) -> Completion {
    let headers: HashMap<&str, &str> = event.headers().collect();
    callback.success(json!({ "params": event, "headers": headers }))
}

/// Answers the caller.
///
/// # Trigger
/// Test.
/// # Optional parameters
/// then (`fail`, `panic`, `sleep`, ..): what to do
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn voice(_context: Context, event: Event, callback: Callback) -> Completion {
    match event.get("then") {
        Some("fail") => callback.error(Error::msg("the queue is closed")),
        Some("panic") => panic!("no such queue"),
        Some("sleep") => {
            tokio::time::sleep(Duration::from_millis(300)).await;
            callback.success(
                ccfn_core::reply::HttpReply::new(202)
                    .header("x-slept", "300")
                    .body("slept"),
            )
        }
        Some("hang") => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            callback.success("never")
        }
        _ => {
            let mut twiml = VoiceResponse::new();
            twiml.say("Please hold.");
            callback.success(twiml)
        }
    }
}

/// Never finishes in time.
///
/// # Trigger
/// Test.
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To], timeout_ms = 100)]
async fn hangs(_context: Context, _event: Event, callback: Callback) -> Completion {
    tokio::time::sleep(Duration::from_secs(3600)).await;
    callback.success("never")
}

/// Needs configuration.
///
/// # Trigger
/// Test.
/// # Dependencies
/// Task router.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = ["workflowSid", PLATFORM_WORKSPACE_SID])]
async fn configured(_context: Context, _event: Event, callback: Callback) -> Completion {
    callback.success("ok")
}

const TOKEN: &str = "canary-auth-token-7e51";

/// Fails with a message that quotes a secret.
///
/// # Trigger: test
/// # Dependencies: none
/// # Critical logging: none
/// # Contacts: oncall@example.com
#[contact_fn(required = ["Name"], kind = generic)]
async fn quotes_a_secret(context: Context, event: Event, callback: Callback) -> Completion {
    let key = context.secret("API_KEY").unwrap().expose().to_owned();
    if event.get("Name") == Some("panic") {
        panic!("cannot use key {key}");
    }
    callback.error(Error::msg(format!("provider refused key {key}")))
}

#[tokio::test]
async fn error_responses_never_carry_a_secret() {
    logs();
    let context = Context::builder()
        .secret("API_KEY", "response-canary-5521")
        .build();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let runtime = Runtime::new(context, config())
        .feature(Feature::new("test").public_function("quotes", quotes_a_secret));
    let (stop, stopped) = oneshot::channel::<()>();
    let done = tokio::spawn(runtime.serve_with(listener, async {
        let _ = stopped.await;
    }));
    for name in ["error", "panic"] {
        let response = post(
            &format!("{base}/features/test/quotes"),
            FORM,
            format!("Name={name}"),
        )
        .await;
        assert_eq!(response.status(), 500);
        let body = response.text().await.unwrap();
        assert!(!body.contains("response-canary-5521"), "{body}");
        if name == "error" {
            assert!(body.contains("[REDACTED]"), "{body}");
        } else {
            // A panic's text is never the caller's to see.
            assert_eq!(body, r#"{"message":"function panicked"}"#);
        }
    }
    let _ = stop.send(());
    done.await.unwrap().unwrap();
}

struct Server {
    base: String,
    stop: Option<oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<Result<(), Error>>,
}

impl Server {
    async fn start(context: Context, config: RuntimeConfig) -> Server {
        logs();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let runtime = Runtime::new(context, config).feature(
            Feature::new("test")
                .public_function("echo", echo)
                .public_function("studio/voice", voice)
                .public_function("hangs", hangs)
                .function("signed", voice),
        );
        let (stop, stopped) = oneshot::channel::<()>();
        let done = tokio::spawn(runtime.serve_with(listener, async {
            let _ = stopped.await;
        }));
        Server {
            base,
            stop: Some(stop),
            done,
        }
    }

    async fn local() -> Server {
        Server::start(Context::builder().build(), config()).await
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn stop(mut self) -> Result<(), Error> {
        let _ = self.stop.take().unwrap().send(());
        self.done.await.unwrap()
    }
}

fn config() -> RuntimeConfig {
    let mut config = RuntimeConfig::default();
    config.shutdown_grace = Duration::from_secs(5);
    config
}

const FORM: &str = "application/x-www-form-urlencoded";
const VOICE: &str = "CallSid=CA123&From=%2B15551230000&To=%2B15559870000";

/// A plain HTTP client (ccfn builds reqwest without a default TLS provider).
fn client() -> reqwest::Client {
    ccfn_core::http::install_crypto_provider();
    reqwest::Client::new()
}

async fn get(url: impl reqwest::IntoUrl) -> reqwest::Result<reqwest::Response> {
    client().get(url).send().await
}

async fn post(url: &str, content_type: &str, body: impl Into<reqwest::Body>) -> reqwest::Response {
    client()
        .post(url)
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap()
}

fn id(response: &reqwest::Response) -> String {
    response.headers()["x-ccfn-invocation-id"]
        .to_str()
        .unwrap()
        .to_owned()
}

async fn json_body(response: reqwest::Response) -> Value {
    response.json().await.unwrap()
}

#[tokio::test]
async fn voice_response_is_200_text_xml() {
    let server = Server::local().await;
    let response = post(&server.url("/features/test/studio/voice"), FORM, VOICE).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/xml");
    let id = id(&response);
    assert_eq!(
        response.text().await.unwrap(),
        r#"<?xml version="1.0" encoding="UTF-8"?><Response><Say>Please hold.</Say></Response>"#
    );
    let records = records_of(&id);
    assert_eq!(
        records[0]["event"]["From"], "+15551230000",
        "%2B decoded once"
    );
    assert_eq!(records[0]["domain"], "127.0.0.1:3001");
    assert_eq!(steps_of(&id).last().unwrap(), "end");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn missing_parameter_is_400_with_the_exact_message() {
    let server = Server::local().await;
    let response = post(
        &server.url("/features/test/studio/voice"),
        FORM,
        "CallSid=CA123&From=%2B15551230000",
    )
    .await;
    assert_eq!(response.status(), 400);
    assert_eq!(response.headers()["content-type"], "application/json");
    let id = id(&response);
    assert_eq!(
        response.text().await.unwrap(),
        r#"{"message":"Missing required parameter: To"}"#
    );
    assert_eq!(
        contract_steps_of(&id),
        ["start", "validation", "validation_error", "metrics", "end"]
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn error_panic_and_timeout_statuses() {
    let server = Server::local().await;
    let fail = post(
        &server.url("/features/test/studio/voice"),
        FORM,
        format!("{VOICE}&then=fail"),
    )
    .await;
    assert_eq!(fail.status(), 500);
    assert_eq!(
        json_body(fail).await,
        json!({"message": "the queue is closed"})
    );

    let panic = post(
        &server.url("/features/test/studio/voice"),
        FORM,
        format!("{VOICE}&then=panic"),
    )
    .await;
    assert_eq!(panic.status(), 500);
    let panic_id = id(&panic);
    assert_eq!(
        json_body(panic).await,
        json!({"message": "function panicked"}),
        "the panic's text stays in the error record"
    );
    assert!(contract_steps_of(&panic_id).ends_with(&[
        "error".into(),
        "metrics".into(),
        "end".into()
    ]));

    let timeout = post(&server.url("/features/test/hangs"), FORM, VOICE).await;
    assert_eq!(timeout.status(), 504);
    let timeout_id = id(&timeout);
    assert_eq!(
        json_body(timeout).await,
        json!({"message": "Function timed out after 100 ms"})
    );
    assert!(contract_steps_of(&timeout_id).ends_with(&[
        "error".into(),
        "metrics".into(),
        "end".into()
    ]));

    // The server is still up after all that.
    let ok = post(&server.url("/features/test/studio/voice"), FORM, VOICE).await;
    assert_eq!(ok.status(), 200);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn custom_response_keeps_status_headers_and_body() {
    let server = Server::local().await;
    let response = post(
        &server.url("/features/test/studio/voice"),
        FORM,
        format!("{VOICE}&then=sleep"),
    )
    .await;
    assert_eq!(response.status(), 202);
    assert_eq!(response.headers()["x-slept"], "300");
    assert!(response.headers().contains_key("x-ccfn-invocation-id"));
    assert_eq!(response.text().await.unwrap(), "slept");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn parameters_merge_body_over_query_and_keep_repeated_keys() {
    let server = Server::local().await;
    let response = post(
        &server.url("/features/test/echo?Name=query&mode=debug&Tag=q"),
        FORM,
        "Name=body&Tag=a&Tag=b&Plus=%2B1+2&Empty=",
    )
    .await;
    assert_eq!(response.status(), 200);
    let id = id(&response);
    let body = json_body(response).await;
    assert_eq!(
        body["params"],
        json!({"Name": "body", "Tag": ["a", "b"], "Plus": "+1 2", "Empty": "", "mode": "debug"})
    );
    assert!(
        steps_of(&id).contains(&"debug".to_owned()),
        "mode=debug from the query"
    );

    let json = post(
        &server.url("/features/test/echo?Name=query&Extra=1"),
        "application/json; charset=utf-8",
        r#"{"Name": "json", "Count": 2}"#,
    )
    .await;
    assert_eq!(json.status(), 200);
    assert_eq!(
        json_body(json).await["params"],
        json!({"Name": "json", "Count": "2", "Extra": "1"})
    );

    // A body that is not UTF-8 as sent (a character split by an escape),
    // which is once decoded; the query string after it.
    let split = post(
        &server.url("/features/test/echo?Extra=q%20x&Plain=p&Raw=query"),
        FORM,
        &b"Name=%C3%A9t%C3%A9&Raw=\xc3%A9&Tag=t"[..],
    )
    .await;
    assert_eq!(split.status(), 200);
    assert_eq!(
        json_body(split).await["params"],
        json!({"Name": "été", "Raw": "é", "Tag": "t", "Extra": "q x", "Plain": "p"})
    );

    let get = get(server.url("/features/test/echo?Name=get"))
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
    assert_eq!(json_body(get).await["params"], json!({"Name": "get"}));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn headers_reach_the_function_without_hop_by_hop_ones() {
    let server = Server::local().await;
    let response = client()
        .post(server.url("/features/test/echo"))
        .header("content-type", FORM)
        .header("x-request-id", "r-1")
        .header("x-forwarded-for", "10.0.0.1")
        .header("proxy-authorization", "Basic Zm9v")
        .body("Name=h")
        .send()
        .await
        .unwrap();
    let headers = json_body(response).await["headers"].clone();
    assert_eq!(headers["x-request-id"], "r-1");
    assert!(headers.get("x-forwarded-for").is_none());
    assert!(headers.get("proxy-authorization").is_none());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn head_answers_200_without_invoking() {
    let server = Server::local().await;
    let response = client()
        .head(server.url("/features/test/studio/voice"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let id = id(&response);
    assert!(records_of(&id).is_empty(), "HEAD invokes nothing");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn rejected_requests() {
    let server = Server::local().await;
    let unknown = post(&server.url("/features/test/nothing"), FORM, VOICE).await;
    assert_eq!(unknown.status(), 404);
    let unknown_id = id(&unknown);
    assert_eq!(
        json_body(unknown).await,
        json!({"message": "no function at /features/test/nothing"})
    );
    assert_eq!(steps_of(&unknown_id), ["request_rejected"]);

    let put = client()
        .put(server.url("/features/test/studio/voice"))
        .send()
        .await
        .unwrap();
    // Every answer carries an invocation id, rejections too.
    assert!(put.headers().contains_key("x-ccfn-invocation-id"));
    assert_eq!(put.status(), 405);
    assert_eq!(put.headers()["allow"], "GET, HEAD, POST");

    let xml = post(
        &server.url("/features/test/studio/voice"),
        "text/xml",
        "<a/>",
    )
    .await;
    assert!(xml.headers().contains_key("x-ccfn-invocation-id"));
    assert_eq!(xml.status(), 415);
    assert_eq!(
        json_body(xml).await,
        json!({"message": "unsupported content type `text/xml`: send application/x-www-form-urlencoded or application/json"})
    );

    let big = post(
        &server.url("/features/test/echo"),
        FORM,
        vec![b'a'; 1024 * 1024 + 1],
    )
    .await;
    assert!(big.headers().contains_key("x-ccfn-invocation-id"));
    assert_eq!(big.status(), 413);
    assert_eq!(
        json_body(big).await,
        json!({"message": "the request body is larger than the 1048576 bytes allowed"})
    );

    let escape = post(&server.url("/features/test/echo"), FORM, "Name=%2").await;
    assert!(escape.headers().contains_key("x-ccfn-invocation-id"));
    assert_eq!(escape.status(), 400);
    assert_eq!(
        json_body(escape).await,
        json!({"message": "malformed request: body: parameter `Name` has a malformed percent escape `%2` (expected `%` and two hexadecimal digits)"})
    );

    let bytes = post(
        &server.url("/features/test/echo"),
        FORM,
        b"Name=\xff\xfe".to_vec(),
    )
    .await;
    assert!(bytes.headers().contains_key("x-ccfn-invocation-id"));
    assert_eq!(bytes.status(), 400);
    assert_eq!(
        json_body(bytes).await,
        json!({"message": "malformed request: body: parameter `Name` has bytes that are not UTF-8"})
    );

    let json = post(
        &server.url("/features/test/echo"),
        "application/json",
        "[1,2]",
    )
    .await;
    assert!(json.headers().contains_key("x-ccfn-invocation-id"));
    assert_eq!(json.status(), 400);
    assert_eq!(
        json_body(json).await,
        json!({"message": "malformed request: the JSON body must be an object of parameters"})
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn signatures_guard_protected_functions() {
    let context = Context::builder().secret("AUTH_TOKEN", TOKEN).build();
    let mut config = config();
    config.public_url = Some("https://functions.example.com".into());
    let server = Server::start(context, config).await;
    let url = server.url("/features/test/signed");
    let signed_url = "https://functions.example.com/features/test/signed";
    let params = [
        ("CallSid", "CA123"),
        ("From", "+15551230000"),
        ("To", "+15559870000"),
    ];
    let good = signature::compute_signature(TOKEN, signed_url, &params);
    let send = |signature: Option<String>, body: &'static str| {
        let mut request = client().post(&url).header("content-type", FORM).body(body);
        if let Some(signature) = signature {
            request = request.header("x-twilio-signature", signature);
        }
        request.send()
    };
    let ok = send(Some(good.clone()), VOICE).await.unwrap();
    assert_eq!(ok.status(), 200);

    let tampered = send(
        Some(good.clone()),
        "CallSid=CA123&From=%2B15551230001&To=%2B15559870000",
    )
    .await
    .unwrap();
    assert_eq!(tampered.status(), 403);
    let tampered_id = id(&tampered);
    assert_eq!(
        json_body(tampered).await,
        json!({"message": "X-Twilio-Signature does not match the request: check the auth token and the public URL the platform calls"})
    );
    let record = &records_of(&tampered_id)[0];
    assert_eq!(record["step"], "request_rejected");
    assert_eq!(record["status"], 403);

    let missing = send(None, VOICE).await.unwrap();
    assert_eq!(missing.status(), 403);
    assert_eq!(
        json_body(missing).await,
        json!({"message": "missing X-Twilio-Signature header"})
    );

    // Public functions need no signature.
    let public = post(&server.url("/features/test/studio/voice"), FORM, VOICE).await;
    assert_eq!(public.status(), 200);
    server.stop().await.unwrap();

    let all = logs().contents();
    assert!(
        !all.contains(TOKEN),
        "the auth token never reaches a log line"
    );
}

#[tokio::test]
async fn catalogue_lists_every_function() {
    let server = Server::local().await;
    let response = get(server.url("/__ccfn/functions")).await.unwrap();
    // docs/runtime.md, "The invocation id": the catalogue's answer has one.
    assert_eq!(id(&response).len(), 24);
    let catalogue = json_body(response).await;
    let paths: Vec<&str> = catalogue
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["url_path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "/features/test/echo",
            "/features/test/studio/voice",
            "/features/test/hangs",
            "/features/test/signed"
        ]
    );
    let entry = &catalogue[1];
    assert_eq!(entry["public"], true);
    assert_eq!(entry["meta"]["name"], "voice");
    assert_eq!(entry["meta"]["required"], json!(["CallSid", "From", "To"]));
    assert_eq!(entry["meta"]["kind"], "voice");
    assert_eq!(entry["meta"]["contacts"], "oncall@example.com");
    assert_eq!(catalogue[3]["public"], false);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn shutdown_finishes_the_invocation_in_flight() {
    let server = Server::local().await;
    let url = server.url("/features/test/studio/voice");
    let body = "CallSid=CAinflightatshutdown&From=%2B1&To=%2B2&then=sleep";
    let in_flight = tokio::spawn(async move { post(&url, FORM, body).await });
    started("CAinflightatshutdown").await;
    let base = server.base.clone();
    server.stop().await.unwrap();
    let response = in_flight.await.unwrap();
    assert_eq!(response.status(), 202);
    let id = id(&response);
    assert_eq!(steps_of(&id).last().unwrap(), "end");
    assert!(
        get(format!("{base}/__ccfn/functions")).await.is_err(),
        "no longer accepting"
    );
}

/// Waits (at most 10 s) until an invocation of `call_sid` has written its
/// `start` record: a fixed sleep is too short on a loaded machine.
async fn started(call_sid: &str) {
    for _ in 0..1000 {
        if records_of_call(call_sid)
            .iter()
            .any(|r| r["step"] == "start")
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no invocation of {call_sid} started within 10 s");
}

/// The records of the invocations of `call_sid`.
fn records_of_call(call_sid: &str) -> Vec<Value> {
    logs()
        .contents()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|record| record["call_sid"] == call_sid)
        .collect()
}

fn assert_closed_as_cancelled(call_sid: &str) {
    let records = records_of_call(call_sid);
    let steps: Vec<&str> = records
        .iter()
        .map(|r| r["step"].as_str().unwrap())
        .filter(|s| *s != "alert")
        .collect();
    assert_eq!(
        steps,
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
        ],
        "{records:#?}"
    );
    let error = records.iter().find(|r| r["step"] == "error").unwrap();
    assert_eq!(error["kind"], "cancelled");
    assert_eq!(records.last().unwrap()["outcome"], "error");
}

#[tokio::test]
async fn shutdown_grace_bounds_a_stuck_invocation_and_still_closes_it() {
    let mut config = config();
    config.shutdown_grace = Duration::from_millis(200);
    let server = Server::start(Context::builder().build(), config).await;
    let url = server.url("/features/test/studio/voice");
    let body = "CallSid=CAstuckatshutdown&From=%2B1&To=%2B2&then=hang";
    let stuck = tokio::spawn(async move { post(&url, FORM, body).await });
    started("CAstuckatshutdown").await;
    let stopped = tokio::time::timeout(Duration::from_secs(5), server.stop()).await;
    assert!(matches!(stopped, Ok(Ok(()))), "stops within the grace");
    stuck.abort();
    assert_closed_as_cancelled("CAstuckatshutdown");
}

#[tokio::test]
async fn a_client_that_goes_away_does_not_lose_the_end_record() {
    let server = Server::local().await;
    let client = {
        ccfn_core::http::install_crypto_provider();
        reqwest::Client::builder()
    }
    .timeout(Duration::from_millis(150))
    .build()
    .unwrap();
    let gone = client
        .post(server.url("/features/test/studio/voice"))
        .header("content-type", FORM)
        .body("CallSid=CAclientwentaway&From=%2B1&To=%2B2&then=hang")
        .send()
        .await;
    assert!(gone.is_err(), "the client gave up");
    // The server notices the closed connection and drops the invocation.
    let mut closed = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        if records_of_call("CAclientwentaway")
            .iter()
            .any(|r| r["step"] == "end")
        {
            closed = true;
            break;
        }
    }
    assert!(closed, "no end record for the dropped invocation");
    assert_closed_as_cancelled("CAclientwentaway");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn catalogue_is_off_in_production_unless_asked_for() {
    let mut production = config();
    production.mode = Mode::Production;
    assert!(
        !production.serves_catalogue(),
        "off in production by default"
    );
    let context = Context::builder().secret("AUTH_TOKEN", TOKEN).build();
    let server = Server::start(context, production).await;
    let response = get(server.url("/__ccfn/functions")).await.unwrap();
    assert_eq!(response.status(), 404);
    server.stop().await.unwrap();

    let mut asked = config();
    asked.mode = Mode::Production;
    asked.catalogue = Some(true);
    let context = Context::builder().secret("AUTH_TOKEN", TOKEN).build();
    let server = Server::start(context, asked).await;
    let response = get(server.url("/__ccfn/functions")).await.unwrap();
    assert_eq!(
        response.status(),
        200,
        "CCFN_CATALOGUE=on serves it in production"
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn one_start_and_one_end_per_request_under_200_concurrent_requests() {
    let server = Server::local().await;
    let client = client();
    let requests = (0..200).map(|n| {
        let client = client.clone();
        let url = server.url("/features/test/studio/voice");
        async move {
            let body = if n % 10 == 0 {
                "CallSid=CA1".to_owned()
            } else {
                format!("{VOICE}&n={n}")
            };
            let response = client
                .post(url)
                .header("content-type", FORM)
                .body(body)
                .send()
                .await
                .unwrap();
            (response.status().as_u16(), id(&response))
        }
    });
    let answers = futures_util::future::join_all(requests).await;
    assert_eq!(
        answers.iter().filter(|(status, _)| *status == 200).count(),
        180
    );
    assert_eq!(
        answers.iter().filter(|(status, _)| *status == 400).count(),
        20
    );
    let mut by_id: HashMap<String, Vec<String>> = HashMap::new();
    for line in logs().contents().lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        if let (Some(id), Some(step)) = (record["invocation_id"].as_str(), record["step"].as_str())
        {
            by_id
                .entry(id.to_owned())
                .or_default()
                .push(step.to_owned());
        }
    }
    for (_, id) in &answers {
        let steps = &by_id[id];
        assert_eq!(
            steps.iter().filter(|s| *s == "start").count(),
            1,
            "{id}: {steps:?}"
        );
        assert_eq!(
            steps.iter().filter(|s| *s == "end").count(),
            1,
            "{id}: {steps:?}"
        );
        assert_eq!(steps.first().map(String::as_str), Some("start"));
        assert_eq!(steps.last().map(String::as_str), Some("end"));
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn start_up_checks_name_every_problem() {
    let runtime = Runtime::new(Context::builder().build(), config()).feature(
        Feature::new("test")
            .function("configured", configured)
            .function("configured", configured)
            .function("bad path//x", configured),
    );
    let message = runtime.check().unwrap_err().to_string();
    assert!(
        message.starts_with("cannot start the runtime:"),
        "{message}"
    );
    for expected in [
        "Missing required environment variable: workflowSid (required by `configured` at /features/test/configured)",
        "Missing required environment variable: PLATFORM_WORKSPACE_SID (required by `configured` at /features/test/configured)",
        "`/features/test/configured` is registered twice (`configured` and `configured`)",
        "function path `bad path//x` is not valid",
    ] {
        assert!(message.contains(expected), "{expected}\nnot in\n{message}");
    }

    let mut production = config();
    production.mode = Mode::Production;
    let context = Context::builder()
        .value("workflowSid", "WW1")
        .value("PLATFORM_WORKSPACE_SID", "WS1")
        .build();
    let runtime = Runtime::new(context.clone(), production.clone())
        .feature(Feature::new("test").function("configured", configured));
    let message = runtime.check().unwrap_err().to_string();
    assert!(
        message.contains("AUTH_TOKEN is not set: production mode needs the account's auth token"),
        "{message}"
    );

    let public = Runtime::new(context, production)
        .feature(Feature::new("test").public_function("configured", configured));
    assert!(
        public.check().is_ok(),
        "public functions need no auth token"
    );

    let mut unusable = config();
    unusable.max_connections = 0;
    unusable.header_timeout = Duration::ZERO;
    let message = Runtime::new(Context::builder().build(), unusable)
        .check()
        .unwrap_err()
        .to_string();
    for expected in [
        "max_connections is 0: no connection could be served",
        "header_timeout is 0: every connection would be closed before its request",
    ] {
        assert!(message.contains(expected), "{expected}\nnot in\n{message}");
    }
}

#[tokio::test]
async fn start_up_stops_without_ca_certificates_and_says_what_to_install() {
    // A system store with nothing in it, as an image without
    // `ca-certificates` has, when only the system's may be trusted.
    let empty = std::env::temp_dir().join(format!("ccfn-runtime-no-ca-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let empty = empty.to_str().unwrap().to_owned();
    let context = |roots: &str| {
        Context::builder()
            .value("workflowSid", "WW1")
            .value("PLATFORM_WORKSPACE_SID", "WS1")
            .value("CCFN_TLS_ROOTS", roots)
            .value("SSL_CERT_DIR", &empty)
            .build()
    };
    let runtime = Runtime::new(context("system"), config())
        .feature(Feature::new("test").function("configured", configured));
    let message = runtime.check().unwrap_err().to_string();
    assert!(
        message.starts_with("cannot start the runtime:\n  no CA certificates to verify HTTPS servers with: SSL_CERT_DIR=")
            && message.contains("install the CA certificates (`apt-get install ca-certificates` on Debian and Ubuntu"),
        "{message}"
    );
    // The default, `auto`: the built-in roots, and the start goes on.
    let runtime = Runtime::new(context("auto"), config())
        .feature(Feature::new("test").function("configured", configured));
    assert!(runtime.check().is_ok());
}

#[tokio::test]
async fn headers_that_never_finish_arriving_close_the_connection() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut config = config();
    config.header_timeout = Duration::from_millis(200);
    let server = Server::start(Context::builder().build(), config).await;
    let addr = &server.base[7..];

    // A byte at a time, never the blank line that ends the headers.
    let mut slow = tokio::net::TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"POST /features/test/echo HTTP/1.1\r\nhost: x\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            // The server may close while this client still writes.
            let _ = slow.write_all(b"x").await;
            let mut byte = [0; 512];
            match tokio::time::timeout(Duration::from_millis(50), slow.read(&mut byte)).await {
                Ok(Ok(0) | Err(_)) => return,
                Ok(Ok(read)) => answer.extend_from_slice(&byte[..read]),
                Err(_) => {}
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the connection is still open");
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );

    // A connection that sends nothing is closed too.
    let mut silent = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut byte = [0; 1];
    let read = tokio::time::timeout(Duration::from_secs(5), silent.read(&mut byte))
        .await
        .expect("closed within the header timeout");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");

    // Requests that arrive in time are served as ever.
    let response = post(&server.url("/features/test/echo"), FORM, "Name=x").await;
    assert_eq!(response.status(), 200);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn connections_past_the_cap_wait_for_one_to_close() {
    let mut config = config();
    config.max_connections = 2;
    config.header_timeout = Duration::from_secs(60);
    let server = Server::start(Context::builder().build(), config).await;
    let addr = &server.base[7..];

    // Two connections that hold their places and send nothing.
    let first = tokio::net::TcpStream::connect(addr).await.unwrap();
    let _second = tokio::net::TcpStream::connect(addr).await.unwrap();
    let url = server.url("/features/test/echo");
    let mut third = tokio::spawn(async move { post(&url, FORM, "Name=third").await });
    assert!(
        tokio::time::timeout(Duration::from_millis(300), &mut third)
            .await
            .is_err(),
        "a third connection was served while two were open"
    );

    drop(first);
    let response = tokio::time::timeout(Duration::from_secs(10), third)
        .await
        .expect("served once a connection closed")
        .unwrap();
    assert_eq!(response.status(), 200);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn hostile_requests_are_bounded() {
    let mut config = config();
    config.max_params = 50;
    config.body_timeout = Duration::from_millis(200);
    let server = Server::start(Context::builder().build(), config).await;

    let many: String = (0..60).map(|n| format!("k{n}=v&")).collect();
    let response = post(
        &server.url("/features/test/echo"),
        FORM,
        format!("Name=x&{many}"),
    )
    .await;
    assert_eq!(response.status(), 413);
    assert_eq!(
        json_body(response).await,
        json!({"message": "the request has 61 parameters, over the 50 allowed"})
    );

    // A body that never finishes arriving.
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut stream = tokio::net::TcpStream::connect(&server.base[7..])
        .await
        .unwrap();
    stream
        .write_all(b"POST /features/test/echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: 100\r\n\r\nName=slow")
        .await
        .unwrap();
    let mut answer = vec![0; 4096];
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer))
        .await
        .expect("answered within the body timeout")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer[..read]);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("did not arrive within 200 ms"), "{answer}");

    // JSON numbers and booleans are text, objects are no value.
    let numbers = post(
        &server.url("/features/test/studio/voice"),
        "application/json",
        r#"{"CallSid": 123, "From": 15551230000, "To": true}"#,
    )
    .await;
    assert_eq!(numbers.status(), 200);
    let id = id(&numbers);
    let caller = records_of(&id)
        .into_iter()
        .find(|r| r["step"] == "caller")
        .unwrap();
    assert_eq!(caller["from"], "15551230000");
    let objects = post(
        &server.url("/features/test/studio/voice"),
        "application/json",
        r#"{"CallSid": {"a": [1]}, "From": "+1", "To": "+2"}"#,
    )
    .await;
    assert_eq!(objects.status(), 400);
    assert_eq!(
        json_body(objects).await,
        json!({"message": "Missing required parameter: CallSid"})
    );

    // Every response carries an invocation id, the catalogue's too.
    let catalogue = get(server.url("/__ccfn/functions")).await.unwrap();
    assert!(catalogue.headers().contains_key("x-ccfn-invocation-id"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn signatures_behind_a_proxy_chain() {
    let context = Context::builder().secret("AUTH_TOKEN", TOKEN).build();
    let server = Server::start(context, config()).await;
    let host = &server.base[7..];
    let signed_url = format!("https://{host}/features/test/signed");
    let params = [
        ("CallSid", "CA123"),
        ("From", "+15551230000"),
        ("To", "+15559870000"),
    ];
    let signature = signature::compute_signature(TOKEN, &signed_url, &params);
    let response = client()
        .post(server.url("/features/test/signed"))
        .header("content-type", FORM)
        .header("x-forwarded-proto", "HTTPS, http")
        .header("x-twilio-signature", signature)
        .body(VOICE)
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        200,
        "the first, client-side, scheme is used"
    );
    server.stop().await.unwrap();
}

/// Sends `request` as written on a fresh connection and returns the
/// answer's status line and body.
async fn raw(server: &Server, request: &[u8]) -> (String, String) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut stream = tokio::net::TcpStream::connect(&server.base[7..])
        .await
        .unwrap();
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer.lines().next().unwrap_or_default().to_owned();
    let body = answer
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    (status, body)
}

#[tokio::test]
async fn host_must_be_one_valid_header() {
    let server = Server::local().await;
    let body = "CallSid=CA1&From=%2B1&To=%2B2";
    let request = |hosts: &str, version: &str| {
        format!(
            "POST /features/test/studio/voice HTTP/{version}\r\n{hosts}content-type: application/x-www-form-urlencoded\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    for (hosts, message) in [
        ("", "the request has no Host header: HTTP/1.1 requires one"),
        (
            "host: a.example\r\nhost: b.example\r\n",
            "the request has more than one Host header: send exactly one",
        ),
        (
            "host: user@a.example\r\n",
            "the Host header is not a host name with an optional port",
        ),
        (
            "host: a.example:\r\n",
            "the Host header is not a host name with an optional port",
        ),
    ] {
        let (status, answer) = raw(&server, request(hosts, "1.1").as_bytes()).await;
        assert!(status.starts_with("HTTP/1.1 400"), "{hosts:?}: {status}");
        assert_eq!(
            answer,
            json!({ "message": message }).to_string(),
            "{hosts:?}"
        );
        let rejected = logs()
            .contents()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .any(|r| r["step"] == "request_rejected" && r["error"] == message);
        assert!(rejected, "no request_rejected record for {hosts:?}");
    }
    // One Host, with or without a port, and HTTP/1.0 without one, are fine.
    for (hosts, version) in [
        ("host: a.example\r\n", "1.1"),
        ("host: [::1]:3001\r\n", "1.1"),
        ("", "1.0"),
    ] {
        let (status, _) = raw(&server, request(hosts, version).as_bytes()).await;
        assert!(status.contains(" 200 "), "{hosts:?} {version}: {status}");
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn request_text_is_never_echoed_whole_or_with_a_secret() {
    let context = Context::builder()
        .secret("AUTH_TOKEN", "echo-canary-auth-token-5e1")
        .build();
    let mut config = config();
    config.header_timeout = Duration::from_secs(5);
    let server = Server::start(context, config).await;
    let huge = "x".repeat(100 * 1024);
    let cases = [
        // A token in the media type's parameters.
        format!("text/plain; access_token=echo-canary-access-77f; q={huge}"),
        // A secret as the media type itself, and a huge one.
        "text/echo-canary-auth-token-5e1".to_owned(),
        format!("text/{huge}"),
    ];
    for content_type in &cases {
        let response = post(
            &server.url("/features/test/studio/voice"),
            content_type,
            "a=1",
        )
        .await;
        assert_eq!(response.status(), 415);
        let id = id(&response);
        let message = json_body(response).await["message"]
            .as_str()
            .unwrap()
            .to_owned();
        let records = records_of(&id);
        assert_eq!(records.len(), 1);
        for text in [&message, &records[0].to_string()] {
            assert!(!text.contains("echo-canary"), "{text}");
            assert!(text.len() < 1024, "{} bytes echoed", text.len());
        }
    }
    let first = post(&server.url("/features/test/studio/voice"), &cases[0], "a=1").await;
    assert_eq!(
        json_body(first).await,
        json!({"message": "unsupported content type `text/plain`: send application/x-www-form-urlencoded or application/json"})
    );
    // A long path and a long parameter name are cut with an ellipsis.
    let path = format!("/features/{}", "p".repeat(4000));
    let unknown = post(&server.url(&path), FORM, "a=1").await;
    assert_eq!(unknown.status(), 404);
    let message = json_body(unknown).await["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.ends_with("pp…") && message.len() < 200, "{message}");
    let name = "n".repeat(10_000);
    let bad = post(
        &server.url("/features/test/echo"),
        FORM,
        format!("{name}=%zz"),
    )
    .await;
    assert_eq!(bad.status(), 400);
    let message = json_body(bad).await["message"].as_str().unwrap().to_owned();
    assert!(message.contains("nn…`") && message.len() < 300, "{message}");
    server.stop().await.unwrap();
}

/// Emails the on-call team through the provider, whose key it declares.
///
/// # Trigger: test
/// # Dependencies: the email provider
/// # Critical logging: none
/// # Contacts: oncall@example.com
#[contact_fn(required = [CallSid, From], secrets = [EMAILPROVIDER_API_KEY], kind = email)]
async fn notifies(context: Context, event: Event, callback: Callback) -> Result<Completion, Error> {
    let message = ccfn_core::email::EmailMessage::new("calls@mg.example.com")
        .to("oncall@example.com")
        .subject(format!("Call from {}", event.from().unwrap_or_default()))
        .text("A call.");
    let sent = context.email()?.send(&message).await?;
    Ok(callback.success(json!({ "id": sent.id })))
}

/// A declared secret that is not set: local mode warns at start and runs
/// the function as if it were not configured, its email landing in the
/// local outbox; production mode refuses to start.
#[tokio::test]
async fn an_unset_declared_secret_is_a_warning_in_local_mode_and_stops_production() {
    logs();
    let outbox = std::env::temp_dir().join(format!("ccfn-unset-secret-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&outbox);
    let context = Context::builder()
        .value("EMAILPROVIDER_DOMAIN", "mg.example.com")
        .value("CCFN_OUTBOX_DIR", outbox.to_str().unwrap())
        .build();
    let feature = || Feature::new("unset").public_function("notify", notifies);

    let local = Runtime::new(context.clone(), config()).feature(feature());
    assert!(local.check().is_ok(), "{:?}", local.check());
    assert_eq!(
        local.unset_secrets(),
        [("EMAILPROVIDER_API_KEY", vec!["notifies"])]
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    let done = tokio::spawn(local.serve_with(listener, async {
        let _ = stopped.await;
    }));
    let response = post(
        &format!("{base}/features/unset/notify"),
        FORM,
        "CallSid=CAunset1&From=%2B15551230000",
    )
    .await;
    assert_eq!(response.status(), 200);
    let invocation = id(&response);
    let sent = json_body(response).await;
    let _ = stop.send(());
    done.await.unwrap().unwrap();
    let sent_id = sent["id"].as_str().unwrap();
    assert!(sent_id.ends_with("@ccfn.local>"), "{sent}");
    let folders: Vec<_> = std::fs::read_dir(&outbox).unwrap().collect();
    assert_eq!(folders.len(), 1, "one message in the outbox");
    let result = records_of(&invocation)
        .into_iter()
        .find(|record| record["step"] == "email_result")
        .expect("an email_result record");
    assert_eq!(result["message"], "Queued in the local outbox");
    let warning = "EMAILPROVIDER_API_KEY is not set: `notifies` runs without it (local mode; production mode refuses to start without it)";
    let warned: Vec<Value> = logs()
        .contents()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|record| record["message"] == warning)
        .collect();
    assert_eq!(warned.len(), 1, "one warning at start");
    assert_eq!(warned[0]["level"], "WARN");
    assert_eq!(warned[0]["step"], "runtime");
    let _ = std::fs::remove_dir_all(&outbox);

    let mut production = config();
    production.mode = Mode::Production;
    let runtime = Runtime::new(context, production).feature(feature());
    assert!(runtime.unset_secrets().is_empty());
    let message = runtime.check().unwrap_err().to_string();
    assert!(
        message.contains(
            "Missing required environment variable: EMAILPROVIDER_API_KEY (required by `notifies` at /features/unset/notify)"
        ),
        "{message}"
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let refused = runtime.serve_with(listener, async {}).await;
    assert!(
        refused.is_err(),
        "production serves nothing without the key"
    );
}
