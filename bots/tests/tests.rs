//! Rule tests for the bots crate: one integration-test binary, one module per game.

mod hatris;
mod hidamari;
mod jewelry;
mod nes;
