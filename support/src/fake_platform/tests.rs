//! The fake platform's own tests: filters and orders as the definitions
//! describe them, the request checker, pages and their links.

#![cfg(test)]

use serde_json::{json, Value};

use super::center;
use super::definitions;
use super::select::*;
use super::serve::{self, State};
use super::*;

/// 2026-11-26T12:00:00Z.
const NOW: i64 = 1_795_694_400;

fn sids(kept: &[&Value]) -> Vec<String> {
    kept.iter()
        .map(|item| item["sid"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn query(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect()
}

fn kept(operation: &str, items: &[Value], pairs: &[(&str, &str)]) -> Vec<String> {
    sids(&select(operation, items, &query(pairs), NOW).unwrap())
}

#[test]
fn dates_parse_as_the_platform_writes_them() {
    assert_eq!(NOW, definitions::instant("2026-11-26T12:00:00Z").unwrap());
    let rfc = definitions::instant("Fri, 20 Nov 2026 10:00:00 +0000").unwrap();
    assert_eq!(Some(rfc), definitions::instant("2026-11-20T10:00:00Z"));
    assert_eq!(Some(rfc), definitions::instant("2026-11-20T05:00:00-05:00"));
    assert_eq!(Some(rfc), definitions::instant("2026-11-20T10:00:00.250Z"));
    assert_eq!(Some(rfc - 36_000), definitions::instant("2026-11-20"));
    for wrong in [
        "2026-02-30",
        "2026-13-01",
        "2026-11-20T24:00:00Z",
        "20 Nov 2026",
        "yesterday",
        "",
    ] {
        assert_eq!(definitions::instant(wrong), None, "{wrong}");
    }
}

#[test]
fn execution_date_bounds_are_from_inclusive_and_to_exclusive_instants() {
    let executions = [
        json!({"sid": "FN1", "status": "ended", "date_created": "2026-11-20T00:00:00Z"}),
        json!({"sid": "FN2", "status": "active", "date_created": "2026-11-20T23:59:59Z"}),
        json!({"sid": "FN3", "status": "ended", "date_created": "2026-11-21T00:00:00Z"}),
    ];
    let day = [
        ("DateCreatedFrom", "2026-11-20T00:00:00Z"),
        ("DateCreatedTo", "2026-11-20T23:59:59Z"),
    ];
    // "starting before this date-time": 23:59:59 itself is out.
    assert_eq!(kept("ListExecution", &executions, &day), ["FN1"]);
    let next_midnight = [
        ("DateCreatedFrom", "2026-11-20T00:00:00Z"),
        ("DateCreatedTo", "2026-11-21T00:00:00Z"),
    ];
    assert_eq!(
        kept("ListExecution", &executions, &next_midnight),
        ["FN1", "FN2"]
    );
    assert_eq!(
        kept("ListExecution", &executions, &[("status", "active")]),
        ["FN2"]
    );
    // `Status` is not the operation's parameter (`status` is): ignored.
    assert_eq!(
        kept("ListExecution", &executions, &[("Status", "active")]).len(),
        3
    );
    let garbage = select(
        "ListExecution",
        &executions,
        &query(&[("DateCreatedTo", "tomorrow")]),
        NOW,
    );
    assert!(garbage.unwrap_err().contains("DateCreatedTo"));
}

#[test]
fn call_times_are_days_on_before_and_on_or_after() {
    let calls = [
        json!({"sid": "CA1", "start_time": "Thu, 19 Nov 2026 23:59:59 +0000", "end_time": null}),
        json!({"sid": "CA2", "start_time": "Fri, 20 Nov 2026 00:00:00 +0000", "end_time": "Fri, 20 Nov 2026 00:01:00 +0000"}),
        json!({"sid": "CA3", "start_time": "Fri, 20 Nov 2026 23:59:59 +0000", "end_time": null}),
        json!({"sid": "CA4", "start_time": "Sat, 21 Nov 2026 00:00:00 +0000", "end_time": null}),
    ];
    assert_eq!(
        kept("ListCall", &calls, &[("StartTime", "2026-11-20")]),
        ["CA2", "CA3"]
    );
    assert_eq!(
        kept("ListCall", &calls, &[("StartTime>", "2026-11-20")]),
        ["CA2", "CA3", "CA4"]
    );
    // "before this date": the day itself is out.
    assert_eq!(
        kept("ListCall", &calls, &[("StartTime<", "2026-11-20")]),
        ["CA1"]
    );
    assert_eq!(
        kept(
            "ListCall",
            &calls,
            &[("StartTime>", "2026-11-20"), ("StartTime<", "2026-11-21")]
        ),
        ["CA2", "CA3"]
    );
    // A call that has not ended has no end time to match.
    assert_eq!(
        kept("ListCall", &calls, &[("EndTime", "2026-11-20")]),
        ["CA2"]
    );
}

#[test]
fn recordings_inequalities_include_the_midnight() {
    let recordings = [
        json!({"sid": "RE1", "date_created": "Fri, 20 Nov 2026 00:00:00 +0000"}),
        json!({"sid": "RE2", "date_created": "Fri, 20 Nov 2026 08:00:00 +0000"}),
    ];
    assert_eq!(
        kept(
            "ListCallRecording",
            &recordings,
            &[("DateCreated<", "2026-11-20")]
        ),
        ["RE1"]
    );
    assert_eq!(
        kept(
            "ListCallRecording",
            &recordings,
            &[("DateCreated>", "2026-11-20")]
        ),
        ["RE1", "RE2"]
    );
    assert_eq!(
        kept(
            "ListCallRecording",
            &recordings,
            &[("DateCreated", "2026-11-20")]
        ),
        ["RE1", "RE2"]
    );
}

#[test]
fn tasks_are_oldest_first_unless_ordering_says_otherwise() {
    let tasks = [
        json!({"sid": "WT2", "priority": 5, "date_created": "2026-11-20T10:00:02Z", "assignment_status": "pending"}),
        json!({"sid": "WT1", "priority": 0, "date_created": "2026-11-20T10:00:01Z", "assignment_status": "canceled"}),
        json!({"sid": "WT3", "priority": 5, "date_created": "2026-11-20T10:00:03Z", "assignment_status": "assigned"}),
    ];
    assert_eq!(kept("ListTask", &tasks, &[]), ["WT1", "WT2", "WT3"]);
    assert_eq!(
        kept("ListTask", &tasks, &[("Ordering", "DateCreated:desc")]),
        ["WT3", "WT2", "WT1"]
    );
    assert_eq!(
        kept(
            "ListTask",
            &tasks,
            &[("Ordering", "Priority:desc,DateCreated:asc")]
        ),
        ["WT2", "WT3", "WT1"]
    );
    assert_eq!(
        kept(
            "ListTask",
            &tasks,
            &[
                ("AssignmentStatus", "pending"),
                ("AssignmentStatus", "assigned")
            ]
        ),
        ["WT2", "WT3"]
    );
    assert_eq!(
        kept(
            "ListTask",
            &tasks,
            &[("Priority", "5"), ("Ordering", "DateCreated:desc")]
        ),
        ["WT3", "WT2"]
    );
    for wrong in [
        "DateCreated:asc,VirtualStartTime:desc",
        "Priority",
        "Priority:up",
        "Name:asc",
        "Priority:asc,Priority:desc",
    ] {
        let refused = select("ListTask", &tasks, &query(&[("Ordering", wrong)]), NOW);
        assert!(refused.is_err(), "{wrong}");
    }
}

#[test]
fn task_attributes_expressions_filter_on_the_attributes() {
    let tasks = [
        json!({"sid": "WT1", "date_created": "2026-11-20T10:00:01Z", "attributes": r#"{"type":"callback","call":{"from":"+1555"}}"#}),
        json!({"sid": "WT2", "date_created": "2026-11-20T10:00:02Z", "attributes": r#"{"type":"voicemail"}"#}),
    ];
    let callback = [("EvaluateTaskAttributes", r#"type == "callback""#)];
    assert_eq!(kept("ListTask", &tasks, &callback), ["WT1"]);
    let nested = [(
        "EvaluateTaskAttributes",
        "type != 'voicemail' AND call.from == '+1555'",
    )];
    assert_eq!(kept("ListTask", &tasks, &nested), ["WT1"]);
    let hostile = [("EvaluateTaskAttributes", "type == \"x\" OR 1==1; DROP")];
    assert!(select("ListTask", &tasks, &query(&hostile), NOW).is_err());
}

#[test]
fn phone_numbers_match_partially_with_wildcard_digits() {
    let numbers = [
        json!({"sid": "PN1", "phone_number": "+15559870000", "friendly_name": "Main line", "beta": false}),
        json!({"sid": "PN2", "phone_number": "+15551230000", "friendly_name": "Main", "beta": true}),
    ];
    assert_eq!(
        kept(
            "ListIncomingPhoneNumber",
            &numbers,
            &[("PhoneNumber", "+15559870000")]
        ),
        ["PN1"]
    );
    assert_eq!(
        kept(
            "ListIncomingPhoneNumber",
            &numbers,
            &[("PhoneNumber", "987")]
        ),
        ["PN1"]
    );
    assert_eq!(
        kept(
            "ListIncomingPhoneNumber",
            &numbers,
            &[("PhoneNumber", "555***0000")]
        ),
        ["PN1", "PN2"]
    );
    // `*` is a digit, not anything.
    assert!(kept(
        "ListIncomingPhoneNumber",
        &numbers,
        &[("PhoneNumber", "+*9")]
    )
    .is_empty());
    // `+` sent unencoded in a query is a space: no number has one.
    assert!(kept(
        "ListIncomingPhoneNumber",
        &numbers,
        &[("PhoneNumber", " 15559870000")]
    )
    .is_empty());
    // The friendly name's description says nothing of partial matches.
    assert_eq!(
        kept(
            "ListIncomingPhoneNumber",
            &numbers,
            &[("FriendlyName", "Main")]
        ),
        ["PN2"]
    );
    assert_eq!(
        kept("ListIncomingPhoneNumber", &numbers, &[("Beta", "false")]),
        ["PN1"]
    );
}

#[test]
fn alerts_older_than_30_days_are_refused_and_days_are_whole() {
    let alerts = [
        json!({"sid": "NO1", "log_level": "error", "date_generated": "2026-11-20T23:30:00Z"}),
        json!({"sid": "NO2", "log_level": "warning", "date_generated": "2026-11-21T00:00:00Z", "date_created": "2026-11-20T00:00:00Z"}),
        json!({"sid": "NO3", "log_level": "notice", "date_generated": null, "date_created": "2026-11-22T00:00:00Z"}),
    ];
    assert_eq!(
        kept("ListAlert", &alerts, &[("EndDate", "2026-11-20")]),
        ["NO1"]
    );
    assert!(kept("ListAlert", &alerts, &[("EndDate", "2026-11-20T23:00:00Z")]).is_empty());
    assert_eq!(
        kept(
            "ListAlert",
            &alerts,
            &[("StartDate", "2026-11-21"), ("LogLevel", "warning")]
        ),
        ["NO2"]
    );
    // 30 days before NOW is 2026-10-27.
    assert_eq!(
        kept("ListAlert", &alerts, &[("StartDate", "2026-10-27")]).len(),
        3
    );
    // Without `date_generated`, when it was created.
    assert_eq!(
        kept("ListAlert", &alerts, &[("StartDate", "2026-11-22")]),
        ["NO3"]
    );
    let old = select(
        "ListAlert",
        &alerts,
        &query(&[("StartDate", "2026-10-26T23:59:59Z")]),
        NOW,
    );
    assert!(old.unwrap_err().contains("older than 30 days"));
    let old_end = select(
        "ListAlert",
        &alerts,
        &query(&[("EndDate", "2026-10-01")]),
        NOW,
    );
    assert!(old_end.is_err());
}

#[test]
fn logs_default_to_the_last_day() {
    let logs = [
        json!({"sid": "NO1", "function_sid": "ZH1", "date_created": "2026-11-25T11:00:00Z"}),
        json!({"sid": "NO2", "function_sid": "ZH2", "date_created": "2026-11-25T13:00:00Z"}),
    ];
    assert_eq!(kept("ListLog", &logs, &[]), ["NO2"]);
    assert_eq!(
        kept("ListLog", &logs, &[("StartDate", "2026-11-25T00:00:00Z")]),
        ["NO1", "NO2"]
    );
    assert_eq!(
        kept(
            "ListLog",
            &logs,
            &[
                ("StartDate", "2026-11-25T00:00:00Z"),
                ("FunctionSid", "ZH1")
            ]
        ),
        ["NO1"]
    );
    // "after", "before": the bounds themselves are out.
    let exact = [
        ("StartDate", "2026-11-25T11:00:00Z"),
        ("EndDate", "2026-11-25T13:00:00Z"),
    ];
    assert!(kept("ListLog", &logs, &exact).is_empty());
}

#[test]
fn usage_dates_take_offsets_from_today() {
    let usage = [
        json!({"sid": "UR1", "category": "calls", "start_date": "2026-11-01", "end_date": "2026-11-20"}),
        json!({"sid": "UR2", "category": "sms", "start_date": "2026-10-01", "end_date": "2026-10-31"}),
    ];
    assert_eq!(
        kept("ListUsageRecord", &usage, &[("StartDate", "-30days")]),
        ["UR1"]
    );
    assert_eq!(
        kept("ListUsageRecord", &usage, &[("EndDate", "2026-10-31")]),
        ["UR2"]
    );
    assert_eq!(
        kept("ListUsageRecord", &usage, &[("Category", "sms")]),
        ["UR2"]
    );
}

#[test]
fn unknown_parameters_are_ignored_as_the_platform_does() {
    let flows = [
        json!({"sid": "FW1", "status": "draft"}),
        json!({"sid": "FW2", "status": "published"}),
    ];
    assert_eq!(
        kept(
            "ListFlow",
            &flows,
            &[("Status", "draft"), ("\u{1b}[2J", "\u{0}")]
        )
        .len(),
        2
    );
}

fn request(method: &str, path: &str, pairs: &[(&str, &str)]) -> Request {
    let query = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    Request::new(method, &format!("{path}?{query}"))
}

const FLOW: &str = "FW0123456789abcdef0123456789abcdef";
const WORKSPACE: &str = "WS0123456789abcdef0123456789abcdef";

#[test]
fn conforming_requests_have_no_fault() {
    let account = format!("/2010-04-01/Accounts/{ACCOUNT_SID}");
    let executions = format!("/v2/Flows/{FLOW}/Executions");
    let tasks = format!("/v1/Workspaces/{WORKSPACE}/Tasks");
    let conforming = [
        request(
            "GET",
            &format!("{account}/Calls.json"),
            &[
                ("StartTime>", "2026-11-20"),
                ("Status", "failed"),
                ("PageSize", "1000"),
            ],
        ),
        request("GET", &format!("{account}.json"), &[]),
        request(
            "GET",
            &executions,
            &[
                ("DateCreatedFrom", "2026-11-20T00:00:00Z"),
                ("DateCreatedTo", "2026-11-20T23:59:59+01:00"),
                ("status", "ended"),
            ],
        ),
        request(
            "GET",
            &tasks,
            &[
                ("AssignmentStatus", "pending"),
                ("AssignmentStatus", "reserved"),
                ("Ordering", "DateCreated:desc"),
                ("Page", "0"),
            ],
        ),
        request(
            "GET",
            "/v1/Alerts",
            &[
                ("StartDate", "2026-11-20"),
                ("EndDate", "2026-11-20T10:00:00Z"),
            ],
        ),
        request(
            "GET",
            &format!("{account}/Usage/Records.json"),
            &[("StartDate", "-30days"), ("IncludeSubaccounts", "false")],
        ),
        request(
            "GET",
            &format!("{account}/IncomingPhoneNumbers.json"),
            &[("PhoneNumber", "+1555*")],
        ),
    ];
    for request in conforming {
        assert_eq!(
            nonconformities(&request),
            Vec::<String>::new(),
            "{request:?}"
        );
    }
}

#[test]
fn nonconforming_requests_say_what_is_wrong() {
    let account = format!("/2010-04-01/Accounts/{ACCOUNT_SID}");
    let executions = format!("/v2/Flows/{FLOW}/Executions");
    let cases: [(Request, &str); 14] = [
        (
            request("GET", "/v2/Flows", &[("Status", "draft")]),
            "\"Status\": ListFlow has no such parameter",
        ),
        (
            request("GET", &executions, &[("Status", "ended")]),
            "ListExecution has no such parameter",
        ),
        (
            request("GET", &executions, &[("status", "running")]),
            "not one of [\"active\",\"ended\"]",
        ),
        (
            request("GET", &executions, &[("DateCreatedTo", "2026-11-20")]),
            "not a date-time",
        ),
        (
            request(
                "GET",
                &executions,
                &[("DateCreatedFrom", "2026-11-20 10:00:00")],
            ),
            "not a date-time",
        ),
        (
            request(
                "GET",
                &format!("{account}/Calls.json"),
                &[("PageSize", "1001")],
            ),
            "above the maximum 1000",
        ),
        (
            request("GET", &format!("{account}/Calls.json"), &[("Page", "-1")]),
            "below the minimum 0",
        ),
        (
            request(
                "GET",
                &format!("{account}/Calls.json"),
                &[("PageSize", "fifty")],
            ),
            "not an integer",
        ),
        (
            request(
                "GET",
                &format!("{account}/Calls.json"),
                &[("Status", "failed"), ("Status", "busy")],
            ),
            "given 2 times",
        ),
        (
            request(
                "GET",
                &format!("{account}/Calls.json"),
                &[("ParentCallSid", "CA1")],
            ),
            "shorter than 34",
        ),
        (
            request("GET", "/v2/Flows/FW0001", &[]),
            "path parameter Sid=\"FW0001\"",
        ),
        (request("GET", "/v2/Flowz", &[]), "no operation"),
        (request("POST", "/v2/Flows", &[]), "POST is a write"),
        (request("PUT", "/v2/Flows", &[]), "has no method PUT"),
    ];
    for (request, why) in cases {
        let faults = nonconformities(&request);
        assert_eq!(faults.len(), 1, "{request:?}: {faults:?}");
        assert!(
            faults[0].contains(why),
            "{request:?}: {faults:?} lacks {why}"
        );
    }
}

#[test]
fn hostile_requests_are_reported_not_trusted() {
    // Escapes, NULs, path traversal and a megabyte of value: reported
    // as faults, quoted, without a panic.
    let huge = "A".repeat(1 << 20);
    let hostile = [
        request("GET", "/v2/Flows/..%2F..%2Fetc%2Fpasswd", &[]),
        request("GET", "/v2/Flows", &[("\u{1b}]52;c;aGk=\u{7}", "\u{0}")]),
        request(
            "GET",
            &format!("/v2/Flows/{FLOW}/Executions"),
            &[("status", &huge)],
        ),
        request(
            "GET",
            &format!("/v1/Workspaces/{WORKSPACE}/Tasks"),
            &[("WorkflowSid", "WW\u{202e}0000000000000000000000000000000")],
        ),
    ];
    for request in hostile {
        let faults = nonconformities(&request);
        assert_eq!(faults.len(), 1, "{faults:?}");
        let fault = &faults[0];
        assert!(fault.len() < 300, "{fault}");
        assert!(
            !fault.chars().any(|c| c.is_control() || c == '\u{202e}'),
            "{fault:?}"
        );
    }
}

#[tokio::test]
async fn the_fake_records_methods_and_refuses_writes() {
    ccfn_core::http::install_crypto_provider();
    let fake = FakePlatform::start().await.with_list(Resource::Flows);
    let client = reqwest::Client::new();
    let url = format!("{}/v2/Flows", fake.url());
    let auth = |request: reqwest::RequestBuilder| {
        request.basic_auth(fake.username(), Some(fake.password()))
    };
    let listed = auth(client.get(&url)).send().await.unwrap();
    assert_eq!(listed.status(), 200);
    let written = auth(client.post(&url)).send().await.unwrap();
    assert_eq!(written.status(), 405);
    let methods: Vec<String> = fake
        .requests()
        .into_iter()
        .map(|r| r.method().to_owned())
        .collect();
    assert_eq!(methods, ["GET", "POST"]);
    let faults = fake.unconforming_requests();
    assert_eq!(
        faults,
        ["POST /v2/Flows: POST is a write; ccfn only reads the platform"]
    );
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        fake.assert_requests_conform()
    }));
    assert!(panic.is_err());
}

#[tokio::test]
async fn flows_listed_leave_out_what_only_a_fetched_flow_has() {
    ccfn_core::http::install_crypto_provider();
    let fake = FakePlatform::start().await.with(
        Resource::Flows,
        json!({"sid": FLOW, "status": "published", "revision": 3, "valid": false,
               "errors": [{"message": "bad url"}], "warnings": [], "definition": {"states": []},
               "not_in_the_definitions": 1}),
    );
    let get = |path: String| {
        let request = reqwest::Client::new()
            .get(format!("{}{path}", fake.url()))
            .basic_auth(fake.username(), Some(fake.password()));
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let page = get("/v2/Flows".to_owned()).await;
    let listed = &page["flows"][0];
    for field in [
        "definition",
        "valid",
        "errors",
        "warnings",
        "author_sid",
        "links",
    ] {
        assert_eq!(listed[field], Value::Null, "{field}: {listed}");
    }
    assert_eq!(listed["revision"], 3);
    assert!(listed.get("not_in_the_definitions").is_none());
    let fetched = get(format!("/v2/Flows/{FLOW}")).await;
    assert_eq!(fetched["valid"], false);
    assert_eq!(fetched["errors"][0]["message"], "bad url");
    assert_eq!(fetched["definition"], json!({"states": []}));
    assert_eq!(fetched["author_sid"], Value::Null);
    fake.assert_requests_conform();
}

#[test]
fn filter_names_are_the_fields_in_snake_case() {
    assert_eq!(snake_case("Status"), "status");
    assert_eq!(snake_case("AssignmentStatus"), "assignment_status");
    assert_eq!(snake_case("to"), "to");
}

/// The fields of a page, sorted.
fn fields(value: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    names
}

#[tokio::test]
async fn pages_have_the_fields_of_the_platform_s_definitions_full_or_empty() {
    let mut state = State {
        origin: "http://127.0.0.1:9".to_owned(),
        username: "AC1".to_owned(),
        password: "pw".to_owned(),
        ..State::default()
    };
    let calls = Resource::Calls.path().0;
    let tasks = Resource::Tasks {
        workspace: "WS1".to_owned(),
    }
    .path()
    .0;
    state.lists.push((
        calls.clone(),
        "calls",
        vec![json!({"sid": "CA1"}), json!({"sid": "CA2"})],
    ));
    state.lists.push((tasks.clone(), "tasks", Vec::new()));
    let page = |state: &mut State, path: &str, size: &str| {
        let response = serve::answer(state, &request("GET", path, &[("PageSize", size)]));
        assert_eq!(response.status(), 200);
        response
    };
    let body = |response: axum::response::Response| async {
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        serde_json::from_slice::<Value>(&bytes).unwrap()
    };
    // The 2010 API: a full first page, then the last.
    let first = body(page(&mut state, &calls, "1")).await;
    assert_eq!(
        fields(&first),
        [
            "calls",
            "end",
            "first_page_uri",
            "next_page_uri",
            "page",
            "page_size",
            "previous_page_uri",
            "start",
            "uri"
        ]
    );
    assert_eq!(first["next_page_uri"], format!("{calls}?PageSize=1&Page=1"));
    assert_eq!(first["previous_page_uri"], Value::Null);
    // The newer APIs: an empty page.
    let empty = body(page(&mut state, &tasks, "50")).await;
    assert_eq!(fields(&empty), ["meta", "tasks"]);
    assert_eq!(
        fields(&empty["meta"]),
        [
            "first_page_url",
            "key",
            "next_page_url",
            "page",
            "page_size",
            "previous_page_url",
            "url"
        ]
    );
    assert_eq!(empty["meta"]["key"], "tasks");
    assert_eq!(empty["meta"]["next_page_url"], Value::Null);
    assert_eq!(empty["tasks"], json!([]));
    // Without credentials: the platform's 401.
    let shared = serve::Shared {
        book: std::sync::Mutex::new(ccfn_testkit::__private::Book::default()),
        state: std::sync::Mutex::new(state),
    };
    let response = serve::gate(&shared, &request("GET", &calls, &[]), 0).unwrap();
    assert_eq!(response.status(), 401);
    let refused = body(response).await;
    assert_eq!(refused["code"], 20003);
    assert_eq!(fields(&refused), ["code", "message", "more_info", "status"]);
}

/// The platform's definitions of the items the fake serves.
fn definitions() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/platform-api/oai-subset.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The schema of the items of `operation` (a list's items, or a
/// fetch's answer).
fn schema(definitions: &Value, operation: &str) -> Value {
    let op = definitions["products"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|p| p["operations"].as_array().unwrap())
        .find(|op| op["operationId"] == operation)
        .unwrap_or_else(|| panic!("no {operation}"));
    let response = &op["response"];
    if operation.starts_with("List") {
        for (key, field) in response["properties"].as_object().unwrap() {
            if key != "meta" && field["type"] == "array" {
                return field["items"].clone();
            }
        }
    }
    response.clone()
}

#[tokio::test]
async fn the_contact_center_s_items_have_every_field_of_their_definitions() {
    let d = definitions();
    for scenario in [Scenario::Healthy, Scenario::LastSecondOfTheDay] {
        let fake = FakePlatform::start().await.contact_center(scenario);
        let state = fake.lock();
        let operation = |path: &str| -> Option<&str> {
            Some(match path {
                p if p.ends_with("/Calls.json") => "ListCall",
                p if p.ends_with("/IncomingPhoneNumbers.json") => "ListIncomingPhoneNumber",
                "/v2/Flows" => "ListFlow",
                p if p.ends_with("/Executions") => "ListExecution",
                p if p.ends_with("/Steps") => "ListExecutionStep",
                p if p.ends_with("/Workflows") => "ListWorkflow",
                "/v1/Workspaces" => "ListWorkspace",
                p if p.ends_with("/TaskQueues") => "ListTaskQueue",
                p if p.ends_with("/Context") => "FetchExecutionStepContext",
                p if p.ends_with(&format!("{ACCOUNT_SID}.json")) => "FetchAccount",
                _ => return None,
            })
        };
        let mut items: Vec<(&str, &Value)> = Vec::new();
        for (path, _, list) in &state.lists {
            if let Some(op) = operation(path) {
                items.extend(list.iter().map(|item| (op, item)));
            }
        }
        for (path, object) in &state.objects {
            if path.ends_with("/Events.json") {
                let events = object["events"].as_array().unwrap();
                items.extend(events.iter().map(|item| ("ListCallEvent", item)));
            } else if let Some(op) = operation(path) {
                items.push((op, object));
            }
        }
        // Every kind of item the contact center serves is checked.
        for op in [
            "ListCall",
            "ListIncomingPhoneNumber",
            "ListFlow",
            "ListExecution",
            "ListExecutionStep",
            "ListWorkflow",
            "ListWorkspace",
            "ListTaskQueue",
            "FetchExecutionStepContext",
            "FetchAccount",
            "ListCallEvent",
        ] {
            assert!(items.iter().any(|(o, _)| *o == op), "no {op} item");
        }
        for (op, item) in items {
            let schema = schema(&d, op);
            let properties = schema["properties"].as_object().unwrap();
            let mut want: Vec<&str> = properties.keys().map(String::as_str).collect();
            let mut have: Vec<&str> = item
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            want.sort_unstable();
            have.sort_unstable();
            assert_eq!(have, want, "{op}: {item}");
            for (name, field) in properties {
                let value = &item[name];
                if value.is_null() {
                    assert!(field["nullable"] == true, "{op}.{name} is null");
                    continue;
                }
                let text = value.as_str().unwrap_or_default();
                match field["format"].as_str() {
                    Some("date-time-rfc-2822") => assert!(
                        text.contains(", ") && text.ends_with(" +0000"),
                        "{op}.{name}: {text}"
                    ),
                    Some("date-time") => assert!(
                        text.len() == 20 && text.as_bytes()[10] == b'T' && text.ends_with('Z'),
                        "{op}.{name}: {text}"
                    ),
                    _ => {}
                }
                if let Some(allowed) = field["enum"].as_array() {
                    assert!(allowed.contains(value), "{op}.{name}: {value}");
                }
            }
        }
    }
}

#[test]
fn the_call_s_dates_are_written_as_each_product_writes_them() {
    assert_eq!(
        center::rfc2822_of(20_777, "10:00:00"),
        "Fri, 20 Nov 2026 10:00:00 +0000"
    );
    assert_eq!(
        center::rfc2822_of(19_782, "23:59:59"),
        "Thu, 29 Feb 2024 23:59:59 +0000"
    );
    assert_eq!(
        center::rfc2822_of(0, "00:00:00"),
        "Thu, 01 Jan 1970 00:00:00 +0000"
    );
    let day = center::day();
    assert!(center::iso("23:59:59").starts_with(&day));
    assert!(center::day_after() > day);
}

#[tokio::test]
async fn a_failure_told_answers_only_authenticated_requests_as_many_times_as_told() {
    ccfn_core::http::install_crypto_provider();
    let fake = FakePlatform::start().await.with_list(Resource::Flows);
    fake.fail_with(
        platform_error(429, "Too Many Requests")
            .header("Retry-After", "7")
            .times(1),
    );
    let client = reqwest::Client::new();
    let url = format!("{}/v2/Flows", fake.url());
    // Without credentials: the platform's 401 first, the failure unused.
    let anonymous = client.get(&url).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
    let auth = || {
        client
            .get(&url)
            .basic_auth(fake.username(), Some(fake.password()))
    };
    let limited = auth().send().await.unwrap();
    assert_eq!(limited.status(), 429);
    assert_eq!(limited.headers()["retry-after"], "7");
    let body: Value = limited.json().await.unwrap();
    assert_eq!(body["code"], 20429);
    assert_eq!(body["message"], "Too Many Requests");
    assert_eq!(auth().send().await.unwrap().status(), 200);
    let statuses: Vec<Option<u16>> = fake.requests().iter().map(|r| r.status()).collect();
    assert_eq!(statuses, [Some(401), Some(429), Some(200)]);
    fake.expect(3);
}

#[tokio::test]
#[should_panic(expected = "the fake platform at http://127.0.0.1:")]
async fn the_platform_checks_its_expectation_when_dropped() {
    let fake = FakePlatform::start().await;
    fake.expect(2);
}

#[tokio::test]
#[should_panic(expected = "the foreign host at http://127.0.0.1:")]
async fn a_foreign_host_reached_fails_the_test_that_expected_none() {
    ccfn_core::http::install_crypto_provider();
    let foreign = super::hostile::ForeignHost::start().await;
    foreign.expect(0);
    reqwest::get(format!("{}/v1/Calls", foreign.url()))
        .await
        .unwrap();
}
