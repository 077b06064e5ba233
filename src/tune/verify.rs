//! Checking a whole tuning folder (`hatetris verify DIR` on a tuning
//! folder): every line of the evaluations log, the best weights against
//! the log, and the reference game's run folder, reported as a list of
//! problems rather than stopping at the first.
//!
//! Each evaluation must be numbered in order, its weights must be exactly
//! the settings' weights at its point (what the resumed tuner would
//! measure), and its mean that of its starts' lines (with a suite, their
//! pieces survived). The best (the highest
//! mean, the earliest of a tie) must be what `best.json` holds and
//! `best.toml` reads as; a folder that tunes a net keeps its start net
//! (checked against the settings' digest), and `best.f32` must be that
//! net at the best point and `best.nnue` its quantisation. The reference game's folder passes the
//! run check ([`crate::search::verify`]). A torn last line of the log is a
//! note: the next tuner rewrites the log without it.

use std::path::Path;

use super::folder::{log_path, Evaluation};
use super::{best_path, settings_path, TuneError, TuneSettings};
use crate::folder::json;
use crate::heuristic::Weights;
use crate::nnue::{Net, QuantNet};
use crate::stats::{mean_sd, Divisor};

/// What [`verify`] found.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// Evaluations in the log.
    pub evaluations: usize,
    /// What is wrong.
    pub problems: Vec<String>,
    /// What is odd but harmless.
    pub notes: Vec<String>,
}

impl Findings {
    /// Whether nothing is wrong.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Checks the tuning folder `dir`. Only a folder without readable
/// settings is an `Err`; everything else is in the findings.
pub fn verify(dir: &Path) -> Result<Findings, TuneError> {
    let spath = settings_path(dir);
    let settings: TuneSettings = json::read(&spath)?
        .ok_or_else(|| TuneError::Config(format!("{}: not a tuning folder", spath.display())))?;
    let mut found = Findings::default();
    // A folder that tunes a net: its start net, checked against the
    // settings' digest.
    let start = match &settings.net {
        None => None,
        Some(digest) => match super::net::read_start(dir, digest) {
            Ok(net) => Some(net),
            Err(e) => {
                found.problems.push(e.to_string());
                return Ok(found);
            }
        },
    };
    let lpath = log_path(dir);
    let text = match std::fs::read_to_string(&lpath) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            found.problems.push(format!("{}: {e}", lpath.display()));
            return Ok(found);
        }
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut best: Option<Evaluation> = None;
    for (i, line) in lines.iter().enumerate() {
        let e: Evaluation = match serde_json::from_str(line) {
            Ok(e) => e,
            Err(_) if i + 1 == lines.len() && !line.ends_with('\n') => {
                found.notes.push(format!(
                    "{}: a torn last line (the next tuner drops it)",
                    lpath.display()
                ));
                break;
            }
            Err(err) => {
                found
                    .problems
                    .push(format!("{} line {}: {err}", lpath.display(), i + 1));
                continue;
            }
        };
        check_evaluation(i, &e, &settings, start.is_some(), &mut found);
        found.evaluations += 1;
        if best
            .as_ref()
            .is_none_or(|b| e.measured.mean > b.measured.mean)
        {
            best = Some(e);
        }
    }
    if let Some(best) = &best {
        match &start {
            None => check_best(dir, best, &mut found.problems),
            Some(net) => check_best_net(dir, best, net, &settings, &mut found.problems),
        }
        check_best_json(dir, best, &mut found.problems);
    }
    let reference = dir.join("reference");
    if reference.join("manifest.json").exists() {
        match crate::search::verify(&reference) {
            Ok(f) => found.problems.extend(
                f.problems
                    .into_iter()
                    .map(|p| format!("reference game: {p}")),
            ),
            Err(e) => found.problems.push(format!("reference game: {e}")),
        }
    }
    Ok(found)
}

fn check_evaluation(
    i: usize,
    e: &Evaluation,
    settings: &TuneSettings,
    tunes_net: bool,
    found: &mut Findings,
) {
    let mut problem = |what: String| found.problems.push(format!("evaluation {i}: {what}"));
    if e.index != i {
        problem(format!("numbered {}", e.index));
    }
    if e.x.len() != settings.terms.len() {
        problem(format!(
            "a point of {} values for {} tuned terms",
            e.x.len(),
            settings.terms.len()
        ));
    } else if tunes_net {
        if e.weights.is_some() {
            problem("weights in a folder that tunes a net".into());
        }
    } else if let Some(weights) = &e.weights {
        let at = settings.weights_at(&e.x);
        if !same_bits(weights, &at) {
            match close(weights, &at) {
                // Tuners before the start point was made exact computed
                // its weights as `(w / UNIT) * UNIT`, an ulp off.
                true => found.notes.push(format!(
                    "evaluation {i}: its weights are the settings' at its point but for rounding (a folder from before exact start weights)"
                )),
                false => problem("its weights are not the settings' weights at its point".into()),
            }
        }
    } else {
        problem("no weights".into());
    }
    let mut problem = |what: String| found.problems.push(format!("evaluation {i}: {what}"));
    let each: Vec<f64> = e
        .measured
        .per_start
        .iter()
        .map(|r| f64::from(settings.fitness.of(r)))
        .collect();
    let (mean, _) = mean_sd(&each, Divisor::Sample);
    if each.is_empty() || mean.to_bits() != e.measured.mean.to_bits() {
        problem(format!(
            "its mean, {}, is not its starts' mean, {mean}",
            e.measured.mean
        ));
    }
}

fn same_bits(a: &Weights, b: &Weights) -> bool {
    crate::heuristic::WEIGHT_NAMES.iter().all(|n| {
        let (x, y) = (a.get(n).expect("a name"), b.get(n).expect("a name"));
        x.to_bits() == y.to_bits()
    })
}

/// Equal to within a few ulps.
fn close(a: &Weights, b: &Weights) -> bool {
    crate::heuristic::WEIGHT_NAMES.iter().all(|n| {
        let (x, y) = (a.get(n).expect("a name"), b.get(n).expect("a name"));
        (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
    })
}

fn check_best_json(dir: &Path, best: &Evaluation, problems: &mut Vec<String>) {
    match json::read::<Evaluation>(&dir.join("best.json")) {
        Ok(Some(b)) if b.index != best.index => problems.push(format!(
            "best.json holds evaluation {}, the log's best is evaluation {}",
            b.index, best.index
        )),
        Ok(Some(_)) => {}
        Ok(None) => problems.push("no best.json, though the log has evaluations".into()),
        Err(e) => problems.push(e.to_string()),
    }
}

/// The best net's files against the best evaluation's net.
fn check_best_net(
    dir: &Path,
    best: &Evaluation,
    start: &Net,
    settings: &TuneSettings,
    problems: &mut Vec<String>,
) {
    if best.x.len() != settings.terms.len() {
        return;
    }
    let want = super::net::at(start, &settings.terms, &best.x);
    let (f32_path, nnue_path) = super::net::best_paths(dir);
    match std::fs::read(&f32_path) {
        Ok(bytes) if bytes != want.to_bytes() => problems.push(format!(
            "{} does not hold the best evaluation's net",
            f32_path.display()
        )),
        Ok(_) => {}
        Err(e) => problems.push(format!("{}: {e}", f32_path.display())),
    }
    match (std::fs::read(&nnue_path), QuantNet::from_net(&want)) {
        (Ok(bytes), Ok(q)) if bytes != q.to_bytes() => problems.push(format!(
            "{} is not the best net's quantisation",
            nnue_path.display()
        )),
        (Ok(_), Ok(_)) => {}
        (Err(e), _) => problems.push(format!("{}: {e}", nnue_path.display())),
        (_, Err(e)) => problems.push(format!("the best net does not quantise: {e}")),
    }
}

fn check_best(dir: &Path, best: &Evaluation, problems: &mut Vec<String>) {
    let Some(weights) = &best.weights else {
        return;
    };
    let path = best_path(dir);
    match Weights::load(&path) {
        Ok(w) if !same_bits(&w, weights) => problems.push(format!(
            "{} does not hold the best evaluation's weights",
            path.display()
        )),
        Ok(_) => {}
        Err(e) => problems.push(format!("{}: {e}", path.display())),
    }
}
