//! Magic Jewelry (Hwang Shinwei, Famicom, 1990), an unlicensed port of
//! Sega's Columns: a headless simulator and the search bot from the
//! Nintaco plug-in article.
//!
//! # Layout
//!
//! - [`board`]: the 6 × 15 well (13 visible rows, 2 hidden), lock positions
//!   (a breadth-first search and its fast twin), runs of three or more in
//!   the four line directions, cascades, wild columns, game over.
//! - [`game`]: the column dealer and a whole game.
//! - [`bot`]: every lock position of the current and the next column,
//!   scored by the article's eight metrics.
//! - [`stats`]: the long run's jewel-count histogram and its log10 plot.
//! - [`train`]: the article's hill climbing, rated by jewels left on the
//!   field after each column.
//! - [`cli`]: `bots jewelry play|train|stats`.
//!
//! # Rejected
//!
//! Frame-level emulation of the fall was rejected for the same reason as in
//! Hatris: a column can be slid and cycled many times per row it falls, so
//! the set of lock positions depends only on the field. The real game's
//! colour generator is not described in the article, so columns are dealt
//! from a seeded SplitMix64, uniformly over the six colours.

pub mod board;
pub mod bot;
pub mod cli;
pub mod game;
pub mod stats;
pub mod train;
