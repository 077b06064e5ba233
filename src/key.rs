//! The four keys of HATETRIS.
//!
//! A replay is nothing but a sequence of these. The numeric values are the
//! 2-bit codes the game's hex and run-length codecs use (L=0, R=1, D=2, U=3).

use std::fmt;

/// One key press.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Key {
    /// Move left (x − 1).
    L = 0,
    /// Move right (x + 1).
    R = 1,
    /// Move down (y + 1); a blocked `D` locks the piece.
    D = 2,
    /// Rotate to the next orientation, with no wall kicks.
    U = 3,
}

impl Key {
    /// All keys in code order.
    pub const ALL: [Key; 4] = [Key::L, Key::R, Key::D, Key::U];

    /// The key with this 2-bit code (only the low two bits are used).
    pub const fn from_code(code: u8) -> Key {
        match code & 3 {
            0 => Key::L,
            1 => Key::R,
            2 => Key::D,
            _ => Key::U,
        }
    }

    /// The 2-bit code of this key.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The key's letter, `L`, `R`, `D` or `U`.
    pub const fn letter(self) -> char {
        match self {
            Key::L => 'L',
            Key::R => 'R',
            Key::D => 'D',
            Key::U => 'U',
        }
    }

    /// The key for a letter, if it is one of `L`, `R`, `D`, `U`.
    pub const fn from_letter(c: char) -> Option<Key> {
        match c {
            'L' => Some(Key::L),
            'R' => Some(Key::R),
            'D' => Some(Key::D),
            'U' => Some(Key::U),
            _ => None,
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// Writes keys as a string of letters.
pub fn keys_to_string(keys: &[Key]) -> String {
    keys.iter().map(|k| k.letter()).collect()
}
