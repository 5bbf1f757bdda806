//! Log capture in memory: per invocation for `invoke`, or for a whole
//! process with [`LogBuffer`].

use std::io;
use std::sync::{Arc, Mutex, MutexGuard};

use tracing_subscriber::fmt::MakeWriter;

/// An in-memory writer for a `ContractLayer` or
/// `ccfn_core::record::init_logging_with`: what it was given, shared by
/// its clones.
///
/// ```
/// use ccfn_core::record::{init_logging_with, parse_filter, LogFormat};
/// use ccfn_testkit::LogBuffer;
///
/// let logs = LogBuffer::default();
/// let filter = parse_filter("info").unwrap();
/// init_logging_with(LogFormat::Json, filter, logs.clone()).unwrap();
/// tracing::info!("hello");
/// assert_eq!(logs.records()[0]["message"], "hello");
/// ```
#[derive(Clone, Debug, Default)]
pub struct LogBuffer(Arc<Mutex<Vec<u8>>>);

/// The testkit's own name for it.
pub(crate) type Buffer = LogBuffer;

impl Buffer {
    fn lock(&self) -> MutexGuard<'_, Vec<u8>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Everything written, as text.
    #[must_use]
    pub fn contents(&self) -> String {
        String::from_utf8_lossy(&self.lock()).into_owned()
    }

    /// Every line written, parsed as a JSON record.
    ///
    /// # Panics
    /// A line is not a JSON object (the buffer was not given JSON lines).
    #[must_use]
    pub fn records(&self) -> Vec<serde_json::Map<String, serde_json::Value>> {
        self.contents()
            .lines()
            .map(|line| match serde_json::from_str(line) {
                Ok(serde_json::Value::Object(record)) => record,
                _ => panic!("a log line is not a JSON object: {line}"),
            })
            .collect()
    }
}

/// One write into a [`LogBuffer`].
#[derive(Debug)]
pub struct BufferWriter(LogBuffer);

impl io::Write for BufferWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.lock().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Buffer {
    type Writer = BufferWriter;

    fn make_writer(&'a self) -> Self::Writer {
        BufferWriter(self.clone())
    }
}
