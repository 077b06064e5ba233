//! Fixed workloads that time the engine and double as determinism
//! signatures.
//!
//! Each workload runs single-threaded over a list of wells, five times, and
//! reports the median time per well. It also counts what it produced (pieces
//! chosen, children built); that count must not change when the code is
//! refactored, so a changed count means changed behaviour, not a faster run.
//!
//! The machines are noisy, so compare figures taken in one run, and read
//! the ratios, not the absolute numbers.
//!
//! The per-well workloads run over a list of wells: [`WELLS_FILE`]'s, built
//! into the binary ([`built_in_wells`], so an installed `hatetris` runs
//! them from any folder), or a file read by [`read_wells`] ([`wells`]
//! picks). The search workload starts from the empty well and is
//! assembled by [`crate::launch`], as a command's search is.
//!
//! Each timed figure keeps its spread over the runs ([`Spread`]: min,
//! median, max), and [`doubt`] says when a figure is not to be trusted: a
//! run too short for the clock (a few milliseconds, where timer and clock
//! ramp-up dominate: `bench movegen` once gave 1.48 to 5.52 µs for one
//! figure over six runs of 0.06 s), or runs too far apart.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use crate::enemy::mild_choice;
use crate::evaluate::Evaluator;
use crate::folder::{fnv1a, FNV_OFFSET};
use crate::launch::input::{self, Input, InputError};
use crate::movegen::{Cached, Child, Direct, MoveGen, Transition};
use crate::piece::Piece;
use crate::well::Well;

/// The wells the per-well workloads run over by default (2,000 wells met
/// in searches, one per line), relative to the crate's root.
pub const WELLS_FILE: &str = "data/bench-wells.txt";

/// [`WELLS_FILE`]'s text, built into the binary.
pub const BUILT_IN_WELLS: &str = include_str!("../data/bench-wells.txt");

/// [`WELLS_FILE`]'s wells, from the copy built into the binary.
pub fn built_in_wells() -> Result<Vec<Well>, InputError> {
    input::parse_wells(BUILT_IN_WELLS, WELLS_FILE)
}

/// The wells of `path`, or the built-in ones ([`built_in_wells`]) when
/// `None`.
pub fn wells(path: Option<&Path>) -> Result<Vec<Well>, InputError> {
    match path {
        Some(path) => read_wells(path),
        None => built_in_wells(),
    }
}

/// A figure's spread over its timed runs.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Spread {
    /// The fastest run.
    pub min: f64,
    /// The median run (the figure reported).
    pub median: f64,
    /// The slowest run.
    pub max: f64,
}

impl Spread {
    /// The spread of `runs` (NaN figures when there are none).
    pub fn of(runs: &[f64]) -> Spread {
        let min = runs.iter().copied().fold(f64::INFINITY, f64::min);
        let max = runs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        match runs.is_empty() {
            true => Spread {
                min: f64::NAN,
                median: f64::NAN,
                max: f64::NAN,
            },
            false => Spread {
                min,
                median: median(runs.to_vec()),
                max,
            },
        }
    }

    /// (max − min) / median: 0.1 is runs 10 % apart.
    pub fn relative(&self) -> f64 {
        (self.max - self.min) / self.median
    }
}

/// One timed run shorter than this is too short to trust (timer
/// resolution, the clock's ramp-up and one interruption weigh on it).
pub const SHORTEST_TRUSTED_RUN_S: f64 = 0.1;

/// Runs further apart than this share of the median make a figure one
/// not to trust (one slow run among five, from another process's burst,
/// moves the median little; a quarter of it is past that).
pub const WIDEST_TRUSTED_SPREAD: f64 = 0.25;

/// Why a figure is not to be trusted, or `None`: a timed run (of
/// `run_s` seconds, the median one) shorter than
/// [`SHORTEST_TRUSTED_RUN_S`], or runs further apart than
/// [`WIDEST_TRUSTED_SPREAD`].
pub fn doubt(spread: &Spread, run_s: f64) -> Option<String> {
    if run_s < SHORTEST_TRUSTED_RUN_S {
        return Some(format!(
            "each run took {:.0} ms, too short to trust (under {:.0} ms)",
            run_s * 1e3,
            SHORTEST_TRUSTED_RUN_S * 1e3
        ));
    }
    if spread.relative() > WIDEST_TRUSTED_SPREAD {
        return Some(format!(
            "the runs are {:.0} % apart ({:.3} to {:.3}): the machine was busy",
            100.0 * spread.relative(),
            spread.min,
            spread.max
        ));
    }
    None
}

/// A non-empty file of wells, one per line (see [`WELLS_FILE`]).
pub fn read_wells(path: &Path) -> Result<Vec<Well>, InputError> {
    let name = input::name(Some(path));
    let wells = input::parse_wells(&input::read_text(Some(path), Input::Wells)?, &name)?;
    if wells.is_empty() {
        return Err(InputError::NoWells { name });
    }
    Ok(wells)
}

/// A file of this crate's source tree (`data/...`), wherever the caller
/// runs: how the criterion benches find their data.
pub fn source_path(relative: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// [`WELLS_FILE`]'s wells (built in): the criterion benches' workload.
pub fn source_wells() -> Result<Vec<Well>, InputError> {
    built_in_wells()
}

/// Every (well, piece) family of children of `wells`: the children of all
/// seven pieces of each well, with their parent, as the search's batch call
/// takes them.
pub fn families(wells: &[Well]) -> Vec<(Well, Vec<Child>)> {
    let mut out = Vec::new();
    for well in wells {
        let gen = MoveGen::new(well);
        for piece in Piece::ALL {
            let mut children = Vec::new();
            gen.children(piece, &mut children);
            out.push((*well, children));
        }
    }
    out
}

/// Costs every family through [`Evaluator::costs`] (the parent's score 0,
/// as the search calls it), `out` the reused buffer; the sum of the costs,
/// which keeps the work from being optimised away and doubles as a check.
pub fn batch_costs(
    eval: &dyn Evaluator,
    families: &[(Well, Vec<Child>)],
    out: &mut Vec<f64>,
) -> f64 {
    let mut sum = 0.0;
    for (parent, children) in families {
        eval.costs(black_box(parent), 0, children, out);
        sum += out.iter().sum::<f64>();
    }
    sum
}

/// Timings of the move generator over a set of wells, in µs per well.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MovegenBench {
    /// Wells in the workload.
    pub wells: usize,
    /// The HATETRIS piece choice alone (no history to check, as with a fresh
    /// game's history; see [`crate::enemy`]).
    pub choice_us: f64,
    /// The choice plus the chosen piece's children built as wells.
    pub chosen_children_us: f64,
    /// The children of all seven pieces built as wells.
    pub all7_children_us: f64,
    /// The three figures' spreads over the runs, in their order.
    pub spreads: [Spread; 3],
    /// Seconds of each figure's median run (as many passes over the wells
    /// as last about twice [`SHORTEST_TRUSTED_RUN_S`]).
    pub run_seconds: [f64; 3],
    /// Signature: the sum over wells of the chosen piece's index.
    pub choice_signature: u64,
    /// Signature: children built for the chosen pieces.
    pub chosen_children: u64,
    /// Signature: children built for all seven pieces.
    pub all7_children: u64,
}

/// Median of a list of timings.
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// Runs `f` over all wells `runs` times and returns the spread of µs per
/// well and the (identical across runs) signature of one pass. A run is
/// as many passes over the wells as make it last twice
/// [`SHORTEST_TRUSTED_RUN_S`] (one untimed pass first warms the caches and
/// measures a pass, which the first, cold pass overestimates): one pass of the 2,000 built-in wells takes 1 to 8 ms,
/// which the clock alone made vary threefold.
fn time_per_well(
    wells: &[Well],
    runs: usize,
    mut f: impl FnMut(&Well) -> u64,
) -> (Spread, u64, f64) {
    let mut pass = || -> u64 { wells.iter().map(|w| f(black_box(w))).sum() };
    let start = Instant::now();
    let signature = black_box(pass());
    let once = start.elapsed().as_secs_f64().max(1e-9);
    let passes = ((2.0 * SHORTEST_TRUSTED_RUN_S / once).ceil() as usize).clamp(1, 10_000);
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        for _ in 0..passes {
            black_box(pass());
        }
        let per = (passes * wells.len()).max(1) as f64;
        times.push(start.elapsed().as_secs_f64() * 1e6 / per);
    }
    let spread = Spread::of(&times);
    let run_s = spread.median * (passes * wells.len()) as f64 / 1e6;
    (spread, signature, run_s)
}

/// The piece choice timed with each way of computing wave transitions.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TransitionBench {
    /// µs per well, transitions computed from the fit tables.
    pub direct_us: f64,
    /// µs per well, transitions looked up in an ahash map (warm).
    pub cached_us: f64,
    /// Distinct transitions the map held.
    pub distinct: usize,
}

/// Times the piece choice with [`Direct`] against [`Cached`] transitions.
pub fn bench_transitions(wells: &[Well], runs: usize) -> TransitionBench {
    fn choice<T: Transition>(gen: &MoveGen, t: &mut T) -> u64 {
        let mut best = (usize::MAX, 0);
        for piece in Piece::ALL {
            let peak = gen.highest_peak_with(piece, t);
            if peak < best.0 {
                best = (peak, piece.index());
            }
        }
        best.1 as u64
    }
    let mut cache = Cached::default();
    let (direct, a, _) = time_per_well(wells, runs, |w| choice(&MoveGen::new(w), &mut Direct));
    let (cached, b, _) = time_per_well(wells, runs, |w| choice(&MoveGen::new(w), &mut cache));
    assert_eq!(a, b, "both ways choose the same pieces");
    TransitionBench {
        direct_us: direct.median,
        cached_us: cached.median,
        distinct: cache.len(),
    }
}

/// Times the three move-generation workloads (median of `runs`).
pub fn bench_movegen(wells: &[Well], runs: usize) -> MovegenBench {
    let mut buf: Vec<Child> = Vec::with_capacity(256);
    let (choice, choice_signature, choice_s) = time_per_well(wells, runs, |w| {
        let gen = MoveGen::new(w);
        mild_choice(&gen).index() as u64
    });
    let (chosen, chosen_children, chosen_s) = time_per_well(wells, runs, |w| {
        let gen = MoveGen::new(w);
        let piece = mild_choice(&gen);
        buf.clear();
        gen.children(piece, &mut buf);
        buf.len() as u64
    });
    let (all7, all7_children, all7_s) = time_per_well(wells, runs, |w| {
        let gen = MoveGen::new(w);
        buf.clear();
        for piece in Piece::ALL {
            gen.children(piece, &mut buf);
        }
        buf.len() as u64
    });
    MovegenBench {
        wells: wells.len(),
        choice_us: choice.median,
        chosen_children_us: chosen.median,
        all7_children_us: all7.median,
        spreads: [choice, chosen, all7],
        run_seconds: [choice_s, chosen_s, all7_s],
        choice_signature,
        chosen_children,
        all7_children,
    }
}

/// One depth of a [`SearchBench`]: what the search produced there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DepthSignature {
    /// Pieces placed.
    pub depth: u32,
    /// Children generated.
    pub children: u64,
    /// Wells kept.
    pub kept: u64,
    /// A fixed 64-bit hash of the depth's content: every (well, score)
    /// entry in the depth file's order (see [`content_hash`]); in JSON, 16
    /// hexadecimal digits (a number above 2^53 loses digits in JSON tools).
    #[serde(serialize_with = "hex")]
    pub hash: u64,
}

/// A fixed search and its signature (see [`bench_search`]).
#[derive(Clone, Debug, serde::Serialize)]
pub struct SearchBench {
    /// Beam width.
    pub width: usize,
    /// Depths searched.
    pub depths: u32,
    /// Worker threads (or timely workers, when `sharded`).
    pub threads: usize,
    /// Whether the depths ran sharded over timely workers in one process
    /// ([`crate::distributed`]) instead of the kernel's threads.
    pub sharded: bool,
    /// The lookahead's chain depth, if on.
    pub quiescent: Option<u8>,
    /// What ranked the wells: `heuristic`, or `net` and the net's checksum.
    pub ranker: String,
    /// Wall-clock seconds of the search (not of the hashing).
    pub seconds: f64,
    /// Per depth, from depth 1.
    pub per_depth: Vec<DepthSignature>,
    /// A hash of every depth's hash, children and kept count: one number
    /// that changes when anything the search produced changes; in JSON,
    /// 16 hexadecimal digits.
    #[serde(serialize_with = "hex")]
    pub signature: u64,
    /// Seconds per phase, summed over the depths.
    pub phases: crate::run::Phases,
}

/// A 64-bit hash as JSON: 16 hexadecimal digits, as the text shows it
/// (JSON tools read numbers as doubles, which hold 53 bits).
fn hex<S: serde::Serializer>(value: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{value:016x}"))
}

/// FNV-1a over 16-bit words (little-endian bytes): fixed, so the same on
/// every machine and run.
fn fnv(h: u64, words: impl IntoIterator<Item = u16>) -> u64 {
    words.into_iter().fold(h, |h, w| fnv1a(h, &w.to_le_bytes()))
}

/// The content hash of a depth: FNV-1a over each entry's 16 live rows and
/// its score, in the file's order (sorted by well).
pub fn content_hash(entries: &[crate::run::store::Stored]) -> u64 {
    entries.iter().fold(FNV_OFFSET, |h, e| {
        fnv(h, e.well.rows().iter().copied().chain([e.score]))
    })
}

/// Runs a fixed search in `dir` (which must not hold a run): the empty
/// well, HATETRIS, ranked by `evaluator` (built by
/// [`crate::launch::EvaluatorSpec::build`]: by default the dnf-86 weights,
/// with the lookahead when asked), `width` wells per depth, `depths`
/// depths, on `threads` threads. Returns each depth's children, kept count
/// and content hash. The figures other than `seconds` are the same for any
/// thread count and must not change when the code is refactored or made
/// faster.
pub fn bench_search(
    dir: &std::path::Path,
    width: usize,
    depths: u32,
    threads: usize,
    evaluator: &std::sync::Arc<dyn crate::evaluate::Evaluator + Send>,
    sharded: bool,
) -> Result<SearchBench, crate::search::SearchError> {
    use crate::launch::{self, Folder};
    use crate::run::{self, shards::Depth};
    use crate::search::{DepthExpander, Options, Silent};
    let identity = evaluator.identity();
    let quiescent = identity
        .get("quiescent")
        .and_then(|v| v.as_u64())
        .and_then(|d| u8::try_from(d).ok());
    let ranker = match identity.get("net").and_then(|v| v.as_str()) {
        Some(sum) => format!("net {sum}"),
        None => "heuristic".to_string(),
    };
    let setup = launch::Setup {
        width,
        enemy: crate::enemy::EnemyKind::Hatetris,
        evaluator: std::sync::Arc::clone(evaluator),
        plan: run::Plan {
            max_depth: depths,
            threads: None,
        },
        start: None,
        lineage: None,
    };
    let search = setup.search();
    let expander = match sharded {
        false => None,
        true => {
            let shard = crate::distributed::Shard {
                width,
                evaluator: std::sync::Arc::clone(&setup.evaluator),
                adversary: search.adversary,
                settings: search.settings().run_id(),
                root: 0,
                out: Some(dir.to_path_buf()),
            };
            let layout = crate::distributed::Topology::local(threads);
            let cluster = crate::distributed::Cluster::start(&layout, shard).map_err(|e| {
                crate::search::SearchError::Threads {
                    threads,
                    reason: e.to_string(),
                }
            })?;
            Some(std::sync::Arc::new(cluster) as std::sync::Arc<dyn DepthExpander>)
        }
    };
    let opts = Options {
        expander,
        ..launch::options(depths, threads, setup.plan.threads)
    };
    let start = Instant::now();
    launch::run(dir, &search, &opts, &Silent, Folder::New)?;
    let seconds = start.elapsed().as_secs_f64();
    let manifest = run::read_manifest(dir)?;
    let mut per_depth = Vec::new();
    let mut signature = FNV_OFFSET;
    let mut phases = run::Phases::default();
    for s in &manifest.depths {
        if let Some(p) = &s.phases {
            phases.add(p);
        }
        let entries = Depth::open(dir, s.depth, manifest.shards)?.read_all()?;
        let d = DepthSignature {
            depth: s.depth,
            children: s.children,
            kept: s.kept,
            hash: content_hash(&entries),
        };
        signature = fnv(
            signature,
            [d.hash, d.children, d.kept]
                .iter()
                .flat_map(|x| (0..4).map(move |i| (x >> (16 * i)) as u16)),
        );
        per_depth.push(d);
    }
    Ok(SearchBench {
        width,
        depths,
        threads,
        sharded,
        quiescent,
        ranker,
        seconds,
        per_depth,
        signature,
        phases,
    })
}

/// Runs one 1-thread [`bench_search`] per folder of `dirs`, all at once on
/// their own threads: the machine's own limit on parallel speed-up. The
/// copies share nothing but the machine (caches, memory bandwidth, clock
/// boost), so what they lose against one search alone is what no program
/// could win back on that many threads.
pub fn bench_copies(
    dirs: &[std::path::PathBuf],
    width: usize,
    depths: u32,
    evaluator: &std::sync::Arc<dyn crate::evaluate::Evaluator + Send>,
) -> Result<Vec<SearchBench>, crate::search::SearchError> {
    std::thread::scope(|s| {
        let running: Vec<_> = dirs
            .iter()
            .map(|dir| s.spawn(move || bench_search(dir, width, depths, 1, evaluator, false)))
            .collect();
        running
            .into_iter()
            .map(|r| match r.join() {
                Ok(result) => result,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}

/// Timing of an evaluator's batch call, in µs per child.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EvaluatorBench {
    /// Children costed per run.
    pub children: usize,
    /// Median over [`crate::heuristic::bench::RUNS`] runs.
    pub us_per_child: f64,
    /// Every run's figure.
    pub runs_us_per_child: Vec<f64>,
    /// Sum of all the costs (a determinism signature).
    pub cost_sum: f64,
}

/// Times [`Evaluator::costs`] on this thread over every (well, piece)
/// family of children of `wells` (the children of all seven pieces: the
/// same children as [`crate::heuristic::bench_eval`]), each family in one
/// call with the parent's score 0, as the search calls it. Building the
/// children is not timed.
pub fn bench_evaluator(wells: &[Well], eval: &dyn Evaluator) -> EvaluatorBench {
    let families = families(wells);
    let children = families.iter().map(|f| f.1.len()).sum::<usize>();
    let runs_count = crate::heuristic::bench::RUNS;
    let mut runs = Vec::with_capacity(runs_count);
    let mut cost_sum = 0.0;
    let mut out = Vec::new();
    for _ in 0..runs_count {
        let start = Instant::now();
        let sum = batch_costs(eval, &families, &mut out);
        let secs = start.elapsed().as_secs_f64();
        cost_sum = black_box(sum);
        runs.push(secs * 1e6 / children.max(1) as f64);
    }
    EvaluatorBench {
        children,
        us_per_child: median(runs.clone()),
        runs_us_per_child: runs,
        cost_sum,
    }
}

/// Amdahl's law read backwards: the serial share `s` of a run that went
/// `speed_up` times faster on `threads` threads than on one, from
/// `speed_up = 1 / (s + (1 - s) / threads)`, so
/// `s = (threads / speed_up - 1) / (threads - 1)`. `None` for one thread
/// (nothing to compare) or a speed-up that is not a positive number. A
/// speed-up above `threads` gives a negative share: the callers say so
/// rather than hide it.
pub fn serial_share(threads: usize, speed_up: f64) -> Option<f64> {
    if threads < 2 || !(speed_up.is_finite() && speed_up > 0.0) {
        return None;
    }
    let n = threads as f64;
    Some((n / speed_up - 1.0) / (n - 1.0))
}

/// The speed-up Amdahl's law allows on `threads` threads when a share
/// `serial` of the one-thread time cannot run in parallel:
/// `1 / (s + (1 - s) / threads)`, with `s` taken as 0 when negative.
pub fn speed_up_limit(serial: f64, threads: usize) -> f64 {
    let s = serial.clamp(0.0, 1.0);
    1.0 / (s + (1.0 - s) / threads.max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amdahl_read_backwards_gives_the_share_that_predicts_the_speed_up() {
        // 10% serial: 1 / (0.1 + 0.9 / 8) = 4.705...
        let s8 = speed_up_limit(0.1, 8);
        assert!((s8 - 1.0 / (0.1 + 0.9 / 8.0)).abs() < 1e-12);
        let s = serial_share(8, s8).unwrap();
        assert!((s - 0.1).abs() < 1e-12, "{s}");
        assert_eq!(serial_share(2, 2.0), Some(0.0));
        assert_eq!(serial_share(4, 1.0), Some(1.0));
        assert!(serial_share(2, 2.5).unwrap() < 0.0);
        assert_eq!(serial_share(1, 1.0), None);
        assert_eq!(serial_share(4, 0.0), None);
        assert_eq!(serial_share(4, f64::NAN), None);
        assert_eq!(speed_up_limit(0.0, 128), 128.0);
        assert_eq!(speed_up_limit(1.0, 128), 1.0);
        assert_eq!(speed_up_limit(-0.5, 16), 16.0);
    }
}
