//! What a folder holds: a search's run, a training folder or a tuning
//! folder, told by the one file each kind writes first (its marker), so a
//! command refuses a folder of another kind in one line before it writes
//! anything into it.
//!
//! The markers are named here, the one list of them: `run::manifest_path`
//! and `tune::settings_path` are built from them, and a test holds
//! `train::config_path` to its own. A folder with none of them is new (or
//! not the engine's); with two (which no command writes), the first in
//! [`Holds::ALL`] wins.

use std::path::{Path, PathBuf};

use super::FolderError;

/// A kind of folder the engine keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// A search's run folder (`hatetris search`).
    Run,
    /// A training folder (`hatetris train`).
    Training,
    /// A tuning folder (`hatetris tune`).
    Tuning,
}

impl Holds {
    /// Every kind, in the order a folder is tried against them.
    pub const ALL: [Holds; 3] = [Holds::Run, Holds::Training, Holds::Tuning];

    /// The file that marks a folder of this kind.
    pub const fn marker(self) -> &'static str {
        match self {
            Holds::Run => "manifest.json",
            Holds::Training => "train.json",
            Holds::Tuning => "tune.json",
        }
    }

    /// What such a folder holds, in words ("a search run").
    pub const fn name(self) -> &'static str {
        match self {
            Holds::Run => "a search run",
            Holds::Training => "a training folder",
            Holds::Tuning => "a tuning folder",
        }
    }

    /// The command that goes on with such a folder.
    pub const fn command(self) -> &'static str {
        match self {
            Holds::Run => "hatetris search --resume",
            Holds::Training => "hatetris train",
            Holds::Tuning => "hatetris tune",
        }
    }

    /// The marker's path in `dir`.
    pub fn marker_path(self, dir: &Path) -> PathBuf {
        dir.join(self.marker())
    }
}

/// What `dir` holds, by its marker; `None` for a missing folder, an empty
/// one, or one of none of the engine's kinds.
pub fn holds(dir: &Path) -> Option<Holds> {
    Holds::ALL.into_iter().find(|k| k.marker_path(dir).exists())
}

/// Refuses `dir` when it holds a folder of another kind than `want`
/// ([`FolderError::HoldsOther`]); a folder of `want`'s kind, or of none,
/// passes.
pub fn refuse_other(dir: &Path, want: Holds) -> Result<(), FolderError> {
    match holds(dir) {
        Some(found) if found != want => Err(FolderError::HoldsOther {
            dir: dir.to_path_buf(),
            found,
            want,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_told_by_its_marker_and_another_kind_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert_eq!(holds(d), None);
        for want in Holds::ALL {
            assert!(refuse_other(d, want).is_ok());
        }
        std::fs::write(d.join("train.json"), "{}").unwrap();
        assert_eq!(holds(d), Some(Holds::Training));
        assert!(refuse_other(d, Holds::Training).is_ok());
        let err = refuse_other(d, Holds::Run).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{} holds a training folder (train.json), not a search run: `hatetris train {}` goes on with it; pick another folder",
                d.display(),
                d.display()
            )
        );
    }
}
