//! How a net ranks the records' own moves, and a fine-tune towards them.
//!
//! The report: for every lock of a record game from piece 100 on (the
//! steady state), where the record's child falls among all placements of
//! the piece HATETRIS gave, ranked by the search's cost (the net with the
//! quiescent lookahead) and by the net alone; and how many lines the net's
//! first choice clears against the record's. A probe of imitation targets
//! (`data/train/README.md`, "How the nets rank the records' moves").
//!
//!     cargo run --release --example imitation -- NET.nnue REPLAY.txt [REPLAY.txt ...]
//!
//! With `STEP_COSTS=0.05,0.1` in the environment, the lookahead is also
//! ranked with each of those costs per hypothetical clear
//! ([`Lookahead::with_step_cost`]).
//!
//! The fine-tune (`data/train/README.md`, "Imitation of the records'
//! moves"):
//!
//!     cargo run --release --example imitation -- --fit START.f32 OUT VALID.txt TRAIN.txt [TRAIN.txt ...]
//!
//! Each lock of the TRAIN games is one group of samples: every child's
//! best chain well (the well the lookahead costs it by, under the net of
//! the epoch's start), the siblings' targets their START net's values (an
//! anchor), the record's the group's highest START value plus `MARGIN`
//! (0.1 by default; the targets' spread is about 1). They are fitted by
//! the squared error plus the ranking term (weight `RANK`, 1 by default)
//! of [`hatetris::nnue::Net::gradient_ranked`], with Adam at step `LR`
//! (1e-4), in batches of 8 locks, for `EPOCHS` (8) passes in an order drawn
//! from `SEED` (1). After each epoch the quantised net ranks the VALID
//! game's locks as the report does; the epoch whose mean percentile of
//! the record's placement is lowest is written as `OUT.f32` and
//! `OUT.nnue`. Never give it the 3,711 game, which judges.
//!
//! A replay file holds one replay in any of the game's formats. The games
//! are played against HATETRIS.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hatetris::evaluate::{Evaluator, Lookahead, DEFAULT_QUIESCENT_DEPTH};
use hatetris::nnue::{AdamConfig, Net, NetEvaluator, QuantNet, Rng, Sample, Trainer};
use hatetris::replay::{codec::decode_detected, play};
use hatetris::strength::STEADY_FROM;
use hatetris::{Child, EnemyKind, MoveGen, Well};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("imitation: {why}");
            ExitCode::FAILURE
        }
    }
}

/// One ranking's tallies over a game's locks.
#[derive(Default)]
struct Tally {
    locks: usize,
    top: [usize; 3],
    percentile: f64,
    /// Lines the ranking's first choice cleared, and the record's.
    first_lines: u64,
    record_lines: u64,
}

impl Tally {
    fn add(&mut self, costs: &[f64], record: usize, lines: &[u8]) {
        let mine = costs[record];
        let below = costs.iter().filter(|&&c| c < mine).count() as f64;
        let ties = costs.iter().filter(|&&c| c == mine).count() as f64 - 1.0;
        let rank = below + ties / 2.0;
        self.locks += 1;
        for (k, t) in [1.0, 3.0, 5.0].iter().zip(&mut self.top) {
            if rank < *k {
                *t += 1;
            }
        }
        if costs.len() > 1 {
            self.percentile += rank / (costs.len() - 1) as f64;
        }
        // The first choice under a total order: lowest cost, then index.
        let first = (0..costs.len())
            .min_by(|&a, &b| costs[a].total_cmp(&costs[b]).then(a.cmp(&b)))
            .unwrap_or(record);
        self.first_lines += u64::from(lines[first]);
        self.record_lines += u64::from(lines[record]);
    }

    /// The share of locks whose record placement ranked first.
    fn top1(&self) -> f64 {
        self.top[0] as f64 / self.locks.max(1) as f64
    }

    /// The record placement's mean rank among its siblings, 0 first, 1 last.
    fn mean_percentile(&self) -> f64 {
        self.percentile / self.locks.max(1) as f64
    }

    fn print(&self, game: &str, ranking: &str) {
        let n = self.locks.max(1) as f64;
        println!(
            "{game:>12} {ranking:>10} {:6} {:6.3} {:6.3} {:6.3} {:10.3} {:12.3} {:12.3}",
            self.locks,
            self.top[0] as f64 / n,
            self.top[1] as f64 / n,
            self.top[2] as f64 / n,
            self.percentile / n,
            self.first_lines as f64 / n,
            self.record_lines as f64 / n,
        );
    }
}

/// One lock of a record game from the steady state on: every child of
/// the parent under the piece the game gave, and which one it played.
struct Lock {
    children: Vec<Child>,
    /// Each child's score (the parent's and the child's lines).
    scores: Vec<u32>,
    record: usize,
}

impl Lock {
    fn lines(&self) -> Vec<u8> {
        self.children.iter().map(|c| c.lines).collect()
    }

    /// Each child's cost under `ev`.
    fn costs<E: Evaluator>(&self, ev: &E, out: &mut Vec<f64>) {
        out.clear();
        out.extend(
            self.children
                .iter()
                .zip(&self.scores)
                .map(|(c, &s)| ev.cost(&c.well, f64::from(s))),
        );
    }
}

/// The game's name (its file's stem) and its locks from the steady state on.
fn locks_of(path: &str) -> Result<(String, Vec<Lock>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let (_, keys) = decode_detected(text.trim()).map_err(|e| format!("{path}: {e}"))?;
    let trace = play(&keys, EnemyKind::Hatetris);
    let name = Path::new(path)
        .file_stem()
        .map_or_else(|| path.to_owned(), |s| s.to_string_lossy().into_owned());
    let mut locks = Vec::new();
    for i in STEADY_FROM as usize..trace.steps.len() {
        let (before, step) = (&trace.steps[i - 1], &trace.steps[i]);
        let after = Well::from_board_unchecked(&step.board);
        let parent = Well::from_board_unchecked(&before.board);
        let mut children = Vec::new();
        MoveGen::new(&parent).children(step.piece, &mut children);
        // The last lock of a lost game has no live child to find.
        let Some(record) = children
            .iter()
            .position(|c| c.well == after && c.lines == step.lines)
        else {
            continue;
        };
        let scores = children
            .iter()
            .map(|c| before.score + u32::from(c.lines))
            .collect();
        locks.push(Lock {
            children,
            scores,
            record,
        });
    }
    Ok((name, locks))
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [fit, start, out, valid, train @ ..] if fit == "--fit" && !train.is_empty() => {
            fine_tune(start, out, valid, train)
        }
        [net, replays @ ..] if !replays.is_empty() && net != "--fit" => report(net, replays),
        _ => Err("usage: imitation NET.nnue REPLAY.txt [REPLAY.txt ...], \
             or imitation --fit START.f32 OUT VALID.txt TRAIN.txt [TRAIN.txt ...]"
            .into()),
    }
}

fn report(net: &str, replays: &[String]) -> Result<(), String> {
    let plain = NetEvaluator::load(Path::new(net)).map_err(|e| format!("{net}: {e}"))?;
    let mut step_costs = vec![0.0];
    if let Ok(list) = std::env::var("STEP_COSTS") {
        for x in list.split(',') {
            step_costs.push(
                x.trim()
                    .parse::<f64>()
                    .map_err(|e| format!("STEP_COSTS {x}: {e}"))?,
            );
        }
    }
    let searched: Vec<_> = step_costs
        .iter()
        .map(|&c| Lookahead::new(plain.clone(), DEFAULT_QUIESCENT_DEPTH).with_step_cost(c))
        .collect();
    println!(
        "{:>12} {:>10} {:>6} {:>6} {:>6} {:>6} {:>10} {:>12} {:>12}",
        "game",
        "ranking",
        "locks",
        "top1",
        "top3",
        "top5",
        "percentile",
        "first lines",
        "record lines"
    );
    let mut costs = Vec::new();
    for path in replays {
        let (name, locks) = locks_of(path)?;
        let mut t_search: Vec<Tally> = searched.iter().map(|_| Tally::default()).collect();
        let mut t_plain = Tally::default();
        for lock in &locks {
            let lines = lock.lines();
            for (ev, tally) in searched.iter().zip(&mut t_search) {
                lock.costs(ev, &mut costs);
                tally.add(&costs, lock.record, &lines);
            }
            lock.costs(&plain, &mut costs);
            t_plain.add(&costs, lock.record, &lines);
        }
        for (c, tally) in step_costs.iter().zip(&t_search) {
            tally.print(&name, &format!("look {c}"));
        }
        t_plain.print(&name, "net");
    }
    Ok(())
}

/// A setting from the environment, or its default.
fn setting<T: std::str::FromStr>(name: &str, default: T) -> Result<T, String> {
    match std::env::var(name) {
        Ok(s) => s
            .trim()
            .parse()
            .map_err(|_| format!("{name}: cannot read {s:?}")),
        Err(_) => Ok(default),
    }
}

/// The search's order under `net`: the quantised net with the lookahead.
fn searched(net: &Net) -> Result<Lookahead<NetEvaluator>, String> {
    let quant = QuantNet::from_net(net).map_err(|e| e.to_string())?;
    Ok(Lookahead::new(
        NetEvaluator::new(quant),
        DEFAULT_QUIESCENT_DEPTH,
    ))
}

/// How `net` ranks the record's placements of `locks` in the search's order.
fn tally(net: &Net, locks: &[Lock]) -> Result<Tally, String> {
    let ev = searched(net)?;
    let mut tally = Tally::default();
    let mut costs = Vec::new();
    for lock in locks {
        lock.costs(&ev, &mut costs);
        tally.add(&costs, lock.record, &lock.lines());
    }
    Ok(tally)
}

/// One epoch's samples: a group a lock (see the module doc).
fn imitation_samples(
    start: &Net,
    now: &Net,
    locks: &[Lock],
    margin: f32,
) -> Result<Vec<Vec<Sample>>, String> {
    let ev = searched(now)?;
    Ok(locks
        .iter()
        .enumerate()
        .map(|(g, lock)| {
            let wells: Vec<Well> = lock
                .children
                .iter()
                .zip(&lock.scores)
                .map(|(c, &s)| ev.best(&c.well, s).well)
                .collect();
            let mine = wells[lock.record];
            let anchor: Vec<f32> = wells.iter().map(|w| start.value(w)).collect();
            let top = anchor.iter().copied().fold(f32::MIN, f32::max);
            wells
                .iter()
                .zip(&anchor)
                .enumerate()
                // A sibling whose chain ends in the record's own well is
                // dropped: it cannot rank below it.
                .filter(|&(i, (w, _))| i == lock.record || *w != mine)
                .map(|(i, (&well, &a))| Sample {
                    well,
                    target: if i == lock.record { top + margin } else { a },
                    group: g as u32,
                })
                .collect()
        })
        .collect())
}

fn fine_tune(start: &str, out: &str, valid: &str, train: &[String]) -> Result<(), String> {
    let margin: f32 = setting("MARGIN", 0.1)?;
    let rank: f32 = setting("RANK", 1.0)?;
    let learning_rate: f32 = setting("LR", 1e-4)?;
    let epochs: usize = setting("EPOCHS", 8)?;
    let seed: u64 = setting("SEED", 1)?;
    let start_net = Net::load(Path::new(start)).map_err(|e| format!("{start}: {e}"))?;
    let (_, valid_locks) = locks_of(valid)?;
    let mut locks = Vec::new();
    for path in train {
        locks.extend(locks_of(path)?.1);
    }
    // A forced move teaches no order.
    locks.retain(|lock| lock.children.len() > 1);
    println!(
        "{} training locks, {} validation locks; MARGIN {margin} RANK {rank} LR {learning_rate} SEED {seed}",
        locks.len(),
        valid_locks.len()
    );
    println!("epoch  train top1  train pct  valid top1  valid pct    loss");
    let line = |epoch: usize, net: &Net, loss: &str| -> Result<f64, String> {
        let (t, v) = (tally(net, &locks)?, tally(net, &valid_locks)?);
        println!(
            "{epoch:5} {:11.3} {:10.4} {:11.3} {:10.4}  {loss}",
            t.top1(),
            t.mean_percentile(),
            v.top1(),
            v.mean_percentile()
        );
        Ok(v.mean_percentile())
    };
    let mut best = (line(0, &start_net, "")?, start_net.clone(), 0);
    let config = AdamConfig {
        learning_rate,
        ..AdamConfig::default()
    };
    let mut trainer = Trainer::new(start_net.clone(), config);
    let mut rng = Rng::new(seed);
    let mut order: Vec<usize> = (0..locks.len()).collect();
    let mut batch = Vec::new();
    for epoch in 1..=epochs {
        let groups = imitation_samples(&start_net, trainer.net(), &locks, margin)?;
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let (mut loss, mut batches) = (0.0, 0usize);
        for chunk in order.chunks(8) {
            batch.clear();
            for &g in chunk {
                batch.extend_from_slice(&groups[g]);
            }
            loss += trainer.step_ranked(&batch, rank);
            batches += 1;
        }
        let loss = format!("{:.4}", loss / batches.max(1) as f64);
        let valid = line(epoch, trainer.net(), &loss)?;
        if valid < best.0 {
            best = (valid, trainer.net().clone(), epoch);
        }
    }
    println!("kept epoch {} (valid percentile {:.4})", best.2, best.0);
    let f32_path = PathBuf::from(format!("{out}.f32"));
    let nnue_path = PathBuf::from(format!("{out}.nnue"));
    best.1
        .save_with_quantised(&f32_path, &nnue_path)
        .map_err(|e| e.to_string())?;
    Ok(())
}
