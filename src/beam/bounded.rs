//! The bounded ordered set that keeps the best N distinct children.
//!
//! A `BTreeSet` ordered by [`Candidate`]'s total order holds at most N
//! candidates; a hash map from well to candidate de-duplicates wells,
//! keeping the better candidate. A candidate no better than the current
//! worst of a full set is rejected after one comparison, which is what
//! nearly every child costs once the set has filled.
//!
//! The set is exact: the result is the N best distinct wells of everything
//! inserted, whatever the order of insertion, so threads can feed it in any
//! order and the beam is the same with 1 thread or 64. (An evicted well
//! cannot come back with a worse key: N better distinct wells already
//! exist.)
//!
//! Rejected: a sorted vector with inserts in the middle (quadratic; the
//! mistake that made 25M-wide beams take years).

use std::cmp::Ordering;
use std::collections::BTreeSet;

use ahash::AHashMap;

use crate::well::Well;

/// A child competing for a place in the beam.
///
/// Ordered by cost (lower is better), then score (higher is better), then
/// well, then parent index: a total order, so ties never depend on timing.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    /// Heuristic cost (lower is better).
    pub cost: f64,
    /// Lines cleared so far.
    pub score: u16,
    /// The child.
    pub well: Well,
    /// Index of the parent in the previous beam.
    pub parent: u32,
}

const _: () = assert!(std::mem::size_of::<Candidate>() == 48);

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.cost
            .total_cmp(&other.cost)
            .then(other.score.cmp(&self.score))
            .then(self.well.cmp(&other.well))
            .then(self.parent.cmp(&other.parent))
    }
}

/// What the well map keeps of a candidate: everything but the well, which
/// is the map's key (16 bytes instead of 48).
#[derive(Clone, Copy)]
struct Slot {
    cost: f64,
    score: u16,
    parent: u32,
}

impl Slot {
    fn of(c: &Candidate) -> Slot {
        Slot {
            cost: c.cost,
            score: c.score,
            parent: c.parent,
        }
    }

    fn with(self, well: Well) -> Candidate {
        Candidate {
            cost: self.cost,
            score: self.score,
            well,
            parent: self.parent,
        }
    }
}

/// At most `cap` distinct wells, the best by [`Candidate`]'s order.
pub struct Bounded {
    cap: usize,
    set: BTreeSet<Candidate>,
    by_well: AHashMap<Well, Slot>,
}

impl Bounded {
    /// An empty set holding at most `cap` wells.
    pub fn new(cap: usize) -> Bounded {
        Bounded {
            cap,
            set: BTreeSet::new(),
            by_well: AHashMap::new(),
        }
    }

    /// Offers one candidate.
    #[inline]
    pub fn insert(&mut self, c: Candidate) {
        if self.set.len() == self.cap {
            match self.set.last() {
                Some(worst) if c >= *worst => return,
                None => return, // cap 0
                _ => {}
            }
        }
        if let Some(slot) = self.by_well.get_mut(&c.well) {
            let old = slot.with(c.well);
            if c < old {
                self.set.remove(&old);
                self.set.insert(c);
                *slot = Slot::of(&c);
            }
            return;
        }
        if self.set.len() == self.cap {
            let worst = self.set.pop_last().expect("full set");
            self.by_well.remove(&worst.well);
        }
        self.set.insert(c);
        self.by_well.insert(c.well, Slot::of(&c));
    }

    /// The worst cost held, once the set is full (`None` before).
    pub fn worst_cost_if_full(&self) -> Option<f64> {
        if self.set.len() == self.cap {
            self.set.last().map(|c| c.cost)
        } else {
            None
        }
    }

    /// Number of wells held.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// The candidates, best first.
    pub fn into_sorted(self) -> Vec<Candidate> {
        self.set.into_iter().collect()
    }
}
