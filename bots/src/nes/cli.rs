//! Command line for NES Tetris: `play`, `stats`, `train` and `host`.
//!
//! Two stages, as everywhere in the crate: clap parses plain values, then each
//! subcommand checks its cross-flag rules and calls the library. Every error is
//! one line; nothing here panics on bad input.

use std::path::PathBuf;

use anyhow::{bail, Context};

use super::bot::{play_game, Weights, ARTICLE_WEIGHTS};
use super::ga::{self, GaConfig};
use super::sim::{End, Game};
use crate::common::cli::ThreadsArg;
use crate::common::weights::unit_length;

/// Subcommands for NES Tetris.
#[derive(clap::Subcommand, Debug)]
pub enum Cmd {
    /// Play one seeded game with the article's weights (and with --weights, if given).
    Play {
        /// Game seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Piece limit: the game stops after this many pieces.
        #[arg(long, default_value_t = 1000)]
        pieces: u32,
        /// Start level (0..=29); it sets the score multiplier.
        #[arg(long, default_value_t = 9)]
        level: u8,
        /// A weights file written by `train`, played after the article's weights.
        #[arg(long)]
        weights: Option<PathBuf>,
        /// Ignore the preview piece.
        #[arg(long)]
        no_lookahead: bool,
        /// Print the final well.
        #[arg(long)]
        show: bool,
    },
    /// Play many seeded games and report mean lines and score.
    Stats {
        /// Number of games; game i uses seed `seed + i`.
        #[arg(long, default_value_t = 20)]
        games: u32,
        /// Seed of the first game.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Piece limit per game.
        #[arg(long, default_value_t = 1000)]
        pieces: u32,
        /// Start level (0..=29).
        #[arg(long, default_value_t = 9)]
        level: u8,
        /// A weights file written by `train`, reported after the article's weights.
        #[arg(long)]
        weights: Option<PathBuf>,
        /// Ignore the preview piece.
        #[arg(long)]
        no_lookahead: bool,
    },
    /// Fit the four weights with the article's genetic algorithm and write them.
    Train {
        /// Output weights file.
        #[arg(long)]
        out: PathBuf,
        /// Genomes in the population (at least 4).
        #[arg(long, default_value_t = 50)]
        population: usize,
        /// Generations after the initial population.
        #[arg(long, default_value_t = 15)]
        generations: u32,
        /// Training games per genome (fitness is the mean score over them).
        #[arg(long, default_value_t = 10)]
        games: u32,
        /// Piece limit per training game (a game also ends at a top-out).
        #[arg(long, default_value_t = 5000)]
        pieces: u32,
        /// Start level of training games (0..=29).
        #[arg(long, default_value_t = 9)]
        level: u8,
        /// Seed of the run.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads.
        #[command(flatten)]
        threads: ThreadsArg,
    },
    /// Run the bot on a real NES Tetris ROM in the tetanes-core emulator
    /// (needs the `nes-emulator` build feature and a ROM file you supply).
    Host {
        /// The ROM file (iNES). None is included with this program.
        #[arg(long)]
        rom: Option<PathBuf>,
        /// Stop after this many pieces.
        #[arg(long, default_value_t = 200)]
        pieces: u32,
        /// Stop after this many video frames.
        #[arg(long, default_value_t = 200_000)]
        frames: u64,
        /// Start level chosen on the menu (0..=9).
        #[arg(long, default_value_t = 0)]
        level: u8,
        /// A weights file written by `train` (default: the article's weights).
        #[arg(long)]
        weights: Option<PathBuf>,
    },
}

/// Runs one subcommand.
pub fn run(cmd: Cmd) -> anyhow::Result<()> {
    match cmd {
        Cmd::Play {
            seed,
            pieces,
            level,
            weights,
            no_lookahead,
            show,
        } => {
            check_level(level)?;
            for (label, w) in weight_sets(weights.as_deref())? {
                let mut game = Game::new(seed, level);
                play_game(&mut game, &w, !no_lookahead, pieces);
                println!(
                    "{label}: seed {seed}: score {} lines {} pieces {} level {} tetrises {} end {}",
                    game.score,
                    game.lines,
                    game.pieces,
                    game.level,
                    game.clears[3],
                    end_name(game.end)
                );
                if show {
                    print!("{}", game.board.to_text());
                }
            }
            Ok(())
        }
        Cmd::Stats {
            games,
            seed,
            pieces,
            level,
            weights,
            no_lookahead,
        } => {
            check_level(level)?;
            if games == 0 {
                bail!("--games must be at least 1");
            }
            println!(
                "{games} games, seeds {seed}..={}, piece limit {pieces}, start level {level}, lookahead {}",
                seed + u64::from(games) - 1,
                if no_lookahead { "off" } else { "on" }
            );
            for (label, w) in weight_sets(weights.as_deref())? {
                let s = stats(&w, seed, games, pieces, level, !no_lookahead);
                println!(
                    "{label}: mean lines {:.1} mean score {:.0} (min {} max {}) tetris share {:.1}% topped out {}/{games}",
                    s.mean_lines, s.mean_score, s.min_score, s.max_score, s.tetris_share * 100.0, s.topouts
                );
                let u = unit_length(w.to_array());
                println!(
                    "  weights at unit length: height {:.3} lines {:.3} holes {:.3} bumpiness {:.3}",
                    u[0], u[1], u[2], u[3]
                );
            }
            Ok(())
        }
        Cmd::Train {
            out,
            population,
            generations,
            games,
            pieces,
            level,
            seed,
            threads,
        } => {
            check_level(level)?;
            if population < 4 {
                bail!("--population must be at least 4");
            }
            if games == 0 {
                bail!("--games must be at least 1");
            }
            let mut cfg = GaConfig {
                population,
                generations,
                games,
                pieces,
                level,
                seed,
                ..GaConfig::default()
            };
            cfg.threads = threads.threads;
            let pop = ga::train(&cfg, |generation, pop| {
                let best = &pop[0];
                eprintln!(
                    "generation {generation}: best fitness {:.0} weights [{:.3}, {:.3}, {:.3}, {:.3}]",
                    best.fitness, best.w[0], best.w[1], best.w[2], best.w[3]
                );
            });
            let w = ga::fittest_half_mean(&pop);
            let comment = format!(
                "NES Tetris weights (mean of the fittest half of the last generation; best fitness {:.0}),\n\
                 written by `bots nes train --population {population} --generations {generations} \
                 --games {games} --pieces {pieces} --level {level} --seed {seed}`",
                pop[0].fitness
            );
            ga::save_weights(&out, &w, &comment)?;
            println!(
                "wrote {}: height {:.3} lines {:.3} holes {:.3} bumpiness {:.3} (mean of the fittest half)",
                out.display(),
                w.height,
                w.lines,
                w.holes,
                w.bumpiness
            );
            Ok(())
        }
        Cmd::Host {
            rom,
            pieces,
            frames,
            level,
            weights,
        } => {
            let Some(rom) = rom else {
                bail!("no ROM given: pass --rom FILE with a NES Tetris ROM you own (none is included)");
            };
            if level > 9 {
                bail!("--level must be 0..=9 (the menu's levels)");
            }
            let w = match weights {
                Some(p) => ga::load_weights(&p)?,
                None => ARTICLE_WEIGHTS,
            };
            host_command(&rom, &w, pieces, frames, level)
        }
    }
}

#[cfg(feature = "nes-emulator")]
fn host_command(
    rom: &std::path::Path,
    w: &Weights,
    pieces: u32,
    frames: u64,
    level: u8,
) -> anyhow::Result<()> {
    let mut host = super::emulator::TetanesHost::open(rom)?;
    let report = super::driver::run_from_power_on(&mut host, w, level, pieces, frames)
        .context("driving the emulator")?;
    println!("{report}");
    Ok(())
}

#[cfg(not(feature = "nes-emulator"))]
fn host_command(
    rom: &std::path::Path,
    _w: &Weights,
    _pieces: u32,
    _frames: u64,
    _level: u8,
) -> anyhow::Result<()> {
    if !rom.exists() {
        bail!("ROM file {} does not exist", rom.display());
    }
    bail!("this build has no emulator: rebuild with `cargo build -p bots --release --features nes-emulator`")
}

fn check_level(level: u8) -> anyhow::Result<()> {
    if level > 29 {
        bail!("--level must be 0..=29");
    }
    Ok(())
}

fn weight_sets(path: Option<&std::path::Path>) -> anyhow::Result<Vec<(String, Weights)>> {
    let mut sets = vec![("article weights".to_string(), ARTICLE_WEIGHTS)];
    if let Some(p) = path {
        let w = ga::load_weights(p).with_context(|| "loading --weights".to_string())?;
        sets.push((format!("weights {}", p.display()), w));
    }
    Ok(sets)
}

fn end_name(end: Option<End>) -> &'static str {
    match end {
        Some(End::TopOut) => "top-out",
        Some(End::PieceLimit) => "piece limit",
        None => "running",
    }
}

/// Summary of a batch of seeded games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// Mean lines per game.
    pub mean_lines: f64,
    /// Mean score per game.
    pub mean_score: f64,
    /// Lowest score.
    pub min_score: u64,
    /// Highest score.
    pub max_score: u64,
    /// Share of cleared lines that came in tetrises.
    pub tetris_share: f64,
    /// Games that ended by topping out.
    pub topouts: u32,
}

/// Plays games with seeds `first_seed..first_seed + games` and summarises them.
pub fn stats(
    w: &Weights,
    first_seed: u64,
    games: u32,
    pieces: u32,
    level: u8,
    lookahead: bool,
) -> Stats {
    let (mut lines, mut score, mut tetris_lines, mut topouts) = (0u64, 0u64, 0u64, 0u32);
    let (mut min_score, mut max_score) = (u64::MAX, 0);
    for i in 0..u64::from(games) {
        let mut game = Game::new(first_seed + i, level);
        play_game(&mut game, w, lookahead, pieces);
        lines += u64::from(game.lines);
        score += game.score;
        tetris_lines += 4 * u64::from(game.clears[3]);
        min_score = min_score.min(game.score);
        max_score = max_score.max(game.score);
        topouts += u32::from(game.end == Some(End::TopOut));
    }
    let n = f64::from(games.max(1));
    Stats {
        mean_lines: lines as f64 / n,
        mean_score: score as f64 / n,
        min_score,
        max_score,
        tetris_share: if lines == 0 {
            0.0
        } else {
            tetris_lines as f64 / lines as f64
        },
        topouts,
    }
}
