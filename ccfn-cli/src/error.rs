//! Why a command of `ccfn` failed: an [`Error`] names the command and
//! what went wrong ([`Problem`], with the resource it concerns: a file, a
//! SID, a URL, an environment variable), and says the exit status it
//! means ([`Error::exit_code`], the one place that decides it).
//!
//! The text of a problem is the message the operator reads after
//! `ccfn: `. A resource is kept scrubbed and with its control characters
//! escaped from the start ([`Problem::read`] and the others), and the
//! whole message goes through [`crate::terminal::say`] when shown, as
//! every text `ccfn` writes does.

use std::fmt;
use std::process::ExitCode;

use crate::platform::PlatformError;

/// A command that failed, and why.
#[derive(Debug)]
pub(crate) struct Error {
    /// The command, as typed: `logs`, `doctor`, `calls`... Not in the
    /// message, which reads as it always has (`ccfn: ...`).
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "kept for Debug and the tests; not shown")
    )]
    command: &'static str,
    /// What went wrong.
    problem: Problem,
}

impl Error {
    /// `problem`, met by `command`: for `map_err` at a command's entry
    /// point.
    pub(crate) fn of(command: &'static str) -> impl FnOnce(Problem) -> Error {
        move |problem| Error { command, problem }
    }

    /// The command that failed, as typed (`logs`, `doctor`...).
    #[cfg(test)]
    pub(crate) fn command(&self) -> &'static str {
        self.command
    }

    /// The exit status the failure means. Every problem is the third
    /// answer of `ccfn --help`'s "Exit status": 2, "the logs cannot
    /// answer or an error" (1 is a "no", which is not an error); a new
    /// kind of problem chooses here.
    pub(crate) fn exit_code(&self) -> ExitCode {
        match &self.problem {
            Problem::Usage(_)
            | Problem::Setting { .. }
            | Problem::Tls(_)
            | Problem::Read { .. }
            | Problem::Certificate { .. }
            | Problem::Write { .. }
            | Problem::Create { .. }
            | Problem::Exists { .. }
            | Problem::Output(_)
            | Problem::Start(_)
            | Problem::Platform(_)
            | Problem::Url { .. } => ExitCode::from(2),
        }
    }
}

impl fmt::Display for Error {
    /// The problem's message: what `ccfn: ` is followed by.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.problem.fmt(f)
    }
}

impl std::error::Error for Error {}

/// What went wrong, with the resource it concerns.
#[derive(Debug)]
pub(crate) enum Problem {
    /// The options ask for what the command cannot do (`--since` after
    /// `--until`, `--follow` with two files...): the message says which.
    Usage(String),
    /// An environment variable the command needs is missing or wrong.
    Setting {
        /// The variable (`ACCOUNT_SID`, `PLATFORM_WORKSPACE_SID`...).
        #[cfg_attr(
            not(test),
            expect(
                dead_code,
                reason = "kept for Debug and the tests; the message names it"
            )
        )]
        variable: &'static str,
        /// The whole message, naming the variable.
        message: String,
    },
    /// The TLS setup (the CA certificates trusted, the HTTP client)
    /// cannot be made.
    Tls(String),
    /// A file, or standard input, cannot be read.
    Read {
        /// The file's name as given, or `standard input`.
        resource: String,
        /// Why.
        cause: String,
    },
    /// A file given as CA certificates holds none.
    Certificate {
        /// The file.
        file: String,
        /// Why the PEM parser refused it, when it did.
        cause: Option<String>,
    },
    /// A file cannot be written.
    Write {
        /// The file, or `the package` for one of its files.
        resource: String,
        /// Why.
        cause: String,
    },
    /// A directory cannot be created.
    Create {
        /// The directory.
        resource: String,
        /// Why.
        cause: String,
    },
    /// A file or directory to create exists already.
    Exists {
        /// Its path.
        resource: String,
    },
    /// Standard output cannot be written (a closed pipe is not a problem).
    Output(String),
    /// The command's asynchronous runtime cannot start.
    Start(std::io::Error),
    /// The platform refused a request, failed, or answered what cannot
    /// be read; the resource asked for is in the error.
    Platform(PlatformError),
    /// `probe`'s URL is not one it can test.
    Url {
        /// The URL as given (its password shown `[REDACTED]`).
        url: String,
        /// What it is not, e.g. `not an http or https URL`.
        why: String,
    },
}

/// `text` as a problem holds a resource: every secret scrubbed, a URL's
/// password `[REDACTED]`, control characters escaped.
fn shown(text: &str) -> String {
    crate::terminal::visible(&crate::terminal::clean(text)).into_owned()
}

impl Problem {
    /// `resource` cannot be read, because of `cause`.
    pub(crate) fn read(resource: &str, cause: impl fmt::Display) -> Problem {
        Problem::Read {
            resource: shown(resource),
            cause: cause.to_string(),
        }
    }

    /// `resource` cannot be written, because of `cause`.
    pub(crate) fn write(resource: &str, cause: impl fmt::Display) -> Problem {
        Problem::Write {
            resource: shown(resource),
            cause: cause.to_string(),
        }
    }

    /// The directory `resource` cannot be created, because of `cause`.
    pub(crate) fn create(resource: &str, cause: impl fmt::Display) -> Problem {
        Problem::Create {
            resource: shown(resource),
            cause: cause.to_string(),
        }
    }

    /// `resource` exists already.
    pub(crate) fn exists(resource: &str) -> Problem {
        Problem::Exists {
            resource: shown(resource),
        }
    }

    /// The URL given, `url`, is `why` (e.g. `not a URL: ...`).
    pub(crate) fn url(url: &str, why: String) -> Problem {
        Problem::Url {
            url: shown(url),
            why,
        }
    }

    /// `file` holds no PEM certificate.
    pub(crate) fn certificate(file: &str, cause: Option<String>) -> Problem {
        Problem::Certificate {
            file: shown(file),
            cause,
        }
    }

    /// `message`, about the environment variable `variable`.
    pub(crate) fn setting(variable: &'static str, message: impl Into<String>) -> Problem {
        Problem::Setting {
            variable,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Usage(message) | Problem::Setting { message, .. } | Problem::Tls(message) => {
                f.write_str(message)
            }
            Problem::Read { resource, cause } => write!(f, "cannot read {resource}: {cause}"),
            Problem::Certificate { file, cause: None } => {
                write!(f, "{file} holds no PEM certificate")
            }
            Problem::Certificate {
                file,
                cause: Some(cause),
            } => write!(f, "{file} holds no PEM certificate: {cause}"),
            Problem::Write { resource, cause } => write!(f, "cannot write {resource}: {cause}"),
            Problem::Create { resource, cause } => write!(f, "cannot create {resource}: {cause}"),
            Problem::Exists { resource } => write!(f, "{resource} exists already"),
            Problem::Output(cause) => write!(f, "cannot write: {cause}"),
            Problem::Start(cause) => write!(f, "cannot start: {cause}"),
            Problem::Platform(err) => err.fmt(f),
            Problem::Url { url, why } => write!(f, "`{url}` is {why}"),
        }
    }
}

impl From<PlatformError> for Problem {
    fn from(err: PlatformError) -> Problem {
        Problem::Platform(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_is_as_before_and_every_problem_exits_2() {
        let cases = [
            (
                Problem::read("app.log", "No such file"),
                "cannot read app.log: No such file",
            ),
            (
                Problem::write("out/README.md", "denied"),
                "cannot write out/README.md: denied",
            ),
            (Problem::exists("out/p"), "out/p exists already"),
            (
                Problem::url("ftp://h/", "not an http or https URL".to_owned()),
                "`ftp://h/` is not an http or https URL",
            ),
            (
                Problem::certificate("ca.pem", None),
                "ca.pem holds no PEM certificate",
            ),
            (Problem::Output("broken".to_owned()), "cannot write: broken"),
            (
                Problem::setting("ACCOUNT_SID", "ACCOUNT_SID is not set"),
                "ACCOUNT_SID is not set",
            ),
        ];
        for (problem, message) in cases {
            let err = Error::of("doctor")(problem);
            assert_eq!(err.to_string(), message);
            assert_eq!(err.command(), "doctor");
            assert_eq!(err.exit_code(), ExitCode::from(2));
            if let Problem::Setting { variable, .. } = &err.problem {
                assert_eq!(*variable, "ACCOUNT_SID");
            }
        }
    }

    #[test]
    fn a_resource_is_kept_without_password_or_control_character() {
        let problem = Problem::url("https://u:hunter2pass@h.example/\x1b[2J", "x".to_owned());
        let Problem::Url { url, .. } = &problem else {
            unreachable!()
        };
        assert!(!url.contains("hunter2pass"), "{url}");
        assert!(!url.contains('\x1b'), "{url}");
        assert!(url.contains("\\x1b"), "{url}");
        let problem = Problem::read("lo\x07g", "gone");
        assert!(matches!(problem, Problem::Read { ref resource, .. } if resource == "lo\\x07g"));
    }
}
