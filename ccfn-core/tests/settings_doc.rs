//! The settings table of `docs/runtime.md` lists exactly the variables
//! of the catalogue (`ccfn_core::config::SETTINGS`), with their defaults;
//! and the code reads the environment only through that catalogue, so the
//! table lists exactly the variables the code reads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ccfn_core::config::SETTINGS;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The rows of the first table after the `## Configuration` heading of
/// `docs/runtime.md` that name a variable: name, then default cell.
fn documented() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("docs/runtime.md")).unwrap();
    let section = text
        .split("\n## Configuration\n")
        .nth(1)
        .expect("docs/runtime.md has a `## Configuration` section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let table = section
        .lines()
        .skip_while(|line| !line.starts_with('|'))
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
    rows
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

/// The code of each source file of `src/`: without comments and without
/// the tests at its end.
fn code() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            let code = text
                .lines()
                .take_while(|line| !line.starts_with("#[cfg(test)]"))
                .filter(|line| !line.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            let name = file.strip_prefix(&src).unwrap().display().to_string();
            (name.replace('\\', "/"), code)
        })
        .collect()
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

#[test]
fn every_name_the_code_looks_up_in_the_context_is_in_the_catalogue() {
    // The code the config module cannot reach yet looks values up by name;
    // each name it uses must still be a setting of the catalogue.
    let mut unknown = Vec::new();
    for (file, code) in code() {
        for call in [
            "context.get(\"",
            "context.secret(\"",
            "context.is_present(\"",
            "context.with_default(\"",
        ] {
            for (at, _) in code.match_indices(call) {
                let rest = &code[at + call.len()..];
                let name = &rest[..rest.find('"').unwrap_or(0)];
                if !SETTINGS.iter().any(|s| s.name() == name) {
                    unknown.push(format!("{file}: {name}"));
                }
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "names read from the context but missing from ccfn_core::config::SETTINGS: {unknown:?}"
    );
}
