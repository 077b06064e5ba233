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
//! 2.6 ± 1.9 (`data/train/README.md`, "`wu` and `wv`").
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
use super::{Phase, TrainError};
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
        let mut sources = Sources::default();
        let mut unread = Vec::new();
        if !path.exists() {
            sources = self.wide_games_for(g, learning.wide_gates)?;
            if learning.wide_unread {
                unread = self.leave_out_the_champions(g, learning.wide_gates, &mut sources)?;
            }
            if sources == Sources::default() {
                // No earlier gate played wide games: no file.
                return Ok(Vec::new());
            }
        }
        // (The step computes only where the file is missing, so `sources`
        // is the one just found.)
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
                event["read_by_the_champion"] = serde_json::json!(unread);
            }
            self.log(&event)?;
            Ok(samples)
        })?;
        Ok(samples)
    }

    /// The finished wide games of the last `gates` gates before generation
    /// `g` that played any: each gate's champion's games, then its
    /// candidate's, a game already listed left out.
    pub(super) fn wide_games_for(&self, g: u32, gates: u32) -> Result<Sources, TrainError> {
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
                for game in games {
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
        Ok(sources)
    }

    /// Takes out of `sources` the games generation `g`'s champion drew its
    /// own wide samples from ([`Learning::wide_unread`](super::Learning::wide_unread)),
    /// and returns them: the games of the last `gates` gates before the
    /// champion's generation, as [`Self::wide_games_for`] finds them (the
    /// gates' records say what they played; a fork that changed
    /// `--wide-gates` since has the champion's draw found under the new
    /// count). Nothing when the champion drew no wide samples (the start
    /// net, or a generation before `--wide-samples`).
    fn leave_out_the_champions(
        &self,
        g: u32,
        gates: u32,
        sources: &mut Sources,
    ) -> Result<Vec<PathBuf>, TrainError> {
        let Some(c) = self.champion_before(g)? else {
            return Ok(Vec::new());
        };
        if !self.gen_dir(c).join(WIDE_SAMPLES_BIN).exists() {
            return Ok(Vec::new());
        }
        let read = self.wide_games_for(c, gates)?;
        let read: Vec<PathBuf> = read.games.into_iter().chain(read.missing).collect();
        let left_out: Vec<PathBuf> = (sources.games.iter().chain(&sources.missing))
            .filter(|game| read.contains(game))
            .cloned()
            .collect();
        sources.games.retain(|game| !read.contains(game));
        sources.missing.retain(|game| !read.contains(game));
        Ok(left_out)
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
