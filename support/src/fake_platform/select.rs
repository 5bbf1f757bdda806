//! Which items of a list a request's query keeps, and in which order, as
//! each parameter's description in the definitions says.

use serde_json::Value;

use super::definitions;

/// Now, in seconds since 1970-01-01T00:00:00Z.
pub(super) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
        })
}

const DAY: i64 = 86_400;

/// A test an item passes or not.
type Keep = Box<dyn Fn(&Value) -> bool>;

/// The items of the list `operation` that the request's `query` keeps, in
/// the order the platform gives them, or the message of the platform's
/// 400 (code 20001, an invalid parameter).
///
/// Only the parameters the definitions give the operation filter or
/// order, each as its description says. A parameter the operation does
/// not have is ignored, as the platform does: neither the definitions
/// nor the platform's documentation give an error for one (the request
/// checker, [`FakePlatform::unconforming_requests`](super::FakePlatform::unconforming_requests),
/// reports it).
pub(super) fn select<'a>(
    operation: &str,
    items: &'a [Value],
    query: &[(String, String)],
    now: i64,
) -> Result<Vec<&'a Value>, String> {
    let mut f = Filters {
        query,
        keeps: Vec::new(),
    };
    match operation {
        "ListCall" => calls(&mut f)?,
        "ListCallRecording" => recordings(&mut f)?,
        "ListIncomingPhoneNumber" => phone_numbers(&mut f)?,
        "ListUsageRecord" => usage_records(&mut f, now)?,
        "ListApplication" | "ListWorkflow" | "ListWorkspace" => friendly_name(&mut f)?,
        "ListAlert" => alerts(&mut f, now)?,
        "ListLog" => logs(&mut f, now)?,
        "ListExecution" => executions(&mut f)?,
        "ListTask" => tasks(&mut f)?,
        "ListTaskQueue" => task_queues(&mut f)?,
        // The other lists have no parameter but paging.
        _ => {}
    }
    let mut kept: Vec<&Value> = items
        .iter()
        .filter(|item| f.keeps.iter().all(|keep| keep(item)))
        .collect();
    if operation == "ListTask" {
        let order = task_order(f.first("Ordering").as_deref().unwrap_or("DateCreated:asc"))?;
        kept.sort_by(|a, b| {
            order
                .iter()
                .map(|(field, descending)| {
                    let ordering = compare(&a[*field], &b[*field]);
                    if *descending {
                        ordering.reverse()
                    } else {
                        ordering
                    }
                })
                .find(|ordering| ordering.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    }
    Ok(kept)
}

/// A request's query, and the tests its parameters make of a list's
/// items.
struct Filters<'q> {
    query: &'q [(String, String)],
    keeps: Vec<Keep>,
}

impl Filters<'_> {
    /// Every value of parameter `name`.
    fn values(&self, name: &str) -> Vec<String> {
        self.query
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The first value of parameter `name`.
    fn first(&self, name: &str) -> Option<String> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    /// Keeps the items whose `field` is parameter `name`'s value, when
    /// given.
    fn equal(&mut self, name: &str, field: &'static str) {
        if let Some(value) = self.first(name) {
            self.keeps
                .push(Box::new(move |item| same(&item[field], &value)));
        }
    }
}

/// The instant of parameter `name`'s `value`, or the platform's message.
fn bound(name: &str, value: &str) -> Result<i64, String> {
    definitions::instant(value).ok_or_else(|| format!("Invalid {name}: {value}"))
}

/// The filters of the calls' parameters.
fn calls(f: &mut Filters<'_>) -> Result<(), String> {
    f.equal("To", "to");
    f.equal("From", "from");
    f.equal("ParentCallSid", "parent_call_sid");
    f.equal("Status", "status");
    for (param, field) in [("StartTime", "start_time"), ("EndTime", "end_time")] {
        // "on this date", "on or after this date", "before this
        // date": a day (a date-time's day), from its midnight UTC.
        if let Some(value) = f.first(param) {
            let day = bound(param, &value)?.div_euclid(DAY) * DAY;
            f.keeps.push(at(field, move |t| t >= day && t < day + DAY));
        }
        if let Some(value) = f.first(&format!("{param}>")) {
            let day = bound(param, &value)?.div_euclid(DAY) * DAY;
            f.keeps.push(at(field, move |t| t >= day));
        }
        if let Some(value) = f.first(&format!("{param}<")) {
            let day = bound(param, &value)?.div_euclid(DAY) * DAY;
            f.keeps.push(at(field, move |t| t < day));
        }
    }
    Ok(())
}

/// The filters of a call's recordings' parameters.
fn recordings(f: &mut Filters<'_>) -> Result<(), String> {
    // `DateCreated=` the day; `DateCreated<=` "at or before
    // midnight on a given date", `DateCreated>=` "at or after
    // midnight on a date": that day's midnight, inclusive.
    if let Some(value) = f.first("DateCreated") {
        let day = bound("DateCreated", &value)?;
        f.keeps
            .push(at("date_created", move |t| t >= day && t < day + DAY));
    }
    if let Some(value) = f.first("DateCreated<") {
        let midnight = bound("DateCreated", &value)?;
        f.keeps.push(at("date_created", move |t| t <= midnight));
    }
    if let Some(value) = f.first("DateCreated>") {
        let midnight = bound("DateCreated", &value)?;
        f.keeps.push(at("date_created", move |t| t >= midnight));
    }
    Ok(())
}

/// The filters of the phone numbers' parameters.
fn phone_numbers(f: &mut Filters<'_>) -> Result<(), String> {
    f.equal("FriendlyName", "friendly_name");
    f.equal("Origin", "origin");
    // "You can specify partial numbers and use '*' as a wildcard
    // for any digit."
    if let Some(pattern) = f.first("PhoneNumber") {
        f.keeps.push(Box::new(move |item| {
            item["phone_number"]
                .as_str()
                .is_some_and(|number| partial_number(number, &pattern))
        }));
    }
    // "Whether to include phone numbers new to the platform ...
    // the default is `true`."
    if f.first("Beta").as_deref() == Some("false") {
        f.keeps.push(Box::new(|item| item["beta"] != true));
    }
    Ok(())
}

/// The filters of the usage records' parameters.
fn usage_records(f: &mut Filters<'_>, now: i64) -> Result<(), String> {
    f.equal("Category", "category");
    // A day, or an offset from today (`-30days`); usage on or
    // after the start, on or before the end.
    let day = |name: &str, value: &str| match definitions::offset_days(value) {
        Some(days) => Ok((now.div_euclid(DAY) + days) * DAY),
        None => bound(name, value),
    };
    if let Some(value) = f.first("StartDate") {
        let start = day("StartDate", &value)?;
        f.keeps.push(at("start_date", move |t| t >= start));
    }
    if let Some(value) = f.first("EndDate") {
        let end = day("EndDate", &value)?;
        f.keeps.push(at("end_date", move |t| t <= end));
    }
    Ok(())
}

/// The filters of the applications', workflows' and workspaces' parameters.
fn friendly_name(f: &mut Filters<'_>) -> Result<(), String> {
    f.equal("FriendlyName", "friendly_name");
    Ok(())
}

/// The filters of the alerts' parameters.
fn alerts(f: &mut Filters<'_>, now: i64) -> Result<(), String> {
    f.equal("LogLevel", "log_level");
    // "Queries for alerts older than 30 days are not supported."
    // The definitions do not give the platform's answer; its
    // documentation of the same 30-day limit elsewhere (error
    // 14241) is a 400 for a start date older than 30 days, so the
    // fake answers that, for either bound.
    let oldest = now - 30 * DAY;
    // On or after the start; on or before the end, a day alone
    // meaning the whole day.
    if let Some(value) = f.first("StartDate") {
        let start = bound("StartDate", &value)?;
        if start < oldest.div_euclid(DAY) * DAY {
            return Err(format!("StartDate {value} is older than 30 days"));
        }
        f.keeps.push(generated(move |t| t >= start));
    }
    if let Some(value) = f.first("EndDate") {
        let mut end = bound("EndDate", &value)?;
        if definitions::is_date(&value) {
            end += DAY - 1;
        }
        if end < oldest {
            return Err(format!("EndDate {value} is older than 30 days"));
        }
        f.keeps.push(generated(move |t| t <= end));
    }
    Ok(())
}

/// The filters of the logs' parameters.
fn logs(f: &mut Filters<'_>, now: i64) -> Result<(), String> {
    f.equal("FunctionSid", "function_sid");
    // Created after the start ("Defaults to 1 day prior to current
    // date/time") and before the end ("Defaults to current
    // date/time").
    let start = match f.first("StartDate") {
        Some(value) => bound("StartDate", &value)?,
        None => now - DAY,
    };
    let end = match f.first("EndDate") {
        Some(value) => bound("EndDate", &value)?,
        None => now,
    };
    f.keeps
        .push(at("date_created", move |t| t > start && t < end));
    Ok(())
}

/// The filters of a flow's executions' parameters.
fn executions(f: &mut Filters<'_>) -> Result<(), String> {
    f.equal("status", "status");
    // "starting on or after this date-time"; "starting before
    // this date-time".
    if let Some(value) = f.first("DateCreatedFrom") {
        let from = bound("DateCreatedFrom", &value)?;
        f.keeps.push(at("date_created", move |t| t >= from));
    }
    if let Some(value) = f.first("DateCreatedTo") {
        let to = bound("DateCreatedTo", &value)?;
        f.keeps.push(at("date_created", move |t| t < to));
    }
    Ok(())
}

/// The filters of the tasks' parameters.
fn tasks(f: &mut Filters<'_>) -> Result<(), String> {
    f.equal("Priority", "priority");
    f.equal("WorkflowSid", "workflow_sid");
    f.equal("WorkflowName", "workflow_friendly_name");
    f.equal("TaskQueueSid", "task_queue_sid");
    f.equal("TaskQueueName", "task_queue_friendly_name");
    f.equal("RoutingTarget", "routing_target");
    let statuses = f.values("AssignmentStatus");
    if !statuses.is_empty() {
        f.keeps.push(Box::new(move |item| {
            statuses.iter().any(|s| same(&item["assignment_status"], s))
        }));
    }
    if let Some(value) = f.first("HasAddons") {
        let wanted = value == "true";
        f.keeps.push(Box::new(move |item| {
            let has = item["addons"]
                .as_str()
                .is_some_and(|addons| !matches!(addons.trim(), "" | "{}"));
            has == wanted
        }));
    }
    if let Some(expression) = f.first("EvaluateTaskAttributes") {
        let clauses = attribute_clauses(&expression)
            .ok_or_else(|| format!("Invalid EvaluateTaskAttributes: {expression}"))?;
        f.keeps.push(Box::new(move |item| {
            let attributes = item["attributes"]
                .as_str()
                .and_then(|text| serde_json::from_str::<Value>(text).ok())
                .unwrap_or(Value::Null);
            clauses.iter().all(|(path, equal, value)| {
                let found = path.iter().fold(&attributes, |v, key| &v[key.as_str()]);
                (found == value) == *equal
            })
        }));
    }
    Ok(())
}

/// The filters of the task queues' parameters.
fn task_queues(f: &mut Filters<'_>) -> Result<(), String> {
    f.equal("FriendlyName", "friendly_name");
    // Queues "with Workers that match": the fake has no workers,
    // so no queue has one.
    if f.first("EvaluateWorkerAttributes").is_some() || f.first("WorkerSid").is_some() {
        f.keeps.push(Box::new(|_| false));
    }
    // `Ordering`: "Sorting parameter for TaskQueues", with no
    // syntax given; the fake keeps the queues' order.
    Ok(())
}

/// A test on the instant of the item's date field `field` (ISO 8601 or
/// RFC 2822); an item without the date fails it.
fn at(field: &'static str, test: impl Fn(i64) -> bool + 'static) -> Keep {
    Box::new(move |item| {
        item[field]
            .as_str()
            .and_then(definitions::instant)
            .is_some_and(&test)
    })
}

/// A test on when an alert occurred: its `date_generated` ("when the alert
/// was generated"), or its `date_created` when a test gave no
/// `date_generated` (the platform always gives both).
fn generated(test: impl Fn(i64) -> bool + 'static) -> Keep {
    Box::new(move |item| {
        let field = if item["date_generated"].is_string() {
            "date_generated"
        } else {
            "date_created"
        };
        item[field]
            .as_str()
            .and_then(definitions::instant)
            .is_some_and(&test)
    })
}

/// Whether the item's `field` is `value` as a query gives it (text, or
/// the number or boolean it spells).
fn same(field: &Value, value: &str) -> bool {
    match field {
        Value::String(text) => text == value,
        Value::Null => false,
        other => value.parse::<Value>().is_ok_and(|parsed| parsed == *other),
    }
}

/// Whether `number` contains `pattern`, `*` standing for any digit.
fn partial_number(number: &str, pattern: &str) -> bool {
    let (number, pattern): (Vec<char>, Vec<char>) =
        (number.chars().collect(), pattern.chars().collect());
    if pattern.is_empty() {
        return true;
    }
    number.windows(pattern.len()).any(|window| {
        window
            .iter()
            .zip(&pattern)
            .all(|(n, p)| n == p || (*p == '*' && n.is_ascii_digit()))
    })
}

/// The fields and directions of the tasks' `Ordering`: "`Attribute:Order`,
/// where `Attribute` can be either `DateCreated`, `Priority`, or
/// `VirtualStartTime` and `Order` can be either `asc` or `desc`", pairs
/// comma-separated; "The only ordering pairing not allowed is DateCreated
/// and VirtualStartTime."
fn task_order(ordering: &str) -> Result<Vec<(&'static str, bool)>, String> {
    let invalid = || format!("Invalid Ordering: {ordering}");
    let mut order = Vec::new();
    for pair in ordering.split(',') {
        let (attribute, direction) = pair.trim().split_once(':').ok_or_else(invalid)?;
        let field = match attribute {
            "DateCreated" => "date_created",
            "Priority" => "priority",
            "VirtualStartTime" => "virtual_start_time",
            _ => return Err(invalid()),
        };
        let descending = match direction {
            "asc" => false,
            "desc" => true,
            _ => return Err(invalid()),
        };
        if order.iter().any(|(f, _)| *f == field) {
            return Err(invalid());
        }
        order.push((field, descending));
    }
    let has = |field: &str| order.iter().any(|(f, _)| *f == field);
    if has("date_created") && has("virtual_start_time") {
        return Err(invalid());
    }
    Ok(order)
}

/// Two field values in order: dates by instant, numbers by value, nulls
/// first.
fn compare(a: &Value, b: &Value) -> std::cmp::Ordering {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a
            .as_f64()
            .partial_cmp(&b.as_f64())
            .unwrap_or(std::cmp::Ordering::Equal),
        (Value::String(a), Value::String(b)) => {
            match (definitions::instant(a), definitions::instant(b)) {
                (Some(a), Some(b)) => a.cmp(&b),
                _ => a.cmp(b),
            }
        }
        (Value::Null, Value::Null) => std::cmp::Ordering::Equal,
        (Value::Null, _) => std::cmp::Ordering::Less,
        (_, Value::Null) => std::cmp::Ordering::Greater,
        _ => std::cmp::Ordering::Equal,
    }
}

/// The clauses of a task-attributes expression the fake evaluates:
/// `key == value` and `key != value` (a dotted key into the task's
/// `attributes`; a value quoted, a number, `true`, `false` or `null`),
/// joined by `AND`; `None` for any other expression.
fn attribute_clauses(expression: &str) -> Option<Vec<(Vec<String>, bool, Value)>> {
    let mut clauses = Vec::new();
    for clause in expression.split(" AND ").flat_map(|c| c.split(" and ")) {
        let (key, equal, value) = match clause.split_once("==") {
            Some((key, value)) => (key, true, value),
            None => {
                let (key, value) = clause.split_once("!=")?;
                (key, false, value)
            }
        };
        let key = key.trim();
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            return None;
        }
        let value = value.trim();
        let value = match value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
            Some(text) => Value::from(text),
            None => serde_json::from_str::<Value>(value).ok()?,
        };
        clauses.push((key.split('.').map(str::to_owned).collect(), equal, value));
    }
    Some(clauses)
}

/// `AssignmentStatus` → `assignment_status`.
pub(super) fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}
