//! The knewjade heuristic: the value the beam search ranks wells by.
//!
//! # Convention
//! The value is a **cost: lower is better**, everywhere: in [`Evaluator::cost`],
//! in the weights file, and in `hatetris eval`. It is the weighted sum
//!
//! ```text
//! cost = holes·w_h + enclosed_holes·w_e + lines_with_enclosed_holes·w_l
//!      + surface_height·w_s + Σ_piece erasable[piece]·w_erase[piece]
//!      + score·w_score
//! ```
//!
//! # Terms ([`terms`](mod@terms) has one function each)
//! - **holes**: empty cells with a filled cell somewhere above in the column;
//! - **enclosed holes**: empty cells not on the *surface*, the cells a 1×1
//!   block dropped from above reaches by moving left, right and down;
//! - **lines with enclosed holes**: rows with at least one enclosed hole;
//! - **surface height**: the game row (0 = top, 19 = bottom) of the lowest
//!   surface row, or the deepest such row one S or Z line clear away when an
//!   S or Z can clear. Counted from the top, so larger is better and its
//!   weight is negative;
//! - **erasability**: for each of S Z O I L J T independently, 1 if some
//!   reachable placement of that piece clears a line;
//! - **score**: lines cleared so far in the game.
//!
//! The three hole terms count only the rows down to the surface height
//! (below, the stack is out of reach), and with the lookahead on only down
//! to the lowest surface row before the S/Z exception, so that holes an S or
//! Z clear would free are not counted ([`HoleRegion`] has the measurements).
//!
//! # Design
//! [`Heuristic`] holds only the weights and the hole region, so it is
//! `Copy`, `Send` and `Sync`, and a call allocates nothing: the geometric
//! terms are one pass over the 16 row masks; erasability first matches each
//! row's gap against the pieces' box rows (a 1 KiB compile-time table),
//! settles most pieces by enumerating the few clearing positions and
//! checking for a straight drop, and runs the move generator's wave search
//! only for the rest (see [`terms`](mod@terms)). Clearing placements are
//! built in a stack array, never in a `Vec`.
//!
//! Rejected: building the children of all seven pieces with
//! `MoveGen::children` and scanning them (allocates and builds every child
//! where one clearing lock is enough); checking S first and the other pieces
//! only when S clears (the published mistake: each piece is independent).
//!
//! [`Heuristic`] implements the search's [`Evaluator`] seam; the quiescent
//! lookahead is a wrapper around any evaluator
//! ([`crate::evaluate::Lookahead`]), and [`Knewjade`] is the pair as the
//! search runs them. The bench used by `hatetris bench eval` is in
//! [`bench`](mod@bench).

pub mod bench;
pub mod terms;
pub mod weights;

use std::fmt::Write as _;

use serde::Serialize;

pub use bench::{bench_eval, EvalBench};
pub use terms::{
    enclosed_holes, erasability, erasable, holes, lines_with_enclosed_holes, surface,
    surface_bottom, surface_height, terms, terms_with, terms_with_reach, HoleRegion, ReachTerms,
    Terms,
};
pub use weights::{Weights, WeightsError, WEIGHT_NAMES};

use crate::evaluate::{Evaluator, Identity, Lookahead, HYPOTHETICAL_LINE_WEIGHT};
use crate::piece::Piece;
use crate::well::Well;

/// Which definition of the terms this build computes, recorded in the
/// identity of a heuristic that counts holes down to the lowest surface
/// row, so that `--resume` refuses a run made with another definition (the
/// same weights would rank wells differently). One that counts down to the
/// deepened row doesn't record it: both versions count alike there.
///
/// - 1: the hole terms counted down to the surface height, deepened by the
///   S/Z exception.
/// - 2: [`HoleRegion::LowestSurface`] is possible (and chosen with the
///   lookahead): holes an S or Z clear would free are not counted.
pub const TERMS_VERSION: u32 = 2;

/// What the value means, stated once for every output.
pub const CONVENTION: &str = "cost: lower is better";

/// The knewjade heuristic with fixed weights: an [`Evaluator`].
///
/// Cheap to copy and shared freely between threads; no call allocates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Heuristic {
    weights: Weights,
    hole_region: HoleRegion,
}

const _: () = {
    const fn shareable<T: Send + Sync + Copy>() {}
    shareable::<Heuristic>();
};

impl Heuristic {
    /// The heuristic with these weights, hole terms over
    /// [`HoleRegion::DeepenedSurface`].
    pub fn new(weights: Weights) -> Heuristic {
        Heuristic {
            weights,
            hole_region: HoleRegion::DeepenedSurface,
        }
    }

    /// The same heuristic with the hole terms counted over `region`.
    pub fn with_hole_region(self, region: HoleRegion) -> Heuristic {
        Heuristic {
            hole_region: region,
            ..self
        }
    }

    /// The weights.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// Where the hole terms are counted.
    pub fn hole_region(&self) -> HoleRegion {
        self.hole_region
    }

    /// The terms of `well` as this heuristic counts them (the reach terms
    /// only when one of them has a weight).
    pub fn terms(&self, well: &Well) -> Terms {
        match self.weights.uses_reach() {
            false => terms_with(well, self.hole_region),
            true => terms_with_reach(well, self.hole_region),
        }
    }

    /// The weighted sum of known terms; `score` may hold half lines (the
    /// lookahead's hypothetical clears).
    pub fn terms_cost(&self, t: &Terms, score: f64) -> f64 {
        let w = &self.weights;
        let mut cost = t.holes as f64 * w.holes
            + t.enclosed_holes as f64 * w.enclosed_holes
            + t.lines_with_enclosed_holes as f64 * w.lines_with_enclosed_holes
            + t.surface_height as f64 * w.surface_height
            + score * w.score;
        for (e, we) in t.erasable.iter().zip(&w.erasability) {
            if *e {
                cost += we;
            }
        }
        if let Some(r) = &t.reach {
            cost += r.s_surface_height as f64 * w.s_surface_height
                + r.s_unreachable_open_cells as f64 * w.s_unreachable_open_cells
                + r.left_column_height as f64 * w.left_column_height
                + r.right_column_height as f64 * w.right_column_height
                + r.deepest_without_clear as f64 * w.deepest_without_clear
                + r.deepest_after_clear as f64 * w.deepest_after_clear;
        }
        cost
    }

    fn rows(&self, t: &Terms, score: f64) -> Vec<TermRow> {
        let w = &self.weights;
        let mut out = vec![
            TermRow::new("holes", t.holes as f64, w.holes),
            TermRow::new("enclosed holes", t.enclosed_holes as f64, w.enclosed_holes),
            TermRow::new(
                "lines with enclosed holes",
                t.lines_with_enclosed_holes as f64,
                w.lines_with_enclosed_holes,
            ),
            TermRow::new(
                "surface height (row from top)",
                t.surface_height as f64,
                w.surface_height,
            ),
        ];
        for p in Piece::ALL {
            out.push(TermRow::new(
                format!("erasable by {p}"),
                t.erasable[p.index()] as u32 as f64,
                w.erasability[p.index()],
            ));
        }
        out.push(TermRow::new("score (lines)", score, w.score));
        if let Some(r) = &t.reach {
            out.extend([
                TermRow::new(
                    "S surface height (row from top)",
                    r.s_surface_height as f64,
                    w.s_surface_height,
                ),
                TermRow::new(
                    "open cells no S can reach",
                    r.s_unreachable_open_cells as f64,
                    w.s_unreachable_open_cells,
                ),
                TermRow::new(
                    "left column height",
                    r.left_column_height as f64,
                    w.left_column_height,
                ),
                TermRow::new(
                    "right column height",
                    r.right_column_height as f64,
                    w.right_column_height,
                ),
                TermRow::new(
                    "deepest row without a clear (from top)",
                    r.deepest_without_clear as f64,
                    w.deepest_without_clear,
                ),
                TermRow::new(
                    "deepest row after a clear (from top)",
                    r.deepest_after_clear as f64,
                    w.deepest_after_clear,
                ),
            ]);
        }
        out
    }
}

impl Evaluator for Heuristic {
    fn cost(&self, well: &Well, score: f64) -> f64 {
        self.terms_cost(&self.terms(well), score)
    }

    fn identity(&self) -> Identity {
        let id = Identity::new().with("weights", self.weights);
        match self.hole_region {
            HoleRegion::DeepenedSurface => id,
            HoleRegion::LowestSurface => id.with("terms", TERMS_VERSION),
        }
    }
}

/// The knewjade heuristic as the search uses it: with or without the
/// quiescent lookahead, and with the hole region measured best for each
/// ([`HoleRegion`]: the deepened surface without the lookahead, the lowest
/// surface row with it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Knewjade {
    /// No lookahead.
    Plain(Heuristic),
    /// With the lookahead.
    Lookahead(Lookahead<Heuristic>),
}

impl Default for Knewjade {
    /// The 86-line record's weights, no lookahead.
    fn default() -> Knewjade {
        Knewjade::new(Weights::dnf86(), None)
    }
}

impl Knewjade {
    /// These weights; `quiescent` is the lookahead's chain depth (`None`:
    /// off; clamped to [`crate::evaluate::lookahead::MAX_QUIESCENT_DEPTH`]).
    /// The hole region is the weights' own if they name one.
    pub fn new(weights: Weights, quiescent: Option<u8>) -> Knewjade {
        let h = Heuristic::new(weights);
        let region = |default| weights.hole_region.unwrap_or(default);
        match quiescent {
            None => Knewjade::Plain(h.with_hole_region(region(HoleRegion::DeepenedSurface))),
            Some(depth) => Knewjade::Lookahead(Lookahead::new(
                h.with_hole_region(region(HoleRegion::LowestSurface)),
                depth,
            )),
        }
    }

    /// The heuristic inside.
    pub fn heuristic(&self) -> &Heuristic {
        match self {
            Knewjade::Plain(h) => h,
            Knewjade::Lookahead(l) => l.inner(),
        }
    }

    /// The lookahead's chain depth, if it is on.
    pub fn quiescent(&self) -> Option<u8> {
        match self {
            Knewjade::Plain(_) => None,
            Knewjade::Lookahead(l) => Some(l.depth()),
        }
    }

    /// Where the hole terms are counted.
    pub fn hole_region(&self) -> HoleRegion {
        self.heuristic().hole_region()
    }

    /// The terms of `well` as this evaluator counts them.
    pub fn terms(&self, well: &Well) -> Terms {
        self.heuristic().terms(well)
    }

    /// Every term, weight and contribution behind the cost, for `hatetris
    /// eval`. Allocates; not for the hot path.
    pub fn breakdown(&self, well: &Well, score: u32) -> Breakdown {
        let h = self.heuristic();
        let t = h.terms(well);
        let rows = h.rows(&t, score as f64);
        let static_total = h.terms_cost(&t, score as f64);
        let quiescent = match self {
            Knewjade::Plain(_) => None,
            Knewjade::Lookahead(l) => {
                let best = l.best(well, score);
                let score = score as f64 + HYPOTHETICAL_LINE_WEIGHT * best.steps as f64;
                let pieces = best.pieces().map(|p| p.to_string()).collect();
                Some(QuiescentBreakdown {
                    depth: l.depth(),
                    steps: best.steps,
                    pieces,
                    well: best.well.to_numbers(),
                    drawing: best.well.to_string(),
                    terms: h.rows(&h.terms(&best.well), score),
                    total: best.cost,
                })
            }
        };
        Breakdown {
            convention: CONVENTION,
            well: well.to_numbers(),
            score,
            terms: rows,
            static_total,
            total: quiescent.as_ref().map_or(static_total, |q| q.total),
            quiescent,
        }
    }
}

impl Evaluator for Knewjade {
    fn cost(&self, well: &Well, score: f64) -> f64 {
        match self {
            Knewjade::Plain(h) => h.cost(well, score),
            Knewjade::Lookahead(l) => l.cost(well, score),
        }
    }

    fn identity(&self) -> Identity {
        match self {
            Knewjade::Plain(h) => h.identity(),
            Knewjade::Lookahead(l) => l.identity(),
        }
    }
}

/// One line of a [`Breakdown`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TermRow {
    /// The term's name.
    pub term: String,
    /// Its raw value (0 or 1 for erasability; half lines in a chain's score).
    pub value: f64,
    /// Its weight.
    pub weight: f64,
    /// `value × weight`.
    pub contribution: f64,
}

impl TermRow {
    fn new(term: impl Into<String>, value: f64, weight: f64) -> TermRow {
        TermRow {
            term: term.into(),
            value,
            weight,
            contribution: value * weight,
        }
    }
}

/// Why a well costs what it costs: see [`Knewjade::breakdown`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Breakdown {
    /// Always [`CONVENTION`]: the value is a cost, lower is better.
    pub convention: &'static str,
    /// The well, as the game's 20 integers.
    pub well: String,
    /// Lines cleared so far.
    pub score: u32,
    /// The well's own terms.
    pub terms: Vec<TermRow>,
    /// The sum of `terms`' contributions.
    pub static_total: f64,
    /// The lookahead's best point, when it is on.
    pub quiescent: Option<QuiescentBreakdown>,
    /// The cost: `static_total`, or the lookahead's total when it is on.
    pub total: f64,
}

/// The lookahead's part of a [`Breakdown`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuiescentBreakdown {
    /// The chain depth cap.
    pub depth: u8,
    /// Clears to the best point (0: the well itself is best).
    pub steps: u8,
    /// The piece of each step (`S`, `Z`, or a later piece when both would
    /// clear two lines).
    pub pieces: String,
    /// The best point's well, as 20 integers.
    pub well: String,
    /// The best point's well, drawn.
    pub drawing: String,
    /// The best point's terms, with the hypothetical lines at half weight.
    pub terms: Vec<TermRow>,
    /// Their sum: the well's cost with the lookahead.
    pub total: f64,
}

/// A plain-text table of a [`Breakdown`]: term, raw value, weight,
/// contribution, and the total, headed by the cost convention.
pub fn render_breakdown(b: &Breakdown) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "knewjade heuristic ({})", b.convention.to_uppercase());
    let _ = writeln!(out, "well: {}", b.well);
    table(&mut out, &b.terms);
    let _ = writeln!(out, "{:<32} {:>36.4}", "total (this well)", b.static_total);
    if let Some(q) = &b.quiescent {
        let _ = writeln!(out);
        if q.steps == 0 {
            let _ = writeln!(
                out,
                "quiescent lookahead (depth {}): no chain of single-line clears improves on the well",
                q.depth
            );
        } else {
            let _ = writeln!(
                out,
                "quiescent lookahead (depth {}): best after {} hypothetical clear(s) by {} \
                 (their lines count half)",
                q.depth, q.steps, q.pieces
            );
            let _ = writeln!(out, "well: {}", q.well);
            table(&mut out, &q.terms);
        }
        let _ = writeln!(out, "{:<32} {:>36.4}", "total (with lookahead)", q.total);
    }
    let _ = writeln!(out, "COST: {:.4}  (lower is better)", b.total);
    out
}

fn table(out: &mut String, rows: &[TermRow]) {
    let _ = writeln!(
        out,
        "{:<32} {:>8} {:>12} {:>14}",
        "term", "value", "weight", "contribution"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<32} {:>8} {:>12.4} {:>14.4}",
            r.term, r.value, r.weight, r.contribution
        );
    }
}
