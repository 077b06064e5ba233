//! Where a piece can go: every cell some reachable position of the piece
//! covers, and the deepest row a lock that clears nothing reaches.
//!
//! The heuristic's S-based terms (see [`crate::heuristic::terms`]) ask
//! which open cells an S can ever fill and how deep it or a Z can go
//! without clearing. Both come from the same wave search as the
//! placements: the wave at box row `y` is the set of positions reachable
//! with the box's top row at `y`, and the cells those positions cover are
//! found for a whole orientation at once by shifting the wave's field by
//! each cell of the shape's row (no per-position loop). Lock positions are
//! the wave's positions that cannot move down, as in [`super::Placements`].
//!
//! Positions wholly above the stack are all reachable, so every live row
//! above the first box row searched is covered (an S or Z box passes
//! through every cell of an empty row on its way down); the slow twin in
//! the tests (a breadth-first search from the spawn) checks this.

use super::wave::{positions, Slices, Transition, FIELD, FREE};
use super::Direct;
use crate::piece::{Piece, SHAPES};
use crate::place::{cell_rows, locks_above_bar, rows_completed};
use crate::well::{Well, BAR, FULL_ROW, LIVE_ROWS};

/// Where one piece can go in one well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    /// Bit `c` of `cells[i]` is set when some position reachable from the
    /// spawn covers the cell at game row `i + 4`, column `c`.
    pub cells: [u16; LIVE_ROWS],
    /// The deepest game row (0 = top, 19 = bottom) covered by a lock
    /// position that completes no row and ends nothing (its cells are all
    /// below the bar); `None` when every lock clears or ends the game.
    pub deepest_without_clear: Option<u32>,
}

/// Runs the wave search for `piece`, keeping every reachable position.
pub(crate) fn generate(s: &Slices, well: &Well, piece: Piece) -> Reach {
    let p = piece.index();
    let mut cells = [0u16; LIVE_ROWS];
    let mut y = s.top() - BAR;
    // Rows above the first box row searched are empty and every position
    // over them is reachable: the boxes of the three rows above cover the
    // first box row's top cells (an S box's top row holds at most one
    // cell), and every cell further up is covered by some box up there.
    cells[..y.saturating_sub(BAR)].fill(FULL_ROW);
    for above in y.saturating_sub(3)..y {
        cover(&mut cells, piece, FREE[p], above);
    }
    let mut wave = FREE[p];
    let mut deepest: Option<u32> = None;
    loop {
        cover(&mut cells, piece, wave, y);
        let below = s.fit(p, y + 1);
        let locks = wave & !below;
        let may_clear = (s.near_full >> y) & 0xF != 0;
        for (x, o) in positions(locks) {
            if locks_above_bar(piece, o, y) {
                continue;
            }
            let rows = cell_rows(piece, o, x);
            if may_clear && rows_completed(well, rows, y) > 0 {
                continue;
            }
            let bottom = rows
                .iter()
                .rposition(|&r| r != 0)
                .expect("a shape has cells");
            let row = (y + bottom) as u32;
            deepest = Some(deepest.map_or(row, |d| d.max(row)));
        }
        let seed = wave & below;
        if seed == 0 {
            break;
        }
        y += 1;
        wave = Direct.step(seed, below);
    }
    Reach {
        cells,
        deepest_without_clear: deepest,
    }
}

/// ORs into `cells` the cells of every position of `wave` (box top row `y`).
#[inline(always)]
fn cover(cells: &mut [u16; LIVE_ROWS], piece: Piece, wave: u64, y: usize) {
    for (o, shape) in SHAPES[piece.index()].iter().enumerate() {
        // Bit xi = x + 2 of the field is box column x.
        let field = (wave >> (o as u32 * FIELD)) & 0x7FF;
        if field == 0 {
            continue;
        }
        for (r, &row) in shape.iter().enumerate() {
            let game_row = y + r;
            if row == 0 || game_row < BAR {
                continue;
            }
            let mut covered = 0u64;
            let mut bits = row;
            while bits != 0 {
                let c = bits.trailing_zeros();
                covered |= field << c;
                bits &= bits - 1;
            }
            if let Some(out) = cells.get_mut(game_row - BAR) {
                *out |= (covered >> 2) as u16 & FULL_ROW;
            }
        }
    }
}
