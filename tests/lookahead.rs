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
    fn walk(
        eval: &dyn Evaluator,
        well: &Well,
        score: f64,
        best: &mut f64,
        seen: &mut HashSet<Well>,
    ) {
        for piece in Piece::ALL {
            let mut children = Vec::new();
            MoveGen::new(well).children(piece, &mut children);
            match children.iter().map(|c| c.lines).max().unwrap_or(0) {
                0 => return,
                1 => {
                    let score = score + HYPOTHETICAL_LINE_WEIGHT;
                    for c in children.iter().filter(|c| c.lines == 1) {
                        if seen.insert(c.well) {
                            *best = best.min(eval.cost(&c.well, score));
                            walk(eval, &c.well, score, best, seen);
                        }
                    }
                    return;
                }
                _ => {}
            }
        }
    }
    let mut best = eval.cost(well, score);
    walk(eval, well, score, &mut best, &mut HashSet::new());
    best
}

/// The lookahead around the shipped net, batch and per well, equals its
/// slow twin on every child of every fifth mid-game well.
#[test]
fn the_lookahead_equals_its_slow_twin_on_mid_game_wells() {
    let net =
        NetEvaluator::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/nets/best.nnue"))
            .expect("data/nets/best.nnue");
    let look = Lookahead::new(net.clone(), DEFAULT_QUIESCENT_DEPTH);
    let mut out = Vec::new();
    let (mut checked, mut helped) = (0, 0);
    for well in mid_game_wells().iter().step_by(5) {
        for piece in Piece::ALL {
            let mut children = Vec::new();
            MoveGen::new(well).children(piece, &mut children);
            look.costs(well, 5, &children, &mut out);
            for (c, cost) in children.iter().zip(&out) {
                let score = f64::from(5 + u32::from(c.lines));
                let slow = slow_chain_cost(&net, &c.well, score);
                assert_eq!(cost.to_bits(), slow.to_bits(), "{}", c.well.to_numbers());
                assert_eq!(look.cost(&c.well, score).to_bits(), slow.to_bits());
                checked += 1;
                helped += usize::from(slow < net.cost(&c.well, score));
            }
        }
    }
    eprintln!("{checked} children, {helped} improved by a chain");
    assert!(checked > 20_000 && helped > 1_000, "{checked} {helped}");
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
