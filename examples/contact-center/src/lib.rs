//! The functions of a contact center, written with ccfn: the queue wait
//! experience that offers voicemail and a callback, the voicemail notice
//! that emails the team, and the inbound call that hands the caller to the
//! task router.
//!
//! Run with `cargo run -p example-contact-center`: the local runtime serves
//! them on `http://127.0.0.1:3001`. With no credentials, email goes to a
//! local outbox folder and tasks to a local task store; with the email
//! provider's key and the platform's credentials, to the real services.

use ccfn_core::email::{Attachment, EmailMessage};
use ccfn_core::http::is_within;
use ccfn_core::prelude::*;
use ccfn_core::runtime::{Feature, Mode, Runtime};
use ccfn_core::taskrouter::{NewTask, Task, TaskRouterError, CALLER_MESSAGE};
use ccfn_core::voice::{GatherInput, Method};
use ccfn_core::ErrorKind;
use serde_json::json;

/// The feature of the wait experience and the voicemail notice.
pub const FEATURE: &str = "callback-and-voicemail-with-email";
/// The feature of the inbound call.
pub const INBOUND: &str = "inbound-call";

/// The path of the wait experience.
pub const WAIT_URL: &str = "/features/callback-and-voicemail-with-email/studio/wait-experience";
/// The path of the voicemail notice.
pub const NOTICE_URL: &str =
    "/features/callback-and-voicemail-with-email/voicemail/recording-complete";

/// The values the examples run with in local mode when the environment
/// does not set them: a local workspace and workflow, and the team's
/// addresses. Placeholders, for local mode only: in production mode
/// [`server_context`] refuses to start without the real values.
pub const LOCAL_DEFAULTS: [(&str, &str); 4] = [
    (
        "PLATFORM_WORKSPACE_SID",
        "WSlocal0000000000000000000000000000",
    ),
    ("workflowSid", "WWlocal0000000000000000000000000000"),
    ("VOICEMAIL_TO", "contact-center-team@example.com"),
    ("VOICEMAIL_FROM", "voicemail@example.com"),
];

/// What each value of [`LOCAL_DEFAULTS`] is for, in the same order: the
/// production error names each missing one with it.
pub const REQUIRED_IN_PRODUCTION: [(&str, &str); 4] = [
    (
        "PLATFORM_WORKSPACE_SID",
        "the task-routing workspace (WS...) the wait experience and the inbound call create tasks in",
    ),
    (
        "workflowSid",
        "the workflow (WW...) that routes callback and inbound-call tasks to a queue",
    ),
    (
        "VOICEMAIL_TO",
        "who the voicemail notice emails, addresses separated by commas",
    ),
    (
        "VOICEMAIL_FROM",
        "the voicemail notice's sender, an address of the email provider's sending domain",
    ),
];

/// The context the example server runs with: the values `env` sets (the
/// process environment over `.env`), and, in local mode, the placeholders
/// of [`LOCAL_DEFAULTS`] for those it does not.
///
/// # Errors
/// In production mode, one of [`REQUIRED_IN_PRODUCTION`] is unset or
/// blank: kind `Configuration`, one line per missing value saying what it
/// is for. A value of `env` that cannot be used.
pub fn server_context(env: &ccfn_core::config::Env, mode: Mode) -> Result<Context, Error> {
    let mut context = Context::from_source(env)?;
    if mode == Mode::Production {
        let missing: Vec<String> = REQUIRED_IN_PRODUCTION
            .iter()
            .filter(|(name, _)| !context.is_present(name))
            .map(|(name, what)| format!("{name}: {what}"))
            .collect();
        if !missing.is_empty() {
            return Err(Error::new(
                ErrorKind::Configuration,
                format!(
                    "cannot start in production mode without the examples' own settings (their placeholders are for local mode only):\n  {}",
                    missing.join("\n  ")
                ),
            ));
        }
        return Ok(context);
    }
    for (name, value) in LOCAL_DEFAULTS {
        context = context.with_default(name, value);
    }
    Ok(context)
}

/// A recording of at most this many bytes is attached to the notice;
/// a longer one is linked. The size is what the recording host sends
/// (its `Content-Length`, and the bytes as they arrive), never the
/// duration the request claims: the download stops at this cap.
pub const ATTACH_MAX_BYTES: u64 = 5 * 1024 * 1024;

/// Every example function, under its feature and path.
pub fn runtime(runtime: Runtime) -> Runtime {
    runtime
        .feature(
            Feature::new(FEATURE)
                .function("studio/wait-experience", wait_experience)
                .function("voicemail/recording-complete", voicemail_notice),
        )
        .feature(Feature::new(INBOUND).function("calls/enqueue", inbound_call))
}

/// Queue wait experience: offers voicemail or a callback while the caller
/// waits.
///
/// Without `mode`, the caller hears the hold message and a menu (1 for
/// voicemail, 2 for a callback), looping back to itself until the caller
/// chooses. `mode=voicemail` records a message whose
/// recording is emailed to the team by the voicemail notice;
/// `mode=callback` creates a callback task through the task router. When
/// an option cannot be served the caller hears "Option not available at
/// this time" and the `task_error` record says why.
///
/// # Trigger
/// Studio "Run Function" widget on the queue's wait URL, and the menu's
/// own Gather action.
/// # Optional parameters
/// mode (`voicemail`, `callback`), Digits, FlowSid, ExecutionSid, StepSid
/// # Optional environment
/// CALLBACK_QUEUE_SID: the queue callback tasks must land in, checked
/// # Dependencies
/// Task router (callback task); the voicemail notice emails the recording
/// # Critical logging
/// Task creation result
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = [PLATFORM_WORKSPACE_SID, "workflowSid"])]
pub async fn wait_experience(context: Context, event: Event, callback: Callback) -> Completion {
    let mode = match (event.mode(), event.get("Digits")) {
        (_, Some("1")) => "voicemail",
        (_, Some("2")) => "callback",
        (mode, _) => mode,
    };
    let mut twiml = VoiceResponse::new();
    match mode {
        "voicemail" => {
            twiml.say(
                "Please leave a message after the beep. Press the pound key when you are done.",
            );
            let from = event.from().unwrap_or_default();
            let notice = format!(
                "{NOTICE_URL}?From={}",
                form_urlencoded::byte_serialize(from.as_bytes()).collect::<String>()
            );
            twiml
                .record()
                .action(format!("{WAIT_URL}?mode=voicemail-done"))
                .method(Method::Post)
                .max_length(120)
                .play_beep(true)
                .finish_on_key("#")
                .recording_status_callback(notice);
        }
        "voicemail-done" => {
            twiml.say("Thank you. Your message has been recorded. Goodbye.");
            twiml.hangup();
        }
        "callback" => match request_callback(&context, &event).await {
            Ok(_) => {
                twiml.say("Thank you. An agent will call you back at this number as soon as possible. Goodbye.");
                twiml.hangup();
            }
            Err(error) => {
                error.log();
                twiml.say(CALLER_MESSAGE);
                twiml.redirect(WAIT_URL).method(Method::Post);
            }
        },
        _ => {
            let gather = twiml.gather();
            gather
                .input(GatherInput::Dtmf)
                .num_digits(1)
                .timeout(5)
                .action(WAIT_URL)
                .method(Method::Post);
            gather.say(
                "All of our agents are busy. Press 1 to leave a voicemail, or 2 to request a callback.",
            );
            twiml.say("Please hold. An agent will be with you shortly.");
        }
    }
    twiml.mark_built();
    if twiml.enqueued().is_none() && matches!(mode, "initial" | "debug") {
        // The menu loops until the caller chooses or an agent answers.
        twiml.redirect(WAIT_URL).method(Method::Post);
    }
    callback.success(twiml)
}

/// Creates the callback task in the configured workflow, after checking
/// that the workflow can take it.
async fn request_callback(context: &Context, event: &Event) -> Result<Task, TaskRouterError> {
    let router = context.task_router().map_err(TaskRouterError::Lookup)?;
    let workflow_sid = context.required("workflowSid");
    let workflow = router.active_workflow(workflow_sid).await?;
    let attributes = json!({
        "type": "callback",
        "call_sid": event.call_sid(),
        "from": event.from(),
        "to": event.to(),
        "flow_sid": event.flow_sid(),
    });
    let mut task = NewTask::new(workflow.sid.clone(), attributes)
        .priority(10)
        .timeout(24 * 60 * 60)
        .task_channel("voice");
    if let Some(queue) = context.get("CALLBACK_QUEUE_SID") {
        task = task.expect_queue(queue);
    }
    router.create_task(&task).await
}

/// Voicemail notice: emails a new voicemail to the team, with the
/// recording attached when it is small enough and linked otherwise.
///
/// The recording is downloaded with the account's credentials only from
/// the platform's recordings URL (`RECORDINGS_BASE_URL`, default
/// `https://api.twilio.com/`, compared by scheme, host, port and path
/// segments), never from another `RecordingUrl` host.
///
/// # Trigger
/// Recording status callback of the wait experience's Record verb.
/// # Optional parameters
/// From, RecordingDuration, RecordingStatus
/// # Optional environment
/// RECORDINGS_BASE_URL (default `https://api.twilio.com/`)
/// # Dependencies
/// Email provider; the platform's recording storage
/// # Critical logging
/// Email send result
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(
    required = [CallSid, RecordingSid, RecordingUrl],
    env = ["VOICEMAIL_TO", "VOICEMAIL_FROM"],
    kind = email
)]
pub async fn voicemail_notice(
    context: Context,
    event: Event,
    callback: Callback,
) -> Result<Completion, Error> {
    let caller = event.from().unwrap_or("an unknown number");
    let url = event.required(params::RecordingUrl);
    let seconds: u64 = event
        .get("RecordingDuration")
        .and_then(|d| d.parse().ok())
        .unwrap_or(0);
    let mut text = format!(
        "New voicemail from {caller} ({seconds} s), call {}.\n",
        event.call_sid().unwrap_or_default()
    );
    let mut message = EmailMessage::new(context.required("VOICEMAIL_FROM"))
        .to_all(
            context
                .required("VOICEMAIL_TO")
                .split(',')
                .map(str::trim)
                .filter(|to| !to.is_empty()),
        )
        .subject(format!("New voicemail from {caller}"));
    let attached = match download_recording(&context, url).await {
        Ok(bytes) => {
            let name = format!("{}.mp3", event.required(params::RecordingSid));
            message = message.attach(Attachment::new(name, "audio/mpeg", bytes));
            true
        }
        Err(error) => {
            tracing::warn!(error = %error, "the recording could not be downloaded; linking it instead");
            false
        }
    };
    if attached {
        text.push_str("The recording is attached.\n");
    } else {
        text.push_str(&format!("Listen to the recording: {url}.mp3\n"));
    }
    let sent = context.email()?.send(&message.text(text)).await?;
    Ok(callback.success(json!({ "email_id": sent.id, "attached": attached })))
}

/// Where the platform serves recordings: the account's credentials go to
/// no other host (`RECORDINGS_BASE_URL` changes it).
pub const RECORDINGS_BASE_URL: &str = "https://api.twilio.com/";

/// The recording's MP3, at most [`ATTACH_MAX_BYTES`], with the account's
/// credentials when they are set and the recording is within the
/// platform's recordings URL (same scheme, host and port, path under it).
async fn download_recording(context: &Context, url: &str) -> Result<Vec<u8>, Error> {
    let url = format!("{url}.mp3");
    let mut request = context
        .http()?
        .get(url.as_str())
        .max_response_bytes(ATTACH_MAX_BYTES);
    let platform = context
        .get("RECORDINGS_BASE_URL")
        .unwrap_or(RECORDINGS_BASE_URL);
    if let (true, Some(account), Some(token)) = (
        is_within(platform, &url),
        context.account_sid(),
        context.secret("AUTH_TOKEN"),
    ) {
        request = request.basic_auth(account, token);
    }
    let response = request.send().await?;
    if !response.is_success() {
        return Err(Error::msg(format!(
            "the recording answered status {}",
            response.status()
        )));
    }
    Ok(response.body().to_vec())
}

/// Inbound call: puts the caller in the task router's queue through the
/// configured workflow, with the call's details as task attributes, and
/// plays the wait experience meanwhile.
///
/// # Trigger
/// Incoming call webhook of the contact center's number.
/// # Optional parameters
/// Language (defaults to `DEFAULT_LANGUAGE`, else en-US), FlowSid
/// # Optional environment
/// DEFAULT_LANGUAGE
/// # Dependencies
/// Task router (through the Enqueue verb)
/// # Critical logging
/// Task routing configuration (workflow, queue)
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = [PLATFORM_WORKSPACE_SID, "workflowSid"])]
pub async fn inbound_call(context: Context, event: Event, callback: Callback) -> Completion {
    let language = event
        .get("Language")
        .or_else(|| context.get("DEFAULT_LANGUAGE"))
        .unwrap_or("en-US");
    let attributes = json!({
        "type": "inbound_call",
        "caller": event.from(),
        "called": event.to(),
        "call_sid": event.call_sid(),
        "language": language,
    });
    let mut twiml = VoiceResponse::new();
    twiml.say("Thank you for calling. Please hold while we find an agent.");
    twiml.mark_built();
    let enqueue = twiml.enqueue();
    enqueue
        .workflow_sid(context.required("workflowSid"))
        .wait_url(WAIT_URL)
        .wait_url_method(Method::Post);
    enqueue.task(&attributes).priority(1);
    callback.success(twiml)
}

/// The Rust examples of the guides compile (and run, unless marked
/// `no_run`) against these functions.
#[cfg(doctest)]
mod guides {
    #[doc = include_str!("../../../docs/macro.md")]
    struct Macro;
    #[doc = include_str!("../../../docs/logging-contract.md")]
    struct LoggingContract;
    #[doc = include_str!("../../../docs/runtime.md")]
    struct Runtime;
    #[cfg(feature = "lambda")]
    #[doc = include_str!("../../../docs/deployment.md")]
    struct Deployment;
    #[doc = include_str!("../../../docs/external-calls.md")]
    struct ExternalCalls;
    #[doc = include_str!("../../../docs/diagnostics.md")]
    struct Diagnostics;
    #[doc = include_str!("../../../README.md")]
    struct Readme;
    #[doc = include_str!("../../../docs/getting-started.md")]
    struct GettingStarted;
    #[doc = include_str!("../../../docs/testing.md")]
    struct Testing;
    #[doc = include_str!("../../../docs/calls.md")]
    struct Calls;
    #[doc = include_str!("../../../docs/observability.md")]
    struct Observability;
}
