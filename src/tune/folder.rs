//! The tuning folder: its settings, the evaluations log and the best
//! weights, on the folder tools ([`crate::folder`]).
//!
//! - `tune.json`: the settings ([`TuneSettings`]); a resume must agree
//!   with them, key by key ([`crate::folder::differences`]);
//! - `reference/`: the reference game's run folder (an ordinary run);
//! - `evaluations.jsonl`: every evaluation, one JSON line each, synced as
//!   it is written; on opening, the log is rewritten without a torn last
//!   line ([`Book`]);
//! - `best.toml`: the best weights so far, a weights file `search
//!   --weights` reads (written atomically after each improvement), and
//!   `best.json` with their fitness;
//! - `fitness.svg` and `fitness.png`: every evaluation's fitness, with
//!   the best so far ([`super::plot`]);
//! - `session.json`: the latest tuner's budget, and when it began to
//!   measure with how many evaluations logged ([`Session`]), for
//!   [`super::status`]'s pace and estimate.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::folder::atomic::write_atomic;
use crate::folder::{self, io, json, IoError};
use crate::heuristic::{Weights, WEIGHT_NAMES};
use crate::nnue::Net;

use super::{FitnessSettings, Measured, TuneError, UNIT};

/// A tuning run's settings (`tune.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneSettings {
    /// How candidates are measured.
    pub fitness: FitnessSettings,
    /// The weights tuned, by name ([`WEIGHT_NAMES`]).
    pub terms: Vec<String>,
    /// The start: the mean of the first generation, and every weight not
    /// tuned.
    pub initial: Weights,
    /// CMA-ES's first step size, in [`UNIT`]s.
    pub sigma: f64,
    /// Candidates per generation (`None`: CMA-ES's default for the
    /// dimension).
    pub population: Option<usize>,
    /// CMA-ES's seed.
    pub seed: u64,
    /// The net tuned instead of the weights (`tune --net`): the FNV-1a
    /// digest, in hex, of the start net the folder keeps
    /// ([`super::net::start_path`]); its terms are the net's
    /// ([`super::net`]). `None`: the heuristic's weights are tuned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<String>,
}

impl TuneSettings {
    /// Checks the settings; `net` is the start net of a folder that tunes
    /// one.
    pub fn check(&self, net: Option<&Net>) -> Result<(), TuneError> {
        if self.terms.is_empty() {
            return Err(TuneError::Config("no weight to tune".into()));
        }
        self.fitness.check_suite()?;
        if let Some(net) = net {
            super::net::check_terms(net, &self.terms)?;
        }
        for t in self.terms.iter().filter(|_| net.is_none()) {
            if !WEIGHT_NAMES.contains(&t.as_str()) {
                return Err(TuneError::Config(format!(
                    "unknown weight `{t}` (known: {})",
                    WEIGHT_NAMES.join(", ")
                )));
            }
        }
        if self.population.is_some_and(|p| p < 2) {
            return Err(TuneError::Config(
                "the population must be at least 2".into(),
            ));
        }
        if !(self.sigma > 0.0 && self.sigma.is_finite()) {
            return Err(TuneError::Config("the step size must be positive".into()));
        }
        Ok(())
    }

    /// The weights at point `x` (one value per tuned term, in [`UNIT`]s).
    /// A coordinate equal to the start point's is the initial weight
    /// exactly: `(w / UNIT) * UNIT` can miss `w` by an ulp, and an ulp is
    /// enough to move a beam to another plateau (the 86-record weights with
    /// `holes` one ulp higher reach 35 lines at width 10,000 with the
    /// lookahead, where the exact weights reach 42), so the start point
    /// would not measure the start weights.
    pub fn weights_at(&self, x: &[f64]) -> Weights {
        let mut w = self.initial;
        for ((name, v), v0) in self.terms.iter().zip(x).zip(self.x0()) {
            if v.to_bits() != v0.to_bits() {
                w.set(name, v * UNIT);
            }
        }
        w
    }

    /// The start point of a folder that tunes `net`, or the weights.
    pub fn start_point(&self, net: Option<&Net>) -> Vec<f64> {
        match net {
            Some(net) => super::net::x0(net, &self.terms),
            None => self.x0(),
        }
    }

    /// The start point (weights).
    pub fn x0(&self) -> Vec<f64> {
        self.terms
            .iter()
            .map(|t| self.initial.get(t).expect("checked") / UNIT)
            .collect()
    }
}

/// One logged evaluation (`evaluations.jsonl`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Evaluation {
    /// Which evaluation this was (0: the start weights).
    pub index: usize,
    /// The CMA-ES generation that asked for it (0: the start weights).
    pub generation: usize,
    /// The point, in [`UNIT`]s.
    pub x: Vec<f64>,
    /// The weights (absent when a net is tuned: its point `x` and the
    /// folder's start net make it, [`super::net::at`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<Weights>,
    /// The fitness.
    pub measured: Measured,
    /// Seconds it took.
    pub seconds: f64,
}

/// The latest tuner's session (`session.json`), written when it begins to
/// measure (after the reference game): what `status` reads its budget and
/// pace from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// The evaluations the tuner runs to (`--budget`), the start's
    /// included.
    pub budget: usize,
    /// When it began to measure, in seconds since the Unix epoch.
    pub started_unix_s: f64,
    /// Evaluations in the log then.
    pub logged_at_start: usize,
}

/// The session file of a tuning folder.
pub(super) fn session_path(dir: &Path) -> PathBuf {
    dir.join("session.json")
}

/// Records a session of `budget` evaluations beginning now, the log
/// holding `logged` of them.
pub(super) fn write_session(dir: &Path, budget: usize, logged: usize) -> Result<(), TuneError> {
    let started_unix_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let session = Session {
        budget,
        started_unix_s,
        logged_at_start: logged,
    };
    Ok(json::write(&session_path(dir), &session)?)
}

/// The settings file of a tuning folder.
pub fn settings_path(dir: &Path) -> PathBuf {
    crate::folder::Holds::Tuning.marker_path(dir)
}

/// The best weights file of a tuning folder.
pub fn best_path(dir: &Path) -> PathBuf {
    dir.join("best.toml")
}

/// The weights at CMA-ES's mean after the last whole generation
/// ([`super::Tuned::mean`]), in a folder that tunes weights.
pub fn mean_path(dir: &Path) -> PathBuf {
    dir.join("mean.toml")
}

/// Writes the weights or net at `x`, CMA-ES's mean after the last whole
/// generation, as [`mean_path`] or [`super::net::mean_paths`].
pub(super) fn write_mean(
    dir: &Path,
    settings: &TuneSettings,
    start_net: Option<&Net>,
    x: &[f64],
) -> Result<(), TuneError> {
    match start_net {
        Some(start) => {
            let (f32_path, nnue_path) = super::net::mean_paths(dir);
            super::net::at(start, &settings.terms, x).save_with_quantised(&f32_path, &nnue_path)?;
        }
        None => {
            let path = mean_path(dir);
            let head = "# hatetris tune: CMA-ES's mean after the last whole generation (not itself measured)\n";
            let toml = settings.weights_at(x).to_toml();
            write_atomic(&path, (head.to_string() + &toml).as_bytes()).map_err(io(&path))?;
        }
    }
    Ok(())
}

pub(super) fn log_path(dir: &Path) -> PathBuf {
    dir.join("evaluations.jsonl")
}

/// Every evaluation logged in `dir` (a torn last line is skipped).
pub fn evaluations(dir: &Path) -> Result<Vec<Evaluation>, TuneError> {
    Ok(json::read_lines(&log_path(dir))?)
}

/// Records `settings` in a new tuning folder `dir`, or checks that an
/// existing one was tuned with the same.
pub(super) fn settle_settings(dir: &Path, settings: &TuneSettings) -> Result<(), TuneError> {
    let spath = settings_path(dir);
    match json::read::<TuneSettings>(&spath)? {
        Some(old) if !folder::differences(&old, settings).is_empty() => {
            Err(TuneError::Config(format!(
                "{}: the folder was tuned with other settings (resume it with `hatetris tune {}` and no other flag than --budget and --threads)",
                spath.display(),
                dir.display()
            )))
        }
        Some(_) => Ok(()),
        None => Ok(json::write(&spath, settings)?),
    }
}

/// The log, the cache of measured points and the best so far, shared by
/// the parallel evaluations.
pub(super) struct Book {
    path: PathBuf,
    cache: HashMap<Vec<u64>, Evaluation>,
    pub(super) next_index: usize,
    pub(super) best: Option<Evaluation>,
}

/// A point's cache key: its exact bits.
fn key(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

impl Book {
    /// The book of the folder `dir`, from its log.
    pub(super) fn open(dir: &Path) -> Result<Book, TuneError> {
        let old = evaluations(dir)?;
        let path = log_path(dir);
        // Rewrite the log without a torn last line before appending.
        let text: String = old.iter().map(json::line).collect();
        write_atomic(&path, text.as_bytes()).map_err(io(&path))?;
        let mut book = Book {
            path,
            cache: HashMap::new(),
            next_index: 0,
            best: None,
        };
        for e in old {
            book.note(&e);
            book.next_index = book.next_index.max(e.index + 1);
            book.cache.insert(key(&e.x), e);
        }
        Ok(book)
    }

    /// The evaluation of point `x`, if it was measured.
    pub(super) fn get(&self, x: &[f64]) -> Option<&Evaluation> {
        self.cache.get(&key(x))
    }

    /// Points measured.
    pub(super) fn len(&self) -> usize {
        self.cache.len()
    }

    /// Whether `e` beats the best so far (the earliest wins a tie).
    pub(super) fn improves(&self, e: &Evaluation) -> bool {
        self.best
            .as_ref()
            .is_none_or(|b| e.measured.mean > b.measured.mean)
    }

    fn note(&mut self, e: &Evaluation) {
        if self.improves(e) {
            self.best = Some(e.clone());
        }
    }

    /// Logs the new evaluation `e` (synced) and keeps it; the book takes it
    /// even when the log could not be written.
    pub(super) fn add(&mut self, e: &Evaluation) -> Result<(), IoError> {
        let logged = json::append_line(&self.path, &json::line(e));
        self.note(e);
        self.cache.insert(key(&e.x), e.clone());
        logged
    }
}

/// Writes the best so far, `e`: its weights as `best.toml`, or its net as
/// `best.f32` and `best.nnue` (`net`: the evaluation's net), and
/// `best.json` with its fitness.
pub(super) fn write_best(
    dir: &Path,
    e: &Evaluation,
    net: Option<&Net>,
    unit: &str,
) -> Result<(), TuneError> {
    if let Some(w) = &e.weights {
        let path = best_path(dir);
        let head = format!(
            "# hatetris tune: evaluation {}, mean {:.3} {unit} (sd {:.3}) over {} starts\n",
            e.index,
            e.measured.mean,
            e.measured.sd,
            e.measured.per_start.len()
        );
        write_atomic(&path, (head + &w.to_toml()).as_bytes()).map_err(io(&path))?;
    }
    if let Some(net) = net {
        let (f32_path, nnue_path) = super::net::best_paths(dir);
        net.save_with_quantised(&f32_path, &nnue_path)?;
    }
    Ok(json::write(&dir.join("best.json"), e)?)
}
