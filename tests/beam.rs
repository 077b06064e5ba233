//! The beam search and keyframes: determinism across thread counts and
//! resumes, corruption handling, and the exported replay re-scoring exactly.

use std::path::Path;

use hatetris::enemy::EnemyKind;
use hatetris::evaluate::{Evaluator, Identity};
use hatetris::movegen::MoveGen;
use hatetris::reverse::parents;
use hatetris::run::keyframes::{self, Pick};
use hatetris::run::{self, store::DepthFile};
use hatetris::search::bounded::{compact_sorted, gather, Bounded, Candidate, Full};
use hatetris::search::{self, Adversary, Options, RunResult, Search, SearchError, Silent};
use hatetris::well::PackedWell;
use hatetris::{reference, replay, Piece, Well};
use proptest::prelude::*;

use crate::util::random_well;

/// A plain evaluator for tests: a low, flat stack with many lines is good.
pub struct Flat;

impl Evaluator for Flat {
    fn identity(&self) -> Identity {
        Identity::new().with("test", "flat")
    }

    fn cost(&self, well: &Well, score: f64) -> f64 {
        let rows = well.rows();
        let mut bumps = 0i32;
        let heights: Vec<i32> = (0..10)
            .map(|c| {
                rows.iter()
                    .position(|r| r >> c & 1 == 1)
                    .map_or(0, |i| 16 - i as i32)
            })
            .collect();
        for w in heights.windows(2) {
            bumps += (w[0] - w[1]).abs();
        }
        10.0 * well.height() as f64 + bumps as f64 - 100.0 * score
    }
}

/// The test search at `width` against `enemy`.
pub fn flat_search(width: usize, enemy: EnemyKind) -> Search<'static> {
    Search::new(width, &Flat, Adversary::new(enemy))
}

pub fn opts(max_depth: u32, threads: usize) -> Options {
    Options {
        max_depth,
        threads,
        release_memory: None,
        asked_threads: None,
        stop: None,
        expander: None,
    }
}

/// Starts a HATETRIS run of the flat evaluator.
pub fn start(
    dir: &Path,
    width: usize,
    max_depth: u32,
    threads: usize,
) -> Result<RunResult, SearchError> {
    search::start(
        dir,
        &flat_search(width, EnemyKind::Hatetris),
        &opts(max_depth, threads),
        &Silent,
    )
}

/// Resumes a HATETRIS run of the flat evaluator.
pub fn resume(
    dir: &Path,
    width: usize,
    max_depth: u32,
    threads: usize,
) -> Result<RunResult, SearchError> {
    search::resume(
        dir,
        &flat_search(width, EnemyKind::Hatetris),
        &opts(max_depth, threads),
        &Silent,
    )
}

/// Every depth file of a run, as (well, score) lists.
pub fn beams(dir: &Path) -> Vec<Vec<(Well, u16)>> {
    let m = run::read_manifest(dir).unwrap();
    (0..=m.depths.len() as u32)
        .map(|d| {
            let f = DepthFile::open(&run::depth_path(dir, d)).unwrap();
            f.read_all()
                .unwrap()
                .into_iter()
                .map(|s| (s.well, s.score))
                .collect()
        })
        .collect()
}

/// One and two threads give bit-identical beams at every depth.
#[test]
fn one_and_two_threads_give_identical_beams() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let ra = start(a.path(), 60, 25, 1).unwrap();
    let rb = start(b.path(), 60, 25, 2).unwrap();
    assert_eq!(ra.best, rb.best);
    assert_eq!(beams(a.path()), beams(b.path()));
}

/// Stopping and resuming gives the same run as going straight through.
#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    let straight = tempfile::tempdir().unwrap();
    let resumed = tempfile::tempdir().unwrap();
    start(straight.path(), 50, 24, 2).unwrap();
    start(resumed.path(), 50, 9, 1).unwrap();
    resume(resumed.path(), 50, 17, 2).unwrap();
    resume(resumed.path(), 50, 24, 1).unwrap();
    assert_eq!(beams(straight.path()), beams(resumed.path()));
}

/// A truncated newest depth file is detected and that depth is recomputed.
#[test]
fn a_truncated_depth_file_resumes_from_the_last_good_depth() {
    let clean = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    start(clean.path(), 40, 14, 1).unwrap();
    start(dir.path(), 40, 12, 1).unwrap();
    let last = run::depth_path(dir.path(), 12);
    let bytes = std::fs::read(&last).unwrap();
    std::fs::write(&last, &bytes[..bytes.len() / 2]).unwrap();
    assert!(DepthFile::open(&last).is_err());
    resume(dir.path(), 40, 14, 2).unwrap();
    assert_eq!(beams(clean.path()), beams(dir.path()));
}

/// Resuming with another width or evaluator is refused with a clear error.
#[test]
fn resume_refuses_different_settings() {
    let dir = tempfile::tempdir().unwrap();
    start(dir.path(), 30, 3, 1).unwrap();
    let err = resume(dir.path(), 31, 5, 1).unwrap_err();
    assert!(
        err.to_string()
            .contains("the beam width differs (run has 30, asked for 31)"),
        "{err}"
    );
    struct Other;
    impl Evaluator for Other {
        fn identity(&self) -> Identity {
            Identity::new().with("test", "other")
        }
        fn cost(&self, well: &Well, score: f64) -> f64 {
            Flat.cost(well, score)
        }
    }
    let other = Search {
        evaluator: &Other,
        ..flat_search(30, EnemyKind::Hatetris)
    };
    let err = search::resume(dir.path(), &other, &opts(5, 1), &Silent).unwrap_err();
    assert!(err.to_string().contains("the evaluator's test"), "{err}");
    let mild = flat_search(30, EnemyKind::Mild);
    let err = search::resume(dir.path(), &mild, &opts(5, 1), &Silent).unwrap_err();
    assert!(
        err.to_string()
            .contains("the enemy differs (run has hatetris, asked for mild)"),
        "{err}"
    );
    assert!(
        start(dir.path(), 30, 5, 1).is_err(),
        "a run folder is not overwritten"
    );
}

/// The rebuilt game replays, with the real enemy, to exactly the score the
/// search reported, through the Base2048 export.
#[test]
fn keyframes_export_a_replay_that_scores_the_search_score() {
    let dir = tempfile::tempdir().unwrap();
    let result = start(dir.path(), 200, 40, 2).unwrap();
    assert!(result.best.score > 0, "the test run should clear lines");
    for pick in [Pick::Best, Pick::Deepest] {
        let kf = keyframes::reconstruct(dir.path(), pick).unwrap();
        let text = replay::encode(&kf.keys, replay::Format::Base2048);
        let keys = replay::decode(&text).unwrap();
        let trace = replay::play(&keys, EnemyKind::Hatetris);
        assert_eq!(trace.score, kf.score() as u32, "{pick:?}");
        if pick == Pick::Best {
            assert_eq!(kf.score(), result.best.score);
            assert_eq!(kf.wells.len() as u32, result.best.depth);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Reverse moves: the parents of every forward child include the
    /// original well, and every parent listed really produces the child
    /// (checked with the reference BFS, not the generator that found it).
    #[test]
    fn reverse_moves_invert_forward_moves(steps in proptest::collection::vec((0u8..7, any::<u16>()), 0..40), piece in 0usize..7, pick in any::<u16>()) {
        let well = random_well(&steps);
        let piece = Piece::from_index(piece);
        let mut kids = Vec::new();
        MoveGen::new(&well).children(piece, &mut kids);
        prop_assume!(!kids.is_empty());
        let child = kids[pick as usize % kids.len()];
        let found = parents(&child.well, child.lines);
        prop_assert!(found.iter().any(|p| p.well == well && p.piece == piece));
        for p in found.iter().take(12) {
            let outs = reference::outcomes(&p.well.to_board(), p.piece);
            prop_assert!(outs.iter().any(|o| o.board == child.well.to_board() && o.lines == child.lines));
        }
    }
}

/// The plain twin of the beam's bounded set: a `BTreeSet` ordered by the
/// candidates' total order, and a well → best candidate map.
fn bounded_twin(cap: usize, offers: &[Candidate]) -> Vec<Candidate> {
    use std::collections::{BTreeSet, HashMap};
    let mut best: HashMap<PackedWell, Candidate> = HashMap::new();
    for &c in offers {
        let well = c.well;
        let e = best.entry(well).or_insert(c);
        if c < *e {
            *e = c;
        }
    }
    let set: BTreeSet<Candidate> = best.into_values().collect();
    let mut kept: Vec<Candidate> = set.into_iter().take(cap).collect();
    kept.sort_by_key(|c| c.well);
    kept
}

fn candidate((cost, well, parent): (u8, u8, u16)) -> Candidate {
    let mut rows = [0u16; 16];
    // 40 wells with 0 to 3 cells: few distinct costs and scores, so ties
    // are common.
    rows[15] = [0u16, 1, 3, 7][well as usize % 4] << (well as usize / 4 % 7);
    rows[14] = well as u16 / 28 % 2;
    Candidate {
        cost: (cost % 12) as f64 * 0.5,
        well: Well::from_live_rows(rows).unwrap().pack(),
        parent: parent as u32,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// The compacting buffer keeps exactly what the `BTreeSet` twin keeps,
    /// with duplicated wells, tied costs, and caps below and above the
    /// number of distinct wells (44), whatever the insertion order.
    #[test]
    fn bounded_set_equals_its_btreeset_twin(
        cap in 0usize..60,
        offers in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u16>()), 0..600),
    ) {
        let offers: Vec<Candidate> = offers.into_iter().map(candidate).collect();
        let mut set = Bounded::new(cap);
        for &c in &offers {
            set.insert(c);
        }
        let kept = set.into_sorted_by_well();
        let twin = bounded_twin(cap, &offers);
        prop_assert_eq!(kept.len(), twin.len());
        for (a, b) in kept.iter().zip(&twin) {
            prop_assert!(a == b, "{:?} != {:?}", a, b);
        }
    }

    /// The same through the path the search's threads take: full buffers
    /// taken out, compacted later and in any order (as other threads would,
    /// outside the lock, while offers go on), alone or gathered with the
    /// others taken out, or spilled uncompacted (as near a depth's end),
    /// then given back with their bars (kept whole when they fit with the
    /// held buffer, taken out again with it when they do not).
    #[test]
    fn bounded_set_with_buffers_compacted_out_of_order_equals_its_twin(
        cap in 0usize..60,
        offers in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u16>()), 0..600),
        delays in proptest::collection::vec(0usize..6, 1..50),
    ) {
        let offers: Vec<Candidate> = offers.into_iter().map(candidate).collect();
        let mut set = Bounded::new(cap);
        let mut taken: Vec<Full> = Vec::new();
        let mut step = 0;
        let mut settle_one = |set: &mut Bounded, taken: &mut Vec<Full>, last: bool| {
            if taken.is_empty() {
                return;
            }
            let delay = delays[step % delays.len()];
            step += 1;
            let mut emptied = Vec::new();
            let mut full = match delay {
                4 => gather(taken, |t| emptied.push(t)),
                _ if last => gather(taken, |t| emptied.push(t)),
                _ => taken.remove(delay % taken.len()),
            };
            for e in emptied {
                set.recycle(e);
            }
            if delay == 5 {
                set.spill(full.buf);
                return;
            }
            let bar = compact_sorted(&mut full.buf, full.settled, cap);
            set.give_back(full.buf, bar, taken);
        };
        for (i, &c) in offers.iter().enumerate() {
            if let Some(t) = set.offer(c) {
                taken.push(t);
            }
            if i % 7 == 0 {
                settle_one(&mut set, &mut taken, false);
            }
        }
        while !taken.is_empty() {
            settle_one(&mut set, &mut taken, true);
        }
        let kept = set.into_sorted_by_well();
        let twin = bounded_twin(cap, &offers);
        prop_assert_eq!(kept.len(), twin.len());
        for (a, b) in kept.iter().zip(&twin) {
            prop_assert!(a == b, "{:?} != {:?}", a, b);
        }
    }
}

/// The beam's ancestry gives the loop rule exactly what the game's history
/// gives it: following the loop-basis record (whose spawn 281 the rule turns
/// from S into Z) through a two-entry beam, with a decoy child beside the
/// record at every depth so that dead ancestors are collected, every piece
/// is the record's.
#[test]
fn the_beam_ancestry_reproduces_the_loop_rule_in_the_loop_basis_record() {
    use hatetris::enemy::hatetris_choice_with_children;
    use hatetris::search::ancestry::Ancestry;
    let records = crate::util::json_lines("replays.jsonl");
    let rec = records
        .iter()
        .find(|r| r["name"] == "knewjade loop basis")
        .expect("record");
    let wells: Vec<Well> = rec["wells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| Well::from_board_unchecked(&crate::util::board(v)))
        .collect();
    let pieces: Vec<char> = rec["pieces"].as_str().unwrap().chars().collect();
    let mut ancestry = Ancestry::root();
    let mut beam = vec![Well::EMPTY];
    // Every beam so far, for the ancestry to read its wells back from.
    let mut beams: Vec<Vec<Well>> = Vec::new();
    let mut children = Vec::new();
    let mut repeats_seen = 0;
    for (d, &letter) in pieces.iter().enumerate() {
        let own = beam[0];
        let gen = MoveGen::new(&own);
        let piece = hatetris_choice_with_children(
            &gen,
            ancestry.may_repeat_from(&own),
            |w| ancestry.count(0, &own, w),
            &mut children,
        );
        assert_eq!(Some(piece), Piece::from_letter(letter), "spawn {d}");
        let mut all = Vec::new();
        for p in Piece::ALL {
            gen.children(p, &mut all);
        }
        repeats_seen += all
            .iter()
            .filter(|c| ancestry.count(0, &own, &c.well) > 0)
            .count();
        if d + 1 == pieces.len() {
            break;
        }
        let next = wells[d];
        let decoy = children
            .iter()
            .map(|c| c.well)
            .find(|w| *w != next)
            .unwrap_or(next);
        let parents = if decoy == next { vec![0] } else { vec![0, 0] };
        beams.push(beam.clone());
        ancestry
            .push(parents, |d, indices| {
                Ok::<_, ()>(
                    indices
                        .iter()
                        .map(|&i| beams[d][i as usize].pack())
                        .collect(),
                )
            })
            .unwrap();
        beam = if decoy == next {
            vec![next]
        } else {
            vec![next, decoy]
        };
    }
    assert!(repeats_seen > 0, "the record revisits wells");
    assert!(ancestry.nodes() <= pieces.len() + 1);
}

/// The ancestry keeps no wells for its four newest levels, because a well
/// can only come back a multiple of 5 pieces later (each lock adds 4 cells,
/// each line removes 10). Games of O and I pieces kept flat (fewest cells,
/// then a random placement) come back to the same wells often; no repeat
/// may be at any other distance.
#[test]
fn a_well_can_only_repeat_a_multiple_of_five_pieces_later() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut repeats = 0;
    let mut children = Vec::new();
    for _game in 0..20 {
        let mut history = vec![Well::EMPTY];
        for _ in 0..300 {
            let well = *history.last().unwrap();
            let piece = [Piece::O, Piece::I][next(2)];
            children.clear();
            MoveGen::new(&well).children(piece, &mut children);
            let flat = |w: &Well| (w.height(), w.cells());
            let Some(best) = children.iter().map(|c| flat(&c.well)).min() else {
                break;
            };
            let low: Vec<Well> = children
                .iter()
                .filter(|c| flat(&c.well) == best)
                .map(|c| c.well)
                .collect();
            let pick = low[next(low.len())];
            if let Some(at) = history.iter().rposition(|w| *w == pick) {
                repeats += 1;
                let apart = history.len() - at;
                assert_eq!(apart % 5, 0, "a well repeated after {apart} pieces");
            }
            history.push(pick);
        }
    }
    assert!(repeats > 0, "the games revisit wells");
}

/// A search against Mild, LOVETRIS, Burgiel or Brzustowski records that enemy, and the
/// game rebuilt from it replays to the search's score under that enemy,
/// with that enemy's pieces.
#[test]
fn a_search_follows_its_enemy_into_the_rebuilt_game() {
    // The flat test evaluator never clears a line with I pieces alone.
    let eval = hatetris::heuristic::Knewjade::default();
    for enemy in [
        EnemyKind::Mild,
        EnemyKind::Lovetris,
        EnemyKind::Burgiel,
        EnemyKind::Brzustowski,
    ] {
        let dir = tempfile::tempdir().unwrap();
        let search = Search {
            evaluator: &eval,
            ..flat_search(100, enemy)
        };
        let result = search::start(dir.path(), &search, &opts(30, 2), &Silent).unwrap();
        assert_eq!(
            run::read_manifest(dir.path()).unwrap().settings.enemy,
            enemy
        );
        assert!(
            result.best.score > 0,
            "{enemy}: the test run should clear lines"
        );
        let kf = keyframes::reconstruct(dir.path(), Pick::Best).unwrap();
        assert_eq!(kf.score(), result.best.score, "{enemy}");
        let trace = replay::play(&kf.keys, enemy);
        assert_eq!(trace.score, result.best.score as u32, "{enemy}");
        let expected: Vec<Piece> = match enemy {
            EnemyKind::Lovetris => vec![Piece::I; kf.pieces.len()],
            EnemyKind::Burgiel => (0..kf.pieces.len())
                .map(|i| if i % 2 == 0 { Piece::S } else { Piece::Z })
                .collect(),
            _ => kf.pieces.clone(),
        };
        assert_eq!(kf.pieces, expected, "{enemy}");
    }
}

proptest! {
    /// The beam's Brzustowski state machine gives the game's own pieces on
    /// any sequence of wells (drawn from a few, so that wells repeat).
    #[test]
    fn the_search_brzustowski_state_gives_the_games_pieces(picks in proptest::collection::vec(0usize..4, 0..200)) {
        let pool = [
            Well::EMPTY,
            random_well(&[(0, 1)]),
            random_well(&[(1, 2), (2, 3)]),
            random_well(&[(3, 4), (4, 5), (5, 6)]),
        ];
        let wells: Vec<Well> = picks.iter().map(|&i| pool[i]).collect();
        let mut game = hatetris::enemy::Brzustowski::default();
        let expected: Vec<Piece> = wells.iter().map(|w| game.next(w)).collect();
        prop_assert_eq!(hatetris::search::adversary::brzustowski_pieces(&wells), expected);
    }
}

/// Brzustowski's per-entry states survive a resume: stopping and resuming
/// gives the same beams as going straight through.
#[test]
fn a_resumed_brzustowski_run_equals_an_uninterrupted_one() {
    let s = flat_search(50, EnemyKind::Brzustowski);
    let straight = tempfile::tempdir().unwrap();
    let resumed = tempfile::tempdir().unwrap();
    search::start(straight.path(), &s, &opts(30, 2), &Silent).unwrap();
    search::start(resumed.path(), &s, &opts(11, 1), &Silent).unwrap();
    search::resume(resumed.path(), &s, &opts(30, 2), &Silent).unwrap();
    assert_eq!(beams(straight.path()), beams(resumed.path()));
}

/// Prints the shape of a HATETRIS run's ancestry at its last depth: live
/// nodes per level, newest first, the young and mature parts and their
/// share of the beam (the figures of `docs/distributed.md` §5.1). A
/// measurement, not a check:
/// `HATETRIS_RUN=DIR cargo test --release --test tests ancestry_shape -- --ignored --nocapture`.
#[test]
#[ignore]
fn ancestry_shape_of_a_run() {
    use hatetris::run::{self, store::DepthFile};
    use hatetris::search::ancestry::Ancestry;
    let Ok(dir) = std::env::var("HATETRIS_RUN") else {
        eprintln!("set HATETRIS_RUN to a HATETRIS run folder");
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let depth = run::read_manifest(&dir).unwrap().depth;
    let beam = DepthFile::open(&run::depth_path(&dir, depth))
        .unwrap()
        .len();
    let bytes = std::fs::read(dir.join(format!("ancestry-{depth:05}.bin"))).unwrap();
    let ancestry = Ancestry::from_snapshot(&bytes, depth, beam).expect("a snapshot");
    let levels = ancestry.level_sizes();
    let newest: Vec<String> = levels
        .iter()
        .rev()
        .take(16)
        .map(|(n, mature)| format!("{n}{}", if *mature { "" } else { "*" }))
        .collect();
    type Levels = Vec<(usize, bool)>;
    let (young, mature): (Levels, Levels) = levels.iter().partition(|(_, m)| !m);
    let sum = |l: &[(usize, bool)]| l.iter().map(|(n, _)| n).sum::<usize>();
    let next = young.first().map_or(0, |(n, _)| *n);
    println!(
        "depth {depth}, beam {beam}: levels newest first (* young): {}; young {} ({:.2} N), mature {} ({:.2} N), next to mature {} ({:.2} N)",
        newest.join(" "),
        sum(&young),
        sum(&young) as f64 / beam as f64,
        sum(&mature),
        sum(&mature) as f64 / beam as f64,
        next,
        next as f64 / beam as f64
    );
}

/// The HATETRIS test search at `width` with a lineage cap.
fn capped(width: usize, back: u32, most: u32) -> Search<'static> {
    Search {
        lineage: Some(search::LineageCap { back, most }),
        ..flat_search(width, EnemyKind::Hatetris)
    }
}

/// A lineage-capped run gives the same beams on one thread and on two,
/// straight through and resumed twice, and not the beams of the same run
/// without the cap.
#[test]
fn a_lineage_capped_run_is_the_same_on_any_threads_and_after_resumes() {
    let (straight, resumed, free) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let search = capped(50, 4, 6);
    search::start(straight.path(), &search, &opts(26, 1), &Silent).unwrap();
    search::start(resumed.path(), &search, &opts(9, 2), &Silent).unwrap();
    search::resume(resumed.path(), &search, &opts(17, 1), &Silent).unwrap();
    search::resume(resumed.path(), &search, &opts(26, 2), &Silent).unwrap();
    start(free.path(), 50, 26, 1).unwrap();
    assert_eq!(beams(straight.path()), beams(resumed.path()));
    assert_ne!(beams(straight.path()), beams(free.path()));
    // The replay rebuilt from the capped run scores what it reported.
    let best = run::read_manifest(straight.path()).unwrap().best;
    let kf = keyframes::reconstruct(straight.path(), Pick::Best).unwrap();
    let trace = replay::play(&kf.keys, EnemyKind::Hatetris);
    assert_eq!(trace.score, u32::from(best.score));
}

/// A lineage cap needs an enemy with a history; a resume asking for
/// another cap than the run's is refused; neither leaves anything behind.
#[test]
fn a_lineage_cap_is_refused_where_it_cannot_apply() {
    let dir = tempfile::tempdir().unwrap();
    let mild = Search {
        lineage: Some(search::LineageCap { back: 3, most: 5 }),
        ..flat_search(30, EnemyKind::Mild)
    };
    let target = dir.path().join("mild");
    let err = search::start(&target, &mild, &opts(5, 1), &Silent).unwrap_err();
    assert!(
        err.to_string()
            .contains("needs an enemy that keeps a history"),
        "{err}"
    );
    assert!(!target.exists(), "no folder made");
    let run = dir.path().join("free");
    start(&run, 30, 3, 1).unwrap();
    let err = search::resume(&run, &capped(30, 3, 5), &opts(5, 1), &Silent).unwrap_err();
    assert!(err.to_string().contains("lineage"), "{err}");
    assert_eq!(run::read_manifest(&run).unwrap().depths.len(), 3);
}
