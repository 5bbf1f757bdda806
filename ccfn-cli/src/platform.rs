//! A read-only client for the platform's REST API: what steps 2 to 6 of
//! the diagnostic procedure ask the platform (calls, flows, tasks, phone
//! numbers, the account).
//!
//! - **Credentials** from the environment: an API key pair
//!   (`API_KEY_SID`, `API_KEY_SECRET`) with `ACCOUNT_SID`, or the account's
//!   `ACCOUNT_SID` and `AUTH_TOKEN`. The secret is a [`Secret`]: it is
//!   never printed, and every error is built without it.
//! - **One base URL per product** (`CCFN_PLATFORM_API_URL` for the 2010
//!   API, `CCFN_PLATFORM_TASKROUTER_URL`, ...), so that tests point the
//!   client at a fake on loopback.
//! - **Both pagination shapes**: the 2010 API's `next_page_uri` (a path
//!   on the same host) and the newer APIs' `meta.next_page_url` (an
//!   absolute URL, followed only to the same origin: credentials never go
//!   anywhere else). `PageSize` is the limit, at most 1 000.
//! - **Errors that name the resource**: 401, 403, 404, 429 and 5xx each
//!   say what was asked and what to do; a 429 is retried after the delay
//!   the platform gives (`Retry-After`), at most [`RETRIES`] times and
//!   never for longer than [`MAX_WAIT`] in all.

use std::fmt;
use std::time::Duration;

use ccfn_core::Secret;
use reqwest::{StatusCode, Url};
use serde_json::Value;

/// How many times a request the platform rate-limited (429) is retried.
pub(crate) const RETRIES: u32 = 3;

/// The longest a request waits in all for the platform's rate limit.
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(30);

/// The most items the platform returns in one page.
pub(crate) const MAX_PAGE_SIZE: usize = 1000;

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
    pub(crate) fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Settings, String> {
        let get = |name: &str| {
            var(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let account_sid = get("ACCOUNT_SID").ok_or(
            "ACCOUNT_SID is not set: the platform's commands need the account SID (AC...), \
             with API_KEY_SID and API_KEY_SECRET, or with AUTH_TOKEN",
        )?;
        if !account_sid.starts_with("AC") {
            return Err(format!(
                "ACCOUNT_SID is {account_sid:?}: an account SID starts with AC"
            ));
        }
        let (username, password) =
            match (get("API_KEY_SID"), get("API_KEY_SECRET"), get("AUTH_TOKEN")) {
                (Some(sid), Some(secret), _) => (sid, secret),
                (Some(_), None, _) => {
                    return Err("API_KEY_SID is set but API_KEY_SECRET is not".to_owned())
                }
                (None, Some(_), _) => {
                    return Err("API_KEY_SECRET is set but API_KEY_SID is not".to_owned())
                }
                (None, None, Some(token)) => (account_sid.clone(), token),
                (None, None, None) => {
                    return Err(
                        "neither API_KEY_SID and API_KEY_SECRET nor AUTH_TOKEN is set: \
                            the platform's commands need one of them"
                            .to_owned(),
                    )
                }
            };
        let mut bases = Vec::new();
        for product in Product::ALL {
            let url = get(product.variable()).unwrap_or_else(|| product.default_url().to_owned());
            let parsed = Url::parse(&url)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
                .ok_or_else(|| format!("{} is {url:?}: not an http(s) URL", product.variable()))?;
            bases.push(parsed);
        }
        let bases = bases.try_into().expect("one base per product");
        Ok(Settings {
            account_sid,
            username,
            password: Secret::new(password),
            bases,
        })
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

/// The commands report errors as text.
impl From<PlatformError> for String {
    fn from(err: PlatformError) -> String {
        err.to_string()
    }
}

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

/// Reads a page of either shape: the items under `key` (or under
/// `meta.key` when the page says), and the next page from `next_page_uri`
/// (a path on `base`) or `meta.next_page_url` (absolute, same origin as
/// `base`).
pub(crate) fn read_page(body: &Value, key: &str, base: &Url) -> Result<Page, String> {
    let key = body["meta"]["key"].as_str().unwrap_or(key);
    let items = body
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("the page has no {key:?} list"))?
        .clone();
    let next = match (body.get("next_page_uri"), body["meta"].get("next_page_url")) {
        (Some(Value::String(path)), _) if !path.is_empty() => Some(
            base.join(path)
                .map_err(|err| format!("next_page_uri {path:?} is not a path: {err}"))?,
        ),
        (_, Some(Value::String(url))) if !url.is_empty() => {
            let url = Url::parse(url)
                .map_err(|err| format!("next_page_url {url:?} is not a URL: {err}"))?;
            if url.origin() != base.origin() {
                return Err(format!(
                    "next_page_url {} is not on {}: not followed, so that the credentials go nowhere else",
                    url.as_str(),
                    base.origin().ascii_serialization()
                ));
            }
            Some(url)
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
}

impl Platform {
    /// A client with `settings`.
    pub(crate) fn new(settings: Settings) -> Result<Platform, String> {
        ccfn_core::http::install_crypto_provider();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("ccfn/", clap::crate_version!()))
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|err| err.to_string())?;
        Ok(Platform { http, settings })
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

    /// Fetches one resource.
    pub(crate) async fn fetch(&self, resource: &str, url: Url) -> Result<Value, PlatformError> {
        self.get(resource, url).await
    }

    /// Lists up to `limit` items of `key`, starting at `url` (with its
    /// filters in the query), following the pages.
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
        let mut next = Some(url);
        while let Some(url) = next.take() {
            if items.len() >= limit {
                break;
            }
            let body = self.get(resource, url).await?;
            let page = read_page(&body, key, &base).map_err(|message| PlatformError {
                resource: resource.to_owned(),
                status: None,
                code: None,
                message: format!("the platform's answer is not a page: {message}"),
            })?;
            items.extend(page.items);
            next = page.next;
        }
        items.truncate(limit);
        Ok(items)
    }

    /// One GET, retried on 429 as the platform asks.
    async fn get(&self, resource: &str, url: Url) -> Result<Value, PlatformError> {
        let error = |status: Option<u16>, code: Option<u64>, message: String| PlatformError {
            resource: resource.to_owned(),
            status,
            code,
            message,
        };
        let mut waited = Duration::ZERO;
        let mut attempt = 0;
        loop {
            let response = self
                .http
                .get(url.clone())
                .basic_auth(
                    &self.settings.username,
                    Some(self.settings.password.expose()),
                )
                .header("Accept", "application/json")
                .send()
                .await
                .map_err(|err| {
                    error(
                        None,
                        None,
                        format!("no answer from {}: {}", origin(&url), causes(&err)),
                    )
                })?;
            let status = response.status();
            if status == StatusCode::TOO_MANY_REQUESTS && attempt < RETRIES {
                let delay = retry_after(response.headers()).unwrap_or(Duration::from_secs(1));
                if waited + delay <= MAX_WAIT {
                    attempt += 1;
                    waited += delay;
                    tokio::time::sleep(delay).await;
                    continue;
                }
            }
            let body = response
                .bytes()
                .await
                .map_err(|err| error(Some(status.as_u16()), None, causes(&err)))?;
            let json: Option<Value> = serde_json::from_slice(&body).ok();
            if status.is_success() {
                return json.ok_or_else(|| {
                    error(
                        Some(status.as_u16()),
                        None,
                        "the platform's answer is not JSON".to_owned(),
                    )
                });
            }
            let code = json.as_ref().and_then(|j| j["code"].as_u64());
            let said = json
                .as_ref()
                .and_then(|j| j["message"].as_str())
                .map(|m| format!(" ({m})"))
                .unwrap_or_default();
            return Err(error(
                Some(status.as_u16()),
                code,
                format!("{status}{said}: {}", advice(status)),
            ));
        }
    }
}

/// The delay a `Retry-After` header asks for, in seconds.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
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
            let err = Settings::from_vars(vars(pairs)).unwrap_err();
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
}
