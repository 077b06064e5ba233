//! Criterion bench of the beam's final cut: the kept set of a width-100,000
//! beam, built from the heuristic's costs of every child of the 2,000 wells
//! in `data/bench-wells.txt` (about 300,000 children), turned into the
//! next beam sorted by well.
//!
//! Two ways, on one thread each: `sorted_by_well` is the search's
//! ([`Bounded::into_sorted_by_well`]: one sort by well, then a selection
//! over indices and a cut that keeps the order); `cut_then_sort` cuts first
//! (the compaction of insertion) and sorts the survivors by well again, the
//! way the search did before `into_sorted_by_well`.

use criterion::{criterion_group, BatchSize, Criterion};
use hatetris::evaluate::Evaluator;
use hatetris::heuristic::{bench::bench_children, Knewjade, Weights};
use hatetris::search::bounded::{Bounded, Candidate};
use rayon::slice::ParallelSliceMut;

const WIDTH: usize = 100_000;

fn candidates() -> Vec<Candidate> {
    let wells = hatetris::bench::source_wells().expect("bench wells");
    let eval = Knewjade::new(Weights::default(), None);
    bench_children(&wells)
        .iter()
        .enumerate()
        .map(|(i, c)| Candidate {
            cost: eval.cost(&c.well, f64::from(c.lines)),
            well: c.well.pack(),
            parent: i as u32 / 150,
        })
        .collect()
}

fn filled(candidates: &[Candidate]) -> Bounded {
    let mut set = Bounded::new(WIDTH);
    for &c in candidates {
        set.insert(c);
    }
    set
}

fn select(c: &mut Criterion) {
    let candidates = candidates();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool");
    let ours = pool.install(|| filled(&candidates).into_sorted_by_well());
    let mut theirs = filled(&candidates).into_kept();
    theirs.sort_unstable_by_key(|c| c.well);
    assert_eq!(ours, theirs, "both ways keep the same beam");
    let mut group = c.benchmark_group("select");
    group.sample_size(20);
    group.bench_function("sorted_by_well", |b| {
        b.iter_batched(
            || filled(&candidates),
            |set| pool.install(|| set.into_sorted_by_well()),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("cut_then_sort", |b| {
        b.iter_batched(
            || filled(&candidates),
            |set| {
                pool.install(|| {
                    let mut kept = set.into_kept();
                    kept.par_sort_unstable_by_key(|c| c.well);
                    kept
                })
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, select);

fn main() {
    println!("{} candidates into a width of {WIDTH}", candidates().len());
    benches();
    Criterion::default().configure_from_args().final_summary();
}
