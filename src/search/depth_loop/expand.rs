//! Step 2 of a turn: the beam expanded (by the kernel, or the
//! [`DepthExpander`]) while the selected beam's depth file is written on
//! the same pool and its history snapshot on a thread of its own.

use std::sync::Arc;
use std::time::Instant;

use super::{DepthLoop, Selected};
use crate::run::{
    self,
    store::{self, Entry, Link},
};
use crate::search::adversary::BeamHistory;
use crate::search::beam::Beam;
use crate::search::bounded;
use crate::search::expander::{DepthExpander, DepthJob, Expanded};
use crate::search::kernel::Kernel;
use crate::search::SearchError;

/// What the turn's parallel step gave.
pub(super) struct Turn {
    /// The selected beam's depth file (one file per depth): bytes, seconds.
    pub written: Option<Result<(u64, f64), SearchError>>,
    /// The selected beam's history snapshot: seconds.
    pub snapshotted: Option<Result<f64, SearchError>>,
    /// The expansion (`None` inside: stopped), when one was run.
    pub outcome: Option<Result<Option<Expanded>, SearchError>>,
    /// Seconds the step took.
    pub stepped: f64,
}

impl DepthLoop<'_> {
    /// Step 2: expands `beam` (if `expanding`; the expander may also be
    /// asked to write its shard files, `shard_write`) while the selected
    /// beam's depth file is written on the same pool and its history
    /// snapshot on a thread of its own.
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
        let (written, snapshotted, outcome) = std::thread::scope(|scope| {
            let snapshotting = match (&self.selected, &self.history) {
                (Some(s), Some(h)) if s.stats.is_some() => {
                    let made = job.history.as_deref();
                    Some(scope.spawn(move || self.write_snapshot(h, made)))
                }
                _ => None,
            };
            let unsharded = self.selected.as_ref().filter(|_| self.shards.is_none());
            let (written, outcome) = self.pool.install(|| {
                rayon::join(
                    || unsharded.map(|s| self.write_depth(s)),
                    || (expanding || shard_write).then(|| self.expand(&job)),
                )
            });
            let snapshotted = snapshotting.map(|t| {
                t.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            (written, snapshotted, outcome)
        });
        Turn {
            written,
            snapshotted,
            outcome,
            stepped: clock.elapsed().as_secs_f64(),
        }
    }

    /// The job's expansion, by the kernel or the expander (`None`: stopped).
    fn expand(&self, job: &DepthJob) -> Result<Option<Expanded>, SearchError> {
        let Some(expander) = &self.opts.expander else {
            let kernel = Kernel {
                eval: self.search.evaluator,
                adversary: self.search.adversary,
                history: self.history.as_ref(),
                width: self.search.width,
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
