//! Running whole games with the bot: one game for `play`, many for `stats`
//! and `train`.
//!
//! Game `i` of a batch seeded with `s` uses the `i`-th output of
//! SplitMix64(`s`) as its own seed, so a batch's figures do not depend on the
//! number of threads ([`crate::common::batch`] puts results back in game
//! order before any sum is formed).

use super::bot::Bot;
use super::sim::{Game, Rules};
use crate::common::batch::run_indexed;
use crate::common::SplitMix64;

/// How one game ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameResult {
    /// Pairs spawned, the one that topped out included.
    pub spawns: u64,
    /// The game stopped at the spawn cap rather than topping out.
    pub capped: bool,
    /// Spawns it took to complete all 60 levels, if it did.
    pub finished_at: Option<u64>,
    /// Level reached (0-based; 60 or more means the game was finished).
    pub level: u32,
    /// Cash at the end.
    pub cash: u64,
    /// Stacks sold.
    pub stacks: u64,
    /// Helpers summoned.
    pub helpers_used: u64,
}

/// Plays one game to game over or `max_spawns` spawns.
pub fn run_game(bot: &Bot, seed: u64, rules: Rules, max_spawns: u64) -> GameResult {
    let mut g = Game::new(seed, rules);
    while !g.over && g.spawns < max_spawns {
        let Some(mv) = bot.choose(&g.board, g.current, g.next) else {
            break;
        };
        g.play(mv);
    }
    GameResult {
        spawns: g.spawns,
        capped: !g.over,
        finished_at: g.finished_at,
        level: g.level,
        cash: g.board.cash,
        stacks: g.board.stacks,
        helpers_used: g.helpers_used,
    }
}

/// The seed of game `index` in a batch seeded with `seed`: the `index`-th
/// output of SplitMix64(`seed`).
pub fn game_seed(seed: u64, index: usize) -> u64 {
    SplitMix64::nth_output(seed, index as u64)
}

/// Plays `games` games on `threads` threads; results in game order.
pub fn run_batch(
    bot: &Bot,
    seed: u64,
    games: usize,
    rules: Rules,
    max_spawns: u64,
    threads: usize,
) -> Vec<GameResult> {
    run_indexed(games, threads, |i| {
        run_game(bot, game_seed(seed, i), rules, max_spawns)
    })
}

/// Mean and sample standard deviation.
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}
