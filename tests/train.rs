//! The trainer: the small search against a game played by the real enemy,
//! the data files, a whole tiny run of two generations, and a resumed run
//! against an uninterrupted one.

use std::fs;
use std::path::Path;

use hatetris::enemy::Enemy;
use hatetris::evaluate::Evaluator;
use hatetris::heuristic::Knewjade;
use hatetris::nnue::{Layout, Net, Rng};
use hatetris::piece::Piece;
use hatetris::search::small::{self, Shape, Survival};
use hatetris::search::Silent;
use hatetris::train::data::{self, Sampled};
use hatetris::train::{self, Config, FitConfig, TrainError};
use hatetris::{EnemyKind, MoveGen, Well};

use crate::util::{depth_files, random_well};

fn random_wells(n: usize, seed: u64, most: usize) -> Vec<Well> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let len = 2 + rng.below(most - 1);
            let steps: Vec<(u8, u16)> = (0..len)
                .map(|_| (rng.below(7) as u8, rng.below(1 << 16) as u16))
                .collect();
            random_well(&steps)
        })
        .collect()
}

/// The slow twin of a width-1 small search: a game played by the real
/// enemy of `kind` (with its history, from a fresh enemy at `start`),
/// always taking the lowest-cost child (ties: the lower well). Also
/// returns the pieces the enemy gave.
fn greedy_game(
    start: &Well,
    pieces: u32,
    kind: EnemyKind,
    eval: &dyn Evaluator,
) -> (Survival, Vec<Piece>) {
    let mut enemy = Enemy::new(kind);
    let mut well = *start;
    let mut lines = 0u32;
    let mut given = Vec::new();
    for depth in 1..=pieces {
        let piece = enemy.next_piece(&well);
        given.push(piece);
        let mut children = Vec::new();
        MoveGen::new(&well).children(piece, &mut children);
        let best = children.iter().min_by(|a, b| {
            let ca = eval.cost(&a.well, f64::from(lines + u32::from(a.lines)));
            let cb = eval.cost(&b.well, f64::from(lines + u32::from(b.lines)));
            ca.total_cmp(&cb).then(a.well.cmp(&b.well))
        });
        match best {
            None => return (Survival::Died { at: depth }, given),
            Some(c) => {
                lines += u32::from(c.lines);
                well = c.well;
            }
        }
    }
    let best = -eval.cost(&well, 0.0);
    (Survival::Survived { best }, given)
}

/// The small search's loop prevention is exact for every enemy: at width
/// 1 it is the game the real enemy plays, from short games off random
/// wells and long ones (where wells repeat: Brzustowski switches to Z).
#[test]
fn a_width_one_small_search_plays_the_game_the_real_enemy_plays_for_every_enemy() {
    let eval = Knewjade::default();
    for kind in EnemyKind::ALL {
        let (mut died, mut survived, mut z) = (0, 0, 0);
        let short = random_wells(60, 7, 40).into_iter().map(|w| (w, 12));
        let long = random_wells(12, 11, 10).into_iter().map(|w| (w, 150));
        for (well, pieces) in short.chain(long).chain([(Well::EMPTY, 400)]) {
            let shape = Shape { width: 1, pieces };
            let got = small::survive(&well, shape, kind, &eval, |w| -eval.cost(w, 0.0));
            let (want, given) = greedy_game(&well, pieces, kind, &eval);
            assert_eq!(got, want, "{kind}, {pieces} pieces from\n{well}");
            match got {
                Survival::Died { .. } => died += 1,
                Survival::Survived { .. } => survived += 1,
            }
            z += given.iter().filter(|&&p| p == Piece::Z).count();
        }
        eprintln!("{kind}: {died} died, {survived} survived, {z} Z pieces");
        assert!(died > 0, "{kind}: no game died");
        if kind == EnemyKind::Brzustowski {
            assert!(z > 0, "no well repeated, so no Z was given");
        }
    }
}

/// [`small::survive_past`] is [`small::survive`] over the beam's own
/// pieces, and then the same beam played to the horizon: its later death,
/// or its best value there (the far targets').
#[test]
fn a_training_beam_played_past_its_pieces_is_the_same_beam_longer() {
    let eval = Knewjade::default();
    let value = |w: &Well| -eval.cost(w, 0.0);
    let shape = Shape {
        width: 3,
        pieces: 4,
    };
    let (mut early, mut later, mut far) = (0, 0, 0);
    for well in random_wells(80, 23, 40) {
        let past = small::survive_past(&well, shape, 12, EnemyKind::Hatetris, &eval, value);
        let got = past.survival;
        assert_eq!(
            got,
            small::survive(&well, shape, EnemyKind::Hatetris, &eval, value)
        );
        let longer = Shape {
            pieces: 12,
            ..shape
        };
        let want = match got {
            Survival::Died { .. } => None,
            Survival::Survived { .. } => Some(small::survive(
                &well,
                longer,
                EnemyKind::Hatetris,
                &eval,
                value,
            )),
        };
        assert_eq!(past.later, want, "from\n{well}");
        early += usize::from(matches!(got, Survival::Died { .. }));
        later += usize::from(past.later_death().is_some());
        far += usize::from(past.far_best().is_some());
        // Without a horizon past its pieces, there is nothing later.
        let none = small::survive_past(&well, shape, 4, EnemyKind::Hatetris, &eval, value);
        assert_eq!((none.survival, none.later), (got, None));
    }
    assert!(
        early > 0 && later > 0 && far > 0,
        "{early} died early, {later} later, {far} lived on"
    );
}

#[test]
fn a_training_beam_that_reaches_its_last_piece_is_not_dead() {
    // The public trainer's bug: reaching the depth limit counted as death,
    // so every target was the lost value.
    let eval = Knewjade::default();
    let shape = Shape {
        width: 20,
        pieces: 10,
    };
    let out = small::survive(&Well::EMPTY, shape, EnemyKind::Hatetris, &eval, |w| {
        -eval.cost(w, 0.0)
    });
    assert!(
        matches!(out, Survival::Survived { best } if best.is_finite()),
        "{out:?}"
    );
}

#[test]
fn data_files_round_trip_and_refuse_damage() {
    let dir = tempfile::tempdir().unwrap();
    let wells = random_wells(50, 3, 30);
    let samples: Vec<Sampled> = wells
        .iter()
        .enumerate()
        .map(|(i, w)| Sampled {
            well: *w,
            depth: i as u32,
        })
        .collect();
    let sp = dir.path().join("samples.bin");
    data::save_samples(&sp, &samples).unwrap();
    assert_eq!(data::load_samples(&sp).unwrap(), samples);
    let targets: Vec<f32> = (0..50).map(|i| i as f32 * 0.5 - 3.0).collect();
    let tp = dir.path().join("targets.bin");
    data::save_targets(&tp, &targets).unwrap();
    assert_eq!(data::load_targets(&tp).unwrap(), targets);
    // One flipped bit, a cut, and the other file's kind are refused.
    let mut bytes = fs::read(&sp).unwrap();
    bytes[40] ^= 1;
    fs::write(&sp, &bytes).unwrap();
    let e = data::load_samples(&sp).unwrap_err().to_string();
    assert!(e.contains("damaged"), "{e}");
    let bytes = fs::read(&tp).unwrap();
    fs::write(&tp, &bytes[..bytes.len() - 3]).unwrap();
    assert!(data::load_targets(&tp).is_err());
    data::save_targets(&tp, &targets).unwrap();
    let e = data::load_samples(&tp).unwrap_err().to_string();
    assert!(e.contains("not a HTSAMPL file"), "{e}");
}

/// Settings small enough for a debug build in CI.
fn tiny() -> Config {
    Config {
        hidden: 16,
        master_width: 50,
        master_depth: 10_000,
        quiescent: 32,
        samples: 400,
        heuristic_samples: 2500,
        children: 1,
        chain_points: true,
        beam: Shape {
            width: 8,
            pieces: 10,
        },
        beam_lookahead: false,
        lost_value: -4.0,
        standardise: true,
        fit: FitConfig {
            batch: 32,
            max_epochs: 25,
            patience: 4,
            learning_rate: 3e-3,
            weight_decay: 0.0,
            validation: 0.2,
            rank_weight: 0.0,
            rank_validation: false,
            average: 1,
            blend: 1.0,
            positional: false,
            widen: 0,
        },
        seed: 5,
        learning: None,
    }
}

/// A copy of the training folder `from` in `to` as a trainer killed in
/// generation `g`'s gate leaves it: the gate's verdict, the summary and
/// `champion.json` not yet written.
fn killed_in_gate(from: &Path, to: &Path, g: u32) {
    fs::create_dir_all(to).unwrap();
    copy_tree(from, to);
    for name in ["gate.json", "generation.json"] {
        fs::remove_file(train::generation_dir(to, g).join(name)).unwrap();
    }
    fs::remove_file(train::champion_path(to)).unwrap();
}

/// Copies the folder `from` into `to`, recursively.
fn copy_tree(from: &Path, to: &Path) {
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            fs::create_dir_all(&target).unwrap();
            copy_tree(&e.path(), &target);
        } else {
            fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Every file of a training folder but the master beams' (which their own
/// tests cover) and the lock, by relative name.
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for g in 0.. {
        let gen = train::generation_dir(dir, g);
        if !gen.is_dir() {
            break;
        }
        for name in ["samples.bin", "targets.bin", "net.f32", "net.nnue"] {
            let p = gen.join(name);
            if p.exists() {
                out.push((format!("gen-{g}/{name}"), fs::read(p).unwrap()));
            }
        }
    }
    out
}

/// A generation resumed after a kill reports what its steps cost when they
/// were computed (`seconds.json`), not the time to read them back.
#[test]
fn a_resumed_generation_reports_its_steps_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let first = train::train(d, Some(&tiny()), None, 1, 1, &Silent).unwrap();
    let g0 = &first.generations[0];
    let gen = train::generation_dir(d, 0);
    let recorded: std::collections::BTreeMap<String, f64> =
        serde_json::from_slice(&fs::read(gen.join("seconds.json")).unwrap()).unwrap();
    for step in ["samples", "targets", "fit"] {
        assert!(recorded[step] > 0.0, "{step}: {recorded:?}");
    }
    assert_eq!(g0.data_seconds, recorded["samples"] + recorded["targets"]);
    assert_eq!(g0.fit_seconds, recorded["fit"]);
    // Killed after its steps, before its summary: the summary made again
    // carries the same figures.
    fs::remove_file(gen.join("generation.json")).unwrap();
    let again = train::train(d, None, None, 1, 1, &Silent).unwrap();
    let g = &again.generations[0];
    assert_eq!(
        (g.data_seconds, g.fit_seconds, g.core_seconds),
        (g0.data_seconds, g0.fit_seconds, g0.core_seconds)
    );
}

#[test]
fn a_tiny_run_learns_the_heuristic_then_trains_on_varied_targets() {
    let dir = tempfile::tempdir().unwrap();
    let report = train::train(dir.path(), Some(&tiny()), None, 2, 2, &Silent).unwrap();
    assert_eq!(report.generations.len(), 2);
    let g0 = &report.generations[0];
    let g1 = &report.generations[1];
    // Generation 0's targets are standardised heuristic values (variance
    // 1); the net must explain most of it on held-out wells.
    eprintln!(
        "generation 0: validation loss {:.4}; generation 1: validation loss {:.4}, targets {:.3} ± {:.3}",
        g0.validation_loss, g1.validation_loss, g1.target_mean, g1.target_std
    );
    assert!(
        g0.validation_loss < 0.2,
        "generation 0 validation loss {}",
        g0.validation_loss
    );
    assert!(g0.master.score > 0 && report.last_master.is_some());
    // Targets of a later generation are never all one value.
    for g in [g0, g1] {
        assert!(
            g.target_std > 0.05,
            "generation {}: targets {} ± {}",
            g.generation,
            g.target_mean,
            g.target_std
        );
    }
    assert!(g1.died < g1.samples, "every training beam died");
    // The folder holds every step's result, the log and the picture.
    for g in 0..2 {
        let gen = train::generation_dir(dir.path(), g);
        for name in [
            "master.json",
            "samples.bin",
            "targets.bin",
            "net.f32",
            "net.nnue",
            "fit.json",
            "generation.json",
        ] {
            assert!(gen.join(name).exists(), "gen {g}: {name}");
        }
    }
    let svg = fs::read_to_string(train::plot_path(dir.path())).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("validation"));
    let log = fs::read_to_string(train::log_path(dir.path())).unwrap();
    let events: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(events.iter().any(|e| e["event"] == "epoch"));
    assert_eq!(
        events.iter().filter(|e| e["event"] == "generation").count(),
        2
    );

    // Going on in steps, after losing the second generation's targets
    // half-way, makes the same files as the run above.
    let other = tempfile::tempdir().unwrap();
    train::train(other.path(), Some(&tiny()), None, 1, 1, &Silent).unwrap();
    let gen1 = train::generation_dir(other.path(), 1);
    let full = dir.path().join("gen-001/targets.bin");
    let half: Vec<f32> = data::load_targets(&full).unwrap()[..150].to_vec();
    fs::create_dir_all(&gen1).unwrap();
    for name in ["master.json", "samples.bin"] {
        fs::copy(dir.path().join("gen-001").join(name), gen1.join(name)).unwrap();
    }
    data::save_targets(&gen1.join("targets-partial.bin"), &half).unwrap();
    train::train(other.path(), None, None, 2, 2, &Silent).unwrap();
    let (got, want) = (outputs(other.path()), outputs(dir.path()));
    assert_eq!(
        got.iter().map(|f| &f.0).collect::<Vec<_>>(),
        want.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for ((name, a), (_, b)) in got.iter().zip(&want) {
        assert!(a == b, "{name} differs after the resume");
    }

    // A folder started from a net trains on training beams at once, and
    // keeps its own copy of the net.
    let from = hatetris::nnue::Net::load(&dir.path().join("gen-001/net.f32")).unwrap();
    let third = tempfile::tempdir().unwrap();
    let r = train::train(third.path(), Some(&tiny()), Some(&from), 1, 2, &Silent).unwrap();
    let g0 = &r.generations[0];
    assert!(third.path().join("from.f32").exists());
    assert!(!third.path().join("gen-000/units.json").exists());
    assert!(
        g0.died > 0 && g0.died < g0.samples,
        "{} of {} died",
        g0.died,
        g0.samples
    );
    // Its master beam is the one that measured the same net before.
    let before = report.last_master.clone().unwrap();
    assert_eq!(
        (&g0.master.evaluator, g0.master.score, g0.master.depth),
        (&before.evaluator, before.score, before.depth)
    );
    // The same command goes on, --from and all; another start net, or one
    // given to a folder started without it, is refused.
    let again = train::train(third.path(), None, Some(&from), 1, 2, &Silent).unwrap();
    assert_eq!(again.generations.len(), 1);
    let another = hatetris::nnue::Net::load(&dir.path().join("gen-000/net.f32")).unwrap();
    let e = train::train(third.path(), None, Some(&another), 1, 2, &Silent).unwrap_err();
    assert!(e.to_string().contains("started from another net"), "{e}");
    let e = train::train(dir.path(), None, Some(&from), 2, 2, &Silent).unwrap_err();
    assert!(e.to_string().contains("started without --from"), "{e}");

    // Other settings on an existing folder are refused, naming them.
    let mut changed = tiny();
    changed.samples = 500;
    let e = train::train(other.path(), Some(&changed), None, 2, 1, &Silent).unwrap_err();
    assert!(matches!(e, TrainError::Config { .. }), "{e}");
    assert!(e.to_string().contains("samples 400, not 500"), "{e}");
}

#[test]
fn a_search_with_a_net_is_the_same_on_one_and_two_threads_and_after_a_resume() {
    use hatetris::evaluate::Lookahead;
    use hatetris::nnue::{Layout, Net, NetEvaluator, QuantNet};
    use hatetris::search::{self, Adversary, Options, Search};

    let net = Net::new(32, Layout::Shared, 0.5, 9).unwrap();
    let eval = Lookahead::new(NetEvaluator::new(QuantNet::from_net(&net).unwrap()), 32);
    let search = Search::new(300, &eval, Adversary::new(EnemyKind::Hatetris));
    let opts = |threads, max_depth| Options {
        max_depth,
        threads,
        release_memory: None,
        asked_threads: None,
        stop: None,
        expander: None,
    };
    let base = tempfile::tempdir().unwrap();
    let (one, two, resumed) = (
        base.path().join("one"),
        base.path().join("two"),
        base.path().join("resumed"),
    );
    let a = search::start(&one, &search, &opts(1, 40), &Silent).unwrap();
    let b = search::start(&two, &search, &opts(2, 40), &Silent).unwrap();
    drop(search::start(&resumed, &search, &opts(2, 17), &Silent).unwrap());
    let c = search::resume(&resumed, &search, &opts(1, 40), &Silent).unwrap();
    assert_eq!(a.best, b.best);
    assert_eq!(a.best, c.best);
    let want = depth_files(&one);
    assert!(want.len() > 18, "the beam died at depth {}", want.len());
    assert!(depth_files(&two) == want, "1 and 2 threads differ");
    assert!(depth_files(&resumed) == want, "the resumed run differs");
}

/// The tiny settings with a tiny learning loop: a window of two
/// generations, a few steady-state samples, a narrow gate.
fn tiny_learning() -> Config {
    let learning = train::Learning {
        window: 2,
        start_samples: 150,
        start_beam: Shape {
            width: 6,
            pieces: 6,
        },
        start_every: 200,
        gate: train::Gate {
            width: 6,
            games: train::Learning::default().gate.games,
            cap: 25,
            first: 150,
            every: 300,
            openings: train::Learning::default().gate.openings[..1].to_vec(),
            opening_every: 60,
            margin: 0.0,
            block: 0,
            wide: Vec::new(),
            wide_from: Vec::new(),
            wide_rotate: 0,
            wide_always: false,
            wide_slack: 0,
            rotate: Vec::new(),
            wide_game: None,
        },
        ..train::Learning::default()
    };
    Config {
        beam: Shape {
            width: 8,
            pieces: 12,
        },
        learning: Some(learning),
        ..tiny()
    }
}

/// The learning loop from a start net: every generation is gated against
/// the champion, whose figures never fall, and `champion.json` names it;
/// the fit reads the window; the same files on 1 and 2 threads and after a
/// kill in the middle of the second generation's targets.
#[test]
fn the_learning_loop_gates_its_nets_and_resumes_to_the_same_files() {
    let start = hatetris::nnue::Net::new(16, hatetris::nnue::Layout::Shared, -0.5, 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let report = train::train(
        dir.path(),
        Some(&tiny_learning()),
        Some(&start),
        3,
        2,
        &Silent,
    )
    .unwrap();
    assert_eq!(report.generations.len(), 3);
    let gates = train::gates(dir.path()).unwrap();
    assert_eq!(gates.len(), 3);
    let mut champion: Option<u32> = None;
    let mut best = 0.0f64;
    for (g, gate) in gates.iter().enumerate() {
        assert_eq!(gate.generation, g as u32);
        // The empty well and pieces 150, 450 and 750 of the 366-line
        // record, then pieces 60 and 120 of the one opening game.
        assert_eq!(gate.outcomes.len(), 6, "generation {g}");
        assert_eq!(gate.champion, champion, "generation {g}'s champion");
        assert_eq!(
            gate.outcomes.len(),
            gate.candidate.deaths as usize + gate.outcomes.iter().filter(|o| !o.died).count()
        );
        if g > 0 {
            assert_eq!(gate.champion_figures.pieces_mean, best, "generation {g}");
        }
        if gate.kept {
            assert!(
                gate.candidate.pieces > gate.champion_figures.pieces
                    || (gate.candidate.pieces == gate.champion_figures.pieces
                        && gate.candidate.lines_mean > gate.champion_figures.lines_mean),
                "{}",
                gate.why
            );
            champion = Some(g as u32);
            best = gate.candidate.pieces_mean;
        } else {
            best = gate.champion_figures.pieces_mean;
        }
        let summary = &report.generations[g].gate.clone().unwrap();
        assert_eq!(summary.kept, gate.kept);
        assert_eq!(summary.champion, champion);
        // Steady-state samples and graded deaths.
        let gen = train::generation_dir(dir.path(), g as u32);
        let samples = data::load_samples(&gen.join("samples.bin")).unwrap();
        assert!(samples.iter().any(|s| s.depth > 150), "generation {g}");
        let died = data::load_targets(&gen.join("died.bin")).unwrap();
        assert_eq!(died.len(), samples.len());
        assert!(died.iter().all(|d| (0.0..=12.0).contains(d)));
    }
    let pointer: train::Champion =
        serde_json::from_str(&fs::read_to_string(train::champion_path(dir.path())).unwrap())
            .unwrap();
    assert_eq!(pointer.generation, champion);
    assert_eq!(pointer.through, 2);
    // A master beam whose champion did not change is the previous one,
    // and each generation draws its own samples from it.
    for g in 1..3 {
        let m = &report.generations[g].master;
        let unchanged = !gates[g - 1].kept;
        assert_eq!(m.reused_from.is_some(), unchanged, "generation {g}");
        let samples =
            |g: u32| fs::read(train::generation_dir(dir.path(), g).join("samples.bin")).unwrap();
        assert!(samples(g as u32) != samples(g as u32 - 1), "generation {g}");
    }
    let svg = fs::read_to_string(train::plot_path(dir.path())).unwrap();
    assert!(svg.contains("Gate"));
    // `plot DIR` redraws both pictures from the files alone.
    fs::remove_file(dir.path().join("progress.png")).unwrap();
    train::redraw(dir.path()).unwrap();
    assert!(dir.path().join("progress.png").exists());
    assert_eq!(
        fs::read_to_string(train::plot_path(dir.path())).unwrap(),
        svg
    );
    // `status` reads the same from the folder.
    let status = train::status::status(dir.path()).unwrap();
    assert!(status.learning && !status.running);
    assert_eq!(status.generations.len(), 3);
    assert_eq!(
        status.champion.as_ref().map(|c| c.generation),
        Some(champion)
    );
    // The last net's master beam made gen-003, which has no net: in progress.
    assert_eq!(status.in_progress, Some(3));
    assert_eq!(status.step.as_deref(), Some("samples"));
    // The trainer recorded its target: reached, nothing left to wait for.
    assert_eq!(status.target, Some(3));
    assert_eq!(status.eta_s, Some(0.0));

    // `verify` reads it all and finds nothing wrong, then finds each
    // damage: a champion the gates do not make, targets short of the
    // samples, a net that is not its f32 net's quantisation.
    let ok = train::verify(dir.path()).unwrap();
    assert!(ok.is_ok(), "{:?}", ok.problems);
    assert_eq!(ok.generations, 3);
    assert!(ok
        .notes
        .iter()
        .any(|n| n.contains("gen-003 is in progress")));
    let damaged = tempfile::tempdir().unwrap();
    copy_tree(dir.path(), damaged.path());
    let d = damaged.path();
    let mut pointer_v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(train::champion_path(d)).unwrap()).unwrap();
    pointer_v["generation"] = match champion {
        Some(0) => 1.into(),
        _ => 0.into(),
    };
    fs::write(train::champion_path(d), pointer_v.to_string()).unwrap();
    let targets = data::load_targets(&d.join("gen-001/targets.bin")).unwrap();
    data::save_targets(&d.join("gen-001/targets.bin"), &targets[1..]).unwrap();
    fs::copy(d.join("gen-000/net.nnue"), d.join("gen-002/net.nnue")).unwrap();
    let found = train::verify(d).unwrap();
    let all = found.problems.join("\n");
    assert_eq!(found.problems.len(), 3, "{all}");
    assert!(all.contains("champion.json names"), "{all}");
    assert!(all.contains("gen-001: targets.bin holds"), "{all}");
    assert!(
        all.contains("gen-002: net.nnue is not net.f32's quantisation"),
        "{all}"
    );

    // Graded targets: at or before `from` the lost value, then rising
    // towards half of it.
    assert_eq!(train::graded(-4.0, 10, 20, 10), -4.0);
    assert!(train::graded(-4.0, 11, 20, 10) > -4.0);
    assert!(train::graded(-4.0, 20, 20, 10) < -2.0);
    assert!(train::graded(-4.0, 20, 20, 10) > train::graded(-4.0, 15, 20, 10));

    // The life term: the full weight for a death at the first piece past
    // the beam's own, falling linearly to a tenth of it at the horizon;
    // nothing for a beam that lived on, died by its own last piece, or died
    // past the horizon.
    assert_eq!(train::life_penalty(1.0, 11, 10, 20), 1.0);
    assert!((train::life_penalty(1.0, 20, 10, 20) - 0.1).abs() < 1e-6);
    assert!((train::life_penalty(2.0, 15, 10, 20) - 1.2).abs() < 1e-6);
    for at in [0, 5, 10, 21] {
        assert_eq!(train::life_penalty(1.0, at, 10, 20), 0.0, "{at}");
    }

    // One thread, stopped after one generation and again half-way through
    // the second's targets, makes the same files.
    let other = tempfile::tempdir().unwrap();
    train::train(
        other.path(),
        Some(&tiny_learning()),
        Some(&start),
        1,
        1,
        &Silent,
    )
    .unwrap();
    let gen1 = train::generation_dir(other.path(), 1);
    fs::create_dir_all(&gen1).unwrap();
    for name in ["master.json", "samples.bin"] {
        let from = dir.path().join("gen-001").join(name);
        fs::copy(from, gen1.join(name)).unwrap();
    }
    let full = data::load_targets(&dir.path().join("gen-001/targets.bin")).unwrap();
    let died = data::load_targets(&dir.path().join("gen-001/died.bin")).unwrap();
    data::save_targets(&gen1.join("targets-partial.bin"), &full[..100]).unwrap();
    data::save_targets(&gen1.join("died-partial.bin"), &died[..90]).unwrap();
    train::train(other.path(), None, None, 3, 1, &Silent).unwrap();
    let files = |d: &Path| {
        let mut out = outputs(d);
        for g in 0..3 {
            for name in ["died.bin", "gate.json", train::GATE_POSITIONS] {
                let p = train::generation_dir(d, g).join(name);
                out.push((format!("gen-{g}/{name}"), fs::read(p).unwrap()));
            }
        }
        out
    };
    let (got, want) = (files(other.path()), files(dir.path()));
    assert_eq!(got.len(), want.len());
    for ((name, a), (_, b)) in got.iter().zip(&want) {
        if name.contains("/gate") {
            // The gate's seconds differ; its figures may not.
            let strip = |x: &[u8]| {
                let mut v: serde_json::Value = serde_json::from_slice(x).unwrap();
                v["seconds"] = 0.into();
                v
            };
            assert_eq!(strip(a), strip(b), "{name}");
        } else {
            assert!(a == b, "{name} differs after the resume");
        }
    }
}

/// The learning loop without a start net: generation 0 learns the
/// heuristic (no steady-state beams to play, its net kept without a rival),
/// and generation 1 goes on from it.
#[test]
fn the_learning_loop_starts_without_a_net() {
    let dir = tempfile::tempdir().unwrap();
    let report = train::train(dir.path(), Some(&tiny_learning()), None, 2, 2, &Silent).unwrap();
    let gates = train::gates(dir.path()).unwrap();
    assert_eq!(gates.len(), 2);
    assert!(
        gates[0].kept && gates[0].champion.is_none(),
        "{}",
        gates[0].why
    );
    assert!(report.generations[1].samples > 0);

    // So it does with far targets: the heuristic's generation has no
    // training beams (and no far values), the next one has both.
    let mut far = tiny_learning();
    let l = far.learning.as_mut().unwrap();
    (l.life_pieces, l.life_weight, l.far_share) = (20, 1.0, 0.5);
    let further = tempfile::tempdir().unwrap();
    train::train(further.path(), Some(&far), None, 2, 2, &Silent).unwrap();
    let has_far = |g| {
        train::generation_dir(further.path(), g)
            .join("far.bin")
            .exists()
    };
    assert!(!has_far(0) && has_far(1));
}

/// With fresh master beams every generation plays its own (none taken
/// over), the champion's k-th one 5 % wider a step.
#[test]
fn fresh_master_beams_are_played_wider_while_the_champion_stays() {
    let start = hatetris::nnue::Net::new(16, hatetris::nnue::Layout::Shared, -0.5, 3).unwrap();
    let mut config = tiny_learning();
    config.master_width = 40;
    config.learning.as_mut().unwrap().fresh_masters = true;
    let dir = tempfile::tempdir().unwrap();
    let report = train::train(dir.path(), Some(&config), Some(&start), 3, 2, &Silent).unwrap();
    let gates = train::gates(dir.path()).unwrap();
    // The champion's first master beam: the generation after it was kept
    // (generation 0 for the start net).
    let mut since = 0;
    let mut widths = Vec::new();
    for g in 0..3u32 {
        let master = &report.generations[g as usize].master;
        assert_eq!(master.reused_from, None, "generation {g}");
        let dir = train::generation_dir(dir.path(), g).join("master");
        let width = hatetris::run::read_manifest(&dir).unwrap().settings.width;
        assert_eq!(
            width,
            train::Learning::master_width(40, g - since),
            "generation {g}"
        );
        widths.push(width);
        if gates[g as usize].kept {
            since = g + 1;
        }
    }
    // This seed keeps a candidate and then not: a champion's second beam.
    assert!(widths.contains(&42), "{widths:?}");
    assert_eq!(train::Learning::master_width(40, 1), 42);
    assert_eq!(train::Learning::master_width(40, train::FRESH_WIDTHS), 40);
}

/// The gate's games from the empty well: played only by a candidate the
/// positions keep, against the champion's games at the same widths; kept
/// only with at least as many lines in all; and the champion's game at the
/// master width becomes the next master beam, copied, not played again.
/// And the other way: a champion's game at the master width is the master
/// beam it played, copied (here generation 0's, which learned the heuristic
/// and was kept without a rival: generation 1's master beam).
#[test]
fn the_gates_wide_games_judge_candidates_and_become_master_beams() {
    let mut config = tiny_learning();
    config.master_width = 40;
    let learning = config.learning.as_mut().unwrap();
    learning.gate.wide = vec![40, 25];
    learning.gate.width = 12;
    learning.gate.cap = 40;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let report = train::train(d, Some(&config), None, 3, 2, &Silent).unwrap();
    let gates = train::gates(d).unwrap();
    let score = |run: &Path| hatetris::run::read_manifest(run).unwrap().best.score;
    let mut champion: Option<u32> = None;
    let mut played = 0;
    for (g, gate) in gates.iter().enumerate() {
        let gen = train::generation_dir(d, g as u32);
        let Some(wide) = &gate.wide else {
            // Only the folder's first net, without a rival, is kept so.
            assert_eq!(gate.kept, g == 0, "{}", gate.why);
            if !gate.kept {
                assert!(!gen.join("wide-40").exists());
            }
            if gate.kept {
                champion = Some(0);
            }
            continue;
        };
        played += 1;
        let widths = |w: &[train::WideGame]| w.iter().map(|g| g.width).collect::<Vec<_>>();
        assert_eq!(widths(&wide.candidate), [40, 25]);
        assert_eq!(widths(&wide.champion), [40, 25]);
        let (ours, theirs) = wide.lines();
        assert_eq!(gate.kept, ours >= theirs, "{}", gate.why);
        for game in &wide.candidate {
            assert_eq!(
                u32::from(score(&gen.join(format!("wide-{}", game.width)))),
                game.lines
            );
        }
        let champion_dir = match champion {
            Some(h) => train::generation_dir(d, h),
            None => d.to_path_buf(),
        };
        let prefix = if champion.is_some() {
            "wide"
        } else {
            "start-wide"
        };
        assert_eq!(
            u32::from(score(&champion_dir.join(format!("{prefix}-40")))),
            wide.champion[0].lines
        );
        if gate.kept {
            champion = Some(g as u32);
            // The next generation's master beam is this game.
            let next = &report.generations[g + 1].master;
            assert_eq!(next.reused_from, None);
            assert_eq!(u32::from(next.score), wide.candidate[0].lines);
            let master = train::generation_dir(d, g as u32 + 1).join("master");
            assert_eq!(
                fs::read(hatetris::run::manifest_path(&master)).unwrap(),
                fs::read(hatetris::run::manifest_path(&gen.join("wide-40"))).unwrap()
            );
        }
    }
    let whys: Vec<&str> = gates.iter().map(|g| g.why.as_str()).collect();
    assert!(played > 0, "no candidate reached the wide games: {whys:#?}");
    assert_eq!(gates[1].champion, Some(0));
    assert_eq!(
        fs::read(hatetris::run::manifest_path(&d.join("gen-000/wide-40"))).unwrap(),
        fs::read(hatetris::run::manifest_path(&d.join("gen-001/master"))).unwrap()
    );
    assert!(
        gates.iter().any(|g| g.wide.is_some() && g.kept),
        "no candidate won the wide games: {whys:#?}"
    );
    // A gate's seconds are its positions' and those of the wide games it
    // played, each kept as it ends, so a gate killed after its games and
    // gone on with reports the same seconds as one that was not.
    let last = gates.iter().rposition(|g| g.wide.is_some()).unwrap() as u32;
    let gen = train::generation_dir(d, last);
    let recorded: std::collections::BTreeMap<String, f64> =
        serde_json::from_slice(&fs::read(gen.join("seconds.json")).unwrap()).unwrap();
    let positions: train::GateRecord =
        serde_json::from_slice(&fs::read(gen.join(train::GATE_POSITIONS)).unwrap()).unwrap();
    let candidates: f64 = [40, 25]
        .iter()
        .map(|w| recorded[&format!("wide gen-{last:03}/wide-{w}")])
        .sum();
    assert!(candidates > 0.0, "{recorded:?}");
    let wide: f64 = recorded
        .iter()
        .filter(|(k, _)| k.starts_with("wide "))
        .map(|(_, s)| s)
        .sum();
    assert_eq!(gates[last as usize].seconds, positions.seconds + wide);
    // A copy of the folder as a trainer killed in that gate leaves it.
    let killed_in_last_gate = || {
        let to = tempfile::tempdir().unwrap();
        killed_in_gate(d, to.path(), last);
        for g in last + 1..=3 {
            fs::remove_dir_all(train::generation_dir(to.path(), g)).ok();
        }
        to
    };
    let killed = killed_in_last_gate();
    train::train(killed.path(), None, None, last + 1, 1, &Silent).unwrap();
    assert_eq!(
        train::gates(killed.path()).unwrap()[last as usize].seconds,
        gates[last as usize].seconds
    );
    // Killed in its last game, after the game's run ended and before its
    // record and seconds: the same seconds again, from the run.
    let during = killed_in_last_gate();
    let dgen = train::generation_dir(during.path(), last);
    fs::remove_file(dgen.join("wide-25.json")).unwrap();
    let mut partial = recorded.clone();
    partial.remove(&format!("wide gen-{last:03}/wide-25"));
    fs::write(
        dgen.join("seconds.json"),
        serde_json::to_string(&partial).unwrap(),
    )
    .unwrap();
    train::train(during.path(), None, None, last + 1, 1, &Silent).unwrap();
    assert_eq!(
        train::gates(during.path()).unwrap()[last as usize].seconds,
        gates[last as usize].seconds
    );
    // A gate killed in its games does them again to the same verdict: here
    // the last one played, its record and its second game gone, the first
    // game's folder left half-copied (no manifest).
    let before = fs::read(train::generation_dir(d, last).join("gate.json")).unwrap();
    let again = tempfile::tempdir().unwrap();
    copy_tree(d, again.path());
    let a = again.path();
    let agen = train::generation_dir(a, last);
    for g in last + 1..=3 {
        fs::remove_dir_all(train::generation_dir(a, g)).ok();
    }
    for name in ["gate.json", "generation.json"] {
        fs::remove_file(agen.join(name)).unwrap();
    }
    fs::remove_dir_all(agen.join("wide-25")).unwrap();
    fs::remove_file(hatetris::run::manifest_path(&agen.join("wide-40"))).unwrap();
    // The positions' verdict was kept before the wide games, and `status`
    // says it while they go on.
    let positions: train::GateRecord =
        serde_json::from_slice(&fs::read(agen.join(train::GATE_POSITIONS)).unwrap()).unwrap();
    let whole: train::GateRecord = serde_json::from_slice(&before).unwrap();
    assert!(positions.wide.is_none() && positions.kept);
    assert_eq!(positions.outcomes, whole.outcomes);
    assert!(whole.why.starts_with(&positions.why), "{}", whole.why);
    let status = train::status::status(a).unwrap();
    assert_eq!(status.step.as_deref(), Some("gate"));
    assert_eq!(status.gate_positions.as_ref(), Some(&positions));
    train::train(a, None, None, 3, 1, &Silent).unwrap();
    let strip = |x: &[u8]| {
        let mut v: serde_json::Value = serde_json::from_slice(x).unwrap();
        v["seconds"] = 0.into();
        v
    };
    assert_eq!(
        strip(&fs::read(agen.join("gate.json")).unwrap()),
        strip(&before)
    );
    // Without the positions' file the gate plays them again, to the same.
    for name in ["gate.json", "generation.json", train::GATE_POSITIONS] {
        fs::remove_file(agen.join(name)).unwrap();
    }
    train::train(a, None, None, 3, 1, &Silent).unwrap();
    assert_eq!(
        strip(&fs::read(agen.join("gate.json")).unwrap()),
        strip(&before)
    );
    // `verify` agrees, and finds a game's figures that are not its run's.
    let ok = train::verify(d).unwrap();
    assert!(ok.is_ok(), "{:?}", ok.problems);
    let g = gates.iter().position(|g| g.wide.is_some()).unwrap();
    let path = train::generation_dir(d, g as u32).join("gate.json");
    let mut record: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let lines = record["wide"]["candidate"][1]["lines"].as_u64().unwrap();
    record["wide"]["candidate"][1]["lines"] = (lines + 1).into();
    fs::write(&path, record.to_string()).unwrap();
    let found = train::verify(d).unwrap().problems.join("\n");
    assert!(found.contains("game at width 25"), "{found}");
    // And a positions' verdict that is not the one the gate carried on.
    let path = train::generation_dir(d, g as u32).join(train::GATE_POSITIONS);
    let mut positions: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let pieces = positions["outcomes"][0]["pieces"].as_u64().unwrap();
    positions["outcomes"][0]["pieces"] = (pieces + 1).into();
    fs::write(&path, positions.to_string()).unwrap();
    let found = train::verify(d).unwrap().problems.join("\n");
    assert!(found.contains("gate-positions.json is not"), "{found}");
    // A folder of the plain gate reads the same settings file as before.
    let plain = serde_json::to_string(&tiny_learning()).unwrap();
    assert!(!plain.contains("\"wide\""));
}

/// The gate's wide games from wells of its steady-state game instead of
/// the empty well (`--gate-wide-from`): each width plays from each start,
/// the champion's and the candidate's alike; a game from a start is that
/// game going on (its run folder starts there, with the game's history)
/// and its figures are the whole game's; `verify` reads them; and the
/// settings file names the starts only when there are some.
#[test]
fn the_gates_wide_games_can_start_in_the_steady_state() {
    let config = steady_state_gate(vec![150, 170]);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train::train(d, Some(&config), None, 3, 2, &Silent).unwrap();
    let gates = train::gates(d).unwrap();
    let mut played = 0;
    for (g, gate) in gates.iter().enumerate() {
        let Some(wide) = &gate.wide else { continue };
        played += 1;
        let gen = train::generation_dir(d, g as u32);
        let starts =
            |w: &[train::WideGame]| w.iter().map(|g| (g.width, g.from)).collect::<Vec<_>>();
        assert_eq!(starts(&wide.candidate), [(25, 150), (25, 170)]);
        assert_eq!(starts(&wide.champion), [(25, 150), (25, 170)]);
        assert!(!gen.join("wide-25").exists());
        assert_eq!(gate.kept, wide.lines().0 >= wide.lines().1, "{}", gate.why);
        for game in &wide.candidate {
            let run = gen.join(format!("wide-25-from-{}", game.from));
            let m = hatetris::run::read_manifest(&run).unwrap();
            assert_eq!(m.settings.start.as_ref().map(|s| s.at), Some(game.from));
            assert_eq!(u32::from(m.best.score), game.lines);
            assert_eq!(m.best.depth, game.pieces);
            assert!(game.pieces > game.from);
        }
        assert!(
            gate.why
                .contains("the wide games at widths 25 from 150 / 25 from 170"),
            "{}",
            gate.why
        );
    }
    let whys: Vec<&str> = gates.iter().map(|g| g.why.as_str()).collect();
    assert!(played > 0, "no candidate reached the wide games: {whys:#?}");
    let ok = train::verify(d).unwrap();
    assert!(ok.is_ok(), "{:?}", ok.problems);
    let settings = fs::read_to_string(train::config_path(d)).unwrap();
    assert!(settings.contains("\"wide_from\""), "{settings}");
    let plain = serde_json::to_string(&tiny_learning()).unwrap();
    assert!(!plain.contains("wide_from"));
}

/// Every file of a run folder, by name (the lock left out).
fn run_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != "lock")
        .map(|e| {
            (
                e.file_name().into_string().unwrap(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// The tiny learning loop with the gate's wide games at width 25 from the
/// gate's game at the pieces `from`.
fn steady_state_gate(from: Vec<u32>) -> Config {
    let mut config = tiny_learning();
    config.master_width = 25;
    let learning = config.learning.as_mut().unwrap();
    learning.gate.wide = vec![25];
    learning.gate.wide_from = from;
    learning.gate.width = 12;
    learning.gate.cap = 40;
    config
}

/// A start net for the wide-gate tests: a first net that learned the
/// heuristic under `config`, trained in `root/first`.
fn first_net(root: &Path, config: &Config) -> Net {
    let first = root.join("first");
    train::train(&first, Some(config), None, 1, 2, &Silent).unwrap();
    Net::load(&train::generation_dir(&first, 0).join("net.f32")).unwrap()
}

/// A fork that redoes a gate alone (`--redo gate`) keeps everything its
/// generation played and judges it again: with the same settings to the
/// same verdict, under a margin no candidate can clear to "not kept", on
/// the same outcomes (its wide games then unplayed), and under blocks with
/// the standard error they give; it refuses any other changed setting.
#[test]
fn a_fork_judges_a_gate_again_under_a_new_margin_without_playing_it() {
    let config = steady_state_gate(vec![150]);
    let root = tempfile::tempdir().unwrap();
    let start = first_net(root.path(), &config);
    let dir = root.path().join("source");
    train::train(&dir, Some(&config), Some(&start), 2, 2, &Silent).unwrap();
    let positions = |dir: &Path, g: u32| -> train::GateRecord {
        let path = train::generation_dir(dir, g).join(train::GATE_POSITIONS);
        serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
    };
    let won = (0..2)
        .find(|&g| positions(&dir, g).kept)
        .expect("no candidate won the positions");
    let source = positions(&dir, won);
    let gate = |dir: &Path| train::gates(dir).unwrap()[won as usize].clone();

    let same = root.path().join("same");
    let forked = train::fork(&dir, &same, won, train::Redo::Gate, &config).unwrap();
    assert_eq!(forked.redo, train::Redo::Gate);
    train::train(&same, None, None, won + 1, 2, &Silent).unwrap();
    assert_eq!(gate(&same).why, gate(&dir).why);
    assert_eq!(gate(&same).kept, gate(&dir).kept);
    assert_eq!(positions(&same, won), source);

    let mut strict = config.clone();
    strict.learning.as_mut().unwrap().gate.margin = 1e9;
    let judged = root.path().join("strict");
    train::fork(&dir, &judged, won, train::Redo::Gate, &strict).unwrap();
    train::train(&judged, None, None, won + 1, 2, &Silent).unwrap();
    let again = gate(&judged);
    assert!(!again.kept, "{}", again.why);
    assert!(again.why.contains("standard errors"), "{}", again.why);
    assert_eq!(again.outcomes, source.outcomes);
    assert!(again.wide.is_none());
    assert_eq!(positions(&judged, won).why, again.why);
    let ok = train::verify(&judged).unwrap();
    assert!(ok.is_ok(), "{:?}", ok.problems);

    // Blocks (`--gate-block`) judge the same outcomes with another
    // standard error: one piece long, each position is its own block, the
    // plain error; longer than any game, a game's positions are one draw.
    for (block, plain) in [(1, true), (1_000_000, false)] {
        let mut blocked = config.clone();
        blocked.learning.as_mut().unwrap().gate.block = block;
        let folder = root.path().join(format!("block-{block}"));
        train::fork(&dir, &folder, won, train::Redo::Gate, &blocked).unwrap();
        train::train(&folder, None, None, won + 1, 2, &Silent).unwrap();
        let again = gate(&folder);
        assert_eq!(again.block, block);
        assert_eq!(again.outcomes, source.outcomes);
        assert_eq!(again.pieces_difference.0, source.pieces_difference.0);
        let same_error = (again.pieces_difference.1 - source.pieces_difference.1).abs() < 1e-9;
        assert_eq!(same_error, plain, "{:?}", again.pieces_difference);
        let ok = train::verify(&folder).unwrap();
        assert!(ok.is_ok(), "{:?}", ok.problems);
    }

    let mut other = config.clone();
    other.learning.as_mut().unwrap().gate.wide_from = vec![120];
    let refused = train::fork(
        &dir,
        &root.path().join("other"),
        won,
        train::Redo::Gate,
        &other,
    );
    let why = refused.unwrap_err().to_string();
    assert!(why.contains("verdict is weighed by"), "{why}");

    // Nor may any fork move the wide games to another game: the copied
    // champion's games from the same pieces were played from the source's.
    let mut moved = config.clone();
    let tim = train::Learning::embedded_games()
        .into_iter()
        .find(|game| game.name == "tim-232");
    moved.learning.as_mut().unwrap().gate.wide_game = tim;
    refused_early(&root, &dir, &moved, "cannot change learning.gate.wide_game");
}

/// With `--gate-wide-rotate 1` each gate plays one start of the list, the
/// next in turn each generation, and the champion plays that start too:
/// generation 0 from the first start only, generation 1 from the second.
#[test]
fn each_gate_plays_the_wide_starts_whose_turn_it_is() {
    let mut config = steady_state_gate(vec![150, 120]);
    config.learning.as_mut().unwrap().gate.wide_rotate = 1;
    let gate = config.learning.as_ref().unwrap().gate.clone();
    assert_eq!(
        (0..3).map(|g| gate.wide_starts(g)).collect::<Vec<_>>(),
        [vec![150], vec![120], vec![150]]
    );
    let root = tempfile::tempdir().unwrap();
    let start = first_net(root.path(), &config);
    let dir = root.path().join("rotated");
    train::train(&dir, Some(&config), Some(&start), 1, 2, &Silent).unwrap();
    assert!(dir.join("start-wide-25-from-150").is_dir());
    assert!(!dir.join("start-wide-25-from-120").exists());
    let gates = train::gates(&dir).unwrap();
    let wide = gates[0].wide.as_ref().expect(&gates[0].why);
    for games in [&wide.candidate, &wide.champion] {
        assert_eq!(games.iter().map(|w| w.from).collect::<Vec<_>>(), [150]);
    }
    // Generation 1's gate (shown by `status` as the trainer comes to it:
    // its candidate loses on the positions here, so it plays none) has
    // both nets play from the second start.
    train::train(&dir, None, None, 2, 2, &Silent).unwrap();
    assert_eq!(
        games_of_an_open_gate(&dir),
        [
            (true, "gen-000/wide-25-from-120".to_string()),
            (false, "gen-001/wide-25-from-120".to_string())
        ]
    );

    // A fork from generation 1 with other wide games: generation 0's
    // verdict stands as it was made, and the fork's gate has the champion
    // play under the new settings too, in its own generation's folder.
    let mut moved = config.clone();
    let gate = &mut moved.learning.as_mut().unwrap().gate;
    gate.wide_from = vec![170];
    gate.wide_rotate = 0;
    let fork = root.path().join("moved");
    let forked = train::fork(&dir, &fork, 1, train::Redo::Fit, &moved).unwrap();
    assert_eq!(
        forked.changed,
        [
            "learning.gate.wide_from [150,120] → [170]",
            "learning.gate.wide_rotate 1 → none"
        ]
    );
    let copied = train::gates(&fork).unwrap();
    let wide = copied[0].wide.as_ref().expect(&copied[0].why);
    assert_eq!(
        wide.champion.iter().map(|w| w.from).collect::<Vec<_>>(),
        [150]
    );
    train::train(&fork, None, None, 2, 2, &Silent).unwrap();
    assert!(train::verify(&fork).unwrap().problems.is_empty());
    assert_eq!(
        games_of_an_open_gate(&fork),
        [
            (true, "gen-000/wide-25-from-170".to_string()),
            (false, "gen-001/wide-25-from-170".to_string())
        ]
    );
}

/// Generation 1's gate of `dir` opened again (its record and summary
/// removed), as `status` shows it while the trainer comes to it: the wide
/// games it plays, each as (the champion's?, its folder).
fn games_of_an_open_gate(dir: &Path) -> Vec<(bool, String)> {
    for name in ["gate.json", "generation.json"] {
        fs::remove_file(train::generation_dir(dir, 1).join(name)).unwrap();
    }
    let status = train::status::status(dir).unwrap();
    assert_eq!(
        (status.in_progress, status.step.as_deref()),
        (Some(1), Some("gate"))
    );
    status
        .gate_games
        .iter()
        .map(|g| (g.champion, g.folder.display().to_string()))
        .collect()
}

/// A fork keeps the start net's wide games (the champion's until a net is
/// kept) when it keeps the settings they are played under: its gate reads
/// the source's games, copied byte for byte, and comes to the source's
/// verdict; a fork with another lookahead copies none.
#[test]
fn a_fork_keeps_the_start_nets_wide_games() {
    let config = steady_state_gate(vec![150]);
    let root = tempfile::tempdir().unwrap();
    let start = first_net(root.path(), &config);
    let source = root.path().join("source");
    train::train(&source, Some(&config), Some(&start), 1, 2, &Silent).unwrap();
    let game = "start-wide-25-from-150";
    let before = train::gates(&source).unwrap();
    assert!(before[0].wide.is_some(), "{}", before[0].why);
    let played = run_files(&source.join(game));

    let same = root.path().join("same");
    train::fork(&source, &same, 0, train::Redo::Fit, &config).unwrap();
    assert!(run_files(&same.join(game)) == played);
    train::train(&same, None, None, 1, 2, &Silent).unwrap();
    let after = train::gates(&same).unwrap();
    assert_eq!(
        (&after[0].wide, after[0].kept),
        (&before[0].wide, before[0].kept)
    );
    assert!(run_files(&same.join(game)) == played);

    // A fork made before its source played the game (here: one whose copy
    // and the game's record are taken away) copies it from the source when
    // its gate needs it: byte for byte, the log's seconds too, so not
    // played again.
    let early = root.path().join("early");
    train::fork(&source, &early, 0, train::Redo::Fit, &config).unwrap();
    assert!(early.join(format!("{game}.json")).exists());
    fs::remove_dir_all(early.join(game)).unwrap();
    fs::remove_file(early.join(format!("{game}.json"))).unwrap();
    train::train(&early, None, None, 1, 2, &Silent).unwrap();
    assert!(run_files(&early.join(game)) == played);
    assert_eq!(train::gates(&early).unwrap()[0].wide, before[0].wide);

    // A trainer killed in the gate after the wide games: `status` shows
    // each of them, whose, and how far it came.
    let killed = root.path().join("killed");
    killed_in_gate(&source, &killed, 0);
    let status = train::status::status(&killed).unwrap();
    assert_eq!(
        (status.in_progress, status.step.as_deref()),
        (Some(0), Some("gate"))
    );
    let wide = before[0].wide.as_ref().unwrap();
    let shown: Vec<_> = status
        .gate_games
        .iter()
        .map(|g| {
            let lines = g.played.map(|(_, lines)| u32::from(lines));
            (g.champion, g.folder.display().to_string(), lines, g.ended)
        })
        .collect();
    assert_eq!(
        shown,
        [
            (true, game.to_string(), Some(wide.champion[0].lines), true),
            (
                false,
                "gen-000/wide-25-from-150".to_string(),
                Some(wide.candidate[0].lines),
                true
            ),
        ]
    );

    let mut other = config.clone();
    other.quiescent = 2;
    let looks_less = root.path().join("other");
    train::fork(&source, &looks_less, 0, train::Redo::Fit, &other).unwrap();
    assert!(!looks_less.join(game).exists());
}

/// A fork redoes one generation from the step it names: under the same
/// settings it makes the source's files again; with other training-beam
/// settings it keeps the samples and makes other targets; and it refuses
/// an existing folder, a changed gate, an unfinished generation and a step
/// whose input is missing, leaving nothing behind.
#[test]
fn a_fork_redoes_one_generation_from_the_step_it_names() {
    let start = hatetris::nnue::Net::new(16, hatetris::nnue::Layout::Shared, -0.5, 3).unwrap();
    let root = tempfile::tempdir().unwrap();
    let source = root.path().join("source");
    let config = tiny_learning();
    train::train(&source, Some(&config), Some(&start), 2, 2, &Silent).unwrap();
    let file = |dir: &Path, g: u32, name: &str| {
        fs::read(train::generation_dir(dir, g).join(name)).unwrap()
    };

    // The same settings, from the fit: the same net and verdict.
    let same = root.path().join("same");
    let forked = train::fork(&source, &same, 1, train::Redo::Fit, &config).unwrap();
    assert!(forked.changed.is_empty());
    assert!(!train::generation_dir(&same, 1).join("net.f32").exists());
    assert!(!train::generation_dir(&same, 1)
        .join("rescale.json")
        .exists());
    train::train(&same, None, None, 2, 2, &Silent).unwrap();
    for name in [
        "samples.bin",
        "targets.bin",
        "died.bin",
        "net.f32",
        "net.nnue",
    ] {
        assert!(file(&source, 1, name) == file(&same, 1, name), "{name}");
    }
    assert_eq!(
        train::gates(&same).unwrap()[1].kept,
        train::gates(&source).unwrap()[1].kept
    );
    assert!(file(&source, 0, "net.f32") == file(&same, 0, "net.f32"));

    // Longer training beams, from the targets: the same samples, other
    // targets, and the change recorded.
    let mut longer = config.clone();
    longer.beam.pieces += 6;
    let other = root.path().join("other");
    let forked = train::fork(&source, &other, 1, train::Redo::Targets, &longer).unwrap();
    assert_eq!(forked.changed, ["beam.pieces 12 → 18"]);
    assert!(!train::generation_dir(&other, 1)
        .join("targets.bin")
        .exists());
    train::train(&other, None, None, 2, 2, &Silent).unwrap();
    assert!(file(&source, 1, "samples.bin") == file(&other, 1, "samples.bin"));
    assert!(file(&source, 1, "died.bin") != file(&other, 1, "died.bin"));
    let recorded: train::Forked =
        serde_json::from_str(&fs::read_to_string(other.join(train::FORK_JSON)).unwrap()).unwrap();
    assert_eq!(recorded, forked);

    // The life term, from the targets: the same targets (a beam's first
    // pieces never depend on how many follow) and the same deaths by piece
    // 12; a surviving beam's death between pieces 13 and 20 recorded after
    // them; and a fit that reads them (other losses from its first epoch:
    // the tiny net may keep its start either way).
    let mut life = config.clone();
    life.learning.as_mut().unwrap().life_pieces = 20;
    life.learning.as_mut().unwrap().life_weight = 1.0;
    let lived = root.path().join("lived");
    let forked = train::fork(&source, &lived, 1, train::Redo::Targets, &life).unwrap();
    assert_eq!(
        forked.changed,
        [
            "learning.life_pieces none → 20",
            "learning.life_weight none → 1.0"
        ]
    );
    train::train(&lived, None, None, 2, 2, &Silent).unwrap();
    assert!(file(&source, 1, "targets.bin") == file(&lived, 1, "targets.bin"));
    let died =
        |dir: &Path| data::load_targets(&train::generation_dir(dir, 1).join("died.bin")).unwrap();
    let (before, after) = (died(&source), died(&lived));
    assert_eq!(before.len(), after.len());
    let mut later = 0;
    for (&b, &a) in before.iter().zip(&after) {
        if b > 0.0 {
            assert_eq!(a, b);
        } else if a > 0.0 {
            assert!(a > 12.0 && a <= 20.0, "{a}");
            later += 1;
        }
    }
    assert!(later > 0, "no training beam died between pieces 13 and 20");
    assert!(file(&source, 1, "fit.json") != file(&lived, 1, "fit.json"));
    // With the life term the targets step also keeps each beam's best value
    // at the horizon, or its own target where the beam did not get there.
    let values = |dir: &Path, name: &str| {
        data::load_targets(&train::generation_dir(dir, 1).join(name)).unwrap()
    };
    let (targets, far) = (values(&lived, "targets.bin"), values(&lived, "far.bin"));
    assert_eq!(far.len(), targets.len());
    let mut seen_further = 0;
    for ((&t, &f), &d) in targets.iter().zip(&far).zip(&after) {
        if d > 0.0 {
            assert_eq!(f, t, "a beam that died keeps its own target");
        } else if f != t {
            seen_further += 1;
        }
    }
    assert!(seen_further > 0, "no beam's value at the horizon differs");
    assert!(!train::generation_dir(&source, 1).join("far.bin").exists());
    // Killed part way (the far values written first, then the deaths, then
    // the targets), the same fork goes on to the same files.
    let again = root.path().join("again");
    train::fork(&source, &again, 1, train::Redo::Targets, &life).unwrap();
    let gen1 = train::generation_dir(&again, 1);
    data::save_targets(&gen1.join("far-partial.bin"), &far[..100]).unwrap();
    data::save_targets(&gen1.join("died-partial.bin"), &after[..90]).unwrap();
    data::save_targets(&gen1.join("targets-partial.bin"), &targets[..80]).unwrap();
    train::train(&again, None, None, 2, 2, &Silent).unwrap();
    for name in ["targets.bin", "died.bin", "far.bin", "net.f32"] {
        assert!(file(&lived, 1, name) == file(&again, 1, name), "{name}");
    }
    assert!(!gen1.join("far-partial.bin").exists());
    // `verify` reads the far values with the rest.
    assert!(train::verify(&again).unwrap().problems.is_empty());
    data::save_targets(&gen1.join("far.bin"), &far[..10]).unwrap();
    let found = train::verify(&again).unwrap().problems.join("\n");
    assert!(found.contains("far.bin holds 10 records"), "{found}");
    // The far share is a setting of the fit: a fork keeps the targets and
    // the far values, and fits to the blend.
    let mut further = life.clone();
    further.learning.as_mut().unwrap().far_share = 0.5;
    let blended = root.path().join("blended");
    let forked = train::fork(&lived, &blended, 1, train::Redo::Fit, &further).unwrap();
    assert_eq!(forked.changed, ["learning.far_share none → 0.5"]);
    train::train(&blended, None, None, 2, 2, &Silent).unwrap();
    assert!(file(&lived, 1, "far.bin") == file(&blended, 1, "far.bin"));
    assert!(file(&lived, 1, "fit.json") != file(&blended, 1, "fit.json"));
    // Without far values (targets made without the life term), the fit
    // says so rather than fitting to something else.
    let mut without = config.clone();
    without.learning.as_mut().unwrap().far_share = 0.5;
    let missing = root.path().join("missing");
    train::fork(&source, &missing, 1, train::Redo::Fit, &without).unwrap();
    let e = train::train(&missing, None, None, 2, 2, &Silent)
        .unwrap_err()
        .to_string();
    assert!(e.contains("far.bin") && e.contains("--far-share"), "{e}");
    // A fork that keeps the targets cannot change what makes them.
    refused_early(
        &root,
        &source,
        &life,
        "learning.life_pieces (none → 20) makes the targets",
    );

    // Training beams ranked with the lookahead: a setting of its own,
    // absent from the settings file while off (older folders read as off).
    let mut looking = config.clone();
    looking.beam_lookahead = true;
    let ahead = root.path().join("ahead");
    let forked = train::fork(&source, &ahead, 1, train::Redo::Targets, &looking).unwrap();
    assert_eq!(forked.changed, ["beam_lookahead none → true"]);
    train::train(&ahead, None, None, 2, 2, &Silent).unwrap();
    assert!(file(&source, 1, "samples.bin") == file(&ahead, 1, "samples.bin"));
    let text = fs::read_to_string(train::config_path(&source)).unwrap();
    assert!(!text.contains("beam_lookahead"));
    assert!(fs::read_to_string(train::config_path(&ahead))
        .unwrap()
        .contains("\"beam_lookahead\": true"));

    // Refusals, each leaving no folder (and no temporary) behind.
    let refused = |dest: &str, at: u32, redo: train::Redo, c: &Config, why: &str| {
        let dest = root.path().join(dest);
        let e = train::fork(&source, &dest, at, redo, c)
            .unwrap_err()
            .to_string();
        assert!(e.contains(why), "{e}");
    };
    let mut gate = config.clone();
    gate.learning.as_mut().unwrap().gate.width += 1;
    refused(
        "x",
        1,
        train::Redo::Fit,
        &gate,
        "cannot change learning.gate.width",
    );
    // The wide games may change at any generation (the copied verdicts
    // stand; `each_gate_plays_the_wide_starts_whose_turn_it_is` plays on).
    let mut wide = config.clone();
    wide.learning.as_mut().unwrap().gate.wide = vec![25];
    wide.learning.as_mut().unwrap().gate.wide_from = vec![150];
    for (at, name) in [(0, "wide0"), (1, "wide1")] {
        let forked = train::fork(
            &source,
            &root.path().join(name),
            at,
            train::Redo::Fit,
            &wide,
        )
        .unwrap();
        assert_eq!(
            forked.changed,
            [
                "learning.gate.wide none → [25]",
                "learning.gate.wide_from none → [150]"
            ]
        );
    }
    let mut hidden = config.clone();
    hidden.hidden += 1;
    refused("x", 1, train::Redo::Fit, &hidden, "cannot change hidden");
    refused(
        "x",
        3,
        train::Redo::Master,
        &config,
        "generation 2 is not finished",
    );
    refused("x", 2, train::Redo::Fit, &config, "has no targets.bin yet");
    refused("same", 1, train::Redo::Fit, &config, "already exists");
    let left: Vec<String> = fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut left = left;
    left.sort();
    assert_eq!(
        left,
        [
            "again", "ahead", "blended", "lived", "missing", "other", "same", "source", "wide0",
            "wide1"
        ]
    );
}

/// A fork of `source` at generation 1 that keeps its targets under
/// `config` is refused with `why`, leaving no folder behind.
fn refused_early(root: &tempfile::TempDir, source: &Path, config: &Config, why: &str) {
    let dest = root.path().join("refused");
    let e = train::fork(source, &dest, 1, train::Redo::Fit, config)
        .unwrap_err()
        .to_string();
    assert!(e.contains(why), "{e}");
    assert!(!dest.exists());
}

/// `--blend` is a step from a champion: generation 0, which learns the
/// heuristic from random weights, fits in full whatever the blend, and
/// the folder's settings record it.
#[test]
fn a_blend_leaves_the_first_fit_from_random_weights_alone() {
    let plain = tempfile::tempdir().unwrap();
    let blended = tempfile::tempdir().unwrap();
    let mut config = tiny();
    train::train(plain.path(), Some(&config), None, 1, 1, &Silent).unwrap();
    config.fit.blend = 0.5;
    train::train(blended.path(), Some(&config), None, 1, 1, &Silent).unwrap();
    let net = |d: &Path| fs::read(train::generation_dir(d, 0).join("net.f32")).unwrap();
    assert_eq!(net(plain.path()), net(blended.path()));
    let settings = fs::read_to_string(blended.path().join("train.json")).unwrap();
    assert!(settings.contains("\"blend\": 0.5"), "{settings}");
    let settings = fs::read_to_string(plain.path().join("train.json")).unwrap();
    assert!(!settings.contains("blend"), "{settings}");
}

/// Trains one generation of `config` (a fit setting on) and returns its
/// net, after checking that the net searches like any other (the next
/// master beam is played with it) and that the folder's settings record
/// the setting as `recorded` while a folder without it never names `key`.
fn a_generation_with_a_fit_setting(config: &Config, recorded: &str, key: &str) -> Net {
    let dir = tempfile::tempdir().unwrap();
    train::train(dir.path(), Some(config), None, 1, 1, &Silent).unwrap();
    let net = Net::load(&train::generation_dir(dir.path(), 0).join("net.f32")).unwrap();
    assert!(train::generation_dir(dir.path(), 1)
        .join("master.json")
        .exists());
    let settings = fs::read_to_string(dir.path().join("train.json")).unwrap();
    assert!(settings.contains(recorded), "{settings}");
    let plain = serde_json::to_string(&tiny()).unwrap();
    assert!(!plain.contains(key), "{plain}");
    net
}

/// `--positional` fits in the positional layout from the first generation
/// on, and the folder's settings record it only when it is on.
#[test]
fn a_positional_folder_fits_positional_nets_and_says_so() {
    let mut config = tiny();
    config.fit.positional = true;
    let net = a_generation_with_a_fit_setting(&config, "\"positional\": true", "positional");
    assert_eq!(net.layout(), Layout::Positional);
}

/// `--widen` fits with more hidden units than the folder's first net, and
/// the folder's settings record it only when it is on.
#[test]
fn a_widened_folder_fits_nets_with_more_units_and_says_so() {
    let mut config = tiny();
    config.fit.widen = config.hidden + 16;
    let net = a_generation_with_a_fit_setting(&config, "\"widen\": ", "widen");
    assert_eq!(net.hidden(), config.hidden + 16);
}

/// The master beam's own game gives samples: with no record games to start
/// from, the wells a few pieces before the master's beam died are the
/// steady-state samples' only source, and a generation has more samples
/// with them than without (the trainer once read the game from a file its
/// master never writes, and sampled none of it).
#[test]
fn the_master_beams_game_gives_samples() {
    let start = hatetris::nnue::Net::new(16, hatetris::nnue::Layout::Shared, -0.5, 3).unwrap();
    let samples = |before_death: Vec<u32>| {
        let mut config = tiny_learning();
        let learning = config.learning.as_mut().unwrap();
        learning.games = Vec::new();
        learning.before_death = before_death;
        let dir = tempfile::tempdir().unwrap();
        let r = train::train(dir.path(), Some(&config), Some(&start), 1, 2, &Silent).unwrap();
        let gen = train::generation_dir(dir.path(), 0);
        let count = data::load_samples(&gen.join("samples.bin")).unwrap().len();
        (r.generations[0].master.depth, count)
    };
    let (depth, without) = samples(Vec::new());
    assert!(depth > 20, "the master's game is {depth} pieces");
    let (same_depth, with) = samples(vec![20, 10]);
    assert_eq!(same_depth, depth);
    assert!(
        with > without,
        "{with} samples with the master's wells, {without} without"
    );
}

/// The slow twin of [`train::reach::walk`]: from each kept well alone, the
/// set of its descendants the run kept, depth by depth (each child under
/// the piece the enemy gives without its history, looked up by well and
/// score in the next depth), until none is left; its reach is the last
/// depth that held one. `depths[i]` is the run's depth `root + i`.
fn reach_by_walking_forward(
    depths: &[Vec<hatetris::run::store::Stored>],
    root: u32,
) -> Vec<Vec<u32>> {
    use std::collections::HashSet;
    let kept: Vec<HashSet<(Well, u16)>> = depths
        .iter()
        .map(|d| d.iter().map(|s| (s.well, s.score)).collect())
        .collect();
    let mut children = Vec::new();
    depths
        .iter()
        .enumerate()
        .map(|(d, wells)| {
            wells
                .iter()
                .map(|s| {
                    let mut line: HashSet<(Well, u16)> = [(s.well, s.score)].into();
                    let mut reach = d;
                    for (next, kept_next) in kept.iter().enumerate().skip(d + 1) {
                        let mut found = HashSet::new();
                        for &(well, score) in &line {
                            let gen = MoveGen::new(&well);
                            let piece = EnemyKind::Hatetris
                                .stateless_piece(&gen, root + next as u32 - 1)
                                .unwrap();
                            children.clear();
                            gen.children(piece, &mut children);
                            for c in &children {
                                let child = (c.well, score + u16::from(c.lines));
                                if kept_next.contains(&child) {
                                    found.insert(child);
                                }
                            }
                        }
                        if found.is_empty() {
                            break;
                        }
                        reach = next;
                        line = found;
                    }
                    root + reach as u32
                })
                .collect()
        })
        .collect()
}

/// A well's reach is the deepest depth at which the run kept a descendant
/// of it, the same by the one backward pass over the depth files as by
/// walking forward from each well alone; and a generation's samples are
/// labelled with it, less their depth, or −1 where the run did not keep
/// them.
#[test]
fn a_wells_reach_is_the_deepest_depth_its_line_was_kept_at() {
    let dir = tempfile::tempdir().unwrap();
    crate::beam::start(dir.path(), 12, 30, 2).unwrap();
    let depths = crate::util::depth_contents(dir.path());
    let want = reach_by_walking_forward(&depths, 0);
    let mut got = vec![Vec::new(); depths.len()];
    let last = train::reach::walk(dir.path(), |d, stored, reach| {
        assert_eq!(stored, &depths[d as usize][..]);
        got[d as usize] = reach.to_vec();
    })
    .unwrap();
    assert_eq!(last as usize, depths.len() - 1);
    assert_eq!(got, want);
    let ended: usize = want
        .iter()
        .flatten()
        .filter(|&&r| (r as usize) < depths.len() - 1)
        .count();
    assert!(ended > 50, "only {ended} lines ended before the last depth");

    let mut samples = Vec::new();
    let mut labels = Vec::new();
    for d in [3, 10, 20] {
        for (s, &r) in depths[d].iter().zip(&want[d]).step_by(3) {
            samples.push(Sampled {
                well: s.well,
                depth: d as u32,
            });
            labels.push((r - d as u32) as f32);
        }
    }
    // A kept well under another depth, and a well never kept.
    samples.push(Sampled {
        well: depths[10][0].well,
        depth: 11,
    });
    labels.push(train::reach::UNLABELLED);
    samples.push(Sampled {
        well: Well::EMPTY,
        depth: 5,
    });
    labels.push(train::reach::UNLABELLED);
    assert_eq!(train::reach::reach(dir.path(), &samples).unwrap(), labels);
}

/// With the reach term, each generation's master wells are labelled
/// (`reach.bin`, one label per sample) before the fit, whose targets they
/// move (its losses);
/// the targets are the same as without it, and a folder without it makes
/// no labels and never names the settings.
#[test]
fn the_reach_term_labels_the_master_wells_and_moves_the_fit() {
    let start = hatetris::nnue::Net::new(16, hatetris::nnue::Layout::Shared, -0.5, 3).unwrap();
    let generation = |share: f64| {
        let mut config = tiny_learning();
        let learning = config.learning.as_mut().unwrap();
        if share > 0.0 {
            learning.reach_share = share;
            learning.reach_horizon = 10;
        }
        let dir = tempfile::tempdir().unwrap();
        train::train(dir.path(), Some(&config), Some(&start), 1, 2, &Silent).unwrap();
        let gen = train::generation_dir(dir.path(), 0);
        let file = |name: &str| fs::read(gen.join(name)).unwrap();
        let settings = fs::read_to_string(dir.path().join("train.json")).unwrap();
        let labels = data::load_targets(&gen.join(train::reach::REACH_BIN)).ok();
        let count = data::load_samples(&gen.join("samples.bin")).unwrap().len();
        (
            file("targets.bin"),
            file("fit.json"),
            labels,
            count,
            settings,
        )
    };
    let (targets, fit, labels, count, settings) = generation(0.5);
    let labels = labels.expect("reach.bin is made");
    assert_eq!(labels.len(), count);
    let labelled = labels.iter().filter(|&&l| l >= 0.0).count();
    assert!(labelled > 10, "{labelled} of {count} samples labelled");
    assert!(
        labels.iter().any(|&l| l >= 10.0),
        "no line lasted 10 pieces"
    );
    assert!(settings.contains("\"reach_share\": 0.5"), "{settings}");
    let (plain_targets, plain_fit, plain_labels, _, plain_settings) = generation(0.0);
    assert!(plain_labels.is_none());
    assert!(!plain_settings.contains("reach"), "{plain_settings}");
    assert!(targets == plain_targets, "the targets differ");
    // The losses are the fit's against the targets it was given.
    assert!(fit != plain_fit, "the reach term did not move the fit");
}

/// A training folder goes on from a copy of its small files alone
/// (`scripts/snapshot-train.sh`, as when a long run moves to another
/// machine): the master beam, the window's samples and targets and the
/// nets that lost their gates stay behind, and the copy makes the same
/// next generation as the folder that kept everything. The trainer plays
/// the master beam again and remakes the window's data, and reads each
/// finished wide game of the gate from its record instead of playing it.
#[test]
fn a_copy_of_the_small_files_goes_on_to_the_same_generation() {
    // Seed 1: generation 1 loses its wide games and generation 2 plays its
    // own against the champion's, which the copy reads from their records,
    // with the master beam generation 1 played for the champion taken over.
    let mut config = steady_state_gate(vec![150]);
    config.seed = 1;
    let root = tempfile::tempdir().unwrap();
    let whole = root.path().join("whole");
    let moved = root.path().join("moved");
    let copy = root.path().join("copy");
    train::train(&whole, Some(&config), None, 3, 2, &Silent).unwrap();
    train::train(&moved, Some(&config), None, 2, 2, &Silent).unwrap();
    snapshot(&moved, &copy);
    // What the copy lacks: every master beam and the window's data.
    for g in 0..3 {
        let gen = train::generation_dir(&copy, g);
        assert!(!gen.join("master").exists());
        assert!(!gen.join("samples.bin").exists());
        assert!(!gen.join("targets.bin").exists());
    }
    let noted = train::verify(&copy).unwrap();
    assert!(noted.is_ok(), "{:?}", noted.problems);
    assert!(
        noted
            .notes
            .iter()
            .any(|n| n.contains("no samples or targets here")),
        "{:?}",
        noted.notes
    );
    // The wide games the copy can read from their records.
    let recorded: Vec<_> = train::gates(&copy)
        .unwrap()
        .iter()
        .filter(|gate| gate.wide.is_some())
        .map(|gate| gate.generation)
        .collect();
    assert!(!recorded.is_empty(), "no gate played its wide games");
    train::train(&copy, Some(&config), None, 3, 2, &Silent).unwrap();
    let gen2 = |dir: &Path| {
        let mut files = outputs(dir);
        files.retain(|(name, _)| {
            name.starts_with("gen-2/") || name == "gen-1/samples.bin" || name == "gen-1/targets.bin"
        });
        for name in ["gate.json", "generation.json"] {
            let text = fs::read_to_string(train::generation_dir(dir, 2).join(name)).unwrap();
            let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
            // Times differ between any two runs.
            strip_seconds(&mut value);
            files.push((name.into(), value.to_string().into_bytes()));
        }
        files.push((
            "champion.json".into(),
            fs::read(dir.join("champion.json")).unwrap(),
        ));
        files
    };
    assert_eq!(gen2(&copy), gen2(&whole));
    let gate = train::gates(&copy).unwrap().pop().unwrap();
    assert!(
        gate.wide.is_some(),
        "generation 2 played no wide games: {}",
        gate.why
    );
    // The window's generation 1 was made again, byte for byte.
    assert!(train::generation_dir(&copy, 1).join("samples.bin").exists());
    // A game read from its record was not played again.
    for g in recorded {
        let gen = train::generation_dir(&copy, g);
        for e in fs::read_dir(&gen).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            let run = name.starts_with("wide-") && e.file_type().unwrap().is_dir();
            assert!(!run, "gen-{g}/{name} was played again");
        }
    }
    let ok = train::verify(&copy).unwrap();
    assert!(ok.is_ok(), "{:?}", ok.problems);
}

/// `value` without its fields that hold wall or core seconds.
fn strip_seconds(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.retain(|k, _| !k.contains("seconds"));
            map.values_mut().for_each(strip_seconds);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_seconds),
        _ => {}
    }
}

/// A copy of a folder's small files leaves a shipped start net out; going
/// on without copying it back is refused, not taken for a folder whose
/// generation 0 learns the heuristic.
#[test]
fn a_folder_whose_start_net_is_missing_is_refused() {
    let start = Net::new(16, Layout::Shared, -0.5, 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = tiny_learning();
    config.master_width = 20;
    train::train(dir.path(), Some(&config), Some(&start), 1, 2, &Silent).unwrap();
    fs::remove_file(dir.path().join("from.f32")).unwrap();
    let err = train::train(dir.path(), None, None, 2, 2, &Silent).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("from.f32") && text.contains("copy the start net back"),
        "{text}"
    );
}

/// With `--wide-samples`, a generation after a gate that played wide games
/// draws wells from them (the champion's games, then the candidate's), as
/// its samples' last, each labelled with its reach there as the slow twin
/// walks it forward: at each depth of each game N are drawn from all its
/// wells and N from the family that lasted longest (those last).
/// The reach step keeps their labels, `verify` holds the files against
/// each other, a generation killed in its samples step is made again to
/// the same files (on 1 thread instead of 2), `status` names the gate's
/// games as the trainer does, a game whose folder is gone is left out and
/// named in the log, and a fork that keeps the samples cannot change the
/// setting.
#[test]
fn the_gates_wide_games_give_the_next_generation_samples_with_their_reach() {
    let mut config = steady_state_gate(vec![150]);
    let root = tempfile::tempdir().unwrap();
    let start = first_net(root.path(), &config);
    let learning = config.learning.as_mut().unwrap();
    learning.reach_share = 0.5;
    learning.reach_horizon = 10;
    learning.wide_samples = 2;
    learning.wide_gates = 2;
    let dir = root.path().join("wide");
    train::train(&dir, Some(&config), Some(&start), 2, 2, &Silent).unwrap();
    let gen = |g| train::generation_dir(&dir, g);
    assert!(!gen(0).join(train::wide::WIDE_SAMPLES_BIN).exists());
    let gates = train::gates(&dir).unwrap();
    assert!(gates[0].wide.is_some(), "{}", gates[0].why);
    let champion = match gates[0].champion {
        None => "start-wide-25-from-150".to_string(),
        Some(h) => format!("gen-{h:03}/wide-25-from-150"),
    };
    let games = [champion, "gen-000/wide-25-from-150".to_string()];

    let wide = data::load_samples(&gen(1).join(train::wide::WIDE_SAMPLES_BIN)).unwrap();
    let labels = data::load_targets(&gen(1).join(train::wide::WIDE_REACH_BIN)).unwrap();
    let samples = data::load_samples(&gen(1).join("samples.bin")).unwrap();
    let reach = data::load_targets(&gen(1).join(train::reach::REACH_BIN)).unwrap();
    assert!(wide.len() > 40, "{} wide samples", wide.len());
    assert!(samples.len() > wide.len());
    assert_eq!(&samples[samples.len() - wide.len()..], &wide[..]);
    assert_eq!(&reach[reach.len() - wide.len()..], &labels[..]);

    let stride = train::wide::DEPTH_STRIDE;
    let mut next = 0;
    for (k, game) in games.iter().enumerate() {
        let run = dir.join(game);
        let first = hatetris::run::read_manifest(&run).unwrap().root();
        let depths = crate::util::depth_contents(&run);
        let reaches = reach_by_walking_forward(&depths, first);
        for (i, (stored, reach)) in depths.iter().zip(&reaches).enumerate() {
            let depth = first + i as u32;
            let best = reach.iter().copied().max().unwrap_or(depth);
            let lasting = reach.iter().filter(|&&r| r == best).count();
            let count = 2.min(lasting) + 2.min(stored.len());
            for j in 0..count {
                let (s, label) = (wide[next + j], labels[next + j]);
                assert_eq!(s.depth, stride * (k as u32 + 1) + depth, "{game} {depth}");
                // (A well may be kept twice, at two scores.)
                let kept: Vec<f32> = (0..stored.len())
                    .filter(|&at| stored[at].well == s.well)
                    .map(|at| (reach[at] - depth) as f32)
                    .collect();
                assert!(
                    kept.contains(&label),
                    "{game} {depth}: {label} not in {kept:?}"
                );
                // A depth's draws come in reverse: those from all its
                // wells, then the lasting family's.
                if j >= count - 2.min(lasting) {
                    assert_eq!(label, (best - depth) as f32, "{game} {depth}: not lasting");
                }
            }
            next += count;
        }
    }
    assert_eq!(next, wide.len(), "samples from no game");
    let event = wide_sample_events(&dir)
        .into_iter()
        .next()
        .expect("the wide samples are logged");
    assert_eq!(event["games"], serde_json::json!(games));
    assert_eq!(event["samples"], wide.len());
    let ok = train::verify(&dir).unwrap();
    assert!(ok.is_ok(), "{:?}", ok.problems);

    // Killed in generation 1's samples step, before the wide games' walk
    // ended: the generation is made again to the same files.
    let again = root.path().join("again");
    fs::create_dir_all(&again).unwrap();
    copy_tree(&dir, &again);
    let gen1 = train::generation_dir(&again, 1);
    for e in fs::read_dir(&gen1).unwrap() {
        let path = e.unwrap().path();
        if path.is_file() && path.file_name().unwrap() != "master.json" {
            fs::remove_file(path).unwrap();
        }
    }
    fs::remove_file(train::champion_path(&again)).unwrap();
    train::train(&again, None, None, 2, 1, &Silent).unwrap();
    for name in [
        "samples.bin",
        train::wide::WIDE_SAMPLES_BIN,
        train::wide::WIDE_REACH_BIN,
        train::reach::REACH_BIN,
        "targets.bin",
        "net.nnue",
    ] {
        let read = |d: &Path| fs::read(train::generation_dir(d, 1).join(name)).unwrap();
        assert!(read(&again) == read(&dir), "{name} differs after the kill");
    }
    let verdict = |d: &Path| {
        let g = &train::gates(d).unwrap()[1];
        (g.candidate.clone(), g.kept, g.wide.clone())
    };
    assert_eq!(verdict(&again), verdict(&dir));

    // Killed in generation 1's gate, without `champion.json` (a fork's
    // first gate): `status` names the champion's games as the gates do.
    let killed = root.path().join("killed");
    killed_in_gate(&dir, &killed, 1);
    let status = train::status::status(&killed).unwrap();
    assert_eq!(status.step.as_deref(), Some("gate"));
    let theirs = match gates[0].kept {
        true => "gen-000/wide-25-from-150",
        false => "start-wide-25-from-150",
    };
    assert_eq!(status.gate_games[0].folder, Path::new(theirs));

    // Damage: the wide samples no longer the last of samples.bin.
    let damaged = root.path().join("damaged");
    fs::create_dir_all(&damaged).unwrap();
    copy_tree(&dir, &damaged);
    data::save_samples(
        &train::generation_dir(&damaged, 1).join(train::wide::WIDE_SAMPLES_BIN),
        &wide[1..],
    )
    .unwrap();
    let found = train::verify(&damaged).unwrap();
    assert!(
        found.problems.iter().any(|p| p.contains("wide")),
        "{:?}",
        found.problems
    );

    // A fork whose candidate's game is gone draws from the champion's alone.
    let gone = root.path().join("gone");
    train::fork(&dir, &gone, 1, train::Redo::Samples, &config).unwrap();
    fs::remove_dir_all(gone.join(&games[1])).unwrap();
    train::train(&gone, None, None, 2, 2, &Silent).unwrap();
    let event = wide_sample_events(&gone).pop().unwrap();
    assert_eq!(event["games"], serde_json::json!(games[..1]));
    assert_eq!(event["missing"], serde_json::json!(games[1..]));
    let fewer =
        data::load_samples(&train::generation_dir(&gone, 1).join(train::wide::WIDE_SAMPLES_BIN))
            .unwrap();
    assert!(!fewer.is_empty() && fewer.len() < wide.len());

    // A fork that keeps generation 1's samples cannot change the setting.
    let mut more = config.clone();
    more.learning.as_mut().unwrap().wide_samples = 3;
    samples_setting_refused_then_redone(
        &dir,
        &root.path().join("more"),
        (1, train::Redo::Targets),
        &more,
        "learning.wide_samples",
    );
}

/// A fork of `dir` into `to` at generation `at` that keeps its samples
/// (`kept`) under `config` is refused for changing `key`, and one that
/// makes them again is made.
fn samples_setting_refused_then_redone(
    dir: &Path,
    to: &Path,
    (at, kept): (u32, train::Redo),
    config: &Config,
    key: &str,
) {
    let why = train::fork(dir, to, at, kept, config)
        .unwrap_err()
        .to_string();
    assert!(why.contains(key), "{why}");
    train::fork(dir, to, at, train::Redo::Samples, config).unwrap();
}

/// With `--gate-wide-always` every gate plays its wide games, a candidate
/// the positions reject too (its verdict stays theirs), and with
/// `--wide-unread` a generation's wide samples leave out the games its
/// champion's own wide samples came from. The champion is made generation
/// 1 by editing its gate's verdict (a constructed case): generation 1 drew
/// from gate 0's games, so generation 2 draws from gate 1's candidate's
/// game alone (the champion's game there is gate 0's, or the one gate 0's
/// candidate played), and names the games it left out in the log. A fork
/// that keeps the samples cannot turn the setting on, nor
/// `--wide-unread-min`, under which the same generation reaches back a gate
/// (and names how many it spans in the log).
#[test]
fn every_gate_plays_its_wide_games_and_a_fit_reads_only_games_its_champion_has_not() {
    let mut config = steady_state_gate(vec![150]);
    let root = tempfile::tempdir().unwrap();
    let start = first_net(root.path(), &config);
    let learning = config.learning.as_mut().unwrap();
    learning.wide_samples = 2;
    learning.wide_gates = 2;
    learning.wide_unread = true;
    learning.gate.wide_always = true;
    let dir = root.path().join("always");
    train::train(&dir, Some(&config), Some(&start), 2, 2, &Silent).unwrap();
    let mut rejected = 0;
    for gate in train::gates(&dir).unwrap() {
        assert!(gate.wide.is_some(), "{}", gate.why);
        let positions: train::GateRecord = serde_json::from_str(
            &fs::read_to_string(
                train::generation_dir(&dir, gate.generation).join(train::GATE_POSITIONS),
            )
            .unwrap(),
        )
        .unwrap();
        if !positions.kept {
            assert!(!gate.kept);
            assert!(
                gate.why.contains("played for the samples alone"),
                "{}",
                gate.why
            );
            rejected += 1;
        }
    }
    assert!(rejected > 0, "every candidate won the positions");
    let ok = train::verify(&dir).unwrap();
    assert!(ok.is_ok(), "{:?}", ok.problems);
    let settings = fs::read_to_string(train::config_path(&dir)).unwrap();
    assert!(
        settings.contains("\"wide_always\": true") && settings.contains("\"wide_unread\": true")
    );
    let plain = serde_json::to_string(&tiny_learning()).unwrap();
    assert!(!plain.contains("wide_always") && !plain.contains("wide_unread"));

    // Generation 1 made the champion, then generation 2 drawn.
    let gate1 = train::generation_dir(&dir, 1).join("gate.json");
    let mut record: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&gate1).unwrap()).unwrap();
    record["kept"] = serde_json::json!(true);
    fs::write(&gate1, serde_json::to_string(&record).unwrap()).unwrap();
    // (Generation 2's master beam, begun under the old champion, goes.)
    let gen2 = train::generation_dir(&dir, 2);
    if gen2.exists() {
        fs::remove_dir_all(gen2).unwrap();
    }
    train::train(&dir, None, None, 3, 2, &Silent).unwrap();
    let events = wide_sample_events(&dir);
    let drawn = |g: u32| events.iter().find(|e| e["generation"] == g).unwrap();
    assert_eq!(drawn(1)["read_by_the_champion"], serde_json::json!([]));
    assert_eq!(
        drawn(2)["games"],
        serde_json::json!(["gen-001/wide-25-from-150"])
    );
    assert_eq!(drawn(2)["read_by_the_champion"], drawn(1)["games"]);

    // A fork that keeps generation 1's samples cannot change the setting.
    let mut read = config.clone();
    read.learning.as_mut().unwrap().wide_unread = false;
    let refused = train::fork(&dir, &root.path().join("read"), 1, train::Redo::Fit, &read);
    let why = refused.unwrap_err().to_string();
    assert!(why.contains("learning.wide_unread"), "{why}");
    // Nor the master beam's share of them.
    let mut more = config.clone();
    more.samples += 1;
    let refused = train::fork(
        &dir,
        &root.path().join("more"),
        1,
        train::Redo::Targets,
        &more,
    );
    let why = refused.unwrap_err().to_string();
    assert!(
        why.contains("samples (") && why.contains("makes the samples"),
        "{why}"
    );

    // With one gate a window and --wide-unread-min 2, generation 2 reaches
    // back past gate 1 for a second unread game; gate 0's games were all
    // its champion's (its window), so it spans both gates and draws the
    // same game.
    let mut back = config.clone();
    back.learning.as_mut().unwrap().wide_gates = 1;
    back.learning.as_mut().unwrap().wide_unread_min = 2;
    let refused = train::fork(&dir, &root.path().join("back"), 2, train::Redo::Fit, &back);
    let why = refused.unwrap_err().to_string();
    assert!(why.contains("makes the samples"), "{why}");
    let reached = root.path().join("back");
    train::fork(&dir, &reached, 2, train::Redo::Samples, &back).unwrap();
    train::train(&reached, None, None, 3, 2, &Silent).unwrap();
    let events = wide_sample_events(&reached);
    let again = events.iter().rfind(|e| e["generation"] == 2).unwrap();
    assert_eq!(again["games"], drawn(2)["games"]);
    assert_eq!(again["gates"], serde_json::json!(2));
    let plain = wide_sample_events(&dir);
    assert!(plain.iter().all(|e| e.get("gates").is_none()));
}

/// With `--gate-rotate` each gate plays the steady-state starts of one
/// game, the next in turn that did not keep the champion, and measures the
/// champion there (`gate-champion.json`) once per champion and game: the
/// start net's generation-0 gate on the first game, generation 1's on the
/// second. A champion kept on the first game (made so by editing its gate)
/// is judged on the second at every later gate, whatever the turn, and its
/// measure there is read back rather than played again. A copy of the
/// folder's small files keeps the measures, and `verify` finds one
/// tampered with. A fork may turn the rotation on; its first gate then
/// measures a champion kept on the fixed positions on the other game.
#[test]
fn the_gate_takes_turns_over_games_and_never_judges_on_the_one_that_kept_the_champion() {
    let mut config = tiny_learning();
    let root = tempfile::tempdir().unwrap();
    let start = first_net(root.path(), &config);
    let plain_dir = root.path().join("plain");
    train::train(&plain_dir, Some(&config), Some(&start), 1, 2, &Silent).unwrap();
    let turns = vec!["dnf-366".to_string(), "dnf-148".to_string()];
    config.learning.as_mut().unwrap().gate.rotate = turns.clone();
    let dir = root.path().join("rotated");
    train::train(&dir, Some(&config), Some(&start), 2, 2, &Silent).unwrap();
    let ok = train::verify(&dir).unwrap();
    assert!(ok.is_ok(), "{:?}", ok.problems);
    // A copy of the small files keeps the champion's measures, and
    // `verify` holds each gate's champion figures against them.
    let copy = root.path().join("copy");
    snapshot(&dir, &copy);
    let ok = train::verify(&copy).unwrap();
    assert!(ok.is_ok(), "{:?}", ok.problems);
    let measure = train::generation_dir(&copy, 0).join("gate-champion.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&measure).unwrap()).unwrap();
    m["outcomes"][0]["pieces"] = serde_json::json!(1);
    fs::write(&measure, serde_json::to_string(&m).unwrap()).unwrap();
    let problems = train::verify(&copy).unwrap().problems;
    assert!(
        problems
            .iter()
            .any(|p| p.contains("gen-000: gate.json's champion figures on dnf-366")),
        "{problems:?}"
    );
    let measured = |g: u32| -> Option<serde_json::Value> {
        let path = train::generation_dir(&dir, g).join("gate-champion.json");
        path.exists()
            .then(|| serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap())
    };
    let gates = train::gates(&dir).unwrap();
    // The start net was the champion at generation 0's gate.
    assert_eq!(gates[0].steady.as_deref(), Some("dnf-366"));
    assert_eq!(measured(0).unwrap()["steady"], "dnf-366");
    assert!(measured(0).unwrap()["champion"].is_null());
    // The 366 record has three starts from piece 150 every 300, the 148
    // record one; both gates have the empty well and the opening's start.
    let plain = train::gates(&plain_dir).unwrap();
    assert_eq!(gates[0].outcomes, plain[0].outcomes, "the same positions");
    assert_eq!(gates[1].steady.as_deref(), Some("dnf-148"));
    assert_eq!(gates[1].outcomes.len(), gates[0].outcomes.len() - 2);

    // Generation 0 made the champion (on dnf-366), generation 1 and on
    // played again: each later gate is on dnf-148, and the champion is
    // measured there once.
    let gate0 = train::generation_dir(&dir, 0).join("gate.json");
    let mut record: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&gate0).unwrap()).unwrap();
    record["kept"] = serde_json::json!(true);
    fs::write(&gate0, serde_json::to_string(&record).unwrap()).unwrap();
    for g in 1..3 {
        let gen = train::generation_dir(&dir, g);
        if gen.exists() {
            fs::remove_dir_all(gen).unwrap();
        }
    }
    train::train(&dir, None, None, 3, 2, &Silent).unwrap();
    let gates = train::gates(&dir).unwrap();
    assert_eq!(gates[1].champion, Some(0));
    assert_eq!(gates[1].steady.as_deref(), Some("dnf-148"));
    assert_eq!(measured(1).unwrap()["champion"], 0);
    match gates[1].kept {
        // Kept on dnf-148: generation 2 is judged on dnf-366.
        true => assert_eq!(gates[2].steady.as_deref(), Some("dnf-366")),
        // Generation 2's turn is dnf-366, which kept the champion.
        false => {
            assert_eq!(gates[2].steady.as_deref(), Some("dnf-148"));
            assert!(measured(2).is_none(), "measured twice");
            assert_eq!(gates[2].champion_figures, gates[1].champion_figures);
        }
    }

    // A fork of the plain folder, whose generation 0 is made the champion
    // on the fixed positions (dnf-366's), turns the rotation on at
    // generation 2, dnf-366's turn: its gate is on dnf-148.
    let gate0 = train::generation_dir(&plain_dir, 0).join("gate.json");
    let mut record: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&gate0).unwrap()).unwrap();
    record["kept"] = serde_json::json!(true);
    fs::write(&gate0, serde_json::to_string(&record).unwrap()).unwrap();
    train::train(&plain_dir, None, None, 2, 2, &Silent).unwrap();
    let fork = root.path().join("fork");
    // (A fork may also change the gate's margin, which makes no figures.)
    config.learning.as_mut().unwrap().gate.margin = 0.5;
    train::fork(&plain_dir, &fork, 2, train::Redo::Master, &config).unwrap();
    train::train(&fork, None, None, 3, 2, &Silent).unwrap();
    let gate = &train::gates(&fork).unwrap()[2];
    assert!(gate.champion.is_some());
    assert_eq!(gate.steady.as_deref(), Some("dnf-148"));
    let measure = train::generation_dir(&fork, 2).join("gate-champion.json");
    assert!(measure.exists(), "the champion is measured on dnf-148");
}

/// Copies the training folder `from`'s small files to `to` with
/// `scripts/snapshot-train.sh`, as a long run moving to another machine
/// does.
fn snapshot(from: &Path, to: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/snapshot-train.sh");
    let out = std::process::Command::new("bash")
        .arg(&script)
        .arg(from)
        .arg(to)
        .env("HATETRIS", env!("CARGO_BIN_EXE_hatetris"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// With `--wide-spare-starts` a generation's wide samples hold no game from
/// the starts its own gate plays, the champion's or any candidate's, so its
/// wide games go on from wells whose continuations it never read; the
/// games it spares are drawn by the generations whose gates play other
/// starts, and a fork that keeps its samples cannot move the starts.
#[test]
fn a_fit_reads_no_wide_game_from_the_starts_its_own_gate_plays() {
    let starts = [150, 160, 170];
    let mut config = steady_state_gate(starts.to_vec());
    let root = tempfile::tempdir().unwrap();
    let start = first_net(root.path(), &config);
    let learning = config.learning.as_mut().unwrap();
    learning.wide_samples = 2;
    learning.wide_gates = 3;
    learning.gate.wide_always = true;
    learning.gate.wide_rotate = 1;
    learning.wide_spare_starts = true;
    let dir = root.path().join("spare");
    train::train(&dir, Some(&config), Some(&start), 4, 2, &Silent).unwrap();
    let events = wide_sample_events(&dir);
    let from = |game: &serde_json::Value| -> u32 {
        let name = game.as_str().unwrap();
        name.rsplit("-from-").next().unwrap().parse().unwrap()
    };
    let mut drawn = std::collections::BTreeSet::new();
    for e in &events {
        let g = e["generation"].as_u64().unwrap() as usize;
        let own = starts[g % starts.len()];
        assert_eq!(e["spared_starts"], serde_json::json!([own]));
        let games = e["games"].as_array().unwrap();
        assert!(!games.is_empty(), "{e}");
        for game in games {
            assert_ne!(from(game), own, "{e}");
            drawn.insert(from(game));
        }
    }
    // Generation 3's gate plays the start of gate 0 again: its window of
    // three gates holds the two other starts' games alone.
    let third = events.iter().find(|e| e["generation"] == 3).unwrap();
    let mut froms: Vec<u32> = third["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(from)
        .collect();
    froms.dedup();
    assert_eq!(froms, [160, 170], "{third}");
    assert_eq!(drawn.len(), 3, "every start is drawn by some generation");
    let ok = train::verify(&dir).unwrap();
    assert!(ok.is_ok(), "{:?}", ok.problems);
    let settings = fs::read_to_string(train::config_path(&dir)).unwrap();
    assert!(settings.contains("\"wide_spare_starts\": true"));
    let plain = serde_json::to_string(&tiny_learning()).unwrap();
    assert!(!plain.contains("wide_spare_starts"));
    // The starts a gate plays make its generation's samples: a fork that
    // keeps them cannot change the rotation, and one that redoes them can.
    let mut turned = config.clone();
    turned.learning.as_mut().unwrap().gate.wide_rotate = 2;
    samples_setting_refused_then_redone(
        &dir,
        &root.path().join("turned"),
        (2, train::Redo::Fit),
        &turned,
        "learning.gate.wide_rotate",
    );
    let mut moved = config.clone();
    moved.learning.as_mut().unwrap().gate.wide_from = vec![150, 160, 180];
    samples_setting_refused_then_redone(
        &dir,
        &root.path().join("moved"),
        (2, train::Redo::Targets),
        &moved,
        "learning.gate.wide_from",
    );
}

/// The trainer's on-off switches take `=false` (and `=true`), so that a
/// fork can turn off one its source had on; a bare switch is still on,
/// before or after the folder.
#[test]
fn a_switch_given_false_is_off() {
    let dir = tempfile::tempdir().unwrap();
    let wide_always = |name: &str, switch: &str| -> serde_json::Value {
        let folder = dir.path().join(name);
        let folder = folder.to_str().unwrap();
        let args = [
            "train",
            "--generations",
            "0",
            "--gate-wide",
            "500",
            switch,
            folder,
        ];
        let out = crate::cli::hatetris(&args, None);
        assert!(out.status.success(), "{}", crate::cli::stderr(&out));
        settings(Path::new(folder))["learning"]["gate"]["wide_always"].clone()
    };
    assert_eq!(wide_always("bare", "--gate-wide-always"), true);
    assert_eq!(wide_always("on", "--gate-wide-always=true"), true);
    let off = wide_always("off", "--gate-wide-always=false");
    assert_eq!(off, serde_json::Value::Null);
}

/// The training folder `dir`'s settings file, as JSON.
fn settings(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(dir.join("train.json")).unwrap()).unwrap()
}

/// The `wide samples` events of the training folder `dir`'s log, in order.
fn wide_sample_events(dir: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(train::log_path(dir))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["event"] == "wide samples")
        .collect()
}

/// `scripts/restore-train.sh` copies a snapshot and puts back the shipped
/// nets its `shipped.txt` lists; it refuses a destination that exists and
/// a list naming a net that is not there, leaving nothing behind.
#[test]
fn a_restored_snapshot_gets_its_shipped_nets_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("scripts/restore-train.sh");
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("snap");
    fs::create_dir_all(snap.join("gen-000")).unwrap();
    fs::write(snap.join("train.json"), "{}").unwrap();
    fs::write(
        snap.join("shipped.txt"),
        "from.f32 data/nets/best.f32\ngen-000/net.nnue data/nets/best.nnue\n",
    )
    .unwrap();
    let restore = |dest: &Path| {
        std::process::Command::new("bash")
            .arg(&script)
            .arg(&snap)
            .arg(dest)
            .current_dir(root)
            .output()
            .unwrap()
    };
    let dest = dir.path().join("runs/restored");
    assert!(restore(&dest).status.success());
    for (file, net) in [("from.f32", "best.f32"), ("gen-000/net.nnue", "best.nnue")] {
        let shipped = fs::read(root.join("data/nets").join(net)).unwrap();
        assert_eq!(fs::read(dest.join(file)).unwrap(), shipped, "{file}");
    }
    let again = restore(&dest);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    fs::write(snap.join("shipped.txt"), "from.f32 data/nets/none.f32\n").unwrap();
    let missing = dir.path().join("missing");
    let out = restore(&missing);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("data/nets/none.f32"));
    assert!(!missing.exists());
}

/// `--gate-games` moves the gate's positions and leaves the wide games on
/// the game they started from (recorded in `train.json`, with
/// `--gate-block`); the same command goes on with the folder; naming the
/// game the wide games already start from records nothing.
#[test]
fn the_gate_games_move_the_positions_and_leave_the_wide_games_where_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("moved");
    let folder = folder.to_str().unwrap();
    let args = [
        "train",
        folder,
        "--generations",
        "0",
        "--gate-games",
        "knewjade-289,tim-232",
        "--gate-block",
        "50",
    ];
    for _ in 0..2 {
        let out = crate::cli::hatetris(&args, None);
        assert!(out.status.success(), "{}", crate::cli::stderr(&out));
    }
    let moved = settings(Path::new(folder));
    let gate = &moved["learning"]["gate"];
    let names: Vec<&str> = gate["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["knewjade-289", "tim-232"]);
    assert_eq!(gate["wide_game"]["name"], "dnf-366");
    assert_eq!(gate["block"], 50);

    let same = dir.path().join("same");
    let same = same.to_str().unwrap();
    let out = crate::cli::hatetris(
        &[
            "train",
            same,
            "--generations",
            "0",
            "--gate-wide",
            "100",
            "--gate-wide-from",
            "300",
            "--gate-wide-game",
            "dnf-366",
        ],
        None,
    );
    assert!(out.status.success(), "{}", crate::cli::stderr(&out));
    let settings = fs::read_to_string(Path::new(same).join("train.json")).unwrap();
    assert!(!settings.contains("wide_game"), "{settings}");
}
