//! The process's log writer: lines go to a thread of their own through a
//! bounded queue, so a slow terminal or disk never blocks a function.
//!
//! Lines written while an invocation is being polled are gathered on the
//! polling thread and queued together when the poll ends: one queue
//! message, one wake-up of the writer, instead of one per record. The
//! writer thread drains the queue, writes, flushes, and rests a
//! millisecond so that, under load, senders rarely have to wake it. When
//! the queue is full, lines are dropped and counted, never waited for.
//! Where the process may be frozen after a reply (AWS Lambda), the
//! runtime awaits [`Background::written`] before each reply: one more
//! message on the queue, answered once everything before it is written.
//!
//! A batch's buffer, once written, goes back to the writer's spares and
//! is filled again by the next batch. Freed on the writer thread and made
//! anew on a worker, it had the allocator hand the top of the worker's
//! heap back to the kernel and fault it in again: page faults on every
//! request, system time that instruction counts do not see.

use std::cell::RefCell;
use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;

enum Message {
    Lines(Vec<u8>),
    Flush(SyncSender<()>),
    /// Like `Flush`, for a task that awaits it rather than block a thread.
    #[cfg_attr(not(feature = "lambda"), allow(dead_code))]
    Written(tokio::sync::oneshot::Sender<()>),
}

struct Shared {
    queue: SyncSender<Message>,
    dropped: AtomicUsize,
    /// What the writer thread shares with the senders.
    ledger: Arc<Ledger>,
    /// The most bytes the queued buffers may take.
    max_bytes: usize,
}

/// Kept by the writer thread and the senders together (not in [`Shared`],
/// whose queue the writer thread must not hold open).
#[derive(Default)]
struct Ledger {
    /// Bytes held by queued buffers (their capacity: what they take of
    /// memory, not only what they hold of lines), not yet written.
    queued: AtomicUsize,
    /// Written batches' buffers, emptied, for the next batches.
    spare: Mutex<Vec<Vec<u8>>>,
}

/// How many written buffers are kept for the next batches: as many as
/// the batches of a busy server's millisecond (the writer's rest), so
/// that under load a batch is almost never made anew. They hold at most
/// 64 × 64 KiB, and 64 × 8 KiB for this crate's examples.
const SPARES: usize = 64;

impl Ledger {
    /// An empty buffer with room for `room` bytes: a spare when one is
    /// free (never waiting for the writer thread to give one up), else a
    /// new one.
    fn buffer(&self, room: usize) -> String {
        let spare = self.spare.try_lock().ok().and_then(|mut spare| spare.pop());
        match spare.map(String::from_utf8) {
            Some(Ok(mut lines)) => {
                lines.reserve(room);
                lines
            }
            _ => String::with_capacity(room),
        }
    }

    /// Takes back a written buffer (waiting for the lock: on the writer's
    /// thread), unless enough are kept or its size is not a batch's (see
    /// [`Ledger::keep`]).
    fn give_back(&self, lines: Vec<u8>) {
        if let Ok(mut spare) = self.spare.lock() {
            Self::keep(&mut spare, lines);
        }
    }

    /// [`Ledger::give_back`] for a buffer that was not queued (its lines
    /// dropped), on a worker: never waiting for the lock.
    fn give_back_if_free(&self, lines: Vec<u8>) {
        if let Ok(mut spare) = self.spare.try_lock() {
            Self::keep(&mut spare, lines);
        }
    }

    /// Keeps `lines`, emptied, among `spare`, unless it holds `SPARES`
    /// already or the buffer's size is not a batch's (a line queued
    /// alone, under `MIN_BATCH_BYTES`, or a buffer grown past twice a
    /// batch's size by one long line): the spares hold at most `SPARES`
    /// batches' worth.
    fn keep(spare: &mut Vec<Vec<u8>>, mut lines: Vec<u8>) {
        if spare.len() < SPARES && (MIN_BATCH_BYTES..=2 * BATCH_BYTES).contains(&lines.capacity()) {
            lines.clear();
            spare.push(lines);
        }
    }
}

/// The most bytes the queued buffers take (their capacity, not only the
/// lines they hold): past it, lines are dropped and counted, so a sink
/// that stops reading cannot make memory grow without bound.
pub(crate) const QUEUE_BYTES: usize = 64 * 1024 * 1024;

impl Shared {
    /// Queues `lines` (`count` of them); counts them as dropped when the
    /// queue is full.
    fn send(&self, lines: Vec<u8>, count: usize) {
        // What the buffer takes of memory, not only what it holds.
        let size = lines.capacity();
        let queued = &self.ledger.queued;
        if queued.fetch_add(size, Ordering::AcqRel) + size > self.max_bytes {
            queued.fetch_sub(size, Ordering::AcqRel);
            self.dropped.fetch_add(count, Ordering::Relaxed);
            self.ledger.give_back_if_free(lines);
            return;
        }
        match self.queue.try_send(Message::Lines(lines)) {
            Ok(()) => {}
            Err(TrySendError::Full(message) | TrySendError::Disconnected(message)) => {
                queued.fetch_sub(size, Ordering::AcqRel);
                self.dropped.fetch_add(count, Ordering::Relaxed);
                if let Message::Lines(lines) = message {
                    self.ledger.give_back_if_free(lines);
                }
            }
        }
    }
}

/// A non-blocking writer for a [`crate::record::ContractLayer`]; cheap to clone.
#[derive(Clone)]
pub(crate) struct Background {
    shared: Arc<Shared>,
}

thread_local! {
    /// Lines of the current poll, and the writer they are for.
    static BATCH: RefCell<Option<Batch>> = const { RefCell::new(None) };
    /// Whether this thread gathers its lines into a batch now.
    static BATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// How many bytes this thread's last batch held: the next is made
    /// with room for as many (to the next power of two), so that it is
    /// not grown, and copied, line by line.
    static LAST_BATCH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The lines of the current poll, how many, and the writer they are for.
struct Batch {
    shared: Arc<Shared>,
    lines: String,
    count: usize,
}

/// Lines gathered past this size are queued at once.
const BATCH_BYTES: usize = 32 * 1024;
/// The least room a batch is made with.
const MIN_BATCH_BYTES: usize = 4 * 1024;

impl Background {
    /// Starts the writer thread, writing to `out` through a queue of
    /// `capacity` messages and at most `max_bytes` bytes.
    pub(crate) fn start<W: Write + Send + 'static>(
        out: W,
        capacity: usize,
        max_bytes: usize,
    ) -> io::Result<Self> {
        let (queue, messages) = mpsc::sync_channel(capacity.max(1));
        let ledger = Arc::new(Ledger::default());
        let writer = Arc::clone(&ledger);
        std::thread::Builder::new()
            .name("ccfn-log-writer".into())
            .spawn(move || write_all(out, &messages, &writer))?;
        Ok(Background {
            shared: Arc::new(Shared {
                queue,
                dropped: AtomicUsize::new(0),
                ledger,
                max_bytes,
            }),
        })
    }

    /// Lines dropped so far because the queue was full.
    pub(crate) fn dropped_lines(&self) -> usize {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Queues this thread's gathered lines, then waits (up to `wait`) for
    /// everything queued to be written out.
    pub(crate) fn flush(&self, wait: Duration) {
        flush_batch();
        let (done, written) = mpsc::sync_channel(1);
        // The flush request must not be dropped: wait for room.
        if self.shared.queue.send(Message::Flush(done)).is_ok() {
            let _ = written.recv_timeout(wait);
        }
    }

    /// [`Background::flush`] for async code: queues this thread's
    /// gathered lines, then waits (up to `wait`) without blocking its
    /// thread until everything queued so far is written out and the
    /// output flushed. One message on the queue and one wake-up of the
    /// writer thread; nothing on the way of lines that are not waited for.
    #[cfg_attr(not(feature = "lambda"), allow(dead_code))]
    pub(crate) async fn written(&self, wait: Duration) {
        flush_batch();
        let (done, written) = tokio::sync::oneshot::channel();
        match self.shared.queue.try_send(Message::Written(done)) {
            Ok(()) => {
                let _ = tokio::time::timeout(wait, written).await;
            }
            // The request must not be dropped: wait for room, off the
            // async threads.
            Err(TrySendError::Full(_)) => {
                let writer = self.clone();
                let _ = tokio::task::spawn_blocking(move || writer.flush(wait)).await;
            }
            Err(TrySendError::Disconnected(_)) => {}
        }
    }
}

/// The writer thread: drain, write, flush, rest.
fn write_all<W: Write>(mut out: W, messages: &Receiver<Message>, ledger: &Ledger) {
    // A failed write cannot be logged anywhere; the line is lost, the
    // writer goes on.
    let handle = |message: Message, out: &mut W| match message {
        Message::Lines(lines) => {
            let _ = out.write_all(&lines);
            ledger.queued.fetch_sub(lines.capacity(), Ordering::AcqRel);
            ledger.give_back(lines);
        }
        Message::Flush(done) => {
            let _ = out.flush();
            let _ = done.send(());
        }
        Message::Written(done) => {
            let _ = out.flush();
            let _ = done.send(());
        }
    };
    while let Ok(first) = messages.recv() {
        handle(first, &mut out);
        while let Ok(next) = messages.try_recv() {
            handle(next, &mut out);
        }
        let _ = out.flush();
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Runs `f` (one poll of an invocation) with the lines this thread writes
/// gathered, then queues them together.
pub(crate) fn batched<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            BATCHING.with(|batching| batching.set(self.0));
            if !self.0 {
                flush_batch();
            }
        }
    }
    let _reset = Reset(BATCHING.with(|batching| batching.replace(true)));
    f()
}

/// Queues the lines this thread gathered.
fn flush_batch() {
    let pending = BATCH.with(|batch| batch.borrow_mut().take());
    if let Some(batch) = pending
        && batch.count > 0
    {
        LAST_BATCH.with(|last| last.set(batch.lines.len()));
        batch.shared.send(batch.lines.into_bytes(), batch.count);
    }
}

impl Background {
    /// Writes one line, ending in its newline, with `write`, straight
    /// into this thread's batch while it gathers one (see [`batched`]),
    /// else into a buffer of its own, queued at once: a line written
    /// in place, not written and then copied.
    pub(crate) fn write_line(&self, write: impl FnOnce(&mut String)) {
        write_line(&self.shared, write);
    }
}

/// [`Background::write_line`] for the writer `shared`.
fn write_line(shared: &Arc<Shared>, write: impl FnOnce(&mut String)) {
    let mut write = Some(write);
    if BATCHING.with(std::cell::Cell::get) {
        let full = BATCH.with(|batch| {
            // A line written while this thread writes another (in
            // place) goes on its own.
            let mut batch = batch.try_borrow_mut().ok()?;
            let current = match batch.as_mut() {
                Some(current) if Arc::ptr_eq(&current.shared, shared) => current,
                _ => {
                    if let Some(other) = batch.take() {
                        other.shared.send(other.lines.into_bytes(), other.count);
                    }
                    let room = LAST_BATCH
                        .with(std::cell::Cell::get)
                        .clamp(MIN_BATCH_BYTES, BATCH_BYTES)
                        .next_power_of_two();
                    batch.insert(Batch {
                        shared: Arc::clone(shared),
                        lines: shared.ledger.buffer(room),
                        count: 0,
                    })
                }
            };
            (write.take()?)(&mut current.lines);
            current.count += 1;
            Some(current.lines.len() >= BATCH_BYTES)
        });
        if full == Some(true) {
            flush_batch();
        }
    }
    if let Some(write) = write {
        let mut line = String::with_capacity(512);
        write(&mut line);
        shared.send(line.into_bytes(), 1);
    }
}

/// One line, written by the layer.
pub(crate) struct Line {
    shared: Arc<Shared>,
}

impl Write for Line {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        // The layer's lines are text; anything else is shown as text.
        let line = String::from_utf8_lossy(bytes);
        write_line(&self.shared, |lines| lines.push_str(&line));
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Background {
    type Writer = Line;

    fn make_writer(&'a self) -> Line {
        Line {
            shared: Arc::clone(&self.shared),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Never finishes its first write until told.
    struct Stuck(mpsc::Receiver<()>);

    impl Write for Stuck {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let _ = self.0.recv();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_sink_that_stops_reading_cannot_grow_memory_past_the_budget() {
        let (release, stuck) = mpsc::channel();
        let writer = Background::start(Stuck(stuck), 1_000, 1_000).unwrap();
        let line = vec![b'x'; 99];
        for _ in 0..100 {
            let mut with_newline = line.clone();
            with_newline.push(b'\n');
            writer.make_writer().write_all(&with_newline).unwrap();
        }
        // At most 1000 bytes (10 lines) wait; the rest are counted.
        assert!(writer.dropped_lines() >= 89, "{}", writer.dropped_lines());
        assert!(writer.shared.ledger.queued.load(Ordering::Acquire) <= 1_000);
        drop(release);
    }

    /// The queue's budget counts what buffers take, not the lines they
    /// hold: a batch's 4 KiB buffer does not fit a budget of 1 000 bytes,
    /// whatever it holds, and is dropped; its buffer joins the spares.
    #[test]
    fn a_dropped_batch_counts_its_buffer_and_leaves_it_for_the_next() {
        let (release, stuck) = mpsc::channel();
        let writer = Background::start(Stuck(stuck), 1_000, 1_000).unwrap();
        batched(|| writer.make_writer().write_all(b"short\n").unwrap());
        assert_eq!(writer.dropped_lines(), 1);
        assert_eq!(writer.shared.ledger.queued.load(Ordering::Acquire), 0);
        assert_eq!(writer.shared.ledger.spare.lock().unwrap().len(), 1);
        drop(release);
    }

    /// What a writer wrote, kept for a test to read.
    #[derive(Clone, Default)]
    pub(crate) struct Sink(pub(crate) Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_outside_an_invocation_are_queued_at_once_and_flushed() {
        let sink = Sink::default();
        let writer = Background::start(sink.clone(), 16, QUEUE_BYTES).unwrap();
        writer.make_writer().write_all(b"one\n").unwrap();
        std::thread::sleep(Duration::from_millis(50));
        writer.make_writer().write_all(b"two\n").unwrap();
        assert_eq!(writer.dropped_lines(), 0);
        writer.flush(Duration::from_secs(5));
        assert_eq!(&*sink.0.lock().unwrap(), b"one\ntwo\n");
        assert_eq!(writer.dropped_lines(), 0);
    }

    /// A poll's lines are gathered in a buffer with room for as many
    /// bytes as the thread's last batch held: it is not grown line by
    /// line. Every line still arrives, in order.
    #[test]
    fn a_batch_is_made_with_room_for_the_last_one() {
        let sink = Sink::default();
        let writer = Background::start(sink.clone(), 16, QUEUE_BYTES).unwrap();
        let long = [vec![b'x'; 6_000], b"\n".to_vec()].concat();
        batched(|| writer.make_writer().write_all(&long).unwrap());
        let room = batched(|| {
            writer.make_writer().write_all(b"short\n").unwrap();
            BATCH.with(|batch| batch.borrow().as_ref().map(|batch| batch.lines.capacity()))
        });
        assert!(room >= Some(long.len()), "{room:?}");
        writer.flush(Duration::from_secs(5));
        assert_eq!(
            *sink.0.lock().unwrap(),
            [long, b"short\n".to_vec()].concat()
        );
    }

    /// A written batch's buffer is filled again by the next batch, not
    /// freed on the writer thread and made anew; a line queued alone
    /// does not join the spares.
    #[test]
    fn a_written_batch_buffer_is_used_again() {
        let sink = Sink::default();
        let writer = Background::start(sink.clone(), 16, QUEUE_BYTES).unwrap();
        let spares = || writer.shared.ledger.spare.lock().unwrap().len();
        let buffer = || BATCH.with(|batch| batch.borrow().as_ref().map(|b| b.lines.as_ptr()));
        let first = batched(|| {
            writer.make_writer().write_all(b"first\n").unwrap();
            buffer()
        });
        writer.make_writer().write_all(b"alone\n").unwrap();
        writer.flush(Duration::from_secs(5));
        assert_eq!(spares(), 1);
        let second = batched(|| {
            writer.make_writer().write_all(b"second\n").unwrap();
            // Taken from the spares, not made anew.
            assert_eq!(spares(), 0);
            buffer()
        });
        assert_eq!(second, first);
        writer.flush(Duration::from_secs(5));
        assert_eq!(spares(), 1);
        assert_eq!(&*sink.0.lock().unwrap(), b"first\nalone\nsecond\n");
    }

    /// Takes its time over every write, and counts its flushes.
    #[derive(Clone, Default)]
    struct Slow {
        written: Arc<Mutex<Vec<u8>>>,
        flushes: Arc<AtomicUsize>,
    }

    impl Write for Slow {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            std::thread::sleep(Duration::from_millis(20));
            self.written.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            self.flushes.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }
    }

    #[tokio::test]
    async fn written_returns_once_every_line_queued_before_it_is_written_and_flushed() {
        let sink = Slow::default();
        let writer = Background::start(sink.clone(), 16, QUEUE_BYTES).unwrap();
        // Gathered as in an invocation's poll, and queued one by one.
        batched(|| {
            for n in 0..5 {
                writer
                    .make_writer()
                    .write_all(format!("batched {n}\n").as_bytes())
                    .unwrap();
            }
        });
        for n in 0..5 {
            writer
                .make_writer()
                .write_all(format!("alone {n}\n").as_bytes())
                .unwrap();
        }
        // Still being written when asked: six writes of 20 ms.
        assert!(sink.written.lock().unwrap().len() < 80);
        let flushes = sink.flushes.load(Ordering::SeqCst);
        writer.written(Duration::from_secs(5)).await;
        let written = String::from_utf8(sink.written.lock().unwrap().clone()).unwrap();
        let expected: String = (0..5)
            .map(|n| format!("batched {n}\n"))
            .chain((0..5).map(|n| format!("alone {n}\n")))
            .collect();
        assert_eq!(written, expected);
        assert!(sink.flushes.load(Ordering::SeqCst) > flushes);
    }

    #[tokio::test]
    async fn written_waits_for_room_when_the_queue_is_full() {
        let (release, stuck) = mpsc::channel();
        let writer = Background::start(Stuck(stuck), 1, QUEUE_BYTES).unwrap();
        // One line taken by the writer (stuck on it), one waiting: full.
        writer.make_writer().write_all(b"one\n").unwrap();
        std::thread::sleep(Duration::from_millis(50));
        writer.make_writer().write_all(b"two\n").unwrap();
        assert_eq!(writer.dropped_lines(), 0);
        let waiting = tokio::spawn({
            let writer = writer.clone();
            async move { writer.written(Duration::from_secs(5)).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished());
        drop(release);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("written returns once the writer has room")
            .unwrap();
    }
}
