//! `ccfn doctor` against the fake platform in each scenario of the spec's
//! error table, together with the logs the example functions write under
//! the same fault: it names the failing link and the fix, and no
//! credential shows in its output.

use crate::common;

use ccfn_support::fake_platform::{center, FakePlatform, Resource, Scenario};
use ccfn_testkit::fake_api::{FakeApi, Mock};
use ccfn_testkit::fake_email::FakeEmailProvider;
use ccfn_testkit::fake_task_router::FakeTaskRouter;
use ccfn_testkit::FakeResponse;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};
use common::{broken, temp_dir, write};
use example_contact_center::{voicemail_notice, wait_experience};
use serde_json::{json, Value};

const TOKEN: &str = "canary-doctor-platform-token-4b8e27";
const EMAIL_KEY: &str = "canary-doctor-email-key-61c0d9";

/// `ccfn`, not yet pointed at any platform: [`on`] does that.
fn ccfn() -> tokio::process::Command {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_ccfn"))
}

/// Runs `command` ([`ccfn`] with its arguments) against `fake` to its
/// end: the only place the fake's variables are set, so every run on the
/// fake passes here. Fails when any request the fake has received does
/// not conform to the platform's definitions.
async fn on(fake: &FakePlatform, command: &mut tokio::process::Command) -> std::process::Output {
    let output = command.envs(fake.vars()).output().await.unwrap();
    fake.assert_requests_conform();
    output
}

/// The task router the function meets under `scenario`.
async fn task_router(scenario: Scenario) -> FakeTaskRouter {
    let routes = |queue: &str| json!({ "task_routing": { "filters": [], "default_filter": { "queue": queue } } });
    // The queues have the platform's names, which the task's answer gives.
    let router = FakeTaskRouter::start()
        .await
        .with_queue(center::QUEUE, "Callbacks")
        .with_queue(center::OTHER_QUEUE, "Sales");
    match scenario {
        Scenario::WorkflowDeleted => router,
        Scenario::WorkflowDisabled => router
            .with_workflow(center::WORKFLOW, "Callbacks", routes(center::QUEUE))
            .disable(center::WORKFLOW),
        Scenario::QueueMismatch => {
            router.with_workflow(center::WORKFLOW, "Callbacks", routes(center::OTHER_QUEUE))
        }
        // The function's workflow is staging's, in staging's workspace.
        Scenario::WorkflowOfOtherEnvironment => router
            .with_workspace(center::WORKSPACE, center::WORKSPACE_NAME)
            .with_workspace(center::STAGING_WORKSPACE, center::STAGING_WORKSPACE_NAME)
            .with_workflow_in(
                center::WORKSPACE,
                center::WORKFLOW,
                "Callbacks",
                routes(center::QUEUE),
            )
            .with_workflow_in(
                center::STAGING_WORKSPACE,
                center::STAGING_WORKFLOW,
                "Callbacks (staging)",
                routes(center::QUEUE),
            ),
        _ => router.with_workflow(center::WORKFLOW, "Callbacks", routes(center::QUEUE)),
    }
}

/// The caller presses 2 for a callback: the wait experience, called by
/// the flow's widget for the call, creates the callback task.
async fn callback(scenario: Scenario, router: &FakeTaskRouter) -> Run {
    let workflow = if scenario == Scenario::WorkflowOfOtherEnvironment {
        center::STAGING_WORKFLOW
    } else {
        center::WORKFLOW
    };
    let context = FakeContext::new()
        .value("AUTH_TOKEN", TOKEN)
        .value("workflowSid", workflow)
        .value("CALLBACK_QUEUE_SID", center::QUEUE)
        .value("PLATFORM_WORKSPACE_SID", center::WORKSPACE)
        .value("TASKROUTER_BASE_URL", router.url());
    let event = FakeEvent::voice()
        .param("CallSid", center::CALL)
        .param("From", center::CALLER)
        .param("To", center::NUMBER)
        .param("FlowSid", center::FLOW)
        .param("ExecutionSid", center::EXECUTION)
        .param("StepSid", "FTd0c70000000000000000000000000002")
        .param("Digits", "2");
    invoke(wait_experience, context, event).await
}

/// The platform and the logs under `scenario`, and `ccfn doctor` run on
/// them: (exit status, the human report, the JSON report).
async fn doctor(scenario: Scenario) -> (i32, String, Value) {
    let router = task_router(scenario).await;
    // A call that never reached the function leaves no record.
    let run = if scenario.runs_the_flow() {
        Some(callback(scenario, &router).await)
    } else {
        None
    };
    let mut fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
        .contact_center(scenario);
    // The task the function created is the platform's.
    for task in router.tasks() {
        fake = fake.with(
            Resource::Tasks {
                workspace: center::WORKSPACE.to_owned(),
            },
            task,
        );
    }
    let lines: String = run
        .iter()
        .flat_map(|run| run.lines())
        .map(|line| format!("{line}\n"))
        .collect();
    doctor_on(&fake, &lines, &format!("{scenario:?}")).await
}

/// `ccfn doctor --call` on `fake` with `log` as the logs.
async fn doctor_on(fake: &FakePlatform, log: &str, name: &str) -> (i32, String, Value) {
    let dir = temp_dir(&format!("doctor-{name}"));
    let log = &write(&dir, "app.log", log);
    let run = |json: bool| async move {
        let mut command = ccfn();
        command
            .args(["doctor", "--call", center::CALL, "--logs"])
            .arg(log)
            .env("PLATFORM_WORKSPACE_SID", center::WORKSPACE)
            .env("EMAILPROVIDER_API_KEY", EMAIL_KEY)
            .env_remove("API_KEY_SID")
            .env_remove("API_KEY_SECRET");
        if json {
            command.arg("--json");
        }
        on(fake, &mut command).await
    };
    let text = run(false).await;
    let json = run(true).await;
    let stdout = String::from_utf8(text.stdout).unwrap();
    let stderr = String::from_utf8(text.stderr).unwrap();
    let json_out = String::from_utf8(json.stdout).unwrap();
    for out in [&stdout, &stderr, &json_out] {
        assert!(
            !out.contains(TOKEN) && !out.contains(EMAIL_KEY),
            "a credential leaked: {out}"
        );
    }
    assert!(stderr.is_empty(), "{stderr}");
    let value: Value =
        serde_json::from_str(&json_out).unwrap_or_else(|e| panic!("{e}: {json_out}"));
    (text.status.code().unwrap(), stdout, value)
}

/// The report with what changes from run to run replaced: the call's day
/// (yesterday, as the fake platform dates it), the records' times
/// (`2026-11-23T18:01:02.345Z`) and the fakes' loopback ports.
fn stable(report: &str) -> String {
    let date = center::rfc2822("");
    let mut text = report
        .replace(date.trim_end_matches(" +0000").trim_end(), "[day]")
        .replace(&center::day(), "[day]");
    while let Some(at) = find_time(&text) {
        let end = at + text[at..].find([' ', ']', '\n']).unwrap_or(text.len() - at);
        text.replace_range(at..end, "[time]");
    }
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("127.0.0.1:") {
        let port = at + "127.0.0.1:".len();
        out.push_str(&rest[..port]);
        out.push_str("[port]");
        rest = rest[port..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// Where a record's time starts in `text`.
fn find_time(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..text.len().saturating_sub(19)).find(|&i| {
        bytes[i..i + 4].iter().all(u8::is_ascii_digit)
            && bytes[i + 4] == b'-'
            && bytes[i + 10] == b'T'
            && bytes[i + 13] == b':'
    })
}

/// The first failed check: its title and fix.
fn first_failure(report: &Value) -> (String, String) {
    let at = report["first_failure"].as_u64().expect("a failure") as usize;
    let check = &report["checks"][at];
    (
        check["check"].as_str().unwrap().to_owned(),
        check["fix"].as_str().unwrap_or_default().to_owned(),
    )
}

#[tokio::test]
async fn a_healthy_call_passes_every_link() {
    let (code, text, json) = doctor(Scenario::Healthy).await;
    assert_eq!(code, 0, "{text}");
    assert_eq!(json["first_failure"], Value::Null);
    // The steps name events (`incomingCall`, `success`): the widget is
    // found by the transitions, and the chain goes on to the task.
    assert!(
        text.contains(&format!(
            "[✓] Execution {} reached function widget {}\n",
            center::EXECUTION,
            center::WIDGET
        )),
        "{text}"
    );
    assert!(text.contains("then went to Ended on success"), "{text}");
    assert!(text.contains("[✓] Task WT"), "{text}");
    assert!(text.ends_with("\nNo issue found.\n"), "{text}");
    insta::assert_snapshot!("healthy", stable(&text));
}

#[tokio::test]
async fn a_number_not_pointed_at_the_flow() {
    let (code, text, json) = doctor(Scenario::NumberNotOnFlow).await;
    assert_eq!(code, 1, "{text}");
    let (check, fix) = first_failure(&json);
    assert_eq!(
        check,
        format!("Number {} is not pointed at a flow", center::NUMBER)
    );
    assert!(fix.contains("flow's webhook URL"), "{fix}");
    assert!(
        text.contains(&center::flow_webhook()),
        "the flow's webhook URL is named: {text}"
    );
    insta::assert_snapshot!("number_not_on_flow", stable(&text));
}

#[tokio::test]
async fn a_flow_in_draft() {
    let (code, text, json) = doctor(Scenario::FlowInDraft).await;
    assert_eq!(code, 1, "{text}");
    let (check, fix) = first_failure(&json);
    assert_eq!(
        check,
        format!("Flow {} is in draft, not published", center::FLOW)
    );
    assert!(fix.starts_with("Publish the flow"), "{fix}");
    insta::assert_snapshot!("flow_in_draft", stable(&text));
}

#[tokio::test]
async fn an_invalid_webhook_url_in_a_widget() {
    let (code, text, json) = doctor(Scenario::InvalidWidgetUrl).await;
    assert_eq!(code, 1, "{text}");
    let (check, _) = first_failure(&json);
    assert_eq!(
        check,
        format!("Flow {} is published but not valid", center::FLOW)
    );
    assert!(
        text.contains("the webhook URL is not a valid URL"),
        "{text}"
    );
    insta::assert_snapshot!("invalid_widget_url", stable(&text));
}

#[tokio::test]
async fn a_disabled_workflow() {
    let (code, text, json) = doctor(Scenario::WorkflowDisabled).await;
    assert_eq!(code, 1, "{text}");
    let titles = failures(&json);
    assert!(
        titles.contains(&format!(
            "Workflow {} routes no task: it is disabled",
            center::WORKFLOW
        )),
        "{text}"
    );
    insta::assert_snapshot!("workflow_disabled", stable(&text));
}

#[tokio::test]
async fn a_deleted_workflow() {
    let (code, text, json) = doctor(Scenario::WorkflowDeleted).await;
    assert_eq!(code, 1, "{text}");
    let titles = failures(&json);
    assert!(
        titles.contains(&format!(
            "Workflow {} is not in workspace {}",
            center::WORKFLOW,
            center::WORKSPACE
        )),
        "{text}"
    );
    // The doctor asked the other workspace too.
    assert!(
        text.contains("deleted: no other workspace of the account has it"),
        "{text}"
    );
    insta::assert_snapshot!("workflow_deleted", stable(&text));
}

#[tokio::test]
async fn a_workflow_of_another_environment() {
    let (code, text, json) = doctor(Scenario::WorkflowOfOtherEnvironment).await;
    assert_eq!(code, 1, "{text}");
    let titles = failures(&json);
    // The doctor looked: the workflow is the staging workspace's.
    assert!(
        titles.contains(&format!(
            "Workflow {} is not in workspace {}: it is workspace {}'s",
            center::STAGING_WORKFLOW,
            center::WORKSPACE,
            center::STAGING_WORKSPACE
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "workspace {} “{}” has it",
            center::STAGING_WORKSPACE,
            center::STAGING_WORKSPACE_NAME
        )),
        "{text}"
    );
    // The fix names this environment's workflow.
    assert!(
        text.contains(&format!(
            "this workspace has {} “Callbacks”",
            center::WORKFLOW
        )),
        "{text}"
    );
    insta::assert_snapshot!("workflow_of_other_environment", stable(&text));
}

#[tokio::test]
async fn a_queue_mismatch() {
    let (code, text, json) = doctor(Scenario::QueueMismatch).await;
    assert_eq!(code, 1, "{text}");
    let titles = failures(&json);
    assert!(
        titles.contains(&format!(
            "Workflow {} put the task in queue {}, not the function's",
            center::WORKFLOW,
            center::OTHER_QUEUE
        )),
        "{text}"
    );
    insta::assert_snapshot!("queue_mismatch", stable(&text));
}

#[tokio::test]
async fn a_queue_named_in_the_records_is_looked_up_by_its_name() {
    // The task router answered the queue's name as it was when the task
    // was created; the workspace's queue of that SID is now named
    // otherwise, and no queue has the recorded name.
    let routes =
        json!({ "task_routing": { "filters": [], "default_filter": { "queue": center::QUEUE } } });
    let router = FakeTaskRouter::start()
        .await
        .with_workflow(center::WORKFLOW, "Callbacks", routes)
        .with_queue(center::QUEUE, "Callbacks (old)");
    let run = callback(Scenario::Healthy, &router).await;
    assert_eq!(
        run.record("taskrouter_config").unwrap()["queue"],
        "Callbacks (old)"
    );
    let mut fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
        .contact_center(Scenario::Healthy);
    for task in router.tasks() {
        fake = fake.with(
            Resource::Tasks {
                workspace: center::WORKSPACE.to_owned(),
            },
            task,
        );
    }
    let lines: String = run.lines().iter().map(|l| format!("{l}\n")).collect();
    let (code, text, json) = doctor_on(&fake, &lines, "queue-name").await;
    assert_eq!(code, 1, "{text}");
    assert_eq!(
        failures(&json),
        [format!(
            "Workspace {} has no queue named \"Callbacks (old)\"",
            center::WORKSPACE
        )],
        "{text}"
    );
    // The platform was asked for it by name.
    assert!(fake.requests().iter().any(|r| r.path()
        == format!("/v1/Workspaces/{}/TaskQueues", center::WORKSPACE)
        && r.query_pairs()
            .iter()
            .any(|(k, v)| k == "FriendlyName" && v == "Callbacks (old)")));
}

/// The email rows: a voicemail recorded for the call, but no email; the
/// provider answers `answer`.
async fn voicemail(
    name: &str,
    answer: FakeResponse,
    max_bytes: Option<&str>,
) -> (i32, String, Value) {
    const RECORDING: &str = "REd0c70000000000000000000000000001";
    let storage = FakeApi::start().await;
    storage.mock(
        Mock::get(format!("/recordings/{RECORDING}.mp3"))
            .respond(FakeResponse::ok().body("audio/mpeg", vec![0u8; 4096])),
    );
    let email = FakeEmailProvider::start().await;
    email.fail_with(answer);
    let mut context = FakeContext::new()
        .value("AUTH_TOKEN", TOKEN)
        .value("EMAILPROVIDER_API_KEY", EMAIL_KEY)
        .value("EMAILPROVIDER_BASE_URL", email.url())
        .value("RECORDINGS_BASE_URL", format!("{}/", storage.url()))
        .value("VOICEMAIL_TO", "oncall@example.com")
        .value("VOICEMAIL_FROM", "voicemail@mg.example.com");
    if let Some(max_bytes) = max_bytes {
        context = context.value("EMAILPROVIDER_MAX_BYTES", max_bytes);
    }
    let event = FakeEvent::empty()
        .param("CallSid", center::CALL)
        .param("From", center::CALLER)
        .param("RecordingSid", RECORDING)
        .param(
            "RecordingUrl",
            &format!("{}/recordings/{RECORDING}", storage.url()),
        );
    let run = invoke(voicemail_notice, context, event).await;
    let fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
        .contact_center(Scenario::Healthy);
    let lines: String = run.lines().iter().map(|line| format!("{line}\n")).collect();
    // A folder per test: they run at the same time.
    doctor_on(&fake, &lines, name).await
}

#[tokio::test]
async fn a_wrong_email_key_type() {
    let (code, text, json) = voicemail(
        "wrong-key",
        FakeResponse::status(401).body("text/plain", "Forbidden"),
        None,
    )
    .await;
    assert_eq!(code, 1, "{text}");
    let (check, _) = first_failure(&json);
    assert_eq!(check, "External calls succeeded", "{text}");
    assert!(text.contains("401"), "{text}");
    insta::assert_snapshot!("wrong_email_key", stable(&text));
}

/// The titles of the failed checks.
fn failures(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["result"] == "failed")
        .map(|c| c["check"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_number_alone_and_a_call_without_logs() {
    let fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
        .contact_center(Scenario::Healthy);
    let run = |args: &'static [&'static str]| {
        let mut command = ccfn();
        command
            .args(args)
            .env_remove("API_KEY_SID")
            .env_remove("API_KEY_SECRET");
        let fake = &fake;
        async move { on(fake, &mut command).await }
    };
    let output = run(&["doctor", "--number", center::NUMBER, "--mask-pii"]).await;
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(
        text.starts_with(
            "Doctor for number +•••••••0000\n\n[✓] Number +•••••••0000 answers with flow"
        ),
        "{text}"
    );
    assert!(
        text.contains("[✓] Flow FWd0c70000000000000000000000000001 is published and valid"),
        "{text}"
    );

    // Without --logs, the function's side is said to be unchecked, not
    // passed.
    let output = run(&["doctor", "--call", center::CALL]).await;
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(
        text.contains("[-] The function's records\n    • no logs given (--logs FILE)"),
        "{text}"
    );
    assert!(!text.contains(TOKEN), "{text}");
    // Without a `flow` record, the execution is looked for among those of
    // the call's day.
    let asked = fake
        .requests()
        .into_iter()
        .find(|r| r.path().ends_with("/Executions"))
        .expect("the executions were listed");
    assert!(
        asked.query_pairs().contains(&(
            "DateCreatedFrom".to_owned(),
            format!("{}T00:00:00Z", center::day())
        )),
        "{asked:?}"
    );

    let output = run(&["doctor", "--call", "CA1"]).await;
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(err.contains("CA and 32 hex digits"), "{err}");
}

#[tokio::test]
async fn the_package_holds_the_doctor_s_report() {
    let router = task_router(Scenario::WorkflowDeleted).await;
    let run = callback(Scenario::WorkflowDeleted, &router).await;
    let fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
        .contact_center(Scenario::WorkflowDeleted);
    let dir = temp_dir("doctor-package");
    let lines: String = run.lines().iter().map(|line| format!("{line}\n")).collect();
    let log = write(&dir, "app.log", &lines);
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let output = on(
        &fake,
        ccfn()
            .args(["package", "--call", center::CALL, "--logs"])
            .arg(&log)
            .arg("-o")
            .arg(&out)
            .env("PLATFORM_WORKSPACE_SID", center::WORKSPACE),
    )
    .await;
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let package = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .expect("the package's folder");
    let doctor = std::fs::read_to_string(package.join("doctor.txt")).unwrap();
    assert!(
        doctor.starts_with(&format!("Doctor for call {}", center::CALL)),
        "{doctor}"
    );
    assert!(
        doctor.contains(&format!(
            "[✗] Workflow {} is not in workspace",
            center::WORKFLOW
        )),
        "{doctor}"
    );
    let readme = std::fs::read_to_string(package.join("README.md")).unwrap();
    assert!(readme.contains("doctor.txt"), "{readme}");
    for entry in std::fs::read_dir(&package).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
        assert!(!text.contains(TOKEN), "a credential in the package");
    }
}

#[tokio::test]
async fn an_unverified_sending_domain() {
    let body = r#"{"message": "Domain mg.example.com is not allowed to send: Free accounts are for test purposes only."}"#;
    let (code, text, json) = voicemail(
        "unverified-domain",
        FakeResponse::status(403).body("text/plain", body),
        None,
    )
    .await;
    assert_eq!(code, 1, "{text}");
    let (check, _) = first_failure(&json);
    assert_eq!(check, "External calls succeeded", "{text}");
    assert!(
        text.contains("is not allowed to send"),
        "the provider's words: {text}"
    );
    assert!(
        text.contains("check that the sending domain mg.example.com is verified"),
        "{text}"
    );
    insta::assert_snapshot!("unverified_domain", stable(&text));
}

#[tokio::test]
async fn a_missing_required_parameter() {
    let router = task_router(Scenario::Healthy).await;
    let context = FakeContext::new()
        .value("AUTH_TOKEN", TOKEN)
        .value("workflowSid", center::WORKFLOW)
        .value("TASKROUTER_BASE_URL", router.url());
    // The widget passes no `To`.
    let event = FakeEvent::voice()
        .param("CallSid", center::CALL)
        .param("From", center::CALLER)
        .without("To");
    let run = invoke(wait_experience, context, event).await;
    let fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
        .contact_center(Scenario::Healthy);
    let lines: String = run.lines().iter().map(|line| format!("{line}\n")).collect();
    let (code, text, json) = doctor_on(&fake, &lines, "missing-parameter").await;
    assert_eq!(code, 1, "{text}");
    let (check, fix) = first_failure(&json);
    assert_eq!(check, "The parameters arrived", "{text}");
    assert!(
        fix.starts_with("Check the flow widget configuration."),
        "{fix}"
    );
    assert!(text.contains("`To` is required and was not sent"), "{text}");
    insta::assert_snapshot!("missing_parameter", stable(&text));
}

#[tokio::test]
async fn an_unhandled_error_in_the_function() {
    let event = FakeEvent::voice()
        .param("CallSid", center::CALL)
        .param("From", center::CALLER)
        .param("To", center::NUMBER);
    let run = invoke(broken, FakeContext::new().value("AUTH_TOKEN", TOKEN), event).await;
    let fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
        .contact_center(Scenario::Healthy);
    let lines: String = run.lines().iter().map(|line| format!("{line}\n")).collect();
    let (code, text, json) = doctor_on(&fake, &lines, "unhandled-error").await;
    assert_eq!(code, 1, "{text}");
    let (check, fix) = first_failure(&json);
    assert_eq!(check, "The business logic completed", "{text}");
    assert!(
        fix.starts_with("Review function logic and error handling."),
        "{fix}"
    );
    assert!(
        text.contains("function panicked: an agent in the queue"),
        "{text}"
    );
    insta::assert_snapshot!("unhandled_error", stable(&text));
}

#[tokio::test]
async fn a_workflow_lookup_error() {
    // The task router fails the workflow lookup (the spec's past
    // incident: "workflows.find is not a function").
    let router = task_router(Scenario::Healthy).await;
    router.fail_with(FakeResponse::status(500).body(
        "application/json",
        r#"{"code": 20500, "message": "workflows.find is not a function", "status": 500}"#,
    ));
    let run = callback(Scenario::Healthy, &router).await;
    let fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
        .contact_center(Scenario::Healthy);
    let lines: String = run.lines().iter().map(|line| format!("{line}\n")).collect();
    let (code, text, json) = doctor_on(&fake, &lines, "lookup-error").await;
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("workflows.find is not a function"), "{text}");
    assert!(
        failures(&json).contains(&"No task was created".to_owned()),
        "{text}"
    );
    insta::assert_snapshot!("workflow_lookup_error", stable(&text));
}

#[tokio::test]
async fn an_attachment_over_the_limit() {
    // The recording (4 096 bytes) is over the provider's limit (1 024).
    let (code, text, json) = voicemail("attachment", FakeResponse::ok(), Some("1024")).await;
    assert_eq!(code, 1, "{text}");
    assert!(!failures(&json).is_empty(), "{text}");
    insta::assert_snapshot!("attachment_over_the_limit", stable(&text));
}

#[tokio::test]
async fn a_function_with_the_flows_that_call_it() {
    let router = task_router(Scenario::Healthy).await;
    let run = callback(Scenario::Healthy, &router).await;
    let lines: String = run.lines().iter().map(|line| format!("{line}\n")).collect();
    for (scenario, code, says) in [
        (
            Scenario::Healthy,
            0,
            format!(
                "[✓] Flow {} calls it from widget {}, published and valid",
                center::FLOW,
                center::WIDGET
            ),
        ),
        (
            Scenario::FlowInDraft,
            1,
            format!(
                "[✗] Flow {} calls it from widget {}, but is in draft",
                center::FLOW,
                center::WIDGET
            ),
        ),
    ] {
        let fake = FakePlatform::start()
            .await
            .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
            .contact_center(scenario);
        let dir = temp_dir(&format!("doctor-function-{scenario:?}"));
        let log = write(&dir, "app.log", &lines);
        let output = on(
            &fake,
            ccfn()
                .args(["doctor", "--function", "wait-experience", "--logs"])
                .arg(&log),
        )
        .await;
        let text = String::from_utf8(output.stdout).unwrap();
        assert_eq!(output.status.code(), Some(code), "{text}");
        assert!(
            text.starts_with("Doctor for function wait-experience\n"),
            "{text}"
        );
        assert!(text.contains(&says), "{text}");
        if code == 0 {
            assert!(text.contains("[✓] The business logic completed"), "{text}");
        }
    }
}

/// `ccfn doctor ARGS..` against `fake`, without logs: (exit status,
/// stdout).
async fn doctor_args(fake: &FakePlatform, args: &[&str]) -> (i32, String) {
    let output = on(
        fake,
        ccfn()
            .arg("doctor")
            .args(args)
            .env_remove("API_KEY_SID")
            .env_remove("API_KEY_SECRET"),
    )
    .await;
    let text = String::from_utf8(output.stdout).unwrap();
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(!text.contains(TOKEN) && !err.contains(TOKEN), "{text}{err}");
    (output.status.code().unwrap(), text)
}

async fn center(scenario: Scenario) -> FakePlatform {
    FakePlatform::start()
        .await
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
        .contact_center(scenario)
}

#[tokio::test]
async fn a_voice_url_that_differs_only_by_a_trailing_slash_is_a_warning() {
    let (code, text, json) = doctor(Scenario::VoiceUrlTrailingSlash).await;
    // Not a broken link (the chain goes on, to the task), not a silent
    // pass: a warning that names the difference.
    assert_eq!(code, 0, "{text}");
    assert_eq!(json["first_failure"], Value::Null);
    assert!(
        text.contains(&format!(
            "[!] Number {} answers with flow {} “Inbound”, at a URL written differently",
            center::NUMBER,
            center::FLOW
        )),
        "{text}"
    );
    assert!(
        text.contains("they differ in a trailing slash the flow's has not"),
        "{text}"
    );
    assert!(!text.contains("stale URL"), "{text}");
    assert!(text.contains("[✓] Task WT"), "{text}");
    assert!(text.ends_with("No link is broken; 1 warning.\n"), "{text}");
    insta::assert_snapshot!("voice_url_trailing_slash", stable(&text));
}

#[tokio::test]
async fn an_execution_in_the_last_second_of_the_call_s_day_is_found() {
    let fake = center(Scenario::LastSecondOfTheDay).await;
    // No logs: the execution is looked for among the flow's, by date.
    let (code, text) = doctor_args(&fake, &["--call", center::CALL]).await;
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!("reached function widget {}", center::WIDGET)),
        "{text}"
    );
    // `DateCreatedTo` keeps the executions "starting before" it: the
    // bound is the next day's midnight, not 23:59:59Z.
    let asked = fake
        .requests()
        .into_iter()
        .find(|r| r.path().ends_with("/Executions"))
        .expect("the executions were listed");
    let bound = |name: &str| {
        asked
            .query_pairs()
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        bound("DateCreatedFrom"),
        Some(format!("{}T00:00:00Z", center::day()))
    );
    assert_eq!(
        bound("DateCreatedTo"),
        Some(format!("{}T00:00:00Z", center::day_after()))
    );
}

#[tokio::test]
async fn a_number_is_matched_exactly_never_partially() {
    let fake = center(Scenario::Healthy).await;
    // One digit short: the platform's `PhoneNumber` matches it partially
    // (the main line and the sales line contain it); neither is it.
    let short = &center::NUMBER[..center::NUMBER.len() - 1];
    let (code, text) = doctor_args(&fake, &["--number", short]).await;
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!("[✗] Number {short} is not one of this account's")),
        "{text}"
    );
    assert!(!text.contains("No issue found"), "{text}");
    // A wildcard is not a number.
    let (code, text) = doctor_args(&fake, &["--number", "+1555987000*"]).await;
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("is not a phone number in E.164"), "{text}");
    // The sales line, written with spaces, is the sales line: one digit
    // away from the main line, and not on the flow.
    let (code, text) = doctor_args(&fake, &["--number", "+1 555 987 0001"]).await;
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!(
            "[✗] Number {} is not pointed at a flow",
            center::SALES_NUMBER
        )),
        "{text}"
    );
    assert!(text.contains(center::OLD_VOICE_URL), "{text}");
    let asked: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path().ends_with("/IncomingPhoneNumbers.json"))
        .collect();
    assert!(
        asked.iter().any(|r| r
            .query_pairs()
            .contains(&("PhoneNumber".to_owned(), center::SALES_NUMBER.to_owned()))),
        "{asked:?}"
    );
}

/// A flow as the platform's flow list answers it: `definition`, `valid`,
/// `errors` and `warnings` null; and as fetching it answers it.
fn listed_and_fetched() -> (Value, Value) {
    let fetched = json!({
        "sid": center::FLOW, "account_sid": ccfn_support::fake_platform::ACCOUNT_SID,
        "author_sid": null, "commit_message": null, "friendly_name": "Inbound",
        "status": "published", "revision": 12, "webhook_url": center::flow_webhook(),
        "url": format!("https://studio.twilio.com/v2/Flows/{}", center::FLOW), "links": {},
        "date_created": "2026-01-05T09:00:00Z", "date_updated": "2026-11-02T09:00:00Z",
        "valid": true, "errors": [], "warnings": [],
        "definition": { "states": [
            { "name": "Trigger", "type": "trigger", "transitions": [{ "event": "incomingCall", "next": center::WIDGET }] },
            { "name": center::WIDGET, "type": "run-function", "properties": { "url": center::FUNCTION_URL }, "transitions": [] },
        ] },
    });
    let mut listed = fetched.clone();
    for field in ["definition", "valid", "errors", "warnings"] {
        listed[field] = Value::Null;
    }
    (listed, fetched)
}

#[tokio::test]
async fn a_function_is_found_in_flows_the_list_gives_without_definition() {
    let (listed, fetched) = listed_and_fetched();
    let fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
        .with(Resource::Flows, listed)
        .with_object(format!("/v2/Flows/{}", center::FLOW), fetched)
        .with_list(Resource::Alerts);
    let (code, text) = doctor_args(&fake, &["--function", "wait-experience"]).await;
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!(
            "[✓] Flow {} calls it from widget {}, published and valid",
            center::FLOW,
            center::WIDGET
        )),
        "{text}"
    );
    assert!(!text.contains("No flow's function widget"), "{text}");
    assert!(
        fake.requests()
            .iter()
            .any(|r| r.path() == format!("/v2/Flows/{}", center::FLOW)),
        "the flow was fetched by its SID"
    );
}

#[tokio::test]
async fn a_flow_list_the_platform_cannot_complete_is_said() {
    // The list has the flow, fetching it fails: a warning naming the
    // flow, not "no widget calls it" as if the flow had none.
    let (listed, _) = listed_and_fetched();
    let fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
        .with(Resource::Flows, listed.clone())
        .with_object(
            format!("/v2/Flows/{}", center::FLOW),
            json!({"sid": center::FLOW, "status": null}),
        )
        .with_list(Resource::Alerts);
    let (code, text) = doctor_args(&fake, &["--function", "wait-experience"]).await;
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!(
            "[!] Flow {}: its definition cannot be read",
            center::FLOW
        )),
        "{text}"
    );
    assert!(text.contains("at `status`"), "{text}");
}

#[tokio::test]
async fn a_hostile_flow_name_cannot_forge_a_check_or_drive_the_terminal() {
    // The flow's name, as the platform returns it, holds a line break
    // followed by a forged passing check, and an OSC 52 sequence that
    // would write the operator's clipboard.
    let (_, mut fetched) = listed_and_fetched();
    fetched["friendly_name"] = json!(
        "Inbound\n[✓] Workflow WW0 routes to every queue\u{1b}]52;c;Y2FuYXJ5\u{7}\r[✓] No issue"
    );
    let fake = center(Scenario::Healthy)
        .await
        .with_object(format!("/v2/Flows/{}", center::FLOW), fetched);
    let (code, text) = doctor_args(&fake, &["--number", center::NUMBER]).await;
    assert_eq!(code, 0, "{text}");
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "a control character reached the terminal: {text:?}"
    );
    assert!(
        text.lines()
            .all(|l| !l.starts_with("[✓] Workflow") && !l.starts_with("[✓] No issue")),
        "a check was forged: {text}"
    );
    assert!(
        text.contains("“Inbound\\x0a[✓] Workflow WW0 routes to every queue\\x1b]52;c;Y2FuYXJ5\\x07\\x0d[✓] No issue”"),
        "{text}"
    );
}

#[tokio::test]
async fn steps_not_shaped_as_the_definitions_are_said_not_taken_for_a_path() {
    // A step whose widget is a number: the doctor says the steps cannot
    // be read (naming the field), not that the flow never reached the
    // function widget.
    let steps = format!(
        "/v2/Flows/{}/Executions/{}/Steps",
        center::FLOW,
        center::EXECUTION
    );
    let fake = center(Scenario::Healthy).await.with_object(
        steps.clone(),
        json!({
            "steps": [{ "sid": center::STEP_INTO_WIDGET, "name": "incomingCall",
                        "transitioned_from": "Trigger", "transitioned_to": 42 }],
            "meta": { "key": "steps", "page": 0, "page_size": 50, "url": steps,
                      "first_page_url": steps, "previous_page_url": null, "next_page_url": null },
        }),
    );
    let (code, text) = doctor_args(&fake, &["--call", center::CALL]).await;
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!(
            "[✗] Execution {}'s steps cannot be read",
            center::EXECUTION
        )),
        "{text}"
    );
    assert!(text.contains("at `transitioned_to`"), "{text}");
    assert!(!text.contains("did not reach a function widget"), "{text}");
}

#[tokio::test]
async fn an_old_call_s_alerts_are_said_not_checked() {
    // The platform's alerts cannot be queried further back than 30 days:
    // for a call of September, the doctor says it does not check them,
    // rather than "no alert names the call" from an empty answer.
    let router = task_router(Scenario::Healthy).await;
    let run = callback(Scenario::Healthy, &router).await;
    let mut fake = center(Scenario::Healthy).await.with_object(
        format!(
            "/2010-04-01/Accounts/{}/Calls/{}.json",
            ccfn_support::fake_platform::ACCOUNT_SID,
            center::CALL
        ),
        json!({
            "sid": center::CALL, "account_sid": ccfn_support::fake_platform::ACCOUNT_SID,
            "from": center::CALLER, "to": center::NUMBER, "direction": "inbound", "status": "completed",
            "start_time": "Tue, 01 Sep 2026 10:00:00 +0000", "end_time": "Tue, 01 Sep 2026 10:00:42 +0000",
        }),
    );
    for task in router.tasks() {
        fake = fake.with(
            Resource::Tasks {
                workspace: center::WORKSPACE.to_owned(),
            },
            task,
        );
    }
    let lines: String = run.lines().iter().map(|line| format!("{line}\n")).collect();
    let (code, text, _) = doctor_on(&fake, &lines, "old-call").await;
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("[-] Alerts are not checked\n    • the call is of 2026-09-01: the platform's alerts cannot be queried further back than 30 days"),
        "{text}"
    );
    assert!(!text.contains("No platform alert names"), "{text}");
    assert!(
        !fake.requests().iter().any(|r| r.path() == "/v1/Alerts"),
        "the alerts were not asked"
    );
}

#[tokio::test]
async fn sids_the_records_name_go_in_no_path_unless_they_are_sids() {
    // The function's records are the application's text: a workflow,
    // task, workspace or execution SID in them that is not one (prefix
    // and 32 hex digits, as the platform's definitions give each) is
    // said, and the platform is not asked at a path made of it (the
    // runner's conformance check fails otherwise).
    let router = task_router(Scenario::Healthy).await;
    let run = callback(Scenario::Healthy, &router).await;
    let healthy: String = run.lines().iter().map(|line| format!("{line}\n")).collect();
    let task = healthy
        .match_indices("WT")
        .map(|(at, _)| &healthy[at..])
        .find(|rest| rest.len() >= 34 && rest[2..34].bytes().all(|b| b.is_ascii_hexdigit()))
        .map(|rest| rest[..34].to_owned())
        .expect("the records name the task");
    for (sid, forged) in [
        (center::WORKFLOW, "WW0/../../../Activities"),
        (task.as_str(), "WT0/../../Workers"),
        (center::WORKSPACE, "WS0%2F.."),
        (center::EXECUTION, "FN0/../../../Flows"),
    ] {
        let fake = center(Scenario::Healthy).await;
        let lines = healthy.replace(sid, forged);
        let (_, text, _) = doctor_on(&fake, &lines, "forged-sid").await;
        assert!(
            text.contains(&format!("{forged:?}")) && text.contains("is not a"),
            "{forged}: {text}"
        );
        assert!(
            !fake.requests().iter().any(|r| r.path().contains("/../")
                || r.path().contains("Activities")
                || r.path().contains("Workers")
                || r.path().contains("%2F")),
            "{forged}: {:?}",
            fake.requests()
        );
    }
}

#[tokio::test]
async fn the_runner_fails_a_run_that_sent_a_request_the_definitions_do_not_allow() {
    // ccfn follows a next link on the platform's own origin as written:
    // one that adds a parameter `ListIncomingPhoneNumber` does not have
    // makes `ccfn doctor` send a request the definitions do not allow.
    // The runner every test here uses must fail that run.
    use ccfn_support::fake_platform::hostile::Hostile;
    let link = format!(
        "/2010-04-01/Accounts/{}/IncomingPhoneNumbers.json?PageSize=50&Page=1&Bogus=1",
        ccfn_support::fake_platform::ACCOUNT_SID
    );
    let fake = center(Scenario::Healthy)
        .await
        .hostile(Hostile::NextLink { link });
    let ran =
        tokio::spawn(async move { doctor_args(&fake, &["--number", center::NUMBER]).await }).await;
    let panic = ran
        .expect_err("the runner let a nonconforming request pass")
        .into_panic();
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains("requests that do not conform to the platform's definitions")
            && message.contains("query parameter \"Bogus\""),
        "{message}"
    );
}
