//! The fake platform turned hostile: answers a client must survive
//! without leaking the credentials, looping, waiting for ever, holding an
//! answer's size in memory or letting the platform's text drive the
//! operator's terminal.
//!
//! [`FakePlatform::hostile`](super::FakePlatform::hostile) sets one
//! [`Hostile`] behaviour: from then on, every request (to any path) is
//! answered as the behaviour says, in the page shape of its path (the
//! 2010 API's `next_page_uri` under `/2010-04-01/`, the newer APIs'
//! `meta` elsewhere), the items under the key the path names
//! (`.../Calls.json` → `calls`, `.../TaskQueues` → `task_queues`).
//! Requests without the fake's credentials get the platform's 401, as
//! usual, except for [`Hostile::EchoedCredentialsError`], which is a 401
//! to everyone.
//!
//! [`ForeignHost`] is a second server on another loopback port, to stand
//! for the host a hostile next link points at: it records whether any
//! request reached it with an `Authorization` header.
//!
//! ```
//! use ccfn_support::fake_platform::hostile::{ForeignHost, Hostile};
//! use ccfn_support::fake_platform::FakePlatform;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let foreign = ForeignHost::start().await;
//! let fake = FakePlatform::start()
//!     .await
//!     .hostile(Hostile::ForeignNext { origin: foreign.url() });
//! let url = format!("{}/v1/Workspaces/WS1/Tasks", fake.url());
//! ccfn_core::http::install_crypto_provider();
//! let page: serde_json::Value = reqwest::Client::new()
//!     .get(&url)
//!     .basic_auth(fake.username(), Some(fake.password()))
//!     .send()
//!     .await
//!     .unwrap()
//!     .json()
//!     .await
//!     .unwrap();
//! let next = page["meta"]["next_page_url"].as_str().unwrap();
//! assert!(next.starts_with(&foreign.url()));
//! assert_eq!(page["tasks"].as_array().unwrap().len(), 1);
//! // Nothing followed it: the foreign host saw no request.
//! assert!(foreign.requests().is_empty());
//! # });
//! ```

use std::fmt;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use base64::Engine as _;
use serde_json::{json, Value};

use ccfn_testkit::__private::{answer, lock, read, record, verify, Book, Server};
use ccfn_testkit::{FakeResponse, Request};

/// Text with the terminal control sequences a hostile platform can put
/// in any field: ESC `[2J` (clear the screen), OSC 52 (write the
/// operator's clipboard, here `canary`), the C1 control sequence
/// introducer `\u{9b}` (`31m`: red), a carriage return and a bell.
pub const CONTROL_TEXT: &str = "\u{1b}[2J\u{1b}]52;c;Y2FuYXJ5\u{7}\u{9b}31m\rhostile\u{7}";

/// How the fake platform misbehaves.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Hostile {
    /// Every page has one item and links its next page at `origin`
    /// (`http://127.0.0.1:{port}`, a [`ForeignHost::url`]), absolute:
    /// in `next_page_uri` for the 2010 API, where a path is expected,
    /// and in `meta.next_page_url` for the newer APIs.
    ForeignNext {
        /// Where the next link points: scheme, host and port.
        origin: String,
    },
    /// As [`Hostile::ForeignNext`], but protocol-relative:
    /// `//{authority}/...` (`127.0.0.1:{port}`, a
    /// [`ForeignHost::authority`]), in both shapes.
    ProtocolRelativeNext {
        /// The host and port the link points at.
        authority: String,
    },
    /// Every page has one item and links `link` as its next page, written
    /// as is in both shapes: the ways a link can lead elsewhere
    /// (`\\host/x`, `/\host/x`, `/<tab>/host/x`, `http://fake@host/x`...).
    NextLink {
        /// The next page's link, verbatim.
        link: String,
    },
    /// Every page has one item and links, as its next page, itself: the
    /// path and query it was asked with.
    SelfNext,
    /// Every page is empty and links the next one (`Page` + 1), for ever.
    EndlessEmpty,
    /// Every page has one item and links the next one (`Page` + 1), for
    /// ever.
    EndlessPages,
    /// One page of `bytes` bytes of valid JSON (items, then blanks),
    /// streamed as it is sent, never held: `streamed` counts what was
    /// handed to the connection. With `declared`, the answer says its
    /// `Content-Length`; without, it is chunked.
    HugePage {
        /// The page's size.
        bytes: u64,
        /// Whether `Content-Length` is sent.
        declared: bool,
        /// Counts the bytes streamed, read from the test.
        streamed: Streamed,
    },
    /// Every page is at most `bytes` bytes of JSON text holding the item
    /// `item` (JSON text, written as is) repeated as many times as fit (at
    /// least once): `0`, `{}` or `[[[0]]]` make the page that expands most
    /// once parsed. With `endless`, each page links the next one (`Page` +
    /// 1), for ever; without, none.
    RepeatedItems {
        /// One item, as JSON text.
        item: String,
        /// The most bytes a page takes.
        bytes: u64,
        /// Whether each page links a next one.
        endless: bool,
    },
    /// Every request answered 429, the n-th (from 0, counting every
    /// request the fake received) with `Retry-After` the n-th of
    /// `retry_after`, round and round (the text as given: digits, a date,
    /// anything; none when empty).
    RateLimitStorm {
        /// The header's values, in turn.
        retry_after: Vec<String>,
    },
    /// Every page has two items whose every text field (the SID
    /// included) carries [`CONTROL_TEXT`].
    ControlSequences,
    /// Every request answered with the platform's 401 whose message
    /// repeats the fake's password and the request's Basic credentials
    /// (`Basic ` and base64 of `user:password`).
    EchoedCredentialsError,
    /// Every page has one item whose fields carry the fake's password, its
    /// Basic form (base64 of `user:password`, padded and not, and
    /// URL-safe), and a URL with both as userinfo (`voice_url`).
    EchoedCredentialsItem,
}

/// A count of the bytes a [`Hostile::HugePage`] streamed, shared with the
/// test.
#[derive(Debug, Clone, Default)]
pub struct Streamed(Arc<AtomicU64>);

impl Streamed {
    /// The bytes streamed so far.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// What the fake knows that a hostile answer repeats.
pub(super) struct Known<'a> {
    /// `http://127.0.0.1:{port}`.
    pub(super) origin: &'a str,
    /// The basic-auth username.
    pub(super) username: &'a str,
    /// The basic-auth password.
    pub(super) password: &'a str,
    /// How many requests the fake received before this one.
    pub(super) received: usize,
}

impl Hostile {
    /// The answer to a request of `path` and `query`, when this behaviour
    /// gives one (`None`: the fake's usual answer, the 401 of a request
    /// without credentials).
    pub(super) fn answer(
        &self,
        known: &Known<'_>,
        path: &str,
        query: &[(String, String)],
        authenticated: bool,
    ) -> Option<(Response, StatusCode)> {
        if !authenticated && !matches!(self, Hostile::EchoedCredentialsError) {
            return None;
        }
        let page = query
            .iter()
            .find(|(name, _)| name == "Page")
            .and_then(|(_, value)| value.parse::<u64>().ok())
            .unwrap_or(0);
        let key = key_of(path);
        let ok = |body: Value| Some((axum::Json(body).into_response(), StatusCode::OK));
        if let Some((items, next)) = self.linked_page(path, query, &key, page) {
            return ok(shaped(known, path, &key, items, next));
        }
        match self {
            Hostile::EchoedCredentialsError => Some(echoed_credentials_error(known)),
            Hostile::HugePage {
                bytes,
                declared,
                streamed,
            } => Some((huge(&key, *bytes, *declared, streamed), StatusCode::OK)),
            Hostile::RepeatedItems {
                item,
                bytes,
                endless,
            } => {
                let next = endless.then(|| format!("{path}?PageSize=50&Page={}", page + 1));
                let body = repeated(known, path, &key, item, *bytes, next.as_deref());
                let mut response = Body::from(body).into_response();
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                Some((response, StatusCode::OK))
            }
            Hostile::RateLimitStorm { retry_after } => Some(rate_limit_storm(known, retry_after)),
            Hostile::ControlSequences => match super::definitions::find(path) {
                // One item fetched (a flow the list left without its
                // definition): the item, as the platform answers it.
                Some((operation, _)) if operation.list_items().is_none() => {
                    ok(hostile_item(0, CONTROL_TEXT))
                }
                _ => {
                    let items = (0..2).map(|n| hostile_item(n, CONTROL_TEXT)).collect();
                    ok(shaped(known, path, &key, items, Link::None))
                }
            },
            Hostile::EchoedCredentialsItem => {
                let echo = echoed_credentials_item(known, &key);
                ok(shaped(known, path, &key, vec![echo], Link::None))
            }
            // Pages that link others: answered above.
            Hostile::ForeignNext { .. }
            | Hostile::ProtocolRelativeNext { .. }
            | Hostile::NextLink { .. }
            | Hostile::SelfNext
            | Hostile::EndlessEmpty
            | Hostile::EndlessPages => None,
        }
    }

    /// The items and the next link of page `page`, for a behaviour whose
    /// pages link others: elsewhere, to themselves, or on for ever.
    fn linked_page(
        &self,
        path: &str,
        query: &[(String, String)],
        key: &str,
        page: u64,
    ) -> Option<(Vec<Value>, Link)> {
        let link_to = |page: u64| format!("{path}?PageSize=50&Page={page}");
        let one = || vec![item(key, page)];
        Some(match self {
            Hostile::ForeignNext { origin } => {
                (one(), Link::Raw(format!("{origin}{}", link_to(page + 1))))
            }
            Hostile::ProtocolRelativeNext { authority } => (
                one(),
                Link::Raw(format!("//{authority}{}", link_to(page + 1))),
            ),
            Hostile::NextLink { link } => (one(), Link::Raw(link.clone())),
            Hostile::SelfNext => {
                let mut own = path.to_owned();
                if !query.is_empty() {
                    own.push('?');
                    own.push_str(
                        &form_urlencoded::Serializer::new(String::new())
                            .extend_pairs(query)
                            .finish(),
                    );
                }
                (one(), Link::Path(own))
            }
            Hostile::EndlessEmpty => (Vec::new(), Link::Path(link_to(page + 1))),
            Hostile::EndlessPages => (one(), Link::Path(link_to(page + 1))),
            _ => return None,
        })
    }
}

/// The platform's 401 whose message repeats the fake's password and the
/// Basic form of its credentials.
fn echoed_credentials_error(known: &Known<'_>) -> (Response, StatusCode) {
    let basic = base64::engine::general_purpose::STANDARD
        .encode(format!("{}:{}", known.username, known.password));
    let status = StatusCode::UNAUTHORIZED;
    let message = format!(
        "Authenticate: the token {} (Authorization: Basic {basic}) is not valid",
        known.password
    );
    (error(status, 20003, &message), status)
}

/// The platform's 429, with the `Retry-After` of this request's turn.
fn rate_limit_storm(known: &Known<'_>, retry_after: &[String]) -> (Response, StatusCode) {
    let status = StatusCode::TOO_MANY_REQUESTS;
    let mut response = error(status, 20429, "Too Many Requests");
    let turn = retry_after
        .get(known.received % retry_after.len().max(1))
        .and_then(|text| HeaderValue::from_bytes(text.as_bytes()).ok());
    if let Some(value) = turn {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    (response, status)
}

/// An item of list `key` whose fields carry the fake's password, its
/// Basic forms, and a URL with both as userinfo.
fn echoed_credentials_item(known: &Known<'_>, key: &str) -> Value {
    let pair = format!("{}:{}", known.username, known.password);
    let standard = base64::engine::general_purpose::STANDARD.encode(&pair);
    let unpadded = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&pair);
    let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&pair);
    json!({
        "sid": format!("{}{:032x}", prefix(key), 1),
        "status": known.password,
        "friendly_name": format!("Basic {standard}"),
        "from": unpadded,
        "to": url_safe,
        "date_created": "2026-11-20T10:00:00Z",
        "phone_number": "+15559870000",
        "voice_url": format!("https://{}:{}@cc.example.com/voice", known.username, known.password),
        "nested": { "echo": format!("user {} token {}", known.username, known.password) },
    })
}

/// A page's next link.
enum Link {
    /// None: the last page.
    None,
    /// A path on the fake: a path for the 2010 API, on the fake's origin
    /// for the newer APIs.
    Path(String),
    /// Written as is in both shapes.
    Raw(String),
}

/// A page of `items` in `path`'s shape, linking `next`.
fn shaped(known: &Known<'_>, path: &str, key: &str, items: Vec<Value>, next: Link) -> Value {
    let size = items.len();
    if path.starts_with("/2010-04-01/") {
        let next = match next {
            Link::None => Value::Null,
            Link::Path(link) | Link::Raw(link) => Value::from(link),
        };
        json!({
            key: items,
            "page": 0, "page_size": 50, "start": 0, "end": size.saturating_sub(1),
            "uri": path, "first_page_uri": path, "previous_page_uri": null,
            "next_page_uri": next,
        })
    } else {
        let origin = known.origin;
        let next = match next {
            Link::None => Value::Null,
            Link::Path(link) => Value::from(format!("{origin}{link}")),
            Link::Raw(link) => Value::from(link),
        };
        json!({
            key: items,
            "meta": {
                "page": 0, "page_size": 50,
                "first_page_url": format!("{origin}{path}"), "previous_page_url": null,
                "url": format!("{origin}{path}"), "next_page_url": next, "key": key,
            },
        })
    }
}

/// The key of a list's items, from its path's last segment:
/// `IncomingPhoneNumbers.json` → `incoming_phone_numbers`.
fn key_of(path: &str) -> String {
    let last = path.rsplit('/').next().unwrap_or_default();
    let name = last.strip_suffix(".json").unwrap_or(last);
    let mut key = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                key.push('_');
            }
            key.push(c.to_ascii_lowercase());
        } else {
            key.push(c);
        }
    }
    key
}

/// The platform's error body (`code`, `message`, `more_info`, `status`)
/// with `status`.
fn error(status: StatusCode, code: u32, message: &str) -> Response {
    let body = json!({
        "code": code,
        "message": message,
        "more_info": format!("https://www.twilio.com/docs/errors/{code}"),
        "status": status.as_u16(),
    });
    (status, axum::Json(body)).into_response()
}

/// The two letters of a SID of `key`'s items.
fn prefix(key: &str) -> &'static str {
    match key {
        "calls" => "CA",
        "tasks" => "WT",
        "flows" => "FW",
        "executions" => "FN",
        "workflows" => "WW",
        "task_queues" => "WQ",
        "incoming_phone_numbers" => "PN",
        _ => "HX",
    }
}

/// A plain item of `key`, numbered `n`.
fn item(key: &str, n: u64) -> Value {
    json!({
        "sid": format!("{}{n:032x}", prefix(key)),
        "status": "completed",
        "friendly_name": format!("hostile {n}"),
        "date_created": "2026-11-20T10:00:00Z",
    })
}

/// An item whose every text field carries `text`.
fn hostile_item(n: u64, text: &str) -> Value {
    let mut item = serde_json::Map::new();
    item.insert("sid".to_owned(), Value::from(format!("{text}{n}")));
    for field in [
        "status",
        "assignment_status",
        "friendly_name",
        "unique_name",
        "from",
        "to",
        "direction",
        "start_time",
        "end_time",
        "duration",
        "date_created",
        "date_updated",
        "phone_number",
        "voice_url",
        "voice_method",
        "contact_channel_address",
        "message",
        "alert_text",
        "attributes",
    ] {
        item.insert(field.to_owned(), Value::from(text));
    }
    // A number where the definitions have one (a task's age).
    item.insert("age".to_owned(), Value::from(n));
    Value::Object(item)
}

/// The text of a [`Hostile::RepeatedItems`] page in `path`'s shape: `item`
/// repeated under `key` as many times as fit in `bytes` (at least once),
/// linking `next` (a path on the fake) when given.
fn repeated(
    known: &Known<'_>,
    path: &str,
    key: &str,
    item: &str,
    bytes: u64,
    next: Option<&str>,
) -> Vec<u8> {
    let prefix = format!("{{\"{key}\":[");
    let suffix = if path.starts_with("/2010-04-01/") {
        let next = next.map_or(Value::Null, Value::from);
        format!("],\"next_page_uri\":{next}}}")
    } else {
        let next = next.map_or(Value::Null, |link| {
            Value::from(format!("{}{link}", known.origin))
        });
        let meta = json!({"key": key, "page_size": 50, "next_page_url": next});
        format!("],\"meta\":{meta}}}")
    };
    let room = usize::try_from(bytes)
        .unwrap_or(usize::MAX)
        .saturating_sub(prefix.len() + suffix.len());
    let count = (room.saturating_add(1) / (item.len() + 1)).max(1);
    let mut body = Vec::with_capacity(prefix.len() + suffix.len() + count * (item.len() + 1));
    body.extend_from_slice(prefix.as_bytes());
    for n in 0..count {
        if n > 0 {
            body.push(b',');
        }
        body.extend_from_slice(item.as_bytes());
    }
    body.extend_from_slice(suffix.as_bytes());
    body
}

/// A page of `bytes` bytes under `key`, streamed.
fn huge(key: &str, bytes: u64, declared: bool, streamed: &Streamed) -> Response {
    let prefix = format!("{{\"{key}\":[");
    let suffix = "{\"sid\":\"HXlast\"}],\"next_page_uri\":null}".to_owned();
    let unit = format!("{{\"sid\":\"HX{:032x}\"}},", 0);
    let block = unit.repeat(64 * 1024 / unit.len());
    let ends = (prefix.len() + suffix.len()) as u64;
    let middle = bytes.saturating_sub(ends);
    let stream = Huge {
        prefix: Some(Bytes::from(prefix)),
        block: Bytes::from(block),
        left: middle,
        suffix: Some(Bytes::from(suffix)),
        streamed: streamed.clone(),
    };
    let mut response = Body::from_stream(stream).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if declared {
        let total = middle + ends;
        response
            .headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(total));
    }
    response
}

/// The body of a [`Hostile::HugePage`]: its prefix, whole blocks of
/// items then blanks to the size, its suffix; one chunk at a time, each
/// counted as it is handed over.
struct Huge {
    prefix: Option<Bytes>,
    block: Bytes,
    left: u64,
    suffix: Option<Bytes>,
    streamed: Streamed,
}

impl futures_core::Stream for Huge {
    type Item = Result<Bytes, std::convert::Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let chunk = if let Some(prefix) = self.prefix.take() {
            prefix
        } else if self.left > 0 {
            let whole = self.block.len() as u64;
            if self.left >= whole {
                self.left -= whole;
                self.block.clone()
            } else {
                let blanks = usize::try_from(self.left).unwrap_or(0);
                self.left = 0;
                Bytes::from(vec![b' '; blanks])
            }
        } else if let Some(suffix) = self.suffix.take() {
            suffix
        } else {
            return Poll::Ready(None);
        };
        self.streamed
            .0
            .fetch_add(chunk.len() as u64, Ordering::Relaxed);
        Poll::Ready(Some(Ok(chunk)))
    }
}

/// A second server on `127.0.0.1` (another random port): the foreign
/// host a hostile next link points at. It answers every request with an
/// empty JSON object and records it; stopped when dropped, and then it
/// checks its expectation.
pub struct ForeignHost {
    server: Server,
    book: Arc<Mutex<Book>>,
}

impl fmt::Debug for ForeignHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ForeignHost")
            .field("addr", &self.server.addr())
            .finish_non_exhaustive()
    }
}

impl ForeignHost {
    /// Starts it on a random port of `127.0.0.1`. Needs a Tokio runtime.
    ///
    /// # Panics
    /// No loopback port can be bound.
    pub async fn start() -> ForeignHost {
        let book: Arc<Mutex<Book>> = Arc::default();
        let shared = Arc::clone(&book);
        let app = Router::new().fallback(move |request: axum::extract::Request| {
            let book = Arc::clone(&shared);
            async move {
                let (parts, body) = match read(request, 1024 * 1024).await {
                    Ok(read) => read,
                    Err(too_large) => return too_large,
                };
                answer(&book, record(&parts, body), |_| async {
                    axum::Json(json!({})).into_response()
                })
                .await
            }
        });
        let server = Server::start(app, "the foreign host").await;
        ForeignHost { server, book }
    }

    /// `http://127.0.0.1:{port}`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    /// `127.0.0.1:{port}`, for a protocol-relative link.
    #[must_use]
    pub fn authority(&self) -> String {
        self.server.addr().to_string()
    }

    /// The requests received so far, in order.
    #[must_use]
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.book).requests()
    }

    /// Answers the following requests with `answer` instead (as many as
    /// [`FakeResponse::times`] says, or all), still recording them.
    pub fn fail_with(&self, answer: FakeResponse) -> &Self {
        lock(&self.book).fail_with(answer);
        self
    }

    /// Expects exactly `count` requests in all (`0`: a hostile link was
    /// not followed): checked when it is dropped (unless the test is
    /// already panicking) and by [`ForeignHost::verify`].
    pub fn expect(&self, count: usize) -> &Self {
        lock(&self.book).expect(count);
        self
    }

    /// Checks the count set by [`ForeignHost::expect`] now.
    ///
    /// # Panics
    /// It received another number of requests; the message lists them.
    #[track_caller]
    pub fn verify(&self) {
        let problems: Vec<String> = lock(&self.book).unmet().into_iter().collect();
        verify("the foreign host", &self.url(), &problems, &self.requests());
    }
}

impl Drop for ForeignHost {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.verify();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Known<'static> {
        Known {
            origin: "http://127.0.0.1:9",
            username: "AC1",
            password: "canary-pw",
            received: 0,
        }
    }

    async fn body(response: Response) -> Vec<u8> {
        axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap()
            .to_vec()
    }

    #[tokio::test]
    async fn a_huge_page_is_valid_json_of_the_size_asked() {
        let streamed = Streamed::default();
        let hostile = Hostile::HugePage {
            bytes: 300_000,
            declared: true,
            streamed: streamed.clone(),
        };
        let path = "/2010-04-01/Accounts/AC1/Calls.json";
        let (response, status) = hostile.answer(&known(), path, &[], true).unwrap();
        assert_eq!(status, StatusCode::OK);
        assert_eq!(response.headers()[header::CONTENT_LENGTH], "300000");
        let bytes = body(response).await;
        assert_eq!(bytes.len(), 300_000);
        assert_eq!(streamed.bytes(), 300_000);
        let page: Value = serde_json::from_slice(&bytes).unwrap();
        assert!(page["calls"].as_array().unwrap().len() > 100);
        assert_eq!(page["next_page_uri"], Value::Null);
    }

    #[tokio::test]
    async fn repeated_items_fill_the_size_asked_in_both_shapes() {
        let hostile = Hostile::RepeatedItems {
            item: "[[0]]".to_owned(),
            bytes: 100_000,
            endless: true,
        };
        let path = "/2010-04-01/Accounts/AC1/Calls.json";
        let query = [("Page".to_owned(), "3".to_owned())];
        let (response, _) = hostile.answer(&known(), path, &query, true).unwrap();
        let bytes = body(response).await;
        assert!(
            bytes.len() <= 100_000 && bytes.len() > 100_000 - 6,
            "{}",
            bytes.len()
        );
        let page: Value = serde_json::from_slice(&bytes).unwrap();
        let items = page["calls"].as_array().unwrap();
        assert!(items.len() > 16_000 && items.iter().all(|i| *i == json!([[0]])));
        assert_eq!(page["next_page_uri"], format!("{path}?PageSize=50&Page=4"));
        // The newer shape, one item however small the size, no next.
        let hostile = Hostile::RepeatedItems {
            item: "{}".to_owned(),
            bytes: 1,
            endless: false,
        };
        let path = "/v1/Workspaces/WS1/Tasks";
        let (response, _) = hostile.answer(&known(), path, &[], true).unwrap();
        let page: Value = serde_json::from_slice(&body(response).await).unwrap();
        assert_eq!(page["tasks"], json!([{}]));
        assert_eq!(page["meta"]["key"], "tasks");
        assert_eq!(page["meta"]["next_page_url"], Value::Null);
    }

    #[tokio::test]
    async fn links_take_each_shape() {
        let foreign = Hostile::ProtocolRelativeNext {
            authority: "127.0.0.1:7".to_owned(),
        };
        let (response, _) = foreign
            .answer(&known(), "/v1/Workspaces/WS1/TaskQueues", &[], true)
            .unwrap();
        let page: Value = serde_json::from_slice(&body(response).await).unwrap();
        assert_eq!(page["meta"]["key"], "task_queues");
        assert_eq!(
            page["meta"]["next_page_url"],
            "//127.0.0.1:7/v1/Workspaces/WS1/TaskQueues?PageSize=50&Page=1"
        );
        let query = vec![("Status".to_owned(), "a b".to_owned())];
        let path = "/2010-04-01/Accounts/AC1/Calls.json";
        let (response, _) = Hostile::SelfNext
            .answer(&known(), path, &query, true)
            .unwrap();
        let page: Value = serde_json::from_slice(&body(response).await).unwrap();
        assert_eq!(page["next_page_uri"], format!("{path}?Status=a+b"));
        // Without credentials, the usual 401; the echo is a 401 to all.
        assert!(Hostile::SelfNext
            .answer(&known(), path, &[], false)
            .is_none());
        let (response, status) = Hostile::EchoedCredentialsError
            .answer(&known(), path, &[], false)
            .unwrap();
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        let text = String::from_utf8(body(response).await).unwrap();
        assert!(
            text.contains("canary-pw") && text.contains("QUMxOmNhbmFyeS1wdw=="),
            "{text}"
        );
    }
}
