//! The Magic Jewelry bot: current and next column, eight metrics.
//!
//! # Search
//!
//! For every lock position of the current column (each reachable well
//! column × each distinct colour order) the column is locked and the
//! cascades run; for each survivor, every lock position of the next column
//! is tried the same way and the best evaluation is the first move's score.
//! Moves that end the game are never chosen while another exists; a first
//! move whose every follow-up ends the game scores below all others. Ties
//! keep the first move in (column, order) order. At most 18 × 18 = 324
//! boards are scored per column, each a 90-byte copy on the stack.
//!
//! # Metrics (each in 0 to 1, larger is better)
//!
//! 1. to 5. `adjacent_k` (k = 0 to 4): pairs of equal colours `k + 1` cells
//!    apart along a row, column or diagonal (whatever lies between), over
//!    the most such pairs the well can hold. Counted with masks: for each
//!    colour mask `m`, `popcount(m & m >> (k+1)·stride & inside)`.
//! 6. `jewels`: 1 − jewels / 78.
//! 7. `edge`: 1 − Σ penalty / its maximum, where a jewel's penalty is the
//!    number of its eight neighbour directions blocked by a wall or the
//!    floor (3 on a side or the bottom row, 5 in a bottom corner).
//! 8. `spawn_distance`: 1 − Σ proximity / its maximum, where a jewel's
//!    proximity is 16 − its Manhattan distance to the spawn cell (visible
//!    row 0, column 3), so jewels high up and near column 3 cost most.
//!
//! The article gives the names, their intent and the weights in percent but
//! not the scales; these scales are ours.

use super::board::{
    rotations, Board, Column, CELLS, COLOURS, HIDDEN_ROWS, PAIR_OK, ROWS, SPAWN_X, SPAWN_Y, STRIDE,
    VISIBLE_CELLS, WIDTH,
};

/// Number of metrics.
pub const METRICS: usize = 8;

/// Metric names in weight order (used in weight files).
pub const METRIC_NAMES: [&str; METRICS] = [
    "adjacent_0",
    "adjacent_1",
    "adjacent_2",
    "adjacent_3",
    "adjacent_4",
    "jewels",
    "edge",
    "spawn_distance",
];

/// Weights of the eight metrics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights(pub [f64; METRICS]);

/// The article's weights (percent).
pub const ARTICLE_WEIGHTS: Weights = Weights([43.0, 12.7, 1.5, 2.8, 0.5, 33.6, 4.2, 1.6]);

impl Default for Weights {
    fn default() -> Self {
        ARTICLE_WEIGHTS
    }
}

/// Per-cell wall penalty (blocked neighbour directions), visible cells only.
pub const EDGE_PENALTY: [u8; CELLS] = edge_penalty();
/// Per-cell proximity to the spawn cell, visible cells only.
pub const PROXIMITY: [u8; CELLS] = proximity();

const fn edge_penalty() -> [u8; CELLS] {
    let mut t = [0u8; CELLS];
    let mut y = HIDDEN_ROWS;
    while y < ROWS {
        let mut x = 0;
        while x < WIDTH {
            let mut p = 0;
            let mut dy = -1isize;
            while dy <= 1 {
                let mut dx = -1isize;
                while dx <= 1 {
                    if dx != 0 || dy != 0 {
                        let nx = x as isize + dx;
                        let ny = y as isize + dy;
                        if nx < 0 || nx >= WIDTH as isize || ny >= ROWS as isize {
                            p += 1;
                        }
                    }
                    dx += 1;
                }
                dy += 1;
            }
            t[y * WIDTH + x] = p;
            x += 1;
        }
        y += 1;
    }
    t
}

const fn proximity() -> [u8; CELLS] {
    let mut t = [0u8; CELLS];
    let mut y = HIDDEN_ROWS;
    while y < ROWS {
        let mut x = 0;
        while x < WIDTH {
            let d = x.abs_diff(SPAWN_X) + (y - SPAWN_Y);
            t[y * WIDTH + x] = (16 - d) as u8;
            x += 1;
        }
        y += 1;
    }
    t
}

const fn table_sum(t: &[u8; CELLS]) -> u32 {
    let mut s = 0;
    let mut i = 0;
    while i < CELLS {
        s += t[i] as u32;
        i += 1;
    }
    s
}

const fn pair_max() -> [u32; 5] {
    let mut out = [0u32; 5];
    let mut k = 0;
    while k < 5 {
        let mut dir = 0;
        while dir < 4 {
            // Pairs with both cells visible: drop starts in the hidden rows.
            let hidden = (1u128 << (HIDDEN_ROWS * WIDTH)) - 1;
            out[k] += (PAIR_OK[dir][k + 1] & !hidden).count_ones();
            dir += 1;
        }
        k += 1;
    }
    out
}

const EDGE_MAX: f64 = table_sum(&EDGE_PENALTY) as f64;
const PROXIMITY_MAX: f64 = table_sum(&PROXIMITY) as f64;
const PAIR_MAX: [u32; 5] = pair_max();

/// Score of a first move whose every follow-up ends the game.
const DOOMED: f64 = -1.0e9;

/// The eight metric values of a board.
pub fn metrics(b: &Board) -> [f64; METRICS] {
    let (m, _) = b.masks();
    let mut adj = [0u32; 5];
    for &mc in &m[1..=COLOURS as usize] {
        if mc.count_ones() < 2 {
            continue;
        }
        for (k, a) in adj.iter_mut().enumerate() {
            for dir in 0..4 {
                let s = STRIDE[dir] * (k as u32 + 1);
                *a += (mc & (mc >> s) & PAIR_OK[dir][k + 1]).count_ones();
            }
        }
    }
    let mut jewels = 0u32;
    let mut edge = 0u32;
    let mut prox = 0u32;
    for (i, &c) in b.cells.iter().enumerate() {
        if c != 0 {
            jewels += 1;
            edge += u32::from(EDGE_PENALTY[i]);
            prox += u32::from(PROXIMITY[i]);
        }
    }
    let mut out = [0.0; METRICS];
    for k in 0..5 {
        out[k] = f64::from(adj[k]) / f64::from(PAIR_MAX[k]);
    }
    out[5] = 1.0 - f64::from(jewels) / VISIBLE_CELLS as f64;
    out[6] = 1.0 - f64::from(edge) / EDGE_MAX;
    out[7] = 1.0 - f64::from(prox) / PROXIMITY_MAX;
    out
}

/// Weighted sum of the metrics of `b`.
pub fn evaluate(w: &Weights, b: &Board) -> f64 {
    w.0.iter().zip(metrics(b)).map(|(a, m)| a * m).sum()
}

/// A move: lock the column, cycled into `order`, in well column `x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement {
    /// Well column.
    pub x: u8,
    /// The jewels top first, after cycling.
    pub order: Column,
}

/// Every lock position of `col` on `b`, into `out`; returns how many.
pub fn placements(b: &Board, col: Column, out: &mut [Placement; 18]) -> usize {
    let set = b.lock_columns();
    let (orders, n_orders) = rotations(col);
    let mut n = 0;
    for x in 0..WIDTH {
        if set >> x & 1 == 0 {
            continue;
        }
        for &order in &orders[..n_orders] {
            out[n] = Placement { x: x as u8, order };
            n += 1;
        }
    }
    n
}

/// The search bot.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bot {
    /// Evaluation weights.
    pub weights: Weights,
}

impl Bot {
    /// A bot with weights `w`.
    pub fn new(weights: Weights) -> Bot {
        Bot { weights }
    }

    /// The placement for `current` with `next` shown; `None` when the
    /// column cannot even spawn.
    pub fn choose(&self, b: &Board, current: Column, next: Column) -> Option<Placement> {
        let mut first = [Placement {
            x: 0,
            order: [0; 3],
        }; 18];
        let mut second = first;
        let n1 = placements(b, current, &mut first);
        let mut best: Option<(f64, Placement)> = None;
        for &p1 in &first[..n1] {
            let mut b1 = *b;
            if b1.drop_column(p1.x as usize, p1.order).over {
                continue;
            }
            let n2 = placements(&b1, next, &mut second);
            let mut s = DOOMED;
            for &p2 in &second[..n2] {
                let mut b2 = b1;
                if b2.drop_column(p2.x as usize, p2.order).over {
                    continue;
                }
                let e = evaluate(&self.weights, &b2);
                if e > s {
                    s = e;
                }
            }
            if best.is_none_or(|(bs, _)| s > bs) {
                best = Some((s, p1));
            }
        }
        best.map(|(_, p)| p)
            .or_else(|| (n1 > 0).then_some(first[0]))
    }
}
