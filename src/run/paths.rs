//! Where a run folder keeps each of its files: the one list of their names.

use std::path::{Path, PathBuf};

/// Path of depth `d`'s file.
pub fn depth_path(dir: &Path, d: u32) -> PathBuf {
    dir.join(format!("depth-{d:05}.beam"))
}

/// Path of depth `d`'s history snapshot.
pub(crate) fn snapshot_path(dir: &Path, d: u32) -> PathBuf {
    dir.join(format!("ancestry-{d:05}.bin"))
}

/// Path of the manifest.
pub fn manifest_path(dir: &Path) -> PathBuf {
    crate::folder::Holds::Run.marker_path(dir)
}

/// Path of the per-depth log.
pub fn log_path(dir: &Path) -> PathBuf {
    dir.join("log.jsonl")
}

/// Path of the best game's replay.
pub fn best_replay_path(dir: &Path) -> PathBuf {
    dir.join("best-replay.txt")
}
