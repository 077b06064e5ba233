//! Step 2 of a turn: the beam expanded (by the kernel, or the
//! [`DepthExpander`]) on the search's pool while the selected beam's depth
//! file is written on a pool of its own (the writer's, one thread per 16
//! of the search's) and its history snapshot on a thread of its own.
//!
//! The write once shared the search's pool (`rayon::join`). Its
//! compression jobs then took the pool's threads, and the writing thread,
//! waiting for a window of blocks to be compressed, stole expansion work
//! and could not go on writing until it was done: the write took 47 % of
//! a depth on 16 threads at width 100,000 (1 thread compresses it in
//! 3 % of the 1-thread depth, 0.65 s over 20 depths: `hatetris bench
//! search --width 100000 --depths 20 --threads 1`), and as long as the
//! expansion at width 10^6, and its last windows and its fsync could land
//! after the expansion, on the depth's critical path. On threads of its
//! own it takes what it costs, a sixteenth of a 16-thread depth's
//! threads, and never holds up the expansion; the file is the same,
//! whatever pool compresses it.

use std::sync::Arc;
use std::thread::ScopedJoinHandle;
use std::time::Instant;

use super::{DepthLoop, Selected};
use crate::run::{
    self,
    store::{self, DepthFile, Entry, Link},
    Manifest,
};
use crate::search::adversary::BeamHistory;
use crate::search::beam::Beam;
use crate::search::bounded;
use crate::search::expander::{DepthExpander, DepthJob, Expanded};
use crate::search::kernel::Kernel;
use crate::search::SearchError;

/// What the turn's parallel step gave.
pub(super) struct Turn {
    /// The selected beam's depth file (one file per depth), written and
    /// recorded.
    pub booked: Option<Result<Booked, SearchError>>,
    /// A sharded run's selected beam's history snapshot: seconds.
    pub snapshotted: Option<Result<f64, SearchError>>,
    /// The expansion (`None` inside: stopped), when one was run.
    pub outcome: Option<Result<Option<Expanded>, SearchError>>,
    /// Seconds the step took.
    pub stepped: f64,
}

/// A depth file written and recorded on the writer's thread.
pub(super) struct Booked {
    /// The manifest that records it (`None` for a beam the manifest does
    /// not list).
    pub manifest: Option<Manifest>,
    /// The file's digest, which the next one names.
    pub previous: u64,
    /// Seconds the manifest and the log took.
    pub bookkeeping: f64,
}

/// A scoped thread's result, its panic passed on.
fn joined<T>(t: ScopedJoinHandle<'_, T>) -> T {
    t.join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

impl DepthLoop<'_> {
    /// Step 2: expands `beam` (if `expanding`; the expander may also be
    /// asked to write its shard files, `shard_write`) while the selected
    /// beam's depth file is written on the writer's pool and its history
    /// snapshot on a thread of its own, and the depth recorded once both
    /// are on disk (for one depth file: a sharded run's are recorded by
    /// `record`, after the turn).
    pub(super) fn expand_and_write(&self, beam: Beam, expanding: bool, shard_write: bool) -> Turn {
        let depth = self.depth;
        // The sharded search hands every process the beam's history first.
        let snapshot: Option<Arc<[u8]>> = match (&self.opts.expander, &self.history) {
            (Some(_), Some(h)) if expanding => Some(h.to_snapshot(depth).into()),
            _ => None,
        };
        let job = DepthJob {
            beam,
            history: snapshot,
            expand: expanding,
            write: shard_write,
        };
        if expanding {
            self.observer.depth_started(depth + 1, beam.len() as u64);
        }
        let clock = Instant::now();
        let (booked, snapshotted, outcome) = std::thread::scope(|scope| {
            let snapshotting = match (&self.selected, &self.history) {
                (Some(s), Some(h)) if s.stats.is_some() => {
                    let made = job.history.as_deref();
                    Some(scope.spawn(move || self.write_snapshot(h, made)))
                }
                _ => None,
            };
            // One depth file: the writer's thread writes it, waits for the
            // snapshot and records the depth. (A sharded run's files are
            // known only once its expansion is done.)
            let (snapshotting, booking) = match (&self.selected, self.shards) {
                (Some(s), None) => (
                    None,
                    Some(scope.spawn(move || self.write_and_book(s, snapshotting))),
                ),
                _ => (snapshotting, None),
            };
            let outcome = self
                .pool
                .install(|| (expanding || shard_write).then(|| self.expand(&job)));
            (booking.map(joined), snapshotting.map(joined), outcome)
        });
        Turn {
            booked,
            snapshotted,
            outcome,
            stepped: clock.elapsed().as_secs_f64(),
        }
    }

    /// The selected beam's depth file written (on the writer's pool), then,
    /// with the snapshot `snapshotting` too on disk, the depth recorded in a
    /// copy of the manifest, which replaces it after the turn (`record`).
    fn write_and_book(
        &self,
        s: &Selected,
        snapshotting: Option<ScopedJoinHandle<'_, Result<f64, SearchError>>>,
    ) -> Result<Booked, SearchError> {
        let written = self.writer.install(|| self.write_depth(s));
        let snapshotted = snapshotting.map(joined);
        let (file_bytes, write_s) = written?;
        let previous = DepthFile::open(&run::depth_path(self.dir, self.depth))?.digest();
        let mut booked = Booked {
            manifest: None,
            previous,
            bookkeeping: 0.0,
        };
        if let Some(stats) = s.stats.clone() {
            let mut manifest = self.manifest.clone();
            booked.bookkeeping =
                self.book(&mut manifest, stats, file_bytes, write_s, snapshotted)?;
            booked.manifest = Some(manifest);
        }
        Ok(booked)
    }

    /// The job's expansion, by the kernel or the expander (`None`: stopped).
    fn expand(&self, job: &DepthJob) -> Result<Option<Expanded>, SearchError> {
        let Some(expander) = &self.opts.expander else {
            let kernel = Kernel {
                eval: self.search.evaluator,
                adversary: self.search.adversary,
                history: self.history.as_ref(),
                width: self.search.width,
                lineage: self.search.lineage,
                threads: self.opts.threads,
            };
            return Ok(kernel.expand(job, self.observer, &|| self.opts.stopping())?);
        };
        self.expand_with(&**expander, job).map(Some)
    }

    /// The job's expansion by `expander`, its entry states checked.
    fn expand_with(
        &self,
        expander: &dyn DepthExpander,
        job: &DepthJob,
    ) -> Result<Expanded, SearchError> {
        let depth = self.depth;
        let failed = |reason| SearchError::Expander { depth, reason };
        let mut e = expander.expand(job.clone()).map_err(failed)?;
        if !job.expand {
            return Ok(e);
        }
        let len = job.beam.len();
        match &self.history {
            Some(h) if !h.states.is_empty() => {
                if e.states.len() != len {
                    let states = e.states.len();
                    return Err(failed(format!("{states} entry states for a beam of {len}")));
                }
            }
            _ => e.states.clear(),
        }
        self.observer.expanded(len as u64);
        Ok(e)
    }

    /// The selected beam's depth file: its bytes and the seconds it took.
    fn write_depth(&self, s: &Selected) -> Result<(u64, f64), SearchError> {
        let clock = Instant::now();
        let (depth, path) = (self.depth, run::depth_path(self.dir, self.depth));
        let link = Link {
            run: self.run_id,
            previous: self.previous,
        };
        let bytes = store::write_depth_file(&path, depth, link, s.wells.len(), |i| Entry {
            well: s.wells[i],
            score: bounded::score_at(&s.wells[i], depth),
        })
        .map_err(|e| run::RunError::from(crate::folder::io(&path)(e)))?;
        Ok((bytes, clock.elapsed().as_secs_f64()))
    }

    /// The selected beam's history snapshot (the bytes `made` for the
    /// expander, if any): the seconds it took.
    fn write_snapshot(&self, h: &BeamHistory, made: Option<&[u8]>) -> Result<f64, SearchError> {
        let clock = Instant::now();
        match made {
            Some(bytes) => run::write_snapshot(self.dir, self.depth, bytes)?,
            None => run::write_snapshot(self.dir, self.depth, &h.to_snapshot(self.depth))?,
        }
        Ok(clock.elapsed().as_secs_f64())
    }
}
