//! The disk-backed, multi-threaded, resumable beam search.
//!
//! A depth is one placed piece. The piece is the game's choice (HATETRIS,
//! with loop prevention against the entry's own ancestry), so a well's
//! children are the placements of that one piece. Each depth:
//!
//! 1. the beam is read back from its depth file a block at a time (it is
//!    never held in memory whole), and its blocks are split into chunks
//!    that the threads expand; children go,
//!    in batches, into one shared [`bounded::Bounded`] set of the best
//!    `width` distinct children, ordered by (cost, score, well, parent);
//!    once the set is full, a child costing more than its worst is dropped
//!    before it reaches the lock;
//! 2. the set is exact whatever the order of insertion, so the result does
//!    not depend on the thread count or timing;
//! 3. the kept children, sorted by well, become the next beam: written as a
//!    depth file ([`store`]), appended to the ancestry ([`ancestry`]), and
//!    recorded in the manifest and the log.
//!
//! # The run folder
//! ```text
//! manifest.json         settings, format version, per-depth stats, best game
//! depth-NNNNN.beam      the beam after NNNNN pieces (depth 0 is the empty well)
//! ancestry-NNNNN.bin    loop-prevention ancestry at that depth (last 3 kept)
//! log.jsonl             one JSON line per depth, as printed
//! ```
//! Every file is written to a temporary name, fsynced and renamed, and the
//! manifest is written last, so a kill at any moment leaves a run that
//! resumes from its last complete depth. On resume the last depth whose
//! depth file and ancestry snapshot both check out is used; a corrupt or
//! truncated newer file is reported and recomputed.
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
//! - distinct children are estimated in fixed memory ([`distinct`]);
//! - depth files are streamed to disk as they are compressed.
//!
//! Measured: 49 bytes per extra entry (peak RSS at widths 100,000 and
//! 300,000 over the same 30 depths, 16.3 and 26.0 MB), and 60 over whole
//! runs (18.9 and 30.7 MB), where the ancestry grows to 0.9 node per entry.

pub mod ancestry;
pub mod bounded;
pub mod distinct;
pub mod store;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::enemy::hatetris_choice_with_children;
use crate::movegen::{Child, MoveGen};
use crate::well::Well;
use ancestry::{well_hash, Ancestry, AncestryV2};
use bounded::{Bounded, Candidate};
use distinct::Distinct;
use store::{DepthFile, Entry, StoreError};

/// Ranks children. Lower cost is better.
pub trait Evaluate: Sync {
    /// The cost of `well` reached with `score` lines cleared (lower is better).
    fn cost(&self, well: &Well, score: u32) -> f64;
}

/// What a run is, compared on resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Beam width.
    pub width: usize,
    /// The evaluator's full description (weights and lookahead).
    pub evaluator: serde_json::Value,
}

/// How to run (may differ between a run and its resume).
#[derive(Clone, Debug)]
pub struct Options {
    /// Stop after this depth.
    pub max_depth: u32,
    /// Worker threads.
    pub threads: usize,
    /// Draw a progress bar and print a line per depth on stderr.
    pub progress: bool,
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
}

/// Statistics of one depth.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DepthStats {
    /// Pieces placed.
    pub depth: u32,
    /// Seconds since the run (or the resume) started.
    pub elapsed_s: f64,
    /// Children generated.
    pub children: u64,
    /// Distinct children wells (a HyperLogLog estimate, within about 1%).
    pub unique: u64,
    /// Wells kept.
    pub kept: u64,
    /// Best (lowest) cost kept.
    pub best_cost: f64,
    /// Highest score kept.
    pub best_score: u16,
    /// Kept wells per score: `[score, count]` pairs.
    pub histogram: Vec<(u16, u64)>,
    /// Live ancestry nodes in the older levels after this depth (the
    /// current beam's entries are not counted).
    pub ancestry_nodes: u64,
    /// Bytes of this depth's file.
    pub file_bytes: u64,
    /// The process's peak resident memory so far, in bytes (Linux only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss: Option<u64>,
}

/// The process's peak resident set size (`VmHWM`), where the OS tells it.
fn peak_rss() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The best game found so far.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Best {
    /// Lines cleared.
    pub score: u16,
    /// Pieces placed.
    pub depth: u32,
    /// The final well.
    pub well: Well,
}

/// The manifest of a run folder.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// Always "hatetris-beam".
    pub format: String,
    /// [`store::VERSION`].
    pub version: u32,
    /// The run's settings.
    pub settings: Settings,
    /// One entry per completed depth (depth 1 first).
    pub depths: Vec<DepthStats>,
    /// Highest score seen (ties: the shallowest).
    pub best: Best,
    /// Whether the beam died out (every child ended the game).
    pub exhausted: bool,
}

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// An I/O error.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A depth file problem.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The folder is not a run.
    #[error("{0}: no manifest.json here, so there is nothing to resume")]
    NotARun(PathBuf),
    /// The folder already holds a run.
    #[error("{0} already holds a run; use --resume to continue it, or pick another --out")]
    AlreadyARun(PathBuf),
    /// The manifest cannot be read.
    #[error("{path}: {reason}")]
    BadManifest {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Resume with different settings.
    #[error("cannot resume {dir}: {what} differs (run has {run}, asked for {asked})")]
    SettingsDiffer {
        /// The run folder.
        dir: PathBuf,
        /// Which setting.
        what: String,
        /// The run's value.
        run: String,
        /// The requested value.
        asked: String,
    },
    /// Nothing usable on disk.
    #[error("cannot resume {0}: no complete depth could be read")]
    NothingToResume(PathBuf),
    /// A thread pool could not be built.
    #[error("cannot start {threads} threads: {reason}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// Why.
        reason: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SearchError + '_ {
    move |source| SearchError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Path of depth `d`'s file.
pub fn depth_path(dir: &Path, d: u32) -> PathBuf {
    dir.join(format!("depth-{d:05}.beam"))
}

fn ancestry_path(dir: &Path, d: u32) -> PathBuf {
    dir.join(format!("ancestry-{d:05}.bin"))
}

/// Path of the manifest.
pub fn manifest_path(dir: &Path) -> PathBuf {
    dir.join("manifest.json")
}

/// Reads a run's manifest.
pub fn read_manifest(dir: &Path) -> Result<Manifest, SearchError> {
    let path = manifest_path(dir);
    if !path.exists() {
        return Err(SearchError::NotARun(dir.to_path_buf()));
    }
    let text = fs::read_to_string(&path).map_err(io(&path))?;
    let m: Manifest = serde_json::from_str(&text).map_err(|e| SearchError::BadManifest {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    if m.format != "hatetris-beam" || m.version != store::VERSION {
        return Err(SearchError::BadManifest {
            path,
            reason: format!(
                "format {} version {}, expected hatetris-beam version {}",
                m.format,
                m.version,
                store::VERSION
            ),
        });
    }
    Ok(m)
}

fn write_manifest(dir: &Path, m: &Manifest) -> Result<(), SearchError> {
    let path = manifest_path(dir);
    let text = serde_json::to_string_pretty(m).expect("manifest serializes");
    store::write_atomic(&path, text.as_bytes()).map_err(io(&path))
}

const ANCESTRY_MAGIC: &[u8; 8] = b"HTANCST3";
/// The previous snapshot format, still read: every level held its wells.
const ANCESTRY_MAGIC_V2: &[u8; 8] = b"HTANCST2";

fn save_ancestry(dir: &Path, depth: u32, a: &Ancestry) -> Result<(), SearchError> {
    let path = ancestry_path(dir, depth);
    let raw = bincode::serialize(a).expect("ancestry serializes");
    let packed = zstd::bulk::compress(&raw, 3).expect("zstd compresses in memory");
    let mut out = Vec::with_capacity(packed.len() + 24);
    out.extend_from_slice(ANCESTRY_MAGIC);
    out.extend_from_slice(&depth.to_le_bytes());
    out.extend_from_slice(&(raw.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&packed).to_le_bytes());
    out.extend_from_slice(&packed);
    store::write_atomic(&path, &out).map_err(io(&path))?;
    // Keep the last three snapshots, so a corrupt newest depth can fall back.
    if depth >= 3 {
        let _ = fs::remove_file(ancestry_path(dir, depth - 3));
    }
    Ok(())
}

fn load_ancestry(dir: &Path, depth: u32, beam_len: usize) -> Option<Ancestry> {
    let bytes = fs::read(ancestry_path(dir, depth)).ok()?;
    let v2 = bytes.len() >= 8 && &bytes[..8] == ANCESTRY_MAGIC_V2;
    if bytes.len() < 24 || (&bytes[..8] != ANCESTRY_MAGIC && !v2) {
        return None;
    }
    let d = u32::from_le_bytes(bytes[8..12].try_into().ok()?);
    let raw_len = u64::from_le_bytes(bytes[12..20].try_into().ok()?) as usize;
    let crc = u32::from_le_bytes(bytes[20..24].try_into().ok()?);
    let packed = &bytes[24..];
    if d != depth || crc32fast::hash(packed) != crc || raw_len > (1 << 36) {
        return None;
    }
    let raw = zstd::bulk::decompress(packed, raw_len).ok()?;
    let a: Ancestry = if v2 {
        bincode::deserialize::<AncestryV2>(&raw).ok()?.into()
    } else {
        bincode::deserialize(&raw).ok()?
    };
    a.validate(beam_len)
}

/// What a finished (or stopped) run reached.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// The best game.
    pub best: Best,
    /// The last depth written.
    pub depth: u32,
    /// Whether the beam died out.
    pub exhausted: bool,
}

/// Starts a new run in `dir` (which must not already hold one).
pub fn start<E: Evaluate>(
    dir: &Path,
    settings: Settings,
    eval: &E,
    opts: &Options,
) -> Result<RunResult, SearchError> {
    if manifest_path(dir).exists() {
        return Err(SearchError::AlreadyARun(dir.to_path_buf()));
    }
    fs::create_dir_all(dir).map_err(io(dir))?;
    let root = Entry {
        well: Well::EMPTY.pack(),
        score: 0,
    };
    let p = depth_path(dir, 0);
    store::write_depth_file(&p, 0, 1, |_| root).map_err(io(&p))?;
    let ancestry = Ancestry::root();
    save_ancestry(dir, 0, &ancestry)?;
    let manifest = Manifest {
        format: "hatetris-beam".into(),
        version: store::VERSION,
        settings,
        depths: Vec::new(),
        best: Best {
            score: 0,
            depth: 0,
            well: Well::EMPTY,
        },
        exhausted: false,
    };
    write_manifest(dir, &manifest)?;
    run_from(dir, manifest, ancestry, eval, opts)
}

/// Continues the run in `dir` from its last complete depth.
pub fn resume<E: Evaluate>(
    dir: &Path,
    settings: Settings,
    eval: &E,
    opts: &Options,
) -> Result<RunResult, SearchError> {
    let mut manifest = read_manifest(dir)?;
    if manifest.settings.width != settings.width {
        return Err(SearchError::SettingsDiffer {
            dir: dir.to_path_buf(),
            what: "the beam width".into(),
            run: manifest.settings.width.to_string(),
            asked: settings.width.to_string(),
        });
    }
    if manifest.settings.evaluator != settings.evaluator {
        return Err(SearchError::SettingsDiffer {
            dir: dir.to_path_buf(),
            what: "the evaluator (weights, --quiescent or the terms' definition)".into(),
            run: manifest.settings.evaluator.to_string(),
            asked: settings.evaluator.to_string(),
        });
    }
    // The newest depth whose beam and ancestry both read back intact.
    let last = manifest.depths.len() as u32;
    let mut found = None;
    for d in (0..=last).rev() {
        let file = DepthFile::open(&depth_path(dir, d));
        let len = match file.and_then(|f| f.verify().map(|()| f.len())) {
            Ok(len) => len,
            Err(e) => {
                if opts.progress {
                    eprintln!("depth {d}: {e}; falling back");
                }
                continue;
            }
        };
        match load_ancestry(dir, d, len) {
            Some(a) => {
                found = Some((d, len, a));
                break;
            }
            None => {
                if opts.progress {
                    eprintln!("depth {d}: ancestry snapshot missing or damaged; falling back");
                }
            }
        }
    }
    let (d, len, ancestry) =
        found.ok_or_else(|| SearchError::NothingToResume(dir.to_path_buf()))?;
    manifest.depths.truncate(d as usize);
    manifest.exhausted = false;
    // Recompute the best game from the kept stats, in case newer depths were dropped.
    manifest.best = best_from_files(dir, &manifest.depths)?;
    if opts.progress {
        eprintln!("resuming {} at depth {d} ({} wells)", dir.display(), len);
    }
    run_from(dir, manifest, ancestry, eval, opts)
}

/// The best game among the depths listed (highest score, then shallowest,
/// then smallest well).
fn best_from_files(dir: &Path, depths: &[DepthStats]) -> Result<Best, SearchError> {
    let mut best = Best {
        score: 0,
        depth: 0,
        well: Well::EMPTY,
    };
    for s in depths {
        if s.best_score > best.score {
            let f = DepthFile::open(&depth_path(dir, s.depth))?;
            let all = f.read_all()?;
            if let Some(e) = all.iter().find(|e| e.score == s.best_score) {
                best = Best {
                    score: e.score,
                    depth: s.depth,
                    well: e.well,
                };
            }
        }
    }
    Ok(best)
}

fn run_from<E: Evaluate>(
    dir: &Path,
    mut manifest: Manifest,
    mut ancestry: Ancestry,
    eval: &E,
    opts: &Options,
) -> Result<RunResult, SearchError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| SearchError::Threads {
            threads: opts.threads,
            reason: e.to_string(),
        })?;
    let width = manifest.settings.width;
    let started = Instant::now();
    let mut depth = manifest.depths.len() as u32;
    let log_path = dir.join("log.jsonl");
    while depth < opts.max_depth {
        // The beam is read from its depth file as it is expanded, a block at
        // a time, so it costs no memory of its own.
        let beam = DepthFile::open(&depth_path(dir, depth))?;
        let bar = progress_bar(opts.progress, beam.len() as u64, depth + 1);
        let (kept, children, unique) =
            pool.install(|| expand(&beam, &ancestry, eval, width, opts.threads, &bar))?;
        bar.finish_and_clear();
        if kept.is_empty() {
            manifest.exhausted = true;
            write_manifest(dir, &manifest)?;
            if opts.progress {
                eprintln!(
                    "depth {}: every child ends the game; the search is over",
                    depth + 1
                );
            }
            break;
        }
        // `kept` is sorted by well, the order of the depth file.
        let best_cost = kept.iter().min().expect("non-empty").cost;
        let top = *kept
            .iter()
            .max_by(|a, b| {
                a.score_at(depth + 1)
                    .cmp(&b.score_at(depth + 1))
                    .then(b.cmp(a))
            })
            .expect("non-empty");
        let best_score = top.score_at(depth + 1);
        if best_score > manifest.best.score {
            manifest.best = Best {
                score: best_score,
                depth: depth + 1,
                well: top.well.unpack(),
            };
        }
        let mut histogram: Vec<(u16, u64)> = Vec::new();
        for c in &kept {
            let score = c.score_at(depth + 1);
            match histogram.iter_mut().find(|(s, _)| *s == score) {
                Some((_, n)) => *n += 1,
                None => histogram.push((score, 1)),
            }
        }
        histogram.sort_unstable();
        // Memory peaks here, so each big piece goes as soon as it can: the
        // old beam's mapping first; the new depth file is streamed out of
        // the candidates, which go before the ancestry moves on (and reads
        // the wells of the level that matures back from its depth file).
        drop(beam);
        let next_path = depth_path(dir, depth + 1);
        let file_bytes = store::write_depth_file(&next_path, depth + 1, kept.len(), |i| Entry {
            well: kept[i].well,
            score: kept[i].score_at(depth + 1),
        })
        .map_err(io(&next_path))?;
        let kept_len = kept.len() as u64;
        let parents: Vec<u32> = kept.iter().map(|c| c.parent).collect();
        drop(kept);
        ancestry.push(parents, |d, indices| {
            DepthFile::open(&depth_path(dir, d as u32))?.wells_at(indices)
        })?;
        depth += 1;
        save_ancestry(dir, depth, &ancestry)?;
        if let Some(release) = opts.release_memory {
            pool.broadcast(|_| release());
            release();
        }
        let stats = DepthStats {
            depth,
            elapsed_s: started.elapsed().as_secs_f64(),
            children,
            unique,
            kept: kept_len,
            best_cost,
            best_score,
            histogram,
            ancestry_nodes: ancestry.nodes() as u64,
            file_bytes,
            peak_rss: peak_rss(),
        };
        manifest.depths.push(stats.clone());
        write_manifest(dir, &manifest)?;
        let line = serde_json::to_string(&stats).expect("stats serialize");
        let mut log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(io(&log_path))?;
        writeln!(log, "{line}").map_err(io(&log_path))?;
        if opts.progress {
            eprintln!("{}", describe(&stats));
        }
    }
    Ok(RunResult {
        best: manifest.best,
        depth,
        exhausted: manifest.exhausted,
    })
}

/// One human-readable line for a depth.
pub fn describe(s: &DepthStats) -> String {
    let hist: Vec<String> = s
        .histogram
        .iter()
        .map(|(sc, n)| format!("{sc}:{n}"))
        .collect();
    let rss = s
        .peak_rss
        .map(|b| format!("  peak rss {:.0} MB", b as f64 / 1e6))
        .unwrap_or_default();
    format!(
        "depth {:>4}  {:>8.1}s  children {:>10}  unique {:>10}  kept {:>9}  best cost {:>11.3}  best score {:>3}{rss}  scores {}",
        s.depth,
        s.elapsed_s,
        s.children,
        s.unique,
        s.kept,
        s.best_cost,
        s.best_score,
        hist.join(" ")
    )
}

fn progress_bar(show: bool, len: u64, depth: u32) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "depth {msg} [{bar:30}] {pos}/{len} wells  {per_sec}  eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(depth.to_string());
    bar
}

/// Expands every entry of the beam (read from its depth file a block at a
/// time); returns the kept children sorted by well, the number of children
/// and the estimated number of distinct children.
fn expand<E: Evaluate>(
    beam: &DepthFile,
    ancestry: &Ancestry,
    eval: &E,
    width: usize,
    threads: usize,
    bar: &indicatif::ProgressBar,
) -> Result<(Vec<Candidate>, u64, u64), SearchError> {
    // One bounded set for everyone, fed in batches under a lock. Once it is
    // full, its worst cost is published; a child that costs more can never
    // make the final top `width` (the set only gets better), so threads drop
    // it without taking the lock. The result is the exact top `width`
    // whatever the thread count or timing, and memory is one set, not one
    // per thread.
    let kept = Mutex::new(Bounded::new(width));
    let worst = AtomicU64::new(f64::INFINITY.to_bits());
    // Blocks are decoded in parallel, and each block is cut into chunks so
    // that a beam of one or two blocks still feeds every thread.
    let chunk = store::BLOCK
        .min(beam.len().div_ceil(threads.max(1) * 8))
        .max(1);
    // Counts and sketches are folded as parts finish, so only a few
    // sketches are alive at once, not one per part.
    type Tally = (u64, Distinct);
    let merge = |mut a: Tally, b: Tally| {
        a.0 += b.0;
        a.1.merge(&b.1);
        a
    };
    let (children, mut distinct) = (0..beam.blocks())
        .into_par_iter()
        .map(|b| -> Result<Tally, SearchError> {
            let entries = beam.block(b)?;
            let base = b * store::BLOCK;
            Ok(entries
                .par_chunks(chunk)
                .enumerate()
                .map(|(ci, part)| {
                    expand_part(part, base + ci * chunk, ancestry, eval, &kept, &worst, bar)
                })
                .reduce(Tally::default, merge))
        })
        .try_reduce(Tally::default, |a, b| Ok(merge(a, b)))?;
    let kept = kept.into_inner().expect("no thread panicked");
    Ok((kept.into_sorted_by_well(), children, distinct.count()))
}

/// Expands `part`, the beam's entries from index `first` on, into the
/// shared set; returns the number of children and their distinct-count
/// sketch.
fn expand_part<E: Evaluate>(
    part: &[store::Stored],
    first: usize,
    ancestry: &Ancestry,
    eval: &E,
    kept: &Mutex<Bounded>,
    worst: &AtomicU64,
    bar: &indicatif::ProgressBar,
) -> (u64, Distinct) {
    let mut buf: Vec<Child> = Vec::with_capacity(128);
    let mut batch: Vec<Candidate> = Vec::with_capacity(BATCH);
    let mut distinct = Distinct::default();
    let mut children = 0u64;
    let flush = |batch: &mut Vec<Candidate>| {
        let mut set = kept.lock().expect("no thread panics while holding the set");
        for c in batch.drain(..) {
            set.insert(c);
        }
        if let Some(cost) = set.worst_cost_if_full() {
            worst.store(cost.to_bits(), Ordering::Relaxed);
        }
    };
    for (j, e) in part.iter().enumerate() {
        let index = first + j;
        let gen = MoveGen::new(&e.well);
        hatetris_choice_with_children(
            &gen,
            ancestry.may_repeat_from(&e.well),
            |w| ancestry.count(index, &e.well, w),
            &mut buf,
        );
        children += buf.len() as u64;
        for c in &buf {
            let score = e.score + c.lines as u16;
            distinct.insert(well_hash(&c.well));
            let cost = eval.cost(&c.well, score as u32);
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
    bar.inc(part.len() as u64);
    (children, distinct)
}

/// Candidates a thread gathers before taking the shared set's lock.
const BATCH: usize = 1024;

impl Evaluate for crate::heuristic::Evaluator {
    fn cost(&self, well: &Well, score: u32) -> f64 {
        crate::heuristic::Evaluator::cost(self, well, score)
    }
}
