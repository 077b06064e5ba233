//! How far each kept well's line of play lasted in a finished run, and how
//! well a net's value foresaw it: a probe of targets from the wide search
//! itself (`data/train/README.md`, "How far back a width-100,000 beam's
//! wells part").
//!
//!     cargo run --release --example descendants -- RUN_DIR NET.f32 [SAMPLES.bin OUT.bin]
//!
//! With a training generation's `samples.bin` (whose depths are RUN_DIR's,
//! a master beam), it also writes each sample's reach less its depth, in
//! the targets' file format, or −1 for a sample not kept at its depth
//! (children, chain points, wells from other games).
//!
//! A well's reach is the deepest depth any of its descendants was kept at,
//! from the library's one pass over the depth files
//! ([`hatetris::train::reach`], which the learning loop's reach term
//! reads; its doc says how and at what cost).
//!
//! It prints, for horizons of 10, 25, 50 and 100 pieces and over every 5th
//! depth that far from the end, the share of a depth's wells whose line lasted
//! that long and the area under the curve (the chance that a well that
//! lasted is ranked above one that did not) of the net's value with its
//! line weight (the beam's order, less the lookahead) and of the score
//! alone (fewer cells), averaged over the depths.

use std::path::Path;
use std::process::ExitCode;

use hatetris::nnue::Net;
use hatetris::train::data::{load_samples, save_targets};
use hatetris::train::reach;
use rayon::prelude::*;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("descendants: {why}");
            ExitCode::FAILURE
        }
    }
}

const HORIZONS: [u32; 4] = [10, 25, 50, 100];

/// One sampled depth: each well's value (with the line weight), score and
/// reach.
struct Sampled {
    depth: u32,
    values: Vec<f64>,
    scores: Vec<u16>,
    reach: Vec<u32>,
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, net, samples) = match args.as_slice() {
        [dir, net] => (dir, net, None),
        [dir, net, samples, out] => (dir, net, Some((samples, out))),
        _ => return Err("usage: descendants RUN_DIR NET.f32 [SAMPLES.bin OUT.bin]".into()),
    };
    let net = Net::load(Path::new(net)).map_err(|e| format!("{net}: {e}"))?;
    let mut sampled: Vec<Sampled> = Vec::new();
    let last = reach::walk(Path::new(dir), |depth, stored, reach| {
        if depth % 5 == 0 {
            let values: Vec<f64> = stored
                .par_iter()
                .map(|s| f64::from(net.value(&s.well)) + net.line_weight() * f64::from(s.score))
                .collect();
            let scores = stored.iter().map(|s| s.score).collect();
            sampled.push(Sampled {
                depth,
                values,
                scores,
                reach: reach.to_vec(),
            });
        }
    })
    .map_err(|e| format!("{dir}: {e}"))?;
    if let Some((samples, out)) = samples {
        let samples = load_samples(Path::new(samples)).map_err(|e| e.to_string())?;
        let labels = reach::reach(Path::new(dir), &samples).map_err(|e| format!("{dir}: {e}"))?;
        save_targets(Path::new(out), &labels).map_err(|e| e.to_string())?;
    }
    println!("horizon  depths  lasted  AUC value  AUC score");
    for k in HORIZONS {
        let (mut n, mut lasted, mut auc_v, mut auc_s) = (0, 0.0, 0.0, 0.0);
        for Sampled {
            depth: d,
            values,
            scores,
            reach,
        } in &sampled
        {
            if d + k > last {
                continue;
            }
            let alive: Vec<bool> = reach.iter().map(|&r| r >= d + k).collect();
            let share = alive.iter().filter(|&&a| a).count() as f64 / alive.len() as f64;
            let scores: Vec<f64> = scores.iter().map(|&s| f64::from(s)).collect();
            let (Some(v), Some(s)) = (auc(values, &alive), auc(&scores, &alive)) else {
                continue;
            };
            n += 1;
            lasted += share;
            auc_v += v;
            auc_s += s;
        }
        if n > 0 {
            let n_f = n as f64;
            println!(
                "{k:7}  {n:6}  {:6.3}  {:9.3}  {:9.3}",
                lasted / n_f,
                auc_v / n_f,
                auc_s / n_f
            );
        }
    }
    Ok(())
}

/// The chance that a random `positive` well has a higher `x` than a random
/// other one (ties count half); `None` when either kind is missing.
fn auc(x: &[f64], positive: &[bool]) -> Option<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    // Mid-ranks over runs of ties.
    let mut ranks = vec![0.0; x.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && x[order[j + 1]] == x[order[i]] {
            j += 1;
        }
        let mid = (i + j) as f64 / 2.0 + 1.0;
        for &o in &order[i..=j] {
            ranks[o] = mid;
        }
        i = j + 1;
    }
    let pos = positive.iter().filter(|&&p| p).count() as f64;
    let neg = positive.len() as f64 - pos;
    if pos == 0.0 || neg == 0.0 {
        return None;
    }
    let sum: f64 = ranks
        .iter()
        .zip(positive)
        .filter(|(_, &p)| p)
        .map(|(r, _)| r)
        .sum();
    Some((sum - pos * (pos + 1.0) / 2.0) / (pos * neg))
}
