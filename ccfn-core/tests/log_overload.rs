//! A log writer that cannot keep up: lines are dropped rather than block
//! the function, the count is reported in a `log_dropped` record, and
//! every line still queued is written when the guard is dropped.
//!
//! A test binary of its own, not a module of `tests/it`: it installs its
//! slow writer as the process's global subscriber, which can be done once
//! per process, and counts every line of the process as its own.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ccfn_core::record::{init_logging_to, parse_filter, LogFormat};
use serde_json::Value;

/// Takes 20 ms per write, and keeps what it got.
#[derive(Clone, Default)]
struct SlowDisk(Arc<Mutex<Vec<u8>>>);

impl Write for SlowDisk {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        std::thread::sleep(Duration::from_millis(20));
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn overload_drops_counts_reports_and_flushes() {
    let disk = SlowDisk::default();
    let filter = parse_filter("info").unwrap();
    let guard = init_logging_to(LogFormat::Json, filter, disk.clone(), 8).unwrap();

    let started = std::time::Instant::now();
    for n in 0..200 {
        tracing::info!(n, "burst");
    }
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "logging never waits for the disk (200 lines at 20 ms each would take 4 s)"
    );
    let dropped = guard.dropped_lines();
    assert!(dropped > 100, "most of the burst was dropped: {dropped}");

    // Let the queue drain so the report itself has room, then report.
    std::thread::sleep(Duration::from_millis(400));
    guard.report_dropped();
    drop(guard);

    let written = String::from_utf8(disk.0.lock().unwrap().clone()).unwrap();
    let records: Vec<Value> = written
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let report = records
        .iter()
        .find(|r| r["step"] == "log_dropped")
        .expect("a log_dropped record was written before the guard returned");
    assert_eq!(report["level"], "WARN");
    assert_eq!(report["total_dropped"], dropped);
    // How many depends on the machine: the counts become `[n]`.
    let mut stable = report.clone();
    stable["timestamp"] = "[timestamp]".into();
    stable["dropped"] = "[n]".into();
    stable["total_dropped"] = "[n]".into();
    let message = report["message"].as_str().unwrap();
    stable["message"] = message
        .replacen(&report["dropped"].to_string(), "[n]", 1)
        .into();
    insta::assert_snapshot!("log_dropped", stable.to_string());
    let kept = records.iter().filter(|r| r["message"] == "burst").count();
    assert_eq!(
        kept + dropped,
        200,
        "every line is either written or counted"
    );
}
