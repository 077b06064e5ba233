//! The small search: a short, narrow beam kept in memory, which plays a few
//! pieces from one start well against any enemy. The trainer takes its
//! targets from it ([`survive`]: a sample's value is what the beam from it
//! reaches) and the tuner its fitness ([`reach`]: the lines a beam clears).
//!
//! From the start well, each depth gives every entry its enemy's piece,
//! costs the children with the evaluator in one batch per parent, and
//! keeps the best `width` distinct children under a total order
//! ([`Order`]), so the result depends on nothing but its inputs. After
//! `pieces` depths the beam has **survived**; if some depth has no live
//! child at all, the beam has **died** there. Reaching the last depth is
//! survival, not death: the public trainer treated it as death and so gave
//! every sample the same target (a test in `tests/train.rs` is named after
//! that rule).
//!
//! # The enemy, exactly
//! Each entry is a game of its own that began at the start well, or, from
//! an [`Origin`] after a game's prefix ([`Origin::after`], a
//! [`crate::run::Prefix`]), that went on from the prefix's last well with
//! the prefix's wells in its history; its enemy decides as the game's own
//! [`crate::enemy::Enemy`] would in that game:
//! - HATETRIS counts the entry's well and its ancestors back to the start
//!   well (its loop prevention), by walking the parents, and the prefix's
//!   wells before it (a sorted list, searched);
//! - Brzustowski keeps the big search's per-entry state (`Brz`: the step,
//!   the piece on display, the depth from which wells count as seen),
//!   and "a well repeats" is the same walk of the parents back to that
//!   depth, and on into the prefix's wells when that depth is in the
//!   prefix (depths are the whole game's: the start well's is the
//!   prefix's length);
//! - HATETRIS Mild, LOVETRIS and Burgiel need no history: the piece follows
//!   from the well, or from the pieces played since the start
//!   ([`EnemyKind::stateless_piece`]).
//!
//! A width-1 small search is therefore the greedy game the real enemy plays
//! (`tests/train.rs` holds every enemy to that slow twin from a start
//! well, `tests/strength.rs` HATETRIS from a game's prefix). The score the
//! evaluator sees is the whole game's (the prefix's lines and the
//! search's), as `search --from` ranks; what [`reach`] and [`play`] report
//! is the lines since the start well. Like the big
//! search, a well reached from two parents is kept once, from its best
//! parent, with that parent's history.
//!
//! # Layout
//! The beam is small (tens to thousands of wells, a few to a few hundred
//! depths), so it is plain vectors: one level of `Entry` per depth, each
//! entry's chain found by walking the parents. The per-depth candidate
//! buffer and the child buffer are reused; nothing is allocated per child.
//! The big search's disk-backed beam ([`super::start`]) would cost a run
//! folder per sample.

use crate::enemy::{hatetris_choice_with_children, EnemyKind};
use crate::evaluate::Evaluator;
use crate::movegen::{Child, MoveGen};
use crate::place::lines_cleared;
use crate::well::Well;

use crate::run::Prefix;

use super::adversary::{brz_after, Brz};
use super::bounded::{compact, Candidate};

/// How a small search from one well ended ([`survive`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Survival {
    /// Every entry's every placement ended the game at this depth (1 is the
    /// first piece after the start well).
    Died {
        /// The depth with no live child.
        at: u32,
    },
    /// The beam reached its last depth; `best` is the highest value among
    /// that depth's wells.
    Survived {
        /// The best value.
        best: f64,
    },
}

/// A small search's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shape {
    /// Wells kept per depth.
    pub width: usize,
    /// Pieces played from the start well.
    pub pieces: u32,
}

/// How far a small search got ([`reach`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reached {
    /// Pieces placed by the deepest level (`shape.pieces` if it survived).
    pub pieces: u32,
    /// The most lines any well of any level had cleared since the start.
    pub lines: u32,
}

/// The order a depth's children are cut in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// (cost, well, parent), each level in that order: the trainer's, which
    /// its targets were made with.
    Trainer,
    /// The search's own ([`Candidate`]'s: cost, then fewer cells, then
    /// packed well, then parent), each level sorted by packed well as the
    /// search's depth files are: from the empty well it keeps exactly the
    /// wells `hatetris search` keeps at the same width, so it reaches what
    /// the search reaches.
    Search,
}

/// Where a small search starts: a well, and the game before it (none for a
/// start well taken on its own).
#[derive(Clone, Debug)]
pub struct Origin {
    /// The start well.
    well: Well,
    /// Lines the game had cleared before it.
    score: u32,
    /// The game's wells before it, at depths 0 to `at − 1`.
    before: Vec<Well>,
    /// The same, sorted: HATETRIS's count of a well in the prefix.
    sorted: Vec<Well>,
    /// Brzustowski's state when the start well is asked about.
    brz: Brz,
}

impl Origin {
    /// A start well on its own: a game that begins there.
    pub fn well(well: Well) -> Origin {
        Origin {
            well,
            score: 0,
            before: Vec::new(),
            sorted: Vec::new(),
            brz: Brz::START,
        }
    }

    /// The last well of a game's prefix, with the prefix's wells, score and
    /// (Brzustowski) state: the game going on.
    pub fn after(prefix: &Prefix) -> Origin {
        let before = prefix.before_root().to_vec();
        let mut sorted = before.clone();
        sorted.sort_unstable();
        Origin {
            well: prefix.root(),
            score: prefix.scores.last().map_or(0, |&s| u32::from(s)),
            brz: brz_after(&before),
            before,
            sorted,
        }
    }

    /// The start well.
    pub fn start(&self) -> Well {
        self.well
    }

    /// The start well's depth in its game: the prefix's pieces.
    pub fn at(&self) -> u32 {
        self.before.len() as u32
    }

    /// How often `well` occurs in the prefix (the start well not counted).
    fn count(&self, well: &Well) -> u32 {
        if self.sorted.is_empty() {
            return 0;
        }
        let lo = self.sorted.partition_point(|w| w < well);
        let hi = self.sorted.partition_point(|w| w <= well);
        (hi - lo) as u32
    }
}

/// The game a small search played ([`play`]): the chain of the deepest
/// level's entry with the most lines (ties: the first in the level's
/// order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// Pieces placed by the deepest level (`shape.pieces` if it survived).
    pub pieces: u32,
    /// Whether the beam died: piece `pieces + 1` had no live child.
    pub died: bool,
    /// The game's wells, the start well first (`pieces + 1` of them).
    pub wells: Vec<Well>,
    /// Lines cleared since the start well after each of them (0 first).
    pub lines: Vec<u32>,
}

/// One depth's entry: its well, the lines cleared since the start, the
/// index of its parent in the previous level, and its enemy's state (the
/// Brzustowski state, [`Brz`]; 0 for the other enemies).
#[derive(Clone, Copy, Debug)]
struct Entry {
    well: Well,
    lines: u32,
    parent: u32,
    state: u32,
}

/// Plays a small search from `start` against `enemy`, ranking children
/// with `eval` (lower cost is better, the score counted from the start
/// well) in the trainer's order, and values the last depth's wells with
/// `value` (higher is better).
pub fn survive(
    start: &Well,
    shape: Shape,
    enemy: EnemyKind,
    eval: &dyn Evaluator,
    value: impl Fn(&Well) -> f64,
) -> Survival {
    survive_past(start, shape, shape.pieces, enemy, eval, value).survival
}

/// How a training beam played past its own pieces ended
/// ([`survive_past`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Past {
    /// The beam over its own pieces: [`survive`]'s result.
    pub survival: Survival,
    /// The same beam from there to the horizon, when it survived its own
    /// pieces and the horizon is past them: died at a later depth, or
    /// reached the horizon with this best value there.
    pub later: Option<Survival>,
}

impl Past {
    /// The depth the beam died at past its own pieces, if it did.
    pub fn later_death(&self) -> Option<u32> {
        match self.later {
            Some(Survival::Died { at }) => Some(at),
            _ => None,
        }
    }

    /// The best value at the horizon, if the beam reached it past its own
    /// pieces.
    pub fn far_best(&self) -> Option<f64> {
        match self.later {
            Some(Survival::Survived { best }) => Some(best),
            _ => None,
        }
    }
}

/// [`survive`], with a beam that survived going on to depth `horizon` (when
/// it is past `shape.pieces`): whether it dies there (the depth with no
/// live child) or, if not, the best value among the horizon's wells. The
/// first `shape.pieces` depths are [`survive`]'s own (a beam's depths never
/// depend on how many follow), so [`Past::survival`] is the same; the
/// trainer's life term reads the later death (`hatetris train
/// --life-pieces`), its far targets the best value there (`--far-share`).
pub fn survive_past(
    start: &Well,
    shape: Shape,
    horizon: u32,
    enemy: EnemyKind,
    eval: &dyn Evaluator,
    value: impl Fn(&Well) -> f64,
) -> Past {
    let longer = Shape {
        pieces: horizon.max(shape.pieces),
        ..shape
    };
    let (levels, died) = walk(&Origin::well(*start), longer, enemy, eval, Order::Trainer);
    let best_at = |depth: u32| {
        levels[depth as usize]
            .iter()
            .map(|e| value(&e.well))
            .fold(f64::NEG_INFINITY, f64::max)
    };
    match died {
        Some(at) if at <= shape.pieces => Past {
            survival: Survival::Died { at },
            later: None,
        },
        died => Past {
            survival: Survival::Survived {
                best: best_at(shape.pieces),
            },
            later: match died {
                Some(at) => Some(Survival::Died { at }),
                None if longer.pieces > shape.pieces => Some(Survival::Survived {
                    best: best_at(longer.pieces),
                }),
                None => None,
            },
        },
    }
}

/// Plays a small search from `start` against `enemy` in `order` and
/// reports the lines it cleared (until it dies or reaches its last
/// depth): the tuner's measure of an evaluator (`hatetris tune`).
pub fn reach(
    start: &Well,
    shape: Shape,
    enemy: EnemyKind,
    eval: &dyn Evaluator,
    order: Order,
) -> Reached {
    let (levels, _) = walk(&Origin::well(*start), shape, enemy, eval, order);
    Reached {
        pieces: levels.len() as u32 - 1,
        lines: levels
            .iter()
            .flat_map(|level| level.iter().map(|e| e.lines))
            .max()
            .unwrap_or(0),
    }
}

/// Plays a small search from `origin` against `enemy` in `order` until it
/// dies or reaches its last depth, and returns its best game (see
/// [`Played`]): the strength suite's measure (`hatetris bench strength`).
pub fn play(
    origin: &Origin,
    shape: Shape,
    enemy: EnemyKind,
    eval: &dyn Evaluator,
    order: Order,
) -> Played {
    let (levels, died) = walk(origin, shape, enemy, eval, order);
    let last = levels.last().expect("the start level");
    let mut index = 0;
    for (i, e) in last.iter().enumerate() {
        if e.lines > last[index].lines {
            index = i;
        }
    }
    let (mut wells, mut lines) = (Vec::new(), Vec::new());
    for level in levels.iter().rev() {
        let e = &level[index];
        wells.push(e.well);
        lines.push(e.lines - origin.score);
        index = e.parent as usize;
    }
    wells.reverse();
    lines.reverse();
    Played {
        pieces: levels.len() as u32 - 1,
        died: died.is_some(),
        wells,
        lines,
    }
}

/// Plays a small search from `origin` against `enemy` in `order` until it
/// dies or reaches its last depth, and returns the wells of every level
/// after the start well's (level `i` holds the wells `i + 1` pieces on):
/// the trainer samples the wells a beam keeps in a game's steady state.
pub fn levels(
    origin: &Origin,
    shape: Shape,
    enemy: EnemyKind,
    eval: &dyn Evaluator,
    order: Order,
) -> Vec<Vec<Well>> {
    let (levels, _) = walk(origin, shape, enemy, eval, order);
    levels
        .iter()
        .skip(1)
        .map(|level| level.iter().map(|e| e.well).collect())
        .collect()
}

/// The beam's levels, from the start well's to the last depth reached, and
/// the depth where no child was left, if there was one. Entries' lines are
/// the whole game's (the origin's score and the search's).
fn walk(
    origin: &Origin,
    shape: Shape,
    enemy: EnemyKind,
    eval: &dyn Evaluator,
    order: Order,
) -> (Vec<Vec<Entry>>, Option<u32>) {
    let mut levels: Vec<Vec<Entry>> = vec![vec![Entry {
        well: origin.well,
        lines: origin.score,
        parent: 0,
        state: origin.brz.0,
    }]];
    let mut children: Vec<Child> = Vec::new();
    let mut costs: Vec<f64> = Vec::new();
    let mut candidates: Vec<(f64, Entry)> = Vec::new();
    // Each parent's enemy state after its piece: its children's.
    let mut after: Vec<u32> = Vec::new();
    for depth in 1..=shape.pieces {
        let beam = levels.last().expect("the start level");
        candidates.clear();
        after.clear();
        for (index, parent) in beam.iter().enumerate() {
            let gen = MoveGen::new(&parent.well);
            after.push(give(enemy, &gen, origin, &levels, index, &mut children));
            eval.costs(&parent.well, parent.lines, &children, &mut costs);
            candidates.extend(children.iter().zip(&costs).map(|(c, &cost)| {
                (
                    cost,
                    Entry {
                        well: c.well,
                        lines: parent.lines + u32::from(c.lines),
                        parent: index as u32,
                        state: 0,
                    },
                )
            }));
        }
        if candidates.is_empty() {
            return (levels, Some(depth));
        }
        let mut level = match order {
            Order::Trainer => keep_best(&mut candidates, shape.width),
            Order::Search => keep_as_search(&candidates, shape.width, beam),
        };
        for e in &mut level {
            e.state = after[e.parent as usize];
        }
        levels.push(level);
    }
    (levels, None)
}

/// Gives entry `index` of the newest level its enemy's piece, leaving the
/// piece's children in `children`, and returns the enemy state its
/// children inherit.
fn give(
    enemy: EnemyKind,
    gen: &MoveGen,
    origin: &Origin,
    levels: &[Vec<Entry>],
    index: usize,
    children: &mut Vec<Child>,
) -> u32 {
    // The entry's depth in its game: the prefix's pieces and those played
    // since the start well.
    let level = levels.len() - 1;
    let depth = origin.at() + level as u32;
    let entry = &levels[level][index];
    let piece = match enemy {
        EnemyKind::Hatetris => {
            let seen = |w: &Well| origin.count(w) + chain_count(levels, index, w);
            // A child can repeat a well of the chain only when the chain is
            // longer than the parent itself, or of the prefix when there is
            // one; `seen` counts exactly.
            let may_repeat = levels.len() > 1 || !origin.before.is_empty();
            hatetris_choice_with_children(gen, may_repeat, seen, children);
            return 0;
        }
        EnemyKind::Brzustowski => {
            let state = Brz(entry.state);
            let after = state.after(depth, |since| {
                let since = since as usize;
                let at = origin.before.len();
                repeats_since(levels, index, &entry.well, since.saturating_sub(at))
                    || origin
                        .before
                        .get(since..)
                        .is_some_and(|b| b.contains(&entry.well))
            });
            children.clear();
            gen.children(state.display(), children);
            return after.0;
        }
        kind => kind
            .stateless_piece(gen, depth)
            .expect("every other enemy is stateless"),
    };
    children.clear();
    gen.children(piece, children);
    0
}

/// How often `well` occurs in the chain of entry `index` of the newest
/// level: the entry's own well and its ancestors back to the start well
/// (the HATETRIS history of that game).
fn chain_count(levels: &[Vec<Entry>], index: usize, well: &Well) -> u32 {
    let mut n = 0;
    let mut i = index;
    for level in levels.iter().rev() {
        let e = &level[i];
        n += u32::from(e.well == *well);
        i = e.parent as usize;
    }
    n
}

/// Whether `well` is the well of an ancestor of entry `index` of the
/// newest level at depth `since` or later (the entry itself not counted):
/// Brzustowski's "a well repeats".
fn repeats_since(levels: &[Vec<Entry>], index: usize, well: &Well, since: usize) -> bool {
    let newest = levels.len() - 1;
    let mut i = levels[newest][index].parent as usize;
    for depth in (since..newest).rev() {
        let e = &levels[depth][i];
        if e.well == *well {
            return true;
        }
        i = e.parent as usize;
    }
    false
}

/// The best `width` distinct wells of `candidates` under (cost, well,
/// parent): a well reached from two parents is kept once, from its best
/// (cost, parent). The result is in that order.
fn keep_best(candidates: &mut [(f64, Entry)], width: usize) -> Vec<Entry> {
    // One copy per well, the best: sort by well, then (cost, parent).
    candidates.sort_unstable_by(|a, b| {
        a.1.well
            .cmp(&b.1.well)
            .then(a.0.total_cmp(&b.0))
            .then(a.1.parent.cmp(&b.1.parent))
    });
    let mut distinct: Vec<(f64, Entry)> = Vec::with_capacity(candidates.len());
    for c in candidates.iter() {
        if distinct.last().is_none_or(|d| d.1.well != c.1.well) {
            distinct.push(*c);
        }
    }
    distinct.sort_unstable_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then(a.1.well.cmp(&b.1.well))
            .then(a.1.parent.cmp(&b.1.parent))
    });
    distinct.truncate(width);
    distinct.into_iter().map(|(_, e)| e).collect()
}

/// The search's cut ([`compact`], the search's own set), the level sorted
/// by packed well; each kept child's lines are its parent's plus what its
/// placement cleared.
fn keep_as_search(candidates: &[(f64, Entry)], width: usize, parents: &[Entry]) -> Vec<Entry> {
    let mut set: Vec<Candidate> = candidates
        .iter()
        .map(|(cost, e)| Candidate {
            cost: *cost,
            well: e.well.pack(),
            parent: e.parent,
        })
        .collect();
    compact(&mut set, width);
    set.sort_unstable_by_key(|c| c.well);
    set.iter()
        .map(|c| {
            let parent = &parents[c.parent as usize];
            let well = c.well.unpack();
            let cleared = lines_cleared(parent.well.cells(), 1, well.cells())
                .expect("a child is its parent and one piece, less full lines");
            Entry {
                well,
                lines: parent.lines + cleared,
                parent: c.parent,
                state: 0,
            }
        })
        .collect()
}
