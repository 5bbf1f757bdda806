//! Logs made by the example functions, through the testkit, under the
//! faults the tests need; and the `ccfn` binary run on them.
#![allow(dead_code, unreachable_pub)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ccfn_testkit::fake_email::FakeEmailProvider;
use ccfn_testkit::fake_task_router::FakeTaskRouter;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};
use example_contact_center::{inbound_call, voicemail_notice, wait_experience, LOCAL_DEFAULTS};
use serde_json::Value;

pub const WORKFLOW: &str = "WW11111111111111111111111111111111";

/// The context `main` makes from `context`: `LOCAL_DEFAULTS` for what it
/// does not set.
pub fn local(context: FakeContext) -> ccfn_core::Context {
    LOCAL_DEFAULTS
        .iter()
        .fold(context.build(), |context, (name, value)| {
            context.with_default(name, value)
        })
}

/// A call SID for the `n`th call of a log.
pub fn call(n: u32) -> String {
    format!("CA{n:032x}")
}

/// One invocation of a log: what it was, and its run.
pub struct Made {
    pub name: &'static str,
    pub run: Run,
}

/// Five invocations of the example functions, one call each, in order:
/// a menu that succeeds, a callback whose workflow does not exist (the
/// caller hears the fallback: a success with a `task_error`), a wait
/// without `To` (a validation failure), a voicemail notice without its
/// recording (an error), and an inbound call that is enqueued.
pub async fn invocations() -> Vec<Made> {
    let router = FakeTaskRouter::start().await;
    let email = FakeEmailProvider::start().await;
    email.expect(0);
    let deployed = || {
        FakeContext::new()
            .value("AUTH_TOKEN", "canary-cli-auth-token-61f0a2")
            .value("workflowSid", WORKFLOW)
            .value("TASKROUTER_BASE_URL", router.url())
            .value("EMAILPROVIDER_API_KEY", "canary-cli-email-key-0b93d7")
            .value("EMAILPROVIDER_BASE_URL", email.url())
            .value("VOICEMAIL_TO", "oncall@example.com")
            .value("VOICEMAIL_FROM", "voicemail@mg.example.com")
    };
    let voice = |n: u32| FakeEvent::voice().param("CallSid", &call(n));
    vec![
        Made {
            name: "menu",
            run: invoke(wait_experience, local(FakeContext::new()), voice(1)).await,
        },
        Made {
            name: "callback_without_workflow",
            run: invoke(wait_experience, deployed(), voice(2).mode("callback")).await,
        },
        Made {
            name: "missing_to",
            run: invoke(
                wait_experience,
                local(FakeContext::new()),
                voice(3).without("To"),
            )
            .await,
        },
        Made {
            name: "notice_without_recording",
            run: invoke(
                voicemail_notice,
                deployed(),
                FakeEvent::empty()
                    .param("CallSid", &call(4))
                    .param("From", "+15551230000")
                    .param("RecordingSid", "RE0123456789abcdef0123456789abcdef"),
            )
            .await,
        },
        Made {
            name: "inbound",
            run: invoke(inbound_call, deployed(), voice(5)).await,
        },
    ]
}

/// The records of `made`, one JSON line each, as a log file holds them.
pub fn log_text(made: &[Made]) -> String {
    let mut text = String::new();
    for made in made {
        for line in made.run.lines() {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// A folder of its own under the system's temporary folder.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ccfn-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `text` to `dir/name`.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// What a run of `ccfn` gave.
#[derive(Debug)]
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// The JSON objects of stdout, one per line.
    pub fn json(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
            .collect()
    }
}

/// Runs `ccfn args`, with `stdin` as its standard input.
pub fn ccfn(args: &[&str], stdin: Option<&[u8]>) -> Ran {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ccfn"))
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ccfn runs");
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().unwrap();
    Ran {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8(stdout).unwrap(),
        stderr: String::from_utf8(stderr).unwrap(),
    }
}

/// `value` as a JSON string, for comparisons.
pub fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"))
}

/// Panics on purpose: the business logic failing with nothing external
/// to blame.
///
/// # Trigger
/// Test.
/// # Dependencies
/// None
/// # Critical logging
/// None
/// # Contacts
/// oncall@example.com
#[ccfn_core::contact_fn(required = [CallSid, From, To])]
pub async fn broken(
    _context: ccfn_core::Context,
    event: ccfn_core::Event,
    callback: ccfn_core::Callback,
) -> ccfn_core::Completion {
    let queue: Vec<&str> = Vec::new();
    let first = queue.first().copied().expect("an agent in the queue");
    callback.success(format!("{first} {}", event.from().unwrap_or_default()))
}
