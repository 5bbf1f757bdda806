//! The voice platform's well-known request parameters.
//!
//! `#[contact_fn(required = [CallSid, From])]` resolves each bare name
//! here, so a typo such as `Frm` fails to compile at the typo, with a
//! "similar name" hint. A parameter that is not listed here is written as a
//! string: `required = [CallSid, "CustomerId"]`.
#![allow(non_upper_case_globals)]

macro_rules! params {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        $( $(#[$doc])* pub const $name: &str = stringify!($name); )*
        /// Every name in this module.
        pub const ALL: &[&str] = &[$(stringify!($name)),*];
    };
}

params! {
    /// Call identifier.
    CallSid,
    /// Caller phone number, E.164 with a leading `+`.
    From,
    /// Called phone number, E.164 with a leading `+`.
    To,
    /// Account identifier.
    AccountSid,
    /// The caller, as the platform names it on some webhooks.
    Caller,
    /// The called number, as the platform names it on some webhooks.
    Called,
    /// Call status (`queued`, `ringing`, `in-progress`, `completed`, ...).
    CallStatus,
    /// Call direction (`inbound`, `outbound-api`, ...).
    Direction,
    /// Digits pressed by the caller in a Gather.
    Digits,
    /// Transcribed speech from a Gather.
    SpeechResult,
    /// URL of a finished recording.
    RecordingUrl,
    /// Recording identifier.
    RecordingSid,
    /// Length of the recording in seconds.
    RecordingDuration,
    /// Transcription of a recording.
    TranscriptionText,
    /// Flow identifier, present on flow transitions.
    FlowSid,
    /// Flow execution identifier.
    ExecutionSid,
    /// Flow step identifier.
    StepSid,
    /// Task identifier.
    TaskSid,
    /// Workflow identifier.
    WorkflowSid,
    /// Queue identifier.
    QueueSid,
    /// Operation mode: `callback`, `voicemail` or `debug`.
    mode,
}
