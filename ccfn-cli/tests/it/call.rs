//! `ccfn call` against the example runtime served on loopback, each
//! request signed: the examples' scripts (`examples/contact-center/calls`)
//! pass, a mismatch exits 1 with the transcript so far, a bad script
//! exits 2, what a function answers reaches the terminal escaped and
//! scrubbed, and the interactive call runs under a real terminal (tmux).

use crate::common::{temp_dir, write, Ran};

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use ccfn_core::runtime::{Runtime, RuntimeConfig};

use ccfn_testkit::fake_email::FakeEmailProvider;
use ccfn_testkit::fake_task_router::FakeTaskRouter;
use ccfn_testkit::{FakeContext, FAKE_AUTH_TOKEN};
use example_contact_center::LOCAL_DEFAULTS;
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

/// The runtime's auth token: the fake task router's credentials too.
const TOKEN: &str = FAKE_AUTH_TOKEN;
const WORKFLOW: &str = "WW0000000000000000000000000000cli0";
const INBOUND_URL: &str = "/features/inbound-call/calls/enqueue";

/// The example runtime with its fakes, signing with [`TOKEN`], on a
/// free loopback port; the fakes, its base URL and what stops it.
struct Line {
    email: FakeEmailProvider,
    router: FakeTaskRouter,
    base: String,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn line() -> Line {
    let email = FakeEmailProvider::start().await;
    let router = FakeTaskRouter::start().await.with_workflow(
        WORKFLOW,
        "Callbacks",
        json!({ "task_routing": { "filters": [], "default_filter": { "queue": "WQ0001" } } }),
    );
    let mut context = FakeContext::new()
        .email_provider(&email)
        .task_router(&router);
    for (name, value) in LOCAL_DEFAULTS {
        context = context.value(name, value);
    }
    let context = context.value("workflowSid", WORKFLOW).build();
    let runtime = example_contact_center::runtime(Runtime::new(context, RuntimeConfig::default()));
    runtime.check().expect("the runtime starts");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(runtime.serve_with(listener, async {
        let _ = stopped.await;
    }));
    Line {
        email,
        router,
        base,
        _stop: stop,
    }
}

/// The examples' script `name`.
fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/contact-center/calls")
        .join(format!("{name}.call"))
}

/// Runs `ccfn call args..`, signed with `token` when given, with
/// `stdin` as its standard input (none: closed).
async fn call_with(args: &[&str], token: Option<&str>, stdin: &[u8]) -> Ran {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_ccfn"));
    command
        .arg("call")
        .args(args)
        .env_remove("AUTH_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(token) = token {
        command.env("AUTH_TOKEN", token);
    }
    let mut child = command.spawn().expect("ccfn runs");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin).await.unwrap();
    drop(input);
    let output = child.wait_with_output().await.unwrap();
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// Runs `ccfn call args..` signed with [`TOKEN`], standard input closed.
async fn call(args: &[&str]) -> Ran {
    call_with(args, Some(TOKEN), b"").await
}

/// `--script` and the examples' script `name`, as arguments.
fn scripted(url: &str, name: &str) -> [String; 3] {
    [
        url.to_owned(),
        "--script".to_owned(),
        script(name).display().to_string(),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_examples_scripts_play_their_three_paths() {
    let line = line().await;
    let url = format!("{}{INBOUND_URL}", line.base);

    let ran = call(&scripted(&url, "hold").each_ref().map(String::as_str)).await;
    assert_eq!(ran.code, 0, "{ran:?}");
    assert!(ran.stdout.contains("caller waits 60 s"), "{}", ran.stdout);
    assert!(
        ran.stdout.ends_with("ended: the caller hung up\n"),
        "{}",
        ran.stdout
    );

    let ran = call(&scripted(&url, "voicemail").each_ref().map(String::as_str)).await;
    assert_eq!(ran.code, 0, "{ran:?}");
    assert!(ran.stdout.contains("Your message has been recorded"));
    let sent = line.email.requests();
    assert_eq!(sent.len(), 1, "the team got the voicemail's email");

    let ran = call(&scripted(&url, "callback").each_ref().map(String::as_str)).await;
    assert_eq!(ran.code, 0, "{ran:?}");
    assert!(ran.stdout.contains("ended: hung up by the document"));
    // The callback's task (the inbound call's is the platform's, made
    // by `<Enqueue>`).
    let tasks = line.router.tasks();
    assert_eq!(tasks.len(), 1, "{tasks:?}");
    assert!(tasks[0]["attributes"]
        .as_str()
        .unwrap()
        .contains(r#""type":"callback""#));

    assert!(!ran.stdout.contains(TOKEN) && !ran.stderr.contains(TOKEN));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mismatch_exits_1_with_the_transcript_so_far() {
    let line = line().await;
    let url = format!("{}{INBOUND_URL}", line.base);
    let dir = temp_dir("call-mismatch");
    let wrong = write(
        &dir,
        "wrong.call",
        "expect Thank you for calling\nexpect Press 9 for sales\npress 1\n",
    );
    let wrong = wrong.display().to_string();
    let ran = call(&[&url, "--script", &wrong]).await;
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stdout.contains("Press 1 to leave a voicemail"),
        "{}",
        ran.stdout
    );
    assert!(
        !ran.stdout.contains("caller presses"),
        "the script stopped at line 2"
    );
    assert_eq!(
        ran.stderr,
        "ccfn call: line 2: the caller did not hear \"Press 9 for sales\" since their last step\n"
    );

    let late = write(&dir, "late.call", "press 2\nend\npress 1\n");
    let late = late.display().to_string();
    let ran = call(&[&url, "--script", &late]).await;
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr,
        "ccfn call: line 3: the call ended before this step\n"
    );

    // Unsigned, the runtime refuses the first request: the call stops.
    let ran = call_with(&[&url, "--script", &late], None, b"").await;
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(ran.stdout.contains("=> 403"), "{}", ran.stdout);
    assert!(
        ran.stderr
            .starts_with("ccfn call: line 1: the call was stopped: the function answered 403"),
        "{}",
        ran.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_script_or_url_exits_2_saying_why() {
    let dir = temp_dir("call-bad");
    let bad = write(&dir, "bad.call", "expect hello\nprss 1\n");
    let ran = call(&[
        "http://127.0.0.1:9/x",
        "--script",
        &bad.display().to_string(),
    ])
    .await;
    assert_eq!(ran.code, 2);
    assert_eq!(
        ran.stderr,
        format!(
            "ccfn: {}: line 2: `prss` is not a step (expect, press, say, wait, hangup, end)\n",
            bad.display()
        )
    );
    let big = write(&dir, "big.call", &"# x\n".repeat(300_000));
    let ran = call(&[
        "http://127.0.0.1:9/x",
        "--script",
        &big.display().to_string(),
    ])
    .await;
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.ends_with("a script is at most 1048576 bytes\n"),
        "{}",
        ran.stderr
    );
    let ran = call(&["ftp://h/x"]).await;
    assert_eq!(ran.code, 2);
    assert_eq!(
        ran.stderr,
        "ccfn: `ftp://h/x` is not an http or https URL\n"
    );
    // No runtime there: the call stops on its first request.
    let ran = call(&["http://127.0.0.1:9/x"]).await;
    assert_eq!(ran.code, 1);
    assert!(
        ran.stdout
            .starts_with("-> POST /x => 0\nERROR: the request failed"),
        "{}",
        ran.stdout
    );
}

/// A loopback server answering `document` to every request (the
/// inspector's too: a voice URL served elsewhere than a runtime); the
/// URL of its `/voice`.
async fn answering(document: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/voice", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let document = document.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if stream.read(&mut byte).await.unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |n| n.trim().parse().unwrap());
                let mut body = vec![0u8; length];
                stream.read_exact(&mut body).await.unwrap();
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/xml\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{document}",
                    document.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_function_says_reaches_the_terminal_escaped_and_scrubbed() {
    // A voice document with a C1 control (CSI, allowed in XML) and the
    // auth token in its words.
    let document = format!("<Response><Say>\u{9b}2J cleared {TOKEN}</Say></Response>");
    let url = answering(document).await;
    let ran = call(&[&url]).await;
    assert_eq!(ran.code, 0, "{ran:?}");
    assert!(!ran.stdout.contains('\u{9b}'), "{:?}", ran.stdout);
    assert!(
        ran.stdout.contains("\\u{9b}2J cleared [REDACTED]"),
        "{}",
        ran.stdout
    );
    assert!(!ran.stdout.contains(TOKEN));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runtime_over_https_is_called_with_the_cas_ccfn_trusts() {
    let (port, ca) = crate::probe::tls_server(&["localhost"], 90).await;
    let dir = temp_dir("call-tls");
    let ca_file = write(&dir, "ca.pem", &ca);
    let url = format!("https://localhost:{port}/voice");
    let trusted = |trust: bool| {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_ccfn"));
        command
            .args(["call", &url])
            .env_remove("AUTH_TOKEN")
            .env("CCFN_TLS_ROOTS", "system")
            .stdin(Stdio::null());
        if trust {
            command.env("SSL_CERT_FILE", &ca_file);
        } else {
            // The Mozilla roots alone: the test's CA is not among them.
            command.env("CCFN_TLS_ROOTS", "builtin");
        }
        command.output()
    };
    let ran = trusted(true).await.unwrap();
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert_eq!(
        ran.status.code(),
        Some(0),
        "{stdout} {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert_eq!(stdout, "-> POST /voice => 200\nended: the document ended\n");
    // Not trusted: the call stops on its first request, and says why.
    let ran = trusted(false).await.unwrap();
    let stdout = String::from_utf8_lossy(&ran.stdout);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(!stdout.contains("=> 200"), "{stdout}");
    assert_eq!(ran.status.code(), Some(1), "{stdout} {stderr}");
    assert!(stdout.contains("ERROR: the request failed"), "{stdout}");
    assert!(
        stdout.contains("certificate"),
        "the cause is said: {stdout}"
    );
    assert!(
        stderr.starts_with("ccfn call: the call was stopped"),
        "{stderr}"
    );
}

/// Runs `tmux` with its own server socket `socket`.
fn tmux(socket: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new("tmux")
        .args(["-L", socket])
        .args(args)
        .output()
        .expect("tmux runs")
}

/// Waits until the pane shows `text`; the pane.
async fn pane_shows(socket: &str, text: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let pane = String::from_utf8_lossy(
            &tmux(socket, &["capture-pane", "-p", "-J", "-S", "-200"]).stdout,
        )
        .into_owned();
        if pane.contains(text) {
            return pane;
        }
        assert!(
            Instant::now() < deadline,
            "the pane never showed {text:?}:\n{pane}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interactive_call_runs_under_a_real_terminal() {
    if std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .is_err()
    {
        assert!(
            std::env::var("CCFN_TEST_TMUX").as_deref() != Ok("required"),
            "tmux is required (CCFN_TEST_TMUX=required) and not installed"
        );
        eprintln!("SKIPPED: tmux is not installed; `.ci/run` installs it and requires this test");
        return;
    }
    let line = line().await;
    let url = format!("{}{INBOUND_URL}", line.base);
    let socket = format!("ccfn-call-test-{}", std::process::id());
    let command = format!(
        "AUTH_TOKEN={TOKEN} {} call {url}; echo EXIT=$?; sleep 30",
        env!("CARGO_BIN_EXE_ccfn")
    );
    let started = tmux(
        &socket,
        &["new-session", "-d", "-x", "200", "-y", "50", &command],
    );
    assert!(started.status.success(), "{started:?}");
    struct Kill(String);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = tmux(&self.0, &["kill-server"]);
        }
    }
    let _kill = Kill(socket.clone());
    // The hint comes after what the caller hears, before the prompt.
    let pane = pane_shows(&socket, "Type keys to press them").await;
    assert!(pane.contains("Press 1 to leave a voicemail"), "{pane}");
    tmux(&socket, &["send-keys", "support", "Enter"]);
    pane_shows(&socket, "`support`: type keys").await;
    tmux(&socket, &["send-keys", "1", "Enter"]);
    pane_shows(&socket, "after the beep").await;
    tmux(
        &socket,
        &["send-keys", "say Hello from a terminal", "Enter"],
    );
    pane_shows(&socket, "caller says \"Hello from a terminal\"").await;
    tmux(&socket, &["send-keys", "#", "Enter"]);
    let pane = pane_shows(&socket, "EXIT=").await;
    assert!(pane.contains("Your message has been recorded"), "{pane}");
    assert!(pane.contains("ended: hung up by the document"), "{pane}");
    assert!(pane.contains("EXIT=0"), "{pane}");
    assert!(!pane.contains(TOKEN), "{pane}");
    assert_eq!(line.email.requests().len(), 1);
}
