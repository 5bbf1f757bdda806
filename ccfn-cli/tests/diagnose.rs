//! `ccfn diagnose` on logs the example functions wrote under the fault of
//! each branch of the decision tree.

mod common;

use ccfn_testkit::fake_api::{FakeApi, FakeResponse, Mock};
use ccfn_testkit::fake_email::{FakeAnswer, FakeEmailProvider};
use ccfn_testkit::fake_task_router::FakeTaskRouter;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};
use common::{broken, call, ccfn, local, temp_dir, text, write, Ran, WORKFLOW};
use example_contact_center::{inbound_call, voicemail_notice, wait_experience};
use serde_json::Value;

const RECORDING: &str = "RE0123456789abcdef0123456789abcdef";

/// `ccfn diagnose args.. LOG` over the runs' lines, as JSON and for a
/// person; checks that both agree on the exit status.
fn diagnose(runs: &[&Run], args: &[&str]) -> (Ran, Value, String) {
    let text: String = runs
        .iter()
        .flat_map(|r| r.lines())
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = temp_dir(&format!(
        "diagnose-{}",
        args.join("-").replace(['/', ' '], "_")
    ));
    let log = write(&dir, "app.log", &text);
    let log = log.to_str().unwrap();
    let mut json_args = vec!["diagnose", "--json"];
    json_args.extend_from_slice(args);
    json_args.push(log);
    let ran = ccfn(&json_args, None);
    let verdict: Value =
        serde_json::from_str(ran.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {ran:?}"));
    let mut human_args = vec!["diagnose"];
    human_args.extend_from_slice(args);
    human_args.push(log);
    let human = ccfn(&human_args, None);
    assert_eq!(human.code, ran.code, "{human:?}");
    // Stable for a snapshot: the runs' times and ids replaced.
    let mut stable = human.stdout.clone();
    for (n, run) in runs.iter().enumerate() {
        stable = stable.replace(run.invocation_id().as_str(), &format!("[invocation {n}]"));
        for record in run.records() {
            stable = stable.replace(text_of(record, "timestamp"), "[time]");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    (ran, verdict, stable)
}

fn text_of<'a>(record: &'a ccfn_testkit::Record, key: &str) -> &'a str {
    record[key].as_str().unwrap()
}

fn answers(verdict: &Value) -> Vec<&str> {
    verdict["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| text(&q["answer"]))
        .collect()
}

fn specifically(verdict: &Value) -> Vec<String> {
    let last = verdict["questions"].as_array().unwrap().last().unwrap();
    last["specifically"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| text(s).to_owned())
        .collect()
}

#[tokio::test]
async fn a_working_call_answers_yes_five_times() {
    let run = invoke(
        wait_experience,
        local(FakeContext::new()),
        FakeEvent::voice().param("CallSid", &call(1)),
    )
    .await;
    let (ran, verdict, human) = diagnose(&[&run], &["--call", &call(1)]);
    assert_eq!(ran.code, 0);
    assert_eq!(answers(&verdict), ["yes"; 5]);
    assert_eq!(
        verdict["action"],
        "Check result handling and callback execution."
    );
    assert_eq!(verdict["stopped_at"], Value::Null);
    insta::assert_snapshot!("all_yes", human);
}

#[tokio::test]
async fn no_invocation_for_the_function_stops_at_question_1() {
    let run = invoke(
        wait_experience,
        local(FakeContext::new()),
        FakeEvent::voice(),
    )
    .await;
    let (ran, verdict, human) = diagnose(&[&run], &["--function", "inbound-call"]);
    assert_eq!(ran.code, 1);
    assert_eq!(answers(&verdict), ["no"]);
    assert_eq!(
        verdict["action"],
        "Check the phone-number webhook configuration."
    );
    insta::assert_snapshot!("no_requests", human);
}

#[tokio::test]
async fn template_text_and_empty_values_stop_at_question_2() {
    let event = FakeEvent::voice()
        .param("CallSid", &call(2))
        .param("From", "{{trigger.call.From}}")
        .param("mode", "");
    let run = invoke(wait_experience, local(FakeContext::new()), event).await;
    let (ran, verdict, human) = diagnose(&[&run], &["--call", &call(2)]);
    assert_eq!(ran.code, 1);
    assert_eq!(answers(&verdict), ["yes", "no"]);
    assert_eq!(
        specifically(&verdict),
        [
            "`From` is template text the flow did not render: {{trigger.call.From}}",
            "`mode` was sent empty"
        ]
    );
    insta::assert_snapshot!("template_text", human);
}

#[tokio::test]
async fn a_missing_parameter_stops_at_question_2() {
    let router = FakeTaskRouter::start().await;
    let email = FakeEmailProvider::start().await;
    email.expect(0);
    let _ = router;
    let event = FakeEvent::empty()
        .param("CallSid", &call(3))
        .param("RecordingSid", RECORDING);
    let context = FakeContext::new()
        .value("VOICEMAIL_TO", "oncall@example.com")
        .value("VOICEMAIL_FROM", "voicemail@mg.example.com");
    let run = invoke(voicemail_notice, context, event).await;
    let (ran, verdict, _) = diagnose(&[&run], &["--call", &call(3)]);
    assert_eq!(ran.code, 1);
    assert_eq!(answers(&verdict), ["yes", "no"]);
    assert_eq!(
        specifically(&verdict),
        ["`RecordingUrl` is required and was not sent"]
    );
}

#[tokio::test]
async fn a_missing_environment_value_stops_at_question_3() {
    let run = invoke(
        inbound_call,
        FakeContext::new(),
        FakeEvent::voice().param("CallSid", &call(4)),
    )
    .await;
    let (ran, verdict, human) = diagnose(&[&run], &["--call", &call(4)]);
    assert_eq!(ran.code, 1);
    assert_eq!(answers(&verdict), ["yes", "yes", "no"]);
    assert_eq!(
        verdict["action"],
        "Review the required-parameter list and validation logic."
    );
    assert!(specifically(&verdict)[0].starts_with("Missing required environment variable: "));
    insta::assert_snapshot!("missing_env", human);
}

#[tokio::test]
async fn a_refused_email_key_stops_at_question_4_with_the_provider_s_hint() {
    let storage = FakeApi::start().await;
    storage.mock(
        Mock::get(format!("/recordings/{RECORDING}.mp3"))
            .respond(FakeResponse::ok().body("audio/mpeg", vec![0u8; 4096])),
    );
    let email = FakeEmailProvider::start().await;
    email.respond_with(FakeAnswer::status(401).body("Forbidden"));
    let context = FakeContext::new()
        .value("VOICEMAIL_TO", "oncall@example.com")
        .value("VOICEMAIL_FROM", "voicemail@mg.example.com")
        .value("EMAILPROVIDER_API_KEY", "canary-cli-email-key-0b93d7")
        .value("EMAILPROVIDER_BASE_URL", email.url())
        .value("RECORDINGS_BASE_URL", format!("{}/", storage.url()));
    let event = FakeEvent::empty()
        .param("CallSid", &call(5))
        .param("From", "+15551230000")
        .param("RecordingSid", RECORDING)
        .param(
            "RecordingUrl",
            &format!("{}/recordings/{RECORDING}", storage.url()),
        );
    let run = invoke(voicemail_notice, context, event).await;
    let (ran, verdict, _) = diagnose(&[&run], &["--call", &call(5)]);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(answers(&verdict), ["yes", "yes", "yes", "no"]);
    assert_eq!(
        verdict["action"],
        "Check credentials and network connectivity."
    );
    let said = specifically(&verdict).join("\n");
    assert!(said.contains("answered 401: Forbidden"), "{said}");
    assert!(said.contains("not the private account key"), "{said}");
    assert!(
        !ran.stdout.contains("canary-cli-email-key"),
        "no secret in the verdict"
    );
}

#[tokio::test]
async fn a_failing_task_router_stops_at_question_4_with_status_and_url() {
    let router = FakeTaskRouter::start().await.fail_with(
        500,
        r#"{"code": 20500, "message": "Internal Server Error", "status": 500}"#,
    );
    let context = FakeContext::new()
        .value("AUTH_TOKEN", "canary-cli-auth-token-61f0a2")
        .value("workflowSid", WORKFLOW)
        .value("TASKROUTER_BASE_URL", router.base_url());
    let event = FakeEvent::voice()
        .param("CallSid", &call(8))
        .mode("callback");
    let run = invoke(wait_experience, context, event).await;
    let (ran, verdict, human) = diagnose(&[&run], &["--call", &call(8)]);
    assert_eq!(ran.code, 1);
    assert_eq!(answers(&verdict), ["yes", "yes", "yes", "no"]);
    let said = specifically(&verdict);
    assert!(
        said[0].starts_with(&format!("GET {}/", router.base_url())),
        "{said:?}"
    );
    assert!(said[0].contains(" answered 500: "), "{said:?}");
    assert!(
        said.iter().any(|s| s.contains("cause `lookup_failed`")),
        "{said:?}"
    );
    assert!(
        !human.contains("canary-cli-auth-token"),
        "no secret in the verdict"
    );
}

#[tokio::test]
async fn an_unreachable_recording_stops_at_question_4() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://{}/recordings/{RECORDING}",
        closed.local_addr().unwrap()
    );
    drop(closed);
    let email = FakeEmailProvider::start().await;
    let context = FakeContext::new()
        .value("VOICEMAIL_TO", "oncall@example.com")
        .value("VOICEMAIL_FROM", "voicemail@mg.example.com")
        .value("EMAILPROVIDER_API_KEY", "canary-cli-email-key-0b93d7")
        .value("EMAILPROVIDER_BASE_URL", email.url())
        .value(
            "RECORDINGS_BASE_URL",
            url.replace(&format!("recordings/{RECORDING}"), ""),
        );
    let event = FakeEvent::empty()
        .param("CallSid", &call(9))
        .param("RecordingSid", RECORDING)
        .param("RecordingUrl", &url);
    let run = invoke(voicemail_notice, context, event).await;
    let (ran, verdict, _) = diagnose(&[&run], &["--call", &call(9)]);
    assert_eq!(ran.code, 1);
    assert_eq!(answers(&verdict), ["yes", "yes", "yes", "no"]);
    let said = specifically(&verdict);
    assert!(
        said[0].contains("failed: the connection was refused"),
        "{said:?}"
    );
}

#[tokio::test]
async fn a_deleted_workflow_stops_at_question_5_with_its_cause() {
    let router = FakeTaskRouter::start().await;
    let context = FakeContext::new()
        .value("AUTH_TOKEN", "canary-cli-auth-token-61f0a2")
        .value("workflowSid", WORKFLOW)
        .value("TASKROUTER_BASE_URL", router.base_url());
    let event = FakeEvent::voice()
        .param("CallSid", &call(6))
        .mode("callback");
    let run = invoke(wait_experience, context, event).await;
    let (ran, verdict, human) = diagnose(&[&run], &["--call", &call(6)]);
    assert_eq!(ran.code, 1);
    assert_eq!(answers(&verdict), ["yes", "yes", "yes", "yes", "no"]);
    assert_eq!(
        verdict["action"],
        "Review function logic and error handling."
    );
    let said = specifically(&verdict).join("\n");
    assert!(said.contains("`workflow_deleted`"), "{said}");
    insta::assert_snapshot!("workflow_deleted", human);
}

#[tokio::test]
async fn logs_that_cannot_answer_exit_2() {
    let run = invoke(
        wait_experience,
        local(FakeContext::new()),
        FakeEvent::voice().param("CallSid", &call(7)),
    )
    .await;
    // Cut off before its end.
    let cut: Vec<String> = run
        .lines()
        .iter()
        .filter(|l| !l.contains(r#""step":"end""#))
        .cloned()
        .collect();
    let dir = temp_dir("diagnose-cut");
    let log = write(&dir, "app.log", &(cut.join("\n") + "\n"));
    let ran = ccfn(&["diagnose", "--json", log.to_str().unwrap()], None);
    assert_eq!(ran.code, 2, "{ran:?}");
    let verdict: Value = serde_json::from_str(ran.stdout.trim()).unwrap();
    assert_eq!(answers(&verdict), ["yes", "yes", "yes", "yes", "unknown"]);
    // Nothing in the window.
    let later = ccfn(
        &["diagnose", "--since", "2999-01-01", log.to_str().unwrap()],
        None,
    );
    assert_eq!(later.code, 2);
    assert!(later.stdout.contains("cannot answer"), "{}", later.stdout);
    let none = ccfn(&["diagnose"], Some(b"START RequestId: 1\n"));
    assert_eq!(none.code, 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_panic_stops_at_question_5_with_its_message() {
    let run = invoke(
        broken,
        FakeContext::new(),
        FakeEvent::voice().param("CallSid", &call(10)),
    )
    .await;
    let (ran, verdict, _) = diagnose(&[&run], &["--call", &call(10)]);
    assert_eq!(ran.code, 1);
    assert_eq!(answers(&verdict), ["yes", "yes", "yes", "yes", "no"]);
    let said = specifically(&verdict);
    assert!(
        said[0].starts_with("panic: function panicked: an agent in the queue"),
        "{said:?}"
    );
}

#[test]
fn hostile_logs_are_judged_within_bounds_that_say_what_they_gave_up() {
    // Six invocations that never end, each with a 64 KiB error, and a line
    // over the limit among them.
    let long_error = "E".repeat(64 * 1024);
    let mut log = String::new();
    for n in 0..6 {
        let stamp = format!("2026-11-21T21:01:{n:02}.000Z");
        let id = format!("never-{n}");
        log.push_str(&format!(
            r#"{{"timestamp":"{stamp}","level":"INFO","function":"wait-experience","invocation_id":"{id}","step":"start","message":"m","event":{{"CallSid":"CA1"}}}}"#
        ));
        log.push('\n');
        log.push_str(&format!(
            r#"{{"timestamp":"{stamp}","level":"ERROR","function":"wait-experience","invocation_id":"{id}","step":"error","message":"m","kind":"panic","error":"{long_error}"}}"#
        ));
        log.push('\n');
        if n == 2 {
            log.push_str(&"x".repeat(200 * 1024));
            log.push('\n');
        }
    }
    let args = [
        "diagnose",
        "--json",
        "--max-open-invocations",
        "4",
        "--max-line-bytes",
        "131072",
    ];
    let ran = ccfn(&args, Some(log.as_bytes()));
    assert_eq!(ran.code, 1, "{ran:?}");
    let verdict: Value = serde_json::from_str(ran.stdout.trim()).unwrap();
    assert_eq!(verdict["invocations"], 4);
    assert_eq!(
        verdict["given_up"],
        serde_json::json!({
            "lines_too_long": 1,
            "invocations": 2,
            "records_of_those_invocations": 4,
            "records_past_the_bound": 0,
        })
    );
    let five = &verdict["questions"][4];
    assert_eq!(
        (five["number"].as_u64(), text(&five["answer"])),
        (Some(5), "no")
    );
    let evidence = five["evidence"].as_array().unwrap();
    let ids: Vec<&str> = evidence.iter().map(|e| text(&e["invocation_id"])).collect();
    assert_eq!(ids, ["never-2", "never-3", "never-4", "never-5"]);
    for e in evidence {
        let says = text(&e["says"]);
        assert!(says.starts_with("panic: EEE"), "{says}");
        assert!(says.ends_with("… (cut: 65536 bytes)"), "{says}");
        assert!(says.len() < 1100, "{}", says.len());
    }
    assert_eq!(
        ran.stderr,
        "ccfn diagnose: skipped 1 line longer than 128 KiB (--max-line-bytes)\n\
         ccfn diagnose: gave up the 2 oldest invocations (4 records) unjudged: more than 4 at once (--max-open-invocations) or more than 32 MiB of records\n"
    );
    let human_args: Vec<&str> = args.iter().copied().filter(|a| *a != "--json").collect();
    let human = ccfn(&human_args, Some(log.as_bytes()));
    assert!(
        human.stdout.starts_with(
            "Diagnosis of every function: 4 invocations read\n\
             Not judged, for want of memory: 2 older invocations, 4 records (see stderr)\n"
        ),
        "{}",
        human.stdout
    );
}
