//! Samples from finished wide games in the steady state, labelled with how
//! far the wide search carried each: the probe of "labels from where wide
//! beams died" (`data/train/README.md`, "Samples from the gate's wide
//! games"), from any run folders. The trainer draws the same from its
//! gate's games with `--wide-samples` ([`hatetris::train::wide`]).
//!
//!     cargo run --release --example wide_samples -- OUT_SAMPLES.bin OUT_REACH.bin PER_DEPTH RUN_DIR...
//!
//! Every depth of every run gives up to PER_DEPTH wells drawn at random
//! from those whose line lasted longest at that depth (the family that the
//! beam went on with) and PER_DEPTH drawn from all its wells
//! ([`wide::draw`]). Each sample's reach less its depth, the label the
//! trainer's reach term reads, goes to OUT_REACH.bin in the targets' file
//! format. A sample's depth is 10,000 times the run's place in the list
//! (counting from 1) plus its depth in that run, so that the fit's ranking
//! term and the reach term pair only the wells of one depth of one game.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hatetris::nnue::Rng;
use hatetris::train::data::{save_samples, save_targets};
use hatetris::train::wide;

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
    let games: Vec<PathBuf> = runs.iter().map(PathBuf::from).collect();
    let mut rng = Rng::new(0x57DE_5A3D);
    let (samples, labels) =
        wide::draw(&games, per_depth, 10_000, &mut rng).map_err(|e| e.to_string())?;
    save_samples(Path::new(samples_out), &samples).map_err(|e| e.to_string())?;
    save_targets(Path::new(reach_out), &labels).map_err(|e| e.to_string())?;
    eprintln!("{} samples in all", samples.len());
    Ok(())
}
