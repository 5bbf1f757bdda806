//! The fake platform proven against the platform's published definitions:
//! for every operation of the definitions, the fake's answers (a full
//! page, a last page, an empty page, a fetched item) validate against the
//! operation's response schema, with items built from the schemas
//! themselves so that every field is covered.

use jsonschema::Draft;
use regex::Regex;
use serde_json::{json, Value};

use super::definitions::{self, Operation};
use super::{FakePlatform, Resource};

/// The list a list operation reads, on the fake, and the values of its
/// path's parameters. Fails for a list operation the fake does not serve.
fn resource(operation: &Operation) -> Resource {
    let call = sid_of(operation, "CallSid");
    let flow = || sid_of(operation, "FlowSid");
    let workspace = || sid_of(operation, "WorkspaceSid");
    let service = || sid_of(operation, "ServiceSid");
    match operation.id.as_str() {
        "ListCall" => Resource::Calls,
        "ListCallRecording" => Resource::Recordings { call },
        "ListCallEvent" => Resource::CallEvents { call },
        "ListIncomingPhoneNumber" => Resource::IncomingPhoneNumbers,
        "ListUsageRecord" => Resource::UsageRecords,
        "ListApplication" => Resource::Applications,
        "ListKey" => Resource::Keys,
        "ListFlow" => Resource::Flows,
        "ListExecution" => Resource::Executions { flow: flow() },
        "ListExecutionStep" => Resource::Steps {
            flow: flow(),
            execution: sid_of(operation, "ExecutionSid"),
        },
        "ListWorkspace" => Resource::Workspaces,
        "ListTask" => Resource::Tasks {
            workspace: workspace(),
        },
        "ListWorkflow" => Resource::Workflows {
            workspace: workspace(),
        },
        "ListTaskQueue" => Resource::TaskQueues {
            workspace: workspace(),
        },
        "ListService" => Resource::Services,
        "ListFunction" => Resource::Functions { service: service() },
        "ListEnvironment" => Resource::Environments { service: service() },
        "ListLog" => Resource::Logs {
            service: service(),
            environment: sid_of(operation, "EnvironmentSid"),
        },
        "ListAlert" => Resource::Alerts,
        other => panic!("the fake serves no list for the definitions' {other}"),
    }
}

/// A value of the path parameter `name` of `operation` (a SID of its
/// pattern; the account's SID for `AccountSid`).
fn sid_of(operation: &Operation, name: &str) -> String {
    match operation.parameter("path", name) {
        _ if name == "AccountSid" => super::ACCOUNT_SID.to_owned(),
        // A service is named by SID or unique name, with no pattern.
        Some(parameter) if parameter.schema["pattern"].is_null() => {
            "ZS0123456789abcdef0123456789abcdef".to_owned()
        }
        Some(parameter) => example(&parameter.schema, name, 1)
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        None => String::new(),
    }
}

/// The path template of `operation` with every parameter given a value.
fn instantiate(operation: &Operation) -> String {
    let mut path = operation.path.clone();
    for parameter in operation.parameters.iter().filter(|p| p.location == "path") {
        let value = sid_of(operation, &parameter.name);
        path = path.replace(&format!("{{{}}}", parameter.name), &value);
    }
    path
}

/// A string matching `pattern`, for the definitions' patterns: literals,
/// `[...]` classes (their first character) and `{n}` repetitions between
/// `^` and `$`; `n` distinguishes items.
fn from_pattern(pattern: &str, n: u32) -> String {
    let body = pattern.trim_start_matches('^').trim_end_matches('$');
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        let unit = if c == '[' {
            let class: String = chars.by_ref().take_while(|c| *c != ']').collect();
            class.chars().next().unwrap_or('0')
        } else {
            c
        };
        let mut times = 1;
        if chars.peek() == Some(&'{') {
            chars.next();
            let count: String = chars.by_ref().take_while(|c| *c != '}').collect();
            times = count.parse().unwrap_or(1);
        }
        for _ in 0..times {
            out.push(unit);
        }
    }
    // Distinguish items in the last hexadecimal digit.
    if out.len() == 34 && out[2..].bytes().all(|b| b.is_ascii_hexdigit()) {
        out.truncate(33);
        out.push(char::from_digit(n % 16, 16).unwrap_or('1'));
    }
    let regex = Regex::new(pattern).unwrap();
    assert!(regex.is_match(&out), "{out} does not match {pattern}");
    out
}

/// A value of `schema`: every property present, each a value of its type,
/// format and pattern (`n` distinguishes items).
fn example(schema: &Value, name: &str, n: u32) -> Value {
    if let Some(allowed) = schema["enum"].as_array() {
        return allowed[0].clone();
    }
    match schema["type"].as_str() {
        Some("string") => {
            if let Some(pattern) = schema["pattern"].as_str() {
                return Value::from(from_pattern(pattern, n));
            }
            let text = match schema["format"].as_str() {
                Some("date-time") => format!("2026-11-20T10:00:0{n}Z"),
                Some("date-time-rfc-2822") => format!("Fri, 20 Nov 2026 10:00:0{n} +0000"),
                Some("date") => "2026-11-20".to_owned(),
                Some("uri") => format!("https://cc.example.com/{name}/{n}"),
                Some("phone-number") => format!("+1555987000{n}"),
                Some("currency") => "USD".to_owned(),
                _ => format!("{name} {n}"),
            };
            Value::from(text)
        }
        Some("integer") => Value::from(schema["minimum"].as_i64().unwrap_or(0).max(i64::from(n))),
        Some("number") => json!(1.5),
        Some("boolean") => Value::Bool(true),
        Some("array") => Value::Array(vec![example(&schema["items"], name, n)]),
        Some("object") | None if schema["properties"].is_object() => {
            let properties = schema["properties"].as_object().unwrap();
            properties
                .iter()
                .map(|(field, property)| (field.clone(), example(property, field, n)))
                .collect::<serde_json::Map<_, _>>()
                .into()
        }
        Some("object") => json!({ name: format!("/{name}/{n}") }),
        // No type (any JSON): an object.
        _ => json!({ "of": name, "n": n }),
    }
}

/// `item` with null in every property its `schema` allows null.
fn sparse(item: &Value, schema: &Value) -> Value {
    let mut item = item.clone();
    for (field, property) in schema["properties"].as_object().into_iter().flatten() {
        // The SID and the creation date stay: the fake needs the one to
        // add the item, and a list's date window would leave out an item
        // without the other.
        if property["nullable"] == true && field != "sid" && field != "date_created" {
            item[field] = Value::Null;
        }
    }
    item
}

/// The OpenAPI 3.0 schema as JSON Schema: `nullable: true` becomes null
/// in the `type` (and the `enum`).
fn json_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(object) => {
            let mut converted: serde_json::Map<String, Value> = object
                .iter()
                .filter(|(key, _)| *key != "nullable")
                .map(|(key, value)| {
                    let value = match key.as_str() {
                        // Keywords whose values are schemas, or maps of them.
                        "properties" => Value::Object(
                            value
                                .as_object()
                                .into_iter()
                                .flatten()
                                .map(|(k, v)| (k.clone(), json_schema(v)))
                                .collect(),
                        ),
                        "items" | "additionalProperties" => json_schema(value),
                        "oneOf" | "anyOf" | "allOf" => Value::Array(
                            value
                                .as_array()
                                .into_iter()
                                .flatten()
                                .map(json_schema)
                                .collect(),
                        ),
                        _ => value.clone(),
                    };
                    (key.clone(), value)
                })
                .collect();
            if object.get("nullable") == Some(&Value::Bool(true)) {
                if let Some(Value::String(kind)) = converted.get("type").cloned() {
                    converted.insert("type".to_owned(), json!([kind, "null"]));
                }
                if let Some(Value::Array(allowed)) = converted.get_mut("enum") {
                    allowed.push(Value::Null);
                }
            }
            Value::Object(converted)
        }
        other => other.clone(),
    }
}

/// A validator of the operation's answer: formats checked, the
/// platform's own formats too (`uri` as the platform sends it: absolute,
/// or a path relative to the API's host, as the 2010 API's `*_uri`).
fn validator(operation: &Operation) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(Draft::Draft7)
        .should_validate_formats(true)
        .with_format("uri", |text: &str| {
            text.starts_with('/') || text.starts_with("https://") || text.starts_with("http://")
        })
        .with_format("date-time-rfc-2822", |text: &str| {
            text.contains(", ") && definitions::instant(text).is_some()
        })
        .with_format("phone-number", |text: &str| {
            text.len() > 2 && text.starts_with('+') && text[1..].bytes().all(|b| b.is_ascii_digit())
        })
        .build(&json_schema(&operation.response))
        .unwrap_or_else(|e| panic!("{}'s schema: {e}", operation.id))
}

/// Every field `schema` lists is in `value`, and no other, at every level
/// the schema lists fields (the schemas require none, so validation alone
/// would pass an answer missing fields).
fn assert_every_field(schema: &Value, value: &Value, at: &str) {
    if let (Some(properties), Some(object)) = (schema["properties"].as_object(), value.as_object())
    {
        let listed: std::collections::BTreeSet<&String> = properties.keys().collect();
        let given: std::collections::BTreeSet<&String> = object.keys().collect();
        assert_eq!(given, listed, "the fields at {at}");
        for (field, property) in properties {
            assert_every_field(property, &object[field], &format!("{at}.{field}"));
        }
    }
    if let (Some(items), Some(values)) = (schema.get("items"), value.as_array()) {
        for (i, value) in values.iter().enumerate() {
            assert_every_field(items, value, &format!("{at}[{i}]"));
        }
    }
}

fn assert_valid(
    validator: &jsonschema::Validator,
    operation: &Operation,
    what: &str,
    answer: &Value,
) {
    assert_every_field(
        &operation.response,
        answer,
        &format!("{} ({what})", operation.id),
    );
    let errors: Vec<String> = validator
        .iter_errors(answer)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{} ({what}) does not validate:\n{}\n{answer:#}",
        operation.id,
        errors.join("\n")
    );
}

async fn get(fake: &FakePlatform, path: &str) -> Value {
    let response = reqwest::Client::new()
        .get(format!("{}{path}", fake.url()))
        .basic_auth(fake.username(), Some(fake.password()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{path}");
    response.json().await.unwrap()
}

/// The list operations' fetch operation, when the definitions have one
/// (its template is the list's, then `/{Sid}`).
fn fetch_of(list: &Operation) -> Option<&'static Operation> {
    let template = match list.path.strip_suffix(".json") {
        Some(stem) => format!("{stem}/{{Sid}}.json"),
        None => format!("{}/{{Sid}}", list.path),
    };
    definitions::operations()
        .iter()
        .find(|op| op.path == template)
}

#[tokio::test]
async fn every_list_the_fake_serves_answers_as_the_definitions_say() {
    ccfn_core::http::install_crypto_provider();
    let lists: Vec<&Operation> = definitions::operations()
        .iter()
        .filter(|op| op.list_items().is_some())
        .collect();
    assert!(lists.len() >= 18, "{} lists", lists.len());
    for operation in lists {
        let resource = resource(operation);
        let path = resource.path().0;
        assert_eq!(path, instantiate(operation), "{}", operation.id);
        let (key, item_schema) = operation.list_items().unwrap();
        assert_eq!(resource.path().1, key, "{}", operation.id);
        // Items built from the fetched item's schema where there is one
        // (it has every field a list item has, and more).
        let fetch = fetch_of(operation);
        let source = fetch.map_or(item_schema, |f| &f.response);
        let full = example(source, key, 1);
        let mut nulls = sparse(&example(source, key, 2), source);
        // Lists whose items have no SID (events) still need one to be added.
        let mut full = full;
        for (n, item) in [&mut full, &mut nulls].into_iter().enumerate() {
            if item.get("sid").is_none() {
                item["sid"] = Value::from(format!("EV{n}"));
            }
        }
        let fake = FakePlatform::start()
            .await
            .with(resource.clone(), full.clone())
            .with(resource.clone(), nulls.clone());
        let validate = validator(operation);
        // The default window of logs is the last day: ask for all of them.
        let window = if operation.id == "ListLog" {
            "&StartDate=2026-01-01T00:00:00Z&EndDate=2030-01-01T00:00:00Z"
        } else {
            ""
        };
        let first = get(&fake, &format!("{path}?PageSize=1{window}")).await;
        assert_valid(&validate, operation, "a full page", &first);
        let last = get(&fake, &format!("{path}?PageSize=1&Page=1{window}")).await;
        assert_valid(&validate, operation, "the last page", &last);
        let both = get(&fake, &format!("{path}?PageSize=2{window}")).await;
        assert_valid(&validate, operation, "every item", &both);
        let items = both[key].as_array().unwrap();
        assert_eq!(items.len(), 2, "{}: {both}", operation.id);
        // Every field the list item's schema lists, and no other.
        let listed: Vec<&String> = item_schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        for item in items {
            let fields: Vec<&String> = item.as_object().unwrap().keys().collect();
            assert_eq!(fields, listed, "{}: {item}", operation.id);
        }
        for (field, property) in item_schema["properties"].as_object().unwrap() {
            if definitions::null_in_list(&operation.id, field, property) {
                for item in items {
                    assert_eq!(item[field], Value::Null, "{}: {field} listed", operation.id);
                }
            }
        }
        // The paging links: first page has a next, last has none.
        let (next, previous) = if path.starts_with("/2010-04-01/") {
            (&first["next_page_uri"], &last["previous_page_uri"])
        } else {
            (
                &first["meta"]["next_page_url"],
                &last["meta"]["previous_page_url"],
            )
        };
        assert!(
            next.is_string() && previous.is_string(),
            "{}: {first} {last}",
            operation.id
        );
        let empty_fake = FakePlatform::start().await.with_list(resource.clone());
        let empty = get(
            &empty_fake,
            &format!("{path}{}", window.replacen('&', "?", 1)),
        )
        .await;
        assert_valid(&validate, operation, "an empty page", &empty);
        assert_eq!(empty[key], json!([]), "{}", operation.id);
        // The fetched item: every field, those hidden from the list too.
        if let Some(fetch) = fetch {
            let sid = full["sid"].as_str().unwrap();
            let item_path = match path.strip_suffix(".json") {
                Some(stem) => format!("{stem}/{sid}.json"),
                None => format!("{path}/{sid}"),
            };
            let fetched = get(&fake, &item_path).await;
            assert_valid(&validator(fetch), fetch, "the fetched item", &fetched);
            assert_eq!(fetched, full, "{}: fetched", fetch.id);
        }
        fake.assert_requests_conform();
        empty_fake.assert_requests_conform();
    }
}

#[tokio::test]
async fn every_item_the_fake_serves_alone_answers_as_the_definitions_say() {
    ccfn_core::http::install_crypto_provider();
    let alone: Vec<&Operation> = definitions::operations()
        .iter()
        .filter(|op| op.list_items().is_none())
        .collect();
    for operation in alone {
        let path = instantiate(operation);
        let full = example(&operation.response, &operation.id, 1);
        let nulls = sparse(&full, &operation.response);
        for item in [full, nulls] {
            // Given with a field the definitions do not have: dropped.
            let mut given = item.clone();
            given["ccfn_not_in_the_definitions"] = Value::Bool(true);
            let fake = FakePlatform::start().await.with_object(path.clone(), given);
            let fetched = get(&fake, &path).await;
            assert_valid(&validator(operation), operation, "the item", &fetched);
            assert_eq!(fetched, item, "{}", operation.id);
            fake.assert_requests_conform();
        }
    }
}

#[test]
fn items_missing_fields_are_served_with_null_or_the_default() {
    let flow = definitions::by_id("FetchFlow").unwrap();
    let shaped = definitions::shape(
        &json!({"sid": "FW1", "status": "draft"}),
        &flow.response,
        None,
    );
    assert_eq!(shaped["friendly_name"], Value::Null);
    // `revision` is not nullable; its default is 0.
    assert_eq!(shaped["revision"], 0);
    let listed = definitions::shape(
        &json!({"sid": "FW1", "status": "draft", "valid": true}),
        &flow.response,
        Some("ListFlow"),
    );
    assert_eq!(listed["valid"], Value::Null);
    let task = definitions::by_id("ListTask").unwrap();
    let (_, schema) = task.list_items().unwrap();
    let listed = definitions::shape(
        &json!({"sid": "WT1", "attributes": "{\"a\":1}"}),
        schema,
        Some("ListTask"),
    );
    assert_eq!(listed["attributes"], Value::Null);
}

#[test]
fn the_schemas_refuse_what_the_platform_would_not_send() {
    // The validation can fail: the conformance above is not vacuous.
    let operation = definitions::by_id("FetchFlow").unwrap();
    let validate = validator(operation);
    let good = example(&operation.response, "flow", 1);
    assert!(validate.is_valid(&good));
    for (field, wrong) in [
        ("status", json!("archived")),
        ("sid", json!("FW1")),
        ("date_created", json!("20 Nov 2026")),
        ("revision", Value::Null),
        ("valid", json!("yes")),
    ] {
        let mut item = good.clone();
        item[field] = wrong;
        assert!(!validate.is_valid(&item), "{field}");
    }
    // A field missing, or one the definitions do not have, is caught.
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("webhook_url");
    let mut extra = good.clone();
    extra["webhook"] = json!("https://cc.example.com");
    for item in [missing, extra] {
        let caught = std::panic::catch_unwind(|| {
            assert_every_field(&operation.response, &item, "a flow");
        });
        assert!(caught.is_err(), "{item}");
    }
    let calls = definitions::by_id("FetchCall").unwrap();
    let mut call = example(&calls.response, "call", 1);
    assert!(validator(calls).is_valid(&call));
    call["start_time"] = json!("2026-11-20T10:00:00Z");
    assert!(
        !validator(calls).is_valid(&call),
        "the 2010 API writes RFC 2822 dates"
    );
}
