//! Rule tests for Magic Jewelry.

use bots::common::SplitMix64;
use bots::jewelry::board::{
    bit, rotations, Board, COLOURS, DIRS, ROWS, SPAWN_X, SPAWN_Y, WIDTH, WILD,
};
use bots::jewelry::bot::{metrics, placements, Bot, Placement, ARTICLE_WEIGHTS};
use bots::jewelry::game::Game;
use bots::jewelry::stats::{long_run, svg_log_plot};

fn rows(r: &[&str]) -> Board {
    Board::from_rows(r).expect("test board")
}

#[test]
fn jewelry_down_left_diagonal_run_of_three_vanishes() {
    // (1,14), (2,13) and (3,12) become 3s when the column's bottom 3 lands.
    let mut b = rows(&["..35..", ".344.."]);
    let s = b.drop_column(3, [6, 1, 3]);
    assert_eq!((s.cleared, s.chains, s.over), (3, 1, false));
    assert_eq!(b, rows(&["...6..", "...1..", "...5..", "..44.."]));
}

#[test]
fn jewelry_down_right_diagonal_run_of_three_vanishes() {
    let mut b = rows(&["..53..", "..443."]);
    let s = b.drop_column(2, [6, 1, 3]);
    assert_eq!((s.cleared, s.chains), (3, 1));
    assert_eq!(b, rows(&["..6...", "..1...", "..5...", "..44.."]));
}

#[test]
fn jewelry_horizontal_vertical_and_longer_runs_vanish_whole() {
    // Row of five 2s.
    let mut b = rows(&["22.22."]);
    assert_eq!(b.drop_column(2, [4, 5, 2]).cleared, 5);
    // Column of four 6s, and a crossing horizontal run cleared at once.
    let mut b = rows(&["6.....", "6.....", "15511."]);
    let s = b.drop_column(0, [1, 6, 6]);
    // 6s: four in column 0 (two from the column). 1s: none in a row of 3.
    assert_eq!((s.cleared, s.chains), (4, 1));
    assert_eq!(b, rows(&["1.....", "15511."]));
}

#[test]
fn jewelry_cascade_clears_jewels_brought_together_by_falling() {
    let mut b = rows(&["..1...", "1122.."]);
    let s = b.drop_column(4, [5, 5, 2]);
    // 2 2 2 clears; the 1 above falls into 1 1 _ and clears too.
    assert_eq!((s.cleared, s.chains), (6, 2));
    assert_eq!(b, rows(&["....5.", "....5."]));
}

#[test]
fn jewelry_wild_column_clears_every_jewel_of_the_colour_it_lands_on() {
    let mut b = rows(&["1.....", "123451"]);
    let s = b.drop_column(0, [WILD; 3]);
    assert_eq!(s.cleared, 3 + 3, "three 1s and three X's");
    assert_eq!(b, rows(&[".2345."]));
}

#[test]
fn jewelry_wild_column_on_the_floor_just_vanishes() {
    let mut b = rows(&["12345."]);
    let before = b;
    let s = b.drop_column(5, [WILD; 3]);
    assert_eq!(s.cleared, 3);
    assert_eq!(b, before);
}

#[test]
fn jewelry_column_spawns_with_its_bottom_at_row_0_column_3() {
    let b = Board::new();
    let locks = b.lock_positions_bfs();
    assert_eq!(
        locks.len(),
        WIDTH,
        "every column reachable on an empty well"
    );
    assert_eq!((SPAWN_X, SPAWN_Y), (3, 2), "visible row 0 is y = 2");
    // A full column 3 (up to visible row 0) means no column can spawn.
    let mut b = Board::new();
    for y in SPAWN_Y..ROWS {
        b.cells[y * WIDTH + 3] = 1 + (y % 2) as u8;
    }
    assert_eq!(b.lock_columns(), 0);
    assert!(b.lock_positions_bfs().is_empty());
    assert!(b.is_over());
}

#[test]
fn jewelry_column_locked_at_the_spawn_point_ends_the_game() {
    let mut b = Board::new();
    for y in SPAWN_Y + 1..ROWS {
        b.cells[y * WIDTH + 3] = 1 + (y % 2) as u8;
    }
    assert!(!b.is_over());
    assert_eq!(b.lock_columns() >> 3 & 1, 1);
    let s = b.drop_column(3, [3, 4, 5]);
    assert!(s.over, "two jewels left in the hidden rows");
}

#[test]
fn jewelry_walls_of_jewels_block_sliding() {
    let mut b = Board::new();
    for y in SPAWN_Y..ROWS {
        b.cells[y * WIDTH + 1] = 1 + (y % 2) as u8;
    }
    assert_eq!(b.lock_columns(), 0b11_1100, "column 1 cuts off column 0");
}

fn random_board(rng: &mut SplitMix64, max_height: u32) -> Board {
    let mut b = Board::new();
    for x in 0..WIDTH {
        let h = rng.below(max_height + 1) as usize;
        for y in ROWS - h..ROWS {
            b.cells[y * WIDTH + x] = 1 + rng.below(u32::from(COLOURS)) as u8;
        }
    }
    b
}

#[test]
fn jewelry_lock_positions_agree_with_breadth_first_search() {
    let mut rng = SplitMix64::new(3);
    for _ in 0..2000 {
        let b = random_board(&mut rng, 15);
        let set = b.lock_columns();
        let fast: Vec<(usize, usize)> = (0..WIDTH)
            .filter(|x| set >> x & 1 == 1)
            .map(|x| (x, b.landing_y(x).unwrap()))
            .collect();
        assert_eq!(fast, b.lock_positions_bfs(), "\n{}", b.draw());
    }
}

#[test]
fn jewelry_mask_matching_agrees_with_walking_every_line() {
    let mut rng = SplitMix64::new(4);
    for _ in 0..3000 {
        let b = random_board(&mut rng, 15);
        assert_eq!(b.matches(), b.matches_naive(), "\n{}", b.draw());
    }
}

#[test]
fn jewelry_adjacency_metrics_agree_with_a_naive_count() {
    let mut rng = SplitMix64::new(5);
    let b = random_board(&mut rng, 8);
    let m = metrics(&b);
    for (k, &mk) in m.iter().take(5).enumerate() {
        let (mut pairs, mut max) = (0u32, 0u32);
        for y in 2..ROWS {
            for x in 0..WIDTH {
                for (dx, dy) in DIRS {
                    let x2 = x as isize + dx * (k as isize + 1);
                    let y2 = y as isize + dy * (k as isize + 1);
                    if !(0..WIDTH as isize).contains(&x2) || !(0..ROWS as isize).contains(&y2) {
                        continue;
                    }
                    max += 1;
                    let (a, c) = (b.get(x, y), b.get(x2 as usize, y2 as usize));
                    if a != 0 && a == c {
                        pairs += 1;
                    }
                }
            }
        }
        let want = f64::from(pairs) / f64::from(max);
        assert!((mk - want).abs() < 1e-12, "k = {k}: {mk} vs {want}");
    }
    assert!((m[5] - (1.0 - f64::from(b.jewels()) / 78.0)).abs() < 1e-12);
    let _ = bit(0, 0);
}

#[test]
fn jewelry_colour_cycles_give_distinct_orders_only() {
    assert_eq!(rotations([1, 2, 3]).1, 3);
    assert_eq!(rotations([4, 4, 4]).1, 1);
    let mut out = [Placement {
        x: 0,
        order: [0; 3],
    }; 18];
    assert_eq!(placements(&Board::new(), [1, 2, 3], &mut out), 18);
}

#[test]
fn jewelry_bot_runs_are_deterministic_for_a_seed() {
    let bot = Bot::new(ARTICLE_WEIGHTS);
    let a = long_run(&bot, 9, 300, 0, |_| {});
    let b = long_run(&bot, 9, 300, 0, |_| {});
    assert_eq!(a, b);
    assert_eq!(a.total(), 300);
    assert!(a.mean() < 40.0, "the bot keeps the field low: {}", a.mean());
    let svg = svg_log_plot(&a, "test <plot>");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("&lt;plot&gt;"));
}

#[test]
fn jewelry_bot_handles_wild_columns() {
    let bot = Bot::new(ARTICLE_WEIGHTS);
    let mut g = Game::new(2, 5);
    let mut wilds = 0;
    for _ in 0..100 {
        if g.current == [WILD; 3] {
            wilds += 1;
        }
        if g.step(&bot).is_none() {
            break;
        }
    }
    assert!(!g.over);
    assert_eq!(wilds, 20);
}

#[test]
#[ignore = "long: 100,000 columns; run with --ignored in release"]
fn jewelry_long_run_mean_is_near_the_articles_11_454() {
    let h = long_run(&Bot::new(ARTICLE_WEIGHTS), 1, 100_000, 0, |_| {});
    assert_eq!(h.game_overs, 0);
    assert!((10.0..13.0).contains(&h.mean()), "mean {}", h.mean());
}

#[test]
fn jewelry_fits_recover_known_curves_from_exact_data() {
    use bots::jewelry::stats::{fit_gaussian, fit_log_quadratic, solve3, Histogram, BINS};
    // solve3 against a system with a known answer (needs a row swap).
    let x = solve3(
        [[0.0, 2.0, 1.0], [1.0, 1.0, 1.0], [2.0, 0.0, 3.0]],
        [7.0, 6.0, 11.0],
    )
    .unwrap();
    for (a, b) in x.iter().zip([1.0, 2.0, 3.0]) {
        assert!((a - b).abs() < 1e-12, "{x:?}");
    }
    assert!(solve3(
        [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]],
        [1.0; 3]
    )
    .is_none());
    // A Gaussian sampled exactly, started off by the log-parabola guess.
    let pts: Vec<(f64, f64)> = (0..40)
        .map(|n| {
            let d = (n as f64 - 11.2) / 3.4;
            (n as f64, 0.12 * (-0.5 * d * d).exp())
        })
        .collect();
    let g = fit_gaussian(&pts).unwrap();
    assert!(
        (g.a - 0.12).abs() < 1e-9 && (g.b - 11.2).abs() < 1e-9 && (g.c - 3.4).abs() < 1e-9,
        "{g:?}"
    );
    // A histogram whose right side follows log10 p = -1 - 0.05 x - 0.001 x²
    // exactly (counts scaled so the probabilities are exact).
    let mut counts = vec![0u64; BINS];
    let q = |x: f64| -1.0 - 0.05 * x - 0.001 * x * x;
    let total = 1e15;
    for (n, c) in counts.iter_mut().enumerate().take(30) {
        *c = (total * 10f64.powf(q(n as f64))).round() as u64;
    }
    let h = Histogram {
        counts,
        game_overs: 0,
    };
    let scale = (h.total() as f64 / total).log10();
    let fit = fit_log_quadratic(&h).unwrap();
    for (a, b) in fit.iter().zip([-1.0 - scale, -0.05, -0.001]) {
        assert!((a - b).abs() < 1e-6, "{fit:?}");
    }
}
