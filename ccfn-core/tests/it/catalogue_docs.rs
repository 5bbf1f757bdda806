//! `docs/logging-contract.md` and the record catalogue say the same thing:
//! every step and every field of the catalogue is documented there, and
//! every step the page names is in the catalogue.

use ccfn_core::record::{self, ALL};

fn page() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/logging-contract.md");
    std::fs::read_to_string(path).expect("docs/logging-contract.md")
}

#[test]
fn every_step_and_field_is_documented() {
    let page = page();
    let mut missing = Vec::new();
    for step in ALL {
        if !page.contains(&format!("`{}`", step.name())) {
            missing.push(format!("step `{}`", step.name()));
        }
        for field in step.fields().iter().chain(step.optional()) {
            // A field table's row, or a field named in a row's text.
            if !page.contains(&format!("| `{field}` |")) && !page.contains(&format!("`{field}`")) {
                missing.push(format!("field `{field}` of `{}`", step.name()));
            }
        }
    }
    for field in record::COMMON_FIELDS {
        if !page.contains(&format!("| `{field}` |")) {
            missing.push(format!("common field `{field}`"));
        }
    }
    assert!(
        missing.is_empty(),
        "docs/logging-contract.md does not document: {missing:#?}"
    );
}

#[test]
fn every_step_the_page_names_is_in_the_catalogue() {
    let page = page();
    let mut unknown = Vec::new();
    // The page introduces each record as "Step `name`" and lists steps in
    // the first column of its tables.
    for (at, _) in page.match_indices("Step `") {
        let rest = &page[at + 6..];
        let name = &rest[..rest.find('`').unwrap()];
        if record::step(name).is_none() {
            unknown.push(name.to_owned());
        }
    }
    // The first column of tables headed `| Step |`.
    let mut in_step_table = false;
    for line in page.lines() {
        if !line.starts_with('|') {
            in_step_table = false;
        } else if line.starts_with("| Step |") {
            in_step_table = true;
        } else if let (true, Some(rest)) = (in_step_table, line.strip_prefix("| `")) {
            let name = &rest[..rest.find('`').unwrap()];
            if record::step(name).is_none() {
                unknown.push(name.to_owned());
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "steps not in the catalogue: {unknown:?}"
    );
}

/// The fenced blocks of a page, each with the paragraph line before it
/// (its label, such as `JSON line:`) and its text.
fn blocks(page: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut label = String::new();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("```") {
            let text: Vec<&str> = lines
                .by_ref()
                .take_while(|l| !l.starts_with("```"))
                .collect();
            blocks.push((std::mem::take(&mut label), text.join("\n")));
        } else if !line.trim().is_empty() {
            label = line.to_owned();
        }
    }
    blocks
}

/// The examples of the human format in `docs/logging-contract.md` and
/// `docs/runtime.md`, each after the JSON lines it shows (`Pretty:` brief,
/// then with every field), are what ccfn writes for those lines.
#[test]
fn every_human_example_is_its_json_lines_rendering() {
    use ccfn_core::record::LogFormat;
    let mut wrong = Vec::new();
    let mut checked = [0, 0];
    let mut brief_lines = std::collections::BTreeSet::new();
    for name in ["logging-contract.md", "runtime.md"] {
        let path = format!("{}/../docs/{name}", env!("CARGO_MANIFEST_DIR"));
        let page = std::fs::read_to_string(path).unwrap();
        let mut json: Option<String> = None;
        for (label, text) in blocks(&page) {
            if label.starts_with("JSON line") {
                json = Some(text);
                continue;
            }
            let (format, count) = match label.as_str() {
                "Pretty:" => (LogFormat::Pretty, &mut checked[0]),
                "Pretty, every field (`CCFN_LOG_DETAIL=full`):" => {
                    (LogFormat::PrettyFull, &mut checked[1])
                }
                _ => continue,
            };
            let Some(lines) = &json else {
                wrong.push(format!("{name}: `{label}` follows no JSON line"));
                continue;
            };
            let rendered: Vec<String> = lines
                .lines()
                .map(|line| format.render(&serde_json::from_str(line).unwrap()))
                .collect();
            if format == LogFormat::Pretty {
                brief_lines.extend(rendered.iter().cloned());
            }
            let rendered = rendered.join("\n");
            *count += 1;
            if rendered != text {
                wrong.push(format!(
                    "{name}: {label}\n{text}\n--- renders as ---\n{rendered}"
                ));
            }
        }
    }
    // A brief line quoted elsewhere (in a list, say) is one of these.
    for name in ["logging-contract.md", "runtime.md"] {
        let path = format!("{}/../docs/{name}", env!("CARGO_MANIFEST_DIR"));
        let page = std::fs::read_to_string(path).unwrap();
        for line in page.lines().map(str::trim) {
            let time = line.split(' ').next().unwrap_or("");
            let is_brief = time.len() == 13 && time.ends_with('Z') && time.as_bytes()[2] == b':';
            if is_brief && !brief_lines.contains(line) {
                wrong.push(format!(
                    "{name}: a brief line no JSON line renders as: {line}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    assert!(checked[0] > 0);
    assert_eq!(checked[0], checked[1], "each example in both details");
}

/// Every page that lists the `task_error` causes lists exactly the
/// catalogue's: the cause table of `docs/diagnostics.md` and of
/// `docs/external-calls.md` (one row each), and the `cause` field's row of
/// `docs/logging-contract.md`.
#[test]
fn every_list_of_task_error_causes_is_the_catalogue_s() {
    let causes: Vec<&str> = record::TASK_ERROR_CAUSES.iter().map(|c| c.name).collect();
    let mut sorted = causes.clone();
    sorted.sort_unstable();
    for name in ["diagnostics.md", "external-calls.md"] {
        let text =
            std::fs::read_to_string(format!("{}/../docs/{name}", env!("CARGO_MANIFEST_DIR")))
                .unwrap();
        let mut rows: Vec<&str> = text
            .lines()
            .skip_while(|line| !line.starts_with("| `cause` |"))
            .skip(2)
            .take_while(|line| line.starts_with("| `"))
            .map(|line| line["| `".len()..].split('`').next().unwrap())
            .collect();
        rows.sort_unstable();
        assert_eq!(rows, sorted, "docs/{name}: the table of causes");
    }
    let page = page();
    let row = page
        .lines()
        .find(|line| line.starts_with("| `cause` | `workflow_not_found`"))
        .expect("the `cause` field's row");
    let mut listed: Vec<&str> = row.split('`').skip(3).step_by(2).collect();
    listed.sort_unstable();
    assert_eq!(
        listed, sorted,
        "logging-contract.md: the `cause` field's row"
    );
}
