//! Rebuilding the winning game from a run folder, by running the emulator
//! backwards.
//!
//! The emulator runs backwards ([`crate::reverse`]), so no well is
//! re-expanded.
//!
//! # Reconstruction
//! From the chosen final well, each depth's candidate parents (with the
//! score the lines imply) are looked up in the previous depth's file through
//! its index, reading one block per lookup: the wells that lead to the
//! final one, depth by depth, form a cone (usually one or two wells wide).
//! Going backwards the history is not known, so the piece each parent was
//! given is not either; the cone is then walked forwards from the root
//! with the run's own enemy, which gives exactly one piece at each
//! well, and only that piece's placements are followed (with backtracking
//! on a dead end, which a faithful search never leaves without a way
//! through). The chain found is turned into keys by the same code as
//! `replay from-wells` ([`crate::replay::link_wells`]): each step becomes
//! the shortest key path from the spawn (BFS over (x, y, o)).
//!
//! A run from a game ([`super::start`]) walks back to its root, not to the
//! empty well, and forwards from there with the enemy that has seen the
//! game before it; the game rebuilt is the whole game, the prefix's keys
//! as its replay has them, then the search's.
//!
//! This replaces re-expanding every well of every depth, which took the
//! 86-line record 12 hours.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::shards::{shard_dir, Depth, Shards};
use super::start::Prefix;
use super::store::{StoreError, Stored};
use super::{read_manifest_file, RunError};
use crate::enemy::{Enemy, EnemyKind};
use crate::key::Key;
use crate::movegen::MoveGen;
use crate::piece::Piece;
use crate::replay::{link_wells_from, LinkError, Linked};
use crate::reverse::{parents, parents_for_piece};
use crate::well::{board_to_numbers, Board, Well};

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
        "depth {depth}: no parent of the well [{well}] (score {score}) is in depth {prev}'s file"
    )]
    NoParent {
        /// The depth whose well has no parent.
        depth: u32,
        /// `depth - 1`.
        prev: u32,
        /// Its score.
        score: u16,
        /// The well, as its 20 row integers.
        well: String,
    },
    /// A sharded run's shard folder is in none of the folders given.
    #[error("{dir} is a sharded run and shard-{shard:04} is in none of the folders given: name every machine's folder after it, or copy its shard folders in")]
    MissingShard {
        /// The run folder.
        dir: PathBuf,
        /// The shard.
        shard: u32,
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
    /// Wells after each lock, from depth 1 to the end (a run from a game:
    /// the whole game's).
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

/// A depth's blocks decoded so far, by (file, block).
type Decoded = HashMap<(usize, usize), Vec<Stored>>;

/// Opened depth files with the blocks already decoded, counting bytes read.
struct Reader<'a> {
    dir: &'a Path,
    /// Where each shard's folder is, for a sharded run.
    shard_folders: Vec<PathBuf>,
    shards: Option<Shards>,
    /// The depth open, with its blocks decoded so far.
    files: HashMap<u32, (Depth, Decoded)>,
    bytes: u64,
}

impl Reader<'_> {
    /// Depth `depth`'s file, or every shard's.
    fn open(&self, depth: u32) -> Result<Depth, StoreError> {
        match self.shards {
            None => Depth::open(self.dir, depth, None),
            Some(shards) => Depth::open_where(depth, shards, |s| {
                Some(self.shard_folders[s as usize].clone())
            }),
        }
    }

    fn find(&mut self, depth: u32, well: &Well) -> Result<Option<Stored>, KeyframeError> {
        if !self.files.contains_key(&depth) {
            // The walk goes back one depth at a time and never returns, so
            // only the depth being searched needs its blocks kept.
            self.files.clear();
            let f = self.open(depth)?;
            self.bytes += f.files().iter().map(|f| f.index_len() as u64).sum::<u64>();
            self.files.insert(depth, (f, HashMap::new()));
        }
        let (depth, blocks) = self.files.get_mut(&depth).expect("just opened");
        let at = depth.file_for(well)?;
        let file = &depth.files()[at];
        let Some(b) = file.block_for(well) else {
            return Ok(None);
        };
        if let std::collections::hash_map::Entry::Vacant(slot) = blocks.entry((at, b)) {
            self.bytes += file.block_len(b) as u64;
            slot.insert(file.block(b)?);
        }
        let block = &blocks[&(at, b)];
        Ok(block
            .binary_search_by(|e| e.well.cmp(well))
            .ok()
            .map(|i| block[i]))
    }
}

/// Plays `chain` (from the depth after the root) forwards from `root`
/// against `enemy`, which has seen the game before the root: its keys and
/// pieces.
fn link_chain(chain: &[Stored], root: &Root) -> Result<Linked, KeyframeError> {
    let boards: Vec<Board> = chain.iter().map(|s| s.well.to_board()).collect();
    link_wells_from(&root.well.to_board(), root.enemy.clone(), &boards).map_err(|e| match e {
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
    })
}

/// Walks back from `last` at `depth` taking one parent per depth: among
/// the parents in the previous depth's file with the right score, the one
/// given the enemy's stateless piece (for HATETRIS the min-max choice,
/// which it gives unless loop prevention steps in), else the first. Returns
/// the chain from the depth after `root`.
fn greedy_chain(
    reader: &mut Reader,
    enemy: EnemyKind,
    root: u32,
    depth: u32,
    last: Stored,
) -> Result<Vec<Stored>, KeyframeError> {
    let mut chain = vec![last];
    for d in (root + 1..=depth).rev() {
        let cur = *chain.last().expect("non-empty");
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
        let likely = |&&(piece, s): &&(Piece, Stored)| {
            enemy.stateless_piece(&MoveGen::new(&s.well), d - 1) == Some(piece)
        };
        let found = in_file
            .iter()
            .find(likely)
            .or_else(|| in_file.first())
            .map(|&(_, s)| s);
        match found {
            Some(s) => chain.push(s),
            None => {
                return Err(KeyframeError::NoParent {
                    depth: d,
                    prev: d - 1,
                    score: cur.score,
                    well: board_to_numbers(&cur.well.to_board()),
                })
            }
        }
    }
    chain.pop(); // the root
    chain.reverse();
    Ok(chain)
}

/// Most wells kept per depth in a [`Cone`]; more would only be other
/// routes to the same game.
const MAX_CONE: usize = 4096;

/// Most restarts of the forward walk before it gives up.
const MAX_RESTARTS: usize = 20_000;

/// Every well of each depth's file from which the final well can be
/// reached, with the placements between them: the game the search played
/// is one path through it from the root.
struct Cone {
    /// `levels[i]`: the wells of depth `root + i` in the cone, in the
    /// order found.
    levels: Vec<Vec<Stored>>,
    /// `edges[i]`: `(parent index in levels[i], child index in
    /// levels[i + 1], piece)`.
    edges: Vec<Vec<(u32, u32, Piece)>>,
}

impl Cone {
    /// Walks back from `last` at `depth` to the root, at depth `root`.
    fn back_from(
        reader: &mut Reader,
        enemy: EnemyKind,
        root: u32,
        depth: u32,
        last: Stored,
    ) -> Result<Cone, KeyframeError> {
        let n = (depth - root) as usize;
        let mut levels = vec![Vec::new(); n + 1];
        let mut edges = vec![Vec::new(); n];
        levels[n].push(last);
        for d in (1..=n).rev() {
            let at = root + d as u32;
            let mut found: Vec<Stored> = Vec::new();
            let mut index: HashMap<Well, u32> = HashMap::new();
            let mut links = Vec::new();
            for (ci, cur) in levels[d].iter().enumerate() {
                for lines in 0..=(cur.score.min(4) as u8) {
                    let pieces = enemy.pieces().iter();
                    for p in pieces.flat_map(|&piece| parents_for_piece(&cur.well, lines, piece)) {
                        let Some(s) = reader.find(at - 1, &p.well)? else {
                            continue;
                        };
                        if s.score + lines as u16 != cur.score {
                            continue;
                        }
                        let pi = match index.get(&s.well) {
                            Some(&i) => i,
                            None if found.len() < MAX_CONE => {
                                found.push(s);
                                index.insert(s.well, found.len() as u32 - 1);
                                found.len() as u32 - 1
                            }
                            None => continue,
                        };
                        links.push((pi, ci as u32, p.piece));
                    }
                }
            }
            if found.is_empty() {
                let cur = levels[d][0];
                return Err(KeyframeError::NoParent {
                    depth: at,
                    prev: at - 1,
                    score: cur.score,
                    well: board_to_numbers(&cur.well.to_board()),
                });
            }
            levels[d - 1] = found;
            edges[d - 1] = links;
        }
        Ok(Cone { levels, edges })
    }

    /// The path the enemy allows, from the root to the final well (the
    /// depth after the root first): at each well the enemy, with the
    /// history of the game so far (`root.enemy` has seen the game before
    /// the root), gives one piece, and only the cone's placements of that
    /// piece are followed, first found first. A dead end goes back to the
    /// last choice and replays from the root with the next option.
    fn forward(&self, root: &Root) -> Result<Vec<Stored>, KeyframeError> {
        let kind = root.enemy.kind();
        let depth = self.edges.len();
        // choice[d]: which of the allowed edges at depth d is taken.
        let mut choice: Vec<usize> = Vec::with_capacity(depth);
        for _ in 0..MAX_RESTARTS {
            let mut enemy = root.enemy.clone();
            let mut at = 0u32;
            let mut path = Vec::with_capacity(depth);
            let mut dead_end = None;
            for d in 0..depth {
                let piece = enemy.next_piece(&self.levels[d][at as usize].well);
                let mut options = self.edges[d]
                    .iter()
                    .filter(|&&(p, _, pc)| p == at && pc == piece)
                    .map(|&(_, c, _)| c);
                if d == choice.len() {
                    choice.push(0);
                }
                match options.nth(choice[d]) {
                    Some(c) => {
                        at = c;
                        path.push(self.levels[d + 1][c as usize]);
                    }
                    None => {
                        dead_end = Some(d);
                        break;
                    }
                }
            }
            let Some(d) = dead_end else {
                return Ok(path);
            };
            // Back to the last depth with another option to try.
            choice.truncate(d);
            match choice.last_mut() {
                Some(c) => *c += 1,
                None => {
                    return Err(KeyframeError::Forward {
                        step: d + 1,
                        reason: format!("the {kind} enemy allows no path to the final well"),
                    })
                }
            }
        }
        Err(KeyframeError::Forward {
            step: 0,
            reason: "too many dead ends going forwards".into(),
        })
    }
}

/// Rebuilds the chosen game of the run in `dir`.
pub fn reconstruct(dir: &Path, pick: Pick) -> Result<Keyframes, KeyframeError> {
    reconstruct_from(dir, &[], pick)
}

/// Rebuilds the chosen game of the run in `dir`, a sharded run's shard
/// folders found in `dir` or in any of `more` (one folder per machine,
/// gathered afterwards).
pub fn reconstruct_from(
    dir: &Path,
    more: &[PathBuf],
    pick: Pick,
) -> Result<Keyframes, KeyframeError> {
    // The manifest alone: a game is rebuilt from the depth files (and a
    // run from a game, from the game its manifest records).
    let manifest = read_manifest_file(dir)?;
    let enemy = manifest.settings.enemy;
    let prefix = manifest.settings.prefix().map_err(RunError::from)?;
    let root = Root::new(prefix.as_ref(), enemy);
    let mut shard_folders = Vec::new();
    for s in 0..manifest.shards.map_or(0, Shards::count) {
        let found = std::iter::once(dir)
            .chain(more.iter().map(PathBuf::as_path))
            .map(|d| shard_dir(d, s))
            .find(|f| f.is_dir());
        match found {
            Some(folder) => shard_folders.push(folder),
            None => {
                return Err(KeyframeError::MissingShard {
                    dir: dir.to_path_buf(),
                    shard: s,
                })
            }
        }
    }
    let mut reader = Reader {
        dir,
        shard_folders,
        shards: manifest.shards,
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
            let d = manifest.depth;
            let f = reader.open(d)?;
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
    // The quick way first: one parent per depth, the likeliest; if the game
    // does not play that chain, the cone of every parent. Either chain is
    // played forwards with the game's own enemy and history.
    let mut chain = greedy_chain(&mut reader, enemy, root.depth, depth, last)?;
    let linked = match link_chain(&chain, &root) {
        Ok(linked) => linked,
        Err(_) => {
            chain = Cone::back_from(&mut reader, enemy, root.depth, depth, last)?.forward(&root)?;
            link_chain(&chain, &root)?
        }
    };
    let mut game = match prefix {
        Some(p) => Keyframes {
            wells: p.wells[1..].to_vec(),
            scores: p.scores,
            pieces: p.pieces,
            keys: p.keys,
            bytes_read: 0,
        },
        None => Keyframes {
            wells: Vec::new(),
            scores: Vec::new(),
            pieces: Vec::new(),
            keys: Vec::new(),
            bytes_read: 0,
        },
    };
    game.wells.extend(chain.iter().map(|s| s.well));
    game.scores.extend(chain.iter().map(|s| s.score));
    game.pieces.extend(linked.pieces);
    game.keys.extend(linked.keys);
    game.bytes_read = reader.bytes;
    Ok(game)
}

/// Where the rebuilt chain begins: the run's root, its well, and the enemy
/// as the game before it left it.
struct Root {
    depth: u32,
    well: Well,
    enemy: Enemy,
}

impl Root {
    fn new(prefix: Option<&Prefix>, kind: EnemyKind) -> Root {
        match prefix {
            None => Root {
                depth: 0,
                well: Well::EMPTY,
                enemy: Enemy::new(kind),
            },
            Some(p) => Root {
                depth: p.at(),
                well: p.root(),
                enemy: p.enemy(kind),
            },
        }
    }
}
