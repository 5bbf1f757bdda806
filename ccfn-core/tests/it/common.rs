//! What several test modules share: the process's log, in memory.

use std::sync::{Arc, Mutex, OnceLock};

use ccfn_core::record::{init_logging_with, parse_filter, LogFormat};

/// The process's log: the first call installs ccfn's JSON writer at
/// `trace` as the global subscriber, writing to memory; every module that
/// reads records shares it, each reading the lines of its own invocations
/// (by `invocation_id`).
pub(crate) fn logs() -> &'static Lines {
    static LINES: OnceLock<Lines> = OnceLock::new();
    LINES.get_or_init(|| {
        let lines = Lines::default();
        let filter = parse_filter("trace").unwrap();
        init_logging_with(LogFormat::Json, filter, lines.clone()).unwrap();
        lines
    })
}

/// Every line the process logged, in memory, shared by its clones.
#[derive(Clone, Default)]
pub(crate) struct Lines(Arc<Mutex<Vec<u8>>>);

impl Lines {
    /// Everything written so far, as text.
    pub(crate) fn contents(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl std::io::Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Lines {
    type Writer = Lines;
    fn make_writer(&'a self) -> Lines {
        self.clone()
    }
}
