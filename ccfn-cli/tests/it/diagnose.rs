//! `ccfn diagnose` on logs the example functions wrote under the fault of
//! each branch of the decision tree.

use crate::common;

use ccfn_testkit::fake_api::{FakeApi, Mock};
use ccfn_testkit::fake_email::FakeEmailProvider;
use ccfn_testkit::fake_task_router::FakeTaskRouter;
use ccfn_testkit::FakeResponse;
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
    email.fail_with(FakeResponse::status(401).body("text/plain", "Forbidden"));
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
    let router = FakeTaskRouter::start().await;
    router.fail_with(FakeResponse::status(500).body(
        "application/json",
        r#"{"code": 20500, "message": "Internal Server Error", "status": 500}"#,
    ));
    let context = FakeContext::new()
        .value("AUTH_TOKEN", "canary-cli-auth-token-61f0a2")
        .value("workflowSid", WORKFLOW)
        .value("TASKROUTER_BASE_URL", router.url());
    let event = FakeEvent::voice()
        .param("CallSid", &call(8))
        .mode("callback");
    let run = invoke(wait_experience, context, event).await;
    let (ran, verdict, human) = diagnose(&[&run], &["--call", &call(8)]);
    assert_eq!(ran.code, 1);
    assert_eq!(answers(&verdict), ["yes", "yes", "yes", "no"]);
    let said = specifically(&verdict);
    assert!(
        said[0].starts_with(&format!("GET {}/", router.url())),
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
        .value("TASKROUTER_BASE_URL", router.url());
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

/// Control sequences in what the records hold (a parameter's value, the
/// function's name, an error, as a log written by another hand can carry
/// them, JSON-escaped): the verdict shows them escaped, for a person and
/// as JSON, and no raw control character reaches the terminal.
#[tokio::test]
async fn control_characters_in_the_evidence_are_shown_escaped() {
    let event = FakeEvent::voice()
        .param("CallSid", &call(9))
        .param("From", "{{trigger.call.From}}")
        .param("mode", "");
    let run = invoke(wait_experience, local(FakeContext::new()), event).await;
    let osc = r"\u001b]52;c;aGk=\u0007";
    let text: String = run
        .lines()
        .iter()
        .map(|line| {
            line.replace(
                "{{trigger.call.From}}",
                &format!("{{{{trigger.call.From}}}}{osc}\\u009b2J\\u007f"),
            )
            .replace(
                "\"function\":\"wait-experience\"",
                &format!("\"function\":\"wait-experience{osc}\""),
            ) + "\n"
        })
        .collect();
    assert!(text.contains(osc), "{text}");
    let dir = temp_dir("diagnose-hostile");
    let log = write(&dir, "app.log", &text);
    let log = log.to_str().unwrap();
    for args in [
        &["diagnose", log][..],
        &["diagnose", "--json", log],
        &["diagnose", "--call", &call(9), log],
    ] {
        let ran = ccfn(args, None);
        assert_eq!(ran.code, 1, "{args:?}: {ran:?}");
        for out in [&ran.stdout, &ran.stderr] {
            let raw: Vec<char> = out
                .chars()
                .filter(|c| c.is_control() && *c != '\n')
                .collect();
            assert!(raw.is_empty(), "{args:?}: {raw:?} in {out}");
        }
        if args.contains(&"--json") {
            let verdict: Value = serde_json::from_str(ran.stdout.trim()).unwrap();
            let shown = specifically(&verdict).join("\n");
            assert!(
                shown.contains("{{trigger.call.From}}\u{1b}]52;c;aGk=\u{7}\u{9b}2J\u{7f}"),
                "{shown}"
            );
        } else {
            assert!(
                ran.stdout
                    .contains(r"{{trigger.call.From}}\x1b]52;c;aGk=\x07\u{9b}2J\x7f"),
                "{}",
                ran.stdout
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The raw control characters of `text` but newline.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| c.is_control() && *c != '\n')
        .collect()
}

/// Runs `ccfn args..` with `vars` set and the platform's other
/// credentials unset: exit status, stdout, stderr.
async fn ccfn_with(vars: Vec<(&'static str, String)>, args: &[&str]) -> (i32, String, String) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_ccfn"));
    command
        .args(args)
        .env_remove("API_KEY_SID")
        .env_remove("API_KEY_SECRET")
        .env_remove("PLATFORM_WORKSPACE_SID")
        .envs(vars);
    let output = command.output().await.unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Control sequences in the platform's answers (a call's fields, an
/// error's message) and in a function's answer body: `ccfn calls`,
/// `ccfn doctor` and `ccfn probe` show them escaped, never raw.
#[tokio::test]
async fn control_characters_from_the_platform_and_endpoints_are_shown_escaped() {
    use ccfn_support::fake_platform::{platform_error, FakePlatform, Resource, ACCOUNT_SID};
    const OSC: &str = "\u{1b}]52;c;aGk=\u{7}";
    let sid = "CAe5c0000000000000000000000000000f";
    let fake = FakePlatform::start()
        .await
        .with_credentials(ACCOUNT_SID, "canary-hostile-token-2a4c")
        .with(
            Resource::Calls,
            serde_json::json!({
                "sid": sid,
                "account_sid": ACCOUNT_SID,
                "status": format!("completed{OSC}"),
                "direction": "inbound",
                "from": "+15551230000\u{1b}[2J",
                "to": "+15559870000\u{9b}2J",
                "start_time": "Fri, 20 Nov 2026 10:00:00 +0000",
                "end_time": "Fri, 20 Nov 2026 10:01:00 +0000",
                "duration": "60",
                "answered_by": null,
                "parent_call_sid": null,
            }),
        );
    let check = |what: &str, (_, stdout, stderr): &(i32, String, String)| {
        for out in [stdout, stderr] {
            let raw = raw_controls(out);
            assert!(raw.is_empty(), "{what}: {raw:?} in {out}");
            assert!(!out.contains("canary-hostile-token-2a4c"), "{what}: {out}");
        }
    };
    // The call's fields, in the list, one call, and the doctor's report.
    let list = ccfn_with(fake.vars(), &["calls", "list"]).await;
    check("calls list", &list);
    // A table's cells hold no control character at all.
    assert!(list.1.contains("completed ]52;c;aGk="), "{}", list.1);
    let json = ccfn_with(fake.vars(), &["calls", "list", "--json"]).await;
    check("calls list --json", &json);
    assert!(json.1.contains(r"\u001b]52;c;aGk=\u0007"), "{}", json.1);
    let doctor = ccfn_with(fake.vars(), &["doctor", "--call", sid]).await;
    check("doctor", &doctor);
    assert!(
        doctor.1.contains(r"completed\x1b]52;c;aGk=\x07"),
        "{}{}",
        doctor.1,
        doctor.2
    );
    let doctor = ccfn_with(fake.vars(), &["doctor", "--call", sid, "--json"]).await;
    check("doctor --json", &doctor);
    serde_json::from_str::<Value>(&doctor.1).unwrap_or_else(|e| panic!("{e}: {}", doctor.1));
    // The platform's error message.
    fake.fail_with(platform_error(
        400,
        &format!("Bad request{OSC}\u{1b}[2J\nforged line"),
    ));
    for args in [&["calls", "list"][..], &["doctor", "--call", sid]] {
        let failed = ccfn_with(fake.vars(), args).await;
        check(&args.join(" "), &failed);
        assert!(
            format!("{}{}", failed.1, failed.2).contains(r"Bad request\x1b]52;c;aGk=\x07\x1b[2J"),
            "{args:?}: {failed:?}"
        );
    }
    // What ccfn asked, as the platform's definitions allow.
    fake.assert_requests_conform();

    // A function's answer, body and headers.
    let endpoint = FakeApi::start().await;
    endpoint.mock(
        Mock::any("/features/x").respond(
            FakeResponse::status(500)
                .header("x-trace", "t\u{1b}]52;c;aGk=")
                .text(format!("<Response>{OSC}\u{9b}2J\u{7f}</Response>")),
        ),
    );
    let url = format!("{}/features/x", endpoint.url());
    let probe = ccfn_with(Vec::new(), &["probe", &url]).await;
    check("probe", &probe);
    assert!(
        probe.1.contains(r"\x1b]52;c;aGk=\x07\u{9b}2J\x7f"),
        "{}{}",
        probe.1,
        probe.2
    );
    let probe = ccfn_with(Vec::new(), &["probe", "--json", &url]).await;
    check("probe --json", &probe);
    serde_json::from_str::<Value>(&probe.1).unwrap_or_else(|e| panic!("{e}: {}", probe.1));
}

/// The caller's menu choice, as a typed event.
#[derive(Debug, serde::Deserialize)]
struct Menu {
    #[serde(rename = "Digits")]
    digits: u8,
}

/// Reads the caller's menu choice as a number: a value that is not one is
/// a validation error the handler passes on.
///
/// # Trigger
/// Studio "Run Function" widget.
/// # Optional parameters
/// Digits
/// # Dependencies
/// None
/// # Critical logging
/// None
/// # Contacts
/// contact-center-oncall@example.com
#[ccfn_core::contact_fn(required = [CallSid], kind = generic)]
async fn menu_choice(
    _context: ccfn_core::Context,
    event: ccfn_core::Event,
    callback: ccfn_core::Callback,
) -> Result<ccfn_core::Completion, ccfn_core::Error> {
    let menu: Menu = event.parse()?;
    Ok(callback.success(serde_json::json!({ "choice": menu.digits })))
}

#[tokio::test]
async fn a_value_present_but_invalid_stops_at_question_3() {
    let event = FakeEvent::empty()
        .param("CallSid", &call(20))
        .param("Digits", "two");
    let run = invoke(menu_choice, FakeContext::new(), event).await;
    let (ran, verdict, _) = diagnose(&[&run], &["--call", &call(20)]);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(answers(&verdict), ["yes", "yes", "no"]);
    assert_eq!(
        verdict["action"],
        "Review the required-parameter list and validation logic."
    );
    assert_eq!(
        specifically(&verdict),
        ["Invalid parameter Digits: invalid digit found in string"]
    );
}

#[tokio::test]
async fn a_parameter_the_handler_requires_and_was_not_sent_stops_at_question_2() {
    let event = FakeEvent::empty().param("CallSid", &call(21));
    let run = invoke(menu_choice, FakeContext::new(), event).await;
    let (ran, verdict, _) = diagnose(&[&run], &["--call", &call(21)]);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(answers(&verdict), ["yes", "no"]);
    assert_eq!(
        specifically(&verdict),
        ["`Digits` is required and was not sent"]
    );
}

/// The voicemail notice for call `n`, its recording `bytes` long, the
/// email provider's limit `max_bytes`.
async fn notice(n: u32, bytes: usize, max_bytes: &str) -> (Run, FakeEmailProvider) {
    let storage = FakeApi::start().await;
    storage.mock(
        Mock::get(format!("/recordings/{RECORDING}.mp3"))
            .respond(FakeResponse::ok().body("audio/mpeg", vec![0u8; bytes])),
    );
    let email = FakeEmailProvider::start().await;
    let context = FakeContext::new()
        .value("VOICEMAIL_TO", "oncall@example.com")
        .value("VOICEMAIL_FROM", "voicemail@mg.example.com")
        .value("EMAILPROVIDER_API_KEY", "canary-cli-email-key-0b93d7")
        .value("EMAILPROVIDER_BASE_URL", email.url())
        .value("EMAILPROVIDER_MAX_BYTES", max_bytes)
        .value("RECORDINGS_BASE_URL", format!("{}/", storage.url()));
    let event = FakeEvent::empty()
        .param("CallSid", &call(n))
        .param("From", "+15551230000")
        .param("RecordingSid", RECORDING)
        .param(
            "RecordingUrl",
            &format!("{}/recordings/{RECORDING}", storage.url()),
        );
    (invoke(voicemail_notice, context, event).await, email)
}

#[tokio::test]
async fn an_attachment_over_the_limit_is_question_3_not_a_failed_external_call() {
    // The recording downloads; the message with it is over the limit the
    // email client checks before sending: nothing was sent.
    let (run, email) = notice(22, 4096, "1000").await;
    assert!(email.requests().is_empty(), "nothing sent");
    let (ran, verdict, _) = diagnose(&[&run], &["--call", &call(22)]);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(answers(&verdict), ["yes", "yes", "no"]);
    let said = specifically(&verdict);
    assert_eq!(
        said.len(),
        1,
        "the email_error and the error say it once: {said:?}"
    );
    assert!(
        said[0].starts_with("email not sent: attachments total 4096 bytes"),
        "{said:?}"
    );
}

#[tokio::test]
async fn a_recording_linked_by_design_is_no_failed_external_call() {
    // Over the attachment cap: the download stops at the cap, and the
    // notice links the recording instead, and succeeds.
    let over = usize::try_from(example_contact_center::ATTACH_MAX_BYTES).unwrap() + 1;
    let (run, email) = notice(23, over, "26214400").await;
    assert_eq!(email.requests().len(), 1, "the notice was sent");
    assert!(
        run.record("api_error")
            .is_some_and(|r| r.contains_key("max_response_bytes")),
        "the download was cut at the cap"
    );
    let (ran, verdict, _) = diagnose(&[&run], &["--call", &call(23)]);
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(answers(&verdict), ["yes"; 5]);
}
