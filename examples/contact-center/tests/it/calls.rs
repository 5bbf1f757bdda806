//! The wait experience as whole calls: the caller rings the inbound
//! number, is queued, hears the menu on hold, and leaves a voicemail (the
//! team gets its email) or asks for a callback (a task is created). The
//! platform's side is played by `ccfn_testkit::call`, over a loopback
//! server running the example's runtime, each request signed; every
//! invocation is checked against the logging contract.

use ccfn_core::runtime::{Runtime, RuntimeConfig};
use ccfn_testkit::call::Call;
use ccfn_testkit::fake_email::FakeEmailProvider;
use ccfn_testkit::fake_task_router::FakeTaskRouter;
use ccfn_testkit::{FakeContext, FAKE_AUTH_TOKEN, FAKE_EMAIL_KEY};
use example_contact_center::{INBOUND, LOCAL_DEFAULTS};
use serde_json::json;

const WORKFLOW: &str = "WW0000000000000000000000000000call";
const INBOUND_URL: &str = "/features/inbound-call/calls/enqueue";

/// The example's runtime with its fakes, and a call to it signed with
/// the runtime's auth token.
struct Line {
    email: FakeEmailProvider,
    router: FakeTaskRouter,
    call: Call,
}

async fn line() -> Line {
    let email = FakeEmailProvider::start().await;
    let router = FakeTaskRouter::start().await.with_workflow(
        WORKFLOW,
        "Callbacks",
        json!({ "task_routing": { "filters": [], "default_filter": { "queue": "WQ0001" } } }),
    );
    let mut context = FakeContext::new()
        .email_provider(&email)
        .task_router(&router);
    for (name, value) in LOCAL_DEFAULTS {
        context = context.value(name, value);
    }
    let context = context.value("workflowSid", WORKFLOW).build();
    let runtime = example_contact_center::runtime(Runtime::new(context, RuntimeConfig::default()));
    let call = Call::new(runtime)
        .await
        .auth_token(FAKE_AUTH_TOKEN)
        .secret(FAKE_EMAIL_KEY)
        .from("+15550123456");
    Line {
        email,
        router,
        call,
    }
}

#[tokio::test]
async fn a_caller_on_hold_hears_the_menu_again_and_again_in_no_real_time() {
    assert!(INBOUND_URL.contains(INBOUND));
    let Line { mut call, .. } = line().await;
    call.dial(INBOUND_URL).await;
    call.hears("Thank you for calling")
        .hears("Press 1 to leave a voicemail, or 2 to request a callback");
    let started = std::time::Instant::now();
    call.waits(60).await;
    call.hears("Please hold. An agent will be with you shortly.")
        .hears("Press 1 to leave a voicemail");
    // A minute on hold, simulated.
    assert!(call.seconds() >= 60);
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert!(call.waiting() && !call.ended());
    call.hangs_up().await;
    call.assert_ended();
    call.assert_contract();
    insta::assert_snapshot!(call.transcript().to_string());
}

#[tokio::test]
async fn a_voicemail_left_on_hold_is_emailed_to_the_team() {
    let Line {
        mut call, email, ..
    } = line().await;
    call.dial(INBOUND_URL).await;
    call.press("1").await;
    call.hears("Please leave a message after the beep");
    call.says("Hi, this is Ana about my order, please call me back")
        .await;
    call.press("#").await;
    call.hears("Your message has been recorded").assert_ended();
    call.assert_contract();
    let emails = email.emails();
    assert_eq!(emails.len(), 1, "{}", call.transcript());
    let notice = &emails[0];
    assert_eq!(notice.subject, "New voicemail from +15550123456");
    assert_eq!(notice.to, ["contact-center-team@example.com"]);
    let text = notice.text.as_deref().unwrap();
    assert!(text.contains("(6 s)"), "{text}");
    assert!(text.contains("The recording is attached."), "{text}");
    assert_eq!(notice.attachments.len(), 1);
    assert_eq!(
        notice.attachments[0].2,
        ccfn_testkit::call::RECORDING_BYTES.len()
    );
    let functions: Vec<String> = call
        .runs()
        .iter()
        .map(|run| run.records()[0]["function"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        functions,
        [
            "inbound-call",
            "wait-experience",
            "wait-experience",
            "wait-experience",
            "voicemail-notice"
        ]
    );
    insta::assert_snapshot!(call.transcript().to_string());
}

#[tokio::test]
async fn a_callback_asked_for_on_hold_creates_its_task() {
    let Line {
        mut call, router, ..
    } = line().await;
    call.dial(INBOUND_URL).await;
    call.press("2").await;
    call.hears("An agent will call you back at this number")
        .assert_ended();
    call.assert_contract();
    let tasks = router.tasks();
    assert_eq!(tasks.len(), 1);
    let attributes: serde_json::Value =
        serde_json::from_str(tasks[0]["attributes"].as_str().unwrap()).unwrap();
    assert_eq!(attributes["type"], "callback");
    assert_eq!(attributes["call_sid"], ccfn_testkit::call::CALL_SID);
    assert_eq!(attributes["from"], "+15550123456");
    insta::assert_snapshot!(call.transcript().to_string());
}
