//! The integration tests: one binary, one module per area, tests named after
//! the game's rules. Data comes from `tests/data/`, copied from the golden
//! files produced by the real game's code.

mod util;

#[cfg(target_os = "linux")]
mod bad_input;
mod beam;
mod careful;
mod cli;
mod codec;
mod distributed;
mod from;
mod heuristic;
mod kill;
mod layering;
mod long_run;
mod lookahead;
mod movegen;
mod nnue;
mod replays;
mod rules;
mod run_folder;
mod strength;
mod train;
mod tune;
