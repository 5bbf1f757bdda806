//! `ccfn calls` and `ccfn tasks`: the platform's calls and tasks, as steps
//! 2 and 5 of the diagnostic procedure list them, in columns or as JSON.

use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::Value;

use crate::platform::{Platform, Product, Settings};
use crate::write_out;

/// What every listing command takes.
#[derive(Args, Debug, Clone)]
pub(crate) struct Output {
    /// The items as JSON (one array), as the platform wrote them.
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

/// A `YYYY-MM-DD` date.
fn date(text: &str) -> Result<String, String> {
    let digits = |part: &str, n: usize| part.len() == n && part.bytes().all(|b| b.is_ascii_digit());
    match text.split('-').collect::<Vec<_>>()[..] {
        [y, m, d] if digits(y, 4) && digits(m, 2) && digits(d, 2) => Ok(text.to_owned()),
        _ => Err(format!("{text:?} is not a date as YYYY-MM-DD")),
    }
}

/// A SID with `prefix` and 32 hex digits.
fn sid(prefix: &'static str) -> impl Fn(&str) -> Result<String, String> + Clone {
    move |text: &str| {
        let hex = text.strip_prefix(prefix).unwrap_or("");
        if hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(text.to_owned())
        } else {
            Err(format!("{text:?} is not a SID: {prefix} and 32 hex digits"))
        }
    }
}

/// Runs `ccfn calls`.
pub(crate) fn run_calls(args: &CallsArgs) -> Result<ExitCode, String> {
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
                    .await
                    .map_err(|e| e.to_string())?;
                print(&calls, output, CALL_COLUMNS)
            }
            CallsCommand::Get { sid, output } => {
                let base = format!("/2010-04-01/Accounts/{{account}}/Calls/{sid}");
                let resource = format!("call {sid}");
                let call = platform
                    .fetch(
                        &resource,
                        platform.url(Product::Api, &format!("{base}.json")),
                    )
                    .await
                    .map_err(|e| e.to_string())?;
                let recordings = platform
                    .list(
                        &format!("{resource}'s recordings"),
                        platform.url(Product::Api, &format!("{base}/Recordings.json")),
                        "recordings",
                        100,
                    )
                    .await
                    .map_err(|e| e.to_string())?;
                let events = platform
                    .list(
                        &format!("{resource}'s events"),
                        platform.url(Product::Api, &format!("{base}/Events.json")),
                        "events",
                        100,
                    )
                    .await
                    .map_err(|e| e.to_string())?;
                if output.json {
                    let mut all = serde_json::json!({
                        "call": call,
                        "recordings": recordings,
                        "events": events,
                    });
                    if output.mask_pii {
                        mask_value(&mut all);
                    }
                    write_out(&format!("{all:#}\n"))?;
                    return Ok(ExitCode::SUCCESS);
                }
                let mut text = String::new();
                for (label, field) in CALL_FIELDS {
                    let value = cell(&call, field, output.mask_pii);
                    text.push_str(&format!("{label:<12} {value}\n"));
                }
                text.push_str(&format!("\nRecordings ({})\n", recordings.len()));
                text.push_str(&columns(&recordings, RECORDING_COLUMNS, output.mask_pii));
                text.push_str(&format!("\nEvents ({})\n", events.len()));
                text.push_str(&columns(&events, EVENT_COLUMNS, output.mask_pii));
                write_out(&text)?;
                Ok(ExitCode::SUCCESS)
            }
        }
    })
}

/// Runs `ccfn tasks`.
pub(crate) fn run_tasks(args: &TasksArgs) -> Result<ExitCode, String> {
    let platform = platform()?;
    runtime()?.block_on(async {
        match &args.command {
            TasksCommand::List {
                workspace,
                status,
                limit,
                output,
            } => {
                let workspace = match workspace {
                    Some(workspace) => workspace.clone(),
                    None => std::env::var("PLATFORM_WORKSPACE_SID")
                        .ok()
                        .filter(|w| !w.trim().is_empty())
                        .ok_or(
                            "no workspace: give --workspace WS... or set PLATFORM_WORKSPACE_SID",
                        )?,
                };
                let mut url = platform.url(
                    Product::TaskRouter,
                    &format!("/v1/Workspaces/{workspace}/Tasks"),
                );
                if let Some(status) = status {
                    url.query_pairs_mut()
                        .append_pair("AssignmentStatus", status.as_str());
                }
                let tasks = platform
                    .list(
                        &format!("workspace {workspace}'s tasks"),
                        url,
                        "tasks",
                        *limit as usize,
                    )
                    .await
                    .map_err(|e| e.to_string())?;
                print(&tasks, output, TASK_COLUMNS)
            }
        }
    })
}

fn platform() -> Result<Platform, String> {
    Platform::new(Settings::from_vars(|name| std::env::var(name).ok())?)
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| format!("cannot start: {err}"))
}

/// Columns of a listing: a header and the field it shows.
type Columns = &'static [(&'static str, &'static str)];

const CALL_COLUMNS: Columns = &[
    ("SID", "sid"),
    ("STATUS", "status"),
    ("DIRECTION", "direction"),
    ("FROM", "from"),
    ("TO", "to"),
    ("START", "start_time"),
    ("DURATION", "duration"),
];

const CALL_FIELDS: Columns = &[
    ("SID", "sid"),
    ("Status", "status"),
    ("Direction", "direction"),
    ("From", "from"),
    ("To", "to"),
    ("Started", "start_time"),
    ("Ended", "end_time"),
    ("Duration", "duration"),
    ("Answered by", "answered_by"),
    ("Parent", "parent_call_sid"),
];

const RECORDING_COLUMNS: Columns = &[
    ("SID", "sid"),
    ("STATUS", "status"),
    ("DURATION", "duration"),
    ("CREATED", "date_created"),
];

const EVENT_COLUMNS: Columns = &[
    ("URL", "request.url"),
    ("STATUS", "response.response_code"),
    ("TOOK (ms)", "response.request_duration"),
];

const TASK_COLUMNS: Columns = &[
    ("SID", "sid"),
    ("STATUS", "assignment_status"),
    ("WORKFLOW", "workflow_sid"),
    ("QUEUE", "task_queue_sid"),
    ("AGE (s)", "age"),
    ("CREATED", "date_created"),
];

/// Prints `items` as columns, or as JSON.
fn print(items: &[Value], output: &Output, cols: Columns) -> Result<ExitCode, String> {
    if output.json {
        let mut items = Value::Array(items.to_vec());
        if output.mask_pii {
            mask_value(&mut items);
        }
        write_out(&format!("{items:#}\n"))?;
    } else {
        write_out(&columns(items, cols, output.mask_pii))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The value of `path` (`a.b` for a nested field) in `item`, as text.
fn cell(item: &Value, path: &str, mask: bool) -> String {
    let value = path.split('.').fold(item, |value, key| &value[key]);
    let text = match value {
        Value::Null => "-".to_owned(),
        Value::String(text) if text.is_empty() => "-".to_owned(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    // One line per item, whatever the platform wrote.
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if mask {
        mask_phone(&text)
    } else {
        text
    }
}

/// Columns aligned on the widest cell, a header first.
fn columns(items: &[Value], cols: Columns, mask: bool) -> String {
    let rows: Vec<Vec<String>> = items
        .iter()
        .map(|item| {
            cols.iter()
                .map(|(_, path)| cell(item, path, mask))
                .collect()
        })
        .collect();
    let widths: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, (header, _))| {
            rows.iter()
                .map(|row| row[i].chars().count())
                .chain([header.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let mut line = |cells: Vec<&str>| {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                text.push_str(&format!("{cell:<width$}  ", width = widths[i]));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(cols.iter().map(|(header, _)| *header).collect());
    for row in &rows {
        line(row.iter().map(String::as_str).collect());
    }
    out
}

/// A phone number with all but its last four digits masked; anything
/// else as it is.
fn mask_phone(text: &str) -> String {
    let is_phone =
        text.starts_with('+') && text.len() >= 8 && text[1..].bytes().all(|b| b.is_ascii_digit());
    if !is_phone {
        return text.to_owned();
    }
    let keep = text.len() - 4;
    format!("+{}{}", "•".repeat(keep - 1), &text[keep..])
}

/// Masks every phone number in `value`.
fn mask_value(value: &mut Value) {
    match value {
        Value::String(text) => *text = mask_phone(text),
        Value::Array(items) => items.iter_mut().for_each(mask_value),
        Value::Object(map) => map.values_mut().for_each(mask_value),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn phone_numbers_are_masked_and_nothing_else() {
        assert_eq!(mask_phone("+15551230000"), "+•••••••0000");
        assert_eq!(mask_phone("+1555"), "+1555");
        assert_eq!(mask_phone("CA123"), "CA123");
        assert_eq!(mask_phone("+1 555 123"), "+1 555 123");
        let mut value = json!({"from": "+15551230000", "list": ["+445551230001", 3]});
        mask_value(&mut value);
        assert_eq!(
            value,
            json!({"from": "+•••••••0000", "list": ["+••••••••0001", 3]})
        );
    }

    #[test]
    fn columns_align_and_stay_on_one_line() {
        let items = [
            json!({"sid": "CA1", "status": "failed", "to": "+15551230000"}),
            json!({"sid": "CA22", "status": "line\nbreak", "to": null}),
        ];
        let cols: Columns = &[("SID", "sid"), ("STATUS", "status"), ("TO", "to")];
        assert_eq!(
            columns(&items, cols, true),
            "SID   STATUS      TO\nCA1   failed      +•••••••0000\nCA22  line break  -\n"
        );
    }

    #[test]
    fn arguments_are_checked() {
        assert!(date("2026-11-20").is_ok());
        assert!(date("2026-1-20").is_err());
        assert!(sid("CA")("CA0123456789abcdef0123456789abcdef").is_ok());
        let err = sid("CA")("WS0123456789abcdef0123456789abcdef").unwrap_err();
        assert!(err.contains("CA and 32 hex digits"), "{err}");
    }
}
