//! `ccfn call URL`: a whole phone call against a running runtime, the
//! platform's side played by the testkit's call interpreter
//! ([`ccfn_testkit::call`]). Interactive (what the caller hears is
//! printed, the caller's keys and words are read), or scripted from a
//! file of `expect` / `press` / `say` / `wait` / `hangup` / `end` lines,
//! for CI: exit 1 on a mismatch, with the transcript so far.
//!
//! Every line printed goes through [`crate::terminal`]: what a function
//! answers (a `Say`'s words, a URL) is scrubbed and has its control
//! characters escaped.

use std::io::{self, BufRead as _, IsTerminal as _, Read as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use ccfn_testkit::call::{Call, DialOutcome, Input, Limits, Target};
use reqwest::Url;

use crate::error::{Error, Problem};
use crate::terminal;

/// The variable holding the auth token the platform signs requests with.
const AUTH_TOKEN: &str = "AUTH_TOKEN";
/// The largest script read, in bytes.
const MAX_SCRIPT_BYTES: u64 = 1024 * 1024;
/// The longest line read from the caller at a terminal, in bytes.
const MAX_INPUT_LINE: u64 = 4096;
/// How long the inspector is given to take the transcript.
const INSPECTOR_TIMEOUT: Duration = Duration::from_secs(2);

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  ccfn call http://127.0.0.1:3001/features/inbound-call/calls/enqueue
  ccfn call http://127.0.0.1:3001/features/inbound-call/calls/enqueue --script voicemail.call

A script has one step a line ('#' starts a comment):
  expect WORDS    the caller heard WORDS since their last step
  press KEYS      the caller presses KEYS (0-9, * and #)
  say WORDS       the caller says WORDS
  wait SECONDS    the caller stays silent (simulated time: 30, 30s, 2m)
  hangup          the caller hangs up
  end             the call has ended, without an error
When the script runs out and the call goes on, the caller hangs up.

At a terminal, type keys to press them (1, 23#), or say WORDS, wait
SECONDS, hangup; the end of input hangs up.

With AUTH_TOKEN set, every request is signed as the platform signs it
(X-Twilio-Signature); the token is never printed. When the runtime
serves its inspector, the call's transcript is shown there beside its
invocations.

Exit status: 0 when the call went as the script says (or, at a terminal,
ended without an error), 1 on a mismatch or when the call was stopped by an
error, 2 on a bad option or script.")]
pub(crate) struct CallArgs {
    /// The voice URL of a function on a running runtime, as the number's
    /// configuration names it.
    url: String,
    /// Play the steps of FILE (`-` for standard input) instead of asking.
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// The caller's number (`From`, `Caller`).
    #[arg(long, value_name = "NUMBER", default_value = "+15550100001")]
    from: String,
    /// The number called (`To`, `Called`).
    #[arg(long, value_name = "NUMBER", default_value = "+15550100002")]
    to: String,
    /// A path of the same runtime requested when the call ends, with
    /// `CallStatus=completed` and its duration.
    #[arg(long, value_name = "PATH")]
    status_callback: Option<String>,
    /// What every `<Dial>` reports: a `DialCallStatus` (completed,
    /// answered, busy, no-answer, failed, canceled), and the seconds of the
    /// dialled call.
    #[arg(long, value_name = "STATUS[:SECONDS]", default_value = "completed:30", value_parser = dial_outcome)]
    dial_outcome: DialOutcome,
    /// Stop the call after this many requests: a document that loops.
    #[arg(long, value_name = "N", default_value_t = 100)]
    max_requests: usize,
    /// Stop the call after this much simulated time.
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = humantime::parse_duration)]
    max_time: Duration,
}

fn dial_outcome(text: &str) -> Result<DialOutcome, String> {
    let (status, seconds) = text.split_once(':').unwrap_or((text, "30"));
    if !matches!(
        status,
        "completed" | "answered" | "busy" | "no-answer" | "failed" | "canceled"
    ) {
        return Err(format!(
            "`{status}` is not a dial status (completed, answered, busy, no-answer, failed, canceled)"
        ));
    }
    let seconds = seconds
        .parse()
        .map_err(|_| format!("`{seconds}` is not a number of seconds"))?;
    Ok(DialOutcome {
        status: status.to_owned(),
        seconds,
    })
}

/// One step of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    /// The caller heard these words since their last step.
    Expect(String),
    /// The caller acts.
    Act(Input),
    /// The call has ended, without an error.
    End,
}

/// The keys a caller can press.
fn keys(text: &str) -> Result<String, String> {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || c == '*' || c == '#')
    {
        Ok(text.to_owned())
    } else {
        Err(format!("`{text}` are not keys: press 0-9, * and #"))
    }
}

/// Seconds of silence: a whole number, or a duration (`30s`, `2m`).
fn seconds(text: &str) -> Result<u64, String> {
    text.parse().or_else(|_| {
        humantime::parse_duration(text)
            .map(|d| d.as_secs())
            .map_err(|_| format!("`{text}` is not a number of seconds (30, 30s, 2m)"))
    })
}

/// The caller's action a line asks for (`press 1`, `say yes`, `wait 5`,
/// `hangup`), `None` when the line is another step.
fn action(word: &str, rest: &str) -> Option<Result<Input, String>> {
    let nonempty = |what: &str| {
        if rest.is_empty() {
            Err(format!("`{word}` needs {what}"))
        } else {
            Ok(rest.to_owned())
        }
    };
    Some(match word {
        "press" => nonempty("keys").and_then(|k| keys(&k)).map(Input::Press),
        "say" => nonempty("words").map(Input::Say),
        "wait" => nonempty("seconds")
            .and_then(|s| seconds(&s))
            .map(Input::Wait),
        "hangup" if rest.is_empty() => Ok(Input::HangUp),
        "hangup" => Err("`hangup` takes nothing after it".to_owned()),
        _ => return None,
    })
}

/// A line's first word and the rest, trimmed.
fn split(line: &str) -> (&str, &str) {
    let line = line.trim();
    match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    }
}

/// The steps of a script, each with its line number.
fn parse_script(text: &str) -> Result<Vec<(usize, Step)>, String> {
    let mut steps = Vec::new();
    for (at, line) in text.lines().enumerate() {
        let number = at + 1;
        let (word, rest) = split(line);
        if word.is_empty() || word.starts_with('#') {
            continue;
        }
        let step = match (word, action(word, rest)) {
            (_, Some(input)) => input.map(Step::Act),
            ("expect", None) if rest.is_empty() => Err("`expect` needs words".to_owned()),
            ("expect", None) => Ok(Step::Expect(rest.to_owned())),
            ("end", None) if rest.is_empty() => Ok(Step::End),
            ("end", None) => Err("`end` takes nothing after it".to_owned()),
            (other, None) => Err(format!(
                "`{other}` is not a step (expect, press, say, wait, hangup, end)"
            )),
        };
        steps.push((number, step.map_err(|why| format!("line {number}: {why}"))?));
    }
    Ok(steps)
}

/// What the caller typed at the prompt: keys alone press them; `say`,
/// `press`, `wait` and `hangup` as in a script. `None` for an empty line.
fn parse_input(line: &str) -> Option<Result<Input, String>> {
    let (word, rest) = split(line);
    if word.is_empty() {
        return None;
    }
    if rest.is_empty() && keys(word).is_ok() {
        return Some(Ok(Input::Press(word.to_owned())));
    }
    Some(action(word, rest).unwrap_or_else(|| {
        Err(format!(
            "`{word}`: type keys (1, 23#), say WORDS, wait SECONDS or hangup"
        ))
    }))
}

/// The runtime's base URL and the path of `url`, checked.
fn target(url: &str) -> Result<(Url, String), Problem> {
    let parsed = Url::parse(url).map_err(|err| Problem::url(url, format!("not a URL: {err}")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(Problem::url(url, "not an http or https URL".to_owned()));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(Problem::url(
            url,
            "a URL with credentials: the runtime checks signatures, set AUTH_TOKEN".to_owned(),
        ));
    }
    let path = match parsed.query() {
        Some(query) => format!("{}?{query}", parsed.path()),
        None => parsed.path().to_owned(),
    };
    let base = parsed
        .join("/")
        .map_err(|err| Problem::url(url, err.to_string()))?;
    Ok((base, path))
}

/// A `CallSid` of this call alone: `CA` and 32 hex digits from the time,
/// the process and a count.
fn fresh_call_sid() -> String {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let count = u128::from(COUNT.fetch_add(1, Ordering::Relaxed));
    format!(
        "CA{:032x}",
        nanos ^ (u128::from(std::process::id()) << 96) ^ (count << 64)
    )
}

/// Reads the script at `path` (`-`: standard input), at most
/// [`MAX_SCRIPT_BYTES`].
fn read_script(path: &PathBuf) -> Result<String, Problem> {
    let name = path.display().to_string();
    let mut bytes = Vec::new();
    let read = if name == "-" {
        io::stdin()
            .lock()
            .take(MAX_SCRIPT_BYTES + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(MAX_SCRIPT_BYTES + 1).read_to_end(&mut bytes))
    };
    let resource = if name == "-" { "standard input" } else { &name };
    read.map_err(|err| Problem::read(resource, err))?;
    if bytes.len() as u64 > MAX_SCRIPT_BYTES {
        return Err(Problem::read(
            resource,
            format!("a script is at most {MAX_SCRIPT_BYTES} bytes"),
        ));
    }
    String::from_utf8(bytes).map_err(|_| Problem::read(resource, "not UTF-8 text"))
}

/// Prints the transcript's new entries, and hands the whole transcript
/// to the runtime's inspector while it takes it.
struct Printer {
    printed: usize,
    /// The inspector's transcript URL; `None` once it refused one.
    inspector: Option<Url>,
    /// The inspector's page of the call, said once the inspector took
    /// the transcript for the first time.
    page: Option<String>,
    client: reqwest::Client,
}

impl Printer {
    /// A printer of the call `call_sid` to the runtime at `base`, whose
    /// inspector is reached through `client` (the call's own).
    fn new(base: &Url, call_sid: &str, client: reqwest::Client) -> Printer {
        let page = base
            .join(&format!("__ccfn/inspector/calls/{call_sid}"))
            .ok();
        Printer {
            printed: 0,
            inspector: page
                .as_ref()
                .and_then(|page| page.join(&format!("{call_sid}/transcript")).ok()),
            page: page.map(|page| page.to_string()),
            client,
        }
    }

    async fn update(&mut self, call: &Call) -> Result<(), Problem> {
        let entries = call.transcript().entries();
        for entry in &entries[self.printed.min(entries.len())..] {
            terminal::write_out(&format!("{entry}\n"))?;
        }
        self.printed = entries.len();
        if let Some(url) = self.inspector.clone() {
            let lines: Vec<String> = entries.iter().map(ToString::to_string).collect();
            let body = serde_json::json!({ "lines": lines, "ended": call.ended() });
            let taken = self
                .client
                .put(url)
                .timeout(INSPECTOR_TIMEOUT)
                .header("content-type", "application/json")
                .body(body.to_string())
                .send()
                .await
                .is_ok_and(|response| response.status().as_u16() == 204);
            if taken {
                // Said at once: the page follows the call as it goes.
                if let Some(page) = self.page.take() {
                    terminal::say(" call", &format!("the inspector shows this call: {page}"));
                }
            } else {
                // Not served (production mode, an older runtime): the
                // call goes on without it.
                self.inspector = None;
            }
        }
        Ok(())
    }
}

/// The client the call's requests go through: the CA certificates ccfn's
/// clients trust (`CCFN_TLS_ROOTS`, `SSL_CERT_FILE`), no redirect
/// followed.
fn client() -> Result<reqwest::Client, Problem> {
    ccfn_core::http::install_crypto_provider();
    let roots = ccfn_core::http::TlsRoots::from_env()
        .map_err(|err| Problem::Tls(err.message().to_owned()))?;
    roots
        .apply(reqwest::Client::builder())
        .redirect(reqwest::redirect::Policy::none())
        .user_agent("ccfn-call")
        .build()
        .map_err(|err| Problem::Tls(err.to_string()))
}

/// How a call went.
enum Outcome {
    /// As expected.
    Passed,
    /// Not as the script said, or stopped by an error: the message.
    Failed(String),
}

pub(crate) fn run(args: &CallArgs) -> Result<ExitCode, Error> {
    call(args).map_err(Error::of("call"))
}

fn call(args: &CallArgs) -> Result<ExitCode, Problem> {
    let (base, path) = target(&args.url)?;
    let script = match &args.script {
        Some(file) => Some(
            parse_script(&read_script(file)?)
                .map_err(|why| Problem::Usage(format!("{}: {why}", file.display())))?,
        ),
        None => None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Problem::Start)?;
    let client = client()?;
    let call_sid = fresh_call_sid();
    let outcome = runtime.block_on(async {
        let mut call = Call::new(Target::Url(base.clone()))
            .await
            .client(client.clone())
            .call_sid(&call_sid)
            .from(&args.from)
            .to(&args.to)
            .dial_outcome(args.dial_outcome.clone())
            .limits(Limits {
                requests: args.max_requests,
                seconds: args.max_time.as_secs(),
            });
        if let Some(token) = std::env::var(AUTH_TOKEN).ok().filter(|t| !t.is_empty()) {
            call = call.auth_token(&token);
        }
        if let Some(callback) = &args.status_callback {
            if Url::parse(callback).is_ok() || !callback.starts_with('/') {
                return Err(Problem::Usage(format!(
                    "--status-callback: `{callback}` is not a path of the runtime (/...)"
                )));
            }
            call = call.status_callback(callback);
        }
        let mut printer = Printer::new(&base, &call_sid, client);
        call.dial(&path).await;
        printer.update(&call).await?;
        let outcome = match &script {
            Some(steps) => scripted(&mut call, &mut printer, steps).await?,
            None => interactive(&mut call, &mut printer).await?,
        };
        Ok(outcome)
    })?;
    Ok(match outcome {
        Outcome::Passed => ExitCode::SUCCESS,
        Outcome::Failed(why) => {
            terminal::say(" call", &why);
            ExitCode::from(1)
        }
    })
}

/// Plays `steps`; the caller hangs up when they run out.
async fn scripted(
    call: &mut Call,
    printer: &mut Printer,
    steps: &[(usize, Step)],
) -> Result<Outcome, Problem> {
    for (line, step) in steps {
        if let Some(error) = call.transcript().error() {
            return Ok(Outcome::Failed(format!(
                "line {line}: the call was stopped: {error}"
            )));
        }
        match step {
            Step::Expect(words) => {
                if !call.heard(words) {
                    return Ok(Outcome::Failed(format!(
                        "line {line}: the caller did not hear {words:?} since their last step"
                    )));
                }
            }
            Step::End => {
                if !call.ended() {
                    return Ok(Outcome::Failed(format!(
                        "line {line}: the call goes on, the script expects its end"
                    )));
                }
            }
            Step::Act(input) => {
                if call.ended() {
                    return Ok(Outcome::Failed(format!(
                        "line {line}: the call ended before this step"
                    )));
                }
                call.step(input.clone()).await;
                printer.update(call).await?;
            }
        }
    }
    if !call.ended() {
        call.hangs_up().await;
        printer.update(call).await?;
    }
    Ok(match call.transcript().error() {
        Some(error) => Outcome::Failed(format!("the call was stopped: {error}")),
        None => Outcome::Passed,
    })
}

/// Asks the caller for each step until the call ends; the end of input
/// hangs up.
async fn interactive(call: &mut Call, printer: &mut Printer) -> Result<Outcome, Problem> {
    let stdin = io::stdin();
    let prompt = stdin.is_terminal();
    if prompt && !call.ended() {
        terminal::write_err(
            "Type keys to press them (1, 23#), or: say WORDS, wait SECONDS, hangup.\n",
        );
    }
    let mut lines = stdin.lock();
    while !call.ended() {
        if prompt {
            terminal::write_err("> ");
        }
        let mut line = Vec::new();
        let read = (&mut lines)
            .take(MAX_INPUT_LINE)
            .read_until(b'\n', &mut line)
            .map_err(|err| Problem::read("standard input", err))?;
        let input = if read == 0 {
            Some(Ok(Input::HangUp))
        } else {
            parse_input(&String::from_utf8_lossy(&line))
        };
        match input {
            None => continue,
            Some(Err(why)) => terminal::write_err(&format!("{why}\n")),
            Some(Ok(input)) => {
                call.step(input).await;
                printer.update(call).await?;
            }
        }
    }
    Ok(match call.transcript().error() {
        Some(error) => Outcome::Failed(format!("the call was stopped: {error}")),
        None => Outcome::Passed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_reads_one_step_a_line() {
        let steps = parse_script(
            "# the menu\n\nexpect Press 1 for support\npress 1#\nsay  my order \nwait 30\nwait 2m\nhangup\nend\n",
        )
        .unwrap();
        let steps: Vec<Step> = steps.into_iter().map(|(_, step)| step).collect();
        assert_eq!(
            steps,
            [
                Step::Expect("Press 1 for support".to_owned()),
                Step::Act(Input::Press("1#".to_owned())),
                Step::Act(Input::Say("my order".to_owned())),
                Step::Act(Input::Wait(30)),
                Step::Act(Input::Wait(120)),
                Step::Act(Input::HangUp),
                Step::End,
            ]
        );
    }

    #[test]
    fn a_wrong_line_is_named_with_its_number() {
        for (script, error) in [
            (
                "expect hi\nprss 1",
                "line 2: `prss` is not a step (expect, press, say, wait, hangup, end)",
            ),
            ("press 1a", "line 1: `1a` are not keys: press 0-9, * and #"),
            ("press", "line 1: `press` needs keys"),
            ("say", "line 1: `say` needs words"),
            ("expect", "line 1: `expect` needs words"),
            (
                "wait soon",
                "line 1: `soon` is not a number of seconds (30, 30s, 2m)",
            ),
            ("hangup now", "line 1: `hangup` takes nothing after it"),
            ("\n\nend please", "line 3: `end` takes nothing after it"),
        ] {
            assert_eq!(parse_script(script).unwrap_err(), error, "{script:?}");
        }
    }

    #[test]
    fn typed_keys_press_them_and_words_need_say() {
        assert_eq!(
            parse_input("12#\n"),
            Some(Ok(Input::Press("12#".to_owned())))
        );
        assert_eq!(
            parse_input("say I want support\n"),
            Some(Ok(Input::Say("I want support".to_owned())))
        );
        assert_eq!(parse_input("wait 10"), Some(Ok(Input::Wait(10))));
        assert_eq!(parse_input("hangup"), Some(Ok(Input::HangUp)));
        assert_eq!(parse_input("  \n"), None);
        assert_eq!(
            parse_input("support please"),
            Some(Err(
                "`support`: type keys (1, 23#), say WORDS, wait SECONDS or hangup".to_owned()
            ))
        );
    }

    #[test]
    fn the_url_gives_the_runtime_and_the_path() {
        let (base, path) = target("http://127.0.0.1:3001/features/x/y?mode=menu").unwrap();
        assert_eq!(base.as_str(), "http://127.0.0.1:3001/");
        assert_eq!(path, "/features/x/y?mode=menu");
        for (url, why) in [
            ("ftp://h/x", "not an http or https URL"),
            ("/features/x", "not a URL: relative URL without a base"),
            (
                "http://user:pw-canary@h/x",
                "a URL with credentials: the runtime checks signatures, set AUTH_TOKEN",
            ),
        ] {
            let Err(Problem::Url {
                why: got,
                url: shown,
            }) = target(url)
            else {
                panic!("{url} was taken");
            };
            assert_eq!(got, why);
            assert!(!shown.contains("pw-canary"), "{shown}");
        }
    }

    #[test]
    fn a_dial_outcome_is_a_status_and_seconds() {
        assert_eq!(
            dial_outcome("busy").unwrap(),
            DialOutcome {
                status: "busy".to_owned(),
                seconds: 30
            }
        );
        assert_eq!(dial_outcome("completed:45").unwrap().seconds, 45);
        assert!(dial_outcome("ringing").is_err());
        assert!(dial_outcome("completed:long").is_err());
    }

    #[test]
    fn each_call_has_its_own_sid() {
        let (a, b) = (fresh_call_sid(), fresh_call_sid());
        assert_ne!(a, b);
        assert_eq!(a.len(), 34);
        assert!(a.starts_with("CA") && a[2..].chars().all(|c| c.is_ascii_hexdigit()));
    }
}
