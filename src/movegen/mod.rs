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

mod clears;
mod placements;
mod reach;
mod wave;

pub use clears::{candidate_rows, CLEAR_PATTERNS};
pub(crate) use clears::{clear_pattern_bytes, for_each_clear, rows_of};
pub use placements::Placements;
pub use reach::Reach;
pub(crate) use wave::spread_horizontal;
pub use wave::{Cached, Direct, Transition};

use crate::piece::{Piece, TOP_ROW};
use crate::place::{cell_rows, lock_board, locks_above_bar, place_and_clear, rows_completed};
use crate::well::{Board, Well, BAR};
use wave::{field_mask, positions, Slices, FREE, MAX_TOP_ROW};

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
        Placements::generate_in(&self.slices.stack, piece)
    }

    /// Every cell `piece` can reach and the deepest lock that clears
    /// nothing ([`Reach`]).
    pub fn reach(&self, piece: Piece) -> Reach {
        reach::generate(&self.slices, &self.well, piece)
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
        let cap = s.top() + (s.near_full.count_ones() as usize).min(4);
        let stop = stop_at.min(cap);
        let mut best = 0usize;
        let mut y = s.top() - BAR;
        let mut wave = FREE[p];
        loop {
            let below = s.fit(p, y + 1);
            let lock = wave & !below;
            if lock != 0 {
                if (s.near_full >> y) & 0xF == 0 {
                    // No row here can be completed: the result's first row is
                    // the higher of the stack's and the piece's.
                    let piece_top = y + MAX_TOP_ROW[p][field_mask(lock)] as usize;
                    best = best.max(piece_top.min(s.top()));
                } else {
                    for (x, o) in positions(lock) {
                        best = best.max(self.peak_after(piece, x, y, o));
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
        for y in pl.rows() {
            if (s.near_full >> y) & 0xF == 0 {
                continue;
            }
            for (x, o) in positions(pl.locks_at(y)) {
                if !locks_above_bar(piece, o, y)
                    && rows_completed(&self.well, cell_rows(piece, o, x), y) > 0
                {
                    return true;
                }
            }
        }
        false
    }

    /// First non-empty row after locking at `(x, y, o)`, clears included.
    ///
    /// A live stack has no empty row under a filled one, and a locked piece
    /// touches what holds it up, so the merged stack is contiguous: its first
    /// row moves down by exactly the number of rows cleared.
    fn peak_after(&self, piece: Piece, x: i32, y: usize, o: usize) -> usize {
        let piece_top = y + TOP_ROW[piece.index()][o] as usize;
        let merged_top = piece_top.min(self.slices.top());
        if piece_top < BAR {
            return merged_top;
        }
        merged_top + rows_completed(&self.well, cell_rows(piece, o, x), y) as usize
    }

    /// Appends the live children of `piece` to `out` (game-over locks are
    /// skipped). Each child is a distinct well, except that two different
    /// placements can in principle clear down to the same well; see
    /// [`MoveGen::outcomes`] for the fully deduplicated list.
    pub fn children(&self, piece: Piece, out: &mut Vec<Child>) {
        let mut pl = self.placements(piece);
        pl.merge_repeated_shapes();
        let s = &self.slices;
        for y in pl.rows() {
            let w = pl.locks_at(y);
            if w == 0 {
                continue;
            }
            // Only a box over a row with six cells or more can clear.
            let may_clear = (s.near_full >> y) & 0xF != 0;
            for (x, o) in positions(w) {
                if locks_above_bar(piece, o, y) {
                    continue; // game over
                }
                let mut rows = *self.well.rows();
                let lines = place_and_clear(&mut rows, BAR, cell_rows(piece, o, x), y, may_clear);
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
                let lines = lock_board(&mut b, piece, x, y, o);
                Outcome { board: b, lines }
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}
