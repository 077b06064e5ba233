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

use std::time::Instant;

use criterion::{criterion_group, Criterion, Throughput};
use hatetris::bench::{batch_costs, families, read_wells, source_path};
use hatetris::evaluate::{Evaluator, Lookahead, DEFAULT_QUIESCENT_DEPTH};
use hatetris::movegen::Child;
use hatetris::nnue::NetEvaluator;
use hatetris::Well;

/// The children of each (well, piece) of the mid-game wells.
fn midgame_families() -> Vec<(Well, Vec<Child>)> {
    let wells = read_wells(&source_path("data/bench-wells-midgame.txt"))
        .expect("data/bench-wells-midgame.txt");
    families(&wells)
}

fn evaluators() -> Vec<(&'static str, Box<dyn Evaluator>)> {
    let net = NetEvaluator::load(&source_path("data/nets/best.nnue")).expect("data/nets/best.nnue");
    vec![
        ("net", Box::new(net.clone())),
        (
            "net+quiescent",
            Box::new(Lookahead::new(net, DEFAULT_QUIESCENT_DEPTH)),
        ),
    ]
}

fn lookahead(c: &mut Criterion) {
    let fams = midgame_families();
    let children: usize = fams.iter().map(|f| f.1.len()).sum();
    let mut group = c.benchmark_group("lookahead");
    group.throughput(Throughput::Elements(children as u64));
    group.sample_size(10);
    let mut out = Vec::new();
    for (name, eval) in evaluators() {
        group.bench_function(name, |b| b.iter(|| batch_costs(&*eval, &fams, &mut out)));
    }
    group.finish();
}

criterion_group!(benches, lookahead);

fn main() {
    let fams = midgame_families();
    let children: usize = fams.iter().map(|f| f.1.len()).sum();
    let mut out = Vec::new();
    for (name, eval) in evaluators() {
        let mut times = Vec::new();
        let mut sum = 0.0;
        for _ in 0..5 {
            let start = Instant::now();
            sum = batch_costs(&*eval, &fams, &mut out);
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
