//! The logged HTTP client: every call writes `api_request`, `auth`
//! (`authenticated: false` and `token_type: "none"` for a call without
//! credentials) and `api_response` (or `api_error`), with credentials
//! removed from URLs, sensitive headers redacted by name, and an `alert`
//! when the call is slow, however it ends.

use std::fmt;
use std::sync::Once;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};
use tracing::Level;

use crate::config::{ConfigError, HttpVariables, Source};
use crate::error::Error;
use crate::error::ErrorKind;
use crate::function::contract::alert;
use crate::record::{emit, emit_at};
use crate::secret::{is_sensitive_name, redact_json, Secret, REDACTED};

use reqwest::Method;

pub use crate::tls::{RootsOrigin, TlsRoots};

/// How much of a text response body the `api_response` record logs.
pub const MAX_LOGGED_BODY: usize = 2048;

/// How much of a JSON (or form) response the `api_response` record logs as
/// an object; a longer one is logged as its compact JSON text, cut here.
pub const MAX_LOGGED_JSON: usize = 16 * 1024;

/// How much of a response an [`HttpClient`] reads by default: 1 MiB,
/// plenty for a JSON API.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 1024 * 1024;

/// What a call keeps of the function's time: a call is cut this long
/// before the function would time out, so that the function can still
/// answer (with its fallback) and log why.
pub const DEADLINE_RESERVE: Duration = Duration::from_millis(500);

/// Timeouts, response size cap and alert threshold of an [`HttpClient`].
///
/// The defaults keep a call well inside the function's own 10 s: a
/// hanging upstream fails the call, and the function still answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpConfig {
    /// How long connecting may take (default 3 s).
    pub connect_timeout: Duration,
    /// How long a whole call may take, body included (default 6 s). Inside
    /// an invocation a call also ends [`DEADLINE_RESERVE`] before the
    /// function's timeout, whichever comes first.
    pub timeout: Duration,
    /// A call slower than this raises an `alert` (default 5 s), however it
    /// ends: a response of any status, a timeout, a connection or read
    /// error.
    pub slow_response: Duration,
    /// The largest response body read, in bytes (default
    /// [`DEFAULT_MAX_RESPONSE_BYTES`]): a larger one is abandoned as soon
    /// as it is known to be larger, from its `Content-Length` or while it
    /// streams in.
    pub max_response_bytes: u64,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            connect_timeout: Duration::from_secs(3),
            timeout: Duration::from_secs(6),
            slow_response: Duration::from_secs(5),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        }
    }
}

impl HttpConfig {
    /// This configuration with the variables `vars` names applied where
    /// `source` (a [`crate::Context`], a [`crate::config::Env`]) has them
    /// (blank values are unset).
    ///
    /// # Errors
    /// A value that is not a whole number, or is 0; the message names the
    /// variable and says what it takes. It converts into an [`Error`] of
    /// kind `Configuration`.
    pub(crate) fn with_settings<S: Source + ?Sized>(
        mut self,
        vars: &HttpVariables,
        source: &S,
    ) -> Result<Self, ConfigError> {
        if let Some(timeout) = vars.timeout.millis(source)? {
            self.timeout = timeout;
        }
        if let Some(timeout) = vars.connect_timeout.millis(source)? {
            self.connect_timeout = timeout;
        }
        if let Some(bytes) = vars.max_response_bytes.whole(source)? {
            self.max_response_bytes = bytes;
        }
        Ok(self)
    }
}

/// Whether `url` lies within `base`: the same scheme, host and port, and a
/// path under `base`'s path, compared segment by segment. This is how ccfn
/// decides where credentials may go; a string prefix would let
/// `https://api.twilio.com.evil.example/` pass for `https://api.twilio.com`.
///
/// ```
/// use ccfn_core::http::is_within;
///
/// assert!(is_within("https://api.twilio.com", "https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE1"));
/// assert!(is_within("https://api.twilio.com/2010-04-01/", "https://API.twilio.com:443/2010-04-01/x"));
/// assert!(!is_within("https://api.twilio.com", "https://api.twilio.com.evil.example/x"));
/// assert!(!is_within("https://api.twilio.com", "https://api.twilio.com@evil.example/x"));
/// assert!(!is_within("https://api.twilio.com", "http://api.twilio.com/x"));
/// assert!(!is_within("https://api.twilio.com/2010-04-01", "https://api.twilio.com/2010-04-01x/y"));
/// assert!(!is_within("https://api.twilio.com/a", "https://api.twilio.com/a/../b"));
/// ```
#[must_use]
pub fn is_within(base: &str, url: &str) -> bool {
    let (Ok(base), Ok(url)) = (reqwest::Url::parse(base), reqwest::Url::parse(url)) else {
        return false;
    };
    if !same_origin(&base, &url) || !url.username().is_empty() || url.password().is_some() {
        return false;
    }
    let segments = |url: &reqwest::Url| -> Vec<String> {
        url.path_segments()
            .map(|s| s.filter(|s| !s.is_empty()).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let (base, url) = (segments(&base), segments(&url));
    url.len() >= base.len() && base.iter().zip(&url).all(|(b, u)| b == u)
}

/// Whether two URLs have the same scheme, host and port (the default port
/// of the scheme when none is written).
pub(crate) fn same_origin(a: &reqwest::Url, b: &reqwest::Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str().is_some()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// A bearer token with its expiry, held as a secret.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use ccfn_core::http::BearerToken;
/// use ccfn_core::Context;
///
/// let token = BearerToken::new("eyJhbGciOi-canary", Some(SystemTime::now() + Duration::from_secs(60)));
/// assert!(!token.is_expired());
/// assert_eq!(format!("{token:?}"), "BearerToken { token: [REDACTED], expires_at: Some(..) }");
///
/// // Straight from a secret the context holds.
/// let context = Context::builder().secret("CRM_TOKEN", "eyJhbGciOi-canary-2").build();
/// let token = BearerToken::new(context.secret("CRM_TOKEN").unwrap(), None);
/// assert!(!token.is_expired());
/// ```
#[derive(Clone)]
pub struct BearerToken {
    token: Secret,
    expires_at: Option<SystemTime>,
}

impl BearerToken {
    /// A token that expires at `expires_at` (`None`: never): a
    /// [`Secret`] (or `&Secret`, as [`crate::Context::secret`] gives it),
    /// or text that becomes one.
    pub fn new(token: impl Into<Secret>, expires_at: Option<SystemTime>) -> Self {
        BearerToken {
            token: token.into(),
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
///
/// Redirects are followed (10 at most), never from `https` to `http`.
/// Crossing to another origin drops the `Authorization` and cookie
/// headers; a request that carries a header of its own with a sensitive
/// name (`X-Api-Key`, say) follows redirects within its origin only, and
/// otherwise gets the redirect itself as its response.
#[derive(Clone)]
pub struct HttpClient {
    client: reqwest::Client,
    /// The same, following redirects within the request's origin only.
    same_origin: reqwest::Client,
    config: HttpConfig,
}

/// The redirect policy: at most 10, never down to `http`, and within the
/// origin only when `same_origin_only`.
fn redirects(same_origin_only: bool) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let Some(previous) = attempt.previous().last() else {
            return attempt.follow();
        };
        if attempt.previous().len() > 10 {
            return attempt.error("more than 10 redirects");
        }
        let next = attempt.url();
        if same_origin(previous, next) {
            attempt.follow()
        } else if previous.scheme() == "https" && next.scheme() != "https" {
            attempt.error("a redirect from https to another scheme is not followed")
        } else if same_origin_only {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClient")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl HttpClient {
    /// A client with `config`, trusting the CA certificates the process
    /// environment and the `.env` file say ([`TlsRoots::from_env`]).
    ///
    /// # Errors
    /// The CA certificates cannot be loaded (kind `Configuration`; the
    /// message says what is missing and how to fix it), or the TLS
    /// backend cannot be set up.
    pub fn new(config: HttpConfig) -> Result<Self, Error> {
        HttpClient::with_roots(config, &TlsRoots::from_env()?)
    }

    /// A client with `config`, trusting `roots` only. Plain `http://`
    /// calls work whatever `roots` holds.
    ///
    /// # Errors
    /// The TLS backend cannot be set up.
    pub fn with_roots(config: HttpConfig, roots: &TlsRoots) -> Result<Self, Error> {
        install_crypto_provider();
        let build = |same_origin_only: bool| {
            roots
                .apply(reqwest::Client::builder())
                .connect_timeout(config.connect_timeout)
                .timeout(config.timeout)
                .redirect(redirects(same_origin_only))
                .build()
                .map_err(|e| {
                    Error::new(
                        ErrorKind::Upstream,
                        format!("cannot set up the HTTP client: {e}"),
                    )
                    .with_source(e)
                })
        };
        Ok(HttpClient {
            client: build(false)?,
            same_origin: build(true)?,
            config,
        })
    }

    /// The client's configuration.
    #[must_use]
    pub fn config(&self) -> &HttpConfig {
        &self.config
    }

    /// A request of `method` to `url`.
    fn request(&self, method: Method, url: impl Into<String>) -> ApiRequest {
        ApiRequest {
            client: self.clone(),
            method,
            url: url.into(),
            headers: Vec::new(),
            body: Body::Empty,
            auth: Auth::None,
            timeout: None,
            max_response_bytes: None,
            json_text: &[],
            invalid: None,
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

    /// A `PUT` request.
    pub fn put(&self, url: impl Into<String>) -> ApiRequest {
        self.request(Method::PUT, url)
    }

    /// A `PATCH` request.
    pub fn patch(&self, url: impl Into<String>) -> ApiRequest {
        self.request(Method::PATCH, url)
    }

    /// A `DELETE` request.
    pub fn delete(&self, url: impl Into<String>) -> ApiRequest {
        self.request(Method::DELETE, url)
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
    max_response_bytes: Option<u64>,
    /// Members whose value the service sends as JSON text, logged as the
    /// JSON they hold ([`ApiRequest::json_text_fields`]).
    json_text: &'static [&'static str],
    /// Why the request cannot be sent (a query or body that cannot be
    /// encoded): [`ApiRequest::send`] fails with it, as reqwest's does.
    invalid: Option<String>,
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
    /// Adds a header. Sensitive ones (see [`crate::record::is_sensitive_name`])
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

    /// Appends `query` (a struct, a map, or a slice of pairs) to the URL's
    /// query string. Parameters with sensitive names (see
    /// [`crate::record::is_sensitive_name`]) are logged as `[REDACTED]`.
    ///
    /// A value that cannot be encoded as a query (a nested map, say) makes
    /// [`ApiRequest::send`] fail without calling.
    pub fn query<T: serde::Serialize + ?Sized>(mut self, query: &T) -> Self {
        match serde_urlencoded::to_string(query) {
            Ok(encoded) if encoded.is_empty() => {}
            Ok(encoded) => {
                // An invalid URL is left as it is: `send` says so.
                if let Ok(mut url) = reqwest::Url::parse(&self.url) {
                    let query = match url.query() {
                        Some(existing) if !existing.is_empty() => format!("{existing}&{encoded}"),
                        _ => encoded,
                    };
                    url.set_query(Some(&query));
                    self.url = url.into();
                }
            }
            Err(error) => {
                self.invalid
                    .get_or_insert(format!("the query cannot be encoded: {error}"));
            }
        }
        self
    }

    /// A JSON body: `value` serialized (a `serde_json::Value`, or any
    /// `Serialize` type).
    ///
    /// A value that cannot be serialized (a map with non-string keys, say)
    /// makes [`ApiRequest::send`] fail without calling.
    pub fn json<T: serde::Serialize + ?Sized>(mut self, value: &T) -> Self {
        match serde_json::to_vec(value) {
            Ok(bytes) => {
                self.body = Body::Bytes {
                    content_type: "application/json".into(),
                    bytes,
                };
            }
            Err(error) => {
                self.invalid
                    .get_or_insert(format!("the JSON body cannot be serialized: {error}"));
            }
        }
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

    /// Overrides the client's total timeout for this call (inside an
    /// invocation, the call still ends [`DEADLINE_RESERVE`] before the
    /// function's timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Overrides the client's response size cap for this call: a body of
    /// more than `bytes` is abandoned, and the call fails with an
    /// `api_error` record that names the cap.
    pub fn max_response_bytes(mut self, bytes: u64) -> Self {
        self.max_response_bytes = Some(bytes);
        self
    }

    /// Members of the JSON answer that the service sends as JSON *text*
    /// (a string holding an object or an array), logged in the
    /// `api_response` record's `data` as the JSON they hold, at any depth:
    /// the task router's `attributes` of a task and `configuration` of a
    /// workflow, as the platform's API definitions say. The record then
    /// shows them as objects, which a reader (or a snapshot redaction such
    /// as `.**.requested_at`) reaches inside. Members of a sensitive name
    /// inside are redacted as everywhere, every secret value is scrubbed,
    /// and the whole `data` keeps its bound ([`MAX_LOGGED_JSON`]). Text
    /// that is not an object or an array of JSON is logged as the text it
    /// is. What [`ApiResponse::json`] and [`ApiResponse::text`] read is the
    /// answer as it came.
    ///
    /// ```
    /// use ccfn_core::http::{HttpClient, HttpConfig};
    ///
    /// let client = HttpClient::new(HttpConfig::default())?;
    /// let request = client
    ///     .get("https://taskrouter.example.com/v1/Workspaces/WS1/Tasks/WT1")
    ///     .json_text_fields(&["attributes"]);
    /// # let _ = request;
    /// # Ok::<(), ccfn_core::Error>(())
    /// ```
    pub fn json_text_fields(mut self, names: &'static [&'static str]) -> Self {
        self.json_text = names;
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
        self.log_request(&method, &url);
        let limit = self.time_limit();
        // Ends as a call that got no response unless finished below.
        let traced = crate::observe::observer()
            .and_then(|observer| observer.start_call(method.as_str(), &url));
        let traceparent = traced.as_ref().and_then(|traced| traced.traceparent());
        let call = Call {
            method: &method,
            url: &url,
            config: self.client.config,
            cap: self
                .max_response_bytes
                .unwrap_or(self.client.config.max_response_bytes),
            json_text: self.json_text,
        };
        let request = self.build(&call, traceparent)?;
        let limit = limit.map_err(|message| call.not_sent(&message))?;
        let request = request.timeout(limit.timeout);

        let started = Instant::now();
        let response = call.send_within(request, &limit, started).await?;
        let response = call.read_bounded(response, &limit, started).await?;
        call.log_response(&response);
        if let Some(traced) = traced {
            traced.finish(response.status, response.body.len());
        }
        alert_if_slow(&call.config, &method, &url, response.elapsed, true);
        Ok(response)
    }

    /// Writes the `api_request` record: the method, the URL without
    /// credentials, the headers with the sensitive ones `[REDACTED]` (and
    /// the content type and `authorization` the call adds), the body's size.
    fn log_request(&self, method: &Method, url: &str) {
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
        let logged_headers = Value::Object(logged_headers.into_iter().collect());
        emit(
            &format!("API request: {method} {url}"),
            &crate::record::ApiRequest {
                method: method.as_str(),
                url,
                headers: &logged_headers,
                request_bytes,
            },
        );
    }

    /// The reqwest request: on the client that suits its headers, with
    /// `traceparent` (unless the caller set one), the headers, the
    /// credentials (the `auth` record written) and the body. An expired
    /// bearer token, or a query or body that could not be encoded, fails
    /// it before anything is sent.
    fn build(
        self,
        call: &Call<'_>,
        traceparent: Option<String>,
    ) -> Result<reqwest::RequestBuilder, Error> {
        // A header of the caller's own with a sensitive name is not one
        // reqwest drops on a redirect to another origin.
        let client = if self.headers.iter().any(|(name, _)| is_sensitive_name(name)) {
            &self.client.same_origin
        } else {
            &self.client.client
        };
        let mut request = client.request(self.method, &self.url);
        if let Some(traceparent) = traceparent {
            let own = self
                .headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case("traceparent"));
            if !own {
                request = request.header("traceparent", traceparent);
            }
        }
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        match &self.auth {
            Auth::None => log_auth(TokenType::None, None),
            Auth::Basic { user, password } => {
                log_auth(TokenType::Basic, None);
                request = request.basic_auth(user, Some(password.expose()));
            }
            Auth::Bearer(token) => {
                if token.is_expired() {
                    log_auth(TokenType::ExpiredBearer, token.expires_at);
                    return Err(call.not_sent(&format!(
                        "the bearer token expired at {}",
                        format_time(token.expires_at)
                    )));
                }
                log_auth(TokenType::Bearer, token.expires_at);
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
        if let Some(invalid) = &self.invalid {
            return Err(call.not_sent(invalid));
        }
        Ok(request)
    }
}

/// One call once its request is built: what the phases that send it, read
/// its answer and log it share.
struct Call<'a> {
    method: &'a Method,
    /// The URL without credentials, as records and errors name it.
    url: &'a str,
    config: HttpConfig,
    /// The response size cap of this call.
    cap: u64,
    /// Members logged as the JSON their text holds.
    json_text: &'static [&'static str],
}

impl Call<'_> {
    /// The call is not made, because of `why`: an `api_error` record and
    /// the error.
    fn not_sent(&self, why: &str) -> Error {
        let (method, url) = (self.method, self.url);
        fail(
            method,
            url,
            format!("{method} {url} not sent: {why}"),
            Duration::ZERO,
            None,
        )
    }

    /// The call failed `elapsed` after it was sent, as `message` says: an
    /// `api_error` record (with the cap and the status when the answer
    /// was too large), the slow-call alert when due, and the error.
    fn failed(&self, message: String, elapsed: Duration, too_large: Option<u16>) -> Error {
        let failed = fail(
            self.method,
            self.url,
            message,
            elapsed,
            too_large.map(|status| (self.cap, status)),
        );
        alert_if_slow(&self.config, self.method, self.url, elapsed, false);
        failed
    }

    /// Sends `request` (its timeout set from `limit`): the response's
    /// head, or the error that says which way it failed.
    async fn send_within(
        &self,
        request: reqwest::RequestBuilder,
        limit: &TimeLimit,
        started: Instant,
    ) -> Result<reqwest::Response, Error> {
        let (method, url) = (self.method, self.url);
        request.send().await.map_err(|error| {
            let message = format!(
                "{method} {url} failed: {}",
                describe(&error, &self.config, limit)
            );
            self.failed(message, started.elapsed(), None)
                .with_source(error.without_url())
        })
    }

    /// Reads the answer's body, abandoned as soon as it is known to be
    /// over the cap: from its `Content-Length`, else while it streams in.
    async fn read_bounded(
        &self,
        mut response: reqwest::Response,
        limit: &TimeLimit,
        started: Instant,
    ) -> Result<ApiResponse, Error> {
        let (method, url, cap) = (self.method, self.url, self.cap);
        let status = response.status().as_u16();
        let headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .collect();
        let too_large = |what: String| {
            self.failed(
                format!(
                    "{method} {url} failed: the response ({status}) is larger than the {cap}-byte cap ({what}); abandoned"
                ),
                started.elapsed(),
                Some(status),
            )
        };
        // Decided from what the upstream sends, never from what a caller
        // claims the size will be.
        if let Some(length) = response.content_length().filter(|length| *length > cap) {
            return Err(too_large(format!("Content-Length {length}")));
        }
        let expected = response.content_length().unwrap_or(0).min(cap);
        let mut body = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if (body.len() + chunk.len()) as u64 > cap {
                        return Err(too_large(format!("over {cap} bytes received")));
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(error) => {
                    let message = format!(
                        "{method} {url} failed reading the response: {}",
                        describe(&error, &self.config, limit)
                    );
                    return Err(self
                        .failed(message, started.elapsed(), None)
                        .with_source(error.without_url()));
                }
            }
        }
        Ok(ApiResponse {
            call: format!("{method} {url}"),
            status,
            headers,
            body,
            elapsed: started.elapsed(),
        })
    }

    /// Writes the `api_response` record: `INFO` for a success, `WARN`
    /// otherwise, with the body as [`ApiResponse::logged_data`] gives it.
    fn log_response(&self, response: &ApiResponse) {
        let (method, url, status) = (self.method, self.url, response.status);
        let (data, cut) = response.logged_data(self.json_text);
        let level = if response.is_success() {
            Level::INFO
        } else {
            Level::WARN
        };
        emit_at(
            level,
            &format!("API response: {status} from {method} {url}"),
            &crate::record::ApiResponse {
                status,
                ok: response.is_success(),
                content_type: response.header("content-type"),
                response_bytes: response.body.len(),
                data: &data,
                elapsed_ms: millis(response.elapsed),
                data_truncated: (cut > 0).then_some(true),
                data_cut_bytes: (cut > 0).then_some(cut),
            },
        );
    }
}

fn logged_header(name: &str, value: &str) -> Value {
    if is_sensitive_name(name) {
        Value::from(REDACTED)
    } else {
        Value::from(value)
    }
}

/// The `auth` record's view of a call's credentials.
#[derive(Clone, Copy)]
enum TokenType {
    /// No credentials: `authenticated: false`, `token_type: "none"`.
    None,
    Basic,
    Bearer,
    /// A bearer token past its expiry: the call is not made.
    ExpiredBearer,
}

/// Writes the `auth` record every call has, with or without credentials.
fn log_auth(token_type: TokenType, expires_at: Option<SystemTime>) {
    let (message, authenticated, name) = match token_type {
        TokenType::None => ("Unauthenticated call: no credentials", false, "none"),
        TokenType::Basic => ("Authenticated call", true, "basic"),
        TokenType::Bearer => ("Authenticated call", true, "bearer"),
        TokenType::ExpiredBearer => ("Authentication token expired", false, "bearer"),
    };
    let expires_at = expires_at.map(|at| format_time(Some(at)));
    emit(
        message,
        &crate::record::Auth {
            authenticated,
            token_type: name,
            expires_at: expires_at.as_deref(),
        },
    );
}

/// Raises the `api_response_time` alert when a call that was sent took
/// longer than the threshold, whether it got a response (`answered`) or
/// failed (timeout, connection or read error, an answer over the cap).
fn alert_if_slow(
    config: &HttpConfig,
    method: &Method,
    url: &str,
    elapsed: Duration,
    answered: bool,
) {
    let slow = config.slow_response;
    if elapsed <= slow {
        return;
    }
    let how = if answered { "took" } else { "failed after" };
    alert(
        "api_response_time",
        &format!(
            "{method} {url} {how} {:.0} ms, over the {} ms threshold",
            millis(elapsed),
            slow.as_millis()
        ),
        json!(millis(elapsed)),
        json!(millis(slow)),
    );
}

/// Logs `api_error` (with the cap and the status when the response was
/// too large) and makes the error.
fn fail(
    method: &Method,
    url: &str,
    message: String,
    elapsed: Duration,
    too_large: Option<(u64, u16)>,
) -> Error {
    emit(
        &message,
        &crate::record::ApiError {
            method: method.as_str(),
            url,
            error: &message,
            elapsed_ms: millis(elapsed),
            max_response_bytes: too_large.map(|(cap, _)| cap),
            status: too_large.map(|(_, status)| status),
        },
    );
    Error::new(ErrorKind::Upstream, message)
}

/// How long a call may take, and why.
struct TimeLimit {
    timeout: Duration,
    /// Whether the function's deadline, not the configured timeout, set it.
    by_deadline: bool,
}

impl ApiRequest {
    /// The configured timeout, shortened to end [`DEADLINE_RESERVE`]
    /// before the invocation's deadline; an error when no time is left.
    fn time_limit(&self) -> Result<TimeLimit, String> {
        let configured = self.timeout.unwrap_or(self.client.config.timeout);
        let Some(deadline) = crate::record::scope::invocation_deadline() else {
            return Ok(TimeLimit {
                timeout: configured,
                by_deadline: false,
            });
        };
        let left = deadline.saturating_duration_since(Instant::now());
        let usable = left.saturating_sub(DEADLINE_RESERVE);
        if usable.is_zero() {
            return Err(format!(
                "the function has {} ms left before its timeout, less than the {} ms kept to answer",
                left.as_millis(),
                DEADLINE_RESERVE.as_millis()
            ));
        }
        Ok(TimeLimit {
            timeout: configured.min(usable),
            by_deadline: usable < configured,
        })
    }
}

/// Says which way a call failed.
fn describe(error: &reqwest::Error, config: &HttpConfig, limit: &TimeLimit) -> String {
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
        } else if limit.by_deadline {
            format!(
                "timed out after {} ms, ended {} ms before the function's own timeout",
                limit.timeout.as_millis(),
                DEADLINE_RESERVE.as_millis()
            )
        } else {
            format!("timed out after {} ms", limit.timeout.as_millis())
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

/// The URL as ccfn writes URLs ([`crate::secret::display_url`]): user
/// information written `[REDACTED]@`, the value of every sensitive query
/// parameter `[REDACTED]`; `[invalid URL]` for a text that is not one.
#[must_use]
pub(crate) fn sanitize_url(url: &str) -> String {
    if reqwest::Url::parse(url).is_err() {
        return "[invalid URL]".to_owned();
    }
    crate::secret::display_url(url).into_owned()
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
    /// The method and the URL (without credentials) that answered.
    call: String,
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

    /// This response if its status is 2xx; otherwise an error of kind
    /// `Upstream` that names the call and the status (the body is in the
    /// `api_response` record, not in the error).
    ///
    /// # Errors
    /// The status is not 2xx.
    pub fn error_for_status(self) -> Result<Self, Error> {
        match self.status_error() {
            Some(error) => Err(error),
            None => Ok(self),
        }
    }

    /// [`ApiResponse::error_for_status`], keeping the response.
    ///
    /// # Errors
    /// The status is not 2xx.
    pub fn error_for_status_ref(&self) -> Result<&Self, Error> {
        match self.status_error() {
            Some(error) => Err(error),
            None => Ok(self),
        }
    }

    fn status_error(&self) -> Option<Error> {
        if self.is_success() {
            return None;
        }
        let reason = reqwest::StatusCode::from_u16(self.status)
            .ok()
            .and_then(|status| status.canonical_reason())
            .map(|reason| format!(" {reason}"))
            .unwrap_or_default();
        Some(
            Error::new(
                ErrorKind::Upstream,
                format!("{} answered {}{reason}", self.call, self.status),
            )
            .with_caller_message(format!("upstream service error (status {})", self.status)),
        )
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

    /// The body as the `api_response` record logs it, and how many bytes
    /// of it were cut: JSON as an object with sensitive members redacted
    /// (as compact JSON text cut at [`MAX_LOGGED_JSON`] bytes when longer),
    /// text cut at [`MAX_LOGGED_BODY`] bytes, on a character boundary.
    /// Members named in `json_text` that hold JSON text are logged as that
    /// JSON ([`ApiRequest::json_text_fields`]).
    fn logged_data(&self, json_text: &[&str]) -> (Value, usize) {
        let content_type = self.header("content-type").unwrap_or("");
        if content_type.contains("json")
            && let Ok(mut value) = serde_json::from_slice::<Value>(&self.body)
        {
            if !json_text.is_empty() {
                parse_json_text(&mut value, json_text);
            }
            let value = redact_json(&value);
            let text = value.to_string();
            if text.len() <= MAX_LOGGED_JSON {
                return (value, 0);
            }
            return cut(text, MAX_LOGGED_JSON);
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
                0,
            );
        };
        if content_type.contains("x-www-form-urlencoded") {
            // Form answers (tokens minted by OAuth servers) are logged as
            // an object, so their sensitive members are redacted by name.
            let pairs: serde_json::Map<String, Value> = form_urlencoded::parse(text.as_bytes())
                .map(|(k, v)| (k.into_owned(), Value::from(v.into_owned())))
                .collect();
            let value = redact_json(&Value::Object(pairs));
            let text = value.to_string();
            if text.len() <= MAX_LOGGED_JSON {
                return (value, 0);
            }
            return cut(text, MAX_LOGGED_JSON);
        }
        cut(text.to_owned(), MAX_LOGGED_BODY)
    }
}

/// Replaces, at any depth of `value`, each member named in `names` whose
/// value is text holding a JSON object or array by that JSON; any other
/// text stays as it is.
fn parse_json_text(value: &mut Value, names: &[&str]) {
    match value {
        Value::Object(members) => {
            for (name, member) in members.iter_mut() {
                if let Value::String(text) = member
                    && names.contains(&name.as_str())
                {
                    let held = text.trim_start();
                    if (held.starts_with('{') || held.starts_with('['))
                        && let Ok(parsed) = serde_json::from_str::<Value>(held)
                    {
                        *member = parsed;
                        continue;
                    }
                }
                parse_json_text(member, names);
            }
        }
        Value::Array(items) => {
            for item in items {
                parse_json_text(item, names);
            }
        }
        _ => {}
    }
}

/// `text`, scrubbed, then cut to at most `max` bytes on a character
/// boundary, and how many bytes were cut.
fn cut(mut text: String, max: usize) -> (Value, usize) {
    // Scrubbed before it is cut, so no part of a secret is left.
    crate::secret::scrub(&mut text, &[]);
    if text.len() <= max {
        return (Value::from(text), 0);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text.len() - end;
    text.truncate(end);
    (Value::from(text), cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_settings_reads_a_client_s_variables_and_names_a_bad_one() {
        use crate::config::{Env, TASKROUTER_HTTP};
        let env = Env::from_vars([("TASKROUTER_TIMEOUT_MS", "2500")]);
        let config = HttpConfig::default()
            .with_settings(&TASKROUTER_HTTP, &env)
            .unwrap();
        assert_eq!(config.timeout, Duration::from_millis(2500));
        let env = Env::from_vars([("TASKROUTER_MAX_RESPONSE_BYTES", "1MB")]);
        let error = HttpConfig::default()
            .with_settings(&TASKROUTER_HTTP, &env)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "TASKROUTER_MAX_RESPONSE_BYTES=\"1MB\": expected a whole number of bytes, at least 1"
        );
    }

    #[test]
    fn the_documented_defaults_are_the_defaults() {
        use crate::config::{DefaultValue, Env, CCFN_HTTP, EMAILPROVIDER_HTTP, TASKROUTER_HTTP};
        let documented = Env::from_vars(crate::config::SETTINGS.iter().filter_map(|setting| {
            match setting.default_value() {
                DefaultValue::Value(value) => Some((setting.name(), value)),
                _ => None,
            }
        }));
        for vars in [&CCFN_HTTP, &EMAILPROVIDER_HTTP, &TASKROUTER_HTTP] {
            assert_eq!(
                HttpConfig::default().with_settings(vars, &documented),
                Ok(HttpConfig::default())
            );
        }
    }

    #[test]
    fn urls_lose_credentials_and_secret_query_values() {
        assert_eq!(
            sanitize_url("https://api:key-canary-1@api.example.com/v3/mg.example.com/messages?api_key=k-canary&page=2"),
            "https://[REDACTED]@api.example.com/v3/mg.example.com/messages?api_key=[REDACTED]&page=2"
        );
        assert_eq!(sanitize_url("not a url"), "[invalid URL]");
        assert_eq!(
            sanitize_url("http://127.0.0.1:8080/a"),
            "http://127.0.0.1:8080/a"
        );
    }

    /// A loopback HTTP/1.1 server that answers `ok` to one request.
    async fn plain_server() -> String {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut request = [0; 4096];
            let _ = stream.read(&mut request).await;
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
                .await;
        });
        format!("http://{addr}/plain")
    }

    #[tokio::test]
    async fn plain_http_needs_no_ca_certificate() {
        let client = HttpClient::with_roots(HttpConfig::default(), &TlsRoots::none()).unwrap();
        let response = client.get(plain_server().await).send().await.unwrap();
        assert_eq!((response.status(), response.text().as_str()), (200, "ok"));
    }

    #[tokio::test]
    async fn a_context_without_system_certificates_still_calls_plain_http() {
        // The system's store as an image without `ca-certificates` has it.
        let dir = std::env::temp_dir().join(format!("ccfn-http-no-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let env = crate::config::Env::from_vars([("SSL_CERT_DIR", dir.to_str().unwrap())]);
        let context = crate::Context::from_source(&env).unwrap();
        let client = context.http().unwrap();
        let response = client.get(plain_server().await).send().await.unwrap();
        assert_eq!(response.status(), 200);
        // `auto`: the built-in roots, for HTTPS.
        assert_eq!(
            TlsRoots::load(&context).unwrap().origin(),
            RootsOrigin::BuiltinFallback
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

    fn json_answer(body: &Value) -> ApiResponse {
        ApiResponse {
            call: "GET https://example.test/".into(),
            status: 200,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn json_text_members_are_logged_as_the_json_they_hold() {
        let attributes = json!({ "type": "callback", "requested_at": "2026-11-26T10:00:00Z", "api_token": "tok-canary-77" });
        let answer = json_answer(&json!({
            "sid": "WT1",
            "attributes": attributes.to_string(),
            "notes": attributes.to_string(),
            "tasks": [{ "attributes": " [1, 2]" }, { "attributes": "not json {" }, { "attributes": "42" }],
        }));
        let (data, cut) = answer.logged_data(&["attributes"]);
        assert_eq!(cut, 0);
        assert_eq!(
            data["attributes"],
            json!({ "type": "callback", "requested_at": "2026-11-26T10:00:00Z", "api_token": REDACTED }),
            "parsed, and a sensitive name inside redacted"
        );
        assert_eq!(
            data["notes"],
            Value::from(attributes.to_string()),
            "another name stays text"
        );
        assert_eq!(data["tasks"][0]["attributes"], json!([1, 2]));
        assert_eq!(
            data["tasks"][1]["attributes"], "not json {",
            "text that does not parse stays text"
        );
        assert_eq!(
            data["tasks"][2]["attributes"], "42",
            "neither an object nor an array"
        );
        // Without the names, as before.
        let (plain, _) = answer.logged_data(&[]);
        assert!(plain["attributes"].is_string());
        // The bound holds for the whole, after parsing.
        let long = json!({ "note": "x".repeat(MAX_LOGGED_JSON) }).to_string();
        let (data, cut) = json_answer(&json!({ "attributes": long })).logged_data(&["attributes"]);
        assert!(cut > 0);
        assert_eq!(data.as_str().unwrap().len(), MAX_LOGGED_JSON);
    }

    #[test]
    fn logged_data_cuts_long_text_on_a_char_boundary() {
        let body = "é".repeat(MAX_LOGGED_BODY);
        let body_len = body.len();
        let response = ApiResponse {
            call: "GET https://example.test/".into(),
            status: 200,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: body.into_bytes(),
            elapsed: Duration::ZERO,
        };
        let (data, cut) = response.logged_data(&[]);
        assert_eq!(cut, body_len - MAX_LOGGED_BODY);
        assert_eq!(data.as_str().unwrap().len(), MAX_LOGGED_BODY);
        let json = ApiResponse {
            call: "GET https://example.test/".into(),
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: br#"{"id":"1"}"#.to_vec(),
            elapsed: Duration::ZERO,
        };
        assert_eq!(json.logged_data(&[]), (json!({"id": "1"}), 0));
        let audio = ApiResponse {
            call: "GET https://example.test/".into(),
            status: 200,
            headers: vec![("content-type".into(), "audio/mpeg".into())],
            body: vec![0xff, 0xfb, 0x90, 0x00],
            elapsed: Duration::ZERO,
        };
        assert_eq!(
            audio.logged_data(&[]),
            (json!("[4 bytes of audio/mpeg]"), 0)
        );
        let unknown = ApiResponse {
            call: "GET https://example.test/".into(),
            status: 200,
            headers: vec![],
            body: vec![0xff, 0xfe],
            elapsed: Duration::ZERO,
        };
        assert_eq!(
            unknown.logged_data(&[]),
            (json!("[2 bytes of binary data]"), 0)
        );
    }
}
