//! What a search runs with: a new run's settings from the flags and their
//! defaults, a resumed run's from its manifest alone.
//!
//! `hatetris search --resume DIR` needs nothing but the folder: the width,
//! the enemy and the evaluator (the weights, or the net kept in the folder
//! as `net.nnue`, and the lookahead) are the run's settings, and how far
//! and on how many threads it goes is the run's [`Plan`]. A flag given with
//! `--resume` is checked against the run first, and one that disagrees stops
//! the command with one line naming the setting and both values (the
//! library's own check, which compares whole identities, stays behind it
//! as the last word). `--max-depth` and `--threads` do not change the
//! files: given with `--resume` they replace the run's plan.

use std::path::Path;

use anyhow::{bail, Context, Result};

use hatetris::enemy::EnemyKind;
use hatetris::evaluate::{Evaluator, Lookahead};
use hatetris::heuristic::{Knewjade, Weights, WEIGHT_NAMES};
use hatetris::run::{self, Plan, Settings};

use super::args::SearchArgs;
use super::eval::{evaluator, load_net, search_evaluator};

/// The default `--width` of a new run.
pub(crate) const DEFAULT_WIDTH: usize = 2000;

/// The default `--max-depth` of a new run (and of a run that recorded no
/// plan).
pub(crate) const DEFAULT_MAX_DEPTH: u32 = 10_000;

/// Everything a search needs from the command line and the run folder.
pub(crate) struct Resolved {
    /// Beam width.
    pub width: usize,
    /// The enemy.
    pub enemy: EnemyKind,
    /// The evaluator.
    pub evaluator: Box<dyn Evaluator + Send>,
    /// How far, and the thread count asked for (`None`: every core).
    pub plan: Plan,
}

/// A new run: the flags, with their defaults.
pub(crate) fn new_run(a: &SearchArgs) -> Result<Resolved> {
    Ok(Resolved {
        width: a.width.unwrap_or(DEFAULT_WIDTH),
        enemy: a.enemy.unwrap_or_default(),
        evaluator: search_evaluator(a.net.as_deref(), a.weights.as_deref(), a.quiescent)?,
        plan: Plan {
            max_depth: a.max_depth.unwrap_or(DEFAULT_MAX_DEPTH),
            threads: a.threads,
        },
    })
}

/// A resumed run: its manifest's settings and plan, each flag given
/// checked against them.
pub(crate) fn resumed_run(dir: &Path, a: &SearchArgs) -> Result<Resolved> {
    let manifest = run::read_manifest_file(dir)?;
    let s = &manifest.settings;
    if let Some(width) = a.width.filter(|&w| w != s.width) {
        bail!("--width {width} disagrees with the run's width {}", s.width);
    }
    if let Some(enemy) = a.enemy.filter(|&e| e != s.enemy) {
        bail!("--enemy {enemy} disagrees with the run's enemy {}", s.enemy);
    }
    let run_quiescent = s
        .evaluator
        .get("quiescent")
        .and_then(|v| v.as_u64())
        .and_then(|d| u8::try_from(d).ok());
    if let Some(q) = a.quiescent.filter(|&q| Some(q) != run_quiescent) {
        bail!(
            "--quiescent {q} disagrees with the run's lookahead {}",
            match run_quiescent {
                Some(d) => format!("(depth {d})"),
                None => "(none)".to_string(),
            }
        );
    }
    let evaluator = run_evaluator(dir, s, run_quiescent, a)?;
    if let Some((key, theirs, rebuilt)) = s
        .evaluator
        .differences(&evaluator.identity())
        .into_iter()
        .next()
    {
        bail!(
            "{}: this build cannot rebuild the run's evaluator (its {key} is {theirs} in the run, {rebuilt} rebuilt)",
            run::manifest_path(dir).display()
        );
    }
    let plan = manifest.plan.unwrap_or(Plan {
        max_depth: DEFAULT_MAX_DEPTH,
        threads: None,
    });
    Ok(Resolved {
        width: s.width,
        enemy: s.enemy,
        evaluator,
        plan: Plan {
            max_depth: a.max_depth.unwrap_or(plan.max_depth),
            threads: a.threads.or(plan.threads),
        },
    })
}

/// The run's evaluator: its net (the folder's copy, or `--net` when it is
/// the same net) or its weights, with its lookahead.
fn run_evaluator(
    dir: &Path,
    s: &Settings,
    quiescent: Option<u8>,
    a: &SearchArgs,
) -> Result<Box<dyn Evaluator + Send>> {
    let run_net = s.evaluator.get("net").and_then(|v| v.as_str());
    let net = match (run_net, &a.net, &a.weights) {
        (Some(id), _, Some(w)) => bail!(
            "--weights {} disagrees with the run's evaluator: the run ranks with the net {id}",
            w.display()
        ),
        (None, Some(n), _) => bail!(
            "--net {} disagrees with the run's evaluator: the run ranks with the heuristic",
            n.display()
        ),
        (Some(id), Some(path), _) => {
            let net = load_net(path)?;
            let sum = format!("{:08x}", net.net().checksum());
            if sum != id {
                bail!(
                    "--net {} (net {sum}) disagrees with the run's net {id}",
                    path.display()
                );
            }
            net
        }
        (Some(id), None, _) => {
            let path = dir.join(hatetris::nnue::NET_FILE);
            if !path.exists() {
                bail!(
                    "{} holds no {} (the run was started before run folders kept their net): resume it once with --net FILE, the net {id}",
                    dir.display(),
                    hatetris::nnue::NET_FILE
                );
            }
            let net = load_net(&path)?;
            let sum = format!("{:08x}", net.net().checksum());
            if sum != id {
                bail!(
                    "{}: net {sum}, but the run ranks with the net {id}",
                    path.display()
                );
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
                .with_context(|| {
                    format!(
                        "{}: the run's evaluator has no weights this build reads",
                        run::manifest_path(dir).display()
                    )
                })?;
            if let Some(path) = weights {
                let given = *evaluator(Some(path), None)?.heuristic().weights();
                if let Some((name, file, run)) = first_difference(&given, &run_weights) {
                    bail!(
                        "--weights {} disagrees with the run's weights: {name} is {file} in the file, {run} in the run",
                        path.display()
                    );
                }
            }
            return Ok(Box::new(Knewjade::new(run_weights, quiescent)));
        }
    };
    Ok(match quiescent {
        Some(depth) => Box::new(Lookahead::new(net, depth)),
        None => Box::new(net),
    })
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
