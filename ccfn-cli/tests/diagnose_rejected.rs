//! Kept as a test binary of its own, not a module of `tests/it`: it
//! installs the process-wide log subscriber (`init_logging_with`), which
//! can be set once per process and would capture every other test's lines.
//! It shares `tests/it/common.rs` with them.
//!
//! `ccfn diagnose` when requests reach the runtime but never the function:
//! the example runtime on loopback, with an auth token, rejecting a forged
//! signature; its log read back from the process's JSON log.

#[path = "it/common.rs"]
mod common;

use std::time::Duration;

use ccfn_core::record::{init_logging_with, parse_filter, LogFormat};
use ccfn_core::runtime::{Runtime, RuntimeConfig};
use ccfn_testkit::{FakeContext, LogBuffer};
use common::{ccfn, temp_dir, text, write};
use example_contact_center::WAIT_URL;
use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

#[tokio::test]
async fn a_rejected_signature_is_why_no_request_reached_the_function() {
    let lines = LogBuffer::default();
    init_logging_with(
        LogFormat::Json,
        parse_filter("info,ccfn=trace").unwrap(),
        lines.clone(),
    )
    .unwrap();
    let context = FakeContext::new()
        .value("AUTH_TOKEN", "canary-cli-auth-token-61f0a2")
        .value("workflowSid", common::WORKFLOW)
        .value("VOICEMAIL_TO", "oncall@example.com")
        .value("VOICEMAIL_FROM", "voicemail@mg.example.com")
        .build();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = RuntimeConfig::default();
    config.shutdown_grace = Duration::from_secs(5);
    let runtime = example_contact_center::runtime(Runtime::new(context, config));
    runtime.check().expect("the runtime starts");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(runtime.serve_with(listener, async {
        let _ = stopped.await;
    }));

    // A forged request about a call, and one whose CallSid is no SID.
    for call_sid in [CALL, "CA%1B%5B2J-not-a-sid"] {
        let body = format!("CallSid={call_sid}&From=%2B15551230000&To=%2B15559870000");
        let request = format!(
            "POST {WAIT_URL} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
             X-Twilio-Signature: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let mut stream = TcpStream::connect(addr).await.unwrap();
        if let Err(err) = stream.write_all(request.as_bytes()).await {
            panic!("{err}: {}", lines.contents());
        }
        // The runtime answers before the body it will not read, and may
        // reset the connection after: keep what arrived.
        let mut answer = Vec::new();
        let mut chunk = [0u8; 4096];
        while let Ok(n @ 1..) = stream.read(&mut chunk).await {
            answer.extend_from_slice(&chunk[..n]);
        }
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    }
    let _ = stop.send(());
    served.await.unwrap().unwrap();

    let dir = temp_dir("rejected");
    let log = write(&dir, "app.log", &lines.contents());
    let ran = ccfn(
        &[
            "diagnose",
            "--json",
            "--function",
            "wait-experience",
            log.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(ran.code, 1, "{ran:?}");
    let verdict: Value = serde_json::from_str(ran.stdout.trim()).unwrap();
    let first = &verdict["questions"][0];
    assert_eq!(first["answer"], "no");
    assert_eq!(first["evidence"][0]["step"], "request_rejected");
    let said: Vec<&str> = first["specifically"]
        .as_array()
        .unwrap()
        .iter()
        .map(text)
        .collect();
    assert_eq!(
        said[0],
        "No invocation started for function wait-experience in the records read."
    );
    assert!(
        said[1].starts_with("Requests reached the runtime but were answered 403 before the function ran: X-Twilio-Signature does not match the request"),
        "{said:?}"
    );
    assert!(!ran.stdout.contains("canary-cli-auth-token"));

    // The rejection names the call its request was about, when the
    // CallSid is a call SID, and nothing else a caller sent.
    let rejected: Vec<Value> = lines
        .contents()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|r| r["step"] == "request_rejected")
        .collect();
    assert_eq!(rejected.len(), 2, "{}", lines.contents());
    assert_eq!(rejected[0]["call_sid"], CALL);
    assert!(rejected[1].get("call_sid").is_none(), "{}", rejected[1]);

    // So `--call` sees why the call's requests never reached the function.
    let ran = ccfn(
        &["diagnose", "--json", "--call", CALL, log.to_str().unwrap()],
        None,
    );
    assert_eq!(ran.code, 1, "{ran:?}");
    let verdict: Value = serde_json::from_str(ran.stdout.trim()).unwrap();
    let first = &verdict["questions"][0];
    assert_eq!(first["answer"], "no");
    assert_eq!(first["evidence"].as_array().unwrap().len(), 1, "{first}");
    assert_eq!(first["evidence"][0]["step"], "request_rejected");
    assert_eq!(first["more_evidence"], 0);
    assert!(
        text(&first["specifically"][1]).starts_with(
            "Requests reached the runtime but were answered 403 before the function ran"
        ),
        "{first}"
    );
    // Another call's diagnosis does not see them.
    let other = "CA00000000000000000000000000000099";
    let ran = ccfn(
        &["diagnose", "--json", "--call", other, log.to_str().unwrap()],
        None,
    );
    let verdict: Value = serde_json::from_str(ran.stdout.trim()).unwrap();
    assert_eq!(verdict["questions"][0]["evidence"], serde_json::json!([]));
    std::fs::remove_dir_all(&dir).unwrap();
}

const CALL: &str = "CA0123456789abcdef0123456789abcdef";
