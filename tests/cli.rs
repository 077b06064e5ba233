//! The command line as a user runs it: exit codes, one-line errors, and
//! the outputs other tools rely on.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::util::{data, json_lines};

pub fn hatetris(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hatetris"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hatetris");
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `replay score` prints each record's expected score as its last line, in
/// every encoding the game's test file gives.
#[test]
fn replay_score_prints_the_record_score_last() {
    for rec in json_lines("replays.jsonl")
        .iter()
        .filter(|r| r["ai"] == "HATETRIS")
        .take(8)
    {
        for (enc, text) in rec["encodings"].as_object().unwrap() {
            let o = hatetris(
                &["replay", "score", "-"],
                Some(text.as_str().unwrap().as_bytes()),
            );
            assert!(o.status.success(), "{enc}: {}", stderr(&o));
            let last = stdout(&o).lines().last().unwrap().to_string();
            assert_eq!(
                last,
                rec["expected_score"].to_string(),
                "{} in {enc}",
                rec["name"]
            );
        }
    }
}

/// Bad replays get one line on stderr and a non-zero exit, never a panic.
#[test]
fn bad_replays_fail_with_one_line() {
    for bad in ["LRDU\u{1F600}", "௨ටໃݹ௨ටໃݹठ௨", "@/no/such/file", "RDLU##ABZ"] {
        let o = hatetris(&["replay", "score", bad], None);
        assert!(!o.status.success(), "{bad:?} should fail");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{bad:?}: {err}");
        assert!(err.starts_with("hatetris: "), "{err}");
        assert!(!err.contains("panicked"));
    }
}

/// The game accepts an empty or blank replay as no keys: score 0.
#[test]
fn empty_replays_score_zero_as_in_the_game() {
    for empty in ["", "   ", " \n\t "] {
        let o = hatetris(&["replay", "score", empty], None);
        assert!(o.status.success(), "{empty:?}: {}", stderr(&o));
        assert_eq!(stdout(&o).lines().last(), Some("0"));
    }
}

/// `movegen children` prints the golden vectors' format; on the first golden
/// wells the output is identical to the game's (without the `source` field).
#[test]
fn movegen_children_matches_the_golden_lines() {
    let records = json_lines("movegen.jsonl.gz");
    let mut input = String::new();
    let mut want = Vec::new();
    for rec in records.iter().take(40) {
        let rows: Vec<String> = rec["well"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.to_string())
            .collect();
        input.push_str(&rows.join(" "));
        input.push('\n');
        let mut rec = rec.clone();
        rec.as_object_mut().unwrap().remove("source");
        want.push(rec);
    }
    let o = hatetris(&["movegen", "children"], Some(input.as_bytes()));
    assert!(o.status.success(), "{}", stderr(&o));
    let got: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(g == w, "line {} differs from the golden record", i + 1);
    }
    // The key order is the golden file's too: well, children, hatetris_piece.
    assert!(stdout(&o).starts_with(
        "{\"well\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],\"children\":{\"S\":[[["
    ));
}

/// A bad well line is named by its line number.
#[test]
fn movegen_children_names_a_bad_line() {
    let o = hatetris(&["movegen", "children"], Some(b"0 0 0\n"));
    assert!(!o.status.success());
    assert_eq!(
        stderr(&o).trim(),
        "hatetris: standard input, line 1: expected 20 row integers, found 3"
    );
    assert!(data("replays.jsonl").exists());
}

/// `replay encode` then `replay score` round-trips through Base2048.
#[test]
fn replay_encode_round_trips() {
    let o = hatetris(&["replay", "encode", "DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD"], None);
    assert!(o.status.success());
    let text = stdout(&o);
    let o = hatetris(&["replay", "score", text.trim()], None);
    assert_eq!(stdout(&o).lines().last(), Some("0"));
}

/// `--quiescent` without a value uses the library's default depth.
#[test]
fn quiescent_flag_default_is_the_library_default() {
    let o = hatetris(
        &[
            "eval",
            "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
            "--quiescent",
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let depth = v["quiescent"]["depth"]
        .as_u64()
        .or_else(|| v["quiescent"]["max_depth"].as_u64());
    assert_eq!(
        depth,
        Some(hatetris::evaluate::DEFAULT_QUIESCENT_DEPTH as u64),
        "{v}"
    );
}

/// `eval --quiescent WELL` takes the well as the well, not as a depth; a
/// depth is `--quiescent=DEPTH`.
#[test]
fn eval_quiescent_before_the_well_leaves_the_well_alone() {
    let well = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 512 768 1015 1022";
    let o = hatetris(&["eval", "--quiescent", well, "--json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["quiescent"]["depth"], 32, "{v}");
    let o = hatetris(&["eval", "--quiescent=3", well, "--json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["quiescent"]["depth"], 3, "{v}");
}

/// `bench search --threads 1,2` runs the search once per count: one
/// per-depth table (the first count's), one line and one phase split per
/// count, the serial share and its limits, and with `--json` one object per
/// count whose signatures agree, then a summary.
#[test]
fn bench_search_compares_thread_counts() {
    let o = hatetris(
        &[
            "bench",
            "search",
            "--width",
            "300",
            "--depths",
            "8",
            "--threads",
            "1,2",
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // With --json, the text goes to standard error and the JSON alone to
    // standard output.
    let text = stderr(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "search: width 300, 8 depths, threads 1,2, lookahead off"
    );
    let table = lines
        .iter()
        .filter(|l| l.split_whitespace().count() == 4)
        .filter(|l| l.split_whitespace().next().unwrap().parse::<u32>().is_ok())
        .count();
    assert_eq!(table, 8, "one table, of the first count: {text}");
    let signature = lines
        .iter()
        .find_map(|l| l.strip_prefix("children "))
        .and_then(|l| l.split("signature ").nth(1))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .expect("a signature line");
    for (i, t) in ["1 thread:", "2 threads:"].iter().enumerate() {
        let at = lines.iter().position(|l| l.starts_with(t)).expect(t);
        assert!(lines[at].contains(" ms/depth "), "{}", lines[at]);
        let speed_up = lines[at].split("speed-up ").nth(1).unwrap();
        if i == 0 {
            assert_eq!(speed_up, "1.00");
        }
        assert!(lines[at + 1].starts_with("  phases: expand "), "{text}");
    }
    let amdahl = lines
        .iter()
        .find(|l| l.starts_with("serial share (Amdahl, speed-up "))
        .expect("a serial share line");
    for at in ["at 16", "at 64", "at 128 threads"] {
        assert!(amdahl.contains(at), "{amdahl}");
    }
    let all: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let (runs, summary) = (all["runs"].as_array().unwrap(), &all["summary"]);
    assert_eq!(runs.len(), 2);
    for (run, threads) in runs.iter().zip([1, 2]) {
        assert_eq!(run["threads"], threads);
        assert_eq!(run["signature"].as_str().unwrap(), signature);
        assert_eq!(run["per_depth"].as_array().unwrap().len(), 8);
        assert!(run["seconds_per_depth"].as_f64().unwrap() > 0.0);
    }
    assert_eq!(runs[0]["speed_up"], 1.0);
    assert_eq!(runs[0]["per_depth"], runs[1]["per_depth"]);
    assert_eq!(summary["threads"], serde_json::json!([1, 2]));
    assert_eq!(summary["signature"], runs[0]["signature"]);
    assert_eq!(summary["amdahl_threads"], serde_json::json!([1, 2]));
    assert!(summary["serial_share"].is_f64(), "{summary}");
    for m in ["16", "64", "128"] {
        assert!(summary["speed_up_limits"][m].as_f64().unwrap() >= 1.0);
    }
}

/// `bench search --workers` runs the sharded search (HATETRIS, so with the
/// history sent to the workers) after the thread counts, and it must make
/// the same search: one signature for all, and the runs labelled.
#[test]
fn bench_search_runs_the_sharded_search_to_the_same_signature() {
    let args = "bench search --width 300 --depths 8 --threads 1 --workers 1,2 --json";
    let o = hatetris(&args.split(' ').collect::<Vec<_>>(), None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stderr(&o);
    assert!(
        text.starts_with("search: width 300, 8 depths, threads 1, workers 1,2, "),
        "{text}"
    );
    for run in ["1 thread: ", "1 worker: ", "2 workers: "] {
        assert!(text.lines().any(|l| l.starts_with(run)), "{run}: {text}");
    }
    // Standard output is the JSON alone (timely's connection messages do
    // not reach it).
    let all: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let runs = all["runs"].as_array().unwrap();
    let sharded: Vec<_> = runs.iter().map(|r| r["sharded"].clone()).collect();
    assert_eq!(sharded, [false, true, true]);
    assert!(runs.iter().all(|r| r["signature"] == runs[0]["signature"]));
    assert_eq!(all["summary"]["workers"], serde_json::json!([1, 2]));
    let o = hatetris(&["bench", "search", "--workers", "0"], None);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o).trim(), "hatetris: --workers must be at least 1");
}

/// `bench search --repeat 2 --copies` runs the list twice over and reports
/// each count's median with every run's seconds, the kept set's lock, and
/// the machine's own limit from as many independent 1-thread searches as
/// the largest count (which must make the same search); `--copies`
/// without 1 and a larger count is one line and exit code 1.
#[test]
fn bench_search_repeats_and_measures_the_machine() {
    let args = |threads: &'static str| {
        [
            "bench",
            "search",
            "--width",
            "200",
            "--depths",
            "6",
            "--threads",
            threads,
            "--repeat",
            "2",
            "--copies",
            "--json",
        ]
    };
    let o = hatetris(&args("1,2"), None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stderr(&o);
    assert!(
        text.starts_with("search: width 200, 6 depths, threads 1,2 (2 times each, medians), "),
        "{text}"
    );
    for t in ["1 thread: ", "2 threads: "] {
        let line = text.lines().find(|l| l.starts_with(t)).expect(t);
        assert!(line.contains(" (runs "), "{line}");
    }
    assert!(text.contains("  the kept set's lock: held "), "{text}");
    assert!(
        text.contains("the machine: 2 independent 1-thread searches at once took "),
        "{text}"
    );
    assert!(
        text.contains("serial share against that (Amdahl, "),
        "{text}"
    );
    let all: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let summary = &all["summary"];
    assert_eq!(summary["repeat"], 2);
    assert!(
        summary["machine_ceiling"].as_f64().unwrap() > 0.0,
        "{summary}"
    );
    assert!(
        summary["serial_share_against_machine"].is_f64(),
        "{summary}"
    );
    let o = hatetris(&args("2"), None);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim(),
        "hatetris: --copies needs --threads with 1 and a larger count"
    );
}

/// `replay show` steps through a game: for each lock in `--from..=--to`
/// its number, piece and lines so far, then the well after it, drawn as
/// `eval` reads it; the last line sums the game up.
#[test]
fn replay_show_steps_through_the_locks_with_each_well() {
    let rec = json_lines("replays.jsonl")
        .into_iter()
        .find(|r| r["ai"] == "HATETRIS" && r["expected_score"].as_u64() > Some(10))
        .unwrap();
    let replay = rec["encodings"]["Base2048"].as_str().unwrap();
    let keys = hatetris::replay::decode(replay).unwrap();
    let trace = hatetris::replay::play(&keys, hatetris::enemy::EnemyKind::Hatetris);
    let pieces = rec["pieces"].as_str().unwrap();
    assert_eq!(trace.steps.len(), pieces.len());

    let o = hatetris(
        &["replay", "show", replay, "--from", "5", "--to", "7"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3 * 21 + 1, "{text}");
    for (k, lock) in (5..=7).enumerate() {
        let step = &trace.steps[lock - 1];
        assert_eq!(
            lines[21 * k],
            format!(
                "lock {lock}: piece {}, lines so far {}{}",
                &pieces[lock - 1..lock],
                step.score,
                match step.lines {
                    0 => String::new(),
                    1 => " (+1 line)".to_string(),
                    n => format!(" (+{n} lines)"),
                }
            )
        );
        let drawing = lines[21 * k + 1..21 * k + 21].join("\n");
        assert_eq!(drawing + "\n", hatetris::well::draw_board(&step.board));
        // The drawing is a well the tool reads back: the game's own well.
        let want = crate::util::board(&rec["wells"][lock - 1]);
        assert_eq!(step.board, want, "lock {lock}");
    }
    assert!(
        lines[63].starts_with(&format!(
            "score {}, {} pieces",
            rec["expected_score"],
            pieces.len()
        )),
        "{}",
        lines[63]
    );

    // The whole game: one header per piece; the last has the score.
    let o = hatetris(&["replay", "show", replay], None);
    let text = stdout(&o);
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("lock ")).collect();
    assert_eq!(headers.len(), pieces.len());
    let last = headers.last().unwrap();
    assert!(
        last.contains(&format!("lines so far {}", rec["expected_score"])),
        "{last}"
    );
    // --to past the end means the end; --json takes the same range.
    let o = hatetris(
        &[
            "replay", "show", replay, "--from", "2", "--to", "100000", "--json",
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["steps"].as_array().unwrap().len(), pieces.len() - 1);
    // A drawing of a shown well is what `eval` takes as a well.
    let o = hatetris(&["eval", "-"], Some(lines[1..21].join("\n").as_bytes()));
    assert!(o.status.success(), "{}", stderr(&o));
}

/// `bench movegen --json` ends with one JSON line with its three keys.
#[test]
fn bench_movegen_json_has_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let wells = dir.path().join("wells.txt");
    std::fs::write(&wells, "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 96 48\n").unwrap();
    let o = hatetris(
        &[
            "bench",
            "movegen",
            "--runs",
            "1",
            "--json",
            "--wells",
            wells.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let last = stdout(&o).lines().last().unwrap().to_string();
    let v: serde_json::Value = serde_json::from_str(&last).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "all7_children_us",
            "choice_us",
            "chosen_children_us",
            "spreads"
        ]
    );
    assert!(v
        .as_object()
        .unwrap()
        .values()
        .filter(|x| x.is_number())
        .all(|x| x.as_f64().unwrap() >= 0.0));
    // Each figure's spread: the fastest run, the median (the figure), the
    // slowest.
    for (s, key) in v["spreads"].as_array().unwrap().iter().zip([
        "choice_us",
        "chosen_children_us",
        "all7_children_us",
    ]) {
        assert_eq!(s["median"], v[key], "{v}");
        assert!(s["min"].as_f64() <= s["median"].as_f64(), "{v}");
        assert!(s["median"].as_f64() <= s["max"].as_f64(), "{v}");
    }
}
