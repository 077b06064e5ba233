//! Rule tests for NES Tetris: rotation states, line clears and scoring, levels,
//! the randomiser, the straight drops, the bot's features and choice, the GA and
//! the weights file.

use bots::common::SplitMix64;
use bots::nes::bot::{choose, features, features_slow, play_game, ARTICLE_WEIGHTS};
use bots::nes::ga::{self, GaConfig, Genome, WeightsError};
use bots::nes::rng::{Lfsr, Randomiser, POWER_ON_SEED, SPAWN_TABLE};
use bots::nes::sim::{
    level_after_line, placements, points, rotate_ccw, rotate_cw, Board, End, Game, CELLS,
    GROUP_LEN, GROUP_START, SPAWN_X, SPAWN_Y,
};

/// Draws orientation `o` in a 5x5 box centred on the pivot (`+` marks an empty pivot).
fn draw(o: u8) -> String {
    let cells = CELLS[o as usize];
    let mut s = String::new();
    for y in -2..=2 {
        for x in -2..=2 {
            let filled = cells.contains(&(x, y));
            s.push(if filled {
                '#'
            } else if (x, y) == (0, 0) {
                '+'
            } else {
                '.'
            });
        }
        s.push('\n');
    }
    s
}

fn art(rows: &[&str]) -> String {
    rows.iter().map(|r| format!("{r}\n")).collect()
}

#[test]
fn rotation_a_turns_t_clockwise_about_its_centre() {
    // Spawn (pointing down), then A three times: left, up, right.
    let expected = [
        (2, art(&[".....", ".....", ".###.", "..#..", "....."])),
        (3, art(&[".....", "..#..", ".##..", "..#..", "....."])),
        (0, art(&[".....", "..#..", ".###.", ".....", "....."])),
        (1, art(&[".....", "..#..", "..##.", "..#..", "....."])),
    ];
    let mut o = SPAWN_TABLE[0];
    for (id, picture) in expected {
        assert_eq!(o, id);
        assert_eq!(draw(o), picture, "orientation {o}");
        o = rotate_cw(o);
    }
    assert_eq!(o, SPAWN_TABLE[0], "four turns come back to the spawn state");
}

#[test]
fn rotation_states_of_i_s_z_o_are_the_nintendo_ones() {
    // I and S/Z have two states that do not move the pivot's row/column "right";
    // O has a single state. These pictures are the NRS ones (right-handed I, S, Z).
    assert_eq!(
        draw(0x12),
        art(&[".....", ".....", "####.", ".....", "....."])
    );
    assert_eq!(
        draw(0x11),
        art(&["..#..", "..#..", "..#..", "..#..", "....."])
    );
    assert_eq!(
        draw(0x08),
        art(&[".....", ".....", ".##..", "..##.", "....."])
    );
    assert_eq!(
        draw(0x09),
        art(&[".....", "...#.", "..##.", "..#..", "....."])
    );
    assert_eq!(
        draw(0x0B),
        art(&[".....", ".....", "..##.", ".##..", "....."])
    );
    assert_eq!(
        draw(0x0C),
        art(&[".....", "..#..", "..##.", "...#.", "....."])
    );
    assert_eq!(
        draw(0x0A),
        art(&[".....", ".....", ".##..", ".##..", "....."])
    );
    assert_eq!(rotate_cw(0x0A), 0x0A);
    assert_eq!(rotate_cw(rotate_cw(0x12)), 0x12);
}

#[test]
fn rotation_b_undoes_a_for_every_orientation() {
    for o in 0..19u8 {
        assert_eq!(rotate_ccw(rotate_cw(o)), o);
        assert_eq!(rotate_cw(rotate_ccw(o)), o);
    }
    // Group sizes: T J L 4, Z S I 2, O 1.
    assert_eq!(GROUP_LEN, [4, 4, 2, 1, 2, 4, 2]);
    assert_eq!(GROUP_START, [0, 4, 8, 10, 11, 13, 17]);
}

#[test]
fn rotation_has_no_wall_kick() {
    // A vertical I against the left wall cannot turn flat: the flat I needs two
    // cells left of the pivot. Without kicks the rotation is simply refused.
    let board = Board::EMPTY;
    assert!(board.fits(0x11, 0, 10));
    assert!(!board.fits(rotate_cw(0x11), 0, 10));
    assert!(board.fits(rotate_cw(0x11), 2, 10), "it fits two columns in");
}

#[test]
fn every_piece_spawns_in_its_table_orientation_at_column_5() {
    let game = Game::new(7, 0);
    let p = placements(&game.board, game.current);
    assert!(!p.as_slice().is_empty());
    // Empty well: T has 8+9+8+9 = 34 straight drops (4 states), I has 7 + 10.
    assert_eq!(placements(&Board::EMPTY, 0).as_slice().len(), 34);
    assert_eq!(placements(&Board::EMPTY, 6).as_slice().len(), 17);
    assert_eq!(placements(&Board::EMPTY, 3).as_slice().len(), 9);
    assert!(Board::EMPTY.fits(SPAWN_TABLE[6], SPAWN_X, SPAWN_Y));
}

#[test]
fn line_clear_of_four_rows_scores_1200_times_level_plus_one() {
    let well = "\
#########.
#########.
#########.
#########.";
    for level in [0u8, 9, 18] {
        let mut game = Game::new(1, level);
        game.board = Board::from_text(well).unwrap();
        let y = game.board.drop_slow(0x11, 9, 0);
        game.current = 6;
        game.play(bots::nes::sim::Placement {
            orientation: 0x11,
            x: 9,
            y,
        });
        assert_eq!(game.lines, 4);
        assert_eq!(game.score, 1200 * (u64::from(level) + 1));
        assert_eq!(game.clears, [0, 0, 0, 1]);
        assert_eq!(game.board, Board::EMPTY, "all four rows removed");
    }
}

#[test]
fn line_clear_keeps_rows_above_and_drops_them() {
    let mut board = Board::from_text(
        "\
#.........
#########.
##.######.
#########.",
    )
    .unwrap();
    let y = board.drop_slow(0x11, 9, 0);
    assert_eq!(board.lock(0x11, 9, y), Some(2));
    let expected = Board::from_text(
        "\
#.........
##.#######",
    )
    .unwrap();
    // The I's top cell stays in column 9 above the partial row.
    let mut expected = expected;
    expected.rows[18] |= 1 << 9;
    assert_eq!(board, expected);
}

#[test]
fn scoring_is_40_100_300_1200_times_level_plus_one() {
    assert_eq!(
        [points(1, 0), points(2, 0), points(3, 0), points(4, 0)],
        [40, 100, 300, 1200]
    );
    assert_eq!(points(1, 9), 400);
    assert_eq!(points(4, 19), 24_000);
    assert_eq!(points(0, 9), 0);
}

#[test]
fn level_rises_as_on_the_cartridge() {
    // From 0: every ten lines.
    assert_eq!(level_after_line(0, 10), 1);
    assert_eq!(level_after_line(0, 9), 0);
    // From 9: the first rise is at 100 lines, then every ten.
    assert_eq!(level_after_line(9, 90), 9);
    assert_eq!(level_after_line(9, 100), 10);
    assert_eq!(level_after_line(10, 110), 11);
    // From 18: at 130 lines (the known transition), not at 120.
    assert_eq!(level_after_line(18, 120), 18);
    assert_eq!(level_after_line(18, 130), 19);
    // From 19: at 140.
    assert_eq!(level_after_line(19, 130), 19);
    assert_eq!(level_after_line(19, 140), 20);
    // Points use the level reached by the clear.
    let mut game = Game::new(1, 9);
    game.lines = 98;
    game.credit_lines(2);
    assert_eq!((game.level, game.score), (10, 100 * 11));
}

#[test]
fn lfsr_step_matches_the_6502_routine_for_every_state() {
    for v in 0..=u16::MAX {
        assert_eq!(Lfsr(v).step(), Lfsr(v).step_slow(), "state {v:#06x}");
    }
}

#[test]
fn lfsr_from_power_on_cycles_through_32767_states() {
    let start = Lfsr(POWER_ON_SEED);
    assert_eq!(
        start.step(),
        Lfsr(0x44C4),
        "bits 9 and 1 of $8988 are both 0"
    );
    let mut v = start.step();
    let mut n = 1;
    while v != start {
        v = v.step();
        n += 1;
    }
    assert_eq!(n, 32_767);
}

#[test]
fn randomiser_seed_never_decays_to_zero() {
    // Seed 1 steps to 0, and 0 stays 0: both start from the power-on value.
    assert_eq!(Lfsr(1).step(), Lfsr(0));
    assert_eq!(Randomiser::new(0).lfsr, Lfsr(POWER_ON_SEED));
    assert_eq!(Randomiser::new(1).lfsr, Lfsr(POWER_ON_SEED));
    // Every other seed is on the 32,767-state cycle after one step, so it
    // never reaches 0: mark the cycle and check every seed's first step.
    let mut on_cycle = vec![false; 1 << 16];
    let start = Lfsr(POWER_ON_SEED).step();
    let mut v = start;
    loop {
        on_cycle[v.0 as usize] = true;
        v = v.step();
        if v == start {
            break;
        }
    }
    for seed in 0..=u16::MAX {
        let r = Randomiser::new(seed);
        assert!(on_cycle[r.lfsr.step().0 as usize], "seed {seed:#06x}");
        assert_ne!(r.lfsr.0, 0);
    }
}

#[test]
fn randomiser_sequence_from_the_power_on_seed() {
    // Worked by hand for the first two: count 1, ($89 + 1) & 7 = 2 -> Z;
    // count 2, ($89 + 2) & 7 = 3 -> O. With no frame steps the high byte stays $89
    // until a re-roll; index 7 or a repeat re-rolls.
    let mut r = Randomiser::new(POWER_ON_SEED);
    let names = |r: &mut Randomiser, n: usize, framed: bool| -> String {
        (0..n)
            .map(|_| {
                let p = if framed { r.next_piece() } else { r.pick() };
                bots::nes::sim::PIECE_NAMES[p as usize]
            })
            .collect()
    };
    assert_eq!(&names(&mut r, 2, false), "ZO");
    // Framed picks step the register first. By hand: $8988 -> $44C4, ($44 + 1) & 7 = 5
    // -> L; $44C4 -> $2262, ($22 + 2) & 7 = 4 -> S; $2262 -> $1131, ($11 + 3) & 7 = 4
    // is S again, so re-roll: $1131 -> $0898, ($08 & 7) + $0B = 11, mod 7 = 4 -> S
    // (the re-roll may repeat). The rest pins the implementation.
    let mut r = Randomiser::new(POWER_ON_SEED);
    let seq = names(&mut r, 20, true);
    assert_eq!(seq.len(), 20);
    let mut again = Randomiser::new(POWER_ON_SEED);
    assert_eq!(names(&mut again, 20, true), seq, "same seed, same pieces");
    insta_like(
        "randomiser power-on, 20 framed picks",
        &seq,
        RANDOMISER_VECTOR,
    );
}

/// The framed sequence from the power-on seed, recorded from this implementation
/// after checking its first picks by hand.
const RANDOMISER_VECTOR: &str = "LSSTOISTJILSLISTLSSJ";

fn insta_like(what: &str, got: &str, want: &str) {
    assert_eq!(got, want, "{what}");
}

#[test]
fn randomiser_repeats_a_piece_about_one_time_in_28() {
    // First roll: 8 outcomes, of which "7" and "same as last" re-roll (2/8); the
    // re-roll repeats with chance 1/7. So repeats come 1/28 of the time, and each
    // piece 1/7.
    let mut r = Randomiser::from_game_seed(3);
    let n = 200_000;
    let mut counts = [0u32; 7];
    let mut repeats = 0;
    let mut last = r.next_piece();
    for _ in 0..n {
        let p = r.next_piece();
        counts[p as usize] += 1;
        repeats += u32::from(p == last);
        last = p;
    }
    let rate = f64::from(repeats) / f64::from(n);
    assert!((0.030..0.042).contains(&rate), "repeat rate {rate}");
    for c in counts {
        let share = f64::from(c) / f64::from(n);
        assert!((0.12..0.165).contains(&share), "share {share}");
    }
}

fn random_board(rng: &mut SplitMix64, height: u32) -> Board {
    let mut b = Board::EMPTY;
    for r in (20 - height as usize)..20 {
        b.rows[r] = (rng.next_u64() as u16) & 0x3FF;
        if b.rows[r] == 0x3FF {
            b.rows[r] = 0x1FF;
        }
    }
    b
}

#[test]
fn straight_drop_lands_where_stepping_down_lands() {
    let mut rng = SplitMix64::new(11);
    for i in 0..3000 {
        let b = random_board(&mut rng, 1 + i % 17);
        let tops = b.column_tops();
        for o in 0..19u8 {
            for x in 0..10i8 {
                if !b.fits(o, x, SPAWN_Y) {
                    continue;
                }
                let fast = b.drop_y(&tops, o, x);
                if fast >= SPAWN_Y {
                    assert_eq!(
                        fast,
                        b.drop_slow(o, x, SPAWN_Y),
                        "o {o} x {x}\n{}",
                        b.to_text()
                    );
                }
            }
        }
        for piece in 0..7 {
            for p in placements(&b, piece).as_slice() {
                assert_eq!(p.y, b.drop_slow(p.orientation, p.x, SPAWN_Y));
            }
        }
    }
}

#[test]
fn features_match_a_cell_by_cell_count() {
    let mut rng = SplitMix64::new(5);
    for i in 0..5000 {
        let b = random_board(&mut rng, i % 21);
        assert_eq!(features(&b, 2), features_slow(&b, 2), "\n{}", b.to_text());
    }
    let b = Board::from_text(
        "\
.#........
.#.#......
##.#.....#",
    )
    .unwrap();
    let f = features(&b, 0);
    // Heights 1 3 0 2 0 0 0 0 0 1, no holes.
    assert_eq!((f.height, f.holes, f.bumpiness), (7, 0, 2 + 3 + 2 + 2 + 1));
    let holed = Board::from_text("##........\n..........\n#.........").unwrap();
    assert_eq!(features(&holed, 0).holes, 3);
}

#[test]
fn bot_completes_the_tetris_in_a_prepared_well() {
    let board = Board::from_text(
        "\
#########.
#########.
#########.
#########.",
    )
    .unwrap();
    let (p, _) = choose(&board, 6, Some(3), &ARTICLE_WEIGHTS).unwrap();
    assert_eq!((p.orientation, p.x), (0x11, 9));
}

#[test]
fn bot_avoids_covering_a_hole_when_a_flat_spot_exists() {
    // An O on a flat floor must not be put over the notch in column 0.
    let board = Board::from_text(".#########").unwrap();
    let (p, _) = choose(&board, 3, None, &ARTICLE_WEIGHTS).unwrap();
    let mut after = board;
    after.lock(p.orientation, p.x, p.y).unwrap();
    assert_eq!(features(&after, 0).holes, 0, "\n{}", after.to_text());
}

#[test]
fn games_are_a_function_of_their_seed() {
    let run = |seed| {
        let mut g = Game::new(seed, 9);
        play_game(&mut g, &ARTICLE_WEIGHTS, true, 200);
        (g.score, g.lines, g.board)
    };
    assert_eq!(run(4), run(4));
    assert_ne!(run(4), run(5));
}

#[test]
fn game_ends_at_the_piece_limit_or_on_top_out() {
    let mut g = Game::new(2, 9);
    play_game(&mut g, &ARTICLE_WEIGHTS, true, 50);
    assert_eq!((g.pieces, g.end), (50, Some(End::PieceLimit)));
    // A well filled to the spawn rows tops out at once.
    let mut g = Game::new(2, 9);
    for r in 0..20 {
        g.board.rows[r] = 0x1EF;
    }
    play_game(&mut g, &ARTICLE_WEIGHTS, true, 50);
    assert_eq!(g.end, Some(End::TopOut));
}

#[test]
fn crossover_is_weighted_by_fitness() {
    let a = Genome {
        w: [1.0, 1.0, 1.0, 1.0],
        fitness: 300.0,
    };
    let b = Genome {
        w: [-1.0, 0.0, 1.0, 5.0],
        fitness: 100.0,
    };
    assert_eq!(ga::crossover(&a, &b), [0.5, 0.75, 1.0, 2.0]);
    let zero = Genome {
        w: [0.0; 4],
        fitness: 0.0,
    };
    let one = Genome {
        w: [1.0; 4],
        fitness: 0.0,
    };
    assert_eq!(ga::crossover(&zero, &one), [0.5; 4]);
}

#[test]
fn training_is_deterministic_on_1_or_2_threads() {
    let cfg = GaConfig {
        population: 8,
        generations: 2,
        games: 1,
        pieces: 30,
        seed: 9,
        threads: 1,
        ..GaConfig::default()
    };
    let one = ga::train(&cfg, |_, _| {});
    let two = ga::train(
        &GaConfig {
            threads: 2,
            ..cfg.clone()
        },
        |_, _| {},
    );
    let key = |p: &[Genome]| p.iter().map(|g| (g.w, g.fitness)).collect::<Vec<_>>();
    assert_eq!(key(&one), key(&two));
    assert_eq!(one.len(), 8);
    assert!(
        one.windows(2).all(|w| w[0].fitness >= w[1].fitness),
        "fittest first"
    );
    // Initial weights lie in [-1, 1]; the survivors of generation 0 keep them.
    let w = ga::fittest_half_mean(&one);
    assert!(w.to_array().iter().all(|v| v.is_finite()));
}

fn temp_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("bots-nes-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn weights_file_round_trips_and_refuses_damage() {
    let path = temp_file("w.txt");
    ga::save_weights(&path, &ARTICLE_WEIGHTS, "a test").unwrap();
    assert_eq!(ga::load_weights(&path).unwrap(), ARTICLE_WEIGHTS);
    let text = std::fs::read_to_string(&path).unwrap();
    let truncated: String = text.lines().take(4).collect::<Vec<_>>().join("\n");
    assert!(matches!(
        ga::parse_weights(&truncated, "t"),
        Err(WeightsError::Bad { .. })
    ));
    let v2 = text.replace("nes-weights 1", "nes-weights 2");
    assert!(matches!(
        ga::parse_weights(&v2, "t"),
        Err(WeightsError::Bad { .. })
    ));
    let old_json = r#"{"format": "bots-nes-weights", "version": 1}"#;
    let e = ga::parse_weights(old_json, "t").unwrap_err().to_string();
    assert!(e.contains("expected `nes-weights 1`"), "{e}");
    assert!(matches!(
        ga::load_weights(&temp_file("missing.txt")),
        Err(WeightsError::Io { .. })
    ));
}

#[test]
fn host_command_without_a_rom_is_a_one_line_error() {
    let err = bots::nes::cli::run(bots::nes::cli::Cmd::Host {
        rom: None,
        pieces: 1,
        frames: 1,
        level: 0,
        weights: None,
    })
    .unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("no ROM"), "{msg}");
    assert!(!msg.contains('\n'));
    let err = bots::nes::cli::run(bots::nes::cli::Cmd::Host {
        rom: Some(temp_file("no-such.nes")),
        pieces: 1,
        frames: 1,
        level: 0,
        weights: None,
    })
    .unwrap_err();
    assert!(!format!("{err:#}").contains('\n'));
}

#[test]
fn bcd_counters_decode_as_the_cartridge_stores_them() {
    use bots::nes::ram::{from_bcd, to_bcd};
    assert_eq!(from_bcd(0x42), 42);
    assert_eq!(to_bcd(42), 0x42);
    for v in 0..100 {
        assert_eq!(from_bcd(to_bcd(v)), v);
    }
}

#[test]
fn driver_through_the_ram_map_plays_the_same_game_as_the_simulator() {
    // The mock bus: the simulator laid out at the cartridge's RAM addresses. The
    // driver sees only bytes and buttons, yet must make the same moves as the
    // direct bot: same well, lines and score.
    use bots::host::Host;
    use bots::nes::driver::run_game;
    use bots::nes::ramsim::RamSim;
    for seed in [1, 2, 3] {
        let mut host = RamSim::new(seed, 9);
        let report = run_game(&mut host, &ARTICLE_WEIGHTS, 150, 1_000_000).unwrap();
        let mut direct = Game::new(seed, 9);
        play_game(&mut direct, &ARTICLE_WEIGHTS, true, 150);
        assert_eq!(report.pieces, 150);
        assert_eq!(host.game.board, direct.board, "seed {seed}");
        assert_eq!(
            (report.lines, u64::from(report.score)),
            (direct.lines, direct.score)
        );
        assert!(!report.topped_out);
        assert_eq!(bots::nes::ram::read_board(&host), direct.board);
        assert!(host.frames() > 150);
    }
}

#[test]
fn driver_stops_on_the_game_over_state() {
    use bots::nes::driver::run_from_power_on;
    use bots::nes::ramsim::RamSim;
    let mut host = RamSim::new(4, 0);
    for r in 3..20 {
        host.game.board.rows[r] = 0x3FE;
    }
    let report = run_from_power_on(&mut host, &ARTICLE_WEIGHTS, 0, 100, 100_000).unwrap();
    assert!(report.topped_out, "{report}");
    assert!(report.pieces < 100);
}

/// A synthetic NROM image: 16-byte iNES header, 16 KiB of PRG and 8 KiB of CHR,
/// all zero except a program at `$C000` that counts frames into RAM `$0010` and
/// the reset vector pointing at it. Made here, so no game ROM is involved.
#[cfg(feature = "nes-emulator")]
fn synthetic_rom() -> Vec<u8> {
    let mut rom = vec![0u8; 16 + 16 * 1024 + 8 * 1024];
    rom[..8].copy_from_slice(&[b'N', b'E', b'S', 0x1A, 1, 1, 0, 0]);
    // $C000: INC $10 ; JMP $C000  (PRG is mirrored at $8000 and $C000)
    let prg = 16;
    rom[prg..prg + 5].copy_from_slice(&[0xE6, 0x10, 0x4C, 0x00, 0xC0]);
    // Reset vector at $FFFC = $C000.
    rom[prg + 0x3FFC] = 0x00;
    rom[prg + 0x3FFD] = 0xC0;
    rom
}

#[cfg(feature = "nes-emulator")]
#[test]
fn emulator_host_runs_frames_and_reads_ram_of_a_synthetic_rom() {
    use bots::host::{Buttons, Host};
    use bots::nes::emulator::TetanesHost;
    let path = temp_file("synthetic.nes");
    std::fs::write(&path, synthetic_rom()).unwrap();
    let mut host = TetanesHost::open(&path).unwrap();
    host.set_buttons(Buttons::START | Buttons::A);
    let before = host.peek(0x0010);
    for _ in 0..3 {
        host.step_frame().unwrap();
    }
    assert_eq!(host.frames(), 3);
    assert_ne!(host.peek(0x0010), before, "the program ran and wrote RAM");
    // The driver on a ROM that never shows the menus times out with an error.
    let err =
        bots::nes::driver::run_from_power_on(&mut host, &ARTICLE_WEIGHTS, 0, 1, 50).unwrap_err();
    assert!(err.to_string().contains("within"), "{err}");
}

#[cfg(feature = "nes-emulator")]
#[test]
fn emulator_host_refuses_a_file_that_is_not_a_rom() {
    use bots::nes::emulator::TetanesHost;
    let path = temp_file("not-a-rom.nes");
    std::fs::write(&path, b"hello").unwrap();
    let err = TetanesHost::open(&path).err().unwrap();
    assert!(format!("{err:#}").contains("not an iNES ROM"));
    let err = TetanesHost::open(&temp_file("absent.nes")).err().unwrap();
    assert!(format!("{err:#}").contains("cannot read ROM"));
}

/// `tests/data/echo.nes`, assembled from `tests/data/echo.s` (see there and
/// `scripts/build-echo.sh`): each frame's NMI reads controller 1 through the
/// port at `$4016` and echoes it into RAM.
#[cfg(feature = "nes-emulator")]
const ECHO_ROM: &[u8] = include_bytes!("data/echo.nes");

#[cfg(feature = "nes-emulator")]
mod echo {
    pub const HELD: u16 = 0x10;
    pub const FRAME: u16 = 0x11;
    pub const PRESSED: u16 = 0x12;
    pub const TAPS: u16 = 0x20;
}

/// The echo program in the emulator, past its start-up (two vertical blanks
/// of PPU warm-up, then NMIs run once a frame).
#[cfg(feature = "nes-emulator")]
fn echo_host(name: &str) -> bots::nes::emulator::TetanesHost {
    use bots::host::Host;
    let path = temp_file(name);
    std::fs::write(&path, ECHO_ROM).unwrap();
    let mut host = bots::nes::emulator::TetanesHost::open(&path).unwrap();
    // Work RAM is not cleared at power-on, so wait until the counter has
    // gone up by one on three steps in a row (the program has cleared the
    // zero page and its NMI runs).
    let mut run = 0;
    for _ in 0..20 {
        let before = host.peek(echo::FRAME);
        host.step_frame().unwrap();
        run = if host.peek(echo::FRAME) == before.wrapping_add(1) {
            run + 1
        } else {
            0
        };
        if run == 3 {
            return host;
        }
    }
    panic!("the echo program's NMI never ran");
}

#[cfg(feature = "nes-emulator")]
const ALL_BUTTONS: [(bots::host::Buttons, &str); 8] = {
    use bots::host::Buttons;
    [
        (Buttons::A, "A"),
        (Buttons::B, "B"),
        (Buttons::SELECT, "Select"),
        (Buttons::START, "Start"),
        (Buttons::UP, "Up"),
        (Buttons::DOWN, "Down"),
        (Buttons::LEFT, "Left"),
        (Buttons::RIGHT, "Right"),
    ]
};

#[cfg(feature = "nes-emulator")]
#[test]
fn emulator_echo_every_button_reaches_its_bit_through_the_port() {
    use bots::host::{Buttons, Host};
    let mut host = echo_host("echo-bits.nes");
    for (b, name) in ALL_BUTTONS {
        host.set_buttons(b);
        host.step_frame().unwrap();
        assert_eq!(host.peek(echo::HELD), b.0, "{name} read back");
        host.set_buttons(Buttons::NONE);
        host.step_frame().unwrap();
        assert_eq!(host.peek(echo::HELD), 0, "{name} released");
    }
    // Every button at once that a real controller can hold: a d-pad cannot
    // press opposite directions.
    for held in [
        Buttons::A | Buttons::B | Buttons::SELECT | Buttons::START | Buttons::UP | Buttons::LEFT,
        Buttons::A | Buttons::B | Buttons::SELECT | Buttons::START | Buttons::DOWN | Buttons::RIGHT,
        Buttons::A | Buttons::RIGHT,
    ] {
        host.set_buttons(held);
        host.step_frame().unwrap();
        assert_eq!(host.peek(echo::HELD), held.0);
    }
    // Opposite directions: the emulator, like a d-pad, keeps one of the two
    // (the later in NES order; see `nes::emulator`).
    host.set_buttons(Buttons::UP | Buttons::DOWN | Buttons::LEFT | Buttons::RIGHT);
    host.step_frame().unwrap();
    assert_eq!(host.peek(echo::HELD), (Buttons::DOWN | Buttons::RIGHT).0);
}

#[cfg(feature = "nes-emulator")]
#[test]
fn emulator_echo_one_step_is_one_frame() {
    use bots::host::Host;
    let mut host = echo_host("echo-frames.nes");
    let start = host.peek(echo::FRAME);
    let frames = host.frames();
    for i in 1..=300u32 {
        host.step_frame().unwrap();
        assert_eq!(
            host.peek(echo::FRAME),
            start.wrapping_add(i as u8),
            "after {i} steps: one NMI per step"
        );
    }
    assert_eq!(host.frames(), frames + 300);
}

#[cfg(feature = "nes-emulator")]
#[test]
fn emulator_echo_a_one_frame_tap_registers_once() {
    use bots::host::{Buttons, Host};
    let mut host = echo_host("echo-taps.nes");
    for (i, (b, name)) in ALL_BUTTONS.into_iter().enumerate() {
        let taps = |h: &bots::nes::emulator::TetanesHost| h.peek(echo::TAPS + i as u16);
        let before = taps(&host);
        host.set_buttons(b);
        host.step_frame().unwrap();
        assert_eq!(host.peek(echo::PRESSED), b.0, "{name} newly pressed");
        host.set_buttons(Buttons::NONE);
        for _ in 0..5 {
            host.step_frame().unwrap();
        }
        assert_eq!(
            taps(&host),
            before.wrapping_add(1),
            "{name}: one tap, one press"
        );
        // Held for 20 frames, it is still one press.
        host.set_buttons(b);
        for _ in 0..20 {
            host.step_frame().unwrap();
        }
        host.set_buttons(Buttons::NONE);
        host.step_frame().unwrap();
        assert_eq!(
            taps(&host),
            before.wrapping_add(2),
            "{name}: a hold is one press"
        );
        // Two taps with one frame between them are two presses.
        for _ in 0..2 {
            host.set_buttons(b);
            host.step_frame().unwrap();
            host.set_buttons(Buttons::NONE);
            host.step_frame().unwrap();
        }
        assert_eq!(taps(&host), before.wrapping_add(4), "{name}: two taps");
    }
}
