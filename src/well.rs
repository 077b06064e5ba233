//! The well: the 16 live rows of a HATETRIS board as a bitboard.
//!
//! The game stores 20 rows of 10 bits, top row first, bit 0 the leftmost
//! column. Rows 0..4 are above the bar: a lock that leaves anything there ends
//! the game, so a *live* well (one a piece spawns into) only ever has blocks
//! in rows 4..20. [`Well`] keeps exactly those 16 rows as `u16`, in the game's
//! bit order: 32 bytes, `Copy`, and ordered the way the game's own vectors
//! sort wells (row by row from the top).
//!
//! [`Board`] is the game's full 20-row form. It is what the game shows, what
//! the JSON vectors hold, and what a game-over lock produces; conversion to a
//! [`Well`] is the validation boundary (`Well::try_from_board`), with an
//! unchecked twin for the hot path.
//!
//! The text form is a grid of `.` (empty) and `#` (filled), top row first, one
//! row per line. Parsing accepts 1 to 20 rows and pads missing rows at the top
//! with empty ones, so a test can draw just the bottom of a well.

use std::fmt;

mod text;

pub use text::{board_to_numbers, draw_board, parse_board_numbers};

/// Number of rows in the game's board.
pub const HEIGHT: usize = 20;
/// Number of columns.
pub const WIDTH: usize = 10;
/// The bar: rows `0..BAR` must be empty in a live well.
pub const BAR: usize = 4;
/// Number of rows a live well can use.
pub const LIVE_ROWS: usize = HEIGHT - BAR;
/// A full row.
pub const FULL_ROW: u16 = (1 << WIDTH) - 1;

/// The game's 20-row board, top row first, bit 0 = leftmost column.
pub type Board = [u16; HEIGHT];

/// Number of filled cells of a board (above the bar too).
pub fn board_cells(board: &Board) -> u32 {
    board.iter().map(|r| r.count_ones()).sum()
}

/// A live well: rows 4..20 of the game's board.
///
/// `rows()[i]` is the game's row `i + 4`. Only the low 10 bits of a row are
/// used. The derived order compares rows from the top, which is the order of
/// the game's 20-integer form (its first four rows are always zero).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Well {
    rows: [u16; LIVE_ROWS],
}

const _: () = assert!(std::mem::size_of::<Well>() == 32);

/// A live well packed into 160 bits (20 bytes instead of 32), for the
/// millions of wells a wide beam holds in memory.
///
/// Ten 16-bit words, most significant first: rows 0..8 fill the first 80
/// bits and rows 8..16 the last 80, ten bits each, top row highest. So the
/// derived order of the words is exactly [`Well`]'s order, and sorting
/// packed wells sorts the wells.
///
/// Tried and not kept: comparing the 160 bits as a `u128` and a `u32`
/// instead of word by word (a beam's wells share their empty top rows, so
/// the first words are nearly always equal). Sorting 297,749 children of
/// the bench wells took 40.9 ms that way against 34.1 ms with the derived
/// order (criterion, both in one run), and a 1-thread search ran 3 % more
/// instructions (callgrind).
#[derive(
    Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct PackedWell([u16; 10]);

const _: () = assert!(std::mem::size_of::<PackedWell>() == 20);

impl PackedWell {
    /// The ten 16-bit words, for a disk format.
    #[inline]
    pub fn words(&self) -> [u16; 10] {
        self.0
    }

    /// The packed well of ten words (every value is a well: the 160 bits
    /// are the 16 live rows' 10 columns).
    #[inline]
    pub fn from_words(words: [u16; 10]) -> PackedWell {
        PackedWell(words)
    }

    /// Number of filled cells.
    #[inline]
    pub fn cells(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// The well.
    #[inline]
    pub fn unpack(&self) -> Well {
        let half =
            |words: &[u16]| -> u128 { words.iter().fold(0u128, |acc, &w| acc << 16 | w as u128) };
        let (hi, lo) = (half(&self.0[..5]), half(&self.0[5..]));
        let mut rows = [0u16; LIVE_ROWS];
        for i in 0..8 {
            let shift = 10 * (7 - i);
            rows[i] = (hi >> shift) as u16 & FULL_ROW;
            rows[i + 8] = (lo >> shift) as u16 & FULL_ROW;
        }
        Well { rows }
    }
}

impl fmt::Debug for PackedWell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PackedWell({:?})", self.unpack())
    }
}

/// Why a board or a drawing is not a live well.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WellError {
    /// A row has bits outside the 10 columns.
    #[error("row {row} is {value}, which is more than 10 columns (largest is 1023)")]
    RowTooWide {
        /// The game's row index.
        row: usize,
        /// The offending value.
        value: u32,
    },
    /// A row above the bar has blocks, so the game would already be over.
    #[error("row {row} is above the bar (rows 0-3 must be empty in a live well)")]
    AboveBar {
        /// The game's row index.
        row: usize,
    },
    /// The input does not have 20 numbers.
    #[error("expected 20 row integers, found {found}")]
    WrongCount {
        /// How many were found.
        found: usize,
    },
    /// A token is not a number.
    #[error("'{token}' is not a row integer")]
    NotANumber {
        /// The token.
        token: String,
    },
    /// A drawing has a bad line.
    #[error("drawing line {line}: {reason}")]
    BadDrawing {
        /// 1-based line number in the drawing.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

impl Well {
    /// The empty well.
    pub const EMPTY: Well = Well {
        rows: [0; LIVE_ROWS],
    };

    /// A well from its 16 live rows (game rows 4..20), without checks.
    ///
    /// The rows must be at most 10 bits wide; the move generator relies on it.
    pub const fn from_live_rows_unchecked(rows: [u16; LIVE_ROWS]) -> Well {
        Well { rows }
    }

    /// A well from its 16 live rows, checking the width.
    pub fn from_live_rows(rows: [u16; LIVE_ROWS]) -> Result<Well, WellError> {
        for (i, &r) in rows.iter().enumerate() {
            if r > FULL_ROW {
                return Err(WellError::RowTooWide {
                    row: i + BAR,
                    value: r as u32,
                });
            }
        }
        Ok(Well { rows })
    }

    /// A well from the game's 20-row board, checking that it is live.
    pub fn try_from_board(board: &Board) -> Result<Well, WellError> {
        for (row, &r) in board.iter().enumerate() {
            if r > FULL_ROW {
                return Err(WellError::RowTooWide {
                    row,
                    value: r as u32,
                });
            }
            if row < BAR && r != 0 {
                return Err(WellError::AboveBar { row });
            }
        }
        Ok(Well::from_board_unchecked(board))
    }

    /// A well from a board known to be live (rows 0..4 are dropped unread).
    pub fn from_board_unchecked(board: &Board) -> Well {
        let mut rows = [0; LIVE_ROWS];
        rows.copy_from_slice(&board[BAR..]);
        Well { rows }
    }

    /// The game's 20-row form.
    pub fn to_board(&self) -> Board {
        let mut board = [0; HEIGHT];
        board[BAR..].copy_from_slice(&self.rows);
        board
    }

    /// The 16 live rows; index `i` is the game's row `i + 4`.
    pub const fn rows(&self) -> &[u16; LIVE_ROWS] {
        &self.rows
    }

    /// The game's row `row` (0..20); rows above the bar are always empty.
    pub fn row(&self, row: usize) -> u16 {
        if row < BAR {
            0
        } else {
            self.rows[row - BAR]
        }
    }

    /// Index of the first non-empty row in the game's numbering, or 20 for
    /// the empty well. This is what the HATETRIS enemy calls a well's peak.
    ///
    /// Four rows at a time (the move generator asks for it on every wave
    /// search); the tests hold it against the row-by-row scan.
    #[inline]
    pub fn top(&self) -> usize {
        for (k, r) in self.rows.chunks_exact(4).enumerate() {
            let w = u64::from(r[0])
                | u64::from(r[1]) << 16
                | u64::from(r[2]) << 32
                | u64::from(r[3]) << 48;
            if w != 0 {
                return BAR + 4 * k + (w.trailing_zeros() / 16) as usize;
            }
        }
        HEIGHT
    }

    /// Number of non-empty rows (the stack height).
    pub fn height(&self) -> usize {
        HEIGHT - self.top()
    }

    /// Number of filled cells.
    pub fn cells(&self) -> u32 {
        self.rows.iter().map(|r| r.count_ones()).sum()
    }

    /// The well in 20 bytes; see [`PackedWell`].
    #[inline]
    pub fn pack(&self) -> PackedWell {
        let (mut hi, mut lo) = (0u128, 0u128);
        for i in 0..8 {
            hi = hi << 10 | self.rows[i] as u128;
            lo = lo << 10 | self.rows[i + 8] as u128;
        }
        let mut words = [0u16; 10];
        for k in 0..5 {
            let shift = 64 - 16 * k;
            words[k] = (hi >> shift) as u16;
            words[k + 5] = (lo >> shift) as u16;
        }
        PackedWell(words)
    }

    /// Whether the well has no blocks.
    pub fn is_empty(&self) -> bool {
        self.rows == [0; LIVE_ROWS]
    }

    /// Parses 20 whitespace-separated integers (the format of the bench and
    /// golden files) into a live well.
    pub fn parse_numbers(text: &str) -> Result<Well, WellError> {
        Well::try_from_board(&parse_board_numbers(text)?)
    }

    /// The 20 row integers separated by spaces.
    pub fn to_numbers(&self) -> String {
        board_to_numbers(&self.to_board())
    }
}

impl serde::Serialize for Well {
    /// A well serializes as its 16 live rows.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&self.rows, s)
    }
}

impl<'de> serde::Deserialize<'de> for Well {
    /// Checks the row width, so a damaged file cannot make an invalid well.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let rows = <[u16; LIVE_ROWS] as serde::Deserialize>::deserialize(d)?;
        Well::from_live_rows(rows).map_err(serde::de::Error::custom)
    }
}

/// A fixed (unseeded) 64-bit hash of a well: the same in every run and on
/// every machine, unlike a seeded hasher. (The search's ancestry and the
/// sharded run's owners use it.)
pub fn well_hash(w: &Well) -> u64 {
    // FNV-1a's constants, over whole rows rather than bytes.
    let mut h = crate::folder::FNV_OFFSET;
    for &r in w.rows() {
        h = (h ^ r as u64).wrapping_mul(crate::folder::FNV_PRIME);
    }
    h ^ (h >> 29)
}

/// The splitmix64 finalizer: every output bit depends on every input bit.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 16 live rows alone read as the same well as all 20 rows, and a
    /// row above the bar in the 20-row form is still refused.
    #[test]
    fn sixteen_live_rows_read_as_the_well_with_an_empty_top() {
        let twenty = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 512 768 1015 1022";
        let sixteen = "0 0 0 0 0 0 0 0 0 0 0 0 512 768 1015 1022";
        let a: Well = twenty.parse().unwrap();
        let b: Well = sixteen.parse().unwrap();
        assert_eq!(a, b);
        let c: Well = format!("[{}]", sixteen.replace(' ', ",")).parse().unwrap();
        assert_eq!(a, c);
        assert!("1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
            .parse::<Well>()
            .is_err());
        assert!("0 0 0 0 0 0 0 0 0 0 0 0 0 0 0".parse::<Well>().is_err());
    }

    /// The top four rows at a time is the first non-empty row.
    #[test]
    fn top_is_the_first_non_empty_row() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for n in 0..=LIVE_ROWS {
            for _ in 0..50 {
                let mut rows = [0u16; LIVE_ROWS];
                for r in rows.iter_mut().skip(n) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    *r = (x & u64::from(FULL_ROW)) as u16 | u16::from(x >> 20 & 1 == 0);
                }
                let well = Well::from_live_rows_unchecked(rows);
                let slow = rows
                    .iter()
                    .position(|&r| r != 0)
                    .map_or(HEIGHT, |i| i + BAR);
                assert_eq!(well.top(), slow, "{rows:?}");
            }
        }
    }

    /// Packing round-trips and keeps the order, on wells that differ in
    /// every row and in the bits either side of each 16-bit word boundary.
    #[test]
    fn packing_round_trips_and_keeps_the_order() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut wells: Vec<Well> = (0..2000)
            .map(|_| {
                let mut rows = [0u16; LIVE_ROWS];
                for r in rows.iter_mut() {
                    *r = (next() % 1024) as u16;
                }
                // Some wells share a long prefix, so later rows decide.
                if next() % 2 == 0 {
                    rows[..8].fill(0);
                }
                Well::from_live_rows_unchecked(rows)
            })
            .collect();
        wells.push(Well::EMPTY);
        wells.push(Well::from_live_rows_unchecked([FULL_ROW; LIVE_ROWS]));
        for w in &wells {
            assert_eq!(w.pack().unpack(), *w);
        }
        for pair in wells.windows(2) {
            assert_eq!(pair[0].cmp(&pair[1]), pair[0].pack().cmp(&pair[1].pack()));
        }
    }

    #[test]
    fn numbers_round_trip() {
        let text = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 16 48 32";
        let well = Well::parse_numbers(text).unwrap();
        assert_eq!(well.to_numbers(), text);
        assert_eq!(well.top(), 17);
        assert_eq!(well.cells(), 4);
    }

    #[test]
    fn drawing_pads_at_the_top() {
        let well: Well = "#.........\n##........".parse().unwrap();
        assert_eq!(well.row(18), 1);
        assert_eq!(well.row(19), 3);
        assert_eq!(well.height(), 2);
        let again: Well = well.to_string().parse().unwrap();
        assert_eq!(again, well);
    }

    #[test]
    fn blocks_above_the_bar_are_rejected() {
        let mut board = [0u16; HEIGHT];
        board[3] = 1;
        assert_eq!(
            Well::try_from_board(&board),
            Err(WellError::AboveBar { row: 3 })
        );
        assert!(matches!(
            Well::parse_numbers("1 2 3"),
            Err(WellError::WrongCount { found: 3 })
        ));
        assert!(matches!(
            Well::parse_numbers("0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1024"),
            Err(WellError::RowTooWide {
                row: 19,
                value: 1024
            })
        ));
    }
}
