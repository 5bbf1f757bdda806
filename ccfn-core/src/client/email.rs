//! The email provider client and the embedded outbox.
//!
//! Voicemail notices go out through an email delivery provider (a
//! Mailgun-compatible API): `POST {base_url}/{domain}/messages`, HTTP basic
//! authentication with user `api` and the domain's sending key, and a
//! multipart body with `from`, one `to` per recipient, `subject`, `text`,
//! optional `html`, and one `attachment` file part per attachment.
//!
//! Every send writes, in order:
//!
//! 1. `email_request`: `url` (without credentials), `domain`, `recipients`
//!    (the list), `subject`;
//! 2. one `attachment` per attachment: `filename`, `size`, `content_type`;
//! 3. for the provider, the HTTP client's `api_request`, `auth` and
//!    `api_response` (and an `alert` when the response is slow);
//! 4. `email_result`: `id`, `message` (the provider's status text, as the
//!    record's message), `recipient_count`.
//!
//! A failure writes an `email_error` record (level `error`) with the
//! message instead of `email_result`, and the function gets an [`Error`]
//! whose message names the likely cause: an API key that is not the
//! domain's sending key, an unverified sending domain, the wrong region,
//! or attachments over the size limit (checked before anything is sent).
//! The API key never appears in any record, URL or error message.
//!
//! A function sends with `context.email()?.send(&message).await?`: the
//! [`EmailSender`] the context configures, made once and shared (a whole
//! handler is in `docs/external-calls.md`). With no API key configured,
//! [`EmailSender::from_context`] picks the
//! [`Outbox`]: each message is written to a folder on disk instead, with
//! the same records, so that a function runs on a fresh machine.
//!
//! # Example
//!
//! ```
//! use ccfn_core::email::{Attachment, EmailMessage, Outbox};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let dir = std::env::temp_dir().join(format!("ccfn-outbox-doctest-{}", std::process::id()));
//! let outbox = Outbox::new(&dir);
//! let message = EmailMessage::new("Voicemail <voicemail@mg.example.com>")
//!     .to("oncall@example.com")
//!     .subject("New voicemail from +15551230000")
//!     .text("A caller left a 12-second voicemail.")
//!     .attach(Attachment::new("voicemail.wav", "audio/wav", vec![0_u8; 1024]));
//! assert_eq!(message.total_bytes(), 31 + 36 + 1024);
//!
//! let sent = outbox.send(&message).await?;
//! assert!(sent.id.starts_with("<outbox.") && sent.id.ends_with("@ccfn.local>"));
//! assert_eq!(sent.message, "Queued in the local outbox");
//! assert_eq!(sent.recipient_count, 1);
//! let folder = outbox.message_dir(&sent.id);
//! assert!(folder.join("message.json").is_file());
//! assert_eq!(std::fs::read(folder.join("attachments/voicemail.wav"))?.len(), 1024);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), ccfn_core::Error>(())
//! # }).unwrap();
//! ```
//!
//! Against the provider, the same message goes through an [`EmailClient`]:
//!
//! ```no_run
//! use ccfn_core::email::{EmailClient, EmailMessage, EmailProviderConfig, EmailRegion};
//! use ccfn_core::Secret;
//!
//! # async fn send() -> Result<(), ccfn_core::Error> {
//! let config = EmailProviderConfig::new("mg.example.com", Secret::new("key-0123456789abcdef"))
//!     .region(EmailRegion::Eu);
//! let client = EmailClient::new(config)?;
//! let sent = client
//!     .send(&EmailMessage::new("voicemail@mg.example.com").to("oncall@example.com").subject("Voicemail").text("..."))
//!     .await?;
//! println!("{}", sent.id);
//! # Ok(())
//! # }
//! # let _ = send;
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use serde::Serialize;
use serde_json::{json, Value};

use crate::client::http::{sanitize_url, ApiResponse, HttpClient, HttpConfig};
use crate::config;
use crate::error::Error;
use crate::error::ErrorKind;
use crate::function::context::Context;
use crate::record::emit;
use crate::secret::{Secret, REDACTED};

/// The provider's US endpoint, the default base URL.
pub const US_BASE_URL: &str = "https://api.mailgun.net/v3";

/// The provider's EU endpoint, for domains created in the EU region.
pub const EU_BASE_URL: &str = "https://api.eu.mailgun.net/v3";

/// The default limit of a message's size: 25 MiB, the provider's limit.
pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 25 * 1024 * 1024;

/// Where [`EmailSender::from_context`] puts the outbox when
/// `CCFN_OUTBOX_DIR` is not set, relative to the current directory.
pub const DEFAULT_OUTBOX_DIR: &str = ".ccfn/outbox";

/// The domain of the identifiers of messages written to the [`Outbox`].
pub const OUTBOX_DOMAIN: &str = "ccfn.local";

/// The provider status text of a message written to the [`Outbox`].
pub const OUTBOX_QUEUED: &str = "Queued in the local outbox";

/// A file attached to an email.
///
/// ```
/// use ccfn_core::email::Attachment;
///
/// let wav = Attachment::new("voicemail.wav", "audio/wav", vec![0_u8; 16]);
/// assert_eq!(wav.size(), 16);
/// assert_eq!(format!("{wav:?}"), r#"Attachment { filename: "voicemail.wav", content_type: "audio/wav", size: 16 }"#);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Attachment {
    /// The file name the recipient sees (`voicemail.wav`).
    pub filename: String,
    /// The MIME type (`audio/wav`).
    pub content_type: String,
    /// The content.
    pub bytes: Vec<u8>,
}

impl Attachment {
    /// An attachment named `filename`, of MIME type `content_type`.
    pub fn new(
        filename: impl Into<String>,
        content_type: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
    ) -> Self {
        Attachment {
            filename: filename.into(),
            content_type: content_type.into(),
            bytes: bytes.into(),
        }
    }

    /// The size of the content in bytes.
    #[must_use]
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }
}

impl fmt::Debug for Attachment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Attachment")
            .field("filename", &self.filename)
            .field("content_type", &self.content_type)
            .field("size", &self.bytes.len())
            .finish()
    }
}

/// An email to send: sender, recipients, subject, a text body, an optional
/// HTML body and attachments.
///
/// ```
/// use ccfn_core::email::{Attachment, EmailMessage};
///
/// let message = EmailMessage::new("Voicemail <voicemail@mg.example.com>")
///     .to("oncall@example.com")
///     .to("supervisor@example.com")
///     .subject("New voicemail")
///     .text("Listen to the attached recording.")
///     .html("<p>Listen to the attached recording.</p>")
///     .attach(Attachment::new("voicemail.wav", "audio/wav", vec![0_u8; 100]));
/// assert_eq!(message.recipients(), ["oncall@example.com", "supervisor@example.com"]);
/// assert_eq!(message.attachments_bytes(), 100);
/// assert_eq!(message.total_bytes(), 13 + 33 + 40 + 100);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[must_use = "send it with an EmailSender, EmailClient or Outbox"]
pub struct EmailMessage {
    from: String,
    to: Vec<String>,
    subject: String,
    text: String,
    html: Option<String>,
    attachments: Vec<Attachment>,
}

impl EmailMessage {
    /// A message from `from` (`voicemail@mg.example.com`, or with a name:
    /// `Voicemail <voicemail@mg.example.com>`), with no recipient yet.
    pub fn new(from: impl Into<String>) -> Self {
        EmailMessage {
            from: from.into(),
            ..EmailMessage::default()
        }
    }

    /// Adds a recipient.
    pub fn to(mut self, recipient: impl Into<String>) -> Self {
        self.to.push(recipient.into());
        self
    }

    /// Adds several recipients.
    pub fn to_all<I, S>(mut self, recipients: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.to.extend(recipients.into_iter().map(Into::into));
        self
    }

    /// Sets the subject.
    pub fn subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = subject.into();
        self
    }

    /// Sets the text body.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.text = text.into();
        self
    }

    /// Sets the HTML body (sent beside the text body).
    pub fn html(mut self, html: impl Into<String>) -> Self {
        self.html = Some(html.into());
        self
    }

    /// Adds an attachment.
    pub fn attach(mut self, attachment: Attachment) -> Self {
        self.attachments.push(attachment);
        self
    }

    /// The sender.
    #[must_use]
    pub fn sender(&self) -> &str {
        &self.from
    }

    /// The recipients, in order.
    #[must_use]
    pub fn recipients(&self) -> &[String] {
        &self.to
    }

    /// The subject.
    #[must_use]
    pub fn subject_text(&self) -> &str {
        &self.subject
    }

    /// The text body.
    #[must_use]
    pub fn text_body(&self) -> &str {
        &self.text
    }

    /// The HTML body, when set.
    #[must_use]
    pub fn html_body(&self) -> Option<&str> {
        self.html.as_deref()
    }

    /// The attachments, in order.
    #[must_use]
    pub fn attachments(&self) -> &[Attachment] {
        &self.attachments
    }

    /// The bytes of all the attachments.
    #[must_use]
    pub fn attachments_bytes(&self) -> u64 {
        self.attachments.iter().map(Attachment::size).sum()
    }

    /// The bytes of the content: subject, text, HTML and attachments. This
    /// is what the size limit applies to.
    #[must_use]
    pub fn total_bytes(&self) -> u64 {
        (self.subject.len() + self.text.len() + self.html.as_ref().map_or(0, String::len)) as u64
            + self.attachments_bytes()
    }

    /// Checks what the provider would refuse anyway, and the size limit.
    /// A message with no sender, recipient or body is the function's fault
    /// (kind `function`, HTTP 500 when passed on). A message over the size
    /// limit is not: what the caller sent (its recording) is too large to
    /// attach, so it is kind `validation` (HTTP 400 when passed on), which
    /// the function can answer by linking instead.
    fn check(&self, max_total_bytes: u64) -> Result<(), Error> {
        let invalid = |what: &str| {
            Err(Error::new(
                ErrorKind::Function,
                format!("email not sent: {what}"),
            ))
        };
        if self.from.trim().is_empty() {
            return invalid("no sender: give one to EmailMessage::new");
        }
        if self.to.iter().all(|r| r.trim().is_empty()) {
            return invalid("no recipient: add one with EmailMessage::to");
        }
        if self.to.iter().any(|r| r.trim().is_empty()) {
            return invalid("a recipient is empty");
        }
        if self.text.is_empty() && self.html.is_none() {
            return invalid("no body: set the text (or the HTML) of the message");
        }
        let total = self.total_bytes();
        if total > max_total_bytes {
            return Err(Error::new(
                ErrorKind::Validation,
                format!(
                    "email not sent: attachments total {} bytes ({total} bytes with the text), \
                     over the {max_total_bytes}-byte limit of the email provider: send a link instead",
                    self.attachments_bytes(),
                ),
            ));
        }
        Ok(())
    }
}

/// What the provider (or the outbox) answered for a message it accepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EmailSent {
    /// The message identifier (`<20240101120000.1.ABCDEF@mg.example.com>`).
    pub id: String,
    /// The provider's status text (`Queued. Thank you.`).
    pub message: String,
    /// How many recipients the message was sent to.
    pub recipient_count: usize,
}

/// The provider's region: the domain is created in one of them, and only
/// that region's endpoint knows it.
///
/// ```
/// use ccfn_core::email::EmailRegion;
///
/// let region: EmailRegion = "eu".parse().unwrap();
/// assert_eq!(region.base_url(), "https://api.eu.mailgun.net/v3");
/// assert_eq!(EmailRegion::default().base_url(), "https://api.mailgun.net/v3");
/// assert!("asia".parse::<EmailRegion>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EmailRegion {
    /// The US region ([`US_BASE_URL`]), the default.
    #[default]
    Us,
    /// The EU region ([`EU_BASE_URL`]).
    Eu,
}

impl EmailRegion {
    /// The region's API base URL.
    #[must_use]
    pub const fn base_url(self) -> &'static str {
        match self {
            EmailRegion::Us => US_BASE_URL,
            EmailRegion::Eu => EU_BASE_URL,
        }
    }
}

impl FromStr for EmailRegion {
    type Err = Error;

    /// `us` or `eu`, in any case.
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "us" => Ok(EmailRegion::Us),
            "eu" => Ok(EmailRegion::Eu),
            _ => Err(Error::new(
                ErrorKind::Configuration,
                format!("unknown email provider region {s:?}: expected `us` or `eu`"),
            )),
        }
    }
}

/// How to reach the email provider.
///
/// ```
/// use std::time::Duration;
/// use ccfn_core::email::{EmailProviderConfig, EmailRegion};
/// use ccfn_core::http::HttpConfig;
/// use ccfn_core::Secret;
///
/// let config = EmailProviderConfig::new("mg.example.com", Secret::new("key-0123456789abcdef"));
/// assert_eq!(config.base_url, "https://api.mailgun.net/v3");
/// assert_eq!(config.max_total_bytes, 25 * 1024 * 1024);
///
/// let config = config.region(EmailRegion::Eu).max_total_bytes(10 * 1024 * 1024);
/// assert_eq!(config.base_url, "https://api.eu.mailgun.net/v3");
/// assert!(!format!("{config:?}").contains("key-0123456789abcdef"));
///
/// // A local server (a fake in tests), with a shorter timeout:
/// let mut http = HttpConfig::default();
/// http.timeout = Duration::from_secs(3);
/// let config = config.base_url("http://127.0.0.1:8025").http(http);
/// assert_eq!(config.base_url, "http://127.0.0.1:8025");
/// assert_eq!(config.http.timeout, Duration::from_secs(3));
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct EmailProviderConfig {
    /// The API base URL, without the domain ([`US_BASE_URL`] by default).
    pub base_url: String,
    /// The sending domain (`mg.example.com`): it must be verified with the
    /// provider.
    pub domain: String,
    /// The domain's sending key (not the private account key).
    pub api_key: Secret,
    /// The largest message accepted, in bytes ([`DEFAULT_MAX_TOTAL_BYTES`]
    /// by default); see [`EmailMessage::total_bytes`].
    pub max_total_bytes: u64,
    /// Timeouts and the slow-response alert threshold of the calls.
    pub http: HttpConfig,
}

impl EmailProviderConfig {
    /// The US region, the 25 MiB limit and the default HTTP timeouts, for
    /// sending domain `domain` with key `api_key`.
    pub fn new(domain: impl Into<String>, api_key: Secret) -> Self {
        EmailProviderConfig {
            base_url: US_BASE_URL.to_owned(),
            domain: domain.into(),
            api_key,
            max_total_bytes: DEFAULT_MAX_TOTAL_BYTES,
            http: HttpConfig::default(),
        }
    }

    /// Uses the endpoint of `region`.
    #[must_use]
    pub fn region(mut self, region: EmailRegion) -> Self {
        region.base_url().clone_into(&mut self.base_url);
        self
    }

    /// Uses `base_url` (any URL: a local server in tests).
    #[must_use]
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into();
        self
    }

    /// Sets the largest message accepted, in bytes.
    #[must_use]
    pub fn max_total_bytes(mut self, bytes: u64) -> Self {
        self.max_total_bytes = bytes;
        self
    }

    /// Sets the HTTP timeouts and slow-response threshold.
    #[must_use]
    pub fn http(mut self, http: HttpConfig) -> Self {
        self.http = http;
        self
    }
}

/// The email provider client: sends an [`EmailMessage`] and logs every
/// step (see the [module documentation](self)). Cheap to clone.
#[derive(Clone, Debug)]
pub struct EmailClient {
    config: EmailProviderConfig,
    http: HttpClient,
}

impl EmailClient {
    /// A client for `config`.
    ///
    /// # Errors
    /// The domain is empty or not a domain name, the API key is empty, the
    /// base URL is not an `http` or `https` URL, or the HTTP client cannot
    /// be set up.
    pub fn new(config: EmailProviderConfig) -> Result<Self, Error> {
        let domain = config.domain.trim();
        if domain.is_empty() {
            return Err(Error::new(
                ErrorKind::Configuration,
                "the email provider's sending domain is empty: set EMAILPROVIDER_DOMAIN to the verified sending domain",
            ));
        }
        if domain.contains(|c: char| c == '/' || c == '?' || c == '#' || c.is_whitespace()) {
            return Err(Error::new(
                ErrorKind::Configuration,
                format!("the email provider's sending domain {domain:?} is not a domain name"),
            ));
        }
        if config.api_key.expose().trim().is_empty() {
            return Err(Error::new(
                ErrorKind::Configuration,
                "the email provider's API key is empty: set EMAILPROVIDER_API_KEY to the domain's sending key",
            ));
        }
        let valid_url = reqwest::Url::parse(&config.base_url)
            .is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.has_host());
        if !valid_url {
            return Err(Error::new(
                ErrorKind::Configuration,
                format!(
                    "the email provider base URL {} is not an http or https URL",
                    sanitize_url(&config.base_url)
                ),
            ));
        }
        let http = HttpClient::new(config.http)?;
        let config = EmailProviderConfig {
            domain: domain.to_owned(),
            ..config
        };
        Ok(EmailClient { config, http })
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &EmailProviderConfig {
        &self.config
    }

    /// The URL messages are posted to: `{base_url}/{domain}/messages`.
    #[must_use]
    pub fn messages_url(&self) -> String {
        format!(
            "{}/{}/messages",
            self.config.base_url.trim_end_matches('/'),
            self.config.domain
        )
    }

    /// Sends `message`, logging `email_request`, the `attachment`s, the
    /// call and `email_result`.
    ///
    /// # Errors
    /// The message has no sender, recipient or body (kind `Function`: the
    /// function built it, so the caller gets a 500; nothing is sent), or
    /// is over the size limit (kind `Validation`: what the caller sent is
    /// too large to attach, so the caller gets a 400; nothing is sent; link
    /// it instead); the provider cannot be
    /// reached or times out; the provider refuses the key (401/403), the
    /// message (400) or fails (5xx) (kind `Upstream`). Each failure is
    /// logged as `email_error`, and its message says what to check.
    pub async fn send(&self, message: &EmailMessage) -> Result<EmailSent, Error> {
        let url = self.messages_url();
        let domain = &self.config.domain;
        log_request(&sanitize_url(&url), domain, message);
        message
            .check(self.config.max_total_bytes)
            .map_err(|e| log_error(e, domain, None))?;
        let form = self.form(message).map_err(|e| log_error(e, domain, None))?;
        let response = self
            .http
            .post(&url)
            .basic_auth("api", &self.config.api_key)
            .multipart(form, message.total_bytes())
            .send()
            .await
            .map_err(|e| {
                let error = Error::new(
                    e.kind(),
                    format!("email not sent: {}", self.scrubbed(e.message())),
                )
                .with_source(Cause(e.into_boxed_dyn_error()))
                .with_caller_message("email provider error (no answer)");
                log_error(error, domain, None)
            })?;
        let sent = self
            .read(&response, message)
            .map_err(|e| log_error(e, domain, Some(response.status())))?;
        log_result(&sent, None);
        Ok(sent)
    }

    fn form(&self, message: &EmailMessage) -> Result<reqwest::multipart::Form, Error> {
        use reqwest::multipart::{Form, Part};
        let mut form = Form::new().text("from", message.from.clone());
        for recipient in &message.to {
            form = form.text("to", recipient.clone());
        }
        form = form
            .text("subject", message.subject.clone())
            .text("text", message.text.clone());
        if let Some(html) = &message.html {
            form = form.text("html", html.clone());
        }
        for attachment in &message.attachments {
            let part = Part::bytes(attachment.bytes.clone())
                .file_name(attachment.filename.clone())
                .mime_str(&attachment.content_type)
                .map_err(|_| {
                    Error::new(
                        ErrorKind::Function,
                        format!(
                            "email not sent: the content type {:?} of attachment {:?} is not a MIME type",
                            attachment.content_type, attachment.filename
                        ),
                    )
                })?;
            form = form.part("attachment", part);
        }
        Ok(form)
    }

    /// The send result, or the error that says why the provider refused.
    fn read(&self, response: &ApiResponse, message: &EmailMessage) -> Result<EmailSent, Error> {
        let status = response.status();
        let domain = &self.config.domain;
        if response.is_success() {
            #[derive(serde::Deserialize)]
            struct Queued {
                id: String,
                #[serde(default)]
                message: String,
            }
            let queued: Queued = serde_json::from_slice(response.body()).map_err(|e| {
                Error::new(
                    ErrorKind::Upstream,
                    format!(
                        "the email provider answered status {status} without the expected JSON `id` and `message`: {e}"
                    ),
                )
                .with_caller_message(format!("email provider error (status {status})"))
            })?;
            return Ok(EmailSent {
                id: queued.id,
                message: queued.message,
                recipient_count: message.to.len(),
            });
        }
        let said = self.provider_message(response);
        let text = match status {
            401 => format!(
                "the email provider refused the API key (status {status}): use the domain's sending key, \
                 not the private account key; check that the sending domain {domain} is verified; \
                 check the region (US or EU) of the base URL"
            ),
            // The provider's words tell an unverified (or sandbox) domain
            // from a key without the right to send.
            403 => format!(
                "the email provider refused to send from {domain} (status 403): {said}; \
                 check that the sending domain {domain} is verified (a sandbox domain sends only to \
                 authorized recipients) and that the key is the domain's sending key"
            ),
            400 => format!("the email provider rejected the message (status 400): {said}"),
            404 => format!(
                "the email provider does not know the sending domain {domain} (status 404): {said}; \
                 check EMAILPROVIDER_DOMAIN and the region (US or EU) of the base URL"
            ),
            413 => format!(
                "the email provider refused the message as too large (status 413): {said}; send a link instead"
            ),
            429 => format!(
                "the email provider is rate limiting the domain {domain} (status 429): {said}; try again later"
            ),
            500..=599 => format!(
                "the email provider failed (status {status}): {said}; the email was not sent, try again later"
            ),
            _ => format!("the email provider answered status {status}: {said}"),
        };
        Err(Error::new(ErrorKind::Upstream, text)
            .with_caller_message(format!("email provider error (status {status})")))
    }

    /// The provider's `message` from a JSON body, or the text body, cut
    /// short and without the key.
    fn provider_message(&self, response: &ApiResponse) -> String {
        let from_json = serde_json::from_slice::<Value>(response.body())
            .ok()
            .and_then(|body| {
                body.get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
        let text = from_json.unwrap_or_else(|| response.text().trim().to_owned());
        if text.is_empty() {
            return "no message in the response".to_owned();
        }
        let mut text = self.scrubbed(&text);
        if text.len() > 300 {
            let mut end = 300;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            text.push_str("...");
        }
        text
    }

    /// `text` with the API key replaced, should a provider echo it.
    fn scrubbed(&self, text: &str) -> String {
        let key = self.config.api_key.expose();
        if key.is_empty() {
            text.to_owned()
        } else {
            text.replace(key, REDACTED)
        }
    }
}

/// An [`Error`] kept as the cause of another, so that the stack of the
/// `error` record shows the transport error.
struct Cause(Box<dyn std::error::Error + Send + Sync + 'static>);

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// Shows the cause's own cause (the transport error): the cause's message
/// is already in the outer error's.
impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.source() {
            Some(inner) => fmt::Display::fmt(inner, f),
            None => fmt::Display::fmt(&self.0, f),
        }
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source().and_then(std::error::Error::source)
    }
}

fn log_request(url: &str, domain: &str, message: &EmailMessage) {
    emit(
        &format!(
            "Sending email to {} recipient(s) through {url}",
            message.to.len()
        ),
        &crate::record::EmailRequest {
            url,
            domain,
            recipients: message.to.as_slice(),
            subject: &message.subject,
        },
    );
    for attachment in &message.attachments {
        emit(
            &format!(
                "Attachment {} ({} bytes, {})",
                attachment.filename,
                attachment.size(),
                attachment.content_type
            ),
            &crate::record::Attachment {
                filename: &attachment.filename,
                size: attachment.size(),
                content_type: &attachment.content_type,
            },
        );
    }
}

/// Logs `email_result`. Its `message`, which every record has, is the
/// provider's status text: a field of that name would be a second
/// `message` key in the JSON line.
fn log_result(sent: &EmailSent, path: Option<&str>) {
    let message = if sent.message.is_empty() {
        "Email sent"
    } else {
        sent.message.as_str()
    };
    emit(
        message,
        &crate::record::EmailResult {
            id: &sent.id,
            recipient_count: sent.recipient_count,
            path,
        },
    );
}

/// Logs `email_error` and hands the error back.
fn log_error(error: Error, domain: &str, status: Option<u16>) -> Error {
    emit(
        error.message(),
        &crate::record::EmailError {
            error: error.message(),
            kind: error.kind().as_str(),
            domain,
            status,
        },
    );
    error
}

/// The embedded outbox, for local runs with no API key: each message is
/// written to a folder instead of being sent, with the same records as the
/// provider (`email_request` with URL `outbox:<dir>`, the `attachment`s,
/// `email_result` with message [`OUTBOX_QUEUED`]) and the same size limit.
///
/// A message with id `<outbox.0123456789abcdef@ccfn.local>` is written to
/// `<dir>/outbox.0123456789abcdef@ccfn.local/` (the id without its angle
/// brackets): `message.json` (id, from, to, subject, text, html, the
/// attachments' file name, content type, size and path, and the creation
/// time), and each attachment's content under `attachments/`, its file
/// name reduced to letters, digits, `.`, `-` and `_`.
///
/// See the [module documentation](self) for an example.
#[derive(Clone, Debug)]
pub struct Outbox {
    dir: PathBuf,
    domain: String,
    max_total_bytes: u64,
}

impl Outbox {
    /// An outbox in `dir` (made on the first message), with the
    /// provider's default size limit.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Outbox {
            dir: dir.into(),
            domain: OUTBOX_DOMAIN.to_owned(),
            max_total_bytes: DEFAULT_MAX_TOTAL_BYTES,
        }
    }

    /// Sets the sending domain the records name (`ccfn.local` by default;
    /// [`EmailSender::from_context`] uses `EMAILPROVIDER_DOMAIN` when set).
    #[must_use]
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = domain.into();
        self
    }

    /// Sets the largest message accepted, in bytes.
    #[must_use]
    pub fn max_total_bytes(mut self, bytes: u64) -> Self {
        self.max_total_bytes = bytes;
        self
    }

    /// The folder messages are written to.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folder of the message with identifier `id`.
    #[must_use]
    pub fn message_dir(&self, id: &str) -> PathBuf {
        self.dir
            .join(id.trim_start_matches('<').trim_end_matches('>'))
    }

    /// Writes `message` to the outbox, logging as [`EmailClient::send`]
    /// does.
    ///
    /// # Errors
    /// The message has no sender, recipient or body, or is over the size
    /// limit (nothing is written); a folder or file cannot be written (the
    /// message names the path). Each failure is logged as `email_error`.
    pub async fn send(&self, message: &EmailMessage) -> Result<EmailSent, Error> {
        let domain = &self.domain;
        log_request(&format!("outbox:{}", self.dir.display()), domain, message);
        message
            .check(self.max_total_bytes)
            .map_err(|e| log_error(e, domain, None))?;
        let id = format!("<outbox.{:016x}@{OUTBOX_DOMAIN}>", random_u64());
        let folder = self.message_dir(&id);
        self.write(&id, &folder, message)
            .map_err(|e| log_error(e, domain, None))?;
        let sent = EmailSent {
            id,
            message: OUTBOX_QUEUED.to_owned(),
            recipient_count: message.to.len(),
        };
        log_result(&sent, Some(&folder.display().to_string()));
        Ok(sent)
    }

    fn write(&self, id: &str, folder: &Path, message: &EmailMessage) -> Result<(), Error> {
        let io_error = |what: &str, path: &Path, e: std::io::Error| {
            Error::new(
                ErrorKind::Function,
                format!(
                    "email not written to the local outbox: cannot {what} {}: {e}",
                    path.display()
                ),
            )
            .with_source(e)
        };
        let attachments_dir = folder.join("attachments");
        let mut names: Vec<String> = Vec::new();
        let mut listed = Vec::new();
        if !message.attachments.is_empty() {
            std::fs::create_dir_all(&attachments_dir)
                .map_err(|e| io_error("create the folder", &attachments_dir, e))?;
        }
        for attachment in &message.attachments {
            let mut name = sanitize_filename(&attachment.filename);
            if names.contains(&name) {
                let mut n = 2;
                while names.contains(&format!("{n}-{name}")) {
                    n += 1;
                }
                name = format!("{n}-{name}");
            }
            let path = attachments_dir.join(&name);
            std::fs::write(&path, &attachment.bytes).map_err(|e| io_error("write", &path, e))?;
            listed.push(json!({
                "filename": attachment.filename,
                "content_type": attachment.content_type,
                "size": attachment.size(),
                "path": format!("attachments/{name}"),
            }));
            names.push(name);
        }
        std::fs::create_dir_all(folder).map_err(|e| io_error("create the folder", folder, e))?;
        let record = json!({
            "id": id,
            "from": message.from,
            "to": message.to,
            "subject": message.subject,
            "text": message.text,
            "html": message.html,
            "attachments": listed,
            "created": humantime::format_rfc3339_millis(SystemTime::now()).to_string(),
        });
        let path = folder.join("message.json");
        let mut text = serde_json::to_string_pretty(&record).unwrap_or_default();
        text.push('\n');
        std::fs::write(&path, text).map_err(|e| io_error("write", &path, e))?;
        Ok(())
    }
}

/// A file name safe on every system: letters, digits, `.`, `-` and `_`
/// kept, anything else `_`, no leading dot, `attachment` when nothing is
/// left.
fn sanitize_filename(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let cleaned: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let cleaned = cleaned.trim_start_matches('.');
    if cleaned.is_empty() {
        "attachment".to_owned()
    } else {
        cleaned.chars().take(200).collect()
    }
}

fn random_u64() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    RandomState::new().hash_one((
        nanos,
        COUNTER.fetch_add(1, Ordering::Relaxed),
        std::process::id(),
    ))
}

/// Where emails go: the provider, or the local outbox when no API key is
/// configured. A function reaches it through `context.email()`, made once
/// from the context ([`EmailSender::from_context`]) and shared.
///
/// ```
/// use ccfn_core::email::EmailSender;
/// use ccfn_core::Context;
///
/// let with_key = Context::builder()
///     .value("EMAILPROVIDER_API_KEY", "key-0123456789abcdef")
///     .value("EMAILPROVIDER_DOMAIN", "mg.example.com")
///     .value("EMAILPROVIDER_REGION", "eu")
///     .build();
/// match &*with_key.email().unwrap() {
///     EmailSender::Provider(client) => {
///         assert_eq!(client.messages_url(), "https://api.eu.mailgun.net/v3/mg.example.com/messages");
///     }
///     EmailSender::Outbox(_) => unreachable!(),
/// }
///
/// let local = Context::builder().value("CCFN_OUTBOX_DIR", "/tmp/outbox").build();
/// assert!(matches!(&*local.email().unwrap(), EmailSender::Outbox(o) if o.dir().ends_with("outbox")));
///
/// let no_domain = Context::builder().value("EMAILPROVIDER_API_KEY", "key-0123456789abcdef").build();
/// let error = no_domain.email().unwrap_err();
/// assert!(error.message().starts_with("EMAILPROVIDER_API_KEY is set but EMAILPROVIDER_DOMAIN is not"));
/// ```
#[derive(Clone, Debug)]
pub enum EmailSender {
    /// The email provider.
    Provider(EmailClient),
    /// The local outbox.
    Outbox(Outbox),
}

impl EmailSender {
    /// The sender the context configures:
    ///
    /// | value | meaning |
    /// |---|---|
    /// | `EMAILPROVIDER_API_KEY` | the domain's sending key (a secret); when absent or blank, the [`Outbox`] is used |
    /// | `EMAILPROVIDER_DOMAIN` | the verified sending domain; required when a key is set (the outbox names it in its records) |
    /// | `EMAILPROVIDER_BASE_URL` | the API base URL (wins over the region) |
    /// | `EMAILPROVIDER_REGION` | `us` (default) or `eu` |
    /// | `EMAILPROVIDER_MAX_BYTES` | the size limit in bytes (default 25 MiB), for both |
    /// | `EMAILPROVIDER_TIMEOUT_MS` | how long a call may take (default 6 000 ms) |
    /// | `EMAILPROVIDER_CONNECT_TIMEOUT_MS` | how long connecting may take (default 3 000 ms) |
    /// | `EMAILPROVIDER_MAX_RESPONSE_BYTES` | the largest answer read (default 1 MiB) |
    /// | `CCFN_OUTBOX_DIR` | the outbox folder; default [`DEFAULT_OUTBOX_DIR`] (`.ccfn/outbox`), relative to the current directory |
    ///
    /// The slow-response alert threshold is the context's
    /// [`Thresholds::api_response`](crate::context::Thresholds::api_response).
    ///
    /// Each is read through its entry in [`crate::config`].
    ///
    /// # Errors
    /// A key without a domain, an unknown region, a size or timeout that
    /// is not a number, or a base URL that is not an `http` or `https` URL (kind
    /// `Configuration`); each message names the variable to fix.
    pub fn from_context(context: &Context) -> Result<EmailSender, Error> {
        let max_total_bytes = config::EMAILPROVIDER_MAX_BYTES
            .whole(context)?
            .unwrap_or(DEFAULT_MAX_TOTAL_BYTES);
        let domain = config::EMAILPROVIDER_DOMAIN.text(context);
        let Some(key) = config::EMAILPROVIDER_API_KEY.secret_value(context) else {
            let dir = config::CCFN_OUTBOX_DIR
                .text(context)
                .unwrap_or(DEFAULT_OUTBOX_DIR);
            let outbox = Outbox::new(dir).max_total_bytes(max_total_bytes);
            return Ok(EmailSender::Outbox(match domain {
                Some(domain) => outbox.domain(domain),
                None => outbox,
            }));
        };
        let domain = domain.ok_or_else(|| {
            config::EMAILPROVIDER_DOMAIN.problem(
                "EMAILPROVIDER_API_KEY is set but EMAILPROVIDER_DOMAIN is not: set it to the \
                 verified sending domain (mg.example.com, say), or unset the key to use the local outbox",
            )
        })?;
        let base_url = match config::EMAILPROVIDER_BASE_URL.url(context)? {
            Some(url) => url,
            None => match config::EMAILPROVIDER_REGION.choice(context)? {
                Some("eu") => EmailRegion::Eu,
                Some(_) | None => EmailRegion::Us,
            }
            .base_url()
            .to_owned(),
        };
        let http = HttpConfig {
            slow_response: context.thresholds().api_response,
            ..HttpConfig::default()
        }
        .with_settings(&config::EMAILPROVIDER_HTTP, context)?;
        let config = EmailProviderConfig::new(domain, key)
            .base_url(base_url)
            .max_total_bytes(max_total_bytes)
            .http(http);
        EmailClient::new(config).map(EmailSender::Provider)
    }

    /// Sends `message` through the provider or writes it to the outbox.
    ///
    /// # Errors
    /// See [`EmailClient::send`] and [`Outbox::send`].
    pub async fn send(&self, message: &EmailMessage) -> Result<EmailSent, Error> {
        match self {
            EmailSender::Provider(client) => client.send(message).await,
            EmailSender::Outbox(outbox) => outbox.send(message).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filenames_are_sanitized() {
        assert_eq!(sanitize_filename("voicemail.wav"), "voicemail.wav");
        assert_eq!(sanitize_filename("../../etc/passwd"), "passwd");
        assert_eq!(
            sanitize_filename("C:\\x\\my file (1).wav"),
            "my_file__1_.wav"
        );
        assert_eq!(sanitize_filename(".hidden"), "hidden");
        assert_eq!(sanitize_filename("..."), "attachment");
        assert_eq!(sanitize_filename("été.wav"), "_t_.wav");
    }

    #[test]
    fn size_limit_names_the_sizes() {
        let message = EmailMessage::new("a@example.com")
            .to("b@example.com")
            .text("hi")
            .attach(Attachment::new(
                "a.bin",
                "application/octet-stream",
                vec![0; 100],
            ));
        assert!(message.check(102).is_ok());
        let error = message.check(101).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Validation);
        assert_eq!(error.kind().http_status(), 400);
        assert_eq!(
            error.message(),
            "email not sent: attachments total 100 bytes (102 bytes with the text), over the \
             101-byte limit of the email provider: send a link instead"
        );
    }

    #[test]
    fn incomplete_messages_are_refused() {
        let no_to = EmailMessage::new("a@example.com").text("x");
        assert!(no_to
            .check(100)
            .unwrap_err()
            .message()
            .contains("no recipient"));
        let no_body = EmailMessage::new("a@example.com").to("b@example.com");
        assert!(no_body
            .check(100)
            .unwrap_err()
            .message()
            .contains("no body"));
        let no_from = EmailMessage::new(" ").to("b@example.com").text("x");
        assert!(no_from
            .check(100)
            .unwrap_err()
            .message()
            .contains("no sender"));
    }

    #[test]
    fn configuration_errors() {
        let key = Secret::new("key-canary-config-0001");
        let bad_url = EmailClient::new(
            EmailProviderConfig::new("mg.example.com", key.clone()).base_url("ftp://x"),
        );
        assert!(bad_url
            .unwrap_err()
            .message()
            .contains("not an http or https URL"));
        let no_domain = EmailClient::new(EmailProviderConfig::new(" ", key.clone()));
        assert!(no_domain
            .unwrap_err()
            .message()
            .contains("sending domain is empty"));
        let context = Context::builder()
            .value("EMAILPROVIDER_API_KEY", "key-canary-config-0001")
            .value("EMAILPROVIDER_DOMAIN", "mg.example.com")
            .value("EMAILPROVIDER_REGION", "asia")
            .build();
        let error = EmailSender::from_context(&context).unwrap_err();
        assert_eq!(
            error.message(),
            "EMAILPROVIDER_REGION=\"asia\": expected `us` or `eu`"
        );
        assert_eq!(error.kind(), ErrorKind::Configuration);
        let context = Context::builder()
            .value("EMAILPROVIDER_API_KEY", "key-canary-config-0001")
            .value("EMAILPROVIDER_DOMAIN", "mg.example.com")
            .value("EMAILPROVIDER_BASE_URL", "ftp://key-canary-config-0001@x")
            .build();
        let error = EmailSender::from_context(&context).unwrap_err();
        assert_eq!(
            error.message(),
            "EMAILPROVIDER_BASE_URL=\"ftp://[REDACTED]@x\": expected an http:// or https:// URL such as https://example.com"
        );
        let context = Context::builder()
            .value("EMAILPROVIDER_MAX_BYTES", "25MB")
            .build();
        let error = EmailSender::from_context(&context).unwrap_err();
        assert_eq!(
            error.message(),
            "EMAILPROVIDER_MAX_BYTES=\"25MB\": expected a whole number of bytes, at least 1"
        );
        let default = EmailSender::from_context(&Context::builder().build()).unwrap();
        assert!(
            matches!(default, EmailSender::Outbox(o) if o.dir() == Path::new(DEFAULT_OUTBOX_DIR))
        );
    }
}
