//! `#[contact_fn]` through a renamed `ccfn_core`, with `crate = ".."`
//! pointing the expansion at the new name (as tokio's
//! `macros_rename_test.rs` does for `#[tokio::main(crate = "..")]`).
//!
//! The well-known parameters in `required = [..]` resolve through the same
//! path (`renamed_ccfn::params::CallSid`), so they must work too.
//!
//! A test binary of its own, not a module of `tests/it`: `extern crate std
//! as ccfn_core` renames `::ccfn_core` only at a crate's root, and there it
//! would break every other test module, which names the real crate.
#![allow(unused_extern_crates)]

extern crate ccfn_core as renamed_ccfn;
// `::ccfn_core` now names the standard library: an expansion that ignored
// `crate = ".."` would not compile.
extern crate std as ccfn_core;
mod functions {
    use renamed_ccfn::voice::VoiceResponse;
    use renamed_ccfn::{Callback, Completion, Context, Event};

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
    #[renamed_ccfn::contact_fn(required = [CallSid, From, To], crate = "renamed_ccfn")]
    pub async fn answer(context: Context, event: Event, callback: Callback) -> Completion {
        let _ = (context, event);
        callback.success(VoiceResponse::new())
    }
}

use renamed_ccfn::function::{ContactFunction, Kind};
use renamed_ccfn::{Context, Event, Reply};

#[test]
fn meta_is_generated() {
    let meta = functions::answer::META;
    assert_eq!(meta.name(), "answer");
    assert_eq!(meta.required(), ["CallSid", "From", "To"]);
    assert_eq!(meta.kind(), Kind::Voice);
    assert_eq!(meta.contacts(), "contact-center-oncall@example.com");
    assert_eq!(functions::answer.meta(), &functions::answer::META);
}

#[tokio::test]
async fn invokes_through_the_renamed_crate() {
    let event: Event = [
        ("CallSid", "CA1"),
        ("From", "+15550001"),
        ("To", "+15550002"),
    ]
    .into_iter()
    .collect();
    let completion = functions::answer
        .invoke(Context::builder().build(), event)
        .await;
    assert!(
        matches!(completion.result(), Ok(Reply::Voice(_))),
        "{completion:?}"
    );
}
