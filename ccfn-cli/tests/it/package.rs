//! `ccfn package` on logs the example functions wrote, with a secret of
//! the environment planted in a line of the log: every file of the
//! package, and its `.tar.gz`, must be free of it.

use crate::common;

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
    assert!(
        script.contains(&format!("if [ -z \"${{URL:-}}\" ]; then URL='{url}'; fi")),
        "{script}"
    );
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

/// A record line, as the runtime writes it (compact JSON).
fn record_line(fields: &Value) -> String {
    let mut line = serde_json::to_string(fields).unwrap();
    line.push('\n');
    line
}

/// Runs `ccfn package` over `log` with `envs` set, and returns the
/// package's folder.
fn package(
    log: &std::path::Path,
    out: &std::path::Path,
    extra: &[&str],
    envs: &[(&str, &str)],
) -> std::path::PathBuf {
    std::fs::create_dir_all(out).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_ccfn"));
    command
        .args([
            "package",
            "--logs",
            log.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args(extra)
        .env_remove("AUTH_TOKEN");
    for (name, value) in envs {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stdout}{stderr}");
    std::path::PathBuf::from(stdout.lines().next().unwrap())
}

/// Hostile parameter names and values, error texts and function names
/// in the records: the generated `reproduce.sh`, run by `bash` with
/// stand-in `ccfn` and `curl` first in `PATH`, runs only those two, each
/// once, with its arguments exactly as the records hold them, and no
/// payload runs.
#[test]
fn reproduce_sh_runs_no_data_as_code() {
    let dir = temp_dir("package-reproduce");
    let osc = "\u{1b}]52;c;aGk=\u{7}";
    let event = serde_json::json!({
        "CallSid": call(7),
        "Password$(touch x)": "canary-hostile-pass-1f",
        "`touch y`": "'; touch z; '",
        "From": "+1555\ntouch w",
        "To": "$HOME",
        "Body": format!("say {osc} \u{9b}2J \u{7f}"),
        "Quote'$(touch q)": "\"$(touch r)\"",
        "Digits": 5,
    });
    let mut text = record_line(&serde_json::json!({
        "timestamp": "2026-11-21T21:01:11.000Z", "level": "INFO",
        "function": "menu\ntouch v", "invocation_id": "inv-1\n$(touch u)",
        "call_sid": call(7), "step": "start", "message": "Function invoked",
        "event": event,
    }));
    text.push_str(&record_line(&serde_json::json!({
        "timestamp": "2026-11-21T21:01:11.500Z", "level": "ERROR",
        "function": "menu\ntouch v", "invocation_id": "inv-1\n$(touch u)",
        "call_sid": call(7), "step": "error", "message": "failed",
        "error": format!("bad input\ntouch t\r`touch s` {osc}"),
    })));
    text.push_str(&record_line(&serde_json::json!({
        "timestamp": "2026-11-21T21:01:12.000Z", "level": "INFO",
        "function": "menu\ntouch v", "invocation_id": "inv-1\n$(touch u)",
        "call_sid": call(7), "step": "end", "message": "done",
        "outcome": "error", "execution_ms": 2.5,
    })));
    let log = write(&dir, "app.log", &text);
    let url = "http://127.0.0.1:9/features/it's $(touch p)";
    let folder = package(&log, &dir.join("out"), &["--url", url], &[]);
    // No file holds a raw control character (`cat errors.txt` cannot act
    // on a terminal); the JSON files stay JSON.
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let raw: Vec<char> = text
            .chars()
            .filter(|c| c.is_control() && !matches!(c, '\n' | '\t'))
            .collect();
        assert!(raw.is_empty(), "{}: {raw:?} in {text}", path.display());
        if path.extension().is_some_and(|e| e == "json") {
            serde_json::from_str::<Value>(&text).unwrap();
        }
        if path.extension().is_some_and(|e| e == "jsonl") {
            for line in text.lines() {
                serde_json::from_str::<Value>(line).unwrap();
            }
        }
    }
    let errors = std::fs::read_to_string(folder.join("errors.txt")).unwrap();
    assert!(
        errors.contains(r"menu\ntouch v inv-1\n$(touch u) [error] bad input\ntouch t\x0d`touch s` \x1b]52;c;aGk=\x07"),
        "{errors}"
    );
    let script_path = folder.join("reproduce.sh");
    let script = std::fs::read_to_string(&script_path).unwrap();
    let raw: Vec<char> = script
        .chars()
        .filter(|c| c.is_control() && *c != '\n')
        .collect();
    assert!(raw.is_empty(), "raw control characters {raw:?} in {script}");
    assert!(!script.contains("canary-hostile-pass-1f"), "{script}");
    // The comment shows the error on its line, escaped.
    assert!(
        script.contains(r"bad input\ntouch t\x0d`touch s` \x1b]52;c;aGk=\x07"),
        "{script}"
    );

    // Stand-ins that record their arguments, one NUL-ended argument each.
    let bin = dir.join("bin");
    let work = dir.join("work");
    let argv = dir.join("argv");
    for folder in [&bin, &work, &argv] {
        std::fs::create_dir_all(folder).unwrap();
    }
    for name in ["ccfn", "curl"] {
        let stand_in = bin.join(name);
        std::fs::write(
            &stand_in,
            format!(
                "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\" >> '{}/{name}'; done\nprintf x >> '{}/{name}.runs'\n",
                argv.display(),
                argv.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let variable = "SECRET_PASSWORD__TOUCH_X_";
    assert!(script.contains(variable), "{script}");
    let status = Command::new("bash")
        .arg(&script_path)
        .current_dir(&work)
        .env("PATH", &path)
        .env_remove("URL")
        .env(variable, "filled in by the operator")
        .status()
        .unwrap();
    assert!(status.success(), "{script}");

    // No payload ran: nothing was made in the working folder (nor next
    // to the script).
    let made: Vec<_> = std::fs::read_dir(&work).unwrap().collect();
    assert!(made.is_empty(), "{made:?}");
    for payload in ["p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z"] {
        assert!(!folder.join(payload).exists() && !dir.join(payload).exists());
    }
    // Only the two commands ran, once each.
    let mut ran: Vec<String> = std::fs::read_dir(&argv)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    ran.sort();
    assert_eq!(ran, ["ccfn", "ccfn.runs", "curl", "curl.runs"]);
    for name in ["ccfn", "curl"] {
        assert_eq!(
            std::fs::read_to_string(argv.join(format!("{name}.runs"))).unwrap(),
            "x"
        );
    }
    let args = |name: &str| -> Vec<String> {
        let bytes = std::fs::read(argv.join(name)).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let mut args: Vec<String> = text.split('\0').map(str::to_owned).collect();
        assert_eq!(args.pop().as_deref(), Some(""));
        args
    };
    let url = "http://127.0.0.1:9/features/it's $(touch p)";
    let body = format!("say {osc} \u{9b}2J \u{7f}");
    let filled = "filled in by the operator";
    let pairs: Vec<(String, String)> = vec![
        ("CallSid".into(), call(7)),
        ("Password$(touch x)".into(), filled.into()),
        ("`touch y`".into(), "'; touch z; '".into()),
        ("From".into(), "+1555\ntouch w".into()),
        ("To".into(), "$HOME".into()),
        ("Body".into(), body),
        ("Quote'$(touch q)".into(), "\"$(touch r)\"".into()),
        ("Digits".into(), "5".into()),
    ];
    let mut probe = vec!["probe".to_owned(), url.to_owned()];
    let mut curl = ["-sS", "-i", "-X", "POST", url].map(str::to_owned).to_vec();
    for (name, value) in &pairs {
        probe.extend(["--param".to_owned(), format!("{name}={value}")]);
        let encoded: String = url_encoded(name);
        curl.extend(["--data-urlencode".to_owned(), format!("{encoded}={value}")]);
    }
    probe.extend(["--param".to_owned(), "mode=".to_owned()]);
    assert_eq!(args("ccfn"), probe);
    assert_eq!(args("curl"), curl);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `text` form-URL-encoded, as curl's `--data-urlencode name=value`
/// expects the name.
fn url_encoded(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                out.push(byte as char);
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Secrets in every place the environment, the command line and the
/// records hold them: each value of `OTEL_EXPORTER_OTLP_HEADERS`
/// (percent-encoded, as the OpenTelemetry specification writes it), the
/// password and the `token` query value of `--url`, the password of a
/// `*_URL` and `*_ENDPOINT` variable, and
/// fields with sensitive names at any depth of the records, including
/// event parameters; in every form a line can show them (raw, JSON-,
/// percent-, base64-encoded). No file of the package, nor its archive,
/// holds one.
#[test]
fn no_secret_of_the_environment_or_the_records_is_in_the_package() {
    let dir = temp_dir("package-secrets");
    let header = "canary-otlp-key-3b8e/+=";
    let endpoint_password = "canary-endpoint-pw-77c2";
    let public_password = "canary-public-pw-19aa";
    let url_password = "canary-url-pw-8d04";
    let nested = "canary-nested-token-6e13";
    let event_password = "canary-event-password-c55d";
    let url_token = "canary-url-token-4f21";
    let basic = base64(format!("ops:{url_password}").as_bytes());
    let mut text = record_line(&serde_json::json!({
        "timestamp": "2026-11-21T21:01:11.000Z", "level": "INFO",
        "function": "menu", "invocation_id": "inv-1", "call_sid": call(8),
        "step": "start", "message": "Function invoked",
        "event": {"CallSid": call(8), "Password": event_password, "Digits": "1"},
    }));
    // A later line repeats the value of an earlier one's sensitive field,
    // and an earlier one the value of a later one's.
    text.push_str(&record_line(&serde_json::json!({
        "timestamp": "2026-11-21T21:01:11.200Z", "level": "INFO",
        "function": "menu", "invocation_id": "inv-1", "step": "log",
        "message": format!("said {event_password} and {nested}, retried with {url_token}"),
    })));
    text.push_str(&record_line(&serde_json::json!({
        "timestamp": "2026-11-21T21:01:11.500Z", "level": "ERROR",
        "function": "menu", "invocation_id": "inv-1", "step": "api_error",
        "message": "failed",
        "error": format!("401 from https://ops:{url_password}@api.example.com/v1 (Basic {basic})"),
        "data": {"items": [{"client": {"api_token": nested, "id": 3}}]},
    })));
    text.push_str(&record_line(&serde_json::json!({
        "timestamp": "2026-11-21T21:01:12.000Z", "level": "INFO",
        "function": "menu", "invocation_id": "inv-1", "step": "end",
        "message": "done", "outcome": "error", "execution_ms": 2.5,
    })));
    let log = write(&dir, "app.log", &text);
    let encoded_header: String = header
        .bytes()
        .map(|b| match b {
            b'/' => "%2F".to_owned(),
            b'+' => "%2B".to_owned(),
            b'=' => "%3D".to_owned(),
            b => (b as char).to_string(),
        })
        .collect();
    let folder = package(
        &log,
        &dir.join("out"),
        &[
            "--url",
            &format!("http://ops:{url_password}@127.0.0.1:9/x?token={url_token}"),
        ],
        &[
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                &format!("x-api-key={encoded_header},x-team=contact-center"),
            ),
            (
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                &format!("http://collector:{endpoint_password}@127.0.0.1:4318"),
            ),
            (
                "CCFN_PUBLIC_URL",
                &format!("https://ops:{public_password}@cc.example.com"),
            ),
        ],
    );
    let mut files: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert!(files.contains(&"environment.txt".to_owned()));
    let mut all = String::new();
    for file in &files {
        let text = std::fs::read_to_string(folder.join(file)).unwrap();
        for secret in [
            header,
            &encoded_header,
            endpoint_password,
            public_password,
            url_password,
            url_token,
            nested,
            event_password,
            &basic[8..24],
        ] {
            assert!(!text.contains(secret), "{file} holds {secret}: {text}");
        }
        all.push_str(&text);
    }
    let mut archive = Vec::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(format!("{}.tar.gz", folder.display())).unwrap(),
    )
    .read_to_end(&mut archive)
    .unwrap();
    let archive = String::from_utf8_lossy(&archive);
    for secret in [
        header,
        endpoint_password,
        public_password,
        url_password,
        url_token,
        nested,
        event_password,
    ] {
        assert!(!archive.contains(secret), "the archive holds {secret}");
    }
    // The fields are there, their values redacted; the URLs without
    // their user information.
    let records = std::fs::read_to_string(folder.join("records.jsonl")).unwrap();
    let values: Vec<Value> = records
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(values[0]["event"]["Password"], "[REDACTED]");
    assert_eq!(values[0]["event"]["Digits"], "1");
    assert_eq!(
        values[2]["data"]["items"][0]["client"]["api_token"],
        "[REDACTED]"
    );
    assert_eq!(values[2]["data"]["items"][0]["client"]["id"], 3);
    assert_eq!(
        values[1]["message"], "said [REDACTED] and [REDACTED], retried with [REDACTED]",
        "{records}"
    );
    assert!(
        all.contains("https://[REDACTED]@api.example.com/v1")
            && all.contains("http://[REDACTED]@127.0.0.1:9/x"),
        "{all}"
    );
    let environment = std::fs::read_to_string(folder.join("environment.txt")).unwrap();
    assert!(
        environment.contains("OTEL_EXPORTER_OTLP_ENDPOINT=http://[REDACTED]@127.0.0.1:4318"),
        "{environment}"
    );
    let script = std::fs::read_to_string(folder.join("reproduce.sh")).unwrap();
    assert!(
        script.contains(r#"'Password='"${SECRET_PASSWORD:?set SECRET_PASSWORD}""#),
        "{script}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `bytes` in standard base64, as a Basic `Authorization` header holds
/// `user:password`.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Runs `ccfn package` over `log` with `extra` arguments; returns the
/// package's folder and what was said on stderr.
fn package_saying(
    log: &std::path::Path,
    out: &std::path::Path,
    extra: &[&str],
) -> (std::path::PathBuf, String) {
    std::fs::create_dir_all(out).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_ccfn"))
        .args([
            "package",
            "--logs",
            log.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args(extra)
        .env_remove("AUTH_TOKEN")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stdout}{stderr}");
    let folder = std::path::PathBuf::from(stdout.lines().next().unwrap());
    assert!(folder.join("reproduce.sh").is_file(), "{stdout}{stderr}");
    assert!(
        std::path::Path::new(&format!("{}.tar.gz", folder.display())).is_file(),
        "{stdout}"
    );
    (folder, stderr)
}

/// One record of invocation `id` at `step`, with `fields` added.
fn step_line(id: &str, second: u32, step: &str, fields: Value) -> String {
    let mut record = serde_json::json!({
        "timestamp": format!("2026-11-21T21:{:02}:{:02}.000Z", second / 60, second % 60),
        "level": if step == "error" { "ERROR" } else { "INFO" },
        "function": "menu", "invocation_id": id, "call_sid": call(3),
        "step": step, "message": step,
    });
    for (name, value) in fields.as_object().unwrap() {
        record[name] = value.clone();
    }
    record_line(&record)
}

/// More invocations that never end than `--max-open-invocations`: the
/// oldest are given up (their `start` records with them), the count is
/// said on stderr, and `reproduce.sh` rebuilds the failing invocation
/// that was still held, and says the one given up could not be.
#[test]
fn starts_of_unfinished_invocations_are_bounded_and_counted() {
    let dir = temp_dir("package-unfinished");
    let event = |digits: &str| serde_json::json!({"event": {"CallSid": call(3), "Digits": digits}});
    let mut text = step_line("inv-early", 0, "start", event("111"));
    for n in 0..10 {
        text.push_str(&step_line(
            &format!("inv-never-{n}"),
            1 + n,
            "start",
            event("0"),
        ));
    }
    text.push_str(&step_line("inv-late", 20, "start", event("222")));
    text.push_str(&step_line(
        "inv-late",
        21,
        "error",
        serde_json::json!({"error": "late failed"}),
    ));
    text.push_str(&step_line(
        "inv-late",
        22,
        "end",
        serde_json::json!({"outcome": "error"}),
    ));
    text.push_str(&step_line(
        "inv-early",
        23,
        "error",
        serde_json::json!({"error": "early failed"}),
    ));
    text.push_str(&step_line(
        "inv-early",
        24,
        "end",
        serde_json::json!({"outcome": "error"}),
    ));
    let log = write(&dir, "app.log", &text);
    let (folder, stderr) = package_saying(&log, &dir.join("out"), &["--max-open-invocations", "3"]);
    // inv-early, inv-never-0..6 and inv-never-7 (when inv-late came) given
    // up; inv-never-8 and 9 still open.
    assert!(
        stderr.contains(
            "ccfn package: gave up 9 invocations before their end, the oldest first: \
             more than 3 open at once (--max-open-invocations); 2 still open at the end"
        ),
        "{stderr}"
    );
    let script = std::fs::read_to_string(folder.join("reproduce.sh")).unwrap();
    assert!(script.contains("--param 'Digits=222'"), "{script}");
    assert!(!script.contains("Digits=111"), "{script}");
    assert!(!script.contains("Digits=0"), "{script}");
    let early = script.find("early failed").expect("the early failure");
    assert!(
        script[early..].contains(
            "# (its `start` record is not in the logs, or was given up with its invocation \
             (--max-open-invocations): no event to rebuild)"
        ),
        "{script}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A `start` record whose event is huge: what is kept of it is cut at
/// 8 KiB (the parameters that fit, in order), the script says which were
/// left out and that the request is not the platform's, and a line over
/// `--max-line-bytes` is skipped and counted.
#[test]
fn a_huge_start_record_is_kept_cut_and_the_script_says_so() {
    let dir = temp_dir("package-huge-start");
    let huge = "A".repeat(100 * 1024);
    let mut text = step_line(
        "inv-huge",
        0,
        "start",
        serde_json::json!({"event": {
            "CallSid": call(3),
            "TranscriptionText": huge,
            "Digits": "42",
            "Padding": "B".repeat(7 * 1024),
            "More": "C".repeat(2 * 1024),
        }}),
    );
    text.push_str(&step_line(
        "inv-huge",
        1,
        "error",
        serde_json::json!({"error": "too big"}),
    ));
    text.push_str(&step_line(
        "inv-huge",
        2,
        "end",
        serde_json::json!({"outcome": "error"}),
    ));
    // Over the line limit: skipped whole, never held.
    text.push_str(&step_line(
        "inv-over",
        3,
        "start",
        serde_json::json!({"event": {"Body": "D".repeat(300 * 1024)}}),
    ));
    let log = write(&dir, "app.log", &text);
    let (folder, stderr) = package_saying(&log, &dir.join("out"), &["--max-line-bytes", "262144"]);
    assert!(
        stderr.contains("ccfn package: skipped 1 line longer than 256 KiB (--max-line-bytes)"),
        "{stderr}"
    );
    let script = std::fs::read_to_string(folder.join("reproduce.sh")).unwrap();
    assert!(script.len() < 16 * 1024, "{} bytes", script.len());
    assert!(
        script.contains(&format!(
            "# CUT: its event is over 8 KiB (the first that fit kept): 2 parameters ({} bytes) \
             left out, so this is not the request the platform sent: TranscriptionText, More",
            "TranscriptionText".len() + huge.len() + "More".len() + 2 * 1024
        )),
        "{script}"
    );
    assert!(
        script.contains(&format!("--param 'CallSid={}'", call(3))),
        "{script}"
    );
    assert!(script.contains("--param 'Digits=42'"), "{script}");
    assert!(
        script.contains(&format!("--param 'Padding={}'", "B".repeat(7 * 1024))),
        "Padding kept whole"
    );
    assert!(
        !script.contains("AAAA") && !script.contains("CCCC"),
        "{script}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
