//! The run folder under swaps, corruption, crashes' leftovers and a second
//! process: each is found before any depth is searched, and a resume
//! reports the game an uninterrupted run does.

use std::fs;
use std::path::Path;

use hatetris::enemy::EnemyKind;
use hatetris::evaluate::{Evaluator, Identity};
use hatetris::folder::FolderLock;
use hatetris::run::{self, RunError};
use hatetris::search::{self, SearchError, Silent};
use hatetris::Well;

use crate::beam::{beams, flat_search, opts, resume, start, Flat};

fn manifest_text(dir: &Path) -> String {
    fs::read_to_string(run::manifest_path(dir)).unwrap()
}

fn run_error(e: SearchError) -> RunError {
    match e {
        SearchError::Run(e) => e,
        other => panic!("not a run error: {other}"),
    }
}

/// The best game is one total order over the files (score, then depth,
/// then well order), so resuming a finished run reports the same game.
#[test]
fn a_resumed_run_reports_the_uninterrupted_runs_best_game() {
    let straight = tempfile::tempdir().unwrap();
    let a = start(straight.path(), 200, 40, 2).unwrap();
    assert!(a.best.score > 0, "the test run should clear lines");
    // The result holds the folder until it is dropped.
    let err = resume(straight.path(), 200, 40, 1).unwrap_err();
    assert!(err.to_string().contains("is in use by process"), "{err}");
    let best = a.best;
    drop(a);
    let a = best;
    let again = resume(straight.path(), 200, 40, 1).unwrap();
    assert_eq!(again.best, a);
    let pieces = tempfile::tempdir().unwrap();
    start(pieces.path(), 200, 7, 1).unwrap();
    resume(pieces.path(), 200, 19, 2).unwrap();
    let b = resume(pieces.path(), 200, 40, 1).unwrap();
    assert_eq!(b.best, a);
    let (x, y) = (
        run::read_manifest(straight.path()).unwrap(),
        run::read_manifest(pieces.path()).unwrap(),
    );
    assert_eq!(x.best, y.best);
    for (x, y) in x.depths.iter().zip(&y.depths) {
        assert_eq!(
            (x.kept, x.best_score, &x.histogram, x.best_cost.to_bits()),
            (y.kept, y.best_score, &y.histogram, y.best_cost.to_bits())
        );
    }
}

/// A weight that serde_json misreads by one unit in the last place
/// without `float_roundtrip` still resumes, and costs survive exactly.
#[test]
fn a_float_weight_survives_the_manifest() {
    struct Odd;
    impl Evaluator for Odd {
        fn identity(&self) -> Identity {
            Identity::new().with("holes", 1915.3751999999997f64)
        }
        fn cost(&self, well: &Well, score: f64) -> f64 {
            Flat.cost(well, score) * 1.000_000_1 + 0.1
        }
    }
    let search = search::Search {
        evaluator: &Odd,
        ..flat_search(30, EnemyKind::Hatetris)
    };
    let dir = tempfile::tempdir().unwrap();
    search::start(dir.path(), &search, &opts(6, 1), &Silent).unwrap();
    let before = run::read_manifest(dir.path()).unwrap();
    search::resume(dir.path(), &search, &opts(6, 1), &Silent).unwrap();
    let after = run::read_manifest(dir.path()).unwrap();
    for (x, y) in before.depths.iter().zip(&after.depths) {
        assert_eq!(x.best_cost.to_bits(), y.best_cost.to_bits());
    }
}

/// Another depth's file, or another run's, in a run's place is refused
/// before any depth is searched, naming the file.
#[test]
fn a_swapped_or_foreign_depth_file_is_refused_before_searching() {
    let dir = tempfile::tempdir().unwrap();
    start(dir.path(), 40, 20, 1).unwrap();
    let manifest = manifest_text(dir.path());
    let d10 = run::depth_path(dir.path(), 10);
    let d12 = run::depth_path(dir.path(), 12);
    let good = fs::read(&d12).unwrap();
    fs::copy(&d10, &d12).unwrap();
    let err = run_error(resume(dir.path(), 40, 25, 1).unwrap_err());
    assert!(matches!(err, RunError::BrokenChain { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("depth-00012.beam holds depth 10, not 12"),
        "{err}"
    );
    assert_eq!(manifest_text(dir.path()), manifest, "nothing was searched");
    assert!(!run::depth_path(dir.path(), 21).exists());

    // Another run's file of the same depth and width.
    struct Other;
    impl Evaluator for Other {
        fn identity(&self) -> Identity {
            Identity::new().with("test", "other")
        }
        fn cost(&self, well: &Well, score: f64) -> f64 {
            Flat.cost(well, score)
        }
    }
    let other = tempfile::tempdir().unwrap();
    let s = search::Search {
        evaluator: &Other,
        ..flat_search(40, EnemyKind::Hatetris)
    };
    search::start(other.path(), &s, &opts(20, 1), &Silent).unwrap();
    fs::copy(run::depth_path(other.path(), 12), &d12).unwrap();
    let err = run_error(resume(dir.path(), 40, 25, 1).unwrap_err());
    assert!(
        err.to_string()
            .contains("depth-00012.beam belongs to another run"),
        "{err}"
    );
    // The same run's file, but not the one the next depth followed:
    // depth 0 of a run of another width is depth 0 of no use here, so
    // put back the right depth 12 and swap the newest with a copy made
    // before the run went on.
    fs::write(&d12, &good).unwrap();
    resume(dir.path(), 40, 25, 1).unwrap();
}

/// A damaged file in the middle of a run is found on resume, not when the
/// final rebuild reaches it, and `verify` names it.
#[test]
fn a_corrupt_middle_depth_is_refused_and_verify_names_it() {
    let dir = tempfile::tempdir().unwrap();
    start(dir.path(), 40, 20, 1).unwrap();
    assert!(search::verify(dir.path()).unwrap().is_ok());
    let d8 = run::depth_path(dir.path(), 8);
    let mut bytes = fs::read(&d8).unwrap();
    bytes[40] ^= 0x10;
    fs::write(&d8, &bytes).unwrap();
    let err = run_error(resume(dir.path(), 40, 25, 1).unwrap_err());
    assert!(err.to_string().contains("depth-00008.beam"), "{err}");
    let report = search::verify(dir.path()).unwrap();
    assert!(!report.is_ok());
    assert!(
        report.problems.iter().any(|p| p.starts_with("depth 8:")),
        "{:?}",
        report.problems
    );
}

/// A damaged newest depth falls back, and the run goes on to the same
/// files as a run never damaged.
#[test]
fn a_foreign_newest_depth_falls_back_to_the_same_run() {
    let clean = tempfile::tempdir().unwrap();
    start(clean.path(), 40, 16, 1).unwrap();
    let dir = tempfile::tempdir().unwrap();
    start(dir.path(), 40, 14, 1).unwrap();
    fs::copy(
        run::depth_path(dir.path(), 13),
        run::depth_path(dir.path(), 14),
    )
    .unwrap();
    resume(dir.path(), 40, 16, 2).unwrap();
    assert_eq!(beams(clean.path()), beams(dir.path()));
}

/// A second process on a run folder stops at once, naming the first; the
/// lock goes with its holder.
#[test]
fn a_second_process_on_a_run_folder_stops_at_once() {
    let dir = tempfile::tempdir().unwrap();
    start(dir.path(), 30, 5, 1).unwrap();
    let held = FolderLock::take(dir.path()).unwrap();
    let err = run_error(resume(dir.path(), 30, 8, 1).unwrap_err());
    let pid = std::process::id();
    assert!(
        err.to_string()
            .contains(&format!("is in use by process {pid}")),
        "{err}"
    );
    let fresh = dir.path().join("fresh");
    let _fresh_lock = FolderLock::take(&fresh).unwrap();
    assert!(start(&fresh, 30, 5, 1).is_err());
    drop(held);
    resume(dir.path(), 30, 8, 1).unwrap();
}

/// What a kill leaves (temporary files, a log line or half a line after
/// the manifest's last depth, a folder with a manifest and no root) is
/// cleaned or rebuilt by the next resume.
#[test]
fn a_resume_cleans_temporaries_and_the_log_tail_and_rebuilds_the_root() {
    let clean = tempfile::tempdir().unwrap();
    start(clean.path(), 30, 10, 1).unwrap();
    let dir = tempfile::tempdir().unwrap();
    start(dir.path(), 30, 8, 1).unwrap();
    let tmp = dir.path().join("depth-00009.beam.tmp-4242");
    fs::write(&tmp, b"half").unwrap();
    let log = run::log_path(dir.path());
    let text = fs::read_to_string(&log).unwrap();
    let last = text
        .lines()
        .last()
        .unwrap()
        .replace("\"depth\":8", "\"depth\":9");
    fs::write(&log, format!("{text}{last}\n{}", &last[..20])).unwrap();
    let report = search::verify(dir.path()).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.starts_with("log.jsonl holds")),
        "{:?}",
        report.notes
    );
    fs::remove_file(run::depth_path(dir.path(), 0)).unwrap();
    resume(dir.path(), 30, 10, 1).unwrap();
    assert!(!tmp.exists());
    let after = fs::read_to_string(&log).unwrap();
    assert!(after.starts_with(&text), "the 8 lines kept");
    assert_eq!(after.lines().count(), 10);
    assert_eq!(beams(clean.path()), beams(dir.path()));
    let report = search::verify(dir.path()).unwrap();
    assert!(report.is_ok() && report.notes.is_empty(), "{report:?}");
}

/// The per-depth figures live in the log alone, so a log that is not what
/// the manifest recorded (a line lost, a byte changed, cut short) stops a
/// resume with one line naming it before anything is searched or written,
/// and `verify` reports it.
#[test]
fn a_damaged_log_is_refused_and_verify_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    start(dir.path(), 30, 8, 1).unwrap();
    let log = run::log_path(dir.path());
    let text = fs::read_to_string(&log).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(3);
    let dropped = lines.join("\n") + "\n";
    let changed = text.replacen("\"kept\":30", "\"kept\":31", 1);
    let manifest = manifest_text(dir.path());
    for (what, damaged) in [
        ("a line lost", dropped.as_str()),
        ("a figure changed", changed.as_str()),
        ("cut short", &text[..text.len() - 5]),
    ] {
        fs::write(&log, damaged).unwrap();
        let err = run_error(resume(dir.path(), 30, 10, 1).unwrap_err());
        assert!(matches!(err, RunError::BadLog { .. }), "{what}: {err}");
        let message = err.to_string();
        assert!(
            message.contains("log.jsonl: ") && !message.contains('\n'),
            "{what}: {message}"
        );
        assert_eq!(manifest_text(dir.path()), manifest, "{what}");
        assert!(!run::depth_path(dir.path(), 9).exists(), "{what}");
        let report = search::verify(dir.path()).unwrap();
        assert!(
            report.problems.iter().any(|p| p.starts_with("log.jsonl: ")),
            "{what}: {:?}",
            report.problems
        );
        assert!(run::read_manifest(dir.path()).is_err(), "{what}");
    }
    fs::write(&log, &text).unwrap();
    resume(dir.path(), 30, 10, 1).unwrap();
    assert!(search::verify(dir.path()).unwrap().is_ok());
}

/// The manifest stays the same size however deep the run goes: the
/// per-depth figures are in the log, one line each.
#[test]
fn the_manifest_does_not_grow_with_the_depth() {
    let dir = tempfile::tempdir().unwrap();
    start(dir.path(), 20, 3, 1).unwrap();
    let early = manifest_text(dir.path()).len();
    resume(dir.path(), 20, 30, 1).unwrap();
    let late = manifest_text(dir.path()).len();
    assert!(late < early + 64, "{early} then {late} bytes");
    let m = run::read_manifest(dir.path()).unwrap();
    assert_eq!((m.depth, m.depths.len()), (30, 30));
    let log = fs::read_to_string(run::log_path(dir.path())).unwrap();
    assert_eq!(log.lines().count(), 30);
    assert_eq!(m.log.bytes, log.len() as u64);
}

/// A run folder of the previous format (version 2: every depth's figures
/// in the manifest) still resumes, to the files of a run never stopped,
/// and leaves a current one.
#[test]
fn a_version_2_run_folder_resumes_and_is_upgraded() {
    let clean = tempfile::tempdir().unwrap();
    start(clean.path(), 30, 12, 1).unwrap();
    let dir = tempfile::tempdir().unwrap();
    start(dir.path(), 30, 8, 1).unwrap();
    // The manifest as version 2 wrote it, and its log a line short (a
    // version 2 resume rebuilt the log from the manifest).
    let mut old: serde_json::Value = serde_json::from_str(&manifest_text(dir.path())).unwrap();
    let log = run::log_path(dir.path());
    let text = fs::read_to_string(&log).unwrap();
    let depths: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let o = old.as_object_mut().unwrap();
    o.remove("depth");
    o.remove("log");
    o.insert("version".into(), 2.into());
    o.insert("depths".into(), depths.into());
    fs::write(run::manifest_path(dir.path()), old.to_string()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    fs::write(&log, lines[..7].join("\n") + "\n").unwrap();
    let m = run::read_manifest(dir.path()).unwrap();
    assert_eq!((m.version, m.depth, m.depths.len()), (2, 8, 8));
    assert!(search::verify(dir.path()).unwrap().is_ok());
    resume(dir.path(), 30, 12, 2).unwrap();
    let m = run::read_manifest(dir.path()).unwrap();
    assert_eq!((m.version, m.depth), (run::MANIFEST_VERSION, 12));
    assert!(fs::read_to_string(&log).unwrap().starts_with(&text));
    assert_eq!(beams(clean.path()), beams(dir.path()));
    let report = search::verify(dir.path()).unwrap();
    assert!(report.is_ok() && report.notes.is_empty(), "{report:?}");
}

/// A manifest of an unknown version is refused with one line.
#[test]
fn a_manifest_of_an_unknown_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    start(dir.path(), 20, 2, 1).unwrap();
    let text = manifest_text(dir.path()).replace("\"version\": 3", "\"version\": 9");
    fs::write(run::manifest_path(dir.path()), text).unwrap();
    let err = resume(dir.path(), 20, 3, 1).unwrap_err().to_string();
    assert!(
        err.ends_with(
            "manifest.json: format hatetris-beam version 9, expected hatetris-beam version 3 (or 2, which a resume upgrades)"
        ),
        "{err}"
    );
}

/// `--out` never starts a run in a folder holding anything else.
#[test]
fn a_new_run_refuses_a_folder_that_is_not_empty() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), b"mine").unwrap();
    let err = run_error(start(dir.path(), 30, 3, 1).unwrap_err());
    assert!(matches!(err, RunError::NotEmpty(_)), "{err}");
    assert_eq!(fs::read(dir.path().join("notes.txt")).unwrap(), b"mine");
}

/// Through the command line with the knewjade heuristic, where several
/// wells share the top score at the depth it is first reached (at this
/// width and depth, the run's lowest-cost one is not the first in well
/// order): a resume of the finished run prints the same game.
#[test]
fn a_resumed_finished_run_prints_the_same_game() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let out = out.to_str().unwrap();
    let args = |how: &'static str| {
        [
            "search",
            "--quiet",
            "--json",
            "--width",
            "2000",
            "--max-depth",
            "60",
            "--threads",
            "2",
            how,
            out,
        ]
    };
    let first = crate::cli::hatetris(&args("--out"), None);
    assert!(first.status.success(), "{}", crate::cli::stderr(&first));
    let again = crate::cli::hatetris(&args("--resume"), None);
    assert!(again.status.success(), "{}", crate::cli::stderr(&again));
    let last = |o: &std::process::Output| crate::cli::stdout(o).lines().last().map(String::from);
    assert_eq!(last(&first), last(&again));
}
