//! The command-line arguments, as plain clap derive structs. Doc comments
//! are the help text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Search for HATETRIS world records, check replays, and measure the engine.
#[derive(Parser, Debug)]
#[command(name = "hatetris", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Move generation: print every well a piece can produce.
    #[command(subcommand)]
    Movegen(MovegenCmd),
    /// Time the engine on a fixed workload.
    #[command(subcommand)]
    Bench(BenchCmd),
    /// Check, show, encode and build replays.
    #[command(subcommand)]
    Replay(ReplayCmd),
}

#[derive(Subcommand, Debug)]
pub enum MovegenCmd {
    /// For each well (20 integers per line), print one JSON line in the format
    /// of the golden move-generation vectors: the well, the children of every
    /// piece (S Z O I L J T, each `[[20 rows], lines]`, deduplicated and sorted),
    /// and the piece HATETRIS gives.
    Children {
        /// File of wells; standard input if absent.
        #[arg(long)]
        wells: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
pub enum BenchCmd {
    /// Single-thread move generation: the piece choice, the choice plus its
    /// children, and all seven pieces' children, in µs per well (median of runs).
    Movegen(BenchMovegenArgs),
}

#[derive(Args, Debug)]
pub struct BenchMovegenArgs {
    /// File of wells, 20 integers per line.
    #[arg(long, default_value = "data/bench-wells.txt")]
    pub wells: PathBuf,
    /// Timed runs; the median is reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// End with one JSON line: {"choice_us":…,"chosen_children_us":…,"all7_children_us":…}.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum ReplayCmd {
    /// Play a replay as the game does and print the final score as the last line.
    Score {
        /// The replay: the string itself, `-` for standard input, or `@FILE`.
        replay: String,
        /// The enemy.
        #[arg(long, default_value = "hatetris")]
        enemy: String,
    },
    /// Trace a replay piece by piece and draw the final well.
    Show {
        /// The replay: the string itself, `-` for standard input, or `@FILE`.
        replay: String,
        /// The enemy.
        #[arg(long, default_value = "hatetris")]
        enemy: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Encode keys (L, R, D, U) in one of the game's replay formats.
    Encode {
        /// The keys: the string itself, `-` for standard input, or `@FILE`.
        keys: String,
        /// base2048 (what the game exports), base65536, hex or raw.
        #[arg(long, default_value = "base2048")]
        format: String,
    },
    /// Build a replay from a chain of wells (one per line, 20 integers, each
    /// the well after one more lock; the empty starting well is implied).
    FromWells {
        /// The file of wells (`-` for standard input).
        file: String,
        /// The enemy.
        #[arg(long, default_value = "hatetris")]
        enemy: String,
        /// base2048, base65536, hex or raw.
        #[arg(long, default_value = "base2048")]
        format: String,
    },
}
