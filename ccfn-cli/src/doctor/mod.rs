//! `ccfn doctor`: one call followed across the number, the flow, the
//! functions and the task router, stopping at the first broken link.
//!
//! Steps 2 to 6 of the diagnostic procedure ask the platform; the
//! decision tree asks the logs. The doctor joins them by the call: the
//! number that answered it, the flow that number runs, the flow's
//! execution and steps for this call, the function's records for this
//! `call_sid` (the decision tree of `ccfn diagnose`), the answers the
//! platform logged for the call's webhooks, the task the function
//! created, and the alerts that name any of these.

use std::process::ExitCode;

use clap::Args;
use reqwest::Url;
use serde_json::{json, Value};

use crate::diagnose::{self, Record};
use crate::error::{Error, Problem};
use crate::listing::{mask_phone, path_sid};
use crate::platform::{Platform, PlatformError, Product, Settings};
use crate::resources::{
    self, text, Alert, Application, Call, Event, Execution, Flow, IncomingNumber, Step,
    StepContext, Task, Widget, Workflow,
};
use crate::write_out;

mod alert;
mod call;
mod function;
mod number;
mod taskrouter;

use alert::{alerts, iso_day};
pub(crate) use alert::{past_alerts, ALERT_DAYS};
use call::{follow_call, tree};
use function::follow_function;
use number::{follow_number, number_link};
use taskrouter::task;

/// `ccfn doctor`.
#[derive(Args, Debug)]
#[command(after_help = "\
Examples:
  ccfn doctor --call CA0123456789abcdef0123456789abcdef --logs app.log
  ccfn doctor --call CA0123456789abcdef0123456789abcdef --logs app.log --all --json
  ccfn doctor --number +15559870000
  ccfn doctor --function wait-experience --logs app.log

Each check is ✓ (passed), ! (a warning), ✗ (failed) or - (not checked),
with its evidence indented under it and, under a ✗, the fix. It stops at
the first ✗ (after the task router's side of a task the function could
not create, which names the cause); --all goes on to the end.

Exit status: 0 when no check failed, 1 when one did, 2 on an error.")]
#[command(group(clap::ArgGroup::new("what").required(true).args(["call", "number", "function"])))]
pub(crate) struct DoctorArgs {
    /// Follow this call (CA...).
    #[arg(long, value_name = "SID", value_parser = crate::listing::sid("CA"))]
    call: Option<String>,
    /// Check what answers this phone number (E.164, +1...).
    #[arg(long, value_name = "NUMBER")]
    number: Option<String>,
    /// Check one function: the flows whose function widgets call it, and
    /// the decision tree over its records in --logs.
    #[arg(long, value_name = "NAME")]
    function: Option<String>,
    /// The functions' logs (the call's records are read from them); more
    /// than one file in order, plain or gzip-compressed.
    #[arg(long = "logs", value_name = "FILE", num_args = 1..)]
    logs: Vec<String>,
    /// Every check, past the first that fails.
    #[arg(long)]
    all: bool,
    /// The checks as JSON.
    #[arg(long)]
    json: bool,
    /// Mask phone numbers (all but their last four digits).
    #[arg(long)]
    mask_pii: bool,
}

impl DoctorArgs {
    /// The doctor `ccfn package` runs: every check for `call`, over the
    /// package's records.
    pub(crate) fn for_package(call: &str, records: String) -> DoctorArgs {
        DoctorArgs {
            call: Some(call.to_owned()),
            number: None,
            function: None,
            logs: vec![records],
            all: true,
            json: false,
            mask_pii: false,
        }
    }
}

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    Passed,
    Warning,
    Failed,
    Skipped,
}

impl Mark {
    fn symbol(self) -> &'static str {
        match self {
            Mark::Passed => "✓",
            Mark::Warning => "!",
            Mark::Failed => "✗",
            Mark::Skipped => "-",
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Mark::Passed => "passed",
            Mark::Warning => "warning",
            Mark::Failed => "failed",
            Mark::Skipped => "skipped",
        }
    }
}

/// One link of the chain.
#[derive(Debug, Clone)]
pub(crate) struct Check {
    pub(crate) mark: Mark,
    pub(crate) title: String,
    pub(crate) details: Vec<String>,
    pub(crate) fix: Option<String>,
}

impl Check {
    fn new(mark: Mark, title: impl Into<String>) -> Check {
        Check {
            mark,
            title: title.into(),
            details: Vec::new(),
            fix: None,
        }
    }

    fn detail(mut self, detail: impl Into<String>) -> Check {
        self.details.push(detail.into());
        self
    }

    fn fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }
}

/// The checks made so far, and whether to go on after a failure.
struct Report {
    checks: Vec<Check>,
    all: bool,
    mask: bool,
}

impl Report {
    /// Adds `check`; whether to go on.
    fn add(&mut self, check: Check) -> bool {
        let failed = check.mark == Mark::Failed;
        self.checks.push(check);
        !failed || self.all
    }

    fn phone(&self, number: &str) -> String {
        if self.mask {
            mask_phone(number)
        } else {
            number.to_owned()
        }
    }
}

/// Runs `ccfn doctor`.
pub(crate) fn run(args: &DoctorArgs) -> Result<ExitCode, Error> {
    show(args).map_err(Error::of("doctor"))
}

/// Writes the checks for `args`.
fn show(args: &DoctorArgs) -> Result<ExitCode, Problem> {
    let (text, json, failed) = examine(args)?;
    if args.json {
        crate::terminal::write_json_out(&format!("{json:#}\n"))?;
    } else {
        write_out(&text)?;
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The checks for `args`: as text, as JSON, and whether one failed.
pub(crate) fn examine(args: &DoctorArgs) -> Result<(String, Value, bool), Problem> {
    crate::package::register_secrets();
    let platform = Platform::new(Settings::from_vars(|name| std::env::var(name).ok())?)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Problem::Start)?;
    let mut report = Report {
        checks: Vec::new(),
        all: args.all,
        mask: args.mask_pii,
    };
    let what = match (&args.call, &args.number) {
        (None, None) if args.function.is_some() => {
            let name = args.function.as_deref().unwrap_or_default();
            runtime.block_on(follow_function(&platform, name, &args.logs, &mut report));
            format!("function {name}")
        }
        (Some(call), _) => {
            runtime.block_on(follow_call(&platform, call, &args.logs, &mut report));
            format!("call {call}")
        }
        (None, Some(number)) => {
            runtime.block_on(follow_number(&platform, number, &mut report));
            format!(
                "number {}",
                report.phone(&e164(number).unwrap_or(number.clone()))
            )
        }
        (None, None) => {
            return Err(Problem::Usage(
                "give --call CA..., --number +1... or --function NAME".to_owned(),
            ))
        }
    };
    let failed = report.checks.iter().any(|c| c.mark == Mark::Failed);
    Ok((
        human(&what, &report.checks),
        to_json(&what, &report.checks),
        failed,
    ))
}

/// A flow's SID in a webhook URL (`.../Flows/FW...`).
fn flow_in(url: &str) -> Option<&str> {
    let at = url.find("/Flows/FW")? + "/Flows/".len();
    let sid = url.get(at..at + 34)?;
    sid[2..]
        .bytes()
        .all(|b| b.is_ascii_hexdigit())
        .then_some(sid)
}

/// Why `given`, named by `whose`, goes in no request's path: it is not a
/// SID with `prefix` and 32 hex digits, the pattern the platform's
/// definitions give it.
fn not_a_sid(whose: &str, given: &str, prefix: &str) -> String {
    format!(
        "{whose} names {given:?}, which is not a SID ({prefix} and 32 hex digits): the platform is not asked"
    )
}

/// `number` in E.164 (`+` and 8 to 15 digits), with the spaces, dashes,
/// dots and parentheses people write in it taken out.
pub(crate) fn e164(number: &str) -> Result<String, String> {
    let kept: String = number
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '.' | '(' | ')'))
        .collect();
    let digits = kept.strip_prefix('+').unwrap_or("");
    if (8..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
        Ok(kept)
    } else {
        Err(format!(
            "{number:?} is not a phone number in E.164: + and the country code, then the number (+15559870000)"
        ))
    }
}

/// The first record of `step` in `records`.
fn record<'a>(records: &'a [Record], step: &str) -> Option<&'a Record> {
    records
        .iter()
        .find(|r| r.get("step").and_then(Value::as_str) == Some(step))
}

fn field<'a>(record: &'a Record, key: &str) -> Option<&'a str> {
    record
        .get(key)
        .and_then(Value::as_str)
        .filter(|v| !v.is_empty())
}

/// The checks for a person, in the style of `flutter doctor`.
///
/// Each check, detail and fix is one line, whatever the platform or the
/// records wrote in it: a line break from outside (a flow's name, a
/// widget's, an alert's text) is shown as `\x0a`, so that it cannot
/// forge a check of its own.
fn human(what: &str, checks: &[Check]) -> String {
    let line = |text: &str| text.replace('\n', "\\x0a").replace('\r', "\\x0d");
    let mut out = format!("Doctor for {}\n\n", line(what));
    for check in checks {
        out.push_str(&format!(
            "[{}] {}\n",
            check.mark.symbol(),
            line(&check.title)
        ));
        for detail in &check.details {
            out.push_str(&format!("    • {}\n", line(detail)));
        }
        if check.mark == Mark::Failed
            && let Some(fix) = &check.fix
        {
            out.push_str(&format!("    Fix: {}\n", line(fix)));
        }
    }
    let failed = checks.iter().filter(|c| c.mark == Mark::Failed).count();
    let warned = checks.iter().filter(|c| c.mark == Mark::Warning).count();
    out.push('\n');
    out.push_str(&match (failed, warned) {
        (0, 0) => "No issue found.\n".to_owned(),
        (0, w) => format!(
            "No link is broken; {w} warning{}.\n",
            if w == 1 { "" } else { "s" }
        ),
        (f, _) => format!(
            "{f} broken link{}: the first is where to start.\n",
            if f == 1 { "" } else { "s" }
        ),
    });
    out
}

fn to_json(what: &str, checks: &[Check]) -> Value {
    let first = checks.iter().position(|c| c.mark == Mark::Failed);
    json!({
        "doctor": what,
        "checks": checks.iter().map(|c| json!({
            "result": c.mark.as_str(),
            "check": c.title,
            "details": c.details,
            "fix": c.fix,
        })).collect::<Vec<_>>(),
        "first_failure": first,
    })
}

#[cfg(test)]
mod tests {
    use super::call::{call_days, path_taken, reached};
    use super::number::{compare_urls, Same};
    use super::*;

    #[test]
    fn a_flow_sid_is_read_from_its_webhook_url() {
        let url =
            "https://webhooks.twilio.com/v1/Accounts/AC1/Flows/FW0123456789abcdef0123456789abcdef";
        assert_eq!(flow_in(url), Some("FW0123456789abcdef0123456789abcdef"));
        assert_eq!(flow_in("https://cc.example.com/voice"), None);
        assert_eq!(flow_in("https://x/Flows/FW12"), None);
    }

    #[test]
    fn webhook_urls_differing_only_in_writing_are_named() {
        let hook = "https://webhooks.twilio.com/v1/Accounts/AC1/Flows/FW1";
        assert_eq!(compare_urls(hook, hook), Same::Exactly);
        let nearly = |called: &str| match compare_urls(called, hook) {
            Same::Nearly(differences) => differences.join("; "),
            other => panic!("{called}: {other:?}"),
        };
        assert_eq!(
            nearly(&format!("{hook}/")),
            "a trailing slash the flow's has not"
        );
        assert_eq!(
            nearly("http://webhooks.twilio.com/v1/Accounts/AC1/Flows/FW1"),
            "the scheme: http:// where the flow's is https://"
        );
        assert_eq!(
            nearly("https://webhooks.twilio.com:443/v1/Accounts/AC1/Flows/FW1"),
            "the default port :443, written out in the number's"
        );
        assert_eq!(
            nearly("https://webhooks.twilio.com:443/v1/Accounts/AC1/Flows/FW1/"),
            "the default port :443, written out in the number's; a trailing slash the flow's has not"
        );
        for other in [
            "https://webhooks.twilio.com/v1/Accounts/AC1/Flows/FW2",
            "https://webhooks.twilio.com.evil.example/v1/Accounts/AC1/Flows/FW1",
            "https://webhooks.twilio.com:8443/v1/Accounts/AC1/Flows/FW1",
            "https://webhooks.twilio.com/v1/Accounts/AC1/Flows/FW1?x=1",
            "https://user@webhooks.twilio.com/v1/Accounts/AC1/Flows/FW1",
            "not a URL",
        ] {
            assert_eq!(compare_urls(other, hook), Same::Not, "{other}");
        }
    }

    #[test]
    fn numbers_are_e164_or_refused() {
        assert_eq!(e164("+15559870000").unwrap(), "+15559870000");
        assert_eq!(e164("+1 (555) 987-0000").unwrap(), "+15559870000");
        assert_eq!(e164("+1.555.987.0000").unwrap(), "+15559870000");
        for bad in [
            "15559870000",
            "+1555987000*",
            "+1555",
            "+1555987000012345",
            "",
            "+",
            "+1 555 98x 0000",
        ] {
            let err = e164(bad).unwrap_err();
            assert!(err.contains("E.164"), "{bad}: {err}");
        }
    }

    #[test]
    fn days_count_across_months_years_and_leap_days() {
        assert_eq!(
            crate::when::day_after("2026-11-30").as_deref(),
            Some("2026-12-01")
        );
        assert_eq!(
            crate::when::day_after("2026-12-31").as_deref(),
            Some("2027-01-01")
        );
        assert_eq!(
            crate::when::day_after("2024-02-28").as_deref(),
            Some("2024-02-29")
        );
        assert_eq!(
            crate::when::day_after("2026-02-28").as_deref(),
            Some("2026-03-01")
        );
        assert_eq!(crate::when::day_after("2026-13-01"), None);
        assert_eq!(crate::when::today().len(), 10);
        // The platform's alerts go 30 days back, no further.
        assert!(!past_alerts("2026-10-27", "2026-11-26"));
        assert!(past_alerts("2026-10-26", "2026-11-26"));
        assert!(!past_alerts("garbage", "2026-11-26"));
    }

    #[test]
    fn a_call_s_days_run_to_the_day_after_it_ended() {
        let call = |start: &str, end: Option<&str>| Call {
            start_time: Some(start.to_owned()),
            end_time: end.map(str::to_owned),
            ..Call::default()
        };
        assert_eq!(
            call_days(&call(
                "Fri, 20 Nov 2026 23:59:58 +0000",
                Some("Sat, 21 Nov 2026 00:01:00 +0000")
            )),
            Some(("2026-11-20".to_owned(), "2026-11-22".to_owned()))
        );
        assert_eq!(
            call_days(&call("Fri, 20 Nov 2026 10:00:00 +0000", None)),
            Some(("2026-11-20".to_owned(), "2026-11-21".to_owned()))
        );
        assert_eq!(call_days(&Call::default()), None);
    }

    fn step(name: &str, from: &str, to: &str, kind: Option<&str>) -> Step {
        Step {
            sid: Some(format!("FT-{name}-{from}-{to}")),
            name: Some(name.to_owned()),
            transitioned_from: Some(from.to_owned()),
            transitioned_to: Some(to.to_owned()),
            kind: kind.map(str::to_owned),
            date_created: None,
        }
    }

    #[test]
    fn the_widget_a_step_ran_is_in_its_transitions_never_its_name() {
        let functions = [Widget {
            name: "wait_experience".to_owned(),
            kind: "run-function".to_owned(),
            url: Some("https://cc.example.com/wait".to_owned()),
        }];
        // An event named like the widget is not the widget.
        let steps = [step("wait_experience", "Trigger", "say_goodbye", None)];
        assert!(reached(&steps, &functions).is_none());
        // Entered and left: both steps found.
        let steps = [
            step(
                "incomingCall",
                "Trigger",
                "wait_experience",
                Some("trigger"),
            ),
            step("fail", "wait_experience", "Ended", Some("run-function")),
        ];
        let (widget, entered, left) = reached(&steps, &functions).unwrap();
        assert_eq!(widget.name, "wait_experience");
        assert_eq!(entered.unwrap().name.as_deref(), Some("incomingCall"));
        assert_eq!(left.unwrap().name.as_deref(), Some("fail"));
        assert_eq!(
            path_taken(&steps),
            "Trigger → wait_experience (incomingCall) → Ended (fail)"
        );
        // Entered, not yet left (no type given).
        let steps = [step("incomingCall", "Trigger", "wait_experience", None)];
        let (_, entered, left) = reached(&steps, &functions).unwrap();
        assert!(entered.is_some() && left.is_none());
        // A step out of a widget of another type, with the same name, is
        // not the function's.
        let steps = [step(
            "audioComplete",
            "wait_experience",
            "Ended",
            Some("say-play"),
        )];
        assert!(reached(&steps, &functions).is_none());
        assert_eq!(path_taken(&[]), "none");
    }

    #[test]
    fn rfc_2822_days() {
        assert_eq!(
            iso_day("Fri, 20 Nov 2026 10:00:00 +0000").as_deref(),
            Some("2026-11-20")
        );
        assert_eq!(iso_day("-"), None);
    }

    #[test]
    fn each_failure_carries_its_fix() {
        let checks = [
            Check::new(Mark::Passed, "a").fix("not shown: it passed"),
            Check::new(Mark::Failed, "b").detail("why").fix("do this"),
            Check::new(Mark::Failed, "c").fix("and that"),
        ];
        let text = human("call CA1", &checks);
        assert!(
            text.contains(
                "[✓] a\n[✗] b\n    • why\n    Fix: do this\n[✗] c\n    Fix: and that\n\n"
            ),
            "{text}"
        );
        assert!(
            text.ends_with("2 broken links: the first is where to start.\n"),
            "{text}"
        );
        assert_eq!(to_json("x", &checks)["first_failure"], 1);
    }
}
