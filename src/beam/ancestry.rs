//! The loop-prevention history of every beam entry.
//!
//! HATETRIS counts every well it was asked about, so the piece a beam entry
//! gets depends on the entry's whole ancestry, back to the empty well. The
//! ancestry is kept as a tree in memory: `levels[d]` holds the wells at depth
//! `d` that are still an ancestor of something in the current beam, each
//! with the index of its parent in `levels[d - 1]`. The last level is the
//! current beam itself, in the same order.
//!
//! After each depth, nodes with no live descendant are dropped and the
//! levels are compacted (a mark-and-compact pass from the newest level back,
//! which stops at the first level that loses nothing). Beams coalesce fast,
//! so old levels shrink to a handful of nodes; cost is 36 bytes per live node.
//!
//! Checking a child is then cheap in the common case: `seen` holds every
//! well of every live node, so a child not in it was never seen by anyone.
//! Only a hit walks the entry's own chain to count the visits.
//!
//! Rejected: storing each entry's ancestry inline (unbounded size), or a
//! per-entry Bloom filter (a 300-deep ancestry saturates any filter small
//! enough to keep the entry under 64 bytes).

use ahash::AHashSet;
use serde::{Deserialize, Serialize};

use crate::well::Well;

/// One depth of the ancestry tree.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Level {
    wells: Vec<Well>,
    /// Index into the previous level; unused at depth 0.
    parents: Vec<u32>,
}

/// The ancestry of every entry of the current beam.
#[derive(Clone, Debug, Default)]
pub struct Ancestry {
    levels: Vec<Level>,
    seen: AHashSet<Well>,
    /// `cells[n]`: whether some live node has `n` cells.
    cells: Vec<bool>,
}

impl Ancestry {
    /// The ancestry of a beam holding only the empty well.
    pub fn root() -> Ancestry {
        let mut a = Ancestry {
            levels: vec![Level {
                wells: vec![Well::EMPTY],
                parents: vec![0],
            }],
            ..Ancestry::default()
        };
        a.reindex();
        a
    }

    /// The current depth.
    pub fn depth(&self) -> usize {
        self.levels.len() - 1
    }

    /// Appends the next beam (its wells in beam order, each with the index of
    /// its parent in the current beam) and drops dead ancestors.
    pub fn push(&mut self, wells: Vec<Well>, parents: Vec<u32>) {
        debug_assert_eq!(wells.len(), parents.len());
        self.levels.push(Level { wells, parents });
        self.collect();
        self.reindex();
    }

    /// Mark-and-compact from the newest level back.
    fn collect(&mut self) {
        for d in (1..self.levels.len()).rev() {
            let (older, newer) = self.levels.split_at_mut(d);
            let prev = &mut older[d - 1];
            let cur = &mut newer[0];
            let mut live = vec![false; prev.wells.len()];
            for &p in &cur.parents {
                live[p as usize] = true;
            }
            if live.iter().all(|&l| l) {
                break;
            }
            let mut remap = vec![u32::MAX; prev.wells.len()];
            let mut k = 0;
            for i in 0..prev.wells.len() {
                if live[i] {
                    remap[i] = k as u32;
                    prev.wells[k] = prev.wells[i];
                    prev.parents[k] = prev.parents[i];
                    k += 1;
                }
            }
            prev.wells.truncate(k);
            prev.parents.truncate(k);
            // Give the memory back: old levels shrink to a handful of nodes,
            // and a truncated Vec would keep room for a whole beam at every
            // depth (3.6 MB per depth at width 100,000).
            prev.wells.shrink_to_fit();
            prev.parents.shrink_to_fit();
            for p in &mut cur.parents {
                *p = remap[*p as usize];
            }
        }
    }

    fn reindex(&mut self) {
        self.seen.clear();
        self.cells = vec![false; 16 * crate::well::WIDTH + 1];
        for level in &self.levels {
            for w in &level.wells {
                self.seen.insert(*w);
                self.cells[w.cells() as usize] = true;
            }
        }
    }

    /// Live nodes over all levels.
    pub fn nodes(&self) -> usize {
        self.levels.iter().map(|l| l.wells.len()).sum()
    }

    /// Whether a child of `well` could repeat any live ancestor (by cell
    /// count: a lock changes it by `4 − 10·lines`).
    pub fn may_repeat_from(&self, well: &Well) -> bool {
        let after = well.cells() as i32 + 4;
        (0..=4).any(|lines| {
            let n = after - 10 * lines;
            n >= 0 && self.cells.get(n as usize).copied().unwrap_or(false)
        })
    }

    /// How many times `well` occurs in the chain of entry `index` of the
    /// current beam (the entry itself included): its HATETRIS history count.
    pub fn count(&self, index: usize, well: &Well) -> u32 {
        if !self.seen.contains(well) {
            return 0;
        }
        let mut n = 0;
        let mut i = index;
        for level in self.levels.iter().rev() {
            if level.wells[i] == *well {
                n += 1;
            }
            i = level.parents[i] as usize;
        }
        n
    }

    /// The wells of the current beam's entry `index`'s chain, from the empty
    /// well to the entry.
    pub fn chain(&self, index: usize) -> Vec<Well> {
        let mut out = Vec::with_capacity(self.levels.len());
        let mut i = index;
        for level in self.levels.iter().rev() {
            out.push(level.wells[i]);
            i = level.parents[i] as usize;
        }
        out.reverse();
        out
    }

    /// The levels, for saving.
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }

    /// Rebuilds from saved levels.
    pub fn from_levels(levels: Vec<Level>) -> Option<Ancestry> {
        // Check the structure so that a damaged snapshot is an error, not a panic.
        if levels.is_empty() || levels[0].wells.len() != 1 {
            return None;
        }
        for d in 0..levels.len() {
            if levels[d].wells.len() != levels[d].parents.len() {
                return None;
            }
            if d > 0
                && levels[d]
                    .parents
                    .iter()
                    .any(|&p| p as usize >= levels[d - 1].wells.len())
            {
                return None;
            }
        }
        let mut a = Ancestry {
            levels,
            ..Ancestry::default()
        };
        a.reindex();
        Some(a)
    }

    /// The current beam's wells, in order.
    pub fn current(&self) -> &[Well] {
        &self.levels.last().expect("at least the root").wells
    }
}
