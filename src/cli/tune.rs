//! `hatetris tune` and `hatetris compare`: the tuner's command line, its
//! progress bar, and the side-by-side fitness table of weights files and
//! nets.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{bail, Context, Result};

use hatetris::evaluate::Evaluator;
use hatetris::heuristic::{Knewjade, Weights, WEIGHT_NAMES};
use hatetris::launch::{self, EvaluatorSpec};
use hatetris::nnue::Net;
use hatetris::stats::{mean_sd, Divisor};
use hatetris::strength::Embedded;
use hatetris::tune::{
    self, Evaluation, Fitness, FitnessBeam, FitnessSettings, TuneObserver, TuneSettings,
};

use super::args::{CompareArgs, Contender, FitnessArgs, TuneArgs};
use super::input::decode_replay;
use super::outln;
use super::progress::Bar;
use super::search::{check_beams, threads_arg};

const DEFAULT_WIDTH: usize = 10_000;
const DEFAULT_STARTS: usize = 4;
/// `bench strength`'s width, for `tune --suite`.
const DEFAULT_SUITE_WIDTH: usize = 300;
/// Until the beam dies, in practice: a short window misled the tuner (see
/// `hatetris::tune`'s doc).
const DEFAULT_PIECES: u32 = 10_000;
const DEFAULT_BUDGET: usize = 200;
const DEFAULT_SIGMA: f64 = 0.3;
/// A net's terms are in units of their root mean square: a tenth of it is
/// already a real change to every hidden unit's say.
const DEFAULT_NET_SIGMA: f64 = 0.1;

/// The fitness's settings from the command line; with `suite` (`tune
/// --suite`), its positions are the starts, its cap the pieces, and the
/// width that of `bench strength`.
fn fitness_settings(a: &FitnessArgs, suite: Option<Embedded>) -> Result<FitnessSettings> {
    let Some(suite) = suite else {
        return Ok(FitnessSettings {
            width: a.width.unwrap_or(DEFAULT_WIDTH),
            quiescent: a.quiescent.depth,
            pieces: a.pieces.unwrap_or(DEFAULT_PIECES),
            starts: a.starts.unwrap_or(DEFAULT_STARTS),
            beam: FitnessBeam::Search,
            jitter: a.jitter.unwrap_or(1),
            suite: None,
        });
    };
    if a.starts.is_some() {
        bail!("--starts takes start wells from a reference game; with --suite the starts are the suite's positions");
    }
    if a.pieces.is_some_and(|p| p > suite.cap) {
        bail!(
            "--pieces must be at most the suite's cap ({} pieces)",
            suite.cap
        );
    }
    Ok(FitnessSettings {
        width: a.width.unwrap_or(DEFAULT_SUITE_WIDTH),
        quiescent: a.quiescent.depth,
        pieces: a.pieces.unwrap_or(suite.cap),
        starts: suite.games.iter().map(|g| g.starts.len()).sum(),
        beam: FitnessBeam::Search,
        jitter: a.jitter.unwrap_or(1),
        suite: Some(suite),
    })
}

fn check_fitness(f: &FitnessSettings) -> Result<()> {
    if f.width == 0 || f.starts == 0 || f.pieces == 0 || f.jitter == 0 {
        bail!("--width, --starts, --pieces and --jitter must be at least 1");
    }
    Ok(())
}

/// The tuner's observer: a bar over the budget, with the best so far.
struct TuneProgress {
    bar: Bar,
    best: Mutex<f64>,
    /// What the fitness counts ([`FitnessSettings::unit`]).
    unit: &'static str,
}

impl TuneObserver for TuneProgress {
    fn reference(&self, pieces: usize) {
        self.bar.say(format!("reference game: {pieces} pieces"));
    }

    fn evaluated(&self, e: &Evaluation, fresh: bool, done: usize, budget: usize) {
        let mut best = self.best.lock().unwrap_or_else(|p| p.into_inner());
        *best = best.max(e.measured.mean);
        let bar = self.bar.get();
        bar.set_length(budget as u64);
        bar.set_position(done as u64);
        if !fresh {
            // Read back from the log: not part of the ETA's pace.
            bar.reset_eta();
        }
        bar.set_message(format!(
            "generation {} · last {:.2} · best {:.2} {}",
            e.generation, e.measured.mean, *best, self.unit
        ));
        drop(bar);
        if fresh {
            self.bar.log(format!(
                "evaluation {done} of {budget} (generation {}): {:.2} {unit} in {}; best {:.2} {unit}",
                e.generation,
                e.measured.mean,
                super::search::human_seconds(e.seconds),
                *best,
                unit = self.unit
            ));
        }
    }
}

pub fn tune(a: TuneArgs, out: &mut dyn Write) -> Result<()> {
    // (The library refuses it too; here it comes before any line.)
    hatetris::folder::refuse_other(&a.dir, hatetris::folder::Holds::Tuning)?;
    let threads = threads_arg(a.fitness.threads)?;
    let spath = tune::settings_path(&a.dir);
    let settings = if spath.exists() {
        let text = std::fs::read_to_string(&spath)
            .with_context(|| format!("{}: cannot read", spath.display()))?;
        let s: TuneSettings = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a tuning folder's settings", spath.display()))?;
        let f = &a.fitness;
        let changed = f.width.is_some_and(|w| w != s.fitness.width)
            || f.quiescent
                .depth
                .is_some_and(|q| Some(q) != s.fitness.quiescent)
            || f.starts.is_some_and(|v| v != s.fitness.starts)
            || f.pieces.is_some_and(|v| v != s.fitness.pieces)
            || a.sigma.is_some_and(|v| v != s.sigma)
            || a.seed.is_some_and(|v| v != s.seed)
            || a.population.is_some_and(|v| Some(v) != s.population)
            || a.terms.as_ref().is_some_and(|t| *t != s.terms)
            || a.weights.is_some()
            || a.net.is_some()
            || a.suite.is_some();
        if changed {
            bail!(
                "{} is a tuning folder already: it goes on with its own settings ({}); only --budget and --threads may be given",
                a.dir.display(),
                spath.display()
            );
        }
        (s, None)
    } else {
        let suite = match &a.suite {
            Some(path) => {
                let suite = Embedded::read(path)?;
                // Every start a live position of its game, before the
                // folder is made.
                suite.suite()?;
                Some(suite)
            }
            None => None,
        };
        let fitness = fitness_settings(&a.fitness, suite)?;
        check_fitness(&fitness)?;
        let net = match &a.net {
            Some(path) => {
                let bytes = std::fs::read(path)
                    .with_context(|| format!("{}: cannot read", path.display()))?;
                let net = Net::from_bytes(&bytes).with_context(|| {
                    format!(
                        "{}: not a training net (--net takes the .f32 file `train` writes beside each net.nnue)",
                        path.display()
                    )
                })?;
                if fitness.jitter > 1 {
                    bail!("--jitter moves a weights file's weights; it does not apply to --net");
                }
                Some((net, tune::net::digest(&bytes)))
            }
            None => None,
        };
        let terms = match (&a.terms, &net) {
            (Some(t), _) => t.clone(),
            (None, Some((net, _))) => tune::net::default_terms(net),
            (None, None) => WEIGHT_NAMES.iter().map(|s| s.to_string()).collect(),
        };
        if a.sigma.is_some_and(|v| !(v.is_finite() && v > 0.0)) {
            bail!("--sigma must be a positive number");
        }
        if a.population.is_some_and(|p| p < 2) {
            bail!("--population must be at least 2");
        }
        let settings = TuneSettings {
            fitness,
            terms,
            initial: launch::weights_or_default(a.weights.as_deref())?,
            sigma: a.sigma.unwrap_or(match net {
                Some(_) => DEFAULT_NET_SIGMA,
                None => DEFAULT_SIGMA,
            }),
            population: a.population,
            seed: a.seed.unwrap_or(1),
            net: net.as_ref().map(|(_, digest)| digest.clone()),
        };
        (settings, net.map(|(n, _)| n))
    };
    let (settings, net) = settings;
    check_beams(settings.fitness.width, threads, a.fitness.force)?;
    let budget = a.budget.unwrap_or(DEFAULT_BUDGET);
    if budget < 2 {
        bail!("--budget must be at least 2 (the start weights and one candidate)");
    }
    super::interrupt::exit_at_once(format!(
        "interrupted: {} keeps every finished evaluation; to go on, run the same command: {}",
        a.dir.display(),
        super::interrupt::same_command()
    ))?;
    let progress = TuneProgress {
        bar: Bar::new(a.quiet),
        best: Mutex::new(f64::NEG_INFINITY),
        unit: settings.fitness.unit(),
    };
    progress.bar.start(
        budget as u64,
        "{elapsed_precise} [{bar:30}] {pos}/{len} evaluations, ETA {eta} · {msg}",
        match settings.fitness.suite {
            Some(_) => "measuring the start",
            None => "playing the reference game",
        },
    );
    let tuned = tune::tune(&a.dir, &settings, net.as_ref(), budget, threads, &progress)?;
    progress.bar.clear();
    let show = |e: &Evaluation| {
        let each: Vec<String> = e
            .measured
            .per_start
            .iter()
            .map(|r| settings.fitness.of(r).to_string())
            .collect();
        format!(
            "{:.2} {} (sd {:.2}; per start {})",
            e.measured.mean,
            settings.fitness.unit(),
            e.measured.sd,
            each.join(" ")
        )
    };
    let (best_path, flag, key) = match settings.net {
        Some(_) => (tune::net::best_paths(&a.dir).1, "net", "best_net"),
        None => (tune::best_path(&a.dir), "weights", "best_weights"),
    };
    let what = format!("best {flag}: {}", best_path.display());
    let mean_path = match settings.net {
        Some(_) => tune::net::mean_paths(&a.dir).1,
        None => tune::mean_path(&a.dir),
    };
    let lines = [
        format!(
            "{} {}",
            if flag == "net" {
                "start net:    "
            } else {
                "start weights:"
            },
            show(&tuned.start)
        ),
        format!(
            "best:          {} at evaluation {}",
            show(&tuned.best),
            tuned.best.index
        ),
        format!(
            "{} evaluations; CMA-ES stopped: {}",
            tuned.evaluations, tuned.stopped
        ),
        format!(
            "{} (search with --{} {}{})",
            what,
            flag,
            best_path.display(),
            match settings.fitness.quiescent {
                Some(q) => format!(" --quiescent {q}"),
                None => String::new(),
            }
        ),
        format!(
            "mean {flag}: {} (CMA-ES's mean after its last whole generation; not itself measured: the best is partly the luckiest of many draws, so judge both, e.g. with `hatetris bench strength`)",
            mean_path.display()
        ),
    ];
    if a.json {
        // The JSON alone on standard output, the lines on standard error.
        for line in lines.iter().filter(|_| !a.quiet) {
            super::note!("{line}");
        }
        let summary = |e: &tune::Evaluation| {
            serde_json::json!({
                "evaluation": e.index,
                "generation": e.generation,
                "mean": e.measured.mean,
                "sd": e.measured.sd,
                "lines": e.measured.per_start.iter().map(|r| r.lines).collect::<Vec<_>>(),
                "pieces": e.measured.per_start.iter().map(|r| r.pieces).collect::<Vec<_>>(),
            })
        };
        outln!(
            out,
            "{}",
            serde_json::json!({
                "start": summary(&tuned.start),
                "best": summary(&tuned.best),
                "evaluations": tuned.evaluations,
                "stopped": tuned.stopped,
                key: best_path.display().to_string(),
                format!("mean_{flag}"): mean_path.display().to_string(),
            })
        )?;
    } else {
        for line in &lines {
            outln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// One evaluator's line of `compare`.
#[derive(serde::Serialize)]
struct Row {
    #[serde(skip_serializing_if = "Option::is_none")]
    weights: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    net: Option<PathBuf>,
    lines: Vec<u32>,
    pieces: Vec<u32>,
    mean: f64,
    sd: f64,
    /// Mean of (this − baseline) over the starts, and its standard error.
    difference: f64,
    difference_se: f64,
}

/// A contender of `compare`, loaded: weights (measured with their jitter
/// copies) or any other evaluator (a net, with or without the lookahead).
enum Loaded {
    Weights(Weights),
    Evaluator(Box<dyn Evaluator + Send>),
}

impl Loaded {
    fn load(c: &Contender, quiescent: Option<u8>) -> Result<Loaded> {
        Ok(match c {
            Contender::Weights(p) => Loaded::Weights(launch::read_weights(p)?),
            Contender::Net(p) => Loaded::Evaluator(
                EvaluatorSpec {
                    net: Some(p.clone()),
                    weights: None,
                    quiescent,
                    chain_step_cost: 0.0,
                }
                .build()?,
            ),
        })
    }

    fn path(c: &Contender) -> &Path {
        match c {
            Contender::Weights(p) | Contender::Net(p) => p,
        }
    }
}

pub fn compare(a: CompareArgs, out: &mut dyn Write) -> Result<()> {
    let contenders = &a.contenders.0;
    if contenders.len() < 2 {
        bail!("give --weights or --net at least twice in all: the baseline and what to compare with it");
    }
    let threads = threads_arg(a.fitness.threads)?;
    let settings = fitness_settings(&a.fitness, None)?;
    check_fitness(&settings)?;
    check_beams(settings.width, threads, a.fitness.force)?;
    let has_net = contenders.iter().any(|c| matches!(c, Contender::Net(_)));
    if has_net && settings.jitter > 1 {
        bail!("--jitter moves a weights file's weights; it does not apply to --net");
    }
    let all: Vec<Loaded> = contenders
        .iter()
        .map(|c| Loaded::load(c, settings.quiescent))
        .collect::<Result<_>>()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the threads")?;
    super::interrupt::exit_at_once(match &a.reference_dir {
        Some(dir) => format!(
            "interrupted: {} keeps the reference game so far; the same command goes on: {}",
            dir.display(),
            super::interrupt::same_command()
        ),
        None => {
            "interrupted: nothing is kept (the temporary reference game is removed)".to_string()
        }
    })?;
    let bar = Bar::new(a.quiet);
    let game = match &a.reference {
        Some(path) => {
            let keys = decode_replay(path)?;
            tune::wells_of(&keys)
        }
        None => {
            let temp = match &a.reference_dir {
                Some(_) => None,
                None => Some(super::interrupt::temporary_dir("compare")?),
            };
            let dir = match (&a.reference_dir, &temp) {
                (Some(d), _) => d.clone(),
                (None, Some(t)) => t.path().to_path_buf(),
                (None, None) => unreachable!("a temporary folder is made when none is given"),
            };
            let heuristic;
            let baseline: &dyn Evaluator = match &all[0] {
                Loaded::Weights(w) => {
                    heuristic = Knewjade::new(*w, settings.quiescent);
                    &heuristic
                }
                Loaded::Evaluator(e) => &**e,
            };
            bar.say("playing the reference game (the baseline's)");
            let game = tune::reference_game(&dir, baseline, settings.width, threads)?;
            bar.say(format!("reference game: {} pieces", game.len() - 1));
            game
        }
    };
    let fitness = Fitness::new(settings.clone(), &game)?;
    bar.start(
        contenders.len() as u64,
        "{elapsed_precise} [{bar:30}] {pos}/{len} contenders · {msg}",
        "",
    );
    let n = contenders.len();
    let measured: Vec<_> = all
        .iter()
        .zip(contenders)
        .enumerate()
        .map(|(i, (l, c))| {
            let path = Loaded::path(c).display();
            bar.get().set_message(format!("measuring {path}"));
            bar.log(format!("contender {} of {n}: {path} started", i + 1));
            let clock = std::time::Instant::now();
            let m = pool.install(|| match l {
                Loaded::Weights(w) => fitness.measure(w),
                Loaded::Evaluator(e) => fitness.measure_evaluator(&**e),
            });
            bar.say(format!(
                "contender {} of {n}: {path} finished: {:.2} lines (sd {:.2}) in {}",
                i + 1,
                m.mean,
                m.sd,
                super::search::human_seconds(clock.elapsed().as_secs_f64())
            ));
            bar.inc(1);
            m
        })
        .collect();
    bar.clear();
    let base: Vec<f64> = measured[0]
        .per_start
        .iter()
        .map(|r| r.lines as f64)
        .collect();
    let rows: Vec<Row> = contenders
        .iter()
        .zip(&measured)
        .map(|(c, m)| {
            let diffs: Vec<f64> = m
                .per_start
                .iter()
                .zip(&base)
                .map(|(r, b)| r.lines as f64 - b)
                .collect();
            let (difference, sd) = mean_sd(&diffs, Divisor::Sample);
            let (weights, net) = match c {
                Contender::Weights(p) => (Some(p.clone()), None),
                Contender::Net(p) => (None, Some(p.clone())),
            };
            Row {
                weights,
                net,
                lines: m.per_start.iter().map(|r| r.lines).collect(),
                pieces: m.per_start.iter().map(|r| r.pieces).collect(),
                mean: m.mean,
                sd: m.sd,
                difference,
                difference_se: sd / (diffs.len() as f64).sqrt(),
            }
        })
        .collect();
    if a.json {
        let depths: Vec<u32> = fitness.starts.depths();
        let value = serde_json::json!({
            "settings": settings,
            "reference_pieces": game.len() - 1,
            "start_depths": depths,
            "rows": rows,
        });
        outln!(out, "{}", serde_json::to_string(&value)?)?;
        return Ok(());
    }
    let depths: Vec<String> = fitness.starts.depths().iter().map(u32::to_string).collect();
    outln!(
        out,
        "width {}{}, {} pieces from each of {} start wells (depths {} of a {}-piece reference game)",
        settings.width,
        match settings.quiescent {
            Some(q) => format!(" --quiescent {q}"),
            None => String::new(),
        },
        settings.pieces,
        settings.starts,
        depths.join(", "),
        game.len() - 1
    )?;
    for (r, c) in rows.iter().zip(contenders) {
        let lines: Vec<String> = r.lines.iter().map(|l| l.to_string()).collect();
        outln!(
            out,
            "{:>8.2} lines (sd {:5.2})  vs baseline {:+.2} ± {:.2}  per start [{}]  {}",
            r.mean,
            r.sd,
            r.difference,
            r.difference_se,
            lines.join(" "),
            Loaded::path(c).display()
        )?;
    }
    outln!(
        out,
        "(± is the standard error of the paired difference over the starts; a gain under about twice it is noise)"
    )?;
    Ok(())
}
