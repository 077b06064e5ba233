//! Rule tests for Hatris.

use bots::common::weights as wfile;
use bots::common::SplitMix64;
use bots::hatris::bot::{
    evaluate, metrics, permutation_distance, Bot, PileStats, Weights, ARTICLE_WEIGHTS, METRIC_NAMES,
};
use bots::hatris::hats::{Hat, Helper, BASE_HEIGHT, CASH, NEST};
use bots::hatris::prng::{allowed, Pair, Prng};
use bots::hatris::sim::{
    alexey_options, Board, Game, Move, Pile, Pool, Rules, MAX_ALEXEY_MOVES, SPAWN_ALTITUDE,
};
use bots::hatris::stats::{run_batch, run_game};

use Hat::*;

fn board(piles: [&[Hat]; 6]) -> Board {
    let mut b = Board::default();
    for (c, hats) in piles.iter().enumerate() {
        b.piles[c] = Pile::from_hats(hats).unwrap();
    }
    b
}

fn ids(p: &Pile) -> Vec<u8> {
    p.ids().to_vec()
}

fn pairs_of(frames: &[u8], shop: u8, stage: u8, repick: bool) -> Vec<(u8, u8)> {
    let mut prng = Prng::new_game();
    frames
        .iter()
        .map(|&f| {
            let mut f = f;
            let p = prng.next_pair(&mut f, shop, stage, repick);
            (p[0].id(), p[1].id())
        })
        .collect()
}

/// Frame counter at each of the first 20 picks: the new game at frame 60,
/// then a spawn every 45 frames (the counter is one byte).
fn schedule() -> Vec<u8> {
    (0..20).map(|i| ((60 + 45 * i) % 256) as u8).collect()
}

#[test]
fn hatris_prng_first_pick_matches_the_listing_by_hand() {
    // New game: h1 = 63 ($3F), h2 = 133 ($85); frame 60 ($3C); carry set.
    // Call 1: $3C^$3F = $03, ROR with C=1 -> $81 (129), C=1;
    //         $3C^$85 = $B9, ROL with C=1 -> $73 (115), C=1.
    //         hats 129%6+1 = 4 (cap), 115%6+1 = 2 (wizard): a wizard at
    //         stage 0 is rejected (CMP #$02 equal: carry set again).
    // Call 2: $3C^$81 = $BD, ROR C=1 -> $DE (222), C=1;
    //         $3C^$73 = $4F, ROL C=1 -> $9F (159), C=0.
    //         hats 222%6+1 = 1 (top), 159%6+1 = 4 (cap): accepted.
    let mut prng = Prng::new_game();
    assert_eq!(prng.randomize(60), (4, 2));
    assert_eq!((prng.h1, prng.h2), (129, 115));
    assert_eq!(prng.randomize(60), (1, 4));
    assert_eq!((prng.h1, prng.h2), (222, 159));

    let mut prng = Prng::new_game();
    let mut frame = 60;
    assert_eq!(prng.next_pair(&mut frame, 0, 0, true), [Top, Cap]);
}

#[test]
fn hatris_prng_first_20_pairs_from_power_on_at_level_0() {
    // Derived by stepping the listing's instructions one by one (an
    // independent script, not this crate), with the carry rules and the
    // 45-re-rolls-per-frame guard documented in `prng.rs`. Level 0 allows
    // only tops (1), caps (4) and cowboys (6). Re-rolls at a fixed frame
    // converge on a fixed point, hence the many repeats.
    let want = [
        (1, 4),
        (1, 4),
        (4, 1),
        (4, 1),
        (4, 1),
        (4, 1),
        (1, 1),
        (1, 6),
        (4, 1),
        (4, 1),
        (4, 4),
        (1, 6),
        (4, 1),
        (4, 4),
        (4, 6),
        (4, 6),
        (1, 6),
        (6, 1),
        (1, 4),
        (1, 4),
    ];
    assert_eq!(pairs_of(&schedule(), 0, 0, true), want);
}

#[test]
fn hatris_prng_first_20_pairs_from_power_on_in_shop_1() {
    // Same schedule, all six types allowed: with and without the re-pick.
    let with = [
        (4, 2),
        (3, 2),
        (5, 1),
        (1, 3),
        (4, 3),
        (5, 3),
        (6, 1),
        (1, 5),
        (4, 3),
        (3, 1),
        (3, 5),
        (2, 4),
        (4, 6),
        (4, 3),
        (2, 4),
        (1, 2),
        (4, 1),
        (2, 3),
        (6, 2),
        (4, 2),
    ];
    let without = [
        (4, 2),
        (5, 5),
        (4, 3),
        (6, 3),
        (3, 2),
        (5, 2),
        (6, 5),
        (1, 3),
        (4, 1),
        (3, 5),
        (3, 5),
        (2, 6),
        (4, 4),
        (4, 3),
        (2, 4),
        (3, 3),
        (2, 3),
        (6, 1),
        (4, 4),
        (6, 5),
    ];
    assert_eq!(pairs_of(&schedule(), 1, 0, true), with);
    assert_eq!(pairs_of(&schedule(), 1, 0, false), without);
}

#[test]
fn hatris_stage_exclusions_hide_crowns_wizards_and_derbies_early() {
    assert!(!allowed(3, 1, 0, 5) && allowed(3, 1, 0, 6));
    assert!(!allowed(1, 2, 0, 2) && allowed(1, 2, 0, 3));
    assert!(!allowed(5, 1, 0, 0) && allowed(5, 1, 0, 1));
    assert!(allowed(3, 2, 1, 0));
    let mut rng = SplitMix64::new(7);
    for stage in 0..10u8 {
        let mut prng = Prng::new_game();
        let mut seen = [false; 7];
        for _ in 0..2000 {
            let mut f = rng.below(256) as u8;
            let p = prng.next_pair(&mut f, 0, stage, true);
            seen[p[0].id() as usize] = true;
            seen[p[1].id() as usize] = true;
        }
        assert_eq!(seen[3], stage >= 6, "crown at stage {stage}");
        assert_eq!(seen[2], stage >= 3, "wizard at stage {stage}");
        assert_eq!(seen[5], stage >= 1, "derby at stage {stage}");
        assert!(seen[1] && seen[4] && seen[6]);
    }
}

#[test]
fn hatris_repick_cuts_matching_pairs_from_one_in_six_to_one_in_thirty_six() {
    let count = |repick: bool| {
        let mut prng = Prng::new_game();
        let mut rng = SplitMix64::new(11);
        let n = 36_000;
        let same = (0..n)
            .filter(|_| {
                let mut f = rng.below(256) as u8;
                let p = prng.next_pair(&mut f, 1, 0, repick);
                p[0] == p[1]
            })
            .count();
        same as f64 / n as f64
    };
    let (with, without) = (count(true), count(false));
    assert!(
        (without - 1.0 / 6.0).abs() < 0.02,
        "without re-pick {without}"
    );
    assert!((with - 1.0 / 36.0).abs() < 0.01, "with re-pick {with}");
}

#[test]
fn hatris_nesting_heights_follow_the_base_and_nest_tables() {
    for a in Hat::ALL {
        let p = Pile::from_hats(&[a]).unwrap();
        assert_eq!(p.height(), BASE_HEIGHT[a as usize - 1]);
        for b in Hat::ALL {
            let p = Pile::from_hats(&[a, b]).unwrap();
            let want = BASE_HEIGHT[a as usize - 1] + NEST[b as usize - 1][a as usize - 1];
            assert_eq!(p.height(), want, "{b:?} on {a:?}");
        }
    }
    // Wizard on top: 20 + 8; cap on wizard: + 8; top on cap: + 18.
    let p = Pile::from_hats(&[Top, Wizard, Cap, Top]).unwrap();
    assert_eq!(p.tops(), &[20, 28, 36, 54]);
}

#[test]
fn hatris_five_identical_hats_vanish_and_pay_cash() {
    let mut b = board([&[Cap, Derby, Derby, Derby, Derby], &[], &[], &[], &[], &[]]);
    assert_eq!(b.piles[0].len(), 5, "four derbies stay");
    let o = b.apply(
        [Derby, Top],
        Move::Pair {
            cols: [0, 3],
            first: 0,
            split: true,
        },
    );
    assert_eq!((o.sold, o.cash), (1, CASH[Derby as usize - 1]));
    assert_eq!(ids(&b.piles[0]), vec![Cap as u8]);
    assert_eq!(b.piles[0].height(), 12);
    assert_eq!(b.cash, 50);
    assert_eq!(b.bars, [1, 0], "a derby stack feeds Alexey's bar");
}

#[test]
fn hatris_pair_lands_together_on_equal_piles() {
    let b = Board::default();
    let moves = b.moves([Top, Cap]);
    assert_eq!(moves.as_slice().len(), 10, "5 positions x 2 orders");
    assert!(moves.as_slice().iter().all(
        |m| matches!(m, Move::Pair { split: false, cols, .. } if cols[0].abs_diff(cols[1]) == 1)
    ));
    assert_eq!(
        b.moves([Cap, Cap]).as_slice().len(),
        5,
        "swapping equal hats is no move"
    );
}

#[test]
fn hatris_pair_splits_when_only_one_hat_meets_a_pile() {
    // Column 2 holds a wizard (24); columns 3 to 5 are lower except 5.
    let b = board([&[], &[], &[Wizard], &[], &[Derby], &[Wizard, Top]]);
    let moves = b.moves([Top, Cap]);
    // Pair over (2, 3) unswapped: the top lands on column 2 at altitude 24;
    // the cap is free and can slide right over piles below 24 (3: 0, 4: 8),
    // but not onto or past column 5 (44), and never onto column 2.
    let split: Vec<[u8; 2]> = moves
        .as_slice()
        .iter()
        .filter_map(|m| match *m {
            Move::Pair {
                cols,
                first: 0,
                split: true,
            } if cols[0] == 2 && cols[1] > 2 => Some(cols),
            _ => None,
        })
        .collect();
    assert_eq!(split, vec![[2, 3], [2, 4]]);
    // Over (1, 2) with the cap on the right: the cap lands on 2 and the
    // free top slides left to 1 or 0.
    assert!(moves.as_slice().contains(&Move::Pair {
        cols: [0, 2],
        first: 1,
        split: true
    }));
    // Landing: both hats end where the move says.
    let mut b2 = b;
    b2.apply(
        [Top, Cap],
        Move::Pair {
            cols: [2, 4],
            first: 0,
            split: true,
        },
    );
    assert_eq!(ids(&b2.piles[2]), vec![Wizard as u8, Top as u8]);
    assert_eq!(ids(&b2.piles[4]), vec![Derby as u8, Cap as u8]);
}

#[test]
fn hatris_free_hat_cannot_cross_a_taller_pile() {
    // Heights 0 24 0 20 24 0. Pair over (2, 3), cap left, derby right: the
    // derby lands on column 3 at altitude 20 and the free cap can stay on 2
    // but not cross column 1 (24 is not below 20).
    let b = board([&[], &[Wizard], &[], &[Top], &[Wizard], &[]]);
    let caps_beside_derby_on_3: Vec<u8> = b
        .moves([Cap, Derby])
        .as_slice()
        .iter()
        .filter_map(|m| match *m {
            Move::Pair {
                cols,
                first: 1,
                split: true,
            } if cols[1] == 3 => Some(cols[0]),
            _ => None,
        })
        .collect();
    assert_eq!(caps_beside_derby_on_3, vec![2]);
    // The cap over column 1 (altitude 24) lets the derby slide right across
    // 2 (0) and 3 (20) but not onto 4 (24).
    let derbies: Vec<u8> = b
        .moves([Cap, Derby])
        .as_slice()
        .iter()
        .filter_map(|m| match *m {
            Move::Pair {
                cols,
                first: 0,
                split: true,
            } if cols[0] == 1 && cols[1] > 1 => Some(cols[1]),
            _ => None,
        })
        .collect();
    assert_eq!(derbies, vec![2, 3]);
}

#[test]
fn hatris_alexey_removes_bottom_hats_and_the_rest_renests() {
    let mut b = board([&[Derby, Top, Top, Wizard], &[], &[], &[], &[], &[]]);
    assert!(b.pool.push(Helper::Alexey));
    assert!(b.moves([Top, Top]).as_slice().contains(&Move::Alexey {
        counts: [4, 0, 0, 0, 0, 0]
    }));
    b.apply(
        [Top, Top],
        Move::Alexey {
            counts: [1, 0, 0, 0, 0, 0],
        },
    );
    // Top is now the bottom hat: 20, top on top + 2, wizard on top + 8.
    assert_eq!(ids(&b.piles[0]), vec![1, 1, 2]);
    assert_eq!(b.piles[0].tops(), &[20, 22, 30]);
    assert!(b.pool.is_empty(), "the helper is used up");
}

#[test]
fn hatris_alexey_removes_up_to_five_hats_from_any_piles() {
    let mut b = board([
        &[Derby, Top],
        &[Cap],
        &[],
        &[Wizard, Wizard, Crown],
        &[Cap; 4],
        &[Top],
    ]);
    b.pool.push(Helper::Alexey);
    let opts: Vec<[u8; 6]> = b
        .moves([Top, Cap])
        .as_slice()
        .iter()
        .filter_map(|m| match m {
            Move::Alexey { counts } => Some(*counts),
            _ => None,
        })
        .collect();
    // The slow count: every vector of counts within the piles, 1 to 5 in all.
    let lens = [2u8, 1, 0, 3, 4, 1];
    let mut want = 0;
    for code in 0..6u32.pow(6) {
        let k: Vec<u8> = (0..6).map(|c| (code / 6u32.pow(c) % 6) as u8).collect();
        let sum: u32 = k.iter().map(|&x| u32::from(x)).sum();
        if k.iter().zip(&lens).all(|(a, b)| a <= b) && (1..=5).contains(&sum) {
            want += 1;
            let mut counts = [0u8; 6];
            counts.copy_from_slice(&k);
            assert!(opts.contains(&counts), "{counts:?} missing");
        }
    }
    assert_eq!(opts.len(), want);
    b.apply(
        [Top, Cap],
        Move::Alexey {
            counts: [1, 1, 0, 2, 1, 0],
        },
    );
    assert_eq!(ids(&b.piles[0]), vec![1]);
    assert!(b.piles[1].is_empty());
    assert_eq!(ids(&b.piles[3]), vec![3]);
    assert_eq!(b.piles[3].tops(), &[16]);
    assert_eq!(ids(&b.piles[4]), vec![4, 4, 4]);
    assert_eq!(ids(&b.piles[5]), vec![1]);
    // On six piles of five or more, the options are C(11, 6) - 1.
    let mut n = 0;
    alexey_options([5; 6], |_| n += 1);
    assert_eq!(n, MAX_ALEXEY_MOVES);
}

#[test]
fn hatris_vladimir_swaps_two_piles() {
    let mut b = board([&[Top], &[], &[], &[], &[Cap, Cap], &[]]);
    b.pool.push(Helper::Vladimir);
    let n = b
        .moves([Top, Cap])
        .as_slice()
        .iter()
        .filter(|m| matches!(m, Move::Vladimir { .. }))
        .count();
    assert_eq!(n, 15, "any two of six piles");
    b.apply([Top, Cap], Move::Vladimir { a: 0, b: 4 });
    assert_eq!(ids(&b.piles[0]), vec![4, 4]);
    assert_eq!(ids(&b.piles[4]), vec![1]);
}

#[test]
fn hatris_helper_pool_is_last_in_first_out_and_holds_eight() {
    let mut p = Pool::default();
    assert!(p.push(Helper::Vladimir));
    for _ in 0..7 {
        assert!(p.push(Helper::Alexey));
    }
    assert!(!p.push(Helper::Vladimir), "a ninth helper is lost");
    assert_eq!(p.len(), 8);
    assert_eq!(
        p.pop(),
        Some(Helper::Alexey),
        "the last earned is used first"
    );
    for _ in 0..6 {
        assert_eq!(p.pop(), Some(Helper::Alexey));
    }
    assert_eq!(
        p.next_up(),
        Some(Helper::Vladimir),
        "the first earned is used last"
    );
    assert!(p.push(Helper::Alexey));
    assert_eq!(p.next_up(), Some(Helper::Alexey));
}

#[test]
fn hatris_five_stacks_fill_a_bar_and_earn_its_helper() {
    let mut b = Board::default();
    for i in 0..5 {
        b.piles[0] = Pile::from_hats(&[Crown; 4]).unwrap();
        b.piles[1] = Pile::from_hats(&[Cap; 4]).unwrap();
        let o = b.apply(
            [Crown, Cap],
            Move::Pair {
                cols: [0, 1],
                first: 0,
                split: false,
            },
        );
        assert_eq!(o.sold, 2);
        assert_eq!(b.pool.len(), if i < 4 { 0 } else { 2 });
    }
    // The crown landed first, so Alexey was earned first and is used last.
    assert_eq!(b.pool.pop(), Some(Helper::Vladimir), "caps feed Vladimir");
    assert_eq!(b.pool.pop(), Some(Helper::Alexey), "crowns feed Alexey");
    assert_eq!(b.bars, [0, 0]);
    assert_eq!(b.cash, 5 * (300 + 120));
}

#[test]
fn hatris_summoning_a_helper_discards_the_falling_pair() {
    let mut g = Game::new(3, Rules::default());
    g.board.pool.push(Helper::Vladimir);
    let next = g.next;
    let spawns = g.spawns;
    g.play(Move::Vladimir { a: 0, b: 1 });
    assert_eq!(g.current, next, "the next pair falls at once");
    assert_eq!(g.spawns, spawns + 1);
    assert!(g.board.piles.iter().all(|p| p.is_empty()), "nothing landed");
    assert_eq!(g.helpers_used, 1);
}

#[test]
fn hatris_fifteen_stacks_end_a_level_and_a_shop_refills_the_piles() {
    let mut g = Game::new(5, Rules::default());
    g.level = 9;
    g.level_stacks = 14;
    g.current = [Derby, Top];
    g.board.piles[0] = Pile::from_hats(&[Derby; 4]).unwrap();
    g.board.piles[1] = Pile::from_hats(&[Derby; 4]).unwrap();
    let turn = g.play(Move::Pair {
        cols: [0, 1],
        first: 0,
        split: false,
    });
    assert!(turn.level_up && turn.refilled);
    assert_eq!(
        (g.level, g.shop(), g.stage(), g.level_stacks),
        (10, 1, 0, 0)
    );
    assert!(
        g.board.piles.iter().all(|p| p.len() == 1),
        "6 x shop 1 hats, one per pile"
    );
}

#[test]
fn hatris_game_ends_when_a_pile_reaches_the_spawn_altitude() {
    let mut b = Board::default();
    // Alternate top and wizard: 20, +8, +18, +8, ... until just below 169.
    let mut hats = vec![];
    let mut p = Pile::EMPTY;
    for i in 0.. {
        let h = if i % 2 == 0 { Top } else { Wizard };
        let mut q = p;
        q.land(h as u8).unwrap();
        if q.height() >= SPAWN_ALTITUDE {
            break;
        }
        p = q;
        hats.push(h);
    }
    b.piles[0] = p;
    assert!(!b.topped_out());
    let top = if hats.len() % 2 == 0 { Top } else { Wizard };
    let o = b.apply(
        [top, Cap],
        Move::Pair {
            cols: [0, 1],
            first: 0,
            split: true,
        },
    );
    assert!(o.over);
}

#[test]
fn hatris_ceiling_rule_sets_the_game_over_height() {
    let rules = Rules {
        ceiling: 40,
        ..Rules::default()
    };
    let mut g = Game::new(2, rules);
    assert_eq!(g.board.ceiling, 40);
    g.board.piles[0] = Pile::from_hats(&[Top]).unwrap(); // 20 units
    g.current = [Wizard, Cap];
    // A wizard on a top hat: 20 + 8 = 28, below 40; then a second wizard
    // on it: 28 + 4 = 32; a crown on that: 32 + 10 = 42 >= 40.
    for (pair, over) in [
        ([Wizard, Cap], false),
        ([Wizard, Cap], false),
        ([Crown, Cap], true),
    ] {
        g.current = pair;
        let t = g.play(Move::Pair {
            cols: [0, 5],
            first: 0,
            split: true,
        });
        assert_eq!(t.outcome.over, over, "height {}", g.board.piles[0].height());
    }
    // The same piles are not over under the default ceiling.
    let mut b = g.board;
    b.ceiling = SPAWN_ALTITUDE;
    assert!(!b.topped_out());
}

#[test]
fn hatris_permutation_distance_is_the_fewest_swaps_to_descending() {
    // Brute force: breadth-first search over swaps.
    let mut rng = SplitMix64::new(1);
    for _ in 0..300 {
        let h: [u8; 6] = std::array::from_fn(|_| (rng.below(5) * 10) as u8);
        let mut want = None;
        let mut frontier = vec![h];
        let mut seen = std::collections::HashSet::from([h]);
        for d in 0..6 {
            if frontier.iter().any(|x| x.windows(2).all(|w| w[0] >= w[1])) {
                want = Some(d);
                break;
            }
            let mut next = vec![];
            for x in &frontier {
                for i in 0..6 {
                    for j in i + 1..6 {
                        let mut y = *x;
                        y.swap(i, j);
                        if seen.insert(y) {
                            next.push(y);
                        }
                    }
                }
            }
            frontier = next;
        }
        // Ties may allow fewer swaps than the stable ranking assumes, never more.
        let got = permutation_distance(&h);
        assert!(got >= want.unwrap(), "{h:?}");
        let mut distinct = h.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() == 6 {
            assert_eq!(got, want.unwrap(), "{h:?}");
        }
    }
}

fn random_board(rng: &mut SplitMix64) -> Board {
    let mut b = Board::default();
    for c in 0..6 {
        for _ in 0..rng.below(9) {
            let h = Hat::ALL[rng.below(6) as usize];
            let mut p = b.piles[c];
            p.land(h as u8).unwrap();
            if p.height() < SPAWN_ALTITUDE - 30 {
                b.piles[c] = p;
            }
        }
    }
    for _ in 0..rng.below(3) {
        b.pool.push(if rng.below(2) == 0 {
            Helper::Alexey
        } else {
            Helper::Vladimir
        });
    }
    b
}

#[test]
fn hatris_fast_step_two_score_matches_the_full_evaluation() {
    let bot = Bot::new(ARTICLE_WEIGHTS);
    let mut rng = SplitMix64::new(99);
    for _ in 0..300 {
        let b1 = random_board(&mut rng);
        let next: Pair = [
            Hat::ALL[rng.below(6) as usize],
            Hat::ALL[rng.below(6) as usize],
        ];
        let cash = rng.below(600);
        for &mv in b1.moves(next).as_slice() {
            let mut b2 = b1;
            let o = b2.apply(next, mv);
            let fast = bot.step_two_score(&b1, next, cash, mv);
            if o.over {
                assert_eq!(fast, None, "{mv:?}");
            } else {
                let slow = evaluate(&ARTICLE_WEIGHTS, &b2, cash + o.cash);
                let fast = fast.expect("fast path says over");
                assert!((fast - slow).abs() < 1e-9, "{mv:?}: {fast} vs {slow}");
            }
        }
    }
}

#[test]
fn hatris_bounded_search_picks_the_exhaustive_search_move() {
    let bot = Bot::new(ARTICLE_WEIGHTS);
    let mut rng = SplitMix64::new(7);
    let mut alexey = 0;
    for _ in 0..40 {
        let mut b = random_board(&mut rng);
        // Alexey on top of the pool, sometimes with another helper under him.
        b.pool = Pool::default();
        if rng.below(2) == 0 {
            b.pool.push(Helper::Alexey);
        }
        b.pool.push(Helper::Alexey);
        let pair = |rng: &mut SplitMix64| -> Pair {
            [
                Hat::ALL[rng.below(6) as usize],
                Hat::ALL[rng.below(6) as usize],
            ]
        };
        let (cur, next) = (pair(&mut rng), pair(&mut rng));
        let fast = bot.choose(&b, cur, next);
        assert_eq!(fast, bot.choose_exhaustive(&b, cur, next), "{b:?}");
        alexey += usize::from(matches!(fast, Some(Move::Alexey { .. })));
    }
    assert!(alexey > 0, "no board called Alexey; the test proves little");
}

#[test]
fn hatris_cash_weight_is_the_rest_of_one_hundred_percent() {
    // The seven published weights, in integer units of 10^-5 percent.
    let published: i64 = [100, 55, 178_585, 6_811, 8_831_852, 48, 6_392].iter().sum();
    assert_eq!(published, 9_023_843);
    let cash = (ARTICLE_WEIGHTS.0[7] * 1e5).round() as i64;
    assert_eq!(cash, 10_000_000 - published);
    let total: f64 = ARTICLE_WEIGHTS.0.iter().sum();
    assert!((total - 100.0).abs() < 1e-9, "{total}");
}

#[test]
fn hatris_metrics_count_runs_top_runs_and_mismatches() {
    let b = board([
        &[Cap, Cap, Top, Derby, Derby, Derby],
        &[],
        &[],
        &[],
        &[],
        &[],
    ]);
    let s = PileStats::of(&b.piles[0]);
    assert_eq!((s.runs2, s.top2, s.mismatches), (4 + 9, 9, 2));
    let m = metrics(&b, 0);
    assert!(m.iter().all(|x| (0.0..=1.0).contains(x)), "{m:?}");
}

#[test]
fn hatris_bot_games_are_deterministic_for_a_seed_and_thread_count() {
    let bot = Bot::default();
    let a = run_game(&bot, 42, Rules::default(), 400);
    let b = run_game(&bot, 42, Rules::default(), 400);
    assert_eq!(a, b);
    let one = run_batch(&bot, 8, 3, Rules::default(), 200, 1);
    let two = run_batch(&bot, 8, 3, Rules::default(), 200, 2);
    assert_eq!(one, two, "thread count must not change results");
}

#[test]
fn hatris_weights_file_round_trips_and_bad_files_are_errors() {
    let text = wfile::format("hatris-weights", &METRIC_NAMES, &ARTICLE_WEIGHTS.0, "test");
    let back = wfile::parse(&text, "t", "hatris-weights", &METRIC_NAMES);
    let back = back.unwrap();
    for (a, b) in back.iter().zip(ARTICLE_WEIGHTS.0) {
        assert!((a - b).abs() < 1e-8);
    }
    let truncated: String = text.lines().take(5).collect::<Vec<_>>().join("\n");
    assert!(wfile::parse(&truncated, "t", "hatris-weights", &METRIC_NAMES).is_err());
    assert!(wfile::parse("jewelry-weights 1\n", "t", "hatris-weights", &METRIC_NAMES).is_err());
    assert!(wfile::parse("", "t", "hatris-weights", &METRIC_NAMES).is_err());
    let bad = text.replace("cash", "cash nan");
    assert!(wfile::parse(&bad, "t", "hatris-weights", &METRIC_NAMES).is_err());
    let missing = std::path::Path::new("/nonexistent/w.txt");
    let err = wfile::read(missing, "hatris-weights", &METRIC_NAMES).unwrap_err();
    assert!(format!("{err:#}").contains("/nonexistent/w.txt"));
}

/// The article's claim: "far fewer" than the 2,250 spawns needed without
/// the re-pick, and "more than twice the theoretical minimum" with it, i.e.
/// a mean above 4,500 spawns. The article's bot that made this claim was
/// trained again after the re-pick was added, and those weights are not
/// published; ours is `docs/hatris/heights-1.txt` (the published weights
/// with the cash weight ÷ 10 and the pile-heights weight raised to 1 %).
/// Measured on the same 1,000 games as `bots hatris stats --games 1000
/// --both --seed 1 --weights bots/docs/hatris/heights-1.txt`.
#[test]
#[ignore = "long: several minutes in release; run with --ignored"]
fn hatris_repick_rule_lasts_more_than_twice_the_2250_spawn_minimum() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/hatris/heights-1.txt");
    let w = wfile::read(&path, "hatris-weights", &METRIC_NAMES).unwrap();
    let bot = Bot::new(Weights(w));
    let mean = |repick: bool| {
        let r = run_batch(
            &bot,
            1,
            1000,
            Rules {
                repick,
                ..Rules::default()
            },
            50_000,
            2,
        );
        r.iter().map(|g| g.spawns as f64).sum::<f64>() / r.len() as f64
    };
    let (with, without) = (mean(true), mean(false));
    assert!(without < 2250.0, "without re-pick: {without}");
    assert!(with > 2.0 * 2250.0, "with re-pick: {with}, not above 4,500");
}
