//! A search assembled from what a command asks for: the one place that
//! knows how the pieces (an evaluator, an adversary, a run folder, the
//! depth loop's options) go together, so that the command line, the
//! benchmarks, the trainer and the tuner start and resume searches the
//! same way.
//!
//! - [`Request`] is what was asked (each `None` meaning "the default" for a
//!   new run and "the run's own" for a resumed one); [`new_run`] and
//!   [`resumed_run`] turn it into a [`Setup`]: the width, the enemy, the
//!   evaluator and the plan. A resumed run needs nothing but its folder:
//!   its settings come from the manifest, its evaluator is rebuilt from the
//!   recorded identity (see [`evaluator`](mod@evaluator)), and a setting
//!   asked for that disagrees with the run stops with
//!   [`LaunchError::Disagrees`], naming the setting and both values, before
//!   any work (the run folder's own check, which compares whole
//!   identities, stays behind it as the last word).
//! - [`options`] is the depth loop's [`Options`] with nothing extra (no
//!   signal, no allocator hook, the kernel's threads): callers add what
//!   they need with struct update syntax.
//! - [`run()`] starts a run, resumes one, or either ([`Folder`]);
//!   [`run_from`] starts one from a game's well ([`Start`]).
//!
//! It sits above `search`, `heuristic`, `nnue` and `run`, and below
//! `bench`, `train` and `tune`. Like the rest of the library it never
//! prints: its errors are one line each, ready for the command line.
//! Messages about a setting name it as the command line spells it
//! (`--width`), since that is where a request comes from.

pub mod evaluator;
pub mod input;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::enemy::EnemyKind;
use crate::evaluate::Evaluator;
use crate::heuristic::WeightsError;
use crate::run::{self, LineageCap, Plan, RunError, Start};
use crate::search::{self, Adversary, Observer, Options, RunResult, Search, SearchError};

pub use evaluator::{
    evaluator, load_net, read_weights, weights_or_default, EvaluatorSpec, NetFileError, Ranker,
};
pub use input::{Input, InputError};

/// The width of a new run when none is asked for.
pub const DEFAULT_WIDTH: usize = 2000;

/// How deep a new run goes when not told (and a run that recorded no
/// plan).
pub const DEFAULT_MAX_DEPTH: u32 = 10_000;

/// Why a search could not be assembled. Each message is one line.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// A weights file (or other input) could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A weights file is not valid.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// A net file could not be loaded.
    #[error(transparent)]
    Net(#[from] NetFileError),
    /// The run folder.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A setting asked for with a resume that the run has otherwise.
    #[error("--{flag} {given} disagrees with the run's {run}")]
    Disagrees {
        /// The setting, as the command line spells it (`width`).
        flag: &'static str,
        /// What was asked for.
        given: String,
        /// What the run has, named: "width 50".
        run: String,
    },
    /// A resume asked to stop before the depth the run has already
    /// reached: the plan would read "depth 106 of 50".
    #[error("--max-depth {asked} is below the run's last complete depth {depth}: a resume cannot go back; give {depth} or more")]
    BelowRun {
        /// The depth asked for.
        asked: u32,
        /// The run's last complete depth.
        depth: u32,
    },
    /// The run ranks with weights this build does not read.
    #[error("{manifest}: the run's evaluator has no weights this build reads")]
    NoWeights {
        /// The run's manifest.
        manifest: PathBuf,
    },
    /// The run ranks with a net its folder does not keep.
    #[error("{dir} holds no {} (the run was started before run folders kept their net): resume it once with --net FILE, the net {id}", crate::nnue::NET_FILE)]
    NoNetFile {
        /// The run folder.
        dir: PathBuf,
        /// The run's net's checksum.
        id: String,
    },
    /// The folder's net is not the run's.
    #[error("{path}: net {sum}, but the run ranks with the net {id}")]
    OtherNet {
        /// The folder's net file.
        path: PathBuf,
        /// Its checksum.
        sum: String,
        /// The run's net's checksum.
        id: String,
    },
    /// A chain step cost that means nothing (see
    /// [`EvaluatorSpec::chain_step_cost`]).
    #[error("{0}")]
    StepCost(String),
    /// The evaluator rebuilt is not the one the run recorded.
    #[error("{manifest}: this build cannot rebuild the run's evaluator (its {key} is {run} in the run, {rebuilt} rebuilt)")]
    Unrebuildable {
        /// The run's manifest.
        manifest: PathBuf,
        /// The identity's first key that differs.
        key: String,
        /// Its value in the run.
        run: String,
        /// Its value rebuilt.
        rebuilt: String,
    },
}

/// What a command asks of a search. `None` is the default for a new run,
/// and the run's own setting for a resumed one.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Wells kept per depth.
    pub width: Option<usize>,
    /// Who gives the pieces.
    pub enemy: Option<EnemyKind>,
    /// The evaluator.
    pub evaluator: EvaluatorSpec,
    /// The depth to stop at.
    pub max_depth: Option<u32>,
    /// Threads (`None`: every core, or the run's own count).
    pub threads: Option<usize>,
    /// The lineage cap (`None`: none for a new run, the run's own for a
    /// resumed one).
    pub lineage: Option<LineageCap>,
}

/// Everything a search runs with.
pub struct Setup {
    /// Beam width.
    pub width: usize,
    /// The enemy.
    pub enemy: EnemyKind,
    /// The evaluator, shared: a sharded search's workers hold it too.
    pub evaluator: Arc<dyn Evaluator + Send>,
    /// How far, and the thread count asked for (`None`: every core).
    pub plan: Plan,
    /// A resumed run's start in a game ([`run::Settings::start`]); `None`
    /// for a new run (whose start, if any, the caller gives [`run_from`])
    /// and for a run from the empty well.
    pub start: Option<Start>,
    /// The lineage cap, if any.
    pub lineage: Option<LineageCap>,
}

impl Setup {
    /// The search these settings describe.
    pub fn search(&self) -> Search<'_> {
        Search {
            width: self.width,
            evaluator: &*self.evaluator,
            adversary: Adversary::new(self.enemy),
            lineage: self.lineage,
        }
    }
}

/// A new run: the request, with the defaults.
pub fn new_run(r: &Request) -> Result<Setup, LaunchError> {
    Ok(Setup {
        width: r.width.unwrap_or(DEFAULT_WIDTH),
        enemy: r.enemy.unwrap_or_default(),
        evaluator: Arc::from(r.evaluator.build()?),
        plan: Plan {
            max_depth: r.max_depth.unwrap_or(DEFAULT_MAX_DEPTH),
            threads: r.threads,
        },
        start: None,
        lineage: r.lineage,
    })
}

/// The run in `dir`, to resume: its manifest's settings and plan, and its
/// evaluator rebuilt, each setting of the request checked against them.
/// `max_depth` and `threads` do not change the files: given, they replace
/// the run's plan.
pub fn resumed_run(dir: &Path, r: &Request) -> Result<Setup, LaunchError> {
    let manifest = run::read_manifest_file(dir)?;
    if let Some(asked) = r.max_depth.filter(|&d| d < manifest.depth) {
        return Err(LaunchError::BelowRun {
            asked,
            depth: manifest.depth,
        });
    }
    let s = &manifest.settings;
    if let Some(width) = r.width.filter(|&w| w != s.width) {
        return Err(LaunchError::Disagrees {
            flag: "width",
            given: width.to_string(),
            run: format!("width {}", s.width),
        });
    }
    if let Some(cap) = r.lineage.filter(|&c| Some(c) != s.lineage) {
        return Err(LaunchError::Disagrees {
            flag: "lineage-cap",
            given: cap.to_string(),
            run: match s.lineage {
                Some(c) => format!("lineage cap {c}"),
                None => "lineage cap (none)".to_string(),
            },
        });
    }
    if let Some(enemy) = r.enemy.filter(|&e| e != s.enemy) {
        return Err(LaunchError::Disagrees {
            flag: "enemy",
            given: enemy.to_string(),
            run: format!("enemy {}", s.enemy),
        });
    }
    let run_quiescent = s
        .evaluator
        .get("quiescent")
        .and_then(|v| v.as_u64())
        .and_then(|d| u8::try_from(d).ok());
    if let Some(q) = r.evaluator.quiescent.filter(|&q| Some(q) != run_quiescent) {
        return Err(LaunchError::Disagrees {
            flag: "quiescent",
            given: q.to_string(),
            run: match run_quiescent {
                Some(d) => format!("lookahead (depth {d})"),
                None => "lookahead (none)".to_string(),
            },
        });
    }
    let run_step_cost = s
        .evaluator
        .get("chain_step_cost")
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0);
    let asked = evaluator::valid_step_cost(r.evaluator.chain_step_cost)?;
    if asked != 0.0 && asked != run_step_cost {
        return Err(LaunchError::Disagrees {
            flag: "chain-step-cost",
            given: asked.to_string(),
            run: format!("chain step cost {run_step_cost}"),
        });
    }
    let evaluator = evaluator::rebuild(dir, s, run_quiescent, run_step_cost, &r.evaluator)?;
    if let Some((key, run, rebuilt)) = s
        .evaluator
        .differences(&evaluator.identity())
        .into_iter()
        .next()
    {
        return Err(LaunchError::Unrebuildable {
            manifest: run::manifest_path(dir),
            key,
            run,
            rebuilt,
        });
    }
    let plan = manifest.plan.unwrap_or(Plan {
        max_depth: DEFAULT_MAX_DEPTH,
        threads: None,
    });
    Ok(Setup {
        width: s.width,
        enemy: s.enemy,
        evaluator: Arc::from(evaluator),
        plan: Plan {
            max_depth: r.max_depth.unwrap_or(plan.max_depth),
            threads: r.threads.or(plan.threads),
        },
        start: s.start.clone(),
        lineage: s.lineage,
    })
}

/// The depth loop's options: `threads` kernel threads to `max_depth`, with
/// `asked_threads` recorded in the run's plan (`None`: every core), and
/// nothing else (no allocator hook, no stop flag, no sharding).
pub fn options(max_depth: u32, threads: usize, asked_threads: Option<usize>) -> Options {
    Options {
        max_depth,
        threads,
        release_memory: None,
        asked_threads,
        stop: None,
        expander: None,
    }
}

/// How a search meets its folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Folder {
    /// A new run: the folder must be new or empty.
    New,
    /// The run the folder holds goes on.
    Resume,
    /// The run the folder holds goes on if there is one; else a new run
    /// starts there, over whatever a run killed before its manifest left.
    /// For folders the caller owns (a trainer's master beam, a tuner's
    /// reference game).
    Either,
}

/// Runs `search` in `dir` (started, resumed, or either: see [`Folder`]).
pub fn run(
    dir: &Path,
    search: &Search,
    opts: &Options,
    observer: &dyn Observer,
    folder: Folder,
) -> Result<RunResult, SearchError> {
    run_from(dir, search, None, opts, observer, folder)
}

/// [`run()`], a new run starting from `from` (a game's well, with its
/// history; `None`: the empty well). A resumed run goes on from its own
/// start, whatever `from` is.
pub fn run_from(
    dir: &Path,
    search: &Search,
    from: Option<&Start>,
    opts: &Options,
    observer: &dyn Observer,
    folder: Folder,
) -> Result<RunResult, SearchError> {
    let resume = match folder {
        Folder::New => false,
        Folder::Resume => true,
        Folder::Either => run::manifest_path(dir).exists(),
    };
    if resume {
        return search::resume(dir, search, opts, observer);
    }
    if folder == Folder::Either && dir.exists() {
        // Killed before its manifest: nothing in it is a run yet.
        std::fs::remove_dir_all(dir).map_err(|e| RunError::from(crate::folder::io(dir)(e)))?;
    }
    search::start_from(dir, search, from, opts, observer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heuristic::{Knewjade, Weights};
    use crate::search::Silent;

    /// A run started from a request resumes from its folder alone, with
    /// the same evaluator; a setting asked for that disagrees is named.
    #[test]
    fn a_new_run_resumes_from_its_folder_alone_and_a_disagreeing_flag_is_named() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("run");
        let request = Request {
            width: Some(20),
            evaluator: EvaluatorSpec {
                quiescent: Some(2),
                ..EvaluatorSpec::default()
            },
            max_depth: Some(3),
            threads: Some(1),
            ..Request::default()
        };
        let setup = new_run(&request).unwrap();
        assert_eq!(setup.enemy, EnemyKind::Hatetris);
        assert_eq!(
            setup.evaluator.identity(),
            Knewjade::new(Weights::dnf86(), Some(2)).identity()
        );
        let opts = options(setup.plan.max_depth, 1, setup.plan.threads);
        // The result holds the folder's lock until it is dropped.
        let first = run(&dir, &setup.search(), &opts, &Silent, Folder::New)
            .unwrap()
            .best
            .score;

        let resumed = resumed_run(&dir, &Request::default()).unwrap();
        assert_eq!((resumed.width, resumed.plan), (20, setup.plan));
        assert_eq!(resumed.evaluator.identity(), setup.evaluator.identity());
        let again = run(&dir, &resumed.search(), &opts, &Silent, Folder::Either)
            .unwrap()
            .best
            .score;
        assert_eq!(again, first);

        let wider = Request {
            width: Some(21),
            ..Request::default()
        };
        let err = resumed_run(&dir, &wider).err().unwrap();
        assert_eq!(
            err.to_string(),
            "--width 21 disagrees with the run's width 20"
        );
    }

    /// A folder a run was killed in before its manifest is started over.
    #[test]
    fn either_starts_over_a_folder_without_a_manifest() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("run");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("depth-00001.beam.tmp"), b"half").unwrap();
        let eval = evaluator(Ranker::Heuristic(Weights::dnf86()), None, 0.0);
        let search = Search::new(10, &*eval, Adversary::new(EnemyKind::Hatetris));
        let opts = options(2, 1, None);
        assert!(run(&dir, &search, &opts, &Silent, Folder::New).is_err());
        let result = run(&dir, &search, &opts, &Silent, Folder::Either).unwrap();
        assert_eq!(result.depth, 2);
        assert!(!dir.join("depth-00001.beam.tmp").exists());
    }
}
