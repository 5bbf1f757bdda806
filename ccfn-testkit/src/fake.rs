//! Fake contexts and events with valid defaults.

use std::time::Duration;

use ccfn_core::context::{ContextBuilder, Thresholds};
use ccfn_core::{Context, Event};

use crate::fake_api::FakeApi;
use crate::fake_email::FakeEmailProvider;
use crate::fake_task_router::FakeTaskRouter;

/// The email provider key [`FakeContext::email_provider`] sets: a secret,
/// so a test can check that it never reaches a line.
pub const FAKE_EMAIL_KEY: &str = "fake-email-provider-key-0c7f21";

/// The auth token [`FakeContext::task_router`] sets: a secret, so a test
/// can check that it never reaches a line.
pub const FAKE_AUTH_TOKEN: &str = "fake-account-auth-token-5e93ab";

/// A context for tests: the spec's context values with fake but valid
/// defaults (`DOMAIN_NAME`, `ACCOUNT_SID`, `PLATFORM_WORKSPACE_SID`,
/// `EMAILPROVIDER_DOMAIN`), no secrets, the default thresholds but for the
/// error rate (off: a test's invocations are not traffic, and the window
/// is shared by every test of a process; turn it on with
/// [`FakeContext::error_rate_alert`]) and a 256 MiB memory limit.
///
/// ```
/// use ccfn_testkit::FakeContext;
///
/// let context = FakeContext::new().value("workflowSid", "WW123").build();
/// assert_eq!(context.domain_name(), Some("localhost:3001"));
/// assert_eq!(context.get("workflowSid"), Some("WW123"));
/// ```
#[derive(Clone)]
#[must_use = "pass it to `invoke`, or call `.build()`"]
pub struct FakeContext {
    values: Vec<(String, String, bool)>,
    thresholds: Thresholds,
    memory_limit: Option<u64>,
}

/// Prints the values, secrets as `[REDACTED]`.
impl std::fmt::Debug for FakeContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut map = f.debug_map();
        for (name, value, secret) in &self.values {
            if *secret || ccfn_core::record::is_sensitive_name(name) {
                map.entry(name, &ccfn_core::record::REDACTED);
            } else {
                map.entry(name, value);
            }
        }
        map.finish()
    }
}

/// The defaults of [`FakeContext::new`].
pub const DEFAULT_CONTEXT: [(&str, &str); 4] = [
    ("DOMAIN_NAME", "localhost:3001"),
    ("ACCOUNT_SID", "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
    (
        "PLATFORM_WORKSPACE_SID",
        "WSaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ),
    ("EMAILPROVIDER_DOMAIN", "mg.example.com"),
];

impl Default for FakeContext {
    fn default() -> Self {
        FakeContext::new()
    }
}

impl FakeContext {
    /// The defaults.
    pub fn new() -> Self {
        let mut thresholds = Thresholds::default();
        thresholds.error_rate = 1.0;
        FakeContext {
            values: DEFAULT_CONTEXT
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned(), false))
                .collect(),
            thresholds,
            memory_limit: Some(256 * 1024 * 1024),
        }
    }

    /// Sets a value, as the environment would: one of ccfn's secret
    /// settings (`AUTH_TOKEN`, ...) is a declared secret, another name
    /// that looks sensitive stays readable and is kept out of the logs, as
    /// in production.
    pub fn value(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let name = name.into();
        self.values.retain(|(n, _, _)| *n != name);
        self.values.push((name, value.into(), false));
        self
    }

    /// Sets a declared secret, whatever its name (as `CCFN_SECRETS` or a
    /// function's `secrets = [..]` would): plant canaries with it.
    pub fn secret(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let name = name.into();
        self.values.retain(|(n, _, _)| *n != name);
        self.values.push((name, value.into(), true));
        self
    }

    /// Points `context.email()` at `fake`: its URL, and
    /// [`FAKE_EMAIL_KEY`] as the key (the sending domain is the default's,
    /// `mg.example.com`).
    ///
    /// ```
    /// use ccfn_testkit::fake_email::FakeEmailProvider;
    /// use ccfn_testkit::FakeContext;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let email = FakeEmailProvider::start().await;
    /// let context = FakeContext::new().email_provider(&email).build();
    /// assert_eq!(context.get("EMAILPROVIDER_BASE_URL"), Some(email.url().as_str()));
    /// # });
    /// ```
    pub fn email_provider(self, fake: &FakeEmailProvider) -> Self {
        self.value("EMAILPROVIDER_BASE_URL", fake.url())
            .secret("EMAILPROVIDER_API_KEY", FAKE_EMAIL_KEY)
    }

    /// Points `context.task_router()` at `fake`: its URL, and the default
    /// `ACCOUNT_SID` with [`FAKE_AUTH_TOKEN`] as credentials (the
    /// workspace is the default's).
    ///
    /// ```
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    /// use ccfn_testkit::FakeContext;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let router = FakeTaskRouter::start().await;
    /// let context = FakeContext::new().task_router(&router).build();
    /// assert_eq!(context.get("TASKROUTER_BASE_URL"), Some(router.url().as_str()));
    /// # });
    /// ```
    pub fn task_router(self, fake: &FakeTaskRouter) -> Self {
        self.value("TASKROUTER_BASE_URL", fake.url())
            .secret("AUTH_TOKEN", FAKE_AUTH_TOKEN)
    }

    /// Sets value `name` to `fake`'s URL: where a function finds one of
    /// your own APIs (`.api("CRM_URL", &crm)`).
    pub fn api(self, name: impl Into<String>, fake: &FakeApi) -> Self {
        self.value(name, fake.url())
    }

    /// Removes a value.
    pub fn without(mut self, name: &str) -> Self {
        self.values.retain(|(n, _, _)| n != name);
        self
    }

    /// Raises the execution-time alert after `threshold` instead of 10 s.
    pub fn execution_alert_after(mut self, threshold: Duration) -> Self {
        self.thresholds.execution = threshold;
        self
    }

    /// Raises the error-rate alert when more than `rate` (0.05 is 5 %) of
    /// the invocations in the last `window` failed, from the first
    /// invocation on (production waits for
    /// [`Thresholds::error_min_invocations`]).
    pub fn error_rate_alert(mut self, rate: f64, window: Duration) -> Self {
        self.thresholds.error_rate = rate;
        self.thresholds.error_window = window;
        self.thresholds.error_min_invocations = 1;
        self
    }

    /// Replaces every threshold.
    pub fn thresholds(mut self, thresholds: Thresholds) -> Self {
        self.thresholds = thresholds;
        self
    }

    /// Sets the memory limit (`None`: unknown).
    pub fn memory_limit(mut self, bytes: Option<u64>) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// Makes the context.
    pub fn build(self) -> Context {
        let mut builder: ContextBuilder = Context::builder()
            .thresholds(self.thresholds)
            .memory_limit(self.memory_limit);
        for (name, value, secret) in self.values {
            builder = if secret {
                builder.secret(name, value)
            } else {
                builder.value(name, value)
            };
        }
        builder.build()
    }
}

impl From<FakeContext> for Context {
    fn from(fake: FakeContext) -> Self {
        fake.build()
    }
}

/// An event for tests, starting from valid voice parameters.
///
/// ```
/// use ccfn_testkit::FakeEvent;
///
/// let event = FakeEvent::voice().without("To").mode("voicemail").build();
/// assert_eq!(event.call_sid(), Some("CA0123456789abcdef0123456789abcdef"));
/// assert_eq!(event.to(), None);
/// assert_eq!(event.mode(), "voicemail");
/// ```
#[derive(Debug, Clone)]
#[must_use = "pass it to `invoke`, or call `.build()`"]
pub struct FakeEvent {
    event: Event,
}

/// The parameters of [`FakeEvent::voice`].
pub const VOICE_EVENT: [(&str, &str); 3] = [
    ("CallSid", "CA0123456789abcdef0123456789abcdef"),
    ("From", "+15551230000"),
    ("To", "+15559870000"),
];

impl FakeEvent {
    /// `CallSid`, `From` and `To`, valid.
    pub fn voice() -> Self {
        FakeEvent {
            event: Event::from_pairs(VOICE_EVENT),
        }
    }

    /// No parameters at all.
    pub fn empty() -> Self {
        FakeEvent {
            event: Event::new(),
        }
    }

    /// Sets a parameter, replacing any of the same name.
    pub fn param(mut self, name: &str, value: &str) -> Self {
        self.event.set(name, value);
        self
    }

    /// Appends a parameter, keeping any of the same name (repeated keys).
    pub fn push(mut self, name: &str, value: &str) -> Self {
        self.event.push(name, value);
        self
    }

    /// Removes a parameter.
    pub fn without(mut self, name: &str) -> Self {
        self.event.remove(name);
        self
    }

    /// Sets `mode`.
    pub fn mode(self, mode: &str) -> Self {
        self.param("mode", mode)
    }

    /// Makes the event.
    pub fn build(self) -> Event {
        self.event
    }
}

impl From<FakeEvent> for Event {
    fn from(fake: FakeEvent) -> Self {
        fake.event
    }
}
