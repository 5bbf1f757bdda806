//! The inspector page of the examples server as it ships, over real HTTP
//! and in a real browser (headless Chromium driven through ChromeDriver).
//!
//! - The list shows every invocation, live (server-sent events), newest
//!   first, filtered by function, outcome and call.
//! - An invocation's page has the timeline, the event, the voice markup
//!   as XML and as what the caller hears, the task, and the other
//!   invocations of its call.
//! - A replay, edited, reaches the function signed, and the new
//!   invocation shows beside the old one.
//! - Nothing secret reaches a page; another site can neither read the
//!   inspector (DNS rebinding) nor make it replay (cross-site `POST`).
//! - A simulated call's transcript, sent by `PUT`, shows beside the
//!   call's invocations, escaped and scrubbed; the `PUT` is refused when
//!   it is not JSON, too large, for a bad call SID, or from another site.
//! - It is off in production mode, and off when `CCFN_INSPECTOR=off`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use example_contact_center::WAIT_URL;
use futures_util::StreamExt as _;
use serde_json::Value;

use crate::server::Server;

const CALL_SID: &str = "CA0123456789abcdef0123456789abcdef";
const OTHER_CALL: &str = "CAfedcba9876543210fedcba9876543210";
const AUTH_TOKEN: &str = "canary-inspector-auth-token-73c1";
const PARAM_CANARY: &str = "canary-inspector-payment-token-0b9e";

/// The server, signing with [`AUTH_TOKEN`].
async fn start(extra: &[(&str, &str)]) -> Server {
    let mut env = vec![("AUTH_TOKEN", AUTH_TOKEN)];
    // Production mode starts only with the examples' real values.
    if extra.contains(&("CCFN_MODE", "production")) {
        env.extend_from_slice(&[
            (
                "PLATFORM_WORKSPACE_SID",
                "WSaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            ),
            ("workflowSid", "WW11111111111111111111111111111111"),
            ("VOICEMAIL_TO", "oncall@example.com"),
            ("VOICEMAIL_FROM", "voicemail@mg.example.com"),
        ]);
    }
    env.extend_from_slice(extra);
    Server::start(&env).await
}

/// Posts `params` to the wait experience, signed as the platform signs;
/// the status and the invocation id.
async fn call(server: &Server, params: &[(&str, &str)]) -> (u16, String) {
    ccfn_core::http::install_crypto_provider();
    let url = server.url(WAIT_URL);
    let signature = ccfn_core::signature::compute_signature(AUTH_TOKEN, &url, params);
    let response = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("x-twilio-signature", signature)
        .body(form(params))
        .send()
        .await
        .unwrap();
    let id = response.headers()["x-ccfn-invocation-id"]
        .to_str()
        .unwrap()
        .to_owned();
    (response.status().as_u16(), id)
}

fn form(params: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish()
}

fn menu(call_sid: &str) -> Vec<(&str, &str)> {
    vec![
        ("CallSid", call_sid),
        ("From", "+15551230000"),
        ("To", "+15559870000"),
        ("PaymentToken", PARAM_CANARY),
    ]
}

/// `GET` of an inspector path with `headers`: the status and the body.
async fn get(server: &Server, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    ccfn_core::http::install_crypto_provider();
    let mut request = reqwest::Client::new().get(server.url(path));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// A live list's stream of server-sent events, as text.
struct Events {
    stream: std::pin::Pin<
        Box<dyn futures_util::Stream<Item = reqwest::Result<axum::body::Bytes>> + Send>,
    >,
    seen: String,
}

impl Events {
    /// Opens `/__ccfn/inspector/events` with `query`.
    async fn open(server: &Server, query: &str) -> Events {
        ccfn_core::http::install_crypto_provider();
        let response = reqwest::Client::new()
            .get(server.url(&format!("/__ccfn/inspector/events{query}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Events {
            stream: Box::pin(response.bytes_stream()),
            seen: String::new(),
        }
    }

    /// Reads until `done` holds of all that arrived, for at most 10 s;
    /// then all that arrived.
    async fn until(&mut self, what: &str, done: impl Fn(&str) -> bool) -> &str {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !done(&self.seen) {
            let chunk = tokio::time::timeout_at(deadline.into(), self.stream.next())
                .await
                .unwrap_or_else(|_| panic!("{what}, within 10 s: {}", self.seen))
                .expect("the stream goes on")
                .unwrap();
            self.seen.push_str(&String::from_utf8_lossy(&chunk));
        }
        &self.seen
    }
}

fn assert_no_secret(text: &str, what: &str) {
    for canary in [AUTH_TOKEN, PARAM_CANARY] {
        assert!(
            !text.contains(canary),
            "{what} shows the secret {canary}:\n{text}"
        );
    }
}

#[tokio::test]
async fn the_inspector_lists_explains_and_replays_invocations() {
    let server = start(&[]).await;
    ccfn_core::http::install_crypto_provider();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();

    // The live list, listening before anything runs.
    let mut events = Events::open(&server, "").await;

    let (status, first) = call(&server, &menu(CALL_SID)).await;
    assert_eq!(status, 200);
    let mut voicemail = menu(CALL_SID);
    voicemail.push(("Digits", "1"));
    let (status, second) = call(&server, &voicemail).await;
    assert_eq!(status, 200);
    let (status, other) = call(&server, &menu(OTHER_CALL)).await;
    assert_eq!(status, 200);
    // Unsigned: refused before the function runs, and listed so.
    let refused = client
        .post(server.url(WAIT_URL))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&menu(CALL_SID)))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    let rejected = refused.headers()["x-ccfn-invocation-id"]
        .to_str()
        .unwrap()
        .to_owned();

    // Each appears, then ends, as an event with its row.
    let ids = [&first, &second, &other, &rejected];
    let seen = events
        .until("the rows all arrive live", |seen| {
            ids.iter().all(|id| {
                seen.contains(&format!("\"id\":\"{id}\"")) && seen.contains(&format!("inv-{id}"))
            }) && seen.contains("outcome success")
        })
        .await;
    assert!(seen.contains("event: row"), "{seen}");
    assert_no_secret(seen, "the live list");

    // The list: newest first, each with its outcome and first error.
    let (status, list) = get(&server, "/__ccfn/inspector", &[]).await;
    assert_eq!(status, 200);
    let order: Vec<_> = [&rejected, &other, &second, &first]
        .iter()
        .map(|id| {
            list.find(&format!("inv-{id}"))
                .expect("every invocation is listed")
        })
        .collect();
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "newest first: {list}"
    );
    assert!(list.contains("outcome rejected"), "{list}");
    assert!(
        list.contains("missing X-Twilio-Signature header"),
        "the rejection's reason: {list}"
    );
    assert_no_secret(&list, "the list");
    let (_, filtered) = get(
        &server,
        &format!("/__ccfn/inspector?call={}", &OTHER_CALL[..12]),
        &[],
    )
    .await;
    assert!(
        filtered.contains(&format!("inv-{other}")) && !filtered.contains(&format!("inv-{first}"))
    );
    let (_, filtered) = get(&server, "/__ccfn/inspector?outcome=rejected&function=", &[]).await;
    assert!(
        filtered.contains(&format!("inv-{rejected}"))
            && !filtered.contains(&format!("inv-{first}"))
    );

    // The menu's page: what the caller hears, where it leads, the call.
    let (status, page) = get(
        &server,
        &format!("/__ccfn/inspector/invocations/{first}"),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    for expected in [
        "What the caller hears and does",
        "<kbd>1</kbd> leave a voicemail",
        "<kbd>2</kbd> request a callback",
        "the function <a href=\"/__ccfn/inspector?function=wait-experience&amp;call=",
        "&lt;Gather input=&quot;dtmf&quot;",
        "Timeline",
        &format!("/__ccfn/inspector/invocations/{second}"),
        "(this invocation)",
        "signed with the platform's signature",
        "<dt>PaymentToken</dt><dd>[REDACTED]</dd>",
    ] {
        assert!(
            page.contains(expected),
            "the menu's page lacks {expected}: {page}"
        );
    }
    assert!(
        !page.contains(&format!("invocations/{other}")),
        "another call is not this call's"
    );
    assert_no_secret(&page, "the invocation page");
    let (_, page) = get(
        &server,
        &format!("/__ccfn/inspector/invocations/{second}"),
        &[],
    )
    .await;
    assert!(
        page.contains(
            "The caller&#39;s message is recorded (up to 120 s, after a beep, ended by #)"
        ),
        "{page}"
    );

    // A replay, edited: 2 asks for a callback, which creates a task.
    let replay_form = "name=CallSid&value=CA0123456789abcdef0123456789abcdef&name=From&value=%2B15551230000\
&name=To&value=%2B15559870000&name=PaymentToken&value=%5BREDACTED%5D&name=Digits&value=2&name=&value=";
    let origin = format!("http://{}", server.addr);
    let replayed = client
        .post(server.url(&format!("/__ccfn/inspector/invocations/{second}/replay")))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", &origin)
        .header("sec-fetch-site", "same-origin")
        .body(replay_form)
        .send()
        .await
        .unwrap();
    assert_eq!(replayed.status(), 303);
    let location = replayed.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        location.ends_with(&format!("?beside={second}")),
        "{location}"
    );
    let (status, beside) = get(&server, &location, &[]).await;
    assert_eq!(status, 200);
    for expected in [
        "Before",
        "Replayed",
        &format!("a replay of <a href=\"/__ccfn/inspector/invocations/{second}\""),
        "Task created",
        "outcome success",
    ] {
        assert!(
            beside.contains(expected),
            "the replay's page lacks {expected}: {beside}"
        );
    }
    assert_no_secret(&beside, "the replay's page");
    // The function got it signed (else it answers 403 and logs
    // `request_rejected`), without the redacted value.
    let log = server.text();
    let new_id = location
        .trim_start_matches("/__ccfn/inspector/invocations/")
        .split('?')
        .next()
        .unwrap();
    let start: Value = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| r["invocation_id"] == new_id && r["step"] == "start")
        .expect("the replay ran");
    assert_eq!(start["event"]["Digits"], "2");
    assert!(start["event"].get("PaymentToken").is_none(), "{start}");

    // Another site cannot read it, nor make it replay.
    let (status, body) = get(
        &server,
        "/__ccfn/inspector",
        &[("host", "attacker.example")],
    )
    .await;
    assert_eq!(status, 403, "{body}");
    let cross = client
        .post(server.url(&format!("/__ccfn/inspector/invocations/{second}/replay")))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", "https://attacker.example")
        .body(replay_form)
        .send()
        .await
        .unwrap();
    assert_eq!(cross.status(), 403);
    let (status, page) = get(
        &server,
        "/__ccfn/inspector/invocations/000000000000000000000000",
        &[],
    )
    .await;
    assert_eq!(status, 404);
    assert!(page.contains("No such invocation"));
    // The page may load only its own style and script.
    let response = client
        .get(server.url("/__ccfn/inspector"))
        .send()
        .await
        .unwrap();
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .unwrap();
    assert!(
        policy.contains("default-src 'none'") && policy.contains("script-src 'self'"),
        "{policy}"
    );
}

#[tokio::test]
async fn the_inspector_serves_this_machine_and_its_own_pages_only() {
    let server = start(&[]).await;
    let (_, id) = call(&server, &menu(CALL_SID)).await;
    // Through a proxy or a tunnel: refused unless turned on.
    for header in [
        "x-forwarded-for",
        "forwarded",
        "x-real-ip",
        "via",
        "x-forwarded-host",
    ] {
        let (status, body) =
            get(&server, "/__ccfn/inspector", &[(header, "for=203.0.113.9")]).await;
        assert_eq!(status, 403, "{header}");
        assert!(body.contains("CCFN_INSPECTOR=on"), "{body}");
    }
    // A replay sent by no page (a script, another program): refused.
    ccfn_core::http::install_crypto_provider();
    let replay = |origin: Option<&'static str>| {
        let mut request = reqwest::Client::new()
            .post(server.url(&format!("/__ccfn/inspector/invocations/{id}/replay")))
            .header("content-type", "application/x-www-form-urlencoded")
            .body("name=CallSid&value=CA1");
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.send()
    };
    assert_eq!(replay(None).await.unwrap().status(), 403);
    assert_eq!(replay(Some("null")).await.unwrap().status(), 403);

    // Turned on, a proxied request and the public host are served.
    let server = start(&[
        ("CCFN_INSPECTOR", "on"),
        ("CCFN_PUBLIC_URL", "https://cc.example.test"),
    ])
    .await;
    let (status, _) = get(
        &server,
        "/__ccfn/inspector",
        &[
            ("x-forwarded-for", "203.0.113.9"),
            ("host", "cc.example.test"),
        ],
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn hostile_values_are_shown_as_text() {
    let server = start(&[]).await;
    let mut params = menu("CA<script>alert(1)</script>");
    params.push(("Note", "\"><img src=x onerror=alert(2)>"));
    let (_, id) = call(&server, &params).await;
    let (_, list) = get(&server, "/__ccfn/inspector", &[]).await;
    let (_, page) = get(&server, &format!("/__ccfn/inspector/invocations/{id}"), &[]).await;
    for text in [&list, &page] {
        assert!(
            !text.contains("<script>alert") && !text.contains("<img src=x"),
            "{text}"
        );
    }
    assert!(
        page.contains("&lt;img src=x onerror=alert(2)&gt;"),
        "{page}"
    );
}

#[tokio::test]
async fn a_row_outside_the_filter_is_sent_as_a_removal() {
    let server = start(&[]).await;
    let mut events = Events::open(&server, "?outcome=running").await;
    let (_, id) = call(&server, &menu(CALL_SID)).await;
    // Each change is sent as the row is when the stream reads it: an
    // ended invocation no longer passes `running`, so its row (if the
    // page shows it) is removed.
    let removed = format!("{{\"id\":\"{id}\",\"seq\":null,\"html\":null}}");
    events
        .until("the row is removed", |seen| seen.contains(&removed))
        .await;
}

#[tokio::test]
async fn a_secret_value_is_scrubbed_from_the_pages() {
    const KEY: &str = "canary-inspector-email-key-51d0";
    let server = start(&[
        ("EMAILPROVIDER_API_KEY", KEY),
        ("EMAILPROVIDER_DOMAIN", "example.com"),
    ])
    .await;
    let mut params = menu(CALL_SID);
    params.push(("Note", KEY));
    let (_, id) = call(&server, &params).await;
    let (_, page) = get(&server, &format!("/__ccfn/inspector/invocations/{id}"), &[]).await;
    assert!(page.contains("<dt>Note</dt>"), "{page}");
    assert!(!page.contains(KEY), "{page}");
}

#[tokio::test]
async fn a_replay_is_signed_for_the_public_url() {
    const PUBLIC: &str = "https://cc.example.test";
    let server = start(&[("CCFN_PUBLIC_URL", PUBLIC)]).await;
    ccfn_core::http::install_crypto_provider();
    let params = menu(CALL_SID);
    let signature = ccfn_core::signature::compute_signature(
        AUTH_TOKEN,
        &format!("{PUBLIC}{WAIT_URL}"),
        &params,
    );
    let response = reqwest::Client::new()
        .post(server.url(WAIT_URL))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("x-twilio-signature", signature)
        .body(form(&params))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let id = response.headers()["x-ccfn-invocation-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let replayed = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(server.url(&format!("/__ccfn/inspector/invocations/{id}/replay")))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", format!("http://{}", server.addr))
        .body(form(&[
            ("name", "CallSid"),
            ("value", CALL_SID),
            ("name", "From"),
            ("value", "+15551230000"),
            ("name", "To"),
            ("value", "+15559870000"),
        ]))
        .send()
        .await
        .unwrap();
    assert_eq!(replayed.status(), 303);
    let location = replayed.headers()["location"].to_str().unwrap().to_owned();
    let (_, page) = get(&server, &location, &[]).await;
    assert!(
        !page.contains("outcome rejected"),
        "the replay passed the signature check: {page}"
    );
    assert!(page.contains("outcome success"), "{page}");
}

#[tokio::test]
async fn a_live_list_gets_what_arrived_while_it_loaded_and_ends_at_shutdown() {
    let mut server = start(&[]).await;
    let (_, id) = call(&server, &menu(CALL_SID)).await;
    let mut events = Events::open(&server, "?after=0").await;
    let row = format!("inv-{id}");
    let seen = events
        .until("the backlog arrives", |seen| seen.contains(&row))
        .await;
    assert!(seen.starts_with("event: hello"), "{seen}");
    // The open stream does not hold the server past its shutdown.
    server.terminate();
    let status = server.exit(Duration::from_secs(5)).await;
    assert!(status.success(), "{status}");
    assert!(!server.text().contains("grace"), "{}", server.text());
}

#[tokio::test]
async fn the_inspector_keeps_the_last_invocations_it_is_told_to() {
    let server = start(&[("CCFN_INSPECTOR_INVOCATIONS", "2")]).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(call(&server, &menu(CALL_SID)).await.1);
    }
    let (_, list) = get(&server, "/__ccfn/inspector", &[]).await;
    assert!(!list.contains(&ids[0]), "the oldest is forgotten: {list}");
    assert!(list.contains(&ids[1]) && list.contains(&ids[2]));
    assert!(list.contains("The last 2 invocations"));
}

#[tokio::test]
async fn the_inspector_says_what_the_log_filter_leaves_out() {
    // Nothing says where it listens at `warn`: it is told.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let server = start(&[("CCFN_LOG", "warn"), ("CCFN_ADDR", &addr)]).await;
    let (status, passed) = call(&server, &menu(CALL_SID)).await;
    assert_eq!(status, 200);
    let (status, failed) = call(&server, &[("From", "+15551230000")]).await;
    assert_eq!(status, 400);
    let (_, list) = get(&server, "/__ccfn/inspector", &[]).await;
    assert!(
        list.contains("CCFN_LOG leaves out ccfn&#39;s INFO records")
            || list.contains("CCFN_LOG leaves out ccfn's INFO records"),
        "{list}"
    );
    assert!(
        !list.contains(&passed),
        "a success writes nothing at warn: {list}"
    );
    let row = &list[list
        .find(&format!("inv-{failed}"))
        .expect("the failure is listed")..];
    assert!(
        row[..row.find("</tr>").unwrap()].contains("outcome unknown"),
        "{row}"
    );

    let server = start(&[]).await;
    call(&server, &menu(CALL_SID)).await;
    let (_, list) = get(&server, "/__ccfn/inspector", &[]).await;
    assert!(!list.contains("CCFN_LOG leaves out"), "{list}");
}

/// `PUT`s `body` as the transcript of `call_sid`, with `headers` (a JSON
/// content type unless they give one): the status and the body.
async fn put_transcript(
    server: &Server,
    call_sid: &str,
    body: impl Into<reqwest::Body>,
    headers: &[(&str, &str)],
) -> (u16, String) {
    ccfn_core::http::install_crypto_provider();
    let mut request = reqwest::Client::new()
        .put(server.url(&format!("/__ccfn/inspector/calls/{call_sid}/transcript")))
        .body(body);
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("content-type"))
    {
        request = request.header("content-type", "application/json");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

fn transcript(lines: &[&str], ended: bool) -> String {
    serde_json::json!({ "lines": lines, "ended": ended }).to_string()
}

#[tokio::test]
async fn a_simulated_call_shows_its_transcript_beside_its_invocations() {
    let server = start(&[]).await;
    let said = format!("   hears (Say): your code is {AUTH_TOKEN}");
    let mut lines = vec![
        "-> POST /features/contact-center/studio/wait-experience => 200",
        &said,
        "caller presses \u{1b}[31m1",
        "   hears (Say): <script>alert(1)</script>",
    ];
    let (status, body) = put_transcript(&server, CALL_SID, transcript(&lines, false), &[]).await;
    assert_eq!(status, 204, "{body}");
    let (_, first) = call(&server, &menu(CALL_SID)).await;
    let mut voicemail = menu(CALL_SID);
    voicemail.push(("Digits", "1"));
    let (_, second) = call(&server, &voicemail).await;
    // The whole transcript again, ended: it replaces the one kept.
    lines.push("ended: caller hung up");
    let (status, _) = put_transcript(&server, CALL_SID, transcript(&lines, true), &[]).await;
    assert_eq!(status, 204);

    let (status, page) = get(&server, &format!("/__ccfn/inspector/calls/{CALL_SID}"), &[]).await;
    assert_eq!(status, 200, "{page}");
    for expected in [
        &format!("The call <code>{CALL_SID}</code>"),
        "<li>-&gt; POST /features/contact-center/studio/wait-experience =&gt; 200</li>",
        "<li>   hears (Say): your code is [REDACTED]</li>",
        "<li>caller presses \u{241b}[31m1</li>",
        "<li>   hears (Say): &lt;script&gt;alert(1)&lt;/script&gt;</li>",
        "<li>ended: caller hung up</li>",
        "the call ended",
        "2 invocations",
    ] {
        assert!(
            page.contains(expected),
            "the call's page lacks {expected}: {page}"
        );
    }
    assert_eq!(
        page.matches("<li>").count(),
        lines.len(),
        "each line once, not added to the first transcript: {page}"
    );
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(!page.contains('\u{1b}'), "a raw ESC: {page}");
    assert_no_secret(&page, "the call's page");
    let link = |id: &str| {
        page.find(&format!("<a href=\"/__ccfn/inspector/invocations/{id}\">"))
            .unwrap_or_else(|| panic!("the call's page links {id}: {page}"))
    };
    assert!(
        link(&first) < link(&second),
        "in the order they ran: {page}"
    );
    assert!(page.contains("wait-experience") && page.contains("outcome success"));

    // The list filtered by the call, its rows, and an invocation's page
    // link to the call's page.
    let call_page = format!("href=\"/__ccfn/inspector/calls/{CALL_SID}\"");
    let (_, list) = get(&server, &format!("/__ccfn/inspector?call={CALL_SID}"), &[]).await;
    assert!(
        list.contains(&format!("{call_page}>{CALL_SID}</a> (transcript)")),
        "{list}"
    );
    assert!(
        list.contains(&format!("<a class=\"has-transcript\" {call_page}")),
        "a row marks a call with a transcript: {list}"
    );
    let (_, invocation) = get(
        &server,
        &format!("/__ccfn/inspector/invocations/{first}"),
        &[],
    )
    .await;
    assert!(
        invocation.contains(&format!(
            "<a class=\"whole-call\" {call_page}>the whole call</a>"
        )),
        "{invocation}"
    );

    // A call with invocations and no transcript; a call with neither.
    let (_, other) = call(&server, &menu(OTHER_CALL)).await;
    let (status, page) = get(
        &server,
        &format!("/__ccfn/inspector/calls/{OTHER_CALL}"),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    assert!(page.contains("No simulated transcript"), "{page}");
    assert!(
        page.contains(&format!("/__ccfn/inspector/invocations/{other}")),
        "{page}"
    );
    let (_, list) = get(
        &server,
        &format!("/__ccfn/inspector?call={OTHER_CALL}"),
        &[],
    )
    .await;
    assert!(!list.contains("has-transcript"), "{list}");
    let (status, page) = get(&server, "/__ccfn/inspector/calls/CA000", &[]).await;
    assert_eq!(status, 404);
    assert!(page.contains("No such call"), "{page}");
}

#[tokio::test]
async fn a_transcript_is_refused_unless_json_small_named_and_local() {
    let server = start(&[]).await;
    let body = transcript(&["caller presses 1"], false);
    let put = |body: String, headers: &'static [(&'static str, &'static str)]| {
        put_transcript(&server, CALL_SID, body, headers)
    };
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        let (status, _) = put_transcript(
            &server,
            CALL_SID,
            body.clone(),
            &[("content-type", content_type)],
        )
        .await;
        assert_eq!(status, 415, "{content_type}");
    }
    // Over 128 KiB: said by its length, or found while reading a body
    // sent in chunks.
    let line = "x".repeat(1024);
    let large = transcript(&vec![line.as_str(); 129], false);
    let (status, _) = put(large.clone(), &[]).await;
    assert_eq!(status, 413);
    let chunks: Vec<Result<String, std::io::Error>> = large
        .as_bytes()
        .chunks(8192)
        .map(|c| Ok(String::from_utf8(c.to_vec()).unwrap()))
        .collect();
    let (status, _) = put_transcript(
        &server,
        CALL_SID,
        reqwest::Body::wrap_stream(futures_util::stream::iter(chunks)),
        &[],
    )
    .await;
    assert_eq!(status, 413, "a body sent in chunks");
    for sid in ["CA-1", "CA%20x", &"A".repeat(65)] {
        let (status, _) = put_transcript(&server, sid, body.clone(), &[]).await;
        assert_eq!(status, 400, "{sid}");
    }
    for shape in [
        r#"{"lines": "caller presses 1", "ended": false}"#,
        r#"{"lines": ["caller presses 1"]}"#,
        r#"{"lines": [], "ended": false, "more": 1}"#,
        r#"["caller presses 1"]"#,
        "not json",
    ] {
        let (status, answer) = put(shape.to_owned(), &[]).await;
        assert_eq!(status, 400, "{shape}");
        assert!(answer.contains(r#"{"lines""#), "{answer}");
    }
    // Another site, as a browser says it: refused.
    for headers in [
        &[("origin", "https://attacker.example")][..],
        &[("origin", "null")],
        &[("sec-fetch-site", "cross-site")],
        &[("sec-fetch-site", "same-site")],
        &[("host", "attacker.example")],
        &[("x-forwarded-for", "203.0.113.9")],
    ] {
        let (status, _) = put(body.clone(), headers).await;
        assert_eq!(status, 403, "{headers:?}");
    }
    assert_eq!(
        get(&server, &format!("/__ccfn/inspector/calls/{CALL_SID}"), &[])
            .await
            .0,
        404,
        "nothing refused was kept"
    );
    // This host's page, or no page: kept.
    let origin = format!("http://{}", server.addr);
    let (status, _) = put_transcript(&server, CALL_SID, body.clone(), &[("origin", &origin)]).await;
    assert_eq!(status, 204);
    let (status, _) = put(body.clone(), &[("sec-fetch-site", "none")]).await;
    assert_eq!(status, 204);
    let (status, _) = put(transcript(&["x"; 100], false), &[]).await;
    assert_eq!(status, 204, "under the limit");
}

#[tokio::test]
async fn the_inspector_keeps_the_last_100_calls_transcripts() {
    let server = start(&[]).await;
    let sid = |n: usize| format!("CA{n:032x}");
    for n in 0..101 {
        let (status, _) = put_transcript(
            &server,
            &sid(n),
            transcript(&[&format!("call {n}")], true),
            &[],
        )
        .await;
        assert_eq!(status, 204);
    }
    let path = |n: usize| format!("/__ccfn/inspector/calls/{}", sid(n));
    assert_eq!(
        get(&server, &path(0), &[]).await.0,
        404,
        "the 101st call forgets the first"
    );
    let (status, second) = get(&server, &path(1), &[]).await;
    assert_eq!(status, 200);
    assert!(second.contains("<li>call 1</li>"), "{second}");
    let (status, last) = get(&server, &path(100), &[]).await;
    assert_eq!(status, 200);
    assert!(last.contains("<li>call 100</li>"), "{last}");
}

#[tokio::test]
async fn the_inspector_is_off_in_production_and_when_turned_off() {
    for env in [
        &[("CCFN_MODE", "production")][..],
        &[("CCFN_INSPECTOR", "off")][..],
    ] {
        let server = start(env).await;
        let (status, _) = get(&server, "/__ccfn/inspector", &[]).await;
        assert_eq!(status, 404, "{env:?}");
        let (status, _) = get(&server, "/__ccfn/inspector/events", &[]).await;
        assert_eq!(status, 404, "{env:?}");
        let (status, _) = put_transcript(
            &server,
            CALL_SID,
            transcript(&["caller presses 1"], false),
            &[],
        )
        .await;
        assert_eq!(status, 404, "{env:?}");
        let (status, _) = get(&server, &format!("/__ccfn/inspector/calls/{CALL_SID}"), &[]).await;
        assert_eq!(status, 404, "{env:?}");
    }
    let server = start(&[("CCFN_MODE", "production"), ("CCFN_INSPECTOR", "on")]).await;
    let (status, _) = get(&server, "/__ccfn/inspector", &[]).await;
    assert_eq!(status, 200);
}

// ---- In a real browser ----

/// Where the browser test finds Chromium and ChromeDriver: `CHROME` and
/// `CHROMEDRIVER`, else Debian's paths.
fn browser() -> Option<(PathBuf, PathBuf)> {
    let path = |var: &str, default: &str| {
        std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from)
    };
    let chrome = path("CHROME", "/usr/bin/chromium");
    let driver = path("CHROMEDRIVER", "/usr/bin/chromedriver");
    (chrome.exists() && driver.exists()).then_some((chrome, driver))
}

/// ChromeDriver on a free port of loopback, killed when dropped.
struct Driver {
    child: std::process::Child,
    url: String,
}

impl Driver {
    async fn start(driver: &std::path::Path) -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("ChromeDriver starts");
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(
                Instant::now() < deadline,
                "ChromeDriver did not listen within 20 s"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Driver { child, url }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until `check` holds, or fails with `what`.
async fn until<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    let deadline = started + Duration::from_secs(15);
    while !check().await {
        assert!(Instant::now() < deadline, "{what}, within 15 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eprintln!("{what}: {:?}", started.elapsed());
}

#[tokio::test]
async fn the_inspector_works_in_a_browser() {
    use thirtyfour::prelude::*;

    let Some((chrome, driver_path)) = browser() else {
        assert!(
            std::env::var_os("CCFN_TEST_BROWSER").is_none(),
            "CCFN_TEST_BROWSER is set, so the browser must be here: install Debian's chromium and chromium-driver (.ci/run does)"
        );
        eprintln!(
            "SKIPPED the_inspector_works_in_a_browser: no /usr/bin/chromium and /usr/bin/chromedriver \
             (install Debian's chromium and chromium-driver, or set CHROME and CHROMEDRIVER)"
        );
        return;
    };
    // The WebDriver client is reqwest, built with no TLS provider of its own.
    ccfn_core::http::install_crypto_provider();
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("inspector-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    // As a newcomer runs it: no credentials, so nothing is signed.
    let server = Server::start(&[]).await;
    let driver = Driver::start(&driver_path).await;
    let profile = tempdir("chromium-profile");
    let mut caps = DesiredCapabilities::chrome();
    caps.set_binary(chrome.to_str().unwrap()).unwrap();
    for arg in [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1800",
        &format!("--user-data-dir={}", profile.display()),
    ] {
        caps.add_arg(arg).unwrap();
    }
    let browser = WebDriver::new(&driver.url, caps)
        .await
        .expect("a Chromium session");
    let result = async {
        // The list, empty and live.
        browser.goto(server.url("/__ccfn/inspector")).await?;
        let live = browser.find(By::Id("live")).await?;
        until("the list goes live", || async {
            live.text().await.is_ok_and(|t| t == "live")
        })
        .await;

        // The README's commands, as a newcomer runs them: their
        // invocations appear without a reload.
        let commands = readme_curls();
        assert!(!commands.is_empty(), "the README has curl commands");
        let mut ids = Vec::new();
        for (url, body) in &commands {
            ids.push(send(&server, url, body).await);
        }
        until(
            "every README command's invocation appears live, ended",
            || async {
                let rows = browser
                    .find_all(By::Css("#invocations tr .outcome.success"))
                    .await;
                rows.is_ok_and(|rows| rows.len() == commands.len())
            },
        )
        .await;
        let first_row = browser.find(By::Css("#invocations tr")).await?;
        let newest = ids.last().unwrap();
        assert_eq!(
            first_row.id().await?.as_deref(),
            Some(format!("inv-{newest}").as_str()),
            "newest first"
        );
        browser.screenshot(&shots.join("1-list.png")).await?;

        // The menu's page, opened from the list.
        let menu_id = ids[0].clone();
        browser
            .find(By::Css(format!("#inv-{menu_id} td:nth-child(2) a")))
            .await?
            .click()
            .await?;
        until("the menu's page opens", || async {
            browser.title().await.is_ok_and(|t| t.contains(&menu_id))
        })
        .await;
        let hears = browser.find(By::Css("ol.hears")).await?.text().await?;
        assert!(
            hears.contains("1 leave a voicemail") && hears.contains("2 request a callback"),
            "{hears}"
        );
        let timeline = browser.find_all(By::Css("table.timeline tbody tr")).await?;
        assert!(timeline.len() >= 10, "the timeline has every record");
        browser.screenshot(&shots.join("2-invocation.png")).await?;

        // Replayed with the caller's answer added in the blank row: 2
        // asks for a callback, which creates a task.
        let blank = browser
            .find(By::Css("form.replay tbody tr:last-child"))
            .await?;
        blank
            .find(By::Css("input[name=name]"))
            .await?
            .send_keys("Digits")
            .await?;
        blank
            .find(By::Css("input[name=value]"))
            .await?
            .send_keys("2")
            .await?;
        browser
            .find(By::Css("form.replay button"))
            .await?
            .click()
            .await?;
        until("the replay shows beside the original", || async {
            browser
                .current_url()
                .await
                .is_ok_and(|url| url.as_str().contains(&format!("beside={menu_id}")))
        })
        .await;
        let page = browser.find(By::Css("main")).await?.text().await?;
        let page = page.to_lowercase();
        assert!(
            page.contains("before") && page.contains("replayed") && page.contains("task created"),
            "{page}"
        );
        assert_no_secret(&browser.source().await?, "the replay page in the browser");
        browser
            .screenshot(&shots.join("3-replay-beside.png"))
            .await?;

        // Back on the list, the replay is there, marked.
        browser.goto(server.url("/__ccfn/inspector")).await?;
        until("the replay is listed", || async {
            browser
                .find_all(By::Css("#invocations tr"))
                .await
                .is_ok_and(|rows| rows.len() == commands.len() + 1)
        })
        .await;
        assert_eq!(
            browser
                .find_all(By::Css("#invocations .replay-of"))
                .await?
                .len(),
            1
        );
        browser
            .screenshot(&shots.join("4-list-after-replay.png"))
            .await?;

        // The call of the README's command, with a simulated transcript,
        // opened from the menu's page: the transcript beside the menu
        // and its replay, drawn again as the call goes on.
        let call_sid = "CA123";
        let lines = [
            "-> POST /features/contact-center/studio/wait-experience => 200",
            "   hears (Say): <b>Press 1</b>",
            "caller presses 1",
        ];
        let (status, _) =
            put_transcript(&server, call_sid, transcript(&lines[..2], false), &[]).await;
        assert_eq!(status, 204);
        browser
            .goto(server.url(&format!("/__ccfn/inspector/invocations/{menu_id}")))
            .await?;
        browser.find(By::Css("a.whole-call")).await?.click().await?;
        until("the call's page opens", || async {
            browser
                .title()
                .await
                .is_ok_and(|t| t.contains(&format!("The call {call_sid}")))
        })
        .await;
        let (status, _) = put_transcript(&server, call_sid, transcript(&lines, true), &[]).await;
        assert_eq!(status, 204);
        until("the call's page shows the new lines, ended", || async {
            let ended = browser.find(By::Css("p.ended")).await;
            match ended {
                Ok(ended) => ended.text().await.is_ok_and(|t| t == "Ended."),
                Err(_) => false,
            }
        })
        .await;
        let shown: Vec<String> = {
            let mut shown = Vec::new();
            for line in browser.find_all(By::Css("ol.transcript li")).await? {
                shown.push(line.text().await?.trim().to_owned());
            }
            shown
        };
        assert_eq!(
            shown,
            lines
                .iter()
                .map(|l| l.trim().to_owned())
                .collect::<Vec<_>>()
        );
        assert_eq!(
            browser.find_all(By::Css("ol.call li")).await?.len(),
            2,
            "the menu and its replay"
        );
        browser.screenshot(&shots.join("5-call.png")).await?;
        Ok::<_, WebDriverError>(())
    }
    .await;
    let _ = browser.quit().await;
    let _ = std::fs::remove_dir_all(&profile);
    result.expect("the browser session");
    eprintln!("screenshots in {}", shots.display());
}

/// The README's `curl` commands: each one's URL and body (`-d`).
fn readme_curls() -> Vec<(String, String)> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let mut commands = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if !line.trim_start().starts_with("curl ") {
            continue;
        }
        let mut command = line.to_owned();
        while command.ends_with('\\') {
            command.pop();
            command.push_str(lines.next().unwrap_or(""));
        }
        let words = shell_words(&command);
        let url = words
            .iter()
            .find(|w| w.starts_with("http://"))
            .expect("a curl command has a URL");
        let body = words
            .windows(2)
            .filter(|w| w[0] == "-d" || w[0] == "--data")
            .map(|w| w[1].clone())
            .collect::<Vec<_>>()
            .join("&");
        commands.push((url.clone(), body));
    }
    commands
}

/// A command line split as the shell splits it, for single quotes.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Posts `body` to the README's `url`, moved to the server's port; the
/// invocation id.
async fn send(server: &Server, url: &str, body: &str) -> String {
    let path = url.trim_start_matches("http://127.0.0.1:3001");
    let response = reqwest::Client::new()
        .post(server.url(path))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{url} {body}");
    response.headers()["x-ccfn-invocation-id"]
        .to_str()
        .unwrap()
        .to_owned()
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ccfn-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
