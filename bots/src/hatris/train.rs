//! The article's hill climbing over the eight Hatris weights.
//!
//! ```text
//! W := random weights
//! repeat for each round:
//!   S := fresh game seeds;  R := rating of W on S
//!   repeat 5 to 11 times (random):
//!     Z := `variants` copies of W, each weight scaled by 1 ± up to `step`
//!          (5 %) and, with `step_abs` > 0, moved by ± up to `step_abs`
//!     rate every V in Z on S (in parallel);  keep the best that beats R
//! ```
//!
//! The article gives the loop but not Hatris' rating; we rate a weight
//! vector by the mean number of spawns it survives over the round's games
//! (capped), cash breaking ties. Higher is better. Weights are kept summing
//! to 100 so that they read as the article's percentages. Everything is
//! driven by one seed; the output does not depend on the thread count.

use super::bot::{Bot, Weights};
use super::sim::Rules;
use super::stats::{game_seed, run_game};
use crate::common::batch::run_indexed;
use crate::common::weights::{normalise_to_100, perturb_to_100_abs};
use crate::common::SplitMix64;

/// Training knobs.
#[derive(Clone, Copy, Debug)]
pub struct TrainConfig {
    /// Master seed.
    pub seed: u64,
    /// Outer rounds (the article loops forever; we stop).
    pub rounds: u32,
    /// Games per rating.
    pub games: usize,
    /// Variants per inner step.
    pub variants: usize,
    /// Spawn cap per game.
    pub max_spawns: u64,
    /// Rules for the training games.
    pub rules: Rules,
    /// Worker threads.
    pub threads: usize,
    /// Start from these weights instead of random ones.
    pub start: Option<Weights>,
    /// Largest relative change of one weight in a variant (0.05: ± 5 %).
    pub step: f64,
    /// Largest absolute change of one weight in a variant, in the units of
    /// the sum of 100 (0: factors only, so a weight near 0 stays near 0).
    pub step_abs: f64,
}

/// A rating: mean spawns survived, then mean cash.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Rating {
    /// Mean spawns over the round's games.
    pub spawns: f64,
    /// Mean cash over the round's games.
    pub cash: f64,
}

/// Rates `w` on the games seeded `seeds`, `threads` at a time.
pub fn rate(w: Weights, seeds: &[u64], cfg: &TrainConfig) -> Rating {
    let bot = Bot::new(w);
    let results = rate_many(&[bot], seeds, cfg);
    results[0]
}

fn rate_many(bots: &[Bot], seeds: &[u64], cfg: &TrainConfig) -> Vec<Rating> {
    // One job per (bot, game), summed in order.
    let res = run_indexed(bots.len() * seeds.len(), cfg.threads, |i| {
        let r = run_game(
            &bots[i / seeds.len()],
            seeds[i % seeds.len()],
            cfg.rules,
            cfg.max_spawns,
        );
        (r.spawns, r.cash)
    });
    let n = seeds.len() as f64;
    res.chunks(seeds.len().max(1))
        .map(|part| Rating {
            spawns: part.iter().map(|r| r.0 as f64).sum::<f64>() / n,
            cash: part.iter().map(|r| r.1 as f64).sum::<f64>() / n,
        })
        .collect()
}

/// Scales `w` so its weights sum to 100.
pub fn normalise(w: Weights) -> Weights {
    Weights(normalise_to_100(w.0))
}

/// Runs the hill climb; `report` sees each round's best weights and rating.
pub fn train(cfg: &TrainConfig, mut report: impl FnMut(u32, Weights, Rating)) -> Weights {
    let mut rng = SplitMix64::new(cfg.seed);
    let mut w = cfg
        .start
        .unwrap_or_else(|| normalise(Weights(std::array::from_fn(|_| rng.unit()))));
    for round in 0..cfg.rounds {
        let base = rng.next_u64();
        let seeds: Vec<u64> = (0..cfg.games).map(|i| game_seed(base, i)).collect();
        let mut r = rate(w, &seeds, cfg);
        let steps = 5 + rng.below(7);
        for _ in 0..steps {
            let z: Vec<Weights> = (0..cfg.variants)
                .map(|_| Weights(perturb_to_100_abs(w.0, cfg.step, cfg.step_abs, &mut rng)))
                .collect();
            let bots: Vec<Bot> = z.iter().map(|&v| Bot::new(v)).collect();
            let ratings = rate_many(&bots, &seeds, cfg);
            for (v, t) in z.into_iter().zip(ratings) {
                if t > r {
                    r = t;
                    w = v;
                }
            }
        }
        report(round, w, r);
    }
    w
}
