//! The learning loop's additions to a generation: a champion kept by a
//! gate, a window of generations to fit on, samples from the steady state
//! of long games, and training targets graded by how long a dying beam
//! lasted. All of it is off in a folder whose settings have no
//! [`Learning`] (the folders made before it go on as they were).
//!
//! This module holds the loop's settings ([`Learning`], with the gate's,
//! [`Gate`]), the window, the steady-state samples and the graded
//! targets; the gate's step and the champion it keeps are
//! [`super::gate`]'s, and the reach term is [`super::reach`]'s.
//!
//! # Why
//! The plain loop fitted each net to its own generation's data alone, made
//! the next master beam with it whatever it was worth, and sampled only
//! master beams from the empty well, which die by piece 400: it got worse
//! after its third generation (79 lines at width 10,000, then 68 and 39),
//! and it never saw the steady state every long record lives in (from
//! about piece 100: stack 10-16 rows, about 0.40 lines a piece;
//! `NNUE.md`). So:
//! - **the gate** ([`super::gate`]): a generation's net (the candidate)
//!   becomes the champion only if it survives longer than the champion
//!   from a set of positions (the same at every gate, or taking turns over
//!   games with [`Gate::rotate`]), and, with wide games, clears at least
//!   as many lines in them (less [`Gate::wide_slack`]); master beams,
//!   sampling beams and training beams all use the champion. A master
//!   beam whose champion has not changed is the previous one's, not
//!   played again; with
//!   [`Learning::fresh_masters`] (`--fresh-masters`) it is played again
//!   wider, so that the window holds several games;
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
//! - **the gate's wide games** (`--wide-samples`, `--wide-gates`,
//!   `--wide-unread`; off by default): wells of the last gates' finished
//!   wide games (with `--gate-wide-always` every gate's), labelled with
//!   how far the wide search carried each ([`super::wide`], whose module
//!   doc has the measurement that made it a setting);
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

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::data::{self, Sampled};
use super::folder::{generation_dir, read_json, Rescale, FAR_BIN};
use super::generation::Generations;
use super::{Phase, TrainError};
use crate::enemy::EnemyKind;
use crate::nnue::{NetEvaluator, QuantNet, Sample};
use crate::run::{self, start::Start};
use crate::search::small::{self, Order, Shape};
use crate::strength::Position;

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
    /// Samples from the gate's wide games ([`super::wide`]): up to this
    /// many wells a depth of each game from the family its beam went on
    /// with, and as many from all its wells, added to a generation's
    /// samples with their reach as labels (`--wide-samples`, a setting of
    /// the samples step). 0 (and absent from the settings file): none.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub wide_samples: u32,
    /// The wide samples come from the games of the last this many gates
    /// that played wide games (`--wide-gates`; 2 with `--wide-samples`).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub wide_gates: u32,
    /// A generation's wide samples leave out the games its champion's own
    /// wide samples were drawn from (`--wide-unread`, a setting of the
    /// samples step), so that a fit from the champion reads only games it
    /// has not read. Off (and absent from the settings file): every game of
    /// the last [`Learning::wide_gates`] gates. See [`super::wide`] for why.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub wide_unread: bool,
    /// With [`Learning::wide_unread`], a generation left fewer unread games
    /// than this (on disk) reaches back one gate at a time until it has as
    /// many or no gate is left (`--wide-unread-min`, a setting of the
    /// samples step): a new champion's first successor otherwise draws
    /// from the champion's own gate alone (`wy`'s generation 14: three
    /// games, 2,804 wells, against 26,867 before). 0 (and absent from the
    /// settings file): the last [`Learning::wide_gates`] gates however few
    /// games they leave.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub wide_unread_min: u32,
    /// A generation's wide samples leave out the games from the starts its
    /// own gate plays ([`Gate::wide_starts`]; `--wide-spare-starts`, a
    /// setting of the samples step), so that the candidate's wide games and
    /// the champion's it is weighed against go on from wells whose
    /// continuations its fit never read. Otherwise the window holds the
    /// champion's earlier game from the very start the candidate is judged
    /// on, with where it died. Needs [`Gate::wide_rotate`] (a gate playing
    /// every start would leave nothing). Off (and absent from the settings
    /// file): every game of the window.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub wide_spare_starts: bool,
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
    /// Every game the default settings embed: their [`Learning::games`],
    /// [`Gate::games`] and [`Gate::openings`], which `--gate-games` and
    /// `--gate-wide-game` name.
    pub fn embedded_games() -> Vec<Game> {
        let defaults = Learning::default();
        let gate = defaults.gate;
        let games = defaults.games.into_iter().chain(gate.games);
        games.chain(gate.openings).collect()
    }

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
    /// well): none of [`Learning::games`] while [`Learning::start_samples`]
    /// draws from them, nor [`Gate::wide_game`] while the wide samples do,
    /// so that the gate measures play in positions no sample came from
    /// (`--gate-games`, `--gate-rotate` and `--gate-wide-game` refuse them;
    /// a folder made before, or started without those flags, may hold the
    /// wide game, as the default does). Empty (the first run's folder,
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
    /// The standard error that [`Gate::margin`] counts in treats the
    /// positions of one game in the same stretch of this many pieces (the
    /// same `start / block`) as one draw (`--gate-block`,
    /// [`crate::strength::blocks`]), as [`crate::stats::clustered_mean_se`] says
    /// why. 0 (and absent from the settings file): each position a draw, as
    /// in the folders made before it.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub block: u32,
    /// Widths of the gate's wide games (`--gate-wide`; from the empty well,
    /// or from each of [`Gate::wide_from`]): a candidate the positions keep
    /// also plays one game at each width from each start, as a master beam
    /// does, and stays the champion only if it clears at least
    /// as many lines in all as the champion's games at the same widths
    /// (less [`Gate::wide_slack`]).
    /// Empty (and absent from the settings file): no such games, as in the
    /// folders made before it. See [`WideGames`](super::WideGames) for why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wide: Vec<usize>,
    /// Pieces of [`Gate::wide_game`] (the 366-line record by default)
    /// whose wells the wide games start from instead of the empty well,
    /// with the game's history, at each width of [`Gate::wide`]
    /// (`--gate-wide-from`): games in the steady state, where a record run
    /// lives. Empty (and absent from the settings file): the empty well.
    /// See [`WideGames`](super::WideGames) for why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wide_from: Vec<u32>,
    /// How many of [`Gate::wide_from`]'s starts each gate plays
    /// (`--gate-wide-rotate`): generation g's gate the next that many in
    /// turn, from start `g × wide_rotate` (cyclically), the champion's
    /// games as well as the candidate's. 0 (and absent from the settings
    /// file): every start at every gate. See [`Gate::wide_starts`] for why.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub wide_rotate: u32,
    /// The wide games are played at every gate, also when the positions
    /// reject the candidate (`--gate-wide-always`); the verdict is the
    /// positions' then, and the games are data for the next generations'
    /// wide samples. Off (and absent from the settings file): only a
    /// candidate the positions keep plays them. See [`WideGames`](super::WideGames)
    /// for why.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub wide_always: bool,
    /// Lines the candidate's wide games may fall short of the champion's
    /// in all while it stays kept (`--gate-wide-slack`): the positions'
    /// verdict stands unless the wide games say clearly otherwise. 0 (and
    /// absent from the settings file): at least as many lines.
    ///
    /// # Why
    /// From the 366 record's wells at width 10,000, one start's paired
    /// difference between two nets has a standard deviation of 12.5-13.7
    /// lines, so three games' sum about 22: `wv`'s generations 10 and 11
    /// won the positions (+1.0 ± 2.0, +1.3 ± 1.7 pieces a position) and
    /// lost their three games by 16 and 37 lines (`data/train/README.md`,
    /// "`wu` and `wv`"), each time by one game.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub wide_slack: u32,
    /// Names of games (of [`Gate::games`] and [`Gate::openings`]) whose
    /// steady states the gate's positions take turns over
    /// (`--gate-rotate`): generation g's gate plays the empty well, the
    /// openings and the starts of one of them, the g-th in turn unless the
    /// champion was kept on it, then the next; and it measures the
    /// champion there too, rather than reading back the figures of the gate
    /// that kept it. Empty (and absent from the settings file): every gate
    /// plays the same positions, those of [`Gate::games`]. See
    /// [`Gate::steady_game`] for why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rotate: Vec<String>,
    /// The game whose wells the wide games start from at the pieces of
    /// [`Gate::wide_from`], when it is not the first of [`Gate::games`]
    /// (`--gate-wide-game`; `--gate-games` keeps it where it was). The wide
    /// samples are continuations of its wells, so the gate must not judge
    /// on it (`data/train/README.md`, "The gate judged where its samples
    /// come from"). Absent from the settings file: the first of
    /// [`Gate::games`], as in the folders made before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wide_game: Option<Game>,
}

impl Gate {
    /// Where generation `g`'s wide games start: each piece of
    /// [`Gate::wide_from`], or the [`Gate::wide_rotate`] of them whose turn
    /// it is, or 0 (the empty well) when there are none.
    ///
    /// # Why
    /// Two nets differ from start to start by as much as the gains sought:
    /// from the 366 record's wells at width 10,000 a start's paired
    /// difference had a standard deviation of 12.5-13.7 lines on games of
    /// about 70, and over twelve starts the nets were level. It is the net
    /// on that position, not the search's luck: 5 % narrower, each net's
    /// game from piece 300 ended within 2 and 30 pieces of where it had
    /// (`data/train/README.md`, "How noisy is one wide game?"). A champion
    /// is the net whose games beat its champion's, so on the starts that
    /// kept it, it plays better than its average, and a candidate as strong
    /// meets that at every later gate on the same starts. On fresh starts,
    /// where the champion plays too, it meets a fair draw. Rotating also
    /// spreads a run's gates over more starts, for the cost of the
    /// champion's games on the new ones.
    pub fn wide_starts(&self, g: u32) -> Vec<u32> {
        let (n, turn) = (self.wide_from.len(), self.wide_rotate as usize);
        match n == 0 || turn == 0 {
            true => self.every_wide_start(),
            false => (0..turn.min(n))
                .map(|i| self.wide_from[(g as usize * turn + i) % n])
                .collect(),
        }
    }

    /// Each piece of [`Gate::wide_from`], or 0 (the empty well) when there
    /// are none.
    fn every_wide_start(&self) -> Vec<u32> {
        match self.wide_from.is_empty() {
            true => vec![0],
            false => self.wide_from.clone(),
        }
    }

    /// Every wide game a net plays at generation `g`'s gate, as (width,
    /// start piece): each width of [`Gate::wide`] from each of
    /// [`Gate::wide_starts`].
    pub(super) fn wide_pairs(&self, g: u32) -> Vec<(usize, u32)> {
        self.pairs(&self.wide_starts(g))
    }

    /// Every wide game a net may play at any gate: each width from each
    /// start of [`Gate::wide_from`] (or the empty well).
    pub(super) fn all_wide_pairs(&self) -> Vec<(usize, u32)> {
        self.pairs(&self.every_wide_start())
    }

    fn pairs(&self, starts: &[u32]) -> Vec<(usize, u32)> {
        self.wide
            .iter()
            .flat_map(|&w| starts.iter().map(move |&at| (w, at)))
            .collect()
    }

    /// The games of [`Gate::games`] and [`Gate::openings`]: those
    /// [`Gate::rotate`] may name.
    pub fn named_games(&self) -> impl Iterator<Item = &Game> {
        self.games.iter().chain(&self.openings)
    }

    /// The game of [`Gate::named_games`] named `name`.
    pub fn game(&self, name: &str) -> Option<&Game> {
        self.named_games().find(|game| game.name == name)
    }

    /// The game whose steady-state starts generation `g`'s gate plays
    /// under [`Gate::rotate`] (`None` without it), given the games the
    /// champion was kept on (`kept_on`; empty for the start net): the g-th
    /// in turn, or the next in turn that did not keep the champion.
    ///
    /// # Why
    /// A champion is the net that beat its champion on the gate's
    /// positions, so some of its margin there is luck on those very
    /// positions, and a later candidate as strong meets that luck at every
    /// gate on them: a winner's curse. `wl`'s generation 6 was kept on
    /// +16.9 pieces a position of the 366 record's steady state; of its
    /// successors `wu`'s generation 8 lost there (−0.5 ± 2.2) and `wv`'s 9
    /// by −5.7 ± 1.9, while on the record's strength suite, which chose
    /// nothing, they were +2.1 ± 2.3 and +0.4 ± 2.1 (`data/train/README.md`,
    /// "`wu` and `wv`"). Positions of another game, where the champion is
    /// measured afresh, are a fair draw for both. With two games each
    /// champion is judged on the one that did not keep it: `wy`'s
    /// generation 13, kept on the 289 record's positions (+5.2 ± 2.3), was
    /// +6.3 ± 2.2 pieces a start on that suite (`data/train/README.md`,
    /// "`wy`").
    pub fn steady_game(&self, g: u32, kept_on: &[String]) -> Option<&str> {
        let n = self.rotate.len();
        let turn = |i: usize| self.rotate[(g as usize + i) % n].as_str();
        (0..n)
            .map(turn)
            .find(|name| !kept_on.iter().any(|k| k == name))
            .or_else(|| (n > 0).then(|| turn(0)))
    }

    /// The game the wide games start from: [`Gate::wide_game`], or the
    /// first of [`Gate::games`].
    pub fn wide_game(&self) -> Option<&Game> {
        self.wide_game.as_ref().or(self.games.first())
    }

    /// The well of [`Gate::wide_game`] after `at` pieces, with the game
    /// before it: where a wide game from `at` starts.
    pub fn wide_start(&self, at: u32) -> Result<Start, String> {
        let game = self
            .wide_game()
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
            wide_samples: 0,
            wide_gates: 0,
            wide_unread: false,
            wide_unread_min: 0,
            wide_spare_starts: false,
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
                block: 0,
                wide: Vec::new(),
                wide_from: Vec::new(),
                wide_rotate: 0,
                wide_always: false,
                wide_slack: 0,
                rotate: Vec::new(),
                wide_game: None,
            },
            fresh_masters: false,
        }
    }
}

/// Where the steady state begins in the records (`NNUE.md`).
const STEADY: u32 = 100;

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

    /// The pieces `game` lasts against HATETRIS.
    pub(super) fn game_length(&self, game: &Game) -> Result<u32, TrainError> {
        let (_, prefix) = Start::from_replay(&game.replay, None, EnemyKind::Hatetris)
            .map_err(|e| self.bad_game(game, 0, e))?;
        Ok(prefix.at())
    }

    pub(super) fn positions(
        &self,
        game: &Game,
        starts: &[u32],
    ) -> Result<Vec<Position>, TrainError> {
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
        if self.learns_heuristic(g) || learning.start_samples == 0 {
            // The heuristic's values are its targets, and no draw needs
            // no beams: nothing to play.
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Silent;
    use crate::train::folder::FROM_F32;
    use crate::train::Config;
    use crate::well::Well;

    /// The wide games start from the first gate game's wells, or from
    /// [`Gate::wide_game`]'s where it is set; every embedded game is found
    /// by name.
    #[test]
    fn wide_games_start_from_the_wide_game_where_one_is_set() {
        let mut gate = Learning::default().gate;
        let from = |game: &Game| {
            Start::from_replay(&game.replay, Some(300), EnemyKind::Hatetris)
                .unwrap()
                .0
        };
        assert_eq!(gate.wide_game().unwrap().name, "dnf-366");
        assert_eq!(gate.wide_start(300).unwrap(), from(&gate.games[0]));
        let tim = Learning::embedded_games()
            .into_iter()
            .find(|game| game.name == "tim-232")
            .unwrap();
        gate.wide_game = Some(tim.clone());
        assert_eq!(gate.wide_start(300).unwrap(), from(&tim));
        assert_ne!(from(&tim), from(&gate.games[0]));
        assert!(gate.wide_start(700).unwrap_err().starts_with("tim-232: "));
        let names: Vec<String> = Learning::embedded_games()
            .into_iter()
            .map(|g| g.name)
            .collect();
        for name in ["dnf-302", "dnf-366", "knewjade-289", "tim-232"] {
            assert!(names.iter().any(|n| n == name), "{name}");
        }
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
