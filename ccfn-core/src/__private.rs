//! Support for the code `#[contact_fn]` generates: used by the macro's
//! output and ccfn-testkit only, and not public API (it is
//! `#[doc(hidden)]`).

pub use crate::function::contract::run;
pub use crate::function::meta::{meta, MetaFields};

/// The testkit's: `context` and `event` with their reads past the
/// function's declarations warned about in every invocation that makes
/// them (once each), rather than once per process as the runtime does, so
/// that what a test captures does not depend on what ran before it.
#[must_use]
pub fn declarations_per_invocation(
    context: &crate::function::context::Context,
    event: crate::function::event::Event,
) -> (
    crate::function::context::Context,
    crate::function::event::Event,
) {
    (
        context.declarations_per_invocation(),
        event.declarations_per_invocation(),
    )
}

/// What `#[contact_fn]` emits for a function it rejected, next to its
/// errors, so that registering the function (`Feature::function`, the
/// testkit's `invoke`) adds no error of its own: `invoke` completes with
/// an error without running anything of the user's. It is only ever
/// emitted with a `compile_error!`, so it is never part of a program that
/// runs.
pub fn rejected(
    meta: &'static crate::function::FunctionMeta,
    context: crate::function::context::Context,
    event: crate::function::event::Event,
) -> crate::function::BoxFuture<crate::function::callback::Completion> {
    run(meta, context, event, |_, _, callback| async move {
        callback.error(crate::error::Error::msg(
            "this function was rejected by #[contact_fn] at compile time",
        ))
    })
}

/// The stand-in `#[contact_fn]` emits, next to its errors, for a
/// rejected function where only an associated constant can go (a method,
/// a declaration in a trait): a [`crate::function::ContactFunction`] whose
/// `invoke` is [`rejected`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Rejected;

impl Rejected {
    /// Its header: a generic function named `rejected` that requires
    /// nothing.
    pub const META: crate::function::FunctionMeta = meta(MetaFields {
        name: "rejected",
        purpose: "A function #[contact_fn] rejected at compile time.",
        trigger: "",
        required: &[],
        optional: "",
        optional_env: "",
        dependencies: "",
        critical_logging: "",
        contacts: "",
        env: &[],
        secrets: &[],
        kind: crate::function::Kind::Generic,
        timeout_ms: 10_000,
        debug_buffer_bytes: None,
        module_path: module_path!(),
    });
}

impl crate::function::ContactFunction for Rejected {
    fn meta(&self) -> &'static crate::function::FunctionMeta {
        &Self::META
    }

    fn invoke(
        &self,
        context: crate::function::context::Context,
        event: crate::function::event::Event,
    ) -> crate::function::BoxFuture<crate::function::callback::Completion> {
        rejected(&Self::META, context, event)
    }
}

/// The four types of a handler's signature. `#[contact_fn]` glob-imports
/// them next to the handler, so the signature names them even without the
/// prelude; any import or item of the module with the same name shadows the
/// glob.
pub mod signature {
    pub use crate::function::callback::{Callback, Completion};
    pub use crate::function::context::Context;
    pub use crate::function::event::Event;
}

use crate::function::callback::IntoCompletion;

/// The testkit's: the completion of invocation `invocation_id` (as its
/// response's `x-ccfn-invocation-id` header spells it) with `result`, as
/// read back from the runtime's answer over HTTP; `None` when the text is
/// not an invocation id.
#[must_use]
pub fn completion_of(
    invocation_id: &str,
    result: Result<crate::function::callback::Reply, crate::error::Error>,
) -> Option<crate::function::callback::Completion> {
    let id = crate::function::callback::InvocationId::parse(invocation_id)?;
    Some(crate::function::callback::Completion::new(id, result))
}

/// Installs the hook that keeps handler panics out of standard error
/// and records where they happened; the testkit calls it.
pub fn install_panic_hook() {
    crate::record::panic::install_hook();
}

/// A handler parameter's declared type, which must be `Expected`.
#[diagnostic::on_unimplemented(
    message = "this parameter of a `#[contact_fn]` handler must be `{Expected}`, not `{Self}`",
    label = "must be `{Expected}`",
    note = "a handler takes `(context: Context, event: Event, callback: Callback)`, in this order"
)]
pub trait Param<Expected> {
    /// The argument as the handler declares it.
    fn from_arg(arg: Expected) -> Self;
}

macro_rules! params {
    ($($ty:ty),*) => {$(
        #[diagnostic::do_not_recommend]
        impl Param<$ty> for $ty {
            fn from_arg(arg: $ty) -> Self {
                arg
            }
        }
    )*};
}
params!(
    crate::function::context::Context,
    crate::function::event::Event,
    crate::function::callback::Callback
);

/// Passes a handler its argument; spanned at the parameter's type, so a
/// wrong type is reported there.
pub fn param<T: Param<U>, U>(arg: U) -> T {
    T::from_arg(arg)
}

/// The handler's future, unchanged; spanned at its return type, so a
/// wrong return type is reported there.
pub fn completion<F>(future: F) -> F
where
    F: core::future::Future,
    F::Output: IntoCompletion,
{
    future
}

/// Whether `required` holds `CallSid`, `From` and `To`.
///
/// `#[contact_fn]` checks this itself, except when it takes an
/// identifier for a misspelled call parameter (`Frm`) and leaves it to
/// rustc; the expansion then asserts this at compile time, in case that
/// identifier is a well-known parameter after all.
#[must_use]
pub const fn has_voice_params(required: &[&str]) -> bool {
    contains(required, "CallSid") && contains(required, "From") && contains(required, "To")
}

/// `names.contains(&name)`, in a `const fn`.
const fn contains(names: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        if eq(names[i].as_bytes(), name.as_bytes()) {
            return true;
        }
        i += 1;
    }
    false
}

/// `a == b`, in a `const fn`.
const fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
