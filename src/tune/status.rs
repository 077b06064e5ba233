//! A tuning folder at a glance (`hatetris status DIR` on a tuning folder):
//! the evaluations done of the budget, the best fitness and its weights
//! file, whether a tuner holds the folder, the pace and an estimate to
//! finish, read from the folder's files alone (a tuner may be writing
//! them: the log's lines are appended whole and synced, a torn last line
//! is skipped; the other files are written whole and renamed).
//!
//! The pace is the latest session's ([`Session`]): the wall seconds from
//! its start to the log's last write over the evaluations it added, so
//! the threads working in parallel and the time between evaluations are
//! in it, and an old session's pace on another machine is not.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use super::folder::{log_path, session_path};
use super::{best_path, evaluations, settings_path, Session, TuneError, TuneSettings};
use crate::folder::{holder, json};

/// The best evaluation so far, in short.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestSoFar {
    /// Which evaluation it was (0: the start weights).
    pub evaluation: usize,
    /// Its CMA-ES generation.
    pub generation: usize,
    /// Mean lines over the starts (or pieces: [`TuneStatus::unit`]).
    pub mean: f64,
    /// Their standard deviation.
    pub sd: f64,
    /// Its file: `best.toml`, which `search --weights` reads, or for a
    /// folder that tunes a net `best.nnue`, which `search --net` reads.
    pub weights: PathBuf,
}

/// What `status` says of a tuning folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneStatus {
    /// Evaluations in the log (the start weights' included).
    pub evaluations: usize,
    /// The latest tuner's budget (absent in a folder no tuner has begun
    /// measuring in).
    pub budget: Option<usize>,
    /// The best evaluation (the highest mean; ties: the earliest).
    pub best: Option<BestSoFar>,
    /// The start weights' mean lines (evaluation 0).
    pub start_mean: Option<f64>,
    /// What the means count: `lines` from a reference game's start wells,
    /// `pieces` survived from a suite's positions.
    pub unit: String,
    /// Whether a tuner holds the folder's lock now.
    pub running: bool,
    /// Its process, when the lock names it.
    pub pid: Option<u32>,
    /// Wall seconds per evaluation in the latest session, once it has
    /// added one.
    pub seconds_per_evaluation: Option<f64>,
    /// Seconds to the budget at that pace (0 at the budget; null when
    /// unknown).
    pub eta_s: Option<f64>,
}

/// The status of the tuning folder `dir`.
pub fn status(dir: &Path) -> Result<TuneStatus, TuneError> {
    let spath = settings_path(dir);
    let settings = json::read::<TuneSettings>(&spath)?
        .ok_or_else(|| TuneError::Config(format!("{}: not a tuning folder", spath.display())))?;
    let all = evaluations(dir)?;
    let session: Option<Session> = json::read(&session_path(dir))?;
    let held = holder(dir)?;
    let mut best: Option<&super::Evaluation> = None;
    for e in &all {
        if best.is_none_or(|b| e.measured.mean > b.measured.mean) {
            best = Some(e);
        }
    }
    let n = all.len();
    let seconds_per_evaluation = session.as_ref().and_then(|s| {
        let added = n.checked_sub(s.logged_at_start).filter(|&a| a > 0)?;
        let written = std::fs::metadata(log_path(dir)).ok()?.modified().ok()?;
        let at = written.duration_since(UNIX_EPOCH).ok()?.as_secs_f64();
        Some((at - s.started_unix_s).max(0.0) / added as f64)
    });
    let budget = session.as_ref().map(|s| s.budget);
    let eta_s = match (budget, seconds_per_evaluation) {
        (Some(b), _) if n >= b => Some(0.0),
        (Some(b), Some(pace)) => Some((b - n) as f64 * pace),
        _ => None,
    };
    Ok(TuneStatus {
        evaluations: n,
        budget,
        best: best.map(|e| BestSoFar {
            evaluation: e.index,
            generation: e.generation,
            mean: e.measured.mean,
            sd: e.measured.sd,
            weights: match settings.net {
                Some(_) => super::net::best_paths(dir).1,
                None => best_path(dir),
            },
        }),
        start_mean: all.iter().find(|e| e.index == 0).map(|e| e.measured.mean),
        unit: settings.fitness.unit().to_string(),
        running: held.is_some(),
        pid: held.flatten(),
        seconds_per_evaluation,
        eta_s,
    })
}
