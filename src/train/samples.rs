//! Step 2 of a generation: wells sampled from every depth of the master
//! beam, each followed by some of its children and its best lookahead
//! chain point (see the [module doc](super)), then the steady state's
//! ([`super::learning`]) and the gate's wide games' ([`super::wide`]).

use rayon::prelude::*;

use super::data::Sampled;
use super::generation::Generations;
use super::{Master, Phase, TrainError};
use crate::enemy::mild_choice;
use crate::evaluate::{best_along_chain, Evaluator};
use crate::heuristic::{Knewjade, Weights};
use crate::movegen::{Child, MoveGen};
use crate::nnue::Rng;
use crate::run;
use crate::run::store::DepthFile;
use crate::well::Well;

impl Generations<'_> {
    /// Step 2: wells from every depth of the master beam, the same count
    /// from each.
    pub(super) fn samples(&self, g: u32, master: &Master) -> Result<Vec<Sampled>, TrainError> {
        let path = self.gen_dir(g).join("samples.bin");
        self.step(g, Phase::Samples, &path, || self.draw_samples(g, master))
    }

    /// The samples of generation `g`, drawn afresh.
    fn draw_samples(&self, g: u32, master: &Master) -> Result<Vec<Sampled>, TrainError> {
        let depths = master.depth;
        if depths == 0 {
            return Err(TrainError::NoSamples(g));
        }
        self.observer.phase(g, Phase::Samples, u64::from(depths));
        let dir = self.master_on_disk(g)?;
        let want = if self.learns_heuristic(g) {
            self.config.heuristic_samples.max(self.config.samples)
        } else {
            self.config.samples
        };
        let mut rng = self.rng(0x5A3D, g);
        let mut out = Vec::with_capacity(want * (1 + self.config.children));
        let mut children = Vec::new();
        for d in 1..=depths {
            let quota =
                want / depths as usize + usize::from((d as usize) <= want % depths as usize);
            let file = DepthFile::open(&run::depth_path(&dir, d))?;
            let mut indices: Vec<u32> = (0..file.len() as u32).collect();
            if quota < indices.len() {
                draw(&mut indices, quota, &mut rng);
                indices.sort_unstable();
            }
            for w in file.wells_at(&indices)? {
                let sample = Sampled {
                    well: w.unpack(),
                    depth: d,
                };
                self.push_with_children(sample, &mut rng, &mut children, &mut out);
            }
            self.observer.advanced(1);
        }
        out.extend(self.steady_samples(g)?);
        if self.config.chain_points {
            out = self.with_chain_points(g, out)?;
        }
        out.extend(self.wide_samples(g)?);
        if out.is_empty() {
            return Err(TrainError::Unsampled(g));
        }
        Ok(out)
    }

    /// Pushes `sample` to `out`, then `children` of its children (random
    /// placements of the piece HATETRIS Mild would give it; `buffer` is
    /// scratch).
    pub(super) fn push_with_children(
        &self,
        sample: Sampled,
        rng: &mut Rng,
        buffer: &mut Vec<Child>,
        out: &mut Vec<Sampled>,
    ) {
        out.push(sample);
        let gen = MoveGen::new(&sample.well);
        buffer.clear();
        gen.children(mild_choice(&gen), buffer);
        for _ in 0..self.config.children.min(buffer.len()) {
            let c = buffer.swap_remove(rng.below(buffer.len()));
            out.push(Sampled {
                well: c.well,
                depth: sample.depth + 1,
            });
        }
    }

    /// Each sample followed by the best point of its lookahead chains under
    /// the current evaluator, where the chains lead anywhere: the lookahead
    /// takes the lowest cost along a chain, so a net that overrates such
    /// wells is picked up on exactly its errors.
    fn with_chain_points(&self, g: u32, samples: Vec<Sampled>) -> Result<Vec<Sampled>, TrainError> {
        let depth = self.config.quiescent;
        let knewjade = Knewjade::new(Weights::dnf86(), Some(depth));
        let net = self.champion_evaluator(g)?;
        let inner: &dyn Evaluator = match &net {
            Some(e) => e,
            None => knewjade.heuristic(),
        };
        let points: Vec<Option<Well>> = samples
            .par_iter()
            .map(|s| {
                let best = best_along_chain(inner, &s.well, 0, depth);
                (best.steps > 0).then_some(best.well)
            })
            .collect();
        let mut out = Vec::with_capacity(samples.len() * 2);
        for (s, p) in samples.into_iter().zip(points) {
            out.push(s);
            if let Some(well) = p {
                out.push(Sampled {
                    well,
                    depth: s.depth,
                });
            }
        }
        Ok(out)
    }
}

/// Keeps the first `want` items of a partial Fisher-Yates shuffle of
/// `items` (`want` at most their number): a draw without replacement.
pub(super) fn draw<T>(items: &mut Vec<T>, want: usize, rng: &mut Rng) {
    for i in 0..want {
        let j = i + rng.below(items.len() - i);
        items.swap(i, j);
    }
    items.truncate(want);
}
