//! The gate's rotation over games ([`Gate::rotate`](crate::train::Gate::rotate), `--gate-rotate`): which
//! game's steady-state starts a gate plays ([`Gate::steady_game`](crate::train::Gate::steady_game) says why it
//! takes turns), and the champion's outcomes there, measured once per
//! champion and game ([`ChampionOutcomes`], `gen-NNN/gate-champion.json`)
//! and read back by later gates and by `verify`
//! ([`champion_measure`]). Without the rotation the champion's outcomes are
//! those of the gate that kept it, or the start net's.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{fixed_games, GateRecord};
use crate::strength::{measure_positions, Outcome, Position};
use crate::train::folder::{self, config_path, generation_dir, read_json};
use crate::train::generation::Generations;
use crate::train::learning::{Game, Learning};
use crate::train::{who, TrainError};

/// `gen-NNN/gate-champion.json`: the champion's outcomes on a gate's
/// positions, measured at that gate, where they are not the positions of
/// the gate that kept it ([`Gate::rotate`](crate::train::Gate::rotate)). A later gate on the same
/// game against the same champion reads them back (the same net and
/// positions give the same outcomes), so each champion plays each game
/// once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChampionOutcomes {
    /// The champion: the generation that made it (`None`: the start net).
    pub champion: Option<u32>,
    /// The game whose steady-state starts the positions were (`None`:
    /// those of [`Gate::games`](crate::train::Gate::games)).
    pub steady: Option<String>,
    /// The outcomes, one per position.
    pub outcomes: Vec<Outcome>,
}

/// The file of [`ChampionOutcomes`] in a generation's folder.
pub const GATE_CHAMPION: &str = "gate-champion.json";

impl Generations<'_> {
    /// The game whose steady-state starts generation `g`'s gate plays
    /// against `champion` under [`Gate::rotate`](crate::train::Gate::rotate): see
    /// [`Gate::steady_game`](crate::train::Gate::steady_game). `None` without it.
    pub(super) fn steady_game<'l>(
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
            path: config_path(self.dir),
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
    /// `steady` under [`Gate::rotate`](crate::train::Gate::rotate), else the fixed ones): read back
    /// from the gate that kept it when that gate played the same
    /// positions, or from the start net's figures likewise; else read back
    /// from an earlier gate that measured the same champion on the same
    /// game, or measured here (`gate-champion.json`). Empty when there is
    /// no champion net (the first net is then kept whatever it does).
    pub(super) fn champion_outcomes(
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
        let (measured, _) = folder::step(&path, || {
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
                    who(measured.champion),
                    measured.outcomes.len(),
                    measured.steady.as_deref().unwrap_or("the fixed games"),
                    positions.len(),
                    steady.unwrap_or("the fixed games"),
                ),
            });
        }
        Ok(measured.outcomes)
    }
}

/// The measure of `champion` on `steady`'s positions that a gate before
/// generation `end` of the folder `dir` made (`gate-champion.json`), if
/// any: the gates read it back, and `verify` holds their figures to it.
pub(in crate::train) fn champion_measure(
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
