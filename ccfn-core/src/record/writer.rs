//! Contract records: how they are emitted as `tracing` events, formatted
//! (human or JSON lines), scrubbed of secrets and written.
//!
//! Every record is a `tracing` event with a stable `step` field. Inside an
//! invocation, the `ccfn.invocation` span gives each record its
//! `function`, `invocation_id` and `call_sid`; the layer adds `timestamp`
//! and `level`. Events that handlers log with `tracing` themselves go
//! through the same layer as step `log`.

use std::fmt::{self, Write as _};
use std::io::Write as _;
use std::str::FromStr;

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::Context as LayerContext;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

use super::buffer::{self, BUFFERED_TARGET};
use super::emit::{self, CRITICAL_TARGET, SPAN_NAME, TARGET};
use super::fields::{EventVisitor, Written};
use super::scope::{self, Invocation, JsonIdentity, OnLambda};
use crate::config::{Source, CCFN_LOG, CCFN_LOG_DETAIL, CCFN_LOG_FORMAT};
use crate::secret::scrub;
use crate::text::{push_clean, push_one_line};

/// No values to scrub beyond the registered secrets.
const NONE: &[Box<str>] = &[];

/// The largest line buffer a thread keeps for its next line.
const LINE_KEPT_BYTES: usize = 64 * 1024;

thread_local! {
    /// The buffer this thread formats its lines in, kept between lines.
    static LINE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    /// The last timestamp written on this thread, and its millisecond.
    static NOW: std::cell::RefCell<(u128, String)> = const {
        std::cell::RefCell::new((u128::MAX, String::new()))
    };
}

/// Calls `f` with the current time in RFC 3339 (milliseconds, UTC),
/// formatted once per millisecond per thread.
pub(super) fn with_timestamp<R>(f: impl FnOnce(&str) -> R) -> R {
    let now = std::time::SystemTime::now();
    let millis = now
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    NOW.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.0 != millis {
            cache.1.clear();
            let _ = write!(cache.1, "{}", humantime::format_rfc3339_millis(now));
            cache.0 = millis;
        }
        f(&cache.1)
    })
}

/// The output formats of the same records: the human format, brief or
/// with every field, and JSON lines.
///
/// `CCFN_LOG_FORMAT` chooses between the human format (`pretty`) and
/// JSON lines (`json`); for the human format, `CCFN_LOG_DETAIL` chooses
/// between [`LogFormat::Pretty`] (`brief`, the default) and
/// [`LogFormat::PrettyFull`] (`full`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// For people at a terminal: one line per record, with the time of
    /// day (the whole RFC 3339 timestamp on a `start` line and on the
    /// first line of each UTC day), the level, the function, the
    /// invocation id, the step, the message, then the step's headline
    /// fields as `name=value` (see [`crate::record::Step::headline`]).
    #[default]
    Pretty,
    /// For people at a terminal, every field: the header line (with the
    /// whole timestamp), then each field on its own line, objects as
    /// indented JSON.
    PrettyFull,
    /// For machines: one JSON object per line; nested values stay objects,
    /// so `jq '.event.CallSid'` works.
    Json,
}

impl FromStr for LogFormat {
    type Err = crate::error::Error;

    /// The format `CCFN_LOG_FORMAT` names: `pretty` (brief) or `json`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "pretty" => Ok(LogFormat::Pretty),
            "json" => Ok(LogFormat::Json),
            other => Err(crate::error::Error::new(
                crate::error::ErrorKind::Configuration,
                format!("unknown log format `{other}`: expected `pretty` or `json`"),
            )),
        }
    }
}

impl LogFormat {
    /// Renders one record, as read back from a JSON line (without the
    /// final newline). Alone, a record shows its date in the brief format
    /// only if it is a `start` record.
    #[must_use]
    pub fn render(self, record: &Map<String, Value>) -> String {
        let text = |key: &str| record.get(key).and_then(Value::as_str);
        let header = Header {
            timestamp: text("timestamp").unwrap_or(""),
            level: text("level").unwrap_or(""),
            function: text("function"),
            invocation_id: text("invocation_id"),
            call_sid: None,
            lambda: None,
            invocation: None,
            step: text("step").unwrap_or(""),
            message: text("message").unwrap_or(""),
            // One record alone: its day is shown when it starts an
            // invocation.
            dated: text("step") == Some("start"),
        };
        let fields = record
            .iter()
            .filter(|(key, _)| !HEADER_KEYS.contains(&key.as_str()))
            .map(|(key, value)| (key.as_str(), value));
        let mut out = String::new();
        self.write(&header, Body::Values(fields), &mut out, NONE);
        out
    }

    /// Writes one record into `out` (without the final newline); `also`
    /// are the invocation's own values to scrub (the registered secrets are
    /// scrubbed from the whole line afterwards).
    fn write<'a, I>(
        self,
        header: &Header<'_>,
        body: Body<'_, I>,
        out: &mut String,
        also: &[Box<str>],
    ) where
        I: Iterator<Item = (&'a str, &'a Value)> + Clone,
    {
        match self {
            LogFormat::Json => write_json(header, body, out),
            LogFormat::Pretty => write_brief(header, body, out, also),
            LogFormat::PrettyFull => write_pretty(header, body, out, also),
        }
    }
}

/// What every record starts with.
/// The fields of a line: a contract record's, written once when it was
/// emitted, or values (a handler's own line, a record read back).
#[derive(Clone)]
enum Body<'w, I> {
    Written(&'w Written),
    Values(I),
}

impl<'a, I: Iterator<Item = (&'a str, &'a Value)> + Clone> Body<'_, I> {
    fn has(&self, name: &str) -> bool {
        match self {
            Body::Written(written) => written.has(name),
            Body::Values(values) => values.clone().any(|(key, _)| key == name),
        }
    }
}

struct Header<'a> {
    timestamp: &'a str,
    level: &'a str,
    function: Option<&'a str>,
    invocation_id: Option<&'a str>,
    call_sid: Option<&'a str>,
    /// The Lambda invocation served, on Lambda.
    lambda: Option<&'a OnLambda>,
    /// The invocation the four above come from, if any: it keeps them
    /// written as JSON.
    invocation: Option<&'a Invocation>,
    step: &'a str,
    message: &'a str,
    /// Whether the brief human format shows the whole timestamp (the
    /// date too), not only the time of day.
    dated: bool,
}

/// The fields a record has when its invocation runs on AWS Lambda.
const LAMBDA_KEYS: [&str; 2] = ["function_request_id", "cold_start"];

/// Whether a handler's own field named `key` is renamed (to
/// `fields.<key>`): a field every record has, or one ccfn adds to a
/// handler's lines.
fn is_reserved(key: &str) -> bool {
    super::catalogue::COMMON_FIELDS.contains(&key) || key == "target" || key == "user_step"
}

const HEADER_KEYS: [&str; 6] = [
    "timestamp",
    "level",
    "function",
    "invocation_id",
    "step",
    "message",
];

fn write_json<'a, I>(header: &Header<'_>, body: Body<'_, I>, out: &mut String)
where
    I: Iterator<Item = (&'a str, &'a Value)> + Clone,
{
    use crate::text::json::{push_str, push_value};
    /// `,"name":`; names are almost always plain (a step's field names,
    /// a handler's identifiers), and then need no escaping.
    fn name(out: &mut String, name: &str) {
        if name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        {
            out.push_str(",\"");
            out.push_str(name);
            out.push_str("\":");
        } else {
            out.push(',');
            push_str(out, name);
            out.push(':');
        }
    }
    out.push_str("{\"timestamp\":");
    push_str(out, header.timestamp);
    out.push_str(",\"level\":");
    push_str(out, header.level);
    let rendered;
    let identity = match header.invocation {
        Some(invocation) => invocation.json(),
        None => {
            rendered = JsonIdentity::new(
                header.function,
                header.invocation_id,
                header.call_sid,
                header.lambda,
            );
            &rendered
        }
    };
    out.push_str(&identity.function_and_id);
    // A record's own `call_sid` field takes its place.
    if !body.has("call_sid") {
        out.push_str(&identity.call_sid);
    }
    out.push_str(&identity.lambda);
    out.push_str(",\"step\":");
    push_str(out, header.step);
    out.push_str(",\"message\":");
    push_str(out, header.message);
    match body {
        // The catalogue's field names shadow none of the header's.
        Body::Written(written) => out.push_str(written.members()),
        Body::Values(fields) => {
            for (key, value) in fields {
                if HEADER_KEYS.contains(&key) {
                    // A field may not shadow what every record has.
                    name(out, &format!("fields.{key}"));
                } else {
                    name(out, key);
                }
                push_value(out, value);
            }
        }
    }
    out.push('}');
}

fn write_pretty<'a, I>(header: &Header<'_>, body: Body<'_, I>, out: &mut String, also: &[Box<str>])
where
    I: Iterator<Item = (&'a str, &'a Value)> + Clone,
{
    let _ = write!(
        out,
        "{} {:<5} {} {} [{}] ",
        header.timestamp,
        header.level,
        header.function.unwrap_or(""),
        header.invocation_id.unwrap_or(""),
        header.step,
    );
    push_escaped(out, header.message, also, push_clean);
    let call_sid = header
        .call_sid
        .filter(|_| !body.has("call_sid"))
        .map(Value::from);
    if let Some(call_sid) = &call_sid {
        pretty_field(out, "call_sid", call_sid, also);
    }
    if let Some(lambda) = header.lambda {
        pretty_field(
            out,
            LAMBDA_KEYS[0],
            &Value::from(lambda.request_id.as_str()),
            also,
        );
        pretty_field(out, LAMBDA_KEYS[1], &Value::from(lambda.cold_start), also);
    }
    match body {
        Body::Written(written) => {
            // The human format reads the values back; it is not the fast
            // path.
            for (key, json) in written.iter() {
                let value = serde_json::from_str(json).unwrap_or(Value::Null);
                pretty_field(out, key, &value, also);
            }
        }
        Body::Values(fields) => {
            for (key, value) in fields {
                pretty_field(out, key, value, also);
            }
        }
    }
}

/// One line: the time of day (the whole timestamp when the header says
/// so), level, function, invocation id, step and message, then the fields
/// the step marks as headline (every field of an open step's record, or
/// of a step the catalogue does not know); on Lambda, a `start` line also
/// shows the request id and the cold start.
fn write_brief<'a, I>(header: &Header<'_>, body: Body<'_, I>, out: &mut String, also: &[Box<str>])
where
    I: Iterator<Item = (&'a str, &'a Value)> + Clone,
{
    // `2026-11-21T20:35:01.123Z` becomes `20:35:01.123Z`, unless dated.
    let time = if header.dated {
        header.timestamp
    } else {
        header
            .timestamp
            .split_once('T')
            .map_or(header.timestamp, |(_, time)| time)
    };
    let _ = write!(
        out,
        "{time} {:<5} {} {} [{}]",
        header.level,
        header.function.unwrap_or(""),
        header.invocation_id.unwrap_or(""),
        header.step,
    );
    if !header.message.is_empty() {
        out.push(' ');
        push_brief_text(out, header.message, also);
    }
    let starts = header.step == "start";
    if let Some(lambda) = header.lambda.filter(|_| starts) {
        brief_field(
            out,
            LAMBDA_KEYS[0],
            &Value::from(lambda.request_id.as_str()),
            also,
        );
        brief_field(out, LAMBDA_KEYS[1], &Value::from(lambda.cold_start), also);
    }
    let step = super::catalogue::step(header.step);
    // `call_sid` is every record's, shown only where the step marks it
    // (`caller`); a record read back has it among its fields.
    let shown = |key: &str| match step {
        // The Lambda invocation is shown where it starts.
        _ if LAMBDA_KEYS.contains(&key) => starts,
        Some(step) if step.headline().contains(&key) => true,
        _ if key == "call_sid" => false,
        Some(step) => step.is_open(),
        None => true,
    };
    match body {
        Body::Written(written) => {
            for (key, json) in written.iter().filter(|(key, _)| shown(key)) {
                let value = serde_json::from_str(json).unwrap_or(Value::Null);
                brief_field(out, key, &value, also);
            }
        }
        Body::Values(fields) => {
            for (key, value) in fields.filter(|(key, _)| shown(key)) {
                brief_field(out, key, value, also);
            }
        }
    }
}

/// ` name=value`: a string bare when it has no space, quote, `=` or
/// control character, else as a JSON string; an object or an array as
/// compact JSON; anything else as in JSON. Never a line break.
fn brief_field(out: &mut String, key: &str, value: &Value, also: &[Box<str>]) {
    out.push(' ');
    push_brief_text(out, key, also);
    out.push('=');
    match value {
        Value::String(text) => {
            let bare = !text.is_empty()
                && !text
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '=' | '\\'));
            if bare {
                push_brief_text(out, text, also);
            } else {
                // Scrubbed before it is quoted: a secret with a line break
                // or a quote would no longer match afterwards.
                let mut text = text.clone();
                crate::secret::scrub(&mut text, also);
                let quoted = serde_json::to_string(&text).unwrap_or_default();
                push_clean(out, &quoted);
            }
        }
        Value::Array(_) | Value::Object(_) => push_brief_text(out, &value.to_string(), also),
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// `text` on one line: with every control character, the line feed
/// included, shown escaped.
fn push_brief_text(out: &mut String, text: &str, also: &[Box<str>]) {
    push_escaped(out, text, also, push_one_line);
}

/// `text` with its control characters shown by `escape`, scrubbed first
/// when it has any: a secret would no longer match once they are escaped
/// (a tab within an XML-escaped password, a PEM's line breaks).
fn push_escaped(out: &mut String, text: &str, also: &[Box<str>], escape: fn(&mut String, &str)) {
    if text.chars().any(char::is_control) {
        let mut text = text.to_owned();
        crate::secret::scrub(&mut text, also);
        escape(out, &text);
    } else {
        out.push_str(text);
    }
}

fn pretty_field(out: &mut String, key: &str, value: &Value, also: &[Box<str>]) {
    let _ = write!(out, "\n  {key}: ");
    match value {
        Value::String(s) if !s.contains('\n') => push_escaped(out, s, also, push_clean),
        Value::String(s) => {
            // Scrubbed before it is indented line by line: a secret of
            // several lines (a PEM key) would no longer match afterwards.
            let mut s = s.clone();
            crate::secret::scrub(&mut s, also);
            if s.contains('\n') {
                for line in s.lines() {
                    out.push_str("\n    ");
                    push_clean(out, line);
                }
            } else {
                // Its line breaks were a secret's: it is shown as the
                // JSON line's scrubbed value is.
                push_clean(out, &s);
            }
        }
        Value::Array(_) | Value::Object(_) => {
            let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
            out.push_str(&pretty.replace('\n', "\n  "));
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

#[derive(Default)]
struct InvocationVisitor {
    function: Option<String>,
    invocation_id: Option<String>,
    call_sid: Option<String>,
}

impl Visit for InvocationVisitor {
    fn record_str(&mut self, field: &Field, value: &str) {
        let slot = match field.name() {
            "function" => &mut self.function,
            "invocation_id" => &mut self.invocation_id,
            "call_sid" => &mut self.call_sid,
            _ => return,
        };
        *slot = Some(value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.record_str(field, &format!("{value:?}"));
    }
}

/// The day of an RFC 3339 `timestamp` as `yyyymmdd`, 0 when it has
/// none.
fn utc_day(timestamp: &str) -> u32 {
    let digits = |range: std::ops::Range<usize>| {
        timestamp
            .get(range)
            .filter(|text| text.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|text| text.parse::<u32>().ok())
    };
    match (digits(0..4), digits(5..7), digits(8..10)) {
        (Some(year), Some(month), Some(day)) => year * 10_000 + month * 100 + day,
        _ => 0,
    }
}

/// What a line is made of: the event's level and target, and its fields
/// (a handler's own), or the contract record being emitted.
#[derive(Clone, Copy)]
struct LineSource<'a> {
    level: &'static str,
    target: &'a str,
    visitor: &'a EventVisitor,
    contract: bool,
}

/// The `tracing` layer that writes contract records in a [`LogFormat`],
/// scrubbing every secret value from every line.
///
/// [`crate::record::init_logging`] installs one for the process; the testkit
/// installs its own per test.
pub struct ContractLayer<W> {
    format: LogFormat,
    writer: W,
    filter: Targets,
    /// The UTC day of the last line written (`yyyymmdd`; 0 before the
    /// first): the brief format dates the first line of each day.
    day: std::sync::atomic::AtomicU32,
}

impl<W> fmt::Debug for ContractLayer<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContractLayer")
            .field("format", &self.format)
            .field("filter", &self.filter)
            .finish_non_exhaustive()
    }
}

impl<W> ContractLayer<W>
where
    W: for<'w> MakeWriter<'w> + 'static,
{
    /// A layer writing `format` to `writer`, every level of every target.
    pub fn new(format: LogFormat, writer: W) -> Self {
        ContractLayer {
            format,
            writer,
            filter: Targets::new().with_default(Level::TRACE),
            day: std::sync::atomic::AtomicU32::new(0),
        }
    }

    /// Keeps only what `filter` enables; critical records (the task
    /// creation result) are written whatever it says.
    #[must_use]
    pub fn with_filter(mut self, filter: Targets) -> Self {
        self.filter = filter;
        self
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

    /// Formats one event as a line (scrubbed, with its newline) into the
    /// empty `line`.
    fn line<S>(&self, event: &Event<'_>, ctx: &LayerContext<'_, S>, line: &mut String)
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        let meta = event.metadata();
        if meta.target() == BUFFERED_TARGET {
            // A held line, written as it was when it was logged.
            emit::with_replayed(|held| {
                let source = LineSource {
                    level: meta.level().as_str(),
                    target: &held.target,
                    visitor: &held.event,
                    contract: false,
                };
                self.in_invocation(event, ctx, &source, &held.timestamp, line);
            });
            return;
        }
        let contract = meta.target().starts_with(TARGET) && emit::emitting();
        let mut visitor = EventVisitor::default();
        if !contract {
            event.record(&mut visitor);
        }
        let source = LineSource {
            level: meta.level().as_str(),
            target: meta.target(),
            visitor: &visitor,
            contract,
        };
        with_timestamp(|timestamp| self.in_invocation(event, ctx, &source, timestamp, line));
    }

    /// Formats `source` as a line into `line`, given the invocation
    /// `event` belongs to.
    fn in_invocation<S>(
        &self,
        event: &Event<'_>,
        ctx: &LayerContext<'_, S>,
        source: &LineSource<'_>,
        timestamp: &str,
        line: &mut String,
    ) where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        if scope::in_invocation() {
            scope::with_current(|invocation| {
                self.write_line(source, timestamp, Some(invocation), line);
            });
        } else {
            let scope = ctx.event_scope(event);
            let span = scope.and_then(|mut scope| {
                scope.find(|span| span.extensions().get::<Invocation>().is_some())
            });
            let extensions = span.as_ref().map(|span| span.extensions());
            let invocation = extensions.as_ref().and_then(|e| e.get::<Invocation>());
            self.write_line(source, timestamp, invocation, line);
        }
    }

    /// Whether a brief line of `step` logged at `timestamp` shows its
    /// date: it starts an invocation, or it is the first line written on
    /// its UTC day (the first line of all included).
    fn dated(&self, timestamp: &str, step: &str) -> bool {
        let day = utc_day(timestamp);
        let before = self.day.swap(day, std::sync::atomic::Ordering::Relaxed);
        step == "start" || before != day
    }

    /// Formats one event as a line into `line`, given the invocation it
    /// belongs to.
    fn write_line(
        &self,
        source: &LineSource<'_>,
        timestamp: &str,
        invocation: Option<&Invocation>,
        line: &mut String,
    ) {
        let LineSource {
            level,
            target,
            visitor,
            contract,
        } = *source;
        fn header<'h>(
            timestamp: &'h str,
            level: &'h str,
            invocation: Option<&'h Invocation>,
            step: &'h str,
            message: &'h str,
            dated: bool,
        ) -> Header<'h> {
            Header {
                timestamp,
                level,
                function: invocation.map(|i| i.function.as_str()),
                invocation_id: invocation.map(|i| i.invocation_id.as_str()),
                call_sid: invocation.and_then(|i| i.call_sid.as_deref()),
                lambda: invocation.and_then(|i| i.lambda.as_ref()),
                invocation,
                step,
                message,
                dated,
            }
        }
        let dated = |step| self.format == LogFormat::Pretty && self.dated(timestamp, step);
        let secrets = invocation.map_or(NONE, |i| &i.secrets);
        if contract {
            emit::with_emitted(|emitted| {
                let dated = dated(emitted.step);
                let header = header(
                    timestamp,
                    level,
                    invocation,
                    emitted.step,
                    &emitted.message,
                    dated,
                );
                let body = Body::Written::<std::iter::Empty<(&str, &Value)>>(&emitted.fields);
                self.format.write(&header, body, line, secrets);
            });
            scrub(line, secrets);
            line.push('\n');
            return;
        }
        let mut others = Vec::with_capacity(visitor.others.len() + 2);
        others.push(("target".to_owned(), Value::from(target)));
        if let Some(user_step) = &visitor.step {
            others.push(("user_step".to_owned(), Value::from(user_step.as_str())));
        }
        // A handler's field must not shadow a field every record has, nor
        // show a value its name says is sensitive.
        others.extend(visitor.others.iter().map(|(key, value)| {
            let value = if crate::secret::is_sensitive_name(key) {
                Value::from(crate::secret::REDACTED)
            } else {
                value.clone()
            };
            if is_reserved(key) {
                (format!("fields.{key}"), value)
            } else {
                (key.clone(), value)
            }
        }));
        let fields = others.iter().map(|(k, v)| (k.as_str(), v));
        let header = header(
            timestamp,
            level,
            invocation,
            "log",
            &visitor.message,
            dated("log"),
        );
        self.format
            .write(&header, Body::Values(fields), line, secrets);
        scrub(line, secrets);
        line.push('\n');
    }
}

impl<S, W> Layer<S> for ContractLayer<W>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    W: for<'w> MakeWriter<'w> + 'static,
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
        with_timestamp(|timestamp| scope::hold(meta.target(), timestamp, visitor));
        false
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: LayerContext<'_, S>) {
        // The span stays enabled for other layers, but its identity is
        // only read for lines written outside the invocation's own polls:
        // with this layer's filter off for ccfn, there are none worth
        // its cost (a critical line there goes without it).
        if attrs.metadata().name() != SPAN_NAME || !self.filter.would_enable(TARGET, &Level::ERROR)
        {
            return;
        }
        let mut visitor = InvocationVisitor::default();
        attrs.record(&mut visitor);
        if let (Some(span), Some(function), Some(invocation_id)) =
            (ctx.span(id), visitor.function, visitor.invocation_id)
        {
            let mut extensions = span.extensions_mut();
            if extensions.get_mut::<Invocation>().is_none() {
                extensions.insert(Invocation::new(
                    function,
                    invocation_id,
                    visitor.call_sid,
                    Vec::new(),
                ));
            }
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: LayerContext<'_, S>) {
        // A log line that cannot be written must not fail the function.
        let write = |line: &mut String| {
            self.line(event, &ctx, line);
            let _ = self.writer.make_writer().write_all(line.as_bytes());
        };
        LINE.with(|buffer| match buffer.try_borrow_mut() {
            Ok(mut line) => {
                line.clear();
                write(&mut line);
                if line.capacity() > LINE_KEPT_BYTES {
                    *line = String::new();
                }
            }
            // An event emitted while this thread formats another.
            Err(_) => write(&mut String::new()),
        });
    }
}

/// The log filter of `CCFN_LOG` (as `RUST_LOG`: `info`, `warn,ccfn=debug`).
///
/// # Errors
/// The filter cannot be parsed; the error quotes it and says the syntax.
pub fn parse_filter(filter: &str) -> Result<Targets, crate::error::Error> {
    filter.parse::<Targets>().map_err(|e| {
        crate::error::Error::new(
            crate::error::ErrorKind::Configuration,
            format!(
                "invalid log filter `{filter}`: {e}; expected a level (`info`) or `target=level` pairs separated by commas"
            ),
        )
    })
}

/// Keeps the process's log writer running; dropping it writes every
/// buffered line out and stops the writer. Hold it for the life of the
/// process (the runtime does).
#[must_use = "dropping the guard stops the log writer; hold it until the process ends"]
pub struct LogGuard {
    writer: crate::record::background::Background,
    reported: std::sync::atomic::AtomicUsize,
}

impl fmt::Debug for LogGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LogGuard")
            .field("dropped_lines", &self.dropped_lines())
            .finish_non_exhaustive()
    }
}

impl LogGuard {
    /// The writer thread's queue, to wait on.
    #[cfg(feature = "lambda")]
    pub(crate) fn writer(&self) -> crate::record::background::Background {
        self.writer.clone()
    }

    /// How many lines were dropped because the writer could not keep up.
    #[must_use]
    pub fn dropped_lines(&self) -> usize {
        self.writer.dropped_lines()
    }

    /// Writes a `log_dropped` record when lines were dropped since the
    /// last report. The runtime calls it every second and at shutdown.
    pub fn report_dropped(&self) {
        use std::sync::atomic::Ordering;
        let total = self.dropped_lines();
        let before = self.reported.swap(total, Ordering::Relaxed);
        if total > before {
            emit::emit(
                &format!(
                    "{} log lines dropped: the log writer could not keep up",
                    total - before
                ),
                &super::catalogue::LogDropped {
                    dropped: super::fields::Field::from(total - before),
                    total_dropped: super::fields::Field::from(total),
                },
            );
        }
    }
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        self.report_dropped();
        self.writer.flush(std::time::Duration::from_secs(5));
    }
}

/// How many messages the log writer queues (a line, or the lines of one
/// poll of an invocation) before it drops (and counts) lines rather than
/// block a handler.
pub const LOG_QUEUE_LINES: usize = 256 * 1024;

/// The logging's settings: `CCFN_LOG_FORMAT`, `CCFN_LOG_DETAIL` and
/// `CCFN_LOG`.
#[derive(Clone, Debug)]
struct LogSettings {
    /// `CCFN_LOG_FORMAT`: `pretty` (default) or `json`; with `pretty`,
    /// `CCFN_LOG_DETAIL`: `brief` (default) or `full`.
    format: LogFormat,
    /// `CCFN_LOG`: the filter (default `info`).
    filter: Targets,
}

impl LogSettings {
    /// The settings `source` has, else the defaults.
    ///
    /// # Errors
    /// `CCFN_LOG_FORMAT`, `CCFN_LOG_DETAIL` or `CCFN_LOG` cannot be
    /// parsed; the error names the variable, quotes the value and says
    /// what it accepts.
    fn from_source<S: Source + ?Sized>(source: &S) -> Result<Self, crate::config::ConfigError> {
        // The detail is checked whatever the format: a typo is reported
        // before someone switches to `pretty` and wonders.
        let full = CCFN_LOG_DETAIL.choice(source)? == Some("full");
        let format = match CCFN_LOG_FORMAT.choice(source)? {
            Some("json") => LogFormat::Json,
            Some(_) | None if full => LogFormat::PrettyFull,
            Some(_) | None => LogFormat::Pretty,
        };
        let filter = CCFN_LOG.text(source).unwrap_or("info");
        let filter = filter
            .parse::<Targets>()
            .map_err(|e| CCFN_LOG.invalid(filter, Some(&e.to_string())))?;
        Ok(LogSettings { format, filter })
    }
}

/// Installs the process's logging once: a [`ContractLayer`] in the format
/// of `CCFN_LOG_FORMAT` (`pretty` or `json`, default `pretty`) and, for
/// `pretty`, `CCFN_LOG_DETAIL` (`brief` or `full`, default `brief`),
/// filtered by `CCFN_LOG` (default `info`), all read from the process environment
/// over the `.env` file ([`crate::config::Env::load`]), writing to
/// standard output from its own thread so that a slow terminal or disk
/// never blocks a handler.
///
/// # Errors
/// `CCFN_LOG_FORMAT`, `CCFN_LOG_DETAIL` or `CCFN_LOG` cannot be parsed
/// (kind `Configuration`), or logging was already installed.
pub fn init_logging() -> Result<LogGuard, crate::error::Error> {
    init_logging_beside(None::<NoWriter>).map(|(guard, _)| guard)
}

/// A writer type for a layer that is not there.
type NoWriter = fn() -> std::io::Sink;

/// [`init_logging`], with a second layer that writes every line the log
/// writes, as JSON, to `beside` (the runtime's inspector); and whether
/// the filter lets through every `INFO` record of the contract.
pub(crate) fn init_logging_beside<B>(
    beside: Option<B>,
) -> Result<(LogGuard, bool), crate::error::Error>
where
    B: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let settings = LogSettings::from_source(&crate::config::Env::load()?)?;
    // The writer thread flushes after each batch it drains, so a buffer
    // turns one write per line into one per batch.
    let stdout = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout());
    let writer = start_writer(stdout, LOG_QUEUE_LINES)?;
    let whole = settings.filter.would_enable(TARGET, &Level::INFO);
    install(settings.format, settings.filter, writer.clone(), beside)?;
    let guard = LogGuard {
        writer,
        reported: std::sync::atomic::AtomicUsize::new(0),
    };
    Ok((guard, whole))
}

/// The log writer thread, writing to `writer` through a queue of
/// `queue_lines` messages.
fn start_writer<W>(
    writer: W,
    queue_lines: usize,
) -> Result<crate::record::background::Background, crate::error::Error>
where
    W: std::io::Write + Send + 'static,
{
    crate::record::background::Background::start(
        writer,
        queue_lines,
        crate::record::background::QUEUE_BYTES,
    )
    .map_err(|e| {
        crate::error::Error::new(
            crate::error::ErrorKind::Function,
            format!("cannot start the log writer thread: {e}"),
        )
        .with_source(e)
    })
}

/// Installs the process's logging once, writing to `writer` from a thread
/// of its own through a queue of `queue_lines` messages (a line, or the
/// lines of one poll of an invocation) and 64 MiB: when the queue is
/// full, lines are dropped and counted rather than block the function (see
/// [`LogGuard::report_dropped`]).
///
/// # Errors
/// Logging was already installed in this process.
pub fn init_logging_to<W>(
    format: LogFormat,
    filter: Targets,
    writer: W,
    queue_lines: usize,
) -> Result<LogGuard, crate::error::Error>
where
    W: std::io::Write + Send + 'static,
{
    let writer = start_writer(writer, queue_lines)?;
    init_logging_with(format, filter, writer.clone())?;
    Ok(LogGuard {
        writer,
        reported: std::sync::atomic::AtomicUsize::new(0),
    })
}

/// Installs the process's logging once, with the given format, filter and
/// writer (written to from the thread that logs).
///
/// # Errors
/// Logging was already installed in this process.
pub fn init_logging_with<W>(
    format: LogFormat,
    filter: Targets,
    writer: W,
) -> Result<(), crate::error::Error>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    install(format, filter, writer, None::<NoWriter>)
}

/// Installs the process's logging once: `writer` in `format`, and
/// `beside` in JSON, both through `filter`.
fn install<W, B>(
    format: LogFormat,
    filter: Targets,
    writer: W,
    beside: Option<B>,
) -> Result<(), crate::error::Error>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
    B: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    use tracing_subscriber::layer::SubscriberExt as _;
    crate::record::panic::install_hook();
    let beside = beside.map(|b| ContractLayer::new(LogFormat::Json, b).with_filter(filter.clone()));
    let subscriber = tracing_subscriber::registry()
        .with(ContractLayer::new(format, writer).with_filter(filter))
        .with(beside);
    // Each record inside an invocation also becomes an event of its span.
    let subscriber = subscriber.with(crate::observe::record_layer());
    tracing::subscriber::set_global_default(subscriber).map_err(|_| {
        crate::error::Error::new(
            crate::error::ErrorKind::Function,
            "logging is already installed in this process; call init_logging once",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn log_settings_are_read_through_the_catalogue() {
        use crate::config::Env;
        let settings = LogSettings::from_source(&Env::default()).unwrap();
        assert_eq!(settings.format, LogFormat::Pretty);
        assert_eq!(settings.filter.to_string(), "info");
        let env = Env::from_vars([
            ("CCFN_LOG", "warn,my_functions=debug"),
            ("CCFN_LOG_FORMAT", "JSON"),
        ]);
        let settings = LogSettings::from_source(&env).unwrap();
        assert_eq!(settings.format, LogFormat::Json);
        let format = |vars: &[(&str, &str)]| {
            LogSettings::from_source(&Env::from_vars(vars.iter().copied())).map(|s| s.format)
        };
        assert_eq!(
            format(&[("CCFN_LOG_DETAIL", "full")]),
            Ok(LogFormat::PrettyFull)
        );
        assert_eq!(
            format(&[
                ("CCFN_LOG_FORMAT", "pretty"),
                ("CCFN_LOG_DETAIL", " Brief ")
            ]),
            Ok(LogFormat::Pretty)
        );
        assert_eq!(
            format(&[("CCFN_LOG_FORMAT", "json"), ("CCFN_LOG_DETAIL", "full")]),
            Ok(LogFormat::Json),
            "JSON lines always carry every field"
        );
        let error = format(&[("CCFN_LOG_FORMAT", "json"), ("CCFN_LOG_DETAIL", "all")]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "CCFN_LOG_DETAIL=\"all\": expected `brief` or `full`"
        );
        assert_eq!(error.variable(), Some("CCFN_LOG_DETAIL"));
        let error =
            LogSettings::from_source(&Env::from_vars([("CCFN_LOG_FORMAT", "xml")])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "CCFN_LOG_FORMAT=\"xml\": expected `pretty` or `json`"
        );
        let error =
            LogSettings::from_source(&Env::from_vars([("CCFN_LOG", "x=bogus")])).unwrap_err();
        assert_eq!(error.variable(), Some("CCFN_LOG"));
        assert!(
            error.to_string().starts_with("CCFN_LOG=\"x=bogus\": "),
            "{error}"
        );
        assert!(
            error.to_string().ends_with(
                "; expected a level (`info`) or `target=level` pairs separated by commas"
            ),
            "{error}"
        );
        let error = crate::error::Error::from(error);
        assert_eq!(error.kind(), crate::error::ErrorKind::Configuration);
    }

    #[test]
    fn pretty_puts_header_then_fields() {
        let record = json!({
            "timestamp": "2026-11-21T20:35:01.123Z",
            "level": "INFO",
            "function": "wait-experience",
            "invocation_id": "abc",
            "step": "start",
            "message": "=== FUNCTION START: wait-experience ===",
            "event": {"CallSid": "CA1"},
            "domain": "localhost:3001",
            "stack": "one\ntwo"
        });
        let text = LogFormat::PrettyFull.render(record.as_object().unwrap());
        assert_eq!(
            text,
            "2026-11-21T20:35:01.123Z INFO  wait-experience abc [start] === FUNCTION START: wait-experience ===\n  event: {\n    \"CallSid\": \"CA1\"\n  }\n  domain: localhost:3001\n  stack: \n    one\n    two"
        );
    }

    #[test]
    fn brief_is_one_line_with_the_step_s_headline_fields() {
        let record = json!({
            "timestamp": "2026-11-21T20:35:01.123Z",
            "level": "WARN",
            "function": "wait-experience",
            "invocation_id": "abc",
            "call_sid": "CA1",
            "step": "api_response",
            "message": "API response: 503 from GET https://api.example.com/v1",
            "status": 503,
            "ok": false,
            "content_type": "application/json",
            "response_bytes": 12,
            "data": {"code": 503},
            "elapsed_ms": 41
        });
        assert_eq!(
            LogFormat::Pretty.render(record.as_object().unwrap()),
            "20:35:01.123Z WARN  wait-experience abc [api_response] API response: 503 from GET https://api.example.com/v1 status=503 elapsed_ms=41"
        );
        // Outside an invocation, with no headline field.
        let record = json!({
            "timestamp": "2026-11-21T20:35:02.000Z",
            "level": "INFO",
            "step": "runtime",
            "message": "listening on http://127.0.0.1:3001",
            "addr": "127.0.0.1:3001",
            "functions": ["/a", "/b"]
        });
        assert_eq!(
            LogFormat::Pretty.render(record.as_object().unwrap()),
            "20:35:02.000Z INFO    [runtime] listening on http://127.0.0.1:3001"
        );
    }

    #[test]
    fn brief_shows_every_field_of_a_handler_s_line_and_of_an_unknown_step_but_the_call_sid() {
        for step in ["log", "not-in-the-catalogue"] {
            let record = json!({
                "timestamp": "[timestamp]",
                "level": "INFO",
                "call_sid": "CA1",
                "step": step,
                "message": "m",
                "target": "my_functions",
                "count": 2
            });
            assert_eq!(
                LogFormat::Pretty.render(record.as_object().unwrap()),
                format!("[timestamp] INFO    [{step}] m target=my_functions count=2")
            );
        }
    }

    #[test]
    fn brief_quotes_what_a_bare_value_cannot_show_and_stays_on_one_line() {
        let record = json!({
            "timestamp": "2026-11-21T20:35:01.123Z",
            "level": "ERROR",
            "step": "error",
            "message": "first\nsecond \u{1b}[2J",
            "kind": "function",
            "error": "a \"quoted\"\nmessage\u{9b}",
            "stack": "one\ntwo",
            "event": {"CallSid": "CA1"}
        });
        let text = LogFormat::Pretty.render(record.as_object().unwrap());
        assert_eq!(
            text,
            "20:35:01.123Z ERROR   [error] first\\nsecond \\u{1b}[2J kind=function error=\"a \\\"quoted\\\"\\nmessage\\u{9b}\""
        );
        assert!(!text.contains('\n') && !text.chars().any(char::is_control));
        let record = json!({
            "timestamp": "T1", "level": "INFO", "step": "success", "message": "",
            "result": {"a": [1, "x y"], "b": null}
        });
        assert_eq!(
            LogFormat::Pretty.render(record.as_object().unwrap()),
            r#"1 INFO    [success] result={"a":[1,"x y"],"b":null}"#
        );
        let record = json!({
            "timestamp": "T1", "level": "INFO", "step": "log", "message": "m",
            "empty": "", "eq": "a=b", "n": 1.5, "t": true
        });
        assert_eq!(
            LogFormat::Pretty.render(record.as_object().unwrap()),
            r#"1 INFO    [log] m empty="" eq="a=b" n=1.5 t=true"#
        );
    }

    #[test]
    fn the_human_format_scrubs_a_secret_before_it_escapes_its_control_characters() {
        let secret = "canary-brief-line-one\ncanary-brief-line-two";
        // In voice markup, XML-escaped, with a tab the human format shows
        // as `\u{9}`: no form of it is left to match once escaped.
        let tabbed = "canary<tab\tsecret>";
        let also = crate::secret::invocation_secrets([secret, tabbed]);
        let header = Header {
            timestamp: "2026-11-21T20:35:01.123Z",
            level: "INFO",
            function: None,
            invocation_id: None,
            call_sid: None,
            lambda: None,
            invocation: None,
            step: "log",
            message: secret,
            dated: false,
        };
        let values = [
            ("quoted", Value::from(secret)),
            ("inside", json!({ "key": secret })),
            ("bare", Value::from("canary-brief-line-one")),
            ("twiml", Value::from("<Say>canary&lt;tab\tsecret&gt;</Say>")),
        ];
        let fields = values.iter().map(|(k, v)| (*k, v));
        for format in [LogFormat::Pretty, LogFormat::PrettyFull] {
            let mut out = String::new();
            format.write(&header, Body::Values(fields.clone()), &mut out, &also);
            scrub(&mut out, &also);
            assert!(!out.contains("canary-brief-line-two"), "{format:?}: {out}");
            assert!(!out.contains("secret&gt;"), "{format:?}: {out}");
            assert!(out.contains("<Say>[REDACTED]</Say>"), "{format:?}: {out}");
        }
    }

    #[test]
    fn brief_dates_a_start_line_and_the_first_line_of_each_utc_day() {
        let layer = ContractLayer::new(LogFormat::Pretty, std::io::sink);
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

        // One record alone: its date shows where it starts an invocation.
        let record = |step: &str| {
            json!({
                "timestamp": "2026-11-21T20:35:01.123Z", "level": "INFO",
                "function": "f", "invocation_id": "abc", "step": step, "message": "m"
            })
        };
        assert_eq!(
            LogFormat::Pretty.render(record("start").as_object().unwrap()),
            "2026-11-21T20:35:01.123Z INFO  f abc [start] m"
        );
        assert_eq!(
            LogFormat::Pretty.render(record("end").as_object().unwrap()),
            "20:35:01.123Z INFO  f abc [end] m"
        );
    }

    #[test]
    fn on_lambda_every_format_carries_the_request_id_and_the_cold_start() {
        let lambda = OnLambda {
            request_id: "8476a536-e9f4-11e8-9739-2dfe598c3fcd".to_owned(),
            cold_start: true,
        };
        let line = |format: LogFormat, step: &str| {
            let header = Header {
                timestamp: "2026-11-21T20:35:01.123Z",
                level: "INFO",
                function: Some("f"),
                invocation_id: Some("abc"),
                call_sid: Some("CA1"),
                lambda: Some(&lambda),
                invocation: None,
                step,
                message: "m",
                dated: false,
            };
            let values = [("outcome", Value::from("success"))];
            let mut out = String::new();
            format.write(
                &header,
                Body::Values(values.iter().map(|(k, v)| (*k, v))),
                &mut out,
                NONE,
            );
            out
        };
        let json = line(LogFormat::Json, "end");
        assert_eq!(
            json,
            r#"{"timestamp":"2026-11-21T20:35:01.123Z","level":"INFO","function":"f","invocation_id":"abc","call_sid":"CA1","function_request_id":"8476a536-e9f4-11e8-9739-2dfe598c3fcd","cold_start":true,"step":"end","message":"m","outcome":"success"}"#
        );
        // Where it starts, in brief; on every line, in full.
        assert_eq!(
            line(LogFormat::Pretty, "start"),
            "20:35:01.123Z INFO  f abc [start] m function_request_id=8476a536-e9f4-11e8-9739-2dfe598c3fcd cold_start=true"
        );
        assert_eq!(
            line(LogFormat::Pretty, "end"),
            "20:35:01.123Z INFO  f abc [end] m outcome=success"
        );
        assert!(line(LogFormat::PrettyFull, "end").ends_with(
            "\n  call_sid: CA1\n  function_request_id: 8476a536-e9f4-11e8-9739-2dfe598c3fcd\n  cold_start: true\n  outcome: success"
        ));
        // A record read back shows them alike.
        let record: Map<String, Value> = serde_json::from_str(&json).unwrap();
        let again: Map<String, Value> =
            serde_json::from_str(&LogFormat::Json.render(&record)).unwrap();
        assert_eq!(again, record);
        assert_eq!(
            LogFormat::Pretty.render(&record),
            "20:35:01.123Z INFO  f abc [end] m outcome=success"
        );
        let mut start = record.clone();
        start.insert("step".into(), Value::from("start"));
        assert_eq!(
            LogFormat::Pretty.render(&start),
            "2026-11-21T20:35:01.123Z INFO  f abc [start] m function_request_id=8476a536-e9f4-11e8-9739-2dfe598c3fcd cold_start=true"
        );
    }

    #[test]
    fn pretty_shows_control_characters_escaped() {
        let record = json!({
            "step": "caller",
            "message": "from \u{1b}[2J",
            "from": "+1\u{1b}]0;x\u{7}",
        });
        let text = LogFormat::PrettyFull.render(record.as_object().unwrap());
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(
            text.ends_with("[caller] from \\u{1b}[2J\n  from: +1\\u{1b}]0;x\\u{7}"),
            "{text:?}"
        );
    }

    #[test]
    fn json_is_one_line_with_nested_objects() {
        let record = json!({
            "timestamp": "2026-11-21T20:35:01.123Z",
            "level": "INFO",
            "step": "start",
            "message": "m \"quoted\"",
            "event": {"From": "+1"}
        });
        let text = LogFormat::Json.render(record.as_object().unwrap());
        assert_eq!(
            text,
            r#"{"timestamp":"2026-11-21T20:35:01.123Z","level":"INFO","step":"start","message":"m \"quoted\"","event":{"From":"+1"}}"#
        );
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed, record);
    }

    #[test]
    fn formats_and_filters_parse() {
        assert_eq!("json".parse::<LogFormat>().unwrap(), LogFormat::Json);
        assert_eq!(" pretty ".parse::<LogFormat>().unwrap(), LogFormat::Pretty);
        let error = "xml".parse::<LogFormat>().unwrap_err();
        assert_eq!(
            error.message(),
            "unknown log format `xml`: expected `pretty` or `json`"
        );
        assert!(parse_filter("warn,ccfn=debug").is_ok());
        let error = parse_filter("ccfn=loud").unwrap_err();
        assert!(
            error
                .message()
                .starts_with("invalid log filter `ccfn=loud`"),
            "{error}"
        );
    }
}
