//! Command line for this game (stub).
#![allow(missing_docs)]

/// Subcommands for this game.
#[derive(clap::Subcommand, Debug)]
pub enum Cmd {
    /// Play one seeded game.
    Play,
    /// Train the bot's weights.
    Train,
    /// Run many seeded games and report statistics.
    Stats,
}

/// Runs one subcommand.
pub fn run(_cmd: Cmd) -> anyhow::Result<()> {
    anyhow::bail!("not implemented yet")
}
