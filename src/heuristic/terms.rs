//! The terms of the knewjade heuristic, one function each.
//!
//! Every function here reads a [`Well`] and returns a whole number; the
//! weights and the sign convention live in [`super::weights`]. The
//! definitions are the ones in the module doc of [`super`], repeated on each
//! function so that a reader of one term needs nothing else.
//!
//! # Layout
//! All the per-row work is on the well's 16 live rows as `u16` masks (bit `c`
//! = column `c`, bit 0 leftmost), so the geometric terms are one top-down
//! pass of a few bit operations per row: [`surface`] fills each row with a
//! carry-propagating add (rightwards) and a doubling fill (leftwards), seeded
//! by the surface of the row above.
//!
//! Erasability and the S/Z exception of the surface height walk only the
//! placements that clear a line (`movegen::for_each_clear`), which
//! needs the wave search only sometimes.
//!
//! The fast functions are checked against naive twins (per-cell loops, a
//! BFS surface, the reference BFS move generator) in `tests/heuristic.rs`.

use crate::movegen::{candidate_rows, for_each_clear};
use crate::piece::Piece;
use crate::well::{Well, BAR, FULL_ROW, LIVE_ROWS, WIDTH};

/// The surface, per live row: bit `c` of `surface(well)[i]` is set when the
/// cell at game row `i + 4`, column `c` is on the surface.
///
/// The surface is the set of empty cells that a 1×1 block dropped in from
/// above the well can reach by moving left, right and down (never up). The
/// four rows above the bar are always empty, so every column is reachable
/// when the block enters row 4.
pub fn surface(well: &Well) -> [u16; LIVE_ROWS] {
    let mut out = [0u16; LIVE_ROWS];
    let mut reach = FULL_ROW;
    for (i, &row) in well.rows().iter().enumerate() {
        let empty = !row & FULL_ROW;
        reach = spread_row(reach & empty, empty);
        if reach == 0 {
            break;
        }
        out[i] = reach;
    }
    out
}

/// Spreads the cells of `seed` along their runs of set bits in `free`, both
/// ways (`seed` ⊆ `free`, 10-bit rows): the move generator's run fill on a
/// single field.
#[inline(always)]
fn spread_row(seed: u16, free: u16) -> u16 {
    crate::movegen::spread_horizontal(seed as u64, free as u64) as u16
}

/// Number of set bits of each 10-bit row (a table: the default target has
/// no `popcnt`, and a lookup beats the bit-twiddling fallback).
static CELL_COUNT: [u8; 1 << WIDTH] = {
    let mut out = [0u8; 1 << WIDTH];
    let mut i = 0;
    while i < out.len() {
        out[i] = (i as u32).count_ones() as u8;
        i += 1;
    }
    out
};

/// **Holes**: the number of empty cells that have a filled cell somewhere
/// above them in the same column.
pub fn holes(well: &Well) -> u32 {
    holes_in(well, LIVE_ROWS)
}

/// Holes in the first `rows` live rows.
#[inline(always)]
fn holes_in(well: &Well, rows: usize) -> u32 {
    let mut above = 0u16;
    let mut n = 0;
    for &row in &well.rows()[..rows] {
        n += CELL_COUNT[(!row & above & FULL_ROW) as usize] as u32;
        above |= row;
    }
    n
}

/// **Enclosed holes**: the number of empty cells that are not on the
/// [`surface`], i.e. that a 1×1 block dropped from above cannot reach by
/// moving left, right and down. Every enclosed hole is also a hole.
pub fn enclosed_holes(well: &Well) -> u32 {
    enclosed_counts(well, &surface(well)).0
}

/// **Lines with enclosed holes**: the number of rows that contain at least
/// one enclosed hole (see [`enclosed_holes`]). Two enclosed holes in one row
/// count once.
pub fn lines_with_enclosed_holes(well: &Well) -> u32 {
    enclosed_counts(well, &surface(well)).1
}

/// (enclosed holes, lines with enclosed holes) given the surface.
#[inline(always)]
fn enclosed_counts(well: &Well, surface: &[u16; LIVE_ROWS]) -> (u32, u32) {
    enclosed_counts_in(well, surface, LIVE_ROWS)
}

/// [`enclosed_counts`] over the first `rows` live rows.
#[inline(always)]
fn enclosed_counts_in(well: &Well, surface: &[u16; LIVE_ROWS], rows: usize) -> (u32, u32) {
    let mut cells = 0;
    let mut lines = 0;
    for (&row, &s) in well.rows()[..rows].iter().zip(surface) {
        let enclosed = !row & !s & FULL_ROW;
        cells += CELL_COUNT[enclosed as usize] as u32;
        lines += (enclosed != 0) as u32;
    }
    (cells, lines)
}

/// The game row (0 = top, 19 = bottom) of the lowest row that has a surface
/// cell. Rows 0..4 are always empty, so this is at least 3.
fn surface_bottom_of(surface: &[u16; LIVE_ROWS]) -> u32 {
    match surface.iter().rposition(|&s| s != 0) {
        Some(i) => (i + BAR) as u32,
        None => BAR as u32 - 1,
    }
}

/// The lowest surface row of `well`, without the S/Z exception (see
/// [`surface_height`]).
pub fn surface_bottom(well: &Well) -> u32 {
    surface_bottom_of(&surface(well))
}

/// **Surface height**, counted in rows *from the top*: the game row index
/// (0 = top row, 19 = bottom row) of the lowest row that holds a surface
/// cell, or, when some S or Z placement clears at least one line, the
/// deepest such row over the well itself and every well one S or Z line
/// clear away (each measured the same way, without the exception again).
///
/// The empty well has 19. A *larger* number is a *lower* surface bottom,
/// which is better, so its weight in the cost is negative. Holes below the
/// lowest surface row don't change the value: the surface almost never goes
/// back down, except when an S or Z clears a line and so opens what lies
/// below, which is exactly the exception. (S and Z are the pieces the game
/// hands out, so only their clears are counted on.)
pub fn surface_height(well: &Well) -> u32 {
    let rows = candidate_rows(well);
    let base = surface_bottom(well);
    sz_surface_height(well, &rows, base)
}

/// The S/Z exception of [`surface_height`] on a prepared move generator.
fn sz_surface_height(well: &Well, rows: &[u32; 7], base: u32) -> u32 {
    let mut best = base;
    for piece in [Piece::S, Piece::Z] {
        if rows[piece.index()] != 0 {
            for_each_clear(well, piece, rows[piece.index()], false, |child, _| {
                best = best.max(surface_bottom(&child));
                false
            });
        }
    }
    best
}

/// **Erasability** of one piece: whether some placement of `piece` reachable
/// from the spawn clears at least one line (a lock above the bar clears
/// nothing and does not count). Each piece is decided on its own; no piece's
/// answer depends on another's.
pub fn erasable(well: &Well, piece: Piece) -> bool {
    let rows = candidate_rows(well)[piece.index()];
    rows != 0 && for_each_clear(well, piece, rows, false, |_, _| true)
}

/// [`erasable`] for all seven pieces, indexed in the order S Z O I L J T.
pub fn erasability(well: &Well) -> [bool; 7] {
    let rows = candidate_rows(well);
    let mut out = [false; 7];
    for piece in Piece::ALL {
        let r = rows[piece.index()];
        out[piece.index()] = r != 0 && for_each_clear(well, piece, r, false, |_, _| true);
    }
    out
}

/// All the geometric terms of one well, as the heuristic counts them.
///
/// Holes, enclosed holes and lines with enclosed holes are counted only in
/// the rows of a [`HoleRegion`]: the surface almost never goes back down, so
/// what lies below it is out of reach and no longer matters (BRIEF §4). The
/// stand-alone functions [`holes`], [`enclosed_holes`] and
/// [`lines_with_enclosed_holes`] count the whole well.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Terms {
    /// See [`holes`].
    pub holes: u32,
    /// See [`enclosed_holes`].
    pub enclosed_holes: u32,
    /// See [`lines_with_enclosed_holes`].
    pub lines_with_enclosed_holes: u32,
    /// See [`surface_height`] (rows from the top; larger is better).
    pub surface_height: u32,
    /// See [`erasable`], indexed S Z O I L J T.
    pub erasable: [bool; 7],
}

impl Terms {
    /// How many of the seven pieces can clear a line (0..=7).
    pub fn erasable_count(&self) -> u32 {
        self.erasable.iter().filter(|&&e| e).count() as u32
    }
}

/// Where the hole terms of [`Terms`] are counted: from the top down to a
/// row that depends on S and Z clears.
///
/// Measured with the default weights (lines, single runs): counting the
/// whole well scored 17 at width 10,000 without the lookahead. Without it,
/// [`DeepenedSurface`](HoleRegion::DeepenedSurface) scored 23 / 37 at
/// widths 10,000 / 100,000 and [`LowestSurface`](HoleRegion::LowestSurface)
/// 21 / 22; with the lookahead the other way round, 32 / 53 against
/// 42 / 64. So the [`Evaluator`](super::Evaluator) counts down to the
/// deepened row without the lookahead and to the lowest row with it (see
/// [`crate::evaluate::lookahead`]'s doc for narrower widths, which do not tell the
/// two apart). One reading of the lookahead's part: it scores the well
/// after the S clear itself, where the freed cells are surface, so counting
/// them as holes in the well before the clear would charge for them twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HoleRegion {
    /// Down to the [`surface_height`] row: the lowest surface row, deepened
    /// when an S or Z clear opens what lies below. The cells such a clear
    /// would open are counted as holes.
    DeepenedSurface,
    /// Down to the lowest surface row before the S/Z exception: holes an S
    /// or Z clear would free are not counted ("knewjade's heuristic doesn't
    /// count holes or enclosed holes if an S or Z piece can free them",
    /// hallofdreams.org). The exception still deepens the surface height.
    LowestSurface,
}

/// Every term of `well` in one pass, hole terms over
/// [`HoleRegion::DeepenedSurface`]: the same values as the single-term
/// functions, sharing the surface and the move generator between them.
pub fn terms(well: &Well) -> Terms {
    terms_with(well, HoleRegion::DeepenedSurface)
}

/// [`terms`] with the hole terms counted over `region`.
pub fn terms_with(well: &Well, region: HoleRegion) -> Terms {
    let s = surface(well);
    let base = surface_bottom_of(&s);
    let rows = candidate_rows(well);
    let mut erasable = [false; 7];
    let mut surface_height = base;
    if rows.iter().any(|&r| r != 0) {
        for piece in Piece::ALL {
            let r = rows[piece.index()];
            if r == 0 {
                continue;
            }
            erasable[piece.index()] = match piece {
                // S and Z: every clearing placement feeds the surface-height
                // exception, so walk them all instead of stopping at one.
                Piece::S | Piece::Z => {
                    let mut any = false;
                    for_each_clear(well, piece, r, false, |child, _| {
                        any = true;
                        surface_height = surface_height.max(surface_bottom(&child));
                        false
                    });
                    any
                }
                _ => for_each_clear(well, piece, r, false, |_, _| true),
            };
        }
    }
    let last = match region {
        HoleRegion::DeepenedSurface => surface_height,
        HoleRegion::LowestSurface => base,
    };
    let live = (last as usize + 1).saturating_sub(BAR).min(LIVE_ROWS);
    let (enclosed_holes, lines_with_enclosed_holes) = enclosed_counts_in(well, &s, live);
    Terms {
        holes: holes_in(well, live),
        enclosed_holes,
        lines_with_enclosed_holes,
        surface_height,
        erasable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_fills_runs_both_ways() {
        let free = 0b01_1101_1110;
        assert_eq!(spread_row(0b00_0000_1000, free), 0b00_0001_1110);
        assert_eq!(spread_row(0b01_0000_0010, free), free);
        assert_eq!(spread_row(0, free), 0);
    }
}
