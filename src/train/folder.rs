//! The training folder's files: where each generation's results live,
//! the settings and summaries as JSON, and the log.
//!
//! Every JSON file is written whole under a temporary name, synced and
//! renamed; the log is appended one synced line at a time.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{io_error, Config, Epoch, Generation, TrainError};
use crate::folder::atomic::write_atomic;

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

/// The JSON-lines log.
pub fn log_path(dir: &Path) -> PathBuf {
    dir.join("log.jsonl")
}

pub(super) const FROM_F32: &str = "from.f32";

/// Reads a training folder's settings, if it has any.
pub fn read_config(dir: &Path) -> Result<Option<Config>, TrainError> {
    let path = config_path(dir);
    match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| TrainError::Config {
                path,
                why: e.to_string(),
            }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(&path)(e)),
    }
}

/// Reads a JSON file, `None` if it does not exist.
pub(super) fn read_json<T: for<'de> Deserialize<'de>>(
    path: &Path,
) -> Result<Option<T>, TrainError> {
    match fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| TrainError::Config {
                path: path.to_path_buf(),
                why: e.to_string(),
            }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(path)(e)),
    }
}

pub(super) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), TrainError> {
    let mut text = serde_json::to_string_pretty(value).expect("plain data serialises");
    text.push('\n');
    write_atomic(path, text.as_bytes()).map_err(io_error(path))
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
    let path = log_path(dir);
    let mut line = value.to_string();
    line.push('\n');
    let mut f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(io_error(&path))?;
    f.write_all(line.as_bytes()).map_err(io_error(&path))?;
    f.sync_data().map_err(io_error(&path))
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
}
