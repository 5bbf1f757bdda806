//! What the fakes share: a server on a free loopback port that stops when
//! its handle is dropped, and locks that survive a panicking test.

use std::net::SocketAddr;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;

use crate::{FakeResponse, Request};

/// A server on `127.0.0.1`; it stops when dropped.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Server {
    /// Serves `app` on a free loopback port. Needs a Tokio runtime.
    ///
    /// # Panics
    /// No loopback port can be bound; the message names `what` is served.
    pub async fn start(app: Router, what: &str) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("{what} cannot bind a loopback port: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("{what} has no local address: {e}"));
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
        });
        Server {
            addr,
            shutdown: Some(shutdown),
        }
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

/// A loopback port that refuses connections, held for as long as this
/// lives: a socket bound to it that does not listen. A port taken from a
/// listener and closed again could be taken by another test in the
/// meantime; this one cannot.
///
/// ```
/// use ccfn_testkit::ClosedPort;
///
/// let closed = ClosedPort::new();
/// assert!(std::net::TcpStream::connect(closed.addr()).is_err());
/// ```
#[derive(Debug)]
pub struct ClosedPort {
    _socket: tokio::net::TcpSocket,
    addr: SocketAddr,
}

impl ClosedPort {
    /// Binds a free loopback port without listening on it.
    ///
    /// # Panics
    /// No loopback port can be bound.
    #[must_use]
    pub fn new() -> ClosedPort {
        let socket = tokio::net::TcpSocket::new_v4().expect("a TCP socket");
        socket
            .bind(([127, 0, 0, 1], 0).into())
            .expect("a free loopback port");
        let addr = socket.local_addr().expect("the port bound");
        ClosedPort {
            _socket: socket,
            addr,
        }
    }

    /// The address: `127.0.0.1:{port}`.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Default for ClosedPort {
    fn default() -> Self {
        ClosedPort::new()
    }
}

/// Locks, whether or not a panicking test poisoned the lock.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// What every fake keeps besides its own state: the requests it
/// received, the count it expects, what it answers when told to fail, and
/// how long it waits before its own answers.
#[derive(Debug, Default)]
pub struct Book {
    requests: Vec<Request>,
    expected: Option<usize>,
    failure: Option<FakeResponse>,
    delay: Duration,
}

impl Book {
    /// Records `request`; its index, for [`Book::answered`].
    pub fn record(&mut self, request: Request) -> usize {
        self.requests.push(request);
        self.requests.len() - 1
    }

    /// Notes the status request `index` was answered with.
    pub fn answered(&mut self, index: usize, status: u16) {
        if let Some(request) = self.requests.get_mut(index) {
            *request = request.clone().with_status(status);
        }
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.clone()
    }

    /// Answers with `answer` instead, as many times as it says.
    pub fn fail_with(&mut self, answer: FakeResponse) {
        self.failure = (answer.count() != Some(0)).then_some(answer);
    }

    /// The answer to give instead of the fake's own, when told to fail:
    /// one of its times used.
    pub fn failure(&mut self) -> Option<FakeResponse> {
        let answer = self.failure.clone()?;
        if let Some(times) = answer.count() {
            self.failure = (times > 1).then(|| answer.clone().times(times - 1));
        }
        Some(answer)
    }

    /// Waits `delay` before each of the fake's own answers.
    pub fn set_delay(&mut self, delay: Duration) {
        self.delay = delay;
    }

    /// The delay before the fake's own answers.
    pub fn delay(&self) -> Duration {
        self.delay
    }

    /// Expects exactly `count` requests in all.
    pub fn expect(&mut self, count: usize) {
        self.expected = Some(count);
    }

    /// What is wrong with the expectation, if anything.
    pub fn unmet(&self) -> Option<String> {
        let expected = self.expected?;
        (self.requests.len() != expected).then(|| {
            format!(
                "expected {expected} request(s), it received {}",
                self.requests.len()
            )
        })
    }
}

/// Panics, naming `what` at `url`, when `problems` is not empty; the
/// message lists them and the requests received.
#[track_caller]
pub fn verify(what: &str, url: &str, problems: &[String], requests: &[Request]) {
    assert!(
        problems.is_empty(),
        "{what} at {url}:\n  - {}\nreceived: {requests:#?}",
        problems.join("\n  - ")
    );
}

/// Splits `request` into its head and its body, read whole up to `limit`
/// bytes; a larger body is answered 413.
pub async fn read(
    request: axum::extract::Request,
    limit: usize,
) -> Result<(axum::http::request::Parts, Vec<u8>), axum::response::Response> {
    use axum::response::IntoResponse as _;
    let (parts, body) = request.into_parts();
    match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => Ok((parts, bytes.to_vec())),
        Err(_) => Err((
            axum::http::StatusCode::PAYLOAD_TOO_LARGE,
            format!("the fake reads {limit} bytes at most"),
        )
            .into_response()),
    }
}

/// The request of `parts` and `body`, as a fake records it.
pub fn record(parts: &axum::http::request::Parts, body: Vec<u8>) -> Request {
    Request::from_parts(parts, body)
}

/// Records `request` in `book` and answers it: with the failure the fake
/// was told to give, or else after the fake's delay with `own`; then
/// notes the status answered.
pub async fn answer<F>(
    book: &Mutex<Book>,
    request: Request,
    own: impl FnOnce(Request) -> F,
) -> axum::response::Response
where
    F: std::future::Future<Output = axum::response::Response>,
{
    use axum::response::IntoResponse as _;
    let (index, failure, delay) = {
        let mut book = lock(book);
        let index = book.record(request.clone());
        (index, book.failure(), book.delay())
    };
    let response = match failure {
        Some(failure) => {
            tokio::time::sleep(failure.delay_time()).await;
            failure.into_response()
        }
        None => {
            tokio::time::sleep(delay).await;
            own(request).await
        }
    };
    lock(book).answered(index, response.status().as_u16());
    response
}
