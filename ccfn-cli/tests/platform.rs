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
