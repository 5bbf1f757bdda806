//! The CA certificates ccfn's HTTP clients verify HTTPS servers with:
//! the system's (`SSL_CERT_FILE`, `SSL_CERT_DIR` or the usual paths), or
//! the Mozilla roots built into ccfn, as `CCFN_TLS_ROOTS` says. Loaded
//! once per set of these settings, and when the runtime starts, so that an
//! image without certificates is found at start, not at the first call.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rustls::pki_types::CertificateDer;

use crate::config::{self, Env, Source};
use crate::error::{Error, ErrorKind};

/// Where the certificates of a [`TlsRoots`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RootsOrigin {
    /// The system's: the files `SSL_CERT_FILE` and `SSL_CERT_DIR` name
    /// when set, else the usual paths (the `ca-certificates` package's),
    /// a corporate CA installed there included.
    System,
    /// The Mozilla roots built into ccfn, as `CCFN_TLS_ROOTS=builtin`
    /// asks.
    Builtin,
    /// The Mozilla roots built into ccfn because the system has none
    /// (`CCFN_TLS_ROOTS=auto`, an image without `ca-certificates`).
    BuiltinFallback,
}

/// The CA certificates the clients trust; cheap to clone.
///
/// A plain `http://` call never needs them: a client builds from any set,
/// an empty one included.
#[derive(Clone)]
pub struct TlsRoots {
    certificates: Arc<[reqwest::Certificate]>,
    origin: RootsOrigin,
}

impl fmt::Debug for TlsRoots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsRoots")
            .field("certificates", &self.certificates.len())
            .field("origin", &self.origin)
            .finish()
    }
}

impl fmt::Display for TlsRoots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.certificates.len();
        match self.origin {
            RootsOrigin::System => write!(f, "the system's {count} CA certificates"),
            RootsOrigin::Builtin => write!(f, "the {count} Mozilla roots built into ccfn"),
            RootsOrigin::BuiltinFallback => write!(
                f,
                "the {count} Mozilla roots built into ccfn, as the system has no CA certificates"
            ),
        }
    }
}

/// How to get certificates onto a machine, said by every error.
const FIX: &str = "install the CA certificates (`apt-get install ca-certificates` on Debian and Ubuntu, `apk add ca-certificates` on Alpine), point SSL_CERT_FILE at a PEM bundle of CA certificates, or set CCFN_TLS_ROOTS=builtin to use the Mozilla roots built into ccfn";

/// The settings that decide the roots, as set: the cache's key.
type Key = (Option<String>, Option<String>, Option<String>);

impl TlsRoots {
    /// The roots `source`'s `CCFN_TLS_ROOTS`, `SSL_CERT_FILE` and
    /// `SSL_CERT_DIR` say, read once per set of these values and shared.
    ///
    /// # Errors
    /// Kind `Configuration`, with a message that names the certificates,
    /// what is missing and how to fix it: `CCFN_TLS_ROOTS` is none of its
    /// words; `SSL_CERT_FILE` or `SSL_CERT_DIR` names something that
    /// cannot be read; or `CCFN_TLS_ROOTS=system` and the system has no
    /// CA certificates.
    pub fn load<S: Source + ?Sized>(source: &S) -> Result<TlsRoots, Error> {
        static LOADED: Mutex<Vec<(Key, TlsRoots)>> = Mutex::new(Vec::new());
        let key: Key = (
            config::CCFN_TLS_ROOTS
                .text(source)
                .map(str::to_ascii_lowercase),
            config::SSL_CERT_FILE.text(source).map(str::to_owned),
            config::SSL_CERT_DIR.text(source).map(str::to_owned),
        );
        if let Some((_, roots)) = LOADED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(k, _)| *k == key)
        {
            return Ok(roots.clone());
        }
        // Read outside the lock: the system's store is a few hundred kB.
        let roots = TlsRoots::read(source)?;
        let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
        if !loaded.iter().any(|(k, _)| *k == key) {
            loaded.push((key, roots.clone()));
        }
        Ok(roots)
    }

    /// [`TlsRoots::load`] with the process environment over the `.env`
    /// file ([`Env::load`]): the roots of a client made outside a
    /// [`crate::Context`], and of the `ccfn` command.
    ///
    /// # Errors
    /// The `.env` file cannot be read, or as [`TlsRoots::load`].
    pub fn from_env() -> Result<TlsRoots, Error> {
        TlsRoots::load(&Env::load()?)
    }

    /// The Mozilla roots built into ccfn.
    #[must_use]
    pub fn builtin() -> TlsRoots {
        TlsRoots::of(
            webpki_root_certs::TLS_SERVER_ROOT_CERTS.iter(),
            RootsOrigin::Builtin,
        )
    }

    /// How many certificates there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.certificates.len()
    }

    /// Whether there are none (no HTTPS server can then be verified;
    /// plain HTTP still works).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.certificates.is_empty()
    }

    /// Where they came from.
    #[must_use]
    pub fn origin(&self) -> RootsOrigin {
        self.origin
    }

    /// `builder` trusting these certificates only: how ccfn's clients,
    /// and the `ccfn` command's, are built.
    pub fn apply(&self, builder: reqwest::ClientBuilder) -> reqwest::ClientBuilder {
        builder.tls_certs_only(self.certificates())
    }

    /// The certificates, for a client [`TlsRoots::apply`] cannot build
    /// (the OpenTelemetry exporters' blocking one).
    pub(crate) fn certificates(&self) -> impl Iterator<Item = reqwest::Certificate> + '_ {
        self.certificates.iter().cloned()
    }

    /// No certificates at all: plain HTTP only.
    #[cfg(test)]
    pub(crate) fn none() -> TlsRoots {
        TlsRoots::of([].iter(), RootsOrigin::System)
    }

    /// The certificates of `ders` that rustls accepts as trust anchors
    /// (a system store may hold some it does not; they are left out, as
    /// reqwest would refuse the whole set for one).
    fn of<'a>(ders: impl Iterator<Item = &'a CertificateDer<'a>>, origin: RootsOrigin) -> Self {
        let mut scratch = rustls::RootCertStore::empty();
        let certificates: Vec<reqwest::Certificate> = ders
            .filter(|der| scratch.add((*der).clone().into_owned()).is_ok())
            .filter_map(|der| reqwest::Certificate::from_der(der).ok())
            .collect();
        TlsRoots {
            certificates: certificates.into(),
            origin,
        }
    }

    /// Reads the roots the settings say, uncached.
    fn read<S: Source + ?Sized>(source: &S) -> Result<TlsRoots, Error> {
        let mode = config::CCFN_TLS_ROOTS.choice(source)?.unwrap_or("auto");
        if mode == "builtin" {
            return Ok(TlsRoots::builtin());
        }
        let file = config::SSL_CERT_FILE.text(source);
        let dirs = config::SSL_CERT_DIR.text(source);
        let (certificates, named) = if file.is_some() || dirs.is_some() {
            (read_named(file, dirs)?, true)
        } else {
            // The usual paths; errors there only matter when nothing is
            // found, which is said below.
            (rustls_native_certs::load_native_certs().certs, false)
        };
        let roots = TlsRoots::of(certificates.iter(), RootsOrigin::System);
        if !roots.is_empty() {
            return Ok(roots);
        }
        if mode == "auto" {
            return Ok(TlsRoots {
                origin: RootsOrigin::BuiltinFallback,
                ..TlsRoots::builtin()
            });
        }
        let place = if named {
            let mut named = Vec::new();
            if let Some(file) = file {
                named.push(format!("SSL_CERT_FILE={file:?}"));
            }
            if let Some(dirs) = dirs {
                named.push(format!("SSL_CERT_DIR={dirs:?}"));
            }
            named.join(" and ")
        } else {
            "the system's store".to_owned()
        };
        Err(Error::new(
            ErrorKind::Configuration,
            format!(
                "no CA certificates to verify HTTPS servers with: {place} holds none, and CCFN_TLS_ROOTS=system trusts only the system's; {FIX}"
            ),
        ))
    }
}

/// The certificates of the file and directories the operator named: any
/// of them that cannot be read is an error, since it was asked for.
fn read_named(
    file: Option<&str>,
    dirs: Option<&str>,
) -> Result<Vec<CertificateDer<'static>>, Error> {
    let mut certificates = Vec::new();
    let mut errors = Vec::new();
    let mut read = |file: Option<&Path>, dir: Option<&Path>, variable: &str| {
        let result = rustls_native_certs::load_certs_from_paths(file, dir);
        certificates.extend(result.certs);
        errors.extend(
            result
                .errors
                .into_iter()
                .map(|error| format!("{variable}: {error}")),
        );
    };
    if let Some(file) = file {
        read(Some(Path::new(file)), None, "SSL_CERT_FILE");
    }
    if let Some(dirs) = dirs {
        let dirs: Vec<PathBuf> = std::env::split_paths(dirs)
            .filter(|dir| !dir.as_os_str().is_empty())
            .collect();
        for dir in &dirs {
            read(None, Some(dir), "SSL_CERT_DIR");
        }
    }
    if errors.is_empty() {
        Ok(certificates)
    } else {
        Err(Error::new(
            ErrorKind::Configuration,
            format!(
                "cannot read the CA certificates to verify HTTPS servers with ({}); point SSL_CERT_FILE at a readable PEM bundle of CA certificates and SSL_CERT_DIR at readable directories, or unset them to use the system's store; or {FIX}",
                errors.join("; ")
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of its own under the system's temporary directory.
    fn empty_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ccfn-tls-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn env(vars: &[(&str, &str)]) -> Env {
        Env::from_vars(vars.iter().copied())
    }

    #[test]
    fn system_roots_only_and_none_found_stops_with_what_to_do() {
        let dir = empty_dir("system-none");
        let dir = dir.to_str().unwrap();
        let error = TlsRoots::load(&env(&[("CCFN_TLS_ROOTS", "system"), ("SSL_CERT_DIR", dir)]))
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Configuration);
        assert_eq!(
            error.message(),
            format!(
                "no CA certificates to verify HTTPS servers with: SSL_CERT_DIR={dir:?} holds none, and CCFN_TLS_ROOTS=system trusts only the system's; install the CA certificates (`apt-get install ca-certificates` on Debian and Ubuntu, `apk add ca-certificates` on Alpine), point SSL_CERT_FILE at a PEM bundle of CA certificates, or set CCFN_TLS_ROOTS=builtin to use the Mozilla roots built into ccfn"
            )
        );
    }

    #[test]
    fn a_named_file_that_cannot_be_read_stops_and_is_named() {
        let dir = empty_dir("missing-file");
        let file = dir.join("no-such-bundle.pem");
        let file = file.to_str().unwrap();
        let error = TlsRoots::load(&env(&[("SSL_CERT_FILE", file)])).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Configuration);
        let message = error.message();
        assert!(
            message.starts_with(
                "cannot read the CA certificates to verify HTTPS servers with (SSL_CERT_FILE: "
            ) && message.contains(file)
                && message
                    .contains("install the CA certificates (`apt-get install ca-certificates`"),
            "{message}"
        );
    }

    #[test]
    fn auto_falls_back_to_the_built_in_roots_and_builtin_uses_them() {
        let dir = empty_dir("auto-none");
        let roots = TlsRoots::load(&env(&[("SSL_CERT_DIR", dir.to_str().unwrap())])).unwrap();
        assert_eq!(roots.origin(), RootsOrigin::BuiltinFallback);
        assert!(roots.len() > 100, "{roots:?}");
        assert!(roots
            .to_string()
            .ends_with("Mozilla roots built into ccfn, as the system has no CA certificates"));
        let builtin = TlsRoots::load(&env(&[("CCFN_TLS_ROOTS", "builtin")])).unwrap();
        assert_eq!(builtin.origin(), RootsOrigin::Builtin);
        assert_eq!(builtin.len(), roots.len());
    }

    #[test]
    fn a_named_bundle_is_read() {
        // The built-in roots, written as a PEM bundle.
        use base64::Engine as _;
        let dir = empty_dir("bundle");
        let mut pem = String::new();
        for der in webpki_root_certs::TLS_SERVER_ROOT_CERTS.iter().take(3) {
            let text = base64::engine::general_purpose::STANDARD.encode(der.as_ref());
            pem.push_str("-----BEGIN CERTIFICATE-----\n");
            for line in text.as_bytes().chunks(64) {
                pem.push_str(std::str::from_utf8(line).unwrap());
                pem.push('\n');
            }
            pem.push_str("-----END CERTIFICATE-----\n");
        }
        let file = dir.join("bundle.pem");
        std::fs::write(&file, pem).unwrap();
        let roots = TlsRoots::load(&env(&[
            ("CCFN_TLS_ROOTS", "system"),
            ("SSL_CERT_FILE", file.to_str().unwrap()),
        ]))
        .unwrap();
        assert_eq!(roots.origin(), RootsOrigin::System);
        assert_eq!(roots.len(), 3);
    }

    #[test]
    fn a_bad_choice_is_a_configuration_error() {
        let error = TlsRoots::load(&env(&[("CCFN_TLS_ROOTS", "native")])).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Configuration);
        assert!(error.message().starts_with("CCFN_TLS_ROOTS=\"native\""));
    }
}
