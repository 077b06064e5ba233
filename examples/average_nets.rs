//! Averages training nets (`.f32` files of one shape) weight by weight and
//! writes the mean as a training net and as the quantised net a search
//! loads: `OUT.f32` and `OUT.nnue`. With `--ensemble` it puts them side by
//! side instead ([`Net::ensemble`]): one net whose value is the mean of
//! their values, with their hidden units added up (at most 64, or 128 in a build with
//! `--features hidden-128`).
//!
//!     cargo run --release --example average_nets -- [--ensemble] OUT A.f32 B.f32 [C.f32 ...]
//!
//! A net given twice counts twice. The half-and-half mean of `wide.f32` and
//! `ranked.f32` is the blend measured in `data/train/README.md` ("Blends");
//! the ensembles are in its section "Two nets side by side".

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hatetris::nnue::Net;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("average_nets: {why}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let ensemble = args.first().is_some_and(|a| a == "--ensemble");
    if ensemble {
        args.remove(0);
    }
    let [out, nets @ ..] = args.as_slice() else {
        return Err("usage: average_nets [--ensemble] OUT A.f32 B.f32 [C.f32 ...]".into());
    };
    if nets.len() < 2 {
        return Err("give at least two nets to average".into());
    }
    let nets = nets
        .iter()
        .map(|p| Net::load(Path::new(p)).map_err(|e| format!("{p}: {e}")))
        .collect::<Result<Vec<Net>, String>>()?;
    let mean = if ensemble {
        Net::ensemble(&nets).map_err(|e| e.to_string())?
    } else if nets.iter().all(|n| n.same_shape(&nets[0])) {
        Net::average(&nets)
    } else {
        return Err("the nets differ in shape (hidden units or feature layout)".into());
    };
    let f32_path = PathBuf::from(format!("{out}.f32"));
    let nnue_path = PathBuf::from(format!("{out}.nnue"));
    mean.save_with_quantised(&f32_path, &nnue_path)
        .map_err(|e| e.to_string())?;
    Ok(())
}
