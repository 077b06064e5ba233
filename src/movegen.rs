//! Move generation with waves.
//!
//! # Waves
//! A *wave* is the set of positions `(x, o)` a piece can be in with its box's
//! top row at some `y`, as one `u64`: orientation `o` owns bits
//! `16·o .. 16·o + 16`, and within it bit `xi = x + 2` stands for column `x`
//! (`x` runs from −2, where only I's vertical box still fits, to 8). Bits
//! 11..16 of each field are never valid positions, so shifting a wave left or
//! right by one never carries a position into a neighbouring orientation, and
//! `rotate_left(16)` is the `U` key (o → o + 1 mod 4) for all positions at once.
//!
//! # One step down
//! Which positions fit with the box at `y` depends only on the four well rows
//! `y..y+4` (the *slice*). `FIT[piece][r][row]` is the set of positions whose
//! box row `r` does not collide with a well row (or with the walls; index 1024
//! stands for the floor), so the positions that fit at `y` are the AND of four
//! table loads. The game has no up key, so the wave at `y + 1` is the closure,
//! under `L`, `R` and `U` within the positions that fit, of the positions of the
//! wave at `y` that can move down. Positions of the wave at `y` that cannot move
//! down are exactly the lock positions at `y`. The closure fills each run of
//! free columns with one add (carry propagation spreads right) and a
//! four-step doubling fill (spreads left), then rotates; it repeats until a
//! rotation adds nothing, usually once or twice.
//!
//! The slice-to-fit step is a direct-indexed table (`FIT`, 7 × 4 × 1025 u64s,
//! 224 KiB, built at compile time), and the closure is recomputed each time.
//! Caching whole (wave, slice) → wave transitions in an `ahash` map, as the
//! article did, was measured against it ([`Direct`] vs [`Cached`], in one
//! process, over the 2,000 bench wells; `hatetris bench movegen
//! --transitions`): the piece choice took 0.830 µs per well direct vs
//! 0.901 µs with the map (4,527 distinct transitions), and 0.98–1.09× the
//! direct time over four quiet runs. The direct table is kept: never slower
//! to within noise, no memory that grows with the transitions met, and
//! nothing shared between threads.
//!
//! Above the stack every position fits and every one is reachable from the
//! spawn, so the search starts at the last box row that is wholly above the
//! stack with the full wave, not at the spawn row.
//!
//! # Placements
//! A lock position `(x, y, o)` and the cells it covers are different things:
//! I, S, Z and O repeat shapes between orientations. The lock waves of a
//! repeated orientation are moved onto its canonical orientation (see
//! [`crate::piece::CANON`]), after which every set bit is one distinct set of
//! cells and so one distinct child. No hashing is needed to deduplicate.

use crate::piece::{Piece, CANON, SHAPES, TOP_ROW};
use crate::well::{Board, Well, BAR, FULL_ROW, HEIGHT};

/// Bits per orientation in a wave.
const FIELD: u32 = 16;
/// Box column offset: bit `xi` of a field is column `x = xi - X_OFFSET`.
const X_OFFSET: i32 = 2;
/// Index into `FIT` that stands for the floor below the well.
const FLOOR: usize = 1024;
/// Lock rows tracked: a box's top row is at most 19.
const BOX_ROWS: usize = HEIGHT;

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
static FREE: [u64; 7] = {
    let mut out = [0; 7];
    let mut p = 0;
    while p < 7 {
        out[p] = free_wave(p);
        p += 1;
    }
    out
};

/// Rows of piece cells for a placement, as well-row masks: `CELLS[p][o][xi][r]`.
static CELLS: [[[[u16; 4]; 11]; 4]; 7] = {
    let mut out = [[[[0u16; 4]; 11]; 4]; 7];
    let mut p = 0;
    while p < 7 {
        let mut o = 0;
        while o < 4 {
            let mut xi = 0;
            while xi < 11 {
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

/// The well's rows as `FIT` indices, with the floor below: `rows[y]` for
/// `y` in `0..24`.
#[derive(Clone, Copy)]
struct Slices {
    rows: [u16; HEIGHT + 4],
    /// Bit `y` is set when row `y` has at least 6 cells, so that one piece
    /// could complete it.
    near_full: u32,
    /// Index of the first non-empty row (20 if none).
    top: usize,
}

impl Slices {
    fn new(well: &Well) -> Slices {
        let mut rows = [FLOOR as u16; HEIGHT + 4];
        rows[..BAR].fill(0);
        rows[BAR..HEIGHT].copy_from_slice(well.rows());
        let mut near_full = 0u32;
        for (i, &r) in well.rows().iter().enumerate() {
            if r.count_ones() >= 6 {
                near_full |= 1 << (i + BAR);
            }
        }
        Slices {
            rows,
            near_full,
            top: well.top(),
        }
    }

    /// Positions of piece `p` that fit with the box's top row at `y`.
    #[inline(always)]
    fn fit(&self, p: usize, y: usize) -> u64 {
        let t = &FIT[p];
        t[0][self.rows[y] as usize]
            & t[1][self.rows[y + 1] as usize]
            & t[2][self.rows[y + 2] as usize]
            & t[3][self.rows[y + 3] as usize]
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

/// Every lock position of one piece in one well.
///
/// `locks[y]` is the wave of positions with the box's top row at `y` where
/// a `D` is blocked. After [`Placements::merge_repeated_shapes`], each set
/// bit is one distinct set of cells.
#[derive(Clone, Copy, Debug)]
pub struct Placements {
    piece: Piece,
    locks: [u64; BOX_ROWS],
    /// First and one-past-last `y` with any lock.
    y_range: (u8, u8),
    merged: bool,
}

impl Placements {
    /// Runs the wave search for `piece` in `well`.
    pub fn generate(well: &Well, piece: Piece) -> Placements {
        Self::generate_in(&Slices::new(well), piece)
    }

    fn generate_in(s: &Slices, piece: Piece) -> Placements {
        Self::generate_with(s, piece, &mut Direct)
    }

    #[inline(always)]
    fn generate_with<T: Transition>(s: &Slices, piece: Piece, t: &mut T) -> Placements {
        let p = piece.index();
        let mut locks = [0u64; BOX_ROWS];
        // The last box row wholly above the stack: every free position there
        // is reachable from the spawn.
        let mut y = s.top - BAR;
        let y_start = y;
        let mut wave = FREE[p];
        loop {
            let below = s.fit(p, y + 1);
            locks[y] = wave & !below;
            let seed = wave & below;
            if seed == 0 {
                break;
            }
            y += 1;
            wave = t.step(seed, below);
        }
        Placements {
            piece,
            locks,
            y_range: (y_start as u8, y as u8 + 1),
            merged: false,
        }
    }

    /// The piece.
    pub fn piece(&self) -> Piece {
        self.piece
    }

    /// The lock wave for box row `y`.
    pub fn locks_at(&self, y: usize) -> u64 {
        self.locks[y]
    }

    /// Every lock position as `(x, y, o)`, in order of `y`, then `o`, then `x`.
    pub fn positions(&self) -> impl Iterator<Item = (i32, usize, usize)> + '_ {
        (self.y_range.0 as usize..self.y_range.1 as usize).flat_map(move |y| {
            BitIter(self.locks[y]).map(move |bit| {
                let o = (bit / FIELD) as usize;
                let xi = (bit % FIELD) as i32;
                (xi - X_OFFSET, y, o)
            })
        })
    }

    /// Moves the lock positions of repeated shapes onto their canonical
    /// orientation, so each bit is one distinct set of cells.
    pub fn merge_repeated_shapes(&mut self) {
        if self.merged {
            return;
        }
        self.merged = true;
        let canon = &CANON[self.piece.index()];
        let (lo, hi) = (self.y_range.0 as usize, self.y_range.1 as usize);
        let (mut new_lo, mut new_hi) = (lo, hi);
        for y in lo..hi {
            let w = self.locks[y];
            let mut moved = 0u64;
            for (o, c) in canon.iter().enumerate() {
                let field = (w >> (o as u32 * FIELD)) & 0xFFFF;
                if c.canon as usize == o || field == 0 {
                    continue;
                }
                moved |= 0xFFFF << (o as u32 * FIELD);
                // Position xi of orientation o covers the cells of the
                // canonical orientation at xi + dx, one box row dy away.
                let shifted = if c.dx >= 0 {
                    field << c.dx
                } else {
                    field >> -c.dx
                };
                let ty = y as i32 + c.dy as i32;
                debug_assert!(
                    (0..BOX_ROWS as i32).contains(&ty),
                    "a lock cannot leave the well"
                );
                let ty = ty as usize;
                self.locks[ty] |= shifted << (c.canon as u32 * FIELD);
                new_lo = new_lo.min(ty);
                new_hi = new_hi.max(ty + 1);
            }
            // Only non-canonical fields move, and nothing ever moves into
            // one, so clearing them here cannot lose a merged position.
            self.locks[y] &= !moved;
        }
        self.y_range = (new_lo as u8, new_hi as u8);
    }

    /// Number of lock positions (distinct placements once merged).
    pub fn count(&self) -> usize {
        self.locks.iter().map(|w| w.count_ones() as usize).sum()
    }
}

/// Bit `o` is set when orientation `o`'s field of the wave is not empty.
#[inline(always)]
fn field_mask(w: u64) -> usize {
    ((w & 0xFFFF != 0) as usize)
        | (((w >> 16) & 0xFFFF != 0) as usize) << 1
        | (((w >> 32) & 0xFFFF != 0) as usize) << 2
        | (((w >> 48) != 0) as usize) << 3
}

/// `MAX_TOP_ROW[p][mask]`: the largest first box row over the orientations
/// in `mask` (see [`field_mask`]).
static MAX_TOP_ROW: [[u8; 16]; 7] = {
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
struct BitIter(u64);

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

/// A live child: the well after a lock and its line clears.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Child {
    /// The resulting well.
    pub well: Well,
    /// Lines cleared by this lock (0..=4).
    pub lines: u8,
}

/// Any outcome of a lock, including those that end the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Outcome {
    /// The game's 20-row board after the lock (and clears, if any).
    pub board: Board,
    /// Lines cleared (0..=4); always 0 when the lock ends the game.
    pub lines: u8,
}

impl Outcome {
    /// Whether the lock left blocks above the bar, ending the game.
    pub fn is_game_over(&self) -> bool {
        self.board[BAR - 1] != 0
    }
}

/// Locks `piece` at `(x, y, o)` (with `xi = x + 2`) into a board and applies
/// the game's clearing rule: rows of the piece's box that are full are
/// removed, top to bottom, but only when the piece's top cell is at or
/// below the bar. Returns the lines cleared.
pub fn lock_into(board: &mut Board, piece: Piece, x: i32, y: usize, o: usize) -> u8 {
    let cells = &CELLS[piece.index()][o][(x + X_OFFSET) as usize];
    for r in 0..4 {
        if cells[r] != 0 {
            board[y + r] |= cells[r];
        }
    }
    if y + (TOP_ROW[piece.index()][o] as usize) < BAR {
        return 0;
    }
    let mut lines = 0;
    for (r, &c) in cells.iter().enumerate() {
        let row = y + r;
        if row < HEIGHT && c != 0 && board[row] == FULL_ROW {
            board.copy_within(0..row, 1);
            board[0] = 0;
            lines += 1;
        }
    }
    lines
}

/// The move generator's entry points for one well.
///
/// Holds the well's slices so that several pieces can be generated without
/// re-reading the well.
#[derive(Clone, Copy)]
pub struct MoveGen {
    well: Well,
    slices: Slices,
}

impl MoveGen {
    /// Prepares move generation in `well`.
    pub fn new(well: &Well) -> MoveGen {
        MoveGen {
            well: *well,
            slices: Slices::new(well),
        }
    }

    /// The well.
    pub fn well(&self) -> &Well {
        &self.well
    }

    /// All lock positions of `piece`.
    pub fn placements(&self, piece: Piece) -> Placements {
        Placements::generate_in(&self.slices, piece)
    }

    /// The piece's *highest peak*: over every well that locking `piece` can
    /// produce (game-over wells included), the largest index of the first
    /// non-empty row (20 for an empty well). This is the player's best case,
    /// which the HATETRIS enemy minimises. No well is built.
    pub fn highest_peak(&self, piece: Piece) -> usize {
        self.highest_peak_with(piece, &mut Direct)
    }

    /// [`MoveGen::highest_peak`] with a chosen way of computing transitions.
    pub fn highest_peak_with<T: Transition>(&self, piece: Piece, t: &mut T) -> usize {
        self.peak_scan(piece, usize::MAX, t)
    }

    /// The piece's highest peak if it is below `stop_at`; otherwise some
    /// value `>= stop_at` (the scan stops as soon as it knows).
    ///
    /// The min-max choice only needs to know whether a later piece beats the
    /// best so far, so it passes that as `stop_at`.
    pub fn highest_peak_below(&self, piece: Piece, stop_at: usize) -> usize {
        self.peak_scan(piece, stop_at, &mut Direct)
    }

    /// The wave search fused with the peak computation.
    ///
    /// A lock gives `min(top, piece top) + lines`, so no lock can do better
    /// than `top + min(4, rows that could be completed)`; once a lock reaches
    /// that (or `stop_at`), the rest of the well cannot change the answer.
    #[inline(always)]
    fn peak_scan<T: Transition>(&self, piece: Piece, stop_at: usize, t: &mut T) -> usize {
        let s = &self.slices;
        let p = piece.index();
        let cap = s.top + (s.near_full.count_ones() as usize).min(4);
        let stop = stop_at.min(cap);
        let mut best = 0usize;
        let mut y = s.top - BAR;
        let mut wave = FREE[p];
        loop {
            let below = s.fit(p, y + 1);
            let lock = wave & !below;
            if lock != 0 {
                if (s.near_full >> y) & 0xF == 0 {
                    // No row here can be completed: the result's first row is
                    // the higher of the stack's and the piece's.
                    let piece_top = y + MAX_TOP_ROW[p][field_mask(lock)] as usize;
                    best = best.max(piece_top.min(s.top));
                } else {
                    for bit in BitIter(lock) {
                        let o = (bit / FIELD) as usize;
                        let xi = (bit % FIELD) as usize;
                        best = best.max(self.peak_after(piece, xi, y, o));
                    }
                }
                if best >= stop {
                    return best;
                }
            }
            let seed = wave & below;
            if seed == 0 {
                return best;
            }
            y += 1;
            wave = t.step(seed, below);
        }
    }

    /// Whether some reachable placement of `piece` clears at least one line.
    /// (A lock above the bar clears nothing, so it does not count.)
    pub fn can_clear(&self, piece: Piece) -> bool {
        let s = &self.slices;
        if s.near_full == 0 {
            return false;
        }
        let pl = self.placements(piece);
        let p = piece.index();
        for y in pl.y_range.0 as usize..pl.y_range.1 as usize {
            if (s.near_full >> y) & 0xF == 0 {
                continue;
            }
            for bit in BitIter(pl.locks[y]) {
                let o = (bit / FIELD) as usize;
                let xi = (bit % FIELD) as usize;
                if y + (TOP_ROW[p][o] as usize) < BAR {
                    continue;
                }
                let cells = &CELLS[p][o][xi];
                if (0..4).any(|r| cells[r] != 0 && (self.well.row(y + r) | cells[r]) == FULL_ROW) {
                    return true;
                }
            }
        }
        false
    }

    /// First non-empty row after locking at `(xi, y, o)`, clears included.
    ///
    /// A live stack has no empty row under a filled one, and a locked piece
    /// touches what holds it up, so the merged stack is contiguous: its first
    /// row moves down by exactly the number of rows cleared.
    fn peak_after(&self, piece: Piece, xi: usize, y: usize, o: usize) -> usize {
        let p = piece.index();
        let piece_top = y + TOP_ROW[p][o] as usize;
        let merged_top = piece_top.min(self.slices.top);
        if piece_top < BAR {
            return merged_top;
        }
        let cells = &CELLS[p][o][xi];
        let lines = cells
            .iter()
            .enumerate()
            .filter(|&(r, &c)| c != 0 && (self.well.row(y + r) | c) == FULL_ROW)
            .count();
        merged_top + lines
    }

    /// Appends the live children of `piece` to `out` (game-over locks are
    /// skipped). Each child is a distinct well, except that two different
    /// placements can in principle clear down to the same well; see
    /// [`MoveGen::outcomes`] for the fully deduplicated list.
    pub fn children(&self, piece: Piece, out: &mut Vec<Child>) {
        let mut pl = self.placements(piece);
        pl.merge_repeated_shapes();
        let p = piece.index();
        let s = &self.slices;
        for y in pl.y_range.0 as usize..pl.y_range.1 as usize {
            let w = pl.locks[y];
            if w == 0 {
                continue;
            }
            let may_clear = (s.near_full >> y) & 0xF != 0;
            for bit in BitIter(w) {
                let o = (bit / FIELD) as usize;
                if y + (TOP_ROW[p][o] as usize) < BAR {
                    continue; // game over
                }
                let xi = (bit % FIELD) as usize;
                let cells = &CELLS[p][o][xi];
                let mut rows = *self.well.rows();
                let mut lines = 0u8;
                for (r, &c) in cells.iter().enumerate() {
                    if c == 0 {
                        continue;
                    }
                    let i = y + r - BAR;
                    rows[i] |= c;
                    if may_clear && rows[i] == FULL_ROW {
                        rows.copy_within(0..i, 1);
                        rows[0] = 0;
                        lines += 1;
                    }
                }
                out.push(Child {
                    well: Well::from_live_rows_unchecked(rows),
                    lines,
                });
            }
        }
    }

    /// Every distinct outcome of locking `piece`, game-over ones included,
    /// sorted by board rows and then lines: exactly the game's
    /// `getNextCoreStates` set, in the golden vectors' order.
    pub fn outcomes(&self, piece: Piece) -> Vec<Outcome> {
        let mut pl = self.placements(piece);
        pl.merge_repeated_shapes();
        let board = self.well.to_board();
        let mut out: Vec<Outcome> = pl
            .positions()
            .map(|(x, y, o)| {
                let mut b = board;
                let lines = lock_into(&mut b, piece, x, y, o);
                Outcome { board: b, lines }
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
