//! The platform's alerts that name the call, the flow or the function.

use super::*;

/// How far back the platform's alerts can be queried, in days.
pub(crate) const ALERT_DAYS: i64 = 30;

/// Whether the day `day` (`YYYY-MM-DD`) is further back than the
/// platform's alerts can be queried, on `today`.
pub(crate) fn past_alerts(day: &str, today: &str) -> bool {
    crate::when::days_between(day, today).is_some_and(|days| days > ALERT_DAYS)
}

/// Alerts that name any of `names`, over `days` (the first day, and the
/// day after the last) when given.
pub(super) async fn alerts(
    platform: &Platform,
    names: &[&str],
    days: Option<(String, String)>,
    report: &mut Report,
) {
    let mut url = platform.url(Product::Monitor, "/v1/Alerts");
    if let Some((first, after)) = &days {
        if past_alerts(first, &crate::when::today()) {
            report.add(
                Check::new(Mark::Skipped, "Alerts are not checked")
                    .detail(format!("the call is of {first}: the platform's alerts cannot be queried further back than {ALERT_DAYS} days")),
            );
            return;
        }
        let query = &mut url.query_pairs_mut();
        query.append_pair("StartDate", &format!("{first}T00:00:00Z"));
        query.append_pair("EndDate", &format!("{after}T00:00:00Z"));
    }
    let found: Vec<Alert> = match resources::list(platform, "alerts", url, "alerts", 1000).await {
        Ok(found) => found,
        Err(err) => {
            report.add(Check::new(Mark::Warning, "Alerts").detail(err.to_string()));
            return;
        }
    };
    let naming: Vec<&Alert> = found
        .iter()
        .filter(|alert| names.iter().any(|name| alert.names(name)))
        .collect();
    if naming.is_empty() {
        report.add(Check::new(
            Mark::Passed,
            "No platform alert names the call, the flow or the function",
        ));
        return;
    }
    let mut check = Check::new(
        Mark::Warning,
        format!(
            "{} platform alert{} name the call, the flow or the function",
            naming.len(),
            if naming.len() == 1 { "" } else { "s" }
        ),
    );
    for alert in naming.iter().take(10) {
        check = check.detail(format!(
            "{} {} {}",
            alert.date_created.as_deref().unwrap_or("-"),
            alert.error_code.as_deref().unwrap_or("-"),
            alert.alert_text.as_deref().unwrap_or("-"),
        ));
    }
    report.add(check);
}

/// `YYYY-MM-DD` of the 2010 API's RFC 2822 dates.
pub(super) fn iso_day(date: &str) -> Option<String> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let parts: Vec<&str> = date.split_whitespace().collect();
    let [_, day, month, year, ..] = parts[..] else {
        return None;
    };
    let month = MONTHS.iter().position(|m| *m == month)? + 1;
    Some(format!("{year}-{month:02}-{:02}", day.parse::<u32>().ok()?))
}
