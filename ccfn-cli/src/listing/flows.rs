//! `ccfn flows`: the flows, their executions and steps (step 4).

use super::*;

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
