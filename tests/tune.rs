//! `hatetris tune` and `hatetris compare` as a user runs them: a killed
//! (here: budget-cut) tuner resumes to the same weights as one never
//! stopped, the best weights file is one `search --weights` reads, and bad
//! settings are one line.

use std::path::Path;

use hatetris::heuristic::Weights;
use hatetris::tune::{self, Fitness, FitnessSettings};
use hatetris::Well;

use crate::cli::{hatetris, stderr, stdout};

const SMALL: [&str; 12] = [
    "--width",
    "60",
    "--starts",
    "2",
    "--pieces",
    "8",
    "--population",
    "3",
    "--terms",
    "s_unreachable_open_cells,left_column_height",
    "--threads",
    "2",
];

fn tune_in(dir: &Path, budget: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["tune", dir.to_str().unwrap(), "--budget", budget, "-q"];
    args.extend_from_slice(extra);
    hatetris(&args, None)
}

#[test]
fn a_tuner_cut_short_resumes_to_the_weights_of_one_never_stopped() {
    let whole = tempfile::tempdir().unwrap();
    let o = tune_in(whole.path(), "10", &SMALL);
    assert!(o.status.success(), "{}", stderr(&o));
    let cut = tempfile::tempdir().unwrap();
    let o = tune_in(cut.path(), "4", &SMALL);
    assert!(o.status.success(), "{}", stderr(&o));
    // The resume takes its settings from the folder.
    let o = tune_in(cut.path(), "10", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let best = |d: &Path| std::fs::read(tune::best_path(d)).unwrap();
    assert_eq!(best(whole.path()), best(cut.path()));
    // So are CMA-ES's mean weights, a weights file the search reads.
    let mean = |d: &Path| std::fs::read(tune::mean_path(d)).unwrap();
    assert_eq!(mean(whole.path()), mean(cut.path()));
    assert!(Weights::load(&tune::mean_path(whole.path())).is_ok());
    assert!(stdout(&o).contains("mean weights:"), "{}", stdout(&o));
    let logged = |d: &Path| tune::evaluations(d).unwrap().len();
    assert_eq!(logged(whole.path()), logged(cut.path()));
    for name in ["fitness.svg", "fitness.png", "best.json", "tune.json"] {
        assert!(whole.path().join(name).is_file(), "{name}");
    }
    // The best weights are a weights file the search reads.
    assert!(Weights::load(&tune::best_path(whole.path())).is_ok());
    assert!(stdout(&o).contains("best weights:"), "{}", stdout(&o));
    // `verify` finds the folder whole, then a best file that is not the
    // log's best.
    let o = hatetris(&["verify", whole.path().to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("10 evaluations read: ok"),
        "{}",
        stdout(&o)
    );
    let mut other = Weights::load(&tune::best_path(whole.path())).unwrap();
    other.set("holes", other.get("holes").unwrap() + 1.0);
    std::fs::write(tune::best_path(whole.path()), other.to_toml()).unwrap();
    let o = hatetris(&["verify", whole.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("does not hold the best evaluation's weights"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_resume_refuses_other_settings_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    assert!(tune_in(dir.path(), "2", &SMALL).status.success());
    let o = tune_in(dir.path(), "3", &["--width", "70"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("only --budget and --threads"));
}

#[test]
fn an_unknown_weight_name_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let o = tune_in(dir.path(), "3", &["--terms", "holes,hats", "--width", "50"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(e.contains("unknown weight `hats`"), "{e}");
}

#[test]
fn compare_gives_each_evaluator_its_fitness_and_the_paired_difference() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/data/weights/dnf-86.toml");
    let o = hatetris(
        &[
            "compare",
            "--weights",
            data,
            "--weights",
            data,
            "--width",
            "60",
            "--starts",
            "2",
            "--pieces",
            "8",
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["mean"], rows[1]["mean"]);
    assert_eq!(rows[1]["difference"], 0.0);
    let o = hatetris(&["compare", "--weights", data], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// `compare --net` measures a net beside weights, in the order given (the
/// net first is the baseline, whose game is the reference).
#[test]
fn compare_measures_a_net_beside_weights_in_the_order_given() {
    let root = env!("CARGO_MANIFEST_DIR");
    let net = format!("{root}/data/nets/best.nnue");
    let weights = format!("{root}/data/weights/dnf-86.toml");
    let tiny = ["--width", "20", "--starts", "2", "--pieces", "6", "--json"];
    let run = |first: [&str; 2], second: [&str; 2]| {
        let mut args = vec!["compare"];
        args.extend(first);
        args.extend(second);
        args.extend(tiny);
        let o = hatetris(&args, None);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        v["rows"].as_array().unwrap().clone()
    };
    let rows = run(["--net", &net], ["--weights", &weights]);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["net"], net.as_str());
    assert!(rows[0].get("weights").is_none());
    assert_eq!(rows[1]["weights"], weights.as_str());
    assert_eq!(rows[0]["difference"], 0.0);
    assert_eq!(rows[0]["lines"].as_array().unwrap().len(), 2);
    // The same net twice scores the same.
    let twice = run(["--net", &net], ["--net", &net]);
    assert_eq!(twice[0]["mean"], twice[1]["mean"]);
    // Weights first: the weights are the baseline.
    let rows = run(["--weights", &weights], ["--net", &net]);
    assert_eq!(rows[0]["weights"], weights.as_str());
    assert_eq!(rows[1]["net"], net.as_str());
    // --jitter moves weights only.
    let o = hatetris(
        &[
            "compare",
            "--net",
            &net,
            "--weights",
            &weights,
            "--jitter",
            "2",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("--jitter"), "{}", stderr(&o));
}

#[test]
fn start_wells_are_evenly_spaced_from_depth_zero() {
    let game: Vec<Well> = (0..10).map(|_| Well::EMPTY).collect();
    let settings = FitnessSettings {
        width: 10,
        quiescent: None,
        pieces: 5,
        starts: 4,
        beam: tune::FitnessBeam::Search,
        jitter: 1,
        suite: None,
    };
    let f = Fitness::new(settings, &game).unwrap();
    let depths: Vec<u32> = f.starts.depths();
    assert_eq!(depths, [0, 2, 5, 7]);
}

/// The fitness beam from the empty well is the search itself: the same
/// order and the same levels, so it dies at the search's depth with the
/// search's best score (with and without the lookahead, and with a weights
/// file that ties many costs: only the score and holes weighted).
#[test]
fn the_fitness_beam_from_the_empty_well_reaches_what_the_search_reaches() {
    use hatetris::enemy::EnemyKind;
    use hatetris::heuristic::Knewjade;
    use hatetris::search::small::{reach, Order, Shape};
    use hatetris::search::{self, Adversary, Search, Silent};

    let mut ties = Weights::default();
    for name in hatetris::heuristic::WEIGHT_NAMES {
        if name != "score" && name != "holes" {
            ties.set(name, 0.0);
        }
    }
    for (weights, quiescent, width) in [
        (Weights::default(), None, 300),
        (Weights::default(), Some(4), 120),
        (ties, None, 200),
    ] {
        let eval = Knewjade::new(weights, quiescent);
        let search = Search::new(width, &eval, Adversary::new(EnemyKind::Hatetris));
        let dir = tempfile::tempdir().unwrap();
        let result =
            search::start(dir.path(), &search, &crate::beam::opts(10_000, 1), &Silent).unwrap();
        assert!(result.exhausted, "the search died out");
        let shape = Shape {
            width,
            pieces: 10_000,
        };
        let reached = reach(
            &Well::EMPTY,
            shape,
            EnemyKind::Hatetris,
            &eval,
            Order::Search,
        );
        assert_eq!(
            (reached.pieces, reached.lines),
            (result.depth, u32::from(result.best.score)),
            "width {width}, lookahead {quiescent:?}"
        );
    }
}

/// The start point of the search is the start weights to the bit: an ulp
/// off moves a beam to another plateau (see `TuneSettings::weights_at`).
#[test]
fn the_start_point_is_the_start_weights_exactly() {
    use hatetris::tune::TuneSettings;
    let settings = TuneSettings {
        fitness: FitnessSettings {
            width: 10,
            quiescent: None,
            pieces: 5,
            starts: 1,
            beam: tune::FitnessBeam::Search,
            jitter: 1,
            suite: None,
        },
        terms: hatetris::heuristic::WEIGHT_NAMES
            .iter()
            .map(|s| s.to_string())
            .collect(),
        initial: Weights::default(),
        sigma: 0.3,
        population: None,
        seed: 1,
        net: None,
    };
    let at = settings.weights_at(&settings.x0());
    for name in hatetris::heuristic::WEIGHT_NAMES {
        assert_eq!(
            at.get(name).unwrap().to_bits(),
            Weights::default().get(name).unwrap().to_bits(),
            "{name}"
        );
    }
    // `holes` is one of the weights that the round trip through units
    // misses by an ulp.
    let holes = Weights::default().get("holes").unwrap();
    assert_ne!((holes / tune::UNIT) * tune::UNIT, holes);
}

/// `tune --net`: a net's output layer tuned through the same fitness; a
/// tuner cut short resumes to the net of one never stopped, the best net
/// is one `search --net` reads, `verify` checks it against the log, and
/// its point at the start is the start net to the bit.
#[test]
fn a_net_is_tuned_and_resumes_to_the_net_of_a_tuner_never_stopped() {
    use hatetris::nnue::{Layout, Net};
    let files = tempfile::tempdir().unwrap();
    let start = files.path().join("start.f32");
    let net = Net::new(8, Layout::Shared, -0.5, 7).unwrap();
    net.save(&start).unwrap();
    let start_arg = start.to_str().unwrap();
    let small = [
        "--net",
        start_arg,
        "--width",
        "30",
        "--starts",
        "2",
        "--pieces",
        "8",
        "--population",
        "3",
        "--terms",
        "out.0,out.3,line_weight",
        "--threads",
        "2",
    ];
    let whole = tempfile::tempdir().unwrap();
    let o = tune_in(whole.path(), "7", &small);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("best net:"), "{}", stdout(&o));
    let cut = tempfile::tempdir().unwrap();
    let o = tune_in(cut.path(), "4", &small);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = tune_in(cut.path(), "7", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let best = |d: &Path| std::fs::read(tune::net::best_paths(d).0).unwrap();
    assert_eq!(best(whole.path()), best(cut.path()));
    // CMA-ES's mean net too; it has moved from the start.
    let mean = |d: &Path| std::fs::read(tune::net::mean_paths(d).0).unwrap();
    assert_eq!(mean(whole.path()), mean(cut.path()));
    assert_ne!(mean(whole.path()), std::fs::read(&start).unwrap());
    // The start point is the start net, bit for bit.
    let terms: Vec<String> = ["out.0", "out.3", "line_weight"].map(String::from).to_vec();
    let x0 = tune::net::x0(&net, &terms);
    assert!(tune::net::at(&net, &terms, &x0) == net);
    // `verify`, then a best net that is not the log's best.
    let dir = whole.path().to_str().unwrap();
    let o = hatetris(&["verify", dir], None);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let nnue = tune::net::best_paths(whole.path()).1;
    let run = files.path().join("run");
    let o = hatetris(
        &[
            "search",
            "--net",
            nnue.to_str().unwrap(),
            "--width",
            "20",
            "--max-depth",
            "5",
            "-q",
            "--out",
            run.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    Net::new(8, Layout::Shared, -0.5, 99)
        .unwrap()
        .save(&tune::net::best_paths(whole.path()).0)
        .unwrap();
    let o = hatetris(&["verify", dir], None);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("does not hold the best evaluation's net"));
    // Bad input: a quantised net, an unknown term; nothing written.
    let fresh = tempfile::tempdir().unwrap();
    let new_dir = fresh.path().join("t");
    let o = hatetris(
        &[
            "tune",
            new_dir.to_str().unwrap(),
            "--net",
            nnue.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not a training net"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    let o = hatetris(
        &[
            "tune",
            new_dir.to_str().unwrap(),
            "--net",
            start_arg,
            "--terms",
            "out.8",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unknown net term `out.8`"),
        "{}",
        stderr(&o)
    );
    assert!(!new_dir.exists());
}

/// A small suite of two positions of the 302-line record (replay by its
/// absolute path), `judging_only` as given.
fn small_suite(dir: &Path, name: &str, judging_only: bool) -> std::path::PathBuf {
    let replay = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/strength/dnf-302.txt");
    let suite = serde_json::json!({
        "cap": 20,
        "games": [{
            "name": "dnf-302",
            "replay": replay,
            "judging_only": judging_only,
            "starts": [100, 140],
        }],
    });
    let path = dir.join(name);
    std::fs::write(&path, suite.to_string()).unwrap();
    path
}

/// `tune --suite`: the fitness is the pieces each position's beam survives,
/// exactly what `bench strength` reports for the same net, width and suite;
/// the folder keeps the suite (a resume needs nothing else and refuses
/// another one), `verify` holds the log's means to the pieces, and a
/// suite with positions for judging only, or `--starts` beside it, is
/// refused in one line before anything is written.
#[test]
fn a_net_tuned_on_a_suite_is_measured_as_the_strength_suite_measures_it() {
    use hatetris::nnue::{Layout, Net};
    let files = tempfile::tempdir().unwrap();
    let start = files.path().join("start.f32");
    let start_nnue = files.path().join("start.nnue");
    Net::new(8, Layout::Shared, -0.5, 7)
        .unwrap()
        .save_with_quantised(&start, &start_nnue)
        .unwrap();
    let suite = small_suite(files.path(), "suite.json", false);
    let dir = files.path().join("t");
    let d = dir.to_str().unwrap();
    let args = |budget: &'static str| {
        vec![
            "tune",
            d,
            "--net",
            start.to_str().unwrap(),
            "--suite",
            suite.to_str().unwrap(),
            "--width",
            "20",
            "--population",
            "2",
            "--terms",
            "out.0,out.3",
            "--threads",
            "2",
            "--budget",
            budget,
            "-q",
            "--json",
        ]
    };
    let o = hatetris(&args("3"), None);
    assert!(o.status.success(), "{}", stderr(&o));
    let tuned: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let o = hatetris(
        &[
            "bench",
            "strength",
            "--suite",
            suite.to_str().unwrap(),
            "--net",
            start_nnue.to_str().unwrap(),
            "--width",
            "20",
            "--threads",
            "2",
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let bench: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let pieces: Vec<u64> = bench["rows"][0]["per_start"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["pieces"].as_u64().unwrap())
        .collect();
    assert_eq!(tuned["start"]["pieces"], serde_json::json!(pieces));
    let mean = pieces.iter().sum::<u64>() as f64 / pieces.len() as f64;
    assert_eq!(tuned["start"]["mean"].as_f64().unwrap(), mean);
    // The folder alone goes on: the suite file may be gone.
    std::fs::remove_file(&suite).unwrap();
    let o = hatetris(&["tune", d, "--budget", "5", "-q"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = hatetris(&["verify", d], None);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let o = hatetris(&["status", d], None);
    assert!(stdout(&o).contains(" pieces (sd "), "{}", stdout(&o));
    // A resume refuses a suite, as any other setting.
    let other = small_suite(files.path(), "other.json", false);
    let o = hatetris(
        &[
            "tune",
            d,
            "--suite",
            other.to_str().unwrap(),
            "--budget",
            "6",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("only --budget and --threads"));
    // Refused before anything is written.
    let judging = small_suite(files.path(), "judging.json", true);
    let fresh = files.path().join("fresh");
    let f = fresh.to_str().unwrap();
    let net = start.to_str().unwrap();
    for (suite, extra, says) in [
        (&judging, None, "for judging only"),
        (&other, Some("--starts"), "--starts"),
    ] {
        let mut args = vec!["tune", f, "--net", net, "--suite", suite.to_str().unwrap()];
        if let Some(flag) = extra {
            args.extend([flag, "3"]);
        }
        let o = hatetris(&args, None);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
        assert!(!fresh.exists());
    }
}
