//! Reads that go past what a function declares, and the one-time
//! `declaration` record that says how to declare them.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock, PoisonError};

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

fn warned() -> &'static Mutex<Warned> {
    static WARNED: OnceLock<Mutex<Warned>> = OnceLock::new();
    WARNED.get_or_init(Mutex::default)
}

/// Writes the `declaration` record for `name` once per function, source
/// and problem.
pub(crate) fn warn_once(meta: &'static FunctionMeta, source: Source, name: &str, problem: Problem) {
    if !crate::record::enabled(tracing::Level::WARN) {
        return;
    }
    {
        let mut warned = warned().lock().unwrap_or_else(PoisonError::into_inner);
        let key = (meta.name(), source, problem, Box::<str>::from(name));
        if warned.contains(&key) || warned.len() >= MAX_WARNED {
            return;
        }
        warned.insert(key);
    }
    let function = meta.name();
    let message = match (source, problem) {
        (Source::Event, _) => format!(
            "event.get(\"{name}\") reads a parameter `{function}` does not declare \
             (a misspelt name is always None): list it in `required = [..]`, or under \
             `# Optional parameters` in the doc comment"
        ),
        (Source::Context, Problem::Undeclared) => format!(
            "context.get(\"{name}\") reads a value `{function}` does not declare: list it \
             in `env = [..]` so that a missing value is reported before the handler runs"
        ),
        (Source::Context, Problem::LooksSensitive) => format!(
            "context.get(\"{name}\") reads a value `{function}` does not declare, whose name \
             looks sensitive (its value is kept out of every log line): if it is a secret, \
             declare it in `secrets = [..]` (or CCFN_SECRETS) and read it with \
             context.secret(\"{name}\"); if not, list it in `env = [..]`"
        ),
        (Source::Context, Problem::Secret) => format!(
            "`{name}` is a declared secret, so context.get gives None: read it with \
             context.secret(\"{name}\")"
        ),
    };
    emit(
        &message,
        &crate::record::Declaration {
            source: match source {
                Source::Event => "event",
                Source::Context => "context",
            },
            name,
            problem: problem.as_str(),
        },
    );
}
