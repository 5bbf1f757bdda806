//! The contact center the fake sets up, broken as a scenario says.

use serde_json::{json, Value};

use super::center;
use super::{FakePlatform, Resource, ACCOUNT_SID};

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
    /// use ccfn_support::fake_platform::{center, FakePlatform, Scenario};
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
        let fake = self
            .with(
                Resource::IncomingPhoneNumbers,
                number(NUMBER_SID, NUMBER, "Main line", &voice_url),
            )
            .with(
                Resource::IncomingPhoneNumbers,
                number(SALES_NUMBER_SID, SALES_NUMBER, "Sales line", OLD_VOICE_URL),
            )
            .with(Resource::Flows, flow(scenario))
            .with(Resource::Calls, call(scenario))
            // A call event has no SID in the definitions: the page is
            // served whole, shaped as the 2010 API's pages.
            .with_object(
                format!("{account}/Calls/{CALL}/Events.json"),
                call_events(&voice_url),
            )
            .with_list(Resource::Alerts);
        let fake = task_router(fake, scenario);
        let fake = if scenario.runs_the_flow() {
            execution(fake, scenario)
        } else {
            fake
        };
        fake.with_object(format!("{account}.json"), the_account())
    }
}

/// The hours of the call's start and end, and of the flow's execution.
fn hours(scenario: Scenario) -> (&'static str, &'static str, &'static str) {
    if scenario == Scenario::LastSecondOfTheDay {
        ("23:59:58", "23:59:59", "23:59:59")
    } else {
        ("10:00:00", "10:00:42", "10:00:01")
    }
}

/// The flow, published and valid unless `scenario` says otherwise.
fn flow(scenario: Scenario) -> Value {
    use center::*;
    let (status, valid, errors) = match scenario {
        Scenario::FlowInDraft => ("draft", true, json!([])),
        Scenario::InvalidWidgetUrl => (
            "published",
            false,
            json!([{ "message": format!("Widget {WIDGET}: the webhook URL is not a valid URL"), "property_path": "#/states/1/properties/url" }]),
        ),
        _ => ("published", true, json!([])),
    };
    let flow_url = format!("https://studio.twilio.com/v2/Flows/{FLOW}");
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
    })
}

/// The call, at the hours of `scenario`.
fn call(scenario: Scenario) -> Value {
    use center::*;
    let account = format!("/2010-04-01/Accounts/{ACCOUNT_SID}");
    let (started, ended, _) = hours(scenario);
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
    })
}

/// The call's webhook log: one request to `voice_url`, answered.
fn call_events(voice_url: &str) -> Value {
    use center::*;
    let account = format!("/2010-04-01/Accounts/{ACCOUNT_SID}");
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
    })
}

/// The task router: both environments' workspaces, the staging
/// workflow, the queues, the tasks' list, and the callback workflow,
/// routing as `scenario` says (none when it was deleted).
fn task_router(fake: FakePlatform, scenario: Scenario) -> FakePlatform {
    use center::*;
    let routing = match scenario {
        Scenario::WorkflowDisabled => json!({ "task_routing": { "filters": [] } }),
        Scenario::QueueMismatch => {
            json!({ "task_routing": { "filters": [], "default_filter": { "queue": OTHER_QUEUE } } })
        }
        _ => json!({ "task_routing": { "filters": [], "default_filter": { "queue": QUEUE } } }),
    };
    let fake = fake
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
    if scenario == Scenario::WorkflowDeleted {
        return fake;
    }
    fake.with(
        Resource::Workflows {
            workspace: WORKSPACE.to_owned(),
        },
        workflow(WORKSPACE, WORKFLOW, "Callbacks", &routing),
    )
}

/// The flow's execution for the call, its two steps (into and out of the
/// function widget) and their contexts.
fn execution(fake: FakePlatform, scenario: Scenario) -> FakePlatform {
    use center::*;
    let (_, _, executed) = hours(scenario);
    let flow_url = format!("https://studio.twilio.com/v2/Flows/{FLOW}");
    let execution_url = format!("{flow_url}/Executions/{EXECUTION}");
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
    fake
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
        )
}

/// The account.
fn the_account() -> Value {
    let account = format!("/2010-04-01/Accounts/{ACCOUNT_SID}");
    json!({
        "sid": ACCOUNT_SID, "owner_account_sid": ACCOUNT_SID, "friendly_name": "Contact center",
        "status": "active", "type": "Full", "auth_token": "fake-platform-account-auth-token",
        "date_created": "Mon, 05 Jan 2026 09:00:00 +0000", "date_updated": "Mon, 05 Jan 2026 09:00:00 +0000",
        "uri": format!("{account}.json"), "subresource_uris": { "calls": format!("{account}/Calls.json") },
    })
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
