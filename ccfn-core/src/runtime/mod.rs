//! The runtime: serves functions over HTTP at
//! `/features/<feature>/<function path>`, locally and in production.
//!
//! ```no_run
//! use ccfn_core::runtime::{Feature, Runtime};
//! # use ccfn_core::prelude::*;
//! # /// Waits.
//! # ///
//! # /// # Trigger
//! # /// Studio.
//! # /// # Dependencies
//! # /// None.
//! # /// # Critical logging
//! # /// None.
//! # /// # Contacts
//! # /// oncall@example.com
//! # #[contact_fn(required = [CallSid, From, To])]
//! # async fn wait_experience(_context: Context, _event: Event, callback: Callback) -> Completion {
//! #     callback.success(VoiceResponse::new())
//! # }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), ccfn_core::Error> {
//!     Runtime::from_env()?
//!         .feature(
//!             Feature::new("callback-and-voicemail-with-email")
//!                 .function("studio/wait-experience", wait_experience),
//!         )
//!         .serve()
//!         .await
//! }
//! ```

mod answer;
mod config;
mod extract;
mod feature;
mod handler;
mod inspector;
mod params;
#[cfg(any(fuzzing, test))]
pub(crate) use params::{parse_form, parse_json};
mod router;
mod serve;
mod state;

use std::collections::HashMap;
use std::fmt;
use std::future::{Future, IntoFuture};
use std::sync::Arc;

use axum::Router;
use tokio::net::TcpListener;
use tracing::Level;

pub use config::{Mode, RuntimeConfig};
pub use feature::Feature;
use feature::{Registered, AUTH_TOKEN};
/// The `lambda_http` crate the runtime runs on, for its request and
/// response types.
#[cfg(feature = "lambda")]
#[doc(no_inline)]
pub use lambda_http;
pub use serve::{serve, Serve};

use crate::error::Error;
use crate::error::ErrorKind;
use crate::function::context::Context;
use crate::record::{emit, emit_at};

/// Serves registered functions; see the [module docs](self).
#[must_use = "call .serve() or .router()"]
pub struct Runtime {
    context: Context,
    config: RuntimeConfig,
    functions: Vec<Registered>,
    /// The inspector, when [`Runtime::serve`] installed the logging that
    /// feeds it.
    inspector: Option<inspector::Inspector>,
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("config", &self.config)
            .field(
                "functions",
                &self
                    .functions
                    .iter()
                    .map(Registered::url_path)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

fn valid_segment(segment: &str) -> bool {
    !segment.is_empty()
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && segment != "."
        && segment != ".."
}

impl Runtime {
    /// A runtime with `context` and `config`; turns backtrace capture on
    /// or off for the process, as `config.backtraces` says.
    pub fn new(context: Context, config: RuntimeConfig) -> Self {
        crate::error::capture_backtraces(config.backtraces);
        Runtime {
            context,
            config,
            functions: Vec::new(),
            inspector: None,
        }
    }

    /// A runtime configured by the environment: the process environment
    /// over the `.env` file ([`crate::config::Env::load`]), read once,
    /// every variable of the catalogue checked ([`crate::config::check`],
    /// the clients' settings included), then [`Context::from_source`] and
    /// [`RuntimeConfig::from_source`].
    ///
    /// # Errors
    /// The `.env` file cannot be read, or a variable has a value that
    /// cannot be used (kind `Configuration`; the message names the
    /// variable and says what it accepts).
    pub fn from_env() -> Result<Self, Error> {
        let env = crate::config::Env::load()?;
        crate::config::check(&env)?;
        Ok(Runtime::new(
            Context::from_source(&env)?,
            RuntimeConfig::from_source(&env)?,
        ))
    }

    /// Adds a feature's functions.
    pub fn feature(mut self, feature: Feature) -> Self {
        self.functions.extend(feature.functions);
        self
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &RuntimeConfig {
        &self.config
    }

    /// Checks what must hold before serving: valid, distinct paths; every
    /// function's required environment values present (in local mode, a
    /// declared secret may be unset: see [`Runtime::unset_secrets`]); an
    /// auth token in
    /// production mode when a function is protected; and, with the
    /// `clients` feature, the HTTP client made (`context.http()`), its CA
    /// certificates loaded (`CCFN_TLS_ROOTS`, `SSL_CERT_FILE`,
    /// `SSL_CERT_DIR`), so that a machine without certificates stops the
    /// start with what to install rather than fail the first call.
    ///
    /// # Errors
    /// One error listing every problem found, each on its own line.
    pub fn check(&self) -> Result<(), Error> {
        let mut problems = Vec::new();
        let mut seen = HashMap::new();
        for registered in &self.functions {
            let url = registered.url_path();
            if !valid_segment(&registered.feature) {
                problems.push(format!(
                    "feature name `{}` is not valid: use ASCII letters, digits, `-`, `_` and `.`",
                    registered.feature
                ));
            }
            if !registered.path.split('/').all(valid_segment) {
                problems.push(format!(
                    "function path `{}` is not valid: use segments of ASCII letters, digits, `-`, `_` and `.` separated by `/`",
                    registered.path
                ));
            }
            if let Some(other) = seen.insert(url.clone(), registered.function.meta().name()) {
                problems.push(format!(
                    "`{url}` is registered twice (`{other}` and `{}`)",
                    registered.function.meta().name()
                ));
            }
            let meta = registered.function.meta();
            // In local mode an unset declared secret is a warning at start
            // (`unset_secrets`), not a problem: the function runs as if it
            // were not configured.
            let secrets = meta
                .secrets()
                .iter()
                .filter(|_| self.config.mode == Mode::Production);
            for name in meta.env().iter().chain(secrets) {
                if !self.context.is_present(name) {
                    problems.push(format!(
                        "Missing required environment variable: {name} (required by `{}` at {url})",
                        registered.function.meta().name()
                    ));
                }
            }
        }
        let protected = self.functions.iter().any(|r| !r.public);
        if protected && self.config.mode == Mode::Production && !self.context.is_present(AUTH_TOKEN)
        {
            problems.push(format!(
                "{AUTH_TOKEN} is not set: production mode needs the account's auth token to check request signatures (or register the functions with `public_function`)"
            ));
        }
        #[cfg(feature = "clients")]
        if let Err(error) = self.context.http() {
            problems.push(error.message().to_owned());
        }
        problems.extend(
            serve::Limits::of(&self.config)
                .problems()
                .into_iter()
                .map(str::to_owned),
        );
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::new(
                ErrorKind::Validation,
                format!("cannot start the runtime:\n  {}", problems.join("\n  ")),
            ))
        }
    }

    /// The declared secrets (`secrets = [..]`) the context leaves unset,
    /// each with the functions that declare it, in local mode; none in
    /// production mode, where [`Runtime::check`] refuses them.
    ///
    /// In local mode these functions are served, and run without them, as
    /// if they were not configured: `context.secret(..)` is `None`, and
    /// the email and task-router clients use the local outbox and task
    /// store when their credentials are among them. `serve` and
    /// `serve_with` write one WARN `runtime` record per secret at start,
    /// naming it (never a value) and its functions.
    #[must_use]
    pub fn unset_secrets(&self) -> Vec<(&'static str, Vec<&'static str>)> {
        let mut unset: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
        if self.config.mode != Mode::Local {
            return unset;
        }
        for registered in &self.functions {
            let meta = registered.function.meta();
            for name in meta.secrets() {
                if self.context.is_present(name) {
                    continue;
                }
                match unset.iter_mut().find(|(unset, _)| unset == name) {
                    Some((_, functions)) => {
                        if !functions.contains(&meta.name()) {
                            functions.push(meta.name());
                        }
                    }
                    None => unset.push((name, vec![meta.name()])),
                }
            }
        }
        unset
    }

    /// The router, to embed in another server or run anywhere a tower
    /// `Service` runs: one route per function, the catalogue when it is
    /// served, and the runtime's own `404` for every other path. Serve it
    /// with [`serve()`], alone or merged or nested in a router of yours, to
    /// keep the header deadline and the connection cap: they hold
    /// connections, which a router never sees.
    ///
    /// # Errors
    /// [`Runtime::check`] fails.
    pub fn router(self) -> Result<Router, Error> {
        self.router_and_shutdown().map(|(router, _)| router)
    }

    /// The router, and the handle that cancels its in-flight invocations.
    fn router_and_shutdown(self) -> Result<(Router, Arc<state::Shutdown>), Error> {
        self.check()?;
        // The public host when known, else the address listened on.
        let domain = match &self.config.public_url {
            Some(url) => url.split("://").nth(1).unwrap_or(url).to_owned(),
            None => self.config.addr.to_string(),
        };
        let mut context = self.context.with_default("DOMAIN_NAME", &domain);
        // Each function's declared secrets, held as such once for all its
        // invocations.
        for registered in &self.functions {
            context = context.with_secrets(registered.function.meta().secrets());
        }
        // In local mode, the declared secrets left unset stop no invocation.
        let unset = self.unset_secrets();
        if !unset.is_empty() {
            context = context.with_unset_secrets(unset.iter().map(|(name, _)| *name));
        }
        Ok(router::build(
            context,
            self.config,
            self.functions,
            self.inspector.as_ref(),
        ))
    }

    /// Installs the process's logging ([`crate::record::init_logging`]), checks,
    /// listens on `CCFN_ADDR` and serves until SIGINT or SIGTERM; then
    /// stops accepting, lets in-flight invocations finish (up to the
    /// shutdown grace), writes every buffered log line and returns.
    ///
    /// # Errors
    /// Logging cannot be installed, [`Runtime::check`] fails, or the
    /// address cannot be listened on; nothing is served then.
    pub async fn serve(mut self) -> Result<(), Error> {
        // Every start-up problem is reported before the port is bound.
        self.check()?;
        // The inspector is fed by a layer of the logging installed here.
        self.inspector = self
            .config
            .serves_inspector()
            .then(|| inspector::Inspector::new(self.config.inspector_invocations));
        let (logs, whole) = crate::record::init_logging_beside(
            self.inspector.as_ref().map(inspector::Inspector::sink),
        )?;
        if let Some(inspector) = &self.inspector {
            inspector.filtered(!whole);
        }
        let telemetry = start_telemetry(&self.context)?;
        #[cfg(feature = "clients")]
        warn_builtin_roots(&self.context);
        let addr = self.config.addr;
        if self.config.mode == Mode::Local
            && !self.context.is_present(AUTH_TOKEN)
            && self.functions.iter().any(|r| !r.public)
        {
            emit_at(
                Level::WARN,
                &format!(
                    "{AUTH_TOKEN} is not set: request signatures are not checked (local mode)"
                ),
                &crate::record::Runtime::BARE,
            );
        }
        let listener = TcpListener::bind(addr).await.map_err(|e| {
            Error::new(ErrorKind::Function, format!("cannot listen on {addr}: {e}")).with_source(e)
        })?;
        let logs = Arc::new(logs);
        let reporter = {
            let logs = Arc::clone(&logs);
            tokio::spawn(async move {
                let mut every = tokio::time::interval(std::time::Duration::from_secs(1));
                loop {
                    every.tick().await;
                    logs.report_dropped();
                }
            })
        };
        let result = self.serve_with(listener, shutdown_signal()).await;
        reporter.abort();
        let _ = reporter.await;
        // What is left is exported while its failures can still be logged.
        crate::observe::stop_export(telemetry);
        drop(logs);
        result
    }

    /// Serves on `listener` until `shutdown` completes, then finishes
    /// in-flight invocations (up to the shutdown grace). Logging is the
    /// caller's to install.
    ///
    /// # Errors
    /// [`Runtime::check`] fails.
    pub async fn serve_with(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), Error> {
        let grace = self.config.shutdown_grace;
        let config = self.config.clone();
        let inspector = self.inspector.clone();
        let names: Vec<String> = self.functions.iter().map(Registered::url_path).collect();
        let unset: Vec<String> = self
            .unset_secrets()
            .into_iter()
            .map(|(name, functions)| {
                let run = if functions.len() == 1 { "runs" } else { "run" };
                let functions = functions
                    .iter()
                    .map(|function| format!("`{function}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                format!(
                    "{name} is not set: {functions} {run} without it (local mode; production mode refuses to start without it)"
                )
            })
            .collect();
        let (router, in_flight) = self.router_and_shutdown()?;
        for message in &unset {
            emit_at(Level::WARN, message, &crate::record::Runtime::BARE);
        }
        let addr = listener
            .local_addr()
            .map_err(|e| Error::msg(format!("cannot read the listening address: {e}")))?;
        let addr_text = addr.to_string();
        emit(
            &format!("listening on http://{addr}"),
            &crate::record::Runtime {
                addr: Some(&addr_text),
                functions: Some(names.as_slice()),
            },
        );

        let (stopping_tx, stopping_rx) = tokio::sync::oneshot::channel::<()>();
        let server = serve(listener, router, &config)
            .with_graceful_shutdown(async move {
                shutdown.await;
                emit(
                    "shutting down: finishing in-flight invocations",
                    &crate::record::Runtime::BARE,
                );
                // An open inspector page must not hold its connection.
                if let Some(inspector) = &inspector {
                    inspector.close();
                }
                let _ = stopping_tx.send(());
            })
            .into_future();
        let deadline = async move {
            if stopping_rx.await.is_ok() {
                tokio::time::sleep(grace).await;
            } else {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            served = server => served?,
            () = deadline => {
                // Cancel what still runs, so that each invocation closes its
                // records (error, metrics, end) while logging is still up.
                let still_running = in_flight.cancel_all(std::time::Duration::from_secs(1)).await;
                emit_at(Level::WARN, &format!(
                        "shutdown grace of {} ms expired: in-flight invocations were cancelled{}",
                        grace.as_millis(),
                        if still_running == 0 { String::new() } else { format!(" ({still_running} did not stop)") }
                    ),
                    &crate::record::Runtime::BARE,
                );
            }
        }
        emit("stopped", &crate::record::Runtime::BARE);
        Ok(())
    }
}

#[cfg(feature = "lambda")]
impl Runtime {
    /// Checks, installs the process's logging, and serves the router on
    /// AWS Lambda (API Gateway REST and HTTP APIs, function URLs) through
    /// the official `lambda_http` runtime until the platform stops the
    /// process. Needs the `lambda` feature.
    ///
    /// Every record of an invocation carries the platform's request id
    /// (`function_request_id`) and whether the invocation is the first of
    /// the process (`cold_start`); each one is written out, and its spans
    /// and metrics exported, before its reply leaves, since the platform
    /// may freeze the process as soon as it has the reply.
    ///
    /// # Errors
    /// [`Runtime::check`] fails, the process is not on Lambda (a variable
    /// the platform sets is missing; kind `Configuration`), logging cannot
    /// be installed, or the Lambda runtime fails.
    pub async fn serve_lambda(self) -> Result<(), Error> {
        self.check()?;
        let env = crate::config::Env::load()?;
        lambda::check_environment(|setting| setting.text(&env).is_some())?;
        let logs = crate::record::init_logging()?;
        let telemetry = start_telemetry(&self.context)?;
        let router = self.router()?.layer(axum::middleware::from_fn_with_state(
            logs.writer(),
            lambda::invocation,
        ));
        let result = lambda_http::run(router)
            .await
            .map_err(|e| Error::msg(format!("the Lambda runtime failed: {e}")));
        crate::observe::stop_export(telemetry);
        drop(logs);
        result
    }
}

/// What the runtime adds on Lambda around each request.
#[cfg(feature = "lambda")]
mod lambda {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use axum::extract::{Request, State};
    use axum::middleware::Next;
    use axum::response::Response;
    use lambda_http::RequestExt as _;

    use crate::config::{
        Setting, AWS_LAMBDA_FUNCTION_MEMORY_SIZE, AWS_LAMBDA_FUNCTION_NAME,
        AWS_LAMBDA_FUNCTION_VERSION, AWS_LAMBDA_RUNTIME_API,
    };
    use crate::error::{Error, ErrorKind};
    use crate::record::background::Background;
    use crate::record::scope::{on_lambda, OnLambda};

    /// The variables the Lambda platform sets for a custom runtime, which
    /// `lambda_http` reads (it panics without them).
    pub(super) static ENVIRONMENT: [&Setting; 4] = [
        &AWS_LAMBDA_RUNTIME_API,
        &AWS_LAMBDA_FUNCTION_NAME,
        &AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
        &AWS_LAMBDA_FUNCTION_VERSION,
    ];

    /// How long a reply waits, at most, for its records to be written.
    const WRITTEN_WITHIN: Duration = Duration::from_secs(2);

    /// Whether no invocation has been served yet by this process.
    static COLD: AtomicBool = AtomicBool::new(true);

    /// Checks that the process runs where the Lambda platform (or an
    /// emulator of it) started it: every variable of [`ENVIRONMENT`] is
    /// set, as `is_set` says.
    pub(super) fn check_environment(
        is_set: impl Fn(&'static Setting) -> bool,
    ) -> Result<(), Error> {
        let missing: Vec<&str> = ENVIRONMENT
            .iter()
            .filter(|setting| !is_set(setting))
            .map(|setting| setting.name())
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(Error::new(
            ErrorKind::Configuration,
            format!(
                "not running on AWS Lambda: {} {} not set (the Lambda platform sets them); serve the functions with `serve` elsewhere, or run them under a Lambda emulator such as `cargo lambda watch`",
                missing.join(", "),
                if missing.len() == 1 { "is" } else { "are" }
            ),
        ))
    }

    /// Handles one Lambda invocation's request: its records carry the
    /// platform's request id and the cold start, and are written out
    /// (after its spans and metrics are exported) before the reply leaves.
    pub(super) async fn invocation(
        State(writer): State<Background>,
        request: Request,
        next: Next,
    ) -> Response {
        let cold_start = COLD.swap(false, Ordering::Relaxed);
        let request_id = request
            .lambda_context_ref()
            .map(|context| context.request_id.clone());
        let response = match request_id {
            Some(request_id) => {
                let lambda = OnLambda {
                    request_id,
                    cold_start,
                };
                on_lambda(lambda, next.run(request)).await
            }
            None => next.run(request).await,
        };
        // The process may be frozen as soon as the platform has the reply.
        if crate::observe::active() {
            let _ = tokio::task::spawn_blocking(crate::observe::flush).await;
        }
        writer.written(WRITTEN_WITHIN).await;
        response
    }

    #[cfg(test)]
    mod tests {
        use crate::error::ErrorKind;
        use crate::runtime::lambda::check_environment;

        #[test]
        fn outside_lambda_the_missing_variables_are_named() {
            assert!(check_environment(|_| true).is_ok());
            let error = check_environment(|setting| setting.name() == "AWS_LAMBDA_FUNCTION_NAME")
                .unwrap_err();
            assert_eq!(error.kind(), ErrorKind::Configuration);
            assert!(
                error.message().starts_with(
                    "not running on AWS Lambda: AWS_LAMBDA_RUNTIME_API, AWS_LAMBDA_FUNCTION_MEMORY_SIZE, AWS_LAMBDA_FUNCTION_VERSION are not set"
                ),
                "{error}"
            );
            let error = check_environment(|setting| setting.name() != "AWS_LAMBDA_RUNTIME_API")
                .unwrap_err();
            assert!(
                error
                    .message()
                    .starts_with("not running on AWS Lambda: AWS_LAMBDA_RUNTIME_API is not set"),
                "{error}"
            );
        }
    }
}

/// Starts OpenTelemetry export as the context's `OTEL_*` values say, and
/// says where it goes; in a binary built without an exporter, says that
/// nothing is exported if an endpoint is set.
fn start_telemetry(context: &Context) -> Result<Option<crate::observe::Running>, Error> {
    if !crate::observe::EXPORTER_BUILT {
        warn_no_telemetry(context);
        return Ok(None);
    }
    let telemetry = crate::observe::start_export(context)?;
    if let Some(telemetry) = &telemetry {
        emit(
            &format!(
                "exporting OpenTelemetry {}",
                crate::observe::destination(telemetry)
            ),
            &crate::record::Runtime::BARE,
        );
    }
    Ok(telemetry)
}

/// Says that an OpenTelemetry endpoint is set in a binary that cannot
/// export to it, rather than export nothing without a word.
fn warn_no_telemetry(context: &Context) {
    if let Some(name) = otel_endpoint_set(context) {
        emit_at(
            Level::WARN,
            &format!(
                "{name} is set, but this binary was built without ccfn-core's `otel` feature: no trace or metric is exported"
            ),
            &crate::record::Runtime::BARE,
        );
    }
}

/// Says that the clients trust the CA certificates built into ccfn
/// because the system has none: right for public services, not for a
/// corporate CA, which only the system's store can add.
#[cfg(feature = "clients")]
fn warn_builtin_roots(context: &Context) {
    if let Ok(roots) = crate::client::http::TlsRoots::load(context)
        && roots.origin() == crate::client::http::RootsOrigin::BuiltinFallback
    {
        emit_at(
                Level::WARN,
                &format!(
                    "HTTPS servers are verified with {roots}: install the ca-certificates package to use the system's (a corporate CA included), or set CCFN_TLS_ROOTS=builtin to say that the built-in ones are meant"
                ),
                &crate::record::Runtime::BARE,
            );
    }
}

/// The first OpenTelemetry endpoint variable `context` sets, if any.
fn otel_endpoint_set(context: &Context) -> Option<&'static str> {
    use crate::config::{
        OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    };
    [
        &OTEL_EXPORTER_OTLP_ENDPOINT,
        &OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
        &OTEL_EXPORTER_OTLP_METRICS_ENDPOINT,
    ]
    .into_iter()
    .map(|setting| setting.name())
    .find(|name| context.is_present(name))
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opentelemetry_endpoint_is_found_by_any_of_its_names() {
        let context = |vars: &[(&str, &str)]| {
            Context::from_source(&crate::config::Env::from_vars(vars.iter().copied())).unwrap()
        };
        assert_eq!(otel_endpoint_set(&context(&[])), None);
        assert_eq!(
            otel_endpoint_set(&context(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")])),
            None
        );
        assert_eq!(
            otel_endpoint_set(&context(&[(
                "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
                "http://127.0.0.1:4318/v1/metrics"
            )])),
            Some("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
        );
    }
}
