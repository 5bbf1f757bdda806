//! The function model: what a handler receives (its [`Context`] and
//! [`Event`]), how it completes ([`Callback`]), its header
//! ([`FunctionMeta`]) and the contract that runs around it. It depends on
//! the records below it, and on nothing above: the clients reach the
//! context through its extension slot ([`Context::extension`]).

pub(crate) mod callback;
pub(crate) mod context;
pub(crate) mod contract;
pub(crate) mod event;
pub(crate) mod meta;
pub mod metrics;

use self::callback::Completion;
use self::context::Context;
use self::contract::BoxFuture;
use self::event::Event;
use self::meta::FunctionMeta;

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
