//! The depth loop, from the manifest's last depth to `opts.max_depth`, as
//! a [`DepthLoop`] whose state lives between turns and whose steps are its
//! methods. One turn:
//!
//! 1. [`open`](DepthLoop::open) the beam to expand: the one the turn before
//!    selected (in memory), or on resuming its depth file (read a block at
//!    a time) or a sharded run's shards (recalled from their workers);
//! 2. [`expand_and_write`](DepthLoop::expand_and_write): expand it (the
//!    kernel, or the [`DepthExpander`]) while the selected beam's depth
//!    file is written on the writer's own pool and its history snapshot
//!    on a thread of its own, and then, on the writer's thread, the depth
//!    recorded in a copy of the manifest and in the log: only with both
//!    files on disk does the manifest name it;
//! 3. [`record`](DepthLoop::record): that manifest replaces the loop's (a
//!    sharded run's depth, whose files its workers write during the
//!    expansion, is recorded only now);
//! 4. [`select`](DepthLoop::select) the kept children as the next beam,
//!    with the best score, and [`step_history`](DepthLoop::step_history):
//!    the history takes the new beam before the next expansion reads it.
//!
//! Steps 1 and the loop itself are here, step 2 in `expand.rs`, steps 3
//! and 4 in `record.rs`, and a sharded run's kept beams in `recent.rs`.
//!
//! Where the loop begins is settled once, in [`DepthLoop::new`]: the
//! manifest's last depth, which for a new run is its root (depth 0, or a
//! game's piece count for a run from a game, whose depths are the whole
//! game's), with that beam's history (for a run from a game, seeded with
//! the game's wells by `start.rs`, which also checks that a sharded run's
//! workers write this run's files). A sharded run's root is written by its
//! shards' workers, so it starts out selected.
//!
//! Written alongside the next expansion, a depth's file costs the search
//! no wall time of its own, where its write was the largest serial step
//! (about 1.8 % of a 1-thread depth at width 100,000); the price is the
//! beam's wells held in memory during one expansion (20 bytes per entry).
//! The manifest and the log line, with their fsyncs, followed it there:
//! between two expansions they took 14 ms a depth, 1.2 % of a 1-thread
//! depth at width 100,000 (`hatetris bench search --width 100000 --depths
//! 20 --threads 1`), which on 16 threads, where the expansion is 13 times
//! shorter, would be 15 % of a depth, serial. What stays between two
//! expansions: the final cut (its sort on the pool, its dedup, selection
//! and cut serial) and the history taking the new beam (the maturing
//! level's blocks are read on the pool, the pruning and the filter's new
//! keys serial): about 1 % of a 1-thread depth, their serial parts less.

mod expand;
mod recent;
mod record;

use std::mem;
use std::path::Path;
use std::time::Instant;

use super::adversary::BeamHistory;
use super::beam::Beam;
use super::{Observer, Options, RunResult, Search, SearchError};
use crate::run::shards::Shards;
use crate::run::store::DepthFile;
use crate::run::{self, DepthStats, Manifest};
use crate::well::PackedWell;

use recent::{recall, Recent};

/// The search's threads per thread of the writer's pool: a depth file takes
/// 3 % of a 1-thread depth to compress at width 100,000 (see `expand.rs`),
/// so one thread writes it within the expansion up to about 30 threads.
const WRITER_SHARE: usize = 16;

/// The depth loop's state between two turns.
pub(super) struct DepthLoop<'a> {
    dir: &'a Path,
    search: Search<'a>,
    opts: &'a Options,
    observer: &'a dyn Observer,
    lock: crate::folder::FolderLock,
    pool: rayon::ThreadPool,
    /// The depth files' pool, apart from the search's (see `expand.rs`).
    writer: rayon::ThreadPool,
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
pub(super) struct Selected {
    /// The beam's wells, sorted.
    wells: Vec<PackedWell>,
    /// Its figures, but for those of writing it (`file_bytes`, and the
    /// `write` and `snapshot` phases); `None` for a sharded run's root,
    /// which the manifest does not list (no run's does).
    stats: Option<DepthStats>,
}

/// Where a turn's beam comes from (see [`DepthLoop::open`]).
pub(super) enum Opened {
    /// The beam the turn before selected.
    Selected,
    /// Its depth file, read a block at a time as it is expanded, so it
    /// costs no memory of its own.
    File(DepthFile),
    /// The union of a sharded run's files, which each shard's worker read
    /// from its own folder.
    Recalled(Vec<PackedWell>),
}

impl<'a> DepthLoop<'a> {
    /// The loop at the manifest's last depth, with that beam's `history`.
    /// Its beam is on disk (a new run's root, which [`run::create`]
    /// wrote, or the depth a resume goes on from), except for a sharded
    /// run's root: its shards' workers write it, as every depth, so it
    /// starts out selected (the empty well, or a run from a game's well at
    /// the game's depth, played again from the run's start).
    pub(super) fn new(
        dir: &'a Path,
        lock: crate::folder::FolderLock,
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
        let writers = opts.threads.div_ceil(WRITER_SHARE).max(1);
        let writer = rayon::ThreadPoolBuilder::new()
            .num_threads(writers)
            .thread_name(|i| format!("depth-writer-{i}"))
            .build()
            .map_err(|e| SearchError::Threads {
                threads: writers,
                reason: e.to_string(),
            })?;
        let shards = manifest.shards;
        let depth = manifest.depth;
        let selected = match shards {
            Some(_) if depth == manifest.root() => {
                let root = manifest.settings.root_best().map_err(run::RunError::from)?;
                Some(Selected {
                    wells: vec![root.well.pack()],
                    stats: None,
                })
            }
            _ => None,
        };
        Ok(DepthLoop {
            dir,
            search,
            opts,
            observer,
            lock,
            pool,
            writer,
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
            self.record(turn.booked, turn.snapshotted, shard_files)?;
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
}
