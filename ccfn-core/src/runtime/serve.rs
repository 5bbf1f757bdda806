//! The accept loop: each connection is served by hyper with a deadline for
//! a request's headers, and no more than a set number are open at once,
//! so that clients that connect and send nothing, or send a byte at a
//! time, cannot hold the server.

use std::future::{Future, IntoFuture};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt as _;
use tracing::Level;

use super::config::RuntimeConfig;
use crate::error::{Error, ErrorKind};
use crate::record::emit_at;

/// What one client may hold.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    /// The most connections open at once; past it, new ones wait in the
    /// listen backlog until one closes.
    max_connections: usize,
    /// How long a request's headers may take to arrive (also how long a
    /// connection may stay idle between requests).
    header_timeout: Duration,
    /// Whether each request carries its peer's address (axum's
    /// `ConnectInfo<SocketAddr>`), which the inspector checks and
    /// telemetry exports.
    peers: bool,
}

impl Limits {
    /// The limits `config` sets.
    pub(super) fn of(config: &RuntimeConfig) -> Self {
        Limits {
            max_connections: config.max_connections,
            header_timeout: config.header_timeout,
            // Telemetry exports the peer as the request's `client.address`.
            peers: config.serves_inspector() || crate::observe::active(),
        }
    }

    /// What makes these limits unusable, one sentence each.
    pub(super) fn problems(self) -> Vec<&'static str> {
        let mut problems = Vec::new();
        if self.max_connections == 0 {
            problems.push("max_connections is 0: no connection could be served");
        }
        if self.header_timeout.is_zero() {
            problems
                .push("header_timeout is 0: every connection would be closed before its request");
        }
        problems
    }
}

/// Serves `router` on `listener` with the runtime's connection limits
/// from `config`: a request's headers must arrive within
/// `header_timeout` (`CCFN_HEADER_TIMEOUT_MS`), which also bounds how
/// long a connection may stay idle, and at most `max_connections`
/// (`CCFN_MAX_CONNECTIONS`) are open at once. Each connection is
/// HTTP/1.1 with keep-alive.
///
/// For a router you build around [`Runtime::router`](super::Runtime::router)
/// (merged or nested in your own), where `axum::serve` would give no
/// header deadline and no connection cap. Await the returned [`Serve`] to
/// serve until the process ends, or give it a shutdown signal first with
/// [`Serve::with_graceful_shutdown`]. It installs no logging and writes no
/// `listening` record: [`Runtime::serve`](super::Runtime::serve) does both.
///
/// # Errors
/// Awaited, it fails when the configuration's limits are unusable (a
/// `max_connections` or `header_timeout` of 0); nothing is served then.
///
/// ```no_run
/// use axum::routing::get;
/// use ccfn_core::runtime::{self, Feature, Runtime};
/// # use ccfn_core::prelude::*;
/// # /// Waits.
/// # ///
/// # /// # Trigger
/// # /// Studio.
/// # /// # Dependencies
/// # /// None.
/// # /// # Critical logging
/// # /// None.
/// # /// # Contacts
/// # /// oncall@example.com
/// # #[contact_fn(required = [CallSid, From, To])]
/// # async fn wait_experience(_context: Context, _event: Event, callback: Callback) -> Completion {
/// #     callback.success(VoiceResponse::new())
/// # }
///
/// #[tokio::main]
/// async fn main() -> Result<(), ccfn_core::Error> {
///     let _logs = ccfn_core::record::init_logging()?;
///     let runtime = Runtime::from_env()?.feature(
///         Feature::new("callback-and-voicemail-with-email")
///             .function("studio/wait-experience", wait_experience),
///     );
///     let config = runtime.config().clone();
///     let app = axum::Router::new()
///         .route("/healthz", get(|| async { "ok" }))
///         .nest("/ccfn", runtime.router()?);
///     let listener = tokio::net::TcpListener::bind(config.addr).await?;
///     runtime::serve(listener, app, &config)
///         .with_graceful_shutdown(async {
///             let _ = tokio::signal::ctrl_c().await;
///         })
///         .await
/// }
/// ```
pub fn serve(listener: TcpListener, router: Router, config: &RuntimeConfig) -> Serve {
    Serve {
        listener,
        router,
        limits: Limits::of(config),
        shutdown: std::future::pending(),
    }
}

/// A server to await, made by [`serve`]; it resolves when the shutdown
/// signal given to [`Serve::with_graceful_shutdown`] has completed and
/// every connection has closed (never, without one).
#[must_use = "a server does nothing until it is awaited"]
pub struct Serve<S = std::future::Pending<()>> {
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: S,
}

impl<S> std::fmt::Debug for Serve<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serve")
            .field("listener", &self.listener)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl<S> Serve<S> {
    /// Stops accepting when `signal` completes; then each connection
    /// finishes the request it is serving, and the server resolves once
    /// every connection is closed. Invocations still running are not
    /// cancelled: each ends by its function's timeout at the latest.
    pub fn with_graceful_shutdown<G>(self, signal: G) -> Serve<G>
    where
        G: Future<Output = ()> + Send + 'static,
    {
        Serve {
            listener: self.listener,
            router: self.router,
            limits: self.limits,
            shutdown: signal,
        }
    }
}

impl<S> IntoFuture for Serve<S>
where
    S: Future<Output = ()> + Send + 'static,
{
    type Output = Result<(), Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let problems = self.limits.problems();
            if !problems.is_empty() {
                return Err(Error::new(
                    ErrorKind::Validation,
                    format!("cannot serve:\n  {}", problems.join("\n  ")),
                ));
            }
            accept_loop(self.listener, self.router, self.limits, self.shutdown).await;
            Ok(())
        })
    }
}

/// Serves `router` on `listener` until `shutdown` completes; then stops
/// accepting, lets each connection finish the request it is serving, and
/// returns when every connection is closed.
async fn accept_loop(
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
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    accept_failed(&error).await;
                    continue;
                }
            },
        };
        // Answers are written whole; waiting to fill a segment only adds
        // latency.
        let _ = stream.set_nodelay(true);
        let peer = limits.peers.then_some(ConnectInfo(peer));
        let service =
            TowerToHyperService::new(router.clone().map_request(move |mut request: Incoming| {
                if let Some(peer) = peer {
                    request.extensions_mut().insert(peer);
                }
                request
            }));
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

type Incoming = axum::http::Request<hyper::body::Incoming>;

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
    emit_at(
        Level::WARN,
        &format!("cannot accept connections: {error}; retrying in 1 s"),
        &crate::record::Runtime::BARE,
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
}
