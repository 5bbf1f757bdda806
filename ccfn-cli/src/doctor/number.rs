//! The number's link: what answers a phone number, and the flow it runs.

use super::*;

/// How two webhook URLs compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Same {
    /// Byte for byte.
    Exactly,
    /// The same resource, written differently: each difference named.
    Nearly(Vec<String>),
    /// Two resources.
    Not,
}

/// Compares the URL a number calls with the flow's webhook URL: equal,
/// equal but for the scheme, a default port written out or a trailing
/// slash (each named), or different.
pub(super) fn compare_urls(called: &str, expected: &str) -> Same {
    if called == expected {
        return Same::Exactly;
    }
    let (Ok(a), Ok(b)) = (Url::parse(called), Url::parse(expected)) else {
        return Same::Not;
    };
    if a.host_str() != b.host_str()
        || a.port() != b.port()
        || a.query() != b.query()
        || a.username() != b.username()
        || a.path().trim_end_matches('/') != b.path().trim_end_matches('/')
    {
        return Same::Not;
    }
    let mut differences = Vec::new();
    if a.scheme() != b.scheme() {
        differences.push(format!(
            "the scheme: {}:// where the flow's is {}://",
            a.scheme(),
            b.scheme()
        ));
    }
    let written = |raw: &str, url: &Url| {
        let authority = raw.split_once("://").map_or("", |(_, rest)| {
            rest.split(['/', '?', '#']).next().unwrap_or("")
        });
        url.port_or_known_default()
            .filter(|port| url.port().is_none() && authority.ends_with(&format!(":{port}")))
    };
    match (written(called, &a), written(expected, &b)) {
        (Some(port), None) => {
            differences.push(format!(
                "the default port :{port}, written out in the number's"
            ));
        }
        (None, Some(port)) => {
            differences.push(format!(
                "the default port :{port}, written out in the flow's"
            ));
        }
        _ => {}
    }
    let slash = |raw: &str| raw.split(['?', '#']).next().unwrap_or("").ends_with('/');
    if slash(called) != slash(expected) {
        differences.push(if slash(called) {
            "a trailing slash the flow's has not".to_owned()
        } else {
            "no trailing slash where the flow's has one".to_owned()
        });
    }
    if differences.is_empty() {
        // What is left is what URL parsing normalises (case, escapes).
        differences.push("its spelling (case or escapes)".to_owned());
    }
    Same::Nearly(differences)
}

/// The number's link: what answers `number`, and the flow it runs.
pub(super) async fn number_link(
    platform: &Platform,
    number: &str,
    report: &mut Report,
) -> Option<Flow> {
    let (number, found) = incoming_number(platform, number, report).await?;
    let shown = report.phone(&number);
    let answered_by = found.handler();
    let voice_url = voice_url_of(platform, &found, &shown, &answered_by, report).await?;
    let (flow_sid, flow) = flow_at(platform, &voice_url, &shown, &answered_by, report).await?;
    let check = url_check(&flow, flow_sid, &voice_url, &shown, answered_by, report)?;
    if !report.add(check) {
        return None;
    }
    if flow_state(&flow, report) {
        Some(flow)
    } else {
        None
    }
}

/// `number` in E.164 and the account's incoming number that is exactly
/// it; a failed check when it is not a phone number or not the account's.
async fn incoming_number(
    platform: &Platform,
    number: &str,
    report: &mut Report,
) -> Option<(String, IncomingNumber)> {
    let number = match e164(number) {
        Ok(number) => number,
        Err(err) => {
            let shown = report.phone(number);
            report.add(
                Check::new(Mark::Failed, format!("Number {shown}"))
                    .detail(err)
                    .fix("Give the number in E.164 (+15559870000). A call to or from a SIP address or a client is not answered by a phone number: check the SIP domain or the client's application instead."),
            );
            return None;
        }
    };
    let shown = report.phone(&number);
    // `PhoneNumber` matches partially (and `*` is any digit): the list
    // holds every number that contains it; only an exact one is it.
    let path = "/2010-04-01/Accounts/{account}/IncomingPhoneNumbers.json";
    let mut url = platform.url(Product::Api, path);
    url.query_pairs_mut().append_pair("PhoneNumber", &number);
    let numbers: Vec<IncomingNumber> = match resources::list(
        platform,
        "incoming phone numbers",
        url,
        "incoming_phone_numbers",
        1000,
    )
    .await
    {
        Ok(numbers) => numbers,
        Err(err) => {
            report.add(Check::new(Mark::Failed, format!("Number {shown}")).detail(err.to_string()));
            return None;
        }
    };
    let at = numbers.iter().position(|n| {
        n.phone_number
            .as_deref()
            .is_some_and(|p| e164(p).is_ok_and(|p| p == number))
    });
    let Some(at) = at else {
        let mut check = Check::new(
            Mark::Failed,
            format!("Number {shown} is not one of this account's"),
        );
        for other in numbers.iter().take(5) {
            check = check.detail(format!(
                "the platform matched {} partially: not this number",
                report.phone(other.phone_number.as_deref().unwrap_or("-"))
            ));
        }
        report.add(check.fix(
            "Check the number (every digit) and ACCOUNT_SID: the number may belong to another account (or a subaccount).",
        ));
        return None;
    };
    let mut numbers = numbers;
    Some((number, numbers.swap_remove(at)))
}

/// The URL the number's calls go to: its voice URL, or its application's;
/// a failed check when a SIP trunk takes them or the application cannot
/// be read.
async fn voice_url_of(
    platform: &Platform,
    found: &IncomingNumber,
    shown: &str,
    answered_by: &str,
    report: &mut Report,
) -> Option<String> {
    if let Some(trunk) = text(&found.trunk_sid) {
        report.add(
            Check::new(Mark::Failed, format!("Number {shown} answers with trunk {trunk}, not a flow"))
                .detail("a SIP trunk takes its calls: the flow and the functions are not reached")
                .fix("Take the number off the trunk and point its voice URL at the flow's webhook URL (ccfn flows list)."),
        );
        return None;
    }
    let Some(app) = text(&found.voice_application_sid) else {
        return Some(text(&found.voice_url).unwrap_or_default().to_owned());
    };
    let Some(app) = path_sid("AP", app) else {
        report.add(
            Check::new(
                Mark::Failed,
                format!("Number {shown} answers with {answered_by}"),
            )
            .detail(not_a_sid("the number's application", app, "AP")),
        );
        return None;
    };
    let path = format!("/2010-04-01/Accounts/{{account}}/Applications/{app}.json");
    match resources::fetch::<Application>(
        platform,
        &format!("application {app}"),
        Product::Api,
        &path,
    )
    .await
    {
        Ok(app) => Some(text(&app.voice_url).unwrap_or_default().to_owned()),
        Err(err) => {
            report.add(
                Check::new(
                    Mark::Failed,
                    format!("Number {shown} answers with {answered_by}"),
                )
                .detail(err.to_string()),
            );
            None
        }
    }
}

/// The flow whose webhook `voice_url` is, read; a failed check (with the
/// flows' webhook URLs) when it is no flow's, or when the flow cannot be
/// read.
async fn flow_at<'u>(
    platform: &Platform,
    voice_url: &'u str,
    shown: &str,
    answered_by: &str,
    report: &mut Report,
) -> Option<(&'u str, Flow)> {
    let Some(flow_sid) = flow_in(voice_url) else {
        let flows: Vec<Flow> =
            resources::list_at(platform, "flows", Product::Studio, "/v2/Flows", "flows", 50)
                .await
                .unwrap_or_default();
        let mut check = Check::new(
            Mark::Failed,
            format!("Number {shown} is not pointed at a flow"),
        )
        .detail(format!("its calls go to {answered_by}"));
        for flow in &flows {
            if let Some(hook) = text(&flow.webhook_url) {
                check = check.detail(format!(
                    "a flow's webhook URL: {hook} ({})",
                    text(&flow.friendly_name).unwrap_or("-")
                ));
            }
        }
        report.add(check.fix(
            "Point the number's voice URL (or its application's) at the flow's webhook URL, \
             method POST: Phone Numbers › the number › Voice configuration.",
        ));
        return None;
    };
    let path = format!("/v2/Flows/{flow_sid}");
    match resources::fetch(
        platform,
        &format!("flow {flow_sid}"),
        Product::Studio,
        &path,
    )
    .await
    {
        Ok(flow) => Some((flow_sid, flow)),
        Err(err) => {
            let check = Check::new(
                Mark::Failed,
                format!("Number {shown} answers with flow {flow_sid}, which cannot be read"),
            )
            .detail(err.to_string());
            let check = if err.status == Some(404) {
                check.fix("The flow was deleted or belongs to another account: point the number at the flow in use.")
            } else {
                check
            };
            report.add(check);
            None
        }
    }
}

/// The check of the number's voice URL against the flow's webhook URL:
/// passed when the same, a warning when written differently; a failed
/// check is added, and `None` returned, when it is another URL.
fn url_check(
    flow: &Flow,
    flow_sid: &str,
    voice_url: &str,
    shown: &str,
    answered_by: String,
    report: &mut Report,
) -> Option<Check> {
    let name = text(&flow.friendly_name).unwrap_or("-");
    let expected = text(&flow.webhook_url).unwrap_or_default();
    let same = if expected.is_empty() {
        Same::Exactly
    } else {
        compare_urls(voice_url, expected)
    };
    match same {
        Same::Exactly => Some(
            Check::new(
                Mark::Passed,
                format!("Number {shown} answers with flow {flow_sid} “{name}”"),
            )
            .detail(answered_by),
        ),
        Same::Nearly(differences) => {
            let mut check = Check::new(
                Mark::Warning,
                format!("Number {shown} answers with flow {flow_sid} “{name}”, at a URL written differently"),
            )
            .detail(format!("its voice URL:          {voice_url}"))
            .detail(format!("the flow's webhook URL: {expected}"));
            for difference in differences {
                check = check.detail(format!("they differ in {difference}"));
            }
            Some(check.fix("Set the number's voice URL to the flow's webhook URL exactly."))
        }
        Same::Not => {
            report.add(
                Check::new(
                    Mark::Failed,
                    format!("Number {shown} calls a stale URL for flow {flow_sid}"),
                )
                .detail(format!("its voice URL:          {voice_url}"))
                .detail(format!("the flow's webhook URL: {expected}"))
                .fix("Set the number's voice URL to the flow's webhook URL exactly."),
            );
            None
        }
    }
}

/// The flow itself: published and valid; whether to go on.
fn flow_state(flow: &Flow, report: &mut Report) -> bool {
    let sid = flow.sid.as_deref().unwrap_or("-");
    let revision = flow.revision;
    if flow.status != "published" {
        let check = Check::new(Mark::Failed, format!("Flow {sid} is in {}, not published", flow.status))
            .detail(format!("revision {revision}"))
            .fix("Publish the flow (Studio › the flow › Publish): calls run its published revision only.");
        return report.add(check);
    }
    match flow.valid {
        Some(false) => {
            let mut check = Check::new(
                Mark::Failed,
                format!("Flow {sid} is published but not valid"),
            );
            for error in flow.error_messages() {
                check = check.detail(error);
            }
            report.add(check.fix(
                "Fix what the errors name (a widget's webhook URL, a missing transition), then publish.",
            ))
        }
        Some(true) => report.add(
            Check::new(Mark::Passed, format!("Flow {sid} is published and valid"))
                .detail(format!("revision {revision}")),
        ),
        None => report.add(
            Check::new(
                Mark::Warning,
                format!("Flow {sid} is published; its validity is not known"),
            )
            .detail("the platform's answer has no `valid` for it"),
        ),
    }
}

/// `ccfn doctor --number`.
pub(super) async fn follow_number(platform: &Platform, number: &str, report: &mut Report) {
    number_link(platform, number, report).await;
}
