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
//! - [`FakePlatform::rate_limit`] answers the next requests with 429 and
//!   `Retry-After`.
//!
//! ```
//! use ccfn_testkit::fake_platform::{FakePlatform, Resource};
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let fake = FakePlatform::start()
//!     .await
//!     .with(Resource::Calls, json!({ "sid": "CA0001", "status": "failed" }))
//!     .with(Resource::Calls, json!({ "sid": "CA0002", "status": "completed" }));
//! let url = format!("{}/2010-04-01/Accounts/{}/Calls.json?Status=failed", fake.base_url(), fake.account_sid());
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

use axum::extract::State as Shared;
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::{json, Value};

use crate::loopback::{basic_auth, lock, Server};

#[cfg(test)]
mod conformance;
mod definitions;
pub mod hostile;
use hostile::Hostile;

/// The account the fake's resources belong to.
pub const ACCOUNT_SID: &str = "ACf0000000000000000000000000000000";

/// A list of the platform's resources, as the fake serves it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resource {
    /// The account's calls (2010 API, `calls`).
    Calls,
    /// A call's recordings (2010 API, `recordings`).
    Recordings {
        /// The call's SID.
        call: String,
    },
    /// A call's events: the platform's log of its webhooks' requests and
    /// responses (2010 API, `events`).
    CallEvents {
        /// The call's SID.
        call: String,
    },
    /// The account's phone numbers (2010 API, `incoming_phone_numbers`).
    IncomingPhoneNumbers,
    /// The account's applications (2010 API, `applications`).
    Applications,
    /// The account's API keys, metadata only (2010 API, `keys`).
    Keys,
    /// The account's usage records (2010 API, `usage_records`).
    UsageRecords,
    /// The flows (Studio v2, `flows`).
    Flows,
    /// A flow's executions (Studio v2, `executions`).
    Executions {
        /// The flow's SID.
        flow: String,
    },
    /// An execution's steps (Studio v2, `steps`).
    Steps {
        /// The flow's SID.
        flow: String,
        /// The execution's SID.
        execution: String,
    },
    /// The account's task-router workspaces (TaskRouter v1, `workspaces`).
    Workspaces,
    /// A workspace's tasks (TaskRouter v1, `tasks`).
    Tasks {
        /// The workspace's SID.
        workspace: String,
    },
    /// A workspace's workflows (TaskRouter v1, `workflows`).
    Workflows {
        /// The workspace's SID.
        workspace: String,
    },
    /// A workspace's task queues (TaskRouter v1, `task_queues`).
    TaskQueues {
        /// The workspace's SID.
        workspace: String,
    },
    /// The serverless services (Serverless v1, `services`).
    Services,
    /// A service's functions (Serverless v1, `functions`).
    Functions {
        /// The service's SID.
        service: String,
    },
    /// A service's environments (Serverless v1, `environments`).
    Environments {
        /// The service's SID.
        service: String,
    },
    /// An environment's logs (Serverless v1, `logs`).
    Logs {
        /// The service's SID.
        service: String,
        /// The environment's SID.
        environment: String,
    },
    /// The account's alerts (Monitor v1, `alerts`).
    Alerts,
}

impl Resource {
    /// The list's path on the fake, and the key its items are under.
    #[must_use]
    pub fn path(&self) -> (String, &'static str) {
        let account = format!("/2010-04-01/Accounts/{ACCOUNT_SID}");
        match self {
            Resource::Calls => (format!("{account}/Calls.json"), "calls"),
            Resource::Recordings { call } => (
                format!("{account}/Calls/{call}/Recordings.json"),
                "recordings",
            ),
            Resource::CallEvents { call } => {
                (format!("{account}/Calls/{call}/Events.json"), "events")
            }
            Resource::IncomingPhoneNumbers => (
                format!("{account}/IncomingPhoneNumbers.json"),
                "incoming_phone_numbers",
            ),
            Resource::Applications => (format!("{account}/Applications.json"), "applications"),
            Resource::Keys => (format!("{account}/Keys.json"), "keys"),
            Resource::UsageRecords => (format!("{account}/Usage/Records.json"), "usage_records"),
            Resource::Flows => ("/v2/Flows".to_owned(), "flows"),
            Resource::Executions { flow } => (format!("/v2/Flows/{flow}/Executions"), "executions"),
            Resource::Steps { flow, execution } => (
                format!("/v2/Flows/{flow}/Executions/{execution}/Steps"),
                "steps",
            ),
            Resource::Workspaces => ("/v1/Workspaces".to_owned(), "workspaces"),
            Resource::Tasks { workspace } => (format!("/v1/Workspaces/{workspace}/Tasks"), "tasks"),
            Resource::Workflows { workspace } => {
                (format!("/v1/Workspaces/{workspace}/Workflows"), "workflows")
            }
            Resource::TaskQueues { workspace } => (
                format!("/v1/Workspaces/{workspace}/TaskQueues"),
                "task_queues",
            ),
            Resource::Services => ("/v1/Services".to_owned(), "services"),
            Resource::Functions { service } => {
                (format!("/v1/Services/{service}/Functions"), "functions")
            }
            Resource::Environments { service } => (
                format!("/v1/Services/{service}/Environments"),
                "environments",
            ),
            Resource::Logs {
                service,
                environment,
            } => (
                format!("/v1/Services/{service}/Environments/{environment}/Logs"),
                "logs",
            ),
            Resource::Alerts => ("/v1/Alerts".to_owned(), "alerts"),
        }
    }
}

/// One request the fake received (the basic-auth password is left out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeRequest {
    /// The method, upper case (`GET`).
    pub method: String,
    /// The path, as sent.
    pub path: String,
    /// The query parameters, decoded, in order.
    pub query: Vec<(String, String)>,
    /// The basic-auth username, when there was one.
    pub username: Option<String>,
    /// The status the fake answered with.
    pub status: u16,
}

impl FakeRequest {
    /// What is wrong with this request by the platform's definitions,
    /// empty when nothing is: no operation has its path (matched against
    /// the operations' path templates); the operation has no such method,
    /// or the method is not `GET` (ccfn only reads); a path parameter's
    /// value breaks its schema (a SID's pattern); a query parameter the
    /// operation does not have (names are case-sensitive); a query
    /// parameter whose value breaks its schema (type, `enum`, `pattern`,
    /// length, `minimum`/`maximum`, `format: date-time` or `date`, widened
    /// only where the parameter's description allows a day alone or an
    /// offset), or given more than once when it is not an array.
    #[must_use]
    pub fn nonconformities(&self) -> Vec<String> {
        let Some((operation, path_values)) = definitions::find(&self.path) else {
            return vec!["no operation of the platform's definitions has this path".to_owned()];
        };
        let mut faults = Vec::new();
        if !operation.methods.contains(&self.method) {
            faults.push(format!(
                "{} has no method {} (only {})",
                operation.path,
                self.method,
                operation.methods.join(", ")
            ));
        } else if self.method != "GET" {
            faults.push(format!(
                "{} is a write; ccfn only reads the platform",
                self.method
            ));
        }
        for (name, value) in &path_values {
            if let Some(why) = operation
                .parameter("path", name)
                .and_then(|parameter| definitions::check(parameter, &[value]))
            {
                faults.push(format!("path parameter {why}"));
            }
        }
        let mut names: Vec<&str> = Vec::new();
        for (name, _) in &self.query {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        for name in names {
            let values: Vec<&str> = self
                .query
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
}

#[derive(Default)]
struct State {
    origin: String,
    lists: Vec<(String, &'static str, Vec<Value>)>,
    objects: Vec<(String, Value)>,
    username: String,
    password: String,
    rate_limited: u32,
    retry_after: u64,
    failure: Option<(u16, String)>,
    requests: Vec<FakeRequest>,
    hostile: Option<Hostile>,
}

/// The fake platform: an HTTP server on `127.0.0.1` (a random port),
/// stopped when dropped.
pub struct FakePlatform {
    server: Server,
    state: Arc<Mutex<State>>,
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
    /// use ccfn_testkit::fake_platform::FakePlatform;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await;
    /// assert!(fake.base_url().starts_with("http://127.0.0.1:"));
    /// # });
    /// ```
    pub async fn start() -> FakePlatform {
        let state = Arc::new(Mutex::new(State {
            username: ACCOUNT_SID.to_owned(),
            password: "fake-platform-auth-token".to_owned(),
            ..State::default()
        }));
        let app = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&state));
        let server = Server::start(app, "the fake platform").await;
        lock(&state).origin = format!("http://{}", server.addr());
        FakePlatform { server, state }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// The fake's address.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// The base URL of every product on the fake: `http://127.0.0.1:{port}`.
    #[must_use]
    pub fn base_url(&self) -> String {
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
    /// use ccfn_testkit::fake_platform::FakePlatform;
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
    /// use ccfn_testkit::fake_platform::{FakePlatform, Resource};
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

    /// Answers the next `times` requests with 429 and `Retry-After:
    /// {seconds}`, as the platform's rate limit does.
    ///
    /// ```
    /// use ccfn_testkit::fake_platform::FakePlatform;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await;
    /// fake.rate_limit(2, 0);
    /// # });
    /// ```
    pub fn rate_limit(&self, times: u32, seconds: u64) {
        let mut state = self.lock();
        state.rate_limited = times;
        state.retry_after = seconds;
    }

    /// Answers every authenticated request with `status` and the
    /// platform's error body carrying `message` (`fail_with(0, ..)` stops).
    ///
    /// ```
    /// use ccfn_testkit::fake_platform::FakePlatform;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await;
    /// fake.fail_with(503, "Service Unavailable");
    /// # });
    /// ```
    pub fn fail_with(&self, status: u16, message: impl Into<String>) {
        self.lock().failure = (status != 0).then(|| (status, message.into()));
    }

    /// Answers every request from now on as `behaviour` says (see
    /// [`hostile`]): foreign next links, endless pages, a huge page, a
    /// rate-limit storm, control sequences, echoed credentials.
    ///
    /// ```
    /// use ccfn_testkit::fake_platform::hostile::Hostile;
    /// use ccfn_testkit::fake_platform::FakePlatform;
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
    pub fn requests(&self) -> Vec<FakeRequest> {
        self.lock().requests.clone()
    }

    /// What is wrong with the requests received so far, measured against
    /// the platform's published definitions (checked into this crate):
    /// one line per fault, `GET /path: why`, empty when every request
    /// conforms. See [`FakeRequest::nonconformities`] for what is checked.
    ///
    /// ```
    /// use ccfn_testkit::fake_platform::{FakePlatform, Resource};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await.with_list(Resource::Alerts);
    /// ccfn_core::http::install_crypto_provider();
    /// let client = reqwest::Client::new();
    /// for query in ["LogLevel=error&PageSize=20", "Level=error&PageSize=5000"] {
    ///     let url = format!("{}/v1/Alerts?{query}", fake.base_url());
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
                request
                    .nonconformities()
                    .into_iter()
                    .map(move |why| format!("{} {}: {why}", request.method, request.path))
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
    /// use ccfn_testkit::fake_platform::FakePlatform;
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
    /// use ccfn_testkit::fake_platform::FakePlatform;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await;
    /// let vars = fake.vars();
    /// assert!(vars.iter().any(|(name, value)| *name == "CCFN_PLATFORM_STUDIO_URL" && *value == fake.base_url()));
    /// # });
    /// ```
    #[must_use]
    pub fn vars(&self) -> Vec<(&'static str, String)> {
        let base = self.base_url();
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

/// The platform's error body.
fn error(status: StatusCode, code: u32, message: &str) -> Response {
    let body = json!({
        "code": code,
        "message": message,
        "more_info": format!("https://www.twilio.com/docs/errors/{code}"),
        "status": status.as_u16(),
    });
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn handle(
    Shared(state): Shared<Arc<Mutex<State>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let path = uri.path().to_owned();
    let query: Vec<(String, String)> = form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
        .into_owned()
        .collect();
    let credentials = match basic_auth(&headers) {
        (Some(user), Some(password)) => Some((user, password)),
        _ => None,
    };
    let mut state = lock(&state);
    // The fake serves reads: a write is refused as the platform refuses a
    // method a resource does not have (405, code 20004).
    let (response, status) = if method == Method::GET {
        answer(&mut state, &path, &query, credentials.as_ref())
    } else {
        let status = StatusCode::METHOD_NOT_ALLOWED;
        (error(status, 20004, "Method not allowed"), status)
    };
    state.requests.push(FakeRequest {
        method: method.as_str().to_owned(),
        path,
        query,
        username: credentials.map(|(user, _)| user),
        status: status.as_u16(),
    });
    response
}

fn answer(
    state: &mut State,
    path: &str,
    query: &[(String, String)],
    credentials: Option<&(String, String)>,
) -> (Response, StatusCode) {
    let authenticated = credentials
        .is_some_and(|(user, password)| *user == state.username && *password == state.password);
    if let Some(hostile) = &state.hostile {
        let known = hostile::Known {
            origin: &state.origin,
            username: &state.username,
            password: &state.password,
            received: state.requests.len(),
        };
        if let Some(answer) = hostile.answer(&known, path, query, authenticated) {
            return answer;
        }
    }
    if !authenticated {
        let status = StatusCode::UNAUTHORIZED;
        return (error(status, 20003, "Authenticate"), status);
    }
    if let Some((status, message)) = &state.failure {
        let status = StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let code = 20000 + u32::from(status.as_u16());
        return (error(status, code, message), status);
    }
    if state.rate_limited > 0 {
        state.rate_limited -= 1;
        let status = StatusCode::TOO_MANY_REQUESTS;
        let mut response = error(status, 20429, "Too Many Requests");
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, state.retry_after.into());
        return (response, status);
    }
    let operation = definitions::find(path).map(|(operation, _)| operation);
    if let Some((_, object)) = state.objects.iter().find(|(p, _)| p == path) {
        // One item, fetched: in the shape of the operation's answer.
        let object = match operation {
            Some(operation) if operation.list_items().is_none() => {
                definitions::shape(object, &operation.response, None)
            }
            _ => object.clone(),
        };
        return (axum::Json(object).into_response(), StatusCode::OK);
    }
    let empty = Vec::new();
    let (key, items): (String, &Vec<Value>) = match state.lists.iter().find(|(p, _, _)| p == path) {
        Some((_, key, items)) => ((*key).to_owned(), items),
        // A list under an item the fake has (a call's recordings, a
        // flow's executions) is empty, as on the platform, not missing.
        None => match sublist(state, path) {
            Some(key) => (key, &empty),
            None => {
                let status = StatusCode::NOT_FOUND;
                let message = format!("The requested resource {path} was not found");
                return (error(status, 20404, &message), status);
            }
        },
    };
    let number = |name: &str, default: usize| {
        query
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(default)
    };
    let size = number("PageSize", 50).clamp(1, 1000);
    let page = number("Page", 0);
    let list =
        operation.and_then(|operation| operation.list_items().map(|(_, items)| (operation, items)));
    let kept: Vec<&Value> = match list {
        Some((operation, _)) => match select(&operation.id, items, query, now()) {
            Ok(kept) => kept,
            Err(message) => {
                let status = StatusCode::BAD_REQUEST;
                return (error(status, 20001, &message), status);
            }
        },
        None => items.iter().collect(),
    };
    let start = (page * size).min(kept.len());
    let end = (start + size).min(kept.len());
    // Items in a list: in the shape of the list's item schema, with the
    // fields the platform gives only to a fetched item null.
    let items: Vec<Value> = kept[start..end]
        .iter()
        .map(|item| match list {
            Some((operation, schema)) => definitions::shape(item, schema, Some(&operation.id)),
            None => (*item).clone(),
        })
        .collect();
    let more = end < kept.len();
    let filters_query: String = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(
            query
                .iter()
                .filter(|(n, _)| !matches!(n.as_str(), "PageSize" | "Page" | "PageToken")),
        )
        .finish();
    let page_uri = |page: usize| {
        let and = if filters_query.is_empty() {
            String::new()
        } else {
            format!("&{filters_query}")
        };
        format!("{path}?PageSize={size}&Page={page}{and}")
    };
    let body = if path.starts_with("/2010-04-01/") {
        json!({
            key.as_str(): items,
            "page": page,
            "page_size": size,
            "start": start,
            "end": end.saturating_sub(1).max(start),
            "uri": page_uri(page),
            "first_page_uri": page_uri(0),
            "previous_page_uri": if page > 0 { Value::from(page_uri(page - 1)) } else { Value::Null },
            "next_page_uri": if more { Value::from(page_uri(page + 1)) } else { Value::Null },
        })
    } else {
        let origin = &state.origin;
        json!({
            key.as_str(): items,
            "meta": {
                "page": page,
                "page_size": size,
                "first_page_url": format!("{origin}{}", page_uri(0)),
                "previous_page_url": if page > 0 { Value::from(format!("{origin}{}", page_uri(page - 1))) } else { Value::Null },
                "url": format!("{origin}{}", page_uri(page)),
                "next_page_url": if more { Value::from(format!("{origin}{}", page_uri(page + 1))) } else { Value::Null },
                "key": key,
            },
        })
    };
    (axum::Json(body).into_response(), StatusCode::OK)
}

/// The key of `path`'s items when it is a list under an item the fake
/// serves (`.../Calls/CA1/Recordings.json` under `.../Calls/CA1.json`).
fn sublist(state: &State, path: &str) -> Option<String> {
    let (parent, last) = path.rsplit_once('/')?;
    let (parent, last) = match last.strip_suffix(".json") {
        Some(last) => (format!("{parent}.json"), last),
        None => (parent.to_owned(), last),
    };
    let key = match definitions::find(path).and_then(|(operation, _)| operation.list_items()) {
        Some((key, _)) => key.to_owned(),
        None => snake_case(last),
    };
    state
        .objects
        .iter()
        .any(|(p, _)| *p == parent)
        .then_some(key)
}

/// Now, in seconds since 1970-01-01T00:00:00Z.
fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
        })
}

const DAY: i64 = 86_400;

/// A test an item passes or not.
type Keep = Box<dyn Fn(&Value) -> bool>;

/// The items of the list `operation` that the request's `query` keeps, in
/// the order the platform gives them, or the message of the platform's
/// 400 (code 20001, an invalid parameter).
///
/// Only the parameters the definitions give the operation filter or
/// order, each as its description says. A parameter the operation does
/// not have is ignored, as the platform does: neither the definitions
/// nor the platform's documentation give an error for one (the request
/// checker, [`FakePlatform::unconforming_requests`], reports it).
fn select<'a>(
    operation: &str,
    items: &'a [Value],
    query: &[(String, String)],
    now: i64,
) -> Result<Vec<&'a Value>, String> {
    let mut keeps: Vec<Keep> = Vec::new();
    let values = |name: &str| -> Vec<String> {
        query
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .collect()
    };
    let first = |name: &str| {
        query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let bound = |name: &str, value: &str| {
        definitions::instant(value).ok_or_else(|| format!("Invalid {name}: {value}"))
    };
    // Equal to the item's field.
    let equal = |keeps: &mut Vec<Keep>, name: &str, field: &'static str| {
        if let Some(value) = first(name) {
            keeps.push(Box::new(move |item| same(&item[field], &value)));
        }
    };
    match operation {
        "ListCall" => {
            equal(&mut keeps, "To", "to");
            equal(&mut keeps, "From", "from");
            equal(&mut keeps, "ParentCallSid", "parent_call_sid");
            equal(&mut keeps, "Status", "status");
            for (param, field) in [("StartTime", "start_time"), ("EndTime", "end_time")] {
                // "on this date", "on or after this date", "before this
                // date": a day (a date-time's day), from its midnight UTC.
                if let Some(value) = first(param) {
                    let day = bound(param, &value)?.div_euclid(DAY) * DAY;
                    keeps.push(at(field, move |t| t >= day && t < day + DAY));
                }
                if let Some(value) = first(&format!("{param}>")) {
                    let day = bound(param, &value)?.div_euclid(DAY) * DAY;
                    keeps.push(at(field, move |t| t >= day));
                }
                if let Some(value) = first(&format!("{param}<")) {
                    let day = bound(param, &value)?.div_euclid(DAY) * DAY;
                    keeps.push(at(field, move |t| t < day));
                }
            }
        }
        "ListCallRecording" => {
            // `DateCreated=` the day; `DateCreated<=` "at or before
            // midnight on a given date", `DateCreated>=` "at or after
            // midnight on a date": that day's midnight, inclusive.
            if let Some(value) = first("DateCreated") {
                let day = bound("DateCreated", &value)?;
                keeps.push(at("date_created", move |t| t >= day && t < day + DAY));
            }
            if let Some(value) = first("DateCreated<") {
                let midnight = bound("DateCreated", &value)?;
                keeps.push(at("date_created", move |t| t <= midnight));
            }
            if let Some(value) = first("DateCreated>") {
                let midnight = bound("DateCreated", &value)?;
                keeps.push(at("date_created", move |t| t >= midnight));
            }
        }
        "ListIncomingPhoneNumber" => {
            equal(&mut keeps, "FriendlyName", "friendly_name");
            equal(&mut keeps, "Origin", "origin");
            // "You can specify partial numbers and use '*' as a wildcard
            // for any digit."
            if let Some(pattern) = first("PhoneNumber") {
                keeps.push(Box::new(move |item| {
                    item["phone_number"]
                        .as_str()
                        .is_some_and(|number| partial_number(number, &pattern))
                }));
            }
            // "Whether to include phone numbers new to the platform ...
            // the default is `true`."
            if first("Beta").as_deref() == Some("false") {
                keeps.push(Box::new(|item| item["beta"] != true));
            }
        }
        "ListUsageRecord" => {
            equal(&mut keeps, "Category", "category");
            // A day, or an offset from today (`-30days`); usage on or
            // after the start, on or before the end.
            let day = |name: &str, value: &str| match definitions::offset_days(value) {
                Some(days) => Ok((now.div_euclid(DAY) + days) * DAY),
                None => bound(name, value),
            };
            if let Some(value) = first("StartDate") {
                let start = day("StartDate", &value)?;
                keeps.push(at("start_date", move |t| t >= start));
            }
            if let Some(value) = first("EndDate") {
                let end = day("EndDate", &value)?;
                keeps.push(at("end_date", move |t| t <= end));
            }
        }
        "ListApplication" | "ListWorkflow" | "ListWorkspace" => {
            equal(&mut keeps, "FriendlyName", "friendly_name");
        }
        "ListAlert" => {
            equal(&mut keeps, "LogLevel", "log_level");
            // "Queries for alerts older than 30 days are not supported."
            // The definitions do not give the platform's answer; its
            // documentation of the same 30-day limit elsewhere (error
            // 14241) is a 400 for a start date older than 30 days, so the
            // fake answers that, for either bound.
            let oldest = now - 30 * DAY;
            // On or after the start; on or before the end, a day alone
            // meaning the whole day.
            if let Some(value) = first("StartDate") {
                let start = bound("StartDate", &value)?;
                if start < oldest.div_euclid(DAY) * DAY {
                    return Err(format!("StartDate {value} is older than 30 days"));
                }
                keeps.push(generated(move |t| t >= start));
            }
            if let Some(value) = first("EndDate") {
                let mut end = bound("EndDate", &value)?;
                if definitions::is_date(&value) {
                    end += DAY - 1;
                }
                if end < oldest {
                    return Err(format!("EndDate {value} is older than 30 days"));
                }
                keeps.push(generated(move |t| t <= end));
            }
        }
        "ListLog" => {
            equal(&mut keeps, "FunctionSid", "function_sid");
            // Created after the start ("Defaults to 1 day prior to current
            // date/time") and before the end ("Defaults to current
            // date/time").
            let start = match first("StartDate") {
                Some(value) => bound("StartDate", &value)?,
                None => now - DAY,
            };
            let end = match first("EndDate") {
                Some(value) => bound("EndDate", &value)?,
                None => now,
            };
            keeps.push(at("date_created", move |t| t > start && t < end));
        }
        "ListExecution" => {
            equal(&mut keeps, "status", "status");
            // "starting on or after this date-time"; "starting before
            // this date-time".
            if let Some(value) = first("DateCreatedFrom") {
                let from = bound("DateCreatedFrom", &value)?;
                keeps.push(at("date_created", move |t| t >= from));
            }
            if let Some(value) = first("DateCreatedTo") {
                let to = bound("DateCreatedTo", &value)?;
                keeps.push(at("date_created", move |t| t < to));
            }
        }
        "ListTask" => {
            equal(&mut keeps, "Priority", "priority");
            equal(&mut keeps, "WorkflowSid", "workflow_sid");
            equal(&mut keeps, "WorkflowName", "workflow_friendly_name");
            equal(&mut keeps, "TaskQueueSid", "task_queue_sid");
            equal(&mut keeps, "TaskQueueName", "task_queue_friendly_name");
            equal(&mut keeps, "RoutingTarget", "routing_target");
            let statuses = values("AssignmentStatus");
            if !statuses.is_empty() {
                keeps.push(Box::new(move |item| {
                    statuses.iter().any(|s| same(&item["assignment_status"], s))
                }));
            }
            if let Some(value) = first("HasAddons") {
                let wanted = value == "true";
                keeps.push(Box::new(move |item| {
                    let has = item["addons"]
                        .as_str()
                        .is_some_and(|addons| !matches!(addons.trim(), "" | "{}"));
                    has == wanted
                }));
            }
            if let Some(expression) = first("EvaluateTaskAttributes") {
                let clauses = attribute_clauses(&expression)
                    .ok_or_else(|| format!("Invalid EvaluateTaskAttributes: {expression}"))?;
                keeps.push(Box::new(move |item| {
                    let attributes = item["attributes"]
                        .as_str()
                        .and_then(|text| serde_json::from_str::<Value>(text).ok())
                        .unwrap_or(Value::Null);
                    clauses.iter().all(|(path, equal, value)| {
                        let found = path.iter().fold(&attributes, |v, key| &v[key.as_str()]);
                        (found == value) == *equal
                    })
                }));
            }
        }
        "ListTaskQueue" => {
            equal(&mut keeps, "FriendlyName", "friendly_name");
            // Queues "with Workers that match": the fake has no workers,
            // so no queue has one.
            if first("EvaluateWorkerAttributes").is_some() || first("WorkerSid").is_some() {
                keeps.push(Box::new(|_| false));
            }
            // `Ordering`: "Sorting parameter for TaskQueues", with no
            // syntax given; the fake keeps the queues' order.
        }
        // The other lists have no parameter but paging.
        _ => {}
    }
    let mut kept: Vec<&Value> = items
        .iter()
        .filter(|item| keeps.iter().all(|keep| keep(item)))
        .collect();
    if operation == "ListTask" {
        let order = task_order(first("Ordering").as_deref().unwrap_or("DateCreated:asc"))?;
        kept.sort_by(|a, b| {
            order
                .iter()
                .map(|(field, descending)| {
                    let ordering = compare(&a[*field], &b[*field]);
                    if *descending {
                        ordering.reverse()
                    } else {
                        ordering
                    }
                })
                .find(|ordering| ordering.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    }
    Ok(kept)
}

/// A test on the instant of the item's date field `field` (ISO 8601 or
/// RFC 2822); an item without the date fails it.
fn at(field: &'static str, test: impl Fn(i64) -> bool + 'static) -> Keep {
    Box::new(move |item| {
        item[field]
            .as_str()
            .and_then(definitions::instant)
            .is_some_and(&test)
    })
}

/// A test on when an alert occurred: its `date_generated` ("when the alert
/// was generated"), or its `date_created` when a test gave no
/// `date_generated` (the platform always gives both).
fn generated(test: impl Fn(i64) -> bool + 'static) -> Keep {
    Box::new(move |item| {
        let field = if item["date_generated"].is_string() {
            "date_generated"
        } else {
            "date_created"
        };
        item[field]
            .as_str()
            .and_then(definitions::instant)
            .is_some_and(&test)
    })
}

/// Whether the item's `field` is `value` as a query gives it (text, or
/// the number or boolean it spells).
fn same(field: &Value, value: &str) -> bool {
    match field {
        Value::String(text) => text == value,
        Value::Null => false,
        other => value.parse::<Value>().is_ok_and(|parsed| parsed == *other),
    }
}

/// Whether `number` contains `pattern`, `*` standing for any digit.
fn partial_number(number: &str, pattern: &str) -> bool {
    let (number, pattern): (Vec<char>, Vec<char>) =
        (number.chars().collect(), pattern.chars().collect());
    if pattern.is_empty() {
        return true;
    }
    number.windows(pattern.len()).any(|window| {
        window
            .iter()
            .zip(&pattern)
            .all(|(n, p)| n == p || (*p == '*' && n.is_ascii_digit()))
    })
}

/// The fields and directions of the tasks' `Ordering`: "`Attribute:Order`,
/// where `Attribute` can be either `DateCreated`, `Priority`, or
/// `VirtualStartTime` and `Order` can be either `asc` or `desc`", pairs
/// comma-separated; "The only ordering pairing not allowed is DateCreated
/// and VirtualStartTime."
fn task_order(ordering: &str) -> Result<Vec<(&'static str, bool)>, String> {
    let invalid = || format!("Invalid Ordering: {ordering}");
    let mut order = Vec::new();
    for pair in ordering.split(',') {
        let (attribute, direction) = pair.trim().split_once(':').ok_or_else(invalid)?;
        let field = match attribute {
            "DateCreated" => "date_created",
            "Priority" => "priority",
            "VirtualStartTime" => "virtual_start_time",
            _ => return Err(invalid()),
        };
        let descending = match direction {
            "asc" => false,
            "desc" => true,
            _ => return Err(invalid()),
        };
        if order.iter().any(|(f, _)| *f == field) {
            return Err(invalid());
        }
        order.push((field, descending));
    }
    let has = |field: &str| order.iter().any(|(f, _)| *f == field);
    if has("date_created") && has("virtual_start_time") {
        return Err(invalid());
    }
    Ok(order)
}

/// Two field values in order: dates by instant, numbers by value, nulls
/// first.
fn compare(a: &Value, b: &Value) -> std::cmp::Ordering {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a
            .as_f64()
            .partial_cmp(&b.as_f64())
            .unwrap_or(std::cmp::Ordering::Equal),
        (Value::String(a), Value::String(b)) => {
            match (definitions::instant(a), definitions::instant(b)) {
                (Some(a), Some(b)) => a.cmp(&b),
                _ => a.cmp(b),
            }
        }
        (Value::Null, Value::Null) => std::cmp::Ordering::Equal,
        (Value::Null, _) => std::cmp::Ordering::Less,
        (_, Value::Null) => std::cmp::Ordering::Greater,
        _ => std::cmp::Ordering::Equal,
    }
}

/// The clauses of a task-attributes expression the fake evaluates:
/// `key == value` and `key != value` (a dotted key into the task's
/// `attributes`; a value quoted, a number, `true`, `false` or `null`),
/// joined by `AND`; `None` for any other expression.
fn attribute_clauses(expression: &str) -> Option<Vec<(Vec<String>, bool, Value)>> {
    let mut clauses = Vec::new();
    for clause in expression.split(" AND ").flat_map(|c| c.split(" and ")) {
        let (key, equal, value) = match clause.split_once("==") {
            Some((key, value)) => (key, true, value),
            None => {
                let (key, value) = clause.split_once("!=")?;
                (key, false, value)
            }
        };
        let key = key.trim();
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            return None;
        }
        let value = value.trim();
        let value = match value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
            Some(text) => Value::from(text),
            None => serde_json::from_str::<Value>(value).ok()?,
        };
        clauses.push((key.split('.').map(str::to_owned).collect(), equal, value));
    }
    Some(clauses)
}

/// `AssignmentStatus` → `assignment_status`.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The SIDs and numbers of the contact center [`FakePlatform::contact_center`]
/// sets up: a number answered by a flow, whose function widget calls the
/// example wait experience; one call through it, yesterday (UTC); a
/// task-router workspace with a callback workflow and its queue. Every
/// item has every field of its definition in the platform's published
/// API definitions, dates as each product writes them (RFC 2822 in the
/// 2010 API, ISO 8601 elsewhere).
pub mod center {
    use std::time::{SystemTime, UNIX_EPOCH};

    /// The call.
    pub const CALL: &str = "CAd0c70000000000000000000000000001";
    /// Who called.
    pub const CALLER: &str = "+15551230000";
    /// The number called.
    pub const NUMBER: &str = "+15559870000";
    /// The number's SID.
    pub const NUMBER_SID: &str = "PNd0c70000000000000000000000000001";
    /// Another number of the account, one digit away from [`NUMBER`]: the
    /// sales line, not pointed at the flow.
    pub const SALES_NUMBER: &str = "+15559870001";
    /// The sales line's SID.
    pub const SALES_NUMBER_SID: &str = "PNd0c70000000000000000000000000002";
    /// The voice URL of the sales line (and of [`NUMBER`] when it is not
    /// on the flow).
    pub const OLD_VOICE_URL: &str = "https://cc-old.example.com/voice";
    /// The flow the number runs.
    pub const FLOW: &str = "FWd0c70000000000000000000000000001";
    /// The flow's execution for the call.
    pub const EXECUTION: &str = "FNd0c70000000000000000000000000001";
    /// The step that entered the function widget (`incomingCall`, from
    /// the trigger).
    pub const STEP_INTO_WIDGET: &str = "FTd0c70000000000000000000000000001";
    /// The step that left the function widget (`success`): its context
    /// holds the function's answer.
    pub const STEP_OUT_OF_WIDGET: &str = "FTd0c70000000000000000000000000002";
    /// The flow's function widget.
    pub const WIDGET: &str = "wait_experience";
    /// The URL the function widget calls.
    pub const FUNCTION_URL: &str =
        "https://cc.example.com/features/callback-and-voicemail-with-email/studio/wait-experience";
    /// The task-router workspace.
    pub const WORKSPACE: &str = "WSd0c70000000000000000000000000001";
    /// The workspace's friendly name.
    pub const WORKSPACE_NAME: &str = "Contact center";
    /// Another environment's workspace of the account (staging's).
    pub const STAGING_WORKSPACE: &str = "WSd0c700000000000000000000005a6e01";
    /// The staging workspace's friendly name.
    pub const STAGING_WORKSPACE_NAME: &str = "Contact center (staging)";
    /// The workflow callbacks are created in.
    pub const WORKFLOW: &str = "WWd0c70000000000000000000000000001";
    /// Another environment's workflow (staging's): in
    /// [`STAGING_WORKSPACE`], unknown in [`WORKSPACE`].
    pub const STAGING_WORKFLOW: &str = "WWd0c700000000000000000000005a6e01";
    /// The queue callbacks must land in.
    pub const QUEUE: &str = "WQd0c70000000000000000000000000001";
    /// Another queue.
    pub const OTHER_QUEUE: &str = "WQd0c70000000000000000000000000002";

    /// The flow's webhook URL: what the number must call.
    #[must_use]
    pub fn flow_webhook() -> String {
        format!(
            "https://webhooks.twilio.com/v1/Accounts/{}/Flows/{FLOW}",
            super::ACCOUNT_SID
        )
    }

    /// The day of the call, `YYYY-MM-DD`: yesterday in UTC, so that the
    /// call is always within the platform's 30 days of alerts.
    #[must_use]
    pub fn day() -> String {
        let (year, month, day) = civil(yesterday());
        format!("{year:04}-{month:02}-{day:02}")
    }

    /// The day after the call's day, `YYYY-MM-DD`.
    #[must_use]
    pub fn day_after() -> String {
        let (year, month, day) = civil(yesterday() + 1);
        format!("{year:04}-{month:02}-{day:02}")
    }

    /// `time` (`HH:MM:SS`) on the call's day as the 2010 API writes
    /// dates (RFC 2822): `Wed, 25 Nov 2026 10:00:00 +0000`.
    #[must_use]
    pub fn rfc2822(time: &str) -> String {
        rfc2822_of(yesterday(), time)
    }

    /// `time` on a day (days since 1970-01-01) as RFC 2822 writes it.
    pub(super) fn rfc2822_of(days: i64, time: &str) -> String {
        const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let (year, month, day) = civil(days);
        let weekday = DAYS[usize::try_from(days.rem_euclid(7)).unwrap_or(0)];
        let month = MONTHS[usize::try_from(month - 1).unwrap_or(0)];
        format!("{weekday}, {day:02} {month} {year} {time} +0000")
    }

    /// `time` (`HH:MM:SS`) on the call's day as the newer APIs write
    /// dates (ISO 8601): `2026-11-25T10:00:00Z`.
    #[must_use]
    pub fn iso(time: &str) -> String {
        format!("{}T{time}Z", day())
    }

    /// Days since 1970-01-01 of yesterday, in UTC.
    fn yesterday() -> i64 {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        i64::try_from(now / 86_400).unwrap_or(0) - 1
    }

    /// (year, month, day) of a number of days since 1970-01-01.
    fn civil(days: i64) -> (i64, i64, i64) {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        (yoe + era * 400 + i64::from(month <= 2), month, day)
    }
}

/// How the contact center of [`FakePlatform::contact_center`] is broken:
/// one of the failures of the spec's error table, on the platform's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scenario {
    /// Nothing is broken.
    Healthy,
    /// The number's voice URL is an old domain, not the flow's webhook.
    NumberNotOnFlow,
    /// The flow was edited and never published.
    FlowInDraft,
    /// The flow is published but not valid: a widget's webhook URL is
    /// invalid.
    InvalidWidgetUrl,
    /// The workflow routes no task (no filter, no default filter).
    WorkflowDisabled,
    /// The workflow was deleted.
    WorkflowDeleted,
    /// The platform is healthy, but the function is configured with
    /// another environment's workflow ([`center::STAGING_WORKFLOW`]).
    WorkflowOfOtherEnvironment,
    /// The workflow routes callbacks to [`center::OTHER_QUEUE`], not
    /// [`center::QUEUE`].
    QueueMismatch,
    /// Nothing is broken, but the number's voice URL is the flow's
    /// webhook URL with a trailing slash.
    VoiceUrlTrailingSlash,
    /// Nothing is broken; the call came at 23:59:58Z, and the flow's
    /// execution for it is of 23:59:59Z, the day's last second.
    LastSecondOfTheDay,
}

impl Scenario {
    /// Whether the flow ran for the call (it did not when the number is
    /// elsewhere or the flow in draft).
    #[must_use]
    pub fn runs_the_flow(self) -> bool {
        !matches!(self, Scenario::NumberNotOnFlow | Scenario::FlowInDraft)
    }
}

impl FakePlatform {
    /// Sets up the contact center of [`center`], broken as `scenario`
    /// says: the number (and the sales line, one digit away), the flow (a
    /// trigger, then the function widget), the call and its webhook log,
    /// the flow's execution, its steps (each `name` the event, the widgets
    /// in `transitioned_from` and `transitioned_to`) and the step contexts
    /// for the call, the workspace's workflow and queues, the account. A
    /// task the function created is added with [`FakePlatform::with`] and
    /// [`Resource::Tasks`].
    ///
    /// ```
    /// use ccfn_testkit::fake_platform::{center, FakePlatform, Scenario};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakePlatform::start().await.contact_center(Scenario::FlowInDraft);
    /// assert!(fake.requests().is_empty());
    /// assert!(center::flow_webhook().ends_with(center::FLOW));
    /// # });
    /// ```
    #[must_use]
    pub fn contact_center(self, scenario: Scenario) -> Self {
        use center::*;
        let account = format!("/2010-04-01/Accounts/{ACCOUNT_SID}");
        let voice_url = match scenario {
            Scenario::NumberNotOnFlow => OLD_VOICE_URL.to_owned(),
            Scenario::VoiceUrlTrailingSlash => format!("{}/", flow_webhook()),
            _ => flow_webhook(),
        };
        let (status, valid, errors) = match scenario {
            Scenario::FlowInDraft => ("draft", true, json!([])),
            Scenario::InvalidWidgetUrl => (
                "published",
                false,
                json!([{ "message": format!("Widget {WIDGET}: the webhook URL is not a valid URL"), "property_path": "#/states/1/properties/url" }]),
            ),
            _ => ("published", true, json!([])),
        };
        let routing = match scenario {
            Scenario::WorkflowDisabled => json!({ "task_routing": { "filters": [] } }),
            Scenario::QueueMismatch => {
                json!({ "task_routing": { "filters": [], "default_filter": { "queue": OTHER_QUEUE } } })
            }
            _ => json!({ "task_routing": { "filters": [], "default_filter": { "queue": QUEUE } } }),
        };
        let (started, ended, executed) = if scenario == Scenario::LastSecondOfTheDay {
            ("23:59:58", "23:59:59", "23:59:59")
        } else {
            ("10:00:00", "10:00:42", "10:00:01")
        };
        let flow_url = format!("https://studio.twilio.com/v2/Flows/{FLOW}");
        let execution_url = format!("{flow_url}/Executions/{EXECUTION}");
        let mut fake = self
            .with(
                Resource::IncomingPhoneNumbers,
                number(NUMBER_SID, NUMBER, "Main line", &voice_url),
            )
            .with(
                Resource::IncomingPhoneNumbers,
                number(SALES_NUMBER_SID, SALES_NUMBER, "Sales line", OLD_VOICE_URL),
            )
            .with(
                Resource::Flows,
                json!({
                    "sid": FLOW, "account_sid": ACCOUNT_SID, "author_sid": "USd0c70000000000000000000000000001",
                    "friendly_name": "Inbound", "commit_message": "Callback option",
                    "status": status, "valid": valid, "errors": errors, "warnings": [], "revision": 12,
                    "webhook_url": flow_webhook(), "url": flow_url,
                    "date_created": "2026-01-05T09:00:00Z", "date_updated": "2026-11-02T09:00:00Z",
                    "links": { "revisions": format!("{flow_url}/Revisions"), "test_users": format!("{flow_url}/TestUsers"), "executions": format!("{flow_url}/Executions") },
                    "definition": {
                        "description": "Inbound", "initial_state": "Trigger",
                        "flags": { "allow_concurrent_calls": true },
                        "states": [
                            { "name": "Trigger", "type": "trigger", "properties": { "offset": { "x": 0, "y": 0 } }, "transitions": [
                                { "event": "incomingMessage" }, { "event": "incomingCall", "next": WIDGET },
                                { "event": "incomingConversationMessage" }, { "event": "incomingRequest" }, { "event": "incomingParent" },
                            ] },
                            { "name": WIDGET, "type": "run-function", "properties": {
                                "service_sid": "ZSd0c70000000000000000000000000001", "environment_sid": "ZEd0c70000000000000000000000000001",
                                "function_sid": "ZHd0c70000000000000000000000000001", "url": FUNCTION_URL,
                                "parameters": [{ "key": "Digits", "value": "{{widgets.gather.Digits}}" }],
                                "offset": { "x": 0, "y": 200 },
                            }, "transitions": [{ "event": "success" }, { "event": "fail" }] },
                        ],
                    },
                }),
            )
            .with(
                Resource::Calls,
                json!({
                    "sid": CALL, "account_sid": ACCOUNT_SID, "parent_call_sid": null, "api_version": "2010-04-01",
                    "from": CALLER, "from_formatted": "(555) 123-0000", "to": NUMBER, "to_formatted": "(555) 987-0000",
                    "phone_number_sid": NUMBER_SID, "direction": "inbound", "status": "completed",
                    "date_created": rfc2822(started), "date_updated": rfc2822(ended),
                    "start_time": rfc2822(started), "end_time": rfc2822(ended), "duration": "42",
                    "price": "-0.0085", "price_unit": "USD", "answered_by": null, "caller_name": null,
                    "forwarded_from": null, "group_sid": null, "queue_time": "0", "trunk_sid": null,
                    "uri": format!("{account}/Calls/{CALL}.json"),
                    "subresource_uris": {
                        "recordings": format!("{account}/Calls/{CALL}/Recordings.json"),
                        "events": format!("{account}/Calls/{CALL}/Events.json"),
                    },
                }),
            )
            // A call event has no SID in the definitions: the page is
            // served whole, shaped as the 2010 API's pages.
            .with_object(
                format!("{account}/Calls/{CALL}/Events.json"),
                json!({
                    "events": [{
                        "request": {
                            "method": "POST", "url": voice_url,
                            "parameters": { "CallSid": CALL, "From": CALLER, "To": NUMBER, "Direction": "inbound" },
                        },
                        "response": {
                            "response_code": 200, "request_duration": 120, "content_type": "application/xml",
                            "response_body": "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response/>",
                            "headers": { "content-type": "application/xml" },
                        },
                    }],
                    "page": 0, "page_size": 50, "start": 0, "end": 0,
                    "uri": format!("{account}/Calls/{CALL}/Events.json?PageSize=50&Page=0"),
                    "first_page_uri": format!("{account}/Calls/{CALL}/Events.json?PageSize=50&Page=0"),
                    "previous_page_uri": null, "next_page_uri": null,
                }),
            )
            .with_list(Resource::Alerts)
            .with(Resource::Workspaces, workspace(WORKSPACE, WORKSPACE_NAME))
            .with(Resource::Workspaces, workspace(STAGING_WORKSPACE, STAGING_WORKSPACE_NAME))
            .with(
                Resource::Workflows { workspace: STAGING_WORKSPACE.to_owned() },
                workflow(
                    STAGING_WORKSPACE,
                    STAGING_WORKFLOW,
                    "Callbacks (staging)",
                    &json!({ "task_routing": { "filters": [], "default_filter": { "queue": "WQd0c700000000000000000000005a6e01" } } }),
                ),
            )
            .with_list(Resource::Workflows { workspace: WORKSPACE.to_owned() })
            .with(Resource::TaskQueues { workspace: WORKSPACE.to_owned() }, queue(QUEUE, "Callbacks"))
            .with(Resource::TaskQueues { workspace: WORKSPACE.to_owned() }, queue(OTHER_QUEUE, "Sales"))
            .with_list(Resource::Tasks { workspace: WORKSPACE.to_owned() });
        if scenario.runs_the_flow() {
            let steps = Resource::Steps {
                flow: FLOW.to_owned(),
                execution: EXECUTION.to_owned(),
            };
            let step = |sid: &str, event: &str, from: &str, to: &str, kind: &str| {
                json!({
                    "sid": sid, "account_sid": ACCOUNT_SID, "flow_sid": FLOW, "execution_sid": EXECUTION,
                    "parent_step_sid": null, "name": event, "transitioned_from": from, "transitioned_to": to,
                    "type": kind, "context": {},
                    "date_created": iso(executed), "date_updated": iso(executed),
                    "url": format!("{execution_url}/Steps/{sid}"),
                    "links": { "step_context": format!("{execution_url}/Steps/{sid}/Context") },
                })
            };
            let context = |sid: &str, widgets: Value| {
                json!({
                    "account_sid": ACCOUNT_SID, "flow_sid": FLOW, "execution_sid": EXECUTION, "step_sid": sid,
                    "url": format!("{execution_url}/Steps/{sid}/Context"),
                    "context": {
                        "flow": { "flow_sid": FLOW, "sid": EXECUTION, "channel": { "address": NUMBER } },
                        "trigger": { "call": { "CallSid": CALL, "From": CALLER, "To": NUMBER } },
                        "widgets": widgets,
                    },
                })
            };
            fake = fake
                .with(
                    Resource::Executions { flow: FLOW.to_owned() },
                    json!({
                        "sid": EXECUTION, "account_sid": ACCOUNT_SID, "flow_sid": FLOW, "flow_version": 12,
                        "contact_sid": null, "contact_channel_address": CALLER, "initiated_by": CALL,
                        "status": "ended", "context": {},
                        "date_created": iso(executed), "date_updated": iso(executed),
                        "url": execution_url,
                        "links": { "steps": format!("{execution_url}/Steps"), "execution_context": format!("{execution_url}/Context") },
                    }),
                )
                .with(steps.clone(), step(STEP_INTO_WIDGET, "incomingCall", "Trigger", WIDGET, "trigger"))
                .with(steps, step(STEP_OUT_OF_WIDGET, "success", WIDGET, "Ended", "run-function"))
                .with_object(
                    format!("/v2/Flows/{FLOW}/Executions/{EXECUTION}/Steps/{STEP_INTO_WIDGET}/Context"),
                    context(STEP_INTO_WIDGET, json!({})),
                )
                .with_object(
                    format!("/v2/Flows/{FLOW}/Executions/{EXECUTION}/Steps/{STEP_OUT_OF_WIDGET}/Context"),
                    context(STEP_OUT_OF_WIDGET, json!({ WIDGET: { "status_code": 200, "content_type": "application/json", "body": "{}" } })),
                );
        }
        if scenario != Scenario::WorkflowDeleted {
            fake = fake.with(
                Resource::Workflows {
                    workspace: WORKSPACE.to_owned(),
                },
                workflow(WORKSPACE, WORKFLOW, "Callbacks", &routing),
            );
        }
        fake.with_object(
            format!("{account}.json"),
            json!({
                "sid": ACCOUNT_SID, "owner_account_sid": ACCOUNT_SID, "friendly_name": "Contact center",
                "status": "active", "type": "Full", "auth_token": "fake-platform-account-auth-token",
                "date_created": "Mon, 05 Jan 2026 09:00:00 +0000", "date_updated": "Mon, 05 Jan 2026 09:00:00 +0000",
                "uri": format!("{account}.json"), "subresource_uris": { "calls": format!("{account}/Calls.json") },
            }),
        )
    }
}

/// A workflow of `workspace` routing as `routing` says, with every field
/// of its definition.
fn workflow(workspace: &str, sid: &str, name: &str, routing: &Value) -> Value {
    let url = format!("https://taskrouter.twilio.com/v1/Workspaces/{workspace}/Workflows/{sid}");
    json!({
        "sid": sid, "account_sid": ACCOUNT_SID, "workspace_sid": workspace, "friendly_name": name,
        "configuration": routing.to_string(), "document_content_type": "application/json",
        "assignment_callback_url": null, "fallback_assignment_callback_url": null, "task_reservation_timeout": 120,
        "date_created": "2026-01-05T09:00:00Z", "date_updated": "2026-11-02T09:00:00Z",
        "url": url, "links": { "statistics": format!("{url}/Statistics") },
    })
}

/// A task-router workspace of the account, with every field of its
/// definition.
fn workspace(sid: &str, name: &str) -> Value {
    let url = format!("https://taskrouter.twilio.com/v1/Workspaces/{sid}");
    json!({
        "sid": sid, "account_sid": ACCOUNT_SID, "friendly_name": name,
        "date_created": "2026-01-05T09:00:00Z", "date_updated": "2026-11-02T09:00:00Z",
        "default_activity_name": "Offline", "default_activity_sid": "WAd0c70000000000000000000000000001",
        "timeout_activity_name": "Offline", "timeout_activity_sid": "WAd0c70000000000000000000000000001",
        "event_callback_url": null, "events_filter": null, "multi_task_enabled": true,
        "prioritize_queue_order": "FIFO", "url": url,
        "links": { "workflows": format!("{url}/Workflows"), "task_queues": format!("{url}/TaskQueues") },
    })
}

/// A phone number of the account, with every field of its definition.
fn number(sid: &str, phone: &str, name: &str, voice_url: &str) -> Value {
    let account = format!("/2010-04-01/Accounts/{ACCOUNT_SID}");
    json!({
        "sid": sid, "account_sid": ACCOUNT_SID, "phone_number": phone, "friendly_name": name,
        "address_requirements": "none", "address_sid": null, "api_version": "2010-04-01", "beta": false,
        "bundle_sid": null, "capabilities": { "voice": true, "sms": true, "mms": true, "fax": false },
        "date_created": "Mon, 05 Jan 2026 09:00:00 +0000", "date_updated": "Mon, 02 Nov 2026 09:00:00 +0000",
        "emergency_address_sid": null, "emergency_address_status": "unregistered", "emergency_status": "Active",
        "identity_sid": null, "origin": "twilio", "status": "in-use", "type": "local",
        "sms_application_sid": null, "sms_fallback_method": "POST", "sms_fallback_url": null,
        "sms_method": "POST", "sms_url": null, "status_callback": null, "status_callback_method": "POST",
        "trunk_sid": null, "voice_application_sid": null, "voice_caller_id_lookup": false,
        "voice_fallback_method": "POST", "voice_fallback_url": null, "voice_method": "POST",
        "voice_receive_mode": "voice", "voice_url": voice_url,
        "uri": format!("{account}/IncomingPhoneNumbers/{sid}.json"),
    })
}

/// A task queue of the center's workspace, with every field of its
/// definition.
fn queue(sid: &str, name: &str) -> Value {
    let url = format!(
        "https://taskrouter.twilio.com/v1/Workspaces/{}/TaskQueues/{sid}",
        center::WORKSPACE
    );
    json!({
        "sid": sid, "account_sid": ACCOUNT_SID, "workspace_sid": center::WORKSPACE, "friendly_name": name,
        "target_workers": "1==1", "task_order": "FIFO", "max_reserved_workers": 1,
        "assignment_activity_name": null, "assignment_activity_sid": null,
        "reservation_activity_name": null, "reservation_activity_sid": null,
        "date_created": "2026-01-05T09:00:00Z", "date_updated": "2026-11-02T09:00:00Z",
        "url": url, "links": { "statistics": format!("{url}/Statistics") },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-26T12:00:00Z.
    const NOW: i64 = 1_795_694_400;

    fn sids(kept: &[&Value]) -> Vec<String> {
        kept.iter()
            .map(|item| item["sid"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    fn query(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn kept(operation: &str, items: &[Value], pairs: &[(&str, &str)]) -> Vec<String> {
        sids(&select(operation, items, &query(pairs), NOW).unwrap())
    }

    #[test]
    fn dates_parse_as_the_platform_writes_them() {
        assert_eq!(NOW, definitions::instant("2026-11-26T12:00:00Z").unwrap());
        let rfc = definitions::instant("Fri, 20 Nov 2026 10:00:00 +0000").unwrap();
        assert_eq!(Some(rfc), definitions::instant("2026-11-20T10:00:00Z"));
        assert_eq!(Some(rfc), definitions::instant("2026-11-20T05:00:00-05:00"));
        assert_eq!(Some(rfc), definitions::instant("2026-11-20T10:00:00.250Z"));
        assert_eq!(Some(rfc - 36_000), definitions::instant("2026-11-20"));
        for wrong in [
            "2026-02-30",
            "2026-13-01",
            "2026-11-20T24:00:00Z",
            "20 Nov 2026",
            "yesterday",
            "",
        ] {
            assert_eq!(definitions::instant(wrong), None, "{wrong}");
        }
    }

    #[test]
    fn execution_date_bounds_are_from_inclusive_and_to_exclusive_instants() {
        let executions = [
            json!({"sid": "FN1", "status": "ended", "date_created": "2026-11-20T00:00:00Z"}),
            json!({"sid": "FN2", "status": "active", "date_created": "2026-11-20T23:59:59Z"}),
            json!({"sid": "FN3", "status": "ended", "date_created": "2026-11-21T00:00:00Z"}),
        ];
        let day = [
            ("DateCreatedFrom", "2026-11-20T00:00:00Z"),
            ("DateCreatedTo", "2026-11-20T23:59:59Z"),
        ];
        // "starting before this date-time": 23:59:59 itself is out.
        assert_eq!(kept("ListExecution", &executions, &day), ["FN1"]);
        let next_midnight = [
            ("DateCreatedFrom", "2026-11-20T00:00:00Z"),
            ("DateCreatedTo", "2026-11-21T00:00:00Z"),
        ];
        assert_eq!(
            kept("ListExecution", &executions, &next_midnight),
            ["FN1", "FN2"]
        );
        assert_eq!(
            kept("ListExecution", &executions, &[("status", "active")]),
            ["FN2"]
        );
        // `Status` is not the operation's parameter (`status` is): ignored.
        assert_eq!(
            kept("ListExecution", &executions, &[("Status", "active")]).len(),
            3
        );
        let garbage = select(
            "ListExecution",
            &executions,
            &query(&[("DateCreatedTo", "tomorrow")]),
            NOW,
        );
        assert!(garbage.unwrap_err().contains("DateCreatedTo"));
    }

    #[test]
    fn call_times_are_days_on_before_and_on_or_after() {
        let calls = [
            json!({"sid": "CA1", "start_time": "Thu, 19 Nov 2026 23:59:59 +0000", "end_time": null}),
            json!({"sid": "CA2", "start_time": "Fri, 20 Nov 2026 00:00:00 +0000", "end_time": "Fri, 20 Nov 2026 00:01:00 +0000"}),
            json!({"sid": "CA3", "start_time": "Fri, 20 Nov 2026 23:59:59 +0000", "end_time": null}),
            json!({"sid": "CA4", "start_time": "Sat, 21 Nov 2026 00:00:00 +0000", "end_time": null}),
        ];
        assert_eq!(
            kept("ListCall", &calls, &[("StartTime", "2026-11-20")]),
            ["CA2", "CA3"]
        );
        assert_eq!(
            kept("ListCall", &calls, &[("StartTime>", "2026-11-20")]),
            ["CA2", "CA3", "CA4"]
        );
        // "before this date": the day itself is out.
        assert_eq!(
            kept("ListCall", &calls, &[("StartTime<", "2026-11-20")]),
            ["CA1"]
        );
        assert_eq!(
            kept(
                "ListCall",
                &calls,
                &[("StartTime>", "2026-11-20"), ("StartTime<", "2026-11-21")]
            ),
            ["CA2", "CA3"]
        );
        // A call that has not ended has no end time to match.
        assert_eq!(
            kept("ListCall", &calls, &[("EndTime", "2026-11-20")]),
            ["CA2"]
        );
    }

    #[test]
    fn recordings_inequalities_include_the_midnight() {
        let recordings = [
            json!({"sid": "RE1", "date_created": "Fri, 20 Nov 2026 00:00:00 +0000"}),
            json!({"sid": "RE2", "date_created": "Fri, 20 Nov 2026 08:00:00 +0000"}),
        ];
        assert_eq!(
            kept(
                "ListCallRecording",
                &recordings,
                &[("DateCreated<", "2026-11-20")]
            ),
            ["RE1"]
        );
        assert_eq!(
            kept(
                "ListCallRecording",
                &recordings,
                &[("DateCreated>", "2026-11-20")]
            ),
            ["RE1", "RE2"]
        );
        assert_eq!(
            kept(
                "ListCallRecording",
                &recordings,
                &[("DateCreated", "2026-11-20")]
            ),
            ["RE1", "RE2"]
        );
    }

    #[test]
    fn tasks_are_oldest_first_unless_ordering_says_otherwise() {
        let tasks = [
            json!({"sid": "WT2", "priority": 5, "date_created": "2026-11-20T10:00:02Z", "assignment_status": "pending"}),
            json!({"sid": "WT1", "priority": 0, "date_created": "2026-11-20T10:00:01Z", "assignment_status": "canceled"}),
            json!({"sid": "WT3", "priority": 5, "date_created": "2026-11-20T10:00:03Z", "assignment_status": "assigned"}),
        ];
        assert_eq!(kept("ListTask", &tasks, &[]), ["WT1", "WT2", "WT3"]);
        assert_eq!(
            kept("ListTask", &tasks, &[("Ordering", "DateCreated:desc")]),
            ["WT3", "WT2", "WT1"]
        );
        assert_eq!(
            kept(
                "ListTask",
                &tasks,
                &[("Ordering", "Priority:desc,DateCreated:asc")]
            ),
            ["WT2", "WT3", "WT1"]
        );
        assert_eq!(
            kept(
                "ListTask",
                &tasks,
                &[
                    ("AssignmentStatus", "pending"),
                    ("AssignmentStatus", "assigned")
                ]
            ),
            ["WT2", "WT3"]
        );
        assert_eq!(
            kept(
                "ListTask",
                &tasks,
                &[("Priority", "5"), ("Ordering", "DateCreated:desc")]
            ),
            ["WT3", "WT2"]
        );
        for wrong in [
            "DateCreated:asc,VirtualStartTime:desc",
            "Priority",
            "Priority:up",
            "Name:asc",
            "Priority:asc,Priority:desc",
        ] {
            let refused = select("ListTask", &tasks, &query(&[("Ordering", wrong)]), NOW);
            assert!(refused.is_err(), "{wrong}");
        }
    }

    #[test]
    fn task_attributes_expressions_filter_on_the_attributes() {
        let tasks = [
            json!({"sid": "WT1", "date_created": "2026-11-20T10:00:01Z", "attributes": r#"{"type":"callback","call":{"from":"+1555"}}"#}),
            json!({"sid": "WT2", "date_created": "2026-11-20T10:00:02Z", "attributes": r#"{"type":"voicemail"}"#}),
        ];
        let callback = [("EvaluateTaskAttributes", r#"type == "callback""#)];
        assert_eq!(kept("ListTask", &tasks, &callback), ["WT1"]);
        let nested = [(
            "EvaluateTaskAttributes",
            "type != 'voicemail' AND call.from == '+1555'",
        )];
        assert_eq!(kept("ListTask", &tasks, &nested), ["WT1"]);
        let hostile = [("EvaluateTaskAttributes", "type == \"x\" OR 1==1; DROP")];
        assert!(select("ListTask", &tasks, &query(&hostile), NOW).is_err());
    }

    #[test]
    fn phone_numbers_match_partially_with_wildcard_digits() {
        let numbers = [
            json!({"sid": "PN1", "phone_number": "+15559870000", "friendly_name": "Main line", "beta": false}),
            json!({"sid": "PN2", "phone_number": "+15551230000", "friendly_name": "Main", "beta": true}),
        ];
        assert_eq!(
            kept(
                "ListIncomingPhoneNumber",
                &numbers,
                &[("PhoneNumber", "+15559870000")]
            ),
            ["PN1"]
        );
        assert_eq!(
            kept(
                "ListIncomingPhoneNumber",
                &numbers,
                &[("PhoneNumber", "987")]
            ),
            ["PN1"]
        );
        assert_eq!(
            kept(
                "ListIncomingPhoneNumber",
                &numbers,
                &[("PhoneNumber", "555***0000")]
            ),
            ["PN1", "PN2"]
        );
        // `*` is a digit, not anything.
        assert!(kept(
            "ListIncomingPhoneNumber",
            &numbers,
            &[("PhoneNumber", "+*9")]
        )
        .is_empty());
        // `+` sent unencoded in a query is a space: no number has one.
        assert!(kept(
            "ListIncomingPhoneNumber",
            &numbers,
            &[("PhoneNumber", " 15559870000")]
        )
        .is_empty());
        // The friendly name's description says nothing of partial matches.
        assert_eq!(
            kept(
                "ListIncomingPhoneNumber",
                &numbers,
                &[("FriendlyName", "Main")]
            ),
            ["PN2"]
        );
        assert_eq!(
            kept("ListIncomingPhoneNumber", &numbers, &[("Beta", "false")]),
            ["PN1"]
        );
    }

    #[test]
    fn alerts_older_than_30_days_are_refused_and_days_are_whole() {
        let alerts = [
            json!({"sid": "NO1", "log_level": "error", "date_generated": "2026-11-20T23:30:00Z"}),
            json!({"sid": "NO2", "log_level": "warning", "date_generated": "2026-11-21T00:00:00Z", "date_created": "2026-11-20T00:00:00Z"}),
            json!({"sid": "NO3", "log_level": "notice", "date_generated": null, "date_created": "2026-11-22T00:00:00Z"}),
        ];
        assert_eq!(
            kept("ListAlert", &alerts, &[("EndDate", "2026-11-20")]),
            ["NO1"]
        );
        assert!(kept("ListAlert", &alerts, &[("EndDate", "2026-11-20T23:00:00Z")]).is_empty());
        assert_eq!(
            kept(
                "ListAlert",
                &alerts,
                &[("StartDate", "2026-11-21"), ("LogLevel", "warning")]
            ),
            ["NO2"]
        );
        // 30 days before NOW is 2026-10-27.
        assert_eq!(
            kept("ListAlert", &alerts, &[("StartDate", "2026-10-27")]).len(),
            3
        );
        // Without `date_generated`, when it was created.
        assert_eq!(
            kept("ListAlert", &alerts, &[("StartDate", "2026-11-22")]),
            ["NO3"]
        );
        let old = select(
            "ListAlert",
            &alerts,
            &query(&[("StartDate", "2026-10-26T23:59:59Z")]),
            NOW,
        );
        assert!(old.unwrap_err().contains("older than 30 days"));
        let old_end = select(
            "ListAlert",
            &alerts,
            &query(&[("EndDate", "2026-10-01")]),
            NOW,
        );
        assert!(old_end.is_err());
    }

    #[test]
    fn logs_default_to_the_last_day() {
        let logs = [
            json!({"sid": "NO1", "function_sid": "ZH1", "date_created": "2026-11-25T11:00:00Z"}),
            json!({"sid": "NO2", "function_sid": "ZH2", "date_created": "2026-11-25T13:00:00Z"}),
        ];
        assert_eq!(kept("ListLog", &logs, &[]), ["NO2"]);
        assert_eq!(
            kept("ListLog", &logs, &[("StartDate", "2026-11-25T00:00:00Z")]),
            ["NO1", "NO2"]
        );
        assert_eq!(
            kept(
                "ListLog",
                &logs,
                &[
                    ("StartDate", "2026-11-25T00:00:00Z"),
                    ("FunctionSid", "ZH1")
                ]
            ),
            ["NO1"]
        );
        // "after", "before": the bounds themselves are out.
        let exact = [
            ("StartDate", "2026-11-25T11:00:00Z"),
            ("EndDate", "2026-11-25T13:00:00Z"),
        ];
        assert!(kept("ListLog", &logs, &exact).is_empty());
    }

    #[test]
    fn usage_dates_take_offsets_from_today() {
        let usage = [
            json!({"sid": "UR1", "category": "calls", "start_date": "2026-11-01", "end_date": "2026-11-20"}),
            json!({"sid": "UR2", "category": "sms", "start_date": "2026-10-01", "end_date": "2026-10-31"}),
        ];
        assert_eq!(
            kept("ListUsageRecord", &usage, &[("StartDate", "-30days")]),
            ["UR1"]
        );
        assert_eq!(
            kept("ListUsageRecord", &usage, &[("EndDate", "2026-10-31")]),
            ["UR2"]
        );
        assert_eq!(
            kept("ListUsageRecord", &usage, &[("Category", "sms")]),
            ["UR2"]
        );
    }

    #[test]
    fn unknown_parameters_are_ignored_as_the_platform_does() {
        let flows = [
            json!({"sid": "FW1", "status": "draft"}),
            json!({"sid": "FW2", "status": "published"}),
        ];
        assert_eq!(
            kept(
                "ListFlow",
                &flows,
                &[("Status", "draft"), ("\u{1b}[2J", "\u{0}")]
            )
            .len(),
            2
        );
    }

    fn request(method: &str, path: &str, pairs: &[(&str, &str)]) -> FakeRequest {
        FakeRequest {
            method: method.to_owned(),
            path: path.to_owned(),
            query: query(pairs),
            username: None,
            status: 200,
        }
    }

    const FLOW: &str = "FW0123456789abcdef0123456789abcdef";
    const WORKSPACE: &str = "WS0123456789abcdef0123456789abcdef";

    #[test]
    fn conforming_requests_have_no_fault() {
        let account = format!("/2010-04-01/Accounts/{ACCOUNT_SID}");
        let executions = format!("/v2/Flows/{FLOW}/Executions");
        let tasks = format!("/v1/Workspaces/{WORKSPACE}/Tasks");
        let conforming = [
            request(
                "GET",
                &format!("{account}/Calls.json"),
                &[
                    ("StartTime>", "2026-11-20"),
                    ("Status", "failed"),
                    ("PageSize", "1000"),
                ],
            ),
            request("GET", &format!("{account}.json"), &[]),
            request(
                "GET",
                &executions,
                &[
                    ("DateCreatedFrom", "2026-11-20T00:00:00Z"),
                    ("DateCreatedTo", "2026-11-20T23:59:59+01:00"),
                    ("status", "ended"),
                ],
            ),
            request(
                "GET",
                &tasks,
                &[
                    ("AssignmentStatus", "pending"),
                    ("AssignmentStatus", "reserved"),
                    ("Ordering", "DateCreated:desc"),
                    ("Page", "0"),
                ],
            ),
            request(
                "GET",
                "/v1/Alerts",
                &[
                    ("StartDate", "2026-11-20"),
                    ("EndDate", "2026-11-20T10:00:00Z"),
                ],
            ),
            request(
                "GET",
                &format!("{account}/Usage/Records.json"),
                &[("StartDate", "-30days"), ("IncludeSubaccounts", "false")],
            ),
            request(
                "GET",
                &format!("{account}/IncomingPhoneNumbers.json"),
                &[("PhoneNumber", "+1555*")],
            ),
        ];
        for request in conforming {
            assert_eq!(
                request.nonconformities(),
                Vec::<String>::new(),
                "{request:?}"
            );
        }
    }

    #[test]
    fn nonconforming_requests_say_what_is_wrong() {
        let account = format!("/2010-04-01/Accounts/{ACCOUNT_SID}");
        let executions = format!("/v2/Flows/{FLOW}/Executions");
        let cases: [(FakeRequest, &str); 14] = [
            (
                request("GET", "/v2/Flows", &[("Status", "draft")]),
                "\"Status\": ListFlow has no such parameter",
            ),
            (
                request("GET", &executions, &[("Status", "ended")]),
                "ListExecution has no such parameter",
            ),
            (
                request("GET", &executions, &[("status", "running")]),
                "not one of [\"active\",\"ended\"]",
            ),
            (
                request("GET", &executions, &[("DateCreatedTo", "2026-11-20")]),
                "not a date-time",
            ),
            (
                request(
                    "GET",
                    &executions,
                    &[("DateCreatedFrom", "2026-11-20 10:00:00")],
                ),
                "not a date-time",
            ),
            (
                request(
                    "GET",
                    &format!("{account}/Calls.json"),
                    &[("PageSize", "1001")],
                ),
                "above the maximum 1000",
            ),
            (
                request("GET", &format!("{account}/Calls.json"), &[("Page", "-1")]),
                "below the minimum 0",
            ),
            (
                request(
                    "GET",
                    &format!("{account}/Calls.json"),
                    &[("PageSize", "fifty")],
                ),
                "not an integer",
            ),
            (
                request(
                    "GET",
                    &format!("{account}/Calls.json"),
                    &[("Status", "failed"), ("Status", "busy")],
                ),
                "given 2 times",
            ),
            (
                request(
                    "GET",
                    &format!("{account}/Calls.json"),
                    &[("ParentCallSid", "CA1")],
                ),
                "shorter than 34",
            ),
            (
                request("GET", "/v2/Flows/FW0001", &[]),
                "path parameter Sid=\"FW0001\"",
            ),
            (request("GET", "/v2/Flowz", &[]), "no operation"),
            (request("POST", "/v2/Flows", &[]), "POST is a write"),
            (request("PUT", "/v2/Flows", &[]), "has no method PUT"),
        ];
        for (request, why) in cases {
            let faults = request.nonconformities();
            assert_eq!(faults.len(), 1, "{request:?}: {faults:?}");
            assert!(
                faults[0].contains(why),
                "{request:?}: {faults:?} lacks {why}"
            );
        }
    }

    #[test]
    fn hostile_requests_are_reported_not_trusted() {
        // Escapes, NULs, path traversal and a megabyte of value: reported
        // as faults, quoted, without a panic.
        let huge = "A".repeat(1 << 20);
        let hostile = [
            request("GET", "/v2/Flows/..%2F..%2Fetc%2Fpasswd", &[]),
            request("GET", "/v2/Flows", &[("\u{1b}]52;c;aGk=\u{7}", "\u{0}")]),
            request(
                "GET",
                &format!("/v2/Flows/{FLOW}/Executions"),
                &[("status", &huge)],
            ),
            request(
                "GET",
                &format!("/v1/Workspaces/{WORKSPACE}/Tasks"),
                &[("WorkflowSid", "WW\u{202e}0000000000000000000000000000000")],
            ),
        ];
        for request in hostile {
            let faults = request.nonconformities();
            assert_eq!(faults.len(), 1, "{faults:?}");
            let fault = &faults[0];
            assert!(fault.len() < 300, "{fault}");
            assert!(
                !fault.chars().any(|c| c.is_control() || c == '\u{202e}'),
                "{fault:?}"
            );
        }
    }

    #[tokio::test]
    async fn the_fake_records_methods_and_refuses_writes() {
        ccfn_core::http::install_crypto_provider();
        let fake = FakePlatform::start().await.with_list(Resource::Flows);
        let client = reqwest::Client::new();
        let url = format!("{}/v2/Flows", fake.base_url());
        let auth = |request: reqwest::RequestBuilder| {
            request.basic_auth(fake.username(), Some(fake.password()))
        };
        let listed = auth(client.get(&url)).send().await.unwrap();
        assert_eq!(listed.status(), 200);
        let written = auth(client.post(&url)).send().await.unwrap();
        assert_eq!(written.status(), 405);
        let methods: Vec<String> = fake.requests().into_iter().map(|r| r.method).collect();
        assert_eq!(methods, ["GET", "POST"]);
        let faults = fake.unconforming_requests();
        assert_eq!(
            faults,
            ["POST /v2/Flows: POST is a write; ccfn only reads the platform"]
        );
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            fake.assert_requests_conform()
        }));
        assert!(panic.is_err());
    }

    #[tokio::test]
    async fn flows_listed_leave_out_what_only_a_fetched_flow_has() {
        ccfn_core::http::install_crypto_provider();
        let fake = FakePlatform::start().await.with(
            Resource::Flows,
            json!({"sid": FLOW, "status": "published", "revision": 3, "valid": false,
                   "errors": [{"message": "bad url"}], "warnings": [], "definition": {"states": []},
                   "not_in_the_definitions": 1}),
        );
        let get = |path: String| {
            let request = reqwest::Client::new()
                .get(format!("{}{path}", fake.base_url()))
                .basic_auth(fake.username(), Some(fake.password()));
            async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
        };
        let page = get("/v2/Flows".to_owned()).await;
        let listed = &page["flows"][0];
        for field in [
            "definition",
            "valid",
            "errors",
            "warnings",
            "author_sid",
            "links",
        ] {
            assert_eq!(listed[field], Value::Null, "{field}: {listed}");
        }
        assert_eq!(listed["revision"], 3);
        assert!(listed.get("not_in_the_definitions").is_none());
        let fetched = get(format!("/v2/Flows/{FLOW}")).await;
        assert_eq!(fetched["valid"], false);
        assert_eq!(fetched["errors"][0]["message"], "bad url");
        assert_eq!(fetched["definition"], json!({"states": []}));
        assert_eq!(fetched["author_sid"], Value::Null);
        fake.assert_requests_conform();
    }

    #[test]
    fn filter_names_are_the_fields_in_snake_case() {
        assert_eq!(snake_case("Status"), "status");
        assert_eq!(snake_case("AssignmentStatus"), "assignment_status");
        assert_eq!(snake_case("to"), "to");
    }

    /// The fields of a page, sorted.
    fn fields(value: &Value) -> Vec<&str> {
        let mut names: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        names.sort_unstable();
        names
    }

    #[tokio::test]
    async fn pages_have_the_fields_of_the_platform_s_definitions_full_or_empty() {
        let mut state = State {
            origin: "http://127.0.0.1:9".to_owned(),
            username: "AC1".to_owned(),
            password: "pw".to_owned(),
            ..State::default()
        };
        let calls = Resource::Calls.path().0;
        let tasks = Resource::Tasks {
            workspace: "WS1".to_owned(),
        }
        .path()
        .0;
        state.lists.push((
            calls.clone(),
            "calls",
            vec![json!({"sid": "CA1"}), json!({"sid": "CA2"})],
        ));
        state.lists.push((tasks.clone(), "tasks", Vec::new()));
        let creds = ("AC1".to_owned(), "pw".to_owned());
        let page = |state: &mut State, path: &str, size: &str| {
            let query = vec![("PageSize".to_owned(), size.to_owned())];
            let (response, status) = answer(state, path, &query, Some(&creds));
            assert_eq!(status, StatusCode::OK);
            response
        };
        let body = |response: Response| async {
            let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap();
            serde_json::from_slice::<Value>(&bytes).unwrap()
        };
        // The 2010 API: a full first page, then the last.
        let first = body(page(&mut state, &calls, "1")).await;
        assert_eq!(
            fields(&first),
            [
                "calls",
                "end",
                "first_page_uri",
                "next_page_uri",
                "page",
                "page_size",
                "previous_page_uri",
                "start",
                "uri"
            ]
        );
        assert_eq!(first["next_page_uri"], format!("{calls}?PageSize=1&Page=1"));
        assert_eq!(first["previous_page_uri"], Value::Null);
        // The newer APIs: an empty page.
        let empty = body(page(&mut state, &tasks, "50")).await;
        assert_eq!(fields(&empty), ["meta", "tasks"]);
        assert_eq!(
            fields(&empty["meta"]),
            [
                "first_page_url",
                "key",
                "next_page_url",
                "page",
                "page_size",
                "previous_page_url",
                "url"
            ]
        );
        assert_eq!(empty["meta"]["key"], "tasks");
        assert_eq!(empty["meta"]["next_page_url"], Value::Null);
        assert_eq!(empty["tasks"], json!([]));
        // Without credentials: the platform's 401.
        let (response, status) = answer(&mut state, &calls, &[], None);
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        let refused = body(response).await;
        assert_eq!(refused["code"], 20003);
        assert_eq!(fields(&refused), ["code", "message", "more_info", "status"]);
    }

    /// The platform's definitions of the items the fake serves.
    fn definitions() -> Value {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/platform-api/oai-subset.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    /// The schema of the items of `operation` (a list's items, or a
    /// fetch's answer).
    fn schema(definitions: &Value, operation: &str) -> Value {
        let op = definitions["products"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|p| p["operations"].as_array().unwrap())
            .find(|op| op["operationId"] == operation)
            .unwrap_or_else(|| panic!("no {operation}"));
        let response = &op["response"];
        if operation.starts_with("List") {
            for (key, field) in response["properties"].as_object().unwrap() {
                if key != "meta" && field["type"] == "array" {
                    return field["items"].clone();
                }
            }
        }
        response.clone()
    }

    #[tokio::test]
    async fn the_contact_center_s_items_have_every_field_of_their_definitions() {
        let d = definitions();
        for scenario in [Scenario::Healthy, Scenario::LastSecondOfTheDay] {
            let fake = FakePlatform::start().await.contact_center(scenario);
            let state = fake.lock();
            let operation = |path: &str| -> Option<&str> {
                Some(match path {
                    p if p.ends_with("/Calls.json") => "ListCall",
                    p if p.ends_with("/IncomingPhoneNumbers.json") => "ListIncomingPhoneNumber",
                    "/v2/Flows" => "ListFlow",
                    p if p.ends_with("/Executions") => "ListExecution",
                    p if p.ends_with("/Steps") => "ListExecutionStep",
                    p if p.ends_with("/Workflows") => "ListWorkflow",
                    "/v1/Workspaces" => "ListWorkspace",
                    p if p.ends_with("/TaskQueues") => "ListTaskQueue",
                    p if p.ends_with("/Context") => "FetchExecutionStepContext",
                    p if p.ends_with(&format!("{ACCOUNT_SID}.json")) => "FetchAccount",
                    _ => return None,
                })
            };
            let mut items: Vec<(&str, &Value)> = Vec::new();
            for (path, _, list) in &state.lists {
                if let Some(op) = operation(path) {
                    items.extend(list.iter().map(|item| (op, item)));
                }
            }
            for (path, object) in &state.objects {
                if path.ends_with("/Events.json") {
                    let events = object["events"].as_array().unwrap();
                    items.extend(events.iter().map(|item| ("ListCallEvent", item)));
                } else if let Some(op) = operation(path) {
                    items.push((op, object));
                }
            }
            // Every kind of item the contact center serves is checked.
            for op in [
                "ListCall",
                "ListIncomingPhoneNumber",
                "ListFlow",
                "ListExecution",
                "ListExecutionStep",
                "ListWorkflow",
                "ListWorkspace",
                "ListTaskQueue",
                "FetchExecutionStepContext",
                "FetchAccount",
                "ListCallEvent",
            ] {
                assert!(items.iter().any(|(o, _)| *o == op), "no {op} item");
            }
            for (op, item) in items {
                let schema = schema(&d, op);
                let properties = schema["properties"].as_object().unwrap();
                let mut want: Vec<&str> = properties.keys().map(String::as_str).collect();
                let mut have: Vec<&str> = item
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(String::as_str)
                    .collect();
                want.sort_unstable();
                have.sort_unstable();
                assert_eq!(have, want, "{op}: {item}");
                for (name, field) in properties {
                    let value = &item[name];
                    if value.is_null() {
                        assert!(field["nullable"] == true, "{op}.{name} is null");
                        continue;
                    }
                    let text = value.as_str().unwrap_or_default();
                    match field["format"].as_str() {
                        Some("date-time-rfc-2822") => assert!(
                            text.contains(", ") && text.ends_with(" +0000"),
                            "{op}.{name}: {text}"
                        ),
                        Some("date-time") => assert!(
                            text.len() == 20 && text.as_bytes()[10] == b'T' && text.ends_with('Z'),
                            "{op}.{name}: {text}"
                        ),
                        _ => {}
                    }
                    if let Some(allowed) = field["enum"].as_array() {
                        assert!(allowed.contains(value), "{op}.{name}: {value}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_call_s_dates_are_written_as_each_product_writes_them() {
        assert_eq!(
            center::rfc2822_of(20_777, "10:00:00"),
            "Fri, 20 Nov 2026 10:00:00 +0000"
        );
        assert_eq!(
            center::rfc2822_of(19_782, "23:59:59"),
            "Thu, 29 Feb 2024 23:59:59 +0000"
        );
        assert_eq!(
            center::rfc2822_of(0, "00:00:00"),
            "Thu, 01 Jan 1970 00:00:00 +0000"
        );
        let day = center::day();
        assert!(center::iso("23:59:59").starts_with(&day));
        assert!(center::day_after() > day);
    }
}
