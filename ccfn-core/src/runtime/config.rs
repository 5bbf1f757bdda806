//! The runtime's configuration, from the environment.

use std::net::SocketAddr;
use std::time::Duration;

use crate::config::{
    ConfigError, Env, Source, CCFN_ADDR, CCFN_BACKTRACE, CCFN_BODY_LIMIT_BYTES,
    CCFN_BODY_TIMEOUT_MS, CCFN_CATALOGUE, CCFN_HEADER_TIMEOUT_MS, CCFN_INSPECTOR,
    CCFN_INSPECTOR_INVOCATIONS, CCFN_MAX_CONNECTIONS, CCFN_MAX_PARAMS, CCFN_MODE, CCFN_PUBLIC_URL,
    CCFN_SHUTDOWN_GRACE_MS,
};
use crate::error::Error;

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
    /// `CCFN_INSPECTOR` (`on` or `off`): whether `/__ccfn/inspector`
    /// serves the inspector page of recent invocations (default: on in
    /// local mode, off in production mode, where it would show anyone
    /// the calls' records and replay them). `None` follows the mode.
    pub inspector: Option<bool>,
    /// `CCFN_INSPECTOR_INVOCATIONS`: how many recent invocations the
    /// inspector keeps in memory (default 200), the oldest forgotten
    /// first.
    pub inspector_invocations: usize,
    /// `CCFN_BACKTRACE` (`on` or `off`): whether `error` records of
    /// function, upstream and panic errors carry a backtrace (default
    /// off; capturing one takes milliseconds). `RUST_BACKTRACE` has no
    /// say. [`crate::runtime::Runtime::new`] applies it to the process.
    pub backtraces: bool,
}

/// The default listening address.
const DEFAULT_ADDR: &str = "127.0.0.1:3001";

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
            inspector: None,
            inspector_invocations: 200,
            backtraces: false,
        }
    }
}

impl RuntimeConfig {
    /// Whether the catalogue is served: as set, else in local mode only.
    #[must_use]
    pub fn serves_catalogue(&self) -> bool {
        self.catalogue.unwrap_or(self.mode == Mode::Local)
    }

    /// Whether the inspector is served: as set, else in local mode only.
    #[must_use]
    pub fn serves_inspector(&self) -> bool {
        self.inspector.unwrap_or(self.mode == Mode::Local)
    }

    /// The defaults, changed by the `CCFN_*` variables that are set in the
    /// process environment or the `.env` file (see [`Env::load`]).
    ///
    /// # Errors
    /// The `.env` file cannot be read, or a variable has a value that
    /// cannot be used (kind `Configuration`); the error names it, quotes
    /// the value and says what is expected.
    pub fn from_env() -> Result<Self, Error> {
        Ok(Self::from_source(&Env::load()?)?)
    }

    /// The defaults, changed by the variables `source` has.
    ///
    /// ```
    /// use ccfn_core::config::Env;
    /// use ccfn_core::runtime::{Mode, RuntimeConfig};
    ///
    /// let config = RuntimeConfig::from_source(&Env::from_vars([("CCFN_MODE", "production")])).unwrap();
    /// assert_eq!(config.mode, Mode::Production);
    /// ```
    ///
    /// # Errors
    /// A variable has a value that cannot be used.
    pub fn from_source<S: Source + ?Sized>(source: &S) -> Result<Self, ConfigError> {
        let mut config = RuntimeConfig::default();
        if let Some(addr) = CCFN_ADDR.addr(source)? {
            config.addr = addr;
        }
        if let Some(bytes) = CCFN_BODY_LIMIT_BYTES.count(source)? {
            config.body_limit = bytes;
        }
        if let Some(params) = CCFN_MAX_PARAMS.count(source)? {
            config.max_params = params;
        }
        if let Some(timeout) = CCFN_BODY_TIMEOUT_MS.millis(source)? {
            config.body_timeout = timeout;
        }
        if let Some(timeout) = CCFN_HEADER_TIMEOUT_MS.millis(source)? {
            config.header_timeout = timeout;
        }
        if let Some(connections) = CCFN_MAX_CONNECTIONS.count(source)? {
            config.max_connections = connections;
        }
        if let Some(mode) = CCFN_MODE.choice(source)? {
            config.mode = if mode == "production" {
                Mode::Production
            } else {
                Mode::Local
            };
        }
        config.public_url = CCFN_PUBLIC_URL.url(source)?;
        if let Some(grace) = CCFN_SHUTDOWN_GRACE_MS.millis(source)? {
            config.shutdown_grace = grace;
        }
        config.catalogue = CCFN_CATALOGUE.choice(source)?.map(|on| on == "on");
        config.inspector = CCFN_INSPECTOR.choice(source)?.map(|on| on == "on");
        if let Some(invocations) = CCFN_INSPECTOR_INVOCATIONS.count(source)? {
            config.inspector_invocations = invocations;
        }
        config.backtraces = CCFN_BACKTRACE.choice(source)? == Some("on");
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(vars: &[(&str, &str)]) -> Result<RuntimeConfig, ConfigError> {
        RuntimeConfig::from_source(&Env::from_vars(vars.iter().copied()))
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
            ("CCFN_INSPECTOR", "off"),
            ("CCFN_INSPECTOR_INVOCATIONS", "5"),
            ("CCFN_BACKTRACE", "on"),
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
            inspector: Some(false),
            inspector_invocations: 5,
            backtraces: true,
        };
        assert_eq!(config, expected);
    }

    #[test]
    fn a_value_that_cannot_be_used_is_named_quoted_and_explained() {
        for (name, value, expected) in [
            (
                "CCFN_ADDR",
                "localhost:3001",
                "an IP address and port such as 127.0.0.1:3001",
            ),
            ("CCFN_BODY_LIMIT_BYTES", "1MiB", "a whole number of bytes"),
            ("CCFN_MAX_PARAMS", "-1", "a whole number of parameters"),
            (
                "CCFN_BODY_TIMEOUT_MS",
                "10s",
                "a whole number of milliseconds",
            ),
            (
                "CCFN_HEADER_TIMEOUT_MS",
                "0",
                "a whole number of milliseconds, at least 1",
            ),
            (
                "CCFN_MAX_CONNECTIONS",
                "0",
                "a whole number of connections, at least 1",
            ),
            ("CCFN_MODE", "prod", "`local` or `production`"),
            (
                "CCFN_PUBLIC_URL",
                "cc.example.com",
                "an http:// or https:// URL such as https://example.com",
            ),
            ("CCFN_CATALOGUE", "yes", "`on` or `off`"),
            ("CCFN_INSPECTOR", "1", "`on` or `off`"),
            (
                "CCFN_INSPECTOR_INVOCATIONS",
                "0",
                "a whole number of invocations, at least 1",
            ),
        ] {
            let error = from(&[(name, value)]).unwrap_err();
            assert_eq!(error.variable(), Some(name));
            assert_eq!(
                error.to_string(),
                format!("{name}=\"{value}\": expected {expected}")
            );
            let error = Error::from(error);
            assert_eq!(error.kind(), crate::ErrorKind::Configuration);
        }
    }

    #[test]
    fn blank_values_are_unset() {
        assert_eq!(
            from(&[("CCFN_MODE", " "), ("CCFN_PUBLIC_URL", "")]).unwrap(),
            RuntimeConfig::default()
        );
    }

    #[test]
    fn the_documented_defaults_are_the_defaults() {
        let documented =
            crate::config::SETTINGS
                .iter()
                .filter_map(|setting| match setting.default_value() {
                    crate::config::DefaultValue::Value(value) => Some((setting.name(), value)),
                    _ => None,
                });
        assert_eq!(
            from(&documented.collect::<Vec<_>>()).unwrap(),
            RuntimeConfig::default()
        );
    }
}
