//! The runtime on AWS Lambda: a real function-URL event goes through the
//! `lambda_http` adapter and the router, and comes back as the response
//! API Gateway returns, with the contract's records written.

use crate::common::logs;
use ccfn_core::prelude::*;
use ccfn_core::runtime::lambda_http::request::LambdaRequest;
use ccfn_core::runtime::lambda_http::{Adapter, Context as LambdaContext, LambdaEvent, Service};
use ccfn_core::runtime::{Feature, Mode, Runtime, RuntimeConfig};
use serde_json::Value;

/// Records a voicemail.
///
/// # Trigger
/// Studio "Run Function" widget.
/// # Optional parameters
/// mode, FlowSid
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To], name = "wait-experience")]
async fn wait(_context: Context, event: Event, callback: Callback) -> Completion {
    let mut twiml = VoiceResponse::new();
    twiml.say(format!(
        "mode {} from flow {}",
        event.mode(),
        event.flow_sid().unwrap_or("none")
    ));
    callback.success(twiml)
}

#[tokio::test]
async fn function_url_event_round_trip() {
    let lines = logs();

    let fixture = include_str!("../fixtures/function-url-wait-experience.json");
    let payload: LambdaRequest = serde_json::from_str(fixture).expect("a function-URL event");
    let router = Runtime::new(Context::builder().build(), RuntimeConfig::default())
        .feature(
            Feature::new("callback-and-voicemail-with-email")
                .public_function("studio/wait-experience", wait),
        )
        .router()
        .unwrap();
    let mut adapter = Adapter::from(router);
    std::future::poll_fn(|cx| adapter.poll_ready(cx))
        .await
        .unwrap();
    let response = adapter
        .call(LambdaEvent::new(payload, LambdaContext::default()))
        .await
        .unwrap();
    let response = serde_json::to_value(&response).unwrap();

    assert_eq!(response["statusCode"], 200);
    assert_eq!(response["headers"]["content-type"], "text/xml");
    assert_eq!(
        response["body"],
        r#"<?xml version="1.0" encoding="UTF-8"?><Response><Say>mode voicemail from flow FW123</Say></Response>"#
    );
    let id = response["headers"]["x-ccfn-invocation-id"]
        .as_str()
        .unwrap()
        .to_owned();

    let written = lines.contents();
    let records: Vec<Value> = written
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .filter(|record: &Value| record["invocation_id"] == id.as_str())
        // The process logs at `trace` (see `common::logs`); the steps
        // written at the default `info` are these.
        .filter(|record: &Value| !matches!(record["level"].as_str(), Some("DEBUG" | "TRACE")))
        .collect();
    let steps: Vec<&str> = records
        .iter()
        .map(|r| r["step"].as_str().unwrap())
        .collect();
    assert_eq!(
        steps,
        [
            "start",
            "validation",
            "validation",
            "processing",
            "caller",
            "flow",
            "voice_response",
            "voice_response",
            "taskrouter_config",
            "metrics",
            "success",
            "end"
        ]
    );
    assert_eq!(
        records[0]["event"]["From"], "+15551230000",
        "base64 body decoded, %2B once"
    );
    assert_eq!(
        records[0]["event"]["FlowSid"], "FW123",
        "query string merged"
    );
    assert_eq!(records[0]["call_sid"], "CA123");
    // The router alone, outside `serve_lambda`, knows no Lambda request.
    for record in &records {
        assert!(record.get("function_request_id").is_none(), "{record}");
        assert!(record.get("cold_start").is_none(), "{record}");
    }
}

/// The start-up errors `docs/deployment.md` shows for its Lambda `main`
/// (which returns `serve_lambda`'s error) are what `serve_lambda` returns,
/// as Rust prints an error `main` returns: `Error: ` and its `Debug`.
#[tokio::test]
async fn the_start_up_errors_the_deployment_guide_shows_are_serve_lambda_s() {
    for name in [
        "AWS_LAMBDA_RUNTIME_API",
        "AWS_LAMBDA_FUNCTION_NAME",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
        "AWS_LAMBDA_FUNCTION_VERSION",
    ] {
        assert!(
            std::env::var_os(name).is_none(),
            "run this test outside Lambda: {name} is set"
        );
    }
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/deployment.md"
    ))
    .unwrap();
    let section = page
        .split("\n### The binary\n")
        .nth(1)
        .and_then(|rest| rest.split("\n### ").next())
        .expect("the Lambda binary's section");
    let shown: Vec<&str> = section
        .split("```text\n")
        .skip(1)
        .filter_map(|block| block.split("\n```").next())
        .filter(|block| block.starts_with("Error: "))
        .collect();

    // A start-up check fails: production mode, a protected function, no
    // auth token.
    let mut production = RuntimeConfig::default();
    production.mode = Mode::Production;
    let unchecked = Runtime::new(Context::builder().build(), production)
        .feature(
            Feature::new("callback-and-voicemail-with-email")
                .function("studio/wait-experience", wait),
        )
        .serve_lambda()
        .await
        .unwrap_err();
    // The checks pass, outside Lambda.
    let outside = Runtime::new(Context::builder().build(), RuntimeConfig::default())
        .feature(
            Feature::new("callback-and-voicemail-with-email")
                .public_function("studio/wait-experience", wait),
        )
        .serve_lambda()
        .await
        .unwrap_err();
    assert_eq!(outside.kind(), ccfn_core::ErrorKind::Configuration);
    let printed = |error: &ccfn_core::Error| format!("Error: {error:?}");
    assert_eq!(shown, [printed(&unchecked), printed(&outside)]);
}
