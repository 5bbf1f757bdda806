//! The platform's published API definitions (`platform-api/oai-subset.json`
//! in this crate: a subset of the platform's OpenAPI definitions, every
//! `$ref` resolved), read once, and what the fake takes from them: which
//! operation a path is, the shape of its answer, and whether a request's
//! parameters are ones the operation has, with values its schemas allow.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

/// The definitions, as checked in beside the crate's sources.
pub(crate) const SOURCE: &str = include_str!("../../platform-api/oai-subset.json");

/// One operation of the definitions: a path template, the methods the
/// platform answers on it, and its `GET`'s parameters and answer.
#[derive(Debug)]
pub(crate) struct Operation {
    /// `ListCall`, `FetchFlow`...
    pub(crate) id: String,
    /// The path template, `/v2/Flows/{Sid}`.
    pub(crate) path: String,
    /// The methods, upper case.
    pub(crate) methods: Vec<String>,
    /// The parameters, path and query.
    pub(crate) parameters: Vec<Parameter>,
    /// The JSON Schema (OpenAPI 3.0 dialect: `nullable`) of the answer.
    pub(crate) response: Value,
}

/// One parameter of an operation.
#[derive(Debug)]
pub(crate) struct Parameter {
    pub(crate) name: String,
    /// `path` or `query`.
    pub(crate) location: String,
    pub(crate) schema: Value,
    pub(crate) description: String,
}

/// Every operation of the definitions.
pub(crate) fn operations() -> &'static [Operation] {
    static OPERATIONS: OnceLock<Vec<Operation>> = OnceLock::new();
    OPERATIONS.get_or_init(|| {
        let doc: Value = serde_json::from_str(SOURCE).expect("the checked-in definitions are JSON");
        let mut operations = Vec::new();
        for product in doc["products"]
            .as_object()
            .into_iter()
            .flat_map(|p| p.values())
        {
            for op in product["operations"].as_array().into_iter().flatten() {
                let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();
                operations.push(Operation {
                    id: text(&op["operationId"]),
                    path: text(&op["path"]),
                    methods: op["methods"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|m| text(m).to_ascii_uppercase())
                        .collect(),
                    parameters: op["parameters"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|p| Parameter {
                            name: text(&p["name"]),
                            location: text(&p["in"]),
                            schema: p["schema"].clone(),
                            description: text(&p["description"]),
                        })
                        .collect(),
                    response: op["response"].clone(),
                });
            }
        }
        operations
    })
}

/// The operation whose template `path` matches, with the path
/// parameters' values (percent-decoded).
pub(crate) fn find(path: &str) -> Option<(&'static Operation, Vec<(String, String)>)> {
    let sent: Vec<&str> = path.split('/').collect();
    operations().iter().find_map(|op| {
        let template: Vec<&str> = op.path.split('/').collect();
        if template.len() != sent.len() {
            return None;
        }
        let mut values = Vec::new();
        for (t, s) in template.iter().zip(&sent) {
            match (t.find('{'), t.find('}')) {
                (Some(open), Some(close)) => {
                    let (prefix, suffix) = (&t[..open], &t[close + 1..]);
                    let value = s.strip_prefix(prefix)?.strip_suffix(suffix)?;
                    if value.is_empty() {
                        return None;
                    }
                    values.push((t[open + 1..close].to_owned(), percent_decode(value)));
                }
                _ if t == s => {}
                _ => return None,
            }
        }
        Some((op, values))
    })
}

/// The operation named `id`.
#[cfg(test)]
pub(crate) fn by_id(id: &str) -> Option<&'static Operation> {
    operations().iter().find(|op| op.id == id)
}

impl Operation {
    /// The list's items key and their schema, when the operation reads a
    /// list (its answer is a page: paging fields and one array).
    pub(crate) fn list_items(&self) -> Option<(&str, &Value)> {
        let properties = self.response["properties"].as_object()?;
        if !properties.contains_key("meta") && !properties.contains_key("page_size") {
            return None;
        }
        properties
            .iter()
            .find(|(_, schema)| schema["type"] == "array")
            .map(|(key, schema)| (key.as_str(), &schema["items"]))
    }

    /// The parameter `name` in `location`.
    pub(crate) fn parameter(&self, location: &str, name: &str) -> Option<&Parameter> {
        self.parameters
            .iter()
            .find(|p| p.location == location && p.name == name)
    }
}

/// Whether the definitions say the field `name` of an item is null in
/// the list of `operation` even when the item has a value (the platform
/// gives it only when one item is fetched).
///
/// Tasks' `attributes`: the definitions' description says so ("it will
/// only be displayed in FETCH action that returns a single resource.
/// Otherwise, it will be null"). Flows' `definition`, `valid`, `errors`
/// and `warnings`: the platform's documentation of the Flow resource says
/// the list leaves them out (null); the definitions give the list item
/// the schema of the fetched flow, all four nullable. Alerts' request and
/// response headers, body and variables ("only returned when a single
/// Alert resource is fetched") are not in the list item's schema at all,
/// so the shaping drops them.
pub(crate) fn null_in_list(operation: &str, name: &str, schema: &Value) -> bool {
    let description = schema["description"].as_str().unwrap_or_default();
    description.contains("only be displayed in FETCH")
        || description.contains("only returned when a single")
        || (operation == "ListFlow"
            && matches!(name, "definition" | "valid" | "errors" | "warnings"))
}

/// `item` in the shape of `schema`: every property the schema lists,
/// with the item's value, else the schema's `default`, else null where
/// the schema allows null; properties the schema does not list are
/// dropped. In a list (`list` is the list operation's id) the fields
/// [`null_in_list`] names are null.
pub(crate) fn shape(item: &Value, schema: &Value, list: Option<&str>) -> Value {
    let (Some(object), Some(properties)) = (item.as_object(), schema["properties"].as_object())
    else {
        return item.clone();
    };
    let mut shaped = serde_json::Map::new();
    for (name, property) in properties {
        let nullable = property["nullable"] == true;
        let hidden = list.is_some_and(|op| null_in_list(op, name, property));
        let value = match object.get(name) {
            _ if hidden && nullable => Some(Value::Null),
            Some(value) => Some(value.clone()),
            None if property.get("default").is_some() => Some(property["default"].clone()),
            None if nullable => Some(Value::Null),
            // Not nullable, no default, not given: the item is incomplete;
            // the fake serves it without the field rather than invent one.
            None => None,
        };
        if let Some(value) = value {
            shaped.insert(name.clone(), value);
        }
    }
    Value::Object(shaped)
}

/// What is wrong with `values`, the values a request gave the parameter
/// `parameter` (a query parameter may be given more than once only when
/// its schema is an array), or `None`.
pub(crate) fn check(parameter: &Parameter, values: &[&str]) -> Option<String> {
    let schema = &parameter.schema;
    let name = &parameter.name;
    if schema["type"] == "array" {
        return values
            .iter()
            .find_map(|value| check_value(name, &schema["items"], &parameter.description, value));
    }
    if values.len() > 1 {
        return Some(format!(
            "{name} given {} times; it takes one value",
            values.len()
        ));
    }
    values
        .first()
        .and_then(|value| check_value(name, schema, &parameter.description, value))
}

fn check_value(name: &str, schema: &Value, description: &str, value: &str) -> Option<String> {
    // A value is quoted (escaped) and cut to 64 characters in the fault.
    let shown: String = match value.char_indices().nth(64) {
        Some((end, _)) => format!("{}...", &value[..end]),
        None => value.to_owned(),
    };
    let wrong = |why: String| Some(format!("{name}={shown:?}: {why}"));
    match schema["type"].as_str() {
        Some("integer") => {
            let Ok(number) = value.parse::<i64>() else {
                return wrong("not an integer".to_owned());
            };
            if let Some(min) = schema["minimum"].as_i64().filter(|min| number < *min) {
                return wrong(format!("below the minimum {min}"));
            }
            if let Some(max) = schema["maximum"].as_i64().filter(|max| number > *max) {
                return wrong(format!("above the maximum {max}"));
            }
            None
        }
        Some("number") => value
            .parse::<f64>()
            .is_err()
            .then(|| format!("{name}={shown:?}: not a number")),
        Some("boolean") => (!matches!(value, "true" | "false"))
            .then(|| format!("{name}={shown:?}: not `true` or `false`")),
        _ => {
            if let Some(allowed) = schema["enum"].as_array()
                && !allowed.iter().any(|a| a == value)
            {
                return wrong(format!("not one of {}", Value::Array(allowed.clone())));
            }
            let length = value.chars().count();
            if let Some(min) = schema["minLength"]
                .as_u64()
                .filter(|min| (length as u64) < *min)
            {
                return wrong(format!("shorter than {min} characters"));
            }
            if let Some(max) = schema["maxLength"]
                .as_u64()
                .filter(|max| (length as u64) > *max)
            {
                return wrong(format!("longer than {max} characters"));
            }
            if let Some(pattern) = schema["pattern"].as_str() {
                let regex = Regex::new(pattern).expect("the definitions' patterns compile");
                if !regex.is_match(value) {
                    return wrong(format!("does not match {pattern}"));
                }
            }
            match schema["format"].as_str() {
                // The descriptions of some date-time parameters widen the
                // format to a day alone ("Specify a date as `YYYY-MM-DD`").
                Some("date-time") if !date_time_allowed(value, description) => {
                    wrong("not a date-time (RFC 3339)".to_owned())
                }
                // The usage records' description allows offsets (`-30days`).
                Some("date") if !date_allowed(value, description) => {
                    wrong("not a date (YYYY-MM-DD)".to_owned())
                }
                _ => None,
            }
        }
    }
}

/// A `date-time` parameter's value: RFC 3339, or a day alone where the
/// description allows one ("Specify a date as `YYYY-MM-DD`").
fn date_time_allowed(value: &str, description: &str) -> bool {
    is_date_time(value) || (description.contains("`YYYY-MM-DD`") && is_date(value))
}

/// A `date` parameter's value: a day, or an offset where the description
/// allows offsets from the current date (`-30days`).
fn date_allowed(value: &str, description: &str) -> bool {
    is_date(value) || (description.contains("offsets") && is_offset(value))
}

/// `-30days`, `+30days`.
pub(crate) fn is_offset(value: &str) -> bool {
    offset_days(value).is_some()
}

/// The days of an offset from today (`-30days` is -30).
pub(crate) fn offset_days(value: &str) -> Option<i64> {
    let sign = match value.as_bytes().first()? {
        b'-' => -1,
        b'+' => 1,
        _ => return None,
    };
    let digits = value[1..].strip_suffix("days")?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse::<i64>().ok().map(|n| sign * n))
        .flatten()
}

/// `YYYY-MM-DD`, a real day.
pub(crate) fn is_date(value: &str) -> bool {
    value.len() == 10 && instant(value).is_some()
}

/// An RFC 3339 date-time: `YYYY-MM-DDThh:mm:ss[.frac](Z|±hh:mm)`.
pub(crate) fn is_date_time(value: &str) -> bool {
    value.len() > 10 && value.as_bytes()[10] == b'T' && instant(value).is_some()
}

/// Seconds since 1970-01-01T00:00:00Z of a date as the platform writes
/// them: ISO 8601 (`2026-11-20`, `2026-11-20T10:00:00Z`,
/// `2026-11-20T10:00:00.123-05:00`) or RFC 2822 (`Fri, 20 Nov 2026
/// 10:00:00 +0000`, as the 2010 API writes them). A day alone is its
/// midnight, UTC.
pub(crate) fn instant(text: &str) -> Option<i64> {
    if text.len() >= 10 && text.as_bytes().get(4) == Some(&b'-') {
        let day = civil(
            text[..4].parse().ok()?,
            two(&text[5..7])?,
            two(&text[8..10])?,
        )?;
        if text.len() == 10 && text.as_bytes()[7] == b'-' {
            return Some(day * 86_400);
        }
        let rest = text.get(10..)?.strip_prefix('T')?;
        let (clock, zone) = rest.split_at(8.min(rest.len()));
        let seconds = clock_seconds(clock)?;
        let zone = zone
            .strip_prefix('.')
            .map_or(zone, |z| z.trim_start_matches(|c: char| c.is_ascii_digit()));
        return Some(day * 86_400 + seconds - zone_seconds(zone, true)?);
    }
    let parts: Vec<&str> = text.split_whitespace().collect();
    let [_, d, month, year, clock, zone] = parts[..] else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|name| *name == month)? + 1;
    let day = civil(
        year.parse().ok()?,
        u32::try_from(month).ok()?,
        d.parse().ok()?,
    )?;
    Some(day * 86_400 + clock_seconds(clock)? - zone_seconds(zone, false)?)
}

fn two(text: &str) -> Option<u32> {
    (text.len() == 2 && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// `hh:mm:ss` in seconds.
fn clock_seconds(clock: &str) -> Option<i64> {
    let bytes = clock.as_bytes();
    if bytes.len() != 8 || bytes[2] != b':' || bytes[5] != b':' {
        return None;
    }
    let (h, m, s) = (two(&clock[..2])?, two(&clock[3..5])?, two(&clock[6..8])?);
    (h < 24 && m < 60 && s < 61).then(|| i64::from(h * 3600 + m * 60 + s))
}

/// `Z`, `+01:00` (ISO) or `+0100` (RFC 2822), in seconds east of UTC.
fn zone_seconds(zone: &str, iso: bool) -> Option<i64> {
    if iso && zone == "Z" {
        return Some(0);
    }
    let sign = match zone.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits = if iso {
        let (h, m) = zone[1..].split_once(':')?;
        format!("{h}{m}")
    } else {
        zone[1..].to_owned()
    };
    let (h, m) = (two(digits.get(..2)?)?, two(digits.get(2..)?)?);
    (h < 24 && m < 60).then(|| sign * i64::from(h * 3600 + m * 60))
}

/// Days since 1970-01-01 of a calendar day, when it is one.
fn civil(year: i64, month: u32, day: u32) -> Option<i64> {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if day == 0 || day > days_in_month {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// `%2B1555` → `+1555` (a path segment: `+` stays `+`).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).and_then(|b| hex(*b)),
            bytes.get(i + 2).and_then(|b| hex(*b)),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
