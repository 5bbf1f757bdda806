//! What the handlers of one router share: the context, the configuration,
//! the invocations in flight; and what each function's route adds.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{watch, Notify};

use super::config::RuntimeConfig;
use super::feature::{Registered, AUTH_TOKEN};
use crate::function::context::Context;
use crate::secret::Secret;

/// What every route of one router shares.
pub(super) struct Shared {
    pub(super) context: Context,
    pub(super) config: RuntimeConfig,
    pub(super) shutdown: Arc<Shutdown>,
}

/// The state of one function's route.
pub(super) struct Endpoint {
    pub(super) shared: Arc<Shared>,
    pub(super) registered: Registered,
    /// Its path, `/features/<feature>/<path>`: the route, made once.
    pub(super) url_path: String,
}

impl Endpoint {
    /// The function's name, for records.
    pub(super) fn name(&self) -> &'static str {
        self.registered.function.meta().name()
    }

    /// The key that requests to this function must be signed with: none
    /// for a public function, or when the context has no auth token.
    pub(super) fn signing_key(&self) -> Option<&Secret> {
        if self.registered.public {
            return None;
        }
        self.shared
            .context
            .secret(AUTH_TOKEN)
            .filter(|token| !token.expose().is_empty())
    }
}

/// The invocations in flight, and the signal that cancels them when the
/// shutdown grace runs out.
#[derive(Default)]
pub(super) struct Shutdown {
    cancel: watch::Sender<bool>,
    in_flight: AtomicUsize,
    idle: Notify,
}

impl Shutdown {
    /// Cancels every invocation in flight and waits up to `wait` for them
    /// to close; returns how many are still running then.
    pub(super) async fn cancel_all(&self, wait: Duration) -> usize {
        let _ = self.cancel.send(true);
        let _ = tokio::time::timeout(wait, async {
            while self.in_flight.load(Ordering::Acquire) > 0 {
                self.idle.notified().await;
            }
        })
        .await;
        self.in_flight.load(Ordering::Acquire)
    }

    /// The signal that turns `true` when in-flight invocations must stop.
    pub(super) fn cancelled(&self) -> watch::Receiver<bool> {
        self.cancel.subscribe()
    }
}

/// Counts one invocation in flight while it lives.
pub(super) struct InFlight<'a>(&'a Shutdown);

impl<'a> InFlight<'a> {
    pub(super) fn new(shutdown: &'a Shutdown) -> Self {
        shutdown.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(shutdown)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
        self.0.idle.notify_waiters();
    }
}
