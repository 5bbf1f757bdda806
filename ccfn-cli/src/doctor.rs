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

/// How two webhook URLs compare.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Same {
    /// Byte for byte.
    Exactly,
    /// The same resource, written differently: each difference named.
    Nearly(Vec<String>),
    /// Two resources.
    Not,
}

/// Compares the URL a number calls with the flow's webhook URL: equal,
/// equal but for the scheme, a default port written out or a trailing
/// slash (each named), or different.
fn compare_urls(called: &str, expected: &str) -> Same {
    if called == expected {
        return Same::Exactly;
    }
    let (Ok(a), Ok(b)) = (Url::parse(called), Url::parse(expected)) else {
        return Same::Not;
    };
    if a.host_str() != b.host_str()
        || a.port() != b.port()
        || a.query() != b.query()
        || a.username() != b.username()
        || a.path().trim_end_matches('/') != b.path().trim_end_matches('/')
    {
        return Same::Not;
    }
    let mut differences = Vec::new();
    if a.scheme() != b.scheme() {
        differences.push(format!(
            "the scheme: {}:// where the flow's is {}://",
            a.scheme(),
            b.scheme()
        ));
    }
    let written = |raw: &str, url: &Url| {
        let authority = raw.split_once("://").map_or("", |(_, rest)| {
            rest.split(['/', '?', '#']).next().unwrap_or("")
        });
        url.port_or_known_default()
            .filter(|port| url.port().is_none() && authority.ends_with(&format!(":{port}")))
    };
    match (written(called, &a), written(expected, &b)) {
        (Some(port), None) => {
            differences.push(format!(
                "the default port :{port}, written out in the number's"
            ));
        }
        (None, Some(port)) => {
            differences.push(format!(
                "the default port :{port}, written out in the flow's"
            ));
        }
        _ => {}
    }
    let slash = |raw: &str| raw.split(['?', '#']).next().unwrap_or("").ends_with('/');
    if slash(called) != slash(expected) {
        differences.push(if slash(called) {
            "a trailing slash the flow's has not".to_owned()
        } else {
            "no trailing slash where the flow's has one".to_owned()
        });
    }
    if differences.is_empty() {
        // What is left is what URL parsing normalises (case, escapes).
        differences.push("its spelling (case or escapes)".to_owned());
    }
    Same::Nearly(differences)
}

/// The number's link: what answers `number`, and the flow it runs.
async fn number_link(platform: &Platform, number: &str, report: &mut Report) -> Option<Flow> {
    let (number, found) = incoming_number(platform, number, report).await?;
    let shown = report.phone(&number);
    let answered_by = found.handler();
    let voice_url = voice_url_of(platform, &found, &shown, &answered_by, report).await?;
    let (flow_sid, flow) = flow_at(platform, &voice_url, &shown, &answered_by, report).await?;
    let check = url_check(&flow, flow_sid, &voice_url, &shown, answered_by, report)?;
    if !report.add(check) {
        return None;
    }
    if flow_state(&flow, report) {
        Some(flow)
    } else {
        None
    }
}

/// `number` in E.164 and the account's incoming number that is exactly
/// it; a failed check when it is not a phone number or not the account's.
async fn incoming_number(
    platform: &Platform,
    number: &str,
    report: &mut Report,
) -> Option<(String, IncomingNumber)> {
    let number = match e164(number) {
        Ok(number) => number,
        Err(err) => {
            let shown = report.phone(number);
            report.add(
                Check::new(Mark::Failed, format!("Number {shown}"))
                    .detail(err)
                    .fix("Give the number in E.164 (+15559870000). A call to or from a SIP address or a client is not answered by a phone number: check the SIP domain or the client's application instead."),
            );
            return None;
        }
    };
    let shown = report.phone(&number);
    // `PhoneNumber` matches partially (and `*` is any digit): the list
    // holds every number that contains it; only an exact one is it.
    let path = "/2010-04-01/Accounts/{account}/IncomingPhoneNumbers.json";
    let mut url = platform.url(Product::Api, path);
    url.query_pairs_mut().append_pair("PhoneNumber", &number);
    let numbers: Vec<IncomingNumber> = match resources::list(
        platform,
        "incoming phone numbers",
        url,
        "incoming_phone_numbers",
        1000,
    )
    .await
    {
        Ok(numbers) => numbers,
        Err(err) => {
            report.add(Check::new(Mark::Failed, format!("Number {shown}")).detail(err.to_string()));
            return None;
        }
    };
    let at = numbers.iter().position(|n| {
        n.phone_number
            .as_deref()
            .is_some_and(|p| e164(p).is_ok_and(|p| p == number))
    });
    let Some(at) = at else {
        let mut check = Check::new(
            Mark::Failed,
            format!("Number {shown} is not one of this account's"),
        );
        for other in numbers.iter().take(5) {
            check = check.detail(format!(
                "the platform matched {} partially: not this number",
                report.phone(other.phone_number.as_deref().unwrap_or("-"))
            ));
        }
        report.add(check.fix(
            "Check the number (every digit) and ACCOUNT_SID: the number may belong to another account (or a subaccount).",
        ));
        return None;
    };
    let mut numbers = numbers;
    Some((number, numbers.swap_remove(at)))
}

/// The URL the number's calls go to: its voice URL, or its application's;
/// a failed check when a SIP trunk takes them or the application cannot
/// be read.
async fn voice_url_of(
    platform: &Platform,
    found: &IncomingNumber,
    shown: &str,
    answered_by: &str,
    report: &mut Report,
) -> Option<String> {
    if let Some(trunk) = text(&found.trunk_sid) {
        report.add(
            Check::new(Mark::Failed, format!("Number {shown} answers with trunk {trunk}, not a flow"))
                .detail("a SIP trunk takes its calls: the flow and the functions are not reached")
                .fix("Take the number off the trunk and point its voice URL at the flow's webhook URL (ccfn flows list)."),
        );
        return None;
    }
    let Some(app) = text(&found.voice_application_sid) else {
        return Some(text(&found.voice_url).unwrap_or_default().to_owned());
    };
    let Some(app) = path_sid("AP", app) else {
        report.add(
            Check::new(
                Mark::Failed,
                format!("Number {shown} answers with {answered_by}"),
            )
            .detail(not_a_sid("the number's application", app, "AP")),
        );
        return None;
    };
    let path = format!("/2010-04-01/Accounts/{{account}}/Applications/{app}.json");
    match resources::fetch::<Application>(
        platform,
        &format!("application {app}"),
        Product::Api,
        &path,
    )
    .await
    {
        Ok(app) => Some(text(&app.voice_url).unwrap_or_default().to_owned()),
        Err(err) => {
            report.add(
                Check::new(
                    Mark::Failed,
                    format!("Number {shown} answers with {answered_by}"),
                )
                .detail(err.to_string()),
            );
            None
        }
    }
}

/// The flow whose webhook `voice_url` is, read; a failed check (with the
/// flows' webhook URLs) when it is no flow's, or when the flow cannot be
/// read.
async fn flow_at<'u>(
    platform: &Platform,
    voice_url: &'u str,
    shown: &str,
    answered_by: &str,
    report: &mut Report,
) -> Option<(&'u str, Flow)> {
    let Some(flow_sid) = flow_in(voice_url) else {
        let flows: Vec<Flow> =
            resources::list_at(platform, "flows", Product::Studio, "/v2/Flows", "flows", 50)
                .await
                .unwrap_or_default();
        let mut check = Check::new(
            Mark::Failed,
            format!("Number {shown} is not pointed at a flow"),
        )
        .detail(format!("its calls go to {answered_by}"));
        for flow in &flows {
            if let Some(hook) = text(&flow.webhook_url) {
                check = check.detail(format!(
                    "a flow's webhook URL: {hook} ({})",
                    text(&flow.friendly_name).unwrap_or("-")
                ));
            }
        }
        report.add(check.fix(
            "Point the number's voice URL (or its application's) at the flow's webhook URL, \
             method POST: Phone Numbers › the number › Voice configuration.",
        ));
        return None;
    };
    let path = format!("/v2/Flows/{flow_sid}");
    match resources::fetch(
        platform,
        &format!("flow {flow_sid}"),
        Product::Studio,
        &path,
    )
    .await
    {
        Ok(flow) => Some((flow_sid, flow)),
        Err(err) => {
            let check = Check::new(
                Mark::Failed,
                format!("Number {shown} answers with flow {flow_sid}, which cannot be read"),
            )
            .detail(err.to_string());
            let check = if err.status == Some(404) {
                check.fix("The flow was deleted or belongs to another account: point the number at the flow in use.")
            } else {
                check
            };
            report.add(check);
            None
        }
    }
}

/// The check of the number's voice URL against the flow's webhook URL:
/// passed when the same, a warning when written differently; a failed
/// check is added, and `None` returned, when it is another URL.
fn url_check(
    flow: &Flow,
    flow_sid: &str,
    voice_url: &str,
    shown: &str,
    answered_by: String,
    report: &mut Report,
) -> Option<Check> {
    let name = text(&flow.friendly_name).unwrap_or("-");
    let expected = text(&flow.webhook_url).unwrap_or_default();
    let same = if expected.is_empty() {
        Same::Exactly
    } else {
        compare_urls(voice_url, expected)
    };
    match same {
        Same::Exactly => Some(
            Check::new(
                Mark::Passed,
                format!("Number {shown} answers with flow {flow_sid} “{name}”"),
            )
            .detail(answered_by),
        ),
        Same::Nearly(differences) => {
            let mut check = Check::new(
                Mark::Warning,
                format!("Number {shown} answers with flow {flow_sid} “{name}”, at a URL written differently"),
            )
            .detail(format!("its voice URL:          {voice_url}"))
            .detail(format!("the flow's webhook URL: {expected}"));
            for difference in differences {
                check = check.detail(format!("they differ in {difference}"));
            }
            Some(check.fix("Set the number's voice URL to the flow's webhook URL exactly."))
        }
        Same::Not => {
            report.add(
                Check::new(
                    Mark::Failed,
                    format!("Number {shown} calls a stale URL for flow {flow_sid}"),
                )
                .detail(format!("its voice URL:          {voice_url}"))
                .detail(format!("the flow's webhook URL: {expected}"))
                .fix("Set the number's voice URL to the flow's webhook URL exactly."),
            );
            None
        }
    }
}

/// The flow itself: published and valid; whether to go on.
fn flow_state(flow: &Flow, report: &mut Report) -> bool {
    let sid = flow.sid.as_deref().unwrap_or("-");
    let revision = flow.revision;
    if flow.status != "published" {
        let check = Check::new(Mark::Failed, format!("Flow {sid} is in {}, not published", flow.status))
            .detail(format!("revision {revision}"))
            .fix("Publish the flow (Studio › the flow › Publish): calls run its published revision only.");
        return report.add(check);
    }
    match flow.valid {
        Some(false) => {
            let mut check = Check::new(
                Mark::Failed,
                format!("Flow {sid} is published but not valid"),
            );
            for error in flow.error_messages() {
                check = check.detail(error);
            }
            report.add(check.fix(
                "Fix what the errors name (a widget's webhook URL, a missing transition), then publish.",
            ))
        }
        Some(true) => report.add(
            Check::new(Mark::Passed, format!("Flow {sid} is published and valid"))
                .detail(format!("revision {revision}")),
        ),
        None => report.add(
            Check::new(
                Mark::Warning,
                format!("Flow {sid} is published; its validity is not known"),
            )
            .detail("the platform's answer has no `valid` for it"),
        ),
    }
}

/// `ccfn doctor --number`.
async fn follow_number(platform: &Platform, number: &str, report: &mut Report) {
    number_link(platform, number, report).await;
}

/// Each flow of the list as fetched by its SID when the list left its
/// definition or validity out (the flow list answers them as null).
async fn complete(
    platform: &Platform,
    flows: Vec<Flow>,
) -> Vec<Result<Flow, (Flow, PlatformError)>> {
    let mut out = Vec::new();
    for flow in flows {
        if flow.is_complete() {
            out.push(Ok(flow));
            continue;
        }
        // Without a flow's SID there is nothing to fetch it at: the flow
        // is taken as listed.
        let Some(sid) = flow.sid.as_deref().and_then(|sid| path_sid("FW", sid)) else {
            out.push(Ok(flow));
            continue;
        };
        let sid = sid.to_owned();
        let path = format!("/v2/Flows/{sid}");
        match resources::fetch::<Flow>(platform, &format!("flow {sid}"), Product::Studio, &path)
            .await
        {
            Ok(full) => out.push(Ok(full)),
            Err(err) => out.push(Err((flow, err))),
        }
    }
    out
}

/// `ccfn doctor --function`: the flows that call the function, its
/// records, and the alerts that name it.
async fn follow_function(platform: &Platform, name: &str, logs: &[String], report: &mut Report) {
    let flows: Vec<Flow> = match resources::list_at(
        platform,
        "flows",
        Product::Studio,
        "/v2/Flows",
        "flows",
        1000,
    )
    .await
    {
        Ok(flows) => flows,
        Err(err) => {
            report.add(Check::new(Mark::Failed, "The flows").detail(err.to_string()));
            return;
        }
    };
    let read = flows.len();
    // The function widgets whose URL names the function (its path ends
    // with the name, as ccfn serves it).
    let mut urls = Vec::new();
    for flow in complete(platform, flows).await {
        let flow = match flow {
            Ok(flow) => flow,
            Err((flow, err)) => {
                let sid = flow.sid.as_deref().unwrap_or("-");
                let check = Check::new(
                    Mark::Warning,
                    format!("Flow {sid}: its definition cannot be read"),
                )
                .detail(err.to_string());
                if !report.add(check) {
                    return;
                }
                continue;
            }
        };
        let sid = flow.sid.as_deref().unwrap_or("-");
        for widget in flow.function_widgets() {
            let url = widget.url.clone().unwrap_or_default();
            if !url.trim_end_matches('/').ends_with(name) {
                continue;
            }
            urls.push(url.clone());
            let title = format!("Flow {sid} calls it from widget {}", widget.name);
            let check = if flow.status != "published" {
                Check::new(Mark::Failed, format!("{title}, but is in {}", flow.status))
                    .detail(url)
                    .fix("Publish the flow: calls run its published revision only.")
            } else if flow.valid == Some(false) {
                let mut check =
                    Check::new(Mark::Failed, format!("{title}, but is not valid")).detail(url);
                for error in flow.error_messages() {
                    check = check.detail(error);
                }
                check.fix("Fix what the errors name, then publish.")
            } else if flow.valid == Some(true) {
                Check::new(Mark::Passed, format!("{title}, published and valid")).detail(url)
            } else {
                Check::new(
                    Mark::Warning,
                    format!("{title}, published; its validity is not known"),
                )
                .detail(url)
            };
            if !report.add(check) {
                return;
            }
        }
    }
    if urls.is_empty() {
        report.add(
            Check::new(
                Mark::Warning,
                format!("No flow's function widget calls a URL ending in {name}"),
            )
            .detail(format!(
                "{read} flow{} read",
                if read == 1 { "" } else { "s" }
            )),
        );
    }
    if logs.is_empty() {
        report.add(
            Check::new(Mark::Skipped, "The function's records")
                .detail("no logs given (--logs FILE): what the function did is not checked"),
        );
    } else {
        match diagnose::for_function(logs, name) {
            Ok((verdict, _)) => {
                let shown = urls.first().cloned().unwrap_or_else(|| name.to_owned());
                if !tree(&verdict.json, &shown, report) {
                    return;
                }
            }
            Err(err) => {
                report.add(Check::new(Mark::Failed, "The functions' logs").detail(err.to_string()));
                return;
            }
        }
    }
    let names: Vec<&str> = urls.iter().map(String::as_str).chain([name]).collect();
    alerts(platform, &names, None, report).await;
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

/// `ccfn doctor --call`.
async fn follow_call(platform: &Platform, call: &str, logs: &[String], report: &mut Report) {
    let Some(found) = call_link(platform, call, report).await else {
        return;
    };
    let from = found.from.clone().unwrap_or_default();
    let to = found.to.clone().unwrap_or_default();
    let inbound = found.direction.as_deref() == Some("inbound");
    let (number, contact) = if inbound { (&to, &from) } else { (&from, &to) };

    // The records of the call, when the logs are given.
    let read = if logs.is_empty() {
        None
    } else {
        match diagnose::for_call(logs, call) {
            Ok(read) => Some(read),
            Err(err) => {
                report.add(Check::new(Mark::Failed, "The functions' logs").detail(err.to_string()));
                return;
            }
        }
    };
    let records: &[Record] = read.as_ref().map_or(&[], |(_, records)| records.as_slice());

    // The number and the flow.
    let Some(flow) = number_link(platform, number, report).await else {
        return;
    };
    let Some(ran) = execution_link(platform, &flow, &found, contact, records, report).await else {
        return;
    };
    let Some(widget) = widget_link(platform, &flow, &ran, report).await else {
        return;
    };

    // The function's side: the decision tree over its records.
    match &read {
        None => {
            report.add(
                Check::new(Mark::Skipped, "The function's records")
                    .detail("no logs given (--logs FILE): whether the function received the request, and what it did, is not checked"),
            );
        }
        Some((verdict, _)) => {
            if !tree(&verdict.json, &widget.url, report) {
                // A task the function could not create: the task router's
                // side names the cause (a workflow deleted, disabled, of
                // another environment; a queue mismatch).
                if record(records, "task_error").is_some() {
                    task(platform, records, report).await;
                }
                return;
            }
        }
    }

    // What the platform logged of the call's webhooks.
    if !answers(platform, call, widget.status, report).await {
        return;
    }

    // The task the function created, or failed to.
    if !task(platform, records, report).await {
        return;
    }

    // Alerts naming the call, the flow or the function.
    alerts(
        platform,
        &[call, &ran.flow_sid, &ran.execution_sid, &widget.url],
        call_days(&found),
        report,
    )
    .await;
}

/// The call's link: the call itself, as the platform has it.
async fn call_link(platform: &Platform, call: &str, report: &mut Report) -> Option<Call> {
    let path = format!("/2010-04-01/Accounts/{{account}}/Calls/{call}.json");
    let found: Call = match resources::fetch(platform, &format!("call {call}"), Product::Api, &path)
        .await
    {
        Ok(found) => found,
        Err(err) => {
            let check = Check::new(Mark::Failed, format!("Call {call}")).detail(err.to_string());
            report.add(if err.status == Some(404) {
                check.fix(
                    "Check the call SID, and that ACCOUNT_SID is the account that took the call.",
                )
            } else {
                check
            });
            return None;
        }
    };
    let from = found.from.as_deref().unwrap_or_default();
    let to = found.to.as_deref().unwrap_or_default();
    let direction = found.direction.as_deref().unwrap_or("-");
    let started = found.start_time.as_deref().unwrap_or("-");
    report.add(
        Check::new(Mark::Passed, format!("Call {call}: {}", found.status)).detail(format!(
            "{direction} from {} to {}, started {started}",
            report.phone(from),
            report.phone(to)
        )),
    );
    Some(found)
}

/// The flow's execution for a call, and the SIDs that name it in paths.
struct Ran {
    flow_sid: String,
    execution: Execution,
    execution_sid: String,
}

/// The execution's link: the flow's execution for this call, the one the
/// function's records name, else the newest whose contact is the caller
/// among those of the call's whole day.
async fn execution_link(
    platform: &Platform,
    flow: &Flow,
    found: &Call,
    contact: &str,
    records: &[Record],
    report: &mut Report,
) -> Option<Ran> {
    let given = flow.sid.clone().unwrap_or_default();
    let Some(flow_sid) = path_sid("FW", &given).map(str::to_owned) else {
        report.add(
            Check::new(Mark::Failed, "The flow's executions cannot be read").detail(not_a_sid(
                "the flow's answer",
                &given,
                "FW",
            )),
        );
        return None;
    };
    let named = named_execution(records, report);
    // An answer that cannot be read is not "the flow did not run".
    let execution =
        match find_execution(platform, &flow_sid, named.as_deref(), found, contact).await {
            Ok(execution) => execution,
            Err(err) => {
                report.add(
                    Check::new(
                        Mark::Failed,
                        format!("Flow {flow_sid}'s execution for this call cannot be read"),
                    )
                    .detail(err.to_string()),
                );
                return None;
            }
        };
    let Some(execution) = execution else {
        let check = Check::new(Mark::Failed, format!("Flow {flow_sid} did not run for this call"))
            .detail(match &named {
                Some(sid) => format!("the function's records name execution {sid}, which flow {flow_sid} does not have"),
                None => format!("none of its executions of the call's day has the caller {} as contact", report.phone(contact)),
            })
            .fix("Check the flow's trigger (Incoming Call goes to the first widget) and that the number runs this flow.");
        report.add(check);
        return None;
    };
    let given = execution.sid.clone().unwrap_or_default();
    let Some(execution_sid) = path_sid("FN", &given).map(str::to_owned) else {
        report.add(
            Check::new(Mark::Failed, "The execution's steps cannot be read").detail(not_a_sid(
                "the execution's answer",
                &given,
                "FN",
            )),
        );
        return None;
    };
    Some(Ran {
        flow_sid,
        execution,
        execution_sid,
    })
}

/// The execution the function's `flow` record names, when it is an
/// execution SID; a name that is not is said (a warning), and the
/// execution looked for as if the records named none.
fn named_execution(records: &[Record], report: &mut Report) -> Option<String> {
    let named = record(records, "flow")
        .and_then(|r| field(r, "execution_sid"))
        .map(str::to_owned);
    match named {
        Some(sid) if path_sid("FN", &sid).is_none() => {
            report.add(
                Check::new(Mark::Warning, "The execution the records name").detail(not_a_sid(
                    "the function's flow record",
                    &sid,
                    "FN",
                )),
            );
            None
        }
        named => named,
    }
}

/// Flow `flow_sid`'s execution `named` (none when the flow does not have
/// it), or without a name the newest whose contact is `contact` among
/// those of the call's days (`DateCreatedTo` is exclusive: the next day's
/// midnight).
async fn find_execution(
    platform: &Platform,
    flow_sid: &str,
    named: Option<&str>,
    found: &Call,
    contact: &str,
) -> Result<Option<Execution>, PlatformError> {
    if let Some(sid) = named {
        let path = format!("/v2/Flows/{flow_sid}/Executions/{sid}");
        return match resources::fetch(
            platform,
            &format!("execution {sid}"),
            Product::Studio,
            &path,
        )
        .await
        {
            Ok(execution) => Ok(Some(execution)),
            Err(err) if err.status == Some(404) => Ok(None),
            Err(err) => Err(err),
        };
    }
    let path = format!("/v2/Flows/{flow_sid}/Executions");
    let mut url = platform.url(Product::Studio, &path);
    if let Some((from_day, to_day)) = call_days(found) {
        let query = &mut url.query_pairs_mut();
        query.append_pair("DateCreatedFrom", &format!("{from_day}T00:00:00Z"));
        query.append_pair("DateCreatedTo", &format!("{to_day}T00:00:00Z"));
    }
    resources::list::<Execution>(
        platform,
        &format!("flow {flow_sid}'s executions"),
        url,
        "executions",
        1000,
    )
    .await
    .map(|executions| {
        executions
            .into_iter()
            .filter(|e| e.contact_channel_address.as_deref() == Some(contact))
            .max_by(|a, b| a.date_created.cmp(&b.date_created))
    })
}

/// The function widget an execution reached: the URL it calls, and the
/// status the function answered it with, when the step's context says.
struct Reached {
    url: String,
    status: Option<u64>,
}

/// The widget's link: did the execution reach a function widget? A
/// step's `name` is the event; the widgets are in
/// `transitioned_from`/`transitioned_to`. The widget's result is in the
/// context of the step that left it (else of the step that entered it).
async fn widget_link(
    platform: &Platform,
    flow: &Flow,
    ran: &Ran,
    report: &mut Report,
) -> Option<Reached> {
    let (flow_sid, execution_sid) = (&ran.flow_sid, &ran.execution_sid);
    let functions = flow.function_widgets();
    let steps_path = format!("/v2/Flows/{flow_sid}/Executions/{execution_sid}/Steps");
    let steps: Vec<Step> = match resources::list_at(
        platform,
        &format!("execution {execution_sid}'s steps"),
        Product::Studio,
        &steps_path,
        "steps",
        1000,
    )
    .await
    {
        Ok(steps) => steps,
        Err(err) => {
            report.add(
                Check::new(
                    Mark::Failed,
                    format!("Execution {execution_sid}'s steps cannot be read"),
                )
                .detail(err.to_string()),
            );
            return None;
        }
    };
    let Some((widget, entered, left)) = reached(&steps, &functions) else {
        let mut check = Check::new(
            Mark::Failed,
            format!("Execution {execution_sid} did not reach a function widget"),
        )
        .detail(format!("its steps: {}", path_taken(&steps)));
        for widget in &functions {
            check = check.detail(format!(
                "function widget {}: {}",
                widget.name,
                widget.url.as_deref().unwrap_or("-")
            ));
        }
        report
            .add(check.fix("Check the transitions that lead to the function widget in the flow."));
        return None;
    };
    let widget_url = widget.url.clone().unwrap_or_default();
    let context_step = left.or(entered).and_then(|s| s.sid.clone());
    let context: Option<Result<StepContext, PlatformError>> = match context_step {
        Some(step) => Some(
            resources::fetch(
                platform,
                &format!("step {step}'s context"),
                Product::Studio,
                &format!("{steps_path}/{step}/Context"),
            )
            .await,
        ),
        None => None,
    };
    let widget_status = match &context {
        Some(Ok(context)) => context.status_code(&widget.name),
        _ => None,
    };
    let mut check = Check::new(
        Mark::Passed,
        format!(
            "Execution {execution_sid} reached function widget {}",
            widget.name
        ),
    )
    .detail(format!("it calls {widget_url}"));
    check = match left {
        Some(left) => check.detail(format!(
            "then went to {} on {}",
            left.transitioned_to.as_deref().unwrap_or("-"),
            left.name.as_deref().unwrap_or("-")
        )),
        None => check.detail(format!(
            "and had not left it (execution {})",
            ran.execution.status
        )),
    };
    if let Some(status) = widget_status {
        check = check.detail(format!("the function answered it {status}"));
    }
    if let Some(Err(err)) = &context {
        check = check.detail(format!("what the function answered is not known: {err}"));
    }
    report.add(check).then_some(Reached {
        url: widget_url,
        status: widget_status,
    })
}

/// The days a call spans, as the platform's date filters take them: the
/// day it started (`YYYY-MM-DD`), and the day after the one it ended (an
/// exclusive bound), in UTC.
fn call_days(call: &Call) -> Option<(String, String)> {
    let first = iso_day(call.start_time.as_deref()?)?;
    let last = call
        .end_time
        .as_deref()
        .and_then(iso_day)
        .filter(|end| *end >= first)
        .unwrap_or_else(|| first.clone());
    Some((first, crate::when::day_after(&last)?))
}

/// The first function widget the execution reached: the widget, the step
/// that entered it (`transitioned_to`) and the step that left it
/// (`transitioned_from`, of the widget's type when the step gives one).
fn reached<'a>(
    steps: &'a [Step],
    functions: &'a [Widget],
) -> Option<(&'a Widget, Option<&'a Step>, Option<&'a Step>)> {
    let widget =
        |name: Option<&str>| name.and_then(|name| functions.iter().find(|w| w.name == name));
    for step in steps {
        let into = widget(step.transitioned_to.as_deref());
        let out_of = widget(step.transitioned_from.as_deref())
            .filter(|w| step.kind.as_deref().is_none_or(|kind| kind == w.kind));
        let Some(found) = into.or(out_of) else {
            continue;
        };
        let entered = steps
            .iter()
            .find(|s| s.transitioned_to.as_deref() == Some(found.name.as_str()));
        let left = steps.iter().find(|s| {
            s.transitioned_from.as_deref() == Some(found.name.as_str())
                && s.kind.as_deref().is_none_or(|kind| kind == found.kind)
        });
        return Some((found, entered, left));
    }
    None
}

/// The widgets an execution went through, with the events that moved it
/// on: `Trigger → wait_experience (incomingCall) → end (success)`.
fn path_taken(steps: &[Step]) -> String {
    let Some(first) = steps.first() else {
        return "none".to_owned();
    };
    let mut path = first
        .transitioned_from
        .clone()
        .unwrap_or_else(|| "-".to_owned());
    for step in steps {
        path.push_str(&format!(
            " → {} ({})",
            step.transitioned_to.as_deref().unwrap_or("-"),
            step.name.as_deref().unwrap_or("-")
        ));
    }
    path
}

/// The decision tree's questions as checks; whether to go on.
fn tree(verdict: &Value, widget_url: &str, report: &mut Report) -> bool {
    const TITLES: [&str; 5] = [
        "The function received the request",
        "The parameters arrived",
        "Parameter validation passed",
        "External calls succeeded",
        "The business logic completed",
    ];
    for question in verdict["questions"].as_array().into_iter().flatten() {
        let number = question["number"].as_u64().unwrap_or(1).clamp(1, 5) as usize;
        let mark = match question["answer"].as_str() {
            Some("yes") => Mark::Passed,
            Some("no") => Mark::Failed,
            _ => Mark::Warning,
        };
        let mut check = Check::new(mark, TITLES[number - 1]);
        for evidence in question["evidence"]
            .as_array()
            .into_iter()
            .flatten()
            .take(4)
        {
            check = check.detail(format!(
                "{} [{}] {}",
                evidence["timestamp"].as_str().unwrap_or("-"),
                evidence["step"].as_str().unwrap_or("-"),
                evidence["says"].as_str().unwrap_or("-"),
            ));
        }
        for line in question["specifically"].as_array().into_iter().flatten() {
            let line = line.as_str().unwrap_or_default();
            // What the evidence already said is not said twice.
            if !check.details.iter().any(|d| d.ends_with(line)) {
                check = check.detail(line.to_owned());
            }
        }
        if mark != Mark::Passed {
            let fix = if number == 1 {
                format!("No record of this call: the widget calls {widget_url}; check that the function is served there and that the platform's requests reach it (ccfn probe URL).")
            } else {
                // The spec's action for the question; the records usually
                // name the precise remedy.
                let action = verdict["action"].as_str().unwrap_or_default();
                if check.details.is_empty() {
                    action.to_owned()
                } else {
                    format!("{action} The records above say what, specifically.")
                }
            };
            check = check.fix(fix);
        }
        if !report.add(check) {
            return false;
        }
    }
    true
}

/// The limits of a webhook's answer: a 2xx, within 10 s, under 64 kB.
const WEBHOOK_MS: u64 = 10_000;
const WEBHOOK_BYTES: u64 = 64 * 1024;

/// The call's events: each webhook answered 2xx, within 10 s, under
/// 64 kB; whether to go on.
async fn answers(
    platform: &Platform,
    call: &str,
    widget_status: Option<u64>,
    report: &mut Report,
) -> bool {
    let path = format!("/2010-04-01/Accounts/{{account}}/Calls/{call}/Events.json");
    let events: Vec<Event> = match resources::list_at(
        platform,
        &format!("call {call}'s events"),
        Product::Api,
        &path,
        "events",
        1000,
    )
    .await
    {
        Ok(events) => events,
        Err(err) => {
            return report.add(
                Check::new(Mark::Warning, "The platform's log of the call's webhooks")
                    .detail(err.to_string()),
            )
        }
    };
    let mut problems = Vec::new();
    for event in &events {
        let url = event.url().unwrap_or("-");
        match event.response_code() {
            Some(code) if (200..300).contains(&code) => {}
            Some(code) => problems.push(format!("{url} answered {code}")),
            None => problems.push(format!("{url} did not answer")),
        }
        if let Some(took) = event.request_duration().filter(|t| *t > WEBHOOK_MS) {
            problems.push(format!("{url} took {took} ms (the platform waits 10 000)"));
        }
        if let Some(bytes) = event.response_bytes().filter(|b| *b > WEBHOOK_BYTES) {
            problems.push(format!(
                "{url} answered {bytes} bytes (the platform takes 64 kB)"
            ));
        }
    }
    if let Some(status) = widget_status.filter(|s| !(200..300).contains(s)) {
        problems.push(format!("the function answered the flow's widget {status}"));
    }
    let title = "The platform got a 2xx within 10 s and under 64 kB";
    if problems.is_empty() {
        let detail = format!(
            "{} webhook request{} logged for the call",
            events.len(),
            if events.len() == 1 { "" } else { "s" }
        );
        return report.add(Check::new(Mark::Passed, title).detail(detail));
    }
    let mut check = Check::new(Mark::Failed, title);
    for problem in problems {
        check = check.detail(problem);
    }
    report.add(check.fix("Look up the function's records for the failing request (ccfn logs --call CA..): a timeout, a panic or an oversized document; then ccfn probe the URL."))
}

/// Where a workflow routes, in words: its queues, or `none`.
fn routes_of(workflow: &Workflow) -> String {
    let routes = workflow.routes();
    if routes.is_empty() {
        "none".to_owned()
    } else {
        routes.join(", ")
    }
}

/// The task: the one the records say the function created (in the right
/// workflow and queue), or the workflow it failed to create one in;
/// whether to go on.
///
/// Each part returns `Err(go_on)` once it has added the check that ends
/// the link.
async fn task(platform: &Platform, records: &[Record], report: &mut Report) -> bool {
    let said = match task_records(records, report) {
        Ok(said) => said,
        Err(go_on) => return go_on,
    };
    let found = match workflow_link(platform, &said, report).await {
        Ok(found) => found,
        Err(go_on) => return go_on,
    };
    let queue_sids = match routing_link(platform, &said, &found, report).await {
        Ok(sids) => sids,
        Err(go_on) => return go_on,
    };
    task_link(platform, &said, queue_sids.as_deref(), report).await
}

/// What the call's records say of its task: the records, and the
/// workspace, workflow and queue they name.
struct TaskRecords<'a> {
    created: Option<&'a Record>,
    failed: Option<&'a Record>,
    workspace: String,
    workflow: String,
    queue: Option<String>,
}

/// The task's records, with a workspace (else `PLATFORM_WORKSPACE_SID`)
/// and a workflow that are SIDs; a skipped check or a warning when the
/// records show no task or cannot name them.
fn task_records<'a>(records: &'a [Record], report: &mut Report) -> Result<TaskRecords<'a>, bool> {
    let config = record(records, "taskrouter_config");
    let created = record(records, "critical");
    let failed = record(records, "task_error");
    if config.is_none() && created.is_none() && failed.is_none() {
        return Err(report
            .add(Check::new(Mark::Skipped, "The task").detail("the call's records show no task")));
    }
    let workspace = config
        .and_then(|c| field(c, "workspace_sid"))
        .map(str::to_owned)
        .or_else(|| {
            std::env::var("PLATFORM_WORKSPACE_SID")
                .ok()
                .filter(|w| !w.is_empty())
        });
    let Some(workspace) = workspace else {
        return Err(report.add(
            Check::new(Mark::Warning, "The task")
                .detail("no workspace in the records (taskrouter_config) or in PLATFORM_WORKSPACE_SID: the task router is not asked"),
        ));
    };
    let workflow = created
        .and_then(|r| field(r, "workflow_sid"))
        .or_else(|| failed.and_then(|r| field(r, "workflow_sid")))
        .or_else(|| config.and_then(|r| field(r, "workflow_sid")))
        .map(str::to_owned);
    let queue = config.and_then(|r| field(r, "queue")).map(str::to_owned);
    let Some(workflow) = workflow else {
        return Err(report
            .add(Check::new(Mark::Warning, "The task").detail("the records name no workflow")));
    };
    for (what, sid, prefix) in [
        ("workspace", &workspace, "WS"),
        ("workflow", &workflow, "WW"),
    ] {
        if path_sid(prefix, sid).is_none() {
            return Err(
                report.add(Check::new(Mark::Warning, "The task").detail(not_a_sid(
                    &format!("the {what}"),
                    sid,
                    prefix,
                ))),
            );
        }
    }
    Ok(TaskRecords {
        created,
        failed,
        workspace,
        workflow,
        queue,
    })
}

/// The workflow, in the workspace; when the workspace does not have it,
/// a failed check that says which workspace has it, and what this one
/// has instead.
async fn workflow_link(
    platform: &Platform,
    said: &TaskRecords<'_>,
    report: &mut Report,
) -> Result<Workflow, bool> {
    let (workspace, workflow) = (&said.workspace, &said.workflow);
    let path = format!("/v1/Workspaces/{workspace}/Workflows/{workflow}");
    match resources::fetch(
        platform,
        &format!("workflow {workflow}"),
        Product::TaskRouter,
        &path,
    )
    .await
    {
        Ok(found) => Ok(found),
        Err(err) if err.status == Some(404) => {
            let owner = workspace_of(platform, workspace, workflow).await;
            let others: Vec<Workflow> = resources::list_at(
                platform,
                &format!("workspace {workspace}'s workflows"),
                Product::TaskRouter,
                &format!("/v1/Workspaces/{workspace}/Workflows"),
                "workflows",
                1000,
            )
            .await
            .unwrap_or_default();
            let mut check = match owner {
                Owner::Other { sid, name } => Check::new(
                    Mark::Failed,
                    format!("Workflow {workflow} is not in workspace {workspace}: it is workspace {sid}'s"),
                )
                .detail(format!(
                    "workspace {sid} “{}” has it: the function is configured with another environment's workflow",
                    name.as_deref().unwrap_or("-")
                )),
                Owner::None => Check::new(Mark::Failed, format!("Workflow {workflow} is not in workspace {workspace}"))
                    .detail("deleted: no other workspace of the account has it either (or it is another account's)"),
                Owner::Unknown(why) => Check::new(Mark::Failed, format!("Workflow {workflow} is not in workspace {workspace}"))
                    .detail("deleted, or the SID of another environment's workflow (a value hardcoded for staging, say)")
                    .detail(format!("the account's other workspaces could not be asked: {why}")),
            };
            for other in &others {
                check = check.detail(format!(
                    "this workspace has {} “{}”, which routes to {}",
                    other.sid.as_deref().unwrap_or("-"),
                    other.friendly_name.as_deref().unwrap_or("-"),
                    routes_of(other)
                ));
            }
            Err(report.add(check.fix("Set the function's workflow SID (workflowSid) to this environment's workflow, from ccfn tasks workflows.")))
        }
        Err(err) => Err(report
            .add(Check::new(Mark::Failed, format!("Workflow {workflow}")).detail(err.to_string()))),
    }
}

/// The workflow's routing: it routes tasks, to the queue the records name
/// (its SIDs returned, a name looked up), and the function did not find
/// its task in another queue.
async fn routing_link(
    platform: &Platform,
    said: &TaskRecords<'_>,
    found: &Workflow,
    report: &mut Report,
) -> Result<Option<Vec<String>>, bool> {
    let (workflow, queue) = (&said.workflow, &said.queue);
    let routes = found.routes();
    if routes.is_empty() {
        return Err(report.add(
            Check::new(Mark::Failed, format!("Workflow {workflow} routes no task: it is disabled"))
                .detail("its configuration has no filter with a target and no default filter")
                .fix("Give the workflow a filter or a default filter that targets the queue (TaskRouter › Workflows)."),
        ));
    }
    let routes_text = routes.join(", ");
    // The queue the records name, as SIDs: a name is looked up.
    let queue_sids = match queue {
        Some(queue) => match queue_sids(platform, &said.workspace, queue).await {
            Ok(sids) => Some(sids),
            Err(check) => return Err(report.add(*check)),
        },
        None => None,
    };
    if let (Some(queue), Some(sids)) = (queue, &queue_sids) {
        if !routes.iter().any(|q| {
            sids.iter()
                .any(|sid| q.trim_end_matches(" (default)") == sid)
        }) {
            return Err(report.add(
                Check::new(Mark::Failed, format!("Workflow {workflow} does not route to queue {queue}"))
                    .detail(format!("the function expects queue {queue}; the workflow routes to {routes_text}"))
                    .fix("Make the workflow target the queue the function names, or the function name the workflow's queue."),
            ));
        }
    }
    if said.failed.and_then(|r| field(r, "cause")) == Some("queue_mismatch") {
        let got = said
            .created
            .and_then(|r| field(r, "queue_sid"))
            .unwrap_or("-");
        return Err(report.add(
            Check::new(
                Mark::Failed,
                format!("Workflow {workflow} put the task in queue {got}, not the function's"),
            )
            .detail(format!("the workflow routes to {routes_text}"))
            .detail(
                "the function's task_error: queue_mismatch (the task exists, in the wrong queue)",
            )
            .fix(
                "Make the workflow target the queue the function expects (CALLBACK_QUEUE_SID), \
                 or set CALLBACK_QUEUE_SID to the workflow's queue.",
            ),
        ));
    }
    Ok(queue_sids)
}

/// The task itself: created, and in the workflow and queue (one of
/// `queue_sids`) the function put it in; whether to go on.
async fn task_link(
    platform: &Platform,
    said: &TaskRecords<'_>,
    queue_sids: Option<&[String]>,
    report: &mut Report,
) -> bool {
    let (workspace, workflow) = (&said.workspace, &said.workflow);
    let Some(task_sid) = said.created.and_then(|r| field(r, "task_sid")) else {
        let cause = said
            .failed
            .and_then(|r| field(r, "cause"))
            .unwrap_or("no task record");
        return report.add(
            Check::new(Mark::Failed, "No task was created")
                .detail(format!("the function's task_error: {cause}"))
                .fix("Read the task_error record (ccfn logs --call CA.. --step task_error); the workflow itself looks right."),
        );
    };
    let Some(task_sid) = path_sid("WT", task_sid) else {
        return report.add(Check::new(Mark::Warning, "The task").detail(not_a_sid(
            "the function's task record",
            task_sid,
            "WT",
        )));
    };
    let path = format!("/v1/Workspaces/{workspace}/Tasks/{task_sid}");
    match resources::fetch::<Task>(
        platform,
        &format!("task {task_sid}"),
        Product::TaskRouter,
        &path,
    )
    .await
    {
        Ok(task) => {
            let in_queue = task.task_queue_sid.as_deref().unwrap_or("-");
            let in_workflow = task.workflow_sid.as_deref().unwrap_or("-");
            let mut check = Check::new(
                Mark::Passed,
                format!("Task {task_sid} is in workflow {in_workflow}, queue {in_queue}"),
            )
            .detail(format!(
                "status {}, age {} s",
                task.assignment_status, task.age
            ));
            let elsewhere = queue_sids.is_some_and(|sids| !sids.iter().any(|sid| sid == in_queue));
            if in_workflow != workflow || elsewhere {
                check = Check::new(
                    Mark::Failed,
                    format!("Task {task_sid} is not where the function put it"),
                )
                .detail(format!(
                    "workflow {in_workflow} (expected {workflow}), queue {in_queue} (expected {})",
                    said.queue.as_deref().unwrap_or("-")
                ))
                .fix("Check the workflow's filters: the task's attributes route it elsewhere.");
            }
            report.add(check)
        }
        Err(err) => {
            report.add(Check::new(Mark::Failed, format!("Task {task_sid}")).detail(err.to_string()))
        }
    }
}

/// Which workspace of the account has a workflow this one answers 404
/// for.
enum Owner {
    /// Another workspace, by SID and name.
    Other { sid: String, name: Option<String> },
    /// None of the account's workspaces.
    None,
    /// The workspaces could not be asked, and why.
    Unknown(String),
}

/// Asks the account's other workspaces (`GET /v1/Workspaces`, then each
/// one's `Workflows/{workflow}`) which has `workflow`.
async fn workspace_of(platform: &Platform, workspace: &str, workflow: &str) -> Owner {
    let listed: Vec<resources::Workspace> = match resources::list_at(
        platform,
        "the account's workspaces",
        Product::TaskRouter,
        "/v1/Workspaces",
        "workspaces",
        100,
    )
    .await
    {
        Ok(listed) => listed,
        Err(err) => return Owner::Unknown(err.to_string()),
    };
    for other in listed {
        let Some(sid) = other.sid.as_deref().and_then(|s| path_sid("WS", s)) else {
            continue;
        };
        if sid == workspace {
            continue;
        }
        let path = format!("/v1/Workspaces/{sid}/Workflows/{workflow}");
        match resources::fetch::<Workflow>(
            platform,
            &format!("workflow {workflow} in workspace {sid}"),
            Product::TaskRouter,
            &path,
        )
        .await
        {
            Ok(_) => {
                return Owner::Other {
                    sid: sid.to_owned(),
                    name: other.friendly_name,
                }
            }
            Err(err) if err.status == Some(404) => {}
            Err(err) => return Owner::Unknown(err.to_string()),
        }
    }
    Owner::None
}

/// The SIDs of the queue the records name: itself when it is a queue's
/// SID, else the workspace's queues of that name (`GET
/// .../TaskQueues?FriendlyName=`); a failed check when there is none.
async fn queue_sids(
    platform: &Platform,
    workspace: &str,
    queue: &str,
) -> Result<Vec<String>, Box<Check>> {
    if path_sid("WQ", queue).is_some() {
        return Ok(vec![queue.to_owned()]);
    }
    let mut url = platform.url(
        Product::TaskRouter,
        &format!("/v1/Workspaces/{workspace}/TaskQueues"),
    );
    url.query_pairs_mut().append_pair("FriendlyName", queue);
    let named: Vec<resources::TaskQueue> = resources::list(
        platform,
        &format!("workspace {workspace}'s task queues named {queue:?}"),
        url,
        "task_queues",
        100,
    )
    .await
    .map_err(|err| {
        Box::new(Check::new(Mark::Failed, format!("Queue {queue:?}")).detail(err.to_string()))
    })?;
    let sids: Vec<String> = named
        .into_iter()
        .filter(|q| q.friendly_name.as_deref() == Some(queue))
        .filter_map(|q| q.sid)
        .collect();
    if sids.is_empty() {
        return Err(Box::new(
            Check::new(
                Mark::Failed,
                format!("Workspace {workspace} has no queue named {queue:?}"),
            )
            .detail("the function's taskrouter_config names it")
            .fix("Name a queue of this workspace (ccfn tasks queues), or create it."),
        ));
    }
    Ok(sids)
}

/// How far back the platform's alerts can be queried, in days.
pub(crate) const ALERT_DAYS: i64 = 30;

/// Whether the day `day` (`YYYY-MM-DD`) is further back than the
/// platform's alerts can be queried, on `today`.
pub(crate) fn past_alerts(day: &str, today: &str) -> bool {
    crate::when::days_between(day, today).is_some_and(|days| days > ALERT_DAYS)
}

/// Alerts that name any of `names`, over `days` (the first day, and the
/// day after the last) when given.
async fn alerts(
    platform: &Platform,
    names: &[&str],
    days: Option<(String, String)>,
    report: &mut Report,
) {
    let mut url = platform.url(Product::Monitor, "/v1/Alerts");
    if let Some((first, after)) = &days {
        if past_alerts(first, &crate::when::today()) {
            report.add(
                Check::new(Mark::Skipped, "Alerts are not checked")
                    .detail(format!("the call is of {first}: the platform's alerts cannot be queried further back than {ALERT_DAYS} days")),
            );
            return;
        }
        let query = &mut url.query_pairs_mut();
        query.append_pair("StartDate", &format!("{first}T00:00:00Z"));
        query.append_pair("EndDate", &format!("{after}T00:00:00Z"));
    }
    let found: Vec<Alert> = match resources::list(platform, "alerts", url, "alerts", 1000).await {
        Ok(found) => found,
        Err(err) => {
            report.add(Check::new(Mark::Warning, "Alerts").detail(err.to_string()));
            return;
        }
    };
    let naming: Vec<&Alert> = found
        .iter()
        .filter(|alert| names.iter().any(|name| alert.names(name)))
        .collect();
    if naming.is_empty() {
        report.add(Check::new(
            Mark::Passed,
            "No platform alert names the call, the flow or the function",
        ));
        return;
    }
    let mut check = Check::new(
        Mark::Warning,
        format!(
            "{} platform alert{} name the call, the flow or the function",
            naming.len(),
            if naming.len() == 1 { "" } else { "s" }
        ),
    );
    for alert in naming.iter().take(10) {
        check = check.detail(format!(
            "{} {} {}",
            alert.date_created.as_deref().unwrap_or("-"),
            alert.error_code.as_deref().unwrap_or("-"),
            alert.alert_text.as_deref().unwrap_or("-"),
        ));
    }
    report.add(check);
}

/// `YYYY-MM-DD` of the 2010 API's RFC 2822 dates.
fn iso_day(date: &str) -> Option<String> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let parts: Vec<&str> = date.split_whitespace().collect();
    let [_, day, month, year, ..] = parts[..] else {
        return None;
    };
    let month = MONTHS.iter().position(|m| *m == month)? + 1;
    Some(format!("{year}-{month:02}-{:02}", day.parse::<u32>().ok()?))
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
        if check.mark == Mark::Failed {
            if let Some(fix) = &check.fix {
                out.push_str(&format!("    Fix: {}\n", line(fix)));
            }
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
