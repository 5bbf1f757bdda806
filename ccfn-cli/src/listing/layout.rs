//! The columns and fields of each listing: a header, and how to read its
//! cell from the item.

use super::*;

/// Columns of a listing: a header and how to read its cell from the item.
pub(super) type Columns<T> = &'static [(&'static str, fn(&T) -> String)];

/// A nullable text field's cell: `-` when null or empty.
pub(super) fn opt(field: &Option<String>) -> String {
    text(field).unwrap_or("-").to_owned()
}

/// A nullable field's cell, as JSON text when it is not text.
pub(super) fn shown<V: std::fmt::Display>(field: &Option<V>) -> String {
    field
        .as_ref()
        .map_or_else(|| "-".to_owned(), ToString::to_string)
}

/// A list of JSON values' cell: `-` when null.
pub(super) fn list(field: &Option<Vec<Value>>) -> String {
    field.as_ref().map_or_else(
        || "-".to_owned(),
        |items| Value::Array(items.clone()).to_string(),
    )
}

pub(super) const CALL_COLUMNS: Columns<Call> = &[
    ("SID", |c| opt(&c.sid)),
    ("STATUS", |c| c.status.clone()),
    ("DIRECTION", |c| opt(&c.direction)),
    ("FROM", |c| opt(&c.from)),
    ("TO", |c| opt(&c.to)),
    ("START", |c| opt(&c.start_time)),
    ("DURATION", |c| opt(&c.duration)),
];

pub(super) const CALL_FIELDS: Columns<Call> = &[
    ("SID", |c| opt(&c.sid)),
    ("Status", |c| c.status.clone()),
    ("Direction", |c| opt(&c.direction)),
    ("From", |c| opt(&c.from)),
    ("To", |c| opt(&c.to)),
    ("Started", |c| opt(&c.start_time)),
    ("Ended", |c| opt(&c.end_time)),
    ("Duration", |c| opt(&c.duration)),
    ("Answered by", |c| opt(&c.answered_by)),
    ("Parent", |c| opt(&c.parent_call_sid)),
];

pub(super) const ANNOTATION_FIELDS: Columns<Annotation> = &[
    ("Answered by", |a| a.answered_by.clone()),
    ("Quality", |a| shown(&a.call_score)),
    ("Issues", |a| list(&a.quality_issues)),
    ("Spam", |a| shown(&a.spam)),
    ("Comment", |a| opt(&a.comment)),
    ("Incident", |a| opt(&a.incident)),
];

pub(super) const RECORDING_COLUMNS: Columns<Recording> = &[
    ("SID", |r| opt(&r.sid)),
    ("STATUS", |r| r.status.clone()),
    ("DURATION", |r| opt(&r.duration)),
    ("CREATED", |r| opt(&r.date_created)),
];

pub(super) const EVENT_COLUMNS: Columns<Event> = &[
    ("URL", |e| e.url().unwrap_or("-").to_owned()),
    ("STATUS", |e| shown(&e.response_code())),
    ("TOOK (ms)", |e| shown(&e.request_duration())),
];

pub(super) const TASK_FIELDS: Columns<Task> = &[
    ("SID", |t| opt(&t.sid)),
    ("Status", |t| t.assignment_status.clone()),
    ("Reason", |t| opt(&t.reason)),
    ("Workflow", |t| opt(&t.workflow_sid)),
    ("Workflow name", |t| opt(&t.workflow_friendly_name)),
    ("Queue", |t| opt(&t.task_queue_sid)),
    ("Queue name", |t| opt(&t.task_queue_friendly_name)),
    ("Priority", |t| t.priority.to_string()),
    ("Age (s)", |t| t.age.to_string()),
    ("Timeout (s)", |t| t.timeout.to_string()),
    ("Created", |t| opt(&t.date_created)),
    ("Attributes", |t| opt(&t.attributes)),
];

pub(super) const WORKFLOW_COLUMNS: Columns<Workflow> = &[
    ("SID", |w| opt(&w.sid)),
    ("NAME", |w| opt(&w.friendly_name)),
    ("ROUTES TO", routes_to),
    ("UPDATED", |w| opt(&w.date_updated)),
];

pub(super) const QUEUE_COLUMNS: Columns<TaskQueue> = &[
    ("SID", |q| opt(&q.sid)),
    ("NAME", |q| opt(&q.friendly_name)),
    ("TARGET WORKERS", |q| opt(&q.target_workers)),
    ("ORDER", |q| q.task_order.clone()),
];

pub(super) const FLOW_COLUMNS: Columns<Flow> = &[
    ("SID", |f| opt(&f.sid)),
    ("NAME", |f| opt(&f.friendly_name)),
    ("STATUS", |f| f.status.clone()),
    ("VALID", |f| shown(&f.valid)),
    ("REVISION", |f| f.revision.to_string()),
    ("UPDATED", |f| opt(&f.date_updated)),
];

pub(super) const FLOW_FIELDS: Columns<Flow> = &[
    ("SID", |f| opt(&f.sid)),
    ("Name", |f| opt(&f.friendly_name)),
    ("Status", |f| f.status.clone()),
    ("Valid", |f| shown(&f.valid)),
    ("Errors", |f| list(&f.errors)),
    ("Warnings", |f| list(&f.warnings)),
    ("Revision", |f| f.revision.to_string()),
    ("Webhook URL", |f| opt(&f.webhook_url)),
    ("Updated", |f| opt(&f.date_updated)),
];

pub(super) const EXECUTION_COLUMNS: Columns<Execution> = &[
    ("SID", |e| opt(&e.sid)),
    ("STATUS", |e| e.status.clone()),
    ("CONTACT", |e| opt(&e.contact_channel_address)),
    ("CREATED", |e| opt(&e.date_created)),
];

pub(super) const EXECUTION_FIELDS: Columns<Execution> = &[
    ("SID", |e| opt(&e.sid)),
    ("Flow", |e| opt(&e.flow_sid)),
    ("Status", |e| e.status.clone()),
    ("Contact", |e| opt(&e.contact_channel_address)),
    ("Created", |e| opt(&e.date_created)),
    ("Updated", |e| opt(&e.date_updated)),
];

/// A step's `name` is the event that moved the execution on; the widgets
/// are `transitioned_from` and `transitioned_to`.
pub(super) const STEP_COLUMNS: Columns<Step> = &[
    ("SID", |s| opt(&s.sid)),
    ("EVENT", |s| opt(&s.name)),
    ("FROM", |s| opt(&s.transitioned_from)),
    ("TO", |s| opt(&s.transitioned_to)),
    ("CREATED", |s| opt(&s.date_created)),
];

pub(super) const NUMBER_COLUMNS: Columns<IncomingNumber> = &[
    ("NUMBER", |n| opt(&n.phone_number)),
    ("SID", |n| opt(&n.sid)),
    ("NAME", |n| opt(&n.friendly_name)),
    ("ANSWERED BY", IncomingNumber::handler),
];

pub(super) const SERVICE_COLUMNS: Columns<Service> = &[
    ("SID", |s| opt(&s.sid)),
    ("UNIQUE NAME", |s| opt(&s.unique_name)),
    ("NAME", |s| opt(&s.friendly_name)),
];

pub(super) const FUNCTION_COLUMNS: Columns<Function> = &[
    ("SID", |f| opt(&f.sid)),
    ("NAME", |f| opt(&f.friendly_name)),
    ("UPDATED", |f| opt(&f.date_updated)),
];

pub(super) const ENVIRONMENT_COLUMNS: Columns<Environment> = &[
    ("SID", |e| opt(&e.sid)),
    ("UNIQUE NAME", |e| opt(&e.unique_name)),
    ("DOMAIN", |e| opt(&e.domain_name)),
    ("BUILD", |e| opt(&e.build_sid)),
];

pub(super) const LOG_COLUMNS: Columns<Log> = &[
    ("TIME", |l| opt(&l.date_created)),
    ("LEVEL", |l| opt(&l.level)),
    ("FUNCTION", |l| opt(&l.function_sid)),
    ("MESSAGE", |l| opt(&l.message)),
];

pub(super) const ACCOUNT_FIELDS: Columns<Account> = &[
    ("SID", |a| opt(&a.sid)),
    ("Name", |a| opt(&a.friendly_name)),
    ("Status", |a| a.status.clone()),
    ("Type", |a| a.kind.clone()),
    ("Owner", |a| opt(&a.owner_account_sid)),
    ("Created", |a| opt(&a.date_created)),
];

pub(super) const USAGE_COLUMNS: Columns<UsageRecord> = &[
    ("CATEGORY", |u| opt(&u.category)),
    ("USAGE", |u| opt(&u.usage)),
    ("UNIT", |u| opt(&u.usage_unit)),
    ("PRICE", |u| shown(&u.price)),
    ("FROM", |u| opt(&u.start_date)),
    ("TO", |u| opt(&u.end_date)),
];

pub(super) const APP_COLUMNS: Columns<Application> = &[
    ("SID", |a| opt(&a.sid)),
    ("NAME", |a| opt(&a.friendly_name)),
    ("VOICE URL", |a| opt(&a.voice_url)),
    ("METHOD", |a| opt(&a.voice_method)),
];

pub(super) const KEY_COLUMNS: Columns<Key> = &[
    ("SID", |k| opt(&k.sid)),
    ("NAME", |k| opt(&k.friendly_name)),
    ("CREATED", |k| opt(&k.date_created)),
];

pub(super) const ALERT_COLUMNS: Columns<Alert> = &[
    ("TIME", |a| opt(&a.date_created)),
    ("LEVEL", |a| opt(&a.log_level)),
    ("CODE", |a| opt(&a.error_code)),
    ("RESOURCE", |a| opt(&a.resource_sid)),
    ("TEXT", |a| opt(&a.alert_text)),
];

pub(super) const TASK_COLUMNS: Columns<Task> = &[
    ("SID", |t| opt(&t.sid)),
    ("STATUS", |t| t.assignment_status.clone()),
    ("WORKFLOW", |t| opt(&t.workflow_sid)),
    ("QUEUE", |t| opt(&t.task_queue_sid)),
    ("AGE (s)", |t| t.age.to_string()),
    ("CREATED", |t| opt(&t.date_created)),
];
