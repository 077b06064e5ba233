//! Every command as careful as `search`: a width that cannot fit refused
//! before any work, a folder of another kind refused in one line, and
//! Ctrl-C on the long commands ending with exit code 130, one line saying
//! how to go on, and no temporary file or folder left.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::cli::{hatetris, stderr, stdout};

/// Every file under `dir`, by path relative to it, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p.clone());
            }
            all.push(p.strip_prefix(dir).unwrap().to_path_buf());
        }
    }
    all.sort();
    all
}

/// The temporary files (`NAME.tmp-PID`) under `dir`.
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    files_under(dir)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".tmp-"))
        .collect()
}

/// Exit code 1 and one line on standard error holding `want`.
fn one_line(o: &Output, want: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(want), "wanted {want:?} in: {err}");
}

#[test]
fn train_tune_and_compare_refuse_a_width_that_cannot_fit_before_any_work() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("new");
    let d = dir.to_str().unwrap();
    let huge = "1000000000000";
    let w = "data/weights/dnf-86.toml";
    let started = Instant::now();
    for args in [
        vec!["train", d, "--width", huge, "--threads", "1"],
        vec!["tune", d, "--width", huge, "--threads", "1"],
        vec!["compare", "--weights", w, "--weights", w, "--width", huge],
    ] {
        let o = hatetris(&args, None);
        one_line(&o, &format!("--width {huge} needs about"));
        assert!(stderr(&o).contains("(use --force to try anyway)"));
        assert!(!dir.exists(), "{args:?} made the folder");
    }
    // Beyond what any process can address, --force does not help.
    let o = hatetris(
        &["train", d, "--width", &usize::MAX.to_string(), "--force"],
        None,
    );
    one_line(&o, "more than a process can address");
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// A tuning folder, made by the tuner itself (two evaluations of tiny
/// beams).
fn tuning_folder(dir: &Path) {
    let o = hatetris(
        &[
            "tune",
            dir.to_str().unwrap(),
            "-q",
            "--budget",
            "2",
            "--width",
            "20",
            "--starts",
            "1",
            "--pieces",
            "4",
            "--terms",
            "holes",
            "--threads",
            "1",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn each_command_refuses_a_folder_that_holds_another_kind_in_one_line() {
    let base = tempfile::tempdir().unwrap();
    let run = base.path().join("run");
    let (r, tuning) = (run.to_str().unwrap(), base.path().join("tuning"));
    let o = hatetris(
        &[
            "search",
            "-q",
            "--width",
            "10",
            "--max-depth",
            "2",
            "--out",
            r,
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    tuning_folder(&tuning);
    let t = tuning.to_str().unwrap();
    // A training folder as the trainer starts it: its settings first.
    let training = base.path().join("training");
    fs::create_dir(&training).unwrap();
    fs::write(training.join("train.json"), "{}").unwrap();
    let tr = training.to_str().unwrap();
    let before: Vec<_> = [&run, &tuning, &training]
        .iter()
        .map(|d| files_under(d))
        .collect();
    let run_is = format!("{r} holds a search run (manifest.json)");
    let tuning_is = format!("{t} holds a tuning folder (tune.json)");
    let training_is = format!("{tr} holds a training folder (train.json)");
    let cases: [(Vec<&str>, String); 7] = [
        (vec!["train", r], format!("{run_is}, not a training folder")),
        (
            vec!["train", t],
            format!("{tuning_is}, not a training folder"),
        ),
        (
            vec!["tune", r, "--width", "20"],
            format!("{run_is}, not a tuning folder"),
        ),
        (
            vec!["tune", tr, "--width", "20"],
            format!("{training_is}, not a tuning folder"),
        ),
        (
            vec!["search", "--resume", tr],
            format!("{training_is}, not a search run"),
        ),
        (
            vec!["search", "--resume", t],
            format!("{tuning_is}, not a search run"),
        ),
        (
            vec!["search", "--out", t],
            format!("{tuning_is}, not a search run"),
        ),
    ];
    for (args, want) in cases {
        let o = hatetris(&args, None);
        one_line(&o, &want);
    }
    let after: Vec<_> = [&run, &tuning, &training]
        .iter()
        .map(|d| files_under(d))
        .collect();
    assert_eq!(before, after, "a refused command wrote into a folder");
}

/// The trainer's settings file is the marker the folder room names.
#[test]
fn the_training_folders_settings_file_is_its_marker() {
    let dir = Path::new("d");
    assert_eq!(
        hatetris::train::config_path(dir),
        hatetris::folder::Holds::Training.marker_path(dir)
    );
}

/// `hatetris ARGS`, standard output and error piped, with `TMPDIR` set to
/// `tmp`.
fn spawn(args: &[&str], tmp: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_hatetris"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env("TMPDIR", tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits (at most a minute) until `ready`, then sends SIGINT, as Ctrl-C
/// does, and returns what the process printed.
fn interrupt_when(child: Child, ready: impl Fn() -> bool) -> Output {
    let until = Instant::now() + Duration::from_secs(60);
    while !ready() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(ready(), "never got ready");
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    child.wait_with_output().unwrap()
}

/// Exit code 130, and standard error ending with `last`.
fn interrupted(o: &Output, last: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert_eq!(err.lines().last(), Some(last), "{err}");
}

/// Runs `args` (whose folder is `dir`), interrupts it once `ready`, and
/// checks the one line that names what the folder `keeps` and the same
/// command to go on, that no temporary file is left, and that the same
/// command then runs to its end.
fn interrupt_and_go_on(
    args: &[&str],
    tmp: &Path,
    dir: &Path,
    keeps: &str,
    ready: impl Fn() -> bool,
) {
    let o = interrupt_when(spawn(args, tmp), ready);
    let d = dir.to_str().unwrap();
    let hint = format!(
        "interrupted: {d} {keeps}; to go on, run the same command: hatetris {}",
        args.join(" ")
    );
    interrupted(&o, &hint);
    assert_eq!(temporaries(dir), Vec::<PathBuf>::new());
    let o = hatetris(args, None);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn ctrl_c_on_train_says_how_to_go_on_and_leaves_no_temporary_file() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("nets");
    let d = dir.to_str().unwrap();
    let args = [
        "train",
        d,
        "-q",
        "--no-learning",
        "--generations",
        "1",
        "--threads",
        "1",
        "--hidden",
        "8",
        "--width",
        "200",
        "--samples",
        "200",
        "--heuristic-samples",
        "400",
        "--beam-width",
        "5",
        "--epochs",
        "2",
    ];
    let master = dir.join("gen-000");
    let keeps = "keeps every finished step";
    interrupt_and_go_on(&args, base.path(), &dir, keeps, || master.is_dir());
    assert!(dir.join("gen-000/net.nnue").is_file());
}

#[test]
fn ctrl_c_on_tune_says_how_to_go_on_and_leaves_no_temporary_file() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("tuning");
    let d = dir.to_str().unwrap();
    let args = [
        "tune",
        d,
        "-q",
        "--budget",
        "6",
        "--width",
        "60",
        "--starts",
        "2",
        "--pieces",
        "8",
        "--terms",
        "holes",
        "--threads",
        "1",
    ];
    let settings = dir.join("tune.json");
    let keeps = "keeps every finished evaluation";
    interrupt_and_go_on(&args, base.path(), &dir, keeps, || settings.is_file());
}

#[test]
fn ctrl_c_on_compare_and_bench_search_removes_their_temporary_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let w = "data/weights/dnf-86.toml";
    let cases: [(&[&str], &str); 2] = [
        (
            &[
                "compare",
                "--weights",
                w,
                "--weights",
                w,
                "--width",
                "3000",
                "--threads",
                "1",
            ],
            "interrupted: nothing is kept (the temporary reference game is removed)",
        ),
        (
            &[
                "bench",
                "search",
                "--width",
                "3000",
                "--depths",
                "60",
                "--threads",
                "1",
            ],
            "interrupted: no figures (each is a whole run); its temporary folders are removed",
        ),
    ];
    for (args, last) in cases {
        let child = spawn(args, tmp.path());
        let o = interrupt_when(child, || {
            // A run under the temporary folder has begun.
            !files_under(tmp.path()).is_empty()
                && files_under(tmp.path())
                    .iter()
                    .any(|p| p.to_string_lossy().contains("depth-"))
        });
        interrupted(&o, last);
        assert_eq!(files_under(tmp.path()), Vec::<PathBuf>::new(), "{args:?}");
    }
}

/// `--json` prints one JSON value alone on standard output (the lines for
/// a person go to standard error), with hashes as hexadecimal strings and
/// `depth` meaning the last complete depth wherever a run's depth is
/// given (`best_depth`: the best game's).
#[test]
fn json_is_alone_on_standard_output_for_every_command_that_has_it() {
    let base = tempfile::tempdir().unwrap();
    let run = base.path().join("run");
    let r = run.to_str().unwrap();
    let tuning = base.path().join("tuning");
    let t = tuning.to_str().unwrap();
    let nets = base.path().join("nets");
    let n = nets.to_str().unwrap();
    let json = |args: &[&str]| -> serde_json::Value {
        let o = hatetris(args, None);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let text = String::from_utf8(o.stdout).unwrap();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text:?}"))
    };
    let search = json(&[
        "search",
        "--json",
        "--width",
        "30",
        "--max-depth",
        "6",
        "--threads",
        "1",
        "--out",
        r,
    ]);
    assert_eq!(search["depth"], 6, "{search}");
    assert!(search["best_depth"].as_u64().unwrap() <= 6, "{search}");
    let status = json(&["status", r, "--json"]);
    assert_eq!(status["depth"], search["depth"]);
    assert_eq!(status["best_depth"], search["best_depth"]);
    assert_eq!(status["eta_s"], 0.0, "a finished run has nothing left");
    let keyframes = json(&["keyframes", r, "--json"]);
    assert_eq!(keyframes["replay"], search["replay"]);
    assert_eq!(keyframes["best_depth"], search["best_depth"]);
    let replay = search["replay"].as_str().unwrap();
    let score = json(&["replay", "score", replay, "--json"]);
    assert_eq!(score["score"], search["score"]);
    assert_eq!(score["depth"], search["best_depth"]);
    // The sharded search: timely's messages stay off standard output.
    let sharded = base.path().join("sharded");
    json(&[
        "search",
        "--json",
        "--width",
        "30",
        "--max-depth",
        "4",
        "--workers",
        "2",
        "--out",
        sharded.to_str().unwrap(),
    ]);
    let bench = json(&[
        "bench",
        "search",
        "--json",
        "--width",
        "30",
        "--depths",
        "3",
        "--threads",
        "1",
    ]);
    let signature = bench["summary"]["signature"].as_str().unwrap();
    assert_eq!(signature.len(), 16, "{bench}");
    assert!(
        bench["runs"][0]["per_depth"][0]["hash"].is_string(),
        "{bench}"
    );
    json(&[
        "tune",
        t,
        "-q",
        "--json",
        "--budget",
        "2",
        "--width",
        "20",
        "--starts",
        "1",
        "--pieces",
        "4",
        "--terms",
        "holes",
        "--threads",
        "1",
    ]);
    json(&[
        "train",
        n,
        "-q",
        "--no-learning",
        "--json",
        "--generations",
        "1",
        "--threads",
        "1",
        "--hidden",
        "8",
        "--width",
        "50",
        "--samples",
        "100",
        "--heuristic-samples",
        "200",
        "--beam-width",
        "5",
        "--epochs",
        "1",
    ]);
}

/// The bench wells are built into the binary: `bench movegen` and `bench
/// eval` run from any folder, each figure with its spread (median, then
/// fastest to slowest).
#[test]
fn the_benches_run_from_any_folder_on_the_built_in_wells_with_their_spread() {
    let elsewhere = tempfile::tempdir().unwrap();
    let built_in = hatetris::bench::built_in_wells().unwrap();
    let file =
        hatetris::bench::read_wells(&hatetris::bench::source_path(hatetris::bench::WELLS_FILE))
            .unwrap();
    assert_eq!(built_in, file);
    for args in [&["bench", "movegen", "--runs", "1"][..], &["bench", "eval"]] {
        let o = Command::new(env!("CARGO_BIN_EXE_hatetris"))
            .args(args)
            .current_dir(elsewhere.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(
            text.contains("2000 wells") || text.contains("wells: 2000"),
            "{text}"
        );
        assert!(text.contains(" to "), "{args:?}: no spread in {text}");
    }
}

/// A figure is doubted when its run is too short or its runs too far
/// apart.
#[test]
fn a_bench_figure_says_when_it_is_not_to_be_trusted() {
    use hatetris::bench::{doubt, Spread};
    let steady = Spread::of(&[1.0, 1.01, 1.02, 0.99, 1.0]);
    assert_eq!(steady.median, 1.0);
    assert_eq!((steady.min, steady.max), (0.99, 1.02));
    assert_eq!(doubt(&steady, 0.5), None);
    let short = doubt(&steady, 0.06).unwrap();
    assert!(short.contains("each run took 60 ms, too short"), "{short}");
    let wild = Spread::of(&[1.48, 2.0, 2.1, 5.52, 2.2, 1.9]);
    let apart = doubt(&wild, 0.5).unwrap();
    assert!(apart.contains("apart (1.480 to 5.520)"), "{apart}");
}

/// `--quiescent` is spelled one way everywhere: alone (the default depth),
/// `--quiescent N` and `--quiescent=N` (1 to 32); 0 is refused everywhere.
/// Each command here then fails on a cheap later check, which shows the
/// flag was read.
#[test]
fn quiescent_takes_an_optional_depth_the_same_way_everywhere() {
    let w = "data/weights/dnf-86.toml";
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("new");
    let d = dir.to_str().unwrap();
    let commands: [(Vec<&str>, &str); 7] = [
        (
            vec!["search", "--threads", "0"],
            "--threads must be at least 1",
        ),
        (
            vec!["bench", "search", "--depths", "0"],
            "--depths must be at least 1",
        ),
        (
            vec!["train", d, "--threads", "0"],
            "--threads must be at least 1",
        ),
        (
            vec!["tune", d, "--threads", "0"],
            "--threads must be at least 1",
        ),
        (
            vec!["compare", "--weights", w, "--weights", w, "--threads", "0"],
            "--threads must be at least 1",
        ),
        (
            vec!["bench", "eval", "--wells", "/no/such/wells"],
            "No such file or directory",
        ),
        (
            vec!["bench", "strength", "--weights", w, "--threads", "0"],
            "--threads must be at least 1",
        ),
    ];
    for (args, later) in &commands {
        for q in [
            &["--quiescent"][..],
            &["--quiescent", "5"],
            &["--quiescent=5"],
        ] {
            let mut all = args.clone();
            all.extend_from_slice(q);
            let o = hatetris(&all, None);
            one_line(&o, later);
        }
        let mut zero = args.clone();
        zero.extend(["--quiescent", "0"]);
        let o = hatetris(&zero, None);
        assert_eq!(o.status.code(), Some(2), "{zero:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("0 is not in 1..=32"), "{}", stderr(&o));
    }
    // `eval` takes it before or after the well.
    let well = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 512 768 1015 1022";
    for (args, depth) in [
        (vec!["eval", "--quiescent", "5", well, "--json"], 5),
        (vec!["eval", "--quiescent=5", well, "--json"], 5),
        (vec!["eval", well, "--quiescent", "5", "--json"], 5),
        (vec!["eval", "--quiescent", well, "--json"], 32),
    ] {
        let o = hatetris(&args, None);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["quiescent"]["depth"], depth, "{args:?}");
    }
    for (args, want) in [
        (vec!["eval", well, "--quiescent", "0"], "0 is not in 1..=32"),
        (
            vec!["eval", "--quiescent", "5"],
            "the WELL argument is missing",
        ),
    ] {
        let o = hatetris(&args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
    }
}

/// `status --watch [SECONDS]` reads its value with or without `=`, before
/// or after the folder.
#[test]
fn status_watch_takes_its_seconds_the_same_way_as_every_optional_value() {
    let missing = "/no/such/run";
    for args in [
        vec!["status", "--watch", "5", missing],
        vec!["status", "--watch=5", missing],
        vec!["status", missing, "--watch", "5"],
        vec!["status", "--watch", missing],
    ] {
        let o = hatetris(&args, None);
        one_line(&o, "/no/such/run");
    }
    let o = hatetris(&["status", missing, "--watch", "0"], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("0 is not in 1..=86400"),
        "{}",
        stderr(&o)
    );
}

/// `@FILE` is read wherever a replay or a file of wells is taken, and a
/// replay that looks like a file name without its `@` gets a hint.
#[test]
fn at_file_is_read_everywhere_and_a_missing_at_gets_a_hint() {
    let base = tempfile::tempdir().unwrap();
    let run = base.path().join("run");
    let o = hatetris(
        &[
            "search",
            "-q",
            "--width",
            "20",
            "--max-depth",
            "6",
            "--threads",
            "1",
            "--out",
        ]
        .into_iter()
        .chain([run.to_str().unwrap()])
        .collect::<Vec<_>>(),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = run.to_str().unwrap();
    let wells_file = base.path().join("wells.txt");
    let o = hatetris(
        &["keyframes", r, "--pick", "deepest", "--format", "wells"],
        None,
    );
    fs::write(&wells_file, &o.stdout).unwrap();
    let replay_file = base.path().join("replay.txt");
    let o = hatetris(&["keyframes", r, "--pick", "deepest"], None);
    fs::write(&replay_file, &o.stdout).unwrap();
    let (wf, rf) = (wells_file.to_str().unwrap(), replay_file.to_str().unwrap());
    let (at_wells, at_replay) = (format!("@{wf}"), format!("@{rf}"));
    // replay from-wells: FILE and @FILE alike.
    let plain = hatetris(&["replay", "from-wells", wf], None);
    let at = hatetris(&["replay", "from-wells", &at_wells], None);
    assert!(at.status.success(), "{}", stderr(&at));
    assert_eq!(at.stdout, plain.stdout);
    // The wells files of movegen and bench movegen.
    let o = hatetris(&["movegen", "children", "--wells", &at_wells], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = hatetris(
        &["bench", "movegen", "--runs", "1", "--wells", &at_wells],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // compare --reference takes a replay: the replay itself or @FILE.
    let small = [
        "--width",
        "20",
        "--starts",
        "1",
        "--pieces",
        "4",
        "--threads",
        "1",
        "--json",
    ];
    let w = "data/weights/dnf-86.toml";
    let mut args = vec![
        "compare",
        "--weights",
        w,
        "--weights",
        w,
        "--reference",
        &at_replay,
    ];
    args.extend(small);
    let o = hatetris(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    // Without the @, a file name is not a replay: one line with the hint.
    args[6] = rf;
    let o = hatetris(&args, None);
    one_line(
        &o,
        &format!("({rf} looks like a file name: give @{rf} to read it)"),
    );
    let o = hatetris(&["replay", "score", rf], None);
    one_line(&o, &format!("give @{rf} to read it"));
    let o = hatetris(&["eval", "wells.txt"], None);
    one_line(&o, "give @wells.txt to read it");
}

/// `tune --budget B` makes exactly B evaluations (the generation that
/// crosses it measures its first candidates only), and a resume with a
/// larger budget goes on to exactly that.
#[test]
fn the_tuners_budget_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let small = [
        "--width",
        "20",
        "--starts",
        "1",
        "--pieces",
        "4",
        "--population",
        "3",
        "--terms",
        "holes,surface_height",
        "--threads",
        "2",
        "-q",
    ];
    for budget in ["3", "8"] {
        let mut args = vec!["tune", d, "--budget", budget];
        if budget == "3" {
            args.extend(small);
        }
        let o = hatetris(&args, None);
        assert!(o.status.success(), "{}", stderr(&o));
        let n = hatetris::tune::evaluations(dir.path()).unwrap().len();
        assert_eq!(n.to_string(), budget);
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            text.contains(&format!("{budget} evaluations; CMA-ES stopped: the budget")),
            "{text}"
        );
    }
}

/// Smaller refusals: a resume's `--max-depth` below the run's depth, and
/// picture names the pictures cannot have; a picture that cannot be written
/// says why in the system's words.
#[test]
fn a_resume_below_its_depth_and_wrong_picture_names_are_one_line() {
    let base = tempfile::tempdir().unwrap();
    let run = base.path().join("run");
    let r = run.to_str().unwrap();
    let o = hatetris(
        &[
            "search",
            "-q",
            "--width",
            "10",
            "--max-depth",
            "5",
            "--threads",
            "1",
            "--out",
            r,
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = hatetris(&["search", "--resume", r, "--max-depth", "3"], None);
    one_line(
        &o,
        "--max-depth 3 is below the run's last complete depth 5: a resume cannot go back; give 5 or more",
    );
    // plot --out: a folder gets run.svg and run.png; another extension
    // than .svg or .png is refused.
    let pictures = base.path().join("pictures");
    fs::create_dir(&pictures).unwrap();
    let o = hatetris(&["plot", r, "--out", pictures.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(pictures.join("run.svg").is_file() && pictures.join("run.png").is_file());
    let jpg = base.path().join("x.jpg");
    let o = hatetris(&["plot", r, "--out", jpg.to_str().unwrap()], None);
    one_line(&o, "the pictures are SVG and PNG");
    let o = hatetris(
        &["replay", "render", "", "--out", jpg.to_str().unwrap()],
        None,
    );
    one_line(&o, "the picture is PNG or SVG");
    assert!(!jpg.exists());
    let o = hatetris(
        &["replay", "render", "", "--out", "/no/such/folder/x.png"],
        None,
    );
    one_line(
        &o,
        "/no/such/folder/x.png: cannot draw: No such file or directory (os error 2)",
    );
}

/// On a log (standard error not a terminal), `tune` says each evaluation
/// with the best so far and the budget, and `compare` each contender's
/// start and end with its fitness and time; `-q` silences both.
#[test]
fn tune_and_compare_show_their_progress_on_a_log_and_are_quiet_with_q() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("tuning");
    let d = dir.to_str().unwrap();
    let tiny = ["--width", "20", "--starts", "1", "--pieces", "4"];
    let mut args = vec!["tune", d, "--budget", "2", "--terms", "holes"];
    args.extend(["--threads", "1"]);
    args.extend(tiny);
    let o = hatetris(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("reference game: "), "{err}");
    assert!(err.contains("evaluation 1 of 2 (generation 0): "), "{err}");
    assert!(err.contains("evaluation 2 of 2 (generation 1): "), "{err}");
    assert!(err.contains("; best "), "{err}");
    let w = "data/weights/dnf-86.toml";
    let mut args = vec!["compare", "--weights", w, "--weights", w];
    args.extend(tiny);
    let o = hatetris(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    for i in 1..=2 {
        assert!(
            err.contains(&format!("contender {i} of 2: {w} started")),
            "{err}"
        );
        assert!(
            err.contains(&format!("contender {i} of 2: {w} finished: ")),
            "{err}"
        );
    }
    args.push("-q");
    let o = hatetris(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let quiet = base.path().join("quiet");
    let q = quiet.to_str().unwrap();
    let mut args = vec!["tune", q, "-q", "--budget", "2", "--terms", "holes"];
    args.extend(["--threads", "1"]);
    args.extend(tiny);
    let o = hatetris(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

/// `status` on a tuning folder: the evaluations done of the budget, the
/// best fitness and its weights file, whether a tuner holds the folder,
/// and the pace with an estimate to finish; `--json` too.
#[test]
fn status_shows_a_tuning_folder() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("tuning");
    tuning_folder(&dir);
    let d = dir.to_str().unwrap();
    let best = dir.join("best.toml");
    let o = hatetris(&["status", d], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with(&format!(
            "tuning folder {d}: 2 evaluations of 2, finished\nbest "
        )),
        "{text}"
    );
    assert!(text.contains(&format!(": {}\n", best.display())), "{text}");
    assert!(text.contains(" per evaluation"), "{text}");
    let o = hatetris(&["status", d, "--json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["evaluations"], 2);
    assert_eq!(v["budget"], 2);
    assert_eq!(v["running"], false);
    assert_eq!(v["eta_s"], 0.0);
    assert_eq!(v["best"]["weights"], best.to_str().unwrap());
    let all = hatetris::tune::evaluations(&dir).unwrap();
    let top = all
        .iter()
        .map(|e| e.measured.mean)
        .fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(v["best"]["mean"].as_f64(), Some(top));
    assert!(v["seconds_per_evaluation"].as_f64().unwrap() >= 0.0);
    // A tuner holding the folder (here the test, by its lock), with a
    // larger budget: running, and an estimate to finish.
    let session = dir.join("session.json");
    let mut s: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&session).unwrap()).unwrap();
    s["budget"] = 6.into();
    fs::write(&session, s.to_string()).unwrap();
    let _lock = hatetris::folder::FolderLock::take(&dir).unwrap();
    let o = hatetris(&["status", d, "--json"], None);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["running"], true);
    assert_eq!(v["pid"], std::process::id());
    let pace = v["seconds_per_evaluation"].as_f64().unwrap();
    assert_eq!(v["eta_s"].as_f64(), Some(4.0 * pace));
    let text = stdout(&hatetris(&["status", d], None));
    assert!(
        text.starts_with(&format!(
            "tuning folder {d}: 2 evaluations of 6, running (process {})\n",
            std::process::id()
        )),
        "{text}"
    );
}

/// `search`'s depth lines give the distinct children as the estimate it
/// is ("about N distinct"), never below the wells kept (all of them
/// distinct): at a width that keeps every child, the two agree or the
/// estimate is above.
#[test]
fn the_distinct_count_is_an_estimate_never_below_kept() {
    let base = tempfile::tempdir().unwrap();
    let run = base.path().join("run");
    let mut args = vec!["search", "--width", "100000", "--max-depth", "3"];
    args.extend(["--threads", "1", "--out", run.to_str().unwrap()]);
    let o = hatetris(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("depth ")).collect();
    assert_eq!(lines.len(), 3, "{err}");
    let after = |line: &str, word: &str| -> u64 {
        let rest = &line[line.find(word).unwrap() + word.len()..];
        rest.split_whitespace().next().unwrap().parse().unwrap()
    };
    for line in lines {
        assert!(!line.contains("unique"), "{line}");
        let distinct = after(line, " about ");
        assert!(
            line.contains(&format!("about {distinct:>10} distinct")),
            "{line}"
        );
        assert!(distinct >= after(line, " kept "), "{line}");
    }
}

/// `scripts/record-attempts.py` merges a folder's attempts into the
/// summary: a row of the same net, start and width is replaced, the rows
/// of attempts summarised from other folders stay, and a missing folder is
/// one line and a non-zero exit.
#[test]
fn the_record_attempts_summary_keeps_the_rows_of_other_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let golden = tmp.path().join("golden.jsonl");
    let scores: Vec<u32> = (0..=20).collect();
    let line = serde_json::json!({"expected_score": 3711, "scores": scores});
    fs::write(&golden, format!("{line}\n")).unwrap();
    let attempt = |runs: &str, name: &str, score: u32| {
        let dir = tmp.path().join(runs).join(name);
        fs::create_dir_all(&dir).unwrap();
        let manifest = serde_json::json!({
            "best": {"score": score, "depth": 12}, "depth": 14, "exhausted": true,
        });
        fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
        fs::write(dir.join("best-replay.txt"), format!("{name}\n")).unwrap();
    };
    attempt("a", "rec-aa-10-w100", 5);
    attempt("a", "rec-aa-11-w100", 6);
    attempt("b", "rec-bb-10-w100", 7);
    attempt("c", "rec-aa-10-w100", 9);
    let out = tmp.path().join("out");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/record-attempts.py");
    let summarise = |runs: &str| {
        Command::new("python3")
            .arg(&script)
            .arg(tmp.path().join(runs))
            .arg("--golden")
            .arg(&golden)
            .arg("--out")
            .arg(&out)
            .output()
            .expect("python3 runs the scripts")
    };
    for runs in ["a", "b", "c"] {
        let o = summarise(runs);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let text = fs::read_to_string(out.join("summary.json")).unwrap();
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let seen: Vec<(String, u64, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["net"].as_str().unwrap().to_string(),
                r["start_piece"].as_u64().unwrap(),
                r["best_lines"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [("aa", 10, 9), ("aa", 11, 6), ("bb", 10, 7)];
    let want: Vec<_> = want
        .iter()
        .map(|&(n, a, b)| (n.to_string(), a, b))
        .collect();
    assert_eq!(seen, want);
    assert!(out.join("rec-bb-10-w100.txt").is_file());
    assert!(temporaries(&out).is_empty());
    one_line(&summarise("missing"), "no folder");
}
