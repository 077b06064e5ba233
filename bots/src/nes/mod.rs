//! NES Tetris (Nintendo, 1989): a headless simulator of the rules the bot needs,
//! the four-feature bot of the article with one piece of lookahead, the genetic
//! algorithm that fits its weights, and the bridge that lets the same bot play the
//! real cartridge through a [`crate::host::Host`].
//!
//! * [`rng`]: the cartridge's shift register and piece picker (and SplitMix64).
//! * [`sim`]: well, pieces, rotation, clears, levels, scoring.
//! * [`bot`]: features, reward, and the two-piece choice.
//! * [`ga`]: the genetic algorithm and the weights file.
//! * [`cli`]: `bots nes play | stats | train | host`.

pub mod bot;
pub mod cli;
pub mod ga;
pub mod rng;
pub mod sim;
