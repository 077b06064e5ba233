//! Rule tests for Hidamari: the bit board, the 7-bag, hard drops, line clears, the
//! evaluation against a cell-by-cell count, the search's choice on constructed
//! wells, and the arena's bounds.

use bots::common::SplitMix64;
use bots::hidamari::search::{
    evaluate, terms, terms_slow, Arena, Bot, HidamariWeights, Node, ARENA_BYTES, ARENA_NODES,
};
use bots::hidamari::sim::{drops, Bag, Board, Drop, Game, EMPTY_ROW, FULL_ROW, MAX_DROPS};

#[test]
fn rows_carry_wall_bits_and_a_floor() {
    let b = Board::EMPTY;
    assert_eq!(b.rows[0], 0xE007);
    assert!(b.rows[..22].iter().all(|&r| r == EMPTY_ROW));
    assert!(b.rows[22..].iter().all(|&r| r == FULL_ROW));
    // The wall stops a piece without any range check: an O box at column -2 puts a
    // cell into the left wall bits.
    assert!(b.fits(1, 0, -1, 0), "O box at -1 covers columns 0 and 1");
    assert!(!b.fits(1, 0, -2, 0));
    assert!(b.fits(1, 0, 7, 0));
    assert!(!b.fits(1, 0, 8, 0));
}

#[test]
fn bag_deals_each_piece_once_per_seven() {
    let mut bag = Bag::new(42);
    let mut totals = [0u32; 7];
    for _ in 0..1000 {
        let mut seen = [false; 7];
        for _ in 0..7 {
            let p = bag.next_piece() as usize;
            assert!(!seen[p], "a piece repeated inside one bag");
            seen[p] = true;
            totals[p] += 1;
        }
    }
    assert_eq!(totals, [1000; 7]);
    // The longest gap between two of the same piece is 12 (first of one bag, last
    // of the next).
    let mut bag = Bag::new(7);
    let mut last = [None::<usize>; 7];
    for i in 0..7000 {
        let p = bag.next_piece() as usize;
        if let Some(j) = last[p] {
            assert!(i - j <= 13);
        }
        last[p] = Some(i);
    }
}

#[test]
fn bag_order_depends_on_the_seed_only() {
    let deal = |s| {
        let mut b = Bag::new(s);
        (0..21).map(|_| b.next_piece()).collect::<Vec<_>>()
    };
    assert_eq!(deal(3), deal(3));
    assert_ne!(deal(3), deal(4));
}

#[test]
fn hard_drop_lands_on_the_stack_or_the_floor() {
    let b = Board::EMPTY;
    // I flat (state 0: cells in box row 1) lands with that row on row 21.
    assert_eq!(b.hard_drop(0, 0, 3, 0), 20);
    // I upright lands with its bottom cell on row 21.
    assert_eq!(b.hard_drop(0, 1, 3, 0), 18);
    let b = Board::from_text("...#......\n...#......").unwrap();
    // T pointing up at box column 2 covers columns 2..5 with its flat row; it rests
    // on column 3's stack (top at row 20).
    let y = b.hard_drop(2, 0, 2, 0);
    assert_eq!(y, 18);
    let mut after = b;
    assert_eq!(after.lock(2, 0, 2, y), Some(0));
    assert_eq!(
        after.to_text().lines().skip(18).collect::<Vec<_>>(),
        ["...#......", "..###.....", "...#......", "...#......"]
    );
}

#[test]
fn full_rows_are_removed_and_the_rest_fall() {
    let mut b = Board::from_text(
        "\
#.........
####.#####
####.#####",
    )
    .unwrap();
    let y = b.hard_drop(0, 1, 2, 0); // I upright: its cells are box column 2 -> well column 4
    assert_eq!(b.lock(0, 1, 2, y), Some(2));
    let expected = Board::from_text("....#.....\n#...#.....").unwrap();
    assert_eq!(b, expected, "\n{}", b.to_text());
}

#[test]
fn locking_in_the_hidden_rows_tops_out() {
    let mut g = Game::new(1);
    for r in 2..22 {
        g.board.rows[r] = FULL_ROW & !(1 << 3); // column 0 open, rest full
    }
    // Every drop of the current piece lands in rows 0..2, or cannot spawn.
    let mut bot = Bot::new(HidamariWeights::ARTICLE);
    bot.play(&mut g, 10);
    assert!(g.over);
}

#[test]
fn drop_list_covers_every_distinct_state_and_column() {
    let mut out = [Drop::default(); MAX_DROPS];
    // Empty well: I 7 + 10, O 9, T/J/L 8 + 9 + 8 + 9, S/Z 8 + 9.
    let counts: Vec<usize> = (0..7).map(|p| drops(&Board::EMPTY, p, &mut out)).collect();
    assert_eq!(counts, [17, 9, 34, 17, 17, 34, 34]);
    for p in 0..7 {
        let n = drops(&Board::EMPTY, p, &mut out);
        for d in &out[..n] {
            assert!(
                !Board::EMPTY.fits(p, d.state, d.x, d.y + 1),
                "rests on something"
            );
        }
    }
}

#[test]
fn terms_match_a_cell_by_cell_count() {
    let mut rng = SplitMix64::new(9);
    for i in 0..5000 {
        let mut b = Board::EMPTY;
        for r in (22 - (i % 23))..22 {
            b.rows[r] |= ((rng.next_u64() as u16) & 0x3FF) << 3;
        }
        assert_eq!(terms(&b), terms_slow(&b), "\n{}", b.to_text());
    }
    let b = Board::from_text("#.........\n..........\n##........").unwrap();
    // Heights 3 1 0.., one hole in column 0 -> bumpiness 2 + 1 = 3, height 4.
    assert_eq!(terms(&b), (3, 4, 1));
    assert_eq!(evaluate(&b, &HidamariWeights::ARTICLE), 3 * 3 + 2 * 4 + 10);
}

#[test]
fn search_fills_the_well_for_a_double() {
    // Two rows open in column 9 only; the current piece is an I, the preview an O.
    // Upright I in column 9 clears two rows and leaves two cells; anything else
    // makes holes or height.
    let board = Board::from_text("#########.\n#########.").unwrap();
    let mut bot = Bot::new(HidamariWeights::ARTICLE);
    let d = bot.choose(&board, 0, 1).unwrap();
    let mut after = board;
    let lines = after.lock(0, d.state, d.x, d.y).unwrap();
    assert_eq!(lines, 2, "\n{}", after.to_text());
    assert_eq!(bot.arena.used(), 0, "the arena is reset after the move");
}

#[test]
fn search_uses_the_preview_piece() {
    // A 2-wide, 2-deep pit in columns 0-1 and a 1-wide notch in column 9. The
    // current piece is an O: alone it belongs in the pit. Lowest leaf must keep
    // holes at zero after both plies.
    let board = Board::from_text("..#######.\n..########").unwrap();
    let mut bot = Bot::new(HidamariWeights::ARTICLE);
    let d = bot.choose(&board, 1, 0).unwrap();
    let mut after = board;
    after.lock(1, d.state, d.x, d.y).unwrap();
    assert_eq!(terms(&after).2, 0, "\n{}", after.to_text());
    assert_eq!(d.x, -1, "O box at -1 covers the pit");
}

#[test]
fn arena_is_180_kib_of_64_byte_nodes_and_peaks_below_it() {
    assert_eq!(std::mem::size_of::<Node>(), 64);
    assert_eq!(ARENA_BYTES, 184_320);
    assert_eq!(ARENA_NODES, 2880);
    let arena = Arena::new();
    assert_eq!(arena.capacity_bytes(), ARENA_BYTES);
    let mut bot = Bot::new(HidamariWeights::ARTICLE);
    let mut game = Game::new(5);
    bot.play(&mut game, 300);
    assert!(bot.arena.peak_bytes() <= (34 + 34 * 34) * 64);
    assert!(bot.arena.peak_bytes() > 0);
}

#[test]
fn games_are_a_function_of_their_seed() {
    let run = |seed| {
        let mut bot = Bot::new(HidamariWeights::ARTICLE);
        let mut g = Game::new(seed);
        bot.play(&mut g, 300);
        (g.lines, g.board, bot.nodes_total)
    };
    assert_eq!(run(2), run(2));
    assert_ne!(run(2), run(3));
}

#[test]
fn host_driven_game_matches_the_direct_game() {
    use bots::hidamari::host::{run, HidamariHost};
    for seed in [1, 8] {
        let mut host = HidamariHost::new(seed);
        let mut bot = Bot::new(HidamariWeights::ARTICLE);
        let (pieces, lines) = run(&mut host, &mut bot, 200, 100_000).unwrap();
        let mut direct = Game::new(seed);
        Bot::new(HidamariWeights::ARTICLE).play(&mut direct, 200);
        assert_eq!(pieces, 200);
        assert_eq!(lines, direct.lines);
        assert_eq!(host.game.board, direct.board);
    }
}
