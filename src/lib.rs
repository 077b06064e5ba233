//! hatetris: an exact HATETRIS emulator and a search for world-record games.
//!
//! The layout follows the game:
//! - [`well`], [`piece`] and [`movegen`] are the emulator: a bitboard well, the
//!   seven pieces, and the wave-based move generator (with its slow twin in
//!   [`reference`](mod@reference));
//! - [`enemy`] picks the next piece (HATETRIS with loop prevention, and the
//!   other enemies the game ships);
//! - [`game`] plays keys one at a time, exactly as the game does;
//! - [`replay`] encodes and decodes key sequences.
#![deny(missing_docs)]

pub mod bench;
pub mod enemy;
pub mod evaluate;
pub mod game;
pub mod heuristic;
pub mod key;
pub mod lock;
pub mod movegen;
pub mod piece;
pub mod reference;
pub mod replay;
pub mod reverse;
pub mod run;
pub mod search;
pub mod well;

pub use enemy::EnemyKind;
pub use game::Game;
pub use key::Key;
pub use movegen::{Child, MoveGen};
pub use piece::Piece;
pub use well::Well;
