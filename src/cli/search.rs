//! The search, keyframes and evaluation commands.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use hatetris::beam::{self, Options, Settings};
use hatetris::heuristic::{self, Evaluator, HoleRegion, Weights};
use hatetris::keyframes::{self, Pick};
use hatetris::replay::{self, Format};
use hatetris::Well;

use super::args::{BenchEvalArgs, BenchSearchArgs, EvalArgs, KeyframesArgs, SearchArgs};
use super::{format_arg, read_arg, read_wells};

/// The evaluator and its description (compared when a run resumes).
fn evaluator(
    weights: Option<&Path>,
    quiescent: Option<u8>,
) -> Result<(Evaluator, serde_json::Value)> {
    let w = match weights {
        Some(path) => Weights::load(path)?,
        None => Weights::dnf86(),
    };
    let eval = Evaluator::new(w, quiescent);
    let mut description = serde_json::json!({ "weights": w, "quiescent": quiescent });
    // Version 1 counted every evaluator's holes over the deepened surface, so
    // an evaluator that still does resumes runs made before version 2; the
    // others record the version, and such old runs are refused.
    if eval.hole_region() != HoleRegion::DeepenedSurface {
        description["terms"] = heuristic::TERMS_VERSION.into();
    }
    Ok((eval, description))
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
    let threads = match a.threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(t) => t,
        None => std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
    };
    let (eval, description) = evaluator(a.weights.as_deref(), a.quiescent)?;
    let settings = Settings {
        width: a.width,
        evaluator: description,
    };
    let opts = Options {
        max_depth: a.max_depth,
        threads,
        progress: !a.quiet,
        release_memory: Some(crate::release_memory),
    };
    let started = Instant::now();
    let (dir, result) = match a.resume {
        Some(dir) => {
            let r = beam::resume(&dir, settings, &eval, &opts)?;
            (dir, r)
        }
        None => {
            let dir = a.out.unwrap_or_else(|| fresh_run_dir(a.width));
            if !a.quiet {
                eprintln!(
                    "run folder: {} (width {}, {} threads)",
                    dir.display(),
                    a.width,
                    threads
                );
            }
            let r = beam::start(&dir, settings, &eval, &opts)?;
            (dir, r)
        }
    };
    let kf = keyframes::reconstruct(&dir, Pick::Best).context("rebuilding the best game")?;
    let text = replay::encode(&kf.keys, Format::Base2048);
    hatetris::beam::store::write_atomic(
        &dir.join("best-replay.txt"),
        format!("{text}\n").as_bytes(),
    )
    .with_context(|| format!("writing {}", dir.join("best-replay.txt").display()))?;
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
    let (eval, _) = evaluator(a.weights.as_deref(), a.quiescent)?;
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
    let threads = match a.threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(t) => t,
        None => std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
    };
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
