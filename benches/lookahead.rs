//! Criterion bench of the quiescent lookahead around the shipped net
//! (`data/nets/best.nnue`), on wells of real mid-game beams: the
//! evaluator's batch call ([`Evaluator::costs`], the search's one call per
//! parent) over every (well, piece) family of children, with and without
//! the lookahead. Criterion reports time per child (`Throughput::Elements`).
//!
//! The wells, `data/bench-wells-midgame.txt`, are 25 evenly spaced wells of
//! each depth 20 to 60 (1,025 wells) of a net + lookahead search:
//! `hatetris search --net data/nets/best.nnue --quiescent --width 2000
//! --max-depth 60 --threads 1 --out DIR`, then the ignored test
//! `write_mid_game_wells` (`tests/lookahead.rs`) with
//! `HATETRIS_SAMPLE_RUN=DIR`. They are tall, nearly full wells, where
//! chains of single-line clears are common, unlike most of
//! `data/bench-wells.txt` (random play), which hide the chains' cost.
//!
//! Before criterion runs, both workloads are timed by hand (median of five
//! runs) and printed with a cost-sum signature, which must not change when
//! the lookahead is made faster.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use criterion::{criterion_group, Criterion, Throughput};
use hatetris::evaluate::{Evaluator, Lookahead, DEFAULT_QUIESCENT_DEPTH};
use hatetris::movegen::{Child, MoveGen};
use hatetris::nnue::NetEvaluator;
use hatetris::{Piece, Well};

fn source(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// The children of each (well, piece), with their parent.
fn families() -> Vec<(Well, Vec<Child>)> {
    let wells = hatetris::bench::read_wells(&source("data/bench-wells-midgame.txt"))
        .expect("data/bench-wells-midgame.txt");
    let mut out = Vec::new();
    for well in &wells {
        let gen = MoveGen::new(well);
        for piece in Piece::ALL {
            let mut children = Vec::new();
            gen.children(piece, &mut children);
            out.push((*well, children));
        }
    }
    out
}

fn batch(eval: &dyn Evaluator, fams: &[(Well, Vec<Child>)], out: &mut Vec<f64>) -> f64 {
    let mut sum = 0.0;
    for (parent, children) in fams {
        eval.costs(black_box(parent), 0, children, out);
        sum += out.iter().sum::<f64>();
    }
    sum
}

fn evaluators() -> Vec<(&'static str, Box<dyn Evaluator>)> {
    let net = NetEvaluator::load(&source("data/nets/best.nnue")).expect("data/nets/best.nnue");
    vec![
        ("net", Box::new(net.clone())),
        (
            "net+quiescent",
            Box::new(Lookahead::new(net, DEFAULT_QUIESCENT_DEPTH)),
        ),
    ]
}

fn lookahead(c: &mut Criterion) {
    let fams = families();
    let children: usize = fams.iter().map(|f| f.1.len()).sum();
    let mut group = c.benchmark_group("lookahead");
    group.throughput(Throughput::Elements(children as u64));
    group.sample_size(10);
    let mut out = Vec::new();
    for (name, eval) in evaluators() {
        group.bench_function(name, |b| b.iter(|| batch(&*eval, &fams, &mut out)));
    }
    group.finish();
}

criterion_group!(benches, lookahead);

fn main() {
    let fams = families();
    let children: usize = fams.iter().map(|f| f.1.len()).sum();
    let mut out = Vec::new();
    for (name, eval) in evaluators() {
        let mut times = Vec::new();
        let mut sum = 0.0;
        for _ in 0..5 {
            let start = Instant::now();
            sum = batch(&*eval, &fams, &mut out);
            times.push(start.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{name}: {children} children of {} families, {:.3} us/child (median of 5), cost sum {:016x}",
            fams.len(),
            times[2] * 1e6 / children as f64,
            sum.to_bits()
        );
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
