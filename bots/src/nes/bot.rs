//! The NES Tetris bot: a linear reward over four features of the well, maximised
//! over every straight drop of the current piece followed by every straight drop of
//! the preview piece.
//!
//! # The reward
//!
//! `reward = a * aggregate height + b * complete lines + c * holes + d * bumpiness`
//! (the article's formula, borrowed from Yiyuan Lee's player):
//!
//! * aggregate height: the sum of the ten column heights;
//! * complete lines: rows cleared by the placements being judged;
//! * holes: empty cells with a filled cell somewhere above them in the same column;
//! * bumpiness: the sum of `|h[i] - h[i+1]|` over the nine neighbouring pairs.
//!
//! The article's fitted weights are `a = -0.860, b = 0.433, c = -0.824, d = -0.343`
//! ([`ARTICLE_WEIGHTS`], checked against the article text).
//!
//! *Assumptions* where the article is silent: the features are measured on the
//! well after both placements and after their full rows are removed, and
//! "complete lines" counts the rows cleared by both placements. Ties keep the
//! first placement in generation order, so a game is a pure function of its seed.
//!
//! # Cost
//!
//! At most 34 x 34 = 1 156 wells are judged per piece. Each is a 40-byte copy, a
//! lock, and one pass over 20 rows with a running OR mask (holes are
//! `popcount(seen & !row)`); the column heights come from the same pass. Nothing is
//! allocated. [`features_slow`] counts cell by cell and is the twin the tests
//! compare against.

use super::sim::{placements, Board, Game, Placement, FULL_ROW, HEIGHT, WIDTH};

/// Weights of the four features.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Weights {
    /// Weight of the aggregate height.
    pub height: f64,
    /// Weight of the lines cleared.
    pub lines: f64,
    /// Weight of the holes.
    pub holes: f64,
    /// Weight of the bumpiness.
    pub bumpiness: f64,
}

/// The weights the article reports (mean of the fittest half of its last generation).
pub const ARTICLE_WEIGHTS: Weights = Weights {
    height: -0.860,
    lines: 0.433,
    holes: -0.824,
    bumpiness: -0.343,
};

impl Weights {
    /// The weights as an array in the order height, lines, holes, bumpiness.
    pub fn to_array(self) -> [f64; 4] {
        [self.height, self.lines, self.holes, self.bumpiness]
    }

    /// Weights from an array in the order height, lines, holes, bumpiness.
    pub fn from_array(a: [f64; 4]) -> Weights {
        Weights {
            height: a[0],
            lines: a[1],
            holes: a[2],
            bumpiness: a[3],
        }
    }
}

/// The four features of a well.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// Sum of column heights.
    pub height: u32,
    /// Lines cleared by the placements judged.
    pub lines: u32,
    /// Empty cells under a filled cell of the same column.
    pub holes: u32,
    /// Sum of height differences of neighbouring columns.
    pub bumpiness: u32,
}

impl Features {
    /// The weighted sum.
    #[inline]
    pub fn reward(&self, w: &Weights) -> f64 {
        w.height * f64::from(self.height)
            + w.lines * f64::from(self.lines)
            + w.holes * f64::from(self.holes)
            + w.bumpiness * f64::from(self.bumpiness)
    }
}

/// The features of `board`, with `lines` rows cleared on the way there. One pass
/// over the rows.
#[inline]
pub fn features(board: &Board, lines: u32) -> Features {
    let mut heights = [0u32; WIDTH as usize];
    let mut seen = 0u16;
    let mut holes = 0;
    for (r, &row) in board.rows.iter().enumerate() {
        holes += (seen & !row & FULL_ROW).count_ones();
        let mut fresh = row & !seen;
        seen |= row;
        while fresh != 0 {
            heights[fresh.trailing_zeros() as usize] = HEIGHT as u32 - r as u32;
            fresh &= fresh - 1;
        }
    }
    let height = heights.iter().sum();
    let bumpiness = heights.windows(2).map(|p| p[0].abs_diff(p[1])).sum();
    Features {
        height,
        lines,
        holes,
        bumpiness,
    }
}

/// The features counted cell by cell: the slow twin of [`features`].
pub fn features_slow(board: &Board, lines: u32) -> Features {
    let filled = |r: i32, c: i32| board.rows[r as usize] >> c & 1 == 1;
    let mut heights = [0u32; WIDTH as usize];
    let mut holes = 0;
    for c in 0..WIDTH {
        let top = (0..HEIGHT).find(|&r| filled(r, c));
        if let Some(top) = top {
            heights[c as usize] = (HEIGHT - top) as u32;
            holes += (top..HEIGHT).filter(|&r| !filled(r, c)).count() as u32;
        }
    }
    let mut bumpiness = 0;
    for c in 0..WIDTH as usize - 1 {
        bumpiness += heights[c].abs_diff(heights[c + 1]);
    }
    Features {
        height: heights.iter().sum(),
        lines,
        holes,
        bumpiness,
    }
}

/// The bot's pick for `current` on `board`, looking ahead at `next` when given:
/// the placement and its reward, or `None` when the piece cannot spawn.
pub fn choose(
    board: &Board,
    current: u8,
    next: Option<u8>,
    w: &Weights,
) -> Option<(Placement, f64)> {
    let mut best: Option<(Placement, f64)> = None;
    for &p in placements(board, current).as_slice() {
        let mut after = *board;
        let reward = match after.lock(p.orientation, p.x, p.y) {
            // Locking above the top loses: the worst reward, kept only if nothing else.
            None => f64::NEG_INFINITY,
            Some(lines) => match next {
                None => features(&after, lines).reward(w),
                Some(next) => best_follow_up(&after, next, lines, w),
            },
        };
        match best {
            Some((_, r)) if r >= reward => {}
            _ => best = Some((p, reward)),
        }
    }
    best
}

/// The best reward over every placement of `piece` on `board`, with `lines` already
/// cleared. Negative infinity if every placement tops out.
#[inline]
fn best_follow_up(board: &Board, piece: u8, lines: u32, w: &Weights) -> f64 {
    let mut best = f64::NEG_INFINITY;
    for &p in placements(board, piece).as_slice() {
        let mut after = *board;
        if let Some(more) = after.lock(p.orientation, p.x, p.y) {
            let r = features(&after, lines + more).reward(w);
            if r > best {
                best = r;
            }
        }
    }
    best
}

/// Plays one game with the bot until it tops out or has placed `max_pieces` pieces.
pub fn play_game(game: &mut Game, w: &Weights, lookahead: bool, max_pieces: u32) {
    while game.end.is_none() {
        if game.pieces >= max_pieces {
            game.end = Some(super::sim::End::PieceLimit);
            break;
        }
        let next = lookahead.then_some(game.next);
        match choose(&game.board, game.current, next, w) {
            Some((p, _)) => {
                game.play(p);
            }
            None => game.end = Some(super::sim::End::TopOut),
        }
    }
}
