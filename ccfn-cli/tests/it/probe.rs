//! `ccfn probe` against the example runtime on loopback over plain HTTP
//! (signatures checked by the runtime itself), and against a TLS server on
//! loopback with a certificate made in the test by a CA made in the test,
//! trusted through `--ca-cert` only.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use ccfn_core::runtime::{Runtime, RuntimeConfig};
use ccfn_testkit::FakeContext;
use common::{temp_dir, write};
use example_contact_center::WAIT_URL;
use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

const TOKEN: &str = "canary-probe-auth-token-7d1c5e";

/// Runs `ccfn probe args..` with `AUTH_TOKEN` set to `token` (or unset);
/// the exit status and the JSON results.
async fn probe(args: &[&str], token: Option<&str>) -> (i32, Value, String) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_ccfn"));
    command
        .arg("probe")
        .arg("--json")
        .args(args)
        .env_remove("AUTH_TOKEN");
    if let Some(token) = token {
        command.env("AUTH_TOKEN", token);
    }
    let output = command.output().await.unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    let value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout} {stderr}"));
    (output.status.code().unwrap(), value, stdout)
}

fn step<'a>(results: &'a Value, name: &str) -> &'a Value {
    results["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == name)
        .unwrap()
}

/// The example runtime, with an auth token, on a free loopback port.
async fn runtime() -> (String, tokio::sync::oneshot::Sender<()>) {
    let context = FakeContext::new()
        .value("AUTH_TOKEN", TOKEN)
        .value("workflowSid", common::WORKFLOW)
        .value("VOICEMAIL_TO", "oncall@example.com")
        .value("VOICEMAIL_FROM", "voicemail@mg.example.com")
        .build();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let runtime = example_contact_center::runtime(Runtime::new(context, RuntimeConfig::default()));
    runtime.check().expect("the runtime starts");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(runtime.serve_with(listener, async {
        let _ = stopped.await;
    }));
    (base, stop)
}

#[tokio::test]
async fn a_signed_probe_reaches_the_function_in_debug_mode() {
    let (base, _stop) = runtime().await;
    let url = format!("{base}{WAIT_URL}");
    let (code, results, stdout) = probe(&[&url], Some(TOKEN)).await;
    assert_eq!(code, 0, "{results:#}");
    assert_eq!(results["passed"], true);
    let dns = step(&results, "dns");
    assert_eq!(dns["verdict"], "passed");
    assert_eq!(
        dns["details"]["addresses"],
        serde_json::json!(["127.0.0.1"])
    );
    assert_eq!(dns["details"]["lookup"], false);
    assert_eq!(step(&results, "tls")["verdict"], "skipped");
    assert_eq!(step(&results, "head")["verdict"], "passed");
    let post = step(&results, "post");
    assert_eq!(post["verdict"], "passed", "{post:#}");
    assert_eq!(post["details"]["status"], 200);
    assert_eq!(post["details"]["signed"], true);
    assert_eq!(post["details"]["invocation_id"].as_str().unwrap().len(), 24);
    assert!(post["details"]["body"]
        .as_str()
        .unwrap()
        .starts_with("<?xml"));
    assert!(post["ms"].as_f64().unwrap() > 0.0);
    assert!(!stdout.contains(TOKEN), "the token is never printed");

    // By name: a lookup.
    let by_name = url.replace("127.0.0.1", "localhost");
    let (_, results, _) = probe(&[&by_name], Some(TOKEN)).await;
    let dns = step(&results, "dns");
    assert_eq!(dns["details"]["lookup"], true, "{dns:#}");
    assert!(dns["details"]["addresses"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "127.0.0.1"));
}

#[tokio::test]
async fn a_missing_or_wrong_token_and_a_wrong_path_say_what_failed() {
    let (base, _stop) = runtime().await;
    let url = format!("{base}{WAIT_URL}");
    let (code, results, _) = probe(&[&url], None).await;
    assert_eq!(code, 1);
    let post = step(&results, "post");
    assert_eq!(post["details"]["signed"], false);
    assert_eq!(
        post["problem"],
        "POST answered 403 (the function checks signatures: set AUTH_TOKEN to sign the probe)"
    );
    let (code, results, stdout) = probe(&[&url], Some("canary-not-the-token-0a1b2c")).await;
    assert_eq!(code, 1);
    assert_eq!(
        step(&results, "post")["problem"],
        "POST answered 403 (check AUTH_TOKEN and that the URL is the one the platform calls)"
    );
    assert!(!stdout.contains("canary-not-the-token-0a1b2c"));
    let (code, results, _) = probe(&[&format!("{base}/features/nothing")], Some(TOKEN)).await;
    assert_eq!(code, 1);
    assert_eq!(step(&results, "head")["problem"], "HEAD answered 404");
    assert_eq!(
        step(&results, "post")["problem"],
        "POST answered 404 (no function at this path)"
    );
    // Nothing listens: the connection is refused, and said so.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = format!("http://{}/x", closed.local_addr().unwrap());
    drop(closed);
    let (code, results, _) = probe(&[&nowhere, "--timeout", "2s"], None).await;
    assert_eq!(code, 1);
    let head = step(&results, "head");
    assert!(
        head["problem"]
            .as_str()
            .unwrap()
            .contains("onnection refused"),
        "{head:#}"
    );
}

/// A TLS server on loopback answering every request with a voice
/// document, with a leaf certificate for `names` (valid until
/// `not_after`) signed by a CA made here; returns its port and the CA's
/// PEM.
pub(crate) async fn tls_server(names: &[&str], days_left: u64) -> (u16, String) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "ccfn test CA");
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let mut leaf_params =
        rcgen::CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
            .unwrap();
    let (y, m, d) = date_in(days_left);
    leaf_params.not_after = rcgen::date_time_ymd(y, m, d);
    leaf_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, names[0]);
    let leaf = leaf_params.signed_by(&leaf_key, &issuer).unwrap();

    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![leaf.der().clone()],
        rustls::pki_types::PrivateKeyDer::try_from(leaf_key.serialize_der()).unwrap(),
    )
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(stream).await else {
                    return;
                };
                let mut request = Vec::new();
                let mut chunk = [0u8; 4096];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&chunk[..n]),
                    }
                }
                let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response/>";
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/xml\r\nx-ccfn-invocation-id: 000000000000000000000001\r\n\
                     content-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tls.write_all(answer.as_bytes()).await;
                let _ = tls.shutdown().await;
            });
        }
    });
    (port, ca_cert.pem())
}

/// The UTC date `days` from now, as year, month and day.
fn date_in(days: u64) -> (i32, u8, u8) {
    let at = std::time::SystemTime::now() + Duration::from_secs(days * 86_400);
    let text = humantime::format_rfc3339_seconds(at).to_string();
    (
        text[0..4].parse().unwrap(),
        text[5..7].parse().unwrap(),
        text[8..10].parse().unwrap(),
    )
}

#[tokio::test]
async fn tls_is_checked_with_a_ca_trusted_through_an_option_only() {
    let (port, ca) = tls_server(&["localhost", "127.0.0.1"], 90).await;
    let dir = temp_dir("probe-tls");
    let ca_file = write(&dir, "ca.pem", &ca);
    let url = format!("https://localhost:{port}/features/x");
    let (code, results, _) = probe(&[&url, "--ca-cert", ca_file.to_str().unwrap()], None).await;
    assert_eq!(code, 0, "{results:#}");
    let tls = step(&results, "tls");
    assert_eq!(tls["verdict"], "passed", "{tls:#}");
    assert_eq!(tls["details"]["issuer"], "CN=ccfn test CA");
    assert_eq!(tls["details"]["subject"], "CN=localhost");
    assert_eq!(
        tls["details"]["names"],
        serde_json::json!(["localhost", "127.0.0.1"])
    );
    assert_eq!(tls["details"]["matches_host"], true);
    let days = tls["details"]["days_left"].as_i64().unwrap();
    assert!((88..=90).contains(&days), "{days}");
    assert_eq!(step(&results, "post")["details"]["status"], 200);

    // The same server without the option: not trusted.
    let (code, results, _) = probe(&[&url], None).await;
    assert_eq!(code, 1);
    let tls = step(&results, "tls");
    assert_eq!(tls["verdict"], "failed");
    assert!(
        tls["problem"]
            .as_str()
            .unwrap()
            .starts_with("the TLS handshake failed"),
        "{tls:#}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_certificate_near_its_end_or_for_another_host_is_reported() {
    let (port, ca) = tls_server(&["localhost"], 5).await;
    let dir = temp_dir("probe-expiry");
    let ca_file = write(&dir, "ca.pem", &ca);
    let url = format!("https://localhost:{port}/features/x");
    let (code, results, _) = probe(&[&url, "--ca-cert", ca_file.to_str().unwrap()], None).await;
    assert_eq!(code, 0, "a warning is not a failure: {results:#}");
    let tls = step(&results, "tls");
    assert_eq!(tls["verdict"], "warning");
    assert!(
        tls["problem"].as_str().unwrap().contains("expires in"),
        "{tls:#}"
    );

    let (port, ca) = tls_server(&["cc.example.test"], 90).await;
    let ca_file = write(&dir, "other.pem", &ca);
    let url = format!("https://localhost:{port}/features/x");
    let (code, results, _) = probe(&[&url, "--ca-cert", ca_file.to_str().unwrap()], None).await;
    assert_eq!(code, 1);
    assert_eq!(step(&results, "tls")["verdict"], "failed");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_options_exit_2() {
    let ran = common::ccfn(&["probe", "not a url"], None);
    assert_eq!(ran.code, 2);
    assert!(ran.stderr.contains("is not a URL"), "{}", ran.stderr);
    let ran = common::ccfn(&["probe", "ftp://example.com/x"], None);
    assert_eq!(ran.code, 2);
    let ran = common::ccfn(
        &[
            "probe",
            "http://127.0.0.1:9/x",
            "--ca-cert",
            "/nonexistent.pem",
        ],
        None,
    );
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr
            .contains("--ca-cert: no file at /nonexistent.pem"),
        "{}",
        ran.stderr
    );
    let ran = common::ccfn(
        &["probe", "http://127.0.0.1:9/x", "--param", "novalue"],
        None,
    );
    assert_eq!(ran.code, 2);
}

/// A server on loopback that answers `HEAD` with 200 and `POST` with an
/// endless chunked body (and an invocation id 300 bytes long); the bytes
/// of body it sent so far are counted.
async fn endless_server() -> (String, Arc<std::sync::atomic::AtomicU64>) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let sent = Arc::new(AtomicU64::new(0));
    let counted = sent.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let sent = counted.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                loop {
                    if socket.read(&mut byte).await.unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                    if !head.ends_with(b"\r\n\r\n") {
                        continue;
                    }
                    if head.starts_with(b"HEAD ") {
                        let answer = "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
                        if socket.write_all(answer.as_bytes()).await.is_err() {
                            return;
                        }
                        head.clear();
                        continue;
                    }
                    let id = "i".repeat(300);
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nx-ccfn-invocation-id: {id}\r\n\r\n"
                    );
                    if socket.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                    let chunk = format!("4000\r\n{}\r\n", "A".repeat(0x4000));
                    while socket.write_all(chunk.as_bytes()).await.is_ok() {
                        sent.fetch_add(0x4000, Ordering::Relaxed);
                    }
                    return;
                }
            });
        }
    });
    (base, sent)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_answer_is_read_only_as_far_as_it_is_shown_and_said_cut() {
    let (base, sent) = endless_server().await;
    let started = std::time::Instant::now();
    let url = format!("{base}/features/x");
    let (code, results, _) = probe(&[&url, "--timeout", "60s"], None).await;
    // Read to the cap, not to the time limit.
    assert!(started.elapsed() < Duration::from_secs(20), "{results}");
    let post = step(&results, "post");
    assert_eq!(post["details"]["status"], 200, "{results}");
    let body = post["details"]["body"].as_str().unwrap();
    assert_eq!(body, "A".repeat(200));
    let cut = post["details"]["body_cut"].as_str().unwrap();
    assert!(cut.starts_with("the answer was cut: "), "{cut}");
    assert!(cut.ends_with(" bytes read, the first 200 shown"), "{cut}");
    let read: u64 = cut["the answer was cut: ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((200..=4 << 20).contains(&read), "{read}");
    // The one header kept is cut too.
    let id = post["details"]["invocation_id"].as_str().unwrap();
    assert!(
        id.starts_with(&"i".repeat(128)) && id.ends_with("… (cut: 300 bytes)"),
        "{id}"
    );
    assert_eq!(code, 0, "{results}");
    // The probe hung up: the server's writes fail and it stops sending.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let then = sent.load(std::sync::atomic::Ordering::Relaxed);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sent.load(std::sync::atomic::Ordering::Relaxed), then);
}
