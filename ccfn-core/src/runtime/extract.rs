//! The extractors of a function's request: its `Host`, its parameters
//! (read under the runtime's limits), and its signature. Each refuses a
//! request with a [`Rejection`], which answers it and writes its
//! `request_rejected` record.

use std::collections::HashSet;
use std::sync::Arc;

use axum::body::{to_bytes, Bytes};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode, Version};
use serde_json::Value;

use super::answer::{nest_prefix, Rejection};
use super::params::{parse_form, parse_json};
use super::state::Endpoint;
use crate::function::event::Event;
use crate::secret::echo;
use crate::signature::{self, SignedBody};

/// Proof that the request has exactly one `Host` header, a host name with
/// an optional port (none is fine before HTTP/1.1).
///
/// HTTP/1.1 requires exactly one (RFC 9112, 3.2), and the signature check
/// builds the signed URL from it, so a request without one, with two, or
/// with one that is not a host and port is refused rather than checked
/// against a guessed URL. The rejection names no function: the request is
/// refused before it is known to be for one.
pub(super) struct CheckedHost;

impl<S: Sync> FromRequestParts<S> for CheckedHost {
    type Rejection = Rejection;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Rejection> {
        host_problem(parts).map_or(Ok(CheckedHost), |message| {
            Err(Rejection::new(
                None,
                parts,
                StatusCode::BAD_REQUEST,
                message.to_owned(),
            ))
        })
    }
}

/// What is wrong with the request's `Host` headers, if anything.
fn host_problem(parts: &Parts) -> Option<&'static str> {
    let mut hosts = parts.headers.get_all(header::HOST).iter();
    match (hosts.next(), hosts.next()) {
        (None, _) if parts.version >= Version::HTTP_11 => {
            Some("the request has no Host header: HTTP/1.1 requires one")
        }
        (None, _) => None,
        (Some(_), Some(_)) => Some("the request has more than one Host header: send exactly one"),
        (Some(host), None) => {
            let valid = host
                .to_str()
                .ok()
                .and_then(|host| host.parse::<axum::http::uri::Authority>().ok())
                .is_some_and(|authority| {
                    authority.as_str() == authority.host()
                        || authority.port_u16().is_some() && !authority.as_str().contains('@')
                });
            (!valid).then_some("the Host header is not a host name with an optional port")
        }
    }
}

/// How the body is parsed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    /// Form parameters: `application/x-www-form-urlencoded`, or no
    /// content type.
    Form,
    /// A JSON object of parameters: `application/json`.
    Json,
}

/// A function's parameters, from its body and query string, read under
/// the runtime's limits (body size, read time, parameter count), with the
/// request they came with.
pub(super) struct Parameters {
    parts: Parts,
    kind: BodyKind,
    bytes: Bytes,
    body: Vec<(String, Value)>,
    query: Vec<(String, Value)>,
}

impl FromRequest<Arc<Endpoint>> for Parameters {
    type Rejection = Rejection;

    async fn from_request(request: Request, endpoint: &Arc<Endpoint>) -> Result<Self, Rejection> {
        let (parts, body) = request.into_parts();
        let config = &endpoint.shared.config;
        let reject =
            |status, message| Rejection::new(Some(endpoint.name()), &parts, status, message);
        let kind = body_kind(&parts.headers)
            .map_err(|message| reject(StatusCode::UNSUPPORTED_MEDIA_TYPE, message))?;
        let limit = config.body_limit;
        let too_large = || {
            reject(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is larger than the {limit} bytes allowed"),
            )
        };
        let declared = parts
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|length| length > limit) {
            return Err(too_large());
        }
        let read = tokio::time::timeout(config.body_timeout, to_bytes(body, limit))
            .await
            .map_err(|_| {
                reject(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the request body did not arrive within {} ms",
                        config.body_timeout.as_millis()
                    ),
                )
            })?;
        let bytes = read.map_err(|error| {
            let over = std::error::Error::source(&error)
                .is_some_and(|e| e.is::<http_body_util::LengthLimitError>());
            if over {
                too_large()
            } else {
                reject(
                    StatusCode::BAD_REQUEST,
                    format!("the request body could not be read: {error}"),
                )
            }
        })?;

        let query = parts.uri.query().unwrap_or("");
        let parsed = parse_form(query.as_bytes(), "query string").and_then(|query| {
            let body = match (kind, bytes.is_empty()) {
                (_, true) => Vec::new(),
                (BodyKind::Json, false) => parse_json(&bytes)?,
                (BodyKind::Form, false) => parse_form(&bytes, "body")?,
            };
            Ok((query, body))
        });
        let (query, body) = parsed.map_err(|message| {
            reject(
                StatusCode::BAD_REQUEST,
                format!("malformed request: {message}"),
            )
        })?;
        let count = query.len() + body.len();
        if count > config.max_params {
            return Err(reject(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the request has {count} parameters, over the {} allowed",
                    config.max_params
                ),
            )
            .about_call(call_sids(&body, &query)));
        }
        Ok(Parameters {
            parts,
            kind,
            bytes,
            body,
            query,
        })
    }
}

/// The `CallSid` values of a request's parameters, the body's first.
fn call_sids<'a>(
    body: &'a [(String, Value)],
    query: &'a [(String, Value)],
) -> impl Iterator<Item = &'a str> {
    body.iter()
        .chain(query)
        .filter(|(name, _)| name == "CallSid")
        .filter_map(|(_, value)| value.as_str())
}

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

impl Parameters {
    /// The event the function receives, and the request it came with.
    ///
    /// The body's parameters come first, in order; then each query-string
    /// parameter whose name is not in the body; then the headers, less
    /// those of the connection or a proxy.
    pub(super) fn into_event(self) -> (Event, Parts) {
        let Parameters {
            parts,
            body,
            mut query,
            ..
        } = self;
        if !query.is_empty() && !body.is_empty() {
            let in_body: HashSet<&str> = body.iter().map(|(name, _)| name.as_str()).collect();
            query.retain(|(name, _)| !in_body.contains(name.as_str()));
        }
        let mut event = Event::new();
        for (name, value) in body.into_iter().chain(query) {
            event.push(name, value);
        }
        for (name, value) in &parts.headers {
            let name = name.as_str();
            if DROPPED_HEADERS.contains(&name)
                || name.starts_with("x-forwarded-")
                || name.starts_with("proxy-")
            {
                continue;
            }
            if let Ok(value) = value.to_str() {
                event.push_header(name, value);
            }
        }
        event.set_request(parts.method.as_str(), parts.uri.path());
        (event, parts)
    }
}

/// Which parser the body takes; an error names the media type that
/// cannot be read.
fn body_kind(headers: &HeaderMap) -> Result<BodyKind, String> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Ok(BodyKind::Form);
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
        "application/x-www-form-urlencoded" => Ok(BodyKind::Form),
        "application/json" => Ok(BodyKind::Json),
        _ => Err(format!(
            "unsupported content type `{}`: send application/x-www-form-urlencoded or application/json",
            echo(&essence)
        )),
    }
}

/// A request whose platform signature was checked, when its function is
/// protected and the context has an auth token (see `docs/runtime.md`,
/// "Request signatures").
pub(super) struct Signed<T>(pub(super) T);

impl FromRequest<Arc<Endpoint>> for Signed<Parameters> {
    type Rejection = Rejection;

    async fn from_request(request: Request, endpoint: &Arc<Endpoint>) -> Result<Self, Rejection> {
        let parameters = Parameters::from_request(request, endpoint).await?;
        let Some(key) = endpoint.signing_key() else {
            return Ok(Signed(parameters));
        };
        let headers = &parameters.parts.headers;
        let url = signed_url(
            endpoint.shared.config.public_url.as_deref(),
            &parameters.parts,
        );
        let signature = headers
            .get(signature::SIGNATURE_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let form: Vec<(String, String)>;
        let body = match parameters.kind {
            BodyKind::Json => SignedBody::Json(&parameters.bytes),
            BodyKind::Form => {
                form = parameters
                    .body
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                    .collect();
                SignedBody::Form(&form)
            }
        };
        match signature::validate(key.expose(), signature, &url, &body) {
            Ok(()) => Ok(Signed(parameters)),
            Err(error) => Err(Rejection::new(
                Some(endpoint.name()),
                &parameters.parts,
                StatusCode::FORBIDDEN,
                error.to_string(),
            )
            .about_call(call_sids(&parameters.body, &parameters.query))),
        }
    }
}

/// The URL the platform signed: `public_url` (`CCFN_PUBLIC_URL`), else the
/// request's `X-Forwarded-Proto` (or `http`) and `Host`; then the path (with
/// the prefix of a router this one is nested in) and the query.
fn signed_url(public_url: Option<&str>, parts: &Parts) -> String {
    let path_and_query = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let prefix = nest_prefix(parts);
    if let Some(base) = public_url {
        return format!("{base}{prefix}{path_and_query}");
    }
    let text = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok());
    // A proxy chain may list several (`https, http`): the first is the
    // client's.
    let scheme = text("x-forwarded-proto")
        .and_then(|v| v.split(',').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "http".to_owned());
    let host = text("host").unwrap_or("localhost");
    format!("{scheme}://{host}{prefix}{path_and_query}")
}
