//! The genetic algorithm that fits the bot's four weights, as the article
//! describes it, and the weights file it writes.
//!
//! # The algorithm
//!
//! ```text
//! population <- `population` genomes, each weight uniform in [-1, 1]
//! evaluate every genome (fitness = mean score over the training games)
//! repeat `generations` times:
//!     repeat `children` times:
//!         draw a random `sample` fraction of the population (at least two)
//!         take its two fittest as parents
//!         child = (f1 * p1 + f2 * p2) / (f1 + f2)   (resembles the fitter parent)
//!         with chance `mutation`, add a uniform [-1, 1] value to one random weight
//!     evaluate the children
//!     drop as many of the weakest genomes as there are children; add the children
//! ```
//!
//! # Fitness
//!
//! The article: "the fitness is determined by the game score", and a game
//! returns "the score of a single play-through after game over or move
//! limit exceeded", started from level 9. It gives neither the move limit
//! nor the number of games. Ours: the mean score over `games` games (10 by
//! default) from level 9, each ending at a top-out or after `pieces` pieces
//! (5,000 by default), population 50, 15 generations. Games that are too
//! short let risky weights through: 500 pieces almost never top out, so
//! nothing punishes waiting for multi-line clears, and the weights found
//! with 5 games of 500 pieces topped out in 6 of 10 games of 20,000 pieces;
//! with 10 games of 2,000 pieces three seeds gave 2, 2 and 8 top-outs; with
//! 10 games of 5,000 pieces, 1, 0 and 0 (the article's weights: 0). A
//! top-out costs the rest of a game's score, which grows with the level, so
//! longer games make survival count. The evaluation is on other games than
//! the training ones (the README: seeds 1 to 10 and 101 to 110 of
//! `bots nes stats`).
//!
//! *Assumptions* where the article gives no number: sample 10 %, children 30 % of
//! the population per generation, mutation chance 5 % (the values of Yiyuan Lee's
//! write-up the article builds on); if both parents have fitness 0 the child is
//! their plain mean; weights are not normalised (the article's result is not).
//! The result, as in the article, is the mean of the fittest half of the last
//! generation.
//!
//! Every genome plays the same training games (seeds drawn from the training seed,
//! disjoint in practice from the small seeds `play` and `stats` use), so
//! fitnesses are comparable and a run is a pure function of its configuration:
//! the worker threads only split the list of genomes to evaluate and results are
//! stored by index.
//!
//! # The weights file
//!
//! The shared format of [`crate::common::weights`] with the magic
//! `nes-weights` and the names `height lines holes bumpiness`.

use std::path::Path;

use super::bot::{play_game, Weights};
use super::sim::Game;
use crate::common::batch::run_indexed;
pub use crate::common::weights::WeightsError;
use crate::common::{weights, SplitMix64};

/// The tunables of one training run. Each field's doc gives its default.
#[derive(Clone, Debug)]
pub struct GaConfig {
    /// Genomes in the population. Default 50, at least 4.
    pub population: usize,
    /// Generations after the initial one. Default 15.
    pub generations: u32,
    /// Training games per genome. Default 10.
    pub games: u32,
    /// Piece limit per training game. Default 5,000.
    pub pieces: u32,
    /// Start level of the training games. Default 9.
    pub level: u8,
    /// Fraction of the population drawn for each selection. Default 0.1.
    pub sample: f64,
    /// Children per generation, as a fraction of the population. Default 0.3.
    pub children: f64,
    /// Chance that a child mutates. Default 0.05.
    pub mutation: f64,
    /// Seed of the run. Default 1.
    pub seed: u64,
    /// Worker threads (results do not depend on it). Default: the machine's cores.
    pub threads: usize,
}

impl Default for GaConfig {
    fn default() -> GaConfig {
        GaConfig {
            population: 50,
            generations: 15,
            games: 10,
            pieces: 5000,
            level: 9,
            sample: 0.1,
            children: 0.3,
            mutation: 0.05,
            seed: 1,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// One genome and its fitness.
#[derive(Clone, Copy, Debug)]
pub struct Genome {
    /// The weights: height, lines, holes, bumpiness.
    pub w: [f64; 4],
    /// Mean score over the training games.
    pub fitness: f64,
}

/// The seeds of the training games of a run.
pub fn training_seeds(cfg: &GaConfig) -> Vec<u64> {
    let mut mix = SplitMix64::new(cfg.seed ^ 0x7EA1_2A11_5EED_0000);
    (0..cfg.games).map(|_| mix.next_u64()).collect()
}

/// Mean score of `w` over the games `seeds`.
pub fn fitness(w: &Weights, seeds: &[u64], level: u8, pieces: u32) -> f64 {
    let total: f64 = seeds
        .iter()
        .map(|&s| {
            let mut game = Game::new(s, level);
            play_game(&mut game, w, true, pieces);
            game.score as f64
        })
        .sum();
    total / seeds.len().max(1) as f64
}

/// Fills in the fitness of every genome, splitting the work over `threads`.
fn evaluate(genomes: &mut [Genome], seeds: &[u64], cfg: &GaConfig) {
    let fit = run_indexed(genomes.len(), cfg.threads, |i| {
        fitness(
            &Weights::from_array(genomes[i].w),
            seeds,
            cfg.level,
            cfg.pieces,
        )
    });
    for (g, f) in genomes.iter_mut().zip(fit) {
        g.fitness = f;
    }
}

/// The two fittest of a random sample of `n` genomes (ties: lower index first).
fn select(pop: &[Genome], n: usize, rng: &mut SplitMix64) -> (Genome, Genome) {
    let mut idx: Vec<usize> = (0..pop.len()).collect();
    // Partial Fisher-Yates: the first n entries become a uniform sample.
    for i in 0..n {
        let j = i + rng.below((pop.len() - i) as u32) as usize;
        idx.swap(i, j);
    }
    let sample = &mut idx[..n];
    sample.sort_by(|&a, &b| pop[b].fitness.total_cmp(&pop[a].fitness).then(a.cmp(&b)));
    (pop[sample[0]], pop[sample[1]])
}

/// Fitness-weighted crossover of two parents.
pub fn crossover(a: &Genome, b: &Genome) -> [f64; 4] {
    let (fa, fb) = (a.fitness.max(0.0), b.fitness.max(0.0));
    let total = fa + fb;
    let (wa, wb) = if total > 0.0 {
        (fa / total, fb / total)
    } else {
        (0.5, 0.5)
    };
    std::array::from_fn(|i| wa * a.w[i] + wb * b.w[i])
}

/// Runs the algorithm. `progress` is called after the initial population and after
/// each generation with the generation number and the population, fittest first.
/// Returns the last population, fittest first.
pub fn train(cfg: &GaConfig, mut progress: impl FnMut(u32, &[Genome])) -> Vec<Genome> {
    let seeds = training_seeds(cfg);
    let mut rng = SplitMix64::new(cfg.seed);
    let mut pop: Vec<Genome> = (0..cfg.population)
        .map(|_| Genome {
            w: std::array::from_fn(|_| rng.range(-1.0, 1.0)),
            fitness: 0.0,
        })
        .collect();
    evaluate(&mut pop, &seeds, cfg);
    sort_fittest_first(&mut pop);
    progress(0, &pop);
    let sample = ((cfg.sample * cfg.population as f64).round() as usize).clamp(2, cfg.population);
    let n_children =
        ((cfg.children * cfg.population as f64).round() as usize).clamp(1, cfg.population - 2);
    for generation in 1..=cfg.generations {
        let mut children: Vec<Genome> = (0..n_children)
            .map(|_| {
                let (a, b) = select(&pop, sample, &mut rng);
                let mut w = crossover(&a, &b);
                if rng.unit() < cfg.mutation {
                    w[rng.below(4) as usize] += rng.range(-1.0, 1.0);
                }
                Genome { w, fitness: 0.0 }
            })
            .collect();
        evaluate(&mut children, &seeds, cfg);
        pop.truncate(cfg.population - n_children);
        pop.extend(children);
        sort_fittest_first(&mut pop);
        progress(generation, &pop);
    }
    pop
}

/// Sorts by fitness, fittest first; ties keep their order.
fn sort_fittest_first(pop: &mut [Genome]) {
    pop.sort_by(|a, b| b.fitness.total_cmp(&a.fitness));
}

/// The article's summary of a population: the mean weights of its fittest half.
pub fn fittest_half_mean(pop: &[Genome]) -> Weights {
    let half = pop.len().div_ceil(2).max(1);
    let mut sum = [0.0; 4];
    for g in &pop[..half] {
        for (s, w) in sum.iter_mut().zip(g.w) {
            *s += w;
        }
    }
    Weights::from_array(sum.map(|s| s / half as f64))
}

/// The weights file's magic (format: [`crate::common::weights`]).
pub const WEIGHTS_MAGIC: &str = "nes-weights";
/// The weights' names in the file, in [`Weights::to_array`] order.
pub const WEIGHT_NAMES: [&str; 4] = ["height", "lines", "holes", "bumpiness"];

/// Writes `w` to `path`; `comment` (say, the command) becomes `#` lines.
pub fn save_weights(path: &Path, w: &Weights, comment: &str) -> Result<(), WeightsError> {
    weights::write(path, WEIGHTS_MAGIC, &WEIGHT_NAMES, &w.to_array(), comment)
}

/// Reads weights written by [`save_weights`].
pub fn load_weights(path: &Path) -> Result<Weights, WeightsError> {
    weights::read(path, WEIGHTS_MAGIC, &WEIGHT_NAMES).map(Weights::from_array)
}

/// Parses the text of a weights file; `name` is used in errors.
pub fn parse_weights(text: &str, name: &str) -> Result<Weights, WeightsError> {
    weights::parse(text, name, WEIGHTS_MAGIC, &WEIGHT_NAMES).map(Weights::from_array)
}
