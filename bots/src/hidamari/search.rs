//! The article's AI: a depth-2 search over hard drops (the current piece, then the
//! preview piece), every node kept in one fixed arena that is reset after each move.
//!
//! # The evaluation
//!
//! `score = 3 * bumpiness + 2 * aggregate height + 10 * holes`, lowest wins
//! ([`HidamariWeights::ARTICLE`]). The article states the 10 for holes; 3 and 2
//! come from the project brief. Heights, holes and bumpiness are defined as in the
//! NES bot (a hole is an empty cell with a filled cell anywhere above it).
//!
//! # The arena
//!
//! The article uses "a fixed 180kb of memory for the entire search", a stack
//! allocator whose pointer goes back to the start once the move is chosen. Here
//! that is [`Arena`]: one boxed slice of [`Node`]s allocated when the bot is built,
//! [`ARENA_BYTES`] = 184 320 bytes (180 KiB), 64 bytes per node (pinned by a
//! `const` assertion), so 2 880 nodes. [`Arena::push`] bumps the top index;
//! [`Arena::reset`] sets it back to zero; [`Arena::peak_bytes`] reports the
//! high-water mark. The search keeps every node it creates, because the article
//! walks back from the best leaf to the root to recover the move: with at most 34
//! children and 34 grandchildren each, a search needs at most 34 + 34 x 34 = 1 190
//! nodes (76 160 bytes), so the arena never fills; if it ever did, the search would
//! stop expanding and play the best move found so far.
//!
//! Nothing in [`Bot::choose`] allocates: placement lists are fixed arrays on the
//! stack and all nodes live in the arena. A test with a counting allocator checks
//! that a whole game allocates nothing after the bot is built.
//!
//! Rejected: a byte arena with typed pointers into it (needs `unsafe` for no gain
//! over a typed slice of fixed-size records); a `Vec` per node's children (allocates
//! on every move, which is what the article avoids).

use super::sim::{drops, Board, Drop, Game, CELLS_MASK, HEIGHT, MAX_DROPS, WIDTH};

/// Size of the search arena in bytes (about 180 KB, as in the article).
pub const ARENA_BYTES: usize = 180 * 1024;

/// Nodes that fit in the arena.
pub const ARENA_NODES: usize = ARENA_BYTES / std::mem::size_of::<Node>();

/// One search node: the well after a placement and how it was reached.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Node {
    /// The well after the placement (and its line clears).
    pub board: Board,
    /// Evaluation (leaves only).
    pub score: u32,
    /// Index of the parent node, or `u16::MAX` for a depth-1 node.
    pub parent: u16,
    /// The placement that made this node.
    pub state: u8,
    /// Box column of the placement.
    pub x: i8,
    /// Box row of the placement.
    pub y: i8,
    /// Lines cleared by the placement.
    pub lines: u8,
    /// Depth: 1 for the current piece, 2 for the preview piece.
    pub depth: u8,
    /// Padding to a round 64 bytes.
    pub _pad: u8,
}

const _: () = assert!(std::mem::size_of::<Node>() == 64);

const EMPTY_NODE: Node = Node {
    board: Board::EMPTY,
    score: 0,
    parent: u16::MAX,
    state: 0,
    x: 0,
    y: 0,
    lines: 0,
    depth: 0,
    _pad: 0,
};

/// A fixed stack arena of search nodes.
pub struct Arena {
    nodes: Box<[Node]>,
    top: usize,
    peak: usize,
}

impl Arena {
    /// The arena, allocated once: [`ARENA_NODES`] nodes.
    pub fn new() -> Arena {
        Arena {
            nodes: vec![EMPTY_NODE; ARENA_NODES].into_boxed_slice(),
            top: 0,
            peak: 0,
        }
    }

    /// Stores a node; its index, or `None` when the arena is full.
    #[inline]
    pub fn push(&mut self, node: Node) -> Option<u16> {
        if self.top == self.nodes.len() {
            return None;
        }
        self.nodes[self.top] = node;
        self.top += 1;
        self.peak = self.peak.max(self.top);
        Some((self.top - 1) as u16)
    }

    /// The node at `i`.
    #[inline]
    pub fn get(&self, i: u16) -> &Node {
        &self.nodes[i as usize]
    }

    /// Frees every node (the stack pointer goes back to the start).
    #[inline]
    pub fn reset(&mut self) {
        self.top = 0;
    }

    /// Nodes in use now.
    pub fn used(&self) -> usize {
        self.top
    }

    /// The most bytes ever in use at once.
    pub fn peak_bytes(&self) -> usize {
        self.peak * std::mem::size_of::<Node>()
    }

    /// The arena's size in bytes.
    pub fn capacity_bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<Node>()
    }
}

impl Default for Arena {
    fn default() -> Arena {
        Arena::new()
    }
}

/// The three weights (lower scores are better).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HidamariWeights {
    /// Weight of the bumpiness.
    pub bumpiness: u32,
    /// Weight of the aggregate height.
    pub height: u32,
    /// Weight of the holes.
    pub holes: u32,
}

impl HidamariWeights {
    /// Bumpiness 3, aggregate height 2, holes 10.
    pub const ARTICLE: HidamariWeights = HidamariWeights {
        bumpiness: 3,
        height: 2,
        holes: 10,
    };
}

/// Bumpiness, aggregate height and holes of a well, in one pass over its rows.
#[inline]
pub fn terms(board: &Board) -> (u32, u32, u32) {
    let mut heights = [0u32; WIDTH];
    let mut seen = 0u16;
    let mut holes = 0;
    for (r, &row) in board.rows[..HEIGHT].iter().enumerate() {
        let cells = row & CELLS_MASK;
        holes += (seen & !cells).count_ones();
        let mut fresh = cells & !seen;
        seen |= cells;
        while fresh != 0 {
            heights[fresh.trailing_zeros() as usize - 3] = (HEIGHT - r) as u32;
            fresh &= fresh - 1;
        }
    }
    let height = heights.iter().sum();
    let bumpiness = heights.windows(2).map(|p| p[0].abs_diff(p[1])).sum();
    (bumpiness, height, holes)
}

/// The same three terms counted cell by cell: the slow twin of [`terms`].
pub fn terms_slow(board: &Board) -> (u32, u32, u32) {
    let filled = |r: usize, c: usize| board.rows[r] >> (c + 3) & 1 == 1;
    let mut heights = [0u32; WIDTH];
    let mut holes = 0;
    for (c, h) in heights.iter_mut().enumerate() {
        if let Some(top) = (0..HEIGHT).find(|&r| filled(r, c)) {
            *h = (HEIGHT - top) as u32;
            holes += (top..HEIGHT).filter(|&r| !filled(r, c)).count() as u32;
        }
    }
    let bumpiness = (0..WIDTH - 1)
        .map(|c| heights[c].abs_diff(heights[c + 1]))
        .sum();
    (bumpiness, heights.iter().sum(), holes)
}

/// The evaluation of a well: lower is better.
#[inline]
pub fn evaluate(board: &Board, w: &HidamariWeights) -> u32 {
    let (bump, height, holes) = terms(board);
    w.bumpiness * bump + w.height * height + w.holes * holes
}

/// The bot: its weights and its arena.
pub struct Bot {
    /// The evaluation weights.
    pub weights: HidamariWeights,
    /// The search arena.
    pub arena: Arena,
    /// Nodes created over the bot's life (a determinism signature).
    pub nodes_total: u64,
}

impl Bot {
    /// A bot with the article's weights; allocates its arena once.
    pub fn new(weights: HidamariWeights) -> Bot {
        Bot {
            weights,
            arena: Arena::new(),
            nodes_total: 0,
        }
    }

    /// The move for `current` on `board` with `next` as the second ply: the
    /// depth-1 placement on the path to the lowest-scoring leaf. Ties keep the
    /// first leaf found. `None` if the piece cannot spawn. The arena is reset when
    /// the move is chosen.
    pub fn choose(&mut self, board: &Board, current: u8, next: u8) -> Option<Drop> {
        let mut first = [Drop::default(); MAX_DROPS];
        let mut second = [Drop::default(); MAX_DROPS];
        let n1 = drops(board, current, &mut first);
        // Best leaf: (score, node index). Depth-1 nodes that top out are never
        // leaves; if every node tops out, the first placement is played.
        let mut best: Option<(u32, u16)> = None;
        'outer: for d1 in &first[..n1] {
            let mut b1 = *board;
            let Some(lines) = b1.lock(current, d1.state, d1.x, d1.y) else {
                continue;
            };
            let Some(i1) = self.arena.push(Node {
                board: b1,
                state: d1.state,
                x: d1.x,
                y: d1.y,
                lines: lines as u8,
                depth: 1,
                ..EMPTY_NODE
            }) else {
                break;
            };
            let n2 = drops(&b1, next, &mut second);
            let mut any_child = false;
            for d2 in &second[..n2] {
                let mut b2 = b1;
                let Some(lines2) = b2.lock(next, d2.state, d2.x, d2.y) else {
                    continue;
                };
                let score = evaluate(&b2, &self.weights);
                let Some(i2) = self.arena.push(Node {
                    board: b2,
                    score,
                    parent: i1,
                    state: d2.state,
                    x: d2.x,
                    y: d2.y,
                    lines: lines2 as u8,
                    depth: 2,
                    _pad: 0,
                }) else {
                    break 'outer;
                };
                any_child = true;
                if best.is_none_or_worse(score) {
                    best = Some((score, i2));
                }
            }
            if !any_child {
                // The preview piece cannot be placed after this move: judge the
                // depth-1 well itself, with a heavy penalty so any real line wins.
                let score = evaluate(&b1, &self.weights).saturating_add(1 << 24);
                if best.is_none_or_worse(score) {
                    best = Some((score, i1));
                }
            }
        }
        self.nodes_total += self.arena.used() as u64;
        let chosen = best.map(|(_, mut i)| {
            // Walk back up to the depth-1 ancestor.
            while self.arena.get(i).depth > 1 {
                i = self.arena.get(i).parent;
            }
            let n = self.arena.get(i);
            Drop {
                state: n.state,
                x: n.x,
                y: n.y,
            }
        });
        self.arena.reset();
        chosen.or_else(|| (n1 > 0).then_some(first[0]))
    }

    /// Plays `game` until it tops out or `max_pieces` pieces are placed.
    pub fn play(&mut self, game: &mut Game, max_pieces: u32) {
        while !game.over && game.pieces < max_pieces {
            match self.choose(&game.board, game.current, game.next) {
                Some(d) => {
                    game.play(d);
                }
                None => game.over = true,
            }
        }
    }
}

/// `Option::is_none_or` for the best-so-far pair, spelled out for the crate's MSRV.
trait Worse {
    fn is_none_or_worse(&self, score: u32) -> bool;
}

impl Worse for Option<(u32, u16)> {
    #[inline]
    fn is_none_or_worse(&self, score: u32) -> bool {
        match self {
            Some((s, _)) => score < *s,
            None => true,
        }
    }
}
