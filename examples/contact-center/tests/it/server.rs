//! The examples server as it ships: the binary `main` builds, started as
//! a child process on a free port of `127.0.0.1`, with its JSON log in a
//! file of its own and nothing in its environment but what each test
//! sets. Each test module uses part of it.
#![allow(dead_code)]

use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The examples server, killed (by its process id) and its folder removed
/// when dropped.
pub(crate) struct Server {
    pub(crate) child: Child,
    /// The server's working folder: its log, outbox and task store.
    pub(crate) dir: PathBuf,
    /// `127.0.0.1:<port>`, from its `listening on` record.
    pub(crate) addr: String,
}

impl Server {
    /// Starts the server with `env` as its only environment, besides a
    /// free loopback port (unless `env` sets `CCFN_ADDR`), JSON logs, and
    /// an outbox and a task store in its own folder; returns once it
    /// listens.
    pub(crate) async fn start(env: &[(&str, &str)]) -> Server {
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "ccfn-faults-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_example-contact-center"))
            .env_clear()
            .current_dir(&dir)
            .env("CCFN_ADDR", "127.0.0.1:0")
            .env("CCFN_LOG_FORMAT", "json")
            .env("CCFN_OUTBOX_DIR", dir.join("outbox"))
            .env("CCFN_TASK_STORE", dir.join("tasks.jsonl"))
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(File::create(dir.join("log")).unwrap())
            .stderr(File::create(dir.join("stderr")).unwrap())
            .spawn()
            .expect("the examples server starts");
        let mut server = Server {
            child,
            dir,
            addr: String::new(),
        };
        // An address given in `env` is waited on by connecting: a log
        // filter may leave out the `listening` record.
        let given = env
            .iter()
            .find(|(name, _)| *name == "CCFN_ADDR")
            .map(|(_, addr)| (*addr).to_owned());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let listening = match &given {
                Some(addr) => tokio::net::TcpStream::connect(addr.as_str())
                    .await
                    .ok()
                    .map(|_| addr.clone()),
                None => server
                    .text()
                    .lines()
                    .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                    .find_map(|r| r["addr"].as_str().map(str::to_owned)),
            };
            if let Some(addr) = listening {
                server.addr = addr;
                return server;
            }
            if let Some(status) = server.child.try_wait().unwrap() {
                panic!("the server exited ({status}): {}", server.stderr());
            }
            assert!(
                Instant::now() < deadline,
                "the server did not listen within 20 s: {}",
                server.stderr()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The log as written so far.
    pub(crate) fn text(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    pub(crate) fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.join("stderr")).unwrap_or_default()
    }

    /// Sends SIGTERM, as a container platform does.
    pub(crate) fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -TERM failed: {status}");
    }

    /// Waits for the process to exit.
    pub(crate) async fn exit(&mut self, within: Duration) -> ExitStatus {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit within {within:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits until the log holds `needle`.
    pub(crate) async fn wait_for(&self, needle: &str, within: Duration) {
        let deadline = Instant::now() + within;
        while !self.text().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "no `{needle}` in the log within {within:?}:\n{}",
                self.text()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Stops the server with SIGTERM and returns its whole log.
    pub(crate) async fn stop(mut self) -> Log {
        self.terminate();
        let status = self.exit(Duration::from_secs(15)).await;
        assert!(status.success(), "exit {status}: {}", self.stderr());
        self.log()
    }

    /// The log, every line of which must be a JSON record.
    pub(crate) fn log(&self) -> Log {
        let text = self.text();
        let records = text
            .lines()
            .map(|line| {
                serde_json::from_str::<Value>(line)
                    .unwrap_or_else(|e| panic!("a log line is not JSON ({e}): {line}"))
            })
            .collect();
        Log { text, records }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A server's log.
pub(crate) struct Log {
    pub(crate) text: String,
    pub(crate) records: Vec<Value>,
}

impl Log {
    /// The records of one invocation, in order, alerts left out (the
    /// error-rate alert depends on what else the server answered).
    pub(crate) fn of(&self, id: &str) -> Vec<Value> {
        self.records
            .iter()
            .filter(|r| r["invocation_id"] == id && r["step"] != "alert")
            .cloned()
            .collect()
    }

    /// Every record of `step`.
    pub(crate) fn all(&self, step: &str) -> Vec<&Value> {
        self.records.iter().filter(|r| r["step"] == step).collect()
    }

    /// The messages of the runtime's own records, in order.
    pub(crate) fn runtime(&self) -> Vec<&str> {
        self.all("runtime")
            .iter()
            .map(|r| r["message"].as_str().unwrap())
            .collect()
    }

    /// Every record as stable text for a snapshot: what changes from run
    /// to run redacted as in the testkit's snapshots, and the server's own
    /// folder written `[dir]`.
    pub(crate) fn snapshot(&self, dir: &std::path::Path) -> String {
        let dir = dir.display().to_string();
        self.records
            .iter()
            .map(|record| {
                let redacted = ccfn_testkit::redact(record.as_object().unwrap());
                Value::Object(redacted).to_string().replace(&dir, "[dir]") + "\n"
            })
            .collect()
    }

    #[track_caller]
    pub(crate) fn assert_no_secret(&self, secret: &str) {
        assert!(!self.text.contains(secret), "`{secret}` reached the log");
    }
}
