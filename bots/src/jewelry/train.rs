//! The article's hill climbing for the Magic Jewelry weights.
//!
//! As the article describes it: a round draws a column sequence of random
//! length (20,000 to 40,000 by default), rates the current weights by the
//! total of the jewels left on the field after each column (lower is
//! better), then 5 to 11 times rates a set of variants, each weight scaled
//! by a factor within ±5 %, in parallel, keeping any that beats the best so
//! far. A game that ends early is charged a full field (78) for each column
//! it did not play. Weights are kept summing to 100.

use super::board::VISIBLE_CELLS;
use super::bot::{Bot, Weights};
use super::game::Game;
use crate::common::batch::run_indexed;
use crate::common::weights::{normalise_to_100, perturb_to_100};
use crate::common::SplitMix64;

/// Training knobs.
#[derive(Clone, Copy, Debug)]
pub struct TrainConfig {
    /// Master seed.
    pub seed: u64,
    /// Outer rounds.
    pub rounds: u32,
    /// Shortest column sequence.
    pub min_columns: u64,
    /// Longest column sequence.
    pub max_columns: u64,
    /// Variants per inner step.
    pub variants: usize,
    /// Worker threads.
    pub threads: usize,
    /// Start from these weights instead of random ones.
    pub start: Option<Weights>,
}

/// Total jewels after each of `columns` columns of the game seeded `seed`
/// (lower is better).
pub fn rate(w: Weights, seed: u64, columns: u64) -> u64 {
    let bot = Bot::new(w);
    let mut g = Game::new(seed, 0);
    let mut total = 0;
    for i in 0..columns {
        if g.step(&bot).is_none() || g.over {
            total += (columns - i) * VISIBLE_CELLS as u64;
            break;
        }
        total += u64::from(g.board.jewels());
    }
    total
}

fn rate_many(ws: &[Weights], seed: u64, columns: u64, threads: usize) -> Vec<u64> {
    run_indexed(ws.len(), threads, |i| rate(ws[i], seed, columns))
}

/// Scales `w` so its weights sum to 100.
pub fn normalise(w: Weights) -> Weights {
    Weights(normalise_to_100(w.0))
}

/// Runs the hill climb; `report` sees each round's weights and the mean
/// jewel count behind their rating.
pub fn train(cfg: &TrainConfig, mut report: impl FnMut(u32, Weights, f64)) -> Weights {
    let mut rng = SplitMix64::new(cfg.seed);
    let mut w = cfg
        .start
        .unwrap_or_else(|| normalise(Weights(std::array::from_fn(|_| rng.unit()))));
    let span = cfg.max_columns.saturating_sub(cfg.min_columns) + 1;
    for round in 0..cfg.rounds {
        let seed = rng.next_u64();
        let columns = cfg.min_columns + rng.next_u64() % span;
        let mut r = rate(w, seed, columns);
        let steps = 5 + rng.below(7);
        for _ in 0..steps {
            let z: Vec<Weights> = (0..cfg.variants)
                .map(|_| Weights(perturb_to_100(w.0, 0.05, &mut rng)))
                .collect();
            let ratings = rate_many(&z, seed, columns, cfg.threads);
            for (v, t) in z.into_iter().zip(ratings) {
                if t < r {
                    r = t;
                    w = v;
                }
            }
        }
        report(round, w, r as f64 / columns.max(1) as f64);
    }
    w
}
