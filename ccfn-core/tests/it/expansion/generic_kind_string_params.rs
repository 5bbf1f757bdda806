// `kind = generic` needs no call parameters, and a parameter that is not a
// well-known one is written as a string.
use ccfn_core::function::{ContactFunction, Kind};
use ccfn_core::prelude::*;
use ccfn_core::{ErrorKind, Reply};

/// Looks up a customer's open tickets.
///
/// # Trigger
/// CRM webhook.
/// # Dependencies
/// CRM API
/// # Critical logging
/// None beyond the contract
/// # Contacts
/// crm-team@example.com
#[contact_fn(kind = generic, required = ["CustomerId"])]
async fn open_tickets(context: Context, event: Event, callback: Callback) -> Completion {
    let _ = context;
    let customer = event.get("CustomerId").unwrap_or_default().to_owned();
    callback.success(serde_json::json!({ "customer": customer, "open": 0 }))
}

#[test]
fn expands_and_runs() {
    assert_eq!(open_tickets::META.kind(), Kind::Generic);
    assert_eq!(open_tickets::META.required(), ["CustomerId"]);
    assert_eq!(open_tickets::META.name(), "open-tickets");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let event: Event = [("CustomerId", "C7")].into_iter().collect();
    let completion = runtime.block_on(open_tickets.invoke(Context::builder().build(), event));
    match completion.into_result() {
        Ok(Reply::Json(value)) => {
            assert_eq!(value, serde_json::json!({ "customer": "C7", "open": 0 }));
        }
        other => panic!("expected JSON, got {other:?}"),
    }

    // The string name is validated like any other.
    let completion =
        runtime.block_on(open_tickets.invoke(Context::builder().build(), Event::new()));
    let error = completion.into_result().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert_eq!(error.message(), "Missing required parameter: CustomerId");
}
