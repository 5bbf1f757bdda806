// An import of another `Context` (here the CRM's) shadows the names the
// expansion glob-imports: the handler's parameter is then that type, and
// the error says which type it must be.
use ccfn_core::contact_fn;
use crm::Context;

mod crm {
    pub struct Context;
}

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
async fn answer(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = (context, event);
    callback.success("hello")
}

// Registered and tested as a user's code does: the macro's error is the
// only one.
ccfn_macros_ui::registered_and_tested!(answer);
