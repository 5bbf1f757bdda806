// A handler written as a method.
use ccfn_core::prelude::*;

struct Answers;

impl Answers {
    /// Answers the call.
    ///
    /// # Trigger
    /// Incoming call webhook.
    /// # Dependencies
    /// None
    /// # Critical logging
    /// None beyond the contract
    /// # Contacts
    /// contact-center-oncall@example.com
    #[contact_fn(required = [CallSid, From, To])]
    async fn answer(&self, event: Event, callback: Callback) -> Completion {
        let _ = event;
        callback.success(VoiceResponse::new())
    }
}

fn main() {}
