//! The learning loop's gate: a generation's net (the candidate) becomes
//! the champion only if it beats the champion, and `champion.json` names
//! the champion, the net that master beams, sampling beams and training
//! beams all use.
//!
//! The candidate first plays a set of positions ([`Gate`]: the empty
//! well and every 20th piece from piece 100 of the gate's own games, the
//! 366-line record by default (`--gate-every`), and the openings of five
//! other records, pieces 20 to 80, each with its game's history), with
//! [`crate::strength::measure_positions`] and the lookahead the master
//! beam uses, compared by the total pieces survived, then the total lines
//! ([`judge`]). With wide games ([`Gate::wide`], `--gate-wide`) a
//! candidate the positions keep also plays games at a record run's widths
//! (100,000 in most runs; 10,000 in `wl`, whose six games a gate cost
//! about 10 minutes on 2 cores against hours) and must clear at least as
//! many lines in all as the champion's, less [`Gate::wide_slack`]
//! ([`WideGames`], [`judge_wide`]);
//! the positions' verdict is kept first ([`GATE_POSITIONS`]). With
//! [`Gate::wide_always`] (`--gate-wide-always`) every gate plays them, a
//! rejected candidate's too, as data for the wide samples. With
//! [`Gate::rotate`] (`--gate-rotate`) the steady-state starts are one
//! game's of several, the next in turn that did not keep the champion,
//! and the champion plays them too ([`ChampionOutcomes`]) rather than
//! standing on the figures that kept it ([`Gate::steady_game`] says why).
//! `gen-NNN/gate.json` holds
//! each candidate's figures, the champion's, the paired difference and
//! why it was kept or not; `champion.json` is written after it (the
//! trainer's commit point), and the champion is always what the gates on
//! disk say ([`Generations::champion_before`]).
//!
//! # Why
//! - The gate's games are not the samples' games: a first run gated on
//!   positions of the games it also sampled (`data/train/learn-1`), and
//!   its champion's +11.6 pieces a gate position over the start net came
//!   to −0.8 ± 4.5 on the strength suite.
//! - The openings came after a second run (`data/train/learn-2`), gated on
//!   the steady state alone, kept a champion that lived longer there
//!   (+13 % a gate position) but scored 53 lines from the empty well at
//!   width 10,000 against the start net's 79: nothing in its gate looked at
//!   the opening.
//! - The wide games came after learn-10's champion won on the positions
//!   and lost by 15-46 lines from the empty well at widths 90,000-110,000;
//!   with [`Gate::wide_from`] (`--gate-wide-from`) they start from wells of
//!   the gate's steady-state game instead, since one game from the empty
//!   well mostly judges its opening ([`WideGames`] has the figures).
//! - With `--gate-wide-rotate N` a gate plays N of those starts, the next
//!   N each generation, the champion too ([`Gate::wide_starts`]): two
//!   nets differ from start to start by as much as the gains sought
//!   (12.5-13.7 lines on games of about 70 at width 10,000), so a
//!   champion's own games on the starts that kept it overstate it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::folder::{
    generation_dir, read_json, wide_record_path, write_json, FROM_F32, GATE_START,
};
use super::generation::Generations;
use super::learning::{Game, Gate, Learning};
use super::{Phase, TrainError};
use crate::enemy::EnemyKind;
use crate::evaluate::Lookahead;
use crate::nnue::{Net, NetEvaluator, QuantNet};
use crate::run;
use crate::search::{Adversary, Search};
use crate::strength::{measure_positions, paired_difference, Outcome, Position, Summary};

/// `gen-NNN/gate-positions.json`: the gate's verdict on its positions
/// alone (a [`GateRecord`] without wide games), kept before the wide games
/// are played: a gate gone on with after a kill does not play its
/// positions again (about 7 minutes on 2 threads), and `hatetris status`
/// says the verdict while the wide games, hours of a gate, go on.
pub const GATE_POSITIONS: &str = "gate-positions.json";

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
    /// The wide games ([`Gate::wide`]), when the positions kept the
    /// candidate, or at every gate with [`Gate::wide_always`] (a candidate
    /// they reject plays none otherwise: its verdict cannot change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wide: Option<WideGames>,
    /// The game whose steady-state starts the positions were, under
    /// [`Gate::rotate`] (absent without it: those of [`Gate::games`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<String>,
}

/// `gen-NNN/gate-champion.json`: the champion's outcomes on a gate's
/// positions, measured at that gate, where they are not the positions of
/// the gate that kept it ([`Gate::rotate`]). A later gate on the same
/// game against the same champion reads them back (the same net and
/// positions give the same outcomes), so each champion plays each game
/// once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChampionOutcomes {
    /// The champion: the generation that made it (`None`: the start net).
    pub champion: Option<u32>,
    /// The game whose steady-state starts the positions were (`None`:
    /// those of [`Gate::games`]).
    pub steady: Option<String>,
    /// The outcomes, one per position.
    pub outcomes: Vec<Outcome>,
}

/// The file of [`ChampionOutcomes`] in a generation's folder.
pub const GATE_CHAMPION: &str = "gate-champion.json";

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
///
/// The games are also the data of the next generations' wide samples
/// ([`super::wide`]), so with [`Gate::wide_always`] they are played at
/// every gate. Without it a candidate the positions reject plays none,
/// and the next generation draws from the same gates again: `wl`'s
/// generation 7 lost the positions (−7.5 ± 1.9 pieces a start), and its
/// generation 8 would have fitted the same champion on the same games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WideGames {
    /// The candidate's games: for each width of [`Gate::wide`], from each
    /// of [`Gate::wide_starts`].
    pub candidate: Vec<WideGame>,
    /// The champion's.
    pub champion: Vec<WideGame>,
    /// Lines the candidate's games may fall short of the champion's in
    /// all and it stay kept ([`Gate::wide_slack`]; 0, and absent from the
    /// file: none).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub slack: u32,
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
pub(super) fn wide_game_folder(who: Option<u32>, width: usize, from: u32) -> PathBuf {
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
    /// The run folders of the start net's wide games under this gate, at
    /// the training folder's root (`start-wide-WIDTH…`): the champion's
    /// games until a generation's net is kept.
    pub fn start_net_games(&self) -> Vec<String> {
        self.all_wide_pairs()
            .into_iter()
            .map(|(w, at)| start_net_game(w, at))
            .collect()
    }

    /// The well of the gate's first game after `at` pieces, with the game
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
                self.wide_pairs(g).into_iter().map(move |(width, from)| {
                    let folder = wide_game_folder(who, width, from);
                    let manifest = run::read_manifest(&dir.join(&folder)).ok();
                    // A copy of the folder's small files has the record alone.
                    let record = read_json::<WideGame>(&wide_record_path(&dir.join(&folder)))
                        .ok()
                        .flatten();
                    let played = match (&manifest, record) {
                        (Some(m), _) => Some((m.depth, m.best.score)),
                        (None, Some(r)) => {
                            Some((r.pieces, u16::try_from(r.lines).unwrap_or(u16::MAX)))
                        }
                        (None, None) => None,
                    };
                    GateGame {
                        champion: is_champion,
                        width,
                        from,
                        played,
                        ended: record.is_some()
                            || manifest.is_some_and(|m| super::folder::game_over(&m, master_depth)),
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

    /// Whether the candidate's games clear at least as many lines in all
    /// as the champion's, less the slack.
    pub fn candidate_holds(&self) -> bool {
        let (ours, theirs) = self.lines();
        ours + u64::from(self.slack) >= theirs
    }
}

impl GateRecord {
    /// Whether the candidate was kept with no champion to beat: the first
    /// net of a folder without a start net ([`judge`]).
    fn unopposed(&self) -> bool {
        self.kept
            && self.champion.is_none()
            && self.pieces_difference == (0.0, 0.0)
            && self.champion_figures == self.candidate
    }

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
    /// Its figures at the last gate.
    pub figures: Summary,
    /// The generations after which it was the champion.
    pub through: u32,
    /// The game whose steady-state starts that gate played, under
    /// [`Gate::rotate`] (absent without it): figures on different games
    /// are not comparable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<String>,
}

/// `gate-start.json`: the start net's gate figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct StartFigures {
    figures: Summary,
    outcomes: Vec<Outcome>,
}

super::folder::json_step!(GateRecord, StartFigures, WideGame, ChampionOutcomes);

/// The champion's file.
pub fn champion_path(dir: &Path) -> PathBuf {
    dir.join("champion.json")
}

impl Generations<'_> {
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

    /// The gate's positions: the empty well, the starts of every game
    /// (or of `steady` alone, under [`Gate::rotate`]), and the openings.
    fn gate_positions(
        &self,
        learning: &Learning,
        steady: Option<&Game>,
    ) -> Result<Vec<Position>, TrainError> {
        let mut out = Vec::new();
        let games = match steady {
            Some(game) => std::slice::from_ref(game),
            None => fixed_games(learning),
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

    /// `net`, quantised, with the lookahead the master beam uses: how the
    /// gate plays every net it judges.
    fn lookahead(&self, net: &Net) -> Result<Lookahead<NetEvaluator>, TrainError> {
        Ok(Lookahead::new(
            NetEvaluator::new(QuantNet::from_net(net)?),
            self.config.quiescent,
        ))
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
            let champion = self.champion_before(g)?;
            let steady = self.steady_game(g, learning, champion)?;
            let positions = self.gate_positions(learning, steady)?;
            self.observer.phase(g, Phase::Gate, 2);
            let steady = steady.map(|game| game.name.clone());
            let champion_outcomes =
                self.champion_outcomes(g, learning, champion, &positions, steady.as_deref())?;
            self.observer.advanced(1);
            let net = Net::load(&generation_dir(self.dir, g).join("net.f32"))?;
            let (record, fresh) =
                super::folder::step(&generation_dir(self.dir, g).join(GATE_POSITIONS), || {
                    let eval = self.lookahead(&net)?;
                    let outcomes = measure_positions(
                        &positions,
                        learning.gate.cap,
                        &eval,
                        learning.gate.width,
                        &|_, _| {},
                    );
                    let seconds = started.elapsed().as_secs_f64();
                    let mut record = judge(
                        g,
                        champion,
                        outcomes,
                        &champion_outcomes,
                        learning.gate.margin,
                        seconds,
                    );
                    // The first net of a folder without a start net met no
                    // champion, so it was kept on no game's positions.
                    if !champion_outcomes.is_empty() {
                        record.steady = steady;
                    }
                    Ok(record)
                })?;
            self.observer.advanced(1);
            // A gate gone on with after a kill counts its positions' time
            // once, from their file.
            let earlier = if fresh { 0.0 } else { record.seconds };
            let wide = &learning.gate.wide;
            let play = record.kept || learning.gate.wide_always;
            let mut record = match play && !wide.is_empty() && !champion_outcomes.is_empty() {
                false => record,
                true => {
                    let theirs = self.champion_net(g)?.ok_or_else(|| TrainError::Config {
                        path: champion_path(self.dir),
                        why: "the gate's champion has no net".into(),
                    })?;
                    let games = WideGames {
                        champion: self.wide_games(g, champion, &theirs, &learning.gate)?,
                        candidate: self.wide_games(g, Some(g), &net, &learning.gate)?,
                        slack: learning.gate.wide_slack,
                    };
                    judge_wide(record, games)
                }
            };
            record.seconds = earlier + started.elapsed().as_secs_f64();
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
        for (width, from) in gate.wide_pairs(g) {
            let dir = self.wide_dir(who, width, from);
            let (game, _) = super::folder::step(&wide_record_path(&dir), || {
                self.play_wide_game(g, who, &eval, gate, (width, from), &dir)
            })?;
            games.push(game);
        }
        Ok(games)
    }

    /// Plays (or goes on with, or reads when done) `eval`'s wide game at
    /// `width` from piece `from` into the run folder `dir`: the game of
    /// [`Self::wide_games`].
    fn play_wide_game(
        &self,
        g: u32,
        who: Option<u32>,
        eval: &Lookahead<NetEvaluator>,
        gate: &Gate,
        (width, from): (usize, u32),
        dir: &Path,
    ) -> Result<WideGame, TrainError> {
        if who.is_none() {
            let name = start_net_game(width, from);
            if let Some(theirs) = super::fork::source_start_game(self.dir, self.config, &name)? {
                copy_unless_run(&theirs, dir)?;
            }
        }
        let start = match from {
            0 => {
                if let Some(master) = self.master_played(g, who, width)? {
                    copy_unless_run(&master, dir)?;
                }
                None
            }
            at => Some(gate.wide_start(at).map_err(|why| TrainError::Config {
                path: super::folder::config_path(self.dir),
                why,
            })?),
        };
        let search = Search::new(width, eval, Adversary::new(EnemyKind::Hatetris));
        let result = self.resume_or_start(dir, &search, start.as_ref())?;
        Ok(WideGame {
            width,
            lines: u32::from(result.best.score),
            pieces: result.best.depth,
            from,
        })
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

    /// The game whose steady-state starts generation `g`'s gate plays
    /// against `champion` under [`Gate::rotate`]: see
    /// [`Gate::steady_game`]. `None` without it.
    fn steady_game<'l>(
        &self,
        g: u32,
        learning: &'l Learning,
        champion: Option<u32>,
    ) -> Result<Option<&'l Game>, TrainError> {
        let gate = &learning.gate;
        if gate.rotate.is_empty() {
            return Ok(None);
        }
        let kept_on = match champion.map(|h| self.champion_gate(h)).transpose()? {
            None => Vec::new(),
            Some(kept) if kept.unopposed() => Vec::new(),
            Some(kept) => match kept.steady {
                Some(name) => vec![name],
                None => fixed_games(learning)
                    .iter()
                    .map(|game| game.name.clone())
                    .collect(),
            },
        };
        let name = gate.steady_game(g, &kept_on).unwrap_or_default();
        gate.game(name).map(Some).ok_or_else(|| TrainError::Config {
            path: super::folder::config_path(self.dir),
            why: format!(
                "learning.gate.rotate names {name}, which is none of the gate's games or openings"
            ),
        })
    }

    /// The gate record of generation `h`, a champion's: it must be there.
    fn champion_gate(&self, h: u32) -> Result<GateRecord, TrainError> {
        let path = generation_dir(self.dir, h).join("gate.json");
        read_json::<GateRecord>(&path)?.ok_or_else(|| TrainError::Config {
            path,
            why: "missing (the champion's gate wrote it)".into(),
        })
    }

    /// The champion's outcomes on generation `g`'s `positions` (those of
    /// `steady` under [`Gate::rotate`], else the fixed ones): read back
    /// from the gate that kept it when that gate played the same
    /// positions, or from the start net's figures likewise; else read back
    /// from an earlier gate that measured the same champion on the same
    /// game, or measured here (`gate-champion.json`). Empty when there is
    /// no champion net (the first net is then kept whatever it does).
    fn champion_outcomes(
        &self,
        g: u32,
        learning: &Learning,
        champion: Option<u32>,
        positions: &[Position],
        steady: Option<&str>,
    ) -> Result<Vec<Outcome>, TrainError> {
        match champion {
            Some(h) => {
                let kept = self.champion_gate(h)?;
                if steady.is_none() && kept.steady.is_none() {
                    return Ok(kept.outcomes);
                }
            }
            None if steady.is_none() => return self.start_figures(learning, positions),
            None => {}
        }
        let fits = |m: &ChampionOutcomes| {
            m.champion == champion
                && m.steady.as_deref() == steady
                && m.outcomes.len() == positions.len()
        };
        if let Some(earlier) = champion_measure(self.dir, g, champion, steady)? {
            if fits(&earlier) {
                return Ok(earlier.outcomes);
            }
        }
        let Some(net) = self.champion_net(g)? else {
            return Ok(Vec::new());
        };
        let path = generation_dir(self.dir, g).join(GATE_CHAMPION);
        let (measured, _) = super::folder::step(&path, || {
            let eval = self.lookahead(&net)?;
            Ok(ChampionOutcomes {
                champion,
                steady: steady.map(str::to_string),
                outcomes: measure_positions(
                    positions,
                    learning.gate.cap,
                    &eval,
                    learning.gate.width,
                    &|_, _| {},
                ),
            })
        })?;
        if !fits(&measured) {
            return Err(TrainError::Config {
                path,
                why: format!(
                    "measures {} on {} positions of {}, but this gate plays {} of {}",
                    super::who(measured.champion),
                    measured.outcomes.len(),
                    measured.steady.as_deref().unwrap_or("the fixed games"),
                    positions.len(),
                    steady.unwrap_or("the fixed games"),
                ),
            });
        }
        Ok(measured.outcomes)
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
                steady: record.steady.clone(),
            },
        )
    }
}

/// The measure of `champion` on `steady`'s positions that a gate before
/// generation `end` of the folder `dir` made (`gate-champion.json`), if
/// any: the gates read it back, and `verify` holds their figures to it.
pub(super) fn champion_measure(
    dir: &Path,
    end: u32,
    champion: Option<u32>,
    steady: Option<&str>,
) -> Result<Option<ChampionOutcomes>, TrainError> {
    for h in 0..end {
        let path = generation_dir(dir, h).join(GATE_CHAMPION);
        if let Some(m) = read_json::<ChampionOutcomes>(&path)? {
            if m.champion == champion && m.steady.as_deref() == steady {
                return Ok(Some(m));
            }
        }
    }
    Ok(None)
}

/// The games whose steady-state starts every gate plays without
/// [`Gate::rotate`]: [`Gate::games`], or in folders made before that field,
/// the samples' games.
fn fixed_games(learning: &Learning) -> &[Game] {
    match learning.gate.games.is_empty() {
        true => &learning.games,
        false => &learning.gate.games,
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
            steady: None,
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
        steady: None,
    }
}

/// The verdict with the wide games: a candidate the positions kept stays
/// kept only if its games clear at least as many lines in all as the
/// champion's, less [`WideGames::slack`] (a tie is the candidate's: it has
/// already won on the positions). One the positions rejected
/// ([`Gate::wide_always`]) stays rejected whatever its games.
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
    let wide_kept = games.candidate_holds();
    let from = match games.candidate.iter().any(|g| g.from > 0) {
        true => "the wide games",
        false => "from the empty well",
    };
    record.why = format!(
        "{}; {from} at widths {widths}: {} lines against the champion's {}: {}",
        record.why,
        per_width(&games.candidate),
        per_width(&games.champion),
        match (record.kept, wide_kept) {
            (false, _) => "played for the samples alone",
            (true, true) if ours < theirs => "kept (within the slack)",
            (true, true) => "kept",
            (true, false) => "not kept",
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
        // ... and under the rotation was kept on no game's positions.
        assert!(r.unopposed());
        assert!(!judge(0, None, more_lines.to_vec(), &champion, 0.0, 0.0).unopposed());
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
            slack: 0,
        };
        let kept = judge(4, Some(1), better.to_vec(), &champion, 0.0, 0.0);
        assert!(kept.kept);
        let r = judge_wide(kept.clone(), games([150, 90], [100, 141]));
        assert!(!r.kept, "240 lines against 241: {}", r.why);
        assert_eq!(r.champion_after(), Some(1));
        assert!(r
            .why
            .contains("150 / 90 lines against the champion's 100 / 141: not kept"));
        // With a slack of 1 line, 240 against 241 stays kept; not 239.
        let slack = |ours, theirs| WideGames {
            slack: 1,
            ..games(ours, theirs)
        };
        let r = judge_wide(kept.clone(), slack([150, 90], [100, 141]));
        assert!(r.kept, "{}", r.why);
        assert!(r.why.ends_with("kept (within the slack)"), "{}", r.why);
        assert!(!judge_wide(kept.clone(), slack([150, 89], [100, 141])).kept);
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

    /// Under the rotation each gate takes the game whose turn it is, or
    /// the next in turn when the champion was kept on that one; a champion
    /// kept on several (the fixed positions of older gates) skips them all.
    #[test]
    fn the_rotation_skips_the_game_that_kept_the_champion() {
        let mut gate = Learning::default().gate;
        assert_eq!(gate.steady_game(3, &[]), None);
        gate.rotate = ["a", "b", "c"].map(String::from).to_vec();
        let kept = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let turns = |kept_on: &[String]| {
            (0..4)
                .map(|g| gate.steady_game(g, kept_on).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(turns(&[]), ["a", "b", "c", "a"]);
        assert_eq!(turns(&kept(&["b"])), ["a", "c", "c", "a"]);
        assert_eq!(turns(&kept(&["a", "b"])), ["c", "c", "c", "c"]);
        // Every game kept it: the turn's, for want of a fresh one.
        assert_eq!(turns(&kept(&["a", "b", "c"])), ["a", "b", "c", "a"]);
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
}
