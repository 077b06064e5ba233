//! The CMA-ES driver: the tuner's loop over generations of candidates.
//!
//! CMA-ES (the `cmaes` crate) over the named weights, each in units of
//! [`UNIT`](super::UNIT) (the 86-record weights' common magnitude), so one step size
//! fits them all; the other weights stay at the start's values. Or, in a
//! folder that tunes a net, over the net's named terms, each in its own
//! unit ([`super::net`]). The
//! candidates of a generation are measured in parallel on the tuner's
//! rayon pool, one single-threaded beam per candidate and start.
//!
//! A killed tuner resumes by running CMA-ES again from the same seed:
//! every candidate it asks for again is found in the [`Book`] (by its
//! exact bits) and not measured again, so it goes on where it stopped and
//! ends with the same weights as a tuner never stopped.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use cmaes::{CMAESOptions, DVector};

use crate::evaluate::Evaluator;
use crate::folder::FolderLock;
use crate::heuristic::Knewjade;
use crate::nnue::Net;

use super::folder::{settle_settings, write_best, write_session, Book};
use super::{plot, reference_game, Evaluation, Fitness, TuneError, TuneSettings};

/// Hears of a tuner's progress; the library prints nothing.
pub trait TuneObserver: Sync {
    /// The reference game is ready: its length.
    fn reference(&self, pieces: usize) {
        let _ = pieces;
    }
    /// An evaluation finished (`fresh`: measured now, not read back from
    /// the log); `done` of `budget` evaluations are behind us.
    fn evaluated(&self, e: &Evaluation, fresh: bool, done: usize, budget: usize) {
        let _ = (e, fresh, done, budget);
    }
}

/// What a tuning run ended with.
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The start weights' evaluation.
    pub start: Evaluation,
    /// The best evaluation (the highest mean; ties: the earliest).
    pub best: Evaluation,
    /// Evaluations in the log.
    pub evaluations: usize,
    /// Why CMA-ES stopped.
    pub stopped: String,
    /// CMA-ES's mean after the last whole generation (the start point if
    /// none was), written as `mean.toml`, or `mean.f32` and `mean.nnue`.
    /// With a noisy fitness the best evaluation is partly the luckiest
    /// draw of many; the mean averages over a generation's best half.
    pub mean: Vec<f64>,
}

/// Why CMA-ES stopped, in words ("the step size became too small").
fn stop_reasons(reasons: &[cmaes::TerminationReason]) -> String {
    use cmaes::TerminationReason as R;
    let words: Vec<String> = reasons
        .iter()
        .map(|r| match r {
            R::MaxFunctionEvals => "the budget".to_string(),
            R::MaxGenerations => "the most generations".to_string(),
            R::TolX => "the steps became too small to matter (tol_x)".to_string(),
            R::TolXUp => "the step size grew without bound (tol_x_up)".to_string(),
            R::TolConditionCov => "the search's shape degenerated (tol_condition_cov)".to_string(),
            R::NoEffectAxis | R::NoEffectCoord => {
                "a step no longer changes the weights".to_string()
            }
            R::InvalidFunctionValue => "a fitness that is not a number".to_string(),
            other => format!("{other}"),
        })
        .collect();
    words.join(", ")
}

/// The start net of a folder that tunes one: the one given, kept in a new
/// folder as `start.f32`, or the folder's copy, checked against the digest
/// the settings record.
fn start_net(
    dir: &Path,
    settings: &TuneSettings,
    given: Option<&Net>,
) -> Result<Option<Net>, TuneError> {
    let Some(digest) = &settings.net else {
        return Ok(None);
    };
    let path = super::net::start_path(dir);
    if !path.exists() {
        match given {
            Some(net) => net.save(&path)?,
            None => {
                return Err(TuneError::Config(format!(
                    "{}: missing (the folder tunes a net and keeps its start there)",
                    path.display()
                )))
            }
        }
    }
    Ok(Some(super::net::read_start(dir, digest)?))
}

/// Runs (or resumes) the tuner in `dir` until `budget` evaluations (the
/// start weights' included) are in its log: exactly that many, unless
/// CMA-ES stops first.
///
/// `net`: the start net of a new folder that tunes a net (`settings.net`
/// holds its digest); a resumed folder reads its own copy.
pub fn tune(
    dir: &Path,
    settings: &TuneSettings,
    net: Option<&Net>,
    budget: usize,
    threads: usize,
    observer: &dyn TuneObserver,
) -> Result<Tuned, TuneError> {
    crate::folder::refuse_other(dir, crate::folder::Holds::Tuning)?;
    // Checked before anything is written (a resumed net folder's terms are
    // checked against its own net below).
    if settings.net.is_none() || net.is_some() {
        settings.check(net)?;
    }
    let _lock = FolderLock::take(dir)?;
    let start_net = start_net(dir, settings, net)?;
    let start_net = start_net.as_ref();
    settings.check(start_net)?;
    settle_settings(dir, settings)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TuneError::Config(format!("cannot start {threads} threads: {e}")))?;
    let quiescent = settings.fitness.quiescent;
    let start_eval: Box<dyn Evaluator + Send> = match start_net {
        Some(n) => super::net::evaluator_of(n, quiescent)?,
        None => Box::new(Knewjade::new(settings.initial, quiescent)),
    };
    let fitness = match settings.fitness.suite {
        // A suite's positions need no reference game.
        Some(_) => Fitness::of_suite(settings.fitness.clone())?,
        None => {
            let game = reference_game(
                &dir.join("reference"),
                &*start_eval,
                settings.fitness.width,
                threads,
            )?;
            observer.reference(game.len() - 1);
            Fitness::new(settings.fitness.clone(), &game)?
        }
    };
    let book = Book::open(dir)?;
    write_session(dir, budget, book.len())?;
    let book = Mutex::new(book);
    let lock = || book.lock().expect("not poisoned");
    let generation = AtomicUsize::new(0);
    let failure: Mutex<Option<TuneError>> = Mutex::new(None);
    let fail = |err: TuneError| *failure.lock().expect("not poisoned") = Some(err);
    let evaluate = |x: &[f64], generation: usize| -> Evaluation {
        if let Some(e) = lock().get(x) {
            return e.clone();
        }
        let clock = Instant::now();
        let (weights, net, measured) = match start_net {
            None => {
                let w = settings.weights_at(x);
                (Some(w), None, fitness.measure(&w))
            }
            Some(start) => {
                let n = super::net::at(start, &settings.terms, x);
                let measured = match super::net::evaluator_of(&n, quiescent) {
                    Ok(e) => fitness.measure_evaluator(&*e),
                    Err(err) => {
                        fail(err);
                        fitness.nothing()
                    }
                };
                (None, Some(n), measured)
            }
        };
        let mut b = lock();
        let e = Evaluation {
            index: b.next_index,
            generation,
            x: x.to_vec(),
            weights,
            measured,
            seconds: clock.elapsed().as_secs_f64(),
        };
        if e.measured.per_start.is_empty() {
            // Not measured (the tuner stops on its error): not logged.
            return e;
        }
        b.next_index += 1;
        let improved = b.improves(&e);
        if let Err(err) = b.add(&e) {
            fail(err.into());
        }
        if improved {
            if let Err(err) = write_best(dir, &e, net.as_ref(), settings.fitness.unit()) {
                fail(err);
            }
        }
        // The picture after every evaluation (a few milliseconds), so it
        // is current whenever the tuner is stopped.
        if let Err(err) = plot::draw(dir) {
            fail(err);
        }
        e
    };
    // The start weights first: the "before" of the note.
    let x0 = settings.start_point(start_net);
    let start = pool.install(|| evaluate(&x0, 0));
    observer.evaluated(&start, true, lock().len(), budget);
    let objective = |x: &DVector<f64>| -> f64 {
        let g = generation.load(Ordering::Relaxed);
        let known = lock().get(x.as_slice()).is_some();
        if !known && lock().len() >= budget {
            // Past the budget, in the generation that crosses it (whose
            // candidates run in order, see below): not measured, not
            // logged; the tuner stops after this generation.
            return f64::MAX;
        }
        let e = evaluate(x.as_slice(), g);
        observer.evaluated(&e, !known, lock().len(), budget);
        -e.measured.mean
    };
    let mut options = CMAESOptions::new(x0.clone(), settings.sigma)
        .seed(settings.seed)
        .max_function_evals(budget.saturating_sub(1).max(1))
        .tol_fun(0.0)
        .tol_fun_hist(0.0)
        .tol_fun_rel(0.0)
        .tol_stagnation(usize::MAX / 2);
    if let Some(p) = settings.population {
        options = options.population_size(p);
    }
    let mut cmaes = options.build(objective).map_err(|e| {
        use cmaes::options::InvalidOptionsError as E;
        TuneError::Config(match e {
            E::PopulationSize => "--population must be at least 2".to_string(),
            E::InitialStepSize => "--sigma must be a positive number".to_string(),
            E::Dimensions => "--terms names no weight to tune".to_string(),
            E::Cm => "CMA-ES's learning rate is out of range".to_string(),
        })
    })?;
    let lambda = cmaes.parameters().lambda();
    let mut mean = x0.clone();
    let stopped = loop {
        generation.store(cmaes.generation() + 1, Ordering::Relaxed);
        // The budget is exact: a generation that would take the log past it
        // measures its candidates one at a time, in order, so those measured
        // are its first ones whatever the threads' timing (a resume with
        // the same budget measures the same, one with a larger budget goes
        // on from them), each on every thread.
        let whole = lock().len() + lambda <= budget;
        let step = pool.install(|| match whole {
            true => cmaes.next_parallel(),
            false => cmaes.next(),
        });
        if let Some(err) = failure.lock().expect("not poisoned").take() {
            return Err(err);
        }
        if whole {
            mean = cmaes.mean().as_slice().to_vec();
        }
        if let Some(t) = step {
            break stop_reasons(&t.reasons);
        }
        if lock().len() >= budget {
            break "the budget".to_string();
        }
    };
    drop(cmaes);
    super::folder::write_mean(dir, settings, start_net, &mean)?;
    plot::draw(dir)?;
    let b = book.into_inner().expect("not poisoned");
    let best = b.best.clone().expect("the start was measured");
    Ok(Tuned {
        start,
        best,
        evaluations: b.len(),
        stopped,
        mean,
    })
}
