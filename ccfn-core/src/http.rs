//! The logged HTTP client: every call writes `api_request`, `auth` (for
//! authenticated calls) and `api_response` (or `api_error`), with
//! credentials removed from URLs, sensitive headers redacted by name, and
//! an `alert` when the response is slow.

use std::fmt;
use std::sync::Once;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};
use tracing::Level;

use crate::contract::alert;
use crate::log::emit;
use crate::secret::{is_sensitive_name, redact_json, Secret, REDACTED};
use crate::{Error, ErrorKind};

pub use reqwest::Method;

/// How much of a text response body the `api_response` record logs.
pub const MAX_LOGGED_BODY: usize = 2048;

/// Timeouts and alert threshold of an [`HttpClient`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpConfig {
    /// How long connecting may take (default 5 s).
    pub connect_timeout: Duration,
    /// How long a whole call may take, body included (default 10 s).
    pub timeout: Duration,
    /// A response slower than this raises an `alert` (default 5 s).
    pub slow_response: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(10),
            slow_response: Duration::from_secs(5),
        }
    }
}

/// A bearer token with its expiry, held as a secret.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use ccfn_core::http::BearerToken;
///
/// let token = BearerToken::new("eyJhbGciOi-canary", Some(SystemTime::now() + Duration::from_secs(60)));
/// assert!(!token.is_expired());
/// assert_eq!(format!("{token:?}"), "BearerToken { token: [REDACTED], expires_at: Some(..) }");
/// ```
#[derive(Clone)]
pub struct BearerToken {
    token: Secret,
    expires_at: Option<SystemTime>,
}

impl BearerToken {
    /// A token that expires at `expires_at` (`None`: never).
    pub fn new(token: impl Into<String>, expires_at: Option<SystemTime>) -> Self {
        BearerToken {
            token: Secret::new(token),
            expires_at,
        }
    }

    /// When the token expires.
    #[must_use]
    pub fn expires_at(&self) -> Option<SystemTime> {
        self.expires_at
    }

    /// Whether the token has expired.
    #[must_use]
    pub fn is_expired(&self) -> bool {
        self.expires_at.is_some_and(|at| at <= SystemTime::now())
    }
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearerToken")
            .field("token", &self.token)
            .field("expires_at", &self.expires_at.map(|_| ..))
            .finish()
    }
}

#[derive(Clone)]
enum Auth {
    None,
    Basic { user: String, password: Secret },
    Bearer(BearerToken),
}

/// Makes rustls's `ring` provider the process's default, once, unless
/// another was installed first. [`HttpClient::new`] calls it; call it
/// before building another `reqwest` client in a process that uses ccfn,
/// since ccfn builds reqwest without a default provider.
pub fn install_crypto_provider() {
    static PROVIDER: Once = Once::new();
    PROVIDER.call_once(|| {
        // Another part of the process may have chosen one already.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A logged HTTP client (rustls, connection pooling); cheap to clone.
#[derive(Clone)]
pub struct HttpClient {
    client: reqwest::Client,
    config: HttpConfig,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClient")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl HttpClient {
    /// A client with `config`.
    ///
    /// # Errors
    /// The TLS backend cannot be set up.
    pub fn new(config: HttpConfig) -> Result<Self, Error> {
        install_crypto_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .timeout(config.timeout)
            .build()
            .map_err(|e| {
                Error::new(
                    ErrorKind::Upstream,
                    format!("cannot set up the HTTP client: {e}"),
                )
                .with_source(e)
            })?;
        Ok(HttpClient { client, config })
    }

    /// The client's configuration.
    #[must_use]
    pub fn config(&self) -> &HttpConfig {
        &self.config
    }

    /// A request of `method` to `url`.
    pub fn request(&self, method: Method, url: impl Into<String>) -> ApiRequest {
        ApiRequest {
            client: self.clone(),
            method,
            url: url.into(),
            headers: Vec::new(),
            body: Body::Empty,
            auth: Auth::None,
            timeout: None,
        }
    }

    /// A `GET` request.
    pub fn get(&self, url: impl Into<String>) -> ApiRequest {
        self.request(Method::GET, url)
    }

    /// A `POST` request.
    pub fn post(&self, url: impl Into<String>) -> ApiRequest {
        self.request(Method::POST, url)
    }
}

enum Body {
    Empty,
    Bytes {
        content_type: String,
        bytes: Vec<u8>,
    },
    Multipart {
        form: reqwest::multipart::Form,
        size: u64,
    },
}

/// A request being built; [`ApiRequest::send`] makes the call and logs it.
#[must_use = "call .send().await to make the call"]
pub struct ApiRequest {
    client: HttpClient,
    method: Method,
    url: String,
    headers: Vec<(String, String)>,
    body: Body,
    auth: Auth,
    timeout: Option<Duration>,
}

impl fmt::Debug for ApiRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiRequest")
            .field("method", &self.method)
            .field("url", &sanitize_url(&self.url))
            .finish_non_exhaustive()
    }
}

impl ApiRequest {
    /// Adds a header. Sensitive ones (see [`crate::is_sensitive_name`])
    /// are logged as `[REDACTED]`.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// HTTP basic authentication.
    pub fn basic_auth(mut self, user: impl Into<String>, password: &Secret) -> Self {
        let user = user.into();
        // The header's base64 form is a secret too: a server that echoes
        // the request must not put it in a line.
        use base64::Engine as _;
        let _header = Secret::new(
            base64::engine::general_purpose::STANDARD
                .encode(format!("{user}:{}", password.expose())),
        );
        self.auth = Auth::Basic {
            user,
            password: password.clone(),
        };
        self
    }

    /// Bearer-token authentication; an expired token fails the call before
    /// it is made.
    pub fn bearer(mut self, token: &BearerToken) -> Self {
        self.auth = Auth::Bearer(token.clone());
        self
    }

    /// A JSON body.
    pub fn json(mut self, value: &Value) -> Self {
        self.body = Body::Bytes {
            content_type: "application/json".into(),
            bytes: value.to_string().into_bytes(),
        };
        self
    }

    /// A form body (`application/x-www-form-urlencoded`).
    pub fn form<K: AsRef<str>, V: AsRef<str>>(mut self, pairs: &[(K, V)]) -> Self {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs.iter().map(|(k, v)| (k.as_ref(), v.as_ref())))
            .finish();
        self.body = Body::Bytes {
            content_type: "application/x-www-form-urlencoded".into(),
            bytes: body.into_bytes(),
        };
        self
    }

    /// A multipart body of `size` bytes of content.
    pub(crate) fn multipart(mut self, form: reqwest::multipart::Form, size: u64) -> Self {
        self.body = Body::Multipart { form, size };
        self
    }

    /// Overrides the client's total timeout for this call.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Makes the call and logs it. A response of any status is `Ok`; look
    /// at [`ApiResponse::status`].
    ///
    /// # Errors
    /// An expired bearer token (no call is made), an invalid URL, a
    /// refused connection, a name that does not resolve, a timeout, or a
    /// body that cannot be read; the message says which and names the
    /// URL without credentials.
    pub async fn send(self) -> Result<ApiResponse, Error> {
        let method = self.method.clone();
        let url = sanitize_url(&self.url);
        let mut logged_headers: Vec<(String, Value)> = self
            .headers
            .iter()
            .map(|(name, value)| (name.clone(), logged_header(name, value)))
            .collect();
        let (request_bytes, content_type) = match &self.body {
            Body::Empty => (0, None),
            Body::Bytes {
                content_type,
                bytes,
            } => (bytes.len() as u64, Some(content_type.clone())),
            Body::Multipart { size, .. } => (*size, Some("multipart/form-data".to_owned())),
        };
        if let Some(content_type) = &content_type {
            logged_headers.push(("content-type".into(), Value::from(content_type.as_str())));
        }
        if !matches!(self.auth, Auth::None) {
            logged_headers.push(("authorization".into(), Value::from(REDACTED)));
        }
        emit(
            Level::INFO,
            "api_request",
            &format!("API request: {method} {url}"),
            &vec![
                ("method", json!(method.as_str())),
                ("url", json!(url)),
                (
                    "headers",
                    Value::Object(logged_headers.into_iter().collect()),
                ),
                ("request_bytes", json!(request_bytes)),
            ],
        );

        let mut request = self.client.client.request(self.method, &self.url);
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        match &self.auth {
            Auth::None => {}
            Auth::Basic { user, password } => {
                log_auth("basic", true, None);
                request = request.basic_auth(user, Some(password.expose()));
            }
            Auth::Bearer(token) => {
                if token.is_expired() {
                    log_auth("bearer", false, token.expires_at);
                    let message = format!(
                        "{method} {url} not sent: the bearer token expired at {}",
                        format_time(token.expires_at)
                    );
                    return Err(fail(&method, &url, message, Duration::ZERO));
                }
                log_auth("bearer", true, token.expires_at);
                request = request.bearer_auth(token.token.expose());
            }
        }
        request = match self.body {
            Body::Empty => request,
            Body::Bytes {
                content_type,
                bytes,
            } => request.header("content-type", content_type).body(bytes),
            Body::Multipart { form, .. } => request.multipart(form),
        };
        if let Some(timeout) = self.timeout {
            request = request.timeout(timeout);
        }

        let started = Instant::now();
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => {
                let message = format!(
                    "{method} {url} failed: {}",
                    describe(&error, &self.client.config, self.timeout)
                );
                return Err(fail(&method, &url, message, started.elapsed())
                    .with_source(error.without_url()));
            }
        };
        let status = response.status().as_u16();
        let headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .collect();
        let body = match response.bytes().await {
            Ok(body) => body.to_vec(),
            Err(error) => {
                let message = format!(
                    "{method} {url} failed reading the response: {}",
                    describe(&error, &self.client.config, self.timeout)
                );
                return Err(fail(&method, &url, message, started.elapsed())
                    .with_source(error.without_url()));
            }
        };
        let elapsed = started.elapsed();
        let response = ApiResponse {
            status,
            headers,
            body,
            elapsed,
        };
        let (data, truncated) = response.logged_data();
        let mut fields = vec![
            ("status", json!(status)),
            ("ok", json!(response.is_success())),
            ("content_type", json!(response.header("content-type"))),
            ("response_bytes", json!(response.body.len())),
            ("data", data),
            ("elapsed_ms", json!(millis(elapsed))),
        ];
        if truncated {
            fields.push(("data_truncated", json!(true)));
        }
        let level = if response.is_success() {
            Level::INFO
        } else {
            Level::WARN
        };
        emit(
            level,
            "api_response",
            &format!("API response: {status} from {method} {url}"),
            &fields,
        );
        let slow = self.client.config.slow_response;
        if elapsed > slow {
            alert(
                "api_response_time",
                &format!(
                    "{method} {url} took {:.0} ms, over the {} ms threshold",
                    millis(elapsed),
                    slow.as_millis()
                ),
                json!(millis(elapsed)),
                json!(millis(slow)),
            );
        }
        Ok(response)
    }
}

fn logged_header(name: &str, value: &str) -> Value {
    if is_sensitive_name(name) {
        Value::from(REDACTED)
    } else {
        Value::from(value)
    }
}

fn log_auth(token_type: &str, authenticated: bool, expires_at: Option<SystemTime>) {
    emit(
        Level::INFO,
        "auth",
        if authenticated {
            "Authenticated call"
        } else {
            "Authentication token expired"
        },
        &vec![
            ("authenticated", json!(authenticated)),
            ("token_type", json!(token_type)),
            (
                "expires_at",
                expires_at.map_or(Value::Null, |at| json!(format_time(Some(at)))),
            ),
        ],
    );
}

/// Logs `api_error` and makes the error.
fn fail(method: &Method, url: &str, message: String, elapsed: Duration) -> Error {
    emit(
        Level::ERROR,
        "api_error",
        &message,
        &vec![
            ("method", json!(method.as_str())),
            ("url", json!(url)),
            ("error", json!(message)),
            ("elapsed_ms", json!(millis(elapsed))),
        ],
    );
    Error::new(ErrorKind::Upstream, message)
}

/// Says which way a call failed.
fn describe(error: &reqwest::Error, config: &HttpConfig, timeout: Option<Duration>) -> String {
    // The causes, as written (the URL is named by the caller, sanitized);
    // a lowercase copy only to recognise them.
    let chain = {
        let mut text = String::new();
        let mut source: Option<&dyn std::error::Error> = std::error::Error::source(error);
        while let Some(e) = source {
            text.push_str(&e.to_string());
            text.push(' ');
            source = e.source();
        }
        text
    };
    let lower = chain.to_ascii_lowercase();
    if error.is_timeout() {
        if error.is_connect() {
            format!(
                "connecting timed out after {} ms",
                config.connect_timeout.as_millis()
            )
        } else {
            format!(
                "timed out after {} ms",
                timeout.unwrap_or(config.timeout).as_millis()
            )
        }
    } else if lower.contains("dns error")
        || lower.contains("failed to lookup")
        || lower.contains("name or service not known")
    {
        "the host name could not be resolved (DNS)".to_owned()
    } else if lower.contains("connection refused") {
        "the connection was refused".to_owned()
    } else if error.is_connect() {
        format!("could not connect: {}", chain.trim())
    } else if error.is_builder() {
        "the URL is not valid".to_owned()
    } else if chain.trim().is_empty() {
        "the request failed".to_owned()
    } else {
        chain.trim().to_owned()
    }
}

/// The URL without user name and password, and with the value of every
/// sensitive query parameter replaced by `[REDACTED]`.
#[must_use]
pub fn sanitize_url(url: &str) -> String {
    let Ok(mut parsed) = reqwest::Url::parse(url) else {
        return "[invalid URL]".to_owned();
    };
    let _ = parsed.set_username("");
    let _ = parsed.set_password(None);
    if parsed.query().is_some() {
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(k, v)| {
                let v = if is_sensitive_name(&k) {
                    REDACTED.to_owned()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
    }
    parsed.to_string()
}

fn format_time(at: Option<SystemTime>) -> String {
    at.map_or_else(
        || "never".to_owned(),
        |at| humantime::format_rfc3339_seconds(at).to_string(),
    )
}

/// Milliseconds with microsecond precision, as the contract logs them.
fn millis(duration: Duration) -> f64 {
    (duration.as_micros() as f64) / 1000.0
}

/// A response: status, headers and the whole body.
#[derive(Clone)]
pub struct ApiResponse {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    elapsed: Duration,
}

impl fmt::Debug for ApiResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiResponse")
            .field("status", &self.status)
            .field("body_bytes", &self.body.len())
            .finish_non_exhaustive()
    }
}

impl ApiResponse {
    /// The status code.
    #[must_use]
    pub fn status(&self) -> u16 {
        self.status
    }

    /// Whether the status is 2xx.
    #[must_use]
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The first value of header `name` (case-insensitive).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find_map(|(n, v)| n.eq_ignore_ascii_case(name).then_some(v.as_str()))
    }

    /// The body.
    #[must_use]
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// The body as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body parsed as JSON.
    ///
    /// # Errors
    /// The body is not JSON of that shape.
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T, Error> {
        serde_json::from_slice(&self.body).map_err(|e| {
            Error::new(
                ErrorKind::Upstream,
                format!(
                    "the response (status {}) is not the JSON expected: {e}",
                    self.status
                ),
            )
            .with_source(e)
        })
    }

    /// How long the call took.
    #[must_use]
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// The body as the `api_response` record logs it: JSON as is, text cut
    /// at [`MAX_LOGGED_BODY`] bytes (on a character boundary).
    fn logged_data(&self) -> (Value, bool) {
        let content_type = self.header("content-type").unwrap_or("");
        if content_type.contains("json") {
            if let Ok(value) = serde_json::from_slice::<Value>(&self.body) {
                return (redact_json(&value), false);
            }
        }
        let textual = content_type.is_empty()
            || content_type.starts_with("text/")
            || ["json", "xml", "form", "javascript"]
                .iter()
                .any(|kind| content_type.contains(kind));
        let Ok(text) = std::str::from_utf8(&self.body)
            .map_err(|_| ())
            .and_then(|text| if textual { Ok(text) } else { Err(()) })
        else {
            // Audio, images and other bytes say nothing in a log line.
            return (
                Value::from(format!(
                    "[{} bytes of {}]",
                    self.body.len(),
                    if content_type.is_empty() {
                        "binary data"
                    } else {
                        content_type
                    }
                )),
                false,
            );
        };
        if content_type.contains("x-www-form-urlencoded") {
            // Form answers (tokens minted by OAuth servers) are logged as
            // an object, so their sensitive members are redacted by name.
            let pairs: serde_json::Map<String, Value> = form_urlencoded::parse(text.as_bytes())
                .map(|(k, v)| (k.into_owned(), Value::from(v.into_owned())))
                .collect();
            return (redact_json(&Value::Object(pairs)), false);
        }
        // Scrubbed before it is cut, so no part of a secret is left.
        let mut text = text.to_owned();
        crate::secret::scrub(&mut text, &[]);
        if text.len() <= MAX_LOGGED_BODY {
            return (Value::from(text), false);
        }
        let mut end = MAX_LOGGED_BODY;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        (Value::from(&text[..end]), true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_credentials_and_secret_query_values() {
        assert_eq!(
            sanitize_url("https://api:key-canary-1@api.example.com/v3/mg.example.com/messages?api_key=k-canary&page=2"),
            "https://api.example.com/v3/mg.example.com/messages?api_key=%5BREDACTED%5D&page=2"
        );
        assert_eq!(sanitize_url("not a url"), "[invalid URL]");
        assert_eq!(
            sanitize_url("http://127.0.0.1:8080/a"),
            "http://127.0.0.1:8080/a"
        );
    }

    #[test]
    fn expired_tokens() {
        let past = BearerToken::new(
            "t-canary-0001",
            Some(SystemTime::now() - Duration::from_secs(1)),
        );
        assert!(past.is_expired());
        assert!(!BearerToken::new("t-canary-0002", None).is_expired());
    }

    #[test]
    fn logged_data_cuts_long_text_on_a_char_boundary() {
        let body = "é".repeat(MAX_LOGGED_BODY);
        let response = ApiResponse {
            status: 200,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: body.into_bytes(),
            elapsed: Duration::ZERO,
        };
        let (data, truncated) = response.logged_data();
        assert!(truncated);
        assert_eq!(data.as_str().unwrap().len(), MAX_LOGGED_BODY);
        let json = ApiResponse {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: br#"{"id":"1"}"#.to_vec(),
            elapsed: Duration::ZERO,
        };
        assert_eq!(json.logged_data(), (json!({"id": "1"}), false));
        let audio = ApiResponse {
            status: 200,
            headers: vec![("content-type".into(), "audio/mpeg".into())],
            body: vec![0xff, 0xfb, 0x90, 0x00],
            elapsed: Duration::ZERO,
        };
        assert_eq!(
            audio.logged_data(),
            (json!("[4 bytes of audio/mpeg]"), false)
        );
        let unknown = ApiResponse {
            status: 200,
            headers: vec![],
            body: vec![0xff, 0xfe],
            elapsed: Duration::ZERO,
        };
        assert_eq!(
            unknown.logged_data(),
            (json!("[2 bytes of binary data]"), false)
        );
    }
}
