//! A batch of finished spans as the body of an OTLP/HTTP trace export
//! (`ExportTraceServiceRequest`, protobuf), written straight from the
//! spans: byte for byte what the OTLP exporter writes through its own
//! messages, without copying every text of every span into them first.
//!
//! Every text the export scrubs ([`super::scrub`]: the span's name, its
//! attributes' and events' texts, its status message) is scrubbed here
//! with the process's secrets as it is written, and an attribute set
//! again is written once, at its last value. The texts of a span are
//! checked once, all together, one a line: what the scrubber changes in
//! one text it changes in the lines (a URL ends at a line's end and
//! starts after it; a secret in one text is in them all), so when it
//! changes nothing there, each is written as it is; else each is
//! scrubbed on its own.

use std::borrow::Cow;
use std::time::{SystemTime, UNIX_EPOCH};

use opentelemetry::trace::{SpanId, SpanKind, Status};
use opentelemetry::{Array, InstrumentationScope, KeyValue, Value};
use opentelemetry_sdk::trace::SpanData;
use opentelemetry_sdk::Resource;

/// Protobuf wire types.
pub(super) const VARINT: u8 = 0;
pub(super) const FIXED64: u8 = 1;
pub(super) const LEN: u8 = 2;
pub(super) const FIXED32: u8 = 5;

/// OTLP's span flags: the parent's remoteness is known, and whether it
/// is remote.
const CONTEXT_HAS_IS_REMOTE: u32 = 0x100;
const CONTEXT_IS_REMOTE: u32 = 0x200;

/// A finished span, as it waits for its export.
#[derive(Debug)]
pub(super) enum Finished {
    /// A span the SDK's tracer made: an external call's.
    Sdk(Box<SpanData>),
    /// A server span (an invocation's, a refused request's) written as it
    /// ran, scrubbed already, in the scope [`scope`] names: its `Span`
    /// message's content is the two parts one after the other.
    Written(Vec<u8>, Vec<u8>),
}

/// The instrumentation scope of ccfn's spans: the tracer's, and that of
/// every [`Finished::Written`] span.
pub(super) fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("ccfn").build()
}

/// The body of trace exports: the resource written once, then a
/// batch's spans each time.
pub(super) struct Encoder {
    /// The `Resource` message's content.
    resource: Vec<u8>,
    /// The resource's schema URL, if any.
    schema_url: Option<String>,
    /// The scope of written spans.
    ccfn: InstrumentationScope,
}

impl Encoder {
    /// An encoder for the spans of `resource`.
    pub(super) fn new(resource: &Resource) -> Encoder {
        let mut bytes = Vec::new();
        for (key, value) in resource.iter() {
            message(&mut bytes, 1, |out| {
                key_value(out, key.as_str(), value, false)
            });
        }
        Encoder {
            resource: bytes,
            schema_url: resource.schema_url().map(str::to_owned),
            ccfn: scope(),
        }
    }

    fn scope_of<'a>(&'a self, span: &'a Finished) -> &'a InstrumentationScope {
        match span {
            Finished::Sdk(span) => &span.instrumentation_scope,
            Finished::Written(..) => &self.ccfn,
        }
    }

    /// Writes the export of `spans` into `out` (emptied first).
    ///
    /// Every length is known before its message is written: ccfn's own
    /// spans come written, and the SDK's and the scopes are written apart
    /// first, so that nothing written is moved to make room for a length
    /// and `out` is made at its size.
    pub(super) fn encode(&self, spans: &[Finished], out: &mut Vec<u8>) {
        out.clear();
        if spans.is_empty() {
            // An empty request, as the exporter would send none.
            return;
        }
        // Spans by scope, scopes in the order they first appear.
        let mut scopes: Vec<&InstrumentationScope> = Vec::new();
        for span in spans {
            let scope = self.scope_of(span);
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        // The SDK's spans, and each scope's own message, written apart.
        let mut apart = Vec::new();
        let mut texts = String::new();
        let sdk: Vec<std::ops::Range<usize>> = spans
            .iter()
            .map(|span| match span {
                Finished::Sdk(span) => {
                    let start = apart.len();
                    let scrub = !clean(span, &mut texts);
                    write_span(&mut apart, span, scrub);
                    start..apart.len()
                }
                Finished::Written(..) => 0..0,
            })
            .collect();
        let scope_messages: Vec<std::ops::Range<usize>> = scopes
            .iter()
            .map(|scope| {
                let start = apart.len();
                instrumentation_scope(&mut apart, scope);
                start..apart.len()
            })
            .collect();
        let span_len = |at: usize| match &spans[at] {
            Finished::Sdk(_) => sdk[at].len(),
            Finished::Written(head, rest) => head.len() + rest.len(),
        };
        // Each span's scope, by its place in `scopes`.
        let scope_at: Vec<usize> = spans
            .iter()
            .map(|span| {
                let scope = self.scope_of(span);
                scopes.iter().position(|s| *s == scope).unwrap_or_default()
            })
            .collect();
        let scope_at = &scope_at;
        let in_scope = |scope: usize| (0..spans.len()).filter(move |at| scope_at[*at] == scope);
        let scope_lens: Vec<usize> = scopes
            .iter()
            .zip(&scope_messages)
            .enumerate()
            .map(|(at, (scope, message))| {
                field_len(message.len())
                    + in_scope(at)
                        .map(|at| field_len(span_len(at)))
                        .sum::<usize>()
                    + string_len(scope.schema_url().unwrap_or_default())
            })
            .collect();
        let schema_url = self.schema_url.as_deref().unwrap_or_default();
        let resource_spans = field_len(self.resource.len())
            + scope_lens.iter().map(|len| field_len(*len)).sum::<usize>()
            + string_len(schema_url);
        out.reserve(field_len(resource_spans));
        head(out, 1, resource_spans);
        head(out, 1, self.resource.len());
        out.extend_from_slice(&self.resource);
        for (index, ((scope, message), len)) in scopes
            .iter()
            .zip(&scope_messages)
            .zip(scope_lens)
            .enumerate()
        {
            head(out, 2, len);
            head(out, 1, message.len());
            out.extend_from_slice(&apart[message.clone()]);
            for at in in_scope(index) {
                head(out, 2, span_len(at));
                match &spans[at] {
                    Finished::Sdk(_) => out.extend_from_slice(&apart[sdk[at].clone()]),
                    Finished::Written(head, rest) => {
                        out.extend_from_slice(head);
                        out.extend_from_slice(rest);
                    }
                }
            }
            string(out, 3, scope.schema_url().unwrap_or_default());
        }
        string(out, 3, schema_url);
    }
}

/// The bytes a field of fields 1 to 15 takes whose content has `len`
/// bytes: its tag, its length and its content.
fn field_len(len: usize) -> usize {
    1 + varint_len(len as u64) + len
}

/// The bytes a text field of fields 1 to 15 takes: none when empty.
fn string_len(text: &str) -> usize {
    if text.is_empty() {
        0
    } else {
        field_len(text.len())
    }
}

/// A field of fields 1 to 15 with `len` bytes of content to follow: its
/// tag and its length.
fn head(out: &mut Vec<u8>, field: u32, len: usize) {
    debug_assert!(field < 16);
    tag(out, field, LEN);
    varint(out, len as u64);
}

fn instrumentation_scope(out: &mut Vec<u8>, scope: &InstrumentationScope) {
    string(out, 1, scope.name());
    string(out, 2, scope.version().unwrap_or_default());
    for attribute in scope.attributes() {
        message(out, 3, |out| {
            key_value(out, attribute.key.as_str(), &attribute.value, false);
        });
    }
}

/// Whether no text of `span` the export scrubs holds anything to scrub:
/// all of them, one a line in `texts`, hold nothing.
fn clean(span: &SpanData, texts: &mut String) -> bool {
    fn add(texts: &mut String, value: &Value) {
        match value {
            Value::String(text) => {
                texts.push_str(text.as_str());
                texts.push('\n');
            }
            Value::Array(Array::String(values)) => {
                for text in values {
                    texts.push_str(text.as_str());
                    texts.push('\n');
                }
            }
            _ => {}
        }
    }
    texts.clear();
    texts.push_str(&span.name);
    texts.push('\n');
    for attribute in &span.attributes {
        add(texts, &attribute.value);
    }
    for event in &span.events.events {
        texts.push_str(&event.name);
        texts.push('\n');
        for attribute in &event.attributes {
            add(texts, &attribute.value);
        }
    }
    if let Status::Error { description } = &span.status {
        texts.push_str(description);
    }
    matches!(crate::secret::scrubbed(texts), Cow::Borrowed(_))
}

/// A `Span` message's content; its texts scrubbed when `scrub`.
fn write_span(out: &mut Vec<u8>, span: &SpanData, scrub: bool) {
    let context = &span.span_context;
    bytes(out, 1, &context.trace_id().to_bytes());
    bytes(out, 2, &context.span_id().to_bytes());
    string(out, 3, &context.trace_state().header());
    if span.parent_span_id != SpanId::INVALID {
        bytes(out, 4, &span.parent_span_id.to_bytes());
    }
    string(out, 5, &shown(&span.name, scrub));
    let kind = match span.span_kind {
        SpanKind::Internal => 1,
        SpanKind::Server => 2,
        SpanKind::Client => 3,
        SpanKind::Producer => 4,
        SpanKind::Consumer => 5,
    };
    varint_field(out, 6, kind);
    fixed64(out, 7, nanos(span.start_time));
    fixed64(out, 8, nanos(span.end_time));
    for (index, attribute) in span.attributes.iter().enumerate() {
        // Set again later: the later value is the one exported.
        if span.attributes[index + 1..]
            .iter()
            .any(|later| later.key == attribute.key)
        {
            continue;
        }
        attribute_message(out, 9, attribute, scrub);
    }
    varint_field(out, 10, u64::from(span.dropped_attributes_count));
    for event in &span.events.events {
        message(out, 11, |out| {
            fixed64(out, 1, nanos(event.timestamp));
            string(out, 2, &shown(&event.name, scrub));
            for attribute in &event.attributes {
                attribute_message(out, 3, attribute, scrub);
            }
            varint_field(out, 4, u64::from(event.dropped_attributes_count));
        });
    }
    varint_field(out, 12, u64::from(span.events.dropped_count));
    for link in &span.links.links {
        message(out, 13, |out| {
            let context = &link.span_context;
            bytes(out, 1, &context.trace_id().to_bytes());
            bytes(out, 2, &context.span_id().to_bytes());
            string(out, 3, &context.trace_state().header());
            for attribute in &link.attributes {
                message(out, 4, |out| {
                    key_value(out, attribute.key.as_str(), &attribute.value, false);
                });
            }
            varint_field(out, 5, u64::from(link.dropped_attributes_count));
            let mut flags = u32::from(context.trace_flags().to_u8()) | CONTEXT_HAS_IS_REMOTE;
            if context.is_remote() {
                flags |= CONTEXT_IS_REMOTE;
            }
            fixed32(out, 6, flags);
        });
    }
    varint_field(out, 14, u64::from(span.links.dropped_count));
    message(out, 15, |out| match &span.status {
        Status::Error { description } => {
            string(out, 2, &shown(description, scrub));
            varint_field(out, 3, 2);
        }
        Status::Ok => varint_field(out, 3, 1),
        Status::Unset => {}
    });
    let mut flags = u32::from(context.trace_flags().to_u8()) | CONTEXT_HAS_IS_REMOTE;
    if span.parent_span_is_remote {
        flags |= CONTEXT_IS_REMOTE;
    }
    fixed32(out, 16, flags);
}

/// An attribute of a span or event: its texts scrubbed when `scrub`. A
/// single value's lengths are known before it is written: written
/// straight, with no length to put in afterwards.
pub(super) fn attribute_message(out: &mut Vec<u8>, field: u32, attribute: &KeyValue, scrub: bool) {
    let key = attribute.key.as_str();
    match &attribute.value {
        Value::String(text) => text_attribute(out, field, key, &shown(text.as_str(), scrub)),
        Value::Bool(b) => bool_attribute(out, field, key, *b),
        Value::I64(n) => i64_attribute(out, field, key, *n),
        Value::F64(n) => f64_attribute(out, field, key, *n),
        value => message(out, field, |out| key_value(out, key, value, scrub)),
    }
}

/// A `KeyValue` field `field` of text `text`, written as it is.
pub(super) fn text_attribute(out: &mut Vec<u8>, field: u32, key: &str, text: &str) {
    // The common case: every tag and length one byte, the key and the
    // text each copied once. Written here, not through `key_value_head`
    // and the text's own head: that way cost 5 500 instructions a
    // request more with export on (measured, docs/performance.md).
    let len = 2 + key.len() + 4 + text.len();
    if field < 16 && !key.is_empty() && len < 0x80 {
        out.reserve(2 + len);
        out.extend_from_slice(&[
            ((field as u8) << 3) | LEN,
            len as u8,
            (1 << 3) | LEN,
            key.len() as u8,
        ]);
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(&[
            (2 << 3) | LEN,
            2 + text.len() as u8,
            (1 << 3) | LEN,
            text.len() as u8,
        ]);
        out.extend_from_slice(text.as_bytes());
        return;
    }
    key_value_head(
        out,
        field,
        key,
        1 + varint_len(text.len() as u64) + text.len(),
    );
    tag(out, 1, LEN);
    varint(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// A `KeyValue` field `field` of a boolean.
pub(super) fn bool_attribute(out: &mut Vec<u8>, field: u32, key: &str, value: bool) {
    key_value_head(out, field, key, 2);
    tag(out, 2, VARINT);
    out.push(u8::from(value));
}

/// A `KeyValue` field `field` of a whole number.
pub(super) fn i64_attribute(out: &mut Vec<u8>, field: u32, key: &str, value: i64) {
    key_value_head(out, field, key, 1 + varint_len(value as u64));
    tag(out, 3, VARINT);
    varint(out, value as u64);
}

/// A `KeyValue` field `field` of a number with a fraction.
pub(super) fn f64_attribute(out: &mut Vec<u8>, field: u32, key: &str, value: f64) {
    key_value_head(out, field, key, 9);
    tag(out, 4, FIXED64);
    out.extend_from_slice(&value.to_bits().to_le_bytes());
}

/// The start of a `KeyValue` message field whose `AnyValue` has
/// `value_len` bytes: all of it but that value's content.
pub(super) fn key_value_head(out: &mut Vec<u8>, field: u32, key: &str, value_len: usize) {
    let key_len = if key.is_empty() {
        0
    } else {
        1 + varint_len(key.len() as u64) + key.len()
    };
    let len = key_len + 1 + varint_len(value_len as u64) + value_len;
    if field < 16 && len < 0x80 && key.len() < 0x80 && value_len < 0x80 && !key.is_empty() {
        // The common case: every tag and length one byte, written in
        // three copies.
        out.extend_from_slice(&[
            ((field as u8) << 3) | LEN,
            len as u8,
            (1 << 3) | LEN,
            key.len() as u8,
        ]);
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(&[(2 << 3) | LEN, value_len as u8]);
        return;
    }
    tag(out, field, LEN);
    varint(out, len as u64);
    string(out, 1, key);
    tag(out, 2, LEN);
    varint(out, value_len as u64);
}

/// How many bytes `value` takes as a varint.
pub(super) fn varint_len(value: u64) -> usize {
    let bits = u64::BITS - (value | 1).leading_zeros();
    bits.div_ceil(7) as usize
}

/// A `KeyValue` message's content; its texts scrubbed when `scrub`.
fn key_value(out: &mut Vec<u8>, key: &str, value: &Value, scrub: bool) {
    string(out, 1, key);
    message(out, 2, |out| any_value(out, value, scrub));
}

/// An `AnyValue` message's content.
fn any_value(out: &mut Vec<u8>, value: &Value, scrub: bool) {
    let text = |out: &mut Vec<u8>, text: &str| {
        let text = shown(text, scrub);
        // A member of a `oneof`: written even when empty.
        tag(out, 1, LEN);
        varint(out, text.len() as u64);
        out.extend_from_slice(text.as_bytes());
    };
    match value {
        Value::Bool(b) => {
            tag(out, 2, VARINT);
            varint(out, u64::from(*b));
        }
        Value::I64(n) => {
            tag(out, 3, VARINT);
            varint(out, *n as u64);
        }
        Value::F64(n) => {
            tag(out, 4, FIXED64);
            out.extend_from_slice(&n.to_bits().to_le_bytes());
        }
        Value::String(s) => text(out, s.as_str()),
        Value::Array(array) => message(out, 5, |out| match array {
            Array::Bool(values) => {
                for value in values {
                    message(out, 1, |out| any_value(out, &Value::Bool(*value), scrub));
                }
            }
            Array::I64(values) => {
                for value in values {
                    message(out, 1, |out| any_value(out, &Value::I64(*value), scrub));
                }
            }
            Array::F64(values) => {
                for value in values {
                    message(out, 1, |out| any_value(out, &Value::F64(*value), scrub));
                }
            }
            Array::String(values) => {
                for value in values {
                    message(out, 1, |out| text(out, value.as_str()));
                }
            }
            // Kinds of arrays this version does not have.
            _ => {}
        }),
        // Kinds of values this version does not have: as text.
        other => text(out, &other.as_str()),
    }
}

/// `text` scrubbed with the process's secrets when `scrub`, borrowed
/// when that changes nothing.
fn shown(text: &str, scrub: bool) -> Cow<'_, str> {
    if scrub {
        crate::secret::scrubbed(text)
    } else {
        Cow::Borrowed(text)
    }
}

pub(super) fn nanos(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[inline]
pub(super) fn tag(out: &mut Vec<u8>, field: u32, wire: u8) {
    varint(out, (u64::from(field) << 3) | u64::from(wire));
}

#[inline]
pub(super) fn varint(out: &mut Vec<u8>, value: u64) {
    if value < 0x80 {
        out.push(value as u8);
    } else {
        let mut bytes = [0u8; 10];
        let len = varint_into(&mut bytes, value);
        out.extend_from_slice(&bytes[..len]);
    }
}

/// Writes `value` as a varint at the start of `bytes`; how many bytes
/// it took.
fn varint_into(bytes: &mut [u8; 10], mut value: u64) -> usize {
    let mut len = 0;
    while value >= 0x80 {
        bytes[len] = (value as u8) | 0x80;
        value >>= 7;
        len += 1;
    }
    bytes[len] = value as u8;
    len + 1
}

/// A varint field, left out at zero as protobuf leaves out defaults.
pub(super) fn varint_field(out: &mut Vec<u8>, field: u32, value: u64) {
    if value != 0 {
        tag(out, field, VARINT);
        varint(out, value);
    }
}

pub(super) fn fixed64(out: &mut Vec<u8>, field: u32, value: u64) {
    if value != 0 {
        tag(out, field, FIXED64);
        out.extend_from_slice(&value.to_le_bytes());
    }
}

pub(super) fn fixed32(out: &mut Vec<u8>, field: u32, value: u32) {
    if value != 0 {
        tag(out, field, FIXED32);
        out.extend_from_slice(&value.to_le_bytes());
    }
}

/// A string field, left out when empty.
#[inline]
pub(super) fn string(out: &mut Vec<u8>, field: u32, value: &str) {
    bytes(out, field, value.as_bytes());
}

/// A bytes field, left out when empty.
#[inline(always)]
pub(super) fn bytes(out: &mut Vec<u8>, field: u32, value: &[u8]) {
    if !value.is_empty() {
        tag(out, field, LEN);
        varint(out, value.len() as u64);
        out.extend_from_slice(value);
    }
}

/// A message field whose content is most likely 128 to 16 383 bytes
/// long (a record's event): two bytes are kept for its length, so that
/// such a content is never moved; a shorter or longer one is moved once,
/// to be written as [`message`] writes it.
#[inline(always)]
pub(super) fn long_message(out: &mut Vec<u8>, field: u32, content: impl FnOnce(&mut Vec<u8>)) {
    tag(out, field, LEN);
    let at = out.len();
    out.extend_from_slice(&[0, 0]);
    content(out);
    let end = out.len();
    let len = end - at - 2;
    let mut prefix = [0u8; 10];
    let width = varint_into(&mut prefix, len as u64);
    match width {
        2 => {}
        1 => {
            out.copy_within(at + 2..end, at + 1);
            out.truncate(end - 1);
        }
        _ => {
            out.resize(end + width - 2, 0);
            out.copy_within(at + 2..end, at + width);
        }
    }
    out[at..at + width].copy_from_slice(&prefix[..width]);
}

/// A message field (always written, empty or not): its content written
/// by `content`, its length put before it once known.
pub(super) fn message(out: &mut Vec<u8>, field: u32, content: impl FnOnce(&mut Vec<u8>)) {
    tag(out, field, LEN);
    let at = out.len();
    // One byte for the length: enough for most messages (under 128
    // bytes); longer ones move their content by the bytes missing.
    out.push(0);
    content(out);
    let len = out.len() - at - 1;
    if len < 0x80 {
        out[at] = len as u8;
    } else {
        let mut prefix = [0u8; 10];
        let width = varint_into(&mut prefix, len as u64);
        let end = out.len();
        out.resize(end + width - 1, 0);
        out.copy_within(at + 1..end, at + width);
        out[at..at + width].copy_from_slice(&prefix[..width]);
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use opentelemetry::trace::{Event, Link, SpanContext, TraceFlags, TraceId, TraceState};
    use opentelemetry::StringValue;
    use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
    use opentelemetry_proto::transform::trace::tonic::group_spans_by_resource_and_scope;
    use prost::Message as _;

    /// Both bodies decoded, then as bytes: the same.
    pub(in crate::otel) fn same(mine: &[u8], official: &[u8]) {
        use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
        let decoded =
            |body: &[u8]| format!("{:#?}", ExportTraceServiceRequest::decode(body).unwrap());
        assert_eq!(decoded(mine), decoded(official));
        assert!(mine == official, "the same messages, written otherwise");
    }

    /// What the OTLP exporter sends for `spans`, after the export's own
    /// scrubbing and once-each of attributes.
    pub(in crate::otel) fn official(spans: &[SpanData], resource: &Resource) -> Vec<u8> {
        use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
        let mut spans = spans.to_vec();
        for span in &mut spans {
            crate::otel::export::tests::once_each(&mut span.attributes);
            crate::otel::scrub::tests::span(span);
        }
        ExportTraceServiceRequest {
            resource_spans: group_spans_by_resource_and_scope(
                spans,
                &ResourceAttributesWithSchema::from(resource),
            ),
        }
        .encode_to_vec()
    }

    pub(in crate::otel) fn finished(spans: &[SpanData]) -> Vec<Finished> {
        spans
            .iter()
            .map(|span| Finished::Sdk(Box::new(span.clone())))
            .collect()
    }

    fn spans() -> Vec<SpanData> {
        let secret = crate::secret::Secret::new("canary-encode-5e0c1b");
        let mut server = crate::otel::export::tests::span();
        server.span_context = SpanContext::new(
            TraceId::from(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef),
            SpanId::from(0x1122_3344_5566_7788),
            TraceFlags::SAMPLED,
            false,
            TraceState::from_key_value([("k", "v")]).unwrap(),
        );
        server.parent_span_id = SpanId::from(0x99);
        server.parent_span_is_remote = true;
        server.name = format!("f {}", secret.expose()).into();
        server.attributes = vec![
            KeyValue::new("faas.name", "f"),
            KeyValue::new("error.type", "function"),
            KeyValue::new("http.response.status_code", 500_i64),
            KeyValue::new("negative", -3_i64),
            KeyValue::new("ratio", 0.25),
            KeyValue::new("flag", false),
            KeyValue::new("empty", ""),
            KeyValue::new("url.full", "https://ops:pw@x.example/?token=t&keep=1"),
            KeyValue::new("error.type", "timeout"),
            KeyValue::new(
                "list",
                Value::Array(Array::String(vec![
                    StringValue::from(secret.expose().to_owned()),
                    StringValue::from("plain"),
                ])),
            ),
            KeyValue::new("ints", Value::Array(Array::I64(vec![1, -1]))),
            KeyValue::new("floats", Value::Array(Array::F64(vec![1.5]))),
            KeyValue::new("bools", Value::Array(Array::Bool(vec![true, false]))),
            KeyValue::new("long", "x".repeat(300)),
            KeyValue::new("", "no key"),
            KeyValue::new("k".repeat(130), 1_i64),
        ];
        server.dropped_attributes_count = 2;
        server.events.events.push(Event::new(
            "validation",
            SystemTime::now(),
            vec![
                KeyValue::new("message", format!("key {}", secret.expose())),
                KeyValue::new("count", 3_i64),
            ],
            1,
        ));
        server
            .events
            .events
            .push(Event::new("end", SystemTime::now(), vec![], 0));
        server.events.dropped_count = 4;
        server.links.links.push(Link::new(
            SpanContext::new(
                TraceId::from(7),
                SpanId::from(8),
                TraceFlags::default(),
                true,
                TraceState::default(),
            ),
            vec![KeyValue::new("a", "b")],
            1,
        ));
        server.status = Status::error(format!("failed: {}", secret.expose()));
        let mut client = crate::otel::export::tests::span();
        client.span_kind = SpanKind::Client;
        client.status = Status::Ok;
        client.instrumentation_scope = InstrumentationScope::builder("other")
            .with_version("1.2")
            .with_schema_url("https://schema.example/1")
            .with_attributes([KeyValue::new("scope.key", 1_i64)])
            .build();
        // A URL with nothing to hide, and one with credentials: only the
        // second is changed.
        let mut plain_url = crate::otel::export::tests::span();
        plain_url.attributes = vec![KeyValue::new("url.full", "https://x.example/a?b=1")];
        let mut credentials = crate::otel::export::tests::span();
        credentials.events.events.push(Event::new(
            "api_error",
            SystemTime::now(),
            vec![KeyValue::new("url", "at\nhttp://u:p@h.example/x")],
            0,
        ));
        drop(secret);
        vec![server, client, plain_url, credentials]
    }

    #[test]
    fn a_batch_is_written_as_the_otlp_exporter_writes_it() {
        let resource = Resource::builder_empty()
            .with_attributes([
                KeyValue::new("service.name", "contact-center"),
                KeyValue::new("host.cores", 2_i64),
            ])
            .with_schema_url([], "https://schema.example/r")
            .build();
        let spans = spans();
        let mut body = Vec::new();
        Encoder::new(&resource).encode(&finished(&spans), &mut body);
        same(&body, &official(&spans, &resource));
        let text = String::from_utf8_lossy(&body);
        assert!(!text.contains("canary-encode-5e0c1b"), "{text}");
        assert!(text.contains("https://[REDACTED]@x.example/?token=[REDACTED]&keep=1"));
        assert!(text.contains("at\nhttp://[REDACTED]@h.example/x"), "{text}");
        assert!(text.contains("https://x.example/a?b=1"), "{text}");
    }

    /// Spans ccfn wrote and spans of the SDK, of one scope and of
    /// another, are written in one batch as the exporter writes them all:
    /// grouped by scope in the order scopes first appear, in order within.
    #[test]
    fn written_and_sdk_spans_are_grouped_as_the_exporter_groups_them() {
        let resource = Resource::builder_empty()
            .with_attributes([KeyValue::new("service.name", "contact-center")])
            .build();
        let of_ccfn = |name: &str| {
            let mut span = crate::otel::export::tests::span();
            span.name = name.to_owned().into();
            span.instrumentation_scope = scope();
            span
        };
        let mut other = crate::otel::export::tests::span();
        other.instrumentation_scope = InstrumentationScope::builder("other").build();
        // Two of ccfn's spans as its server spans come: written already,
        // in two parts.
        let written = |span: &SpanData| {
            let mut bytes = Vec::new();
            write_span(&mut bytes, span, false);
            let rest = bytes.split_off(bytes.len() / 2);
            Finished::Written(bytes, rest)
        };
        let (first, last) = (of_ccfn("first"), of_ccfn("last"));
        // Long enough for lengths of two and three bytes.
        let mut long = of_ccfn("long");
        long.attributes = vec![KeyValue::new("text", "x".repeat(20_000))];
        let client = of_ccfn("client");
        let batch = [
            written(&first),
            Finished::Sdk(Box::new(client.clone())),
            Finished::Sdk(Box::new(other.clone())),
            written(&long),
            written(&last),
        ];
        let mut body = Vec::new();
        Encoder::new(&resource).encode(&batch, &mut body);
        let all = [first, client, other, long, last];
        same(&body, &official(&all, &resource));
    }

    #[test]
    fn a_long_message_is_written_as_any_message() {
        for len in [0, 1, 127, 128, 300, 16_383, 16_384, 70_000] {
            let content = vec![7u8; len];
            let (mut short, mut long) = (vec![1], vec![1]);
            message(&mut short, 11, |out| out.extend_from_slice(&content));
            long_message(&mut long, 11, |out| out.extend_from_slice(&content));
            assert!(short == long, "{len}");
        }
    }

    #[test]
    fn varint_lengths() {
        for value in [
            0_u64,
            1,
            127,
            128,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut out = Vec::new();
            varint(&mut out, value);
            assert_eq!(varint_len(value), out.len(), "{value}");
        }
    }

    #[test]
    fn a_large_batch_has_long_lengths() {
        let resource = Resource::builder_empty().build();
        let spans: Vec<SpanData> = std::iter::repeat_with(crate::otel::export::tests::span)
            .take(300)
            .collect();
        let mut body = Vec::new();
        Encoder::new(&resource).encode(&finished(&spans), &mut body);
        assert!(body.len() > 16_384);
        same(&body, &official(&spans, &resource));
    }
}
