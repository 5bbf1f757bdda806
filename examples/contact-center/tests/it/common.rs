//! What `catalogue` and `snapshots` share: a loopback server standing in for the
//! platform's recording storage, and the replacements that make log
//! records stable.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::Response;
use axum::Router;

/// The account of every test context.
pub(crate) const ACCOUNT: &str = "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
/// The recording every notice is about.
pub(crate) const RECORDING_SID: &str = "RE0123456789abcdef0123456789abcdef";
/// The size of the recording the server serves.
pub(crate) const RECORDING_BYTES: usize = 4321;

/// How large the "huge" recordings are: far more than any function may
/// read, so that reading one whole would show.
pub(crate) const HUGE_RECORDING_BYTES: u64 = 512 * 1024 * 1024;

#[derive(Default)]
struct Seen {
    /// Path and `Authorization` header of every request.
    requests: Vec<(String, Option<String>)>,
}

/// The platform's recording storage on `127.0.0.1` (a random port): it
/// serves [`RECORDING_BYTES`] bytes of "MP3" at
/// `/2010-04-01/Accounts/{ACCOUNT}/Recordings/{RECORDING_SID}.mp3` and 404
/// anywhere else, and records what it was asked.
pub(crate) struct RecordingServer {
    addr: SocketAddr,
    seen: Arc<Mutex<Seen>>,
    /// Bytes of huge recordings handed to the connection so far.
    sent: Arc<AtomicU64>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for RecordingServer {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl RecordingServer {
    /// Starts the server.
    pub(crate) async fn start() -> RecordingServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let sent = Arc::new(AtomicU64::new(0));
        let app = Router::new()
            .fallback(serve)
            .with_state((Arc::clone(&seen), Arc::clone(&sent)));
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        RecordingServer {
            addr,
            seen,
            sent,
            server,
        }
    }

    /// A `RecordingUrl` whose MP3 is [`HUGE_RECORDING_BYTES`] long, made
    /// as it is sent: with its `Content-Length` when `declared`, else
    /// chunked with no length given.
    pub(crate) fn huge_url(&self, declared: bool) -> String {
        let sid = if declared {
            "RE-huge-declared"
        } else {
            "RE-huge-chunked"
        };
        format!(
            "http://{}/2010-04-01/Accounts/{ACCOUNT}/Recordings/{sid}",
            self.addr
        )
    }

    /// How many bytes of huge recordings the server has handed to its
    /// connections: what a client that stops reading leaves unread stays
    /// unsent.
    pub(crate) fn huge_bytes_sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// The recording's `RecordingUrl`, as the platform sends it: without
    /// an extension.
    pub(crate) fn recording_url(&self) -> String {
        format!(
            "http://{}/2010-04-01/Accounts/{ACCOUNT}/Recordings/{RECORDING_SID}",
            self.addr
        )
    }

    /// A `RecordingUrl` the server answers 404 for.
    pub(crate) fn missing_url(&self) -> String {
        format!(
            "http://{}/2010-04-01/Accounts/{ACCOUNT}/Recordings/RE-deleted",
            self.addr
        )
    }

    /// Path and `Authorization` header of every request, in order.
    pub(crate) fn requests(&self) -> Vec<(String, Option<String>)> {
        self.seen.lock().unwrap().requests.clone()
    }
}

/// The bytes served: not silence, so that a truncated copy shows.
pub(crate) fn recording_bytes() -> Vec<u8> {
    (0..RECORDING_BYTES).map(|i| (i % 251) as u8).collect()
}

/// The body of a huge recording: 64 KiB chunks, counted into `sent` as
/// the connection takes them.
fn huge_body(sent: Arc<AtomicU64>) -> Body {
    const CHUNK: u64 = 64 * 1024;
    let chunks = futures_util::stream::unfold(0u64, move |at| {
        let sent = Arc::clone(&sent);
        async move {
            (at < HUGE_RECORDING_BYTES).then(|| {
                sent.fetch_add(CHUNK, Ordering::Relaxed);
                let chunk = axum::body::Bytes::from(vec![0x55u8; CHUNK as usize]);
                (Ok::<_, std::io::Error>(chunk), at + CHUNK)
            })
        }
    });
    Body::from_stream(chunks)
}

async fn serve(
    State((seen, sent)): State<(Arc<Mutex<Seen>>, Arc<AtomicU64>)>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    seen.lock()
        .unwrap()
        .requests
        .push((uri.path().to_owned(), authorization));
    let huge =
        |sid: &str| uri.path() == format!("/2010-04-01/Accounts/{ACCOUNT}/Recordings/{sid}.mp3");
    if huge("RE-huge-declared") || huge("RE-huge-chunked") {
        let mut response = Response::new(huge_body(sent));
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("audio/mpeg"),
        );
        if huge("RE-huge-declared") {
            headers.insert(header::CONTENT_LENGTH, HUGE_RECORDING_BYTES.into());
        }
        return response;
    }
    let mut response =
        if uri.path() == format!("/2010-04-01/Accounts/{ACCOUNT}/Recordings/{RECORDING_SID}.mp3") {
            let mut response = Response::new(Body::from(recording_bytes()));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_static("audio/mpeg"),
            );
            response
        } else {
            Response::new(Body::from(r#"{"code":20404,"message":"not found"}"#))
        };
    if response.headers().get(header::CONTENT_TYPE).is_none() {
        *response.status_mut() = StatusCode::NOT_FOUND;
    }
    response
}

/// The `Authorization` header of HTTP basic authentication.
pub(crate) fn basic_auth(user: &str, password: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = format!("{user}:{password}").into_bytes();
    let mut out = String::from("Basic ");
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `text` with each `(from, to)` replacement applied (the local store's
/// and outbox's paths and random identifiers; the testkit already
/// replaced times, ids and loopback ports), and control characters but
/// the line feed written as `\u{..}` escapes, so that a snapshot stays a
/// text file whatever a record holds.
pub(crate) fn stable(text: &str, replacements: &[(&str, &str)]) -> String {
    let replaced = replacements
        .iter()
        .filter(|(from, _)| !from.is_empty())
        .fold(text.to_owned(), |text, (from, to)| text.replace(from, to));
    let mut out = String::with_capacity(replaced.len());
    for c in replaced.chars() {
        if c.is_control() && c != '\n' {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// A fresh folder path under the system's temporary folder (not created).
pub(crate) fn temp_path(name: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNT: AtomicU32 = AtomicU32::new(0);
    let path = std::env::temp_dir().join(format!(
        "ccfn-example-{name}-{}-{}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&path);
    path
}

#[test]
fn helpers_are_right() {
    assert_eq!(basic_auth("api", "key"), "Basic YXBpOmtleQ==");
    assert_eq!(basic_auth("AC", "tok"), "Basic QUM6dG9r");
    assert_eq!(basic_auth("a", "bc"), "Basic YTpiYw==");
    assert_eq!(stable("/tmp/x/a x", &[("/tmp/x", "[dir]")]), "[dir]/a x");
    assert_eq!(
        stable("a\u{0}b\u{1b}[2J\r\tc\n", &[]),
        "a\\u{0}b\\u{1b}[2J\\u{d}\\u{9}c\n"
    );
}
