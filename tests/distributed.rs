//! The sharded depth (`hatetris::distributed`): whatever the number of timely
//! workers, one depth keeps exactly today's kernel's children, with the same
//! parents, in the same order.

use std::sync::Arc;

use hatetris::distributed;
use hatetris::enemy::EnemyKind;
use hatetris::run::{self, store::DepthFile};
use hatetris::search::{self, bounded::Candidate, Search, Silent};

use crate::beam::{flat_search, opts, Flat};
use crate::util::depth_files;

/// What identifies a kept child: its cost's bits, its well and its parent.
fn keys(kept: &[Candidate]) -> Vec<(u64, hatetris::well::PackedWell, u32)> {
    kept.iter()
        .map(|c| (c.cost.to_bits(), c.well, c.parent))
        .collect()
}

/// Runs today's search against `enemy` for `depths` at `width`, then checks
/// every depth sharded over 1, 2 and 3 workers against the kernel on the
/// same beam (and the kernel against the run's next depth file).
fn sharded_depths_equal_the_kernel(enemy: EnemyKind, width: usize, depths: u32) {
    let dir = tempfile::tempdir().unwrap();
    let search: Search = flat_search(width, enemy);
    search::start(dir.path(), &search, &opts(depths, 1), &Silent).unwrap();
    let mut sharded_any = false;
    for d in 0..depths {
        let file = DepthFile::open(&run::depth_path(dir.path(), d)).unwrap();
        let reference = search::expand_depth(&file, &search, 1).unwrap();
        let next = DepthFile::open(&run::depth_path(dir.path(), d + 1)).unwrap();
        let written: Vec<_> = next
            .read_all()
            .unwrap()
            .iter()
            .map(|s| s.well.pack())
            .collect();
        let wells: Vec<_> = reference.iter().map(|c| c.well).collect();
        assert_eq!(wells, written, "{enemy:?}: the kernel's depth {}", d + 1);
        let beam: Arc<[_]> = file.read_all().unwrap().into();
        for workers in 1..=3 {
            let got = distributed::expand_depth(
                Arc::clone(&beam),
                d,
                width,
                Arc::new(Flat),
                search.adversary,
                workers,
            )
            .unwrap()
            .kept;
            assert_eq!(
                keys(&got),
                keys(&reference),
                "{enemy:?}: depth {} on {workers} workers",
                d + 1
            );
        }
        sharded_any |= reference.len() == width;
    }
    assert!(
        sharded_any,
        "the beam reached its width: the cut was exercised"
    );
}

#[test]
fn sharded_depths_keep_the_kernels_children_against_mild() {
    sharded_depths_equal_the_kernel(EnemyKind::Mild, 500, 20);
}

#[test]
fn sharded_depths_keep_the_kernels_children_against_lovetris() {
    sharded_depths_equal_the_kernel(EnemyKind::Lovetris, 500, 20);
}

#[test]
fn a_sharded_depth_refuses_an_enemy_with_history() {
    let dir = tempfile::tempdir().unwrap();
    let search = flat_search(10, EnemyKind::Hatetris);
    search::start(dir.path(), &search, &opts(1, 1), &Silent).unwrap();
    let file = DepthFile::open(&run::depth_path(dir.path(), 0)).unwrap();
    let beam: Arc<[_]> = file.read_all().unwrap().into();
    let got = distributed::expand_depth(beam, 0, 10, Arc::new(Flat), search.adversary, 2);
    assert!(matches!(
        got,
        Err(distributed::DistributedError::History(EnemyKind::Hatetris))
    ));
}

/// A whole run whose depths are sharded over 1, 2 or 3 workers
/// (`Options::expander`, as `hatetris search --workers`) writes the same
/// depth files, byte for byte, as today's search.
#[test]
fn a_sharded_run_writes_the_same_depth_files() {
    for enemy in [EnemyKind::Mild, EnemyKind::Burgiel] {
        let search = flat_search(300, enemy);
        let plain = tempfile::tempdir().unwrap();
        search::start(plain.path(), &search, &opts(20, 1), &Silent).unwrap();
        for workers in 1..=3 {
            let sharded = tempfile::tempdir().unwrap();
            let mut o = opts(20, 1);
            o.expander = Some(Arc::new(distributed::Sharded {
                workers,
                width: search.width,
                evaluator: Arc::new(Flat),
                adversary: search.adversary,
            }));
            search::start(sharded.path(), &search, &o, &Silent).unwrap();
            assert_eq!(
                depth_files(sharded.path()),
                depth_files(plain.path()),
                "{enemy:?} on {workers} workers"
            );
        }
    }
}
