//! The task router over real HTTP: functions create tasks through the fake
//! task router (or the local store), and their records, errors and the
//! requests the fake saw are checked.

use std::io;
use std::sync::{Arc, Mutex};

use ccfn_core::function::ContactFunction;
use ccfn_core::prelude::*;
use ccfn_core::record::{ContractLayer, LogFormat};
use ccfn_core::taskrouter::{NewTask, TaskRouter, TaskRouterError};
use ccfn_core::ErrorKind;
use ccfn_testkit::fake_task_router::FakeTaskRouter;
use ccfn_testkit::FakeResponse;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};
use serde_json::{json, Value};

const AUTH_TOKEN: &str = "canary-taskrouter-auth-token-7d41c2";
const API_KEY_SECRET: &str = "canary-taskrouter-api-key-secret-e90b";
const WORKSPACE: &str = "WSaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const ACCOUNT: &str = "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const WORKFLOW: &str = "WW11111111111111111111111111111111";
const QUEUE: &str = "WQ11111111111111111111111111111111";
const CALLER_MESSAGE: &str = "Option not available at this time";

fn routing(queue: &str) -> Value {
    json!({
        "task_routing": {
            "filters": [{ "filter_friendly_name": "callbacks", "expression": "type == \"callback\"", "targets": [{ "queue": queue }] }],
            "default_filter": { "queue": queue }
        }
    })
}

fn attributes(event: &Event) -> Value {
    json!({
        "type": "callback",
        "from": event.from(),
        "to": event.to(),
        "call_sid": event.call_sid(),
    })
}

/// Creates a callback task in the configured workflow, without looking
/// the workflow up first.
///
/// # Trigger
/// Studio "Run Function" widget, `mode=callback`.
/// # Optional environment
/// expectedQueue
/// # Dependencies
/// Task router.
/// # Critical logging
/// Task creation result.
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = [PLATFORM_WORKSPACE_SID, "workflowSid"])]
async fn create_callback(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let router = TaskRouter::from_context(&context)?;
    let mut task = NewTask::new(
        context.get("workflowSid").unwrap_or_default(),
        attributes(&event),
    );
    if let Some(queue) = context.get("expectedQueue") {
        task = task.expect_queue(queue);
    }
    let mut twiml = VoiceResponse::new();
    match router.create_task(&task).await {
        Ok(task) => twiml.say(format!("We will call you back. Task {}.", task.sid)),
        Err(error) => {
            error.log();
            twiml.say(TaskRouterError::caller_message())
        }
    };
    Ok(callback.success(twiml))
}

/// Looks the workflow up (by `workflowName`, else by `workflowSid`),
/// checks it can take tasks, then creates a callback task.
///
/// # Trigger
/// Studio "Run Function" widget, `mode=callback`.
/// # Optional environment
/// workflowName
/// # Dependencies
/// Task router.
/// # Critical logging
/// Task creation result.
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = [PLATFORM_WORKSPACE_SID])]
async fn checked_callback(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let router = TaskRouter::from_context(&context)?;
    let workflow = match context.get("workflowName") {
        Some(name) => router.find_workflow(name).await,
        None => {
            router
                .active_workflow(context.get("workflowSid").unwrap_or_default())
                .await
        }
    };
    let created = match workflow {
        Ok(workflow) => {
            router
                .create_task(&NewTask::new(&workflow.sid, attributes(&event)))
                .await
        }
        Err(error) => Err(error),
    };
    let mut twiml = VoiceResponse::new();
    match created {
        Ok(task) => twiml.say(format!("We will call you back. Task {}.", task.sid)),
        Err(error) => {
            error.log();
            twiml.say(TaskRouterError::caller_message())
        }
    };
    Ok(callback.success(twiml))
}

/// Creates a task and fails the invocation with the task router's error.
///
/// # Trigger
/// Test.
/// # Dependencies
/// Task router.
/// # Critical logging
/// Task creation result.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = [PLATFORM_WORKSPACE_SID, "workflowSid"], kind = task)]
async fn create_or_fail(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let router = TaskRouter::from_context(&context)?;
    let task = router
        .create_task(&NewTask::new(
            context.get("workflowSid").unwrap_or_default(),
            attributes(&event),
        ))
        .await?;
    Ok(callback.success(json!({ "task_sid": task.sid, "queue_sid": task.queue_sid })))
}

/// Creates a callback task, with `?` on the task router's error: the
/// same record and answer as [`create_callback`]'s handling by hand.
///
/// # Trigger
/// Studio "Run Function" widget, `mode=callback`.
/// # Dependencies
/// Task router.
/// # Critical logging
/// Task creation result.
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = [PLATFORM_WORKSPACE_SID, "workflowSid"])]
async fn create_callback_with_question_mark(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let router = TaskRouter::from_context(&context)?;
    let task = NewTask::new(context.required("workflowSid"), attributes(&event));
    let task = router.create_task(&task).await?;
    let mut twiml = VoiceResponse::new();
    twiml.say(format!("We will call you back. Task {}.", task.sid));
    Ok(callback.success(twiml))
}

/// The context of a function that reaches `fake` with the auth token.
fn remote(fake: &FakeTaskRouter) -> FakeContext {
    FakeContext::new()
        .value("TASKROUTER_BASE_URL", fake.url())
        .value("AUTH_TOKEN", AUTH_TOKEN)
        .value("workflowSid", WORKFLOW)
}

/// The voice document the function returned.
fn reply_text(run: &Run) -> String {
    match run.reply() {
        Some(ccfn_core::Reply::Voice(voice)) => voice.xml().to_owned(),
        other => panic!("expected a voice document, got {other:?}"),
    }
}

fn task_error(run: &Run) -> &serde_json::Map<String, Value> {
    run.record("task_error").expect("a task_error record")
}

/// The steps the task router writes (the contract's own, voice records
/// included, are checked by `assert_contract`).
const TASK_STEPS: [&str; 8] = [
    "task_store",
    "workflow",
    "task_attributes",
    "api_request",
    "auth",
    "api_response",
    "critical",
    "task_error",
];

fn task_steps(run: &Run) -> Vec<&str> {
    run.steps()
        .into_iter()
        .filter(|step| TASK_STEPS.contains(step))
        .collect()
}

/// The task router's records, stable: the fake's port and the response
/// sizes (which count the port's digits) replaced.
fn stable_snapshot(run: &Run, fake: &FakeTaskRouter) -> String {
    let origin = format!("127.0.0.1:{}", fake.addr().port());
    run.snapshot()
        .lines()
        .filter(|line| {
            let record: Value = serde_json::from_str(line).unwrap();
            TASK_STEPS.contains(&record["step"].as_str().unwrap_or_default())
        })
        .map(|line| {
            let mut record: Value =
                serde_json::from_str(&line.replace(&origin, "127.0.0.1:[port]")).unwrap();
            if record.get("response_bytes").is_some() {
                record["response_bytes"] = json!("[bytes]");
            }
            format!("{record}\n")
        })
        .collect()
}

#[tokio::test]
async fn task_creation_logs_workflow_attributes_call_and_critical() {
    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE))
        .with_queue(QUEUE, "Callbacks queue");
    let run = invoke(create_callback, remote(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    run.assert_no_leak(&[AUTH_TOKEN]);
    assert_eq!(
        task_steps(&run),
        [
            "workflow",
            "task_attributes",
            "api_request",
            "auth",
            "api_response",
            "critical"
        ]
    );
    let expected_attributes = json!({
        "type": "callback",
        "from": "+15551230000",
        "to": "+15559870000",
        "call_sid": "CA0123456789abcdef0123456789abcdef",
    });
    assert_eq!(run.record("workflow").unwrap()["workflow_sid"], WORKFLOW);
    assert_eq!(
        run.record("task_attributes").unwrap()["attributes"],
        expected_attributes
    );
    let request = run.record("api_request").unwrap();
    assert_eq!(request["method"], "POST");
    assert_eq!(
        request["url"],
        format!("{}/Workspaces/{WORKSPACE}/Tasks", fake.url())
    );
    assert_eq!(request["headers"]["authorization"], "[REDACTED]");
    assert_eq!(run.record("auth").unwrap()["token_type"], "basic");
    assert_eq!(run.record("api_response").unwrap()["status"], 201);
    let critical = run.record("critical").unwrap();
    assert_eq!(critical["level"], "INFO");
    assert_eq!(critical["task_sid"], "WT00000000000000000000000000000001");
    assert_eq!(critical["queue_sid"], QUEUE);
    assert_eq!(critical["workflow_sid"], WORKFLOW);
    assert_eq!(critical["attributes"], expected_attributes);
    assert!(reply_text(&run)
        .contains("We will call you back. Task WT00000000000000000000000000000001."));
    // No `<Enqueue>` names a queue: the queue is the one the task went to,
    // by the name the task router answered.
    let config = run.record("taskrouter_config").unwrap();
    assert_eq!(config["queue"], "Callbacks queue");
    assert_eq!(config["workflow_sid"], WORKFLOW);

    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(sent.method(), "POST");
    assert_eq!(sent.path(), format!("/v1/Workspaces/{WORKSPACE}/Tasks"));
    assert_eq!(sent.form("WorkflowSid").as_deref(), Some(WORKFLOW));
    let sent_attributes: Value =
        serde_json::from_str(sent.form("Attributes").as_deref().unwrap()).unwrap();
    assert_eq!(sent_attributes, expected_attributes);
    assert_eq!(sent.username().as_deref(), Some(ACCOUNT));
    assert_eq!(sent.password().as_deref(), Some(AUTH_TOKEN));

    insta::assert_snapshot!("task_creation", stable_snapshot(&run, &fake));
}

/// A writer the test reads back.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

struct LineWriter(Lines);

impl io::Write for LineWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        (self.0).0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Lines {
    type Writer = LineWriter;

    fn make_writer(&'a self) -> LineWriter {
        LineWriter(self.clone())
    }
}

#[tokio::test]
async fn critical_record_is_written_whatever_the_filter() {
    use tracing::instrument::WithSubscriber as _;
    use tracing_subscriber::layer::SubscriberExt as _;

    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE));
    let lines = Lines::default();
    let subscriber = tracing_subscriber::registry().with(
        ContractLayer::new(LogFormat::Json, lines.clone())
            .with_filter(ccfn_core::record::parse_filter("error").unwrap()),
    );
    let completion = create_callback
        .invoke(remote(&fake).build(), FakeEvent::voice().build())
        .with_subscriber(subscriber)
        .await;
    assert!(completion.result().is_ok());
    let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
    let records: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let steps: Vec<&str> = records
        .iter()
        .map(|r| r["step"].as_str().unwrap())
        .collect();
    assert_eq!(
        steps,
        ["critical"],
        "only the critical record passes an `error` filter:\n{text}"
    );
    let critical = &records[0];
    assert_eq!(critical["task_sid"], "WT00000000000000000000000000000001");
    assert_eq!(critical["queue_sid"], QUEUE);
    assert_eq!(critical["function"], "create-callback");
    assert_eq!(
        critical["invocation_id"],
        completion.invocation_id().as_str()
    );
    assert!(!text.contains(AUTH_TOKEN));
}

#[tokio::test]
async fn workflow_not_found_by_friendly_name() {
    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Sales", routing(QUEUE));
    let context = remote(&fake).value("workflowName", "Callbacks");
    let run = invoke(checked_callback, context, FakeEvent::voice()).await;
    run.assert_contract();
    assert!(reply_text(&run).contains(CALLER_MESSAGE));
    let error = task_error(&run);
    assert_eq!(error["level"], "ERROR");
    assert_eq!(error["cause"], "workflow_not_found");
    assert_eq!(
        error["workflow_sid"], "Callbacks",
        "the missing workflow is named"
    );
    assert_eq!(error["caller_message"], CALLER_MESSAGE);
    assert_eq!(
        error["message"],
        "Task routing failed: workflow `Callbacks` not found in the workspace: no workflow has that friendly name or SID (is it configured for another environment?)"
    );
    assert_eq!(
        task_steps(&run),
        ["api_request", "auth", "api_response", "task_error"]
    );
    assert!(
        fake.requests().iter().all(|r| r.method() == "GET"),
        "no task was created"
    );
}

#[tokio::test]
async fn workflow_found_by_friendly_name_on_the_third_page() {
    let mut fake = FakeTaskRouter::start().await;
    for n in 0..120 {
        fake = fake.with_workflow(
            format!("WW{n:032}"),
            format!("Workflow {n}"),
            routing(QUEUE),
        );
    }
    let context = remote(&fake).value("workflowName", "Workflow 119");
    let run = invoke(checked_callback, context, FakeEvent::voice()).await;
    run.assert_contract();
    assert_eq!(
        run.record("workflow").unwrap()["workflow_sid"],
        format!("WW{:032}", 119)
    );
    assert!(run.record("critical").is_some());
    let lists: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.method() == "GET")
        .collect();
    assert_eq!(lists.len(), 3, "{lists:?}");
    let pages: Vec<_> = lists
        .iter()
        .map(|r| r.query("Page").map(str::to_owned))
        .collect();
    assert_eq!(pages, [None, Some("1".to_owned()), Some("2".to_owned())]);
    assert!(lists.iter().all(|r| r.query("PageSize") == Some("50")));
    assert!(lists
        .iter()
        .all(|r| r.password().as_deref() == Some(AUTH_TOKEN)));
    assert_eq!(
        run.records_of("api_request").len(),
        4,
        "3 pages and the task"
    );
}

#[tokio::test]
async fn workflow_pages_that_loop_are_a_lookup_failure() {
    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Sales", routing(QUEUE))
        .looping_pages();
    let context = remote(&fake).value("workflowName", "Callbacks");
    let run = invoke(checked_callback, context, FakeEvent::voice()).await;
    run.assert_contract();
    let error = task_error(&run);
    assert_eq!(error["cause"], "lookup_failed");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("the workflow list pages in a loop"),
        "{error:?}"
    );
    assert!(fake.requests().len() <= 3, "stopped at the repeat");
}

#[tokio::test]
async fn disabled_workflow() {
    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE))
        .disable(WORKFLOW);
    let run = invoke(checked_callback, remote(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    assert!(reply_text(&run).contains(CALLER_MESSAGE));
    let error = task_error(&run);
    assert_eq!(error["cause"], "workflow_disabled");
    assert_eq!(error["workflow_sid"], WORKFLOW);
    assert_eq!(
        error["message"],
        format!("Task routing failed: workflow {WORKFLOW} is disabled: its routing configuration has no filters and no default filter, so it cannot route tasks")
    );
    assert_eq!(run.record("api_response").unwrap()["status"], 200);
    assert!(run.record("critical").is_none());
    assert_eq!(fake.requests().len(), 1, "fetched, never posted");
}

#[tokio::test]
async fn deleted_workflow_is_a_404_on_fetch() {
    let fake = FakeTaskRouter::start().await.with_workflow(
        "WW22222222222222222222222222222222",
        "Other",
        routing(QUEUE),
    );
    let run = invoke(checked_callback, remote(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    assert!(reply_text(&run).contains(CALLER_MESSAGE));
    let response = run.record("api_response").unwrap();
    assert_eq!(response["status"], 404);
    assert_eq!(response["level"], "WARN");
    let error = task_error(&run);
    assert_eq!(error["cause"], "workflow_deleted");
    assert_eq!(error["workflow_sid"], WORKFLOW);
    assert_eq!(
        error["message"],
        format!("Task routing failed: workflow {WORKFLOW} does not exist (404): it was deleted, or its SID belongs to another workspace or environment")
    );
    assert_eq!(
        fake.requests()[0].path(),
        format!("/v1/Workspaces/{WORKSPACE}/Workflows/{WORKFLOW}")
    );
}

#[tokio::test]
async fn a_workflow_of_another_workspace_is_named_with_its_workspace() {
    const STAGING: &str = "WSbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    const EMPTY: &str = "WScccccccccccccccccccccccccccccccc";
    let fake = FakeTaskRouter::start()
        .await
        .with_workspace(WORKSPACE, "Production")
        .with_workspace(EMPTY, "Sandbox")
        .with_workspace(STAGING, "Staging")
        .with_workflow_in(STAGING, WORKFLOW, "Callbacks", routing(QUEUE));
    let run = invoke(checked_callback, remote(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    run.assert_no_leak(&[AUTH_TOKEN]);
    assert!(reply_text(&run).contains(CALLER_MESSAGE));
    let error = task_error(&run);
    assert_eq!(error["cause"], "workflow_other_workspace");
    assert_eq!(error["workflow_sid"], WORKFLOW);
    assert_eq!(error["workspace_sid"], STAGING);
    assert_eq!(
        error["message"],
        format!("Task routing failed: workflow {WORKFLOW} is not in this workspace (404) but in workspace {STAGING} “Staging”: its SID is another environment's; set this workspace's workflow")
    );
    // This workspace, the list, then each other workspace until one has it;
    // never its own twice.
    let paths: Vec<String> = fake
        .requests()
        .into_iter()
        .map(|r| r.path().to_owned())
        .collect();
    assert_eq!(
        paths,
        [
            format!("/v1/Workspaces/{WORKSPACE}/Workflows/{WORKFLOW}"),
            "/v1/Workspaces".to_owned(),
            format!("/v1/Workspaces/{EMPTY}/Workflows/{WORKFLOW}"),
            format!("/v1/Workspaces/{STAGING}/Workflows/{WORKFLOW}"),
        ]
    );
    assert!(run.record("critical").is_none(), "no task created");
}

#[tokio::test]
async fn a_workflow_no_workspace_has_is_deleted() {
    let fake = FakeTaskRouter::start()
        .await
        .with_workspace(WORKSPACE, "Production")
        .with_workspace("WSbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "Staging");
    let run = invoke(checked_callback, remote(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    let error = task_error(&run);
    assert_eq!(error["cause"], "workflow_deleted");
    assert!(error.get("workspace_sid").is_none(), "{error:?}");
    assert_eq!(fake.requests().len(), 3, "this one, the list, the other");
}

#[tokio::test]
async fn lookup_failure_on_a_500() {
    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE));
    fake.fail_with(FakeResponse::status(500).body("application/json", r#"{"code": 20500, "message": "Internal Server Error", "more_info": "https://www.twilio.com/docs/errors/20500", "status": 500}"#));
    let run = invoke(checked_callback, remote(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    assert!(reply_text(&run).contains(CALLER_MESSAGE));
    let error = task_error(&run);
    assert_eq!(error["cause"], "lookup_failed");
    assert_eq!(
        error["message"],
        format!(
            "Task routing failed: task router lookup failed: GET {}/Workspaces/{WORKSPACE}/Workflows/{WORKFLOW} answered 500: Internal Server Error (error 20500)",
            fake.url()
        )
    );
    assert!(run.record("critical").is_none());
}

#[tokio::test]
async fn unauthorized_is_a_lookup_error_that_names_no_secret() {
    let fake = FakeTaskRouter::start().await;
    fake.fail_with(FakeResponse::status(401).body("application/json", r#"{"code": 20003, "message": "Authenticate", "more_info": "https://www.twilio.com/docs/errors/20003", "status": 401}"#));
    let run = invoke(create_or_fail, remote(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    let error = run.error().expect("the invocation fails");
    assert_eq!(error.kind(), ErrorKind::Upstream);
    assert_eq!(
        error.message(),
        format!(
            "task router lookup failed: POST {}/Workspaces/{WORKSPACE}/Tasks answered 401: the credentials were refused (Authenticate (error 20003)); check ACCOUNT_SID and AUTH_TOKEN, or API_KEY_SID and API_KEY_SECRET, and that they belong to the workspace's account",
            fake.url()
        )
    );
    assert!(!error.stack().contains(AUTH_TOKEN));
    assert_eq!(run.record("api_response").unwrap()["status"], 401);
    assert!(run.record("critical").is_none());
    run.assert_no_leak(&[AUTH_TOKEN]);
    assert_eq!(fake.requests()[0].password().as_deref(), Some(AUTH_TOKEN));
}

#[tokio::test]
async fn rejected_task_carries_the_platform_message() {
    let fake = FakeTaskRouter::start().await;
    let run = invoke(create_callback, remote(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    let error = task_error(&run);
    assert_eq!(error["cause"], "rejected");
    assert_eq!(
        error["message"],
        format!("Task routing failed: the task router refused the task for workflow {WORKFLOW} (400): Invalid WorkflowSid: {WORKFLOW} not found in workspace (error 20001)")
    );
    assert!(run.record("critical").is_none());
}

#[tokio::test]
async fn question_mark_on_a_task_router_error_is_handling_it_by_hand() {
    let fake = FakeTaskRouter::start().await;
    let by_hand = invoke(create_callback, remote(&fake), FakeEvent::voice()).await;
    let with_question_mark = invoke(
        create_callback_with_question_mark,
        remote(&fake),
        FakeEvent::voice(),
    )
    .await;
    for run in [&by_hand, &with_question_mark] {
        run.assert_contract();
        assert!(run.error().is_none(), "{:?}", run.completion());
        assert_eq!(run.records_of("task_error").len(), 1);
        assert!(run.record("error").is_none());
    }
    let (hand, mark) = (task_error(&by_hand), task_error(&with_question_mark));
    for field in [
        "level",
        "message",
        "cause",
        "workflow_sid",
        "caller_message",
    ] {
        assert_eq!(hand[field], mark[field], "{field}");
    }
    assert_eq!(
        reply_text(&with_question_mark),
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Say>{CALLER_MESSAGE}</Say></Response>"
        )
    );
    assert_eq!(reply_text(&with_question_mark), reply_text(&by_hand));

    // A function that is not a voice function fails, with the caller's
    // message and nothing of the platform's.
    let run = invoke(create_or_fail, remote(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    assert_eq!(run.records_of("task_error").len(), 1);
    let error = run.error().expect("the invocation fails");
    assert_eq!(error.caller_message(), CALLER_MESSAGE);
    assert!(error.message().contains("refused the task"), "{error}");
}

#[tokio::test]
async fn queue_mismatch_still_logs_the_created_task() {
    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE));
    let expected = "WQ99999999999999999999999999999999";
    let run = invoke(
        create_callback,
        remote(&fake).value("expectedQueue", expected),
        FakeEvent::voice(),
    )
    .await;
    run.assert_contract();
    assert_eq!(run.record("critical").unwrap()["queue_sid"], QUEUE);
    // The task went to a queue, the wrong one: the record names it.
    assert_eq!(run.record("taskrouter_config").unwrap()["queue"], "Queue");
    let error = task_error(&run);
    assert_eq!(error["cause"], "queue_mismatch");
    assert_eq!(
        error["message"],
        format!("Task routing failed: task WT00000000000000000000000000000001 was routed by workflow {WORKFLOW} to queue {QUEUE}, expected queue {expected}: check the workflow's filters")
    );
    assert!(reply_text(&run).contains(CALLER_MESSAGE));
}

#[tokio::test]
async fn secrets_never_reach_a_line_or_an_error_while_the_fake_sees_them() {
    // Account SID and auth token: success, then failure.
    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE));
    let run = invoke(create_or_fail, remote(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    run.assert_no_leak(&[AUTH_TOKEN]);
    assert!(run.reply().is_some());
    fake.fail_with(FakeResponse::status(403).body("text/plain", AUTH_TOKEN));
    let run = invoke(create_or_fail, remote(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    run.assert_no_leak(&[AUTH_TOKEN]);
    let message = run.error_message().unwrap();
    assert!(message.contains("answered 403"), "{message}");
    for request in fake.requests() {
        assert_eq!(request.username().as_deref(), Some(ACCOUNT));
        assert_eq!(request.password().as_deref(), Some(AUTH_TOKEN));
    }

    // An API key is preferred when both are configured.
    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE));
    let context = remote(&fake)
        .value("API_KEY_SID", "SKbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
        .value("API_KEY_SECRET", API_KEY_SECRET);
    let run = invoke(create_or_fail, context, FakeEvent::voice()).await;
    run.assert_contract();
    run.assert_no_leak(&[AUTH_TOKEN, API_KEY_SECRET]);
    let sent = &fake.requests()[0];
    assert_eq!(
        sent.username().as_deref(),
        Some("SKbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
    );
    assert_eq!(sent.password().as_deref(), Some(API_KEY_SECRET));
}

#[tokio::test]
async fn local_store_records_tasks_and_logs_critical() {
    let path = std::env::temp_dir().join(format!(
        "ccfn-task-router-test-{}.jsonl",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let context = || {
        FakeContext::new()
            .value("workflowSid", WORKFLOW)
            .value("CCFN_TASK_STORE", path.to_str().unwrap())
    };
    let first = invoke(create_callback, context(), FakeEvent::voice()).await;
    first.assert_contract();
    assert_eq!(
        task_steps(&first),
        ["task_store", "workflow", "task_attributes", "critical"]
    );
    let store = first.record("task_store").unwrap();
    assert_eq!(store["level"], "WARN");
    assert_eq!(store["path"], path.to_str().unwrap());
    assert_eq!(
        store["missing"],
        json!(["ACCOUNT_SID + AUTH_TOKEN or API_KEY_SID + API_KEY_SECRET"])
    );
    let second = invoke(
        create_callback,
        context(),
        FakeEvent::voice().param("CallSid", "CA2"),
    )
    .await;
    second.assert_contract();

    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    let is_sid = |value: &Value, prefix: &str| {
        value.as_str().is_some_and(|s| {
            s.len() == 34 && s.starts_with(prefix) && s[2..].bytes().all(|b| b.is_ascii_hexdigit())
        })
    };
    for (line, run) in lines.iter().zip([&first, &second]) {
        assert!(is_sid(&line["sid"], "WT"), "{line}");
        assert!(is_sid(&line["queue_sid"], "WQ"), "{line}");
        assert_eq!(line["workflow_sid"], WORKFLOW);
        assert_eq!(line["status"], "pending");
        let critical = run.record("critical").unwrap();
        assert_eq!(critical["task_sid"], line["sid"]);
        assert_eq!(critical["queue_sid"], line["queue_sid"]);
        assert_eq!(critical["attributes"], line["attributes"]);
    }
    assert_eq!(lines[1]["attributes"]["call_sid"], "CA2");
    assert_ne!(lines[0]["sid"], lines[1]["sid"]);
    assert_eq!(
        lines[0]["queue_sid"], lines[1]["queue_sid"],
        "one queue per workflow"
    );
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test]
async fn local_store_accepts_only_workflow_sids() {
    let path = std::env::temp_dir().join(format!(
        "ccfn-task-router-test-bad-{}.jsonl",
        std::process::id()
    ));
    let context = FakeContext::new()
        .value("workflowSid", "production-callbacks")
        .value("CCFN_TASK_STORE", path.to_str().unwrap());
    let run = invoke(checked_callback, context, FakeEvent::voice()).await;
    run.assert_contract();
    assert_eq!(task_error(&run)["cause"], "workflow_not_found");
    assert!(!path.exists(), "nothing recorded");
}

#[tokio::test]
async fn slow_task_router_raises_the_api_response_time_alert() {
    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE));
    fake.delay(std::time::Duration::from_millis(60));
    let mut thresholds = ccfn_core::context::Thresholds::default();
    thresholds.api_response = std::time::Duration::from_millis(20);
    let run = invoke(
        create_callback,
        remote(&fake).thresholds(thresholds),
        FakeEvent::voice(),
    )
    .await;
    run.assert_contract();
    let alert = run.record("alert").expect("an alert record");
    assert_eq!(alert["kind"], "api_response_time");
    assert_eq!(alert["threshold"], 20.0);
    assert!(alert["value"].as_f64().unwrap() >= 60.0, "{alert:?}");
    assert!(run.record("critical").is_some());
}

#[tokio::test]
async fn an_answer_that_is_not_json_is_a_lookup_failure() {
    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE));
    fake.fail_with(FakeResponse::status(200).body("text/plain", "<html>maintenance</html>"));
    let run = invoke(checked_callback, remote(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    assert!(reply_text(&run).contains(CALLER_MESSAGE));
    let error = task_error(&run);
    assert_eq!(error["cause"], "lookup_failed");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("the response (status 200) is not the JSON expected"),
        "{message}"
    );
    assert!(run.record("critical").is_none());
}

const CRM_KEY: &str = "canary-crm-key-in-attributes-51f0";

/// Checks the workflow, then creates a task whose attributes hold a time,
/// a member of a sensitive name and the value of a secret.
///
/// # Trigger
/// Studio "Run Function" widget.
/// # Dependencies
/// Task router.
/// # Critical logging
/// Task creation result.
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = ["workflowSid"], secrets = [CRM_API_KEY])]
async fn create_with_details(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let router = context.task_router()?;
    let workflow = router
        .active_workflow(context.required("workflowSid"))
        .await?;
    let attributes = json!({
        "type": "callback",
        "call_sid": event.call_sid(),
        "requested_at": "2026-11-26T10:00:00Z",
        "callback_token": "tok-in-attributes-2210",
        "note": format!("crm key {}", context.required_secret("CRM_API_KEY").expose()),
    });
    router
        .create_task(&NewTask::new(&workflow.sid, attributes))
        .await?;
    Ok(callback.success(VoiceResponse::new()))
}

/// The platform answers a task's `attributes` and `addons` and a
/// workflow's `configuration` as JSON text (its published definitions):
/// `api_response` logs them as the objects they hold, so a reader or a
/// snapshot redaction reaches inside, with sensitive members redacted and
/// secret values scrubbed there too.
#[tokio::test]
async fn json_text_of_the_answers_is_logged_as_json() {
    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE));
    let context = remote(&fake).secret("CRM_API_KEY", CRM_KEY);
    let run = invoke(create_with_details, context, FakeEvent::voice()).await;
    run.assert_contract();
    run.assert_no_leak(&[AUTH_TOKEN, CRM_KEY]);
    assert_eq!(run.status(), 200, "{}", run.pretty());

    // The fake answers as the definitions say, with JSON text; what a
    // caller reads is the answer as it came, whatever is logged.
    let answer: Value = ccfn_core::http::HttpClient::new(Default::default())
        .unwrap()
        .get(format!(
            "{}/Workspaces/{WORKSPACE}/Workflows/{WORKFLOW}",
            fake.url()
        ))
        .basic_auth(ACCOUNT, &ccfn_core::Secret::new(AUTH_TOKEN))
        .json_text_fields(ccfn_core::taskrouter::JSON_TEXT_FIELDS)
        .send()
        .await
        .unwrap()
        .json()
        .unwrap();
    assert!(answer["configuration"].is_string(), "{answer}");
    let responses = run.records_of("api_response");
    assert_eq!(responses.len(), 2, "the workflow, then the task");

    let workflow = &responses[0]["data"];
    assert_eq!(workflow["sid"], WORKFLOW);
    assert_eq!(
        workflow["configuration"],
        routing(QUEUE),
        "the workflow's configuration, as an object"
    );

    let task = &responses[1]["data"];
    let attributes = &task["attributes"];
    assert!(attributes.is_object(), "{task}");
    assert_eq!(attributes["requested_at"], "2026-11-26T10:00:00Z");
    assert_eq!(attributes["callback_token"], "[REDACTED]");
    assert_eq!(attributes["note"], "crm key [REDACTED]");
    assert_eq!(task["addons"], json!({}));
    // What the function reads is the answer as it came: the task's
    // attributes are what it sent.
    let line = run
        .lines()
        .iter()
        .find(|line| line.contains("\"step\":\"api_response\"") && line.contains("/Tasks"))
        .unwrap();
    let line: Value = serde_json::from_str(line).unwrap();
    assert_eq!(
        line["data"]["attributes"]["requested_at"],
        "2026-11-26T10:00:00Z"
    );
    assert_eq!(line["data"]["attributes"]["note"], "crm key [REDACTED]");
}

const ATTRIBUTE_TOKEN: &str = "canary-task-callback-token-51c9e0";
const ATTRIBUTE_PASSCODE: &str = "canary-task-customer-passcode-a83f";

/// Creates a task whose attributes hold values of sensitive names, at the
/// top and nested.
///
/// # Trigger
/// Studio "Run Function" widget, `mode=callback`.
/// # Dependencies
/// Task router.
/// # Critical logging
/// Task creation result.
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = ["workflowSid"])]
async fn create_with_sensitive_attributes(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let attributes = json!({
        "type": "callback",
        "call_sid": event.call_sid(),
        "callback_token": ATTRIBUTE_TOKEN,
        "customer": { "passcode": ATTRIBUTE_PASSCODE, "tier": "gold" },
    });
    let task = NewTask::new(context.required("workflowSid"), attributes);
    let task = context.task_router()?.create_task(&task).await?;
    Ok(callback.success(json!({ "task_sid": task.sid })))
}

/// The attributes as `task_attributes` and `critical` show them: members
/// of a sensitive name redacted, at any depth, the others as sent.
fn assert_attributes_redacted(run: &Run) {
    run.assert_contract();
    run.assert_no_leak(&[ATTRIBUTE_TOKEN, ATTRIBUTE_PASSCODE]);
    for step in ["task_attributes", "critical"] {
        let attributes = &run.record(step).unwrap()["attributes"];
        assert_eq!(attributes["callback_token"], "[REDACTED]", "{step}");
        assert_eq!(attributes["customer"]["passcode"], "[REDACTED]", "{step}");
        assert_eq!(attributes["customer"]["tier"], "gold", "{step}");
        assert_eq!(attributes["type"], "callback", "{step}");
    }
}

#[tokio::test]
async fn task_attributes_of_a_sensitive_name_are_redacted_in_every_record() {
    let fake = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing(QUEUE))
        .with_queue(QUEUE, "Callbacks queue");
    let run = invoke(
        create_with_sensitive_attributes,
        remote(&fake),
        FakeEvent::voice(),
    )
    .await;
    assert_attributes_redacted(&run);
    // The task router itself is sent the attributes as they are.
    let sent = fake.requests()[0].form("Attributes").unwrap();
    assert!(sent.contains(ATTRIBUTE_TOKEN) && sent.contains(ATTRIBUTE_PASSCODE));

    let path = std::env::temp_dir().join(format!(
        "ccfn-task-router-sensitive-{}.jsonl",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let local = FakeContext::new()
        .value("workflowSid", WORKFLOW)
        .value("CCFN_TASK_STORE", path.to_str().unwrap());
    let run = invoke(create_with_sensitive_attributes, local, FakeEvent::voice()).await;
    assert_attributes_redacted(&run);
    std::fs::remove_file(&path).unwrap();
}
