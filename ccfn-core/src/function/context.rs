//! The function context: configuration values, secrets and limits.

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::config::{self, ConfigError, Env, Source};
use crate::error::{Error, ErrorKind};
use crate::function::declared::{self, Problem};
use crate::function::meta::FunctionMeta;
use crate::secret::{is_sensitive_name, Secret};

/// The thresholds that raise an `alert` record (spec, "Limits").
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Thresholds {
    /// Function execution time (default 10 s).
    pub execution: Duration,
    /// Share of the memory limit in use (default 0.8).
    pub memory_ratio: f64,
    /// External API response time (default 5 s).
    pub api_response: Duration,
    /// Share of failed invocations in the window (default 0.05).
    pub error_rate: f64,
    /// The sliding window of the error rate (default 10 minutes).
    pub error_window: Duration,
    /// Response body size (default 64 kB, the call-flow designer's limit).
    pub response_bytes: usize,
    /// Invocations the error-rate window must hold before it can alert
    /// (default 10): one early failure (1 of 1) is not an incident, and
    /// 3 failures in 10 invocations (30 %) are.
    pub error_min_invocations: u64,
}

impl Thresholds {
    /// The defaults, changed by `CCFN_ALERT_EXECUTION_MS`,
    /// `CCFN_ALERT_MEMORY_RATIO`, `CCFN_ALERT_API_RESPONSE_MS`,
    /// `CCFN_ALERT_ERROR_RATE`, `CCFN_ALERT_ERROR_WINDOW_S`,
    /// `CCFN_ALERT_ERROR_MIN_INVOCATIONS` and `CCFN_ALERT_RESPONSE_BYTES`
    /// when set in the process environment or the `.env` file (see
    /// [`Env::load`]).
    ///
    /// # Errors
    /// The `.env` file cannot be read, or a variable is set to something
    /// that is not a number of its kind (kind `Configuration`); the error
    /// names it, quotes the value and says what it accepts.
    pub fn from_env() -> Result<Self, Error> {
        Ok(Self::from_source(&Env::load()?)?)
    }

    /// The defaults, changed by the variables `source` has.
    ///
    /// ```
    /// use std::time::Duration;
    /// use ccfn_core::config::Env;
    /// use ccfn_core::context::Thresholds;
    ///
    /// let env = Env::from_vars([("CCFN_ALERT_EXECUTION_MS", "8000")]);
    /// assert_eq!(Thresholds::from_source(&env).unwrap().execution, Duration::from_secs(8));
    ///
    /// let env = Env::from_vars([("CCFN_ALERT_MEMORY_RATIO", "80%")]);
    /// assert_eq!(
    ///     Thresholds::from_source(&env).unwrap_err().to_string(),
    ///     "CCFN_ALERT_MEMORY_RATIO=\"80%\": expected a number from 0 to 1, such as 0.8"
    /// );
    /// ```
    ///
    /// # Errors
    /// A variable is set to something that is not a number of its kind.
    pub fn from_source<S: Source + ?Sized>(source: &S) -> Result<Self, ConfigError> {
        let mut thresholds = Thresholds::default();
        if let Some(execution) = config::CCFN_ALERT_EXECUTION_MS.millis(source)? {
            thresholds.execution = execution;
        }
        if let Some(ratio) = config::CCFN_ALERT_MEMORY_RATIO.ratio(source)? {
            thresholds.memory_ratio = ratio;
        }
        if let Some(api_response) = config::CCFN_ALERT_API_RESPONSE_MS.millis(source)? {
            thresholds.api_response = api_response;
        }
        if let Some(rate) = config::CCFN_ALERT_ERROR_RATE.ratio(source)? {
            thresholds.error_rate = rate;
        }
        if let Some(window) = config::CCFN_ALERT_ERROR_WINDOW_S.seconds(source)? {
            thresholds.error_window = window;
        }
        if let Some(bytes) = config::CCFN_ALERT_RESPONSE_BYTES.count(source)? {
            thresholds.response_bytes = bytes;
        }
        if let Some(count) = config::CCFN_ALERT_ERROR_MIN_INVOCATIONS.whole(source)? {
            thresholds.error_min_invocations = count;
        }
        Ok(thresholds)
    }
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            execution: Duration::from_secs(10),
            memory_ratio: 0.8,
            api_response: Duration::from_secs(5),
            error_rate: 0.05,
            error_window: Duration::from_secs(600),
            response_bytes: 64 * 1024,
            error_min_invocations: 10,
        }
    }
}

/// Variables every shell sets whose names look sensitive and are not:
/// the working directory (`pwd` is also short for password). A process
/// started from a shell has them; as secrets they would blank out every
/// log line that names a path under that directory.
const SHELL_VARIABLES: [&str; 2] = ["PWD", "OLDPWD"];

/// A value, as [`Context::get`] and [`Context::secret`] see it.
#[derive(Clone)]
enum Value {
    /// Readable, and shown in logs.
    Plain(String),
    /// Readable, but its name looks sensitive
    /// ([`crate::record::is_sensitive_name`]): kept out of every log line,
    /// and readable as a [`Secret`] too.
    Sensitive(Secret),
    /// Declared secret: only [`Context::secret`] gives it.
    Secret(Secret),
}

impl Value {
    /// `value` under `name`, not declared secret.
    fn undeclared(name: &str, value: String) -> Value {
        if config::setting(name).is_some_and(config::Setting::is_secret) {
            Value::Secret(Secret::new(value))
        } else if is_sensitive_name(name) && !SHELL_VARIABLES.contains(&name) {
            Value::Sensitive(Secret::new(value))
        } else {
            Value::Plain(value)
        }
    }

    /// The same value, declared secret.
    fn declared_secret(self) -> Value {
        match self {
            Value::Plain(value) => Value::Secret(Secret::new(value)),
            Value::Sensitive(secret) | Value::Secret(secret) => Value::Secret(secret),
        }
    }
}

struct Inner {
    values: BTreeMap<String, Value>,
    thresholds: Thresholds,
    memory_limit: Option<u64>,
    extensions: Extensions,
    /// `ENABLE_LOCAL_LOGGING` and `DEBUG_MODE`, read once: the contract
    /// asks on every invocation.
    local_logging: bool,
    debug_mode: bool,
    /// `CCFN_DEBUG_BUFFER_BYTES`, read once.
    debug_buffer_bytes: u64,
    /// The functions (by the address of their header) whose required
    /// values were all found present: the values never change, so they
    /// are not looked up again on each invocation.
    complete_for: std::sync::Mutex<Vec<usize>>,
    /// `DOMAIN_NAME` as records show it ([`shown_domain`]), made once: the
    /// `start` record of every invocation carries it.
    shown_domain: Option<Box<str>>,
    /// `PLATFORM_WORKSPACE_SID` and `workflowSid`, read once when set as
    /// plain values: the `taskrouter_config` record of every voice
    /// invocation carries both.
    workspace_sid: Option<Box<str>>,
    workflow_sid: Option<Box<str>>,
    /// Declared secrets that may be left unset: a runtime in local mode
    /// starts and invokes without them, as if they were not configured
    /// (see [`Context::with_unset_secrets`]). Empty elsewhere.
    unset_secrets: Vec<Box<str>>,
}

impl Inner {
    fn new(
        values: BTreeMap<String, Value>,
        thresholds: Thresholds,
        memory_limit: Option<u64>,
    ) -> Inner {
        let values = Values(values);
        let plain = |name: &str| match values.0.get(name) {
            Some(Value::Plain(_)) => values.var(name),
            _ => None,
        };
        let workspace_sid = plain(config::PLATFORM_WORKSPACE_SID.name())
            .and_then(|_| config::PLATFORM_WORKSPACE_SID.text(&values))
            .map(Box::from);
        let workflow_sid = plain("workflowSid").map(Box::from);
        Inner {
            workspace_sid,
            workflow_sid,
            local_logging: config::ENABLE_LOCAL_LOGGING.flag(&values),
            debug_mode: config::DEBUG_MODE.flag(&values),
            shown_domain: config::DOMAIN_NAME.text(&values).map(shown_domain),
            // Checked by `Context::from_source`; a builder's bad value is
            // no buffer.
            debug_buffer_bytes: config::CCFN_DEBUG_BUFFER_BYTES
                .whole(&values)
                .ok()
                .flatten()
                .unwrap_or(0),
            values: values.0,
            thresholds,
            memory_limit,
            extensions: Extensions::default(),
            complete_for: Mutex::default(),
            unset_secrets: Vec::new(),
        }
    }

    /// A new one of `values`, with `self`'s thresholds, memory limit and
    /// the secrets it lets go unset.
    fn with_values(&self, values: BTreeMap<String, Value>) -> Inner {
        Inner {
            unset_secrets: self.unset_secrets.clone(),
            ..Inner::new(values, self.thresholds, self.memory_limit)
        }
    }
}

/// `DOMAIN_NAME` as records show it: a host (and maybe a path) without a
/// scheme, so shown as the URL it stands for would be
/// ([`crate::secret::display_url`]): `ops:pw@host` as `[REDACTED]@host`.
fn shown_domain(domain: &str) -> Box<str> {
    const SCHEME: &str = "https://";
    let url = format!("{SCHEME}{domain}");
    match crate::secret::display_url(&url) {
        std::borrow::Cow::Borrowed(_) => Box::from(domain),
        std::borrow::Cow::Owned(shown) => Box::from(&shown[SCHEME.len()..]),
    }
}

/// A context's values, as a source of settings.
struct Values(BTreeMap<String, Value>);

impl Source for Values {
    fn var(&self, name: &str) -> Option<&str> {
        var(&self.0, name)
    }
}

/// The value of `name` among `values`, secret or not.
fn var<'a>(values: &'a BTreeMap<String, Value>, name: &str) -> Option<&'a str> {
    match values.get(name)? {
        Value::Plain(value) => Some(value),
        Value::Sensitive(secret) | Value::Secret(secret) => Some(secret.expose()),
    }
}

/// A part made from a context's values once, on first use, and kept with
/// the context: how the clients are reached from it (`context.http()` is
/// `context.extension::<HttpClient>()`), without the context naming them.
///
/// ```
/// use ccfn_core::{Context, Error};
/// use ccfn_core::context::Extension;
///
/// struct Greeting(String);
///
/// impl Extension for Greeting {
///     fn from_context(context: &Context) -> Result<Self, Error> {
///         Ok(Greeting(format!("Hello from {}", context.get("TEAM").unwrap_or("us"))))
///     }
/// }
///
/// let context = Context::builder().value("TEAM", "support").build();
/// assert_eq!(context.extension::<Greeting>().unwrap().0, "Hello from support");
/// ```
pub trait Extension: Send + Sync + Sized + 'static {
    /// Makes the part from the context's values.
    ///
    /// # Errors
    /// The values are incomplete or invalid; the error says which (it is
    /// kept, and reported again as a configuration error on every use).
    fn from_context(context: &Context) -> Result<Self, Error>;
}

/// The parts made from a context, by type: each a `Result<Arc<T>, String>`.
#[derive(Default)]
struct Extensions(Mutex<Vec<(TypeId, Arc<dyn Any + Send + Sync>)>>);

impl Extensions {
    fn get<T: Extension>(&self) -> Option<Result<Arc<T>, String>> {
        let parts = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let (_, part) = parts.iter().find(|(id, _)| *id == TypeId::of::<T>())?;
        part.downcast_ref::<Result<Arc<T>, String>>().cloned()
    }

    /// Keeps `made` unless another thread kept one first; returns the kept.
    fn keep<T: Extension>(&self, made: Result<Arc<T>, String>) -> Result<Arc<T>, String> {
        let mut parts = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, part)) = parts.iter().find(|(id, _)| *id == TypeId::of::<T>())
            && let Some(kept) = part.downcast_ref::<Result<Arc<T>, String>>()
        {
            return kept.clone();
        }
        parts.push((TypeId::of::<T>(), Arc::new(made.clone())));
        made
    }
}

/// What a function knows of its deployment: configuration values (the
/// spec's context values and the environment), secrets, thresholds and the
/// memory limit. Cheap to clone.
///
/// # Secrets
///
/// A value is a **declared secret** when it is named in a function's
/// `secrets = [..]`, in `CCFN_SECRETS`, set with [`ContextBuilder::secret`],
/// or is one of ccfn's own secret settings (`AUTH_TOKEN`,
/// `EMAILPROVIDER_API_KEY`, `API_KEY_SID`, `API_KEY_SECRET`). A declared
/// secret is read with [`Context::secret`] only: in a `#[contact_fn]`
/// handler, `context.get("NAME")` for a name in its `secrets = [..]` does
/// not compile, and a read the macro cannot see gives `None`. A value whose name merely looks sensitive (see
/// [`crate::record::is_sensitive_name`]: `CRM_TOKEN_EXPIRES_AT` contains
/// "token") stays readable with `get`; like every secret, its value never
/// reaches a log line.
///
/// Inside an invocation, a read past what the function declares writes a
/// `declaration` warning once, with the fix: an undeclared name (a typo is
/// always `None`), a name that looks sensitive, a declared secret read
/// with `get`.
///
/// ```
/// use ccfn_core::Context;
///
/// let context = Context::builder()
///     .value("DOMAIN_NAME", "localhost:3001")
///     .value("EMAILPROVIDER_API_KEY", "key-canary")
///     .value("CRM_TOKEN_EXPIRES_AT", "2026-12-01T00:00:00Z")
///     .secret("CRM_PASSPHRASE_TWO", "canary-crm-pass")
///     .build();
/// assert_eq!(context.domain_name(), Some("localhost:3001"));
/// assert_eq!(context.get("EMAILPROVIDER_API_KEY"), None);
/// assert_eq!(context.secret("EMAILPROVIDER_API_KEY").unwrap().expose(), "key-canary");
/// assert_eq!(context.get("CRM_TOKEN_EXPIRES_AT"), Some("2026-12-01T00:00:00Z"));
/// assert_eq!(context.get("CRM_PASSPHRASE_TWO"), None);
/// assert!(!format!("{context:?}").contains("key-canary"));
/// ```
#[derive(Clone)]
pub struct Context {
    inner: Arc<Inner>,
    /// The function being invoked, whose declarations reads are checked
    /// against.
    function: Option<&'static FunctionMeta>,
    /// How often a read past the declarations is warned about.
    declarations: declared::Scope,
}

impl Context {
    /// A builder for a context.
    pub fn builder() -> ContextBuilder {
        ContextBuilder::default()
    }

    /// The process environment, over the values of a `.env` file in the
    /// current directory when there is one (the environment wins; see
    /// [`Env::load`]), with the thresholds of [`Thresholds::from_source`]
    /// and the memory limit of `CCFN_MEMORY_LIMIT_BYTES`, else of the
    /// process's control group (v2 `memory.max`, v1
    /// `memory.limit_in_bytes`), when it has one.
    ///
    /// # Errors
    /// A `.env` file that exists but cannot be read or parsed, or a
    /// threshold variable that is not a number (kind `Configuration`).
    pub fn from_env() -> Result<Self, Error> {
        Ok(Self::from_source(&Env::load()?)?)
    }

    /// A context of every value of `env`, with the thresholds and the
    /// memory limit it sets.
    ///
    /// # Errors
    /// A threshold variable or `CCFN_MEMORY_LIMIT_BYTES` is not a number of
    /// its kind.
    pub fn from_source(env: &Env) -> Result<Self, ConfigError> {
        let mut builder = Context::builder();
        for (name, value) in env.iter() {
            builder = builder.value(name, value);
        }
        for name in config::CCFN_SECRETS.names(env) {
            if let Some(value) = builder.values.remove(name) {
                builder
                    .values
                    .insert(name.to_owned(), value.declared_secret());
            }
        }
        config::CCFN_DEBUG_BUFFER_BYTES.whole(env)?;
        let memory_limit = match config::CCFN_MEMORY_LIMIT_BYTES.whole(env)? {
            Some(bytes) => Some(bytes),
            None => crate::function::metrics::memory_limit_bytes(),
        };
        Ok(builder
            .thresholds(Thresholds::from_source(env)?)
            .memory_limit(memory_limit)
            .build())
    }

    /// A value that is not a declared secret (see [Secrets](#secrets)).
    /// Inside an invocation, a name the function does not declare (in
    /// `env = [..]`, `secrets = [..]` or among ccfn's settings) writes a
    /// `declaration` warning once.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&str> {
        if let Some(meta) = self.function {
            let problem = match self.inner.values.get(name) {
                Some(Value::Secret(_)) => Some(Problem::Secret),
                _ if meta.declares_value(name) => None,
                Some(Value::Sensitive(_)) => Some(Problem::LooksSensitive),
                _ => Some(Problem::Undeclared),
            };
            if let Some(problem) = problem {
                // The nearest of the declared names and of the values the
                // context has, for a misspelt one.
                let near = meta
                    .env()
                    .iter()
                    .chain(meta.secrets())
                    .copied()
                    .chain(
                        meta.optional_env()
                            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')),
                    )
                    .chain(self.inner.values.keys().map(String::as_str));
                declared::warn(
                    meta,
                    &self.declarations,
                    declared::Source::Context,
                    name,
                    problem,
                    near,
                );
            }
        }
        self.plain(name)
    }

    /// A value that is not a declared secret, unchecked: for ccfn's own
    /// reads.
    pub(crate) fn plain(&self, name: &str) -> Option<&str> {
        match self.inner.values.get(name)? {
            Value::Plain(value) => Some(value),
            Value::Sensitive(secret) => Some(secret.expose()),
            Value::Secret(_) => None,
        }
    }

    /// A value the function declares in `env = [..]`, which the contract
    /// checked is present before the handler ran: no `Option` to unwrap.
    ///
    /// ```
    /// use ccfn_core::Context;
    ///
    /// let context = Context::builder().value("CRM_URL", "https://crm.example.com").build();
    /// assert_eq!(context.required("CRM_URL"), "https://crm.example.com");
    /// ```
    ///
    /// # Panics
    /// When `name` has no value (or is a declared secret: use
    /// [`Context::required_secret`]): it was not declared in `env = [..]`,
    /// which would have reported it before the handler ran. The message
    /// names it and says so.
    #[must_use]
    #[track_caller]
    pub fn required(&self, name: &str) -> &str {
        match self.get(name) {
            Some(value) => value,
            None if self.secret(name).is_some() => panic!(
                "context.required(\"{name}\"): `{name}` is a secret; read it with \
                 context.required_secret(\"{name}\")"
            ),
            None => panic!(
                "context.required(\"{name}\"): `{name}` has no value; declare it in \
                 `env = [..]` so that the invocation is refused before the handler runs"
            ),
        }
    }

    /// A secret (see [Secrets](#secrets)), or `None`. A value whose name
    /// looks sensitive is a secret here too.
    #[must_use]
    pub fn secret(&self, name: &str) -> Option<&Secret> {
        match self.inner.values.get(name) {
            Some(Value::Secret(secret) | Value::Sensitive(secret)) => Some(secret),
            _ => None,
        }
    }

    /// A secret the function declares in `secrets = [..]`, which the
    /// contract checked is present before the handler ran.
    ///
    /// ```
    /// use ccfn_core::Context;
    ///
    /// let context = Context::builder().secret("CRM_API_KEY", "canary-crm-key").build();
    /// assert_eq!(context.required_secret("CRM_API_KEY").expose(), "canary-crm-key");
    /// ```
    ///
    /// # Panics
    /// When `name` has no value, or is a plain one; the message names it
    /// and says how to declare it.
    #[must_use]
    #[track_caller]
    pub fn required_secret(&self, name: &str) -> &Secret {
        match self.secret(name) {
            Some(secret) => secret,
            None if self.inner.values.contains_key(name) => panic!(
                "context.required_secret(\"{name}\"): `{name}` is not a secret; declare it \
                 in `secrets = [..]` or CCFN_SECRETS"
            ),
            None => panic!(
                "context.required_secret(\"{name}\"): `{name}` has no value; declare it in \
                 `secrets = [..]` so that the invocation is refused before the handler runs"
            ),
        }
    }

    /// The same context, its reads past the declarations warned about
    /// once per invocation rather than once per process: the testkit's.
    pub(crate) fn declarations_per_invocation(&self) -> Context {
        Context {
            declarations: declared::Scope::invocation(),
            ..self.clone()
        }
    }

    /// The same context, reading as `meta`'s function: its declared
    /// secrets held as such, its reads checked against its declarations.
    pub(crate) fn for_function(&self, meta: &'static FunctionMeta) -> Context {
        Context {
            function: Some(meta),
            ..self.with_secrets(meta.secrets())
        }
    }

    /// A copy with the values of `names` declared secret: done once for
    /// every function a runtime serves, so that an invocation need not.
    pub(crate) fn with_secrets(&self, names: &[&str]) -> Context {
        let undeclared = |name: &&str| {
            matches!(
                self.inner.values.get(*name),
                Some(Value::Plain(_) | Value::Sensitive(_))
            )
        };
        if !names.iter().any(undeclared) {
            return self.clone();
        }
        let mut values = self.inner.values.clone();
        for name in names {
            if let Some(value) = values.remove(*name) {
                values.insert((*name).to_owned(), value.declared_secret());
            }
        }
        Context {
            inner: Arc::new(self.inner.with_values(values)),
            function: self.function,
            declarations: self.declarations.clone(),
        }
    }

    /// A copy in which the declared secrets `names`, unset, do not stop an
    /// invocation: the contract's validation passes them over, and the
    /// handler runs without them (`context.secret(..)` is `None`; the
    /// email and task-router clients use the local outbox and task store
    /// without their credentials). What a runtime in local mode does with
    /// the declared secrets it finds unset.
    // Only the runtime lets secrets go unset.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    pub(crate) fn with_unset_secrets<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Context {
        let mut inner = self.inner.with_values(self.inner.values.clone());
        for name in names {
            if !inner.unset_secrets.iter().any(|unset| &**unset == name) {
                inner.unset_secrets.push(name.into());
            }
        }
        Context {
            inner: Arc::new(inner),
            function: self.function,
            declarations: self.declarations.clone(),
        }
    }

    /// Whether the declared secret `name` may be unset (see
    /// [`Context::with_unset_secrets`]).
    pub(crate) fn may_leave_unset(&self, name: &str) -> bool {
        self.inner
            .unset_secrets
            .iter()
            .any(|unset| &**unset == name)
    }

    /// Whether `name` has a value that is not empty or only white space,
    /// plain or secret: the test `env = [..]` validation applies.
    #[must_use]
    pub fn is_present(&self, name: &str) -> bool {
        var(&self.inner.values, name).is_some_and(|value| !value.trim().is_empty())
    }

    /// Whether every value `meta`'s function requires (`env = [..]` and
    /// `secrets = [..]`) is present ([`Context::is_present`]): looked up
    /// once per function, as a context's values do not change.
    pub(crate) fn has_all_required(&self, meta: &'static FunctionMeta) -> bool {
        let address = std::ptr::from_ref(meta) as usize;
        let complete = || {
            self.inner
                .complete_for
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        };
        if complete().contains(&address) {
            return true;
        }
        let present = meta.env().iter().all(|name| self.is_present(name))
            && meta
                .secrets()
                .iter()
                .all(|name| self.is_present(name) || self.may_leave_unset(name));
        if present {
            let mut complete = complete();
            if !complete.contains(&address) {
                complete.push(address);
            }
        }
        present
    }

    /// Every name, plain and secret, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.inner.values.keys().map(String::as_str)
    }

    /// Every secret, by name: the declared ones and those whose name looks
    /// sensitive.
    pub fn secrets(&self) -> impl Iterator<Item = (&str, &Secret)> {
        self.inner
            .values
            .iter()
            .filter_map(|(name, value)| match value {
                Value::Secret(secret) | Value::Sensitive(secret) => Some((name.as_str(), secret)),
                Value::Plain(_) => None,
            })
    }

    /// `DOMAIN_NAME`: the deployment domain (host and port, no scheme).
    #[must_use]
    pub fn domain_name(&self) -> Option<&str> {
        config::DOMAIN_NAME.text(self)
    }

    /// `DOMAIN_NAME` as the `start` and `error` records show it: its user
    /// information, if any, `[REDACTED]`.
    pub(crate) fn shown_domain(&self) -> Option<&str> {
        self.inner.shown_domain.as_deref()
    }

    /// `ACCOUNT_SID`: the account identifier.
    #[must_use]
    pub fn account_sid(&self) -> Option<&str> {
        config::ACCOUNT_SID.text(self)
    }

    /// `PLATFORM_WORKSPACE_SID`: the task-routing workspace.
    #[must_use]
    pub fn workspace_sid(&self) -> Option<&str> {
        match &self.inner.workspace_sid {
            Some(sid) => Some(sid),
            None => config::PLATFORM_WORKSPACE_SID.text(self),
        }
    }

    /// `workflowSid`, as [`Context::plain`] reads it.
    pub(crate) fn workflow_sid(&self) -> Option<&str> {
        match &self.inner.workflow_sid {
            Some(sid) => Some(sid),
            None => self.plain("workflowSid"),
        }
    }

    /// `EMAILPROVIDER_DOMAIN`: the email provider's sending domain.
    #[must_use]
    pub fn email_domain(&self) -> Option<&str> {
        config::EMAILPROVIDER_DOMAIN.text(self)
    }

    /// Whether `ENABLE_LOCAL_LOGGING` is `true`: verbose development logs.
    #[must_use]
    pub fn local_logging(&self) -> bool {
        self.inner.local_logging
    }

    /// Whether `DEBUG_MODE` is `true`: debug-mode logs.
    #[must_use]
    pub fn debug_mode(&self) -> bool {
        self.inner.debug_mode
    }

    /// `CCFN_DEBUG_BUFFER_BYTES`: how many bytes of `debug` lines an
    /// invocation holds back until it fails, unless its function says
    /// (`debug_buffer_bytes = ..`); `0` for none.
    #[must_use]
    pub fn debug_buffer_bytes(&self) -> u64 {
        self.inner.debug_buffer_bytes
    }

    /// Writes the `debug` lines this invocation has held back so far (see
    /// `CCFN_DEBUG_BUFFER_BYTES` and `debug_buffer_bytes = ..`), after a
    /// `debug_buffer` record with `reason` `requested`, as a failure would:
    /// for a reply that is not an error but still deserves the story that
    /// led to it. Nothing is written when nothing is held, or outside an
    /// invocation.
    ///
    /// ```
    /// use ccfn_core::prelude::*;
    ///
    /// /// Looks a caller up in the CRM.
    /// ///
    /// /// # Trigger
    /// /// A webhook.
    /// /// # Dependencies
    /// /// The CRM.
    /// /// # Critical logging
    /// /// None.
    /// /// # Contacts
    /// /// contact-center-oncall@example.com
    /// #[contact_fn(required = [From], kind = generic, debug_buffer_bytes = 16384)]
    /// async fn lookup(context: Context, event: Event, callback: Callback) -> Completion {
    ///     tracing::debug!(caller = event.from(), "looking the caller up");
    ///     let found = false;
    ///     if !found {
    ///         // Not an error, but someone will ask why.
    ///         context.flush_debug_records();
    ///     }
    ///     callback.success(serde_json::json!({ "found": found }))
    /// }
    /// ```
    pub fn flush_debug_records(&self) {
        crate::record::flush_debug_lines("requested");
    }

    /// The alert thresholds.
    #[must_use]
    pub fn thresholds(&self) -> &Thresholds {
        &self.inner.thresholds
    }

    /// The memory limit in bytes, when known.
    #[must_use]
    pub fn memory_limit(&self) -> Option<u64> {
        self.inner.memory_limit
    }

    /// The part `T` made from this context's values: made on first use
    /// (by [`Extension::from_context`]) and shared by every later use.
    ///
    /// # Errors
    /// `T` cannot be made from these values: a configuration error that
    /// says why, the same on every use.
    pub fn extension<T: Extension>(&self) -> Result<Arc<T>, Error> {
        let kept = match self.inner.extensions.get::<T>() {
            Some(kept) => kept,
            None => {
                let made = T::from_context(self)
                    .map(Arc::new)
                    .map_err(|e| e.message().to_owned());
                self.inner.extensions.keep(made)
            }
        };
        kept.map_err(|message| Error::new(ErrorKind::Configuration, message))
    }

    /// A copy with `name` set to `value` when it has no value yet (a
    /// sensitive name makes it a secret).
    #[must_use]
    pub fn with_default(&self, name: &str, value: &str) -> Context {
        if self.inner.values.contains_key(name) {
            return self.clone();
        }
        let mut values = self.inner.values.clone();
        values.insert(name.to_owned(), Value::undeclared(name, value.to_owned()));
        Context {
            inner: Arc::new(self.inner.with_values(values)),
            function: self.function,
            declarations: self.declarations.clone(),
        }
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (name, value) in &self.inner.values {
            match value {
                Value::Plain(value) => map.entry(name, value),
                Value::Sensitive(secret) | Value::Secret(secret) => map.entry(name, secret),
            };
        }
        map.finish()
    }
}

/// The context's values as a source of settings: plain and secret values
/// alike, so that a setting held as a secret (`API_KEY_SID`, say) is read
/// as any other.
impl Source for Context {
    fn var(&self, name: &str) -> Option<&str> {
        var(&self.inner.values, name)
    }
}

/// Builds a [`Context`].
#[derive(Default)]
#[must_use = "call .build() to make the context"]
pub struct ContextBuilder {
    values: BTreeMap<String, Value>,
    thresholds: Thresholds,
    memory_limit: Option<u64>,
}

impl fmt::Debug for ContextBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContextBuilder").finish_non_exhaustive()
    }
}

impl ContextBuilder {
    /// Sets a value. One of ccfn's secret settings (`AUTH_TOKEN`, say)
    /// becomes a declared secret; another name that looks sensitive stays
    /// readable, its value kept out of the logs (see [Secrets](Context#secrets)).
    pub fn value(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let name = name.into();
        let value = Value::undeclared(&name, value.into());
        self.values.insert(name, value);
        self
    }

    /// Sets a declared secret, whatever its name.
    pub fn secret(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.values
            .insert(name.into(), Value::Secret(Secret::new(value)));
        self
    }

    /// Adds the values of a `.env` file (`NAME=value` lines, `#` comments,
    /// quotes as in shells).
    ///
    /// # Errors
    /// The file cannot be read, or a line cannot be parsed; the error names
    /// the file and the line but never a value.
    pub fn dotenv(mut self, path: &Path) -> Result<Self, Error> {
        for (name, value) in config::read_dotenv(path)? {
            self = self.value(name, value);
        }
        Ok(self)
    }

    /// Replaces the alert thresholds.
    pub fn thresholds(mut self, thresholds: Thresholds) -> Self {
        self.thresholds = thresholds;
        self
    }

    /// Sets the memory limit in bytes (`None`: unknown, no memory alert).
    pub fn memory_limit(mut self, bytes: Option<u64>) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// Makes the context.
    pub fn build(self) -> Context {
        Context {
            inner: Arc::new(Inner::new(self.values, self.thresholds, self.memory_limit)),
            function: None,
            declarations: declared::Scope::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The task router's settings read once are those read each time:
    /// plain, blank, secret or absent.
    #[test]
    fn the_task_router_settings_read_once_are_the_settings() {
        for (workspace, workflow) in [
            (Some(" WS1 "), Some("WW1")),
            (Some("  "), None),
            (None, Some("")),
        ] {
            let mut builder = Context::builder();
            if let Some(workspace) = workspace {
                builder = builder.value("PLATFORM_WORKSPACE_SID", workspace);
            }
            if let Some(workflow) = workflow {
                builder = builder.value("workflowSid", workflow);
            }
            let context = builder.build();
            assert_eq!(
                context.workspace_sid(),
                config::PLATFORM_WORKSPACE_SID.text(&context)
            );
            assert_eq!(context.workflow_sid(), context.plain("workflowSid"));
        }
        let secret = Context::builder()
            .secret("PLATFORM_WORKSPACE_SID", "WS2")
            .secret("workflowSid", "WW2")
            .build();
        assert_eq!(secret.workspace_sid(), Some("WS2"));
        assert_eq!(secret.workflow_sid(), None);
        assert!(secret.inner.workspace_sid.is_none() && secret.inner.workflow_sid.is_none());
    }

    #[test]
    fn sensitive_values_become_secrets() {
        let context = Context::builder()
            .value("AUTH_TOKEN", "canary-context-1")
            .value("DOMAIN_NAME", "example.com")
            .secret("workflowSid", "WW1")
            .build();
        assert_eq!(context.get("AUTH_TOKEN"), None);
        assert!(context.is_present("AUTH_TOKEN"));
        assert_eq!(context.secret("workflowSid").unwrap().expose(), "WW1");
        assert_eq!(context.secrets().count(), 2);
        assert_eq!(
            context.keys().collect::<Vec<_>>(),
            ["AUTH_TOKEN", "DOMAIN_NAME", "workflowSid"]
        );
        let debug = format!("{context:?}");
        assert!(!debug.contains("canary-context-1"), "{debug}");
        assert!(debug.contains("example.com"));
    }

    #[test]
    fn the_shell_s_working_directory_is_not_a_secret() {
        let context = Context::builder()
            .value("PWD", "/srv/contact-center")
            .value("OLDPWD", "/srv")
            .value("DB_PWD", "canary-context-pwd")
            .build();
        assert_eq!(context.get("PWD"), Some("/srv/contact-center"));
        assert_eq!(context.get("OLDPWD"), Some("/srv"));
        // Another name with `pwd` in it is still kept out of the logs.
        let secrets: Vec<&str> = context.secrets().map(|(name, _)| name).collect();
        assert_eq!(secrets, ["DB_PWD"]);
    }

    /// Found complete once, a function's required values are not looked
    /// up again; a context missing one is never taken for complete.
    #[test]
    fn required_values_are_looked_up_until_found_complete() {
        use crate::function::meta::{meta, test_fields, MetaFields};
        static META: FunctionMeta = meta(MetaFields {
            env: &["CRM_URL"],
            secrets: &["CRM_API_KEY"],
            ..test_fields("f")
        });
        let missing = Context::builder().value("CRM_URL", "https://crm").build();
        assert!(!missing.has_all_required(&META));
        assert!(!missing.has_all_required(&META));
        let blank = missing.with_default("CRM_API_KEY", " ");
        assert!(!blank.has_all_required(&META));
        let complete = missing.with_default("CRM_API_KEY", "key-1");
        assert!(complete.has_all_required(&META));
        assert!(complete.has_all_required(&META));
        assert_eq!(complete.inner.complete_for.lock().unwrap().len(), 1);
        assert!(!missing.has_all_required(&META));
    }

    #[test]
    fn a_secret_let_go_unset_is_not_required_and_stays_unset_through_copies() {
        use crate::function::meta::{meta, test_fields, MetaFields};
        static META: FunctionMeta = meta(MetaFields {
            env: &["CRM_URL"],
            secrets: &["CRM_API_KEY"],
            ..test_fields("f")
        });
        let missing = Context::builder().value("CRM_URL", "https://crm").build();
        assert!(!missing.may_leave_unset("CRM_API_KEY"));
        let local = missing.with_unset_secrets(["CRM_API_KEY"]);
        assert!(local.has_all_required(&META));
        assert_eq!(local.secret("CRM_API_KEY"), None);
        // Only secrets are let go: a missing `env` value still is one.
        let no_url = Context::builder()
            .build()
            .with_unset_secrets(["CRM_API_KEY", "CRM_URL"]);
        static ENV_ONLY: FunctionMeta = meta(MetaFields {
            env: &["CRM_URL"],
            ..test_fields("g")
        });
        assert!(!no_url.has_all_required(&ENV_ONLY));
        // Kept by the copies a runtime makes.
        let copy = local
            .with_default("DOMAIN_NAME", "localhost")
            .with_secrets(&["CRM_URL"])
            .for_function(&META);
        assert!(copy.may_leave_unset("CRM_API_KEY"));
        assert!(copy.has_all_required(&META));
        assert!(
            !missing.has_all_required(&META),
            "the original is unchanged"
        );
    }

    #[test]
    fn flags_and_accessors() {
        let context = Context::builder()
            .value("ENABLE_LOCAL_LOGGING", "true")
            .value("DEBUG_MODE", "TRUE")
            .value("PLATFORM_WORKSPACE_SID", "WS1")
            .value("EMAILPROVIDER_DOMAIN", "mg.example.com")
            .value("ACCOUNT_SID", "AC1")
            .value("BLANK", " ")
            .memory_limit(Some(1024))
            .build();
        assert!(context.local_logging());
        assert!(!context.debug_mode(), "only the string `true` turns it on");
        assert_eq!(context.workspace_sid(), Some("WS1"));
        assert_eq!(context.email_domain(), Some("mg.example.com"));
        assert_eq!(context.account_sid(), Some("AC1"));
        assert!(!context.is_present("BLANK"));
        assert_eq!(context.memory_limit(), Some(1024));
        assert_eq!(context.thresholds().execution, Duration::from_secs(10));
    }

    fn documented_defaults() -> Env {
        Env::from_vars(config::SETTINGS.iter().filter_map(
            |setting| match setting.default_value() {
                config::DefaultValue::Value(value) => Some((setting.name(), value)),
                _ => None,
            },
        ))
    }

    #[test]
    fn the_documented_defaults_are_the_defaults() {
        assert_eq!(
            Thresholds::from_source(&documented_defaults()).unwrap(),
            Thresholds::default()
        );
    }

    #[test]
    fn thresholds_are_read_and_bad_ones_are_configuration_errors() {
        let env = Env::from_vars([
            ("CCFN_ALERT_ERROR_RATE", "0.1"),
            ("CCFN_ALERT_ERROR_WINDOW_S", "60"),
            ("CCFN_ALERT_RESPONSE_BYTES", "1024"),
        ]);
        let thresholds = Thresholds::from_source(&env).unwrap();
        assert!((thresholds.error_rate - 0.1).abs() < f64::EPSILON);
        assert_eq!(thresholds.error_window, Duration::from_secs(60));
        assert_eq!(thresholds.response_bytes, 1024);
        let env = Env::from_vars([("CCFN_ALERT_EXECUTION_MS", "10s")]);
        let error = Error::from(Thresholds::from_source(&env).unwrap_err());
        assert_eq!(error.kind(), ErrorKind::Configuration);
        assert_eq!(
            error.message(),
            "CCFN_ALERT_EXECUTION_MS=\"10s\": expected a whole number of milliseconds"
        );
        let env = Env::from_vars([("CCFN_MEMORY_LIMIT_BYTES", "128MiB")]);
        assert_eq!(
            Context::from_source(&env).unwrap_err().to_string(),
            "CCFN_MEMORY_LIMIT_BYTES=\"128MiB\": expected a whole number of bytes, at least 1"
        );
        let env = Env::from_vars([("CCFN_MEMORY_LIMIT_BYTES", "4096"), ("API_KEY_SID", "SK1")]);
        let context = Context::from_source(&env).unwrap();
        assert_eq!(context.memory_limit(), Some(4096));
        assert_eq!(context.get("API_KEY_SID"), None, "held as a secret");
        assert_eq!(config::API_KEY_SID.text(&context), Some("SK1"));
    }

    #[test]
    fn dotenv_file_is_read_and_errors_name_no_value() {
        let dir = std::env::temp_dir().join(format!("ccfn-dotenv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.env");
        std::fs::write(
            &good,
            "# comment\nDOMAIN_NAME=example.com\nAPI_KEY=\"canary-dotenv-2\"\n",
        )
        .unwrap();
        let context = Context::builder().dotenv(&good).unwrap().build();
        assert_eq!(context.domain_name(), Some("example.com"));
        assert_eq!(
            context.secret("API_KEY").unwrap().expose(),
            "canary-dotenv-2"
        );

        let bad = dir.join("bad.env");
        std::fs::write(&bad, "GOOD=1\nAPI_KEY='canary-dotenv-3\n").unwrap();
        let error = Context::builder().dotenv(&bad).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Configuration);
        assert!(error.message().contains("bad.env"), "{error}");
        assert!(!error.message().contains("canary-dotenv-3"), "{error}");
        let missing = Context::builder()
            .dotenv(&dir.join("none.env"))
            .unwrap_err();
        assert!(missing.message().contains("none.env"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
