//! Replays: key sequences, their four text encodings, playing them, and
//! turning a chain of wells back into keys.
//!
//! `codec` owns the encodings and the game's format detection; `format`
//! names the formats and the decoding errors; `base2048` is the byte-exact
//! Base2048 alphabet the game uses; `play` plays keys and links wells.

mod base2048;
pub mod codec;
mod format;
mod play;

pub use codec::{decode, decode_as, encode, DecodeError, Format};
pub use play::{
    keys_from_wells, link, link_wells, link_wells_from, play, LinkError, Linked, Step, Trace,
};
