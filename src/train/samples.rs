//! Step 2 of a generation: wells sampled from every depth of the master
//! beam, each followed by some of its children and its best lookahead
//! chain point (see the [module doc](super)).

use rayon::prelude::*;

use super::data::Sampled;
use super::generation::Generations;
use super::{Master, Phase, TrainError};
use crate::enemy::mild_choice;
use crate::evaluate::{best_along_chain, Evaluator};
use crate::heuristic::{Knewjade, Weights};
use crate::movegen::MoveGen;
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
        let dir = self.master_dir(g)?;
        let want = if self.learns_heuristic(g) {
            self.config.heuristic_samples.max(self.config.samples)
        } else {
            self.config.samples
        };
        let mut rng = Rng::new(self.config.seed ^ (0x5A3D_u64 << 32) ^ u64::from(g));
        let mut out = Vec::with_capacity(want * (1 + self.config.children));
        let mut children = Vec::new();
        for d in 1..=depths {
            let quota =
                want / depths as usize + usize::from((d as usize) <= want % depths as usize);
            let file = DepthFile::open(&run::depth_path(&dir, d))?;
            let mut indices: Vec<u32> = (0..file.len() as u32).collect();
            if quota < indices.len() {
                // The first `quota` of a partial Fisher-Yates shuffle.
                for i in 0..quota {
                    let j = i + rng.below(indices.len() - i);
                    indices.swap(i, j);
                }
                indices.truncate(quota);
                indices.sort_unstable();
            }
            for w in file.wells_at(&indices)? {
                let well = w.unpack();
                out.push(Sampled { well, depth: d });
                let gen = MoveGen::new(&well);
                children.clear();
                gen.children(mild_choice(&gen), &mut children);
                for _ in 0..self.config.children.min(children.len()) {
                    let c = children.swap_remove(rng.below(children.len()));
                    out.push(Sampled {
                        well: c.well,
                        depth: d + 1,
                    });
                }
            }
            self.observer.advanced(1);
        }
        out.extend(self.steady_samples(g)?);
        if self.config.chain_points {
            out = self.with_chain_points(g, out)?;
        }
        Ok(out)
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
