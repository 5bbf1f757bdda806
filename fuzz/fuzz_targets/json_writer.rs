//! The log writer's JSON on arbitrary text: byte for byte what
//! `serde_json` writes, and read back by `serde_json` as the value written.
//!
//! The input is read as UTF-8, invalid sequences becoming U+FFFD; it is
//! written as one string, and split at NUL characters into the member
//! names and values of an object inside an array, written as one value.
//!
//! One value does not read back: an object whose first member is named
//! [`RAW_VALUE`]. `serde_json` reserves that name when its `raw_value`
//! feature is on (axum turns it on) and reads such an object as the JSON
//! text held in its member, whoever wrote it.

#![no_main]

use ccfn_core::fuzz::{json_string, json_value};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

/// The member name `serde_json` reserves for raw values.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);

    let out = json_string(&text);
    assert_eq!(out, serde_json::to_vec(&text).unwrap());
    let read: String = serde_json::from_slice(&out).expect("the string reads back");
    assert_eq!(read, text);

    let parts: Vec<&str> = text.split('\0').collect();
    let members: Map<String, Value> = parts
        .chunks(2)
        .map(|pair| (pair[0].to_owned(), Value::from(pair.get(1).copied())))
        .collect();
    let value = Value::Array(vec![
        Value::Object(members),
        Value::Array(parts.iter().map(|part| Value::from(*part)).collect()),
    ]);
    let out = json_value(&value);
    assert_eq!(out, serde_json::to_vec(&value).unwrap());
    if parts[0] != RAW_VALUE {
        let read: Value = serde_json::from_slice(&out).expect("the value reads back");
        assert_eq!(read, value);
    }
});
