//! `hatetris bench strength`: the strength suite ([`hatetris::strength`])
//! for one or more evaluators, side by side, each against the first with
//! the paired difference over the starts.

use std::io::Write;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use hatetris::evaluate::Evaluator;
use hatetris::launch::EvaluatorSpec;
use hatetris::strength::{self, Outcome, Suite, Summary};

use super::args::{BenchStrengthArgs, Contender, RankedBy};
use super::outln;
use super::progress::Bar;
use super::search::threads_arg;

/// Wide enough that the evaluators differ (see data/strength/README.md),
/// narrow enough for minutes on 2 cores.
const DEFAULT_WIDTH: usize = 300;

/// How an evaluator is named in tables: its flags.
fn label(r: &RankedBy) -> String {
    let file = match &r.contender {
        Contender::Weights(p) => format!("--weights {}", p.display()),
        Contender::Net(p) => format!("--net {}", p.display()),
    };
    let file = match r.quiescent {
        Some(q) => format!("{file} --quiescent {q}"),
        None => file,
    };
    if r.chain_step_cost == 0.0 {
        file
    } else {
        format!("{file} --chain-step-cost {}", r.chain_step_cost)
    }
}

fn build(r: &RankedBy) -> Result<Box<dyn Evaluator + Send>> {
    let (net, weights) = match &r.contender {
        Contender::Weights(p) => (None, Some(p.clone())),
        Contender::Net(p) => (Some(p.clone()), None),
    };
    Ok(EvaluatorSpec {
        net,
        weights,
        quiescent: r.quiescent,
        chain_step_cost: r.chain_step_cost,
    }
    .build()?)
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// One evaluator's row.
#[derive(serde::Serialize)]
struct Row {
    evaluator: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    weights: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    net: Option<String>,
    quiescent: Option<u8>,
    #[serde(skip_serializing_if = "is_zero")]
    chain_step_cost: f64,
    per_start: Vec<Outcome>,
    summary: Summary,
    /// Mean of (this − baseline) over the starts, and its standard error.
    pieces_difference: f64,
    pieces_difference_se: f64,
    lines_difference: f64,
    lines_difference_se: f64,
}

pub fn bench_strength(a: BenchStrengthArgs, out: &mut dyn Write) -> Result<()> {
    let width = a.width.unwrap_or(DEFAULT_WIDTH);
    if width == 0 {
        bail!("--width must be at least 1");
    }
    if a.cap == Some(0) {
        bail!("--cap must be at least 1");
    }
    let threads = threads_arg(a.threads)?;
    let ranked = &a.evaluators.0;
    let evaluators: Vec<_> = ranked.iter().map(build).collect::<Result<_>>()?;
    let mut suite = Suite::load(&a.suite)?;
    if let Some(cap) = a.cap {
        suite.cap = cap;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the threads")?;
    let mut measured = Vec::new();
    let mut seconds = Vec::new();
    // A bar over the starts (a log gets a line per start instead), so that
    // a long suite shows where it is and a killed one leaves its finished
    // starts in the log.
    let bar = Bar::new(a.json);
    let n = suite.positions.len();
    for (r, e) in ranked.iter().zip(&evaluators) {
        let name = label(r);
        bar.start(
            n as u64,
            "{elapsed_precise} [{bar:30}] {pos}/{len} starts · {msg}",
            name.clone(),
        );
        let t = Instant::now();
        let done = |i: usize, o: &Outcome| {
            bar.inc(1);
            let p = &suite.positions[i];
            let end = if o.died { "died" } else { "reached the cap" };
            bar.log(format!(
                "{name}: {} @{}: {} pieces, {} lines, {end}",
                p.game, p.at, o.pieces, o.lines
            ));
        };
        measured.push(pool.install(|| strength::measure(&suite, &**e, width, &done)));
        seconds.push(t.elapsed().as_secs_f64());
        bar.clear();
        bar.say(format!("{name}: {:.1} s", seconds.last().unwrap()));
    }
    let figure = |m: &[Outcome], f: fn(&Outcome) -> u32| -> Vec<f64> {
        m.iter().map(|o| f64::from(f(o))).collect()
    };
    let blocks = strength::blocks(&suite.positions, a.block);
    let rows: Vec<Row> = ranked
        .iter()
        .zip(&measured)
        .map(|(r, m)| {
            let difference = |f: fn(&Outcome) -> u32| {
                let (ours, base) = (figure(m, f), figure(&measured[0], f));
                strength::paired_difference_in_blocks(&ours, &base, &blocks)
            };
            let (pd, pse) = difference(|o| o.pieces);
            let (ld, lse) = difference(|o| o.lines);
            let (weights, net) = match &r.contender {
                Contender::Weights(p) => (Some(p.display().to_string()), None),
                Contender::Net(p) => (None, Some(p.display().to_string())),
            };
            Row {
                evaluator: label(r),
                weights,
                net,
                quiescent: r.quiescent,
                chain_step_cost: r.chain_step_cost,
                per_start: m.clone(),
                summary: Summary::of(m),
                pieces_difference: pd,
                pieces_difference_se: pse,
                lines_difference: ld,
                lines_difference_se: lse,
            }
        })
        .collect();
    let starts: Vec<serde_json::Value> = suite
        .positions
        .iter()
        .map(|p| serde_json::json!({"game": p.game, "at": p.at, "judging_only": p.judging_only}))
        .collect();
    if a.json {
        let mut value = serde_json::json!({
            "suite": a.suite.display().to_string(),
            "width": width,
            "cap": suite.cap,
            "steady_from": strength::STEADY_FROM,
            "starts": starts,
            "rows": rows,
        });
        // Absent without blocks, so the plain report reads as before.
        if a.block > 0 {
            value["block"] = a.block.into();
        }
        outln!(out, "{}", serde_json::to_string(&value)?)?;
        return Ok(());
    }
    let judging = suite.positions.iter().filter(|p| p.judging_only).count();
    outln!(
        out,
        "{} starts ({judging} judging only), width {width}, cap {} pieces, {threads} threads",
        suite.positions.len(),
        suite.cap
    )?;
    outln!(
        out,
        "{:>8} {:>7} {:>6} {:>11} {:>9} {:>16} {:>16} {:>7}  evaluator",
        "pieces",
        "lines",
        "deaths",
        "deaths/1000",
        "lpp>100",
        "Δpieces",
        "Δlines",
        "seconds"
    )?;
    for (r, s) in rows.iter().zip(&seconds) {
        let m = &r.summary;
        outln!(
            out,
            "{:>8.1} {:>7.1} {:>6} {:>11.2} {:>9} {:>16} {:>16} {:>7.1}  {}",
            m.pieces_mean,
            m.lines_mean,
            m.deaths,
            m.deaths_per_1000,
            m.lines_per_piece_after
                .map_or("-".to_string(), |v| format!("{v:.3}")),
            format!(
                "{:+.1} ± {:.1}",
                r.pieces_difference, r.pieces_difference_se
            ),
            format!("{:+.1} ± {:.1}", r.lines_difference, r.lines_difference_se),
            s,
            r.evaluator
        )?;
    }
    let error = match a.block {
        0 => "its standard error".to_string(),
        b => format!(
            "its standard error with one game's starts within {b} pieces one draw ({} blocks)",
            blocks.iter().max().map_or(0, |b| b + 1)
        ),
    };
    outln!(
        out,
        "(pieces and lines: means per start; Δ: paired difference against the first evaluator, ± {error}; lpp>100: lines per piece after the first {} pieces)",
        strength::STEADY_FROM
    )?;
    outln!(out)?;
    outln!(
        out,
        "per start, pieces/lines for each evaluator in order (* judging only, † died):"
    )?;
    for (i, p) in suite.positions.iter().enumerate() {
        let cells: Vec<String> = measured
            .iter()
            .map(|m| {
                let o = &m[i];
                format!(
                    "{:>4}/{:<4}{}",
                    o.pieces,
                    o.lines,
                    if o.died { "†" } else { " " }
                )
            })
            .collect();
        outln!(
            out,
            "{:>8} @{:<5}{} {}",
            p.game,
            p.at,
            if p.judging_only { "*" } else { " " },
            cells.join(" ")
        )?;
    }
    Ok(())
}
