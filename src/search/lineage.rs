//! The lineage cap: a beam that keeps more than one line of play.
//!
//! A wide beam is, most of the time, many variations of one line: at every
//! depth of nine width-100,000 games from the 366 record's wells, all of
//! the beam's wells descended from one well 56 to 132 pieces back (10th to
//! 90th percentile), and each beam held its full width until 7 to 14
//! pieces before it died (`scripts/beam-deaths.py`, data/train/README.md,
//! "How those games die"). A sequence of the enemy's pieces that kills
//! that line kills the whole beam.
//!
//! The cap limits the wells kept at one depth that descend from any one
//! well `back` pieces earlier to `most`. The kernel keeps a pool of the
//! best [`POOL`] × `width` distinct children (the exact set, as without the
//! cap), and the cut walks the pool in the search's total order
//! ([`Candidate`]'s), keeping a child while its ancestor's count is under
//! `most`, until `width` are kept. Greedy in a total order under counts per
//! group is the best set that meets the cap within the pool (a partition
//! matroid), and it depends on nothing but the pool, so the beam is the
//! same for any thread count. When the pool has too few children of other
//! lines to fill the beam, the cut fills it with the best of those it
//! passed over: the cap never keeps fewer wells than the beam would
//! without it.
//!
//! Each child's ancestor is its parent's, which the beam's ancestry gives
//! ([`super::ancestry::Ancestry::ancestors`]), so the cap needs an enemy
//! that keeps a history (HATETRIS, Brzustowski), and resumes with it.
//!
//! # Measured: it does not help
//! Width 10,000, `wide.nnue` with the lookahead, from the 366 record's
//! wells at pieces 300 to 700 (`RECORD=data/strength/dnf-366.txt
//! STARTS="300 400 500 600 700" WIDTHS=10000 LINEAGE=BACK:MOST
//! scripts/attempts.sh runs/lineage NAME data/nets/wide.nnue`), pieces
//! lived over the five games: no cap 1,107; `80:5000` 1,107 and `60:1000`
//! 1,104 (the same games, or nearly: 60 pieces back the beam has one
//! ancestor, so the cut fills the beam back with what it passed over);
//! `40:2500` 1,070; `20:2500` 1,019; `10:1000` 943; `1:8` 956. Where the
//! cap binds, it replaces the evaluator's choices with worse wells of other
//! lines (`10:1000` from piece 300: a median 998 of the 10,000 kept wells,
//! at 87 % of the depths; the log's `replaced`), and the beam still dies as
//! one line: at its last full depth all its
//! wells descend from one well 33 to 104 pieces back (`20:2500`), as
//! without the cap. From the empty well (`ranked.nnue`, width 10,000, the
//! lookahead) `20:2500` and `40:2500` made the 102 lines of no cap, dying
//! at the same depth. The option stays for experiments at other widths and
//! with other evaluators; data/train/README.md has the table.

use rayon::slice::ParallelSliceMut;

use super::bounded::Candidate;
pub use crate::run::LineageCap;
pub use crate::run::LineageCut;

/// The pool the cut chooses from, as a multiple of the width.
pub const POOL: usize = 2;

/// The `width` children of `pool` (distinct wells, sorted by well) that the
/// cap keeps, sorted by well, and what the cut did; `ancestor[p]` is the
/// ancestor number of parent `p`'s children (run inside the caller's
/// thread pool).
pub fn cut(
    pool: Vec<Candidate>,
    ancestor: &[u32],
    width: usize,
    most: u32,
) -> (Vec<Candidate>, LineageCut) {
    let groups = ancestor.iter().max().map_or(0, |&m| m as usize + 1);
    let mut count = vec![0u32; groups];
    let group = |c: &Candidate| ancestor[c.parent as usize] as usize;
    let mut figures = LineageCut::default();
    if pool.len() <= width {
        for c in &pool {
            count[group(c)] += 1;
        }
        figures.lineages = count.iter().filter(|&&n| n > 0).count() as u32;
        return (pool, figures);
    }
    let mut order: Vec<u32> = (0..pool.len() as u32).collect();
    order.par_sort_unstable_by(|&a, &b| pool[a as usize].cmp(&pool[b as usize]));
    let mut keep = vec![false; pool.len()];
    let mut kept = 0;
    for &i in &order {
        if kept == width {
            break;
        }
        let g = group(&pool[i as usize]);
        if count[g] < most {
            count[g] += 1;
            keep[i as usize] = true;
            kept += 1;
        } else {
            figures.passed += 1;
        }
    }
    // Fill: the best of those passed over.
    for &i in &order {
        if kept == width {
            break;
        }
        if !keep[i as usize] {
            keep[i as usize] = true;
            count[group(&pool[i as usize])] += 1;
            kept += 1;
            figures.filled += 1;
        }
    }
    figures.lineages = count.iter().filter(|&&n| n > 0).count() as u32;
    figures.replaced = order[width..].iter().filter(|&&i| keep[i as usize]).count() as u64;
    let kept = pool
        .into_iter()
        .zip(keep)
        .filter_map(|(c, k)| k.then_some(c))
        .collect();
    (kept, figures)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::well::Well;
    use proptest::prelude::*;

    fn candidate(i: u16, cost: f64, parent: u32) -> Candidate {
        let mut rows = [0u16; crate::well::LIVE_ROWS];
        rows[crate::well::LIVE_ROWS - 1] = i + 1;
        Candidate {
            cost,
            well: Well::from_live_rows_unchecked(rows).pack(),
            parent,
        }
    }

    /// The slow twin, by enumeration: of the subsets of at most `width`
    /// children that keep at most `most` of each ancestor, the largest,
    /// and of those the one whose members, best first, come first in
    /// order; then, if it holds fewer than `width`, the best of the rest
    /// to fill it.
    fn by_hand(pool: &[Candidate], ancestor: &[u32], width: usize, most: u32) -> Vec<Candidate> {
        let mut sorted = pool.to_vec();
        sorted.sort();
        let mut best: Vec<Candidate> = Vec::new();
        for mask in 0u32..1 << sorted.len() {
            if mask.count_ones() as usize > width {
                continue;
            }
            let chosen: Vec<Candidate> = (0..sorted.len())
                .filter(|&i| mask >> i & 1 == 1)
                .map(|i| sorted[i])
                .collect();
            let mut per = std::collections::HashMap::new();
            for c in &chosen {
                *per.entry(ancestor[c.parent as usize]).or_insert(0u32) += 1;
            }
            if per.values().any(|&n| n > most) {
                continue;
            }
            if chosen.len() > best.len() || (chosen.len() == best.len() && chosen < best) {
                best = chosen;
            }
        }
        for c in &sorted {
            if best.len() < width && !best.contains(c) {
                best.push(*c);
            }
        }
        best.sort_by_key(|c| c.well);
        best
    }

    proptest! {
        #[test]
        fn the_cut_is_the_best_set_under_the_cap(
            costs in prop::collection::vec((0u8..6, 0u32..5), 1..11),
            ancestor in prop::collection::vec(0u32..3, 5),
            width in 1usize..8,
            most in 1u32..4,
        ) {
            let mut pool: Vec<Candidate> = costs
                .iter()
                .enumerate()
                .map(|(i, &(cost, parent))| candidate(i as u16, f64::from(cost), parent))
                .collect();
            pool.sort_by_key(|c| c.well);
            let (fast, figures) = cut(pool.clone(), &ancestor, width, most);
            let lineages: std::collections::BTreeSet<u32> =
                fast.iter().map(|c| ancestor[c.parent as usize]).collect();
            prop_assert_eq!(figures.lineages as usize, lineages.len());
            prop_assert!(figures.filled <= figures.passed);
            // Replaced: kept, and not among the best `width` of the pool.
            let mut best = pool.clone();
            best.sort();
            best.truncate(width);
            let outside = fast.iter().filter(|c| !best.contains(c)).count() as u64;
            prop_assert_eq!(figures.replaced, outside);
            prop_assert_eq!(fast, by_hand(&pool, &ancestor, width, most));
        }
    }

    #[test]
    fn a_cap_reads_back_as_written_and_refuses_nonsense() {
        let cap: LineageCap = "60:2500".parse().unwrap();
        assert_eq!(
            cap,
            LineageCap {
                back: 60,
                most: 2500
            }
        );
        assert_eq!(cap.to_string(), "60:2500");
        for bad in ["60", "0:5", "5:0", "a:b", "60:-1", ""] {
            assert!(bad.parse::<LineageCap>().is_err(), "{bad}");
        }
    }
}
