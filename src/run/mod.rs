//! The run folder: where a search keeps everything, and how it is read back.
//!
//! ```text
//! manifest.json         settings, format version, per-depth stats, best game
//! depth-NNNNN.beam      the beam after NNNNN pieces (depth 0 is the empty well)
//! ancestry-NNNNN.bin    the adversary's history at that depth (last 3 kept;
//!                       only for an adversary that keeps one)
//! log.jsonl             one JSON line per depth
//! best-replay.txt       the best game's replay, written at the end
//! ```
//! Every file is written to a temporary name, fsynced and renamed
//! ([`atomic`]), and the manifest is written last in a depth, so a kill at
//! any moment leaves a run that resumes from its last complete depth.
//!
//! This module owns the names, the manifest and the log, and the choice of
//! the depth to resume from (`last_good_depth`); the depth files'
//! format is in [`store`]. What a snapshot holds is the search's business:
//! here it is bytes. Rebuilding the game from the folder is [`keyframes`].
//!
//! # Stability
//! The manifest carries `format` and `version` ([`store::VERSION`]); a
//! manifest of another format or version is refused, never misread.
//! Settings recorded before a field existed read as that field's default
//! (`enemy`: HATETRIS).

pub mod atomic;
pub mod keyframes;
pub mod store;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::enemy::EnemyKind;
use crate::evaluate::Identity;
use crate::well::Well;
use store::{DepthFile, Entry, StoreError};

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
}

pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
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

/// Reads a run's manifest.
pub fn read_manifest(dir: &Path) -> Result<Manifest, RunError> {
    let path = manifest_path(dir);
    if !path.exists() {
        return Err(RunError::NotARun(dir.to_path_buf()));
    }
    let text = fs::read_to_string(&path).map_err(io(&path))?;
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

/// Appends one depth's line to the log.
pub(crate) fn append_log(dir: &Path, stats: &DepthStats) -> Result<(), RunError> {
    let path = log_path(dir);
    let line = serde_json::to_string(stats).expect("stats serialize");
    let mut log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(io(&path))?;
    writeln!(log, "{line}").map_err(io(&path))
}

/// Starts a run folder: refuses one that holds a run, creates it, and
/// writes the root depth (the empty well).
pub(crate) fn create(dir: &Path) -> Result<(), RunError> {
    if manifest_path(dir).exists() {
        return Err(RunError::AlreadyARun(dir.to_path_buf()));
    }
    fs::create_dir_all(dir).map_err(io(dir))?;
    let root = Entry {
        well: Well::EMPTY.pack(),
        score: 0,
    };
    let p = depth_path(dir, 0);
    store::write_depth_file(&p, 0, 1, |_| root).map_err(io(&p))?;
    Ok(())
}

/// Writes depth `depth`'s snapshot, keeping the last three (so that a
/// corrupt newest depth can fall back).
pub(crate) fn write_snapshot(dir: &Path, depth: u32, bytes: &[u8]) -> Result<(), RunError> {
    let path = snapshot_path(dir, depth);
    atomic::write_atomic(&path, bytes).map_err(io(&path))?;
    if depth >= 3 {
        let _ = fs::remove_file(snapshot_path(dir, depth - 3));
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

/// The newest depth, at most `last`, whose depth file checks out and for
/// which `history(depth, entries)` gives a value (the snapshot the search
/// needs, or `Some(())` when it needs none). `fell_back(depth, why)` hears
/// of every depth passed over.
pub(crate) fn last_good_depth<T>(
    dir: &Path,
    last: u32,
    mut history: impl FnMut(u32, usize) -> Option<T>,
    mut fell_back: impl FnMut(u32, &str),
) -> Result<(u32, usize, T), RunError> {
    for d in (0..=last).rev() {
        let file = DepthFile::open(&depth_path(dir, d));
        let len = match file.and_then(|f| f.verify().map(|()| f.len())) {
            Ok(len) => len,
            Err(e) => {
                fell_back(d, &e.to_string());
                continue;
            }
        };
        match history(d, len) {
            Some(h) => return Ok((d, len, h)),
            None => fell_back(d, "history snapshot missing or damaged"),
        }
    }
    Err(RunError::NothingToResume(dir.to_path_buf()))
}

/// The best game among the depths listed (highest score, then shallowest,
/// then the first such entry in the depth file).
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
