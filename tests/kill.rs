//! Crash safety: kill -9 the search at random moments, resume, and compare
//! with an uninterrupted run. Slow (it runs the release-like binary many
//! times), so it is `--ignored`:
//!
//! `cargo test --release --test tests kill -- --ignored --nocapture`

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::cli::hatetris;

fn search(dir: &Path, resume: bool, width: &str, depth: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hatetris"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.args([
        "search",
        "--quiet",
        "--threads",
        "2",
        "--width",
        width,
        "--max-depth",
        depth,
    ]);
    c.arg(if resume { "--resume" } else { "--out" }).arg(dir);
    c.stdout(Stdio::null()).stderr(Stdio::null());
    c
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "beam"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Ten trials: start, kill -9 after a pseudo-random delay (sometimes several
/// times), resume to the end; every depth file must equal the clean run's
/// byte for byte, and the final replay must match.
#[test]
#[ignore]
fn kill_9_at_random_moments_then_resume_gives_the_same_result() {
    let (width, depth) = ("3000", "60");
    let base = tempfile::tempdir().unwrap();
    let clean = base.path().join("clean");
    let t0 = Instant::now();
    assert!(search(&clean, false, width, depth)
        .status()
        .unwrap()
        .success());
    let full = t0.elapsed();
    let want = files(&clean);
    let want_replay = std::fs::read_to_string(clean.join("best-replay.txt")).unwrap();
    println!(
        "clean run: {:.1}s, {} depth files",
        full.as_secs_f64(),
        want.len()
    );
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for trial in 0..10 {
        let dir = base.path().join(format!("trial{trial}"));
        let mut kills = 0;
        let mut first = true;
        loop {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let delay = Duration::from_millis(50 + seed % (full.as_millis() as u64).max(100));
            let mut child = search(&dir, !first, width, depth).spawn().unwrap();
            std::thread::sleep(delay);
            match child.try_wait().unwrap() {
                Some(status) => {
                    assert!(status.success(), "trial {trial}: run failed");
                    break;
                }
                None => {
                    child.kill().unwrap(); // SIGKILL
                    child.wait().unwrap();
                    kills += 1;
                }
            }
            // A kill before the first manifest was written leaves nothing to resume.
            first = !dir.join("manifest.json").exists();
            if kills > 30 {
                panic!("trial {trial}: never finished");
            }
        }
        let got = files(&dir);
        assert_eq!(got.len(), want.len(), "trial {trial}: depth count");
        for ((a, x), (b, y)) in got.iter().zip(&want) {
            assert_eq!(a, b);
            assert!(x == y, "trial {trial}: {a} differs");
        }
        let replay = std::fs::read_to_string(dir.join("best-replay.txt")).unwrap();
        assert_eq!(replay, want_replay, "trial {trial}: replay");
        println!(
            "trial {trial}: killed {kills} times, identical ({} depth files)",
            got.len()
        );
        let o = hatetris(&["replay", "score", replay.trim()], None);
        assert!(o.status.success());
    }
}
