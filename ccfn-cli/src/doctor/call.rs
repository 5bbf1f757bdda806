//! `ccfn doctor --call`: the call, its number and flow, the flow's
//! execution and the function widget it reached, the function's side and
//! the platform's answers to the call's webhooks.

use super::*;

/// `ccfn doctor --call`.
pub(super) async fn follow_call(
    platform: &Platform,
    call: &str,
    logs: &[String],
    report: &mut Report,
) {
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
pub(super) fn call_days(call: &Call) -> Option<(String, String)> {
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
pub(super) fn reached<'a>(
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
pub(super) fn path_taken(steps: &[Step]) -> String {
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
pub(super) fn tree(verdict: &Value, widget_url: &str, report: &mut Report) -> bool {
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
