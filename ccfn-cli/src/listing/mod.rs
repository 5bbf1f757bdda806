//! `ccfn calls`, `functions`, `flows`, `tasks`, `numbers` and `account`:
//! what steps 2 to 6 of the diagnostic procedure ask the platform, in
//! columns or as JSON.
//!
//! The columns are read from the platform's items through the types of
//! [`crate::resources`] (an item not shaped as the platform's definitions
//! say is an error naming the field); `--json` prints the items as the
//! platform returned them, redacted. Where the platform's answer leaves
//! out what a listing shows, the listing asks for it: each flow of the
//! flow list is fetched by its SID for its validity, and the tasks are
//! asked newest first (`Ordering`).

use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Error, Problem};
use crate::platform::{Platform, PlatformError, Product, Settings};
use crate::resources::{
    self, text, Account, Alert, Annotation, Application, Call, Environment, Event, Execution, Flow,
    Function, IncomingNumber, Key, Log, Recording, Service, Step, StepContext, Task, TaskQueue,
    UsageRecord, Workflow,
};
use crate::write_out;

mod layout;
mod output;

use layout::*;
pub(crate) use output::mask_phone;
use output::{
    columns, fields, json_out, mask_value, print, redact, show, text_out, tidy, typed, typed_all,
};

/// What every listing command takes.
#[derive(Args, Debug, Clone)]
pub(crate) struct Output {
    /// JSON instead of columns, with the platform's own field names.
    #[arg(long)]
    json: bool,
    /// Mask phone numbers (all but their last four digits).
    #[arg(long)]
    mask_pii: bool,
}

/// `ccfn calls`.
#[derive(Args, Debug)]
pub(crate) struct CallsArgs {
    #[command(subcommand)]
    command: CallsCommand,
}

#[derive(Subcommand, Debug)]
enum CallsCommand {
    /// List the account's recent calls, newest first.
    #[command(after_help = "\
Examples:
  ccfn calls list --status failed --limit 20
  ccfn calls list --status completed --since 2026-11-20 --json")]
    List {
        /// Only calls in this status.
        #[arg(long, value_enum)]
        status: Option<CallStatus>,
        /// Only calls that started on or after this date (YYYY-MM-DD).
        #[arg(long, value_parser = date)]
        since: Option<String>,
        /// At most this many calls.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
        #[command(flatten)]
        output: Output,
    },
    /// One call, with its recordings and its events (the platform's log of
    /// the requests it made to the call's webhooks and their answers).
    #[command(after_help = "\
Example:
  ccfn calls get CA0123456789abcdef0123456789abcdef")]
    Get {
        /// The call's SID (CA...).
        #[arg(value_parser = sid("CA"))]
        sid: String,
        #[command(flatten)]
        output: Output,
    },
}

/// A call's status, as the platform filters by it.
#[derive(ValueEnum, Debug, Clone, Copy)]
#[value(rename_all = "kebab-case")]
enum CallStatus {
    Queued,
    Ringing,
    InProgress,
    Canceled,
    Completed,
    Failed,
    Busy,
    NoAnswer,
}

/// `ccfn tasks`.
#[derive(Args, Debug)]
pub(crate) struct TasksArgs {
    #[command(subcommand)]
    command: TasksCommand,
}

#[derive(Subcommand, Debug)]
enum TasksCommand {
    /// List the workspace's tasks.
    #[command(after_help = "\
Examples:
  ccfn tasks list --limit 10
  ccfn tasks list --workspace WS0123456789abcdef0123456789abcdef --status pending")]
    List {
        /// The workspace (WS...); PLATFORM_WORKSPACE_SID by default.
        #[arg(long, value_parser = sid("WS"))]
        workspace: Option<String>,
        /// Only tasks in this assignment status.
        #[arg(long, value_enum)]
        status: Option<TaskStatus>,
        /// At most this many tasks.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
        #[command(flatten)]
        output: Output,
    },
    /// One task: status, attributes, workflow, queue, age.
    Get {
        /// The task's SID (WT...).
        #[arg(value_parser = sid("WT"))]
        task: String,
        /// The workspace (WS...); PLATFORM_WORKSPACE_SID by default.
        #[arg(long, value_parser = sid("WS"))]
        workspace: Option<String>,
        #[command(flatten)]
        output: Output,
    },
    /// The workspace's workflows, with where each routes.
    Workflows {
        /// The workspace (WS...); PLATFORM_WORKSPACE_SID by default.
        #[arg(long, value_parser = sid("WS"))]
        workspace: Option<String>,
        #[command(flatten)]
        output: Output,
    },
    /// The workspace's task queues.
    Queues {
        /// The workspace (WS...); PLATFORM_WORKSPACE_SID by default.
        #[arg(long, value_parser = sid("WS"))]
        workspace: Option<String>,
        #[command(flatten)]
        output: Output,
    },
}

/// `ccfn flows`.
#[derive(Args, Debug)]
pub(crate) struct FlowsArgs {
    #[command(subcommand)]
    command: FlowsCommand,
}

#[derive(Subcommand, Debug)]
enum FlowsCommand {
    /// List the flows: status (published or draft), whether valid, revision.
    List {
        #[command(flatten)]
        output: Output,
    },
    /// One flow: status, validity, errors, warnings, webhook URL.
    Get {
        /// The flow's SID (FW...).
        #[arg(value_parser = sid("FW"))]
        flow: String,
        #[command(flatten)]
        output: Output,
    },
    /// A flow's executions, newest first.
    #[command(after_help = "\
Example:
  ccfn flows executions FW0123456789abcdef0123456789abcdef --limit 10")]
    Executions {
        /// The flow's SID (FW...).
        #[arg(value_parser = sid("FW"))]
        flow: String,
        /// At most this many executions.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
        #[command(flatten)]
        output: Output,
    },
    /// One execution and its steps (with `--context`, each step's context:
    /// what the widget received and returned).
    Execution {
        /// The flow's SID (FW...).
        #[arg(value_parser = sid("FW"))]
        flow: String,
        /// The execution's SID (FN...).
        #[arg(value_parser = sid("FN"))]
        execution: String,
        /// Fetch each step's context too.
        #[arg(long)]
        context: bool,
        #[command(flatten)]
        output: Output,
    },
}

/// `ccfn numbers`.
#[derive(Args, Debug)]
pub(crate) struct NumbersArgs {
    #[command(subcommand)]
    command: NumbersCommand,
}

#[derive(Subcommand, Debug)]
enum NumbersCommand {
    /// List the account's phone numbers and what answers their calls: a
    /// trunk, else an application, else the voice URL.
    List {
        /// At most this many numbers.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
        #[command(flatten)]
        output: Output,
    },
}

/// `ccfn functions`.
#[derive(Args, Debug)]
pub(crate) struct FunctionsArgs {
    #[command(subcommand)]
    command: FunctionsCommand,
}

#[derive(Subcommand, Debug)]
enum FunctionsCommand {
    /// List the serverless services, or one service's functions and
    /// environments.
    List {
        /// The service (ZS...): its functions and environments.
        #[arg(long, value_parser = sid("ZS"))]
        service: Option<String>,
        #[command(flatten)]
        output: Output,
    },
    /// An environment's logs, grouped by invocation (request), oldest
    /// first within each.
    #[command(after_help = "\
Example:
  ccfn functions logs --service ZS0123456789abcdef0123456789abcdef \\
    --environment ZE0123456789abcdef0123456789abcdef --since 2026-11-20 --limit 100")]
    Logs {
        /// The service (ZS...).
        #[arg(long, value_parser = sid("ZS"))]
        service: String,
        /// The environment (ZE...).
        #[arg(long, value_parser = sid("ZE"))]
        environment: String,
        /// Only this function's logs (ZH...).
        #[arg(long, value_parser = sid("ZH"))]
        function: Option<String>,
        /// Only logs from this date (YYYY-MM-DD).
        #[arg(long, value_parser = date)]
        since: Option<String>,
        /// At most this many log lines.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
        #[command(flatten)]
        output: Output,
    },
}

/// `ccfn account` and the account's other lists.
#[derive(Args, Debug)]
pub(crate) struct AccountArgs {
    #[command(subcommand)]
    command: Option<AccountCommand>,
    #[command(flatten)]
    output: Output,
}

#[derive(Subcommand, Debug)]
enum AccountCommand {
    /// The account's usage records.
    Usage {
        /// At most this many records.
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
        #[command(flatten)]
        output: Output,
    },
    /// The account's applications and their voice URLs.
    Apps {
        #[command(flatten)]
        output: Output,
    },
    /// The account's API keys (names and dates; never a secret).
    Keys {
        #[command(flatten)]
        output: Output,
    },
    /// The account's alerts (the platform's debugger), newest first.
    Alerts {
        /// Only alerts from this date (YYYY-MM-DD).
        #[arg(long, value_parser = date)]
        since: Option<String>,
        /// At most this many alerts.
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
        #[command(flatten)]
        output: Output,
    },
}

/// A task's assignment status.
#[derive(ValueEnum, Debug, Clone, Copy)]
#[value(rename_all = "kebab-case")]
enum TaskStatus {
    Pending,
    Reserved,
    Assigned,
    Canceled,
    Completed,
    Wrapping,
}

impl CallStatus {
    fn as_str(self) -> &'static str {
        match self {
            CallStatus::Queued => "queued",
            CallStatus::Ringing => "ringing",
            CallStatus::InProgress => "in-progress",
            CallStatus::Canceled => "canceled",
            CallStatus::Completed => "completed",
            CallStatus::Failed => "failed",
            CallStatus::Busy => "busy",
            CallStatus::NoAnswer => "no-answer",
        }
    }
}

impl TaskStatus {
    fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::Reserved => "reserved",
            TaskStatus::Assigned => "assigned",
            TaskStatus::Canceled => "canceled",
            TaskStatus::Completed => "completed",
            TaskStatus::Wrapping => "wrapping",
        }
    }
}

/// A `YYYY-MM-DD` date, a day the calendar has: the platform's date
/// parameters (`format: date`, or a day where a `date-time` allows one)
/// take no other.
fn date(text: &str) -> Result<String, String> {
    match crate::when::day_start(text) {
        Some(_) => Ok(text.to_owned()),
        None => Err(format!("{text:?} is not a date as YYYY-MM-DD")),
    }
}

/// A SID with `prefix` and 32 hex digits.
pub(crate) fn sid(prefix: &'static str) -> impl Fn(&str) -> Result<String, String> + Clone {
    move |text: &str| {
        let hex = text.strip_prefix(prefix).unwrap_or("");
        if hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(text.to_owned())
        } else {
            Err(format!("{text:?} is not a SID: {prefix} and 32 hex digits"))
        }
    }
}

/// `text` when it is a SID with `prefix` and 32 hex digits, the pattern
/// the platform's definitions give every SID in a path: a SID taken from
/// an answer or a record goes into a request's path only through here,
/// so that no text of theirs makes a path the platform does not have.
pub(crate) fn path_sid<'a>(prefix: &'static str, text: &'a str) -> Option<&'a str> {
    sid(prefix)(text).ok().map(|_| text)
}

/// Runs `ccfn calls`.
pub(crate) fn run_calls(args: &CallsArgs) -> Result<ExitCode, Error> {
    calls(args).map_err(Error::of("calls"))
}

fn calls(args: &CallsArgs) -> Result<ExitCode, Problem> {
    let platform = platform()?;
    runtime()?.block_on(async {
        match &args.command {
            CallsCommand::List {
                status,
                since,
                limit,
                output,
            } => {
                let mut url =
                    platform.url(Product::Api, "/2010-04-01/Accounts/{account}/Calls.json");
                {
                    let mut query = url.query_pairs_mut();
                    if let Some(status) = status {
                        query.append_pair("Status", status.as_str());
                    }
                    if let Some(since) = since {
                        query.append_pair("StartTime>", since);
                    }
                }
                let calls = platform
                    .list("calls", url, "calls", *limit as usize)
                    .await?;
                print::<Call>("calls", &calls, output, CALL_COLUMNS)
            }
            CallsCommand::Get { sid, output } => {
                let base = format!("/2010-04-01/Accounts/{{account}}/Calls/{sid}");
                let resource = format!("call {sid}");
                let call = platform
                    .fetch(
                        &resource,
                        platform.url(Product::Api, &format!("{base}.json")),
                    )
                    .await?;
                let of_recordings = format!("{resource}'s recordings");
                let recordings = platform
                    .list(
                        &of_recordings,
                        platform.url(Product::Api, &format!("{base}/Recordings.json")),
                        "recordings",
                        100,
                    )
                    .await?;
                let of_events = format!("{resource}'s events");
                let events = platform
                    .list(
                        &of_events,
                        platform.url(Product::Api, &format!("{base}/Events.json")),
                        "events",
                        100,
                    )
                    .await?;
                // The call's annotation (which replaced call feedback):
                // none is a 404.
                let at = platform.url(Product::Insights, &format!("/v1/Voice/{sid}/Annotation"));
                let of_annotation = format!("{resource}'s annotation");
                let annotation = match platform.fetch(&of_annotation, at).await {
                    Ok(annotation) => annotation,
                    Err(err) if err.status == Some(404) => Value::Null,
                    Err(err) => return Err(err.into()),
                };
                if output.json {
                    let all = serde_json::json!({
                        "call": call,
                        "recordings": recordings,
                        "events": events,
                        "annotation": annotation,
                    });
                    json_out(all, output)?;
                    return Ok(ExitCode::SUCCESS);
                }
                let call: Call = typed(&resource, &call)?;
                let recordings: Vec<Recording> = typed_all(&of_recordings, &recordings)?;
                let events: Vec<Event> = typed_all(&of_events, &events)?;
                let mut text = fields(&call, CALL_FIELDS, output.mask_pii);
                text.push_str(&format!("\nRecordings ({})\n", recordings.len()));
                text.push_str(&columns(&recordings, RECORDING_COLUMNS, output.mask_pii));
                text.push_str(&format!("\nEvents ({})\n", events.len()));
                text.push_str(&columns(&events, EVENT_COLUMNS, output.mask_pii));
                text.push_str("\nAnnotation\n");
                if annotation.is_null() {
                    text.push_str("none\n");
                } else {
                    let annotation: Annotation = typed(&of_annotation, &annotation)?;
                    text.push_str(&fields(&annotation, ANNOTATION_FIELDS, output.mask_pii));
                }
                text_out(&text)?;
                Ok(ExitCode::SUCCESS)
            }
        }
    })
}

/// How `ccfn tasks list` orders the tasks: newest first (the platform
/// lists them oldest first unless `Ordering` says otherwise).
pub(crate) const TASK_ORDERING: &str = "DateCreated:desc";

/// Runs `ccfn tasks`.
pub(crate) fn run_tasks(args: &TasksArgs) -> Result<ExitCode, Error> {
    tasks(args).map_err(Error::of("tasks"))
}

fn tasks(args: &TasksArgs) -> Result<ExitCode, Problem> {
    let platform = platform()?;
    runtime()?.block_on(async {
        match &args.command {
            TasksCommand::List {
                workspace,
                status,
                limit,
                output,
            } => {
                let workspace = workspace_of(workspace.as_ref())?;
                let mut url = platform.url(
                    Product::TaskRouter,
                    &format!("/v1/Workspaces/{workspace}/Tasks"),
                );
                {
                    let mut query = url.query_pairs_mut();
                    if let Some(status) = status {
                        query.append_pair("AssignmentStatus", status.as_str());
                    }
                    query.append_pair("Ordering", TASK_ORDERING);
                }
                let resource = format!("workspace {workspace}'s tasks");
                let tasks = platform
                    .list(&resource, url, "tasks", *limit as usize)
                    .await?;
                print::<Task>(&resource, &tasks, output, TASK_COLUMNS)
            }
            TasksCommand::Get {
                task,
                workspace,
                output,
            } => {
                let workspace = workspace_of(workspace.as_ref())?;
                let path = format!("/v1/Workspaces/{workspace}/Tasks/{task}");
                let resource = format!("task {task}");
                let task = platform
                    .fetch_at(&resource, Product::TaskRouter, &path)
                    .await?;
                show::<Task>(&resource, &task, output, TASK_FIELDS)
            }
            TasksCommand::Workflows { workspace, output } => {
                let workspace = workspace_of(workspace.as_ref())?;
                let path = format!("/v1/Workspaces/{workspace}/Workflows");
                let resource = format!("workspace {workspace}'s workflows");
                let mut workflows = platform
                    .list_at(&resource, Product::TaskRouter, &path, "workflows", 1000)
                    .await?;
                // Where each routes, read from its configuration, for the
                // JSON too.
                let typed: Vec<Workflow> = typed_all(&resource, &workflows)?;
                for (workflow, read) in workflows.iter_mut().zip(&typed) {
                    workflow["routes_to"] = Value::from(routes_to(read));
                }
                print::<Workflow>(&resource, &workflows, output, WORKFLOW_COLUMNS)
            }
            TasksCommand::Queues { workspace, output } => {
                let workspace = workspace_of(workspace.as_ref())?;
                let path = format!("/v1/Workspaces/{workspace}/TaskQueues");
                let resource = format!("workspace {workspace}'s task queues");
                let queues = platform
                    .list_at(&resource, Product::TaskRouter, &path, "task_queues", 1000)
                    .await?;
                print::<TaskQueue>(&resource, &queues, output, QUEUE_COLUMNS)
            }
        }
    })
}

/// The flows of the list, each fetched by its SID when the list left
/// its definition or validity out (the platform's flow list answers
/// `definition`, `valid`, `errors` and `warnings` as null).
pub(crate) async fn whole_flows(platform: &Platform) -> Result<Vec<Value>, PlatformError> {
    let listed = platform
        .list_at("flows", Product::Studio, "/v2/Flows", "flows", 1000)
        .await?;
    let mut flows = Vec::with_capacity(listed.len());
    for item in listed {
        let flow: Flow = resources::parse("flows", item.clone())?;
        match flow.sid.as_deref() {
            Some(sid) if !flow.is_complete() => match path_sid("FW", sid) {
                Some(sid) => {
                    let path = format!("/v2/Flows/{sid}");
                    flows.push(
                        platform
                            .fetch_at(&format!("flow {sid}"), Product::Studio, &path)
                            .await?,
                    );
                }
                // Not a flow's SID: there is nothing to fetch it at; the
                // flow is shown as listed.
                None => {
                    crate::terminal::say(
                        "",
                        &format!(
                            "warning: flows: {sid:?} is not a flow SID (FW and 32 hex digits): \
                             that flow is shown as listed, without its validity"
                        ),
                    );
                    flows.push(item);
                }
            },
            _ => flows.push(item),
        }
    }
    Ok(flows)
}

/// Runs `ccfn flows`.
pub(crate) fn run_flows(args: &FlowsArgs) -> Result<ExitCode, Error> {
    flows(args).map_err(Error::of("flows"))
}

fn flows(args: &FlowsArgs) -> Result<ExitCode, Problem> {
    let platform = platform()?;
    runtime()?.block_on(async {
        match &args.command {
            FlowsCommand::List { output } => {
                let flows = whole_flows(&platform).await?;
                print::<Flow>("flows", &flows, output, FLOW_COLUMNS)
            }
            FlowsCommand::Get { flow, output } => {
                let path = format!("/v2/Flows/{flow}");
                let resource = format!("flow {flow}");
                let flow = platform.fetch_at(&resource, Product::Studio, &path).await?;
                show::<Flow>(&resource, &flow, output, FLOW_FIELDS)
            }
            FlowsCommand::Executions {
                flow,
                limit,
                output,
            } => {
                let path = format!("/v2/Flows/{flow}/Executions");
                let resource = format!("flow {flow}'s executions");
                let limit = *limit as usize;
                let executions = platform
                    .list_at(&resource, Product::Studio, &path, "executions", limit)
                    .await?;
                print::<Execution>(&resource, &executions, output, EXECUTION_COLUMNS)
            }
            FlowsCommand::Execution {
                flow,
                execution,
                context,
                output,
            } => {
                let path = format!("/v2/Flows/{flow}/Executions/{execution}");
                let resource = format!("execution {execution}");
                let found = platform.fetch_at(&resource, Product::Studio, &path).await?;
                let steps_of = format!("{resource}'s steps");
                let mut steps = platform
                    .list_at(
                        &steps_of,
                        Product::Studio,
                        &format!("{path}/Steps"),
                        "steps",
                        1000,
                    )
                    .await?;
                let read: Vec<Step> = typed_all(&steps_of, &steps)?;
                if *context {
                    for (step, read) in steps.iter_mut().zip(&read) {
                        let given = read.sid.as_deref().unwrap_or_default();
                        let Some(sid) = path_sid("FT", given) else {
                            return Err(Problem::Platform(PlatformError {
                                resource: steps_of.clone(),
                                status: None,
                                code: None,
                                message: format!(
                                    "{given:?} is not a step SID (FT and 32 hex digits): \
                                     its context cannot be asked for"
                                ),
                            }));
                        };
                        let at = format!("{path}/Steps/{sid}/Context");
                        let of = format!("step {sid}'s context");
                        let found = platform.fetch_at(&of, Product::Studio, &at).await?;
                        // Redacted once, when shown.
                        let found: StepContext = resources::parse(&of, found)?;
                        step["context"] = found.context.unwrap_or(Value::Null);
                    }
                }
                if output.json {
                    json_out(
                        serde_json::json!({ "execution": found, "steps": steps }),
                        output,
                    )?;
                    return Ok(ExitCode::SUCCESS);
                }
                let found: Execution = typed(&resource, &found)?;
                let mut text = fields(&found, EXECUTION_FIELDS, output.mask_pii);
                text.push_str(&format!("\nSteps ({})\n", read.len()));
                text.push_str(&columns(&read, STEP_COLUMNS, output.mask_pii));
                if *context {
                    for (step, read) in steps.iter().zip(&read) {
                        let mut value = step["context"].clone();
                        redact(&mut value);
                        if output.mask_pii {
                            mask_value(&mut value);
                        }
                        let sid = tidy(&opt(&read.sid), false);
                        let event = tidy(&opt(&read.name), false);
                        let to = tidy(&opt(&read.transitioned_to), false);
                        text.push_str(&format!("\n{sid} {event} → {to}\n{value:#}\n"));
                    }
                }
                text_out(&text)?;
                Ok(ExitCode::SUCCESS)
            }
        }
    })
}

/// Runs `ccfn numbers`.
pub(crate) fn run_numbers(args: &NumbersArgs) -> Result<ExitCode, Error> {
    numbers(args).map_err(Error::of("numbers"))
}

fn numbers(args: &NumbersArgs) -> Result<ExitCode, Problem> {
    let platform = platform()?;
    runtime()?.block_on(async {
        match &args.command {
            NumbersCommand::List { limit, output } => {
                let path = "/2010-04-01/Accounts/{account}/IncomingPhoneNumbers.json";
                let limit = *limit as usize;
                let resource = "incoming phone numbers";
                let mut numbers = platform
                    .list_at(
                        resource,
                        Product::Api,
                        path,
                        "incoming_phone_numbers",
                        limit,
                    )
                    .await?;
                // What answers each, for the JSON too.
                let typed: Vec<IncomingNumber> = typed_all(resource, &numbers)?;
                for (number, read) in numbers.iter_mut().zip(&typed) {
                    number["handler"] = Value::from(read.handler());
                }
                print::<IncomingNumber>(resource, &numbers, output, NUMBER_COLUMNS)
            }
        }
    })
}

/// Runs `ccfn functions`.
pub(crate) fn run_functions(args: &FunctionsArgs) -> Result<ExitCode, Error> {
    functions(args).map_err(Error::of("functions"))
}

fn functions(args: &FunctionsArgs) -> Result<ExitCode, Problem> {
    let platform = platform()?;
    runtime()?.block_on(async {
        match &args.command {
            FunctionsCommand::List {
                service: None,
                output,
            } => {
                let services = platform
                    .list_at(
                        "services",
                        Product::Serverless,
                        "/v1/Services",
                        "services",
                        1000,
                    )
                    .await?;
                print::<Service>("services", &services, output, SERVICE_COLUMNS)
            }
            FunctionsCommand::List {
                service: Some(service),
                output,
            } => {
                let base = format!("/v1/Services/{service}");
                let (of_functions, of_environments) = (
                    format!("service {service}'s functions"),
                    format!("service {service}'s environments"),
                );
                let functions = platform
                    .list_at(
                        &of_functions,
                        Product::Serverless,
                        &format!("{base}/Functions"),
                        "functions",
                        1000,
                    )
                    .await?;
                let environments = platform
                    .list_at(
                        &of_environments,
                        Product::Serverless,
                        &format!("{base}/Environments"),
                        "environments",
                        1000,
                    )
                    .await?;
                if output.json {
                    let both =
                        serde_json::json!({ "functions": functions, "environments": environments });
                    json_out(both, output)?;
                    return Ok(ExitCode::SUCCESS);
                }
                let functions: Vec<Function> = typed_all(&of_functions, &functions)?;
                let environments: Vec<Environment> = typed_all(&of_environments, &environments)?;
                let mut text = format!("Functions ({})\n", functions.len());
                text.push_str(&columns(&functions, FUNCTION_COLUMNS, output.mask_pii));
                text.push_str(&format!("\nEnvironments ({})\n", environments.len()));
                text.push_str(&columns(
                    &environments,
                    ENVIRONMENT_COLUMNS,
                    output.mask_pii,
                ));
                text_out(&text)?;
                Ok(ExitCode::SUCCESS)
            }
            FunctionsCommand::Logs {
                service,
                environment,
                function,
                since,
                limit,
                output,
            } => {
                let path = format!("/v1/Services/{service}/Environments/{environment}/Logs");
                let mut url = platform.url(Product::Serverless, &path);
                {
                    let mut query = url.query_pairs_mut();
                    if let Some(function) = function {
                        query.append_pair("FunctionSid", function);
                    }
                    if let Some(since) = since {
                        query.append_pair("StartDate", &format!("{since}T00:00:00Z"));
                    }
                }
                let resource = format!("environment {environment}'s logs");
                let logs = platform
                    .list(&resource, url, "logs", *limit as usize)
                    .await?;
                let read: Vec<Log> = typed_all(&resource, &logs)?;
                let groups = by_request(logs.into_iter().zip(read).collect());
                if output.json {
                    let groups: Vec<Value> = groups
                        .into_iter()
                        .map(|(request, logs)| {
                            let logs: Vec<Value> = logs.into_iter().map(|(raw, _)| raw).collect();
                            serde_json::json!({ "request_sid": request, "logs": logs })
                        })
                        .collect();
                    json_out(Value::Array(groups), output)?;
                    return Ok(ExitCode::SUCCESS);
                }
                let text: Vec<String> = groups
                    .iter()
                    .map(|(request, logs)| {
                        let lines = match logs.len() {
                            1 => "1 line".to_owned(),
                            n => format!("{n} lines"),
                        };
                        let logs: Vec<Log> = logs.iter().map(|(_, log)| log.clone()).collect();
                        let table = columns(&logs, LOG_COLUMNS, output.mask_pii);
                        format!("Invocation {request} ({lines})\n{table}")
                    })
                    .collect();
                text_out(&text.join("\n"))?;
                Ok(ExitCode::SUCCESS)
            }
        }
    })
}

/// Runs `ccfn account`.
pub(crate) fn run_account(args: &AccountArgs) -> Result<ExitCode, Error> {
    account(args).map_err(Error::of("account"))
}

fn account(args: &AccountArgs) -> Result<ExitCode, Problem> {
    let platform = platform()?;
    runtime()?.block_on(async {
        let account = "/2010-04-01/Accounts/{account}";
        match &args.command {
            None => {
                let path = format!("{account}.json");
                let found = platform
                    .fetch_at("the account", Product::Api, &path)
                    .await?;
                show::<Account>("the account", &found, &args.output, ACCOUNT_FIELDS)
            }
            Some(AccountCommand::Usage { limit, output }) => {
                let path = format!("{account}/Usage/Records.json");
                let limit = *limit as usize;
                let records = platform
                    .list_at("usage records", Product::Api, &path, "usage_records", limit)
                    .await?;
                print::<UsageRecord>("usage records", &records, output, USAGE_COLUMNS)
            }
            Some(AccountCommand::Apps { output }) => {
                let path = format!("{account}/Applications.json");
                let apps = platform
                    .list_at("applications", Product::Api, &path, "applications", 1000)
                    .await?;
                print::<Application>("applications", &apps, output, APP_COLUMNS)
            }
            Some(AccountCommand::Keys { output }) => {
                let path = format!("{account}/Keys.json");
                let keys = platform
                    .list_at("API keys", Product::Api, &path, "keys", 1000)
                    .await?;
                print::<Key>("API keys", &keys, output, KEY_COLUMNS)
            }
            Some(AccountCommand::Alerts {
                since,
                limit,
                output,
            }) => {
                let mut url = platform.url(Product::Monitor, "/v1/Alerts");
                if let Some(since) = since {
                    // The platform answers no query further back than 30
                    // days: an empty list would say "no alert", wrongly.
                    let today = crate::when::today();
                    if crate::doctor::past_alerts(since, &today) {
                        return Err(Problem::Usage(format!(
                            "--since {since}: the platform's alerts cannot be queried further back than {} days (today is {today}); give a date from the last {} days",
                            crate::doctor::ALERT_DAYS,
                            crate::doctor::ALERT_DAYS
                        )));
                    }
                    url.query_pairs_mut()
                        .append_pair("StartDate", &format!("{since}T00:00:00Z"));
                }
                let alerts = platform
                    .list("alerts", url, "alerts", *limit as usize)
                    .await?;
                print::<Alert>("alerts", &alerts, output, ALERT_COLUMNS)
            }
        }
    })
}

/// The workspace `--workspace` names, or `PLATFORM_WORKSPACE_SID`.
fn workspace_of(given: Option<&String>) -> Result<String, Problem> {
    match given {
        Some(workspace) => Ok(workspace.clone()),
        None => std::env::var("PLATFORM_WORKSPACE_SID")
            .ok()
            .map(|w| w.trim().to_owned())
            .filter(|w| !w.is_empty())
            .ok_or_else(|| {
                Problem::setting(
                    "PLATFORM_WORKSPACE_SID",
                    "no workspace: give --workspace WS... or set PLATFORM_WORKSPACE_SID",
                )
            }),
    }
}

/// Where a workflow routes: each filter's first target's queue, then the
/// default filter's queue; `none` when it cannot route a task.
pub(crate) fn routes_to(workflow: &Workflow) -> String {
    let queues = workflow.routes();
    if queues.is_empty() {
        "none".to_owned()
    } else {
        queues.join(", ")
    }
}

/// Logs grouped by `request_sid` (one invocation each), in the order each
/// invocation first appears, oldest first within each.
fn by_request(logs: Vec<(Value, Log)>) -> Vec<(String, Vec<(Value, Log)>)> {
    let mut groups: Vec<(String, Vec<(Value, Log)>)> = Vec::new();
    for (raw, log) in logs {
        let request = log.request_sid.clone().unwrap_or_else(|| "-".to_owned());
        match groups.iter_mut().find(|(r, _)| *r == request) {
            Some((_, logs)) => logs.push((raw, log)),
            None => groups.push((request, vec![(raw, log)])),
        }
    }
    for (_, logs) in &mut groups {
        logs.sort_by(|(_, a), (_, b)| a.date_created.cmp(&b.date_created));
    }
    groups
}

fn platform() -> Result<Platform, Problem> {
    // The environment's secrets are scrubbed from everything written.
    crate::package::register_secrets();
    Platform::new(Settings::from_vars(|name| std::env::var(name).ok())?)
}

fn runtime() -> Result<tokio::runtime::Runtime, Problem> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Problem::Start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_checked() {
        assert!(date("2026-11-20").is_ok());
        assert!(date("2026-1-20").is_err());
        assert!(sid("CA")("CA0123456789abcdef0123456789abcdef").is_ok());
        let err = sid("CA")("WS0123456789abcdef0123456789abcdef").unwrap_err();
        assert!(err.contains("CA and 32 hex digits"), "{err}");
    }
}
