//! Process memory, as the `metrics` and `verbose` records report it.

use std::sync::OnceLock;

/// The resident set size of this process in bytes, when the platform tells
/// it (Linux: `/proc/self/statm`).
#[must_use]
pub(crate) fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size())
}

/// How old a sampled resident set size may be.
pub(crate) const RSS_SAMPLE_INTERVAL: std::time::Duration = std::time::Duration::from_millis(100);

/// [`rss_bytes`], read at most once per [`RSS_SAMPLE_INTERVAL`]: reading
/// it costs a few microseconds, more than the rest of the contract.
#[must_use]
pub(crate) fn rss_bytes_sampled() -> Option<u64> {
    rss_bytes_sampled_at(std::time::Instant::now())
}

/// [`rss_bytes_sampled`] as of `now`, for a caller that has just read the
/// clock (one reading of it serves the whole end of an invocation).
#[must_use]
pub(crate) fn rss_bytes_sampled_at(now: std::time::Instant) -> Option<u64> {
    use std::sync::atomic::{AtomicU64, Ordering};
    const UNKNOWN: u64 = u64::MAX;
    static READ_AT: AtomicU64 = AtomicU64::new(0);
    static VALUE: AtomicU64 = AtomicU64::new(UNKNOWN);
    // Microseconds since the epoch, plus one so that 0 means "never read".
    let now = micros_since_epoch(now).saturating_add(1);
    let read_at = READ_AT.load(Ordering::Relaxed);
    let interval = u64::try_from(RSS_SAMPLE_INTERVAL.as_micros()).unwrap_or(u64::MAX);
    if read_at == 0 || now.saturating_sub(read_at) >= interval {
        let value = rss_bytes().unwrap_or(UNKNOWN);
        VALUE.store(value, Ordering::Relaxed);
        READ_AT.store(now, Ordering::Relaxed);
    }
    Some(VALUE.load(Ordering::Relaxed)).filter(|&v| v != UNKNOWN)
}

/// Whole microseconds from the first time this is asked (the process's
/// metrics epoch) to `now`; 0 for a `now` before it.
pub(crate) fn micros_since_epoch(now: std::time::Instant) -> u64 {
    static EPOCH: OnceLock<std::time::Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(|| now);
    let since = now.saturating_duration_since(epoch);
    // Seconds and sub-second parts apart: no 128-bit arithmetic.
    since
        .as_secs()
        .saturating_mul(1_000_000)
        .saturating_add(u64::from(since.subsec_micros()))
}

fn page_size() -> u64 {
    static PAGE: OnceLock<u64> = OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf has no preconditions; it returns -1 on error.
        let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        u64::try_from(size).ok().filter(|&s| s > 0).unwrap_or(4096)
    })
}

/// The memory limit of this process's control group in bytes (v2
/// `memory.max`, v1 `memory.limit_in_bytes`), when it has one.
/// [`crate::Context::from_env`] prefers `CCFN_MEMORY_LIMIT_BYTES`.
#[must_use]
pub(crate) fn memory_limit_bytes() -> Option<u64> {
    [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .find_map(|path| parse_limit(&std::fs::read_to_string(path).ok()?))
}

/// A cgroup limit file's value; `max` and the v1 "no limit" sentinel mean none.
fn parse_limit(text: &str) -> Option<u64> {
    let bytes: u64 = text.trim().parse().ok()?;
    (bytes < (1 << 60)).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn rss_is_known_on_linux() {
        let rss = rss_bytes().expect("statm is readable on Linux");
        assert!(
            rss > 1024 * 1024,
            "a test process uses more than 1 MiB: {rss}"
        );
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn sampled_rss_is_close_to_the_fresh_one() {
        let sampled = rss_bytes_sampled().expect("known on Linux");
        let fresh = rss_bytes().expect("known on Linux");
        assert!(
            sampled.abs_diff(fresh) < 64 * 1024 * 1024,
            "{sampled} vs {fresh}"
        );
    }

    #[test]
    fn microseconds_since_the_epoch_count_up_from_it() {
        let first = std::time::Instant::now();
        let at = micros_since_epoch(first);
        let later = first + std::time::Duration::new(3, 250_000);
        assert_eq!(micros_since_epoch(later), at + 3_000_250);
        // An instant before the epoch counts as the epoch.
        let seconds = std::time::Duration::from_secs(at / 1_000_000 + 1);
        if let Some(before) = first.checked_sub(seconds) {
            assert_eq!(micros_since_epoch(before), 0);
        }
    }

    #[test]
    fn cgroup_limit_values() {
        assert_eq!(parse_limit("max\n"), None);
        assert_eq!(parse_limit("9223372036854771712\n"), None);
        assert_eq!(parse_limit("268435456\n"), Some(268_435_456));
        assert_eq!(parse_limit(""), None);
    }
}
