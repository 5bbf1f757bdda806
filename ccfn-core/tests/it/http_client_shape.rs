//! The HTTP client's request and response helpers (reqwest's shape),
//! against a real server on loopback: query strings and JSON bodies from
//! any `Serialize` value, every method, `error_for_status`, typed JSON, and
//! a bearer token taken straight from a context's secret.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::RawQuery;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::routing::{any, get};
use axum::Router;
use ccfn_core::http::{BearerToken, HttpClient, HttpConfig};
use ccfn_core::prelude::*;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

const TOKEN: &str = "crm-token-canary-5e21b7";
const KEY: &str = "query-key-canary-90ac3f";

/// `/echo` answers, as JSON, the method, query, body and authorization it
/// got; `/missing` answers 404 with a page that must not reach the error.
async fn server() -> String {
    let app = Router::new()
        .route(
            "/echo",
            any(
                |method: Method, RawQuery(query): RawQuery, headers: HeaderMap, body: Bytes| async move {
                    let auth = headers
                        .get("authorization")
                        .map(|v| v.to_str().unwrap().to_owned());
                    axum::Json(json!({
                        "method": method.as_str(),
                        "query": query,
                        "body": String::from_utf8_lossy(&body),
                        "authorization": auth,
                    }))
                },
            ),
        )
        .route(
            "/missing",
            get(|| async { (StatusCode::NOT_FOUND, "<html>internal page</html>") }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

#[derive(Serialize)]
struct Search<'a> {
    phone: &'a str,
    page: u32,
    api_key: &'a str,
}

#[derive(Serialize)]
struct NewNote<'a> {
    caller: &'a str,
    tags: [&'a str; 2],
}

/// What `/echo` answers.
#[derive(Deserialize)]
struct Echo {
    method: String,
    query: Option<String>,
    body: String,
    authorization: Option<String>,
}

/// Calls `url` the way `how` says and answers what the server saw.
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
    let client = HttpClient::new(HttpConfig::default())?;
    let token = BearerToken::new(context.secret("CRM_TOKEN").unwrap(), None);
    let key = context.secret("CRM_API_KEY").unwrap();
    let response = match event.get("how") {
        Some("query") => {
            client
                .get(format!("{url}?lang=en"))
                .query(&Search {
                    phone: "+1 555 0100",
                    page: 2,
                    api_key: key.expose(),
                })
                .query(&[("empty", "")])
                .bearer(&token)
                .send()
                .await?
        }
        Some("bad-query") => {
            let nested = BTreeMap::from([("a", BTreeMap::from([("b", 1)]))]);
            client.get(url).query(&nested).send().await?
        }
        Some("bad-json") => {
            let keys = BTreeMap::from([((1, 2), "pair keys are not JSON")]);
            client.post(url).json(&keys).send().await?
        }
        Some(method @ ("put" | "patch" | "delete")) => {
            let note = NewNote {
                caller: "+15550100",
                tags: ["vip", "callback"],
            };
            let request = match method {
                "put" => client.put(url),
                "patch" => client.patch(url),
                _ => client.delete(url),
            };
            request.json(&note).send().await?
        }
        _ => client.get(url).send().await?.error_for_status()?,
    };
    let echo: Echo = response.error_for_status_ref()?.json()?;
    Ok(callback.success(json!({
        "method": echo.method,
        "query": echo.query,
        "body": echo.body,
        "bearer_sent": echo.authorization == Some(format!("Bearer {TOKEN}")),
    })))
}

async fn run(url: &str, how: &str) -> Run {
    let event = FakeEvent::empty().param("url", url).param("how", how);
    let context = FakeContext::new()
        .secret("CRM_TOKEN", TOKEN)
        .secret("CRM_API_KEY", KEY);
    let run = invoke(call, context, event).await;
    run.assert_contract();
    run.assert_no_leak(&[TOKEN, KEY]);
    run
}

fn result(run: &Run) -> Value {
    run.record("success").expect("a success record")["result"].clone()
}

#[tokio::test]
async fn a_query_from_a_struct_is_appended_and_logged_redacted() {
    let base = server().await;
    let run = run(&format!("{base}/echo"), "query").await;
    assert_eq!(
        result(&run),
        json!({
            "method": "GET",
            // The server echoes the key: scrubbed, as a secret the context
            // holds.
            "query": "lang=en&phone=%2B1+555+0100&page=2&api_key=[REDACTED]&empty=",
            "body": "",
            "bearer_sent": true,
        }),
        "the bearer token came from the context's secret"
    );
    assert_eq!(
        run.record("api_request").unwrap()["url"],
        format!("{base}/echo?lang=en&phone=%2B1+555+0100&page=2&api_key=[REDACTED]&empty=")
    );
}

#[tokio::test]
async fn a_query_that_cannot_be_encoded_fails_before_the_call() {
    let base = server().await;
    let run = run(&format!("{base}/echo"), "bad-query").await;
    assert!(run.record("api_response").is_none(), "no call was made");
    let message = run.error_message().unwrap();
    assert!(
        message.starts_with(&format!(
            "GET {base}/echo not sent: the query cannot be encoded: "
        )),
        "{message}"
    );
    assert_eq!(run.record("api_error").unwrap()["error"], message);
}

#[tokio::test]
async fn a_body_that_cannot_be_serialized_fails_before_the_call() {
    let base = server().await;
    let run = run(&format!("{base}/echo"), "bad-json").await;
    assert!(run.record("api_response").is_none(), "no call was made");
    let message = run.error_message().unwrap();
    assert!(
        message.starts_with(&format!(
            "POST {base}/echo not sent: the JSON body cannot be serialized: "
        )),
        "{message}"
    );
}

#[tokio::test]
async fn put_patch_and_delete_send_a_serialized_body() {
    let base = server().await;
    for method in ["PUT", "PATCH", "DELETE"] {
        let run = run(&format!("{base}/echo"), &method.to_lowercase()).await;
        assert_eq!(run.record("api_request").unwrap()["method"], method);
        assert_eq!(
            run.record("api_request").unwrap()["headers"]["content-type"],
            "application/json"
        );
        let result = result(&run);
        assert_eq!(result["method"], method);
        assert_eq!(
            result["body"],
            r#"{"caller":"+15550100","tags":["vip","callback"]}"#
        );
    }
}

#[tokio::test]
async fn error_for_status_names_the_call_and_status_not_the_body() {
    let base = server().await;
    let run = run(&format!("{base}/missing"), "get").await;
    assert_eq!(
        run.error_message(),
        Some(format!("GET {base}/missing answered 404 Not Found").as_str())
    );
    assert_eq!(run.record("error").unwrap()["kind"], "upstream");
    assert_eq!(
        run.record("api_response").unwrap()["data"],
        "<html>internal page</html>",
        "the body stays in the api_response record"
    );
}

#[tokio::test]
async fn typed_json_of_a_success_reads_the_body() {
    let base = server().await;
    // `/echo` by GET: error_for_status passes it through, json::<Echo>()
    // reads it.
    let run = run(&format!("{base}/echo"), "get").await;
    assert_eq!(
        result(&run),
        json!({"method": "GET", "query": null, "body": "", "bearer_sent": false})
    );
}
