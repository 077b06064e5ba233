//! The adversary seam: who gives the next piece to each beam entry, with
//! the history that takes.
//!
//! A beam entry is a game of its own, so an enemy with memory needs that
//! game's history. HATETRIS counts every well the game has seen, so it
//! reads the entry's chain of ancestors in the shared [`Ancestry`] tree
//! (its loop prevention; the search keeps the tree only for an adversary
//! that [`keeps_history`](Adversary::keeps_history)). HATETRIS Mild,
//! LOVETRIS and Burgiel need none: the piece follows from the well, or
//! from the depth alone ([`EnemyKind::stateless_piece`]).
//!
//! Brzustowski is not offered: its cycle detection compares each well with
//! the game's wells since its last switch of kink, a per-entry state the
//! search does not keep yet ([`Unsupported`]).

use crate::enemy::{hatetris_choice_with_children, EnemyKind};
use crate::movegen::{Child, MoveGen};
use crate::piece::Piece;

use super::ancestry::Ancestry;

/// An enemy the search can play against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adversary(EnemyKind);

/// The enemy cannot be searched against (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the search cannot play against {0} yet: its cycle detection needs per-game state the beam does not keep")]
pub struct Unsupported(pub EnemyKind);

impl Adversary {
    /// The adversary for `kind`.
    pub fn new(kind: EnemyKind) -> Result<Adversary, Unsupported> {
        match kind {
            EnemyKind::Brzustowski => Err(Unsupported(kind)),
            _ => Ok(Adversary(kind)),
        }
    }

    /// Which enemy this is.
    pub fn kind(self) -> EnemyKind {
        self.0
    }

    /// Whether the search must keep each entry's ancestry for it.
    pub fn keeps_history(self) -> bool {
        self.0 == EnemyKind::Hatetris
    }

    /// The piece given to entry `index` of the beam after `depth` pieces,
    /// whose move generator is `gen`; the piece's live children are left in
    /// `children` (cleared first). `ancestry` is the beam's history, which
    /// an adversary that [`keeps_history`](Adversary::keeps_history) needs.
    #[inline]
    pub(crate) fn give(
        self,
        gen: &MoveGen,
        depth: u32,
        index: usize,
        ancestry: Option<&Ancestry>,
        children: &mut Vec<Child>,
    ) -> Piece {
        if self.0 == EnemyKind::Hatetris {
            let ancestry = ancestry.expect("HATETRIS is searched with its ancestry");
            let well = gen.well();
            return hatetris_choice_with_children(
                gen,
                ancestry.may_repeat_from(well),
                |w| ancestry.count(index, well, w),
                children,
            );
        }
        let piece = self
            .0
            .stateless_piece(gen, depth)
            .expect("every adversary but HATETRIS is stateless");
        children.clear();
        gen.children(piece, children);
        piece
    }
}
