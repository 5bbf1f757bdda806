//! What a call did, in order: what the caller heard and did, each request
//! the platform made, and how the call ended.

use std::fmt;

/// One line of a [`Transcript`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// The platform requested a URL: method, path and query (no host),
    /// the parameters it added to the call's own (ids left out), and the
    /// status answered.
    Request {
        /// `GET` or `POST`.
        method: String,
        /// The path and query requested.
        path: String,
        /// The parameters beyond the call's standard ones, in order.
        params: Vec<(String, String)>,
        /// The HTTP status answered, 0 when the request failed.
        status: u16,
    },
    /// The caller heard a verb: `Say` and its words, `Play` and its URL,
    /// `Pause` and its seconds.
    Heard {
        /// The verb.
        verb: String,
        /// What was heard.
        text: String,
    },
    /// What the caller did: pressed keys, spoke, waited, hung up.
    Caller(String),
    /// Something the platform did: a recording made, a queue entered or
    /// left, a dial's outcome.
    Platform(String),
    /// A verb the interpreter read but does not simulate: the call goes
    /// on with the next verb, as the transcript says.
    NotSimulated {
        /// The verb.
        verb: String,
    },
    /// The call ended, and why.
    Ended(String),
    /// The call was stopped: a function failed, a document could not be
    /// read, or a limit was reached.
    Error(String),
}

impl Entry {
    /// The bytes of its texts.
    fn bytes(&self) -> usize {
        match self {
            Entry::Request {
                method,
                path,
                params,
                ..
            } => {
                method.len()
                    + path.len()
                    + params.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>()
            }
            Entry::Heard { verb, text } => verb.len() + text.len(),
            Entry::Caller(text)
            | Entry::Platform(text)
            | Entry::Ended(text)
            | Entry::Error(text) => text.len(),
            Entry::NotSimulated { verb } => verb.len(),
        }
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entry::Request {
                method,
                path,
                params,
                status,
            } => {
                write!(f, "-> {method} {path}")?;
                if !params.is_empty() {
                    let params: Vec<String> =
                        params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    write!(f, " [{}]", params.join(", "))?;
                }
                write!(f, " => {status}")
            }
            Entry::Heard { verb, text } => write!(f, "   hears ({verb}): {text}"),
            Entry::Caller(what) => write!(f, "caller {what}"),
            Entry::Platform(what) => write!(f, "   platform: {what}"),
            Entry::NotSimulated { verb } => {
                write!(f, "   <{verb}> heard but not simulated")
            }
            Entry::Ended(why) => write!(f, "ended: {why}"),
            Entry::Error(why) => write!(f, "ERROR: {why}"),
        }
    }
}

/// Everything a call did, in order. Its `Display` is stable (no times,
/// no ids, no ports): one entry per line, for `insta` snapshots.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transcript {
    entries: Vec<Entry>,
    /// The bytes of the entries' texts.
    bytes: usize,
}

impl Transcript {
    /// Every entry, in order.
    #[must_use]
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub(crate) fn push(&mut self, entry: Entry) {
        self.bytes += entry.bytes();
        self.entries.push(entry);
    }

    /// The bytes of the entries' texts: what the transcript holds.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// What the caller heard from entry `from` on, each as its words.
    #[must_use]
    pub fn heard_since(&self, from: usize) -> Vec<&str> {
        self.entries
            .iter()
            .skip(from)
            .filter_map(|entry| match entry {
                Entry::Heard { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The first error, when the call was stopped by one.
    #[must_use]
    pub fn error(&self) -> Option<&str> {
        self.entries.iter().find_map(|entry| match entry {
            Entry::Error(why) => Some(why.as_str()),
            _ => None,
        })
    }
}

impl fmt::Display for Transcript {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for entry in &self.entries {
            writeln!(f, "{entry}")?;
        }
        Ok(())
    }
}
