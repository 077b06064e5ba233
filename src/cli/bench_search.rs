//! `hatetris bench search`: a fixed search timed on several thread (and
//! worker) counts, held to one signature, with Amdahl's law read backwards
//! and the machine's own limit. The library runs the searches
//! ([`hatetris::bench::bench_search`]); this layer picks the runs and prints.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};

use hatetris::evaluate::Evaluator;
use hatetris::launch::EvaluatorSpec;
use hatetris::run;

use super::args::BenchSearchArgs;
use super::outln;
use super::search::{check_width, counted, threads_arg};

/// How a bench run ran: "2 threads", or "2 workers" when sharded.
fn run_word(b: &hatetris::bench::SearchBench) -> String {
    counted(b.threads, if b.sharded { "worker" } else { "thread" })
}

/// The thread counts a run was meant for at the largest: the limits the
/// serial share implies are printed for these.
const AMDAHL_AT: [usize; 3] = [16, 64, 128];

/// A search run shorter than this, in seconds, gives speed-ups too noisy
/// for Amdahl's law read backwards (see the warning).
const BENCH_SEARCH_TRUSTED_S: f64 = 10.0;

pub fn bench_search(a: BenchSearchArgs, out: &mut dyn Write) -> Result<()> {
    // The lines of text, written when every run is done: to standard
    // output, or with --json to standard error (the JSON alone on
    // standard output).
    let mut text: Vec<u8> = Vec::new();
    let human: &mut dyn Write = &mut text;
    use hatetris::bench::SearchBench;
    if a.depths == 0 {
        bail!("--depths must be at least 1");
    }
    // Each run: a count and whether it is sharded (`--workers`).
    let mut counts: Vec<(usize, bool)> = match (a.threads.is_empty(), a.workers.is_empty()) {
        (true, true) => vec![(threads_arg(None)?, false)],
        _ => a
            .threads
            .iter()
            .map(|&t| Ok((threads_arg(Some(t))?, false)))
            .collect::<Result<Vec<_>>>()?,
    };
    for &w in &a.workers {
        if w == 0 {
            bail!("--workers must be at least 1");
        }
        counts.push((threads_arg(Some(w))?, true));
    }
    // --copies compares a 1-thread search with the largest count: refused
    // before any search when the list cannot give both.
    let plain: Vec<usize> = counts.iter().filter(|c| !c.1).map(|c| c.0).collect();
    if a.copies && !(plain.contains(&1) && plain.iter().any(|&n| n > 1)) {
        bail!("--copies needs --threads with 1 and a larger count");
    }
    // The evaluator, built as `hatetris search` builds it, once: every run
    // shares it.
    let evaluator: Arc<dyn Evaluator + Send> = Arc::from(
        EvaluatorSpec {
            net: a.net.clone(),
            weights: a.weights.clone(),
            quiescent: a.quiescent.depth,
            chain_step_cost: a.chain_step.cost.unwrap_or(0.0),
        }
        .build()?,
    );
    let most = counts.iter().map(|&(n, _)| n).max().unwrap_or(1);
    check_width(a.width, most, a.force)?;
    super::interrupt::exit_at_once(
        "interrupted: no figures (each is a whole run); its temporary folders are removed"
            .to_string(),
    )?;
    let same = |first: &SearchBench, b: &SearchBench| -> Result<()> {
        if b.signature != first.signature {
            bail!(
                "the search is not the same on every thread count: {} gave signature {:016x}, {} gave {:016x}",
                run_word(first),
                first.signature,
                run_word(b),
                b.signature
            );
        }
        Ok(())
    };
    // Every count's search, the list `--repeat` times over in turn; the
    // first search's folder is the one `--out` keeps (the others make the
    // same files).
    let mut all: Vec<Vec<SearchBench>> = vec![Vec::new(); counts.len()];
    for round in 0..a.repeat {
        for (i, &(threads, sharded)) in counts.iter().enumerate() {
            // A temporary folder is removed when dropped, whatever the
            // result.
            let (dir, _temporary) = match (&a.out, round, i) {
                (Some(dir), 0, 0) => (dir.clone(), None),
                _ => {
                    let t = super::interrupt::temporary_dir("bench-search")?;
                    (t.path().join("run"), Some(t))
                }
            };
            let b = hatetris::bench::bench_search(
                &dir, a.width, a.depths, threads, &evaluator, sharded,
            )?;
            if let Some(first) = all[0].first() {
                same(first, &b)?;
            }
            all[i].push(b);
        }
    }
    // Each count's median run (the lower middle of an even number).
    let runs: Vec<SearchBench> = all
        .iter()
        .map(|tries| {
            let mut order: Vec<&SearchBench> = tries.iter().collect();
            order.sort_by(|x, y| x.seconds.total_cmp(&y.seconds));
            order[(order.len() - 1) / 2].clone()
        })
        .collect();
    let first = &runs[0];
    let list = |sharded: bool| -> Vec<String> {
        counts
            .iter()
            .filter(|c| c.1 == sharded)
            .map(|c| c.0.to_string())
            .collect()
    };
    let threads = match (counts.len(), list(false), list(true)) {
        (1, _, _) => run_word(first),
        (_, t, w) if w.is_empty() => format!("threads {}", t.join(",")),
        (_, t, w) if t.is_empty() => format!("workers {}", w.join(",")),
        (_, t, w) => format!("threads {}, workers {}", t.join(","), w.join(",")),
    };
    outln!(
        human,
        "search: width {}, {} depths, {threads}{}, lookahead {}{}",
        first.width,
        first.depths,
        match a.repeat {
            1 => String::new(),
            r => format!(" ({r} times each, medians)"),
        },
        first
            .quiescent
            .map_or("off".to_string(), |d| format!("depth {d}")),
        match first.ranker.as_str() {
            "heuristic" => String::new(),
            ranker => format!(", {ranker}"),
        }
    )?;
    outln!(
        human,
        "{:>6} {:>12} {:>10}  {:<16}",
        "depth",
        "children",
        "kept",
        "content hash"
    )?;
    for d in &first.per_depth {
        outln!(
            human,
            "{:>6} {:>12} {:>10}  {:016x}",
            d.depth,
            d.children,
            d.kept,
            d.hash
        )?;
    }
    let children: u64 = first.per_depth.iter().map(|d| d.children).sum();
    outln!(
        human,
        "children {children}  signature {:016x}{}",
        first.signature,
        match runs.len() {
            1 => "",
            _ => "  (the same on every thread count)",
        }
    )?;
    let speed_ups: Vec<f64> = runs.iter().map(|b| first.seconds / b.seconds).collect();
    for ((b, speed_up), tries) in runs.iter().zip(&speed_ups).zip(&all) {
        let every = match tries.len() {
            1 => String::new(),
            _ => format!(
                " (runs {})",
                tries
                    .iter()
                    .map(|t| format!("{:.2}", t.seconds))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        outln!(
            human,
            "{}: {:.2}s{every}  {:.2} ms/depth  {:.3} us/child  speed-up {speed_up:.2}",
            run_word(b),
            b.seconds,
            b.seconds * 1e3 / f64::from(b.depths),
            b.seconds * 1e6 / children.max(1) as f64
        )?;
        let total = b.phases.total().max(f64::MIN_POSITIVE);
        let split: Vec<String> = b
            .phases
            .named()
            .iter()
            .map(|(name, s)| {
                let during = match run::Phases::ALONGSIDE.contains(name) {
                    true => ", alongside expand",
                    false => "",
                };
                format!("{name} {s:.2}s ({:.1}%{during})", 100.0 * s / total)
            })
            .collect();
        outln!(human, "  phases: {}", split.join("  "))?;
        let expand = b.phases.expand.max(f64::MIN_POSITIVE) * b.threads as f64;
        outln!(
            human,
            "  the kept set's lock: held {:.2}s, waited for {:.2}s ({:.2}% and {:.2}% of the threads' expand time)",
            b.phases.locked,
            b.phases.waited,
            100.0 * b.phases.locked / expand,
            100.0 * b.phases.waited / expand
        )?;
        outln!(
            human,
            "  idle at the expansions' ends, out of work while other threads finished: {:.2}s ({:.2}% of the threads' expand time)",
            b.phases.idle,
            100.0 * b.phases.idle / expand
        )?;
        outln!(
            human,
            "  the kept set's compactions: {} of them, {:.2}s ({:.2}% of the threads' expand time)",
            b.phases.compactions,
            b.phases.compact,
            100.0 * b.phases.compact / expand
        )?;
    }
    // Amdahl's law from the 1-thread run and the run of the largest count
    // (of the kernel's threads: sharded runs are only compared).
    let one = runs.iter().position(|b| b.threads == 1 && !b.sharded);
    let most = runs
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, b)| !b.sharded)
        .max_by_key(|(_, b)| b.threads)
        .map(|(i, _)| i)
        .unwrap_or(0);
    let n = runs[most].threads;
    let amdahl = one.and_then(|one| {
        let speed_up = runs[one].seconds / runs[most].seconds;
        hatetris::bench::serial_share(n, speed_up).map(|s| (n, speed_up, s))
    });
    // Said last, after the figures (on standard error).
    let mut warning = None;
    let limits_line = |s: f64| {
        AMDAHL_AT
            .iter()
            .map(|&m| format!("{:.1} at {m}", hatetris::bench::speed_up_limit(s, m)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if runs.len() > 1 {
        match amdahl {
            Some((n, speed_up, s)) => outln!(
                human,
                "serial share (Amdahl, speed-up {speed_up:.2} from 1 to {n} threads): {:.1}%{}; speed-up limits: {} threads",
                100.0 * s,
                match s < 0.0 {
                    true => " (above linear: noise; taken as 0)",
                    false => "",
                },
                limits_line(s)
            )?,
            None => outln!(
                human,
                "serial share: not estimated (--threads needs 1 and a larger count)"
            )?,
        }
        // Amdahl's law read backwards magnifies noise: a speed-up of 1.90
        // or 1.95 on 2 threads is a serial share of 5 % or 3 %, and the
        // limits at 128 threads 17 or 28.
        let shortest = runs.iter().map(|b| b.seconds).fold(f64::INFINITY, f64::min);
        if amdahl.is_some() && (a.repeat < 3 || shortest < BENCH_SEARCH_TRUSTED_S) {
            warning = Some(format!(
                "warning: the serial share and its limits come from {} of {:.1}s or more per count: small differences in time move them a lot; take --repeat 5 (or more) of runs of {BENCH_SEARCH_TRUSTED_S:.0}s or longer (a larger --width or --depths) before trusting them",
                counted(a.repeat as usize, "run"),
                shortest
            ));
        }
    }
    // The machine's own limit: n independent 1-thread searches at once,
    // against the median 1-thread search alone.
    let mut machine = None;
    if a.copies {
        let Some(one) = one.filter(|_| n > 1) else {
            bail!("--copies needs --threads with 1 and a larger count");
        };
        let temporary = super::interrupt::temporary_dir("bench-copies")?;
        let dirs: Vec<PathBuf> = (0..n)
            .map(|c| temporary.path().join(format!("copy-{c}")))
            .collect();
        let copies = hatetris::bench::bench_copies(&dirs, a.width, a.depths, &evaluator)?;
        drop(temporary);
        for b in &copies {
            same(first, b)?;
        }
        let shared = copies.iter().map(|b| b.seconds).sum::<f64>() / copies.len() as f64;
        let alone = runs[one].seconds;
        let ceiling = n as f64 * alone / shared;
        // Amdahl against a 1-thread search that shares the machine as the
        // threads do: s = (n t_n / t_shared - 1) / (n - 1).
        let s = (n as f64 * runs[most].seconds / shared - 1.0) / (n as f64 - 1.0);
        outln!(
            human,
            "the machine: {n} independent 1-thread searches at once took {shared:.2}s each (alone {alone:.2}s), so {n} threads can reach at most {ceiling:.2}x here",
        )?;
        outln!(
            human,
            "serial share against that (Amdahl, a 1-thread search taking {shared:.2}s): {:.1}%{}; speed-up limits: {} threads (before the machine's own)",
            100.0 * s,
            match s < 0.0 {
                true => " (above the machine's limit: noise; taken as 0)",
                false => "",
            },
            limits_line(s)
        )?;
        machine = Some((shared, ceiling, s));
    }
    let warnings: Vec<String> = warning.into_iter().collect();
    if !a.json {
        out.write_all(&text).context(super::STDOUT)?;
        return super::movegen::warn_after(out, &warnings);
    }
    {
        use std::io::Write as _;
        let _ = std::io::stderr().write_all(&text);
        let mut each = Vec::new();
        for ((b, speed_up), tries) in runs.iter().zip(&speed_ups).zip(&all) {
            let mut j = serde_json::to_value(b)?;
            j["seconds_per_depth"] = (b.seconds / f64::from(b.depths)).into();
            j["speed_up"] = (*speed_up).into();
            j["runs_seconds"] = tries.iter().map(|t| t.seconds).collect::<Vec<_>>().into();
            each.push(j);
        }
        let limits = |s: f64| {
            AMDAHL_AT
                .iter()
                .map(|&m| {
                    (
                        m.to_string(),
                        serde_json::Value::from(hatetris::bench::speed_up_limit(s, m)),
                    )
                })
                .collect::<serde_json::Map<_, _>>()
        };
        let all = serde_json::json!({
            "runs": each,
            "summary": {
                "threads": counts.iter().filter(|c| !c.1).map(|c| c.0).collect::<Vec<_>>(),
                "workers": counts.iter().filter(|c| c.1).map(|c| c.0).collect::<Vec<_>>(),
                "repeat": a.repeat,
                "signature": format!("{:016x}", first.signature),
                "children": children,
                "seconds": runs.iter().map(|b| b.seconds).collect::<Vec<_>>(),
                "speed_up": speed_ups,
                "amdahl_threads": amdahl.map(|(n, _, _)| [1, n]),
                "serial_share": amdahl.map(|(_, _, s)| s),
                "speed_up_limits": amdahl.map(|(_, _, s)| limits(s)),
                "copies_seconds": machine.map(|(t, _, _)| t),
                "machine_ceiling": machine.map(|(_, c, _)| c),
                "serial_share_against_machine": machine.map(|(_, _, s)| s),
                "speed_up_limits_against_machine": machine.map(|(_, _, s)| limits(s)),
            }
        });
        outln!(out, "{all}")?;
    }
    super::movegen::warn_after(out, &warnings)
}
