//! The run folder: where a search keeps everything, and how it is read back.
//!
//! ```text
//! manifest.json         settings, format version, per-depth stats, best game
//! depth-NNNNN.beam      the beam after NNNNN pieces (depth 0 is the empty well)
//! ancestry-NNNNN.bin    the adversary's history at that depth (last 3 kept;
//!                       only for an adversary that keeps one)
//! log.jsonl             one JSON line per depth
//! best-replay.txt       the best game's replay, written at the end
//! lock                  the process using the folder (an advisory lock)
//! ```
//! Every file is written to a temporary name, fsynced and renamed
//! ([`atomic`]), and the manifest is written last in a depth, so a kill at
//! any moment leaves a run that resumes from its last complete depth. The
//! manifest is the one record of progress: the log is rebuilt from it on
//! resume, and the depth files are checked against it and against each
//! other (each names its run and the digest of the file before it, see
//! [`store`]) before any depth is searched. [`verify`] checks a whole folder.
//!
//! A process that writes to the folder holds [`RunLock`] first: a second
//! one stops at once, and a lock left by a dead process is free (the
//! kernel drops it with the process).
//!
//! This module owns the names, the manifest and the log, and the best
//! game's order ([`Best`]); the lock and a crash's leftovers are in `lock`,
//! the chain's checks and the choice of the depth to resume from in
//! `chain`, and the depth files' format in [`store`]. What a snapshot holds
//! is the search's business: here it is bytes. Rebuilding the game from the
//! folder is [`keyframes`].
//!
//! # Stability
//! The manifest carries `format` and `version` ([`store::VERSION`]); a
//! manifest of another format or version is refused, never misread.
//! Settings recorded before a field existed read as that field's default
//! (`enemy`: HATETRIS). Floats are written and read back exactly (serde_json's
//! `float_roundtrip`).

pub mod atomic;
mod chain;
pub mod keyframes;
mod lock;
pub mod store;
pub mod verify;

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::enemy::EnemyKind;
use crate::evaluate::Identity;
use crate::well::Well;
pub(crate) use chain::{check_depth, last_good_depth};
use lock::lock_path;
pub use lock::{remove_temporaries, RunLock};
use store::{DepthFile, Entry, Link, StoreError};

/// History snapshots kept: the newest depths a resume can fall back to.
pub const SNAPSHOTS_KEPT: u32 = 3;

/// What a run is: compared when it resumes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Beam width.
    pub width: usize,
    /// The evaluator's identity (weights, lookahead, terms' definition).
    pub evaluator: Identity,
    /// Who gives the pieces.
    #[serde(default)]
    pub enemy: EnemyKind,
}

impl Settings {
    /// The run's identity, written into every depth file: a digest of the
    /// settings in a canonical form (so formatting, the order of keys and
    /// `null` keys do not change it). Two runs with the same settings make
    /// the same files, so they may share an identity.
    pub fn run_id(&self) -> u64 {
        let text = format!(
            "width={};enemy={};evaluator={{{}}}",
            self.width,
            self.enemy,
            self.evaluator.canonical()
        );
        store::fnv1a(store::FNV_OFFSET, text.as_bytes())
    }
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
    /// current beam's entries are not counted; 0 without a history).
    pub ancestry_nodes: u64,
    /// Bytes of this depth's file.
    pub file_bytes: u64,
    /// The process's peak resident memory so far, in bytes (Linux only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss: Option<u64>,
    /// Where the depth's time went (absent in runs made before it was
    /// recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<Phases>,
}

/// Seconds spent in each phase of one depth, in the order they run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Phases {
    /// Reading the beam, expanding and costing every child, and keeping the
    /// best (all threads).
    pub expand: f64,
    /// The final cut of the kept set and its sort by well.
    pub select: f64,
    /// Compressing and writing the depth file.
    pub write: f64,
    /// The adversary's history taking the new beam.
    pub ancestry: f64,
    /// Writing the history snapshot.
    pub snapshot: f64,
    /// Writing the manifest and the log line, of the depth before (this
    /// depth's own are written after its figures are recorded; 0 for the
    /// first depth of a run or a resume).
    pub manifest: f64,
}

impl Phases {
    /// The phases' names and seconds, in order.
    pub fn named(&self) -> [(&'static str, f64); 6] {
        [
            ("expand", self.expand),
            ("select", self.select),
            ("write", self.write),
            ("ancestry", self.ancestry),
            ("snapshot", self.snapshot),
            ("manifest", self.manifest),
        ]
    }

    /// Adds `other`'s seconds to these.
    pub fn add(&mut self, other: &Phases) {
        self.expand += other.expand;
        self.select += other.select;
        self.write += other.write;
        self.ancestry += other.ancestry;
        self.snapshot += other.snapshot;
        self.manifest += other.manifest;
    }

    /// Their sum.
    pub fn total(&self) -> f64 {
        self.named().iter().map(|(_, s)| s).sum()
    }
}

/// Kept wells per score, as [`DepthStats::histogram`] records them.
pub fn histogram(scores: impl IntoIterator<Item = u16>) -> Vec<(u16, u64)> {
    let mut histogram: Vec<(u16, u64)> = Vec::new();
    for score in scores {
        match histogram.iter_mut().find(|(s, _)| *s == score) {
            Some((_, n)) => *n += 1,
            None => histogram.push((score, 1)),
        }
    }
    histogram.sort_unstable();
    histogram
}

/// The best game found so far.
///
/// One total order picks it, from the depth files alone: the highest
/// score, then the shallowest depth, then the first well in the depth
/// file's order. The search, a resume (`best_from_files`) and
/// [`verify`] all apply it, so a resumed run reports the same game as an
/// uninterrupted one.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Best {
    /// Lines cleared.
    pub score: u16,
    /// Pieces placed.
    pub depth: u32,
    /// The final well.
    pub well: Well,
}

impl Best {
    /// The empty well before any piece.
    pub const START: Best = Best {
        score: 0,
        depth: 0,
        well: Well::EMPTY,
    };
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

const FORMAT: &str = "hatetris-beam";

impl Manifest {
    /// The manifest of a run that has only its root.
    pub fn new(settings: Settings) -> Manifest {
        Manifest {
            format: FORMAT.into(),
            version: store::VERSION,
            settings,
            depths: Vec::new(),
            best: Best::START,
            exhausted: false,
        }
    }

    /// The last complete depth.
    pub fn depth(&self) -> u32 {
        self.depths.len() as u32
    }
}

/// Why a run folder could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// An I/O error.
    // The cause is in the message and not a `source`, so that a report of
    // the error chain does not print it twice.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// A depth file problem.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The folder is not a run.
    #[error("{0} holds no run (no manifest.json)")]
    NotARun(PathBuf),
    /// The folder already holds a run.
    #[error("{0} already holds a run; use --resume to continue it, or pick another --out")]
    AlreadyARun(PathBuf),
    /// The folder holds files that are not a run's.
    #[error("{0} is not empty and holds no run; pick a new or empty folder")]
    NotEmpty(PathBuf),
    /// Another process holds the folder.
    #[error("{dir} is in use by {}", match .pid { Some(p) => format!("process {p}"), None => "another process".to_string() })]
    InUse {
        /// The run folder.
        dir: PathBuf,
        /// The process holding it, when it could be read.
        pid: Option<u32>,
    },
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
    /// A depth file that does not belong where it is, below the newest
    /// depths a resume may fall back over.
    #[error("cannot resume {dir}: {why}; the depths after it cannot be trusted (restore the file, or see `hatetris verify {}`)", dir.display())]
    BrokenChain {
        /// The run folder.
        dir: PathBuf,
        /// What is wrong, naming the file.
        why: String,
    },
    /// Nothing usable on disk.
    #[error("cannot resume {dir}: no complete depth could be read ({why})")]
    NothingToResume {
        /// The run folder.
        dir: PathBuf,
        /// Why the newest depth passed over was.
        why: String,
    },
}

pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |error| RunError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Path of depth `d`'s file.
pub fn depth_path(dir: &Path, d: u32) -> PathBuf {
    dir.join(format!("depth-{d:05}.beam"))
}

/// Path of depth `d`'s history snapshot.
fn snapshot_path(dir: &Path, d: u32) -> PathBuf {
    dir.join(format!("ancestry-{d:05}.bin"))
}

/// Path of the manifest.
pub fn manifest_path(dir: &Path) -> PathBuf {
    dir.join("manifest.json")
}

/// Path of the per-depth log.
pub fn log_path(dir: &Path) -> PathBuf {
    dir.join("log.jsonl")
}

/// Path of the best game's replay.
pub fn best_replay_path(dir: &Path) -> PathBuf {
    dir.join("best-replay.txt")
}

/// The longest manifest read: about 1 kB per depth, so room for runs of a
/// hundred thousand depths; anything longer is not a manifest.
const MAX_MANIFEST_BYTES: u64 = 256 << 20;

/// Reads a run's manifest.
pub fn read_manifest(dir: &Path) -> Result<Manifest, RunError> {
    let path = manifest_path(dir);
    if !path.exists() {
        return Err(RunError::NotARun(dir.to_path_buf()));
    }
    let mut text = String::new();
    File::open(&path)
        .and_then(|f| f.take(MAX_MANIFEST_BYTES + 1).read_to_string(&mut text))
        .map_err(io(&path))?;
    if text.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(RunError::BadManifest {
            path,
            reason: format!("larger than {} MiB", MAX_MANIFEST_BYTES >> 20),
        });
    }
    let m: Manifest = serde_json::from_str(&text).map_err(|e| RunError::BadManifest {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    if m.format != FORMAT || m.version != store::VERSION {
        return Err(RunError::BadManifest {
            path,
            reason: format!(
                "format {} version {}, expected {FORMAT} version {}",
                m.format,
                m.version,
                store::VERSION
            ),
        });
    }
    Ok(m)
}

/// Writes the manifest atomically.
pub(crate) fn write_manifest(dir: &Path, m: &Manifest) -> Result<(), RunError> {
    let path = manifest_path(dir);
    let text = serde_json::to_string_pretty(m).expect("manifest serializes");
    atomic::write_atomic(&path, text.as_bytes()).map_err(io(&path))
}

/// One depth's line of the log, with its newline.
fn log_line(stats: &DepthStats) -> String {
    let mut line = serde_json::to_string(stats).expect("stats serialize");
    line.push('\n');
    line
}

/// Appends one depth's line to the log, in one write (so a kill never
/// leaves a line without its newline for the next one to join).
pub(crate) fn append_log(dir: &Path, stats: &DepthStats) -> Result<(), RunError> {
    let path = log_path(dir);
    let mut log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(io(&path))?;
    log.write_all(log_line(stats).as_bytes()).map_err(io(&path))
}

/// Rewrites the log from the manifest's depths: on resume, so that a kill
/// between the manifest and the log loses no line and a damaged log is
/// repaired.
pub(crate) fn rewrite_log(dir: &Path, depths: &[DepthStats]) -> Result<(), RunError> {
    let path = log_path(dir);
    let text: String = depths.iter().map(log_line).collect();
    atomic::write_atomic(&path, text.as_bytes()).map_err(io(&path))
}

/// Starts a run folder, under its lock: refuses one that holds a run or
/// anything else, then writes the manifest (no depths yet) and the root
/// depth (the empty well). The manifest comes first, so a folder with
/// anything of a run in it has a manifest and resumes.
pub(crate) fn create(dir: &Path, settings: Settings) -> Result<(RunLock, Manifest), RunError> {
    let lock = RunLock::take(dir)?;
    if manifest_path(dir).exists() {
        return Err(RunError::AlreadyARun(dir.to_path_buf()));
    }
    remove_temporaries(dir)?;
    let lock_name = lock_path(dir);
    for entry in fs::read_dir(dir).map_err(io(dir))? {
        if entry.map_err(io(dir))?.path() != lock_name {
            return Err(RunError::NotEmpty(dir.to_path_buf()));
        }
    }
    let manifest = Manifest::new(settings);
    write_manifest(dir, &manifest)?;
    write_root(dir, &manifest.settings)?;
    Ok((lock, manifest))
}

/// Opens a run folder to go on with it, under its lock: the manifest,
/// with the leftovers of a crash removed and the root depth rewritten if
/// it is missing or damaged (it depends on the settings alone).
pub(crate) fn open_to_resume(dir: &Path) -> Result<(RunLock, Manifest), RunError> {
    if !manifest_path(dir).exists() {
        return Err(RunError::NotARun(dir.to_path_buf()));
    }
    let lock = RunLock::take(dir)?;
    let manifest = read_manifest(dir)?;
    remove_temporaries(dir)?;
    let run = manifest.settings.run_id();
    let root_ok = check_depth(dir, 0, run, 0, 1).is_ok_and(|f| f.verify().is_ok());
    if !root_ok {
        write_root(dir, &manifest.settings)?;
    }
    Ok((lock, manifest))
}

/// Writes depth 0: the empty well alone.
fn write_root(dir: &Path, settings: &Settings) -> Result<(), RunError> {
    let root = Entry {
        well: Well::EMPTY.pack(),
        score: 0,
    };
    let link = Link {
        run: settings.run_id(),
        previous: 0,
    };
    let p = depth_path(dir, 0);
    store::write_depth_file(&p, 0, link, 1, |_| root).map_err(io(&p))?;
    Ok(())
}

/// Writes depth `depth`'s snapshot, keeping the last three (so that a
/// corrupt newest depth can fall back).
pub(crate) fn write_snapshot(dir: &Path, depth: u32, bytes: &[u8]) -> Result<(), RunError> {
    let path = snapshot_path(dir, depth);
    atomic::write_atomic(&path, bytes).map_err(io(&path))?;
    if depth >= SNAPSHOTS_KEPT {
        let _ = fs::remove_file(snapshot_path(dir, depth - SNAPSHOTS_KEPT));
    }
    Ok(())
}

/// Depth `depth`'s snapshot, if it can be read.
pub(crate) fn read_snapshot(dir: &Path, depth: u32) -> Option<Vec<u8>> {
    fs::read(snapshot_path(dir, depth)).ok()
}

/// Checks that a run recorded with `run` may go on with `asked`.
pub(crate) fn check_settings(dir: &Path, run: &Settings, asked: &Settings) -> Result<(), RunError> {
    let differ = |what: &str, run: String, asked: String| RunError::SettingsDiffer {
        dir: dir.to_path_buf(),
        what: what.into(),
        run,
        asked,
    };
    if run.width != asked.width {
        return Err(differ(
            "the beam width",
            run.width.to_string(),
            asked.width.to_string(),
        ));
    }
    if run.enemy != asked.enemy {
        return Err(differ(
            "the enemy",
            run.enemy.to_string(),
            asked.enemy.to_string(),
        ));
    }
    if let Some((key, ours, theirs)) = run.evaluator.differences(&asked.evaluator).first() {
        return Err(differ(
            &format!("the evaluator's {key} (weights, --quiescent or the terms' definition)"),
            ours.clone(),
            theirs.clone(),
        ));
    }
    Ok(())
}

/// The best game among the depths listed, by [`Best`]'s order: the
/// highest score, then the shallowest depth, then the first such entry in
/// the depth file.
pub(crate) fn best_from_files(dir: &Path, depths: &[DepthStats]) -> Result<Best, RunError> {
    let mut best = Best::START;
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
