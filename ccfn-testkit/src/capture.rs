//! Per-test log capture: the records one invocation wrote, in both formats.

use std::io;
use std::sync::{Arc, Mutex, MutexGuard};

use tracing_subscriber::fmt::MakeWriter;

/// An in-memory writer for a `ContractLayer`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Buffer {
    fn lock(&self) -> MutexGuard<'_, Vec<u8>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Everything written, as text.
    pub(crate) fn contents(&self) -> String {
        String::from_utf8_lossy(&self.lock()).into_owned()
    }
}

/// One write of a line into a [`Buffer`].
#[derive(Debug)]
pub(crate) struct BufferWriter(Buffer);

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
