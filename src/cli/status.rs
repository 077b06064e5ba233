//! `hatetris status`: a run, training or tuning folder at a glance, once
//! or every few seconds (the library reads the folder, this prints it).

use std::io::Write;
use std::time::Duration;

use anyhow::{Context, Result};

use hatetris::folder::Holds;
use hatetris::run::status::{self, Status};
use hatetris::train::{self, status::TrainStatus, GateGame};
use hatetris::tune::{self, status::TuneStatus};

use super::args::StatusArgs;
use super::search::human_bytes;
use super::{note, outln, STDOUT};

pub fn status(a: StatusArgs, out: &mut dyn Write) -> Result<()> {
    let (watch, dir) = a.watch_and_dir();
    let d = dir.display().to_string();
    match hatetris::folder::holds(&dir) {
        Some(Holds::Training) => {
            return watching(
                watch,
                a.json,
                out,
                || Ok(train::status::status(&dir)?),
                |s| describe_training(&d, s),
            );
        }
        Some(Holds::Tuning) => {
            return watching(
                watch,
                a.json,
                out,
                || Ok(tune::status::status(&dir)?),
                |s| describe_tuning(&d, s),
            );
        }
        _ => {}
    }
    loop {
        let s = status::status(&dir)?;
        if a.json {
            outln!(out, "{}", serde_json::to_string(&s)?)?;
        } else {
            write!(out, "{}", describe(&dir.display().to_string(), &s)).context(STDOUT)?;
        }
        if a.plot {
            match super::plot::write_run_plot(&dir) {
                Ok(paths) => note!("drew {}", paths),
                Err(e) => note!("the run's picture was not drawn: {e:#}"),
            }
        }
        out.flush().context(STDOUT)?;
        match watch {
            None => return Ok(()),
            Some(seconds) => {
                std::thread::sleep(Duration::from_secs(seconds));
                if !a.json {
                    outln!(out)?;
                }
            }
        }
    }
}

/// The status as lines of text.
fn describe(dir: &str, s: &Status) -> String {
    let mut t = String::new();
    let evaluator = match (&s.net, s.quiescent) {
        (Some(net), Some(q)) => format!("net {net}, lookahead depth {q}"),
        (Some(net), None) => format!("net {net}"),
        (None, Some(q)) => format!("heuristic, lookahead depth {q}"),
        (None, None) => "heuristic".to_string(),
    };
    let evaluator = match s.chain_step_cost {
        Some(c) => format!("{evaluator}, chain step cost {c}"),
        None => evaluator,
    };
    let evaluator = match &s.lineage_cap {
        Some(cap) => format!("{evaluator}, lineage cap {cap}"),
        None => evaluator,
    };
    t += &format!(
        "run {dir}: width {}, enemy {}, {evaluator}\n",
        s.width, s.enemy
    );
    let progress = match (s.in_progress, s.in_progress_s) {
        (Some(d), Some(secs)) => format!(
            ", depth {d} in progress for {}",
            super::search::human_seconds(secs)
        ),
        (Some(d), None) => format!(", depth {d} in progress"),
        _ => String::new(),
    };
    let state = match (s.running, s.pid, s.exhausted) {
        (true, Some(pid), _) => format!("running (process {pid}){progress}"),
        (true, None, _) => format!("running{progress}"),
        (false, _, true) => "finished: every child ends the game".to_string(),
        (false, _, false) if Some(s.depth) == s.max_depth => "finished".to_string(),
        (false, _, false) => "not running (`hatetris search --resume DIR` goes on)".to_string(),
    };
    let of = s.max_depth.map_or(String::new(), |m| format!(" of {m}"));
    t += &format!("depth {}{of}, {state}\n", s.depth);
    t += &format!(
        "best score {} (first reached at depth {}){}\n",
        s.best_score,
        s.best_depth,
        match s.best_replay {
            true => ", best-replay.txt written",
            false => "",
        }
    );
    if let Some(c) = s.cells {
        t += &format!(
            "best well: {} cells (4 a piece less 10 a line); the last {} depths {:+} cells, {:.3} lines a piece (0.4 holds it level)\n",
            c.now, c.over, c.gained, c.lines_per_piece
        );
    }
    if let Some(a) = s.common_ancestor {
        t += &format!(
            "the beam's wells all descend from its well at depth {a}, {} pieces back\n",
            s.depth.saturating_sub(a)
        );
    }
    if let (Some(spd), Some(first), Some(last)) =
        (s.seconds_per_depth, s.recent.first(), s.recent.last())
    {
        let each: Vec<String> = s
            .recent
            .iter()
            .map(|r| format!("{:.2}", r.seconds))
            .collect();
        let eta = match (s.eta_s, s.max_depth) {
            (Some(eta), Some(max)) if eta > 0.0 => format!(
                "; about {} to depth {max}",
                super::search::human_seconds(eta)
            ),
            _ => String::new(),
        };
        t += &format!(
            "depths {} to {}: {spd:.2} s per depth ({} s), {} children per second{eta}\n",
            first.depth,
            last.depth,
            each.join(" "),
            s.children_per_second
                .map_or("?".to_string(), |c| format!("{:.0}", c))
        );
    }
    if let Some(rss) = s.peak_rss {
        t += &format!("peak memory {}\n", human_bytes(rss));
    }
    t += &format!(
        "disk: the folder holds {}{}\n",
        human_bytes(s.folder_bytes),
        s.disk_free
            .map_or(String::new(), |f| format!(", {} free", human_bytes(f)))
    );
    t
}

/// `status` on a training or tuning folder, once or every few seconds:
/// `read` takes the status, `describe` puts it in lines of text.
fn watching<S: serde::Serialize>(
    watch: Option<u64>,
    json: bool,
    out: &mut dyn Write,
    read: impl Fn() -> Result<S>,
    describe: impl Fn(&S) -> String,
) -> Result<()> {
    loop {
        let s = read()?;
        if json {
            outln!(out, "{}", serde_json::to_string(&s)?)?;
        } else {
            write!(out, "{}", describe(&s)).context(STDOUT)?;
        }
        out.flush().context(STDOUT)?;
        match watch {
            None => return Ok(()),
            Some(seconds) => std::thread::sleep(Duration::from_secs(seconds)),
        }
    }
}

/// One wide game of a gate in progress, as a line: whose, where it starts,
/// and how far it has come.
fn describe_gate_game(game: &GateGame) -> String {
    let start = match game.from {
        0 => "the empty well".to_string(),
        at => format!("piece {at}"),
    };
    let state = match (game.played, game.ended) {
        (None, _) => "not begun".to_string(),
        (Some((depth, lines)), ended) => format!(
            "{} at depth {depth}, {lines} lines",
            if ended { "ended" } else { "played" }
        ),
    };
    format!(
        "the {}'s wide game at width {} from {start} ({}): {state}",
        if game.champion {
            "champion"
        } else {
            "candidate"
        },
        game.width,
        game.folder.display()
    )
}

/// A training folder's status as lines of text.
fn describe_training(dir: &str, s: &TrainStatus) -> String {
    let mut t = format!(
        "training folder {dir}: {} generations done, {}{}\n",
        s.generations.len(),
        if s.learning {
            "learning loop (gated)"
        } else {
            "plain loop"
        },
        match (s.running, s.pid) {
            (true, Some(pid)) => format!(", running (process {pid})"),
            (true, None) => ", running".to_string(),
            (false, _) => ", not running".to_string(),
        }
    );
    if let Some(f) = &s.forked {
        t += &format!("  {}\n", f.describe());
    }
    for g in &s.generations {
        let gate = match &g.gate {
            Some(x) => format!(
                ", gate {:.1} pieces a start against {:.1}{}{}: {}",
                x.candidate_pieces,
                x.champion_pieces,
                x.steady_text(),
                x.wide_text().map(|t| format!(", {t}")).unwrap_or_default(),
                if x.kept { "kept" } else { "not kept" }
            ),
            None => String::new(),
        };
        t += &format!(
            "  generation {}: master {} lines{}, {} samples{}, validation loss {:.4}{gate}\n",
            g.generation,
            g.master.score,
            if g.master.reused_from.is_some() {
                " (taken over)"
            } else {
                ""
            },
            g.samples,
            super::train::from_wide(g),
            g.validation_loss,
        );
    }
    if let Some(c) = &s.champion {
        let on = match &c.steady {
            Some(game) => format!(", on {game}'s steady state"),
            None => String::new(),
        };
        t += &format!(
            "champion: {} ({:.1} pieces and {:.1} lines a gate position{on})\n",
            c.net.display(),
            c.figures.pieces_mean,
            c.figures.lines_mean
        );
    }
    if let (Some(g), Some(step)) = (s.in_progress, &s.step) {
        t += &format!("in progress: generation {g}, {step}");
        if let Some((done, of)) = s.targets_done {
            t += &format!(" ({done} of {of})");
        }
        t += "\n";
        if let Some(r) = &s.gate_positions {
            let (d, se) = r.pieces_difference;
            let of = match &r.steady {
                Some(game) => format!(" (with {game}'s steady state)"),
                None => String::new(),
            };
            t += &format!(
                "  the gate's positions{of}: {:.1} pieces a start against the champion's {:.1} ({d:+.1} ± {se:.1}): {}\n",
                r.candidate.pieces_mean,
                r.champion_figures.pieces_mean,
                match (r.kept, s.gate_games.is_empty()) {
                    (true, false) => "kept, if the wide games agree",
                    (true, true) => "kept",
                    (false, _) => "not kept",
                }
            );
        }
        for game in &s.gate_games {
            t += &format!("  {}\n", describe_gate_game(game));
        }
    }
    if let Some(secs) = s.seconds_per_generation {
        t += &format!(
            "a generation takes about {}",
            super::search::human_seconds(secs)
        );
        match (s.target, s.eta_s) {
            (Some(target), Some(eta)) if (s.generations.len() as u32) < target => {
                t += &format!(
                    "; {} to the {} asked for{}",
                    super::search::human_seconds(eta),
                    super::search::counted(target as usize, "generation"),
                    if s.running { "" } else { " (once run again)" }
                )
            }
            (Some(target), _) => {
                t += &format!(
                    "; the {} asked for {} done",
                    super::search::counted(target as usize, "generation"),
                    if target == 1 { "is" } else { "are" }
                )
            }
            _ => {}
        }
        t += "\n";
    }
    t
}

/// A tuning folder's status as lines of text.
fn describe_tuning(dir: &str, s: &TuneStatus) -> String {
    let of = s.budget.map_or(String::new(), |b| format!(" of {b}"));
    let state = match (s.running, s.pid) {
        (true, Some(pid)) => format!("running (process {pid})"),
        (true, None) => "running".to_string(),
        (false, _) if s.budget.is_some_and(|b| s.evaluations >= b) => "finished".to_string(),
        (false, _) => "not running (`hatetris tune DIR` goes on)".to_string(),
    };
    let mut t = format!(
        "tuning folder {dir}: {} evaluations{of}, {state}\n",
        s.evaluations
    );
    if let Some(b) = &s.best {
        t += &format!(
            "best {:.2} {} (sd {:.2}) at evaluation {} (generation {}){}: {}\n",
            b.mean,
            s.unit,
            b.sd,
            b.evaluation,
            b.generation,
            s.start_mean
                .map_or(String::new(), |m| format!(", the start {m:.2}")),
            b.weights.display()
        );
    }
    if let Some(pace) = s.seconds_per_evaluation {
        t += &format!(
            "{} per evaluation{}\n",
            super::search::human_seconds(pace),
            match s.eta_s {
                Some(eta) if eta > 0.0 => format!(
                    ", about {} to the budget",
                    super::search::human_seconds(eta)
                ),
                _ => String::new(),
            }
        );
    }
    t
}
