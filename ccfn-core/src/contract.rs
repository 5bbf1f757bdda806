//! The contract wrapper: what `#[contact_fn]` runs around every handler.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use futures_util::FutureExt as _;
use serde_json::{json, Value};
use tracing::{Instrument as _, Level};

use crate::callback::{Callback, IntoCompletion, InvocationId, Outcome, Reply};
use crate::log::{emit, Fields, SPAN_NAME};
use crate::secret::{is_sensitive_name, ScrubInvocation};
use crate::{metrics, panic, Context, Error, ErrorKind, Event, FunctionMeta};

/// A boxed, sendable future: what [`crate::ContactFunction::invoke`]
/// returns.
pub type BoxFuture<T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'static>>;

fn fields<const N: usize>(pairs: [(&str, Value); N]) -> Fields {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

fn info(step: &str, message: &str, pairs: Fields) {
    emit(Level::INFO, step, message, &pairs);
}

/// Runs `handler` under the logging contract: the records of
/// `design.md`'s "The log record", validation of required parameters and
/// environment, panic capture and the timeout. Called by the code
/// `#[contact_fn]` generates; needs a Tokio runtime with time enabled.
#[doc(hidden)]
pub fn run<F, Fut>(
    meta: &'static FunctionMeta,
    context: Context,
    event: Event,
    handler: F,
) -> BoxFuture<Outcome>
where
    F: FnOnce(Context, Event, Callback) -> Fut + Send + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCompletion,
{
    Box::pin(async move {
        // Made on first poll, so that it belongs to the subscriber the
        // future runs under.
        let invocation_id = InvocationId::new();
        let span = tracing::info_span!(
            target: "ccfn",
            SPAN_NAME,
            function = meta.name(),
            invocation_id = invocation_id.as_str(),
            call_sid = event.call_sid(),
        );
        let sensitive: Vec<String> = event
            .iter()
            .filter(|(name, _)| is_sensitive_name(name))
            .filter_map(|(_, value)| value.as_str().map(str::to_owned))
            .collect();
        let result = ScrubInvocation::new(
            sensitive.iter().map(String::as_str),
            contract(meta, context, event, handler),
        )
        .instrument(span)
        .await;
        Outcome {
            invocation_id,
            result,
        }
    })
}

async fn contract<F, Fut>(
    meta: &'static FunctionMeta,
    context: Context,
    event: Event,
    handler: F,
) -> Result<Reply, Error>
where
    F: FnOnce(Context, Event, Callback) -> Fut,
    Fut: Future,
    Fut::Output: IntoCompletion,
{
    let started = Instant::now();
    let name = meta.name();
    let event_json = event.to_log_json();
    let domain = context.domain_name().map_or(Value::Null, Value::from);

    info(
        "start",
        &format!("=== FUNCTION START: {name} ==="),
        fields([("event", event_json.clone()), ("domain", domain.clone())]),
    );
    if context.local_logging() || event.get("ENABLE_LOCAL_LOGGING") == Some("true") {
        info(
            "verbose",
            "Verbose logging enabled",
            fields([
                ("event_keys", json!(event.keys())),
                ("context_keys", json!(context.keys().collect::<Vec<_>>())),
                ("memory_bytes", json!(metrics::rss_bytes())),
            ]),
        );
    }
    if context.debug_mode() || event.mode() == "debug" {
        info(
            "debug",
            "Debug mode enabled",
            fields([
                (
                    "function_name",
                    json!(context.get("FUNCTION_NAME").unwrap_or(name)),
                ),
                ("function_version", json!(context.get("FUNCTION_VERSION"))),
                (
                    "execution_environment",
                    json!(context.get("EXECUTION_ENVIRONMENT").unwrap_or("local")),
                ),
            ]),
        );
    }

    info(
        "validation",
        "Validating required parameters",
        fields([
            ("phase", json!("begin")),
            ("required", json!(meta.required())),
            ("env", json!(meta.env())),
        ]),
    );
    if let Some(error) = validate(meta, &context, &event) {
        finish(meta, &context, started);
        end(meta, started, false);
        return Err(error);
    }
    info(
        "validation",
        "Validation passed",
        fields([
            ("phase", json!("passed")),
            ("required", json!(meta.required())),
        ]),
    );

    let mode = event.mode().to_owned();
    info(
        "processing",
        &format!("Processing mode: {mode}"),
        fields([("mode", json!(mode))]),
    );
    info(
        "caller",
        "Caller info",
        fields([
            ("from", json!(event.from())),
            ("to", json!(event.to())),
            ("call_sid", json!(event.call_sid())),
        ]),
    );

    let timeout = Duration::from_millis(meta.timeout_ms());
    let handler = panic::InHandler::new(handler(context.clone(), event, Callback::new()));
    let result = match tokio::time::timeout(timeout, AssertUnwindSafe(handler).catch_unwind()).await
    {
        Ok(Ok(output)) => output.into_completion(),
        Ok(Err(payload)) => {
            let message = format!("function panicked: {}", panic::message(&*payload));
            Err(match panic::take_location() {
                Some(location) => {
                    Error::new(ErrorKind::Panic, message).with_source(Location(location))
                }
                None => Error::new(ErrorKind::Panic, message),
            })
        }
        Err(_) => Err(Error::new(
            ErrorKind::Timeout,
            format!("Function timed out after {} ms", meta.timeout_ms()),
        )),
    };

    match &result {
        Ok(reply) => {
            finish(meta, &context, started);
            info(
                "success",
                "Function completed successfully",
                fields([("result", reply.to_log_json())]),
            );
        }
        Err(error) => {
            emit(
                Level::ERROR,
                "error",
                &format!("=== FUNCTION ERROR: {name} ==="),
                &fields([
                    ("kind", json!(error.kind().as_str())),
                    ("error", json!(error.message())),
                    ("stack", json!(error.stack())),
                    ("event", event_json),
                    ("domain", domain),
                    ("account_sid", json!(context.account_sid())),
                ]),
            );
            finish(meta, &context, started);
        }
    }
    end(meta, started, result.is_ok());
    result
}

/// Where a panic happened, as the source of the panic's error.
#[derive(Debug)]
struct Location(String);

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Location {}

/// Logs one `validation_error` per missing parameter, then per missing
/// environment value, and returns the error naming the first.
fn validate(meta: &FunctionMeta, context: &Context, event: &Event) -> Option<Error> {
    let missing_params = meta
        .required()
        .iter()
        .filter(|name| !event.is_present(name))
        .map(|name| (*name, format!("Missing required parameter: {name}")));
    let missing_env = meta
        .env()
        .iter()
        .filter(|name| !context.is_present(name))
        .map(|name| {
            (
                *name,
                format!("Missing required environment variable: {name}"),
            )
        });
    let mut first = None;
    for (parameter, message) in missing_params.chain(missing_env) {
        emit(
            Level::WARN,
            "validation_error",
            &message,
            &fields([("parameter", json!(parameter)), ("error", json!(message))]),
        );
        first.get_or_insert(message);
    }
    first.map(|message| Error::new(ErrorKind::Validation, message))
}

/// Logs `metrics`, then an `alert` for each threshold crossed.
fn finish(meta: &FunctionMeta, context: &Context, started: Instant) {
    let elapsed = started.elapsed();
    let memory = metrics::rss_bytes();
    let limit = context.memory_limit();
    info(
        "metrics",
        "Execution metrics",
        fields([
            ("execution_ms", json!(millis(elapsed))),
            ("memory_bytes", json!(memory)),
            ("memory_limit_bytes", json!(limit)),
        ]),
    );
    let thresholds = context.thresholds();
    if elapsed > thresholds.execution {
        alert(
            "execution_time",
            &format!(
                "{} took {:.0} ms, over the {} ms threshold",
                meta.name(),
                millis(elapsed),
                thresholds.execution.as_millis()
            ),
            json!(millis(elapsed)),
            json!(millis(thresholds.execution)),
        );
    }
    if let (Some(memory), Some(limit)) = (memory, limit) {
        #[allow(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )]
        let threshold = (limit as f64 * thresholds.memory_ratio) as u64;
        if memory > threshold {
            alert(
                "memory",
                &format!("memory use {memory} bytes is over the {threshold} bytes threshold"),
                json!(memory),
                json!(threshold),
            );
        }
    }
}

/// Logs an `alert` record.
pub(crate) fn alert(kind: &str, message: &str, value: Value, threshold: Value) {
    emit(
        Level::WARN,
        "alert",
        &format!("ALERT: {message}"),
        &fields([
            ("kind", json!(kind)),
            ("value", value),
            ("threshold", threshold),
        ]),
    );
}

fn end(meta: &FunctionMeta, started: Instant, ok: bool) {
    info(
        "end",
        &format!("=== FUNCTION END: {} ===", meta.name()),
        fields([
            ("outcome", json!(if ok { "success" } else { "error" })),
            ("execution_ms", json!(millis(started.elapsed()))),
        ]),
    );
}

/// Milliseconds with microsecond precision.
fn millis(duration: Duration) -> f64 {
    (duration.as_micros() as f64) / 1000.0
}
