//! The settings table of `docs/runtime.md` lists exactly the variables
//! of the catalogue (`ccfn_core::config::SETTINGS`), with their defaults;
//! ccfn-core reads the environment only through that catalogue; and every
//! variable name the workspace's code reads (a name looked up in a
//! context or the environment, a name of `env = [..]`, any string literal
//! such as `"CALLBACK_QUEUE_SID"`) is in the catalogue or, for an example,
//! in the README's table of the examples' own variables. So the tables
//! list every variable the code reads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ccfn_core::config::SETTINGS;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The rows of the first table after the heading `## {heading}` of the
/// page `path` (from the workspace's root) that name a variable: name,
/// then default cell.
fn table(path: &str, heading: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    let section = text
        .split(&format!("\n## {heading}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("{path} has a `## {heading}` section"));
    let section = section.split("\n## ").next().unwrap_or(section);
    let table = section
        .lines()
        .skip_while(|line| !line.starts_with("| Variable |"))
        .take_while(|line| line.starts_with('|'));
    let mut rows = Vec::new();
    for line in table.skip(2) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        assert!(cells.len() >= 3, "a row without three cells: {line}");
        let name = cells[0];
        // A row such as "any other variable" names no variable.
        let Some(name) = name.strip_prefix('`').and_then(|n| n.strip_suffix('`')) else {
            continue;
        };
        assert!(!name.contains('`'), "one variable per row, please: {line}");
        rows.push((name.to_owned(), cells[1].to_owned()));
    }
    assert!(
        !rows.is_empty(),
        "{path}, `## {heading}`: no `| Variable |` table"
    );
    rows
}

/// The rows of the settings table of `docs/runtime.md`.
fn documented() -> Vec<(String, String)> {
    table("docs/runtime.md", "Configuration")
}

/// The variables of the examples' own, beyond the catalogue: the table of
/// the README's `## Examples` section.
fn examples_documented() -> Vec<String> {
    table("README.md", "Examples")
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn the_settings_table_lists_exactly_the_catalogue_with_its_defaults() {
    let rows = documented();
    let table: BTreeMap<&str, &str> = rows.iter().map(|(n, d)| (n.as_str(), d.as_str())).collect();
    assert_eq!(table.len(), rows.len(), "a variable is listed twice");
    let missing: Vec<&str> = SETTINGS
        .iter()
        .map(|s| s.name())
        .filter(|name| !table.contains_key(name))
        .collect();
    let unknown: Vec<&str> = table
        .keys()
        .copied()
        .filter(|name| !SETTINGS.iter().any(|s| s.name() == *name))
        .collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "docs/runtime.md's settings table lacks {missing:?} and lists {unknown:?}, which ccfn does not read"
    );
    for setting in SETTINGS {
        assert_eq!(
            table[setting.name()],
            setting.default_value().documented(),
            "the default of {} in docs/runtime.md",
            setting.name()
        );
    }
}

#[test]
fn the_settings_table_is_in_the_catalogue_order() {
    let documented: Vec<String> = documented().into_iter().map(|(name, _)| name).collect();
    let catalogue: Vec<&str> = SETTINGS.iter().map(|s| s.name()).collect();
    assert_eq!(documented, catalogue);
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The folders of the workspace's members, from the workspace's root
/// (`members` of its `Cargo.toml`, a trailing `/*` expanded).
fn members() -> Vec<String> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let list = manifest
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("the workspace's Cargo.toml lists its members");
    let mut members = Vec::new();
    for member in list.split(',').map(|m| m.trim().trim_matches('"')) {
        if let Some(parent) = member.strip_suffix("/*") {
            let mut found: Vec<String> = std::fs::read_dir(root().join(parent))
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .filter(|path| path.join("Cargo.toml").exists())
                .map(|path| format!("{parent}/{}", path.file_name().unwrap().to_string_lossy()))
                .collect();
            found.sort();
            members.extend(found);
        } else if !member.is_empty() {
            members.push(member.to_owned());
        }
    }
    members
}

/// The code of each source file of `src/` of the member `member`
/// (`ccfn-core`, `examples/contact-center`): without the tests at its end
/// or files of tests only (`#![cfg(test)]`), and without comment lines.
fn code_of(member: &str) -> Vec<(String, String)> {
    let src = root().join(member).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            let test_only = text.lines().any(|line| line.trim() == "#![cfg(test)]");
            let code = text
                .lines()
                .take_while(|line| !test_only && !line.starts_with("#[cfg(test)]"))
                .filter(|line| !line.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            let name = file.strip_prefix(&src).unwrap().display().to_string();
            (name.replace('\\', "/"), code)
        })
        .collect()
}

/// The code of ccfn-core's source files.
fn code() -> Vec<(String, String)> {
    code_of("ccfn-core")
}

#[test]
fn only_the_config_module_reads_the_environment() {
    for (file, code) in code() {
        if file == "config.rs" {
            continue;
        }
        for reader in [
            "env::var(",
            "env::var_os(",
            "env::vars(",
            "env::vars_os(",
            "dotenvy::",
        ] {
            assert!(
                !code.contains(reader),
                "{file} reads the environment with `{reader}`: read a setting of ccfn_core::config instead"
            );
        }
    }
}

/// The string literals of `code`, in order: plain, byte and raw strings,
/// with what is inside char literals and comments left out.
fn literals(code: &str) -> Vec<&str> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                at = code[at..].find('\n').map_or(bytes.len(), |end| at + end);
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at = code[at + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |end| at + 2 + end + 2);
            }
            // `'"'`, `'\''` and `'\u{22}'` are chars; `'a` is a lifetime.
            b'\'' if bytes.get(at + 1) == Some(&b'\\') => {
                at = code[at + 2..]
                    .find('\'')
                    .map_or(bytes.len(), |end| at + 2 + end + 1);
            }
            b'\'' => {
                let len = code[at + 1..].chars().next().map_or(1, char::len_utf8);
                at += if bytes.get(at + 1 + len) == Some(&b'\'') {
                    len + 2
                } else {
                    1
                };
            }
            b'r' if (at == 0
                || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_'))
                && matches!(bytes.get(at + 1), Some(b'"' | b'#')) =>
            {
                let hashes = bytes[at + 1..].iter().take_while(|b| **b == b'#').count();
                let start = at + 1 + hashes;
                if bytes.get(start) != Some(&b'"') {
                    at += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let end = code[start + 1..]
                    .find(&close)
                    .map_or(bytes.len(), |end| start + 1 + end);
                found.push(&code[start + 1..end]);
                at = end + close.len();
            }
            b'"' => {
                let mut end = at + 1;
                while end < bytes.len() && bytes[end] != b'"' {
                    end += if bytes[end] == b'\\' { 2 } else { 1 };
                }
                found.push(&code[at + 1..end.min(bytes.len())]);
                at = end + 1;
            }
            _ => at += 1,
        }
    }
    found
}

/// Whether `text` looks like a variable's name: upper-case letters and
/// digits in words joined by `_` (`CALLBACK_QUEUE_SID`).
fn looks_like_a_variable(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_uppercase())
        && text.contains('_')
        && !text.ends_with('_')
        && text
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Every variable name `code` reads: each string literal that looks like
/// one; each name looked up in a context or the environment by a literal
/// (`context.get("workflowSid")`); each name of an `env = [..]` list.
fn names_read(code: &str) -> Vec<String> {
    let mut names: Vec<String> = literals(code)
        .into_iter()
        .filter(|text| looks_like_a_variable(text))
        .map(str::to_owned)
        .collect();
    for call in [
        "context.get(\"",
        "context.required(\"",
        "context.secret(\"",
        "context.required_secret(\"",
        "context.is_present(\"",
        "context.with_default(\"",
        "env::var(\"",
        "env::var_os(\"",
    ] {
        for (at, _) in code.match_indices(call) {
            let rest = &code[at + call.len()..];
            names.push(rest[..rest.find('"').unwrap_or(0)].to_owned());
        }
    }
    for list in ["env = [", "secrets = ["] {
        for (at, _) in code.match_indices(list) {
            let rest = &code[at + list.len()..];
            let list = &rest[..rest.find(']').unwrap_or(0)];
            // Names only: `env = [..]` in a message is no list.
            names.extend(
                list.split(',')
                    .map(|name| name.trim().trim_matches('"'))
                    .filter(|name| {
                        !name.is_empty()
                            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    })
                    .map(str::to_owned),
            );
        }
    }
    names
}

#[test]
fn names_read_are_found_however_the_code_reads_them() {
    let code = r##"
        let a = context.get("workflowSid").or(context.get("CALLBACK_QUEUE_SID"));
        let b = std::env::var("CCFN_ADDR");
        let c = '"'; let d = '\''; let e: &'static str = "not a VARIABLE";
        let f = r#"a "raw" RAW_TEXT"#; /* "BLOCK_COMMENT" */
        #[contact_fn(required = [CallSid], env = [PLATFORM_WORKSPACE_SID, "VOICEMAIL_TO"])]
        const DEFAULTS: [(&str, &str); 1] = [("DEFAULT_LANGUAGE", "en-US")];
        let g = "DEFAULT_LANGUAGE_"; let h = "LOG"; let i = "Digits";
    "##;
    let mut names = names_read(code);
    names.sort();
    names.dedup();
    assert_eq!(
        names,
        [
            "CALLBACK_QUEUE_SID",
            "CCFN_ADDR",
            "DEFAULT_LANGUAGE",
            "PLATFORM_WORKSPACE_SID",
            "VOICEMAIL_TO",
            "workflowSid"
        ]
    );
    assert_eq!(literals(r#"x = "a\"b"; y = b"c";"#), [r#"a\"b"#, "c"]);
}

#[test]
fn every_name_the_code_reads_is_in_a_settings_table() {
    let examples = examples_documented();
    let cli: Vec<String> = table("docs/diagnostics.md", "The `ccfn` command")
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    let mut unknown = Vec::new();
    let mut read_by_examples = Vec::new();
    // The macro crate reads no variable: its names are examples in its
    // diagnostics.
    for member in members().into_iter().filter(|m| m != "ccfn-macros") {
        let example = member.starts_with("examples/");
        for (file, code) in code_of(&member) {
            for name in names_read(&code) {
                let documented = SETTINGS.iter().any(|s| s.name() == name)
                    || (example && examples.contains(&name))
                    || (member == "ccfn-cli" && cli.contains(&name))
                    // The fake platform hands out the variables that point
                    // the command at it.
                    || (member == "support" && cli.contains(&name));
                if example {
                    read_by_examples.push(name.clone());
                }
                if !documented {
                    unknown.push(format!("{member}/src/{file}: {name}"));
                }
            }
        }
    }
    unknown.sort();
    unknown.dedup();
    assert!(
        unknown.is_empty(),
        "names the code reads that neither the catalogue (ccfn_core::config::SETTINGS, \
         the table of docs/runtime.md) nor, for an example, the README's table of the \
         examples' variables, nor, for the `ccfn` command, the table of docs/diagnostics.md \
         lists: {unknown:#?}"
    );
    for name in &examples {
        assert!(
            read_by_examples.contains(name),
            "the README lists `{name}`, which no example reads"
        );
        assert!(
            !SETTINGS.iter().any(|s| s.name() == name),
            "the README lists `{name}`, which is ccfn's: it belongs in docs/runtime.md"
        );
    }
}

/// `(major, minor)` of a Rust version such as `1.88` or `1.88.0`.
fn rust_version(text: &str) -> (u32, u32) {
    let mut parts = text.split('.').map(|part| part.parse::<u32>().unwrap());
    (parts.next().unwrap(), parts.next().unwrap_or(0))
}

/// The workspace's `rust-version` is the oldest Rust that builds the
/// locked tree: no locked package declares a newer one (`cargo metadata`
/// reads each package's own `rust-version`), and the README, the getting
/// started guide and the deployment guide's image name that version.
#[test]
fn the_declared_rust_version_builds_the_locked_tree_and_the_docs_say_it() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let declared = manifest
        .lines()
        .find_map(|line| line.strip_prefix("rust-version = "))
        .expect("the workspace declares a rust-version")
        .trim_matches('"')
        .to_owned();
    let output = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let newer: Vec<String> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|package| {
            let needs = package["rust_version"].as_str()?;
            (rust_version(needs) > rust_version(&declared)).then(|| {
                format!(
                    "{} {} needs Rust {needs}",
                    package["name"].as_str().unwrap_or("?"),
                    package["version"].as_str().unwrap_or("?")
                )
            })
        })
        .collect();
    assert!(
        newer.is_empty(),
        "rust-version = {declared}, but the lock holds {newer:#?}"
    );
    for (page, says) in [
        ("README.md", format!("Rust {declared}.")),
        ("docs/getting-started.md", format!("({declared} or later)")),
        ("docs/contributing.md", format!("Rust {declared} or later")),
        (
            "docs/deployment.md",
            format!("FROM rust:{declared} AS build"),
        ),
    ] {
        let text = std::fs::read_to_string(root().join(page)).unwrap();
        assert!(text.contains(&says), "{page} does not say {says:?}");
    }
}
