//! The manifest, `manifest.json`: the run's one record of progress. It
//! holds what the run is ([`Settings`]), how far it was asked to go
//! ([`Plan`]), its last complete depth, its best game ([`Best`]), and the
//! mark of the log's part that holds its depths ([`LogMark`]), so it stays
//! the same size however long the run.
//!
//! It is written pretty and without a final newline, atomically
//! ([`folder::json::write_unterminated`]): the bytes every build has
//! written. It is read with a size cap and its head first, so a file of
//! another format or version is refused with both named, never misread; a
//! version 2 manifest, which held every depth's figures itself, is read
//! and upgraded by a resume ([`super::rewind`]).

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::paths::manifest_path;
use super::start::{Prefix, Start, StartError};
use super::{shards, DepthStats, RunError};
use crate::enemy::EnemyKind;
use crate::evaluate::Identity;
use crate::folder::{self, fnv1a, io, FNV_OFFSET};
use crate::well::Well;

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
pub(super) const MANIFEST_VERSION_INLINE: u32 = 2;

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
    /// Where the run starts in a game (`search --from`); absent: the
    /// empty well, as in every run before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Start>,
    /// The lineage cap ([`crate::search::lineage`]); absent: none, as in
    /// every run before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lineage: Option<LineageCap>,
}

impl Settings {
    /// The run's identity, written into every depth file: a digest of the
    /// settings in a canonical form (so formatting, the order of keys and
    /// `null` keys do not change it). Two runs with the same settings make
    /// the same files, so they may share an identity. A run from a game
    /// adds its start ([`Start::identity`]); an empty-well run's identity
    /// is what it was before starts existed.
    pub fn run_id(&self) -> u64 {
        let mut text = format!(
            "width={};enemy={};evaluator={{{}}}",
            self.width,
            self.enemy,
            self.evaluator.canonical()
        );
        if let Some(start) = &self.start {
            text.push_str(&format!(";start={{{}}}", start.identity()));
        }
        if let Some(cap) = self.lineage {
            text.push_str(&format!(";lineage={cap}"));
        }
        fnv1a(FNV_OFFSET, text.as_bytes())
    }

    /// The depth of the run's root: 0, or the pieces of the game it
    /// starts from.
    pub fn root(&self) -> u32 {
        self.start.as_ref().map_or(0, |s| s.at)
    }

    /// The game before the root (`None` for an empty-well run), played
    /// again from the start the run recorded.
    pub fn prefix(&self) -> Result<Option<Prefix>, StartError> {
        self.start.as_ref().map(|s| s.play(self.enemy)).transpose()
    }

    /// The root as a best game: the empty well, or the start's well with
    /// its score.
    pub fn root_best(&self) -> Result<Best, StartError> {
        Ok(self.prefix()?.map_or(Best::START, |p| p.best()))
    }
}

/// The lineage cap a run searches with ([`crate::search::lineage`]): at
/// most `most` wells of a depth descend from any one well `back` pieces
/// earlier. Written `BACK:MOST` (`--lineage-cap 60:2500`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineageCap {
    /// How many pieces back the shared ancestor lies (1: the parent).
    pub back: u32,
    /// The most kept children of one ancestor.
    pub most: u32,
}

impl LineageCap {
    /// Levels above a beam entry at which its children's ancestor lies.
    pub fn up(self) -> usize {
        self.back as usize - 1
    }
}

impl fmt::Display for LineageCap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.back, self.most)
    }
}

impl FromStr for LineageCap {
    type Err = String;

    fn from_str(s: &str) -> Result<LineageCap, String> {
        let bad = || {
            format!("a lineage cap is BACK:MOST, two whole numbers from 1 (as 60:2500), got '{s}'")
        };
        let (back, most) = s.split_once(':').ok_or_else(bad)?;
        let back: u32 = back.trim().parse().map_err(|_| bad())?;
        let most: u32 = most.trim().parse().map_err(|_| bad())?;
        if back == 0 || most == 0 {
            return Err(bad());
        }
        Ok(LineageCap { back, most })
    }
}

/// The best game found so far.
///
/// One total order picks it, from the depth files alone: the highest
/// score, then the shallowest depth, then the first well in the depth
/// file's order. The search, a resume (`best_from_files`) and
/// [`super::verify`] all apply it, so a resumed run reports the same game as an
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
        digest: FNV_OFFSET,
    };

    /// The mark after `more` bytes follow the marked ones.
    pub(super) fn then(self, more: &[u8]) -> LogMark {
        LogMark {
            bytes: self.bytes + more.len() as u64,
            digest: fnv1a(self.digest, more),
        }
    }
}

/// A `u64` as 16 hex digits in JSON (a JSON number that large is misread
/// by many tools).
pub(crate) mod hex_u64 {
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
    /// The part of the log that holds the depths after the root (depth 1,
    /// or the start's next) to `depth`.
    pub log: LogMark,
    /// How far the run was asked to go (absent in runs made before it was
    /// recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Plan>,
    /// A sharded run's layout: its depth files are one per shard
    /// ([`super::shards`]); absent: one file per depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<shards::Shards>,
    /// One entry per completed depth after the root (depth 1 first, or
    /// the start's next): not written to the
    /// manifest but to the log, and read back from it by [`super::read_manifest`].
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
    /// The manifest of a run that has only its root, `root` (its depth,
    /// well and score).
    pub fn new(settings: Settings, root: Best) -> Manifest {
        Manifest {
            format: FORMAT.into(),
            version: MANIFEST_VERSION,
            settings,
            depth: root.depth,
            best: root,
            exhausted: false,
            log: LogMark::EMPTY,
            plan: None,
            shards: None,
            depths: Vec::new(),
        }
    }

    /// The depth of the run's root ([`Settings::root`]).
    pub fn root(&self) -> u32 {
        self.settings.root()
    }

    /// The beam size the run recorded at depth `d` (1 at the root); `None`
    /// when the log's figures for it are not read, or `d` is before the
    /// root.
    pub fn kept_at(&self, d: u32) -> Option<u64> {
        let root = self.root();
        match d.checked_sub(root)? {
            0 => Some(1),
            i => self.depths.get(i as usize - 1).map(|s| s.kept),
        }
    }

    /// The figures of depth `d`, when the log's are read.
    pub fn stats_at(&self, d: u32) -> Option<&DepthStats> {
        let i = d.checked_sub(self.root() + 1)?;
        self.depths.get(i as usize)
    }
}

/// The longest manifest read: a version 2 manifest held about 600 bytes
/// per depth, so room for runs of hundreds of thousands of depths; anything
/// longer is not a manifest. (A version 3 manifest is about 1 kB.)
const MAX_MANIFEST_BYTES: u64 = 256 << 20;

/// Reads `manifest.json` alone: its `depths` are empty, except in a
/// version 2 manifest, which holds them.
pub fn read_manifest_file(dir: &Path) -> Result<Manifest, RunError> {
    let path = manifest_path(dir);
    if !path.exists() {
        crate::folder::refuse_other(dir, crate::folder::Holds::Run)?;
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

/// Writes the manifest atomically.
pub(crate) fn write_manifest(dir: &Path, m: &Manifest) -> Result<(), RunError> {
    Ok(folder::json::write_unterminated(&manifest_path(dir), m)?)
}
