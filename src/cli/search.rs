//! `hatetris search` and `hatetris keyframes`: the flags turned into a
//! [`launch::Request`], the search assembled and run by the library
//! ([`hatetris::launch`]), its progress drawn, and the best game written
//! and printed. The flags' own checks (threads, memory for the width) are
//! here too, shared with `bench search`, `train` and `tune`.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use hatetris::distributed::{Cluster, Shard};
use hatetris::enemy::EnemyKind;
use hatetris::launch::{self, EvaluatorSpec, Folder, Input, Request};
use hatetris::replay::{self, Format};
use hatetris::run::keyframes::{self, Pick};
use hatetris::run::{self, DepthStats, Start};
use hatetris::search::{self, DepthExpander, Observer, Options};

use super::args::{KeyframesArgs, KeyframesFormat, PickArg, SearchArgs};
use super::cluster::{self, end_on_worker_panic, layout_arg};
use super::input;
use super::progress::Bar;
use super::{note, outln};

/// The search's observer: a bar per depth, and one line per depth, on
/// standard error.
struct SearchProgress {
    bar: Bar,
}

impl Observer for SearchProgress {
    fn fell_back(&self, depth: u32, why: &str) {
        self.bar.say(format!("depth {depth}: {why}; falling back"));
    }

    fn resumed(&self, depth: u32, wells: usize) {
        self.bar
            .say(format!("resuming at depth {depth} ({wells} wells)"));
    }

    fn depth_started(&self, depth: u32, parents: u64) {
        self.bar.start(
            parents,
            "depth {msg} [{bar:30}] {pos}/{len} wells  {per_sec}  eta {eta}",
            depth.to_string(),
        );
    }

    fn expanded(&self, parents: u64) {
        self.bar.inc(parents);
    }

    fn depth_finished(&self, stats: &DepthStats) {
        self.bar.clear();
        self.bar.say(describe(stats));
    }

    fn exhausted(&self, depth: u32) {
        self.bar.clear();
        self.bar.say(format!(
            "depth {depth}: every child ends the game; the search is over"
        ));
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
    let phases = s.phases.map(|p| describe_phases(&p)).unwrap_or_default();
    let lineage = s
        .lineage
        .map(|l| {
            format!(
                "  lineages {} (replaced {}; passed over {}, {} filled back)",
                l.lineages, l.replaced, l.passed, l.filled
            )
        })
        .unwrap_or_default();
    format!(
        "depth {:>4}  {:>8.1}s  children {:>10}  about {:>10} distinct  kept {:>9}  best cost {:>11.3}  best score {:>3}{lineage}{rss}{phases}  scores {}",
        s.depth,
        s.elapsed_s,
        s.children,
        shown_distinct(s),
        s.kept,
        s.best_cost,
        s.best_score,
        hist.join(" ")
    )
}

/// The distinct children to show: the log's estimate (a HyperLogLog
/// sketch's, within about 1%), never below the kept wells, which are
/// distinct children themselves (the estimate can fall under them when
/// nearly every child is kept).
fn shown_distinct(s: &DepthStats) -> u64 {
    s.unique.max(s.kept)
}

/// The depth's phase split, in milliseconds: those of its wall time, then
/// those that ran alongside the next expansion.
fn describe_phases(p: &run::Phases) -> String {
    let (own, alongside): (Vec<_>, Vec<_>) = p
        .named()
        .into_iter()
        .partition(|(name, _)| !run::Phases::ALONGSIDE.contains(name));
    let ms = |list: Vec<(&str, f64)>| -> String {
        let parts: Vec<String> = list
            .iter()
            .map(|(name, s)| format!("{name} {:.0}", s * 1e3))
            .collect();
        parts.join(" ")
    };
    format!("  ms: {} (alongside: {})", ms(own), ms(alongside))
}

/// Threads allowed per core: more only costs time spawning them.
const THREADS_PER_CORE: usize = 4;

/// The most threads allowed, whatever the cores.
const MAX_THREADS: usize = 1024;

/// The thread count asked for (at most [`THREADS_PER_CORE`] per core and
/// [`MAX_THREADS`]), or every core.
pub(crate) fn threads_arg(threads: Option<usize>) -> Result<usize> {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let cap = cores.saturating_mul(THREADS_PER_CORE).min(MAX_THREADS);
    Ok(match threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(t) if t > cap => bail!(
            "--threads {t} is too many: at most {cap} ({THREADS_PER_CORE} per core on {cores} {}, and never more than {MAX_THREADS})",
            if cores == 1 { "core" } else { "cores" }
        ),
        Some(t) => t,
        None => cores,
    })
}

/// A byte count in decimal units, to two significant figures or more
/// ("80 TB", "24 GB", "1.5 GB").
pub(crate) fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["bytes", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if value < 10.0 && unit > 0 {
        format!("{value:.1} {}", UNITS[unit])
    } else {
        format!("{value:.0} {}", UNITS[unit])
    }
}

/// Refuses a width whose search on `threads` threads would not fit in
/// memory (see [`search::memory::bytes_needed`]), before any work: always
/// when no process could allocate it, and unless `force` when it exceeds
/// what the machine has now. Machines that do not say what they have are not
/// checked.
pub(crate) fn check_width(width: usize, threads: usize, force: bool) -> Result<()> {
    check_memory(width, search::memory::bytes_needed(width, threads), force)
}

/// [`check_width`] for a command that runs `beams` one-thread beams of
/// `width` at once (the tuner's and `compare`'s fitness beams, one per
/// thread) after a reference game searched on as many threads: whichever
/// needs more.
pub(crate) fn check_beams(width: usize, beams: usize, force: bool) -> Result<()> {
    let one = search::memory::bytes_needed(width, 1) - search::memory::BASE_BYTES;
    let at_once = one
        .saturating_mul(beams.max(1) as u64)
        .saturating_add(search::memory::BASE_BYTES);
    let need = at_once.max(search::memory::bytes_needed(width, beams));
    check_memory(width, need, force)
}

/// Refuses `--width {width}` when `need` bytes cannot be had (see
/// [`check_width`]).
fn check_memory(width: usize, need: u64, force: bool) -> Result<()> {
    if width == 0 {
        bail!("--width must be at least 1");
    }
    let about = if need == u64::MAX {
        format!("more than {}", human_bytes(need))
    } else {
        format!("about {}", human_bytes(need))
    };
    if need > isize::MAX as u64 {
        bail!("--width {width} needs {about} of memory, more than a process can address");
    }
    if force {
        return Ok(());
    }
    if let Some(have) = search::memory::machine_bytes() {
        if need > have {
            bail!(
                "--width {width} needs {about} of memory; this machine has {} available (use --force to try anyway)",
                human_bytes(have)
            );
        }
    }
    Ok(())
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

/// `hatetris search`: a new run, or `--resume DIR`.
pub fn search(a: SearchArgs, out: &mut dyn Write) -> Result<()> {
    // Every argument is checked before a file is written: a new run's
    // flags, or a resumed run's manifest and the flags against it. A
    // folder of another kind first (the library refuses it too, later).
    if let Some(dir) = a.out.as_ref().or(a.resume.as_ref()) {
        hatetris::folder::refuse_other(dir, hatetris::folder::Holds::Run)?;
    }
    let request = Request {
        width: a.width,
        enemy: a.enemy,
        evaluator: EvaluatorSpec {
            net: a.net.clone(),
            weights: a.weights.clone(),
            quiescent: a.quiescent.depth,
            chain_step_cost: a.chain_step.cost.unwrap_or(0.0),
        },
        max_depth: a.max_depth,
        threads: a.threads,
        lineage: a.lineage_cap,
    };
    let setup = match &a.resume {
        Some(dir) => launch::resumed_run(dir, &request)?,
        None => launch::new_run(&request)?,
    };
    let start = from_arg(&a, setup.enemy, setup.plan.max_depth)?;
    let threads = match (a.threads, setup.plan.threads) {
        // A run's thread count may not fit the machine it resumes on.
        (None, Some(t)) => threads_arg(Some(t)).or_else(|_| threads_arg(None))?,
        (t, _) => threads_arg(t)?,
    };
    check_width(setup.width, threads, a.force)?;
    let search = setup.search();
    let layout = layout_arg(&a)?;
    // A sharded search runs on its workers; the depth loop's own pool (the
    // beam's decode, the depth file) gets as many threads, so that
    // `--workers W` uses W cores as `--threads W` does.
    let threads = layout.as_ref().map_or(threads, |l| l.workers);
    if layout.as_ref().is_some_and(|l| l.processes() > 1) {
        end_on_worker_panic();
    }
    let dir = match &a.resume {
        Some(dir) => dir.clone(),
        None => a.out.clone().unwrap_or_else(|| fresh_run_dir(setup.width)),
    };
    // Every process's workers write their shards' files: process 0's to
    // the run folder, another's to its `--out`. They carry the run's
    // identity, its start included: a new run's `--from` (every process
    // is given it), a resumed run's own.
    let settings = run::Settings {
        start: start.clone().or_else(|| setup.start.clone()),
        ..search.settings()
    };
    let shard = |out: PathBuf| Shard {
        width: setup.width,
        evaluator: Arc::clone(&setup.evaluator),
        adversary: search.adversary,
        settings: settings.run_id(),
        root: settings.root(),
        out: Some(out),
    };
    let cluster = match &layout {
        None => None,
        // A process other than 0 serves process 0's run, writing its
        // shards' files.
        Some(l) if l.process != 0 => {
            let shards = cluster::shard_folder(l, &a)?;
            return cluster::serve(l, shard(shards), &a, out);
        }
        Some(l) => {
            if l.processes() > 1 && !a.quiet {
                note!(
                    "process 0 of {}: waiting for the other processes to connect",
                    l.processes()
                );
            }
            Some(Arc::new(Cluster::start(l, shard(dir.clone()))?))
        }
    };
    let expander = cluster
        .as_ref()
        .map(|c| Arc::clone(c) as Arc<dyn DepthExpander>);
    let stop = Arc::new(AtomicBool::new(false));
    super::interrupt::stop_search(Arc::clone(&stop))?;
    let opts = Options {
        release_memory: Some(crate::release_memory),
        stop: Some(stop),
        expander,
        ..launch::options(setup.plan.max_depth, threads, setup.plan.threads)
    };
    let progress = SearchProgress {
        bar: Bar::new(false),
    };
    let observer: &dyn Observer = if a.quiet { &search::Silent } else { &progress };
    let started = Instant::now();
    if !a.quiet {
        note!(
            "run folder: {} (width {}, {}, enemy {}, max depth {})",
            dir.display(),
            setup.width,
            threads_word(threads),
            search.adversary.kind(),
            opts.max_depth
        );
    }
    if let (Some(start), false) = (&start, a.quiet) {
        note!(
            "starting from the game's well after piece {} (depths are the whole game's)",
            start.at
        );
    }
    let folder = match a.resume {
        Some(_) => Folder::Resume,
        None => Folder::New,
    };
    let result = launch::run_from(&dir, &search, start.as_ref(), &opts, observer, folder);
    // The other processes end with the run, whatever its result (whose
    // error, if any, is the one to report).
    let finished = cluster.as_ref().map_or(Ok(()), |c| c.finish());
    let result = result?;
    finished?;
    if let Some(cluster) = cluster.filter(|_| layout.as_ref().is_some_and(|l| l.processes() > 1)) {
        let t = cluster.traffic();
        note!(
            "sent between processes: {:.1} MB over {} depths ({:.0} kB a depth)",
            t.bytes as f64 / 1e6,
            t.depths,
            t.bytes as f64 / 1e3 / t.depths.max(1) as f64
        );
    }
    if !result.stopped {
        if let Err(e) = super::plot::write_run_plot(&dir) {
            note!("the run's picture was not drawn: {e:#}");
        }
    }
    let how = match (result.exhausted, result.stopped) {
        (true, _) => "died out",
        (_, true) => "interrupted",
        _ => "stopped",
    };
    // A run whose shards were written on other machines' folders is
    // rebuilt once they are gathered.
    let manifest = run::read_manifest_file(&dir)?;
    let (shards, first) = (manifest.shards, manifest.root() + 1);
    let seconds = started.elapsed().as_secs_f64();
    if let Some(&first) = run::shards::missing(&dir, shards).first() {
        let line = format!(
            "best game: score {} at depth {}; search {how} at depth {} in {}",
            result.best.score,
            result.best.depth,
            result.depth,
            human_seconds(seconds)
        );
        if a.json {
            if !a.quiet {
                note!("{line}");
            }
            outln!(
                out,
                "{}",
                serde_json::json!({"score": result.best.score, "best_depth": result.best.depth, "depth": result.depth, "out": dir.display().to_string()})
            )?;
        } else {
            outln!(out, "{line}")?;
        }
        note!(
            "{} lacks {} (written on another machine): `hatetris keyframes {} FOLDER...`, given a copy of every other machine's folder, prints the replay",
            dir.display(),
            run::shards::shard_dir(&dir, first).display(),
            dir.display()
        );
        if result.stopped {
            super::INTERRUPTED.store(true, Ordering::Relaxed);
            out.flush().context(super::STDOUT)?;
            note!(
                "interrupted: depths {first} to {} are complete; to go on: hatetris search --resume {} (and the other processes as before)",
                result.depth,
                dir.display()
            );
        }
        return Ok(());
    }
    let kf = keyframes::reconstruct(&dir, Pick::Best).context("rebuilding the best game")?;
    let text = replay::encode(&kf.keys, Format::Base2048);
    let replay_path = run::best_replay_path(&dir);
    hatetris::folder::atomic::write_atomic(&replay_path, format!("{text}\n").as_bytes())
        .with_context(|| format!("writing {}", replay_path.display()))?;
    let lines = [
        format!(
            "best game: score {} at depth {} ({}); search {} at depth {} in {}",
            kf.score(),
            kf.wells.len(),
            keys_words(kf.keys.len(), replay::decode(&text).map_or(0, |k| k.len())),
            how,
            result.depth,
            human_seconds(seconds)
        ),
        format!("replay (Base2048, paste into the game): {text}"),
        format!("run folder: {}", dir.display()),
    ];
    if a.json {
        // The JSON alone on standard output; what a person reads on
        // standard error. `depth` is the last complete depth, as in
        // `status --json`; `best_depth` the best game's.
        for line in lines.iter().filter(|_| !a.quiet) {
            note!("{line}");
        }
        outln!(
            out,
            "{}",
            serde_json::json!({"score": kf.score(), "best_depth": kf.wells.len(), "depth": result.depth, "keys": kf.keys.len(), "replay": text, "out": dir.display().to_string()})
        )?;
    } else {
        for line in &lines {
            outln!(out, "{line}")?;
        }
    }
    if result.stopped {
        super::INTERRUPTED.store(true, Ordering::Relaxed);
        out.flush().context(super::STDOUT)?;
        note!(
            "interrupted: depths {first} to {} are complete and {} holds the best game so far; to go on: hatetris search --resume {}",
            result.depth,
            replay_path.display(),
            dir.display()
        );
    }
    Ok(())
}

/// `--from REPLAY [--at PIECE]`: the start in the game the replay plays
/// against `enemy`, checked before any file is written (a new run's
/// `max_depth` must be past it); `None` without `--from`. Every process of
/// a sharded search takes it (it is part of the run's identity, which
/// process 0 compares with theirs).
fn from_arg(a: &SearchArgs, enemy: EnemyKind, max_depth: u32) -> Result<Option<Start>> {
    let Some(arg) = &a.from else {
        if a.at.is_some() {
            bail!("--at needs --from REPLAY");
        }
        return Ok(None);
    };
    if a.resume.is_some() {
        bail!("--from starts a new run; a resumed run goes on from its own start");
    }
    let text = input::read_arg(arg, Input::Replay)?;
    let (start, _) = Start::from_replay(&text, a.at, enemy)?;
    if max_depth <= start.at {
        bail!(
            "--max-depth {max_depth} is not past the start (piece {}): depths count the whole game's pieces",
            start.at
        );
    }
    Ok(Some(start))
}

/// `hatetris keyframes`: a run's game rebuilt from its depth files.
pub fn keyframes(a: KeyframesArgs, out: &mut dyn Write) -> Result<()> {
    let pick = match a.pick {
        PickArg::Best => Pick::Best,
        PickArg::Deepest => Pick::Deepest,
    };
    // `None`: one well per line.
    let format = match a.format {
        KeyframesFormat::Wells => None,
        KeyframesFormat::Base2048 => Some(Format::Base2048),
        KeyframesFormat::Base65536 => Some(Format::Base65536),
        KeyframesFormat::Hex => Some(Format::Hex),
        KeyframesFormat::Raw => Some(Format::Raw),
    };
    for folder in &a.shards {
        if !folder.is_dir() {
            bail!(
                "{}: not a folder (give folders that hold a sharded run's shard-NNNN folders)",
                folder.display()
            );
        }
    }
    let started = Instant::now();
    let kf = keyframes::reconstruct_from(&a.dir, &a.shards, pick)?;
    note!(
        "rebuilt {} pieces, score {}, in {:.3}s, reading {} bytes of depth files",
        kf.wells.len(),
        kf.score(),
        started.elapsed().as_secs_f64(),
        kf.bytes_read
    );
    if a.json {
        // `best_depth` as in `search --json`: the game's pieces.
        let mut v = serde_json::json!({
            "score": kf.score(),
            "best_depth": kf.wells.len(),
            "keys": kf.keys.len(),
        });
        match format {
            None => {
                let wells: Vec<Vec<u32>> = kf
                    .wells
                    .iter()
                    .map(|w| {
                        w.to_numbers()
                            .split_whitespace()
                            .filter_map(|n| n.parse().ok())
                            .collect()
                    })
                    .collect();
                v["wells"] = wells.into();
            }
            Some(format) => {
                v["replay"] = replay::encode(&kf.keys, format).into();
                v["format"] = clap::ValueEnum::to_possible_value(&a.format)
                    .map(|p| p.get_name().to_string())
                    .into();
            }
        }
        outln!(out, "{v}")?;
        return Ok(());
    }
    match format {
        None => {
            for w in &kf.wells {
                outln!(out, "{}", w.to_numbers())?;
            }
        }
        Some(format) => outln!(out, "{}", replay::encode(&kf.keys, format))?,
    }
    Ok(())
}

/// A duration for a person: "2.4s" under a minute, then indicatif's
/// words ("3 minutes", "2 days"), which multi-day runs need more than a
/// count of seconds.
pub(crate) fn human_seconds(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return "?".to_string();
    }
    if seconds < 60.0 {
        return format!("{seconds:.1}s");
    }
    indicatif::HumanDuration(std::time::Duration::from_secs_f64(seconds)).to_string()
}

/// The game's keys, and those the replay holds when its encoding pads
/// them (Base2048 may add one), which `replay score` counts: "1414 keys,
/// 1415 in the replay".
fn keys_words(played: usize, in_replay: usize) -> String {
    match in_replay == played {
        true => counted(played, "key"),
        false => format!("{}, {in_replay} in the replay", counted(played, "key")),
    }
}

/// "1 thread", "8 threads".
pub(crate) fn threads_word(t: usize) -> String {
    counted(t, "thread")
}

/// `n` and `unit`, plural unless `n` is 1: "1 worker", "2 workers".
pub(crate) fn counted(n: usize, unit: &str) -> String {
    match n {
        1 => format!("1 {unit}"),
        n => format!("{n} {unit}s"),
    }
}
