//! Rebuilding the winning game from a run folder, by running the emulator
//! backwards.
//!
//! The emulator runs backwards ([`crate::reverse`]), so no well is
//! re-expanded.
//!
//! # Reconstruction
//! From the chosen final well, each depth's candidate parents (with the
//! score the lines imply) are looked up in the previous depth's file through
//! its index, reading one block per lookup. The chain found is then played
//! forwards against the run's own enemy, history included, by the same code
//! as `replay from-wells` ([`crate::replay::link_wells`]): each step
//! becomes the shortest key path from the spawn (BFS over (x, y, o)).
//!
//! This replaces re-expanding every well of every depth, which took the
//! 86-line record 12 hours.

use std::collections::HashMap;
use std::path::Path;

use super::store::{DepthFile, StoreError, Stored};
use super::{depth_path, read_manifest, RunError};
use crate::key::Key;
use crate::movegen::MoveGen;
use crate::piece::Piece;
use crate::replay::{link_wells, LinkError};
use crate::reverse::parents;
use crate::well::{draw_board, Board, Well};

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
    Run(#[from] RunError),
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
    let enemy = manifest.settings.enemy;
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
        // the search expanded was given that piece by the enemy; without the
        // history (not known yet, going backwards) that is the enemy's
        // stateless piece (for HATETRIS the min-max choice, unless loop
        // prevention stepped in), so those come first.
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
            .find(|(piece, s)| enemy.stateless_piece(&MoveGen::new(&s.well), d - 1) == Some(*piece))
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
    let boards: Vec<Board> = chain[1..].iter().map(|s| s.well.to_board()).collect();
    let linked = link_wells(&boards, enemy).map_err(|e| match e {
        LinkError::NoPlacement { step, piece, .. } => KeyframeError::Forward {
            step,
            reason: format!(
                "the game gives {piece} here, and no {piece} placement links the wells"
            ),
        },
        LinkError::AfterGameOver { step, .. } => KeyframeError::Forward {
            step,
            reason: "the game is already over".into(),
        },
    })?;
    Ok(Keyframes {
        wells: chain[1..].iter().map(|s| s.well).collect(),
        scores: chain[1..].iter().map(|s| s.score).collect(),
        pieces: linked.pieces,
        keys: linked.keys,
        bytes_read: reader.bytes,
    })
}
