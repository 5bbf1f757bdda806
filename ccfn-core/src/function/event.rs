//! The invocation event: the request's parameters, in order.

use std::sync::{Arc, OnceLock};

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::function::declared::{self, Problem};
use crate::function::meta::FunctionMeta;
use crate::secret::{is_sensitive_name, redact_json, REDACTED};

/// The parameters a function is invoked with: the form body, JSON body and
/// query string merged (the body wins), in the order they arrived, repeated
/// keys kept.
///
/// ```
/// use ccfn_core::Event;
///
/// let event = Event::from_pairs([("CallSid", "CA123"), ("From", "+15551230000"), ("mode", "voicemail")]);
/// assert_eq!(event.call_sid(), Some("CA123"));
/// assert_eq!(event.mode(), "voicemail");
/// assert_eq!(Event::new().mode(), "initial");
/// ```
#[derive(Clone, Default)]
pub struct Event {
    /// The parameters and headers, shared by the event's copies (the one
    /// the contract keeps for an `error` record, while the handler owns
    /// the event): a copy is a count; a change to a shared event copies
    /// them first.
    data: Arc<Data>,
    /// The function being invoked, whose declarations reads are checked
    /// against.
    function: Option<&'static FunctionMeta>,
    /// How often a read past the declarations is warned about.
    declarations: declared::Scope,
    /// What the request it came in says of itself, when it came over
    /// HTTP and telemetry is exported (for the invocation's span).
    request: Option<Box<RequestInfo>>,
}

/// A parameter's name or string value, or a header's name or value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Text {
    /// Bytes `start..end` of the text it was read from (the event's own,
    /// once in an event): text that needed no decoding.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    Sent { start: usize, end: usize },
    /// Text of its own: decoded, or given by code.
    Own(String),
}

impl Text {
    /// The text, reading a [`Text::Sent`] in `sent`.
    pub(crate) fn get<'a>(&'a self, sent: &'a str) -> &'a str {
        match self {
            Text::Sent { start, end } => sent.get(*start..*end).unwrap_or_default(),
            Text::Own(text) => text,
        }
    }

    /// Whether the text, read in `sent`, is `text`: the lengths are
    /// compared first, without reading the range.
    pub(crate) fn is(&self, sent: &str, text: &str) -> bool {
        match self {
            Text::Sent { start, end } => {
                end - start == text.len()
                    && sent.as_bytes().get(*start..*end) == Some(text.as_bytes())
            }
            Text::Own(own) => own == text,
        }
    }

    /// Whether the text, read in `sent`, is `text` in ASCII letters of
    /// either case.
    fn is_ignoring_case(&self, sent: &str, text: &str) -> bool {
        match self {
            Text::Sent { start, end } => {
                end - start == text.len()
                    && sent
                        .as_bytes()
                        .get(*start..*end)
                        .is_some_and(|sent| sent.eq_ignore_ascii_case(text.as_bytes()))
            }
            Text::Own(own) => own.eq_ignore_ascii_case(text),
        }
    }

    /// The text appended to `sent`, as a range of it.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    pub(crate) fn sent(text: &str, sent: &mut String) -> Text {
        let start = sent.len();
        sent.push_str(text);
        Text::Sent {
            start,
            end: sent.len(),
        }
    }
}

/// A parameter's value: text, or any other JSON value (from a JSON body,
/// or given by code).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ParamValue {
    Text(Text),
    Json(Box<Value>),
}

impl From<Value> for ParamValue {
    fn from(value: Value) -> Self {
        match value {
            Value::String(text) => ParamValue::Text(Text::Own(text)),
            other => ParamValue::Json(Box::new(other)),
        }
    }
}

/// One parameter of an [`Event`].
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub(crate) name: Text,
    pub(crate) value: ParamValue,
}

/// What the request an event came in says of itself, as the HTTP server
/// semantic conventions of OpenTelemetry name it: given by the runtime,
/// exported (scrubbed) on the invocation's span and its
/// `http.server.request.duration`. Its texts are held one after another
/// in one buffer, made at its size: one allocation a request, not one a
/// text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RequestInfo {
    /// The texts of [`RequestPart`]s, in their order.
    texts: String,
    /// Where each part's text is in `texts` (start and end), by its
    /// place.
    spans: [(u32, u32); RequestPart::COUNT],
    /// Which parts the request said: a bit for each, by its place.
    said: u8,
    /// `server.port`.
    pub(crate) port: Option<u16>,
    /// `network.protocol.version`: `1.0`, `1.1`, `2` or `3`.
    pub(crate) version: Option<&'static str>,
}

/// A text of [`RequestInfo`], in the order they are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RequestPart {
    /// `http.request.method`.
    Method,
    /// `url.path`: the path the client sent, a nest prefix included.
    Path,
    /// `http.route`: the function's route, the same for every request.
    Route,
    /// `url.scheme`: the client's (`X-Forwarded-Proto`, `Forwarded`), else
    /// the request's.
    Scheme,
    /// `server.address`: the host the client asked for
    /// (`X-Forwarded-Host`, `Forwarded`, `:authority`, `Host`).
    Host,
    /// `client.address`: the client's (`Forwarded`, `X-Forwarded-For`),
    /// else the connection's peer, else the platform's source IP.
    Client,
    /// `user_agent.original`.
    UserAgent,
}

impl RequestPart {
    const COUNT: usize = 7;
}

impl RequestInfo {
    /// An empty one, with room for `capacity` bytes of texts.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        RequestInfo {
            texts: String::with_capacity(capacity),
            ..RequestInfo::default()
        }
    }

    /// Says `part`, its text written by `write` (which appends it): each
    /// part at most once; a part left out is not said.
    #[cfg_attr(not(any(test, feature = "runtime")), allow(dead_code))]
    pub(crate) fn say(&mut self, part: RequestPart, write: impl FnOnce(&mut String)) {
        let start = self.texts.len();
        write(&mut self.texts);
        // Every text is cut far below 4 GiB.
        self.spans[part as usize] = (start as u32, self.texts.len() as u32);
        self.said |= 1 << part as usize;
    }

    /// The text of `part`, when the request said it.
    pub(crate) fn text(&self, part: RequestPart) -> Option<&str> {
        let (start, end) = self.spans[part as usize];
        (self.said & (1 << part as usize) != 0).then(|| &self.texts[start as usize..end as usize])
    }

    /// The request as an observer takes it.
    pub(crate) fn server(&self) -> crate::observe::ServerRequest<'_> {
        let text = |part| self.text(part).unwrap_or("");
        crate::observe::ServerRequest {
            method: text(RequestPart::Method),
            path: text(RequestPart::Path),
            route: text(RequestPart::Route),
            scheme: text(RequestPart::Scheme),
            host: self.text(RequestPart::Host),
            port: self.port,
            client: self.text(RequestPart::Client),
            user_agent: self.text(RequestPart::UserAgent),
            version: self.version,
        }
    }
}

/// An event's parameters and headers, and the text they are read in.
#[derive(Clone, Default)]
struct Data {
    /// The text the request's parameters and headers were read from, as
    /// far as they needed no decoding: a [`Text::Sent`] is a range of it.
    /// Empty for an event built by code.
    sent: String,
    params: Vec<Entry>,
    headers: Vec<(Text, Text)>,
    /// The parameters as JSON values, made when first asked for
    /// ([`Event::iter`], [`Event::get_value`], ...): index for index those
    /// of `params`, `Null` where a parameter's value is already JSON.
    values: OnceLock<Box<[Value]>>,
    /// Where the first parameter of each name in [`KNOWN`] is, found in
    /// one pass when first asked for: the contract reads them all on
    /// every invocation.
    known: OnceLock<[usize; KNOWN.len()]>,
}

/// The parameters the contract reads on every invocation, by [`Known`].
const KNOWN: [&str; 7] = [
    crate::params::mode,
    crate::params::CallSid,
    crate::params::From,
    crate::params::To,
    crate::params::FlowSid,
    crate::params::ExecutionSid,
    crate::params::StepSid,
];

/// A parameter of [`KNOWN`], by its place there.
#[derive(Clone, Copy)]
enum Known {
    Mode,
    CallSid,
    From,
    To,
    FlowSid,
    ExecutionSid,
    StepSid,
}

/// Where `name` is in [`KNOWN`].
fn known(name: &str) -> Option<usize> {
    Some(match name {
        crate::params::mode => Known::Mode,
        crate::params::CallSid => Known::CallSid,
        crate::params::From => Known::From,
        crate::params::To => Known::To,
        crate::params::FlowSid => Known::FlowSid,
        crate::params::ExecutionSid => Known::ExecutionSid,
        crate::params::StepSid => Known::StepSid,
        _ => return None,
    } as usize)
}

/// Equal parameters and headers, whichever function reads them.
impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.data.params.len() == other.data.params.len()
            && self.data.headers.len() == other.data.headers.len()
            && self
                .data
                .params
                .iter()
                .zip(&other.data.params)
                .all(|(a, b)| {
                    self.text(&a.name) == other.text(&b.name)
                        && self.value_eq(&a.value, other, &b.value)
                })
            && self.headers().eq(other.headers())
    }
}

/// Prints the parameters and headers, the values of sensitive names
/// redacted.
impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = |name: &str, value: String| {
            if is_sensitive_name(name) {
                REDACTED.to_owned()
            } else {
                value
            }
        };
        let params: Vec<(&str, String)> = self
            .data
            .params
            .iter()
            .map(|entry| {
                let name = self.text(&entry.name);
                let value = match &entry.value {
                    ParamValue::Text(text) => Value::from(self.text(text)).to_string(),
                    ParamValue::Json(value) => value.to_string(),
                };
                (name, shown(name, value))
            })
            .collect();
        let headers: Vec<(&str, String)> = self
            .headers()
            .map(|(n, v)| (n, shown(n, v.to_owned())))
            .collect();
        f.debug_struct("Event")
            .field("params", &params)
            .field("headers", &headers)
            .finish()
    }
}

/// The processing mode logged when the event has no `mode`.
const DEFAULT_MODE: &str = "initial";

impl Event {
    /// An empty event.
    #[must_use]
    pub fn new() -> Self {
        Event::default()
    }

    /// An event of string parameters, in order.
    pub fn from_pairs<K, V>(pairs: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        let mut event = Event::new();
        for (name, value) in pairs {
            event.push(name, value.into());
        }
        event
    }

    /// The event of a request: `params` and `headers`, whose
    /// [`Text::Sent`] ranges are read in `sent`.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    pub(crate) fn from_sent(sent: String, params: Vec<Entry>, headers: Vec<(Text, Text)>) -> Event {
        Event {
            data: Arc::new(Data {
                sent,
                params,
                headers,
                values: OnceLock::new(),
                known: OnceLock::new(),
            }),
            // Not `..Event::default()`: that makes a default `Data` of
            // its own, allocated and freed at once, on every request.
            function: None,
            declarations: declared::Scope::default(),
            request: None,
        }
    }

    /// Appends a parameter; an existing one of the same name is kept.
    pub fn push(&mut self, name: impl Into<String>, value: impl Into<Value>) -> &mut Self {
        let data = Arc::make_mut(&mut self.data);
        data.values.take();
        data.known.take();
        data.params.push(Entry {
            name: Text::Own(name.into()),
            value: ParamValue::from(value.into()),
        });
        self
    }

    /// Sets a parameter: replaces every value of that name with this one,
    /// at the place of the first.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<Value>) -> &mut Self {
        let name = name.into();
        let value = ParamValue::from(value.into());
        let at = self.position(&name);
        let data = Arc::make_mut(&mut self.data);
        data.values.take();
        data.known.take();
        match at {
            Some(at) => {
                data.params[at].value = value;
                let sent = &data.sent;
                let mut index = 0;
                data.params.retain(|entry| {
                    index += 1;
                    index - 1 <= at || !entry.name.is(sent, &name)
                });
            }
            None => data.params.push(Entry {
                name: Text::Own(name),
                value,
            }),
        }
        self
    }

    /// Removes every value of `name`.
    pub fn remove(&mut self, name: &str) -> &mut Self {
        let data = Arc::make_mut(&mut self.data);
        data.values.take();
        data.known.take();
        let sent = &data.sent;
        data.params.retain(|entry| !entry.name.is(sent, name));
        self
    }

    /// `text`, read in this event.
    fn text<'a>(&'a self, text: &'a Text) -> &'a str {
        text.get(&self.data.sent)
    }

    /// Whether `a` (of this event) and `b` (of `other`) are the same value.
    fn value_eq(&self, a: &ParamValue, other: &Event, b: &ParamValue) -> bool {
        match (a, b) {
            (ParamValue::Text(a), ParamValue::Text(b)) => self.text(a) == other.text(b),
            (ParamValue::Json(a), ParamValue::Json(b)) => a == b,
            _ => false,
        }
    }

    /// Where the first parameter named `name` is.
    fn position(&self, name: &str) -> Option<usize> {
        self.data
            .params
            .iter()
            .position(|entry| entry.name.is(&self.data.sent, name))
    }

    /// The value of parameter `at` as JSON (the values of text
    /// parameters are made, all at once, the first time one is asked
    /// for).
    fn value_at(&self, at: usize) -> &Value {
        match &self.data.params[at].value {
            ParamValue::Json(value) => value,
            ParamValue::Text(_) => &self.values()[at],
        }
    }

    /// The parameters as JSON values, `Null` where [`Event::value_at`]
    /// reads the parameter's own.
    fn values(&self) -> &[Value] {
        self.data.values.get_or_init(|| {
            self.data
                .params
                .iter()
                .map(|entry| match &entry.value {
                    ParamValue::Text(text) => Value::from(self.text(text)),
                    ParamValue::Json(_) => Value::Null,
                })
                .collect()
        })
    }

    /// The first value of `name` when it is a string, unchecked.
    pub(crate) fn lookup_str(&self, name: &str) -> Option<&str> {
        match &self.data.params[self.position(name)?].value {
            ParamValue::Text(text) => Some(self.text(text)),
            ParamValue::Json(_) => None,
        }
    }

    /// The first value of a well-known parameter ([`crate::params`]) the
    /// contract reads, when it is a string: every function declares
    /// those, so there is no declaration to check.
    fn well_known(&self, which: Known) -> Option<&str> {
        let places = self.data.known.get_or_init(|| {
            let mut places = [usize::MAX; KNOWN.len()];
            for (at, entry) in self.data.params.iter().enumerate() {
                if let Some(slot) = known(self.text(&entry.name))
                    && places[slot] == usize::MAX
                {
                    places[slot] = at;
                }
            }
            places
        });
        let entry = self.data.params.get(places[which as usize])?;
        match &entry.value {
            ParamValue::Text(text) => Some(self.text(text)),
            ParamValue::Json(_) => None,
        }
    }

    /// The first value of `name`, when it is a string.
    ///
    /// Inside an invocation, a name the function does not declare (in
    /// `required = [..]`, in its `# Optional parameters` section, or among
    /// the platform's [`crate::params`]) writes a `declaration` warning
    /// once: a misspelt name is always `None`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.check(name);
        self.lookup_str(name)
    }

    /// A parameter the function declares in `required = [..]`, which the
    /// contract checked is present before the handler ran: no `Option` to
    /// unwrap.
    ///
    /// ```
    /// use ccfn_core::{params, Event};
    ///
    /// let event = Event::from_pairs([("To", "+15557654321")]);
    /// assert_eq!(event.required(params::To), "+15557654321");
    /// ```
    ///
    /// # Panics
    /// When `name` has no string value: it was not declared in
    /// `required = [..]`, which would have answered 400 before the handler
    /// ran. The message names it and says so.
    #[must_use]
    #[track_caller]
    pub fn required(&self, name: &str) -> &str {
        match self.get(name) {
            Some(value) => value,
            None => panic!(
                "event.required(\"{name}\"): the event has no `{name}`; declare it in \
                 `required = [..]` so that such a request is answered 400 before the handler runs"
            ),
        }
    }

    /// The first value of `name`, whatever its JSON type.
    #[must_use]
    pub fn get_value(&self, name: &str) -> Option<&Value> {
        self.check(name);
        self.lookup(name)
    }

    /// Every value of `name`, in order.
    pub fn get_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.check(name);
        self.data
            .params
            .iter()
            .enumerate()
            .filter(move |(_, entry)| entry.name.is(&self.data.sent, name))
            .map(|(at, _)| self.value_at(at))
    }

    /// The first value of `name`, unchecked: for ccfn's own reads.
    pub(crate) fn lookup(&self, name: &str) -> Option<&Value> {
        self.position(name).map(|at| self.value_at(at))
    }

    /// The parameters whose values the invocation's secrets can be taken
    /// from, as [`Event::iter`] gives them: those under a sensitive name
    /// (see [`is_sensitive_name`]), and JSON arrays and objects, whose
    /// members may have one. The others (text, numbers, booleans and null
    /// under other names) hold none, and are not made into JSON values.
    pub(crate) fn secret_candidates(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.data.params
            .iter()
            .enumerate()
            .filter(|(_, entry)| {
                matches!(&entry.value, ParamValue::Json(value) if value.is_array() || value.is_object())
                    || is_sensitive_name(self.text(&entry.name))
            })
            .map(|(at, entry)| (self.text(&entry.name), self.value_at(at)))
    }

    /// Warns (once per process, or per invocation under the testkit) when
    /// the function does not declare `name`, suggesting the nearest of its
    /// declared parameters, the platform's and the request's own.
    fn check(&self, name: &str) {
        if let Some(meta) = self.function
            && !meta.declares_parameter(name)
        {
            let near = meta
                .required()
                .iter()
                .copied()
                .chain(
                    meta.optional()
                        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')),
                )
                .chain(crate::params::ALL.iter().copied())
                .chain(self.data.params.iter().map(|entry| self.text(&entry.name)));
            declared::warn(
                meta,
                &self.declarations,
                declared::Source::Event,
                name,
                Problem::Undeclared,
                near,
            );
        }
    }

    /// The same event, its reads past the declarations warned about once
    /// per invocation rather than once per process: the testkit's.
    pub(crate) fn declarations_per_invocation(mut self) -> Event {
        self.declarations = declared::Scope::invocation();
        self
    }

    /// The same event, read as `meta`'s function.
    pub(crate) fn for_function(mut self, meta: &'static FunctionMeta) -> Event {
        self.function = Some(meta);
        self
    }

    /// The event as a `T` of your own: each field read from the parameter
    /// of its name (`#[serde(rename = "..")]` for names that are not Rust
    /// names). Form parameters are strings; numbers and booleans are
    /// parsed from them, an `Option` is `None` when the parameter is
    /// absent, empty or blank, and a repeated parameter fills a `Vec`.
    ///
    /// ```
    /// use ccfn_core::{Event, ErrorKind};
    /// use serde::Deserialize;
    ///
    /// #[derive(Debug, Deserialize)]
    /// struct Menu {
    ///     #[serde(rename = "CallSid")]
    ///     call_sid: String,
    ///     #[serde(rename = "Digits")]
    ///     digits: u8,
    ///     #[serde(rename = "Language")]
    ///     language: Option<String>,
    /// }
    ///
    /// let menu: Menu = Event::from_pairs([("CallSid", "CA1"), ("Digits", "2")]).parse().unwrap();
    /// assert_eq!((menu.call_sid.as_str(), menu.digits, menu.language), ("CA1", 2, None));
    ///
    /// let error = Event::from_pairs([("CallSid", "CA1"), ("Digits", "two")]).parse::<Menu>().unwrap_err();
    /// assert_eq!(error.kind(), ErrorKind::Validation);
    /// assert_eq!(error.message(), "Invalid parameter Digits: invalid digit found in string");
    ///
    /// let error = Event::from_pairs([("Digits", "2")]).parse::<Menu>().unwrap_err();
    /// assert_eq!(error.message(), "Missing required parameter: CallSid");
    /// ```
    ///
    /// # Errors
    /// A parameter is missing or cannot be read as its field's type: a
    /// validation error (the runtime answers `400`) that names it, with the
    /// spec's `Missing required parameter: <name>` for a missing one.
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, Error> {
        let map = self.to_map(false);
        let params = serde::de::value::MapDeserializer::new(
            map.iter()
                .map(|(name, value)| (name.as_str(), Param(value))),
        );
        serde_path_to_error::deserialize(params).map_err(|error| {
            let field = error.path().to_string();
            let inner = error.into_inner().to_string();
            let message = match inner.strip_prefix("missing field `") {
                Some(rest) => format!("Missing required parameter: {}", rest.trim_end_matches('`')),
                None if field == "." => format!("Invalid parameters: {inner}"),
                None => format!("Invalid parameter {field}: {inner}"),
            };
            Error::new(ErrorKind::Validation, message)
        })
    }

    /// Whether `name` is present with a string value that is not empty or
    /// only white space: the test the contract's validation applies (the
    /// accessors read strings, so an object or an array is no value).
    #[must_use]
    pub fn is_present(&self, name: &str) -> bool {
        self.check(name);
        self.has_value(name)
    }

    /// [`Event::is_present`] unchecked: for the contract's validation,
    /// whose names are the function's required ones, declared.
    pub(crate) fn has_value(&self, name: &str) -> bool {
        self.lookup_str(name)
            .is_some_and(|value| !value.trim().is_empty())
    }

    /// Every parameter, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.data
            .params
            .iter()
            .enumerate()
            .map(|(at, entry)| (self.text(&entry.name), self.value_at(at)))
    }

    /// The distinct parameter names, in order of first appearance.
    #[must_use]
    pub fn keys(&self) -> Vec<&str> {
        let mut seen = std::collections::HashSet::with_capacity(self.data.params.len());
        self.data
            .params
            .iter()
            .map(|entry| self.text(&entry.name))
            .filter(|name| seen.insert(*name))
            .collect()
    }

    /// The number of parameters, repeated keys counted each time.
    #[must_use]
    pub fn len(&self) -> usize {
        self.data.params.len()
    }

    /// Whether there are no parameters.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.data.params.is_empty()
    }

    /// `mode`, or `initial` when absent or blank.
    #[must_use]
    pub fn mode(&self) -> &str {
        match self.well_known(Known::Mode).map(str::trim) {
            Some(mode) if !mode.is_empty() => mode,
            _ => DEFAULT_MODE,
        }
    }

    /// `CallSid`: the call identifier.
    #[must_use]
    pub fn call_sid(&self) -> Option<&str> {
        self.well_known(Known::CallSid)
    }

    /// `From`: the caller's number.
    #[must_use]
    pub fn from(&self) -> Option<&str> {
        self.well_known(Known::From)
    }

    /// `To`: the called number.
    #[must_use]
    pub fn to(&self) -> Option<&str> {
        self.well_known(Known::To)
    }

    /// `FlowSid`: the flow, on flow transitions.
    #[must_use]
    pub fn flow_sid(&self) -> Option<&str> {
        self.well_known(Known::FlowSid)
    }

    /// `ExecutionSid`: the flow execution, on flow transitions.
    #[must_use]
    pub fn execution_sid(&self) -> Option<&str> {
        self.well_known(Known::ExecutionSid)
    }

    /// `StepSid`: the flow step, on flow transitions.
    #[must_use]
    pub fn step_sid(&self) -> Option<&str> {
        self.well_known(Known::StepSid)
    }

    /// The request headers the function was invoked with (hop-by-hop and
    /// proxy headers dropped). They are never logged.
    pub fn headers(&self) -> impl Iterator<Item = (&str, &str)> {
        self.data
            .headers
            .iter()
            .map(|(n, v)| (self.text(n), self.text(v)))
    }

    /// The first value of header `name` (case-insensitive).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.data.headers.iter().find_map(|(n, v)| {
            n.is_ignoring_case(&self.data.sent, name)
                .then(|| self.text(v))
        })
    }

    /// Adds a request header.
    pub fn push_header(&mut self, name: impl Into<String>, value: impl Into<String>) -> &mut Self {
        Arc::make_mut(&mut self.data)
            .headers
            .push((Text::Own(name.into()), Text::Own(value.into())));
        self
    }

    /// Records what the request the event came in says of itself.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    pub(crate) fn set_request(&mut self, request: RequestInfo) {
        self.request = Some(Box::new(request));
    }

    /// What the request the event came in says of itself, when it came
    /// over HTTP and telemetry is exported.
    pub(crate) fn request(&self) -> Option<&RequestInfo> {
        self.request.as_deref()
    }

    /// A copy for the contract's own records (the `error` record, written
    /// while the handler owns the event): its parameters and headers
    /// shared, without what the request said of itself for telemetry,
    /// which only the invocation's span reads, as it starts.
    pub(crate) fn for_records(&self) -> Event {
        Event {
            data: Arc::clone(&self.data),
            function: self.function,
            declarations: self.declarations.clone(),
            request: None,
        }
    }

    /// The request, as the observer of the invocation takes it.
    pub(crate) fn server_request(&self) -> Option<crate::observe::ServerRequest<'_>> {
        self.request().map(RequestInfo::server)
    }

    /// The event as logged: a JSON object, repeated keys as arrays, the
    /// value of every sensitive name (see [`crate::record::is_sensitive_name`])
    /// replaced by `[REDACTED]`.
    #[must_use]
    pub fn to_log_json(&self) -> Value {
        Value::Object(self.to_map(true))
    }

    fn to_map(&self, redact: bool) -> serde_json::Map<String, Value> {
        let mut map = serde_json::Map::with_capacity(self.data.params.len());
        // Names already turned into arrays: a value that is itself an array
        // must not be mistaken for one.
        let mut grouped: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for entry in &self.data.params {
            let name = self.text(&entry.name);
            let value = match (redact, is_sensitive_name(name), &entry.value) {
                (true, true, _) => Value::from(REDACTED),
                (_, _, ParamValue::Text(text)) => Value::from(self.text(text)),
                (true, false, ParamValue::Json(value)) => redact_json(value),
                (false, _, ParamValue::Json(value)) => Value::clone(value),
            };
            match map.get_mut(name) {
                None => {
                    map.insert(name.to_owned(), value);
                }
                Some(existing) => {
                    if grouped.contains(name) {
                        if let Value::Array(values) = existing {
                            values.push(value);
                        }
                    } else {
                        let first = existing.take();
                        *existing = Value::Array(vec![first, value]);
                        grouped.insert(name);
                    }
                }
            }
        }
        map
    }
}

/// An event as its records log it ([`Event::to_log_json`]), written
/// straight from its parameters: no JSON map is built unless a name is
/// repeated (its values then become an array).
pub(crate) struct Logged<'a>(pub(crate) &'a Event);

impl Logged<'_> {
    /// Whether some parameter name appears twice: pair by pair for the
    /// few parameters a webhook has (lengths compared first: most names
    /// differ in length), through a set past that, so that a request with
    /// many parameters costs no more than their number.
    fn has_repeated_names(&self) -> bool {
        const PAIRWISE: usize = 32;
        let event = self.0;
        if event.data.params.len() > PAIRWISE {
            let mut seen = std::collections::HashSet::with_capacity(event.data.params.len());
            return !event
                .data
                .params
                .iter()
                .all(|entry| seen.insert(event.text(&entry.name)));
        }
        event.data.params.iter().enumerate().any(|(at, entry)| {
            let name = event.text(&entry.name);
            event.data.params[at + 1..]
                .iter()
                .any(|other| other.name.is(&event.data.sent, name))
        })
    }
}

impl crate::record::value::FieldValue for Logged<'_> {
    fn shape(&self) -> crate::record::value::Shape<'_> {
        crate::record::value::Shape::Composite
    }

    fn write_json(&self, out: &mut String) {
        use crate::text::json::{push_str, push_value};
        if self.has_repeated_names() {
            return push_value(out, &self.0.to_log_json());
        }
        out.push('{');
        for (at, entry) in self.0.data.params.iter().enumerate() {
            if at > 0 {
                out.push(',');
            }
            let name = self.0.text(&entry.name);
            push_str(out, name);
            out.push(':');
            match (is_sensitive_name(name), &entry.value) {
                (true, _) => push_str(out, REDACTED),
                (false, ParamValue::Text(text)) => push_str(out, self.0.text(text)),
                (false, ParamValue::Json(value)) => push_value(out, &redact_json(value)),
            }
        }
        out.push('}');
    }

    fn write_pretty(&self, out: &mut String) {
        out.push_str(&serde_json::to_string_pretty(&self.0.to_log_json()).unwrap_or_default());
    }

    fn to_value(&self) -> Value {
        self.0.to_log_json()
    }
}

/// Serializes as a JSON object; a repeated key becomes an array of its
/// values. Unlike the logged form, values are not redacted.
impl Serialize for Event {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let map = self.to_map(false);
        let mut out = serializer.serialize_map(Some(map.len()))?;
        for (k, v) in &map {
            out.serialize_entry(k, v)?;
        }
        out.end()
    }
}

/// One parameter's value, read as a field wants it: a string parsed as a
/// number or a boolean when the field is one, blank as `None`, anything
/// else as JSON.
struct Param<'a>(&'a Value);

impl<'de> serde::de::IntoDeserializer<'de, serde::de::value::Error> for Param<'de> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

/// Parses `text` as a `T` for the visitor, or says why not.
fn parsed<T, E>(text: &str) -> Result<T, E>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
    E: serde::de::Error,
{
    text.trim().parse().map_err(E::custom)
}

macro_rules! parse_from_string {
    ($($method:ident => $visit:ident),* $(,)?) => {$(
        fn $method<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            match self.0 {
                Value::String(text) => visitor.$visit(parsed::<_, Self::Error>(text)?),
                other => other.$method(visitor).map_err(serde::de::Error::custom),
            }
        }
    )*};
}

impl<'de> serde::Deserializer<'de> for Param<'de> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::String(text) => visitor.visit_borrowed_str(text),
            other => other
                .deserialize_any(visitor)
                .map_err(serde::de::Error::custom),
        }
    }

    fn deserialize_option<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            Value::String(text) if text.trim().is_empty() => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    parse_from_string! {
        deserialize_bool => visit_bool,
        deserialize_i8 => visit_i8,
        deserialize_i16 => visit_i16,
        deserialize_i32 => visit_i32,
        deserialize_i64 => visit_i64,
        deserialize_u8 => visit_u8,
        deserialize_u16 => visit_u16,
        deserialize_u32 => visit_u32,
        deserialize_u64 => visit_u64,
        deserialize_f32 => visit_f32,
        deserialize_f64 => visit_f64,
    }

    fn deserialize_seq<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            // A parameter given once fills a list of one.
            Value::Array(items) => visitor.visit_seq(serde::de::value::SeqDeserializer::new(
                items.iter().map(Param),
            )),
            _ => visitor.visit_seq(serde::de::value::SeqDeserializer::new(std::iter::once(
                self,
            ))),
        }
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::String(text) => {
                visitor.visit_enum(serde::de::value::BorrowedStrDeserializer::new(text))
            }
            other => other
                .deserialize_enum(name, variants, visitor)
                .map_err(serde::de::Error::custom),
        }
    }

    fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char str string bytes byte_buf unit unit_struct
        tuple tuple_struct map struct identifier ignored_any
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Event {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Event::from_pairs(iter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parameters the contract reads, found in one pass, are the
    /// first of their name, whatever came before, and follow every
    /// change to the parameters.
    #[test]
    fn well_known_parameters_are_the_first_of_their_name() {
        let read = |event: &Event| {
            [
                event.call_sid(),
                event.from(),
                event.to(),
                event.flow_sid(),
                event.execution_sid(),
                event.step_sid(),
            ]
            .map(|value| value.map(str::to_owned))
            .to_vec()
        };
        let by_name = |event: &Event| {
            KNOWN[1..]
                .iter()
                .map(|name| event.lookup_str(name).map(str::to_owned))
                .collect::<Vec<_>>()
        };
        let mut event = Event::from_pairs([
            ("Digits", "1"),
            ("From", "+15550100001"),
            ("From", "+15550100002"),
            ("mode", " menu "),
            ("StepSid", "FT1"),
        ]);
        event.push("FlowSid", serde_json::json!({"not": "text"}));
        for change in 0..5 {
            assert_eq!(read(&event), by_name(&event), "after change {change}");
            match change {
                0 => {
                    event.push("CallSid", "CA1");
                }
                1 => {
                    event.set("From", "+15550100003");
                }
                2 => {
                    event.remove("StepSid");
                }
                _ => {
                    event.set("FlowSid", "FW1").push("ExecutionSid", "FN1");
                }
            }
        }
        assert_eq!(read(&event)[3].as_deref(), Some("FW1"));
        assert_eq!(event.mode(), "menu");
        assert_eq!(Event::default().mode(), DEFAULT_MODE);
    }

    /// The copy the contract keeps for its records shares the parameters
    /// and leaves out what the request said of itself.
    #[test]
    fn a_copy_for_records_shares_the_parameters_without_the_request() {
        let mut event = Event::from_pairs([("CallSid", "CA1"), ("From", "+15550100001")]);
        let mut request = RequestInfo::default();
        request.say(RequestPart::Method, |out| out.push_str("POST"));
        request.say(RequestPart::Path, |out| out.push_str("/f"));
        event.set_request(request);
        let kept = event.for_records();
        assert!(Arc::ptr_eq(&kept.data, &event.data));
        assert!(kept.request().is_none());
        assert!(event.request().is_some());
        assert_eq!(kept.to_log_json(), event.to_log_json());
    }

    #[test]
    fn a_copy_shares_the_parameters_until_one_of_them_changes() {
        let original = Event::from_pairs([("Digits", "1"), ("From", "+15550100001")]);
        assert_eq!(original.get_value("Digits"), Some(&Value::from("1")));
        let copy = original.clone();
        assert!(
            Arc::ptr_eq(&original.data, &copy.data),
            "a count, not a copy"
        );
        for change in [
            |e: &mut Event| {
                e.set("Digits", "2");
            },
            |e: &mut Event| {
                e.push("Digits", "3");
            },
            |e: &mut Event| {
                e.remove("Digits");
            },
            |e: &mut Event| {
                e.push_header("x-change", "1");
            },
        ] {
            let mut changed = original.clone();
            change(&mut changed);
            assert_ne!(changed, original);
            assert_eq!(original.get("Digits"), Some("1"));
            assert_eq!(original.get_value("Digits"), Some(&Value::from("1")));
            assert_eq!(original.header("x-change"), None);
        }
        assert_eq!(copy, original);
    }

    #[test]
    fn an_event_is_logged_straight_from_its_parameters_as_to_log_json_makes_it() {
        use crate::record::value::FieldValue as _;
        let mut nested = Event::from_pairs([("CallSid", "CA1"), ("Quote", "a \"b\"\n")]);
        nested.push("Json", serde_json::json!({"token": "t0p", "ok": [1, 2]}));
        nested.push("AuthToken", "hunter2-canary");
        let repeated = Event::from_pairs([("Digits", "1"), ("From", "+1"), ("Digits", "2")]);
        // Past the few a webhook has, names are compared through a set.
        let many: Vec<(String, String)> =
            (0..40).map(|n| (format!("P{n}"), n.to_string())).collect();
        let mut many_repeated = Event::from_pairs(many.clone());
        many_repeated.push("P7", "again");
        let many = Event::from_pairs(many);
        for event in [Event::new(), nested, repeated, many, many_repeated] {
            let mut written = String::new();
            Logged(&event).write_json(&mut written);
            assert_eq!(
                written,
                serde_json::to_string(&event.to_log_json()).unwrap()
            );
            assert_eq!(Logged(&event).to_value(), event.to_log_json());
        }
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Mode {
        Voicemail,
        Callback,
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Request {
        #[serde(rename = "CallSid")]
        call_sid: String,
        mode: Mode,
        urgent: bool,
        tags: Vec<String>,
        retries: Option<u32>,
        note: Option<String>,
        #[serde(default)]
        score: f64,
    }

    #[test]
    fn parse_reads_strings_as_the_fields_want_them() {
        let mut event = Event::from_pairs([
            ("CallSid", "CA1"),
            ("mode", "callback"),
            ("urgent", "true"),
            ("tags", "vip"),
            ("tags", "spanish"),
            ("retries", " 3 "),
            ("note", "  "),
        ]);
        let request: Request = event.parse().unwrap();
        assert_eq!(
            request,
            Request {
                call_sid: "CA1".into(),
                mode: Mode::Callback,
                urgent: true,
                tags: vec!["vip".into(), "spanish".into()],
                retries: Some(3),
                note: None,
                score: 0.0,
            }
        );
        // One value fills a list of one; JSON values are read as JSON.
        event.remove("tags").push("tags", "vip");
        event.set("score", serde_json::json!(0.5));
        let request: Request = event.parse().unwrap();
        assert_eq!((request.tags, request.score), (vec!["vip".to_owned()], 0.5));
    }

    #[test]
    fn parse_errors_name_the_parameter_and_are_validation_errors() {
        let base = [
            ("CallSid", "CA1"),
            ("mode", "callback"),
            ("urgent", "true"),
            ("tags", "vip"),
        ];
        let error = |change: (&str, &str)| {
            let mut event = Event::from_pairs(base);
            event.set(change.0, change.1);
            let error = event.parse::<Request>().unwrap_err();
            assert_eq!(error.kind(), ErrorKind::Validation);
            error.message().to_owned()
        };
        assert_eq!(
            error(("urgent", "yes")),
            "Invalid parameter urgent: provided string was not `true` or `false`"
        );
        assert_eq!(
            error(("mode", "email")),
            "Invalid parameter mode: unknown variant `email`, expected `voicemail` or `callback`"
        );
        assert_eq!(
            error(("retries", "-1")),
            "Invalid parameter retries: invalid digit found in string"
        );
        let mut event = Event::from_pairs(base);
        event.remove("mode");
        assert_eq!(
            event.parse::<Request>().unwrap_err().message(),
            "Missing required parameter: mode"
        );
    }
    use serde_json::json;

    #[test]
    fn repeated_keys_are_kept_in_order_and_logged_as_arrays() {
        let event = Event::from_pairs([("a", "1"), ("b", "2"), ("a", "3"), ("a", "4")]);
        assert_eq!(event.get("a"), Some("1"));
        assert_eq!(event.get_all("a").count(), 3);
        assert_eq!(event.keys(), ["a", "b"]);
        assert_eq!(event.to_log_json(), json!({"a": ["1", "3", "4"], "b": "2"}));
        assert_eq!(
            serde_json::to_string(&event).unwrap(),
            r#"{"a":["1","3","4"],"b":"2"}"#
        );
    }

    #[test]
    fn two_repeated_values_make_an_array_of_two() {
        let event = Event::from_pairs([("a", "1"), ("a", "2")]);
        assert_eq!(event.to_log_json(), json!({"a": ["1", "2"]}));
    }

    #[test]
    fn blank_values_are_not_present() {
        let mut event = Event::from_pairs([("CallSid", "  "), ("From", ""), ("To", "+1")]);
        event
            .push("Null", Value::Null)
            .push("Number", 3)
            .push("Object", json!({"a": 1}));
        assert!(!event.is_present("CallSid"));
        assert!(!event.is_present("From"));
        assert!(event.is_present("To"));
        assert!(!event.is_present("Null"));
        assert!(
            !event.is_present("Number"),
            "the runtime turns numbers into strings"
        );
        assert!(!event.is_present("Object"));
        assert!(!event.is_present("Missing"));
    }

    #[test]
    fn mode_defaults_to_initial() {
        assert_eq!(Event::from_pairs([("mode", " ")]).mode(), "initial");
        assert_eq!(Event::from_pairs([("mode", "callback")]).mode(), "callback");
    }

    #[test]
    fn sensitive_names_are_redacted_in_the_logged_form_only() {
        let event = Event::from_pairs([("CallSid", "CA1"), ("ApiKey", "k-1")]);
        assert_eq!(
            event.to_log_json(),
            json!({"CallSid": "CA1", "ApiKey": "[REDACTED]"})
        );
        assert_eq!(event.get("ApiKey"), Some("k-1"));
    }

    #[test]
    fn nested_sensitive_members_are_redacted_in_the_logged_form() {
        let mut event = Event::new();
        event.push("Customer", json!({"name": "Ada", "password": "p-1"}));
        assert_eq!(
            event.to_log_json(),
            json!({"Customer": {"name": "Ada", "password": "[REDACTED]"}})
        );
    }

    #[test]
    fn debug_redacts_sensitive_parameters_and_headers() {
        let mut event = Event::from_pairs([("CallSid", "CA1"), ("Password", "pw-canary-1")]);
        event.push_header("authorization", "Basic canary-header-1");
        let debug = format!("{event:?}");
        assert!(debug.contains("CA1"), "{debug}");
        assert!(!debug.contains("pw-canary-1"), "{debug}");
        assert!(!debug.contains("canary-header-1"), "{debug}");
    }

    #[test]
    fn set_replaces_every_value_at_the_first_place() {
        let mut event = Event::from_pairs([("a", "1"), ("b", "2"), ("a", "3")]);
        event.set("a", "9");
        assert_eq!(event.to_log_json(), json!({"a": "9", "b": "2"}));
        event.set("c", "4").remove("b");
        assert_eq!(event.keys(), ["a", "c"]);
    }

    /// The event the runtime makes of `name=value` pairs and headers
    /// written one after the other into one text, each a range of it.
    fn sent(params: &[(&str, &str)], headers: &[(&str, &str)]) -> Event {
        let mut sent = String::new();
        let params = params
            .iter()
            .map(|(name, value)| {
                let name = Text::sent(name, &mut sent);
                Entry {
                    name,
                    value: ParamValue::Text(Text::sent(value, &mut sent)),
                }
            })
            .collect();
        let headers = headers
            .iter()
            .map(|(name, value)| {
                let name = Text::sent(name, &mut sent);
                (name, Text::sent(value, &mut sent))
            })
            .collect();
        Event::from_sent(sent, params, headers)
    }

    #[test]
    fn an_event_read_in_its_sent_text_is_the_event_of_its_pairs() {
        let pairs = [
            ("CallSid", "CA1"),
            ("Tag", "a"),
            ("mode", " callback "),
            ("Tag", "b"),
            ("Empty", ""),
        ];
        let headers = [("x-request-id", "r1"), ("traceparent", "00-ab")];
        let read = sent(&pairs, &headers);
        let mut built = Event::from_pairs(pairs);
        for (name, value) in headers {
            built.push_header(name, value);
        }
        assert_eq!(read, built);
        assert_eq!(built, read);
        assert_eq!(read.get("CallSid"), Some("CA1"));
        assert_eq!(read.get("Tag"), Some("a"));
        assert_eq!(read.get("Missing"), None);
        assert_eq!(read.get_value("Tag"), Some(&json!("a")));
        assert_eq!(
            read.get_all("Tag").collect::<Vec<_>>(),
            [&json!("a"), &json!("b")]
        );
        assert_eq!(read.mode(), "callback");
        assert!(read.is_present("CallSid") && !read.is_present("Empty"));
        assert_eq!(read.keys(), ["CallSid", "Tag", "mode", "Empty"]);
        assert_eq!(
            read.iter().collect::<Vec<_>>(),
            built.iter().collect::<Vec<_>>()
        );
        assert_eq!(read.to_log_json(), built.to_log_json());
        assert_eq!(format!("{read:?}"), format!("{built:?}"));
        assert_eq!(read.header("X-Request-ID"), Some("r1"));
        assert_eq!(
            read.headers().collect::<Vec<_>>(),
            [("x-request-id", "r1"), ("traceparent", "00-ab")]
        );
        assert_eq!(
            serde_json::to_string(&read).unwrap(),
            serde_json::to_string(&built).unwrap()
        );
        // A different value, name or header makes a different event.
        assert_ne!(read, sent(&[("CallSid", "CA2")], &headers));
        assert_ne!(read, Event::from_pairs(pairs));
        let mut numbered = Event::from_pairs(pairs);
        numbered.set("Empty", 0);
        assert_ne!(numbered, built);
    }

    #[test]
    fn changes_after_a_read_are_seen_by_the_next() {
        let mut event = sent(&[("a", "1"), ("b", "2"), ("a", "3")], &[]);
        assert_eq!(event.iter().count(), 3);
        event.set("a", json!({"x": 1}));
        assert_eq!(
            event.iter().collect::<Vec<_>>(),
            [("a", &json!({"x": 1})), ("b", &json!("2"))]
        );
        assert_eq!(event.get("a"), None, "not a string");
        event.push("c", "4").remove("b");
        assert_eq!(
            event.iter().collect::<Vec<_>>(),
            [("a", &json!({"x": 1})), ("c", &json!("4"))]
        );
        event.set("a", "5");
        assert_eq!(event.get("a"), Some("5"));
        assert_eq!(event.get_value("a"), Some(&json!("5")));
        let clone = event.clone();
        assert_eq!(
            clone.iter().collect::<Vec<_>>(),
            event.iter().collect::<Vec<_>>()
        );
    }

    /// Exactly the parameters the secret collection can take a value from:
    /// sensitive names whatever the value, arrays and objects whatever the
    /// name; in order.
    #[test]
    fn secret_candidates_are_sensitive_names_and_structured_values() {
        let mut event = sent(
            &[("CallSid", "CA1"), ("Password", "pw-1"), ("Note", "n")],
            &[],
        );
        event
            .push("List", json!(["a"]))
            .push("Customer", json!({"token": "t-1"}))
            .push("Count", 3)
            .push("ApiKey", 42)
            .push("Flag", true);
        assert_eq!(
            event.secret_candidates().collect::<Vec<_>>(),
            [
                ("Password", &json!("pw-1")),
                ("List", &json!(["a"])),
                ("Customer", &json!({"token": "t-1"})),
                ("ApiKey", &json!(42)),
            ]
        );
        assert_eq!(
            sent(&[("CallSid", "CA1")], &[]).secret_candidates().count(),
            0
        );
    }

    #[test]
    fn accessors_and_headers() {
        let mut event = Event::from_pairs([
            ("CallSid", "CA1"),
            ("From", "+1"),
            ("To", "+2"),
            ("FlowSid", "FW1"),
            ("ExecutionSid", "FN1"),
            ("StepSid", "FT1"),
        ]);
        event.push_header("X-Request-Id", "r1");
        assert_eq!(
            (event.call_sid(), event.from(), event.to()),
            (Some("CA1"), Some("+1"), Some("+2"))
        );
        assert_eq!(
            (event.flow_sid(), event.execution_sid(), event.step_sid()),
            (Some("FW1"), Some("FN1"), Some("FT1"))
        );
        assert_eq!(event.header("x-request-id"), Some("r1"));
        assert_eq!(event.headers().count(), 1);
        assert_eq!(event.len(), 6);
        assert!(!event.is_empty());
    }
}
