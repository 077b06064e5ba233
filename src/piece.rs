//! The seven pieces, their orientations, and every table derived from them.
//!
//! A piece in orientation `o` is a 4×4 box; `SHAPES[piece][o][r]` is the
//! box's row `r` as a 4-bit mask, bit `c` for box column `c` (so bit 0 is the
//! box's left column, the same convention as the well's rows). A piece at
//! `(x, y, o)` covers well cell `(x + c, y + r)` for every set bit. These are
//! the game's own rotation states, including where the S and Z boxes put
//! their cells: S in o0 and o2 covers the same cells one column apart, so
//! reachability must be tracked over `(x, y, o)`, never over cells.
//!
//! Everything else here is derived from `SHAPES` at compile time: the row
//! extents, the canonical orientation of each shape (used to merge
//! placements that cover the same cells) and the per-row fit tables of
//! [`crate::movegen`].

use std::fmt;

/// A HATETRIS piece.
///
/// The declaration order is the game's tie-break order, `S Z O I L J T`: when
/// two pieces are equally hateful, the earlier one is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Piece {
    /// S.
    S = 0,
    /// Z.
    Z = 1,
    /// O.
    O = 2,
    /// I.
    I = 3,
    /// L.
    L = 4,
    /// J.
    J = 5,
    /// T.
    T = 6,
}

/// Box rows for each piece and orientation, top row first (see the module doc).
///
/// Transcribed from the game's rotation system; the golden move-generation
/// vectors check every entry.
pub const SHAPES: [[[u8; 4]; 4]; 7] = [
    // S: o0 "..##/.##.", o1 ".#../.##./..#.", o2 ".##./##..", o3 ".#../.##./..#." one row up
    [
        [0, 0b1100, 0b0110, 0],
        [0, 0b0010, 0b0110, 0b0100],
        [0, 0b0110, 0b0011, 0],
        [0b0010, 0b0110, 0b0100, 0],
    ],
    // Z: o0 ".##./..##", o1 "..#./.##./.#..", o2 "##../.##.", o3 "..#./.##./.#.." one row up
    [
        [0, 0b0110, 0b1100, 0],
        [0, 0b0100, 0b0110, 0b0010],
        [0, 0b0011, 0b0110, 0],
        [0b0100, 0b0110, 0b0010, 0],
    ],
    // O: the same in all four.
    [[0, 0b0110, 0b0110, 0]; 4],
    // I: row 1, column 2, row 2, column 1.
    [
        [0, 0b1111, 0, 0],
        [0b0100; 4],
        [0, 0, 0b1111, 0],
        [0b0010; 4],
    ],
    // L
    [
        [0, 0b1110, 0b0010, 0],
        [0, 0b0110, 0b0100, 0b0100],
        [0, 0b0100, 0b0111, 0],
        [0b0010, 0b0010, 0b0110, 0],
    ],
    // J
    [
        [0, 0b0110, 0b0010, 0b0010],
        [0, 0b0111, 0b0100, 0],
        [0b0100, 0b0100, 0b0110, 0],
        [0, 0b0010, 0b1110, 0],
    ],
    // T
    [
        [0, 0b1110, 0b0100, 0],
        [0, 0b0100, 0b0110, 0b0100],
        [0, 0b0010, 0b0111, 0],
        [0b0010, 0b0110, 0b0010, 0],
    ],
];

impl Piece {
    /// All pieces, in the game's tie-break order.
    pub const ALL: [Piece; 7] = [
        Piece::S,
        Piece::Z,
        Piece::O,
        Piece::I,
        Piece::L,
        Piece::J,
        Piece::T,
    ];

    /// The piece at this index of [`Piece::ALL`].
    ///
    /// # Panics
    /// If `index >= 7`.
    pub const fn from_index(index: usize) -> Piece {
        Piece::ALL[index]
    }

    /// This piece's index in [`Piece::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The piece's letter.
    pub const fn letter(self) -> char {
        match self {
            Piece::S => 'S',
            Piece::Z => 'Z',
            Piece::O => 'O',
            Piece::I => 'I',
            Piece::L => 'L',
            Piece::J => 'J',
            Piece::T => 'T',
        }
    }

    /// The piece for a letter (upper case).
    pub const fn from_letter(c: char) -> Option<Piece> {
        match c {
            'S' => Some(Piece::S),
            'Z' => Some(Piece::Z),
            'O' => Some(Piece::O),
            'I' => Some(Piece::I),
            'L' => Some(Piece::L),
            'J' => Some(Piece::J),
            'T' => Some(Piece::T),
            _ => None,
        }
    }

    /// The box rows of orientation `o` (see [`SHAPES`]).
    pub const fn shape(self, o: usize) -> [u8; 4] {
        SHAPES[self as usize][o & 3]
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// The first box row with a cell, for each piece and orientation.
pub const TOP_ROW: [[u8; 4]; 7] = {
    let mut out = [[0u8; 4]; 7];
    let mut p = 0;
    while p < 7 {
        let mut o = 0;
        while o < 4 {
            let mut r = 0;
            while SHAPES[p][o][r] == 0 {
                r += 1;
            }
            out[p][o] = r as u8;
            o += 1;
        }
        p += 1;
    }
    out
};

/// How an orientation's cells relate to its piece's canonical orientation.
///
/// Orientation `o` at `(x, y)` covers exactly the cells of orientation
/// `canon` at `(x + dx, y + dy)`. Every orientation is its own canonical one
/// except where the game's boxes repeat a shape: I o2/o3, S o2/o3, Z o2/o3 and
/// O o1..o3. Merging those is what turns "lock positions" into "distinct
/// placements" without hashing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canon {
    /// The canonical orientation (the lowest one with the same shape).
    pub canon: u8,
    /// Column offset to add.
    pub dx: i8,
    /// Row offset to add.
    pub dy: i8,
}

/// Shifts a 4-row, 4-column box by (dx, dy) into an 8×8 frame so that two
/// boxes can be compared for a translation.
const fn frame(shape: [u8; 4], dx: i32, dy: i32) -> u64 {
    let mut out = 0u64;
    let mut r = 0;
    while r < 4 {
        let row = (shape[r] as u64) << (dx + 2);
        out |= row << (8 * (r as i32 + dy + 2));
        r += 1;
    }
    out
}

/// See [`Canon`].
pub const CANON: [[Canon; 4]; 7] = {
    let mut out = [[Canon {
        canon: 0,
        dx: 0,
        dy: 0,
    }; 4]; 7];
    let mut p = 0;
    while p < 7 {
        let mut o = 0;
        while o < 4 {
            out[p][o] = Canon {
                canon: o as u8,
                dx: 0,
                dy: 0,
            };
            let mut found = false;
            let mut c = 0;
            while c < o && !found {
                let mut dy = -2;
                while dy <= 2 && !found {
                    let mut dx = -2;
                    while dx <= 2 && !found {
                        // o at (x, y) == c at (x + dx, y + dy) means o's box
                        // equals c's box moved by (dx, dy).
                        if frame(SHAPES[p][o], 0, 0) == frame(SHAPES[p][c], dx, dy) {
                            out[p][o] = Canon {
                                canon: c as u8,
                                dx: dx as i8,
                                dy: dy as i8,
                            };
                            found = true;
                        }
                        dx += 1;
                    }
                    dy += 1;
                }
                c += 1;
            }
            o += 1;
        }
        p += 1;
    }
    out
};

impl serde::Serialize for Piece {
    /// A piece serializes as its letter.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let letter = [self.letter() as u8];
        s.serialize_str(std::str::from_utf8(&letter).expect("ASCII letter"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_orientation_has_four_cells() {
        for p in Piece::ALL {
            for o in 0..4 {
                let cells: u32 = p.shape(o).iter().map(|r| r.count_ones()).sum();
                assert_eq!(cells, 4, "{p} o{o}");
            }
        }
    }

    #[test]
    fn repeated_shapes_are_merged() {
        // O: all one shape.
        for c in &CANON[Piece::O.index()][1..] {
            assert_eq!(
                *c,
                Canon {
                    canon: 0,
                    dx: 0,
                    dy: 0
                }
            );
        }
        // I o2 is o0 one row lower: o2 at y equals o0 at y + 1.
        assert_eq!(
            CANON[Piece::I.index()][2],
            Canon {
                canon: 0,
                dx: 0,
                dy: 1
            }
        );
        // S o2 is o0 one column to the left.
        assert_eq!(
            CANON[Piece::S.index()][2],
            Canon {
                canon: 0,
                dx: -1,
                dy: 0
            }
        );
        // T, L and J have four distinct shapes.
        for p in [Piece::T, Piece::L, Piece::J] {
            for (o, c) in CANON[p.index()].iter().enumerate() {
                assert_eq!(c.canon as usize, o);
            }
        }
    }
}
