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

use crate::movegen::{candidate_rows, for_each_clear, MoveGen, Reach};
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

/// The S/Z exception of [`surface_height`], given the candidate rows.
fn sz_surface_height(well: &Well, rows: &[u32; 7], base: u32) -> u32 {
    sz_after_clear(well, rows).map_or(base, |after| base.max(after))
}

/// The deepest lowest surface row over the wells one S or Z line clear
/// away, if an S or Z can clear.
fn sz_after_clear(well: &Well, rows: &[u32; 7]) -> Option<u32> {
    let mut best = None;
    for piece in [Piece::S, Piece::Z] {
        if rows[piece.index()] != 0 {
            for_each_clear(well, piece, rows[piece.index()], false, |child, _, _| {
                let b = surface_bottom(&child);
                best = Some(best.map_or(b, |d: u32| d.max(b)));
                false
            });
        }
    }
    best
}

// ------------------------------------------------------------ reach terms

/// **S surface height**: the surface height measured with an S piece
/// instead of a 1×1 block. The game row (0 = top, 19 = bottom) of the
/// lowest cell covered by any position of an S reachable from the spawn
/// (by left, right, down and rotation, as the game moves pieces), or 3 if
/// no position is reachable. Like [`surface_height`], larger is lower and
/// better. An S cannot turn into a one-wide gap, so this is never below
/// the 1×1 surface and often above it.
pub fn s_surface_height(well: &Well) -> u32 {
    s_height_of(&MoveGen::new(well).reach(Piece::S))
}

fn s_height_of(reach: &Reach) -> u32 {
    match reach.cells.iter().rposition(|&c| c != 0) {
        Some(i) => (i + BAR) as u32,
        None => BAR as u32 - 1,
    }
}

/// **Open cells no S can reach**: empty cells on the [`surface`] (so not
/// enclosed holes) that no position of an S reachable from the spawn
/// covers. Cells a 1×1 block could fill but an S never will: the pockets
/// the game's S pieces leave behind.
pub fn s_unreachable_open_cells(well: &Well) -> u32 {
    s_unreachable_of(&surface(well), &MoveGen::new(well).reach(Piece::S))
}

fn s_unreachable_of(surface: &[u16; LIVE_ROWS], reach: &Reach) -> u32 {
    surface
        .iter()
        .zip(&reach.cells)
        .map(|(&s, &c)| CELL_COUNT[(s & !c & FULL_ROW) as usize] as u32)
        .sum()
}

/// **Left column height**: the height of column 0 (the leftmost), counted
/// in rows from the bottom: 20 minus the game row of its highest filled
/// cell, 0 for an empty column.
pub fn left_column_height(well: &Well) -> u32 {
    column_height(well, 0)
}

/// **Right column height**: [`left_column_height`] for column 9 (the
/// rightmost).
pub fn right_column_height(well: &Well) -> u32 {
    column_height(well, WIDTH - 1)
}

fn column_height(well: &Well, column: usize) -> u32 {
    match well.rows().iter().position(|&r| r >> column & 1 == 1) {
        Some(i) => (LIVE_ROWS - i) as u32,
        None => 0,
    }
}

/// **Deepest row without a clear**: the game row (0 = top, 19 = bottom)
/// of the lowest cell of any reachable S or Z lock that completes no row
/// and leaves no cell above the bar; 0 if every such lock clears or ends
/// the game. How deep the pieces the game hands out can still go.
pub fn deepest_without_clear(well: &Well) -> u32 {
    let gen = MoveGen::new(well);
    deepest_without_clear_of(&gen.reach(Piece::S), &gen.reach(Piece::Z))
}

fn deepest_without_clear_of(s: &Reach, z: &Reach) -> u32 {
    s.deepest_without_clear
        .max(z.deepest_without_clear)
        .unwrap_or(0)
}

/// **Deepest row after a clear**: over every reachable S or Z lock that
/// clears at least one line, the lowest surface row ([`surface_bottom`])
/// of the well it leaves; 0 if no S or Z can clear. The row the
/// [`surface_height`] exception deepens to, on its own, so that a clear's
/// promise can be weighed apart from the surface.
pub fn deepest_after_clear(well: &Well) -> u32 {
    sz_after_clear(well, &candidate_rows(well)).unwrap_or(0)
}

/// The reach terms of one well (see each function): measured with the S
/// and Z pieces the game hands out rather than a 1×1 block, and the edge
/// columns. They cost two more wave searches, so [`terms_with`] computes
/// them only when asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct ReachTerms {
    /// See [`s_surface_height`].
    pub s_surface_height: u32,
    /// See [`s_unreachable_open_cells`].
    pub s_unreachable_open_cells: u32,
    /// See [`left_column_height`].
    pub left_column_height: u32,
    /// See [`right_column_height`].
    pub right_column_height: u32,
    /// See [`deepest_without_clear`].
    pub deepest_without_clear: u32,
    /// See [`deepest_after_clear`].
    pub deepest_after_clear: u32,
}

/// **Erasability** of one piece: whether some placement of `piece` reachable
/// from the spawn clears at least one line (a lock above the bar clears
/// nothing and does not count). Each piece is decided on its own; no piece's
/// answer depends on another's.
pub fn erasable(well: &Well, piece: Piece) -> bool {
    let rows = candidate_rows(well)[piece.index()];
    rows != 0 && for_each_clear(well, piece, rows, false, |_, _, _| true)
}

/// [`erasable`] for all seven pieces, indexed in the order S Z O I L J T.
pub fn erasability(well: &Well) -> [bool; 7] {
    let rows = candidate_rows(well);
    let mut out = [false; 7];
    for piece in Piece::ALL {
        let r = rows[piece.index()];
        out[piece.index()] = r != 0 && for_each_clear(well, piece, r, false, |_, _, _| true);
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
    /// The reach terms, when they were asked for ([`terms_with_reach`]).
    pub reach: Option<ReachTerms>,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
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
    compute(well, region, false)
}

/// [`terms_with`] and the [`ReachTerms`] too.
pub fn terms_with_reach(well: &Well, region: HoleRegion) -> Terms {
    compute(well, region, true)
}

#[inline(always)]
fn compute(well: &Well, region: HoleRegion, with_reach: bool) -> Terms {
    let s = surface(well);
    let base = surface_bottom_of(&s);
    let rows = candidate_rows(well);
    let mut erasable = [false; 7];
    let mut after_clear: Option<u32> = None;
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
                    for_each_clear(well, piece, r, false, |child, _, _| {
                        any = true;
                        let b = surface_bottom(&child);
                        after_clear = Some(after_clear.map_or(b, |d| d.max(b)));
                        false
                    });
                    any
                }
                _ => for_each_clear(well, piece, r, false, |_, _, _| true),
            };
        }
    }
    let surface_height = after_clear.map_or(base, |after| base.max(after));
    let last = match region {
        HoleRegion::DeepenedSurface => surface_height,
        HoleRegion::LowestSurface => base,
    };
    let live = (last as usize + 1).saturating_sub(BAR).min(LIVE_ROWS);
    let (enclosed_holes, lines_with_enclosed_holes) = enclosed_counts_in(well, &s, live);
    let reach = with_reach.then(|| {
        let gen = MoveGen::new(well);
        let (s_reach, z_reach) = (gen.reach(Piece::S), gen.reach(Piece::Z));
        ReachTerms {
            s_surface_height: s_height_of(&s_reach),
            s_unreachable_open_cells: s_unreachable_of(&s, &s_reach),
            left_column_height: column_height(well, 0),
            right_column_height: column_height(well, WIDTH - 1),
            deepest_without_clear: deepest_without_clear_of(&s_reach, &z_reach),
            deepest_after_clear: after_clear.unwrap_or(0),
        }
    });
    Terms {
        holes: holes_in(well, live),
        enclosed_holes,
        lines_with_enclosed_holes,
        surface_height,
        erasable,
        reach,
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
