//! The names of the game's four replay encodings, and why a string fails
//! to decode in one: the types the codecs share, kept apart from them so
//! that the Base2048 alphabet and the codec do not import each other.

use std::fmt;
use std::str::FromStr;

/// A replay encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// One letter `L`, `R`, `D`, `U` per key.
    Raw,
    /// One hex digit per two keys, with a space after every four digits.
    Hex,
    /// Run-length bytes in qntm's Base65536 (an earlier export format).
    Base65536,
    /// Run-length bytes in qntm's Base2048 (what the game exports today).
    Base2048,
}

impl Format {
    /// Every format, in the order raw, hex, Base65536, Base2048.
    pub const ALL: [Format; 4] = [
        Format::Raw,
        Format::Hex,
        Format::Base65536,
        Format::Base2048,
    ];

    /// The format's name as [`Display`](fmt::Display) writes it: `raw`,
    /// `hex`, `Base65536` or `Base2048`. [`FromStr`] accepts it in any case.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Raw => "raw",
            Format::Hex => "hex",
            Format::Base65536 => "Base65536",
            Format::Base2048 => "Base2048",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad` so that width and alignment flags work in tables.
        f.pad(self.name())
    }
}

/// The error for a string that names no [`Format`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown replay format {input:?} (expected raw, hex, base65536 or base2048)")]
pub struct ParseFormatError {
    /// The string that was given.
    pub input: String,
}

impl FromStr for Format {
    type Err = ParseFormatError;

    /// Parses `raw`, `hex`, `base65536` or `base2048`, in any case.
    fn from_str(s: &str) -> Result<Format, ParseFormatError> {
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseFormatError {
                input: s.to_owned(),
            })
    }
}

/// Why a replay string could not be decoded.
///
/// Each variant carries where it happened: a character position, counting
/// `char`s from the start of the string given to [`decode`](super::decode) or
/// [`decode_as`](super::decode_as). Each message is a single line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A character that the format does not use. For [`decode`](super::decode) this is
    /// reported for Base2048, the game's last resort.
    #[error("character {ch:?} at position {position} is not in the {format} alphabet")]
    InvalidCharacter {
        /// The format that was being decoded.
        format: Format,
        /// The offending character.
        ch: char,
        /// Its position.
        position: usize,
    },
    /// A Base2048 tail character (`0`–`7`, which carries the final 1 to 3
    /// bits) somewhere other than at the end.
    #[error("Base2048 tail character at position {position} is not the last character")]
    Base2048TailNotLast {
        /// Position of the tail character.
        position: usize,
    },
    /// The Base2048 bits left over after the last whole byte are not all 1s,
    /// so the string is not something the encoder can produce.
    #[error("Base2048 padding mismatch: the unused bits of the last character (position {position}) are not all 1s")]
    Base2048Padding {
        /// Position of the last character.
        position: usize,
    },
    /// A Base65536 string goes on after a character from the one-byte block
    /// (U+1500–U+15FF), which may only be last.
    #[error("Base65536 character at position {position} follows the final one-byte character")]
    Base65536AfterEnd {
        /// Position of the first character after the one-byte character.
        position: usize,
    },
}

impl DecodeError {
    /// The character position the error refers to.
    pub fn position(&self) -> usize {
        match *self {
            DecodeError::InvalidCharacter { position, .. }
            | DecodeError::Base2048TailNotLast { position }
            | DecodeError::Base2048Padding { position }
            | DecodeError::Base65536AfterEnd { position } => position,
        }
    }

    /// Moves the position on by `by` characters (for text cut off by trimming).
    pub(crate) fn shifted(mut self, by: usize) -> DecodeError {
        match &mut self {
            DecodeError::InvalidCharacter { position, .. }
            | DecodeError::Base2048TailNotLast { position }
            | DecodeError::Base2048Padding { position }
            | DecodeError::Base65536AfterEnd { position } => *position += by,
        }
        self
    }
}
