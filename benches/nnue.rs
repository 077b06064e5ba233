//! Criterion bench of the neural evaluator: the cost of every live child of
//! all seven pieces of the 2,000 wells in `data/bench-wells.txt` (297,749
//! children), one thread, next to the knewjade heuristic's.
//!
//! For each net (shared and positional layouts, H = 64 and 32, fresh
//! seeded weights: the time does not depend on the values) and each SIMD path
//! (scalar, AVX2 when the CPU has it), two ways:
//! - `full`: [`Evaluator::cost`] per child, all 120 features summed;
//! - `reuse`: [`Evaluator::costs`] per (parent, piece), the parent's
//!   accumulator updated for each child without a line clear.
//!
//! The quiescent lookahead is timed too, around the heuristic and around
//! the shared H = 64 net (its `cost` per child: the lookahead has no batch
//! path, so the net computes each child and chain well from scratch).
//!
//! Building the children is not timed. Before criterion runs, the same
//! workloads are timed by hand (median of five runs) and printed as one
//! table with a cost-sum signature per net, so one run gives every figure
//! under the same machine load.

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, Criterion, Throughput};
use hatetris::bench::{batch_costs, families};
use hatetris::evaluate::{Evaluator, Lookahead, DEFAULT_QUIESCENT_DEPTH};
use hatetris::heuristic::{Knewjade, Weights};
use hatetris::movegen::Child;
use hatetris::nnue::{Layout, Net, NetEvaluator, QuantNet, Simd};
use hatetris::Well;

fn wells() -> Vec<Well> {
    hatetris::bench::source_wells().expect("bench wells")
}

/// The nets timed: name and evaluator (default SIMD path).
fn nets() -> Vec<(String, NetEvaluator)> {
    [
        (64, Layout::Shared),
        (32, Layout::Shared),
        (64, Layout::Positional),
        (32, Layout::Positional),
    ]
    .into_iter()
    .map(|(h, layout)| {
        let net = Net::new(h, layout, 0.0, 1).expect("a net");
        let q = QuantNet::from_net(&net).expect("quantised");
        (format!("{}-h{h}", layout.name()), NetEvaluator::new(q))
    })
    .collect()
}

fn simd_paths() -> Vec<Simd> {
    [Simd::Scalar, Simd::Avx2]
        .into_iter()
        .filter(|k| k.is_available())
        .collect()
}

fn full(eval: &dyn Evaluator, fams: &[(Well, Vec<Child>)]) -> f64 {
    let mut sum = 0.0;
    for (_, children) in fams {
        for c in children {
            sum += eval.cost(black_box(&c.well), f64::from(c.lines));
        }
    }
    sum
}

/// Median µs per child over five runs, and the run's value.
fn time(children: usize, mut f: impl FnMut() -> f64) -> (f64, f64) {
    let mut runs = Vec::new();
    let mut value = 0.0;
    for _ in 0..5 {
        let start = Instant::now();
        value = black_box(f());
        runs.push(start.elapsed().as_secs_f64() * 1e6 / children as f64);
    }
    runs.sort_by(f64::total_cmp);
    (runs[2], value)
}

fn summary(fams: &[(Well, Vec<Child>)], nets: &[(String, NetEvaluator)]) {
    let children: usize = fams.iter().map(|(_, c)| c.len()).sum();
    let clears = fams
        .iter()
        .flat_map(|(_, c)| c)
        .filter(|c| c.lines > 0)
        .count();
    println!(
        "{children} children of {} wells, {clears} with a clear; µs per child, median of 5",
        fams.len() / 7
    );
    let h = Knewjade::new(Weights::dnf86(), None);
    let (us, _) = time(children, || full(&h, fams));
    println!("{:<16} {:<7} full {:>8.4}", "knewjade", "", us);
    let hq = Knewjade::new(Weights::dnf86(), Some(DEFAULT_QUIESCENT_DEPTH));
    let (us, _) = time(children, || full(&hq, fams));
    println!("{:<16} {:<7} full {:>8.4}", "knewjade+quiesc.", "", us);
    let mut out = Vec::new();
    for (name, net) in nets {
        for k in simd_paths() {
            let e = net.with_simd(k).expect("available");
            let (f, a) = time(children, || full(&e, fams));
            let (r, b) = time(children, || batch_costs(&e, fams, &mut out));
            println!(
                "{name:<16} {:<7} full {f:>8.4}  reuse {r:>8.4}  (signature {a:.6e} {b:.6e})",
                k.name()
            );
            if name == "shared-h64" && k == Simd::detect() {
                let q = Lookahead::new(e.clone(), DEFAULT_QUIESCENT_DEPTH);
                let (us, _) = time(children, || full(&q, fams));
                println!(
                    "{:<16} {:<7} full {us:>8.4}",
                    "shared-h64+quiesc.",
                    k.name()
                );
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let fams = families(&wells());
    let children: usize = fams.iter().map(|(_, c)| c.len()).sum();
    let nets = nets();
    let mut group = c.benchmark_group("nnue");
    group.throughput(Throughput::Elements(children as u64));
    group.sample_size(10);
    group.measurement_time(std::time::Duration::from_secs(4));
    let h = Knewjade::new(Weights::dnf86(), None);
    group.bench_function("knewjade/full", |b| b.iter(|| full(&h, &fams)));
    let mut out = Vec::new();
    for (name, net) in &nets {
        for k in simd_paths() {
            let e = net.with_simd(k).expect("available");
            group.bench_function(format!("{name}/{}/full", k.name()), |b| {
                b.iter(|| full(&e, &fams))
            });
            group.bench_function(format!("{name}/{}/reuse", k.name()), |b| {
                b.iter(|| batch_costs(&e, &fams, &mut out))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);

fn main() {
    summary(&families(&wells()), &nets());
    benches();
    Criterion::default().configure_from_args().final_summary();
}
