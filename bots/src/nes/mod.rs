//! NES Tetris (Nintendo, 1989): a headless simulator of the rules the bot needs,
//! the four-feature bot of the article with one piece of lookahead, the genetic
//! algorithm that fits its weights, and the bridge that lets the same bot play the
//! real cartridge through a [`crate::host::Host`].
//!
//! * [`rng`]: the cartridge's shift register and piece picker.
//! * [`sim`]: well, pieces, rotation, clears, levels, scoring.
//! * [`bot`]: features, reward, and the two-piece choice.
//! * [`ga`]: the genetic algorithm and the weights file.
//! * [`ram`]: the cartridge's RAM addresses and their decoding.
//! * [`driver`]: the bot driving any [`crate::host::Host`] through RAM and buttons.
//! * [`ramsim`]: the simulator as a [`crate::host::Host`] with the cartridge's
//!   RAM layout (the mock bus for the driver).
//! * `emulator` (feature `nes-emulator`): the host on the `tetanes-core` emulator.
//! * [`cli`]: `bots nes play | stats | train | host`.

pub mod bot;
pub mod cli;
pub mod driver;
#[cfg(feature = "nes-emulator")]
pub mod emulator;
pub mod ga;
pub mod ram;
pub mod ramsim;
pub mod rng;
pub mod sim;
