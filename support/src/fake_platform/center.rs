//! The SIDs and numbers of the contact center [`FakePlatform::contact_center`](super::FakePlatform::contact_center)
//! sets up: a number answered by a flow, whose function widget calls the
//! example wait experience; one call through it, yesterday (UTC); a
//! task-router workspace with a callback workflow and its queue. Every
//! item has every field of its definition in the platform's published
//! API definitions, dates as each product writes them (RFC 2822 in the
//! 2010 API, ISO 8601 elsewhere).

use std::time::{SystemTime, UNIX_EPOCH};

/// The call.
pub const CALL: &str = "CAd0c70000000000000000000000000001";
/// Who called.
pub const CALLER: &str = "+15551230000";
/// The number called.
pub const NUMBER: &str = "+15559870000";
/// The number's SID.
pub const NUMBER_SID: &str = "PNd0c70000000000000000000000000001";
/// Another number of the account, one digit away from [`NUMBER`]: the
/// sales line, not pointed at the flow.
pub const SALES_NUMBER: &str = "+15559870001";
/// The sales line's SID.
pub const SALES_NUMBER_SID: &str = "PNd0c70000000000000000000000000002";
/// The voice URL of the sales line (and of [`NUMBER`] when it is not
/// on the flow).
pub const OLD_VOICE_URL: &str = "https://cc-old.example.com/voice";
/// The flow the number runs.
pub const FLOW: &str = "FWd0c70000000000000000000000000001";
/// The flow's execution for the call.
pub const EXECUTION: &str = "FNd0c70000000000000000000000000001";
/// The step that entered the function widget (`incomingCall`, from
/// the trigger).
pub const STEP_INTO_WIDGET: &str = "FTd0c70000000000000000000000000001";
/// The step that left the function widget (`success`): its context
/// holds the function's answer.
pub const STEP_OUT_OF_WIDGET: &str = "FTd0c70000000000000000000000000002";
/// The flow's function widget.
pub const WIDGET: &str = "wait_experience";
/// The URL the function widget calls.
pub const FUNCTION_URL: &str =
    "https://cc.example.com/features/callback-and-voicemail-with-email/studio/wait-experience";
/// The task-router workspace.
pub const WORKSPACE: &str = "WSd0c70000000000000000000000000001";
/// The workspace's friendly name.
pub const WORKSPACE_NAME: &str = "Contact center";
/// Another environment's workspace of the account (staging's).
pub const STAGING_WORKSPACE: &str = "WSd0c700000000000000000000005a6e01";
/// The staging workspace's friendly name.
pub const STAGING_WORKSPACE_NAME: &str = "Contact center (staging)";
/// The workflow callbacks are created in.
pub const WORKFLOW: &str = "WWd0c70000000000000000000000000001";
/// Another environment's workflow (staging's): in
/// [`STAGING_WORKSPACE`], unknown in [`WORKSPACE`].
pub const STAGING_WORKFLOW: &str = "WWd0c700000000000000000000005a6e01";
/// The queue callbacks must land in.
pub const QUEUE: &str = "WQd0c70000000000000000000000000001";
/// Another queue.
pub const OTHER_QUEUE: &str = "WQd0c70000000000000000000000000002";

/// The flow's webhook URL: what the number must call.
#[must_use]
pub fn flow_webhook() -> String {
    format!(
        "https://webhooks.twilio.com/v1/Accounts/{}/Flows/{FLOW}",
        super::ACCOUNT_SID
    )
}

/// The day of the call, `YYYY-MM-DD`: yesterday in UTC, so that the
/// call is always within the platform's 30 days of alerts.
#[must_use]
pub fn day() -> String {
    let (year, month, day) = civil(yesterday());
    format!("{year:04}-{month:02}-{day:02}")
}

/// The day after the call's day, `YYYY-MM-DD`.
#[must_use]
pub fn day_after() -> String {
    let (year, month, day) = civil(yesterday() + 1);
    format!("{year:04}-{month:02}-{day:02}")
}

/// `time` (`HH:MM:SS`) on the call's day as the 2010 API writes
/// dates (RFC 2822): `Wed, 25 Nov 2026 10:00:00 +0000`.
#[must_use]
pub fn rfc2822(time: &str) -> String {
    rfc2822_of(yesterday(), time)
}

/// `time` on a day (days since 1970-01-01) as RFC 2822 writes it.
pub(super) fn rfc2822_of(days: i64, time: &str) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (year, month, day) = civil(days);
    let weekday = DAYS[usize::try_from(days.rem_euclid(7)).unwrap_or(0)];
    let month = MONTHS[usize::try_from(month - 1).unwrap_or(0)];
    format!("{weekday}, {day:02} {month} {year} {time} +0000")
}

/// `time` (`HH:MM:SS`) on the call's day as the newer APIs write
/// dates (ISO 8601): `2026-11-25T10:00:00Z`.
#[must_use]
pub fn iso(time: &str) -> String {
    format!("{}T{time}Z", day())
}

/// Days since 1970-01-01 of yesterday, in UTC.
fn yesterday() -> i64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    i64::try_from(now / 86_400).unwrap_or(0) - 1
}

/// (year, month, day) of a number of days since 1970-01-01.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}
