//! The call interpreter against a scripted platform-side application: a
//! loopback router that answers fixed voice documents and records every
//! request, so that each test pins what the platform's documentation says
//! it sends (the page named beside each).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Router;
use ccfn_core::prelude::*;
use ccfn_core::runtime::{Feature, Runtime, RuntimeConfig};
use ccfn_core::signature::{validate, SignedBody, SIGNATURE_HEADER};
use ccfn_testkit::call::{Call, DialOutcome, Entry, Input, Limits, CALL_SID};
use ccfn_testkit::{FakeContext, Request};

type Seen = Arc<Mutex<Vec<Request>>>;

/// A scripted application: the document of each path (query left out),
/// an empty `<Response/>` elsewhere; every request recorded.
fn app(documents: &[(&str, &str)]) -> (Router, Seen) {
    let seen: Seen = Arc::default();
    let documents: HashMap<String, String> = documents
        .iter()
        .map(|(path, xml)| ((*path).to_owned(), format!("<Response>{xml}</Response>")))
        .collect();
    let state = (Arc::clone(&seen), Arc::new(documents));
    let router = Router::new().fallback(answer).with_state(state);
    (router, seen)
}

async fn answer(
    State((seen, documents)): State<(Seen, Arc<HashMap<String, String>>)>,
    request: axum::extract::Request,
) -> Response {
    let (parts, body) = match ccfn_testkit::__private::read(request, 1 << 20).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let request = ccfn_testkit::__private::record(&parts, body);
    let document = documents
        .get(request.path())
        .cloned()
        .unwrap_or_else(|| "<Response/>".to_owned());
    seen.lock().unwrap().push(request);
    ([("content-type", "text/xml")], document).into_response()
}

/// Every parameter of `request`: its form for a POST, its query for a GET.
fn params(request: &Request) -> HashMap<String, String> {
    if request.method() == "GET" {
        request.query_pairs().iter().cloned().collect()
    } else {
        request.form_pairs().into_iter().collect()
    }
}

/// The call's requests: all but the runtime's catalogue, which
/// `Call::new` reads for the functions' names.
fn requests(seen: &Seen) -> Vec<Request> {
    let seen = seen.lock().unwrap();
    seen.iter()
        .filter(|request| request.path() != "/__ccfn/functions")
        .cloned()
        .collect()
}

// https://www.twilio.com/docs/usage/webhooks/voice-webhooks#incoming-voice-call:
// the parameters of every request to a voice URL.
#[tokio::test]
async fn the_call_starts_with_the_platform_s_parameters_signed() {
    let (router, seen) = app(&[("/voice", "<Say>Hello</Say>")]);
    let mut call = Call::new(router)
        .await
        .auth_token("call-auth-token-0123456789")
        .from("+15557770001")
        .to("+15557770002");
    call.dial("/voice").await;
    call.hears("Hello").assert_ended();
    let requests = requests(&seen);
    assert_eq!(requests.len(), 1);
    let first = &requests[0];
    assert_eq!(first.method(), "POST");
    let params = params(first);
    for (name, value) in [
        ("CallSid", CALL_SID),
        ("AccountSid", "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
        ("From", "+15557770001"),
        ("Caller", "+15557770001"),
        ("To", "+15557770002"),
        ("Called", "+15557770002"),
        ("CallStatus", "ringing"),
        ("Direction", "inbound"),
        ("ApiVersion", "2010-04-01"),
    ] {
        assert_eq!(params.get(name).map(String::as_str), Some(value), "{name}");
    }
    let host = first.header("host").unwrap();
    let url = format!("http://{host}/voice");
    let form = first.form_pairs();
    let signature = first.header(SIGNATURE_HEADER).unwrap();
    validate(
        "call-auth-token-0123456789",
        signature,
        &url,
        &SignedBody::Form(&form),
    )
    .expect("the request is signed as the platform signs it");
    assert!(validate(
        "another-token-0000000",
        signature,
        &url,
        &SignedBody::Form(&form)
    )
    .is_err());
}

// https://www.twilio.com/docs/voice/twiml/gather#attributes: action defaults
// to the current document's URL, method to POST, finishOnKey to `#`.
#[tokio::test]
async fn gather_sends_the_digits_before_the_finish_key_to_the_current_document() {
    let (router, seen) = app(&[("/menu", "<Gather><Say>Enter your account</Say></Gather>")]);
    let mut call = Call::new(router).await;
    call.dial("/menu?step=1").await;
    call.hears("Enter your account");
    assert!(call.waiting());
    call.press("1234#9").await;
    let requests = requests(&seen);
    assert_eq!(requests.len(), 2);
    let second = &requests[1];
    assert_eq!(second.method(), "POST");
    assert_eq!(second.path(), "/menu");
    assert_eq!(second.query("step"), Some("1"));
    assert_eq!(
        params(second).get("Digits").map(String::as_str),
        Some("1234")
    );
    assert_eq!(
        params(second).get("CallStatus").map(String::as_str),
        Some("in-progress")
    );
}

// https://www.twilio.com/docs/voice/twiml/gather#numdigits and #method; a
// relative action resolves against the document's URL.
#[tokio::test]
async fn gather_stops_at_num_digits_and_uses_its_method_and_relative_action() {
    let (router, seen) = app(&[
        (
            "/ivr/menu",
            r#"<Gather numDigits="2" method="GET" action="choice?lang=en"><Say>Two digits</Say></Gather>"#,
        ),
        ("/ivr/choice", "<Say>Got it</Say>"),
    ]);
    let mut call = Call::new(router).await;
    call.dial("/ivr/menu").await;
    let before = call.seconds();
    call.press("4567").await;
    call.hears("Got it").assert_ended();
    let requests = requests(&seen);
    assert_eq!(requests[1].method(), "GET");
    assert_eq!(requests[1].path(), "/ivr/choice");
    assert_eq!(requests[1].query("lang"), Some("en"));
    assert_eq!(requests[1].query("Digits"), Some("45"));
    // Complete at numDigits: no timeout waited (only "Got it" spoken).
    assert_eq!(call.seconds() - before, 1);
}

// https://www.twilio.com/docs/voice/twiml/gather#timeout (5 s by default):
// with no input, the call falls through to the next verb.
#[tokio::test]
async fn gather_falls_through_after_its_timeout_with_no_input() {
    let (router, seen) = app(&[(
        "/menu",
        "<Gather><Say>Press a key</Say></Gather><Say>We did not get your choice</Say>",
    )]);
    let mut call = Call::new(router).await;
    call.dial("/menu").await;
    let before = call.seconds();
    call.waits(5).await;
    call.hears("We did not get your choice").assert_ended();
    assert_eq!(requests(&seen).len(), 1);
    // The 5-second timeout, then five words spoken (two a second).
    assert_eq!(call.seconds() - before, 5 + 3);
}

// https://www.twilio.com/docs/voice/twiml/gather#actiononemptyresult
#[tokio::test]
async fn action_on_empty_result_requests_the_action_without_digits() {
    let (router, seen) = app(&[(
        "/menu",
        r#"<Gather actionOnEmptyResult="true" action="/empty" timeout="3"/><Say>Unreachable</Say>"#,
    )]);
    let mut call = Call::new(router).await;
    call.dial("/menu").await;
    call.press("#").await;
    let requests = requests(&seen);
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].path(), "/empty");
    assert_eq!(params(&requests[1]).get("Digits"), None);
    assert!(!call.transcript().to_string().contains("Unreachable"));
}

// https://www.twilio.com/docs/voice/twiml/gather#input: SpeechResult and
// Confidence for speech; dtmf alone (the default) does not listen to it.
#[tokio::test]
async fn gather_sends_speech_as_speech_result_only_when_it_listens_for_speech() {
    let (router, seen) = app(&[
        ("/speech", r#"<Gather input="dtmf speech" action="/said"/>"#),
        (
            "/keys",
            r#"<Gather action="/said"/><Say>No speech here</Say>"#,
        ),
    ]);
    let mut call = Call::new(router).await;
    call.dial("/speech").await;
    call.says("support please").await;
    let said = &requests(&seen)[1];
    assert_eq!(said.path(), "/said");
    assert_eq!(
        params(said).get("SpeechResult").map(String::as_str),
        Some("support please")
    );
    assert!(params(said).contains_key("Confidence"));

    let (router, seen) = app(&[(
        "/keys",
        r#"<Gather action="/said"/><Say>No speech here</Say>"#,
    )]);
    let mut call = Call::new(router).await;
    call.dial("/keys").await;
    call.says("support").await;
    call.hears("No speech here").assert_ended();
    assert_eq!(requests(&seen).len(), 1);
}

// https://www.twilio.com/docs/voice/twiml/redirect#attributes: method
// defaults to POST; the verbs after it are not run.
#[tokio::test]
async fn redirect_posts_to_the_relative_url_and_drops_the_rest() {
    let (router, seen) = app(&[
        (
            "/a/start",
            "<Redirect>next?from=start</Redirect><Say>Never</Say>",
        ),
        ("/a/next", r#"<Redirect method="GET">/b</Redirect>"#),
        ("/b", "<Say>Arrived</Say><Hangup/>"),
    ]);
    let mut call = Call::new(router).await;
    call.dial("/a/start").await;
    call.hears("Arrived").assert_ended();
    let requests = requests(&seen);
    assert_eq!(requests[1].method(), "POST");
    assert_eq!(requests[1].path(), "/a/next");
    assert_eq!(requests[1].query("from"), Some("start"));
    assert_eq!(requests[2].method(), "GET");
    assert_eq!(requests[2].path(), "/b");
    assert!(!call.transcript().to_string().contains("Never"));
}

// https://www.twilio.com/docs/voice/twiml/record#request-parameters and
// #recordingstatuscallback; finishOnKey defaults to any key.
#[tokio::test]
async fn record_sends_the_recording_to_its_action_then_the_status_callback() {
    let (router, seen) = app(&[(
        "/vm",
        r#"<Record action="/done" recordingStatusCallback="/recorded"/>"#,
    )]);
    let mut call = Call::new(router).await;
    call.dial("/vm").await;
    call.says("hello it is me calling about my order").await;
    call.press("5").await;
    let requests = requests(&seen);
    assert_eq!(requests.len(), 3);
    let done = params(&requests[1]);
    assert_eq!(requests[1].path(), "/done");
    assert!(done["RecordingUrl"].contains("/Recordings/RE"));
    assert!(done["RecordingSid"].starts_with("RE"));
    assert_eq!(done["RecordingDuration"], "4");
    assert_eq!(done["Digits"], "5");
    let recorded = params(&requests[2]);
    assert_eq!(requests[2].path(), "/recorded");
    assert_eq!(recorded["RecordingStatus"], "completed");
    assert_eq!(recorded["RecordingSid"], done["RecordingSid"]);
    assert_eq!(recorded["RecordingUrl"], done["RecordingUrl"]);
    // The recording is served where its URL says.
    ccfn_core::http::install_crypto_provider();
    let mp3 = reqwest::get(format!("{}.mp3", done["RecordingUrl"]))
        .await
        .unwrap();
    assert_eq!(mp3.status(), 200);
    assert_eq!(
        mp3.bytes().await.unwrap().as_ref(),
        ccfn_testkit::call::RECORDING_BYTES
    );
}

// https://www.twilio.com/docs/voice/twiml/record#action: an empty
// recording requests no action and the call goes on; the caller's hang-up
// sends `Digits=hangup`.
#[tokio::test]
async fn record_with_nothing_said_goes_on_and_a_hang_up_sends_digits_hangup() {
    let (router, seen) = app(&[("/vm", r#"<Record timeout="3"/><Say>Nothing recorded</Say>"#)]);
    let mut call = Call::new(router).await;
    call.dial("/vm").await;
    call.waits(3).await;
    call.hears("Nothing recorded").assert_ended();
    assert_eq!(requests(&seen).len(), 1);

    let (router, seen) = app(&[("/vm", r#"<Record action="/done"/>"#)]);
    let mut call = Call::new(router).await;
    call.dial("/vm").await;
    call.says("call me back").await;
    call.hangs_up().await;
    call.assert_ended();
    let requests = requests(&seen);
    assert_eq!(params(&requests[1])["Digits"], "hangup");
}

// https://www.twilio.com/docs/voice/twiml/enqueue#attributes-waiturl: the
// wait URL is requested again when its document ends, with the queue's
// parameters; #attributes-action: Leave requests the action with
// QueueResult=leave.
#[tokio::test]
async fn enqueue_loops_its_wait_url_until_leave_then_requests_its_action() {
    let (router, seen) = app(&[
        (
            "/in",
            r#"<Enqueue waitUrl="/hold" action="/left" workflowSid="WW01">support</Enqueue>"#,
        ),
        ("/hold", r#"<Say>Still waiting</Say><Pause length="20"/>"#),
        ("/left", "<Say>You left the queue</Say>"),
    ]);
    let mut call = Call::new(router).await.limits(Limits {
        requests: 6,
        seconds: 3600,
    });
    call.dial("/in").await;
    let held = requests(&seen);
    // Without a verb that waits, the hold loops until the request limit.
    assert_eq!(held.len(), 6);
    let hold = params(&held[2]);
    assert_eq!(held[2].path(), "/hold");
    assert_eq!(hold["QueuePosition"], "1");
    assert!(hold["QueueSid"].starts_with("QU"));
    assert_eq!(hold["QueueTime"], "21");
    assert_eq!(hold["AvgQueueTime"], "0");
    assert!(call
        .transcript()
        .error()
        .unwrap()
        .contains("more than 6 requests"));

    let (router, seen) = app(&[
        ("/in", r#"<Enqueue waitUrl="/hold" action="/left"/>"#),
        ("/hold", "<Say>One moment</Say><Leave/>"),
        ("/left", "<Say>You left the queue</Say>"),
    ]);
    let mut call = Call::new(router).await;
    call.dial("/in").await;
    call.hears("You left the queue").assert_ended();
    let requests = requests(&seen);
    assert_eq!(requests[2].path(), "/left");
    assert_eq!(params(&requests[2])["QueueResult"], "leave");
    assert!(params(&requests[2]).contains_key("QueueTime"));
}

// https://www.twilio.com/docs/voice/twiml/enqueue#attributes-action: with
// no action the call goes on after <Enqueue>; a caller who hangs up in
// the queue sends QueueResult=hangup to the action.
#[tokio::test]
async fn enqueue_without_action_falls_through_and_a_hang_up_is_reported() {
    let (router, _) = app(&[
        (
            "/in",
            r#"<Enqueue waitUrl="/hold"/><Say>After the queue</Say>"#,
        ),
        ("/hold", "<Leave/>"),
    ]);
    let mut call = Call::new(router).await;
    call.dial("/in").await;
    call.hears("After the queue").assert_ended();

    let (router, seen) = app(&[
        ("/in", r#"<Enqueue waitUrl="/hold" action="/left"/>"#),
        (
            "/hold",
            r#"<Gather><Say>Press 1 to leave a message</Say></Gather>"#,
        ),
    ]);
    let mut call = Call::new(router).await;
    call.dial("/in").await;
    call.hears("Press 1");
    call.hangs_up().await;
    call.assert_ended();
    let last = requests(&seen).pop().unwrap();
    assert_eq!(last.path(), "/left");
    assert_eq!(params(&last)["QueueResult"], "hangup");
}

// https://www.twilio.com/docs/voice/twiml/dial#attributes-action: the
// action gets DialCallStatus, and DialCallDuration when answered.
#[tokio::test]
async fn dial_reports_its_scripted_outcome_to_its_action() {
    let documents = [
        ("/out", r#"<Dial action="/after">+15550001111</Dial>"#),
        ("/after", "<Say>Dial done</Say>"),
    ];
    let (router, seen) = app(&documents);
    let mut call = Call::new(router).await;
    call.dial("/out").await;
    call.hears("Dial done").assert_ended();
    let after = params(&requests(&seen)[1]);
    assert_eq!(after["DialCallStatus"], "completed");
    assert_eq!(after["DialCallDuration"], "30");

    let (router, seen) = app(&documents);
    let mut call = Call::new(router).await.dial_outcome(DialOutcome {
        status: "busy".to_owned(),
        seconds: 0,
    });
    call.dial("/out").await;
    let after = params(&requests(&seen)[1]);
    assert_eq!(after["DialCallStatus"], "busy");
    assert!(!after.contains_key("DialCallDuration"));
}

// https://www.twilio.com/docs/voice/api/call-resource#statuscallback: the
// call's status callback, CallStatus=completed with its CallDuration.
#[tokio::test]
async fn the_status_callback_closes_the_call_with_its_duration() {
    let (router, seen) = app(&[("/voice", r#"<Pause length="7"/><Hangup/><Say>Gone</Say>"#)]);
    let mut call = Call::new(router).await.status_callback("/status");
    call.dial("/voice").await;
    call.assert_ended();
    let last = requests(&seen).pop().unwrap();
    assert_eq!(last.path(), "/status");
    assert_eq!(params(&last)["CallStatus"], "completed");
    assert_eq!(params(&last)["CallDuration"], "7");
    assert!(!call.transcript().to_string().contains("Gone"));
}

#[tokio::test]
async fn reject_ends_the_call_and_other_verbs_are_heard_but_not_simulated() {
    let (router, _) = app(&[(
        "/voice",
        r#"<Sms>hi</Sms><Start><Stream url="wss://x"/></Start><Reject reason="busy"/><Say>Never</Say>"#,
    )]);
    let mut call = Call::new(router).await;
    call.dial("/voice").await;
    call.assert_ended();
    let entries = call.transcript().entries();
    assert!(entries.contains(&Entry::NotSimulated {
        verb: "Sms".to_owned()
    }));
    assert!(entries.contains(&Entry::NotSimulated {
        verb: "Start".to_owned()
    }));
    assert!(entries.contains(&Entry::Ended("rejected (busy)".to_owned())));
    assert!(!call.transcript().to_string().contains("Never"));
}

#[tokio::test]
async fn a_call_that_loops_in_time_is_stopped_and_says_so() {
    let (router, _) = app(&[(
        "/loop",
        r#"<Gather timeout="10"><Say>Press 1</Say></Gather><Redirect>/loop</Redirect>"#,
    )]);
    let mut call = Call::new(router).await.limits(Limits {
        requests: 10_000,
        seconds: 600,
    });
    call.dial("/loop").await;
    let started = Instant::now();
    // An hour of silence, simulated: the limit stops it at 600 s.
    call.waits(3600).await;
    assert!(started.elapsed().as_secs() < 30);
    assert!(call.ended());
    let error = call.transcript().error().unwrap();
    assert!(error.contains("past 600 simulated seconds"), "{error}");
}

#[tokio::test]
async fn a_failing_document_stops_the_call_with_the_function_s_answer() {
    let (router, _) = app(&[("/voice", "<Say>not closed")]);
    let mut call = Call::new(router).await;
    call.dial("/other").await;
    // An empty document ends the call.
    call.assert_ended();
    let (router, _) = app(&[]);
    let router = router.route(
        "/broken",
        axum::routing::post(|| async { "<Response><Say>open" }),
    );
    let mut call = Call::new(router).await;
    call.dial("/broken").await;
    assert!(call
        .transcript()
        .error()
        .unwrap()
        .starts_with("the answer is not a voice document"));
}

#[tokio::test]
async fn an_answer_too_large_to_read_stops_the_call() {
    let (router, _) = app(&[]);
    let router = router.route(
        "/huge",
        axum::routing::post(|| async { "<Response>".repeat(200_000) }),
    );
    let mut call = Call::new(router).await;
    call.dial("/huge").await;
    assert_eq!(
        call.transcript().error(),
        Some("the answer is larger than 1048576 bytes: not read")
    );
}

/// Offers a menu, and answers the choice.
///
/// # Trigger
/// Incoming call webhook and its own Gather.
/// # Optional parameters
/// Digits
/// # Dependencies
/// None.
/// # Critical logging
/// None beyond the contract.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn menu(_context: Context, event: Event, callback: Callback) -> Completion {
    let mut twiml = VoiceResponse::new();
    match event.get("Digits") {
        Some("1") => {
            twiml.say("Sales, goodbye.");
            twiml.hangup();
        }
        _ => {
            twiml.gather().num_digits(1).say("Press 1 for sales.");
            twiml.redirect("menu");
        }
    }
    callback.success(twiml)
}

#[tokio::test]
async fn a_runtime_s_invocations_are_each_captured_and_signed_requests_pass() {
    let context = FakeContext::new()
        .value("AUTH_TOKEN", "runtime-auth-token-42aa11")
        .build();
    let runtime = Runtime::new(context, RuntimeConfig::default())
        .feature(Feature::new("ivr").function("menu", menu));
    let mut call = Call::new(runtime)
        .await
        .auth_token("runtime-auth-token-42aa11");
    call.dial("/features/ivr/menu").await;
    call.hears("Press 1 for sales");
    call.waits(5).await;
    call.hears("Press 1 for sales");
    call.press("1").await;
    call.hears("Sales, goodbye.").assert_ended();
    call.assert_contract();
    assert_eq!(call.runs().len(), 3);
    insta::assert_snapshot!(call.transcript().to_string());

    // Unsigned, the runtime refuses the call: no invocation, an error.
    let context = FakeContext::new()
        .value("AUTH_TOKEN", "runtime-auth-token-42aa11")
        .build();
    let runtime = Runtime::new(context, RuntimeConfig::default())
        .feature(Feature::new("ivr").function("menu", menu));
    let mut call = Call::new(runtime).await;
    call.dial("/features/ivr/menu").await;
    assert!(call.runs().is_empty());
    assert!(
        call.transcript().error().unwrap().contains("403"),
        "{}",
        call.transcript()
    );
}

// https://www.twilio.com/docs/voice/twiml/pause#attributes: `length`
// defaults to 1 second.
#[tokio::test]
async fn pause_lasts_one_second_unless_told() {
    let (router, _) = app(&[("/voice", r#"<Pause/><Pause length="4"/>"#)]);
    let mut call = Call::new(router).await;
    call.dial("/voice").await;
    call.assert_ended();
    assert_eq!(call.seconds(), 5);
    assert!(call.transcript().to_string().contains("1 s of silence"));
}

/// Fails when asked to.
///
/// # Trigger
/// Test.
/// # Optional parameters
/// Digits
/// # Dependencies
/// None.
/// # Critical logging
/// None beyond the contract.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn fragile(_context: Context, event: Event, callback: Callback) -> Completion {
    if event.get("Digits") == Some("0") {
        return callback.error(Error::msg("the menu broke"));
    }
    let mut twiml = VoiceResponse::new();
    twiml.gather().num_digits(1).say("Press 0 to break me.");
    callback.success(twiml)
}

#[tokio::test]
async fn a_function_that_fails_stops_the_call_and_its_run_is_still_checked() {
    let runtime = Runtime::new(FakeContext::new().build(), RuntimeConfig::default())
        .feature(Feature::new("ivr").function("fragile", fragile));
    let mut call = Call::new(runtime).await;
    call.dial("/features/ivr/fragile").await;
    call.press("0").await;
    assert!(call.ended());
    assert_eq!(
        call.transcript().error(),
        Some("the function answered 500: the menu broke")
    );
    call.assert_contract();
    let runs = call.runs();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1].error_message(), Some("the menu broke"));
}

#[tokio::test]
#[should_panic(expected = "a secret value of the context appears in")]
async fn a_secret_given_to_the_call_is_checked_out_of_every_invocation_s_lines() {
    let runtime = Runtime::new(FakeContext::new().build(), RuntimeConfig::default())
        .feature(Feature::new("ivr").function("menu", menu));
    // The caller's number is logged (`caller`): as a "secret", it leaks.
    let mut call = Call::new(runtime)
        .await
        .from("+15559990000")
        .secret("+15559990000");
    call.dial("/features/ivr/menu").await;
    call.assert_contract();
}

#[tokio::test]
async fn a_call_is_driven_to_its_end_by_a_next_step_hook() {
    let runtime = Runtime::new(FakeContext::new().build(), RuntimeConfig::default())
        .feature(Feature::new("ivr").function("menu", menu));
    let mut call = Call::new(runtime).await;
    call.dial("/features/ivr/menu").await;
    let mut script = vec![Input::Wait(5), Input::Press("1".to_owned())].into_iter();
    let mut seen = Vec::new();
    call.play(|transcript| {
        seen.push(transcript.entries().len());
        script.next()
    })
    .await;
    call.assert_ended();
    assert_eq!(seen.len(), 2);
    assert!(seen[0] < seen[1]);
    assert!(call.transcript().to_string().contains("Sales, goodbye."));
}

/// Needs the caller's choice.
///
/// # Trigger
/// A menu's Gather action.
/// # Dependencies
/// None.
/// # Critical logging
/// None beyond the contract.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To, Digits])]
async fn choice(_context: Context, _event: Event, callback: Callback) -> Completion {
    callback.success(VoiceResponse::new())
}

#[tokio::test]
async fn a_missing_parameter_is_checked_against_what_the_catalogue_says_is_required() {
    let runtime = Runtime::new(FakeContext::new().build(), RuntimeConfig::default())
        .feature(Feature::new("ivr").function("choice", choice));
    let mut call = Call::new(runtime).await;
    call.dial("/features/ivr/choice").await;
    assert_eq!(
        call.transcript().error(),
        Some("the function answered 400: Missing required parameter: Digits")
    );
    // The contract's validation rule knows `Digits` is a required
    // parameter (not an environment value) from the runtime's catalogue.
    call.assert_contract();
    assert_eq!(call.runs()[0].steps()[2], "validation_error");
}

#[tokio::test]
async fn a_call_keeps_to_the_functions_host_and_follows_no_http_redirect() {
    // A document that sends the call to another host: the platform would
    // request it; the simulated call stops instead of carrying its signed
    // request there.
    let (router, seen) = app(&[("/voice", "<Redirect>http://192.0.2.1/elsewhere</Redirect>")]);
    let mut call = Call::new(router).await.auth_token("canary-redirect-token");
    call.dial("/voice").await;
    assert_eq!(
        call.transcript().error(),
        Some("the call was sent to http://192.0.2.1, not the functions' host: not requested")
    );
    assert_eq!(requests(&seen).len(), 1);

    // An HTTP redirect is an answer like any other that is not 200.
    let (router, seen) = app(&[]);
    let router = router.route(
        "/moved",
        axum::routing::post(|| async {
            (
                axum::http::StatusCode::FOUND,
                [("location", "/elsewhere")],
                "",
            )
        }),
    );
    let mut call = Call::new(router).await;
    call.dial("/moved").await;
    assert_eq!(
        call.transcript().error(),
        Some("the function answered 302: ")
    );
    assert!(requests(&seen).is_empty(), "/elsewhere was not requested");
}

#[tokio::test]
async fn a_call_plays_functions_already_served_at_a_url() {
    let (router, seen) = app(&[("/voice", "<Say>Served elsewhere</Say>")]);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    let base = reqwest::Url::parse(&base).unwrap();
    let mut call = Call::new(base)
        .await
        .call_sid("CA0123456789abcdef0123456789abcdef");
    call.dial("/voice").await;
    assert!(call.heard("Served elsewhere"));
    assert!(!call.heard("not said"));
    call.assert_ended();
    let seen = requests(&seen);
    assert_eq!(seen.len(), 1);
    assert_eq!(
        params(&seen[0])["CallSid"],
        "CA0123456789abcdef0123456789abcdef"
    );
    // Served elsewhere, the invocations are not captured.
    assert!(call.runs().is_empty());
}

#[tokio::test]
async fn a_call_whose_documents_say_too_much_is_stopped_not_held() {
    // Each answer under the 1 MiB read limit; together past what a
    // transcript holds (4 MiB).
    let words = "a".repeat(900 * 1024);
    let (router, seen) = app(&[(
        "/talk",
        &format!("<Say>{words}</Say><Redirect>/talk</Redirect>"),
    )]);
    let mut call = Call::new(router).await;
    call.dial("/talk").await;
    assert_eq!(
        call.transcript().error(),
        Some("the transcript passed 4194304 bytes: the call is stopped rather than held")
    );
    let requests = requests(&seen).len();
    assert!((4..=6).contains(&requests), "{requests} requests");
}
