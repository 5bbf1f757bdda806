//! A read-only client for the platform's REST API: what steps 2 to 6 of
//! the diagnostic procedure ask the platform (calls, flows, tasks, phone
//! numbers, the account).
//!
//! - **Credentials** from the environment: an API key pair
//!   (`API_KEY_SID`, `API_KEY_SECRET`) with `ACCOUNT_SID`, or the account's
//!   `ACCOUNT_SID` and `AUTH_TOKEN`. The secret is a [`Secret`], and so is
//!   every form it takes on the wire (the Basic `Authorization` value,
//!   base64 of `user:password`, padded or not, standard or URL-safe): none
//!   is ever printed, the platform's own echo of them included. A base URL
//!   that carries a user or password is refused.
//! - **One base URL per product** (`CCFN_PLATFORM_API_URL` for the 2010
//!   API, `CCFN_PLATFORM_TASKROUTER_URL`, ...), so that tests point the
//!   client at a fake on loopback. A request goes only to one of them.
//! - **Both pagination shapes**: the 2010 API's `next_page_uri` (a path
//!   on the same host) and the newer APIs' `meta.next_page_url` (an
//!   absolute URL), both through [`next_link`]: followed only to the
//!   listing's own scheme, host and port, so that the credentials go
//!   nowhere else. `PageSize` is the limit, at most 1 000.
//! - **Pagination always ends**: at most [`MAX_PAGES`] pages, items that
//!   cost at most [`MAX_LIST_COST`] once parsed, never a page twice, at
//!   most [`MAX_EMPTY_PAGES`] empty pages in a row that still link a next
//!   one. Each ends the listing with the items so far and one warning.
//! - **Bounded bodies**: a page is at most [`MAX_PAGE_BYTES`], an error's
//!   body at most [`MAX_ERROR_BYTES`], read in chunks (a `Content-Length`
//!   over the cap is refused before reading), so that memory stays
//!   proportional to the caps whatever the answer's size.
//! - **Bounded once parsed**: JSON text expands when parsed (`0,` is two
//!   bytes of text and a [`Value`] of 72 bytes), so a body under its cap
//!   can still cost many times its size. An answer is parsed by
//!   [`parse_costed`], which counts what the value costs as it is built
//!   (see [`VALUE_COST`]) and stops past a budget: one answer at
//!   most [`MAX_ANSWER_COST`], a listing's pages at most [`MAX_LIST_COST`]
//!   in all. serde_json's recursion limit (at most 127 nested arrays and
//!   objects) stays in force.
//! - **Errors that name the resource**: 401, 403, 404, 429 and 5xx each
//!   say what was asked and what to do, with the platform's message (at
//!   most [`MAX_MESSAGE_CHARS`]); a 429 is retried after the delay the
//!   platform gives (`Retry-After`, seconds or an HTTP date), at most
//!   [`RETRIES`] times and never for longer than [`MAX_WAIT`] in all.

use std::collections::HashSet;
use std::fmt;
use std::time::{Duration, SystemTime};

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine as _;
use ccfn_core::Secret;
use reqwest::{StatusCode, Url};
use serde_json::Value;

use crate::error::Problem;

/// How many times a request the platform rate-limited (429) is retried.
pub(crate) const RETRIES: u32 = 3;

/// The longest a request waits in all for the platform's rate limit: a
/// `Retry-After` asking for more is not waited for (the 429 is the
/// answer).
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(30);

/// The most items the platform returns in one page.
pub(crate) const MAX_PAGE_SIZE: usize = 1000;

/// The most pages one listing reads. A page holds up to [`MAX_PAGE_SIZE`]
/// items, so this is 100 000 items at full pages, more than any command
/// shows; a platform still linking a next page past it is looping.
pub(crate) const MAX_PAGES: usize = 100;

/// The most empty pages in a row that still link a next page. A filter
/// the platform applies after paging can leave a page or two empty in the
/// middle of a listing; more in a row is a platform paging through
/// nothing.
pub(crate) const MAX_EMPTY_PAGES: usize = 5;

/// The largest page read: a full page of the platform's largest items
/// (1 000 calls, flows with their definitions) is a few MiB; sixteen
/// leaves room and bounds what one answer costs in memory.
pub(crate) const MAX_PAGE_BYTES: usize = 16 * 1024 * 1024;

/// The most one answer (a resource, or a page) may cost once parsed, as
/// [`parse_costed`] counts it. A page of 1 000 calls with every field the
/// platform's definition gives them costs about 6 MiB, a flow whose
/// definition is 1 MB of JSON under 8 MiB: sixteen leaves room for both,
/// and bounds
/// what the most expanding JSON under [`MAX_PAGE_BYTES`] may take (a page
/// of `0,` is 8 million values, some 600 MB).
pub(crate) const MAX_ANSWER_COST: usize = 16 * 1024 * 1024;

/// The most the pages of one listing may cost once parsed, all pages
/// together (each page within [`MAX_ANSWER_COST`] too): about 2 500 calls
/// at their usual size, more than a screen of diagnosis needs (filters
/// narrow a listing). Why sixteen: the command shows what it lists, and
/// showing costs a copy of the values and about three of their JSON text
/// (the text, scrubbed, escaped), which [`parse_costed`]'s count bounds;
/// with the page text being read ([`MAX_PAGE_BYTES`]) the whole process
/// stays well under 128 MiB.
pub(crate) const MAX_LIST_COST: usize = 16 * 1024 * 1024;

/// The largest error body read: the platform's error is a short JSON
/// object (`code`, `message`, `more_info`, `status`).
pub(crate) const MAX_ERROR_BYTES: usize = 64 * 1024;

/// The most characters of the platform's error message shown: its
/// messages are a sentence; more is not a message for the operator.
pub(crate) const MAX_MESSAGE_CHARS: usize = 300;

/// A product of the platform: each has its own base URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Product {
    /// The 2010 API: calls, recordings, events, phone numbers, the
    /// account, usage records, applications, API keys.
    Api,
    /// The task router: workspaces, tasks, workflows, task queues.
    TaskRouter,
    /// The flows (Studio): flows, executions, steps.
    Studio,
    /// The serverless services: functions, environments, logs.
    Serverless,
    /// Alerts.
    Monitor,
    /// Call insights: a call's annotation.
    Insights,
}

impl Product {
    /// Every product, in the order of the diagnostic procedure.
    pub(crate) const ALL: [Product; 6] = [
        Product::Api,
        Product::Serverless,
        Product::Studio,
        Product::TaskRouter,
        Product::Monitor,
        Product::Insights,
    ];

    /// The variable that sets its base URL.
    pub(crate) const fn variable(self) -> &'static str {
        match self {
            Product::Api => "CCFN_PLATFORM_API_URL",
            Product::TaskRouter => "CCFN_PLATFORM_TASKROUTER_URL",
            Product::Studio => "CCFN_PLATFORM_STUDIO_URL",
            Product::Serverless => "CCFN_PLATFORM_SERVERLESS_URL",
            Product::Monitor => "CCFN_PLATFORM_MONITOR_URL",
            Product::Insights => "CCFN_PLATFORM_INSIGHTS_URL",
        }
    }

    /// Its base URL on the platform.
    pub(crate) const fn default_url(self) -> &'static str {
        match self {
            Product::Api => "https://api.twilio.com",
            Product::TaskRouter => "https://taskrouter.twilio.com",
            Product::Studio => "https://studio.twilio.com",
            Product::Serverless => "https://serverless.twilio.com",
            Product::Monitor => "https://monitor.twilio.com",
            Product::Insights => "https://insights.twilio.com",
        }
    }
}

/// Where and as whom the client asks.
#[derive(Clone)]
pub(crate) struct Settings {
    /// The account the resources belong to (`AC...`).
    pub(crate) account_sid: String,
    /// Who the requests authenticate as: an API key's SID, or the account
    /// SID.
    pub(crate) username: String,
    /// The API key's secret or the account's auth token.
    pub(crate) password: Secret,
    /// The base URL of each product, in [`Product::ALL`]'s order.
    pub(crate) bases: [Url; 6],
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("account_sid", &self.account_sid)
            .field("username", &self.username)
            .field("password", &self.password)
            .field(
                "bases",
                &self.bases.iter().map(Url::as_str).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Settings {
    /// Reads the settings from `var` (the process environment in `ccfn`,
    /// a map in tests), saying which variable is missing or wrong.
    pub(crate) fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Settings, Problem> {
        let get = |name: &str| {
            var(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let account_sid = get("ACCOUNT_SID").ok_or_else(|| {
            Problem::setting(
                "ACCOUNT_SID",
                "ACCOUNT_SID is not set: the platform's commands need the account SID (AC...), \
                 with API_KEY_SID and API_KEY_SECRET, or with AUTH_TOKEN",
            )
        })?;
        if !account_sid.starts_with("AC") {
            return Err(Problem::setting(
                "ACCOUNT_SID",
                format!("ACCOUNT_SID is {account_sid:?}: an account SID starts with AC"),
            ));
        }
        let (username, password) =
            match (get("API_KEY_SID"), get("API_KEY_SECRET"), get("AUTH_TOKEN")) {
                (Some(sid), Some(secret), _) => (sid, secret),
                (Some(_), None, _) => {
                    return Err(Problem::setting(
                        "API_KEY_SECRET",
                        "API_KEY_SID is set but API_KEY_SECRET is not",
                    ))
                }
                (None, Some(_), _) => {
                    return Err(Problem::setting(
                        "API_KEY_SID",
                        "API_KEY_SECRET is set but API_KEY_SID is not",
                    ))
                }
                (None, None, Some(token)) => (account_sid.clone(), token),
                (None, None, None) => {
                    return Err(Problem::setting(
                        "AUTH_TOKEN",
                        "neither API_KEY_SID and API_KEY_SECRET nor AUTH_TOKEN is set: \
                            the platform's commands need one of them",
                    ))
                }
            };
        let mut bases = Vec::new();
        for product in Product::ALL {
            let url = get(product.variable()).unwrap_or_else(|| product.default_url().to_owned());
            let base = base_url(product.variable(), &url)
                .map_err(|message| Problem::setting(product.variable(), message))?;
            bases.push(base);
        }
        let bases = bases.try_into().expect("one base per product");
        Ok(Settings {
            account_sid,
            username,
            password: Secret::new(password),
            bases,
        })
    }

    /// Whether `url` is on one of the products' base URLs (same scheme,
    /// host and port) and carries no user or password: the only URLs the
    /// credentials are sent to.
    pub(crate) fn allows(&self, url: &Url) -> bool {
        no_userinfo(url) && self.bases.iter().any(|base| same_origin(base, url))
    }

    /// The base URL of `product`.
    pub(crate) fn base(&self, product: Product) -> &Url {
        let at = Product::ALL
            .iter()
            .position(|p| *p == product)
            .expect("every product");
        &self.bases[at]
    }
}

/// A product's base URL from `variable`'s `value`: http(s), with a host,
/// and no user or password (the credentials are the variables'; a URL's
/// would be shown and sent). The message never repeats a user or
/// password.
fn base_url(variable: &str, value: &str) -> Result<Url, String> {
    let Ok(url) = Url::parse(value) else {
        return Err(format!("{variable} is not a URL"));
    };
    if !no_userinfo(&url) {
        return Err(format!(
            "{variable} carries a user or password: give the credentials in ACCOUNT_SID and \
             API_KEY_SID/API_KEY_SECRET or AUTH_TOKEN, and the URL without them"
        ));
    }
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(format!("{variable} is {value:?}: not an http(s) URL"));
    }
    Ok(url)
}

/// Whether `url` has neither a user nor a password.
fn no_userinfo(url: &Url) -> bool {
    url.username().is_empty() && url.password().is_none()
}

/// Whether `a` and `b` have the same scheme, host and port (a default
/// port written or not).
fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host() == b.host()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// Why a request to the platform failed, naming what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlatformError {
    /// What was asked, e.g. `calls` or `flow FW...`.
    pub(crate) resource: String,
    /// The HTTP status, when the platform answered.
    pub(crate) status: Option<u16>,
    /// The platform's error code and message, when it gave them.
    pub(crate) code: Option<u64>,
    /// What went wrong, in words.
    pub(crate) message: String,
}

impl fmt::Display for PlatformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.resource, self.message)?;
        if let Some(code) = self.code {
            write!(f, " (error {code})")?;
        }
        Ok(())
    }
}

impl std::error::Error for PlatformError {}

/// What to do about a status, for the message.
fn advice(status: StatusCode) -> &'static str {
    match status.as_u16() {
        401 => "the platform refused the credentials: check ACCOUNT_SID and API_KEY_SID/API_KEY_SECRET or AUTH_TOKEN",
        403 => "the credentials may not read this resource: use a key with read access to it, or the account's auth token",
        404 => "not found: check the SID, and that it belongs to ACCOUNT_SID",
        429 => "the platform's rate limit held after the retries: wait and run the command again",
        500..=599 => "the platform failed to answer: try again, and see the platform's status page",
        _ => "the platform refused the request",
    }
}

/// One page of a list: its items and the next page's URL.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Page {
    /// The items, as the platform wrote them.
    pub(crate) items: Vec<Value>,
    /// The next page, when there is one.
    pub(crate) next: Option<Url>,
}

/// The field a next-page link came from: the 2010 API's or the newer
/// APIs'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkField {
    /// `next_page_uri`: a path on the listing's host.
    NextPageUri,
    /// `meta.next_page_url`: an absolute URL.
    NextPageUrl,
}

impl LinkField {
    fn name(self) -> &'static str {
        match self {
            LinkField::NextPageUri => "next_page_uri",
            LinkField::NextPageUrl => "meta.next_page_url",
        }
    }
}

/// The URL a next-page `link` (from `field`) leads to, when it is on
/// `base`'s scheme, host and port: the one place every next-page link
/// passes, so that the credentials go to no other host.
///
/// Refused, with a message that names where the link leads (its origin,
/// never its path or query, which may carry anything) and says the
/// credentials were not sent:
/// - a link that resolves to another scheme, host or port, or that
///   carries a user or password;
/// - for `next_page_uri`, anything but a path: `//host`, `\\host`, `/\\host`,
///   `https:host`, a scheme;
/// - a backslash, a control character or a space anywhere: URL parsers
///   read `\\` as `/` and drop tabs and newlines, so `/\t/host` is
///   `//host` once parsed.
///
/// Percent-encoded characters stay encoded in the path (`/%2F%2Fhost` is a
/// path on `base`'s host), and a host is compared once parsed (`%2e`,
/// case and IDNA decoded), so neither can lead elsewhere.
pub(crate) fn next_link(link: &str, field: LinkField, base: &Url) -> Result<Url, String> {
    let home = base.origin().ascii_serialization();
    // Where the link would lead if a lenient parser followed it: named in
    // the message when it is elsewhere.
    let lenient = base.join(link).ok();
    let refuse = |why: String| {
        let leads = match &lenient {
            Some(url) if !same_origin(url, base) || !no_userinfo(url) => {
                format!(" (it leads to {})", destination(url))
            }
            _ => String::new(),
        };
        Err(format!(
            "{} {why}{leads}: not followed, and the credentials were not sent",
            field.name()
        ))
    };
    if link
        .chars()
        .any(|c| c == '\\' || c.is_control() || c.is_whitespace())
    {
        return refuse("holds a backslash, a control character or a space".to_owned());
    }
    let url = match field {
        LinkField::NextPageUri => {
            if !link.starts_with('/') || link.starts_with("//") {
                return refuse(format!("is not a path on {home}"));
            }
            base.join(link)
                .map_err(|err| format!("{} is not a path: {err}", field.name()))?
        }
        LinkField::NextPageUrl => match Url::parse(link) {
            Ok(url) => url,
            Err(_) => return refuse("is not an absolute URL".to_owned()),
        },
    };
    if !no_userinfo(&url) {
        return refuse("carries a user or password".to_owned());
    }
    if !same_origin(&url, base) {
        return Err(format!(
            "{} leads to {}, not {home}: not followed, and the credentials were not sent",
            field.name(),
            destination(&url)
        ));
    }
    Ok(url)
}

/// Where a link leads, for a message: its origin (`https://host:port`),
/// or `a javascript: URL` for a scheme without one.
fn destination(url: &Url) -> String {
    let origin = url.origin();
    if origin.is_tuple() {
        origin.ascii_serialization()
    } else {
        format!("a {}: URL", url.scheme())
    }
}

/// [`take_page`] of a borrowed page, for tests.
#[cfg(test)]
pub(crate) fn read_page(body: &Value, key: &str, base: &Url) -> Result<Page, String> {
    take_page(body.clone(), key, base)
}

/// Reads a page of either shape: the items under `key` (or under
/// `meta.key` when the page says), moved out, not copied; and the next
/// page from `next_page_uri` (a path on `base`) or `meta.next_page_url`
/// (absolute, same origin as `base`), through [`next_link`].
fn take_page(mut body: Value, key: &str, base: &Url) -> Result<Page, String> {
    let key = body["meta"]["key"].as_str().unwrap_or(key).to_owned();
    let items = match body.get_mut(&key).map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => return Err(format!("the page has no {key:?} list")),
    };
    let next = match (body.get("next_page_uri"), body["meta"].get("next_page_url")) {
        (Some(Value::String(path)), _) if !path.is_empty() => {
            Some(next_link(path, LinkField::NextPageUri, base)?)
        }
        (_, Some(Value::String(url))) if !url.is_empty() => {
            Some(next_link(url, LinkField::NextPageUrl, base)?)
        }
        _ => None,
    };
    Ok(Page { items, next })
}

/// The platform's REST API, read-only.
#[derive(Debug, Clone)]
pub(crate) struct Platform {
    http: reqwest::Client,
    settings: Settings,
    /// The `Authorization` header's value: `Basic ` and base64 of
    /// `user:password`.
    authorization: Secret,
}

impl Platform {
    /// A client with `settings`. Every form the credentials take on the
    /// wire is registered as a secret here, before any request: the
    /// platform may echo them back in any answer.
    pub(crate) fn new(settings: Settings) -> Result<Platform, Problem> {
        ccfn_core::http::install_crypto_provider();
        // The CA certificates ccfn-core's clients trust (the system's,
        // else those built in; `CCFN_TLS_ROOTS`): an image without any
        // is said here, with what to install, not as a builder error.
        let roots = ccfn_core::http::TlsRoots::from_env()
            .map_err(|err| Problem::Tls(err.message().to_owned()))?;
        let http = roots
            .apply(reqwest::Client::builder())
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("ccfn/", clap::crate_version!()))
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|err| Problem::Tls(err.to_string()))?;
        let pair = format!("{}:{}", settings.username, settings.password.expose());
        for value in [pair.as_str(), settings.password.expose()] {
            for engine in BASE64_FORMS {
                // Registered for the life of the process.
                drop(Secret::new(engine.encode(value)));
            }
        }
        let authorization = Secret::new(format!("Basic {}", STANDARD.encode(&pair)));
        Ok(Platform {
            http,
            settings,
            authorization,
        })
    }

    /// The URL of `path` (with `{account}` replaced by the account SID)
    /// on `product`'s base.
    pub(crate) fn url(&self, product: Product, path: &str) -> Url {
        let path = path.replace("{account}", &self.settings.account_sid);
        let base = self.settings.base(product);
        let mut url = base.clone();
        let joined = format!("{}{}", base.path().trim_end_matches('/'), path);
        url.set_path(&joined);
        url
    }

    /// Fetches `path` (see [`Platform::url`]) on `product`.
    pub(crate) async fn fetch_at(
        &self,
        resource: &str,
        product: Product,
        path: &str,
    ) -> Result<Value, PlatformError> {
        self.fetch(resource, self.url(product, path)).await
    }

    /// Lists up to `limit` items of `key` at `path` on `product`.
    pub(crate) async fn list_at(
        &self,
        resource: &str,
        product: Product,
        path: &str,
        key: &str,
        limit: usize,
    ) -> Result<Vec<Value>, PlatformError> {
        self.list(resource, self.url(product, path), key, limit)
            .await
    }

    /// Fetches one resource. An answer that would cost more than
    /// [`MAX_ANSWER_COST`] once parsed is an error that says so.
    pub(crate) async fn fetch(&self, resource: &str, url: Url) -> Result<Value, PlatformError> {
        let body = self.get(resource, url).await?;
        match parse_costed(&body, MAX_ANSWER_COST) {
            Ok((value, _)) => Ok(value),
            Err(ParseError::OverBudget) => Err(PlatformError {
                resource: resource.to_owned(),
                status: Some(200),
                code: None,
                message: format!(
                    "the platform's answer ({} of JSON) would take more than {} of memory once read: not kept",
                    crate::input::size(body.len()),
                    crate::input::size(MAX_ANSWER_COST)
                ),
            }),
            Err(ParseError::Invalid(_)) => Err(not_json(resource)),
        }
    }

    /// Lists up to `limit` items of `key`, starting at `url` (with its
    /// filters in the query), following the pages on `url`'s origin.
    ///
    /// A listing always ends: past [`MAX_PAGES`] pages, at a page that
    /// would cost more than [`MAX_ANSWER_COST`] once parsed or take the
    /// listing past [`MAX_LIST_COST`] in all, at a next page already read
    /// (the current one included), or after [`MAX_EMPTY_PAGES`] empty
    /// pages in a row that link a next one, it stops with the items so far
    /// and says so in one warning on standard error.
    pub(crate) async fn list(
        &self,
        resource: &str,
        mut url: Url,
        key: &str,
        limit: usize,
    ) -> Result<Vec<Value>, PlatformError> {
        let base = url.clone();
        let size = limit.clamp(1, MAX_PAGE_SIZE);
        url.query_pairs_mut()
            .append_pair("PageSize", &size.to_string());
        let mut items = Vec::new();
        let mut visited = HashSet::new();
        let (mut pages, mut empty, mut spent) = (0usize, 0usize, 0usize);
        let mut next = Some(url);
        while let Some(url) = next.take() {
            if items.len() >= limit {
                break;
            }
            let stop = if pages >= MAX_PAGES {
                Some(format!("the platform links more than {MAX_PAGES} pages"))
            } else if !visited.insert(url.as_str().to_owned()) {
                Some("the platform's next page is one already read".to_owned())
            } else {
                None
            };
            if let Some(why) = stop {
                warn_stopped(resource, &why, items.len());
                break;
            }
            let text = self.get(resource, url).await?;
            pages += 1;
            let left = MAX_LIST_COST - spent;
            let parsed = parse_costed(&text, left.min(MAX_ANSWER_COST));
            drop(text);
            let body = match parsed {
                Ok((body, cost)) => {
                    spent += cost;
                    body
                }
                Err(ParseError::OverBudget) => {
                    let why = if left >= MAX_ANSWER_COST {
                        format!(
                            "a page would take more than {} of memory once read",
                            crate::input::size(MAX_ANSWER_COST)
                        )
                    } else {
                        format!(
                            "the pages would take more than {} of memory in all once read",
                            crate::input::size(MAX_LIST_COST)
                        )
                    };
                    warn_stopped(resource, &why, items.len());
                    break;
                }
                Err(ParseError::Invalid(_)) => return Err(not_json(resource)),
            };
            let page = take_page(body, key, &base).map_err(|message| PlatformError {
                resource: resource.to_owned(),
                status: None,
                code: None,
                message: format!("the platform's answer is not a page to follow: {message}"),
            })?;
            if page.items.is_empty() && page.next.is_some() {
                empty += 1;
                if empty >= MAX_EMPTY_PAGES {
                    let why = format!(
                        "the platform gave {MAX_EMPTY_PAGES} empty pages in a row, each linking another"
                    );
                    warn_stopped(resource, &why, items.len());
                    break;
                }
            } else {
                empty = 0;
            }
            items.extend(page.items);
            next = page.next;
        }
        items.truncate(limit);
        Ok(items)
    }

    /// One GET, retried on 429 as the platform asks; the successful
    /// answer's body (at most [`MAX_PAGE_BYTES`]), or the error.
    async fn get(&self, resource: &str, url: Url) -> Result<Vec<u8>, PlatformError> {
        let error = |status: Option<u16>, code: Option<u64>, message: String| PlatformError {
            resource: resource.to_owned(),
            status,
            code,
            message,
        };
        if !self.settings.allows(&url) {
            return Err(error(
                None,
                None,
                format!(
                    "{} is not one of the platform's base URLs: not asked, and the credentials were not sent",
                    origin(&url)
                ),
            ));
        }
        let mut authorization = reqwest::header::HeaderValue::from_str(self.authorization.expose())
            .map_err(|_| {
                error(
                    None,
                    None,
                    "the credentials cannot be written in an HTTP header".to_owned(),
                )
            })?;
        authorization.set_sensitive(true);
        let mut waited = Duration::ZERO;
        let mut attempt = 0;
        loop {
            let mut response = self
                .http
                .get(url.clone())
                .header(reqwest::header::AUTHORIZATION, authorization.clone())
                .header("Accept", "application/json")
                .send()
                .await
                .map_err(|err| {
                    error(
                        None,
                        None,
                        format!(
                            "no answer from {}: {}",
                            origin(&url),
                            causes(&err.without_url())
                        ),
                    )
                })?;
            let status = response.status();
            if status == StatusCode::TOO_MANY_REQUESTS && attempt < RETRIES {
                let delay = retry_after(response.headers(), SystemTime::now())
                    .unwrap_or(Duration::from_secs(1));
                let total = waited.saturating_add(delay);
                if total <= MAX_WAIT {
                    attempt += 1;
                    waited = total;
                    drop(response);
                    tokio::time::sleep(delay).await;
                    continue;
                }
            }
            let cap = if status.is_success() {
                MAX_PAGE_BYTES
            } else {
                MAX_ERROR_BYTES
            };
            let body = match read_capped(&mut response, cap).await {
                Ok(body) => Some(body),
                Err(BodyError::TooLarge(declared)) if status.is_success() => {
                    let declared = declared
                        .map(|n| format!(" (Content-Length {n})"))
                        .unwrap_or_default();
                    return Err(error(
                        Some(status.as_u16()),
                        None,
                        format!(
                            "the platform's answer is over {}{declared}: not read; ask for fewer items (--limit)",
                            crate::input::size(cap)
                        ),
                    ));
                }
                // An error's body past its cap: the status says enough.
                Err(BodyError::TooLarge(_)) => None,
                Err(BodyError::Read(err)) => {
                    return Err(error(
                        Some(status.as_u16()),
                        None,
                        causes(&err.without_url()),
                    ))
                }
            };
            if status.is_success() {
                return Ok(body.unwrap_or_default());
            }
            // An error's body is at most MAX_ERROR_BYTES: its cost too.
            let json: Option<Value> = body
                .and_then(|b| parse_costed(&b, MAX_ANSWER_COST).ok())
                .map(|(json, _)| json);
            let code = json.as_ref().and_then(|j| j["code"].as_u64());
            let said = json
                .as_ref()
                .and_then(|j| j["message"].as_str())
                .map(|m| format!(" ({})", shown_message(m)))
                .unwrap_or_default();
            return Err(error(
                Some(status.as_u16()),
                code,
                format!("{status}{said}: {}", advice(status)),
            ));
        }
    }
}

/// The error of a successful answer that is not JSON.
fn not_json(resource: &str) -> PlatformError {
    PlatformError {
        resource: resource.to_owned(),
        status: Some(200),
        code: None,
        message: "the platform's answer is not JSON".to_owned(),
    }
}

/// `text` with the userinfo of each URL in it written `[REDACTED]@`
/// ([`ccfn_core::record::redact_url_userinfo`]), or `None` when it has
/// none. [`parse_costed`] applies it to every string of an answer
/// (`https://user:password@host/...` is how a webhook URL with basic
/// authentication is written), so that no URL the platform returns shows
/// its credentials, in a table or in `--json`.
fn without_userinfo(text: &str) -> Option<String> {
    match ccfn_core::record::redact_url_userinfo(text) {
        std::borrow::Cow::Owned(redacted) => Some(redacted),
        std::borrow::Cow::Borrowed(_) => None,
    }
}

/// Why [`parse_costed`] gave no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ParseError {
    /// The value would cost more than the budget: parsing stopped there.
    OverBudget,
    /// The text is not JSON (or nests deeper than serde_json's 128
    /// levels); serde_json's message.
    Invalid(String),
}

/// What one value costs, as [`parse_costed`] counts it: the slot it takes
/// in its parent (`size_of::<Value>()`), four bytes per level of depth
/// (its indentation when shown as pretty JSON, on the lines that open and
/// close it), and
/// - for a string: its bytes, and five more for each character JSON or
///   the terminal write escaped (`"`, `\\`, control characters): what it
///   takes in memory and what it takes shown;
/// - for each entry of an object: its key's bytes (counted as a string
///   is), the key's `String` and what the map spends to index it.
///
/// Arrays and maps are built as values come, so that while one is being
/// built it may hold up to twice its count (the capacity doubles); an
/// array is shrunk to its length once whole.
const VALUE_COST: usize = std::mem::size_of::<Value>();
/// What an object spends on an entry, beyond its key's bytes and its
/// value: the key's `String`, its hash and its index slot.
const ENTRY_COST: usize = std::mem::size_of::<String>() + 2 * std::mem::size_of::<u64>();

/// The bytes a string costs (see [`VALUE_COST`]): its length, and five
/// more for each character written escaped.
fn text_cost(text: &str) -> usize {
    let escaped = text
        .chars()
        .filter(|c| c.is_control() || *c == '"' || *c == '\\')
        .count();
    text.len().saturating_add(escaped.saturating_mul(5))
}

/// Parses `text` as one JSON value, counting what the value costs as it
/// is built (see [`VALUE_COST`]) and stopping as soon as the count would
/// pass `budget`: what parsing holds stays within the budget (and the
/// text), whatever the text expands to. Every URL in a string loses its
/// user and password ([`without_userinfo`]) as it is read, and the cost
/// counted is the string kept. The value and its cost.
///
/// serde_json's recursion limit (at most 127 nested arrays and objects) stays
/// in force: deeper is [`ParseError::Invalid`].
pub(crate) fn parse_costed(text: &[u8], budget: usize) -> Result<(Value, usize), ParseError> {
    use serde::de::DeserializeSeed as _;
    let mut left = Budget {
        left: budget,
        over: false,
    };
    let mut de = serde_json::Deserializer::from_slice(text);
    let parsed = Costed {
        budget: &mut left,
        depth: 0,
    }
    .deserialize(&mut de)
    .and_then(|value| de.end().map(|()| value));
    match parsed {
        Ok(value) => Ok((value, budget - left.left)),
        Err(_) if left.over => Err(ParseError::OverBudget),
        Err(err) => Err(ParseError::Invalid(err.to_string())),
    }
}

/// What is left of a budget, and whether it was passed.
struct Budget {
    left: usize,
    over: bool,
}

impl Budget {
    /// Takes `cost` from the budget, or fails (and remembers why) when
    /// less is left.
    fn charge<E: serde::de::Error>(&mut self, cost: usize) -> Result<(), E> {
        match self.left.checked_sub(cost) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => {
                self.over = true;
                Err(E::custom("the value is over its budget"))
            }
        }
    }
}

/// Builds a [`Value`] at `depth`, charging `budget` as it goes.
struct Costed<'b> {
    budget: &'b mut Budget,
    depth: usize,
}

impl Costed<'_> {
    /// What a value costs at this depth before its content.
    fn node(&self) -> usize {
        VALUE_COST.saturating_add(self.depth.saturating_mul(4))
    }

    /// A string value, its userinfo redacted, charged.
    fn string<E: serde::de::Error>(self, text: String) -> Result<Value, E> {
        let text = without_userinfo(&text).unwrap_or(text);
        self.budget
            .charge(self.node().saturating_add(text_cost(&text)))?;
        Ok(Value::String(text))
    }

    /// A value without content (null, a boolean, a number), charged.
    fn scalar<E: serde::de::Error>(self, value: Value) -> Result<Value, E> {
        self.budget.charge(self.node())?;
        Ok(value)
    }

    /// The same budget, one level deeper.
    fn child(&mut self) -> Costed<'_> {
        Costed {
            budget: self.budget,
            depth: self.depth + 1,
        }
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Costed<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Costed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value, E> {
        self.scalar(Value::Bool(v))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value, E> {
        self.scalar(Value::from(v))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        self.scalar(Value::from(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        self.scalar(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value, E> {
        // Checked before the copy: a string over the budget is never
        // copied.
        let cost = self.node().saturating_add(text_cost(v));
        if cost > self.budget.left {
            return self.budget.charge(cost).map(|()| Value::Null);
        }
        self.string(v.to_owned())
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Value, E> {
        self.string(v)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        self.scalar(Value::Null)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        self.scalar(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        self.budget.charge(self.node())?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.child())? {
            items.push(item);
        }
        items.shrink_to_fit();
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        self.budget.charge(self.node())?;
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.budget
                .charge(ENTRY_COST.saturating_add(text_cost(&key)))?;
            let value = map.next_value_seed(self.child())?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Says on standard error that the listing of `resource` stopped early,
/// why, and with how many items.
fn warn_stopped(resource: &str, why: &str, items: usize) {
    crate::terminal::say(
        "",
        &format!(
            "warning: {resource}: {why}: the listing stops there, with the {items} items read"
        ),
    );
}

/// The platform's error message as shown: scrubbed of every secret, then
/// cut to [`MAX_MESSAGE_CHARS`] (scrubbed first, so that a cut never
/// leaves part of a secret).
fn shown_message(message: &str) -> String {
    let scrubbed = ccfn_core::record::scrub_secrets(message);
    match scrubbed.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((at, _)) => format!(
            "{}… (cut at {MAX_MESSAGE_CHARS} characters)",
            &scrubbed[..at]
        ),
        None => scrubbed,
    }
}

/// Why a body was not read whole.
enum BodyError {
    /// Over the cap; the `Content-Length` when it said so.
    TooLarge(Option<u64>),
    /// The connection failed.
    Read(reqwest::Error),
}

/// The body of `response`, read in chunks, refused past `cap` bytes (and
/// before reading when its `Content-Length` is over): what it costs in
/// memory is at most `cap` and a chunk, whatever the answer's size.
async fn read_capped(response: &mut reqwest::Response, cap: usize) -> Result<Vec<u8>, BodyError> {
    let declared = response.content_length();
    if declared.is_some_and(|n| n > cap as u64) {
        return Err(BodyError::TooLarge(declared));
    }
    let hint = declared.map_or(0, |n| usize::try_from(n).unwrap_or(cap));
    let mut body = Vec::with_capacity(hint.min(MAX_ERROR_BYTES));
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Read)? {
        if body.len().saturating_add(chunk.len()) > cap {
            return Err(BodyError::TooLarge(declared));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The base64 forms HTTP basic authentication writes credentials in,
/// and that an answer may echo them in: standard and URL-safe, padded
/// with `=` or not.
const BASE64_FORMS: [&base64::engine::GeneralPurpose; 4] =
    [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD];

/// The delay a `Retry-After` header asks for, at `now`: seconds (any
/// number of digits; past `u64` it saturates) or an HTTP date (a date
/// past is no delay). Never panics; the caller caps it ([`MAX_WAIT`]).
fn retry_after(headers: &reqwest::header::HeaderMap, now: SystemTime) -> Option<Duration> {
    let value = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        let seconds = value
            .bytes()
            .try_fold(0u64, |n, digit| {
                n.checked_mul(10)?.checked_add(u64::from(digit - b'0'))
            })
            .unwrap_or(u64::MAX);
        return Some(Duration::from_secs(seconds));
    }
    // Any of the three forms HTTP allows: `Sun, 06 Nov 1994 08:49:37 GMT`
    // (the one to send), `Sunday, 06-Nov-94 08:49:37 GMT` and
    // `Sun Nov  6 08:49:37 1994`.
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// `https://host:port` of a URL, for messages (no path, no query).
fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// An error and its causes, on one line.
fn causes(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn credentials_are_a_key_pair_or_the_auth_token() {
        let key = Settings::from_vars(vars(&[
            ("ACCOUNT_SID", "AC1"),
            ("API_KEY_SID", "SK1"),
            ("API_KEY_SECRET", "canary-key-secret"),
            ("AUTH_TOKEN", "canary-token"),
        ]))
        .unwrap();
        assert_eq!(
            (key.username.as_str(), key.password.expose()),
            ("SK1", "canary-key-secret")
        );
        let token = Settings::from_vars(vars(&[
            ("ACCOUNT_SID", "AC1"),
            ("AUTH_TOKEN", "canary-token"),
        ]))
        .unwrap();
        assert_eq!(
            (token.username.as_str(), token.password.expose()),
            ("AC1", "canary-token")
        );
        assert_eq!(
            token.base(Product::Studio).as_str(),
            "https://studio.twilio.com/"
        );
        let debug = format!("{key:?}");
        assert!(!debug.contains("canary"), "{debug}");
    }

    #[test]
    fn bad_settings_say_which_variable() {
        for (pairs, says) in [
            (&[][..], "ACCOUNT_SID is not set"),
            (
                &[("ACCOUNT_SID", "XY1"), ("AUTH_TOKEN", "t")][..],
                "starts with AC",
            ),
            (&[("ACCOUNT_SID", "AC1")][..], "neither API_KEY_SID"),
            (
                &[("ACCOUNT_SID", "AC1"), ("API_KEY_SID", "SK1")][..],
                "API_KEY_SECRET is not",
            ),
            (
                &[("ACCOUNT_SID", "AC1"), ("API_KEY_SECRET", "s")][..],
                "API_KEY_SID is not",
            ),
            (
                &[
                    ("ACCOUNT_SID", "AC1"),
                    ("AUTH_TOKEN", "t"),
                    ("CCFN_PLATFORM_STUDIO_URL", "ftp://x"),
                ][..],
                "CCFN_PLATFORM_STUDIO_URL is \"ftp://x\"",
            ),
        ] {
            let err = Settings::from_vars(vars(pairs)).unwrap_err().to_string();
            assert!(err.contains(says), "{err}");
        }
    }

    #[test]
    fn both_page_shapes_are_read() {
        let base = Url::parse("http://127.0.0.1:9/2010-04-01/Accounts/AC1/Calls.json").unwrap();
        let old = json!({
            "calls": [{"sid": "CA1"}],
            "next_page_uri": "/2010-04-01/Accounts/AC1/Calls.json?PageSize=1&Page=1&PageToken=PA1",
        });
        let page = read_page(&old, "calls", &base).unwrap();
        assert_eq!(page.items, [json!({"sid": "CA1"})]);
        assert_eq!(
            page.next.unwrap().as_str(),
            "http://127.0.0.1:9/2010-04-01/Accounts/AC1/Calls.json?PageSize=1&Page=1&PageToken=PA1"
        );
        let last = json!({"calls": [], "next_page_uri": null});
        assert_eq!(read_page(&last, "calls", &base).unwrap().next, None);

        let new = json!({
            "tasks": [{"sid": "WT1"}, {"sid": "WT2"}],
            "meta": {"key": "tasks", "next_page_url": "http://127.0.0.1:9/v1/Workspaces/WS1/Tasks?PageSize=2&Page=1"},
        });
        let page = read_page(&new, "ignored", &base).unwrap();
        assert_eq!(page.items.len(), 2);
        assert!(page.next.is_some());
        let elsewhere = json!({"tasks": [], "meta": {"key": "tasks", "next_page_url": "https://evil.example/v1/x"}});
        let err = read_page(&elsewhere, "tasks", &base).unwrap_err();
        assert!(err.contains("not followed"), "{err}");
        assert!(read_page(&json!({"other": []}), "calls", &base).is_err());
    }

    fn base() -> Url {
        Url::parse("http://127.0.0.1:4000/2010-04-01/Accounts/AC1/Calls.json?PageSize=50").unwrap()
    }

    // Long because it is one table of links, each with the field it came
    // in and where it would lead: read whole, the cases show what is
    // refused and what is not side by side.
    #[test]
    fn next_links_stay_on_the_listing_s_origin() {
        let base = base();
        for (link, field, leads) in [
            (
                "https://evil.example/2010-04-01/x?Page=1&token=q1",
                LinkField::NextPageUri,
                Some("https://evil.example"),
            ),
            (
                "//evil.example/2010-04-01/x?token=q1",
                LinkField::NextPageUri,
                Some("http://evil.example"),
            ),
            (
                "\\\\evil.example/x",
                LinkField::NextPageUri,
                Some("http://evil.example"),
            ),
            (
                "/\\evil.example/x",
                LinkField::NextPageUri,
                Some("http://evil.example"),
            ),
            (
                "\\/evil.example/x",
                LinkField::NextPageUri,
                Some("http://evil.example"),
            ),
            (
                "/\t/evil.example/x",
                LinkField::NextPageUri,
                Some("http://evil.example"),
            ),
            (
                "/\n/evil.example/x",
                LinkField::NextPageUri,
                Some("http://evil.example"),
            ),
            (
                " //evil.example/x",
                LinkField::NextPageUri,
                Some("http://evil.example"),
            ),
            (
                "https:evil.example/x",
                LinkField::NextPageUri,
                Some("https://evil.example"),
            ),
            ("http:evil.example/x", LinkField::NextPageUri, None),
            ("http:/evil.example/x", LinkField::NextPageUri, None),
            ("evil.example/x", LinkField::NextPageUri, None),
            (
                "javascript:alert(1)",
                LinkField::NextPageUri,
                Some("a javascript: URL"),
            ),
            (
                "data:text/plain,x",
                LinkField::NextPageUrl,
                Some("a data: URL"),
            ),
            (
                "http://127.0.0.1:4000@evil.example/x",
                LinkField::NextPageUrl,
                Some("http://evil.example"),
            ),
            (
                "http://evil.example%2F@127.0.0.1:4000/x",
                LinkField::NextPageUrl,
                None,
            ),
            (
                "http://user:pw@127.0.0.1:4000/x",
                LinkField::NextPageUrl,
                None,
            ),
            (
                "https://127.0.0.1:4000/x",
                LinkField::NextPageUrl,
                Some("https://127.0.0.1:4000"),
            ),
            (
                "http://127.0.0.1:4001/x",
                LinkField::NextPageUrl,
                Some("http://127.0.0.1:4001"),
            ),
            (
                "http://localhost:4000/x",
                LinkField::NextPageUrl,
                Some("http://localhost:4000"),
            ),
            (
                "//evil.example/x",
                LinkField::NextPageUrl,
                Some("http://evil.example"),
            ),
            ("/v1/x", LinkField::NextPageUrl, None),
            (
                "http://evil.example\\@127.0.0.1:4000/x",
                LinkField::NextPageUrl,
                Some("http://evil.example"),
            ),
        ] {
            let err = next_link(link, field, &base).unwrap_err();
            assert!(err.starts_with(field.name()), "{link}: {err}");
            assert!(
                err.contains("the credentials were not sent"),
                "{link}: {err}"
            );
            assert!(
                !err.contains("token=q1") && !err.contains("pw"),
                "{link}: {err}"
            );
            if let Some(origin) = leads {
                assert!(err.contains(origin), "{link}: {err}");
            }
        }
        // Paths on the same host, encoded tricks included, are followed
        // there.
        for (link, field, to) in [
            (
                "/2010-04-01/Accounts/AC1/Calls.json?Page=1",
                LinkField::NextPageUri,
                "http://127.0.0.1:4000/2010-04-01/Accounts/AC1/Calls.json?Page=1",
            ),
            (
                "/%2F%2Fevil.example/x",
                LinkField::NextPageUri,
                "http://127.0.0.1:4000/%2F%2Fevil.example/x",
            ),
            (
                "/%5C%5Cevil.example/x",
                LinkField::NextPageUri,
                "http://127.0.0.1:4000/%5C%5Cevil.example/x",
            ),
            (
                "/x?next=//evil.example",
                LinkField::NextPageUri,
                "http://127.0.0.1:4000/x?next=//evil.example",
            ),
            (
                "http://127.0.0.1:4000/v1/x?Page=1",
                LinkField::NextPageUrl,
                "http://127.0.0.1:4000/v1/x?Page=1",
            ),
            (
                "HTTP://127.0.0.1:4000/v1/x",
                LinkField::NextPageUrl,
                "http://127.0.0.1:4000/v1/x",
            ),
        ] {
            assert_eq!(
                next_link(link, field, &base).unwrap().as_str(),
                to,
                "{link}"
            );
        }
        // The default port, written or not, is the same origin.
        let https = Url::parse("https://api.twilio.com/2010-04-01/x").unwrap();
        assert!(next_link(
            "https://api.twilio.com:443/v1/x",
            LinkField::NextPageUrl,
            &https
        )
        .is_ok());
        assert!(next_link("http://api.twilio.com/v1/x", LinkField::NextPageUrl, &https).is_err());
    }

    #[test]
    fn a_2010_page_linking_elsewhere_is_refused() {
        let page = json!({"calls": [], "next_page_uri": "https://evil.example/2010-04-01/Accounts/AC1/Calls.json?PageToken=PA1"});
        let err = read_page(&page, "calls", &base()).unwrap_err();
        assert!(err.contains("https://evil.example"), "{err}");
        assert!(!err.contains("PageToken"), "{err}");
    }

    fn headers(value: &str) -> reqwest::header::HeaderMap {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            reqwest::header::RETRY_AFTER,
            reqwest::header::HeaderValue::from_str(value).unwrap(),
        );
        headers
    }

    #[test]
    fn retry_after_saturates_and_reads_http_dates() {
        let now = std::time::UNIX_EPOCH + Duration::from_secs(784_111_777);
        let delay = |value: &str| retry_after(&headers(value), now);
        assert_eq!(delay("0"), Some(Duration::ZERO));
        assert_eq!(delay(" 7 "), Some(Duration::from_secs(7)));
        assert_eq!(
            delay("18446744073709551615"),
            Some(Duration::from_secs(u64::MAX))
        );
        assert_eq!(
            delay("18446744073709551616"),
            Some(Duration::from_secs(u64::MAX))
        );
        assert_eq!(delay(&"9".repeat(400)), Some(Duration::from_secs(u64::MAX)));
        assert_eq!(
            delay("Sun, 06 Nov 1994 08:50:07 GMT"),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            delay("Sunday, 06-Nov-94 08:49:47 GMT"),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            delay("Sun Nov  6 08:49:57 1994"),
            Some(Duration::from_secs(20))
        );
        assert_eq!(delay("Sat, 05 Nov 1994 08:49:37 GMT"), Some(Duration::ZERO));
        assert_eq!(
            delay("Fri, 31 Dec 9999 23:59:59 GMT"),
            Some(Duration::from_secs(253_402_300_799 - 784_111_777))
        );
        for bad in [
            "-1",
            "1.5",
            "soon",
            "",
            "Sun, 06 Nov 1994 25:00:00 GMT",
            "Sun, 99 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 CET",
        ] {
            assert_eq!(delay(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_wire_form_of_the_credentials_is_a_secret() {
        let settings = Settings::from_vars(vars(&[
            ("ACCOUNT_SID", "AC1"),
            ("API_KEY_SID", "SKunit"),
            ("API_KEY_SECRET", "canary-unit-secret-77?>"),
        ]))
        .unwrap();
        let _platform = Platform::new(settings).unwrap();
        let pair = b"SKunit:canary-unit-secret-77?>";
        for form in [
            STANDARD.encode(pair),
            URL_SAFE_NO_PAD.encode(pair),
            STANDARD.encode(b"canary-unit-secret-77?>"),
        ] {
            let text = format!("{{\"echo\":\"Basic {form}\"}}");
            let scrubbed = ccfn_core::record::scrub_secrets(&text);
            assert!(!scrubbed.contains(&form), "{scrubbed}");
        }
        // The platform's message: scrubbed, then cut, so that a cut never
        // leaves half a secret.
        let long = format!(
            "{}canary-unit-secret-77?>",
            "x".repeat(MAX_MESSAGE_CHARS - 5)
        );
        let shown = shown_message(&long);
        assert!(!shown.contains("canary-unit"), "{shown}");
        assert!(shown.ends_with("(cut at 300 characters)"), "{shown}");
        assert_eq!(shown_message("Authenticate"), "Authenticate");
    }

    #[test]
    fn a_base_url_with_credentials_is_refused_without_showing_them() {
        for url in [
            "https://SK1:canary-url-pw@api.twilio.com",
            "ftp://u:canary-url-pw@x",
            "not a url canary-url-pw",
        ] {
            let err = Settings::from_vars(vars(&[
                ("ACCOUNT_SID", "AC1"),
                ("AUTH_TOKEN", "t"),
                ("CCFN_PLATFORM_API_URL", url),
            ]))
            .unwrap_err()
            .to_string();
            assert!(err.starts_with("CCFN_PLATFORM_API_URL"), "{err}");
            assert!(!err.contains("canary-url-pw"), "{err}");
        }
    }

    #[test]
    fn requests_go_only_to_the_products_base_urls() {
        let settings = Settings::from_vars(vars(&[
            ("ACCOUNT_SID", "AC1"),
            ("AUTH_TOKEN", "canary-token"),
            ("CCFN_PLATFORM_API_URL", "http://127.0.0.1:4000"),
        ]))
        .unwrap();
        assert!(settings.allows(&Url::parse("http://127.0.0.1:4000/x").unwrap()));
        assert!(settings.allows(&Url::parse("https://studio.twilio.com/v2/Flows").unwrap()));
        assert!(!settings.allows(&Url::parse("http://127.0.0.1:4001/x").unwrap()));
        assert!(!settings.allows(&Url::parse("http://u:p@127.0.0.1:4000/x").unwrap()));
        assert!(!settings.allows(&Url::parse("https://evil.example/x").unwrap()));
    }

    #[test]
    fn urls_in_answers_lose_their_userinfo() {
        let answer = json!({
            "voice_url": "https://hook:canary-hook-pw@cc.example.com/voice?x=a@b",
            "nested": [{"text": "see http://u@h.example:8080/x and ftp://a:b@c/ then"}],
            "plain": "https://cc.example.com/voice?to=a@b.example",
            "mail": "ops@example.com",
        });
        let text = serde_json::to_vec(&answer).unwrap();
        let (answer, _) = parse_costed(&text, MAX_ANSWER_COST).unwrap();
        assert_eq!(
            answer["voice_url"],
            "https://[REDACTED]@cc.example.com/voice?x=a@b"
        );
        assert_eq!(
            answer["nested"][0]["text"],
            "see http://[REDACTED]@h.example:8080/x and ftp://[REDACTED]@c/ then"
        );
        assert_eq!(
            answer["plain"],
            "https://cc.example.com/voice?to=a@b.example"
        );
        assert_eq!(answer["mail"], "ops@example.com");
    }
}

#[cfg(test)]
mod costed_tests {
    use super::*;
    use serde_json::json;

    const NODE: usize = VALUE_COST;

    /// The cost `parse_costed` counts for `text`, with room to spare.
    fn cost_of(text: &str) -> usize {
        parse_costed(text.as_bytes(), usize::MAX).unwrap().1
    }

    #[test]
    fn the_cost_is_what_the_values_hold_and_show() {
        assert_eq!(cost_of("0"), NODE);
        assert_eq!(cost_of("null"), NODE);
        assert_eq!(cost_of("\"ab\""), NODE + 2);
        // A quote and a control character are written escaped.
        assert_eq!(cost_of(r#""a\"\u0001""#), NODE + 3 + 2 * 5);
        // Each level of depth is four bytes of indentation.
        assert_eq!(cost_of("[0,true]"), NODE + 2 * (NODE + 4));
        assert_eq!(cost_of("[[0]]"), NODE + (NODE + 4) + (NODE + 8));
        assert_eq!(cost_of(r#"{"key":0}"#), NODE + ENTRY_COST + 3 + NODE + 4);
        // What is kept is counted: the userinfo is gone before.
        let (value, cost) = parse_costed(br#""https://u:pw@h.example/x""#, usize::MAX).unwrap();
        assert_eq!(value, "https://[REDACTED]@h.example/x");
        assert_eq!(cost, NODE + "https://[REDACTED]@h.example/x".len());
    }

    #[test]
    fn a_value_at_its_budget_passes_and_one_byte_less_stops() {
        for text in [
            "0",
            "\"text\"",
            r#"{"calls":[{"sid":"CA1","to":"+1555"},{}],"next_page_uri":null}"#,
            "[[[[]]],[1,2.5,-3],{\"a\":{\"b\":[null]}}]",
        ] {
            let cost = cost_of(text);
            let (value, counted) = parse_costed(text.as_bytes(), cost).unwrap();
            assert_eq!(counted, cost);
            assert_eq!(value, serde_json::from_str::<Value>(text).unwrap());
            assert_eq!(
                parse_costed(text.as_bytes(), cost - 1),
                Err(ParseError::OverBudget),
                "{text}"
            );
        }
    }

    #[test]
    fn text_that_is_not_json_is_invalid_not_over_budget() {
        for text in ["", "{", "[1,]", "0 0", "{\"a\":1}x", "nul"] {
            assert!(
                matches!(
                    parse_costed(text.as_bytes(), MAX_ANSWER_COST),
                    Err(ParseError::Invalid(_))
                ),
                "{text}"
            );
        }
    }

    #[test]
    fn serde_json_s_recursion_limit_stays() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let (_, cost) = parse_costed(nested(127).as_bytes(), MAX_ANSWER_COST).unwrap();
        // 127 arrays, the n-th (from 0) at depth n.
        assert_eq!(cost, 127 * NODE + 2 * 126 * 127);
        for depth in [128, 10_000, 1_000_000] {
            match parse_costed(nested(depth).as_bytes(), MAX_ANSWER_COST) {
                Err(ParseError::Invalid(message)) => {
                    assert!(message.contains("recursion limit"), "{depth}: {message}");
                }
                other => panic!("{depth}: {other:?}"),
            }
        }
        // Objects too, and deep nesting within the budget's reach stops
        // at the budget first.
        let objects = format!("{}0{}", "{\"a\":".repeat(200), "}".repeat(200));
        assert!(matches!(
            parse_costed(objects.as_bytes(), MAX_ANSWER_COST),
            Err(ParseError::Invalid(_))
        ));
        assert_eq!(
            parse_costed(nested(100).as_bytes(), 1000),
            Err(ParseError::OverBudget)
        );
    }

    /// `unit` repeated, comma-separated, in a page's `calls` list, the page
    /// just under `MAX_PAGE_BYTES`.
    fn page_of(unit: &str) -> String {
        let room = MAX_PAGE_BYTES - 1024;
        let count = room / (unit.len() + 1);
        let mut page = String::with_capacity(room + 64);
        page.push_str("{\"calls\":[");
        for n in 0..count {
            if n > 0 {
                page.push(',');
            }
            page.push_str(unit);
        }
        page.push_str("],\"next_page_uri\":null}");
        page
    }

    #[test]
    fn the_most_expanding_pages_under_the_byte_cap_stop_at_the_budget() {
        for unit in ["0", "{}", "[]", "[[[0]]]", "\"\"", "1e9", "true"] {
            let page = page_of(unit);
            assert!(page.len() < MAX_PAGE_BYTES);
            assert_eq!(
                parse_costed(page.as_bytes(), MAX_ANSWER_COST),
                Err(ParseError::OverBudget),
                "{unit}"
            );
        }
        // A wide array within the budget is whole, its cost as counted.
        let wide = format!("[{}0]", "0,".repeat(99_999));
        let (value, cost) = parse_costed(wide.as_bytes(), MAX_ANSWER_COST).unwrap();
        assert_eq!(value.as_array().unwrap().len(), 100_000);
        assert_eq!(cost, NODE + 100_000 * (NODE + 4));
    }

    #[test]
    fn big_strings_count_their_bytes_and_their_escapes() {
        let string = |text: &str| serde_json::to_vec(&Value::from(text)).unwrap();
        let mib = "A".repeat(1024 * 1024);
        let (value, cost) = parse_costed(&string(&mib), MAX_ANSWER_COST).unwrap();
        assert_eq!(value.as_str().unwrap().len(), mib.len());
        assert_eq!(cost, NODE + mib.len());
        // Over the budget: refused, whether the text has escapes or not.
        let big = "A".repeat(MAX_ANSWER_COST);
        assert_eq!(
            parse_costed(&string(&big), MAX_ANSWER_COST),
            Err(ParseError::OverBudget)
        );
        // 3 MiB of control characters is 18 MiB of text shown.
        let controls = "\u{1}".repeat(3 * 1024 * 1024);
        assert_eq!(
            parse_costed(&string(&controls), MAX_ANSWER_COST),
            Err(ParseError::OverBudget)
        );
        // A key counts as a string does.
        let key = format!("{{\"{mib}\":0}}");
        assert_eq!(cost_of(&key), NODE + ENTRY_COST + mib.len() + NODE + 4);
    }

    /// A call with every field the platform's definition of a call lists
    /// (ListCall's items in the published definitions), as it writes them.
    fn call(n: usize) -> Value {
        let sid = format!("CA{n:032x}");
        let uri = format!("/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Calls/{sid}");
        json!({
            "sid": sid, "date_created": "Fri, 20 Nov 2026 10:00:00 +0000",
            "date_updated": "Fri, 20 Nov 2026 10:01:00 +0000",
            "parent_call_sid": null, "account_sid": "AC0123456789abcdef0123456789abcdef",
            "to": "+15559870000", "to_formatted": "(555) 987-0000",
            "from": "+15551230000", "from_formatted": "(555) 123-0000",
            "phone_number_sid": "PN0123456789abcdef0123456789abcdef", "status": "completed",
            "start_time": "Fri, 20 Nov 2026 10:00:00 +0000",
            "end_time": "Fri, 20 Nov 2026 10:01:00 +0000", "duration": "60",
            "price": "-0.01700", "price_unit": "USD", "direction": "inbound",
            "answered_by": null, "api_version": "2010-04-01", "forwarded_from": "+15559870000",
            "group_sid": null, "caller_name": "CALLER NAME", "queue_time": "0",
            "trunk_sid": null, "uri": format!("{uri}.json"),
            "subresource_uris": {
                "feedback": format!("{uri}/Feedback.json"),
                "user_defined_messages": format!("{uri}/UserDefinedMessages.json"),
                "notifications": format!("{uri}/Notifications.json"),
                "recordings": format!("{uri}/Recordings.json"),
                "streams": format!("{uri}/Streams.json"),
                "payments": format!("{uri}/Payments.json"),
                "user_defined_message_subscriptions": format!("{uri}/UserDefinedMessageSubscriptions.json"),
                "siprec": format!("{uri}/Siprec.json"),
                "events": format!("{uri}/Events.json"),
                "feedback_summaries": "/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Calls/FeedbackSummary.json",
            },
        })
    }

    #[test]
    fn real_answers_pass_easily() {
        // The call has the definition's fields, no more, no fewer.
        let definitions: Value = serde_json::from_str(include_str!(
            "../../ccfn-testkit/platform-api/oai-subset.json"
        ))
        .unwrap();
        let list_call = definitions["products"]["api"]["operations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|op| op["operationId"] == "ListCall")
            .unwrap();
        let mut fields: Vec<&String> = list_call["response"]["properties"]["calls"]["items"]
            ["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        fields.sort();
        let one = call(0);
        let mut ours: Vec<&String> = one.as_object().unwrap().keys().collect();
        ours.sort();
        assert_eq!(ours, fields);

        // A page of 1 000 calls: under half of either budget.
        let calls: Vec<Value> = (0..1000).map(call).collect();
        let page = serde_json::to_vec(&json!({
            "calls": calls, "next_page_uri": "/2010-04-01/Accounts/AC1/Calls.json?Page=1",
            "page": 0, "page_size": 1000, "start": 0, "end": 999,
        }))
        .unwrap();
        let (value, cost) = parse_costed(&page, MAX_ANSWER_COST).unwrap();
        assert_eq!(value["calls"].as_array().unwrap().len(), 1000);
        assert!(cost < MAX_ANSWER_COST / 2, "{cost}");
        assert!(cost < MAX_LIST_COST / 2, "{cost}");

        // A flow whose definition is over 1 MB of JSON.
        let states: Vec<Value> = (0..4500)
            .map(|n| {
                json!({
                    "name": format!("say_{n}"), "type": "say-play",
                    "transitions": [{"event": "audioComplete", "next": format!("say_{}", n + 1)}],
                    "properties": {"offset": {"x": n, "y": n * 200}, "loop": 1,
                                   "say": "Thank you for calling. Please hold while we connect you to the next agent."},
                })
            })
            .collect();
        let flow = serde_json::to_vec(&json!({
            "sid": "FW0123456789abcdef0123456789abcdef", "friendly_name": "wait experience",
            "status": "published", "revision": 12,
            "definition": {"description": "A flow", "states": states, "initial_state": "say_0",
                           "flags": {"allow_concurrent_calls": true}},
        }))
        .unwrap();
        assert!(flow.len() > 1_000_000, "{}", flow.len());
        let (value, cost) = parse_costed(&flow, MAX_ANSWER_COST).unwrap();
        assert_eq!(
            value["definition"]["states"].as_array().unwrap().len(),
            4500
        );
        assert!(
            cost < MAX_ANSWER_COST / 2,
            "{cost} for {} bytes",
            flow.len()
        );
    }
}
