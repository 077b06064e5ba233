//! A training folder at a glance (`hatetris status DIR` on a training
//! folder): the generations done with their figures and gates, the
//! champion, the generation in progress and its step, and the time a
//! generation takes, read from the folder's files alone (a trainer may be
//! writing them: every file is written whole and renamed, so a read sees
//! a step done or not done, never half of one).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::folder::{generation_dir, read_config, read_json};
use super::learning::{champion_path, Champion};
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
            ("fit", "fit.json"),
            ("gate", "gate.json"),
        ];
        let step = steps
            .iter()
            .filter(|(name, _)| *name != "gate" || config.learning.is_some())
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
    Ok(TrainStatus {
        learning: config.learning.is_some(),
        running: held.is_some(),
        pid: held.flatten(),
        generations: done,
        champion: read_json(&champion_path(dir))?,
        in_progress,
        step,
        targets_done,
        seconds_per_generation: (!seconds.is_empty())
            .then(|| seconds.iter().sum::<f64>() / seconds.len() as f64),
    })
}
