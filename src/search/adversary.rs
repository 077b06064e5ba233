//! The adversary seam: who gives the next piece to each beam entry, with
//! the history that takes.
//!
//! A beam entry is a game of its own, so an enemy with memory needs that
//! game's history (`BeamHistory`):
//! - HATETRIS counts every well the game has seen, so it reads the entry's
//!   chain of ancestors in the shared [`Ancestry`] tree (its loop
//!   prevention);
//! - Brzustowski gives S until a well repeats, one more S, then Z until a
//!   well repeats, one more Z, and so on, forgetting the wells at each
//!   switch. Its state per entry is three small numbers, packed in a `u32`
//!   (`Brz`): the step, the piece on display, and the depth of the last
//!   switch; "a well repeats" is a walk of the entry's ancestry back to that
//!   depth ([`Ancestry::repeats_since`]);
//! - HATETRIS Mild, LOVETRIS and Burgiel need none: the piece follows from
//!   the well, or from the depth alone ([`EnemyKind::stateless_piece`]).
//!
//! The history is snapshotted with each depth (`BeamHistory::to_snapshot`):
//! HATETRIS's is the ancestry's own snapshot (so older runs resume);
//! Brzustowski's adds the per-entry states behind it.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::enemy::{hatetris_choice_with_children, EnemyKind};
use crate::movegen::{Child, MoveGen};
use crate::piece::Piece;
use crate::run::store::StoreError;
use crate::well::{PackedWell, Well};

use super::ancestry::Ancestry;

/// An enemy the search can play against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adversary(EnemyKind);

impl Adversary {
    /// The adversary for `kind` (every enemy the game has).
    pub fn new(kind: EnemyKind) -> Adversary {
        Adversary(kind)
    }

    /// Which enemy this is.
    pub fn kind(self) -> EnemyKind {
        self.0
    }

    /// Whether the search must keep a `BeamHistory` for it.
    pub fn keeps_history(self) -> bool {
        matches!(self.0, EnemyKind::Hatetris | EnemyKind::Brzustowski)
    }

    /// The piece given to entry `index` of the beam after `depth` pieces,
    /// whose move generator is `gen`; the piece's live children are left in
    /// `children` (cleared first). An adversary that
    /// [`keeps_history`](Adversary::keeps_history) reads `history`, and
    /// Brzustowski writes the state its children inherit to `next[index]`
    /// (`next` is empty for the others).
    #[inline]
    pub(crate) fn give(
        self,
        gen: &MoveGen,
        depth: u32,
        index: usize,
        history: Option<&BeamHistory>,
        next: &[AtomicU32],
        children: &mut Vec<Child>,
    ) -> Piece {
        let piece = match self.0 {
            EnemyKind::Hatetris => {
                let ancestry = &history.expect("HATETRIS keeps its history").ancestry;
                let well = gen.well();
                return hatetris_choice_with_children(
                    gen,
                    ancestry.may_repeat_from(well),
                    |w| ancestry.count(index, well, w),
                    children,
                );
            }
            EnemyKind::Brzustowski => {
                let h = history.expect("Brzustowski keeps its history");
                let state = Brz(h.states[index]);
                let after = state.after(depth, |since| {
                    h.ancestry.repeats_since(index, gen.well(), since as usize)
                });
                next[index].store(after.0, Ordering::Relaxed);
                state.display()
            }
            kind => kind
                .stateless_piece(gen, depth)
                .expect("every other enemy is stateless"),
        };
        children.clear();
        gen.children(piece, children);
        piece
    }
}

/// The state of one Brzustowski game, as the game's "Algorithm 2" keeps it
/// between calls: bits 0-1 the step minus one (1: S kinks, 2: one more Z
/// after a repeat, 3: Z kinks, 4: one more S), bit 2 the piece on display
/// (S or Z), bits 3-31 the depth from which wells count as seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Brz(pub u32);

impl Brz {
    /// A new game: step 1, S on display, every well counts.
    pub const START: Brz = Brz(0);

    fn step(self) -> u32 {
        (self.0 & 3) + 1
    }

    pub(crate) fn display(self) -> Piece {
        if self.0 & 4 == 0 {
            Piece::S
        } else {
            Piece::Z
        }
    }

    fn since(self) -> u32 {
        self.0 >> 3
    }

    fn new(step: u32, display: Piece, since: u32) -> Brz {
        Brz((step - 1) | u32::from(display == Piece::Z) << 2 | since << 3)
    }

    /// The state after the game asks for a piece in the well at `depth`
    /// (the piece given is this state's display): `repeats(since)` tells
    /// whether the well occurred at depth `since` or later. The same steps
    /// as [`crate::enemy::Brzustowski::next`], which the tests hold it to.
    pub(crate) fn after(self, depth: u32, repeats: impl FnOnce(u32) -> bool) -> Brz {
        match self.step() {
            step @ (1 | 3) => {
                let (kink, other) = if step == 1 {
                    (Piece::S, Piece::Z)
                } else {
                    (Piece::Z, Piece::S)
                };
                if repeats(self.since()) {
                    Brz::new(step + 1, other, self.since())
                } else {
                    Brz::new(step, kink, self.since())
                }
            }
            // The game forgets its wells; the next well is the first seen.
            2 => Brz::new(3, Piece::Z, depth + 1),
            _ => Brz::new(1, Piece::S, depth + 1),
        }
    }
}

/// The history an adversary keeps for every entry of the current beam:
/// each entry's game so far, as far as the enemy's choice reads it (for
/// HATETRIS, its loop prevention). Not [`crate::enemy::History`], which is
/// one game's.
#[derive(Clone, Debug)]
pub(crate) struct BeamHistory {
    /// Every entry's chain of ancestors.
    pub ancestry: Ancestry,
    /// Brzustowski: each entry's state (`Brz`); empty for HATETRIS.
    pub states: Vec<u32>,
}

const BRZ_MAGIC: &[u8; 8] = b"HTBRZST1";

impl BeamHistory {
    /// The history of a beam holding only the root: the empty well
    /// (`before` empty), or the well a game reached after `before`, its
    /// wells until then from the empty well (a run from a game).
    pub fn root(adversary: Adversary, before: &[Well]) -> BeamHistory {
        let states = match adversary.kind() {
            EnemyKind::Brzustowski => vec![brz_after(before).0],
            _ => Vec::new(),
        };
        BeamHistory {
            ancestry: Ancestry::after(before),
            states,
        }
    }

    /// Per-entry state slots for the next depth's states, for a beam of
    /// `len` entries (none when the adversary keeps no states).
    pub fn next_slots(&self, len: usize) -> Vec<AtomicU32> {
        match self.states.is_empty() {
            true => Vec::new(),
            false => (0..len).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    /// Moves one depth on: `parents[j]` is the index of the next beam's
    /// entry `j` in the current one; `next` the states [`Adversary::give`]
    /// left in the slots of [`BeamHistory::next_slots`], by entry of the
    /// current beam (empty for an adversary without states); `wells` reads
    /// a depth file's wells (see [`Ancestry::push`]).
    pub fn push(
        &mut self,
        parents: Vec<u32>,
        next: Vec<u32>,
        wells: impl FnMut(usize, &[u32]) -> Result<Vec<PackedWell>, StoreError>,
    ) -> Result<(), StoreError> {
        if !next.is_empty() {
            self.states = parents.iter().map(|&p| next[p as usize]).collect();
        }
        self.ancestry.push(parents, wells)
    }

    /// The snapshot at `depth`: the ancestry's own format for HATETRIS;
    /// for Brzustowski the magic `HTBRZST1`, the ancestry snapshot's length
    /// (u64 LE) and bytes, then the states (u32 LE each) and their CRC-32.
    pub fn to_snapshot(&self, depth: u32) -> Vec<u8> {
        let ancestry = self.ancestry.to_snapshot(depth);
        if self.states.is_empty() {
            return ancestry;
        }
        let mut out = Vec::with_capacity(ancestry.len() + 20 + 4 * self.states.len());
        out.extend_from_slice(BRZ_MAGIC);
        out.extend_from_slice(&(ancestry.len() as u64).to_le_bytes());
        out.extend_from_slice(&ancestry);
        let states: Vec<u8> = self.states.iter().flat_map(|s| s.to_le_bytes()).collect();
        out.extend_from_slice(&states);
        out.extend_from_slice(&crc32fast::hash(&states).to_le_bytes());
        out
    }

    /// Reads a snapshot of `adversary`'s history at `depth`, checked against
    /// a beam of `beam_len` entries; `None` when anything is off.
    pub fn from_snapshot(
        adversary: Adversary,
        bytes: &[u8],
        depth: u32,
        beam_len: usize,
    ) -> Option<BeamHistory> {
        if adversary.kind() != EnemyKind::Brzustowski {
            return Some(BeamHistory {
                ancestry: Ancestry::from_snapshot(bytes, depth, beam_len)?,
                states: Vec::new(),
            });
        }
        if bytes.len() < 16 || &bytes[..8] != BRZ_MAGIC {
            return None;
        }
        let len = usize::try_from(u64::from_le_bytes(bytes[8..16].try_into().ok()?)).ok()?;
        let rest = bytes.get(16..)?;
        let (ancestry, tail) = (rest.get(..len)?, rest.get(len..)?);
        let (states, crc) = tail.split_at_checked(tail.len().checked_sub(4)?)?;
        if states.len() != 4 * beam_len || crc32fast::hash(states).to_le_bytes() != crc {
            return None;
        }
        Some(BeamHistory {
            ancestry: Ancestry::from_snapshot(ancestry, depth, beam_len)?,
            states: states
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        })
    }
}

/// Plays `wells` (the game's wells after each lock, from the empty well)
/// through `Brz` and returns the piece given at each well: the twin the
/// tests hold against the game's own [`crate::enemy::Brzustowski`]. A well
/// is looked for among the earlier ones directly, not through an ancestry.
pub fn brzustowski_pieces(wells: &[Well]) -> Vec<Piece> {
    let mut out = Vec::with_capacity(wells.len());
    brz_walk(wells, |state| out.push(state.display()));
    out
}

/// The state after the game asked for a piece at each of `wells` (from
/// the empty well): the state the next well's request reads.
pub(super) fn brz_after(wells: &[Well]) -> Brz {
    brz_walk(wells, |_| {})
}

/// Plays `wells` through `Brz`, telling `asked` of the state each well is
/// asked about with; the state after the last.
fn brz_walk(wells: &[Well], mut asked: impl FnMut(Brz)) -> Brz {
    let mut state = Brz::START;
    for (d, well) in wells.iter().enumerate() {
        asked(state);
        state = state.after(d as u32, |since| wells[since as usize..d].contains(well));
    }
    state
}
