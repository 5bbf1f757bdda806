//! OpenTelemetry export from the examples server as it ships (feature
//! `otel`, on by default), to a fake collector on loopback that decodes
//! every export with the official protobuf definitions.
//!
//! - One call, one trace: the invocations of one call share the trace id
//!   its `CallSid` spells, and a caller's `traceparent` wins.
//! - Each invocation's span carries the FaaS and HTTP attributes and the
//!   domain's, and every record as an event; each task-router call is a
//!   child span whose context goes upstream in `traceparent`.
//! - The metrics count invocations by function and outcome.
//! - No secret reaches the collector.
//! - An unreachable collector costs one `telemetry` record a minute.
//! - A request refused before any function runs (a bad signature, an
//!   unknown path) has a server span of its own and is counted.

use std::time::Duration;

use ccfn_support::fake_collector::{FakeCollector, MetricPoint, Span};
use ccfn_testkit::fake_task_router::FakeTaskRouter;
use example_contact_center::WAIT_URL;
use serde_json::{json, Value};

use crate::server::Server;

const CALL_SID: &str = "CA0123456789abcdef0123456789abcdef";
const CALL_TRACE: &str = "0123456789abcdef0123456789abcdef";
const API_KEY_SID: &str = "SKaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const API_KEY_SECRET: &str = "canary-otel-api-key-secret-5be1";
const TOKEN_CANARY: &str = "canary-otel-payment-token-9d2f7";
const WORKSPACE: &str = "WSaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const WORKFLOW: &str = "WW11111111111111111111111111111111";
const QUEUE: &str = "WQ11111111111111111111111111111111";
const CALLER_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN: &str = "00f067aa0ba902b7";

/// Posts `body` to `path` with `headers`; the status and the invocation
/// id the server answered with.
async fn post(server: &Server, path: &str, body: &str, headers: &[(&str, &str)]) -> (u16, String) {
    unsigned(server, "POST", path, body, headers).await
}

fn voice(call_sid: &str) -> String {
    format!("CallSid={call_sid}&From=%2B15551230000&To=%2B15559870000&PaymentToken={TOKEN_CANARY}")
}

/// The server span of invocation `id`.
fn invocation<'a>(spans: &'a [Span], id: &str) -> &'a Span {
    spans
        .iter()
        .find(|s| s.kind == "server" && s.attributes.get("faas.invocation_id") == Some(&json!(id)))
        .unwrap_or_else(|| panic!("no span of invocation {id}: {spans:#?}"))
}

fn event_names(span: &Span) -> Vec<&str> {
    span.events.iter().map(|e| e.name.as_str()).collect()
}

/// The examples server exporting to a new collector (spans every 50 ms,
/// metrics only when flushed); `extra` settings added.
async fn exporting(extra: &[(&str, &str)]) -> (FakeCollector, Server) {
    let collector = FakeCollector::start().await;
    let endpoint = collector.url();
    let mut settings = vec![
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "50"),
        ("OTEL_METRIC_EXPORT_INTERVAL", "60000"),
    ];
    settings.extend_from_slice(extra);
    let server = Server::start(&settings).await;
    (collector, server)
}

/// [`exporting`], its callbacks routed by a fake task router whose
/// workflow sends every task to `QUEUE`; `extra` settings added.
async fn exporting_with_a_task_router(
    extra: &[(&str, &str)],
) -> (FakeCollector, FakeTaskRouter, Server) {
    let router = FakeTaskRouter::start().await.with_workflow(
        WORKFLOW,
        "Callbacks",
        json!({ "task_routing": { "filters": [], "default_filter": { "queue": QUEUE } } }),
    );
    let base_url = router.url();
    let mut settings = vec![
        ("PLATFORM_WORKSPACE_SID", WORKSPACE),
        ("workflowSid", WORKFLOW),
        ("ACCOUNT_SID", "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
        ("API_KEY_SID", API_KEY_SID),
        ("API_KEY_SECRET", API_KEY_SECRET),
        ("TASKROUTER_BASE_URL", base_url.as_str()),
    ];
    settings.extend_from_slice(extra);
    let (collector, server) = exporting(&settings).await;
    (collector, router, server)
}

/// Every text the collector received: each attribute of every span,
/// span event and data point, and each span's name and status message.
fn exported_values(spans: &[Span], metrics: &[MetricPoint]) -> Vec<String> {
    spans
        .iter()
        .flat_map(|span| {
            std::iter::once(&span.attributes)
                .chain(span.events.iter().map(|event| &event.attributes))
                .flat_map(|attributes| attributes.values().map(Value::to_string))
                .chain([span.status_message.clone(), span.name.clone()])
        })
        .chain(
            metrics
                .iter()
                .flat_map(|point| point.attributes.values().map(Value::to_string)),
        )
        .collect()
}

#[tokio::test]
async fn one_call_is_one_trace_with_its_records_calls_and_metrics() {
    let (collector, router, server) = exporting_with_a_task_router(&[
        ("OTEL_SERVICE_NAME", "contact-center"),
        ("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test"),
    ])
    .await;
    let (endpoint, base_url) = (collector.url(), router.url());

    // The menu, then the caller's choice of a callback: one call.
    let (status, menu) = post(&server, WAIT_URL, &voice(CALL_SID), &[]).await;
    assert_eq!(status, 200);
    let choice = format!("{WAIT_URL}?mode=callback");
    let (status, callback) = post(&server, &choice, &voice(CALL_SID), &[]).await;
    assert_eq!(status, 200);
    // A caller that sends its own trace context.
    let traceparent = format!("00-{CALLER_TRACE}-{CALLER_SPAN}-01");
    let (_, traced) = post(
        &server,
        WAIT_URL,
        &voice("CA99999999999999999999999999999999"),
        &[("traceparent", &traceparent)],
    )
    .await;
    // A request with an invalid `traceparent`: the call's trace, as if
    // there were none.
    let (_, garbled) = post(
        &server,
        WAIT_URL,
        &voice(CALL_SID),
        &[("traceparent", "00-not-a-trace-context")],
    )
    .await;

    collector
        .wait_until(Duration::from_secs(20), |spans, _| {
            spans.iter().filter(|s| s.kind == "server").count() >= 4
                && spans.iter().any(|s| s.kind == "client")
        })
        .await;
    let spans = collector.spans();

    // One call, one trace: both invocations of the call are roots of the
    // trace its CallSid spells.
    let menu_span = invocation(&spans, &menu);
    let callback_span = invocation(&spans, &callback);
    for span in [menu_span, callback_span, invocation(&spans, &garbled)] {
        assert_eq!(span.trace_id, CALL_TRACE);
        assert_eq!(span.parent_span_id, "");
        assert_eq!(span.name, "wait-experience");
    }
    // The caller's trace context wins.
    let traced_span = invocation(&spans, &traced);
    assert_eq!(traced_span.trace_id, CALLER_TRACE);
    assert_eq!(traced_span.parent_span_id, CALLER_SPAN);

    // The semantic conventions' attributes and the domain's.
    let attributes = &callback_span.attributes;
    for (key, value) in [
        ("faas.trigger", json!("http")),
        ("faas.name", json!("wait-experience")),
        ("faas.invocation_id", json!(callback)),
        ("faas.coldstart", json!(false)),
        ("http.request.method", json!("POST")),
        ("http.route", json!(WAIT_URL)),
        ("http.response.status_code", json!(200)),
        ("ccfn.call_sid", json!(CALL_SID)),
        ("ccfn.mode", json!("callback")),
        ("ccfn.outcome", json!("success")),
    ] {
        assert_eq!(attributes.get(key), Some(&value), "{key}: {attributes:#?}");
    }
    assert_eq!(menu_span.attributes["faas.coldstart"], json!(true));
    assert_eq!(menu_span.attributes["ccfn.mode"], json!("initial"));
    assert_eq!(
        callback_span.resource["service.name"],
        json!("contact-center")
    );
    assert_eq!(
        callback_span.resource["deployment.environment"],
        json!("test")
    );

    // Every record an event of the span, in order, with its fields.
    let names = event_names(callback_span);
    assert_eq!(names.first(), Some(&"start"));
    assert_eq!(names.last(), Some(&"end"));
    for step in [
        "validation",
        "processing",
        "caller",
        "api_request",
        "critical",
        "metrics",
        "success",
    ] {
        assert!(names.contains(&step), "{step} in {names:?}");
    }
    let critical = callback_span
        .events
        .iter()
        .find(|e| e.name == "critical")
        .unwrap();
    assert_eq!(critical.attributes["queue_sid"], json!(QUEUE));
    assert_eq!(critical.attributes["level"], json!("INFO"));
    let end = callback_span.events.last().unwrap();
    assert_eq!(end.attributes["outcome"], json!("success"));

    // Each task-router call is a child span of the invocation's, and its
    // trace context went upstream.
    let calls: Vec<&Span> = spans
        .iter()
        .filter(|s| s.kind == "client" && s.parent_span_id == callback_span.span_id)
        .collect();
    assert!(!calls.is_empty(), "{spans:#?}");
    for call in &calls {
        assert_eq!(call.trace_id, CALL_TRACE);
        assert_eq!(call.attributes["server.address"], json!("127.0.0.1"));
        assert!(
            call.attributes.contains_key("http.response.status_code"),
            "{call:#?}"
        );
        assert!(call.attributes["url.full"]
            .as_str()
            .unwrap()
            .starts_with(&base_url));
    }
    let sent: Vec<String> = router
        .requests()
        .iter()
        .filter_map(|r| r.header("traceparent").map(str::to_owned))
        .collect();
    assert_eq!(sent.len(), calls.len(), "one traceparent per call");
    for call in &calls {
        let expected = format!("00-{CALL_TRACE}-{}-01", call.span_id);
        assert!(sent.contains(&expected), "{expected} in {sent:?}");
    }

    // Metrics, exported at the latest when the server stops.
    let log = server.stop().await;
    collector
        .wait_until(Duration::from_secs(10), |_, metrics| {
            metrics.iter().any(|m| m.name == "faas.invocations")
        })
        .await;
    let metrics = collector.metrics();
    let invocations: f64 = metrics
        .iter()
        .filter(|m| {
            m.name == "faas.invocations"
                && m.attributes.get("faas.name") == Some(&json!("wait-experience"))
                && m.attributes.get("ccfn.outcome") == Some(&json!("success"))
        })
        .map(|m| m.value)
        .sum();
    assert!((invocations - 4.0).abs() < f64::EPSILON, "{metrics:#?}");
    for name in [
        "faas.invoke_duration",
        "faas.coldstarts",
        "http.client.request.duration",
    ] {
        assert!(
            metrics.iter().any(|m| m.name == name),
            "{name}: {metrics:#?}"
        );
    }
    let durations = metrics
        .iter()
        .find(|m| m.name == "faas.invoke_duration")
        .unwrap();
    assert_eq!(durations.unit, "s");

    // No secret reached the collector: not the API key's secret, not a
    // parameter whose name is sensitive.
    for span in &spans {
        let text = format!("{span:?}");
        assert!(!text.contains(TOKEN_CANARY), "{text}");
    }
    for body in collector.requests().iter().map(|r| r.body().to_vec()) {
        for secret in [API_KEY_SECRET, TOKEN_CANARY] {
            assert!(
                !body.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "`{secret}` reached the collector"
            );
        }
    }
    let event = callback_span.events.first().unwrap();
    assert_eq!(
        event.attributes["event"]
            .as_str()
            .map(|text| serde_json::from_str::<Value>(text).unwrap()["PaymentToken"].clone()),
        Some(json!("[REDACTED]"))
    );
    log.assert_no_secret(TOKEN_CANARY);
    let exporting = log.runtime();
    assert!(
        exporting.contains(&format!(
            "exporting OpenTelemetry traces to {endpoint}/v1/traces and metrics to {endpoint}/v1/metrics"
        ).as_str()),
        "{exporting:?}"
    );
}

#[tokio::test]
async fn an_unreachable_collector_costs_one_record_a_minute() {
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let server = Server::start(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
        ("OTEL_BSP_SCHEDULE_DELAY", "10"),
        ("OTEL_METRIC_EXPORT_INTERVAL", "50"),
        ("OTEL_EXPORTER_OTLP_TIMEOUT", "200"),
    ])
    .await;
    for n in 0..6 {
        let (status, _) = post(&server, WAIT_URL, &voice(&format!("CA{n:032x}")), &[]).await;
        assert_eq!(status, 200, "an invocation does not wait for the export");
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    server
        .wait_for(r#""step":"telemetry""#, Duration::from_secs(10))
        .await;
    let log = server.stop().await;
    let records = log.all("telemetry");
    for signal in ["traces", "metrics"] {
        let of_signal: Vec<_> = records.iter().filter(|r| r["signal"] == signal).collect();
        assert!(of_signal.len() <= 1, "{signal}: {of_signal:#?}");
    }
    let traces = records
        .iter()
        .find(|r| r["signal"] == "traces")
        .expect("a record for the failed trace exports");
    assert_eq!(traces["level"], "WARN");
    assert!(traces["failed"].as_u64().unwrap() >= 1);
    assert_eq!(log.all("end").len(), 6);
}

/// Every URL ccfn writes (the start record's `domain`, the telemetry
/// endpoints it reports, an external call's `api_request`, `api_error`
/// and error text, the call's span and metric) is written without its
/// user information and without the values of its sensitive query
/// parameters, and stays recognisable; a host that is a value of the
/// invocation's secrets is scrubbed in `server.address` like anywhere.
#[tokio::test]
async fn urls_are_written_without_credentials_or_tokens() {
    const USER: &str = "canary-url-user-3c1a";
    const PASS: &str = "canary-url-pass-3c1a";
    const TOKEN: &str = "canary-url-token-3c1a";
    let collector = FakeCollector::start().await;
    let addr = collector.addr();
    let endpoint =
        |signal: &str| format!("http://{USER}:{PASS}@{addr}/v1/{signal}?token={TOKEN}&keep=1");
    let shown =
        |signal: &str| format!("http://[REDACTED]@{addr}/v1/{signal}?token=[REDACTED]&keep=1");
    // A port nothing listens on: the recording cannot be downloaded.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let public = format!("https://{USER}:{PASS}@cc.example.com/?token={TOKEN}&keep=1");
    let server = Server::start(&[
        ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", &endpoint("traces")),
        ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", &endpoint("metrics")),
        ("OTEL_BSP_SCHEDULE_DELAY", "50"),
        ("OTEL_METRIC_EXPORT_INTERVAL", "60000"),
        ("CCFN_PUBLIC_URL", &public),
        ("VOICEMAIL_TO", "team@example.com"),
        ("VOICEMAIL_FROM", "ivr@example.com"),
    ])
    .await;
    let recording = format!(
        "http://{USER}:{PASS}@localhost:{port}/2010-04-01/Accounts/ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/Recordings/RE1?token={TOKEN}&keep=1"
    );
    let encoded: String = recording
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    // `Password`: a value under a sensitive name that is also the URL's host.
    let body = format!(
        "CallSid={CALL_SID}&RecordingSid=RE11111111111111111111111111111111&RecordingUrl={encoded}&Password=localhost"
    );
    let path = format!("{}?From=%2B15551230000", example_contact_center::NOTICE_URL);
    let (status, id) = post(&server, &path, &body, &[]).await;
    assert_eq!(status, 200);
    collector
        .wait_until(Duration::from_secs(20), |spans, _| {
            spans.iter().any(|s| s.kind == "client")
        })
        .await;
    let log = server.stop().await;
    collector
        .wait_until(Duration::from_secs(10), |_, metrics| {
            metrics
                .iter()
                .any(|m| m.name == "http.client.request.duration")
        })
        .await;

    // The records: recognisable URLs, no canary.
    for canary in [USER, PASS, TOKEN] {
        log.assert_no_secret(canary);
    }
    let records = log.of(&id);
    let start = records.iter().find(|r| r["step"] == "start").unwrap();
    assert_eq!(
        start["domain"],
        "[REDACTED]@cc.example.com/?token=[REDACTED]&keep=1"
    );
    let request = records.iter().find(|r| r["step"] == "api_request").unwrap();
    assert_eq!(
        request["url"],
        format!("http://[REDACTED]@[REDACTED]:{port}/2010-04-01/Accounts/ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/Recordings/RE1?token=[REDACTED]&keep=1.mp3")
    );
    let failed = records.iter().find(|r| r["step"] == "api_error").unwrap();
    assert!(
        failed.to_string().contains("http://[REDACTED]@[REDACTED]:"),
        "{failed}"
    );
    assert_eq!(
        log.runtime()
            .iter()
            .find(|m| m.starts_with("exporting OpenTelemetry")),
        Some(
            &format!(
                "exporting OpenTelemetry traces to {} and metrics to {}",
                shown("traces"),
                shown("metrics")
            )
            .as_str()
        )
    );

    // The telemetry: the call's span and metric.
    let spans = collector.spans();
    let call = spans.iter().find(|s| s.kind == "client").unwrap();
    assert_eq!(call.attributes["server.address"], json!("[REDACTED]"));
    assert_eq!(
        call.attributes["url.full"], request["url"],
        "the span's URL is the record's"
    );
    let metrics = collector.metrics();
    let duration = metrics
        .iter()
        .find(|m| m.name == "http.client.request.duration")
        .unwrap();
    assert_eq!(duration.attributes["server.address"], json!("[REDACTED]"));
    for body in collector.requests().iter().map(|r| r.body().to_vec()) {
        for canary in [USER, PASS, TOKEN, "localhost"] {
            assert!(
                !body.windows(canary.len()).any(|w| w == canary.as_bytes()),
                "`{canary}` reached the collector"
            );
        }
    }
}

/// The semantic conventions' registry ccfn's telemetry is checked
/// against (see `ccfn-core/tests/semconv/README.md`).
fn registry() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../ccfn-core/tests/semconv/registry.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Whether `value` is of the registry's `kind` (`string`, `int`,
/// `double`, `boolean`, `string[]`...).
fn of_type(value: &Value, kind: &str) -> bool {
    match kind {
        "string" => value.is_string(),
        "int" => value.is_i64(),
        "double" => value.is_f64(),
        "boolean" => value.is_boolean(),
        array => array.strip_suffix("[]").is_some_and(|item| {
            value
                .as_array()
                .is_some_and(|items| items.iter().all(|v| of_type(v, item)))
        }),
    }
}

/// Every attribute of `attributes` outside ccfn's own namespace is in
/// the registry, with a value of its type (and, for an enumeration, one
/// of its members or `_OTHER`).
#[track_caller]
fn assert_registered(attributes: &ccfn_support::fake_collector::Attributes, what: &str) {
    let registry = registry();
    for (key, value) in attributes {
        if key.starts_with("ccfn.") {
            continue;
        }
        let entry = &registry["attributes"][key];
        let kind = entry["type"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: `{key}` is not in the registry"));
        assert!(
            of_type(value, kind),
            "{what}: `{key}` is {value}, not a {kind}"
        );
        if let Some(members) = entry["members"].as_array()
            && key != "error.type"
        {
            assert!(
                members.contains(value) || value == "_OTHER",
                "{what}: `{key}` = {value} is not one of {members:?}"
            );
        }
    }
}

/// Posts `params` to `path`, signed with `token` as the platform signs,
/// with `headers`; the status and the invocation id.
async fn signed(
    server: &Server,
    token: &str,
    path: &str,
    params: &[(&str, &str)],
    headers: &[(&str, &str)],
) -> (u16, String) {
    ccfn_core::http::install_crypto_provider();
    let url = server.url(path);
    let signature = ccfn_core::signature::compute_signature(token, &url, params);
    let mut request = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("x-twilio-signature", signature)
        .body(
            form_urlencoded::Serializer::new(String::new())
                .extend_pairs(params)
                .finish(),
        );
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let id = response.headers()["x-ccfn-invocation-id"]
        .to_str()
        .unwrap()
        .to_owned();
    (response.status().as_u16(), id)
}

/// Canaries planted wherever an invocation's telemetry takes its values
/// from reach the collector nowhere: not in any span, event, status or
/// metric data point, decoded or as sent. Values under sensitive names
/// that are also the `mode`, `FlowSid` and `ExecutionSid`; a recording
/// URL whose host (a sensitive value too), user information and query
/// token are canaries; the process's secrets (`AUTH_TOKEN`, an API key's
/// secret, an OTLP header's value) sent back in a parameter and in the
/// `User-Agent`; a forwarded host that is a sensitive value.
#[tokio::test]
async fn no_canary_reaches_the_collector() {
    const AUTH: &str = "canary-otel-auth-token-0c4e";
    const API_SECRET: &str = "canary-otel-api-secret-0c4e";
    const HEADER: &str = "canary-otel-header-value-0c4e";
    const MODE: &str = "canary-otel-mode-0c4e";
    const FLOW: &str = "canary-otel-flow-0c4e";
    const EXECUTION: &str = "canary-otel-execution-0c4e";
    const USER: &str = "canary-otel-url-user-0c4e";
    const PASS: &str = "canary-otel-url-pass-0c4e";
    const TOKEN: &str = "canary-otel-url-token-0c4e";
    // A loopback address nothing else uses: the recording's host.
    const HOST: &str = "127.0.0.77";
    let headers = format!("x-api-key={HEADER},x-team=contact-center");
    let (collector, server) = exporting(&[
        ("OTEL_EXPORTER_OTLP_HEADERS", &headers),
        ("AUTH_TOKEN", AUTH),
        ("ACCOUNT_SID", "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
        ("API_KEY_SID", API_KEY_SID),
        ("API_KEY_SECRET", API_SECRET),
        ("PLATFORM_WORKSPACE_SID", WORKSPACE),
        ("workflowSid", WORKFLOW),
        ("VOICEMAIL_TO", "team@example.com"),
        ("VOICEMAIL_FROM", "ivr@example.com"),
    ])
    .await;

    let process_secrets = format!("{AUTH} {HEADER}");
    let (status, menu) = signed(
        &server,
        AUTH,
        WAIT_URL,
        &[
            ("CallSid", CALL_SID),
            ("From", "+15551230000"),
            ("To", "+15559870000"),
            ("mode", MODE),
            ("Password", MODE),
            ("FlowSid", FLOW),
            ("api_key", FLOW),
            ("ExecutionSid", EXECUTION),
            ("SessionToken", EXECUTION),
            ("Note", &process_secrets),
        ],
        &[
            ("user-agent", &format!("agent/{API_SECRET}")),
            ("x-forwarded-host", &format!("{EXECUTION}:8443")),
        ],
    )
    .await;
    assert_eq!(status, 200);

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let recording = format!(
        "http://{USER}:{PASS}@{HOST}:{port}/2010-04-01/Accounts/ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/Recordings/RE1?token={TOKEN}&keep=1"
    );
    let (status, notice) = signed(
        &server,
        AUTH,
        example_contact_center::NOTICE_URL,
        &[
            ("CallSid", CALL_SID),
            ("From", "+15551230000"),
            ("RecordingSid", "RE11111111111111111111111111111111"),
            ("RecordingUrl", &recording),
            ("Password", HOST),
        ],
        &[],
    )
    .await;
    assert_eq!(status, 200);
    collector
        .wait_until(Duration::from_secs(20), |spans, _| {
            spans.iter().filter(|s| s.kind == "server").count() >= 2
                && spans.iter().any(|s| s.kind == "client")
        })
        .await;
    let log = server.stop().await;
    collector
        .wait_until(Duration::from_secs(10), |_, metrics| {
            [
                "http.server.request.duration",
                "http.client.request.duration",
            ]
            .iter()
            .all(|name| metrics.iter().any(|m| m.name == *name))
        })
        .await;

    let canaries = [
        AUTH, API_SECRET, HEADER, MODE, FLOW, EXECUTION, USER, PASS, TOKEN, HOST,
    ];
    // Everything the collector would store, and everything it was sent.
    let decoded = collector.decoded();
    assert!(decoded.len() >= 2, "{decoded:?}");
    for text in &decoded {
        for canary in canaries {
            assert!(
                !text.contains(canary),
                "`{canary}` reached the collector: {text}"
            );
        }
    }
    for body in collector.requests().iter().map(|r| r.body().to_vec()) {
        for canary in canaries {
            assert!(
                !body.windows(canary.len()).any(|w| w == canary.as_bytes()),
                "`{canary}` reached the collector"
            );
        }
    }
    // Every attribute of every span, event and data point, one by one.
    let spans = collector.spans();
    let metrics = collector.metrics();
    let values = exported_values(&spans, &metrics);
    let mut seen = 0;
    for value in values {
        seen += 1;
        for canary in canaries {
            assert!(!value.contains(canary), "`{canary}` in {value}");
        }
    }
    assert!(seen > 50, "only {seen} values were received");

    // Scrubbed where the values were, not left out.
    let menu_span = invocation(&spans, &menu);
    for key in [
        "ccfn.mode",
        "ccfn.flow_sid",
        "ccfn.execution_sid",
        "server.address",
    ] {
        assert_eq!(
            menu_span.attributes.get(key),
            Some(&json!("[REDACTED]")),
            "{key}: {menu_span:#?}"
        );
    }
    assert_eq!(
        menu_span.attributes["user_agent.original"],
        json!("agent/[REDACTED]")
    );
    assert_eq!(menu_span.attributes["server.port"], json!(8443));
    let notice_span = invocation(&spans, &notice);
    let call = spans
        .iter()
        .find(|s| s.kind == "client" && s.parent_span_id == notice_span.span_id)
        .unwrap_or_else(|| panic!("no call of the notice: {spans:#?}"));
    assert_eq!(call.attributes["server.address"], json!("[REDACTED]"));
    assert_eq!(
        call.attributes["url.full"],
        json!(format!(
            "http://[REDACTED]@[REDACTED]:{port}/2010-04-01/Accounts/ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/Recordings/RE1?token=[REDACTED]&keep=1.mp3"
        ))
    );
    let client = metrics
        .iter()
        .find(|m| m.name == "http.client.request.duration")
        .unwrap();
    assert_eq!(client.attributes["server.address"], json!("[REDACTED]"));
    for canary in canaries {
        log.assert_no_secret(canary);
    }
}

/// The invocation's span and `http.server.request.duration` follow
/// OpenTelemetry's HTTP server conventions, and every attribute, metric
/// name, unit and instrument kind ccfn exports is the registry's.
#[tokio::test]
async fn spans_and_metrics_follow_the_http_semantic_conventions() {
    let (collector, _router, server) = exporting_with_a_task_router(&[]).await;
    let port: u16 = server.addr.rsplit(':').next().unwrap().parse().unwrap();
    let path = format!("{WAIT_URL}?mode=callback");
    let (status, ok) = post(
        &server,
        &path,
        &voice(CALL_SID),
        &[("user-agent", "PlatformProxy/1.1")],
    )
    .await;
    assert_eq!(status, 200);
    // Without `To`: refused by validation, a 400.
    let (status, refused) = post(
        &server,
        WAIT_URL,
        &format!("CallSid={CALL_SID}&From=%2B15551230000"),
        &[],
    )
    .await;
    assert_eq!(status, 400);
    collector
        .wait_until(Duration::from_secs(20), |spans, _| {
            spans.iter().filter(|s| s.kind == "server").count() >= 2
                && spans.iter().any(|s| s.kind == "client")
        })
        .await;
    server.stop().await;
    collector
        .wait_until(Duration::from_secs(10), |_, metrics| {
            metrics
                .iter()
                .filter(|m| m.name == "http.server.request.duration")
                .count()
                >= 2
        })
        .await;
    let spans = collector.spans();
    let metrics = collector.metrics();

    // The server span, by attribute name.
    let span = invocation(&spans, &ok);
    for (key, value) in [
        ("http.request.method", json!("POST")),
        ("url.path", json!(WAIT_URL)),
        ("url.scheme", json!("http")),
        ("http.route", json!(WAIT_URL)),
        ("server.address", json!("127.0.0.1")),
        ("server.port", json!(port)),
        ("client.address", json!("127.0.0.1")),
        ("user_agent.original", json!("PlatformProxy/1.1")),
        ("network.protocol.version", json!("1.1")),
        ("http.response.status_code", json!(200)),
    ] {
        assert_eq!(span.attributes.get(key), Some(&value), "{key}: {span:#?}");
    }
    assert!(!span.attributes.contains_key("error.type"), "{span:#?}");
    let refused_span = invocation(&spans, &refused);
    assert_eq!(
        refused_span.attributes["http.response.status_code"],
        json!(400)
    );
    assert_eq!(refused_span.attributes["error.type"], json!("validation"));

    // Every span's attributes are the registry's, of its types.
    for span in &spans {
        assert_registered(
            &span.attributes,
            &format!("{} span {}", span.kind, span.name),
        );
    }

    // The server duration: a histogram in seconds, with the conventions'
    // buckets and attributes; `error.type` when the invocation failed.
    let registry = registry();
    let server_metric = &registry["metrics"]["http.server.request.duration"];
    let durations: Vec<_> = metrics
        .iter()
        .filter(|m| m.name == "http.server.request.duration")
        .collect();
    let allowed = server_metric["attributes"].as_object().unwrap();
    for point in &durations {
        for key in point.attributes.keys() {
            assert!(allowed.contains_key(key), "{key} on {point:#?}");
        }
        for (key, level) in allowed {
            if level == "required" {
                assert!(point.attributes.contains_key(key), "{key} on {point:#?}");
            }
        }
        assert_eq!(point.attributes["http.route"], json!(WAIT_URL));
        assert_eq!(point.attributes["url.scheme"], json!("http"));
        assert_eq!(point.attributes["network.protocol.version"], json!("1.1"));
    }
    let failed = durations
        .iter()
        .find(|m| m.attributes["http.response.status_code"] == json!(400))
        .unwrap_or_else(|| panic!("{durations:#?}"));
    assert_eq!(failed.attributes["error.type"], json!("validation"));
    let succeeded = durations
        .iter()
        .find(|m| m.attributes["http.response.status_code"] == json!(200))
        .unwrap_or_else(|| panic!("{durations:#?}"));
    assert!(!succeeded.attributes.contains_key("error.type"));

    // Every metric the registry names has its unit, instrument kind and
    // buckets; every attribute of every point is the registry's.
    let mut checked = Vec::new();
    for point in &metrics {
        assert_registered(&point.attributes, &point.name);
        let Some(expected) = registry["metrics"].get(&point.name) else {
            assert!(
                point.name.starts_with("ccfn."),
                "{} is not in the registry",
                point.name
            );
            continue;
        };
        assert_eq!(point.unit, expected["unit"], "{}", point.name);
        match expected["instrument"].as_str().unwrap() {
            "histogram" => assert_eq!(point.kind, "histogram", "{}", point.name),
            "counter" => assert!(point.kind == "sum" && point.monotonic, "{}", point.name),
            other => panic!("{}: a {other} is not checked", point.name),
        }
        if let Some(bounds) = expected["explicit_bucket_boundaries"].as_array() {
            let bounds: Vec<f64> = bounds.iter().map(|b| b.as_f64().unwrap()).collect();
            assert_eq!(point.bounds, bounds, "{}", point.name);
        }
        checked.push(point.name.as_str());
    }
    for name in [
        "http.server.request.duration",
        "http.client.request.duration",
        "faas.invocations",
        "faas.invoke_duration",
        "faas.coldstarts",
    ] {
        assert!(
            checked.contains(&name),
            "{name} was not exported: {checked:?}"
        );
    }
}

/// Sends `method` to `path` unsigned, with `body` (a form) and `headers`;
/// the status and the invocation id.
async fn unsigned(
    server: &Server,
    method: &str,
    path: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> (u16, String) {
    ccfn_core::http::install_crypto_provider();
    let mut request = reqwest::Client::new()
        .request(method.parse().unwrap(), server.url(path))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let id = response.headers()["x-ccfn-invocation-id"]
        .to_str()
        .unwrap()
        .to_owned();
    (response.status().as_u16(), id)
}

/// The auth token the servers refusing requests check signatures with:
/// sent back in a query parameter, a form value, a path and a
/// `User-Agent`, it reaches no export.
const REFUSED_AUTH: &str = "canary-otel-refused-auth-7e3a";

/// A request the runtime refuses before invoking a function has a server
/// span of its own, named and attributed as an invocation's, continuing
/// the caller's `traceparent` (else the call's trace), its
/// `request_rejected` record as an event, a 4xx leaving the status unset;
/// it is counted by status in `ccfn.requests.rejected` and in
/// `http.server.request.duration`. The auth token it carries reaches no
/// span, event or metric.
#[tokio::test]
async fn a_refused_request_has_a_server_span_and_is_counted() {
    const UNSIGNED_TRACE: &str = "5bf92f3577b34da6a3ce929d0e0e4737";
    const UNSIGNED_SPAN: &str = "10f067aa0ba902b8";
    const UNKNOWN_TRACE: &str = "6bf92f3577b34da6a3ce929d0e0e4738";
    const UNKNOWN_SPAN: &str = "20f067aa0ba902b9";
    let (collector, server) = exporting(&[
        ("AUTH_TOKEN", REFUSED_AUTH),
        ("ACCOUNT_SID", "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
    ])
    .await;
    let port: u16 = server.addr.rsplit(':').next().unwrap().parse().unwrap();
    let agent = format!("agent/{REFUSED_AUTH}");
    let body = format!("{}&Note={REFUSED_AUTH}", voice(CALL_SID));

    // Unsigned, to a protected function: 403, in the caller's trace.
    let path = format!("{WAIT_URL}?token={REFUSED_AUTH}");
    let traceparent = format!("00-{UNSIGNED_TRACE}-{UNSIGNED_SPAN}-01");
    let (status, unsigned_id) = unsigned(
        &server,
        "POST",
        &path,
        &body,
        &[("traceparent", &traceparent), ("user-agent", &agent)],
    )
    .await;
    assert_eq!(status, 403);
    // Signed with another token, no `traceparent`: the call's trace.
    let (status, forged_id) = signed(
        &server,
        "not-the-auth-token",
        WAIT_URL,
        &[("CallSid", CALL_SID), ("From", "+15551230000")],
        &[],
    )
    .await;
    assert_eq!(status, 403);
    // A path that names no function: 404.
    let unknown = format!("/features/none/{REFUSED_AUTH}?token={REFUSED_AUTH}");
    let traceparent = format!("00-{UNKNOWN_TRACE}-{UNKNOWN_SPAN}-01");
    let (status, unknown_id) = unsigned(
        &server,
        "POST",
        &unknown,
        &body,
        &[("traceparent", &traceparent), ("user-agent", &agent)],
    )
    .await;
    assert_eq!(status, 404);

    collector
        .wait_until(Duration::from_secs(20), |spans, _| {
            spans.iter().filter(|s| s.kind == "server").count() >= 3
        })
        .await;
    let log = server.stop().await;
    collector
        .wait_until(Duration::from_secs(10), |_, metrics| {
            metrics.iter().any(|m| m.name == "ccfn.requests.rejected")
        })
        .await;
    let spans = collector.spans();
    let metrics = collector.metrics();
    assert_eq!(
        spans.iter().filter(|s| s.kind == "server").count(),
        3,
        "one span per refused request: {spans:#?}"
    );

    // The 403s: named after the function whose route they matched.
    let unsigned_span = invocation(&spans, &unsigned_id);
    assert_eq!(unsigned_span.name, "wait-experience");
    assert_eq!(unsigned_span.trace_id, UNSIGNED_TRACE);
    assert_eq!(unsigned_span.parent_span_id, UNSIGNED_SPAN);
    for (key, value) in [
        ("faas.trigger", json!("http")),
        ("faas.name", json!("wait-experience")),
        ("faas.invocation_id", json!(unsigned_id)),
        ("http.request.method", json!("POST")),
        ("http.route", json!(WAIT_URL)),
        ("url.path", json!(WAIT_URL)),
        ("url.scheme", json!("http")),
        ("server.address", json!("127.0.0.1")),
        ("server.port", json!(port)),
        ("client.address", json!("127.0.0.1")),
        ("user_agent.original", json!("agent/[REDACTED]")),
        ("network.protocol.version", json!("1.1")),
        ("http.response.status_code", json!(403)),
        ("ccfn.call_sid", json!(CALL_SID)),
    ] {
        assert_eq!(
            unsigned_span.attributes.get(key),
            Some(&value),
            "{key}: {unsigned_span:#?}"
        );
    }
    // A 4xx on a server: no error, as the conventions say.
    assert!(!unsigned_span.attributes.contains_key("error.type"));
    assert_eq!(unsigned_span.status, "unset");
    assert_eq!(event_names(unsigned_span), ["request_rejected"]);
    let event = &unsigned_span.events[0].attributes;
    assert_eq!(event["level"], json!("WARN"));
    assert_eq!(event["status"], json!(403));
    assert_eq!(event["method"], json!("POST"));
    assert_eq!(event["path"], json!(WAIT_URL));
    assert!(
        event["message"]
            .as_str()
            .unwrap()
            .starts_with("request rejected: "),
        "{event:#?}"
    );
    let forged_span = invocation(&spans, &forged_id);
    assert_eq!(forged_span.trace_id, CALL_TRACE, "the call's trace");
    assert_eq!(forged_span.parent_span_id, "");
    assert_eq!(
        forged_span.attributes["http.response.status_code"],
        json!(403)
    );

    // The 404: no function, no route; named after its method.
    let unknown_span = invocation(&spans, &unknown_id);
    assert_eq!(unknown_span.name, "POST");
    assert_eq!(unknown_span.trace_id, UNKNOWN_TRACE);
    assert_eq!(unknown_span.parent_span_id, UNKNOWN_SPAN);
    assert_eq!(
        unknown_span.attributes["url.path"],
        json!("/features/none/[REDACTED]")
    );
    assert_eq!(
        unknown_span.attributes["http.response.status_code"],
        json!(404)
    );
    for absent in ["faas.name", "http.route", "error.type", "ccfn.call_sid"] {
        assert!(
            !unknown_span.attributes.contains_key(absent),
            "{absent}: {unknown_span:#?}"
        );
    }
    assert_eq!(unknown_span.status, "unset");
    assert_eq!(event_names(unknown_span), ["request_rejected"]);
    assert_eq!(unknown_span.events[0].attributes["status"], json!(404));

    // Each span carries the invocation id its answer and its record do.
    for id in [&unsigned_id, &forged_id, &unknown_id] {
        let records = log.of(id);
        assert_eq!(records.len(), 1, "{records:#?}");
        assert_eq!(records[0]["step"], json!("request_rejected"));
    }

    // Counted by status, and by function when one's route matched.
    let rejected = |status: i64, function: Option<&str>| -> f64 {
        metrics
            .iter()
            .filter(|m| {
                m.name == "ccfn.requests.rejected"
                    && m.attributes["http.response.status_code"] == json!(status)
                    && m.attributes.get("faas.name") == function.map(|f| json!(f)).as_ref()
            })
            .map(|m| m.value)
            .sum()
    };
    assert!(
        (rejected(403, Some("wait-experience")) - 2.0).abs() < f64::EPSILON,
        "{metrics:#?}"
    );
    assert!(
        (rejected(404, None) - 1.0).abs() < f64::EPSILON,
        "{metrics:#?}"
    );
    let counter = metrics
        .iter()
        .find(|m| m.name == "ccfn.requests.rejected")
        .unwrap();
    assert_eq!(counter.unit, "{request}");
    assert!(counter.kind == "sum" && counter.monotonic, "{counter:#?}");
    // And in the conventions' server duration, as any request is.
    let durations = |status: i64| -> Vec<_> {
        metrics
            .iter()
            .filter(|m| {
                m.name == "http.server.request.duration"
                    && m.attributes["http.response.status_code"] == json!(status)
            })
            .collect()
    };
    let forbidden = durations(403);
    assert_eq!(forbidden.iter().map(|m| m.count).sum::<u64>(), 2);
    assert_eq!(forbidden[0].attributes["http.route"], json!(WAIT_URL));
    let not_found = durations(404);
    assert_eq!(not_found.iter().map(|m| m.count).sum::<u64>(), 1);
    assert!(!not_found[0].attributes.contains_key("http.route"));
    assert!(metrics.iter().all(|m| m.name != "faas.invocations"));

    // Every attribute the conventions', and the auth token nowhere.
    for span in &spans {
        assert_registered(&span.attributes, &format!("span {}", span.name));
    }
    for point in &metrics {
        assert_registered(&point.attributes, &point.name);
    }
    for text in collector.decoded() {
        assert!(!text.contains(REFUSED_AUTH), "{text}");
    }
    for body in collector.requests().iter().map(|r| r.body().to_vec()) {
        assert!(
            !body
                .windows(REFUSED_AUTH.len())
                .any(|w| w == REFUSED_AUTH.as_bytes()),
            "the auth token reached the collector"
        );
    }
    let values = exported_values(&spans, &metrics);
    for value in values {
        assert!(!value.contains(REFUSED_AUTH), "{value}");
    }
    log.assert_no_secret(REFUSED_AUTH);
}

/// With export off (`OTEL_SDK_DISABLED`, an endpoint set), a refused
/// request is refused and logged as ever, and nothing is exported.
/// The answer to `request`, sent whole on a connection of its own, and
/// what the connection gives within `wait`: its status and invocation id.
async fn raw(addr: &str, request: &[u8], wait: Duration) -> (u16, String) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + wait;
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        match tokio::time::timeout_at(deadline, stream.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => answer.extend_from_slice(&chunk[..n]),
            _ => break,
        }
    }
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no answer: {answer:?}"));
    let id = answer
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("x-ccfn-invocation-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no invocation id: {answer:?}"));
    (status, id)
}

/// Every kind of refusal has its server span, as the 403 and the 404
/// above do: a method not allowed (405), a body over the limit (413), a
/// media type not taken (415), a `Host` that is no host name (400) and
/// a body too slow (408); each with its status, its `request_rejected`
/// event, and no error (a 4xx on a server).
#[tokio::test]
async fn every_kind_of_refusal_has_its_server_span() {
    let (collector, server) = exporting(&[
        ("CCFN_BODY_LIMIT_BYTES", "256"),
        ("CCFN_BODY_TIMEOUT_MS", "300"),
    ])
    .await;
    let addr = server.addr.clone();
    let wait = Duration::from_secs(5);
    let form = "application/x-www-form-urlencoded";
    let request = |method: &str, host: &str, content_type: &str, body: &str| {
        format!(
            "{method} {WAIT_URL} HTTP/1.1\r\nhost: {host}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let body = voice(CALL_SID);
    let long = format!("{body}&Pad={}", "x".repeat(400));
    let mut refused = Vec::new();
    for (expected, request) in [
        (405, request("PUT", &addr, form, &body)),
        (413, request("POST", &addr, form, &long)),
        (415, request("POST", &addr, "text/plain", &body)),
        (400, request("POST", "not a host!", form, &body)),
    ] {
        let (status, id) = raw(&addr, request.as_bytes(), wait).await;
        assert_eq!(status, expected, "{request}");
        refused.push((status, id));
    }
    // A body that stops coming: 408 once the body's time is over.
    let slow = format!(
        "POST {WAIT_URL} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: {form}\r\ncontent-length: 200\r\n\r\nCallSid=CA"
    );
    let (status, id) = raw(&addr, slow.as_bytes(), wait).await;
    assert_eq!(status, 408);
    refused.push((status, id));

    collector
        .wait_until(Duration::from_secs(20), |spans, _| {
            spans.iter().filter(|s| s.kind == "server").count() >= refused.len()
        })
        .await;
    let log = server.stop().await;
    let spans = collector.spans();
    for (status, id) in &refused {
        let span = invocation(&spans, id);
        assert_eq!(span.kind, "server");
        assert_eq!(
            span.attributes["http.response.status_code"],
            json!(status),
            "{span:#?}"
        );
        assert_eq!(span.status, "unset", "{span:#?}");
        assert!(!span.attributes.contains_key("error.type"), "{span:#?}");
        assert_eq!(event_names(span), ["request_rejected"]);
        assert_eq!(span.events[0].attributes["status"], json!(status));
        // The record the log has is the event the span has.
        let records = log.of(id);
        assert_eq!(records.len(), 1, "{records:#?}");
        assert_eq!(
            span.events[0].attributes["message"], records[0]["message"],
            "{span:#?}"
        );
    }
}

#[tokio::test]
async fn nothing_is_exported_for_a_refused_request_when_export_is_off() {
    let (collector, server) = exporting(&[
        ("OTEL_SDK_DISABLED", "true"),
        ("AUTH_TOKEN", REFUSED_AUTH),
        ("ACCOUNT_SID", "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
    ])
    .await;
    let traceparent = format!("00-{CALLER_TRACE}-{CALLER_SPAN}-01");
    let headers = [("traceparent", traceparent.as_str())];
    let (status, _) = unsigned(&server, "POST", WAIT_URL, &voice(CALL_SID), &headers).await;
    assert_eq!(status, 403);
    let (status, _) = unsigned(&server, "GET", "/features/none/here", "", &headers).await;
    assert_eq!(status, 404);
    let log = server.stop().await;
    assert_eq!(log.all("request_rejected").len(), 2);
    assert!(
        collector.requests().is_empty(),
        "{:#?}",
        collector.decoded()
    );
}

/// A 5xx refusal (the server shutting down past its grace, an invocation
/// still waiting on the task router) is an error: its span has
/// `error.type` and an error status with the rejection's message, its
/// event is at `ERROR`, and it is counted with its status.
#[tokio::test]
async fn a_refusal_while_shutting_down_is_an_error_span() {
    let (collector, router, mut server) =
        exporting_with_a_task_router(&[("CCFN_SHUTDOWN_GRACE_MS", "300")]).await;
    router.delay(Duration::from_secs(5));
    ccfn_core::http::install_crypto_provider();
    let request = reqwest::Client::new()
        .post(server.url(&format!("{WAIT_URL}?mode=callback")))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(voice(CALL_SID))
        .send();
    let answer = tokio::spawn(request);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while router.requests().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "no call reached the task router"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.terminate();
    let answer = answer.await.unwrap().unwrap();
    assert_eq!(answer.status().as_u16(), 503);
    let id = answer.headers()["x-ccfn-invocation-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let status = server.exit(Duration::from_secs(10)).await;
    assert!(status.success(), "{status}");
    collector
        .wait_until(Duration::from_secs(10), |spans, metrics| {
            spans
                .iter()
                .any(|s| s.attributes.get("faas.invocation_id") == Some(&json!(id)))
                && metrics.iter().any(|m| m.name == "ccfn.requests.rejected")
        })
        .await;
    let spans = collector.spans();
    let span = invocation(&spans, &id);
    assert_eq!(span.name, "wait-experience");
    assert_eq!(span.attributes["faas.name"], json!("wait-experience"));
    assert_eq!(span.attributes["http.route"], json!(WAIT_URL));
    assert_eq!(span.attributes["http.response.status_code"], json!(503));
    assert_eq!(span.attributes["error.type"], json!("503"));
    assert_eq!(span.status, "error");
    assert_eq!(span.status_message, "the server is shutting down");
    // No `traceparent`, and a shutdown's refusal names no call: a root.
    assert_eq!(span.parent_span_id, "");
    assert_eq!(event_names(span), ["request_rejected"]);
    assert_eq!(span.events[0].attributes["level"], json!("ERROR"));
    let metrics = collector.metrics();
    let counted: f64 = metrics
        .iter()
        .filter(|m| {
            m.name == "ccfn.requests.rejected"
                && m.attributes["http.response.status_code"] == json!(503)
                && m.attributes.get("faas.name") == Some(&json!("wait-experience"))
        })
        .map(|m| m.value)
        .sum();
    assert!((counted - 1.0).abs() < f64::EPSILON, "{metrics:#?}");
    let duration = metrics
        .iter()
        .find(|m| {
            m.name == "http.server.request.duration"
                && m.attributes["http.response.status_code"] == json!(503)
        })
        .unwrap_or_else(|| panic!("{metrics:#?}"));
    assert_eq!(duration.attributes["error.type"], json!("503"));
}

/// Each signal is sent with its own options when the specification's
/// per-signal variables set them, else with the general ones: here traces
/// compressed with gzip and carrying their own key, metrics uncompressed
/// with the general key. The collector reads both (it decompresses as an
/// OTLP/HTTP server must), and neither key reaches the server's lines.
#[tokio::test]
async fn each_signal_is_sent_with_its_own_headers_and_compression() {
    const GENERAL: &str = "canary-otel-general-key-3a1f";
    const TRACES: &str = "canary-otel-traces-key-3a1f";
    let general = format!("x-api-key={GENERAL}");
    let traces = format!("x-api-key={TRACES}");
    let (collector, server) = exporting(&[
        ("OTEL_EXPORTER_OTLP_HEADERS", &general),
        ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", &traces),
        ("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"),
        ("OTEL_EXPORTER_OTLP_METRICS_COMPRESSION", "none"),
    ])
    .await;
    let (status, id) = post(&server, WAIT_URL, &voice(CALL_SID), &[]).await;
    assert_eq!(status, 200);
    collector
        .wait_until(Duration::from_secs(20), |spans, _| {
            spans.iter().any(|s| s.kind == "server")
        })
        .await;
    let log = server.stop().await;
    collector
        .wait_until(Duration::from_secs(10), |_, metrics| !metrics.is_empty())
        .await;

    let span = invocation(&collector.spans(), &id).clone();
    assert!(event_names(&span).contains(&"end"), "{span:#?}");
    let requests = collector.requests();
    let sent_to = |path: &str| {
        let sent: Vec<_> = requests.iter().filter(|r| r.path() == path).collect();
        assert!(!sent.is_empty(), "nothing sent to {path}: {requests:?}");
        sent
    };
    for request in sent_to("/v1/traces") {
        assert_eq!(request.header("content-encoding"), Some("gzip"));
        assert_eq!(request.header("x-api-key"), Some(TRACES));
    }
    for request in sent_to("/v1/metrics") {
        assert_eq!(request.header("content-encoding"), None);
        assert_eq!(request.header("x-api-key"), Some(GENERAL));
    }
    log.assert_no_secret(GENERAL);
    log.assert_no_secret(TRACES);
}

/// Metrics are exported with the temporality asked for: cumulative by
/// default, as the OTLP exporter's specification has it, delta when
/// `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE` says so.
#[tokio::test]
async fn metrics_have_the_temporality_asked_for() {
    for (preference, expected) in [(None, "cumulative"), (Some("delta"), "delta")] {
        let extra: Vec<(&str, &str)> = preference
            .map(|p| ("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", p))
            .into_iter()
            .collect();
        let (collector, server) = exporting(&extra).await;
        let (status, _) = post(&server, WAIT_URL, &voice(CALL_SID), &[]).await;
        assert_eq!(status, 200);
        server.stop().await;
        collector
            .wait_until(Duration::from_secs(10), |_, metrics| {
                metrics.iter().any(|m| m.name == "faas.invocations")
            })
            .await;
        let metrics = collector.metrics();
        for name in ["faas.invocations", "faas.invoke_duration"] {
            let point = metrics.iter().find(|m| m.name == name).unwrap();
            assert_eq!(point.temporality, expected, "{name}: {point:?}");
        }
    }
}
