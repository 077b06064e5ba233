//! `bots hatris play|train|stats`.
//!
//! Two stages, as in the style guide: clap structs hold plain values (their
//! doc comments are the help text); `*Args::config` checks cross-flag rules
//! and builds the run's settings; `run` calls the library and prints.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use super::bot::{Bot, Weights, ARTICLE_WEIGHTS, METRIC_NAMES};
use super::hats::{Hat, Helper, LETTERS};
use super::prng::Pair;
use super::sim::{Board, Game, Move, Rules, COLUMNS, LEVELS, SPAWN_ALTITUDE, STACKS_PER_LEVEL};
use super::stats::{mean_std, run_batch, GameResult};
use super::train::{train, TrainConfig};
use crate::common::cli::{at_least_one, ThreadsArg};
use crate::common::weights as wfile;

/// Magic of a Hatris weights file.
pub const WEIGHTS_MAGIC: &str = "hatris-weights";

/// Spawns needed to finish all 60 levels (60 × 15 stacks × 5 hats / 2).
pub const SPAWNS_TO_FINISH: u64 = 2250;

/// Subcommands for Hatris.
#[derive(clap::Subcommand, Debug)]
pub enum Cmd {
    /// Play one seeded game, drawn as text, with a final summary.
    Play(PlayArgs),
    /// Hill-climb the evaluation weights and write them to a file.
    Train(TrainArgs),
    /// Play many seeded games and report spawns survived.
    Stats(StatsArgs),
}

/// Rule flags shared by the subcommands.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct RuleArgs {
    /// Leave out the re-pick of pairs whose two hats match (the article's
    /// first simulator).
    #[arg(long)]
    pub no_repick: bool,
    /// Six hat types from the start and no refill after a shop, like the
    /// article's simulator.
    #[arg(long)]
    pub flat: bool,
    /// Game-over height in units (the article does not give it; 169 is the
    /// spawn altitude). For measuring how much that assumption matters.
    #[arg(long, default_value_t = SPAWN_ALTITUDE)]
    pub ceiling: u8,
    /// Fewest frames between two spawns (the hat generator reads the frame
    /// counter). For measuring how much the timing model matters.
    #[arg(long, default_value_t = 32)]
    pub frame_gap_min: u16,
    /// Most frames between two spawns.
    #[arg(long, default_value_t = 287)]
    pub frame_gap_max: u16,
}

impl RuleArgs {
    fn rules(self) -> Result<Rules> {
        if self.ceiling == 0 {
            bail!("--ceiling must be at least 1");
        }
        if self.frame_gap_min > self.frame_gap_max {
            bail!(
                "--frame-gap-min ({}) is above --frame-gap-max ({})",
                self.frame_gap_min,
                self.frame_gap_max
            );
        }
        Ok(Rules {
            repick: !self.no_repick,
            flat: self.flat,
            ceiling: self.ceiling,
            frame_gap: (self.frame_gap_min, self.frame_gap_max),
        })
    }

    /// The flags as they would be typed, for the record in a weights file.
    fn as_flags(self) -> String {
        let d = Rules::default();
        let mut s = String::new();
        if self.no_repick {
            s.push_str(" --no-repick");
        }
        if self.flat {
            s.push_str(" --flat");
        }
        if self.ceiling != d.ceiling {
            s.push_str(&format!(" --ceiling {}", self.ceiling));
        }
        if (self.frame_gap_min, self.frame_gap_max) != d.frame_gap {
            s.push_str(&format!(
                " --frame-gap-min {} --frame-gap-max {}",
                self.frame_gap_min, self.frame_gap_max
            ));
        }
        s
    }
}

/// Arguments of `play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Game seed (drives the frame counts between spawns).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Weights file written by `train` (default: the article's weights).
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Stop after this many spawns if the game is still going.
    #[arg(long, default_value_t = 100_000)]
    pub max_spawns: u64,
    /// Draw the piles every N spawns (0: only the final position).
    #[arg(long, default_value_t = 1)]
    pub every: u64,
    /// Rule switches.
    #[command(flatten)]
    pub rules: RuleArgs,
}

/// Arguments of `train`.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Master seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Outer rounds of the hill climb.
    #[arg(long, default_value_t = 10)]
    pub rounds: u32,
    /// Games per rating.
    #[arg(long, default_value_t = 4)]
    pub games: usize,
    /// Weight variants per inner step.
    #[arg(long, default_value_t = 4)]
    pub variants: usize,
    /// Spawn cap per training game.
    #[arg(long, default_value_t = 3000)]
    pub max_spawns: u64,
    /// Largest relative change of one weight in a variant (0.05: ± 5 %).
    #[arg(long, default_value_t = 0.05)]
    pub step: f64,
    /// Largest absolute change of one weight in a variant, in percent points
    /// (0: factors only, the article's loop; then a weight near 0 stays near 0).
    #[arg(long, default_value_t = 0.0)]
    pub step_abs: f64,
    /// Worker threads.
    #[command(flatten)]
    pub threads: ThreadsArg,
    /// Start from the weights in this file instead of random ones.
    #[arg(long)]
    pub start: Option<PathBuf>,
    /// Start from the article's weights instead of random ones.
    #[arg(long, conflicts_with = "start")]
    pub from_article: bool,
    /// Where to write the weights.
    #[arg(long, default_value = "hatris-weights.txt")]
    pub out: PathBuf,
    /// Rule switches.
    #[command(flatten)]
    pub rules: RuleArgs,
}

/// Arguments of `stats`.
#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// Batch seed (game i uses the i-th SplitMix64 output).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Weights file written by `train` (default: the article's weights).
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Stop a game after this many spawns (counted as survived).
    #[arg(long, default_value_t = 50_000)]
    pub max_spawns: u64,
    /// Worker threads.
    #[command(flatten)]
    pub threads: ThreadsArg,
    /// Measure both with and without the re-pick rule (ignores --no-repick).
    #[arg(long)]
    pub both: bool,
    /// Rule switches.
    #[command(flatten)]
    pub rules: RuleArgs,
}

/// Runs one subcommand.
pub fn run(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Play(a) => play(a),
        Cmd::Train(a) => run_train(a),
        Cmd::Stats(a) => stats(a),
    }
}

/// Loads weights from `path`, or the article's.
pub fn load_weights(path: Option<&Path>) -> Result<Weights> {
    match path {
        None => Ok(ARTICLE_WEIGHTS),
        Some(p) => Ok(Weights(wfile::read(p, WEIGHTS_MAGIC, &METRIC_NAMES)?)),
    }
}

fn pair_text(p: Pair) -> String {
    format!("{}{}", p[0].letter(), p[1].letter())
}

fn move_text(pair: Pair, mv: Move) -> String {
    match mv {
        Move::Pair { cols, split, .. } => format!(
            "{} -> column {}, {} -> column {}{}",
            pair[0].name(),
            cols[0],
            pair[1].name(),
            cols[1],
            if split { " (split)" } else { "" }
        ),
        Move::Alexey { counts } => {
            let parts: Vec<String> = counts
                .iter()
                .enumerate()
                .filter(|(_, &k)| k > 0)
                .map(|(c, k)| format!("{k} from column {c}"))
                .collect();
            format!("Alexey removes bottom hats: {}", parts.join(", "))
        }
        Move::Vladimir { a, b } => format!("Vladimir swaps columns {a} and {b}"),
    }
}

/// Draws the piles as text, top row first.
pub fn draw(board: &Board) -> String {
    let rows = board.piles.iter().map(|p| p.len()).max().unwrap_or(0);
    let mut s = String::new();
    for r in (0..rows).rev() {
        s.push('|');
        for p in &board.piles {
            let ids = p.ids();
            let ch = if r < ids.len() {
                LETTERS[ids[r] as usize - 1]
            } else {
                ' '
            };
            s.push_str(&format!("  {ch} "));
        }
        s.push_str("|\n");
    }
    s.push('+');
    s.push_str(&"-".repeat(4 * COLUMNS));
    s.push_str("+\n ");
    for h in board.heights() {
        s.push_str(&format!("{h:>4}"));
    }
    s.push_str("   (heights)\n");
    s
}

fn pool_text(board: &Board) -> String {
    let v: Vec<&str> = board
        .pool
        .iter()
        .map(|h| match h {
            Helper::Alexey => "A",
            Helper::Vladimir => "V",
        })
        .collect();
    format!("[{}]", v.join(" "))
}

fn play(a: PlayArgs) -> Result<()> {
    let weights = load_weights(a.weights.as_deref())?;
    let bot = Bot::new(weights);
    let mut g = Game::new(a.seed, a.rules.rules()?);
    let out = std::io::stdout();
    let mut out = out.lock();
    writeln!(
        out,
        "Hatris, seed {}, re-pick {}, {} rules. Hats: {}",
        a.seed,
        if g.rules().repick { "on" } else { "off" },
        if g.rules().flat {
            "flat (article)"
        } else {
            "full"
        },
        Hat::ALL
            .iter()
            .map(|h| format!("{}={}", h.letter(), h.name()))
            .collect::<Vec<_>>()
            .join(" ")
    )?;
    while !g.over && g.spawns < a.max_spawns {
        let Some(mv) = bot.choose(&g.board, g.current, g.next) else {
            break;
        };
        let (spawn, pair, next) = (g.spawns, g.current, g.next);
        let turn = g.play(mv);
        if a.every > 0 && (spawn % a.every == 0 || g.over) {
            writeln!(
                out,
                "\nspawn {spawn}: pair {} (next {}): {}",
                pair_text(pair),
                pair_text(next),
                move_text(pair, mv)
            )?;
            if turn.outcome.sold > 0 {
                writeln!(
                    out,
                    "  sold {} stack(s) for {} cash",
                    turn.outcome.sold, turn.outcome.cash
                )?;
            }
            if turn.refilled {
                writeln!(out, "  shop complete: piles cleared and refilled")?;
            }
            writeln!(
                out,
                "level {} (shop {}, stage {}), stacks {}/{}, cash {}, pool {}, bars A {}/5 V {}/5",
                g.level,
                g.shop(),
                g.stage(),
                g.level_stacks,
                STACKS_PER_LEVEL,
                g.board.cash,
                pool_text(&g.board),
                g.board.bars[0],
                g.board.bars[1]
            )?;
            write!(out, "{}", draw(&g.board))?;
        }
    }
    if a.every == 0 {
        write!(out, "{}", draw(&g.board))?;
    }
    writeln!(
        out,
        "\nsummary: {} after {} spawns; level {}{}; {} stacks sold; cash {}; {} helper(s) used",
        if g.over { "game over" } else { "stopped" },
        g.spawns,
        g.level,
        match g.finished_at {
            Some(s) => format!(" (all {LEVELS} levels done at spawn {s})"),
            None => String::new(),
        },
        g.board.stacks,
        g.board.cash,
        g.helpers_used
    )?;
    Ok(())
}

fn run_train(a: TrainArgs) -> Result<()> {
    at_least_one("--games", a.games as u64)?;
    at_least_one("--variants", a.variants as u64)?;
    at_least_one("--max-spawns", a.max_spawns)?;
    if !(a.step > 0.0 && a.step < 1.0) {
        bail!("--step must be between 0 and 1 (exclusive), got {}", a.step);
    }
    if !(a.step_abs >= 0.0 && a.step_abs <= 100.0) {
        bail!("--step-abs must be between 0 and 100, got {}", a.step_abs);
    }
    let start = if a.from_article {
        Some(ARTICLE_WEIGHTS)
    } else {
        match &a.start {
            Some(p) => Some(load_weights(Some(p))?),
            None => None,
        }
    };
    let cfg = TrainConfig {
        seed: a.seed,
        rounds: a.rounds,
        games: a.games,
        variants: a.variants,
        max_spawns: a.max_spawns,
        rules: a.rules.rules()?,
        threads: a.threads.threads,
        start,
        step: a.step,
        step_abs: a.step_abs,
    };
    let comment = format!(
        "Hatris weights (percent), written by `bots hatris train --seed {} --rounds {} --games {} --variants {} --max-spawns {} --step {}{}{}{}`",
        a.seed,
        a.rounds,
        a.games,
        a.variants,
        a.max_spawns,
        a.step,
        if a.step_abs > 0.0 {
            format!(" --step-abs {}", a.step_abs)
        } else {
            String::new()
        },
        match (&a.start, a.from_article) {
            (Some(p), _) => format!(" --start {}", p.display()),
            (None, true) => " --from-article".to_string(),
            (None, false) => String::new(),
        },
        a.rules.as_flags(),
    );
    let mut write_err = None;
    let w = train(&cfg, |round, w, r| {
        eprintln!(
            "round {round}: mean spawns {:.1}, mean cash {:.0}",
            r.spawns, r.cash
        );
        // Save after every round so an interrupted run keeps its progress.
        if let Err(e) = wfile::write(&a.out, WEIGHTS_MAGIC, &METRIC_NAMES, &w.0, &comment) {
            write_err.get_or_insert(e);
        }
    });
    if let Some(e) = write_err {
        return Err(e.into());
    }
    wfile::write(&a.out, WEIGHTS_MAGIC, &METRIC_NAMES, &w.0, &comment)?;
    println!("weights written to {}", a.out.display());
    for (n, v) in METRIC_NAMES.iter().zip(w.0) {
        println!("{n:>13} {v:10.5}");
    }
    Ok(())
}

fn summarise(label: &str, results: &[GameResult]) -> String {
    let spawns: Vec<f64> = results.iter().map(|r| r.spawns as f64).collect();
    let (mean, std) = mean_std(&spawns);
    let mut sorted: Vec<u64> = results.iter().map(|r| r.spawns).collect();
    sorted.sort_unstable();
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0);
    let n = results.len().max(1) as f64;
    let past = results
        .iter()
        .filter(|r| r.spawns >= SPAWNS_TO_FINISH)
        .count();
    let finished = results.iter().filter(|r| r.finished_at.is_some()).count();
    let capped = results.iter().filter(|r| r.capped).count();
    let helpers: f64 = results.iter().map(|r| r.helpers_used as f64).sum::<f64>() / n;
    format!(
        "{label}: {} games, spawns before game over: mean {mean:.1}, std {std:.1}, \
         min {}, median {median}, max {}; {:.1}% reached {SPAWNS_TO_FINISH} spawns, \
         {:.1}% finished all {LEVELS} levels, {capped} capped; helpers used per game {helpers:.1}",
        results.len(),
        sorted.first().copied().unwrap_or(0),
        sorted.last().copied().unwrap_or(0),
        100.0 * past as f64 / n,
        100.0 * finished as f64 / n,
    )
}

fn stats(a: StatsArgs) -> Result<()> {
    at_least_one("--games", a.games as u64)?;
    at_least_one("--max-spawns", a.max_spawns)?;
    let bot = Bot::new(load_weights(a.weights.as_deref())?);
    let base = a.rules.rules()?;
    let configs: Vec<(&str, Rules)> = if a.both {
        vec![
            (
                "with re-pick",
                Rules {
                    repick: true,
                    ..base
                },
            ),
            (
                "without re-pick",
                Rules {
                    repick: false,
                    ..base
                },
            ),
        ]
    } else if base.repick {
        vec![("with re-pick", base)]
    } else {
        vec![("without re-pick", base)]
    };
    println!(
        "Hatris stats: seed {}, {} games, {} rules, game over at height {}, {} to {} frames between spawns, cap {} spawns, weights {}",
        a.seed,
        a.games,
        if base.flat { "flat (article)" } else { "full" },
        base.ceiling,
        base.frame_gap.0,
        base.frame_gap.1,
        a.max_spawns,
        a.weights
            .as_deref()
            .map_or("article".to_string(), |p| p.display().to_string())
    );
    for (label, rules) in configs {
        let t = std::time::Instant::now();
        let results = run_batch(
            &bot,
            a.seed,
            a.games,
            rules,
            a.max_spawns,
            a.threads.threads,
        );
        println!("{}", summarise(label, &results));
        eprintln!("  ({label}: {:.1} s)", t.elapsed().as_secs_f64());
    }
    Ok(())
}
