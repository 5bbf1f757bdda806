//! A fake task router served over real HTTP on loopback: the parts of the
//! platform's TaskRouter REST API that `ccfn_core::taskrouter` calls, with
//! the answers' real shapes, every request recorded, and knobs to make it
//! fail.
//!
//! | method and path (under `/v1`) | answer |
//! |---|---|
//! | `POST /Workspaces/{ws}/Tasks` | 201, a task as the API answers it (`sid`, `task_queue_sid`, `workflow_sid`, `attributes` as JSON text, `assignment_status: "pending"`...); 400 with the API's error shape for a missing or unknown `WorkflowSid` or attributes that are not a JSON object |
//! | `GET /Workspaces/{ws}/Workflows` | one page (`PageSize`, default 50; `Page`, from 0) with `meta.next_page_url` an absolute URL on the fake, null on the last page |
//! | `GET /Workspaces/{ws}/Workflows/{sid}` | the workflow, 404 when unknown (in that workspace) |
//! | `GET /Workspaces` | one page of the account's workspaces (those added with [`FakeTaskRouter::with_workspace`]; none by default) |
//! | anything else | 404 |
//!
//! Any workspace SID is accepted: a workflow added with
//! [`FakeTaskRouter::with_workflow`] is in every workspace, one added with
//! [`FakeTaskRouter::with_workflow_in`] only in its own. As on the platform, the task's queue is
//! the one the workflow routes to: the default filter's queue, or the
//! first target of the first filter, or none (null).
//!
//! ```
//! use ccfn_core::Secret;
//! use ccfn_core::taskrouter::{NewTask, TaskRouterClient, TaskRouterConfig};
//! use ccfn_testkit::fake_task_router::FakeTaskRouter;
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let fake = FakeTaskRouter::start().await.with_workflow(
//!     "WW0001",
//!     "Callbacks",
//!     json!({ "task_routing": { "filters": [], "default_filter": { "queue": "WQ0001" } } }),
//! );
//! let config = TaskRouterConfig::new("WS0001", "AC0001", Secret::new("fake-auth-token"))
//!     .with_base_url(fake.base_url());
//! let client = TaskRouterClient::new(config).unwrap();
//! let task = client
//!     .create_task(&NewTask::new("WW0001", json!({ "type": "callback" })))
//!     .await
//!     .unwrap();
//! assert_eq!(task.queue_sid.as_deref(), Some("WQ0001"));
//! let requests = fake.requests();
//! assert_eq!(requests[0].path, "/v1/Workspaces/WS0001/Tasks");
//! assert_eq!(requests[0].form_value("Attributes"), Some(r#"{"type":"callback"}"#));
//! assert_eq!(requests[0].password.as_deref(), Some("fake-auth-token"));
//! # });
//! ```

use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State as Shared;
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::{json, Value};

use crate::loopback::{basic_auth, lock, Server};

/// What the fake answers with when nothing else is said.
const ACCOUNT_SID: &str = "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const DATE: &str = "2026-01-01T00:00:00Z";

/// One request the fake received.
///
/// ```
/// use ccfn_testkit::fake_task_router::FakeRequest;
///
/// let request = FakeRequest {
///     method: "POST".into(),
///     path: "/v1/Workspaces/WS1/Tasks".into(),
///     query: vec![],
///     form: vec![("WorkflowSid".into(), "WW1".into())],
///     username: Some("AC1".into()),
///     password: Some("token".into()),
///     traceparent: None,
/// };
/// assert_eq!(request.form_value("WorkflowSid"), Some("WW1"));
/// assert_eq!(request.query_value("Page"), None);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct FakeRequest {
    /// `GET`, `POST`...
    pub method: String,
    /// The path, as sent (percent-encoded).
    pub path: String,
    /// The query parameters, decoded, in order.
    pub query: Vec<(String, String)>,
    /// The form fields of an `application/x-www-form-urlencoded` body,
    /// decoded, in order.
    pub form: Vec<(String, String)>,
    /// The HTTP basic username, when there was one.
    pub username: Option<String>,
    /// The HTTP basic password, when there was one: a test's canary, so
    /// only compare it, never print it where it could be mistaken for a
    /// leak.
    pub password: Option<String>,
    /// The `traceparent` header, when there was one (the trace context
    /// the caller propagates).
    pub traceparent: Option<String>,
}

/// Prints the request without the basic-auth password.
impl std::fmt::Debug for FakeRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeRequest")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("query", &self.query)
            .field("form", &self.form)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "[REDACTED]"))
            .field("traceparent", &self.traceparent)
            .finish()
    }
}

impl FakeRequest {
    /// The first form field `name`.
    #[must_use]
    pub fn form_value(&self, name: &str) -> Option<&str> {
        first(&self.form, name)
    }

    /// The first query parameter `name`.
    #[must_use]
    pub fn query_value(&self, name: &str) -> Option<&str> {
        first(&self.query, name)
    }
}

fn first<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find_map(|(key, value)| (key == name).then_some(value.as_str()))
}

struct FakeWorkflow {
    /// Its workspace; `None`: in every workspace.
    workspace: Option<String>,
    sid: String,
    friendly_name: String,
    configuration: Value,
}

#[derive(Default)]
struct State {
    origin: String,
    workflows: Vec<FakeWorkflow>,
    /// Queue SIDs and their friendly names.
    queue_names: Vec<(String, String)>,
    /// The account's workspaces, SIDs and friendly names, as listed.
    workspaces: Vec<(String, String)>,
    failure: Option<(u16, String)>,
    delay: Duration,
    looping_pages: bool,
    requests: Vec<FakeRequest>,
    tasks: Vec<Value>,
}

/// The fake task router: an HTTP server on `127.0.0.1` (a random port),
/// stopped when dropped.
///
/// ```
/// use ccfn_testkit::fake_task_router::FakeTaskRouter;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let fake = FakeTaskRouter::start().await;
/// assert!(fake.base_url().starts_with("http://127.0.0.1:"));
/// assert!(fake.base_url().ends_with("/v1"));
/// assert!(fake.requests().is_empty());
/// # });
/// ```
pub struct FakeTaskRouter {
    server: Server,
    state: Arc<Mutex<State>>,
}

impl fmt::Debug for FakeTaskRouter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FakeTaskRouter")
            .field("addr", &self.server.addr())
            .finish_non_exhaustive()
    }
}

impl FakeTaskRouter {
    /// Starts the fake on a random port of `127.0.0.1`, with no workflow.
    /// Needs a Tokio runtime.
    ///
    /// # Panics
    /// No loopback port can be bound.
    ///
    /// ```
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakeTaskRouter::start().await;
    /// assert!(fake.addr().ip().is_loopback());
    /// # });
    /// ```
    pub async fn start() -> FakeTaskRouter {
        let state = Arc::new(Mutex::new(State::default()));
        let app = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&state));
        let server = Server::start(app, "the fake task router").await;
        // Its pages link to itself.
        lock(&state).origin = format!("http://{}", server.addr());
        FakeTaskRouter { server, state }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// The fake's address.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// The API's base URL on the fake: `http://127.0.0.1:{port}/v1`, to
    /// use as `TaskRouterConfig::base_url` or `TASKROUTER_BASE_URL`.
    #[must_use]
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.server.addr())
    }

    /// Adds a workflow, answered with `configuration` as JSON text, as the
    /// API does. A workflow of the same SID is replaced.
    ///
    /// ```
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    /// use serde_json::json;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakeTaskRouter::start().await.with_workflow(
    ///     "WW0001",
    ///     "Callbacks",
    ///     json!({ "task_routing": { "filters": [], "default_filter": { "queue": "WQ0001" } } }),
    /// );
    /// assert_eq!(fake.workflow_sids(), ["WW0001"]);
    /// # });
    /// ```
    #[must_use]
    pub fn with_workflow(
        self,
        sid: impl Into<String>,
        friendly_name: impl Into<String>,
        configuration: Value,
    ) -> Self {
        self.add_workflow(None, sid.into(), friendly_name.into(), configuration)
    }

    /// Adds a workflow to workspace `workspace` only (another workspace
    /// answers 404 for it), as [`FakeTaskRouter::with_workflow`] does.
    ///
    /// ```
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    /// use serde_json::json;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakeTaskRouter::start()
    ///     .await
    ///     .with_workspace("WS0002", "Staging")
    ///     .with_workflow_in("WS0002", "WW0002", "Callbacks", json!({ "task_routing": { "filters": [] } }));
    /// assert_eq!(fake.workflow_sids(), ["WW0002"]);
    /// # });
    /// ```
    #[must_use]
    pub fn with_workflow_in(
        self,
        workspace: impl Into<String>,
        sid: impl Into<String>,
        friendly_name: impl Into<String>,
        configuration: Value,
    ) -> Self {
        self.add_workflow(
            Some(workspace.into()),
            sid.into(),
            friendly_name.into(),
            configuration,
        )
    }

    fn add_workflow(
        self,
        workspace: Option<String>,
        sid: String,
        friendly_name: String,
        configuration: Value,
    ) -> Self {
        {
            let mut state = self.lock();
            state.workflows.retain(|w| w.sid != sid);
            state.workflows.push(FakeWorkflow {
                workspace,
                sid,
                friendly_name,
                configuration,
            });
        }
        self
    }

    /// Adds a workspace to the account's list (`GET /v1/Workspaces`), as
    /// the platform lists it. A workspace of the same SID is replaced.
    #[must_use]
    pub fn with_workspace(self, sid: impl Into<String>, friendly_name: impl Into<String>) -> Self {
        let sid = sid.into();
        {
            let mut state = self.lock();
            state.workspaces.retain(|(w, _)| *w != sid);
            state.workspaces.push((sid, friendly_name.into()));
        }
        self
    }

    /// Names queue `sid` `friendly_name`: a task routed to it is answered
    /// with that `task_queue_friendly_name` (an unnamed queue's is
    /// `Queue`).
    ///
    /// ```
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakeTaskRouter::start().await.with_queue("WQ0001", "Callbacks");
    /// # let _ = fake;
    /// # });
    /// ```
    #[must_use]
    pub fn with_queue(self, sid: impl Into<String>, friendly_name: impl Into<String>) -> Self {
        let sid = sid.into();
        {
            let mut state = self.lock();
            state.queue_names.retain(|(queue, _)| *queue != sid);
            state.queue_names.push((sid, friendly_name.into()));
        }
        self
    }

    /// The SIDs of the workflows, in listing order.
    #[must_use]
    pub fn workflow_sids(&self) -> Vec<String> {
        self.lock()
            .workflows
            .iter()
            .map(|w| w.sid.clone())
            .collect()
    }

    /// Disables workflow `sid` the only way the platform can: its routing
    /// configuration becomes `{"task_routing": {"filters": []}}`, no filter
    /// and no default filter, so it cannot route a task.
    ///
    /// ```
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    /// use serde_json::json;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakeTaskRouter::start()
    ///     .await
    ///     .with_workflow("WW0001", "Old", json!({ "task_routing": { "default_filter": { "queue": "WQ1" } } }))
    ///     .disable("WW0001");
    /// # let _ = fake;
    /// # });
    /// ```
    ///
    /// # Panics
    /// No workflow has that SID.
    #[must_use]
    pub fn disable(self, sid: &str) -> Self {
        {
            let mut state = self.lock();
            let workflow = state
                .workflows
                .iter_mut()
                .find(|w| w.sid == sid)
                .unwrap_or_else(|| panic!("the fake task router has no workflow {sid}"));
            workflow.configuration = json!({ "task_routing": { "filters": [] } });
        }
        self
    }

    /// Answers every request with `status` and `body` (JSON when it
    /// parses as JSON, text otherwise), still recording it.
    ///
    /// ```
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakeTaskRouter::start().await.fail_with(
    ///     500,
    ///     r#"{"code": 20500, "message": "Internal Server Error", "status": 500}"#,
    /// );
    /// # let _ = fake;
    /// # });
    /// ```
    #[must_use]
    pub fn fail_with(self, status: u16, body: impl Into<String>) -> Self {
        self.lock().failure = Some((status, body.into()));
        self
    }

    /// Waits `delay` before answering each request.
    ///
    /// ```
    /// use std::time::Duration;
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakeTaskRouter::start().await.delay(Duration::from_millis(20));
    /// # let _ = fake;
    /// # });
    /// ```
    #[must_use]
    pub fn delay(self, delay: Duration) -> Self {
        self.lock().delay = delay;
        self
    }

    /// Answers every page of the workflow list with a `next_page_url`
    /// pointing back at the first page, as a broken platform would.
    ///
    /// ```
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakeTaskRouter::start().await.looping_pages();
    /// # let _ = fake;
    /// # });
    /// ```
    #[must_use]
    pub fn looping_pages(self) -> Self {
        self.lock().looping_pages = true;
        self
    }

    /// Every request received, in order.
    ///
    /// ```
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakeTaskRouter::start().await;
    /// assert!(fake.requests().is_empty());
    /// # });
    /// ```
    #[must_use]
    pub fn requests(&self) -> Vec<FakeRequest> {
        self.lock().requests.clone()
    }

    /// Every task created, as answered.
    ///
    /// ```
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakeTaskRouter::start().await;
    /// assert!(fake.tasks().is_empty());
    /// # });
    /// ```
    #[must_use]
    pub fn tasks(&self) -> Vec<Value> {
        self.lock().tasks.clone()
    }
}

async fn handle(
    Shared(state): Shared<Arc<Mutex<State>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let is_form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    let (username, password) = basic_auth(&headers);
    let request = FakeRequest {
        method: method.as_str().to_owned(),
        path: uri.path().to_owned(),
        query: uri.query().map(decode_pairs).unwrap_or_default(),
        form: if is_form {
            decode_pairs(&String::from_utf8_lossy(&body))
        } else {
            Vec::new()
        },
        username,
        password,
        traceparent: headers
            .get("traceparent")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
    };
    let delay = {
        let mut state = lock(&state);
        state.requests.push(request.clone());
        state.delay
    };
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let mut state = lock(&state);
    if let Some((status, body)) = state.failure.clone() {
        let content_type = if serde_json::from_str::<Value>(&body).is_ok() {
            "application/json"
        } else {
            "text/plain"
        };
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        return (status, [(header::CONTENT_TYPE, content_type)], body).into_response();
    }
    let segments: Vec<String> = request
        .path
        .trim_matches('/')
        .split('/')
        .map(decode)
        .collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    match (method.as_str(), segments.as_slice()) {
        ("POST", ["v1", "Workspaces", workspace, "Tasks"]) => {
            create_task(&mut state, workspace, &request)
        }
        ("GET", ["v1", "Workspaces", workspace, "Workflows"]) => {
            list_workflows(&state, workspace, &request)
        }
        ("GET", ["v1", "Workspaces"]) => list_workspaces(&state, &request),
        ("GET", ["v1", "Workspaces", workspace, "Workflows", sid]) => {
            match state
                .workflows
                .iter()
                .find(|w| w.sid == *sid && w.is_in(workspace))
            {
                Some(workflow) => answer(
                    StatusCode::OK,
                    workflow_json(&state.origin, workspace, workflow),
                ),
                None => not_found(&request.path),
            }
        }
        _ => not_found(&request.path),
    }
}

fn answer(status: StatusCode, body: Value) -> Response {
    (status, axum::Json(body)).into_response()
}

/// The API's error shape.
fn api_error(status: StatusCode, code: u32, message: &str) -> Response {
    answer(
        status,
        json!({
            "code": code,
            "message": message,
            "more_info": format!("https://www.twilio.com/docs/errors/{code}"),
            "status": status.as_u16(),
        }),
    )
}

fn not_found(path: &str) -> Response {
    api_error(
        StatusCode::NOT_FOUND,
        20404,
        &format!("The requested resource {path} was not found"),
    )
}

fn create_task(state: &mut State, workspace: &str, request: &FakeRequest) -> Response {
    let Some(workflow_sid) = request.form_value("WorkflowSid") else {
        return api_error(
            StatusCode::BAD_REQUEST,
            20001,
            "Missing required parameter WorkflowSid in the post body",
        );
    };
    let Some(workflow) = state
        .workflows
        .iter()
        .find(|w| w.sid == workflow_sid && w.is_in(workspace))
    else {
        return api_error(
            StatusCode::BAD_REQUEST,
            20001,
            &format!("Invalid WorkflowSid: {workflow_sid} not found in workspace"),
        );
    };
    let attributes = request.form_value("Attributes").unwrap_or("{}");
    if !serde_json::from_str::<Value>(attributes).is_ok_and(|v| v.is_object()) {
        return api_error(
            StatusCode::BAD_REQUEST,
            20001,
            "Attributes must be a valid JSON object",
        );
    }
    let routing = &workflow.configuration["task_routing"];
    let queue = routing["default_filter"]["queue"]
        .as_str()
        .or_else(|| routing["filters"][0]["targets"][0]["queue"].as_str());
    let number = |name: &str, default: u64| {
        request
            .form_value(name)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(default)
    };
    let sid = format!("WT{:032x}", state.tasks.len() + 1);
    let task = json!({
        "account_sid": ACCOUNT_SID,
        "age": 0,
        "assignment_status": "pending",
        "attributes": attributes,
        "addons": "{}",
        "date_created": DATE,
        "date_updated": DATE,
        "task_queue_entered_date": if queue.is_some() { json!(DATE) } else { Value::Null },
        "priority": number("Priority", 0),
        "reason": null,
        "sid": sid,
        "task_queue_sid": queue,
        "task_queue_friendly_name": queue.map(|queue| {
            state
                .queue_names
                .iter()
                .find(|(sid, _)| sid == queue)
                .map_or("Queue", |(_, name)| name.as_str())
        }),
        "task_channel_sid": null,
        "task_channel_unique_name": request.form_value("TaskChannel").unwrap_or("default"),
        "timeout": number("Timeout", 86_400),
        "workflow_sid": workflow.sid,
        "workflow_friendly_name": workflow.friendly_name,
        "workspace_sid": workspace,
        "url": format!("{}/v1/Workspaces/{workspace}/Tasks/{sid}", state.origin),
        "links": {},
    });
    state.tasks.push(task.clone());
    answer(StatusCode::CREATED, task)
}

fn list_workflows(state: &State, workspace: &str, request: &FakeRequest) -> Response {
    let size = request
        .query_value("PageSize")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(50)
        .clamp(1, 1000);
    let page = request
        .query_value("Page")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(0);
    let page_url = |page: usize| {
        format!(
            "{}/v1/Workspaces/{workspace}/Workflows?PageSize={size}&Page={page}",
            state.origin
        )
    };
    let listed: Vec<&FakeWorkflow> = state
        .workflows
        .iter()
        .filter(|w| w.is_in(workspace))
        .collect();
    let workflows: Vec<Value> = listed
        .iter()
        .skip(page.saturating_mul(size))
        .take(size)
        .map(|w| workflow_json(&state.origin, workspace, w))
        .collect();
    let more = listed.len() > (page + 1).saturating_mul(size);
    let next = if state.looping_pages {
        json!(page_url(0))
    } else if more {
        json!(page_url(page + 1))
    } else {
        Value::Null
    };
    answer(
        StatusCode::OK,
        json!({
            "workflows": workflows,
            "meta": {
                "page": page,
                "page_size": size,
                "first_page_url": page_url(0),
                "previous_page_url": if page > 0 { json!(page_url(page - 1)) } else { Value::Null },
                "url": page_url(page),
                "next_page_url": next,
                "key": "workflows",
            },
        }),
    )
}

impl FakeWorkflow {
    /// Whether workspace `workspace` has it.
    fn is_in(&self, workspace: &str) -> bool {
        self.workspace.as_deref().is_none_or(|own| own == workspace)
    }
}

/// The account's workspaces, one page of the shape the platform's
/// definitions give (`ListWorkspace`): every workspace the fake was given.
fn list_workspaces(state: &State, request: &FakeRequest) -> Response {
    let size = request
        .query_value("PageSize")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(50)
        .clamp(1, 1000);
    let url = format!("{}/v1/Workspaces?PageSize={size}&Page=0", state.origin);
    let workspaces: Vec<Value> = state
        .workspaces
        .iter()
        .take(size)
        .map(|(sid, name)| {
            let url = format!("{}/v1/Workspaces/{sid}", state.origin);
            json!({
                "account_sid": ACCOUNT_SID,
                "date_created": DATE,
                "date_updated": DATE,
                "default_activity_name": "Offline",
                "default_activity_sid": null,
                "event_callback_url": null,
                "events_filter": null,
                "friendly_name": name,
                "multi_task_enabled": true,
                "prioritize_queue_order": "FIFO",
                "sid": sid,
                "timeout_activity_name": "Offline",
                "timeout_activity_sid": null,
                "url": url,
                "links": {},
            })
        })
        .collect();
    answer(
        StatusCode::OK,
        json!({
            "workspaces": workspaces,
            "meta": {
                "page": 0,
                "page_size": size,
                "first_page_url": url,
                "previous_page_url": null,
                "url": url,
                "next_page_url": null,
                "key": "workspaces",
            },
        }),
    )
}

fn workflow_json(origin: &str, workspace: &str, workflow: &FakeWorkflow) -> Value {
    json!({
        "account_sid": ACCOUNT_SID,
        "assignment_callback_url": null,
        "configuration": workflow.configuration.to_string(),
        "date_created": DATE,
        "date_updated": DATE,
        "document_content_type": "application/json",
        "fallback_assignment_callback_url": null,
        "friendly_name": workflow.friendly_name,
        "sid": workflow.sid,
        "task_reservation_timeout": 120,
        "url": format!("{origin}/v1/Workspaces/{workspace}/Workflows/{}", workflow.sid),
        "workspace_sid": workspace,
        "links": {},
    })
}

/// `a=1&b=x+y` decoded, in order.
fn decode_pairs(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(key), decode(value))
        })
        .collect()
}

/// Percent-decoding, `+` as a space.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(high), Some(low)) => {
                    out.push(high << 4 | low);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(byte: u8) -> Option<u8> {
    (byte as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding() {
        assert_eq!(decode("%2B1555+x%7B%22a%22%7D"), "+1555 x{\"a\"}");
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%4"), "%4");
        assert_eq!(
            decode_pairs("a=1&b=&c"),
            [
                ("a".into(), "1".into()),
                ("b".into(), String::new()),
                ("c".into(), String::new())
            ]
        );
    }
}
