//! The extractors of a function's request: its `Host`, its parameters
//! (read under the runtime's limits), and its signature. Each refuses a
//! request with a [`Rejection`], which answers it and writes its
//! `request_rejected` record.

use std::collections::HashSet;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Version};

use super::answer::{nest_prefix, request_info, Rejection};
use super::params::{parse_form, parse_json};
use super::state::Endpoint;
use crate::function::event::{Entry, Event, ParamValue, Text};
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
            let valid = plain_host(host.as_bytes()) || host_and_port(host);
            (!valid).then_some("the Host header is not a host name with an optional port")
        }
    }
}

/// Whether `host` is an [`Authority`](axum::http::uri::Authority) that is
/// a host with an optional port (no user information).
fn host_and_port(host: &HeaderValue) -> bool {
    host.to_str()
        .ok()
        .and_then(|host| host.parse::<axum::http::uri::Authority>().ok())
        .is_some_and(|authority| {
            authority.as_str() == authority.host()
                || authority.port_u16().is_some() && !authority.as_str().contains('@')
        })
}

/// Whether `host` is a name of letters, digits, `-`, `.` and `_`, with an
/// optional `:` and a port of up to five digits that fits in 16 bits:
/// the `Host` headers clients send, which [`host_and_port`] accepts too,
/// found valid here without parsing an `Authority` (a copy). Anything
/// else is left to [`host_and_port`].
fn plain_host(host: &[u8]) -> bool {
    let (name, port) = match host.iter().position(|&byte| byte == b':') {
        Some(colon) => (&host[..colon], Some(&host[colon + 1..])),
        None => (host, None),
    };
    !name.is_empty()
        && name
            .iter()
            .all(|&byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_'))
        && port.is_none_or(|port| {
            (1..=5).contains(&port.len())
                && port.iter().all(u8::is_ascii_digit)
                && port
                    .iter()
                    .fold(0u32, |number, digit| number * 10 + u32::from(digit - b'0'))
                    <= u32::from(u16::MAX)
        })
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
///
/// Every name and value of the query string and a form body is a
/// [`Text::Sent`] range of one text, `sent`: the query string and the body
/// copied whole, each followed by what decoding them gave; the event keeps
/// it, with the headers added ([`Parameters::into_event`]).
pub(super) struct Parameters {
    parts: Parts,
    kind: BodyKind,
    /// The body as received: what a JSON body's signature is checked on.
    bytes: Bytes,
    sent: String,
    body: Vec<Entry>,
    query: Vec<(Text, Text)>,
}

/// The body, at most `limit` bytes: its one chunk as it came (neither
/// copied nor gathered in a list, as `axum::body::to_bytes` would), or
/// its chunks joined.
async fn read_body(body: Body, limit: usize) -> Result<Bytes, axum::BoxError> {
    use http_body_util::BodyExt as _;
    let mut body = http_body_util::Limited::new(body, limit);
    let mut first: Option<Bytes> = None;
    let mut joined: Vec<u8> = Vec::new();
    while let Some(frame) = body.frame().await {
        // Trailers carry no parameters.
        let Ok(data) = frame?.into_data() else {
            continue;
        };
        match first.take() {
            None if joined.is_empty() => first = Some(data),
            earlier => {
                if let Some(earlier) = earlier {
                    joined.extend_from_slice(&earlier);
                }
                joined.extend_from_slice(&data);
            }
        }
    }
    Ok(first.unwrap_or_else(|| Bytes::from(joined)))
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
        let read = tokio::time::timeout(config.body_timeout, read_body(body, limit))
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
            if error.is::<http_body_util::LengthLimitError>() {
                too_large()
            } else {
                reject(
                    StatusCode::BAD_REQUEST,
                    format!("the request body could not be read: {error}"),
                )
            }
        })?;

        let query = parts.uri.query().unwrap_or("");
        // Room for the query string and a form body, twice (whole, then
        // what decoding gave, never longer), and the headers the event
        // adds: the text is made once.
        let headers: usize = parts
            .headers
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len())
            .sum();
        let form = match kind {
            BodyKind::Form => bytes.len(),
            BodyKind::Json => 0,
        };
        let mut sent = String::with_capacity(2 * (query.len() + form) + headers);
        let parsed = parse_form(query.as_bytes(), "query string", &mut sent).and_then(|query| {
            let body = match (kind, bytes.is_empty()) {
                (_, true) => Vec::new(),
                (BodyKind::Json, false) => parse_json(&bytes)?
                    .into_iter()
                    .map(|(name, value)| Entry {
                        name: Text::Own(name),
                        value: ParamValue::from(value),
                    })
                    .collect(),
                (BodyKind::Form, false) => parse_form(&bytes, "body", &mut sent)?
                    .into_iter()
                    .map(|(name, value)| Entry {
                        name,
                        value: ParamValue::Text(value),
                    })
                    .collect(),
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
            .about_call(call_sids(&body, &query, &sent)));
        }
        Ok(Parameters {
            parts,
            kind,
            bytes,
            sent,
            body,
            query,
        })
    }
}

/// The `CallSid` values of a request's parameters, the body's first,
/// their text read in `sent`.
fn call_sids<'a>(
    body: &'a [Entry],
    query: &'a [(Text, Text)],
    sent: &'a str,
) -> impl Iterator<Item = &'a str> {
    let body = body
        .iter()
        .filter(move |entry| entry.name.is(sent, "CallSid"))
        .filter_map(move |entry| match &entry.value {
            ParamValue::Text(text) => Some(text.get(sent)),
            ParamValue::Json(_) => None,
        });
    let query = query
        .iter()
        .filter(move |(name, _)| name.is(sent, "CallSid"))
        .map(move |(_, value)| value.get(sent));
    body.chain(query)
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
    /// those of the connection or a proxy. When telemetry is exported, the
    /// event also carries what the request says of itself (see
    /// [`request_info`]), its route being `endpoint`'s.
    ///
    /// Nothing is copied name by name: the event keeps the one text the
    /// parameters were parsed into (the query string and the form body,
    /// each followed by what decoding it gave), the headers added after
    /// them, and reads every name and value in it.
    pub(super) fn into_event(self, endpoint: &Endpoint) -> (Event, Parts) {
        let Parameters {
            parts,
            kind: _,
            bytes: _,
            mut sent,
            mut body,
            mut query,
        } = self;
        if !query.is_empty() && !body.is_empty() {
            let in_body: HashSet<&str> = body.iter().map(|entry| entry.name.get(&sent)).collect();
            query.retain(|(name, _)| !in_body.contains(name.get(&sent)));
        }
        let mut headers = Vec::with_capacity(parts.headers.len());
        for (name, value) in &parts.headers {
            let name = name.as_str();
            if DROPPED_HEADERS.contains(&name)
                || name.starts_with("x-forwarded-")
                || name.starts_with("proxy-")
            {
                continue;
            }
            if let Ok(value) = value.to_str() {
                let name = Text::sent(name, &mut sent);
                headers.push((name, Text::sent(value, &mut sent)));
            }
        }
        body.extend(query.into_iter().map(|(name, value)| Entry {
            name,
            value: ParamValue::Text(value),
        }));
        let mut event = Event::from_sent(sent, body, headers);
        // Gathered for the observer only.
        if crate::observe::active() {
            event.set_request(request_info(&parts, Some(&endpoint.url_path)));
        }
        (event, parts)
    }
}

/// Which parser the body takes; an error names the media type that
/// cannot be read.
fn body_kind(headers: &HeaderMap) -> Result<BodyKind, String> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Ok(BodyKind::Form);
    };
    // The two media types read, as they are sent, without a copy; the
    // rest (white space beyond ASCII's, other types) as below.
    let sent = value.as_bytes();
    // As clients send them: compared whole, not byte by byte.
    match sent {
        b"application/x-www-form-urlencoded" => return Ok(BodyKind::Form),
        b"application/json" => return Ok(BodyKind::Json),
        _ => {}
    }
    let sent = sent
        .split(|byte| *byte == b';')
        .next()
        .unwrap_or_default()
        .trim_ascii();
    if sent.eq_ignore_ascii_case(b"application/x-www-form-urlencoded") {
        return Ok(BodyKind::Form);
    }
    if sent.eq_ignore_ascii_case(b"application/json") {
        return Ok(BodyKind::Json);
    }
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
        let sent = &parameters.sent;
        let body = match parameters.kind {
            BodyKind::Json => SignedBody::Json(&parameters.bytes),
            BodyKind::Form => {
                form = parameters
                    .body
                    .iter()
                    .map(|entry| {
                        let value = match &entry.value {
                            ParamValue::Text(text) => text.get(sent),
                            ParamValue::Json(_) => "",
                        };
                        (entry.name.get(sent).to_owned(), value.to_owned())
                    })
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
            .about_call(call_sids(&parameters.body, &parameters.query, sent))),
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

#[cfg(test)]
mod tests {
    use super::super::answer::{cut, split_authority, MAX_PATH_BYTES, MAX_TEXT_BYTES};
    use super::*;
    use crate::observe::ServerRequest;

    /// A body sent as `chunks`, one frame each.
    fn chunked(chunks: &[&'static [u8]]) -> Body {
        let frames: Vec<Result<Bytes, std::io::Error>> =
            chunks.iter().map(|c| Ok(Bytes::from_static(c))).collect();
        Body::from_stream(futures_util::stream::iter(frames))
    }

    #[tokio::test]
    async fn a_body_of_one_chunk_is_kept_as_it_came_and_chunks_are_joined() {
        static ONE: &[u8] = b"CallSid=CA1&From=%2B1555";
        let read = read_body(chunked(&[ONE]), 1024).await.unwrap();
        assert_eq!(read.as_ptr(), ONE.as_ptr(), "not copied");
        let read = read_body(chunked(&[b"Call", b"", b"Sid=", b"CA1"]), 1024)
            .await
            .unwrap();
        assert_eq!(&read[..], b"CallSid=CA1");
        assert!(read_body(chunked(&[]), 8).await.unwrap().is_empty());
        let over = read_body(chunked(&[b"0123", b"45678"]), 8)
            .await
            .unwrap_err();
        assert!(over.is::<http_body_util::LengthLimitError>(), "{over}");
        let broken: Vec<Result<Bytes, std::io::Error>> = vec![
            Ok(Bytes::from_static(b"a")),
            Err(std::io::Error::other("reset")),
        ];
        let failed = read_body(Body::from_stream(futures_util::stream::iter(broken)), 8)
            .await
            .unwrap_err();
        assert!(!failed.is::<http_body_util::LengthLimitError>());
        assert!(failed.to_string().contains("reset"), "{failed}");
    }

    fn parts(uri: &str, version: Version, headers: &[(&str, &str)]) -> Parts {
        let mut builder = axum::http::Request::builder()
            .method("POST")
            .uri(uri)
            .version(version);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(()).unwrap().into_parts().0
    }

    #[test]
    fn a_direct_request_says_its_host_peer_and_agent() {
        let mut parts = parts(
            "/features/wait/experience?mode=callback",
            Version::HTTP_11,
            &[
                ("host", "cc.example.com:8443"),
                ("user-agent", "Platform/1.0"),
            ],
        );
        parts.extensions.insert(axum::extract::ConnectInfo(
            "192.0.2.7:50000".parse::<std::net::SocketAddr>().unwrap(),
        ));
        let info = request_info(&parts, Some("/features/wait/experience"));
        assert_eq!(
            info.server(),
            ServerRequest {
                method: "POST",
                path: "/features/wait/experience",
                route: "/features/wait/experience",
                scheme: "http",
                host: Some("cc.example.com"),
                port: Some(8443),
                client: Some("192.0.2.7"),
                user_agent: Some("Platform/1.0"),
                version: Some("1.1"),
            }
        );
    }

    #[test]
    fn a_cut_falls_on_a_character_boundary() {
        assert_eq!(cut("short", 8), "short");
        assert_eq!(cut("ééé", 3), "é…");
    }

    #[test]
    fn what_a_client_says_of_itself_is_kept_cut() {
        let agent = format!("Agent/{}", "a".repeat(200_000));
        let host = "h".repeat(10_000);
        let path = format!("/f/{}", "p".repeat(60_000));
        let parts = parts(
            &path,
            Version::HTTP_11,
            &[
                ("host", &host),
                ("user-agent", &agent),
                ("x-forwarded-for", &host),
            ],
        );
        let info = request_info(&parts, Some("/f"));
        let info = info.server();
        let agent = info.user_agent.unwrap();
        assert!(
            agent.len() <= MAX_TEXT_BYTES + '…'.len_utf8(),
            "{}",
            agent.len()
        );
        assert!(agent.starts_with("Agent/aaa") && agent.ends_with('…'));
        assert!(info.host.unwrap().len() <= MAX_TEXT_BYTES + 3);
        assert!(info.client.unwrap().len() <= MAX_TEXT_BYTES + 3);
        assert!(info.path.len() <= MAX_PATH_BYTES + 3);
        assert!(info.path.starts_with("/f/ppp"));
    }

    #[test]
    fn a_proxy_s_headers_say_what_the_client_asked_for() {
        let parts = parts(
            "/f",
            Version::HTTP_2,
            &[
                ("host", "10.0.0.5:3000"),
                ("x-forwarded-proto", "HTTPS, http"),
                ("x-forwarded-host", "cc.example.com"),
                ("x-forwarded-for", "203.0.113.9, 10.0.0.1"),
            ],
        );
        let info = request_info(&parts, Some("/f"));
        let info = info.server();
        assert_eq!(info.scheme, "https");
        assert_eq!(info.host, Some("cc.example.com"));
        assert_eq!(info.port, None);
        assert_eq!(info.client, Some("203.0.113.9"));
        assert_eq!(info.version, Some("2"));
        // `Forwarded` wins over the `X-Forwarded-*` headers.
        let parts = self::parts(
            "/f",
            Version::HTTP_11,
            &[
                (
                    "forwarded",
                    "for=\"[2001:db8::1]:4711\";proto=https;host=cc.example.com:444, for=10.0.0.1",
                ),
                ("x-forwarded-for", "203.0.113.9"),
            ],
        );
        let info = request_info(&parts, Some("/f"));
        let info = info.server();
        assert_eq!(
            (info.scheme, info.host, info.port),
            ("https", Some("cc.example.com"), Some(444))
        );
        assert_eq!(info.client, Some("2001:db8::1"));
    }

    /// A request that matched no function has no route; one that did has
    /// its function's, each text in its place in the one buffer.
    #[test]
    fn a_route_is_said_only_for_a_matched_function() {
        let parts = parts("/f", Version::HTTP_11, &[("host", "cc.example.com")]);
        let unmatched = request_info(&parts, None);
        let unmatched = unmatched.server();
        assert_eq!(
            (unmatched.path, unmatched.route, unmatched.host),
            ("/f", "", Some("cc.example.com"))
        );
        let matched = request_info(&parts, Some("/f"));
        let matched = matched.server();
        assert_eq!(
            (matched.method, matched.path, matched.route, matched.scheme),
            ("POST", "/f", "/f", "http")
        );
        assert_eq!((matched.user_agent, matched.client), (None, None));
    }

    /// On AWS Lambda the request's URI is absolute, built from the event.
    #[test]
    fn an_absolute_uri_gives_the_scheme_and_host() {
        let parts = parts(
            "https://abc123.lambda-url.us-east-1.on.aws/f?x=1",
            Version::HTTP_11,
            &[],
        );
        let info = request_info(&parts, Some("/f"));
        let info = info.server();
        assert_eq!(info.scheme, "https");
        assert_eq!(info.host, Some("abc123.lambda-url.us-east-1.on.aws"));
        assert_eq!(info.path, "/f");
        assert_eq!(info.client, None);
    }

    #[cfg(feature = "lambda")]
    #[test]
    fn on_lambda_the_client_is_the_event_s_source_ip() {
        use lambda_http::aws_lambda_events::apigw::ApiGatewayV2httpRequestContext;
        use lambda_http::request::RequestContext;
        let mut parts = parts("https://api.example.com/f", Version::HTTP_11, &[]);
        let mut context = ApiGatewayV2httpRequestContext::default();
        context.http.source_ip = Some("198.51.100.4".to_owned());
        parts
            .extensions
            .insert(RequestContext::ApiGatewayV2(context));
        assert_eq!(
            request_info(&parts, Some("/f")).server().client,
            Some("198.51.100.4")
        );
    }

    #[test]
    fn the_content_type_chooses_the_parser() {
        let kind = |value: &[u8]| {
            let mut headers = HeaderMap::new();
            headers.insert(
                header::CONTENT_TYPE,
                axum::http::HeaderValue::from_bytes(value).unwrap(),
            );
            body_kind(&headers)
        };
        assert!(matches!(body_kind(&HeaderMap::new()), Ok(BodyKind::Form)));
        for form in [
            &b"application/x-www-form-urlencoded"[..],
            b" Application/X-WWW-Form-UrlEncoded ; charset=utf-8",
        ] {
            assert!(matches!(kind(form), Ok(BodyKind::Form)));
        }
        for json in [
            &b"application/json"[..],
            b"APPLICATION/JSON;charset=utf-8",
            // White space beyond ASCII's, trimmed as text.
            "\u{a0}application/json\u{a0}; x=1".as_bytes(),
        ] {
            assert!(matches!(kind(json), Ok(BodyKind::Json)), "{json:?}");
        }
        assert_eq!(
            kind(b"Text/Plain; access_token=abc").err().unwrap(),
            "unsupported content type `text/plain`: send application/x-www-form-urlencoded or application/json"
        );
        assert!(kind(b"application/jsonx").is_err());
    }

    /// What the short check accepts, the full one does; what it leaves,
    /// the full one judges.
    #[test]
    fn a_plain_host_is_one_the_full_check_accepts() {
        let full = |host: &str| host_and_port(&HeaderValue::from_str(host).unwrap());
        for plain in [
            "localhost",
            "localhost:3000",
            "cc.example.com",
            "cc.example.com:443",
            "a-b_c.example:0",
            "a:65535",
            "a:00080",
            "127.0.0.1:8080",
            ".",
        ] {
            assert!(plain_host(plain.as_bytes()), "{plain}");
            assert!(full(plain), "{plain}");
        }
        for other in [
            "",
            ":80",
            "a:",
            "a:65536",
            "a:123456",
            "a:8x",
            "a:80:81",
            "[::1]:8080",
            "user@host",
            "user:pw@host:80",
            "a b",
            "h\u{e9}te",
            "host/path",
            "a%20b",
            "a~b",
        ] {
            assert!(!plain_host(other.as_bytes()), "{other}");
        }
        // Left to the full check, which accepts some of them.
        assert!(full("[::1]:8080"));
        assert!(full("a~b"));
        for refused in [
            "a:",
            "a:65536",
            "user@host",
            "user:pw@host:80",
            "a:80:81",
            "a b",
        ] {
            assert!(!full(refused), "{refused}");
        }
    }

    #[test]
    fn authorities_split_into_host_and_port() {
        assert_eq!(split_authority("a.example:80"), ("a.example", Some(80)));
        assert_eq!(split_authority("a.example"), ("a.example", None));
        assert_eq!(split_authority("[::1]:8080"), ("::1", Some(8080)));
        assert_eq!(split_authority("2001:db8::1"), ("2001:db8::1", None));
    }
}
