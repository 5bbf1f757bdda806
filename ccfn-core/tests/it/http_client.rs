//! The logged HTTP client against a real server on loopback: the records
//! of every call, authentication, failures that say which, slow-response
//! alerts, and no secret in any line.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::http::HeaderMap;
use axum::routing::{get, post};
use axum::Router;
use ccfn_core::http::{BearerToken, HttpClient, HttpConfig};
use ccfn_core::prelude::*;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};
use serde_json::{json, Value};

const KEY: &str = "key-canary-http-4d1f9a";
const TOKEN: &str = "bearer-canary-http-77c0";

/// A loopback server: `/json` echoes what it got, `/text` answers long
/// text, `/slow` answers after 300 ms, `/slow-error` answers 503 after
/// 300 ms; it counts the calls.
async fn server() -> (String, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    let count = move || {
        counter.fetch_add(1, Ordering::SeqCst);
    };
    let (a, b, c, d) = (count.clone(), count.clone(), count.clone(), count);
    let app = Router::new()
        .route(
            "/json",
            post(move |headers: HeaderMap, body: String| async move {
                a();
                let auth = headers
                    .get("authorization")
                    .map(|v| v.to_str().unwrap().to_owned());
                axum::Json(json!({"received": body, "authorization": auth}))
            }),
        )
        .route(
            "/text",
            get(move || async move {
                b();
                "x".repeat(5000)
            }),
        )
        .route(
            "/slow",
            get(move || async move {
                c();
                tokio::time::sleep(Duration::from_millis(300)).await;
                "late"
            }),
        )
        .route(
            "/slow-error",
            get(move || async move {
                d();
                tokio::time::sleep(Duration::from_millis(300)).await;
                (
                    axum::http::StatusCode::SERVICE_UNAVAILABLE,
                    "late and failing",
                )
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, calls)
}

fn client(config: HttpConfig) -> HttpClient {
    HttpClient::new(config).unwrap()
}

/// Calls the URL in `url` the way `how` says.
///
/// # Trigger
/// Test.
/// # Dependencies
/// The loopback server.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = ["url", "how"], kind = generic)]
async fn call(context: Context, event: Event, callback: Callback) -> Result<Completion, Error> {
    let url = event.get("url").unwrap_or_default().to_owned();
    let mut config = HttpConfig::default();
    config.timeout = Duration::from_millis(150);
    config.slow_response = Duration::from_millis(100);
    let client = client(config);
    let response = match event.get("how") {
        Some("basic") => {
            let key = context.secret("EMAILPROVIDER_API_KEY").unwrap();
            client
                .post(url)
                .basic_auth("api", key)
                .header("X-Api-Key", key.expose())
                .header("Accept", "application/json")
                .json(&json!({"hello": "world"}))
                .send()
                .await?
        }
        Some("bearer") => {
            let token = BearerToken::new(
                TOKEN,
                Some(SystemTime::UNIX_EPOCH + Duration::from_secs(4_102_444_800)),
            );
            client
                .post(url)
                .bearer(&token)
                .form(&[("a", "1")])
                .send()
                .await?
        }
        Some("expired") => {
            let token = BearerToken::new(TOKEN, Some(SystemTime::now() - Duration::from_secs(60)));
            client.post(url).bearer(&token).send().await?
        }
        Some("slow") => {
            let mut patient = HttpConfig::default();
            patient.slow_response = Duration::from_millis(100);
            self::client(patient).get(url).send().await?
        }
        _ => client.get(url).send().await?,
    };
    Ok(callback.success(json!({"status": response.status(), "bytes": response.body().len()})))
}

async fn run(url: &str, how: &str) -> Run {
    let event = FakeEvent::empty().param("url", url).param("how", how);
    // The context holds the key, as in production: it is registered for
    // scrubbing before the event is logged.
    let context = FakeContext::new()
        .value("EMAILPROVIDER_API_KEY", KEY)
        .secret("BEARER", TOKEN);
    let run = invoke(call, context, event).await;
    run.assert_contract();
    run.assert_no_leak(&[KEY, TOKEN]);
    run
}

fn business_steps(run: &Run) -> Vec<&str> {
    let steps = run.steps();
    let from = steps.iter().position(|s| *s == "caller").unwrap() + 1;
    let to = from
        + steps[from..]
            .iter()
            .position(|s| *s == "metrics" || *s == "error")
            .unwrap();
    steps[from..to].to_vec()
}

#[tokio::test]
async fn basic_auth_call_is_logged_with_redacted_headers() {
    let (base, _) = server().await;
    let url = format!("http://api:{KEY}@{}/json?api_key={KEY}&page=2", &base[7..]);
    let run = run(&url, "basic").await;
    assert_eq!(
        business_steps(&run),
        ["api_request", "auth", "api_response"]
    );

    let request = run.record("api_request").unwrap();
    assert_eq!(request["method"], "POST");
    assert_eq!(
        request["url"],
        format!(
            "http://[REDACTED]@{}/json?api_key=[REDACTED]&page=2",
            &base[7..]
        )
    );
    assert_eq!(
        request["headers"],
        json!({
            "X-Api-Key": "[REDACTED]",
            "Accept": "application/json",
            "content-type": "application/json",
            "authorization": "[REDACTED]"
        })
    );
    assert_eq!(request["request_bytes"], 17);

    let auth = run.record("auth").unwrap();
    assert_eq!(auth["authenticated"], true);
    assert_eq!(auth["token_type"], "basic");
    assert_eq!(auth["expires_at"], Value::Null);

    let response = run.record("api_response").unwrap();
    assert_eq!(response["status"], 200);
    assert_eq!(response["ok"], true);
    assert_eq!(response["content_type"], "application/json");
    assert_eq!(response["data"]["received"], r#"{"hello":"world"}"#);
    assert_eq!(
        response["data"]["authorization"], "[REDACTED]",
        "the basic credentials the server echoes are scrubbed: {response:?}"
    );
    assert!(response["elapsed_ms"].as_f64().unwrap() >= 0.0);
}

#[tokio::test]
async fn bearer_token_status_is_logged_never_its_value() {
    let (base, _) = server().await;
    let run = run(&format!("{base}/json"), "bearer").await;
    let auth = run.record("auth").unwrap();
    assert_eq!(auth["authenticated"], true);
    assert_eq!(auth["token_type"], "bearer");
    assert_eq!(auth["expires_at"], "2100-01-01T00:00:00Z");
    let response = run.record("api_response").unwrap();
    assert_eq!(response["data"]["received"], "a=1");
}

#[tokio::test]
async fn expired_token_fails_before_the_call() {
    let (base, calls) = server().await;
    let run = run(&format!("{base}/json"), "expired").await;
    assert_eq!(calls.load(Ordering::SeqCst), 0, "no request was sent");
    assert_eq!(business_steps(&run), ["api_request", "auth", "api_error"]);
    assert_eq!(run.record("auth").unwrap()["authenticated"], false);
    let message = run.error_message().unwrap();
    assert!(
        message.starts_with(&format!(
            "POST {base}/json not sent: the bearer token expired at "
        )),
        "{message}"
    );
}

#[tokio::test]
async fn long_text_is_truncated_and_says_so() {
    let (base, _) = server().await;
    let run = run(&format!("{base}/text"), "get").await;
    let response = run.record("api_response").unwrap();
    assert_eq!(response["response_bytes"], 5000);
    assert_eq!(
        response["data"].as_str().unwrap().len(),
        ccfn_core::http::MAX_LOGGED_BODY
    );
    assert_eq!(response["data_truncated"], true);
    assert_eq!(response["content_type"], "text/plain; charset=utf-8");
}

#[tokio::test]
async fn a_call_without_credentials_logs_that_it_is_not_authenticated() {
    let (base, _) = server().await;
    let run = run(&format!("{base}/text"), "get").await;
    assert_eq!(
        business_steps(&run),
        ["api_request", "auth", "api_response"]
    );
    let auth = run.record("auth").unwrap();
    assert_eq!(auth["message"], "Unauthenticated call: no credentials");
    assert_eq!(auth["authenticated"], false);
    assert_eq!(auth["token_type"], "none");
    assert_eq!(auth["expires_at"], Value::Null);
    assert_eq!(auth["level"], "INFO");
}

#[tokio::test]
async fn timeout_is_an_error_that_says_so() {
    let (base, _) = server().await;
    let run = run(&format!("{base}/slow"), "get").await;
    assert_eq!(
        run.error_message(),
        Some(format!("GET {base}/slow failed: timed out after 150 ms").as_str())
    );
    // Timed out past the 100 ms threshold: the slow-call alert too.
    assert_eq!(
        business_steps(&run),
        ["api_request", "auth", "api_error", "alert"]
    );
    let alert = run.record("alert").unwrap();
    assert_eq!(alert["kind"], "api_response_time");
    assert_eq!(alert["threshold"], 100.0);
    assert!(alert["value"].as_f64().unwrap() >= 150.0, "{alert:?}");
    let message = alert["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("ALERT: GET {base}/slow failed after "))
            && message.ends_with(" ms, over the 100 ms threshold"),
        "{message}"
    );
}

#[tokio::test]
async fn a_slow_error_status_raises_the_alert() {
    let (base, _) = server().await;
    let run = run(&format!("{base}/slow-error"), "slow").await;
    assert_eq!(
        business_steps(&run),
        ["api_request", "auth", "api_response", "alert"]
    );
    assert_eq!(run.record("api_response").unwrap()["status"], 503);
    let alert = run.record("alert").unwrap();
    assert_eq!(alert["kind"], "api_response_time");
    assert!(alert["value"].as_f64().unwrap() >= 300.0, "{alert:?}");
}

#[tokio::test]
async fn a_connection_broken_past_the_threshold_raises_the_alert() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut request = [0; 4096];
        let _ = stream.read(&mut request).await;
        // Headers and part of the body, then 300 ms of nothing, then the
        // connection closes.
        let _ = stream
            .write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 100\r\n\r\nfirst",
            )
            .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    });
    let url = format!("http://{addr}/broken");
    let event = FakeEvent::empty().param("url", &url).param("how", "slow");
    let run = invoke(call, FakeContext::new(), event).await;
    run.assert_contract();
    assert_eq!(
        business_steps(&run),
        ["api_request", "auth", "api_error", "alert"]
    );
    let alert = run.record("alert").unwrap();
    assert_eq!(alert["kind"], "api_response_time");
    assert!(alert["value"].as_f64().unwrap() >= 300.0, "{alert:?}");
    assert!(
        alert["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("ALERT: GET {url} failed after ")),
        "{alert:?}"
    );
}

#[tokio::test]
async fn slow_response_raises_an_alert() {
    let (base, _) = server().await;
    let run = run(&format!("{base}/slow"), "slow").await;
    let alert = run.record("alert").expect("an alert");
    assert_eq!(alert["kind"], "api_response_time");
    assert_eq!(alert["threshold"], 100.0);
    assert!(alert["value"].as_f64().unwrap() >= 300.0);
    insta::assert_snapshot!("slow_response", run.snapshot());
}

#[tokio::test]
async fn refused_connection_says_refused() {
    let closed = ccfn_testkit::ClosedPort::new();
    let addr = closed.addr();
    let run = run(&format!("http://{addr}/x"), "get").await;
    assert_eq!(
        run.error_message(),
        Some(format!("GET http://{addr}/x failed: the connection was refused").as_str())
    );
    insta::assert_snapshot!("refused", run.snapshot());
}

#[tokio::test]
async fn unknown_host_says_dns() {
    let run = run("http://ccfn-test.invalid/x", "get").await;
    let message = run.error_message().unwrap();
    assert_eq!(
        message,
        "GET http://ccfn-test.invalid/x failed: the host name could not be resolved (DNS)"
    );
    assert_eq!(run.record("api_error").unwrap()["error"], message);
}

/// A second loopback server: `/huge` streams 64 MiB with no length,
/// `/big-json` answers a 40 kB JSON document, `/hang` never answers,
/// `/away` redirects to `elsewhere` (another origin). `elsewhere` records
/// the headers it gets.
async fn hostile(elsewhere: &str) -> String {
    let target = format!("{elsewhere}/landed");
    let app = Router::new()
        .route(
            "/huge",
            get(|| async {
                let chunks = futures_util::stream::iter(
                    (0..1024).map(|_| Ok::<_, std::io::Error>(vec![b'x'; 64 * 1024])),
                );
                axum::body::Body::from_stream(chunks)
            }),
        )
        .route(
            "/big-json",
            get(|| async {
                let items: Vec<Value> = (0..400)
                    .map(|i| json!({"sid": format!("WT{i:032}"), "auth_token": "never-logged-canary"}))
                    .collect();
                axum::Json(json!({ "tasks": items }))
            }),
        )
        .route(
            "/hang",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(30)).await;
                "too late"
            }),
        )
        .route(
            "/away",
            get(move || {
                let target = target.clone();
                async move { axum::response::Redirect::temporary(&target) }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

/// Another origin: records the headers of every request to `/landed`.
async fn elsewhere() -> (String, Arc<std::sync::Mutex<Vec<HeaderMap>>>) {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let app = Router::new().route(
        "/landed",
        get(move |headers: HeaderMap| {
            let record = Arc::clone(&record);
            async move {
                record.lock().unwrap().push(headers);
                "landed"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, seen)
}

/// Calls `url` with the default configuration, in a function that times
/// out after one second; a failed call is answered with a fallback, as
/// the examples do.
///
/// # Trigger
/// Test.
/// # Dependencies
/// The loopback servers.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = ["url", "how"], kind = generic, timeout_ms = 1000)]
async fn hostile_call(context: Context, event: Event, callback: Callback) -> Completion {
    let url = event.get("url").unwrap_or_default().to_owned();
    let client = client(HttpConfig::default());
    let request = match event.get("how") {
        Some("api-key") => client.get(url).header("X-Api-Key", KEY),
        Some("basic") => client
            .get(url)
            .basic_auth("api", context.secret("EMAILPROVIDER_API_KEY").unwrap()),
        _ => client.get(url),
    };
    match request.send().await {
        Ok(response) => {
            let text = response.text();
            let text = if text.len() > 100 {
                "[long]".to_owned()
            } else {
                text
            };
            callback.success(json!({"status": response.status(), "text": text}))
        }
        Err(error) => callback.success(json!({"fallback": true, "why": error.message()})),
    }
}

async fn hostile_run(url: &str, how: &str) -> Run {
    let event = FakeEvent::empty().param("url", url).param("how", how);
    let context = FakeContext::new().value("EMAILPROVIDER_API_KEY", KEY);
    let run = invoke(hostile_call, context, event).await;
    run.assert_contract();
    run.assert_no_leak(&[KEY, "never-logged-canary"]);
    run
}

fn result(run: &Run) -> Value {
    run.record("success").unwrap()["result"].clone()
}

#[tokio::test]
async fn a_response_over_the_cap_is_abandoned_and_says_the_cap() {
    let (other, _) = elsewhere().await;
    let base = hostile(&other).await;
    let run = hostile_run(&format!("{base}/huge"), "get").await;
    let cap = ccfn_core::http::DEFAULT_MAX_RESPONSE_BYTES;
    let why = format!(
        "GET {base}/huge failed: the response (200) is larger than the {cap}-byte cap (over {cap} bytes received); abandoned"
    );
    assert_eq!(result(&run), json!({"fallback": true, "why": why}));
    let error = run.record("api_error").unwrap();
    assert_eq!(error["max_response_bytes"], cap);
    assert_eq!(error["error"], why);
}

#[tokio::test]
async fn a_large_json_answer_is_logged_cut_and_redacted() {
    let (other, _) = elsewhere().await;
    let base = hostile(&other).await;
    let run = hostile_run(&format!("{base}/big-json"), "get").await;
    let response = run.record("api_response").unwrap();
    let bytes = response["response_bytes"].as_u64().unwrap();
    assert!(bytes > 30_000, "{bytes}");
    let data = response["data"]
        .as_str()
        .expect("cut JSON is logged as text");
    assert_eq!(data.len(), ccfn_core::http::MAX_LOGGED_JSON);
    assert!(
        data.starts_with(r#"{"tasks":[{"auth_token":"[REDACTED]","sid":"WT"#)
            || data.starts_with(r#"{"tasks":[{"sid":"WT"#),
        "{}",
        &data[..80]
    );
    assert!(!data.contains("never-logged-canary"));
    assert_eq!(response["data_truncated"], true);
    let cut = response["data_cut_bytes"].as_u64().unwrap();
    assert!(cut > 0);
    assert!(run.lines().iter().all(|line| line.len() < 32 * 1024));
}

#[tokio::test]
async fn a_hanging_upstream_ends_before_the_function_times_out() {
    let (other, _) = elsewhere().await;
    let base = hostile(&other).await;
    let started = std::time::Instant::now();
    let run = hostile_run(&format!("{base}/hang"), "get").await;
    // The default timeout (6 s) is longer than the function's (1 s): the
    // call is cut 500 ms before the function would time out, so the
    // function still answers, and the log says why.
    assert!(started.elapsed() < Duration::from_millis(1000));
    let result = result(&run);
    let why = result["why"].as_str().unwrap();
    assert!(
        why.starts_with(&format!("GET {base}/hang failed: timed out after "))
            && why.ends_with("ms, ended 500 ms before the function's own timeout"),
        "{why}"
    );
    assert_eq!(run.record("end").unwrap()["outcome"], "success");
    assert!(run.records_of("error").is_empty());
}

#[tokio::test]
async fn default_timeouts_leave_the_function_time_to_answer() {
    let config = HttpConfig::default();
    assert!(config.timeout + ccfn_core::http::DEADLINE_RESERVE < Duration::from_secs(10));
    assert!(config.connect_timeout < config.timeout);
    assert!(
        config.slow_response < config.timeout,
        "the slow alert can fire"
    );
}

#[tokio::test]
async fn basic_credentials_are_not_sent_to_another_origin_on_redirect() {
    let (other, seen) = elsewhere().await;
    let base = hostile(&other).await;
    let run = hostile_run(&format!("{base}/away"), "basic").await;
    assert_eq!(result(&run), json!({"status": 200, "text": "landed"}));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].get("authorization").is_none(), "{:?}", seen[0]);
}

#[tokio::test]
async fn a_sensitive_header_of_the_caller_stops_a_redirect_to_another_origin() {
    let (other, seen) = elsewhere().await;
    let base = hostile(&other).await;
    let run = hostile_run(&format!("{base}/away"), "api-key").await;
    // The redirect itself is the answer; the other origin heard nothing.
    assert_eq!(result(&run)["status"], 307);
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_connection_closed_in_the_middle_of_the_body_says_so() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut request = [0; 4096];
        let _ = stream.read(&mut request).await;
        // 100 bytes announced, 10 sent, then the connection closes.
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"id\":\"12")
            .await;
    });
    let run = hostile_run(&format!("http://{addr}/cut"), "get").await;
    let why = result(&run)["why"].as_str().unwrap().to_owned();
    assert!(
        why.starts_with(&format!(
            "GET http://{addr}/cut failed reading the response: "
        )),
        "{why}"
    );
    assert_eq!(run.record("api_error").unwrap()["error"], why);
    assert!(run.record("api_response").is_none());
}
