//! `reproduce.sh`: a command per failing invocation, rebuilt from its
//! `start` record's event.

use super::*;

/// `text` as one word for a POSIX shell, whatever it holds: single
/// quotes (an embedded one written `'\''`), a newline as `"$NL"` (set at
/// the top of the script), any other control character as
/// `"$(printf '\ooo')"` (its bytes in octal), so that the script holds no
/// raw control character and no data can end a quote.
fn shell(text: &str) -> String {
    use std::fmt::Write as _;
    if text.is_empty() {
        return "''".to_owned();
    }
    let mut out = String::with_capacity(text.len() + 2);
    let mut quoted = false;
    for c in text.chars() {
        let plain = !c.is_control();
        if plain != quoted {
            out.push('\'');
            quoted = plain;
        }
        if c == '\'' {
            out.push_str("'\\''");
        } else if plain {
            out.push(c);
        } else if c == '\n' {
            out.push_str("\"$NL\"");
        } else {
            out.push_str("\"$(printf '");
            let mut bytes = [0u8; 4];
            for byte in c.encode_utf8(&mut bytes).bytes() {
                let _ = write!(out, "\\{byte:03o}");
            }
            out.push_str("')\"");
        }
    }
    if quoted {
        out.push('\'');
    }
    out
}

/// `text` for a shell comment: on one line, every control character
/// escaped (a newline as `\n`), so that it cannot end the comment.
fn comment(text: &str) -> String {
    crate::terminal::visible(text).replace('\n', "\\n")
}

/// The shell variable a sensitive parameter's value is read from:
/// `SECRET_` and its name in uppercase letters, digits and `_`.
fn placeholder(name: &str) -> String {
    let mut variable = String::from("SECRET_");
    variable.extend(name.chars().map(|c| {
        if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        }
    }));
    variable
}

/// The reproduction script: a `ccfn probe` and a `curl` per failing
/// invocation. Every value it holds is one shell word ([`shell`]); every
/// comment holding data is escaped ([`comment`]).
pub(super) fn reproduce(gathered: &Gathered, url: Option<&str>) -> String {
    let mut out = String::from(
        "#!/bin/sh\n\
         # Reproduction commands for the failing invocations of this package, rebuilt\n\
         # from each invocation's `start` record. URL is the function's URL, as the\n\
         # platform calls it; a value the logs hid is read from a variable to set\n\
         # (SECRET_ and the parameter's name). `ccfn probe` signs the request when\n\
         # AUTH_TOKEN is set; `curl` sends it unsigned (for a runtime without\n\
         # AUTH_TOKEN).\n\
         set -eu\n\
         NL='\n'\n",
    );
    // The URL the commands call: without its user information (which
    // the runtime never needs), not with it written `[REDACTED]@`.
    let url = url.map_or_else(
        || "https://set-URL-to-the-function-s-URL.invalid/".to_owned(),
        |url| match reqwest::Url::parse(url) {
            Ok(parsed) if parsed.username().is_empty() && parsed.password().is_none() => {
                url.to_owned()
            }
            Ok(mut parsed) => {
                let _ = parsed.set_username("");
                let _ = parsed.set_password(None);
                parsed.to_string()
            }
            Err(_) => record::redact_url_userinfo(url).into_owned(),
        },
    );
    let _ = writeln!(
        out,
        "if [ -z \"${{URL:-}}\" ]; then URL={}; fi",
        shell(&url)
    );
    if gathered.failing.is_empty() {
        out.push_str("\n# No invocation failed in the records of this package.\n");
    }
    if gathered.failing_total > gathered.failing.len() as u64 {
        let _ = writeln!(
            out,
            "\n# The first {} of {} failing invocations.",
            gathered.failing.len(),
            gathered.failing_total
        );
    }
    for (invocation, start) in &gathered.failing {
        let _ = writeln!(
            out,
            "\n# {}",
            comment(&format!(
                "{} {} ({}): {}",
                invocation.time,
                invocation.function,
                invocation.id,
                invocation
                    .first_error
                    .as_deref()
                    .unwrap_or(&invocation.outcome)
            ))
        );
        let Some(start) = start else {
            out.push_str(if gathered.given_up > 0 {
                "# (its `start` record is not in the logs, or was given up with its invocation (--max-open-invocations): no event to rebuild)\n"
            } else {
                "# (its `start` record is not in the logs: no event to rebuild)\n"
            });
            continue;
        };
        if let Some(left_out) = &start.left_out {
            let _ = writeln!(
                out,
                "# CUT: its event is over {} (the {} kept): {} parameter{} ({} bytes) left out, so this is not the request the platform sent: {}{}",
                input::size(START_EVENT_MAX),
                if start.params.is_empty() { "none" } else { "first that fit" },
                left_out.count,
                if left_out.count == 1 { "" } else { "s" },
                left_out.bytes,
                comment(&left_out.names.join(", ")),
                if left_out.count > left_out.names.len() { ", ..." } else { "" },
            );
        }
        let mut probe_args = String::new();
        let mut curl_args = String::new();
        for (name, value) in &start.params {
            // curl takes `name=value` with the name already encoded: an
            // encoded name holds no `=` or `@` (which would make curl read
            // a file).
            let encoded: String = form_urlencoded::byte_serialize(name.as_bytes()).collect();
            let (probe, curl) = if value == record::REDACTED || is_sensitive_name(name) {
                let variable = placeholder(name);
                let read = format!("\"${{{variable}:?set {variable}}}\"");
                (
                    format!("{}{read}", shell(&format!("{name}="))),
                    format!("{}{read}", shell(&format!("{encoded}="))),
                )
            } else {
                (
                    shell(&format!("{name}={value}")),
                    shell(&format!("{encoded}={value}")),
                )
            };
            let _ = write!(probe_args, " --param {probe}");
            let _ = write!(curl_args, " --data-urlencode {curl}");
        }
        if !start.has_mode {
            probe_args.push_str(" --param mode=");
        }
        let _ = writeln!(out, "ccfn probe \"$URL\"{probe_args}");
        let _ = writeln!(out, "curl -sS -i -X POST \"$URL\"{curl_args}");
    }
    out
}
