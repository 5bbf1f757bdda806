//! A platform answer parsed through a `DeserializeSeed` that counts what
//! the value costs as it is built, and stops past a budget.

use super::*;

/// `text` with the userinfo of each URL in it written `[REDACTED]@`
/// ([`ccfn_core::record::redact_url_userinfo`]), or `None` when it has
/// none. [`parse_costed`] applies it to every string of an answer
/// (`https://user:password@host/...` is how a webhook URL with basic
/// authentication is written), so that no URL the platform returns shows
/// its credentials, in a table or in `--json`.
fn without_userinfo(text: &str) -> Option<String> {
    match ccfn_core::record::redact_url_userinfo(text) {
        std::borrow::Cow::Owned(redacted) => Some(redacted),
        std::borrow::Cow::Borrowed(_) => None,
    }
}

/// Why [`parse_costed`] gave no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ParseError {
    /// The value would cost more than the budget: parsing stopped there.
    OverBudget,
    /// The text is not JSON (or nests deeper than serde_json's 128
    /// levels); serde_json's message.
    Invalid(String),
}

/// What one value costs, as [`parse_costed`] counts it: the slot it takes
/// in its parent (`size_of::<Value>()`), four bytes per level of depth
/// (its indentation when shown as pretty JSON, on the lines that open and
/// close it), and
/// - for a string: its bytes, and five more for each character JSON or
///   the terminal write escaped (`"`, `\\`, control characters): what it
///   takes in memory and what it takes shown;
/// - for each entry of an object: its key's bytes (counted as a string
///   is), the key's `String` and what the map spends to index it.
///
/// Arrays and maps are built as values come, so that while one is being
/// built it may hold up to twice its count (the capacity doubles); an
/// array is shrunk to its length once whole.
pub(super) const VALUE_COST: usize = std::mem::size_of::<Value>();
/// What an object spends on an entry, beyond its key's bytes and its
/// value: the key's `String`, its hash and its index slot.
const ENTRY_COST: usize = std::mem::size_of::<String>() + 2 * std::mem::size_of::<u64>();

/// The bytes a string costs (see [`VALUE_COST`]): its length, and five
/// more for each character written escaped.
fn text_cost(text: &str) -> usize {
    let escaped = text
        .chars()
        .filter(|c| c.is_control() || *c == '"' || *c == '\\')
        .count();
    text.len().saturating_add(escaped.saturating_mul(5))
}

/// Parses `text` as one JSON value, counting what the value costs as it
/// is built (see [`VALUE_COST`]) and stopping as soon as the count would
/// pass `budget`: what parsing holds stays within the budget (and the
/// text), whatever the text expands to. Every URL in a string loses its
/// user and password ([`without_userinfo`]) as it is read, and the cost
/// counted is the string kept. The value and its cost.
///
/// serde_json's recursion limit (at most 127 nested arrays and objects) stays
/// in force: deeper is [`ParseError::Invalid`].
pub(crate) fn parse_costed(text: &[u8], budget: usize) -> Result<(Value, usize), ParseError> {
    use serde::de::DeserializeSeed as _;
    let mut left = Budget {
        left: budget,
        over: false,
    };
    let mut de = serde_json::Deserializer::from_slice(text);
    let parsed = Costed {
        budget: &mut left,
        depth: 0,
    }
    .deserialize(&mut de)
    .and_then(|value| de.end().map(|()| value));
    match parsed {
        Ok(value) => Ok((value, budget - left.left)),
        Err(_) if left.over => Err(ParseError::OverBudget),
        Err(err) => Err(ParseError::Invalid(err.to_string())),
    }
}

/// What is left of a budget, and whether it was passed.
struct Budget {
    left: usize,
    over: bool,
}

impl Budget {
    /// Takes `cost` from the budget, or fails (and remembers why) when
    /// less is left.
    fn charge<E: serde::de::Error>(&mut self, cost: usize) -> Result<(), E> {
        match self.left.checked_sub(cost) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => {
                self.over = true;
                Err(E::custom("the value is over its budget"))
            }
        }
    }
}

/// Builds a [`Value`] at `depth`, charging `budget` as it goes.
struct Costed<'b> {
    budget: &'b mut Budget,
    depth: usize,
}

impl Costed<'_> {
    /// What a value costs at this depth before its content.
    fn node(&self) -> usize {
        VALUE_COST.saturating_add(self.depth.saturating_mul(4))
    }

    /// A string value, its userinfo redacted, charged.
    fn string<E: serde::de::Error>(self, text: String) -> Result<Value, E> {
        let text = without_userinfo(&text).unwrap_or(text);
        self.budget
            .charge(self.node().saturating_add(text_cost(&text)))?;
        Ok(Value::String(text))
    }

    /// A value without content (null, a boolean, a number), charged.
    fn scalar<E: serde::de::Error>(self, value: Value) -> Result<Value, E> {
        self.budget.charge(self.node())?;
        Ok(value)
    }

    /// The same budget, one level deeper.
    fn child(&mut self) -> Costed<'_> {
        Costed {
            budget: self.budget,
            depth: self.depth + 1,
        }
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Costed<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Costed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value, E> {
        self.scalar(Value::Bool(v))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value, E> {
        self.scalar(Value::from(v))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        self.scalar(Value::from(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        self.scalar(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value, E> {
        // Checked before the copy: a string over the budget is never
        // copied.
        let cost = self.node().saturating_add(text_cost(v));
        if cost > self.budget.left {
            return self.budget.charge(cost).map(|()| Value::Null);
        }
        self.string(v.to_owned())
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Value, E> {
        self.string(v)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        self.scalar(Value::Null)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        self.scalar(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        self.budget.charge(self.node())?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.child())? {
            items.push(item);
        }
        items.shrink_to_fit();
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        self.budget.charge(self.node())?;
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.budget
                .charge(ENTRY_COST.saturating_add(text_cost(&key)))?;
            let value = map.next_value_seed(self.child())?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod costed_tests {
    use super::*;
    use serde_json::json;

    const NODE: usize = VALUE_COST;

    /// The cost `parse_costed` counts for `text`, with room to spare.
    fn cost_of(text: &str) -> usize {
        parse_costed(text.as_bytes(), usize::MAX).unwrap().1
    }

    #[test]
    fn the_cost_is_what_the_values_hold_and_show() {
        assert_eq!(cost_of("0"), NODE);
        assert_eq!(cost_of("null"), NODE);
        assert_eq!(cost_of("\"ab\""), NODE + 2);
        // A quote and a control character are written escaped.
        assert_eq!(cost_of(r#""a\"\u0001""#), NODE + 3 + 2 * 5);
        // Each level of depth is four bytes of indentation.
        assert_eq!(cost_of("[0,true]"), NODE + 2 * (NODE + 4));
        assert_eq!(cost_of("[[0]]"), NODE + (NODE + 4) + (NODE + 8));
        assert_eq!(cost_of(r#"{"key":0}"#), NODE + ENTRY_COST + 3 + NODE + 4);
        // What is kept is counted: the userinfo is gone before.
        let (value, cost) = parse_costed(br#""https://u:pw@h.example/x""#, usize::MAX).unwrap();
        assert_eq!(value, "https://[REDACTED]@h.example/x");
        assert_eq!(cost, NODE + "https://[REDACTED]@h.example/x".len());
    }

    #[test]
    fn a_value_at_its_budget_passes_and_one_byte_less_stops() {
        for text in [
            "0",
            "\"text\"",
            r#"{"calls":[{"sid":"CA1","to":"+1555"},{}],"next_page_uri":null}"#,
            "[[[[]]],[1,2.5,-3],{\"a\":{\"b\":[null]}}]",
        ] {
            let cost = cost_of(text);
            let (value, counted) = parse_costed(text.as_bytes(), cost).unwrap();
            assert_eq!(counted, cost);
            assert_eq!(value, serde_json::from_str::<Value>(text).unwrap());
            assert_eq!(
                parse_costed(text.as_bytes(), cost - 1),
                Err(ParseError::OverBudget),
                "{text}"
            );
        }
    }

    #[test]
    fn text_that_is_not_json_is_invalid_not_over_budget() {
        for text in ["", "{", "[1,]", "0 0", "{\"a\":1}x", "nul"] {
            assert!(
                matches!(
                    parse_costed(text.as_bytes(), MAX_ANSWER_COST),
                    Err(ParseError::Invalid(_))
                ),
                "{text}"
            );
        }
    }

    #[test]
    fn serde_json_s_recursion_limit_stays() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let (_, cost) = parse_costed(nested(127).as_bytes(), MAX_ANSWER_COST).unwrap();
        // 127 arrays, the n-th (from 0) at depth n.
        assert_eq!(cost, 127 * NODE + 2 * 126 * 127);
        for depth in [128, 10_000, 1_000_000] {
            match parse_costed(nested(depth).as_bytes(), MAX_ANSWER_COST) {
                Err(ParseError::Invalid(message)) => {
                    assert!(message.contains("recursion limit"), "{depth}: {message}");
                }
                other => panic!("{depth}: {other:?}"),
            }
        }
        // Objects too, and deep nesting within the budget's reach stops
        // at the budget first.
        let objects = format!("{}0{}", "{\"a\":".repeat(200), "}".repeat(200));
        assert!(matches!(
            parse_costed(objects.as_bytes(), MAX_ANSWER_COST),
            Err(ParseError::Invalid(_))
        ));
        assert_eq!(
            parse_costed(nested(100).as_bytes(), 1000),
            Err(ParseError::OverBudget)
        );
    }

    /// `unit` repeated, comma-separated, in a page's `calls` list, the page
    /// just under `MAX_PAGE_BYTES`.
    fn page_of(unit: &str) -> String {
        let room = MAX_PAGE_BYTES - 1024;
        let count = room / (unit.len() + 1);
        let mut page = String::with_capacity(room + 64);
        page.push_str("{\"calls\":[");
        for n in 0..count {
            if n > 0 {
                page.push(',');
            }
            page.push_str(unit);
        }
        page.push_str("],\"next_page_uri\":null}");
        page
    }

    #[test]
    fn the_most_expanding_pages_under_the_byte_cap_stop_at_the_budget() {
        for unit in ["0", "{}", "[]", "[[[0]]]", "\"\"", "1e9", "true"] {
            let page = page_of(unit);
            assert!(page.len() < MAX_PAGE_BYTES);
            assert_eq!(
                parse_costed(page.as_bytes(), MAX_ANSWER_COST),
                Err(ParseError::OverBudget),
                "{unit}"
            );
        }
        // A wide array within the budget is whole, its cost as counted.
        let wide = format!("[{}0]", "0,".repeat(99_999));
        let (value, cost) = parse_costed(wide.as_bytes(), MAX_ANSWER_COST).unwrap();
        assert_eq!(value.as_array().unwrap().len(), 100_000);
        assert_eq!(cost, NODE + 100_000 * (NODE + 4));
    }

    #[test]
    fn big_strings_count_their_bytes_and_their_escapes() {
        let string = |text: &str| serde_json::to_vec(&Value::from(text)).unwrap();
        let mib = "A".repeat(1024 * 1024);
        let (value, cost) = parse_costed(&string(&mib), MAX_ANSWER_COST).unwrap();
        assert_eq!(value.as_str().unwrap().len(), mib.len());
        assert_eq!(cost, NODE + mib.len());
        // Over the budget: refused, whether the text has escapes or not.
        let big = "A".repeat(MAX_ANSWER_COST);
        assert_eq!(
            parse_costed(&string(&big), MAX_ANSWER_COST),
            Err(ParseError::OverBudget)
        );
        // 3 MiB of control characters is 18 MiB of text shown.
        let controls = "\u{1}".repeat(3 * 1024 * 1024);
        assert_eq!(
            parse_costed(&string(&controls), MAX_ANSWER_COST),
            Err(ParseError::OverBudget)
        );
        // A key counts as a string does.
        let key = format!("{{\"{mib}\":0}}");
        assert_eq!(cost_of(&key), NODE + ENTRY_COST + mib.len() + NODE + 4);
    }

    /// A call with every field the platform's definition of a call lists
    /// (ListCall's items in the published definitions), as it writes them.
    fn call(n: usize) -> Value {
        let sid = format!("CA{n:032x}");
        let uri = format!("/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Calls/{sid}");
        json!({
            "sid": sid, "date_created": "Fri, 20 Nov 2026 10:00:00 +0000",
            "date_updated": "Fri, 20 Nov 2026 10:01:00 +0000",
            "parent_call_sid": null, "account_sid": "AC0123456789abcdef0123456789abcdef",
            "to": "+15559870000", "to_formatted": "(555) 987-0000",
            "from": "+15551230000", "from_formatted": "(555) 123-0000",
            "phone_number_sid": "PN0123456789abcdef0123456789abcdef", "status": "completed",
            "start_time": "Fri, 20 Nov 2026 10:00:00 +0000",
            "end_time": "Fri, 20 Nov 2026 10:01:00 +0000", "duration": "60",
            "price": "-0.01700", "price_unit": "USD", "direction": "inbound",
            "answered_by": null, "api_version": "2010-04-01", "forwarded_from": "+15559870000",
            "group_sid": null, "caller_name": "CALLER NAME", "queue_time": "0",
            "trunk_sid": null, "uri": format!("{uri}.json"),
            "subresource_uris": {
                "feedback": format!("{uri}/Feedback.json"),
                "user_defined_messages": format!("{uri}/UserDefinedMessages.json"),
                "notifications": format!("{uri}/Notifications.json"),
                "recordings": format!("{uri}/Recordings.json"),
                "streams": format!("{uri}/Streams.json"),
                "payments": format!("{uri}/Payments.json"),
                "user_defined_message_subscriptions": format!("{uri}/UserDefinedMessageSubscriptions.json"),
                "siprec": format!("{uri}/Siprec.json"),
                "events": format!("{uri}/Events.json"),
                "feedback_summaries": "/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Calls/FeedbackSummary.json",
            },
        })
    }

    #[test]
    fn real_answers_pass_easily() {
        // The call has the definition's fields, no more, no fewer.
        let definitions: Value = serde_json::from_str(include_str!(
            "../../../support/platform-api/oai-subset.json"
        ))
        .unwrap();
        let list_call = definitions["products"]["api"]["operations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|op| op["operationId"] == "ListCall")
            .unwrap();
        let mut fields: Vec<&String> = list_call["response"]["properties"]["calls"]["items"]
            ["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        fields.sort();
        let one = call(0);
        let mut ours: Vec<&String> = one.as_object().unwrap().keys().collect();
        ours.sort();
        assert_eq!(ours, fields);

        // A page of 1 000 calls: under half of either budget.
        let calls: Vec<Value> = (0..1000).map(call).collect();
        let page = serde_json::to_vec(&json!({
            "calls": calls, "next_page_uri": "/2010-04-01/Accounts/AC1/Calls.json?Page=1",
            "page": 0, "page_size": 1000, "start": 0, "end": 999,
        }))
        .unwrap();
        let (value, cost) = parse_costed(&page, MAX_ANSWER_COST).unwrap();
        assert_eq!(value["calls"].as_array().unwrap().len(), 1000);
        assert!(cost < MAX_ANSWER_COST / 2, "{cost}");
        assert!(cost < MAX_LIST_COST / 2, "{cost}");

        // A flow whose definition is over 1 MB of JSON.
        let states: Vec<Value> = (0..4500)
            .map(|n| {
                json!({
                    "name": format!("say_{n}"), "type": "say-play",
                    "transitions": [{"event": "audioComplete", "next": format!("say_{}", n + 1)}],
                    "properties": {"offset": {"x": n, "y": n * 200}, "loop": 1,
                                   "say": "Thank you for calling. Please hold while we connect you to the next agent."},
                })
            })
            .collect();
        let flow = serde_json::to_vec(&json!({
            "sid": "FW0123456789abcdef0123456789abcdef", "friendly_name": "wait experience",
            "status": "published", "revision": 12,
            "definition": {"description": "A flow", "states": states, "initial_state": "say_0",
                           "flags": {"allow_concurrent_calls": true}},
        }))
        .unwrap();
        assert!(flow.len() > 1_000_000, "{}", flow.len());
        let (value, cost) = parse_costed(&flow, MAX_ANSWER_COST).unwrap();
        assert_eq!(
            value["definition"]["states"].as_array().unwrap().len(),
            4500
        );
        assert!(
            cost < MAX_ANSWER_COST / 2,
            "{cost} for {} bytes",
            flow.len()
        );
    }

    #[test]
    fn urls_in_answers_lose_their_userinfo() {
        let answer = json!({
            "voice_url": "https://hook:canary-hook-pw@cc.example.com/voice?x=a@b",
            "nested": [{"text": "see http://u@h.example:8080/x and ftp://a:b@c/ then"}],
            "plain": "https://cc.example.com/voice?to=a@b.example",
            "mail": "ops@example.com",
        });
        let text = serde_json::to_vec(&answer).unwrap();
        let (answer, _) = parse_costed(&text, MAX_ANSWER_COST).unwrap();
        assert_eq!(
            answer["voice_url"],
            "https://[REDACTED]@cc.example.com/voice?x=a@b"
        );
        assert_eq!(
            answer["nested"][0]["text"],
            "see http://[REDACTED]@h.example:8080/x and ftp://[REDACTED]@c/ then"
        );
        assert_eq!(
            answer["plain"],
            "https://cc.example.com/voice?to=a@b.example"
        );
        assert_eq!(answer["mail"], "ops@example.com");
    }
}
