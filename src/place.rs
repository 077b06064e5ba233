//! Placing a piece (its lock, in the game's words): the cells a placement
//! covers, placing them and clearing full rows, and the cell-count
//! arithmetic that follows from the rule.
//!
//! This is the one place that writes the game's lock rule. The move
//! generator (children and outcomes), the game, the heuristic's walk over
//! clearing placements and the reverse moves all call [`place_and_clear`];
//! the slow, independent twin the tests hold it against is
//! [`crate::reference::lock`].
//!
//! # Layout
//! A placement's cells are four well-row masks, one per box row
//! ([`cell_rows`]), read from a compile-time table indexed by piece,
//! orientation and box column `x + 2` (`x` runs from −2, where only I's
//! vertical box still fits, to 8): 7 × 4 × 11 × 4 `u16`s, 2.4 KiB. Rows are
//! merged and cleared in a fixed-size array, the game's 20-row board or the
//! 16 live rows alike ([`place_and_clear`] is generic over the length), so
//! nothing allocates.
//!
//! # Cell arithmetic
//! A lock adds 4 cells and each cleared line removes 10 ([`CELLS_PER_PIECE`],
//! [`CELLS_PER_LINE`]), so the cell count alone tells how many lines a run of
//! locks cleared ([`lines_cleared`]), which cell counts a child can have
//! ([`child_cells`]), and that a well can only come back a multiple of five
//! pieces later. The beam stores no score for this reason, and the loop
//! checks skip histories that cannot hold a child.

use crate::piece::{Piece, SHAPES, TOP_ROW};
use crate::well::{Board, Well, BAR, FULL_ROW, WIDTH};

/// Cells a lock adds.
pub const CELLS_PER_PIECE: u32 = 4;
/// Cells a cleared line removes.
pub const CELLS_PER_LINE: u32 = WIDTH as u32;

/// Box column offset of [`cell_rows`]' table: index `x + X_OFFSET`.
const X_OFFSET: i32 = 2;
/// Box columns `x` in `-2..=8`.
const COLUMNS: usize = 11;

/// `CELLS[p][o][x + 2][r]`: box row `r` of the placement as a well-row mask
/// (cells outside the walls are cut off; [`cell_rows_checked`] rejects such
/// placements).
static CELLS: [[[[u16; 4]; COLUMNS]; 4]; 7] = {
    let mut out = [[[[0u16; 4]; COLUMNS]; 4]; 7];
    let mut p = 0;
    while p < 7 {
        let mut o = 0;
        while o < 4 {
            let mut xi = 0;
            while xi < COLUMNS {
                let mut r = 0;
                while r < 4 {
                    out[p][o][xi][r] = (((SHAPES[p][o][r] as u32) << xi) >> X_OFFSET) as u16;
                    r += 1;
                }
                xi += 1;
            }
            o += 1;
        }
        p += 1;
    }
    out
};

/// `INSIDE[p][o]`: bit `x + 2` is set when every cell of orientation `o`
/// at box column `x` lies inside the walls.
static INSIDE: [[u16; 4]; 7] = {
    let mut out = [[0u16; 4]; 7];
    let mut p = 0;
    while p < 7 {
        let mut o = 0;
        while o < 4 {
            let mut xi = 0;
            while xi < COLUMNS {
                let mut inside = true;
                let mut r = 0;
                while r < 4 {
                    let shifted = (SHAPES[p][o][r] as u32) << xi;
                    // Columns -2 and -1 are the low two bits; 10 and up are
                    // past the right wall.
                    inside &= shifted & 0b11 == 0 && (shifted >> X_OFFSET) <= FULL_ROW as u32;
                    r += 1;
                }
                if inside {
                    out[p][o] |= 1 << xi;
                }
                xi += 1;
            }
            o += 1;
        }
        p += 1;
    }
    out
};

/// The cells of `piece` in orientation `o` with its box at column `x`, one
/// well-row mask per box row. `x` must be a column where the piece lies
/// inside the walls (every lock position the move generator gives is);
/// [`cell_rows_checked`] is the checked form.
#[inline(always)]
pub fn cell_rows(piece: Piece, o: usize, x: i32) -> &'static [u16; 4] {
    debug_assert!(cell_rows_checked(piece, o, x).is_some(), "inside the walls");
    &CELLS[piece.index()][o][(x + X_OFFSET) as usize]
}

/// [`cell_rows`] for any column: `None` when a cell would be outside the
/// walls.
pub fn cell_rows_checked(piece: Piece, o: usize, x: i32) -> Option<[u16; 4]> {
    if !(-X_OFFSET..COLUMNS as i32 - X_OFFSET).contains(&x) {
        return None;
    }
    let xi = (x + X_OFFSET) as usize;
    (INSIDE[piece.index()][o] >> xi & 1 == 1).then_some(CELLS[piece.index()][o][xi])
}

/// Whether a lock of `piece` in orientation `o` with its box's top row at
/// `y` leaves a cell above the bar: the game is over and nothing clears.
#[inline(always)]
pub fn locks_above_bar(piece: Piece, o: usize, y: usize) -> bool {
    y + (TOP_ROW[piece.index()][o] as usize) < BAR
}

/// Places `cells` (a placement's box rows, the box's top row at game row
/// `y`) into `rows`, whose element 0 is game row `first_row`, and, when
/// `clear` is set, removes each full row of the box from top to bottom, the
/// rows above moving down by one: the game's lock rule. Returns the lines
/// cleared.
///
/// `clear` is false for a lock above the bar (the game clears nothing then;
/// see [`locks_above_bar`]); a caller that knows no row of the box can be
/// completed may also pass false, which changes nothing but the time.
/// Checking each row as soon as it is merged equals merging all four first:
/// a clear only moves rows above the one cleared, and the box's later rows
/// are below it.
#[inline(always)]
pub fn place_and_clear<const N: usize>(
    rows: &mut [u16; N],
    first_row: usize,
    cells: &[u16; 4],
    y: usize,
    clear: bool,
) -> u8 {
    let mut lines = 0;
    for (r, &c) in cells.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let i = y + r - first_row;
        rows[i] |= c;
        if clear && rows[i] == FULL_ROW {
            rows.copy_within(0..i, 1);
            rows[0] = 0;
            lines += 1;
        }
    }
    lines
}

/// [`place_and_clear`] with clearing on, which also returns the index in
/// `rows` (before the clear) of the first, topmost, row cleared (0 when
/// none is).
#[inline(always)]
pub fn place_and_clear_first<const N: usize>(
    rows: &mut [u16; N],
    first_row: usize,
    cells: &[u16; 4],
    y: usize,
) -> (u8, usize) {
    let mut lines = 0;
    let mut first = 0;
    for (r, &c) in cells.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let i = y + r - first_row;
        rows[i] |= c;
        if rows[i] == FULL_ROW {
            // The rows above move down; the piece's lower rows do not.
            rows.copy_within(0..i, 1);
            rows[0] = 0;
            if lines == 0 {
                first = i;
            }
            lines += 1;
        }
    }
    (lines, first)
}

/// Locks `piece` at `(x, y, o)` into the game's 20-row board with the
/// game's rule, including a lock above the bar (which clears nothing).
/// Returns the lines cleared.
pub fn lock_board(board: &mut Board, piece: Piece, x: i32, y: usize, o: usize) -> u8 {
    let clear = !locks_above_bar(piece, o, y);
    place_and_clear(board, 0, cell_rows(piece, o, x), y, clear)
}

/// How many rows of `well` the placement's `cells` (box top at game row
/// `y`) would complete, without placing anything.
#[inline(always)]
pub fn rows_completed(well: &Well, cells: &[u16; 4], y: usize) -> u32 {
    let mut n = 0;
    for (r, &c) in cells.iter().enumerate() {
        n += (c != 0 && (well.row(y + r) | c) == FULL_ROW) as u32;
    }
    n
}

/// The lines cleared by `pieces` locks that took a well of `cells_before`
/// cells to one of `cells_after`, or `None` if no number of lines does.
pub const fn lines_cleared(cells_before: u32, pieces: u32, cells_after: u32) -> Option<u32> {
    let added = cells_before + CELLS_PER_PIECE * pieces;
    if cells_after > added || !(added - cells_after).is_multiple_of(CELLS_PER_LINE) {
        return None;
    }
    Some((added - cells_after) / CELLS_PER_LINE)
}

/// The cells of a well reached from the empty well by `pieces` locks that
/// cleared `lines` lines: [`lines_cleared`] the other way round (negative
/// for a count no game reaches).
pub const fn cells_after(pieces: u32, lines: u32) -> i64 {
    CELLS_PER_PIECE as i64 * pieces as i64 - CELLS_PER_LINE as i64 * lines as i64
}

/// The cell counts a child of a well of `cells` cells can have: one per
/// number of lines its lock clears (0 to 4), where not negative.
pub fn child_cells(cells: u32) -> impl Iterator<Item = u32> {
    let after = cells + CELLS_PER_PIECE;
    (0..=4u32).filter_map(move |lines| after.checked_sub(CELLS_PER_LINE * lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_inside_placement_has_four_cells_and_the_rest_are_refused() {
        for piece in Piece::ALL {
            for o in 0..4 {
                let inside: Vec<i32> = (-5..12)
                    .filter(|&x| cell_rows_checked(piece, o, x).is_some())
                    .collect();
                assert!(!inside.is_empty());
                // The columns that fit are one run.
                assert_eq!(
                    inside.len() as i32,
                    inside.last().unwrap() - inside[0] + 1,
                    "{piece} o{o}"
                );
            }
        }
        // I horizontal: x = 0..=6.
        assert!(cell_rows_checked(Piece::I, 0, 6).is_some());
        assert!(cell_rows_checked(Piece::I, 0, 7).is_none());
        assert!(cell_rows_checked(Piece::I, 0, -1).is_none());
        // I vertical (column 2 of its box) reaches both walls.
        assert!(cell_rows_checked(Piece::I, 1, -2).is_some());
        assert!(cell_rows_checked(Piece::I, 1, 7).is_some());
    }

    #[test]
    fn cell_counts_give_lines() {
        assert_eq!(lines_cleared(0, 5, 20), Some(0));
        assert_eq!(lines_cleared(0, 5, 10), Some(1));
        assert_eq!(lines_cleared(10, 1, 4), Some(1));
        assert_eq!(lines_cleared(0, 1, 5), None);
        assert_eq!(lines_cleared(0, 1, 8), None);
        assert_eq!(child_cells(6).collect::<Vec<_>>(), vec![10, 0]);
        assert_eq!(child_cells(100).count(), 5);
    }
}
