//! `ccfn logs` on logs the example functions wrote: the binary itself, on
//! files, gzip files and standard input.

use crate::common;

use std::io::Write as _;

use common::{call, ccfn, invocations, log_text, temp_dir, text, write, Made};
use serde_json::Value;

/// The records of `made` as parsed values, in order.
fn records(made: &[Made]) -> Vec<Value> {
    made.iter()
        .flat_map(|m| m.run.records().iter().map(|r| Value::Object(r.clone())))
        .collect()
}

fn steps(values: &[Value]) -> Vec<String> {
    values.iter().map(|v| text(&v["step"]).to_owned()).collect()
}

#[tokio::test]
async fn levels_and_success_select_exactly_the_spec_s_filters() {
    let made = invocations().await;
    let dir = temp_dir("levels");
    let log = write(&dir, "app.log", &log_text(&made));
    let log = log.to_str().unwrap();
    let all = records(&made);
    let expect = |pred: &dyn Fn(&Value) -> bool| -> Vec<Value> {
        all.iter().filter(|r| pred(r)).cloned().collect()
    };
    let errors = ccfn(&["logs", "--error", "--json", log], None);
    assert_eq!(errors.code, 0, "{errors:?}");
    assert_eq!(errors.json(), expect(&|r| r["level"] == "ERROR"));
    assert_eq!(
        steps(&errors.json()),
        ["task_error"],
        "the task router's fault (a missing parameter is a WARN)"
    );
    let some = ccfn(
        &["logs", "--warn", "--error", "--success", "--json", log],
        None,
    );
    assert_eq!(
        some.json(),
        expect(&|r| r["level"] == "ERROR" || r["level"] == "WARN" || r["step"] == "success")
    );
    // Unchanged: the lines as the functions wrote them.
    let lines: Vec<&str> = some.stdout.lines().collect();
    let written: Vec<&str> = made
        .iter()
        .flat_map(|m| m.run.lines().iter().map(String::as_str))
        .collect();
    assert!(lines.iter().all(|line| written.contains(line)));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn call_invocation_function_and_step_match_exactly() {
    let made = invocations().await;
    let dir = temp_dir("fields");
    let log = write(&dir, "app.log", &log_text(&made));
    let log = log.to_str().unwrap();
    let all = records(&made);
    let second = call(2);
    let by_call = ccfn(&["logs", "--json", "--call", &second, log], None);
    assert_eq!(
        by_call.json(),
        all.iter()
            .filter(|r| r["call_sid"] == second.as_str())
            .cloned()
            .collect::<Vec<_>>()
    );
    assert_eq!(by_call.json().len(), made[1].run.records().len());
    let id = made[3].run.invocation_id().as_str();
    let by_id = ccfn(&["logs", "--json", "--invocation", id, log], None);
    assert_eq!(by_id.json().len(), made[3].run.records().len());
    let by_function = ccfn(
        &["logs", "--json", "--function", "voicemail-notice", log],
        None,
    );
    assert_eq!(by_function.json(), by_id.json());
    let by_step = ccfn(&["logs", "--json", "--step", "task_error", log], None);
    assert_eq!(steps(&by_step.json()), ["task_error"]);
    assert_eq!(by_step.json()[0]["cause"], "workflow_deleted");
    // A prefix of a call SID is another call.
    let prefix = ccfn(&["logs", "--call", &second[..20], log], None);
    assert_eq!((prefix.code, prefix.stdout.as_str()), (1, ""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn time_bounds_and_limit_keep_the_last_records() {
    let made = invocations().await;
    let dir = temp_dir("time");
    let log = write(&dir, "app.log", &log_text(&made));
    let log = log.to_str().unwrap();
    let all = records(&made);
    let third_start = text(&made[2].run.records()[0]["timestamp"]).to_owned();
    let since = ccfn(&["logs", "--json", "--since", &third_start, log], None);
    let expected: Vec<Value> = all
        .iter()
        .filter(|r| text(&r["timestamp"]) >= third_start.as_str())
        .cloned()
        .collect();
    // A date implies the last 100; these are fewer.
    assert_eq!(since.json(), expected);
    let until = ccfn(
        &[
            "logs",
            "--json",
            "--until",
            &third_start,
            "--limit",
            "1000",
            log,
        ],
        None,
    );
    assert!(until
        .json()
        .iter()
        .all(|r| text(&r["timestamp"]) <= third_start.as_str()));
    assert_eq!(
        until.json().len() + since.json().len(),
        all.len()
            + all
                .iter()
                .filter(|r| r["timestamp"] == third_start.as_str())
                .count()
    );
    let limited = ccfn(&["logs", "--json", "--limit", "3", log], None);
    assert_eq!(limited.json(), all[all.len() - 3..]);
    assert!(
        limited.stderr.contains(&format!(
            "showing the last 3 of {} matching records",
            all.len()
        )),
        "{}",
        limited.stderr
    );
    let future = ccfn(&["logs", "--since", "2999-01-01", log], None);
    assert_eq!((future.code, future.stdout.as_str()), (1, ""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_date_alone_shows_the_last_hundred() {
    let made = invocations().await;
    let one = log_text(&made);
    let dir = temp_dir("hundred");
    // 30 copies: more than 100 records from 2026 on.
    let log = write(&dir, "app.log", &one.repeat(30));
    let ran = ccfn(
        &[
            "logs",
            "--json",
            "--since",
            "2026-01-01",
            log.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(ran.json().len(), 100, "{}", ran.stderr);
    let total = records(&made).len() * 30;
    assert!(ran
        .stderr
        .contains(&format!("showing the last 100 of {total} matching records")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn gzip_files_standard_input_and_platform_lines() {
    let made = invocations().await;
    let text = log_text(&made);
    let dir = temp_dir("inputs");
    // A platform's lines around the records, and a record prefixed by the
    // platform's time and request id.
    let mut mixed = String::from("START RequestId: 8f0c-41 Version: $LATEST\n");
    for (n, line) in text.lines().enumerate() {
        if n == 0 {
            mixed.push_str("2026-11-21T21:01:11.995Z\t8f0c-41\tINFO\t");
        }
        mixed.push_str(line);
        mixed.push('\n');
    }
    mixed.push_str("END RequestId: 8f0c-41\nREPORT RequestId: 8f0c-41 Duration: 12.3 ms\n");
    let plain = write(&dir, "app.log", &mixed);
    let gz = dir.join("app.log.1.gz");
    let mut encoder = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    encoder.write_all(mixed.as_bytes()).unwrap();
    encoder.finish().unwrap();
    let from_plain = ccfn(&["logs", "--json", plain.to_str().unwrap()], None);
    let from_gz = ccfn(&["logs", "--json", gz.to_str().unwrap()], None);
    let from_stdin = ccfn(&["logs", "--json"], Some(mixed.as_bytes()));
    let from_dash = ccfn(&["logs", "--json", "-"], Some(mixed.as_bytes()));
    assert_eq!(from_plain.json(), records(&made));
    for other in [&from_gz, &from_stdin, &from_dash] {
        assert_eq!(other.stdout, from_plain.stdout);
        assert_eq!(
            other.stderr,
            "ccfn logs: skipped 3 lines that are not ccfn records\n"
        );
    }
    let follow_gz = ccfn(&["logs", "--follow", gz.to_str().unwrap()], None);
    assert_eq!(follow_gz.code, 2);
    assert!(
        follow_gz
            .stderr
            .contains("--follow cannot follow a gzip-compressed file"),
        "{}",
        follow_gz.stderr
    );
    // Several files, in order.
    let both = ccfn(
        &[
            "logs",
            "--json",
            gz.to_str().unwrap(),
            plain.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(both.json().len(), 2 * records(&made).len());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn invocations_are_one_line_each_with_their_first_error() {
    let made = invocations().await;
    let dir = temp_dir("invocations");
    let log = write(&dir, "app.log", &log_text(&made));
    let log = log.to_str().unwrap();
    let ran = ccfn(&["logs", "--invocations", "--json", log], None);
    let summaries = ran.json();
    assert_eq!(summaries.len(), made.len());
    for (summary, made) in summaries.iter().zip(&made) {
        let records = made.run.records();
        assert_eq!(
            summary["invocation_id"],
            made.run.invocation_id().as_str(),
            "{}",
            made.name
        );
        assert_eq!(summary["time"], records[0]["timestamp"]);
        assert_eq!(summary["function"], records[0]["function"]);
        let end = records.last().unwrap();
        assert_eq!(summary["outcome"], end["outcome"], "{}", made.name);
        assert_eq!(summary["execution_ms"], end["execution_ms"]);
    }
    assert_eq!(summaries[0]["first_error"], Value::Null);
    assert!(text(&summaries[1]["first_error"]).starts_with("Task routing failed"));
    assert_eq!(
        summaries[2]["first_error"],
        "Missing required parameter: To"
    );
    assert_eq!(summaries[3]["outcome"], "error");
    assert_eq!(
        summaries[3]["first_error"],
        "Missing required parameter: RecordingUrl"
    );
    let errors = ccfn(&["logs", "--invocations", "--error", "--json", log], None);
    let ids: Vec<String> = errors
        .json()
        .iter()
        .map(|s| text(&s["invocation_id"]).to_owned())
        .collect();
    assert_eq!(
        ids,
        [
            made[2].run.invocation_id().as_str(),
            made[3].run.invocation_id().as_str()
        ]
    );
    let human = ccfn(&["logs", "--invocations", log], None);
    assert_eq!(human.stdout.lines().count(), made.len());
    assert!(human
        .stdout
        .lines()
        .nth(3)
        .unwrap()
        .contains("Missing required parameter: RecordingUrl"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn the_human_format_is_the_runtime_s_coloured_only_on_request() {
    let made = invocations().await;
    let dir = temp_dir("human");
    let log = write(&dir, "app.log", &log_text(&made));
    let log = log.to_str().unwrap();
    let ran = ccfn(&["logs", "--error", log], None);
    // The runtime's brief format of each ERROR record, as it renders a
    // record read back (the testkit's own human capture stamps its lines
    // separately, a millisecond apart at times).
    let expected: Vec<String> = made
        .iter()
        .flat_map(|m| m.run.records())
        .filter(|record| record["level"] == "ERROR")
        .map(|record| ccfn_core::record::LogFormat::Pretty.render(record))
        .collect();
    assert_eq!(ran.stdout.lines().collect::<Vec<_>>(), expected);
    assert!(!ran.stdout.contains('\x1b'), "not a terminal: no colour");
    let coloured = ccfn(&["logs", "--error", "--color", "always", log], None);
    assert!(coloured.stdout.contains("\x1b[31mERROR\x1b[0m"));
    let full = ccfn(&["logs", "--step", "task_error", "--full", log], None);
    let task_error = made[1].run.record("task_error").unwrap();
    let rendered = ccfn_core::record::LogFormat::PrettyFull.render(task_error);
    let header = rendered.lines().next().unwrap().to_owned();
    assert!(
        full.stdout.starts_with(&format!("{header}\n")),
        "{}",
        full.stdout
    );
    assert!(
        full.stdout.contains("\n  cause: workflow_deleted\n"),
        "{}",
        full.stdout
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_an_error_that_says_what_is_wrong() {
    let missing = ccfn(&["logs", "/nonexistent/app.log"], None);
    assert_eq!(missing.code, 2);
    assert!(
        missing
            .stderr
            .starts_with("ccfn: cannot read /nonexistent/app.log: "),
        "{}",
        missing.stderr
    );
    let time = ccfn(&["logs", "--since", "yesterday"], Some(b""));
    assert_eq!(time.code, 2);
    assert!(
        time.stderr.contains("--since: `yesterday` is not a time"),
        "{}",
        time.stderr
    );
    let order = ccfn(
        &["logs", "--since", "2026-11-22", "--until", "2026-11-21"],
        Some(b""),
    );
    assert_eq!(order.code, 2);
    assert!(
        order.stderr.contains("is after --until"),
        "{}",
        order.stderr
    );
    let step = ccfn(&["logs", "--step", "errors"], Some(b""));
    assert_eq!(step.code, 2);
    assert!(
        step.stderr
            .contains("not a step ccfn writes; one of: start,"),
        "{}",
        step.stderr
    );
    let limit = ccfn(&["logs", "--limit", "0"], Some(b""));
    assert_eq!(limit.code, 2);
    let nothing = ccfn(&["logs", "--error"], Some(b"not a record\n"));
    assert_eq!((nothing.code, nothing.stdout.as_str()), (1, ""));
}

/// Reads `child`'s stdout until it holds `lines` lines, or fails after a
/// while.
fn read_lines(
    out: &std::sync::mpsc::Receiver<String>,
    lines: usize,
    got: &mut Vec<String>,
) -> Result<(), String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while got.len() < lines {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match out.recv_timeout(left) {
            Ok(line) => got.push(line),
            Err(_) => return Err(format!("got {} of {lines} lines: {got:#?}", got.len())),
        }
    }
    Ok(())
}

#[tokio::test]
async fn follow_reads_what_is_appended_through_truncation_and_rotation() {
    use std::io::BufRead as _;
    let made = invocations().await;
    let lines: Vec<String> = log_text(&made).lines().map(str::to_owned).collect();
    let dir = temp_dir("follow");
    let path = write(&dir, "app.log", &format!("{}\n", lines[0]));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ccfn"))
        .args(["logs", "--follow", "--json", path.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (send, out) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if send.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let append = |text: &str| {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(text.as_bytes()).unwrap();
    };
    let mut got = Vec::new();
    let result = (|| {
        read_lines(&out, 1, &mut got)?;
        // A line written in two parts is one line.
        let (head, tail) = lines[1].split_at(20);
        append(head);
        std::thread::sleep(std::time::Duration::from_millis(300));
        append(&format!("{tail}\n{}\n", lines[2]));
        read_lines(&out, 3, &mut got)?;
        // Truncated in place (copytruncate), then written again.
        std::fs::write(&path, format!("{}\n", lines[3])).unwrap();
        read_lines(&out, 4, &mut got)?;
        // Rotated: renamed away, a new file under the name.
        std::fs::rename(&path, dir.join("app.log.1")).unwrap();
        std::fs::write(&path, format!("{}\n", lines[4])).unwrap();
        read_lines(&out, 5, &mut got)
    })();
    let _ = child.kill();
    let _ = child.wait();
    result.unwrap();
    assert_eq!(got, lines[..5]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_closed_pipe_ends_the_run_quietly() {
    let made = invocations().await;
    let dir = temp_dir("pipe");
    let log = write(&dir, "app.log", &log_text(&made).repeat(200));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ccfn"))
        .args(["logs", log.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A ccfn record line of invocation `id`, at second `second`.
fn hostile_record(second: u32, level: &str, id: &str, step: &str, extra: &str) -> String {
    format!(
        r#"{{"timestamp":"2026-11-21T21:{:02}:{:02}.000Z","level":"{level}","function":"wait-experience","invocation_id":"{id}","step":"{step}","message":"m"{extra}}}"#,
        second / 60 % 60,
        second % 60
    )
}

#[tokio::test]
async fn a_line_over_the_limit_is_skipped_and_counted_and_the_good_lines_all_shown() {
    let made = invocations().await;
    let good: Vec<String> = log_text(&made).lines().map(str::to_owned).collect();
    let longest = good.iter().map(String::len).max().unwrap();
    // A limit in whole KiB that every good line is within.
    let limit = (longest / 1024 + 1) * 1024;
    let junk = "x".repeat(limit + 1);
    // A record too: over the limit, it is not read whatever it is.
    let long_record = hostile_record(
        1,
        "ERROR",
        "long",
        "error",
        &format!(r#","error":"{}""#, "E".repeat(limit)),
    );
    let mut text = String::new();
    for (n, line) in good.iter().enumerate() {
        text.push_str(line);
        text.push('\n');
        if n == 1 {
            text.push_str(&format!("{junk}\n"));
        }
        if n == 3 {
            text.push_str(&format!("{long_record}\n{junk}{junk}\n"));
        }
    }
    let dir = temp_dir("long-lines");
    let plain = write(&dir, "app.log", &text);
    let gz = dir.join("app.log.gz");
    let mut encoder = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    encoder.write_all(text.as_bytes()).unwrap();
    encoder.finish().unwrap();
    let max = limit.to_string();
    let expected = records(&made);
    let said = format!(
        "ccfn logs: skipped 3 lines longer than {} KiB (--max-line-bytes)\n",
        limit / 1024
    );
    for input in [plain.to_str().unwrap(), gz.to_str().unwrap()] {
        let ran = ccfn(&["logs", "--json", "--max-line-bytes", &max, input], None);
        assert_eq!(ran.code, 0, "{ran:?}");
        assert_eq!(ran.json(), expected, "{input}");
        assert_eq!(ran.stderr, said, "{input}");
    }
    let piped = ccfn(
        &["logs", "--json", "--max-line-bytes", &max],
        Some(text.as_bytes()),
    );
    assert_eq!(
        (piped.json(), piped.stderr.as_str()),
        (expected.clone(), said.as_str())
    );
    // Said once, at the end, in invocations and with the default limit (1
    // MiB) too.
    let summaries = ccfn(
        &["logs", "--invocations", "--json", "--max-line-bytes", &max],
        Some(text.as_bytes()),
    );
    assert_eq!(summaries.json().len(), made.len());
    assert_eq!(summaries.stderr, said);
    let over_a_mib = format!("{}\n{}\n{}\n", good[0], "y".repeat((1 << 20) + 1), good[1]);
    let default = ccfn(&["logs", "--json"], Some(over_a_mib.as_bytes()));
    assert_eq!(default.json(), expected[..2]);
    assert_eq!(
        default.stderr,
        "ccfn logs: skipped 1 line longer than 1 MiB (--max-line-bytes)\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn more_open_invocations_than_the_bound_are_given_up_and_counted_and_long_errors_cut() {
    // Ten invocations that never end, each with a 64 KiB error, then two
    // that end, the second with its own long error.
    let long_error = "E".repeat(64 * 1024);
    let mut log = String::new();
    for n in 0..10 {
        let id = format!("never-{n}");
        log.push_str(&hostile_record(n, "INFO", &id, "start", ""));
        log.push('\n');
        log.push_str(&hostile_record(
            n,
            "ERROR",
            &id,
            "error",
            &format!(r#","error":"{long_error}""#),
        ));
        log.push('\n');
    }
    for (n, id) in ["ends-1", "ends-2"].iter().enumerate() {
        let second = 20 + n as u32;
        log.push_str(&hostile_record(second, "INFO", id, "start", ""));
        log.push('\n');
        if n == 1 {
            let error = format!(r#","error":"the upstream said: {long_error}""#);
            log.push_str(&hostile_record(second, "ERROR", id, "error", &error));
            log.push('\n');
        }
        let outcome = if n == 1 { "error" } else { "success" };
        let end = format!(r#","outcome":"{outcome}","execution_ms":3.5"#);
        log.push_str(&hostile_record(second, "INFO", id, "end", &end));
        log.push('\n');
    }
    let ran = ccfn(
        &[
            "logs",
            "--invocations",
            "--json",
            "--max-open-invocations",
            "3",
        ],
        Some(log.as_bytes()),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    let summaries = ran.json();
    let ids: Vec<&str> = summaries
        .iter()
        .map(|s| text(&s["invocation_id"]))
        .collect();
    assert_eq!(ids, ["ends-1", "ends-2"]);
    let first_error = text(&summaries[1]["first_error"]);
    assert!(
        first_error.starts_with("the upstream said: EEE"),
        "{first_error}"
    );
    assert!(
        first_error.ends_with(&format!("… (cut: {} bytes)", 19 + 64 * 1024)),
        "{first_error}"
    );
    assert_eq!(first_error.len(), 1024 + "… (cut: 65555 bytes)".len());
    // 10 opened with room for 3: 7 given up; the first that ends takes
    // the room of one more (8), the second finds room when the first
    // ended: 2 of the 10 are still open at the end.
    assert_eq!(
        ran.stderr,
        "ccfn logs: gave up 8 invocations before their end, the oldest first: more than 3 open at once (--max-open-invocations); 2 still open at the end\n"
    );
    // Within the bound, nothing is given up and nothing said.
    let roomy = ccfn(&["logs", "--invocations", "--json"], Some(log.as_bytes()));
    assert_eq!(roomy.json().len(), 2);
    assert_eq!(roomy.stderr, "");
}

/// Starts `ccfn logs --follow --json path`; its stdout lines arrive on
/// the channel.
fn follow(path: &std::path::Path) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    use std::io::BufRead as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ccfn"))
        .args(["logs", "--follow", "--json", path.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (send, out) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if send.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    (child, out)
}

/// Waits two looks of `--follow` and fails if a line arrived.
fn nothing_more(out: &std::sync::mpsc::Receiver<String>, got: &[String]) -> Result<(), String> {
    match out.recv_timeout(std::time::Duration::from_millis(600)) {
        Ok(line) => Err(format!("one line too many: {line} after {got:#?}")),
        Err(_) => Ok(()),
    }
}

#[tokio::test]
async fn follow_reads_a_file_truncated_and_written_again_past_its_old_size_whole_and_once() {
    let made = invocations().await;
    let lines: Vec<String> = log_text(&made).lines().map(str::to_owned).collect();
    assert!(lines.len() >= 8);
    let dir = temp_dir("follow-refill");
    let path = write(&dir, "app.log", &format!("{}\n{}\n", lines[0], lines[1]));
    let (mut child, out) = follow(&path);
    let mut got = Vec::new();
    let result = (|| {
        read_lines(&out, 2, &mut got)?;
        // Between two looks: truncated, and written again longer than
        // before (the size alone says "it grew").
        let refill = format!("{}\n{}\n{}\n", lines[2], lines[3], lines[4]);
        std::fs::write(&path, &refill).unwrap();
        read_lines(&out, 5, &mut got)?;
        nothing_more(&out, &got)?;
        // Then appended to as usual.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(format!("{}\n", lines[5]).as_bytes())
            .unwrap();
        read_lines(&out, 6, &mut got)?;
        // Truncated and written again to exactly its old size (blank
        // lines first, which are not records).
        let old_size = std::fs::metadata(&path).unwrap().len() as usize;
        let record = format!("{}\n", lines[6]);
        let again = format!("{}{record}", "\n".repeat(old_size - record.len()));
        assert_eq!(again.len(), old_size);
        std::fs::write(&path, &again).unwrap();
        read_lines(&out, 7, &mut got)?;
        nothing_more(&out, &got)
    })();
    let _ = child.kill();
    let _ = child.wait();
    result.unwrap();
    assert_eq!(got, lines[..got.len()]);
    assert_eq!(got.len(), 7, "{got:#?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn follow_reads_a_file_removed_then_created_again_and_a_rotation_once() {
    let made = invocations().await;
    let lines: Vec<String> = log_text(&made).lines().map(str::to_owned).collect();
    let dir = temp_dir("follow-gone");
    let path = write(&dir, "app.log", &format!("{}\n", lines[0]));
    let (mut child, out) = follow(&path);
    let mut got = Vec::new();
    let result = (|| {
        read_lines(&out, 1, &mut got)?;
        // Gone for a few looks, then back with other lines.
        std::fs::remove_file(&path).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(500));
        nothing_more(&out, &got)?;
        std::fs::write(&path, format!("{}\n{}\n", lines[1], lines[2])).unwrap();
        read_lines(&out, 3, &mut got)?;
        // Rotated: what the old file got last is read, then the new one.
        let mut old = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::fs::rename(&path, dir.join("app.log.1")).unwrap();
        old.write_all(format!("{}\n", lines[3]).as_bytes()).unwrap();
        std::fs::write(&path, format!("{}\n", lines[4])).unwrap();
        read_lines(&out, 5, &mut got)?;
        nothing_more(&out, &got)
    })();
    let _ = child.kill();
    let _ = child.wait();
    result.unwrap();
    assert_eq!(got, lines[..5]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Hostile text in every place a record can carry it: terminal control
/// sequences (OSC 52 writes the clipboard, CSI clears the screen, C1 CSI,
/// DEL) in the header fields, in field names, in an error, in a line that
/// looks like a record but is not JSON; and a URL with a password.
fn hostile_log() -> String {
    let osc = "\u{1b}]52;c;aGk=\u{7}";
    let record = |fields: serde_json::Value| {
        let mut line = serde_json::to_string(&fields).unwrap();
        line.push('\n');
        line
    };
    let mut text = String::new();
    text.push_str(&record(serde_json::json!({
        "timestamp": "2026-11-21T21:01:11.000Z",
        "level": "INFO",
        "function": format!("menu{osc}"),
        "invocation_id": "inv\u{1b}[2J-1",
        "call_sid": "CA\u{9b}2J",
        "step": "start",
        "message": "Function invoked \u{7f}",
        "event": {"CallSid": "CA1"},
    })));
    text.push_str(&record(serde_json::json!({
        "timestamp": "2026-11-21T21:01:11.500Z",
        "level": "ERROR",
        "function": format!("menu{osc}"),
        "invocation_id": "inv\u{1b}[2J-1",
        "call_sid": "CA\u{9b}2J",
        "step": "error",
        "message": "failed \u{1b}[31m",
        "error": format!("boom{osc} at https://ops:canary-logs-pw-51@h.example/x"),
        format!("field\u{1b}[2K{osc}"): "value\u{1b}[1A",
    })));
    text.push_str(&record(serde_json::json!({
        "timestamp": "2026-11-21T21:01:12.000Z",
        "level": "INFO",
        "function": format!("menu{osc}"),
        "invocation_id": "inv\u{1b}[2J-1",
        "step": "end",
        "message": "done",
        "outcome": "error",
        "execution_ms": 3.5,
    })));
    // Looks like a record, is not JSON: raw control characters in it.
    text.push_str(&format!(
        "{{\"timestamp\":\"2026-11-21T21:01:12.500Z\",\"level\":\"ERROR\",\"message\":\"raw {osc}\u{1b}[2J\u{9b}2J\"}}\n"
    ));
    text
}

/// The control characters of `text` other than newline, and other than
/// the colour codes ccfn adds around a level.
fn raw_controls(text: &str) -> Vec<char> {
    let mut text = text.to_owned();
    for code in ["31", "32", "33", "2", "0"] {
        text = text.replace(&format!("\u{1b}[{code}m"), "");
    }
    text.chars()
        .filter(|c| c.is_control() && *c != '\n')
        .collect()
}

#[test]
fn no_control_character_of_a_record_reaches_the_terminal() {
    let dir = temp_dir("logs-hostile");
    let log = write(&dir, "app.log", &hostile_log());
    let log = log.to_str().unwrap();
    for args in [
        &["logs", log][..],
        &["logs", "--full", log],
        &["logs", "--color", "always", log],
        &["logs", "--full", "--color", "always", log],
        &["logs", "--json", log],
        &["logs", "--invocations", log],
        &["logs", "--invocations", "--json", log],
        &["logs", "--error", "--limit", "1", log],
    ] {
        let ran = ccfn(args, None);
        assert_eq!(ran.code, 0, "{args:?}: {}", ran.stderr);
        for (name, out) in [("stdout", &ran.stdout), ("stderr", &ran.stderr)] {
            let raw = raw_controls(out);
            assert!(raw.is_empty(), "{args:?} {name}: {raw:?} in {out}");
            assert!(!out.contains("canary-logs-pw-51"), "{args:?} {name}: {out}");
        }
        // What was there is shown, escaped.
        let shown = &ran.stdout;
        if args.contains(&"--json") {
            assert!(
                shown.contains(r"\u001b]52;c;aGk=\u0007"),
                "{args:?}: {shown}"
            );
            for line in shown.lines().filter(|l| !l.contains("raw ")) {
                serde_json::from_str::<Value>(line)
                    .unwrap_or_else(|e| panic!("{args:?}: {e}: {line}"));
            }
        } else {
            assert!(
                shown.contains(r"\x1b]52;c;aGk=\x07") || shown.contains(r"\u{1b}]52;c;aGk=\u{7}"),
                "{args:?}: {shown}"
            );
        }
        if args.contains(&"--invocations") {
            assert_eq!(shown.lines().count(), 1, "{args:?}: {shown}");
            assert!(shown.contains("boom"), "{args:?}: {shown}");
        }
    }
    // The line that is not JSON, shown as it is but escaped.
    let ran = ccfn(&["logs", "--error", log], None);
    assert!(
        ran.stdout
            .contains(r"raw \x1b]52;c;aGk=\x07\x1b[2J\u{9b}2J"),
        "{}",
        ran.stdout
    );
    // Field names of `--full`.
    let ran = ccfn(&["logs", "--full", log], None);
    assert!(!ran.stdout.contains("field\u{1b}"), "{}", ran.stdout);
    assert!(ran.stdout.contains("field"), "{}", ran.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A bad option's value (pasted from a log, say) is repeated in the
/// usage message without its control characters.
#[test]
fn a_bad_option_value_reaches_the_terminal_escaped() {
    for args in [
        &["logs", "--step", "start\u{1b}]52;c;aGk=\u{7}\u{9b}2J"][..],
        &["logs", "--since", "soon\u{1b}[2J\u{7f}", "-"],
    ] {
        let ran = ccfn(args, Some(b""));
        assert_eq!(ran.code, 2, "{ran:?}");
        let raw = raw_controls(&format!("{}{}", ran.stdout, ran.stderr));
        assert!(raw.is_empty(), "{args:?}: {raw:?} in {ran:?}");
        assert!(
            ran.stderr.contains("soon") || ran.stderr.contains("start"),
            "{ran:?}"
        );
    }
}

/// What `ccfn logs` shows holds no known secret of its environment: a
/// value of the OTLP headers, a URL's password (`CCFN_PUBLIC_URL`), a
/// secret setting; nor a URL's user information.
#[test]
fn the_environment_s_known_secrets_are_not_shown() {
    let dir = temp_dir("logs-secrets");
    let line = |message: &str| {
        format!(
            "{}\n",
            serde_json::json!({
                "timestamp": "2026-11-21T21:01:11.000Z", "level": "ERROR",
                "function": "menu", "invocation_id": "inv-1", "step": "log",
                "message": message,
            })
        )
    };
    let text = line("header canary-logs-otlp-9f/= sent")
        + &line("public canary-logs-public-41 url")
        + &line("key canary-logs-email-77 used")
        + &line("to https://svc:other-pass@h.example/x");
    let log = write(&dir, "app.log", &text);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_ccfn"))
        .args(["logs", "--json", log.to_str().unwrap()])
        .env(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "x-api-key=canary-logs-otlp-9f%2F%3D",
        )
        .env(
            "CCFN_PUBLIC_URL",
            "https://ops:canary-logs-public-41@cc.example.com",
        )
        .env("EMAILPROVIDER_API_KEY", "canary-logs-email-77")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}");
    let messages: Vec<String> = stdout.lines().map(text_of_message).collect();
    assert_eq!(
        messages,
        [
            "header [REDACTED] sent",
            "public [REDACTED] url",
            "key [REDACTED] used",
            "to https://[REDACTED]@h.example/x"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The `message` of a JSON line.
fn text_of_message(line: &str) -> String {
    let value: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    text(&value["message"]).to_owned()
}
