//! The runtime's configuration, from the environment.

use std::net::SocketAddr;
use std::time::Duration;

use crate::error::Error;
use crate::error::ErrorKind;

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
    /// `CCFN_HEADER_TIMEOUT_MS`: how long a request's headers may take to
    /// arrive, and how long a connection may stay idle between requests
    /// (default 10 s); past it the connection is closed.
    pub header_timeout: Duration,
    /// `CCFN_MAX_CONNECTIONS`: the most connections open at once (default
    /// 1024); past it, new connections wait in the listen backlog until
    /// one closes. Keep it below the process's open-file limit.
    pub max_connections: usize,
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
            header_timeout: Duration::from_secs(10),
            max_connections: 1024,
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
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// The defaults, changed by the variables `var` gives.
    fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, Error> {
        let invalid = |name: &str, value: &str, expected: &str| {
            Error::new(
                ErrorKind::Validation,
                format!("{name}={value:?} is not valid: expected {expected}"),
            )
        };
        // A whole number of at least `min`.
        let number = |name: &str, min: u64, expected: &str| -> Result<Option<u64>, Error> {
            var(name)
                .map(|value| match value.trim().parse::<u64>() {
                    Ok(number) if number >= min => Ok(number),
                    _ => Err(invalid(name, &value, expected)),
                })
                .transpose()
        };
        let count = |name: &str, min: u64, expected: &str| -> Result<Option<usize>, Error> {
            number(name, min, expected)?
                .map(|n| usize::try_from(n).map_err(|_| invalid(name, &n.to_string(), expected)))
                .transpose()
        };
        let millis = |name: &str, min: u64, expected: &str| -> Result<Option<Duration>, Error> {
            Ok(number(name, min, expected)?.map(Duration::from_millis))
        };

        let mut config = RuntimeConfig::default();
        if let Some(addr) = var("CCFN_ADDR") {
            config.addr = addr.trim().parse().map_err(|_| {
                invalid(
                    "CCFN_ADDR",
                    &addr,
                    "an address and port such as 127.0.0.1:3001",
                )
            })?;
        }
        if let Some(bytes) = count("CCFN_BODY_LIMIT_BYTES", 0, "bytes")? {
            config.body_limit = bytes;
        }
        if let Some(params) = count("CCFN_MAX_PARAMS", 0, "a number of parameters")? {
            config.max_params = params;
        }
        if let Some(timeout) = millis("CCFN_BODY_TIMEOUT_MS", 0, "milliseconds")? {
            config.body_timeout = timeout;
        }
        if let Some(timeout) = millis("CCFN_HEADER_TIMEOUT_MS", 1, "milliseconds, at least 1")? {
            config.header_timeout = timeout;
        }
        if let Some(connections) = count(
            "CCFN_MAX_CONNECTIONS",
            1,
            "a number of connections, at least 1",
        )? {
            config.max_connections = connections;
        }
        if let Some(mode) = var("CCFN_MODE") {
            config.mode = match mode.trim() {
                "local" => Mode::Local,
                "production" => Mode::Production,
                _ => return Err(invalid("CCFN_MODE", &mode, "`local` or `production`")),
            };
        }
        if let Some(url) = var("CCFN_PUBLIC_URL") {
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
        if let Some(grace) = millis("CCFN_SHUTDOWN_GRACE_MS", 0, "milliseconds")? {
            config.shutdown_grace = grace;
        }
        if let Some(catalogue) = var("CCFN_CATALOGUE") {
            config.catalogue = match catalogue.trim() {
                "on" => Some(true),
                "off" => Some(false),
                _ => return Err(invalid("CCFN_CATALOGUE", &catalogue, "`on` or `off`")),
            };
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(vars: &[(&str, &str)]) -> Result<RuntimeConfig, Error> {
        RuntimeConfig::from_vars(|name| {
            vars.iter()
                .find(|(known, _)| *known == name)
                .map(|(_, value)| (*value).to_owned())
        })
    }

    #[test]
    fn no_variables_give_the_defaults() {
        assert_eq!(from(&[]).unwrap(), RuntimeConfig::default());
    }

    #[test]
    fn every_variable_is_read() {
        let config = from(&[
            ("CCFN_ADDR", "0.0.0.0:8080"),
            ("CCFN_BODY_LIMIT_BYTES", "2048"),
            ("CCFN_MAX_PARAMS", "10"),
            ("CCFN_BODY_TIMEOUT_MS", "1500"),
            ("CCFN_HEADER_TIMEOUT_MS", " 2500 "),
            ("CCFN_MAX_CONNECTIONS", "64"),
            ("CCFN_MODE", "production"),
            ("CCFN_PUBLIC_URL", "https://cc.example.com/"),
            ("CCFN_SHUTDOWN_GRACE_MS", "0"),
            ("CCFN_CATALOGUE", "on"),
        ])
        .unwrap();
        let expected = RuntimeConfig {
            addr: "0.0.0.0:8080".parse().unwrap(),
            body_limit: 2048,
            max_params: 10,
            body_timeout: Duration::from_millis(1500),
            header_timeout: Duration::from_millis(2500),
            max_connections: 64,
            mode: Mode::Production,
            public_url: Some("https://cc.example.com".to_owned()),
            shutdown_grace: Duration::ZERO,
            catalogue: Some(true),
        };
        assert_eq!(config, expected);
    }

    #[test]
    fn a_value_that_cannot_be_used_is_named_quoted_and_explained() {
        for (name, value, expected) in [
            (
                "CCFN_ADDR",
                "localhost:3001",
                "an address and port such as 127.0.0.1:3001",
            ),
            ("CCFN_BODY_LIMIT_BYTES", "1MiB", "bytes"),
            ("CCFN_MAX_PARAMS", "-1", "a number of parameters"),
            ("CCFN_BODY_TIMEOUT_MS", "10s", "milliseconds"),
            ("CCFN_HEADER_TIMEOUT_MS", "0", "milliseconds, at least 1"),
            (
                "CCFN_MAX_CONNECTIONS",
                "0",
                "a number of connections, at least 1",
            ),
            ("CCFN_MODE", "prod", "`local` or `production`"),
            (
                "CCFN_PUBLIC_URL",
                "cc.example.com",
                "a URL such as https://example.com",
            ),
            ("CCFN_CATALOGUE", "yes", "`on` or `off`"),
        ] {
            let message = from(&[(name, value)]).unwrap_err().to_string();
            assert_eq!(
                message,
                format!("{name}={value:?} is not valid: expected {expected}")
            );
        }
    }
}
