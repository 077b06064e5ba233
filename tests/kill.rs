//! Crash safety: kill -9 the search at random moments, resume, and compare
//! with an uninterrupted run. Slow (it runs the release-like binary many
//! times), so it is `--ignored`:
//!
//! `cargo test --release --test tests kill -- --ignored --nocapture`
//!
//! (`HATETRIS_KILL_CONFIGS=TEXT` keeps only the configurations whose name
//! holds TEXT.)
//!
//! Six configurations ({no lookahead, `--quiescent`, the shipped net with
//! `--quiescent`} × {`--threads 1`, `--threads 2`}), `HATETRIS_KILL_TRIALS`
//! trials each (default 13, so 78 in all). A trial starts a run, kills it with SIGKILL after a pseudo-random
//! delay (sometimes within the first milliseconds, before the manifest
//! exists), resumes it, kills the resume, and so on until a run reaches the
//! end. Then every depth file must equal the clean run's byte for byte, the
//! final `--json` line must give the clean run's score, depth and replay,
//! `hatetris verify` must pass with nothing to note, and no temporary file
//! may be left.

use std::fs::{self, File};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::cli::{hatetris, stderr, stdout};
use crate::util::depth_files;

/// One way of running the search.
struct Config {
    name: &'static str,
    width: &'static str,
    depth: &'static str,
    threads: &'static str,
    quiescent: bool,
    /// Rank with the shipped net instead of the heuristic.
    net: bool,
    /// Start from this replay (a file of `tests/data/`) after this many
    /// pieces (`search --from`), instead of the empty well.
    from: Option<(&'static str, &'static str)>,
}

/// The net the net configurations search with.
const NET: &str = "data/nets/best.nnue";

const CONFIGS: [Config; 8] = [
    Config {
        name: "plain, 1 thread",
        width: "2000",
        depth: "60",
        threads: "1",
        quiescent: false,
        net: false,
        from: None,
    },
    Config {
        name: "plain, 2 threads",
        width: "2000",
        depth: "60",
        threads: "2",
        quiescent: false,
        net: false,
        from: None,
    },
    Config {
        name: "--quiescent, 1 thread",
        width: "500",
        depth: "60",
        threads: "1",
        quiescent: true,
        net: false,
        from: None,
    },
    Config {
        name: "--quiescent, 2 threads",
        width: "500",
        depth: "60",
        threads: "2",
        quiescent: true,
        net: false,
        from: None,
    },
    Config {
        name: "--net --quiescent, 1 thread",
        width: "500",
        depth: "60",
        threads: "1",
        quiescent: true,
        net: true,
        from: None,
    },
    Config {
        name: "--net --quiescent, 2 threads",
        width: "500",
        depth: "60",
        threads: "2",
        quiescent: true,
        net: true,
        from: None,
    },
    Config {
        name: "--from the 366-line game at piece 500, 1 thread",
        width: "500",
        depth: "560",
        threads: "1",
        quiescent: false,
        net: false,
        from: Some(("tests/data/from-366.txt", "500")),
    },
    Config {
        name: "--from the 366-line game at piece 500, 2 threads",
        width: "500",
        depth: "560",
        threads: "2",
        quiescent: false,
        net: false,
        from: Some(("tests/data/from-366.txt", "500")),
    },
];

/// `hatetris search --json` into (`--out`) or on (`--resume`) `dir`, its
/// standard output and error to files beside the run folder (never in it:
/// `--out` refuses a folder holding anything).
fn search(dir: &Path, resume: bool, cfg: &Config, out: &Path, err: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hatetris"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.args([
        "search",
        "--quiet",
        "--json",
        "--threads",
        cfg.threads,
        "--width",
        cfg.width,
        "--max-depth",
        cfg.depth,
    ]);
    if cfg.net {
        c.args(["--net", NET]);
    }
    if cfg.quiescent {
        c.arg("--quiescent");
    }
    if let (Some((replay, at)), false) = (cfg.from, resume) {
        c.args(["--from", &format!("@{replay}"), "--at", at]);
    }
    c.arg(if resume { "--resume" } else { "--out" }).arg(dir);
    c.stdin(Stdio::null())
        .stdout(File::create(out).unwrap())
        .stderr(File::create(err).unwrap());
    c
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The last line of a `--json` run's standard output, without its "out".
fn final_json(out: &Path) -> serde_json::Value {
    let text = fs::read_to_string(out).unwrap();
    let line = text.lines().last().expect("the run printed nothing");
    let mut v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
    v.as_object_mut().unwrap().remove("out");
    v
}

/// Waits for `child` for at most `delay`: its status if it ended.
fn wait_at_most(child: &mut Child, delay: Duration) -> Option<ExitStatus> {
    let until = Instant::now() + delay;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        let now = Instant::now();
        if now >= until {
            return None;
        }
        std::thread::sleep((until - now).min(Duration::from_millis(2)));
    }
}

/// A xorshift step.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

#[test]
#[ignore]
fn kill_9_at_random_moments_then_resume_gives_the_same_result() {
    let trials: usize = std::env::var("HATETRIS_KILL_TRIALS")
        .ok()
        .map(|t| t.parse().expect("HATETRIS_KILL_TRIALS: a number"))
        .unwrap_or(13);
    let base = tempfile::tempdir().unwrap();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut summary = Vec::new();
    // `HATETRIS_KILL_CONFIGS=net` runs only the configurations whose name
    // holds that text.
    let only = std::env::var("HATETRIS_KILL_CONFIGS").unwrap_or_default();
    for (c, cfg) in CONFIGS.iter().enumerate() {
        if !cfg.name.contains(only.as_str()) {
            continue;
        }
        let (out, err) = (base.path().join("out.txt"), base.path().join("err.txt"));
        let clean = base.path().join(format!("clean{c}"));
        let t0 = Instant::now();
        let status = search(&clean, false, cfg, &out, &err).status().unwrap();
        assert!(status.success(), "{}: clean run failed", cfg.name);
        let full = t0.elapsed();
        let want = depth_files(&clean);
        let want_json = final_json(&out);
        println!(
            "{}: clean run {:.1}s, {} depth files, {want_json}",
            cfg.name,
            full.as_secs_f64(),
            want.len()
        );
        let (mut kills, mut early, mut passed, mut redone) = (0, 0, 0, 0);
        for trial in 0..trials {
            let label = format!("{} trial {trial}", cfg.name);
            let dir = base.path().join(format!("c{c}-trial{trial}"));
            // A trial is a run killed at least once: one that ends before
            // its first kill is done again (and counted apart).
            let mut again = 0;
            let killed = loop {
                let (mut killed, mut resume) = (0, false);
                loop {
                    // One kill in four in the first 30 ms (the start, before
                    // or just after the manifest; the checks of a resume),
                    // the others in the first 80% of a clean run's time.
                    let r = next(&mut seed);
                    let delay = match r % 4 {
                        0 => Duration::from_millis((r >> 8) % 30),
                        _ => Duration::from_millis(
                            30 + (r >> 8) % (full.as_millis() as u64 * 4 / 5).max(100),
                        ),
                    };
                    let mut child = search(&dir, resume, cfg, &out, &err).spawn().unwrap();
                    match wait_at_most(&mut child, delay) {
                        Some(status) => {
                            assert!(
                                status.success(),
                                "{label}: {} failed after {killed} kills: {}",
                                if resume { "--resume" } else { "--out" },
                                fs::read_to_string(&err).unwrap()
                            );
                            break;
                        }
                        None => {
                            child.kill().unwrap(); // SIGKILL
                            child.wait().unwrap();
                            killed += 1;
                        }
                    }
                    // The manifest is written before anything else of a run,
                    // so a folder without one holds at most the lock and
                    // temporaries, and `--out` takes it again.
                    resume = dir.join("manifest.json").exists();
                    if !resume {
                        early += 1;
                        if dir.exists() {
                            let left = names(&dir);
                            assert!(
                                left.iter().all(|n| n == "lock" || n.contains(".tmp-")),
                                "{label}: no manifest, but {left:?}"
                            );
                        }
                    }
                    assert!(killed <= 40, "{label}: never finished");
                }
                if killed > 0 || again == 5 {
                    break killed;
                }
                again += 1;
                fs::remove_dir_all(&dir).unwrap();
            };
            redone += again;
            let got = depth_files(&dir);
            assert_eq!(
                got.iter().map(|f| &f.0).collect::<Vec<_>>(),
                want.iter().map(|f| &f.0).collect::<Vec<_>>(),
                "{label}: depth files"
            );
            for ((a, x), (_, y)) in got.iter().zip(&want) {
                assert!(x == y, "{label}: {a} differs after {killed} kills");
            }
            let got_json = final_json(&out);
            assert_eq!(got_json, want_json, "{label}: the final JSON line");
            let o = hatetris(&["verify", dir.to_str().unwrap()], None);
            assert!(
                o.status.success() && !stdout(&o).contains("note:"),
                "{label}: verify: {}{}",
                stdout(&o),
                stderr(&o)
            );
            let left: Vec<String> = names(&dir)
                .into_iter()
                .filter(|n| n.contains(".tmp-"))
                .collect();
            assert!(left.is_empty(), "{label}: temporaries left: {left:?}");
            println!("{label}: killed {killed} times, identical");
            kills += killed;
            passed += 1;
            fs::remove_dir_all(&dir).unwrap();
        }
        summary.push(format!(
            "{}: {passed} of {trials} trials identical, {kills} kills ({early} before the manifest; {redone} runs ended before their first kill and were done again)",
            cfg.name
        ));
    }
    for line in &summary {
        println!("{line}");
    }
}

/// `hatetris train` on `dir` with tiny settings, output to files beside it.
fn train(dir: &Path, out: &Path, err: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hatetris"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.args([
        "train",
        "--quiet",
        "--generations",
        "2",
        "--threads",
        "2",
        "--hidden",
        "16",
        "--width",
        "300",
        "--samples",
        "1500",
        "--heuristic-samples",
        "3000",
        "--beam-width",
        "10",
        "--epochs",
        "12",
    ])
    .arg(dir);
    c.stdin(Stdio::null())
        .stdout(File::create(out).unwrap())
        .stderr(File::create(err).unwrap());
    c
}

/// Every file the trainer makes for its generations (the master beams'
/// depth files included), by relative name; not the timings.
fn trained_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for g in 0..3 {
        let gen = dir.join(format!("gen-{g:03}"));
        for name in ["samples.bin", "targets.bin", "net.f32", "net.nnue"] {
            if let Ok(bytes) = fs::read(gen.join(name)) {
                out.push((format!("gen-{g:03}/{name}"), bytes));
            }
        }
        if gen.join("master").is_dir() {
            for (name, bytes) in depth_files(&gen.join("master")) {
                out.push((format!("gen-{g:03}/master/{name}"), bytes));
            }
        }
    }
    out
}

#[test]
#[ignore]
fn kill_9_the_trainer_at_random_moments_then_resume_gives_the_same_nets() {
    let trials: usize = std::env::var("HATETRIS_KILL_TRIALS")
        .ok()
        .map(|t| t.parse().expect("HATETRIS_KILL_TRIALS: a number"))
        .unwrap_or(13);
    let base = tempfile::tempdir().unwrap();
    let (out, err) = (base.path().join("out.txt"), base.path().join("err.txt"));
    let clean = base.path().join("clean");
    let t0 = Instant::now();
    assert!(train(&clean, &out, &err).status().unwrap().success());
    let full = t0.elapsed();
    let want = trained_files(&clean);
    println!(
        "clean training run: {:.1}s, {} files",
        full.as_secs_f64(),
        want.len()
    );
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut kills = 0;
    for trial in 0..trials {
        let dir = base.path().join(format!("trial{trial}"));
        let mut killed = 0;
        loop {
            let r = next(&mut seed);
            let delay = Duration::from_millis(20 + (r >> 8) % (full.as_millis() as u64).max(100));
            let mut child = train(&dir, &out, &err).spawn().unwrap();
            match wait_at_most(&mut child, delay) {
                Some(status) => {
                    assert!(
                        status.success(),
                        "trial {trial}: failed after {killed} kills: {}",
                        fs::read_to_string(&err).unwrap()
                    );
                    break;
                }
                None => {
                    child.kill().unwrap();
                    child.wait().unwrap();
                    killed += 1;
                }
            }
            assert!(killed <= 60, "trial {trial}: never finished");
        }
        let got = trained_files(&dir);
        assert_eq!(
            got.iter().map(|f| &f.0).collect::<Vec<_>>(),
            want.iter().map(|f| &f.0).collect::<Vec<_>>(),
            "trial {trial}: files"
        );
        for ((a, x), (_, y)) in got.iter().zip(&want) {
            assert!(x == y, "trial {trial}: {a} differs after {killed} kills");
        }
        println!("trial {trial}: killed {killed} times, identical");
        kills += killed;
        fs::remove_dir_all(&dir).unwrap();
    }
    println!("trainer: {trials} of {trials} trials identical, {kills} kills");
}
