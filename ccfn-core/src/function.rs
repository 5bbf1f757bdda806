//! The trait every `#[contact_fn]` function implements.

use crate::contract::BoxFuture;
use crate::{Context, Event, FunctionMeta, Outcome};

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

    /// Runs the function on `event` under the logging contract.
    fn invoke(&self, context: Context, event: Event) -> BoxFuture<Outcome>;
}
