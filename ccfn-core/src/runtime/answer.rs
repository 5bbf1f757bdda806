//! What the runtime answers: a function's completion, or a rejection with its
//! `request_rejected` record; each with its invocation id.

use std::borrow::Cow;
use std::time::Instant;

use axum::body::Body;
use axum::extract::NestedPath;
use axum::http::request::Parts;
use axum::http::{header, HeaderName, HeaderValue, StatusCode, Version};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use tracing::Level;

use crate::function::callback::{Completion, InvocationId, Reply};
use crate::function::event::RequestInfo;
use crate::record::{emit_at, Invocation, SPAN_NAME};
use crate::secret::echo;

/// The response header that carries the invocation id.
pub(super) const INVOCATION_HEADER: &str = "x-ccfn-invocation-id";

/// [`INVOCATION_HEADER`] as a header name, made once rather than parsed
/// from the text on every response.
static INVOCATION_HEADER_NAME: HeaderName = HeaderName::from_static(INVOCATION_HEADER);

/// The prefix of the router this one is nested in (`/ccfn`), or `""`:
/// axum strips it from the URI the nested router sees.
pub(super) fn nest_prefix(parts: &Parts) -> &str {
    parts
        .extensions
        .get::<NestedPath>()
        .map_or("", |nested| nested.as_str().trim_end_matches('/'))
}

/// The request's path as the client sent it, nest prefix included.
pub(super) fn full_path(parts: &Parts) -> Cow<'_, str> {
    match nest_prefix(parts) {
        "" => Cow::Borrowed(parts.uri.path()),
        prefix => Cow::Owned(format!("{prefix}{}", parts.uri.path())),
    }
}

/// What a request says of itself, as OpenTelemetry's HTTP server
/// conventions read it: the scheme and host the client asked for (a
/// proxy's `Forwarded` or `X-Forwarded-*` first, then the request's own
/// URI, which on AWS Lambda is built from the event, then `Host`), the
/// client's address (the proxy's, then the connection's peer, then the
/// platform's source IP), the path with any nest prefix, and the
/// function's `route` (none for a request that matched no function).
/// Each text is read where it is and copied once, into the one buffer
/// [`RequestInfo`] holds them in.
pub(super) fn request_info(parts: &Parts, route: Option<&str>) -> RequestInfo {
    use crate::function::event::RequestPart;
    // Looked up by names made once, not parsed from text each time.
    static X_FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");
    static X_FORWARDED_HOST: HeaderName = HeaderName::from_static("x-forwarded-host");
    static X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
    let text = |name: &HeaderName| parts.headers.get(name).and_then(|v| v.to_str().ok());
    // A proxy chain lists the client first.
    fn first(value: &str) -> &str {
        value.split(',').next().unwrap_or("").trim()
    }
    let forwarded_header = text(&header::FORWARDED);
    let forwarded = |key: &str| {
        forwarded_header.and_then(|value| {
            let first = value.split(',').next().unwrap_or("");
            first.split(';').find_map(|pair| {
                let (name, value) = pair.trim().split_once('=')?;
                name.trim()
                    .eq_ignore_ascii_case(key)
                    .then(|| value.trim().trim_matches('"'))
            })
        })
    };
    let scheme = forwarded("proto")
        .or_else(|| text(&X_FORWARDED_PROTO).map(first))
        .or_else(|| parts.uri.scheme_str())
        .filter(|scheme| !scheme.is_empty())
        .unwrap_or("http");
    let authority = forwarded("host")
        .or_else(|| text(&X_FORWARDED_HOST).map(first))
        .or_else(|| parts.uri.authority().map(|a| a.as_str()))
        .or_else(|| text(&header::HOST))
        .filter(|authority| !authority.is_empty());
    let (host, port) = match authority.map(split_authority) {
        Some((host, port)) => (Some(host), port),
        None => (None, None),
    };
    let client = forwarded("for")
        .or_else(|| text(&X_FORWARDED_FOR).map(first))
        .map(unbracket)
        .filter(|client| !client.is_empty());
    let peer = parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|peer| peer.0.ip());
    let user_agent = text(&header::USER_AGENT);
    let prefix = nest_prefix(parts);
    let path = parts.uri.path();
    // Each text's room, as cut (an ellipsis is 3 bytes); an address as
    // text is at most 45.
    let room = |text: Option<&str>, max: usize| text.map_or(0, |text| text.len().min(max + 3));
    let capacity = parts.method.as_str().len()
        + room(Some(path), MAX_PATH_BYTES)
        + prefix.len() * 2
        + route.map_or(0, str::len)
        + room(Some(scheme), MAX_TEXT_BYTES)
        + room(host, MAX_TEXT_BYTES)
        + client.map_or(45, |client| room(Some(client), MAX_TEXT_BYTES))
        + room(user_agent, MAX_TEXT_BYTES);
    let mut info = RequestInfo::with_capacity(capacity);
    info.say(RequestPart::Method, |out| {
        out.push_str(parts.method.as_str())
    });
    info.say(RequestPart::Path, |out| {
        let start = out.len();
        out.push_str(prefix);
        out.push_str(path);
        cut_from(out, start, MAX_PATH_BYTES);
    });
    if let Some(route) = route {
        info.say(RequestPart::Route, |out| {
            out.push_str(prefix);
            out.push_str(route);
        });
    }
    info.say(RequestPart::Scheme, |out| {
        let start = out.len();
        push_cut(out, scheme, MAX_TEXT_BYTES);
        out[start..].make_ascii_lowercase();
    });
    if let Some(host) = host {
        info.say(RequestPart::Host, |out| push_cut(out, host, MAX_TEXT_BYTES));
    }
    if let Some(client) = client {
        info.say(RequestPart::Client, |out| {
            push_cut(out, client, MAX_TEXT_BYTES)
        });
    } else if let Some(ip) = peer {
        info.say(RequestPart::Client, |out| push_ip(out, ip));
    } else if let Some(ip) = platform_source_ip(parts) {
        info.say(RequestPart::Client, |out| {
            push_cut(out, &ip, MAX_TEXT_BYTES)
        });
    }
    if let Some(user_agent) = user_agent {
        info.say(RequestPart::UserAgent, |out| {
            push_cut(out, user_agent, MAX_TEXT_BYTES)
        });
    }
    info.port = port;
    info.version = match parts.version {
        Version::HTTP_09 => Some("0.9"),
        Version::HTTP_10 => Some("1.0"),
        Version::HTTP_11 => Some("1.1"),
        Version::HTTP_2 => Some("2"),
        Version::HTTP_3 => Some("3"),
        _ => None,
    };
    info
}

/// Appends `ip` as text, as its `Display` writes it: an IPv4 address
/// (every request's peer, when telemetry is exported) digit by digit,
/// without the formatter's four passes.
fn push_ip(out: &mut String, ip: std::net::IpAddr) {
    match ip {
        std::net::IpAddr::V4(v4) => {
            for (at, octet) in v4.octets().into_iter().enumerate() {
                if at > 0 {
                    out.push('.');
                }
                out.push_str(itoa::Buffer::new().format(octet));
            }
        }
        std::net::IpAddr::V6(v6) => {
            use std::fmt::Write as _;
            let _ = write!(out, "{v6}");
        }
    }
}

/// The most of a request's path a span keeps, in bytes.
pub(super) const MAX_PATH_BYTES: usize = 2048;
/// The most of a request's other texts a span keeps (its user agent,
/// host, client, scheme), in bytes: a client's header of any size must not
/// become an attribute of every span and export of that size.
pub(super) const MAX_TEXT_BYTES: usize = 256;

/// `text`, cut at `max` bytes (on a character boundary) with an
/// ellipsis.
#[cfg(test)]
pub(super) fn cut(text: &str, max: usize) -> String {
    let mut out = String::new();
    push_cut(&mut out, text, max);
    out
}

/// Appends `text`, cut at `max` bytes (on a character boundary) with an
/// ellipsis.
fn push_cut(out: &mut String, text: &str, max: usize) {
    if text.len() <= max {
        out.push_str(text);
        return;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    out.push_str(&text[..end]);
    out.push('…');
}

/// Cuts what `out` holds from `start` on at `max` bytes (on a character
/// boundary), with an ellipsis, when it is longer.
fn cut_from(out: &mut String, start: usize, max: usize) {
    if out.len() - start <= max {
        return;
    }
    let mut end = start + max;
    while !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
    out.push('…');
}

/// `host[:port]`, `[v6]:port` or a `Forwarded` `for`/`host` value as its
/// host (without brackets) and port.
pub(super) fn split_authority(authority: &str) -> (&str, Option<u16>) {
    if let Some(bracketed) = authority.strip_prefix('[') {
        let (host, after) = bracketed.split_once(']').unwrap_or((bracketed, ""));
        return (host, after.strip_prefix(':').and_then(|p| p.parse().ok()));
    }
    match authority.rsplit_once(':') {
        // One colon: a port; more: an IPv6 address without brackets.
        Some((host, port)) if !host.contains(':') => (host, port.parse().ok()),
        _ => (authority, None),
    }
}

/// A client address as `X-Forwarded-For` or `Forwarded` write it, without
/// the brackets (and port) of an IPv6 address.
fn unbracket(client: &str) -> &str {
    if client.starts_with('[') {
        split_authority(client).0
    } else {
        client
    }
}

/// The client's IP address as AWS Lambda's API Gateway event gives it.
#[cfg(feature = "lambda")]
fn platform_source_ip(parts: &Parts) -> Option<String> {
    use lambda_http::request::RequestContext;
    match parts.extensions.get::<RequestContext>()? {
        RequestContext::ApiGatewayV2(context) => context.http.source_ip.clone(),
        RequestContext::ApiGatewayV1(context) => context.identity.source_ip.clone(),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

#[cfg(not(feature = "lambda"))]
fn platform_source_ip(_parts: &Parts) -> Option<String> {
    None
}

/// A function's completion as the caller receives it: the reply, or the
/// error's status and message; with the invocation's id.
pub(super) struct Answer(pub(super) Completion);

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        let (invocation_id, result) = self.0.into_parts();
        let mut response = match result {
            Ok(reply) => reply_response(reply),
            Err(error) => {
                let status = StatusCode::from_u16(error.kind().http_status())
                    .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                // The message reaches the caller, not the log layer: scrub
                // it here too.
                let mut message = error.caller_message().to_owned();
                crate::secret::scrub(&mut message, &[]);
                json_response(status, &json!({ "message": message }))
            }
        };
        set_id(&mut response, invocation_id);
        response
    }
}

fn reply_response(reply: Reply) -> Response {
    match reply {
        Reply::Xml(xml) => with_type(Response::new(Body::from(xml)), "text/xml"),
        // The document is moved into the body, not copied.
        Reply::Voice(voice) => with_type(Response::new(Body::from(voice.into_xml())), "text/xml"),
        Reply::Json(value) => json_response(StatusCode::OK, &value),
        Reply::Http(custom) => {
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

/// A request answered without invoking its function: a JSON
/// `{"message": ..}` answer and a `request_rejected` record, written when
/// the answer is made, under a fresh invocation id that the answer
/// carries.
#[derive(Debug)]
pub(super) struct Rejection {
    function: Option<&'static str>,
    method: String,
    path: String,
    status: StatusCode,
    message: String,
    /// The call the request was about, when its parameters name one
    /// (boxed, as the rejection is returned in a `Result`).
    call_sid: Option<Box<str>>,
    /// What the observer is told of the request: gathered only when one
    /// is installed.
    observed: Option<Box<Observed>>,
}

/// What a rejected request says of itself, for the observer
/// ([`crate::observe::Rejected`]).
#[derive(Debug)]
struct Observed {
    request: RequestInfo,
    traceparent: Option<String>,
    tracestate: Option<String>,
    /// When the request was refused.
    refused: Instant,
}

/// The longest trace context header kept: a `tracestate` holds at most
/// 32 members of 256 bytes, a `traceparent` 55 bytes; a longer one is
/// not one.
const MAX_TRACE_HEADER_BYTES: usize = 8 * 1024;

impl Observed {
    /// What the request of `parts` says of itself; its route is that of
    /// `function`, when it matched one (each function's route is the
    /// literal path it is served at, so the path the router matched).
    fn of(function: Option<&'static str>, parts: &Parts) -> Self {
        let request = request_info(parts, function.map(|_| parts.uri.path()));
        let header = |name: &str| {
            parts
                .headers
                .get(name)
                .and_then(|value| value.to_str().ok())
                .filter(|value| value.len() <= MAX_TRACE_HEADER_BYTES)
                .map(str::to_owned)
        };
        Observed {
            request,
            traceparent: header("traceparent"),
            tracestate: header("tracestate"),
            refused: Instant::now(),
        }
    }
}

impl Rejection {
    /// Rejects the request of `parts` (sent to `function`, when known)
    /// with `status` and `message`.
    pub(super) fn new(
        function: Option<&'static str>,
        parts: &Parts,
        status: StatusCode,
        message: String,
    ) -> Self {
        Rejection {
            function,
            method: echo(parts.method.as_str()),
            path: echo(&full_path(parts)),
            status,
            message,
            call_sid: None,
            // A load and a branch when no observer is installed.
            observed: crate::observe::active().then(|| Box::new(Observed::of(function, parts))),
        }
    }

    /// The same rejection, about the call whose `CallSid` is the first of
    /// `call_sids` (the request's parameters), when it is a call SID
    /// (`CA` and 32 hex digits): anything else a caller sent is not
    /// written.
    pub(super) fn about_call<'a>(mut self, mut call_sids: impl Iterator<Item = &'a str>) -> Self {
        self.call_sid = call_sids
            .next()
            .filter(|sid| is_call_sid(sid))
            .map(Box::from);
        self
    }

    /// The same rejection, about the call `call` names, when it is a call
    /// SID (see [`Rejection::about_call`]).
    pub(super) fn about_kept_call(self, call: &KeptCallSid) -> Self {
        self.about_call(call.as_str().into_iter())
    }
}

/// A request's `CallSid` kept on the stack (no allocation on the way of
/// every request), for a rejection written once its event has gone to
/// the invocation: a text of a call SID's length, checked to be one when
/// the rejection takes it.
#[derive(Clone, Copy, Debug)]
pub(super) struct KeptCallSid(Option<[u8; CALL_SID_LEN]>);

/// `CA` and 32 hex digits.
const CALL_SID_LEN: usize = 34;

impl KeptCallSid {
    /// Keeps `sid` when it has a call SID's length.
    pub(super) fn of(sid: Option<&str>) -> KeptCallSid {
        KeptCallSid(sid.and_then(|sid| sid.as_bytes().try_into().ok()))
    }

    fn as_str(&self) -> Option<&str> {
        self.0
            .as_ref()
            .and_then(|sid| std::str::from_utf8(sid).ok())
    }
}

/// Whether `text` is a call SID: `CA` and 32 hex digits.
fn is_call_sid(text: &str) -> bool {
    text.len() == 34
        && text.starts_with("CA")
        && text.bytes().skip(2).all(|b| b.is_ascii_hexdigit())
}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        let Rejection {
            function,
            method,
            path,
            status,
            message,
            call_sid,
            observed,
        } = self;
        let id = InvocationId::new();
        // Its record is written as an invocation's, in an invocation span
        // for other layers.
        let invocation = std::sync::Arc::new(Invocation::new(
            function.unwrap_or("-"),
            id,
            call_sid.as_deref().map(str::to_owned),
            Vec::new(),
        ));
        let level = if status.is_server_error() {
            Level::ERROR
        } else {
            Level::WARN
        };
        let logged = format!("request rejected: {message}");
        let record = crate::record::RequestRejected {
            status: status.as_u16(),
            method: &method,
            path: &path,
            error: &message,
        };
        crate::record::scope::within(&invocation, || {
            let span = tracing::info_span!(
                target: "ccfn",
                SPAN_NAME,
                function = function.unwrap_or("-"),
                invocation_id = id.as_str(),
                call_sid = call_sid.as_deref(),
            );
            span.in_scope(|| emit_at(level, &logged, &record));
        });
        if let (Some(observer), Some(observed)) = (crate::observe::observer(), observed) {
            let request = &observed.request;
            observer.rejected(&crate::observe::Rejected {
                function,
                invocation_id: id.as_str(),
                call_sid: call_sid.as_deref(),
                status: status.as_u16(),
                traceparent: observed.traceparent.as_deref(),
                tracestate: observed.tracestate.as_deref(),
                request: request.server(),
                elapsed: observed.refused.elapsed(),
                level: if level == Level::ERROR {
                    "ERROR"
                } else {
                    "WARN"
                },
                message: &logged,
                record: &record,
            });
        }
        let mut response = json_response(status, &json!({ "message": message }));
        set_id(&mut response, id);
        response
    }
}

/// An empty `200` with a fresh invocation id: the answer to `HEAD`.
pub(super) fn empty_with_id() -> Response {
    let mut response = Response::new(Body::empty());
    set_id(&mut response, InvocationId::new());
    response
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

/// Gives a response that has no invocation id (the catalogue's) one, so
/// that every response carries it.
pub(super) fn with_invocation_id(mut response: Response) -> Response {
    if !response.headers().contains_key(&INVOCATION_HEADER_NAME) {
        set_id(&mut response, InvocationId::new());
    }
    response
}

/// Gives `response` the header of invocation `id`.
fn set_id(response: &mut Response, id: InvocationId) {
    if let Ok(value) = HeaderValue::from_str(id.as_str()) {
        response
            .headers_mut()
            .insert(INVOCATION_HEADER_NAME.clone(), value);
    }
}

#[cfg(test)]
mod tests {
    /// An address is written as its `Display` writes it.
    #[test]
    fn an_address_is_written_as_display_writes_it() {
        use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
        let mut addresses: Vec<IpAddr> = vec![
            Ipv6Addr::LOCALHOST.into(),
            "2001:db8::ff00:42:8329".parse().unwrap(),
            "::ffff:192.0.2.1".parse().unwrap(),
        ];
        for a in [0_u8, 1, 9, 10, 99, 100, 127, 199, 200, 255] {
            for b in [0_u8, 7, 42, 255] {
                addresses.push(Ipv4Addr::new(a, b, 255 - b, a ^ b).into());
            }
        }
        for address in addresses {
            let mut text = String::new();
            super::push_ip(&mut text, address);
            assert_eq!(text, address.to_string());
        }
    }

    /// A call SID kept for a refusal is the request's, and only one:
    /// anything else of a call SID's length is left out when taken.
    #[test]
    fn a_kept_call_sid_is_the_request_s_call_sid_only() {
        use super::KeptCallSid;
        let sid = "CA0123456789abcdef0123456789abcdef";
        assert_eq!(KeptCallSid::of(Some(sid)).as_str(), Some(sid));
        assert_eq!(KeptCallSid::of(None).as_str(), None);
        assert_eq!(KeptCallSid::of(Some("CAshort")).as_str(), None);
        assert_eq!(KeptCallSid::of(Some(&format!("{sid}0"))).as_str(), None);
        // Of the length, but no call SID: kept, then not taken.
        let other = "XX0123456789abcdef0123456789abcdef";
        let parts = axum::http::Request::new(()).into_parts().0;
        let refused = |call: KeptCallSid| {
            super::Rejection::new(
                None,
                &parts,
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                String::new(),
            )
            .about_kept_call(&call)
            .call_sid
        };
        assert_eq!(refused(KeptCallSid::of(Some(other))), None);
        assert_eq!(refused(KeptCallSid::of(Some(sid))).as_deref(), Some(sid));
    }

    #[test]
    fn only_a_call_sid_is_taken_for_one() {
        assert!(super::is_call_sid("CA0123456789abcdef0123456789abcdef"));
        assert!(super::is_call_sid("CA0123456789ABCDEF0123456789ABCDEF"));
        for not in [
            "",
            "CA",
            "CA0123456789abcdef0123456789abcde",
            "CA0123456789abcdef0123456789abcdef0",
            "CA0123456789abcdef0123456789abcdeg",
            "XX0123456789abcdef0123456789abcdef",
            "CA\u{1b}[2J456789abcdef0123456789abcd",
        ] {
            assert!(!super::is_call_sid(not), "{not:?}");
        }
    }
}
