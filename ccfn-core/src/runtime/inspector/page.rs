//! The inspector's pages, rendered on the server as plain HTML: every
//! value escaped, nothing from outside the binary.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use serde::Deserialize;

use super::hears::{self, Heard};
use super::store::{Recorded, Transcript};
use crate::secret::REDACTED;

/// Where the inspector is served.
pub(super) const ROOT: &str = "/__ccfn/inspector";

/// The most links to calls' pages a list filtered by a call shows.
pub(super) const CALL_LINKS: usize = 20;

/// A function the inspector knows: for the filter, for the URLs of voice
/// markup, and for replays.
pub(crate) struct Route {
    pub(super) name: &'static str,
    pub(super) url_path: String,
    pub(super) public: bool,
}

/// The list's filters, from its query string.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Filter {
    pub(super) function: Option<String>,
    pub(super) outcome: Option<String>,
    pub(super) call: Option<String>,
}

impl Filter {
    /// Blank values filter nothing.
    pub(super) fn normalized(self) -> Filter {
        let keep = |v: Option<String>| v.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        Filter {
            function: keep(self.function),
            outcome: keep(self.outcome),
            call: keep(self.call),
        }
    }

    pub(super) fn accepts(&self, recorded: &Recorded) -> bool {
        let outcome = recorded.outcome_label();
        self.function
            .as_deref()
            .is_none_or(|f| f == recorded.function)
            && self.outcome.as_deref().is_none_or(|o| o == outcome)
            && self.call.as_deref().is_none_or(|c| {
                recorded
                    .call_sid
                    .as_deref()
                    .is_some_and(|sid| sid.to_ascii_lowercase().contains(&c.to_ascii_lowercase()))
            })
    }

    /// The filters as a query string (`?function=..`), or nothing.
    pub(super) fn query_string(&self) -> String {
        let mut query = form_urlencoded::Serializer::new(String::new());
        for (name, value) in [
            ("function", &self.function),
            ("outcome", &self.outcome),
            ("call", &self.call),
        ] {
            if let Some(value) = value {
                query.append_pair(name, value);
            }
        }
        let query = query.finish();
        if query.is_empty() {
            query
        } else {
            format!("?{query}")
        }
    }
}

/// `text` with HTML's special characters escaped, for text and for
/// attribute values in double quotes.
pub(super) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` percent-encoded for a query string.
fn query_value(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A whole page around `body`.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{title} · ccfn inspector</title>\
<link rel=\"stylesheet\" href=\"{ROOT}/inspector.css\">\
<script src=\"{ROOT}/inspector.js\" defer></script></head>\
<body><header><a href=\"{ROOT}\" class=\"brand\">ccfn inspector</a></header><main>{body}</main></body></html>\n",
        title = esc(title)
    )
}

/// The outcome's badge.
fn outcome(recorded: &Recorded) -> String {
    let outcome = recorded.outcome_label();
    format!(
        "<span class=\"outcome {class}\">{text}</span>",
        class = esc(outcome),
        text = esc(outcome)
    )
}

fn duration(recorded: &Recorded) -> String {
    recorded
        .execution_ms
        .map_or_else(String::new, |ms| format!("{ms:.1} ms"))
}

/// The time of day of a record's timestamp (`10:00:00.123`).
fn time_of_day(timestamp: &str) -> &str {
    timestamp
        .split_once('T')
        .map_or(timestamp, |(_, time)| time.trim_end_matches('Z'))
}

/// Milliseconds since midnight of an RFC 3339 UTC timestamp.
fn millis(timestamp: &str) -> Option<i64> {
    let time = time_of_day(timestamp);
    let mut parts = time.split([':', '.']);
    let mut next = || parts.next().and_then(|p| p.parse::<i64>().ok());
    let (h, m, s, ms) = (next()?, next()?, next()?, next().unwrap_or(0));
    Some(((h * 60 + m) * 60 + s) * 1000 + ms)
}

fn invocation_href(id: &str) -> String {
    format!("{ROOT}/invocations/{}", query_value(id))
}

/// `text` percent-encoded as one segment of a path: every byte but ASCII
/// letters, digits, `-`, `_` and `.`.
fn path_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.') {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// The page of a call.
pub(super) fn call_href(call_sid: &str) -> String {
    format!("{ROOT}/calls/{}", path_segment(call_sid))
}

/// One row of the list; `transcript` says whether a call has a simulated
/// transcript, which the row then links to.
pub(super) fn row(recorded: &Recorded, transcript: impl Fn(&str) -> bool) -> String {
    let call = recorded
        .call_sid
        .as_deref()
        .map_or_else(String::new, |call| {
            let mut cell = format!(
                "<a href=\"{ROOT}?call={}\">{}</a>",
                query_value(call),
                esc(call)
            );
            if transcript(call) {
                let _ = write!(
                    cell,
                    " <a class=\"has-transcript\" href=\"{}\" title=\"the call's simulated transcript beside its invocations\">transcript</a>",
                    call_href(call)
                );
            }
            cell
        });
    let mut replay = String::new();
    if let Some(of) = &recorded.replay_of {
        let _ = write!(
            replay,
            " <a class=\"replay-of\" href=\"{}\" title=\"the invocation this one replays\">replay</a>",
            invocation_href(of)
        );
    }
    format!(
        "<tr id=\"inv-{id}\" data-seq=\"{seq}\"><td>{time}</td>\
<td><a href=\"{href}\">{function}</a>{replay}</td>\
<td class=\"sid\">{call}</td>\
<td>{mode}</td><td>{outcome}</td><td class=\"num\">{duration}</td><td class=\"err\">{error}</td></tr>",
        id = esc(&recorded.id),
        seq = recorded.seq,
        time = esc(time_of_day(&recorded.started)),
        href = invocation_href(&recorded.id),
        function = esc(&recorded.function),
        mode = esc(recorded.mode.as_deref().unwrap_or("")),
        outcome = outcome(recorded),
        duration = duration(recorded),
        error = esc(recorded.first_error.as_deref().unwrap_or("")),
    )
}

/// What the list page shows.
pub(super) struct ListPage<'a> {
    pub(super) filter: &'a Filter,
    /// The rows, newest first.
    pub(super) rows: &'a [Recorded],
    pub(super) functions: &'a [&'a str],
    pub(super) capacity: usize,
    /// Whether the log filter leaves out `INFO` records of the contract.
    pub(super) filtered: bool,
    /// The newest invocation's order number when the rows were read.
    pub(super) last_seq: u64,
    /// The process's mark, for the live list.
    pub(super) epoch: u64,
    /// The calls a list filtered by a call links to.
    pub(super) calls: &'a [&'a str],
    /// Whether a call has a simulated transcript.
    pub(super) transcript: &'a dyn Fn(&str) -> bool,
}

/// The list of recent invocations, newest first, with its filters.
pub(super) fn list(list: &ListPage<'_>) -> String {
    let ListPage {
        filter,
        rows,
        functions,
        capacity,
        filtered,
        last_seq,
        epoch,
        calls,
        transcript,
    } = *list;
    let mut body = String::new();
    let _ = write!(
        body,
        "<h1>Recent invocations</h1>\
<form class=\"filters\" method=\"get\" action=\"{ROOT}\">\
<label>Function <select name=\"function\"><option value=\"\">any</option>"
    );
    for name in functions {
        let selected = if filter.function.as_deref() == Some(*name) {
            " selected"
        } else {
            ""
        };
        let _ = write!(body, "<option{selected}>{}</option>", esc(name));
    }
    body.push_str(
        "</select></label><label>Outcome <select name=\"outcome\"><option value=\"\">any</option>",
    );
    for name in ["running", "success", "error", "rejected", "unknown"] {
        let selected = if filter.outcome.as_deref() == Some(name) {
            " selected"
        } else {
            ""
        };
        let _ = write!(body, "<option{selected}>{name}</option>");
    }
    let _ = write!(
        body,
        "</select></label><label>Call <input name=\"call\" placeholder=\"CA…\" value=\"{}\"></label>\
<button type=\"submit\">Filter</button></form>{calls}\
<p class=\"note\"><span id=\"live\" class=\"live\">not live</span> The last {capacity} invocations are kept in memory, newest first; the records are those the log writes, scrubbed alike.</p>{partial}\
<table class=\"invocations\"><thead><tr><th>Time (UTC)</th><th>Function</th><th>Call</th><th>Mode</th><th>Outcome</th><th>Duration</th><th>First error</th></tr></thead>\
<tbody id=\"invocations\" data-capacity=\"{capacity}\" data-epoch=\"{epoch}\" data-events=\"{ROOT}/events{query}\">",
        esc(filter.call.as_deref().unwrap_or("")),
        query = esc(&{
            let query = filter.query_string();
            let joiner = if query.is_empty() { '?' } else { '&' };
            format!("{query}{joiner}after={last_seq}")
        }),
        calls = call_links(calls, transcript),
        partial = if filtered {
            "<p class=\"first-error\">CCFN_LOG leaves out ccfn's INFO records, so this page lacks them too: it lists only invocations that wrote a warning or an error, without their start and end (outcome <code>unknown</code>). Set CCFN_LOG=info to see every invocation.</p>"
        } else {
            ""
        },
    );
    for recorded in rows {
        body.push_str(&row(recorded, transcript));
    }
    body.push_str("</tbody></table>");
    if rows.is_empty() {
        body.push_str("<p id=\"empty\" class=\"note\">No invocation yet. Call a function and it appears here.</p>");
    }
    page("Recent invocations", &body)
}

/// The links of a list filtered by a call to the pages of the calls it
/// shows.
fn call_links(calls: &[&str], transcript: &dyn Fn(&str) -> bool) -> String {
    if calls.is_empty() {
        return String::new();
    }
    let mut out = String::from("<p class=\"calls\">The whole call, its invocations in order beside its simulated transcript: ");
    for (at, call) in calls.iter().enumerate() {
        let _ = write!(
            out,
            "{}<a href=\"{}\">{}</a>{}",
            if at == 0 { "" } else { ", " },
            call_href(call),
            esc(call),
            if transcript(call) {
                " (transcript)"
            } else {
                ""
            }
        );
    }
    out.push_str("</p>");
    out
}

/// The fields of a record besides those every record has.
fn own_fields(record: &Map<String, Value>) -> Map<String, Value> {
    record
        .iter()
        .filter(|(key, _)| {
            !matches!(
                key.as_str(),
                "timestamp"
                    | "level"
                    | "function"
                    | "invocation_id"
                    | "call_sid"
                    | "step"
                    | "message"
            )
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn text<'a>(record: &'a Map<String, Value>, key: &str) -> &'a str {
    record.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A value as text: strings as they are, anything else as JSON.
fn show(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A record as its message and its own fields.
fn card(record: &Map<String, Value>) -> String {
    let mut out = format!(
        "<div class=\"card {level}\"><p><span class=\"step\">{step}</span> {message}</p><dl>",
        level = esc(&text(record, "level").to_ascii_lowercase()),
        step = esc(text(record, "step")),
        message = esc(text(record, "message")),
    );
    for (key, value) in own_fields(record) {
        let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", esc(&key), esc(&show(&value)));
    }
    out.push_str("</dl></div>");
    out
}

/// The timeline: every record, with the time since the first and since
/// the one before.
fn timeline(recorded: &Recorded) -> String {
    let first = recorded
        .lines
        .first()
        .and_then(|l| millis(text(l, "timestamp")));
    let mut previous = first;
    let mut out = String::from(
        "<table class=\"timeline\"><thead><tr><th>+ms</th><th>Δ ms</th><th>Level</th><th>Step</th><th>Message and fields</th></tr></thead><tbody>",
    );
    for line in &recorded.lines {
        let at = millis(text(line, "timestamp"));
        // Across midnight the clock starts over; a held debug line,
        // written after the record before it, keeps its own earlier time.
        let since = |from: Option<i64>| match (at, from) {
            (Some(at), Some(from)) => {
                let mut ms = at - from;
                if ms < -43_200_000 {
                    ms += 86_400_000;
                }
                ms.to_string()
            }
            _ => String::new(),
        };
        let fields = own_fields(line);
        let details = if fields.is_empty() {
            String::new()
        } else {
            format!(
                "<details><summary>{} field{}</summary><pre>{}</pre></details>",
                fields.len(),
                if fields.len() == 1 { "" } else { "s" },
                esc(&serde_json::to_string_pretty(&fields).unwrap_or_default())
            )
        };
        let level = text(line, "level");
        let _ = write!(
            out,
            "<tr class=\"{class}\"><td class=\"num\">{plus}</td><td class=\"num\">{delta}</td><td>{level}</td><td class=\"step\">{step}</td><td>{message}{details}</td></tr>",
            class = esc(&level.to_ascii_lowercase()),
            plus = since(first),
            delta = since(previous),
            level = esc(level),
            step = esc(text(line, "step")),
            message = esc(text(line, "message")),
        );
        previous = at;
    }
    out.push_str("</tbody></table>");
    if recorded.not_kept > 0 {
        let _ = write!(
            out,
            "<p class=\"note\">{} later records were not kept: an invocation keeps at most {} KiB of records here (the log has them all).</p>",
            recorded.not_kept,
            super::store::INVOCATION_BYTES / 1024
        );
    }
    out
}

/// The function a URL of a verb leads to, if it is one of ours.
fn route_of<'r>(url: &str, routes: &'r [Route]) -> Option<(&'r Route, &'r str, String)> {
    let path_and_query = match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |at| &rest[at..]),
        None => url,
    };
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    routes
        .iter()
        .find(|route| route.url_path == path)
        .map(|route| (route, route.name, query.to_owned()))
}

fn leads_to(url: &str, routes: &[Route], call: Option<&str>) -> String {
    let mut out = format!("<p class=\"leads\">→ <code>{}</code>", esc(url));
    if let Some((_, name, query)) = route_of(url, routes) {
        let mut href = format!("{ROOT}?function={}", query_value(name));
        if let Some(call) = call {
            let _ = write!(href, "&call={}", query_value(call));
        }
        let _ = write!(
            out,
            " the function <a href=\"{}\">{}</a>{}",
            esc(&href),
            esc(name),
            if query.is_empty() {
                String::new()
            } else {
                format!(" with <code>{}</code>", esc(&query))
            }
        );
    }
    out.push_str("</p>");
    out
}

fn heard_list(heard: &[Heard], routes: &[Route], call: Option<&str>, out: &mut String) {
    out.push_str("<ol class=\"hears\">");
    for step in heard {
        let _ = write!(
            out,
            "<li><span class=\"verb\">{}</span> {}",
            esc(&step.verb),
            esc(&step.text)
        );
        if !step.choices.is_empty() {
            out.push_str("<ul class=\"choices\">");
            for (key, what) in &step.choices {
                let _ = write!(out, "<li><kbd>{}</kbd> {}</li>", esc(key), esc(what));
            }
            out.push_str("</ul>");
        }
        if !step.inner.is_empty() {
            heard_list(&step.inner, routes, call, out);
        }
        if let Some(url) = &step.leads_to {
            out.push_str(&leads_to(url, routes, call));
        }
        out.push_str("</li>");
    }
    out.push_str("</ol>");
}

/// The voice markup as built and as returned, and what the caller hears.
fn voice(recorded: &Recorded, routes: &[Route]) -> String {
    let documents: Vec<_> = recorded.records("voice_response").collect();
    if documents.is_empty() {
        return String::new();
    }
    let mut out = String::from("<section><h2>Voice markup</h2><div class=\"pair\">");
    for document in &documents {
        let twiml = text(document, "twiml");
        let shown = hears::pretty(twiml)
            .unwrap_or_else(|error| format!("{twiml}\n\n(not well-formed XML: {error})"));
        let _ = write!(
            out,
            "<div><h3>{}</h3><pre class=\"xml\">{}</pre></div>",
            esc(text(document, "message")),
            esc(&shown)
        );
    }
    out.push_str("</div><h3>What the caller hears and does</h3>");
    let last = documents.last().map_or("", |d| text(d, "twiml"));
    match hears::hears(last) {
        Ok(heard) => heard_list(&heard, routes, recorded.call_sid.as_deref(), &mut out),
        Err(error) => {
            let _ = write!(
                out,
                "<p class=\"note\">The markup cannot be read: {}</p>",
                esc(&error)
            );
        }
    }
    out.push_str("</section>");
    out
}

/// The external calls: each request with its response or failure.
fn external_calls(recorded: &Recorded) -> String {
    let mut rows = Vec::<(String, String, String, String, String)>::new();
    let mut open: Option<usize> = None;
    for line in &recorded.lines {
        match text(line, "step") {
            "api_request" => {
                rows.push((
                    text(line, "method").to_owned(),
                    text(line, "url").to_owned(),
                    "no answer yet".to_owned(),
                    String::new(),
                    String::new(),
                ));
                open = Some(rows.len() - 1);
            }
            step @ ("api_response" | "api_error") => {
                if let Some(row) = open.take().and_then(|at| rows.get_mut(at)) {
                    row.2 = line
                        .get("status")
                        .map(show)
                        .filter(|s| !s.is_empty())
                        .unwrap_or_else(|| {
                            if step == "api_error" {
                                "no response".to_owned()
                            } else {
                                String::new()
                            }
                        });
                    if step == "api_error" {
                        let _ = write!(row.2, ": {}", text(line, "message"));
                    }
                    row.3 = line.get("elapsed_ms").map(show).unwrap_or_default();
                    row.4 = line.get("response_bytes").map(show).unwrap_or_default();
                }
            }
            _ => {}
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<section><h2>External calls</h2><table><thead><tr><th>Method</th><th>URL</th><th>Status</th><th>ms</th><th>Bytes</th></tr></thead><tbody>",
    );
    for (method, url, status, ms, bytes) in rows {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"url\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            esc(&method), esc(&url), esc(&status), esc(&ms), esc(&bytes)
        );
    }
    out.push_str("</tbody></table></section>");
    out
}

/// The records of `steps`, as cards under `title`.
fn cards(recorded: &Recorded, title: &str, steps: &[&str]) -> String {
    let records: Vec<_> = recorded
        .lines
        .iter()
        .filter(|line| steps.contains(&text(line, "step")))
        .collect();
    if records.is_empty() {
        return String::new();
    }
    let mut out = format!("<section><h2>{}</h2>", esc(title));
    for record in records {
        out.push_str(&card(record));
    }
    out.push_str("</section>");
    out
}

/// The invocations of the same call, in the order they ran.
fn same_call(recorded: &Recorded, call: &[Recorded]) -> String {
    let Some(call_sid) = &recorded.call_sid else {
        return String::new();
    };
    let mut out = format!(
        "<section><h2>The call <code>{}</code></h2><p><a class=\"whole-call\" href=\"{}\">the whole call</a>, its invocations beside its simulated transcript</p><ol class=\"call\">",
        esc(call_sid),
        call_href(call_sid)
    );
    for other in call {
        let this = other.id == recorded.id;
        let _ = write!(
            out,
            "<li{}><a href=\"{}\">{}</a> {} {} {}{}</li>",
            if this { " class=\"this\"" } else { "" },
            invocation_href(&other.id),
            esc(time_of_day(&other.started)),
            esc(&other.function),
            esc(other.mode.as_deref().unwrap_or("")),
            outcome(other),
            if this { " (this invocation)" } else { "" }
        );
    }
    out.push_str("</ol></section>");
    out
}

/// The replay form: the event's parameters, editable.
fn replay_form(recorded: &Recorded, routes: &[&Route], signs: bool) -> String {
    let note =
        |text: &str| format!("<section><h2>Replay</h2><p class=\"note\">{text}</p></section>");
    let Some(route) = routes.first() else {
        return note("This request named no function: there is nothing to replay.");
    };
    let Some(event) = recorded.event() else {
        return if recorded.outcome.as_deref() == Some("rejected") {
            note("This request was answered without running the function: its parameters were never recorded, so there is nothing to replay.")
        } else {
            note("This invocation's <code>start</code> record is not here (the log filter left it out, or it was past the invocation's cap): there is no event to replay.")
        };
    };
    // A function served at several paths: the records do not say which
    // one was called.
    let to = if routes.len() == 1 {
        format!("<code>POST {}</code>", esc(&route.url_path))
    } else {
        let mut select = String::from("<select name=\"__path\">");
        for route in routes {
            let _ = write!(select, "<option>{}</option>", esc(&route.url_path));
        }
        select.push_str(
            "</select> (the function is served at each; the records do not say which was called)",
        );
        select
    };
    let mut out = format!(
        "<section><h2>Replay</h2><form class=\"replay\" method=\"post\" action=\"{}/replay\">\
<p class=\"note\">Sends these parameters to {to}, as a form, {}. Edit, add or clear a row; a row without a name, or with the value <code>{REDACTED}</code>, is not sent (the log never had the real value).</p>\
<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody>",
        invocation_href(&recorded.id),
        if signs { "signed with the platform's signature (AUTH_TOKEN)" } else { "unsigned (no AUTH_TOKEN, or a public function)" }
    );
    let mut field = |name: &str, value: &str| {
        let redacted = if value == REDACTED {
            " class=\"redacted\""
        } else {
            ""
        };
        let _ = write!(
            out,
            "<tr><td><input name=\"name\" value=\"{}\"></td><td><input name=\"value\"{redacted} value=\"{}\"></td></tr>",
            esc(name),
            esc(value)
        );
    };
    for (name, value) in event {
        match value {
            Value::Array(values) => values.iter().for_each(|v| field(name, &show(v))),
            other => field(name, &show(other)),
        }
    }
    field("", "");
    field("", "");
    out.push_str("</tbody></table><button type=\"submit\">Replay</button></form></section>");
    out
}

/// Everything about one invocation.
fn invocation_body(
    recorded: &Recorded,
    call: &[Recorded],
    routes: &[Route],
    signs: impl Fn(&Route) -> bool,
) -> String {
    let served: Vec<&Route> = routes
        .iter()
        .filter(|route| route.name == recorded.function)
        .collect();
    let mut out = format!(
        "<article class=\"invocation\" data-id=\"{id}\"><h1>{function} {outcome} <span class=\"num\">{duration}</span></h1>\
<p class=\"ids\">invocation <code>{id}</code>, started {started}",
        id = esc(&recorded.id),
        function = esc(&recorded.function),
        outcome = outcome(recorded),
        duration = duration(recorded),
        started = esc(&recorded.started),
    );
    if let Some(mode) = &recorded.mode {
        let _ = write!(out, ", mode <code>{}</code>", esc(mode));
    }
    if let Some(of) = &recorded.replay_of {
        let _ = write!(
            out,
            ", a replay of <a href=\"{}\">{}</a>",
            invocation_href(of),
            esc(of)
        );
    }
    out.push_str("</p>");
    if let Some(error) = &recorded.first_error {
        let _ = write!(out, "<p class=\"first-error\">{}</p>", esc(error));
    }
    out.push_str(&same_call(recorded, call));
    if let Some(event) = recorded.event() {
        out.push_str("<section><h2>Event</h2><dl class=\"event\">");
        for (name, value) in event {
            let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", esc(name), esc(&show(value)));
        }
        out.push_str("</dl></section>");
    }
    out.push_str(&voice(recorded, routes));
    out.push_str(&external_calls(recorded));
    out.push_str(&cards(
        recorded,
        "Task",
        &[
            "taskrouter_config",
            "workflow",
            "task_attributes",
            "critical",
            "task_error",
            "task_store",
        ],
    ));
    out.push_str(&cards(
        recorded,
        "Email",
        &["email_request", "attachment", "email_result", "email_error"],
    ));
    out.push_str(&cards(recorded, "Alerts", &["alert"]));
    out.push_str("<section><h2>Timeline</h2>");
    out.push_str(&timeline(recorded));
    out.push_str("</section>");
    out.push_str(&replay_form(
        recorded,
        &served,
        served.first().is_some_and(|r| signs(r)),
    ));
    out.push_str("</article>");
    out
}

/// An invocation's page; with `beside`, the two side by side, the
/// earlier first.
pub(super) fn invocation(
    recorded: &Recorded,
    call: &[Recorded],
    beside: Option<(&Recorded, &[Recorded])>,
    routes: &[Route],
    signs: impl Fn(&Route) -> bool,
) -> String {
    let title = format!("{} {}", recorded.function, recorded.id);
    let body = match beside {
        None => invocation_body(recorded, call, routes, &signs),
        Some((other, other_call)) => format!(
            "<div class=\"beside\"><div><p class=\"label\">Before</p>{}</div><div><p class=\"label\">Replayed</p>{}</div></div>",
            invocation_body(other, other_call, routes, &signs),
            invocation_body(recorded, call, routes, &signs)
        ),
    };
    page(&title, &body)
}

/// A call's page: its simulated transcript, if one was sent, beside its
/// invocations in the order they ran.
pub(super) fn call(
    call_sid: &str,
    transcript: Option<&Transcript>,
    invocations: &[Recorded],
) -> String {
    let mut out = format!(
        "<div id=\"call\"{live}><h1>The call <code>{}</code></h1><p class=\"ids\">{} invocation{}{}</p><div class=\"pair call-page\"><section><h2>Simulated transcript</h2>",
        esc(call_sid),
        invocations.len(),
        if invocations.len() == 1 { "" } else { "s" },
        match transcript {
            Some(t) if t.ended => ", the call ended",
            Some(_) => ", the call had not ended when its transcript was last sent",
            None => "",
        },
        // A call still going: the page's script draws it again as the
        // simulator sends more.
        live = if transcript.is_some_and(|t| !t.ended) {
            " data-live=\"1\""
        } else {
            ""
        },
    );
    match transcript {
        None => out.push_str("<p class=\"note\">No simulated transcript: <code>ccfn call</code> did not make this call, or its transcript is older than the last 100 calls kept.</p>"),
        Some(transcript) => {
            let _ = write!(
                out,
                "<p class=\"note ended\">{}</p><ol class=\"transcript\">",
                if transcript.ended { "Ended." } else { "Not ended yet: this is the transcript so far." }
            );
            for line in transcript.lines() {
                let _ = write!(out, "<li>{}</li>", esc(line));
            }
            out.push_str("</ol>");
            if transcript.not_kept > 0 {
                let _ = write!(
                    out,
                    "<p class=\"note\">{} later lines were not kept: a call keeps at most {} KiB of transcript here.</p>",
                    transcript.not_kept,
                    super::store::TRANSCRIPT_BYTES / 1024
                );
            }
        }
    }
    out.push_str("</section><section><h2>Invocations</h2>");
    if invocations.is_empty() {
        out.push_str("<p class=\"note\">No invocation of this call is kept: none reached this server, or they are older than the invocations the inspector keeps.</p>");
    } else {
        out.push_str("<ol class=\"call\">");
        for recorded in invocations {
            let _ = write!(
                out,
                "<li id=\"inv-{id}\"><a href=\"{href}\">{time} {function}</a> {mode} {outcome} <span class=\"num\">{duration}</span>{error}</li>",
                id = esc(&recorded.id),
                href = invocation_href(&recorded.id),
                time = esc(time_of_day(&recorded.started)),
                function = esc(&recorded.function),
                mode = esc(recorded.mode.as_deref().unwrap_or("")),
                outcome = outcome(recorded),
                duration = duration(recorded),
                error = recorded.first_error.as_deref().map_or_else(String::new, |e| {
                    format!(" <span class=\"err\">{}</span>", esc(e))
                }),
            );
        }
        out.push_str("</ol>");
    }
    out.push_str("</section></div></div>");
    page(&format!("The call {call_sid}"), &out)
}

/// A page saying what is not there, or what went wrong.
pub(super) fn message(title: &str, text: &str) -> String {
    page(
        title,
        &format!(
            "<h1>{}</h1><p>{}</p><p><a href=\"{ROOT}\">Recent invocations</a></p>",
            esc(title),
            esc(text)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_every_special_character() {
        assert_eq!(
            esc(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn a_call_s_page_is_one_path_segment() {
        assert_eq!(call_href("CA0123abc"), "/__ccfn/inspector/calls/CA0123abc");
        assert_eq!(
            call_href("CA<x>/../y z"),
            "/__ccfn/inspector/calls/CA%3Cx%3E%2F..%2Fy%20z"
        );
    }

    #[test]
    fn millis_of_a_timestamp() {
        assert_eq!(millis("2026-11-23T01:02:03.045Z"), Some(3_723_045));
        assert_eq!(millis("nonsense"), None);
    }

    #[test]
    fn a_verb_s_url_names_the_function_it_leads_to() {
        let routes = [Route {
            name: "wait-experience",
            url_path: "/features/f/studio/wait".to_owned(),
            public: false,
        }];
        let (route, name, query) =
            route_of("https://example.com/features/f/studio/wait?mode=x", &routes).unwrap();
        assert_eq!(
            (route.public, name, query.as_str()),
            (false, "wait-experience", "mode=x")
        );
        assert!(route_of("/features/f/studio/wait", &routes).is_some());
        assert!(route_of("/elsewhere", &routes).is_none());
    }
}
