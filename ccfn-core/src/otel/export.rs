//! Spans go from the invocation to a bounded queue, and from there to the
//! collector on a thread of their own: an invocation never waits for an
//! export, and a full queue drops spans and counts them. Failures are
//! reported by a `telemetry` record, at most one a minute per signal.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use opentelemetry::Context;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{Span, SpanData, SpanProcessor};
use opentelemetry_sdk::Resource;

use super::encode::{Encoder, Finished};
use super::settings::{Settings, Signal};
use crate::error::{Error, ErrorKind};
use crate::record::emit::emit;

/// How often, at most, an export failure is written per signal.
const REPORT_EVERY: Duration = Duration::from_secs(60);

/// Writes a `telemetry` record for a failed export of `signal`, at most
/// once a minute; failures in between are counted into the next.
#[derive(Debug)]
pub(super) struct Reporter {
    signal: &'static str,
    /// When the last record was written, and the failures since.
    last: Mutex<(Option<Instant>, u64)>,
    /// Spans dropped for a full queue, and those already reported.
    dropped: Arc<AtomicU64>,
    reported_dropped: AtomicU64,
}

impl Reporter {
    pub(super) fn new(signal: &'static str) -> Reporter {
        Reporter {
            signal,
            last: Mutex::new((None, 0)),
            dropped: Arc::default(),
            reported_dropped: AtomicU64::new(0),
        }
    }

    /// Counts a failed export; writes the record when a minute has passed
    /// since the last.
    pub(super) fn failed(&self, error: &str) {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        last.1 += 1;
        if last.0.is_some_and(|at| at.elapsed() < REPORT_EVERY) {
            return;
        }
        let failed = std::mem::take(&mut last.1);
        last.0 = Some(Instant::now());
        drop(last);
        self.write(error, failed);
    }

    /// Writes the spans dropped since the last record, if any, when a
    /// minute has passed since it.
    fn report_dropped(&self) {
        let dropped = self.dropped.load(Ordering::Relaxed);
        if dropped == self.reported_dropped.load(Ordering::Relaxed) {
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if last.0.is_some_and(|at| at.elapsed() < REPORT_EVERY) {
            return;
        }
        let failed = std::mem::take(&mut last.1);
        last.0 = Some(Instant::now());
        drop(last);
        self.write("the export queue was full", failed);
    }

    fn write(&self, error: &str, failed: u64) {
        let total = self.dropped.load(Ordering::Relaxed);
        let dropped = total - self.reported_dropped.swap(total, Ordering::Relaxed);
        let mut error = error.to_owned();
        crate::secret::scrub(&mut error, &[]);
        emit(
            &format!(
                "OpenTelemetry {} export failed: {error} ({failed} failed, {dropped} spans dropped, in the last minute at most)",
                self.signal
            ),
            &crate::record::catalogue::Telemetry {
                signal: self.signal,
                error: &error,
                failed,
                dropped,
            },
        );
    }
}

enum Message {
    Span(Finished),
    Flush(SyncSender<()>),
    Stop(SyncSender<()>),
}

/// The span processor: finished spans into the queue, never waiting.
#[derive(Debug)]
pub(super) struct Queue {
    queue: SyncSender<Message>,
    reporter: Arc<Reporter>,
    timeout: Duration,
}

/// What [`super::Telemetry`] keeps of the span export: flush, stop and
/// the dropped count.
#[derive(Clone, Debug)]
pub(super) struct Handle {
    queue: SyncSender<Message>,
    reporter: Arc<Reporter>,
    timeout: Duration,
}

impl Handle {
    /// Exports every queued span, waiting up to the export timeout.
    pub(super) fn flush(&self) {
        request(&self.queue, Message::Flush, self.timeout);
    }

    /// Exports every queued span and stops the thread.
    pub(super) fn stop(&self) {
        request(&self.queue, Message::Stop, self.timeout);
    }

    pub(super) fn dropped(&self) -> u64 {
        self.reporter.dropped.load(Ordering::Relaxed)
    }

    /// Queues a finished span for export, never waiting: dropped and
    /// counted when the queue is full.
    pub(super) fn finished(&self, span: Finished) {
        finished(&self.queue, &self.reporter, span);
    }
}

/// Queues `span` on `queue`, never waiting: dropped and counted in
/// `reporter` when the queue is full.
fn finished(queue: &SyncSender<Message>, reporter: &Reporter, span: Finished) {
    match queue.try_send(Message::Span(span)) {
        Ok(()) => {}
        Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
            reporter.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Sends a flush or stop and waits up to `timeout` for it to be done.
fn request(queue: &SyncSender<Message>, make: fn(SyncSender<()>) -> Message, timeout: Duration) {
    let (done, wait) = mpsc::sync_channel(1);
    if queue.send(make(done)).is_ok() {
        let _ = wait.recv_timeout(timeout + Duration::from_secs(1));
    }
}

impl SpanProcessor for Queue {
    fn on_start(&self, _span: &mut Span, _cx: &Context) {}

    fn on_end(&self, span: SpanData) {
        finished(&self.queue, &self.reporter, Finished::Sdk(Box::new(span)));
    }

    fn force_flush(&self) -> OTelSdkResult {
        request(&self.queue, Message::Flush, self.timeout);
        Ok(())
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        request(&self.queue, Message::Flush, timeout);
        Ok(())
    }
}

/// Starts the export thread for `endpoint`; the processor to give the
/// tracer provider, and the handle to keep.
pub(super) fn start(
    settings: &Settings,
    signal: &Signal,
    resource: Resource,
    client: reqwest::blocking::Client,
) -> Result<(Queue, Handle), Error> {
    let (queue, messages) = mpsc::sync_channel(settings.queue);
    let reporter = Arc::new(Reporter::new("traces"));
    let (ready, built) = mpsc::sync_channel(1);
    let thread = Exporting {
        messages,
        reporter: Arc::clone(&reporter),
        batch: settings.batch,
        delay: settings.delay,
    };
    let sender = Sender::new(signal, client);
    std::thread::Builder::new()
        .name("ccfn-otel-spans".to_owned())
        .spawn(move || {
            // The body of every export is written here, from the spans
            // themselves, and sent with the blocking client, which must
            // stay off the async threads.
            let exporter = Exporter {
                encoder: Encoder::new(&resource),
                sender,
            };
            let _ = ready.send(Ok::<(), String>(()));
            thread.run(&exporter);
        })
        .map_err(|e| {
            Error::new(
                ErrorKind::Configuration,
                format!("cannot start the OpenTelemetry export thread: {e}"),
            )
        })?;
    match built.recv() {
        Ok(Ok(())) => {}
        Ok(Err(error)) => {
            return Err(Error::new(
                ErrorKind::Configuration,
                format!("cannot build the OpenTelemetry span exporter: {error}"),
            ))
        }
        Err(_) => {
            return Err(Error::new(
                ErrorKind::Configuration,
                "the OpenTelemetry export thread stopped before it started",
            ))
        }
    }
    let timeout = signal.timeout;
    Ok((
        Queue {
            queue: queue.clone(),
            reporter: Arc::clone(&reporter),
            timeout,
        },
        Handle {
            queue,
            reporter,
            timeout,
        },
    ))
}

/// The export thread's state.
struct Exporting {
    messages: Receiver<Message>,
    reporter: Arc<Reporter>,
    batch: usize,
    delay: Duration,
}

impl Exporting {
    /// Gathers spans into batches, exporting one when it is full, when the
    /// oldest span in it has waited the delay, or when asked.
    fn run(self, exporter: &Exporter) {
        let mut batch: Vec<Finished> = Vec::with_capacity(self.batch);
        let mut since = Instant::now();
        loop {
            let wait = self.delay.saturating_sub(since.elapsed());
            match self.messages.recv_timeout(wait) {
                Ok(Message::Span(span)) => {
                    if batch.is_empty() {
                        since = Instant::now();
                    }
                    batch.push(span);
                    if batch.len() >= self.batch {
                        self.export(exporter, &mut batch);
                    }
                }
                Ok(Message::Flush(done)) => {
                    let stop = self.drain(exporter, &mut batch);
                    let _ = done.send(());
                    if stop {
                        return;
                    }
                }
                Ok(Message::Stop(done)) => {
                    let _ = self.drain(exporter, &mut batch);
                    let _ = done.send(());
                    return;
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.export(exporter, &mut batch);
                    since = Instant::now();
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.export(exporter, &mut batch);
                    return;
                }
            }
            self.reporter.report_dropped();
        }
    }

    /// Exports `batch` and what is queued now; answers the flushes and
    /// stops queued meanwhile once it is done, and says whether one was a
    /// stop.
    fn drain(&self, exporter: &Exporter, batch: &mut Vec<Finished>) -> bool {
        let mut answers = Vec::new();
        let mut stop = false;
        while let Ok(message) = self.messages.try_recv() {
            match message {
                Message::Span(span) => {
                    batch.push(span);
                    if batch.len() >= self.batch {
                        self.export(exporter, batch);
                    }
                }
                Message::Flush(done) => answers.push(done),
                Message::Stop(done) => {
                    answers.push(done);
                    stop = true;
                }
            }
        }
        self.export(exporter, batch);
        for done in answers {
            let _ = done.send(());
        }
        stop
    }

    /// Exports `batch`, emptied: its spans as they leave the process
    /// (see [`super::encode`]).
    fn export(&self, exporter: &Exporter, batch: &mut Vec<Finished>) {
        if batch.is_empty() {
            return;
        }
        let mut body = Vec::new();
        exporter.encoder.encode(batch, &mut body);
        batch.clear();
        if let Err(error) = exporter.sender.send(body) {
            self.reporter.failed(&error);
        }
    }
}

/// What the export thread writes and sends spans with.
struct Exporter {
    encoder: Encoder,
    sender: Sender,
}

/// Sends export bodies to the collector over OTLP/HTTP, as the OTLP
/// exporter does: retrying a refused or unanswered export up to three
/// times, 100 ms apart and doubling (up to 1.6 s, or what a
/// `Retry-After` asks), within the export timeout; each body compressed
/// with gzip when the signal's settings ask for it.
pub(super) struct Sender {
    client: reqwest::blocking::Client,
    endpoint: String,
    headers: reqwest::header::HeaderMap,
    timeout: Duration,
    gzip: bool,
}

/// Retries after the first attempt.
const RETRIES: u32 = 3;
/// The first wait before a retry, and the longest.
const FIRST_WAIT: Duration = Duration::from_millis(100);
const LONGEST_WAIT: Duration = Duration::from_millis(1600);
/// The longest wait a `Retry-After` is followed for.
const LONGEST_THROTTLE: Duration = Duration::from_secs(30);

impl Sender {
    pub(super) fn new(signal: &Signal, client: reqwest::blocking::Client) -> Sender {
        let mut headers = reqwest::header::HeaderMap::new();
        for (name, value) in &signal.headers {
            // Settings checked every header when they were read.
            if let (Ok(name), Ok(value)) = (
                reqwest::header::HeaderName::try_from(name.as_str()),
                reqwest::header::HeaderValue::try_from(value.as_str()),
            ) {
                headers.insert(name, value);
            }
        }
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            reqwest::header::HeaderValue::from_static("application/x-protobuf"),
        );
        if signal.gzip {
            headers.insert(
                reqwest::header::CONTENT_ENCODING,
                reqwest::header::HeaderValue::from_static("gzip"),
            );
        }
        Sender {
            client,
            endpoint: signal.endpoint.clone(),
            headers,
            timeout: signal.timeout,
            gzip: signal.gzip,
        }
    }

    /// Sends `body`; what went wrong when the collector did not take it.
    pub(super) fn send(&self, body: Vec<u8>) -> Result<(), String> {
        let body = if self.gzip { gzip(&body) } else { body };
        // Shared by every try: a retry copies nothing.
        let body = bytes::Bytes::from(body);
        let started = Instant::now();
        let mut wait = FIRST_WAIT;
        let mut retries = 0;
        loop {
            let answer = self
                .client
                .post(&self.endpoint)
                .headers(self.headers.clone())
                // What is left of the export's time: retries included, an
                // export takes at most its timeout.
                .timeout(self.timeout.saturating_sub(started.elapsed()))
                .body(body.clone())
                .send();
            let (error, retry_after) = match answer {
                Ok(response) if response.status().is_success() => {
                    // Read to its end: the connection is used again.
                    let _ = response.bytes();
                    return Ok(());
                }
                Ok(response) => {
                    let status = response.status().as_u16();
                    let retry_after = response
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(Duration::from_secs);
                    let error =
                        format!("Operation failed: HTTP export failed with status code: {status}");
                    if !matches!(status, 429 | 502 | 503 | 504) {
                        return Err(error);
                    }
                    (error, retry_after.filter(|_| matches!(status, 429 | 503)))
                }
                Err(_) => (
                    "Operation failed: HTTP export failed: network error".to_owned(),
                    None,
                ),
            };
            if retries == RETRIES {
                return Err(error);
            }
            retries += 1;
            // A throttling collector may ask for a longer wait, not a
            // shorter one.
            let pause = retry_after.map_or(wait, |asked| wait.max(asked.min(LONGEST_THROTTLE)));
            if pause >= self.timeout.saturating_sub(started.elapsed()) {
                return Err(error);
            }
            std::thread::sleep(pause);
            wait = (wait * 2).min(LONGEST_WAIT);
        }
    }
}

/// `body` compressed with gzip (the OTLP/HTTP `Content-Encoding` the
/// specification names), at the default level.
fn gzip(body: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(body.len() / 4),
        flate2::Compression::default(),
    );
    // Writing into a `Vec` cannot fail.
    let _ = encoder.write_all(body);
    encoder.finish().unwrap_or_default()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// `attributes` with each key once, at its last value: an attribute set
    /// again replaces the earlier value, as the API says, though the SDK
    /// keeps both. (The encoder writes them so; this is what it is checked
    /// against.)
    pub(in crate::otel) fn once_each(attributes: &mut Vec<opentelemetry::KeyValue>) {
        let mut index = 0;
        while index < attributes.len() {
            let key = &attributes[index].key;
            if attributes[index + 1..]
                .iter()
                .any(|later| later.key == *key)
            {
                attributes.remove(index);
            } else {
                index += 1;
            }
        }
    }

    pub(in crate::otel) fn span() -> SpanData {
        use opentelemetry::trace::{SpanContext, SpanKind, Status};
        SpanData {
            span_context: SpanContext::empty_context(),
            parent_span_id: opentelemetry::trace::SpanId::INVALID,
            parent_span_is_remote: false,
            span_kind: SpanKind::Server,
            name: "f".into(),
            start_time: std::time::SystemTime::now(),
            end_time: std::time::SystemTime::now(),
            attributes: Vec::new(),
            dropped_attributes_count: 0,
            events: opentelemetry_sdk::trace::SpanEvents::default(),
            links: opentelemetry_sdk::trace::SpanLinks::default(),
            status: Status::Unset,
            instrumentation_scope: opentelemetry::InstrumentationScope::default(),
        }
    }

    #[test]
    fn an_attribute_set_again_is_exported_once_at_its_last_value() {
        use opentelemetry::KeyValue;
        let mut attributes = vec![
            KeyValue::new("error.type", "function"),
            KeyValue::new("http.response.status_code", 500_i64),
            KeyValue::new("error.type", "timeout"),
        ];
        once_each(&mut attributes);
        assert_eq!(
            attributes,
            [
                KeyValue::new("http.response.status_code", 500_i64),
                KeyValue::new("error.type", "timeout"),
            ]
        );
    }

    #[test]
    fn a_full_queue_drops_and_counts_never_waits() {
        let (queue, _messages) = mpsc::sync_channel(2);
        let reporter = Arc::new(Reporter::new("traces"));
        let processor = Queue {
            queue: queue.clone(),
            reporter: Arc::clone(&reporter),
            timeout: Duration::from_millis(1),
        };
        let handle = Handle {
            queue,
            reporter,
            timeout: Duration::from_millis(1),
        };
        for _ in 0..5 {
            processor.on_end(span());
        }
        assert_eq!(handle.dropped(), 3);
        handle.finished(Finished::Written(vec![1], vec![2]));
        assert_eq!(handle.dropped(), 4, "a written span alike");
    }

    #[test]
    fn failures_are_written_once_a_minute_with_their_count() {
        let reporter = Reporter::new("metrics");
        reporter.failed("connection refused");
        reporter.failed("connection refused");
        reporter.failed("connection refused");
        let last = reporter.last.lock().unwrap();
        assert!(last.0.is_some(), "the first failure is written");
        assert_eq!(last.1, 2, "the next two wait for the next record");
    }
}
