//! The vocabulary every fake shares: the [`Request`] it records and the
//! [`FakeResponse`] it is told to answer with.

use std::fmt;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use ccfn_core::record::{is_sensitive_name, REDACTED};
use serde_json::Value;

/// A request a fake received, as it came over the wire: every fake's
/// `requests()` returns these.
///
/// `Debug` shows sensitive headers (`Authorization`, ...; see
/// `ccfn_core::record::is_sensitive_name`) as `[REDACTED]`, so that a
/// failing test does not print a secret.
///
/// ```
/// use ccfn_testkit::Request;
///
/// let request = Request::new("POST", "/v1/Workspaces/WS1/Tasks?Page=2")
///     .with_header("Content-Type", "application/x-www-form-urlencoded")
///     .with_header("Authorization", "Basic QUMxOnRva2Vu")
///     .with_body("WorkflowSid=WW1&Attributes=%7B%7D");
/// assert_eq!(request.method(), "POST");
/// assert_eq!(request.path(), "/v1/Workspaces/WS1/Tasks");
/// assert_eq!(request.query("Page"), Some("2"));
/// assert_eq!(request.form("Attributes").as_deref(), Some("{}"));
/// assert_eq!(request.username().as_deref(), Some("AC1"));
/// assert_eq!(request.password().as_deref(), Some("token"));
/// assert!(!format!("{request:?}").contains("QUMxOnRva2Vu"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Request {
    method: String,
    path: String,
    query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    status: Option<u16>,
}

impl Request {
    /// A request of `method` (any case) to `target`, a path with an
    /// optional query (`/customers?phone=%2B1555`), no header, no body.
    #[must_use]
    pub fn new(method: &str, target: &str) -> Request {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        Request {
            method: method.to_ascii_uppercase(),
            path: path.to_owned(),
            query: decode_pairs(query.as_bytes()),
            headers: Vec::new(),
            body: Vec::new(),
            status: None,
        }
    }

    /// Adds header `name` (kept in lowercase) with `value`.
    #[must_use]
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Request {
        self.headers.push((name.to_ascii_lowercase(), value.into()));
        self
    }

    /// Sets the body.
    #[must_use]
    pub fn with_body(mut self, body: impl Into<Vec<u8>>) -> Request {
        self.body = body.into();
        self
    }

    /// The request of `parts` and `body`, as a fake records it.
    pub(crate) fn from_parts(parts: &axum::http::request::Parts, body: Vec<u8>) -> Request {
        let target = parts
            .uri
            .path_and_query()
            .map_or_else(|| parts.uri.path().to_owned(), |pq| pq.as_str().to_owned());
        let mut request = Request::new(parts.method.as_str(), &target).with_body(body);
        for (name, value) in &parts.headers {
            request = request.with_header(
                name.as_str(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            );
        }
        request
    }

    /// Records the status it was answered with.
    #[must_use]
    pub fn with_status(mut self, status: u16) -> Request {
        self.status = Some(status);
        self
    }

    /// The method, in capitals (`GET`, `POST`...).
    #[must_use]
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The path, as sent (percent-encoded), without the query.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The first value of query parameter `name` (decoded, `+` a space).
    #[must_use]
    pub fn query(&self, name: &str) -> Option<&str> {
        first(&self.query, name)
    }

    /// Every query parameter, decoded, in order (repeated names
    /// repeated).
    #[must_use]
    pub fn query_pairs(&self) -> &[(String, String)] {
        &self.query
    }

    /// The first value of header `name` (any case).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find_map(|(n, v)| n.eq_ignore_ascii_case(name).then_some(v.as_str()))
    }

    /// Every header, names in lowercase, in order.
    #[must_use]
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// The body, as received.
    #[must_use]
    pub fn body(&self) -> &[u8] {
        &self.body
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

    /// The first field `name` of an `application/x-www-form-urlencoded`
    /// body (decoded); `None` for another body.
    #[must_use]
    pub fn form(&self, name: &str) -> Option<String> {
        first(&self.form_pairs(), name).map(str::to_owned)
    }

    /// Every field of an `application/x-www-form-urlencoded` body,
    /// decoded, in order; empty for another body.
    #[must_use]
    pub fn form_pairs(&self) -> Vec<(String, String)> {
        let is_form = self
            .header("content-type")
            .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
        if is_form {
            decode_pairs(&self.body)
        } else {
            Vec::new()
        }
    }

    /// The user name of an `Authorization: Basic` header.
    #[must_use]
    pub fn username(&self) -> Option<String> {
        self.basic_auth().0
    }

    /// The password of an `Authorization: Basic` header: a test's
    /// canary, so compare it, never print it.
    #[must_use]
    pub fn password(&self) -> Option<String> {
        self.basic_auth().1
    }

    /// The status the fake answered with; `None` while the answer is on
    /// its way (a delayed one).
    #[must_use]
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// The username and password of an `Authorization: Basic` header
    /// (either may be missing; padded or unpadded base64).
    fn basic_auth(&self) -> (Option<String>, Option<String>) {
        use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
        use base64::Engine as _;
        const BASE64: GeneralPurpose = GeneralPurpose::new(
            &base64::alphabet::STANDARD,
            GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
        );
        let decoded = self
            .header("authorization")
            .and_then(|v| v.strip_prefix("Basic "))
            .and_then(|v| BASE64.decode(v.trim()).ok())
            .and_then(|bytes| String::from_utf8(bytes).ok());
        match decoded {
            Some(text) => match text.split_once(':') {
                Some((user, password)) => (Some(user.to_owned()), Some(password.to_owned())),
                None => (Some(text), None),
            },
            None => (None, None),
        }
    }
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, v)| {
                let shown = if is_sensitive_name(n) { REDACTED } else { v };
                (n.as_str(), shown)
            })
            .collect();
        f.debug_struct("Request")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("query", &self.query)
            .field("headers", &headers)
            .field("body", &self.text())
            .field("status", &self.status)
            .finish()
    }
}

fn first<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find_map(|(key, value)| (key == name).then_some(value.as_str()))
}

/// `a=1&b=x+y` decoded, in order.
fn decode_pairs(text: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(text).into_owned().collect()
}

/// What a fake answers with when told to: a status, headers, a body, a
/// delay, and how many times. Give it to any fake's `fail_with`, or to a
/// [`Mock`](crate::fake_api::Mock) of [`FakeApi`](crate::fake_api::FakeApi).
///
/// ```
/// use std::time::Duration;
/// use ccfn_testkit::FakeResponse;
///
/// let found = FakeResponse::ok().json(serde_json::json!({ "id": 7 }));
/// let gone = FakeResponse::status(404).text("no such customer");
/// let slow = FakeResponse::ok().delay(Duration::from_millis(200));
/// let limited = FakeResponse::status(429).header("Retry-After", "1").times(2);
/// assert_eq!(limited.status_code(), 429);
/// # let _ = (found, gone, slow);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use = "give it to a fake's `fail_with`, or to `Mock::respond`"]
pub struct FakeResponse {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    delay: Duration,
    times: Option<u32>,
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
            times: None,
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

    /// Given to `fail_with`: answers only the next `count` requests so,
    /// then the fake answers as usual again (without: every request from
    /// now on).
    pub fn times(mut self, count: u32) -> Self {
        self.times = Some(count);
        self
    }

    /// The status.
    #[must_use]
    pub fn status_code(&self) -> u16 {
        self.status
    }

    /// The delay before answering.
    #[must_use]
    pub fn delay_time(&self) -> Duration {
        self.delay
    }

    /// How many requests it answers (`None`: every one).
    #[must_use]
    pub fn count(&self) -> Option<u32> {
        self.times
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

#[cfg(test)]
mod tests {
    use super::Request;

    fn auth(value: &str) -> (Option<String>, Option<String>) {
        let request = Request::new("GET", "/").with_header("Authorization", value);
        (request.username(), request.password())
    }

    #[test]
    fn basic_auth_padded_or_not() {
        let both = (Some("AC".to_owned()), Some("token".to_owned()));
        assert_eq!(auth("Basic QUM6dG9rZW4="), both);
        assert_eq!(auth("Basic QUM6dG9rZW4"), both);
        assert_eq!(
            auth("Basic YXBpOmtleXh5"),
            (Some("api".to_owned()), Some("keyxy".to_owned()))
        );
        assert_eq!(auth("Basic QUM="), (Some("AC".to_owned()), None));
        assert_eq!(auth("Basic !!!!"), (None, None));
        assert_eq!(auth("Bearer QUM6dG9rZW4="), (None, None));
        assert_eq!(Request::new("GET", "/").username(), None);
    }

    #[test]
    fn query_and_form_decoded() {
        let request = Request::new("post", "/x?a=%2B1555+x&b=&a=2")
            .with_header("content-type", "application/x-www-form-urlencoded")
            .with_body("c=%7B%22a%22%7D&d");
        assert_eq!(request.method(), "POST");
        assert_eq!(request.query("a"), Some("+1555 x"));
        assert_eq!(request.query("b"), Some(""));
        assert_eq!(request.query_pairs().len(), 3);
        assert_eq!(request.form("c").as_deref(), Some("{\"a\"}"));
        assert_eq!(request.form("d").as_deref(), Some(""));
        let json = Request::new("POST", "/x").with_body("c=1");
        assert_eq!(json.form("c"), None, "not a form body");
    }
}
