//! The depth loop, from the manifest's last depth to `opts.max_depth`, as
//! a [`DepthLoop`] whose state lives between turns and whose steps are its
//! methods. One turn:
//!
//! 1. [`open`](DepthLoop::open) the beam to expand: the one the turn before
//!    selected (in memory), or on resuming its depth file (read a block at
//!    a time) or a sharded run's shards (recalled from their workers);
//! 2. [`expand_and_write`](DepthLoop::expand_and_write): expand it (the
//!    kernel, or the [`DepthExpander`]) while the selected beam's depth
//!    file is written on the same pool (`rayon::join`) and its history
//!    snapshot on a thread of its own;
//! 3. [`record`](DepthLoop::record) the written depth in the manifest and
//!    the log: only now, with both files on disk, does the manifest name it;
//! 4. [`select`](DepthLoop::select) the kept children as the next beam,
//!    with the best score, and [`step_history`](DepthLoop::step_history):
//!    the history takes the new beam before the next expansion reads it.
//!
//! Where the loop begins is settled once, in [`DepthLoop::new`]: the place
//! a start from another position (a game's history) would go.
//!
//! So a depth's write costs the search no wall time of its own, where it
//! was the largest serial step (about 1.8 % of a 1-thread depth at width
//! 100,000); the price is the beam's wells held in memory during one
//! expansion (20 bytes per entry). What stays between two expansions: the
//! final cut (its sort on the pool, its dedup, selection and cut serial),
//! the history taking the new beam (the maturing level's blocks are read
//! on the pool, the pruning and the filter's new keys serial), and the
//! manifest: 0.85-0.88 % of a 1-thread depth, their serial parts less
//! (the phases of `hatetris bench search --width 100000 --depths 30
//! --threads 1,2`).

use std::mem;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::adversary::BeamHistory;
use super::beam::Beam;
use super::expander::{DepthJob, Expanded};
use super::kernel::Kernel;
use super::{ancestry, bounded, memory};
use super::{DepthExpander, Observer, Options, RunResult, Search, SearchError};
use crate::run::shards::{Depth, Shards, Written};
use crate::run::store::{self, DepthFile, Entry, Link};
use crate::run::{self, Best, DepthStats, Manifest, Phases};
use crate::well::PackedWell;

/// The depth loop's state between two turns.
pub(super) struct DepthLoop<'a> {
    dir: &'a Path,
    search: Search<'a>,
    opts: &'a Options,
    observer: &'a dyn Observer,
    lock: run::RunLock,
    pool: rayon::ThreadPool,
    /// When the loop began: each depth's `elapsed_s` counts from it.
    started: Instant,
    run_id: u64,
    manifest: Manifest,
    /// The beam's history, for an adversary that keeps one.
    history: Option<BeamHistory>,
    /// A sharded run's layout: its depth files are written by its shards'
    /// workers (through the expander), the rest of the folder here.
    shards: Option<Shards>,
    /// The depth of the beam the next turn expands.
    depth: u32,
    /// Seconds the manifest and log of the depth before took (`Phases`).
    bookkeeping: f64,
    /// The beam at `depth` when it is not yet on disk.
    selected: Option<Selected>,
    /// A sharded run's last beams, for the history's step.
    recent: Recent,
    /// The digest of the last depth file on disk, which the next one names
    /// (one file per depth; a shard's worker keeps its own).
    previous: u64,
}

/// A beam selected but not yet on disk: its depth file is written alongside
/// the next depth's expansion, which reads the beam from memory.
struct Selected {
    /// The beam's wells, sorted.
    wells: Vec<PackedWell>,
    /// Its figures, but for those of writing it (`file_bytes`, and the
    /// `write` and `snapshot` phases); `None` for a sharded run's root,
    /// which the manifest does not list (no run's does).
    stats: Option<DepthStats>,
}

/// Where a turn's beam comes from (see [`DepthLoop::open`]).
enum Opened {
    /// The beam the turn before selected.
    Selected,
    /// Its depth file, read a block at a time as it is expanded, so it
    /// costs no memory of its own.
    File(DepthFile),
    /// The union of a sharded run's files, which each shard's worker read
    /// from its own folder.
    Recalled(Vec<PackedWell>),
}

/// What the turn's parallel step gave.
struct Turn {
    /// The selected beam's depth file (one file per depth): bytes, seconds.
    written: Option<Result<(u64, f64), SearchError>>,
    /// The selected beam's history snapshot: seconds.
    snapshotted: Option<Result<f64, SearchError>>,
    /// The expansion (`None` inside: stopped), when one was run.
    outcome: Option<Result<Option<Expanded>, SearchError>>,
    /// Seconds the step took.
    stepped: f64,
}

impl<'a> DepthLoop<'a> {
    /// The loop at the manifest's last depth, with that beam's `history`.
    /// Its beam is on disk (a new run's root, which [`run::create`]
    /// wrote, or the depth a resume goes on from), except for a sharded
    /// run's root: its shards' workers write it, as every depth, so it
    /// starts out selected. A start from another position (a game's
    /// history) would settle its depth, history and beam here.
    pub(super) fn new(
        dir: &'a Path,
        lock: run::RunLock,
        manifest: Manifest,
        history: Option<BeamHistory>,
        search: Search<'a>,
        opts: &'a Options,
        observer: &'a dyn Observer,
    ) -> Result<DepthLoop<'a>, SearchError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(opts.threads)
            .build()
            .map_err(|e| SearchError::Threads {
                threads: opts.threads,
                reason: e.to_string(),
            })?;
        let shards = manifest.shards;
        let depth = manifest.depth;
        let selected = match (shards, depth) {
            (Some(_), 0) => Some(Selected {
                wells: vec![crate::well::Well::EMPTY.pack()],
                stats: None,
            }),
            _ => None,
        };
        Ok(DepthLoop {
            dir,
            search,
            opts,
            observer,
            lock,
            pool,
            started: Instant::now(),
            run_id: manifest.settings.run_id(),
            manifest,
            history,
            shards,
            depth,
            bookkeeping: 0.0,
            selected,
            recent: Recent::default(),
            previous: 0,
        })
    }

    /// Turns until the last depth is written, the beam dies out, or the
    /// search is stopped.
    pub(super) fn run(mut self) -> Result<RunResult, SearchError> {
        let max = self.opts.max_depth;
        let stopped = loop {
            let expanding = self.depth < max && !self.opts.stopping();
            if !expanding && self.selected.is_none() {
                break self.depth < max;
            }
            let opened = self.open()?;
            let shard_write = self.shards.is_some() && self.selected.is_some();
            let turn = self.expand_and_write(self.beam(&opened), expanding, shard_write);
            drop(opened);
            // A sharded depth counts only once every shard's file is on
            // disk; one file per depth, once it is (an expansion that
            // failed after it was written does not undo it).
            let mut outcome = match turn.outcome {
                Some(Err(e)) if shard_write => return Err(e),
                outcome => outcome,
            };
            let shard_files = match &mut outcome {
                Some(Ok(Some(e))) => mem::take(&mut e.written),
                _ => Vec::new(),
            };
            self.record(turn.written, turn.snapshotted, shard_files)?;
            let Some(outcome) = outcome.filter(|_| expanding) else {
                break self.depth < max;
            };
            let Some(expanded) = outcome? else {
                break true;
            };
            if !self.select(expanded, turn.stepped)? {
                break false;
            }
        };
        Ok(RunResult {
            best: self.manifest.best,
            depth: self.depth,
            exhausted: self.manifest.exhausted,
            stopped,
            _lock: self.lock,
        })
    }

    /// Step 1: where the beam to expand comes from.
    fn open(&mut self) -> Result<Opened, SearchError> {
        Ok(match (&self.selected, self.shards) {
            (Some(_), _) => Opened::Selected,
            (None, None) => {
                let file = DepthFile::open(&run::depth_path(self.dir, self.depth))?;
                self.previous = file.digest();
                Opened::File(file)
            }
            (None, Some(_)) => Opened::Recalled(recall(
                self.opts,
                &mut self.recent,
                self.depth,
                self.history.is_some(),
                &self.manifest,
            )?),
        })
    }

    /// The beam `opened` holds.
    fn beam<'b>(&'b self, opened: &'b Opened) -> Beam<'b> {
        let depth = self.depth;
        match opened {
            Opened::Selected => Beam::Kept {
                wells: &self.selected.as_ref().expect("opened as selected").wells,
                depth,
            },
            Opened::File(file) => Beam::File(file),
            Opened::Recalled(wells) => Beam::Kept { wells, depth },
        }
    }

    /// Step 2: expands `beam` (if `expanding`; the expander may also be
    /// asked to write its shard files, `shard_write`) while the selected
    /// beam's depth file is written on the same pool and its history
    /// snapshot on a thread of its own.
    fn expand_and_write(&self, beam: Beam, expanding: bool, shard_write: bool) -> Turn {
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
        .map_err(run::io(&path))?;
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

    /// Step 3: the selected beam, now written (`written` one file, or the
    /// `shard_files`) with its snapshot, is recorded in the manifest and
    /// the log.
    fn record(
        &mut self,
        written: Option<Result<(u64, f64), SearchError>>,
        snapshotted: Option<Result<f64, SearchError>>,
        shard_files: Vec<Written>,
    ) -> Result<(), SearchError> {
        let Some(Selected { wells, stats }) = self.selected.take() else {
            return Ok(());
        };
        let (file_bytes, write_s) = match self.shards {
            None => {
                let (file_bytes, write_s) = written.expect("a selected beam is written")?;
                let path = run::depth_path(self.dir, self.depth);
                self.previous = DepthFile::open(&path)?.digest();
                (file_bytes, write_s)
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
                (shard_files.iter().map(|w| w.bytes).sum(), 0.0)
            }
        };
        if self.history.is_some() && self.shards.is_some() {
            self.recent.keep(self.depth, wells);
        } else {
            drop(wells);
        }
        // (A sharded run's root has none: the manifest lists depths from 1.)
        if let Some(mut stats) = stats {
            stats.file_bytes = file_bytes;
            stats.elapsed_s = self.started.elapsed().as_secs_f64();
            stats.peak_rss = memory::peak_rss();
            if let Some(p) = &mut stats.phases {
                p.write = write_s;
                p.snapshot = snapshotted.transpose()?.unwrap_or(0.0);
            }
            let clock = Instant::now();
            run::record_depth(self.dir, &mut self.manifest, stats)?;
            self.bookkeeping = clock.elapsed().as_secs_f64();
            let recorded = self.manifest.depths.last().expect("just recorded");
            self.observer.depth_finished(recorded);
        }
        if let Some(release) = self.opts.release_memory {
            self.pool.broadcast(|_| release());
            release();
        }
        Ok(())
    }

    /// Step 4: the kept children become the next beam, selected (and the
    /// best game, if one of them beats it); `false` when none was kept
    /// (the beam died out, recorded as such).
    fn select(&mut self, expanded: Expanded, stepped: f64) -> Result<bool, SearchError> {
        let (depth, timing) = (self.depth, expanded.timing);
        let mut phases = Phases {
            expand: stepped - timing.select_s,
            select: timing.select_s,
            manifest: self.bookkeeping,
            locked: timing.locked_s,
            waited: timing.waited_s,
            idle: timing.idle_s,
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
                ancestry_nodes: self
                    .history
                    .as_ref()
                    .map_or(0, |h| h.ancestry.nodes() as u64),
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

/// The beams of a sharded run's last few depths, for the history's step:
/// the level that matures is read from them, not from files that may be
/// on other machines. On resuming, the workers read them back
/// ([`recall`]). Only kept for an adversary with a history.
#[derive(Default)]
struct Recent {
    beams: std::collections::VecDeque<(u32, Vec<PackedWell>)>,
}

impl Recent {
    /// Beams kept: after the beam of depth `d` is expanded, the history
    /// matures the level of depth `d + 1 - MATURE_AGE`, and this holds
    /// depths `d + 1 - KEPT` to `d`.
    const KEPT: usize = ancestry::MATURE_AGE;

    fn keep(&mut self, depth: u32, wells: Vec<PackedWell>) {
        if self.beams.len() == Self::KEPT {
            self.beams.pop_front();
        }
        self.beams.push_back((depth, wells));
    }

    /// The wells at `indices` of depth `d`'s beam, if it is kept.
    fn wells_at(&self, d: u32, indices: &[u32]) -> Option<Vec<PackedWell>> {
        let (_, wells) = self.beams.iter().find(|(at, _)| *at == d)?;
        indices
            .iter()
            .map(|&i| wells.get(i as usize).copied())
            .collect()
    }
}

/// A sharded run's beam after `depth` pieces, on resuming, through the
/// expander's workers ([`DepthExpander::recall`]); with a history, the
/// beams its next steps mature are kept in `recent` too.
fn recall(
    opts: &Options,
    recent: &mut Recent,
    depth: u32,
    with_history: bool,
    manifest: &Manifest,
) -> Result<Vec<PackedWell>, SearchError> {
    let failed = |reason: String| SearchError::Expander { depth, reason };
    let expander = opts
        .expander
        .as_ref()
        .ok_or_else(|| failed("a sharded run goes on only on its workers".into()))?;
    let first = match with_history {
        true => depth.saturating_sub(Recent::KEPT as u32 - 1),
        false => depth,
    };
    let depths: Vec<u32> = (first..=depth).collect();
    let beams = expander.recall(&depths).map_err(failed)?;
    let mut beam = Vec::new();
    for (&d, wells) in depths.iter().zip(beams) {
        let recorded = manifest
            .kept_at(d)
            .expect("the log holds every depth of the manifest");
        if wells.len() as u64 != recorded {
            return Err(failed(format!(
                "the shards hold {} wells at depth {d}, the run recorded {recorded}",
                wells.len()
            )));
        }
        if with_history {
            recent.keep(d, wells.clone());
        }
        if d == depth {
            beam = wells;
        }
    }
    Ok(beam)
}
