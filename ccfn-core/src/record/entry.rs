//! One record as every sink receives it: what every record has (the
//! time, the level, who wrote it, the step and the message) and its own
//! fields, typed.

use super::scope::{Invocation, OnLambda};
use super::value::Fields;

/// No values to scrub beyond the registered secrets.
const NONE: &[Box<str>] = &[];

/// Who wrote a record: the function, the invocation and the call, and on
/// AWS Lambda the platform's request.
#[derive(Clone, Copy, Default)]
pub(crate) struct Identity<'a> {
    pub(crate) function: Option<&'a str>,
    pub(crate) invocation_id: Option<&'a str>,
    pub(crate) call_sid: Option<&'a str>,
    /// The Lambda invocation served, on Lambda.
    pub(crate) lambda: Option<&'a OnLambda>,
    /// The invocation the four above come from, if any: it keeps them
    /// written as JSON, and the values its lines must not show.
    pub(crate) invocation: Option<&'a Invocation>,
}

impl<'a> Identity<'a> {
    /// The identity of `invocation`'s records; none outside one.
    pub(crate) fn of(invocation: Option<&'a Invocation>) -> Self {
        invocation.map_or_else(Identity::default, |invocation| Identity {
            function: Some(&invocation.function),
            invocation_id: Some(invocation.invocation_id.as_str()),
            call_sid: invocation.call_sid.as_deref(),
            lambda: invocation.lambda.as_ref(),
            invocation: Some(invocation),
        })
    }

    /// The values scrubbed from its lines beyond the registered secrets.
    pub(crate) fn secrets(&self) -> &'a [Box<str>] {
        self.invocation
            .map_or(NONE, |invocation| &invocation.secrets)
    }
}

/// A record's message, and whether it is known to need no escaping in a
/// JSON line: ccfn's own fixed text, checked when it is compiled (see
/// [`Message::fixed`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Message<'a> {
    pub(crate) text: &'a str,
    pub(crate) plain: bool,
}

impl Message<'static> {
    /// A fixed message, which must need no escaping in JSON: no control
    /// character, quote or backslash. In a constant, a message that does
    /// is a compile error.
    pub(crate) const fn fixed(text: &'static str) -> Self {
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let byte = bytes[at];
            assert!(
                byte >= 0x20 && byte != b'"' && byte != b'\\',
                "a fixed message needs no escaping in JSON"
            );
            at += 1;
        }
        Message { text, plain: true }
    }
}

impl<'a> From<&'a str> for Message<'a> {
    fn from(text: &'a str) -> Self {
        Message { text, plain: false }
    }
}

/// One record, as every sink receives it: what every record has, and its
/// own fields, typed.
pub(crate) struct Entry<'a> {
    pub(crate) timestamp: &'a str,
    /// The same time in nanoseconds since the Unix epoch, from the same
    /// reading of the clock; 0 when not known (a record read back, a
    /// held line written again later). Read by OpenTelemetry's sink.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    pub(crate) unix_nanos: u64,
    pub(crate) level: &'a str,
    pub(crate) identity: Identity<'a>,
    pub(crate) step: &'a str,
    pub(crate) message: &'a str,
    pub(crate) fields: &'a dyn Fields,
    /// Whether one of its fields is `call_sid`, which then takes the
    /// invocation's place (a `caller` record).
    pub(crate) own_call_sid: bool,
    /// Whether its time, level and step are ccfn's own text (its clock's,
    /// `tracing`'s level, a catalogue step), which needs no escaping in
    /// JSON; not so for a record read back.
    pub(crate) plain_header: bool,
    /// Its JSON line's pieces made before it, when they are.
    pub(crate) json: JsonHead<'a>,
}

/// A plain header's JSON pieces made before the record, each empty when
/// not: how the line opens with its time (`{"timestamp":"…`), and its
/// step and the message's key (`,"step":"…","message":`); and whether
/// its message is known to need no escaping (see
/// [`Message::fixed`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct JsonHead<'a> {
    pub(crate) opening: &'a str,
    pub(crate) step: &'a str,
    pub(crate) plain_message: bool,
}

#[cfg(test)]
impl<'a> Entry<'a> {
    /// A handler's `log` record at `timestamp`, at level `INFO`, for a
    /// test; `plain_header` as for ccfn's own records.
    pub(crate) fn log(
        timestamp: &'a str,
        identity: Identity<'a>,
        message: &'a str,
        fields: &'a dyn Fields,
        plain_header: bool,
    ) -> Self {
        Entry {
            timestamp,
            unix_nanos: 0,
            level: "INFO",
            identity,
            step: "log",
            message,
            fields,
            own_call_sid: false,
            plain_header,
            json: JsonHead::default(),
        }
    }
}

/// The fields a record has when its invocation runs on AWS Lambda.
pub(crate) const LAMBDA_KEYS: [&str; 2] = ["function_request_id", "cold_start"];
