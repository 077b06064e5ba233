//! Writes a training net's value of every sampled well of a generation, in
//! the targets' file format, so that an analysis outside the engine can set
//! the values beside the targets (`data/train/feature-probe/probe.py`).
//!
//!     cargo run --release --example net_values -- NET.f32 SAMPLES.bin OUT.bin
//!
//! The value is [`Net::value`], the f32 net's output for the well alone (no
//! lookahead), on the scale the net was fitted on.

use std::path::Path;
use std::process::ExitCode;

use hatetris::nnue::Net;
use hatetris::train::data::{load_samples, save_targets};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("net_values: {why}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [net, samples, out] = args.as_slice() else {
        return Err("usage: net_values NET.f32 SAMPLES.bin OUT.bin".into());
    };
    let net = Net::load(Path::new(net)).map_err(|e| format!("{net}: {e}"))?;
    let samples = load_samples(Path::new(samples)).map_err(|e| e.to_string())?;
    let values: Vec<f32> = samples.iter().map(|s| net.value(&s.well)).collect();
    save_targets(Path::new(out), &values).map_err(|e| e.to_string())
}
