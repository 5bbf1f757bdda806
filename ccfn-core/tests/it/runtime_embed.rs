//! Embedding: the runtime's router nested in an embedder's own axum app
//! and served with `runtime::serve`, on a real server on loopback, keeps
//! the header deadline and the connection cap; requests, rejections and
//! signatures work under the nest prefix; shutdown completes.

use std::future::IntoFuture as _;
use std::time::Duration;

use crate::common::logs;
use axum::routing::get;
use ccfn_core::prelude::*;
use ccfn_core::runtime::{self, Feature, Runtime, RuntimeConfig};
use ccfn_core::signature;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// Answers with its parameters.
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
    callback.success(json!({ "params": event }))
}

const TOKEN: &str = "embed-canary-auth-token-3c9";
const PREFIX: &str = "/ccfn";

/// An embedder's app on a random loopback port: its own `/healthz`, and
/// ccfn's router nested at [`PREFIX`], served by `runtime::serve`.
struct App {
    addr: String,
    stop: Option<oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<Result<(), Error>>,
}

impl App {
    async fn start(config: RuntimeConfig) -> App {
        logs();
        let context = Context::builder().secret("AUTH_TOKEN", TOKEN).build();
        let functions = Runtime::new(context, config.clone())
            .feature(
                Feature::new("test")
                    .public_function("echo", echo)
                    .function("signed", echo),
            )
            .router()
            .unwrap();
        let app = axum::Router::new()
            .route("/healthz", get(|| async { "ok" }))
            .nest(PREFIX, functions);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let (stop, stopped) = oneshot::channel::<()>();
        let server = runtime::serve(listener, app, &config).with_graceful_shutdown(async {
            let _ = stopped.await;
        });
        let done = tokio::spawn(server.into_future());
        App {
            addr,
            stop: Some(stop),
            done,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        let stopped = tokio::time::timeout(Duration::from_secs(10), self.done)
            .await
            .expect("the server stops once its connections close");
        stopped.unwrap().unwrap();
    }
}

fn client() -> reqwest::Client {
    ccfn_core::http::install_crypto_provider();
    reqwest::Client::new()
}

const FORM: &str = "application/x-www-form-urlencoded";

#[tokio::test]
async fn the_header_deadline_applies_to_a_nested_router() {
    let mut config = RuntimeConfig::default();
    config.header_timeout = Duration::from_millis(200);
    let app = App::start(config).await;

    // Headers for a nested function, a byte at a time, never finished.
    let mut slow = TcpStream::connect(&app.addr).await.unwrap();
    slow.write_all(b"POST /ccfn/features/test/echo HTTP/1.1\r\nhost: x\r\n")
        .await
        .unwrap();
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            // The server may close while this client still writes.
            let _ = slow.write_all(b"x").await;
            let mut answer = [0; 512];
            let read = tokio::time::timeout(Duration::from_millis(50), slow.read(&mut answer));
            if let Ok(Ok(0) | Err(_)) = read.await {
                return;
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the slow connection is still open");

    // A connection that sends nothing is closed too.
    let mut silent = TcpStream::connect(&app.addr).await.unwrap();
    let mut byte = [0; 1];
    let read = tokio::time::timeout(Duration::from_secs(5), silent.read(&mut byte))
        .await
        .expect("closed within the header timeout");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");

    // Requests that arrive in time are served, under the prefix.
    let response = client()
        .post(app.url("/ccfn/features/test/echo"))
        .header("content-type", FORM)
        .body("Name=nested")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-ccfn-invocation-id"].len(), 24);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["params"], json!({"Name": "nested"}));
    let health = client().get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(health.text().await.unwrap(), "ok");
    app.stop().await;
}

#[tokio::test]
async fn the_connection_cap_applies_to_a_nested_router() {
    let mut config = RuntimeConfig::default();
    config.max_connections = 2;
    config.header_timeout = Duration::from_secs(60);
    let app = App::start(config).await;

    let first = TcpStream::connect(&app.addr).await.unwrap();
    let _second = TcpStream::connect(&app.addr).await.unwrap();
    let url = app.url("/healthz");
    let mut third = tokio::spawn(async move { client().get(url).send().await });
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
        .unwrap()
        .unwrap();
    assert_eq!(response.status(), 200);
    drop(_second);
    app.stop().await;
}

#[tokio::test]
async fn rejections_and_signatures_see_the_nest_prefix() {
    let app = App::start(RuntimeConfig::default()).await;

    // ccfn's own 404 and record for a path under the prefix, naming the
    // path the client sent.
    let unknown = client()
        .post(app.url("/ccfn/features/test/nothing"))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    let id = unknown.headers()["x-ccfn-invocation-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let body: Value = unknown.json().await.unwrap();
    assert_eq!(
        body,
        json!({"message": "no function at /ccfn/features/test/nothing"})
    );
    let recorded = logs().contents().lines().any(|line| {
        let record: Value = serde_json::from_str(line).unwrap();
        record["invocation_id"] == id.as_str()
            && record["step"] == "request_rejected"
            && record["path"] == "/ccfn/features/test/nothing"
    });
    assert!(recorded, "no request_rejected record with the full path");

    // The platform signs the URL it calls, prefix included.
    let send = |url: &str| {
        let params = [("Name", "signed")];
        let signature = signature::compute_signature(TOKEN, url, &params);
        client()
            .post(app.url("/ccfn/features/test/signed"))
            .header("content-type", FORM)
            .header("x-twilio-signature", signature)
            .body("Name=signed")
            .send()
    };
    let host = &app.addr;
    let signed = send(&format!("http://{host}/ccfn/features/test/signed"))
        .await
        .unwrap();
    assert_eq!(signed.status(), 200);
    let unprefixed = send(&format!("http://{host}/features/test/signed"))
        .await
        .unwrap();
    assert_eq!(unprefixed.status(), 403);
    app.stop().await;
    assert!(!logs().contents().contains(TOKEN));
}

#[tokio::test]
async fn unusable_limits_are_refused_before_serving() {
    let mut config = RuntimeConfig::default();
    config.max_connections = 0;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let error = runtime::serve(listener, axum::Router::new(), &config)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot serve:\n  max_connections is 0: no connection could be served"
    );
}
