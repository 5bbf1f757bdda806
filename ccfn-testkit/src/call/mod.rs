//! Whole phone calls as tests: the platform's side of a call, played
//! against the functions over a real loopback server.
//!
//! [`Call`] serves a runtime's router on `127.0.0.1`, starts a call at a
//! voice URL with the parameters the platform sends (signed with the auth
//! token when one is given), reads each document answered and runs it
//! verb by verb. The caller's steps ([`Call::press`], [`Call::says`],
//! [`Call::waits`], [`Call::hangs_up`]) feed the verb that waits for them;
//! time is simulated, so a minute on hold takes no real time. Every
//! invocation the call makes is captured as a [`crate::Run`], so
//! [`Call::assert_contract`] checks the logging contract of each, and the
//! [`Transcript`] is stable text for `insta`.
//!
//! Simulated: `Say`, `Play`, `Pause` (heard), `Gather` (digits and
//! speech), `Redirect`, `Record` (its action and recording status
//! callback), `Enqueue` (the wait URL loop, its action), `Leave`,
//! `Hangup`, `Reject`, `Dial` (a scripted outcome), the call's status
//! callback. Every other verb is written in the transcript as heard but
//! not simulated, and the call goes on.

mod interpreter;
mod transcript;

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use ccfn_core::runtime::Runtime;
use ccfn_core::{Error, ErrorKind, Reply};
use reqwest::Url;
use tracing::instrument::WithSubscriber as _;

pub use interpreter::{DialOutcome, Input, Limits};
pub use transcript::{Entry, Transcript};

use crate::loopback::{lock, Server};
use crate::run::{Capture, Meta};
use crate::Run;
use interpreter::{Identity, Interpreter, Wire};

/// The `CallSid` of every simulated call.
pub const CALL_SID: &str = "CA00000000000000000000000000000001";

/// The bytes every simulated recording serves: a tiny "MP3".
pub const RECORDING_BYTES: &[u8] = b"ID3\x04\x00\x00\x00\x00\x00\x00simulated recording";

/// What a call is played against: a runtime (its router is made, and
/// [`Runtime::check`] must pass) or a router, each served by the call on
/// loopback; or the base URL of functions served elsewhere (a runtime
/// already running), whose invocations the call cannot capture.
#[derive(Debug)]
pub enum Target {
    /// A runtime.
    Runtime(Runtime),
    /// A router, as `Runtime::router` makes it.
    Router(Router),
    /// Functions already served at this base URL (`http://127.0.0.1:3001/`):
    /// requested as they are, so [`Call::runs`] stays empty.
    Url(Url),
}

impl From<Runtime> for Target {
    fn from(runtime: Runtime) -> Self {
        Target::Runtime(runtime)
    }
}

impl From<Url> for Target {
    fn from(base: Url) -> Self {
        Target::Url(base)
    }
}

impl From<Router> for Target {
    fn from(router: Router) -> Self {
        Target::Router(router)
    }
}

/// The functions' meta, by URL path, from the runtime's catalogue.
type Metas = Vec<(String, Meta)>;

#[derive(Clone)]
struct Captures {
    runs: Arc<Mutex<Vec<Run>>>,
    metas: Arc<Mutex<Metas>>,
    secrets: Arc<Mutex<Vec<String>>>,
}

/// One simulated phone call. See the [module docs](self).
///
/// ```
/// use ccfn_core::prelude::*;
/// use ccfn_core::runtime::{Feature, Runtime, RuntimeConfig};
/// use ccfn_testkit::call::Call;
/// use ccfn_testkit::FakeContext;
///
/// /// Greets and hangs up.
/// ///
/// /// # Trigger
/// /// Incoming call webhook.
/// /// # Dependencies
/// /// None.
/// /// # Critical logging
/// /// None beyond the contract.
/// /// # Contacts
/// /// oncall@example.com
/// #[contact_fn(required = [CallSid, From, To])]
/// async fn hello(_context: Context, _event: Event, callback: Callback) -> Completion {
///     let mut twiml = VoiceResponse::new();
///     twiml.say("Hello");
///     twiml.hangup();
///     callback.success(twiml)
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let runtime = Runtime::new(FakeContext::new().build(), RuntimeConfig::default())
///     .feature(Feature::new("demo").function("hello", hello));
/// let mut call = Call::new(runtime).await;
/// call.dial("/features/demo/hello").await;
/// call.hears("Hello").assert_ended();
/// call.assert_contract();
/// # });
/// ```
pub struct Call {
    interpreter: Interpreter,
    captures: Captures,
    /// Where `hears` looks from: the entry after the caller's last step.
    cursor: usize,
    /// The server of the functions, when the call serves them.
    _functions: Option<Server>,
    _recordings: Server,
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("transcript", &self.interpreter.transcript)
            .finish_non_exhaustive()
    }
}

impl Call {
    /// Serves `target` on a loopback port (a runtime or a router; a URL
    /// target is already served), with a recording host beside it; the
    /// call is not started yet ([`Call::dial`]).
    ///
    /// The call requests the functions' host alone: a URL of the call on
    /// another host (an absolute `action`, a `Redirect`) stops it with an
    /// error, and an HTTP redirect is not followed.
    ///
    /// # Panics
    /// The runtime does not pass its check, or no loopback port can be
    /// bound.
    pub async fn new(target: impl Into<Target>) -> Call {
        let captures = Captures {
            runs: Arc::default(),
            metas: Arc::default(),
            secrets: Arc::default(),
        };
        let router = match target.into() {
            Target::Runtime(runtime) => runtime
                .router()
                .unwrap_or_else(|e| panic!("the runtime cannot serve: {e}")),
            Target::Router(router) => router,
            Target::Url(base) => return Call::at(base, None, captures).await,
        };
        let router = router.layer(axum::middleware::from_fn_with_state(
            captures.clone(),
            capture,
        ));
        let functions = Server::start(router, "the call's functions").await;
        let base = Url::parse(&format!("http://{}/", functions.addr())).expect("a loopback URL");
        Call::at(base, Some(functions), captures).await
    }

    /// The call to the functions at `base`, served by `functions` when
    /// the call serves them (and then captured).
    async fn at(base: Url, functions: Option<Server>, captures: Captures) -> Call {
        let recordings = Server::start(
            Router::new().fallback(|| async { RECORDING_BYTES }),
            "the call's recording host",
        )
        .await;
        // ccfn builds reqwest without a default TLS provider.
        ccfn_core::http::install_crypto_provider();
        // The platform does not follow a webhook's HTTP redirect to
        // another page of the call, and a redirect must not carry the
        // call's signed request to another host.
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client without TLS settings builds");
        if functions.is_some() {
            *lock(&captures.metas) = catalogue(&client, &base).await;
        }
        let wire = Wire {
            base,
            client,
            auth_token: None,
            recordings: format!("http://{}", recordings.addr()),
        };
        let identity = Identity {
            call_sid: CALL_SID.to_owned(),
            account_sid: crate::DEFAULT_CONTEXT
                .iter()
                .find(|(name, _)| *name == "ACCOUNT_SID")
                .map_or("AC00000000000000000000000000000001", |(_, sid)| sid)
                .to_owned(),
            from: "+15550100001".to_owned(),
            to: "+15550100002".to_owned(),
        };
        Call {
            interpreter: Interpreter::new(wire, identity),
            captures,
            cursor: 0,
            _functions: functions,
            _recordings: recordings,
        }
    }

    /// Signs every request with `token` (`X-Twilio-Signature`), as the
    /// platform does with the account's auth token; give the runtime's
    /// `AUTH_TOKEN`. The token is also checked out of every log line.
    #[must_use]
    pub fn auth_token(mut self, token: &str) -> Call {
        self.interpreter.wire.auth_token = Some(token.to_owned());
        lock(&self.captures.secrets).push(token.to_owned());
        self
    }

    /// Checks `value` out of every log line of every invocation, as
    /// [`Run::assert_contract`] checks a context's secrets: give the
    /// runtime's other secrets (an email provider's key, say).
    #[must_use]
    pub fn secret(self, value: &str) -> Call {
        lock(&self.captures.secrets).push(value.to_owned());
        self
    }

    /// Sends the call's requests through `client`: for functions served
    /// over HTTPS, one that trusts their certificate. Build it without
    /// following redirects, as the default does
    /// (`reqwest::redirect::Policy::none()`): a redirect would carry the
    /// call's signed request to wherever it points.
    #[must_use]
    pub fn client(mut self, client: reqwest::Client) -> Call {
        self.interpreter.wire.client = client;
        self
    }

    /// The caller's number (`From`, `Caller`); `+15550100001` by default.
    #[must_use]
    pub fn from(mut self, number: &str) -> Call {
        self.interpreter.identity.from = number.to_owned();
        self
    }

    /// The call's `CallSid`; [`CALL_SID`] by default. Give each call its
    /// own when several reach one runtime, as the platform does.
    #[must_use]
    pub fn call_sid(mut self, sid: &str) -> Call {
        self.interpreter.identity.call_sid = sid.to_owned();
        self
    }

    /// The number called (`To`, `Called`); `+15550100002` by default.
    #[must_use]
    pub fn to(mut self, number: &str) -> Call {
        self.interpreter.identity.to = number.to_owned();
        self
    }

    /// Requests `path` (POST) when the call ends, with
    /// `CallStatus=completed` and `CallDuration`, as the platform does
    /// for a call's status callback.
    ///
    /// # Panics
    /// `path` is not a URL path.
    #[must_use]
    pub fn status_callback(mut self, path: &str) -> Call {
        let url = self.interpreter.wire.base.join(path).expect("a URL path");
        self.interpreter.status_callback = Some((url, "POST".to_owned()));
        self
    }

    /// What every `<Dial>` of the call reports: `completed` after 30 s
    /// by default.
    #[must_use]
    pub fn dial_outcome(mut self, outcome: DialOutcome) -> Call {
        self.interpreter.dial = outcome;
        self
    }

    /// Stops the call past these limits (100 requests and 3600 simulated
    /// seconds by default), with an error in the transcript.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Call {
        self.interpreter.limits = limits;
        self
    }

    /// Places the call: requests `path` as the number's voice URL and
    /// plays what it answers until the call waits for the caller or
    /// ends.
    pub async fn dial(&mut self, path: &str) -> &mut Call {
        self.interpreter.start(path).await;
        self
    }

    /// Gives the call the caller's next step: the driver of scripted and
    /// interactive calls alike.
    pub async fn step(&mut self, input: Input) -> &mut Call {
        self.cursor = self.interpreter.transcript.entries().len();
        self.interpreter.input(input).await;
        self
    }

    /// Plays the call to its end, asking `next` for the caller's step
    /// each time the call waits for one (given the transcript so far):
    /// the hook a script or a terminal drives a call through. `None`
    /// hangs up.
    pub async fn play(&mut self, mut next: impl FnMut(&Transcript) -> Option<Input>) -> &mut Call {
        while !self.interpreter.ended() {
            let input = next(&self.interpreter.transcript).unwrap_or(Input::HangUp);
            self.step(input).await;
        }
        self
    }

    /// The caller presses `keys`.
    pub async fn press(&mut self, keys: &str) -> &mut Call {
        self.step(Input::Press(keys.to_owned())).await
    }

    /// The caller says `words`.
    pub async fn says(&mut self, words: &str) -> &mut Call {
        self.step(Input::Say(words.to_owned())).await
    }

    /// The caller stays silent `seconds` (simulated: no real time).
    pub async fn waits(&mut self, seconds: u64) -> &mut Call {
        self.step(Input::Wait(seconds)).await
    }

    /// The caller hangs up.
    pub async fn hangs_up(&mut self) -> &mut Call {
        self.step(Input::HangUp).await
    }

    /// Checks that the caller heard something containing `words` since
    /// their last step.
    ///
    /// # Panics
    /// Nothing heard since contains them; the message shows the
    /// transcript.
    #[track_caller]
    pub fn hears(&mut self, words: &str) -> &mut Call {
        assert!(
            self.heard(words),
            "the caller did not hear {words:?} since their last step; the call so far:\n{}",
            self.interpreter.transcript
        );
        self
    }

    /// Whether the caller heard something containing `words` since their
    /// last step: [`Call::hears`] without the panic.
    #[must_use]
    pub fn heard(&self, words: &str) -> bool {
        self.interpreter
            .transcript
            .heard_since(self.cursor)
            .iter()
            .any(|heard| heard.contains(words))
    }

    /// Checks that the call has ended without an error.
    ///
    /// # Panics
    /// It goes on, or it was stopped by an error.
    #[track_caller]
    pub fn assert_ended(&mut self) -> &mut Call {
        let transcript = &self.interpreter.transcript;
        assert!(
            self.interpreter.ended(),
            "the call has not ended; so far:\n{transcript}"
        );
        assert!(
            transcript.error().is_none(),
            "the call was stopped by an error:\n{transcript}"
        );
        self
    }

    /// Whether the call waits for the caller now.
    #[must_use]
    pub fn waiting(&self) -> bool {
        self.interpreter.waiting()
    }

    /// Whether the call has ended.
    #[must_use]
    pub fn ended(&self) -> bool {
        self.interpreter.ended()
    }

    /// Simulated seconds since the call started.
    #[must_use]
    pub fn seconds(&self) -> u64 {
        self.interpreter.clock()
    }

    /// The transcript so far.
    #[must_use]
    pub fn transcript(&self) -> &Transcript {
        &self.interpreter.transcript
    }

    /// Every invocation of the call so far, captured as [`crate::invoke`]
    /// captures one (requests the runtime rejected invoke nothing and
    /// are not among them).
    pub fn runs(&self) -> std::sync::MutexGuard<'_, Vec<Run>> {
        lock(&self.captures.runs)
    }

    /// Checks the logging contract of every invocation of the call
    /// ([`Run::assert_contract`]).
    ///
    /// # Panics
    /// The call invoked nothing, or one invocation breaks the contract.
    #[track_caller]
    pub fn assert_contract(&self) {
        let runs = self.runs();
        assert!(!runs.is_empty(), "the call invoked no function");
        for run in runs.iter() {
            run.assert_contract();
        }
    }
}

/// The functions' names and required parameters, from the catalogue the
/// runtime serves in local mode; none when it is not served.
async fn catalogue(client: &reqwest::Client, base: &Url) -> Metas {
    let Ok(url) = base.join("__ccfn/functions") else {
        return Vec::new();
    };
    let Ok(response) = client.get(url).send().await else {
        return Vec::new();
    };
    let Ok(body) = response.text().await else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Array(entries)) = serde_json::from_str(&body) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            let path = entry.get("url_path")?.as_str()?.to_owned();
            let meta = entry.get("meta")?;
            let name = meta.get("name")?.as_str()?.to_owned();
            let required = meta
                .get("required")?
                .as_array()?
                .iter()
                .filter_map(|r| r.as_str().map(str::to_owned))
                .collect();
            Some((path, Meta { name, required }))
        })
        .collect()
}

/// Runs one request under a capture of its own and keeps the
/// invocation's run, read back from the answer.
async fn capture(State(captures): State<Captures>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let capture = Capture::new();
    let response = next
        .run(request)
        .with_subscriber(capture.subscriber())
        .await;
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let id = parts
        .headers
        .get("x-ccfn-invocation-id")
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let status = parts.status.as_u16();
    let result = if status == 200 {
        let json = parts
            .headers
            .get("content-type")
            .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
        match serde_json::from_str(&text) {
            Ok(value) if json => Ok(Reply::Json(value)),
            _ => Ok(Reply::Xml(text)),
        }
    } else {
        let message = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
            .unwrap_or(text);
        let kind = match status {
            400 => ErrorKind::Validation,
            504 => ErrorKind::Timeout,
            _ => ErrorKind::Function,
        };
        Err(Error::new(kind, message))
    };
    let completion = id.and_then(|id| ccfn_core::__private::completion_of(&id, result));
    let invoked = capture
        .records()
        .iter()
        .any(|r| r.get("step") == Some(&"start".into()));
    if let (Some(completion), true) = (completion, invoked) {
        let meta = lock(&captures.metas)
            .iter()
            .find(|(served, _)| *served == path)
            .map(|(_, meta)| Meta {
                name: meta.name.clone(),
                required: meta.required.clone(),
            })
            .unwrap_or_else(|| Meta {
                name: capture.function().unwrap_or_default(),
                required: Vec::new(),
            });
        let secrets = lock(&captures.secrets).clone();
        let run = capture.finish(meta, completion, secrets, Some(CALL_SID.to_owned()));
        lock(&captures.runs).push(run);
    }
    Response::from_parts(parts, Body::from(bytes))
}
