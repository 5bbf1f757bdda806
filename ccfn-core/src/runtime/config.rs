//! The runtime's configuration, from the environment.

use std::net::SocketAddr;
use std::time::Duration;

use crate::context::env_number;
use crate::{Error, ErrorKind};

/// Where the runtime runs: it decides what a missing auth token means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// A developer's machine: a missing auth token is a warning, and
    /// requests to protected functions are accepted unsigned.
    #[default]
    Local,
    /// A deployment: the runtime refuses to start without an auth token
    /// when any function is protected.
    Production,
}

/// How the runtime serves; every field has an environment variable (see
/// `docs/runtime.md`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RuntimeConfig {
    /// `CCFN_ADDR`: the address to listen on (default `127.0.0.1:3001`).
    pub addr: SocketAddr,
    /// `CCFN_BODY_LIMIT_BYTES`: the largest request body (default 1 MiB).
    pub body_limit: usize,
    /// `CCFN_MAX_PARAMS`: the most parameters a request may carry, body and
    /// query string together (default 1000).
    pub max_params: usize,
    /// `CCFN_BODY_TIMEOUT_MS`: how long reading a request body may take
    /// (default 10 s).
    pub body_timeout: Duration,
    /// `CCFN_MODE`: `local` (default) or `production`.
    pub mode: Mode,
    /// `CCFN_PUBLIC_URL`: the scheme and host the platform calls
    /// (`https://example.com`), for request signatures; by default the
    /// request's `Host` and `X-Forwarded-Proto` (else `http`).
    pub public_url: Option<String>,
    /// `CCFN_SHUTDOWN_GRACE_MS`: how long in-flight invocations may run
    /// after a shutdown signal (default 10 s).
    pub shutdown_grace: Duration,
    /// `CCFN_CATALOGUE` (`on` or `off`): whether `GET /__ccfn/functions`
    /// serves the function catalogue (default: on in local mode, off in
    /// production mode, where it would tell anyone the contacts and
    /// settings of every function).
    /// `None` follows the mode.
    pub catalogue: Option<bool>,
}

/// The default listening address.
pub const DEFAULT_ADDR: &str = "127.0.0.1:3001";

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            addr: DEFAULT_ADDR
                .parse()
                .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 3001))),
            body_limit: 1024 * 1024,
            max_params: 1000,
            body_timeout: Duration::from_secs(10),
            mode: Mode::Local,
            public_url: None,
            shutdown_grace: Duration::from_secs(10),
            catalogue: None,
        }
    }
}

impl RuntimeConfig {
    /// Whether the catalogue is served: as set, else in local mode only.
    #[must_use]
    pub fn serves_catalogue(&self) -> bool {
        self.catalogue.unwrap_or(self.mode == Mode::Local)
    }

    /// The defaults, changed by the `CCFN_*` variables that are set.
    ///
    /// # Errors
    /// A variable has a value that cannot be used; the error names it,
    /// quotes the value and says what is expected.
    pub fn from_env() -> Result<Self, Error> {
        let mut config = RuntimeConfig::default();
        let invalid = |name: &str, value: &str, expected: &str| {
            Error::new(
                ErrorKind::Validation,
                format!("{name}={value:?} is not valid: expected {expected}"),
            )
        };
        if let Ok(addr) = std::env::var("CCFN_ADDR") {
            config.addr = addr.trim().parse().map_err(|_| {
                invalid(
                    "CCFN_ADDR",
                    &addr,
                    "an address and port such as 127.0.0.1:3001",
                )
            })?;
        }
        if let Some(bytes) = env_number::<usize>("CCFN_BODY_LIMIT_BYTES", "bytes")? {
            config.body_limit = bytes;
        }
        if let Some(count) = env_number::<usize>("CCFN_MAX_PARAMS", "a number of parameters")? {
            config.max_params = count;
        }
        if let Some(ms) = env_number::<u64>("CCFN_BODY_TIMEOUT_MS", "milliseconds")? {
            config.body_timeout = Duration::from_millis(ms);
        }
        if let Ok(mode) = std::env::var("CCFN_MODE") {
            config.mode = match mode.trim() {
                "local" => Mode::Local,
                "production" => Mode::Production,
                _ => return Err(invalid("CCFN_MODE", &mode, "`local` or `production`")),
            };
        }
        if let Ok(url) = std::env::var("CCFN_PUBLIC_URL") {
            let url = url.trim().trim_end_matches('/');
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(invalid(
                    "CCFN_PUBLIC_URL",
                    url,
                    "a URL such as https://example.com",
                ));
            }
            config.public_url = Some(url.to_owned());
        }
        if let Some(ms) = env_number::<u64>("CCFN_SHUTDOWN_GRACE_MS", "milliseconds")? {
            config.shutdown_grace = Duration::from_millis(ms);
        }
        if let Ok(catalogue) = std::env::var("CCFN_CATALOGUE") {
            config.catalogue = match catalogue.trim() {
                "on" => Some(true),
                "off" => Some(false),
                _ => return Err(invalid("CCFN_CATALOGUE", &catalogue, "`on` or `off`")),
            };
        }
        Ok(config)
    }
}
