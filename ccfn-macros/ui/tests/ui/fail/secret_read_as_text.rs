// A declared secret read with `get` or `required`, which return plain
// text: each read is an error that names the method returning a `Secret`.
use ccfn_core::prelude::*;

/// Looks the caller up in the CRM.
///
/// # Trigger
/// Incoming call webhook.
/// # Dependencies
/// CRM
/// # Critical logging
/// None beyond the contract
/// # Contacts
/// contact-center-oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = [CRM_URL], secrets = [CRM_SESSION, "crmKey"])]
async fn lookup(ctx: Context, event: Event, callback: Callback) -> Completion {
    let _ = (ctx.get("CRM_URL"), event);
    let session = ctx.get("CRM_SESSION").unwrap_or_default();
    let key = if session.is_empty() { ctx.required("crmKey") } else { session };
    callback.success(key.len())
}

fn main() {}
