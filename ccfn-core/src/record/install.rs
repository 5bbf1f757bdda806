//! Installing the process's logging: the settings (`CCFN_LOG_FORMAT`,
//! `CCFN_LOG_DETAIL`, `CCFN_LOG`), the writer thread, and the one
//! [`ContractLayer`] with its sinks.

use std::fmt;

use tracing::Level;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;

use super::emit;
use super::format::LogFormat;
use super::layer::TARGET;
use super::layer::{ContractLayer, Sink};
use crate::config::{Source, CCFN_LOG, CCFN_LOG_DETAIL, CCFN_LOG_FORMAT};

/// The log filter of `CCFN_LOG` (as `RUST_LOG`: `info`, `warn,ccfn=debug`).
///
/// # Errors
/// The filter cannot be parsed; the error quotes it and says the syntax.
pub fn parse_filter(filter: &str) -> Result<Targets, crate::error::Error> {
    filter.parse::<Targets>().map_err(|e| {
        crate::error::Error::new(
            crate::error::ErrorKind::Configuration,
            format!(
                "invalid log filter `{filter}`: {e}; expected a level (`info`) or `target=level` pairs separated by commas"
            ),
        )
    })
}

/// Keeps the process's log writer running; dropping it writes every
/// buffered line out and stops the writer. Hold it for the life of the
/// process (the runtime does).
#[must_use = "dropping the guard stops the log writer; hold it until the process ends"]
pub struct LogGuard {
    writer: crate::record::background::Background,
    reported: std::sync::atomic::AtomicUsize,
}

impl fmt::Debug for LogGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LogGuard")
            .field("dropped_lines", &self.dropped_lines())
            .finish_non_exhaustive()
    }
}

impl LogGuard {
    /// The writer thread's queue, to wait on.
    #[cfg(feature = "lambda")]
    pub(crate) fn writer(&self) -> crate::record::background::Background {
        self.writer.clone()
    }

    /// How many lines were dropped because the writer could not keep up.
    #[must_use]
    pub fn dropped_lines(&self) -> usize {
        self.writer.dropped_lines()
    }

    /// Writes a `log_dropped` record when lines were dropped since the
    /// last report. The runtime calls it every second and at shutdown.
    pub fn report_dropped(&self) {
        use std::sync::atomic::Ordering;
        let total = self.dropped_lines();
        let before = self.reported.swap(total, Ordering::Relaxed);
        if total > before {
            emit::emit(
                &format!(
                    "{} log lines dropped: the log writer could not keep up",
                    total - before
                ),
                &super::catalogue::LogDropped {
                    dropped: total - before,
                    total_dropped: total,
                },
            );
        }
    }
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        self.report_dropped();
        self.writer.flush(std::time::Duration::from_secs(5));
    }
}

/// How many messages the log writer queues (a line, or the lines of one
/// poll of an invocation) before it drops (and counts) lines rather than
/// block a handler.
pub const LOG_QUEUE_LINES: usize = 256 * 1024;

/// The logging's settings: `CCFN_LOG_FORMAT`, `CCFN_LOG_DETAIL` and
/// `CCFN_LOG`.
#[derive(Clone, Debug)]
struct LogSettings {
    /// `CCFN_LOG_FORMAT`: `pretty` (default) or `json`; with `pretty`,
    /// `CCFN_LOG_DETAIL`: `brief` (default) or `full`.
    format: LogFormat,
    /// `CCFN_LOG`: the filter (default `info`).
    filter: Targets,
}

impl LogSettings {
    /// The settings `source` has, else the defaults.
    ///
    /// # Errors
    /// `CCFN_LOG_FORMAT`, `CCFN_LOG_DETAIL` or `CCFN_LOG` cannot be
    /// parsed; the error names the variable, quotes the value and says
    /// what it accepts.
    fn from_source<S: Source + ?Sized>(source: &S) -> Result<Self, crate::config::ConfigError> {
        // The detail is checked whatever the format: a typo is reported
        // before someone switches to `pretty` and wonders.
        let full = CCFN_LOG_DETAIL.choice(source)? == Some("full");
        let format = match CCFN_LOG_FORMAT.choice(source)? {
            Some("json") => LogFormat::Json,
            Some(_) | None if full => LogFormat::PrettyFull,
            Some(_) | None => LogFormat::Pretty,
        };
        let filter = CCFN_LOG.text(source).unwrap_or("info");
        let filter = filter
            .parse::<Targets>()
            .map_err(|e| CCFN_LOG.invalid(filter, Some(&e.to_string())))?;
        Ok(LogSettings { format, filter })
    }
}

/// Installs the process's logging once: a [`ContractLayer`] in the format
/// of `CCFN_LOG_FORMAT` (`pretty` or `json`, default `pretty`) and, for
/// `pretty`, `CCFN_LOG_DETAIL` (`brief` or `full`, default `brief`),
/// filtered by `CCFN_LOG` (default `info`), all read from the process environment
/// over the `.env` file ([`crate::config::Env::load`]), writing to
/// standard output from its own thread so that a slow terminal or disk
/// never blocks a handler.
///
/// # Errors
/// `CCFN_LOG_FORMAT`, `CCFN_LOG_DETAIL` or `CCFN_LOG` cannot be parsed
/// (kind `Configuration`), or logging was already installed.
pub fn init_logging() -> Result<LogGuard, crate::error::Error> {
    init_logging_beside(None).map(|(guard, _)| guard)
}

/// [`init_logging`], handing every record to `beside` (the runtime's
/// inspector) too; and whether the filter lets through every `INFO`
/// record of the contract.
pub(crate) fn init_logging_beside(
    beside: Option<Box<dyn Sink>>,
) -> Result<(LogGuard, bool), crate::error::Error> {
    let settings = LogSettings::from_source(&crate::config::Env::load()?)?;
    // The writer thread flushes after each batch it drains, so a buffer
    // turns one write per line into one per batch.
    let stdout = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout());
    let writer = start_writer(stdout, LOG_QUEUE_LINES)?;
    let whole = settings.filter.would_enable(TARGET, &Level::INFO);
    install(
        ContractLayer::to_background(settings.format, writer.clone()),
        settings.filter,
        beside,
    )?;
    let guard = LogGuard {
        writer,
        reported: std::sync::atomic::AtomicUsize::new(0),
    };
    Ok((guard, whole))
}

/// The log writer thread, writing to `writer` through a queue of
/// `queue_lines` messages.
fn start_writer<W>(
    writer: W,
    queue_lines: usize,
) -> Result<crate::record::background::Background, crate::error::Error>
where
    W: std::io::Write + Send + 'static,
{
    crate::record::background::Background::start(
        writer,
        queue_lines,
        crate::record::background::QUEUE_BYTES,
    )
    .map_err(|e| {
        crate::error::Error::new(
            crate::error::ErrorKind::Function,
            format!("cannot start the log writer thread: {e}"),
        )
        .with_source(e)
    })
}

/// Installs the process's logging once, writing to `writer` from a thread
/// of its own through a queue of `queue_lines` messages (a line, or the
/// lines of one poll of an invocation) and 64 MiB of buffers: when the queue is
/// full, lines are dropped and counted rather than block the function (see
/// [`LogGuard::report_dropped`]).
///
/// # Errors
/// Logging was already installed in this process.
pub fn init_logging_to<W>(
    format: LogFormat,
    filter: Targets,
    writer: W,
    queue_lines: usize,
) -> Result<LogGuard, crate::error::Error>
where
    W: std::io::Write + Send + 'static,
{
    let writer = start_writer(writer, queue_lines)?;
    install(
        ContractLayer::to_background(format, writer.clone()),
        filter,
        None,
    )?;
    Ok(LogGuard {
        writer,
        reported: std::sync::atomic::AtomicUsize::new(0),
    })
}

/// Installs the process's logging once, with the given format, filter and
/// writer (written to from the thread that logs).
///
/// # Errors
/// Logging was already installed in this process.
pub fn init_logging_with<W>(
    format: LogFormat,
    filter: Targets,
    writer: W,
) -> Result<(), crate::error::Error>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    install(ContractLayer::new(format, writer), filter, None)
}

/// Installs the process's logging once: the one [`ContractLayer`],
/// `layer` (writing a format to a writer), also handing each record to
/// `beside` and, when traces are exported, to OpenTelemetry, through
/// `filter`.
fn install(
    layer: ContractLayer,
    filter: Targets,
    beside: Option<Box<dyn Sink>>,
) -> Result<(), crate::error::Error> {
    use tracing_subscriber::layer::SubscriberExt as _;
    crate::record::panic::install_hook();
    let mut layer = layer.with_filter(filter).alone();
    if let Some(beside) = beside {
        layer = layer.with_sink(beside);
    }
    // With export built in, each record inside an invocation also becomes
    // an event of its span.
    if let Some(exporter) = crate::observe::record_sink() {
        layer = layer.with_sink(exporter);
    }
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::set_global_default(subscriber).map_err(|_| {
        crate::error::Error::new(
            crate::error::ErrorKind::Function,
            "logging is already installed in this process; call init_logging once",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_settings_are_read_through_the_catalogue() {
        use crate::config::Env;
        let settings = LogSettings::from_source(&Env::default()).unwrap();
        assert_eq!(settings.format, LogFormat::Pretty);
        assert_eq!(settings.filter.to_string(), "info");
        let env = Env::from_vars([
            ("CCFN_LOG", "warn,my_functions=debug"),
            ("CCFN_LOG_FORMAT", "JSON"),
        ]);
        let settings = LogSettings::from_source(&env).unwrap();
        assert_eq!(settings.format, LogFormat::Json);
        let format = |vars: &[(&str, &str)]| {
            LogSettings::from_source(&Env::from_vars(vars.iter().copied())).map(|s| s.format)
        };
        assert_eq!(
            format(&[("CCFN_LOG_DETAIL", "full")]),
            Ok(LogFormat::PrettyFull)
        );
        assert_eq!(
            format(&[
                ("CCFN_LOG_FORMAT", "pretty"),
                ("CCFN_LOG_DETAIL", " Brief ")
            ]),
            Ok(LogFormat::Pretty)
        );
        assert_eq!(
            format(&[("CCFN_LOG_FORMAT", "json"), ("CCFN_LOG_DETAIL", "full")]),
            Ok(LogFormat::Json),
            "JSON lines always carry every field"
        );
        let error = format(&[("CCFN_LOG_FORMAT", "json"), ("CCFN_LOG_DETAIL", "all")]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "CCFN_LOG_DETAIL=\"all\": expected `brief` or `full`"
        );
        assert_eq!(error.variable(), Some("CCFN_LOG_DETAIL"));
        let error =
            LogSettings::from_source(&Env::from_vars([("CCFN_LOG_FORMAT", "xml")])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "CCFN_LOG_FORMAT=\"xml\": expected `pretty` or `json`"
        );
        let error =
            LogSettings::from_source(&Env::from_vars([("CCFN_LOG", "x=bogus")])).unwrap_err();
        assert_eq!(error.variable(), Some("CCFN_LOG"));
        assert!(
            error.to_string().starts_with("CCFN_LOG=\"x=bogus\": "),
            "{error}"
        );
        assert!(
            error.to_string().ends_with(
                "; expected a level (`info`) or `target=level` pairs separated by commas"
            ),
            "{error}"
        );
        let error = crate::error::Error::from(error);
        assert_eq!(error.kind(), crate::error::ErrorKind::Configuration);
    }

    #[test]
    fn formats_and_filters_parse() {
        assert_eq!("json".parse::<LogFormat>().unwrap(), LogFormat::Json);
        assert_eq!(" pretty ".parse::<LogFormat>().unwrap(), LogFormat::Pretty);
        let error = "xml".parse::<LogFormat>().unwrap_err();
        assert_eq!(
            error.message(),
            "unknown log format `xml`: expected `pretty` or `json`"
        );
        assert!(parse_filter("warn,ccfn=debug").is_ok());
        let error = parse_filter("ccfn=loud").unwrap_err();
        assert!(
            error
                .message()
                .starts_with("invalid log filter `ccfn=loud`"),
            "{error}"
        );
    }
}
