//! The quiescent lookahead's fast paths against their slow twins, on the
//! wells of real mid-game beams (`data/bench-wells-midgame.txt`, made by
//! [`write_mid_game_wells`]) and on random reachable wells.

use std::collections::HashSet;
use std::path::Path;

use hatetris::evaluate::{Evaluator, Lookahead, DEFAULT_QUIESCENT_DEPTH, HYPOTHETICAL_LINE_WEIGHT};
use hatetris::movegen::MoveGen;
use hatetris::nnue::NetEvaluator;
use hatetris::run::shards::Depth;
use hatetris::{Piece, Well};

/// The mid-game wells: the workload of `benches/lookahead.rs`.
pub fn mid_game_wells() -> Vec<Well> {
    hatetris::bench::read_wells(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bench-wells-midgame.txt"),
    )
    .expect("data/bench-wells-midgame.txt")
}

/// Writes `data/bench-wells-midgame.txt` from the run folder named by
/// `HATETRIS_SAMPLE_RUN`: 25 wells from each depth 20 to 60, evenly spaced
/// in the depth file's order (1,025 wells). The file in the tree was made
/// from a net + lookahead search:
///
/// ```text
/// hatetris search --net data/nets/best.nnue --quiescent --width 2000 \
///     --max-depth 60 --threads 1 --out /tmp/speed-midrun
/// HATETRIS_SAMPLE_RUN=/tmp/speed-midrun cargo test --release --test tests \
///     write_mid_game_wells -- --ignored
/// ```
#[test]
#[ignore = "writes data/bench-wells-midgame.txt from a run folder"]
fn write_mid_game_wells() {
    let dir = std::env::var("HATETRIS_SAMPLE_RUN").expect("HATETRIS_SAMPLE_RUN");
    let mut text = String::new();
    for d in 20..=60 {
        let entries = Depth::open(Path::new(&dir), d, None)
            .and_then(|f| f.read_all())
            .expect("a depth file");
        let n = entries.len();
        for i in 0..25 {
            text.push_str(&entries[i * n / 25].well.to_numbers());
            text.push('\n');
        }
    }
    std::fs::write(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bench-wells-midgame.txt"),
        text,
    )
    .expect("written");
}

/// The slow twin of the lookahead: every reachable placement of each piece
/// from the full move generator, the piece chosen by the largest clear over
/// all of them, every well's chain walked (a well met again skipped: it is
/// always met after the same number of clears, so at the same score).
fn slow_chain_cost(eval: &dyn Evaluator, well: &Well, score: f64) -> f64 {
    slow_chain_cost_with(eval, well, score, 0.0)
}

/// [`slow_chain_cost`] with `step_cost` added to a chain point's cost for
/// each clear that reached it.
fn slow_chain_cost_with(eval: &dyn Evaluator, well: &Well, score: f64, step_cost: f64) -> f64 {
    struct Walk<'a> {
        eval: &'a dyn Evaluator,
        step_cost: f64,
        best: f64,
        seen: HashSet<Well>,
    }
    fn walk(w: &mut Walk, well: &Well, score: f64, steps: u8) {
        for piece in Piece::ALL {
            let mut children = Vec::new();
            MoveGen::new(well).children(piece, &mut children);
            match children.iter().map(|c| c.lines).max().unwrap_or(0) {
                0 => return,
                1 => {
                    let score = score + HYPOTHETICAL_LINE_WEIGHT;
                    for c in children.iter().filter(|c| c.lines == 1) {
                        if w.seen.insert(c.well) {
                            let mut cost = w.eval.cost(&c.well, score);
                            if w.step_cost != 0.0 {
                                cost += w.step_cost * f64::from(steps + 1);
                            }
                            w.best = w.best.min(cost);
                            walk(w, &c.well, score, steps + 1);
                        }
                    }
                    return;
                }
                _ => {}
            }
        }
    }
    let mut w = Walk {
        eval,
        step_cost,
        best: eval.cost(well, score),
        seen: HashSet::new(),
    };
    walk(&mut w, well, score, 0);
    w.best
}

/// Checks the lookahead of the shipped net with `step_cost`, batch and per
/// well, against its slow twin on every child of every `stride`-th
/// mid-game well; returns how many children it checked and how many of
/// their costs differ from a plainer one (the net's without the chain, or
/// with `plain_chain` the chain's without the step cost).
fn check_against_slow_twin(step_cost: f64, stride: usize, plain_chain: bool) -> (usize, usize) {
    let net =
        NetEvaluator::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/nets/best.nnue"))
            .expect("data/nets/best.nnue");
    let look = Lookahead::new(net.clone(), DEFAULT_QUIESCENT_DEPTH).with_step_cost(step_cost);
    let mut out = Vec::new();
    let (mut checked, mut differs) = (0, 0);
    for well in mid_game_wells().iter().step_by(stride) {
        for piece in Piece::ALL {
            let mut children = Vec::new();
            MoveGen::new(well).children(piece, &mut children);
            look.costs(well, 5, &children, &mut out);
            for (c, cost) in children.iter().zip(&out) {
                let score = f64::from(5 + u32::from(c.lines));
                let slow = slow_chain_cost_with(&net, &c.well, score, step_cost);
                assert_eq!(cost.to_bits(), slow.to_bits(), "{}", c.well.to_numbers());
                assert_eq!(look.cost(&c.well, score).to_bits(), slow.to_bits());
                checked += 1;
                let plain = if plain_chain {
                    slow_chain_cost(&net, &c.well, score)
                } else {
                    net.cost(&c.well, score)
                };
                differs += usize::from(slow != plain);
            }
        }
    }
    (checked, differs)
}

/// The lookahead around the shipped net, batch and per well, equals its
/// slow twin on every child of every fifth mid-game well.
#[test]
fn the_lookahead_equals_its_slow_twin_on_mid_game_wells() {
    let (checked, helped) = check_against_slow_twin(0.0, 5, false);
    eprintln!("{checked} children, {helped} improved by a chain");
    assert!(checked > 20_000 && helped > 1_000, "{checked} {helped}");
}

/// A cost per hypothetical clear, batch and per well, equals its slow twin
/// on every child of every tenth mid-game well, and changes some costs.
#[test]
fn a_chain_step_cost_equals_its_slow_twin() {
    let step_cost = 0.05;
    let (checked, changed) = check_against_slow_twin(step_cost, 10, true);
    assert!(checked > 10_000 && changed > 500, "{checked} {changed}");
    // The identity names the cost, so a run resumes only under the same.
    let net =
        NetEvaluator::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/nets/best.nnue"))
            .expect("data/nets/best.nnue");
    let look = Lookahead::new(net.clone(), DEFAULT_QUIESCENT_DEPTH).with_step_cost(step_cost);
    assert_eq!(
        look.identity().get("chain_step_cost"),
        Some(&serde_json::json!(step_cost))
    );
    assert_eq!(
        Lookahead::new(net, DEFAULT_QUIESCENT_DEPTH)
            .identity()
            .get("chain_step_cost"),
        None
    );
}

/// `search --chain-step-cost` records the cost in the run, resumes under
/// it alone, names a disagreeing one, and is refused without a net and the
/// lookahead (one line, a non-zero exit).
#[test]
fn search_keeps_its_chain_step_cost_through_a_resume() {
    use crate::cli::{hatetris, stderr};
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/nets/best.nnue");
    let net = net.to_str().unwrap();
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("run");
    let dir = dir.to_str().unwrap();
    let search = |extra: &[&str]| {
        let mut args = vec!["search", "-q", "--threads", "1"];
        args.extend_from_slice(extra);
        hatetris(&args, None)
    };
    for refused in [
        &["--chain-step-cost", "0.05", "--quiescent", "--width", "20"][..],
        &["--chain-step-cost", "0.05", "--net", net, "--width", "20"],
        &["--chain-step-cost=-1", "--net", net, "--quiescent"],
        &["--chain-step-cost", "NaN", "--net", net, "--quiescent"],
    ] {
        let o = search(refused);
        assert!(!o.status.success(), "{refused:?}");
        assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
        assert!(stderr(&o).contains("--chain-step-cost"), "{}", stderr(&o));
    }
    let args = [
        "--net",
        net,
        "--quiescent",
        "--chain-step-cost",
        "0.05",
        "--width",
        "30",
        "--max-depth",
        "4",
        "--out",
        dir,
    ];
    let o = search(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/manifest.json")).unwrap())
            .unwrap();
    assert_eq!(
        manifest["settings"]["evaluator"]["chain_step_cost"],
        serde_json::json!(0.05),
        "{manifest}"
    );
    let o = hatetris(&["status", dir], None);
    assert!(
        crate::cli::stdout(&o).contains("lookahead depth 32, chain step cost 0.05"),
        "{}",
        crate::cli::stdout(&o)
    );
    let o = search(&["--resume", dir, "--chain-step-cost", "0.1"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("disagrees"), "{}", stderr(&o));
    let o = search(&["--resume", dir, "--max-depth", "6"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The resumed run is the one a single run to depth 6 makes.
    let whole = base.path().join("whole");
    let mut args = args.to_vec();
    let n = args.len();
    args[n - 1] = whole.to_str().unwrap();
    args[n - 3] = "6";
    assert!(search(&args).status.success());
    for d in 0..=6 {
        let name = format!("depth-{d:05}.beam");
        assert_eq!(
            std::fs::read(format!("{dir}/{name}")).unwrap(),
            std::fs::read(whole.join(&name)).unwrap(),
            "{name}"
        );
    }
}

/// `bench search --net --quiescent` searches with the net and the
/// lookahead, as `search` builds them: the same signature on 1 and 2
/// threads, the net named in the header and the JSON.
#[test]
fn bench_search_runs_the_record_configuration() {
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/nets/best.nnue");
    let o = crate::cli::hatetris(
        &[
            "bench",
            "search",
            "--net",
            net.to_str().unwrap(),
            "--quiescent",
            "--width",
            "200",
            "--depths",
            "6",
            "--threads",
            "1,2",
            "--json",
        ],
        None,
    );
    let text = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{text}");
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("search: width 200, 6 depths, threads 1,2, lookahead depth 32, net "),
        "{first}"
    );
    let all: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let runs = all["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["signature"], runs[1]["signature"]);
    assert!(runs[0]["ranker"].as_str().unwrap().starts_with("net "));
    assert_eq!(runs[0]["quiescent"], 32);
}
