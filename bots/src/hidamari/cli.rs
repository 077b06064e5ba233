//! Command line for Hidamari: `play` and `stats`.
//!
//! Flags hold plain values; each subcommand checks them and calls the library.
//! Errors are one line.

use anyhow::bail;

use super::search::{Bot, HidamariWeights, ARENA_BYTES};
use super::sim::Game;

/// Subcommands for Hidamari.
#[derive(clap::Subcommand, Debug)]
pub enum Cmd {
    /// Play one seeded game and report lines cleared, pieces and arena use.
    Play {
        /// Game seed (drives the 7-bag).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Piece limit: the game stops after this many pieces.
        #[arg(long, default_value_t = 10_000)]
        pieces: u32,
        /// Print the final well.
        #[arg(long)]
        show: bool,
    },
    /// Play many seeded games and report lines cleared before top-out.
    Stats {
        /// Number of games; game i uses seed `seed + i`.
        #[arg(long, default_value_t = 20)]
        games: u32,
        /// Seed of the first game.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Piece limit per game.
        #[arg(long, default_value_t = 10_000)]
        pieces: u32,
    },
}

/// Runs one subcommand.
pub fn run(cmd: Cmd) -> anyhow::Result<()> {
    let mut bot = Bot::new(HidamariWeights::ARTICLE);
    match cmd {
        Cmd::Play { seed, pieces, show } => {
            let mut game = Game::new(seed);
            let start = std::time::Instant::now();
            bot.play(&mut game, pieces);
            let secs = start.elapsed().as_secs_f64();
            println!(
                "seed {seed}: lines {} pieces {} end {} | arena peak {} of {ARENA_BYTES} bytes, {} nodes, {:.0} pieces/s",
                game.lines,
                game.pieces,
                if game.over { "top-out" } else { "piece limit" },
                bot.arena.peak_bytes(),
                bot.nodes_total,
                f64::from(game.pieces) / secs.max(1e-9)
            );
            if show {
                print!("{}", game.board.to_text());
            }
        }
        Cmd::Stats {
            games,
            seed,
            pieces,
        } => {
            if games == 0 {
                bail!("--games must be at least 1");
            }
            let (mut lines, mut placed, mut topouts) = (0u64, 0u64, 0u32);
            let (mut min_lines, mut max_lines) = (u32::MAX, 0);
            let start = std::time::Instant::now();
            for i in 0..u64::from(games) {
                let mut game = Game::new(seed + i);
                bot.play(&mut game, pieces);
                lines += u64::from(game.lines);
                placed += u64::from(game.pieces);
                topouts += u32::from(game.over);
                min_lines = min_lines.min(game.lines);
                max_lines = max_lines.max(game.lines);
            }
            let secs = start.elapsed().as_secs_f64();
            println!(
                "{games} games, seeds {seed}..={}, piece limit {pieces}: mean lines {:.1} (min {min_lines} max {max_lines}), mean pieces {:.1}, topped out {topouts}/{games}",
                seed + u64::from(games) - 1,
                lines as f64 / f64::from(games),
                placed as f64 / f64::from(games),
            );
            println!(
                "arena peak {} of {ARENA_BYTES} bytes; {} nodes in all (determinism signature); {:.0} pieces/s",
                bot.arena.peak_bytes(),
                bot.nodes_total,
                placed as f64 / secs.max(1e-9)
            );
        }
    }
    Ok(())
}
