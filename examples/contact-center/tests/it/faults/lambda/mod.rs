//! The examples server as it ships, built with the `lambda` feature, run
//! as AWS Lambda runs it: a child process whose `AWS_LAMBDA_RUNTIME_API`
//! points at a fake of the Lambda Runtime API on loopback. The fake
//! follows the API's published OpenAPI document (the subset in
//! `runtime-api.json`, beside this file, says where it comes from): it
//! serves only the operations the document defines, answers with the
//! statuses and headers it declares, and reports any request that does
//! not conform.
//!
//! The moment the fake receives an invocation's reply, it stops the
//! process with SIGSTOP, as Lambda freezes it; the test then checks that
//! every record of that invocation, through `end`, is already in the
//! process's standard output, with the invocation's request id and cold
//! start, before it lets the process go on (SIGCONT).

use std::collections::HashMap;
use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use example_contact_center::WAIT_URL;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// The subset of the Lambda Runtime API's OpenAPI document the fake
/// implements.
const SPEC: &str = include_str!("runtime-api.json");
/// The function's ARN, as the platform gives it.
const ARN: &str = "arn:aws:lambda:us-east-1:123456789012:function:contact-center";
/// The function URL's host.
const HOST: &str = "abcdefghijklmnopqrstuvwxyz0123.lambda-url.us-east-1.on.aws";

/// The operations of the document: its server's base path, and each
/// operation by method and path template.
struct Spec {
    base: String,
    document: Value,
}

impl Spec {
    fn load() -> Spec {
        let document: Value = serde_json::from_str(SPEC).expect("runtime-api.json is JSON");
        assert_eq!(document["info"]["version"], "1.0.3");
        let base = document["servers"][0]["url"].as_str().unwrap().to_owned();
        Spec { base, document }
    }

    /// The operation `method` `path` is: its path template and its path
    /// parameters, or `None` when the document defines no such
    /// operation.
    fn operation(&self, method: &Method, path: &str) -> Option<(String, HashMap<String, String>)> {
        let path = path.strip_prefix(&self.base)?;
        let method = method.as_str().to_ascii_lowercase();
        self.document["paths"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, operations)| operations.get(&method).is_some())
            .find_map(|(template, _)| {
                let wanted: Vec<&str> = template.split('/').collect();
                let given: Vec<&str> = path.split('/').collect();
                if wanted.len() != given.len() {
                    return None;
                }
                let mut parameters = HashMap::new();
                for (wanted, given) in wanted.iter().zip(&given) {
                    if let Some(name) = wanted.strip_prefix('{').and_then(|w| w.strip_suffix('}')) {
                        if given.is_empty() {
                            return None;
                        }
                        parameters.insert(name.to_owned(), (*given).to_owned());
                    } else if wanted != given {
                        return None;
                    }
                }
                Some((template.clone(), parameters))
            })
    }

    fn definition(&self, template: &str, method: &Method) -> &Value {
        &self.document["paths"][template][method.as_str().to_ascii_lowercase()]
    }

    /// The response the document declares for `status`; panics when it
    /// declares none, so that the fake never answers what the platform
    /// would not.
    fn response(&self, template: &str, method: &Method, status: u16) -> &Value {
        let response = &self.definition(template, method)["responses"][status.to_string()];
        assert!(
            response.is_object(),
            "the document declares no {status} for {method} {template}"
        );
        response
    }

    /// Whether the document declares the request header `name` for the
    /// operation.
    fn declares_request_header(&self, template: &str, method: &Method, name: &str) -> bool {
        self.definition(template, method)["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["in"] == "header" && p["name"].as_str() == Some(name))
    }
}

/// What the runtime sent the fake for an invocation.
#[derive(Debug)]
enum Sent {
    /// `POST /runtime/invocation/{id}/response`.
    Response { id: String, body: Value },
    /// `POST /runtime/invocation/{id}/error`, with its error type header.
    Error {
        id: String,
        error_type: Option<String>,
        body: Value,
    },
}

/// The fake Lambda Runtime API.
struct Fake {
    spec: Spec,
    /// The events to hand out, each with its request id.
    events: tokio::sync::Mutex<mpsc::UnboundedReceiver<(String, Value)>>,
    /// The request ids handed out.
    issued: Mutex<Vec<String>>,
    /// The process to freeze when a reply arrives.
    pid: Mutex<Option<u32>>,
    sent: mpsc::UnboundedSender<Sent>,
    /// What did not follow the document.
    problems: Mutex<Vec<String>>,
    /// Initialization errors reported.
    init_errors: Mutex<Vec<String>>,
}

impl Fake {
    fn problem(&self, problem: String) {
        self.problems.lock().unwrap().push(problem);
    }
}

/// Starts the fake on a free port of `127.0.0.1`: its address, the queue
/// of events it hands out, and what the runtime sends it.
async fn start_fake() -> (
    String,
    Arc<Fake>,
    mpsc::UnboundedSender<(String, Value)>,
    mpsc::UnboundedReceiver<Sent>,
) {
    let (events_tx, events_rx) = mpsc::unbounded_channel();
    let (sent_tx, sent_rx) = mpsc::unbounded_channel();
    let fake = Arc::new(Fake {
        spec: Spec::load(),
        events: tokio::sync::Mutex::new(events_rx),
        issued: Mutex::new(Vec::new()),
        pid: Mutex::new(None),
        sent: sent_tx,
        problems: Mutex::new(Vec::new()),
        init_errors: Mutex::new(Vec::new()),
    });
    let app = axum::Router::new()
        .fallback(runtime_api)
        .with_state(Arc::clone(&fake));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, fake, events_tx, sent_rx)
}

/// Every request of the runtime: the operation the document defines for
/// it, answered as the document declares.
async fn runtime_api(
    State(fake): State<Arc<Fake>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some((template, parameters)) = fake.spec.operation(&method, uri.path()) else {
        fake.problem(format!("{method} {uri}: not an operation of the document"));
        return StatusCode::NOT_FOUND.into_response();
    };
    let accepted = |fake: &Fake| {
        let status = 202;
        let declared = fake.spec.response(&template, &method, status);
        assert!(declared["content"]["application/json"].is_object());
        (
            StatusCode::from_u16(status).unwrap(),
            [("content-type", "application/json")],
            json!({"status": "OK"}).to_string(),
        )
            .into_response()
    };
    let json_body = |fake: &Fake| match serde_json::from_slice::<Value>(&body) {
        Ok(value) => value,
        Err(e) => {
            fake.problem(format!("{method} {uri}: the body is not JSON ({e})"));
            Value::Null
        }
    };
    let known_id = |fake: &Fake| {
        let id = parameters.get("AwsRequestId").cloned().unwrap_or_default();
        if !fake.issued.lock().unwrap().contains(&id) {
            fake.problem(format!(
                "{method} {uri}: request id `{id}` was never handed out"
            ));
        }
        id
    };
    match template.as_str() {
        "/runtime/invocation/next" => {
            // Blocks until there is an event, as the platform does.
            let Some((id, event)) = fake.events.lock().await.recv().await else {
                return std::future::pending().await;
            };
            fake.issued.lock().unwrap().push(id.clone());
            let response = fake.spec.response(&template, &method, 200);
            assert!(response["content"]["application/json"].is_object());
            let deadline =
                SystemTime::now().duration_since(UNIX_EPOCH).unwrap() + Duration::from_secs(60);
            let mut answer =
                ([("content-type", "application/json")], event.to_string()).into_response();
            for (name, value) in [
                ("Lambda-Runtime-Aws-Request-Id", id.clone()),
                (
                    "Lambda-Runtime-Deadline-Ms",
                    deadline.as_millis().to_string(),
                ),
                ("Lambda-Runtime-Invoked-Function-Arn", ARN.to_owned()),
                (
                    "Lambda-Runtime-Trace-Id",
                    "Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700;Parent=9a9197af755a6419;Sampled=0"
                        .to_owned(),
                ),
            ] {
                assert!(
                    response["headers"][name].is_object(),
                    "the document declares no `{name}` header"
                );
                answer
                    .headers_mut()
                    .insert(name, HeaderValue::from_str(&value).unwrap());
            }
            answer
        }
        "/runtime/invocation/{AwsRequestId}/response" => {
            // Frozen the moment its reply is in, as Lambda does.
            if let Some(pid) = *fake.pid.lock().unwrap() {
                signal(libc::SIGSTOP, pid);
            }
            let id = known_id(&fake);
            let body = json_body(&fake);
            let _ = fake.sent.send(Sent::Response { id, body });
            accepted(&fake)
        }
        "/runtime/invocation/{AwsRequestId}/error" => {
            let id = known_id(&fake);
            let name = "Lambda-Runtime-Function-Error-Type";
            assert!(fake.spec.declares_request_header(&template, &method, name));
            let error_type = headers
                .get(name)
                .map(|v| v.to_str().unwrap_or_default().to_owned());
            let body = json_body(&fake);
            let _ = fake.sent.send(Sent::Error {
                id,
                error_type,
                body,
            });
            accepted(&fake)
        }
        "/runtime/init/error" => {
            fake.init_errors
                .lock()
                .unwrap()
                .push(String::from_utf8_lossy(&body).into_owned());
            accepted(&fake)
        }
        other => {
            fake.problem(format!(
                "{method} {other}: an operation the fake does not serve"
            ));
            StatusCode::NOT_IMPLEMENTED.into_response()
        }
    }
}

/// Sends `signal` (SIGSTOP, SIGCONT) to `pid`, at once.
fn signal(signal: libc::c_int, pid: u32) {
    let pid = libc::pid_t::try_from(pid).unwrap();
    // SAFETY: kill(2) has no memory-safety preconditions.
    let sent = unsafe { libc::kill(pid, signal) };
    assert_eq!(
        sent,
        0,
        "kill({pid}, {signal}): {}",
        std::io::Error::last_os_error()
    );
}

/// The state of process `pid` (`T` when stopped), from `/proc`.
fn state(pid: u32) -> char {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let (_, after) = stat.rsplit_once(')').unwrap();
    after.trim_start().chars().next().unwrap()
}

/// The function-URL event of a form `POST` of `body` to `path?query`.
fn function_url_event(path: &str, query: &str, body: &str) -> Value {
    json!({
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": query,
        "headers": {
            "content-type": "application/x-www-form-urlencoded",
            "host": HOST,
            "user-agent": "TwilioProxy/1.1",
            "x-forwarded-proto": "https",
            "x-forwarded-port": "443"
        },
        "requestContext": {
            "accountId": "anonymous",
            "apiId": "abcdefghijklmnopqrstuvwxyz0123",
            "domainName": HOST,
            "domainPrefix": "abcdefghijklmnopqrstuvwxyz0123",
            "http": {
                "method": "POST",
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "54.172.60.1",
                "userAgent": "TwilioProxy/1.1"
            },
            "requestId": "c2b1e0a9-5d4e-4f3a-8b2c-1d0e9f8a7b6c",
            "routeKey": "$default",
            "stage": "$default",
            "time": "26/Nov/2026:09:00:00 +0000",
            "timeEpoch": 1_795_683_600_000_u64
        },
        "body": body,
        "isBase64Encoded": false
    })
}

/// The examples server started as the platform starts it, killed (by its
/// process id, after SIGCONT) and its folder removed when dropped.
///
/// Its standard output is a pipe, as on Lambda, read slowly (a page of
/// room, 256 bytes a millisecond): an invocation's lines take the log
/// writer tens of milliseconds, so a reply that does not wait for them
/// leaves first.
struct OnLambda {
    child: Child,
    dir: PathBuf,
    stdout: Arc<Mutex<Output>>,
}

/// What has come out of the pipe so far.
#[derive(Default)]
struct Output {
    bytes: Vec<u8>,
    /// How many reads found the pipe empty.
    empty: u64,
    closed: bool,
}

/// Reads `pipe` slowly into `output` until it closes.
fn read_slowly(pipe: std::process::ChildStdout, output: Arc<Mutex<Output>>) {
    use std::io::Read as _;
    use std::os::fd::AsRawFd as _;
    let fd = pipe.as_raw_fd();
    // SAFETY: fcntl(2) on a file descriptor this function owns.
    unsafe {
        assert!(libc::fcntl(fd, libc::F_SETPIPE_SZ, 4096) >= 4096);
        let flags = libc::fcntl(fd, libc::F_GETFL);
        assert_eq!(libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK), 0);
    }
    let mut pipe = pipe;
    let mut chunk = [0_u8; 256];
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) => {
                output.lock().unwrap().closed = true;
                return;
            }
            Ok(read) => output
                .lock()
                .unwrap()
                .bytes
                .extend_from_slice(&chunk[..read]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                output.lock().unwrap().empty += 1;
            }
            Err(e) => panic!("reading the server's standard output: {e}"),
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

impl OnLambda {
    fn start(runtime_api: &str, env: &[(&str, &str)]) -> OnLambda {
        let dir = std::env::temp_dir().join(format!("ccfn-lambda-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_example-contact-center"))
            .env_clear()
            .current_dir(&dir)
            .env("AWS_LAMBDA_RUNTIME_API", runtime_api)
            .env("AWS_LAMBDA_FUNCTION_NAME", "contact-center")
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
            .env("CCFN_LOG_FORMAT", "json")
            .env("CCFN_MEMORY_LIMIT_BYTES", "536870912")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(File::create(dir.join("stderr")).unwrap())
            .spawn()
            .expect("the examples server starts");
        let mut child = child;
        let stdout = Arc::new(Mutex::new(Output::default()));
        let pipe = child.stdout.take().unwrap();
        std::thread::spawn({
            let stdout = Arc::clone(&stdout);
            move || read_slowly(pipe, stdout)
        });
        OnLambda { child, dir, stdout }
    }

    /// Everything the process wrote to its standard output up to now,
    /// once it is stopped: read until the pipe is found empty.
    async fn text_when_stopped(&self) -> String {
        let empty = self.stdout.lock().unwrap().empty;
        loop {
            {
                let output = self.stdout.lock().unwrap();
                if output.empty > empty + 1 || output.closed {
                    return String::from_utf8(output.bytes.clone()).unwrap();
                }
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.join("stderr")).unwrap_or_default()
    }
}

impl Drop for OnLambda {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = Command::new("kill")
                .args(["-CONT", &self.child.id().to_string()])
                .status();
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The smoke test's signed test call, as `docs/deployment.md` shows it:
/// its form body, and the answer's content type, length and body.
fn smoke_test() -> (String, String, usize, String) {
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/deployment.md"
    ))
    .unwrap();
    let section = page
        .split("### 3. A signed test call")
        .nth(1)
        .and_then(|rest| rest.split("\n### ").next())
        .expect("the smoke test's third step");
    let mut form = Vec::new();
    for line in section.lines() {
        for part in line.split(" --data-urlencode '").skip(1) {
            form.push(part.split('\'').next().unwrap().replace('+', "%2B"));
        }
        if let Some(rest) = line.trim().strip_prefix("-d '") {
            form.push(rest.trim_end_matches('\'').to_owned());
        }
    }
    let answer = section
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("the smoke test's answer");
    let header = |name: &str| {
        answer
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}: ")))
            .unwrap_or_else(|| panic!("no {name} in the documented answer"))
            .to_owned()
    };
    let body = answer.lines().last().unwrap().to_owned();
    (
        form.join("&"),
        header("content-type"),
        header("content-length").parse().unwrap(),
        body,
    )
}

#[tokio::test]
async fn on_lambda_every_record_of_an_invocation_is_out_before_its_reply_leaves() {
    let (runtime_api, fake, events, mut sent) = start_fake().await;
    // A task router that refuses connections: the callback's invocation
    // is polled several times, around its failed call.
    let closed = ccfn_testkit::ClosedPort::new();
    let task_router = format!("http://{}/v1", closed.addr());
    let process = OnLambda::start(
        &runtime_api,
        &[
            ("PLATFORM_WORKSPACE_SID", super::WORKSPACE),
            ("workflowSid", super::WORKFLOW),
            ("ACCOUNT_SID", super::ACCOUNT),
            ("API_KEY_SID", super::API_KEY_SID),
            ("API_KEY_SECRET", super::API_KEY_SECRET),
            ("TASKROUTER_BASE_URL", &task_router),
        ],
    );
    let pid = process.child.id();
    *fake.pid.lock().unwrap() = Some(pid);
    let (smoke_form, smoke_type, smoke_length, smoke_body) = smoke_test();

    let voice = "CallSid=CAlambda&From=%2B15551230000&To=%2B15559870000";
    let invocations = [
        ("menu", "", voice.to_owned()),
        ("callback", "mode=callback", voice.to_owned()),
        ("smoke test", "", smoke_form),
        ("menu again", "", voice.to_owned()),
    ];
    for (n, (what, query, form)) in invocations.iter().enumerate() {
        let id = format!("8476a536-e9f4-11e8-9739-{n:012}");
        events
            .send((id.clone(), function_url_event(WAIT_URL, query, form)))
            .unwrap();
        let reply = tokio::time::timeout(Duration::from_secs(30), sent.recv())
            .await
            .unwrap_or_else(|_| panic!("no reply to {what} within 30 s: {}", process.stderr()))
            .unwrap();
        let Sent::Response { id: replied, body } = reply else {
            panic!("{what}: an error instead of a reply: {reply:?}");
        };
        assert_eq!(replied, id);
        // Frozen: nothing more is written until it is let go.
        let stopping = std::time::Instant::now();
        while state(pid) != 'T' {
            assert!(
                stopping.elapsed() < Duration::from_secs(5),
                "{what}: the process did not stop"
            );
            std::thread::yield_now();
        }
        let text = process.text_when_stopped().await;
        assert!(text.ends_with('\n'), "{what}: a line is cut: {text}");
        let records: Vec<Value> = text
            .lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("a log line is not JSON ({e}): {line}"))
            })
            .collect();
        let invocation_id = body["headers"]["x-ccfn-invocation-id"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: no invocation id in {body}"));
        let of_invocation: Vec<&Value> = records
            .iter()
            .filter(|r| r["invocation_id"] == invocation_id)
            .collect();
        let steps: Vec<&str> = of_invocation
            .iter()
            .map(|r| r["step"].as_str().unwrap())
            .collect();
        assert_eq!(steps.first(), Some(&"start"), "{what}: {text}");
        assert_eq!(
            steps.last(),
            Some(&"end"),
            "{what}: the invocation's last records are not out with its reply: {steps:?}"
        );
        for step in ["metrics", "success"] {
            assert!(steps.contains(&step), "{what}: no `{step}` yet: {steps:?}");
        }
        if *what == "callback" {
            assert!(steps.contains(&"api_error"), "{steps:?}");
        }
        for record in &of_invocation {
            assert_eq!(record["function_request_id"], id.as_str(), "{record}");
            assert_eq!(record["cold_start"], n == 0, "{record}");
        }
        // Records outside an invocation carry no request id.
        for record in records.iter().filter(|r| r.get("invocation_id").is_none()) {
            assert!(record.get("function_request_id").is_none(), "{record}");
        }
        assert_eq!(body["statusCode"], 200, "{what}: {body}");
        if *what == "smoke test" {
            // What docs/deployment.md shows is what runs.
            assert_eq!(body["headers"]["content-type"], smoke_type.as_str());
            assert_eq!(
                body["body"],
                smoke_body.as_str(),
                "docs/deployment.md's smoke test"
            );
            assert_eq!(
                smoke_body.len(),
                smoke_length,
                "docs/deployment.md's content-length"
            );
            assert_eq!(body["headers"]["content-length"], smoke_length.to_string());
        }
        signal(libc::SIGCONT, pid);
    }

    // An event the function URL adapter cannot read: reported as the
    // invocation's error, as the document says.
    let id = "8476a536-e9f4-11e8-9739-0000000000ff".to_owned();
    events
        .send((id.clone(), json!({"not": "an event of a function URL"})))
        .unwrap();
    let reply = tokio::time::timeout(Duration::from_secs(30), sent.recv())
        .await
        .expect("an error report within 30 s")
        .unwrap();
    let Sent::Error {
        id: reported,
        error_type,
        body,
    } = reply
    else {
        panic!("a reply to an unreadable event: {reply:?}");
    };
    assert_eq!(reported, id);
    assert!(error_type.is_some_and(|t| !t.is_empty()));
    let schema = &fake.spec.document["components"]["schemas"]["ErrorRequest"]["properties"];
    for field in ["errorType", "errorMessage"] {
        assert_eq!(schema[field]["type"], "string");
        assert!(body[field].is_string(), "{field} in {body}");
    }

    assert!(
        fake.problems.lock().unwrap().is_empty(),
        "{:#?}",
        fake.problems.lock().unwrap()
    );
    assert!(fake.init_errors.lock().unwrap().is_empty());
    drop(process);
}
