//! The bar: the cost above which no child can make a depth's cut, shared
//! by the expanders of each process so that such children are dropped
//! before they are sent (design §4.2).
//!
//! Two proofs give a bar, and a process keeps the lowest:
//! - an owner whose set holds `width` distinct wells: its worst kept cost;
//! - the owners' **tallies** together: after each compaction, an owner
//!   sends every process the costs at ranks `step`, `2·step`, … of its
//!   distinct wells (at most [`TALLY_POINTS`] of them). Wells have one
//!   owner each, so the tallies prove how many distinct wells cost at most
//!   any given cost, with no single owner full.
//!
//! Either way `width` distinct wells already cost no more than the bar, so
//! a child that costs more can never make the cut: the bar changes how
//! many records cross, never the result. Rejected: §4.2's histograms of
//! costs, whose bucket edges every process must agree on; a tally is exact
//! about ranks and needs none.

use std::sync::Mutex;

use crate::search::bounded::Bounded;

/// Ranks between two points of a tally, for `width` wells kept over
/// `shards` owners: a 16th of an owner's even share, so that a bar from
/// tallies overshoots the `width`-th cost by at most a 16th of the width.
pub(super) fn tally_step(width: usize, shards: usize) -> usize {
    width.div_ceil(16 * shards).max(1)
}

/// Points an owner's tally holds at most: up to 4 times its even share.
pub(super) const TALLY_POINTS: usize = 64;

/// Owner `set`'s tally: the costs at ranks `step`, `2·step`, … (from 1)
/// of the distinct wells its last compaction settled, ascending.
pub(super) fn tally(set: &Bounded, step: usize) -> Vec<f64> {
    let mut costs: Vec<f64> = set.settled().iter().map(|c| c.cost).collect();
    let ranks = (costs.len() / step).min(TALLY_POINTS);
    if ranks == 0 {
        return Vec::new();
    }
    let last = ranks * step - 1;
    if last + 1 < costs.len() {
        costs.select_nth_unstable_by(last, f64::total_cmp);
        costs.truncate(last + 1);
    }
    costs.sort_unstable_by(f64::total_cmp);
    (1..=ranks).map(|r| costs[r * step - 1]).collect()
}

/// Every owner's latest tally for one iteration, kept by the first worker
/// of each process.
///
/// A point `c` at rank `r` of an owner's tally proves `r` distinct wells of
/// that owner cost at most `c`. Counting `step` wells per point of every
/// owner, in order of cost, the cost at which the count first reaches
/// `width` is the bar.
#[derive(Default)]
pub(super) struct Tallies(Mutex<(u32, Vec<Vec<f64>>)>);

impl Tallies {
    /// Takes owner `owner`'s tally for `time`; the bar the tallies of that
    /// iteration now give, if any.
    pub(super) fn take(
        &self,
        time: u32,
        owner: usize,
        costs: Vec<f64>,
        shards: usize,
        width: usize,
    ) -> Option<f64> {
        let mut held = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if held.0 != time || held.1.len() != shards {
            if held.0 > time && held.1.len() == shards {
                return None;
            }
            *held = (time, vec![Vec::new(); shards]);
        }
        held.1[owner] = costs;
        let needed = width.div_ceil(tally_step(width, shards));
        if needed == 0 {
            return None;
        }
        let mut all: Vec<f64> = held.1.iter().flatten().copied().collect();
        if all.len() < needed {
            return None;
        }
        let (_, bar, _) = all.select_nth_unstable_by(needed - 1, f64::total_cmp);
        Some(*bar)
    }
}

/// The bar of one process for one iteration, shared by its workers: the
/// lowest cost that either proof gave (see the module doc), `+∞` until
/// one did.
pub(super) struct Bar(Mutex<(u32, f64)>);

impl Default for Bar {
    fn default() -> Self {
        Bar(Mutex::new((0, f64::INFINITY)))
    }
}

impl Bar {
    pub(super) fn get(&self, time: u32) -> f64 {
        let bar = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if bar.0 == time {
            bar.1
        } else {
            f64::INFINITY
        }
    }

    pub(super) fn lower(&self, time: u32, cost: f64) {
        let mut bar = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if time > bar.0 {
            *bar = (time, cost);
        } else if time == bar.0 && cost < bar.1 {
            bar.1 = cost;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::bounded::Candidate;
    use crate::well::mix64;
    use crate::well::PackedWell;

    /// A distinct packed well for each `i` (its rows hold `i`'s bits).
    fn well(i: u32) -> PackedWell {
        let mut words = [0u16; 10];
        words[9] = (i & 0x3ff) as u16;
        words[8] = (i >> 10 & 0x3ff) as u16;
        PackedWell::from_words(words)
    }

    /// A tiny deterministic generator, for costs with ties and spread.
    fn costs(seed: u64, n: usize) -> Vec<f64> {
        let mut z = seed;
        (0..n)
            .map(|_| {
                z = mix64(z.wrapping_add(0x9e37_79b9_7f4a_7c15));
                (z % 500) as f64 / 4.0
            })
            .collect()
    }

    /// The bar the owners' tallies give never cuts a winner: at least
    /// `width` distinct wells cost no more than it. Each owner's wells are
    /// its own (as ownership by hash makes them), each offered several
    /// times at different costs, and compacted once or more.
    #[test]
    fn a_bar_from_tallies_never_falls_below_the_width_th_cost() {
        let mut bars = 0;
        for (shards, width, per_owner) in [
            (2, 100, 80),
            (3, 1000, 700),
            (5, 64, 40),
            (2, 10, 3),
            (4, 300, 500),
        ] {
            let tallies = Tallies::default();
            let mut best: Vec<f64> = Vec::new();
            let mut bar = f64::INFINITY;
            for owner in 0..shards {
                let mut set = Bounded::new(width);
                let first = (owner * per_owner) as u32;
                let mut well_best = vec![f64::INFINITY; per_owner];
                for round in 0..3u64 {
                    let cs = costs(owner as u64 * 7 + round, per_owner);
                    for (i, &cost) in cs.iter().enumerate() {
                        well_best[i] = well_best[i].min(cost);
                        set.insert(Candidate {
                            cost,
                            well: well(first + i as u32),
                            parent: round as u32,
                        });
                    }
                    set.compact_now();
                    let step = tally_step(width, shards);
                    if let Some(b) = tallies.take(7, owner, tally(&set, step), shards, width) {
                        bar = bar.min(b);
                    }
                }
                best.extend(well_best);
            }
            if bar.is_finite() {
                bars += 1;
                let at_most = best.iter().filter(|&&c| c <= bar).count();
                assert!(at_most >= width, "{shards} × {per_owner}, width {width}: only {at_most} wells at or below the bar {bar}");
            }
        }
        assert!(bars >= 3, "the tallies gave a bar in most cases");
    }

    /// A tally is the costs at every `step`-th rank, ascending, at most
    /// `TALLY_POINTS` of them.
    #[test]
    fn a_tally_takes_every_step_th_cost() {
        let mut set = Bounded::new(1000);
        for i in 0..100u32 {
            set.insert(Candidate {
                cost: f64::from(99 - i),
                well: well(i),
                parent: 0,
            });
        }
        assert!(
            tally(&set, 10).is_empty(),
            "nothing settled before a compaction"
        );
        set.compact_now();
        assert_eq!(
            tally(&set, 10),
            (1..=10).map(|r| f64::from(r * 10 - 1)).collect::<Vec<_>>()
        );
        assert_eq!(tally(&set, 1).len(), TALLY_POINTS);
        assert!(tally(&set, 101).is_empty());
    }
}
