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
//!
//! Each command is a module ([`calls`], [`functions`], [`flows`],
//! [`tasks`], [`numbers`], [`account`]), with its arguments; [`layout`]
//! holds the columns and fields of each resource, [`output`] how a
//! listing is written.

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

mod account;
mod calls;
mod flows;
mod functions;
mod layout;
mod numbers;
mod output;
mod tasks;

pub(crate) use account::{run_account, AccountArgs};
pub(crate) use calls::{run_calls, CallsArgs};
pub(crate) use flows::{run_flows, FlowsArgs};
pub(crate) use functions::{run_functions, FunctionsArgs};
pub(crate) use numbers::{run_numbers, NumbersArgs};
pub(crate) use tasks::{run_tasks, TasksArgs};

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
