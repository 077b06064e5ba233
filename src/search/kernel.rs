//! One depth of the search: expand every entry of a beam and keep the best
//! `width` distinct children.
//!
//! The beam is read from its depth file a block at a time (it is never in
//! memory whole), and its blocks are cut into chunks that the threads
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
//! Under the set's lock a batch is only pushed. The sort that compacts a
//! full buffer (about a tenth of a single thread's time at width 100,000,
//! and all of it serial while it ran under the lock) runs after the lock
//! is let go, on the thread whose batch filled the buffer, while the others
//! go on pushing into a fresh one; the survivors come back the same way.
//! Compacting any part of the offers never loses a winner, so this is as
//! exact as compacting in place (a test checks buffers compacted in any
//! order against the `BTreeSet` twin).
//!
//! The kernel knows nothing of files beyond reading the beam, nor of
//! printing: the caller writes the result, and progress goes to the
//! [`Observer`].
//!
//! Memory: one bounded set (36 bytes per kept child), one distinct-count
//! sketch per part in flight, and per thread a child buffer and a batch of
//! [`BATCH`] candidates; nothing per child is allocated.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use super::adversary::{Adversary, History};
use super::ancestry::well_hash;
use super::bounded::{compact, Bounded, Candidate};
use super::distinct::Distinct;
use super::Observer;
use crate::evaluate::Evaluator;
use crate::movegen::{Child, MoveGen};
use crate::run::store::{self, DepthFile, StoreError, Stored};

/// What one depth needs besides the beam.
pub(crate) struct Kernel<'a> {
    /// Ranks the children.
    pub eval: &'a dyn Evaluator,
    /// Gives each parent its piece.
    pub adversary: Adversary,
    /// The beam's history, for an adversary that keeps one.
    pub history: Option<&'a History>,
    /// One slot per beam entry for the state its children inherit (empty
    /// unless the adversary keeps per-entry states).
    pub next: &'a [AtomicU32],
    /// Children kept.
    pub width: usize,
    /// Threads in the pool the kernel runs in.
    pub threads: usize,
}

/// What one depth produced.
pub(crate) struct Expansion {
    /// The kept children, sorted by well.
    pub kept: Vec<Candidate>,
    /// Children generated.
    pub children: u64,
    /// Distinct children (an estimate, see [`Distinct`]).
    pub unique: u64,
    /// Seconds of the final cut and sort (part of the expansion's time).
    pub select_s: f64,
}

/// Candidates a thread gathers before taking the shared set's lock.
const BATCH: usize = 1024;

impl Kernel<'_> {
    /// Expands every entry of `beam` (run inside the caller's thread pool),
    /// or `None` when `stop` turned true meanwhile (the parts not yet begun
    /// are skipped, so a stop takes effect within one part per thread).
    pub(crate) fn expand(
        &self,
        beam: &DepthFile,
        observer: &dyn Observer,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Option<Expansion>, StoreError> {
        let kept = Mutex::new(Bounded::new(self.width));
        let worst = AtomicU64::new(f64::INFINITY.to_bits());
        // Blocks are decoded in parallel, and each block is cut into chunks
        // so that a beam of one or two blocks still feeds every thread.
        let chunk = store::BLOCK
            .min(beam.len().div_ceil(self.threads.max(1) * 8))
            .max(1);
        // Counts and sketches are folded as parts finish, so only a few
        // sketches are alive at once, not one per part.
        type Tally = (u64, Distinct);
        let merge = |mut a: Tally, b: Tally| {
            a.0 += b.0;
            a.1.merge(&b.1);
            a
        };
        let depth = beam.depth();
        let (children, mut distinct) = (0..beam.blocks())
            .into_par_iter()
            .map(|b| -> Result<Tally, StoreError> {
                let entries = beam.block(b)?;
                let base = b * store::BLOCK;
                Ok(entries
                    .par_chunks(chunk)
                    .enumerate()
                    .map(|(ci, part)| {
                        if stop() {
                            return Tally::default();
                        }
                        let tally = self.expand_part(part, base + ci * chunk, depth, &kept, &worst);
                        observer.expanded(part.len() as u64);
                        tally
                    })
                    .reduce(Tally::default, merge))
            })
            .try_reduce(Tally::default, |a, b| Ok(merge(a, b)))?;
        if stop() {
            return Ok(None);
        }
        let kept = kept.into_inner().expect("no thread panicked");
        let selecting = std::time::Instant::now();
        let kept = kept.into_sorted_by_well();
        Ok(Some(Expansion {
            kept,
            children,
            unique: distinct.count(),
            select_s: selecting.elapsed().as_secs_f64(),
        }))
    }

    /// Expands `part`, the beam's entries from index `first` on, into the
    /// shared set; returns the number of children and their distinct-count
    /// sketch.
    fn expand_part(
        &self,
        part: &[Stored],
        first: usize,
        depth: u32,
        kept: &Mutex<Bounded>,
        worst: &AtomicU64,
    ) -> (u64, Distinct) {
        let mut buf: Vec<Child> = Vec::with_capacity(128);
        let mut costs: Vec<f64> = Vec::with_capacity(128);
        let mut batch: Vec<Candidate> = Vec::with_capacity(BATCH);
        let mut distinct = Distinct::default();
        let mut children = 0u64;
        // Under the lock a batch is only pushed; a buffer it fills is taken
        // out and compacted (the sort that costs) after the lock is let go,
        // and its survivors go back in the same way.
        let lock = || kept.lock().expect("no thread panics while holding the set");
        let flush = |batch: &mut Vec<Candidate>| {
            let mut pending: Vec<Vec<Candidate>> = Vec::new();
            let give = |set: &mut Bounded,
                        from: &mut Vec<Candidate>,
                        pending: &mut Vec<Vec<Candidate>>| {
                for c in from.drain(..) {
                    if let Some(full) = set.offer(c) {
                        pending.push(full);
                    }
                }
                if let Some(cost) = set.worst_cost_if_full() {
                    worst.store(cost.to_bits(), Ordering::Relaxed);
                }
            };
            give(&mut lock(), batch, &mut pending);
            while let Some(mut full) = pending.pop() {
                let bar = compact(&mut full, self.width);
                let mut set = lock();
                set.tighten(bar);
                give(&mut set, &mut full, &mut pending);
            }
        };
        for (j, e) in part.iter().enumerate() {
            let index = first + j;
            let gen = MoveGen::new(&e.well);
            self.adversary
                .give(&gen, depth, index, self.history, self.next, &mut buf);
            children += buf.len() as u64;
            self.eval
                .costs(&e.well, u32::from(e.score), &buf, &mut costs);
            for (c, &cost) in buf.iter().zip(&costs) {
                distinct.insert(well_hash(&c.well));
                if cost > f64::from_bits(worst.load(Ordering::Relaxed)) {
                    continue;
                }
                batch.push(Candidate {
                    cost,
                    well: c.well.pack(),
                    parent: index as u32,
                });
                if batch.len() == BATCH {
                    flush(&mut batch);
                }
            }
        }
        flush(&mut batch);
        (children, distinct)
    }
}
