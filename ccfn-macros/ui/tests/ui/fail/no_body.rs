// A trait method without a body.
use ccfn_core::prelude::*;

trait Functions {
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
    async fn answer(context: Context, event: Event, callback: Callback) -> Completion;
}

fn main() {}
