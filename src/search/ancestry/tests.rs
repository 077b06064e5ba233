//! The ancestry against a recount and an index built from scratch.

use super::*;

/// The index grows a level at a time and keeps stale keys, yet after
/// every depth of a long run with heavy pruning it holds every live
/// mature well, its cell counts equal a recount, and it answers
/// `may_repeat_from` and `count` as an index built from scratch does.
#[test]
fn the_index_grown_a_level_at_a_time_answers_as_one_built_whole() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    // Wells from a small pool, so that chains repeat them.
    let pool: Vec<Well> = (0..40u16)
        .map(|i| {
            let mut rows = [0u16; crate::well::LIVE_ROWS];
            rows[crate::well::LIVE_ROWS - 1] = i % 7 + 1;
            rows[crate::well::LIVE_ROWS - 2] = i / 7;
            Well::from_live_rows_unchecked(rows)
        })
        .collect();
    let mut ancestry = Ancestry::root();
    let mut beams: Vec<Vec<Well>> = vec![vec![Well::EMPTY]];
    let mut rebuilds = 0;
    for _ in 0..120 {
        let len = beams.last().unwrap().len();
        let width = 1 + next(60);
        // Few parents have children, so old levels are pruned hard.
        let fertile: Vec<u32> = (0..1 + next(len.min(6)))
            .map(|_| next(len) as u32)
            .collect();
        let parents: Vec<u32> = (0..width).map(|_| fertile[next(fertile.len())]).collect();
        let room = ancestry.seen.room();
        ancestry
            .push(parents, |d, indices| {
                Ok::<_, ()>(
                    indices
                        .iter()
                        .map(|&i| beams[d][i as usize].pack())
                        .collect(),
                )
            })
            .unwrap();
        rebuilds += usize::from(ancestry.seen.room() != room);
        beams.push((0..width).map(|_| pool[next(pool.len())]).collect());
        let mut whole = ancestry.clone();
        whole.rebuild_index();
        assert_eq!(ancestry.cells, whole.cells);
        for level in ancestry.levels.iter().filter(|l| l.is_mature()) {
            for w in &level.wells {
                assert!(ancestry.seen.may_contain(well_hash(&w.unpack())));
            }
        }
        let beam = beams.last().unwrap();
        for (i, own) in beam.iter().enumerate() {
            assert_eq!(ancestry.may_repeat_from(own), whole.may_repeat_from(own));
            for w in &pool {
                assert_eq!(ancestry.count(i, own, w), whole.count(i, own, w));
            }
        }
    }
    assert!(rebuilds > 1, "the filter was built again as it filled");
}

/// The common ancestor is the newest depth at which every entry's chain of
/// beam indices meets, and two entries share an ancestor `up` levels above
/// them exactly when their chains meet there: the slow twin walks each
/// entry back by hand.
#[test]
fn the_common_ancestor_and_each_entrys_ancestors_are_where_chains_meet() {
    let mut rng = crate::nnue::Rng::new(11);
    let mut next = move |n: usize| rng.below(n);
    let mut ancestry = Ancestry::root();
    assert_eq!(ancestry.common_ancestor(), None);
    let mut widths = vec![1usize];
    let mut pushes: Vec<Vec<u32>> = Vec::new();
    let mut lags = std::collections::BTreeSet::new();
    for _ in 0..80 {
        let len = *widths.last().unwrap();
        let width = 1 + next(12);
        // Usually many parents, sometimes one or two: chains meet at
        // every distance.
        let most = if next(4) == 0 { 2 } else { 8 };
        let fertile: Vec<u32> = (0..1 + next(len.min(most)))
            .map(|_| next(len) as u32)
            .collect();
        let parents: Vec<u32> = (0..width).map(|_| fertile[next(fertile.len())]).collect();
        ancestry
            .push(parents.clone(), |_, indices| {
                Ok::<_, ()>(indices.iter().map(|_| Well::EMPTY.pack()).collect())
            })
            .unwrap();
        pushes.push(parents);
        widths.push(width);
        let depth = pushes.len();
        let mut chains: Vec<Vec<u32>> = (0..width as u32).map(|e| vec![e]).collect();
        for d in (0..depth).rev() {
            for chain in &mut chains {
                let at = *chain.last().unwrap();
                chain.push(pushes[d][at as usize]);
            }
        }
        // chains[e][k] is entry e's index in the beam at depth `depth - k`.
        let meet = (1..=depth)
            .find(|&k| chains.iter().all(|c| c[k] == chains[0][k]))
            .map(|k| depth - k);
        assert_eq!(ancestry.common_ancestor(), meet);
        lags.insert(depth - meet.unwrap());
        for up in 0..depth + 3 {
            let ids = ancestry.ancestors(up);
            assert_eq!(ids.len(), width);
            let at = |e: usize| chains[e][up.min(depth)];
            for e in 0..width {
                for f in 0..width {
                    assert_eq!(ids[e] == ids[f], at(e) == at(f), "up {up}, entries {e} {f}");
                }
            }
        }
    }
    assert!(lags.len() > 3, "chains met at few distances: {lags:?}");
}

/// No false negatives, and few false hits at the filter's design load.
#[test]
fn the_filter_holds_every_key_and_rarely_claims_others() {
    let keys: Vec<u64> = (0..10_000u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9))
        .collect();
    let mut f = Filter::with_room(keys.len());
    for &k in &keys {
        f.insert(k);
    }
    assert!(keys.iter().all(|&k| f.may_contain(k)));
    let false_hits = (1_000_000..1_100_000u64)
        .filter(|&k| f.may_contain(k.wrapping_mul(0x9e37_79b9)))
        .count();
    assert!(false_hits < 1_000, "{false_hits} false hits in 100,000");
}
