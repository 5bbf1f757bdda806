//! The fakes wired into a context in one call each, and the generic fake
//! API standing in for a user's own service, over real loopback HTTP.

use ccfn_core::email::EmailMessage;
use ccfn_core::http::BearerToken;
use ccfn_core::prelude::*;
use ccfn_core::taskrouter::NewTask;
use ccfn_core::Reply;
use ccfn_testkit::fake_api::{FakeApi, Mock};
use ccfn_testkit::fake_email::FakeEmailProvider;
use ccfn_testkit::fake_task_router::FakeTaskRouter;
use ccfn_testkit::FakeResponse;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, FAKE_AUTH_TOKEN, FAKE_EMAIL_KEY};
use serde_json::{json, Value};

const CRM_KEY: &str = "canary-crm-api-key-51d0e2";
const WORKFLOW: &str = "WW11111111111111111111111111111111";

/// Looks the caller up in the CRM, emails the team and creates a callback
/// task.
///
/// # Trigger
/// Test.
/// # Dependencies
/// CRM, email provider, task router.
/// # Critical logging
/// Task creation result.
/// # Contacts
/// oncall@example.com
#[contact_fn(
    required = [CallSid, From, To],
    env = [CRM_URL, workflowSid],
    secrets = [CRM_KEY],
    kind = task
)]
async fn follow_up(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let token = BearerToken::new(context.required_secret("CRM_KEY"), None);
    let customer: Value = context
        .http()?
        .get(format!("{}/customers", context.required("CRM_URL")))
        .query(&[("phone", event.required(params::From))])
        .bearer(&token)
        .send()
        .await?
        .error_for_status()?
        .json()?;
    let name = customer["name"].as_str().unwrap_or("a caller");
    context
        .email()?
        .send(
            &EmailMessage::new("voicemail@mg.example.com")
                .to("team@example.com")
                .subject(format!("Call back {name}"))
                .text("Please call back."),
        )
        .await?;
    let task = context
        .task_router()?
        .create_task(&NewTask::new(
            context.required("workflowSid"),
            json!({ "type": "callback", "name": name }),
        ))
        .await?;
    Ok(callback.success(json!({ "name": name, "task": task.sid })))
}

fn routing() -> Value {
    json!({ "task_routing": { "filters": [], "default_filter": { "queue": "WQ1" } } })
}

#[tokio::test]
async fn one_call_wires_each_fake() {
    let crm = FakeApi::start().await;
    crm.mock(
        Mock::get("/customers")
            .query("phone", "+15551230000")
            .header("authorization", format!("Bearer {CRM_KEY}"))
            .respond(FakeResponse::ok().json(json!({ "name": "Ada" })))
            .expect(1),
    );
    let email = FakeEmailProvider::start().await;
    email.expect(1);
    let router = FakeTaskRouter::start()
        .await
        .with_workflow(WORKFLOW, "Callbacks", routing());
    let context = FakeContext::new()
        .api("CRM_URL", &crm)
        .secret("CRM_KEY", CRM_KEY)
        .value("workflowSid", WORKFLOW)
        .email_provider(&email)
        .task_router(&router);
    let run = invoke(
        follow_up,
        context,
        FakeEvent::voice().param("From", "+15551230000"),
    )
    .await;
    run.assert_contract();
    run.assert_no_leak(&[CRM_KEY, FAKE_EMAIL_KEY, FAKE_AUTH_TOKEN]);
    let Some(Reply::Json(result)) = run.reply() else {
        panic!("expected JSON, got {:?}", run.completion());
    };
    assert_eq!(result["name"], "Ada");
    assert_eq!(email.emails()[0].subject, "Call back Ada");
    assert_eq!(router.tasks().len(), 1);
    assert_eq!(
        router.requests()[0].password().as_deref(),
        Some(FAKE_AUTH_TOKEN)
    );
    let call = &crm.requests()[0];
    assert_eq!(
        call.header("authorization"),
        Some(&*format!("Bearer {CRM_KEY}"))
    );
    assert!(!format!("{call:?}").contains(CRM_KEY), "{call:?}");
    assert_eq!(run.records_of("api_response")[0]["status"], 200);
}

#[tokio::test]
async fn an_unmatched_request_is_a_404_that_says_so() {
    let crm = FakeApi::start().await;
    crm.mock(Mock::post("/tickets").respond(FakeResponse::status(201)));
    let client = ccfn_core::http::HttpClient::new(Default::default()).unwrap();
    let answer = client
        .get(format!("{}/customers", crm.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 404);
    assert_eq!(
        std::str::from_utf8(answer.body()).unwrap(),
        "no mock of this fake API matches GET /customers"
    );
    let verified = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crm.verify()));
    let message = verified.unwrap_err();
    let message = message.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("1 request(s) matched no mock"),
        "{message}"
    );
    // Dropping it would panic again: the request stays unmatched.
    std::mem::forget(crm);
}

#[tokio::test]
async fn mocks_answer_in_order_with_their_status_headers_and_delay() {
    let api = FakeApi::start().await;
    api.mock(
        Mock::get("/limited").header("x-tier", "free").respond(
            FakeResponse::status(429)
                .header("Retry-After", "1")
                .text("slow down"),
        ),
    )
    .mock(Mock::any("/limited").respond(FakeResponse::ok().json(json!([1, 2]))));
    let client = ccfn_core::http::HttpClient::new(Default::default()).unwrap();
    let free = client
        .get(format!("{}/limited", api.url()))
        .header("X-Tier", "free")
        .send()
        .await
        .unwrap();
    assert_eq!(free.status(), 429);
    let paid = client
        .post(format!("{}/limited", api.url()))
        .json(&json!({ "n": 1 }))
        .send()
        .await
        .unwrap();
    assert_eq!(paid.json::<Value>().unwrap(), json!([1, 2]));
    assert_eq!(api.requests()[1].json(), json!({ "n": 1 }));
    assert_eq!(api.requests()[1].method(), "POST");
}

#[tokio::test]
#[should_panic(expected = "`GET /customers` expected 2 request(s), it received 0")]
async fn an_unmet_expectation_fails_the_test_when_the_fake_is_dropped() {
    let crm = FakeApi::start().await;
    crm.mock(Mock::get("/customers").expect(2));
}

/// `GET url`, its status and body, through ccfn's own client.
async fn get(url: &str) -> (u16, String) {
    let client = ccfn_core::http::HttpClient::new(Default::default()).unwrap();
    let answer = client.get(url).send().await.unwrap();
    let body = std::str::from_utf8(answer.body()).unwrap().to_owned();
    (answer.status(), body)
}

#[tokio::test]
async fn every_fake_is_broken_for_as_many_requests_as_told_then_answers_as_usual() {
    let email = FakeEmailProvider::start().await;
    let router = FakeTaskRouter::start().await;
    let api = FakeApi::start().await;
    api.mock(Mock::get("/ping").respond(FakeResponse::ok().text("pong")));
    let urls = [
        format!("{}/mg.example.com/messages", email.url()),
        format!("{}/Workspaces", router.url()),
        format!("{}/ping", api.url()),
    ];
    let usual = [404, 200, 200];
    email.fail_with(FakeResponse::status(503).text("down").times(2));
    router.fail_with(FakeResponse::status(503).text("down").times(2));
    api.fail_with(FakeResponse::status(503).text("down").times(2));
    for (url, usual) in urls.iter().zip(usual) {
        assert_eq!(get(url).await, (503, "down".to_owned()), "{url}");
        assert_eq!(get(url).await.0, 503, "{url}");
        assert_eq!(
            get(url).await.0,
            usual,
            "{url}: the third is the fake's own"
        );
    }
    for requests in [email.requests(), router.requests(), api.requests()] {
        let statuses: Vec<Option<u16>> = requests.iter().map(|r| r.status()).collect();
        assert_eq!(statuses.len(), 3, "{requests:?}");
        assert_eq!(&statuses[..2], [Some(503), Some(503)], "{requests:?}");
        assert!(requests.iter().all(|r| r.method() == "GET"));
    }
    // `times(0)` ends a failure told before.
    router.fail_with(FakeResponse::status(500));
    assert_eq!(get(&urls[1]).await.0, 500);
    router.fail_with(FakeResponse::status(500).times(0));
    assert_eq!(get(&urls[1]).await.0, 200);
}

#[tokio::test]
async fn a_delay_holds_the_fake_s_own_answers_and_the_request_shows_pending() {
    let delay = std::time::Duration::from_secs(1);
    let router = FakeTaskRouter::start().await;
    router.delay(delay);
    let url = format!("{}/Workspaces", router.url());
    let client = ccfn_core::http::HttpClient::new(Default::default()).unwrap();
    let started = std::time::Instant::now();
    let pending = tokio::spawn(async move { client.get(url).send().await.unwrap().status() });
    // Recorded as soon as it arrives, before the answer.
    while router.requests().is_empty() {
        assert!(started.elapsed() < delay, "the request never arrived");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(started.elapsed() < delay);
    assert_eq!(router.requests()[0].status(), None, "not answered yet");
    assert_eq!(pending.await.unwrap(), 200);
    assert!(started.elapsed() >= delay);
    assert_eq!(router.requests()[0].status(), Some(200));
}

#[tokio::test]
#[should_panic(expected = "the fake task router at http://127.0.0.1:")]
async fn the_task_router_checks_its_expectation_when_dropped() {
    let router = FakeTaskRouter::start().await;
    router.expect(1);
}

#[tokio::test]
#[should_panic(expected = "the test's own failure")]
async fn a_fake_dropped_while_the_test_panics_does_not_panic_again() {
    // A second panic in Drop would abort the process instead of failing
    // this test with its own message.
    let email = FakeEmailProvider::start().await;
    email.expect(3);
    let router = FakeTaskRouter::start().await;
    router.expect(3);
    let api = FakeApi::start().await;
    api.mock(Mock::get("/never").expect(1));
    panic!("the test's own failure");
}

#[tokio::test]
async fn verify_says_what_was_expected_and_what_came() {
    let email = FakeEmailProvider::start().await;
    email.expect(1);
    let verified = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| email.verify()));
    let message = verified.unwrap_err();
    let message = message.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("the fake email provider at http://127.0.0.1:")
            && message.contains("expected 1 request(s), it received 0"),
        "{message}"
    );
    email.expect(0);
}
