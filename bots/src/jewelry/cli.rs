//! `bots jewelry play|train|stats`.
//!
//! Clap structs hold plain values (doc comments are the help text); each
//! `run_*` checks the cross-flag rules, calls the library and prints.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::bot::{Bot, Weights, ARTICLE_WEIGHTS, METRIC_NAMES};
use super::game::Game;
use super::stats::{long_run, svg_log_plot, Fits};
use super::train::{train, TrainConfig};
use crate::common::cli::ThreadsArg;
use crate::common::weights as wfile;

/// Magic of a Magic Jewelry weights file.
pub const WEIGHTS_MAGIC: &str = "jewelry-weights";

/// Subcommands for Magic Jewelry.
#[derive(clap::Subcommand, Debug)]
pub enum Cmd {
    /// Play one seeded game, drawn as text, with a final summary.
    Play(PlayArgs),
    /// Hill-climb the evaluation weights and write them to a file.
    Train(TrainArgs),
    /// One long seeded run: histogram of the jewels on the field after
    /// every column, its mean and maximum, and a log10 plot (SVG).
    Stats(StatsArgs),
}

/// Arguments of `play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Game seed (drives the colours).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Weights file written by `train` (default: the article's weights).
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Columns to play at most.
    #[arg(long, default_value_t = 200)]
    pub columns: u64,
    /// Deal a wild column every N columns (0: never).
    #[arg(long, default_value_t = 0)]
    pub wild_every: u64,
    /// Draw the well every N columns (0: only the final position).
    #[arg(long, default_value_t = 1)]
    pub every: u64,
}

/// Arguments of `train`.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Master seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Outer rounds of the hill climb.
    #[arg(long, default_value_t = 3)]
    pub rounds: u32,
    /// Shortest column sequence per round (the article: 20,000).
    #[arg(long, default_value_t = 20_000)]
    pub min_columns: u64,
    /// Longest column sequence per round (the article: 40,000).
    #[arg(long, default_value_t = 40_000)]
    pub max_columns: u64,
    /// Weight variants per inner step.
    #[arg(long, default_value_t = 4)]
    pub variants: usize,
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
    #[arg(long, default_value = "jewelry-weights.txt")]
    pub out: PathBuf,
}

/// Arguments of `stats`.
#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// Run seed (game k of the run uses the k-th SplitMix64 output).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Columns to play in all.
    #[arg(long, default_value_t = 1_000_000)]
    pub columns: u64,
    /// Weights file written by `train` (default: the article's weights).
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Deal a wild column every N columns (0: never, as in the article).
    #[arg(long, default_value_t = 0)]
    pub wild_every: u64,
    /// Where to write the log10 plot (SVG).
    #[arg(long, default_value = "jewelry-log10.svg")]
    pub plot: PathBuf,
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

fn col_text(c: [u8; 3]) -> String {
    c.iter()
        .map(|&j| if j == 7 { 'X' } else { (b'0' + j) as char })
        .collect()
}

fn play(a: PlayArgs) -> Result<()> {
    let bot = Bot::new(load_weights(a.weights.as_deref())?);
    let mut g = Game::new(a.seed, a.wild_every);
    let out = std::io::stdout();
    let mut out = out.lock();
    writeln!(
        out,
        "Magic Jewelry, seed {}; columns drawn top jewel first; ':' marks the hidden rows",
        a.seed
    )?;
    let mut max_jewels = 0;
    let mut best_chain = 0;
    while g.columns < a.columns {
        let (cur, next) = (g.current, g.next);
        let Some((p, s)) = g.step(&bot) else {
            break;
        };
        max_jewels = max_jewels.max(g.board.jewels());
        best_chain = best_chain.max(s.chains);
        if a.every > 0 && ((g.columns - 1).is_multiple_of(a.every) || g.over) {
            writeln!(
                out,
                "\ncolumn {}: {} (next {}) -> well column {} as {}; cleared {}, chains {}; {} jewels",
                g.columns - 1,
                col_text(cur),
                col_text(next),
                p.x,
                col_text(p.order),
                s.cleared,
                s.chains,
                g.board.jewels()
            )?;
            write!(out, "{}", g.board.draw())?;
        }
        if g.over {
            break;
        }
    }
    if a.every == 0 {
        write!(out, "{}", g.board.draw())?;
    }
    writeln!(
        out,
        "\nsummary: {} after {} columns; {} jewels cleared; {} on the field (max {}); longest cascade {} rounds",
        if g.over { "game over" } else { "stopped" },
        g.columns,
        g.cleared,
        g.board.jewels(),
        max_jewels,
        best_chain
    )?;
    Ok(())
}

fn run_train(a: TrainArgs) -> Result<()> {
    if a.variants == 0 || a.min_columns == 0 || a.max_columns < a.min_columns {
        bail!("need --variants >= 1 and 1 <= --min-columns <= --max-columns");
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
        min_columns: a.min_columns,
        max_columns: a.max_columns,
        variants: a.variants,
        threads: a.threads.threads,
        start,
    };
    let comment = format!(
        "Magic Jewelry weights (percent), written by `bots jewelry train --seed {} --rounds {} --min-columns {} --max-columns {} --variants {}{}`",
        a.seed,
        a.rounds,
        a.min_columns,
        a.max_columns,
        a.variants,
        if a.from_article { " --from-article" } else { "" }
    );
    let mut write_err = None;
    let w = train(&cfg, |round, w, mean| {
        eprintln!("round {round}: mean jewels on the field {mean:.3}");
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
        println!("{n:>15} {v:8.3}");
    }
    Ok(())
}

fn stats(a: StatsArgs) -> Result<()> {
    if a.columns == 0 {
        bail!("--columns must be at least 1");
    }
    let bot = Bot::new(load_weights(a.weights.as_deref())?);
    let t = std::time::Instant::now();
    let h = long_run(&bot, a.seed, a.columns, a.wild_every, |n| {
        eprintln!("  {n} columns, {:.0} s", t.elapsed().as_secs_f64());
    });
    let out = std::io::stdout();
    let mut out = out.lock();
    writeln!(
        out,
        "Magic Jewelry stats: seed {}, {} columns, wild every {}, weights {}",
        a.seed,
        a.columns,
        a.wild_every,
        a.weights
            .as_deref()
            .map_or("article".to_string(), |p| p.display().to_string())
    )?;
    writeln!(
        out,
        "mean jewels on the field {:.3} (article 11.454); max {} (article 47); game overs {}",
        h.mean(),
        h.max(),
        h.game_overs
    )?;
    if h.counts[0] > 0 {
        writeln!(
            out,
            "field fully cleared once every {:.0} columns (article 51,577)",
            1.0 / h.p(0)
        )?;
    } else {
        writeln!(
            out,
            "field never fully cleared (article: once every 51,577 columns)"
        )?;
    }
    let fits = Fits::of(&h);
    match fits.gaussian {
        Some(g) => writeln!(
            out,
            "Gaussian fit a·exp(-(x-b)²/(2c²)): a {:.5}, centre b {:.3} (article 10.973), width c {:.3}",
            g.a, g.b, g.c
        )?,
        None => writeln!(out, "Gaussian fit: the histogram does not determine one")?,
    }
    match fits.log_quadratic {
        Some(q) => {
            writeln!(
                out,
                "log10 quadratic fit right of the mode: log10 p = {:.5} {:+.6} x {:+.8} x²",
                q[0], q[1], q[2]
            )?;
            for (x, article) in [(54.0, "-9.78905"), (78.0, "-16.4244")] {
                let y = fits.log10_at(x).unwrap_or(f64::NAN);
                writeln!(
                    out,
                    "  at x = {x}: log10 p = {y:.5} (article {article}), one in {:.4e} columns",
                    10f64.powf(-y)
                )?;
            }
        }
        None => writeln!(
            out,
            "log10 quadratic fit: the histogram does not determine one"
        )?,
    }
    writeln!(
        out,
        "{:>6} {:>12} {:>12} {:>9}",
        "jewels", "columns", "probability", "log10"
    )?;
    for n in 0..=h.max() {
        if h.counts[n] > 0 {
            writeln!(
                out,
                "{n:>6} {:>12} {:>12.6e} {:>9.4}",
                h.counts[n],
                h.p(n),
                h.p(n).log10()
            )?;
        }
    }
    let title = format!(
        "Magic Jewelry bot: log10 P(jewels on field), {} columns, seed {}",
        a.columns, a.seed
    );
    std::fs::write(&a.plot, svg_log_plot(&h, &title))
        .with_context(|| format!("cannot write plot file {}", a.plot.display()))?;
    writeln!(out, "log10 plot written to {}", a.plot.display())?;
    eprintln!("  ({:.1} s)", t.elapsed().as_secs_f64());
    Ok(())
}
