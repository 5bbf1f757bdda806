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
//! - `PageSize` (default 50, at most 1 000) and `Page` (from 0) page the
//!   list; any other query parameter filters it on the item's field of
//!   the same name in snake case (`Status=failed` keeps the items whose
//!   `status` is `failed`); `Name>` and `Name<` keep the items of that day
//!   or after, or before (`StartTime>=2026-11-20`), and `StartDate` and
//!   `EndDate` (`DateCreatedFrom` and `DateCreatedTo`) do the same on
//!   `date_created`.
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
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::{json, Value};

use crate::loopback::{basic_auth, lock, Server};

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
    /// The path, as sent.
    pub path: String,
    /// The query parameters, decoded, in order.
    pub query: Vec<(String, String)>,
    /// The basic-auth username, when there was one.
    pub username: Option<String>,
    /// The status the fake answered with.
    pub status: u16,
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

    /// The requests received so far, in order.
    #[must_use]
    pub fn requests(&self) -> Vec<FakeRequest> {
        self.lock().requests.clone()
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
    let (response, status) = answer(&mut state, &path, &query, credentials.as_ref());
    state.requests.push(FakeRequest {
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
    if let Some((_, object)) = state.objects.iter().find(|(p, _)| p == path) {
        return (axum::Json(object.clone()).into_response(), StatusCode::OK);
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
    let filters: Vec<(String, &str)> = query
        .iter()
        .filter(|(name, _)| !matches!(name.as_str(), "PageSize" | "Page" | "PageToken"))
        .map(|(name, value)| {
            // The newer APIs' date range, on the item's creation date.
            let field = match name.as_str() {
                "StartDate" | "DateCreatedFrom" => "date_created>".to_owned(),
                "EndDate" | "DateCreatedTo" => "date_created<".to_owned(),
                _ => snake_case(name),
            };
            (field, value.as_str())
        })
        .collect();
    let kept: Vec<&Value> = items
        .iter()
        .filter(|item| {
            filters
                .iter()
                .all(|(field, value)| keeps(item, field, value))
        })
        .collect();
    let start = (page * size).min(kept.len());
    let end = (start + size).min(kept.len());
    let items: Vec<Value> = kept[start..end]
        .iter()
        .map(|item| (*item).clone())
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
    state
        .objects
        .iter()
        .any(|(p, _)| *p == parent)
        .then(|| snake_case(last))
}

/// Whether `item` passes the filter `field=value`: equal, or for `field>`
/// and `field<` (dates, as `StartTime>=2026-11-20` asks), on or after and
/// on or before the day.
fn keeps(item: &Value, field: &str, value: &str) -> bool {
    let (field, order) = match field.strip_suffix('>') {
        Some(field) => (field, Some(std::cmp::Ordering::Greater)),
        None => match field.strip_suffix('<') {
            Some(field) => (field, Some(std::cmp::Ordering::Less)),
            None => (field, None),
        },
    };
    match (&item[field], order) {
        (Value::String(text), None) => text == value,
        (Value::Null, _) => false,
        (Value::String(text), Some(order)) => {
            let bound = day(value).unwrap_or_else(|| value.to_owned());
            day(text).is_some_and(|day| day.cmp(&bound) != order.reverse())
        }
        (other, None) => value.parse::<Value>().is_ok_and(|parsed| parsed == *other),
        (_, Some(_)) => false,
    }
}

/// `YYYY-MM-DD` of an RFC 2822 date (`Tue, 10 Aug 2010 08:02:17 +0000`,
/// as the 2010 API writes them) or of an ISO 8601 one.
fn day(date: &str) -> Option<String> {
    if date.len() >= 10 && date.as_bytes()[4] == b'-' {
        return Some(date[..10].to_owned());
    }
    let parts: Vec<&str> = date.split_whitespace().collect();
    let [_, d, month, year, ..] = parts[..] else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let m = MONTHS.iter().position(|name| *name == month)? + 1;
    Some(format!("{year}-{m:02}-{:02}", d.parse::<u32>().ok()?))
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
    /// The workflow callbacks are created in.
    pub const WORKFLOW: &str = "WWd0c70000000000000000000000000001";
    /// Another environment's workflow (staging's), unknown here.
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
            let url = format!(
                "https://taskrouter.twilio.com/v1/Workspaces/{WORKSPACE}/Workflows/{WORKFLOW}"
            );
            fake = fake.with(
                Resource::Workflows {
                    workspace: WORKSPACE.to_owned(),
                },
                json!({
                    "sid": WORKFLOW, "account_sid": ACCOUNT_SID, "workspace_sid": WORKSPACE, "friendly_name": "Callbacks",
                    "configuration": routing.to_string(), "document_content_type": "application/json",
                    "assignment_callback_url": null, "fallback_assignment_callback_url": null, "task_reservation_timeout": 120,
                    "date_created": "2026-01-05T09:00:00Z", "date_updated": "2026-11-02T09:00:00Z",
                    "url": url, "links": { "statistics": format!("{url}/Statistics") },
                }),
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

    #[test]
    fn date_filters_compare_days() {
        let call = json!({"start_time": "Tue, 10 Aug 2010 08:02:17 +0000", "status": "failed"});
        assert!(keeps(&call, "start_time>", "2010-08-10"));
        assert!(keeps(&call, "start_time>", "2010-08-01"));
        assert!(!keeps(&call, "start_time>", "2010-08-11"));
        assert!(keeps(&call, "start_time<", "2010-08-10"));
        assert!(!keeps(&call, "start_time<", "2010-08-09"));
        assert!(keeps(&call, "status", "failed"));
        assert!(!keeps(&call, "status", "completed"));
        assert!(!keeps(&call, "missing", "x"));
        assert_eq!(day("2026-11-20T10:00:00Z").as_deref(), Some("2026-11-20"));
        let log = json!({"date_created": "2026-11-20T10:00:00Z"});
        assert!(keeps(&log, "date_created>", "2026-11-20T00:00:00Z"));
        assert!(!keeps(&log, "date_created>", "2026-11-21T00:00:00Z"));
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
