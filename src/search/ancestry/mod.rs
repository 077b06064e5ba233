//! The loop-prevention history of every beam entry.
//!
//! HATETRIS counts every well it was asked about, so the piece a beam entry
//! gets depends on the entry's whole ancestry, back to the empty well. The
//! ancestry is kept as a tree in memory: `levels[d]` holds the wells at depth
//! `d` that are still an ancestor of something in the current beam, each
//! with the index of its parent in `levels[d - 1]`. The current beam itself
//! is not a level (its wells are the beam's): only each entry's parent
//! index is kept, 4 bytes per entry.
//!
//! After each depth, nodes with no live descendant are dropped and the
//! levels are compacted (a mark-and-compact pass from the newest level back,
//! which stops at the first level that loses nothing). Beams coalesce fast,
//! so the older levels together hold about half a node per beam entry
//! (0.17 to 1.0 over a width-100,000 run).
//!
//! # Young levels hold no wells
//!
//! A lock adds 4 cells and a line removes 10, so a well `a` pieces older
//! than a child has `4a − 10·lines` cells more or fewer, and can only equal
//! the child when `a` is a multiple of 5. The children of the beam at depth
//! `d` are at depth `d + 1`, so the levels of depths `d − 3` to `d − 1`
//! (and the beam itself) can never hold one of them. Those young levels
//! keep, instead of each node's well (20 bytes), its index in its depth's
//! file (4 bytes). When a level reaches depth `d − 4` it matures: its live
//! nodes' wells are read back from its depth file, by then pruned by four
//! rounds of collection. The young levels hold most of the nodes: the
//! memory per beam entry fell from 62 to 49 bytes (widths 100,000 and
//! 300,000 over 30 depths), and a whole width-100,000 run peaked at 18 MB
//! instead of 25. The test
//! `a_well_can_only_repeat_a_multiple_of_five_pieces_later` checks the
//! rule on games that do repeat wells.
//!
//! Checking a child is then cheap in the common case: `seen` is a blocked
//! Bloom filter of every mature node's well (2 to 8 bytes per node, one
//! cache line per lookup, at most about 0.3% false hits), so a child it
//! does not hold was never seen by anyone. Only a hit walks the entry's own
//! chain, comparing real wells, so a false hit costs time, never
//! correctness. (A hash set of the wells' 64-bit hashes cost about 15
//! bytes per node.) The filter grows by each level as it matures and keeps
//! the wells of nodes dropped since, until it is full; so a depth's step
//! costs nothing that grows with the run.
//!
//! The snapshot written with each depth, and read back on resume, is in
//! `codec.rs`: written by hand, byte for byte what bincode 1 wrote before
//! it.
//!
//! Rejected: storing each entry's ancestry inline (unbounded size), or a
//! per-entry Bloom filter (a 300-deep ancestry saturates any filter small
//! enough to keep the entry under 64 bytes).

mod codec;

use crate::place::child_cells;
use crate::well::{mix64, well_hash, PackedWell, Well};

/// One older depth of the ancestry tree.
#[derive(Clone, Debug, Default)]
pub struct Level {
    /// Index into the previous level; unused at depth 0. Its length is the
    /// level's number of nodes.
    parents: Vec<u32>,
    /// Each node's well, once the level is mature; empty while young.
    wells: Vec<PackedWell>,
    /// Each node's index in its depth's file, while the level is young;
    /// empty once mature.
    in_file: Vec<u32>,
}

impl Level {
    fn len(&self) -> usize {
        self.parents.len()
    }

    fn is_mature(&self) -> bool {
        self.in_file.is_empty()
    }
}

/// Levels this many depths older than the beam, or more, hold their wells
/// (see the module doc).
pub const MATURE_AGE: usize = 4;

/// The ancestry of every entry of the current beam.
#[derive(Clone, Debug, Default)]
pub struct Ancestry {
    /// Depths 0 to the current depth − 1, live nodes only.
    levels: Vec<Level>,
    /// For each entry of the current beam, its parent in the last level
    /// (unused at depth 0, where the beam is the empty well alone).
    current: Vec<u32>,
    /// Every mature node's well, and stale ones (see [`Ancestry::index`]).
    seen: Filter,
    /// Keys put into `seen` since it was last built.
    seen_keys: usize,
    /// `cells[n]`: how many mature nodes have `n` cells.
    cells: Vec<u32>,
}

impl Ancestry {
    /// The ancestry of a beam holding only the empty well.
    pub fn root() -> Ancestry {
        Ancestry::after(&[])
    }

    /// The ancestry of a beam holding only the well a game reached after
    /// `before.len()` pieces, `before` its wells until then (the empty
    /// well first): a single chain of mature levels, one node each, so
    /// every entry's count sees the whole game (a run from a game,
    /// [`crate::run::start`]). About 100 bytes a piece, with its
    /// snapshot's 48: the 9,309-piece record's prefix costs about 1 MB.
    pub fn after(before: &[Well]) -> Ancestry {
        let mut a = Ancestry {
            levels: before
                .iter()
                .map(|w| Level {
                    parents: vec![0],
                    wells: vec![w.pack()],
                    in_file: Vec::new(),
                })
                .collect(),
            current: vec![0],
            ..Ancestry::default()
        };
        a.rebuild_index();
        a
    }

    /// Moves one depth on. `parents[j]` is the index, in the beam that is
    /// current until now, of the next beam's entry `j`. Dead ancestors are
    /// dropped, and the level that comes of age matures:
    /// `wells(depth, indices)` gives the wells at those (increasing) indices
    /// of that depth's beam file.
    pub fn push<E>(
        &mut self,
        mut parents: Vec<u32>,
        wells: impl FnMut(usize, &[u32]) -> Result<Vec<PackedWell>, E>,
    ) -> Result<(), E> {
        // The current beam becomes a young level, with only the entries
        // that have a child; the new parents are renumbered to match.
        let mut remap = vec![u32::MAX; self.current.len()];
        for &p in &parents {
            remap[p as usize] = 0;
        }
        let mut level = Level::default();
        for (i, slot) in remap.iter_mut().enumerate() {
            if *slot == 0 {
                *slot = level.len() as u32;
                level.in_file.push(i as u32);
                level.parents.push(self.current[i]);
            }
        }
        level.in_file.shrink_to_fit();
        level.parents.shrink_to_fit();
        for p in &mut parents {
            *p = remap[*p as usize];
        }
        drop(remap);
        self.levels.push(level);
        self.current = parents;
        self.collect();
        self.mature(wells)
    }

    /// Mature nodes over the older levels.
    fn mature_nodes(&self) -> usize {
        self.levels
            .iter()
            .filter(|l| l.is_mature())
            .map(Level::len)
            .sum()
    }

    /// Mark-and-compact from the newest level back.
    fn collect(&mut self) {
        for d in (1..self.levels.len()).rev() {
            let (older, newer) = self.levels.split_at_mut(d);
            let prev = &mut older[d - 1];
            let cur = &mut newer[0];
            let mut live = vec![false; prev.len()];
            for &p in &cur.parents {
                live[p as usize] = true;
            }
            if live.iter().all(|&l| l) {
                break;
            }
            let mut remap = vec![u32::MAX; prev.len()];
            let mut k = 0;
            for i in 0..prev.len() {
                if !live[i] && prev.is_mature() {
                    self.cells[prev.wells[i].cells() as usize] -= 1;
                }
                if live[i] {
                    remap[i] = k as u32;
                    prev.parents[k] = prev.parents[i];
                    if prev.is_mature() {
                        prev.wells[k] = prev.wells[i];
                    } else {
                        prev.in_file[k] = prev.in_file[i];
                    }
                    k += 1;
                }
            }
            // Give the memory back: old levels shrink to a handful of nodes,
            // and a truncated Vec would keep room for a whole beam at every
            // depth.
            for v in [&mut prev.parents, &mut prev.in_file] {
                v.truncate(k);
                v.shrink_to_fit();
            }
            prev.wells.truncate(k);
            prev.wells.shrink_to_fit();
            for p in &mut cur.parents {
                *p = remap[*p as usize];
            }
        }
    }

    /// Reads the wells of every level old enough to be compared.
    fn mature<E>(
        &mut self,
        mut wells: impl FnMut(usize, &[u32]) -> Result<Vec<PackedWell>, E>,
    ) -> Result<(), E> {
        let Some(last) = self.levels.len().checked_sub(MATURE_AGE) else {
            return Ok(());
        };
        for depth in 0..=last {
            let level = &mut self.levels[depth];
            if !level.is_mature() {
                let read = wells(depth, &level.in_file)?;
                assert_eq!(read.len(), level.len(), "one well per node");
                level.wells = read;
                level.in_file = Vec::new();
                self.index(depth);
            }
        }
        Ok(())
    }

    /// Adds the wells of level `depth`, just matured, to the lookup index.
    ///
    /// The index grows by the new level alone, so the step costs nothing
    /// that grows with the run. (The whole rebuild it replaced took 0.1 ms
    /// a depth over the first 20 depths at width 100,000, the ancestry
    /// phase of `hatetris bench search --width 100000 --depths 20`, while the
    /// mature tree is small; over a long run it holds 0.5-0.9 nodes per
    /// beam entry, and a rebuild would touch every one of them each depth.)
    /// Wells of nodes dropped since stay in the filter (the cell counts are
    /// exact), which costs a false hit now and then, never a wrong count:
    /// a hit only sends [`Ancestry::count`] to compare real wells. The
    /// filter is built again, with room for twice the live mature nodes,
    /// once it holds more keys than that room.
    fn index(&mut self, depth: usize) {
        let added = self.levels[depth].len();
        if self.seen_keys + added > self.seen.room() {
            self.rebuild_index();
            return;
        }
        index_wells(&mut self.seen, &mut self.cells, &self.levels[depth].wells);
        self.seen_keys += added;
    }

    /// Builds the lookup index from every mature node.
    fn rebuild_index(&mut self) {
        let live = self.mature_nodes();
        self.seen = Filter::with_room(2 * live);
        self.seen_keys = live;
        self.cells = vec![0; 16 * crate::well::WIDTH + 1];
        for level in self.levels.iter().filter(|l| l.is_mature()) {
            index_wells(&mut self.seen, &mut self.cells, &level.wells);
        }
    }

    /// Live nodes of each older level, from depth 0 on, and whether the
    /// level is mature (holds its wells): the tree's shape, which the
    /// sharded design's network figures rest on (`docs/distributed.md`
    /// §5.1).
    pub fn level_sizes(&self) -> Vec<(usize, bool)> {
        self.levels
            .iter()
            .map(|l| (l.len(), l.is_mature()))
            .collect()
    }

    /// The newest older depth whose level holds a single node: the
    /// latest well every entry of the beam descends from (0, the empty
    /// well, at worst; `None` at depth 0). How far back it lies says how
    /// much of the beam's breadth is real: a beam whose entries all part
    /// from one well 15 pieces back has searched 15 pieces of futures of
    /// that well, however wide it is.
    pub fn common_ancestor(&self) -> Option<usize> {
        self.levels.iter().rposition(|l| l.len() == 1)
    }

    /// For each entry of the current beam, which of the live nodes `up`
    /// levels above it is its ancestor (its index there): entries with the
    /// same number share that ancestor. Up 0 is the entry itself; past the
    /// oldest level every entry shares the game's first well. What the
    /// lineage cap counts ([`crate::search::lineage`]); it costs one pass
    /// over the levels it climbs, as young levels hold about one node per
    /// beam entry.
    pub fn ancestors(&self, up: usize) -> Vec<u32> {
        if up == 0 {
            return (0..self.current.len() as u32).collect();
        }
        let Some(from) = self.levels.len().checked_sub(up) else {
            return vec![0; self.current.len()];
        };
        let mut ids: Vec<u32> = (0..self.levels[from].len() as u32).collect();
        for level in &self.levels[from + 1..] {
            ids = level.parents.iter().map(|&p| ids[p as usize]).collect();
        }
        self.current.iter().map(|&p| ids[p as usize]).collect()
    }

    /// Live nodes over the older levels.
    pub fn nodes(&self) -> usize {
        self.levels.iter().map(Level::len).sum()
    }

    /// Whether a child of `well` could repeat any mature node (by cell
    /// count: a lock changes it by `4 − 10·lines`).
    pub fn may_repeat_from(&self, well: &Well) -> bool {
        child_cells(well.cells()).any(|n| self.cells.get(n as usize).is_some_and(|&c| c > 0))
    }

    /// How many times `well` occurs in the chain of entry `index` of the
    /// current beam, whose own well is `own` (counted too): its HATETRIS
    /// history count.
    pub fn count(&self, index: usize, own: &Well, well: &Well) -> u32 {
        let mut n = u32::from(own == well);
        if self.levels.is_empty() || !self.seen.may_contain(well_hash(well)) {
            return n;
        }
        let packed = well.pack();
        let mut i = self.current[index] as usize;
        // Young levels are skipped: none of their wells can equal a child of
        // the beam (see the module doc).
        for level in self.levels.iter().rev() {
            if level.is_mature() && level.wells[i] == packed {
                n += 1;
            }
            i = level.parents[i] as usize;
        }
        n
    }

    /// Whether `well`, the own well of entry `index` of the current beam,
    /// occurs among that entry's ancestors at depth `from` or deeper.
    /// Young levels are skipped: none of their wells can equal the entry's
    /// own (they are one to three pieces older; see the module doc).
    pub fn repeats_since(&self, index: usize, well: &Well, from: usize) -> bool {
        if self.levels.is_empty() || !self.seen.may_contain(well_hash(well)) {
            return false;
        }
        let packed = well.pack();
        let mut i = self.current[index] as usize;
        for (depth, level) in self.levels.iter().enumerate().rev() {
            if depth < from {
                break;
            }
            if level.is_mature() && level.wells[i] == packed {
                return true;
            }
            i = level.parents[i] as usize;
        }
        false
    }

    /// Checks the structure (after loading a snapshot) against a beam of
    /// `beam_len` entries, and builds the lookup index.
    pub fn validate(mut self, beam_len: usize) -> Option<Ancestry> {
        let levels = &self.levels;
        if self.current.len() != beam_len {
            return None;
        }
        if levels.is_empty() {
            if beam_len != 1 {
                return None;
            }
        } else {
            if levels[0].len() != 1 {
                return None;
            }
            let young_from = levels.len().saturating_sub(MATURE_AGE - 1);
            for (d, level) in levels.iter().enumerate() {
                let shape_ok = if level.is_mature() {
                    level.wells.len() == level.len()
                } else {
                    d >= young_from && level.wells.is_empty() && level.in_file.len() == level.len()
                };
                if !shape_ok || level.len() == 0 {
                    return None;
                }
                if d > 0
                    && level
                        .parents
                        .iter()
                        .any(|&p| p as usize >= levels[d - 1].len())
                {
                    return None;
                }
            }
            let last = levels[levels.len() - 1].len();
            if self.current.iter().any(|&p| p as usize >= last) {
                return None;
            }
        }
        self.rebuild_index();
        Some(self)
    }
}

/// Puts mature wells into the lookup index: the filter and the cell counts.
fn index_wells(seen: &mut Filter, cells: &mut [u32], wells: &[PackedWell]) {
    for w in wells {
        seen.insert(well_hash(&w.unpack()));
        cells[w.cells() as usize] += 1;
    }
}

/// A blocked Bloom filter: each key sets 5 bits of one 64-bit word, so a
/// lookup reads one word. 16 bits per key.
#[derive(Clone, Debug, Default)]
struct Filter {
    words: Vec<u64>,
}

impl Filter {
    fn with_room(keys: usize) -> Filter {
        Filter {
            words: vec![0; (keys / 4).max(1).next_power_of_two()],
        }
    }

    /// Keys it holds at its design load (16 bits a key).
    fn room(&self) -> usize {
        4 * self.words.len()
    }

    /// The word and the bits of a key.
    #[inline]
    fn place(&self, hash: u64) -> (usize, u64) {
        let z = mix64(hash);
        let word = (z >> 32) as usize & (self.words.len() - 1);
        let bits = (0..5).fold(0u64, |b, i| b | 1 << (z >> (6 * i) & 63));
        (word, bits)
    }

    fn insert(&mut self, hash: u64) {
        let (w, bits) = self.place(hash);
        self.words[w] |= bits;
    }

    #[inline]
    fn may_contain(&self, hash: u64) -> bool {
        if self.words.is_empty() {
            return false;
        }
        let (w, bits) = self.place(hash);
        self.words[w] & bits == bits
    }
}

#[cfg(test)]
mod tests;
