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
//!     .with_base_url(fake.url());
//! let client = TaskRouterClient::new(config).unwrap();
//! let task = client
//!     .create_task(&NewTask::new("WW0001", json!({ "type": "callback" })))
//!     .await
//!     .unwrap();
//! assert_eq!(task.queue_sid.as_deref(), Some("WQ0001"));
//! let requests = fake.requests();
//! assert_eq!(requests[0].path(), "/v1/Workspaces/WS0001/Tasks");
//! assert_eq!(requests[0].form("Attributes").as_deref(), Some(r#"{"type":"callback"}"#));
//! assert_eq!(requests[0].password().as_deref(), Some("fake-auth-token"));
//! # });
//! ```

use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::{json, Value};

use crate::loopback::{answer, lock, read, record, verify, Book, Server};
use crate::{FakeResponse, Request};

/// The largest request body the fake reads.
const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// What the fake answers with when nothing else is said.
const ACCOUNT_SID: &str = "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const DATE: &str = "2026-01-01T00:00:00Z";

struct FakeWorkflow {
    /// Its workspace; `None`: in every workspace.
    workspace: Option<String>,
    sid: String,
    friendly_name: String,
    configuration: Value,
}

#[derive(Default)]
struct Setup {
    origin: String,
    workflows: Vec<FakeWorkflow>,
    /// Queue SIDs and their friendly names.
    queue_names: Vec<(String, String)>,
    /// The account's workspaces, SIDs and friendly names, as listed.
    workspaces: Vec<(String, String)>,
    looping_pages: bool,
    tasks: Vec<Value>,
}

#[derive(Default)]
struct Shared {
    book: Mutex<Book>,
    state: Mutex<Setup>,
}

/// The fake task router: an HTTP server on `127.0.0.1` (a random port),
/// stopped when dropped.
///
/// ```
/// use ccfn_testkit::fake_task_router::FakeTaskRouter;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let fake = FakeTaskRouter::start().await;
/// assert!(fake.url().starts_with("http://127.0.0.1:"));
/// assert!(fake.url().ends_with("/v1"));
/// assert!(fake.requests().is_empty());
/// # });
/// ```
pub struct FakeTaskRouter {
    server: Server,
    shared: Arc<Shared>,
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
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&shared));
        let server = Server::start(app, "the fake task router").await;
        // Its pages link to itself.
        lock(&shared.state).origin = format!("http://{}", server.addr());
        FakeTaskRouter { server, shared }
    }

    fn lock(&self) -> MutexGuard<'_, Setup> {
        lock(&self.shared.state)
    }

    /// The fake's address.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// The API's base URL on the fake: `http://127.0.0.1:{port}/v1`, to
    /// use as `TaskRouterConfig::base_url` or `TASKROUTER_BASE_URL`.
    #[must_use]
    pub fn url(&self) -> String {
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

    /// Answers the following requests with `answer` instead of the
    /// API's (as many as [`FakeResponse::times`] says, or all), still
    /// recording them.
    ///
    /// ```
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    /// use ccfn_testkit::FakeResponse;
    /// use serde_json::json;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakeTaskRouter::start().await;
    /// fake.fail_with(FakeResponse::status(500).json(
    ///     json!({ "code": 20500, "message": "Internal Server Error", "status": 500 }),
    /// ));
    /// # });
    /// ```
    pub fn fail_with(&self, answer: FakeResponse) -> &Self {
        lock(&self.shared.book).fail_with(answer);
        self
    }

    /// Waits `delay` before each of the API's answers.
    ///
    /// ```
    /// use std::time::Duration;
    /// use ccfn_testkit::fake_task_router::FakeTaskRouter;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let fake = FakeTaskRouter::start().await;
    /// fake.delay(Duration::from_millis(20));
    /// # });
    /// ```
    pub fn delay(&self, delay: Duration) -> &Self {
        lock(&self.shared.book).set_delay(delay);
        self
    }

    /// Expects exactly `count` requests in all: checked when the fake is
    /// dropped (unless the test is already panicking) and by
    /// [`FakeTaskRouter::verify`].
    pub fn expect(&self, count: usize) -> &Self {
        lock(&self.shared.book).expect(count);
        self
    }

    /// Checks the count set by [`FakeTaskRouter::expect`] now.
    ///
    /// # Panics
    /// The fake received another number of requests; the message lists
    /// what it received.
    #[track_caller]
    pub fn verify(&self) {
        let problems: Vec<String> = lock(&self.shared.book).unmet().into_iter().collect();
        verify(
            "the fake task router",
            &self.url(),
            &problems,
            &self.requests(),
        );
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
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.shared.book).requests()
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

impl Drop for FakeTaskRouter {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.verify();
        }
    }
}

async fn handle(State(shared): State<Arc<Shared>>, request: axum::extract::Request) -> Response {
    let (parts, body) = match read(request, MAX_REQUEST_BYTES).await {
        Ok(read) => read,
        Err(too_large) => return too_large,
    };
    let recorded = record(&parts, body);
    let own = Arc::clone(&shared);
    answer(&shared.book, recorded, move |request| async move {
        route(&mut lock(&own.state), &request)
    })
    .await
}

/// The API's answer to `request`.
fn route(state: &mut Setup, request: &Request) -> Response {
    let segments: Vec<String> = request
        .path()
        .trim_matches('/')
        .split('/')
        .map(percent_decode)
        .collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    match (request.method(), segments.as_slice()) {
        ("POST", ["v1", "Workspaces", workspace, "Tasks"]) => {
            create_task(state, workspace, request)
        }
        ("GET", ["v1", "Workspaces", workspace, "Workflows"]) => {
            list_workflows(state, workspace, request)
        }
        ("GET", ["v1", "Workspaces"]) => list_workspaces(state, request),
        ("GET", ["v1", "Workspaces", workspace, "Workflows", sid]) => {
            match state
                .workflows
                .iter()
                .find(|w| w.sid == *sid && w.is_in(workspace))
            {
                Some(workflow) => answer_json(
                    StatusCode::OK,
                    workflow_json(&state.origin, workspace, workflow),
                ),
                None => not_found(request.path()),
            }
        }
        _ => not_found(request.path()),
    }
}

fn answer_json(status: StatusCode, body: Value) -> Response {
    (status, axum::Json(body)).into_response()
}

/// The API's error shape.
fn api_error(status: StatusCode, code: u32, message: &str) -> Response {
    answer_json(
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

fn create_task(state: &mut Setup, workspace: &str, request: &Request) -> Response {
    let Some(workflow_sid) = request.form("WorkflowSid") else {
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
    let attributes = request
        .form("Attributes")
        .unwrap_or_else(|| "{}".to_owned());
    if !serde_json::from_str::<Value>(&attributes).is_ok_and(|v| v.is_object()) {
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
            .form(name)
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
        "task_channel_unique_name": request.form("TaskChannel").unwrap_or_else(|| "default".to_owned()),
        "timeout": number("Timeout", 86_400),
        "workflow_sid": workflow.sid,
        "workflow_friendly_name": workflow.friendly_name,
        "workspace_sid": workspace,
        "url": format!("{}/v1/Workspaces/{workspace}/Tasks/{sid}", state.origin),
        "links": {},
    });
    state.tasks.push(task.clone());
    answer_json(StatusCode::CREATED, task)
}

fn list_workflows(state: &Setup, workspace: &str, request: &Request) -> Response {
    let size = request
        .query("PageSize")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(50)
        .clamp(1, 1000);
    let page = request
        .query("Page")
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
    answer_json(
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
fn list_workspaces(state: &Setup, request: &Request) -> Response {
    let size = request
        .query("PageSize")
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
    answer_json(
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

/// A path segment, percent-decoded (`+` stays a plus).
fn percent_decode(segment: &str) -> String {
    form_urlencoded::parse(format!("s={}", segment.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_percent_decoded() {
        assert_eq!(percent_decode("WS%201"), "WS 1");
        assert_eq!(percent_decode("a+b"), "a+b");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%4"), "%4");
    }
}
