// Attributes on the handler are kept: `#[allow]` still silences the lint
// it names (this file denies warnings), `#[cfg]` applies to everything the
// macro generates.
#![deny(warnings)]

use ccfn_core::function::ContactFunction;
use ccfn_core::prelude::*;

/// Answers and says nothing.
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
#[allow(unused_variables, unused_mut)]
// A condition that always holds: the point is that `#[cfg]` reaches the
// expansion, whatever its condition.
#[allow(clippy::non_minimal_cfg)]
#[cfg(all())]
async fn quiet(context: Context, event: Event, callback: Callback) -> Completion {
    // Without the `#[allow]` above, these two lines would deny the build.
    let mut unused = 1;
    callback.success(VoiceResponse::new())
}

/// Never compiled: a false `#[cfg]` removes the struct, its `META` and its
/// `ContactFunction` impl, so the names below do not clash with them.
///
/// # Trigger
/// Nothing.
/// # Dependencies
/// None
/// # Critical logging
/// None
/// # Contacts
/// nobody@example.com
#[contact_fn(required = [CallSid, From, To])]
#[cfg(any())]
async fn removed(context: Context, event: Event, callback: Callback) -> Completion {
    callback.success(VoiceResponse::new())
}

#[allow(non_camel_case_types)]
struct removed;

impl removed {
    const META: &'static str = "not generated";
}

#[test]
fn expands_and_runs() {
    assert_eq!(quiet::META.name(), "quiet");
    assert_eq!(quiet.meta().name(), "quiet");
    assert_eq!(removed::META, "not generated");
    let _ = removed;
}
