//! How a net ranks the records' own moves: for every lock of a record game
//! from piece 100 on (the steady state), where the record's child falls
//! among all placements of the piece HATETRIS gave, ranked by the search's
//! cost (the net with the quiescent lookahead) and by the net alone; and
//! how many lines the net's first choice clears against the record's.
//! A probe of imitation targets (`data/train/README.md`, "How the nets rank
//! the records' moves").
//!
//!     cargo run --release --example imitation -- NET.nnue REPLAY.txt [REPLAY.txt ...]
//!
//! With `STEP_COSTS=0.05,0.1` in the environment, the lookahead is also
//! ranked with each of those costs per hypothetical clear
//! ([`Lookahead::with_step_cost`]).
//!
//! A replay file holds one replay in any of the game's formats. The games
//! are played against HATETRIS.

use std::path::Path;
use std::process::ExitCode;

use hatetris::evaluate::{Evaluator, Lookahead, DEFAULT_QUIESCENT_DEPTH};
use hatetris::nnue::NetEvaluator;
use hatetris::replay::{codec::decode_detected, play};
use hatetris::strength::STEADY_FROM;
use hatetris::{EnemyKind, MoveGen, Well};

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

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (net, replays) = match args.as_slice() {
        [net, replays @ ..] if !replays.is_empty() => (net, replays),
        _ => return Err("usage: imitation NET.nnue REPLAY.txt [REPLAY.txt ...]".into()),
    };
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
    for path in replays {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let (_, keys) = decode_detected(text.trim()).map_err(|e| format!("{path}: {e}"))?;
        let trace = play(&keys, EnemyKind::Hatetris);
        let name = Path::new(path)
            .file_stem()
            .map_or_else(|| path.clone(), |s| s.to_string_lossy().into_owned());
        let mut t_search: Vec<Tally> = searched.iter().map(|_| Tally::default()).collect();
        let mut t_plain = Tally::default();
        let mut children = Vec::new();
        let (mut costs_s, mut costs_p) = (Vec::new(), Vec::new());
        for i in STEADY_FROM as usize..trace.steps.len() {
            let (before, step) = (&trace.steps[i - 1], &trace.steps[i]);
            let after = Well::from_board_unchecked(&step.board);
            let parent = Well::from_board_unchecked(&before.board);
            children.clear();
            MoveGen::new(&parent).children(step.piece, &mut children);
            // The last lock of a lost game has no live child to find.
            let Some(record) = children
                .iter()
                .position(|c| c.well == after && c.lines == step.lines)
            else {
                continue;
            };
            let lines: Vec<u8> = children.iter().map(|c| c.lines).collect();
            let score = |c: &hatetris::Child| f64::from(before.score) + f64::from(c.lines);
            for (ev, tally) in searched.iter().zip(&mut t_search) {
                costs_s.clear();
                costs_s.extend(children.iter().map(|c| ev.cost(&c.well, score(c))));
                tally.add(&costs_s, record, &lines);
            }
            costs_p.clear();
            costs_p.extend(children.iter().map(|c| plain.cost(&c.well, score(c))));
            t_plain.add(&costs_p, record, &lines);
        }
        for (c, tally) in step_costs.iter().zip(&t_search) {
            tally.print(&name, &format!("look {c}"));
        }
        t_plain.print(&name, "net");
    }
    Ok(())
}
