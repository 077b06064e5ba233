//! Memory: the process's as the operating system reports it, for the
//! per-depth statistics; the machine's, and what a width needs, for the
//! command line's check before a search. Linux only; elsewhere the figures
//! are absent.

/// The process's peak resident set size (`VmHWM`), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Bytes assumed per beam entry by [`bytes_needed`].
///
/// Measured (see the [module doc](super)): 49 bytes per entry over 30
/// depths and 60 over whole runs, where the ancestry grows to 0.9 node per
/// entry. 80 leaves a third more for longer runs and allocator slack.
pub const BYTES_PER_ENTRY: u64 = 80;

/// Bytes assumed whatever the width by [`bytes_needed`]. The module doc's
/// measurements put the base at 11-13 MB (16.3 MB at width 100,000 less
/// 49 bytes per entry; 18.9 MB less 60); 64 MiB leaves room for more
/// threads and a bigger allocator reserve.
pub const BASE_BYTES: u64 = 64 << 20;

/// A generous estimate of the peak memory of a search of this width, in
/// bytes: [`BASE_BYTES`] plus [`BYTES_PER_ENTRY`] per beam entry. The
/// quiescent lookahead does not change it (it keeps only a small set per
/// thread during one evaluation), nor does the thread count beyond the base.
///
/// Saturates at `u64::MAX` instead of overflowing, whatever the width.
pub fn bytes_needed(width: usize) -> u64 {
    u64::try_from(width)
        .unwrap_or(u64::MAX)
        .saturating_mul(BYTES_PER_ENTRY)
        .saturating_add(BASE_BYTES)
}

/// The memory this process could use now, in bytes: `MemAvailable` from
/// `/proc/meminfo` (free memory plus what the kernel can reclaim), or
/// `MemTotal` on kernels without it; `None` when neither can be read.
pub fn machine_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = info.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        kb.checked_mul(1024)
    };
    field("MemAvailable:").or_else(|| field("MemTotal:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_grows_with_the_width_and_never_overflows() {
        assert_eq!(bytes_needed(0), BASE_BYTES);
        assert_eq!(bytes_needed(1_000_000), BASE_BYTES + 80_000_000);
        assert_eq!(bytes_needed(usize::MAX), u64::MAX);
        assert!(bytes_needed(1 << 40) > bytes_needed(1 << 39));
    }
}
