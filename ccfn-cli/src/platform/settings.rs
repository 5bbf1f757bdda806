//! The settings of the platform's commands, from the environment: the
//! account, its credentials, and one base URL per product.

use super::*;

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
pub(super) fn no_userinfo(url: &Url) -> bool {
    url.username().is_empty() && url.password().is_none()
}

/// Whether `a` and `b` have the same scheme, host and port (a default
/// port written or not).
pub(super) fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host() == b.host()
        && a.port_or_known_default() == b.port_or_known_default()
}
