//! Why a run folder could not be used: one error type for the whole room,
//! each variant saying what to do about it (resume, restore a file, run
//! `hatetris verify`), since its message is what a person reads.

use std::path::{Path, PathBuf};

use super::start::StartError;
use super::store::StoreError;
use crate::folder::{FolderError, IoError};

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
    /// A run's start (`search --from`) gives no well to go on from.
    #[error(transparent)]
    Start(#[from] StartError),
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
