//! Every JSON example of `docs/logging-contract.md` is a record that a test
//! wrote and pinned in an `insta` snapshot, so the page cannot go stale.
//!
//! Each ```` ```json ```` block follows a comment that names its snapshot
//! (from the workspace root) and which of its records it shows, in order:
//! a step name for the first record of that step, `step#2` for the second,
//! or nothing for every record.
//!
//! ```text
//! <!-- snapshot: examples/contact-center/tests/it/snapshots/it__snapshots__wait_menu.snap validation#2 -->
//! ```
//!
//! A block's lines are those records, but for the snapshot's placeholders
//! (`[timestamp]`, `[ms]`, the `[port]` of a loopback URL, ...), which the
//! page fills with example values. With `CCFN_UPDATE_DOCS=1` the test
//! rewrites each block from its snapshot, keeping the page's example values
//! where they still fit (so an example value edited by hand stays), and
//! renders the human-format blocks that follow it (`Pretty:`, `Pretty,
//! every field ...:`) again.

use ccfn_core::record::LogFormat;
use serde_json::{Map, Value};

const PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/logging-contract.md");
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const MARKER: &str = "<!-- snapshot: ";

/// The placeholders snapshots put where a value changes from run to run,
/// and the value the page gives each when it has none of its own.
const PLACEHOLDERS: [(&str, &str); 14] = [
    ("[timestamp]", "\"2026-11-21T21:01:11.994Z\""),
    ("[invocation_id]", "\"96e3c94d1ee5533400000000\""),
    ("[ms]", "12"),
    ("[bytes]", "41943040"),
    ("[measured]", "9100"),
    ("[port]", "4011"),
    ("[n]", "9"),
    ("[line]", "42"),
    ("[column]", "17"),
    ("[id]", "8217950891599082"),
    ("[task_sid]", "\"WT0123456789abcdef0123456789abcdef\""),
    ("[store]", "\".ccfn/tasks.jsonl\""),
    ("[outbox]", "\".ccfn/outbox\""),
    ("[dir]", "\"/srv/contact-center\""),
];

type Record = Map<String, Value>;

/// The records of a `.snap` file: its JSON lines after the header.
fn snapshot(path: &str) -> Result<Vec<Record>, String> {
    let text = std::fs::read_to_string(format!("{ROOT}/{path}"))
        .map_err(|err| format!("cannot read {path}: {err}"))?;
    let body = text
        .splitn(3, "---\n")
        .nth(2)
        .ok_or_else(|| format!("{path} is not an insta snapshot"))?;
    body.lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str(line).map_err(|err| format!("{path}: {err}: {line}")))
        .collect()
}

/// The records `selectors` name, in their order.
fn select(records: &[Record], selectors: &[&str]) -> Result<Vec<Record>, String> {
    if selectors.is_empty() {
        return Ok(records.to_vec());
    }
    selectors
        .iter()
        .map(|selector| {
            let (step, nth) = match selector.split_once('#') {
                Some((step, n)) => (
                    step,
                    n.parse::<usize>()
                        .map_err(|_| format!("bad `{selector}`"))?,
                ),
                None => (*selector, 1),
            };
            records
                .iter()
                .filter(|record| record["step"] == step)
                .nth(nth.saturating_sub(1))
                .cloned()
                .ok_or_else(|| format!("no record `{selector}`"))
        })
        .collect()
}

/// Whether the page's `value` is the snapshot's `pattern`, where a
/// placeholder stands for any value (a whole value) or any word (inside a
/// string).
fn fits(pattern: &Value, value: &Value) -> bool {
    match (pattern, value) {
        (Value::String(p), _) if is_placeholder(p) => !value.is_null(),
        (Value::String(p), Value::String(v)) => glob(p, v),
        (Value::Array(p), Value::Array(v)) => {
            p.len() == v.len() && p.iter().zip(v).all(|(p, v)| fits(p, v))
        }
        (Value::Object(p), Value::Object(v)) => {
            p.len() == v.len()
                && p.iter()
                    .zip(v)
                    .all(|((pk, pv), (vk, vv))| pk == vk && fits(pv, vv))
        }
        _ => pattern == value,
    }
}

fn is_placeholder(text: &str) -> bool {
    PLACEHOLDERS.iter().any(|(p, _)| *p == text)
}

/// `text` matches `pattern`, where each placeholder matches one or more
/// characters that are neither space nor quote.
fn glob(pattern: &str, text: &str) -> bool {
    let next = PLACEHOLDERS
        .iter()
        .filter_map(|(p, _)| pattern.find(p).map(|at| (at, p.len())))
        .min();
    let Some((at, len)) = next else {
        return pattern == text;
    };
    let (head, tail) = (&pattern[..at], &pattern[at + len..]);
    let Some(rest) = text.strip_prefix(head) else {
        return false;
    };
    let word = rest
        .char_indices()
        .find(|(_, c)| c.is_whitespace() || *c == '"')
        .map_or(rest.len(), |(i, _)| i);
    (1..=word).any(|end| glob(tail, &rest[end..]))
}

/// The snapshot's `pattern` with the page's `old` value where it fits,
/// and example values for the placeholders elsewhere.
fn fill(pattern: &Value, old: Option<&Value>) -> Value {
    if let Some(old) = old.filter(|old| fits(pattern, old)) {
        return old.clone();
    }
    match pattern {
        Value::String(p) if is_placeholder(p) => {
            let example = PLACEHOLDERS.iter().find(|(q, _)| q == p).unwrap().1;
            serde_json::from_str(example).unwrap()
        }
        Value::String(p) => {
            let mut text = p.clone();
            for (placeholder, example) in PLACEHOLDERS {
                text = text.replace(placeholder, example.trim_matches('"'));
            }
            Value::String(text)
        }
        Value::Array(items) => Value::Array(items.iter().map(|p| fill(p, None)).collect()),
        Value::Object(members) => {
            let old = old.and_then(Value::as_object);
            Value::Object(
                members
                    .iter()
                    .map(|(key, p)| (key.clone(), fill(p, old.and_then(|o| o.get(key)))))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// A JSON block of the page and where its snapshot says it comes from.
struct Block {
    /// The marker's text after `snapshot: `.
    source: String,
    /// Line indexes of the block's JSON lines.
    lines: std::ops::Range<usize>,
}

/// The page's JSON blocks, or the JSON blocks that have no marker.
fn blocks(page: &[String]) -> (Vec<Block>, Vec<usize>) {
    let mut blocks = Vec::new();
    let mut unmarked = Vec::new();
    let mut marker: Option<String> = None;
    let mut at = 0;
    while at < page.len() {
        let line = &page[at];
        if let Some(rest) = line.strip_prefix(MARKER) {
            marker = Some(rest.trim_end_matches("-->").trim().to_owned());
        } else if line == "```json" {
            let start = at + 1;
            let end = start
                + page[start..]
                    .iter()
                    .position(|l| l.starts_with("```"))
                    .expect("a closed block");
            match marker.take() {
                Some(source) => blocks.push(Block {
                    source,
                    lines: start..end,
                }),
                None => unmarked.push(at + 1),
            }
            at = end;
        }
        at += 1;
    }
    (blocks, unmarked)
}

/// The lines `block` should hold, given its current lines.
fn expected(block: &Block, page: &[String]) -> Result<Vec<String>, String> {
    let mut words = block.source.split_whitespace();
    let path = words.next().ok_or("no snapshot named")?;
    let selectors: Vec<&str> = words.collect();
    let records = select(&snapshot(path)?, &selectors)?;
    let old: Vec<Option<Value>> = page[block.lines.clone()]
        .iter()
        .map(|line| serde_json::from_str(line).ok())
        .collect();
    Ok(records
        .iter()
        .enumerate()
        .map(|(i, record)| {
            let old = old
                .get(i)
                .and_then(Option::as_ref)
                .filter(|old| old["step"] == record["step"]);
            fill(&Value::Object(record.clone()), old).to_string()
        })
        .collect())
}

/// The human-format blocks right after the JSON block ending at `end`
/// (a line index of its closing fence), as (format, first line, end).
fn renderings(page: &[String], end: usize) -> Vec<(LogFormat, usize, usize)> {
    let mut out = Vec::new();
    let mut at = end + 1;
    let mut label = "";
    while at < page.len() {
        let line = page[at].as_str();
        if line.starts_with(MARKER) || line == "```json" || line.starts_with('#') {
            break;
        }
        if line.starts_with("```") {
            let start = at + 1;
            let stop = start
                + page[start..]
                    .iter()
                    .position(|l| l.starts_with("```"))
                    .unwrap();
            let format = match label {
                "Pretty:" => Some(LogFormat::Pretty),
                "Pretty, every field (`CCFN_LOG_DETAIL=full`):" => Some(LogFormat::PrettyFull),
                _ => None,
            };
            match format {
                Some(format) => out.push((format, start, stop)),
                None => break,
            }
            at = stop;
        } else if !line.trim().is_empty() {
            label = line;
        }
        at += 1;
    }
    out
}

#[test]
fn every_json_example_is_a_snapshot_s_record() {
    let text = std::fs::read_to_string(PAGE).unwrap();
    let mut page: Vec<String> = text.lines().map(str::to_owned).collect();
    let update = std::env::var_os("CCFN_UPDATE_DOCS").is_some();
    let (mut blocks, unmarked) = blocks(&page);
    let mut wrong: Vec<String> = unmarked
        .iter()
        .map(|line| format!("line {line}: a JSON block with no `{MARKER}..` comment before it"))
        .collect();
    // From the end, so that rewriting a block keeps the next ones' lines.
    blocks.reverse();
    let count = blocks.len();
    for block in &blocks {
        let lines = match expected(block, &page) {
            Ok(lines) => lines,
            Err(err) => {
                wrong.push(format!("line {}: {err}", block.lines.start));
                continue;
            }
        };
        let same = lines == page[block.lines.clone()];
        if same && !update {
            continue;
        }
        if !update {
            wrong.push(format!(
                "line {}: not the records of `{}`:\n{}\n--- the snapshot's ---\n{}",
                block.lines.start,
                block.source,
                page[block.lines.clone()].join("\n"),
                lines.join("\n")
            ));
            continue;
        }
        let records: Vec<Record> = lines
            .iter()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        for (format, start, stop) in renderings(&page, block.lines.end).into_iter().rev() {
            let rendered: Vec<String> = records
                .iter()
                .flat_map(|record| {
                    let text = format.render(record);
                    text.lines().map(str::to_owned).collect::<Vec<_>>()
                })
                .collect();
            page.splice(start..stop, rendered);
        }
        page.splice(block.lines.clone(), lines);
    }
    if update && wrong.is_empty() {
        std::fs::write(PAGE, page.join("\n") + "\n").unwrap();
    }
    assert!(
        count > 50,
        "only {count} marked examples: did the page change shape?"
    );
    assert!(
        wrong.is_empty(),
        "docs/logging-contract.md (run with CCFN_UPDATE_DOCS=1 to rewrite the blocks from their snapshots):\n{}",
        wrong.join("\n\n")
    );
}

#[test]
fn placeholders_fit_any_value_and_nothing_else() {
    let pattern = serde_json::json!({
        "timestamp": "[timestamp]",
        "url": "http://127.0.0.1:[port]/recordings/RE1.mp3",
        "message": "took [n] ms, over [n] ms",
        "memory_limit_bytes": null,
    });
    let page = serde_json::json!({
        "timestamp": "2026-11-21T21:01:11.994Z",
        "url": "http://127.0.0.1:4011/recordings/RE1.mp3",
        "message": "took 9100 ms, over 8000 ms",
        "memory_limit_bytes": null,
    });
    assert!(fits(&pattern, &page));
    for (key, other) in [
        ("url", "http://127.0.0.1:4011/recordings/RE2.mp3"),
        ("message", "took 9100 ms, over  ms"),
        ("message", "took 9100 ms"),
    ] {
        let mut changed = page.clone();
        changed[key] = Value::from(other);
        assert!(!fits(&pattern, &changed), "{key}: {other}");
    }
    let mut null = page.clone();
    null["timestamp"] = Value::Null;
    assert!(!fits(&pattern, &null));
    // `[REDACTED]` is a value, not a placeholder.
    assert!(!fits(&Value::from("[REDACTED]"), &Value::from("canary")));
    // Filling keeps what fits and gives examples to the rest.
    let mut stale = page.clone();
    stale["url"] = Value::from("http://127.0.0.1:4011/old");
    let filled = fill(&pattern, Some(&stale));
    assert_eq!(filled["timestamp"], "2026-11-21T21:01:11.994Z");
    assert_eq!(filled["url"], "http://127.0.0.1:4011/recordings/RE1.mp3");
    assert_eq!(filled["message"], "took 9100 ms, over 8000 ms");
}
