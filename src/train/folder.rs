//! The training folder's files: where each generation's results live, the
//! settings and summaries as JSON, the log, and the one skeleton every step
//! of a generation follows ([`step`]).
//!
//! Every file is written whole under a temporary name, synced and renamed
//! ([`crate::folder`]); the log is appended one synced line at a time.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::data::{self, Sampled};
use super::fit::{Fitted, HeldOrder};
use super::{Config, Epoch, Generation, TrainError};
use crate::folder::json;
use crate::nnue::Net;

/// The settings file of a training folder.
pub fn config_path(dir: &Path) -> PathBuf {
    dir.join("train.json")
}

/// The folder of generation `g`.
pub fn generation_dir(dir: &Path, g: u32) -> PathBuf {
    dir.join(format!("gen-{g:03}"))
}

/// The quantised net generation `g` made.
pub fn net_path(dir: &Path, g: u32) -> PathBuf {
    generation_dir(dir, g).join("net.nnue")
}

/// The picture of the losses and scores.
pub fn plot_path(dir: &Path) -> PathBuf {
    dir.join("progress.svg")
}

/// The record of a finished wide game whose run folder is `run`: the run
/// folder's name with `.json` (`gen-NNN/wide-WIDTH-from-PIECE.json`), kept
/// with the folder's small files, so that a copy of them (on another
/// machine) reads the game instead of playing it again (hours at width
/// 100,000).
pub fn wide_record_path(run: &Path) -> PathBuf {
    let mut name = run.file_name().unwrap_or_default().to_os_string();
    name.push(".json");
    run.with_file_name(name)
}

/// The JSON-lines log.
pub fn log_path(dir: &Path) -> PathBuf {
    dir.join("log.jsonl")
}

pub(super) const FROM_F32: &str = "from.f32";

/// A generation's best values at the life term's horizon, one per sample
/// (its own target where its training beam did not reach the horizon):
/// written by the targets step when the life term is on, read by the fit's
/// far share ([`super::Learning::far_share`]).
pub(super) const FAR_BIN: &str = "far.bin";

/// `gen-NNN/wide-samples.bin`: the generation's samples from the gate's
/// wide games ([`super::wide`]).
pub const WIDE_SAMPLES_BIN: &str = "wide-samples.bin";

/// `gen-NNN/wide-reach.bin`: each wide sample's reach less its depth.
pub const WIDE_REACH_BIN: &str = "wide-reach.bin";

/// The start net's own figures on the gate (the learning loop).
pub(super) const GATE_START: &str = "gate-start.json";

/// Reads a training folder's settings, if it has any.
pub fn read_config(dir: &Path) -> Result<Option<Config>, TrainError> {
    Ok(json::read(&config_path(dir))?)
}

/// Reads a JSON file, `None` if it does not exist.
pub(super) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, TrainError> {
    Ok(json::read(path)?)
}

/// Writes a JSON file atomically.
pub(super) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), TrainError> {
    Ok(json::write(path, value)?)
}

/// Every generation summary in the folder, in order.
pub fn generations(dir: &Path) -> Result<Vec<Generation>, TrainError> {
    let mut out = Vec::new();
    for g in 0.. {
        match read_json::<Generation>(&generation_dir(dir, g).join("generation.json"))? {
            Some(s) => out.push(s),
            None => break,
        }
    }
    Ok(out)
}

/// Appends one JSON line to the log, synced.
pub(super) fn append_log(dir: &Path, value: &serde_json::Value) -> Result<(), TrainError> {
    Ok(json::append_line(&log_path(dir), &json::line(value))?)
}

/// The seconds each step of generation `g` took when it was computed
/// (`gen-NNN/seconds.json`, by [`super::Phase::name`]), so that a
/// generation resumed after a kill reports what its steps cost, not the time
/// it took to read them back. A kill between a step's file and this record
/// loses that one figure (the step then counts as its reading time), and a
/// step finished by a later process after a kill half-way (the training
/// beams keep their progress) counts that process's part.
pub(super) fn step_seconds_path(dir: &Path, g: u32) -> PathBuf {
    generation_dir(dir, g).join("seconds.json")
}

/// The seconds recorded for generation `g`'s steps (empty when none are).
pub(super) fn read_step_seconds(
    dir: &Path,
    g: u32,
) -> Result<std::collections::BTreeMap<String, f64>, TrainError> {
    Ok(read_json(&step_seconds_path(dir, g))?.unwrap_or_default())
}

/// The seconds the run in `dir` has spent so far, over all the processes
/// that played it (from its manifest's depths; 0 without one): a killed
/// master beam's before it goes on, a wide game's.
pub(super) fn run_seconds(dir: &Path) -> f64 {
    crate::run::read_manifest(dir)
        .map(|m| crate::run::depth_seconds(&m.depths).iter().sum())
        .unwrap_or(0.0)
}

/// Records that a step of generation `g` took `seconds` when computed.
pub(super) fn record_step_seconds(
    dir: &Path,
    g: u32,
    step: &str,
    seconds: f64,
) -> Result<(), TrainError> {
    let mut all = read_step_seconds(dir, g)?;
    all.insert(step.to_owned(), seconds);
    write_json(&step_seconds_path(dir, g), &all)
}

/// `fit.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct FitRecord {
    pub(super) epochs: Vec<Epoch>,
    pub(super) best_epoch: u32,
    pub(super) split: (usize, usize),
    /// The proven bound on the quantised net's difference from the f32
    /// net's value ([`crate::nnue::QuantNet::error_bound`]).
    pub(super) error_bound: f64,
    /// With fits averaged, the averaged net's validation loss.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) averaged_validation_loss: Option<f64>,
    /// The start and kept nets' order of the held-out pairs (absent from
    /// fits made before it was measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) held_order: Option<HeldOrder>,
}

/// A step's result, kept in its own file: read back (`None` when the step
/// was not done) and written atomically.
pub(super) trait StepFile: Sized {
    /// The result in `path`, if the step was done.
    fn load(path: &Path) -> Result<Option<Self>, TrainError>;
    /// Writes the result to `path`.
    fn save(&self, path: &Path) -> Result<(), TrainError>;
}

/// The skeleton of every step: its file read back when the step was done
/// before (`false`), else the result computed, written and returned
/// (`true`).
pub(super) fn step<T: StepFile>(
    path: &Path,
    compute: impl FnOnce() -> Result<T, TrainError>,
) -> Result<(T, bool), TrainError> {
    if let Some(done) = T::load(path)? {
        return Ok((done, false));
    }
    let made = compute()?;
    made.save(path)?;
    Ok((made, true))
}

/// Results kept as a JSON file.
macro_rules! json_step {
    ($($t:ty),*) => {$(
        impl $crate::train::folder::StepFile for $t {
            fn load(
                path: &std::path::Path,
            ) -> Result<Option<Self>, $crate::train::TrainError> {
                $crate::train::folder::read_json(path)
            }
            fn save(&self, path: &std::path::Path) -> Result<(), $crate::train::TrainError> {
                $crate::train::folder::write_json(path, self)
            }
        }
    )*};
}

pub(super) use json_step;

json_step!(super::Master, Generation, Rescale);

/// `rescale.json`: the map from the previous net's value units to this
/// generation's.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(super) struct Rescale {
    pub(super) scale: f32,
    pub(super) shift: f32,
}

/// `samples.bin` ([`data`]).
impl StepFile for Vec<Sampled> {
    fn load(path: &Path) -> Result<Option<Self>, TrainError> {
        Ok(match path.exists() {
            true => Some(data::load_samples(path)?),
            false => None,
        })
    }
    fn save(&self, path: &Path) -> Result<(), TrainError> {
        Ok(data::save_samples(path, self)?)
    }
}

/// `targets.bin` ([`data`]).
impl StepFile for Vec<f32> {
    fn load(path: &Path) -> Result<Option<Self>, TrainError> {
        Ok(match path.exists() {
            true => Some(data::load_targets(path)?),
            false => None,
        })
    }
    fn save(&self, path: &Path) -> Result<(), TrainError> {
        Ok(data::save_targets(path, self)?)
    }
}

/// A fit is three files, `fit.json` (the step's file, written last) and
/// beside it `net.f32` (to train on) and `net.nnue` (to search with).
impl StepFile for Fitted {
    fn load(path: &Path) -> Result<Option<Self>, TrainError> {
        let f32_path = path.with_file_name("net.f32");
        if !f32_path.exists() {
            return Ok(None);
        }
        let Some(record) = read_json::<FitRecord>(path)? else {
            return Ok(None);
        };
        if !path.with_file_name("net.nnue").exists() {
            return Ok(None);
        }
        Ok(Some(Fitted {
            net: Net::load(&f32_path)?,
            epochs: record.epochs,
            best_epoch: record.best_epoch,
            split: record.split,
            averaged_validation_loss: record.averaged_validation_loss,
            held_order: record.held_order,
        }))
    }
    fn save(&self, path: &Path) -> Result<(), TrainError> {
        let quant = self.net.save_with_quantised(
            &path.with_file_name("net.f32"),
            &path.with_file_name("net.nnue"),
        )?;
        write_json(
            path,
            &FitRecord {
                epochs: self.epochs.clone(),
                best_epoch: self.best_epoch,
                split: self.split,
                error_bound: quant.error_bound(),
                averaged_validation_loss: self.averaged_validation_loss,
                held_order: self.held_order,
            },
        )
    }
}

/// Whether generation `g` of the training folder `dir` learns the
/// heuristic (the first generation of a folder started without `--from`).
pub(super) fn learns_heuristic(dir: &Path, g: u32) -> bool {
    g == 0 && !dir.join(FROM_F32).exists()
}

/// Whether the game of the run folder with manifest `m` is over: its beam
/// died out, or it reached the trainer's depth limit `master_depth`.
pub(super) fn game_over(m: &crate::run::Manifest, master_depth: u32) -> bool {
    m.exhausted || m.depth >= master_depth
}
