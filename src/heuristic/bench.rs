//! The evaluation bench behind `hatetris bench eval`.
//!
//! The workload is fixed: every live child of all seven pieces of each
//! given well (for the 2,000 wells of `data/bench-wells.txt`), each scored
//! with the 86-line weights and the child's own line count as its score.
//! Building the children is not timed. The cost sum is a determinism
//! signature: a refactor that changes it changed the heuristic.

use std::time::Instant;

use serde::Serialize;

use super::{Knewjade, Weights};
use crate::evaluate::Evaluator;
use crate::movegen::{Child, MoveGen};
use crate::piece::Piece;
use crate::well::Well;

/// Timed runs per bench; the median is reported.
pub const RUNS: usize = 5;

/// The result of [`bench_eval`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvalBench {
    /// The lookahead depth, if on.
    pub quiescent: Option<u8>,
    /// Wells whose children were scored.
    pub wells: usize,
    /// Children scored per run.
    pub children: usize,
    /// Median over [`RUNS`] runs of the time per child, in µs.
    pub us_per_child: f64,
    /// Every run's time per child, in µs.
    pub runs_us_per_child: Vec<f64>,
    /// Sum of all the children's costs (a determinism signature).
    pub cost_sum: f64,
}

/// Every live child of all seven pieces of each well.
pub fn bench_children(wells: &[Well]) -> Vec<Child> {
    let mut out = Vec::new();
    for well in wells {
        let gen = MoveGen::new(well);
        for piece in Piece::ALL {
            gen.children(piece, &mut out);
        }
    }
    out
}

/// Times [`Evaluator::cost`] over the children of `wells` on this thread
/// (see the module doc); `quiescent` as in [`Knewjade::new`].
pub fn bench_eval(wells: &[Well], weights: Weights, quiescent: Option<u8>) -> EvalBench {
    let children = bench_children(wells);
    let eval = Knewjade::new(weights, quiescent);
    let mut runs = Vec::with_capacity(RUNS);
    let mut cost_sum = 0.0;
    for _ in 0..RUNS {
        let start = Instant::now();
        let mut sum = 0.0;
        for c in &children {
            sum += eval.cost(std::hint::black_box(&c.well), f64::from(c.lines));
        }
        let secs = start.elapsed().as_secs_f64();
        cost_sum = std::hint::black_box(sum);
        runs.push(secs * 1e6 / children.len().max(1) as f64);
    }
    let mut sorted = runs.clone();
    sorted.sort_by(f64::total_cmp);
    EvalBench {
        quiescent: eval.quiescent(),
        wells: wells.len(),
        children: children.len(),
        us_per_child: sorted[RUNS / 2],
        runs_us_per_child: runs,
        cost_sum,
    }
}
