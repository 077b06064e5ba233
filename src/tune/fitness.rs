//! The fitness: how well an evaluator plays, measured from the start wells
//! of one reference game, or from the positions of a strength suite.
//!
//! **From a suite** (`tune --suite`, [`Fitness::of_suite`]): each position
//! of a strength suite, with its game's whole history, is played by
//! [`crate::strength::play`] exactly as `hatetris bench strength` plays it,
//! and the fitness is the mean pieces survived. This measures what a net
//! must do better, survive in the records' steady state, where a
//! reference game from the empty well measures the opening. The suite is
//! kept in the settings with its replays in place
//! ([`crate::strength::Embedded`]), so the folder alone is enough; a suite
//! with positions for judging only is refused (a tuner fits its fitness).
//! Cost: about 21 s an evaluation for the 177 positions of
//! `data/strength/suite-unsampled.json` at width 100 with the lookahead on
//! 2 threads. The rest of this doc is about reference games.
//!
//! One search from the empty well is a poor fitness: at a fixed width its
//! score sits on plateaus (21-24, 32 and 41-44 lines at widths 2,000 to
//! 9,000), so two weight vectors a real step apart often score the same
//! and a tiny change can jump a plateau by luck. So an evaluator is
//! measured from several **start wells** taken from one **reference game**
//! at evenly spaced depths (depth 0, the empty well, is always one): from
//! each, a small search ([`crate::search::small`]) of the tuning width
//! plays `pieces` pieces against HATETRIS, and the measure is the most
//! lines it cleared. The fitness is the mean over the starts, with their
//! standard deviation. New folders play in the search's own order
//! ([`FitnessBeam::Search`]: from the empty well it is the search itself);
//! the first runs used the trainer's ([`FitnessBeam::Trainer`]).
//!
//! Why this is a fair measure:
//! - every candidate meets exactly the same wells, so differences are the
//!   evaluator's, not the luck of the opening;
//! - the starts cover the whole game, the late and crowded wells as much
//!   as the opening, so weights that only open well do not win;
//! - the reference game is the baseline's own game at the tuning width,
//!   recorded once in the folder, so the positions are ones this width
//!   actually reaches;
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
//! measured. For weights, `jitter` K plays K beams per start: the weights
//! as given and K − 1 copies with every weight moved by at most [`JITTER`]
//! of itself (fixed pseudo-random moves, so a measure is the same on every
//! run), and the fitness is the mean over all of them, at K times the
//! cost. Any other evaluator (a net, with or without the lookahead) is
//! measured as it is, one beam per start ([`Fitness::measure_evaluator`]).

use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::enemy::EnemyKind;
use crate::evaluate::Evaluator;
use crate::game::{Event, Game};
use crate::heuristic::{Knewjade, Weights, WEIGHT_NAMES};
use crate::key::Key;
use crate::launch::{self, Folder};
use crate::run::keyframes::{self, Pick};
use crate::search::small::{self, Order, Reached, Shape};
use crate::search::{Adversary, RunResult, Search, Silent};
use crate::stats::{mean_sd, Divisor};
use crate::strength::{self, Embedded, Position};
use crate::well::Well;

use super::TuneError;

/// How an evaluator is measured (see the module doc).
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
    /// Which order the beam from each start plays in (a folder from before
    /// this field has the trainer's).
    #[serde(default)]
    pub beam: FitnessBeam,
    /// Beams per start for weights: the weights as given, then `jitter − 1`
    /// copies with every weight moved by about [`JITTER`] of itself (1: no
    /// copies; a folder from before this field has 1). See the module doc.
    #[serde(default = "one")]
    pub jitter: usize,
    /// The positions measured instead of a reference game's start wells
    /// (`tune --suite`): a strength suite with its replays in place, so
    /// that the folder alone is enough. The fitness is then the mean
    /// pieces survived from them (`starts` is their number, `pieces` the
    /// most a beam plays), as `hatetris bench strength` measures it. A
    /// folder from before this field has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<Embedded>,
}

impl FitnessSettings {
    /// What the fitness counts per start: `"pieces"` survived from a
    /// suite's positions, else `"lines"`.
    pub fn unit(&self) -> &'static str {
        match self.suite {
            Some(_) => "pieces",
            None => "lines",
        }
    }

    /// Checks the suite, if any, without playing its games: none of its
    /// positions is for judging only (a tuner fits its fitness, and those
    /// judge), `starts` is its number of positions and `pieces` at most
    /// its cap.
    pub fn check_suite(&self) -> Result<(), TuneError> {
        let Some(suite) = &self.suite else {
            return Ok(());
        };
        let judging = suite.judging_only();
        if !judging.is_empty() {
            return Err(TuneError::Config(format!(
                "the suite's game {} is for judging only: a tuner may not fit to it",
                judging.join(", ")
            )));
        }
        let positions: usize = suite.games.iter().map(|g| g.starts.len()).sum();
        if self.starts != positions || self.pieces > suite.cap {
            return Err(TuneError::Config(format!(
                "the fitness's {} starts and {} pieces are not its suite's ({positions} positions, a cap of {})",
                self.starts, self.pieces, suite.cap
            )));
        }
        Ok(())
    }

    /// One start's measure: its pieces survived from a suite's position,
    /// else its lines.
    pub fn of(&self, r: &Reached) -> u32 {
        match self.suite {
            Some(_) => r.pieces,
            None => r.lines,
        }
    }
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

/// The order the fitness's small search plays in from each start well.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FitnessBeam {
    /// The trainer's order ([`Order::Trainer`]: ties broken by well before
    /// score, levels in cost order). From the empty well at width 10,000
    /// with the lookahead it reached 35 lines where the search reaches 42:
    /// another plateau, from ties alone. The first tuning runs used it.
    #[default]
    Trainer,
    /// The search's own order and levels ([`Order::Search`]): from the
    /// empty well, exactly what `hatetris search` reaches. New runs use it.
    Search,
}

impl FitnessBeam {
    /// The small search's order.
    pub fn order(self) -> Order {
        match self {
            FitnessBeam::Trainer => Order::Trainer,
            FitnessBeam::Search => Order::Search,
        }
    }
}

/// A fitness ready to measure: its settings and the starts.
#[derive(Clone, Debug)]
pub struct Fitness {
    /// The settings.
    pub settings: FitnessSettings,
    /// The starts.
    pub starts: Starts,
}

/// Where a fitness's beams start.
#[derive(Clone, Debug)]
pub enum Starts {
    /// The reference game's start wells, with their depth in it (no
    /// history: see the module doc).
    Wells(Vec<(u32, Well)>),
    /// A suite's positions, each with its game's history.
    Positions(Vec<Position>),
}

impl Starts {
    /// How many there are.
    pub fn len(&self) -> usize {
        match self {
            Starts::Wells(w) => w.len(),
            Starts::Positions(p) => p.len(),
        }
    }

    /// Each start's depth in the reference game, or its position's pieces
    /// locked before it in its game.
    pub fn depths(&self) -> Vec<u32> {
        match self {
            Starts::Wells(w) => w.iter().map(|(d, _)| *d).collect(),
            Starts::Positions(p) => p.iter().map(|p| p.at).collect(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One evaluator's fitness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// What each start's beams reached, in start order (for weights,
    /// `jitter` beams per start, the unmoved weights' first).
    pub per_start: Vec<Reached>,
    /// Mean lines over the starts' beams, or with a suite mean pieces
    /// survived ([`FitnessSettings::unit`]): the fitness, higher is better.
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
        Ok(Fitness {
            settings,
            starts: Starts::Wells(starts),
        })
    }

    /// The fitness from the positions of `settings.suite`. Refused: a
    /// suite without one, with positions for judging only (a tuner fits
    /// its fitness, and those judge), or whose `starts` and `pieces` are
    /// not its own (its number of positions, at most its cap).
    pub fn of_suite(settings: FitnessSettings) -> Result<Fitness, TuneError> {
        settings.check_suite()?;
        let Some(embedded) = &settings.suite else {
            return Err(TuneError::Config("the fitness has no suite".into()));
        };
        let positions = embedded.suite()?.positions;
        Ok(Fitness {
            settings,
            starts: Starts::Positions(positions),
        })
    }

    /// Measures `weights` with the settings' lookahead (`jitter` beams per
    /// start, in parallel on the current rayon pool).
    pub fn measure(&self, weights: &Weights) -> Measured {
        self.measure_copies(self.settings.jitter.max(1), |copy| {
            Knewjade::new(jittered(weights, copy), self.settings.quiescent)
        })
    }

    /// Measures `eval` as it is (a net, with or without its lookahead: the
    /// settings' `quiescent` and `jitter` are the caller's to apply), one
    /// beam per start, in parallel on the current rayon pool.
    pub fn measure_evaluator(&self, eval: &dyn Evaluator) -> Measured {
        self.measure_copies(1, |_| eval)
    }

    /// A measure of nothing: every start at 0 lines (a candidate that
    /// could not be measured, when the tuner stops on its error).
    pub fn nothing(&self) -> Measured {
        Measured {
            per_start: Vec::new(),
            mean: 0.0,
            sd: 0.0,
        }
    }

    /// `copies` beams per start, copy `k` ranked by `eval(k)`.
    fn measure_copies<E: Evaluator>(
        &self,
        copies: usize,
        eval: impl Fn(usize) -> E + Sync,
    ) -> Measured {
        let shape = Shape {
            width: self.settings.width,
            pieces: self.settings.pieces,
        };
        let order = self.settings.beam.order();
        let per_start: Vec<Reached> = (0..self.starts.len() * copies)
            .into_par_iter()
            .map(|i| {
                let (start, copy) = (i / copies, i % copies);
                match &self.starts {
                    Starts::Wells(w) => {
                        small::reach(&w[start].1, shape, EnemyKind::Hatetris, &eval(copy), order)
                    }
                    Starts::Positions(p) => {
                        let o = strength::play(&p[start], shape.pieces, &eval(copy), shape.width);
                        Reached {
                            pieces: o.pieces,
                            lines: o.lines,
                        }
                    }
                }
            })
            .collect();
        let each: Vec<f64> = per_start
            .iter()
            .map(|r| f64::from(self.settings.of(r)))
            .collect();
        let (mean, sd) = mean_sd(&each, Divisor::Sample);
        Measured {
            per_start,
            mean,
            sd,
        }
    }
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

/// Plays the reference game: a search of `width` with `evaluator` from the
/// empty well in `dir` (resumed if it is there), then its deepest game
/// rebuilt.
pub fn reference_game(
    dir: &Path,
    evaluator: &dyn Evaluator,
    width: usize,
    threads: usize,
) -> Result<Vec<Well>, TuneError> {
    let search = Search::new(width, evaluator, Adversary::new(EnemyKind::Hatetris));
    drop(resume_or_start(dir, &search, threads)?);
    let game = keyframes::reconstruct(dir, Pick::Deepest)?;
    let mut wells = vec![Well::EMPTY];
    wells.extend(game.wells);
    Ok(wells)
}

/// The reference search in `dir`, resumed when its manifest is there,
/// else started afresh (a folder killed before its manifest held no run
/// yet).
fn resume_or_start(dir: &Path, search: &Search, threads: usize) -> Result<RunResult, TuneError> {
    let opts = launch::options(100_000, threads, Some(threads));
    Ok(launch::run(dir, search, &opts, &Silent, Folder::Either)?)
}
