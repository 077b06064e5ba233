//! The threaded batch runner shared by every `stats` and `train`.
//!
//! Job `i` runs on thread `i mod t` (round-robin, so long and short jobs
//! spread evenly when their cost drifts with `i`), and results are put back
//! in job order before anyone sums them. A job is a pure function of its
//! index, so a batch's output does not depend on the thread count; the
//! tests check this for each game. Scoped threads, no pool: a batch lasts
//! seconds to hours, so spawning two threads per batch costs nothing.

/// Runs `job(0) .. job(n - 1)` on up to `threads` threads (at least one)
/// and returns the results in index order.
pub fn run_indexed<T, F>(n: usize, threads: usize, job: F) -> Vec<T>
where
    T: Send,
    F: Fn(usize) -> T + Sync,
{
    let threads = threads.clamp(1, n.max(1));
    if threads == 1 {
        return (0..n).map(&job).collect();
    }
    let mut slots: Vec<Option<T>> = (0..n).map(|_| None).collect();
    std::thread::scope(|scope| {
        let job = &job;
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    (t..n)
                        .step_by(threads)
                        .map(|i| (i, job(i)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            // A panic in a job is a bug; re-raise it on the caller's thread.
            let part = h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
            for (i, r) in part {
                slots[i] = Some(r);
            }
        }
    });
    slots
        .into_iter()
        .map(|r| r.expect("every index is run by exactly one thread"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order_for_any_thread_count() {
        let want: Vec<u64> = (0..37).map(|i| (i as u64) * (i as u64)).collect();
        for t in [0, 1, 2, 3, 8, 100] {
            assert_eq!(run_indexed(37, t, |i| (i as u64) * (i as u64)), want);
        }
        assert!(run_indexed(0, 4, |i| i).is_empty());
    }
}
