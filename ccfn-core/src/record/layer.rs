//! The layer every record goes through: [`ContractLayer`] holds the sinks
//! (each format's writer, the inspector, OpenTelemetry) and hands each of
//! them every record, typed, once.
//!
//! ccfn's own records do not travel as `tracing` events to it: `emit`
//! finds the layer in the current dispatcher (as `tracing-opentelemetry`'s
//! `OpenTelemetrySpanExt` finds its layer, through `downcast_ref`) and
//! hands it the record itself, with its fields as they are. The record's
//! `tracing` event is still emitted for any other layer a user installed;
//! this layer ignores it. A handler's own `tracing` events come to
//! [`Layer::on_event`], which makes them records of step `log`.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::io::Write as _;

use serde_json::Value;
use tracing::span::{Attributes, Id};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Level, Metadata, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::Context as LayerContext;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

use super::buffer::{self, Held, BUFFERED_TARGET};
use super::catalogue::{Record, Step};
use super::entry::{Entry, Identity, JsonHead};
use super::fields::EventVisitor;
use super::format::{is_reserved, utc_day, LogFormat};
use super::scope::{self, Invocation, LevelBits};
use super::value::{FieldValue, Fields};
use crate::secret::scrub;

/// Target of contract records.
pub(crate) const TARGET: &str = "ccfn";
/// Target of records written whatever the filter says.
pub(crate) const CRITICAL_TARGET: &str = "ccfn::critical";
/// Name of the span around each invocation.
pub(crate) const SPAN_NAME: &str = "ccfn.invocation";

/// The levels, most severe first.
const LEVELS: [Level; 5] = [
    Level::ERROR,
    Level::WARN,
    Level::INFO,
    Level::DEBUG,
    Level::TRACE,
];

/// Where `level` is in [`LEVELS`].
fn level_index(level: Level) -> usize {
    match level {
        Level::ERROR => 0,
        Level::WARN => 1,
        Level::INFO => 2,
        Level::DEBUG => 3,
        _ => 4,
    }
}

/// The largest line buffer a thread keeps for its next line.
const LINE_KEPT_BYTES: usize = 64 * 1024;

thread_local! {
    /// The buffers this thread formats its lines in, kept between lines.
    static LINES: RefCell<Lines> = RefCell::default();
    /// The last timestamp written on this thread, after a JSON line's
    /// opening (see [`JSON_OPENING`]), and its millisecond.
    static NOW: RefCell<(u64, String)> = const { RefCell::new((u64::MAX, String::new())) };
}

/// How a JSON line opens, before its time.
const JSON_OPENING: &str = "{\"timestamp\":\"";

/// Calls `f` with the current time in RFC 3339 (milliseconds, UTC),
/// formatted once per millisecond per thread, and in nanoseconds since
/// the Unix epoch: one reading of the clock.
pub(super) fn with_timestamp<R>(f: impl FnOnce(&str, u64) -> R) -> R {
    with_time(|time| f(time.text, time.unix_nanos))
}

/// The time of a record: see [`with_time`].
pub(super) struct Time<'a> {
    /// RFC 3339, to the millisecond, UTC.
    text: &'a str,
    /// How its JSON line opens: [`JSON_OPENING`] and `text`.
    json_opening: &'a str,
    unix_nanos: u64,
}

/// Calls `f` with the current time, its text formatted once per
/// millisecond per thread: one reading of the clock.
fn with_time<R>(f: impl FnOnce(Time<'_>) -> R) -> R {
    let nanos = unix_nanos();
    let millis = nanos / 1_000_000;
    let now = || std::time::UNIX_EPOCH + std::time::Duration::from_nanos(nanos);
    fn time(json_opening: &str, unix_nanos: u64) -> Time<'_> {
        Time {
            text: &json_opening[JSON_OPENING.len()..],
            json_opening,
            unix_nanos,
        }
    }
    NOW.with(|cache| match cache.try_borrow_mut() {
        Ok(mut cache) => {
            let (kept, text) = &mut *cache;
            if *kept / 1000 == millis / 1000 && *kept != millis {
                // The same second: only its milliseconds (`.mmmZ`) change.
                text.truncate(text.len() - "mmmZ".len());
                let millis = millis % 1000;
                for digit in [millis / 100, millis / 10 % 10, millis % 10] {
                    text.push(char::from(b'0' + digit as u8));
                }
                text.push('Z');
            } else if *kept != millis {
                text.clear();
                text.push_str(JSON_OPENING);
                let _ = write!(text, "{}", humantime::format_rfc3339_millis(now()));
            }
            *kept = millis;
            f(time(text, nanos))
        }
        // A record written while this thread writes another.
        Err(_) => f(time(
            &format!("{JSON_OPENING}{}", humantime::format_rfc3339_millis(now())),
            nanos,
        )),
    })
}

/// The time of day in nanoseconds since the Unix epoch (0 before it, the
/// largest `u64` past 2554), as `SystemTime::now` reads it: read once for
/// each record, without `Duration`'s checked subtraction and 128-bit
/// arithmetic.
fn unix_nanos() -> u64 {
    #[cfg(unix)]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid `timespec` to write; CLOCK_REALTIME is
        // the clock `SystemTime::now` reads, and reading it cannot fail.
        if unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut now) } == 0 {
            return match (u64::try_from(now.tv_sec), u64::try_from(now.tv_nsec)) {
                (Ok(secs), Ok(nanos)) => secs.saturating_mul(1_000_000_000).saturating_add(nanos),
                _ => 0,
            };
        }
    }
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
}

/// One record's lines, each written at most once whatever the number of
/// sinks that want it.
#[derive(Default)]
pub(crate) struct Lines {
    json: String,
    /// Where the record's JSON line was written, if it was.
    json_at: JsonAt,
    /// Whether the JSON line was written (here or in place) and the
    /// scrubber changed nothing in it from its message on.
    json_clean: bool,
    /// Whether a sink other than the one writing the JSON line in place
    /// reads it: then it is written here, once, and copied.
    json_shared: bool,
    other: String,
}

/// Where a record's JSON line was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum JsonAt {
    #[default]
    Nowhere,
    /// In [`Lines::json`], for every sink that reads it.
    Here,
    /// In place, in the log writer's batch.
    InPlace,
}

impl Lines {
    fn clear(&mut self) {
        self.json.clear();
        self.json_at = JsonAt::Nowhere;
        self.json_clean = false;
    }

    /// Whether the record's message and fields are known to hold nothing
    /// the scrubber would change: its JSON line was written, and the
    /// scrubber changed nothing in it from its message on. Every text of them is in that
    /// part of the line, JSON-escaped, and the scrubber looks for every
    /// secret's JSON-escaped forms, and for URLs, which escaping neither
    /// hides nor makes (a URL ends at a character JSON escapes). `false`
    /// when unknown: a sink then checks them itself.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    pub(crate) fn fields_clean(&self) -> bool {
        self.json_clean
    }

    /// `entry` as a JSON line, scrubbed, with its newline: written by the
    /// first sink that asks.
    pub(crate) fn json(&mut self, entry: &Entry<'_>) -> &str {
        if self.json_at != JsonAt::Here {
            debug_assert!(
                self.json_at != JsonAt::InPlace,
                "a sink reads JSON lines without saying so (`Sink::reads_json`): \
                 each line is then written twice"
            );
            self.json_clean = write_json_line(entry, &mut self.json);
            self.json_at = JsonAt::Here;
        }
        &self.json
    }

    /// Appends `entry`'s JSON line to `out`: written there, in place,
    /// when no other sink reads it, else copied from [`Lines::json`].
    fn json_into(&mut self, entry: &Entry<'_>, out: &mut String) {
        if self.json_shared || self.json_at == JsonAt::Here {
            out.push_str(self.json(entry));
        } else {
            self.json_clean = write_json_line(entry, out);
            self.json_at = JsonAt::InPlace;
        }
    }

    /// `entry` in the human `format`, scrubbed, with its newline.
    fn human(&mut self, format: LogFormat, entry: &Entry<'_>, dated: bool) -> &str {
        self.other.clear();
        format.write(entry, dated, &mut self.other);
        scrub(&mut self.other, entry.identity.secrets());
        self.other.push('\n');
        &self.other
    }

    fn shrink(&mut self) {
        for line in [&mut self.json, &mut self.other] {
            if line.capacity() > LINE_KEPT_BYTES {
                *line = String::new();
            }
        }
    }
}

/// Appends `entry` as a JSON line, scrubbed, with its newline, to
/// `out`; whether the scrubber changed nothing from its message on.
fn write_json_line(entry: &Entry<'_>, out: &mut String) -> bool {
    let message = super::format::json::write(entry, out);
    // What comes before the message is ccfn's own: the time, the level,
    // the step, and who wrote it (scrubbed once, when the invocation's
    // identity was first written).
    let changed = crate::secret::scrub_from(out, message, entry.identity.secrets());
    out.push('\n');
    !changed
}

/// What takes each record a [`ContractLayer`] lets through: a format's
/// writer, the inspector, OpenTelemetry.
pub(crate) trait Sink: Send + Sync + 'static {
    /// Takes one record; `lines` gives its lines, written once for all.
    fn take(&self, entry: &Entry<'_>, lines: &mut Lines);

    /// Whether it reads a record's JSON line ([`Lines::json`]).
    fn reads_json(&self) -> bool {
        false
    }
}

/// Writes each record as a JSON line straight into the process's log
/// writer's batch (see [`super::background::Background::write_line`]).
struct JsonToBackground(super::background::Background);

impl Sink for JsonToBackground {
    fn take(&self, entry: &Entry<'_>, lines: &mut Lines) {
        self.0.write_line(|out| lines.json_into(entry, out));
    }

    fn reads_json(&self) -> bool {
        true
    }
}

/// Writes each record in a format to a writer.
struct Writes<W> {
    format: LogFormat,
    writer: W,
    /// The UTC day of the last line written (`yyyymmdd`; 0 before the
    /// first): the brief format dates the first line of each day.
    day: std::sync::atomic::AtomicU32,
}

impl<W> Writes<W> {
    /// Whether a brief line of `step` logged at `timestamp` shows its
    /// date: it starts an invocation, or it is the first line written on
    /// its UTC day (the first line of all included).
    fn dated(&self, timestamp: &str, step: &str) -> bool {
        let day = utc_day(timestamp);
        let before = self.day.swap(day, std::sync::atomic::Ordering::Relaxed);
        step == "start" || before != day
    }
}

impl<W> Sink for Writes<W>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    fn take(&self, entry: &Entry<'_>, lines: &mut Lines) {
        let line = match self.format {
            LogFormat::Json => lines.json(entry),
            LogFormat::Pretty => {
                let dated = self.dated(entry.timestamp, entry.step);
                lines.human(LogFormat::Pretty, entry, dated)
            }
            LogFormat::PrettyFull => lines.human(LogFormat::PrettyFull, entry, false),
        };
        // A log line that cannot be written must not fail the function.
        let _ = self.writer.make_writer().write_all(line.as_bytes());
    }

    fn reads_json(&self) -> bool {
        self.format == LogFormat::Json
    }
}

/// The `tracing` layer that writes contract records in a [`LogFormat`]
/// (or several: [`ContractLayer::also`]), scrubbing every secret value
/// from every line.
///
/// [`crate::record::init_logging`] installs one for the process; the
/// testkit installs its own per test. A subscriber has one: ccfn hands
/// its records to the first it finds.
pub struct ContractLayer {
    sinks: Vec<Box<dyn Sink>>,
    /// How many of its sinks read a record's JSON line.
    json_readers: usize,
    filter: Targets,
    /// Whether `filter` lets through contract records at each level
    /// (`ERROR` to `TRACE`): asked for every record, read once.
    levels: [bool; 5],
    /// Whether no other layer is installed beside it: then the records'
    /// `tracing` events, which only other layers read, are not emitted.
    alone: bool,
}

impl fmt::Debug for ContractLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContractLayer")
            .field("sinks", &self.sinks.len())
            .field("filter", &self.filter)
            .finish_non_exhaustive()
    }
}

impl ContractLayer {
    /// A layer writing `format` to `writer`, every level of every target.
    pub fn new<W>(format: LogFormat, writer: W) -> Self
    where
        W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
    {
        Self::empty().also(format, writer)
    }

    /// A layer without sinks, every level of every target.
    fn empty() -> Self {
        ContractLayer {
            sinks: Vec::new(),
            json_readers: 0,
            filter: Targets::new().with_default(Level::TRACE),
            levels: [true; 5],
            alone: false,
        }
    }

    /// A layer writing `format` to the process's log writer: JSON lines
    /// written straight into its batches.
    pub(crate) fn to_background(format: LogFormat, writer: super::background::Background) -> Self {
        match format {
            LogFormat::Json => Self::empty().with_sink(Box::new(JsonToBackground(writer))),
            _ => Self::empty().also(format, writer),
        }
    }

    /// Writes every record in `format` to `writer` too; each record is
    /// formatted once per format, whatever the number of writers.
    ///
    /// ```
    /// use ccfn_core::record::{ContractLayer, LogFormat};
    ///
    /// let layer = ContractLayer::new(LogFormat::Json, std::io::sink)
    ///     .also(LogFormat::Pretty, std::io::stderr);
    /// # drop(layer);
    /// ```
    #[must_use]
    pub fn also<W>(self, format: LogFormat, writer: W) -> Self
    where
        W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
    {
        self.with_sink(Box::new(Writes {
            format,
            writer,
            day: std::sync::atomic::AtomicU32::new(0),
        }))
    }

    /// Keeps only what `filter` enables; critical records (the task
    /// creation result) are written whatever it says.
    #[must_use]
    pub fn with_filter(mut self, filter: Targets) -> Self {
        self.levels = LEVELS.map(|level| filter.would_enable(TARGET, &level));
        self.filter = filter;
        self
    }

    /// Hands every record to `sink` too.
    pub(crate) fn with_sink(mut self, sink: Box<dyn Sink>) -> Self {
        self.json_readers += usize::from(sink.reads_json());
        self.sinks.push(sink);
        self
    }

    /// Marks it as the subscriber's only layer (ccfn's own installation).
    pub(crate) fn alone(mut self) -> Self {
        self.alone = true;
        self
    }

    /// Whether it writes a contract record at `level`.
    pub(crate) fn enables(&self, level: Level) -> bool {
        self.levels[level_index(level)]
    }

    /// Whether it reads the identity of an invocation's span, for lines
    /// written outside the invocation's own polls: with its filter off
    /// for ccfn, there are none worth its cost (a critical line there
    /// goes without it).
    fn reads_invocation_spans(&self) -> bool {
        self.enables(Level::ERROR)
    }

    /// Whether events or spans of `metadata` are always this layer's:
    /// critical records, held lines written out, the invocation span, and
    /// what the filter enables.
    fn always(&self, metadata: &Metadata<'_>) -> bool {
        matches!(metadata.target(), CRITICAL_TARGET | BUFFERED_TARGET)
            || (metadata.is_span() && metadata.name() == SPAN_NAME)
            || self
                .filter
                .would_enable(metadata.target(), metadata.level())
    }

    /// Hands `entry` to every sink.
    fn write(&self, entry: &Entry<'_>) {
        LINES.with(|lines| match lines.try_borrow_mut() {
            Ok(mut lines) => {
                lines.clear();
                lines.json_shared = self.json_readers > 1;
                for sink in &self.sinks {
                    sink.take(entry, &mut lines);
                }
                lines.shrink();
            }
            // A record written while this thread writes another.
            Err(_) => {
                let mut lines = Lines {
                    json_shared: self.json_readers > 1,
                    ..Lines::default()
                };
                for sink in &self.sinks {
                    sink.take(entry, &mut lines);
                }
            }
        });
    }

    /// Writes one of ccfn's records, at `level` (whatever its filter
    /// says when `critical`), by `identity`; whether other layers may
    /// want its `tracing` event.
    fn write_record<R: Record>(
        &self,
        identity: Identity<'_>,
        level: Level,
        critical: bool,
        message: super::entry::Message<'_>,
        record: &R,
    ) -> bool {
        if critical || self.enables(level) {
            let level = if critical { Level::INFO } else { level };
            let step: &'static Step = R::STEP;
            with_time(|time| {
                self.write(&Entry {
                    timestamp: time.text,
                    unix_nanos: time.unix_nanos,
                    level: level.as_str(),
                    identity,
                    step: step.name(),
                    message: message.text,
                    fields: record,
                    own_call_sid: step.own_call_sid(),
                    plain_header: true,
                    json: JsonHead {
                        opening: time.json_opening,
                        step: step.json_member(),
                        plain_message: message.plain,
                    },
                });
            });
        }
        !self.alone
    }

    /// Writes a handler's own line, from its fields, logged at
    /// `timestamp` (`unix_nanos`, when known).
    fn write_handler_line(
        &self,
        identity: Identity<'_>,
        level: &Level,
        target: &str,
        event: &EventVisitor,
        (timestamp, unix_nanos): (&str, u64),
    ) {
        let fields = HandlerFields::new(target, event);
        self.write(&Entry {
            timestamp,
            unix_nanos,
            level: level.as_str(),
            identity,
            step: "log",
            message: &event.message,
            fields: &fields,
            own_call_sid: false,
            plain_header: true,
            json: JsonHead::default(),
        });
    }
}

/// A handler's fields as its record's: its target, its own `step` (as
/// `user_step`), then each field, a sensitive name's value redacted and a
/// name every record has renamed `fields.<name>`.
struct HandlerFields<'a> {
    target: &'a str,
    user_step: Option<&'a str>,
    others: &'a [(String, Value)],
}

impl<'a> HandlerFields<'a> {
    fn new(target: &'a str, event: &'a EventVisitor) -> Self {
        HandlerFields {
            target,
            user_step: event.step.as_deref(),
            others: &event.others,
        }
    }
}

impl Fields for HandlerFields<'_> {
    fn each(&self, f: &mut dyn FnMut(&str, &dyn FieldValue)) {
        f("target", &self.target);
        if let Some(user_step) = self.user_step {
            f("user_step", &user_step);
        }
        for (key, value) in self.others {
            let value: &dyn FieldValue = if crate::secret::is_sensitive_name(key) {
                &crate::secret::REDACTED
            } else {
                value
            };
            let key: Cow<'_, str> = if is_reserved(key) {
                Cow::Owned(format!("fields.{key}"))
            } else {
                Cow::Borrowed(key)
            };
            f(&key, value);
        }
    }
}

/// Calls `f` with the identity of the invocation this thread polls, or
/// else of the invocation span `dispatch` is in, if any.
fn with_identity<R>(dispatch: &Dispatch, f: impl FnOnce(Identity<'_>) -> R) -> R {
    if scope::in_invocation() {
        return scope::with_current(|invocation| f(Identity::of(Some(invocation))));
    }
    let registry = dispatch.downcast_ref::<tracing_subscriber::Registry>();
    let current = dispatch.current_span();
    let span = registry.zip(current.id()).and_then(|(registry, id)| {
        registry
            .span(id)?
            .scope()
            .find(|span| span.extensions().get::<SpanInvocation>().is_some())
    });
    let extensions = span.as_ref().map(|span| span.extensions());
    f(Identity::of(
        extensions
            .as_ref()
            .and_then(|e| e.get::<SpanInvocation>())
            .map(|shared| &*shared.0),
    ))
}

/// Hands `record` to the [`ContractLayer`] of the current dispatcher, at
/// `level` (whatever its filter says when `critical`), then emits its
/// `tracing` event for the other layers, if there may be any.
pub(crate) fn dispatch<R: Record>(
    level: Level,
    critical: bool,
    message: super::entry::Message<'_>,
    record: &R,
) {
    // Inside an invocation, the layer is the one it found first.
    let within = scope::in_invocation().then(|| {
        scope::with_current(|invocation| {
            let subscriber = invocation.subscriber(|| {
                tracing::dispatcher::get_default(|dispatch| {
                    dispatch
                        .downcast_ref::<ContractLayer>()
                        .map(|_| dispatch.clone())
                })
            })?;
            let layer = subscriber.downcast_ref::<ContractLayer>()?;
            let identity = Identity::of(Some(invocation));
            Some(layer.write_record(identity, level, critical, message, record))
        })
    });
    let others = within.flatten().unwrap_or_else(|| {
        tracing::dispatcher::get_default(|dispatch| {
            let Some(layer) = dispatch.downcast_ref::<ContractLayer>() else {
                return true;
            };
            with_identity(dispatch, |identity| {
                layer.write_record(identity, level, critical, message, record)
            })
        })
    });
    // Emitted outside `get_default`: inside it, `tracing` sends events to
    // no subscriber.
    if others {
        record.event(level, critical, message.text);
    }
}

/// What an invocation needs to know of the subscriber in place, asked
/// once as it starts: whether its span would be read (see
/// [`InvocationStart::span_read`]) and which levels of records are
/// written (as [`LevelBits`], for [`Invocation::with_level_bits`]).
pub(crate) struct InvocationStart {
    /// Whether an invocation's span would be read: by the
    /// [`ContractLayer`] of the subscriber in place (see its
    /// `on_new_span`), or by other layers beside it or a subscriber
    /// without one. When not, an invocation is run without one.
    pub(crate) span_read: bool,
    pub(crate) level_bits: u8,
}

impl InvocationStart {
    /// Asks the subscriber in place.
    pub(crate) fn ask() -> InvocationStart {
        tracing::dispatcher::get_default(|dispatch| {
            let layer = dispatch.downcast_ref::<ContractLayer>();
            InvocationStart {
                span_read: layer.is_none_or(|layer| !layer.alone || layer.reads_invocation_spans()),
                level_bits: LevelBits::of(layer.map(|layer| layer.levels)),
            }
        })
    }
}

/// Whether a contract record at `level` would be written by the
/// subscriber in place: when not, its fields need not be built.
pub(crate) fn enabled(level: Level) -> bool {
    let levels = || {
        tracing::dispatcher::get_default(|dispatch| {
            LevelBits::of(
                dispatch
                    .downcast_ref::<ContractLayer>()
                    .map(|layer| layer.levels),
            )
        })
    };
    // An invocation runs under one subscriber: asked once, for all its
    // records.
    let bits = if scope::in_invocation() {
        scope::with_current(|invocation| invocation.level_bits(levels))
    } else {
        levels()
    };
    if bits & LevelBits::NO_LAYER == 0 {
        return bits & (1 << level_index(level)) != 0;
    }
    match level {
        Level::ERROR => tracing::enabled!(target: "ccfn", Level::ERROR),
        Level::WARN => tracing::enabled!(target: "ccfn", Level::WARN),
        Level::INFO => tracing::enabled!(target: "ccfn", Level::INFO),
        Level::DEBUG => tracing::enabled!(target: "ccfn", Level::DEBUG),
        _ => tracing::enabled!(target: "ccfn", Level::TRACE),
    }
}

/// Writes a held `debug` line again, as it was when it was logged, then
/// emits an event of [`BUFFERED_TARGET`] with its message for the other
/// layers, if there may be any.
pub(crate) fn dispatch_held(held: &Held) {
    let others = tracing::dispatcher::get_default(|dispatch| {
        let Some(layer) = dispatch.downcast_ref::<ContractLayer>() else {
            return true;
        };
        with_identity(dispatch, |identity| {
            layer.write_handler_line(
                identity,
                &Level::DEBUG,
                &held.target,
                &held.event,
                (&held.timestamp, 0),
            );
        });
        !layer.alone
    });
    if others {
        tracing::event!(target: "ccfn::buffered", Level::DEBUG, "{}", held.event.message);
    }
}

/// Whether an event of `metadata` is one of ccfn's records (handed to the
/// layer directly) or a held line written again.
fn is_ccfn_own(metadata: &Metadata<'_>) -> bool {
    match metadata.target() {
        BUFFERED_TARGET => true,
        TARGET | CRITICAL_TARGET => metadata.fields().field("step").is_some(),
        _ => false,
    }
}

/// The invocation an invocation span stands for, shared with its polls:
/// what lines written in the span outside them are attributed to.
struct SpanInvocation(std::sync::Arc<Invocation>);

impl<S> Layer<S> for ContractLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if self.always(metadata) {
            Interest::always()
        } else if buffer::may_hold(metadata) {
            // Held back only while an invocation that holds it is polled.
            Interest::sometimes()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>, _ctx: LayerContext<'_, S>) -> bool {
        self.always(metadata) || scope::holds_now(metadata)
    }

    fn event_enabled(&self, event: &Event<'_>, _ctx: LayerContext<'_, S>) -> bool {
        // A line the filter leaves out that the invocation holds back is
        // held once, here, and goes to no layer now.
        let meta = event.metadata();
        if *meta.level() != Level::DEBUG || self.filter.would_enable(meta.target(), meta.level()) {
            return true;
        }
        if !scope::holds_now(meta) {
            return true;
        }
        // Its fields are read before the time is: a value's `Debug` may
        // log, and the time's buffer must not be borrowed then.
        let mut visitor = EventVisitor::default();
        event.record(&mut visitor);
        with_timestamp(|timestamp, _| scope::hold(meta.target(), timestamp, visitor));
        false
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: LayerContext<'_, S>) {
        // The span stays enabled for other layers, but its identity is
        // only read when this layer reads it.
        // ccfn makes an invocation's span within the invocation (see
        // `scope::within`): the span shares it, secrets included, rather
        // than copy its fields' text.
        if attrs.metadata().name() != SPAN_NAME
            || !self.reads_invocation_spans()
            || !scope::in_invocation()
        {
            return;
        }
        if let Some(span) = ctx.span(id) {
            let mut extensions = span.extensions_mut();
            if extensions.get_mut::<SpanInvocation>().is_none() {
                scope::with_current_shared(|invocation| {
                    extensions.insert(SpanInvocation(std::sync::Arc::clone(invocation)));
                });
            }
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: LayerContext<'_, S>) {
        let meta = event.metadata();
        if is_ccfn_own(meta) {
            return;
        }
        // Its fields are read before the time is: a value's `Debug` may
        // log.
        let mut visitor = EventVisitor::default();
        event.record(&mut visitor);
        let write = |identity: Identity<'_>| {
            with_timestamp(|timestamp, unix_nanos| {
                self.write_handler_line(
                    identity,
                    meta.level(),
                    meta.target(),
                    &visitor,
                    (timestamp, unix_nanos),
                );
            });
        };
        if scope::in_invocation() {
            scope::with_current(|invocation| write(Identity::of(Some(invocation))));
        } else {
            let span = ctx.event_scope(event).and_then(|mut scope| {
                scope.find(|span| span.extensions().get::<SpanInvocation>().is_some())
            });
            let extensions = span.as_ref().map(|span| span.extensions());
            write(Identity::of(
                extensions
                    .as_ref()
                    .and_then(|e| e.get::<SpanInvocation>())
                    .map(|shared| &*shared.0),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clock read for each record is `SystemTime::now`'s, and a
    /// record's text time is its nanoseconds', to the millisecond.
    #[test]
    fn a_record_time_is_the_system_clock_in_both_forms() {
        let since_epoch = || {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        };
        // Many milliseconds of one second, and most likely the next
        // second: only the milliseconds of a second's text are written
        // again.
        let mut seen = std::collections::BTreeSet::new();
        for at in 0..800 {
            if at % 2 == 0 {
                std::thread::sleep(std::time::Duration::from_micros(700));
            }
            let before = since_epoch();
            let (text, nanos) = with_timestamp(|text, nanos| (text.to_owned(), nanos));
            seen.insert(nanos / 1_000_000);
            let after = since_epoch();
            // Within a second of the readings around it (the clock may be
            // stepped meanwhile).
            let second = 1_000_000_000;
            assert!(before < u128::from(nanos) + second && u128::from(nanos) < after + second);
            let at = std::time::UNIX_EPOCH + std::time::Duration::from_nanos(nanos);
            assert_eq!(text, humantime::format_rfc3339_millis(at).to_string());
        }
        assert!(seen.len() > 100, "{} milliseconds", seen.len());
    }

    #[test]
    fn brief_dates_a_start_line_and_the_first_line_of_each_utc_day() {
        let layer = Writes {
            format: LogFormat::Pretty,
            writer: std::io::sink,
            day: std::sync::atomic::AtomicU32::new(0),
        };
        assert!(
            layer.dated("2026-11-26T23:59:58.000Z", "runtime"),
            "the first line"
        );
        assert!(!layer.dated("2026-11-26T23:59:59.000Z", "log"));
        assert!(layer.dated("2026-11-26T23:59:59.500Z", "start"));
        assert!(!layer.dated("2026-11-26T23:59:59.999Z", "end"));
        assert!(
            layer.dated("2026-11-27T00:00:00.000Z", "metrics"),
            "a new day"
        );
        assert!(!layer.dated("2026-11-27T00:00:00.001Z", "end"));
        assert_eq!(utc_day("2026-11-27T00:00:00.001Z"), 20_261_127);
        assert_eq!(utc_day("[timestamp]"), 0);
    }

    /// The records of an invocation go to the subscriber its first record
    /// found, as the levels it writes are those of that one.
    #[test]
    fn an_invocation_writes_to_the_subscriber_it_found_first() {
        use tracing_subscriber::layer::SubscriberExt as _;
        let lines = |read: &std::sync::Arc<ReadsJson>| read.0.lock().unwrap().len();
        let subscriber = |read: &std::sync::Arc<ReadsJson>| {
            struct Shared(std::sync::Arc<ReadsJson>);
            impl Sink for Shared {
                fn take(&self, entry: &Entry<'_>, lines: &mut Lines) {
                    self.0.take(entry, lines);
                }
            }
            tracing_subscriber::registry().with(
                ContractLayer::new(LogFormat::Json, std::io::sink)
                    .with_sink(Box::new(Shared(std::sync::Arc::clone(read)))),
            )
        };
        let (first, second) = (
            std::sync::Arc::new(ReadsJson(std::sync::Mutex::default())),
            std::sync::Arc::new(ReadsJson(std::sync::Mutex::default())),
        );
        let record = super::super::catalogue::Processing { mode: "initial" };
        let invocation = std::sync::Arc::new(Invocation::new("f", "abc", None, Vec::new()));
        scope::within(&invocation, || {
            tracing::subscriber::with_default(subscriber(&first), || {
                super::super::emit::emit("first", &record);
            });
            tracing::subscriber::with_default(subscriber(&second), || {
                super::super::emit::emit("second", &record);
            });
        });
        assert_eq!((lines(&first), lines(&second)), (2, 0));
        // Outside an invocation, each record goes to the subscriber in place.
        tracing::subscriber::with_default(subscriber(&second), || {
            super::super::emit::emit("third", &record);
        });
        assert_eq!((lines(&first), lines(&second)), (2, 1));
    }

    /// A sink that reads JSON lines without saying so would have each
    /// line written twice (once in place, once for it): caught in tests.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "reads JSON lines without saying so")]
    fn a_sink_reading_json_lines_says_so() {
        use super::super::background::{batched, Background, QUEUE_BYTES};
        use tracing_subscriber::layer::SubscriberExt as _;
        struct Undeclared;
        impl Sink for Undeclared {
            fn take(&self, entry: &Entry<'_>, lines: &mut Lines) {
                lines.json(entry);
            }
        }
        let writer = Background::start(std::io::sink(), 16, QUEUE_BYTES).unwrap();
        let layer =
            ContractLayer::to_background(LogFormat::Json, writer).with_sink(Box::new(Undeclared));
        tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
            batched(|| {
                let record = super::super::catalogue::Processing { mode: "initial" };
                super::super::emit::emit("m", &record);
            });
        });
    }

    /// Reads each record's JSON line, as the inspector does.
    struct ReadsJson(std::sync::Mutex<Vec<String>>);

    impl Sink for ReadsJson {
        fn take(&self, entry: &Entry<'_>, lines: &mut Lines) {
            let line = lines.json(entry).to_owned();
            self.0.lock().unwrap().push(line);
        }

        fn reads_json(&self) -> bool {
            true
        }
    }

    /// A JSON line written straight into the log writer's batch is the
    /// line written and then copied, byte for byte: alone or beside a
    /// sink that reads it too, in an invocation's poll or outside, a
    /// secret scrubbed alike.
    #[test]
    fn a_json_line_written_in_place_is_the_line_copied() {
        use super::super::background::tests::Sink as Out;
        use super::super::background::{batched, Background, QUEUE_BYTES};
        use tracing_subscriber::layer::SubscriberExt as _;

        let _canary = crate::Secret::new("canary-in-place-5e2d7a");
        let emit_all = || {
            let record = super::super::catalogue::Processing {
                mode: "said canary-in-place-5e2d7a",
            };
            super::super::emit::emit("outside a poll", &record);
            batched(|| {
                for n in 0..3 {
                    super::super::emit::emit(&format!("in a poll {n} \"quoted\""), &record);
                }
                super::super::emit::emit("at https://u:canary-in-place-5e2d7a@x.example/", &record);
            });
        };
        let lines = |layer: &dyn Fn(Background) -> ContractLayer| {
            let out = Out::default();
            let writer = Background::start(out.clone(), 16, QUEUE_BYTES).unwrap();
            let subscriber = tracing_subscriber::registry().with(layer(writer.clone()));
            tracing::subscriber::with_default(subscriber, emit_all);
            writer.flush(std::time::Duration::from_secs(5));
            let written = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
            // The same lines but for their times.
            written
                .lines()
                .map(|line| {
                    let mut line: serde_json::Map<String, Value> =
                        serde_json::from_str(line).unwrap();
                    assert!(line.remove("timestamp").is_some());
                    line
                })
                .collect::<Vec<_>>()
        };
        let copied = lines(&|writer| ContractLayer::new(LogFormat::Json, writer));
        assert_eq!(copied.len(), 5);
        assert!(!format!("{copied:?}").contains("canary-in-place"));
        let read = std::sync::Arc::new(ReadsJson(std::sync::Mutex::default()));
        for beside in [false, true] {
            let in_place = lines(&|writer| {
                let layer = ContractLayer::to_background(LogFormat::Json, writer);
                if beside {
                    struct Shared(std::sync::Arc<ReadsJson>);
                    impl Sink for Shared {
                        fn take(&self, entry: &Entry<'_>, lines: &mut Lines) {
                            self.0.take(entry, lines);
                        }
                        fn reads_json(&self) -> bool {
                            true
                        }
                    }
                    layer.with_sink(Box::new(Shared(std::sync::Arc::clone(&read))))
                } else {
                    layer
                }
            });
            assert_eq!(in_place, copied, "beside another reader: {beside}");
        }
        let read = read.0.lock().unwrap();
        assert_eq!(read.len(), 5);
        assert!(read.iter().all(|line| !line.contains("canary-in-place")));
    }

    #[test]
    fn a_json_line_is_scrubbed_from_its_message_on_and_its_identity_once() {
        let canary = "canary-call-sid-4f1e9a";
        let secrets = crate::secret::invocation_secrets([canary, "canary-message-77d0c3"]);
        let invocation = Invocation::new("f", "abc", Some(format!("CA{canary}")), secrets);
        let fields = super::super::value::Members(std::iter::empty());
        let entry = Entry::log(
            "2026-11-26T10:00:00.000Z",
            Identity::of(Some(&invocation)),
            "said canary-message-77d0c3",
            &fields,
            true,
        );
        for _ in 0..2 {
            let mut lines = Lines::default();
            let line = lines.json(&entry);
            assert_eq!(
                line,
                "{\"timestamp\":\"2026-11-26T10:00:00.000Z\",\"level\":\"INFO\",\"function\":\"f\",\"invocation_id\":\"abc\",\"call_sid\":\"CA[REDACTED]\",\"step\":\"log\",\"message\":\"said [REDACTED]\"}\n"
            );
        }
    }

    #[test]
    fn a_record_is_known_clean_only_when_its_json_line_changed_nothing() {
        let invocation = Invocation::new(
            "f",
            "abc",
            None,
            crate::secret::invocation_secrets(["canary-own-0d93b1"]),
        );
        let clean = |message: &str, fields: serde_json::Value| {
            let fields = super::super::value::members(&fields);
            let entry = Entry::log(
                "2026-11-26T10:00:00.000Z",
                Identity::of(Some(&invocation)),
                message,
                &fields,
                true,
            );
            let mut lines = Lines::default();
            assert!(!lines.fields_clean(), "unknown before the line");
            lines.json(&entry);
            lines.fields_clean()
        };
        assert!(clean("plain", serde_json::json!({"n": 1})));
        assert!(
            clean("at https://x.example/a?b=1", serde_json::json!({})),
            "a URL with nothing to hide changes nothing"
        );
        assert!(!clean("at https://u:p@x.example/", serde_json::json!({})));
        assert!(!clean("m", serde_json::json!({"k": "canary-own-0d93b1"})));
        assert!(!clean(
            "m",
            serde_json::json!({"o": {"quoted": "say \"canary-own-0d93b1\""}})
        ));
        let secret = crate::secret::Secret::new("canary-registered-5b7e20");
        assert!(!clean("m", serde_json::json!({"k": secret.expose()})));
        drop(secret);
    }

    #[test]
    fn the_filter_s_levels_for_contract_records_are_read_once() {
        let layer = ContractLayer::new(LogFormat::Json, std::io::sink);
        assert!(LEVELS.iter().all(|level| layer.enables(*level)));
        let layer = layer.with_filter(crate::record::parse_filter("info,ccfn=warn").unwrap());
        let enabled: Vec<bool> = LEVELS.iter().map(|level| layer.enables(*level)).collect();
        assert_eq!(enabled, [true, true, false, false, false]);
        let layer = ContractLayer::new(LogFormat::Json, std::io::sink)
            .with_filter(crate::record::parse_filter("off").unwrap());
        assert!(LEVELS.iter().all(|level| !layer.enables(*level)));
    }
}
