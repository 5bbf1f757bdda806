// A handler without `#[contact_fn]` given where a function is expected.
use ccfn_core::prelude::*;

/// Answers the call.
async fn answer(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = (context, event);
    callback.success(VoiceResponse::new())
}

fn serve(function: impl ccfn_core::function::ContactFunction) {
    let _ = function.meta();
}

fn main() {
    serve(answer);
}
