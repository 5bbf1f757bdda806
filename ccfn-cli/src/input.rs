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

/// Cuts what a reader gives into lines, keeping an unfinished last line
/// until the rest of it arrives (or the end, unless following).
#[derive(Debug)]
pub(crate) struct Lines {
    buf: Vec<u8>,
    /// Bytes of `buf` holding data.
    len: usize,
}

impl Lines {
    pub(crate) fn new() -> Lines {
        Lines {
            buf: vec![0; BLOCK],
            len: 0,
        }
    }

    /// Forgets an unfinished line (after the file it came from was
    /// truncated or replaced).
    pub(crate) fn clear(&mut self) {
        self.len = 0;
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
                // One line longer than the buffer: make room for it.
                self.buf.resize(self.buf.len() * 2, 0);
            }
            let read = match reader.read(&mut self.buf[self.len..]) {
                Ok(0) => return Ok(ControlFlow::Continue(())),
                Ok(n) => n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            let end = self.len + read;
            let mut start = 0;
            for at in memchr::memchr_iter(b'\n', &self.buf[self.len..end]) {
                let stop = self.len + at;
                if line(&self.buf[start..stop]).is_break() {
                    return Ok(ControlFlow::Break(()));
                }
                start = stop + 1;
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
            self.len = 0;
        }
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
/// is first searched for `seek_to` (see [`seek_time`]).
pub(crate) fn read_whole(
    source: &Source,
    seek_to: Option<&str>,
    line: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
) -> io::Result<()> {
    read_opened(open(source)?, seek_to, line)
}

/// [`read_whole`] for a source already opened.
pub(crate) fn read_opened(
    mut opened: Opened,
    seek_to: Option<&str>,
    line: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
) -> io::Result<()> {
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
    let mut lines = Lines::new();
    if lines.read(reader, line)?.is_continue() {
        lines.finish(line);
    }
    Ok(())
}

/// How `--follow` notices what happened to the file it reads.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// Nothing new.
    Same,
    /// The file grew.
    Grew,
    /// The file is shorter than what was read: truncated in place.
    Truncated,
    /// Another file now has its name: rotated.
    Replaced,
}

/// What happened to the file at `path`, opened as `file`, of which
/// `position` bytes were read.
pub(crate) fn change(path: &Path, file: &File, position: u64) -> io::Result<Change> {
    use std::os::unix::fs::MetadataExt as _;
    let open = file.metadata()?;
    match std::fs::metadata(path) {
        Ok(now) if now.ino() != open.ino() || now.dev() != open.dev() => {
            return Ok(Change::Replaced)
        }
        // Removed and not yet recreated: keep reading what is open.
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(err),
        Ok(_) => {}
    }
    Ok(match open.len() {
        len if len < position => Change::Truncated,
        len if len > position => Change::Grew,
        _ => Change::Same,
    })
}

/// How often `--follow` looks at the file.
pub(crate) const POLL: Duration = Duration::from_millis(200);

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn lines_of(data: &[u8], block: usize) -> Vec<String> {
        let mut lines = Lines::new();
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
