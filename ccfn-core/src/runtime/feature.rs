//! What the runtime serves: features, each a set of functions at paths.

use std::fmt;
use std::sync::Arc;

use crate::function::ContactFunction;

/// The name of the context value that holds the account's auth token,
/// the key of request signatures.
pub(super) const AUTH_TOKEN: &str = "AUTH_TOKEN";

/// A feature: functions served under `/features/<name>/`.
#[must_use = "give the feature to Runtime::feature"]
pub struct Feature {
    pub(super) name: String,
    pub(super) functions: Vec<Registered>,
}

impl fmt::Debug for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Feature")
            .field("name", &self.name)
            .field(
                "functions",
                &self.functions.iter().map(|r| &r.path).collect::<Vec<_>>(),
            )
            .finish()
    }
}

pub(super) struct Registered {
    pub(super) feature: String,
    pub(super) path: String,
    pub(super) function: Arc<dyn ContactFunction>,
    pub(super) public: bool,
}

impl Registered {
    pub(super) fn url_path(&self) -> String {
        format!("/features/{}/{}", self.feature, self.path)
    }
}

impl Feature {
    /// A feature named `name` (ASCII letters, digits, `-`, `_`, `.`).
    pub fn new(name: impl Into<String>) -> Self {
        Feature {
            name: name.into(),
            functions: Vec::new(),
        }
    }

    /// Serves `function` at `path` (segments separated by `/`, such as
    /// `studio/wait-experience`); requests must carry a valid platform
    /// signature.
    pub fn function(self, path: impl Into<String>, function: impl ContactFunction) -> Self {
        self.register(path.into(), Arc::new(function), false)
    }

    /// Serves `function` at `path` without checking request signatures:
    /// anyone who knows the URL can invoke it.
    pub fn public_function(self, path: impl Into<String>, function: impl ContactFunction) -> Self {
        self.register(path.into(), Arc::new(function), true)
    }

    fn register(mut self, path: String, function: Arc<dyn ContactFunction>, public: bool) -> Self {
        self.functions.push(Registered {
            feature: self.name.clone(),
            path,
            function,
            public,
        });
        self
    }
}
