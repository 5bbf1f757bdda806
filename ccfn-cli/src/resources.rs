//! The platform's resources as ccfn reads them: one type per resource,
//! with the field names and the nullability of the platform's published
//! definitions (`support/platform-api/oai-subset.json`, extracted
//! from the platform's OpenAPI definitions).
//!
//! - **Only the fields ccfn reads or shows.** A field the definitions
//!   mark `nullable` is an `Option`; one they do not is a plain value,
//!   and a null there is an answer not shaped as the definitions say,
//!   reported as such ([`parse`]) instead of read as "absent".
//! - **Absent is not null.** The definitions name no field as required,
//!   and a list may leave fields out that fetching one item returns (a
//!   flow's `definition`, `valid`, `errors` and `warnings` are null in the
//!   flow list): every type takes a missing field as its default (`None`,
//!   `0`, `""`), and the commands that need such a field fetch the item
//!   by its SID ([`Flow::is_complete`]).
//! - **Untyped fields stay JSON.** Where the definitions give no type (a
//!   flow's `definition`, an execution's `context`, a call event's
//!   `request` and `response`), the field is a [`Value`] and the type
//!   reads it through methods that say what they look for.
//! - **`--json` prints the platform's item, whole.** The commands read
//!   these types, but `--json` writes the item as the platform returned
//!   it (redacted, masked when asked): it is the platform's answer with
//!   the platform's own field names, which the operator compares with the
//!   platform's documentation and console; a field ccfn does not read is
//!   still there.
//!
//! The definitions have no workspace resource (ccfn names a workspace
//! by its SID and reads nothing of it), so there is no type for one.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use crate::platform::{Platform, PlatformError, Product};

/// Reads `value` as a `T`, or says which field of `resource`'s answer is
/// not as the platform's definitions describe it.
pub(crate) fn parse<T: DeserializeOwned>(resource: &str, value: Value) -> Result<T, PlatformError> {
    serde_path_to_error::deserialize(value).map_err(|err| PlatformError {
        resource: resource.to_owned(),
        status: None,
        code: None,
        message: format!(
            "the platform's answer is not shaped as its definitions say: at `{}`: {}",
            err.path(),
            err.inner()
        ),
    })
}

/// Reads each of `items` as a `T` (see [`parse`]).
pub(crate) fn parse_all<T: DeserializeOwned>(
    resource: &str,
    items: &[Value],
) -> Result<Vec<T>, PlatformError> {
    items
        .iter()
        .map(|item| parse(resource, item.clone()))
        .collect()
}

/// Fetches `path` on `product` as a `T`.
pub(crate) async fn fetch<T: DeserializeOwned>(
    platform: &Platform,
    resource: &str,
    product: Product,
    path: &str,
) -> Result<T, PlatformError> {
    let value = platform.fetch_at(resource, product, path).await?;
    parse(resource, value)
}

/// Lists up to `limit` items of `key` from `url` (its filters in the
/// query) as `T`s.
pub(crate) async fn list<T: DeserializeOwned>(
    platform: &Platform,
    resource: &str,
    url: reqwest::Url,
    key: &str,
    limit: usize,
) -> Result<Vec<T>, PlatformError> {
    let items = platform.list(resource, url, key, limit).await?;
    parse_all(resource, &items)
}

/// Lists up to `limit` items of `key` at `path` on `product` as `T`s.
pub(crate) async fn list_at<T: DeserializeOwned>(
    platform: &Platform,
    resource: &str,
    product: Product,
    path: &str,
    key: &str,
    limit: usize,
) -> Result<Vec<T>, PlatformError> {
    list(platform, resource, platform.url(product, path), key, limit).await
}

/// A call (2010 API, `api.v2010.account.call`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Call {
    pub(crate) sid: Option<String>,
    pub(crate) status: String,
    pub(crate) direction: Option<String>,
    pub(crate) from: Option<String>,
    pub(crate) to: Option<String>,
    /// RFC 2822, as the 2010 API writes dates.
    pub(crate) start_time: Option<String>,
    pub(crate) end_time: Option<String>,
    pub(crate) duration: Option<String>,
    pub(crate) answered_by: Option<String>,
    pub(crate) parent_call_sid: Option<String>,
}

/// A call's recording (2010 API, `api.v2010.account.call.call_recording`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Recording {
    pub(crate) sid: Option<String>,
    pub(crate) status: String,
    pub(crate) duration: Option<String>,
    pub(crate) date_created: Option<String>,
}

/// A call's event: a request the platform made to one of the call's
/// webhooks, and the answer (2010 API, `api.v2010.account.call.call_event`;
/// both untyped in the definitions).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Event {
    pub(crate) request: Option<Value>,
    pub(crate) response: Option<Value>,
}

impl Event {
    /// The webhook's URL (`request.url`).
    pub(crate) fn url(&self) -> Option<&str> {
        self.request.as_ref()?.get("url")?.as_str()
    }

    /// The webhook's HTTP status (`response.response_code`).
    pub(crate) fn response_code(&self) -> Option<u64> {
        number(self.response.as_ref()?.get("response_code")?)
    }

    /// How long the webhook took, in ms (`response.request_duration`).
    pub(crate) fn request_duration(&self) -> Option<u64> {
        number(self.response.as_ref()?.get("request_duration")?)
    }

    /// The size of the answer in bytes: its body's, else its
    /// `content-length` header's.
    pub(crate) fn response_bytes(&self) -> Option<u64> {
        let response = self.response.as_ref()?;
        match response.get("response_body") {
            Some(Value::String(body)) => Some(body.len() as u64),
            _ => response
                .get("headers")?
                .get("content-length")
                .and_then(number),
        }
    }
}

/// A number, or a number written as text.
fn number(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
}

/// A call's annotation (Insights v1, `insights.v1.call.annotation`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Annotation {
    pub(crate) answered_by: String,
    pub(crate) call_score: Option<i64>,
    pub(crate) quality_issues: Option<Vec<Value>>,
    pub(crate) spam: Option<bool>,
    pub(crate) comment: Option<String>,
    pub(crate) incident: Option<String>,
}

/// A serverless service (Serverless v1, `serverless.v1.service`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Service {
    pub(crate) sid: Option<String>,
    pub(crate) unique_name: Option<String>,
    pub(crate) friendly_name: Option<String>,
}

/// A service's function (Serverless v1, `serverless.v1.service.function`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Function {
    pub(crate) sid: Option<String>,
    pub(crate) friendly_name: Option<String>,
    pub(crate) date_updated: Option<String>,
}

/// A service's environment (Serverless v1,
/// `serverless.v1.service.environment`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Environment {
    pub(crate) sid: Option<String>,
    pub(crate) unique_name: Option<String>,
    pub(crate) domain_name: Option<String>,
    pub(crate) build_sid: Option<String>,
}

/// An environment's log line (Serverless v1,
/// `serverless.v1.service.environment.log`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Log {
    pub(crate) sid: Option<String>,
    pub(crate) date_created: Option<String>,
    pub(crate) level: Option<String>,
    pub(crate) function_sid: Option<String>,
    pub(crate) request_sid: Option<String>,
    pub(crate) message: Option<String>,
}

/// A flow (Studio v2, `studio.v2.flow`). In the flow list, `definition`,
/// `valid`, `errors` and `warnings` are null: only fetching the flow
/// returns them ([`Flow::is_complete`]).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Flow {
    pub(crate) sid: Option<String>,
    pub(crate) friendly_name: Option<String>,
    /// `draft` or `published`.
    pub(crate) status: String,
    pub(crate) revision: i64,
    pub(crate) valid: Option<bool>,
    pub(crate) errors: Option<Vec<Value>>,
    pub(crate) warnings: Option<Vec<Value>>,
    pub(crate) webhook_url: Option<String>,
    pub(crate) date_updated: Option<String>,
    /// The flow's JSON definition (untyped in the definitions).
    pub(crate) definition: Option<Value>,
}

/// A widget of a flow's definition (a `states` entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Widget {
    /// Its name, which steps name in `transitioned_from`/`transitioned_to`.
    pub(crate) name: String,
    /// Its type (`run-function`, `trigger`, ...).
    pub(crate) kind: String,
    /// The URL it calls (`properties.url`), for the widgets that call one.
    pub(crate) url: Option<String>,
}

impl Flow {
    /// Whether the item carries what only fetching the flow returns (the
    /// definition and the validity); a list item does not.
    pub(crate) fn is_complete(&self) -> bool {
        self.definition.is_some() && self.valid.is_some()
    }

    /// The widgets of its definition (none when it has none).
    pub(crate) fn widgets(&self) -> Vec<Widget> {
        let states = self
            .definition
            .as_ref()
            .and_then(|d| d.get("states"))
            .and_then(Value::as_array);
        states
            .into_iter()
            .flatten()
            .filter_map(|state| {
                Some(Widget {
                    name: state.get("name")?.as_str()?.to_owned(),
                    kind: state
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    url: state
                        .get("properties")
                        .and_then(|p| p.get("url"))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                })
            })
            .collect()
    }

    /// Its function widgets (`run-function`).
    pub(crate) fn function_widgets(&self) -> Vec<Widget> {
        self.widgets()
            .into_iter()
            .filter(|w| w.kind == "run-function")
            .collect()
    }

    /// The messages of its errors (each error's `message`, else the error
    /// as JSON).
    pub(crate) fn error_messages(&self) -> Vec<String> {
        self.errors
            .iter()
            .flatten()
            .map(|error| {
                error
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| error.to_string(), str::to_owned)
            })
            .collect()
    }
}

/// A flow's execution (Studio v2, `studio.v2.flow.execution`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Execution {
    pub(crate) sid: Option<String>,
    pub(crate) flow_sid: Option<String>,
    /// `active` or `ended`.
    pub(crate) status: String,
    /// Who triggered it: a phone number in E.164, a SIP address, a client.
    pub(crate) contact_channel_address: Option<String>,
    pub(crate) date_created: Option<String>,
    pub(crate) date_updated: Option<String>,
}

/// An execution's step (Studio v2,
/// `studio.v2.flow.execution.execution_step`): `name` is the *event* that
/// caused the transition (`incomingCall`, `success`, ...), the widgets
/// are in `transitioned_from` (the widget that preceded) and
/// `transitioned_to` (the widget that follows).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Step {
    pub(crate) sid: Option<String>,
    /// The event that caused the transition.
    pub(crate) name: Option<String>,
    pub(crate) transitioned_from: Option<String>,
    pub(crate) transitioned_to: Option<String>,
    /// The type of the widget that was executed, when given.
    #[serde(rename = "type")]
    pub(crate) kind: Option<String>,
    pub(crate) date_created: Option<String>,
}

/// A step's context (Studio v2,
/// `studio.v2.flow.execution.execution_step.execution_step_context`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct StepContext {
    pub(crate) step_sid: Option<String>,
    /// The execution's state at the step (untyped in the definitions).
    pub(crate) context: Option<Value>,
}

impl StepContext {
    /// The HTTP status `widget` got (`context.widgets.{widget}.status_code`).
    pub(crate) fn status_code(&self, widget: &str) -> Option<u64> {
        number(
            self.context
                .as_ref()?
                .get("widgets")?
                .get(widget)?
                .get("status_code")?,
        )
    }
}

/// A task (TaskRouter v1, `taskrouter.v1.workspace.task`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Task {
    pub(crate) sid: Option<String>,
    pub(crate) assignment_status: String,
    pub(crate) reason: Option<String>,
    pub(crate) workflow_sid: Option<String>,
    pub(crate) workflow_friendly_name: Option<String>,
    pub(crate) task_queue_sid: Option<String>,
    pub(crate) task_queue_friendly_name: Option<String>,
    pub(crate) priority: i64,
    pub(crate) age: i64,
    pub(crate) timeout: i64,
    pub(crate) date_created: Option<String>,
    pub(crate) attributes: Option<String>,
}

/// A workflow (TaskRouter v1, `taskrouter.v1.workspace.workflow`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Workflow {
    pub(crate) sid: Option<String>,
    pub(crate) friendly_name: Option<String>,
    /// Its routing, as a JSON document in a string.
    pub(crate) configuration: Option<String>,
    pub(crate) date_updated: Option<String>,
}

impl Workflow {
    /// The queues it routes to: each filter's first target's queue, then
    /// the default filter's queue (`(default)` after it); empty when it
    /// cannot route a task.
    pub(crate) fn routes(&self) -> Vec<String> {
        let configuration: Value = self
            .configuration
            .as_deref()
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or(Value::Null);
        let routing = &configuration["task_routing"];
        let mut queues: Vec<String> = routing["filters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|filter| filter["targets"][0]["queue"].as_str().map(str::to_owned))
            .collect();
        if let Some(default) = routing["default_filter"]["queue"].as_str() {
            queues.push(format!("{default} (default)"));
        }
        queues
    }
}

/// A task-router workspace of the account (TaskRouter v1,
/// `taskrouter.v1.workspace`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Workspace {
    pub(crate) sid: Option<String>,
    pub(crate) friendly_name: Option<String>,
}

/// A task queue (TaskRouter v1, `taskrouter.v1.workspace.task_queue`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct TaskQueue {
    pub(crate) sid: Option<String>,
    pub(crate) friendly_name: Option<String>,
    pub(crate) target_workers: Option<String>,
    /// `FIFO` or `LIFO`.
    pub(crate) task_order: String,
}

/// A phone number of the account (2010 API,
/// `api.v2010.account.incoming_phone_number`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct IncomingNumber {
    pub(crate) sid: Option<String>,
    /// E.164.
    pub(crate) phone_number: Option<String>,
    pub(crate) friendly_name: Option<String>,
    pub(crate) voice_url: Option<String>,
    pub(crate) voice_method: Option<String>,
    pub(crate) voice_application_sid: Option<String>,
    pub(crate) trunk_sid: Option<String>,
}

impl IncomingNumber {
    /// What answers its calls: its trunk, else its application, else its
    /// voice URL (with its method).
    pub(crate) fn handler(&self) -> String {
        if let Some(trunk) = text(&self.trunk_sid) {
            return format!("trunk {trunk}");
        }
        if let Some(app) = text(&self.voice_application_sid) {
            return format!("application {app}");
        }
        match text(&self.voice_url) {
            Some(url) => format!("{} {url}", text(&self.voice_method).unwrap_or("POST")),
            None => "nothing (no voice URL)".to_owned(),
        }
    }
}

/// A field's text, when it has some (null and `""` are none).
pub(crate) fn text(field: &Option<String>) -> Option<&str> {
    field.as_deref().filter(|v| !v.is_empty())
}

/// The account (2010 API, `api.v2010.account`); its `auth_token` is
/// never read.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Account {
    pub(crate) sid: Option<String>,
    pub(crate) friendly_name: Option<String>,
    pub(crate) status: String,
    #[serde(rename = "type")]
    pub(crate) kind: String,
    pub(crate) owner_account_sid: Option<String>,
    pub(crate) date_created: Option<String>,
}

/// A usage record (2010 API, `api.v2010.account.usage.usage_record`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct UsageRecord {
    pub(crate) category: Option<String>,
    pub(crate) usage: Option<String>,
    pub(crate) usage_unit: Option<String>,
    pub(crate) price: Option<Price>,
    pub(crate) start_date: Option<String>,
    pub(crate) end_date: Option<String>,
}

/// A price: a number in the definitions, read as text too, as some
/// answers write it (`"1.20"`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub(crate) enum Price {
    /// As the definitions say.
    Number(f64),
    /// As text.
    Text(String),
}

impl std::fmt::Display for Price {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Price::Number(n) => write!(f, "{n}"),
            Price::Text(text) => f.write_str(text),
        }
    }
}

/// An application (2010 API, `api.v2010.account.application`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Application {
    pub(crate) sid: Option<String>,
    pub(crate) friendly_name: Option<String>,
    pub(crate) voice_url: Option<String>,
    pub(crate) voice_method: Option<String>,
}

/// An API key's metadata (2010 API, `api.v2010.account.key`); the list
/// has no secret.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Key {
    pub(crate) sid: Option<String>,
    pub(crate) friendly_name: Option<String>,
    pub(crate) date_created: Option<String>,
}

/// An alert (Monitor v1, `monitor.v1.alert`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Alert {
    pub(crate) sid: Option<String>,
    pub(crate) date_created: Option<String>,
    pub(crate) log_level: Option<String>,
    pub(crate) error_code: Option<String>,
    pub(crate) resource_sid: Option<String>,
    pub(crate) alert_text: Option<String>,
    pub(crate) request_url: Option<String>,
}

impl Alert {
    /// Whether any of its fields ccfn reads mentions `name`.
    pub(crate) fn names(&self, name: &str) -> bool {
        !name.is_empty()
            && [
                &self.sid,
                &self.resource_sid,
                &self.alert_text,
                &self.request_url,
            ]
            .into_iter()
            .any(|field| field.as_deref().is_some_and(|f| f.contains(name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    /// The platform's definitions, as extracted from its OpenAPI files.
    fn definitions() -> Value {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../support/platform-api/oai-subset.json"
        );
        let text = std::fs::read_to_string(path).expect("the platform's definitions");
        serde_json::from_str(&text).expect("the definitions are JSON")
    }

    /// The item schema of `operation`: a list's items, or a fetch's answer.
    fn item_schema(definitions: &Value, operation: &str) -> Value {
        for product in definitions["products"].as_object().unwrap().values() {
            for op in product["operations"].as_array().unwrap() {
                if op["operationId"] != operation {
                    continue;
                }
                let response = &op["response"];
                if operation.starts_with("List") {
                    for (key, field) in response["properties"].as_object().unwrap() {
                        if key != "meta" && field["type"] == "array" {
                            return field["items"].clone();
                        }
                    }
                }
                return response.clone();
            }
        }
        panic!("no operation {operation} in the definitions");
    }

    /// A value of `schema`'s type: the default or the first of its enum
    /// when it has one.
    fn sample(name: &str, schema: &Value) -> Value {
        if let Some(first) = schema["enum"].get(0) {
            return first.clone();
        }
        if let Some(default) = schema.get("default") {
            return default.clone();
        }
        match schema["type"].as_str() {
            Some("string") => match schema["format"].as_str() {
                Some("date-time-rfc-2822") => json!("Fri, 20 Nov 2026 10:00:00 +0000"),
                Some("date-time") => json!("2026-11-20T10:00:00Z"),
                Some("phone-number") => json!("+15559870000"),
                Some("uri") => json!(format!("https://example.com/{name}")),
                _ if name == "configuration" => json!("{\"task_routing\": {}}"),
                _ => json!(format!("{name}-value")),
            },
            Some("integer") => json!(7),
            Some("number") => json!(1.5),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!({ name: "untyped" }),
        }
    }

    /// An item with every field of `schema`: a value each (`full`), or
    /// null for every nullable field (not `full`).
    fn item(schema: &Value, full: bool) -> Value {
        let mut item = Map::new();
        for (name, field) in schema["properties"].as_object().unwrap() {
            let nullable = field["nullable"] == true;
            let value = if nullable && !full {
                Value::Null
            } else {
                sample(name, field)
            };
            item.insert(name.clone(), value);
        }
        Value::Object(item)
    }

    /// Deserializes a full and an all-nulls item of `operation` as `T`.
    fn both<T: DeserializeOwned + std::fmt::Debug>(definitions: &Value, operation: &str) -> (T, T) {
        let schema = item_schema(definitions, operation);
        let full = parse::<T>(operation, item(&schema, true))
            .unwrap_or_else(|err| panic!("{operation}, full: {err}"));
        let nulls = parse::<T>(operation, item(&schema, false))
            .unwrap_or_else(|err| panic!("{operation}, all nulls: {err}"));
        (full, nulls)
    }

    #[test]
    fn every_resource_reads_a_full_and_an_all_nulls_item_of_its_definition() {
        let d = definitions();
        let (full, nulls) = both::<Call>(&d, "ListCall");
        assert_eq!(
            full.start_time.as_deref(),
            Some("Fri, 20 Nov 2026 10:00:00 +0000")
        );
        assert_eq!((nulls.status.as_str(), nulls.from), ("queued", None));
        let _ = both::<Call>(&d, "FetchCall");
        let (full, nulls) = both::<Recording>(&d, "ListCallRecording");
        assert!(full.sid.is_some() && nulls.sid.is_none());
        let (full, nulls) = both::<Event>(&d, "ListCallEvent");
        assert!(full.request.is_some() && nulls.request.is_none() && nulls.url().is_none());
        let (full, nulls) = both::<Annotation>(&d, "FetchAnnotation");
        assert_eq!(full.call_score, Some(7));
        assert_eq!(nulls.comment, None);
        let _ = both::<Service>(&d, "ListService");
        let _ = both::<Service>(&d, "FetchService");
        let _ = both::<Function>(&d, "ListFunction");
        let _ = both::<Environment>(&d, "ListEnvironment");
        let _ = both::<Log>(&d, "ListLog");
        let (full, nulls) = both::<Flow>(&d, "ListFlow");
        assert_eq!(full.status, "draft");
        assert!(!nulls.is_complete() && nulls.widgets().is_empty());
        let _ = both::<Flow>(&d, "FetchFlow");
        let (_, nulls) = both::<Execution>(&d, "ListExecution");
        assert_eq!(nulls.status, "active");
        let _ = both::<Execution>(&d, "FetchExecution");
        let (full, nulls) = both::<Step>(&d, "ListExecutionStep");
        assert_eq!(full.kind.as_deref(), Some("type-value"));
        assert_eq!(nulls.transitioned_to, None);
        let _ = both::<Step>(&d, "FetchExecutionStep");
        let (_, nulls) = both::<StepContext>(&d, "FetchExecutionStepContext");
        assert_eq!(nulls.status_code("any"), None);
        let (full, nulls) = both::<Task>(&d, "ListTask");
        assert_eq!(
            (full.sid.is_some(), nulls.assignment_status.as_str()),
            (true, "pending")
        );
        let _ = both::<Task>(&d, "FetchTask");
        let (full, nulls) = both::<Workflow>(&d, "ListWorkflow");
        assert!(full.routes().is_empty() && nulls.routes().is_empty());
        let _ = both::<Workflow>(&d, "FetchWorkflow");
        let (_, nulls) = both::<TaskQueue>(&d, "ListTaskQueue");
        assert_eq!(nulls.task_order, "FIFO");
        let _ = both::<TaskQueue>(&d, "FetchTaskQueue");
        let (full, nulls) = both::<IncomingNumber>(&d, "ListIncomingPhoneNumber");
        assert_eq!(full.phone_number.as_deref(), Some("+15559870000"));
        assert_eq!(nulls.handler(), "nothing (no voice URL)");
        let _ = both::<IncomingNumber>(&d, "FetchIncomingPhoneNumber");
        let (full, nulls) = both::<Account>(&d, "FetchAccount");
        assert_eq!(
            (full.kind.as_str(), nulls.status.as_str()),
            ("Trial", "active")
        );
        let (full, _) = both::<UsageRecord>(&d, "ListUsageRecord");
        assert_eq!(full.price, Some(Price::Number(1.5)));
        let _ = both::<Application>(&d, "ListApplication");
        let _ = both::<Application>(&d, "FetchApplication");
        let _ = both::<Key>(&d, "ListKey");
        let (full, nulls) = both::<Alert>(&d, "ListAlert");
        assert!(full.error_code.is_some() && nulls.error_code.is_none());
        let _ = both::<Alert>(&d, "FetchAlert");
    }

    // Long because it is one table, a row per resource type and the
    // fields read from it: split, a type could be left out unseen.
    #[test]
    fn every_field_read_is_a_field_of_the_definitions() {
        // A field renamed or misspelt here would read as absent forever:
        // each type's fields must be properties of its definition.
        let d = definitions();
        let fields: [(&str, &[&str]); 10] = [
            (
                "ListCall",
                &[
                    "sid",
                    "status",
                    "direction",
                    "from",
                    "to",
                    "start_time",
                    "end_time",
                    "duration",
                    "answered_by",
                    "parent_call_sid",
                ],
            ),
            (
                "ListFlow",
                &[
                    "sid",
                    "friendly_name",
                    "status",
                    "revision",
                    "valid",
                    "errors",
                    "warnings",
                    "webhook_url",
                    "date_updated",
                    "definition",
                ],
            ),
            (
                "ListExecution",
                &[
                    "sid",
                    "flow_sid",
                    "status",
                    "contact_channel_address",
                    "date_created",
                    "date_updated",
                ],
            ),
            (
                "ListExecutionStep",
                &[
                    "sid",
                    "name",
                    "transitioned_from",
                    "transitioned_to",
                    "type",
                    "date_created",
                ],
            ),
            (
                "ListTask",
                &[
                    "sid",
                    "assignment_status",
                    "reason",
                    "workflow_sid",
                    "workflow_friendly_name",
                    "task_queue_sid",
                    "task_queue_friendly_name",
                    "priority",
                    "age",
                    "timeout",
                    "date_created",
                    "attributes",
                ],
            ),
            (
                "ListWorkflow",
                &["sid", "friendly_name", "configuration", "date_updated"],
            ),
            (
                "ListTaskQueue",
                &["sid", "friendly_name", "target_workers", "task_order"],
            ),
            (
                "ListIncomingPhoneNumber",
                &[
                    "sid",
                    "phone_number",
                    "friendly_name",
                    "voice_url",
                    "voice_method",
                    "voice_application_sid",
                    "trunk_sid",
                ],
            ),
            (
                "ListAlert",
                &[
                    "sid",
                    "date_created",
                    "log_level",
                    "error_code",
                    "resource_sid",
                    "alert_text",
                    "request_url",
                ],
            ),
            (
                "FetchAccount",
                &[
                    "sid",
                    "friendly_name",
                    "status",
                    "type",
                    "owner_account_sid",
                    "date_created",
                ],
            ),
        ];
        for (operation, names) in fields {
            let schema = item_schema(&d, operation);
            for name in names {
                assert!(
                    schema["properties"].get(name).is_some(),
                    "{operation} has no field {name}"
                );
            }
        }
    }

    #[test]
    fn a_null_where_the_definitions_allow_none_is_named() {
        let err = parse::<Flow>("flow FW1", json!({"sid": "FW1", "status": null})).unwrap_err();
        assert_eq!(err.resource, "flow FW1");
        assert!(err.message.contains("at `status`"), "{}", err.message);
        let err = parse::<Task>("tasks", json!({"age": "old"})).unwrap_err();
        assert!(err.message.contains("at `age`"), "{}", err.message);
    }

    #[test]
    fn steps_name_events_and_widgets_apart() {
        let step: Step = parse(
            "steps",
            json!({"sid": "FT1", "name": "incomingCall", "transitioned_from": "Trigger", "transitioned_to": "wait_experience", "type": null}),
        )
        .unwrap();
        assert_eq!(step.name.as_deref(), Some("incomingCall"));
        assert_eq!(step.transitioned_to.as_deref(), Some("wait_experience"));
        assert_eq!(step.kind, None);
    }
}
