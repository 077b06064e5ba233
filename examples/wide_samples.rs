//! Samples from finished wide games in the steady state, labelled with how
//! far the wide search carried each: a probe of "labels from where wide
//! beams died" (`data/train/README.md`, "Samples from the gate's wide
//! games").
//!
//!     cargo run --release --example wide_samples -- OUT_SAMPLES.bin OUT_REACH.bin PER_DEPTH RUN_DIR...
//!
//! Every depth of every run (a search folder, such as a gate's wide game
//! from a record's well) gives up to PER_DEPTH wells drawn at random from
//! those whose line lasted longest at that depth (the family that the
//! beam went on with) and PER_DEPTH drawn from all its wells. Each sample's
//! reach less its depth, the label the trainer's reach term reads
//! ([`hatetris::train::reach`]), goes to OUT_REACH.bin in the targets'
//! file format. A sample's depth is 10,000 times the run's place in the
//! list (counting from 1) plus its depth in that run, so that the fit's
//! ranking term and the reach term pair only the wells of one depth of one
//! game (the fit reads a sample's depth only as its group).

use std::path::Path;
use std::process::ExitCode;

use hatetris::nnue::Rng;
use hatetris::train::data::{save_samples, save_targets, Sampled};
use hatetris::train::reach;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("wide_samples: {why}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [samples_out, reach_out, per_depth, runs @ ..] = args.as_slice() else {
        return Err(
            "usage: wide_samples OUT_SAMPLES.bin OUT_REACH.bin PER_DEPTH RUN_DIR...".into(),
        );
    };
    if runs.is_empty() {
        return Err("name at least one run folder".into());
    }
    let per_depth: usize = per_depth
        .parse()
        .map_err(|_| format!("PER_DEPTH must be a count, not {per_depth:?}"))?;
    let mut rng = Rng::new(0x57DE_5A3D);
    let mut samples = Vec::new();
    let mut labels = Vec::new();
    for (k, dir) in runs.iter().enumerate() {
        let base = 10_000 * (k as u32 + 1);
        let mut picked: Vec<(Sampled, f32)> = Vec::new();
        let last = reach::walk(Path::new(dir), |depth, stored, reach| {
            if stored.is_empty() {
                return;
            }
            let best = reach.iter().copied().max().unwrap_or(depth);
            let lasting: Vec<usize> = (0..stored.len()).filter(|&i| reach[i] == best).collect();
            let mut pick = |from: &[usize], rng: &mut Rng| {
                let mut from = from.to_vec();
                for _ in 0..per_depth.min(from.len()) {
                    let i = from.swap_remove(rng.below(from.len()));
                    let s = Sampled {
                        well: stored[i].well,
                        depth: base + depth,
                    };
                    picked.push((s, (reach[i] - depth) as f32));
                }
            };
            pick(&lasting, &mut rng);
            let all: Vec<usize> = (0..stored.len()).collect();
            pick(&all, &mut rng);
        })
        .map_err(|e| format!("{dir}: {e}"))?;
        eprintln!("{dir}: {} samples from depths up to {last}", picked.len());
        // The walk goes newest first; keep each game's samples in depth order.
        picked.reverse();
        for (s, l) in picked {
            samples.push(s);
            labels.push(l);
        }
    }
    save_samples(Path::new(samples_out), &samples).map_err(|e| e.to_string())?;
    save_targets(Path::new(reach_out), &labels).map_err(|e| e.to_string())?;
    eprintln!("{} samples in all", samples.len());
    Ok(())
}
