//! Reads past what a function declares, as the testkit shows them: a
//! `declaration` warning in every invocation that makes the read, whatever
//! ran before in the process, with the nearest declared or platform name;
//! and `assert_contract` fails on it, naming the read, the function and
//! the fix.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ccfn_core::prelude::*;
use ccfn_testkit::{invoke, FakeContext, FakeEvent, Run};

/// Reads the caller's key press under a misspelt name.
///
/// # Trigger
/// The menu's Gather action.
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn menu(_context: Context, event: Event, callback: Callback) -> Completion {
    // Twice: one warning per invocation, not per read.
    let pressed = event.get("Digit").or_else(|| event.get("Digit"));
    callback.success(serde_json::json!({ "pressed": pressed }))
}

/// Reads the same misspelt name, as another function.
///
/// # Trigger
/// The menu's Gather action.
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To])]
async fn other_menu(_context: Context, event: Event, callback: Callback) -> Completion {
    let pressed = event.get("Digit");
    callback.success(serde_json::json!({ "pressed": pressed }))
}

/// Reads what it declares, and nothing else.
///
/// # Trigger
/// The menu's Gather action.
/// # Optional parameters
/// Digits
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = [CRM_URL])]
async fn declared(context: Context, event: Event, callback: Callback) -> Completion {
    let pressed = event.get("Digits");
    callback.success(serde_json::json!({ "pressed": pressed, "crm": context.get("CRM_URL") }))
}

/// Reads a parameter of the request's own and a value, both misspelt.
///
/// # Trigger
/// Test.
/// # Dependencies
/// None.
/// # Critical logging
/// None.
/// # Contacts
/// oncall@example.com
#[contact_fn(required = [CallSid, From, To], env = [CRM_URL])]
async fn misspelt(context: Context, event: Event, callback: Callback) -> Completion {
    let customer = event.get("CustomerID");
    let crm = context.get("CRM_UR");
    callback.success(serde_json::json!({ "customer": customer, "crm": crm }))
}

/// The `declaration` records of `run`: source, name, problem, message.
fn declarations(run: &Run) -> Vec<[String; 4]> {
    run.records_of("declaration")
        .into_iter()
        .map(|record| {
            assert_eq!(record["level"], "WARN");
            ["source", "name", "problem", "message"]
                .map(|field| record[field].as_str().unwrap().to_owned())
        })
        .collect()
}

const DIGIT: &str = "event.get(\"Digit\") reads a parameter `menu` does not declare: did you \
                     mean `Digits`? (a misspelt name is always None) If `Digit` is meant, list \
                     it in `required = [..]`, or under `# Optional parameters` in the doc comment";

fn digit_warning(function: &str) -> [String; 4] {
    [
        "event".to_owned(),
        "Digit".to_owned(),
        "undeclared".to_owned(),
        DIGIT.replace("`menu`", &format!("`{function}`")),
    ]
}

fn pressed() -> FakeEvent {
    FakeEvent::voice().param("Digits", "1")
}

#[tokio::test]
async fn the_same_undeclared_read_warns_in_every_invocation() {
    for _ in 0..2 {
        let run = invoke(menu, FakeContext::new(), pressed()).await;
        assert_eq!(declarations(&run), [digit_warning("menu")], "{run:?}");
        assert_eq!(run.json()["pressed"], serde_json::Value::Null);
    }
}

#[tokio::test]
async fn the_warning_does_not_depend_on_what_ran_before() {
    // Two functions reading the same name, in both orders: each run
    // shows its own warning, the same whichever ran first.
    let mut seen = Vec::new();
    for order in [[true, false], [false, true]] {
        let mut runs = Vec::new();
        for first in order {
            let run = if first {
                invoke(menu, FakeContext::new(), pressed()).await
            } else {
                invoke(other_menu, FakeContext::new(), pressed()).await
            };
            runs.push((first, declarations(&run)));
        }
        runs.sort();
        seen.push(runs);
    }
    assert_eq!(
        seen[0],
        [
            (false, vec![digit_warning("other-menu")]),
            (true, vec![digit_warning("menu")]),
        ]
    );
    assert_eq!(seen[0], seen[1]);
}

#[tokio::test]
async fn the_nearest_name_may_be_the_request_s_own_or_a_declared_value() {
    let run = invoke(
        misspelt,
        FakeContext::new().value("CRM_URL", "https://crm.example.com"),
        FakeEvent::voice().param("CustomerId", "C-7"),
    )
    .await;
    let messages: Vec<String> = declarations(&run).into_iter().map(|[.., m]| m).collect();
    assert_eq!(messages.len(), 2, "{messages:#?}");
    assert!(
        messages[0].starts_with("event.get(\"CustomerID\") reads a parameter `misspelt` does not declare: did you mean `CustomerId`?"),
        "{messages:#?}"
    );
    assert!(
        messages[1].starts_with("context.get(\"CRM_UR\") reads a value `misspelt` does not declare: did you mean `CRM_URL`?"),
        "{messages:#?}"
    );
}

#[tokio::test]
#[should_panic(expected = "did you mean `Digits`?")]
async fn assert_contract_fails_on_an_undeclared_read() {
    invoke(menu, FakeContext::new(), pressed())
        .await
        .assert_contract();
}

#[tokio::test]
async fn assert_contract_names_the_read_the_function_and_the_fix() {
    // Twice: the second run fails as the first, whatever ran before.
    for _ in 0..2 {
        let run = invoke(menu, FakeContext::new(), pressed()).await;
        let panic = catch_unwind(AssertUnwindSafe(|| run.assert_contract()))
            .expect_err("an undeclared read fails the contract");
        let message = panic.downcast_ref::<String>().expect("a formatted message");
        assert_eq!(
            *message,
            format!(
                "the run of `menu` reads past what `menu` declares; each read, with its fix:\n  \
                 - undeclared: {DIGIT}"
            )
        );
    }
}

#[tokio::test]
async fn assert_contract_passes_when_every_read_is_declared() {
    let run = invoke(
        declared,
        FakeContext::new().value("CRM_URL", "https://crm.example.com"),
        pressed(),
    )
    .await;
    assert_eq!(declarations(&run), Vec::<[String; 4]>::new());
    run.assert_contract();
    assert_eq!(run.json()["pressed"], "1");
}
