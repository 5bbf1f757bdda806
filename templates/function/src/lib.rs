//! The contact-center functions of {{project-name}}.

use ccfn_core::prelude::*;
use ccfn_core::runtime::{Feature, Runtime};

/// Welcomes the caller by the company's name, in their language when the
/// flow passes one.
///
/// # Trigger
/// Incoming call webhook of the contact center's number.
/// # Optional parameters
/// Language (`en-US` when absent)
/// # Dependencies
/// None
/// # Critical logging
/// None beyond the contract
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = [COMPANY_NAME])]
pub async fn welcome(context: Context, event: Event, callback: Callback) -> Completion {
    let company = context.required("COMPANY_NAME");
    let language = event.get("Language").unwrap_or("en-US");
    // A record of step `log` in the invocation's stream.
    ccfn_core::tracing::info!(language, "welcoming the caller");
    let mut twiml = VoiceResponse::new();
    twiml
        .say(format!("Thank you for calling {company}."))
        .language(language);
    callback.success(twiml)
}

/// Every function of this project, under its feature and path: what the
/// runtime serves.
pub fn runtime(runtime: Runtime) -> Runtime {
    runtime.feature(Feature::new("welcome").function("calls/welcome", welcome))
}
