//! Hatris (Bullet-Proof Software, NES, 1990): a headless simulator and the
//! search bot from the Nintaco plug-in article, ported to plain Rust.
//!
//! # Layout
//!
//! - [`hats`]: the six hat types and their compile-time tables (base heights,
//!   the nesting table, cash per sold stack, which helper bar a stack feeds).
//! - [`prng`]: the game's hat generator, instruction for instruction from the
//!   6502 listing (seeds 63 and 133, frame counter, rotate through carry,
//!   mod 6, per-stage exclusions and the re-pick of matching pairs).
//! - [`sim`]: the six piles, pair landing and splitting, removal of stacks of
//!   five, cash, helper bars and pool, levels, shops and the refill after a
//!   shop. Everything is fixed-size arrays; a [`sim::Board`] is `Copy`.
//! - [`bot`]: every placement of the current and the next pair plus the
//!   helper options, scored by the article's eight metrics.
//! - [`stats`]: whole games with the bot, batches on threads (results do
//!   not depend on the thread count), mean and standard deviation.
//! - [`train`]: the article's hill climbing over the eight weights.
//! - [`cli`]: `bots hatris play|train|stats`.
//!
//! The random stream, the weights-file format and the batch runner are
//! [`crate::common`]'s.
//!
//! # Rejected
//!
//! A pixel-exact emulation of falling hats (speed, timing of moves) was
//! rejected: the bot only needs to know which piles the two hats can reach,
//! and that is a function of the pile heights alone (see [`sim`]). The real
//! frame counter is the only timing input the hat sequence depends on, so it
//! is modelled explicitly and drawn from the run's seed.

pub mod bot;
pub mod cli;
pub mod hats;
pub mod prng;
pub mod sim;
pub mod stats;
pub mod train;
