//! Folder tools: what every folder the engine keeps on disk needs, whatever
//! it holds (a search's run folder, a training folder, a tuning folder).
//!
//! - [`atomic`]: a file written so that a crash at any moment leaves the
//!   old file or the whole new one (temporary name, fsync, rename, fsync
//!   the folder);
//! - [`FolderLock`]: one process per folder, by the kernel's `flock`, so a
//!   killed process never leaves a stale lock; [`remove_temporaries`]
//!   clears what a crash left, under the lock;
//! - [`json`]: a JSON file read (or found absent) and written atomically,
//!   and the JSON-lines logs, one synced line at a time;
//! - [`differences`]: the settings a folder recorded against the ones asked
//!   for on resuming, key by key;
//! - [`IoError`]: an I/O error with the path it happened on, the one shape
//!   every module's error type wraps;
//! - [`fnv1a`]: the fixed digest written into files (a depth file's
//!   checksums and links, a run's identity, the log's mark);
//! - [`holds`]: what a folder holds (a search run, a training or a tuning
//!   folder), by the file each kind writes first, and [`refuse_other`],
//!   the one-line refusal of a folder of another kind.
//!
//! This room is the ground floor: it imports nothing else of the crate, so
//! `run`, `train`, `tune` and `nnue` all build on it without an arrow
//! running back up the layering.

pub mod atomic;
mod digest;
pub mod json;
mod kind;
mod lock;
mod settings;

use std::path::{Path, PathBuf};

pub use digest::{fnv1a, FNV_OFFSET, FNV_PRIME};
pub use kind::{holds, refuse_other, Holds};
pub use lock::{holder, lock_path, remove_temporaries, FolderLock};
pub use settings::{canonical, differences, is_default, Difference};

/// An I/O error with the file or folder it happened on.
// The cause is in the message and not a `source`, so that a report of the
// error chain does not print it twice.
#[derive(Debug, thiserror::Error)]
#[error("{}: {error}", path.display())]
pub struct IoError {
    /// The file or folder.
    pub path: PathBuf,
    /// The error.
    pub error: std::io::Error,
}

/// Wraps an I/O error with `path`: `fs::read(&p).map_err(io(&p))?`.
pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> IoError + '_ {
    move |error| IoError {
        path: path.to_path_buf(),
        error,
    }
}

/// Why a folder tool failed.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// An I/O error.
    #[error(transparent)]
    Io(#[from] IoError),
    /// Another process holds the folder ([`FolderLock`]).
    #[error("{} is in use by {}", dir.display(), match .pid { Some(p) => format!("process {p}"), None => "another process".to_string() })]
    InUse {
        /// The folder.
        dir: PathBuf,
        /// The process holding it, when it could be read.
        pid: Option<u32>,
    },
    /// The folder holds another kind of folder than the command keeps.
    #[error("{} holds {} ({}), not {}: `{} {}` goes on with it; pick another folder", dir.display(), found.name(), found.marker(), want.name(), found.command(), dir.display())]
    HoldsOther {
        /// The folder.
        dir: PathBuf,
        /// What it holds.
        found: Holds,
        /// What the command keeps.
        want: Holds,
    },
    /// A JSON file that does not parse as what it should hold.
    #[error("{}: {reason}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}
