//! `ccfn functions`: the serverless services' functions, environments and
//! logs (step 3).

use super::*;

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
