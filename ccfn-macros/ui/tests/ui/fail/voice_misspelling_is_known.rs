// A voice function whose `required` has `Frm` and no `From`. The macro
// takes `Frm` for a misspelling of `From` and leaves it to rustc (see
// `unknown_param.rs`); here `Frm` is a well-known parameter of the core the
// macro is pointed at, so rustc accepts it, and the voice rule is checked
// again when the generated constant is evaluated.
use ccfn_core::prelude::*;

mod fake {
    pub use ccfn_core::*;

    pub mod params {
        pub use ccfn_core::params::*;

        #[allow(non_upper_case_globals)]
        pub const Frm: &str = "Frm";
    }
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
#[contact_fn(required = [CallSid, Frm, To], crate = "crate::fake")]
async fn answer(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = (context, event);
    callback.success(VoiceResponse::new())
}

// Registered and tested as a user's code does: the macro's error is the
// only one.
ccfn_macros_ui::registered_and_tested!(answer);
