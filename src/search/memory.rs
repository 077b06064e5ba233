//! Memory: the process's as the operating system reports it, for the
//! per-depth statistics; the machine's, and what a width needs, for the
//! command line's check before a search. The machine's available memory
//! comes from `sysinfo` on every system; the process's peak only on Linux
//! (`sysinfo` reports the current resident set, not its peak), elsewhere
//! it is absent.

/// The process's peak resident set size (`VmHWM`), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Bytes assumed per beam entry by [`bytes_needed`] with one thread.
///
/// Measured as the slope of the peak RSS between `hatetris bench search
/// --width 100000 --depths 30 --threads 1` and the same at `--width
/// 300000` (against HATETRIS): 68 bytes per entry on one thread, with the
/// beam's wells held during their own expansion (see the [module
/// doc](super)). Whole runs add about 11 as the ancestry grows (an older
/// build measured 49 over 30 depths, 60 over whole runs). 96 leaves a
/// margin for longer runs and allocator slack.
pub const BYTES_PER_ENTRY: u64 = 96;

/// Bytes assumed per beam entry for each thread past the first, up to
/// [`EXTRA_THREADS`] of them.
///
/// With several threads the kept set's full buffer (36 bytes an entry) is
/// compacted outside the lock while the others fill a new one, so the peak
/// holds more than one buffer. Measured (as for [`BYTES_PER_ENTRY`]): 68
/// bytes an entry on 1 thread, 109 on 2, and 175 on 8 (time-sliced on this
/// 2-core machine, so compactions overlap as on a big box; the build before
/// this one, which did not hold the beam, took 211 there: how many buffers
/// overlap depends on the scheduling). A later run of the same commands
/// with `--threads 1` and `--threads 2` gave 68 again and 125 (22.0 →
/// 35.5 MB and 26.2 → 51.2 MB). So the first extra thread adds about
/// 41 and the next six together 66-100: the estimate charges 56 for each of
/// the first three and nothing past them, 264 bytes an entry from 4
/// threads on. Not measured on a big box; if compactions overlap more
/// there, the peak may be higher. After the kept set's buffers began to
/// be gathered and spilled (see `search::kernel`), the peak of `hatetris
/// bench search --width 300000 --depths 10 --threads 8` was 98-133 MB
/// over 6 runs, against 106-115 MB over 3 before (the estimate: 146 MB);
/// an intermediate build whose gathers grew a buffer by reallocation,
/// 137-221 MB: a peak here is how many buffers are live at once.
pub const BYTES_PER_EXTRA_THREAD: u64 = 56;

/// Threads past the first that [`bytes_needed`] charges for.
pub const EXTRA_THREADS: u64 = 3;

/// Bytes assumed whatever the width by [`bytes_needed`]. The measurements
/// of [`BYTES_PER_ENTRY`] put the base at 14-15 MB on 1 or 2 threads (21.4 MB at
/// width 100,000 less 68 bytes per entry; 24.6 MB less 109) and 38.6 MB
/// on 8; 64 MiB leaves room for more threads and a bigger allocator
/// reserve.
pub const BASE_BYTES: u64 = 64 << 20;

/// A generous estimate of the peak memory of a search of this width on
/// this many threads, in bytes: [`BASE_BYTES`] plus, per beam entry,
/// [`BYTES_PER_ENTRY`] and [`BYTES_PER_EXTRA_THREAD`] for each thread past
/// the first (at most [`EXTRA_THREADS`]). The quiescent lookahead does not
/// change it (it keeps only a small set per thread during one evaluation).
///
/// Saturates at `u64::MAX` instead of overflowing, whatever the width.
pub fn bytes_needed(width: usize, threads: usize) -> u64 {
    let extra = (threads.max(1) as u64 - 1).min(EXTRA_THREADS);
    let per_entry = BYTES_PER_ENTRY + BYTES_PER_EXTRA_THREAD * extra;
    u64::try_from(width)
        .unwrap_or(u64::MAX)
        .saturating_mul(per_entry)
        .saturating_add(BASE_BYTES)
}

/// The memory this process could use now, in bytes: free memory plus
/// what the system can reclaim (on Linux `MemAvailable`), through
/// `sysinfo`; `None` when the system does not say.
pub fn machine_bytes() -> Option<u64> {
    let mut system = sysinfo::System::new();
    system.refresh_memory();
    Some(system.available_memory()).filter(|&b| b > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_grows_with_the_width_and_never_overflows() {
        assert_eq!(bytes_needed(0, 1), BASE_BYTES);
        assert_eq!(bytes_needed(1_000_000, 1), BASE_BYTES + 96_000_000);
        assert_eq!(bytes_needed(usize::MAX, 1), u64::MAX);
        assert!(bytes_needed(1 << 40, 1) > bytes_needed(1 << 39, 1));
    }

    /// More threads hold more of the kept set's buffers at the peak, up to
    /// a cap.
    #[test]
    fn the_estimate_grows_with_the_threads_up_to_a_cap() {
        let w = 1_000_000;
        assert_eq!(bytes_needed(w, 0), bytes_needed(w, 1));
        assert_eq!(bytes_needed(w, 2), BASE_BYTES + 152_000_000);
        assert!(bytes_needed(w, 4) > bytes_needed(w, 3));
        assert_eq!(bytes_needed(w, 64), bytes_needed(w, 4));
    }
}
