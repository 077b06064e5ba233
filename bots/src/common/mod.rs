//! What the four games share, in one place each.
//!
//! - [`rng`]: SplitMix64, the seeded stream behind every choice that is
//!   ours rather than a game's (frame counts, colours, bags, game seeds,
//!   training steps). Before this module Hatris and NES Tetris each had a
//!   copy.
//! - [`weights`]: the one weights-file format (`<magic> 1` and one
//!   `<name> <value>` line per weight) for Hatris, Magic Jewelry and NES
//!   Tetris, with typed errors. It replaces a text format shared by two
//!   games and a JSON format used by the third.
//! - [`batch`]: the threaded batch runner: `n` independent jobs on `t`
//!   threads, results in job order, so no figure depends on the thread
//!   count. It replaces four hand-written `thread::scope` loops.
//! - [`cli`]: the flags and checks every subcommand spells the same way
//!   (`--threads`, "must be at least 1"). The CLI style itself (clap
//!   structs, one check step, the library never prints) is described there.
//!
//! Rejected: external crates for these (`rand`, `rayon`). The figures in
//! the README must be reproducible bit for bit from a seed on any version
//! of any dependency, and each piece is a few dozen lines.

pub mod batch;
pub mod cli;
pub mod rng;
pub mod weights;

pub use rng::SplitMix64;
