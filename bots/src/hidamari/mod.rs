//! Hidamari (Todd Gaunt's falling-block game, described in his 2018 article "An
//! Efficient AI for Hidamari"): the article's bit board, a 7-bag simulator, and its
//! depth-2 search in a fixed 180 KB arena.
//!
//! * [`sim`]: well, pieces, bag, hard drops, clears.
//! * [`search`]: evaluation, arena and the depth-2 search.
//! * [`host`]: the simulator as a [`crate::host::Host`], and the bot driving one.
//! * [`cli`]: `bots hidamari play | stats`.

pub mod cli;
pub mod host;
pub mod search;
pub mod sim;
