//! Reads that go past what a function declares, and the `declaration`
//! record that says how to declare them (and which declared name a
//! misspelt one is near).
//!
//! How often the record is written depends on who runs the function: the
//! runtime writes it once per process for each function, source, problem
//! and name (a flood guard: a handler that reads an undeclared name on
//! every request says so once); the testkit writes it once per invocation,
//! so that every invocation that makes the read shows it, whatever ran
//! before in the process, and a test's snapshot is the same alone or
//! after others.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::function::meta::FunctionMeta;
use crate::record::emit;

/// What is wrong with a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Problem {
    /// The name is not declared by the function.
    Undeclared,
    /// An undeclared value whose name looks sensitive: readable, kept out
    /// of the logs, and perhaps meant to be a secret.
    LooksSensitive,
    /// A declared secret read as plain text.
    Secret,
}

impl Problem {
    fn as_str(self) -> &'static str {
        match self {
            Problem::Undeclared => "undeclared",
            Problem::LooksSensitive => "looks_sensitive",
            Problem::Secret => "secret",
        }
    }
}

/// Where the name was read: `event` or `context`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Source {
    Event,
    Context,
}

/// Warnings already written, by function, source, problem and name. Names
/// come from code, but a handler may read names it was sent: past this
/// many, no more are kept (nor written).
const MAX_WARNED: usize = 1024;

type Warned = HashSet<(&'static str, Source, Problem, Box<str>)>;

/// The warnings written in this process, for [`Scope::Process`].
fn warned() -> &'static Mutex<Warned> {
    static WARNED: OnceLock<Mutex<Warned>> = OnceLock::new();
    WARNED.get_or_init(Mutex::default)
}

/// How often the `declaration` record of a read is written: once per
/// process (the runtime's flood guard, the default), or once per
/// invocation (the testkit's, with this invocation's own set).
#[derive(Clone, Debug, Default)]
pub(crate) struct Scope(Option<Arc<Mutex<Warned>>>);

impl Scope {
    /// Once per invocation: a set of its own, shared by the clones of the
    /// event or context it is given to.
    pub(crate) fn invocation() -> Scope {
        Scope(Some(Arc::default()))
    }

    /// Whether the warning for this read is still to be written, and
    /// remembers that it is.
    fn first(&self, key: (&'static str, Source, Problem, &str)) -> bool {
        let (function, source, problem, name) = key;
        let mut warned = match &self.0 {
            Some(own) => own.lock(),
            None => warned().lock(),
        }
        .unwrap_or_else(PoisonError::into_inner);
        let key = (function, source, problem, Box::<str>::from(name));
        if warned.contains(&key) || warned.len() >= MAX_WARNED {
            return false;
        }
        warned.insert(key);
        true
    }
}

/// Writes the `declaration` record for `name`, once per function, source
/// and problem in `scope`; for a misspelt name, it suggests the nearest of
/// `near` (see [`suggestion`]).
pub(crate) fn warn<'a>(
    meta: &'static FunctionMeta,
    scope: &Scope,
    source: Source,
    name: &str,
    problem: Problem,
    near: impl IntoIterator<Item = &'a str>,
) {
    if !crate::record::enabled(tracing::Level::WARN)
        || !scope.first((meta.name(), source, problem, name))
    {
        return;
    }
    let suggested = match problem {
        Problem::Undeclared => suggestion(name, near),
        Problem::LooksSensitive | Problem::Secret => None,
    };
    emit(
        &message(meta.name(), source, name, problem, suggested),
        &crate::record::Declaration {
            source: match source {
                Source::Event => "event",
                Source::Context => "context",
            },
            name,
            problem: problem.as_str(),
            suggestion: suggested,
        },
    );
}

/// The record's message: what was read, and the fix.
fn message(
    function: &str,
    source: Source,
    name: &str,
    problem: Problem,
    suggested: Option<&str>,
) -> String {
    match (source, problem, suggested) {
        (Source::Event, _, None) => format!(
            "event.get(\"{name}\") reads a parameter `{function}` does not declare \
             (a misspelt name is always None): list it in `required = [..]`, or under \
             `# Optional parameters` in the doc comment"
        ),
        (Source::Event, _, Some(near)) => format!(
            "event.get(\"{name}\") reads a parameter `{function}` does not declare: \
             did you mean `{near}`? (a misspelt name is always None) If `{name}` is meant, \
             list it in `required = [..]`, or under `# Optional parameters` in the doc comment"
        ),
        (Source::Context, Problem::Undeclared, None) => format!(
            "context.get(\"{name}\") reads a value `{function}` does not declare: list it \
             in `env = [..]` so that a missing value is reported before the handler runs"
        ),
        (Source::Context, Problem::Undeclared, Some(near)) => format!(
            "context.get(\"{name}\") reads a value `{function}` does not declare: did you \
             mean `{near}`? If `{name}` is meant, list it in `env = [..]` so that a missing \
             value is reported before the handler runs"
        ),
        (Source::Context, Problem::LooksSensitive, _) => format!(
            "context.get(\"{name}\") reads a value `{function}` does not declare, whose name \
             looks sensitive (its value is kept out of every log line): if it is a secret, \
             declare it in `secrets = [..]` (or CCFN_SECRETS) and read it with \
             context.secret(\"{name}\"); if not, list it in `env = [..]`"
        ),
        (Source::Context, Problem::Secret, _) => format!(
            "`{name}` is a declared secret, so context.get gives None: read it with \
             context.secret(\"{name}\")"
        ),
    }
}

/// The name of `candidates` nearest to `name`, when it is near enough to
/// be what was meant: equal but for ASCII case, or at most
/// [`max_edits`] edits away (insertions, deletions, substitutions). The
/// first of the nearest wins; `name` itself never does.
pub(crate) fn suggestion<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate == name || candidate.is_empty() {
            continue;
        }
        let distance = if candidate.eq_ignore_ascii_case(name) {
            0
        } else {
            let distance = edit_distance(name, candidate);
            if distance > max_edits(name) {
                continue;
            }
            distance
        };
        if best.is_none_or(|(shortest, _)| distance < shortest) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// How many edits a name of this length may be from the one meant: one
/// per three characters, at least 1 and at most 2 (as rustc's "similar
/// name" hints: `Digit` is 1 from `Digits`, `ab` is not a typo of `xy`).
fn max_edits(name: &str) -> usize {
    (name.chars().count() / 3).clamp(1, 2)
}

/// The Levenshtein distance between `a` and `b`, in characters
/// (`strsim`'s).
fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("Digits", "Digits"), 0);
        assert_eq!(edit_distance("Digit", "Digits"), 1);
        assert_eq!(edit_distance("Digts", "Digits"), 1);
        assert_eq!(edit_distance("Digjts", "Digits"), 1);
        assert_eq!(edit_distance("CalSid", "CallSid"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("é", "e"), 1, "characters, not bytes");
    }

    #[test]
    fn suggests_the_nearest_close_name() {
        let params = crate::params::ALL.iter().copied();
        assert_eq!(suggestion("Digit", params.clone()), Some("Digits"));
        assert_eq!(suggestion("digits", params.clone()), Some("Digits"));
        assert_eq!(suggestion("CALLSID", params.clone()), Some("CallSid"));
        assert_eq!(
            suggestion("SpeechReslt", params.clone()),
            Some("SpeechResult")
        );
        assert_eq!(
            suggestion("CustomerId", params.clone()),
            None,
            "far from all"
        );
        assert_eq!(suggestion("Digits", ["Digits"]), None, "not itself");
        // Nearest first, then the first of equals.
        assert_eq!(suggestion("Cod", ["Code", "Cold", "Cd"]), Some("Code"));
        assert_eq!(suggestion("Cod", ["Cold", "Code"]), Some("Cold"));
        assert_eq!(suggestion("Ticket", ["ticket", "Tickets"]), Some("ticket"));
        // Short names are near everything short: one edit at most.
        assert_eq!(suggestion("ab", ["xy"]), None);
        assert_eq!(suggestion("Fro", ["From"]), Some("From"));
        assert_eq!(suggestion("Fo", ["From"]), None);
        assert_eq!(suggestion("To", ["to"]), Some("to"), "case alone");
    }

    #[test]
    fn the_message_carries_the_suggestion_and_the_fix() {
        let with = message(
            "menu",
            Source::Event,
            "Digit",
            Problem::Undeclared,
            Some("Digits"),
        );
        assert!(with.contains("did you mean `Digits`?"), "{with}");
        assert!(
            with.contains("If `Digit` is meant, list it in `required = [..]`"),
            "{with}"
        );
        let without = message("menu", Source::Event, "Digit", Problem::Undeclared, None);
        assert!(!without.contains("did you mean"), "{without}");
        let context = message(
            "menu",
            Source::Context,
            "CRM_UR",
            Problem::Undeclared,
            Some("CRM_URL"),
        );
        assert!(context.contains("did you mean `CRM_URL`?"), "{context}");
        assert!(context.contains("list it in `env = [..]`"), "{context}");
    }

    #[test]
    fn a_process_scope_writes_once_and_an_invocation_scope_once_each() {
        let key = (
            "declared-scope-test",
            Source::Event,
            Problem::Undeclared,
            "Digit",
        );
        let process = Scope::default();
        assert!(process.first(key));
        assert!(!process.first(key), "once per process");
        assert!(!Scope::default().first(key), "whichever event reads it");

        let first = Scope::invocation();
        assert!(first.first(key), "an invocation of its own");
        assert!(!first.first(key), "once in it");
        assert!(!first.clone().first(key), "clones share it");
        assert!(
            Scope::invocation().first(key),
            "and the next invocation again"
        );
        let other = (
            "declared-scope-test",
            Source::Context,
            Problem::Undeclared,
            "Digit",
        );
        assert!(first.first(other), "per source");
    }
}
