//! Criterion bench of the heuristic: the cost of every live child of all
//! seven pieces of the 2,000 wells in `data/bench-wells.txt`, with and
//! without the quiescent lookahead. Criterion reports time per child
//! (`Throughput::Elements`).
//!
//! Before criterion runs, the same workload goes through the library's
//! `bench_eval` (what `hatetris bench eval --json` prints), median of five
//! runs, and its JSON is printed, with and without the lookahead.

use criterion::{criterion_group, Criterion, Throughput};
use hatetris::evaluate::{Evaluator, DEFAULT_QUIESCENT_DEPTH};
use hatetris::heuristic::{bench::bench_children, bench_eval, Knewjade, Weights};
use hatetris::Well;

fn wells() -> Vec<Well> {
    hatetris::bench::source_wells().expect("bench wells")
}

fn eval(c: &mut Criterion) {
    let children = bench_children(&wells());
    let mut group = c.benchmark_group("eval");
    group.throughput(Throughput::Elements(children.len() as u64));
    group.sample_size(10);
    for (name, depth) in [
        ("knewjade", None),
        ("knewjade+quiescent", Some(DEFAULT_QUIESCENT_DEPTH)),
    ] {
        let evaluator = Knewjade::new(Weights::dnf86(), depth);
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut sum = 0.0;
                for child in &children {
                    sum += evaluator.cost(&child.well, f64::from(child.lines));
                }
                sum
            })
        });
    }
    group.finish();
}

criterion_group!(benches, eval);

fn main() {
    let wells = wells();
    for depth in [None, Some(DEFAULT_QUIESCENT_DEPTH)] {
        let result = bench_eval(&wells, Weights::default(), depth);
        println!("{}", serde_json::to_string(&result).expect("json"));
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
