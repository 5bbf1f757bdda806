//! `ccfn calls` and `ccfn tasks` against the fake platform on loopback:
//! filters, limits across pages of both shapes, the rate limit, errors
//! that name the resource, and no credential in any output.

use ccfn_support::fake_platform::{platform_error, FakePlatform, Resource};
use serde_json::{json, Value};

const TOKEN: &str = "canary-platform-token-5e2b91";
const WORKSPACE: &str = "WS0123456789abcdef0123456789abcdef";

/// A call as the 2010 API writes one.
fn call(n: u32, status: &str, day: u32) -> Value {
    json!({
        "sid": format!("CA{n:032x}"),
        "account_sid": ccfn_support::fake_platform::ACCOUNT_SID,
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
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN);
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
/// stderr. Fails when any request the fake has received (from this run
/// or an earlier one) does not conform to the platform's definitions.
async fn ccfn(fake: &FakePlatform, args: &[&str]) -> (i32, String, String) {
    ccfn_with(fake, args, &[]).await
}

/// [`ccfn`], with `vars` set after the fake's (a wrong token...).
async fn ccfn_with(
    fake: &FakePlatform,
    args: &[&str],
    vars: &[(&str, &str)],
) -> (i32, String, String) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_ccfn"));
    command.args(args);
    for name in ["API_KEY_SID", "API_KEY_SECRET", "PLATFORM_WORKSPACE_SID"] {
        command.env_remove(name);
    }
    command.envs(fake.vars());
    command.envs(vars.iter().copied());
    let output = command.output().await.unwrap();
    fake.assert_requests_conform();
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
    let asked: Vec<_> = fake
        .requests()
        .into_iter()
        .map(|r| r.query_pairs().to_vec())
        .collect();
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
    fake.fail_with(
        platform_error(429, "Too Many Requests")
            .header("Retry-After", "0")
            .times(2),
    );
    let (code, out, err) = ccfn(&fake, &["calls", "list", "--limit", "3", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Vec<Value>>(&out).unwrap().len(), 3);
    let statuses: Vec<u16> = fake.requests().iter().filter_map(|r| r.status()).collect();
    assert_eq!(statuses, [429, 429, 200]);

    fake.fail_with(
        platform_error(429, "Too Many Requests")
            .header("Retry-After", "0")
            .times(10),
    );
    let (code, _, err) = ccfn(&fake, &["calls", "list"]).await;
    assert_eq!(code, 2);
    assert!(
        err.contains("calls: 429 Too Many Requests (Too Many Requests)"),
        "{err}"
    );
    assert!(err.contains("rate limit held after the retries"), "{err}");

    // Four of the ten went to that command (one try, three retries).
    fake.fail_with(
        platform_error(429, "Too Many Requests")
            .header("Retry-After", "0")
            .times(0),
    );
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
    let (code, _, err) = ccfn_with(
        &fake,
        &["calls", "list"],
        &[("AUTH_TOKEN", "canary-wrong-token-8c3d")],
    )
    .await;
    assert_eq!(code, 2);
    assert!(
        err.contains("calls: 401 Unauthorized (Authenticate)"),
        "{err}"
    );
    assert!(err.contains("check ACCOUNT_SID"), "{err}");
    assert!(!err.contains("canary-wrong-token"), "{err}");
}

#[tokio::test]
async fn without_ca_certificates_plain_http_works_and_system_only_says_what_to_install() {
    // A CA-certificate directory with nothing in it, as an image without
    // `ca-certificates` has.
    let empty = std::env::temp_dir().join(format!("ccfn-cli-no-ca-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let empty = empty.to_str().unwrap().to_owned();
    let bare = [("SSL_CERT_FILE", ""), ("SSL_CERT_DIR", empty.as_str())];

    // The default: the built-in roots; the fake platform is plain HTTP.
    let fake = platform().await;
    let (code, out, err) =
        ccfn_with(&fake, &["calls", "list", "--limit", "1", "--json"], &bare).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Vec<Value>>(&out).unwrap().len(), 1);

    // Only the system's may be trusted: no request, and what to install.
    let fake = platform().await;
    let mut vars = bare.to_vec();
    vars.push(("CCFN_TLS_ROOTS", "system"));
    let (code, _, err) = ccfn_with(&fake, &["calls", "list", "--json"], &vars).await;
    assert_ne!(code, 0);
    assert!(
        err.contains("no CA certificates to verify HTTPS servers with")
            && err.contains("`apt-get install ca-certificates`"),
        "{err}"
    );
    assert!(fake.requests().is_empty());
    let _ = std::fs::remove_dir_all(&empty);
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
const STEP: &str = "FT0123456789abcdef0123456789abcdef";

/// A platform with one of everything the other commands read.
async fn everything() -> FakePlatform {
    let account = format!(
        "/2010-04-01/Accounts/{}",
        ccfn_support::fake_platform::ACCOUNT_SID
    );
    let workspace = || WORKSPACE.to_owned();
    platform()
        .await
        .with_object(
            format!("{account}.json"),
            json!({
                "sid": ccfn_support::fake_platform::ACCOUNT_SID,
                "friendly_name": "Contact center",
                "status": "active",
                "type": "Full",
                "auth_token": "canary-account-auth-token-33aa01",
                "owner_account_sid": ccfn_support::fake_platform::ACCOUNT_SID,
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
            json!({"sid": STEP, "name": "call_function", "transitioned_from": "Trigger",
                   "transitioned_to": "fail", "date_created": "2026-11-20T10:00:01Z"}),
        )
        .with_object(
            format!("/v2/Flows/{FLOW}/Executions/{EXECUTION}/Steps/{STEP}/Context"),
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
        out.contains(&format!("{STEP}  call_function  Trigger  fail")),
        "{out}"
    );
    assert!(out.contains("\"status_code\": 500"), "{out}");
    assert!(out.contains("\"password\": \"[REDACTED]\""), "{out}");
    assert!(!out.contains("canary-step-password"), "{out}");
}

#[tokio::test]
async fn a_step_sid_not_shaped_as_a_sid_goes_in_no_path() {
    // A step whose SID is not FT and 32 hex digits, as no platform answer
    // has: its context is not asked for at a path the platform does not
    // have; the command says so instead.
    let fake = everything().await.with(
        Resource::Steps {
            flow: FLOW.to_owned(),
            execution: EXECUTION.to_owned(),
        },
        json!({"sid": "FT0001/../../Flows", "name": "say_1", "date_created": "2026-11-20T10:00:02Z"}),
    );
    let (code, out, err) = ccfn(&fake, &["flows", "execution", FLOW, EXECUTION, "--context"]).await;
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains(&format!(
            "execution {EXECUTION}'s steps: \"FT0001/../../Flows\" is not a step SID (FT and 32 hex digits)"
        )),
        "{err}"
    );
    assert!(
        !fake.requests().iter().any(|r| r.path().contains("FT0001")),
        "{:?}",
        fake.requests()
    );
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

    // One function's: `FunctionSid`, as the definitions spell it (the
    // runner checks the request).
    let function = "ZH0123456789abcdef0123456789abcdef";
    let one: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--function", function])
        .collect();
    let (code, _, err) = ccfn(&fake, &one).await;
    assert_eq!(code, 0, "{err}");
    let asked = fake
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.path().ends_with("/Logs"))
        .expect("the logs were listed");
    assert!(
        asked
            .query_pairs()
            .contains(&("FunctionSid".to_owned(), function.to_owned())),
        "{asked:?}"
    );
}

#[tokio::test]
async fn forbidden_and_failing_answers_name_the_resource_and_what_to_do() {
    let fake = platform().await;
    fake.fail_with(platform_error(403, "Forbidden"));
    let (code, _, err) = ccfn(&fake, &["flows", "list"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("flows: 403 Forbidden (Forbidden)"), "{err}");
    assert!(err.contains("a key with read access"), "{err}");

    fake.fail_with(platform_error(503, "Service Unavailable"));
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
    // The one run outside the runner: the fake is gone before it, so no
    // request reaches it and there is nothing to check.
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

// Hostile answers: a platform (or whoever answers in its place) that
// sends the client elsewhere, pages for ever, streams without end, rate
// limits past any bound, writes terminal control sequences or echoes the
// credentials. Each run must end, with no credential in any form and no
// raw control character in its output.

mod hostile {
    use std::time::{Duration, Instant};

    use ccfn_support::fake_platform::hostile::{ForeignHost, Hostile, Streamed, CONTROL_TEXT};
    use ccfn_support::fake_platform::{platform_error, FakePlatform, ACCOUNT_SID};
    use serde_json::Value;

    const TOKEN: &str = "canary-hostile-token-1f9a7c";
    const WORKSPACE: &str = super::WORKSPACE;

    /// The longest a run may take: far more than any of these needs, far
    /// less than a loop or a wait without end.
    const BOUND: Duration = Duration::from_secs(60);

    /// A fake with the canary token, misbehaving as `hostile` says.
    async fn hostile_fake(hostile: Hostile) -> FakePlatform {
        FakePlatform::start()
            .await
            .with_credentials(ACCOUNT_SID, TOKEN)
            .hostile(hostile)
    }

    /// Every form the credentials take on the wire or in an echo.
    fn credential_forms() -> Vec<String> {
        let pair = format!("{ACCOUNT_SID}:{TOKEN}");
        let mut forms = vec![TOKEN.to_owned()];
        // Base64 as basic authentication writes it, standard or URL-safe,
        // padded or not.
        use base64::engine::general_purpose::{
            STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD,
        };
        use base64::Engine as _;
        for value in [pair.as_bytes(), TOKEN.as_bytes()] {
            for engine in [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD] {
                forms.push(engine.encode(value));
            }
        }
        forms
    }

    /// Fails when `text` holds a credential in any form, or a control
    /// character a terminal acts on (anything but newline and tab).
    fn assert_clean(what: &str, text: &str) {
        for form in credential_forms() {
            assert!(!text.contains(&form), "{what} holds {form:?}: {text}");
        }
        let raw: Vec<char> = text
            .chars()
            .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
            .collect();
        assert!(raw.is_empty(), "{what} holds raw {raw:?}: {text}");
    }

    /// What a run gave: exit status, stdout, stderr, its peak memory in
    /// KiB (as far as it was seen), and how long it took.
    struct Run {
        code: i32,
        out: String,
        err: String,
        peak_kib: u64,
        took: Duration,
    }

    /// Runs `ccfn args..` against `fake`, killed and failed past [`BOUND`];
    /// its output checked with [`assert_clean`].
    async fn ccfn(fake: &FakePlatform, args: &[&str]) -> Run {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_ccfn"));
        command
            .args(args)
            .env_remove("API_KEY_SID")
            .env_remove("API_KEY_SECRET")
            .env_remove("PLATFORM_WORKSPACE_SID")
            .envs(fake.vars())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let started = Instant::now();
        let child = command.spawn().unwrap();
        let pid = child.id().unwrap();
        let watch = super::peak_kib(pid);
        let output = tokio::time::timeout(BOUND, child.wait_with_output())
            .await
            .unwrap_or_else(|_| panic!("ccfn {args:?} did not end within {BOUND:?}"))
            .unwrap();
        let took = started.elapsed();
        let peak_kib = watch.await.unwrap();
        // Every request ccfn sent: the first is its own; a next link the
        // fake wrote is followed only when it is on the fake's own origin,
        // and the hostile fake writes those as the platform does
        // (`PageSize` and `Page` of the list), so they conform too. A
        // foreign link is refused before it is sent. A next link written
        // verbatim on the fake's own origin is followed as written: the
        // links these tests give are all refused before sending, and one
        // that would not conform fails the run (see
        // `the_runner_fails_a_run_that_sent_a_request_the_definitions_do_not_allow`).
        fake.assert_requests_conform();
        let out = String::from_utf8(output.stdout).unwrap();
        let err = String::from_utf8(output.stderr).unwrap();
        assert_clean("stdout", &out);
        assert_clean("stderr", &err);
        assert!(!err.contains("panicked"), "{err}");
        let code = output
            .status
            .code()
            .unwrap_or_else(|| panic!("ccfn {args:?} was killed: {err}"));
        Run {
            code,
            out,
            err,
            peak_kib,
            took,
        }
    }

    /// A listing of each page shape: calls (2010 API) and tasks (newer).
    const LISTINGS: [&[&str]; 2] = [
        &["calls", "list", "--limit", "100", "--json"],
        &[
            "tasks",
            "list",
            "--workspace",
            WORKSPACE,
            "--limit",
            "100",
            "--json",
        ],
    ];

    #[tokio::test]
    async fn a_next_link_to_another_host_is_not_followed_and_gets_no_credentials() {
        let foreign = ForeignHost::start().await;
        let behaviours = [
            Hostile::ForeignNext {
                origin: foreign.url(),
            },
            Hostile::ProtocolRelativeNext {
                authority: foreign.authority(),
            },
        ];
        for hostile in behaviours {
            for args in LISTINGS {
                let fake = hostile_fake(hostile.clone()).await;
                let run = ccfn(&fake, args).await;
                assert_eq!(run.code, 2, "{hostile:?} {args:?}: {}", run.err);
                assert!(
                    run.err.contains("the credentials were not sent"),
                    "{hostile:?} {args:?}: {}",
                    run.err
                );
                assert!(
                    run.err.contains(&foreign.url()),
                    "the message names where the link leads: {}",
                    run.err
                );
                assert!(
                    !run.err.contains("Page=1"),
                    "the link's query is not shown: {}",
                    run.err
                );
                assert_eq!(fake.requests().len(), 1, "{hostile:?} {args:?}");
            }
        }
        let reached = foreign.requests();
        assert!(
            reached.iter().all(|r| r.header("authorization").is_none()),
            "credentials reached the foreign host: {reached:?}"
        );
        assert!(reached.is_empty(), "{reached:?}");
    }

    #[tokio::test]
    async fn no_spelling_of_a_link_leads_the_credentials_elsewhere() {
        let foreign = ForeignHost::start().await;
        let host = foreign.authority();
        let links = [
            format!("http://{host}/x"),
            format!("HTTP://{host}/x"),
            format!("//{host}/x"),
            format!("\\\\{host}/x"),
            format!("/\\{host}/x"),
            format!("\\/{host}/x"),
            format!("http:\\\\{host}\\x"),
            format!("/\t/{host}/x"),
            format!("/\n/{host}/x"),
            format!(" //{host}/x"),
            format!("http:/{host}/x"),
            format!("https:{host}/x"),
            format!("http://127.0.0.1@{host}/x"),
        ];
        for link in links {
            for args in LISTINGS {
                let fake = hostile_fake(Hostile::NextLink { link: link.clone() }).await;
                let run = ccfn(&fake, args).await;
                assert_eq!(run.code, 2, "{link:?} {args:?}: {}", run.err);
                assert!(
                    run.err.contains("the credentials were not sent"),
                    "{link:?} {args:?}: {}",
                    run.err
                );
                assert_eq!(fake.requests().len(), 1, "{link:?} {args:?}");
            }
        }
        // On the fake's own host, a user in the link is refused too.
        let fake = FakePlatform::start()
            .await
            .with_credentials(ACCOUNT_SID, TOKEN);
        let own = format!(
            "http://someone@{}/v1/Workspaces/{WORKSPACE}/Tasks",
            fake.addr()
        );
        let fake = fake.hostile(Hostile::NextLink { link: own });
        let run = ccfn(&fake, LISTINGS[1]).await;
        assert_eq!(run.code, 2, "{}", run.err);
        assert!(
            run.err.contains("the credentials were not sent"),
            "{}",
            run.err
        );
        let reached = foreign.requests();
        assert!(
            reached.is_empty(),
            "the foreign host was reached: {reached:?}"
        );
    }

    #[tokio::test]
    async fn pagination_that_never_ends_is_cut_with_one_warning() {
        // A next link equal to the page just read.
        for (args, resource) in LISTINGS.iter().zip(["calls", "workspace"]) {
            let fake = hostile_fake(Hostile::SelfNext).await;
            let run = ccfn(&fake, args).await;
            assert_eq!(run.code, 0, "{}", run.err);
            assert_eq!(
                serde_json::from_str::<Vec<Value>>(&run.out).unwrap().len(),
                1
            );
            assert_eq!(fake.requests().len(), 1);
            assert_eq!(run.err.lines().count(), 1, "{}", run.err);
            assert!(
                run.err.starts_with(&format!("ccfn: warning: {resource}"))
                    && run.err.contains("next page is one already read")
                    && run.err.contains("with the 1 items read"),
                "{}",
                run.err
            );
        }
        // Empty pages, each linking another, for ever.
        for args in LISTINGS {
            let fake = hostile_fake(Hostile::EndlessEmpty).await;
            let run = ccfn(&fake, args).await;
            assert_eq!(run.code, 0, "{}", run.err);
            assert_eq!(run.out.trim(), "[]");
            assert_eq!(fake.requests().len(), 5, "MAX_EMPTY_PAGES");
            assert_eq!(run.err.lines().count(), 1, "{}", run.err);
            assert!(run.err.contains("5 empty pages in a row"), "{}", run.err);
        }
        // Pages with items, each linking another, for ever.
        let fake = hostile_fake(Hostile::EndlessPages).await;
        let run = ccfn(&fake, &["calls", "list", "--limit", "10000", "--json"]).await;
        assert_eq!(run.code, 0, "{}", run.err);
        assert_eq!(
            serde_json::from_str::<Vec<Value>>(&run.out).unwrap().len(),
            100
        );
        assert_eq!(fake.requests().len(), 100, "MAX_PAGES");
        assert_eq!(run.err.lines().count(), 1, "{}", run.err);
        assert!(
            run.err
                .starts_with("ccfn: warning: calls: the platform links more than 100 pages"),
            "{}",
            run.err
        );
    }

    #[tokio::test]
    async fn a_retry_after_past_any_bound_is_not_waited_for() {
        // After a first wait of a second, so that the waits add up.
        for retry_after in [
            "18446744073709551615",
            "99999999999999999999999999999999999999",
            "Fri, 31 Dec 9999 23:59:59 GMT",
            "31",
        ] {
            let fake = hostile_fake(Hostile::RateLimitStorm {
                retry_after: vec!["1".to_owned(), retry_after.to_owned()],
            })
            .await;
            let run = ccfn(&fake, &["calls", "list"]).await;
            assert_eq!(run.code, 2, "{retry_after}: {}", run.err);
            assert!(
                run.err.contains("calls: 429 Too Many Requests")
                    && run.err.contains("rate limit held after the retries"),
                "{retry_after}: {}",
                run.err
            );
            assert_eq!(fake.requests().len(), 2, "{retry_after}: no retry after it");
            assert!(
                run.took < Duration::from_secs(10),
                "{retry_after}: waited {:?}",
                run.took
            );
        }
        // A storm with no delay: one try and three retries, then the 429.
        let fake = hostile_fake(Hostile::RateLimitStorm {
            retry_after: vec!["0".to_owned()],
        })
        .await;
        let run = ccfn(&fake, &["tasks", "list", "--workspace", WORKSPACE]).await;
        assert_eq!(run.code, 2, "{}", run.err);
        assert_eq!(fake.requests().len(), 4);
    }

    #[tokio::test]
    async fn a_huge_page_is_refused_at_the_cap_without_being_held() {
        const HUNDRED_MB: u64 = 100 * 1000 * 1000;
        for declared in [false, true] {
            let streamed = Streamed::default();
            let fake = hostile_fake(Hostile::HugePage {
                bytes: HUNDRED_MB,
                declared,
                streamed: streamed.clone(),
            })
            .await;
            let run = ccfn(&fake, &["calls", "list", "--limit", "1000", "--json"]).await;
            assert_eq!(run.code, 2, "{}", run.err);
            assert!(
                run.err
                    .contains("calls: the platform's answer is over 16 MiB"),
                "{}",
                run.err
            );
            if declared {
                assert!(
                    run.err.contains("(Content-Length 100000000)"),
                    "{}",
                    run.err
                );
            }
            // What was read is at most the cap (the rest of what was sent
            // sat in the sockets' buffers); what the process held stays
            // near the cap, not the page.
            let sent = streamed.bytes();
            assert!(sent < 48 * 1024 * 1024, "{sent} bytes sent of {HUNDRED_MB}");
            // The peak is read from /proc, on Linux.
            if cfg!(target_os = "linux") {
                assert!(run.peak_kib > 0, "the peak was read");
                assert!(
                    run.peak_kib < 96 * 1024,
                    "peak {} KiB for a {HUNDRED_MB}-byte page",
                    run.peak_kib
                );
            }
        }
    }

    #[tokio::test]
    async fn control_sequences_from_the_platform_reach_no_terminal() {
        let fake = hostile_fake(Hostile::ControlSequences).await;
        for args in [
            &["calls", "list"][..],
            &["tasks", "list", "--workspace", WORKSPACE],
            &["flows", "list"],
            &["numbers", "list"],
            &["account", "alerts"],
        ] {
            let run = ccfn(&fake, args).await;
            assert_eq!(run.code, 0, "{args:?}: {}", run.err);
            // Tables show the text with its controls blanked, other
            // output with them escaped: shown either way, never obeyed.
            assert!(
                run.out.contains("[2J") && run.out.contains("52;c;Y2FuYXJ5"),
                "{args:?}: shown, not obeyed: {}",
                run.out
            );
            if args[0] == "flows" {
                // The flows' SIDs are that text too: no flow is fetched
                // at a path made of it (the runner's conformance check
                // fails otherwise), each is said to be shown as listed.
                assert_eq!(
                    run.err.matches("is not a flow SID").count(),
                    2,
                    "{}",
                    run.err
                );
                assert!(
                    !fake
                        .requests()
                        .iter()
                        .any(|r| r.path().starts_with("/v2/Flows/")),
                    "{:?}",
                    fake.requests()
                );
            }
        }
        for args in LISTINGS {
            let run = ccfn(&fake, args).await;
            assert_eq!(run.code, 0, "{}", run.err);
            // Still the platform's JSON, the text intact once parsed.
            let items: Vec<Value> = serde_json::from_str(&run.out).unwrap();
            assert_eq!(items.len(), 2);
            assert_eq!(items[0]["status"], CONTROL_TEXT);
        }
    }

    #[tokio::test]
    async fn echoed_credentials_are_never_shown() {
        // A 401 whose message repeats the token and the Basic value.
        let fake = hostile_fake(Hostile::EchoedCredentialsError).await;
        for args in LISTINGS.iter().copied().chain([&["account"][..]]) {
            let run = ccfn(&fake, args).await;
            assert_eq!(run.code, 2, "{}", run.err);
            assert!(run.err.contains("401 Unauthorized"), "{}", run.err);
            assert!(run.err.contains("[REDACTED]"), "{}", run.err);
        }
        // A page whose item carries them.
        let fake = hostile_fake(Hostile::EchoedCredentialsItem).await;
        for args in LISTINGS.iter().copied().chain([
            &["calls", "list"][..],
            &["tasks", "list", "--workspace", WORKSPACE],
        ]) {
            let run = ccfn(&fake, args).await;
            assert_eq!(run.code, 0, "{args:?}: {}", run.err);
            if args.contains(&"--json") {
                let items: Vec<Value> = serde_json::from_str(&run.out).unwrap();
                assert_eq!(items[0]["status"], "[REDACTED]", "{}", run.out);
                assert_eq!(
                    items[0]["voice_url"], "https://[REDACTED]@cc.example.com/voice",
                    "no URL shows its userinfo"
                );
            }
        }
        // A table shows the URL without its userinfo too.
        let run = ccfn(&fake, &["numbers", "list"]).await;
        assert_eq!(run.code, 0, "{}", run.err);
        assert!(
            run.out.contains("https://[REDACTED]@cc.example.com/voice"),
            "{}",
            run.out
        );
        assert!(!run.out.contains(&format!("{ACCOUNT_SID}:")), "{}", run.out);
        // A message of any length is cut; a body past its cap is not read.
        let fake = FakePlatform::start()
            .await
            .with_credentials(ACCOUNT_SID, TOKEN);
        fake.fail_with(platform_error(500, &format!("{}{TOKEN}", "x".repeat(5000))));
        let run = ccfn(&fake, &["calls", "list"]).await;
        assert_eq!(run.code, 2, "{}", run.err);
        assert!(run.err.contains("cut at 300 characters"), "{}", run.err);
        assert!(run.err.len() < 1000, "{}", run.err);
        fake.fail_with(platform_error(500, &"y".repeat(100 * 1024)));
        let run = ccfn(&fake, &["calls", "list"]).await;
        assert_eq!(run.code, 2, "{}", run.err);
        assert!(
            run.err
                .contains("calls: 500 Internal Server Error: the platform failed to answer"),
            "{}",
            run.err
        );
    }
}

/// A flow with every field of the platform's definition, as fetching it
/// answers it, and as the flow list answers it: `definition`, `valid`,
/// `errors` and `warnings` null.
fn flow_fetched_and_listed(sid: &str, valid: bool) -> (Value, Value) {
    let fetched = json!({
        "sid": sid, "account_sid": ccfn_support::fake_platform::ACCOUNT_SID, "author_sid": null,
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
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN);
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
        .find(|r| r.path().ends_with("/Tasks"))
        .expect("the tasks were listed");
    assert!(
        asked
            .query_pairs()
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
        !fake.requests().iter().any(|r| r.path() == "/v1/Alerts"),
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
        .with_credentials(ccfn_support::fake_platform::ACCOUNT_SID, TOKEN)
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

// JSON that expands once parsed: pages under the byte cap whose values
// would cost many times their text, and pages that add up. The listing
// ends at the budget with one warning, a single resource is an error,
// and the process's peak memory stays far from the answers' expansion.
mod expanding {
    use std::time::Duration;

    use ccfn_support::fake_platform::hostile::Hostile;
    use ccfn_support::fake_platform::{FakePlatform, ACCOUNT_SID};
    use serde_json::Value;

    const TOKEN: &str = "canary-expanding-token-82d1";
    const MIB: u64 = 1024 * 1024;

    /// What a run gave: exit status, stdout, stderr, peak memory in KiB
    /// (read from /proc while it ran: on Linux only, else 0).
    struct Run {
        code: i32,
        out: String,
        err: String,
        peak_kib: u64,
    }

    async fn ccfn(hostile: Hostile, args: &[&str]) -> (FakePlatform, Run) {
        let fake = FakePlatform::start()
            .await
            .with_credentials(ACCOUNT_SID, TOKEN)
            .hostile(hostile);
        let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_ccfn"))
            .args(args)
            .env_remove("API_KEY_SID")
            .env_remove("API_KEY_SECRET")
            .envs(fake.vars())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let pid = child.id().unwrap();
        let watch = super::peak_kib(pid);
        let output = tokio::time::timeout(Duration::from_secs(120), child.wait_with_output())
            .await
            .unwrap_or_else(|_| panic!("ccfn {args:?} did not end"))
            .unwrap();
        let peak_kib = watch.await.unwrap();
        // The pages that add up are linked by the fake, on its own
        // origin, with the list's `PageSize` and `Page`: what ccfn sends
        // conforms whichever page it stops at.
        fake.assert_requests_conform();
        let out = String::from_utf8(output.stdout).unwrap();
        let err = String::from_utf8(output.stderr).unwrap();
        assert!(!err.contains("panicked"), "{err}");
        assert!(!out.contains(TOKEN) && !err.contains(TOKEN), "{err}");
        let code = output
            .status
            .code()
            .unwrap_or_else(|| panic!("killed: {err}"));
        let run = Run {
            code,
            out,
            err,
            peak_kib,
        };
        (fake, run)
    }

    /// On Linux, the run's peak stayed under 96 MiB (the text of a page
    /// is 16 MiB; these pages would be hundreds of MiB as values).
    fn assert_peak(run: &Run, what: &str) {
        if cfg!(target_os = "linux") {
            assert!(run.peak_kib > 0, "the peak was read");
            assert!(
                run.peak_kib < 96 * 1024,
                "{what}: peak {} KiB",
                run.peak_kib
            );
        }
    }

    #[tokio::test]
    async fn a_page_that_expands_past_the_budget_ends_the_listing_with_one_warning() {
        let tasks = [
            "tasks",
            "list",
            "--workspace",
            "WS0123456789abcdef0123456789abcdef",
            "--limit",
            "10000",
            "--json",
        ];
        for (item, args) in [
            ("0", &["calls", "list", "--limit", "10000", "--json"][..]),
            ("{}", &["calls", "list", "--limit", "10000"][..]),
            ("[[[0]]]", &tasks[..]),
        ] {
            let (fake, run) = ccfn(
                Hostile::RepeatedItems {
                    item: item.to_owned(),
                    bytes: 16 * MIB - 1024,
                    endless: false,
                },
                args,
            )
            .await;
            assert_eq!(run.code, 0, "{item}: {}", run.err);
            assert_eq!(fake.requests().len(), 1);
            assert_eq!(run.err.lines().count(), 1, "{item}: {}", run.err);
            assert!(
                run.err.starts_with(&format!(
                    "ccfn: warning: {}",
                    if args[0] == "calls" {
                        "calls"
                    } else {
                        "workspace"
                    }
                )) && run
                    .err
                    .contains("a page would take more than 16 MiB of memory once read")
                    && run.err.contains("with the 0 items read"),
                "{item}: {}",
                run.err
            );
            if args.contains(&"--json") {
                assert_eq!(run.out.trim(), "[]", "{item}");
            }
            assert_peak(&run, item);
        }
    }

    #[tokio::test]
    async fn pages_that_add_up_past_the_budget_end_the_listing_with_the_items_so_far() {
        // Pages of three calls with a 1 MiB field each, linking the next
        // one for ever: each page is within the page's budget, five fill
        // the listing's (16 MiB), the sixth passes it.
        let item = format!(
            "{{\"sid\":\"CA{:032x}\",\"status\":\"completed\",\"notes\":\"{}\"}}",
            7,
            "A".repeat(1024 * 1024)
        );
        let (fake, run) = ccfn(
            Hostile::RepeatedItems {
                item,
                bytes: 3 * MIB + 3 * 1024,
                endless: true,
            },
            &["calls", "list", "--limit", "10000", "--json"],
        )
        .await;
        assert_eq!(run.code, 0, "{}", run.err);
        let calls: Vec<Value> = serde_json::from_str(&run.out).unwrap();
        assert_eq!(calls.len(), 15);
        assert_eq!(fake.requests().len(), 6);
        assert_eq!(run.err.lines().count(), 1, "{}", run.err);
        assert!(
            run.err.starts_with(
                "ccfn: warning: calls: the pages would take more than 16 MiB of memory in all once read"
            ) && run.err.contains("with the 15 items read"),
            "{}",
            run.err
        );
        assert_peak(&run, "pages adding up");
    }

    #[tokio::test]
    async fn a_resource_that_expands_past_the_budget_is_an_error() {
        let sid = format!("CA{:032x}", 1);
        let (_, run) = ccfn(
            Hostile::RepeatedItems {
                item: "[]".to_owned(),
                bytes: 16 * MIB - 1024,
                endless: false,
            },
            &["calls", "get", &sid],
        )
        .await;
        assert_eq!(run.code, 2, "{}", run.err);
        assert_eq!(run.err.lines().count(), 1, "{}", run.err);
        assert!(
            run.err.contains(&format!("call {sid}: the platform's answer (16776191 bytes of JSON) would take more than 16 MiB of memory once read: not kept")),
            "{}",
            run.err
        );
        assert!(run.out.is_empty(), "{}", run.out);
        assert_peak(&run, "one resource");
    }
}

#[tokio::test]
async fn the_runner_fails_a_run_that_sent_a_request_the_definitions_do_not_allow() {
    // ccfn follows a next link on the platform's own origin as written:
    // one that adds a parameter `ListCall` does not have makes ccfn send
    // a request the definitions do not allow. The runner every test here
    // uses must fail that run, naming the request.
    use ccfn_support::fake_platform::hostile::Hostile;
    let link = format!(
        "/2010-04-01/Accounts/{}/Calls.json?PageSize=50&Page=1&Bogus=1",
        ccfn_support::fake_platform::ACCOUNT_SID
    );
    let fake = platform().await.hostile(Hostile::NextLink { link });
    let ran =
        tokio::spawn(
            async move { ccfn(&fake, &["calls", "list", "--limit", "100", "--json"]).await },
        )
        .await;
    let panic = ran
        .expect_err("the runner let a nonconforming request pass")
        .into_panic();
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains("requests that do not conform to the platform's definitions")
            && message.contains("query parameter \"Bogus\": ListCall has no such parameter"),
        "{message}"
    );
}

#[tokio::test]
async fn a_since_that_is_no_day_is_refused_not_sent() {
    // The definitions' date parameters take real days: `2026-02-30` is
    // refused by ccfn, not sent for the platform to refuse or misread
    // (the runner's conformance check fails a run that sends it).
    let fake = everything().await;
    let logs = [
        "functions",
        "logs",
        "--service",
        SERVICE,
        "--environment",
        ENVIRONMENT,
        "--since",
    ];
    for day in ["2026-02-30", "2026-13-01", "2026-11-00"] {
        for args in [
            &["calls", "list", "--since"][..],
            &logs[..],
            &["account", "alerts", "--since"],
        ] {
            let args: Vec<&str> = args.iter().copied().chain([day]).collect();
            let (code, out, err) = ccfn(&fake, &args).await;
            assert_eq!(code, 2, "{args:?}: {out}");
            assert!(
                err.contains(&format!("{day:?} is not a date as YYYY-MM-DD")),
                "{args:?}: {err}"
            );
        }
    }
    assert!(fake.requests().is_empty(), "{:?}", fake.requests());
}

/// The peak resident size of process `pid` in KiB, read from `/proc`
/// while it lives (on Linux; 0 elsewhere): the task ends when it does.
fn peak_kib(pid: u32) -> tokio::task::JoinHandle<u64> {
    tokio::spawn(async move {
        let mut peak = 0;
        while let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            let Some(kib) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            else {
                break;
            };
            peak = peak.max(kib);
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        peak
    })
}
