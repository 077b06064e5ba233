//! The search, keyframes and evaluation commands.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use hatetris::heuristic::{self, Knewjade, Weights};
use hatetris::replay::{self, Format};
use hatetris::run::keyframes::{self, Pick};
use hatetris::run::{self, DepthStats};
use hatetris::search::{self, Adversary, Observer, Options, Search};
use hatetris::Well;

use super::args::{BenchEvalArgs, BenchSearchArgs, EvalArgs, KeyframesArgs, SearchArgs};
use super::{enemy_arg, format_arg, read_arg, read_wells};

/// The knewjade evaluator from the command line's weights and lookahead.
fn evaluator(weights: Option<&std::path::Path>, quiescent: Option<u8>) -> Result<Knewjade> {
    let w = match weights {
        Some(path) => Weights::load(path)?,
        None => Weights::dnf86(),
    };
    Ok(Knewjade::new(w, quiescent))
}

/// Progress bars and one line per depth on stderr.
struct Progress {
    bar: Mutex<indicatif::ProgressBar>,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            bar: Mutex::new(indicatif::ProgressBar::hidden()),
        }
    }

    fn bar(&self) -> std::sync::MutexGuard<'_, indicatif::ProgressBar> {
        self.bar.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Observer for Progress {
    fn fell_back(&self, depth: u32, why: &str) {
        eprintln!("depth {depth}: {why}; falling back");
    }

    fn resumed(&self, depth: u32, wells: usize) {
        eprintln!("resuming at depth {depth} ({wells} wells)");
    }

    fn depth_started(&self, depth: u32, parents: u64) {
        let bar = indicatif::ProgressBar::new(parents);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "depth {msg} [{bar:30}] {pos}/{len} wells  {per_sec}  eta {eta}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar.set_message(depth.to_string());
        *self.bar() = bar;
    }

    fn expanded(&self, parents: u64) {
        self.bar().inc(parents);
    }

    fn depth_finished(&self, stats: &DepthStats) {
        self.bar().finish_and_clear();
        eprintln!("{}", describe(stats));
    }

    fn exhausted(&self, depth: u32) {
        self.bar().finish_and_clear();
        eprintln!("depth {depth}: every child ends the game; the search is over");
    }
}

/// One human-readable line for a depth.
fn describe(s: &DepthStats) -> String {
    let hist: Vec<String> = s
        .histogram
        .iter()
        .map(|(sc, n)| format!("{sc}:{n}"))
        .collect();
    let rss = s
        .peak_rss
        .map(|b| format!("  peak rss {:.0} MB", b as f64 / 1e6))
        .unwrap_or_default();
    format!(
        "depth {:>4}  {:>8.1}s  children {:>10}  unique {:>10}  kept {:>9}  best cost {:>11.3}  best score {:>3}{rss}  scores {}",
        s.depth,
        s.elapsed_s,
        s.children,
        s.unique,
        s.kept,
        s.best_cost,
        s.best_score,
        hist.join(" ")
    )
}

/// The thread count asked for, or every core.
fn threads_arg(threads: Option<usize>) -> Result<usize> {
    Ok(match threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(t) => t,
        None => std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
    })
}

/// A fresh folder under runs/ named after the time and width.
fn fresh_run_dir(width: usize) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut dir = PathBuf::from("runs").join(format!("run-{secs}-w{width}"));
    let mut n = 1;
    while dir.exists() {
        n += 1;
        dir = PathBuf::from("runs").join(format!("run-{secs}-w{width}-{n}"));
    }
    dir
}

pub fn search(a: SearchArgs) -> Result<()> {
    if a.width == 0 {
        bail!("--width must be at least 1");
    }
    let threads = threads_arg(a.threads)?;
    let eval = evaluator(a.weights.as_deref(), a.quiescent)?;
    let search = Search {
        width: a.width,
        evaluator: &eval,
        adversary: Adversary::new(enemy_arg(&a.enemy)?),
    };
    let opts = Options {
        max_depth: a.max_depth,
        threads,
        release_memory: Some(crate::release_memory),
    };
    let progress = Progress::new();
    let observer: &dyn Observer = if a.quiet { &search::Silent } else { &progress };
    let started = Instant::now();
    let (dir, result) = match a.resume {
        Some(dir) => {
            if !a.quiet {
                eprintln!("run folder: {}", dir.display());
            }
            let r = search::resume(&dir, &search, &opts, observer)?;
            (dir, r)
        }
        None => {
            let dir = a.out.unwrap_or_else(|| fresh_run_dir(a.width));
            if !a.quiet {
                eprintln!(
                    "run folder: {} (width {}, {} threads, enemy {})",
                    dir.display(),
                    a.width,
                    threads,
                    search.adversary.kind()
                );
            }
            let r = search::start(&dir, &search, &opts, observer)?;
            (dir, r)
        }
    };
    let kf = keyframes::reconstruct(&dir, Pick::Best).context("rebuilding the best game")?;
    let text = replay::encode(&kf.keys, Format::Base2048);
    let replay_path = run::best_replay_path(&dir);
    run::atomic::write_atomic(&replay_path, format!("{text}\n").as_bytes())
        .with_context(|| format!("writing {}", replay_path.display()))?;
    println!(
        "best game: score {} at depth {} ({} keys); search {} at depth {} in {:.1}s",
        kf.score(),
        kf.wells.len(),
        kf.keys.len(),
        if result.exhausted {
            "died out"
        } else {
            "stopped"
        },
        result.depth,
        started.elapsed().as_secs_f64()
    );
    println!("replay (Base2048, paste into the game): {text}");
    println!("run folder: {}", dir.display());
    if a.json {
        println!(
            "{}",
            serde_json::json!({"score": kf.score(), "depth": kf.wells.len(), "replay": text, "out": dir.display().to_string()})
        );
    }
    Ok(())
}

pub fn keyframes(a: KeyframesArgs) -> Result<()> {
    let pick = match a.pick.as_str() {
        "best" => Pick::Best,
        "deepest" => Pick::Deepest,
        other => bail!("unknown --pick '{other}' (expected best or deepest)"),
    };
    let started = Instant::now();
    let kf = keyframes::reconstruct(&a.dir, pick)?;
    eprintln!(
        "rebuilt {} pieces, score {}, in {:.3}s, reading {} bytes of depth files",
        kf.wells.len(),
        kf.score(),
        started.elapsed().as_secs_f64(),
        kf.bytes_read
    );
    if a.format == "wells" {
        for w in &kf.wells {
            println!("{}", w.to_numbers());
        }
    } else {
        println!("{}", replay::encode(&kf.keys, format_arg(&a.format)?));
    }
    Ok(())
}

pub fn eval(a: EvalArgs) -> Result<()> {
    let text = read_arg(&a.well)?;
    let well: Well = text.parse().context("reading the well")?;
    let eval = evaluator(a.weights.as_deref(), a.quiescent)?;
    let b = eval.breakdown(&well, a.score);
    if a.json {
        println!("{}", serde_json::to_string(&b)?);
    } else {
        print!("{well}");
        print!("{}", heuristic::render_breakdown(&b));
    }
    Ok(())
}

pub fn bench_eval(a: BenchEvalArgs) -> Result<()> {
    let text = std::fs::read_to_string(&a.wells)
        .with_context(|| format!("reading {}", a.wells.display()))?;
    let wells = read_wells(&text, &a.wells.display().to_string())?;
    let plain = heuristic::bench_eval(&wells, None);
    let quiescent = heuristic::bench_eval(&wells, Some(a.quiescent));
    println!(
        "children: {} (of all 7 pieces of {} wells), one thread, median of 5 runs",
        plain.children,
        wells.len()
    );
    println!(
        "heuristic with erasability:    {:8.3} us/child",
        plain.us_per_child
    );
    println!(
        "with quiescent lookahead ({}): {:8.3} us/child",
        a.quiescent, quiescent.us_per_child
    );
    if a.json {
        println!(
            "{}",
            serde_json::json!({"children": plain.children, "eval_us": plain.us_per_child, "quiescent_us": quiescent.us_per_child, "quiescent_depth": a.quiescent})
        );
    }
    Ok(())
}

pub fn bench_search(a: BenchSearchArgs) -> Result<()> {
    if a.width == 0 || a.depths == 0 {
        bail!("--width and --depths must be at least 1");
    }
    let threads = threads_arg(a.threads)?;
    let (dir, temporary) = match a.out {
        Some(dir) => (dir, false),
        None => (
            std::env::temp_dir().join(format!("hatetris-bench-search-{}", std::process::id())),
            true,
        ),
    };
    let result = hatetris::bench::bench_search(&dir, a.width, a.depths, threads, a.quiescent);
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let b = result?;
    println!(
        "search: width {}, {} depths, {} threads, lookahead {}",
        b.width,
        b.depths,
        b.threads,
        b.quiescent
            .map_or("off".to_string(), |d| format!("depth {d}"))
    );
    println!(
        "{:>6} {:>12} {:>10}  {:<16}",
        "depth", "children", "kept", "content hash"
    );
    for d in &b.per_depth {
        println!(
            "{:>6} {:>12} {:>10}  {:016x}",
            d.depth, d.children, d.kept, d.hash
        );
    }
    let children: u64 = b.per_depth.iter().map(|d| d.children).sum();
    println!(
        "children {children}  signature {:016x}  {:.2}s  ({:.3} us/child)",
        b.signature,
        b.seconds,
        b.seconds * 1e6 / children.max(1) as f64
    );
    if a.json {
        println!("{}", serde_json::to_string(&b)?);
    }
    Ok(())
}
