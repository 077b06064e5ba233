//! One depth of the search: expand every entry of a beam and keep the best
//! `width` distinct children.
//!
//! The beam is read a block at a time, from its depth file (where it is
//! never in memory whole) or from the wells the depth before kept
//! ([`Beam`]), and its blocks are cut into chunks that the threads
//! expand. For each parent the adversary gives a piece and leaves its
//! children in a buffer the thread reuses, the evaluator costs them in one
//! batch call, and the children go, in batches, into one shared
//! [`Bounded`] set of the best `width` distinct children under the total
//! order (cost, score, well, parent). Once the set is full, its worst cost
//! is published, and a child that costs more is dropped before it reaches
//! the lock: the set only gets better, so such a child can never make the
//! final cut. The set is exact whatever the order of insertion, so the
//! result does not depend on the thread count or timing.
//!
//! Under the set's lock a batch is only pushed. The compaction of a full
//! buffer (17 a depth at width 100,000, 5.7 % of a single thread's time,
//! 14 % before it sorted only the new candidates: [`compact_sorted`])
//! runs after the lock is let go, on the thread whose batch filled the
//! buffer, while the others go on pushing into a fresh one. The survivors
//! come back in one swap when they fit with what the others pushed
//! meanwhile; when they do not, both buffers go out
//! again and are compacted as one ([`gather`]). Compacting any part of
//! the offers never loses a winner, so this is as exact as compacting in
//! place (a test checks buffers compacted in any order, alone or together,
//! or not at all, against the `BTreeSet` twin).
//!
//! Two things, found by reading and by the figures below (a 2-core machine
//! cannot show more), would hold the threads up at the ends of the
//! expansions, where they sat 35 % of their time on 16 threads (issue 36):
//!
//! - the survivors, nearly `width` of them, were offered back one by one,
//!   under the lock, into a buffer with room for `width / 8` more: merging
//!   two compacted sets cost about eight compactions in a row on one
//!   thread, the lock held all along but for the sorts, and a thread
//!   giving back at a depth's end kept all the others waiting (at width
//!   10^6 a compaction is about 0.15 s). Now a merge is one compaction.
//! - a compaction begun near the end outlasted the others' last parts.
//!   Now none is begun when the beam's entries not yet begun would, at the
//!   pace so far, take less than twice the last one ([`Shared::ending`]):
//!   a full buffer is then spilled, uncompacted, and the final cut
//!   ([`Bounded::into_sorted_by_well`]) sorts it on the whole pool.
//!
//! On 8 threads time-sliced on 2 cores (as many compactions overlap as on
//! a big box), `hatetris bench search --width 100000 --depths 20 --threads
//! 1,2,8`, before and after in turn: the lock held 3.15 s → 1.06 s and
//! waited for 18.2 s → 5.5 s (8.9 % → 3.2 % of the threads' expand time),
//! idle 8.1 s → 1.8 s (4.0 % → 1.0 %); select, which now sorts the spilled
//! buffers, 0.28 s → 0.60 s. The compactions are logged per depth
//! (`Phases::compact`, `compactions`).
//!
//! The lock stays because it is cheap: held 0.2 % of the threads' time,
//! it would be busy about 13 % of the time with 64 threads (a queue that
//! rarely forms) and caps the speed-up near 500. The way to drop it, a
//! set per thread under a shared bar merged at the end, multiplies the
//! set's memory (36 bytes per beam entry) by the thread count. The time
//! held and waited for is logged per depth (`Phases::locked`, `waited`).
//!
//! The kernel knows nothing of files beyond reading the beam, nor of
//! printing: the caller writes the result, and progress goes to the
//! [`Observer`]. Its inner loop, one parent's children costed and
//! offered, is the one the sharded search runs too ([`super::expand`]).
//!
//! Memory: one bounded set (36 bytes per kept child), and per thread's
//! run of parts a distinct-count sketch, a child buffer and a batch of
//! [`BATCH`] candidates; nothing per child or per part is allocated. With
//! several threads, the buffers taken out to be compacted live beside the
//! one the other threads fill, so the peak holds more than one (measured
//! in [`super::memory::BYTES_PER_EXTRA_THREAD`]); two gathered to be
//! compacted as one take up to twice a buffer, and the buffers spilled at
//! the end are held until the final cut.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use super::adversary::{Adversary, BeamHistory};
use super::beam::Beam;
use super::bounded::{compact_sorted, gather, Bounded, Candidate, Full};
use super::distinct::Distinct;
use super::expand::{ParentStep, Scratch};
use super::expander::{DepthJob, Expanded, Timing};
use super::lineage::{self, LineageCap};
use super::{Observer, Search, Silent};
use crate::evaluate::Evaluator;
use crate::run::store::{self, DepthFile, StoreError, Stored};

/// What one depth needs besides the beam.
pub(crate) struct Kernel<'a> {
    /// Ranks the children.
    pub eval: &'a dyn Evaluator,
    /// Gives each parent its piece.
    pub adversary: Adversary,
    /// The beam's history, for an adversary that keeps one.
    pub history: Option<&'a BeamHistory>,
    /// Children kept.
    pub width: usize,
    /// At most so many children of one ancestor (needs `history`).
    pub lineage: Option<LineageCap>,
    /// Threads in the pool the kernel runs in.
    pub threads: usize,
}

/// Time spent on the shared set's lock, in nanoseconds.
#[derive(Default)]
struct LockTime {
    held: AtomicU64,
    waited: AtomicU64,
}

impl LockTime {
    /// Runs `f` on the locked set, timing the wait and the hold.
    fn with<T>(&self, set: &Mutex<Bounded>, f: impl FnOnce(&mut Bounded) -> T) -> T {
        let asked = Instant::now();
        let mut guard = set.lock().expect("no thread panics while holding the set");
        let got = Instant::now();
        let out = f(&mut guard);
        drop(guard);
        let nanos = |d: std::time::Duration| d.as_nanos() as u64;
        self.waited.fetch_add(nanos(got - asked), Ordering::Relaxed);
        self.held.fetch_add(nanos(got.elapsed()), Ordering::Relaxed);
        out
    }
}

/// Candidates a thread gathers before taking the shared set's lock.
const BATCH: usize = 1024;

/// The most entries of the beam in one part: the unit a thread takes, so
/// at the end of an expansion a thread that runs out of work waits at
/// most one part for the others. Parts of a whole block (4,096 entries,
/// about 0.1 s of work at width 100,000) left 2 threads idle 1.9 % of
/// their expand time at width 100,000; parts of 512, 0.36 %; of 128,
/// 0.24 % (the idle share of `hatetris bench search --width 100000
/// --depths 30 --threads 1,2`). A part costs no allocation (see `Worker`),
/// and at 1 thread none is stolen; smaller parts once looked 5-8 %
/// slower, but the distinct-count sketch then cost most of a `Worker`'s
/// start.
const PART: usize = 512;

/// The fewest parts a thread gets, for beams too narrow for parts of
/// `PART`: a thread then waits at the end for about half a part, 1/64 of
/// its share. (With 8 parts a thread, 2 threads idled 4.5-5.2 % of their
/// expand time at width 2,000 and 3.0-4.4 % at 5,000; with 32, 3.1-3.6 %
/// and 1.9-2.0 %. At width 100,000 this sets parts of 49 entries on 64
/// threads.)
const PARTS_PER_THREAD: usize = 32;

/// What a thread carries from part to part of a block: the inner loop's
/// counts, sketch and buffers, and its batch for the shared set (so
/// nothing is allocated per part).
struct Worker {
    scratch: Scratch,
    batch: Vec<Candidate>,
}

impl Worker {
    fn new() -> Worker {
        Worker {
            scratch: Scratch::new(),
            batch: Vec::with_capacity(BATCH),
        }
    }
}

/// How far the expansion has got, and what its compactions took: what
/// [`Shared::ending`] weighs.
struct Progress {
    /// When the expansion began.
    clock: Instant,
    /// The beam's entries.
    len: usize,
    /// Entries whose part has begun.
    begun: AtomicUsize,
    /// Compactions run, their nanoseconds summed over the threads, and the
    /// nanoseconds of the last one to finish.
    compactions: AtomicU64,
    compact_ns: AtomicU64,
    last_ns: AtomicU64,
}

impl Progress {
    fn new(len: usize) -> Progress {
        Progress {
            clock: Instant::now(),
            len,
            begun: AtomicUsize::new(0),
            compactions: AtomicU64::new(0),
            compact_ns: AtomicU64::new(0),
            last_ns: AtomicU64::new(0),
        }
    }

    fn compacted(&self, took: std::time::Duration) {
        let ns = took.as_nanos() as u64;
        self.compactions.fetch_add(1, Ordering::Relaxed);
        self.compact_ns.fetch_add(ns, Ordering::Relaxed);
        self.last_ns.store(ns, Ordering::Relaxed);
    }
}

/// The kept set, shared by the threads, with what they need to reach it.
struct Shared<'a> {
    kept: &'a Mutex<Bounded>,
    time: &'a LockTime,
    /// The cost of the set's worst kept child once it is full (`f64` bits):
    /// a child that costs more can never make the cut.
    worst: &'a AtomicU64,
    progress: &'a Progress,
    width: usize,
}

impl Shared<'_> {
    /// Gives `batch` to the set (emptying it). Under the lock a batch is
    /// only pushed; a buffer it fills is taken out and compacted (the sort
    /// that costs) after the lock is let go, and its survivors are swapped
    /// back in (see `Bounded::give_back`); buffers taken out together are
    /// compacted as one. Near the expansion's end (see
    /// [`Shared::ending`]) a full buffer is spilled instead, uncompacted,
    /// for the final cut.
    fn flush(&self, batch: &mut Vec<Candidate>) {
        let publish = |set: &Bounded| {
            if let Some(cost) = set.worst_cost_if_full() {
                self.worst.store(cost.to_bits(), Ordering::Relaxed);
            }
        };
        let mut pending: Vec<Full> = Vec::new();
        self.time.with(self.kept, |set| {
            for c in batch.drain(..) {
                if let Some(full) = set.offer(c) {
                    pending.push(full);
                }
            }
            publish(set);
        });
        // Buffers emptied on the way: kept by the set for its next one
        // (`Bounded::recycle`), or dropped outside the lock.
        let mut emptied: Vec<Vec<Candidate>> = Vec::new();
        let recycle = |set: &mut Bounded, emptied: &mut Vec<Vec<Candidate>>| {
            let mut dropped = Vec::new();
            for e in emptied.drain(..) {
                dropped.extend(set.recycle(e));
            }
            dropped
        };
        while !pending.is_empty() {
            let mut full = gather(&mut pending, |t| emptied.push(t));
            if self.ending() {
                let dropped = self.time.with(self.kept, |set| {
                    set.spill(full.buf);
                    recycle(set, &mut emptied)
                });
                drop(dropped);
                continue;
            }
            let clock = Instant::now();
            let bar = compact_sorted(&mut full.buf, full.settled, self.width);
            self.progress.compacted(clock.elapsed());
            let dropped = self.time.with(self.kept, |set| {
                emptied.push(set.give_back(full.buf, bar, &mut pending));
                publish(set);
                recycle(set, &mut emptied)
            });
            drop(dropped);
        }
    }

    /// Whether a compaction begun now would likely outlast the expansion:
    /// the entries not yet begun, at the pace so far, take less than twice
    /// the last compaction. Such a compaction, on one thread, is what the
    /// others would wait for at the end, where the final cut sorts on the
    /// whole pool.
    fn ending(&self) -> bool {
        let p = self.progress;
        let begun = p.begun.load(Ordering::Relaxed);
        let left = p.len.saturating_sub(begun) as u128;
        let elapsed = p.clock.elapsed().as_nanos();
        let last = u128::from(p.last_ns.load(Ordering::Relaxed));
        left == 0 || left * elapsed < 2 * last * begun as u128
    }
}

impl Kernel<'_> {
    /// Expands every entry of the job's beam (run inside the caller's
    /// thread pool), or `None` when `stop` turned true meanwhile (the parts
    /// not yet begun are skipped, so a stop takes effect within one part
    /// per thread). The kernel writes nothing: the job's `write` is the
    /// depth loop's, and its snapshot bytes are for other processes.
    pub(crate) fn expand(
        &self,
        job: &DepthJob,
        observer: &dyn Observer,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Option<Expanded>, StoreError> {
        let beam = job.beam;
        // The slots Brzustowski writes each entry's next state to.
        let next = self
            .history
            .map_or_else(Vec::new, |h| h.next_slots(beam.len()));
        let step = ParentStep {
            eval: self.eval,
            adversary: self.adversary,
            history: self.history,
            next: &next,
        };
        // With a lineage cap the set keeps a pool for the cut to choose
        // from, and each parent's ancestor is looked up before the
        // expansion (the history moves on only after it).
        let capped = self.lineage.map(|cap| {
            let history = self
                .history
                .expect("a lineage cap needs the beam's history");
            (cap, history.ancestry.ancestors(cap.up()))
        });
        let pool = match capped {
            Some(_) => self.width.saturating_mul(lineage::POOL),
            None => self.width,
        };
        let kept = Mutex::new(Bounded::new(pool));
        let worst = AtomicU64::new(f64::INFINITY.to_bits());
        let time = LockTime::default();
        let progress = Progress::new(beam.len());
        let shared = Shared {
            kept: &kept,
            time: &time,
            worst: &worst,
            progress: &progress,
            width: pool,
        };
        // Parts of at most `PART` entries, at least `PARTS_PER_THREAD` per
        // thread, so that a narrow beam still feeds every thread.
        let part_len = PART
            .min(beam.len().div_ceil(self.threads.max(1) * PARTS_PER_THREAD))
            .max(1);
        // Blocks are decoded in parallel and cut into parts, which threads
        // take as they go. Each run of parts a thread takes from a block is
        // folded into one `Worker` (rayon's `fold`), so a part costs no
        // allocation and no sketch of its own; the workers' counts and
        // sketches are merged at the end.
        type Tally = (u64, Distinct);
        let merge = |mut a: Tally, b: Tally| {
            a.0 += b.0;
            a.1.merge(&b.1);
            a
        };
        // When each thread last finished a part, in nanoseconds from the
        // start: the rest of the expansion it sat idle.
        let started = Instant::now();
        let finished: Vec<AtomicU64> = (0..self.threads.max(1))
            .map(|_| AtomicU64::new(0))
            .collect();
        let done = || {
            let t = rayon::current_thread_index().unwrap_or(0);
            if let Some(f) = finished.get(t) {
                f.store(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
            }
        };
        let depth = beam.depth();
        let (children, distinct) = (0..beam.blocks())
            .into_par_iter()
            .map(|b| -> Result<Tally, StoreError> {
                let entries = beam.block(b)?;
                let base = b * store::BLOCK;
                Ok(entries
                    .par_chunks(part_len)
                    .enumerate()
                    .fold(Worker::new, |mut w, (i, part)| {
                        if stop() {
                            return w;
                        }
                        progress.begun.fetch_add(part.len(), Ordering::Relaxed);
                        expand_part(&step, &mut w, part, base + i * part_len, depth, &shared);
                        observer.expanded(part.len() as u64);
                        done();
                        w
                    })
                    .map(|mut w| {
                        shared.flush(&mut w.batch);
                        done();
                        (w.scratch.children, w.scratch.distinct)
                    })
                    .reduce(Tally::default, merge))
            })
            .try_reduce(Tally::default, |a, b| Ok(merge(a, b)))?;
        if stop() {
            return Ok(None);
        }
        let end = started.elapsed().as_nanos() as u64;
        let idle: u64 = finished
            .iter()
            .map(|f| end - f.load(Ordering::Relaxed).min(end))
            .sum();
        let kept = kept.into_inner().expect("no thread panicked");
        let selecting = Instant::now();
        let mut kept = kept.into_sorted_by_well();
        let mut cut = None;
        if let Some((cap, ancestor)) = capped {
            let (capped, figures) = lineage::cut(kept, &ancestor, self.width, cap.most);
            (kept, cut) = (capped, Some(figures));
        }
        Ok(Some(Expanded {
            kept,
            lineage: cut,
            children,
            unique: distinct.count(),
            // In place: an atomic has its integer's layout.
            states: next.into_iter().map(AtomicU32::into_inner).collect(),
            timing: Timing {
                select_s: selecting.elapsed().as_secs_f64(),
                locked_s: time.held.into_inner() as f64 * 1e-9,
                waited_s: time.waited.into_inner() as f64 * 1e-9,
                idle_s: idle as f64 * 1e-9,
                compact_s: progress.compact_ns.into_inner() as f64 * 1e-9,
                compactions: progress.compactions.into_inner(),
            },
            ..Expanded::default()
        }))
    }
}

/// Expands `part`, the beam's entries from index `first` on, into `w`
/// and, a batch at a time, the shared set.
fn expand_part(
    step: &ParentStep,
    w: &mut Worker,
    part: &[Stored],
    first: usize,
    depth: u32,
    shared: &Shared,
) {
    let worst = || f64::from_bits(shared.worst.load(Ordering::Relaxed));
    for (j, e) in part.iter().enumerate() {
        let index = (first + j) as u32;
        step.expand(e, index, depth, &mut w.scratch, worst, |_, c| {
            w.batch.push(c);
            if w.batch.len() == BATCH {
                shared.flush(&mut w.batch);
            }
        });
    }
}

/// Why one depth could not be expanded on its own ([`expand_depth`]).
#[derive(Debug, thiserror::Error)]
pub enum DepthError {
    /// The beam's depth file.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// The enemy's pieces depend on each entry's past, which one depth file
    /// does not hold.
    #[error("{0} keeps a history: one depth cannot be expanded on its own")]
    History(crate::enemy::EnemyKind),
    /// A lineage cap needs the history one depth file does not hold.
    #[error("a lineage cap needs the beam's history: one depth cannot be expanded with it")]
    Lineage,
    /// A thread pool could not be built.
    #[error("cannot start {0} threads: {1}")]
    Threads(usize, String),
}

/// One depth of today's search on its own: the kept children of `beam`
/// (sorted by well, each with its parent's index in `beam`), expanded on
/// `threads` threads. Only for an enemy that keeps no history. The twin
/// the sharded depth ([`crate::distributed::expand_depth`]) is held to.
pub fn expand_depth(
    beam: &DepthFile,
    search: &Search,
    threads: usize,
) -> Result<Vec<Candidate>, DepthError> {
    if search.adversary.keeps_history() {
        return Err(DepthError::History(search.adversary.kind()));
    }
    if search.lineage.is_some() {
        return Err(DepthError::Lineage);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| DepthError::Threads(threads, e.to_string()))?;
    let kernel = Kernel {
        eval: search.evaluator,
        adversary: search.adversary,
        history: None,
        width: search.width,
        lineage: None,
        threads,
    };
    let job = DepthJob {
        beam: Beam::File(beam),
        history: None,
        expand: true,
        write: false,
    };
    let expanded = pool.install(|| kernel.expand(&job, &Silent, &|| false))?;
    Ok(expanded.expect("never asked to stop").kept)
}
