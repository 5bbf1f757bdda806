//! The email provider client and the outbox, through `#[contact_fn]`
//! functions, against the fake provider over real HTTP on loopback: the
//! records of a send, what reaches the provider, every failure the spec
//! names (wrong key, unverified domain, attachment size), transport
//! failures, slow responses, and no API key in any line, URL or error.

use std::path::PathBuf;
use std::time::Duration;

use ccfn_core::email::{
    Attachment, EmailClient, EmailMessage, EmailProviderConfig, EmailSender, OUTBOX_QUEUED,
};
use ccfn_core::http::HttpConfig;
use ccfn_core::prelude::*;
use ccfn_core::{ErrorKind, Reply};
use ccfn_testkit::fake_email::FakeEmailProvider;
use ccfn_testkit::FakeResponse;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};
use serde_json::{json, Value};

const KEY: &str = "key-canary-3b9f0c7d51e2a846";
const DOMAIN: &str = "mg.example.com";

/// The voicemail notice the functions send: two recipients, text and HTML,
/// and `attachments` (event parameter, default 1) attachments of
/// `attachment_bytes` bytes each (default 2048).
fn notice(event: &Event) -> EmailMessage {
    let count: usize = event.get("attachments").map_or(1, |n| n.parse().unwrap());
    let size: usize = event
        .get("attachment_bytes")
        .map_or(2048, |n| n.parse().unwrap());
    let files = [
        ("voicemail.wav", "audio/wav"),
        ("transcript.txt", "text/plain"),
    ];
    let mut message = EmailMessage::new("Voicemail <voicemail@mg.example.com>")
        .to("oncall@example.com")
        .to("supervisor@example.com")
        .subject(format!(
            "New voicemail from {}",
            event.from().unwrap_or("unknown")
        ))
        .text("A caller left a voicemail; the recording is attached.")
        .html("<p>A caller left a voicemail; the recording is attached.</p>");
    for (filename, content_type) in files.iter().cycle().take(count) {
        message = message.attach(Attachment::new(*filename, *content_type, vec![b'x'; size]));
    }
    message
}

/// Emails a voicemail notice through the sender the context configures.
///
/// # Trigger
/// Studio widget after a voicemail is recorded.
/// # Optional parameters
/// attachments, attachment_bytes
/// # Dependencies
/// Email provider (or the local outbox with no API key).
/// # Critical logging
/// Email result.
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To], kind = email)]
async fn voicemail_email(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let sender = EmailSender::from_context(&context)?;
    let sent = sender.send(&notice(&event)).await?;
    Ok(callback.success(sent))
}

/// Emails a voicemail notice through an `EmailClient` built by hand, with
/// the timeout and slow-response threshold of the event (`timeout_ms`,
/// `slow_ms`).
///
/// # Trigger
/// Test.
/// # Optional parameters
/// attachments, attachment_bytes, timeout_ms, slow_ms
/// # Dependencies
/// Email provider.
/// # Critical logging
/// Email result.
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To], kind = email)]
async fn direct_email(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let ms = |name: &str, default: u64| {
        Duration::from_millis(event.get(name).map_or(default, |v| v.parse().unwrap()))
    };
    let mut http = HttpConfig::default();
    http.timeout = ms("timeout_ms", 10_000);
    http.slow_response = ms("slow_ms", 5_000);
    let key = context
        .secret("EMAILPROVIDER_API_KEY")
        .cloned()
        .ok_or_else(|| Error::msg("no key"))?;
    let config = EmailProviderConfig::new(context.email_domain().unwrap_or_default(), key)
        .base_url(context.get("EMAILPROVIDER_BASE_URL").unwrap_or_default())
        .http(http);
    let sent = EmailClient::new(config)?.send(&notice(&event)).await?;
    Ok(callback.success(sent))
}

fn provider_context(fake: &FakeEmailProvider) -> FakeContext {
    FakeContext::new()
        .value("EMAILPROVIDER_API_KEY", KEY)
        .value("EMAILPROVIDER_BASE_URL", fake.url())
}

fn text<'a>(record: &'a serde_json::Map<String, Value>, field: &str) -> &'a str {
    record
        .get(field)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no text field `{field}` in {record:?}"))
}

/// The steps between `caller` and the closing `metrics`/`error`.
fn business_steps(run: &Run) -> Vec<&str> {
    let steps = run.steps();
    let from = steps.iter().position(|s| *s == "caller").unwrap() + 1;
    let to = steps.iter().rposition(|s| *s == "metrics").unwrap().min(
        steps
            .iter()
            .position(|s| *s == "error")
            .unwrap_or(usize::MAX),
    );
    steps[from..to].to_vec()
}

/// The checks of every failed send: the contract holds, the error is of
/// `kind` and is the message of an `email_error` record, no `email_result`.
fn assert_email_failure(run: &Run, kind: ErrorKind) -> String {
    run.assert_contract();
    run.assert_no_leak(&[KEY]);
    let error = run.error().expect("the send should fail");
    assert_eq!(error.kind(), kind, "{error:?}");
    assert!(!error.message().contains(KEY));
    let logged = run.record("email_error").expect("an email_error record");
    assert_eq!(text(logged, "level"), "ERROR");
    assert_eq!(text(logged, "message"), error.message());
    assert_eq!(text(logged, "error"), error.message());
    assert!(run.record("email_result").is_none());
    error.message().to_owned()
}

#[tokio::test]
async fn success_logs_request_attachment_call_and_result() {
    let fake = FakeEmailProvider::start().await;
    fake.expect(1);
    let run = invoke(voicemail_email, provider_context(&fake), FakeEvent::voice()).await;
    run.assert_contract();
    assert_eq!(
        run.steps(),
        [
            "start",
            "validation",
            "validation",
            "processing",
            "caller",
            "email_request",
            "attachment",
            "api_request",
            "auth",
            "api_response",
            "email_result",
            "metrics",
            "success",
            "end"
        ]
    );
    let url = format!("{}/{DOMAIN}/messages", fake.url());
    let request = run.record("email_request").unwrap();
    assert_eq!(text(request, "url"), url);
    assert_eq!(text(request, "domain"), DOMAIN);
    assert_eq!(
        request["recipients"],
        json!(["oncall@example.com", "supervisor@example.com"])
    );
    assert_eq!(text(request, "subject"), "New voicemail from +15551230000");
    let attachment = run.record("attachment").unwrap();
    assert_eq!(text(attachment, "filename"), "voicemail.wav");
    assert_eq!(attachment["size"], 2048);
    assert_eq!(text(attachment, "content_type"), "audio/wav");
    let api = run.record("api_request").unwrap();
    assert_eq!(text(api, "method"), "POST");
    assert_eq!(text(api, "url"), url);
    assert_eq!(api["headers"]["authorization"], "[REDACTED]");
    assert_eq!(api["headers"]["content-type"], "multipart/form-data");
    let auth = run.record("auth").unwrap();
    assert_eq!(auth["authenticated"], true);
    assert_eq!(auth["token_type"], "basic");
    let response = run.record("api_response").unwrap();
    assert_eq!(response["status"], 200);
    assert_eq!(response["ok"], true);
    let result = run.record("email_result").unwrap();
    assert_eq!(text(result, "id"), "<fake.1@mg.example.com>");
    assert_eq!(text(result, "message"), "Queued. Thank you.");
    assert_eq!(result["recipient_count"], 2);
    // One `message` key per line: the record's message is the provider's.
    let result_line = run
        .lines()
        .iter()
        .find(|l| l.contains("\"step\":\"email_result\""))
        .unwrap();
    assert_eq!(
        result_line.matches("\"message\":").count(),
        1,
        "{result_line}"
    );
    match run.reply() {
        Some(Reply::Json(value)) => assert_eq!(
            *value,
            json!({"id": "<fake.1@mg.example.com>", "message": "Queued. Thank you.", "recipient_count": 2})
        ),
        other => panic!("expected a JSON reply, got {other:?}"),
    }

    assert_eq!(fake.requests().len(), 1);
    let received = fake.emails();
    let email = &received[0];
    assert_eq!(email.domain, DOMAIN);
    assert_eq!(email.from, "Voicemail <voicemail@mg.example.com>");
    assert_eq!(email.to, ["oncall@example.com", "supervisor@example.com"]);
    assert_eq!(email.subject, "New voicemail from +15551230000");
    assert_eq!(
        email.text.as_deref(),
        Some("A caller left a voicemail; the recording is attached.")
    );
    assert_eq!(
        email.html.as_deref(),
        Some("<p>A caller left a voicemail; the recording is attached.</p>")
    );
    assert_eq!(
        email.attachments,
        [("voicemail.wav".to_owned(), "audio/wav".to_owned(), 2048)]
    );

    // Stable by default: the fake's port is redacted.
    insta::assert_snapshot!("success", run.snapshot());
}

#[tokio::test]
async fn two_attachments_reach_the_provider_and_the_records() {
    let fake = FakeEmailProvider::start().await;
    fake.expect(1);
    let event = FakeEvent::voice()
        .param("attachments", "2")
        .param("attachment_bytes", "3000");
    let run = invoke(voicemail_email, provider_context(&fake), event).await;
    run.assert_contract();
    assert!(run.reply().is_some(), "{:?}", run.error());
    assert_eq!(
        business_steps(&run),
        [
            "email_request",
            "attachment",
            "attachment",
            "api_request",
            "auth",
            "api_response",
            "email_result"
        ]
    );
    let logged: Vec<(&str, u64, &str)> = run
        .records_of("attachment")
        .into_iter()
        .map(|r| {
            (
                text(r, "filename"),
                r["size"].as_u64().unwrap(),
                text(r, "content_type"),
            )
        })
        .collect();
    assert_eq!(
        logged,
        [
            ("voicemail.wav", 3000, "audio/wav"),
            ("transcript.txt", 3000, "text/plain")
        ]
    );
    assert_eq!(
        fake.emails()[0].attachments,
        [
            ("voicemail.wav".to_owned(), "audio/wav".to_owned(), 3000),
            ("transcript.txt".to_owned(), "text/plain".to_owned(), 3000),
        ]
    );
}

#[tokio::test]
async fn attachments_over_the_limit_are_refused_before_sending() {
    let fake = FakeEmailProvider::start().await;
    fake.expect(0);
    let context = provider_context(&fake).value("EMAILPROVIDER_MAX_BYTES", "5000");
    let event = FakeEvent::voice()
        .param("attachments", "2")
        .param("attachment_bytes", "3000");
    let run = invoke(voicemail_email, context, event).await;
    // A validation error (400), as `EmailClient::send` documents: what
    // the caller sent is too large to attach; not a bug of the function.
    let message = assert_email_failure(&run, ErrorKind::Validation);
    assert_eq!(run.error().unwrap().kind().http_status(), 400);
    assert_eq!(
        text(run.record("email_error").unwrap(), "kind"),
        "validation"
    );
    assert_eq!(text(run.record("error").unwrap(), "kind"), "validation");
    // 6000 bytes of attachments, plus subject (31), text (53) and HTML (60).
    assert_eq!(
        message,
        "email not sent: attachments total 6000 bytes (6144 bytes with the text), \
         over the 5000-byte limit of the email provider: send a link instead"
    );
    assert_eq!(
        business_steps(&run),
        ["email_request", "attachment", "attachment", "email_error"]
    );
    assert!(run.record("api_request").is_none());
    assert!(fake.requests().is_empty());
}

#[tokio::test]
async fn a_refused_key_names_the_likely_causes() {
    let fake = FakeEmailProvider::start().await;
    fake.fail_with(FakeResponse::status(401).body("text/plain", "Forbidden"));
    let run = invoke(voicemail_email, provider_context(&fake), FakeEvent::voice()).await;
    let message = assert_email_failure(&run, ErrorKind::Upstream);
    assert_eq!(
        message,
        "the email provider refused the API key (status 401): use the domain's sending key, \
         not the private account key; check that the sending domain mg.example.com is verified; \
         check the region (US or EU) of the base URL"
    );
    assert_eq!(
        business_steps(&run),
        [
            "email_request",
            "attachment",
            "api_request",
            "auth",
            "api_response",
            "email_error"
        ]
    );
    let response = run.record("api_response").unwrap();
    assert_eq!(response["status"], 401);
    assert_eq!(response["ok"], false);
    assert_eq!(response["data"], "Forbidden");
    assert_eq!(run.record("email_error").unwrap()["status"], 401);
    assert_eq!(text(run.record("error").unwrap(), "error"), message);
    assert_eq!(fake.requests().len(), 1);
    insta::assert_snapshot!("refused_key", run.snapshot());
}

#[tokio::test]
async fn a_rejected_message_carries_the_provider_message() {
    let fake = FakeEmailProvider::start().await;
    fake.fail_with(FakeResponse::status(400).json(
        json!({"message": "'to' parameter is not a valid address. please check documentation"}),
    ));
    let run = invoke(voicemail_email, provider_context(&fake), FakeEvent::voice()).await;
    let message = assert_email_failure(&run, ErrorKind::Upstream);
    assert_eq!(
        message,
        "the email provider rejected the message (status 400): \
         'to' parameter is not a valid address. please check documentation"
    );
    assert_eq!(run.record("email_error").unwrap()["status"], 400);
}

#[tokio::test]
async fn a_provider_failure_names_the_status_and_its_message() {
    let fake = FakeEmailProvider::start().await;
    fake.fail_with(FakeResponse::status(500).json(json!({"message": "Internal Server Error"})));
    let run = invoke(voicemail_email, provider_context(&fake), FakeEvent::voice()).await;
    let message = assert_email_failure(&run, ErrorKind::Upstream);
    assert_eq!(
        message,
        "the email provider failed (status 500): Internal Server Error; \
         the email was not sent, try again later"
    );
    assert_eq!(run.record("api_response").unwrap()["status"], 500);
    assert_eq!(
        run.error().unwrap().caller_message(),
        "email provider error (status 500)"
    );
}

#[tokio::test]
async fn the_caller_is_told_the_status_never_the_providers_page() {
    let fake = FakeEmailProvider::start().await;
    fake.fail_with(FakeResponse::status(501).body(
        "text/plain",
        "<html><body>Not Implemented at edge-7.internal</body></html>",
    ));
    let run = invoke(voicemail_email, provider_context(&fake), FakeEvent::voice()).await;
    let message = assert_email_failure(&run, ErrorKind::Upstream);
    assert!(
        message.contains("edge-7.internal"),
        "the record keeps the detail: {message}"
    );
    let told = run.error().unwrap().caller_message();
    assert_eq!(told, "email provider error (status 501)");
}

#[tokio::test]
async fn a_slow_provider_raises_an_alert() {
    let fake = FakeEmailProvider::start().await;
    fake.delay(Duration::from_millis(150));
    let event = FakeEvent::voice().param("slow_ms", "50");
    let run = invoke(direct_email, provider_context(&fake), event).await;
    run.assert_contract();
    assert!(run.reply().is_some(), "{:?}", run.error());
    assert_eq!(
        business_steps(&run),
        [
            "email_request",
            "attachment",
            "api_request",
            "auth",
            "api_response",
            "alert",
            "email_result"
        ]
    );
    let alert = run.record("alert").unwrap();
    assert_eq!(text(alert, "kind"), "api_response_time");
    assert!(alert["value"].as_f64().unwrap() >= 150.0, "{alert:?}");
    assert_eq!(alert["threshold"].as_f64(), Some(50.0));
}

#[tokio::test]
async fn the_threshold_of_the_context_applies_through_from_context() {
    let fake = FakeEmailProvider::start().await;
    fake.delay(Duration::from_millis(150));
    let mut thresholds = ccfn_core::context::Thresholds::default();
    thresholds.api_response = Duration::from_millis(50);
    thresholds.error_rate = 1.0;
    let context = provider_context(&fake).thresholds(thresholds);
    let run = invoke(voicemail_email, context, FakeEvent::voice()).await;
    run.assert_contract();
    assert_eq!(
        text(run.record("alert").unwrap(), "kind"),
        "api_response_time"
    );
}

#[tokio::test]
async fn a_client_timeout_says_it_timed_out() {
    let fake = FakeEmailProvider::start().await;
    fake.delay(Duration::from_secs(2));
    let event = FakeEvent::voice().param("timeout_ms", "200");
    let run = invoke(direct_email, provider_context(&fake), event).await;
    let message = assert_email_failure(&run, ErrorKind::Upstream);
    let url = format!("{}/{DOMAIN}/messages", fake.url());
    assert_eq!(
        message,
        format!("email not sent: POST {url} failed: timed out after 200 ms")
    );
    assert_eq!(
        business_steps(&run),
        [
            "email_request",
            "attachment",
            "api_request",
            "auth",
            "api_error",
            "email_error"
        ]
    );
    // The stack keeps the transport error as the cause.
    let stack = text(run.record("error").unwrap(), "stack");
    assert!(stack.contains("\ncaused by: "), "{stack}");
    // The request reached the fake before it timed out.
    assert_eq!(fake.requests().len(), 1);
}

#[tokio::test]
async fn a_refused_connection_says_refused() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let base = format!("http://127.0.0.1:{port}");
    let context = FakeContext::new()
        .value("EMAILPROVIDER_API_KEY", KEY)
        .value("EMAILPROVIDER_BASE_URL", base.as_str());
    let run = invoke(voicemail_email, context, FakeEvent::voice()).await;
    let message = assert_email_failure(&run, ErrorKind::Upstream);
    assert_eq!(
        message,
        format!("email not sent: POST {base}/{DOMAIN}/messages failed: the connection was refused")
    );
}

#[tokio::test]
async fn the_api_key_never_leaks_but_reaches_the_provider() {
    let fake = FakeEmailProvider::start().await;
    // A provider that echoes the key in the message the error quotes.
    fake.fail_with(FakeResponse::status(400).json(json!({
        "message": format!("parameter 'api_key' ({KEY}) is not allowed in the body")
    })));
    let run = invoke(voicemail_email, provider_context(&fake), FakeEvent::voice()).await;
    let message = assert_email_failure(&run, ErrorKind::Upstream);
    assert_eq!(
        message,
        "the email provider rejected the message (status 400): \
         parameter 'api_key' ([REDACTED]) is not allowed in the body"
    );
    assert!(!run.error().unwrap().stack().contains(KEY));
    // The scrubber would hide a leak behind `[REDACTED]`: the only places
    // the key may have been are the authorization header, the data the
    // provider echoed, and the error quoting it (checked exactly above).
    for record in run.records() {
        let line = Value::Object(record.clone()).to_string();
        assert!(!line.contains(KEY), "{line}");
        let step = text(record, "step");
        if line.contains("[REDACTED]") {
            assert!(
                matches!(
                    step,
                    "api_request" | "api_response" | "email_error" | "error"
                ),
                "`{step}` has a redacted value: {line}"
            );
        }
    }
    for url in run
        .records()
        .iter()
        .filter_map(|r| r.get("url").and_then(Value::as_str))
    {
        assert!(!url.contains("key-canary") && !url.contains('@'), "{url}");
    }
    run.assert_no_leak(&[KEY, "key-canary"]);

    assert_eq!(fake.requests().len(), 1);
    let received = fake.emails();
    assert_eq!(received[0].authorization_user.as_deref(), Some("api"));
    assert!(received[0].authorization_password_present);
    assert_eq!(received[0].password, KEY);
    assert!(!format!("{:?}", received[0]).contains(KEY));
}

#[tokio::test]
async fn a_key_without_a_domain_is_a_clear_error() {
    let fake = FakeEmailProvider::start().await;
    fake.expect(0);
    let context = provider_context(&fake).without("EMAILPROVIDER_DOMAIN");
    let run = invoke(voicemail_email, context, FakeEvent::voice()).await;
    run.assert_contract();
    let error = run.error().unwrap();
    assert_eq!(error.kind(), ErrorKind::Configuration);
    assert!(
        error
            .message()
            .starts_with("EMAILPROVIDER_API_KEY is set but EMAILPROVIDER_DOMAIN is not"),
        "{error:?}"
    );
}

/// A fresh folder under the system's temporary folder.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ccfn-email-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[tokio::test]
async fn with_no_key_the_outbox_writes_the_files_and_logs_the_same_records() {
    let dir = temp_dir("outbox");
    let context = FakeContext::new().value("CCFN_OUTBOX_DIR", dir.to_str().unwrap());
    let event = FakeEvent::voice()
        .param("attachments", "2")
        .param("attachment_bytes", "100");
    let run = invoke(voicemail_email, context, event).await;
    run.assert_contract();
    assert!(run.reply().is_some(), "{:?}", run.error());
    assert_eq!(
        business_steps(&run),
        ["email_request", "attachment", "attachment", "email_result"]
    );
    let request = run.record("email_request").unwrap();
    assert_eq!(text(request, "url"), format!("outbox:{}", dir.display()));
    assert_eq!(text(request, "domain"), DOMAIN);
    assert_eq!(
        request["recipients"],
        json!(["oncall@example.com", "supervisor@example.com"])
    );
    let result = run.record("email_result").unwrap();
    assert_eq!(text(result, "message"), OUTBOX_QUEUED);
    assert_eq!(result["recipient_count"], 2);
    let id = text(result, "id");
    let hex = id
        .strip_prefix("<outbox.")
        .and_then(|rest| rest.strip_suffix("@ccfn.local>"))
        .unwrap_or_else(|| panic!("unexpected id {id}"));
    assert!(
        hex.len() == 16 && hex.chars().all(|c| c.is_ascii_hexdigit()),
        "{id}"
    );

    let folder = dir.join(id.trim_start_matches('<').trim_end_matches('>'));
    assert_eq!(text(result, "path"), folder.display().to_string());
    let written: Value =
        serde_json::from_slice(&std::fs::read(folder.join("message.json")).unwrap()).unwrap();
    assert_eq!(written["id"], id);
    assert_eq!(written["from"], "Voicemail <voicemail@mg.example.com>");
    assert_eq!(
        written["to"],
        json!(["oncall@example.com", "supervisor@example.com"])
    );
    assert_eq!(written["subject"], "New voicemail from +15551230000");
    assert_eq!(
        written["text"],
        "A caller left a voicemail; the recording is attached."
    );
    assert!(written["html"].as_str().unwrap().starts_with("<p>"));
    assert!(written["created"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        written["attachments"],
        json!([
            {"filename": "voicemail.wav", "content_type": "audio/wav", "size": 100, "path": "attachments/voicemail.wav"},
            {"filename": "transcript.txt", "content_type": "text/plain", "size": 100, "path": "attachments/transcript.txt"}
        ])
    );
    for name in ["voicemail.wav", "transcript.txt"] {
        let bytes = std::fs::read(folder.join("attachments").join(name)).unwrap();
        assert_eq!(bytes, vec![b'x'; 100], "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn the_outbox_applies_the_same_limit() {
    let dir = temp_dir("outbox-limit");
    let context = FakeContext::new()
        .value("CCFN_OUTBOX_DIR", dir.to_str().unwrap())
        .value("EMAILPROVIDER_MAX_BYTES", "1000");
    let run = invoke(voicemail_email, context, FakeEvent::voice()).await;
    let message = assert_email_failure(&run, ErrorKind::Validation);
    assert!(
        message.contains("attachments total 2048 bytes") && message.contains("1000-byte limit"),
        "{message}"
    );
    assert!(!dir.exists(), "nothing is written");
}

#[tokio::test]
async fn an_outbox_that_cannot_be_written_names_the_path() {
    let dir = temp_dir("outbox-file");
    // A file where the outbox folder should be.
    std::fs::write(&dir, b"not a folder").unwrap();
    let context = FakeContext::new().value("CCFN_OUTBOX_DIR", dir.to_str().unwrap());
    let run = invoke(voicemail_email, context, FakeEvent::voice()).await;
    let message = assert_email_failure(&run, ErrorKind::Function);
    assert!(
        message.starts_with("email not written to the local outbox: cannot create the folder ")
            && message.contains(&dir.display().to_string()),
        "{message}"
    );
    std::fs::remove_file(&dir).unwrap();
}

#[tokio::test]
#[should_panic(expected = "expected 1 request(s), it received 0")]
async fn the_fake_checks_its_expectation_when_dropped() {
    let fake = FakeEmailProvider::start().await;
    fake.expect(1);
    drop(fake);
}
