//! A fake of your own HTTP APIs (a CRM, a ticketing system) on loopback,
//! made, pointed at, inspected and broken as every fake of the testkit
//! (`start`, `url`, `requests`, `fail_with`, `expect`), with `wiremock`'s
//! mocks: [`Mock`]s that match requests and answer them, and expectations
//! verified when the fake is dropped.
//!
//! Point the function at [`FakeApi::url`] through its context, as it would
//! be pointed at the real service, and its calls go over real HTTP through
//! `context.http()`, logged as in production.
//!
//! ```
//! use ccfn_testkit::fake_api::{FakeApi, Mock};
//! use ccfn_testkit::FakeResponse;
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
//! assert_eq!(crm.requests()[0].query("phone"), Some("+15551230000"));
//! // Dropping `crm` checks that `/customers` was called exactly once.
//! # });
//! ```

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Router;

use crate::loopback::{answer, lock, read, record, verify, Book, Server};
use crate::{FakeResponse, Request};

/// The largest request body the fake reads.
const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

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

    fn matches(&self, request: &Request) -> bool {
        self.method.as_ref().is_none_or(|m| m == request.method())
            && self.path == request.path()
            && self.query.iter().all(|(n, v)| {
                request
                    .query_pairs()
                    .iter()
                    .any(|(rn, rv)| rn == n && rv == v)
            })
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

#[derive(Debug, Default)]
struct Shared {
    /// Each mock with the number of requests it answered.
    mocks: Mutex<Vec<(Mock, usize)>>,
    book: Mutex<Book>,
    unmatched: Mutex<Vec<Request>>,
}

/// A fake HTTP API on loopback; it stops when dropped, and then checks
/// its expectations. See the [module documentation](self).
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
            .fallback(handle)
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
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.shared.book).requests()
    }

    /// Answers the following requests with `answer` whatever the mocks
    /// say (as many as [`FakeResponse::times`] says, or all), still
    /// recording them.
    pub fn fail_with(&self, answer: FakeResponse) -> &Self {
        lock(&self.shared.book).fail_with(answer);
        self
    }

    /// Waits `delay` before each answer of a mock.
    pub fn delay(&self, delay: Duration) -> &Self {
        lock(&self.shared.book).set_delay(delay);
        self
    }

    /// Expects exactly `count` requests in all: checked when the fake is
    /// dropped (unless the test is already panicking) and by
    /// [`FakeApi::verify`]. A [`Mock::expect`] counts one mock's.
    pub fn expect(&self, count: usize) -> &Self {
        lock(&self.shared.book).expect(count);
        self
    }

    /// Checks now that the fake received the count of
    /// [`FakeApi::expect`], that every mock with an expectation matched
    /// exactly its count, and that every request matched a mock.
    ///
    /// # Panics
    /// An expectation is not met, or a request matched no mock; the
    /// message lists the mocks and what was received.
    #[track_caller]
    pub fn verify(&self) {
        let mut problems: Vec<String> = lock(&self.shared.book).unmet().into_iter().collect();
        for (mock, hits) in lock(&self.shared.mocks).iter() {
            if let Some(expected) = mock.expected
                && *hits != expected
            {
                problems.push(format!(
                    "`{}` expected {expected} request(s), it received {hits}",
                    mock.describe()
                ));
            }
        }
        let unmatched = lock(&self.shared.unmatched).clone();
        if !unmatched.is_empty() {
            problems.push(format!(
                "{} request(s) matched no mock: {unmatched:#?}",
                unmatched.len()
            ));
        }
        verify("the fake API", &self.url(), &problems, &self.requests());
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
async fn handle(State(shared): State<Arc<Shared>>, request: axum::extract::Request) -> Response {
    let (parts, body) = match read(request, MAX_REQUEST_BYTES).await {
        Ok(read) => read,
        Err(too_large) => return too_large,
    };
    let recorded = record(&parts, body);
    let own = Arc::clone(&shared);
    answer(&shared.book, recorded, move |recorded| async move {
        let shared = own;
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
                tokio::time::sleep(answer.delay_time()).await;
                answer.into_response()
            }
            None => {
                let text = format!(
                    "no mock of this fake API matches {} {}",
                    recorded.method(),
                    recorded.path()
                );
                lock(&shared.unmatched).push(recorded);
                (StatusCode::NOT_FOUND, text).into_response()
            }
        }
    })
    .await
}
