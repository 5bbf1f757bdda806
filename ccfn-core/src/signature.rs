//! Validation of the voice platform's request signature (`X-Twilio-Signature`).
//!
//! The platform signs every webhook request it sends with the account's auth
//! token:
//!
//! ```text
//! signature = base64( HMAC-SHA1( auth_token, url + name1 + value1 + name2 + value2 + ... ) )
//! ```
//!
//! where `url` is the full public URL the platform called (scheme, host,
//! path and query string) and the name/value pairs are the POST form
//! parameters sorted by name (then by value for a repeated name), with
//! identical name/value pairs counted once.
//!
//! Requests with a JSON body are signed differently: the URL carries a
//! `bodySHA256` query parameter holding the lowercase hex SHA-256 of the raw
//! body, the signature covers the URL alone, and the body must hash to that
//! value.
//!
//! Like the platform's own helper libraries, [`validate`] accepts the URL
//! with and without its port: if the URL as given does not match, it is tried
//! with the default port added (when no port is present) or with its port
//! removed (when one is). It also tries the URL percent-encoded the way a
//! WHATWG URL serializer (the Node helper library's) writes it, so that e.g.
//! a `'` in the query matches a signature computed over `%27`.
//!
//! Signatures are compared in constant time (through [`hmac::Mac::verify_slice`]),
//! and no error message or `Debug` output ever contains the auth token or the
//! expected signature.

use std::fmt;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use sha1::Sha1;
use sha2::{Digest, Sha256};

type HmacSha1 = Hmac<Sha1>;

/// Name of the HTTP header carrying the request signature.
pub const SIGNATURE_HEADER: &str = "X-Twilio-Signature";

/// Name of the query parameter that carries the hex SHA-256 of a JSON body.
pub const BODY_SHA256_PARAM: &str = "bodySHA256";

/// The body of a signed request, as it takes part in the signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignedBody<'a> {
    /// An `application/x-www-form-urlencoded` body, already decoded into
    /// name/value pairs (in any order; repeated names allowed). Use an empty
    /// slice for a request without parameters (e.g. a GET).
    Form(&'a [(String, String)]),
    /// A JSON (or any other non-form) body, as the raw bytes received. The
    /// URL must then carry a `bodySHA256` query parameter.
    Json(&'a [u8]),
}

/// Why a request signature was rejected.
///
/// Neither the `Display` nor the `Debug` output ever contains the auth token
/// or the expected signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureError {
    /// The request carries no (or an empty) `X-Twilio-Signature` header.
    Missing,
    /// The signature is well formed but does not match the request.
    Mismatch,
    /// The signature matches the URL, but the JSON body does not hash to the
    /// URL's `bodySHA256` value.
    BodyHashMismatch,
    /// A JSON body was given but the URL has no `bodySHA256` query parameter.
    MissingBodyHash,
    /// The signature is not valid base64.
    Malformed,
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Missing => "missing X-Twilio-Signature header",
            Self::Mismatch => {
                "X-Twilio-Signature does not match the request: check the auth token and the public URL the platform calls"
            }
            Self::BodyHashMismatch => "request body does not match its bodySHA256",
            Self::MissingBodyHash => {
                "JSON request body but the URL has no bodySHA256 query parameter"
            }
            Self::Malformed => "X-Twilio-Signature is not valid base64",
        })
    }
}

impl std::error::Error for SignatureError {}

/// Builds the string the platform signs: `url` followed by every parameter,
/// sorted by name then by value (byte order), identical name/value pairs
/// counted once, each name immediately followed by its value.
///
/// For a JSON body pass no parameters: the signature covers the URL alone.
pub fn signed_string<K: AsRef<str>, V: AsRef<str>>(url: &str, params: &[(K, V)]) -> String {
    let mut pairs: Vec<(&str, &str)> = params
        .iter()
        .map(|(k, v)| (k.as_ref(), v.as_ref()))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let len = url.len() + pairs.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>();
    let mut out = String::with_capacity(len);
    out.push_str(url);
    for (k, v) in pairs {
        out.push_str(k);
        out.push_str(v);
    }
    out
}

/// Computes the signature the platform sends for a request to `url` with the
/// given form parameters: base64(HMAC-SHA1(auth token, [`signed_string`])).
///
/// The URL is used exactly as given (no port or percent-encoding variants).
pub fn compute_signature<K: AsRef<str>, V: AsRef<str>>(
    auth_token: &str,
    url: &str,
    params: &[(K, V)],
) -> String {
    let mac = mac_over(auth_token, &signed_string(url, params));
    BASE64.encode(mac.finalize().into_bytes())
}

/// Returns the lowercase hex SHA-256 of `body`, the value of the
/// `bodySHA256` query parameter for a JSON request.
pub fn body_sha256_hex(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    let mut out = String::with_capacity(digest.len() * 2);
    for b in digest.iter() {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0x0f)]));
    }
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Validates the `X-Twilio-Signature` header value `signature` of a request
/// the platform made to the public `url` with the given `body`.
///
/// `url` must be the full URL the platform called (as configured on the
/// platform, including the query string), not the URL as seen behind a
/// proxy. The URL is accepted with and without its port and in its
/// WHATWG-percent-encoded form (see the [module documentation](self)).
///
/// # Errors
///
/// [`SignatureError::Missing`] for an empty header, [`SignatureError::Malformed`]
/// when it is not base64, [`SignatureError::MissingBodyHash`] for a JSON body
/// without `bodySHA256` in the URL, [`SignatureError::Mismatch`] when the
/// signature does not match, and [`SignatureError::BodyHashMismatch`] when
/// the signature matches but the JSON body does not.
pub fn validate(
    auth_token: &str,
    signature: &str,
    url: &str,
    body: &SignedBody<'_>,
) -> Result<(), SignatureError> {
    let signature = signature.trim_matches(|c: char| c.is_ascii_whitespace());
    if signature.is_empty() {
        return Err(SignatureError::Missing);
    }
    let provided = BASE64
        .decode(signature)
        .map_err(|_| SignatureError::Malformed)?;

    match *body {
        SignedBody::Form(params) => {
            if signature_matches(auth_token, &provided, url, params) {
                Ok(())
            } else {
                Err(SignatureError::Mismatch)
            }
        }
        SignedBody::Json(bytes) => {
            let expected_hex =
                query_param(url, BODY_SHA256_PARAM).ok_or(SignatureError::MissingBodyHash)?;
            if !signature_matches(auth_token, &provided, url, &[]) {
                Err(SignatureError::Mismatch)
            } else if !body_hash_matches(bytes, expected_hex) {
                Err(SignatureError::BodyHashMismatch)
            } else {
                Ok(())
            }
        }
    }
}

/// Tries every accepted form of `url` and reports whether any matches.
///
/// Every candidate is checked (no early exit) and each check is a constant
/// time comparison of the MAC, so the timing reveals nothing about the
/// expected signature.
fn signature_matches(
    auth_token: &str,
    provided: &[u8],
    url: &str,
    params: &[(String, String)],
) -> bool {
    let mut candidates: Vec<String> = Vec::with_capacity(4);
    candidates.push(url.to_owned());
    candidates.extend(alternate_port_url(url));
    if let Some(normalized) = whatwg_percent_encode(url) {
        candidates.extend(alternate_port_url(&normalized));
        candidates.push(normalized);
    }
    let mut matched = false;
    for candidate in &candidates {
        let ok = mac_over(auth_token, &signed_string(candidate, params))
            .verify_slice(provided)
            .is_ok();
        matched |= ok;
    }
    matched
}

fn mac_over(auth_token: &str, data: &str) -> HmacSha1 {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = <HmacSha1 as KeyInit>::new_from_slice(auth_token.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(data.as_bytes());
    mac
}

fn body_hash_matches(body: &[u8], expected_hex: &str) -> bool {
    let Some(expected) = decode_hex_32(expected_hex) else {
        return false;
    };
    let actual = Sha256::digest(body);
    // Not secret, but compare without early exit anyway.
    actual
        .iter()
        .zip(expected.iter())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

fn decode_hex_32(s: &str) -> Option<[u8; 32]> {
    fn nibble(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let bytes = s.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        out[i] = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Some(out)
}

/// The value of the first query parameter called `name` in `url` (not
/// percent-decoded), if any.
fn query_param<'u>(url: &'u str, name: &str) -> Option<&'u str> {
    let before_fragment = url.split('#').next().unwrap_or(url);
    let (_, query) = before_fragment.split_once('?')?;
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then_some(v)
    })
}

/// The parts of an absolute `scheme://authority...` URL.
struct UrlParts<'u> {
    /// `scheme://` and the userinfo with its `@`, if any.
    prefix: &'u str,
    scheme: &'u str,
    host: &'u str,
    /// The port digits, when the authority has a `:port` (possibly empty).
    port: Option<&'u str>,
    /// Path, query and fragment, untouched.
    rest: &'u str,
}

fn split_url(url: &str) -> Option<UrlParts<'_>> {
    let sep = url.find("://")?;
    let scheme = &url[..sep];
    let mut chars = scheme.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    let authority_start = sep + 3;
    let authority_end = url[authority_start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| authority_start + i);
    let authority = &url[authority_start..authority_end];
    let host_start = authority.rfind('@').map_or(0, |i| i + 1);
    let host_port = &authority[host_start..];
    let (host, port) = if host_port.starts_with('[') {
        // IPv6 literal: the port, if any, follows the closing bracket.
        let close = host_port.find(']')?;
        let after = &host_port[close + 1..];
        match after.strip_prefix(':') {
            Some(p) => (&host_port[..=close], Some(p)),
            None if after.is_empty() => (host_port, None),
            None => return None,
        }
    } else {
        match host_port.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        }
    };
    if port.is_some_and(|p| !p.bytes().all(|b| b.is_ascii_digit())) || host.is_empty() {
        return None;
    }
    Some(UrlParts {
        prefix: &url[..authority_start + host_start],
        scheme,
        host,
        port,
        rest: &url[authority_end..],
    })
}

/// The default port of `scheme` (`443` for https, `80` for http).
fn default_port(scheme: &str) -> Option<&'static str> {
    if scheme.eq_ignore_ascii_case("https") {
        Some("443")
    } else if scheme.eq_ignore_ascii_case("http") {
        Some("80")
    } else {
        None
    }
}

/// Returns `url` with its scheme's default port (`:443` for https, `:80` for
/// http) inserted after the host, or `None` when the URL already has a port,
/// is not an absolute http(s) URL, or cannot be parsed.
///
/// Userinfo, path, query string and fragment are kept untouched.
///
/// ```text
/// https://example.com/voice?x=1  ->  https://example.com:443/voice?x=1
/// http://example.com:8080/voice  ->  None (already has a port)
/// ```
fn add_default_port(url: &str) -> Option<String> {
    let parts = split_url(url)?;
    if parts.port.is_some() {
        return None;
    }
    let port = default_port(parts.scheme)?;
    Some(format!(
        "{}{}:{}{}",
        parts.prefix, parts.host, port, parts.rest
    ))
}

/// Returns `url` without the explicit port after its host (whichever port it
/// is, as the platform's helper libraries do), or `None` when it has none or
/// cannot be parsed.
///
/// Userinfo, path, query string and fragment are kept untouched.
///
/// ```text
/// http://user@example.com:80/voice?x=1  ->  http://user@example.com/voice?x=1
/// https://example.com:1234/voice        ->  https://example.com/voice
/// ```
fn remove_port(url: &str) -> Option<String> {
    let parts = split_url(url)?;
    parts.port?;
    Some(format!("{}{}{}", parts.prefix, parts.host, parts.rest))
}

/// The other form of `url` that a validator accepts: with its port removed
/// if it has one ([`remove_port`]), else with the default port added
/// ([`add_default_port`]). `None` when neither applies.
fn alternate_port_url(url: &str) -> Option<String> {
    let parts = split_url(url)?;
    if parts.port.is_some() {
        remove_port(url)
    } else {
        add_default_port(url)
    }
}

/// Percent-encodes the characters of the path, query and fragment that a
/// WHATWG URL serializer (as used by the Node helper library) encodes for
/// http(s) URLs: controls, space, `"`, `<`, `>`, non-ASCII, plus `` ` ``,
/// `{`, `}` in the path and `'` in the query. Returns `None` when nothing
/// changes or the URL cannot be parsed.
fn whatwg_percent_encode(url: &str) -> Option<String> {
    let parts = split_url(url)?;
    let head = &url[..url.len() - parts.rest.len()];
    let mut out = String::with_capacity(url.len() + 8);
    out.push_str(head);
    #[derive(Clone, Copy)]
    enum Section {
        Path,
        Query,
        Fragment,
    }
    let mut section = Section::Path;
    let mut changed = false;
    for &b in parts.rest.as_bytes() {
        match (section, b) {
            (Section::Path, b'?') => section = Section::Query,
            (Section::Path | Section::Query, b'#') => section = Section::Fragment,
            _ => {}
        }
        let encode = !(0x20..0x7f).contains(&b)
            || matches!(b, b' ' | b'"' | b'<' | b'>')
            || match section {
                Section::Path => matches!(b, b'`' | b'{' | b'}'),
                Section::Query => b == b'\'',
                Section::Fragment => b == b'`',
            };
        if encode {
            changed = true;
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)].to_ascii_uppercase()));
            out.push(char::from(HEX[usize::from(b & 0x0f)].to_ascii_uppercase()));
        } else {
            out.push(char::from(b));
        }
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "12345";
    const URL: &str = "https://mycompany.com/myapp.php?foo=1&bar=2";

    fn form() -> Vec<(String, String)> {
        [
            ("CallSid", "CA1234567890ABCDE"),
            ("Caller", "+14158675309"),
            ("Digits", "1234"),
            ("From", "+14158675309"),
            ("To", "+18005551212"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
    }

    #[test]
    fn adds_default_ports() {
        assert_eq!(
            add_default_port("https://a.com/x?p=1").as_deref(),
            Some("https://a.com:443/x?p=1")
        );
        assert_eq!(
            add_default_port("http://a.com/x").as_deref(),
            Some("http://a.com:80/x")
        );
        assert_eq!(
            add_default_port("HTTPS://a.com").as_deref(),
            Some("HTTPS://a.com:443")
        );
        assert_eq!(
            add_default_port("https://u:p@a.com?q=http://b.com:9/").as_deref(),
            Some("https://u:p@a.com:443?q=http://b.com:9/")
        );
        assert_eq!(
            add_default_port("https://[::1]/x").as_deref(),
            Some("https://[::1]:443/x")
        );
        assert_eq!(add_default_port("https://a.com:8443/x"), None);
        assert_eq!(add_default_port("ftp://a.com/x"), None);
        assert_eq!(add_default_port("/relative/path"), None);
        assert_eq!(add_default_port("https:///x"), None);
    }

    #[test]
    fn removes_ports() {
        assert_eq!(
            remove_port("https://a.com:443/x?p=1").as_deref(),
            Some("https://a.com/x?p=1")
        );
        assert_eq!(
            remove_port("http://user:pass@a.com:80#frag").as_deref(),
            Some("http://user:pass@a.com#frag")
        );
        assert_eq!(
            remove_port("https://a.com:1234/x").as_deref(),
            Some("https://a.com/x")
        );
        assert_eq!(
            remove_port("https://[::1]:8443/x").as_deref(),
            Some("https://[::1]/x")
        );
        // A colon in userinfo or query is not a port.
        assert_eq!(remove_port("https://user:pass@a.com/x?t=1:2"), None);
        assert_eq!(remove_port("https://a.com:abc/x"), None);
        assert_eq!(remove_port("not a url"), None);
    }

    #[test]
    fn alternate_port_round_trips() {
        let with = "https://a.com:443/x?y=1:2";
        let without = "https://a.com/x?y=1:2";
        assert_eq!(alternate_port_url(with).as_deref(), Some(without));
        assert_eq!(alternate_port_url(without).as_deref(), Some(with));
        assert_eq!(alternate_port_url("mailto:x@y.z"), None);
    }

    #[test]
    fn query_untouched_by_port_helpers() {
        let url = "https://a.com/x?next=https://b.com:443/&q=a%20b";
        assert_eq!(
            add_default_port(url).as_deref(),
            Some("https://a.com:443/x?next=https://b.com:443/&q=a%20b")
        );
    }

    #[test]
    fn sorts_by_name_then_value_and_dedupes() {
        let params = [("b", "2"), ("a", "z"), ("a", "y"), ("B", "0"), ("a", "y")];
        assert_eq!(signed_string("u", &params), "uB0ayazb2");
        let mut reversed = params;
        reversed.reverse();
        assert_eq!(
            compute_signature(TOKEN, "u", &params),
            compute_signature(TOKEN, "u", &reversed)
        );
    }

    #[test]
    fn computes_known_signature() {
        assert_eq!(
            compute_signature(TOKEN, URL, &form()),
            "RSOYDt4T1cUTdK1PDd93/VVr8B8="
        );
        let none: [(&str, &str); 0] = [];
        assert_eq!(signed_string(URL, &none), URL);
    }

    #[test]
    fn validates_and_tries_port_variants() {
        let params = form();
        let body = SignedBody::Form(&params);
        let sig = compute_signature(TOKEN, URL, &params);
        assert_eq!(validate(TOKEN, &sig, URL, &body), Ok(()));
        assert_eq!(
            validate(
                TOKEN,
                &sig,
                "https://mycompany.com:443/myapp.php?foo=1&bar=2",
                &body
            ),
            Ok(())
        );
        let sig443 = compute_signature(
            TOKEN,
            "https://mycompany.com:443/myapp.php?foo=1&bar=2",
            &params,
        );
        assert_eq!(validate(TOKEN, &sig443, URL, &body), Ok(()));
        assert_eq!(
            validate(
                TOKEN,
                &sig,
                "https://mycompany.com/myapp.php?foo=1&bar=3",
                &body
            ),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn percent_encoded_form_is_accepted() {
        let raw = "https://a.com/p?Body=It's+amazing";
        let encoded = "https://a.com/p?Body=It%27s+amazing";
        assert_eq!(whatwg_percent_encode(raw).as_deref(), Some(encoded));
        assert_eq!(whatwg_percent_encode(encoded), None);
        assert_eq!(
            whatwg_percent_encode("https://a.com/a b/{é}?q=\"'#'`").as_deref(),
            Some("https://a.com/a%20b/%7B%C3%A9%7D?q=%22%27#'%60")
        );
        let none: [(&str, &str); 0] = [];
        let sig = compute_signature(TOKEN, encoded, &none);
        assert_eq!(validate(TOKEN, &sig, raw, &SignedBody::Form(&[])), Ok(()));
    }

    #[test]
    fn constant_time_path_rejects_prefixes_and_wrong_lengths() {
        let params = form();
        let body = SignedBody::Form(&params);
        let sig = compute_signature(TOKEN, URL, &params);
        let mut bytes = BASE64.decode(&sig).unwrap();
        // A truncated MAC must not match (a naive "compare the common
        // prefix" check would accept it).
        bytes.truncate(10);
        let short = BASE64.encode(&bytes);
        assert_eq!(
            validate(TOKEN, &short, URL, &body),
            Err(SignatureError::Mismatch)
        );
        // An extended MAC must not match either.
        let mut long = BASE64.decode(&sig).unwrap();
        long.push(0);
        let long = BASE64.encode(&long);
        assert_eq!(
            validate(TOKEN, &long, URL, &body),
            Err(SignatureError::Mismatch)
        );
        // Last byte differing.
        let mut last = BASE64.decode(&sig).unwrap();
        *last.last_mut().unwrap() ^= 1;
        let last = BASE64.encode(&last);
        assert_eq!(
            validate(TOKEN, &last, URL, &body),
            Err(SignatureError::Mismatch)
        );
        // The comparison itself goes through the MAC's verify_slice.
        let provided = BASE64.decode(&sig).unwrap();
        assert!(signature_matches(TOKEN, &provided, URL, &params));
        assert!(!signature_matches("54321", &provided, URL, &params));
    }

    #[test]
    fn missing_and_malformed() {
        let body = SignedBody::Form(&[]);
        assert_eq!(
            validate(TOKEN, "", URL, &body),
            Err(SignatureError::Missing)
        );
        assert_eq!(
            validate(TOKEN, "  ", URL, &body),
            Err(SignatureError::Missing)
        );
        assert_eq!(
            validate(TOKEN, "not base64!", URL, &body),
            Err(SignatureError::Malformed)
        );
    }

    #[test]
    fn json_body_checks() {
        let body = br#"{"a":1}"#;
        let hash = body_sha256_hex(body);
        let url = format!("https://a.com/x?bodySHA256={hash}");
        let none: [(&str, &str); 0] = [];
        let sig = compute_signature(TOKEN, &url, &none);
        assert_eq!(validate(TOKEN, &sig, &url, &SignedBody::Json(body)), Ok(()));
        assert_eq!(
            validate(TOKEN, &sig, &url, &SignedBody::Json(br#"{"a":2}"#)),
            Err(SignatureError::BodyHashMismatch)
        );
        let upper = url
            .to_ascii_uppercase()
            .replace("HTTPS://A.COM/X?BODYSHA256", "https://a.com/x?bodySHA256");
        let sig_upper = compute_signature(TOKEN, &upper, &none);
        assert_eq!(
            validate(TOKEN, &sig_upper, &upper, &SignedBody::Json(body)),
            Ok(())
        );
        let no_hash = "https://a.com/x";
        let sig2 = compute_signature(TOKEN, no_hash, &none);
        assert_eq!(
            validate(TOKEN, &sig2, no_hash, &SignedBody::Json(body)),
            Err(SignatureError::MissingBodyHash)
        );
        assert_eq!(
            query_param("https://a.com/?a=1&bodySHA256=x#bodySHA256=y", "bodySHA256"),
            Some("x")
        );
        assert_eq!(
            query_param("https://a.com/#?bodySHA256=y", "bodySHA256"),
            None
        );
        assert_eq!(
            body_sha256_hex(b"{}"),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    #[test]
    fn messages_never_leak_token_or_signature() {
        let token = "sEcReT-token-0123456789abcdef";
        let params = form();
        let expected = compute_signature(token, URL, &params);
        let errors = [
            validate(token, "", URL, &SignedBody::Form(&params)).unwrap_err(),
            validate(token, "%%%", URL, &SignedBody::Form(&params)).unwrap_err(),
            validate(
                token,
                "AAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                URL,
                &SignedBody::Form(&params),
            )
            .unwrap_err(),
            validate(
                token,
                &expected,
                "https://a.com/x",
                &SignedBody::Json(b"{}"),
            )
            .unwrap_err(),
            SignatureError::BodyHashMismatch,
        ];
        assert_eq!(errors[2], SignatureError::Mismatch);
        for e in errors {
            for text in [e.to_string(), format!("{e:?}"), format!("{e:#?}")] {
                assert!(!text.contains(token), "{text}");
                assert!(!text.contains(&expected), "{text}");
                assert!(!text.is_empty());
            }
        }
        assert_eq!(
            SignatureError::Mismatch.to_string(),
            "X-Twilio-Signature does not match the request: check the auth token and the public URL the platform calls"
        );
        assert_eq!(
            SignatureError::Missing.to_string(),
            "missing X-Twilio-Signature header"
        );
        assert_eq!(
            SignatureError::BodyHashMismatch.to_string(),
            "request body does not match its bodySHA256"
        );
    }
}
