//! `bots`: play, train and measure the bots for the four other games.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Bots for Hatris, Magic Jewelry, NES Tetris and Hidamari.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    game: Game,
}

#[derive(Subcommand, Debug)]
enum Game {
    /// Hatris (NES, 1990): stacks of hats.
    #[command(subcommand)]
    Hatris(bots::hatris::cli::Cmd),
    /// Magic Jewelry (NES, 1990): a Columns clone.
    #[command(subcommand)]
    Jewelry(bots::jewelry::cli::Cmd),
    /// NES Tetris (1989).
    #[command(subcommand)]
    Nes(bots::nes::cli::Cmd),
    /// Hidamari.
    #[command(subcommand)]
    Hidamari(bots::hidamari::cli::Cmd),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.game {
        Game::Hatris(cmd) => bots::hatris::cli::run(cmd),
        Game::Jewelry(cmd) => bots::jewelry::cli::run(cmd),
        Game::Nes(cmd) => bots::nes::cli::run(cmd),
        Game::Hidamari(cmd) => bots::hidamari::cli::run(cmd),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (`bots ... | head`) is not an error.
            if let Some(io) = err.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            eprintln!("bots: {err:#}");
            ExitCode::FAILURE
        }
    }
}
