//! `ccfn calls` and `ccfn tasks` against the fake platform on loopback:
//! filters, limits across pages of both shapes, the rate limit, errors
//! that name the resource, and no credential in any output.

use ccfn_testkit::fake_platform::{FakePlatform, Resource};
use serde_json::{json, Value};

const TOKEN: &str = "canary-platform-token-5e2b91";
const WORKSPACE: &str = "WS0123456789abcdef0123456789abcdef";

/// A call as the 2010 API writes one.
fn call(n: u32, status: &str, day: u32) -> Value {
    json!({
        "sid": format!("CA{n:032x}"),
        "account_sid": ccfn_testkit::fake_platform::ACCOUNT_SID,
        "status": status,
        "direction": "inbound",
        "from": "+15551230000",
        "to": "+15559870000",
        "start_time": format!("Fri, {day:02} Nov 2026 10:00:00 +0000"),
        "end_time": format!("Fri, {day:02} Nov 2026 10:01:00 +0000"),
        "duration": "60",
        "answered_by": null,
        "parent_call_sid": null,
    })
}

fn task(n: u32, status: &str) -> Value {
    json!({
        "sid": format!("WT{n:032x}"),
        "assignment_status": status,
        "workflow_sid": "WW11111111111111111111111111111111",
        "task_queue_sid": "WQ11111111111111111111111111111111",
        "age": 30,
        "date_created": "2026-11-20T10:00:00Z",
        "attributes": "{\"type\":\"callback\"}",
    })
}

async fn platform() -> FakePlatform {
    let mut fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_testkit::fake_platform::ACCOUNT_SID, TOKEN);
    for n in 0..25 {
        let status = if n % 5 == 0 { "failed" } else { "completed" };
        fake = fake.with(Resource::Calls, call(n, status, 10 + n % 10));
    }
    for n in 0..12 {
        let status = if n < 7 { "pending" } else { "assigned" };
        fake = fake.with(
            Resource::Tasks {
                workspace: WORKSPACE.to_owned(),
            },
            task(n, status),
        );
    }
    fake.with(
        Resource::Recordings { call: format!("CA{:032x}", 0) },
        json!({"sid": "RE0001", "status": "completed", "duration": "12", "date_created": "Fri, 10 Nov 2026 10:00:30 +0000"}),
    )
    .with_object(
        format!("/v1/Voice/CA{:032x}/Annotation", 0),
        json!({"call_sid": format!("CA{:032x}", 0), "answered_by": "human", "call_score": 2,
               "quality_issues": ["choppy_robotic"], "comment": "caller heard silence", "spam": false}),
    )
    .with(
        Resource::CallEvents { call: format!("CA{:032x}", 0) },
        json!({"sid": "EV0001", "request": {"url": "https://cc.example.com/voice", "method": "POST"}, "response": {"response_code": 502, "request_duration": 10023}}),
    )
}

/// Runs `ccfn args..` with the fake's variables; exit status, stdout,
/// stderr.
async fn ccfn(fake: &FakePlatform, args: &[&str]) -> (i32, String, String) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_ccfn"));
    command.args(args);
    for name in ["API_KEY_SID", "API_KEY_SECRET", "PLATFORM_WORKSPACE_SID"] {
        command.env_remove(name);
    }
    command.envs(fake.vars());
    let output = command.output().await.unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        !stdout.contains(TOKEN) && !stderr.contains(TOKEN),
        "the token leaked: {stdout} {stderr}"
    );
    (output.status.code().unwrap(), stdout, stderr)
}

#[tokio::test]
async fn calls_are_filtered_and_limited_across_pages() {
    let fake = platform().await;
    let (code, out, err) = ccfn(
        &fake,
        &[
            "calls",
            "list",
            "--status",
            "completed",
            "--limit",
            "7",
            "--json",
        ],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let calls: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(calls.len(), 7);
    assert!(calls.iter().all(|c| c["status"] == "completed"));
    // One page of seven: PageSize is the limit.
    let asked: Vec<_> = fake.requests().into_iter().map(|r| r.query).collect();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains(&("PageSize".to_owned(), "7".to_owned())));
    assert!(asked[0].contains(&("Status".to_owned(), "completed".to_owned())));

    // More than a page: the 2010 API's next_page_uri is followed.
    let fake = platform().await;
    let (code, out, _) = ccfn(&fake, &["calls", "list", "--limit", "1000", "--json"]).await;
    assert_eq!(code, 0);
    assert_eq!(serde_json::from_str::<Vec<Value>>(&out).unwrap().len(), 25);

    let fake = platform().await;
    let (_, out, _) = ccfn(
        &fake,
        &[
            "calls",
            "list",
            "--status",
            "failed",
            "--since",
            "2026-11-15",
            "--json",
        ],
    )
    .await;
    let calls: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(calls.len(), 2, "{out}");
}

#[tokio::test]
async fn a_call_is_shown_with_its_recordings_and_events_and_numbers_can_be_masked() {
    let fake = platform().await;
    let sid = format!("CA{:032x}", 0);
    let (code, out, err) = ccfn(&fake, &["calls", "get", &sid, "--mask-pii"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("SID          {sid}")), "{out}");
    assert!(out.contains("From         +•••••••0000"), "{out}");
    assert!(!out.contains("+15551230000"), "{out}");
    assert!(
        out.contains("Recordings (1)\nSID     STATUS     DURATION  CREATED\nRE0001  completed  12"),
        "{out}"
    );
    assert!(
        out.contains("https://cc.example.com/voice  502     10023"),
        "{out}"
    );
    assert!(
        out.contains("Annotation\nAnswered by  human\nQuality      2"),
        "{out}"
    );
    assert!(out.contains("Comment      caller heard silence"), "{out}");
    // Another call has none: the platform's 404 is "none", not an error.
    let other = format!("CA{:032x}", 1);
    let (code, out, err) = ccfn(&fake, &["calls", "get", &other]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("Annotation\nnone\n"), "{out}");
}

#[tokio::test]
async fn tasks_page_with_the_newer_apis_meta_and_filter_by_status() {
    let fake = platform().await;
    let (code, out, err) = ccfn(
        &fake,
        &[
            "tasks",
            "list",
            "--workspace",
            WORKSPACE,
            "--status",
            "pending",
            "--limit",
            "10",
        ],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1 + 7, "{out}");
    assert!(lines[0].starts_with("SID "), "{out}");
    assert!(lines[1..].iter().all(|l| l.contains("pending")), "{out}");

    // Pages of five, through meta.next_page_url.
    let fake = platform().await;
    let url_pages = {
        let (code, out, _) = ccfn(
            &fake,
            &[
                "tasks",
                "list",
                "--workspace",
                WORKSPACE,
                "--limit",
                "10",
                "--json",
            ],
        )
        .await;
        assert_eq!(code, 0);
        assert_eq!(serde_json::from_str::<Vec<Value>>(&out).unwrap().len(), 10);
        fake.requests().len()
    };
    assert_eq!(url_pages, 1, "PageSize 10 holds the ten in one page");

    let fake = platform().await;
    let (code, _, err) = ccfn(&fake, &["tasks", "list", "--limit", "10"]).await;
    assert_eq!(code, 2);
    assert!(
        err.contains("--workspace WS... or set PLATFORM_WORKSPACE_SID"),
        "{err}"
    );
}

#[tokio::test]
async fn the_rate_limit_is_waited_for_and_errors_name_the_resource() {
    let fake = platform().await;
    fake.rate_limit(2, 0);
    let (code, out, err) = ccfn(&fake, &["calls", "list", "--limit", "3", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Vec<Value>>(&out).unwrap().len(), 3);
    let statuses: Vec<u16> = fake.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [429, 429, 200]);

    fake.rate_limit(10, 0);
    let (code, _, err) = ccfn(&fake, &["calls", "list"]).await;
    assert_eq!(code, 2);
    assert!(
        err.contains("calls: 429 Too Many Requests (Too Many Requests)"),
        "{err}"
    );
    assert!(err.contains("rate limit held after the retries"), "{err}");

    // Four of the ten went to that command (one try, three retries).
    fake.rate_limit(0, 0);
    let missing = format!("CA{:032x}", 999);
    let (code, _, err) = ccfn(&fake, &["calls", "get", &missing]).await;
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("call {missing}: 404 Not Found")),
        "{err}"
    );
    assert!(err.contains("(error 20404)"), "{err}");

    // A wrong token: the platform's 401, and the wrong token is not shown
    // either.
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_ccfn"))
        .args(["calls", "list"])
        .envs(fake.vars())
        .env("AUTH_TOKEN", "canary-wrong-token-8c3d")
        .output()
        .await
        .unwrap();
    let (code, err) = (
        output.status.code().unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("calls: 401 Unauthorized (Authenticate)"),
        "{err}"
    );
    assert!(err.contains("check ACCOUNT_SID"), "{err}");
    assert!(!err.contains("canary-wrong-token"), "{err}");
}

#[tokio::test]
async fn missing_credentials_say_which_variable() {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_ccfn"))
        .args(["calls", "list"])
        .env_remove("ACCOUNT_SID")
        .env_remove("AUTH_TOKEN")
        .env_remove("API_KEY_SID")
        .env_remove("API_KEY_SECRET")
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(err.contains("ACCOUNT_SID is not set"), "{err}");
}

const FLOW: &str = "FW0123456789abcdef0123456789abcdef";
const EXECUTION: &str = "FN0123456789abcdef0123456789abcdef";
const SERVICE: &str = "ZS0123456789abcdef0123456789abcdef";
const ENVIRONMENT: &str = "ZE0123456789abcdef0123456789abcdef";

/// A platform with one of everything the other commands read.
async fn everything() -> FakePlatform {
    let account = format!(
        "/2010-04-01/Accounts/{}",
        ccfn_testkit::fake_platform::ACCOUNT_SID
    );
    let workspace = || WORKSPACE.to_owned();
    platform()
        .await
        .with_object(
            format!("{account}.json"),
            json!({
                "sid": ccfn_testkit::fake_platform::ACCOUNT_SID,
                "friendly_name": "Contact center",
                "status": "active",
                "type": "Full",
                "auth_token": "canary-account-auth-token-33aa01",
                "owner_account_sid": ccfn_testkit::fake_platform::ACCOUNT_SID,
                "date_created": "Fri, 01 Nov 2024 10:00:00 +0000",
            }),
        )
        .with(
            Resource::Flows,
            json!({"sid": FLOW, "friendly_name": "Inbound", "status": "draft", "valid": false,
                   "errors": [{"message": "invalid webhook URL in widget call_function"}], "warnings": [],
                   "revision": 7, "webhook_url": format!("https://webhooks.twilio.com/v1/Accounts/AC/Flows/{FLOW}"),
                   "date_updated": "2026-11-20T09:00:00Z"}),
        )
        .with(
            Resource::Executions { flow: FLOW.to_owned() },
            json!({"sid": EXECUTION, "flow_sid": FLOW, "status": "ended", "contact_channel_address": "+15551230000",
                   "date_created": "2026-11-20T10:00:00Z", "date_updated": "2026-11-20T10:01:00Z"}),
        )
        .with(
            Resource::Steps { flow: FLOW.to_owned(), execution: EXECUTION.to_owned() },
            json!({"sid": "FT0001", "name": "call_function", "transitioned_from": "Trigger",
                   "transitioned_to": "fail", "date_created": "2026-11-20T10:00:01Z"}),
        )
        .with_object(
            format!("/v2/Flows/{FLOW}/Executions/{EXECUTION}/Steps/FT0001/Context"),
            json!({"context": {"widgets": {"call_function": {"status_code": 500, "password": "canary-step-password-9f"}}}}),
        )
        .with(
            Resource::Workflows { workspace: workspace() },
            json!({"sid": "WW0001", "friendly_name": "Callbacks", "date_updated": "2026-11-20T09:00:00Z",
                   "configuration": "{\"task_routing\":{\"filters\":[{\"targets\":[{\"queue\":\"WQ0001\"}]}],\"default_filter\":{\"queue\":\"WQ0002\"}}}"}),
        )
        .with(
            Resource::Workflows { workspace: workspace() },
            json!({"sid": "WW0002", "friendly_name": "Disabled", "configuration": "{\"task_routing\":{\"filters\":[]}}"}),
        )
        .with(
            Resource::TaskQueues { workspace: workspace() },
            json!({"sid": "WQ0001", "friendly_name": "Support", "target_workers": "1==1", "task_order": "FIFO"}),
        )
        .with(
            Resource::IncomingPhoneNumbers,
            json!({"sid": "PN0001", "phone_number": "+15559870000", "friendly_name": "Main",
                   "voice_url": "https://webhooks.twilio.com/v1/Accounts/AC/Flows/FW1", "voice_method": "POST",
                   "voice_application_sid": "", "trunk_sid": null}),
        )
        .with(
            Resource::IncomingPhoneNumbers,
            json!({"sid": "PN0002", "phone_number": "+15559870001", "voice_url": "https://old.example.com/voice",
                   "voice_application_sid": "AP0001", "trunk_sid": null}),
        )
        .with(
            Resource::IncomingPhoneNumbers,
            json!({"sid": "PN0003", "phone_number": "+15559870002", "voice_url": "", "trunk_sid": "TK0001"}),
        )
        .with(
            Resource::Services,
            json!({"sid": SERVICE, "unique_name": "contact-center", "friendly_name": "Contact center"}),
        )
        .with(
            Resource::Functions { service: SERVICE.to_owned() },
            json!({"sid": "ZH0001", "friendly_name": "/voice", "date_updated": "2026-11-20T09:00:00Z"}),
        )
        .with(
            Resource::Environments { service: SERVICE.to_owned() },
            json!({"sid": ENVIRONMENT, "unique_name": "production", "domain_name": "cc-1234.twil.io", "build_sid": "ZB0001"}),
        )
        .with(
            Resource::Logs { service: SERVICE.to_owned(), environment: ENVIRONMENT.to_owned() },
            json!({"sid": "NO0002", "request_sid": "RQ0001", "function_sid": "ZH0001", "level": "ERROR",
                   "message": "workflows.find is not a function", "date_created": "2026-11-20T10:00:02Z"}),
        )
        .with(
            Resource::Logs { service: SERVICE.to_owned(), environment: ENVIRONMENT.to_owned() },
            json!({"sid": "NO0003", "request_sid": "RQ0002", "function_sid": "ZH0001", "level": "INFO",
                   "message": "started", "date_created": "2026-11-20T10:05:00Z"}),
        )
        .with(
            Resource::Logs { service: SERVICE.to_owned(), environment: ENVIRONMENT.to_owned() },
            json!({"sid": "NO0001", "request_sid": "RQ0001", "function_sid": "ZH0001", "level": "INFO",
                   "message": "started", "date_created": "2026-11-20T10:00:01Z"}),
        )
        .with(
            Resource::Logs { service: SERVICE.to_owned(), environment: ENVIRONMENT.to_owned() },
            json!({"sid": "NO0000", "request_sid": "RQ0000", "function_sid": "ZH0001", "level": "INFO",
                   "message": "old", "date_created": "2026-11-19T10:00:00Z"}),
        )
        .with(
            Resource::Alerts,
            json!({"sid": "NO1", "log_level": "error", "error_code": "11200", "resource_sid": "ZH0001",
                   "alert_text": "HTTP retrieval failure", "date_created": "2026-11-20T10:00:03Z"}),
        )
        .with(Resource::Keys, json!({"sid": "SK0001", "friendly_name": "ccfn", "date_created": "Fri, 01 Nov 2024 10:00:00 +0000"}))
        .with(Resource::Applications, json!({"sid": "AP0001", "friendly_name": "IVR", "voice_url": "https://cc.example.com/voice", "voice_method": "POST"}))
        .with(Resource::UsageRecords, json!({"sid": "UR1", "category": "calls", "usage": "120", "usage_unit": "minutes", "price": "1.20", "start_date": "2026-11-01", "end_date": "2026-11-20"}))
}

#[tokio::test]
async fn flows_executions_and_steps_with_their_context() {
    let fake = everything().await;
    let (code, out, err) = ccfn(&fake, &["flows", "list"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("{FLOW}  Inbound  draft   false  7")),
        "{out}"
    );

    let (_, out, _) = ccfn(&fake, &["flows", "get", FLOW]).await;
    assert!(out.contains("Status       draft"), "{out}");
    assert!(
        out.contains("invalid webhook URL in widget call_function"),
        "{out}"
    );

    let (_, out, _) = ccfn(
        &fake,
        &["flows", "executions", FLOW, "--limit", "10", "--mask-pii"],
    )
    .await;
    assert!(
        out.contains(&format!("{EXECUTION}  ended   +•••••••0000")),
        "{out}"
    );

    let (code, out, err) = ccfn(&fake, &["flows", "execution", FLOW, EXECUTION, "--context"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("FT0001  call_function  Trigger  fail"),
        "{out}"
    );
    assert!(out.contains("\"status_code\": 500"), "{out}");
    assert!(out.contains("\"password\": \"[REDACTED]\""), "{out}");
    assert!(!out.contains("canary-step-password"), "{out}");
}

#[tokio::test]
async fn tasks_workflows_and_queues() {
    let fake = everything().await;
    let task = format!("WT{:032x}", 3);
    let (code, out, err) = ccfn(&fake, &["tasks", "get", &task, "--workspace", WORKSPACE]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Status         pending"), "{out}");
    assert!(
        out.contains("Attributes     {\"type\":\"callback\"}"),
        "{out}"
    );

    let (_, out, _) = ccfn(&fake, &["tasks", "workflows", "--workspace", WORKSPACE]).await;
    assert!(
        out.contains("WW0001  Callbacks  WQ0001, WQ0002 (default)"),
        "{out}"
    );
    assert!(out.contains("WW0002  Disabled   none"), "{out}");

    let (_, out, _) = ccfn(&fake, &["tasks", "queues", "--workspace", WORKSPACE]).await;
    assert!(
        out.contains("WQ0001  Support  1==1            FIFO"),
        "{out}"
    );
}

#[tokio::test]
async fn numbers_say_what_answers_them() {
    let fake = everything().await;
    let (code, out, err) = ccfn(&fake, &["numbers", "list"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "+15559870000  PN0001  Main  POST https://webhooks.twilio.com/v1/Accounts/AC/Flows/FW1"
        ),
        "{out}"
    );
    // An application wins over a voice URL, a trunk over both.
    assert!(
        out.contains("+15559870001  PN0002  -     application AP0001"),
        "{out}"
    );
    assert!(
        out.contains("+15559870002  PN0003  -     trunk TK0001"),
        "{out}"
    );
}

#[tokio::test]
async fn the_account_never_shows_its_auth_token() {
    let fake = everything().await;
    for args in [&["account"][..], &["account", "--json"][..]] {
        let (code, out, err) = ccfn(&fake, args).await;
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("Contact center"), "{out}");
        assert!(!out.contains("canary-account-auth-token"), "{out}");
    }
    let (_, out, _) = ccfn(&fake, &["account", "--json"]).await;
    let account: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(account["auth_token"], "[REDACTED]");

    let (_, out, _) = ccfn(&fake, &["account", "keys"]).await;
    assert!(out.contains("SK0001  ccfn"), "{out}");
    let (_, out, _) = ccfn(&fake, &["account", "apps"]).await;
    assert!(
        out.contains("AP0001  IVR   https://cc.example.com/voice  POST"),
        "{out}"
    );
    let (_, out, _) = ccfn(&fake, &["account", "usage"]).await;
    assert!(out.contains("calls     120    minutes  1.20"), "{out}");
    let (_, out, _) = ccfn(&fake, &["account", "alerts", "--since", "2026-11-20"]).await;
    assert!(
        out.contains("error  11200  ZH0001    HTTP retrieval failure"),
        "{out}"
    );
}

#[tokio::test]
async fn function_logs_are_grouped_by_invocation() {
    let fake = everything().await;
    let (code, out, err) = ccfn(&fake, &["functions", "list"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("{SERVICE}  contact-center  Contact center")),
        "{out}"
    );
    let (_, out, _) = ccfn(&fake, &["functions", "list", "--service", SERVICE]).await;
    assert!(
        out.contains("Functions (1)\nSID     NAME    UPDATED\nZH0001  /voice"),
        "{out}"
    );
    assert!(out.contains("cc-1234.twil.io"), "{out}");

    let args = [
        "functions",
        "logs",
        "--service",
        SERVICE,
        "--environment",
        ENVIRONMENT,
        "--since",
        "2026-11-20",
    ];
    let (code, out, err) = ccfn(&fake, &args).await;
    assert_eq!(code, 0, "{err}");
    let first = out.find("Invocation RQ0001 (2 lines)").expect(&out);
    let second = out.find("Invocation RQ0002 (1 line)").expect(&out);
    assert!(first < second, "{out}");
    assert!(!out.contains("RQ0000"), "the day before --since: {out}");
    let started = out.find("started").unwrap();
    let failed = out.find("workflows.find is not a function").unwrap();
    assert!(started < failed, "oldest first within an invocation: {out}");
}

#[tokio::test]
async fn forbidden_and_failing_answers_name_the_resource_and_what_to_do() {
    let fake = platform().await;
    fake.fail_with(403, "Forbidden");
    let (code, _, err) = ccfn(&fake, &["flows", "list"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("flows: 403 Forbidden (Forbidden)"), "{err}");
    assert!(err.contains("a key with read access"), "{err}");

    fake.fail_with(503, "Service Unavailable");
    let (code, _, err) = ccfn(&fake, &["tasks", "workflows", "--workspace", WORKSPACE]).await;
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!(
            "workspace {WORKSPACE}'s workflows: 503 Service Unavailable"
        )),
        "{err}"
    );
    assert!(err.contains("the platform failed to answer"), "{err}");

    // No server at all.
    let gone = FakePlatform::start().await;
    let vars = gone.vars();
    drop(gone);
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_ccfn"))
        .args(["account"])
        .envs(vars)
        .output()
        .await
        .unwrap();
    let err = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the account: no answer from http://127.0.0.1:"),
        "{err}"
    );
}

/// A flow with every field of the platform's definition, as fetching it
/// answers it, and as the flow list answers it: `definition`, `valid`,
/// `errors` and `warnings` null.
fn flow_fetched_and_listed(sid: &str, valid: bool) -> (Value, Value) {
    let fetched = json!({
        "sid": sid, "account_sid": ccfn_testkit::fake_platform::ACCOUNT_SID, "author_sid": null,
        "commit_message": null, "friendly_name": "Inbound", "status": "published", "revision": 3,
        "valid": valid, "errors": if valid { json!([]) } else { json!([{"message": "widget say_1: no text"}]) },
        "warnings": [], "definition": {"states": [{"name": "Trigger", "type": "trigger", "transitions": []}]},
        "webhook_url": format!("https://webhooks.twilio.com/v1/Accounts/AC/Flows/{sid}"),
        "url": format!("https://studio.twilio.com/v2/Flows/{sid}"), "links": {},
        "date_created": "2026-11-01T09:00:00Z", "date_updated": "2026-11-20T09:00:00Z",
    });
    let mut listed = fetched.clone();
    for field in ["definition", "valid", "errors", "warnings"] {
        listed[field] = Value::Null;
    }
    (fetched, listed)
}

#[tokio::test]
async fn flows_list_shows_the_validity_the_list_leaves_out() {
    let valid = "FW00000000000000000000000000000001";
    let invalid = "FW00000000000000000000000000000002";
    let mut fake = platform().await;
    for (sid, is_valid) in [(valid, true), (invalid, false)] {
        let (fetched, listed) = flow_fetched_and_listed(sid, is_valid);
        fake = fake
            .with(Resource::Flows, listed)
            .with_object(format!("/v2/Flows/{sid}"), fetched);
    }
    let (code, out, err) = ccfn(&fake, &["flows", "list"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("{valid}  Inbound  published  true ")),
        "{out}"
    );
    assert!(
        out.contains(&format!("{invalid}  Inbound  published  false")),
        "{out}"
    );
    // The JSON is the flows as fetched: their validity and errors.
    let (_, out, _) = ccfn(&fake, &["flows", "list", "--json"]).await;
    let flows: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(flows[1]["valid"], false, "{out}");
    assert_eq!(flows[1]["errors"][0]["message"], "widget say_1: no text");
}

#[tokio::test]
async fn tasks_are_listed_newest_first() {
    // Needs the fake to serve `Ordering` as the platform does (oldest
    // first by default; `DateCreated:desc` newest first).
    let mut fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_testkit::fake_platform::ACCOUNT_SID, TOKEN);
    for (n, day) in [(1, 18), (2, 19), (3, 20)] {
        let mut task = task(n, "pending");
        task["date_created"] = json!(format!("2026-11-{day}T10:00:00Z"));
        fake = fake.with(
            Resource::Tasks {
                workspace: WORKSPACE.to_owned(),
            },
            task,
        );
    }
    let (code, out, err) = ccfn(&fake, &["tasks", "list", "--workspace", WORKSPACE]).await;
    assert_eq!(code, 0, "{err}");
    let asked = fake
        .requests()
        .into_iter()
        .find(|r| r.path.ends_with("/Tasks"))
        .expect("the tasks were listed");
    assert!(
        asked
            .query
            .contains(&("Ordering".to_owned(), "DateCreated:desc".to_owned())),
        "{asked:?}"
    );
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert!(rows[0].starts_with(&format!("WT{:032x}", 3)), "{out}");
    assert!(rows[2].starts_with(&format!("WT{:032x}", 1)), "{out}");
}

#[tokio::test]
async fn alerts_further_back_than_30_days_are_refused_not_answered_empty() {
    let fake = everything().await;
    let (code, out, err) = ccfn(&fake, &["account", "alerts", "--since", "2020-01-01"]).await;
    assert_eq!(code, 2, "{out}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(
            "--since 2020-01-01: the platform's alerts cannot be queried further back than 30 days"
        ),
        "{err}"
    );
    assert!(
        !fake.requests().iter().any(|r| r.path == "/v1/Alerts"),
        "the platform is not asked"
    );
}

#[tokio::test]
async fn an_answer_not_shaped_as_the_definitions_names_the_field() {
    // A task's `age` is an integer, never null: an answer that says
    // otherwise is reported with the field, not shown as `-`.
    let mut broken = task(1, "pending");
    broken["age"] = Value::Null;
    let fake = FakePlatform::start()
        .await
        .with_credentials(ccfn_testkit::fake_platform::ACCOUNT_SID, TOKEN)
        .with(
            Resource::Tasks {
                workspace: WORKSPACE.to_owned(),
            },
            broken,
        );
    let task_sid = format!("WT{:032x}", 1);
    let (code, _, err) = ccfn(
        &fake,
        &["tasks", "get", &task_sid, "--workspace", WORKSPACE],
    )
    .await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "task {task_sid}: the platform's answer is not shaped as its definitions say: at `age`"
        )),
        "{err}"
    );
}
