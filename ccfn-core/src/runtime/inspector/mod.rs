//! The inspector: a page of recent invocations at `/__ccfn/inspector`,
//! live, with each invocation's records as a timeline, its voice markup as
//! what the caller hears, and a replay; and each simulated call's
//! transcript beside its invocations. Served by [`Runtime::serve`]
//! (whose logging feeds it) when `CCFN_INSPECTOR` says so: on in local
//! mode, off in production mode.
//!
//! [`Runtime::serve`]: super::Runtime::serve

mod hears;
mod page;
mod store;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, FromRequestParts, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::Router;
use futures_util::Stream;
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;
use tower::ServiceExt as _;

pub(super) use page::Route;
use page::{Filter, ROOT};
pub(crate) use store::Sink;
use store::{Recorded, Store};

use super::answer::INVOCATION_HEADER;
use super::config::RuntimeConfig;
use super::feature::{Registered, AUTH_TOKEN};
use crate::function::context::Context;
use crate::secret::REDACTED;
use crate::signature;

/// The inspector's memory: created before logging is installed, so that
/// its layer feeds it, and served by the router.
#[derive(Clone)]
pub(crate) struct Inspector(Arc<Store>);

impl Inspector {
    /// An inspector keeping the last `invocations`.
    pub(crate) fn new(invocations: usize) -> Self {
        Inspector(Store::new(invocations))
    }

    /// Tells the pages whether the log filter leaves out records of the
    /// contract (`CCFN_LOG=warn`), which the inspector then lacks too.
    pub(crate) fn filtered(&self, filtered: bool) {
        self.0.set_filtered(filtered);
    }

    /// Ends the live lists: the server shuts down, and an open page must
    /// not hold its connection.
    pub(crate) fn close(&self) {
        self.0.close();
    }

    /// The sink of the logging layer that feeds it.
    pub(crate) fn sink(&self) -> Box<dyn crate::record::Sink> {
        Box::new(Sink(Arc::clone(&self.0)))
    }
}

impl Route {
    /// The route of a registered function.
    pub(super) fn of(registered: &Registered) -> Route {
        Route {
            name: registered.function.meta().name(),
            url_path: registered.url_path(),
            public: registered.public,
        }
    }
}

struct Shared {
    store: Arc<Store>,
    capacity: usize,
    routes: Vec<Route>,
    /// The functions' own router, that replays are sent through.
    functions: Router,
    context: Context,
    public_url: Option<String>,
    /// `CCFN_PUBLIC_URL`'s host name, lowercase.
    public_host: Option<String>,
    /// `CCFN_INSPECTOR=on`: served to whoever reaches the server.
    open: bool,
    /// How long a request body may take to arrive (`CCFN_BODY_TIMEOUT_MS`).
    body_timeout: Duration,
}

impl Shared {
    /// The key a replay to `route` is signed with, if any.
    fn signing_key(&self, route: &Route) -> Option<&crate::secret::Secret> {
        if route.public {
            return None;
        }
        self.context
            .secret(AUTH_TOKEN)
            .filter(|token| !token.expose().is_empty())
    }

    /// The invocations of `call`, in the order they ran.
    fn call(&self, call: Option<&str>) -> Vec<Recorded> {
        let Some(call) = call else {
            return Vec::new();
        };
        let mut same = self.store.list(|r| r.call_sid.as_deref() == Some(call));
        same.reverse();
        same
    }
}

/// The inspector's routes, beside `functions` (the router replays go
/// through).
pub(super) fn routes(
    inspector: &Inspector,
    config: &RuntimeConfig,
    context: Context,
    routes: Vec<Route>,
    functions: Router,
) -> Router {
    let shared = Arc::new(Shared {
        store: Arc::clone(&inspector.0),
        capacity: config.inspector_invocations,
        routes,
        functions,
        context,
        public_url: config.public_url.clone(),
        public_host: config.public_url.as_deref().and_then(|url| {
            let authority = url.split_once("://").map_or(url, |(_, rest)| rest);
            let authority = authority.split('/').next().unwrap_or(authority);
            authority
                .parse::<axum::http::uri::Authority>()
                .ok()
                .map(|a| a.host().to_ascii_lowercase())
        }),
        open: config.inspector == Some(true),
        body_timeout: config.body_timeout,
    });
    Router::new()
        .route(ROOT, get(list))
        .route(&format!("{ROOT}/events"), get(events))
        .route(&format!("{ROOT}/invocations/{{id}}"), get(invocation))
        .route(&format!("{ROOT}/invocations/{{id}}/replay"), post(replay))
        .route(&format!("{ROOT}/calls/{{call_sid}}"), get(call_page))
        .route(
            &format!("{ROOT}/calls/{{call_sid}}/transcript"),
            put(put_transcript),
        )
        .route(
            &format!("{ROOT}/inspector.css"),
            get(|_: Local| async {
                asset("text/css; charset=utf-8", include_str!("inspector.css"))
            }),
        )
        .route(
            &format!("{ROOT}/inspector.js"),
            get(|_: Local| async {
                asset(
                    "text/javascript; charset=utf-8",
                    include_str!("inspector.js"),
                )
            }),
        )
        .with_state(shared)
}

/// What every answer of the inspector carries: no caching, no framing,
/// and a policy that lets the page load only its own style and script.
fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; \
             form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

fn html(status: StatusCode, body: String) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    secured(response)
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    let mut response = Response::new(Body::from(Bytes::from_static(body.as_bytes())));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    secured(response)
}

/// A request the inspector answers.
///
/// - From this machine: a loopback peer (an IPv4 one too when the server
///   listens on `[::]` and sees it as `::ffff:127.0.0.1`), through no
///   proxy (no header a proxy adds: see [`proxied`]), unless
///   `CCFN_INSPECTOR=on` says that whoever reaches the server may use it.
/// - Addressed to this machine: `localhost`, a name under it, or an IP
///   address (and `CCFN_PUBLIC_URL`'s host when turned on), so that a web
///   page whose name points here (DNS rebinding) cannot read it.
/// - To change anything, sent from the inspector's own page: a browser's
///   `Origin` naming this host, and no `Sec-Fetch-Site` but `same-origin`.
struct Local;

impl FromRequestParts<Arc<Shared>> for Local {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, shared: &Arc<Shared>) -> Result<Self, Response> {
        let host = this_machine(parts, shared).map_err(|refused| *refused)?;
        if parts.method != Method::GET
            && parts.method != Method::HEAD
            && !same_origin(&parts.headers, host)
        {
            return Err(refuse(
                "Not sent from the inspector",
                "A replay must be sent from the inspector's own page in a browser: this request came from another site, or from no page.",
            ));
        }
        Ok(Local)
    }
}

/// A request a program of this machine sends, not a page: the transcript
/// `ccfn call` sends after each step of a simulated call. The same checks
/// of peer and `Host` as [`Local`]; then, instead of the replay's rule,
/// refused when a browser says another site sent it: an `Origin` naming
/// another host, or a `Sec-Fetch-Site` other than `same-origin` or
/// `none`.
///
/// A form of another site cannot send it even without those headers: its
/// route takes `application/json` only, a content type a page of another
/// site can send only after a CORS preflight (`OPTIONS`), which the
/// runtime does not answer, so the browser never sends the request.
struct Program;

impl FromRequestParts<Arc<Shared>> for Program {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, shared: &Arc<Shared>) -> Result<Self, Response> {
        let host = this_machine(parts, shared).map_err(|refused| *refused)?;
        if !not_cross_site(&parts.headers, host) {
            return Err(refuse(
                "Sent from another site",
                "A call's transcript is sent by a program of this machine (ccfn call), not by a page of another site.",
            ));
        }
        Ok(Program)
    }
}

/// The checks of every request the inspector answers: from this machine
/// through no proxy (unless `CCFN_INSPECTOR=on`), addressed to this
/// machine. The `Host` it was addressed to.
fn this_machine<'p>(parts: &'p Parts, shared: &Shared) -> Result<&'p str, Box<Response>> {
    if !shared.open {
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>();
        if proxied(&parts.headers) || !peer.is_some_and(|ConnectInfo(peer)| loopback(*peer)) {
            return Err(Box::new(refuse(
                "Served to this machine only",
                "The inspector answers requests from this machine, through no proxy or tunnel. Set CCFN_INSPECTOR=on to serve it to whoever reaches the server: they can then read every invocation and replay it, signed.",
            )));
        }
    }
    let host = parts
        .headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let public = if shared.open {
        shared.public_host.as_deref()
    } else {
        None
    };
    if !local_host(host, public) {
        return Err(Box::new(refuse(
            "Not served to this host",
            "The inspector answers requests addressed to localhost or an IP address (and, with CCFN_INSPECTOR=on, CCFN_PUBLIC_URL's host), so that no other site can read it through a name that points here.",
        )));
    }
    Ok(host)
}

/// Whether `peer` is this machine: a loopback address, IPv4, IPv6, or
/// IPv4 mapped into IPv6 (`::ffff:127.0.0.1`, how a server listening on
/// `[::]` sees an IPv4 client).
fn loopback(peer: SocketAddr) -> bool {
    peer.ip().to_canonical().is_loopback()
}

/// Whether a proxy or a tunnel passed the request on: any header one
/// adds (`Forwarded`, the `X-Forwarded-*` family, `X-Real-IP`, `Via`,
/// and the client-address headers of common proxies and CDNs). A
/// loopback peer then says nothing of who sent the request.
fn proxied(headers: &HeaderMap) -> bool {
    headers.keys().any(|name| {
        let name = name.as_str();
        matches!(
            name,
            "forwarded"
                | "via"
                | "x-real-ip"
                | "x-client-ip"
                | "true-client-ip"
                | "cf-connecting-ip"
                | "fastly-client-ip"
                | "x-cluster-client-ip"
                | "x-original-forwarded-for"
        ) || name.starts_with("x-forwarded-")
    })
}

/// The page that says why a request is refused.
fn refuse(title: &str, text: &str) -> Response {
    html(StatusCode::FORBIDDEN, page::message(title, text))
}

/// Whether `host` (a `Host` header) names this machine: `localhost` or a
/// name under it, an IP address, or the host name `public`.
fn local_host(host: &str, public: Option<&str>) -> bool {
    let Ok(authority) = host.parse::<axum::http::uri::Authority>() else {
        return false;
    };
    if authority.as_str().contains('@') {
        return false;
    }
    let name = authority.host().to_ascii_lowercase();
    let bare = name.trim_start_matches('[').trim_end_matches(']');
    name == "localhost"
        || name.ends_with(".localhost")
        || bare.parse::<std::net::IpAddr>().is_ok()
        || public.is_some_and(|public| public.eq_ignore_ascii_case(&name))
}

/// Whether a request that changes something came from a page of this
/// host: browsers send `Origin` on every `POST` of a form, and
/// `Sec-Fetch-Site` with it.
fn same_origin(headers: &HeaderMap, host: &str) -> bool {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let site_ok = text("sec-fetch-site").is_none_or(|site| site == "same-origin");
    let origin_ok = text("origin").is_some_and(|origin| names_host(origin, host));
    site_ok && origin_ok
}

/// Whether a browser's headers, when there are any, say the request
/// comes from this host or from no page: `Origin`, if sent, names `host`;
/// `Sec-Fetch-Site`, if sent, is `same-origin` or `none` (typed in the
/// address bar, or sent by no page).
fn not_cross_site(headers: &HeaderMap, host: &str) -> bool {
    let text = |name: &str| headers.get(name).map(|v| v.to_str().unwrap_or("\u{0}"));
    let site_ok = text("sec-fetch-site").is_none_or(|site| site == "same-origin" || site == "none");
    let origin_ok = text("origin").is_none_or(|origin| names_host(origin, host));
    site_ok && origin_ok
}

/// Whether `origin` (`scheme://host[:port]`) names `host`.
fn names_host(origin: &str, host: &str) -> bool {
    origin
        .split_once("://")
        .is_some_and(|(_, rest)| rest.eq_ignore_ascii_case(host))
}

/// `GET /__ccfn/inspector`: the list.
async fn list(
    _: Local,
    State(shared): State<Arc<Shared>>,
    Query(filter): Query<Filter>,
) -> Response {
    let filter = filter.normalized();
    // Read first: a row that arrives meanwhile comes again live.
    let last_seq = shared.store.last_seq();
    let rows = shared.store.list(|r| filter.accepts(r));
    let names: Vec<&str> = shared.routes.iter().map(|r| r.name).collect();
    let transcript = |call: &str| shared.store.has_transcript(call);
    // A list filtered by a call links to the pages of the calls it shows.
    let mut calls: Vec<&str> = Vec::new();
    if let Some(wanted) = filter.call.as_deref() {
        if transcript(wanted) {
            calls.push(wanted);
        }
        for call in rows.iter().filter_map(|r| r.call_sid.as_deref()) {
            if calls.len() < page::CALL_LINKS && !calls.contains(&call) {
                calls.push(call);
            }
        }
    }
    html(
        StatusCode::OK,
        page::list(&page::ListPage {
            filter: &filter,
            rows: &rows,
            functions: &names,
            capacity: shared.capacity,
            filtered: shared.store.is_filtered(),
            last_seq,
            epoch: shared.store.epoch(),
            calls: &calls,
            transcript: &transcript,
        }),
    )
}

/// The live list's query: its filters, and the newest row the page has.
#[derive(Deserialize)]
struct Live {
    function: Option<String>,
    outcome: Option<String>,
    call: Option<String>,
    after: Option<String>,
}

/// A `row` event: the row of `recorded` if it passes `filter`, else an
/// order to remove the row of `id`.
fn row_event(store: &Store, id: &str, recorded: Option<&Recorded>, filter: &Filter) -> SseEvent {
    let row = recorded.filter(|r| filter.accepts(r));
    let data = serde_json::json!({
        "id": id,
        "seq": row.map(|r| r.seq),
        "html": row.map(|r| page::row(r, |call| store.has_transcript(call))),
    });
    SseEvent::default().event("row").data(data.to_string())
}

/// `GET /__ccfn/inspector/events`: the list's rows as they appear and
/// change, as server-sent events. First `hello` with this process's mark
/// (a page of another process reloads), then a `row` for each invocation
/// newer than `after` (those that arrived while the page loaded), then a
/// `row` for each change: `{id, seq, html}`, `html` null when the row no
/// longer passes the filter. `reload` when changes were missed; the
/// stream ends when the server shuts down.
async fn events(_: Local, State(shared): State<Arc<Shared>>, Query(live): Query<Live>) -> Response {
    let filter = Filter {
        function: live.function,
        outcome: live.outcome,
        call: live.call,
    }
    .normalized();
    let after = live.after.and_then(|a| a.parse::<u64>().ok()).unwrap_or(0);
    // Subscribed before the backlog is read: nothing falls between.
    let changes = shared.store.subscribe();
    let mut backlog: std::collections::VecDeque<SseEvent> = std::collections::VecDeque::new();
    backlog.push_back(
        SseEvent::default()
            .event("hello")
            .data(shared.store.epoch().to_string()),
    );
    let mut newer = shared.store.list(|r| r.seq > after && filter.accepts(r));
    newer.reverse();
    backlog.extend(
        newer
            .iter()
            .map(|r| row_event(&shared.store, &r.id, Some(r), &filter)),
    );
    let closed = shared.store.closed();
    let stream = futures_util::stream::unfold(
        (backlog, changes, closed, shared, filter),
        |(mut backlog, mut changes, mut closed, shared, filter)| async move {
            if let Some(event) = backlog.pop_front() {
                return Some((
                    Ok::<_, Infallible>(event),
                    (backlog, changes, closed, shared, filter),
                ));
            }
            let event = tokio::select! {
                changed = changes.recv() => match changed {
                    Ok(id) => {
                        let recorded = shared.store.row(&id);
                        row_event(&shared.store, &id, recorded.as_ref(), &filter)
                    }
                    Err(RecvError::Lagged(_)) => SseEvent::default().event("reload").data("missed"),
                    Err(RecvError::Closed) => return None,
                },
                _ = closed.wait_for(|closed| *closed) => return None,
            };
            Some((Ok(event), (backlog, changes, closed, shared, filter)))
        },
    );
    secured(sse(stream))
}

fn sse<S>(stream: S) -> Response
where
    S: Stream<Item = Result<SseEvent, Infallible>> + Send + 'static,
{
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

#[derive(Deserialize)]
struct Beside {
    beside: Option<String>,
}

/// `GET /__ccfn/inspector/invocations/{id}`: one invocation, beside
/// another with `?beside=`.
async fn invocation(
    _: Local,
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(beside): Query<Beside>,
) -> Response {
    let Some(recorded) = shared.store.get(&id) else {
        return gone(&id);
    };
    let call = shared.call(recorded.call_sid.as_deref());
    let other = beside.beside.and_then(|other| shared.store.get(&other));
    let other_call = other
        .as_ref()
        .map(|o| shared.call(o.call_sid.as_deref()))
        .unwrap_or_default();
    let signs = |route: &Route| shared.signing_key(route).is_some();
    html(
        StatusCode::OK,
        page::invocation(
            &recorded,
            &call,
            other.as_ref().map(|o| (o, other_call.as_slice())),
            &shared.routes,
            signs,
        ),
    )
}

fn gone(id: &str) -> Response {
    html(
        StatusCode::NOT_FOUND,
        page::message(
            "No such invocation",
            &format!("The inspector does not have the invocation {id}: it never ran here, or it is older than the invocations it keeps (CCFN_INSPECTOR_INVOCATIONS)."),
        ),
    )
}

/// `GET /__ccfn/inspector/calls/{call_sid}`: one call, its simulated
/// transcript beside its invocations.
async fn call_page(
    _: Local,
    State(shared): State<Arc<Shared>>,
    Path(call_sid): Path<String>,
) -> Response {
    let transcript = shared.store.transcript(&call_sid);
    let invocations = shared.call(Some(&call_sid));
    if transcript.is_none() && invocations.is_empty() {
        return html(
            StatusCode::NOT_FOUND,
            page::message(
                "No such call",
                &format!("The inspector has neither an invocation nor a simulated transcript of the call {call_sid}: it never reached this server, or it is older than what the inspector keeps."),
            ),
        );
    }
    html(
        StatusCode::OK,
        page::call(&call_sid, transcript.as_ref(), &invocations),
    )
}

/// The body of `PUT /__ccfn/inspector/calls/{call_sid}/transcript`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SentTranscript {
    /// The transcript so far, one entry a line.
    lines: Vec<String>,
    /// Whether the call ended.
    ended: bool,
}

/// Whether `call_sid` is one the transcript route takes: 1 to 64 ASCII
/// letters and digits.
fn valid_call_sid(call_sid: &str) -> bool {
    (1..=64).contains(&call_sid.len()) && call_sid.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Whether `headers` say the body is JSON: `application/json`, with or
/// without parameters.
fn json_body(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// A short answer in plain text, for a program to print.
fn plain(status: StatusCode, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    secured(response)
}

/// `PUT /__ccfn/inspector/calls/{call_sid}/transcript`: the transcript of
/// a simulated call so far, which `ccfn call` sends after each step; it
/// replaces the one kept. `{"lines": [...], "ended": bool}` as
/// `application/json` (else `415`), at most [`TRANSCRIPT_BODY`] bytes
/// (else `413`); `204` when kept.
async fn put_transcript(
    _: Program,
    State(shared): State<Arc<Shared>>,
    Path(call_sid): Path<String>,
    request: Request,
) -> Response {
    if !valid_call_sid(&call_sid) {
        return plain(
            StatusCode::BAD_REQUEST,
            "A call SID is 1 to 64 ASCII letters and digits.\n".to_owned(),
        );
    }
    if !json_body(request.headers()) {
        return plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "A transcript is sent as application/json.\n".to_owned(),
        );
    }
    let too_large = || {
        plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("A transcript is at most {TRANSCRIPT_BODY} bytes.\n"),
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|length| length > TRANSCRIPT_BODY) {
        return too_large();
    }
    let read = tokio::time::timeout(
        shared.body_timeout,
        axum::body::to_bytes(request.into_body(), TRANSCRIPT_BODY),
    )
    .await;
    let body = match read {
        Err(_) => {
            return plain(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "The transcript did not arrive within {} ms.\n",
                    shared.body_timeout.as_millis()
                ),
            )
        }
        Ok(Err(error)) => {
            let over = std::error::Error::source(&error)
                .is_some_and(|e| e.is::<http_body_util::LengthLimitError>());
            if over {
                return too_large();
            }
            return plain(
                StatusCode::BAD_REQUEST,
                format!("The transcript could not be read: {error}\n"),
            );
        }
        Ok(Ok(body)) => body,
    };
    let sent: SentTranscript = match serde_json::from_slice(&body) {
        Ok(sent) => sent,
        Err(error) => {
            // serde's message can quote a value of the body: scrubbed.
            let error = crate::secret::scrub_secrets(&error.to_string());
            return plain(
                StatusCode::BAD_REQUEST,
                format!(
                    "A transcript is {{\"lines\": [\"...\"], \"ended\": true|false}}: {error}\n"
                ),
            );
        }
    };
    shared
        .store
        .put_transcript(&call_sid, &sent.lines, sent.ended);
    secured(StatusCode::NO_CONTENT.into_response())
}

/// The most bytes of a transcript's body.
const TRANSCRIPT_BODY: usize = store::TRANSCRIPT_BYTES;

/// The parameters of a replay form: `name` and `value` fields in turn;
/// rows without a name, and redacted values, left out. And the path
/// chosen, for a function served at several.
fn replay_params(form: &[u8]) -> (Vec<(String, String)>, Option<String>) {
    let mut params = Vec::new();
    let mut path = None;
    let mut name: Option<String> = None;
    for (key, value) in form_urlencoded::parse(form) {
        match &*key {
            "__path" => path = Some(value.into_owned()),
            "name" => name = Some(value.into_owned()),
            "value" => {
                if let Some(name) = name.take().filter(|n| !n.is_empty())
                    && value != REDACTED
                {
                    params.push((name, value.into_owned()));
                }
            }
            _ => {}
        }
    }
    (params, path)
}

/// `POST /__ccfn/inspector/invocations/{id}/replay`: sends the form's
/// parameters to the invocation's function, through the functions'
/// router, signed when the function is protected and an auth token is
/// set; then shows the new invocation beside the old one.
async fn replay(
    _: Local,
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    request: Request,
) -> Response {
    let Some(recorded) = shared.store.get(&id) else {
        return gone(&id);
    };
    let mut served = shared.routes.iter().filter(|r| r.name == recorded.function);
    let Some(first) = served.next() else {
        return html(
            StatusCode::BAD_REQUEST,
            page::message("Nothing to replay", "This request named no function."),
        );
    };
    let host = request
        .headers()
        .get(header::HOST)
        .cloned()
        .unwrap_or_else(|| HeaderValue::from_static("localhost"));
    let form = match axum::body::to_bytes(request.into_body(), 1024 * 1024).await {
        Ok(form) => form,
        Err(error) => {
            return html(
                StatusCode::BAD_REQUEST,
                page::message("The replay form cannot be read", &error.to_string()),
            )
        }
    };
    let (params, path) = replay_params(&form);
    let route = std::iter::once(first)
        .chain(served)
        .find(|r| path.as_deref().is_none_or(|path| path == r.url_path))
        .unwrap_or(first);
    let body: String = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&params)
        .finish();
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri(&route.url_path)
        .header(header::HOST, host.clone())
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    if let Some(key) = shared.signing_key(route) {
        // The URL the runtime checks a signature against.
        let url = match &shared.public_url {
            Some(base) => format!("{base}{}", route.url_path),
            None => format!(
                "http://{}{}",
                host.to_str().unwrap_or("localhost"),
                route.url_path
            ),
        };
        builder = builder.header(
            signature::SIGNATURE_HEADER,
            signature::compute_signature(key.expose(), &url, &params),
        );
    }
    let Ok(request) = builder.body(Body::from(body)) else {
        return html(
            StatusCode::INTERNAL_SERVER_ERROR,
            page::message(
                "The replay cannot be built",
                "The function's path is not a valid URI.",
            ),
        );
    };
    let response = match shared.functions.clone().oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let Some(new_id) = response
        .headers()
        .get(INVOCATION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
    else {
        return html(
            StatusCode::BAD_GATEWAY,
            page::message(
                "The replay has no invocation",
                &format!(
                    "The function answered {} without an invocation id.",
                    response.status()
                ),
            ),
        );
    };
    shared.store.mark_replay(&new_id, &id);
    let location = format!(
        "{ROOT}/invocations/{}?beside={}",
        form_urlencoded::byte_serialize(new_id.as_bytes()).collect::<String>(),
        form_urlencoded::byte_serialize(id.as_bytes()).collect::<String>()
    );
    let mut answer = StatusCode::SEE_OTHER.into_response();
    if let Ok(location) = HeaderValue::from_str(&location) {
        answer.headers_mut().insert(header::LOCATION, location);
    }
    secured(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_of_this_machine_are_served() {
        for host in [
            "localhost:3001",
            "127.0.0.1:3001",
            "[::1]:3001",
            "app.localhost",
            "10.0.0.7",
            "cc.example.com",
            "cc.example.com:443",
        ] {
            assert!(local_host(host, Some("cc.example.com")), "{host}");
        }
        for host in [
            "attacker.example:3001",
            "localhost.attacker.example",
            "",
            "a b",
            "user@localhost",
        ] {
            assert!(!local_host(host, Some("cc.example.com")), "{host}");
        }
        assert!(
            !local_host("cc.example.com", None),
            "the public host only when turned on"
        );
    }

    #[test]
    fn this_machine_is_a_loopback_peer_through_no_proxy() {
        for peer in [
            "127.0.0.1:9",
            "[::1]:9",
            "[::ffff:127.0.0.1]:9",
            "127.8.9.10:9",
        ] {
            assert!(loopback(peer.parse().unwrap()), "{peer}");
        }
        for peer in [
            "10.0.0.7:9",
            "[::ffff:10.0.0.7]:9",
            "[2001:db8::1]:9",
            "0.0.0.0:9",
        ] {
            assert!(!loopback(peer.parse().unwrap()), "{peer}");
        }
        let with = |name: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(name, HeaderValue::from_static("203.0.113.9"));
            headers
        };
        for name in [
            "forwarded",
            "via",
            "x-real-ip",
            "x-forwarded-for",
            "x-forwarded-host",
            "x-forwarded-proto",
            "true-client-ip",
            "cf-connecting-ip",
        ] {
            assert!(proxied(&with(name)), "{name}");
        }
        assert!(!proxied(&with("x-request-id")));
        assert!(!proxied(&HeaderMap::new()));
    }

    #[test]
    fn a_change_must_come_from_the_same_origin() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = HeaderMap::new();
            for (k, v) in pairs {
                map.insert(*k, HeaderValue::from_static(v));
            }
            map
        };
        assert!(
            !same_origin(&headers(&[]), "localhost:3001"),
            "no page sent it"
        );
        assert!(!same_origin(
            &headers(&[
                ("origin", "http://localhost:3001"),
                ("sec-fetch-site", "none")
            ]),
            "localhost:3001"
        ));
        assert!(same_origin(
            &headers(&[
                ("origin", "http://localhost:3001"),
                ("sec-fetch-site", "same-origin")
            ]),
            "localhost:3001"
        ));
        assert!(!same_origin(
            &headers(&[("origin", "https://evil.example")]),
            "localhost:3001"
        ));
        assert!(!same_origin(
            &headers(&[("sec-fetch-site", "cross-site")]),
            "localhost:3001"
        ));
        assert!(!same_origin(
            &headers(&[("origin", "null")]),
            "localhost:3001"
        ));
    }

    #[test]
    fn a_program_s_request_is_refused_only_when_a_browser_says_another_site_sent_it() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = HeaderMap::new();
            for (k, v) in pairs {
                map.insert(*k, HeaderValue::from_static(v));
            }
            map
        };
        let host = "127.0.0.1:3001";
        for sent in [
            &[][..],
            &[("sec-fetch-site", "none")],
            &[("sec-fetch-site", "same-origin")],
            &[("origin", "http://127.0.0.1:3001")],
        ] {
            assert!(not_cross_site(&headers(sent), host), "{sent:?}");
        }
        for sent in [
            &[("origin", "https://evil.example")][..],
            &[("origin", "null")],
            &[("origin", "http://127.0.0.1:3002")],
            &[("sec-fetch-site", "cross-site")],
            &[("sec-fetch-site", "same-site")],
            &[
                ("origin", "http://127.0.0.1:3001"),
                ("sec-fetch-site", "cross-site"),
            ],
        ] {
            assert!(!not_cross_site(&headers(sent), host), "{sent:?}");
        }
    }

    #[test]
    fn a_transcript_names_its_call_and_is_json() {
        assert!(valid_call_sid("CA0123456789abcdef0123456789abcdef"));
        assert!(valid_call_sid(&"a".repeat(64)));
        for bad in ["", "CA-1", "CA 1", "CAé", &"a".repeat(65)] {
            assert!(!valid_call_sid(bad), "{bad}");
        }
        let typed = |value: &'static str| {
            let mut map = HeaderMap::new();
            map.insert(header::CONTENT_TYPE, HeaderValue::from_static(value));
            map
        };
        assert!(json_body(&typed("application/json")));
        assert!(json_body(&typed("Application/JSON; charset=utf-8")));
        assert!(!json_body(&typed("text/plain")));
        assert!(!json_body(&typed("application/x-www-form-urlencoded")));
        assert!(!json_body(&HeaderMap::new()));
    }

    #[test]
    fn a_replay_form_gives_named_rows_without_redacted_values() {
        let (params, path) = replay_params(
            b"name=CallSid&value=CA1&name=Token&value=%5BREDACTED%5D&name=&value=x&name=Digits&value=2&name=Digits&value=3&__path=%2Ff%2Fg",
        );
        assert_eq!(path.as_deref(), Some("/f/g"));
        assert_eq!(
            params,
            [
                ("CallSid".to_owned(), "CA1".to_owned()),
                ("Digits".to_owned(), "2".to_owned()),
                ("Digits".to_owned(), "3".to_owned())
            ]
        );
    }

    #[test]
    fn filters_match_function_outcome_and_part_of_the_call() {
        let store = Store::new(4);
        store.file_line(
            br#"{"invocation_id":"a","function":"f","call_sid":"CAabc","step":"start"}"#,
        );
        let recorded = store.get("a").unwrap();
        let filter = |f: Option<&str>, o: Option<&str>, c: Option<&str>| Filter {
            function: f.map(str::to_owned),
            outcome: o.map(str::to_owned),
            call: c.map(str::to_owned),
        };
        assert!(filter(Some("f"), Some("running"), Some("ABC")).accepts(&recorded));
        assert!(!filter(Some("g"), None, None).accepts(&recorded));
        assert!(!filter(None, Some("success"), None).accepts(&recorded));
        assert!(!filter(None, None, Some("CAx")).accepts(&recorded));
        assert_eq!(
            filter(Some("f"), None, Some("CA a")).query_string(),
            "?function=f&call=CA+a"
        );
        let blank = Filter {
            function: Some(" ".to_owned()),
            ..Filter::default()
        }
        .normalized();
        assert!(blank.function.is_none());
    }
}
