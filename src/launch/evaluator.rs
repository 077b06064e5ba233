//! The evaluator a search ranks with: built from its settings (a net file
//! or heuristic weights, and the lookahead's depth), or rebuilt from a run
//! folder's recorded identity and the net kept there.
//!
//! The one rule of assembly lives in [`evaluator`]: the heuristic carries
//! its own lookahead ([`Knewjade`] runs it with the hole region the
//! lookahead needs), a net is wrapped in the generic [`Lookahead`]. Every
//! caller that builds an evaluator (a new run, a resumed run, the trainer's
//! master beams, the tuner's reference game) goes through it, so a run's
//! recorded identity is always one this build can rebuild.
//!
//! A resumed run's evaluator comes from the run alone: its manifest's
//! identity names the weights (stored whole) or the net (by checksum, the
//! file kept in the folder as [`crate::nnue::NET_FILE`]). A net or weights file
//! given with the resume is only checked against it.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::evaluate::{Evaluator, Lookahead};
use crate::heuristic::{Knewjade, Weights, WEIGHT_NAMES};
use crate::nnue::{NetError, NetEvaluator};
use crate::run::{self, Settings};

use super::input::{self, Input};
use super::LaunchError;

/// What ranks the wells, before the lookahead is put around it.
#[derive(Clone, Debug)]
pub enum Ranker {
    /// The knewjade heuristic with these weights.
    Heuristic(Weights),
    /// A net.
    Net(NetEvaluator),
}

/// The evaluator of `ranker` with the quiescent lookahead of depth
/// `quiescent` (`None`: none), a net's chain points costing
/// `chain_step_cost` more per hypothetical clear
/// ([`Lookahead::with_step_cost`]; [`EvaluatorSpec::build`] refuses it
/// without a net and the lookahead).
pub fn evaluator(
    ranker: Ranker,
    quiescent: Option<u8>,
    chain_step_cost: f64,
) -> Box<dyn Evaluator + Send> {
    match (ranker, quiescent) {
        (Ranker::Heuristic(weights), q) => Box::new(Knewjade::new(weights, q)),
        (Ranker::Net(net), Some(depth)) => {
            Box::new(Lookahead::new(net, depth).with_step_cost(chain_step_cost))
        }
        (Ranker::Net(net), None) => Box::new(net),
    }
}

/// An evaluator's settings as a command gives them: files, not values.
#[derive(Clone, Debug, Default)]
pub struct EvaluatorSpec {
    /// A quantised net file; `None`: the heuristic.
    pub net: Option<PathBuf>,
    /// A weights file for the heuristic; `None`: the built-in dnf-86
    /// weights. Not both this and `net`.
    pub weights: Option<PathBuf>,
    /// The quiescent lookahead's depth; `None`: no lookahead.
    pub quiescent: Option<u8>,
    /// Added to a chain point's cost per hypothetical clear
    /// ([`Lookahead::with_step_cost`]); 0, the default, for none. Only with
    /// a net and the lookahead.
    pub chain_step_cost: f64,
}

impl EvaluatorSpec {
    /// The evaluator: the net when one is given, else the heuristic.
    pub fn build(&self) -> Result<Box<dyn Evaluator + Send>, LaunchError> {
        self.check_step_cost()?;
        let ranker = match &self.net {
            Some(path) => Ranker::Net(load_net(path)?),
            None => Ranker::Heuristic(weights_or_default(self.weights.as_deref())?),
        };
        Ok(evaluator(ranker, self.quiescent, self.chain_step_cost))
    }

    /// A chain step cost only where it means something: a finite,
    /// non-negative number, with a net and the lookahead.
    fn check_step_cost(&self) -> Result<(), LaunchError> {
        let c = valid_step_cost(self.chain_step_cost)?;
        if c != 0.0 && (self.net.is_none() || self.quiescent.is_none()) {
            return Err(LaunchError::StepCost(
                "--chain-step-cost needs --net and --quiescent (it costs the lookahead's chains of a net)"
                    .to_string(),
            ));
        }
        Ok(())
    }
}

/// `c` if it is a chain step cost at all: finite and not negative.
pub(super) fn valid_step_cost(c: f64) -> Result<f64, LaunchError> {
    if c.is_finite() && c >= 0.0 {
        Ok(c)
    } else {
        Err(LaunchError::StepCost(format!(
            "--chain-step-cost {c}: give a finite number of 0 or more"
        )))
    }
}

/// A net file that could not be loaded: the net's error, naming the file
/// once (a read error names it already).
#[derive(Debug)]
pub struct NetFileError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub error: NetError,
}

impl fmt::Display for NetFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.error {
            NetError::Read { .. } => write!(f, "{}", self.error),
            other => write!(f, "{}: {other}", self.path.display()),
        }
    }
}

impl std::error::Error for NetFileError {}

/// A quantised net file, ready to rank.
pub fn load_net(path: &Path) -> Result<NetEvaluator, NetFileError> {
    NetEvaluator::load(path).map_err(|error| NetFileError {
        path: path.to_path_buf(),
        error,
    })
}

/// A weights file, read with the cap of [`Input::Weights`].
pub fn read_weights(path: &Path) -> Result<Weights, LaunchError> {
    let text = input::read_text(Some(path), Input::Weights)?;
    Ok(Weights::parse(&text, path)?)
}

/// The weights in `path`, or the built-in dnf-86 weights for `None`.
pub fn weights_or_default(path: Option<&Path>) -> Result<Weights, LaunchError> {
    match path {
        Some(path) => read_weights(path),
        None => Ok(Weights::dnf86()),
    }
}

/// A checksum as run identities write it.
fn checksum(net: &NetEvaluator) -> String {
    format!("{:08x}", net.net().checksum())
}

/// The evaluator of the run in `dir` (settings `s`, lookahead `quiescent`
/// with `chain_step_cost`):
/// its net (the folder's copy, or `given.net` when it is the same net) or
/// its weights. A file in `given` that is not the run's is an error.
pub(super) fn rebuild(
    dir: &Path,
    s: &Settings,
    quiescent: Option<u8>,
    chain_step_cost: f64,
    given: &EvaluatorSpec,
) -> Result<Box<dyn Evaluator + Send>, LaunchError> {
    let disagrees = |flag, given: &Path, run: String| LaunchError::Disagrees {
        flag,
        given: given.display().to_string(),
        run,
    };
    let run_net = s.evaluator.get("net").and_then(|v| v.as_str());
    let net = match (run_net, &given.net, &given.weights) {
        (Some(id), _, Some(w)) => {
            return Err(disagrees(
                "weights",
                w,
                format!("evaluator: the run ranks with the net {id}"),
            ))
        }
        (None, Some(n), _) => {
            return Err(disagrees(
                "net",
                n,
                "evaluator: the run ranks with the heuristic".to_string(),
            ))
        }
        (Some(id), Some(path), _) => {
            let net = load_net(path)?;
            let sum = checksum(&net);
            if sum != id {
                return Err(LaunchError::Disagrees {
                    flag: "net",
                    given: format!("{} (net {sum})", path.display()),
                    run: format!("net {id}"),
                });
            }
            net
        }
        (Some(id), None, _) => {
            let path = dir.join(crate::nnue::NET_FILE);
            if !path.exists() {
                return Err(LaunchError::NoNetFile {
                    dir: dir.to_path_buf(),
                    id: id.to_string(),
                });
            }
            let net = load_net(&path)?;
            let sum = checksum(&net);
            if sum != id {
                return Err(LaunchError::OtherNet {
                    path,
                    sum,
                    id: id.to_string(),
                });
            }
            net
        }
        (None, None, weights) => {
            let run_weights: Weights = s
                .evaluator
                .get("weights")
                .map(|v| serde_json::from_value(v.clone()))
                .transpose()
                .ok()
                .flatten()
                .ok_or_else(|| LaunchError::NoWeights {
                    manifest: run::manifest_path(dir),
                })?;
            if let Some(path) = weights {
                let file = read_weights(path)?;
                if let Some((name, file, run)) = first_difference(&file, &run_weights) {
                    return Err(disagrees(
                        "weights",
                        path,
                        format!("weights: {name} is {file} in the file, {run} in the run"),
                    ));
                }
            }
            return Ok(evaluator(Ranker::Heuristic(run_weights), quiescent, 0.0));
        }
    };
    Ok(evaluator(Ranker::Net(net), quiescent, chain_step_cost))
}

/// The first weight that differs between `a` and `b`: its name and both
/// values (the hole region, named, as a weight that is not a number).
fn first_difference(a: &Weights, b: &Weights) -> Option<(String, String, String)> {
    let region = |w: &Weights| match w.hole_region {
        Some(r) => format!("{r:?}"),
        None => "the default".to_string(),
    };
    WEIGHT_NAMES
        .iter()
        .find(|name| a.get(name) != b.get(name))
        .map(|name| {
            let show = |w: &Weights| w.get(name).expect("a named weight").to_string();
            (name.to_string(), show(a), show(b))
        })
        .or_else(|| {
            (a.hole_region != b.hole_region)
                .then(|| ("hole_region".to_string(), region(a), region(b)))
        })
}
