//! `ccfn calls`: the platform's calls (step 2), one with its recordings,
//! events and annotation.

use super::*;

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
