//! The learning loop's additions to a generation: a champion kept by a
//! gate, a window of generations to fit on, samples from the steady state
//! of long games, and training targets graded by how long a dying beam
//! lasted. All of it is off in a folder whose settings have no
//! [`Learning`] (the folders made before it go on as they were).
//!
//! # Why
//! The plain loop fitted each net to its own generation's data alone, made
//! the next master beam with it whatever it was worth, and sampled only
//! master beams from the empty well, which die by piece 400: it got worse
//! after its third generation (79 lines at width 10,000, then 68 and 39),
//! and it never saw the steady state every long record lives in (from
//! about piece 100: stack 10-16 rows, about 0.40 lines a piece;
//! `NNUE.md`). So:
//! - **the gate**: a generation's net (the candidate) becomes the champion
//!   only if it survives longer than the champion from a fixed set of
//!   positions ([`Gate`]: the empty well and every 20th piece from piece
//!   100 of its own games (`--gate-every`), the 366-line record by
//!   default, and the
//!   openings of five other records, pieces 20 to 80, each with its
//!   game's history; compared by the total pieces survived, then the total
//!   lines), played by
//!   [`crate::strength::measure_positions`] with the lookahead the master
//!   beam uses. Master beams, sampling beams and training beams all use the
//!   champion. `gen-NNN/gate.json` holds each candidate's figures, the
//!   champion's, the paired difference and why it was kept or not, and
//!   `champion.json` points at the champion (written after `gate.json`:
//!   the trainer's commit point; the champion is always what the gates on
//!   disk say, [`Generations::champion_before`]). A master beam whose
//!   champion has not changed is the previous one's, not played again;
//!   with [`Learning::fresh_masters`] (`--fresh-masters`) it is played
//!   again wider, so that the window holds several games.
//!   The gate's games are not the samples' games: a first run gated on
//!   positions of the games it also sampled (`data/train/learn-1`), and
//!   its champion's +11.6 pieces a gate position over the start net came
//!   to −0.8 ± 4.5 on the strength suite. The openings came after a second
//!   run (`data/train/learn-2`), gated on the steady state alone, kept a
//!   champion that lived longer there (+13 % a gate position) but scored
//!   53 lines from the empty well at width 10,000 against the start net's
//!   79: nothing in its gate looked at the opening. And none of it
//!   looks at wide beams: learn-10's champion won on the positions and
//!   lost by 15-46 lines from the empty well at widths 90,000-110,000, so
//!   with [`Gate::wide`] (`--gate-wide`) a candidate the positions keep
//!   also plays games from the empty well at those widths, and must clear
//!   at least as many lines in all as the champion's ([`WideGames`]);
//!   with [`Gate::wide_from`] (`--gate-wide-from`) the games start from
//!   wells of the gate's steady-state game instead, since one game from
//!   the empty well mostly judges its opening.
//! - **the window**: a fit reads the samples and targets of the last
//!   [`Learning::window`] generations, each generation's surviving targets
//!   standardised by its own map (mean 0, standard deviation 1), so every
//!   generation's values are on one scale, and a lost game is the fixed
//!   anchor `lost_value`;
//! - **the steady state**: besides the master beam's wells, a generation
//!   samples the beams of small searches ([`crate::search::small::levels`])
//!   started every [`Learning::start_every`] pieces from piece 100 of each
//!   of [`Learning::games`] (the 302-line record by default; never the
//!   gate's games, and never the longest record, whose positions judge)
//!   and of the master beam's game (its deepest well's), and a few pieces
//!   before that game's end ([`Learning::before_death`]), where the
//!   champion's beam died;
//! - **graded targets**: a training beam that dies after
//!   [`Learning::graded_from`] of its pieces is less lost than one that
//!   dies at once: its target rises linearly from `lost_value` towards half
//!   of it as its death comes later (each death's piece is kept in
//!   `died.bin`, so the grading is a setting of the fit, not of the data);
//! - **the life term** (`--life-pieces`, `--life-weight`; off by default):
//!   a training beam that survives its pieces goes on to a longer horizon,
//!   and the fit lowers the standardised target of one that dies there, the
//!   more the sooner it died ([`life_penalty`]). A 10-piece beam from a
//!   steady-state well almost never dies, so its value alone cannot tell a
//!   well that dies 20 pieces later from one that lives on; a longer beam
//!   instead of the 10-piece one loses the survivors' values (40-piece
//!   targets: −15.8 pieces a gate position, `data/train/README.md`), so
//!   the later death is added to the 10-piece value, not put in its place.
//!   Measured on learn-12's data (`data/train/life-12`, horizon 20: 17.6 %
//!   of the beams die between pieces 11 and 20): on the record's suite at
//!   width 300, weight 1 is level with the same fit without it (−0.0 ± 1.9
//!   pieces a start), 0.3 −1.1 ± 2.0, 3 −4.8 ± 1.9; hence off by default.
//!   At width 100,000 from the 366 record's well at piece 300 (`sh
//!   data/train/steady-300/run.sh NAME NET`), though, weight 1's candidate
//!   lived 420 pieces against 376 without it (one game each; `wide.nnue`
//!   479): the suite at width 300 does not rank nets for wide beams;
//! - **the far share** (`--far-share`, with the life term; off by
//!   default): a surviving beam's target moves that share of the way from
//!   its best value at its last piece to its best value at the life
//!   term's horizon, where the beam reached it (`far.bin`): the value of
//!   the same beam seen further, at no extra search (the life term already
//!   plays it there), as game programs blend value targets of several
//!   horizons. A setting of the fit, so a fork with `--redo fit` measures
//!   shares on the same targets. Measured with half steps (`sh
//!   data/train/learn-16/run.sh`, share 0.5, against learn-15, the same
//!   without it): +3.6 ± 1.7 pieces a gate position against +2.6 ± 1.6,
//!   and 974 lines in the three steady-state wide games against 940 (the
//!   champion 982): the closest candidate yet, still not kept;
//! - **the reach term** (`--reach-share`, `--reach-horizon`; off by
//!   default): a sampled well the master beam kept gets more target the
//!   further its line of play lasted in that beam, against the other kept
//!   wells of its depth ([`super::reach`], `reach.bin`, made before the
//!   fit from the master's depth files): what a wide search carried on,
//!   which a 10-piece training beam cannot see. A setting of the fit.
//!   First measured on learn-18's generation 0 (share 1, horizon 25,
//!   `data/train/README.md`, "learn-18-reach"): level on the record's
//!   suite at width 300 (+0.1 ± 1.6 pieces a start against the same fit
//!   without it), and kept by the gate: +2.5 ± 1.6 pieces a gate
//!   position, and 997 lines against the champion's 982 in the three
//!   width-100,000 games from the 366 record's wells (from piece 300, 317
//!   against 298, and the twin without the term 251).
//!
//! Every step is one [`super::folder::step`], seeded, and collected in
//! order, so a killed trainer goes on to the same files.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::data::{self, Sampled};
use super::folder::{
    generation_dir, read_json, write_json, Rescale, FAR_BIN, FROM_F32, GATE_START,
};
use super::generation::Generations;
use super::{Phase, TrainError};
use crate::enemy::EnemyKind;
use crate::evaluate::Lookahead;
use crate::nnue::{Net, NetEvaluator, QuantNet, Sample};
use crate::run::{self, start::Start};
use crate::search::small::{self, Order, Shape};
use crate::search::{Adversary, Search};
use crate::strength::{measure_positions, paired_difference, Outcome, Position, Summary};

/// The learning loop's settings (see the module doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Learning {
    /// Generations whose samples and targets a fit reads: this one and the
    /// `window − 1` before it.
    pub window: u32,
    /// Long games: starts for the sampling beams and for the gate.
    pub games: Vec<Game>,
    /// A sampling beam starts every this many pieces, from piece 100, in
    /// each game and in the master beam's game (its deepest well's).
    pub start_every: u32,
    /// The sampling beams.
    pub start_beam: Shape,
    /// Wells drawn from the sampling beams per generation (each followed
    /// by `children` children and its chain point, as the master's are).
    pub start_samples: usize,
    /// Sampling beams also start this many pieces before the master
    /// beam's best game ended.
    pub before_death: Vec<u32>,
    /// A training beam that dies after this many pieces gets a graded
    /// target.
    pub graded_from: u32,
    /// The life term's horizon: a training beam that survives its pieces
    /// goes on to this piece to see whether it dies by then (its death
    /// kept in `died.bin`); 0 (and absent from the settings file): it
    /// stops at its last piece, as in the folders made before it. A
    /// setting of the targets step (`--life-pieces`).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub life_pieces: u32,
    /// The life term's weight, in standard deviations of the survivors'
    /// targets: the fit lowers the target of a training beam that died
    /// after its last piece by this much if it died at once, falling
    /// linearly to nothing at [`Learning::life_pieces`] ([`life_penalty`];
    /// `--life-weight`, a setting of the fit).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub life_weight: f64,
    /// The far share: a surviving training beam's target is its best value
    /// at its last piece moved this share of the way to its best value at
    /// the life term's horizon, where it reached it (`far.bin`, kept by the
    /// targets step with the life term; `--far-share`, a setting of the
    /// fit): a value that sees further than the training beam's pieces at
    /// no extra search. 0 (and absent from the settings file): the last
    /// piece's value alone, as in the folders made before it.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub far_share: f64,
    /// The reach term's share, in standard deviations of the survivors'
    /// targets: a sampled well the master beam kept gets this much more
    /// the further its line of play lasted in that beam, up to
    /// [`Learning::reach_horizon`] pieces, against the other kept wells
    /// of its depth ([`super::reach`]; `gen-NNN/reach.bin`, made before
    /// the fit from the master beam's depth files; `--reach-share`, a
    /// setting of the fit). 0 (and absent from the settings file): off.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub reach_share: f64,
    /// The pieces at which the reach term stops counting
    /// (`--reach-horizon`; 50 with `--reach-share`).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub reach_horizon: u32,
    /// The gate.
    pub gate: Gate,
    /// Each generation plays a master beam of its own, also when the
    /// champion has not changed: the champion's k-th master beam plays at
    /// [`Learning::master_width`] (k = 0 the asked width, then 5 % wider
    /// a step, k counted modulo [`FRESH_WIDTHS`] so that the width stays
    /// under 1.45 times the asked one), so that it plays another game and the
    /// window does not fill with samples of one game (learn-5's
    /// candidates grew worse as it did). Off (folders made before this
    /// field): a master beam whose champion has not changed is taken over.
    #[serde(default)]
    pub fresh_masters: bool,
}

/// The widths a champion's fresh master beams cycle through.
pub const FRESH_WIDTHS: u32 = 10;

impl Learning {
    /// Whether the reach term is on ([`Learning::reach_share`]).
    pub fn reach_term(&self) -> bool {
        self.reach_share > 0.0
    }

    /// The width of the champion's `k`-th master beam when the asked width
    /// is `width`: `width` for the first, then 5 % of it wider a step,
    /// back to `width` after [`FRESH_WIDTHS`].
    pub fn master_width(width: usize, k: u32) -> usize {
        width + width / 20 * (k % FRESH_WIDTHS) as usize
    }

    /// The widest master beam a folder with these settings plays.
    pub fn widest_master(&self, width: usize) -> usize {
        match self.fresh_masters {
            true => Learning::master_width(width, FRESH_WIDTHS - 1),
            false => width,
        }
    }
}

/// A long game, by name and replay (any of the game's formats).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Game {
    /// A short name.
    pub name: String,
    /// The replay.
    pub replay: String,
}

/// The gate's positions and search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    /// The long games its positions are taken from (besides the empty
    /// well): none of [`Learning::games`], so that the gate measures play
    /// in positions no sample came from. Empty (the first run's folder,
    /// `data/train/learn-1`, made before this field): the samples' games.
    #[serde(default)]
    pub games: Vec<Game>,
    /// The small search's width.
    pub width: usize,
    /// Pieces it plays at most from a start.
    pub cap: u32,
    /// The first start in each game (besides the empty well).
    pub first: u32,
    /// Then a start every this many pieces, up to 30 pieces before the
    /// game's end.
    pub every: u32,
    /// Games whose openings the gate also plays: a start every
    /// [`Gate::opening_every`] pieces before [`Gate::first`]. Games of
    /// other players from the empty well, none sampled and none in the
    /// strength suite, so that a candidate that lives longer in the steady
    /// state but plays the opening worse is not kept. Empty (folders made
    /// before this field): no openings.
    #[serde(default)]
    pub openings: Vec<Game>,
    /// The openings' spacing, in pieces (0: no openings).
    #[serde(default)]
    pub opening_every: u32,
    /// A candidate is kept only if its paired difference in pieces a
    /// position is more than this many standard errors above the
    /// champion's (and it survives more pieces in all). 0 (and absent from
    /// the settings file): more pieces in all is enough, as in the folders
    /// made before it; learn-9's generation 6 was kept on +1.1 ± 1.7 and
    /// then played 2.3 ± 2.0 pieces a start worse on the record's suite.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub margin: f64,
    /// Widths of the gate's wide games (`--gate-wide`; from the empty well,
    /// or from each of [`Gate::wide_from`]): a candidate the positions keep
    /// also plays one game at each width from each start, as a master beam
    /// does, and stays the champion only if it clears at least
    /// as many lines in all as the champion's games at the same widths.
    /// Empty (and absent from the settings file): no such games, as in the
    /// folders made before it. See [`WideGames`] for why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wide: Vec<usize>,
    /// Pieces of the gate's first game (the 366-line record by default)
    /// whose wells the wide games start from instead of the empty well,
    /// with the game's history, at each width of [`Gate::wide`]
    /// (`--gate-wide-from`): games in the steady state, where a record run
    /// lives. Empty (and absent from the settings file): the empty well.
    /// See [`WideGames`] for why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wide_from: Vec<u32>,
}

impl Gate {
    /// Where the wide games start: each piece of [`Gate::wide_from`], or 0
    /// (the empty well) when there are none.
    pub fn wide_starts(&self) -> Vec<u32> {
        match self.wide_from.is_empty() {
            true => vec![0],
            false => self.wide_from.clone(),
        }
    }

    /// Every wide game a net plays at this gate, as (width, start piece):
    /// each width of [`Gate::wide`] from each of [`Gate::wide_starts`].
    fn wide_pairs(&self) -> Vec<(usize, u32)> {
        let starts = self.wide_starts();
        self.wide
            .iter()
            .flat_map(|&w| starts.iter().map(move |&at| (w, at)))
            .collect()
    }

    /// The run folders of the start net's wide games under this gate, at
    /// the training folder's root (`start-wide-WIDTH…`): the champion's
    /// games until a generation's net is kept.
    pub fn start_net_games(&self) -> Vec<String> {
        self.wide_pairs()
            .into_iter()
            .map(|(w, at)| start_net_game(w, at))
            .collect()
    }

    /// The well of the gate's first game after `at` pieces, with the game
    /// before it: where a wide game from `at` starts.
    pub fn wide_start(&self, at: u32) -> Result<Start, String> {
        let game = self
            .games
            .first()
            .ok_or("the gate has no game to start wide games from")?;
        Start::from_replay(&game.replay, Some(at), EnemyKind::Hatetris)
            .map(|(start, _)| start)
            .map_err(|e| format!("{}: {e}", game.name))
    }
}

/// One of the gate's opening games, embedded.
fn opening(name: &str, replay: &str) -> Game {
    Game {
        name: name.into(),
        replay: replay.trim().into(),
    }
}

impl Default for Learning {
    fn default() -> Learning {
        Learning {
            window: 4,
            games: vec![Game {
                name: "dnf-302".into(),
                replay: include_str!("../../data/strength/dnf-302.txt")
                    .trim()
                    .into(),
            }],
            start_every: 25,
            start_beam: Shape {
                width: 100,
                pieces: 30,
            },
            start_samples: 50_000,
            before_death: vec![40, 20],
            graded_from: 10,
            life_pieces: 0,
            life_weight: 0.0,
            far_share: 0.0,
            reach_share: 0.0,
            reach_horizon: 0,
            gate: Gate {
                games: vec![Game {
                    name: "dnf-366".into(),
                    replay: include_str!("../../data/strength/dnf-366.txt")
                        .trim()
                        .into(),
                }],
                width: 300,
                cap: 300,
                first: 100,
                every: 20,
                openings: vec![
                    opening(
                        "dnf-148",
                        include_str!("../../data/train/openings/dnf-148.txt"),
                    ),
                    opening(
                        "dnf-152",
                        include_str!("../../data/train/openings/dnf-152.txt"),
                    ),
                    opening(
                        "tim-157",
                        include_str!("../../data/train/openings/tim-157.txt"),
                    ),
                    opening(
                        "tim-232",
                        include_str!("../../data/train/openings/tim-232.txt"),
                    ),
                    opening(
                        "knewjade-289",
                        include_str!("../../data/train/openings/knewjade-289.txt"),
                    ),
                ],
                opening_every: 20,
                margin: 0.0,
                wide: Vec::new(),
                wide_from: Vec::new(),
            },
            fresh_masters: false,
        }
    }
}

/// Where the steady state begins in the records (`NNUE.md`).
const STEADY: u32 = 100;

/// A gate's result for one generation, `gen-NNN/gate.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    /// The candidate's generation.
    pub generation: u32,
    /// The candidate's figures.
    pub candidate: Summary,
    /// Its outcome per gate position.
    pub outcomes: Vec<Outcome>,
    /// The champion it was measured against: the generation that made it
    /// (`None`: the start net).
    pub champion: Option<u32>,
    /// The champion's figures.
    pub champion_figures: Summary,
    /// Candidate minus champion, pieces per start: mean and standard
    /// error.
    pub pieces_difference: (f64, f64),
    /// The same for lines.
    pub lines_difference: (f64, f64),
    /// Whether the candidate became the champion.
    pub kept: bool,
    /// Why, in words.
    pub why: String,
    /// Wall seconds of the gate.
    pub seconds: f64,
    /// The wide games ([`Gate::wide`]), when the positions
    /// kept the candidate (a candidate they reject plays none: its verdict
    /// cannot change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wide: Option<WideGames>,
}

/// The gate's wide games, one per width of [`Gate::wide`] and start of
/// [`Gate::wide_starts`], the candidate's and the champion's.
///
/// # Why
/// The positions are played at width 300. learn-10's generation 8 won
/// there (+4.5 ± 2.0 pieces a start on the record's suite, +13.8 ± 2.4 at
/// width 1,000) and lost where a record run plays: 128 / 128 / 134 lines
/// from the empty well at widths 90,000 / 100,000 / 110,000 against the
/// shipped net's 143 / 168 / 180 (`data/train/README.md`, "learn-10"). No
/// narrow proxy saw it (games at width 30,000 favoured generation 8 too),
/// so the gate plays the wide games themselves. A game is a master beam's
/// run folder, resumable as one; the champion's game at the master width
/// is the master beam it would play, so the next generation copies it
/// rather than playing it again.
///
/// One game from the empty well is mostly its opening: `wide.nnue` scored
/// 230 lines from its own well at piece 200 and 133 from its rival's, and
/// its rival 128 and 187 (`data/train/learn-12/swap-200`), so the well a
/// game reaches by piece 200 moves it more than the net does; learn-11's
/// siblings on one data set scored 132 to 230. From the record's
/// steady-state wells the two nets were level (838 pieces each over three
/// starts at width 100,000). So the gate can start its games from wells of
/// its own steady-state game instead ([`Gate::wide_from`]), where a record
/// run lives, with that game's history. The opening is then judged by the
/// positions' openings at the gate's width alone; a record run can take
/// its opening from any game (`search --from`), and lives or dies in the
/// steady state. Summed with them, the game from the empty well (a spread
/// of about 100 lines between siblings) would outweigh the rest. learn-13
/// (`data/train/learn-13`): learn-12's candidate, +5.6 pieces a gate
/// position, lost from the 366 record's wells at pieces 300 / 500 / 700 at
/// width 100,000, 257 / 319 / 350 lines against `wide.nnue`'s 298 / 320 /
/// 364.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WideGames {
    /// The candidate's games: for each width of [`Gate::wide`], from each
    /// of [`Gate::wide_starts`].
    pub candidate: Vec<WideGame>,
    /// The champion's.
    pub champion: Vec<WideGame>,
}

/// One wide game of the gate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WideGame {
    /// The search's width.
    pub width: usize,
    /// The best game's lines (the whole game's, from the empty well).
    pub lines: u32,
    /// Its pieces (likewise).
    pub pieces: u32,
    /// The piece of the gate's game it started after (0, and absent from
    /// the file: the empty well).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub from: u32,
}

impl WideGame {
    /// Its run folder's name in a generation's folder: `wide-WIDTH`, or
    /// `wide-WIDTH-from-PIECE`.
    pub fn folder(width: usize, from: u32) -> String {
        match from {
            0 => format!("wide-{width}"),
            at => format!("wide-{width}-from-{at}"),
        }
    }

    /// `WIDTH` or `WIDTH from PIECE`, for a verdict's words.
    fn label(&self) -> String {
        match self.from {
            0 => self.width.to_string(),
            at => format!("{} from {at}", self.width),
        }
    }
}

/// The run folder of the start net's wide game at `width` from piece
/// `from`, at the training folder's root.
fn start_net_game(width: usize, from: u32) -> String {
    format!("start-{}", WideGame::folder(width, from))
}

/// The run folder, relative to the training folder, of the wide game at
/// `width` from piece `from` of the net generation `who` made (`None`: the
/// start net).
fn wide_game_folder(who: Option<u32>, width: usize, from: u32) -> PathBuf {
    match who {
        Some(h) => generation_dir(Path::new(""), h).join(WideGame::folder(width, from)),
        None => PathBuf::from(start_net_game(width, from)),
    }
}

/// One of the wide games of a gate in progress, as `hatetris status`
/// shows it: read from its run folder's manifest, so a trainer may be
/// playing it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateGame {
    /// Whose: the champion's (`true`) or the candidate's.
    pub champion: bool,
    /// Its width.
    pub width: usize,
    /// The piece of the gate's game it starts from (0: the empty well).
    pub from: u32,
    /// Its run folder, relative to the training folder.
    pub folder: PathBuf,
    /// The depths done and the best game's lines, once it has begun.
    pub played: Option<(u32, u16)>,
    /// Whether it is over: its beam died out or reached the depth limit.
    pub ended: bool,
}

impl Gate {
    /// The wide games generation `g`'s gate plays against the champion
    /// `champion` (`None`: the start net), the champion's first, each as
    /// far as its run folder under `dir` says (`master_depth`: the depth
    /// limit that ends one). Empty without wide games.
    pub(super) fn games_now(
        &self,
        dir: &Path,
        g: u32,
        champion: Option<u32>,
        master_depth: u32,
    ) -> Vec<GateGame> {
        [(true, champion), (false, Some(g))]
            .into_iter()
            .flat_map(|(is_champion, who)| {
                self.wide_pairs().into_iter().map(move |(width, from)| {
                    let folder = wide_game_folder(who, width, from);
                    let manifest = run::read_manifest(&dir.join(&folder)).ok();
                    GateGame {
                        champion: is_champion,
                        width,
                        from,
                        played: manifest.as_ref().map(|m| (m.depth, m.best.score)),
                        ended: manifest.is_some_and(|m| super::folder::game_over(&m, master_depth)),
                        folder,
                    }
                })
            })
            .collect()
    }
}

impl WideGames {
    /// Lines in all: the candidate's, the champion's.
    pub fn lines(&self) -> (u64, u64) {
        let sum = |g: &[WideGame]| g.iter().map(|g| u64::from(g.lines)).sum();
        (sum(&self.candidate), sum(&self.champion))
    }
}

impl GateRecord {
    /// The champion after this gate: the candidate if it was kept, else
    /// the one it was measured against.
    pub fn champion_after(&self) -> Option<u32> {
        match self.kept {
            true => Some(self.generation),
            false => self.champion,
        }
    }
}

/// `champion.json`: the net master, sampling and training beams use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Champion {
    /// The generation that made it (`None`: the start net).
    pub generation: Option<u32>,
    /// Its training net, relative to the folder.
    pub net: PathBuf,
    /// Its gate figures.
    pub figures: Summary,
    /// The generations after which it was the champion.
    pub through: u32,
}

/// `gate-start.json`: the start net's gate figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct StartFigures {
    figures: Summary,
    outcomes: Vec<Outcome>,
}

super::folder::json_step!(GateRecord, StartFigures);

/// The champion's file.
pub fn champion_path(dir: &Path) -> PathBuf {
    dir.join("champion.json")
}

/// The target of a training beam that died at piece `at` of `pieces`
/// (graded after `from` pieces: see the module doc).
pub fn graded(lost: f32, at: u32, pieces: u32, from: u32) -> f32 {
    if at <= from || pieces <= from {
        return lost;
    }
    let share = (at - from) as f32 / (pieces - from + 1) as f32;
    lost * (1.0 - 0.5 * share)
}

/// The life term of a training beam that survived its `pieces` and then
/// died at depth `at` (1 is the first piece after the sample's well) before
/// `horizon`: `weight` if it died at the first piece past its own, falling
/// linearly to `weight / (horizon − pieces)` at the horizon, and 0 for a
/// beam that never died there (`at` 0) or past the horizon (a window's older
/// generation with a longer one). Subtracted from the standardised target
/// (see [`Learning::life_weight`]).
pub fn life_penalty(weight: f64, at: u32, pieces: u32, horizon: u32) -> f32 {
    if at <= pieces || at > horizon {
        return 0.0;
    }
    (weight * f64::from(horizon + 1 - at) / f64::from(horizon - pieces)) as f32
}

impl Generations<'_> {
    pub(super) fn learning(&self) -> Option<&Learning> {
        self.config.learning.as_ref()
    }

    /// The generation whose net is the champion when generation `g` starts
    /// (`None`: the start net, or the heuristic when there is none). The
    /// plain loop's champion is always the previous generation's net.
    pub(super) fn champion_before(&self, g: u32) -> Result<Option<u32>, TrainError> {
        if self.learning().is_none() {
            return Ok(g.checked_sub(1));
        }
        let mut champion = None;
        for h in 0..g {
            let path = generation_dir(self.dir, h).join("gate.json");
            if let Some(gate) = read_json::<GateRecord>(&path)? {
                if gate.kept {
                    champion = Some(h);
                }
            }
        }
        Ok(champion)
    }

    /// The champion's training net when generation `g` starts.
    pub(super) fn champion_net(&self, g: u32) -> Result<Option<Net>, TrainError> {
        let path = match self.champion_before(g)? {
            Some(h) => generation_dir(self.dir, h).join("net.f32"),
            None => self.dir.join(FROM_F32),
        };
        Ok(if path.exists() {
            Some(Net::load(&path)?)
        } else {
            None
        })
    }

    /// The generation whose master beam generation `g` uses: its own, or
    /// with the learning loop an earlier one's when the champion is the
    /// same (a master beam depends on nothing else).
    pub(super) fn master_source(&self, g: u32) -> Result<u32, TrainError> {
        match self.learning() {
            Some(learning) if !learning.fresh_masters => self.champion_since(g),
            _ => Ok(g),
        }
    }

    /// The first generation whose master beam the champion of generation
    /// `g` played.
    fn champion_since(&self, g: u32) -> Result<u32, TrainError> {
        let champion = self.champion_before(g)?;
        let mut source = g;
        while source > 0 && self.champion_before(source - 1)? == champion {
            source -= 1;
        }
        Ok(source)
    }

    /// The width of generation `g`'s own master beam: the asked width, or
    /// with [`Learning::fresh_masters`] wider for each generation the
    /// champion has played one before.
    pub(super) fn master_width(&self, g: u32) -> Result<usize, TrainError> {
        let width = self.config.master_width;
        Ok(match self.learning() {
            Some(learning) if learning.fresh_masters => {
                Learning::master_width(width, g - self.champion_since(g)?)
            }
            _ => width,
        })
    }

    /// The gate's positions: the empty well and the starts of every game.
    fn gate_positions(&self, learning: &Learning) -> Result<Vec<Position>, TrainError> {
        let mut out = Vec::new();
        let games = match learning.gate.games.is_empty() {
            true => &learning.games,
            false => &learning.gate.games,
        };
        for (i, game) in games.iter().enumerate() {
            let length = self.game_length(game)?;
            let mut starts: Vec<u32> = if i == 0 { vec![0] } else { Vec::new() };
            let every = learning.gate.every.max(1);
            starts.extend(
                (learning.gate.first..length.saturating_sub(30))
                    .step_by(every as usize)
                    .filter(|&a| a > 0),
            );
            out.extend(self.positions(game, &starts)?);
        }
        if learning.gate.opening_every > 0 {
            let every = learning.gate.opening_every as usize;
            for game in &learning.gate.openings {
                let length = self.game_length(game)?;
                let end = learning.gate.first.min(length.saturating_sub(30));
                let starts: Vec<u32> = (every as u32..end).step_by(every).collect();
                out.extend(self.positions(game, &starts)?);
            }
        }
        Ok(out)
    }

    /// The pieces `game` lasts against HATETRIS.
    fn game_length(&self, game: &Game) -> Result<u32, TrainError> {
        let (_, prefix) = Start::from_replay(&game.replay, None, EnemyKind::Hatetris)
            .map_err(|e| self.bad_game(game, 0, e))?;
        Ok(prefix.at())
    }

    fn positions(&self, game: &Game, starts: &[u32]) -> Result<Vec<Position>, TrainError> {
        Position::all(&game.name, &game.replay, starts)
            .map_err(|(at, e)| self.bad_game(game, at, e))
    }

    fn bad_game(&self, game: &Game, at: u32, e: impl std::fmt::Display) -> TrainError {
        TrainError::Config {
            path: super::folder::config_path(self.dir),
            why: format!("game {}, piece {at}: {e}", game.name),
        }
    }

    /// The game of the master beam generation `g` samples from, rebuilt
    /// from its run folder (`None` when it has none): its deepest well's,
    /// so that the game ends where the beam died (the highest score's game
    /// can end long before, or at once when no line was cleared). A trainer's
    /// master beam writes no `best-replay.txt` (only `hatetris search`
    /// does), and until this was found the samples read that file, so the
    /// master's game and the wells before its end gave no samples at all,
    /// whatever [`Learning::before_death`] said.
    pub(super) fn master_game(&self, g: u32) -> Result<Option<Game>, TrainError> {
        let dir = self.master_dir(g)?;
        if !run::manifest_path(&dir).exists() {
            return Ok(None);
        }
        let game =
            run::keyframes::reconstruct(&dir, run::keyframes::Pick::Deepest).map_err(|e| {
                TrainError::Config {
                    path: dir.clone(),
                    why: format!("rebuilding the master beam's game: {e}"),
                }
            })?;
        Ok(Some(Game {
            name: "master".into(),
            replay: crate::replay::encode(&game.keys, crate::replay::Format::Base2048),
        }))
    }

    /// The steady-state samples of generation `g`: wells of sampling beams
    /// started in the games and in the master beam's game (see the
    /// module doc), `start_samples` of them drawn without replacement, each
    /// followed by `children` random children. Empty without the learning
    /// loop.
    pub(super) fn steady_samples(&self, g: u32) -> Result<Vec<Sampled>, TrainError> {
        let Some(learning) = self.learning() else {
            return Ok(Vec::new());
        };
        if self.learns_heuristic(g) {
            // The heuristic's values are its targets: nothing to play.
            return Ok(Vec::new());
        }
        let mut positions = Vec::new();
        let every = learning.start_every.max(1) as usize;
        for game in &learning.games {
            let length = self.game_length(game)?;
            let starts: Vec<u32> = (STEADY..length.saturating_sub(10)).step_by(every).collect();
            positions.extend(self.positions(game, &starts)?);
        }
        if let Some(game) = self.master_game(g)? {
            let length = self.game_length(&game)?;
            let mut starts: Vec<u32> = (STEADY..length).step_by(every).collect();
            starts.extend(
                learning
                    .before_death
                    .iter()
                    .filter(|&&b| b < length)
                    .map(|&b| length - b),
            );
            starts.sort_unstable();
            starts.dedup();
            positions.extend(self.positions(&game, &starts)?);
        }
        let eval = self
            .champion_evaluator(g)?
            .ok_or_else(|| TrainError::Config {
                path: super::folder::config_path(self.dir),
                why: "the learning loop's sampling beams need a net (the start net or the heuristic's first net) and found none".into(),
            })?;
        self.observer
            .phase(g, Phase::Samples, positions.len() as u64);
        let levels: Vec<Vec<Sampled>> = positions
            .par_iter()
            .map(|p| {
                let levels = small::levels(
                    &p.origin,
                    learning.start_beam,
                    EnemyKind::Hatetris,
                    &eval,
                    Order::Trainer,
                );
                self.observer.advanced(1);
                levels
                    .iter()
                    .enumerate()
                    .flat_map(|(i, level)| {
                        level.iter().map(move |&well| Sampled {
                            well,
                            depth: p.at + i as u32 + 1,
                        })
                    })
                    .collect()
            })
            .collect();
        let mut pool: Vec<Sampled> = levels.into_iter().flatten().collect();
        let mut rng = self.rng(0x0057_EAD1, g);
        let want = learning.start_samples.min(pool.len());
        super::samples::draw(&mut pool, want, &mut rng);
        let mut out = Vec::with_capacity(want * (1 + self.config.children));
        let mut children = Vec::new();
        for s in pool {
            self.push_with_children(s, &mut rng, &mut children, &mut out);
        }
        Ok(out)
    }

    /// The champion's quantised net when generation `g` starts, without
    /// the lookahead.
    pub(super) fn champion_evaluator(&self, g: u32) -> Result<Option<NetEvaluator>, TrainError> {
        Ok(match self.champion_net(g)? {
            Some(net) => Some(NetEvaluator::new(QuantNet::from_net(&net)?)),
            None => None,
        })
    }

    /// `net`, quantised, with the lookahead the master beam uses: how the
    /// gate plays every net it judges.
    fn lookahead(&self, net: &Net) -> Result<Lookahead<NetEvaluator>, TrainError> {
        Ok(Lookahead::new(
            NetEvaluator::new(QuantNet::from_net(net)?),
            self.config.quiescent,
        ))
    }

    /// The training batch of generation `g` with the learning loop: the
    /// samples and targets of the window's generations, each on the one
    /// scale (survivors standardised by their generation's map, deaths
    /// graded from the lost value). `None` without the learning loop.
    pub(super) fn window_batch(&self, g: u32) -> Result<Option<Vec<Sample>>, TrainError> {
        let Some(learning) = self.learning() else {
            return Ok(None);
        };
        let lost = self.config.lost_value as f32;
        let pieces = self.config.beam.pieces;
        let mut batch = Vec::new();
        for h in self.window(g) {
            let gen = generation_dir(self.dir, h);
            let samples = data::load_samples(&gen.join("samples.bin"))?;
            let targets = data::load_targets(&gen.join("targets.bin"))?;
            let died = match gen.join("died.bin") {
                p if p.exists() => data::load_targets(&p)?,
                _ => vec![0.0; targets.len()],
            };
            let rescale: Option<Rescale> = read_json(&gen.join("rescale.json"))?;
            let share = learning.far_share as f32;
            // An older generation of the window without far values (made
            // without the life term, or before it kept them) counts its
            // own targets alone, as the life term counts no later deaths
            // there, and so does the heuristic's generation (no training
            // beams); any other fit's own generation must have them.
            let far = match gen.join(FAR_BIN) {
                _ if share == 0.0 || self.learns_heuristic(h) => None,
                p if p.exists() => Some(data::load_targets(&p)?),
                _ if h < g => None,
                path => {
                    return Err(TrainError::Config {
                        path,
                        why: "missing: --far-share needs the targets made with --life-pieces \
                              by this version (a fork with --redo targets makes them)"
                            .into(),
                    })
                }
            };
            if let Some(far) = far.as_ref().filter(|f| f.len() != targets.len()) {
                return Err(TrainError::Config {
                    path: gen.join(FAR_BIN),
                    why: format!("{} values for {} targets", far.len(), targets.len()),
                });
            }
            let mut survived = Vec::with_capacity(samples.len());
            let mut values = Vec::with_capacity(samples.len());
            for (i, (&t, &d)) in targets.iter().zip(&died).enumerate() {
                let at = d as u32;
                let (target, survivor) = if at > 0 && at <= pieces {
                    (graded(lost, at, pieces, learning.graded_from), false)
                } else if t == lost {
                    (lost, false)
                } else {
                    let life = life_penalty(learning.life_weight, at, pieces, learning.life_pieces);
                    let t = far.as_ref().map_or(t, |f| t + share * (f[i] - t));
                    let target = match rescale {
                        Some(r) => r.scale * t + r.shift - life,
                        None => t - life,
                    };
                    (target, true)
                };
                survived.push(survivor);
                values.push(target);
            }
            if let Some(extra) = self.reach_bonus(h, &samples, &survived)? {
                for (v, e) in values.iter_mut().zip(extra) {
                    *v += e;
                }
            }
            batch.extend(samples.iter().zip(values).map(|(s, target)| Sample {
                well: s.well,
                target,
                group: s.depth,
            }));
        }
        Ok(Some(batch))
    }

    /// The generations whose samples and targets generation `g`'s fit
    /// reads: the window's, less the heuristic's generation when it is
    /// not `g` itself (its targets are the heuristic's values).
    pub(super) fn window(&self, g: u32) -> Vec<u32> {
        let width = self.learning().map_or(1, |l| l.window.max(1));
        (g.saturating_sub(width - 1)..=g)
            .filter(|&h| !self.learns_heuristic(h) || h == g)
            .collect()
    }

    /// Step 5 with the learning loop: generation `g`'s net against the
    /// champion on the gate positions; `gate.json`, then `champion.json`.
    pub(super) fn gate(&self, g: u32) -> Result<Option<GateRecord>, TrainError> {
        let Some(learning) = self.learning() else {
            return Ok(None);
        };
        let path = generation_dir(self.dir, g).join("gate.json");
        let record = self.step(g, Phase::Gate, &path, || {
            let started = std::time::Instant::now();
            let positions = self.gate_positions(learning)?;
            self.observer.phase(g, Phase::Gate, 2);
            let champion = self.champion_before(g)?;
            let champion_outcomes = match champion {
                Some(h) => {
                    let path = generation_dir(self.dir, h).join("gate.json");
                    read_json::<GateRecord>(&path)?
                        .map(|r| r.outcomes)
                        .ok_or_else(|| TrainError::Config {
                            path,
                            why: "missing (the champion's gate wrote it)".into(),
                        })?
                }
                None => self.start_figures(learning, &positions)?,
            };
            self.observer.advanced(1);
            let net = Net::load(&generation_dir(self.dir, g).join("net.f32"))?;
            let eval = self.lookahead(&net)?;
            let outcomes = measure_positions(
                &positions,
                learning.gate.cap,
                &eval,
                learning.gate.width,
                &|_, _| {},
            );
            self.observer.advanced(1);
            let record = judge(
                g,
                champion,
                outcomes,
                &champion_outcomes,
                learning.gate.margin,
                0.0,
            );
            let wide = &learning.gate.wide;
            let mut record = match record.kept && !wide.is_empty() && !champion_outcomes.is_empty()
            {
                false => record,
                true => {
                    let theirs = self.champion_net(g)?.ok_or_else(|| TrainError::Config {
                        path: champion_path(self.dir),
                        why: "the gate's champion has no net".into(),
                    })?;
                    let games = WideGames {
                        champion: self.wide_games(g, champion, &theirs, &learning.gate)?,
                        candidate: self.wide_games(g, Some(g), &net, &learning.gate)?,
                    };
                    judge_wide(record, games)
                }
            };
            record.seconds = started.elapsed().as_secs_f64();
            Ok(record)
        })?;
        self.commit_champion(g, &record)?;
        Ok(Some(record))
    }

    /// The run folder of the wide game at `width` from piece `from` of the
    /// gate's game (0: the empty well) of the net generation `who` made
    /// (`None`: the start net).
    fn wide_dir(&self, who: Option<u32>, width: usize, from: u32) -> PathBuf {
        self.dir.join(wide_game_folder(who, width, from))
    }

    /// The wide games of `net`, the net generation `who` made, for
    /// generation `g`'s gate: at each width of `gate`, from each of its
    /// starts; played, gone on with after a kill, or read when done. A game
    /// from the empty well at a width that net played a master beam at is
    /// that master beam, copied; a start net's game that a fork's source
    /// has played to its end since the fork is the source's, copied
    /// ([`super::fork::source_start_game`]).
    fn wide_games(
        &self,
        g: u32,
        who: Option<u32>,
        net: &Net,
        gate: &Gate,
    ) -> Result<Vec<WideGame>, TrainError> {
        let eval = self.lookahead(net)?;
        let mut games = Vec::new();
        for (width, from) in gate.wide_pairs() {
            let dir = self.wide_dir(who, width, from);
            if who.is_none() {
                let name = start_net_game(width, from);
                if let Some(theirs) = super::fork::source_start_game(self.dir, self.config, &name)?
                {
                    copy_unless_run(&theirs, &dir)?;
                }
            }
            let start = match from {
                0 => {
                    if let Some(master) = self.master_played(g, who, width)? {
                        copy_unless_run(&master, &dir)?;
                    }
                    None
                }
                at => Some(gate.wide_start(at).map_err(|why| TrainError::Config {
                    path: super::folder::config_path(self.dir),
                    why,
                })?),
            };
            let search = Search {
                width,
                evaluator: &eval,
                adversary: Adversary::new(EnemyKind::Hatetris),
            };
            let result = self.resume_or_start(&dir, &search, start.as_ref())?;
            games.push(WideGame {
                width,
                lines: u32::from(result.best.score),
                pieces: result.best.depth,
                from,
            });
        }
        Ok(games)
    }

    /// The master beam the net generation `who` made (`None`: the start
    /// net) played at `width`, in a generation up to `g`, if any.
    fn master_played(
        &self,
        g: u32,
        who: Option<u32>,
        width: usize,
    ) -> Result<Option<PathBuf>, TrainError> {
        for k in 0..=g {
            let played = !self.learns_heuristic(k)
                && self.master_source(k)? == k
                && self.champion_before(k)? == who
                && self.master_width(k)? == width;
            if played {
                return Ok(Some(generation_dir(self.dir, k).join("master")));
            }
        }
        Ok(None)
    }

    /// Before generation `g` plays its master beam at `width` in `dir`:
    /// when the champion already played the gate's game from the empty
    /// well at that width, a copy of it (the same net, width and search:
    /// the same game).
    pub(super) fn take_over_wide_game(
        &self,
        g: u32,
        width: usize,
        dir: &Path,
    ) -> Result<(), TrainError> {
        match self.learning() {
            Some(l) if l.gate.wide.contains(&width) && l.gate.wide_from.is_empty() => {
                let champion = self.champion_before(g)?;
                copy_unless_run(&self.wide_dir(champion, width, 0), dir)
            }
            _ => Ok(()),
        }
    }

    /// The start net's gate outcomes (`gate-start.json`, once per
    /// folder); empty when there is no start net (the first generation then
    /// learns the heuristic, and its net is kept whatever it does).
    fn start_figures(
        &self,
        learning: &Learning,
        positions: &[Position],
    ) -> Result<Vec<Outcome>, TrainError> {
        let from = self.dir.join(FROM_F32);
        if !from.exists() {
            return Ok(Vec::new());
        }
        let path = self.dir.join(GATE_START);
        let (f, _) = super::folder::step(&path, || {
            let net = Net::load(&from)?;
            let eval = self.lookahead(&net)?;
            let outcomes = measure_positions(
                positions,
                learning.gate.cap,
                &eval,
                learning.gate.width,
                &|_, _| {},
            );
            Ok(StartFigures {
                figures: Summary::of(&outcomes),
                outcomes,
            })
        })?;
        Ok(f.outcomes)
    }

    /// Writes `champion.json` for the champion after generation `g`.
    fn commit_champion(&self, g: u32, record: &GateRecord) -> Result<(), TrainError> {
        let champion = record.champion_after();
        let net = match champion {
            Some(h) => PathBuf::from(format!("gen-{h:03}/net.f32")),
            None => PathBuf::from(FROM_F32),
        };
        let figures = match record.kept {
            true => record.candidate.clone(),
            false => record.champion_figures.clone(),
        };
        write_json(
            &champion_path(self.dir),
            &Champion {
                generation: champion,
                net,
                figures,
                through: g,
            },
        )
    }
}

/// Copies the finished run `from` to `to` when `to` holds no run yet (a
/// folder killed before its manifest is cleared first); nothing when
/// `from` holds none.
fn copy_unless_run(from: &Path, to: &Path) -> Result<(), TrainError> {
    if run::manifest_path(to).exists() || !run::manifest_path(from).exists() {
        return Ok(());
    }
    if to.exists() {
        std::fs::remove_dir_all(to).map_err(crate::folder::io(to))?;
    }
    super::fork::copy_run(from, to)
}

/// The gate's verdict: kept if the candidate survived more pieces in all
/// (ties: more lines) and, with a `margin` above 0, its paired difference in
/// pieces a position is more than `margin` standard errors; the first net of
/// a folder without a start net is kept whatever it does.
fn judge(
    g: u32,
    champion: Option<u32>,
    outcomes: Vec<Outcome>,
    champion_outcomes: &[Outcome],
    margin: f64,
    seconds: f64,
) -> GateRecord {
    let candidate = Summary::of(&outcomes);
    if champion_outcomes.is_empty() {
        return GateRecord {
            generation: g,
            champion_figures: candidate.clone(),
            candidate,
            outcomes,
            champion,
            pieces_difference: (0.0, 0.0),
            lines_difference: (0.0, 0.0),
            kept: true,
            why: "the folder's first net (no start net to beat)".to_string(),
            seconds,
            wide: None,
        };
    }
    let pieces = |o: &[Outcome]| o.iter().map(|o| f64::from(o.pieces)).collect::<Vec<_>>();
    let lines = |o: &[Outcome]| o.iter().map(|o| f64::from(o.lines)).collect::<Vec<_>>();
    let total_lines = |o: &[Outcome]| o.iter().map(|o| u64::from(o.lines)).sum::<u64>();
    let champion_figures = Summary::of(champion_outcomes);
    let ours = (candidate.pieces, total_lines(&outcomes));
    let best = (champion_figures.pieces, total_lines(champion_outcomes));
    let pieces_difference = paired_difference(&pieces(&outcomes), &pieces(champion_outcomes));
    let lines_difference = paired_difference(&lines(&outcomes), &lines(champion_outcomes));
    let (dp, se) = pieces_difference;
    let more = ours.0 > best.0 || (ours.0 == best.0 && ours.1 > best.1);
    let clear = margin <= 0.0 || dp > margin * se;
    let verdict = match (more, clear) {
        (true, true) => "kept".to_string(),
        (false, _) => "not kept".to_string(),
        (true, false) => format!(
            "not kept (+{dp:.2} ± {se:.2} pieces a position is not above {margin} standard errors)"
        ),
    };
    let why = format!(
        "{} pieces and {} lines in all against the champion's {} and {}: {verdict}",
        ours.0, ours.1, best.0, best.1
    );
    GateRecord {
        generation: g,
        candidate,
        outcomes,
        champion,
        champion_figures,
        pieces_difference,
        lines_difference,
        kept: more && clear,
        why,
        seconds,
        wide: None,
    }
}

/// The verdict with the games from the empty well: a candidate the
/// positions kept stays kept only if its games clear at least as many
/// lines in all as the champion's (a tie is the candidate's: it has
/// already won on the positions).
fn judge_wide(mut record: GateRecord, games: WideGames) -> GateRecord {
    let (ours, theirs) = games.lines();
    let per_width = |g: &[WideGame]| {
        g.iter()
            .map(|g| g.lines.to_string())
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let widths = games
        .candidate
        .iter()
        .map(WideGame::label)
        .collect::<Vec<_>>()
        .join(" / ");
    let wide_kept = ours >= theirs;
    let from = match games.candidate.iter().any(|g| g.from > 0) {
        true => "the wide games",
        false => "from the empty well",
    };
    record.why = format!(
        "{}; {from} at widths {widths}: {} lines against the champion's {}: {}",
        record.why,
        per_width(&games.candidate),
        per_width(&games.champion),
        match wide_kept {
            true => "kept",
            false => "not kept",
        }
    );
    record.kept = record.kept && wide_kept;
    record.wide = Some(games);
    record
}

/// The gate figures of every generation in `dir` that was gated.
pub fn gates(dir: &Path) -> Result<Vec<GateRecord>, TrainError> {
    let mut out = Vec::new();
    for g in 0.. {
        let gen = generation_dir(dir, g);
        if !gen.is_dir() {
            break;
        }
        if let Some(r) = read_json::<GateRecord>(&gen.join("gate.json"))? {
            out.push(r);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Silent;
    use crate::train::Config;
    use crate::well::Well;

    fn outcome(pieces: u32, lines: u32) -> Outcome {
        Outcome {
            pieces,
            died: pieces < 300,
            lines,
            lines_after: None,
        }
    }

    /// A candidate that survives fewer pieces in all loses even where it
    /// wins most positions; the old champion stays, and a tie on pieces
    /// goes to lines, a tie on both to the champion.
    #[test]
    fn the_gate_keeps_the_champion_when_a_candidate_loses() {
        let champion = [outcome(200, 80), outcome(50, 20), outcome(60, 24)];
        let loser = [outcome(100, 40), outcome(55, 22), outcome(65, 26)];
        let r = judge(7, Some(3), loser.to_vec(), &champion, 0.0, 0.0);
        assert!(!r.kept, "{}", r.why);
        assert_eq!(r.champion_after(), Some(3));
        assert_eq!(r.champion_figures, Summary::of(&champion));
        assert_eq!(r.pieces_difference.0, (-100.0 + 5.0 + 5.0) / 3.0);

        let more_lines = [outcome(200, 81), outcome(50, 20), outcome(60, 24)];
        let r = judge(7, Some(3), more_lines.to_vec(), &champion, 0.0, 0.0);
        assert!(r.kept, "{}", r.why);
        assert_eq!(r.champion_after(), Some(7));

        let r = judge(7, Some(3), champion.to_vec(), &champion, 0.0, 0.0);
        assert!(!r.kept, "a tie is the champion's: {}", r.why);
        assert_eq!(r.champion_after(), Some(3));

        // Without a start net, the folder's first net has no rival.
        let r = judge(0, None, loser.to_vec(), &[], 0.0, 0.0);
        assert!(r.kept);
        assert_eq!(r.champion_after(), Some(0));
    }

    /// A candidate the positions keep loses on the games from the empty
    /// well when its lines there are fewer in all, whatever each width
    /// says; a tie is the candidate's, and a rejected one stays rejected.
    #[test]
    fn the_wide_games_keep_the_champion_when_a_candidate_clears_fewer_lines() {
        let champion = [outcome(100, 40), outcome(100, 40)];
        let better = [outcome(120, 48), outcome(110, 44)];
        let game = |width, lines| WideGame {
            width,
            lines,
            pieces: lines * 5 / 2,
            from: 0,
        };
        let games = |ours: [u32; 2], theirs: [u32; 2]| WideGames {
            candidate: vec![game(1000, ours[0]), game(2000, ours[1])],
            champion: vec![game(1000, theirs[0]), game(2000, theirs[1])],
        };
        let kept = judge(4, Some(1), better.to_vec(), &champion, 0.0, 0.0);
        assert!(kept.kept);
        let r = judge_wide(kept.clone(), games([150, 90], [100, 141]));
        assert!(!r.kept, "240 lines against 241: {}", r.why);
        assert_eq!(r.champion_after(), Some(1));
        assert!(r
            .why
            .contains("150 / 90 lines against the champion's 100 / 141: not kept"));
        let r = judge_wide(kept.clone(), games([120, 121], [100, 141]));
        assert!(r.kept, "a tie: {}", r.why);
        assert_eq!(r.champion_after(), Some(4));
        assert_eq!(r.wide.as_ref().unwrap().lines(), (241, 241));
        let rejected = judge(4, Some(1), champion.to_vec(), &better, 0.0, 0.0);
        assert!(!judge_wide(rejected, games([200, 200], [1, 1])).kept);
        // Games from the steady state are named by their start.
        let mut from = games([120, 400], [100, 380]);
        from.candidate[1].from = 200;
        from.champion[1].from = 200;
        let r = judge_wide(kept, from);
        assert!(
            r.why
                .contains("the wide games at widths 1000 / 2000 from 200: 120 / 400 lines"),
            "{}",
            r.why
        );
    }

    /// With a margin, a candidate that survives more pieces in all is kept
    /// only when its paired difference clears that many standard errors.
    #[test]
    fn a_gate_margin_keeps_the_champion_on_a_difference_within_the_noise() {
        let champion = [outcome(100, 40), outcome(100, 40), outcome(100, 40)];
        // +2 a position, standard error 1 (differences 3, 2, 1).
        let close = [outcome(103, 41), outcome(102, 41), outcome(101, 40)];
        let r = judge(5, Some(2), close.to_vec(), &champion, 0.0, 0.0);
        assert!(r.kept, "{}", r.why);
        let r = judge(5, Some(2), close.to_vec(), &champion, 1.5, 0.0);
        assert!((r.pieces_difference.0 - 2.0).abs() < 1e-12);
        assert!(
            (r.pieces_difference.1 - 1.0 / 3f64.sqrt()).abs() < 1e-9,
            "{:?}",
            r.pieces_difference
        );
        assert!(r.kept, "2 > 1.5 × 0.577: {}", r.why);
        let r = judge(5, Some(2), close.to_vec(), &champion, 4.0, 0.0);
        assert!(!r.kept, "{}", r.why);
        assert_eq!(r.champion_after(), Some(2));
        assert!(r.why.contains("standard errors"), "{}", r.why);
    }

    /// The window of generation `g` reads exactly generations
    /// `g - window + 1 ..= g`, in order, each sample once, and skips a
    /// generation 0 that learned the heuristic (its targets are on
    /// another scale).
    #[test]
    fn the_window_reads_exactly_its_generations() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config {
            learning: Some(Learning {
                window: 3,
                ..Learning::default()
            }),
            ..Config::default()
        };
        // Generation h holds h + 2 samples, each well marked by its
        // generation and index, with targets h + i / 100.
        let well = |h: u32, i: u32| {
            let mut rows = [0u16; crate::well::LIVE_ROWS];
            rows[crate::well::LIVE_ROWS - 1] = (h * 64 + i + 1) as u16;
            Well::from_live_rows(rows).unwrap()
        };
        for h in 0..6u32 {
            let gen = generation_dir(dir.path(), h);
            std::fs::create_dir_all(&gen).unwrap();
            let samples: Vec<Sampled> = (0..h + 2)
                .map(|i| Sampled {
                    well: well(h, i),
                    depth: i,
                })
                .collect();
            let targets: Vec<f32> = (0..h + 2).map(|i| h as f32 + i as f32 / 100.0).collect();
            data::save_samples(&gen.join("samples.bin"), &samples).unwrap();
            data::save_targets(&gen.join("targets.bin"), &targets).unwrap();
        }
        let gens = Generations {
            dir: dir.path(),
            config: &config,
            threads: 1,
            observer: &Silent,
        };
        let expect = |hs: &[u32]| -> Vec<(Well, f32)> {
            hs.iter()
                .flat_map(|&h| (0..h + 2).map(move |i| (well(h, i), h as f32 + i as f32 / 100.0)))
                .collect()
        };
        let read = |g: u32| -> Vec<(Well, f32)> {
            let batch = gens.window_batch(g).unwrap().unwrap();
            batch.iter().map(|s| (s.well, s.target)).collect()
        };
        assert_eq!(read(5), expect(&[3, 4, 5]));
        assert_eq!(read(3), expect(&[1, 2, 3]));
        // Generation 0 learned the heuristic (no start net): not read later.
        assert_eq!(read(2), expect(&[1, 2]));
        assert_eq!(read(0), expect(&[0]));
        // With a start net, generation 0 is a generation like the others.
        std::fs::write(dir.path().join(FROM_F32), b"").unwrap();
        assert_eq!(read(2), expect(&[0, 1, 2]));
    }
}
