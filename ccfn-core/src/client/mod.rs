//! The logged clients a function calls: HTTP, the email provider and the
//! task router. Each writes the contract's `api_*` records for every call
//! and is reached from the [`crate::Context`] (`context.http()`,
//! `context.email()`, `context.task_router()`), made once from its values
//! on first use. Behind the `clients` feature (on by default).

pub mod email;
pub mod http;
pub mod taskrouter;

use std::sync::Arc;

use crate::config;
use crate::error::Error;
use crate::function::context::{Context, Extension};

use self::email::EmailSender;
use self::http::{HttpClient, HttpConfig};
use self::taskrouter::TaskRouter;

impl Context {
    /// The logged HTTP client, with the context's slow-response threshold
    /// and `CCFN_HTTP_TIMEOUT_MS` (default 6 000),
    /// `CCFN_HTTP_CONNECT_TIMEOUT_MS` (default 3 000) and
    /// `CCFN_HTTP_MAX_RESPONSE_BYTES` (default 1 MiB) when set; made once
    /// and shared.
    ///
    /// Its CA certificates are those the context's `CCFN_TLS_ROOTS`,
    /// `SSL_CERT_FILE` and `SSL_CERT_DIR` say ([`http::TlsRoots::load`]).
    /// The runtime makes it when it starts, so these errors stop the
    /// start rather than the first call.
    ///
    /// # Errors
    /// A `CCFN_HTTP_*` value is not a whole number above 0 (kind
    /// `Configuration`), the CA certificates cannot be loaded (kind
    /// `Configuration`, the message says what is missing and how to fix
    /// it), or the client cannot be set up.
    pub fn http(&self) -> Result<Arc<HttpClient>, Error> {
        self.extension()
    }

    /// Where email goes: the email provider when `EMAILPROVIDER_API_KEY`
    /// is set, else the local outbox (see
    /// [`EmailSender::from_context`]); made once and shared.
    ///
    /// # Errors
    /// The email settings are incomplete or invalid; the error says which.
    pub fn email(&self) -> Result<Arc<EmailSender>, Error> {
        self.extension()
    }

    /// The task router: the platform's when credentials are set, else the
    /// local task store (see [`TaskRouter::from_context`]);
    /// made once and shared.
    ///
    /// # Errors
    /// The task-router settings are incomplete or invalid.
    pub fn task_router(&self) -> Result<Arc<TaskRouter>, Error> {
        self.extension()
    }
}

impl Extension for HttpClient {
    fn from_context(context: &Context) -> Result<Self, Error> {
        let config = HttpConfig {
            slow_response: context.thresholds().api_response,
            ..HttpConfig::default()
        }
        .with_settings(&config::CCFN_HTTP, context)?;
        HttpClient::with_roots(config, &crate::tls::TlsRoots::load(context)?)
    }
}

impl Extension for EmailSender {
    fn from_context(context: &Context) -> Result<Self, Error> {
        EmailSender::from_context(context)
    }
}

impl Extension for TaskRouter {
    fn from_context(context: &Context) -> Result<Self, Error> {
        TaskRouter::from_context(context)
    }
}
