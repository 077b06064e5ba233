//! A net as the tuner's subject (`tune --net FILE.f32`): its output layer
//! and its line weight, tuned by CMA-ES on the game's outcome through the
//! same fitness as weights.
//!
//! Why the output layer: a net is fitted to targets from short training
//! beams, not to how long a search with it lives; the output layer (one
//! weight per hidden unit, 32 to 64 of them) decides how the hidden
//! features are traded against each other, few enough dimensions for
//! CMA-ES, and re-quantising a candidate costs next to nothing. The first
//! layer (5,120 rows of H) is left alone. The output bias is not a term: it
//! shifts every value alike and changes no ranking. Scaling every output
//! weight and the line weight together changes no ranking either, so the
//! default terms are the output weights alone, the line weight fixed.
//!
//! Terms are named `out.K` (hidden unit K) and `line_weight`. Each is
//! measured in its own unit so that one CMA-ES step size fits them all:
//! the output weights' root mean square for `out.K`, the line weight's
//! magnitude for `line_weight`. The folder keeps the start net as
//! `start.f32`, so it alone is enough to resume.

use std::path::{Path, PathBuf};

use crate::evaluate::Evaluator;
use crate::launch::{evaluator, Ranker};
use crate::nnue::{Net, NetEvaluator, QuantNet};

use super::TuneError;

/// The start net's file in a tuning folder.
pub fn start_path(dir: &Path) -> PathBuf {
    dir.join("start.f32")
}

/// The digest a tuning folder records of its start net's file.
pub fn digest(bytes: &[u8]) -> String {
    format!(
        "{:016x}",
        crate::folder::fnv1a(crate::folder::FNV_OFFSET, bytes)
    )
}

/// The start net a tuning folder keeps, checked against the digest its
/// settings record.
pub fn read_start(dir: &Path, want: &str) -> Result<Net, TuneError> {
    let path = start_path(dir);
    let bytes = std::fs::read(&path).map_err(crate::folder::io(&path))?;
    if digest(&bytes) != want {
        return Err(TuneError::Config(format!(
            "{}: not the net this folder was started with (digest {want})",
            path.display()
        )));
    }
    Ok(Net::from_bytes(&bytes)?)
}

/// The files of the net at CMA-ES's mean after the last whole generation
/// ([`super::Tuned::mean`]): the training net and its quantisation.
pub fn mean_paths(dir: &Path) -> (PathBuf, PathBuf) {
    (dir.join("mean.f32"), dir.join("mean.nnue"))
}

/// The best net's files in a tuning folder: the training net and the
/// quantised one `search --net` reads.
pub fn best_paths(dir: &Path) -> (PathBuf, PathBuf) {
    (dir.join("best.f32"), dir.join("best.nnue"))
}

/// Every term of `net`, in order: `out.0` … `out.H-1`, then `line_weight`.
pub fn names(net: &Net) -> Vec<String> {
    (0..net.hidden())
        .map(|k| format!("out.{k}"))
        .chain(std::iter::once("line_weight".to_string()))
        .collect()
}

/// The default terms: the output weights (see the module doc).
pub fn default_terms(net: &Net) -> Vec<String> {
    let mut all = names(net);
    all.pop();
    all
}

/// Checks that every term names one of `net`'s.
pub fn check_terms(net: &Net, terms: &[String]) -> Result<(), TuneError> {
    let known = names(net);
    for t in terms {
        if !known.contains(t) {
            return Err(TuneError::Config(format!(
                "unknown net term `{t}` (known: out.0 to out.{}, line_weight)",
                net.hidden() - 1
            )));
        }
    }
    Ok(())
}

/// A term's value in `net`.
fn get(net: &Net, term: &str) -> f64 {
    match term.strip_prefix("out.") {
        Some(k) => f64::from(net.out[k.parse::<usize>().expect("a checked term")]),
        None => net.line_weight,
    }
}

/// A term's unit (see the module doc); never zero.
fn unit(net: &Net, term: &str) -> f64 {
    let u = match term.starts_with("out.") {
        true => {
            let squares: f64 = net.out.iter().map(|&w| f64::from(w).powi(2)).sum();
            (squares / net.out.len() as f64).sqrt()
        }
        false => net.line_weight.abs(),
    };
    if u > 0.0 && u.is_finite() {
        u
    } else {
        1.0
    }
}

/// The start point: each term's value in its unit.
pub fn x0(net: &Net, terms: &[String]) -> Vec<f64> {
    terms.iter().map(|t| get(net, t) / unit(net, t)).collect()
}

/// The net at point `x`. A coordinate equal to the start point's keeps the
/// start net's value exactly (as for weights: an ulp can move a beam).
pub fn at(net: &Net, terms: &[String], x: &[f64]) -> Net {
    let mut out = net.clone();
    for ((t, &v), v0) in terms.iter().zip(x).zip(x0(net, terms)) {
        if v.to_bits() == v0.to_bits() {
            continue;
        }
        let value = v * unit(net, t);
        match t.strip_prefix("out.") {
            Some(k) => out.out[k.parse::<usize>().expect("a checked term")] = value as f32,
            None => out.line_weight = value,
        }
    }
    out
}

/// The evaluator of `net` with the lookahead of depth `quiescent`.
pub fn evaluator_of(
    net: &Net,
    quiescent: Option<u8>,
) -> Result<Box<dyn Evaluator + Send>, TuneError> {
    let quant = QuantNet::from_net(net)?;
    Ok(evaluator(
        Ranker::Net(NetEvaluator::new(quant)),
        quiescent,
        0.0,
    ))
}
