//! Tuning the heuristic's weights with CMA-ES (`hatetris tune`), and the
//! fitness that `hatetris compare` reports for two evaluators.
//!
//! # The fitness
//! One search from the empty well is a poor fitness: at a fixed width its
//! score sits on plateaus (21-24, 32 and 41-44 lines at widths 2,000 to
//! 9,000), so two weight vectors a real step apart often score the same
//! and a tiny change can jump a plateau by luck. So a weight vector is
//! measured from several **start wells** taken from one **reference game**
//! at evenly spaced depths (depth 0, the empty well, is always one): from
//! each, a beam of the tuning width with the same lookahead plays
//! `pieces` pieces ([`crate::train::beam::reach_as_search`]: the search's
//! own order, so from the empty well it is the search itself; the first
//! runs used the trainer's beam, [`FitnessBeam`]), and the measure is the
//! most lines it cleared. The fitness is the mean over the starts, with
//! their standard deviation.
//!
//! Why this is a fair measure:
//! - every candidate meets exactly the same wells, so differences are the
//!   evaluator's, not the luck of the opening;
//! - the starts cover the whole game, the late and crowded wells as much
//!   as the opening, so weights that only open well do not win;
//! - the reference game is the starting weights' own game at the tuning
//!   width, recorded once in the folder, so the positions are ones this
//!   width actually reaches;
//! - a beam that dies early scores the lines it had, so survival counts.
//!
//! What it leaves out: loop prevention in a beam from a start well knows
//! only the wells since that start (the reference game's earlier wells are
//! not in its history). And a window of `pieces` pieces rewards clearing
//! within it, not what the well is worth afterwards. Measured: a tuning run
//! with 30-piece windows from 4 starts at width 10,000 with the lookahead
//! raised the fitness from 11.0 to 11.5 lines, and its weights then scored
//! 23 lines from the empty well against the start weights' 42
//! (`data/tune/w10k-q-p30-s4/`). So the default window is the whole game
//! (the beam plays until it dies): a fitness evaluation then costs about
//! one full search per start. The check that matters stays the full search
//! from the empty well.
//!
//! **A tie can move a beam to another plateau.** Moving the `holes`
//! weight of the 86-record weights by one ulp (11.2106 to
//! 11.210600000000001) changes which of two equal-cost wells survive a cut
//! at depth 14 of the width-10,000 lookahead search, and the game ends at
//! 35 lines instead of 42 (many weights share one magnitude, 83.7646, so
//! different wells can cost exactly the same). Two copies with every
//! weight moved by at most 10⁻⁹ of itself both still reached 42, so the
//! sensitivity is to particular ties, and how often it strikes is not yet
//! measured. `jitter` K plays K beams per start: the weights as given and
//! K − 1 copies with every weight moved by at most [`JITTER`] of itself
//! (fixed pseudo-random moves, so a measure is the same on every run),
//! and the fitness is the mean over all of them, at K times the cost.
//!
//! # The search
//! CMA-ES (the `cmaes` crate) over the named weights, each in units of
//! [`UNIT`] (the 86-record weights' common magnitude), so one step size
//! fits them all; the other weights stay at the start's values. The
//! candidates of a generation are measured in parallel on the caller's
//! rayon pool, one single-threaded beam per candidate.
//!
//! # The folder
//! - `tune.json`: the settings; a resume must agree with them;
//! - `reference/`: the reference game's run folder (an ordinary run);
//! - `evaluations.jsonl`: every evaluation, one JSON line each, synced as
//!   it is written;
//! - `best.toml`: the best weights so far, a weights file `search
//!   --weights` reads (written atomically after each improvement), and
//!   `best.json` with their fitness;
//! - `fitness.svg` and `fitness.png`: every evaluation's fitness, with
//!   the best so far, redrawn after each evaluation.
//!
//! A killed tuner resumes by running CMA-ES again from the same seed:
//! every candidate it asks for again is found in `evaluations.jsonl` (by
//! its exact bits) and not measured again, so it goes on where it stopped
//! and ends with the same weights as a tuner never stopped.

mod plot;

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use cmaes::{CMAESOptions, DVector};
use serde::{Deserialize, Serialize};

use crate::enemy::EnemyKind;
use crate::folder::atomic::write_atomic;
use crate::folder::{FolderError, FolderLock};
use crate::game::{Event, Game};
use crate::heuristic::{Knewjade, Weights, WEIGHT_NAMES};
use crate::key::Key;
use crate::run::keyframes::{self, KeyframeError, Pick};
use crate::run::{self, RunError};
use crate::search::{self, Adversary, Options, Search, SearchError, Silent};
use crate::train::beam::{self, Reached, Shape};
use crate::well::Well;

/// The scale of every tuned weight: one CMA-ES unit is this much cost
/// (the 86-record weights' enclosed-hole, surface and erasability weight).
pub const UNIT: f64 = 83.7646;

/// Why tuning could not go on.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// A file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        error: io::Error,
    },
    /// A setting or a file's content is wrong.
    #[error("{0}")]
    Config(String),
    /// The reference game's search.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// The reference run folder.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The tuning folder's lock.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// Rebuilding the reference game.
    #[error(transparent)]
    Keyframes(#[from] KeyframeError),
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> TuneError + '_ {
    move |error| TuneError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// How a weight vector is measured (see the module doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitnessSettings {
    /// Beam width.
    pub width: usize,
    /// The quiescent lookahead's depth, if on.
    pub quiescent: Option<u8>,
    /// Pieces played from each start well.
    pub pieces: u32,
    /// Number of start wells.
    pub starts: usize,
    /// Which beam plays from each start (a folder from before this field
    /// has the trainer's).
    #[serde(default)]
    pub beam: FitnessBeam,
    /// Beams per start: the weights as given, then `jitter − 1` copies with
    /// every weight moved by about [`JITTER`] of itself (1: no copies; a
    /// folder from before this field has 1). See the module doc.
    #[serde(default = "one")]
    pub jitter: usize,
}

fn one() -> usize {
    1
}

/// How far [`FitnessSettings::jitter`]'s copies move each weight, relative
/// to itself (at most).
pub const JITTER: f64 = 1e-9;

/// `w` with every weight moved by a fixed pseudo-random fraction of at
/// most [`JITTER`] of itself; copy 0 is `w`.
pub fn jittered(w: &Weights, copy: usize) -> Weights {
    let mut out = *w;
    if copy == 0 {
        return out;
    }
    for (i, name) in WEIGHT_NAMES.iter().enumerate() {
        let v = w.get(name).expect("a weight name");
        let h = crate::well::mix64(((copy as u64) << 32) | i as u64);
        // Uniform in [-1, 1).
        let r = (h >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        out.set(name, v * (1.0 + JITTER * r));
    }
    out
}

/// The beam the fitness plays from each start well.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FitnessBeam {
    /// The trainer's beam ([`beam::reach`]: ties broken by well before
    /// score, levels in cost order). From the empty well at width 10,000
    /// with the lookahead it reached 35 lines where the search reaches 42:
    /// another plateau, from ties alone. The first tuning runs used it.
    #[default]
    Trainer,
    /// The search's own order and levels ([`beam::reach_as_search`]): from
    /// the empty well, exactly what `hatetris search` reaches. New runs use
    /// it.
    Search,
}

/// A fitness ready to measure: its settings and the start wells.
#[derive(Clone, Debug)]
pub struct Fitness {
    /// The settings.
    pub settings: FitnessSettings,
    /// The start wells, with their depth in the reference game.
    pub starts: Vec<(u32, Well)>,
}

/// One weight vector's fitness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// What each start's beams reached, in start order (`jitter` beams
    /// per start, the unmoved weights' first).
    pub per_start: Vec<Reached>,
    /// Mean lines over the starts' beams (the fitness; higher is better).
    pub mean: f64,
    /// Their standard deviation (n − 1).
    pub sd: f64,
}

impl Fitness {
    /// The fitness from the wells of `game` (every well after each lock,
    /// the empty well first): `settings.starts` of them at evenly spaced
    /// depths, depth 0 first.
    pub fn new(settings: FitnessSettings, game: &[Well]) -> Result<Fitness, TuneError> {
        if settings.starts == 0 || game.is_empty() {
            return Err(TuneError::Config(
                "the fitness needs at least one start well".into(),
            ));
        }
        let n = settings.starts;
        let starts = (0..n)
            .map(|i| {
                let depth = i * game.len() / n;
                (depth as u32, game[depth])
            })
            .collect();
        Ok(Fitness { settings, starts })
    }

    /// Measures `weights` (`jitter` beams per start, in parallel on the
    /// current rayon pool).
    pub fn measure(&self, weights: &Weights) -> Measured {
        use rayon::prelude::*;
        let shape = Shape {
            width: self.settings.width,
            pieces: self.settings.pieces,
        };
        let copies = self.settings.jitter.max(1);
        let per_start: Vec<Reached> = (0..self.starts.len() * copies)
            .into_par_iter()
            .map(|i| {
                let (well, copy) = (&self.starts[i / copies].1, i % copies);
                let eval = Knewjade::new(jittered(weights, copy), self.settings.quiescent);
                match self.settings.beam {
                    FitnessBeam::Trainer => beam::reach(well, shape, &eval),
                    FitnessBeam::Search => beam::reach_as_search(well, shape, &eval),
                }
            })
            .collect();
        let lines: Vec<f64> = per_start.iter().map(|r| r.lines as f64).collect();
        let (mean, sd) = mean_sd(&lines);
        Measured {
            per_start,
            mean,
            sd,
        }
    }
}

/// Mean and sample standard deviation (0 for fewer than two values).
pub fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let sd = if xs.len() > 1 {
        (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    (mean, sd)
}

/// The wells of a replayed game: the empty well, then the well after each
/// lock that did not end the game.
pub fn wells_of(keys: &[Key]) -> Vec<Well> {
    let mut game = Game::new(EnemyKind::Hatetris);
    let mut wells = vec![game.well()];
    for &key in keys {
        match game.press(key) {
            Event::Locked { .. } => wells.push(game.well()),
            Event::GameOver { .. } | Event::Ignored => break,
            Event::Moved | Event::Blocked => {}
        }
    }
    wells
}

/// Plays the reference game: a search with `weights` from the empty well
/// in `dir` (resumed if it is there), then its deepest game rebuilt.
pub fn reference_game(
    dir: &Path,
    weights: &Weights,
    settings: &FitnessSettings,
    threads: usize,
) -> Result<Vec<Well>, TuneError> {
    let eval = Knewjade::new(*weights, settings.quiescent);
    let search = Search {
        width: settings.width,
        evaluator: &eval,
        adversary: Adversary::new(EnemyKind::Hatetris),
    };
    let opts = Options {
        max_depth: 100_000,
        threads,
        release_memory: None,
        asked_threads: Some(threads),
        stop: None,
        expander: None,
    };
    let result = if run::manifest_path(dir).exists() {
        search::resume(dir, &search, &opts, &Silent)?
    } else {
        if dir.exists() {
            fs::remove_dir_all(dir).map_err(io_error(dir))?;
        }
        search::start(dir, &search, &opts, &Silent)?
    };
    drop(result);
    let game = keyframes::reconstruct(dir, Pick::Deepest)?;
    let mut wells = vec![Well::EMPTY];
    wells.extend(game.wells);
    Ok(wells)
}

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
}

impl TuneSettings {
    /// Checks the settings.
    pub fn check(&self) -> Result<(), TuneError> {
        if self.terms.is_empty() {
            return Err(TuneError::Config("no weight to tune".into()));
        }
        for t in &self.terms {
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

    /// The start point.
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
    /// The weights.
    pub weights: Weights,
    /// The fitness.
    pub measured: Measured,
    /// Seconds it took.
    pub seconds: f64,
}

/// Hears of a tuner's progress; the library prints nothing.
pub trait TuneObserver: Sync {
    /// The reference game is ready: its length.
    fn reference(&self, pieces: usize) {
        let _ = pieces;
    }
    /// An evaluation finished (`fresh`: measured now, not read back from
    /// the log); `done` of `budget` evaluations are behind us.
    fn evaluated(&self, e: &Evaluation, fresh: bool, done: usize, budget: usize) {
        let _ = (e, fresh, done, budget);
    }
}

/// What a tuning run ended with.
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The start weights' evaluation.
    pub start: Evaluation,
    /// The best evaluation (the highest mean; ties: the earliest).
    pub best: Evaluation,
    /// Evaluations in the log.
    pub evaluations: usize,
    /// Why CMA-ES stopped.
    pub stopped: String,
}

/// The settings file of a tuning folder.
pub fn settings_path(dir: &Path) -> PathBuf {
    dir.join("tune.json")
}

/// The best weights file of a tuning folder.
pub fn best_path(dir: &Path) -> PathBuf {
    dir.join("best.toml")
}

/// Every evaluation logged in `dir` (a torn last line is skipped).
pub fn evaluations(dir: &Path) -> Result<Vec<Evaluation>, TuneError> {
    let path = dir.join("evaluations.jsonl");
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error(&path)(e)),
    };
    let mut out = Vec::new();
    for line in io::BufReader::new(file).lines() {
        let line = line.map_err(io_error(&path))?;
        if let Ok(e) = serde_json::from_str::<Evaluation>(&line) {
            out.push(e);
        }
    }
    Ok(out)
}

/// The log, the cache of measured points and the best so far, shared by
/// the parallel evaluations.
struct Book {
    file: File,
    path: PathBuf,
    cache: HashMap<Vec<u64>, Evaluation>,
    next_index: usize,
    best: Option<Evaluation>,
}

fn key(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

impl Book {
    fn open(dir: &Path) -> Result<Book, TuneError> {
        let old = evaluations(dir)?;
        let path = dir.join("evaluations.jsonl");
        // Rewrite the log without a torn last line before appending.
        let mut text = String::new();
        for e in &old {
            text.push_str(&serde_json::to_string(e).expect("plain data"));
            text.push('\n');
        }
        write_atomic(&path, text.as_bytes()).map_err(io_error(&path))?;
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(io_error(&path))?;
        let mut book = Book {
            file,
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

    fn note(&mut self, e: &Evaluation) {
        if self
            .best
            .as_ref()
            .is_none_or(|b| e.measured.mean > b.measured.mean)
        {
            self.best = Some(e.clone());
        }
    }

    fn append(&mut self, e: &Evaluation) -> io::Result<()> {
        let mut line = serde_json::to_string(e).expect("plain data");
        line.push('\n');
        self.file.write_all(line.as_bytes())?;
        self.file.sync_data()
    }
}

/// Runs (or resumes) the tuner in `dir` until `budget` evaluations (the
/// start weights' included) are in its log.
pub fn tune(
    dir: &Path,
    settings: &TuneSettings,
    budget: usize,
    threads: usize,
    observer: &dyn TuneObserver,
) -> Result<Tuned, TuneError> {
    settings.check()?;
    let _lock = FolderLock::take(dir)?;
    let spath = settings_path(dir);
    match fs::read(&spath) {
        Ok(bytes) => {
            let old: TuneSettings = serde_json::from_slice(&bytes)
                .map_err(|e| TuneError::Config(format!("{}: {e}", spath.display())))?;
            if &old != settings {
                return Err(TuneError::Config(format!(
                    "{}: the folder was tuned with other settings (resume it with `hatetris tune {}` and no other flag than --budget and --threads)",
                    spath.display(),
                    dir.display()
                )));
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let text = serde_json::to_string_pretty(settings).expect("plain data") + "\n";
            write_atomic(&spath, text.as_bytes()).map_err(io_error(&spath))?;
        }
        Err(e) => return Err(io_error(&spath)(e)),
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TuneError::Config(format!("cannot start {threads} threads: {e}")))?;
    let game = reference_game(
        &dir.join("reference"),
        &settings.initial,
        &settings.fitness,
        threads,
    )?;
    observer.reference(game.len() - 1);
    let fitness = Fitness::new(settings.fitness.clone(), &game)?;
    let book = Mutex::new(Book::open(dir)?);
    let generation = std::sync::atomic::AtomicUsize::new(0);
    let failure: Mutex<Option<TuneError>> = Mutex::new(None);
    let evaluate = |x: &[f64], generation: usize| -> Evaluation {
        if let Some(e) = book.lock().expect("not poisoned").cache.get(&key(x)) {
            return e.clone();
        }
        let weights = settings.weights_at(x);
        let clock = Instant::now();
        let measured = fitness.measure(&weights);
        let mut b = book.lock().expect("not poisoned");
        let e = Evaluation {
            index: b.next_index,
            generation,
            x: x.to_vec(),
            weights,
            measured,
            seconds: clock.elapsed().as_secs_f64(),
        };
        b.next_index += 1;
        if let Err(error) = b.append(&e) {
            let path = b.path.clone();
            *failure.lock().expect("not poisoned") = Some(TuneError::Io { path, error });
        }
        let improved = b
            .best
            .as_ref()
            .is_none_or(|o| e.measured.mean > o.measured.mean);
        b.note(&e);
        b.cache.insert(key(x), e.clone());
        if improved {
            if let Err(err) = write_best(dir, &e) {
                *failure.lock().expect("not poisoned") = Some(err);
            }
        }
        // The picture after every evaluation (a few milliseconds), so it
        // is current whenever the tuner is stopped.
        if let Err(err) = plot::draw(dir) {
            *failure.lock().expect("not poisoned") = Some(err);
        }
        e
    };
    let done = |b: &Book| b.cache.len();
    // The start weights first: the "before" of the note.
    let x0 = settings.x0();
    let start = pool.install(|| evaluate(&x0, 0));
    observer.evaluated(
        &start,
        true,
        done(&book.lock().expect("not poisoned")),
        budget,
    );
    let objective = |x: &DVector<f64>| -> f64 {
        let g = generation.load(std::sync::atomic::Ordering::Relaxed);
        let known = book
            .lock()
            .expect("not poisoned")
            .cache
            .contains_key(&key(x.as_slice()));
        let e = evaluate(x.as_slice(), g);
        observer.evaluated(
            &e,
            !known,
            done(&book.lock().expect("not poisoned")),
            budget,
        );
        -e.measured.mean
    };
    let mut options = CMAESOptions::new(x0.clone(), settings.sigma)
        .seed(settings.seed)
        .max_function_evals(budget.saturating_sub(1).max(1))
        .tol_fun(0.0)
        .tol_fun_hist(0.0)
        .tol_fun_rel(0.0)
        .tol_stagnation(usize::MAX / 2);
    if let Some(p) = settings.population {
        options = options.population_size(p);
    }
    let mut cmaes = options
        .build(objective)
        .map_err(|e| TuneError::Config(format!("CMA-ES: {e:?}")))?;
    let stopped = loop {
        generation.store(cmaes.generation() + 1, std::sync::atomic::Ordering::Relaxed);
        let step = pool.install(|| cmaes.next_parallel());
        if let Some(err) = failure.lock().expect("not poisoned").take() {
            return Err(err);
        }
        if let Some(t) = step {
            break format!("{:?}", t.reasons);
        }
        if done(&book.lock().expect("not poisoned")) >= budget {
            break "budget".to_string();
        }
    };
    drop(cmaes);
    plot::draw(dir)?;
    let b = book.into_inner().expect("not poisoned");
    let best = b.best.clone().expect("the start was measured");
    Ok(Tuned {
        start,
        best,
        evaluations: b.cache.len(),
        stopped,
    })
}

/// Writes `best.toml` and `best.json` for `e`.
fn write_best(dir: &Path, e: &Evaluation) -> Result<(), TuneError> {
    let path = best_path(dir);
    let head = format!(
        "# hatetris tune: evaluation {}, mean {:.3} lines (sd {:.3}) over {} starts\n",
        e.index,
        e.measured.mean,
        e.measured.sd,
        e.measured.per_start.len()
    );
    write_atomic(&path, (head + &e.weights.to_toml()).as_bytes()).map_err(io_error(&path))?;
    let path = dir.join("best.json");
    let text = serde_json::to_string_pretty(e).expect("plain data") + "\n";
    write_atomic(&path, text.as_bytes()).map_err(io_error(&path))
}
