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
/// text, `/slow` answers after 300 ms; it counts the calls.
async fn server() -> (String, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    let count = move || {
        counter.fetch_add(1, Ordering::SeqCst);
    };
    let (a, b, c) = (count.clone(), count.clone(), count);
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
        format!("{base}/json?api_key=%5BREDACTED%5D&page=2")
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
async fn timeout_is_an_error_that_says_so() {
    let (base, _) = server().await;
    let run = run(&format!("{base}/slow"), "get").await;
    assert_eq!(
        run.error_message(),
        Some(format!("GET {base}/slow failed: timed out after 150 ms").as_str())
    );
    assert_eq!(business_steps(&run), ["api_request", "api_error"]);
}

#[tokio::test]
async fn slow_response_raises_an_alert() {
    let (base, _) = server().await;
    let run = run(&format!("{base}/slow"), "slow").await;
    let alert = run.record("alert").expect("an alert");
    assert_eq!(alert["kind"], "api_response_time");
    assert_eq!(alert["threshold"], 100.0);
    assert!(alert["value"].as_f64().unwrap() >= 300.0);
}

#[tokio::test]
async fn refused_connection_says_refused() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let run = run(&format!("http://{addr}/x"), "get").await;
    assert_eq!(
        run.error_message(),
        Some(format!("GET http://{addr}/x failed: the connection was refused").as_str())
    );
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
