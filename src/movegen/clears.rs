//! The placements of a piece that clear at least one line, found without
//! generating every child.
//!
//! The heuristic's erasability and surface-height terms and the quiescent
//! lookahead only care about clearing placements, which are few. A piece can
//! only complete a row whose empty cells are exactly the cells of one of its
//! box rows at some column ([`CLEAR_PATTERNS`], 1 KiB, built at compile
//! time), so most pieces are rejected by one lookup per row. For a piece
//! with one or two such rows, the clearing lock positions are enumerated
//! straight from the gaps (fits, cannot move down, locks below the bar);
//! one whose cells all have open sky above them is reached by a straight
//! drop, so it needs no search. Only the remaining cases, and pieces with
//! three or more candidate rows (where enumerating cost more than
//! searching, measured on the bench wells), run the wave search, and then
//! only lock positions overlapping a candidate row are locked and checked.
//!
//! The target has no `popcnt` by default, so `count_ones` is a dozen
//! instructions; the gap matching avoids it in the inner loops (a
//! compile-time table of box-row patterns).

use super::wave::{bit, positions, Stack};
use super::Placements;
use crate::piece::{Piece, CANON, SHAPES};
use crate::place::{cell_rows, cell_rows_checked, locks_above_bar, place_and_clear_first};
use crate::well::{Well, BAR, FULL_ROW, HEIGHT, WIDTH};

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

/// The [`CLEAR_PATTERNS`] byte of each live row: rows 0..8 in the first
/// word, 8..16 in the second, one byte each, the first lowest. One piece's
/// [`candidate_rows`] come out of it with [`rows_of`], so a caller that
/// looks at S first (and seldom further) pays for one piece, not seven.
#[inline]
pub(crate) fn clear_pattern_bytes(well: &Well) -> [u64; 2] {
    let rows = well.rows();
    // Eight rows to a word, spelled out: a loop here was compiled to twice
    // the instructions when the caller's inlining changed.
    let byte = |i: usize| u64::from(CLEAR_PATTERNS[usize::from(!rows[i] & FULL_ROW)]);
    let word = |at: usize| {
        byte(at)
            | byte(at + 1) << 8
            | byte(at + 2) << 16
            | byte(at + 3) << 24
            | byte(at + 4) << 32
            | byte(at + 5) << 40
            | byte(at + 6) << 48
            | byte(at + 7) << 56
    };
    [word(0), word(8)]
}

/// `piece`'s [`candidate_rows`] mask from [`clear_pattern_bytes`]: bit
/// `p` of each byte gathered into one bit per row by a multiplication.
#[inline]
pub(crate) fn rows_of(bytes: [u64; 2], piece: Piece) -> u32 {
    let p = piece.index();
    let gather = |x: u64| {
        ((x >> p & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
    };
    (gather(bytes[0]) | gather(bytes[1]) << 8) << BAR
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

/// `FIRST_COLUMN[p][4·o + r]`: the box column of the first cell of box row
/// `r` of orientation `o` of piece `p` (its `trailing_zeros`, read from a
/// table: without `bmi1` the instruction needs a zero check).
static FIRST_COLUMN: [[u8; 16]; 7] = {
    let mut out = [[0u8; 16]; 7];
    let mut p = 0;
    while p < 7 {
        let mut k = 0;
        while k < 16 {
            let bits = SHAPES[p][k / 4][k % 4];
            out[p][k] = if bits == 0 {
                0
            } else {
                bits.trailing_zeros() as u8
            };
            k += 1;
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

/// Rows `at..at + 4` of `rows` as one word, 16 bits each, the first lowest.
#[inline(always)]
fn pack(rows: &[u16], at: usize) -> u64 {
    let r = &rows[at..at + 4];
    u64::from(r[0]) | u64::from(r[1]) << 16 | u64::from(r[2]) << 32 | u64::from(r[3]) << 48
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
            let x = low as i32 - i32::from(FIRST_COLUMN[p][k]);
            let Some(cells) = cell_rows_checked(piece, o, x) else {
                continue; // a cell would be outside the walls
            };
            if cells[r] != gap || row < r {
                continue;
            }
            let y = row - r;
            if locks_above_bar(piece, o, y) {
                continue; // would lock above the bar: game over
            }
            // The four box rows at once: a row without cells tests nothing.
            let cells = pack(&cells, 0);
            let fits = cells & pack(&grid, y) == 0;
            let blocked = cells & pack(&grid, y + 1) != 0;
            let sky = cells & pack(&above, y) == 0;
            if fits && blocked {
                let bit = bit(x, o);
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
    mut f: impl FnMut(Well, u8, u8) -> bool,
) -> bool {
    // Only the rows near a candidate row are read: merging those alone
    // gives the same waves as merging all of them.
    let pl = Placements::generate_in(&Stack::new(well), piece);
    // Box top rows y whose four rows y..y+4 overlap a candidate row.
    let mut ys = (rows | rows >> 1 | rows >> 2 | rows >> 3) & ((1 << HEIGHT) - 1);
    let mut any = false;
    while ys != 0 {
        let y = ys.trailing_zeros() as usize;
        ys &= ys - 1;
        let w = if dedup {
            pl.merged_locks_at(y)
        } else {
            pl.locks_at(y)
        };
        for (x, o) in positions(w) {
            if locks_above_bar(piece, o, y) {
                continue; // locks above the bar: game over, clears nothing
            }
            if let Some((child, lines, cleared)) = lock(well, piece, o, x, y) {
                any = true;
                if f(child, lines, cleared) {
                    return true;
                }
            }
        }
    }
    any
}

/// Locks `piece` at `(x, y, o)` (below the bar) and clears full rows:
/// the child, the lines cleared and the live row of the first (top) row
/// cleared, counted in `well`; `None` when nothing clears.
#[inline]
fn lock(well: &Well, piece: Piece, o: usize, x: i32, y: usize) -> Option<(Well, u8, u8)> {
    let mut rows = *well.rows();
    let (lines, cleared) = place_and_clear_first(&mut rows, BAR, cell_rows(piece, o, x), y);
    (lines > 0).then(|| (Well::from_live_rows_unchecked(rows), lines, cleared as u8))
}

/// Calls `f(child, lines, cleared)` for reachable live placements of
/// `piece` that clear at least one line (`cleared`: the live row, counted
/// in `well`, of the top row the placement completes), until `f` returns `true`; returns whether it did
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
    mut f: impl FnMut(Well, u8, u8) -> bool,
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
    let placements = c
        .any_deep
        .then(|| Placements::generate_in(&Stack::new(well), piece));
    let mut emitted = [0u64; HEIGHT];
    let mut any = false;
    let mut ys = c.ys;
    while ys != 0 {
        let y = ys.trailing_zeros() as usize;
        ys &= ys - 1;
        let w = match &placements {
            Some(pl) => c.sky[y] | (c.at[y] & pl.locks_at(y)),
            None => c.sky[y],
        };
        for (x, o) in positions(w) {
            if dedup {
                // The same cells as the canonical orientation at (x+dx, y+dy).
                let k = CANON[p][o];
                let (cy, cx) = (y as i32 + k.dy as i32, x + k.dx as i32);
                let key = bit(cx, k.canon as usize);
                if emitted[cy as usize] & key != 0 {
                    continue;
                }
                emitted[cy as usize] |= key;
            }
            let (child, lines, cleared) =
                lock(well, piece, o, x, y).expect("a candidate clears a line");
            any = true;
            if f(child, lines, cleared) {
                return true;
            }
        }
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One piece's rows from the bytes equal [`candidate_rows`].
    #[test]
    fn rows_of_the_bytes_are_the_candidate_rows() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for n in 0..2000 {
            let mut rows = [0u16; crate::well::LIVE_ROWS];
            for r in rows.iter_mut().skip(n % 16) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Mostly nearly full rows, where pieces can clear.
                *r = (if x >> 40 & 1 == 1 {
                    FULL_ROW & !(x as u16 >> 3 & 0x21)
                } else {
                    x as u16
                }) & FULL_ROW;
            }
            let well = Well::from_live_rows_unchecked(rows);
            let bytes = clear_pattern_bytes(&well);
            let all = candidate_rows(&well);
            for piece in Piece::ALL {
                assert_eq!(rows_of(bytes, piece), all[piece.index()], "{rows:?}");
            }
        }
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
