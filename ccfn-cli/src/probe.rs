//! `ccfn probe URL`: step 7 of the spec's procedure (test the endpoint) as
//! one command: DNS, TLS, a `HEAD` and a signed `POST` in debug mode, each
//! with a time limit and a clear verdict.

use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use crate::error::{Error, Problem};

/// A certificate that expires within this many days is a warning.
const EXPIRY_WARNING_DAYS: i64 = 14;
/// How much of the POST's answer is shown, and so read: the body is
/// streamed and the reading stops once this much arrived (an endless
/// answer ends the probe, not the memory).
const BODY_SHOWN: usize = 200;
/// The longest header value kept (the invocation id), in bytes: ccfn's
/// ids are 36 characters; a longer value is cut. The headers as a whole
/// are bounded by the HTTP client (hyper refuses a head over 400 KiB).
const HEADER_KEPT: usize = 128;
/// The variable holding the auth token the platform signs requests with.
const AUTH_TOKEN: &str = "AUTH_TOKEN";

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  ccfn probe https://cc.example.com/features/callback-and-voicemail-with-email/studio/wait-experience
  AUTH_TOKEN=... ccfn probe https://cc.example.com/features/inbound-call/calls/enqueue --param Language=es-MX
  ccfn probe https://localhost:8443/features/x --ca-cert dev-ca.pem --json

With AUTH_TOKEN set, the POST is signed as the platform signs it
(X-Twilio-Signature); the token is never printed.

Exit status: 0 when every step passed (warnings included), 1 when one
failed, 2 on a bad option.")]
pub(crate) struct ProbeArgs {
    /// The function's URL, as the platform calls it.
    url: String,
    /// A parameter of the POST, added to (or replacing) the voice
    /// parameters and `mode=debug`; repeatable.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = name_value)]
    params: Vec<(String, String)>,
    /// Trust the PEM certificate(s) in FILE besides the system's (a private
    /// CA, a test server's own certificate).
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<PathBuf>,
    /// Each step's time limit (10s, 500ms).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = humantime::parse_duration)]
    timeout: Duration,
    /// The results as one JSON object.
    #[arg(long)]
    json: bool,
}

fn name_value(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!("`{text}` is not NAME=VALUE")),
    }
}

/// How a step went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Passed,
    Warning,
    Failed,
    Skipped,
}

impl Verdict {
    fn mark(self) -> &'static str {
        match self {
            Verdict::Passed => "✓",
            Verdict::Warning => "!",
            Verdict::Failed => "✗",
            Verdict::Skipped => "-",
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Warning => "warning",
            Verdict::Failed => "failed",
            Verdict::Skipped => "skipped",
        }
    }
}

/// One step's result.
#[derive(Debug)]
struct Step {
    name: &'static str,
    verdict: Verdict,
    millis: Option<f64>,
    /// What was found, as (what, value), in order.
    details: Vec<(&'static str, Value)>,
    /// Why it failed or warns.
    problem: Option<String>,
}

impl Step {
    fn new(name: &'static str) -> Step {
        Step {
            name,
            verdict: Verdict::Passed,
            millis: None,
            details: Vec::new(),
            problem: None,
        }
    }

    fn skipped(name: &'static str, why: &str) -> Step {
        Step {
            verdict: Verdict::Skipped,
            problem: Some(why.to_owned()),
            ..Step::new(name)
        }
    }

    fn fail(mut self, problem: impl Into<String>) -> Step {
        self.verdict = Verdict::Failed;
        self.problem = Some(problem.into());
        self
    }

    fn detail(mut self, what: &'static str, value: impl Into<Value>) -> Step {
        self.details.push((what, value.into()));
        self
    }

    fn timed(mut self, since: Instant) -> Step {
        self.millis = Some(since.elapsed().as_secs_f64() * 1000.0);
        self
    }

    fn to_json(&self) -> Value {
        let details: serde_json::Map<String, Value> = self
            .details
            .iter()
            .map(|(what, value)| ((*what).to_owned(), value.clone()))
            .collect();
        json!({
            "step": self.name,
            "verdict": self.verdict.as_str(),
            "ms": self.millis,
            "details": details,
            "problem": self.problem,
        })
    }
}

/// What the certificate says, and whether it names `host`.
fn certificate(step: Step, der: &[u8], host: &str) -> Step {
    let Ok((_, cert)) = x509_parser::parse_x509_certificate(der) else {
        return step.fail("the server's certificate could not be read");
    };
    let names: Vec<String> = cert
        .subject_alternative_name()
        .ok()
        .flatten()
        .map(|san| {
            san.value
                .general_names
                .iter()
                .filter_map(|name| match name {
                    x509_parser::extensions::GeneralName::DNSName(dns) => Some((*dns).to_owned()),
                    x509_parser::extensions::GeneralName::IPAddress(ip) => ip_text(ip),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let expires = cert.validity().not_after.timestamp();
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let days = (expires - now).div_euclid(86_400);
    let matches = names.iter().any(|name| names_host(name, host));
    let expiry = u64::try_from(expires)
        .map(|secs| {
            humantime::format_rfc3339_seconds(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
                .to_string()
        })
        .unwrap_or_default();
    let mut step = step
        .detail("subject", cert.subject().to_string())
        .detail("issuer", cert.issuer().to_string())
        .detail("names", names.clone())
        .detail("expires", expiry)
        .detail("days_left", days)
        .detail("matches_host", matches);
    if !matches {
        step = step.fail(format!(
            "the certificate does not name {host}: it names {}",
            names.join(", ")
        ));
    } else if days < 0 {
        step = step.fail("the certificate has expired");
    } else if days < EXPIRY_WARNING_DAYS {
        step.verdict = Verdict::Warning;
        step.problem = Some(format!("the certificate expires in {days} days: renew it"));
    }
    step
}

fn ip_text(bytes: &[u8]) -> Option<String> {
    match bytes.len() {
        4 => Some(IpAddr::from(<[u8; 4]>::try_from(bytes).ok()?).to_string()),
        16 => Some(IpAddr::from(<[u8; 16]>::try_from(bytes).ok()?).to_string()),
        _ => None,
    }
}

/// Whether a certificate name (`*.example.com` matches one label) names
/// `host`.
fn names_host(name: &str, host: &str) -> bool {
    let (name, host) = (name.to_ascii_lowercase(), host.to_ascii_lowercase());
    match name.strip_prefix("*.") {
        Some(parent) => host
            .split_once('.')
            .is_some_and(|(label, rest)| !label.is_empty() && rest == parent),
        None => name == host,
    }
}

/// The probe's steps, in order: DNS, then TLS and HEAD from one
/// connection, then a signed POST in debug mode; a step that fails skips
/// the ones that need it.
async fn probe(args: &ProbeArgs, url: &reqwest::Url, token: Option<&str>) -> Vec<Step> {
    let mut steps = Vec::new();
    let host = url
        .host_str()
        .unwrap_or_default()
        .trim_matches(['[', ']'])
        .to_owned();
    let port = url.port_or_known_default().unwrap_or(80);

    let dns = dns_step(args, &host, port).await;
    let resolved = dns.verdict != Verdict::Failed;
    steps.push(dns);
    if !resolved {
        steps.push(Step::skipped("tls", "the host does not resolve"));
        steps.push(Step::skipped("head", "the host does not resolve"));
        steps.push(Step::skipped("post", "the host does not resolve"));
        return steps;
    }

    let client = match client(args) {
        Ok(client) => client,
        Err(err) => {
            steps.push(Step::new("tls").fail(err.to_string()));
            return steps;
        }
    };
    if head_steps(args, &client, url, &host, &mut steps).await {
        steps.push(post_step(args, &client, url, token).await);
    }
    steps
}

/// DNS: the host's addresses (an IP address is its own, not looked up).
async fn dns_step(args: &ProbeArgs, host: &str, port: u16) -> Step {
    let started = Instant::now();
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Step::new("dns")
            .detail("addresses", vec![ip.to_string()])
            .detail("lookup", false);
    }
    match tokio::time::timeout(args.timeout, tokio::net::lookup_host((host, port))).await {
        Err(_) => Step::new("dns").fail(format!(
            "no answer for {host} within {}",
            humantime::format_duration(args.timeout)
        )),
        Ok(Err(err)) => Step::new("dns").fail(format!("{host} does not resolve: {err}")),
        Ok(Ok(found)) => {
            let mut addresses: Vec<String> = found.map(|a| a.ip().to_string()).collect();
            addresses.dedup();
            Step::new("dns")
                .detail("addresses", addresses)
                .detail("lookup", true)
        }
    }
    .timed(started)
}

/// HEAD, and TLS from its connection (the server's certificate read):
/// both steps pushed on `steps`; whether to go on to the POST.
async fn head_steps(
    args: &ProbeArgs,
    client: &reqwest::Client,
    url: &reqwest::Url,
    host: &str,
    steps: &mut Vec<Step>,
) -> bool {
    let https = url.scheme() == "https";
    let started = Instant::now();
    let head = tokio::time::timeout(args.timeout, client.head(url.clone()).send()).await;
    let head_step = Step::new("head");
    match head {
        Err(_) => {
            let why = format!(
                "no answer within {}",
                humantime::format_duration(args.timeout)
            );
            steps.push(if https {
                Step::new("tls").fail(format!("no TLS handshake: {why}"))
            } else {
                Step::skipped("tls", "plain HTTP: no TLS")
            });
            steps.push(head_step.fail(why).timed(started));
            steps.push(Step::skipped("post", "HEAD got no answer"));
            false
        }
        Ok(Err(err)) => {
            let text = ccfn_core::error_chain(&err);
            let tls_failed = https
                && (text.contains("certificate") || text.contains("TLS") || text.contains("tls"));
            steps.push(if tls_failed {
                Step::new("tls").fail(format!("the TLS handshake failed: {text}"))
            } else if https {
                Step::skipped("tls", "no connection")
            } else {
                Step::skipped("tls", "plain HTTP: no TLS")
            });
            let why = if tls_failed {
                "the TLS handshake failed".to_owned()
            } else {
                text
            };
            steps.push(head_step.fail(why).timed(started));
            steps.push(Step::skipped("post", "HEAD failed"));
            false
        }
        Ok(Ok(response)) => {
            let millis = started.elapsed().as_secs_f64() * 1000.0;
            if https {
                let tls = Step::new("tls");
                let der = response
                    .extensions()
                    .get::<reqwest::tls::TlsInfo>()
                    .and_then(|info| info.peer_certificate().map(<[u8]>::to_vec));
                steps.push(match der {
                    Some(der) => certificate(tls, &der, host),
                    None => tls.fail("the server sent no certificate"),
                });
            } else {
                steps.push(Step::skipped("tls", "plain HTTP: no TLS"));
            }
            let status = response.status().as_u16();
            let mut step = head_step.detail("status", status);
            step.millis = Some(millis);
            if status >= 400 && status != 405 {
                step = step.fail(format!("HEAD answered {status}"));
            }
            steps.push(step);
            true
        }
    }
}

/// The POST: a call's parameters (`args`' own added or replacing them),
/// in debug mode, signed when `token` is given.
fn signed_post(
    args: &ProbeArgs,
    client: &reqwest::Client,
    url: &reqwest::Url,
    token: Option<&str>,
) -> reqwest::RequestBuilder {
    let mut params: Vec<(String, String)> = [
        ("CallSid", "CA00000000000000000000000000000000"),
        ("From", "+15550000000"),
        ("To", "+15550000001"),
        ("mode", "debug"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    for (name, value) in &args.params {
        match params.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => slot.1.clone_from(value),
            None => params.push((name.clone(), value.clone())),
        }
    }
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&params)
        .finish();
    let mut request = client
        .post(url.clone())
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body);
    if let Some(token) = token {
        let pairs: Vec<(&str, &str)> = params
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        request = request.header(
            ccfn_core::signature::SIGNATURE_HEADER,
            ccfn_core::signature::compute_signature(token, url.as_str(), &pairs),
        );
    }
    request
}

/// The POST step: the status, the invocation id and the start of the
/// body; failed on a status that is not 2xx (with what to check), a
/// warning when the answer is not a ccfn runtime's.
async fn post_step(
    args: &ProbeArgs,
    client: &reqwest::Client,
    url: &reqwest::Url,
    token: Option<&str>,
) -> Step {
    let request = signed_post(args, client, url, token);
    let signed = token.is_some();
    let started = Instant::now();
    let step = Step::new("post").detail("signed", signed);
    let post = tokio::time::timeout(args.timeout, async {
        let response = request.send().await?;
        let status = response.status().as_u16();
        let id = response
            .headers()
            .get("x-ccfn-invocation-id")
            .and_then(|v| v.to_str().ok())
            .map(|id| crate::summary::cut(id, HEADER_KEPT));
        let body = shown_body(response, BODY_SHOWN).await?;
        Ok::<_, reqwest::Error>((status, id, body))
    })
    .await;
    match post {
        Err(_) => step.fail(format!(
            "no answer within {}",
            humantime::format_duration(args.timeout)
        )),
        Ok(Err(err)) => step.fail(ccfn_core::error_chain(&err)),
        Ok(Ok((status, id, body))) => {
            let shown = String::from_utf8_lossy(&body.shown).into_owned();
            let mut step = step
                .detail("status", status)
                .detail("invocation_id", id.clone())
                .detail("body", shown);
            if body.cut {
                step = step.detail(
                    "body_cut",
                    format!(
                        "the answer was cut: {} bytes read, the first {} shown",
                        body.read,
                        body.shown.len()
                    ),
                );
            }
            if !(200..300).contains(&status) {
                let hint = match status {
                    403 if signed => {
                        " (check AUTH_TOKEN and that the URL is the one the platform calls)"
                    }
                    403 => " (the function checks signatures: set AUTH_TOKEN to sign the probe)",
                    404 => " (no function at this path)",
                    _ => "",
                };
                step = step.fail(format!("POST answered {status}{hint}"));
            } else if id.is_none() {
                step.verdict = Verdict::Warning;
                step.problem = Some(
                    "the answer has no x-ccfn-invocation-id: is this a ccfn runtime?".to_owned(),
                );
            }
            step
        }
    }
    .timed(started)
}

/// The start of an answer's body, read as a stream and no further.
#[derive(Debug)]
struct Body {
    /// Its first bytes, at most the cap.
    shown: Vec<u8>,
    /// How many bytes were read (the last piece read may pass the cap).
    read: u64,
    /// Whether the reading stopped at the cap, before the end.
    cut: bool,
}

/// Reads `response`'s body until `cap` bytes arrived or it ends; what is
/// past the cap is never asked for (the connection is dropped).
async fn shown_body(mut response: reqwest::Response, cap: usize) -> Result<Body, reqwest::Error> {
    let mut body = Body {
        shown: Vec::new(),
        read: 0,
        cut: false,
    };
    while let Some(chunk) = response.chunk().await? {
        body.read += chunk.len() as u64;
        let room = cap - body.shown.len();
        body.shown
            .extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.shown.len() == cap {
            body.cut = chunk.len() > room
                || response.chunk().await.ok().flatten().is_some_and(|more| {
                    body.read += more.len() as u64;
                    !more.is_empty()
                });
            break;
        }
    }
    Ok(body)
}

/// The client: redirects not followed (a redirect is the answer), the
/// certificate kept for inspection, the CA certificates ccfn's clients
/// trust (`CCFN_TLS_ROOTS`) and the extra CA trusted.
fn client(args: &ProbeArgs) -> Result<reqwest::Client, Problem> {
    ccfn_core::http::install_crypto_provider();
    let roots = ccfn_core::http::TlsRoots::from_env()
        .map_err(|err| Problem::Tls(err.message().to_owned()))?;
    let mut builder = roots
        .apply(reqwest::Client::builder())
        .redirect(reqwest::redirect::Policy::none())
        .tls_info(true)
        .user_agent("ccfn-probe");
    if let Some(path) = &args.ca_cert {
        let file = path.display().to_string();
        let pem = std::fs::read(path).map_err(|err| Problem::read(&file, err))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|err| Problem::certificate(&file, Some(ccfn_core::error_chain(&err))))?;
        if certs.is_empty() {
            return Err(Problem::certificate(&file, None));
        }
        builder = builder.tls_certs_merge(certs);
    }
    builder
        .build()
        .map_err(|err| Problem::Tls(ccfn_core::error_chain(&err)))
}

impl ProbeArgs {
    /// The arguments that probe `url` with the defaults.
    pub(crate) fn url(url: &str) -> ProbeArgs {
        ProbeArgs {
            url: url.to_owned(),
            params: Vec::new(),
            ca_cert: None,
            timeout: Duration::from_secs(10),
            json: false,
        }
    }
}

/// The results in both forms, and whether a step failed.
#[derive(Debug)]
pub(crate) struct Results {
    pub(crate) human: String,
    pub(crate) json: Value,
    pub(crate) failed: bool,
}

/// Runs `ccfn probe`.
pub(crate) fn run(args: &ProbeArgs) -> Result<ExitCode, Error> {
    show(args).map_err(Error::of("probe"))
}

/// Writes the results of probing `args`' URL.
fn show(args: &ProbeArgs) -> Result<ExitCode, Problem> {
    let results = results(args)?;
    if args.json {
        crate::terminal::write_json_out(&format!("{}\n", results.json))?;
    } else {
        crate::write_out(&results.human)?;
    }
    Ok(if results.failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Probes the URL `args` names.
pub(crate) fn results(args: &ProbeArgs) -> Result<Results, Problem> {
    let url = reqwest::Url::parse(&args.url)
        .map_err(|err| Problem::url(&args.url, format!("not a URL: {err}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(Problem::url(
            &args.url,
            "not an http or https URL".to_owned(),
        ));
    }
    if args.ca_cert.as_ref().is_some_and(|p| !p.is_file()) {
        return Err(Problem::Usage(format!(
            "--ca-cert: no file at {}",
            args.ca_cert
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        )));
    }
    let token = std::env::var(AUTH_TOKEN).ok().filter(|t| !t.is_empty());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Problem::Start)?;
    let steps = runtime.block_on(probe(args, &url, token.as_deref()));
    let failed = steps.iter().any(|s| s.verdict == Verdict::Failed);
    let json = json!({
        "url": url.as_str(),
        "steps": steps.iter().map(Step::to_json).collect::<Vec<_>>(),
        "passed": !failed,
    });
    let mut human = human(&url, &steps);
    let mut json_text = json.to_string();
    if let Some(token) = &token {
        // Whatever an answer echoed, the token is never shown.
        if token.len() >= ccfn_core::record::MIN_SCRUBBED_LEN {
            human = human.replace(token.as_str(), ccfn_core::record::REDACTED);
            json_text = json_text.replace(token.as_str(), ccfn_core::record::REDACTED);
        }
    }
    Ok(Results {
        human,
        json: serde_json::from_str(&json_text).unwrap_or(json),
        failed,
    })
}

/// The results for a person.
fn human(url: &reqwest::Url, steps: &[Step]) -> String {
    use std::fmt::Write as _;
    let mut out = format!("Probe of {url}\n");
    for step in steps {
        let millis = step
            .millis
            .map_or_else(String::new, |ms| format!("{ms:.0} ms"));
        let _ = writeln!(
            out,
            "{} {:<5} {:>8}",
            step.verdict.mark(),
            step.name.to_uppercase(),
            millis
        );
        for (what, value) in &step.details {
            let value = match value {
                Value::String(text) => text.clone(),
                Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned))
                    .collect::<Vec<_>>()
                    .join(", "),
                other => other.to_string(),
            };
            let _ = writeln!(out, "    {what}: {value}");
        }
        if let Some(problem) = &step.problem {
            let _ = writeln!(out, "    {}", problem);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificate_names_match_hosts_as_tls_does() {
        assert!(names_host("cc.example.com", "CC.example.com"));
        assert!(names_host("*.example.com", "cc.example.com"));
        assert!(!names_host("*.example.com", "example.com"));
        assert!(!names_host("*.example.com", "a.cc.example.com"));
        assert!(!names_host("cc.example.com", "cc.example.org"));
        assert!(names_host("127.0.0.1", "127.0.0.1"));
    }

    #[test]
    fn parameters_are_name_value() {
        assert_eq!(
            name_value("Language=es-MX"),
            Ok(("Language".into(), "es-MX".into()))
        );
        assert_eq!(name_value("Empty="), Ok(("Empty".into(), String::new())));
        assert!(name_value("=x").is_err());
        assert!(name_value("novalue").is_err());
    }
}
