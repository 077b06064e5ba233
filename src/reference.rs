//! The slow twin of [`crate::movegen`]: a plain breadth-first search over
//! `(x, y, o)`, as the game itself does it.
//!
//! Nothing here is clever. Positions are checked cell by cell against a
//! 20-row [`Board`]; each key (`L`, `R`, `D`, `U`) is tried from each reached
//! position; a blocked `D` records a lock. It is the oracle the fast
//! generator is tested against, and, because BFS reaches every position by a
//! shortest key sequence, it is also how replays find the keys for a
//! placement ([`key_path_to`]).

use std::collections::VecDeque;

use crate::key::Key;
use crate::movegen::Outcome;
use crate::piece::Piece;
use crate::well::{Board, BAR, FULL_ROW, HEIGHT, WIDTH};

/// A piece's pose: box top-left `(x, y)` and orientation `o` (a "position"
/// elsewhere in the crate is a game's, a well with its history).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pose {
    /// Column of the box's left edge (may be negative).
    pub x: i32,
    /// Row of the box's top edge.
    pub y: i32,
    /// Orientation, 0..4.
    pub o: u8,
}

impl Pose {
    /// Where every piece spawns.
    pub const SPAWN: Pose = Pose { x: 3, y: 0, o: 0 };

    /// The position after a key, whether or not it fits.
    pub fn moved(self, key: Key) -> Pose {
        match key {
            Key::L => Pose {
                x: self.x - 1,
                ..self
            },
            Key::R => Pose {
                x: self.x + 1,
                ..self
            },
            Key::D => Pose {
                y: self.y + 1,
                ..self
            },
            Key::U => Pose {
                o: (self.o + 1) % 4,
                ..self
            },
        }
    }
}

/// Whether `piece` at `pos` lies inside the well and overlaps no block.
pub fn fits(board: &Board, piece: Piece, pos: Pose) -> bool {
    let shape = piece.shape(pos.o as usize);
    for (r, &bits) in shape.iter().enumerate() {
        for c in 0..4 {
            if bits >> c & 1 == 0 {
                continue;
            }
            let (x, y) = (pos.x + c, pos.y + r as i32);
            if x < 0 || x >= WIDTH as i32 || y < 0 || y >= HEIGHT as i32 {
                return false;
            }
            if board[y as usize] >> x & 1 == 1 {
                return false;
            }
        }
    }
    true
}

/// Locks `piece` at `pos` and applies the clearing rule; returns the outcome.
///
/// Written independently of `lock::place_and_clear` so that the two can
/// be compared.
pub fn lock(board: &Board, piece: Piece, pos: Pose) -> Outcome {
    let mut b = *board;
    let shape = piece.shape(pos.o as usize);
    let mut top = i32::MAX;
    for (r, &bits) in shape.iter().enumerate() {
        for c in 0..4 {
            if bits >> c & 1 == 1 {
                let y = pos.y + r as i32;
                b[y as usize] |= 1 << (pos.x + c);
                top = top.min(y);
            }
        }
    }
    let mut lines = 0;
    if top >= BAR as i32 {
        for r in 0..4 {
            let y = pos.y + r;
            if y < HEIGHT as i32 && b[y as usize] == FULL_ROW {
                // Remove the row: everything above moves down one.
                for yy in (1..=y as usize).rev() {
                    b[yy] = b[yy - 1];
                }
                b[0] = 0;
                lines += 1;
            }
        }
    }
    Outcome { board: b, lines }
}

/// The result of one breadth-first search from the spawn.
pub struct Bfs {
    /// Every reached position, in BFS order, with the index of its parent
    /// and the key that led to it (`None` for the spawn).
    nodes: Vec<(Pose, Option<(usize, Key)>)>,
    /// Indices into `nodes` of the positions where `D` is blocked.
    locks: Vec<usize>,
}

impl Bfs {
    /// Searches every position `piece` can reach from the spawn in `board`.
    ///
    /// Returns an empty search if the spawn position itself is blocked.
    pub fn run(board: &Board, piece: Piece) -> Bfs {
        let mut nodes = Vec::new();
        let mut locks = Vec::new();
        if !fits(board, piece, Pose::SPAWN) {
            return Bfs { nodes, locks };
        }
        // x in -3..10, y in 0..20, o in 0..4
        let index = |p: Pose| ((p.x + 3) as usize * HEIGHT + p.y as usize) * 4 + p.o as usize;
        let mut seen = vec![false; 13 * HEIGHT * 4];
        seen[index(Pose::SPAWN)] = true;
        nodes.push((Pose::SPAWN, None));
        let mut queue = VecDeque::from([0usize]);
        while let Some(i) = queue.pop_front() {
            let pos = nodes[i].0;
            for key in [Key::L, Key::R, Key::D, Key::U] {
                let next = pos.moved(key);
                if !fits(board, piece, next) {
                    if key == Key::D {
                        locks.push(i);
                    }
                    continue;
                }
                if !seen[index(next)] {
                    seen[index(next)] = true;
                    nodes.push((next, Some((i, key))));
                    queue.push_back(nodes.len() - 1);
                }
            }
        }
        Bfs { nodes, locks }
    }

    /// Every reached position, in BFS order.
    pub fn positions(&self) -> impl Iterator<Item = Pose> + '_ {
        self.nodes.iter().map(|n| n.0)
    }

    /// Every lock position, in BFS order (so by key distance).
    pub fn lock_positions(&self) -> impl Iterator<Item = Pose> + '_ {
        self.locks.iter().map(|&i| self.nodes[i].0)
    }

    /// The shortest keys from the spawn to node `i`, then the locking `D`.
    fn keys_to(&self, mut i: usize) -> Vec<Key> {
        let mut keys = vec![Key::D];
        while let Some((parent, key)) = self.nodes[i].1 {
            keys.push(key);
            i = parent;
        }
        keys.reverse();
        keys
    }
}

/// Every distinct outcome of locking `piece`, sorted, as the game's
/// `getNextCoreStates` gives them.
pub fn outcomes(board: &Board, piece: Piece) -> Vec<Outcome> {
    let search = Bfs::run(board, piece);
    let mut out: Vec<Outcome> = search
        .lock_positions()
        .map(|pos| lock(board, piece, pos))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A shortest key sequence (ending in the locking `D`) that places `piece`
/// in `board` so that the outcome is `target` (board after clears, and lines
/// cleared). `None` if no reachable placement gives it.
pub fn key_path_to(board: &Board, piece: Piece, target: &Outcome) -> Option<Vec<Key>> {
    let search = Bfs::run(board, piece);
    // Locks are recorded in BFS order, so the first match is a shortest path.
    search
        .locks
        .iter()
        .find(|&&i| lock(board, piece, search.nodes[i].0) == *target)
        .map(|&i| search.keys_to(i))
}
