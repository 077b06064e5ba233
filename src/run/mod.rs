//! The run folder: where a search keeps everything, and how it is read back.
//!
//! ```text
//! manifest.json         settings, format version, the last complete depth,
//!                       best game, and the length and digest of the log's
//!                       part that holds those depths
//! depth-NNNNN.beam      the beam after NNNNN pieces (depth 0 is the empty well)
//! ancestry-NNNNN.bin    the adversary's history at that depth (last 3 kept;
//!                       only for an adversary that keeps one)
//! log.jsonl             one JSON line per depth: its stats ([`DepthStats`])
//! best-replay.txt       the best game's replay, written at the end (and
//!                       when a search is stopped)
//! net.nnue              a net run's net file, so the folder alone resumes
//! lock                  the process using the folder (an advisory lock)
//! shard-SSSS/           a sharded run's depth files instead of depth-*:
//!                       one folder per shard, see [`shards`]
//! ```
//! Every file but the log is written to a temporary name, fsynced and
//! renamed ([`atomic`]); the log only grows, a line per depth, fsynced. The
//! manifest is written last in a depth, so a kill at any moment leaves a
//! run that resumes from its last complete depth. The manifest is the one
//! record of progress and stays the same size however long the run: the
//! per-depth stats live in the log, and the manifest vouches for the log's
//! first bytes (their length and FNV-1a digest), so a line a kill left
//! after them is dropped by the next resume and a log that differs from
//! what the manifest recorded is refused. The depth files are checked
//! against the manifest and the log and against each other (each names its
//! run and the digest of the file before it, see [`store`]) before any
//! depth is searched. [`verify`] checks a whole folder.
//!
//! A process that writes to the folder holds [`FolderLock`] first: a second
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
//! The manifest carries `format` and `version` ([`MANIFEST_VERSION`]; the
//! depth files have their own, [`store::VERSION`]). Version 2 manifests,
//! which held every depth's stats themselves (so a run's bookkeeping grew
//! with its depth), are still read, and a resume upgrades them; a manifest
//! of another format or version is refused, never misread.
//! Settings recorded before a field existed read as that field's default
//! (`enemy`: HATETRIS). Floats are written and read back exactly (serde_json's
//! `float_roundtrip`).

mod chain;
pub mod keyframes;
pub mod shards;
pub mod status;
pub mod store;
pub mod verify;

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::enemy::EnemyKind;
use crate::evaluate::Identity;
pub(crate) use crate::folder::io;
use crate::folder::{atomic, lock_path, remove_temporaries, FolderError, FolderLock, IoError};
use crate::well::Well;
pub(crate) use chain::{check_depth, digests, last_good_depth, no_digests};
use store::{Entry, Link, StoreError};

/// History snapshots kept: the newest depths a resume can fall back to.
pub const SNAPSHOTS_KEPT: u32 = 3;

/// The manifest's format version.
pub const MANIFEST_VERSION: u32 = 3;

/// How far and how a run was asked to go: what a resume given nothing but
/// the folder does. Unlike [`Settings`], it may change at a resume (a
/// larger `max_depth` extends a run) and does not change the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The depth the search stops at.
    pub max_depth: u32,
    /// The thread count asked for; `None`: every core of the machine the
    /// search runs on.
    pub threads: Option<usize>,
}

/// The manifest version before [`MANIFEST_VERSION`], whose manifest held
/// every depth's stats: read, and upgraded by a resume.
const MANIFEST_VERSION_INLINE: u32 = 2;

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
    /// best (all threads). The beam's own depth file is written alongside
    /// (see `write`), so this is the wall time of both.
    pub expand: f64,
    /// The final cut of the kept set, its sort by well, and its wells taken
    /// out as the next beam.
    pub select: f64,
    /// Compressing and writing this depth's file. It runs alongside the
    /// next depth's expansion, on the same threads, so it is part of that
    /// depth's `expand`, not of this depth's wall time (runs made before
    /// session 12 wrote it after `select`, with `ancestry` and `snapshot`
    /// alongside).
    pub write: f64,
    /// The adversary's history taking the new beam, between `select` and
    /// the next depth's expansion (which reads it).
    pub ancestry: f64,
    /// Writing the history snapshot, on a thread of its own alongside
    /// `write`.
    pub snapshot: f64,
    /// Writing the manifest and the log line, of the depth before (this
    /// depth's own are written after its figures are recorded; 0 for the
    /// first depth of a run or a resume).
    pub manifest: f64,
    /// Of `expand`: the time the shared set of the best children was
    /// locked, summed over the threads (so it may exceed `expand`'s wall
    /// time). Under its lock a batch of children is only pushed, so this
    /// bounds the lock's cost: at T threads it serialises at most
    /// `locked / (T × expand)` of the phase.
    #[serde(default)]
    pub locked: f64,
    /// Of `expand`: the time threads waited for that lock, summed over the
    /// threads.
    #[serde(default)]
    pub waited: f64,
    /// Of `expand`: the time threads sat idle at its end, out of work while
    /// others finished their last part, summed over the threads (what the
    /// size of a part costs).
    #[serde(default)]
    pub idle: f64,
}

impl Phases {
    /// The phases' names and seconds, in the order they run: those of the
    /// depth's wall time, then those alongside the next expansion.
    pub fn named(&self) -> [(&'static str, f64); 6] {
        [
            ("expand", self.expand),
            ("select", self.select),
            ("ancestry", self.ancestry),
            ("manifest", self.manifest),
            ("write", self.write),
            ("snapshot", self.snapshot),
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
        self.locked += other.locked;
        self.waited += other.waited;
        self.idle += other.idle;
    }

    /// The depth's wall time: their sum, less the phases that run
    /// alongside the next depth's expansion.
    pub fn total(&self) -> f64 {
        self.named()
            .iter()
            .filter(|(name, _)| !Phases::ALONGSIDE.contains(name))
            .map(|(_, s)| s)
            .sum()
    }

    /// The phases that run alongside the next depth's expansion and are
    /// part of its time, so [`Phases::total`] leaves them out.
    pub const ALONGSIDE: [&'static str; 2] = ["write", "snapshot"];
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

/// How much of the log belongs to the run: its first `bytes` bytes, one
/// line per complete depth, whose FNV-1a digest is `digest`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogMark {
    /// Bytes.
    pub bytes: u64,
    /// FNV-1a (64-bit) of those bytes, as 16 hex digits.
    #[serde(with = "hex_u64")]
    pub digest: u64,
}

impl LogMark {
    /// The mark of an empty log.
    pub const EMPTY: LogMark = LogMark {
        bytes: 0,
        digest: store::FNV_OFFSET,
    };

    /// The mark after `more` bytes follow the marked ones.
    fn then(self, more: &[u8]) -> LogMark {
        LogMark {
            bytes: self.bytes + more.len() as u64,
            digest: store::fnv1a(self.digest, more),
        }
    }
}

/// A `u64` as 16 hex digits in JSON (a JSON number that large is misread
/// by many tools).
mod hex_u64 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v:016x}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let text = String::deserialize(d)?;
        match text.len() == 16 {
            true => u64::from_str_radix(&text, 16).map_err(serde::de::Error::custom),
            false => Err(serde::de::Error::custom("expected 16 hex digits")),
        }
    }
}

/// The manifest of a run folder: what `manifest.json` holds, and the
/// per-depth stats, which `log.jsonl` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// Always "hatetris-beam".
    pub format: String,
    /// [`MANIFEST_VERSION`] (or an older one still read).
    pub version: u32,
    /// The run's settings.
    pub settings: Settings,
    /// The last complete depth.
    pub depth: u32,
    /// Highest score seen (ties: the shallowest).
    pub best: Best,
    /// Whether the beam died out (every child ended the game).
    pub exhausted: bool,
    /// The part of the log that holds depths 1 to `depth`.
    pub log: LogMark,
    /// How far the run was asked to go (absent in runs made before it was
    /// recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Plan>,
    /// A sharded run's layout: its depth files are one per shard
    /// ([`shards`]); absent: one file per depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<shards::Shards>,
    /// One entry per completed depth (depth 1 first): not written to the
    /// manifest but to the log, and read back from it by [`read_manifest`].
    #[serde(skip)]
    pub depths: Vec<DepthStats>,
}

/// A version 2 manifest, which held every depth's stats.
#[derive(Deserialize)]
struct InlineManifest {
    settings: Settings,
    depths: Vec<DepthStats>,
    best: Best,
    exhausted: bool,
}

/// What every manifest version starts with.
#[derive(Deserialize)]
struct ManifestHead {
    format: String,
    version: u32,
}

const FORMAT: &str = "hatetris-beam";

impl Manifest {
    /// The manifest of a run that has only its root.
    pub fn new(settings: Settings) -> Manifest {
        Manifest {
            format: FORMAT.into(),
            version: MANIFEST_VERSION,
            settings,
            depth: 0,
            best: Best::START,
            exhausted: false,
            log: LogMark::EMPTY,
            plan: None,
            shards: None,
            depths: Vec::new(),
        }
    }

    /// The beam size the run recorded at depth `d` (1 at the root); `None`
    /// when the log's figures for it are not read.
    pub fn kept_at(&self, d: u32) -> Option<u64> {
        match d {
            0 => Some(1),
            _ => self.depths.get(d as usize - 1).map(|s| s.kept),
        }
    }
}

/// Why a run folder could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// An I/O error.
    #[error(transparent)]
    Io(#[from] IoError),
    /// The folder's lock or a JSON file.
    #[error(transparent)]
    Folder(#[from] FolderError),
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
    /// The manifest cannot be read.
    #[error("{path}: {reason}")]
    BadManifest {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The log does not hold what the manifest recorded: the run's
    /// per-depth stats are lost, so it is not resumed.
    #[error("{path}: {reason}; it holds the run's per-depth figures, so the run cannot go on without it (restore the file, or see `hatetris verify {}`)", path.parent().unwrap_or(Path::new(".")).display())]
    BadLog {
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

/// The longest manifest read: a version 2 manifest held about 600 bytes
/// per depth, so room for runs of hundreds of thousands of depths; anything
/// longer is not a manifest. (A version 3 manifest is about 1 kB.)
const MAX_MANIFEST_BYTES: u64 = 256 << 20;

/// The longest log read: a few hundred bytes per depth.
const MAX_LOG_BYTES: u64 = 1 << 30;

/// Reads a run's manifest, with the per-depth stats from the log, checked
/// against the manifest's record of it (see [`RunError::BadLog`]).
pub fn read_manifest(dir: &Path) -> Result<Manifest, RunError> {
    let mut m = read_manifest_file(dir)?;
    if m.version == MANIFEST_VERSION {
        m.depths = read_log(dir, &m).map_err(|reason| RunError::BadLog {
            path: log_path(dir),
            reason,
        })?;
    }
    Ok(m)
}

/// Reads `manifest.json` alone: its `depths` are empty, except in a
/// version 2 manifest, which holds them.
pub fn read_manifest_file(dir: &Path) -> Result<Manifest, RunError> {
    let path = manifest_path(dir);
    if !path.exists() {
        return Err(RunError::NotARun(dir.to_path_buf()));
    }
    let mut text = String::new();
    File::open(&path)
        .and_then(|f| f.take(MAX_MANIFEST_BYTES + 1).read_to_string(&mut text))
        .map_err(io(&path))?;
    let bad = |reason: String| RunError::BadManifest {
        path: path.clone(),
        reason,
    };
    if text.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(bad(format!("larger than {} MiB", MAX_MANIFEST_BYTES >> 20)));
    }
    let head: ManifestHead = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    match (head.format == FORMAT, head.version) {
        (true, MANIFEST_VERSION) => serde_json::from_str(&text).map_err(|e| bad(e.to_string())),
        (true, MANIFEST_VERSION_INLINE) => {
            let old: InlineManifest =
                serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
            Ok(Manifest {
                format: head.format,
                version: head.version,
                settings: old.settings,
                depth: old.depths.len() as u32,
                best: old.best,
                exhausted: old.exhausted,
                log: LogMark::EMPTY,
                plan: None,
                shards: None,
                depths: old.depths,
            })
        }
        _ => Err(bad(format!(
            "format {} version {}, expected {FORMAT} version {MANIFEST_VERSION} (or {MANIFEST_VERSION_INLINE}, which a resume upgrades)",
            head.format, head.version
        ))),
    }
}

/// The per-depth stats of a version 3 manifest's run: the log's first
/// `m.log.bytes` bytes (what follows them is a kill's leftover), checked
/// against the manifest's digest, one line per depth from 1 to `m.depth`.
/// The error says why not.
pub(crate) fn read_log(dir: &Path, m: &Manifest) -> Result<Vec<DepthStats>, String> {
    let bytes = read_log_bytes(dir, m.log)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| "not UTF-8 text".to_string())?;
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    if lines.len() as u64 != u64::from(m.depth) || !(text.is_empty() || text.ends_with('\n')) {
        return Err(format!(
            "its first {} bytes hold {} lines, the manifest counts {} depths",
            m.log.bytes,
            lines.len(),
            m.depth
        ));
    }
    lines
        .iter()
        .zip(1..)
        .map(|(line, d)| match serde_json::from_str::<DepthStats>(line) {
            Ok(s) if s.depth == d => Ok(s),
            Ok(s) => Err(format!("line {d} is depth {}'s", s.depth)),
            Err(e) => Err(format!("line {d}: {e}")),
        })
        .collect()
}

/// The log's first `mark.bytes` bytes, checked against `mark.digest`.
fn read_log_bytes(dir: &Path, mark: LogMark) -> Result<Vec<u8>, String> {
    let path = log_path(dir);
    let file = match File::open(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && mark.bytes == 0 => {
            return Ok(Vec::new())
        }
        Err(e) => return Err(e.to_string()),
        Ok(f) => f,
    };
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    if len < mark.bytes {
        return Err(format!(
            "{len} bytes long, the manifest recorded {} bytes of it",
            mark.bytes
        ));
    }
    if mark.bytes > MAX_LOG_BYTES {
        return Err(format!("larger than {} MiB", MAX_LOG_BYTES >> 20));
    }
    let mut bytes = Vec::with_capacity(mark.bytes as usize);
    file.take(mark.bytes)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if LogMark::EMPTY.then(&bytes) != mark {
        return Err(format!(
            "its first {} bytes are not the ones the manifest recorded (digest {:016x}, recorded {:016x})",
            mark.bytes,
            LogMark::EMPTY.then(&bytes).digest,
            mark.digest
        ));
    }
    Ok(bytes)
}

/// Writes the manifest atomically.
pub(crate) fn write_manifest(dir: &Path, m: &Manifest) -> Result<(), RunError> {
    let path = manifest_path(dir);
    let text = serde_json::to_string_pretty(m).expect("manifest serializes");
    Ok(atomic::write_atomic(&path, text.as_bytes()).map_err(io(&path))?)
}

/// One depth's line of the log, with its newline.
fn log_line(stats: &DepthStats) -> String {
    let mut line = serde_json::to_string(stats).expect("stats serialize");
    line.push('\n');
    line
}

/// Records a complete depth: its line goes to the log at the manifest's
/// mark (over anything a kill left there), fsynced, then the manifest
/// moves on to it. Both cost the same at any depth.
pub(crate) fn record_depth(
    dir: &Path,
    m: &mut Manifest,
    stats: DepthStats,
) -> Result<(), RunError> {
    let path = log_path(dir);
    let line = log_line(&stats);
    let end = m.log.bytes + line.len() as u64;
    (|| {
        let mut log = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        log.seek(SeekFrom::Start(m.log.bytes))?;
        log.write_all(line.as_bytes())?;
        if log.metadata()?.len() > end {
            log.set_len(end)?;
        }
        log.sync_data()
    })()
    .map_err(io(&path))?;
    m.log = m.log.then(line.as_bytes());
    m.depth = stats.depth;
    m.depths.push(stats);
    write_manifest(dir, m)
}

/// Settles a run being resumed from `depth` (at most its last complete
/// one): the manifest and the log hold depths 1 to `depth` alone, and the
/// manifest is of the current version. The manifest is written before the
/// log is cut, so a kill in between leaves a run that resumes.
pub(crate) fn rewind(dir: &Path, m: &mut Manifest, depth: u32) -> Result<(), RunError> {
    let path = log_path(dir);
    m.depths.truncate(depth as usize);
    m.depth = depth;
    if m.version == MANIFEST_VERSION_INLINE {
        // The log follows the old manifest, and then the new manifest the
        // log: a kill in between leaves the old manifest, which resumes.
        let text: String = m.depths.iter().map(log_line).collect();
        atomic::write_atomic(&path, text.as_bytes()).map_err(io(&path))?;
        m.log = LogMark::EMPTY.then(text.as_bytes());
        m.version = MANIFEST_VERSION;
        return write_manifest(dir, m);
    }
    let bytes = read_log_bytes(dir, m.log).map_err(|reason| RunError::BadLog {
        path: path.clone(),
        reason,
    })?;
    let kept = match depth {
        0 => 0,
        d => {
            bytes
                .iter()
                .enumerate()
                .filter(|(_, &b)| b == b'\n')
                .nth(d as usize - 1)
                .expect("the log was read with one line per depth")
                .0
                + 1
        }
    };
    m.log = LogMark::EMPTY.then(&bytes[..kept]);
    write_manifest(dir, m)?;
    (|| {
        let log = match OpenOptions::new().write(true).open(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            other => other?,
        };
        if log.metadata()?.len() != m.log.bytes {
            log.set_len(m.log.bytes)?;
            log.sync_data()?;
        }
        Ok(())
    })()
    .map_err(io(&path))?;
    Ok(())
}

/// Starts a run folder, under its lock: refuses one that holds a run or
/// anything else, then writes the manifest (no depths yet) and the root
/// depth (the empty well). The manifest comes first, so a folder with
/// anything of a run in it has a manifest and resumes. The evaluator's
/// `files` follow the manifest.
pub(crate) fn create(
    dir: &Path,
    settings: Settings,
    plan: Plan,
    shards: Option<shards::Shards>,
    files: &[(String, Vec<u8>)],
) -> Result<(FolderLock, Manifest), RunError> {
    let lock = FolderLock::take(dir)?;
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
    let mut manifest = Manifest::new(settings);
    manifest.plan = Some(plan);
    manifest.shards = shards;
    write_manifest(dir, &manifest)?;
    keep_files(dir, files)?;
    // A sharded run's root is written by the worker that owns the empty
    // well, with the other shards' empty files, as any other depth.
    if shards.is_none() {
        write_root(dir, &manifest.settings)?;
    }
    Ok((lock, manifest))
}

/// Writes each of `files` into the folder (atomically) unless it already
/// holds those bytes.
pub(crate) fn keep_files(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), RunError> {
    for (name, bytes) in files {
        let path = dir.join(name);
        if fs::read(&path).ok().as_ref() != Some(bytes) {
            atomic::write_atomic(&path, bytes).map_err(io(&path))?;
        }
    }
    Ok(())
}

/// Opens a run folder to go on with it, under its lock: the manifest,
/// with the leftovers of a crash removed and the root depth rewritten if
/// it is missing or damaged (it depends on the settings alone).
pub(crate) fn open_to_resume(dir: &Path) -> Result<(FolderLock, Manifest), RunError> {
    if !manifest_path(dir).exists() {
        return Err(RunError::NotARun(dir.to_path_buf()));
    }
    let lock = FolderLock::take(dir)?;
    let manifest = read_manifest(dir)?;
    remove_temporaries(dir)?;
    let run = manifest.settings.run_id();
    // (A sharded run's root is written by its shards' workers.)
    if manifest.shards.is_none() {
        let root_ok =
            check_depth(dir, 0, None, run, &[0], Some(1)).is_ok_and(|f| f.verify().is_ok());
        if !root_ok {
            write_root(dir, &manifest.settings)?;
        }
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
pub(crate) fn best_from_files(
    dir: &Path,
    shards: Option<shards::Shards>,
    depths: &[DepthStats],
) -> Result<Best, RunError> {
    let mut best = Best::START;
    for s in depths {
        if s.best_score > best.score {
            let all = shards::Depth::open(dir, s.depth, shards)?.read_all()?;
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
