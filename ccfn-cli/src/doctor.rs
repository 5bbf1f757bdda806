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
use serde_json::{json, Value};

use crate::diagnose::{self, Record};
use crate::listing::{handler, mask_phone, routes_to};
use crate::platform::{Platform, Product, Settings};
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
pub(crate) fn run(args: &DoctorArgs) -> Result<ExitCode, String> {
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
pub(crate) fn examine(args: &DoctorArgs) -> Result<(String, Value, bool), String> {
    crate::package::register_secrets();
    let platform = Platform::new(Settings::from_vars(|name| std::env::var(name).ok())?)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| format!("cannot start: {err}"))?;
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
            format!("number {}", report.phone(number))
        }
        (None, None) => {
            return Err("give --call CA..., --number +1... or --function NAME".to_owned())
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

/// The number's link: what answers `number`, and the flow it runs.
async fn number_link(platform: &Platform, number: &str, report: &mut Report) -> Option<Value> {
    let path = "/2010-04-01/Accounts/{account}/IncomingPhoneNumbers.json";
    let mut url = platform.url(Product::Api, path);
    url.query_pairs_mut().append_pair("PhoneNumber", number);
    let shown = report.phone(number);
    let numbers = match platform
        .list("incoming phone numbers", url, "incoming_phone_numbers", 1)
        .await
    {
        Ok(numbers) => numbers,
        Err(err) => {
            report.add(Check::new(Mark::Failed, format!("Number {shown}")).detail(err.to_string()));
            return None;
        }
    };
    let Some(found) = numbers.into_iter().next() else {
        report.add(
            Check::new(
                Mark::Failed,
                format!("Number {shown} is not one of this account's"),
            )
            .fix("Check ACCOUNT_SID: the number belongs to another account (or a subaccount)."),
        );
        return None;
    };
    let answered_by = handler(&found);
    let mut voice_url = found["voice_url"].as_str().unwrap_or_default().to_owned();
    if let Some(app) = found["voice_application_sid"]
        .as_str()
        .filter(|a| !a.is_empty())
    {
        if found["trunk_sid"].as_str().is_none_or(str::is_empty) {
            let path = format!("/2010-04-01/Accounts/{{account}}/Applications/{app}.json");
            match platform
                .fetch_at(&format!("application {app}"), Product::Api, &path)
                .await
            {
                Ok(app) => voice_url = app["voice_url"].as_str().unwrap_or_default().to_owned(),
                Err(err) => {
                    report.add(
                        Check::new(
                            Mark::Failed,
                            format!("Number {shown} answers with {answered_by}"),
                        )
                        .detail(err.to_string()),
                    );
                    return None;
                }
            }
        }
    }
    if found["trunk_sid"].as_str().is_some_and(|t| !t.is_empty()) {
        report.add(
            Check::new(Mark::Failed, format!("Number {shown} answers with {answered_by}, not a flow"))
                .detail("a SIP trunk takes its calls: the flow and the functions are not reached")
                .fix("Take the number off the trunk and point its voice URL at the flow's webhook URL (ccfn flows list)."),
        );
        return None;
    }
    let Some(flow_sid) = flow_in(&voice_url) else {
        let flows = platform
            .list_at("flows", Product::Studio, "/v2/Flows", "flows", 50)
            .await
            .unwrap_or_default();
        let hooks: Vec<String> = flows
            .iter()
            .filter_map(|f| {
                Some(format!(
                    "{} ({})",
                    f["webhook_url"].as_str()?,
                    f["friendly_name"].as_str().unwrap_or("-")
                ))
            })
            .collect();
        let mut check = Check::new(
            Mark::Failed,
            format!("Number {shown} is not pointed at a flow"),
        )
        .detail(format!("its calls go to {answered_by}"));
        for hook in &hooks {
            check = check.detail(format!("a flow's webhook URL: {hook}"));
        }
        report.add(check.fix(
            "Point the number's voice URL (or its application's) at the flow's webhook URL, \
             method POST: Phone Numbers › the number › Voice configuration.",
        ));
        return None;
    };
    let path = format!("/v2/Flows/{flow_sid}");
    let flow = match platform
        .fetch_at(&format!("flow {flow_sid}"), Product::Studio, &path)
        .await
    {
        Ok(flow) => flow,
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
            return None;
        }
    };
    let expected = flow["webhook_url"].as_str().unwrap_or_default();
    if !expected.is_empty() && voice_url.trim_end_matches('/') != expected.trim_end_matches('/') {
        report.add(
            Check::new(
                Mark::Failed,
                format!("Number {shown} calls a stale URL for flow {flow_sid}"),
            )
            .detail(format!("its voice URL:        {voice_url}"))
            .detail(format!("the flow's webhook URL: {expected}"))
            .fix("Set the number's voice URL to the flow's webhook URL exactly."),
        );
        return None;
    }
    let name = flow["friendly_name"].as_str().unwrap_or("-");
    if !report.add(
        Check::new(
            Mark::Passed,
            format!("Number {shown} answers with flow {flow_sid} “{name}”"),
        )
        .detail(answered_by),
    ) {
        return None;
    }
    // The flow itself.
    let status = flow["status"].as_str().unwrap_or("-");
    let revision = flow["revision"].to_string();
    if status != "published" {
        let check = Check::new(Mark::Failed, format!("Flow {flow_sid} is in {status}, not published"))
            .detail(format!("revision {revision}"))
            .fix("Publish the flow (Studio › the flow › Publish): calls run its published revision only.");
        if !report.add(check) {
            return None;
        }
    } else if flow["valid"] == Value::Bool(false) {
        let mut check = Check::new(
            Mark::Failed,
            format!("Flow {flow_sid} is published but not valid"),
        );
        for error in flow["errors"].as_array().into_iter().flatten() {
            let text = error["message"]
                .as_str()
                .map_or_else(|| error.to_string(), str::to_owned);
            check = check.detail(text);
        }
        if !report.add(check.fix("Fix what the errors name (a widget's webhook URL, a missing transition), then publish.")) {
            return None;
        }
    } else if !report.add(
        Check::new(
            Mark::Passed,
            format!("Flow {flow_sid} is published and valid"),
        )
        .detail(format!("revision {revision}")),
    ) {
        return None;
    }
    Some(flow)
}

/// `ccfn doctor --number`.
async fn follow_number(platform: &Platform, number: &str, report: &mut Report) {
    number_link(platform, number, report).await;
}

/// `ccfn doctor --function`: the flows that call the function, its
/// records, and the alerts that name it.
async fn follow_function(platform: &Platform, name: &str, logs: &[String], report: &mut Report) {
    let flows = match platform
        .list_at("flows", Product::Studio, "/v2/Flows", "flows", 1000)
        .await
    {
        Ok(flows) => flows,
        Err(err) => {
            report.add(Check::new(Mark::Failed, "The flows").detail(err.to_string()));
            return;
        }
    };
    // The function widgets whose URL names the function (its path ends
    // with the name, as ccfn serves it).
    let mut urls = Vec::new();
    for flow in &flows {
        let sid = flow["sid"].as_str().unwrap_or("-");
        // The list may leave the definition out: read the flow itself.
        let flow = match flow.get("definition") {
            Some(_) => flow.clone(),
            None => platform
                .fetch_at(
                    &format!("flow {sid}"),
                    Product::Studio,
                    &format!("/v2/Flows/{sid}"),
                )
                .await
                .unwrap_or_else(|_| flow.clone()),
        };
        for state in flow["definition"]["states"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let url = state["properties"]["url"].as_str().unwrap_or_default();
            if state["type"].as_str() != Some("run-function")
                || !url.trim_end_matches('/').ends_with(name)
            {
                continue;
            }
            urls.push(url.to_owned());
            let widget = state["name"].as_str().unwrap_or("-");
            let status = flow["status"].as_str().unwrap_or("-");
            let valid = flow["valid"] != Value::Bool(false);
            let title = format!("Flow {sid} calls it from widget {widget}");
            let check = if status == "published" && valid {
                Check::new(Mark::Passed, format!("{title}, published and valid"))
                    .detail(url.to_owned())
            } else if status != "published" {
                Check::new(Mark::Failed, format!("{title}, but is in {status}"))
                    .detail(url.to_owned())
                    .fix("Publish the flow: calls run its published revision only.")
            } else {
                let mut check = Check::new(Mark::Failed, format!("{title}, but is not valid"))
                    .detail(url.to_owned());
                for error in flow["errors"].as_array().into_iter().flatten() {
                    check = check.detail(
                        error["message"]
                            .as_str()
                            .map_or_else(|| error.to_string(), str::to_owned),
                    );
                }
                check.fix("Fix what the errors name, then publish.")
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
                "{} flow{} read",
                flows.len(),
                if flows.len() == 1 { "" } else { "s" }
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
                report.add(Check::new(Mark::Failed, "The functions' logs").detail(err));
                return;
            }
        }
    }
    let names: Vec<&str> = urls.iter().map(String::as_str).chain([name]).collect();
    alerts(platform, &names, "", report).await;
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
    let path = format!("/2010-04-01/Accounts/{{account}}/Calls/{call}.json");
    let found = match platform
        .fetch_at(&format!("call {call}"), Product::Api, &path)
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
            return;
        }
    };
    let from = found["from"].as_str().unwrap_or_default().to_owned();
    let inbound = found["direction"].as_str() == Some("inbound");
    let to = found["to"].as_str().unwrap_or_default().to_owned();
    let number = if inbound { &to } else { &from };
    let started = found["start_time"].as_str().unwrap_or("-").to_owned();
    report.add(
        Check::new(
            Mark::Passed,
            format!("Call {call}: {}", found["status"].as_str().unwrap_or("-")),
        )
        .detail(format!(
            "{} from {} to {}, started {started}",
            found["direction"].as_str().unwrap_or("-"),
            report.phone(&from),
            report.phone(&to)
        )),
    );

    // The records of the call, when the logs are given.
    let read = if logs.is_empty() {
        None
    } else {
        match diagnose::for_call(logs, call) {
            Ok(read) => Some(read),
            Err(err) => {
                report.add(Check::new(Mark::Failed, "The functions' logs").detail(err));
                return;
            }
        }
    };
    let records: &[Record] = read.as_ref().map_or(&[], |(_, records)| records.as_slice());

    // The number and the flow.
    let Some(flow) = number_link(platform, number, report).await else {
        return;
    };
    let flow_sid = flow["sid"].as_str().unwrap_or_default().to_owned();

    // The flow's execution for this call: the one the function's records
    // name, else the newest whose contact is the caller.
    let named = record(records, "flow")
        .and_then(|r| field(r, "execution_sid"))
        .map(str::to_owned);
    let execution = match &named {
        Some(sid) => {
            let path = format!("/v2/Flows/{flow_sid}/Executions/{sid}");
            platform
                .fetch_at(&format!("execution {sid}"), Product::Studio, &path)
                .await
                .ok()
        }
        None => {
            let path = format!("/v2/Flows/{flow_sid}/Executions");
            let contact = if inbound { &from } else { &to };
            // Those of the call's day, from when it started: a busy flow
            // has many executions.
            let mut url = platform.url(Product::Studio, &path);
            if let Some(day) = iso_day(&started) {
                let query = &mut url.query_pairs_mut();
                query.append_pair("DateCreatedFrom", &format!("{day}T00:00:00Z"));
                query.append_pair("DateCreatedTo", &format!("{day}T23:59:59Z"));
            }
            platform
                .list(
                    &format!("flow {flow_sid}'s executions"),
                    url,
                    "executions",
                    50,
                )
                .await
                .unwrap_or_default()
                .into_iter()
                .find(|e| e["contact_channel_address"].as_str() == Some(contact.as_str()))
        }
    };
    let Some(execution) = execution else {
        let check = Check::new(Mark::Failed, format!("Flow {flow_sid} did not run for this call"))
            .detail(match &named {
                Some(sid) => format!("the function's records name execution {sid}, which flow {flow_sid} does not have"),
                None => format!("none of its executions that day (the first 50) has the caller {} as contact", report.phone(if inbound { &from } else { &to })),
            })
            .fix("Check the flow's trigger (Incoming Call goes to the first widget) and that the number runs this flow.");
        report.add(check);
        return;
    };
    let execution_sid = execution["sid"].as_str().unwrap_or_default().to_owned();

    // Its steps: did it reach a function widget?
    let functions: Vec<(String, String)> = flow["definition"]["states"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|state| state["type"].as_str() == Some("run-function"))
        .map(|state| {
            (
                state["name"].as_str().unwrap_or_default().to_owned(),
                state["properties"]["url"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect();
    let steps_path = format!("/v2/Flows/{flow_sid}/Executions/{execution_sid}/Steps");
    let steps = platform
        .list_at(
            &format!("execution {execution_sid}'s steps"),
            Product::Studio,
            &steps_path,
            "steps",
            1000,
        )
        .await
        .unwrap_or_default();
    let path_taken: Vec<&str> = steps.iter().filter_map(|s| s["name"].as_str()).collect();
    let reached = steps.iter().find(|s| {
        functions
            .iter()
            .any(|(name, _)| s["name"].as_str() == Some(name.as_str()))
    });
    let Some(reached) = reached else {
        let mut check = Check::new(
            Mark::Failed,
            format!("Execution {execution_sid} did not reach a function widget"),
        )
        .detail(format!(
            "its steps: {}",
            if path_taken.is_empty() {
                "none".to_owned()
            } else {
                path_taken.join(" → ")
            }
        ));
        for (name, url) in &functions {
            check = check.detail(format!("function widget {name}: {url}"));
        }
        report
            .add(check.fix("Check the transitions that lead to the function widget in the flow."));
        return;
    };
    let widget = reached["name"].as_str().unwrap_or_default().to_owned();
    let widget_url = functions
        .iter()
        .find(|(n, _)| *n == widget)
        .map(|(_, u)| u.clone())
        .unwrap_or_default();
    let context_path = format!(
        "{steps_path}/{}/Context",
        reached["sid"].as_str().unwrap_or_default()
    );
    let context = platform
        .fetch_at(
            "the function step's context",
            Product::Studio,
            &context_path,
        )
        .await
        .ok();
    let widget_status = context
        .as_ref()
        .and_then(|c| c["context"]["widgets"][&widget]["status_code"].as_u64());
    let mut check = Check::new(
        Mark::Passed,
        format!("Execution {execution_sid} reached function widget {widget}"),
    )
    .detail(format!("it calls {widget_url}"))
    .detail(format!(
        "then went to {}",
        reached["transitioned_to"].as_str().unwrap_or("-")
    ));
    if let Some(status) = widget_status {
        check = check.detail(format!("the function answered it {status}"));
    }
    if !report.add(check) {
        return;
    }

    // The function's side: the decision tree over its records.
    match &read {
        None => {
            report.add(
                Check::new(Mark::Skipped, "The function's records")
                    .detail("no logs given (--logs FILE): whether the function received the request, and what it did, is not checked"),
            );
        }
        Some((verdict, _)) => {
            if !tree(&verdict.json, &widget_url, report) {
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
    if !answers(platform, call, widget_status, report).await {
        return;
    }

    // The task the function created, or failed to.
    if !task(platform, records, report).await {
        return;
    }

    // Alerts naming the call, the flow or the function.
    alerts(
        platform,
        &[call, &flow_sid, &execution_sid, &widget_url],
        &started,
        report,
    )
    .await;
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
    let events = match platform
        .list_at(
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
        let url = event["request"]["url"].as_str().unwrap_or("-");
        let code = event["response"]["response_code"].as_u64();
        let took = event["response"]["request_duration"].as_u64();
        let bytes = event["response"]["response_body"]
            .as_str()
            .map(|b| b.len() as u64)
            .or_else(|| {
                event["response"]["headers"]["content-length"]
                    .as_str()
                    .and_then(|l| l.parse().ok())
            });
        match code {
            Some(code) if (200..300).contains(&code) => {}
            Some(code) => problems.push(format!("{url} answered {code}")),
            None => problems.push(format!("{url} did not answer")),
        }
        if let Some(took) = took.filter(|t| *t > WEBHOOK_MS) {
            problems.push(format!("{url} took {took} ms (the platform waits 10 000)"));
        }
        if let Some(bytes) = bytes.filter(|b| *b > WEBHOOK_BYTES) {
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

/// The task: the one the records say the function created (in the right
/// workflow and queue), or the workflow it failed to create one in;
/// whether to go on.
async fn task(platform: &Platform, records: &[Record], report: &mut Report) -> bool {
    let config = record(records, "taskrouter_config");
    let created = record(records, "critical");
    let failed = record(records, "task_error");
    if config.is_none() && created.is_none() && failed.is_none() {
        return report
            .add(Check::new(Mark::Skipped, "The task").detail("the call's records show no task"));
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
        return report.add(
            Check::new(Mark::Warning, "The task")
                .detail("no workspace in the records (taskrouter_config) or in PLATFORM_WORKSPACE_SID: the task router is not asked"),
        );
    };
    let workflow = created
        .and_then(|r| field(r, "workflow_sid"))
        .or_else(|| failed.and_then(|r| field(r, "workflow_sid")))
        .or_else(|| config.and_then(|r| field(r, "workflow_sid")))
        .map(str::to_owned);
    let queue = config.and_then(|r| field(r, "queue")).map(str::to_owned);
    let Some(workflow) = workflow else {
        return report
            .add(Check::new(Mark::Warning, "The task").detail("the records name no workflow"));
    };
    // The workflow, in this workspace.
    let path = format!("/v1/Workspaces/{workspace}/Workflows/{workflow}");
    let found = match platform
        .fetch_at(&format!("workflow {workflow}"), Product::TaskRouter, &path)
        .await
    {
        Ok(found) => found,
        Err(err) if err.status == Some(404) => {
            let others = platform
                .list_at(
                    &format!("workspace {workspace}'s workflows"),
                    Product::TaskRouter,
                    &format!("/v1/Workspaces/{workspace}/Workflows"),
                    "workflows",
                    1000,
                )
                .await
                .unwrap_or_default();
            let mut check = Check::new(Mark::Failed, format!("Workflow {workflow} is not in workspace {workspace}"))
                .detail("deleted, or the SID of another environment's workflow (a value hardcoded for staging, say)");
            for other in &others {
                check = check.detail(format!(
                    "this workspace has {} “{}”, which routes to {}",
                    other["sid"].as_str().unwrap_or("-"),
                    other["friendly_name"].as_str().unwrap_or("-"),
                    routes_to(other)
                ));
            }
            return report.add(check.fix("Set the function's workflow SID (workflowSid) to this environment's workflow, from ccfn tasks workflows."));
        }
        Err(err) => {
            return report.add(
                Check::new(Mark::Failed, format!("Workflow {workflow}")).detail(err.to_string()),
            )
        }
    };
    let routes = routes_to(&found);
    if routes == "none" {
        return report.add(
            Check::new(Mark::Failed, format!("Workflow {workflow} routes no task: it is disabled"))
                .detail("its configuration has no filter with a target and no default filter")
                .fix("Give the workflow a filter or a default filter that targets the queue (TaskRouter › Workflows)."),
        );
    }
    if let Some(queue) = &queue {
        if !routes
            .split(", ")
            .any(|q| q.trim_end_matches(" (default)") == queue)
        {
            return report.add(
                Check::new(Mark::Failed, format!("Workflow {workflow} does not route to queue {queue}"))
                    .detail(format!("the function expects queue {queue}; the workflow routes to {routes}"))
                    .fix("Make the workflow target the queue the function names, or the function name the workflow's queue."),
            );
        }
    }
    if failed.and_then(|r| field(r, "cause")) == Some("queue_mismatch") {
        let got = created.and_then(|r| field(r, "queue_sid")).unwrap_or("-");
        return report.add(
            Check::new(
                Mark::Failed,
                format!("Workflow {workflow} put the task in queue {got}, not the function's"),
            )
            .detail(format!("the workflow routes to {routes}"))
            .detail(
                "the function's task_error: queue_mismatch (the task exists, in the wrong queue)",
            )
            .fix(
                "Make the workflow target the queue the function expects (CALLBACK_QUEUE_SID), \
                 or set CALLBACK_QUEUE_SID to the workflow's queue.",
            ),
        );
    }
    // The task itself.
    let Some(task_sid) = created.and_then(|r| field(r, "task_sid")) else {
        let cause = failed
            .and_then(|r| field(r, "cause"))
            .unwrap_or("no task record");
        return report.add(
            Check::new(Mark::Failed, "No task was created")
                .detail(format!("the function's task_error: {cause}"))
                .fix("Read the task_error record (ccfn logs --call CA.. --step task_error); the workflow itself looks right."),
        );
    };
    let path = format!("/v1/Workspaces/{workspace}/Tasks/{task_sid}");
    match platform
        .fetch_at(&format!("task {task_sid}"), Product::TaskRouter, &path)
        .await
    {
        Ok(task) => {
            let in_queue = task["task_queue_sid"].as_str().unwrap_or("-");
            let in_workflow = task["workflow_sid"].as_str().unwrap_or("-");
            let mut check = Check::new(
                Mark::Passed,
                format!("Task {task_sid} is in workflow {in_workflow}, queue {in_queue}"),
            )
            .detail(format!(
                "status {}, age {} s",
                task["assignment_status"].as_str().unwrap_or("-"),
                task["age"]
            ));
            if in_workflow != workflow || queue.as_deref().is_some_and(|q| q != in_queue) {
                check = Check::new(
                    Mark::Failed,
                    format!("Task {task_sid} is not where the function put it"),
                )
                .detail(format!(
                    "workflow {in_workflow} (expected {workflow}), queue {in_queue} (expected {})",
                    queue.as_deref().unwrap_or("-")
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

/// Alerts that name any of `names`, since `started`.
async fn alerts(platform: &Platform, names: &[&str], started: &str, report: &mut Report) {
    let mut url = platform.url(Product::Monitor, "/v1/Alerts");
    if let Some(day) = iso_day(started) {
        url.query_pairs_mut()
            .append_pair("StartDate", &format!("{day}T00:00:00Z"));
    }
    let found = match platform.list("alerts", url, "alerts", 200).await {
        Ok(found) => found,
        Err(err) => {
            report.add(Check::new(Mark::Warning, "Alerts").detail(err.to_string()));
            return;
        }
    };
    let naming: Vec<&Value> = found
        .iter()
        .filter(|alert| {
            let text = alert.to_string();
            names
                .iter()
                .any(|name| !name.is_empty() && text.contains(name))
        })
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
            alert["date_created"].as_str().unwrap_or("-"),
            alert["error_code"]
                .as_str()
                .map_or_else(|| alert["error_code"].to_string(), str::to_owned),
            alert["alert_text"].as_str().unwrap_or("-"),
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
fn human(what: &str, checks: &[Check]) -> String {
    let mut out = format!("Doctor for {what}\n\n");
    for check in checks {
        out.push_str(&format!("[{}] {}\n", check.mark.symbol(), check.title));
        for detail in &check.details {
            out.push_str(&format!("    • {detail}\n"));
        }
        if check.mark == Mark::Failed {
            if let Some(fix) = &check.fix {
                out.push_str(&format!("    Fix: {fix}\n"));
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
