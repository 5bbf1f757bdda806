//! Every test `docs/reliability.md` names as proof of a behaviour exists,
//! so the page cannot point at a test that was renamed or removed.

use std::path::Path;

#[test]
fn every_test_the_reliability_page_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let page = std::fs::read_to_string(root.join("docs/reliability.md")).unwrap();
    let folders = [
        ("`core/", "ccfn-core/tests/"),
        ("`testkit/", "ccfn-testkit/tests/"),
        ("`examples/", "examples/contact-center/tests/"),
    ];
    let mut named = 0;
    let mut missing = Vec::new();
    for (prefix, folder) in folders {
        for (at, _) in page.match_indices(prefix) {
            let reference = &page[at + prefix.len()..];
            let reference = &reference[..reference.find('`').unwrap()];
            let Some((file, test)) = reference.split_once("::") else {
                continue;
            };
            named += 1;
            // A module of the crate's test binary `tests/it`, or a test
            // file with a binary of its own.
            let source = std::fs::read_to_string(root.join(folder).join("it").join(file))
                .or_else(|_| std::fs::read_to_string(root.join(folder).join(file)))
                .unwrap_or_default();
            if !source.contains(&format!("fn {test}(")) {
                missing.push(format!("{folder}{file}::{test}"));
            }
        }
    }
    assert!(named > 20, "the page names {named} tests");
    assert!(
        missing.is_empty(),
        "docs/reliability.md names tests that do not exist: {missing:#?}"
    );
}
