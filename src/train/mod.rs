//! The generational trainer: master beams make the data, training beams
//! make the targets, and each generation's net is fitted to them.
//!
//! # A generation
//! Generation `g` of a training folder `DIR` lives in `DIR/gen-NNN/`:
//! 1. **master**: a beam search from the empty well with the current
//!    evaluator and the quiescent lookahead, into `master/` (an ordinary
//!    run folder, so it resumes and verifies like any other). The current
//!    evaluator is the knewjade heuristic for generation 0, and otherwise
//!    the previous generation's net (or the `--from` net). Its score, depth
//!    and time go to `master.json`;
//! 2. **samples**: wells drawn from every depth of the master beam, the
//!    same number from each (so late, steady-state depths count as much as
//!    the crowded early ones), without replacement within a depth, each
//!    followed by `children` of its random children (the beam must also
//!    rank the placements it throws away, which a master beam's kept wells
//!    never show), and by the best point of its lookahead chains (where
//!    the lookahead will read the net), into `samples.bin` ([`data`]);
//! 3. **targets**, into `targets.bin`:
//!    - generation 0 (from scratch) learns the heuristic: the target is the
//!      heuristic's cost at score 0, negated and standardised over the
//!      samples (`units.json` keeps the mean and the spread), so the first
//!      net already ranks wells as the heuristic does; the net's line
//!      weight is the heuristic's on the same scale;
//!    - a later generation runs a [training beam](beam) from each sample
//!      with the current net (no lookahead, loop prevention on): the
//!      target is `lost_value` if the beam dies, otherwise the best value it
//!      reaches. The targets are saved every chunk
//!      (`targets-partial.bin`), so a kill loses at most one chunk;
//! 4. **fit**: the next net is fitted to the targets ([`fit`]), starting
//!    from the current net (from fresh weights in generation 0), and saved
//!    as `net.f32` (to train on) and `net.nnue` (to search with), with the
//!    losses in `fit.json`;
//! 5. the generation's figures go to `generation.json`, one line to
//!    `DIR/log.jsonl`, and the picture `DIR/progress.svg` is redrawn.
//!
//! After the last generation, the master beam of the next one is run too,
//! so that every trained net has a score.
//!
//! # Resuming
//! Each step's result is a file written under a temporary name, synced and
//! renamed, and a step whose file exists is not run again. So `hatetris
//! train DIR` after a kill goes on from the step it was in (a master beam
//! from its last depth, targets from their last chunk, a fit from its
//! start). Everything is seeded and every parallel step collects its
//! results in order, so a resumed trainer makes the same files as one that
//! was never stopped. The folder is locked while a trainer works in it.
//!
//! The settings are in `DIR/train.json`; the `--from` net, if any, is
//! copied into the folder, so the folder alone is enough to go on.

pub mod beam;
pub mod data;
pub mod fit;
mod plot;

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::enemy::mild_choice;
use crate::evaluate::{best_along_chain, Evaluator, Lookahead};
use crate::heuristic::{Knewjade, Weights};
use crate::movegen::MoveGen;
use crate::nnue::{Layout, Net, NetError, NetEvaluator, QuantNet, Rng, Sample};
use crate::run::atomic::write_atomic;
use crate::run::store::{DepthFile, StoreError};
use crate::run::{self, RunError, RunLock};
use crate::search::{self, Adversary, Observer, Options, Search, SearchError};
use crate::well::Well;
use crate::EnemyKind;

pub use beam::Shape;
pub use data::Sampled;
pub use fit::{Epoch, FitConfig};

/// Everything that decides what a training folder computes. Stored in
/// `DIR/train.json`; a resumed trainer uses it unchanged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Hidden units of a fresh net.
    pub hidden: usize,
    /// The master beam's width.
    pub master_width: usize,
    /// The master beam stops at this depth if it has not died.
    pub master_depth: u32,
    /// The master beam's lookahead depth (chains of clears).
    pub quiescent: u8,
    /// Wells sampled per generation from the master beam.
    pub samples: usize,
    /// Wells sampled for the generation that learns the heuristic: its
    /// targets cost next to nothing, and the finer its fit, the closer the
    /// first net plays to the heuristic.
    #[serde(default)]
    pub heuristic_samples: usize,
    /// Children added per sampled well: random children of the piece
    /// HATETRIS Mild would give it, so the net also sees the bad
    /// placements the beam must rank low, not only the wells it kept.
    #[serde(default)]
    pub children: usize,
    /// Adds each sample's best lookahead chain point (see the module doc).
    #[serde(default)]
    pub chain_points: bool,
    /// The training beams.
    pub beam: Shape,
    /// The target of a sample whose training beam dies.
    pub lost_value: f64,
    /// The fit.
    pub fit: FitConfig,
    /// The seed of every random choice.
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            hidden: 64,
            master_width: 10_000,
            master_depth: 10_000,
            quiescent: crate::evaluate::DEFAULT_QUIESCENT_DEPTH,
            samples: 20_000,
            heuristic_samples: 500_000,
            children: 1,
            chain_points: true,
            beam: Shape {
                width: 50,
                pieces: 10,
            },
            lost_value: -4.0,
            fit: FitConfig::default(),
            seed: 1,
        }
    }
}

/// The heuristic's scale, measured on generation 0's samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Units {
    /// Mean heuristic cost (score 0) over the samples.
    pub mean: f64,
    /// Its standard deviation: one value unit.
    pub spread: f64,
    /// The heuristic's line weight in value units.
    pub line_weight: f64,
}

/// A master beam's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Master {
    /// The evaluator, as the run folder records it.
    pub evaluator: String,
    /// The best score.
    pub score: u16,
    /// The depth of the best game.
    pub best_depth: u32,
    /// The last depth searched.
    pub depth: u32,
    /// Whether the beam died out (or stopped at the depth cap).
    pub exhausted: bool,
    /// Wall seconds (summed over resumes).
    pub seconds: f64,
}

/// One generation's figures, `generation.json` and a line of the log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    /// The generation.
    pub generation: u32,
    /// Its master beam (the previous net's play).
    pub master: Master,
    /// Wells sampled.
    pub samples: usize,
    /// Training beams that died (0 in generation 0).
    pub died: usize,
    /// The targets' mean.
    pub target_mean: f64,
    /// The targets' standard deviation.
    pub target_std: f64,
    /// Seconds spent on samples and targets.
    pub data_seconds: f64,
    /// Seconds spent fitting (one thread).
    pub fit_seconds: f64,
    /// Epochs run, and the one kept.
    pub epochs: u32,
    /// The kept epoch.
    pub best_epoch: u32,
    /// The kept net's training loss.
    pub train_loss: f64,
    /// The kept net's validation loss.
    pub validation_loss: f64,
    /// Core-seconds: the parallel phases' wall time times the threads,
    /// plus the fit's.
    pub core_seconds: f64,
    /// The threads of the run that made it.
    pub threads: usize,
}

/// The steps of a generation, for progress reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The master beam.
    Master,
    /// Sampling wells.
    Samples,
    /// Training beams (or the heuristic's values).
    Targets,
    /// Fitting the net.
    Fit,
}

impl Phase {
    /// Its name in logs.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Master => "master beam",
            Phase::Samples => "samples",
            Phase::Targets => "targets",
            Phase::Fit => "fit",
        }
    }
}

/// Hears of the trainer's progress (the library prints nothing). The
/// master beams report through the search's [`Observer`].
pub trait TrainObserver: Observer {
    /// A step starts, with `total` units of work (0 when unknown).
    fn phase(&self, generation: u32, phase: Phase, total: u64) {
        let _ = (generation, phase, total);
    }
    /// A step was already done (found on disk).
    fn done_before(&self, generation: u32, phase: Phase) {
        let _ = (generation, phase);
    }
    /// `n` more units of the current step are done.
    fn advanced(&self, n: u64) {
        let _ = n;
    }
    /// An epoch ended.
    fn epoch(&self, generation: u32, epoch: &Epoch) {
        let _ = (generation, epoch);
    }
    /// A master beam ended.
    fn master(&self, generation: u32, master: &Master) {
        let _ = (generation, master);
    }
    /// A generation ended.
    fn generation(&self, generation: &Generation) {
        let _ = generation;
    }
}

impl TrainObserver for search::Silent {}

/// Why training could not go on. Every message is one line.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A master beam's run folder.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// A run folder or depth file.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A net file.
    #[error(transparent)]
    Net(#[from] NetError),
    /// A data file.
    #[error(transparent)]
    Data(#[from] data::DataError),
    /// The settings file.
    #[error("{path}: {why}")]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// Targets that cannot teach anything.
    #[error("generation {generation}: all {count} targets are about {value} (standard deviation {std:e}); a fit to them would learn nothing")]
    FlatTargets {
        /// The generation.
        generation: u32,
        /// How many.
        count: usize,
        /// Their mean.
        value: f64,
        /// Their standard deviation.
        std: f64,
    },
    /// A master beam with no wells to sample.
    #[error("generation {0}: the master beam has no depth to sample from")]
    NoSamples(u32),
    /// Worker threads could not start.
    #[error("cannot start {threads} threads: {reason}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// Why.
        reason: String,
    },
}

impl From<StoreError> for TrainError {
    fn from(e: StoreError) -> TrainError {
        TrainError::Run(e.into())
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> TrainError + '_ {
    move |source| TrainError::Io {
        path: path.to_path_buf(),
        source,
    }
}

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

const FROM_F32: &str = "from.f32";

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
fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>, TrainError> {
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

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), TrainError> {
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

/// What a call to [`train`] did.
#[derive(Clone, Debug)]
pub struct Report {
    /// Every finished generation.
    pub generations: Vec<Generation>,
    /// The master beam of the last net, if it was run.
    pub last_master: Option<Master>,
    /// The last net made, if any.
    pub last_net: Option<PathBuf>,
}

/// Trains in `dir` until `generations` generations are done (and the last
/// net's master beam is run). A new folder takes `config` (and the start
/// net `from`, copied in); an existing one goes on with its own settings,
/// and `config` must then be `None` or equal them.
pub fn train(
    dir: &Path,
    config: Option<&Config>,
    from: Option<&Net>,
    generations: u32,
    threads: usize,
    observer: &dyn TrainObserver,
) -> Result<Report, TrainError> {
    fs::create_dir_all(dir).map_err(io_error(dir))?;
    let _lock = RunLock::take(dir)?;
    // A crash's temporary files, in the folder and in its generations.
    run::remove_temporaries(dir)?;
    for g in 0.. {
        let gen = generation_dir(dir, g);
        if !gen.is_dir() {
            break;
        }
        run::remove_temporaries(&gen)?;
    }
    let config = match (read_config(dir)?, config) {
        (Some(stored), Some(asked)) if stored != *asked => {
            return Err(TrainError::Config {
                path: config_path(dir),
                why: format!(
                    "this folder was started with other settings ({}); run without them to go on",
                    differences(&stored, asked)
                ),
            })
        }
        (Some(stored), _) => {
            if from.is_some() {
                return Err(TrainError::Config {
                    path: config_path(dir),
                    why: "this folder was already started; --from only starts a new one".into(),
                });
            }
            stored
        }
        (None, asked) => {
            let config = asked.cloned().unwrap_or_default();
            if let Some(net) = from {
                net.save(&dir.join(FROM_F32))?;
            }
            write_json(&config_path(dir), &config)?;
            config
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TrainError::Threads {
            threads,
            reason: e.to_string(),
        })?;
    let trainer = Generations {
        dir,
        config: &config,
        threads,
        observer,
    };
    pool.install(|| trainer.run(generations))
}

/// The differing settings, `name: stored, not asked`.
fn differences(stored: &Config, asked: &Config) -> String {
    let a = serde_json::to_value(stored).expect("plain data");
    let b = serde_json::to_value(asked).expect("plain data");
    let mut out = Vec::new();
    flat_differences("", &a, &b, &mut out);
    out.join(", ")
}

fn flat_differences(
    prefix: &str,
    a: &serde_json::Value,
    b: &serde_json::Value,
    out: &mut Vec<String>,
) {
    match (a, b) {
        (serde_json::Value::Object(x), serde_json::Value::Object(y)) => {
            for (k, v) in x {
                let name = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flat_differences(&name, v, y.get(k).unwrap_or(&serde_json::Value::Null), out);
            }
        }
        _ if a != b => out.push(format!("{prefix} {a}, not {b}")),
        _ => {}
    }
}

struct Generations<'a> {
    dir: &'a Path,
    config: &'a Config,
    threads: usize,
    observer: &'a dyn TrainObserver,
}

impl Generations<'_> {
    fn run(&self, generations: u32) -> Result<Report, TrainError> {
        for g in 0..generations {
            if generation_dir(self.dir, g).join("generation.json").exists() {
                continue;
            }
            let summary = self.generation(g)?;
            self.log(&serde_json::json!({"event": "generation", "summary": summary}))?;
            write_json(
                &generation_dir(self.dir, g).join("generation.json"),
                &summary,
            )?;
            self.observer.generation(&summary);
            self.plot()?;
        }
        // The last net's own master beam, so that it has a score too.
        let last_master = if generations > 0 {
            let m = self.master(generations)?;
            self.plot()?;
            Some(m)
        } else {
            None
        };
        let last_net = generations
            .checked_sub(1)
            .map(|g| net_path(self.dir, g))
            .filter(|p| p.exists());
        Ok(Report {
            generations: self::generations(self.dir)?,
            last_master,
            last_net,
        })
    }

    fn gen_dir(&self, g: u32) -> PathBuf {
        generation_dir(self.dir, g)
    }

    /// Whether generation `g` learns the heuristic (the first generation of
    /// a folder started without `--from`).
    fn learns_heuristic(&self, g: u32) -> bool {
        g == 0 && !self.dir.join(FROM_F32).exists()
    }

    /// The f32 net generation `g` starts from, if it starts from one.
    fn start_net(&self, g: u32) -> Result<Option<Net>, TrainError> {
        if g == 0 {
            let from = self.dir.join(FROM_F32);
            return Ok(if from.exists() {
                Some(Net::load(&from)?)
            } else {
                None
            });
        }
        Ok(Some(Net::load(&self.gen_dir(g - 1).join("net.f32"))?))
    }

    /// The quantised form of the net generation `g` starts from.
    fn start_evaluator(&self, g: u32) -> Result<Option<NetEvaluator>, TrainError> {
        Ok(match self.start_net(g)? {
            Some(net) => Some(NetEvaluator::new(QuantNet::from_net(&net)?)),
            None => None,
        })
    }

    fn generation(&self, g: u32) -> Result<Generation, TrainError> {
        fs::create_dir_all(self.gen_dir(g)).map_err(io_error(&self.gen_dir(g)))?;
        let master = self.master(g)?;
        let started = Instant::now();
        let samples = self.samples(g, &master)?;
        let (targets, died) = self.targets(g, &samples)?;
        let data_seconds = started.elapsed().as_secs_f64();
        let (mean, std) = mean_std(&targets);
        if std.is_nan() || std <= 1e-6 {
            return Err(TrainError::FlatTargets {
                generation: g,
                count: targets.len(),
                value: mean,
                std,
            });
        }
        let started = Instant::now();
        let fitted = self.fit(g, &samples, &targets)?;
        let fit_seconds = started.elapsed().as_secs_f64();
        let kept = fitted
            .epochs
            .iter()
            .find(|e| e.epoch == fitted.best_epoch)
            .copied()
            .expect("the kept epoch is listed");
        Ok(Generation {
            generation: g,
            core_seconds: (master.seconds + data_seconds) * self.threads as f64 + fit_seconds,
            master,
            samples: samples.len(),
            died,
            target_mean: mean,
            target_std: std,
            data_seconds,
            fit_seconds,
            epochs: fitted.epochs.last().map_or(0, |e| e.epoch),
            best_epoch: fitted.best_epoch,
            train_loss: kept.train_loss,
            validation_loss: kept.validation_loss,
            threads: self.threads,
        })
    }

    /// Step 1: the master beam of generation `g`.
    fn master(&self, g: u32) -> Result<Master, TrainError> {
        let path = self.gen_dir(g).join("master.json");
        if let Some(m) = read_json::<Master>(&path)? {
            self.observer.done_before(g, Phase::Master);
            return Ok(m);
        }
        fs::create_dir_all(self.gen_dir(g)).map_err(io_error(&self.gen_dir(g)))?;
        self.observer.phase(g, Phase::Master, 0);
        let heuristic;
        let net;
        let evaluator: &dyn Evaluator = match self.start_evaluator(g)? {
            None => {
                heuristic = Knewjade::new(Weights::dnf86(), Some(self.config.quiescent));
                &heuristic
            }
            Some(e) => {
                net = Lookahead::new(e, self.config.quiescent);
                &net
            }
        };
        let search = Search {
            width: self.config.master_width,
            evaluator,
            adversary: Adversary::new(EnemyKind::Hatetris),
        };
        let opts = Options {
            max_depth: self.config.master_depth,
            threads: self.threads,
            release_memory: None,
        };
        let dir = self.gen_dir(g).join("master");
        let started = Instant::now();
        let before: f64 = self.partial_master_seconds(&dir);
        let result = if run::manifest_path(&dir).exists() {
            search::resume(&dir, &search, &opts, self.observer)?
        } else {
            if dir.exists() {
                // Killed before its manifest: nothing in it is a run yet.
                fs::remove_dir_all(&dir).map_err(io_error(&dir))?;
            }
            search::start(&dir, &search, &opts, self.observer)?
        };
        let m = Master {
            evaluator: search.settings().evaluator.canonical(),
            score: result.best.score,
            best_depth: result.best.depth,
            depth: result.depth,
            exhausted: result.exhausted,
            seconds: before + started.elapsed().as_secs_f64(),
        };
        drop(result);
        write_json(&path, &m)?;
        self.log(&serde_json::json!({"event": "master", "generation": g, "master": m}))?;
        self.observer.master(g, &m);
        Ok(m)
    }

    /// The seconds a killed master beam had already spent (from its
    /// manifest's depths).
    fn partial_master_seconds(&self, dir: &Path) -> f64 {
        run::read_manifest(dir)
            .map(|m| m.depths.iter().map(|d| d.elapsed_s).sum())
            .unwrap_or(0.0)
    }

    /// Step 2: wells from every depth of the master beam, the same count
    /// from each.
    fn samples(&self, g: u32, master: &Master) -> Result<Vec<Sampled>, TrainError> {
        let path = self.gen_dir(g).join("samples.bin");
        if path.exists() {
            self.observer.done_before(g, Phase::Samples);
            return Ok(data::load_samples(&path)?);
        }
        let depths = master.depth;
        if depths == 0 {
            return Err(TrainError::NoSamples(g));
        }
        self.observer.phase(g, Phase::Samples, u64::from(depths));
        let dir = self.gen_dir(g).join("master");
        let want = if self.learns_heuristic(g) {
            self.config.heuristic_samples.max(self.config.samples)
        } else {
            self.config.samples
        };
        let mut rng = Rng::new(self.config.seed ^ (0x5A3D_u64 << 32) ^ u64::from(g));
        let mut out = Vec::with_capacity(want * (1 + self.config.children));
        let mut children = Vec::new();
        for d in 1..=depths {
            let quota =
                want / depths as usize + usize::from((d as usize) <= want % depths as usize);
            let file = DepthFile::open(&run::depth_path(&dir, d))?;
            let mut indices: Vec<u32> = (0..file.len() as u32).collect();
            if quota < indices.len() {
                // The first `quota` of a partial Fisher-Yates shuffle.
                for i in 0..quota {
                    let j = i + rng.below(indices.len() - i);
                    indices.swap(i, j);
                }
                indices.truncate(quota);
                indices.sort_unstable();
            }
            for w in file.wells_at(&indices)? {
                let well = w.unpack();
                out.push(Sampled { well, depth: d });
                let gen = MoveGen::new(&well);
                children.clear();
                gen.children(mild_choice(&gen), &mut children);
                for _ in 0..self.config.children.min(children.len()) {
                    let c = children.swap_remove(rng.below(children.len()));
                    out.push(Sampled {
                        well: c.well,
                        depth: d + 1,
                    });
                }
            }
            self.observer.advanced(1);
        }
        if self.config.chain_points {
            out = self.with_chain_points(g, out)?;
        }
        data::save_samples(&path, &out)?;
        Ok(out)
    }

    /// Each sample followed by the best point of its lookahead chains under
    /// the current evaluator, where the chains lead anywhere: the lookahead
    /// takes the lowest cost along a chain, so a net that overrates such
    /// wells is picked up on exactly its errors.
    fn with_chain_points(&self, g: u32, samples: Vec<Sampled>) -> Result<Vec<Sampled>, TrainError> {
        let depth = self.config.quiescent;
        let knewjade = Knewjade::new(Weights::dnf86(), Some(depth));
        let net = self.start_evaluator(g)?;
        let inner: &dyn Evaluator = match &net {
            Some(e) => e,
            None => knewjade.heuristic(),
        };
        let points: Vec<Option<Well>> = samples
            .par_iter()
            .map(|s| {
                let best = best_along_chain(inner, &s.well, 0, depth);
                (best.steps > 0).then_some(best.well)
            })
            .collect();
        let mut out = Vec::with_capacity(samples.len() * 2);
        for (s, p) in samples.into_iter().zip(points) {
            out.push(s);
            if let Some(well) = p {
                out.push(Sampled {
                    well,
                    depth: s.depth,
                });
            }
        }
        Ok(out)
    }

    /// Step 3: each sample's target, and how many training beams died.
    fn targets(&self, g: u32, samples: &[Sampled]) -> Result<(Vec<f32>, usize), TrainError> {
        let path = self.gen_dir(g).join("targets.bin");
        let lost = self.config.lost_value as f32;
        let died = |t: &[f32]| t.iter().filter(|&&x| x == lost).count();
        if path.exists() {
            self.observer.done_before(g, Phase::Targets);
            let t = data::load_targets(&path)?;
            let d = if self.learns_heuristic(g) {
                0
            } else {
                died(&t)
            };
            return Ok((t, d));
        }
        self.observer.phase(g, Phase::Targets, samples.len() as u64);
        if self.learns_heuristic(g) {
            let targets = self.heuristic_targets(g, samples)?;
            data::save_targets(&path, &targets)?;
            return Ok((targets, 0));
        }
        let eval = self
            .start_evaluator(g)?
            .expect("a generation after the first starts from a net");
        let partial = self.gen_dir(g).join("targets-partial.bin");
        let mut targets = if partial.exists() {
            data::load_targets(&partial)?
        } else {
            Vec::new()
        };
        targets.truncate(samples.len());
        self.observer.advanced(targets.len() as u64);
        let shape = self.config.beam;
        while targets.len() < samples.len() {
            let chunk = &samples[targets.len()..(targets.len() + CHUNK).min(samples.len())];
            let values: Vec<f32> = chunk
                .par_iter()
                .map(|s| {
                    let t = match beam::run(&s.well, shape, &eval, |w| eval.value(w)) {
                        beam::Outcome::Died { .. } => lost,
                        beam::Outcome::Survived { best } => best as f32,
                    };
                    self.observer.advanced(1);
                    t
                })
                .collect();
            targets.extend(values);
            data::save_targets(&partial, &targets)?;
        }
        data::save_targets(&path, &targets)?;
        let _ = fs::remove_file(&partial);
        let d = died(&targets);
        Ok((targets, d))
    }

    /// Generation 0's targets: the heuristic's standardised values. Fixes
    /// the value units (`units.json`).
    fn heuristic_targets(&self, g: u32, samples: &[Sampled]) -> Result<Vec<f32>, TrainError> {
        let knewjade = Knewjade::new(Weights::dnf86(), Some(self.config.quiescent));
        let h = knewjade.heuristic();
        let costs: Vec<f64> = samples.par_iter().map(|s| h.cost(&s.well, 0.0)).collect();
        self.observer.advanced(samples.len() as u64);
        let (mean, spread) = mean_std_f64(&costs);
        let spread = if spread > 0.0 { spread } else { 1.0 };
        let units = Units {
            mean,
            spread,
            line_weight: -h.weights().score / spread,
        };
        write_json(&self.gen_dir(g).join("units.json"), &units)?;
        Ok(costs
            .iter()
            .map(|c| (-(c - mean) / spread) as f32)
            .collect())
    }

    /// Step 4: the next net, fitted to the targets.
    fn fit(&self, g: u32, samples: &[Sampled], targets: &[f32]) -> Result<fit::Fitted, TrainError> {
        let dir = self.gen_dir(g);
        let f32_path = dir.join("net.f32");
        let fit_path = dir.join("fit.json");
        if let (true, Some(record)) = (f32_path.exists(), read_json::<FitRecord>(&fit_path)?) {
            if dir.join("net.nnue").exists() {
                self.observer.done_before(g, Phase::Fit);
                return Ok(fit::Fitted {
                    net: Net::load(&f32_path)?,
                    epochs: record.epochs,
                    best_epoch: record.best_epoch,
                    split: record.split,
                });
            }
        }
        let start = match self.start_net(g)? {
            Some(net) => net,
            None => {
                let units: Units =
                    read_json(&dir.join("units.json"))?.ok_or_else(|| TrainError::Config {
                        path: dir.join("units.json"),
                        why: "missing (the targets of generation 0 write it)".into(),
                    })?;
                Net::new(
                    self.config.hidden,
                    Layout::Shared,
                    units.line_weight,
                    self.config.seed ^ u64::from(g),
                )?
            }
        };
        let batch: Vec<Sample> = samples
            .iter()
            .zip(targets)
            .map(|(s, &t)| Sample {
                well: s.well,
                target: t,
            })
            .collect();
        self.observer
            .phase(g, Phase::Fit, u64::from(self.config.fit.max_epochs));
        let mut log_error = None;
        let fitted = fit::fit(
            start,
            &batch,
            &self.config.fit,
            self.config.seed ^ mix(g),
            |e| {
                self.observer.epoch(g, e);
                if e.epoch > 0 {
                    self.observer.advanced(1);
                }
                if let Err(err) =
                    self.log(&serde_json::json!({"event": "epoch", "generation": g, "epoch": e}))
                {
                    log_error.get_or_insert(err);
                }
            },
        );
        if let Some(err) = log_error {
            return Err(err);
        }
        let quant = QuantNet::from_net(&fitted.net)?;
        fitted.net.save(&f32_path)?;
        quant.save(&dir.join("net.nnue"))?;
        write_json(
            &fit_path,
            &FitRecord {
                epochs: fitted.epochs.clone(),
                best_epoch: fitted.best_epoch,
                split: fitted.split,
                error_bound: quant.error_bound(),
            },
        )?;
        Ok(fitted)
    }

    /// Appends one JSON line to the log, synced.
    fn log(&self, value: &serde_json::Value) -> Result<(), TrainError> {
        let path = log_path(self.dir);
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

    fn plot(&self) -> Result<(), TrainError> {
        let path = plot_path(self.dir);
        let svg = plot::draw(self.dir)?;
        write_atomic(&path, svg.as_bytes()).map_err(io_error(&path))
    }
}

/// Targets are computed and saved in chunks of this many samples.
const CHUNK: usize = 2048;

fn mix(g: u32) -> u64 {
    crate::search::ancestry::mix64(u64::from(g) + 0x7461_7267)
}

/// `fit.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct FitRecord {
    epochs: Vec<Epoch>,
    best_epoch: u32,
    split: (usize, usize),
    /// The quantised net's largest difference from the f32 net's value.
    error_bound: f64,
}

fn mean_std(values: &[f32]) -> (f64, f64) {
    let v: Vec<f64> = values.iter().map(|&x| f64::from(x)).collect();
    mean_std_f64(&v)
}

fn mean_std_f64(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}
