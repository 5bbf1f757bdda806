//! The invocation event: the request's parameters, in order.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::secret::{is_sensitive_name, redact_json, REDACTED};

/// The parameters a function is invoked with: the form body, JSON body and
/// query string merged (the body wins), in the order they arrived, repeated
/// keys kept.
///
/// ```
/// use ccfn_core::Event;
///
/// let event = Event::from_pairs([("CallSid", "CA123"), ("From", "+15551230000"), ("mode", "voicemail")]);
/// assert_eq!(event.call_sid(), Some("CA123"));
/// assert_eq!(event.mode(), "voicemail");
/// assert_eq!(Event::new().mode(), "initial");
/// ```
#[derive(Clone, Default, PartialEq)]
pub struct Event {
    params: Vec<(String, Value)>,
    headers: Vec<(String, String)>,
}

/// Prints the parameters and headers, the values of sensitive names
/// redacted.
impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = |name: &str, value: String| {
            if is_sensitive_name(name) {
                REDACTED.to_owned()
            } else {
                value
            }
        };
        let params: Vec<(&str, String)> = self
            .params
            .iter()
            .map(|(n, v)| (n.as_str(), shown(n, v.to_string())))
            .collect();
        let headers: Vec<(&str, String)> = self
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), shown(n, v.clone())))
            .collect();
        f.debug_struct("Event")
            .field("params", &params)
            .field("headers", &headers)
            .finish()
    }
}

/// The processing mode logged when the event has no `mode`.
const DEFAULT_MODE: &str = "initial";

impl Event {
    /// An empty event.
    #[must_use]
    pub fn new() -> Self {
        Event::default()
    }

    /// An event of string parameters, in order.
    pub fn from_pairs<K, V>(pairs: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        let mut event = Event::new();
        for (name, value) in pairs {
            event.push(name, value.into());
        }
        event
    }

    /// Appends a parameter; an existing one of the same name is kept.
    pub fn push(&mut self, name: impl Into<String>, value: impl Into<Value>) -> &mut Self {
        self.params.push((name.into(), value.into()));
        self
    }

    /// Sets a parameter: replaces every value of that name with this one,
    /// at the place of the first.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<Value>) -> &mut Self {
        let name = name.into();
        let value = value.into();
        match self.params.iter().position(|(n, _)| *n == name) {
            Some(at) => {
                self.params[at].1 = value;
                let mut index = 0;
                self.params.retain(|(n, _)| {
                    index += 1;
                    index - 1 <= at || *n != name
                });
            }
            None => self.params.push((name, value)),
        }
        self
    }

    /// Removes every value of `name`.
    pub fn remove(&mut self, name: &str) -> &mut Self {
        self.params.retain(|(n, _)| n != name);
        self
    }

    /// The first value of `name`, when it is a string.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.get_value(name).and_then(Value::as_str)
    }

    /// The first value of `name`, whatever its JSON type.
    #[must_use]
    pub fn get_value(&self, name: &str) -> Option<&Value> {
        self.params
            .iter()
            .find_map(|(n, v)| (n == name).then_some(v))
    }

    /// Every value of `name`, in order.
    pub fn get_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.params
            .iter()
            .filter_map(move |(n, v)| (n == name).then_some(v))
    }

    /// Whether `name` is present with a string value that is not empty or
    /// only white space: the test the contract's validation applies (the
    /// accessors read strings, so an object or an array is no value).
    #[must_use]
    pub fn is_present(&self, name: &str) -> bool {
        self.get(name).is_some_and(|value| !value.trim().is_empty())
    }

    /// Every parameter, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.params.iter().map(|(n, v)| (n.as_str(), v))
    }

    /// The distinct parameter names, in order of first appearance.
    #[must_use]
    pub fn keys(&self) -> Vec<&str> {
        let mut seen = std::collections::HashSet::with_capacity(self.params.len());
        self.params
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| seen.insert(*name))
            .collect()
    }

    /// The number of parameters, repeated keys counted each time.
    #[must_use]
    pub fn len(&self) -> usize {
        self.params.len()
    }

    /// Whether there are no parameters.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }

    /// `mode`, or `initial` when absent or blank.
    #[must_use]
    pub fn mode(&self) -> &str {
        match self.get("mode").map(str::trim) {
            Some(mode) if !mode.is_empty() => mode,
            _ => DEFAULT_MODE,
        }
    }

    /// `CallSid`: the call identifier.
    #[must_use]
    pub fn call_sid(&self) -> Option<&str> {
        self.get("CallSid")
    }

    /// `From`: the caller's number.
    #[must_use]
    pub fn from(&self) -> Option<&str> {
        self.get("From")
    }

    /// `To`: the called number.
    #[must_use]
    pub fn to(&self) -> Option<&str> {
        self.get("To")
    }

    /// `FlowSid`: the flow, on flow transitions.
    #[must_use]
    pub fn flow_sid(&self) -> Option<&str> {
        self.get("FlowSid")
    }

    /// `ExecutionSid`: the flow execution, on flow transitions.
    #[must_use]
    pub fn execution_sid(&self) -> Option<&str> {
        self.get("ExecutionSid")
    }

    /// `StepSid`: the flow step, on flow transitions.
    #[must_use]
    pub fn step_sid(&self) -> Option<&str> {
        self.get("StepSid")
    }

    /// The request headers the function was invoked with (hop-by-hop and
    /// proxy headers dropped). They are never logged.
    pub fn headers(&self) -> impl Iterator<Item = (&str, &str)> {
        self.headers.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// The first value of header `name` (case-insensitive).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find_map(|(n, v)| n.eq_ignore_ascii_case(name).then_some(v.as_str()))
    }

    /// Adds a request header.
    pub fn push_header(&mut self, name: impl Into<String>, value: impl Into<String>) -> &mut Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The event as logged: a JSON object, repeated keys as arrays, the
    /// value of every sensitive name (see [`crate::record::is_sensitive_name`])
    /// replaced by `[REDACTED]`.
    #[must_use]
    pub fn to_log_json(&self) -> Value {
        Value::Object(self.to_map(true))
    }

    fn to_map(&self, redact: bool) -> serde_json::Map<String, Value> {
        let mut map = serde_json::Map::with_capacity(self.params.len());
        // Names already turned into arrays: a value that is itself an array
        // must not be mistaken for one.
        let mut grouped: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for (name, value) in &self.params {
            let value = match (redact, is_sensitive_name(name)) {
                (true, true) => Value::from(REDACTED),
                (true, false) if !value.is_string() => redact_json(value),
                _ => value.clone(),
            };
            match map.get_mut(name) {
                None => {
                    map.insert(name.clone(), value);
                }
                Some(existing) => {
                    if grouped.contains(name.as_str()) {
                        if let Value::Array(values) = existing {
                            values.push(value);
                        }
                    } else {
                        let first = existing.take();
                        *existing = Value::Array(vec![first, value]);
                        grouped.insert(name);
                    }
                }
            }
        }
        map
    }
}

/// Serializes as a JSON object; a repeated key becomes an array of its
/// values. Unlike the logged form, values are not redacted.
impl Serialize for Event {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let map = self.to_map(false);
        let mut out = serializer.serialize_map(Some(map.len()))?;
        for (k, v) in &map {
            out.serialize_entry(k, v)?;
        }
        out.end()
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Event {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Event::from_pairs(iter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repeated_keys_are_kept_in_order_and_logged_as_arrays() {
        let event = Event::from_pairs([("a", "1"), ("b", "2"), ("a", "3"), ("a", "4")]);
        assert_eq!(event.get("a"), Some("1"));
        assert_eq!(event.get_all("a").count(), 3);
        assert_eq!(event.keys(), ["a", "b"]);
        assert_eq!(event.to_log_json(), json!({"a": ["1", "3", "4"], "b": "2"}));
        assert_eq!(
            serde_json::to_string(&event).unwrap(),
            r#"{"a":["1","3","4"],"b":"2"}"#
        );
    }

    #[test]
    fn two_repeated_values_make_an_array_of_two() {
        let event = Event::from_pairs([("a", "1"), ("a", "2")]);
        assert_eq!(event.to_log_json(), json!({"a": ["1", "2"]}));
    }

    #[test]
    fn blank_values_are_not_present() {
        let mut event = Event::from_pairs([("CallSid", "  "), ("From", ""), ("To", "+1")]);
        event
            .push("Null", Value::Null)
            .push("Number", 3)
            .push("Object", json!({"a": 1}));
        assert!(!event.is_present("CallSid"));
        assert!(!event.is_present("From"));
        assert!(event.is_present("To"));
        assert!(!event.is_present("Null"));
        assert!(
            !event.is_present("Number"),
            "the runtime turns numbers into strings"
        );
        assert!(!event.is_present("Object"));
        assert!(!event.is_present("Missing"));
    }

    #[test]
    fn mode_defaults_to_initial() {
        assert_eq!(Event::from_pairs([("mode", " ")]).mode(), "initial");
        assert_eq!(Event::from_pairs([("mode", "callback")]).mode(), "callback");
    }

    #[test]
    fn sensitive_names_are_redacted_in_the_logged_form_only() {
        let event = Event::from_pairs([("CallSid", "CA1"), ("ApiKey", "k-1")]);
        assert_eq!(
            event.to_log_json(),
            json!({"CallSid": "CA1", "ApiKey": "[REDACTED]"})
        );
        assert_eq!(event.get("ApiKey"), Some("k-1"));
    }

    #[test]
    fn nested_sensitive_members_are_redacted_in_the_logged_form() {
        let mut event = Event::new();
        event.push("Customer", json!({"name": "Ada", "password": "p-1"}));
        assert_eq!(
            event.to_log_json(),
            json!({"Customer": {"name": "Ada", "password": "[REDACTED]"}})
        );
    }

    #[test]
    fn debug_redacts_sensitive_parameters_and_headers() {
        let mut event = Event::from_pairs([("CallSid", "CA1"), ("Password", "pw-canary-1")]);
        event.push_header("authorization", "Basic canary-header-1");
        let debug = format!("{event:?}");
        assert!(debug.contains("CA1"), "{debug}");
        assert!(!debug.contains("pw-canary-1"), "{debug}");
        assert!(!debug.contains("canary-header-1"), "{debug}");
    }

    #[test]
    fn set_replaces_every_value_at_the_first_place() {
        let mut event = Event::from_pairs([("a", "1"), ("b", "2"), ("a", "3")]);
        event.set("a", "9");
        assert_eq!(event.to_log_json(), json!({"a": "9", "b": "2"}));
        event.set("c", "4").remove("b");
        assert_eq!(event.keys(), ["a", "c"]);
    }

    #[test]
    fn accessors_and_headers() {
        let mut event = Event::from_pairs([
            ("CallSid", "CA1"),
            ("From", "+1"),
            ("To", "+2"),
            ("FlowSid", "FW1"),
            ("ExecutionSid", "FN1"),
            ("StepSid", "FT1"),
        ]);
        event.push_header("X-Request-Id", "r1");
        assert_eq!(
            (event.call_sid(), event.from(), event.to()),
            (Some("CA1"), Some("+1"), Some("+2"))
        );
        assert_eq!(
            (event.flow_sid(), event.execution_sid(), event.step_sid()),
            (Some("FW1"), Some("FN1"), Some("FT1"))
        );
        assert_eq!(event.header("x-request-id"), Some("r1"));
        assert_eq!(event.headers().count(), 1);
        assert_eq!(event.len(), 6);
        assert!(!event.is_empty());
    }
}
