//! A contact-center function as the runtime and the testkit run it: the
//! [`ContactFunction`] trait that `#[contact_fn]` implements, its header
//! ([`FunctionMeta`], of a [`Kind`]), the [`InvocationId`] of each run and
//! the [`BoxFuture`] a run is. What a handler receives and makes
//! ([`Context`], [`Event`], [`Callback`](crate::Callback), [`Completion`])
//! is at the crate root.

// The function model: what a handler receives, how it completes, its
// header and the contract that runs around it. It depends on the records
// below it, and on nothing above: the clients reach the context through
// its extension slot.
pub(crate) mod callback;
pub(crate) mod context;
pub(crate) mod contract;
pub(crate) mod declared;
pub(crate) mod event;
pub(crate) mod meta;
pub(crate) mod metrics;

pub use self::callback::InvocationId;
pub use self::contract::BoxFuture;
pub use self::meta::{FunctionMeta, Kind};

// The bound `#[contact_fn]` puts on a handler's return type: not API, so
// hidden, but here rather than in the hidden `__private`, so that rustc's
// error for a wrong return type names it `IntoCompletion`, not by a path
// through `__private`.
#[doc(hidden)]
pub use self::callback::IntoCompletion;

use self::callback::Completion;
use self::context::Context;
use self::event::Event;

/// A contact-center function: its header and its contract-wrapped handler.
///
/// `#[contact_fn]` implements it on a unit struct named after the handler;
/// the runtime serves it and the testkit invokes it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a contact-center function",
    note = "annotate the handler with `#[contact_fn(required = [..])]`"
)]
pub trait ContactFunction: Send + Sync + 'static {
    /// The function's header.
    fn meta(&self) -> &'static FunctionMeta;

    /// Runs the function on `event` under the logging contract; the
    /// future ends with how the invocation ended.
    fn invoke(&self, context: Context, event: Event) -> BoxFuture<Completion>;
}
