//! The disk-backed, multi-threaded, resumable beam search.
//!
//! A depth is one placed piece. The piece is the adversary's choice for
//! each beam entry ([`Adversary`]; HATETRIS with loop prevention against
//! the entry's own ancestry), so a well's children are the placements of
//! that one piece. Each depth:
//!
//! 1. the kernel expands the beam into the exact best `width` distinct
//!    children, the same for any thread count. The beam is the wells the
//!    depth before kept, still in memory, while on the same threads its
//!    depth file is written alongside (or, on the first depth of a run or
//!    a resume, its depth file read back a block at a time);
//! 2. the kept children, sorted by well, become the next beam: appended to
//!    the ancestry (for an adversary that keeps one), then written as a
//!    depth file during the next expansion, and only then recorded in the
//!    manifest and the log of the [run folder](crate::run);
//! 3. the [`Observer`] hears of it; the library prints nothing.
//!
//! The evaluator comes in through the [`Evaluator`] seam and the adversary
//! through [`Adversary`], so this module knows neither the heuristic nor a
//! network, nor which enemy it plays.
//!
//! Memory, per beam entry:
//! - the beam: 20 bytes, its packed wells, held during its own expansion
//!   (which writes its depth file alongside); a beam read back from its
//!   file costs nothing, decoded a block per thread at a time;
//! - the ancestry: a 4-byte parent index, plus the older levels' live nodes
//!   (about half a node per entry): 8 bytes for a node of the four newest
//!   levels, 24 for an older one (which also costs 2-8 bytes of Bloom
//!   filter); see [`ancestry`];
//! - the one bounded set: room for 1.125 candidates of 32 bytes
//!   ([`bounded::Candidate`]: the well packed to 20 bytes, no score). With
//!   more than one thread, a full buffer is compacted outside the set's
//!   lock while the other threads fill a new one, so up to a second
//!   buffer (or more, with more threads) lives at the peak; the final cut
//!   adds 4 bytes an entry (the selection's indices);
//! - distinct children are estimated in fixed memory (`distinct`);
//! - depth files are streamed to disk as they are compressed.
//!
//! Measured (session 12; peak RSS at widths 100,000 and 300,000 over the
//! same 30 depths against HATETRIS, the slope between them): see
//! [`memory::BYTES_PER_ENTRY`]. The figures of session 3 (49 bytes per
//! entry) predate the compaction outside the lock and are no longer true.

pub mod adversary;
pub mod ancestry;
pub(crate) mod beam;
pub mod bounded;
pub(crate) mod distinct;
pub(crate) mod kernel;
pub mod memory;
pub mod observer;
pub mod small;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use crate::evaluate::Evaluator;
use crate::run::shards::{Depth, Shards, Written};
use crate::run::store::{self, DepthFile, Entry, Link};
use crate::run::{self, Best, DepthStats, Manifest, Phases, Plan, RunError, Settings};
use crate::well::PackedWell;

pub use adversary::Adversary;
use adversary::History;
use beam::Beam;
use kernel::Kernel;
pub use observer::{Observer, Silent};

/// What to search: the settings a run records, with the evaluator itself.
#[derive(Clone, Copy)]
pub struct Search<'a> {
    /// Wells kept per depth.
    pub width: usize,
    /// Ranks the wells.
    pub evaluator: &'a dyn Evaluator,
    /// Gives the pieces.
    pub adversary: Adversary,
}

impl Search<'_> {
    /// The settings recorded in the run folder and compared on resume.
    pub fn settings(&self) -> Settings {
        Settings {
            width: self.width,
            evaluator: self.evaluator.identity(),
            enemy: self.adversary.kind(),
        }
    }
}

/// How to run (may differ between a run and its resume).
#[derive(Clone, Debug)]
pub struct Options {
    /// Stop after this depth.
    pub max_depth: u32,
    /// Worker threads.
    pub threads: usize,
    /// Run at the end of every depth on every worker thread and on the
    /// calling thread, once all of the depth's big buffers are freed: the
    /// place to make the allocator give freed memory back to the system.
    ///
    /// The buffers of a depth are allocated on worker threads and freed on
    /// the calling thread, and mimalloc (the CLI's allocator) returns such
    /// cross-thread frees to the owner's heap only when the owner next
    /// allocates, so without a collection about 5 MB, and 8 bytes per beam
    /// entry, stayed resident into the next depth's peak.
    pub release_memory: Option<fn()>,
    /// The thread count the caller was asked for (`None`: every core),
    /// recorded in the manifest's [`Plan`] with `max_depth` so that a
    /// resume given nothing but the folder asks for the same.
    pub asked_threads: Option<usize>,
    /// Set from outside (a signal handler) to stop the search: the depth in
    /// progress is abandoned, nothing of it written, and the run ends
    /// where it stands ([`RunResult::stopped`]); a resume computes that
    /// depth again, to the same files.
    pub stop: Option<Arc<AtomicBool>>,
    /// Expands each depth instead of the kernel (the sharded search,
    /// [`crate::distributed::Cluster`]); `None`: today's kernel on
    /// `threads` threads. A stop takes effect between depths.
    pub expander: Option<Arc<dyn DepthExpander>>,
}

/// Another way to run one depth's expansion and cut: the seam through
/// which the sharded search ([`crate::distributed`]) takes the kernel's
/// place in the depth loop. The result must be the kernel's, entry for
/// entry.
pub trait DepthExpander: Send + Sync {
    /// Runs `job`: the best distinct children of its beam, sorted by well,
    /// and, when asked, the beam's shard files written.
    fn expand(&self, job: DepthJob) -> Result<Expanded, String>;

    /// The layout of the shards whose workers write a depth's files
    /// themselves (a sharded run, [`run::shards`]); `None`: the depth loop
    /// writes one file per depth, as without an expander.
    fn shards(&self) -> Option<Shards> {
        None
    }

    /// The wells of the beams of `depths` of a sharded run, each the union
    /// of its shards' files in well order, every shard read by its own worker from
    /// its own folder: how a resume gets the beam it goes on from, and the
    /// history's last levels, when the shards are on several machines.
    fn recall(&self, depths: &[u32]) -> Result<Vec<Vec<PackedWell>>, String> {
        let _ = depths;
        Err("this expander keeps no shards".into())
    }
}

/// One depth for a [`DepthExpander`].
pub struct DepthJob {
    /// The beam after `depth` pieces, sorted by well.
    pub beam: Arc<[store::Stored]>,
    /// Its depth.
    pub depth: u32,
    /// For an adversary that keeps a history, the beam's history snapshot,
    /// the bytes the run folder holds for `depth` (`ancestry-NNNNN.bin`),
    /// from which every process rebuilds the history exactly.
    pub history: Option<Arc<[u8]>>,
    /// Whether to expand it (`false`: only write it, the run's last depth).
    pub expand: bool,
    /// Whether each shard writes its part of the beam as its file of
    /// `depth` (a sharded run's depth not yet on disk), alongside the
    /// expansion.
    pub write: bool,
}

impl std::fmt::Debug for dyn DepthExpander {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DepthExpander")
    }
}

/// What a [`DepthExpander`] gives for one depth.
#[derive(Debug)]
pub struct Expanded {
    /// The kept children, sorted by well.
    pub kept: Vec<bounded::Candidate>,
    /// Children generated.
    pub children: u64,
    /// Distinct children (an estimate).
    pub unique: u64,
    /// For an adversary with per-entry states (Brzustowski), the state each
    /// beam entry's children inherit, by entry; empty otherwise.
    pub states: Vec<u32>,
    /// The shard files written ([`DepthJob::write`]), by shard; empty when
    /// none were asked for.
    pub written: Vec<Written>,
    /// The beams' wells recalled ([`DepthExpander::recall`]), by depth
    /// asked for; empty otherwise.
    pub recalled: Vec<Vec<PackedWell>>,
}

impl Options {
    /// What the manifest records of these options.
    fn plan(&self) -> Plan {
        Plan {
            max_depth: self.max_depth,
            threads: self.asked_threads,
        }
    }

    /// Whether the search was asked to stop.
    fn stopping(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The run folder.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The depth expander ([`Options::expander`]) failed.
    #[error("expanding depth {depth}: {reason}")]
    Expander {
        /// The depth expanded.
        depth: u32,
        /// Why.
        reason: String,
    },
    /// A sharded run resumed with another layout.
    #[error("{0}")]
    Layout(String),
    /// A thread pool could not be built.
    #[error("cannot start {threads} threads: {reason}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// Why.
        reason: String,
    },
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
) -> Result<Vec<bounded::Candidate>, DepthError> {
    if search.adversary.keeps_history() {
        return Err(DepthError::History(search.adversary.kind()));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| DepthError::Threads(threads, e.to_string()))?;
    let kernel = Kernel {
        eval: search.evaluator,
        adversary: search.adversary,
        history: None,
        next: &[],
        width: search.width,
        threads,
    };
    let expansion = pool.install(|| kernel.expand(Beam::File(beam), &Silent, &|| false))?;
    Ok(expansion.expect("never asked to stop").kept)
}

impl From<store::StoreError> for SearchError {
    fn from(e: store::StoreError) -> SearchError {
        SearchError::Run(e.into())
    }
}

/// What a finished (or stopped) run reached.
///
/// It holds the run folder's lock ([`crate::folder::FolderLock`]): no other process can
/// take the folder until the result is dropped, so the caller can finish
/// with it (rebuild and write the best game) first.
#[derive(Debug)]
pub struct RunResult {
    /// The best game.
    pub best: Best,
    /// The last depth written.
    pub depth: u32,
    /// Whether the beam died out.
    pub exhausted: bool,
    /// Whether the search was stopped ([`Options::stop`]) before
    /// `max_depth`.
    pub stopped: bool,
    /// The folder's lock, held until the result is dropped.
    _lock: crate::folder::FolderLock,
}

/// Starts a new run in `dir` (which must be new or empty).
pub fn start(
    dir: &Path,
    search: &Search,
    opts: &Options,
    observer: &dyn Observer,
) -> Result<RunResult, SearchError> {
    let files = search.evaluator.files();
    let shards = opts.expander.as_ref().and_then(|e| e.shards());
    let (lock, manifest) = run::create(dir, search.settings(), opts.plan(), shards, &files)?;
    let history = search
        .adversary
        .keeps_history()
        .then(|| History::root(search.adversary));
    if let Some(h) = &history {
        run::write_snapshot(dir, 0, &h.to_snapshot(0))?;
    }
    run_from(dir, lock, manifest, history, search, opts, observer)
}

/// Continues the run in `dir` from its last complete depth, once the depth
/// files check out against the manifest and each other (see
/// [`run`]'s chain).
pub fn resume(
    dir: &Path,
    search: &Search,
    opts: &Options,
    observer: &dyn Observer,
) -> Result<RunResult, SearchError> {
    let (lock, mut manifest) = run::open_to_resume(dir)?;
    run::check_settings(dir, &manifest.settings, &search.settings())?;
    check_layout(dir, manifest.shards, opts)?;
    // A folder from before runs kept their files gets them now.
    run::keep_files(dir, &search.evaluator.files())?;
    manifest.plan = Some(opts.plan());
    let adversary = search.adversary;
    let root = || adversary.keeps_history().then(|| History::root(adversary));
    // A sharded run killed before its first depth was recorded goes on from
    // its root, which its shards write again, as at its start.
    let (d, len, history) = if manifest.shards.is_some() && manifest.depth == 0 {
        (0, 1, root())
    } else {
        run::last_good_depth(
            dir,
            &manifest,
            |d, len| match (adversary.keeps_history(), d) {
                (false, _) => Some(None),
                // The root's history depends on nothing: make it afresh.
                (true, 0) => Some(root()),
                (true, _) => Some(Some(History::from_snapshot(
                    adversary,
                    &run::read_snapshot(dir, d)?,
                    d,
                    len,
                )?)),
            },
            |d, why| observer.fell_back(d, why),
        )?
    };
    manifest.exhausted = false;
    // The best game by the one order, from the files (newer depths may
    // have been dropped); a sharded run whose other shards are on other
    // machines keeps its manifest's, unless it was in a dropped depth.
    let elsewhere = !run::shards::missing(dir, manifest.shards).is_empty();
    if !elsewhere || manifest.best.depth > d {
        manifest.best = run::best_from_files(dir, manifest.shards, &manifest.depths[..d as usize])?;
    }
    run::rewind(dir, &mut manifest, d)?;
    observer.resumed(d, len);
    run_from(dir, lock, manifest, history, search, opts, observer)
}

/// Checks that a run sharded as `run` goes on with the same layout: its
/// shards' files are split by the shard count. (A run with one file per
/// depth may go on sharded: the depth loop then writes its files, as it
/// did when it began.)
fn check_layout(dir: &Path, run: Option<Shards>, opts: &Options) -> Result<(), SearchError> {
    let asked = opts.expander.as_ref().and_then(|e| e.shards());
    match (run, asked) {
        (Some(run), None) => Err(SearchError::Layout(format!(
            "{} is a sharded run ({run}): resume it with --workers {} on its {} process{}",
            dir.display(),
            run.workers,
            run.processes,
            if run.processes == 1 { "" } else { "es" }
        ))),
        (Some(run), Some(asked)) if run != asked => Err(SearchError::Layout(format!(
            "{} is sharded over {run}, not {asked}: resume it with the same --workers and processes",
            dir.display()
        ))),
        _ => Ok(()),
    }
}

/// Checks the whole run in `dir` ([`run::verify`]), its history snapshots
/// read as its adversary's.
pub fn verify(dir: &Path) -> Result<run::verify::Report, RunError> {
    let settings = run::read_manifest_file(dir)?.settings;
    let adversary = Adversary::new(settings.enemy);
    let check = move |d: u32, bytes: &[u8], len: usize| match History::from_snapshot(
        adversary, bytes, d, len,
    ) {
        Some(_) => Ok(()),
        None => Err("damaged, or not this depth's".to_string()),
    };
    let snapshot: Option<run::verify::SnapshotCheck> = match adversary.keeps_history() {
        true => Some(&check),
        false => None,
    };
    run::verify::verify(dir, snapshot)
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

/// Fills `next`, the slots of the state each beam entry's children
/// inherit, from the `states` a [`DepthExpander`] gave (nothing to do for
/// an adversary without per-entry states).
fn take_states(next: &[AtomicU32], states: &[u32], depth: u32) -> Result<(), SearchError> {
    if next.is_empty() {
        return Ok(());
    }
    if states.len() != next.len() {
        return Err(SearchError::Expander {
            depth,
            reason: format!("{} entry states for a beam of {}", states.len(), next.len()),
        });
    }
    for (slot, &state) in next.iter().zip(states) {
        slot.store(state, Ordering::Relaxed);
    }
    Ok(())
}

/// The depth loop, from the manifest's last depth to `opts.max_depth`.
///
/// Each turn writes the beam the turn before selected while it expands it:
/// the depth file is compressed on the same pool as the expansion
/// (`rayon::join`), and the history's snapshot is written on a thread of
/// its own. Only then, with both on disk, does the manifest name the depth.
/// So a depth's write costs the search no wall time of its own, where it
/// was the largest serial step (about 1.8 % of a 1-thread depth at width
/// 100,000); the price is the beam's wells held in memory during one
/// expansion (20 bytes per entry). What stays between two expansions: the
/// final cut (its sort on the pool, its dedup, selection and cut serial),
/// the history taking the new beam (which the next expansion reads; the
/// maturing level's blocks are read on the pool, the pruning and the
/// filter's new keys serial), and the manifest. Session 13 measured them
/// at 0.85-0.88 % of a 1-thread depth at width 100,000, and their serial
/// parts at less.
fn run_from(
    dir: &Path,
    lock: crate::folder::FolderLock,
    mut manifest: Manifest,
    mut history: Option<History>,
    search: &Search,
    opts: &Options,
    observer: &dyn Observer,
) -> Result<RunResult, SearchError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| SearchError::Threads {
            threads: opts.threads,
            reason: e.to_string(),
        })?;
    let started = Instant::now();
    let run_id = manifest.settings.run_id();
    // A sharded run's files are written by its shards' workers (through
    // the expander), the rest of the folder here.
    let shards = manifest.shards;
    let mut depth = manifest.depth;
    // The manifest and log of the depth before, timed (see `Phases`).
    let mut bookkeeping = 0.0;
    // The beam at `depth` when it is not yet on disk: a sharded run's
    // root is written, as every depth, by its shards.
    let mut selected: Option<Selected> = match (shards, depth) {
        (Some(_), 0) => Some(Selected {
            wells: vec![crate::well::Well::EMPTY.pack()],
            stats: None,
        }),
        _ => None,
    };
    let mut recent = Recent::default();
    // The digest of the last depth file on disk, which the next one names
    // (one file per depth; a shard's worker keeps its own).
    let mut previous = 0;
    let mut stopped = false;
    loop {
        let expanding = depth < opts.max_depth && !opts.stopping();
        if !expanding && selected.is_none() {
            stopped = depth < opts.max_depth;
            break;
        }
        let file;
        let resumed: Vec<PackedWell>;
        let beam = match (&selected, shards) {
            (Some(s), _) => Beam::Kept {
                wells: &s.wells,
                depth,
            },
            (None, None) => {
                // Read from its depth file as it is expanded, a block at a
                // time, so it costs no memory of its own.
                file = DepthFile::open(&run::depth_path(dir, depth))?;
                previous = file.digest();
                Beam::File(&file)
            }
            (None, Some(_)) => {
                // On resuming: the union of the shards' files, which each
                // shard's worker read from its own folder.
                resumed = recall(opts, &mut recent, depth, history.is_some(), &manifest)?;
                Beam::Kept {
                    wells: &resumed,
                    depth,
                }
            }
        };
        // Whether the expander writes the beam's shard files (alongside
        // its expansion, or alone for the last depth).
        let shard_write = shards.is_some() && selected.is_some();
        let next = match (expanding, &history) {
            (true, Some(h)) => h.next_slots(beam.len()),
            _ => Vec::new(),
        };
        // The sharded search hands every process the beam's history first.
        let for_expander: Option<Arc<[u8]>> = match (&opts.expander, &history) {
            (Some(_), Some(h)) if expanding => Some(h.to_snapshot(depth).into()),
            _ => None,
        };
        let kernel = Kernel {
            eval: search.evaluator,
            adversary: search.adversary,
            history: history.as_ref(),
            next: &next,
            width: search.width,
            threads: opts.threads,
        };
        if expanding {
            observer.depth_started(depth + 1, beam.len() as u64);
        }
        let clock = Instant::now();
        let path = run::depth_path(dir, depth);
        let write = |s: &Selected| -> Result<(u64, f64), SearchError> {
            let clock = Instant::now();
            let link = Link {
                run: run_id,
                previous,
            };
            let bytes = store::write_depth_file(&path, depth, link, s.wells.len(), |i| Entry {
                well: s.wells[i],
                score: bounded::score_at(&s.wells[i], depth),
            })
            .map_err(|e| RunError::from(run::io(&path)(e)))?;
            Ok((bytes, clock.elapsed().as_secs_f64()))
        };
        let snapshot = |h: &History| -> Result<f64, SearchError> {
            let clock = Instant::now();
            match &for_expander {
                Some(bytes) => run::write_snapshot(dir, depth, bytes)?,
                None => run::write_snapshot(dir, depth, &h.to_snapshot(depth))?,
            }
            Ok(clock.elapsed().as_secs_f64())
        };
        type Outcome = (Option<kernel::Expansion>, Vec<Written>);
        let expand = || -> Result<Outcome, SearchError> {
            let stop = || opts.stopping();
            match &opts.expander {
                None => Ok((kernel.expand(beam, observer, &stop)?, Vec::new())),
                Some(expander) => {
                    let parents: Arc<[store::Stored]> = beam.read_all()?.into();
                    let job = DepthJob {
                        beam: parents,
                        depth,
                        history: for_expander.clone(),
                        expand: expanding,
                        write: shard_write,
                    };
                    let e = expander
                        .expand(job)
                        .map_err(|reason| SearchError::Expander { depth, reason })?;
                    if !expanding {
                        return Ok((None, e.written));
                    }
                    take_states(&next, &e.states, depth)?;
                    observer.expanded(beam.len() as u64);
                    let expansion = kernel::Expansion {
                        kept: e.kept,
                        children: e.children,
                        unique: e.unique,
                        select_s: 0.0,
                        locked_s: 0.0,
                        waited_s: 0.0,
                        idle_s: 0.0,
                    };
                    Ok((Some(expansion), e.written))
                }
            }
        };
        // The beam's files, alongside its expansion.
        let (written, snapshotted, outcome) = std::thread::scope(|scope| {
            let snapshotting = match (&selected, &history) {
                (Some(s), Some(h)) if s.stats.is_some() => Some(scope.spawn(|| snapshot(h))),
                _ => None,
            };
            let unsharded = selected.as_ref().filter(|_| shards.is_none());
            let (written, outcome) = pool.install(|| {
                rayon::join(
                    || unsharded.map(write),
                    || (expanding || shard_write).then(expand),
                )
            });
            let snapshotted = snapshotting.map(|t| {
                t.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            (written, snapshotted, outcome)
        });
        let stepped = clock.elapsed().as_secs_f64();
        // A sharded depth counts only once every shard's file is on disk;
        // one file per depth, once it is (an expansion that failed after
        // it was written does not undo it).
        let (expanded, shard_files) = match outcome {
            None => (None, Vec::new()),
            Some(Ok((e, w))) => (Some(Ok(e)), w),
            Some(Err(e)) if shard_write => return Err(e),
            Some(Err(e)) => (Some(Err(e)), Vec::new()),
        };
        if let Some(Selected { wells, stats }) = selected.take() {
            let (file_bytes, write_s) = match shards {
                None => {
                    let (file_bytes, write_s) = written.expect("a selected beam is written")?;
                    previous = DepthFile::open(&path)?.digest();
                    (file_bytes, write_s)
                }
                Some(layout) => {
                    if shard_files.len() != layout.count() as usize {
                        return Err(SearchError::Expander {
                            depth,
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
            if history.is_some() && shards.is_some() {
                recent.keep(depth, wells);
            } else {
                drop(wells);
            }
            // (A sharded run's root has none: the manifest lists depths
            // from 1.)
            if let Some(mut stats) = stats {
                stats.file_bytes = file_bytes;
                stats.elapsed_s = started.elapsed().as_secs_f64();
                stats.peak_rss = memory::peak_rss();
                if let Some(p) = &mut stats.phases {
                    p.write = write_s;
                    p.snapshot = snapshotted.transpose()?.unwrap_or(0.0);
                }
                let clock = Instant::now();
                run::record_depth(dir, &mut manifest, stats)?;
                bookkeeping = clock.elapsed().as_secs_f64();
                observer.depth_finished(manifest.depths.last().expect("just recorded"));
            }
            if let Some(release) = opts.release_memory {
                pool.broadcast(|_| release());
                release();
            }
        }
        let Some(expanded) = expanded.filter(|_| expanding) else {
            stopped = depth < opts.max_depth;
            break;
        };
        let Some(expansion) = expanded? else {
            stopped = true;
            break;
        };
        let mut phases = Phases {
            expand: stepped - expansion.select_s,
            select: expansion.select_s,
            manifest: bookkeeping,
            locked: expansion.locked_s,
            waited: expansion.waited_s,
            idle: expansion.idle_s,
            ..Phases::default()
        };
        let kept = expansion.kept;
        if kept.is_empty() {
            manifest.exhausted = true;
            run::write_manifest(dir, &manifest)?;
            observer.exhausted(depth + 1);
            break;
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
        if best_score > manifest.best.score {
            manifest.best = Best {
                score: best_score,
                depth: depth + 1,
                well: top.well.unpack(),
            };
        }
        let histogram = run::histogram(kept.iter().map(|c| c.score_at(depth + 1)));
        // The next beam is held as its wells alone (20 bytes an entry, not
        // a candidate's 32) until its depth file is written.
        let clock = Instant::now();
        let wells: Vec<PackedWell> = pool.install(|| kept.par_iter().map(|c| c.well).collect());
        phases.select += clock.elapsed().as_secs_f64();
        // The history takes the new beam before the next expansion, which
        // reads it. (The level that matures reads its wells from that
        // level's own, older, depth file, already on disk.)
        let clock = Instant::now();
        let parents: Option<Vec<u32>> = history
            .is_some()
            .then(|| kept.iter().map(|c| c.parent).collect());
        drop(kept);
        // On the pool, which is idle now: the level that matures is read a
        // block per thread.
        if let (Some(h), Some(parents)) = (&mut history, parents) {
            pool.install(|| {
                h.push(parents, next, |d, indices| {
                    let d = d as u32;
                    match recent.wells_at(d, indices) {
                        Some(wells) => Ok(wells),
                        None => Depth::open(dir, d, shards)?.wells_at(indices),
                    }
                })
            })?;
        }
        phases.ancestry = clock.elapsed().as_secs_f64();
        depth += 1;
        selected = Some(Selected {
            stats: Some(DepthStats {
                depth,
                elapsed_s: 0.0,
                children: expansion.children,
                unique: expansion.unique,
                kept: wells.len() as u64,
                best_cost,
                best_score,
                histogram,
                ancestry_nodes: history.as_ref().map_or(0, |h| h.ancestry.nodes() as u64),
                file_bytes: 0,
                peak_rss: None,
                phases: Some(phases),
            }),
            wells,
        });
    }
    Ok(RunResult {
        best: manifest.best,
        depth,
        exhausted: manifest.exhausted,
        stopped,
        _lock: lock,
    })
}
