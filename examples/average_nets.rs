//! Averages training nets (`.f32` files of one shape) weight by weight and
//! writes the mean as a training net and as the quantised net a search
//! loads: `OUT.f32` and `OUT.nnue`.
//!
//!     cargo run --release --example average_nets -- OUT A.f32 B.f32 [C.f32 ...]
//!
//! A net given twice counts twice. The half-and-half mean of `wide.f32` and
//! `ranked.f32` is the blend measured in `data/train/README.md` ("Blends").

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hatetris::nnue::{Net, QuantNet};

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, nets @ ..] = args.as_slice() else {
        return Err("usage: average_nets OUT A.f32 B.f32 [C.f32 ...]".into());
    };
    if nets.len() < 2 {
        return Err("give at least two nets to average".into());
    }
    let nets = nets
        .iter()
        .map(|p| Net::load(Path::new(p)).map_err(|e| format!("{p}: {e}")))
        .collect::<Result<Vec<Net>, String>>()?;
    if !nets.iter().all(|n| n.same_shape(&nets[0])) {
        return Err("the nets differ in shape (hidden units or feature layout)".into());
    }
    let mean = Net::average(&nets);
    let quant = QuantNet::from_net(&mean).map_err(|e| e.to_string())?;
    let f32_path = PathBuf::from(format!("{out}.f32"));
    let nnue_path = PathBuf::from(format!("{out}.nnue"));
    mean.save(&f32_path)
        .map_err(|e| format!("{}: {e}", f32_path.display()))?;
    quant
        .save(&nnue_path)
        .map_err(|e| format!("{}: {e}", nnue_path.display()))?;
    Ok(())
}
