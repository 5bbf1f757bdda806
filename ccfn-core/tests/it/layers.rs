//! The core is built in one-way layers: every module names only modules
//! of its own layer or below, never one above (re-exports at the crate
//! root count as the root, the top). This test reads the sources and
//! fails on any path that points upwards, naming it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each module of `src/` (by path, without `.rs` or `/mod.rs`) and its
/// rank: a module may name only modules of a rank at or below its own,
/// and of a lower rank when it is in another folder.
const RANKS: &[(&str, u32)] = &[
    // Text and secrets: the foundation. An error shows the URLs in its
    // message by the secrets' URL rule, so it stands just above them.
    ("error", 2),
    ("text", 0),
    ("text/json", 0),
    ("text/xml", 0),
    ("signature", 0),
    ("params", 0),
    ("secret", 1),
    // The configuration: every variable ccfn reads, and their reader.
    ("config", 3),
    // The CA certificates every HTTP client trusts.
    ("tls", 4),
    // The voice markup.
    ("voice/tree", 3),
    ("voice/values", 3),
    ("voice/table", 4),
    ("voice/elements", 4),
    ("voice", 4),
    // The records and their writer.
    ("record/background", 4),
    ("record/value", 5),
    ("record/fields", 5),
    ("record/buffer", 6),
    ("record/scope", 7),
    ("record/catalogue", 8),
    ("record/entry", 9),
    ("record/format/json", 10),
    ("record/format/human", 10),
    ("record/format", 11),
    ("record/layer", 12),
    ("record/emit", 13),
    ("record/captured", 13),
    ("record/panic", 10),
    ("record/install", 16),
    ("record", 17),
    // The observer hook the invocations, clients and runtime report to,
    // and the exporter built in (it names OpenTelemetry's record sink).
    ("observe", 15),
    // OpenTelemetry export.
    ("otel/ids", 4),
    ("otel/settings", 4),
    // The scrubber reads the invocation's secrets through its records'
    // identity.
    ("otel/scrub", 10),
    ("otel/encode", 10),
    ("otel/export", 14),
    ("otel/layer", 14),
    ("otel/instruments", 16),
    ("otel/pipeline", 17),
    ("otel/span", 18),
    ("otel/client", 19),
    ("otel", 20),
    // The function model and its contract.
    ("function/metrics", 21),
    ("function/meta", 21),
    ("function/declared", 22),
    ("function/event", 23),
    ("function/callback", 23),
    ("function/context", 24),
    ("function/contract", 25),
    ("function", 26),
    // The clients.
    ("client/http", 31),
    ("client/email", 32),
    ("client/taskrouter", 32),
    ("client", 33),
    // The runtime.
    ("runtime/answer", 41),
    ("runtime/config", 41),
    ("runtime/feature", 41),
    ("runtime/params", 41),
    ("runtime/inspector/store", 41),
    ("runtime/inspector/hears", 41),
    ("runtime/inspector/page", 42),
    ("runtime/inspector", 44),
    ("runtime/serve", 42),
    ("runtime/state", 42),
    ("runtime/extract", 43),
    ("runtime/handler", 44),
    ("runtime/router", 45),
    ("runtime", 46),
    // What only tools and the macro's output use, and the root.
    ("fuzz", 51),
    ("__private", 51),
    ("lib", 52),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
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

/// Whether a file is a module of tests only (`#![cfg(test)]`): like the
/// tests at the end of a file, it may use anything.
fn is_test_only(text: &str) -> bool {
    text.lines().any(|line| line.trim() == "#![cfg(test)]")
}

/// `record/mod.rs` is module `record`; `record/emit.rs` is `record/emit`.
fn module_of(path: &Path) -> String {
    let relative = path.strip_prefix(src()).unwrap().with_extension("");
    let name = relative.to_str().unwrap().replace('\\', "/");
    name.strip_suffix("/mod")
        .map_or(name.clone(), str::to_owned)
}

/// The module a path such as `crate::record::emit::emit` names: the
/// longest prefix that is a module in `ranks`, or the root.
fn resolve(segments: &[&str], ranks: &BTreeMap<&str, u32>) -> String {
    for end in (1..=segments.len()).rev() {
        let candidate = segments[..end].join("/");
        if ranks.contains_key(candidate.as_str()) {
            return candidate;
        }
    }
    "lib".to_owned()
}

/// The paths that start with `crate::`, `super::` or `self::` in `code`,
/// each as its module-relative segments, with `{a, b::c}` groups of a
/// `use` expanded one level.
fn paths(code: &str) -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    for root in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(root) {
            let start = from + at;
            from = start + root.len();
            if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
                continue;
            }
            let rest = &code[from..];
            let path: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let mut segments: Vec<String> = path
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            let after = &rest[path.len()..];
            if after.starts_with('{') {
                let group = &after[1..after.find('}').unwrap_or(after.len())];
                for item in group.split(',') {
                    let item = item.trim();
                    let mut more = segments.clone();
                    more.extend(
                        item.split("::")
                            .map(|s| s.split_whitespace().next().unwrap_or(""))
                            .filter(|s| !s.is_empty() && *s != "self")
                            .map(str::to_owned),
                    );
                    found.push((root.trim_end_matches(':').to_owned(), more));
                }
            }
            segments.retain(|s| s != "self");
            found.push((root.trim_end_matches(':').to_owned(), segments));
        }
    }
    found
}

#[test]
fn no_module_names_a_module_above_it() {
    let ranks: BTreeMap<&str, u32> = RANKS.iter().copied().collect();
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let mut violations = Vec::new();
    for file in &files {
        let module = module_of(file);
        let text = std::fs::read_to_string(file).unwrap();
        if is_test_only(&text) {
            continue;
        }
        let Some(&rank) = ranks.get(module.as_str()) else {
            violations.push(format!("{module}: not in RANKS; give it its layer"));
            continue;
        };
        // Code only: doc comments may link to anything, and the tests
        // beside the code (at the end of a file) may use anything.
        let code: String = text
            .lines()
            .take_while(|line| !line.starts_with("#[cfg(test)]"))
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let folder = module.rsplit_once('/').map_or("", |(folder, _)| folder);
        let is_folder_root = file.ends_with("mod.rs");
        for (root, segments) in paths(&code) {
            let absolute: Vec<&str> = match root.as_str() {
                "crate" => segments.iter().map(String::as_str).collect(),
                "super" => {
                    let parent = if is_folder_root {
                        module.rsplit_once('/').map_or("", |(p, _)| p)
                    } else {
                        folder
                    };
                    parent
                        .split('/')
                        .filter(|s| !s.is_empty())
                        .chain(segments.iter().map(String::as_str))
                        .collect()
                }
                _ => {
                    let here = if is_folder_root {
                        module.as_str()
                    } else {
                        folder
                    };
                    here.split('/')
                        .filter(|s| !s.is_empty())
                        .chain(segments.iter().map(String::as_str))
                        .collect()
                }
            };
            let target = resolve(&absolute, &ranks);
            if target == module {
                continue;
            }
            let target_rank = ranks[target.as_str()];
            let same_folder = target.rsplit_once('/').map_or("", |(f, _)| f) == folder;
            // Two modules of one rank in one folder may name each other
            // only when they are the same module.
            let allowed = if same_folder {
                target_rank < rank
            } else {
                target_rank < rank && target != folder
            };
            // A folder's root may name its own children (to declare and
            // re-export them).
            let child = is_folder_root && target.starts_with(&format!("{module}/"));
            if !allowed && !child {
                violations.push(format!(
                    "{module} (rank {rank}) names {target} (rank {target_rank}) through `{root}::{}`",
                    segments.join("::")
                ));
            }
        }
    }
    violations.sort();
    violations.dedup();
    assert!(
        violations.is_empty(),
        "upward imports:\n{}",
        violations.join("\n")
    );
}

#[test]
fn every_module_has_a_rank() {
    let ranks: BTreeMap<&str, u32> = RANKS.iter().copied().collect();
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let mut modules: Vec<String> = files
        .iter()
        .filter(|f| !is_test_only(&std::fs::read_to_string(f).unwrap()))
        .map(|f| module_of(f))
        .collect();
    modules.sort();
    for module in &modules {
        assert!(
            ranks.contains_key(module.as_str()),
            "{module} has no rank in RANKS"
        );
    }
    for (module, _) in RANKS {
        assert!(
            modules.iter().any(|m| m == module),
            "RANKS names {module}, which is not in src/"
        );
    }
}

#[test]
fn the_checker_sees_an_upward_import() {
    let ranks: BTreeMap<&str, u32> = RANKS.iter().copied().collect();
    let found =
        paths("use crate::{client::http::HttpClient, Context};\nlet x = super::emit::emit;");
    let targets: Vec<String> = found
        .iter()
        .filter(|(root, _)| root == "crate")
        .map(|(_, s)| resolve(&s.iter().map(String::as_str).collect::<Vec<_>>(), &ranks))
        .collect();
    assert!(targets.contains(&"client/http".to_owned()), "{targets:?}");
    assert!(targets.contains(&"lib".to_owned()), "{targets:?}");
    assert!(found
        .iter()
        .any(|(root, s)| root == "super" && s[0] == "emit"));
}
