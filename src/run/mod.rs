//! The run folder: where a search keeps everything, and how it is read back.
//!
//! ```text
//! manifest.json         settings, format version, the last complete depth,
//!                       best game, and the length and digest of the log's
//!                       part that holds those depths
//! depth-NNNNN.beam      the beam after NNNNN pieces (the root: depth 0, the
//!                       empty well, or a game's well, see [`start`])
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
//! renamed ([`crate::folder::atomic`]); the log only grows, a line per
//! depth, fsynced. The manifest is written last in a depth, so a kill at any moment leaves a
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
//! A process that writes to the folder holds [`crate::folder::FolderLock`] first: a second
//! one stops at once, and a lock left by a dead process is free (the
//! kernel drops it with the process).
//!
//! The rooms, one job each:
//!
//! - `manifest`: [`Manifest`] and what it holds ([`Settings`], [`Plan`],
//!   [`Best`], [`LogMark`]), its versions, reading and writing its file;
//! - `log`: the log read back against the manifest's mark (and so the
//!   manifest read whole, [`read_manifest`]), a depth's line recorded, and
//!   a resume's rewind to a depth;
//! - `paths`: the name of every file of the folder;
//! - `stats`: one depth's figures ([`DepthStats`]) and where its time went
//!   ([`Phases`]);
//! - `lifecycle`: the folder's creation and its opening to
//!   resume, the evaluator's files, history snapshots, the settings
//!   compared on resume, the best game read back from the files;
//! - `error`: [`RunError`], why a folder could not be used;
//! - `chain`: the depth files' chain checked, and the depth a resume
//!   starts from;
//! - [`start`]: where a run starts, the empty well or a game's well after
//!   some piece, and that game played again;
//! - [`store`]: the depth files' format; [`shards`]: a sharded run's depth
//!   files; [`keyframes`]: the game rebuilt from the folder; [`verify`]: a
//!   whole folder checked; [`status`]: what a folder holds, for a person.
//!
//! What every folder kind shares (atomic writes, the lock, JSON files and
//! logs, settings compared key by key, the digest) is on the ground floor,
//! [`crate::folder`]. What a snapshot holds is the search's business: here
//! it is bytes.
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
mod error;
pub mod keyframes;
mod lifecycle;
mod log;
mod manifest;
mod paths;
pub mod shards;
pub mod start;
mod stats;
pub mod status;
pub mod store;
pub mod verify;

pub(crate) use chain::{check_depth, digests, last_good_depth, no_digests};
pub use error::RunError;
pub use lifecycle::SNAPSHOTS_KEPT;
pub(crate) use lifecycle::{
    best_from_files, check_settings, create, keep_files, open_to_resume, read_snapshot,
    write_snapshot,
};
pub use log::read_manifest;
pub(crate) use log::{read_log, record_depth, rewind};
pub(crate) use manifest::{hex_u64, write_manifest};
pub use manifest::{
    read_manifest_file, Best, LineageCap, LogMark, Manifest, Plan, Settings, MANIFEST_VERSION,
};
pub(crate) use paths::snapshot_path;
pub use paths::{best_replay_path, depth_path, log_path, manifest_path};
pub use start::{Prefix, Start, StartError};
pub use stats::{depth_seconds, histogram, DepthStats, LineageCut, Phases};
