//! `ccfn tasks`: the task router's tasks, workflows and queues (step 5).

use super::*;

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
