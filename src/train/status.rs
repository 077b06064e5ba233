//! A training folder at a glance (`hatetris status DIR` on a training
//! folder): the generations done with their figures and gates, the
//! champion, the generation in progress and its step, and the time a
//! generation takes, read from the folder's files alone (a trainer may be
//! writing them: every file is written whole and renamed, so a read sees
//! a step done or not done, never half of one).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::folder::{generation_dir, read_config, read_json, write_json};
use super::gate::{champion_path, Champion, GateGame, GateRecord, GATE_POSITIONS};
use super::{generations, Generation, TrainError};
use crate::folder::holder;

/// What `status` says of a training folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainStatus {
    /// Whether the folder runs the learning loop (gates and a champion).
    pub learning: bool,
    /// Whether a trainer holds the folder's lock now.
    pub running: bool,
    /// Its process, when the lock names it.
    pub pid: Option<u32>,
    /// Every finished generation.
    pub generations: Vec<Generation>,
    /// The champion (the learning loop).
    pub champion: Option<Champion>,
    /// The generation in progress (the first not finished), if its folder
    /// exists.
    pub in_progress: Option<u32>,
    /// Its step in progress: the first whose file is missing.
    pub step: Option<String>,
    /// Targets already computed in the step `targets` (from its partial
    /// file), and the samples they are for.
    pub targets_done: Option<(usize, usize)>,
    /// Mean wall seconds of a finished generation (its master beam, data,
    /// fit and gate).
    pub seconds_per_generation: Option<f64>,
    /// The generations the latest trainer was asked to have in the folder
    /// (`--generations`; absent in a folder from before it was recorded).
    pub target: Option<u32>,
    /// Seconds to that target at the mean pace: the generations still to
    /// finish, less the time the one in progress has run when a trainer
    /// holds the folder (`None` without a target or a finished generation).
    pub eta_s: Option<f64>,
    /// Where a forked folder came from (`fork.json`; `None`: not a fork).
    #[serde(default)]
    pub forked: Option<super::Forked>,
    /// In the step `gate` of a gate with wide games: each of them, the
    /// champion's and the candidate's, as far as it has been played (these
    /// games are most of a gate's time: about an hour each at width
    /// 100,000 from the steady state on 2 cores).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gate_games: Vec<GateGame>,
    /// In the step `gate`, once the candidate has played the gate's
    /// positions: their verdict (`gate-positions.json`), which the wide
    /// games, if any, then confirm or overturn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate_positions: Option<GateRecord>,
}

/// The latest trainer's session (`session.json`): what `status` reads the
/// target and the time the generation in progress has run from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// The generations to have in the folder when done.
    pub generations: u32,
    /// Its threads.
    pub threads: usize,
    /// When it began, in seconds since the Unix epoch.
    pub started_unix_s: f64,
}

fn session_path(dir: &Path) -> std::path::PathBuf {
    dir.join("session.json")
}

fn now_unix_s() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Records a trainer beginning now, to have `generations` in the folder.
pub(super) fn write_session(
    dir: &Path,
    generations: u32,
    threads: usize,
) -> Result<(), TrainError> {
    write_json(
        &session_path(dir),
        &Session {
            generations,
            threads,
            started_unix_s: now_unix_s(),
        },
    )
}

/// The status of the training folder `dir`.
pub fn status(dir: &Path) -> Result<TrainStatus, TrainError> {
    let config = read_config(dir)?.ok_or_else(|| TrainError::Config {
        path: super::config_path(dir),
        why: "not a training folder (no train.json)".into(),
    })?;
    let done = generations(dir)?;
    let next = done.len() as u32;
    let gen = generation_dir(dir, next);
    let (in_progress, step, targets_done) = if gen.is_dir() {
        let steps = [
            ("master beam", "master.json"),
            ("samples", "samples.bin"),
            ("targets", "targets.bin"),
            ("reach", super::reach::REACH_BIN),
            ("fit", "fit.json"),
            ("gate", "gate.json"),
        ];
        // The reach step, where the reach term makes one (never for the
        // heuristic's generation).
        let reach = config.learning.as_ref().is_some_and(|l| l.reach_term())
            && !super::folder::learns_heuristic(dir, next);
        let step = steps
            .iter()
            .filter(|(name, _)| *name != "gate" || config.learning.is_some())
            .filter(|(name, _)| *name != "reach" || reach)
            .find(|(_, file)| !gen.join(file).exists())
            .map(|(name, _)| name.to_string());
        let targets = match step.as_deref() {
            Some("targets") => {
                let samples = super::data::load_samples(&gen.join("samples.bin"))
                    .map(|s| s.len())
                    .unwrap_or(0);
                let partial = gen.join("targets-partial.bin");
                let done = super::data::load_targets(&partial)
                    .map(|t| t.len())
                    .unwrap_or(0);
                Some((done, samples))
            }
            _ => None,
        };
        (Some(next), step, targets)
    } else {
        (None, None, None)
    };
    let champion: Option<Champion> = read_json(&champion_path(dir))?;
    let (gate_games, gate_positions) = match (&config.learning, in_progress, step.as_deref()) {
        (Some(learning), Some(g), Some("gate")) => {
            // The champion the gates before it on disk make, as the
            // trainer finds it (a fork has no `champion.json` until its
            // first gate ends).
            let who = super::gates(dir)?
                .iter()
                .rev()
                .find(|r| r.generation < g && r.kept)
                .map(|r| r.generation);
            (
                learning.gate.games_now(dir, g, who, config.master_depth),
                read_json(&generation_dir(dir, g).join(GATE_POSITIONS))?,
            )
        }
        _ => (Vec::new(), None),
    };
    let held = holder(dir)?;
    let seconds: Vec<f64> = done
        .iter()
        .map(|g| {
            g.master.seconds
                + g.data_seconds
                + g.fit_seconds
                + g.gate.as_ref().map_or(0.0, |x| x.seconds)
        })
        .collect();
    let per = (!seconds.is_empty()).then(|| seconds.iter().sum::<f64>() / seconds.len() as f64);
    let session: Option<Session> = read_json(&session_path(dir))?;
    let target = session.as_ref().map(|s| s.generations);
    let eta_s = match (&session, per) {
        (Some(s), Some(per)) => {
            let left = s.generations.saturating_sub(done.len() as u32);
            // The generation in progress has run since the later of the
            // session's start and the last generation's end.
            let last_end = done.last().and_then(|g| {
                fs_modified(&generation_dir(dir, g.generation).join("generation.json"))
            });
            let began = last_end.map_or(s.started_unix_s, |t| t.max(s.started_unix_s));
            let running = match held.is_some() && left > 0 {
                true => (now_unix_s() - began).clamp(0.0, per),
                false => 0.0,
            };
            Some((f64::from(left) * per - running).max(0.0))
        }
        _ => None,
    };
    Ok(TrainStatus {
        learning: config.learning.is_some(),
        running: held.is_some(),
        pid: held.flatten(),
        generations: done,
        champion,
        in_progress,
        step,
        targets_done,
        seconds_per_generation: per,
        target,
        eta_s,
        forked: read_json(&dir.join(super::FORK_JSON))?,
        gate_games,
        gate_positions,
    })
}

/// When `path` was last written, in seconds since the Unix epoch.
fn fs_modified(path: &Path) -> Option<f64> {
    let t = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs_f64())
}
