//! How far each kept well's line of play lasted in a finished run, and the
//! targets' reach term built on it (`--reach-share`, `--reach-horizon`).
//!
//! A well's *reach* is the deepest depth at which the run kept a
//! descendant of it. A width-100,000 beam dies by drifting: every family
//! of its wells gains cells together over a hundred pieces, and the net's
//! value sees it coming about 40 pieces before the end, the horizon its
//! training beams' targets see (`data/train/README.md`, "How far back a
//! width-100,000 beam's wells part"). Which of one depth's wells the wide
//! search itself carried 50 pieces further is a label no 10-piece training
//! beam holds, and the master beam's depth files have it for free.
//!
//! [`walk`] is one pass over the depth files, newest first: each well's
//! children under the piece the run's enemy gives it are made by the move
//! generator and looked up in the next depth (well and score), and a well's
//! reach is the most of its found children's. The piece is the enemy's
//! choice without its history ([`EnemyKind::stateless_piece`]); HATETRIS's
//! loop prevention, which the search applies, can give another, so a rare
//! reach is short. Under an enemy whose piece needs the history
//! (Brzustowski) no well has a descendant. About 1.4 CPU-minutes for 480
//! depths of 100,000 wells (`examples/descendants.rs`); 267 s on 2 threads,
//! beside a width-100,000 game, for learn-18's master beam of 602 depths
//! (`data/train/README.md`, "learn-18-reach"); walking back from each depth's wells with
//! [`crate::reverse`] instead is exact about pieces and took over 20 before
//! it was stopped. The test holds it against the obvious forward walk from
//! each well alone.
//!
//! [`reach`] labels a generation's samples (their reach less their depth,
//! or −1 for a sample the run did not keep at its depth: children, chain
//! points, wells of other games), kept as `gen-NNN/reach.bin` in the
//! targets' file format, where the samples from the gate's wide games
//! ([`super::wide`], the last) bring their own labels; [`bonus`] turns the
//! labels into what the fit adds to the standardised targets: `share ×
//! (min(reach, horizon) / horizon − the mean of that over the depth's
//! labelled wells)`, so that a depth's labels move its wells against each
//! other (the ranking term pairs wells of one depth) and not the depth's
//! level.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;

use super::data::{self, Sampled};
use super::folder::generation_dir;
use super::generation::Generations;
use super::{Phase, TrainError};
use crate::enemy::EnemyKind;
use crate::movegen::MoveGen;
use crate::run::read_manifest;
use crate::run::shards::Depth;
use crate::run::store::Stored;
use crate::well::Well;

/// `gen-NNN/reach.bin`: each sample's reach less its depth, or −1.
pub const REACH_BIN: &str = "reach.bin";

/// The reach term's horizon when `--reach-share` is given alone: the
/// pieces past which the master beam's lines are too few to rank (0.04 %
/// of a width-100,000 master's sampled wells lasted 50 pieces).
pub const DEFAULT_HORIZON: u32 = 50;

/// A sample the run did not keep at its depth.
pub const UNLABELLED: f32 = -1.0;

/// Walks the finished run in `dir` from its last depth back to its first,
/// calling `visit(depth, wells, reach)` with each depth's kept wells and
/// the reach of each (see the module doc). Returns the run's last depth.
pub fn walk(dir: &Path, mut visit: impl FnMut(u32, &[Stored], &[u32])) -> Result<u32, TrainError> {
    let m = read_manifest(dir)?;
    let enemy = m.settings.enemy;
    // The depth after the current one: well → (score, reach).
    let mut later: HashMap<Well, (u16, u32)> = HashMap::new();
    for depth in (m.root()..=m.depth).rev() {
        let stored = Depth::open(dir, depth, m.shards)?.read_all()?;
        let reach = depth_reach(&stored, depth, enemy, &later);
        later = stored
            .iter()
            .zip(&reach)
            .map(|(s, &r)| (s.well, (s.score, r)))
            .collect();
        visit(depth, &stored, &reach);
    }
    Ok(m.depth)
}

/// The reach of each of `stored`, the wells kept at `depth`, given the
/// next depth's wells and their reach in `later`.
fn depth_reach(
    stored: &[Stored],
    depth: u32,
    enemy: EnemyKind,
    later: &HashMap<Well, (u16, u32)>,
) -> Vec<u32> {
    stored
        .par_iter()
        .map_init(Vec::new, |children, s| {
            let gen = MoveGen::new(&s.well);
            let Some(piece) = enemy.stateless_piece(&gen, depth) else {
                return depth;
            };
            children.clear();
            gen.children(piece, children);
            children
                .iter()
                .filter_map(|c| match later.get(&c.well) {
                    Some(&(score, r)) if score == s.score + u16::from(c.lines) => Some(r),
                    _ => None,
                })
                .fold(depth, u32::max)
        })
        .collect()
}

/// Each of `samples`' reach less its depth in the finished run `dir` (a
/// master beam, whose depths the samples' are), or [`UNLABELLED`] for a
/// sample it did not keep at its depth.
pub fn reach(dir: &Path, samples: &[Sampled]) -> Result<Vec<f32>, TrainError> {
    // depth → well → the samples of it.
    let mut wanted: HashMap<u32, HashMap<Well, Vec<usize>>> = HashMap::new();
    for (i, s) in samples.iter().enumerate() {
        wanted
            .entry(s.depth)
            .or_default()
            .entry(s.well)
            .or_default()
            .push(i);
    }
    let mut labels = vec![UNLABELLED; samples.len()];
    walk(dir, |depth, stored, reach| {
        let Some(want) = wanted.get(&depth) else {
            return;
        };
        for (s, &r) in stored.iter().zip(reach) {
            for &i in want.get(&s.well).into_iter().flatten() {
                labels[i] = (r - depth) as f32;
            }
        }
    })?;
    Ok(labels)
}

/// What the fit adds to each sample's standardised target (see the module
/// doc): 0 for a sample that is unlabelled or not `eligible` (a lost or
/// dying training beam's, whose target is an anchor), and for the others
/// `share` × (its reach capped at `horizon`, over `horizon`, less the mean
/// of that over the eligible labelled samples of its depth).
pub fn bonus(
    share: f64,
    horizon: u32,
    depths: &[u32],
    labels: &[f32],
    eligible: &[bool],
) -> Vec<f32> {
    let horizon = f64::from(horizon.max(1));
    let part = |label: f32| f64::from(label).min(horizon) / horizon;
    let counted = |i: usize| eligible[i] && labels[i] >= 0.0;
    let mut sums: HashMap<u32, (f64, u32)> = HashMap::new();
    for i in (0..labels.len()).filter(|&i| counted(i)) {
        let e = sums.entry(depths[i]).or_default();
        e.0 += part(labels[i]);
        e.1 += 1;
    }
    (0..labels.len())
        .map(|i| match counted(i) {
            true => {
                let (sum, n) = sums[&depths[i]];
                (share * (part(labels[i]) - sum / f64::from(n))) as f32
            }
            false => 0.0,
        })
        .collect()
}

impl Generations<'_> {
    /// With the reach term, makes `reach.bin` ([`reach`]) for every
    /// generation that generation `g`'s fit reads and that lacks one, from
    /// that generation's master beam's depth files (a step of it).
    pub(super) fn reach_step(&self, g: u32) -> Result<(), TrainError> {
        let Some(learning) = self.learning().filter(|l| l.reach_term()) else {
            return Ok(());
        };
        let horizon = learning.reach_horizon;
        for h in self.window(g) {
            if self.learns_heuristic(h) {
                continue;
            }
            let path = generation_dir(self.dir, h).join(REACH_BIN);
            self.step(h, Phase::Reach, &path, || {
                let samples = data::load_samples(&generation_dir(self.dir, h).join("samples.bin"))?;
                // The wide games' samples, last, carry their own labels.
                let wide = self.wide_labels(h, &samples)?;
                let own = samples.len() - wide.as_ref().map_or(0, Vec::len);
                let mut labels = match own {
                    0 => Vec::new(),
                    _ => {
                        let dir = self.master_on_disk(h)?;
                        self.observer.phase(h, Phase::Reach, 0);
                        reach(&dir, &samples[..own])?
                    }
                };
                labels.extend(wide.unwrap_or_default());
                let (labelled, lasted) = counts(&labels, horizon);
                self.log(&serde_json::json!({
                    "event": "reach",
                    "generation": h,
                    "samples": labels.len(),
                    "labelled": labelled,
                    "lasted_horizon": lasted,
                    "horizon": horizon,
                }))?;
                Ok(labels)
            })?;
        }
        Ok(())
    }

    /// What the reach term adds to each of generation `h`'s targets
    /// (`samples`, of which `survived` are survivors' targets: [`bonus`]),
    /// from the `reach.bin` that [`Self::reach_step`] made; `None` without
    /// the reach term or for the heuristic's generation.
    pub(super) fn reach_bonus(
        &self,
        h: u32,
        samples: &[Sampled],
        survived: &[bool],
    ) -> Result<Option<Vec<f32>>, TrainError> {
        let Some(learning) = self.learning().filter(|l| l.reach_term()) else {
            return Ok(None);
        };
        if self.learns_heuristic(h) {
            return Ok(None);
        }
        let labels = self.reach_labels(h, samples.len())?;
        let depths: Vec<u32> = samples.iter().map(|s| s.depth).collect();
        Ok(Some(bonus(
            learning.reach_share,
            learning.reach_horizon,
            &depths,
            &labels,
            survived,
        )))
    }

    /// Generation `h`'s `reach.bin`, which [`Self::reach_step`] made, for
    /// its `count` samples.
    fn reach_labels(&self, h: u32, count: usize) -> Result<Vec<f32>, TrainError> {
        let path = generation_dir(self.dir, h).join(REACH_BIN);
        if !path.exists() {
            return Err(TrainError::Config {
                path,
                why: "missing: the reach term's labels are made before the fit".into(),
            });
        }
        let labels = data::load_targets(&path)?;
        if labels.len() != count {
            return Err(TrainError::Config {
                path,
                why: format!("{} labels for {count} samples", labels.len()),
            });
        }
        Ok(labels)
    }
}

/// How many of `labels` are labelled, and how many of those lasted
/// `horizon` pieces: the figures the log keeps for a generation's reach.
pub fn counts(labels: &[f32], horizon: u32) -> (usize, usize) {
    let labelled = labels.iter().filter(|&&l| l >= 0.0).count();
    let lasted = labels.iter().filter(|&&l| l >= horizon as f32).count();
    (labelled, lasted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bonus_moves_a_depths_labelled_wells_against_each_other() {
        // Depth 1: reaches 0, 50 and 100 (capped at 50), one unlabelled
        // and one not eligible; depth 2: one well alone.
        let depths = [1, 1, 1, 1, 1, 2];
        let labels = [0.0, 50.0, 100.0, UNLABELLED, 100.0, 10.0];
        let eligible = [true, true, true, true, false, true];
        let b = bonus(0.5, 50, &depths, &labels, &eligible);
        let mean = (0.0 + 1.0 + 1.0) / 3.0;
        let want = [
            0.5 * (0.0 - mean),
            0.5 * (1.0 - mean),
            0.5 * (1.0 - mean),
            0.0,
            0.0,
            0.0,
        ];
        for (got, want) in b.iter().zip(want) {
            assert!((f64::from(*got) - want).abs() < 1e-6, "{b:?}");
        }
        assert_eq!(counts(&labels, 50), (5, 3));
    }
}
