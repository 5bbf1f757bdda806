//! A fake of your own HTTP APIs (a CRM, a ticketing system) on loopback,
//! with the shape of the email provider's and task router's fakes, and of
//! `wiremock`: mocks that match requests and answer them, every request
//! recorded, and expectations verified when the fake is dropped.
//!
//! Point the function at [`FakeApi::url`] through its context, as it would
//! be pointed at the real service, and its calls go over real HTTP through
//! `context.http()`, logged as in production.
//!
//! ```
//! use ccfn_testkit::fake_api::{FakeApi, FakeResponse, Mock};
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let crm = FakeApi::start().await;
//! crm.mock(
//!     Mock::get("/customers")
//!         .query("phone", "+15551230000")
//!         .respond(FakeResponse::ok().json(json!({ "name": "Ada" })))
//!         .expect(1),
//! );
//! let client = ccfn_core::http::HttpClient::new(Default::default()).unwrap();
//! let answer = client
//!     .get(format!("{}/customers", crm.url()))
//!     .query(&[("phone", "+15551230000")])
//!     .send()
//!     .await
//!     .unwrap();
//! assert_eq!(answer.json::<serde_json::Value>().unwrap()["name"], "Ada");
//! assert_eq!(crm.requests()[0].query_value("phone"), Some("+15551230000"));
//! // Dropping `crm` checks that `/customers` was called exactly once.
//! # });
//! ```

use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use ccfn_core::record::{is_sensitive_name, REDACTED};
use serde_json::Value;

use crate::loopback::{lock, Server};

/// The largest request body the fake reads.
const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// What the fake answers to a request a [`Mock`] matches.
///
/// ```
/// use std::time::Duration;
/// use ccfn_testkit::fake_api::FakeResponse;
///
/// let found = FakeResponse::ok().json(serde_json::json!({ "id": 7 }));
/// let gone = FakeResponse::status(404).text("no such customer");
/// let slow = FakeResponse::ok().delay(Duration::from_millis(200));
/// let limited = FakeResponse::status(429).header("Retry-After", "1");
/// # let _ = (found, gone, slow, limited);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use = "give it to Mock::respond"]
pub struct FakeResponse {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    delay: Duration,
}

impl FakeResponse {
    /// `200` with an empty body.
    pub fn ok() -> Self {
        FakeResponse::status(200)
    }

    /// `status` with an empty body.
    ///
    /// # Panics
    /// `status` is not between 100 and 999.
    pub fn status(status: u16) -> Self {
        assert!(
            (100..1000).contains(&status),
            "{status} is not an HTTP status"
        );
        FakeResponse {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            delay: Duration::ZERO,
        }
    }

    /// An `application/json` body.
    pub fn json(self, value: Value) -> Self {
        self.body("application/json", value.to_string())
    }

    /// A `text/plain` body.
    pub fn text(self, text: impl Into<String>) -> Self {
        self.body("text/plain; charset=utf-8", text.into())
    }

    /// A body of `content_type`.
    pub fn body(mut self, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        self.headers
            .retain(|(name, _)| !name.eq_ignore_ascii_case("content-type"));
        self.headers
            .push(("content-type".to_owned(), content_type.to_owned()));
        self.body = body.into();
        self
    }

    /// Adds a response header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Answers only after `delay` (the request is recorded first).
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

impl IntoResponse for FakeResponse {
    fn into_response(self) -> Response {
        let mut response = Response::new(Body::from(self.body));
        *response.status_mut() =
            StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        for (name, value) in self.headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                response.headers_mut().append(name, value);
            }
        }
        response
    }
}

/// Which requests a fake answers, and how: a method and path, optionally
/// query parameters and headers that must be present; the answer
/// ([`FakeResponse::ok`] unless told otherwise) and, optionally, how many
/// times it must be called.
#[derive(Clone, Debug)]
#[must_use = "give it to FakeApi::mock"]
pub struct Mock {
    method: Option<String>,
    path: String,
    query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    answer: FakeResponse,
    expected: Option<usize>,
}

impl Mock {
    /// Requests of `method` (`GET`, `POST`, ..., any case) to `path` (the
    /// path only, without the query).
    pub fn new(method: &str, path: impl Into<String>) -> Self {
        Mock {
            method: Some(method.to_ascii_uppercase()),
            path: path.into(),
            query: Vec::new(),
            headers: Vec::new(),
            answer: FakeResponse::ok(),
            expected: None,
        }
    }

    /// Requests of any method to `path`.
    pub fn any(path: impl Into<String>) -> Self {
        Mock {
            method: None,
            ..Mock::new("GET", path)
        }
    }

    /// `GET path`.
    pub fn get(path: impl Into<String>) -> Self {
        Mock::new("GET", path)
    }

    /// `POST path`.
    pub fn post(path: impl Into<String>) -> Self {
        Mock::new("POST", path)
    }

    /// `PUT path`.
    pub fn put(path: impl Into<String>) -> Self {
        Mock::new("PUT", path)
    }

    /// `PATCH path`.
    pub fn patch(path: impl Into<String>) -> Self {
        Mock::new("PATCH", path)
    }

    /// `DELETE path`.
    pub fn delete(path: impl Into<String>) -> Self {
        Mock::new("DELETE", path)
    }

    /// Only requests whose query has `name` with `value` (decoded).
    pub fn query(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.query.push((name.into(), value.into()));
        self
    }

    /// Only requests with header `name` (any case) of `value`.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Answers with `answer`.
    pub fn respond(mut self, answer: FakeResponse) -> Self {
        self.answer = answer;
        self
    }

    /// Must match exactly `count` requests: checked when the fake is
    /// dropped (unless the test is already panicking) and by
    /// [`FakeApi::verify`].
    pub fn expect(mut self, count: usize) -> Self {
        self.expected = Some(count);
        self
    }

    fn matches(&self, request: &RecordedRequest) -> bool {
        self.method.as_ref().is_none_or(|m| *m == request.method)
            && self.path == request.path
            && self
                .query
                .iter()
                .all(|(n, v)| request.query.iter().any(|(rn, rv)| rn == n && rv == v))
            && self
                .headers
                .iter()
                .all(|(n, v)| request.header(n) == Some(v.as_str()))
    }

    fn describe(&self) -> String {
        let mut text = format!(
            "{} {}",
            self.method.as_deref().unwrap_or("any method"),
            self.path
        );
        for (name, value) in &self.query {
            text.push_str(&format!(" ?{name}={value}"));
        }
        for (name, _) in &self.headers {
            text.push_str(&format!(" [{name}]"));
        }
        text
    }
}

/// A request the fake received.
#[derive(Clone, PartialEq)]
pub struct RecordedRequest {
    /// The method, in capitals.
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The query parameters, decoded, in order.
    pub query: Vec<(String, String)>,
    /// The headers, names in lowercase, in order.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The first value of header `name` (any case).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find_map(|(n, v)| n.eq_ignore_ascii_case(name).then_some(v.as_str()))
    }

    /// The first value of query parameter `name`.
    #[must_use]
    pub fn query_value(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find_map(|(n, v)| (n == name).then_some(v.as_str()))
    }

    /// The body as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON.
    ///
    /// # Panics
    /// The body is not JSON; the message shows it.
    #[must_use]
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("the request body is not JSON ({e}): {}", self.text()))
    }
}

/// Sensitive headers (see `ccfn_core::record::is_sensitive_name`) print
/// as `[REDACTED]`, so that a failing test does not print a secret.
impl fmt::Debug for RecordedRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, v)| {
                let shown = if is_sensitive_name(n) { REDACTED } else { v };
                (n.as_str(), shown)
            })
            .collect();
        f.debug_struct("RecordedRequest")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("query", &self.query)
            .field("headers", &headers)
            .field("body", &self.text())
            .finish()
    }
}

#[derive(Debug, Default)]
struct Shared {
    /// Each mock with the number of requests it answered.
    mocks: Mutex<Vec<(Mock, usize)>>,
    requests: Mutex<Vec<RecordedRequest>>,
    unmatched: Mutex<Vec<RecordedRequest>>,
}

/// A fake HTTP API on loopback; it stops when dropped, and then checks
/// its mocks' expectations. See the [module documentation](self).
#[derive(Debug)]
pub struct FakeApi {
    server: Server,
    shared: Arc<Shared>,
}

impl FakeApi {
    /// Starts the fake on `127.0.0.1` on a free port, with no mocks: every
    /// request is answered 404 until one matches. Needs a Tokio runtime.
    ///
    /// # Panics
    /// No loopback port can be bound.
    pub async fn start() -> FakeApi {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .fallback(answer)
            .with_state(Arc::clone(&shared));
        FakeApi {
            server: Server::start(app, "the fake API").await,
            shared,
        }
    }

    /// The base URL (`http://127.0.0.1:<port>`), to configure where the
    /// real service's would be.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    /// The address the fake listens on.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// Adds `mock`. A request is answered by the first mock, in the order
    /// they were added, that matches it.
    pub fn mock(&self, mock: Mock) -> &Self {
        lock(&self.shared.mocks).push((mock, 0));
        self
    }

    /// Every request received so far, matched or not, in order.
    #[must_use]
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// Checks now that every mock with an expectation matched exactly its
    /// count, and that every request matched a mock.
    ///
    /// # Panics
    /// An expectation is not met, or a request matched no mock; the
    /// message lists the mocks and what was received.
    #[track_caller]
    pub fn verify(&self) {
        let mut problems = Vec::new();
        for (mock, hits) in lock(&self.shared.mocks).iter() {
            if let Some(expected) = mock.expected {
                if *hits != expected {
                    problems.push(format!(
                        "`{}` expected {expected} request(s), it received {hits}",
                        mock.describe()
                    ));
                }
            }
        }
        let unmatched = lock(&self.shared.unmatched).clone();
        if !unmatched.is_empty() {
            problems.push(format!(
                "{} request(s) matched no mock: {unmatched:#?}",
                unmatched.len()
            ));
        }
        assert!(
            problems.is_empty(),
            "the fake API at {}:\n  - {}\nreceived: {:#?}",
            self.url(),
            problems.join("\n  - "),
            self.requests()
        );
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.verify();
        }
    }
}

/// Records the request and answers it with the first matching mock's
/// response, or 404 naming what was asked.
async fn answer(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = match to_bytes(body, MAX_REQUEST_BYTES).await {
        Ok(bytes) => bytes.to_vec(),
        Err(_) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                "the fake API reads 16 MiB at most",
            )
                .into_response()
        }
    };
    let query = parts
        .uri
        .query()
        .map(|q| {
            form_urlencoded::parse(q.as_bytes())
                .map(|(n, v)| (n.into_owned(), v.into_owned()))
                .collect()
        })
        .unwrap_or_default();
    let recorded = RecordedRequest {
        method: parts.method.as_str().to_owned(),
        path: parts.uri.path().to_owned(),
        query,
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
    };
    lock(&shared.requests).push(recorded.clone());
    let matched = {
        let mut mocks = lock(&shared.mocks);
        mocks
            .iter_mut()
            .find(|(mock, _)| mock.matches(&recorded))
            .map(|(mock, hits)| {
                *hits += 1;
                mock.answer.clone()
            })
    };
    match matched {
        Some(answer) => {
            if !answer.delay.is_zero() {
                tokio::time::sleep(answer.delay).await;
            }
            answer.into_response()
        }
        None => {
            let text = format!(
                "no mock of this fake API matches {} {}",
                recorded.method, recorded.path
            );
            lock(&shared.unmatched).push(recorded);
            (StatusCode::NOT_FOUND, text).into_response()
        }
    }
}
