//! Rebuilding the winning game from a run folder, by running the emulator
//! backwards.
//!
//! # Reverse moves
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
//! each parent listed really produces the child.
//!
//! # Reconstruction
//! From the chosen final well, each depth's candidate parents (with the
//! score the lines imply) are looked up in the previous depth's file through
//! its index, reading one block per lookup. The chain found is then played
//! forwards with the real HATETRIS enemy, loop history included, and each
//! step becomes the shortest key path from the spawn (BFS over (x, y, o)).
//!
//! This replaces re-expanding every well of every depth, which took the
//! 86-line record 12 hours.

use std::collections::HashMap;
use std::path::Path;

use crate::beam::store::{DepthFile, StoreError, Stored};
use crate::beam::{depth_path, read_manifest, SearchError};
use crate::enemy::{mild_choice, Enemy, EnemyKind};
use crate::key::Key;
use crate::movegen::{Child, MoveGen};
use crate::piece::{Piece, SHAPES, TOP_ROW};
use crate::replay::link;
use crate::well::{draw_board, Board, Well, BAR, FULL_ROW, HEIGHT, WIDTH};

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
    let mut rows = [0u16; 4];
    for (r, &bits) in SHAPES[piece.index()][o].iter().enumerate() {
        if bits == 0 {
            continue;
        }
        if y + r >= HEIGHT {
            return None;
        }
        let shifted = (bits as i32) << (x + 4);
        // Columns are bits 4..14 of `shifted`.
        if shifted & 0xF != 0 || shifted >> (WIDTH as i32 + 4) != 0 {
            return None;
        }
        rows[r] = (shifted >> 4) as u16;
    }
    Some(rows)
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
    for o in 0..4 {
        let piece_rows: Vec<usize> = (0..4)
            .filter(|&r| SHAPES[piece.index()][o][r] != 0)
            .collect();
        for y in 0..HEIGHT {
            if y + (TOP_ROW[piece.index()][o] as usize) < BAR {
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

/// Which game to rebuild.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The highest score; ties go to the shallowest depth.
    Best,
    /// The deepest depth reached; its highest-scoring well (ties: smallest well).
    Deepest,
}

/// Why a game could not be rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum KeyframeError {
    /// Reading the run failed.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// A depth file failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No parent was found.
    #[error(
        "depth {depth}: no parent of this well (score {score}) is in depth {prev}'s file\n{drawn}"
    )]
    NoParent {
        /// The depth whose well has no parent.
        depth: u32,
        /// `depth - 1`.
        prev: u32,
        /// Its score.
        score: u16,
        /// The well, drawn.
        drawn: String,
    },
    /// The chain does not play forwards.
    #[error("the rebuilt chain does not replay at step {step}: {reason}")]
    Forward {
        /// 1-based step.
        step: usize,
        /// Why.
        reason: String,
    },
}

/// A rebuilt game.
#[derive(Clone, Debug)]
pub struct Keyframes {
    /// Wells after each lock, from depth 1 to the end.
    pub wells: Vec<Well>,
    /// Scores after each lock.
    pub scores: Vec<u16>,
    /// The pieces the game gave.
    pub pieces: Vec<Piece>,
    /// The keys.
    pub keys: Vec<Key>,
    /// Bytes of depth files read (indexes and blocks decoded).
    pub bytes_read: u64,
}

impl Keyframes {
    /// The final score.
    pub fn score(&self) -> u16 {
        self.scores.last().copied().unwrap_or(0)
    }
}

/// Opened depth files with the blocks already decoded, counting bytes read.
struct Reader<'a> {
    dir: &'a Path,
    files: HashMap<u32, (DepthFile, HashMap<usize, Vec<Stored>>)>,
    bytes: u64,
}

impl Reader<'_> {
    fn find(&mut self, depth: u32, well: &Well) -> Result<Option<Stored>, KeyframeError> {
        if !self.files.contains_key(&depth) {
            // The walk goes back one depth at a time and never returns, so
            // only the depth being searched needs its blocks kept.
            self.files.clear();
            let f = DepthFile::open(&depth_path(self.dir, depth))?;
            self.bytes += f.index_len() as u64;
            self.files.insert(depth, (f, HashMap::new()));
        }
        let (file, blocks) = self.files.get_mut(&depth).expect("just opened");
        let Some(b) = file.block_for(well) else {
            return Ok(None);
        };
        if let std::collections::hash_map::Entry::Vacant(slot) = blocks.entry(b) {
            self.bytes += file.block_len(b) as u64;
            slot.insert(file.block(b)?);
        }
        let block = &blocks[&b];
        Ok(block
            .binary_search_by(|e| e.well.cmp(well))
            .ok()
            .map(|i| block[i]))
    }
}

/// Rebuilds the chosen game of the run in `dir`.
pub fn reconstruct(dir: &Path, pick: Pick) -> Result<Keyframes, KeyframeError> {
    let manifest = read_manifest(dir)?;
    let mut reader = Reader {
        dir,
        files: HashMap::new(),
        bytes: 0,
    };
    let (depth, last) = match pick {
        Pick::Best => {
            let b = manifest.best;
            (
                b.depth,
                Stored {
                    well: b.well,
                    score: b.score,
                },
            )
        }
        Pick::Deepest => {
            let d = manifest.depths.len() as u32;
            let f = DepthFile::open(&depth_path(dir, d))?;
            let all = f.read_all()?;
            reader.bytes += f.file_len() as u64;
            let top = all
                .iter()
                .copied()
                .max_by(|a, b| a.score.cmp(&b.score).then(b.well.cmp(&a.well)))
                .unwrap_or(Stored {
                    well: Well::EMPTY,
                    score: 0,
                });
            (d, top)
        }
    };
    // Walk back to the empty well.
    let mut chain = vec![last];
    for d in (1..=depth).rev() {
        let cur = *chain.last().expect("non-empty");
        // Parents in the previous depth's file with the right score. The one
        // the search expanded was given that piece by the game; without the
        // ancestry (not known yet, going backwards) that is the min-max
        // choice, unless loop prevention stepped in, so those come first.
        let mut in_file = Vec::new();
        for lines in 0..=(cur.score.min(4) as u8) {
            for p in parents(&cur.well, lines) {
                if let Some(s) = reader.find(d - 1, &p.well)? {
                    if s.score + lines as u16 == cur.score {
                        in_file.push((p.piece, s));
                    }
                }
            }
        }
        let found = in_file
            .iter()
            .find(|(piece, s)| mild_choice(&MoveGen::new(&s.well)) == *piece)
            .or_else(|| in_file.first())
            .map(|&(_, s)| s);
        match found {
            Some(s) => chain.push(s),
            None => {
                return Err(KeyframeError::NoParent {
                    depth: d,
                    prev: d - 1,
                    score: cur.score,
                    drawn: draw_board(&cur.well.to_board()),
                })
            }
        }
    }
    chain.reverse();
    // Forwards, with the game's own enemy and history.
    let mut enemy = Enemy::new(EnemyKind::Hatetris);
    let mut keys = Vec::new();
    let mut pieces = Vec::new();
    for (i, pair) in chain.windows(2).enumerate() {
        let piece = enemy.next_piece(&pair[0].well);
        let path =
            link(&pair[0].well.to_board(), piece, &pair[1].well.to_board()).ok_or_else(|| {
                KeyframeError::Forward {
                    step: i + 1,
                    reason: format!(
                        "the game gives {piece} here, and no {piece} placement links the wells"
                    ),
                }
            })?;
        pieces.push(piece);
        keys.extend(path);
    }
    Ok(Keyframes {
        wells: chain[1..].iter().map(|s| s.well).collect(),
        scores: chain[1..].iter().map(|s| s.score).collect(),
        pieces,
        keys,
        bytes_read: reader.bytes,
    })
}
