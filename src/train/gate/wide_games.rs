//! The gate's wide games ([`WideGames`]): games at a record run's widths,
//! the candidate's and the champion's, from the empty well or from wells
//! of a steady-state game ([`Gate::wide_from`] of [`Gate::wide_game`]), each a master
//! beam's run folder (resumable as one, and read back once done), and the
//! verdict they give on a candidate the positions kept ([`judge_wide`]).
//! [`WideGames`] says why the gate plays them; they are also the data of
//! the wide samples ([`crate::train::wide`]).
//!
//! A game is played once: the champion's game from the empty well at a
//! width it played a master beam at is that master beam, copied, and the
//! next generation's master beam is the champion's game, copied back
//! ([`Generations::take_over_wide_game`]); a fork's start-net game that its
//! source finished is the source's.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::GateRecord;
use crate::enemy::EnemyKind;
use crate::evaluate::Lookahead;
use crate::nnue::{Net, NetEvaluator};
use crate::run;
use crate::search::{Adversary, Search};
use crate::train::folder::{
    self, config_path, generation_dir, read_json, read_step_seconds, record_step_seconds,
    run_seconds, wide_record_path,
};
use crate::train::generation::Generations;
use crate::train::learning::Gate;
use crate::train::{fork, TrainError};

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
/// a steady-state game instead ([`Gate::wide_from`]), where a record
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
/// ([`crate::train::wide`]), so with [`Gate::wide_always`] they are played at
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

/// The prefix of a wide game's entry in its gate's `seconds.json`
/// ([`Generations::wide_seconds`]).
const WIDE_SECONDS: &str = "wide ";

/// A wide game's entry in its gate's `seconds.json`: `wide ` and its run
/// folder.
fn wide_seconds_key(folder: &Path) -> String {
    format!("{WIDE_SECONDS}{}", folder.display())
}

/// The run folder of the start net's wide game at `width` from piece
/// `from`, at the training folder's root.
fn start_net_game(width: usize, from: u32) -> String {
    format!("start-{}", WideGame::folder(width, from))
}

/// The run folder, relative to the training folder, of the wide game at
/// `width` from piece `from` of the net generation `who` made (`None`: the
/// start net).
pub(in crate::train) fn wide_game_folder(who: Option<u32>, width: usize, from: u32) -> PathBuf {
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

    /// The wide games generation `g`'s gate plays against the champion
    /// `champion` (`None`: the start net), the champion's first, each as
    /// far as its run folder under `dir` says (`master_depth`: the depth
    /// limit that ends one). Empty without wide games.
    pub(in crate::train) fn games_now(
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
                            || manifest.is_some_and(|m| folder::game_over(&m, master_depth)),
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

impl Generations<'_> {
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
    /// ([`fork::source_start_game`]).
    pub(super) fn wide_games(
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
            let (game, _) = folder::step(&wide_record_path(&dir), || {
                let (game, copied) =
                    self.play_wide_game(g, who, &eval, gate, (width, from), &dir)?;
                // Its seconds before its record: a kill between the two
                // plays nothing again and records the same seconds.
                let seconds = match copied {
                    true => 0.0,
                    false => run_seconds(&dir),
                };
                let key = wide_seconds_key(&wide_game_folder(who, width, from));
                record_step_seconds(self.dir, g, &key, seconds)?;
                Ok(game)
            })?;
            games.push(game);
        }
        Ok(games)
    }

    /// The seconds generation `g`'s gate spent on wide games: those of the
    /// games it played, each from its run's depth records
    /// ([`Self::wide_games`] keeps them in `seconds.json`), so a gate gone
    /// on with after a kill counts the games finished before the kill and
    /// the whole of the one it was in. A game read from an earlier gate (a
    /// champion's) or copied from a master beam or a fork's source counts
    /// nothing here.
    pub(super) fn wide_seconds(&self, g: u32) -> Result<f64, TrainError> {
        Ok(read_step_seconds(self.dir, g)?
            .iter()
            .filter(|(key, _)| key.starts_with(WIDE_SECONDS))
            .map(|(_, s)| s)
            .sum())
    }

    /// Plays (or goes on with, or reads when done) `eval`'s wide game at
    /// `width` from piece `from` into the run folder `dir`: the game of
    /// [`Self::wide_games`]; with whether it is a copy of a game played
    /// before (a master beam, or a fork's source's, on disk: a fork's own
    /// start-net game begun before its source finished one is counted as
    /// a copy too, and a game copied half-played counts the source's part).
    fn play_wide_game(
        &self,
        g: u32,
        who: Option<u32>,
        eval: &Lookahead<NetEvaluator>,
        gate: &Gate,
        (width, from): (usize, u32),
        dir: &Path,
    ) -> Result<(WideGame, bool), TrainError> {
        let mut copied = false;
        if who.is_none() {
            let name = start_net_game(width, from);
            if let Some(theirs) = fork::source_start_game(self.dir, self.config, &name)? {
                copy_unless_run(&theirs, dir)?;
                copied = run::manifest_path(&theirs).exists();
            }
        }
        let start = match from {
            0 => {
                // (A copy of a folder's small files has no master beam's
                // run: the game is then played, and counted.)
                if let Some(master) = self.master_played(g, who, width)? {
                    copy_unless_run(&master, dir)?;
                    copied = run::manifest_path(&master).exists();
                }
                None
            }
            at => Some(gate.wide_start(at).map_err(|why| TrainError::Config {
                path: config_path(self.dir),
                why,
            })?),
        };
        let search = Search::new(width, eval, Adversary::new(EnemyKind::Hatetris));
        let result = self.resume_or_start(dir, &search, start.as_ref())?;
        let game = WideGame {
            width,
            lines: u32::from(result.best.score),
            pieces: result.best.depth,
            from,
        };
        Ok((game, copied))
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
    /// the same game). Whether the master beam is such a game, whose
    /// seconds its gate counted.
    pub(in crate::train) fn take_over_wide_game(
        &self,
        g: u32,
        width: usize,
        dir: &Path,
    ) -> Result<bool, TrainError> {
        match self.learning() {
            Some(l) if l.gate.wide.contains(&width) && l.gate.wide_from.is_empty() => {
                let champion = self.champion_before(g)?;
                let game = self.wide_dir(champion, width, 0);
                copy_unless_run(&game, dir)?;
                Ok(run::manifest_path(&game).exists())
            }
            _ => Ok(false),
        }
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
    fork::copy_run(from, to)
}

/// The verdict with the wide games: a candidate the positions kept stays
/// kept only if its games clear at least as many lines in all as the
/// champion's, less [`WideGames::slack`] (a tie is the candidate's: it has
/// already won on the positions). One the positions rejected
/// ([`Gate::wide_always`]) stays rejected whatever its games.
pub(super) fn judge_wide(mut record: GateRecord, games: WideGames) -> GateRecord {
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
