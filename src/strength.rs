//! The strength suite: how long an evaluator survives and how many lines
//! it clears, from a fixed set of start positions (`hatetris bench
//! strength`).
//!
//! The records live in one steady state from about piece 100 on, and a
//! better game must survive thousands of pieces there (`NNUE.md`): one
//! search from the empty well says little about that, and a start well
//! without its history is not the game's position (HATETRIS's loop rule
//! counts every well the game has seen). So the suite is a list of
//! positions in long games, each a replay and a piece index
//! ([`SUITE_FILE`], `data/strength/README.md` says how they were chosen),
//! played again to that piece with the game's whole history
//! ([`crate::run::Prefix`]); from each, a small search of one width
//! ([`crate::search::small::play`], in the search's own order, with the
//! prefix's wells in its loop rule) plays until it dies or reaches the
//! suite's cap of pieces. Per start it reports the pieces survived, the
//! lines, and the lines per piece after the first 100; over the suite,
//! deaths per 1,000 pieces. Everything is a function of the suite, the
//! evaluator and the width: no clock, no random numbers, the same on any
//! thread count.
//!
//! Some positions are **judging only** (the 3,711-line record's): the file
//! marks them, and the trainer never loads a [`Suite`]: its gate plays its
//! own positions (its games, never the record's) through
//! [`Position::all`] and [`measure_positions`], so no training step can
//! learn from the judging positions (`tests/strength.rs` checks that
//! nothing under `src/train/` names the suite or its judging-only games).

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::enemy::EnemyKind;
use crate::evaluate::Evaluator;
use crate::launch::input::{self, Input, InputError};
use crate::run::start::{Start, StartError};
use crate::search::small::{self, Order, Origin, Played, Shape};
use crate::stats::{clustered_mean_se, mean_sd, Divisor};

/// The suite's file, relative to the crate's root.
pub const SUITE_FILE: &str = "data/strength/suite.json";

/// Pieces after which a start's lines per piece are counted: the records'
/// steady state begins about there (`NNUE.md`).
pub const STEADY_FROM: u32 = 100;

/// The suite's file: its cap and its games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteFile {
    /// Pieces a start's search plays at most.
    pub cap: u32,
    /// The games the starts are taken from.
    pub games: Vec<GameEntry>,
}

/// One game of the suite: its replay and the starts taken from it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameEntry {
    /// A short name (in tables and JSON).
    pub name: String,
    /// The replay's file (any of the game's formats), relative to the
    /// suite file's folder.
    pub replay: PathBuf,
    /// Positions for judging only: no training step may read them.
    #[serde(default)]
    pub judging_only: bool,
    /// The starts: pieces locked before each (0: the empty well).
    pub starts: Vec<u32>,
}

/// One start, ready to play: where it comes from and the game before it.
#[derive(Clone, Debug)]
pub struct Position {
    /// The game's name.
    pub game: String,
    /// Pieces locked before it.
    pub at: u32,
    /// Whether it is for judging only.
    pub judging_only: bool,
    /// The start well with the game's history.
    pub origin: Origin,
}

impl Position {
    /// The starts `starts` (pieces locked before each) of the game `name`
    /// whose replay is `text`, each played again against HATETRIS with the
    /// game's history; not judging only. The error names the start that is
    /// not a live position of the game.
    pub fn all(name: &str, text: &str, starts: &[u32]) -> Result<Vec<Position>, (u32, StartError)> {
        starts
            .iter()
            .map(|&at| {
                let (_, prefix) =
                    Start::from_replay(text, Some(at), EnemyKind::Hatetris).map_err(|e| (at, e))?;
                Ok(Position {
                    game: name.to_string(),
                    at,
                    judging_only: false,
                    origin: Origin::after(&prefix),
                })
            })
            .collect()
    }
}

/// A loaded suite.
#[derive(Clone, Debug)]
pub struct Suite {
    /// Pieces a start's search plays at most.
    pub cap: u32,
    /// The starts, in the file's order.
    pub positions: Vec<Position>,
}

/// A suite with each game's replay in place of its file: what a folder
/// keeps so that it alone is enough (`hatetris tune --suite`), and what
/// [`Suite::load`] reads a suite file into.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Embedded {
    /// Pieces a start's search plays at most.
    pub cap: u32,
    /// The games, in the file's order.
    pub games: Vec<EmbeddedGame>,
}

/// One game of an [`Embedded`] suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedGame {
    /// A short name (in tables and JSON).
    pub name: String,
    /// The replay itself.
    pub replay: String,
    /// Positions for judging only: no training step may read them.
    #[serde(default)]
    pub judging_only: bool,
    /// The starts: pieces locked before each (0: the empty well).
    pub starts: Vec<u32>,
}

impl Embedded {
    /// Reads the suite file in `path` and its games' replays (relative to
    /// its folder).
    pub fn read(path: &Path) -> Result<Embedded, StrengthError> {
        let text = input::read_text(Some(path), Input::Replay)?;
        let file: SuiteFile = serde_json::from_str(&text).map_err(|e| StrengthError::Format {
            path: path.to_path_buf(),
            why: e.to_string(),
        })?;
        let format = |why: &str| StrengthError::Format {
            path: path.to_path_buf(),
            why: why.to_string(),
        };
        if file.cap == 0 {
            return Err(format("the cap must be at least 1 piece"));
        }
        if file.games.iter().all(|g| g.starts.is_empty()) {
            return Err(format("it has no starts"));
        }
        let dir = path.parent().unwrap_or(Path::new(""));
        let games = file
            .games
            .into_iter()
            .map(|g| {
                let replay = input::read_text(Some(&dir.join(&g.replay)), Input::Replay)?;
                Ok(EmbeddedGame {
                    name: g.name,
                    replay,
                    judging_only: g.judging_only,
                    starts: g.starts,
                })
            })
            .collect::<Result<_, StrengthError>>()?;
        Ok(Embedded {
            cap: file.cap,
            games,
        })
    }

    /// Every start's game played to it.
    pub fn suite(&self) -> Result<Suite, StrengthError> {
        let mut positions = Vec::new();
        for game in &self.games {
            let mut these =
                Position::all(&game.name, &game.replay, &game.starts).map_err(|(at, error)| {
                    StrengthError::Start {
                        game: game.name.clone(),
                        at,
                        error,
                    }
                })?;
            for p in &mut these {
                p.judging_only = game.judging_only;
            }
            positions.extend(these);
        }
        Ok(Suite {
            cap: self.cap,
            positions,
        })
    }

    /// The names of the games whose starts are for judging only.
    pub fn judging_only(&self) -> Vec<&str> {
        self.games
            .iter()
            .filter(|g| g.judging_only)
            .map(|g| g.name.as_str())
            .collect()
    }
}

/// Why a suite could not be loaded or played.
#[derive(Debug, thiserror::Error)]
pub enum StrengthError {
    /// A file could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The suite file is not a suite.
    #[error("{path}: not a strength suite: {why}")]
    Format {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A start is not a live position of its game.
    #[error("game {game}: start {at}: {error}")]
    Start {
        /// The game's name.
        game: String,
        /// The start asked for.
        at: u32,
        /// Why.
        error: StartError,
    },
}

impl Suite {
    /// Reads the suite in `path` and plays every start's game to it.
    pub fn load(path: &Path) -> Result<Suite, StrengthError> {
        Embedded::read(path)?.suite()
    }
}

/// What the search from one start did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Pieces survived (at most the cap).
    pub pieces: u32,
    /// Whether the search died (it had no live child at piece `pieces + 1`).
    pub died: bool,
    /// Lines cleared since the start.
    pub lines: u32,
    /// Lines cleared after the first [`STEADY_FROM`] pieces, when it got
    /// past them.
    pub lines_after: Option<u32>,
}

impl Outcome {
    fn of(played: &Played) -> Outcome {
        let last = *played.lines.last().expect("the start's lines");
        let steady = STEADY_FROM as usize;
        Outcome {
            pieces: played.pieces,
            died: played.died,
            lines: last,
            lines_after: (played.pieces > STEADY_FROM).then(|| last - played.lines[steady]),
        }
    }

    /// Lines per piece after the first [`STEADY_FROM`] pieces.
    pub fn lines_per_piece_after(&self) -> Option<f64> {
        self.lines_after
            .map(|l| f64::from(l) / f64::from(self.pieces - STEADY_FROM))
    }
}

/// An evaluator's figures over the suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Mean pieces survived per start.
    pub pieces_mean: f64,
    /// Mean lines per start.
    pub lines_mean: f64,
    /// Starts whose search died.
    pub deaths: u32,
    /// Pieces survived over all starts.
    pub pieces: u64,
    /// Deaths per 1,000 pieces survived.
    pub deaths_per_1000: f64,
    /// Lines per piece after the first [`STEADY_FROM`] pieces, over the
    /// starts that got past them (`None`: none did).
    pub lines_per_piece_after: Option<f64>,
}

impl Summary {
    /// The figures of `outcomes` (one per start).
    pub fn of(outcomes: &[Outcome]) -> Summary {
        let n = outcomes.len().max(1) as f64;
        let pieces: u64 = outcomes.iter().map(|o| u64::from(o.pieces)).sum();
        let deaths = outcomes.iter().filter(|o| o.died).count() as u32;
        let (mut after_lines, mut after_pieces) = (0u64, 0u64);
        for o in outcomes {
            if let Some(l) = o.lines_after {
                after_lines += u64::from(l);
                after_pieces += u64::from(o.pieces - STEADY_FROM);
            }
        }
        Summary {
            pieces_mean: pieces as f64 / n,
            lines_mean: outcomes.iter().map(|o| f64::from(o.lines)).sum::<f64>() / n,
            deaths,
            pieces,
            deaths_per_1000: 1000.0 * f64::from(deaths) / (pieces.max(1) as f64),
            lines_per_piece_after: (after_pieces > 0)
                .then(|| after_lines as f64 / after_pieces as f64),
        }
    }
}

/// The mean of the paired differences `a[i] − b[i]` and its standard
/// error (the sample standard deviation over √n; 0 for one pair).
pub fn paired_difference(a: &[f64], b: &[f64]) -> (f64, f64) {
    let diffs: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    if diffs.len() < 2 {
        return (diffs.first().copied().unwrap_or(0.0), 0.0);
    }
    let (mean, sd) = mean_sd(&diffs, Divisor::Sample);
    (mean, sd / (diffs.len() as f64).sqrt())
}

/// [`paired_difference`] with the positions in blocks (`blocks[i]` names
/// the block of pair i: [`blocks`]), each block one draw
/// ([`clustered_mean_se`] says why): the same mean, a standard error that
/// counts runs of correlated positions once.
///
/// Each pair its own block gives the plain error, computed as it always
/// was (files written without blocks are written the same); so does a
/// single block, whose spread between blocks cannot be measured (the
/// clustered error would be 0, and a margin in it no margin).
pub fn paired_difference_in_blocks(a: &[f64], b: &[f64], blocks: &[usize]) -> (f64, f64) {
    let mut distinct = blocks.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() == blocks.len() || distinct.len() < 2 {
        return paired_difference(a, b);
    }
    let diffs: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    clustered_mean_se(&diffs, blocks)
}

/// The block of each of `positions`: those of one game in the same
/// stretch of `block` pieces (the same `at / block`; two starts a piece
/// apart across a stretch's end fall in two) share one, the empty well
/// (piece 0) with its game's first stretch; with `block` 0, each position
/// its own. Blocks are numbered in order of first appearance.
pub fn blocks(positions: &[Position], block: u32) -> Vec<usize> {
    let mut seen: Vec<(&str, u32)> = Vec::new();
    positions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let key = match block {
                0 => (p.game.as_str(), i as u32),
                b => (p.game.as_str(), p.at / b),
            };
            match seen.iter().position(|k| *k == key) {
                Some(id) => id,
                None => {
                    seen.push(key);
                    seen.len() - 1
                }
            }
        })
        .collect()
}

/// Plays every start of `suite` with `eval` at `width` (the suite's cap),
/// in parallel on the current rayon pool; the outcomes in start order.
/// `done` hears of each start as it ends (see [`measure_positions`]).
pub fn measure(
    suite: &Suite,
    eval: &dyn Evaluator,
    width: usize,
    done: &(dyn Fn(usize, &Outcome) + Sync),
) -> Vec<Outcome> {
    measure_positions(&suite.positions, suite.cap, eval, width, done)
}

/// Plays from every one of `positions` with `eval` at `width` for at most
/// `cap` pieces, in parallel on the current rayon pool; the outcomes in
/// order. `done` hears of each position as it ends (its index and
/// outcome, in the order they end): a long suite's progress.
pub fn measure_positions(
    positions: &[Position],
    cap: u32,
    eval: &dyn Evaluator,
    width: usize,
    done: &(dyn Fn(usize, &Outcome) + Sync),
) -> Vec<Outcome> {
    positions
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let outcome = play(p, cap, eval, width);
            done(i, &outcome);
            outcome
        })
        .collect()
}

/// Plays from `position` with `eval` at `width` for at most `cap` pieces:
/// one start of [`measure_positions`].
pub fn play(position: &Position, cap: u32, eval: &dyn Evaluator, width: usize) -> Outcome {
    let shape = Shape { width, pieces: cap };
    let played = small::play(
        &position.origin,
        shape,
        EnemyKind::Hatetris,
        eval,
        Order::Search,
    );
    Outcome::of(&played)
}
