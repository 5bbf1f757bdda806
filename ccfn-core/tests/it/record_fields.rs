//! A record's fields are on its `tracing` event: any layer, not only
//! ccfn's writer, receives every one of them, scrubbed as in the lines.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use ccfn_core::record;
use ccfn_core::taskrouter::{NewTask, TaskStore};
use ccfn_core::Secret;
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::Layer;

type Events = Arc<Mutex<Vec<BTreeMap<String, String>>>>;

/// Keeps every field of every event, as text.
struct Capture(Events);

struct Fields(BTreeMap<String, String>);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let mut fields = Fields(BTreeMap::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }
}

#[test]
fn another_layer_receives_every_field_of_a_task_attributes_record() {
    let secret = Secret::new("record-fields-canary-8e2d");
    let events = Events::default();
    let subscriber = tracing_subscriber::registry().with(Capture(Arc::clone(&events)));
    let dir = std::env::temp_dir().join(format!("ccfn-record-fields-{}", std::process::id()));
    let store = TaskStore::new(dir.join("tasks.jsonl"));
    let attributes = json!({
        "type": "callback",
        "from": "+15551230000",
        "note": format!("pasted {}", secret.expose()),
    });
    tracing::subscriber::with_default(subscriber, || {
        store
            .create_task(&NewTask::new(
                "WW0123456789abcdef0123456789abcdef",
                attributes,
            ))
            .unwrap();
    });
    let _ = std::fs::remove_dir_all(&dir);

    let events = events.lock().unwrap();
    let task_attributes = events
        .iter()
        .find(|fields| fields.get("step").map(String::as_str) == Some("task_attributes"))
        .expect("a task_attributes event");
    for field in record::step("task_attributes").unwrap().fields() {
        assert!(
            task_attributes.contains_key(*field),
            "no `{field}`: {task_attributes:?}"
        );
    }
    assert_eq!(
        task_attributes["attributes"],
        r#"{"type":"callback","from":"+15551230000","note":"pasted [REDACTED]"}"#
    );
    assert_eq!(task_attributes["message"], "Task attributes");
    // Every record of the call carries the fields of its step, scrubbed.
    for fields in events.iter() {
        let Some(step) = fields.get("step").and_then(|name| record::step(name)) else {
            continue;
        };
        for field in step.fields() {
            assert!(
                fields.contains_key(*field),
                "`{}` lacks `{field}`: {fields:?}",
                step.name()
            );
        }
        assert!(
            fields
                .values()
                .all(|value| !value.contains(secret.expose())),
            "{fields:?}"
        );
    }
    let critical = events
        .iter()
        .find(|fields| fields.get("step").map(String::as_str) == Some("critical"))
        .expect("the critical event");
    assert_eq!(
        critical["workflow_sid"],
        "WW0123456789abcdef0123456789abcdef"
    );
}

/// Beside ccfn's own layer, which receives each record directly, another
/// layer still receives the record's event with every field; each record
/// is written once, and the JSON line and the captured value agree.
#[test]
fn beside_the_contract_layer_another_layer_still_receives_every_record() {
    let events = Events::default();
    let lines = ccfn_testkit::LogBuffer::default();
    let captured = record::Captured::default();
    let subscriber = tracing_subscriber::registry()
        .with(record::ContractLayer::new(record::LogFormat::Json, lines.clone()).capture(&captured))
        .with(Capture(Arc::clone(&events)));
    let dir = std::env::temp_dir().join(format!("ccfn-record-beside-{}", std::process::id()));
    let store = TaskStore::new(dir.join("tasks.jsonl"));
    tracing::subscriber::with_default(subscriber, || {
        store
            .create_task(&NewTask::new(
                "WW0123456789abcdef0123456789abcdef",
                json!({"type": "callback"}),
            ))
            .unwrap();
    });
    let _ = std::fs::remove_dir_all(&dir);

    let steps = |records: &[serde_json::Map<String, serde_json::Value>]| -> Vec<String> {
        records
            .iter()
            .map(|record| record["step"].as_str().unwrap().to_owned())
            .collect()
    };
    let written: Vec<_> = lines
        .contents()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(
        written,
        captured.records(),
        "each line is its captured record"
    );
    let seen: Vec<String> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|fields| fields.get("step").cloned())
        .collect();
    assert_eq!(
        seen,
        steps(&written),
        "the other layer sees every record once"
    );
    assert!(seen.contains(&"task_attributes".to_owned()), "{seen:?}");
}

/// A record's fields are written once, as JSON members, and copied into
/// its line after the header: so no field may be named like a header
/// member (`call_sid` excepted: a record's own takes the header's place),
/// and every name must be plain, needing no escaping.
#[test]
fn no_step_field_shadows_the_header_and_every_name_is_plain() {
    for step in ccfn_core::record::ALL {
        for field in step.fields().iter().chain(step.optional()) {
            assert!(
                *field == "call_sid" || !ccfn_core::record::COMMON_FIELDS.contains(field),
                "{}: field {field} shadows the header",
                step.name()
            );
            assert!(
                field
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{}: field {field:?} is not a plain name",
                step.name()
            );
        }
    }
}

/// Every field the snapshot redactions replace is a field of the
/// catalogue: a renamed field cannot silently stop being redacted.
#[test]
fn every_varying_field_is_a_field_of_the_catalogue() {
    use ccfn_core::record::{ALL, COMMON_FIELDS, VARYING_FIELDS};
    for (field, placeholder) in VARYING_FIELDS {
        let known = COMMON_FIELDS.contains(&field)
            || ALL
                .iter()
                .any(|step| step.fields().contains(&field) || step.optional().contains(&field));
        assert!(known, "{field} is in no step of the catalogue");
        assert!(placeholder.starts_with('[') && placeholder.ends_with(']'));
    }
}
