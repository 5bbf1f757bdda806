//! Where log lines come from: files (plain or gzip-compressed, told apart
//! by their first bytes) and standard input, read in large blocks and cut
//! into lines in place, so memory stays the size of the block whatever the
//! size of the log.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::line::Raw;

/// The size of a read.
const BLOCK: usize = 1 << 20;
/// gzip's magic number.
const GZIP: [u8; 2] = [0x1f, 0x8b];

/// A log to read: a path, or `-` for standard input.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    Stdin,
    File(PathBuf),
}

impl Source {
    /// `-` is standard input; anything else a path.
    pub(crate) fn new(arg: &str) -> Source {
        if arg == "-" {
            Source::Stdin
        } else {
            Source::File(PathBuf::from(arg))
        }
    }

    /// How the source is named in messages.
    pub(crate) fn name(&self) -> String {
        match self {
            Source::Stdin => "standard input".to_owned(),
            Source::File(path) => path.display().to_string(),
        }
    }
}

/// An open source.
pub(crate) enum Opened {
    /// A plain file: it can be searched and followed.
    Plain(File),
    /// A gzip-compressed file.
    Gzip(Box<dyn Read>),
    /// Standard input.
    Stdin(io::Stdin),
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Opened::Plain(_) => "Plain",
            Opened::Gzip(_) => "Gzip",
            Opened::Stdin(_) => "Stdin",
        })
    }
}

/// Opens `source`, telling gzip from plain text by the first two bytes.
pub(crate) fn open(source: &Source) -> io::Result<Opened> {
    let Source::File(path) = source else {
        return Ok(Opened::Stdin(io::stdin()));
    };
    let mut file = File::open(path)?;
    let mut magic = [0u8; 2];
    let read = read_up_to(&mut file, &mut magic)?;
    file.seek(SeekFrom::Start(0))?;
    if read == 2 && magic == GZIP {
        let decoder = flate2::read::MultiGzDecoder::new(io::BufReader::with_capacity(BLOCK, file));
        return Ok(Opened::Gzip(Box::new(decoder)));
    }
    Ok(Opened::Plain(file))
}

/// Reads until `buf` is full or the end; returns how much was read.
fn read_up_to(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(filled)
}

/// The longest line read by default: 1 MiB. A ccfn record is far
/// shorter (the runtime cuts what it logs: an API answer's `data` at
/// 16 KiB, no line over 32 KiB), so a longer line is not one of its
/// records; a platform's own lines are shorter still.
pub(crate) const MAX_LINE_BYTES: usize = 1 << 20;

/// The bounds of reading logs, the same for every command that reads
/// them.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Bounds {
    /// The longest line read, in bytes: a longer line is skipped as it
    /// arrives, never held in memory, and the lines skipped are counted
    /// at the end.
    #[arg(long, value_name = "BYTES", default_value_t = MAX_LINE_BYTES, value_parser = at_least_one)]
    pub(crate) max_line_bytes: usize,
    /// Invocations held at once, at most: those whose `end` is not read
    /// yet (`logs --invocations`, and the start records `package` keeps
    /// to rebuild requests), those judged (`diagnose`). Past it, the
    /// oldest is given up, and the invocations given up are counted at the
    /// end.
    #[arg(long, value_name = "N", default_value_t = crate::summary::OPEN_MAX, value_parser = at_least_one)]
    pub(crate) max_open_invocations: usize,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            max_line_bytes: MAX_LINE_BYTES,
            max_open_invocations: crate::summary::OPEN_MAX,
        }
    }
}

/// A count of at least one.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(err) => Err(err.to_string()),
    }
}

/// `bytes` in words: `1 MiB`, `64 KiB`, `100 bytes`.
pub(crate) fn size(bytes: usize) -> String {
    match bytes {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        1 => "1 byte".to_owned(),
        n => format!("{n} bytes"),
    }
}

/// Cuts what a reader gives into lines, keeping an unfinished last line
/// until the rest of it arrives (or the end, unless following).
///
/// A line longer than the limit is skipped as it arrives: once the part
/// held passes the limit it is dropped, and what follows is discarded up
/// to the next newline. Memory is the block plus the limit, whatever the
/// lines (a gzip stream of one 2 GiB line included).
#[derive(Debug)]
pub(crate) struct Lines {
    buf: Vec<u8>,
    /// Bytes of `buf` holding data.
    len: usize,
    /// The longest line passed on, in bytes (without its `\n`).
    max: usize,
    /// Whether the bytes read belong to a line over the limit, discarded
    /// up to its newline.
    discarding: bool,
    /// Lines skipped for being over the limit.
    skipped: u64,
}

impl Lines {
    pub(crate) fn new(max: usize) -> Lines {
        Lines {
            buf: vec![0; BLOCK.min(max.saturating_add(1))],
            len: 0,
            max,
            discarding: false,
            skipped: 0,
        }
    }

    /// How many lines were skipped for being longer than the limit.
    pub(crate) fn skipped_long(&self) -> u64 {
        self.skipped
    }

    /// Forgets an unfinished line (after the file it came from was
    /// truncated or replaced).
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.discarding = false;
    }

    /// Reads `reader` to its current end, calling `line` for each complete
    /// line (without its `\n`); breaks when `line` does.
    pub(crate) fn read(
        &mut self,
        reader: &mut dyn Read,
        line: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
    ) -> io::Result<ControlFlow<()>> {
        loop {
            if self.len == self.buf.len() {
                // A line longer than the buffer, and not over the limit
                // yet (else it would have been dropped): make room for it,
                // up to the limit and the newline after it.
                let room = (self.buf.len() * 2).min(self.max.saturating_add(1));
                self.buf.resize(room.max(self.buf.len() + 1), 0);
            }
            let read = match reader.read(&mut self.buf[self.len..]) {
                Ok(0) => return Ok(ControlFlow::Continue(())),
                Ok(n) => n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            let end = self.len + read;
            let mut start = 0;
            if self.discarding {
                // The rest of a line over the limit: up to its newline.
                match memchr::memchr(b'\n', &self.buf[..end]) {
                    None => {
                        self.len = 0;
                        continue;
                    }
                    Some(at) => {
                        self.discarding = false;
                        start = at + 1;
                    }
                }
            }
            let from = self.len.max(start);
            for at in memchr::memchr_iter(b'\n', &self.buf[from..end]) {
                let stop = from + at;
                if stop - start > self.max {
                    self.skipped += 1;
                } else if line(&self.buf[start..stop]).is_break() {
                    return Ok(ControlFlow::Break(()));
                }
                start = stop + 1;
            }
            if end - start > self.max {
                // An unfinished line already over the limit: dropped, and
                // the rest of it discarded as it arrives.
                self.skipped += 1;
                self.discarding = true;
                self.len = 0;
                continue;
            }
            self.buf.copy_within(start..end, 0);
            self.len = end - start;
        }
    }

    /// The unfinished last line, at the end of a source that is not
    /// followed.
    pub(crate) fn finish(&mut self, line: &mut dyn FnMut(&[u8]) -> ControlFlow<()>) {
        if self.len > 0 {
            let _ = line(&self.buf[..self.len]);
        }
        self.clear();
    }
}

/// The offset of the line from which a time-ordered file holds records at
/// or after `target`, found by binary search: the file is read only around
/// the probes, not from its start.
///
/// Lines that are not records are stepped over; a record out of order by
/// less than the caller's margin (built into `target`) is still found.
pub(crate) fn seek_time(file: &mut File, target: &[u8]) -> io::Result<u64> {
    let len = file.metadata()?.len();
    let (mut lo, mut hi) = (0u64, len);
    // Below a block, reading beats probing.
    while hi - lo > BLOCK as u64 {
        let mid = lo + (hi - lo) / 2;
        match first_time_after(file, mid, hi)? {
            Some((at, time)) if time.as_slice() < target => lo = at,
            _ => hi = mid,
        }
    }
    line_start(file, lo)
}

/// The first record that starts after `from` and before `before`: its
/// offset and its timestamp.
fn first_time_after(file: &mut File, from: u64, before: u64) -> io::Result<Option<(u64, Vec<u8>)>> {
    let mut at = line_start(file, from)?;
    let mut chunk = vec![0u8; 64 * 1024];
    while at < before {
        file.seek(SeekFrom::Start(at))?;
        let read = read_up_to(file, &mut chunk)?;
        if read == 0 {
            return Ok(None);
        }
        let mut start = 0;
        for stop in memchr::memchr_iter(b'\n', &chunk[..read]) {
            if let Some(raw) = Raw::find(&chunk[start..stop]) {
                return Ok(Some((at + start as u64, raw.timestamp.to_vec())));
            }
            start = stop + 1;
        }
        if start == 0 {
            // A line longer than the chunk: skip it.
            at += read as u64;
            at = line_start(file, at)?;
        } else {
            at += start as u64;
        }
    }
    Ok(None)
}

/// The offset of the first line that starts at or after `offset`.
fn line_start(file: &mut File, offset: u64) -> io::Result<u64> {
    if offset == 0 {
        return Ok(0);
    }
    let mut at = offset - 1;
    let mut chunk = [0u8; 4096];
    loop {
        file.seek(SeekFrom::Start(at))?;
        let read = read_up_to(file, &mut chunk)?;
        if read == 0 {
            return Ok(at);
        }
        if let Some(newline) = memchr::memchr(b'\n', &chunk[..read]) {
            return Ok(at + newline as u64 + 1);
        }
        at += read as u64;
    }
}

/// Reads `source` to its end, calling `line` for each line; a plain file
/// is first searched for `seek_to` (see [`seek_time`]). Lines over
/// `max_line` bytes are skipped; returns how many were.
pub(crate) fn read_bounded(
    source: &Source,
    seek_to: Option<&str>,
    max_line: usize,
    line: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
) -> io::Result<u64> {
    read_opened(open(source)?, seek_to, max_line, line)
}

/// [`read_bounded`] for a source already opened.
pub(crate) fn read_opened(
    mut opened: Opened,
    seek_to: Option<&str>,
    max_line: usize,
    line: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
) -> io::Result<u64> {
    if let (Opened::Plain(file), Some(target)) = (&mut opened, seek_to) {
        let start = seek_time(file, target.as_bytes())?;
        file.seek(SeekFrom::Start(start))?;
    }
    let mut stdin;
    let reader: &mut dyn Read = match &mut opened {
        Opened::Plain(file) => file,
        Opened::Gzip(reader) => reader,
        Opened::Stdin(input) => {
            stdin = input.lock();
            &mut stdin
        }
    };
    let mut lines = Lines::new(max_line);
    if lines.read(reader, line)?.is_continue() {
        lines.finish(line);
    }
    Ok(lines.skipped_long())
}

/// How `--follow` notices what happened to the file it reads.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// Nothing new.
    Same,
    /// The file grew.
    Grew,
    /// The file is not what was read any more: shorter than what was read
    /// (truncated in place), or its bytes before the read offset changed
    /// (truncated and written again past the old size between two looks).
    Truncated,
    /// Another file now has its name: rotated, or removed and created
    /// again.
    Replaced,
}

/// How many bytes before the read offset `--follow` compares at each
/// look: enough to hold a record's timestamp and more, so that a file
/// truncated and written again with other records does not match.
const FINGERPRINT: usize = 256;

/// A followed file: the file, how much of it was read, and the last bytes
/// read (the fingerprint of what is before the offset).
#[derive(Debug)]
pub(crate) struct Followed {
    pub(crate) file: File,
    position: u64,
    last: Vec<u8>,
}

impl Followed {
    /// `file`, read up to `position`: the fingerprint is read from it.
    pub(crate) fn at(mut file: File, position: u64) -> io::Result<Followed> {
        let from = position.saturating_sub(FINGERPRINT as u64);
        file.seek(SeekFrom::Start(from))?;
        let mut last = vec![0; usize::try_from(position - from).unwrap_or(FINGERPRINT)];
        let read = read_up_to(&mut file, &mut last)?;
        last.truncate(read);
        file.seek(SeekFrom::Start(from + read as u64))?;
        Ok(Followed {
            file,
            position: from + read as u64,
            last,
        })
    }

    /// Reads from the start again (after a truncation).
    pub(crate) fn rewind(&mut self) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(0))?;
        self.position = 0;
        self.last.clear();
        Ok(())
    }

    /// What happened to the file at `path` since the last read.
    pub(crate) fn change(&self, path: &Path) -> io::Result<Change> {
        use std::os::unix::fs::{FileExt as _, MetadataExt as _};
        let open = self.file.metadata()?;
        match std::fs::metadata(path) {
            Ok(now) if now.ino() != open.ino() || now.dev() != open.dev() => {
                return Ok(Change::Replaced)
            }
            // Removed and not yet created again: keep reading what is open.
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(err),
            Ok(_) => {}
        }
        let len = open.len();
        if len < self.position {
            return Ok(Change::Truncated);
        }
        if !self.last.is_empty() {
            let mut now = vec![0; self.last.len()];
            let from = self.position - self.last.len() as u64;
            let mut filled = 0;
            while filled < now.len() {
                match self.file.read_at(&mut now[filled..], from + filled as u64) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                    Err(err) => return Err(err),
                }
            }
            if now[..filled] != self.last[..] {
                return Ok(Change::Truncated);
            }
        }
        Ok(if len > self.position {
            Change::Grew
        } else {
            Change::Same
        })
    }
}

impl Read for Followed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.file.read(buf)?;
        self.position += read as u64;
        let got = &buf[..read];
        if got.len() >= FINGERPRINT {
            self.last.clear();
            self.last.extend_from_slice(&got[got.len() - FINGERPRINT..]);
        } else {
            let keep = FINGERPRINT - got.len();
            if self.last.len() > keep {
                self.last.drain(..self.last.len() - keep);
            }
            self.last.extend_from_slice(got);
        }
        Ok(read)
    }
}

/// How often `--follow` looks at the file.
pub(crate) const POLL: Duration = Duration::from_millis(200);

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn lines_of(data: &[u8], block: usize) -> Vec<String> {
        let mut lines = Lines::new(MAX_LINE_BYTES);
        lines.buf = vec![0; block];
        let mut out = Vec::new();
        let mut reader = data;
        let mut push = |line: &[u8]| {
            out.push(String::from_utf8_lossy(line).into_owned());
            ControlFlow::Continue(())
        };
        assert!(lines.read(&mut reader, &mut push).unwrap().is_continue());
        lines.finish(&mut push);
        out
    }

    #[test]
    fn lines_are_cut_whatever_the_block_size() {
        let data = b"one\ntwo\n\nthree, longer than a block\nfour";
        for block in [1, 2, 3, 7, 64] {
            assert_eq!(
                lines_of(data, block),
                ["one", "two", "", "three, longer than a block", "four"],
                "block {block}"
            );
        }
    }

    /// The lines `Lines` passes on with a limit of `max` bytes, reading
    /// through `block`-byte buffers and `piece`-byte reads, and how many it
    /// skipped.
    fn bounded_lines_of(data: &[u8], max: usize, piece: usize) -> (Vec<String>, u64, usize) {
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(buf.len()).min(self.1);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut lines = Lines::new(max);
        let mut out = Vec::new();
        let mut push = |line: &[u8]| {
            out.push(String::from_utf8_lossy(line).into_owned());
            ControlFlow::Continue(())
        };
        let mut reader = Trickle(data, piece);
        assert!(lines.read(&mut reader, &mut push).unwrap().is_continue());
        lines.finish(&mut push);
        (out, lines.skipped_long(), lines.buf.len())
    }

    #[test]
    fn lines_over_the_limit_are_skipped_and_counted_the_others_kept() {
        let long = "x".repeat(50);
        let data = format!("one\n{long}\ntwo\n{long}{long}\n\nthree\n{long}");
        for piece in [1, 3, 7, 16, 64, 4096] {
            let (lines, skipped, held) = bounded_lines_of(data.as_bytes(), 10, piece);
            assert_eq!(lines, ["one", "two", "", "three"], "piece {piece}");
            assert_eq!(skipped, 3, "piece {piece}");
            assert!(held <= 11, "piece {piece}: {held} bytes held");
        }
        // A line exactly at the limit is kept.
        let (lines, skipped, _) = bounded_lines_of(b"0123456789\nab", 10, 4);
        assert_eq!(
            (lines, skipped),
            (vec!["0123456789".into(), "ab".into()], 0)
        );
    }

    #[test]
    fn a_long_line_in_a_gzip_stream_is_never_held() {
        use flate2::write::GzEncoder;
        let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"first\n").unwrap();
        // 8 MiB without a newline, then a good line.
        let block = vec![b'a'; 1 << 16];
        for _ in 0..128 {
            gz.write_all(&block).unwrap();
        }
        gz.write_all(b"\nlast\n").unwrap();
        let data = gz.finish().unwrap();
        let mut decoder = flate2::read::MultiGzDecoder::new(&data[..]);
        let mut lines = Lines::new(64 << 10);
        let mut out = Vec::new();
        let mut push = |line: &[u8]| {
            out.push(String::from_utf8_lossy(line).into_owned());
            ControlFlow::Continue(())
        };
        assert!(lines.read(&mut decoder, &mut push).unwrap().is_continue());
        lines.finish(&mut push);
        assert_eq!(out, ["first", "last"]);
        assert_eq!(lines.skipped_long(), 1);
        assert!(lines.buf.len() <= (64 << 10) + 1, "{}", lines.buf.len());
    }

    #[test]
    fn sizes_are_said_in_their_unit() {
        assert_eq!(size(1 << 20), "1 MiB");
        assert_eq!(size(64 << 10), "64 KiB");
        assert_eq!(size(100), "100 bytes");
        assert_eq!(size(1), "1 byte");
    }

    #[test]
    fn a_file_truncated_and_written_again_past_its_size_is_noticed() {
        let dir = std::env::temp_dir().join(format!("ccfn-cli-follow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log");
        std::fs::write(&path, "a first line\n").unwrap();
        let mut followed = Followed::at(File::open(&path).unwrap(), 0).unwrap();
        let mut all = Vec::new();
        followed.read_to_end(&mut all).unwrap();
        assert_eq!(followed.change(&path).unwrap(), Change::Same);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"more\n")
            .unwrap();
        assert_eq!(followed.change(&path).unwrap(), Change::Grew);
        followed.read_to_end(&mut all).unwrap();
        // Truncated in place and written again, longer than before.
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(0).unwrap();
        drop(file);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"another file's lines, longer than the first\n")
            .unwrap();
        assert_eq!(followed.change(&path).unwrap(), Change::Truncated);
        followed.rewind().unwrap();
        let mut again = Vec::new();
        followed.read_to_end(&mut again).unwrap();
        assert_eq!(again, b"another file's lines, longer than the first\n");
        // Resumed where it was read to, the fingerprint is read back.
        let position = again.len() as u64;
        let resumed = Followed::at(File::open(&path).unwrap(), position).unwrap();
        assert_eq!(resumed.change(&path).unwrap(), Change::Same);
        // Another file under the name.
        std::fs::rename(&path, dir.join("log.1")).unwrap();
        assert_eq!(
            resumed.change(&path).unwrap(),
            Change::Same,
            "gone: what is open is read"
        );
        std::fs::write(&path, "new\n").unwrap();
        assert_eq!(resumed.change(&path).unwrap(), Change::Replaced);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn record(second: u32) -> String {
        format!(
            "{{\"timestamp\":\"2026-11-21T21:{:02}:{:02}.000Z\",\"level\":\"INFO\",\"step\":\"start\",\"message\":\"m\"}}\n",
            second / 60,
            second % 60
        )
    }

    #[test]
    fn the_search_lands_on_the_first_line_at_or_after_the_time() {
        let dir = std::env::temp_dir().join(format!("ccfn-cli-seek-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log");
        let mut file = File::create(&path).unwrap();
        let mut offsets = Vec::new();
        let mut offset = 0u64;
        // About 3 MiB, with lines that are not records between them.
        for second in 0..3600 {
            for _ in 0..8 {
                offsets.push((second, offset));
                let text = record(second);
                file.write_all(text.as_bytes()).unwrap();
                offset += text.len() as u64;
            }
            let noise = "REPORT RequestId: 8f0c Duration: 1.2 ms\n";
            file.write_all(noise.as_bytes()).unwrap();
            offset += noise.len() as u64;
        }
        drop(file);
        let mut file = File::open(&path).unwrap();
        for second in [0, 1, 1234, 3599] {
            let target = record(second);
            let target = &target.as_bytes()[14..38];
            let found = seek_time(&mut file, target).unwrap();
            let first = offsets.iter().find(|(s, _)| *s == second).unwrap().1;
            // At or before the first such record, and within a block of it.
            assert!(
                found <= first && first - found <= BLOCK as u64,
                "{second}: {found} vs {first}"
            );
        }
        let after = b"2026-11-21T22:00:00.000Z";
        let found = seek_time(&mut file, after).unwrap();
        assert!(offset - found <= BLOCK as u64);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
