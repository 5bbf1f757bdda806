//! The functions of a contact center, written with ccfn: the queue wait
//! experience that offers voicemail and a callback.
//!
//! Run with `cargo run -p example-contact-center`: the local runtime serves
//! them on `http://127.0.0.1:3001`.

use ccfn_core::prelude::*;
use ccfn_core::voice::{GatherInput, Method};

/// The feature the wait experience belongs to.
pub const FEATURE: &str = "callback-and-voicemail-with-email";

/// What the caller hears when voicemail or callback cannot be served.
pub const OPTION_NOT_AVAILABLE: &str = "Option not available at this time";

/// Queue wait experience: offers voicemail or a callback while the caller
/// waits.
///
/// Without `mode`, the caller hears the hold message and a menu (1 for
/// voicemail, 2 for a callback); `mode=voicemail` records a message;
/// `mode=callback` cannot be served yet and says so.
///
/// # Trigger
/// Studio "Run Function" widget on the queue's wait URL, and the menu's
/// own Gather action.
/// # Optional parameters
/// mode (`voicemail`, `callback`), Digits, FlowSid, ExecutionSid, StepSid
/// # Dependencies
/// Email provider (voicemail notice), task router (callback task)
/// # Critical logging
/// Task creation result
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
pub async fn wait_experience(_context: Context, event: Event, callback: Callback) -> Completion {
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
            twiml
                .record()
                .action(format!(
                    "/features/{FEATURE}/studio/wait-experience?mode=voicemail-done"
                ))
                .method(Method::Post)
                .max_length(120)
                .play_beep(true)
                .finish_on_key("#");
        }
        "callback" => {
            // Callback tasks need the task-router client; until this
            // deployment has one, the option cannot be served, and the
            // caller hears the spec's message while the log says why.
            tracing::warn!(
                cause = "no task router is configured for callback tasks",
                "callback option cannot be served"
            );
            twiml.say(OPTION_NOT_AVAILABLE);
            twiml.redirect(format!("/features/{FEATURE}/studio/wait-experience"));
        }
        "voicemail-done" => {
            twiml.say("Thank you. Your message has been recorded. Goodbye.");
            twiml.hangup();
        }
        _ => {
            let gather = twiml.gather();
            gather
                .input(GatherInput::Dtmf)
                .num_digits(1)
                .timeout(5)
                .action(format!("/features/{FEATURE}/studio/wait-experience"))
                .method(Method::Post);
            gather.say(
                "All of our agents are busy. Press 1 to leave a voicemail, or 2 to request a callback.",
            );
            twiml.say("Please hold. An agent will be with you shortly.");
        }
    }
    callback.success(twiml)
}
