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
//!   absolute URL), both through [`page::next_link`]: followed only to the
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
//!   (see [`costed::VALUE_COST`]) and stops past a budget: one answer at
//!   most [`MAX_ANSWER_COST`], a listing's pages at most [`MAX_LIST_COST`]
//!   in all. serde_json's recursion limit (at most 127 nested arrays and
//!   objects) stays in force.
//! - **Errors that name the resource**: 401, 403, 404, 429 and 5xx each
//!   say what was asked and what to do, with the platform's message (at
//!   most [`MAX_MESSAGE_CHARS`]); a 429 is retried after the delay the
//!   platform gives (`Retry-After`, seconds or an HTTP date), at most
//!   [`RETRIES`] times and never for longer than [`MAX_WAIT`] in all.
//!
//! The settings are read in [`settings`], a page and its next link in
//! [`page`], an answer parsed within its budget in [`costed`]; this
//! module is the client.

use std::collections::HashSet;
use std::fmt;
use std::time::{Duration, SystemTime};

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine as _;
use ccfn_core::Secret;
use reqwest::{StatusCode, Url};
use serde_json::Value;

use crate::error::Problem;

mod costed;
mod page;
mod settings;

pub(crate) use costed::{parse_costed, ParseError};
use page::take_page;
use settings::{no_userinfo, same_origin};
pub(crate) use settings::{Product, Settings};

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
                            ccfn_core::error_chain(&err.without_url())
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
                        ccfn_core::error_chain(&err.without_url()),
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
