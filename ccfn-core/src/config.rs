//! One configuration surface: the catalogue of every variable ccfn reads,
//! one reader of the process environment over a `.env` file, and the typed
//! parsers every part (the runtime, the logging, the clients, the alert
//! thresholds) shares.
//!
//! Code reads a variable only through its [`Setting`] in the catalogue
//! ([`SETTINGS`]): `CCFN_HTTP_TIMEOUT_MS.millis(&env)`, never
//! `std::env::var("CCFN_HTTP_TIMEOUT_MS")`. A value that cannot be used is
//! a [`ConfigError`] that names the variable, quotes the value (never a
//! secret's) and says what the variable accepts:
//!
//! ```
//! use ccfn_core::config::{Env, CCFN_HTTP_TIMEOUT_MS};
//!
//! let env = Env::from_vars([("CCFN_HTTP_TIMEOUT_MS", "abc")]);
//! let error = CCFN_HTTP_TIMEOUT_MS.millis(&env).unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "CCFN_HTTP_TIMEOUT_MS=\"abc\": expected a whole number of milliseconds, at least 1"
//! );
//! assert_eq!(error.variable(), Some("CCFN_HTTP_TIMEOUT_MS"));
//!
//! // As a `ccfn_core::Error`, it is a configuration error (500-class, a
//! // deployment fault), never a request's validation error.
//! let error: ccfn_core::Error = error.into();
//! assert_eq!(error.kind(), ccfn_core::ErrorKind::Configuration);
//! ```
//!
//! Where values come from: [`Env::load`] reads a `.env` file in the
//! current directory when there is one, then the process environment,
//! which wins. Every variable of the catalogue, `CCFN_*` included, can be
//! set either way. A value that is empty or only white space counts as
//! unset.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use crate::secret::{is_sensitive_name, scrub, Secret, REDACTED};

pub use crate::error::ConfigError;

/// What a variable accepts: how it is parsed, and what its error says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum Kind {
    /// Any text (a name, an identifier, a path).
    Text,
    /// A switch: the string `true` turns it on, anything else leaves it off.
    Flag,
    /// A whole number of `unit` (`milliseconds`, `bytes`, ...), at least
    /// `min`.
    Whole {
        /// What is counted, plural.
        unit: &'static str,
        /// The smallest value accepted.
        min: u64,
    },
    /// A share, from 0 to 1.
    Ratio,
    /// One of these words, compared without regard to ASCII case.
    Choice(&'static [&'static str]),
    /// An `http://` or `https://` URL with a host.
    Url,
    /// An IP address and port.
    Addr,
    /// A log filter, with the syntax of `RUST_LOG`.
    Filter,
}

impl Kind {
    /// What the variable accepts, as an error message says it
    /// (`a whole number of milliseconds, at least 1`).
    #[must_use]
    pub(crate) fn accepted(&self) -> String {
        match *self {
            Kind::Text => "any text".to_owned(),
            Kind::Flag => "`true`, or anything else for off".to_owned(),
            Kind::Whole { unit, min: 0 } => format!("a whole number of {unit}"),
            Kind::Whole { unit, min } => format!("a whole number of {unit}, at least {min}"),
            Kind::Ratio => "a number from 0 to 1, such as 0.8".to_owned(),
            Kind::Choice(words) => {
                let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
                match quoted.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} or {last}", rest.join(", "))
                    }
                    _ => quoted.concat(),
                }
            }
            Kind::Url => "an http:// or https:// URL such as https://example.com".to_owned(),
            Kind::Addr => "an IP address and port such as 127.0.0.1:3001".to_owned(),
            Kind::Filter => {
                "a level (`info`) or `target=level` pairs separated by commas".to_owned()
            }
        }
    }
}

/// A variable's default, as the settings table of `docs/runtime.md` shows
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DefaultValue {
    /// No value: the part does without (shown as `unset`).
    Unset,
    /// This value, as it would be written in the variable (shown in
    /// backquotes); parsing it gives the part's default.
    Value(&'static str),
    /// A default that depends on something else, in words.
    Described(&'static str),
}

impl DefaultValue {
    /// The default as the settings table shows it.
    #[must_use]
    pub fn documented(&self) -> String {
        match *self {
            DefaultValue::Unset => "unset".to_owned(),
            DefaultValue::Value(value) => format!("`{value}`"),
            DefaultValue::Described(words) => words.to_owned(),
        }
    }
}

/// One variable ccfn reads: its name, what it accepts, its default and
/// whether it is a secret. Every setting is a static of this module,
/// listed in [`SETTINGS`]; the reading methods take `&'static self`, so a
/// variable is read only through its entry.
#[derive(Debug)]
pub struct Setting {
    name: &'static str,
    kind: Kind,
    default: DefaultValue,
    secret: bool,
    about: &'static str,
}

/// Where values come from: [`Env`] (the process environment over a
/// `.env` file), or a [`crate::Context`], whose values are the same.
pub trait Source {
    /// The value of variable `name` as set, secret or not; `None` when
    /// unset.
    fn var(&self, name: &str) -> Option<&str>;
}

impl Setting {
    const fn new(
        name: &'static str,
        kind: Kind,
        default: DefaultValue,
        about: &'static str,
    ) -> Setting {
        Setting {
            name,
            kind,
            default,
            secret: false,
            about,
        }
    }

    /// The same setting, held as a secret: its value is never shown.
    const fn secret(mut self) -> Setting {
        self.secret = true;
        self
    }

    /// The variable's name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The default, as documented.
    #[must_use]
    pub fn default_value(&self) -> DefaultValue {
        self.default
    }

    /// Whether the value is a secret (its name is sensitive, see
    /// [`crate::record::is_sensitive_name`]): held as a [`Secret`], never shown in
    /// a message.
    #[must_use]
    pub fn is_secret(&self) -> bool {
        self.secret
    }

    /// What the variable is, in one line.
    #[must_use]
    pub fn about(&self) -> &'static str {
        self.about
    }

    /// The value, trimmed; `None` when unset, empty or only white space.
    pub fn text<'a, S: Source + ?Sized>(&'static self, source: &'a S) -> Option<&'a str> {
        source
            .var(self.name)
            .map(str::trim)
            .filter(|value| !value.is_empty())
    }

    /// The value as a [`Secret`], trimmed; `None` when unset or blank.
    pub fn secret_value<S: Source + ?Sized>(&'static self, source: &S) -> Option<Secret> {
        self.text(source).map(Secret::new)
    }

    /// The value as a list of names separated by commas (and white
    /// space), each trimmed, none empty.
    pub fn names<'a, S: Source + ?Sized>(
        &'static self,
        source: &'a S,
    ) -> impl Iterator<Item = &'a str> {
        self.text(source)
            .unwrap_or_default()
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|name| !name.is_empty())
    }

    /// Whether the value is the string `true` (for a switch).
    pub fn flag<S: Source + ?Sized>(&'static self, source: &S) -> bool {
        self.text(source) == Some("true")
    }

    /// The value parsed by `parse`; `None` when unset or blank.
    ///
    /// # Errors
    /// `parse` returns `None`: the error names the variable, quotes the
    /// value (unless it is a secret) and says what the variable
    /// accepts.
    pub fn parse<T, S: Source + ?Sized>(
        &'static self,
        source: &S,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>, ConfigError> {
        match self.text(source) {
            None => Ok(None),
            Some(value) => parse(value)
                .map(Some)
                .ok_or_else(|| self.invalid(value, None)),
        }
    }

    /// A whole number of at least the kind's minimum.
    ///
    /// # Errors
    /// The value is not such a number.
    pub fn whole<S: Source + ?Sized>(
        &'static self,
        source: &S,
    ) -> Result<Option<u64>, ConfigError> {
        let min = match self.kind {
            Kind::Whole { min, .. } => min,
            _ => 0,
        };
        self.parse(source, |value| {
            value.parse::<u64>().ok().filter(|number| *number >= min)
        })
    }

    /// A whole number that fits a `usize`.
    ///
    /// # Errors
    /// The value is not such a number.
    pub fn count<S: Source + ?Sized>(
        &'static self,
        source: &S,
    ) -> Result<Option<usize>, ConfigError> {
        match self.whole(source)? {
            None => Ok(None),
            Some(number) => usize::try_from(number)
                .map(Some)
                .map_err(|_| self.invalid(&number.to_string(), None)),
        }
    }

    /// A whole number of milliseconds.
    ///
    /// # Errors
    /// The value is not such a number.
    pub fn millis<S: Source + ?Sized>(
        &'static self,
        source: &S,
    ) -> Result<Option<Duration>, ConfigError> {
        Ok(self.whole(source)?.map(Duration::from_millis))
    }

    /// A whole number of seconds.
    ///
    /// # Errors
    /// The value is not such a number.
    pub fn seconds<S: Source + ?Sized>(
        &'static self,
        source: &S,
    ) -> Result<Option<Duration>, ConfigError> {
        Ok(self.whole(source)?.map(Duration::from_secs))
    }

    /// A number from 0 to 1.
    ///
    /// # Errors
    /// The value is not such a number.
    pub fn ratio<S: Source + ?Sized>(
        &'static self,
        source: &S,
    ) -> Result<Option<f64>, ConfigError> {
        self.parse(source, |value| {
            value
                .parse::<f64>()
                .ok()
                .filter(|ratio| (0.0..=1.0).contains(ratio))
        })
    }

    /// One of the words the variable accepts, as the catalogue spells it
    /// (the value is compared without regard to ASCII case).
    ///
    /// # Errors
    /// The value is none of the words.
    pub fn choice<S: Source + ?Sized>(
        &'static self,
        source: &S,
    ) -> Result<Option<&'static str>, ConfigError> {
        let words: &'static [&'static str] = match self.kind {
            Kind::Choice(words) => words,
            _ => &[],
        };
        self.parse(source, |value| {
            words
                .iter()
                .copied()
                .find(|word| word.eq_ignore_ascii_case(value))
        })
    }

    /// An `http://` or `https://` URL with a host, without a trailing `/`.
    ///
    /// # Errors
    /// The value is not such a URL.
    pub fn url<S: Source + ?Sized>(
        &'static self,
        source: &S,
    ) -> Result<Option<String>, ConfigError> {
        self.parse(source, |value| {
            let url = value.trim_end_matches('/');
            let lower = url.to_ascii_lowercase();
            let rest = lower
                .strip_prefix("https://")
                .or_else(|| lower.strip_prefix("http://"))?;
            let host = rest.split(['/', '?', '#']).next().unwrap_or("");
            let host = host.rsplit('@').next().unwrap_or("");
            let valid = !host.is_empty()
                && !host.starts_with(':')
                && !url.chars().any(|c| c.is_whitespace() || c.is_control());
            if valid {
                // `https://user:password@host`: the password is a secret;
                // so is a sensitive query value (`?token=...`), by the
                // rule that hides it when the URL is shown.
                crate::secret::register_url_secrets(url);
            }
            valid.then(|| url.to_owned())
        })
    }

    /// An IP address and port.
    ///
    /// # Errors
    /// The value is not such an address (a host name is not accepted).
    pub fn addr<S: Source + ?Sized>(
        &'static self,
        source: &S,
    ) -> Result<Option<SocketAddr>, ConfigError> {
        self.parse(source, |value| value.parse().ok())
    }

    /// Whether the value, when set, is one the variable accepts.
    ///
    /// # Errors
    /// It is not; the error says why.
    pub fn check<S: Source + ?Sized>(&'static self, source: &S) -> Result<(), ConfigError> {
        match self.kind {
            Kind::Text | Kind::Flag => Ok(()),
            Kind::Whole { .. } => self.whole(source).map(drop),
            Kind::Ratio => self.ratio(source).map(drop),
            Kind::Choice(_) => self.choice(source).map(drop),
            Kind::Url => self.url(source).map(drop),
            Kind::Addr => self.addr(source).map(drop),
            Kind::Filter => match self.text(source) {
                None => Ok(()),
                Some(value) => value
                    .parse::<tracing_subscriber::filter::Targets>()
                    .map(drop)
                    .map_err(|e| self.invalid(value, Some(&e.to_string()))),
            },
        }
    }

    /// The error for `value` of this variable, with an optional `detail`
    /// (a parser's reason): names the variable, quotes the value (cut,
    /// control characters escaped; a secret's value is never shown) and
    /// says what the variable accepts.
    #[must_use]
    pub fn invalid(&'static self, value: &str, detail: Option<&str>) -> ConfigError {
        let accepted = self.kind.accepted();
        let mut message = if self.secret {
            format!("{} (a secret, its value not shown)", self.name)
        } else {
            format!("{}={}", self.name, quote(self.kind, value))
        };
        message.push_str(": ");
        // A parser's reason may repeat the value: a secret's is left out.
        if let Some(detail) = detail.filter(|_| !self.secret) {
            let mut clean = String::new();
            push_escaped(&mut clean, detail);
            scrub(&mut clean, &[]);
            message.push_str(&clean);
            message.push_str("; ");
        }
        message.push_str("expected ");
        message.push_str(&accepted);
        ConfigError::new(Some(self.name), Some(accepted), message)
    }

    /// An error about this variable that is not about the form of its
    /// value (another variable it needs is missing, say); `message` is
    /// the whole message.
    #[must_use]
    pub fn problem(&'static self, message: impl Into<String>) -> ConfigError {
        ConfigError::new(Some(self.name), None, message.into())
    }
}

/// How much of a value an error message quotes, in bytes.
pub(crate) const MAX_QUOTED_BYTES: usize = 64;

/// `value` quoted for a message: cut at [`MAX_QUOTED_BYTES`] with `…`,
/// `"` and `\` escaped, control characters shown as `\u{..}`, the user
/// and password and sensitive query values of a URL (the scrubber shows
/// URLs as [`crate::secret::display_url`] does) and every registered
/// secret scrubbed.
fn quote(kind: Kind, value: &str) -> String {
    let mut end = value.len().min(MAX_QUOTED_BYTES);
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    let mut shown = value[..end].to_owned();
    if kind == Kind::Url {
        shown = without_userinfo(&shown);
    }
    let mut out = String::with_capacity(shown.len() + 4);
    out.push('"');
    push_escaped(&mut out, &shown);
    out.push('"');
    if end < value.len() {
        out.push('…');
    }
    scrub(&mut out, &[]);
    out
}

/// `url` with any `user:password@` before its host replaced.
fn without_userinfo(url: &str) -> String {
    let start = url.find("://").map_or(0, |at| at + 3);
    let authority_end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |at| start + at);
    match url[start..authority_end].rfind('@') {
        Some(at) => format!("{}{REDACTED}{}", &url[..start], &url[start + at..]),
        None => url.to_owned(),
    }
}

/// Appends `text` with `"` and `\` escaped and control characters shown
/// as `\u{..}`.
fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
}

/// The values ccfn reads: the process environment over a `.env` file,
/// read once. Its `Debug` shows every secret as `[REDACTED]`.
///
/// ```
/// use ccfn_core::config::{Env, Source, CCFN_MODE};
///
/// let env = Env::from_vars([("CCFN_MODE", " production "), ("AUTH_TOKEN", "canary-env-1")]);
/// assert_eq!(CCFN_MODE.choice(&env).unwrap(), Some("production"));
/// assert_eq!(env.var("AUTH_TOKEN"), Some("canary-env-1"));
/// assert!(!format!("{env:?}").contains("canary-env-1"));
/// ```
#[derive(Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

/// The `.env` file [`Env::load`] reads, in the current directory.
pub(crate) const DOTENV: &str = ".env";

impl Env {
    /// The process environment over the `.env` file of the current
    /// directory when there is one: a variable set in both takes the
    /// environment's value. Variables whose name or value is not UTF-8
    /// are left out.
    ///
    /// # Errors
    /// The `.env` file exists but cannot be read or parsed; the error
    /// names the file and the byte position, never a value.
    pub fn load() -> Result<Env, ConfigError> {
        Env::load_over(Path::new(DOTENV))
    }

    /// The process environment over the file `dotenv` when it exists.
    ///
    /// # Errors
    /// The file exists but cannot be read or parsed.
    pub fn load_over(dotenv: &Path) -> Result<Env, ConfigError> {
        let mut env = Env::default();
        if dotenv.exists() {
            env.vars.extend(read_dotenv(dotenv)?);
        }
        for (name, value) in std::env::vars_os() {
            if let (Ok(name), Ok(value)) = (name.into_string(), value.into_string()) {
                env.vars.insert(name, value);
            }
        }
        Ok(env)
    }

    /// These values only, for tests and embedding.
    pub fn from_vars<N, V>(vars: impl IntoIterator<Item = (N, V)>) -> Env
    where
        N: Into<String>,
        V: Into<String>,
    {
        Env {
            vars: vars
                .into_iter()
                .map(|(name, value)| (name.into(), value.into()))
                .collect(),
        }
    }

    /// Every variable, by name: the context's values.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }
}

impl Source for Env {
    fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }
}

impl fmt::Debug for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (name, value) in &self.vars {
            if is_sensitive_name(name) {
                map.entry(name, &REDACTED);
            } else {
                map.entry(name, value);
            }
        }
        map.finish()
    }
}

/// The `NAME=value` pairs of a `.env` file (`#` comments, quotes as in
/// shells), in order.
///
/// # Errors
/// The file cannot be read, or a line cannot be parsed; the error names
/// the file and the byte position but never a value.
pub(crate) fn read_dotenv(path: &Path) -> Result<Vec<(String, String)>, ConfigError> {
    let describe = |e: dotenvy::Error| -> ConfigError {
        let what = match e {
            dotenvy::Error::LineParse(_, index) => format!("cannot parse it at byte {index}"),
            dotenvy::Error::Io(io) => io.to_string(),
            _ => "cannot read it".to_owned(),
        };
        ConfigError::new(None, None, format!("{}: {what}", path.display()))
    };
    dotenvy::from_path_iter(path)
        .map_err(describe)?
        .map(|item| item.map_err(describe))
        .collect()
}

macro_rules! settings {
    ($($(#[$doc:meta])* $name:ident = $setting:expr;)*) => {
        $($(#[$doc])* pub static $name: Setting = $setting;)*

        /// Every variable ccfn reads, in the order of the settings table
        /// of `docs/runtime.md`.
        pub static SETTINGS: &[&Setting] = &[$(&$name,)*];
    };
}

/// What the OTLP exporter's TLS options ccfn does not read say.
const NOT_READ_CA: &str =
    "not read: set, the server refuses to start (a collector's CA certificate goes in `SSL_CERT_FILE`)";
const NOT_READ_CLIENT: &str =
    "not read: set, the server refuses to start (ccfn sends no client certificate to a collector)";

const MILLIS: Kind = Kind::Whole {
    unit: "milliseconds",
    min: 0,
};
const MILLIS_1: Kind = Kind::Whole {
    unit: "milliseconds",
    min: 1,
};
const BYTES: Kind = Kind::Whole {
    unit: "bytes",
    min: 0,
};
const BYTES_1: Kind = Kind::Whole {
    unit: "bytes",
    min: 1,
};

settings! {
    // The runtime.
    /// `CCFN_ADDR`: the address and port to listen on.
    CCFN_ADDR = Setting::new("CCFN_ADDR", Kind::Addr, DefaultValue::Value("127.0.0.1:3001"),
        "the address and port to listen on");
    /// `CCFN_LOG_FORMAT`: the log format.
    CCFN_LOG_FORMAT = Setting::new("CCFN_LOG_FORMAT", Kind::Choice(&["pretty", "json"]),
        DefaultValue::Value("pretty"), "the log format");
    /// `CCFN_LOG_DETAIL`: how much of each record the human format shows.
    CCFN_LOG_DETAIL = Setting::new("CCFN_LOG_DETAIL", Kind::Choice(&["brief", "full"]),
        DefaultValue::Value("brief"), "how much of each record the `pretty` format shows");
    /// `CCFN_LOG`: the log filter.
    CCFN_LOG = Setting::new("CCFN_LOG", Kind::Filter, DefaultValue::Value("info"),
        "the log filter");
    /// `CCFN_DEBUG_BUFFER_BYTES`: how many bytes of `debug` lines an
    /// invocation holds back until it fails.
    CCFN_DEBUG_BUFFER_BYTES = Setting::new("CCFN_DEBUG_BUFFER_BYTES", BYTES,
        DefaultValue::Value("0"),
        "how many bytes of a function's `debug` lines the filter leaves out are held back, and written when the invocation fails");
    /// `CCFN_MODE`: where the runtime runs.
    CCFN_MODE = Setting::new("CCFN_MODE", Kind::Choice(&["local", "production"]),
        DefaultValue::Value("local"), "where the runtime runs");
    /// `CCFN_PUBLIC_URL`: the scheme and host the platform calls.
    CCFN_PUBLIC_URL = Setting::new("CCFN_PUBLIC_URL", Kind::Url, DefaultValue::Unset,
        "the scheme and host the platform calls, for request signatures");
    /// `CCFN_CATALOGUE`: whether the function catalogue is served.
    CCFN_CATALOGUE = Setting::new("CCFN_CATALOGUE", Kind::Choice(&["on", "off"]),
        DefaultValue::Described("`on` in local mode, `off` in production mode"),
        "whether `GET /__ccfn/functions` serves the function catalogue");
    /// `CCFN_INSPECTOR`: whether the inspector page is served.
    CCFN_INSPECTOR = Setting::new("CCFN_INSPECTOR", Kind::Choice(&["on", "off"]),
        DefaultValue::Described("`on` in local mode, `off` in production mode"),
        "whether `/__ccfn/inspector` serves the inspector page of recent invocations");
    /// `CCFN_INSPECTOR_INVOCATIONS`: how many invocations the inspector keeps.
    CCFN_INSPECTOR_INVOCATIONS = Setting::new("CCFN_INSPECTOR_INVOCATIONS",
        Kind::Whole { unit: "invocations", min: 1 }, DefaultValue::Value("200"),
        "how many recent invocations the inspector keeps in memory, the oldest forgotten first");
    /// `CCFN_BACKTRACE`: whether error records carry a backtrace.
    CCFN_BACKTRACE = Setting::new("CCFN_BACKTRACE", Kind::Choice(&["on", "off"]),
        DefaultValue::Value("off"),
        "whether `error` records of function, upstream and panic errors carry a backtrace");
    /// `CCFN_BODY_LIMIT_BYTES`: the largest request body.
    CCFN_BODY_LIMIT_BYTES = Setting::new("CCFN_BODY_LIMIT_BYTES", BYTES,
        DefaultValue::Value("1048576"), "the largest request body, in bytes");
    /// `CCFN_MAX_PARAMS`: the most parameters a request may carry.
    CCFN_MAX_PARAMS = Setting::new("CCFN_MAX_PARAMS", Kind::Whole { unit: "parameters", min: 0 },
        DefaultValue::Value("1000"), "the most parameters a request may carry");
    /// `CCFN_BODY_TIMEOUT_MS`: how long a request body may take to arrive.
    CCFN_BODY_TIMEOUT_MS = Setting::new("CCFN_BODY_TIMEOUT_MS", MILLIS,
        DefaultValue::Value("10000"), "how long a request body may take to arrive");
    /// `CCFN_HEADER_TIMEOUT_MS`: how long a request's headers may take.
    CCFN_HEADER_TIMEOUT_MS = Setting::new("CCFN_HEADER_TIMEOUT_MS", MILLIS_1,
        DefaultValue::Value("10000"),
        "how long a request's headers may take to arrive, and a connection may stay idle");
    /// `CCFN_MAX_CONNECTIONS`: the most connections open at once.
    CCFN_MAX_CONNECTIONS = Setting::new("CCFN_MAX_CONNECTIONS",
        Kind::Whole { unit: "connections", min: 1 }, DefaultValue::Value("1024"),
        "the most connections open at once");
    /// `CCFN_SHUTDOWN_GRACE_MS`: how long in-flight invocations may run
    /// after a shutdown signal.
    CCFN_SHUTDOWN_GRACE_MS = Setting::new("CCFN_SHUTDOWN_GRACE_MS", MILLIS,
        DefaultValue::Value("10000"),
        "how long in-flight invocations may run after SIGINT or SIGTERM");
    // The thresholds and the memory limit.
    /// `CCFN_MEMORY_LIMIT_BYTES`: the memory limit.
    CCFN_MEMORY_LIMIT_BYTES = Setting::new("CCFN_MEMORY_LIMIT_BYTES",
        Kind::Whole { unit: "bytes", min: 1 }, DefaultValue::Described("the cgroup's limit"),
        "the memory limit for the `metrics` record and the `memory` alert, in bytes");
    /// `CCFN_ALERT_EXECUTION_MS`: the `execution_time` alert's threshold.
    CCFN_ALERT_EXECUTION_MS = Setting::new("CCFN_ALERT_EXECUTION_MS", MILLIS,
        DefaultValue::Value("10000"), "`execution_time` alert: invocations longer than this");
    /// `CCFN_ALERT_MEMORY_RATIO`: the `memory` alert's threshold.
    CCFN_ALERT_MEMORY_RATIO = Setting::new("CCFN_ALERT_MEMORY_RATIO", Kind::Ratio,
        DefaultValue::Value("0.8"), "`memory` alert: resident memory over this share of the limit");
    /// `CCFN_ALERT_API_RESPONSE_MS`: the `api_response_time` alert's
    /// threshold.
    CCFN_ALERT_API_RESPONSE_MS = Setting::new("CCFN_ALERT_API_RESPONSE_MS", MILLIS,
        DefaultValue::Value("5000"), "`api_response_time` alert: calls slower than this");
    /// `CCFN_ALERT_ERROR_RATE`: the `error_rate` alert's threshold.
    CCFN_ALERT_ERROR_RATE = Setting::new("CCFN_ALERT_ERROR_RATE", Kind::Ratio,
        DefaultValue::Value("0.05"), "`error_rate` alert: share of failed invocations");
    /// `CCFN_ALERT_ERROR_WINDOW_S`: the error-rate window.
    CCFN_ALERT_ERROR_WINDOW_S = Setting::new("CCFN_ALERT_ERROR_WINDOW_S",
        Kind::Whole { unit: "seconds", min: 1 }, DefaultValue::Value("600"),
        "the error-rate window");
    /// `CCFN_ALERT_ERROR_MIN_INVOCATIONS`: what the error-rate window must
    /// hold before it can alert.
    CCFN_ALERT_ERROR_MIN_INVOCATIONS = Setting::new("CCFN_ALERT_ERROR_MIN_INVOCATIONS",
        Kind::Whole { unit: "invocations", min: 0 }, DefaultValue::Value("10"),
        "invocations the error-rate window must hold before it can alert");
    /// `CCFN_ALERT_RESPONSE_BYTES`: the `response_size` alert's threshold.
    CCFN_ALERT_RESPONSE_BYTES = Setting::new("CCFN_ALERT_RESPONSE_BYTES", BYTES,
        DefaultValue::Value("65536"), "`response_size` alert: reply bodies larger than this");
    // The HTTP client.
    /// `CCFN_HTTP_TIMEOUT_MS`: how long a call through `context.http()`
    /// may take.
    CCFN_HTTP_TIMEOUT_MS = Setting::new("CCFN_HTTP_TIMEOUT_MS", MILLIS_1,
        DefaultValue::Value("6000"), "how long a call through `context.http()` may take");
    /// `CCFN_HTTP_CONNECT_TIMEOUT_MS`: how long `context.http()` may take
    /// to connect.
    CCFN_HTTP_CONNECT_TIMEOUT_MS = Setting::new("CCFN_HTTP_CONNECT_TIMEOUT_MS", MILLIS_1,
        DefaultValue::Value("3000"), "how long `context.http()` may take to connect");
    /// `CCFN_HTTP_MAX_RESPONSE_BYTES`: the largest response
    /// `context.http()` reads.
    CCFN_HTTP_MAX_RESPONSE_BYTES = Setting::new("CCFN_HTTP_MAX_RESPONSE_BYTES", BYTES_1,
        DefaultValue::Value("1048576"), "the largest response `context.http()` reads");
    /// `CCFN_TLS_ROOTS`: where the clients' trusted CA certificates come
    /// from.
    CCFN_TLS_ROOTS = Setting::new("CCFN_TLS_ROOTS", Kind::Choice(&["auto", "system", "builtin"]),
        DefaultValue::Value("auto"),
        "where the clients' trusted CA certificates come from: the system's (`system`), the Mozilla roots built into ccfn (`builtin`), or the system's when it has any, else the built-in ones (`auto`)");
    /// `SSL_CERT_FILE`: a PEM file of trusted CA certificates, read
    /// instead of the system's store.
    SSL_CERT_FILE = Setting::new("SSL_CERT_FILE", Kind::Text,
        DefaultValue::Described("unset: the system's store"),
        "a PEM file of trusted CA certificates, read instead of the system's store");
    /// `SSL_CERT_DIR`: directories of trusted CA certificate files, read
    /// instead of the system's store.
    SSL_CERT_DIR = Setting::new("SSL_CERT_DIR", Kind::Text,
        DefaultValue::Described("unset: the system's store"),
        "directories of trusted CA certificate files, separated by `:`, read instead of the system's store");
    // The email provider.
    /// `EMAILPROVIDER_API_KEY`: the domain's sending key.
    EMAILPROVIDER_API_KEY = Setting::new("EMAILPROVIDER_API_KEY", Kind::Text,
        DefaultValue::Described("unset: the local outbox"), "the domain's sending key").secret();
    /// `EMAILPROVIDER_DOMAIN`: the verified sending domain.
    EMAILPROVIDER_DOMAIN = Setting::new("EMAILPROVIDER_DOMAIN", Kind::Text,
        DefaultValue::Described("unset; required with a key"), "the verified sending domain");
    /// `EMAILPROVIDER_BASE_URL`: the email provider's API base URL.
    EMAILPROVIDER_BASE_URL = Setting::new("EMAILPROVIDER_BASE_URL", Kind::Url,
        DefaultValue::Described("from `EMAILPROVIDER_REGION`"),
        "the email provider's API base URL (wins over the region)");
    /// `EMAILPROVIDER_REGION`: the email provider's region.
    EMAILPROVIDER_REGION = Setting::new("EMAILPROVIDER_REGION", Kind::Choice(&["us", "eu"]),
        DefaultValue::Value("us"), "the email provider's region");
    /// `EMAILPROVIDER_MAX_BYTES`: the size limit of a message.
    EMAILPROVIDER_MAX_BYTES = Setting::new("EMAILPROVIDER_MAX_BYTES", BYTES_1,
        DefaultValue::Value("26214400"), "the size limit of a message, checked before sending");
    /// `EMAILPROVIDER_TIMEOUT_MS`: how long a call to the email provider
    /// may take.
    EMAILPROVIDER_TIMEOUT_MS = Setting::new("EMAILPROVIDER_TIMEOUT_MS", MILLIS_1,
        DefaultValue::Value("6000"), "how long a call to the email provider may take");
    /// `EMAILPROVIDER_CONNECT_TIMEOUT_MS`: how long connecting to the email
    /// provider may take.
    EMAILPROVIDER_CONNECT_TIMEOUT_MS = Setting::new("EMAILPROVIDER_CONNECT_TIMEOUT_MS", MILLIS_1,
        DefaultValue::Value("3000"), "how long connecting to the email provider may take");
    /// `EMAILPROVIDER_MAX_RESPONSE_BYTES`: the largest answer of the email
    /// provider read.
    EMAILPROVIDER_MAX_RESPONSE_BYTES = Setting::new("EMAILPROVIDER_MAX_RESPONSE_BYTES", BYTES_1,
        DefaultValue::Value("1048576"), "the largest answer of the email provider read");
    /// `CCFN_OUTBOX_DIR`: where the local outbox writes.
    CCFN_OUTBOX_DIR = Setting::new("CCFN_OUTBOX_DIR", Kind::Text,
        DefaultValue::Value(".ccfn/outbox"), "where the local outbox writes");
    // The task router.
    /// `TASKROUTER_BASE_URL`: the task router's API base URL.
    TASKROUTER_BASE_URL = Setting::new("TASKROUTER_BASE_URL", Kind::Url,
        DefaultValue::Value("https://taskrouter.twilio.com/v1"), "the task router's API base URL");
    /// `TASKROUTER_TIMEOUT_MS`: how long a call to the task router may
    /// take.
    TASKROUTER_TIMEOUT_MS = Setting::new("TASKROUTER_TIMEOUT_MS", MILLIS_1,
        DefaultValue::Value("6000"), "how long a call to the task router may take");
    /// `TASKROUTER_CONNECT_TIMEOUT_MS`: how long connecting to the task
    /// router may take.
    TASKROUTER_CONNECT_TIMEOUT_MS = Setting::new("TASKROUTER_CONNECT_TIMEOUT_MS", MILLIS_1,
        DefaultValue::Value("3000"), "how long connecting to the task router may take");
    /// `TASKROUTER_MAX_RESPONSE_BYTES`: the largest answer of the task
    /// router read.
    TASKROUTER_MAX_RESPONSE_BYTES = Setting::new("TASKROUTER_MAX_RESPONSE_BYTES", BYTES_1,
        DefaultValue::Value("1048576"), "the largest answer of the task router read");
    /// `API_KEY_SID`: the API key's identifier, for the task router.
    API_KEY_SID = Setting::new("API_KEY_SID", Kind::Text, DefaultValue::Unset,
        "the API key's identifier (the task router's user, preferred)").secret();
    /// `API_KEY_SECRET`: the API key's secret, for the task router.
    API_KEY_SECRET = Setting::new("API_KEY_SECRET", Kind::Text, DefaultValue::Unset,
        "the API key's secret (the task router's password)").secret();
    /// `CCFN_TASK_STORE`: the local task store.
    CCFN_TASK_STORE = Setting::new("CCFN_TASK_STORE", Kind::Text,
        DefaultValue::Value(".ccfn/tasks.jsonl"),
        "where tasks go without task-router credentials");
    // OpenTelemetry (the `otel` feature).
    /// `OTEL_SDK_DISABLED`: turns OpenTelemetry export off.
    OTEL_SDK_DISABLED = Setting::new("OTEL_SDK_DISABLED", Kind::Flag, DefaultValue::Unset,
        "`true` turns OpenTelemetry export off, whatever else is set");
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`: where traces and metrics go.
    OTEL_EXPORTER_OTLP_ENDPOINT = Setting::new("OTEL_EXPORTER_OTLP_ENDPOINT", Kind::Url,
        DefaultValue::Unset,
        "the OTLP/HTTP collector's base URL: traces go to `/v1/traces`, metrics to `/v1/metrics`");
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: where traces go.
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = Setting::new("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        Kind::Url, DefaultValue::Described("`OTEL_EXPORTER_OTLP_ENDPOINT` and `/v1/traces`"),
        "the full URL traces are sent to");
    /// `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`: where metrics go.
    OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = Setting::new("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        Kind::Url, DefaultValue::Described("`OTEL_EXPORTER_OTLP_ENDPOINT` and `/v1/metrics`"),
        "the full URL metrics are sent to");
    /// `OTEL_EXPORTER_OTLP_PROTOCOL`: the OTLP transport.
    OTEL_EXPORTER_OTLP_PROTOCOL = Setting::new("OTEL_EXPORTER_OTLP_PROTOCOL",
        Kind::Choice(&["http/protobuf"]), DefaultValue::Value("http/protobuf"),
        "the OTLP transport: `http/protobuf`");
    /// `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`: the OTLP transport of traces.
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL = Setting::new("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        Kind::Choice(&["http/protobuf"]), DefaultValue::Described("`OTEL_EXPORTER_OTLP_PROTOCOL`"),
        "the OTLP transport of traces: `http/protobuf`");
    /// `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL`: the OTLP transport of
    /// metrics.
    OTEL_EXPORTER_OTLP_METRICS_PROTOCOL = Setting::new("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
        Kind::Choice(&["http/protobuf"]), DefaultValue::Described("`OTEL_EXPORTER_OTLP_PROTOCOL`"),
        "the OTLP transport of metrics: `http/protobuf`");
    /// `OTEL_EXPORTER_OTLP_HEADERS`: headers sent with every export.
    OTEL_EXPORTER_OTLP_HEADERS = Setting::new("OTEL_EXPORTER_OTLP_HEADERS", Kind::Text,
        DefaultValue::Unset,
        "`name=value` pairs separated by commas, sent with every export (a collector's API key)")
        .secret();
    /// `OTEL_EXPORTER_OTLP_TRACES_HEADERS`: headers sent with every
    /// export of traces.
    OTEL_EXPORTER_OTLP_TRACES_HEADERS = Setting::new("OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        Kind::Text, DefaultValue::Described("`OTEL_EXPORTER_OTLP_HEADERS`"),
        "`name=value` pairs separated by commas, sent with every export of traces instead")
        .secret();
    /// `OTEL_EXPORTER_OTLP_METRICS_HEADERS`: headers sent with every
    /// export of metrics.
    OTEL_EXPORTER_OTLP_METRICS_HEADERS = Setting::new("OTEL_EXPORTER_OTLP_METRICS_HEADERS",
        Kind::Text, DefaultValue::Described("`OTEL_EXPORTER_OTLP_HEADERS`"),
        "`name=value` pairs separated by commas, sent with every export of metrics instead")
        .secret();
    /// `OTEL_EXPORTER_OTLP_COMPRESSION`: how export bodies are
    /// compressed.
    OTEL_EXPORTER_OTLP_COMPRESSION = Setting::new("OTEL_EXPORTER_OTLP_COMPRESSION",
        Kind::Choice(&["gzip", "none"]), DefaultValue::Value("none"),
        "`gzip` compresses every export's body; `none` sends it as it is");
    /// `OTEL_EXPORTER_OTLP_TRACES_COMPRESSION`: how exports of traces are
    /// compressed.
    OTEL_EXPORTER_OTLP_TRACES_COMPRESSION = Setting::new("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
        Kind::Choice(&["gzip", "none"]), DefaultValue::Described("`OTEL_EXPORTER_OTLP_COMPRESSION`"),
        "`gzip` or `none`, for traces");
    /// `OTEL_EXPORTER_OTLP_METRICS_COMPRESSION`: how exports of metrics
    /// are compressed.
    OTEL_EXPORTER_OTLP_METRICS_COMPRESSION = Setting::new("OTEL_EXPORTER_OTLP_METRICS_COMPRESSION",
        Kind::Choice(&["gzip", "none"]), DefaultValue::Described("`OTEL_EXPORTER_OTLP_COMPRESSION`"),
        "`gzip` or `none`, for metrics");
    /// `OTEL_EXPORTER_OTLP_TIMEOUT`: how long one export may take.
    OTEL_EXPORTER_OTLP_TIMEOUT = Setting::new("OTEL_EXPORTER_OTLP_TIMEOUT", MILLIS_1,
        DefaultValue::Value("10000"), "how long one export may take, in milliseconds");
    /// `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`: how long one export of traces
    /// may take.
    OTEL_EXPORTER_OTLP_TRACES_TIMEOUT = Setting::new("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", MILLIS_1,
        DefaultValue::Described("`OTEL_EXPORTER_OTLP_TIMEOUT`"),
        "how long one export of traces may take, in milliseconds");
    /// `OTEL_EXPORTER_OTLP_METRICS_TIMEOUT`: how long one export of
    /// metrics may take.
    OTEL_EXPORTER_OTLP_METRICS_TIMEOUT = Setting::new("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
        MILLIS_1, DefaultValue::Described("`OTEL_EXPORTER_OTLP_TIMEOUT`"),
        "how long one export of metrics may take, in milliseconds");
    /// `OTEL_EXPORTER_OTLP_CERTIFICATE`: not read; set, it is refused.
    OTEL_EXPORTER_OTLP_CERTIFICATE = Setting::new("OTEL_EXPORTER_OTLP_CERTIFICATE", Kind::Text,
        DefaultValue::Unset, NOT_READ_CA);
    /// `OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE`: not read; set, it is
    /// refused.
    OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE = Setting::new("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE",
        Kind::Text, DefaultValue::Unset, NOT_READ_CA);
    /// `OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE`: not read; set, it is
    /// refused.
    OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE = Setting::new("OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE",
        Kind::Text, DefaultValue::Unset, NOT_READ_CA);
    /// `OTEL_EXPORTER_OTLP_CLIENT_KEY`: not read; set, it is refused.
    OTEL_EXPORTER_OTLP_CLIENT_KEY = Setting::new("OTEL_EXPORTER_OTLP_CLIENT_KEY", Kind::Text,
        DefaultValue::Unset, NOT_READ_CLIENT).secret();
    /// `OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY`: not read; set, it is
    /// refused.
    OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY = Setting::new("OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY",
        Kind::Text, DefaultValue::Unset, NOT_READ_CLIENT).secret();
    /// `OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY`: not read; set, it is
    /// refused.
    OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY = Setting::new("OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY",
        Kind::Text, DefaultValue::Unset, NOT_READ_CLIENT).secret();
    /// `OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE`: not read; set, it is
    /// refused.
    OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE = Setting::new("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE",
        Kind::Text, DefaultValue::Unset, NOT_READ_CLIENT);
    /// `OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE`: not read; set, it
    /// is refused.
    OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE = Setting::new(
        "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE", Kind::Text, DefaultValue::Unset,
        NOT_READ_CLIENT);
    /// `OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE`: not read; set, it
    /// is refused.
    OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE = Setting::new(
        "OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE", Kind::Text, DefaultValue::Unset,
        NOT_READ_CLIENT);
    /// `OTEL_SERVICE_NAME`: the `service.name` of everything exported.
    OTEL_SERVICE_NAME = Setting::new("OTEL_SERVICE_NAME", Kind::Text,
        DefaultValue::Value("ccfn"), "the `service.name` of every span and metric");
    /// `OTEL_RESOURCE_ATTRIBUTES`: more attributes of the resource.
    OTEL_RESOURCE_ATTRIBUTES = Setting::new("OTEL_RESOURCE_ATTRIBUTES", Kind::Text,
        DefaultValue::Unset,
        "`key=value` pairs separated by commas, values percent-encoded: more resource attributes");
    /// `OTEL_TRACES_SAMPLER`: which traces are kept.
    OTEL_TRACES_SAMPLER = Setting::new("OTEL_TRACES_SAMPLER",
        Kind::Choice(&["parentbased_always_on", "parentbased_always_off",
            "parentbased_traceidratio", "always_on", "always_off", "traceidratio"]),
        DefaultValue::Value("parentbased_always_on"), "which traces are kept");
    /// `OTEL_TRACES_SAMPLER_ARG`: the share of traces kept by a ratio
    /// sampler.
    OTEL_TRACES_SAMPLER_ARG = Setting::new("OTEL_TRACES_SAMPLER_ARG", Kind::Ratio,
        DefaultValue::Value("1"), "the share of traces the `traceidratio` samplers keep");
    /// `OTEL_BSP_MAX_QUEUE_SIZE`: the most spans waiting for export.
    OTEL_BSP_MAX_QUEUE_SIZE = Setting::new("OTEL_BSP_MAX_QUEUE_SIZE",
        Kind::Whole { unit: "spans", min: 1 }, DefaultValue::Value("2048"),
        "the most spans waiting for export; past it, spans are dropped and counted");
    /// `OTEL_BSP_SCHEDULE_DELAY`: how long spans wait before export.
    OTEL_BSP_SCHEDULE_DELAY = Setting::new("OTEL_BSP_SCHEDULE_DELAY", MILLIS_1,
        DefaultValue::Value("5000"), "the longest a finished span waits before it is exported");
    /// `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`: the most spans in one export.
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE = Setting::new("OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
        Kind::Whole { unit: "spans", min: 1 }, DefaultValue::Value("512"),
        "the most spans sent in one export");
    /// `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE`: how sums and
    /// histograms are exported.
    OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE = Setting::new(
        "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
        Kind::Choice(&["cumulative", "delta", "lowmemory"]), DefaultValue::Value("cumulative"),
        "`cumulative` (totals since the start), `delta` (since the last export), or `lowmemory` (delta for synchronous counters and histograms, which all of ccfn's instruments are, cumulative for the rest)");
    /// `OTEL_METRIC_EXPORT_INTERVAL`: how often metrics are exported.
    OTEL_METRIC_EXPORT_INTERVAL = Setting::new("OTEL_METRIC_EXPORT_INTERVAL", MILLIS_1,
        DefaultValue::Value("60000"), "how often metrics are exported, in milliseconds");
    // AWS Lambda (`Runtime::serve_lambda`, the `lambda` feature): set by
    // the platform, or by an emulator of it.
    /// `AWS_LAMBDA_RUNTIME_API`: the host and port of the Lambda Runtime
    /// API.
    AWS_LAMBDA_RUNTIME_API = Setting::new("AWS_LAMBDA_RUNTIME_API", Kind::Text,
        DefaultValue::Unset, "the host and port of the Lambda Runtime API, set by Lambda");
    /// `AWS_LAMBDA_FUNCTION_NAME`: the Lambda function's name.
    AWS_LAMBDA_FUNCTION_NAME = Setting::new("AWS_LAMBDA_FUNCTION_NAME", Kind::Text,
        DefaultValue::Unset, "the Lambda function's name, set by Lambda");
    /// `AWS_LAMBDA_FUNCTION_MEMORY_SIZE`: the Lambda function's memory.
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE = Setting::new("AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
        Kind::Whole { unit: "megabytes", min: 0 }, DefaultValue::Unset,
        "the Lambda function's memory in megabytes, set by Lambda");
    /// `AWS_LAMBDA_FUNCTION_VERSION`: the Lambda function's version.
    AWS_LAMBDA_FUNCTION_VERSION = Setting::new("AWS_LAMBDA_FUNCTION_VERSION", Kind::Text,
        DefaultValue::Unset, "the Lambda function's version, set by Lambda");
    // The context.
    /// `AUTH_TOKEN`: the account's auth token.
    AUTH_TOKEN = Setting::new("AUTH_TOKEN", Kind::Text, DefaultValue::Unset,
        "the account's auth token: the key of request signatures").secret();
    /// `CCFN_SECRETS`: the names of further values to hold as declared
    /// secrets, for every function.
    CCFN_SECRETS = Setting::new("CCFN_SECRETS", Kind::Text, DefaultValue::Unset,
        "names of further values held as declared secrets, separated by commas");
    /// `DOMAIN_NAME`: the deployment domain.
    DOMAIN_NAME = Setting::new("DOMAIN_NAME", Kind::Text,
        DefaultValue::Described("what follows the scheme in `CCFN_PUBLIC_URL`, else `CCFN_ADDR`"),
        "the deployment domain");
    /// `ACCOUNT_SID`: the account identifier.
    ACCOUNT_SID = Setting::new("ACCOUNT_SID", Kind::Text, DefaultValue::Unset,
        "the account identifier");
    /// `PLATFORM_WORKSPACE_SID`: the task-routing workspace.
    PLATFORM_WORKSPACE_SID = Setting::new("PLATFORM_WORKSPACE_SID", Kind::Text,
        DefaultValue::Unset, "the task-routing workspace");
    /// `workflowSid`: the task-routing workflow.
    WORKFLOW_SID = Setting::new("workflowSid", Kind::Text, DefaultValue::Unset,
        "the task-routing workflow");
    /// `ENABLE_LOCAL_LOGGING`: the `verbose` record for every invocation.
    ENABLE_LOCAL_LOGGING = Setting::new("ENABLE_LOCAL_LOGGING", Kind::Flag, DefaultValue::Unset,
        "`true` adds the `verbose` record to every invocation");
    /// `DEBUG_MODE`: the `debug` record for every invocation.
    DEBUG_MODE = Setting::new("DEBUG_MODE", Kind::Flag, DefaultValue::Unset,
        "`true` adds the `debug` record to every invocation");
    /// `FUNCTION_NAME`: `function_name` of the `debug` record.
    FUNCTION_NAME = Setting::new("FUNCTION_NAME", Kind::Text,
        DefaultValue::Described("the function's name"), "`function_name` of the `debug` record");
    /// `FUNCTION_VERSION`: `function_version` of the `debug` record.
    FUNCTION_VERSION = Setting::new("FUNCTION_VERSION", Kind::Text,
        DefaultValue::Described("unset (`null`)"), "`function_version` of the `debug` record");
    /// `EXECUTION_ENVIRONMENT`: `execution_environment` of the `debug`
    /// record.
    EXECUTION_ENVIRONMENT = Setting::new("EXECUTION_ENVIRONMENT", Kind::Text,
        DefaultValue::Value("local"), "`execution_environment` of the `debug` record");
}

/// Checks every variable of the catalogue that `source` sets, in the
/// catalogue's order: how a start-up finds a bad client setting before
/// the first call needs it.
///
/// ```
/// use ccfn_core::config::{check, Env};
///
/// assert!(check(&Env::from_vars([("CCFN_MODE", "local")])).is_ok());
/// let error = check(&Env::from_vars([("EMAILPROVIDER_TIMEOUT_MS", "6s")])).unwrap_err();
/// assert_eq!(error.variable(), Some("EMAILPROVIDER_TIMEOUT_MS"));
/// ```
///
/// # Errors
/// The first variable whose value cannot be used.
pub fn check<S: Source + ?Sized>(source: &S) -> Result<(), ConfigError> {
    SETTINGS
        .iter()
        .try_for_each(|setting| setting.check(source))
}

/// The setting named `name`, if ccfn reads it.
#[must_use]
pub fn setting(name: &str) -> Option<&'static Setting> {
    SETTINGS.iter().copied().find(|s| s.name == name)
}

/// The three variables of one client's HTTP settings: its timeout, its
/// connect timeout and its largest response.
#[derive(Debug)]
#[cfg_attr(not(feature = "clients"), allow(dead_code))]
pub(crate) struct HttpVariables {
    /// How long a whole call may take (`*_TIMEOUT_MS`).
    pub(crate) timeout: &'static Setting,
    /// How long connecting may take (`*_CONNECT_TIMEOUT_MS`).
    pub(crate) connect_timeout: &'static Setting,
    /// The largest response read (`*_MAX_RESPONSE_BYTES`).
    pub(crate) max_response_bytes: &'static Setting,
}

/// `CCFN_HTTP_*`: the settings of `context.http()`.
#[cfg_attr(not(feature = "clients"), allow(dead_code))]
pub(crate) static CCFN_HTTP: HttpVariables = HttpVariables {
    timeout: &CCFN_HTTP_TIMEOUT_MS,
    connect_timeout: &CCFN_HTTP_CONNECT_TIMEOUT_MS,
    max_response_bytes: &CCFN_HTTP_MAX_RESPONSE_BYTES,
};

/// `EMAILPROVIDER_*`: the HTTP settings of the email provider's client.
#[cfg_attr(not(feature = "clients"), allow(dead_code))]
pub(crate) static EMAILPROVIDER_HTTP: HttpVariables = HttpVariables {
    timeout: &EMAILPROVIDER_TIMEOUT_MS,
    connect_timeout: &EMAILPROVIDER_CONNECT_TIMEOUT_MS,
    max_response_bytes: &EMAILPROVIDER_MAX_RESPONSE_BYTES,
};

/// `TASKROUTER_*`: the HTTP settings of the task router's client.
#[cfg_attr(not(feature = "clients"), allow(dead_code))]
pub(crate) static TASKROUTER_HTTP: HttpVariables = HttpVariables {
    timeout: &TASKROUTER_TIMEOUT_MS,
    connect_timeout: &TASKROUTER_CONNECT_TIMEOUT_MS,
    max_response_bytes: &TASKROUTER_MAX_RESPONSE_BYTES,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env::from_vars(vars.iter().copied())
    }

    fn error(setting: &'static Setting, value: &str) -> String {
        let env = env(&[(setting.name(), value)]);
        setting.check(&env).unwrap_err().to_string()
    }

    #[test]
    fn whole_numbers_have_a_lower_bound() {
        let e = env(&[("CCFN_HTTP_TIMEOUT_MS", " 2500 "), ("CCFN_MAX_PARAMS", "0")]);
        assert_eq!(
            CCFN_HTTP_TIMEOUT_MS.millis(&e).unwrap(),
            Some(Duration::from_millis(2500))
        );
        assert_eq!(CCFN_MAX_PARAMS.count(&e).unwrap(), Some(0));
        assert_eq!(
            error(&CCFN_HTTP_TIMEOUT_MS, "abc"),
            "CCFN_HTTP_TIMEOUT_MS=\"abc\": expected a whole number of milliseconds, at least 1"
        );
        assert_eq!(
            error(&CCFN_HTTP_TIMEOUT_MS, "0"),
            "CCFN_HTTP_TIMEOUT_MS=\"0\": expected a whole number of milliseconds, at least 1"
        );
        assert_eq!(
            error(&CCFN_MAX_PARAMS, "-1"),
            "CCFN_MAX_PARAMS=\"-1\": expected a whole number of parameters"
        );
        assert_eq!(
            error(&CCFN_ALERT_ERROR_WINDOW_S, "0"),
            "CCFN_ALERT_ERROR_WINDOW_S=\"0\": expected a whole number of seconds, at least 1"
        );
        assert_eq!(
            CCFN_ALERT_ERROR_WINDOW_S
                .seconds(&env(&[("CCFN_ALERT_ERROR_WINDOW_S", "60")]))
                .unwrap(),
            Some(Duration::from_secs(60))
        );
    }

    #[test]
    fn ratios_are_from_0_to_1() {
        let e = env(&[("CCFN_ALERT_MEMORY_RATIO", "0.9")]);
        assert_eq!(CCFN_ALERT_MEMORY_RATIO.ratio(&e).unwrap(), Some(0.9));
        for bad in ["1.5", "-0.1", "NaN", "80%"] {
            assert_eq!(
                error(&CCFN_ALERT_MEMORY_RATIO, bad),
                format!(
                    "CCFN_ALERT_MEMORY_RATIO=\"{bad}\": expected a number from 0 to 1, such as 0.8"
                )
            );
        }
    }

    #[test]
    fn choices_ignore_case_and_list_the_words() {
        let e = env(&[("CCFN_MODE", "Production")]);
        assert_eq!(CCFN_MODE.choice(&e).unwrap(), Some("production"));
        assert_eq!(
            error(&CCFN_LOG_FORMAT, "xml"),
            "CCFN_LOG_FORMAT=\"xml\": expected `pretty` or `json`"
        );
        assert_eq!(Kind::Choice(&["a", "b", "c"]).accepted(), "`a`, `b` or `c`");
        assert_eq!(Kind::Choice(&["a"]).accepted(), "`a`");
    }

    #[test]
    fn urls_need_a_scheme_and_a_host() {
        let with_password = env(&[(
            "CCFN_PUBLIC_URL",
            "https://ops:canary-public-url-pw-3e@cc.example.com/",
        )]);
        assert!(CCFN_PUBLIC_URL.url(&with_password).unwrap().is_some());
        assert_eq!(
            crate::record::scrub_secrets("pw canary-public-url-pw-3e"),
            "pw [REDACTED]",
            "a URL's password is a secret once read"
        );
        let e = env(&[("CCFN_PUBLIC_URL", "https://cc.example.com/")]);
        assert_eq!(
            CCFN_PUBLIC_URL.url(&e).unwrap().as_deref(),
            Some("https://cc.example.com")
        );
        for bad in [
            "cc.example.com",
            "ftp://x",
            "https://",
            "https:///x",
            "http://a b",
        ] {
            assert_eq!(
                error(&CCFN_PUBLIC_URL, bad),
                format!("CCFN_PUBLIC_URL={bad:?}: expected an http:// or https:// URL such as https://example.com")
            );
        }
        assert_eq!(
            error(&TASKROUTER_BASE_URL, "ftp://user:canary-url-1@host/v1"),
            "TASKROUTER_BASE_URL=\"ftp://[REDACTED]@host/v1\": expected an http:// or https:// URL such as https://example.com"
        );
        // A token in the query: the message shows URLs as ccfn does.
        assert_eq!(
            error(&TASKROUTER_BASE_URL, "ftp://host/v1?token=canary-url-2&page=1"),
            "TASKROUTER_BASE_URL=\"ftp://host/v1?token=[REDACTED]&page=1\": expected an http:// or https:// URL such as https://example.com"
        );
    }

    #[test]
    fn a_url_s_sensitive_query_value_is_a_secret_once_read() {
        let e = env(&[(
            "EMAILPROVIDER_BASE_URL",
            "https://api.example.com/v3?token=canary-query-token-7f&page=canary-not-a-secret-9&api%5Fkey=canary%2Fkey+8c",
        )]);
        assert!(EMAILPROVIDER_BASE_URL.url(&e).unwrap().is_some());
        // Anywhere in a line, not only inside its URL; percent-decoded too.
        assert_eq!(
            crate::record::scrub_secrets(
                "echo canary-query-token-7f, canary/key 8c, canary%2Fkey+8c, canary-not-a-secret-9"
            ),
            "echo [REDACTED], [REDACTED], [REDACTED], canary-not-a-secret-9"
        );
    }

    #[test]
    fn addresses_are_ip_and_port() {
        let e = env(&[("CCFN_ADDR", "[::]:8080")]);
        assert_eq!(
            CCFN_ADDR.addr(&e).unwrap(),
            Some("[::]:8080".parse().unwrap())
        );
        assert_eq!(
            error(&CCFN_ADDR, "localhost:3001"),
            "CCFN_ADDR=\"localhost:3001\": expected an IP address and port such as 127.0.0.1:3001"
        );
    }

    #[test]
    fn flags_and_text() {
        let e = env(&[
            ("DEBUG_MODE", " true "),
            ("ENABLE_LOCAL_LOGGING", "TRUE"),
            ("DOMAIN_NAME", "  "),
        ]);
        assert!(DEBUG_MODE.flag(&e));
        assert!(!ENABLE_LOCAL_LOGGING.flag(&e), "only the string `true`");
        assert_eq!(DOMAIN_NAME.text(&e), None, "blank is unset");
        assert_eq!(ACCOUNT_SID.text(&e), None);
    }

    #[test]
    fn a_bad_value_is_cut_and_its_control_characters_escaped() {
        let long = format!("{}\n\u{1b}[31m\"x\\", "9".repeat(70));
        let message = error(&CCFN_BODY_LIMIT_BYTES, &long);
        assert_eq!(
            message,
            format!(
                "CCFN_BODY_LIMIT_BYTES=\"{}\"…: expected a whole number of bytes",
                "9".repeat(64)
            )
        );
        let message = error(&CCFN_BODY_LIMIT_BYTES, "1\n\u{1b}[31m\"x\\");
        assert_eq!(
            message,
            "CCFN_BODY_LIMIT_BYTES=\"1\\u{a}\\u{1b}[31m\\\"x\\\\\": expected a whole number of bytes"
        );
        assert!(!message.contains('\n') && !message.contains('\u{1b}'));
    }

    #[test]
    fn a_secret_value_is_never_shown() {
        static SECRET_NUMBER: Setting = Setting::new(
            "CCFN_SECRET_TEST",
            Kind::Whole {
                unit: "bytes",
                min: 0,
            },
            DefaultValue::Unset,
            "a test",
        )
        .secret();
        let message = error(&SECRET_NUMBER, "canary-secret-setting-1");
        assert_eq!(
            message,
            "CCFN_SECRET_TEST (a secret, its value not shown): expected a whole number of bytes"
        );
        let with_detail =
            SECRET_NUMBER.invalid("canary-secret-setting-1", Some("canary-secret-setting-1"));
        assert_eq!(with_detail.to_string(), message);
        let env = env(&[("API_KEY_SECRET", " canary-secret-setting-2 ")]);
        assert_eq!(
            API_KEY_SECRET.secret_value(&env).unwrap().expose(),
            "canary-secret-setting-2"
        );
        assert!(!format!("{env:?}").contains("canary-secret-setting-2"));
    }

    #[test]
    fn a_detail_is_escaped_too() {
        let error = CCFN_LOG.invalid("x=bogus", Some("invalid\nfilter"));
        assert_eq!(
            error.to_string(),
            "CCFN_LOG=\"x=bogus\": invalid\\u{a}filter; expected a level (`info`) or `target=level` pairs separated by commas"
        );
        assert_eq!(error.variable(), Some("CCFN_LOG"));
        assert!(error.accepted().is_some());
    }

    #[test]
    fn the_catalogue_is_consistent() {
        let mut names: Vec<&str> = SETTINGS.iter().map(|s| s.name()).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a setting is listed twice");
        for setting in SETTINGS {
            // `CCFN_SECRETS` holds names, not a secret; the OTLP headers
            // carry a collector's API key under a name that says nothing.
            let secret_by_nature = setting.name().starts_with("OTEL_EXPORTER_OTLP_")
                && setting.name().ends_with("HEADERS");
            assert_eq!(
                setting.is_secret(),
                (is_sensitive_name(setting.name()) && setting.name() != "CCFN_SECRETS")
                    || secret_by_nature,
                "{}: a setting is a secret exactly when its name is sensitive (or it is known to hold one)",
                setting.name()
            );
            assert!(!setting.about().is_empty(), "{}", setting.name());
            assert!(std::ptr::eq(
                super::setting(setting.name()).unwrap(),
                *setting
            ));
            // Every documented value parses as its kind.
            if let DefaultValue::Value(value) = setting.default_value() {
                let env = env(&[(setting.name(), value)]);
                let parsed = setting.check(&env).map(|()| true);
                assert_eq!(parsed, Ok(true), "{}", setting.name());
            }
        }
        assert!(super::setting("PATH").is_none());
        assert_eq!(check(&Env::default()), Ok(()));
        let bad = env(&[("CCFN_LOG", "x=bogus"), ("TASKROUTER_TIMEOUT_MS", "0")]);
        assert_eq!(check(&bad).unwrap_err().variable(), Some("CCFN_LOG"));
    }

    #[test]
    fn the_environment_wins_over_the_dotenv_file() {
        let dir = std::env::temp_dir().join(format!("ccfn-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("test.env");
        // PATH is set in the environment of every test run.
        std::fs::write(&file, "PATH=from-dotenv\nCCFN_CONFIG_TEST_ONLY=1\n").unwrap();
        let env = Env::load_over(&file).unwrap();
        assert_eq!(env.var("CCFN_CONFIG_TEST_ONLY"), Some("1"));
        assert_ne!(env.var("PATH"), Some("from-dotenv"));
        let missing = Env::load_over(&dir.join("none.env")).unwrap();
        assert_eq!(missing.var("CCFN_CONFIG_TEST_ONLY"), None);

        std::fs::write(&file, "GOOD=1\nAPI_KEY='canary-dotenv-config\n").unwrap();
        let error = Env::load_over(&file).unwrap_err();
        assert!(
            error.message().starts_with(&file.display().to_string()),
            "{error}"
        );
        assert!(
            error.message().contains("cannot parse it at byte"),
            "{error}"
        );
        assert!(!error.message().contains("canary-dotenv-config"), "{error}");
        assert_eq!(error.variable(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
