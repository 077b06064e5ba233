//! Samples from the gate's wide games (`--wide-samples`, `--wide-gates`):
//! wells of finished wide games (width 100,000, or 10,000 in `wl` and its
//! forks) in the steady state, each with its reach there, added to a
//! generation's samples.
//!
//! # Why
//! Every other sample comes from the champion's master beam (from the
//! empty well; it dies by piece 400) or from narrow sampling beams, whose
//! 10-piece training beams from a steady-state well almost never die. The
//! gate's wide games (`--gate-wide-from`) play the steady state at a
//! record run's width, with its deaths, and their depth files hold the
//! wide search's own verdict on every well: how far its line lasted
//! ([`super::reach::walk`]). Fitted on such samples alone (17,586 wells
//! of eight games from the 366 record's wells, four a depth from the
//! family the beam went on with and four from all), the champion of
//! learn-18-reach became `wt`: 85.3 lines a start against 72.3 on twelve
//! of that record's starts at width 10,000 (+13.1 ± 4.4), and on the
//! longest record's strength suite at width 300 106.0 pieces a start
//! against 98.4 (+7.5 ± 2.2), the first fit to beat its champion by more
//! than the noise; mixed 1 : 7 into the generation's own 124,374 samples
//! the same wells moved nothing (+0.5 ± 3.7). Drawn by the trainer from
//! six gate games (12,254 wells, `--wide-samples 4 --samples 0
//! --start-samples 0`, `data/train/ws/run.sh`), the same generation's
//! candidate played 104.7 pieces a start there (+6.3 ± 2.0) and +6.3 ±
//! 1.7 on the gate's positions. `data/train/README.md`, "Samples from the
//! gate's wide games" and "The wide samples in the trainer", has the
//! figures and commands. So the trainer draws them itself, and the share
//! is the caller's: the master beam's and the sampling beams' counts
//! (`--samples`, `--start-samples`) against this one.
//!
//! # What is drawn
//! Generation g draws from the wide games of the gates of the last
//! [`Learning::wide_gates`](super::Learning::wide_gates) generations
//! before it that played them, the champion's and the candidate's (a game
//! two gates share is drawn once), in generation order. At each depth of
//! each game ([`draw`]): up to N wells at random from those whose line
//! lasted longest (the family the beam went on with), then up to N from
//! all its wells. Each is a bare well (no children and no chain point:
//! the probe had none), labelled with its reach less its depth, which the
//! reach term reads as it reads a master sample's. A sample's depth is
//! [`DEPTH_STRIDE`] × (its game's place in the list, from 1) + its depth,
//! so that the fit's ranking term and the reach term pair only wells of
//! one depth of one game.
//!
//! With [`Learning::wide_unread`](super::Learning::wide_unread)
//! (`--wide-unread`) the games the champion's own wide samples came from
//! are left out (the log's `read_by_the_champion`). The fit starts from
//! the champion's net, and `wl`'s generation 7, fitted from generation 6
//! on gate 6's six games and gate 5's three, which generation 6 had read,
//! ranked held-out pairs better than any fit before (0.785 → 0.848) and
//! lost the gate's positions by 7.5 ± 1.9 pieces a start: it learned those
//! games again rather than the steady state. With the setting the same
//! generation (`wu`, gate 6's six games alone, 5,238 samples) lost by
//! 2.6 ± 1.9 (`data/train/README.md`, "`wu` and `wv`"). A new champion's
//! first successor is then left its champion's own gate alone (`wy`'s
//! generation 14: three games, 2,804 wells against 26,867 the generation
//! before); with [`Learning::wide_unread_min`](super::Learning::wide_unread_min)
//! (`--wide-unread-min N`) a window left fewer than N games on disk reaches
//! back one gate at a time, past the gates the champion read, until it has
//! N or no gate is left (`reach_back`; the log's `gates`). What the
//! champion read is its own window under the same settings, found the same
//! way.
//!
//! With [`Learning::wide_spare_starts`](super::Learning::wide_spare_starts)
//! (`--wide-spare-starts`) the games from the starts generation g's own
//! gate plays are left out as well (the log's `spared_starts`). Otherwise
//! the window holds the champion's earlier game from the very start the
//! candidate is then judged on, to the piece it died at: the wide games'
//! verdict weighs a candidate on continuations of wells it was fitted on.
//! That verdict only weighs a candidate the positions kept, so the leak can
//! only let through one the positions already kept, by blunting the check.
//!
//! The step's files are `gen-NNN/wide-samples.bin` (the samples, appended
//! to `samples.bin` after the generation's own) and `wide-reach.bin`
//! (their labels, written first), small enough that a snapshot keeps them
//! for every generation: a game's depth files (about 300 MB from piece
//! 300 at width 100,000) are not kept, and a game whose record is on disk
//! but whose folder is gone is left out and named in the log's
//! `wide samples` event. The walk of `ws`'s six games (about 1,500
//! depths of up to 100,000 wells in all, 12,254 samples) took 718 s on one
//! thread beside two other jobs.

use std::path::{Path, PathBuf};

use super::data::{self, Sampled};
pub use super::folder::{WIDE_REACH_BIN, WIDE_SAMPLES_BIN};

use super::folder::{generation_dir, read_json};
use super::gate::{wide_game_folder, GateRecord};
use super::generation::Generations;
use super::reach;
use super::{Learning, Phase, TrainError};
use crate::nnue::Rng;
use crate::run;

/// The gates whose wide games a generation samples when
/// `--wide-samples` is given alone.
pub const DEFAULT_GATES: u32 = 2;

/// The depth groups of the trainer's wide samples: game k (from 1) holds
/// depths `k × DEPTH_STRIDE + depth`, above any master beam's depth.
pub const DEPTH_STRIDE: u32 = 1_000_000;

/// Wide samples, and each one's reach less its depth.
pub type Labelled = (Vec<Sampled>, Vec<f32>);

/// Draws up to `per_depth` wells a depth of each finished run in `games`
/// from the family that lasted longest and as many from all its wells
/// (see the module doc), each with its reach less its depth. Game k's
/// samples have depths `stride × (k + 1) + depth`, in depth order.
pub fn draw(
    games: &[PathBuf],
    per_depth: usize,
    stride: u32,
    rng: &mut Rng,
) -> Result<Labelled, TrainError> {
    let mut samples = Vec::new();
    let mut labels = Vec::new();
    for (k, dir) in games.iter().enumerate() {
        let base = stride * (k as u32 + 1);
        let mut picked: Vec<(Sampled, f32)> = Vec::new();
        reach::walk(dir, |depth, stored, reach| {
            if stored.is_empty() {
                return;
            }
            let best = reach.iter().copied().max().unwrap_or(depth);
            let lasting: Vec<usize> = (0..stored.len()).filter(|&i| reach[i] == best).collect();
            let mut pick = |from: &[usize], rng: &mut Rng| {
                let mut from = from.to_vec();
                for _ in 0..per_depth.min(from.len()) {
                    let i = from.swap_remove(rng.below(from.len()));
                    let s = Sampled {
                        well: stored[i].well,
                        depth: base + depth,
                    };
                    picked.push((s, (reach[i] - depth) as f32));
                }
            };
            pick(&lasting, rng);
            let all: Vec<usize> = (0..stored.len()).collect();
            pick(&all, rng);
        })?;
        // The walk goes newest first; keep each game's samples in depth order.
        picked.reverse();
        for (s, l) in picked {
            samples.push(s);
            labels.push(l);
        }
    }
    Ok((samples, labels))
}

/// The wide games a generation draws from, as [`Generations::wide_games_for`]
/// finds them.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Sources {
    /// Finished games whose run folders are on disk, relative to the
    /// training folder, in generation order.
    pub(super) games: Vec<PathBuf>,
    /// Finished games whose run folders are gone (their records remain).
    pub(super) missing: Vec<PathBuf>,
}

/// A generation's wide games ([`Generations::wide_window`]).
#[derive(Debug, Default)]
struct Window {
    /// The games it draws from.
    sources: Sources,
    /// The games its champion's window held, left out.
    read_by_the_champion: Vec<PathBuf>,
    /// Every game of its gates: drawn, left out, or gone from disk.
    held: Vec<PathBuf>,
    /// How many gates it spans.
    gates: u32,
}

impl Generations<'_> {
    /// The wide samples of generation `g` (empty without
    /// `--wide-samples`, or when no earlier gate played wide games, and
    /// then no file), drawn once and kept in [`WIDE_SAMPLES_BIN`] with
    /// their labels in [`WIDE_REACH_BIN`]: part of the samples step.
    pub(super) fn wide_samples(&self, g: u32) -> Result<Vec<Sampled>, TrainError> {
        let Some(learning) = self.learning().filter(|l| l.wide_samples > 0) else {
            return Ok(Vec::new());
        };
        if self.learns_heuristic(g) {
            return Ok(Vec::new());
        }
        let path = self.gen_dir(g).join(WIDE_SAMPLES_BIN);
        let mut window = Window::default();
        if !path.exists() {
            window = self.wide_window(g, learning)?;
            if window.sources == Sources::default() {
                // No earlier gate played wide games: no file.
                return Ok(Vec::new());
            }
        }
        // (The step computes only where the file is missing, so `window`
        // is the one just found.)
        let sources = &window.sources;
        let (samples, _) = super::folder::step(&path, || {
            self.observer
                .phase(g, Phase::Samples, sources.games.len() as u64);
            let games: Vec<PathBuf> = sources.games.iter().map(|p| self.dir.join(p)).collect();
            let mut rng = self.rng(0x51DE, g);
            let (samples, labels) = draw(
                &games,
                learning.wide_samples as usize,
                DEPTH_STRIDE,
                &mut rng,
            )?;
            data::save_targets(&self.gen_dir(g).join(WIDE_REACH_BIN), &labels)?;
            let (labelled, lasted) = reach::counts(&labels, learning.reach_horizon.max(1));
            let mut event = serde_json::json!({
                "event": "wide samples",
                "generation": g,
                "games": sources.games,
                "missing": sources.missing,
                "samples": samples.len(),
                "labelled": labelled,
                "lasted_horizon": lasted,
            });
            if learning.wide_unread {
                event["read_by_the_champion"] = serde_json::json!(window.read_by_the_champion);
            }
            if learning.wide_unread && learning.wide_unread_min > 0 {
                event["gates"] = serde_json::json!(window.gates);
            }
            if learning.wide_spare_starts {
                event["spared_starts"] = serde_json::json!(self.gate_starts(g, learning)?);
            }
            self.log(&event)?;
            Ok(samples)
        })?;
        Ok(samples)
    }

    /// The finished wide games of the last `gates` gates before generation
    /// `g` that played any: each gate's champion's games, then its
    /// candidate's, a game already listed left out; and how many such
    /// gates there were (fewer than `gates` when the folder has no more).
    /// With [`Learning::wide_spare_starts`] the games from the starts
    /// generation `g`'s own gate plays ([`Self::gate_starts`]) are not
    /// listed at all: neither drawn nor held, so a later generation may
    /// read them.
    pub(super) fn wide_games_for(&self, g: u32, gates: u32) -> Result<(Sources, u32), TrainError> {
        let spared: Vec<u32> = match self.learning() {
            Some(l) if l.wide_spare_starts => self.gate_starts(g, l)?,
            _ => Vec::new(),
        };
        let mut played: Vec<GateRecord> = Vec::new();
        for h in (0..g).rev() {
            if played.len() == gates as usize {
                break;
            }
            let path = generation_dir(self.dir, h).join("gate.json");
            if let Some(record) = read_json::<GateRecord>(&path)?.filter(|r| r.wide.is_some()) {
                played.push(record);
            }
        }
        let mut sources = Sources::default();
        for record in played.iter().rev() {
            let Some(wide) = &record.wide else { continue };
            let who = [
                (record.champion, &wide.champion),
                (Some(record.generation), &wide.candidate),
            ];
            for (net, games) in who {
                for game in games.iter().filter(|game| !spared.contains(&game.from)) {
                    let folder = wide_game_folder(net, game.width, game.from);
                    if sources.games.contains(&folder) || sources.missing.contains(&folder) {
                        continue;
                    }
                    match run::manifest_path(&self.dir.join(&folder)).exists() {
                        true => sources.games.push(folder),
                        false => sources.missing.push(folder),
                    }
                }
            }
        }
        Ok((sources, played.len() as u32))
    }

    /// The starts generation `g`'s gate plays its wide games from: those
    /// its `gate.json` names where it played them (a champion's window is
    /// found again as it was drawn, whatever a fork has since changed), or
    /// else those of the settings' turn ([`Gate::wide_starts`](super::learning::Gate::wide_starts)).
    fn gate_starts(&self, g: u32, learning: &Learning) -> Result<Vec<u32>, TrainError> {
        let path = generation_dir(self.dir, g).join("gate.json");
        Ok(match read_json::<GateRecord>(&path)?.and_then(|r| r.wide) {
            Some(wide) => {
                let mut starts: Vec<u32> = wide.candidate.iter().map(|game| game.from).collect();
                starts.sort_unstable();
                starts.dedup();
                starts
            }
            None => learning.gate.wide_starts(g),
        })
    }

    /// The games generation `g` draws its wide samples from: those of
    /// the last [`Learning::wide_gates`] gates that played any
    /// ([`Self::wide_games_for`]); with [`Learning::wide_unread`] less the
    /// games its champion's window held ([`Self::champions_wide_window`]), and
    /// with [`Learning::wide_unread_min`] reaching back one gate at a time
    /// until that many games on disk are left or no gate is.
    fn wide_window(&self, g: u32, learning: &Learning) -> Result<Window, TrainError> {
        let (read, min) = match learning.wide_unread {
            true => (
                self.champions_wide_window(g, learning)?,
                learning.wide_unread_min,
            ),
            false => (Vec::new(), 0),
        };
        reach_back(learning.wide_gates, min, &read, |gates| {
            self.wide_games_for(g, gates)
        })
    }

    /// Every game the window of generation `g`'s champion held, read or
    /// left out ([`Self::wide_window`] under this folder's settings, so a fork
    /// that changed `--wide-gates` or `--wide-unread-min` since has the
    /// champion's window found under the new ones): nothing when the
    /// champion drew no wide samples (the start net, or a generation before
    /// `--wide-samples`).
    fn champions_wide_window(
        &self,
        g: u32,
        learning: &Learning,
    ) -> Result<Vec<PathBuf>, TrainError> {
        let Some(c) = self.champion_before(g)? else {
            return Ok(Vec::new());
        };
        if !self.gen_dir(c).join(WIDE_SAMPLES_BIN).exists() {
            return Ok(Vec::new());
        }
        // Without a minimum a window spans its last gates whatever it leaves
        // out, so the champion's own champion is not needed.
        if learning.wide_unread_min == 0 {
            let plain = reach_back(learning.wide_gates, 0, &[], |gates| {
                self.wide_games_for(c, gates)
            })?;
            return Ok(plain.held);
        }
        Ok(self.wide_window(c, learning)?.held)
    }

    /// How many of generation `g`'s samples came from wide games, when it
    /// drew some.
    pub(super) fn wide_count(&self, g: u32) -> Result<Option<usize>, TrainError> {
        let path = self.gen_dir(g).join(WIDE_SAMPLES_BIN);
        Ok(match path.exists() {
            true => Some(data::load_samples(&path)?.len()),
            false => None,
        })
    }

    /// Generation `h`'s wide samples' labels, checked against its
    /// `samples.bin` (`samples`), whose last ones they must be; `None`
    /// when it has none.
    pub(super) fn wide_labels(
        &self,
        h: u32,
        samples: &[Sampled],
    ) -> Result<Option<Vec<f32>>, TrainError> {
        let gen = generation_dir(self.dir, h);
        let Some((wide, labels)) = read(&gen)? else {
            return Ok(None);
        };
        check_tail(&gen, samples, &wide)?;
        Ok(Some(labels))
    }
}

/// The games of the last `gates` gates (as `games_for` lists them with how
/// many gates it found) less those in `read`, reaching back one gate at a
/// time while fewer than `min` games on disk are left and `games_for`
/// finds another gate.
fn reach_back(
    gates: u32,
    min: u32,
    read: &[PathBuf],
    mut games_for: impl FnMut(u32) -> Result<(Sources, u32), TrainError>,
) -> Result<Window, TrainError> {
    let mut gates = gates;
    loop {
        let (mut sources, found) = games_for(gates)?;
        let held: Vec<PathBuf> = (sources.games.iter().chain(&sources.missing))
            .cloned()
            .collect();
        let read_by_the_champion: Vec<PathBuf> = held
            .iter()
            .filter(|game| read.contains(game))
            .cloned()
            .collect();
        sources.games.retain(|game| !read.contains(game));
        sources.missing.retain(|game| !read.contains(game));
        if sources.games.len() >= min as usize || found < gates {
            return Ok(Window {
                sources,
                read_by_the_champion,
                held,
                gates: found,
            });
        }
        gates += 1;
    }
}

/// The wide samples of the generation folder `gen` and their labels, one
/// each; `None` when it has none.
pub(super) fn read(gen: &Path) -> Result<Option<Labelled>, TrainError> {
    let path = gen.join(WIDE_SAMPLES_BIN);
    if !path.exists() {
        return Ok(None);
    }
    let wide = data::load_samples(&path)?;
    let labels = data::load_targets(&gen.join(WIDE_REACH_BIN))?;
    if labels.len() != wide.len() {
        return Err(TrainError::Config {
            path,
            why: format!(
                "{} wide samples but {} labels in {WIDE_REACH_BIN}",
                wide.len(),
                labels.len()
            ),
        });
    }
    Ok(Some((wide, labels)))
}

/// Whether `wide` ends `samples`, the generation's `samples.bin` in `gen`.
pub(super) fn check_tail(
    gen: &Path,
    samples: &[Sampled],
    wide: &[Sampled],
) -> Result<(), TrainError> {
    if !samples.ends_with(wide) {
        return Err(TrainError::Config {
            path: gen.join(WIDE_SAMPLES_BIN),
            why: format!(
                "its {} wells are not the last of samples.bin's {}",
                wide.len(),
                samples.len()
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Generations::wide_games_for`] over `gates`, newest first, each its
    /// games: a name ending in `?` is a game whose folder is gone, and a
    /// game two gates share is listed once.
    fn lister<'a>(
        gates: &'a [&'a [&'a str]],
    ) -> impl FnMut(u32) -> Result<(Sources, u32), TrainError> + 'a {
        move |n| {
            let mut sources = Sources::default();
            let found = gates.len().min(n as usize);
            for gate in gates[..found].iter().rev() {
                for game in gate.iter() {
                    let (name, gone) = match game.strip_suffix('?') {
                        Some(name) => (PathBuf::from(name), true),
                        None => (PathBuf::from(game), false),
                    };
                    if sources.games.contains(&name) || sources.missing.contains(&name) {
                        continue;
                    }
                    match gone {
                        true => sources.missing.push(name),
                        false => sources.games.push(name),
                    }
                }
            }
            Ok((sources, found as u32))
        }
    }

    fn names(paths: &[PathBuf]) -> Vec<&str> {
        paths.iter().map(|p| p.to_str().unwrap()).collect()
    }

    #[test]
    fn a_window_left_too_few_unread_games_reaches_back_for_more() {
        let gates: &[&[&str]] = &[&["c", "n3"], &["c", "n2"], &["o", "n1"], &["o", "n0"]];
        let read: Vec<PathBuf> = ["c", "n2", "o", "n1"].map(PathBuf::from).to_vec();
        // Without a minimum: the last two gates, the new champion's own
        // game alone left.
        let plain = reach_back(2, 0, &read, lister(gates)).unwrap();
        assert_eq!(names(&plain.sources.games), ["n3"]);
        assert_eq!(plain.gates, 2);
        assert_eq!(names(&plain.read_by_the_champion), ["c", "n2"]);
        // With 2: past the two gates the champion read, to the first with
        // a game it did not.
        let back = reach_back(2, 2, &read, lister(gates)).unwrap();
        assert_eq!(names(&back.sources.games), ["n0", "n3"]);
        assert_eq!(back.gates, 4);
        assert_eq!(names(&back.held), ["o", "n0", "n1", "c", "n2", "n3"]);
        // More than the folder holds: every gate, and no further.
        let all = reach_back(2, 9, &read, lister(gates)).unwrap();
        assert_eq!(all.sources, back.sources);
        assert_eq!(all.gates, 4);
        // A game whose folder is gone does not count.
        let gone: &[&[&str]] = &[&["c", "n3"], &["c", "n2?"], &["o", "n1?"]];
        let few = reach_back(1, 2, &["c", "o"].map(PathBuf::from), lister(gone)).unwrap();
        assert_eq!(names(&few.sources.games), ["n3"]);
        assert_eq!(names(&few.sources.missing), ["n1", "n2"]);
        assert_eq!(few.gates, 3);
    }
}
