//! The disk-backed, multi-threaded, resumable beam search.
//!
//! A depth is one placed piece. The piece is the adversary's choice for
//! each beam entry ([`Adversary`]; HATETRIS with loop prevention against
//! the entry's own ancestry), so a well's children are the placements of
//! that one piece. Each depth:
//!
//! 1. the kernel expands the beam, read back from its depth file a
//!    block at a time, into the exact best `width` distinct children, the
//!    same for any thread count;
//! 2. the kept children, sorted by well, become the next beam: written as a
//!    depth file, appended to the ancestry (for an adversary that keeps
//!    one), and recorded in the manifest and the log of the [run
//!    folder](crate::run);
//! 3. the [`Observer`] hears of it; the library prints nothing.
//!
//! The evaluator comes in through the [`Evaluator`] seam and the adversary
//! through [`Adversary`], so this module knows neither the heuristic nor a
//! network, nor which enemy it plays.
//!
//! Memory, per beam entry, whatever the thread count:
//! - the beam: nothing; it is decoded from its depth file a block per
//!   thread at a time, and the file's mapped pages are dropped as it goes;
//! - the ancestry: a 4-byte parent index, plus the older levels' live nodes
//!   (about half a node per entry): 8 bytes for a node of the four newest
//!   levels, 24 for an older one (which also costs 2-4 bytes of Bloom
//!   filter); see [`ancestry`];
//! - the one bounded set: room for 1.125 candidates of 32 bytes
//!   ([`bounded::Candidate`]: the well packed to 20 bytes, no score);
//! - distinct children are estimated in fixed memory (`distinct`);
//! - depth files are streamed to disk as they are compressed.
//!
//! Measured: 49 bytes per extra entry (peak RSS at widths 100,000 and
//! 300,000 over the same 30 depths, 16.3 and 26.0 MB), and 60 over whole
//! runs (18.9 and 30.7 MB), where the ancestry grows to 0.9 node per entry.

pub mod adversary;
pub mod ancestry;
pub mod bounded;
pub(crate) mod distinct;
pub(crate) mod kernel;
pub mod memory;
pub mod observer;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::evaluate::Evaluator;
use crate::run::store::{self, DepthFile, Entry, Link};
use crate::run::{self, Best, DepthStats, Manifest, Phases, Plan, RunError, Settings};

pub use adversary::Adversary;
use adversary::History;
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
    /// The best distinct children of `beam` (the beam after `depth`
    /// pieces), sorted by well. For an adversary that keeps a history,
    /// `history` is the beam's history snapshot, the bytes the run folder
    /// holds for `depth` (`ancestry-NNNNN.bin`), from which every process
    /// rebuilds the history exactly.
    fn expand(
        &self,
        beam: Arc<[store::Stored]>,
        depth: u32,
        history: Option<Arc<[u8]>>,
    ) -> Result<Expanded, String>;
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
    let expansion = pool.install(|| kernel.expand(beam, &Silent, &|| false))?;
    Ok(expansion.expect("never asked to stop").kept)
}

impl From<store::StoreError> for SearchError {
    fn from(e: store::StoreError) -> SearchError {
        SearchError::Run(e.into())
    }
}

/// What a finished (or stopped) run reached.
///
/// It holds the run folder's lock ([`run::RunLock`]): no other process can
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
    _lock: run::RunLock,
}

/// Starts a new run in `dir` (which must be new or empty).
pub fn start(
    dir: &Path,
    search: &Search,
    opts: &Options,
    observer: &dyn Observer,
) -> Result<RunResult, SearchError> {
    let files = search.evaluator.files();
    let (lock, manifest) = run::create(dir, search.settings(), opts.plan(), &files)?;
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
    // A folder from before runs kept their files gets them now.
    run::keep_files(dir, &search.evaluator.files())?;
    manifest.plan = Some(opts.plan());
    let adversary = search.adversary;
    let (d, len, history) = run::last_good_depth(
        dir,
        &manifest,
        |d, len| match (adversary.keeps_history(), d) {
            (false, _) => Some(None),
            // The root's history depends on nothing: make it afresh.
            (true, 0) => Some(Some(History::root(adversary))),
            (true, _) => Some(Some(History::from_snapshot(
                adversary,
                &run::read_snapshot(dir, d)?,
                d,
                len,
            )?)),
        },
        |d, why| observer.fell_back(d, why),
    )?;
    manifest.exhausted = false;
    // The best game by the one order, from the files (newer depths may
    // have been dropped).
    manifest.best = run::best_from_files(dir, &manifest.depths[..d as usize])?;
    run::rewind(dir, &mut manifest, d)?;
    observer.resumed(d, len);
    run_from(dir, lock, manifest, history, search, opts, observer)
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

/// The depth loop, from the manifest's last depth to `opts.max_depth`.
fn run_from(
    dir: &Path,
    lock: run::RunLock,
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
    let mut depth = manifest.depth;
    // The manifest and log of the depth before, timed (see `Phases`).
    let mut bookkeeping = 0.0;
    // The history's snapshot of the current depth, once written, for the
    // expander (which hands it to every process).
    let mut snapshot: Option<Arc<[u8]>> = None;
    let mut stopped = false;
    while depth < opts.max_depth {
        if opts.stopping() {
            stopped = true;
            break;
        }
        // The beam is read from its depth file as it is expanded, a block at
        // a time, so it costs no memory of its own.
        let beam = DepthFile::open(&run::depth_path(dir, depth))?;
        observer.depth_started(depth + 1, beam.len() as u64);
        let next = history
            .as_ref()
            .map_or(Vec::new(), |h| h.next_slots(beam.len()));
        let kernel = Kernel {
            eval: search.evaluator,
            adversary: search.adversary,
            history: history.as_ref(),
            next: &next,
            width: search.width,
            threads: opts.threads,
        };
        let clock = Instant::now();
        let stop = || opts.stopping();
        let expanded = match &opts.expander {
            None => pool.install(|| kernel.expand(&beam, observer, &stop))?,
            Some(expander) => {
                // Its blocks decoded on the (otherwise idle) pool.
                let parents: Arc<[store::Stored]> = pool.install(|| beam.read_all())?.into();
                let history = history.as_ref().map(|h| {
                    snapshot
                        .take()
                        .unwrap_or_else(|| h.to_snapshot(depth).into())
                });
                let e = expander
                    .expand(parents, depth, history)
                    .map_err(|reason| SearchError::Expander { depth, reason })?;
                if !next.is_empty() {
                    if e.states.len() != next.len() {
                        return Err(SearchError::Expander {
                            depth,
                            reason: format!(
                                "{} entry states for a beam of {}",
                                e.states.len(),
                                next.len()
                            ),
                        });
                    }
                    for (slot, &state) in next.iter().zip(&e.states) {
                        slot.store(state, Ordering::Relaxed);
                    }
                }
                observer.expanded(beam.len() as u64);
                Some(kernel::Expansion {
                    kept: e.kept,
                    children: e.children,
                    unique: e.unique,
                    select_s: 0.0,
                    locked_s: 0.0,
                    waited_s: 0.0,
                })
            }
        };
        let Some(expansion) = expanded else {
            stopped = true;
            break;
        };
        let mut phases = Phases {
            expand: clock.elapsed().as_secs_f64() - expansion.select_s,
            select: expansion.select_s,
            manifest: bookkeeping,
            locked: expansion.locked_s,
            waited: expansion.waited_s,
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
        // The old beam's mapping goes first. Then the new depth file is
        // streamed out of the candidates while, alongside, the history takes
        // the new beam and writes its snapshot: the two need nothing of each
        // other, and both must be on disk before the manifest names the
        // depth. Run one after the other they were a third of a depth's
        // serial time at width 100,000 (about 8 ms of 25), most of it
        // waiting on fsync. (The ancestry reads the wells of the level that
        // matures from that level's own, older, depth file.)
        let link = Link {
            run: run_id,
            previous: beam.digest(),
        };
        drop(beam);
        let clock = Instant::now();
        let next_path = run::depth_path(dir, depth + 1);
        let kept_len = kept.len() as u64;
        let parents: Vec<u32> = kept.iter().map(|c| c.parent).collect();
        let keep_snapshot = opts.expander.is_some();
        type Stepped = (f64, f64, Option<Arc<[u8]>>);
        let history_step = |history: &mut Option<History>| -> Result<Stepped, SearchError> {
            let Some(h) = history else {
                return Ok((0.0, 0.0, None));
            };
            let clock = Instant::now();
            h.push(parents, next, |d, indices| {
                DepthFile::open(&run::depth_path(dir, d as u32))?.wells_at(indices)
            })?;
            let ancestry = clock.elapsed().as_secs_f64();
            let clock = Instant::now();
            let bytes = h.to_snapshot(depth + 1);
            run::write_snapshot(dir, depth + 1, &bytes)?;
            let for_expander = keep_snapshot.then(|| bytes.into());
            Ok((ancestry, clock.elapsed().as_secs_f64(), for_expander))
        };
        // The history's step has a thread of its own, not one of the pool's:
        // its fsync then overlaps the depth file's compression even on one
        // worker thread.
        let (file_bytes, history_times) = std::thread::scope(|scope| {
            let stepping = scope.spawn(|| history_step(&mut history));
            let written = pool.install(|| {
                store::write_depth_file(&next_path, depth + 1, link, kept.len(), |i| Entry {
                    well: kept[i].well,
                    score: kept[i].score_at(depth + 1),
                })
            });
            let stepped = stepping
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (written, stepped)
        });
        let file_bytes = file_bytes.map_err(run::io(&next_path))?;
        (phases.ancestry, phases.snapshot, snapshot) = history_times?;
        phases.write = clock.elapsed().as_secs_f64();
        drop(kept);
        depth += 1;
        if let Some(release) = opts.release_memory {
            pool.broadcast(|_| release());
            release();
        }
        let stats = DepthStats {
            depth,
            elapsed_s: started.elapsed().as_secs_f64(),
            children: expansion.children,
            unique: expansion.unique,
            kept: kept_len,
            best_cost,
            best_score,
            histogram,
            ancestry_nodes: history.as_ref().map_or(0, |h| h.ancestry.nodes() as u64),
            file_bytes,
            peak_rss: memory::peak_rss(),
            phases: Some(phases),
        };
        let clock = Instant::now();
        run::record_depth(dir, &mut manifest, stats)?;
        bookkeeping = clock.elapsed().as_secs_f64();
        observer.depth_finished(manifest.depths.last().expect("just recorded"));
    }
    Ok(RunResult {
        best: manifest.best,
        depth,
        exhausted: manifest.exhausted,
        stopped,
        _lock: lock,
    })
}
