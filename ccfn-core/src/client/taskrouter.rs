//! The task router: create tasks in a task-routing workspace through the
//! platform's TaskRouter REST API, look workflows up and check that they
//! can take tasks, and, with no credentials configured, an embedded task
//! store that records the tasks a local run would create.
//!
//! # What a task creation logs
//!
//! [`TaskRouterClient::create_task`] writes, in order:
//!
//! | step | level | fields |
//! |---|---|---|
//! | `workflow` | INFO | `workflow_sid` |
//! | `task_attributes` | INFO | `attributes` (an object; members of a sensitive name redacted, here and in `critical`) |
//! | `api_request` | INFO | `method`, `url`, `headers` (authorization redacted), `request_bytes` |
//! | `auth` | INFO | `authenticated`, `token_type` (`basic`), `expires_at` (null) |
//! | `api_response` | INFO (WARN when not 2xx) | `status`, `ok`, `content_type`, `response_bytes`, `data`, `elapsed_ms` |
//! | `critical` | INFO, target `ccfn::critical` | `task_sid`, `queue_sid`, `workflow_sid`, `attributes` |
//!
//! The `critical` record is the spec's critical event (the task creation
//! result): it is written whatever the log filter says. [`TaskStore`]
//! writes the same records but the three HTTP ones.
//!
//! # When the option cannot be served
//!
//! Every [`TaskRouterError`] means the same thing to the caller, "Option
//! not available at this time" ([`TaskRouterError::caller_message`]), and
//! something precise to the operator: its `Display` and
//! [`TaskRouterError::cause`] name the spec's cause (workflow not found, as
//! when its identifier is for another environment; disabled; deleted;
//! queue mismatch; lookup failure). [`TaskRouterError::log`] writes it as a
//! `task_error` record.
//!
//! ```
//! use ccfn_core::prelude::*;
//! use ccfn_core::taskrouter::{NewTask, TaskRouterError};
//!
//! /// Offers the caller a callback: creates a callback task.
//! ///
//! /// # Trigger
//! /// Studio "Run Function" widget, `mode=callback`.
//! /// # Dependencies
//! /// Task router.
//! /// # Critical logging
//! /// Task creation result.
//! /// # Contacts
//! /// contact-center-oncall@example.com
//! #[contact_fn(required = [CallSid, From, To], env = [PLATFORM_WORKSPACE_SID, workflowSid])]
//! async fn callback_task(context: Context, event: Event, callback: Callback) -> Result<Completion, Error> {
//!     let router = context.task_router()?;
//!     let workflow_sid = context.get("workflowSid").unwrap_or_default();
//!     let attributes = serde_json::json!({
//!         "type": "callback",
//!         "from": event.from(),
//!         "call_sid": event.call_sid(),
//!     });
//!     let mut twiml = VoiceResponse::new();
//!     let created = match router.active_workflow(workflow_sid).await {
//!         Ok(workflow) => router.create_task(&NewTask::new(&workflow.sid, attributes)).await,
//!         Err(error) => Err(error),
//!     };
//!     match created {
//!         Ok(_task) => twiml.say("We will call you back."),
//!         Err(error) => {
//!             error.log();
//!             twiml.say(TaskRouterError::caller_message())
//!         }
//!     };
//!     Ok(callback.success(twiml))
//! }
//!
//! assert_eq!(callback_task::META.name(), "callback-task");
//! ```

use std::collections::HashSet;
use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::client::http::{sanitize_url, ApiResponse, HttpClient, HttpConfig};
use crate::config;
use crate::error::Error;
use crate::error::ErrorKind;
use crate::function::context::Context;
use crate::record::emit::{emit, emit_critical};
use crate::secret::Secret;

/// The platform's TaskRouter REST API.
pub const DEFAULT_BASE_URL: &str = "https://taskrouter.twilio.com/v1";

/// Where [`TaskRouter::from_context`] keeps local tasks when
/// `CCFN_TASK_STORE` is not set (relative to the working directory).
pub const DEFAULT_TASK_STORE: &str = ".ccfn/tasks.jsonl";

/// What the caller hears when a voicemail or callback option cannot be
/// served, whatever the cause (spec, Errors).
pub const CALLER_MESSAGE: &str = "Option not available at this time";

/// The members the TaskRouter API answers as JSON *text* (strings in its
/// published definitions that hold JSON): a task's `attributes` ("The JSON
/// string with custom attributes of the work") and `addons` ("An object
/// that contains the Add-on data", a string), and a workflow's
/// `configuration` ("A JSON string that contains the Workflow's
/// configuration"). Every call of the client logs them in `api_response`
/// as the objects they hold
/// ([`crate::http::ApiRequest::json_text_fields`]).
pub const JSON_TEXT_FIELDS: &[&str] = &["attributes", "addons", "configuration"];

/// How many workflows [`TaskRouterClient::list_workflows`] asks for per
/// page.
pub const WORKFLOW_PAGE_SIZE: u32 = 50;

/// How many pages [`TaskRouterClient::list_workflows`] reads at most
/// (5,000 workflows) before it gives up: a guard against a platform that
/// pages forever.
pub const MAX_WORKFLOW_PAGES: usize = 100;

/// How many other workspaces of the account are asked for a workflow this
/// workspace answers 404 for, at most (the first page of the account's
/// workspaces, this many of them): each is one request, within the
/// function's time.
pub const MAX_OTHER_WORKSPACES: usize = 20;

/// Where and how to reach the TaskRouter REST API.
///
/// The password is the account's auth token (username: the account SID)
/// or an API key's secret (username: the API key SID); it is held as a
/// [`Secret`] and never logged. The username is not secret.
///
/// ```
/// use ccfn_core::Secret;
/// use ccfn_core::taskrouter::{TaskRouterConfig, DEFAULT_BASE_URL};
///
/// let config = TaskRouterConfig::new(
///     "WSaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
///     "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
///     Secret::new("auth-token-canary"),
/// );
/// assert_eq!(config.base_url, DEFAULT_BASE_URL);
/// assert!(!format!("{config:?}").contains("auth-token-canary"));
/// let local = config.with_base_url("http://127.0.0.1:8080/v1");
/// assert_eq!(local.base_url, "http://127.0.0.1:8080/v1");
/// ```
#[derive(Clone, Debug)]
pub struct TaskRouterConfig {
    /// The API's base URL, with its version (default [`DEFAULT_BASE_URL`]).
    pub base_url: String,
    /// The workspace tasks are created in (`WS...`).
    pub workspace_sid: String,
    /// HTTP basic username: the account SID or the API key SID.
    pub username: String,
    /// HTTP basic password: the auth token or the API key secret.
    pub password: Secret,
    /// Timeouts and the slow-response alert threshold.
    pub http: HttpConfig,
}

impl TaskRouterConfig {
    /// The configuration of `workspace_sid` with these credentials, the
    /// default base URL and the default HTTP configuration.
    pub fn new(
        workspace_sid: impl Into<String>,
        username: impl Into<String>,
        password: Secret,
    ) -> Self {
        TaskRouterConfig {
            base_url: DEFAULT_BASE_URL.to_owned(),
            workspace_sid: workspace_sid.into(),
            username: username.into(),
            password,
            http: HttpConfig::default(),
        }
    }

    /// The same configuration with another base URL (a local server).
    #[must_use]
    pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into();
        self
    }
}

/// A task to create.
///
/// ```
/// use ccfn_core::taskrouter::NewTask;
///
/// let task = NewTask::new("WW0123", serde_json::json!({ "type": "callback" }))
///     .priority(10)
///     .timeout(3600)
///     .task_channel("voice")
///     .expect_queue("WQ0123");
/// assert_eq!(task.priority, Some(10));
/// assert_eq!(task.expected_queue_sid.as_deref(), Some("WQ0123"));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct NewTask {
    /// The workflow that routes the task (`WW...`).
    pub workflow_sid: String,
    /// The task's attributes: a JSON object.
    pub attributes: Value,
    /// Overrides the priority the workflow gives.
    pub priority: Option<u32>,
    /// Seconds the task may wait for a worker (the platform's default: 24 h).
    pub timeout: Option<u32>,
    /// The task channel's unique name or SID (`voice`, `default`...).
    pub task_channel: Option<String>,
    /// The queue the task must land in; another one is a
    /// [`TaskRouterError::QueueMismatch`] (the task exists all the same).
    pub expected_queue_sid: Option<String>,
}

impl NewTask {
    /// A task for `workflow_sid` with `attributes` (must be an object).
    pub fn new(workflow_sid: impl Into<String>, attributes: Value) -> Self {
        NewTask {
            workflow_sid: workflow_sid.into(),
            attributes,
            priority: None,
            timeout: None,
            task_channel: None,
            expected_queue_sid: None,
        }
    }

    /// Sets the priority.
    #[must_use]
    pub fn priority(mut self, priority: u32) -> Self {
        self.priority = Some(priority);
        self
    }

    /// Sets the timeout, in seconds.
    #[must_use]
    pub fn timeout(mut self, seconds: u32) -> Self {
        self.timeout = Some(seconds);
        self
    }

    /// Sets the task channel.
    #[must_use]
    pub fn task_channel(mut self, channel: impl Into<String>) -> Self {
        self.task_channel = Some(channel.into());
        self
    }

    /// Requires the task to land in `queue_sid`.
    #[must_use]
    pub fn expect_queue(mut self, queue_sid: impl Into<String>) -> Self {
        self.expected_queue_sid = Some(queue_sid.into());
        self
    }

    fn check(&self) -> Result<(), TaskRouterError> {
        if self.workflow_sid.trim().is_empty() {
            return Err(TaskRouterError::InvalidTask {
                reason: "the workflow SID is empty".into(),
            });
        }
        if !self.attributes.is_object() {
            return Err(TaskRouterError::InvalidTask {
                reason: format!(
                    "the attributes must be a JSON object, not {}",
                    kind_of(&self.attributes)
                ),
            });
        }
        Ok(())
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A created task, as the REST API answers it (snake_case, the Node
/// helper's camelCase accepted too).
///
/// The API calls the queue `task_queue_sid`; `queue_sid`, `queueSid` and
/// `taskQueueSid` are accepted. `attributes` arrives as JSON text and is
/// parsed into an object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Task {
    /// The task (`WT...`).
    pub sid: String,
    /// The queue the workflow put it in (`WQ...`); `None` while the
    /// platform has not routed it yet.
    #[serde(
        default,
        alias = "task_queue_sid",
        alias = "queueSid",
        alias = "taskQueueSid"
    )]
    pub queue_sid: Option<String>,
    /// The queue's friendly name, when the API says it.
    #[serde(
        default,
        alias = "task_queue_friendly_name",
        alias = "taskQueueFriendlyName"
    )]
    pub queue_name: Option<String>,
    /// The workflow that routed it (`WW...`).
    #[serde(default, alias = "workflowSid")]
    pub workflow_sid: String,
    /// The task's attributes, as an object.
    #[serde(default, deserialize_with = "json_text_or_value")]
    pub attributes: Value,
    /// The assignment status (`pending`, `reserved`, `assigned`...).
    #[serde(default, alias = "assignment_status", alias = "assignmentStatus")]
    pub status: String,
    /// The priority the task got.
    #[serde(default)]
    pub priority: Option<u64>,
}

impl Task {
    /// The queue it went to, as `taskrouter_config` names it: its
    /// friendly name when the answer says it, else its SID; `None` while
    /// it is not routed.
    ///
    /// ```
    /// use ccfn_core::taskrouter::Task;
    ///
    /// let task: Task = serde_json::from_value(serde_json::json!({
    ///     "sid": "WT1", "task_queue_sid": "WQ1", "task_queue_friendly_name": "Callbacks"
    /// })).unwrap();
    /// assert_eq!(task.routed_queue(), Some("Callbacks"));
    /// let task: Task = serde_json::from_value(serde_json::json!({ "sid": "WT1", "task_queue_sid": "WQ1" })).unwrap();
    /// assert_eq!(task.routed_queue(), Some("WQ1"));
    /// ```
    #[must_use]
    pub fn routed_queue(&self) -> Option<&str> {
        let named = self.queue_name.as_deref().filter(|n| !n.trim().is_empty());
        named.or(self
            .queue_sid
            .as_deref()
            .filter(|sid| !sid.trim().is_empty()))
    }
}

/// A workflow, as the REST API answers it.
///
/// # Active, disabled, deleted
///
/// The spec names three workflow states; the platform stores none of
/// them. A deleted workflow is one the API answers 404 for (which is also
/// what a SID of another workspace or environment gets). The platform has
/// no enabled flag, so ccfn calls a workflow *disabled* when it cannot
/// route a task: its routing configuration has no filter and no default
/// filter, or it is not valid JSON. A `"disabled": true` field, or a
/// `status` of `disabled` or `inactive`, also disables it, should the API
/// (or a proxy in front of it) ever say so. Anything else is active.
///
/// ```
/// use ccfn_core::taskrouter::Workflow;
/// use serde_json::json;
///
/// let routed = Workflow::new("WW1", "Callbacks", json!({
///     "task_routing": { "filters": [], "default_filter": { "queue": "WQ1" } }
/// }));
/// assert!(routed.can_take_tasks());
/// assert_eq!(routed.default_queue_sid(), Some("WQ1"));
///
/// let empty = Workflow::new("WW2", "Old", json!({ "task_routing": { "filters": [] } }));
/// assert!(!empty.can_take_tasks());
/// assert_eq!(
///     empty.ensure_can_take_tasks().unwrap_err().to_string(),
///     "workflow WW2 is disabled: its routing configuration has no filters and no default filter, so it cannot route tasks"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Workflow {
    /// The workflow (`WW...`).
    pub sid: String,
    /// Its friendly name.
    #[serde(default, alias = "friendlyName")]
    pub friendly_name: String,
    /// Its routing configuration, parsed from the JSON text the API
    /// answers (`Null` when absent).
    #[serde(default, deserialize_with = "json_text_or_value")]
    pub configuration: Value,
    /// An explicit disabled flag, when the answer has one.
    #[serde(default)]
    pub disabled: Option<bool>,
    /// An explicit status, when the answer has one.
    #[serde(default)]
    pub status: Option<String>,
}

impl Workflow {
    /// A workflow with this routing configuration.
    pub fn new(
        sid: impl Into<String>,
        friendly_name: impl Into<String>,
        configuration: Value,
    ) -> Self {
        Workflow {
            sid: sid.into(),
            friendly_name: friendly_name.into(),
            configuration,
            disabled: None,
            status: None,
        }
    }

    /// Why the workflow cannot take tasks, or `None` when it can (see
    /// the type's documentation).
    #[must_use]
    pub fn disabled_reason(&self) -> Option<String> {
        if self.disabled == Some(true) {
            return Some("it is marked disabled".to_owned());
        }
        if let Some(status) = &self.status
            && (status.eq_ignore_ascii_case("disabled") || status.eq_ignore_ascii_case("inactive"))
        {
            return Some(format!("its status is `{status}`"));
        }
        let Some(routing) = self.configuration.get("task_routing") else {
            return Some(if self.configuration.is_null() {
                "it has no routing configuration, so it cannot route tasks".to_owned()
            } else {
                "its configuration has no `task_routing`, so it cannot route tasks".to_owned()
            });
        };
        let has_filters = routing
            .get("filters")
            .and_then(Value::as_array)
            .is_some_and(|filters| !filters.is_empty());
        let has_default = routing
            .get("default_filter")
            .and_then(Value::as_object)
            .is_some_and(|filter| !filter.is_empty());
        if has_filters || has_default {
            None
        } else {
            Some(
                "its routing configuration has no filters and no default filter, so it cannot route tasks"
                    .to_owned(),
            )
        }
    }

    /// Whether the workflow can route a task: active, not disabled.
    #[must_use]
    pub fn can_take_tasks(&self) -> bool {
        self.disabled_reason().is_none()
    }

    /// `Ok` when the workflow can take tasks.
    ///
    /// # Errors
    /// [`TaskRouterError::WorkflowDisabled`], saying why.
    pub fn ensure_can_take_tasks(&self) -> Result<(), TaskRouterError> {
        match self.disabled_reason() {
            None => Ok(()),
            Some(reason) => Err(TaskRouterError::WorkflowDisabled {
                sid: self.sid.clone(),
                reason,
            }),
        }
    }

    /// The queue of the default filter, when there is one.
    #[must_use]
    pub fn default_queue_sid(&self) -> Option<&str> {
        self.configuration
            .pointer("/task_routing/default_filter/queue")
            .and_then(Value::as_str)
    }
}

/// JSON text parsed into a value; a value that is not text is kept.
fn json_text_or_value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::String(text) => serde_json::from_str(&text).map_err(|e| {
            serde::de::Error::custom(format!("a field holds JSON text that does not parse: {e}"))
        }),
        other => Ok(other),
    }
}

/// Why a voicemail or callback option cannot be served (spec, Errors).
///
/// The caller hears [`TaskRouterError::caller_message`] whatever the
/// variant; the operator reads the variant's `Display` and
/// [`TaskRouterError::cause`] in the logs. It converts into a
/// [`crate::Error`] of kind [`ErrorKind::Upstream`] with that `Display` as
/// message, so `?` works in handlers. (It is not a `std::error::Error`:
/// every one of those converts into `ccfn_core::Error` with kind
/// `Function`, which is not what this is.)
#[derive(Debug)]
#[non_exhaustive]
pub enum TaskRouterError {
    /// No workflow of the workspace has this friendly name, or, locally,
    /// this is not a workflow SID.
    WorkflowNotFound {
        /// The friendly name or SID looked for.
        workflow: String,
    },
    /// The workflow exists but cannot route tasks (see [`Workflow`]).
    WorkflowDisabled {
        /// The workflow.
        sid: String,
        /// Why, in words.
        reason: String,
    },
    /// The API answers 404 for the workflow: deleted, or its SID belongs
    /// to another account, or to another workspace that could not be
    /// asked.
    WorkflowDeleted {
        /// The workflow.
        sid: String,
    },
    /// The workspace answers 404 for the workflow, but another workspace
    /// of the account has it: the SID is another environment's (a value
    /// set for staging, say).
    WorkflowInOtherWorkspace {
        /// The workflow.
        sid: String,
        /// The workspace that has it (`WS...`).
        workspace_sid: String,
        /// That workspace's friendly name, when the API gave one.
        workspace_name: Option<String>,
    },
    /// The task was created but landed in another queue than expected.
    QueueMismatch {
        /// The workflow that routed it.
        workflow_sid: String,
        /// The task, which exists.
        task_sid: String,
        /// The queue expected.
        expected: String,
        /// The queue it got (`None`: not routed yet).
        got: Option<String>,
    },
    /// The task is not valid: no workflow SID, or attributes that are not
    /// an object. Nothing was sent.
    InvalidTask {
        /// What is wrong.
        reason: String,
    },
    /// Talking to the API failed: connection, timeout, credentials
    /// refused (401/403), an error status on a lookup, or an answer that
    /// does not parse.
    Lookup(Error),
    /// The API refused to create the task (a status other than 2xx, 401
    /// and 403), with its message.
    Rejected {
        /// The workflow of the task.
        workflow_sid: String,
        /// The status code.
        status: u16,
        /// The platform's message (and error code when it gave one).
        message: String,
    },
    /// The local task store could not be written.
    Store(Error),
}

impl TaskRouterError {
    /// What the caller hears, whatever the cause: exactly
    /// `Option not available at this time`.
    ///
    /// ```
    /// use ccfn_core::taskrouter::TaskRouterError;
    ///
    /// assert_eq!(TaskRouterError::caller_message(), "Option not available at this time");
    /// ```
    #[must_use]
    pub const fn caller_message() -> &'static str {
        CALLER_MESSAGE
    }

    /// The cause, as a stable code for the logs: `workflow_not_found`,
    /// `workflow_disabled`, `workflow_deleted`, `workflow_other_workspace`,
    /// `queue_mismatch`, `invalid_task`, `lookup_failed`, `rejected` or
    /// `task_store`.
    #[must_use]
    pub fn cause(&self) -> &'static str {
        match self {
            TaskRouterError::WorkflowNotFound { .. } => "workflow_not_found",
            TaskRouterError::WorkflowDisabled { .. } => "workflow_disabled",
            TaskRouterError::WorkflowDeleted { .. } => "workflow_deleted",
            TaskRouterError::WorkflowInOtherWorkspace { .. } => "workflow_other_workspace",
            TaskRouterError::QueueMismatch { .. } => "queue_mismatch",
            TaskRouterError::InvalidTask { .. } => "invalid_task",
            TaskRouterError::Lookup(_) => "lookup_failed",
            TaskRouterError::Rejected { .. } => "rejected",
            TaskRouterError::Store(_) => "task_store",
        }
    }

    /// The workflow concerned, when the error knows it.
    #[must_use]
    pub fn workflow_sid(&self) -> Option<&str> {
        match self {
            TaskRouterError::WorkflowDisabled { sid, .. }
            | TaskRouterError::WorkflowDeleted { sid }
            | TaskRouterError::WorkflowInOtherWorkspace { sid, .. } => Some(sid),
            TaskRouterError::QueueMismatch { workflow_sid, .. }
            | TaskRouterError::Rejected { workflow_sid, .. } => Some(workflow_sid),
            // A friendly name too: the log should name what was missing.
            TaskRouterError::WorkflowNotFound { workflow } => Some(workflow),
            _ => None,
        }
    }

    /// The workspace the workflow belongs to, when it is another than the
    /// client's ([`TaskRouterError::WorkflowInOtherWorkspace`]).
    #[must_use]
    pub fn workspace_sid(&self) -> Option<&str> {
        match self {
            TaskRouterError::WorkflowInOtherWorkspace { workspace_sid, .. } => Some(workspace_sid),
            _ => None,
        }
    }

    /// Writes the error as a `task_error` record (level ERROR): message
    /// the `Display`, fields `cause` ([`TaskRouterError::cause`]),
    /// `workflow_sid` (null when unknown) and `caller_message`, and
    /// `workspace_sid` for a workflow of another workspace. Call it where
    /// the caller is told the option is not available.
    pub fn log(&self) {
        emit(
            &format!("Task routing failed: {self}"),
            &crate::record::TaskError {
                cause: self.cause(),
                workflow_sid: self.workflow_sid(),
                caller_message: CALLER_MESSAGE,
                workspace_sid: self.workspace_sid(),
            },
        );
    }
}

impl fmt::Display for TaskRouterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskRouterError::WorkflowNotFound { workflow } => write!(
                f,
                "workflow `{workflow}` not found in the workspace: no workflow has that friendly name or SID (is it configured for another environment?)"
            ),
            TaskRouterError::WorkflowDisabled { sid, reason } => {
                write!(f, "workflow {sid} is disabled: {reason}")
            }
            TaskRouterError::WorkflowDeleted { sid } => write!(
                f,
                "workflow {sid} does not exist (404): it was deleted, or its SID belongs to another workspace or environment"
            ),
            TaskRouterError::WorkflowInOtherWorkspace {
                sid,
                workspace_sid,
                workspace_name,
            } => {
                write!(f, "workflow {sid} is not in this workspace (404) but in workspace {workspace_sid}")?;
                if let Some(name) = workspace_name {
                    write!(f, " “{name}”")?;
                }
                write!(f, ": its SID is another environment's; set this workspace's workflow")
            }
            TaskRouterError::QueueMismatch {
                workflow_sid,
                task_sid,
                expected,
                got,
            } => write!(
                f,
                "task {task_sid} was routed by workflow {workflow_sid} to queue {}, expected queue {expected}: check the workflow's filters",
                got.as_deref().unwrap_or("(none)")
            ),
            TaskRouterError::InvalidTask { reason } => write!(f, "task not created: {reason}"),
            TaskRouterError::Lookup(error) => {
                write!(f, "task router lookup failed: {}", error.message())
            }
            TaskRouterError::Rejected {
                workflow_sid,
                status,
                message,
            } => write!(
                f,
                "the task router refused the task for workflow {workflow_sid} ({status}): {message}"
            ),
            TaskRouterError::Store(error) => {
                write!(f, "local task store failed: {}", error.message())
            }
        }
    }
}

/// `?` on a task-router error in a handler does what handling it by hand
/// does: the `task_error` record is written (by this conversion), and a
/// voice function answers by saying `Option not available at this time`,
/// succeeding; another function fails with that caller message.
impl From<TaskRouterError> for Error {
    /// Located where it is called: the handler's `?`.
    #[track_caller]
    fn from(error: TaskRouterError) -> Self {
        error.log();
        Error::new(ErrorKind::Upstream, error.to_string())
            .with_caller_message(CALLER_MESSAGE)
            .spoken()
    }
}

/// A client of the TaskRouter REST API for one workspace; cheap to clone.
///
/// ```
/// use ccfn_core::Secret;
/// use ccfn_core::taskrouter::{TaskRouterClient, TaskRouterConfig};
///
/// let client = TaskRouterClient::new(TaskRouterConfig::new(
///     "WSaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
///     "SKaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
///     Secret::new("api-key-secret-canary"),
/// ))
/// .unwrap();
/// assert_eq!(client.config().workspace_sid, "WSaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
/// ```
#[derive(Clone, Debug)]
pub struct TaskRouterClient {
    inner: std::sync::Arc<ClientInner>,
}

#[derive(Debug)]
struct ClientInner {
    config: TaskRouterConfig,
    base: reqwest::Url,
    http: HttpClient,
}

/// One page of the workflow list.
#[derive(Deserialize)]
struct WorkflowPage {
    #[serde(default)]
    workflows: Vec<Workflow>,
    #[serde(default)]
    meta: Option<PageMeta>,
}

#[derive(Deserialize)]
struct PageMeta {
    #[serde(default)]
    next_page_url: Option<String>,
}

/// One page of the account's workspaces.
#[derive(Deserialize)]
struct WorkspacePage {
    #[serde(default)]
    workspaces: Vec<WorkspaceItem>,
}

/// A workspace, as listed.
#[derive(Deserialize)]
struct WorkspaceItem {
    #[serde(default)]
    sid: String,
    #[serde(default)]
    friendly_name: Option<String>,
}

/// An error answer of the API: `{"code", "message", "more_info", "status"}`.
#[derive(Deserialize)]
struct ApiError {
    #[serde(default)]
    code: Option<u64>,
    #[serde(default)]
    message: Option<String>,
}

impl TaskRouterClient {
    /// A client for `config`.
    ///
    /// # Errors
    /// The base URL is not an `http` or `https` URL, the workspace SID is
    /// empty, or the HTTP client cannot be set up.
    pub fn new(config: TaskRouterConfig) -> Result<Self, Error> {
        let base = reqwest::Url::parse(config.base_url.trim())
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https") && url.has_host())
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Configuration,
                    format!(
                        "task router base URL `{}` is not an http(s) URL",
                        sanitize_url(&config.base_url)
                    ),
                )
            })?;
        if config.workspace_sid.trim().is_empty() {
            return Err(Error::new(
                ErrorKind::Configuration,
                "task router workspace SID is empty: set PLATFORM_WORKSPACE_SID",
            ));
        }
        let http = HttpClient::new(config.http)?;
        Ok(TaskRouterClient {
            inner: std::sync::Arc::new(ClientInner { config, base, http }),
        })
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &TaskRouterConfig {
        &self.inner.config
    }

    /// `{base}/Workspaces/{workspace}/{segments...}`, each segment
    /// percent-encoded.
    fn url(&self, segments: &[&str]) -> reqwest::Url {
        let mut url = self.inner.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty()
                .push("Workspaces")
                .push(&self.inner.config.workspace_sid)
                .extend(segments);
        }
        url
    }

    /// Creates a task: `POST {base}/Workspaces/{workspace}/Tasks` with
    /// form fields `WorkflowSid`, `Attributes` (JSON text), and
    /// `Priority`, `Timeout`, `TaskChannel` when set. Writes `workflow`,
    /// `task_attributes`, the HTTP records and `critical` (see the module
    /// documentation).
    ///
    /// # Errors
    /// - [`TaskRouterError::InvalidTask`]: nothing sent.
    /// - [`TaskRouterError::Lookup`]: the call failed, the credentials were
    ///   refused (401/403), or the answer does not parse.
    /// - [`TaskRouterError::Rejected`]: any other status than 2xx.
    /// - [`TaskRouterError::QueueMismatch`]: created, in another queue than
    ///   [`NewTask::expected_queue_sid`] (`critical` is written).
    pub async fn create_task(&self, task: &NewTask) -> Result<Task, TaskRouterError> {
        task.check()?;
        log_task_request(task);
        let mut form: Vec<(&str, String)> = vec![
            ("WorkflowSid", task.workflow_sid.clone()),
            ("Attributes", task.attributes.to_string()),
        ];
        if let Some(priority) = task.priority {
            form.push(("Priority", priority.to_string()));
        }
        if let Some(timeout) = task.timeout {
            form.push(("Timeout", timeout.to_string()));
        }
        if let Some(channel) = &task.task_channel {
            form.push(("TaskChannel", channel.clone()));
        }
        let url = self.url(&["Tasks"]);
        let response = self
            .inner
            .http
            .post(url.as_str())
            .basic_auth(&self.inner.config.username, &self.inner.config.password)
            .json_text_fields(JSON_TEXT_FIELDS)
            .form(&form)
            .send()
            .await
            .map_err(TaskRouterError::Lookup)?;
        let status = response.status();
        if matches!(status, 401 | 403) {
            return Err(auth_error("POST", &url, &response));
        }
        if !response.is_success() {
            return Err(TaskRouterError::Rejected {
                workflow_sid: task.workflow_sid.clone(),
                status,
                message: api_message(&response),
            });
        }
        let mut created: Task = response.json().map_err(TaskRouterError::Lookup)?;
        if created.workflow_sid.is_empty() {
            created.workflow_sid.clone_from(&task.workflow_sid);
        }
        if created.attributes.is_null() {
            created.attributes = task.attributes.clone();
        }
        finish(task, created)
    }

    /// Every workflow of the workspace: `GET
    /// {base}/Workspaces/{workspace}/Workflows?PageSize=50`, then each
    /// `meta.next_page_url` until it is null. A next page on another host
    /// than the base URL is not followed (the credentials would go
    /// there), nor one already read, nor more than
    /// [`MAX_WORKFLOW_PAGES`] pages.
    ///
    /// # Errors
    /// [`TaskRouterError::Lookup`]: a call failed, was answered with an
    /// error status, or does not parse, or the paging is broken.
    pub async fn list_workflows(&self) -> Result<Vec<Workflow>, TaskRouterError> {
        let mut url = self.url(&["Workflows"]);
        url.query_pairs_mut()
            .append_pair("PageSize", &WORKFLOW_PAGE_SIZE.to_string());
        let mut seen = HashSet::new();
        let mut workflows = Vec::new();
        loop {
            if !seen.insert(url.to_string()) {
                return Err(lookup(format!(
                    "the workflow list pages in a loop: {} was already read",
                    sanitize_url(url.as_str())
                )));
            }
            if seen.len() > MAX_WORKFLOW_PAGES {
                return Err(lookup(format!(
                    "the workflow list has more than {MAX_WORKFLOW_PAGES} pages; stopped"
                )));
            }
            let response = self.get(&url).await?;
            if !response.is_success() {
                return Err(status_error("GET", &url, &response));
            }
            let page: WorkflowPage = response.json().map_err(TaskRouterError::Lookup)?;
            workflows.extend(page.workflows);
            match page.meta.and_then(|meta| meta.next_page_url) {
                Some(next) if !next.is_empty() => url = self.next_page(&url, &next)?,
                _ => return Ok(workflows),
            }
        }
    }

    /// The next page's URL, when it is on the API's host.
    fn next_page(
        &self,
        current: &reqwest::Url,
        next: &str,
    ) -> Result<reqwest::Url, TaskRouterError> {
        let url = current.join(next).map_err(|_| {
            lookup(format!(
                "the workflow list's next_page_url `{}` is not a URL",
                sanitize_url(next)
            ))
        })?;
        if crate::client::http::same_origin(&url, &self.inner.base) {
            Ok(url)
        } else {
            Err(lookup(format!(
                "the workflow list's next_page_url {} is not on the task router {}: not followed",
                sanitize_url(url.as_str()),
                sanitize_url(self.inner.base.as_str())
            )))
        }
    }

    /// The first workflow named `friendly_name` (exactly), in the API's
    /// order. It is not checked: see [`Workflow::ensure_can_take_tasks`].
    ///
    /// # Errors
    /// [`TaskRouterError::WorkflowNotFound`], or those of
    /// [`TaskRouterClient::list_workflows`].
    pub async fn find_workflow(&self, friendly_name: &str) -> Result<Workflow, TaskRouterError> {
        self.list_workflows()
            .await?
            .into_iter()
            .find(|workflow| workflow.friendly_name == friendly_name)
            .ok_or_else(|| TaskRouterError::WorkflowNotFound {
                workflow: friendly_name.to_owned(),
            })
    }

    /// One workflow: `GET {base}/Workspaces/{workspace}/Workflows/{sid}`.
    /// It is not checked: see [`TaskRouterClient::active_workflow`].
    ///
    /// On a 404 the account's other workspaces are asked for it, with the
    /// same credentials: `GET {base}/Workspaces?PageSize=50`, then `GET
    /// {base}/Workspaces/{other}/Workflows/{sid}` for each other
    /// workspace listed (at most [`MAX_OTHER_WORKSPACES`]), until one has
    /// it. These calls write their HTTP records too; when they fail, the
    /// error is [`TaskRouterError::WorkflowDeleted`].
    ///
    /// # Errors
    /// [`TaskRouterError::WorkflowInOtherWorkspace`] on 404 when another
    /// workspace has it, [`TaskRouterError::WorkflowDeleted`] on 404
    /// otherwise; [`TaskRouterError::Lookup`] when the call fails, is
    /// answered with another error status, or does not parse.
    pub async fn fetch_workflow(&self, sid: &str) -> Result<Workflow, TaskRouterError> {
        if sid.trim().is_empty() {
            return Err(TaskRouterError::WorkflowNotFound {
                workflow: String::new(),
            });
        }
        let url = self.url(&["Workflows", sid]);
        let response = self.get(&url).await?;
        if response.status() == 404 {
            if let Some((workspace_sid, workspace_name)) = self.workspace_of(sid).await {
                return Err(TaskRouterError::WorkflowInOtherWorkspace {
                    sid: sid.to_owned(),
                    workspace_sid,
                    workspace_name,
                });
            }
            return Err(TaskRouterError::WorkflowDeleted {
                sid: sid.to_owned(),
            });
        }
        if !response.is_success() {
            return Err(status_error("GET", &url, &response));
        }
        response.json().map_err(TaskRouterError::Lookup)
    }

    /// The other workspace of the account that has workflow `sid`, and its
    /// name, if one of the first [`MAX_OTHER_WORKSPACES`] listed does;
    /// `None` when none does or they cannot be asked.
    async fn workspace_of(&self, sid: &str) -> Option<(String, Option<String>)> {
        let mut url = self.inner.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().push("Workspaces");
        }
        url.query_pairs_mut()
            .append_pair("PageSize", &WORKFLOW_PAGE_SIZE.to_string());
        let response = self.get(&url).await.ok()?;
        if !response.is_success() {
            return None;
        }
        let page: WorkspacePage = response.json().ok()?;
        let own = &self.inner.config.workspace_sid;
        let others = page
            .workspaces
            .into_iter()
            .filter(|w| w.sid.starts_with("WS") && w.sid != *own)
            .take(MAX_OTHER_WORKSPACES);
        for workspace in others {
            let mut url = self.inner.base.clone();
            if let Ok(mut path) = url.path_segments_mut() {
                path.pop_if_empty()
                    .extend(["Workspaces", &workspace.sid, "Workflows", sid]);
            }
            match self.get(&url).await {
                Ok(found) if found.is_success() => {
                    return Some((workspace.sid, workspace.friendly_name));
                }
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        None
    }

    /// The workflow `sid`, checked: fetched, and able to take tasks.
    ///
    /// # Errors
    /// Those of [`TaskRouterClient::fetch_workflow`], and
    /// [`TaskRouterError::WorkflowDisabled`].
    pub async fn active_workflow(&self, sid: &str) -> Result<Workflow, TaskRouterError> {
        let workflow = self.fetch_workflow(sid).await?;
        workflow.ensure_can_take_tasks()?;
        Ok(workflow)
    }

    async fn get(&self, url: &reqwest::Url) -> Result<ApiResponse, TaskRouterError> {
        let response = self
            .inner
            .http
            .get(url.as_str())
            .basic_auth(&self.inner.config.username, &self.inner.config.password)
            .json_text_fields(JSON_TEXT_FIELDS)
            .send()
            .await
            .map_err(TaskRouterError::Lookup)?;
        if matches!(response.status(), 401 | 403) {
            return Err(auth_error("GET", url, &response));
        }
        Ok(response)
    }
}

fn lookup(message: String) -> TaskRouterError {
    TaskRouterError::Lookup(Error::new(ErrorKind::Upstream, message))
}

/// The platform's message of an error answer, with its code; the body's
/// start when it is not the API's error shape.
fn api_message(response: &ApiResponse) -> String {
    match response.json::<ApiError>() {
        Ok(ApiError {
            message: Some(message),
            code,
        }) => match code {
            Some(code) => format!("{message} (error {code})"),
            None => message,
        },
        _ => {
            let text = response.text();
            let text = text.trim();
            if text.is_empty() {
                "no message".to_owned()
            } else {
                // Scrubbed before it is cut, so no part of a secret is left.
                let mut text = text.to_owned();
                crate::secret::scrub(&mut text, &[]);
                text.chars().take(200).collect()
            }
        }
    }
}

fn auth_error(method: &str, url: &reqwest::Url, response: &ApiResponse) -> TaskRouterError {
    lookup(format!(
        "{method} {} answered {}: the credentials were refused ({}); check ACCOUNT_SID and AUTH_TOKEN, or API_KEY_SID and API_KEY_SECRET, and that they belong to the workspace's account",
        sanitize_url(url.as_str()),
        response.status(),
        api_message(response)
    ))
}

fn status_error(method: &str, url: &reqwest::Url, response: &ApiResponse) -> TaskRouterError {
    lookup(format!(
        "{method} {} answered {}: {}",
        sanitize_url(url.as_str()),
        response.status(),
        api_message(response)
    ))
}

/// `workflow` and `task_attributes`.
fn log_task_request(task: &NewTask) {
    emit(
        &format!("Workflow: {}", task.workflow_sid),
        &crate::record::Workflow {
            workflow_sid: &task.workflow_sid,
        },
    );
    // Members of a sensitive name (a callback token, a customer's PIN)
    // are redacted, as in every record of what was sent or answered.
    emit(
        "Task attributes",
        &crate::record::TaskAttributes {
            attributes: &crate::secret::redact_json(&task.attributes),
        },
    );
}

/// Writes `critical`, notes the queue for `taskrouter_config`, then checks
/// the queue.
fn finish(task: &NewTask, created: Task) -> Result<Task, TaskRouterError> {
    emit_critical(
        &format!(
            "Task created: {} in queue {} by workflow {}",
            created.sid,
            created.queue_sid.as_deref().unwrap_or("(not routed yet)"),
            created.workflow_sid
        ),
        &crate::record::Critical {
            task_sid: &created.sid,
            queue_sid: created.queue_sid.as_deref(),
            workflow_sid: &created.workflow_sid,
            attributes: &crate::secret::redact_json(&created.attributes),
        },
    );
    if let Some(queue) = created.routed_queue() {
        crate::record::scope::note_routed_queue(queue);
    }
    if let Some(expected) = &task.expected_queue_sid
        && created.queue_sid.as_deref() != Some(expected.as_str())
    {
        return Err(TaskRouterError::QueueMismatch {
            workflow_sid: created.workflow_sid.clone(),
            task_sid: created.sid.clone(),
            expected: expected.clone(),
            got: created.queue_sid.clone(),
        });
    }
    Ok(created)
}

/// The embedded task store of local runs: each created task is a line of
/// JSON appended to a file, nothing is sent anywhere.
///
/// Task SIDs are `WT` and 32 random hex digits; the queue SID is `WQ` and
/// 32 hex digits derived from the workflow SID (the same workflow always
/// gets the same queue); the status is `pending`. Workflow checks accept
/// any SID that starts with `WW` ([`TaskStore::active_workflow`]).
///
/// ```
/// use ccfn_core::taskrouter::{NewTask, TaskStore};
///
/// let path = std::env::temp_dir().join(format!("ccfn-doc-tasks-{}.jsonl", std::process::id()));
/// let store = TaskStore::new(&path);
/// let task = store
///     .create_task(&NewTask::new("WW0123", serde_json::json!({ "type": "callback" })))
///     .unwrap();
/// assert!(task.sid.starts_with("WT") && task.sid.len() == 34);
/// assert_eq!(task.status, "pending");
/// assert_eq!(store.tasks().unwrap().last(), Some(&task));
/// # std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskStore {
    path: PathBuf,
}

impl TaskStore {
    /// A store appending to `path` (made, with its folder, on the first
    /// task).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        TaskStore { path: path.into() }
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records a task, writing `workflow`, `task_attributes` and
    /// `critical` as [`TaskRouterClient::create_task`] does.
    ///
    /// # Errors
    /// [`TaskRouterError::InvalidTask`], [`TaskRouterError::WorkflowNotFound`]
    /// for a workflow SID that does not start with `WW`,
    /// [`TaskRouterError::Store`] when the file cannot be written, and
    /// [`TaskRouterError::QueueMismatch`].
    pub fn create_task(&self, task: &NewTask) -> Result<Task, TaskRouterError> {
        task.check()?;
        if !task.workflow_sid.starts_with("WW") {
            return Err(TaskRouterError::WorkflowNotFound {
                workflow: task.workflow_sid.clone(),
            });
        }
        log_task_request(task);
        let created = Task {
            sid: format!("WT{}", random_hex()),
            queue_sid: Some(local_queue_sid(&task.workflow_sid)),
            queue_name: Some("local".to_owned()),
            workflow_sid: task.workflow_sid.clone(),
            attributes: task.attributes.clone(),
            status: "pending".to_owned(),
            priority: task.priority.map(u64::from),
        };
        let mut line = json!({
            "sid": created.sid,
            "queue_sid": created.queue_sid,
            "queue_name": created.queue_name,
            "workflow_sid": created.workflow_sid,
            "attributes": created.attributes,
            "status": created.status,
            "priority": created.priority,
            "timeout": task.timeout,
            "task_channel": task.task_channel,
            "date_created": humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        })
        .to_string();
        line.push('\n');
        self.append(&line).map_err(|e| {
            TaskRouterError::Store(
                Error::new(
                    ErrorKind::Function,
                    format!("cannot write the task store {}: {e}", self.path.display()),
                )
                .with_source(e),
            )
        })?;
        finish(task, created)
    }

    fn append(&self, line: &str) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        // One write per line, so that concurrent appends do not interleave.
        file.write_all(line.as_bytes())
    }

    /// Every task recorded, in order.
    ///
    /// # Errors
    /// The file exists but cannot be read, or a line does not parse; the
    /// error names the file and the line. A missing file is no task.
    pub fn tasks(&self) -> Result<Vec<Task>, Error> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(Error::new(
                    ErrorKind::Function,
                    format!("cannot read the task store {}: {e}", self.path.display()),
                ))
            }
        };
        text.lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(index, line)| {
                serde_json::from_str(line).map_err(|e| {
                    Error::new(
                        ErrorKind::Function,
                        format!("{} line {}: {e}", self.path.display(), index + 1),
                    )
                })
            })
            .collect()
    }

    /// The workflow `sid`: any SID that starts with `WW` is accepted, with
    /// a default filter to its local queue.
    ///
    /// # Errors
    /// [`TaskRouterError::WorkflowNotFound`] for any other SID.
    pub fn active_workflow(&self, sid: &str) -> Result<Workflow, TaskRouterError> {
        if sid.starts_with("WW") && sid.len() > 2 {
            Ok(local_workflow(sid, "local"))
        } else {
            Err(TaskRouterError::WorkflowNotFound {
                workflow: sid.to_owned(),
            })
        }
    }

    /// A workflow named `friendly_name`: always found, with a SID derived
    /// from the name (`WW` and 32 hex digits, the same for the same name).
    #[must_use]
    pub fn find_workflow(&self, friendly_name: &str) -> Workflow {
        let sid = format!(
            "WW{}",
            hex32(&format!("ccfn-local-workflow:{friendly_name}"))
        );
        local_workflow(&sid, friendly_name)
    }
}

fn local_workflow(sid: &str, friendly_name: &str) -> Workflow {
    Workflow::new(
        sid,
        friendly_name,
        json!({ "task_routing": { "filters": [], "default_filter": { "queue": local_queue_sid(sid) } } }),
    )
}

/// `WQ` and 32 hex digits derived from the workflow SID.
fn local_queue_sid(workflow_sid: &str) -> String {
    format!("WQ{}", hex32(&format!("ccfn-local-queue:{workflow_sid}")))
}

/// The first 16 bytes of the SHA-256 of `text`, in hex.
fn hex32(text: &str) -> String {
    Sha256::digest(text.as_bytes())[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// 32 hex digits that differ every call.
fn random_hex() -> String {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(count);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hex32(&format!(
        "{}:{}:{}:{count}",
        hasher.finish(),
        nanos,
        std::process::id()
    ))
}

/// The task router a function uses: the REST API, or the local store.
#[derive(Clone, Debug)]
pub enum TaskRouter {
    /// The platform's TaskRouter REST API.
    Remote(TaskRouterClient),
    /// The embedded store of local runs.
    Local(TaskStore),
}

impl TaskRouter {
    /// The REST API when the context has `PLATFORM_WORKSPACE_SID` and
    /// credentials, `API_KEY_SID` + `API_KEY_SECRET` (preferred) or
    /// `ACCOUNT_SID` + `AUTH_TOKEN`, at `TASKROUTER_BASE_URL` (default
    /// [`DEFAULT_BASE_URL`]), with the context's API response-time alert
    /// threshold and `TASKROUTER_TIMEOUT_MS` (default 6 000),
    /// `TASKROUTER_CONNECT_TIMEOUT_MS` (default 3 000) and
    /// `TASKROUTER_MAX_RESPONSE_BYTES` (default 1 MiB) when set. Otherwise the local store at `CCFN_TASK_STORE` (default
    /// [`DEFAULT_TASK_STORE`]), announced by a WARN `task_store` record
    /// (fields `path`, `missing`) so that a deployment missing its
    /// credentials shows in the logs.
    ///
    /// A function reaches it through `context.task_router()`, which makes
    /// it once with this and shares it:
    ///
    /// ```
    /// use ccfn_core::Context;
    /// use ccfn_core::taskrouter::TaskRouter;
    ///
    /// let local = Context::builder().value("CCFN_TASK_STORE", "/tmp/tasks.jsonl").build();
    /// assert!(matches!(*local.task_router().unwrap(), TaskRouter::Local(_)));
    ///
    /// let remote = Context::builder()
    ///     .value("PLATFORM_WORKSPACE_SID", "WSaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
    ///     .value("ACCOUNT_SID", "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
    ///     .value("AUTH_TOKEN", "auth-token-canary")
    ///     .build();
    /// assert!(matches!(*remote.task_router().unwrap(), TaskRouter::Remote(_)));
    /// ```
    ///
    /// Each is read through its entry in [`crate::config`].
    ///
    /// # Errors
    /// `TASKROUTER_BASE_URL` is not an http(s) URL, a `TASKROUTER_*`
    /// timeout or size is not a whole number above 0 (kind
    /// `Configuration`), or the HTTP client cannot be set up.
    pub fn from_context(context: &Context) -> Result<Self, Error> {
        let workspace = config::PLATFORM_WORKSPACE_SID.text(context);
        let api_key = config::API_KEY_SID
            .text(context)
            .zip(config::API_KEY_SECRET.secret_value(context));
        let account = config::ACCOUNT_SID
            .text(context)
            .zip(config::AUTH_TOKEN.secret_value(context));
        let has_credentials = api_key.is_some() || account.is_some();
        if let (Some(workspace), Some((user, password))) = (workspace, api_key.or(account)) {
            let mut settings = TaskRouterConfig::new(workspace, user, password);
            if let Some(base) = config::TASKROUTER_BASE_URL.url(context)? {
                settings.base_url = base;
            }
            settings.http = HttpConfig {
                slow_response: context.thresholds().api_response,
                ..HttpConfig::default()
            }
            .with_settings(&config::TASKROUTER_HTTP, context)?;
            return Ok(TaskRouter::Remote(TaskRouterClient::new(settings)?));
        }
        let path = config::CCFN_TASK_STORE
            .text(context)
            .unwrap_or(DEFAULT_TASK_STORE)
            .to_owned();
        let mut missing = Vec::new();
        if workspace.is_none() {
            missing.push("PLATFORM_WORKSPACE_SID");
        }
        if !has_credentials {
            missing.push("ACCOUNT_SID + AUTH_TOKEN or API_KEY_SID + API_KEY_SECRET");
        }
        emit(
            &format!(
                "No task-router credentials: tasks are recorded in {path}, not sent to the platform"
            ),
            &crate::record::TaskStore {
                path: path.as_str(),
                missing: missing.as_slice(),
            },
        );
        Ok(TaskRouter::Local(TaskStore::new(path)))
    }

    /// Whether tasks go to the local store.
    #[must_use]
    pub fn is_local(&self) -> bool {
        matches!(self, TaskRouter::Local(_))
    }

    /// Creates a task (see [`TaskRouterClient::create_task`] and
    /// [`TaskStore::create_task`]).
    ///
    /// # Errors
    /// Those of the router in use.
    pub async fn create_task(&self, task: &NewTask) -> Result<Task, TaskRouterError> {
        match self {
            TaskRouter::Remote(client) => client.create_task(task).await,
            TaskRouter::Local(store) => store.create_task(task),
        }
    }

    /// The workflow `sid`, checked (see [`TaskRouterClient::active_workflow`];
    /// locally, any `WW...` SID).
    ///
    /// # Errors
    /// Those of the router in use.
    pub async fn active_workflow(&self, sid: &str) -> Result<Workflow, TaskRouterError> {
        match self {
            TaskRouter::Remote(client) => client.active_workflow(sid).await,
            TaskRouter::Local(store) => store.active_workflow(sid),
        }
    }

    /// The workflow named `friendly_name`, checked (see
    /// [`TaskRouterClient::find_workflow`]; locally, always found).
    ///
    /// # Errors
    /// Those of the router in use, and
    /// [`TaskRouterError::WorkflowDisabled`].
    pub async fn find_workflow(&self, friendly_name: &str) -> Result<Workflow, TaskRouterError> {
        let workflow = match self {
            TaskRouter::Remote(client) => client.find_workflow(friendly_name).await?,
            TaskRouter::Local(store) => store.find_workflow(friendly_name),
        };
        workflow.ensure_can_take_tasks()?;
        Ok(workflow)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record catalogue's list of causes is this client's, in order.
    #[test]
    fn every_cause_is_in_the_catalogue() {
        let error = || Error::msg("x");
        let all = [
            TaskRouterError::WorkflowNotFound {
                workflow: "x".into(),
            },
            TaskRouterError::WorkflowDisabled {
                sid: "x".into(),
                reason: "x".into(),
            },
            TaskRouterError::WorkflowDeleted { sid: "x".into() },
            TaskRouterError::WorkflowInOtherWorkspace {
                sid: "x".into(),
                workspace_sid: "x".into(),
                workspace_name: None,
            },
            TaskRouterError::QueueMismatch {
                workflow_sid: "x".into(),
                task_sid: "x".into(),
                expected: "x".into(),
                got: None,
            },
            TaskRouterError::InvalidTask { reason: "x".into() },
            TaskRouterError::Lookup(error()),
            TaskRouterError::Rejected {
                workflow_sid: "x".into(),
                status: 400,
                message: "x".into(),
            },
            TaskRouterError::Store(error()),
        ];
        let causes: Vec<&str> = all.iter().map(TaskRouterError::cause).collect();
        let catalogue: Vec<&str> = crate::record::TASK_ERROR_CAUSES
            .iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(causes, catalogue);
    }

    #[test]
    fn tasks_parse_from_the_api_and_the_node_helper_shapes() {
        let api: Task = serde_json::from_value(json!({
            "sid": "WT1", "task_queue_sid": "WQ1", "task_queue_friendly_name": "Callbacks",
            "workflow_sid": "WW1", "attributes": "{\"type\":\"callback\"}",
            "assignment_status": "pending", "priority": 0, "age": 0
        }))
        .unwrap();
        assert_eq!(api.queue_sid.as_deref(), Some("WQ1"));
        assert_eq!(api.queue_name.as_deref(), Some("Callbacks"));
        assert_eq!(api.attributes, json!({"type": "callback"}));
        assert_eq!(api.status, "pending");
        let node: Task = serde_json::from_value(json!({
            "sid": "WT2", "queueSid": "WQ2", "workflowSid": "WW2", "attributes": {"a": 1}
        }))
        .unwrap();
        assert_eq!(node.queue_sid.as_deref(), Some("WQ2"));
        assert_eq!(node.workflow_sid, "WW2");
        assert_eq!(node.attributes, json!({"a": 1}));
        assert!(
            serde_json::from_value::<Task>(json!({"sid": "WT3", "attributes": "{not json"}))
                .is_err()
        );
    }

    #[test]
    fn workflow_states() {
        let parse = |value: Value| serde_json::from_value::<Workflow>(value).unwrap();
        let filters = json!("{\"task_routing\":{\"filters\":[{\"expression\":\"1==1\",\"targets\":[{\"queue\":\"WQ1\"}]}]}}");
        assert!(
            parse(json!({"sid": "WW1", "friendly_name": "a", "configuration": filters}))
                .can_take_tasks()
        );
        let flagged = parse(
            json!({"sid": "WW1", "friendly_name": "a", "configuration": filters, "disabled": true}),
        );
        assert_eq!(
            flagged.disabled_reason().as_deref(),
            Some("it is marked disabled")
        );
        let status = parse(
            json!({"sid": "WW1", "friendly_name": "a", "configuration": filters, "status": "Inactive"}),
        );
        assert!(!status.can_take_tasks());
        let active = parse(
            json!({"sid": "WW1", "friendly_name": "a", "configuration": filters, "status": "active"}),
        );
        assert!(active.can_take_tasks());
        let none = parse(json!({"sid": "WW1", "friendly_name": "a"}));
        assert!(!none.can_take_tasks());
        let empty_default =
            parse(json!({"sid": "WW1", "configuration": {"task_routing": {"default_filter": {}}}}));
        assert!(!empty_default.can_take_tasks());
        assert_eq!(
            empty_default.ensure_can_take_tasks().unwrap_err().cause(),
            "workflow_disabled"
        );
    }

    #[test]
    fn errors_say_their_cause_and_become_upstream_errors() {
        let errors = [
            TaskRouterError::WorkflowNotFound {
                workflow: "Callbacks".into(),
            },
            TaskRouterError::WorkflowDeleted { sid: "WW1".into() },
            TaskRouterError::QueueMismatch {
                workflow_sid: "WW1".into(),
                task_sid: "WT1".into(),
                expected: "WQ1".into(),
                got: Some("WQ2".into()),
            },
            TaskRouterError::Rejected {
                workflow_sid: "WW1".into(),
                status: 400,
                message: "Invalid".into(),
            },
        ];
        let causes: Vec<_> = errors.iter().map(TaskRouterError::cause).collect();
        assert_eq!(
            causes,
            [
                "workflow_not_found",
                "workflow_deleted",
                "queue_mismatch",
                "rejected"
            ]
        );
        assert_eq!(
            errors[0].workflow_sid(),
            Some("Callbacks"),
            "a friendly name is named too"
        );
        assert_eq!(errors[1].workflow_sid(), Some("WW1"));
        let other = TaskRouterError::WorkflowInOtherWorkspace {
            sid: "WW1".into(),
            workspace_sid: "WS2".into(),
            workspace_name: Some("Staging".into()),
        };
        assert_eq!(
            (other.cause(), other.workflow_sid(), other.workspace_sid()),
            ("workflow_other_workspace", Some("WW1"), Some("WS2"))
        );
        assert_eq!(
            other.to_string(),
            "workflow WW1 is not in this workspace (404) but in workspace WS2 “Staging”: its SID is another environment's; set this workspace's workflow"
        );
        assert_eq!(errors[1].workspace_sid(), None);
        let error: Error = errors.into_iter().nth(2).unwrap().into();
        assert_eq!(error.kind(), ErrorKind::Upstream);
        assert_eq!(
            error.message(),
            "task WT1 was routed by workflow WW1 to queue WQ2, expected queue WQ1: check the workflow's filters"
        );
    }

    #[test]
    fn local_sids() {
        assert_eq!(local_queue_sid("WW1"), local_queue_sid("WW1"));
        assert_ne!(local_queue_sid("WW1"), local_queue_sid("WW2"));
        assert_eq!(local_queue_sid("WW1").len(), 34);
        let (a, b) = (random_hex(), random_hex());
        assert_ne!(a, b);
        assert!(a.len() == 32 && a.bytes().all(|b| b.is_ascii_hexdigit()));
    }

    #[test]
    fn urls_encode_their_segments() {
        let client = TaskRouterClient::new(
            TaskRouterConfig::new("WS1", "AC1", Secret::new("pw-canary-unit"))
                .with_base_url("http://127.0.0.1:9/v1/"),
        )
        .unwrap();
        assert_eq!(
            client.url(&["Workflows", "../Tasks?x=1"]).as_str(),
            "http://127.0.0.1:9/v1/Workspaces/WS1/Workflows/..%2FTasks%3Fx=1"
        );
        assert!(TaskRouterClient::new(
            TaskRouterConfig::new("WS1", "AC1", Secret::new("x")).with_base_url("ftp://x")
        )
        .is_err());
        assert!(
            TaskRouterClient::new(TaskRouterConfig::new(" ", "AC1", Secret::new("x"))).is_err()
        );
    }
}
