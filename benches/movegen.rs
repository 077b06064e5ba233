//! Criterion benches of the move generator: named wells, then the 2,000
//! bench wells. `hatetris bench movegen` gives the headline medians; this
//! gives per-well detail and regressions over time.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use hatetris::enemy::mild_choice;
use hatetris::movegen::{Cached, Child, Direct, MoveGen};
use hatetris::{Piece, Well};

/// Wells drawn as binary rows (bit 0, the leftmost column, is on the right
/// in a binary literal, so these read mirrored).
fn named() -> Vec<(&'static str, Well)> {
    let mut tall = [0u16; 16];
    let pattern = [
        0b01_1111_1110,
        0b11_1110_1111,
        0b01_1111_1101,
        0b11_0111_1111,
    ];
    for (i, row) in tall.iter_mut().enumerate().skip(4) {
        *row = pattern[i % 4];
    }
    let mut low = [0u16; 16];
    low[15] = 0b11_1101_1111;
    low[14] = 0b00_0000_0111;
    vec![
        ("empty", Well::EMPTY),
        ("low", Well::from_live_rows(low).unwrap()),
        ("tall", Well::from_live_rows(tall).unwrap()),
    ]
}

fn bench_wells() -> Vec<Well> {
    hatetris::bench::source_wells().expect("bench wells")
}

fn movegen(c: &mut Criterion) {
    let mut buf: Vec<Child> = Vec::with_capacity(512);
    let mut g = c.benchmark_group("named");
    for (name, well) in named() {
        g.bench_with_input(BenchmarkId::new("choice", name), &well, |b, w| {
            b.iter(|| mild_choice(&MoveGen::new(black_box(w))))
        });
        g.bench_with_input(BenchmarkId::new("all7_children", name), &well, |b, w| {
            b.iter(|| {
                buf.clear();
                let gen = MoveGen::new(black_box(w));
                for p in Piece::ALL {
                    gen.children(p, &mut buf);
                }
                buf.len()
            })
        });
    }
    g.finish();

    let wells = bench_wells();
    let mut g = c.benchmark_group("bench_wells_2000");
    g.sample_size(20);
    g.bench_function("choice", |b| {
        b.iter(|| {
            wells
                .iter()
                .map(|w| mild_choice(&MoveGen::new(w)) as usize)
                .sum::<usize>()
        })
    });
    g.bench_function("choice_direct_transitions", |b| {
        b.iter(|| {
            wells
                .iter()
                .map(|w| MoveGen::new(w).highest_peak_with(Piece::S, &mut Direct))
                .sum::<usize>()
        })
    });
    let mut cache = Cached::default();
    g.bench_function("choice_cached_transitions", |b| {
        b.iter(|| {
            wells
                .iter()
                .map(|w| MoveGen::new(w).highest_peak_with(Piece::S, &mut cache))
                .sum::<usize>()
        })
    });
    g.bench_function("chosen_children", |b| {
        b.iter(|| {
            let mut n = 0;
            for w in &wells {
                let gen = MoveGen::new(w);
                buf.clear();
                gen.children(mild_choice(&gen), &mut buf);
                n += buf.len();
            }
            n
        })
    });
    g.bench_function("all7_children", |b| {
        b.iter(|| {
            let mut n = 0;
            for w in &wells {
                let gen = MoveGen::new(w);
                buf.clear();
                for p in Piece::ALL {
                    gen.children(p, &mut buf);
                }
                n += buf.len();
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, movegen);
criterion_main!(benches);
