//! The lock positions of one piece in one well, as one wave per box row.

use super::wave::{positions, Stack, Transition, BOX_ROWS, FIELD, FREE};
use super::Direct;
use crate::piece::{Piece, CANON};
use crate::well::{Well, BAR};

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
        Self::generate_in(&Stack::new(well), piece)
    }

    pub(crate) fn generate_in(s: &Stack, piece: Piece) -> Placements {
        Self::generate_with(s, piece, &mut Direct)
    }

    #[inline(always)]
    fn generate_with<T: Transition>(s: &Stack, piece: Piece, t: &mut T) -> Placements {
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

    /// The box rows `y` that may hold a lock position.
    pub fn rows(&self) -> std::ops::Range<usize> {
        self.y_range.0 as usize..self.y_range.1 as usize
    }

    /// The lock wave for box row `y`.
    pub fn locks_at(&self, y: usize) -> u64 {
        self.locks[y]
    }

    /// Every lock position as `(x, y, o)`, in order of `y`, then `o`, then `x`.
    pub fn positions(&self) -> impl Iterator<Item = (i32, usize, usize)> + '_ {
        self.rows()
            .flat_map(move |y| positions(self.locks[y]).map(move |(x, o)| (x, y, o)))
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

    /// The lock wave at box row `y` as [`Placements::merge_repeated_shapes`]
    /// would leave it, without merging the other rows: the canonical
    /// orientations' own positions at `y` and those moved there from the
    /// rows their repeats lock at. For a caller that reads a few rows.
    pub(crate) fn merged_locks_at(&self, y: usize) -> u64 {
        debug_assert!(!self.merged, "merged already");
        let canon = &CANON[self.piece.index()];
        let mut w = 0u64;
        for (o, c) in canon.iter().enumerate() {
            let at = o as u32 * FIELD;
            if c.canon as usize == o {
                w |= self.locks[y] & (0xFFFF << at);
                continue;
            }
            let from = y as i32 - c.dy as i32;
            if !(0..BOX_ROWS as i32).contains(&from) {
                continue;
            }
            let field = (self.locks[from as usize] >> at) & 0xFFFF;
            let shifted = if c.dx >= 0 {
                field << c.dx
            } else {
                field >> -c.dx
            };
            w |= shifted << (c.canon as u32 * FIELD);
        }
        w
    }

    /// Number of lock positions (distinct placements once merged).
    pub fn count(&self) -> usize {
        self.locks.iter().map(|w| w.count_ones() as usize).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::well::LIVE_ROWS;

    /// The rows one at a time equal the whole merge, on random stacks.
    #[test]
    fn merged_locks_at_equals_the_merge() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for n in 0..400 {
            let mut rows = [0u16; LIVE_ROWS];
            for r in rows.iter_mut().skip(4 + n % 12) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *r = (x & 0x3FF) as u16;
            }
            let well = Well::from_live_rows_unchecked(rows);
            for piece in Piece::ALL {
                let pl = Placements::generate(&well, piece);
                let mut merged = pl;
                merged.merge_repeated_shapes();
                for y in 0..BOX_ROWS {
                    assert_eq!(
                        pl.merged_locks_at(y),
                        merged.locks_at(y),
                        "{rows:?} {piece:?} {y}"
                    );
                }
            }
        }
    }
}
