//! The one rule for everything exported: every text (span and event
//! attributes, status messages, metric attributes) passes the scrubber of
//! the log lines, [`crate::secret::scrub`], with the process's secrets and
//! the invocation's: its URLs shown as [`crate::secret::display_url`]
//! shows them, every secret value `[REDACTED]`.
//!
//! Values are scrubbed where they are made, with the secrets of their
//! invocation; the export thread passes every text of every span through
//! it once more, with the process's secrets, as it writes the export.
//! A text that holds nothing to scrub is never copied to be checked.

use std::borrow::Cow;

use opentelemetry::{Array, KeyValue, Value};

use crate::record::entry::Identity;
use crate::record::scope;

/// `text` scrubbed with the process's secrets and `secrets`, those of an
/// invocation ([`crate::secret::invocation_secrets`]).
pub(super) fn text(text: &str, secrets: &[Box<str>]) -> String {
    shown(text, secrets).into_owned()
}

/// `text` scrubbed with the process's secrets and `secrets`, borrowed
/// when that changes nothing: what [`crate::secret::scrub`] makes of it,
/// without a copy of every text that holds no secret.
pub(super) fn shown<'a>(text: &'a str, secrets: &[Box<str>]) -> Cow<'a, str> {
    match crate::secret::scrubbed(text) {
        Cow::Borrowed(text) if !secrets.iter().any(|secret| text.contains(&**secret)) => {
            Cow::Borrowed(text)
        }
        _ => {
            let mut text = text.to_owned();
            crate::secret::scrub(&mut text, secrets);
            Cow::Owned(text)
        }
    }
}

/// Calls `f` with the secrets of the invocation this thread polls, if
/// any (none else): what [`current`] scrubs with beyond the process's.
pub(super) fn with_current_secrets<R>(f: impl FnOnce(&[Box<str>]) -> R) -> R {
    if scope::in_invocation() {
        scope::with_current(|invocation| f(Identity::of(Some(invocation)).secrets()))
    } else {
        f(&[])
    }
}

/// `text` scrubbed with the process's secrets and those of the invocation
/// this thread polls, if any (the clients' spans).
#[cfg_attr(not(feature = "clients"), allow(dead_code))]
pub(super) fn current(text: &str) -> String {
    with_current_secrets(|secrets| shown(text, secrets).into_owned())
}

/// `value` with its text, or each text of its array, scrubbed with the
/// process's secrets and `secrets`; `None` when that changes nothing.
fn value(value: &Value, secrets: &[Box<str>]) -> Option<Value> {
    match value {
        Value::String(text) => match shown(text.as_str(), secrets) {
            Cow::Borrowed(_) => None,
            Cow::Owned(shown) => Some(Value::from(shown)),
        },
        Value::Array(Array::String(texts)) => {
            let changed = texts
                .iter()
                .any(|text| matches!(shown(text.as_str(), secrets), Cow::Owned(_)));
            changed.then(|| {
                Value::Array(Array::String(
                    texts
                        .iter()
                        .map(|text| shown(text.as_str(), secrets).into_owned().into())
                        .collect(),
                ))
            })
        }
        _ => None,
    }
}

/// Scrubs every text value of `attributes` with the process's secrets
/// and `secrets`.
fn each(attributes: &mut [KeyValue], secrets: &[Box<str>]) {
    for attribute in attributes {
        if let Some(shown) = value(&attribute.value, secrets) {
            attribute.value = shown;
        }
    }
}

/// Metric attributes, scrubbed with the process's secrets and those of
/// the invocation this thread polls: what every instrument records with.
/// Borrowed, and nothing copied, when none holds a secret: their texts
/// are checked once, all together, one a line (see [`clean`]).
pub(super) fn metric(attributes: &[KeyValue]) -> Cow<'_, [KeyValue]> {
    with_current_secrets(|secrets| {
        let texts = attributes
            .iter()
            .flat_map(|attribute| match &attribute.value {
                Value::String(text) => std::slice::from_ref(text),
                Value::Array(Array::String(texts)) => texts.as_slice(),
                _ => &[],
            });
        if clean(texts.map(|text| text.as_str()), secrets) {
            return Cow::Borrowed(attributes);
        }
        let mut owned = attributes.to_vec();
        each(&mut owned, secrets);
        Cow::Owned(owned)
    })
}

/// Metric attributes whose texts are all ccfn's own `'static` `texts`
/// (a function's name, an outcome, `http`), scrubbed as [`metric`]
/// scrubs: what the process's secrets leave of each such text is looked
/// up once, and again only after a secret is registered (the texts never
/// change, and the secrets only grow); the invocation's are looked for
/// each time.
pub(super) fn own_metric<'a>(
    attributes: &'a [KeyValue],
    texts: &[&'static str],
) -> Cow<'a, [KeyValue]> {
    /// Ccfn's own texts found clean, by address and length, and the
    /// registration count they were found clean at; at most `KEPT`.
    const KEPT: usize = 64;
    thread_local! {
        static KNOWN: std::cell::RefCell<(u64, Vec<(usize, usize)>)> =
            const { std::cell::RefCell::new((0, Vec::new())) };
    }
    let clean = with_current_secrets(|secrets| {
        if secrets
            .iter()
            .any(|secret| texts.iter().any(|text| text.contains(&**secret)))
        {
            return false;
        }
        let generation = crate::secret::generation();
        let found = |text: &str| matches!(crate::secret::scrubbed(text), Cow::Borrowed(_));
        KNOWN.with(|known| {
            let Ok(mut known) = known.try_borrow_mut() else {
                return texts.iter().all(|text| found(text));
            };
            if known.0 != generation || known.1.len() > KEPT {
                *known = (generation, Vec::new());
            }
            texts.iter().all(|text| {
                let key = (text.as_ptr() as usize, text.len());
                if known.1.contains(&key) {
                    return true;
                }
                let clean = found(text);
                if clean {
                    known.1.push(key);
                }
                clean
            })
        })
    });
    if clean {
        Cow::Borrowed(attributes)
    } else {
        metric(attributes)
    }
}

/// Whether scrubbing each of `texts` with the process's secrets and
/// `secrets` would leave it as it is: checked once, on all of them, one
/// a line. What the scrubber changes in one text it changes in the
/// lines: a URL ends at a line's end and starts after it, and a secret
/// in one text is in all of them.
pub(super) fn clean<'a>(texts: impl Iterator<Item = &'a str>, secrets: &[Box<str>]) -> bool {
    thread_local! {
        static LINES: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    let check = |lines: &mut String| {
        lines.clear();
        for text in texts {
            lines.push_str(text);
            lines.push('\n');
        }
        // One search for anything the scrubber could change, the
        // scrubber's own look only when it finds something.
        !crate::secret::touched(lines, secrets)
            || (matches!(crate::secret::scrubbed(lines), Cow::Borrowed(_))
                && !secrets.iter().any(|secret| lines.contains(&**secret)))
    };
    LINES.with(|lines| match lines.try_borrow_mut() {
        Ok(mut lines) => check(&mut lines),
        Err(_) => check(&mut String::new()),
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use opentelemetry::StringValue;

    /// Ccfn's own texts are looked up once, and again once a secret is
    /// registered: one that a text holds is then scrubbed from it.
    #[test]
    fn own_texts_are_checked_again_after_a_registration() {
        const FUNCTION: &str = "own-metric-canary-7c2a-fn";
        let attributes = [
            KeyValue::new("faas.name", FUNCTION),
            KeyValue::new("ccfn.outcome", "success"),
        ];
        for _ in 0..2 {
            assert!(matches!(
                own_metric(&attributes, &[FUNCTION, "success"]),
                Cow::Borrowed(_)
            ));
        }
        let secret = crate::secret::Secret::new("own-metric-canary-7c2a");
        let shown = own_metric(&attributes, &[FUNCTION, "success"]);
        assert!(matches!(shown, Cow::Owned(_)));
        assert_eq!(shown[0].value.as_str(), "[REDACTED]-fn");
        assert_eq!(shown[1].value.as_str(), "success");
        drop(secret);
    }

    /// `name` scrubbed with the process's secrets, replaced only when that
    /// changed it.
    fn name(name: &mut Cow<'static, str>) {
        if let Cow::Owned(shown) = shown(name, &[]) {
            *name = Cow::Owned(shown);
        }
    }

    /// A finished span as it leaves the process: its name, attributes, its
    /// events' names and attributes and its status message scrubbed with the
    /// process's secrets (the invocation's were applied where each value was
    /// made). The export writes every span so as it encodes it
    /// ([`super::encode`]); this is the rule it is checked against.
    pub(in crate::otel) fn span(span: &mut opentelemetry_sdk::trace::SpanData) {
        name(&mut span.name);
        each(&mut span.attributes, &[]);
        for event in &mut span.events.events {
            name(&mut event.name);
            each(&mut event.attributes, &[]);
        }
        if let opentelemetry::trace::Status::Error { description } = &mut span.status {
            name(description);
        }
    }

    #[test]
    fn every_text_of_a_span_is_scrubbed_before_export() {
        let secret = crate::secret::Secret::new("canary-otel-scrub-unit-71c2");
        let mut span = crate::otel::export::tests::span();
        span.attributes = vec![
            KeyValue::new(
                "url.full",
                "https://ops:pw-canary@x.example/?token=t&keep=1",
            ),
            KeyValue::new("a", format!("key {}", secret.expose())),
            KeyValue::new(
                "list",
                Value::Array(Array::String(vec![StringValue::from(
                    secret.expose().to_owned(),
                )])),
            ),
            KeyValue::new("n", 7_i64),
        ];
        span.events.events.push(opentelemetry::trace::Event::new(
            "log",
            std::time::SystemTime::now(),
            vec![KeyValue::new("message", secret.expose().to_owned())],
            0,
        ));
        span.status = opentelemetry::trace::Status::error(format!("failed: {}", secret.expose()));
        span.name = format!("GET {}", secret.expose()).into();
        self::span(&mut span);
        let text = format!("{span:?}");
        assert!(!text.contains(secret.expose()), "{text}");
        assert!(!text.contains("pw-canary"), "{text}");
        assert_eq!(
            span.attributes[0].value.as_str(),
            "https://[REDACTED]@x.example/?token=[REDACTED]&keep=1"
        );
        assert_eq!(span.attributes[1].value.as_str(), "key [REDACTED]");
        assert_eq!(span.attributes[3].value, Value::I64(7));
    }

    #[test]
    fn an_invocation_s_secrets_are_scrubbed_too() {
        let secrets = crate::secret::invocation_secrets(["canary-mode-4a1e"]);
        assert_eq!(text("canary-mode-4a1e", &secrets), "[REDACTED]");
        assert_eq!(text("canary-mode-4a1e", &[]), "canary-mode-4a1e");
        let plain = [KeyValue::new("faas.name", "f")];
        assert!(matches!(metric(&plain), Cow::Borrowed(_)));
        let secret = crate::secret::Secret::new("canary-metric-9b1f2a");
        let holding = [
            KeyValue::new("faas.name", "f"),
            KeyValue::new("http.route", format!("/x/{}", secret.expose())),
            KeyValue::new("http.response.status_code", 200_i64),
        ];
        let shown = metric(&holding);
        assert!(matches!(shown, Cow::Owned(_)));
        assert_eq!(shown[0].value.as_str(), "f");
        assert_eq!(shown[1].value.as_str(), "/x/[REDACTED]");
        assert_eq!(shown[2].value, Value::I64(200));
        assert!(clean(["a", "https://x.example/"].into_iter(), &[]));
        assert!(!clean(["https://u:p@x.example/"].into_iter(), &[]));
        assert!(!clean(["a", "b canary-mode-4a1e"].into_iter(), &secrets));
    }
}
