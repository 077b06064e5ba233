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
//! Erasability needs the move generator. Before any wave search a table
//! lookup per row rejects most pieces: a piece can only complete a row whose
//! empty cells are exactly the cells of one of its box rows at some column
//! ([`CLEAR_PATTERNS`], 1 KiB, built at compile time). Only the pieces that
//! survive that test pay for a wave search, and the search's lock positions
//! are then checked only at the box rows that overlap a candidate row.

use crate::movegen::MoveGen;
use crate::piece::{Piece, SHAPES, TOP_ROW};
use crate::well::{Well, BAR, FULL_ROW, HEIGHT, LIVE_ROWS, WIDTH};

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
/// ways (`seed` ⊆ `free`, 10-bit rows).
#[inline(always)]
fn spread_row(seed: u16, free: u16) -> u16 {
    // Towards higher bits (rightwards): the add carries through each run of
    // `free` above its lowest seed; the bits that change are that stretch
    // minus any other seeds in it, plus one bit past the run (masked off).
    let right = ((free.wrapping_add(seed) ^ free) & free) | seed;
    // Towards lower bits: a doubling fill, enough for runs of up to 16.
    let mut g = right;
    let mut p = free;
    g |= (g >> 1) & p;
    p &= p >> 1;
    g |= (g >> 2) & p;
    p &= p >> 2;
    g |= (g >> 4) & p;
    p &= p >> 4;
    g |= (g >> 8) & p;
    g
}

/// **Holes**: the number of empty cells that have a filled cell somewhere
/// above them in the same column.
pub fn holes(well: &Well) -> u32 {
    let mut above = 0u16;
    let mut n = 0;
    for &row in well.rows() {
        n += (!row & above & FULL_ROW).count_ones();
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
    let mut cells = 0;
    let mut lines = 0;
    for (&row, &s) in well.rows().iter().zip(surface) {
        let enclosed = !row & !s & FULL_ROW;
        cells += enclosed.count_ones();
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
    let gen = MoveGen::new(well);
    let rows = candidate_rows(well);
    let base = surface_bottom(well);
    sz_surface_height(well, &gen, &rows, base)
}

/// The S/Z exception of [`surface_height`] on a prepared move generator.
fn sz_surface_height(well: &Well, gen: &MoveGen, rows: &[u32; 7], base: u32) -> u32 {
    let mut best = base;
    for piece in [Piece::S, Piece::Z] {
        if rows[piece.index()] != 0 {
            for_each_clear(well, gen, piece, rows[piece.index()], false, |child, _| {
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
    rows != 0 && for_each_clear(well, &MoveGen::new(well), piece, rows, false, |_, _| true)
}

/// [`erasable`] for all seven pieces, indexed in the order S Z O I L J T.
pub fn erasability(well: &Well) -> [bool; 7] {
    let gen = MoveGen::new(well);
    let rows = candidate_rows(well);
    let mut out = [false; 7];
    for piece in Piece::ALL {
        let r = rows[piece.index()];
        out[piece.index()] = r != 0 && for_each_clear(well, &gen, piece, r, false, |_, _| true);
    }
    out
}

/// All the geometric terms of one well.
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

/// Every term of `well` in one pass: the same values as the single-term
/// functions, sharing the surface and the move generator between them.
pub fn terms(well: &Well) -> Terms {
    let s = surface(well);
    let (enclosed_holes, lines_with_enclosed_holes) = enclosed_counts(well, &s);
    let base = surface_bottom_of(&s);
    let rows = candidate_rows(well);
    let mut erasable = [false; 7];
    let mut surface_height = base;
    if rows.iter().any(|&r| r != 0) {
        let gen = MoveGen::new(well);
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
                    for_each_clear(well, &gen, piece, r, false, |child, _| {
                        any = true;
                        surface_height = surface_height.max(surface_bottom(&child));
                        false
                    });
                    any
                }
                _ => for_each_clear(well, &gen, piece, r, false, |_, _| true),
            };
        }
    }
    Terms {
        holes: holes(well),
        enclosed_holes,
        lines_with_enclosed_holes,
        surface_height,
        erasable,
    }
}

/// `CLEAR_PATTERNS[empty]`: bit `p` is set when some box row of piece `p`,
/// in some orientation and at some column where it lies wholly inside the
/// well, covers exactly the cells of the 10-bit mask `empty`. A piece can
/// only complete a row whose empty cells form such a pattern.
pub static CLEAR_PATTERNS: [u8; 1 << WIDTH] = {
    let mut out = [0u8; 1 << WIDTH];
    let mut p = 0;
    while p < 7 {
        let mut o = 0;
        while o < 4 {
            let mut r = 0;
            while r < 4 {
                let bits = SHAPES[p][o][r] as u32;
                // Box column c at x lands on well column x + c, x in -3..10.
                let mut x: i32 = -3;
                while bits != 0 && x < WIDTH as i32 {
                    let fits = if x >= 0 {
                        (bits << x) <= FULL_ROW as u32
                    } else {
                        bits & ((1 << -x) - 1) == 0
                    };
                    if fits {
                        let mask = if x >= 0 { bits << x } else { bits >> -x };
                        out[mask as usize] |= 1 << p;
                    }
                    x += 1;
                }
                r += 1;
            }
            o += 1;
        }
        p += 1;
    }
    out
};

/// For each piece (S Z O I L J T), the game rows it could complete as a bit
/// mask (bit `r` = game row `r`), from [`CLEAR_PATTERNS`].
#[inline]
pub fn candidate_rows(well: &Well) -> [u32; 7] {
    let mut out = [0u32; 7];
    for (i, &row) in well.rows().iter().enumerate() {
        let pieces = CLEAR_PATTERNS[(!row & FULL_ROW) as usize];
        if pieces != 0 {
            for (p, o) in out.iter_mut().enumerate() {
                *o |= (((pieces >> p) & 1) as u32) << (i + BAR);
            }
        }
    }
    out
}

/// Calls `f(child, lines)` for reachable live placements of `piece` that
/// clear at least one line, until `f` returns `true`; returns whether it did
/// or, when `f` never stops the walk, whether any placement cleared.
///
/// `rows` is the piece's [`candidate_rows`] mask: only lock positions whose
/// box overlaps one of those rows are examined. Without `dedup` the same
/// cells can be visited twice (the game's S, Z, I and O repeat shapes
/// between orientations), which is harmless for a maximum or an early stop;
/// with it, repeated shapes are merged first and each child comes once.
pub(crate) fn for_each_clear(
    well: &Well,
    gen: &MoveGen,
    piece: Piece,
    rows: u32,
    dedup: bool,
    mut f: impl FnMut(Well, u8) -> bool,
) -> bool {
    let mut pl = gen.placements(piece);
    if dedup {
        pl.merge_repeated_shapes();
    }
    let p = piece.index();
    // Box top rows y whose four rows y..y+4 overlap a candidate row.
    let mut ys = (rows | rows >> 1 | rows >> 2 | rows >> 3) & ((1 << HEIGHT) - 1);
    let mut any = false;
    while ys != 0 {
        let y = ys.trailing_zeros() as usize;
        ys &= ys - 1;
        let mut w = pl.locks_at(y);
        while w != 0 {
            let bit = w.trailing_zeros();
            w &= w - 1;
            // The wave layout documented in `crate::movegen`: orientation
            // `o` owns bits 16·o..16·o+16, bit `x + 2` within it is column x.
            let o = (bit / 16) as usize;
            let x = (bit % 16) as i32 - 2;
            if y + (TOP_ROW[p][o] as usize) < BAR {
                continue; // locks above the bar: game over, clears nothing
            }
            let mut out = *well.rows();
            let mut lines = 0u8;
            for (r, &bits) in SHAPES[p][o].iter().enumerate() {
                if bits == 0 {
                    continue;
                }
                let cells = (((bits as u32) << (x + 2)) >> 2) as u16;
                let i = y + r - BAR;
                out[i] |= cells;
                if out[i] == FULL_ROW {
                    out.copy_within(0..i, 1);
                    out[0] = 0;
                    lines += 1;
                }
            }
            if lines > 0 {
                any = true;
                if f(Well::from_live_rows_unchecked(out), lines) {
                    return true;
                }
            }
        }
    }
    any
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

    #[test]
    fn clear_patterns_know_the_single_gap_and_the_i_row() {
        // One empty cell: every piece but O has a one-cell box row.
        let one = CLEAR_PATTERNS[1 << 4];
        assert_eq!(one, 0b111_1011);
        // Four in a row: only I.
        assert_eq!(CLEAR_PATTERNS[0b1111 << 3], 1 << Piece::I.index());
        // Two cells apart: nobody.
        assert_eq!(CLEAR_PATTERNS[0b101], 0);
    }
}
