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

/// Locks, whether or not a panicking test poisoned the lock.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
