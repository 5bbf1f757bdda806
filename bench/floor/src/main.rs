//! The floor of ccfn's benches: what axum on tokio costs by itself for the
//! examples server's busiest route. The same path, the same form parsing
//! (`CallSid`, `From` and `To` required), and the same answer, byte for
//! byte, as the wait experience's menu, with no contract and no logging.
//!
//! Run with `cargo run --release -p ccfn-bench-floor` (`CCFN_ADDR` sets
//! the address, default `127.0.0.1:3001`); `bench/load.sh` and
//! `bench/instructions.sh` run it beside the examples server.

use axum::extract::Form;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde::Deserialize;

/// The wait experience's path.
const PATH: &str = "/features/callback-and-voicemail-with-email/studio/wait-experience";

/// The parameters the wait experience requires, and its mode.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Voice {
    call_sid: String,
    from: String,
    to: String,
    #[serde(rename = "mode")]
    mode: Option<String>,
}

/// The menu, as the examples server answers a request without `mode`.
fn menu() -> String {
    format!(
        concat!(
            r#"<?xml version="1.0" encoding="UTF-8"?><Response><Gather input="dtmf" numDigits="1" timeout="5" action="{path}" method="POST">"#,
            r#"<Say>All of our agents are busy. Press 1 to leave a voicemail, or 2 to request a callback.</Say></Gather>"#,
            r#"<Say>Please hold. An agent will be with you shortly.</Say><Redirect method="POST">{path}</Redirect></Response>"#
        ),
        path = PATH
    )
}

async fn wait_experience(Form(voice): Form<Voice>) -> Response {
    let missing = [
        ("CallSid", &voice.call_sid),
        ("From", &voice.from),
        ("To", &voice.to),
    ]
    .into_iter()
    .find(|(_, value)| value.trim().is_empty());
    if let Some((name, _)) = missing {
        let body = format!(r#"{{"message":"Missing required parameter: {name}"}}"#);
        return (
            StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response();
    }
    let _mode = voice.mode.as_deref().unwrap_or("initial");
    ([(header::CONTENT_TYPE, "text/xml")], menu()).into_response()
}

#[tokio::main]
async fn main() {
    let addr = std::env::var("CCFN_ADDR").unwrap_or_else(|_| "127.0.0.1:3001".to_owned());
    let app = Router::new().route(PATH, post(wait_experience).head(|| async {}));
    let listener = match tokio::net::TcpListener::bind(&addr).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("ccfn-bench-floor: cannot listen on {addr}: {error}");
            std::process::exit(1);
        }
    };
    if let Err(error) = axum::serve(listener, app).await {
        eprintln!("ccfn-bench-floor: {error}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use ccfn_core::Reply;
    use ccfn_testkit::{invoke, FakeContext, FakeEvent};
    use example_contact_center::{wait_experience, LOCAL_DEFAULTS};

    #[tokio::test]
    async fn the_menu_is_the_examples_servers_byte_for_byte() {
        let mut context = FakeContext::new();
        for (name, value) in LOCAL_DEFAULTS {
            context = context.value(name, value);
        }
        let run = invoke(wait_experience, context, FakeEvent::voice()).await;
        let Some(Reply::Voice(voice)) = run.reply() else {
            panic!("the wait experience answers with voice markup");
        };
        assert_eq!(super::menu(), voice.xml());
    }
}
