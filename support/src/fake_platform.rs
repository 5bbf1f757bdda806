//! A fake of the platform's REST API, read-only, served over real HTTP on
//! loopback: the resources the diagnostic procedure reads (calls, flows,
//! tasks, phone numbers, the account...), with both pagination shapes the
//! platform uses, its error bodies, its authentication and its rate limit.
//!
//! Each [`Resource`] is a list on one product's base path. The fake
//! answers, for a list:
//!
//! | product | list | one item | page |
//! |---|---|---|---|
//! | the 2010 API (`/2010-04-01/Accounts/{AccountSid}/...`) | `GET .../Calls.json` | `GET .../Calls/{Sid}.json` | `{"calls": [..], "page", "page_size", "start", "end", "uri", "first_page_uri", "previous_page_uri", "next_page_uri"}`: `next_page_uri` a path, null on the last page |
//! | the newer APIs (`/v1/...`, `/v2/...`) | `GET /v1/Workspaces/{Sid}/Tasks` | `GET /v1/Workspaces/{Sid}/Tasks/{Sid}` | `{"tasks": [..], "meta": {"page", "page_size", "first_page_url", "previous_page_url", "url", "next_page_url", "key"}}`: `next_page_url` absolute, null on the last page |
//!
//! - What the fake serves follows the platform's published definitions,
//!   checked into this crate (`platform-api/oai-subset.json`): every
//!   answer carries each field its operation's schema lists, null where
//!   the item has none and the schema allows null, and no other field; a
//!   list leaves null what the platform gives only to a fetched item (a
//!   flow's `definition`, `valid`, `errors` and `warnings`, a task's
//!   `attributes`). A test can add partial items: what they lack is null.
//! - `PageSize` (default 50, at most 1 000) and `Page` (from 0) page the
//!   list. The operation's own query parameters filter and order it, each
//!   as its description in the definitions says: `PhoneNumber` partially,
//!   `*` standing for a digit; calls' `StartTime>=2026-11-20` on or after
//!   that day, `StartTime<` before it; executions' `DateCreatedFrom` on or
//!   after and `DateCreatedTo` strictly before an instant; logs of the
//!   last day unless `StartDate` says otherwise; alerts' `StartDate` and
//!   `EndDate` a 400 when older than 30 days; tasks oldest first unless
//!   `Ordering` (`Priority:desc,DateCreated:asc`) says otherwise. A query
//!   parameter the operation does not have is ignored, as on the platform;
//!   [`FakePlatform::unconforming_requests`] reports it.
//! - Only `GET` is served; a write is refused (405, code 20004).
//! - Requests need HTTP basic authentication with the fake's
//!   [`FakePlatform::username`] and [`FakePlatform::password`]; others get
//!   the platform's 401 (`{"code": 20003, "message": "Authenticate", ...}`).
//! - A list under an item the fake has (a call's recordings, a flow's
//!   executions) is an empty page when nothing was added to it; any other
//!   unknown item or list is the platform's 404 (`code` 20404).
//! - [`FakePlatform::fail_with`] and [`platform_error`] answer the next
//!   requests with the platform's errors, its 429 and `Retry-After`
//!   included.
//!
//! ```
//! use ccfn_support::fake_platform::{FakePlatform, Resource};
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let fake = FakePlatform::start()
//!     .await
//!     .with(Resource::Calls, json!({ "sid": "CA0001", "status": "failed" }))
//!     .with(Resource::Calls, json!({ "sid": "CA0002", "status": "completed" }));
//! let url = format!("{}/2010-04-01/Accounts/{}/Calls.json?Status=failed", fake.url(), fake.account_sid());
//! ccfn_core::http::install_crypto_provider();
//! let page: serde_json::Value = reqwest::Client::new()
//!     .get(&url)
//!     .basic_auth(fake.username(), Some(fake.password()))
//!     .send()
//!     .await
//!     .unwrap()
//!     .json()
//!     .await
//!     .unwrap();
//! assert_eq!(page["calls"][0]["sid"], "CA0001");
//! assert_eq!(page["calls"].as_array().unwrap().len(), 1);
//! assert_eq!(page["next_page_uri"], serde_json::Value::Null);
//! # });
//! ```

use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use ccfn_testkit::__private::{lock, verify, Book, Server};
use ccfn_testkit::{FakeResponse, Request};
use serde_json::Value;

pub mod center;
#[cfg(test)]
mod conformance;
mod definitions;
pub mod hostile;
mod resource;
mod scenario;
mod select;
mod serve;
#[cfg(test)]
mod tests;

use hostile::Hostile;
pub use resource::Resource;
pub use scenario::Scenario;
use serve::{Shared, State};

/// The account the fake's resources belong to.
pub const ACCOUNT_SID: &str = "ACf0000000000000000000000000000000";

/// What is wrong with `request` by the platform's definitions, empty
/// when nothing is: no operation has its path (matched against the
/// operations' path templates); the operation has no such method, or the
/// method is not `GET` (ccfn only reads); a path parameter's value breaks
/// its schema (a SID's pattern); a query parameter the operation does
/// not have (names are case-sensitive); a query parameter whose value
/// breaks its schema (type, `enum`, `pattern`, length,
/// `minimum`/`maximum`, `format: date-time` or `date`, widened only where
/// the parameter's description allows a day alone or an offset), or
/// given more than once when it is not an array.
#[must_use]
pub fn nonconformities(request: &Request) -> Vec<String> {
    let Some((operation, path_values)) = definitions::find(request.path()) else {
        return vec!["no operation of the platform's definitions has this path".to_owned()];
    };
    let method = request.method();
    let mut faults = Vec::new();
    if !operation.methods.iter().any(|m| m == method) {
        faults.push(format!(
            "{} has no method {method} (only {})",
            operation.path,
            operation.methods.join(", ")
        ));
    } else if method != "GET" {
        faults.push(format!("{method} is a write; ccfn only reads the platform"));
    }
    for (name, value) in &path_values {
        if let Some(why) = operation
            .parameter("path", name)
            .and_then(|parameter| definitions::check(parameter, &[value]))
        {
            faults.push(format!("path parameter {why}"));
        }
    }
    let query = request.query_pairs();
    let mut names: Vec<&str> = Vec::new();
    for (name, _) in query {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    for name in names {
        let values: Vec<&str> = query
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect();
        match operation.parameter("query", name) {
            None => faults.push(format!(
                "query parameter {name:?}: {} has no such parameter",
                operation.id
            )),
            Some(parameter) => {
                if let Some(why) = definitions::check(parameter, &values) {
                    faults.push(format!("query parameter {why}"));
                }
            }
        }
    }
    faults
}

/// The platform's error body with `status` and `message` (its `code`
/// 20000 + the status, as the platform's 20404 and 20429): give it to
/// [`FakePlatform::fail_with`].
///
/// ```
/// use ccfn_support::fake_platform::platform_error;
///
/// let limited = platform_error(429, "Too Many Requests").header("Retry-After", "0").times(2);
/// assert_eq!(limited.status_code(), 429);
/// ```
pub fn platform_error(status: u16, message: &str) -> FakeResponse {
    FakeResponse::status(status).json(serve::error_body(
        status,
        20000 + u32::from(status),
        message,
    ))
}

/// The fake platform: an HTTP server on `127.0.0.1` (a random port),
/// stopped when dropped.
pub struct FakePlatform {
    server: Server,
    shared: Arc<Shared>,
}

impl fmt::Debug for FakePlatform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FakePlatform")
            .field("addr", &self.server.addr())
            .finish_non_exhaustive()
    }
}

impl FakePlatform {
    /// Starts the fake on a random port of `127.0.0.1`, empty. Needs a
    /// Tokio runtime.
    ///
    /// # Panics
    /// No loopback port can be bound.
    ///
    /// ```
    /// use ccfn_support::fake_platform::FakePlatform;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await;
    /// assert!(fake.url().starts_with("http://127.0.0.1:"));
    /// # });
    /// ```
    pub async fn start() -> FakePlatform {
        let shared = Arc::new(Shared {
            book: Mutex::new(Book::default()),
            state: Mutex::new(State {
                username: ACCOUNT_SID.to_owned(),
                password: "fake-platform-auth-token".to_owned(),
                ..State::default()
            }),
        });
        let app = Router::new()
            .fallback(serve::handle)
            .with_state(Arc::clone(&shared));
        let server = Server::start(app, "the fake platform").await;
        lock(&shared.state).origin = format!("http://{}", server.addr());
        FakePlatform { server, shared }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.shared.state)
    }

    /// The fake's address.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// The base URL of every product on the fake: `http://127.0.0.1:{port}`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    /// The account SID ([`ACCOUNT_SID`]).
    #[must_use]
    pub fn account_sid(&self) -> &'static str {
        ACCOUNT_SID
    }

    /// The basic-auth username requests need (the account SID, unless
    /// [`FakePlatform::with_credentials`] said otherwise).
    #[must_use]
    pub fn username(&self) -> String {
        self.lock().username.clone()
    }

    /// The basic-auth password requests need.
    #[must_use]
    pub fn password(&self) -> String {
        self.lock().password.clone()
    }

    /// Requires `username` and `password` (an API key pair, or a canary
    /// auth token) instead.
    ///
    /// ```
    /// use ccfn_support::fake_platform::FakePlatform;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await.with_credentials("SK0001", "canary-secret");
    /// assert_eq!(fake.username(), "SK0001");
    /// # });
    /// ```
    #[must_use]
    pub fn with_credentials(
        self,
        username: impl Into<String>,
        password: impl Into<String>,
    ) -> Self {
        {
            let mut state = self.lock();
            state.username = username.into();
            state.password = password.into();
        }
        self
    }

    /// Adds `item` to the list `resource` (after the items already there),
    /// and serves it alone at its `sid`. The list exists, empty, once
    /// anything is added to it or [`FakePlatform::with_list`] names it.
    ///
    /// # Panics
    /// `item` has no string `sid`.
    #[must_use]
    pub fn with(self, resource: Resource, item: Value) -> Self {
        let sid = item["sid"]
            .as_str()
            .unwrap_or_else(|| panic!("an item of {resource:?} needs a sid: {item}"))
            .to_owned();
        let (path, key) = resource.path();
        {
            let mut state = self.lock();
            let object = match path.strip_suffix(".json") {
                Some(stem) => format!("{stem}/{sid}.json"),
                None => format!("{path}/{sid}"),
            };
            state.objects.retain(|(p, _)| *p != object);
            state.objects.push((object, item.clone()));
            match state.lists.iter_mut().find(|(p, _, _)| *p == path) {
                Some((_, _, items)) => items.push(item),
                None => state.lists.push((path, key, vec![item])),
            }
        }
        self
    }

    /// Makes the list `resource` exist, empty if nothing was added.
    ///
    /// ```
    /// use ccfn_support::fake_platform::{FakePlatform, Resource};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await.with_list(Resource::Alerts);
    /// # let _ = fake;
    /// # });
    /// ```
    #[must_use]
    pub fn with_list(self, resource: Resource) -> Self {
        let (path, key) = resource.path();
        {
            let mut state = self.lock();
            if !state.lists.iter().any(|(p, _, _)| *p == path) {
                state.lists.push((path, key, Vec::new()));
            }
        }
        self
    }

    /// Serves `object` at `path` (e.g. the account at
    /// `/2010-04-01/Accounts/{AccountSid}.json`, or a flow's revision).
    #[must_use]
    pub fn with_object(self, path: impl Into<String>, object: Value) -> Self {
        let path = path.into();
        {
            let mut state = self.lock();
            state.objects.retain(|(p, _)| *p != path);
            state.objects.push((path, object));
        }
        self
    }

    /// Answers the following authenticated requests with `answer` (as
    /// many as [`FakeResponse::times`] says, or all), still recording
    /// them: [`platform_error`] makes the platform's error bodies, its
    /// rate limit included.
    ///
    /// ```
    /// use ccfn_support::fake_platform::{platform_error, FakePlatform};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await;
    /// fake.fail_with(platform_error(503, "Service Unavailable"));
    /// # });
    /// ```
    pub fn fail_with(&self, answer: FakeResponse) -> &Self {
        lock(&self.shared.book).fail_with(answer);
        self
    }

    /// Waits `delay` before each of the platform's answers.
    pub fn delay(&self, delay: Duration) -> &Self {
        lock(&self.shared.book).set_delay(delay);
        self
    }

    /// Expects exactly `count` requests in all: checked when the fake is
    /// dropped (unless the test is already panicking) and by
    /// [`FakePlatform::verify`].
    pub fn expect(&self, count: usize) -> &Self {
        lock(&self.shared.book).expect(count);
        self
    }

    /// Checks the count set by [`FakePlatform::expect`] now (whether the
    /// requests conform is [`FakePlatform::assert_requests_conform`]'s).
    ///
    /// # Panics
    /// The fake received another number of requests; the message lists
    /// what it received.
    #[track_caller]
    pub fn verify(&self) {
        let problems: Vec<String> = lock(&self.shared.book).unmet().into_iter().collect();
        verify(
            "the fake platform",
            &self.url(),
            &problems,
            &self.requests(),
        );
    }

    /// Answers every request from now on as `behaviour` says (see
    /// [`hostile`]): foreign next links, endless pages, a huge page, a
    /// rate-limit storm, control sequences, echoed credentials.
    ///
    /// ```
    /// use ccfn_support::fake_platform::hostile::Hostile;
    /// use ccfn_support::fake_platform::FakePlatform;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await.hostile(Hostile::SelfNext);
    /// # let _ = fake;
    /// # });
    /// ```
    #[must_use]
    pub fn hostile(self, behaviour: Hostile) -> Self {
        self.lock().hostile = Some(behaviour);
        self
    }

    /// The requests received so far, in order.
    #[must_use]
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.shared.book).requests()
    }

    /// What is wrong with the requests received so far, measured against
    /// the platform's published definitions (checked into this crate):
    /// one line per fault, `GET /path: why`, empty when every request
    /// conforms. See [`nonconformities`] for what is checked.
    ///
    /// ```
    /// use ccfn_support::fake_platform::{FakePlatform, Resource};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await.with_list(Resource::Alerts);
    /// ccfn_core::http::install_crypto_provider();
    /// let client = reqwest::Client::new();
    /// for query in ["LogLevel=error&PageSize=20", "Level=error&PageSize=5000"] {
    ///     let url = format!("{}/v1/Alerts?{query}", fake.url());
    ///     client.get(&url).basic_auth(fake.username(), Some(fake.password())).send().await.unwrap();
    /// }
    /// let faults = fake.unconforming_requests();
    /// assert_eq!(faults.len(), 2, "{faults:?}");
    /// assert!(faults[0].contains("Level") && faults[0].contains("ListAlert has no such parameter"));
    /// assert!(faults[1].contains("PageSize=\"5000\": above the maximum 1000"));
    /// # });
    /// ```
    #[must_use]
    pub fn unconforming_requests(&self) -> Vec<String> {
        self.requests()
            .iter()
            .flat_map(|request| {
                nonconformities(request)
                    .into_iter()
                    .map(move |why| format!("{} {}: {why}", request.method(), request.path()))
            })
            .collect()
    }

    /// Panics, listing them, when any request the fake received does not
    /// conform to the platform's definitions
    /// ([`FakePlatform::unconforming_requests`]). A test of a command
    /// that reads the platform ends with it.
    ///
    /// # Panics
    /// A request does not conform.
    ///
    /// ```
    /// use ccfn_support::fake_platform::FakePlatform;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await;
    /// fake.assert_requests_conform(); // none received: none wrong
    /// # });
    /// ```
    pub fn assert_requests_conform(&self) {
        let faults = self.unconforming_requests();
        assert!(
            faults.is_empty(),
            "requests that do not conform to the platform's definitions:\n{}",
            faults.join("\n")
        );
    }

    /// The variables that point `ccfn`'s platform commands at the fake
    /// and authenticate them: every `CCFN_PLATFORM_*_URL`, `ACCOUNT_SID`
    /// and `AUTH_TOKEN` (the password).
    ///
    /// ```
    /// use ccfn_support::fake_platform::FakePlatform;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await;
    /// let vars = fake.vars();
    /// assert!(vars.iter().any(|(name, value)| *name == "CCFN_PLATFORM_STUDIO_URL" && *value == fake.url()));
    /// # });
    /// ```
    #[must_use]
    pub fn vars(&self) -> Vec<(&'static str, String)> {
        let base = self.url();
        let mut vars: Vec<(&'static str, String)> = [
            "CCFN_PLATFORM_API_URL",
            "CCFN_PLATFORM_TASKROUTER_URL",
            "CCFN_PLATFORM_STUDIO_URL",
            "CCFN_PLATFORM_SERVERLESS_URL",
            "CCFN_PLATFORM_MONITOR_URL",
            "CCFN_PLATFORM_INSIGHTS_URL",
        ]
        .into_iter()
        .map(|name| (name, base.clone()))
        .collect();
        vars.push(("ACCOUNT_SID", ACCOUNT_SID.to_owned()));
        vars.push(("AUTH_TOKEN", self.password()));
        vars
    }
}

impl Drop for FakePlatform {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.verify();
        }
    }
}
