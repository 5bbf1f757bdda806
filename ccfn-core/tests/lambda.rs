//! The runtime on AWS Lambda: a real function-URL event goes through the
//! `lambda_http` adapter and the router, and comes back as the response
//! API Gateway returns, with the contract's records written.
#![cfg(feature = "lambda")]

mod common;

use ccfn_core::prelude::*;
use ccfn_core::record::{init_logging_with, parse_filter, LogFormat};
use ccfn_core::runtime::lambda_http::request::LambdaRequest;
use ccfn_core::runtime::lambda_http::{Adapter, Context as LambdaContext, LambdaEvent, Service};
use ccfn_core::runtime::{Feature, Runtime, RuntimeConfig};
use common::Lines;
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
    let lines = Lines::default();
    let filter = parse_filter("info").unwrap();
    init_logging_with(LogFormat::Json, filter, lines.clone()).unwrap();

    let fixture = include_str!("fixtures/function-url-wait-experience.json");
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
}
