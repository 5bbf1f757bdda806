//! What the fakes share: a server on a free loopback port that stops when
//! its handle is dropped, and locks that survive a panicking test.

use std::net::SocketAddr;
use std::sync::{Mutex, MutexGuard};

use axum::Router;

/// A server on `127.0.0.1`; it stops when dropped.
#[derive(Debug)]
pub(crate) struct Server {
    addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Server {
    /// Serves `app` on a free loopback port. Needs a Tokio runtime.
    ///
    /// # Panics
    /// No loopback port can be bound; the message names `what` is served.
    pub(crate) async fn start(app: Router, what: &str) -> Server {
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
    pub(crate) fn addr(&self) -> SocketAddr {
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
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The username and password of an `Authorization: Basic` header (either
/// may be missing; padded or unpadded base64).
pub(crate) fn basic_auth(headers: &axum::http::HeaderMap) -> (Option<String>, Option<String>) {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    use base64::Engine as _;
    const BASE64: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let decoded = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|v| BASE64.decode(v.trim()).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok());
    match decoded {
        Some(text) => match text.split_once(':') {
            Some((user, password)) => (Some(user.to_owned()), Some(password.to_owned())),
            None => (Some(text), None),
        },
        None => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use axum::http::{header, HeaderMap, HeaderValue};

    use super::basic_auth;

    fn auth(value: &str) -> (Option<String>, Option<String>) {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        basic_auth(&headers)
    }

    #[test]
    fn basic_auth_padded_or_not() {
        let both = (Some("AC".to_owned()), Some("token".to_owned()));
        assert_eq!(auth("Basic QUM6dG9rZW4="), both);
        assert_eq!(auth("Basic QUM6dG9rZW4"), both);
        assert_eq!(
            auth("Basic YXBpOmtleXh5"),
            (Some("api".to_owned()), Some("keyxy".to_owned()))
        );
        assert_eq!(auth("Basic QUM="), (Some("AC".to_owned()), None));
        assert_eq!(auth("Basic !!!!"), (None, None));
        assert_eq!(auth("Bearer QUM6dG9rZW4="), (None, None));
        assert_eq!(basic_auth(&HeaderMap::new()), (None, None));
    }
}
