// The generated struct and `META` take the handler's visibility, so a
// `pub` handler's header is reachable from another module.
// `pub` is the point here, in a module no other crate sees.
#![allow(unreachable_pub)]

use ccfn_core::function::{ContactFunction, FunctionMeta};

mod functions {
    pub mod voice {
        use ccfn_core::prelude::*;

        /// Greets the caller.
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
        pub async fn greeting(context: Context, event: Event, callback: Callback) -> Completion {
            let _ = (context, event);
            callback.success(VoiceResponse::new())
        }

        /// Says goodbye.
        ///
        /// # Trigger
        /// Incoming call webhook.
        /// # Dependencies
        /// None
        /// # Critical logging
        /// None beyond the contract
        /// # Contacts
        /// contact-center-oncall@example.com
        #[contact_fn(required = [CallSid, From, To], name = "bye")]
        pub(crate) async fn goodbye(
            context: Context,
            event: Event,
            callback: Callback,
        ) -> Completion {
            let _ = (context, event);
            callback.success(VoiceResponse::new())
        }
    }
}

use functions::voice::{goodbye, greeting};

/// The runtime keeps functions as trait objects.
fn registry() -> Vec<Box<dyn ContactFunction>> {
    // A handler's struct is `Default`, as generic code builds it.
    #[allow(clippy::default_constructed_unit_structs)]
    let goodbye = goodbye::default();
    vec![Box::new(greeting), Box::new(goodbye)]
}

const GREETING: FunctionMeta = functions::voice::greeting::META;

#[test]
fn expands_and_runs() {
    assert_eq!(GREETING.name(), "greeting");
    assert_eq!(goodbye::META.name(), "bye");
    let names: Vec<&str> = registry().iter().map(|f| f.meta().name()).collect();
    assert_eq!(names, ["greeting", "bye"]);
}
