//! Reverse moves: every well and placement that a lock could have come
//! from, the emulator run backwards.
//!
//! Given a live well W and the lines `k` its last lock cleared, the parents
//! are every well P and placement such that locking that piece in P gives
//! W. For each piece, orientation and position whose cells fit the walls:
//! - `k = 0`: the cells must lie wholly inside W's filled cells; P is W
//!   without them.
//! - `k > 0`: choose which `k` of the piece's rows were the cleared ones,
//!   rebuild the pre-clear board M by inserting full rows there (the rows of
//!   W slide up past them), and require the cells inside M; P is M without
//!   them.
//!
//! Candidates no live game can reach are pruned: blocks above the bar, a
//! non-empty row above an empty one, a lock above the bar. Every candidate
//! that survives is then checked forwards with the fast move generator, so
//! each parent listed really produces the child; the tests check the other
//! direction (every forward move is found backwards).

use crate::movegen::{Child, MoveGen};
use crate::piece::{Piece, SHAPES};
use crate::place::{cell_rows_checked, locks_above_bar};
use crate::well::{Board, Well, BAR, FULL_ROW, HEIGHT, WIDTH};

/// One way a well could have been made: the parent and the placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parent {
    /// The well before the lock.
    pub well: Well,
    /// The piece placed.
    pub piece: Piece,
    /// Box column.
    pub x: i32,
    /// Box row.
    pub y: usize,
    /// Orientation.
    pub o: usize,
}

/// The cell rows of a placement, or `None` if it leaves the well.
fn placement_rows(piece: Piece, o: usize, x: i32, y: usize) -> Option<[u16; 4]> {
    let rows = cell_rows_checked(piece, o, x)?;
    let below_floor = (0..4).any(|r| rows[r] != 0 && y + r >= HEIGHT);
    (!below_floor).then_some(rows)
}

/// Whether a board could occur in a live game: nothing above the bar and no
/// empty row under a non-empty one.
fn plausible(b: &Board) -> bool {
    if b[..BAR].iter().any(|&r| r != 0) {
        return false;
    }
    let top = b.iter().position(|&r| r != 0).unwrap_or(HEIGHT);
    b[top..].iter().all(|&r| r != 0)
}

/// Every parent of `child` whose last lock cleared `lines` lines, for one
/// piece, deduplicated by parent well.
pub fn parents_for_piece(child: &Well, lines: u8, piece: Piece) -> Vec<Parent> {
    let w = child.to_board();
    let k = lines as usize;
    let mut out: Vec<Parent> = Vec::new();
    let mut buf: Vec<Child> = Vec::new();
    if k > 4 || w[..k].iter().any(|&r| r != 0) {
        return out;
    }
    let target = Child {
        well: *child,
        lines,
    };
    for (o, shape) in SHAPES[piece.index()].iter().enumerate() {
        let piece_rows: Vec<usize> = (0..4).filter(|&r| shape[r] != 0).collect();
        for y in 0..HEIGHT {
            if locks_above_bar(piece, o, y) {
                continue; // such a lock ends the game and clears nothing
            }
            for x in -3..WIDTH as i32 {
                let Some(cells) = placement_rows(piece, o, x, y) else {
                    continue;
                };
                // Which of the piece's rows were the cleared ones.
                for_each_subset(&piece_rows, k, |cleared| {
                    let mut m: Board = [0; HEIGHT];
                    let mut src = HEIGHT;
                    for i in (0..HEIGHT).rev() {
                        if cleared.iter().any(|&r| y + r == i) {
                            m[i] = FULL_ROW;
                        } else {
                            src -= 1;
                            m[i] = w[src];
                        }
                    }
                    let mut p = m;
                    for r in 0..4 {
                        if cells[r] != 0 {
                            if m[y + r] & cells[r] != cells[r] {
                                return;
                            }
                            p[y + r] &= !cells[r];
                        }
                    }
                    if !plausible(&p) {
                        return;
                    }
                    let parent = Well::from_board_unchecked(&p);
                    if out.iter().any(|q| q.well == parent) {
                        return;
                    }
                    buf.clear();
                    MoveGen::new(&parent).children(piece, &mut buf);
                    if buf.contains(&target) {
                        out.push(Parent {
                            well: parent,
                            piece,
                            x,
                            y,
                            o,
                        });
                    }
                });
            }
        }
    }
    out
}

/// Every parent of `child` for every piece (see [`parents_for_piece`]).
pub fn parents(child: &Well, lines: u8) -> Vec<Parent> {
    Piece::ALL
        .iter()
        .flat_map(|&p| parents_for_piece(child, lines, p))
        .collect()
}

/// Calls `f` with every `k`-element subset of `items`.
fn for_each_subset(items: &[usize], k: usize, mut f: impl FnMut(&[usize])) {
    fn go(items: &[usize], k: usize, chosen: &mut Vec<usize>, f: &mut dyn FnMut(&[usize])) {
        if chosen.len() == k {
            f(chosen);
            return;
        }
        for (i, &it) in items.iter().enumerate() {
            chosen.push(it);
            go(&items[i + 1..], k, chosen, f);
            chosen.pop();
        }
    }
    go(items, k, &mut Vec::with_capacity(k), &mut f);
}
