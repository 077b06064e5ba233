//! The learning loop's gate: a generation's net (the candidate) becomes
//! the champion only if it beats the champion, and `champion.json` names
//! the champion, the net that master beams, sampling beams and training
//! beams all use.
//!
//! The candidate first plays a set of positions ([`Gate`](super::Gate): the empty
//! well and every 20th piece from piece 100 of the gate's own games, the
//! 366-line record by default (`--gate-every`), and the openings of five
//! other records, pieces 20 to 80, each with its game's history), with
//! [`crate::strength::measure_positions`] and the lookahead the master
//! beam uses, compared by the total pieces survived, then the total lines
//! ([`judge`]). With wide games ([`Gate::wide`](super::Gate::wide), `--gate-wide`) a
//! candidate the positions keep also plays games at a record run's widths
//! (100,000 in most runs; 10,000 in `wl`, whose six games a gate cost
//! about 10 minutes on 2 cores against hours) and must clear at least as
//! many lines in all as the champion's, less [`Gate::wide_slack`](super::Gate::wide_slack)
//! ([`WideGames`], [`judge_wide`]);
//! the positions' verdict is kept first ([`GATE_POSITIONS`]). With
//! [`Gate::wide_always`](super::Gate::wide_always) (`--gate-wide-always`) every gate plays them, a
//! rejected candidate's too, as data for the wide samples. With
//! [`Gate::rotate`](super::Gate::rotate) (`--gate-rotate`) the steady-state starts are one
//! game's of several, the next in turn that did not keep the champion,
//! and the champion plays them too ([`ChampionOutcomes`]) rather than
//! standing on the figures that kept it ([`Gate::steady_game`](super::Gate::steady_game) says why).
//! `gen-NNN/gate.json` holds
//! each candidate's figures, the champion's, the paired difference and
//! why it was kept or not; `champion.json` is written after it (the
//! trainer's commit point), and the champion is always what the gates on
//! disk say ([`Generations::champion_before`]).
//!
//! This module holds the records, the positions and the verdict on them;
//! `wide_games` the wide games and their verdict, `rotation` the game a
//! rotating gate plays and the champion's measure there.
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
//!   with [`Gate::wide_from`](super::Gate::wide_from) (`--gate-wide-from`) they start from wells of
//!   a steady-state game instead ([`Gate::wide_game`](super::Gate::wide_game),
//!   the first gate game unless set), since one game from the empty
//!   well mostly judges its opening ([`WideGames`] has the figures).
//! - With `--gate-wide-rotate N` a gate plays N of those starts, the next
//!   N each generation, the champion too ([`Gate::wide_starts`](super::Gate::wide_starts)): two
//!   nets differ from start to start by as much as the gains sought
//!   (12.5-13.7 lines on games of about 70 at width 10,000), so a
//!   champion's own games on the starts that kept it overstate it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::folder::{generation_dir, read_json, write_json, FROM_F32, GATE_START};
use super::generation::Generations;
use super::learning::{Game, Learning};
use super::{Phase, TrainError};
use crate::evaluate::Lookahead;
use crate::nnue::{Net, NetEvaluator, QuantNet};
use crate::strength::{
    blocks, measure_positions, paired_difference_in_blocks, Outcome, Position, Summary,
};

mod rotation;
mod wide_games;

pub(super) use rotation::champion_measure;
pub use rotation::{ChampionOutcomes, GATE_CHAMPION};
use wide_games::judge_wide;
pub(super) use wide_games::wide_game_folder;
pub use wide_games::{GateGame, WideGame, WideGames};

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
    /// Seconds of the gate: its positions' wall time, and the wide games
    /// it played, each from its run's depth records (a champion's game read
    /// from an earlier gate counts there; a gate judged again with `--redo
    /// gate` carries its source's).
    pub seconds: f64,
    /// The wide games ([`Gate::wide`](super::Gate::wide)), when the positions kept the
    /// candidate, or at every gate with [`Gate::wide_always`](super::Gate::wide_always) (a candidate
    /// they reject plays none otherwise: its verdict cannot change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wide: Option<WideGames>,
    /// The game whose steady-state starts the positions were, under
    /// [`Gate::rotate`](super::Gate::rotate) (absent without it: those of [`Gate::games`](super::Gate::games)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<String>,
    /// The margin it was judged under ([`Gate::margin`](super::Gate::margin):
    /// more pieces in all kept a candidate only with a paired difference above
    /// this many standard errors; 0, and absent from the file: none).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub margin: f64,
    /// The blocks its standard errors were counted over
    /// ([`Gate::block`](super::Gate::block), in pieces; 0, and absent from
    /// the file: each position a draw).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub block: u32,
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
    /// [`Gate::rotate`](super::Gate::rotate) (absent without it): figures on different games
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
    /// (or of `steady` alone, under [`Gate::rotate`](super::Gate::rotate)), and the openings.
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
            let blocks = blocks(&positions, learning.gate.block);
            self.observer.phase(g, Phase::Gate, 2);
            let steady = steady.map(|game| game.name.clone());
            let champion_outcomes =
                self.champion_outcomes(g, learning, champion, &positions, steady.as_deref())?;
            self.observer.advanced(1);
            let net = Net::load(&generation_dir(self.dir, g).join("net.f32"))?;
            let verdict = |outcomes: Vec<Outcome>, seconds: f64| {
                let mut record = judge(
                    g,
                    champion,
                    outcomes,
                    &champion_outcomes,
                    learning.gate.margin,
                    &blocks,
                    seconds,
                );
                // The first net of a folder without a start net met no
                // champion, so it was kept on no game's positions.
                if !champion_outcomes.is_empty() {
                    record.steady = steady.clone();
                    record.block = learning.gate.block;
                }
                record
            };
            let positions_path = generation_dir(self.dir, g).join(GATE_POSITIONS);
            let (mut record, fresh) = super::folder::step(&positions_path, || {
                let eval = self.lookahead(&net)?;
                let outcomes = measure_positions(
                    &positions,
                    learning.gate.cap,
                    &eval,
                    learning.gate.width,
                    &|_, _| {},
                );
                Ok(verdict(outcomes, started.elapsed().as_secs_f64()))
            })?;
            if !fresh {
                // Read back: judged again from its outcomes, the same
                // verdict unless a fork changed the margin (`--redo gate`).
                if record.outcomes.len() != positions.len() {
                    return Err(TrainError::Config {
                        path: positions_path,
                        why: format!(
                            "holds {} outcomes, but the gate plays {} positions",
                            record.outcomes.len(),
                            positions.len()
                        ),
                    });
                }
                let again = verdict(record.outcomes.clone(), record.seconds);
                if again != record {
                    write_json(&positions_path, &again)?;
                    record = again;
                }
            }
            self.observer.advanced(1);
            // A gate gone on with after a kill counts its positions' time
            // once, from their file, and its wide games' from their runs.
            let positions_seconds = record.seconds;
            let wide = &learning.gate.wide;
            let play = record.kept || learning.gate.wide_always;
            let played = play && !wide.is_empty() && !champion_outcomes.is_empty();
            let mut record = match played {
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
            // (A gate judged again under a margin that now rejects a
            // candidate its source kept plays no games, and counts none.)
            record.seconds = positions_seconds
                + match played {
                    true => self.wide_seconds(g)?,
                    false => 0.0,
                };
            Ok(record)
        })?;
        self.commit_champion(g, &record)?;
        Ok(Some(record))
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

/// The games whose steady-state starts every gate plays without
/// [`Gate::rotate`](super::Gate::rotate): [`Gate::games`](super::Gate::games), or in folders made before that field,
/// the samples' games.
fn fixed_games(learning: &Learning) -> &[Game] {
    match learning.gate.games.is_empty() {
        true => &learning.games,
        false => &learning.gate.games,
    }
}

/// The gate's verdict: kept if the candidate survived more pieces in all
/// (ties: more lines) and, with a `margin` above 0, its paired difference in
/// pieces a position is more than `margin` standard errors (over `blocks`,
/// the block of each position: [`Gate::block`](super::Gate::block));
/// the first net of a folder without a start net is kept whatever it does.
fn judge(
    g: u32,
    champion: Option<u32>,
    outcomes: Vec<Outcome>,
    champion_outcomes: &[Outcome],
    margin: f64,
    blocks: &[usize],
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
            margin: 0.0,
            block: 0,
        };
    }
    let pieces = |o: &[Outcome]| o.iter().map(|o| f64::from(o.pieces)).collect::<Vec<_>>();
    let lines = |o: &[Outcome]| o.iter().map(|o| f64::from(o.lines)).collect::<Vec<_>>();
    let total_lines = |o: &[Outcome]| o.iter().map(|o| u64::from(o.lines)).sum::<u64>();
    let champion_figures = Summary::of(champion_outcomes);
    let ours = (candidate.pieces, total_lines(&outcomes));
    let best = (champion_figures.pieces, total_lines(champion_outcomes));
    let difference = |a: &[f64], b: &[f64]| paired_difference_in_blocks(a, b, blocks);
    let pieces_difference = difference(&pieces(&outcomes), &pieces(champion_outcomes));
    let lines_difference = difference(&lines(&outcomes), &lines(champion_outcomes));
    let (dp, se) = pieces_difference;
    let more = ours.0 > best.0 || (ours.0 == best.0 && ours.1 > best.1);
    let clear = clears_margin(pieces_difference, margin);
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
        margin: margin.max(0.0),
        block: 0,
    }
}

/// Whether a paired difference in pieces (mean, standard error) clears
/// `margin` standard errors: always with no margin (0).
pub(super) fn clears_margin((mean, se): (f64, f64), margin: f64) -> bool {
    margin <= 0.0 || mean > margin * se
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

    /// [`judge`] with each position its own block (the plain standard
    /// error) and no seconds.
    fn judged(
        g: u32,
        champion: Option<u32>,
        outcomes: &[Outcome],
        champion_outcomes: &[Outcome],
        margin: f64,
    ) -> GateRecord {
        let own: Vec<usize> = (0..champion_outcomes.len()).collect();
        judge(
            g,
            champion,
            outcomes.to_vec(),
            champion_outcomes,
            margin,
            &own,
            0.0,
        )
    }

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
        let r = judged(7, Some(3), &loser, &champion, 0.0);
        assert!(!r.kept, "{}", r.why);
        assert_eq!(r.champion_after(), Some(3));
        assert_eq!(r.champion_figures, Summary::of(&champion));
        assert_eq!(r.pieces_difference.0, (-100.0 + 5.0 + 5.0) / 3.0);

        let more_lines = [outcome(200, 81), outcome(50, 20), outcome(60, 24)];
        let r = judged(7, Some(3), &more_lines, &champion, 0.0);
        assert!(r.kept, "{}", r.why);
        assert_eq!(r.champion_after(), Some(7));

        let r = judged(7, Some(3), &champion, &champion, 0.0);
        assert!(!r.kept, "a tie is the champion's: {}", r.why);
        assert_eq!(r.champion_after(), Some(3));

        // Without a start net, the folder's first net has no rival.
        let r = judged(0, None, &loser, &[], 0.0);
        assert!(r.kept);
        assert_eq!(r.champion_after(), Some(0));
        // ... and under the rotation was kept on no game's positions.
        assert!(r.unopposed());
        assert!(!judged(0, None, &more_lines, &champion, 0.0).unopposed());
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
        let kept = judged(4, Some(1), &better, &champion, 0.0);
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
        let rejected = judged(4, Some(1), &champion, &better, 0.0);
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
        let r = judged(5, Some(2), &close, &champion, 0.0);
        assert!(r.kept, "{}", r.why);
        let r = judged(5, Some(2), &close, &champion, 1.5);
        assert!((r.pieces_difference.0 - 2.0).abs() < 1e-12);
        assert!(
            (r.pieces_difference.1 - 1.0 / 3f64.sqrt()).abs() < 1e-9,
            "{:?}",
            r.pieces_difference
        );
        assert!(r.kept, "2 > 1.5 × 0.577: {}", r.why);
        let r = judged(5, Some(2), &close, &champion, 4.0);
        assert!(!r.kept, "{}", r.why);
        assert_eq!(r.champion_after(), Some(2));
        assert!(r.why.contains("standard errors"), "{}", r.why);
    }
}
