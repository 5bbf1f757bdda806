//! The `.env` file of the working directory gives every setting, the
//! runtime's own (`CCFN_*`) included, and the process environment wins
//! over it: the examples server as it ships, started as a child process
//! with nothing in its environment but what each test sets.

use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The examples server in a folder of its own, killed (by its process id)
/// and its folder removed when dropped.
struct Server {
    child: Child,
    dir: PathBuf,
}

impl Server {
    /// Starts the server in a new folder holding `dotenv` as its `.env`,
    /// with `env` as its only environment.
    fn start(dotenv: &str, env: &[(&str, &str)]) -> Server {
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "ccfn-dotenv-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(".env"), dotenv).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_example-contact-center"))
            .env_clear()
            .current_dir(&dir)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(File::create(dir.join("log")).unwrap())
            .stderr(File::create(dir.join("stderr")).unwrap())
            .spawn()
            .expect("the examples server starts");
        Server { child, dir }
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }

    /// The log once it holds the `listening on` record.
    fn listening(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let log = self.read("log");
            if log.contains("listening on http://") {
                return log;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("the server exited ({status}): {}", self.read("stderr"));
            }
            assert!(
                Instant::now() < deadline,
                "the server did not listen within 20 s: {log}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn the_runtime_s_own_settings_come_from_the_dotenv_file() {
    let mut server = Server::start("CCFN_ADDR=127.0.0.1:0\nCCFN_LOG_FORMAT=json\n", &[]);
    let log = server.listening();
    // JSON lines (not the default human format), on a free port (not the
    // default 3001).
    let listening: serde_json::Value = log
        .lines()
        .find(|line| line.contains("listening on"))
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .unwrap();
    let addr = listening["addr"].as_str().unwrap();
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    assert_ne!(addr, "127.0.0.1:3001");
}

#[test]
fn the_process_environment_wins_over_the_dotenv_file() {
    let mut server = Server::start(
        "CCFN_ADDR=127.0.0.1:0\nCCFN_LOG_FORMAT=json\nCCFN_LOG_DETAIL=full\n",
        &[("CCFN_LOG_FORMAT", "pretty")],
    );
    let log = server.listening();
    // The human format, from the environment, with every field, from
    // `.env`: the header line, then the record's fields below it.
    let lines: Vec<&str> = log.lines().collect();
    let at = lines
        .iter()
        .position(|line| line.contains("[runtime] listening on http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no human `runtime` line: {log}"));
    assert!(!lines[at].starts_with('{'), "{log}");
    assert!(lines[at + 1].starts_with("  addr: 127.0.0.1:"), "{log}");
}

#[test]
fn a_bad_value_in_the_dotenv_file_stops_the_start_and_names_the_setting() {
    let mut server = Server::start("CCFN_ADDR=127.0.0.1:0\nCCFN_LOG_DETAIL=all\n", &[]);
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not stop within 20 s: {}",
            server.read("log")
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(!status.success());
    assert_eq!(
        server.read("stderr").trim(),
        "ccfn: CCFN_LOG_DETAIL=\"all\": expected `brief` or `full`"
    );
}

/// Waits for the server to exit, within 20 s.
fn exit_status(server: &mut Server) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not stop within 20 s: {}",
            server.read("log")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_image_without_ca_certificates_is_told_at_start() {
    // A CA-certificate directory with nothing in it, as an image without
    // `ca-certificates` has.
    let empty = std::env::temp_dir().join(format!("ccfn-dotenv-no-ca-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let empty = empty.to_str().unwrap();

    // Only the system's may be trusted: the start stops, and says what to
    // install.
    let mut server = Server::start(
        "CCFN_ADDR=127.0.0.1:0\n",
        &[("CCFN_TLS_ROOTS", "system"), ("SSL_CERT_DIR", empty)],
    );
    assert!(!exit_status(&mut server).success());
    let stderr = server.read("stderr");
    assert!(
        stderr.starts_with(
            "ccfn: cannot start the runtime:\n  no CA certificates to verify HTTPS servers with: SSL_CERT_DIR="
        ) && stderr.contains("`apt-get install ca-certificates`"),
        "{stderr}"
    );

    // The default: the built-in roots, and a warning that says so.
    let mut server = Server::start(
        "CCFN_ADDR=127.0.0.1:0\nCCFN_LOG_FORMAT=json\n",
        &[("SSL_CERT_DIR", empty)],
    );
    let log = server.listening();
    assert!(
        log.lines().any(|line| line.contains(r#""level":"WARN""#)
            && line.contains("HTTPS servers are verified with the ")
            && line
                .contains("Mozilla roots built into ccfn, as the system has no CA certificates")),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(empty);
}
