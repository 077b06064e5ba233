//! Flags and checks that every `bots` subcommand spells the same way.
//!
//! # The CLI style
//!
//! Each game's `cli` module holds clap derive structs of plain values whose
//! doc comments are the help text; one step checks the cross-flag rules and
//! builds the library's config; `run` calls the library and does all the
//! printing (results on stdout, progress on stderr). Errors travel as
//! `anyhow::Error` to `main`, which prints one line and exits non-zero.
//! The pieces below keep the shared flags identical across games.

use anyhow::{bail, Result};

/// `--threads`: worker threads for batches. Shared by every batch command.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct ThreadsArg {
    /// Worker threads (the figures do not depend on it).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

/// Refuses a count that must be at least 1, with the flag's name.
pub fn at_least_one(flag: &str, value: u64) -> Result<()> {
    if value == 0 {
        bail!("{flag} must be at least 1");
    }
    Ok(())
}
