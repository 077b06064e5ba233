//! Replays: the game's four text encodings of a key sequence.
//!
//! `codec` owns the encodings and the game's format detection;
//! `base2048` is the byte-exact Base2048 alphabet the game uses.

mod base2048;
pub mod codec;

pub use codec::{decode, decode_as, encode, DecodeError, Format};
