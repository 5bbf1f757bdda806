//! The invocations the inspector keeps: a bounded ring in memory, fed
//! each record by the process's [`ContractLayer`](crate::record::ContractLayer)
//! as a sink: its JSON line (the very line the log writes, scrubbed
//! alike) and what its row shows, read from the record's fields.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

#[cfg(test)]
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::sync::{broadcast, watch};

use crate::record::value::Shape;
use crate::record::{Entry as Record, Lines};

/// The most bytes of lines one invocation keeps; later lines are counted,
/// not kept, so that a handler logging in a loop cannot fill the memory.
pub(super) const INVOCATION_BYTES: usize = 512 * 1024;

/// The most bytes of lines all the invocations keep together; past it the
/// oldest are forgotten, however many `CCFN_INSPECTOR_INVOCATIONS` allows.
pub(super) const TOTAL_BYTES: usize = 64 * 1024 * 1024;

/// The most calls whose simulated transcript is kept; past it the call
/// updated longest ago is forgotten.
pub(super) const CALLS: usize = 100;

/// The most bytes of one call's transcript kept (its lines as shown,
/// with their separators); later lines are counted, not kept.
pub(super) const TRANSCRIPT_BYTES: usize = 128 * 1024;

/// The longest a row's text (function, call, mode, first error) is kept:
/// they come from requests and records of any size.
const ROW_TEXT_CHARS: usize = 300;

/// `text`, cut to [`ROW_TEXT_CHARS`] characters with an ellipsis.
fn row_text(text: &str) -> String {
    match text.char_indices().nth(ROW_TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// One invocation as the inspector knows it.
#[derive(Debug, Clone)]
pub(super) struct Recorded {
    /// The invocation id.
    pub(super) id: Arc<str>,
    /// The order it was first seen in, across the ring.
    pub(super) seq: u64,
    pub(super) function: String,
    pub(super) call_sid: Option<String>,
    /// The timestamp of its first record.
    pub(super) started: String,
    /// The `processing` record's mode.
    pub(super) mode: Option<String>,
    /// `success`, `error`..., from the `end` record; `rejected` for a
    /// request answered without invoking the function; `None` while it
    /// runs.
    pub(super) outcome: Option<String>,
    pub(super) execution_ms: Option<f64>,
    /// The message of its first `ERROR` or `WARN` record that says what
    /// went wrong.
    pub(super) first_error: Option<String>,
    /// The invocation this one replays.
    pub(super) replay_of: Option<Arc<str>>,
    /// Whether its `start` record was written.
    saw_start: bool,
    /// Its records, as written: empty in a list's copies.
    pub(super) lines: Vec<Map<String, Value>>,
    /// Lines past [`INVOCATION_BYTES`], not kept.
    pub(super) not_kept: usize,
}

/// The steps whose records say what went wrong, first one wins.
const ERROR_STEPS: [&str; 6] = [
    "validation_error",
    "error",
    "task_error",
    "email_error",
    "api_error",
    "request_rejected",
];

/// What the store reads of a record, without building the rest: the
/// invocation it belongs to and what its row shows. The record is kept as
/// its JSON line, parsed only when a page shows it.
#[derive(Default)]
#[cfg_attr(test, derive(Deserialize))]
struct Head<'a> {
    #[cfg_attr(test, serde(borrow))]
    invocation_id: Option<Cow<'a, str>>,
    #[cfg_attr(test, serde(borrow))]
    function: Option<Cow<'a, str>>,
    #[cfg_attr(test, serde(borrow))]
    call_sid: Option<Cow<'a, str>>,
    #[cfg_attr(test, serde(borrow))]
    timestamp: Option<Cow<'a, str>>,
    #[cfg_attr(test, serde(borrow, default))]
    step: Cow<'a, str>,
    #[cfg_attr(test, serde(borrow))]
    message: Option<Cow<'a, str>>,
    /// The `processing` record's.
    #[cfg_attr(test, serde(borrow))]
    mode: Option<Cow<'a, str>>,
    /// The `end` record's.
    #[cfg_attr(test, serde(borrow))]
    outcome: Option<Cow<'a, str>>,
    execution_ms: Option<f64>,
}

impl Recorded {
    fn new(id: Arc<str>, seq: u64, head: &Head<'_>) -> Self {
        let owned = |value: &Option<Cow<'_, str>>| value.as_deref().map(row_text);
        Recorded {
            id,
            seq,
            function: owned(&head.function).unwrap_or_else(|| "-".to_owned()),
            call_sid: owned(&head.call_sid),
            started: owned(&head.timestamp).unwrap_or_default(),
            mode: None,
            outcome: None,
            execution_ms: None,
            first_error: None,
            replay_of: None,
            saw_start: false,
            lines: Vec::new(),
            not_kept: 0,
        }
    }

    /// The outcome as the list shows it: the `end` record's, `rejected`,
    /// `running` until the end, or `unknown` when the log filter left out
    /// the `start` record (and will leave out the end).
    pub(super) fn outcome_label(&self) -> &str {
        match (&self.outcome, self.saw_start) {
            (Some(outcome), _) => outcome,
            (None, true) => "running",
            (None, false) => "unknown",
        }
    }

    /// Takes what the row shows from one record; whether the row changed.
    fn note(&mut self, head: &Head<'_>) -> bool {
        let owned = |value: &Option<Cow<'_, str>>| value.as_deref().map(row_text);
        let mut changed = false;
        match &*head.step {
            "start" => self.saw_start = true,
            "processing" => {
                self.mode = owned(&head.mode);
                changed = true;
            }
            "end" => {
                self.outcome = owned(&head.outcome);
                self.execution_ms = head.execution_ms;
                changed = true;
            }
            "request_rejected" => {
                self.outcome.get_or_insert_with(|| "rejected".to_owned());
                changed = true;
            }
            _ => {}
        }
        if self.call_sid.is_none() {
            self.call_sid = owned(&head.call_sid);
        }
        if self.first_error.is_none() && ERROR_STEPS.contains(&&*head.step) {
            self.first_error = owned(&head.message);
            changed = true;
        }
        changed
    }

    /// The records of `step`.
    pub(super) fn records<'a>(
        &'a self,
        step: &'a str,
    ) -> impl Iterator<Item = &'a Map<String, Value>> + 'a {
        self.lines
            .iter()
            .filter(move |line| line.get("step").and_then(Value::as_str) == Some(step))
    }

    /// The `start` record's event: the parameters as received, redacted
    /// values as such.
    pub(super) fn event(&self) -> Option<&Map<String, Value>> {
        self.records("start")
            .next()
            .and_then(|start| start.get("event"))
            .and_then(Value::as_object)
    }
}

/// One invocation in the ring: its row, and its lines as written.
struct Entry {
    recorded: Recorded,
    /// Its lines, each ended by `\n`: one buffer for all, made with room
    /// for as many bytes as the invocation before it wrote, not a buffer
    /// per line.
    lines: String,
    bytes: usize,
}

#[derive(Default)]
struct Ring {
    seq: u64,
    /// The entries, oldest first, their order numbers one after another.
    entries: VecDeque<Entry>,
    /// Each entry's order number, by id.
    by_id: HashMap<Arc<str>, u64>,
    /// The bytes of every entry's lines.
    bytes: usize,
}

impl Ring {
    /// Where the entry of `id` is: the newest is asked for most (each
    /// record of a running invocation is filed there), and found without
    /// a lookup.
    fn place(&self, id: &str) -> Option<usize> {
        let newest = self.entries.back()?;
        if *newest.recorded.id == *id {
            return Some(self.entries.len() - 1);
        }
        let seq = *self.by_id.get(id)?;
        let oldest = self.entries.front()?.recorded.seq;
        usize::try_from(seq - oldest).ok()
    }

    fn entry(&self, id: &str) -> Option<&Entry> {
        self.entries.get(self.place(id)?)
    }

    fn entry_mut(&mut self, id: &str) -> Option<&mut Entry> {
        let place = self.place(id)?;
        self.entries.get_mut(place)
    }

    fn forget_oldest(&mut self) {
        if let Some(entry) = self.entries.pop_front() {
            self.by_id.remove(&entry.recorded.id);
            self.bytes -= entry.bytes;
        }
    }
}

/// A simulated call's transcript as the inspector keeps it: each line
/// scrubbed of the process's secrets, its control characters made
/// visible.
#[derive(Debug, Clone, Default)]
pub(super) struct Transcript {
    /// The lines kept, each ended by `\n` (a kept line holds none).
    text: String,
    /// Whether the simulator said the call ended.
    pub(super) ended: bool,
    /// Lines past [`TRANSCRIPT_BYTES`], not kept.
    pub(super) not_kept: usize,
}

impl Transcript {
    /// `lines` as shown, the first ones up to [`TRANSCRIPT_BYTES`].
    fn new<S: AsRef<str>>(lines: &[S], ended: bool) -> Self {
        let mut transcript = Transcript {
            ended,
            ..Transcript::default()
        };
        for line in lines {
            let shown = shown_line(line.as_ref());
            if transcript.not_kept > 0 || transcript.text.len() + shown.len() + 1 > TRANSCRIPT_BYTES
            {
                transcript.not_kept += 1;
            } else {
                transcript.text.push_str(&shown);
                transcript.text.push('\n');
            }
        }
        transcript
    }

    /// The lines kept, in order.
    pub(super) fn lines(&self) -> impl Iterator<Item = &str> {
        self.text.split_terminator('\n')
    }
}

/// A line of a transcript as shown: every secret value of the process
/// replaced (as the log's lines are), and every control character (and
/// bidirectional override, which reorders what is shown) written as a
/// visible sign: `␛` for ESC, `\u{85}` where Unicode has no sign.
fn shown_line(line: &str) -> String {
    let scrubbed = crate::secret::scrubbed(line);
    let mut shown = String::with_capacity(scrubbed.len());
    for c in scrubbed.chars() {
        match c {
            '\u{0}'..='\u{1f}' => {
                shown.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'))
            }
            '\u{7f}' => shown.push('\u{2421}'),
            c if c.is_control()
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') =>
            {
                shown.extend(c.escape_unicode())
            }
            c => shown.push(c),
        }
    }
    // Scrubbed again as shown: no secret is made of the visible signs.
    match crate::secret::scrubbed(&shown) {
        Cow::Borrowed(_) => shown,
        Cow::Owned(again) => again,
    }
}

/// The transcripts of the last [`CALLS`] calls, by call SID.
#[derive(Default)]
struct Calls {
    /// Call SIDs, updated longest ago first.
    order: VecDeque<Arc<str>>,
    by_sid: HashMap<Arc<str>, Transcript>,
}

/// The ring of recent invocations, and the channel that tells the live
/// list which one changed.
pub(super) struct Store {
    capacity: usize,
    /// The simulated calls' transcripts.
    calls: Mutex<Calls>,
    /// Whether the log filter leaves out `INFO` records of the contract.
    filtered: AtomicBool,
    ring: Mutex<Ring>,
    changed: broadcast::Sender<Arc<str>>,
    /// Turns `true` when the server shuts down: live lists end.
    closed: watch::Sender<bool>,
    /// Tells one process's pages from another's, so that a page left open
    /// across a restart reloads.
    epoch: u64,
}

impl Store {
    /// A store of the last `capacity` invocations (at least one).
    pub(super) fn new(capacity: usize) -> Arc<Self> {
        let (changed, _) = broadcast::channel(1024);
        Arc::new(Store {
            capacity: capacity.max(1),
            calls: Mutex::new(Calls::default()),
            filtered: AtomicBool::new(false),
            ring: Mutex::new(Ring::default()),
            changed,
            closed: watch::Sender::new(false),
            epoch: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
                ^ u64::from(std::process::id()),
        })
    }

    fn ring(&self) -> MutexGuard<'_, Ring> {
        // A panic while filing leaves a ring that is still whole.
        self.ring
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Files one record, `head` read from it and `line` its JSON line;
    /// records outside any invocation are not kept.
    fn file(&self, head: &Head<'_>, line: &str) {
        let line = line.trim_end_matches('\n');
        let Some(id) = head.invocation_id.as_deref() else {
            return;
        };
        let mut ring = self.ring();
        let ring = &mut *ring;
        let (id, changed) = if let Some(entry) = ring.entry_mut(id) {
            let changed = entry.recorded.note(head);
            let kept = entry.keep(line);
            let id = Arc::clone(&entry.recorded.id);
            ring.bytes += kept;
            (id, changed)
        } else {
            let id: Arc<str> = Arc::from(id);
            ring.seq += 1;
            let room = ring.entries.back().map_or(0, |newest| newest.lines.len());
            let mut entry = Entry {
                recorded: Recorded::new(Arc::clone(&id), ring.seq, head),
                lines: String::with_capacity(room.min(INVOCATION_BYTES)),
                bytes: 0,
            };
            entry.recorded.note(head);
            ring.bytes += entry.keep(line);
            if ring.entries.len() >= self.capacity {
                ring.forget_oldest();
            }
            ring.by_id.insert(Arc::clone(&id), ring.seq);
            ring.entries.push_back(entry);
            (id, true)
        };
        while ring.bytes > TOTAL_BYTES && ring.entries.len() > 1 {
            ring.forget_oldest();
        }
        if changed {
            // No one listening is not an error.
            let _ = self.changed.send(id);
        }
    }

    fn calls(&self) -> MutexGuard<'_, Calls> {
        self.calls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps `lines` as the transcript of `call`, in place of the one it
    /// had: the call becomes the newest, and past [`CALLS`] the one
    /// updated longest ago is forgotten. The first transcript of a call
    /// tells the live list that the rows of its invocations changed.
    pub(super) fn put_transcript<S: AsRef<str>>(&self, call: &str, lines: &[S], ended: bool) {
        // Scrubbed outside the lock.
        let transcript = Transcript::new(lines, ended);
        let mut guard = self.calls();
        let calls = &mut *guard;
        let new = if let Some(kept) = calls.by_sid.get_mut(call) {
            *kept = transcript;
            if let Some(at) = calls.order.iter().position(|sid| &**sid == call)
                && let Some(sid) = calls.order.remove(at)
            {
                calls.order.push_back(sid);
            }
            false
        } else {
            if calls.order.len() >= CALLS
                && let Some(oldest) = calls.order.pop_front()
            {
                calls.by_sid.remove(&oldest);
            }
            let sid: Arc<str> = Arc::from(call);
            calls.order.push_back(Arc::clone(&sid));
            calls.by_sid.insert(sid, transcript);
            true
        };
        drop(guard);
        if new {
            for row in self.list(|r| r.call_sid.as_deref() == Some(call)) {
                let _ = self.changed.send(row.id);
            }
        }
    }

    /// A copy of the transcript of `call`, if one was sent.
    pub(super) fn transcript(&self, call: &str) -> Option<Transcript> {
        self.calls().by_sid.get(call).cloned()
    }

    /// Whether a transcript of `call` is kept.
    pub(super) fn has_transcript(&self, call: &str) -> bool {
        self.calls().by_sid.contains_key(call)
    }

    pub(super) fn set_filtered(&self, filtered: bool) {
        self.filtered.store(filtered, Ordering::Relaxed);
    }

    /// Whether the log filter leaves out `INFO` records of the contract.
    pub(super) fn is_filtered(&self) -> bool {
        self.filtered.load(Ordering::Relaxed)
    }

    /// Marks `id` as a replay of `of`.
    pub(super) fn mark_replay(&self, id: &str, of: &str) {
        let mut ring = self.ring();
        if let Some(entry) = ring.entry_mut(id) {
            entry.recorded.replay_of = Some(Arc::from(of));
        }
        drop(ring);
        let _ = self.changed.send(Arc::from(id));
    }

    /// A copy of one invocation's row, without its records.
    pub(super) fn row(&self, id: &str) -> Option<Recorded> {
        self.ring().entry(id).map(|entry| entry.recorded.clone())
    }

    /// A copy of one invocation, with its records.
    pub(super) fn get(&self, id: &str) -> Option<Recorded> {
        let ring = self.ring();
        let entry = ring.entry(id)?;
        let mut recorded = entry.recorded.clone();
        let lines = entry.lines.clone();
        drop(ring);
        // Lines the store kept are whole JSON objects.
        recorded.lines = lines
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        Some(recorded)
    }

    /// Copies of the invocations `keep` accepts, newest first, without
    /// their records.
    pub(super) fn list(&self, mut keep: impl FnMut(&Recorded) -> bool) -> Vec<Recorded> {
        let ring = self.ring();
        ring.entries
            .iter()
            .rev()
            .map(|entry| &entry.recorded)
            .filter(|recorded| keep(recorded))
            .cloned()
            .collect()
    }

    /// The newest invocation's order number (0 when none).
    pub(super) fn last_seq(&self) -> u64 {
        self.ring().seq
    }

    /// This process's pages' mark.
    pub(super) fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Ends every live list: the server shuts down.
    pub(super) fn close(&self) {
        self.closed.send_replace(true);
    }

    /// Turns `true` when the server shuts down.
    pub(super) fn closed(&self) -> watch::Receiver<bool> {
        self.closed.subscribe()
    }

    /// Tells of every invocation that appears or changes.
    pub(super) fn subscribe(&self) -> broadcast::Receiver<Arc<str>> {
        self.changed.subscribe()
    }
}

impl Entry {
    /// Keeps `line`, unless the invocation's lines are at their cap; the
    /// bytes kept.
    fn keep(&mut self, line: &str) -> usize {
        if self.bytes + line.len() > INVOCATION_BYTES {
            self.recorded.not_kept += 1;
            0
        } else {
            self.bytes += line.len();
            self.lines.push_str(line);
            self.lines.push('\n');
            line.len()
        }
    }
}

/// The inspector's sink: each record goes to the store, as its JSON line
/// (the one the log writes, when it writes JSON) and what its row shows,
/// read from its fields.
#[derive(Clone)]
pub(crate) struct Sink(pub(super) Arc<Store>);

impl crate::record::Sink for Sink {
    fn take(&self, entry: &Record<'_>, lines: &mut Lines) {
        let Some(invocation_id) = entry.identity.invocation_id else {
            return;
        };
        let text = |shape: Shape<'_>| match shape {
            Shape::Str(text) => Some(Cow::Owned(text.to_owned())),
            _ => None,
        };
        let mut head = Head {
            invocation_id: Some(Cow::Borrowed(invocation_id)),
            function: entry.identity.function.map(Cow::Borrowed),
            call_sid: entry.identity.call_sid.map(Cow::Borrowed),
            timestamp: Some(Cow::Borrowed(entry.timestamp)),
            step: Cow::Borrowed(entry.step),
            message: Some(Cow::Borrowed(entry.message)),
            ..Head::default()
        };
        if matches!(entry.step, "processing" | "end") {
            entry.fields.each(&mut |name, value| match name {
                "mode" => head.mode = text(value.shape()),
                "outcome" => head.outcome = text(value.shape()),
                "execution_ms" => {
                    head.execution_ms = match value.shape() {
                        Shape::F64(ms) => Some(ms),
                        Shape::U64(ms) => Some(ms as f64),
                        _ => None,
                    }
                }
                _ => {}
            });
        }
        self.0.file(&head, lines.json(entry));
    }

    fn reads_json(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    impl Store {
        /// Files one JSON line, as the sink would its record.
        pub(in crate::runtime::inspector) fn file_line(&self, line: &[u8]) {
            let Ok(line) = std::str::from_utf8(line) else {
                return;
            };
            if let Ok(head) = serde_json::from_str::<Head<'_>>(line.trim_end()) {
                self.file(&head, line);
            }
        }
    }

    fn line(id: &str, step: &str, extra: Value) -> Vec<u8> {
        let mut record = json!({
            "timestamp": "2026-11-23T10:00:00.000Z",
            "level": "INFO",
            "function": "wait-experience",
            "invocation_id": id,
            "call_sid": "CA0123456789abcdef0123456789abcdef",
            "step": step,
            "message": format!("the {step}"),
        });
        if let (Some(record), Value::Object(extra)) = (record.as_object_mut(), extra) {
            record.extend(extra);
        }
        let mut text = record.to_string();
        text.push('\n');
        text.into_bytes()
    }

    #[test]
    fn an_invocation_s_row_comes_from_its_records() {
        let store = Store::new(10);
        let mut changes = store.subscribe();
        store.file_line(&line(
            "a",
            "start",
            json!({"event": {"CallSid": "CA1", "Token": "[REDACTED]"}}),
        ));
        store.file_line(&line("a", "processing", json!({"mode": "voicemail"})));
        store.file_line(&line("a", "validation", json!({})));
        store.file_line(&line("a", "task_error", json!({"cause": "workflow"})));
        store.file_line(&line("a", "error", json!({})));
        store.file_line(&line(
            "a",
            "end",
            json!({"outcome": "error", "execution_ms": 12.5}),
        ));
        let recorded = store.get("a").unwrap();
        assert_eq!(recorded.function, "wait-experience");
        assert_eq!(recorded.mode.as_deref(), Some("voicemail"));
        assert_eq!(recorded.outcome.as_deref(), Some("error"));
        assert_eq!(recorded.execution_ms, Some(12.5));
        assert_eq!(recorded.first_error.as_deref(), Some("the task_error"));
        assert_eq!(recorded.lines.len(), 6);
        assert_eq!(recorded.event().unwrap()["Token"], "[REDACTED]");
        // The first record, the mode, the first error and the end change
        // the row; a plain record does not.
        let mut told = 0;
        while changes.try_recv().is_ok() {
            told += 1;
        }
        assert_eq!(told, 4);
    }

    #[test]
    fn the_oldest_invocation_is_forgotten_first() {
        let store = Store::new(2);
        for id in ["a", "b", "c"] {
            store.file_line(&line(id, "start", json!({})));
        }
        assert!(store.get("a").is_none());
        let ids: Vec<_> = store.list(|_| true).into_iter().map(|r| r.id).collect();
        assert_eq!(ids, [Arc::from("c"), Arc::from("b")]);
        assert!(store
            .list(|r| &*r.id == "b")
            .iter()
            .all(|r| r.lines.is_empty()));
    }

    /// Records of invocations running side by side are each filed with
    /// their own, the newest's and older ones', across those forgotten.
    #[test]
    fn interleaved_invocations_file_their_own_records() {
        let store = Store::new(3);
        for round in 0..3 {
            for id in ["a", "b", "c", "d", "e"] {
                store.file_line(&line(id, &format!("step{round}"), json!({})));
            }
        }
        // `a` and `b` were forgotten as `d` and `e` came, each time.
        let ids: Vec<_> = store.list(|_| true).into_iter().map(|r| r.id).collect();
        assert_eq!(ids, [Arc::from("e"), Arc::from("d"), Arc::from("c")]);
        for id in ["c", "d", "e"] {
            let recorded = store.get(id).unwrap();
            let steps: Vec<_> = recorded.lines.iter().map(|l| l["step"].clone()).collect();
            assert_eq!(steps, ["step2"], "{id}");
            assert!(recorded.lines.iter().all(|l| l["invocation_id"] == id));
        }
        store.file_line(&line("c", "late", json!({})));
        store.file_line(&line("d", "late", json!({})));
        assert_eq!(store.get("c").unwrap().lines.len(), 2);
        assert_eq!(store.get("d").unwrap().lines.len(), 2);
        assert_eq!(store.get("e").unwrap().lines.len(), 1);
        store.mark_replay("d", "c");
        assert_eq!(store.row("d").unwrap().replay_of.as_deref(), Some("c"));
        assert!(store.row("c").unwrap().replay_of.is_none());
    }

    #[test]
    fn lines_past_the_cap_are_counted_not_kept() {
        let store = Store::new(1);
        let big = "x".repeat(INVOCATION_BYTES / 3);
        for _ in 0..4 {
            store.file_line(&line("a", "log", json!({ "data": big })));
        }
        let recorded = store.get("a").unwrap();
        assert_eq!(recorded.lines.len(), 2);
        assert_eq!(recorded.not_kept, 2);
    }

    #[test]
    fn lines_outside_invocations_and_broken_lines_are_ignored() {
        let store = Store::new(4);
        store.file_line(
            br#"{"timestamp":"t","level":"INFO","step":"runtime","message":"listening"}"#,
        );
        store.file_line(b"not json");
        store.file_line(br#"{"invocation_id":"a","step":"start""#);
        assert!(store.list(|_| true).is_empty());
    }

    #[test]
    fn a_row_s_text_is_cut_and_all_lines_fit_a_budget() {
        let store = Store::new(1000);
        let long = "é".repeat(2 * ROW_TEXT_CHARS);
        store.file_line(&line("a", "error", json!({ "message": long })));
        let recorded = store.get("a").unwrap();
        let error = recorded.first_error.unwrap();
        assert_eq!(error.chars().count(), ROW_TEXT_CHARS + 1);
        assert!(error.ends_with('…'));
        let big = "x".repeat(INVOCATION_BYTES - 1000);
        let ids: Vec<String> = (0..(TOTAL_BYTES / INVOCATION_BYTES + 4))
            .map(|n| n.to_string())
            .collect();
        for id in &ids {
            store.file_line(&line(id, "log", json!({ "data": big })));
        }
        assert!(store.ring().bytes <= TOTAL_BYTES);
        assert!(store.get(&ids[0]).is_none(), "the oldest go first");
        assert!(store.get(ids.last().unwrap()).is_some());
    }

    #[test]
    fn a_replay_is_marked() {
        let store = Store::new(4);
        store.file_line(&line("a", "start", json!({})));
        store.file_line(&line("b", "start", json!({})));
        store.mark_replay("b", "a");
        assert_eq!(store.get("b").unwrap().replay_of.as_deref(), Some("a"));
    }

    #[test]
    fn the_last_calls_transcripts_are_kept_the_oldest_forgotten() {
        let store = Store::new(4);
        let sid = |n: usize| format!("CA{n:032x}");
        for n in 0..CALLS {
            store.put_transcript(&sid(n), &[format!("line of {n}")], false);
        }
        // Updated again: the first call is now the newest.
        store.put_transcript(&sid(0), &["again", "ended: hung up"], true);
        store.put_transcript(&sid(CALLS), &["one more"], false);
        assert!(store.transcript(&sid(0)).is_some(), "updated, so kept");
        assert!(
            store.transcript(&sid(1)).is_none(),
            "the one updated longest ago is forgotten"
        );
        assert!(store.has_transcript(&sid(CALLS)));
        assert_eq!(store.calls().by_sid.len(), CALLS);
        assert_eq!(store.calls().order.len(), CALLS);
        let first = store.transcript(&sid(0)).unwrap();
        assert_eq!(
            first.lines().collect::<Vec<_>>(),
            ["again", "ended: hung up"],
            "replaced, not added to"
        );
        assert!(first.ended);
    }

    #[test]
    fn a_transcript_keeps_its_first_lines_up_to_its_cap() {
        let store = Store::new(4);
        let line = "x".repeat(TRANSCRIPT_BYTES / 4);
        let lines = vec![line.as_str(); 6];
        store.put_transcript("CA1", &lines, false);
        let transcript = store.transcript("CA1").unwrap();
        assert_eq!(transcript.lines().count(), 3);
        assert_eq!(transcript.not_kept, 3);
        assert!(transcript.text.len() <= TRANSCRIPT_BYTES);
        // Many empty lines: each costs its separator.
        let empty = vec![""; TRANSCRIPT_BYTES + 10];
        store.put_transcript("CA2", &empty, false);
        let transcript = store.transcript("CA2").unwrap();
        assert_eq!(
            transcript.lines().count(),
            TRANSCRIPT_BYTES,
            "empty lines are lines"
        );
        assert!(transcript.lines().all(str::is_empty));
        assert_eq!(transcript.text.len(), TRANSCRIPT_BYTES);
        assert_eq!(transcript.not_kept, 10);
    }

    #[test]
    fn a_transcript_line_is_scrubbed_and_its_control_characters_shown() {
        let canary = crate::secret::Secret::new("canary-transcript-secret-8a2f");
        let store = Store::new(4);
        store.put_transcript(
            "CA1",
            &[
                "   hears (Say): your code is canary-transcript-secret-8a2f",
                "caller presses \u{1b}[31m1\ttwo\nthree\u{7f}\u{85}\u{202e}",
            ],
            false,
        );
        let transcript = store.transcript("CA1").unwrap();
        let lines: Vec<_> = transcript.lines().collect();
        assert_eq!(
            lines,
            [
                "   hears (Say): your code is [REDACTED]",
                "caller presses \u{241b}[31m1\u{2409}two\u{240a}three\u{2421}\\u{85}\\u{202e}",
            ]
        );
        drop(canary);
    }
}
