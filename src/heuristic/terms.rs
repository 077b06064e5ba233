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
//! Erasability needs the move generator only sometimes. A piece can only
//! complete a row whose empty cells are exactly the cells of one of its box
//! rows at some column ([`CLEAR_PATTERNS`], 1 KiB, built at compile time),
//! so most pieces are rejected by one lookup per row. For a piece with one
//! or two such rows, the clearing lock positions are enumerated straight
//! from the gaps (fits, cannot move down, locks below the bar); one whose
//! cells all have open sky above them is reached by a straight drop, so the
//! piece is erasable without any search. Only the remaining cases, and
//! pieces with three or more candidate rows (where enumerating cost more
//! than searching, measured on the bench wells), run the wave search of
//! [`crate::movegen`], and then only lock positions overlapping a candidate
//! row are checked.
//!
//! Measured with `perf`: the build has no `popcnt` by default, so
//! `count_ones` is a dozen instructions; the gap matching avoids it
//! (a compile-time table of box-row patterns) in the inner loops.
//!
//! The fast functions are checked against naive twins (per-cell loops, a
//! BFS surface, the reference BFS move generator) in `tests/heuristic.rs`.

use crate::movegen::MoveGen;
use crate::piece::{Piece, CANON, SHAPES, TOP_ROW};
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
/// [`super::quiescent`]'s doc for narrower widths, which do not tell the
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

/// Shifts a 4-bit box row to column `x` (box column 0 on well column `x`),
/// or `None` when a cell would be outside the walls.
#[inline(always)]
fn place_row(bits: u8, x: i32) -> Option<u16> {
    let b = bits as u32;
    if x >= 0 {
        let placed = b << x;
        (placed <= FULL_ROW as u32).then_some(placed as u16)
    } else {
        (b & ((1 << -x) - 1) == 0).then_some((b >> -x) as u16)
    }
}

/// `MATCHES[p][n]`: bit `4·o + r` is set when box row `r` of orientation `o`
/// of piece `p`, shifted down to bit 0, equals `n` (a 4-bit pattern).
///
/// A row's gap, shifted down to bit 0, picks the box rows that can fill it
/// exactly without trying all sixteen. (The target has no `popcnt`
/// instruction by default, so counting cells to compare is slow.)
static MATCHES: [[u16; 16]; 7] = {
    let mut out = [[0u16; 16]; 7];
    let mut p = 0;
    while p < 7 {
        let mut o = 0;
        while o < 4 {
            let mut r = 0;
            while r < 4 {
                let mut bits = SHAPES[p][o][r];
                if bits != 0 {
                    while bits & 1 == 0 {
                        bits >>= 1;
                    }
                    out[p][bits as usize] |= 1 << (4 * o + r);
                }
                r += 1;
            }
            o += 1;
        }
        p += 1;
    }
    out
};

/// Clearing lock positions of one piece found without a wave search.
///
/// A candidate is a position `(x, y, o)` where the piece fits, cannot move
/// down (so it would lock there), locks below the bar, and covers exactly
/// the empty cells of at least one row. Whether it is *reachable* is a
/// separate question: a candidate every one of whose cells has nothing
/// filled above it in its column is reached by dropping straight down from
/// above the stack (where every position is reachable), so it is marked
/// `sky`; the others need the wave search.
struct Candidates {
    /// Candidate positions per box row `y`, in the move generator's wave
    /// layout (orientation `o` owns bits `16·o..16·o+16`, bit `x + 2`).
    at: [u64; HEIGHT],
    /// The candidates that are reachable by a straight drop.
    sky: [u64; HEIGHT],
    /// Bit `y` set when `at[y]` is not empty.
    ys: u32,
    /// Whether any `sky` bit is set.
    any_sky: bool,
    /// Whether some candidate is not in `sky`.
    any_deep: bool,
}

/// The candidates of `piece` in `well` (see [`Candidates`]); `rows` is the
/// piece's [`candidate_rows`] mask.
fn candidates(well: &Well, piece: Piece, rows: u32) -> Candidates {
    let p = piece.index();
    // Game rows with the floor below (rows 20..24 solid), and for each row
    // the union of the rows above it.
    let mut grid = [FULL_ROW; HEIGHT + 4];
    grid[..BAR].fill(0);
    grid[BAR..HEIGHT].copy_from_slice(well.rows());
    let mut above = [0u16; HEIGHT + 4];
    for r in 0..HEIGHT + 3 {
        above[r + 1] = above[r] | grid[r];
    }
    let mut c = Candidates {
        at: [0; HEIGHT],
        sky: [0; HEIGHT],
        ys: 0,
        any_sky: false,
        any_deep: false,
    };
    let mut rs = rows;
    while rs != 0 {
        let row = rs.trailing_zeros() as usize;
        rs &= rs - 1;
        let gap = !grid[row] & FULL_ROW;
        let low = gap.trailing_zeros();
        if gap >> low > 15 {
            continue; // wider than a box row: no piece fills it
        }
        let mut combos = MATCHES[p][(gap >> low) as usize];
        while combos != 0 {
            let k = combos.trailing_zeros() as usize;
            combos &= combos - 1;
            let (o, r) = (k / 4, k % 4);
            let shape = SHAPES[p][o];
            let bits = shape[r];
            let x = low as i32 - bits.trailing_zeros() as i32;
            if place_row(bits, x) != Some(gap) || row < r {
                continue;
            }
            let y = row - r;
            if y + (TOP_ROW[p][o] as usize) < BAR {
                continue; // would lock above the bar: game over
            }
            let (mut fits, mut blocked, mut sky) = (true, false, true);
            for (rr, &b) in shape.iter().enumerate() {
                if b == 0 {
                    continue;
                }
                let Some(cells) = place_row(b, x) else {
                    fits = false;
                    break;
                };
                let g = y + rr;
                fits &= cells & grid[g] == 0;
                blocked |= cells & grid[g + 1] != 0;
                sky &= cells & above[g] == 0;
            }
            if fits && blocked {
                let bit = 1u64 << (o as u32 * 16 + (x + 2) as u32);
                c.at[y] |= bit;
                c.ys |= 1 << y;
                if sky {
                    c.sky[y] |= bit;
                    c.any_sky = true;
                } else {
                    c.any_deep = true;
                }
            }
        }
    }
    c
}

/// With more candidate rows than this, enumerating the gaps costs more than
/// one wave search (measured on the bench wells), so [`for_each_clear`]
/// runs the wave search straight away.
const MAX_ENUMERATED_ROWS: u32 = 2;

/// [`for_each_clear`] by the wave search alone: every lock position whose
/// box overlaps a candidate row is locked and checked.
fn for_each_clear_wave(
    well: &Well,
    piece: Piece,
    rows: u32,
    dedup: bool,
    mut f: impl FnMut(Well, u8) -> bool,
) -> bool {
    let mut pl = MoveGen::new(well).placements(piece);
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
            if let Some((child, lines)) = lock(well, p, o, x, y) {
                any = true;
                if f(child, lines) {
                    return true;
                }
            }
        }
    }
    any
}

/// Locks piece `p` at `(x, y, o)` and clears full rows; `None` when nothing
/// clears.
#[inline]
fn lock(well: &Well, p: usize, o: usize, x: i32, y: usize) -> Option<(Well, u8)> {
    let mut out = *well.rows();
    let mut lines = 0u8;
    for (r, &bits) in SHAPES[p][o].iter().enumerate() {
        if bits == 0 {
            continue;
        }
        let cells = place_row(bits, x).expect("a lock position is inside the walls");
        let i = y + r - BAR;
        out[i] |= cells;
        if out[i] == FULL_ROW {
            out.copy_within(0..i, 1);
            out[0] = 0;
            lines += 1;
        }
    }
    (lines > 0).then(|| (Well::from_live_rows_unchecked(out), lines))
}

/// Calls `f(child, lines)` for reachable live placements of `piece` that
/// clear at least one line, until `f` returns `true`; returns whether it did
/// or, when `f` never stops the walk, whether any placement cleared.
///
/// `rows` is the piece's [`candidate_rows`] mask. The clearing positions
/// are enumerated directly from the rows' gaps ([`candidates`]); the wave
/// search runs only when some of them cannot be reached by a straight drop.
/// Without `dedup` the same cells can be visited twice (the game's S, Z, I
/// and O repeat shapes between orientations), which is harmless for a
/// maximum or an early stop; with it, each child comes once.
pub(crate) fn for_each_clear(
    well: &Well,
    piece: Piece,
    rows: u32,
    dedup: bool,
    mut f: impl FnMut(Well, u8) -> bool,
) -> bool {
    // Clear the lowest set bit MAX_ENUMERATED_ROWS times: anything left
    // means more rows than that (no `popcnt` on the default target).
    let mut more = rows;
    for _ in 0..MAX_ENUMERATED_ROWS {
        more &= more.wrapping_sub(1);
    }
    if more != 0 {
        return for_each_clear_wave(well, piece, rows, dedup, f);
    }
    let c = candidates(well, piece, rows);
    if c.ys == 0 {
        return false;
    }
    let p = piece.index();
    // Reachability beyond the straight drops needs the wave search.
    let placements = c.any_deep.then(|| MoveGen::new(well).placements(piece));
    let mut emitted = [0u64; HEIGHT];
    let mut any = false;
    let mut ys = c.ys;
    while ys != 0 {
        let y = ys.trailing_zeros() as usize;
        ys &= ys - 1;
        let mut w = match &placements {
            Some(pl) => c.sky[y] | (c.at[y] & pl.locks_at(y)),
            None => c.sky[y],
        };
        while w != 0 {
            let bit = w.trailing_zeros();
            w &= w - 1;
            let o = (bit / 16) as usize;
            let x = (bit % 16) as i32 - 2;
            if dedup {
                // The same cells as the canonical orientation at (x+dx, y+dy).
                let k = CANON[p][o];
                let (cy, cx) = (y as i32 + k.dy as i32, x + k.dx as i32);
                let key = 1u64 << (k.canon as u32 * 16 + (cx + 2) as u32);
                if emitted[cy as usize] & key != 0 {
                    continue;
                }
                emitted[cy as usize] |= key;
            }
            let (child, lines) = lock(well, p, o, x, y).expect("a candidate clears a line");
            any = true;
            if f(child, lines) {
                return true;
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
