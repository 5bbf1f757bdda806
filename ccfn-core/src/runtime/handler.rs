//! The handlers of a function's route (invoke, `HEAD`, methods it does not
//! allow) and of paths that name no function.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::answer::{empty_with_id, full_path, Answer, KeptCallSid, Rejection};
use super::extract::{CheckedHost, Parameters, Signed};
use super::state::{Endpoint, InFlight};
use crate::secret::echo;

/// `POST` and `GET`: invokes the function on the request's parameters,
/// unless the shutdown grace is over.
pub(super) async fn invoke(
    State(endpoint): State<Arc<Endpoint>>,
    _host: CheckedHost,
    Signed(parameters): Signed<Parameters>,
) -> Response {
    let (event, parts) = parameters.into_event(&endpoint);
    // The call a refusal at shutdown is about, kept for after the event
    // has gone to the invocation.
    let call = KeptCallSid::of(event.call_sid());
    let shutdown = &endpoint.shared.shutdown;
    let in_flight = InFlight::new(shutdown);
    let mut cancelled = shutdown.cancelled();
    if *cancelled.borrow() {
        // The grace is over: starting now, its records could be lost.
        drop(in_flight);
        return shutting_down(&endpoint, &parts, &call).into_response();
    }
    let mut invocation = endpoint
        .registered
        .function
        .invoke(endpoint.shared.context.clone(), event);
    let finished = tokio::select! {
        biased;
        completion = &mut invocation => Some(completion),
        _ = cancelled.wait_for(|cancel| *cancel) => None,
    };
    let Some(completion) = finished else {
        // Dropping the invocation closes its records as cancelled; the
        // rejection is logged before the runtime may stop logging.
        drop(invocation);
        let response = shutting_down(&endpoint, &parts, &call).into_response();
        drop(in_flight);
        return response;
    };
    drop(in_flight);
    Answer(completion).into_response()
}

/// The `503` of a request refused because the server is stopping, about
/// the call it named.
fn shutting_down(endpoint: &Endpoint, parts: &Parts, call: &KeptCallSid) -> Rejection {
    Rejection::new(
        Some(endpoint.name()),
        parts,
        StatusCode::SERVICE_UNAVAILABLE,
        "the server is shutting down".to_owned(),
    )
    .about_kept_call(call)
}

/// `HEAD`: an empty `200` with an invocation id, to check a webhook URL;
/// invokes nothing, checks no signature, writes no record.
pub(super) async fn head(_host: CheckedHost) -> Response {
    empty_with_id()
}

/// Any other method on a function's path: `405`, with `Allow`.
pub(super) async fn method_not_allowed(
    State(endpoint): State<Arc<Endpoint>>,
    _host: CheckedHost,
    request: Request,
) -> Response {
    let (parts, _) = request.into_parts();
    let message = format!(
        "method {} is not allowed on {}: use POST (or GET, HEAD)",
        echo(parts.method.as_str()),
        echo(&full_path(&parts))
    );
    let mut response = Rejection::new(
        Some(endpoint.name()),
        &parts,
        StatusCode::METHOD_NOT_ALLOWED,
        message,
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD, POST"));
    response
}

/// A path that names no function: `404`, whatever the method.
pub(super) async fn no_function(_host: CheckedHost, request: Request) -> Rejection {
    let (parts, _) = request.into_parts();
    let message = format!("no function at {}", echo(&full_path(&parts)));
    Rejection::new(None, &parts, StatusCode::NOT_FOUND, message)
}
