// Headings inside a code fence are text, not sections; the fence and its
// content stay in the section it belongs to.
use ccfn_core::prelude::*;

/// Sends the voicemail notice email.
///
/// # Trigger
/// Recording status callback. The request looks like:
///
/// ```text
/// # Contacts
/// RecordingUrl=https://example.com/r.wav
/// ```
///
/// # Dependencies
/// Email provider
///
/// ~~~text
/// # Trigger
/// ~~~
/// # Critical logging
/// Email send result
/// # Contacts
/// voicemail-team@example.com
#[contact_fn(kind = email, required = [RecordingUrl])]
async fn voicemail_notice(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = (context, event);
    callback.success("sent")
}

#[test]
fn expands_and_runs() {
    let meta = voicemail_notice::META;
    assert_eq!(meta.name(), "voicemail-notice");
    assert_eq!(meta.purpose(), "Sends the voicemail notice email.");
    assert_eq!(
        meta.trigger(),
        "Recording status callback. The request looks like: ```text # Contacts RecordingUrl=https://example.com/r.wav ```"
    );
    assert_eq!(meta.dependencies(), "Email provider ~~~text # Trigger ~~~");
    assert_eq!(meta.critical_logging(), "Email send result");
    assert_eq!(meta.contacts(), "voicemail-team@example.com");
}
