//! Living with a long run: `--resume DIR` with nothing but the folder,
//! flags that disagree with the run, Ctrl-C and SIGTERM, and `status`.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::cli::{hatetris, stderr, stdout};
use crate::util::depth_files;

/// The last line of standard output.
fn last_line(o: &std::process::Output) -> String {
    stdout(o).lines().last().unwrap_or_default().to_string()
}

/// `search` with these arguments; panics with its standard error if it fails.
fn search_ok(args: &[&str]) -> std::process::Output {
    let mut all = vec!["search", "--quiet", "--json"];
    all.extend_from_slice(args);
    let o = hatetris(&all, None);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    o
}

/// A net run resumes from its folder alone (the folder keeps the net):
/// only `--max-depth` given, it reaches the files of a run never stopped,
/// and the plan's new depth is what the next resume without flags uses.
#[test]
fn a_net_run_resumes_from_the_folder_alone_to_the_same_files() {
    let base = tempfile::tempdir().unwrap();
    let (straight, resumed) = (base.path().join("straight"), base.path().join("resumed"));
    let settings = [
        "--net",
        "data/nets/best.nnue",
        "--quiescent",
        "--width",
        "100",
        "--threads",
        "1",
    ];
    let mut args = settings.to_vec();
    args.extend(["--max-depth", "8", "--out", straight.to_str().unwrap()]);
    let want = search_ok(&args);
    let mut args = settings.to_vec();
    args.extend(["--max-depth", "4", "--out", resumed.to_str().unwrap()]);
    search_ok(&args);
    assert_eq!(
        fs::read(resumed.join("net.nnue")).unwrap(),
        fs::read("data/nets/best.nnue").unwrap(),
        "the run folder keeps the net"
    );
    let r = resumed.to_str().unwrap();
    let got = search_ok(&["--resume", r, "--max-depth", "8"]);
    assert_eq!(depth_files(&resumed), depth_files(&straight));
    let strip = |o: &std::process::Output| {
        let mut v: serde_json::Value = serde_json::from_str(&last_line(o)).unwrap();
        v.as_object_mut().unwrap().remove("out");
        v
    };
    assert_eq!(strip(&got), strip(&want));
    // Nothing but the folder: the run is at its (new) max depth already.
    let again = search_ok(&["--resume", r]);
    assert_eq!(strip(&again), strip(&want));
    assert_eq!(depth_files(&resumed), depth_files(&straight));
}

/// A flag given with `--resume` that disagrees with the run stops the
/// command before any work, with one line naming the setting and both
/// values; flags that agree are accepted.
#[test]
fn a_flag_that_disagrees_with_the_run_is_named_in_one_line() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("run");
    let d = dir.to_str().unwrap();
    search_ok(&[
        "--width",
        "50",
        "--max-depth",
        "3",
        "--threads",
        "1",
        "--quiescent",
        "4",
        "--out",
        d,
    ]);
    let before = depth_files(&dir);
    let weights = base.path().join("zero-holes.toml");
    let dnf86 = fs::read_to_string("data/weights/dnf-86.toml").unwrap();
    fs::write(&weights, dnf86.replace("holes = 11.2106", "holes = 0")).unwrap();
    let w = weights.to_str().unwrap();
    let weights_line = format!(
        "--weights {w} disagrees with the run's weights: holes is 0 in the file, 11.2106 in the run"
    );
    let cases: [(&[&str], &str); 6] = [
        (&["--width", "500"], "--width 500 disagrees with the run's width 50"),
        (&["--enemy", "mild"], "--enemy mild disagrees with the run's enemy hatetris"),
        (&["--quiescent"], "--quiescent 32 disagrees with the run's lookahead (depth 4)"),
        (
            &["--net", "data/nets/best.nnue"],
            "--net data/nets/best.nnue disagrees with the run's evaluator: the run ranks with the heuristic",
        ),
        (&["--weights", w], &weights_line),
        (&["--enemy", "nobody"], "invalid value 'nobody' for '--enemy <ENEMY>'"),
    ];
    for (flags, want) in cases {
        let mut args = vec!["search", "--quiet", "--resume", d];
        args.extend_from_slice(flags);
        let o = hatetris(&args, None);
        let err = stderr(&o);
        assert!(!o.status.success(), "{flags:?}");
        assert!(err.contains(want), "{flags:?}: {err}");
        if !want.starts_with("invalid value") {
            assert_eq!(o.status.code(), Some(1), "{flags:?}");
            assert_eq!(err.lines().count(), 1, "{flags:?}: {err}");
        } else {
            assert_eq!(o.status.code(), Some(2), "{flags:?}");
        }
    }
    // Agreeing flags are fine.
    search_ok(&[
        "--resume",
        d,
        "--width",
        "50",
        "--quiescent",
        "4",
        "--enemy",
        "hatetris",
    ]);
    assert_eq!(depth_files(&dir), before);
}

/// The number of complete lines in the run's log.
fn logged_depths(dir: &Path) -> usize {
    fs::read_to_string(dir.join("log.jsonl"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// SIGTERM (what `kill`, systemd and a reboot send; Ctrl-C's SIGINT takes
/// the same path) stops a search cleanly: exit code 130, the best game so
/// far in best-replay.txt (which scores what the run reports), the last line
/// of standard error saying how to go on, and `--resume DIR` alone
/// reaches the files and the game of a run never stopped.
#[test]
fn sigterm_writes_the_best_replay_and_the_run_resumes_to_the_same_result() {
    let base = tempfile::tempdir().unwrap();
    let (straight, stopped) = (base.path().join("straight"), base.path().join("stopped"));
    let settings = ["--width", "3000", "--max-depth", "40", "--threads", "2"];
    let mut args = settings.to_vec();
    args.extend(["--out", straight.to_str().unwrap()]);
    let want = search_ok(&args);

    let child = Command::new(env!("CARGO_BIN_EXE_hatetris"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["search", "--quiet", "--json"])
        .args(settings)
        .arg("--out")
        .arg(&stopped)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    while logged_depths(&stopped) < 5 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    let resume_line = format!("to go on: hatetris search --resume {}", stopped.display());
    assert!(
        err.lines()
            .last()
            .unwrap_or_default()
            .ends_with(&resume_line),
        "{err}"
    );
    let done = logged_depths(&stopped);
    assert!((5..40).contains(&done), "stopped after {done} depths");
    // The best replay is written, and scores what the run reported.
    let replay = fs::read_to_string(stopped.join("best-replay.txt")).unwrap();
    let reported: serde_json::Value = serde_json::from_str(&last_line(&o)).unwrap();
    assert_eq!(reported["replay"].as_str().unwrap(), replay.trim());
    let score = hatetris(&["replay", "score", replay.trim()], None);
    assert_eq!(last_line(&score), reported["score"].to_string());
    // Nothing half-written is left.
    assert!(fs::read_dir(&stopped).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .contains(".tmp")));

    let again = search_ok(&["--resume", stopped.to_str().unwrap()]);
    assert_eq!(depth_files(&stopped), depth_files(&straight));
    let strip = |o: &std::process::Output| {
        let mut v: serde_json::Value = serde_json::from_str(&last_line(o)).unwrap();
        v.as_object_mut().unwrap().remove("out");
        v
    };
    assert_eq!(strip(&again), strip(&want));
}

/// `status` on a run a process holds names the depth in progress (the last
/// complete depth + 1), in text and JSON; once the process is gone it
/// names none.
#[test]
fn status_names_the_depth_in_progress_while_a_process_holds_the_run() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("run");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hatetris"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["search", "--quiet", "--width", "2000", "--quiescent"])
        .args(["--max-depth", "400", "--threads", "1", "--out"])
        .arg(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    while logged_depths(&dir) < 3 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    let o = hatetris(&["status", dir.to_str().unwrap(), "--json"], None);
    let text = hatetris(&["status", dir.to_str().unwrap()], None);
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    child.wait().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let s: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(s["running"], true, "{s}");
    let depth = s["depth"].as_u64().unwrap();
    assert_eq!(s["in_progress"].as_u64(), Some(depth + 1), "{s}");
    assert!(s["in_progress_s"].as_f64().unwrap() >= 0.0, "{s}");
    // The estimate to finish: the pace over the newest depths times the
    // depths left to --max-depth.
    let pace = s["seconds_per_depth"].as_f64().unwrap();
    assert_eq!(
        s["eta_s"].as_f64(),
        Some((400 - depth) as f64 * pace),
        "{s}"
    );
    // The best well's cells: 4 a piece less 10 a line, at the last
    // complete depth, as its log line has the best score.
    let log = std::fs::read_to_string(dir.join("log.jsonl")).unwrap();
    let best = log
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|l| l["depth"].as_u64() == Some(depth))
        .unwrap()["best_score"]
        .as_i64()
        .unwrap();
    assert_eq!(
        s["cells"]["now"].as_i64(),
        Some(4 * depth as i64 - 10 * best),
        "{s}"
    );
    let text = stdout(&text);
    assert!(text.contains("\nbest well: "), "{text}");
    let line = text.lines().nth(1).unwrap();
    assert!(line.starts_with("depth "), "{text}");
    assert!(line.contains(" in progress for "), "{text}");
    assert!(text.contains(" to depth 400\n"), "{text}");

    let after = hatetris(&["status", dir.to_str().unwrap(), "--json"], None);
    let s: serde_json::Value = serde_json::from_str(stdout(&after).trim()).unwrap();
    assert_eq!(s["running"], false, "{s}");
    assert!(s["in_progress"].is_null(), "{s}");
}

/// The crontab line `scripts/long-run.sh` prints works under cron: run as
/// cron runs it (`/bin/sh`, from another folder, with nothing but
/// `PATH=/usr/bin:/bin`, where there is no cargo), it starts the run, and
/// run again (after a reboot) it goes on from the folder.
#[test]
fn the_long_run_scripts_crontab_line_works_from_a_bare_environment() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("run");
    let o = Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/long-run.sh"))
        .arg("--print-cron")
        .arg(&dir)
        .args(["--width", "20", "--max-depth", "3", "--threads", "1"])
        .env("HATETRIS_BIN", env!("CARGO_BIN_EXE_hatetris"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let line = stdout(&o);
    let command = line
        .trim_end()
        .strip_prefix("@reboot ")
        .unwrap_or_else(|| panic!("not a crontab line: {line}"));
    assert!(!dir.exists(), "--print-cron started nothing");
    let cron = || {
        Command::new("env")
            .args(["-i", "PATH=/usr/bin:/bin", "/bin/sh", "-c", command])
            .current_dir(base.path())
            .status()
            .unwrap()
    };
    let log = || fs::read_to_string(base.path().join("run.cron.log")).unwrap_or_default();
    assert!(cron().success(), "{}", log());
    // The search runs in the background: wait for its end.
    let until = Instant::now() + Duration::from_secs(60);
    while !dir.join("best-replay.txt").exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(dir.join("best-replay.txt").exists(), "{}", log());
    // After a reboot: the same line resumes the run from its folder.
    assert!(cron().success(), "{}", log());
    assert!(
        log().contains(&format!("the run in {} is already complete", dir.display())),
        "{}",
        log()
    );
    let out = fs::read_to_string(base.path().join("run.out")).unwrap();
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["depth"], 3, "{out}");
}
