//! The strength suite: a small search from a game's prefix plays the game
//! itself goes on with (its slow twin: the game played key by key after
//! the prefix's keys), the suite file loads with its judging-only starts
//! marked and kept from the trainer, a tiny run is the same JSON on 1 and
//! 2 threads, and bad input is one line.

use std::path::{Path, PathBuf};

use hatetris::enemy::EnemyKind;
use hatetris::evaluate::Evaluator;
use hatetris::game::{Event, Game};
use hatetris::heuristic::Knewjade;
use hatetris::key::Key;
use hatetris::replay::{self, Format};
use hatetris::run::Start;
use hatetris::search::small::{self, Order, Origin, Played, Shape};
use hatetris::strength::{self, Position, Suite, SUITE_FILE};
use hatetris::{MoveGen, Well};

use crate::cli::{hatetris, stderr, stdout};
use crate::util::data;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The slow twin of a width-1 small search in the trainer's order from
/// the well after `prefix` (keys, locking `at` pieces): the game itself,
/// key by key, after the prefix's keys; each piece the game gives is placed
/// at its lowest-cost child (the whole game's score; ties: the lower
/// well), found by its key path.
fn twin(prefix: &[Key], kind: EnemyKind, pieces: u32, eval: &dyn Evaluator) -> Played {
    let mut game = Game::new(kind);
    for &k in prefix {
        assert!(
            !matches!(game.press(k), Event::GameOver { .. } | Event::Ignored),
            "the prefix ends the game"
        );
    }
    let start_score = game.score();
    let mut played = Played {
        pieces: 0,
        died: false,
        wells: vec![game.well()],
        lines: vec![0],
    };
    for _ in 0..pieces {
        let (well, piece) = (game.well(), game.piece());
        let mut children = Vec::new();
        MoveGen::new(&well).children(piece, &mut children);
        let cost =
            |c: &hatetris::Child| eval.cost(&c.well, f64::from(game.score() + u32::from(c.lines)));
        let Some(best) = children
            .iter()
            .min_by(|a, b| cost(a).total_cmp(&cost(b)).then(a.well.cmp(&b.well)))
        else {
            played.died = true;
            return played;
        };
        let keys = replay::link(&well.to_board(), piece, &best.well.to_board()).expect("a path");
        let mut locked = false;
        for k in keys {
            match game.press(k) {
                Event::Locked { .. } => locked = true,
                Event::GameOver { .. } | Event::Ignored => panic!("a live child ends the game"),
                Event::Moved | Event::Blocked => {}
            }
        }
        assert!(
            locked && game.well() == best.well,
            "the key path places the child"
        );
        played.pieces += 1;
        played.wells.push(game.well());
        played.lines.push(game.score() - start_score);
    }
    played
}

/// A width-1 small search from a prefix, in the trainer's order.
fn width_one(origin: &Origin, kind: EnemyKind, pieces: u32, eval: &dyn Evaluator) -> Played {
    let shape = Shape { width: 1, pieces };
    small::play(origin, shape, kind, eval, Order::Trainer)
}

/// At the well after 2,147 pieces of the 3,711-line record the loop rule
/// turns the game's S into a Z: the small search from there, knowing the
/// prefix's wells, plays the game itself, key by key; without the prefix
/// it plays another.
#[test]
fn a_width_one_small_search_from_a_records_prefix_plays_the_game_itself() {
    let text = std::fs::read_to_string(data("from-3711-first-2160.txt")).unwrap();
    let eval = Knewjade::default();
    for at in [2147, 2100] {
        let (start, prefix) =
            Start::from_replay(text.trim(), Some(at), EnemyKind::Hatetris).unwrap();
        assert_eq!(start.at, at);
        let origin = Origin::after(&prefix);
        assert_eq!(origin.at(), at);
        let got = width_one(&origin, EnemyKind::Hatetris, 200, &eval);
        let want = twin(&prefix.keys, EnemyKind::Hatetris, 200, &eval);
        assert_eq!(got, want, "from piece {at}");
        if at == 2147 {
            let alone = width_one(
                &Origin::well(prefix.root()),
                EnemyKind::Hatetris,
                200,
                &eval,
            );
            assert_ne!(alone.wells, got.wells, "the prefix's wells change the game");
        }
    }
}

/// Every enemy, from the prefix of a game it played (a width-1 game from
/// the empty well, linked into keys): the small search from the prefix
/// plays what the game itself plays after the prefix's keys (Brzustowski's
/// state and Burgiel's alternation carry over).
#[test]
fn a_width_one_small_search_from_a_prefix_plays_the_game_itself_for_every_enemy() {
    // A different evaluator for the prefix, so the game after it is new.
    let mut holes = hatetris::heuristic::Weights::default();
    holes.set("holes", 0.0);
    let opening = Knewjade::new(holes, None);
    let eval = Knewjade::default();
    for kind in EnemyKind::ALL {
        let first = width_one(&Origin::well(Well::EMPTY), kind, 60, &opening);
        let boards: Vec<_> = first.wells[1..].iter().map(|w| w.to_board()).collect();
        let keys = replay::keys_from_wells(&boards, kind).unwrap();
        let text = replay::encode(&keys, Format::Base2048);
        for at in [first.pieces / 2, first.pieces] {
            let (_, prefix) = Start::from_replay(&text, Some(at), kind).unwrap();
            let got = width_one(&Origin::after(&prefix), kind, 150, &eval);
            let want = twin(&prefix.keys, kind, 150, &eval);
            assert_eq!(got, want, "{kind} from piece {at}");
        }
    }
}

/// The suite file loads: every start is its game's well after `at`
/// pieces, the 3,711-line record's starts are marked judging only, and
/// nothing under `src/train/` loads the suite or names its judging-only
/// games (the trainer's gate plays its own positions).
#[test]
fn the_suite_loads_and_keeps_its_judging_only_starts_from_the_trainer() {
    let suite = Suite::load(&root().join(SUITE_FILE)).unwrap();
    assert!((12..=24).contains(&suite.positions.len()));
    for p in &suite.positions {
        assert_eq!(p.judging_only, p.game == "dnf-3711", "{} @{}", p.game, p.at);
        assert_eq!(p.origin.at(), p.at);
    }
    assert!(suite.positions.iter().any(|p| p.judging_only));
    // The record's own suite: every 50th piece from 1,000, all judging only.
    let record = Suite::load(&root().join("data/strength/suite-3711.json")).unwrap();
    assert_eq!(record.positions.len(), 161);
    assert!(record
        .positions
        .iter()
        .all(|p| p.judging_only && p.game == "dnf-3711" && p.at % 50 == 0));
    let p = suite
        .positions
        .iter()
        .find(|p| p.game == "dnf-366")
        .unwrap();
    let keys = replay::decode(
        std::fs::read_to_string(root().join("data/strength/dnf-366.txt"))
            .unwrap()
            .trim(),
    )
    .unwrap();
    let trace = replay::play(&keys, EnemyKind::Hatetris);
    let board = trace.steps[p.at as usize - 1].board;
    assert_eq!(p.origin.start().to_board(), board);
    let mut sources = vec![root().join("src/train")];
    while let Some(dir) = sources.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for word in [
                "Suite",
                "SUITE_FILE",
                "suite.json",
                "judging",
                "3711",
                "3,711",
            ] {
                assert!(!text.contains(word), "{} mentions {word}", path.display());
            }
        }
    }
}

/// The trainer never reads the 3,711-line record: none of the games it
/// reads by default (its samples' games, its gate's games and openings) is
/// that game, and none reaches a well the suites judge from (their
/// judging-only starts). The records of one pair of players do meet,
/// though: the wells these games share with the record's steady state
/// (from piece 100) are pinned here. The 366-line game plays the record's
/// pieces 135-268 ten pieces earlier (its pieces 125-258, where the gate
/// starts too; the suites judge the record from piece 1,000), and the
/// 302-line game's pieces 273-279 are the record's 7,273-7,279 (its
/// sampling start at piece 275 is one of them; the wide suite's start at
/// the record's piece 7,000 may play through it): a coincidence of seven
/// wells in 9,300, kept as the settings are.
#[test]
fn the_trainer_never_reads_the_3711_game_or_its_judged_starts() {
    let wells = |replay_text: &str| -> Vec<hatetris::well::Board> {
        let keys = replay::decode(replay_text.trim()).unwrap();
        let trace = replay::play(&keys, EnemyKind::Hatetris);
        trace.steps.iter().map(|s| s.board).collect()
    };
    let record =
        std::fs::read_to_string(root().join("data/strength/judging-only/dnf-3711.txt")).unwrap();
    // Each of the record's steady-state wells, by the piece after which it
    // stands (boards repeat in no game, so one piece each).
    let all = wells(&record);
    let steady: std::collections::HashMap<_, usize> = all
        .iter()
        .copied()
        .enumerate()
        .skip(100)
        .map(|(i, b)| (b, i + 1))
        .collect();
    assert_eq!(steady.len(), all.len() - 100);
    let mut judged = std::collections::HashSet::new();
    for file in [
        SUITE_FILE,
        "data/strength/suite-wide.json",
        "data/strength/suite-3711.json",
    ] {
        let suite = Suite::load(&root().join(file)).unwrap();
        for p in suite.positions.iter().filter(|p| p.judging_only) {
            judged.insert(p.origin.start().to_board());
        }
    }
    assert!(judged.len() > 20);
    let learning = hatetris::train::Learning::default();
    let games = learning
        .games
        .iter()
        .chain(&learning.gate.games)
        .chain(&learning.gate.openings);
    // (game, its first shared piece, the record's, run length)
    let mut shared: Vec<(String, usize, usize, usize)> = Vec::new();
    let mut read = 0;
    for game in games {
        assert_ne!(game.replay.trim(), record.trim(), "{}", game.name);
        for (i, board) in wells(&game.replay).iter().enumerate() {
            assert!(
                !judged.contains(board),
                "{} piece {} is judged",
                game.name,
                i + 1
            );
            read += 1;
            let Some(&at) = steady.get(board) else {
                continue;
            };
            match shared.last_mut() {
                Some(run) if run.0 == game.name && run.2 + run.3 == at => run.3 += 1,
                _ => shared.push((game.name.clone(), i + 1, at, 1)),
            }
        }
    }
    assert!(read > 2_000, "{read} wells read");
    let shared: Vec<_> = shared
        .iter()
        .map(|(g, p, at, n)| (g.as_str(), *p, *at, *n))
        .collect();
    let mut expected = vec![("dnf-302", 273, 7273, 7)];
    for (from, to) in [
        (135, 146),
        (152, 157),
        (163, 168),
        (178, 190),
        (196, 224),
        (228, 232),
    ] {
        expected.push(("dnf-366", from - 10, from, to - from + 1));
    }
    for (from, to) in [(239, 246), (251, 251), (256, 268)] {
        expected.push(("dnf-366", from - 10, from, to - from + 1));
    }
    assert_eq!(shared, expected);
}

/// A suite of two starts (the empty well and a start in the 366 game) in
/// a temporary folder.
fn tiny_suite(dir: &Path) -> PathBuf {
    let file = dir.join("suite.json");
    let replay = |name: &str| root().join("data/strength").join(name);
    let text = serde_json::json!({
        "cap": 25,
        "games": [
            {"name": "net", "replay": replay("net-w10k.txt"), "starts": [0]},
            {"name": "366", "replay": replay("dnf-366.txt"), "starts": [400]},
        ]
    });
    std::fs::write(&file, text.to_string()).unwrap();
    file
}

/// `bench strength` on the tiny suite at width 12 with `evaluators` (their
/// flags), which must succeed.
fn tiny_strength_run(
    suite: &Path,
    evaluators: &[&str],
    threads: &str,
    json: bool,
) -> std::process::Output {
    let mut args = vec!["bench", "strength", "--suite", suite.to_str().unwrap()];
    args.extend_from_slice(evaluators);
    args.extend_from_slice(&["--width", "12", "--threads", threads]);
    if json {
        args.push("--json");
    }
    let out = hatetris(&args, None);
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// A tiny run (width 12, 25 pieces, 2 starts, two evaluators) is the same
/// JSON on 1 and 2 threads, and says what it measured.
#[test]
fn a_tiny_strength_run_is_the_same_on_one_and_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let suite = tiny_suite(dir.path());
    let run = |threads: &str, json: bool| {
        let evaluators = [
            "--net",
            "data/nets/best.nnue",
            "--quiescent",
            "--weights",
            "data/weights/dnf-86.toml",
        ];
        tiny_strength_run(&suite, &evaluators, threads, json)
    };
    let out = run("1", true);
    assert_eq!(stderr(&out), "", "--json says nothing else");
    let one = stdout(&out);
    assert_eq!(one, stdout(&run("2", true)));
    // Without --json, a log (standard error is not a terminal here) gets a
    // line for each start of each evaluator as it ends, and each one's time.
    let log = stderr(&run("2", false));
    for name in [
        "--net data/nets/best.nnue --quiescent 32",
        "--weights data/weights/dnf-86.toml",
    ] {
        for start in ["net @0: ", "366 @400: "] {
            let lines = log
                .lines()
                .filter(|l| l.starts_with(&format!("{name}: {start}")))
                .count();
            assert_eq!(lines, 1, "{name} {start} in\n{log}");
        }
        assert!(log
            .lines()
            .any(|l| l.starts_with(&format!("{name}: ")) && l.ends_with(" s")));
    }
    let v: serde_json::Value = serde_json::from_str(one.trim()).unwrap();
    assert_eq!(v["cap"], 25);
    assert_eq!(v["starts"].as_array().unwrap().len(), 2);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["quiescent"], 32);
    assert!(rows[1]["quiescent"].is_null());
    for row in rows {
        for o in row["per_start"].as_array().unwrap() {
            let pieces = o["pieces"].as_u64().unwrap();
            assert!(pieces <= 25);
            assert_eq!(o["died"].as_bool().unwrap(), pieces < 25);
        }
    }
    assert_eq!(rows[0]["pieces_difference"], 0.0);
}

/// `--chain-step-cost` after an evaluator is that evaluator's: a net with
/// it and the same net without it, side by side, named apart.
#[test]
fn a_chain_step_cost_belongs_to_the_evaluator_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let suite = tiny_suite(dir.path());
    let evaluators = [
        "--net",
        "data/nets/best.nnue",
        "--quiescent",
        "--net",
        "data/nets/best.nnue",
        "--quiescent",
        "--chain-step-cost",
        "0.5",
    ];
    let out = tiny_strength_run(&suite, &evaluators, "2", true);
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(
        rows[0]["evaluator"],
        "--net data/nets/best.nnue --quiescent 32"
    );
    assert!(rows[0].get("chain_step_cost").is_none());
    assert_eq!(
        rows[1]["evaluator"],
        "--net data/nets/best.nnue --quiescent 32 --chain-step-cost 0.5"
    );
    assert_eq!(rows[1]["chain_step_cost"], 0.5);
}

/// Bad input is one line and exit code 1.
#[test]
fn bad_strength_input_is_one_line() {
    for (args, want) in [
        (vec!["--net", "no-such.nnue"], "no-such.nnue"),
        (
            vec!["--weights", "data/weights/dnf-86.toml", "--width", "0"],
            "--width must be at least 1",
        ),
        (
            vec![
                "--weights",
                "data/weights/dnf-86.toml",
                "--suite",
                "no-such.json",
            ],
            "no-such.json",
        ),
        (
            vec![
                "--weights",
                "data/weights/dnf-86.toml",
                "--quiescent",
                "--chain-step-cost",
                "0.1",
            ],
            "--chain-step-cost needs --net and --quiescent",
        ),
    ] {
        let mut all = vec!["bench", "strength"];
        all.extend(args);
        let out = hatetris(&all, None);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{all:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{all:?}: {err}");
        assert!(err.contains(want), "{all:?}: {err}");
    }
}

/// Positions of one game in the same stretch of `--block` pieces share a
/// block, a game's blocks are its own, and with each position its own block
/// (or all in one) the paired difference's error is the plain one.
#[test]
fn positions_share_a_block_within_one_stretch_of_one_game() {
    let text = std::fs::read_to_string(root().join("data/strength/dnf-302.txt")).unwrap();
    let mut positions = Position::all("a", &text, &[0, 100, 105, 145, 150, 200]).unwrap();
    positions.extend(Position::all("b", &text, &[20, 40, 60]).unwrap());
    assert_eq!(
        strength::blocks(&positions, 50),
        [0, 1, 1, 1, 2, 3, 4, 4, 5]
    );
    let own = strength::blocks(&positions, 0);
    assert_eq!(own, (0..9).collect::<Vec<_>>());
    let a = [10.0, 12.0, 9.0, 30.0, 7.0, 8.0, 11.0, 14.0, 6.0];
    let b = [9.0, 10.0, 12.0, 20.0, 7.0, 9.0, 10.0, 11.0, 8.0];
    let (mean, se) = strength::paired_difference(&a, &b);
    assert_eq!(
        strength::paired_difference_in_blocks(&a, &b, &own),
        (mean, se)
    );
    // One block leaves no spread between blocks to measure: the plain
    // error again, not 0.
    assert_eq!(
        strength::paired_difference_in_blocks(&a, &b, &[3; 9]),
        (mean, se)
    );
    let (m, e) = strength::paired_difference_in_blocks(&a, &b, &strength::blocks(&positions, 50));
    assert_eq!(m, mean);
    assert!(e != se);
}
