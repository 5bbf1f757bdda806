//! The router: one route per function, the catalogue when it is served,
//! and a fallback for paths that name no function.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue};
use axum::response::Response;
use axum::routing::{any, get, MethodRouter};
use axum::Router;
use serde_json::json;

use super::answer::with_invocation_id;
use super::config::RuntimeConfig;
use super::feature::Registered;
use super::handler;
use super::inspector::{self, Inspector};
use super::state::{Endpoint, Shared, Shutdown};
use crate::function::context::Context;

/// The path of the function catalogue.
const CATALOGUE_PATH: &str = "/__ccfn/functions";

/// The router of `functions`, and the handle that cancels their
/// invocations in flight. The paths must have passed `Runtime::check`.
pub(super) fn build(
    context: Context,
    config: RuntimeConfig,
    functions: Vec<Registered>,
    inspector: Option<&Inspector>,
) -> (Router, Arc<Shutdown>) {
    let catalogue = config.serves_catalogue().then(|| catalogue(&functions));
    let inspected = inspector.map(|inspector| (inspector, context.clone(), config.clone()));
    let routes: Vec<_> = functions.iter().map(inspector::Route::of).collect();
    let shutdown = Arc::new(Shutdown::default());
    let shared = Arc::new(Shared {
        context,
        config,
        shutdown: Arc::clone(&shutdown),
    });
    let mut router = Router::new();
    for registered in functions {
        let url_path = registered.url_path();
        let path = url_path.clone();
        let endpoint = Endpoint {
            shared: Arc::clone(&shared),
            registered,
            url_path,
        };
        router = router.route(&path, function_route(endpoint));
    }
    if let Some(catalogue) = catalogue {
        router = router.route(
            CATALOGUE_PATH,
            get(move || std::future::ready(with_invocation_id(json_response(catalogue.clone())))),
        );
    }
    // Every answer carries an invocation id: each handler and rejection
    // sets it. Not a layer over the routes, which axum would clone, boxed,
    // for every request.
    let mut router = router.fallback(handler::no_function);
    if let Some((inspector, context, config)) = inspected {
        // Replays go through the functions' own router, as a request
        // from outside would.
        let functions = router.clone();
        router = router.merge(inspector::routes(
            inspector, &config, context, routes, functions,
        ));
    }
    (router, shutdown)
}

/// A function's route: `POST` and `GET` invoke it, `HEAD` answers
/// without invoking it, and the route's fallback answers any other method
/// `405`. Made with `any` so that axum adds no `Allow` header of its own
/// to what the fallback answers (a `400` for a bad `Host`, say): the
/// `405` sets its own.
fn function_route(endpoint: Endpoint) -> MethodRouter {
    any(handler::method_not_allowed)
        .post(handler::invoke)
        .get(handler::invoke)
        .head(handler::head)
        .with_state(Arc::new(endpoint))
}

/// The catalogue of `functions`, as JSON.
fn catalogue(functions: &[Registered]) -> Bytes {
    let entries: Vec<_> = functions
        .iter()
        .map(|r| {
            json!({
                "url_path": r.url_path(),
                "feature": r.feature,
                "path": r.path,
                "public": r.public,
                "meta": r.function.meta(),
            })
        })
        .collect();
    Bytes::from(json!(entries).to_string())
}

fn json_response(body: Bytes) -> Response {
    let mut response = Response::new(Body::from(body));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
