//! One HTTP request: find the function, read and check the request, invoke,
//! answer.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::{to_bytes, Body, Bytes};
use axum::extract::{Request, State as Extract};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};
use tracing::Level;

use super::config::RuntimeConfig;
use super::feature::{Registered, AUTH_TOKEN};
use super::params::{parse_form, parse_json};
use crate::error::ErrorKind;
use crate::function::callback::InvocationId;
use crate::function::callback::Reply;
use crate::function::context::Context;
use crate::function::event::Event;
use crate::record::{emit, SPAN_NAME};
use crate::secret::echo;
use crate::signature::{self, SignedBody};

/// What every request shares.
pub(super) struct State {
    pub(super) context: Context,
    pub(super) config: RuntimeConfig,
    pub(super) functions: HashMap<String, Arc<Registered>>,
    pub(super) shutdown: Arc<Shutdown>,
}

/// The invocations in flight, and the signal that cancels them when the
/// shutdown grace runs out.
#[derive(Default)]
pub(super) struct Shutdown {
    cancel: tokio::sync::watch::Sender<bool>,
    in_flight: std::sync::atomic::AtomicUsize,
    idle: tokio::sync::Notify,
}

impl Shutdown {
    /// Cancels every invocation in flight and waits up to `wait` for them
    /// to close; returns how many are still running then.
    pub(super) async fn cancel_all(&self, wait: std::time::Duration) -> usize {
        use std::sync::atomic::Ordering;
        let _ = self.cancel.send(true);
        let _ = tokio::time::timeout(wait, async {
            while self.in_flight.load(Ordering::Acquire) > 0 {
                self.idle.notified().await;
            }
        })
        .await;
        self.in_flight.load(Ordering::Acquire)
    }
}

/// Counts one invocation in flight while it lives.
struct InFlight<'a>(&'a Shutdown);

impl<'a> InFlight<'a> {
    fn new(shutdown: &'a Shutdown) -> Self {
        shutdown
            .in_flight
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        InFlight(shutdown)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0
            .in_flight
            .fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        self.0.idle.notify_waiters();
    }
}

/// The response header that carries the invocation id.
pub(crate) const INVOCATION_HEADER: &str = "x-ccfn-invocation-id";

/// Headers that describe the connection or a proxy, not the request: not
/// given to functions.
const DROPPED_HEADERS: [&str; 11] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "forwarded",
    "via",
    "proxy-connection",
];

#[derive(Clone, Copy)]
enum BodyKind {
    Form,
    Json,
}

pub(super) async fn handle(Extract(state): Extract<Arc<State>>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let method = request.method().clone();
    if let Err(message) = check_host(&request) {
        return reject(None, &method, &path, StatusCode::BAD_REQUEST, message);
    }
    let Some(registered) = state.functions.get(&path).cloned() else {
        return reject(
            None,
            &method,
            &path,
            StatusCode::NOT_FOUND,
            format!("no function at {}", echo(&path)),
        );
    };
    let name = Some(registered.function.meta().name());
    if method == Method::HEAD {
        let mut response = Response::new(Body::empty());
        set_id(&mut response, &InvocationId::new());
        return response;
    }
    if method != Method::POST && method != Method::GET {
        let mut response = reject(
            name,
            &method,
            &path,
            StatusCode::METHOD_NOT_ALLOWED,
            format!(
                "method {} is not allowed on {}: use POST (or GET, HEAD)",
                echo(method.as_str()),
                echo(&path)
            ),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD, POST"));
        return response;
    }

    let (parts, body) = request.into_parts();
    let kind = match body_kind(&parts.headers) {
        Ok(kind) => kind,
        Err(message) => {
            return reject(
                name,
                &method,
                &path,
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                message,
            )
        }
    };
    let limit = state.config.body_limit;
    let too_large = || format!("the request body is larger than the {limit} bytes allowed");
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|length| length > limit) {
        return reject(
            name,
            &method,
            &path,
            StatusCode::PAYLOAD_TOO_LARGE,
            too_large(),
        );
    }
    let read = tokio::time::timeout(state.config.body_timeout, to_bytes(body, limit)).await;
    let Ok(read) = read else {
        return reject(
            name,
            &method,
            &path,
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} ms",
                state.config.body_timeout.as_millis()
            ),
        );
    };
    let bytes: Bytes = match read {
        Ok(bytes) => bytes,
        Err(error) => {
            let over = std::error::Error::source(&error)
                .is_some_and(|e| e.is::<http_body_util::LengthLimitError>());
            return if over {
                reject(
                    name,
                    &method,
                    &path,
                    StatusCode::PAYLOAD_TOO_LARGE,
                    too_large(),
                )
            } else {
                reject(
                    name,
                    &method,
                    &path,
                    StatusCode::BAD_REQUEST,
                    format!("the request body could not be read: {error}"),
                )
            };
        }
    };

    let query = parts.uri.query().unwrap_or("");
    let parsed = parse_form(query.as_bytes(), "query string").and_then(|query| {
        let body = match (kind, bytes.is_empty()) {
            (_, true) => Vec::new(),
            (Some(BodyKind::Json), false) => parse_json(&bytes)?,
            (_, false) => parse_form(&bytes, "body")?,
        };
        Ok((query, body))
    });
    let (query, body) = match parsed {
        Ok(parsed) => parsed,
        Err(message) => {
            return reject(
                name,
                &method,
                &path,
                StatusCode::BAD_REQUEST,
                format!("malformed request: {message}"),
            )
        }
    };
    let count = query.len() + body.len();
    if count > state.config.max_params {
        return reject(
            name,
            &method,
            &path,
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the request has {count} parameters, over the {} allowed",
                state.config.max_params
            ),
        );
    }

    if !registered.public {
        if let Some(token) = state.context.secret(AUTH_TOKEN).filter(|t| !t.is_empty()) {
            let url = public_url(&state.config, &parts.headers, &parts.uri);
            let signature = parts
                .headers
                .get(signature::SIGNATURE_HEADER)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            let form: Vec<(String, String)>;
            let signed = match kind {
                Some(BodyKind::Json) => SignedBody::Json(&bytes),
                _ => {
                    form = body
                        .iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                        .collect();
                    SignedBody::Form(&form)
                }
            };
            if let Err(error) = signature::validate(token.expose(), signature, &url, &signed) {
                return reject(
                    name,
                    &method,
                    &path,
                    StatusCode::FORBIDDEN,
                    error.to_string(),
                );
            }
        }
    }

    let mut event = Event::new();
    for (key, value) in &body {
        event.push(key.clone(), value.clone());
    }
    let in_body: std::collections::HashSet<&str> = body.iter().map(|(k, _)| k.as_str()).collect();
    for (key, value) in query {
        if !in_body.contains(key.as_str()) {
            event.push(key, value);
        }
    }
    for (key, value) in &parts.headers {
        let key = key.as_str();
        if DROPPED_HEADERS.contains(&key)
            || key.starts_with("x-forwarded-")
            || key.starts_with("proxy-")
        {
            continue;
        }
        if let Ok(value) = value.to_str() {
            event.push_header(key, value);
        }
    }

    let in_flight = InFlight::new(&state.shutdown);
    let mut cancelled = state.shutdown.cancel.subscribe();
    if *cancelled.borrow() {
        // The grace is over: starting now, its records could be lost.
        drop(in_flight);
        return reject(
            name,
            &method,
            &path,
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is shutting down".to_owned(),
        );
    }
    let mut invocation = registered.function.invoke(state.context.clone(), event);
    let finished = tokio::select! {
        biased;
        outcome = &mut invocation => Some(outcome),
        _ = cancelled.wait_for(|cancel| *cancel) => None,
    };
    let Some(outcome) = finished else {
        // Dropping the invocation closes its records as cancelled; the
        // rejection is logged before the runtime may stop logging.
        drop(invocation);
        let response = reject(
            name,
            &method,
            &path,
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is shutting down".to_owned(),
        );
        drop(in_flight);
        return response;
    };
    drop(in_flight);
    let mut response = match outcome.result {
        Ok(reply) => reply_response(reply),
        Err(error) => {
            let status = match error.kind() {
                ErrorKind::Validation => StatusCode::BAD_REQUEST,
                ErrorKind::Timeout => StatusCode::GATEWAY_TIMEOUT,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            // The message reaches the caller, not the log layer: scrub it
            // here too.
            let mut message = error.message().to_owned();
            crate::secret::scrub(&mut message, &[]);
            json_response(status, &json!({ "message": message }))
        }
    };
    set_id(&mut response, &outcome.invocation_id);
    response
}

/// The request's `Host`: HTTP/1.1 requires exactly one (RFC 9112, 3.2),
/// and the signature check builds the signed URL from it, so a request
/// without one, with two, or with one that is not a host and port is
/// refused rather than checked against a guessed URL.
fn check_host(request: &Request) -> Result<(), String> {
    let mut hosts = request.headers().get_all(header::HOST).iter();
    match (hosts.next(), hosts.next()) {
        (None, _) if request.version() >= axum::http::Version::HTTP_11 => {
            Err("the request has no Host header: HTTP/1.1 requires one".to_owned())
        }
        (None, _) => Ok(()),
        (Some(_), Some(_)) => {
            Err("the request has more than one Host header: send exactly one".to_owned())
        }
        (Some(host), None) => {
            let valid = host
                .to_str()
                .ok()
                .and_then(|host| host.parse::<axum::http::uri::Authority>().ok())
                .is_some_and(|authority| {
                    authority.as_str() == authority.host()
                        || authority.port_u16().is_some() && !authority.as_str().contains('@')
                });
            if valid {
                Ok(())
            } else {
                Err("the Host header is not a host name with an optional port".to_owned())
            }
        }
    }
}

/// Which parser the body takes: `None` when there is no content type.
fn body_kind(headers: &HeaderMap) -> Result<Option<BodyKind>, String> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Ok(None);
    };
    // Only the media type is named back: its parameters may carry
    // anything (`; access_token=...`).
    let essence = String::from_utf8_lossy(value.as_bytes())
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        "application/x-www-form-urlencoded" => Ok(Some(BodyKind::Form)),
        "application/json" => Ok(Some(BodyKind::Json)),
        _ => Err(format!(
            "unsupported content type `{}`: send application/x-www-form-urlencoded or application/json",
            echo(&essence)
        )),
    }
}

/// The URL the platform signed: `CCFN_PUBLIC_URL`, else the request's
/// `X-Forwarded-Proto` (or `http`) and `Host`, then the path and query.
fn public_url(config: &RuntimeConfig, headers: &HeaderMap, uri: &axum::http::Uri) -> String {
    let path_and_query = uri.path_and_query().map_or("/", |p| p.as_str());
    if let Some(base) = &config.public_url {
        return format!("{base}{path_and_query}");
    }
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    // A proxy chain may list several (`https, http`): the first is the
    // client's.
    let scheme = text("x-forwarded-proto")
        .and_then(|v| v.split(',').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "http".to_owned());
    let host = text("host").unwrap_or("localhost");
    format!("{scheme}://{host}{path_and_query}")
}

fn reply_response(reply: Reply) -> Response {
    match reply {
        Reply::Xml(xml) => with_type(Response::new(Body::from(xml)), "text/xml"),
        Reply::Voice(voice) => with_type(
            Response::new(Body::from(voice.xml().to_owned())),
            "text/xml",
        ),
        Reply::Json(value) => json_response(StatusCode::OK, &value),
        Reply::Response(custom) => {
            let mut response = Response::new(Body::from(custom.body_bytes().to_vec()));
            *response.status_mut() =
                StatusCode::from_u16(custom.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            for (name, value) in custom.headers() {
                if let (Ok(name), Ok(value)) = (
                    header::HeaderName::from_bytes(name.as_bytes()),
                    HeaderValue::from_str(value),
                ) {
                    response.headers_mut().append(name, value);
                }
            }
            response
        }
    }
}

fn json_response(status: StatusCode, value: &Value) -> Response {
    let mut response = with_type(
        Response::new(Body::from(value.to_string())),
        "application/json",
    );
    *response.status_mut() = status;
    response
}

fn with_type(mut response: Response, content_type: &'static str) -> Response {
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// Gives a response that has no invocation id (the catalogue, axum's own
/// answers) one, so that every response carries it.
pub(super) async fn with_invocation_id(mut response: Response) -> Response {
    if !response.headers().contains_key(INVOCATION_HEADER) {
        set_id(&mut response, &InvocationId::new());
    }
    response
}

fn set_id(response: &mut Response, id: &InvocationId) {
    if let Ok(value) = HeaderValue::from_str(id.as_str()) {
        response.headers_mut().insert(INVOCATION_HEADER, value);
    }
}

/// Answers a request that was not invoked, with a `request_rejected`
/// record under a fresh invocation id that the response also carries.
fn reject(
    function: Option<&str>,
    method: &Method,
    path: &str,
    status: StatusCode,
    message: String,
) -> Response {
    let id = InvocationId::new();
    let span = tracing::info_span!(
        target: "ccfn",
        SPAN_NAME,
        function = function.unwrap_or("-"),
        invocation_id = id.as_str(),
        call_sid = tracing::field::Empty,
    );
    let fields = vec![
        ("status", json!(status.as_u16())),
        ("method", json!(echo(method.as_str()))),
        ("path", json!(echo(path))),
        ("error", json!(message)),
    ];
    let level = if status.is_server_error() {
        Level::ERROR
    } else {
        Level::WARN
    };
    span.in_scope(|| {
        emit(
            level,
            &crate::record::REQUEST_REJECTED,
            &format!("request rejected: {message}"),
            &fields,
        )
    });
    let mut response = json_response(status, &json!({ "message": message }));
    set_id(&mut response, &id);
    response
}
