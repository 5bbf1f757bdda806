//! A fake email provider served over real HTTP on loopback.
//!
//! [`FakeEmailProvider::start`] binds `127.0.0.1` on a free port and serves
//! the provider's `POST /{domain}/messages`: it records every request
//! ([`FakeEmailProvider::requests`]), parses the real multipart body and
//! the basic-auth header of each message it takes into a
//! [`RecordedEmail`] ([`FakeEmailProvider::emails`]), and answers as the
//! provider does (`200 {"id": "<fake.N@{domain}>", "message": "Queued.
//! Thank you."}`) unless told to fail ([`FakeEmailProvider::fail_with`]).
//! Point the client at [`FakeEmailProvider::url`]. Like the provider, it
//! answers 400 with a JSON `message` to a body that is not multipart,
//! lacks `from` or `to`, or has an unknown field.
//!
//! ```
//! use ccfn_core::email::{EmailClient, EmailMessage, EmailProviderConfig};
//! use ccfn_core::Secret;
//! use ccfn_testkit::fake_email::FakeEmailProvider;
//! use ccfn_testkit::FakeResponse;
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
//! assert_eq!(request.path(), "/mg.example.com/messages");
//! assert_eq!(request.username().as_deref(), Some("api"));
//! let email = &fake.emails()[0];
//! assert_eq!(email.password, "key-doc-0123456789");
//! assert_eq!(email.to, ["oncall@example.com"]);
//!
//! // Later calls get another answer:
//! fake.fail_with(FakeResponse::status(401).text("Forbidden"));
//! # });
//! ```

use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, FromRequest as _, Multipart, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::json;

use crate::loopback::{answer, lock, read, record, verify, Book, Server};
use crate::{FakeResponse, Request};

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

#[derive(Debug, Default)]
struct Shared {
    book: Mutex<Book>,
    emails: Mutex<Vec<RecordedEmail>>,
    queued: AtomicU64,
}

/// A fake email provider on loopback; it stops when dropped, and then
/// checks its expectation.
///
/// See the [module documentation](self) for an example.
#[derive(Debug)]
pub struct FakeEmailProvider {
    server: Server,
    shared: Arc<Shared>,
}

impl FakeEmailProvider {
    /// Starts the fake on `127.0.0.1` on a free port, answering as the
    /// provider does until told otherwise. Needs a Tokio runtime.
    ///
    /// # Panics
    /// No loopback port can be bound.
    pub async fn start() -> FakeEmailProvider {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .fallback(handle)
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

    /// Answers the following requests with `answer` instead of the
    /// provider's (as many as [`FakeResponse::times`] says, or all),
    /// still recording them.
    pub fn fail_with(&self, answer: FakeResponse) -> &Self {
        lock(&self.shared.book).fail_with(answer);
        self
    }

    /// Waits `delay` before each of the provider's answers.
    pub fn delay(&self, delay: Duration) -> &Self {
        lock(&self.shared.book).set_delay(delay);
        self
    }

    /// Expects exactly `count` requests in all: checked when the fake is
    /// dropped (unless the test is already panicking) and by
    /// [`FakeEmailProvider::verify`].
    pub fn expect(&self, count: usize) -> &Self {
        lock(&self.shared.book).expect(count);
        self
    }

    /// Checks the count set by [`FakeEmailProvider::expect`] now.
    ///
    /// # Panics
    /// The fake received another number of requests; the message lists
    /// what it received.
    #[track_caller]
    pub fn verify(&self) {
        let problems: Vec<String> = lock(&self.shared.book).unmet().into_iter().collect();
        verify(
            "the fake email provider",
            &self.url(),
            &problems,
            &self.requests(),
        );
    }

    /// Every request received so far, in order, as it came.
    #[must_use]
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.shared.book).requests()
    }

    /// The messages of the requests received so far that the provider
    /// took (a well-formed `POST /{domain}/messages`), parsed, in order.
    #[must_use]
    pub fn emails(&self) -> Vec<RecordedEmail> {
        lock(&self.shared.emails).clone()
    }
}

impl Drop for FakeEmailProvider {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.verify();
        }
    }
}

/// Records the request, parses the message of a `POST
/// /{domain}/messages` (whatever the answer will be), and answers as the
/// provider does; anything else is a 404.
async fn handle(State(shared): State<Arc<Shared>>, request: axum::extract::Request) -> Response {
    let (parts, body) = match read(request, MAX_REQUEST_BYTES).await {
        Ok(read) => read,
        Err(too_large) => return too_large,
    };
    let recorded = record(&parts, body.clone());
    let domain = recorded
        .path()
        .strip_prefix('/')
        .and_then(|path| path.strip_suffix("/messages"))
        .filter(|domain| recorded.method() == "POST" && !domain.contains('/'))
        .map(str::to_owned);
    let parsed = match domain {
        Some(domain) => {
            let request = axum::extract::Request::from_parts(parts, axum::body::Body::from(body));
            Some(message(request, &recorded, domain).await)
        }
        None => None,
    };
    if let Some(Ok(email)) = &parsed {
        lock(&shared.emails).push(email.clone());
    }
    let own = Arc::clone(&shared);
    answer(&shared.book, recorded, move |_| async move {
        match parsed {
            None => (
                StatusCode::NOT_FOUND,
                axum::Json(json!({ "message": "Not found" })),
            )
                .into_response(),
            Some(Err(message)) => provider_error(message),
            Some(Ok(email)) => {
                let n = own.queued.fetch_add(1, Ordering::SeqCst) + 1;
                let body = json!({
                    "id": format!("<fake.{n}@{}>", email.domain),
                    "message": "Queued. Thank you.",
                });
                (StatusCode::OK, axum::Json(body)).into_response()
            }
        }
    })
    .await
}

/// The message of `POST /{domain}/messages`, with its basic-auth
/// credentials, or the provider's 400 message.
async fn message(
    request: axum::extract::Request,
    recorded: &Request,
    domain: String,
) -> Result<RecordedEmail, String> {
    let multipart = Multipart::from_request(request, &())
        .await
        .map_err(|rejection| rejection.body_text())?;
    let mut email = parse(multipart).await?;
    email.domain = domain;
    if let (Some(user), Some(password)) = (recorded.username(), recorded.password()) {
        email.authorization_user = Some(user);
        email.authorization_password_present = !password.is_empty();
        email.password = password;
    }
    Ok(email)
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
