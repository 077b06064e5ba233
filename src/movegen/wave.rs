//! The wave layout and the one-row step of the wave search.
//!
//! A *wave* is a set of positions `(x, o)` of one piece with its box's top
//! row at some `y`, as one `u64`: orientation `o` owns bits
//! `16·o .. 16·o + 16`, and within it bit `x + 2` stands for column `x`
//! ([`bit`] and [`positions`] are the only places that encode it). The
//! rest of the module computes with waves: the compile-time fit tables, the
//! well's rows as table indices ([`Slices`]), the horizontal run fill and
//! the closure under `L`, `R` and `U` ([`closure`]); see [`super`] for how
//! they make a search.

use crate::piece::{SHAPES, TOP_ROW};
use crate::well::{Well, BAR, HEIGHT};

/// Bits per orientation in a wave.
pub(crate) const FIELD: u32 = 16;
/// Box column offset: bit `xi` of a field is column `x = xi - X_OFFSET`.
const X_OFFSET: i32 = 2;
/// Index into `FIT` that stands for the floor below the well.
pub(crate) const FLOOR: usize = 1024;
/// Lock rows tracked: a box's top row is at most 19.
pub(crate) const BOX_ROWS: usize = HEIGHT;

/// A well row (or the floor) widened to 16 bits with the walls filled:
/// columns −2, −1 and 10..14 are solid.
const fn padded(row: usize) -> u32 {
    if row == FLOOR {
        0xFFFF
    } else {
        ((row as u32) << X_OFFSET) | 0b11 | (0xF << 12)
    }
}

/// `FIT[p][r][row]`: positions `(o, xi)` whose box row `r` fits in `row`.
static FIT: [[[u64; FLOOR + 1]; 4]; 7] = {
    let mut out = [[[0u64; FLOOR + 1]; 4]; 7];
    let mut p = 0;
    while p < 7 {
        let mut r = 0;
        while r < 4 {
            let mut row = 0;
            while row <= FLOOR {
                let wall = padded(row);
                let mut bits = 0u64;
                let mut o = 0;
                while o < 4 {
                    let shape = SHAPES[p][o][r] as u32;
                    let mut xi = 0;
                    while xi <= 10 {
                        if (shape << xi) & wall == 0 {
                            bits |= 1 << (o as u32 * FIELD + xi);
                        }
                        xi += 1;
                    }
                    o += 1;
                }
                out[p][r][row] = bits;
                row += 1;
            }
            r += 1;
        }
        p += 1;
    }
    out
};

/// Positions that fit in four empty rows: everywhere the walls allow.
const fn free_wave(p: usize) -> u64 {
    FIT[p][0][0] & FIT[p][1][0] & FIT[p][2][0] & FIT[p][3][0]
}

/// The free wave of each piece.
pub(crate) static FREE: [u64; 7] = {
    let mut out = [0; 7];
    let mut p = 0;
    while p < 7 {
        out[p] = free_wave(p);
        p += 1;
    }
    out
};

/// The bit of position `(x, o)` in a wave.
#[inline(always)]
pub(crate) const fn bit(x: i32, o: usize) -> u64 {
    1 << (o as u32 * FIELD + (x + X_OFFSET) as u32)
}

/// The position `(x, o)` of a wave's bit number `bit`.
#[inline(always)]
pub(crate) const fn position(bit: u32) -> (i32, usize) {
    ((bit % FIELD) as i32 - X_OFFSET, (bit / FIELD) as usize)
}

/// Every position `(x, o)` of a wave, in order of `o`, then `x`.
#[inline(always)]
pub(crate) fn positions(wave: u64) -> impl Iterator<Item = (i32, usize)> {
    BitIter(wave).map(position)
}

/// `SIX_OR_MORE[row]`: whether a 10-bit row has at least six cells.
static SIX_OR_MORE: [bool; 1 << 10] = {
    let mut out = [false; 1 << 10];
    let mut r = 0;
    while r < out.len() {
        out[r] = (r as u32).count_ones() >= 6;
        r += 1;
    }
    out
};

/// The well's rows as `FIT` indices, with the floor below (`rows[y]` for
/// `y` in `0..24`), and its top: all the wave search reads.
#[derive(Clone, Copy)]
pub(crate) struct Stack {
    pub(crate) rows: [u16; HEIGHT + 4],
    /// Index of the first non-empty row (20 if none).
    pub(crate) top: usize,
}

impl Stack {
    // Not inlined: inlined into the lookahead's piece loop, its top was
    // computed ahead of the loop on every well, and the loop's code grew.
    #[inline(never)]
    pub(crate) fn new(well: &Well) -> Stack {
        let mut rows = [FLOOR as u16; HEIGHT + 4];
        rows[..BAR].fill(0);
        rows[BAR..HEIGHT].copy_from_slice(well.rows());
        Stack {
            rows,
            top: well.top(),
        }
    }

    /// Positions of piece `p` that fit with the box's top row at `y`.
    #[inline(always)]
    pub(crate) fn fit(&self, p: usize, y: usize) -> u64 {
        let t = &FIT[p];
        t[0][self.rows[y] as usize]
            & t[1][self.rows[y + 1] as usize]
            & t[2][self.rows[y + 2] as usize]
            & t[3][self.rows[y + 3] as usize]
    }
}

/// The [`Stack`] and the rows one piece could complete: what the move
/// generator's entry points read. (The lock positions alone need only the
/// stack: [`super::Placements`] takes that, so the lookahead's clears do
/// not pay for the near-full rows.)
#[derive(Clone, Copy)]
pub(crate) struct Slices {
    pub(crate) stack: Stack,
    /// Bit `y` is set when row `y` has at least 6 cells, so that one piece
    /// could complete it.
    pub(crate) near_full: u32,
}

impl Slices {
    pub(crate) fn new(well: &Well) -> Slices {
        let mut near_full = 0u32;
        for (i, &r) in well.rows().iter().enumerate() {
            // `count_ones` is a dozen instructions without `popcnt`.
            near_full |= u32::from(SIX_OR_MORE[usize::from(r & 0x3FF)]) << (i + BAR);
        }
        Slices {
            stack: Stack::new(well),
            near_full,
        }
    }

    /// Positions of piece `p` that fit with the box's top row at `y`.
    #[inline(always)]
    pub(crate) fn fit(&self, p: usize, y: usize) -> u64 {
        self.stack.fit(p, y)
    }

    /// Index of the first non-empty row (20 if none).
    #[inline(always)]
    pub(crate) fn top(&self) -> usize {
        self.stack.top
    }
}

/// Spreads every position of `x` along its run of free columns in `f`
/// (both directions), within its own orientation.
#[inline(always)]
pub(crate) fn spread_horizontal(x: u64, f: u64) -> u64 {
    // Rightwards: adding the seeds to `f` carries through each run of ones
    // above a seed; the bits that changed are that stretch (plus one bit
    // past the run, which is not in `f`).
    let right = ((f.wrapping_add(x) ^ f) & f) | x;
    // Leftwards: a doubling fill, enough for runs up to 16 long.
    let mut g = right;
    let mut p = f;
    g |= (g >> 1) & p;
    p &= p >> 1;
    g |= (g >> 2) & p;
    p &= p >> 2;
    g |= (g >> 4) & p;
    p &= p >> 4;
    g |= (g >> 8) & p;
    g
}

/// The closure of `seed` under L, R and U within `f` (`seed ⊆ f`).
#[inline(always)]
pub(crate) fn closure(seed: u64, f: u64) -> u64 {
    let mut x = seed;
    loop {
        let h = spread_horizontal(x, f);
        let next = h | (h.rotate_left(FIELD) & f);
        if next == h {
            return h;
        }
        x = next;
    }
}

/// One step down: from the positions that can move down into the new row
/// (`seed`) and the positions that fit there (`fit`), the new wave.
///
/// [`Direct`] computes it; [`Cached`] looks whole transitions up in an
/// `ahash` map filled as they are met (the article's wave/surface cache).
/// `hatetris bench movegen --transitions` times both over the same wells.
pub trait Transition {
    /// The closure of `seed` under L, R and U within `fit`.
    fn step(&mut self, seed: u64, fit: u64) -> u64;
}

/// Computes every transition (the default).
#[derive(Clone, Copy, Debug, Default)]
pub struct Direct;

impl Transition for Direct {
    #[inline(always)]
    fn step(&mut self, seed: u64, fit: u64) -> u64 {
        if seed == fit {
            seed
        } else {
            closure(seed, fit)
        }
    }
}

/// Memoises transitions keyed by (seed, fit).
#[derive(Clone, Debug, Default)]
pub struct Cached {
    map: ahash::AHashMap<(u64, u64), u64>,
}

impl Cached {
    /// Distinct transitions seen.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether none were seen.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl Transition for Cached {
    #[inline]
    fn step(&mut self, seed: u64, fit: u64) -> u64 {
        if seed == fit {
            return seed;
        }
        *self
            .map
            .entry((seed, fit))
            .or_insert_with(|| closure(seed, fit))
    }
}

/// Bit `o` is set when orientation `o`'s field of the wave is not empty.
#[inline(always)]
pub(crate) fn field_mask(w: u64) -> usize {
    ((w & 0xFFFF != 0) as usize)
        | (((w >> 16) & 0xFFFF != 0) as usize) << 1
        | (((w >> 32) & 0xFFFF != 0) as usize) << 2
        | (((w >> 48) != 0) as usize) << 3
}

/// `MAX_TOP_ROW[p][mask]`: the largest first box row over the orientations
/// in `mask` (see [`field_mask`]).
pub(crate) static MAX_TOP_ROW: [[u8; 16]; 7] = {
    let mut out = [[0u8; 16]; 7];
    let mut p = 0;
    while p < 7 {
        let mut mask = 0;
        while mask < 16 {
            let mut o = 0;
            while o < 4 {
                if mask >> o & 1 == 1 && TOP_ROW[p][o] > out[p][mask] {
                    out[p][mask] = TOP_ROW[p][o];
                }
                o += 1;
            }
            mask += 1;
        }
        p += 1;
    }
    out
};

/// Iterates the set bits of a word.
pub(crate) struct BitIter(u64);

impl Iterator for BitIter {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            None
        } else {
            let bit = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            Some(bit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::Piece;

    #[test]
    fn fit_tables_respect_the_walls() {
        // I horizontal (o0, row 1 = 0b1111) fits at x = 0..=6 in an empty row.
        let w = FIT[Piece::I.index()][1][0] & 0xFFFF;
        assert_eq!(w, 0b111_1111 << X_OFFSET);
        // Nothing fits in the floor except boxes whose row is empty.
        assert_eq!(FIT[Piece::O.index()][1][FLOOR], 0);
        assert_eq!(FIT[Piece::O.index()][0][FLOOR], FIT[Piece::O.index()][0][0]);
    }

    #[test]
    fn spread_fills_runs_both_ways() {
        let f = 0b0111_0111_1110u64;
        assert_eq!(spread_horizontal(0b0000_0010_0000, f), 0b0000_0111_1110);
        assert_eq!(spread_horizontal(0b0100_0000_0010, f), f);
    }

    #[test]
    fn bits_and_positions_round_trip() {
        for o in 0..4 {
            for x in -2..=8 {
                let b = bit(x, o);
                assert_eq!(positions(b).collect::<Vec<_>>(), vec![(x, o)]);
            }
        }
    }
}
