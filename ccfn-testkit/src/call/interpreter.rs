//! The platform's side of a call: requests a voice URL as the platform
//! does, reads the document answered and runs it verb by verb, asking for
//! the caller's input where a verb waits for it.

use std::collections::VecDeque;

use reqwest::Url;

use super::transcript::{Entry, Transcript};

/// A verb of a document, read out of its XML: name, attributes, text and
/// nested verbs.
#[derive(Clone, Debug)]
pub(crate) struct Verb {
    name: String,
    attributes: Vec<(String, String)>,
    text: String,
    children: Vec<Verb>,
}

impl Verb {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    fn of(node: roxmltree::Node<'_, '_>) -> Verb {
        Verb {
            name: node.tag_name().name().to_owned(),
            attributes: node
                .attributes()
                .map(|a| (a.name().to_owned(), a.value().to_owned()))
                .collect(),
            text: node
                .children()
                .filter(roxmltree::Node::is_text)
                .filter_map(|t| t.text())
                .collect::<String>()
                .trim()
                .to_owned(),
            children: node
                .children()
                .filter(roxmltree::Node::is_element)
                .map(Verb::of)
                .collect(),
        }
    }
}

/// The verbs of a voice document, read with `roxmltree`.
///
/// # Errors
/// Not well-formed XML, or a root that is not `<Response>`.
pub(crate) fn read(xml: &str) -> Result<Vec<Verb>, String> {
    let document = roxmltree::Document::parse(xml).map_err(|e| e.to_string())?;
    let root = document.root_element();
    if root.tag_name().name() != "Response" {
        return Err(format!(
            "the document's root is <{}>, not <Response>",
            root.tag_name().name()
        ));
    }
    Ok(root
        .children()
        .filter(roxmltree::Node::is_element)
        .map(Verb::of)
        .collect())
}

/// What the caller does next, as a step of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Presses keys (`0`-`9`, `*`, `#`).
    Press(String),
    /// Says a phrase.
    Say(String),
    /// Stays silent this many seconds.
    Wait(u64),
    /// Hangs up.
    HangUp,
}

/// What the call waits for.
#[derive(Clone, Debug)]
pub(crate) enum Pending {
    Gather(Verb),
    Record { verb: Verb, spoken: u64 },
}

/// A dial's scripted outcome: what `<Dial>` reports to its `action`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DialOutcome {
    /// `DialCallStatus`: `completed`, `busy`, `no-answer`, `failed`,
    /// `canceled`.
    pub status: String,
    /// `DialCallDuration`, in seconds, when the dialled party answered.
    pub seconds: u64,
}

impl Default for DialOutcome {
    fn default() -> Self {
        DialOutcome {
            status: "completed".to_owned(),
            seconds: 30,
        }
    }
}

/// Limits that stop a call which loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Requests to the functions, at most.
    pub requests: usize,
    /// Simulated seconds, at most.
    pub seconds: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            requests: 100,
            seconds: 3600,
        }
    }
}

/// The caller in a queue.
#[derive(Clone, Debug)]
struct Queue {
    action: Option<(Url, String)>,
    wait: Option<(Url, String)>,
    entered_at: u64,
    /// The verbs left after `<Enqueue>` in its document, and that
    /// document's URL: where the call goes on when it leaves without an
    /// `action`.
    after: (VecDeque<Verb>, Url),
}

/// The fixed identities of a simulated call.
#[derive(Clone, Debug)]
pub(crate) struct Identity {
    pub(crate) call_sid: String,
    pub(crate) account_sid: String,
    pub(crate) from: String,
    pub(crate) to: String,
}

/// How each request goes out: the functions' base URL, the client, the
/// auth token that signs, and where recordings are served.
pub(crate) struct Wire {
    pub(crate) base: Url,
    pub(crate) client: reqwest::Client,
    pub(crate) auth_token: Option<String>,
    pub(crate) recordings: String,
}

/// The interpreter: the state of one call.
pub(crate) struct Interpreter {
    pub(crate) wire: Wire,
    pub(crate) identity: Identity,
    pub(crate) limits: Limits,
    pub(crate) dial: DialOutcome,
    pub(crate) status_callback: Option<(Url, String)>,
    pub(crate) transcript: Transcript,
    verbs: VecDeque<Verb>,
    document: Option<Url>,
    pending: Option<Pending>,
    queue: Option<Queue>,
    clock: u64,
    requests: usize,
    recordings: usize,
    ended: bool,
    answered: bool,
}

/// Seconds a `Say` of `words` takes: two words a second, at least one.
fn speech_seconds(words: &str) -> u64 {
    (words.split_whitespace().count() as u64).div_ceil(2).max(1)
}

fn method_of(verb: &Verb, attribute: &str) -> String {
    match verb.attr(attribute) {
        Some(m) if m.eq_ignore_ascii_case("GET") => "GET".to_owned(),
        _ => "POST".to_owned(),
    }
}

impl Interpreter {
    pub(crate) fn new(wire: Wire, identity: Identity) -> Interpreter {
        Interpreter {
            wire,
            identity,
            limits: Limits::default(),
            dial: DialOutcome::default(),
            status_callback: None,
            transcript: Transcript::default(),
            verbs: VecDeque::new(),
            document: None,
            pending: None,
            queue: None,
            clock: 0,
            requests: 0,
            recordings: 0,
            ended: false,
            answered: false,
        }
    }

    /// Whether the call has ended.
    pub(crate) fn ended(&self) -> bool {
        self.ended
    }

    /// Simulated seconds since the call started.
    pub(crate) fn clock(&self) -> u64 {
        self.clock
    }

    /// Whether the call waits for the caller (a `Gather` or a `Record`).
    pub(crate) fn waiting(&self) -> bool {
        self.pending.is_some()
    }

    /// Starts the call at `path` (relative to the functions' base URL).
    pub(crate) async fn start(&mut self, path: &str) {
        let url = match self.wire.base.join(path) {
            Ok(url) => url,
            Err(e) => return self.stop(format!("`{path}` is not a URL path: {e}")),
        };
        self.fetch(url, "POST".to_owned(), Vec::new()).await;
        self.answered = true;
        self.play().await;
    }

    /// Hands the caller's `input` to the call, then plays on until the
    /// call waits again or ends.
    pub(crate) async fn input(&mut self, input: Input) {
        if self.ended {
            self.transcript.push(Entry::Error(format!(
                "the caller's {input:?} came after the call ended"
            )));
            return;
        }
        match input {
            Input::HangUp => {
                self.transcript.push(Entry::Caller("hangs up".to_owned()));
                self.hang_up_during().await;
            }
            Input::Wait(seconds) => {
                self.transcript
                    .push(Entry::Caller(format!("waits {seconds} s")));
                let until = self.clock + seconds;
                while !self.ended && self.clock < until {
                    match self.pending.take() {
                        Some(Pending::Gather(verb)) => {
                            let timeout = timeout_of(&verb, 5);
                            self.tick(timeout);
                            self.gather_empty(&verb).await;
                        }
                        Some(Pending::Record { verb, spoken }) => {
                            self.tick(timeout_of(&verb, 5));
                            self.record_done(&verb, spoken, "").await;
                        }
                        None => self.tick(until - self.clock),
                    }
                    if !self.ended {
                        self.play().await;
                    }
                }
            }
            Input::Press(keys) => {
                self.transcript
                    .push(Entry::Caller(format!("presses {keys}")));
                match self.pending.take() {
                    Some(Pending::Gather(verb)) => self.gather_digits(&verb, &keys).await,
                    Some(Pending::Record { verb, spoken }) => {
                        let finish = verb.attr("finishOnKey").unwrap_or("1234567890*#");
                        match keys.chars().find(|key| finish.contains(*key)) {
                            Some(key) => self.record_done(&verb, spoken, &key.to_string()).await,
                            None => {
                                self.pending = Some(Pending::Record { verb, spoken });
                            }
                        }
                    }
                    None => self.transcript.push(Entry::Platform(
                        "no verb listens for keys now: ignored".to_owned(),
                    )),
                }
                if !self.ended && self.pending.is_none() {
                    self.play().await;
                }
            }
            Input::Say(words) => {
                self.transcript
                    .push(Entry::Caller(format!("says \"{words}\"")));
                match self.pending.take() {
                    Some(Pending::Gather(verb)) => {
                        let listens = verb.attr("input").unwrap_or("dtmf");
                        if listens.split_whitespace().any(|i| i == "speech") {
                            self.tick(speech_seconds(&words));
                            self.gather_speech(&verb, &words).await;
                        } else {
                            // https://www.twilio.com/docs/voice/twiml/gather#input:
                            // the default input is dtmf alone.
                            self.transcript.push(Entry::Platform(format!(
                                "<Gather input=\"{listens}\"> does not listen for speech"
                            )));
                            self.tick(timeout_of(&verb, 5));
                            self.gather_empty(&verb).await;
                        }
                    }
                    Some(Pending::Record { verb, spoken }) => {
                        let spoken = spoken + speech_seconds(&words);
                        self.tick(speech_seconds(&words));
                        self.pending = Some(Pending::Record { verb, spoken });
                    }
                    None => self.transcript.push(Entry::Platform(
                        "no verb listens for speech now: ignored".to_owned(),
                    )),
                }
                if !self.ended && self.pending.is_none() {
                    self.play().await;
                }
            }
        }
    }

    fn tick(&mut self, seconds: u64) {
        self.clock += seconds;
    }

    fn stop(&mut self, why: String) {
        self.transcript.push(Entry::Error(why));
        self.verbs.clear();
        self.pending = None;
        self.queue = None;
        self.ended = true;
    }

    /// Runs verbs until one waits for the caller or the call ends.
    async fn play(&mut self) {
        loop {
            if self.ended || self.pending.is_some() {
                return;
            }
            if self.clock > self.limits.seconds {
                let limit = self.limits.seconds;
                return self.stop(format!(
                    "the call ran past {limit} simulated seconds: it loops, or the limit is too low"
                ));
            }
            if self.transcript.bytes() > MAX_TRANSCRIPT_BYTES {
                return self.stop(format!(
                    "the transcript passed {MAX_TRANSCRIPT_BYTES} bytes: the call is stopped rather than held"
                ));
            }
            let Some(verb) = self.verbs.pop_front() else {
                if self.queue.is_some() {
                    // https://www.twilio.com/docs/voice/twiml/enqueue#attributes-waiturl:
                    // the wait document is requested again when it ends.
                    self.request_wait().await;
                    continue;
                }
                if self.answered {
                    // A document that runs out ends the call.
                    self.end("the document ended").await;
                }
                return;
            };
            self.verb(verb).await;
        }
    }

    async fn verb(&mut self, verb: Verb) {
        let here = self.document.clone();
        match verb.name.as_str() {
            "Say" => self.hear(&verb),
            "Play" => self.hear(&verb),
            "Pause" => self.hear(&verb),
            "Gather" => {
                for inner in &verb.children {
                    match inner.name.as_str() {
                        "Say" | "Play" | "Pause" => self.hear(inner),
                        other => self.transcript.push(Entry::NotSimulated {
                            verb: format!("{other} in Gather"),
                        }),
                    }
                }
                self.pending = Some(Pending::Gather(verb));
            }
            "Record" => {
                if verb.attr("playBeep") != Some("false") {
                    self.transcript.push(Entry::Heard {
                        verb: "Record".to_owned(),
                        text: "beep".to_owned(),
                    });
                }
                self.pending = Some(Pending::Record { verb, spoken: 0 });
            }
            "Redirect" => match here.as_ref().map(|doc| doc.join(&verb.text)) {
                Some(Ok(url)) => {
                    self.verbs.clear();
                    self.fetch(url, method_of(&verb, "method"), Vec::new())
                        .await;
                }
                _ => self.stop(format!("<Redirect> to `{}` is not a URL", verb.text)),
            },
            "Hangup" => {
                self.transcript.push(Entry::Platform("<Hangup>".to_owned()));
                self.leave_queue("hangup").await;
                self.end("hung up by the document").await;
            }
            "Reject" => {
                let reason = verb.attr("reason").unwrap_or("rejected").to_owned();
                self.verbs.clear();
                self.transcript
                    .push(Entry::Ended(format!("rejected ({reason})")));
                self.ended = true;
            }
            "Leave" => {
                if self.queue.is_some() {
                    self.transcript.push(Entry::Platform(
                        "<Leave>: the caller leaves the queue".to_owned(),
                    ));
                    self.leave_queue("leave").await;
                } else {
                    self.transcript.push(Entry::Platform(
                        "<Leave> outside a queue: nothing to leave".to_owned(),
                    ));
                }
            }
            "Enqueue" => self.enqueue(&verb).await,
            "Dial" => self.dial(&verb).await,
            other => self.transcript.push(Entry::NotSimulated {
                verb: other.to_owned(),
            }),
        }
    }

    fn hear(&mut self, verb: &Verb) {
        let text = match verb.name.as_str() {
            "Pause" => {
                // https://www.twilio.com/docs/voice/twiml/pause#attributes:
                // `length` defaults to 1 second.
                let seconds = verb
                    .attr("length")
                    .and_then(|l| l.parse().ok())
                    .unwrap_or(1u64);
                self.tick(seconds);
                format!("{seconds} s of silence")
            }
            "Say" => {
                self.tick(speech_seconds(&verb.text));
                verb.text.clone()
            }
            _ => verb.text.clone(),
        };
        self.transcript.push(Entry::Heard {
            verb: verb.name.clone(),
            text,
        });
    }

    /// Where a verb sends its result: its `action` resolved against the
    /// document, or the document itself.
    fn action_of(&self, verb: &Verb) -> Option<Url> {
        let here = self.document.clone()?;
        match verb.attr("action") {
            Some(action) => here.join(action).ok(),
            None => Some(here),
        }
    }

    async fn gather_digits(&mut self, verb: &Verb, keys: &str) {
        // https://www.twilio.com/docs/voice/twiml/gather#attributes:
        // finishOnKey defaults to `#`, numDigits to unlimited.
        let finish = verb.attr("finishOnKey").unwrap_or("#");
        let limit: Option<usize> = verb.attr("numDigits").and_then(|n| n.parse().ok());
        let mut digits = String::new();
        let mut complete = false;
        for key in keys.chars() {
            if !finish.is_empty() && finish.contains(key) {
                complete = true;
                break;
            }
            digits.push(key);
            if limit.is_some_and(|n| digits.chars().count() >= n) {
                complete = true;
                break;
            }
        }
        if !complete {
            // The digits go once the caller stops pressing: `timeout`.
            self.tick(timeout_of(verb, 5));
        }
        if digits.is_empty() {
            return self.gather_empty(verb).await;
        }
        let Some(action) = self.action_of(verb) else {
            return self.stop("<Gather> has no URL to send its digits to".to_owned());
        };
        self.verbs.clear();
        self.fetch(
            action,
            method_of(verb, "method"),
            vec![("Digits".to_owned(), digits)],
        )
        .await;
    }

    async fn gather_speech(&mut self, verb: &Verb, words: &str) {
        let Some(action) = self.action_of(verb) else {
            return self.stop("<Gather> has no URL to send its speech to".to_owned());
        };
        self.verbs.clear();
        self.fetch(
            action,
            method_of(verb, "method"),
            vec![
                ("SpeechResult".to_owned(), words.to_owned()),
                ("Confidence".to_owned(), "0.9".to_owned()),
            ],
        )
        .await;
    }

    /// No input: the next verb, or the action when `actionOnEmptyResult`.
    async fn gather_empty(&mut self, verb: &Verb) {
        self.transcript.push(Entry::Platform(
            "<Gather> timed out with no input".to_owned(),
        ));
        if verb.attr("actionOnEmptyResult") == Some("true")
            && let Some(action) = self.action_of(verb)
        {
            self.verbs.clear();
            self.fetch(action, method_of(verb, "method"), Vec::new())
                .await;
        }
    }

    async fn record_done(&mut self, verb: &Verb, spoken: u64, digits: &str) {
        if spoken == 0 {
            // https://www.twilio.com/docs/voice/twiml/record#action: an
            // empty recording requests no action; the call goes on.
            self.transcript.push(Entry::Platform(
                "<Record> heard nothing: no recording".to_owned(),
            ));
            return;
        }
        self.recordings += 1;
        let sid = format!("RE{:032x}", self.recordings);
        let url = format!(
            "{}/2010-04-01/Accounts/{}/Recordings/{sid}",
            self.wire.recordings, self.identity.account_sid
        );
        let max: u64 = verb
            .attr("maxLength")
            .and_then(|m| m.parse().ok())
            .unwrap_or(3600);
        let seconds = spoken.min(max);
        self.transcript
            .push(Entry::Platform(format!("recorded {seconds} s")));
        let mut params = vec![
            ("RecordingUrl".to_owned(), url.clone()),
            ("RecordingSid".to_owned(), sid.clone()),
            ("RecordingDuration".to_owned(), seconds.to_string()),
        ];
        if !digits.is_empty() {
            params.push(("Digits".to_owned(), digits.to_owned()));
        }
        let callback = verb.attr("recordingStatusCallback").and_then(|callback| {
            self.document
                .as_ref()
                .and_then(|doc| doc.join(callback).ok())
        });
        let callback_method = method_of(verb, "recordingStatusCallbackMethod");
        if let Some(action) = self.action_of(verb) {
            self.verbs.clear();
            self.fetch(action, method_of(verb, "method"), params).await;
        }
        if let Some(callback) = callback {
            // https://www.twilio.com/docs/voice/twiml/record#recordingstatuscallback
            let params = vec![
                ("RecordingSid".to_owned(), sid),
                ("RecordingUrl".to_owned(), url),
                ("RecordingStatus".to_owned(), "completed".to_owned()),
                ("RecordingDuration".to_owned(), seconds.to_string()),
                ("RecordingChannels".to_owned(), "1".to_owned()),
                ("RecordingSource".to_owned(), "RecordVerb".to_owned()),
            ];
            self.notify(callback, callback_method, params).await;
        }
    }

    async fn hang_up_during(&mut self) {
        match self.pending.take() {
            Some(Pending::Record { verb, spoken }) if spoken > 0 => {
                // https://www.twilio.com/docs/voice/twiml/record#request-parameters:
                // `Digits` is `hangup` when the caller hung up.
                self.record_done(&verb, spoken, "hangup").await;
            }
            _ => {}
        }
        self.leave_queue("hangup").await;
        self.end("the caller hung up").await;
    }

    async fn enqueue(&mut self, verb: &Verb) {
        let here = self.document.clone();
        let resolve = |attribute: &str, method: &str| {
            verb.attr(attribute)
                .and_then(|url| here.as_ref()?.join(url).ok())
                .map(|url| (url, method_of(verb, method)))
        };
        let action = resolve("action", "method");
        let wait = resolve("waitUrl", "waitUrlMethod");
        let mut what = match verb.attr("workflowSid") {
            Some(workflow) => format!("enqueued through workflow {workflow}"),
            None => format!("enqueued in queue `{}`", verb.text),
        };
        if let Some(task) = verb.children.iter().find(|c| c.name == "Task") {
            what.push_str(&format!("; task {}", task.text));
        }
        self.transcript.push(Entry::Platform(what));
        let after = std::mem::take(&mut self.verbs);
        self.queue = Some(Queue {
            action,
            wait,
            entered_at: self.clock,
            after: (after, here.unwrap_or_else(|| self.wire.base.clone())),
        });
        self.request_wait().await;
    }

    fn queue_params(&self, queue: &Queue) -> Vec<(String, String)> {
        vec![
            (
                "QueueSid".to_owned(),
                "QU00000000000000000000000000000001".to_owned(),
            ),
            (
                "QueueTime".to_owned(),
                (self.clock - queue.entered_at).to_string(),
            ),
        ]
    }

    async fn request_wait(&mut self) {
        let Some(queue) = self.queue.clone() else {
            return;
        };
        let Some((url, method)) = queue.wait.clone() else {
            // No wait URL: the platform's hold music, not simulated.
            self.transcript.push(Entry::NotSimulated {
                verb: "Enqueue's default hold music".to_owned(),
            });
            self.tick(60);
            return;
        };
        // https://www.twilio.com/docs/voice/twiml/enqueue#attributes-waiturl:
        // the wait URL's parameters.
        let mut params = vec![
            ("QueuePosition".to_owned(), "1".to_owned()),
            ("CurrentQueueSize".to_owned(), "1".to_owned()),
            ("AvgQueueTime".to_owned(), "0".to_owned()),
        ];
        params.extend(self.queue_params(&queue));
        self.fetch(url, method, params).await;
    }

    /// The caller leaves the queue (`leave`, `hangup`): its action, or
    /// the verbs after `<Enqueue>`.
    async fn leave_queue(&mut self, result: &str) {
        let Some(queue) = self.queue.take() else {
            return;
        };
        let mut params = vec![("QueueResult".to_owned(), result.to_owned())];
        params.extend(self.queue_params(&queue));
        self.verbs.clear();
        match queue.action {
            Some((url, method)) => {
                if result == "hangup" {
                    self.notify(url, method, params).await;
                } else {
                    self.fetch(url, method, params).await;
                }
            }
            None => {
                // https://www.twilio.com/docs/voice/twiml/enqueue#attributes-action:
                // with no action, the call goes on after <Enqueue>.
                let (after, document) = queue.after;
                self.verbs = after;
                self.document = Some(document);
            }
        }
    }

    async fn dial(&mut self, verb: &Verb) {
        let number = if verb.text.is_empty() {
            verb.children
                .iter()
                .map(|c| format!("{} {}", c.name, c.text))
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            verb.text.clone()
        };
        let outcome = self.dial.clone();
        self.transcript.push(Entry::Platform(format!(
            "dials {number}: {}",
            outcome.status
        )));
        let answered = outcome.status == "completed";
        if answered {
            self.tick(outcome.seconds);
        }
        if verb.attr("action").is_some() {
            let Some(action) = self.action_of(verb) else {
                return;
            };
            let mut params = vec![("DialCallStatus".to_owned(), outcome.status.clone())];
            if answered {
                params.push(("DialCallDuration".to_owned(), outcome.seconds.to_string()));
            }
            self.verbs.clear();
            self.fetch(action, method_of(verb, "method"), params).await;
        }
    }

    /// The call ends: the status callback, when one is set.
    async fn end(&mut self, why: &str) {
        self.verbs.clear();
        self.pending = None;
        self.transcript.push(Entry::Ended(why.to_owned()));
        self.ended = true;
        if let Some((url, method)) = self.status_callback.clone() {
            let params = vec![
                ("CallStatus".to_owned(), "completed".to_owned()),
                ("CallDuration".to_owned(), self.clock.to_string()),
            ];
            self.notify(url, method, params).await;
        }
    }

    /// A request whose answer the call does not play (a callback).
    async fn notify(&mut self, url: Url, method: String, params: Vec<(String, String)>) {
        let _ = self.send(url, method, params).await;
    }

    /// Requests a document and makes it the current one.
    async fn fetch(&mut self, url: Url, method: String, params: Vec<(String, String)>) {
        let Some((status, body)) = self.send(url.clone(), method, params).await else {
            return;
        };
        if status != 200 {
            // The platform reads an application error and ends the call.
            let message = serde_json::from_str::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
                .unwrap_or(body);
            return self.stop(format!("the function answered {status}: {message}"));
        }
        match read(&body) {
            Ok(verbs) => {
                self.verbs = verbs.into();
                self.document = Some(url);
            }
            Err(e) => self.stop(format!("the answer is not a voice document: {e}")),
        }
    }

    /// Sends one request as the platform does; its status and body.
    async fn send(
        &mut self,
        mut url: Url,
        method: String,
        extra: Vec<(String, String)>,
    ) -> Option<(u16, String)> {
        if url.origin() != self.wire.base.origin() {
            // The platform would request it; a simulated call keeps its
            // signed requests on the functions' host.
            self.stop(format!(
                "the call was sent to {}, not the functions' host: not requested",
                url.origin().ascii_serialization()
            ));
            return None;
        }
        self.requests += 1;
        if self.requests > self.limits.requests {
            let limit = self.limits.requests;
            self.stop(format!(
                "the call made more than {limit} requests: it loops, or the limit is too low"
            ));
            return None;
        }
        let status = if self.answered {
            "in-progress"
        } else {
            "ringing"
        };
        let identity = &self.identity;
        let mut params: Vec<(String, String)> = [
            ("AccountSid", identity.account_sid.as_str()),
            ("ApiVersion", "2010-04-01"),
            ("CallSid", identity.call_sid.as_str()),
            ("CallStatus", status),
            ("Called", identity.to.as_str()),
            ("Caller", identity.from.as_str()),
            ("Direction", "inbound"),
            ("From", identity.from.as_str()),
            ("To", identity.to.as_str()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        params.retain(|(k, _)| !extra.iter().any(|(e, _)| e == k));
        params.extend(extra.iter().cloned());
        let shown: Vec<(String, String)> = extra
            .into_iter()
            .filter(|(k, _)| !k.ends_with("Sid") && k != "RecordingUrl")
            .collect();
        let path = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        };
        let form: Vec<(String, String)>;
        let request = if method == "GET" {
            url.query_pairs_mut().extend_pairs(&params);
            form = Vec::new();
            self.wire.client.get(url.clone())
        } else {
            form = params;
            let body: String = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&form)
                .finish();
            self.wire
                .client
                .post(url.clone())
                .header("content-type", "application/x-www-form-urlencoded")
                .body(body)
        };
        let request = match &self.wire.auth_token {
            Some(token) => request.header(
                ccfn_core::signature::SIGNATURE_HEADER,
                ccfn_core::signature::compute_signature(token, url.as_str(), &form),
            ),
            None => request,
        };
        let answer = match request.timeout(ANSWER_TIMEOUT).send().await {
            Ok(response) => {
                let status = response.status().as_u16();
                match read_bounded(response).await {
                    Ok(body) => Some((status, body)),
                    Err(problem) => {
                        self.transcript.push(Entry::Request {
                            method,
                            path,
                            params: shown,
                            status,
                        });
                        self.stop(problem);
                        return None;
                    }
                }
            }
            Err(e) => {
                self.transcript.push(Entry::Request {
                    method,
                    path,
                    params: shown,
                    status: 0,
                });
                self.stop(format!(
                    "the request failed: {}",
                    ccfn_core::error_chain(&e)
                ));
                return None;
            }
        };
        self.transcript.push(Entry::Request {
            method,
            path,
            params: shown,
            status: answer.as_ref().map_or(0, |(s, _)| *s),
        });
        answer
    }
}

/// How long a function may take to answer: the platform's own webhook
/// timeout (15 s).
const ANSWER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(15);

/// The most text a transcript holds: each answer is read up to
/// [`MAX_ANSWER_BYTES`], and a call of many requests whose documents say
/// a lot stops here rather than hold them all.
const MAX_TRANSCRIPT_BYTES: usize = 4 * 1024 * 1024;

/// The largest answer read: a voice document the platform would take is
/// far smaller (64 KB); past this the call stops rather than hold it.
const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// The answer's body as text (invalid UTF-8 replaced), at most
/// [`MAX_ANSWER_BYTES`]; the problem, worded for the transcript, when it
/// is larger or cannot be read.
async fn read_bounded(mut response: reqwest::Response) -> Result<String, String> {
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                    return Err(format!(
                        "the answer is larger than {MAX_ANSWER_BYTES} bytes: not read"
                    ));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(String::from_utf8_lossy(&body).into_owned()),
            Err(e) => return Err(format!("the answer could not be read: {e}")),
        }
    }
}

/// A verb's `timeout` in seconds, or `default`.
fn timeout_of(verb: &Verb, default: u64) -> u64 {
    verb.attr("timeout")
        .and_then(|t| t.parse().ok())
        .unwrap_or(default)
}
