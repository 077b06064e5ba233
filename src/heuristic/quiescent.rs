//! The quiescent ("bird in hand") lookahead.
//!
//! A well that is one S away from a line clear is worth more than its shape
//! says, because the game hands out S whenever nothing worse exists. The
//! lookahead scores a well by the best cost along chains of single-line
//! clears:
//!
//! - from a well, the next hypothetical piece is S, and the chain continues
//!   through every reachable S placement that clears exactly one line;
//! - if some S placement would clear two or more lines, the game would
//!   not hand out that S, so Z takes its place: the chain continues through
//!   every Z placement that clears exactly one line;
//! - lines cleared inside the chain are hypothetical and count at half
//!   weight in the score term;
//! - the chain stops after `depth` clears, or where no such clear exists.
//!
//! The value is the minimum cost over the well itself and every well along
//! every chain, so the lookahead never makes a well look worse. The search
//! is a depth-first walk with no allocation: each step is one wave search
//! for S (and one for Z when S clears two), and the rare well with many
//! clears is bounded by the depth cap.

use super::terms::{candidate_rows, for_each_clear, terms};
use super::Evaluator;
use crate::piece::Piece;
use crate::well::Well;

/// The deepest chain [`Evaluator`] accepts; deeper requests are clamped.
pub const MAX_QUIESCENT_DEPTH: u8 = 32;

/// The best point of a chain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainBest {
    /// Its cost (lower is better), hypothetical lines at half weight.
    pub cost: f64,
    /// The well at that point (the evaluated well itself if no chain helps).
    pub well: Well,
    /// Number of hypothetical clears to get there; each cleared one line.
    pub steps: u8,
    /// Bit `i` set when step `i` used Z (because an S would clear two lines).
    pub z_steps: u32,
}

/// Walks every chain from `well` (whose real score is `score`) up to `depth`
/// clears and returns the best point.
pub fn best_along_chain(eval: &Evaluator, well: &Well, score: u32, depth: u8) -> ChainBest {
    let mut best = ChainBest {
        cost: eval.terms_cost(&terms(well), score as f64),
        well: *well,
        steps: 0,
        z_steps: 0,
    };
    walk(
        eval,
        well,
        score as f64,
        depth.min(MAX_QUIESCENT_DEPTH),
        0,
        0,
        &mut best,
    );
    best
}

/// Extends the chain at `well` (reached after `steps` clears, `z_steps` as
/// in [`ChainBest`]); `score` already includes the half-weighted lines.
fn walk(
    eval: &Evaluator,
    well: &Well,
    score: f64,
    depth: u8,
    steps: u8,
    z_steps: u32,
    best: &mut ChainBest,
) {
    if steps >= depth {
        return;
    }
    let rows = candidate_rows(well);
    let (s_rows, z_rows) = (rows[Piece::S.index()], rows[Piece::Z.index()]);
    if s_rows == 0 {
        return;
    }
    let mut s_max = 0u8;
    for_each_clear(well, Piece::S, s_rows, false, |_, lines| {
        s_max = s_max.max(lines);
        s_max >= 2
    });
    let (piece, rows, z_bit) = match s_max {
        0 => return,
        1 => (Piece::S, s_rows, 0),
        _ => (Piece::Z, z_rows, 1u32 << steps),
    };
    if rows == 0 {
        return;
    }
    let next_score = score + 0.5;
    // Merged placements: each distinct child once, so a chain is not walked
    // twice through two orientations that cover the same cells.
    for_each_clear(well, piece, rows, true, |child, lines| {
        if lines == 1 {
            let cost = eval.terms_cost(&terms(&child), next_score);
            if cost < best.cost {
                *best = ChainBest {
                    cost,
                    well: child,
                    steps: steps + 1,
                    z_steps: z_steps | z_bit,
                };
            }
            walk(
                eval,
                &child,
                next_score,
                depth,
                steps + 1,
                z_steps | z_bit,
                best,
            );
        }
        false
    });
}
