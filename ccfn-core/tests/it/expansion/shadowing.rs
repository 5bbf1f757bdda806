// The expansion uses absolute paths only: user code that defines its own
// `Context`, `Result`, `Box`, `Option`, ... and its own `ccfn_core`, `core`
// and `std` modules next to the handler still compiles, and so do items
// named like the expansion's own names (`__ccfn_handler`, and the closure
// parameters `__ccfn_context`, `__ccfn_event`, `__ccfn_callback`, which a
// unit struct, `const` or `static` in scope would otherwise turn into
// patterns).
#![allow(
    dead_code,
    non_camel_case_types,
    non_upper_case_globals,
    unreachable_pub
)]

mod handlers {
    // Every name the expansion could use by a relative path, shadowed.
    pub struct Context;
    pub struct Event;
    pub struct Callback;
    pub struct Completion;
    pub struct Error;
    pub struct Box;
    pub struct Option;
    pub struct Some;
    pub struct None;
    pub struct Ok;
    pub struct Err;
    pub struct Vec;
    pub struct String;
    pub struct Clone;
    pub struct Copy;
    pub struct Debug;
    pub struct Default;
    pub struct Send;
    pub struct Sync;
    pub struct Future;
    pub struct FunctionMeta;
    pub struct Kind;
    pub struct BoxFuture;
    pub struct ContactFunction;
    pub struct __ccfn_handler;
    pub struct __ccfn_context;
    pub const __ccfn_event: () = ();
    pub static __ccfn_callback: () = ();
    pub type Result<T> = ::core::result::Result<T, ()>;
    pub mod ccfn_core {}
    pub mod function {}
    pub mod core {}
    pub mod std {}
    pub mod params {}
    pub mod __private {}
    pub mod serde_json {}
    pub const CallSid: &str = "shadowed";
    pub const META: &str = "shadowed";

    /// Answers with the caller's number.
    ///
    /// # Trigger
    /// Incoming call webhook.
    /// # Dependencies
    /// None
    /// # Critical logging
    /// None beyond the contract
    /// # Contacts
    /// contact-center-oncall@example.com
    #[::ccfn_core::contact_fn(required = [CallSid, From, To])]
    pub async fn answer(
        context: ::ccfn_core::Context,
        event: ::ccfn_core::Event,
        callback: ::ccfn_core::Callback,
    ) -> ::ccfn_core::Completion {
        // The body still sees the module's names.
        let _: Result<Option> = Result::Ok(Option);
        let _: Box = Box;
        let _ = context;
        callback.success(event.from().unwrap_or_default().to_owned())
    }
}

use ::ccfn_core::function::ContactFunction;
use ::ccfn_core::Reply;

#[test]
fn expands_and_runs() {
    assert_eq!(handlers::answer::META.name(), "answer");
    assert_eq!(handlers::answer::META.required(), ["CallSid", "From", "To"]);
    assert_eq!(handlers::META, "shadowed");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let event: ::ccfn_core::Event = [
        ("CallSid", "CA1"),
        ("From", "+15550001"),
        ("To", "+15550002"),
    ]
    .into_iter()
    .collect();
    let completion =
        runtime.block_on(handlers::answer.invoke(::ccfn_core::Context::builder().build(), event));
    match completion.into_result() {
        Ok(Reply::Json(value)) => assert_eq!(value, "+15550001"),
        other => panic!("expected JSON, got {other:?}"),
    }
}
