//! Records kept as values: what a test reads back, built from each
//! record's typed fields (never parsed from a line), scrubbed as the
//! lines are.

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};

use super::entry::{Entry, LAMBDA_KEYS};
use super::layer::{Lines, Sink};
use crate::secret::scrub;

/// The records a [`ContractLayer`](super::ContractLayer) hands it
/// ([`ContractLayer::capture`](super::ContractLayer::capture)), each as
/// the JSON object its JSON line holds, made from its fields as they were
/// emitted, with every secret value scrubbed as in the lines. Cheap to
/// clone: clones share the records.
///
/// ```
/// use ccfn_core::record::{Captured, ContractLayer, LogFormat};
/// use tracing_subscriber::layer::SubscriberExt as _;
///
/// let captured = Captured::default();
/// let layer = ContractLayer::new(LogFormat::Json, std::io::sink).capture(&captured);
/// tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
///     tracing::info!(answered = 3, "calls answered");
/// });
/// let records = captured.records();
/// assert_eq!(records[0]["step"], "log");
/// assert_eq!(records[0]["answered"], 3);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Captured(Arc<Mutex<Vec<Map<String, Value>>>>);

impl super::layer::ContractLayer {
    /// Keeps every record in `captured` too, as a value (what a test
    /// reads back).
    #[must_use]
    pub fn capture(self, captured: &Captured) -> Self {
        self.with_sink(captured.sink())
    }
}

impl Captured {
    /// The records captured so far, in the order they were written.
    #[must_use]
    pub fn records(&self) -> Vec<Map<String, Value>> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The sink that fills it.
    fn sink(&self) -> Box<dyn Sink> {
        Box::new(self.clone())
    }
}

/// `value` with every text in it, object keys included, scrubbed.
fn scrubbed(mut value: Value, also: &[Box<str>]) -> Value {
    match &mut value {
        Value::String(text) => {
            scrub(text, also);
        }
        Value::Array(items) => {
            for item in items {
                *item = scrubbed(std::mem::take(item), also);
            }
        }
        Value::Object(members) => {
            let taken = std::mem::take(members);
            for (mut key, member) in taken {
                scrub(&mut key, also);
                members.insert(key, scrubbed(member, also));
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
    value
}

impl Sink for Captured {
    fn take(&self, entry: &Entry<'_>, _lines: &mut Lines) {
        let also = entry.identity.secrets();
        let mut record = Map::new();
        let mut put = |key: &str, value: Value| {
            let mut key = key.to_owned();
            scrub(&mut key, also);
            record.insert(key, scrubbed(value, also));
        };
        put("timestamp", Value::from(entry.timestamp));
        put("level", Value::from(entry.level));
        let identity = &entry.identity;
        if let Some(function) = identity.function {
            put("function", Value::from(function));
        }
        if let Some(id) = identity.invocation_id {
            put("invocation_id", Value::from(id));
        }
        if let Some(call_sid) = identity.call_sid.filter(|_| !entry.own_call_sid) {
            put("call_sid", Value::from(call_sid));
        }
        if let Some(lambda) = identity.lambda {
            put(LAMBDA_KEYS[0], Value::from(lambda.request_id.as_str()));
            put(LAMBDA_KEYS[1], Value::from(lambda.cold_start));
        }
        put("step", Value::from(entry.step));
        put("message", Value::from(entry.message));
        entry
            .fields
            .each(&mut |name, value| put(name, value.to_value()));
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(record);
    }
}
