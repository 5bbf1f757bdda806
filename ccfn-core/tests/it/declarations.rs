//! What a function declares decides what it reads: declared secrets are
//! secrets whatever their name, names that merely look sensitive stay
//! readable, declared values need no `Option`, and a read past the
//! declarations is a `declaration` warning, once per invocation under the
//! testkit (once per process under the runtime), that says the fix, and
//! fails `assert_contract`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ccfn_core::prelude::*;
use ccfn_core::Reply;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};

const SESSION: &str = "canary-crm-session-7c1e0a";
const EXPIRES_AT: &str = "2026-12-01T00:00:00Z";

fn context() -> FakeContext {
    FakeContext::new()
        .value("CRM_URL", "https://crm.example.com")
        .value("CRM_SESSION", SESSION)
        .value("CRM_TOKEN_EXPIRES_AT", EXPIRES_AT)
        .value("MONKEY_COUNT", "12")
        .value("CRM_REGION", "eu")
}

/// Reads what it declares, and more.
///
/// # Trigger
/// Test.
/// # Optional parameters
/// Ticket_Ref
/// # Dependencies
/// CRM.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = [CRM_URL], secrets = [CRM_SESSION])]
async fn reader(context: Context, event: Event, callback: Callback) -> Completion {
    let session = context.required_secret("CRM_SESSION").expose().len();
    // `context.get("CRM_SESSION")` does not compile; a name the macro
    // cannot see is `None` and a warning.
    let name = String::from("CRM_SESSION");
    let plain = context.get(&name);
    let expires = context.get("CRM_TOKEN_EXPIRES_AT");
    let count = context.get("MONKEY_COUNT");
    let region = context.get("CRM_REGION");
    let typo = event.get("Digts");
    // Read twice: still one warning each.
    let _ = (context.get("CRM_REGION"), event.get("Digts"));
    callback.success(serde_json::json!({
        "url": context.required("CRM_URL"),
        "to": event.required(params::To),
        "ticket": event.get("Ticket_Ref"),
        "session_len": session,
        "plain": plain,
        "expires": expires,
        "count": count,
        "region": region,
        "typo": typo,
    }))
}

fn declarations(run: &Run) -> Vec<(String, String, String)> {
    run.records_of("declaration")
        .into_iter()
        .map(|record| {
            assert_eq!(record["level"], "WARN");
            (
                record["source"].as_str().unwrap().to_owned(),
                record["name"].as_str().unwrap().to_owned(),
                record["problem"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn triple(source: &str, name: &str, problem: &str) -> (String, String, String) {
    (source.to_owned(), name.to_owned(), problem.to_owned())
}

#[tokio::test]
async fn declared_values_are_read_and_undeclared_reads_warn_once_per_invocation() {
    let run = invoke(
        reader,
        context(),
        FakeEvent::voice().param("Ticket_Ref", "T-1"),
    )
    .await;
    // The logging contract holds (it is checked first); the reads past
    // the declarations fail the run, each with its fix.
    let failure = catch_unwind(AssertUnwindSafe(|| run.assert_contract()))
        .expect_err("undeclared reads fail the contract");
    let failure = failure.downcast_ref::<String>().unwrap();
    assert!(
        failure.starts_with("the run of `reader` reads past what `reader` declares"),
        "{failure}"
    );
    assert_eq!(failure.matches("\n  - ").count(), 5, "{failure}");
    run.assert_no_leak(&[SESSION]);
    insta::assert_snapshot!("reader", run.snapshot());
    let Some(Reply::Json(result)) = run.reply() else {
        panic!("expected JSON, got {:?}", run.completion());
    };
    assert_eq!(result["url"], "https://crm.example.com");
    assert_eq!(result["to"], FakeEvent::voice().build().to().unwrap());
    assert_eq!(result["ticket"], "T-1");
    assert_eq!(result["session_len"], SESSION.len());
    assert_eq!(
        result["plain"],
        serde_json::Value::Null,
        "a declared secret"
    );
    assert_eq!(result["expires"], EXPIRES_AT, "only looks sensitive");
    assert_eq!(
        result["count"], "12",
        "`MONKEY` contains `key`, yet it is readable"
    );
    assert_eq!(result["region"], "eu");
    assert_eq!(result["typo"], serde_json::Value::Null);
    assert_eq!(
        declarations(&run),
        [
            triple("context", "CRM_SESSION", "secret"),
            triple("context", "CRM_TOKEN_EXPIRES_AT", "looks_sensitive"),
            triple("context", "MONKEY_COUNT", "looks_sensitive"),
            triple("context", "CRM_REGION", "undeclared"),
            triple("event", "Digts", "undeclared"),
        ]
    );
    let typo = run.records_of("declaration")[4];
    assert_eq!(
        typo["message"],
        "event.get(\"Digts\") reads a parameter `reader` does not declare: did you mean \
         `Digits`? (a misspelt name is always None) If `Digts` is meant, list it in \
         `required = [..]`, or under `# Optional parameters` in the doc comment"
    );
    let sensitive = run.records_of("declaration")[1];
    assert!(
        sensitive["message"]
            .as_str()
            .unwrap()
            .contains("declare it in `secrets = [..]` (or CCFN_SECRETS)"),
        "{sensitive:?}"
    );
    // The value that only looks sensitive is readable, and still never
    // logged: the result shows it as `[REDACTED]`.
    run.assert_no_leak(&[EXPIRES_AT]);

    // Under the testkit, the next invocation warns again: what a run
    // captures does not depend on what ran before it.
    let again = invoke(reader, context(), FakeEvent::voice()).await;
    assert_eq!(declarations(&again), declarations(&run));
}

#[tokio::test]
async fn a_declared_secret_is_required_before_the_handler_runs() {
    let run = invoke(reader, context().without("CRM_SESSION"), FakeEvent::voice()).await;
    assert_eq!(
        run.error_message(),
        Some("Missing required environment variable: CRM_SESSION")
    );
    assert_eq!(
        run.record("validation").unwrap()["env"],
        serde_json::json!(["CRM_URL", "CRM_SESSION"])
    );
}

/// Reads a parameter it does not require.
///
/// # Trigger
/// Test.
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn undeclared_required(_context: Context, event: Event, callback: Callback) -> Completion {
    let customer = event.required("CustomerId").to_owned();
    callback.success(customer)
}

#[tokio::test]
async fn required_names_the_missing_parameter_and_the_fix() {
    let run = invoke(undeclared_required, FakeContext::new(), FakeEvent::voice()).await;
    let message = run.error_message().unwrap();
    assert!(
        message.contains(
            "event.required(\"CustomerId\"): the event has no `CustomerId`; declare it in \
             `required = [..]`"
        ),
        "{message}"
    );
}

#[test]
fn outside_a_function_nothing_is_checked() {
    let context = Context::builder()
        .value("MONKEY_COUNT", "12")
        .secret("CRM_SESSION", SESSION)
        .build();
    assert_eq!(context.get("MONKEY_COUNT"), Some("12"));
    assert_eq!(context.get("CRM_SESSION"), None);
    assert_eq!(context.required_secret("CRM_SESSION").expose(), SESSION);
}

/// Reads a misspelt parameter, run as the runtime runs it.
///
/// # Trigger
/// Test.
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn served_reader(_context: Context, event: Event, callback: Callback) -> Completion {
    let digits = event.get("Digitz").or_else(|| event.get("Digitz"));
    callback.success(serde_json::json!({ "digits": digits }))
}

#[tokio::test]
async fn the_runtime_warns_once_per_process() {
    use ccfn_core::function::ContactFunction as _;
    use ccfn_core::record::{Captured, ContractLayer, LogFormat};
    use tracing::instrument::WithSubscriber as _;
    use tracing_subscriber::layer::SubscriberExt as _;

    // A second dispatcher alive, so that each callsite asks the capture
    // whatever thread settled its interest first (as the testkit does).
    let _second = tracing::Dispatch::new(tracing::subscriber::NoSubscriber::default());
    let captured = Captured::default();
    let subscriber = tracing::Dispatch::new(tracing_subscriber::registry().with(
        ContractLayer::new(LogFormat::Json, ccfn_testkit::LogBuffer::default()).capture(&captured),
    ));
    // The runtime's path: the event and context as a request makes them,
    // without the testkit's per-invocation scope.
    for _ in 0..3 {
        let completion = served_reader
            .invoke(
                Context::builder().build(),
                Event::from_pairs(ccfn_testkit::VOICE_EVENT),
            )
            .with_subscriber(subscriber.clone())
            .await;
        assert!(completion.result().is_ok(), "{completion:?}");
    }
    let warned: Vec<String> = captured
        .records()
        .iter()
        .filter(|record| record["step"] == "declaration")
        .map(|record| record["message"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(warned.len(), 1, "one for three invocations: {warned:#?}");
    assert!(warned[0].contains("did you mean `Digits`?"), "{warned:#?}");
}
