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
//!      samples (`units.json` keeps the mean and the spread), and the net's
//!      line weight is the heuristic's on the same scale. (Measured: the
//!      first net fits the heuristic to R² 0.965 on held-out wells, yet
//!      plays worse, 26 lines against 42 at width 10,000; the next
//!      generation's net scored 59. See `data/nets/README.md`.)
//!    - a later generation runs a training beam (a small search,
//!      [`crate::search::small::survive`], against HATETRIS) from each
//!      sample with the current net (loop prevention on; the net alone, or
//!      with [`Config::beam_lookahead`] the lookahead, as the master beam
//!      and the gate rank: the one setting of twelve that gave a candidate
//!      as good as its champion, `data/train/README.md`): the target is
//!      `lost_value` if the beam dies, otherwise the net's best value among
//!      the wells it reaches. The targets are saved every chunk
//!      (`targets-partial.bin`), so a kill loses at most one chunk;
//! 4. **fit**: the next net is fitted to the targets ([`fit`]), starting
//!    from the current net (from fresh weights in generation 0), and saved
//!    as `net.f32` (to train on) and `net.nnue` (to search with), with the
//!    losses and the held-out order ([`fit::HeldOrder`]) in `fit.json`. After the first generation (unless
//!    `standardise` is off) the survivors' targets are standardised to
//!    mean 0 and standard deviation 1 (the map in `rescale.json`; the start
//!    net's output is mapped the same way), so that the values keep their
//!    resolution instead of sinking towards the lost value generation after
//!    generation;
//! 5. with the learning loop (the default for a new folder; [`Learning`],
//!    whose module doc says why), the **gate**: the new net becomes the
//!    champion only if it survives longer than the champion from fixed
//!    positions in long games (`gate.json`, then `champion.json`); the
//!    "current evaluator" above is then always the champion, a master
//!    beam whose champion has not changed is taken over rather than played
//!    again, the samples add wells from the steady state of long games
//!    (and, with `--wide-samples`, from the gate's wide games: [`wide`]),
//!    the targets of beams that die late are graded, and the fit reads a
//!    window of generations;
//! 6. the generation's figures go to `generation.json`, one line to
//!    `DIR/log.jsonl`, and the picture `DIR/progress.svg` is redrawn. Its
//!    costs are each step's seconds when it was computed, kept in
//!    `seconds.json` as the step ends, so a resumed generation reports
//!    them and not the time to read its files back. The gate's wide games
//!    are kept there one by one, each from its run's depth records, so a
//!    gate killed half-way through them counts them all.
//!
//! After the last generation, the master beam of the next one is run too,
//! so that every trained net has a score.
//!
//! # Resuming
//! Each step's result is a file written under a temporary name, synced and
//! renamed, and a step whose file exists is not run again (one skeleton,
//! `folder`'s `step`). So `hatetris
//! train DIR` after a kill goes on from the step it was in (a master beam
//! from its last depth, targets from their last chunk, a fit from its
//! start). Everything is seeded and every parallel step collects its
//! results in order, so a resumed trainer makes the same files as one that
//! was never stopped. The folder is locked while a trainer works in it.
//!
//! The settings are in `DIR/train.json`; the `--from` net, if any, is
//! copied into the folder, so the folder alone is enough to go on.
//!
//! A copy of its small files is enough too (`scripts/snapshot-train.sh`,
//! committed as a run goes, then copied back on another machine): the
//! settings, the start net (a shipped one is left out and must be copied
//! back first; the trainer refuses to go on without it), the champion's
//! net and every step's JSON, the finished wide games' records
//! (`wide-*.json`), and the data files of the generation in progress
//! only. What it lacks is made again where it is read, seeded, so the
//! same files: the master beam a generation samples (`master_on_disk`,
//! held against its `master.json`; for learn-18-reach's, width 100,000
//! and 365 depths, about 40 minutes on 2 threads and 245 s on 16), and
//! the window's samples and targets (`window_data`). The test
//! `train::a_copy_of_the_small_files_goes_on_to_the_same_generation`
//! holds a copy's next generation against the folder's. The beam played
//! again counts in the cost of the step that needed it.
//!
//! `verify` reads every file of a folder in full and holds the summaries
//! against the files they summarise (`hatetris verify DIR`).
//!
//! # Experiments
//! [`fork`] (`hatetris train NEW --fork DIR --at N --redo STEP`) makes a new
//! folder holding another's generations up to a step of generation N, under
//! changed settings, so that a question about the fit, the targets or the
//! samples costs that generation's later steps alone.

pub mod data;
pub mod fit;
mod folder;
mod fork;
mod gate;
mod generation;
mod learning;
mod plot;
pub mod reach;
mod samples;
pub mod status;
mod verify;
pub mod wide;

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::folder::{io, FolderError, FolderLock, IoError};
use crate::nnue::{Net, NetError};
use crate::run::store::StoreError;
use crate::run::RunError;
use crate::search::{self, Observer, SearchError};

use folder::{write_json, FROM_F32};
pub use fork::{fork, Forked, Redo, FORK_JSON};
pub use generation::redraw;
use generation::Generations;

pub use crate::search::small::Shape;
pub use data::Sampled;
pub use fit::{Epoch, FitConfig, HeldOrder};
pub use folder::{
    config_path, generation_dir, generations, log_path, net_path, plot_path, read_config,
};
pub use gate::{
    champion_path, gates, Champion, GateGame, GateRecord, WideGame, WideGames, GATE_POSITIONS,
};
pub use learning::{graded, life_penalty, Game, Gate, Learning, FRESH_WIDTHS};
pub use verify::{verify, Findings};

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
    /// The training beams rank their wells with the lookahead
    /// ([`Config::quiescent`]), as the master beam and the gate do; their
    /// target is still the net's own value of the best well they reach.
    /// Off: the net alone (the folders made before this setting).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub beam_lookahead: bool,
    /// The target of a sample whose training beam dies.
    pub lost_value: f64,
    /// Re-standardises each generation's surviving targets (mean 0,
    /// standard deviation 1) so that the values do not drift towards the
    /// lost value (see the targets step).
    #[serde(default)]
    pub standardise: bool,
    /// The fit.
    pub fit: FitConfig,
    /// The seed of every random choice.
    pub seed: u64,
    /// The learning loop: a gate and a champion, a window of generations,
    /// steady-state samples, graded targets ([`Learning`]). A folder
    /// without it runs the plain loop, each net following the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learning: Option<Learning>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            hidden: 64,
            master_width: 10_000,
            master_depth: 10_000,
            quiescent: crate::evaluate::DEFAULT_QUIESCENT_DEPTH,
            samples: 50_000,
            heuristic_samples: 600_000,
            children: 1,
            chain_points: true,
            beam: Shape {
                width: 50,
                pieces: 20,
            },
            beam_lookahead: false,
            lost_value: -4.0,
            standardise: true,
            fit: FitConfig::default(),
            seed: 1,
            learning: Some(Learning::default()),
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
    /// Wall seconds (summed over resumes; 0 for a beam taken over).
    pub seconds: f64,
    /// The generation whose master beam this is, when it was taken over
    /// because the champion had not changed (the learning loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused_from: Option<u32>,
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
    /// Of them, those from the gate's wide games ([`wide`]), when it drew
    /// some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wide_samples: Option<usize>,
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
    /// How the start net and the kept net order the held-out pairs
    /// ([`fit::HeldOrder`]; absent from generations fitted before it was
    /// measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_order: Option<fit::HeldOrder>,
    /// Core-seconds: the parallel phases' wall time times the threads,
    /// plus the fit's.
    pub core_seconds: f64,
    /// The threads of the run that made it.
    pub threads: usize,
    /// The gate's verdict on this generation's net (the learning loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateFigures>,
}

/// A generation's gate in brief (the whole record is `gate.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateFigures {
    /// The candidate's mean pieces per gate position.
    pub candidate_pieces: f64,
    /// Its mean lines.
    pub candidate_lines: f64,
    /// The champion's mean pieces (before this gate).
    pub champion_pieces: f64,
    /// Its mean lines.
    pub champion_lines: f64,
    /// Whether the candidate became the champion.
    pub kept: bool,
    /// The champion after this gate (`None`: the start net).
    pub champion: Option<u32>,
    /// Seconds of the gate ([`GateRecord::seconds`]).
    pub seconds: f64,
    /// Lines in all of the gate's games from the empty well, the
    /// candidate's and the champion's, when it played them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wide_lines: Option<(u64, u64)>,
    /// The game whose steady-state starts the gate played under
    /// `--gate-rotate` (absent without it): the figures of gates on
    /// different games are not comparable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<String>,
}

/// "generation 4" or "the start net": the net a generation made, or the
/// start net, in a message.
fn who(g: Option<u32>) -> String {
    match g {
        Some(g) => format!("generation {g}"),
        None => "the start net".into(),
    }
}

impl GateFigures {
    /// ` (on GAME's steady state)` under `--gate-rotate`, else nothing: for
    /// after the champion's figures.
    pub fn steady_text(&self) -> String {
        match &self.steady {
            Some(game) => format!(" (on {game}'s steady state)"),
            None => String::new(),
        }
    }

    /// The gate's wide games in words ("wide games 132 lines against
    /// 168"), when it played them (from the empty well, or from the
    /// steady-state wells of `--gate-wide-from`: the whole games' lines).
    pub fn wide_text(&self) -> Option<String> {
        self.wide_lines
            .map(|(ours, theirs)| format!("wide games {ours} lines against {theirs}"))
    }
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
    /// How far the master beam carried each sampled well (with the reach
    /// term).
    Reach,
    /// Fitting the net.
    Fit,
    /// The gate: the net against the champion.
    Gate,
}

impl Phase {
    /// Its name in logs.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Master => "master beam",
            Phase::Samples => "samples",
            Phase::Targets => "targets",
            Phase::Reach => "reach",
            Phase::Fit => "fit",
            Phase::Gate => "gate",
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
    #[error(transparent)]
    Io(#[from] IoError),
    /// A master beam's run folder.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// A run folder or depth file.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The training folder's lock, or a JSON file of it that does not
    /// parse.
    #[error(transparent)]
    Folder(#[from] FolderError),
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
    /// A generation with nothing to fit on.
    #[error("generation {0}: no samples (with --samples 0 and --start-samples 0 a generation needs an earlier gate's wide games to draw from)")]
    Unsampled(u32),
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

/// What a call to [`train`] did: the generations the folder holds and
/// the last net's master beam.
#[derive(Clone, Debug)]
pub struct Trained {
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
) -> Result<Trained, TrainError> {
    crate::folder::refuse_other(dir, crate::folder::Holds::Training)?;
    fs::create_dir_all(dir).map_err(io(dir))?;
    let _lock = FolderLock::take(dir)?;
    // A crash's temporary files, in the folder and in its generations.
    crate::folder::remove_temporaries(dir)?;
    for g in 0.. {
        let gen = generation_dir(dir, g);
        if !gen.is_dir() {
            break;
        }
        crate::folder::remove_temporaries(&gen)?;
    }
    let config = match (read_config(dir)?, config) {
        (Some(stored), Some(asked)) if !differences(&stored, asked).is_empty() => {
            return Err(TrainError::Config {
                path: config_path(dir),
                why: format!(
                    "this folder was started with other settings ({}); run without them to go on",
                    differences(&stored, asked)
                ),
            })
        }
        (Some(stored), _) => {
            if let Some(net) = from {
                refuse_another_start(dir, net)?;
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
    status::write_session(dir, generations, threads)?;
    let trainer = Generations {
        dir,
        config: &config,
        threads,
        observer,
    };
    pool.install(|| trainer.run(generations))
}

/// Going on with `--from` is going on with the same command: allowed when
/// `net` is the net the folder was started from, byte for byte, and refused
/// otherwise (a folder's start net never changes; a fork starts another).
fn refuse_another_start(dir: &Path, net: &Net) -> Result<(), TrainError> {
    let path = dir.join(FROM_F32);
    let why = match fs::read(&path) {
        Ok(bytes) if bytes == net.to_bytes() => return Ok(()),
        Ok(_) => "this folder was started from another net; run without --from to go on",
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            "this folder was started without --from; run without it to go on"
        }
        Err(e) => return Err(io(&path)(e).into()),
    };
    Err(TrainError::Config {
        path: config_path(dir),
        why: why.into(),
    })
}

/// The differing settings, `name stored, not asked`, in key order (empty
/// when they agree).
fn differences(stored: &Config, asked: &Config) -> String {
    crate::folder::differences(stored, asked)
        .iter()
        .map(|d| format!("{} {}, not {}", d.key, d.recorded, d.asked))
        .collect::<Vec<_>>()
        .join(", ")
}
