//! `search --from REPLAY --at PIECE`: a run that goes on from a game's
//! well, with the game's whole history. Its depth files are the same for
//! any thread count and across a resume; its best replay is the whole
//! game, the prefix key for key as the replay has it, and scores what the
//! search reported; the piece each searched well gets is the one the game
//! itself (`crate::game`, key by key) gives after the whole game so far,
//! the loop rule counting the prefix's wells; bad input is one line.

use std::collections::HashSet;
use std::path::Path;
use std::process::Output;

use hatetris::enemy::EnemyKind;
use hatetris::game::{Event, Game};
use hatetris::key::Key;
use hatetris::movegen::MoveGen;
use hatetris::replay;
use hatetris::run::shards::Depth;
use hatetris::{Piece, Well};

use crate::cli::{hatetris, stderr, stdout};
use crate::util::{data, depth_contents, depth_files};

/// The 366-line game (David & Felipe (5)): 948 pieces, the last ending it.
const GAME_366: &str = "from-366.txt";
/// The 3,711-line record's first 2,160 pieces: its loop rule first changes
/// the piece (S to Z) at the well after 2,147.
const RECORD_START: &str = "from-3711-first-2160.txt";

fn arg(name: &str) -> String {
    format!("@{}", data(name).display())
}

/// Runs `hatetris search` with `args`, which must succeed.
fn search(args: &[&str]) -> Output {
    let out = hatetris(args, None);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    out
}

/// The `--json` line's value.
fn json(out: &Output) -> serde_json::Value {
    let text = stdout(out);
    serde_json::from_str(text.lines().last().expect("a JSON line")).expect("JSON")
}

/// The replay's keys.
fn keys(name: &str) -> Vec<Key> {
    replay::decode(std::fs::read_to_string(data(name)).unwrap().trim()).unwrap()
}

/// The game played key by key up to its `at`-th lock: the game, whose
/// next piece is the one given at the well after `at` pieces, and the
/// keys it took.
fn game_at(keys: &[Key], at: u32) -> (Game, usize) {
    let mut game = Game::new(EnemyKind::Hatetris);
    let mut locked = 0;
    for (i, &k) in keys.iter().enumerate() {
        if locked == at {
            return (game, i);
        }
        if let Event::Locked { .. } = game.press(k) {
            locked += 1;
        }
    }
    assert_eq!(locked, at, "the replay has {at} locks");
    (game, keys.len())
}

/// The wells of depth `d`'s file.
fn wells_at(dir: &Path, d: u32) -> Vec<Well> {
    let entries = Depth::open(dir, d, None).unwrap().read_all().unwrap();
    entries.iter().map(|e| e.well).collect()
}

/// Live children of `piece` in `well`.
fn children(well: &Well, piece: Piece) -> HashSet<Well> {
    let mut out = Vec::new();
    MoveGen::new(well).children(piece, &mut out);
    out.into_iter().map(|c| c.well).collect()
}

#[test]
fn from_the_366_game_the_files_agree_across_threads_and_a_resume_and_the_replay_is_the_whole_game()
{
    let record = keys(GAME_366);
    let base = tempfile::tempdir().unwrap();
    // 947: the game's last well before its last piece ended it (the
    // default).
    for at in [Some(100), Some(500), None] {
        let root = at.unwrap_or(947);
        let name = |n: &str| base.path().join(format!("{n}-{root}"));
        let (one, two) = (name("one"), name("two"));
        let max = (root + 6).to_string();
        let half = (root + 3).to_string();
        let run = |more: &[&str]| {
            let mut args: Vec<String> = vec!["search".into(), "--from".into(), arg(GAME_366)];
            if let Some(a) = at {
                args.extend(["--at".into(), a.to_string()]);
            }
            args.extend(["--width", "40", "-q", "--json"].map(String::from));
            args.extend(more.iter().map(|s| s.to_string()));
            search(&args.iter().map(String::as_str).collect::<Vec<_>>())
        };
        let first = run(&[
            "--threads",
            "1",
            "--max-depth",
            &max,
            "--out",
            one.to_str().unwrap(),
        ]);
        run(&[
            "--threads",
            "2",
            "--max-depth",
            &half,
            "--out",
            two.to_str().unwrap(),
        ]);
        let resumed = search(&[
            "search",
            "--resume",
            two.to_str().unwrap(),
            "--max-depth",
            &max,
            "--threads",
            "2",
            "-q",
            "--json",
        ]);
        let files = depth_files(&one);
        // From the last well every child ends the game: the root alone.
        let expected = if at.is_none() { 1 } else { 7 };
        assert_eq!(files.len(), expected, "the root and its depths");
        assert_eq!(files[0].0, format!("depth-{root:05}.beam"));
        assert!(
            files == depth_files(&two),
            "--from {root}: 1 thread, 2 threads and a resume"
        );

        // The whole game: reported, written, re-scored, its prefix the
        // record's key for key.
        let (a, b) = (json(&first), json(&resumed));
        assert_eq!(a["score"], b["score"]);
        assert_eq!(a["best_depth"], b["best_depth"]);
        let depth = a["best_depth"].as_u64().unwrap() as u32;
        assert!(depth >= root && depth <= root + 6, "{depth}");
        let written = std::fs::read_to_string(one.join("best-replay.txt")).unwrap();
        assert_eq!(written.trim(), a["replay"].as_str().unwrap());
        let rescored = hatetris(&["replay", "score", written.trim()], None);
        let last = stdout(&rescored);
        assert_eq!(last.lines().last().unwrap(), a["score"].to_string());
        let best = replay::decode(written.trim()).unwrap();
        let (_, prefix_keys) = game_at(&record, root);
        assert_eq!(
            best[..prefix_keys],
            record[..prefix_keys],
            "the prefix's keys"
        );
        let trace = replay::play(&best, EnemyKind::Hatetris);
        assert_eq!(trace.steps.len() as u32, depth);
        // The game's score at the root is counted: the best game of a
        // search that died out at once is the game up to its root.
        if at.is_none() {
            assert_eq!((a["score"].as_u64(), depth), (Some(366), 947));
            // (Base2048 may pad the keys with one L.)
            assert!(best.len() <= prefix_keys + 1, "the prefix alone");
        }
        let verified = hatetris(&["verify", one.to_str().unwrap()], None);
        assert!(verified.status.success(), "{}", stdout(&verified));
    }
}

/// At the well after 2,147 pieces of the record, the loop rule turns the
/// game's S into a Z: a search from there, which knows the prefix's wells,
/// gives Z, and each well of the next depth is a placement of the piece
/// the game itself gives its parent, played key by key after the whole
/// game so far.
#[test]
fn the_loop_rule_counts_the_games_prefix_as_the_game_itself_does() {
    let record = keys(RECORD_START);
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("run");
    let at = 2147;
    search(&[
        "search",
        "--from",
        &arg(RECORD_START),
        "--at",
        &at.to_string(),
        "--width",
        "200",
        "--max-depth",
        &(at + 2).to_string(),
        "--threads",
        "2",
        "--out",
        dir.to_str().unwrap(),
        "-q",
    ]);
    let (game, _) = game_at(&record, at);
    let root = game.well();
    assert_eq!(wells_at(&dir, at), vec![root]);
    // Without the prefix's history the piece would be the plain choice.
    assert_eq!(hatetris::enemy::mild_choice(&MoveGen::new(&root)), Piece::S);
    assert_eq!(
        game.piece(),
        Piece::Z,
        "the game's own piece, loop rule and all"
    );
    let next = wells_at(&dir, at + 1);
    let z: HashSet<Well> = children(&root, Piece::Z);
    assert_eq!(next.iter().copied().collect::<HashSet<_>>(), z);

    // Depth at + 2: every well a placement of the piece the game gives one
    // of its parents, after the prefix and the key path to that parent.
    let deeper = wells_at(&dir, at + 2);
    assert!(!deeper.is_empty());
    let mut given: Vec<(Well, HashSet<Well>)> = Vec::new();
    for parent in &next {
        let path = replay::link(&root.to_board(), Piece::Z, &parent.to_board()).unwrap();
        let mut g = game.clone();
        for k in path {
            g.press(k);
        }
        assert_eq!(g.well(), *parent);
        given.push((*parent, children(parent, g.piece())));
    }
    for w in &deeper {
        assert!(
            given.iter().any(|(_, kids)| kids.contains(w)),
            "a well of depth {} that no parent's game piece places",
            at + 2
        );
    }
}

#[test]
fn bad_from_inputs_fail_with_one_line_and_write_nothing() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("run");
    let out = dir.to_str().unwrap();
    let game = arg(GAME_366);
    let cases: [(&[&str], &str); 6] = [
        (&["--from", "not a replay!"], "does not decode"),
        (&["--from", &game, "--at", "948"], "already over"),
        (&["--from", &game, "--at", "949"], "past the game's end"),
        (
            &["--from", "DDDDDDDDDDDDDDDDDDDD", "--at", "3"],
            "past the replay's end",
        ),
        (&["--at", "3"], "--at needs --from"),
        (
            &["--from", &game, "--at", "100", "--max-depth", "100"],
            "not past the start",
        ),
    ];
    for (args, says) in cases {
        let mut all = vec!["search", "--width", "10", "--out", out, "-q"];
        all.extend(args);
        let o = hatetris(&all, None);
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!dir.exists(), "{args:?} wrote the folder");
    }
}

/// `args` as the `&str`s a command takes.
fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// A run from the 366-line game at piece 500 sharded over 2 workers
/// (`--workers 2`): stopped at piece 505 and resumed, killed (SIGKILL) once
/// a shard has written depth 515 and resumed again, it holds a `--threads
/// 2` run's beams (the union of its shards' files, root first), history
/// snapshots, best game and replay; the replay is the whole game and
/// re-scores to the score reported; `verify`, `status` and `keyframes`
/// take the folder alone.
#[test]
fn from_the_366_game_sharded_over_2_workers_equals_2_threads_across_a_stop_a_kill_and_resumes() {
    let base = tempfile::tempdir().unwrap();
    let (threads, workers) = (base.path().join("threads"), base.path().join("workers"));
    let (root, max) = (500, "540");
    let new = |dir: &Path, how: &[&str], depth: &str| -> Vec<String> {
        let mut args: Vec<String> = ["search", "--from", &arg(GAME_366), "--at", "500"]
            .map(String::from)
            .to_vec();
        args.extend(["--width", "1000", "-q", "--json", "--max-depth", depth].map(String::from));
        args.extend(how.iter().map(|s| s.to_string()));
        args.extend(["--out".into(), dir.to_str().unwrap().into()]);
        args
    };
    let resume = |depth: &str| -> Vec<String> {
        let w = workers.to_str().unwrap();
        [
            "search",
            "--resume",
            w,
            "--max-depth",
            depth,
            "--workers",
            "2",
            "-q",
            "--json",
        ]
        .map(String::from)
        .to_vec()
    };
    let plain = search(&strs(&new(&threads, &["--threads", "2"], max)));
    search(&strs(&new(&workers, &["--workers", "2"], "505")));
    // Resumed, then killed once a shard has written depth 515 (or the run
    // ended first), then resumed to the end.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hatetris"))
        .args(strs(&resume(max)))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mark = workers.join("shard-0000/depth-00515.beam");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !mark.exists() && child.try_wait().unwrap().is_none() {
        assert!(std::time::Instant::now() < until, "depth 515 never came");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let _ = child.kill();
    child.wait().unwrap();
    let last = search(&strs(&resume(max)));

    let manifest = hatetris::run::read_manifest_file(&workers).unwrap();
    assert!(manifest.shards.is_some(), "sharded");
    assert!(depth_files(&workers).is_empty(), "no one-file depth");
    let beams = depth_contents(&workers);
    assert_eq!(beams.len(), 41, "the root and its 40 depths");
    assert_eq!(beams[0].len(), 1, "the root alone at depth {root}");
    assert!(beams == depth_contents(&threads), "the beams");
    assert_eq!(
        crate::util::snapshot_files(&workers),
        crate::util::snapshot_files(&threads),
        "the history"
    );
    let (a, b) = (json(&plain), json(&last));
    for key in ["score", "best_depth", "depth", "keys", "replay"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    let written = std::fs::read_to_string(workers.join("best-replay.txt")).unwrap();
    assert_eq!(
        written,
        std::fs::read_to_string(threads.join("best-replay.txt")).unwrap()
    );
    // The whole game: the record's keys to piece 500, and re-scored.
    let best = replay::decode(written.trim()).unwrap();
    let (_, prefix_keys) = game_at(&keys(GAME_366), root);
    assert_eq!(best[..prefix_keys], keys(GAME_366)[..prefix_keys]);
    let rescored = hatetris(&["replay", "score", written.trim()], None);
    assert_eq!(
        stdout(&rescored).lines().last().unwrap(),
        b["score"].to_string()
    );
    let w = workers.to_str().unwrap();
    let verified = hatetris(&["verify", w], None);
    assert!(verified.status.success(), "{}", stdout(&verified));
    let status = hatetris(&["status", w], None);
    assert!(status.status.success(), "{}", stderr(&status));
    // The depth's common ancestor lies at or after the game's well at 500.
    let back = stdout(&status);
    let at: u32 = back
        .split("descend from its well at depth ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("no common ancestor in: {back}"));
    assert!((root..540).contains(&at), "{back}");
    let rebuilt = |dir: &Path| stdout(&hatetris(&["keyframes", dir.to_str().unwrap()], None));
    assert_eq!(rebuilt(&workers), rebuilt(&threads));
    assert_eq!(rebuilt(&workers).trim(), written.trim());
}
