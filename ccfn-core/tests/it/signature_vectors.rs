//! Conformance of request-signature validation with the platform's public
//! vectors (`tests/vectors/signature-vectors.json`).

use std::path::PathBuf;

use ccfn_core::signature::{signed_string, validate, SignatureError, SignedBody};
use serde_json::Value;

fn vectors_dir() -> PathBuf {
    match std::env::var_os("CCFN_VECTORS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors")),
    }
}

struct Vector {
    name: String,
    auth_token: String,
    url: String,
    params: Vec<(String, String)>,
    body: Option<String>,
    signature: String,
    signed_string: Option<String>,
}

impl Vector {
    fn signed_body(&self) -> SignedBody<'_> {
        match &self.body {
            Some(body) => SignedBody::Json(body.as_bytes()),
            None => SignedBody::Form(&self.params),
        }
    }

    fn check(
        &self,
        token: &str,
        signature: &str,
        url: &str,
        body: &SignedBody<'_>,
    ) -> Result<(), SignatureError> {
        validate(token, signature, url, body)
    }

    fn reject(&self, what: &str, result: Result<(), SignatureError>) {
        assert!(
            result.is_err(),
            "{}: tampering ({what}) was accepted",
            self.name
        );
    }
}

fn load() -> Vec<Vector> {
    let path = vectors_dir().join("signature-vectors.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e} (set CCFN_VECTORS_DIR)", path.display()));
    let json: Value = serde_json::from_str(&text).expect("valid JSON");
    let text_field = |v: &Value, key: &str| -> String {
        v[key]
            .as_str()
            .unwrap_or_else(|| panic!("{key} missing in {v}"))
            .to_owned()
    };
    json.as_array()
        .expect("array of vectors")
        .iter()
        .map(|v| {
            let mut params = Vec::new();
            if let Some(map) = v.get("params").and_then(Value::as_object) {
                for (name, value) in map {
                    match value {
                        Value::String(s) => params.push((name.clone(), s.clone())),
                        Value::Array(values) => {
                            for value in values {
                                let s = value.as_str().expect("string value");
                                params.push((name.clone(), s.to_owned()));
                            }
                        }
                        other => panic!("unexpected param value {other}"),
                    }
                }
            }
            Vector {
                name: text_field(v, "name"),
                auth_token: text_field(v, "auth_token"),
                url: text_field(v, "url"),
                params,
                body: v.get("body").and_then(Value::as_str).map(str::to_owned),
                signature: text_field(v, "signature"),
                signed_string: v
                    .get("signed_string")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            }
        })
        .collect()
}

#[test]
fn there_are_fourteen_vectors() {
    assert_eq!(load().len(), 14);
}

#[test]
fn every_vector_validates() {
    for v in load() {
        assert_eq!(
            v.check(&v.auth_token, &v.signature, &v.url, &v.signed_body()),
            Ok(()),
            "{}",
            v.name
        );
    }
}

#[test]
fn signed_strings_match() {
    let mut checked = 0;
    for v in load() {
        if let Some(expected) = &v.signed_string {
            let params: &[(String, String)] = if v.body.is_some() { &[] } else { &v.params };
            assert_eq!(&signed_string(&v.url, params), expected, "{}", v.name);
            checked += 1;
        }
    }
    assert!(checked >= 2, "expected vectors with signed_string");
}

#[test]
fn parameter_order_does_not_matter() {
    for v in load() {
        let mut reversed = v.params.clone();
        reversed.reverse();
        let body = match &v.body {
            Some(b) => SignedBody::Json(b.as_bytes()),
            None => SignedBody::Form(&reversed),
        };
        assert_eq!(
            v.check(&v.auth_token, &v.signature, &v.url, &body),
            Ok(()),
            "{}",
            v.name
        );
    }
}

#[test]
fn changed_param_value_is_rejected() {
    for v in load() {
        match &v.body {
            None => {
                for i in 0..v.params.len() {
                    let mut params = v.params.clone();
                    params[i].1.push('9');
                    v.reject(
                        &format!("value of {}", params[i].0),
                        v.check(
                            &v.auth_token,
                            &v.signature,
                            &v.url,
                            &SignedBody::Form(&params),
                        ),
                    );
                }
                assert!(
                    !v.params.is_empty(),
                    "{}: form vector without params",
                    v.name
                );
            }
            Some(body) => {
                // The JSON counterpart of a changed value: a changed body.
                let changed = body.replace("value", "valuf").replace("{}", "{ }");
                assert_ne!(&changed, body);
                assert_eq!(
                    v.check(
                        &v.auth_token,
                        &v.signature,
                        &v.url,
                        &SignedBody::Json(changed.as_bytes())
                    ),
                    Err(SignatureError::BodyHashMismatch),
                    "{}",
                    v.name
                );
            }
        }
    }
}

#[test]
fn added_param_is_rejected() {
    for v in load() {
        let mut params = v.params.clone();
        params.push(("Extra".to_owned(), "1".to_owned()));
        v.reject(
            "added param",
            v.check(
                &v.auth_token,
                &v.signature,
                &v.url,
                &SignedBody::Form(&params),
            ),
        );
        if v.body.is_none() {
            // A second, different value for an existing name.
            let mut params = v.params.clone();
            let (name, _) = params[0].clone();
            params.push((name, "other".to_owned()));
            v.reject(
                "added value",
                v.check(
                    &v.auth_token,
                    &v.signature,
                    &v.url,
                    &SignedBody::Form(&params),
                ),
            );
            // Removing one is rejected too (one that is not repeated: a
            // repeated name and value is signed once).
            let mut params = v.params.clone();
            let unique = params
                .iter()
                .position(|p| v.params.iter().filter(|q| *q == p).count() == 1)
                .expect("a vector has a parameter that is not repeated");
            params.remove(unique);
            v.reject(
                "removed param",
                v.check(
                    &v.auth_token,
                    &v.signature,
                    &v.url,
                    &SignedBody::Form(&params),
                ),
            );
        }
    }
}

#[test]
fn changed_url_path_is_rejected() {
    for v in load() {
        assert!(v.url.contains("/myapp.php"), "{}", v.name);
        for url in [
            v.url.replace("/myapp.php", "/myapp.phq"),
            v.url.replace("/myapp.php", "/other/myapp.php"),
            v.url.replace("mycompany.com", "mycompany.org"),
            if v.url.starts_with("https://") {
                v.url.replacen("https://", "http://", 1)
            } else {
                v.url.replacen("http://", "https://", 1)
            },
            v.url.replacen('?', "?z=1&", 1),
        ] {
            assert_ne!(url, v.url);
            v.reject(
                &format!("url {url}"),
                v.check(&v.auth_token, &v.signature, &url, &v.signed_body()),
            );
        }
    }
}

#[test]
fn flipped_signature_char_is_rejected() {
    for v in load() {
        let sig: Vec<char> = v.signature.chars().collect();
        // Flip every non-padding character, one at a time.
        for i in 0..sig.len() {
            if sig[i] == '=' {
                continue;
            }
            let mut flipped = sig.clone();
            flipped[i] = if sig[i] == 'A' { 'B' } else { 'A' };
            let flipped: String = flipped.into_iter().collect();
            let result = v.check(&v.auth_token, &flipped, &v.url, &v.signed_body());
            assert!(
                matches!(
                    result,
                    Err(SignatureError::Mismatch | SignatureError::Malformed)
                ),
                "{}: flipped char {i} gave {result:?}",
                v.name
            );
        }
        assert_eq!(
            v.check(&v.auth_token, "", &v.url, &v.signed_body()),
            Err(SignatureError::Missing),
            "{}",
            v.name
        );
    }
}

#[test]
fn wrong_token_is_rejected() {
    for v in load() {
        for token in [
            format!("{}6", v.auth_token),
            "54321".to_owned(),
            String::new(),
        ] {
            assert_eq!(
                v.check(&token, &v.signature, &v.url, &v.signed_body()),
                Err(SignatureError::Mismatch),
                "{}",
                v.name
            );
        }
    }
}

#[test]
fn json_vectors_need_their_body_hash() {
    for v in load().into_iter().filter(|v| v.body.is_some()) {
        let body = v.body.as_deref().unwrap_or_default();
        let without = v
            .url
            .split("bodySHA256")
            .next()
            .unwrap_or_default()
            .trim_end_matches(['&', '?'])
            .to_owned();
        assert_eq!(
            v.check(
                &v.auth_token,
                &v.signature,
                &without,
                &SignedBody::Json(body.as_bytes())
            ),
            Err(SignatureError::MissingBodyHash),
            "{}",
            v.name
        );
        // The same bytes posted as a form (no params) still need the URL signature only.
        assert_eq!(
            v.check(&v.auth_token, &v.signature, &v.url, &SignedBody::Form(&[])),
            Ok(()),
            "{}",
            v.name
        );
    }
}
