//! Headless simulators and bots for four falling-block games, ported from the
//! articles in the project's seeds: Hatris and Magic Jewelry (part 1), NES
//! Tetris and Hidamari (part 2), plus the [`host`] trait that lets a bot drive
//! either a simulator or a real emulator.
#![deny(missing_docs)]

pub mod common;
pub mod hatris;
pub mod hidamari;
pub mod host;
pub mod jewelry;
pub mod nes;
