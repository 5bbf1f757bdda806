// Every option at once, including `crate = ".."` spelled as the default,
// and the optional `# Optional parameters` section.
use ccfn_core::function::{ContactFunction, Kind};
use ccfn_core::prelude::*;
use ccfn_core::Reply;

/// Creates the callback task for a caller who asked to be called back.
///
/// Longer explanation that is not part of the purpose.
///
/// # Trigger
/// Studio "Run Function" widget after the caller pressed 1.
/// # Optional parameters
/// mode (`callback`), FlowSid, ExecutionSid,
/// StepSid
/// # Dependencies
/// Task router
/// # Critical logging
/// Task creation result
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(
    required = [CallSid, From, "CustomerId"],
    env = [PLATFORM_WORKSPACE_SID, "workflowSid"],
    secrets = [CRM_SESSION],
    name = "callback-task",
    kind = task,
    timeout_ms = 2500,
    crate = "::ccfn_core",
)]
async fn create_callback(context: Context, event: Event, callback: Callback) -> Completion {
    let workflow = context.get("workflowSid").unwrap_or_default().to_owned();
    let customer = event.required("CustomerId").to_owned();
    let session = context.required_secret("CRM_SESSION").expose().len();
    callback.success(
        serde_json::json!({ "workflow": workflow, "customer": customer, "session": session }),
    )
}

#[test]
fn expands_and_runs() {
    let meta = create_callback::META;
    assert_eq!(meta.name(), "callback-task");
    assert_eq!(
        meta.purpose(),
        "Creates the callback task for a caller who asked to be called back."
    );
    assert_eq!(
        meta.trigger(),
        "Studio \"Run Function\" widget after the caller pressed 1."
    );
    assert_eq!(meta.required(), ["CallSid", "From", "CustomerId"]);
    assert_eq!(
        meta.optional(),
        "mode (`callback`), FlowSid, ExecutionSid, StepSid"
    );
    assert_eq!(meta.dependencies(), "Task router");
    assert_eq!(meta.critical_logging(), "Task creation result");
    assert_eq!(meta.contacts(), "contact-center-oncall@example.com");
    assert_eq!(meta.env(), ["PLATFORM_WORKSPACE_SID", "workflowSid"]);
    assert_eq!(meta.secrets(), ["CRM_SESSION"]);
    assert_eq!(meta.kind(), Kind::Task);
    assert_eq!(meta.timeout_ms(), 2500);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let event: Event = [
        ("CallSid", "CA1"),
        ("From", "+15550001"),
        ("CustomerId", "C7"),
    ]
    .into_iter()
    .collect();
    let context = Context::builder()
        .value("PLATFORM_WORKSPACE_SID", "WS1")
        .value("workflowSid", "WW1")
        .value("CRM_SESSION", "canary-session")
        .build();
    let completion = runtime.block_on(create_callback.invoke(context, event.clone()));
    match completion.into_result() {
        Ok(Reply::Json(value)) => {
            assert_eq!(
                value,
                serde_json::json!({ "workflow": "WW1", "customer": "C7", "session": 14 })
            );
        }
        other => panic!("expected JSON, got {other:?}"),
    }

    // `env` is checked at every invocation.
    let context = Context::builder().value("workflowSid", "WW1").build();
    let completion = runtime.block_on(create_callback.invoke(context, event));
    let error = completion.into_result().unwrap_err();
    assert_eq!(
        error.message(),
        "Missing required environment variable: PLATFORM_WORKSPACE_SID"
    );
}
