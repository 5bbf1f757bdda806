//! One page of a listing, and the link to the next, followed only to the
//! listing's own origin.

use super::*;

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
    pub(super) fn name(self) -> &'static str {
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
pub(super) fn take_page(mut body: Value, key: &str, base: &Url) -> Result<Page, String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
