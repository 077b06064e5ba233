//! The training beam: a short, small, in-memory beam from one sampled well,
//! whose result is that well's training target.
//!
//! From the start well, each depth gives every entry its HATETRIS piece
//! (with loop prevention against the entry's own chain back to the start
//! well), costs the children with the evaluator in one batch per parent,
//! and keeps the best `width` distinct children under a total order (cost,
//! then well, then parent), so the result depends on nothing but its
//! inputs. After `pieces` depths the beam has **survived**, and its result
//! is the best value among the last depth's wells; if some depth has no
//! live child at all, the beam has **died** there.
//!
//! Reaching the last depth is survival, not death: the public trainer
//! treated it as death and so gave every sample the same target (a test
//! here is named after that rule).
//!
//! The beam is small (tens to hundreds of wells, about ten depths), so it
//! is plain vectors: one level of `(well, parent)` per depth, each entry's
//! chain found by walking the parents. The per-depth candidate buffer and
//! the child buffer are reused; nothing is allocated per child.

use crate::enemy::hatetris_choice_with_children;
use crate::evaluate::Evaluator;
use crate::lock::lines_cleared;
use crate::movegen::{Child, MoveGen};
use crate::search::bounded::{compact, Candidate};
use crate::well::Well;

/// How a training beam ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
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

/// A training beam's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shape {
    /// Wells kept per depth.
    pub width: usize,
    /// Pieces played from the start well.
    pub pieces: u32,
}

/// One depth's entry: its well, score gained since the start, and the index
/// of its parent in the previous level.
#[derive(Clone, Copy, Debug)]
struct Entry {
    well: Well,
    lines: u32,
    parent: u32,
}

/// Runs a training beam from `start`, ranking children with `eval` (lower
/// cost is better, the score counted from the start well) and valuing the
/// last depth's wells with `value` (higher is better).
pub fn run(
    start: &Well,
    shape: Shape,
    eval: &dyn Evaluator,
    value: impl Fn(&Well) -> f64,
) -> Outcome {
    let (levels, died) = walk(start, shape, eval);
    if let Some(at) = died {
        return Outcome::Died { at };
    }
    let last = levels.last().expect("at least one depth");
    let best = last
        .iter()
        .map(|e| value(&e.well))
        .fold(f64::NEG_INFINITY, f64::max);
    Outcome::Survived { best }
}

/// How far a beam got: see [`reach`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reached {
    /// Pieces placed by the deepest level (`shape.pieces` if it survived).
    pub pieces: u32,
    /// The most lines any well of any level had cleared since the start.
    pub lines: u32,
}

/// Runs the same beam as [`run`] and reports the lines it cleared: the
/// tuner's measure of an evaluator (`hatetris tune`).
pub fn reach(start: &Well, shape: Shape, eval: &dyn Evaluator) -> Reached {
    let (levels, _) = walk(start, shape, eval);
    reached(&levels)
}

/// [`reach`], but with the search's own order ([`Candidate`]'s: cost, then
/// fewer cells, then packed well, then parent) and each level sorted by
/// packed well, as the search's depth files are: from the empty well it
/// keeps exactly the wells the search keeps at the same width, so it
/// reaches what `hatetris search` reaches. The tuner's fitness
/// (`hatetris tune`) uses it; the trainer keeps [`reach`]'s order, which
/// its targets were made with.
pub fn reach_as_search(start: &Well, shape: Shape, eval: &dyn Evaluator) -> Reached {
    let (levels, _) = walk_with(start, shape, eval, keep_as_search);
    reached(&levels)
}

/// How far the levels of a beam got.
fn reached(levels: &[Vec<Entry>]) -> Reached {
    Reached {
        pieces: levels.len() as u32 - 1,
        lines: levels
            .iter()
            .flat_map(|level| level.iter().map(|e| e.lines))
            .max()
            .unwrap_or(0),
    }
}

/// The beam's levels, from the start well's to the last depth reached, and
/// the depth where no child was left, if there was one.
fn walk(start: &Well, shape: Shape, eval: &dyn Evaluator) -> (Vec<Vec<Entry>>, Option<u32>) {
    walk_with(start, shape, eval, |candidates, width, _| {
        keep_best(candidates, width)
    })
}

/// How a level is cut from its candidates: `(candidates, width, the
/// parents' level)`.
type Keep = fn(&mut [(f64, Entry)], usize, &[Entry]) -> Vec<Entry>;

/// [`walk`] with the cut `keep`.
fn walk_with(
    start: &Well,
    shape: Shape,
    eval: &dyn Evaluator,
    keep: Keep,
) -> (Vec<Vec<Entry>>, Option<u32>) {
    let mut levels: Vec<Vec<Entry>> = vec![vec![Entry {
        well: *start,
        lines: 0,
        parent: 0,
    }]];
    let mut children: Vec<Child> = Vec::new();
    let mut costs: Vec<f64> = Vec::new();
    let mut candidates: Vec<(f64, Entry)> = Vec::new();
    for depth in 1..=shape.pieces {
        let beam = levels.last().expect("the start level");
        candidates.clear();
        for (index, parent) in beam.iter().enumerate() {
            let gen = MoveGen::new(&parent.well);
            let seen = |w: &Well| chain_count(&levels, index, w);
            // Any child could repeat a well of the chain only when the chain
            // is longer than the parent itself; `seen` counts exactly.
            hatetris_choice_with_children(&gen, levels.len() > 1, seen, &mut children);
            eval.costs(&parent.well, parent.lines, &children, &mut costs);
            candidates.extend(children.iter().zip(&costs).map(|(c, &cost)| {
                (
                    cost,
                    Entry {
                        well: c.well,
                        lines: parent.lines + u32::from(c.lines),
                        parent: index as u32,
                    },
                )
            }));
        }
        if candidates.is_empty() {
            return (levels, Some(depth));
        }
        let level = keep(&mut candidates, shape.width, beam);
        levels.push(level);
    }
    (levels, None)
}

/// The search's cut ([`compact`], the search's own set), the level sorted
/// by packed well; each kept child's lines are its parent's plus what its
/// placement cleared.
fn keep_as_search(candidates: &mut [(f64, Entry)], width: usize, parents: &[Entry]) -> Vec<Entry> {
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
            }
        })
        .collect()
}

/// How often `well` occurs in the chain of entry `index` of the newest
/// level: the entry's own well and its ancestors back to the start well
/// (the HATETRIS history of that training game).
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
