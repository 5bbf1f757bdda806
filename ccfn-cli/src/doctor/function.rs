//! `ccfn doctor --function`: the flows that call a function, its records
//! and the alerts that name it.

use super::*;

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
pub(super) async fn follow_function(
    platform: &Platform,
    name: &str,
    logs: &[String],
    report: &mut Report,
) {
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
