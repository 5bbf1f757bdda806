//! The lists the fake serves, and where.

use super::ACCOUNT_SID;

/// A list of the platform's resources, as the fake serves it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resource {
    /// The account's calls (2010 API, `calls`).
    Calls,
    /// A call's recordings (2010 API, `recordings`).
    Recordings {
        /// The call's SID.
        call: String,
    },
    /// A call's events: the platform's log of its webhooks' requests and
    /// responses (2010 API, `events`).
    CallEvents {
        /// The call's SID.
        call: String,
    },
    /// The account's phone numbers (2010 API, `incoming_phone_numbers`).
    IncomingPhoneNumbers,
    /// The account's applications (2010 API, `applications`).
    Applications,
    /// The account's API keys, metadata only (2010 API, `keys`).
    Keys,
    /// The account's usage records (2010 API, `usage_records`).
    UsageRecords,
    /// The flows (Studio v2, `flows`).
    Flows,
    /// A flow's executions (Studio v2, `executions`).
    Executions {
        /// The flow's SID.
        flow: String,
    },
    /// An execution's steps (Studio v2, `steps`).
    Steps {
        /// The flow's SID.
        flow: String,
        /// The execution's SID.
        execution: String,
    },
    /// The account's task-router workspaces (TaskRouter v1, `workspaces`).
    Workspaces,
    /// A workspace's tasks (TaskRouter v1, `tasks`).
    Tasks {
        /// The workspace's SID.
        workspace: String,
    },
    /// A workspace's workflows (TaskRouter v1, `workflows`).
    Workflows {
        /// The workspace's SID.
        workspace: String,
    },
    /// A workspace's task queues (TaskRouter v1, `task_queues`).
    TaskQueues {
        /// The workspace's SID.
        workspace: String,
    },
    /// The serverless services (Serverless v1, `services`).
    Services,
    /// A service's functions (Serverless v1, `functions`).
    Functions {
        /// The service's SID.
        service: String,
    },
    /// A service's environments (Serverless v1, `environments`).
    Environments {
        /// The service's SID.
        service: String,
    },
    /// An environment's logs (Serverless v1, `logs`).
    Logs {
        /// The service's SID.
        service: String,
        /// The environment's SID.
        environment: String,
    },
    /// The account's alerts (Monitor v1, `alerts`).
    Alerts,
}

impl Resource {
    /// The list's path on the fake, and the key its items are under.
    #[must_use]
    pub fn path(&self) -> (String, &'static str) {
        let account = format!("/2010-04-01/Accounts/{ACCOUNT_SID}");
        match self {
            Resource::Calls => (format!("{account}/Calls.json"), "calls"),
            Resource::Recordings { call } => (
                format!("{account}/Calls/{call}/Recordings.json"),
                "recordings",
            ),
            Resource::CallEvents { call } => {
                (format!("{account}/Calls/{call}/Events.json"), "events")
            }
            Resource::IncomingPhoneNumbers => (
                format!("{account}/IncomingPhoneNumbers.json"),
                "incoming_phone_numbers",
            ),
            Resource::Applications => (format!("{account}/Applications.json"), "applications"),
            Resource::Keys => (format!("{account}/Keys.json"), "keys"),
            Resource::UsageRecords => (format!("{account}/Usage/Records.json"), "usage_records"),
            Resource::Flows => ("/v2/Flows".to_owned(), "flows"),
            Resource::Executions { flow } => (format!("/v2/Flows/{flow}/Executions"), "executions"),
            Resource::Steps { flow, execution } => (
                format!("/v2/Flows/{flow}/Executions/{execution}/Steps"),
                "steps",
            ),
            Resource::Workspaces => ("/v1/Workspaces".to_owned(), "workspaces"),
            Resource::Tasks { workspace } => (format!("/v1/Workspaces/{workspace}/Tasks"), "tasks"),
            Resource::Workflows { workspace } => {
                (format!("/v1/Workspaces/{workspace}/Workflows"), "workflows")
            }
            Resource::TaskQueues { workspace } => (
                format!("/v1/Workspaces/{workspace}/TaskQueues"),
                "task_queues",
            ),
            Resource::Services => ("/v1/Services".to_owned(), "services"),
            Resource::Functions { service } => {
                (format!("/v1/Services/{service}/Functions"), "functions")
            }
            Resource::Environments { service } => (
                format!("/v1/Services/{service}/Environments"),
                "environments",
            ),
            Resource::Logs {
                service,
                environment,
            } => (
                format!("/v1/Services/{service}/Environments/{environment}/Logs"),
                "logs",
            ),
            Resource::Alerts => ("/v1/Alerts".to_owned(), "alerts"),
        }
    }
}
