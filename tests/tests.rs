//! The integration tests: one binary, one module per area, tests named after
//! the game's rules. Data comes from `tests/data/`, copied from the golden
//! files produced by the real game's code.

mod util;

mod heuristic;
mod movegen;
