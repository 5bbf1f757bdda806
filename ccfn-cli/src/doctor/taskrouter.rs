//! The task router's link: the workflow, its routing and the task the
//! function created (or failed to).

use super::*;

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
pub(super) async fn task(platform: &Platform, records: &[Record], report: &mut Report) -> bool {
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
    if let (Some(queue), Some(sids)) = (queue, &queue_sids)
        && !routes.iter().any(|q| {
            sids.iter()
                .any(|sid| q.trim_end_matches(" (default)") == sid)
        })
    {
        return Err(report.add(
                Check::new(Mark::Failed, format!("Workflow {workflow} does not route to queue {queue}"))
                    .detail(format!("the function expects queue {queue}; the workflow routes to {routes_text}"))
                    .fix("Make the workflow target the queue the function names, or the function name the workflow's queue."),
            ));
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
