//! The Hatris bot: a two-step search chain scored by eight metrics.
//!
//! # Search
//!
//! Step one tries every move for the falling pair ([`Board::moves`]: all
//! placements, split landings included, plus the options of the helper
//! earned last, which make the pair vanish). For each survivor, step two tries every move
//! for the next pair (again with the helper, if the pool still holds one)
//! and the best evaluation among them becomes the step-one move's score.
//! Only the step-one move is played; the chain is rebuilt on the next spawn.
//! A step-one move with no surviving step-two move scores below every move
//! that has one, and a move that tops out is never chosen unless nothing
//! else exists. Ties keep the first move in [`Board::moves`] order, so the
//! bot is deterministic.
//!
//! # Fast path and its slow twin
//!
//! Step two runs up to 90 × 90 times per spawn, so it does not copy and
//! re-score the whole board. Per-pile sums ([`PileStats`]) of the step-one
//! board are computed once; a step-two move copies only the one or two piles
//! it touches, and the evaluation swaps their sums in. [`evaluate`] is the
//! obvious full evaluation of a board; the tests check that
//! [`Bot::step_two_score`] and `evaluate` after [`Board::apply`] agree.
//!
//! Alexey has up to 461 options (1 to 5 hats from any piles), so step two
//! with Alexey on top of the pool would cost 461 full evaluations per
//! step-one move. The step-one summary keeps, per pile and per count, the
//! pile's sums after the cut; metrics 1 to 5 are sums over piles, so an
//! option's score for them is the board's plus one table delta per cut pile.
//! Metrics 6 and 7 lie in 0 to 1 and cash does not change, so that sum plus
//! the positive weights of 6 and 7 bounds the option's score from above;
//! only options whose bound beats the best so far are evaluated in full.
//! The bound only skips options that could not win, so the chosen move is
//! the one the exhaustive loop picks; a test checks this
//! (`Bot::choose_exhaustive`).
//!
//! # The metrics (each in 0 to 1, larger is better)
//!
//! The article names the metrics but not their scales; ours divide by a
//! rough maximum for a legal field:
//!
//! 1. `hats`: 1 − Σ (hats in pile)² / (6 · 56²).
//! 2. `heights`: 1 − Σ height² / (6 · 169²).
//! 3. `runs`: Σ over runs of 2 or more identical hats of length² / (6 · 14 · 16).
//! 4. `top_runs`: the same for the run at the top of each pile only, / (6 · 16).
//! 5. `mismatches`: 1 − (adjacent different hats within piles) / (6 · 55).
//! 6. `permutation`: 1 − (fewest pile swaps that sort the heights in
//!    descending order) / 5.
//! 7. `height_diffs`: 1 − Σ max(0, `h[i+1] − h[i]`) / (3 · 169), i.e. rises
//!    from left to right are penalised; our reading of "the sum of the
//!    adjacent pile height differences" with the stated goal of descending
//!    order.
//! 8. `cash`: cash earned by the two steps / 1200 (four stacks of crowns).
//!
//! The article's weights are published in percent for seven metrics; the
//! eighth (cash) is the rest of 100 %: the seven sum to 90.23843, so cash is
//! 9.76157 (a test checks the sum). That fits its text ("cash comes in a
//! distant second" after mismatches).

use super::hats::Helper;
use super::prng::Pair;
use super::sim::{
    alexey_options, Board, Move, MoveList, Pile, ALEXEY_MAX, COLUMNS, SPAWN_ALTITUDE,
};

/// Number of metrics.
pub const METRICS: usize = 8;

/// Metric names, in weight order (used in weight files).
pub const METRIC_NAMES: [&str; METRICS] = [
    "hats",
    "heights",
    "runs",
    "top_runs",
    "mismatches",
    "permutation",
    "height_diffs",
    "cash",
];

/// Weights of the eight metrics, in [`METRIC_NAMES`] order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights(pub [f64; METRICS]);

/// The article's trained weights (percent; cash inferred as the rest).
pub const ARTICLE_WEIGHTS: Weights = Weights([
    0.00100, 0.00055, 1.78585, 0.06811, 88.31852, 0.00048, 0.06392, 9.76157,
]);

impl Default for Weights {
    fn default() -> Self {
        ARTICLE_WEIGHTS
    }
}

const HATS_NORM: f64 = (6 * 56 * 56) as f64;
const HEIGHTS_NORM: f64 = 6.0 * (SPAWN_ALTITUDE as f64) * (SPAWN_ALTITUDE as f64);
const RUNS_NORM: f64 = (6 * 14 * 16) as f64;
const TOP_RUNS_NORM: f64 = (6 * 16) as f64;
const MISMATCH_NORM: f64 = (6 * 55) as f64;
const PERM_NORM: f64 = 5.0;
const DIFFS_NORM: f64 = 3.0 * SPAWN_ALTITUDE as f64;
const CASH_NORM: f64 = 1200.0;

/// Score of a step-one move whose every step-two move tops out.
const DOOMED: f64 = -1.0e9;

/// Rounding allowance of the Alexey bound (scores are sums of eight terms
/// of at most about 100; their rounding error is far below this).
const BOUND_SLACK: f64 = 1.0e-7;

/// Per-pile integer sums behind metrics 1 to 5.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PileStats {
    /// Hats squared.
    pub hats2: u32,
    /// Height squared.
    pub height2: u32,
    /// Σ length² over runs of 2 or more.
    pub runs2: u32,
    /// Length² of the top run if 2 or more.
    pub top2: u32,
    /// Adjacent different hats.
    pub mismatches: u32,
}

impl PileStats {
    /// Sums for one pile.
    #[inline]
    pub fn of(p: &Pile) -> PileStats {
        let ids = p.ids();
        let n = ids.len() as u32;
        let h = u32::from(p.height());
        let mut s = PileStats {
            hats2: n * n,
            height2: h * h,
            ..PileStats::default()
        };
        let mut run = 0u32;
        let mut prev = 0u8;
        for &id in ids {
            if id == prev {
                run += 1;
            } else {
                if prev != 0 {
                    s.mismatches += 1;
                }
                if run >= 2 {
                    s.runs2 += run * run;
                }
                run = 1;
                prev = id;
            }
        }
        if run >= 2 {
            s.runs2 += run * run;
            s.top2 = run * run;
        }
        s
    }

    #[inline]
    fn add(self, o: PileStats) -> PileStats {
        PileStats {
            hats2: self.hats2 + o.hats2,
            height2: self.height2 + o.height2,
            runs2: self.runs2 + o.runs2,
            top2: self.top2 + o.top2,
            mismatches: self.mismatches + o.mismatches,
        }
    }

    #[inline]
    fn sub(self, o: PileStats) -> PileStats {
        PileStats {
            hats2: self.hats2 - o.hats2,
            height2: self.height2 - o.height2,
            runs2: self.runs2 - o.runs2,
            top2: self.top2 - o.top2,
            mismatches: self.mismatches - o.mismatches,
        }
    }
}

/// Fewest swaps that sort `h` in descending order (ties keep column order).
#[inline]
pub fn permutation_distance(h: &[u8; COLUMNS]) -> u32 {
    let mut rank = [0usize; COLUMNS];
    for i in 0..COLUMNS {
        rank[i] = (0..COLUMNS)
            .filter(|&j| h[j] > h[i] || (h[j] == h[i] && j < i))
            .count();
    }
    let mut seen = [false; COLUMNS];
    let mut cycles = 0;
    for i in 0..COLUMNS {
        if !seen[i] {
            cycles += 1;
            let mut j = i;
            while !seen[j] {
                seen[j] = true;
                j = rank[j];
            }
        }
    }
    (COLUMNS - cycles) as u32
}

/// Σ max(0, `h[i+1] − h[i]`).
#[inline]
pub fn rises(h: &[u8; COLUMNS]) -> u32 {
    h.windows(2)
        .map(|w| u32::from(w[1].saturating_sub(w[0])))
        .sum()
}

/// The eight metric values for pile sums `s`, heights `h` and cash earned.
#[inline]
pub fn metrics_of(s: PileStats, h: &[u8; COLUMNS], cash: u32) -> [f64; METRICS] {
    [
        1.0 - f64::from(s.hats2) / HATS_NORM,
        1.0 - f64::from(s.height2) / HEIGHTS_NORM,
        f64::from(s.runs2) / RUNS_NORM,
        f64::from(s.top2) / TOP_RUNS_NORM,
        1.0 - f64::from(s.mismatches) / MISMATCH_NORM,
        1.0 - f64::from(permutation_distance(h)) / PERM_NORM,
        1.0 - f64::from(rises(h)) / DIFFS_NORM,
        (f64::from(cash) / CASH_NORM).min(1.0),
    ]
}

/// The metrics of a whole board, computed from scratch (the slow twin).
pub fn metrics(board: &Board, cash: u32) -> [f64; METRICS] {
    let s = board
        .piles
        .iter()
        .fold(PileStats::default(), |acc, p| acc.add(PileStats::of(p)));
    metrics_of(s, &board.heights(), cash)
}

/// Weighted sum of the metrics.
#[inline]
pub fn score(w: &Weights, m: &[f64; METRICS]) -> f64 {
    w.0.iter().zip(m).map(|(a, b)| a * b).sum()
}

/// Evaluation of a whole board after a chain that earned `cash`.
pub fn evaluate(w: &Weights, board: &Board, cash: u32) -> f64 {
    score(w, &metrics(board, cash))
}

/// The search bot.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bot {
    /// Evaluation weights.
    pub weights: Weights,
}

/// A step-one board prepared for fast step-two scoring.
struct StepOne<'a> {
    board: &'a Board,
    stats: [PileStats; COLUMNS],
    total: PileStats,
    heights: [u8; COLUMNS],
    cash: u32,
    /// `cut[c][k]`: pile `c`'s sums and height after Alexey removes `k`
    /// bottom hats (filled only when Alexey is next in the pool).
    cut: [[(PileStats, u8); ALEXEY_MAX as usize + 1]; COLUMNS],
}

impl<'a> StepOne<'a> {
    /// Summarises the board step one reached, earning `cash`.
    fn new(board: &'a Board, cash: u32) -> StepOne<'a> {
        let stats: [PileStats; COLUMNS] = std::array::from_fn(|c| PileStats::of(&board.piles[c]));
        let total = stats
            .iter()
            .fold(PileStats::default(), |acc, &s| acc.add(s));
        let mut cut = [[(PileStats::default(), 0u8); ALEXEY_MAX as usize + 1]; COLUMNS];
        if board.pool.next_up() == Some(Helper::Alexey) {
            for (c, row) in cut.iter_mut().enumerate() {
                let pile = &board.piles[c];
                row[0] = (stats[c], pile.height());
                for (k, slot) in row.iter_mut().enumerate().skip(1).take(pile.len()) {
                    let mut p = *pile;
                    p.remove_bottom(k);
                    *slot = (PileStats::of(&p), p.height());
                }
            }
        }
        StepOne {
            board,
            stats,
            total,
            heights: board.heights(),
            cash,
            cut,
        }
    }
}

impl Bot {
    /// A bot with weights `w`.
    pub fn new(weights: Weights) -> Bot {
        Bot { weights }
    }

    /// The move to play for `current` with `next` shown, or `None` when
    /// there is no move at all (cannot happen in a legal game).
    pub fn choose(&self, board: &Board, current: Pair, next: Pair) -> Option<Move> {
        let first = board.moves(current);
        let mut best: Option<(f64, Move)> = None;
        let mut fallback = None;
        let mut second = MoveList::default();
        for &mv in first.as_slice() {
            fallback.get_or_insert(mv);
            let mut b1 = *board;
            let o1 = b1.apply(current, mv);
            if o1.over {
                continue;
            }
            let s = self.best_second(&b1, next, o1.cash, &mut second);
            if best.is_none_or(|(bs, _)| s > bs) {
                best = Some((s, mv));
            }
        }
        best.map(|(_, m)| m).or(fallback)
    }

    fn best_second(&self, b1: &Board, next: Pair, cash: u32, list: &mut MoveList) -> f64 {
        let one = StepOne::new(b1, cash);
        *list = MoveList::default();
        b1.pair_moves(next, list);
        if b1.pool.next_up() == Some(Helper::Vladimir) {
            b1.helper_moves(list);
        }
        let mut best = DOOMED;
        for &mv in list.as_slice() {
            if let Some(s) = self.second_score(&one, next, mv) {
                if s > best {
                    best = s;
                }
            }
        }
        if b1.pool.next_up() == Some(Helper::Alexey) {
            self.best_alexey(&one, next, &mut best);
        }
        best
    }

    /// Raises `best` to the best score among Alexey's options on the
    /// step-one board, skipping options whose upper bound cannot beat it.
    fn best_alexey(&self, one: &StepOne, next: Pair, best: &mut f64) {
        let w = &self.weights.0;
        let sep = |s: &PileStats| {
            -w[0] * f64::from(s.hats2) / HATS_NORM - w[1] * f64::from(s.height2) / HEIGHTS_NORM
                + w[2] * f64::from(s.runs2) / RUNS_NORM
                + w[3] * f64::from(s.top2) / TOP_RUNS_NORM
                - w[4] * f64::from(s.mismatches) / MISMATCH_NORM
        };
        let mut delta = [[0.0f64; ALEXEY_MAX as usize + 1]; COLUMNS];
        let mut avail = [0u8; COLUMNS];
        for c in 0..COLUMNS {
            let n = one.board.piles[c].len().min(ALEXEY_MAX as usize);
            avail[c] = n as u8;
            let here = sep(&one.stats[c]);
            for (d, cut) in delta[c].iter_mut().zip(&one.cut[c]).take(n + 1).skip(1) {
                *d = sep(&cut.0) - here;
            }
        }
        // Metrics 1 to 5 at the step-one board, cash (unchanged by Alexey),
        // and the most metrics 6 and 7 can add.
        let m = metrics_of(one.total, &one.heights, one.cash);
        let base = w[..5].iter().zip(&m[..5]).map(|(a, b)| a * b).sum::<f64>()
            + w[7] * m[7]
            + w[5].max(0.0)
            + w[6].max(0.0);
        alexey_options(avail, |counts| {
            let bound = base
                + counts
                    .iter()
                    .enumerate()
                    .map(|(c, &k)| delta[c][k as usize])
                    .sum::<f64>();
            if bound <= *best - BOUND_SLACK {
                return;
            }
            if let Some(s) = self.second_score(one, next, Move::Alexey { counts }) {
                if s > *best {
                    *best = s;
                }
            }
        });
    }

    /// [`Bot::choose`] without the bound: every step-two move is evaluated
    /// in full. The slow twin of the search, for the tests.
    pub fn choose_exhaustive(&self, board: &Board, current: Pair, next: Pair) -> Option<Move> {
        let mut best: Option<(f64, Move)> = None;
        let mut fallback = None;
        for &mv in board.moves(current).as_slice() {
            fallback.get_or_insert(mv);
            let mut b1 = *board;
            let o1 = b1.apply(current, mv);
            if o1.over {
                continue;
            }
            let mut s = DOOMED;
            for &m2 in b1.moves(next).as_slice() {
                let mut b2 = b1;
                let o2 = b2.apply(next, m2);
                if !o2.over {
                    s = s.max(evaluate(&self.weights, &b2, o1.cash + o2.cash));
                }
            }
            if best.is_none_or(|(bs, _)| s > bs) {
                best = Some((s, mv));
            }
        }
        best.map(|(_, m)| m).or(fallback)
    }

    /// Score of step-two move `mv` on `b1` (which step one reached earning
    /// `cash`), or `None` if it tops out. The fast path the search uses.
    pub fn step_two_score(&self, b1: &Board, next: Pair, cash: u32, mv: Move) -> Option<f64> {
        let one = StepOne::new(b1, cash);
        self.second_score(&one, next, mv)
    }

    #[inline]
    fn second_score(&self, one: &StepOne, next: Pair, mv: Move) -> Option<f64> {
        let mut total = one.total;
        let mut h = one.heights;
        let mut cash = one.cash;
        match mv {
            Move::Pair { cols, .. } => {
                for i in 0..2 {
                    let c = cols[i] as usize;
                    let mut p: Pile = one.board.piles[c];
                    match p.land(next[i].id()) {
                        Ok(Some(id)) => {
                            cash += super::hats::CASH[id as usize - 1];
                        }
                        Ok(None) => {}
                        Err(_) => return None,
                    }
                    if p.height() >= one.board.ceiling {
                        return None;
                    }
                    total = total.sub(one.stats[c]).add(PileStats::of(&p));
                    h[c] = p.height();
                }
            }
            Move::Alexey { counts } => {
                for (c, &k) in counts.iter().enumerate() {
                    if k > 0 {
                        let (s, height) = one.cut[c][k as usize];
                        total = total.sub(one.stats[c]).add(s);
                        h[c] = height;
                    }
                }
                if h.iter().any(|&x| x >= one.board.ceiling) {
                    return None;
                }
            }
            Move::Vladimir { a, b } => h.swap(a as usize, b as usize),
        }
        Some(score(&self.weights, &metrics_of(total, &h, cash)))
    }
}
