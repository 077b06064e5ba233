//! Tuning the heuristic's weights, or a net's output layer, with CMA-ES
//! (`hatetris tune`), and the fitness that `hatetris compare` reports for
//! several evaluators.
//!
//! The rooms:
//! - `fitness`: how well an evaluator plays, from the start wells of one
//!   reference game (a small search from each, [`crate::search::small`]),
//!   or from a strength suite's positions (`--suite`: pieces survived, as
//!   `bench strength` measures them); weights, with their jitter copies,
//!   or any evaluator (a net);
//! - `folder`: the tuning folder (settings checked on resume, the
//!   evaluations log and its cache, the best weights);
//! - `net`: a net as the subject instead of the weights (its output
//!   layer and line weight as named terms);
//! - `driver`: CMA-ES over the named weights or net terms, resumed from
//!   the log; besides the best evaluation it writes CMA-ES's mean after
//!   its last whole generation (`mean.toml`, or `mean.f32` and
//!   `mean.nnue`), since with a noisy fitness the best of many draws is
//!   partly the luckiest;
//! - `plot`: the folder's picture;
//! - `status`: the folder at a glance (`hatetris status`), read from its
//!   files alone;
//! - `verify`: the whole folder checked (`hatetris verify`): the log
//!   against the settings, the best weights against the log, the
//!   reference game's run.
//!
//! `tune` builds on `search` (the reference game, the small search), on
//! `strength` (a suite's positions) and on the folder tools, not on
//! `train`.

mod driver;
mod fitness;
mod folder;
pub mod net;
mod plot;
pub mod status;
mod verify;

use crate::folder::{FolderError, IoError};
use crate::run::keyframes::KeyframeError;
use crate::run::RunError;
use crate::search::SearchError;

pub use driver::{tune, TuneObserver, Tuned};
pub use fitness::{
    jittered, reference_game, wells_of, Fitness, FitnessBeam, FitnessSettings, Measured, Starts,
    JITTER,
};
pub use folder::{
    best_path, evaluations, mean_path, settings_path, Evaluation, Session, TuneSettings,
};
pub use plot::draw as redraw;
pub use verify::{verify, Findings};

/// The scale of every tuned weight: one CMA-ES unit is this much cost
/// (the 86-record weights' enclosed-hole, surface and erasability weight).
pub const UNIT: f64 = 83.7646;

/// Why tuning could not go on.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A setting or a file's content is wrong.
    #[error("{0}")]
    Config(String),
    /// The reference game's search.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// The reference run folder.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The tuning folder's lock, or a file of it that does not parse.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// Rebuilding the reference game.
    #[error(transparent)]
    Keyframes(#[from] KeyframeError),
    /// The suite's positions (`--suite`).
    #[error(transparent)]
    Strength(#[from] crate::strength::StrengthError),
    /// The tuned net: its file, or a candidate that does not quantise.
    #[error(transparent)]
    Net(#[from] crate::nnue::NetError),
}
