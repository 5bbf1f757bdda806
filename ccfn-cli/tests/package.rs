//! `ccfn package` on logs the example functions wrote, with a secret of
//! the environment planted in a line of the log: every file of the
//! package, and its `.tar.gz`, must be free of it.

mod common;

use std::io::Read as _;
use std::process::Command;

use common::{call, invocations, log_text, temp_dir, write};
use serde_json::Value;

const CANARY: &str = "canary-package-secret-5e7a91";

#[tokio::test]
async fn the_package_holds_the_evidence_and_no_secret() {
    let made = invocations().await;
    let dir = temp_dir("package");
    // A line from a version that leaked the key, and a caller's password
    // the runtime hid.
    let mut text = log_text(&made);
    text.push_str(&format!(
        "{{\"timestamp\":\"2026-11-21T21:01:15.907Z\",\"level\":\"INFO\",\"function\":\"wait-experience\",\"step\":\"log\",\"message\":\"calling with {CANARY}\",\"target\":\"old\"}}\n"
    ));
    let log = write(&dir, "app.log", &text);
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/features/x", closed.local_addr().unwrap());
    drop(closed);
    let output = Command::new(env!("CARGO_BIN_EXE_ccfn"))
        .args([
            "package",
            "--logs",
            log.to_str().unwrap(),
            "--url",
            &url,
            "-o",
            out.to_str().unwrap(),
        ])
        .env("EMAILPROVIDER_API_KEY", CANARY)
        .env_remove("AUTH_TOKEN")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    let folder = std::path::PathBuf::from(lines[0]);
    let name = folder.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(
        name.starts_with("ccfn-package-")
            && name.ends_with('Z')
            && name.len() == "ccfn-package-20261123T103314Z".len(),
        "{name}"
    );
    assert_eq!(lines[1], format!("{}.tar.gz", folder.display()));

    let read = |file: &str| {
        std::fs::read_to_string(folder.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
    };
    let mut files: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "README.md",
            "diagnose.json",
            "diagnose.txt",
            "environment.txt",
            "errors.txt",
            "invocations.txt",
            "probe.json",
            "probe.txt",
            "records.jsonl",
            "reproduce.sh"
        ]
    );
    // The records, all of them, the planted one scrubbed.
    let records = read("records.jsonl");
    assert_eq!(records.lines().count(), text.lines().count());
    assert!(records.contains("calling with [REDACTED]"));
    // One summary per invocation; the exact errors.
    assert_eq!(read("invocations.txt").lines().count(), made.len());
    let errors = read("errors.txt");
    assert!(
        errors.contains("[validation_error] Missing required parameter: To"),
        "{errors}"
    );
    assert!(
        errors.contains("[task_error] Task routing failed"),
        "{errors}"
    );
    // The verdict and the probe.
    let verdict: Value = serde_json::from_str(&read("diagnose.json")).unwrap();
    assert_eq!(verdict["answer"], "no");
    assert!(read("diagnose.txt").contains("Stopped at question 2 (no)"));
    let probe: Value = serde_json::from_str(&read("probe.json")).unwrap();
    assert_eq!(probe["passed"], false);
    // A command per failing invocation, valid shell.
    let script = read("reproduce.sh");
    let failing = script
        .lines()
        .filter(|l| l.starts_with("ccfn probe \"$URL\""))
        .count();
    assert_eq!(failing, 3, "{script}");
    assert_eq!(
        script
            .lines()
            .filter(|l| l.starts_with("curl -sS -i -X POST \"$URL\""))
            .count(),
        3
    );
    assert!(script.contains(&format!("URL=\"${{URL:-{url}}}\"")));
    assert!(
        script.contains(&format!("--param 'CallSid={}'", call(3))),
        "{script}"
    );
    let syntax = Command::new("sh")
        .arg("-n")
        .arg(folder.join("reproduce.sh"))
        .status()
        .unwrap();
    assert!(syntax.success(), "reproduce.sh is valid shell");
    // Versions and settings, the secret as a placeholder.
    let environment = read("environment.txt");
    assert!(
        environment.contains("EMAILPROVIDER_API_KEY=[REDACTED]"),
        "{environment}"
    );
    assert!(read("README.md").contains("| `reproduce.sh` |"));

    // No file, in the folder or in the archive, holds the secret.
    for file in &files {
        assert!(!read(file).contains(CANARY), "{file} holds the secret");
    }
    let mut archive = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(lines[1]).unwrap())
        .read_to_string(&mut archive)
        .unwrap();
    assert!(archive.contains(&format!("{name}/records.jsonl")));
    assert!(archive.contains("calling with [REDACTED]"));
    assert!(!archive.contains(CANARY));
    assert!(!stdout.contains(CANARY) && !stderr.contains(CANARY));

    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_logs_or_with_a_bad_time_it_says_so() {
    let dir = temp_dir("package-bad");
    let out = dir.to_str().unwrap();
    let ran = common::ccfn(&["package", "-o", out], None);
    assert_eq!(ran.code, 2);
    assert!(ran.stderr.contains("--logs <FILE>"), "{}", ran.stderr);
    let ran = common::ccfn(
        &["package", "--logs", "-", "--since", "soon", "-o", out],
        Some(b""),
    );
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.contains("--since: `soon` is not a time"),
        "{}",
        ran.stderr
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
