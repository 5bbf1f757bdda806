//! Every JSON line quoted in `docs/logging-contract.md` is one ccfn could
//! write: a step of the catalogue, at one of its levels, with the common
//! fields in their order and exactly the step's fields (its optional ones
//! allowed), and the task router's causes as the code names them. And the page's generated blocks (the steps
//! at a glance, the sensitive words) are what the code says.

use ccfn_core::record::{self, COMMON_FIELDS};
use serde_json::{Map, Value};

fn page() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/logging-contract.md");
    std::fs::read_to_string(path).expect("docs/logging-contract.md")
}

/// What is wrong with `line`, if anything.
fn problems(line: &Map<String, Value>) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(name) = line.get("step").and_then(Value::as_str) else {
        return vec!["no step".to_owned()];
    };
    let Some(step) = record::step(name) else {
        return vec![format!("step `{name}` is not in the catalogue")];
    };
    let level = line.get("level").and_then(Value::as_str).unwrap_or("");
    if !step.levels().iter().any(|l| l.as_str() == level) {
        problems.push(format!("level `{level}` is not one of `{name}`'s"));
    }
    let keys: Vec<&str> = line.keys().map(String::as_str).collect();
    let common: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| COMMON_FIELDS.contains(k) && !(name == "caller" && *k == "call_sid"))
        .collect();
    let in_order: Vec<&str> = COMMON_FIELDS
        .iter()
        .copied()
        .filter(|k| common.contains(k))
        .collect();
    if common != in_order {
        problems.push(format!("common fields out of order: {common:?}"));
    }
    for required in ["timestamp", "level", "step", "message"] {
        if !keys.contains(&required) {
            problems.push(format!("no `{required}`"));
        }
    }
    if !step.is_open() {
        for field in step.fields() {
            if !keys.contains(field) {
                problems.push(format!("no field `{field}`"));
            }
        }
        for key in &keys {
            if !COMMON_FIELDS.contains(key)
                && !step.fields().contains(key)
                && !step.optional().contains(key)
            {
                problems.push(format!("`{key}` is not a field of `{name}`"));
            }
        }
    }
    if name == "task_error" {
        let cause = line["cause"].as_str().unwrap_or("");
        if record::task_error_cause(cause).is_none() {
            problems.push(format!("cause `{cause}` is not one the task router gives"));
        }
    }
    problems
}

#[test]
fn every_quoted_line_is_one_ccfn_could_write() {
    let page = page();
    let mut wrong = Vec::new();
    let mut in_json = false;
    let mut count = 0;
    for (number, line) in page.lines().enumerate() {
        match line {
            "```json" => in_json = true,
            "```" => in_json = false,
            _ if in_json && line.starts_with("{\"timestamp\"") => {
                count += 1;
                match serde_json::from_str::<Value>(line) {
                    Ok(Value::Object(record)) => {
                        for problem in problems(&record) {
                            wrong.push(format!("line {}: {problem}", number + 1));
                        }
                    }
                    _ => wrong.push(format!("line {}: not a JSON object", number + 1)),
                }
            }
            _ => {}
        }
    }
    assert!(
        count > 50,
        "only {count} example lines found: did the page change shape?"
    );
    assert!(wrong.is_empty(), "docs/logging-contract.md: {wrong:#?}");
}

#[test]
fn the_checker_sees_a_wrong_line() {
    let line = serde_json::json!({
        "timestamp": "2026-11-21T21:01:11.994Z", "level": "INFO", "step": "processing",
        "message": "Processing mode: initial", "mode": "initial", "extra": 1
    });
    assert_eq!(
        problems(line.as_object().unwrap()),
        ["`extra` is not a field of `processing`"]
    );
}

/// GitHub's anchor for a heading: lowercase, spaces to `-`, punctuation
/// other than `-` and `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The "Steps at a glance" table: every step of the catalogue, its
/// levels, what it is for, the fields the brief human format shows
/// (`#[headline]` in the catalogue), and the section that describes it (the
/// heading above where the page first introduces it: "Step `name`",
/// "step `name`", or a `### `name`` heading).
fn steps_table(page: &str) -> String {
    let mut table = String::from(
        "| Step | Level | What it is for | Headline fields | Section |\n|---|---|---|---|---|\n",
    );
    for step in record::ALL {
        let name = step.name();
        let at = [
            format!("Step `{name}`"),
            format!("Step: `{name}`"),
            format!("step `{name}`"),
            format!("### `{name}`"),
        ]
        .iter()
        .filter_map(|needle| page.find(needle.as_str()))
        .min()
        .unwrap_or_else(|| panic!("no section introduces step `{name}`"));
        let heading = page[..at]
            .lines()
            .rev()
            .find(|line| line.starts_with("## ") || line.starts_with("### "))
            .unwrap_or_else(|| panic!("no heading above step `{name}`"));
        // A heading that names the step wins.
        let named = page.lines().find(|line| {
            (line.starts_with("## ") || line.starts_with("### "))
                && line.contains(&format!("`{name}`"))
        });
        let heading = named.unwrap_or(heading);
        let levels: Vec<&str> = step.levels().iter().map(|l| l.as_str()).collect();
        let headline = if step.is_open() {
            "every field of the handler's line".to_owned()
        } else if step.headline().is_empty() {
            "none".to_owned()
        } else {
            let names: Vec<String> = step.headline().iter().map(|f| format!("`{f}`")).collect();
            names.join(", ")
        };
        table.push_str(&format!(
            "| `{name}` | {} | {} | {headline} | [{}](#{}) |\n",
            levels.join(", "),
            step.summary().trim().replace('|', "\\|"),
            heading.trim_start_matches('#').trim().replace('`', ""),
            anchor(heading)
        ));
    }
    table
}

/// Checks that the block between `begin` and `end` in
/// `docs/logging-contract.md` is `generated`; with `CCFN_UPDATE_DOCS` set,
/// writes it there instead.
#[track_caller]
fn generated_block(begin: &str, end: &str, generated: &str) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/logging-contract.md");
    let page = page();
    let start = page
        .find(begin)
        .expect("the generated block's start marker")
        + begin.len();
    let stop = start + page[start..].find(end).expect("its end marker");
    if page[start..stop] != *generated && std::env::var_os("CCFN_UPDATE_DOCS").is_some() {
        std::fs::write(
            path,
            format!("{}{generated}{}", &page[..start], &page[stop..]),
        )
        .unwrap();
        return;
    }
    assert_eq!(
        page[start..stop],
        *generated,
        "run with CCFN_UPDATE_DOCS=1 to update docs/logging-contract.md"
    );
}

/// The table is generated from the catalogue: run with
/// `CCFN_UPDATE_DOCS=1` to write it.
#[test]
fn the_steps_at_a_glance_are_the_catalogue() {
    generated_block("<!-- steps -->\n", "<!-- /steps -->", &steps_table(&page()));
}

/// The docs' list of sensitive words is generated from
/// `record::SENSITIVE_WORDS`: run with `CCFN_UPDATE_DOCS=1` to write it.
#[test]
fn the_sensitive_words_of_the_docs_are_the_code_s() {
    let generated = record::SENSITIVE_WORDS
        .iter()
        .map(|word| format!("`{word}`"))
        .collect::<Vec<_>>()
        .join(", ");
    generated_block(
        "<!-- sensitive-words -->",
        "<!-- /sensitive-words -->",
        &generated,
    );
    // No other page keeps a list of its own.
    let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs");
    for entry in std::fs::read_dir(docs).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name != "logging-contract.md" {
            assert!(
                !text.contains("`token`, `secret`"),
                "{name} lists the sensitive words: link to logging-contract.md#sensitive-names"
            );
        }
    }
}
