//! The accept loop: each connection is served by hyper with a deadline for
//! a request's headers, and no more than a set number are open at once,
//! so that clients that connect and send nothing, or send a byte at a
//! time, cannot hold the server.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tracing::Level;

use crate::record::emit;

/// What one client may hold.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    /// The most connections open at once; past it, new ones wait in the
    /// listen backlog until one closes.
    pub(super) max_connections: usize,
    /// How long a request's headers may take to arrive (also how long a
    /// connection may stay idle between requests).
    pub(super) header_timeout: Duration,
}

/// Serves `router` on `listener` until `shutdown` completes; then stops
/// accepting, lets each connection finish the request it is serving, and
/// returns when every connection is closed.
pub(super) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(
        limits.max_connections.min(Semaphore::MAX_PERMITS),
    ));
    let (stop, stopping) = watch::channel(());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            () = &mut shutdown => break,
            permit = Arc::clone(&permits).acquire_owned() => match permit {
                Ok(permit) => permit,
                // The semaphore is never closed.
                Err(_) => break,
            },
        };
        let stream = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    accept_failed(&error).await;
                    continue;
                }
            },
        };
        // Answers are written whole; waiting to fill a segment only adds
        // latency.
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let mut stopping = stopping.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let mut builder = http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            // A connection error (a client gone, a bad request line hyper
            // answered itself) ends this connection only.
            tokio::select! {
                _ = connection.as_mut() => return,
                _ = stopping.changed() => connection.as_mut().graceful_shutdown(),
            }
            let _ = connection.await;
        });
    }
    drop(listener);
    drop(stopping);
    // Every connection task holds a receiver: when the last one is gone,
    // every connection is closed.
    let _ = stop.send(());
    stop.closed().await;
}

/// After a failed accept: a connection that failed before it was accepted
/// is skipped; anything else (out of file descriptors, say) is logged and
/// the loop rests a second before accepting again.
async fn accept_failed(error: &io::Error) {
    if matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    ) {
        return;
    }
    emit(
        Level::WARN,
        &crate::record::RUNTIME,
        &format!("cannot accept connections: {error}; retrying in 1 s"),
        &Vec::new(),
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
}
