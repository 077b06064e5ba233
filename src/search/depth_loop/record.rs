//! Steps 3 and 4 of a turn: the written depth recorded in the manifest
//! and the log; the kept children cut into the next beam, with the best
//! score; and the history's step.

use std::time::Instant;

use rayon::prelude::*;

use super::expand::Booked;
use super::{DepthLoop, Selected};
use crate::run::shards::{Depth, Written};
use crate::run::{self, Best, DepthStats, Manifest, Phases};
use crate::search::expander::Expanded;
use crate::search::{memory, SearchError};
use crate::well::PackedWell;

impl DepthLoop<'_> {
    /// Step 3: the selected beam, now written (`booked`: one file, written
    /// and recorded on the writer's thread; or the `shard_files`) with its
    /// snapshot, is recorded in the manifest and the log.
    pub(super) fn record(
        &mut self,
        booked: Option<Result<Booked, SearchError>>,
        snapshotted: Option<Result<f64, SearchError>>,
        shard_files: Vec<Written>,
    ) -> Result<(), SearchError> {
        let Some(Selected { wells, stats }) = self.selected.take() else {
            return Ok(());
        };
        // Whether the manifest now lists this depth.
        let recorded = match self.shards {
            None => {
                let booked = booked.expect("a selected beam is written")?;
                self.previous = booked.previous;
                let recorded = booked.manifest.is_some();
                if let Some(manifest) = booked.manifest {
                    self.manifest = manifest;
                    self.bookkeeping = booked.bookkeeping;
                }
                recorded
            }
            Some(layout) => {
                if shard_files.len() != layout.count() as usize {
                    return Err(SearchError::Expander {
                        depth: self.depth,
                        reason: format!(
                            "{} shard files written, the run has {} shards",
                            shard_files.len(),
                            layout.count()
                        ),
                    });
                }
                let file_bytes = shard_files.iter().map(|w| w.bytes).sum();
                if self.history.is_some() {
                    self.recent.keep(self.depth, wells);
                }
                // (A sharded run's root has none: the manifest lists depths
                // from 1.)
                let recorded = stats.is_some();
                if let Some(stats) = stats {
                    let mut m = self.manifest.clone();
                    self.bookkeeping = self.book(&mut m, stats, file_bytes, 0.0, snapshotted)?;
                    self.manifest = m;
                }
                recorded
            }
        };
        if recorded {
            let depth = self.manifest.depths.last().expect("just recorded");
            self.observer.depth_finished(depth);
        }
        if let Some(release) = self.opts.release_memory {
            self.pool.broadcast(|_| release());
            release();
        }
        Ok(())
    }

    /// Records a written depth's `stats` in `manifest` and the log, with
    /// the figures of writing it: the seconds the manifest and log took.
    pub(super) fn book(
        &self,
        manifest: &mut Manifest,
        mut stats: DepthStats,
        file_bytes: u64,
        write_s: f64,
        snapshotted: Option<Result<f64, SearchError>>,
    ) -> Result<f64, SearchError> {
        stats.file_bytes = file_bytes;
        stats.elapsed_s = self.started.elapsed().as_secs_f64();
        stats.peak_rss = memory::peak_rss();
        if let Some(p) = &mut stats.phases {
            p.write = write_s;
            p.snapshot = snapshotted.transpose()?.unwrap_or(0.0);
        }
        let clock = Instant::now();
        run::record_depth(self.dir, manifest, stats)?;
        Ok(clock.elapsed().as_secs_f64())
    }

    /// Step 4: the kept children become the next beam, selected (and the
    /// best game, if one of them beats it); `false` when none was kept
    /// (the beam died out, recorded as such).
    pub(super) fn select(&mut self, expanded: Expanded, stepped: f64) -> Result<bool, SearchError> {
        let (depth, timing) = (self.depth, expanded.timing);
        let mut phases = Phases {
            expand: stepped - timing.select_s,
            select: timing.select_s,
            manifest: self.bookkeeping,
            locked: timing.locked_s,
            waited: timing.waited_s,
            idle: timing.idle_s,
            compact: timing.compact_s,
            compactions: timing.compactions,
            ..Phases::default()
        };
        let kept = expanded.kept;
        if kept.is_empty() {
            self.manifest.exhausted = true;
            run::write_manifest(self.dir, &self.manifest)?;
            self.observer.exhausted(depth + 1);
            return Ok(false);
        }
        // `kept` is sorted by well, the order of the depth file, so the
        // first of the top score is the one `Best`'s order picks.
        let best_cost = kept.iter().min().expect("non-empty").cost;
        let best_score = kept
            .iter()
            .map(|c| c.score_at(depth + 1))
            .max()
            .expect("non-empty");
        let top = *kept
            .iter()
            .find(|c| c.score_at(depth + 1) == best_score)
            .expect("the top score is some candidate's");
        if best_score > self.manifest.best.score {
            self.manifest.best = Best {
                score: best_score,
                depth: depth + 1,
                well: top.well.unpack(),
            };
        }
        let histogram = run::histogram(kept.iter().map(|c| c.score_at(depth + 1)));
        // The next beam is held as its wells alone (20 bytes an entry, not
        // a candidate's 32) until its depth file is written.
        let clock = Instant::now();
        let wells: Vec<PackedWell> = self
            .pool
            .install(|| kept.par_iter().map(|c| c.well).collect());
        phases.select += clock.elapsed().as_secs_f64();
        let clock = Instant::now();
        let parents: Option<Vec<u32>> = self
            .history
            .is_some()
            .then(|| kept.iter().map(|c| c.parent).collect());
        drop(kept);
        self.step_history(parents, expanded.states)?;
        phases.ancestry = clock.elapsed().as_secs_f64();
        self.depth += 1;
        let ancestry = self.history.as_ref().map(|h| &h.ancestry);
        self.selected = Some(Selected {
            stats: Some(DepthStats {
                depth: self.depth,
                elapsed_s: 0.0,
                children: expanded.children,
                unique: expanded.unique,
                kept: wells.len() as u64,
                best_cost,
                best_score,
                histogram,
                ancestry_nodes: ancestry.map_or(0, |a| a.nodes() as u64),
                common_ancestor: ancestry.and_then(|a| a.common_ancestor()).map(|d| d as u32),
                lineage: expanded.lineage,
                file_bytes: 0,
                peak_rss: None,
                phases: Some(phases),
            }),
            wells,
        });
        Ok(true)
    }

    /// The history takes the new beam (`parents`: each kept child's index
    /// in the beam; `states`: the entry states the expansion left) before
    /// the next expansion, which reads it. The level that matures is read
    /// from its own, older, depth file, already on disk (or a sharded
    /// run's kept beams), a block per thread on the pool, idle now.
    fn step_history(
        &mut self,
        parents: Option<Vec<u32>>,
        states: Vec<u32>,
    ) -> Result<(), SearchError> {
        let (Some(h), Some(parents)) = (&mut self.history, parents) else {
            return Ok(());
        };
        let (dir, shards, recent) = (self.dir, self.shards, &self.recent);
        self.pool.install(|| {
            h.push(parents, states, |d, indices| {
                let d = d as u32;
                match recent.wells_at(d, indices) {
                    Some(wells) => Ok(wells),
                    None => Depth::open(dir, d, shards)?.wells_at(indices),
                }
            })
        })?;
        Ok(())
    }
}
