//! A fake email provider served over real HTTP on loopback.
//!
//! [`FakeEmailProvider::start`] binds `127.0.0.1` on a free port and serves
//! the provider's `POST /{domain}/messages`: it parses the real multipart
//! body and the basic-auth header, records each request as a
//! [`RecordedEmail`], and answers with the configured [`FakeAnswer`]
//! (`200 {"id": "<fake.N@{domain}>", "message": "Queued. Thank you."}` by
//! default). Point the client at [`FakeEmailProvider::url`]. Like the
//! provider, it answers 400 with a JSON `message` to a body that is not
//! multipart, lacks `from` or `to`, or has an unknown field.
//!
//! ```
//! use ccfn_core::email::{EmailClient, EmailMessage, EmailProviderConfig};
//! use ccfn_core::Secret;
//! use ccfn_testkit::fake_email::{FakeAnswer, FakeEmailProvider};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let fake = FakeEmailProvider::start().await;
//! fake.expect(1); // checked when `fake` is dropped
//!
//! let config = EmailProviderConfig::new("mg.example.com", Secret::new("key-doc-0123456789"))
//!     .base_url(fake.url());
//! let client = EmailClient::new(config).unwrap();
//! let message = EmailMessage::new("voicemail@mg.example.com")
//!     .to("oncall@example.com")
//!     .subject("New voicemail")
//!     .text("Listen to it.");
//! let sent = client.send(&message).await.unwrap();
//! assert_eq!(sent.id, "<fake.1@mg.example.com>");
//!
//! let request = &fake.requests()[0];
//! assert_eq!(request.domain, "mg.example.com");
//! assert_eq!(request.authorization_user.as_deref(), Some("api"));
//! assert_eq!(request.password, "key-doc-0123456789");
//! assert_eq!(request.to, ["oncall@example.com"]);
//!
//! // Later calls get another answer:
//! fake.respond_with(FakeAnswer::status(401).body("Forbidden"));
//! # });
//! ```

use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::multipart::MultipartRejection;
use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};

use crate::loopback::{basic_auth, lock, Server};

/// The largest request body the fake reads: 64 MiB, over the provider's
/// 25 MiB so that size limits are the client's to enforce.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024 * 1024;

/// A request the fake received, as parsed from the wire.
///
/// `Debug` shows the password's length, not the password.
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecordedEmail {
    /// The sending domain of the path (`/{domain}/messages`).
    pub domain: String,
    /// The basic-auth user name (`api`), when an `Authorization: Basic`
    /// header came.
    pub authorization_user: Option<String>,
    /// Whether the basic-auth header carried a password that is not empty.
    pub authorization_password_present: bool,
    /// The basic-auth password as sent (empty when none), so that tests can
    /// check that the right key went out.
    pub password: String,
    /// The `from` field.
    pub from: String,
    /// The `to` fields, in order.
    pub to: Vec<String>,
    /// The `subject` field.
    pub subject: String,
    /// The `text` field, when sent.
    pub text: Option<String>,
    /// The `html` field, when sent.
    pub html: Option<String>,
    /// The `attachment` file parts: file name, content type (empty when
    /// none) and size in bytes.
    pub attachments: Vec<(String, String, usize)>,
}

impl fmt::Debug for RecordedEmail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordedEmail")
            .field("domain", &self.domain)
            .field("authorization_user", &self.authorization_user)
            .field(
                "authorization_password_present",
                &self.authorization_password_present,
            )
            .field(
                "password",
                &format_args!("[{} characters]", self.password.chars().count()),
            )
            .field("from", &self.from)
            .field("to", &self.to)
            .field("subject", &self.subject)
            .field("text", &self.text)
            .field("html", &self.html)
            .field("attachments", &self.attachments)
            .finish()
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Body {
    /// The provider's `{"id", "message"}`, with a fresh id.
    Queued,
    Json(Value),
    Text(String),
    Empty,
}

/// What the fake answers: a status, a body and a delay.
///
/// ```
/// use std::time::Duration;
/// use ccfn_testkit::fake_email::FakeAnswer;
///
/// let queued = FakeAnswer::ok();
/// let refused = FakeAnswer::status(401).body("Forbidden");
/// let rejected = FakeAnswer::status(400)
///     .json(serde_json::json!({"message": "'to' parameter is not a valid address"}));
/// let slow = FakeAnswer::ok().delay(Duration::from_millis(200));
/// # let _ = (queued, refused, rejected, slow);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use = "give it to FakeEmailProvider::respond_with"]
pub struct FakeAnswer {
    status: u16,
    body: Body,
    delay: Duration,
}

impl FakeAnswer {
    /// `200` with `{"id": "<fake.N@{domain}>", "message": "Queued. Thank
    /// you."}`, N counting the server's accepted messages from 1: the
    /// provider's answer.
    pub fn ok() -> Self {
        FakeAnswer {
            status: 200,
            body: Body::Queued,
            delay: Duration::ZERO,
        }
    }

    /// `status` with an empty body (set one with [`FakeAnswer::body`] or
    /// [`FakeAnswer::json`]).
    ///
    /// # Panics
    /// `status` is not between 100 and 999.
    pub fn status(status: u16) -> Self {
        assert!(
            (100..1000).contains(&status),
            "{status} is not an HTTP status"
        );
        FakeAnswer {
            status,
            body: Body::Empty,
            delay: Duration::ZERO,
        }
    }

    /// A `text/plain` body.
    pub fn body(mut self, text: impl Into<String>) -> Self {
        self.body = Body::Text(text.into());
        self
    }

    /// An `application/json` body.
    pub fn json(mut self, value: Value) -> Self {
        self.body = Body::Json(value);
        self
    }

    /// Answers only after `delay` (the request is recorded first).
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

impl Default for FakeAnswer {
    fn default() -> Self {
        FakeAnswer::ok()
    }
}

#[derive(Debug)]
struct Shared {
    requests: Mutex<Vec<RecordedEmail>>,
    answer: Mutex<FakeAnswer>,
    expected: Mutex<Option<usize>>,
    queued: AtomicU64,
}

/// A fake email provider on loopback; it stops when dropped.
///
/// See the [module documentation](self) for an example.
#[derive(Debug)]
pub struct FakeEmailProvider {
    server: Server,
    shared: Arc<Shared>,
}

impl FakeEmailProvider {
    /// Starts the fake on `127.0.0.1` on a free port, answering
    /// [`FakeAnswer::ok`] until told otherwise. Needs a Tokio runtime.
    ///
    /// # Panics
    /// No loopback port can be bound.
    pub async fn start() -> FakeEmailProvider {
        let shared = Arc::new(Shared {
            requests: Mutex::new(Vec::new()),
            answer: Mutex::new(FakeAnswer::ok()),
            expected: Mutex::new(None),
            queued: AtomicU64::new(0),
        });
        let app = Router::new()
            .route("/{domain}/messages", post(messages))
            .layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES))
            .with_state(Arc::clone(&shared));
        FakeEmailProvider {
            server: Server::start(app, "the fake email provider").await,
            shared,
        }
    }

    /// The base URL to configure (`http://127.0.0.1:<port>`); messages are
    /// posted to `{url}/{domain}/messages`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    /// The address the fake listens on.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// Answers every following request with `answer`.
    pub fn respond_with(&self, answer: FakeAnswer) -> &Self {
        *lock(&self.shared.answer) = answer;
        self
    }

    /// Expects exactly `count` requests in all: checked when the fake is
    /// dropped (unless the test is already panicking) and by
    /// [`FakeEmailProvider::verify`].
    pub fn expect(&self, count: usize) -> &Self {
        *lock(&self.shared.expected) = Some(count);
        self
    }

    /// Checks the count set by [`FakeEmailProvider::expect`] now.
    ///
    /// # Panics
    /// The fake received another number of requests; the message lists
    /// what it received.
    #[track_caller]
    pub fn verify(&self) {
        let Some(expected) = *lock(&self.shared.expected) else {
            return;
        };
        let requests = self.requests();
        assert!(
            requests.len() == expected,
            "the fake email provider expected {expected} request(s), it received {}: {requests:#?}",
            requests.len()
        );
    }

    /// The requests received so far, in order.
    #[must_use]
    pub fn requests(&self) -> Vec<RecordedEmail> {
        lock(&self.shared.requests).clone()
    }
}

impl Drop for FakeEmailProvider {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.verify();
        }
    }
}

/// `POST /{domain}/messages`.
async fn messages(
    State(shared): State<Arc<Shared>>,
    Path(domain): Path<String>,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> Response {
    let mut request = match multipart {
        Ok(multipart) => match parse(multipart).await {
            Ok(request) => request,
            Err(message) => return provider_error(message),
        },
        Err(rejection) => return provider_error(rejection.body_text()),
    };
    request.domain.clone_from(&domain);
    if let (Some(user), Some(password)) = basic_auth(&headers) {
        request.authorization_user = Some(user);
        request.authorization_password_present = !password.is_empty();
        request.password = password;
    }
    lock(&shared.requests).push(request);
    let answer = lock(&shared.answer).clone();
    if !answer.delay.is_zero() {
        tokio::time::sleep(answer.delay).await;
    }
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    match answer.body {
        Body::Queued => {
            let n = shared.queued.fetch_add(1, Ordering::SeqCst) + 1;
            let body =
                json!({"id": format!("<fake.{n}@{domain}>"), "message": "Queued. Thank you."});
            (status, axum::Json(body)).into_response()
        }
        Body::Json(value) => (status, axum::Json(value)).into_response(),
        Body::Text(text) => (status, [(header::CONTENT_TYPE, "text/plain")], text).into_response(),
        Body::Empty => status.into_response(),
    }
}

/// The provider's 400 shape.
fn provider_error(message: String) -> Response {
    (
        StatusCode::BAD_REQUEST,
        axum::Json(json!({ "message": message })),
    )
        .into_response()
}

async fn parse(mut multipart: Multipart) -> Result<RecordedEmail, String> {
    let mut request = RecordedEmail::default();
    while let Some(field) = multipart.next_field().await.map_err(|e| e.body_text())? {
        let name = field.name().unwrap_or_default().to_owned();
        if name == "attachment" {
            let filename = field.file_name().unwrap_or_default().to_owned();
            let content_type = field.content_type().unwrap_or_default().to_owned();
            let bytes = field.bytes().await.map_err(|e| e.body_text())?;
            request
                .attachments
                .push((filename, content_type, bytes.len()));
            continue;
        }
        let value = field.text().await.map_err(|e| e.body_text())?;
        match name.as_str() {
            "from" => request.from = value,
            "to" => request.to.push(value),
            "subject" => request.subject = value,
            "text" => request.text = Some(value),
            "html" => request.html = Some(value),
            // Options, headers, variables and templates of the real API.
            other if other.starts_with(['o', 'h', 'v', 't']) && other.get(1..2) == Some(":") => {}
            other => return Err(format!("unknown field `{other}`")),
        }
    }
    if request.from.is_empty() || request.to.is_empty() {
        return Err("'from' and 'to' parameters are missing".to_owned());
    }
    Ok(request)
}
