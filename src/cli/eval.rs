//! The evaluation commands: `eval` (one well's cost, term by term or the
//! net's features) and `bench eval` (the evaluators' speed). The files are
//! read by [`hatetris::launch`], as a search's are.

use std::io::Write;

use anyhow::{Context, Result};

use hatetris::bench::{self, bench_evaluator, Spread};
use hatetris::evaluate::{Evaluator, Lookahead};
use hatetris::heuristic::{self, Knewjade, Weights};
use hatetris::launch::{self, load_net, Input};
use hatetris::nnue::eval::Place;
use hatetris::nnue::{NetEvaluator, Simd};
use hatetris::Well;

use super::args::{BenchEvalArgs, EvalArgs};
use super::input::{at_file, file_hint, read_arg};
use super::movegen::{doubts, warn_after, with_spread};
use super::{outln, STDOUT};

/// `hatetris eval`.
pub fn eval(a: EvalArgs, out: &mut dyn Write) -> Result<()> {
    let (quiescent, well_arg) = a.quiescent_and_well();
    let text = read_arg(&well_arg, Input::Well)?;
    let well: Well = text
        .parse()
        .map_err(|e| anyhow::anyhow!("{e}{}", file_hint(&well_arg)))
        .context("reading the well")?;
    if let Some(path) = &a.net {
        return eval_net(&load_net(path)?, &well, quiescent, &a, out);
    }
    let weights = launch::weights_or_default(a.weights.as_deref())?;
    let eval = Knewjade::new(weights, quiescent);
    let b = eval.breakdown(&well, a.score);
    if a.json {
        outln!(out, "{}", serde_json::to_string(&b)?)?;
    } else {
        write!(out, "{well}").context(STDOUT)?;
        write!(out, "{}", heuristic::render_breakdown(&b)).context(STDOUT)?;
    }
    Ok(())
}

/// `eval --net`: the net's value and cost, and with `--explain` the
/// features that move it most.
fn eval_net(
    net: &NetEvaluator,
    well: &Well,
    quiescent: Option<u8>,
    a: &EvalArgs,
    out: &mut dyn Write,
) -> Result<()> {
    const SHOWN: usize = 12;
    let value = net.value(well);
    let score = f64::from(a.score);
    let cost = net.cost(well, score);
    let quiescent =
        quiescent.map(|depth| (depth, Lookahead::new(net.clone(), depth).cost(well, score)));
    let explained = if a.explain {
        net.explain(well)
    } else {
        Vec::new()
    };
    if a.json {
        let mut j = serde_json::json!({
            "convention": "value: higher is better; cost = -value - line_weight * score, lower is better",
            "net": format!("{:08x}", net.net().checksum()),
            "well": well.to_numbers(),
            "score": a.score,
            "value": value,
            "line_weight": net.net().line_weight(),
            "cost": cost,
        });
        if let Some((depth, c)) = quiescent {
            j["quiescent"] = serde_json::json!({"depth": depth, "cost": c});
        }
        if a.explain {
            j["contributions"] = serde_json::to_value(&explained)?;
        }
        outln!(out, "{j}")?;
        return Ok(());
    }
    write!(out, "{well}").context(STDOUT)?;
    outln!(
        out,
        "net {:08x}: value {value:.4} (higher is better), line weight {:.4}",
        net.net().checksum(),
        net.net().line_weight()
    )?;
    outln!(
        out,
        "cost at score {}: {cost:.4} (lower is better)",
        a.score
    )?;
    if let Some((depth, c)) = quiescent {
        outln!(out, "with the quiescent lookahead (depth {depth}): {c:.4}")?;
    }
    if a.explain {
        outln!(
            out,
            "the {SHOWN} features that move the value most (value minus the value without the feature):"
        )?;
        for c in explained.iter().take(SHOWN) {
            let (place, drawing) = match c.position {
                Place::Row(r) => (
                    format!("row {:>2}", r + 4),
                    (0..10)
                        .map(|x| if c.pattern >> x & 1 == 1 { '#' } else { '.' })
                        .collect::<String>(),
                ),
                Place::Window { top, left } => (
                    format!(
                        "window rows {}-{} columns {}-{}",
                        top + 4,
                        top + 7,
                        left,
                        left + 2
                    ),
                    (0..4)
                        .map(|k| {
                            (0..3)
                                .map(|x| {
                                    if c.pattern >> (3 * k + x) & 1 == 1 {
                                        '#'
                                    } else {
                                        '.'
                                    }
                                })
                                .collect::<String>()
                        })
                        .collect::<Vec<_>>()
                        .join("/"),
                ),
            };
            outln!(out, "  {:+9.4}  {place:<28} {drawing}", c.value)?;
        }
    }
    Ok(())
}

/// `hatetris bench eval`.
pub fn bench_eval(a: BenchEvalArgs, out: &mut dyn Write) -> Result<()> {
    let wells = bench::wells(a.wells.as_deref().map(at_file).as_deref())?;
    let depth = a
        .quiescent
        .depth
        .unwrap_or(hatetris::evaluate::DEFAULT_QUIESCENT_DEPTH);
    if let Some(path) = &a.net {
        return bench_eval_net(&wells, &load_net(path)?, depth, a.json, out);
    }
    let plain = heuristic::bench_eval(&wells, Weights::dnf86(), None);
    let quiescent = heuristic::bench_eval(&wells, Weights::dnf86(), Some(depth));
    let given = match &a.weights {
        Some(path) => {
            let w = launch::read_weights(path)?;
            Some((
                heuristic::bench_eval(&wells, w, None),
                heuristic::bench_eval(&wells, w, Some(depth)),
            ))
        }
        None => None,
    };
    outln!(
        out,
        "children: {} (of all 7 pieces of {} wells), one thread, 5 runs: median, then fastest to slowest",
        plain.children,
        wells.len()
    )?;
    let spread = |b: &heuristic::EvalBench| Spread::of(&b.runs_us_per_child);
    let mut rows = vec![
        ("heuristic with erasability:   ".to_string(), spread(&plain)),
        (
            format!("with quiescent lookahead ({depth}):"),
            spread(&quiescent),
        ),
    ];
    if let Some((p, q)) = &given {
        rows.push(("--weights, with erasability:  ".to_string(), spread(p)));
        rows.push((format!("--weights, quiescent ({depth}):    "), spread(q)));
    }
    for (name, s) in &rows {
        outln!(out, "{name} {}", with_spread(s, "us/child"))?;
    }
    let run_s = |s: &Spread| s.median * plain.children as f64 / 1e6;
    let warnings = doubts(
        rows.iter()
            .map(|(n, s)| (n.trim_end_matches([' ', ':']), *s, run_s(s))),
    );
    if a.json {
        let mut v = serde_json::json!({"children": plain.children, "eval_us": plain.us_per_child, "quiescent_us": quiescent.us_per_child, "quiescent_depth": depth});
        if let Some((p, q)) = &given {
            v["weights_eval_us"] = p.us_per_child.into();
            v["weights_quiescent_us"] = q.us_per_child.into();
        }
        outln!(out, "{}", v)?;
    }
    warn_after(out, &warnings)
}

/// `bench eval --net`: the heuristic and the net through the same batch
/// call, one after the other in one run.
fn bench_eval_net(
    wells: &[Well],
    net: &NetEvaluator,
    quiescent: u8,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let mut rows: Vec<(String, hatetris::bench::EvaluatorBench)> = Vec::new();
    let heuristic = Knewjade::new(Weights::dnf86(), None);
    rows.push(("heuristic".into(), bench_evaluator(wells, &heuristic)));
    for simd in [Simd::Avx2, Simd::Scalar] {
        if let Some(e) = net.with_simd(simd) {
            rows.push((format!("net, {}", simd.name()), bench_evaluator(wells, &e)));
        }
    }
    let hq = Knewjade::new(Weights::dnf86(), Some(quiescent));
    rows.push((
        format!("heuristic, lookahead {quiescent}"),
        bench_evaluator(wells, &hq),
    ));
    let nq = Lookahead::new(net.clone(), quiescent);
    rows.push((
        format!("net, {}, lookahead {quiescent}", net.simd().name()),
        bench_evaluator(wells, &nq),
    ));
    outln!(
        out,
        "children: {} (of all 7 pieces of {} wells), one thread, each (well, piece) in one batch call, 5 runs: median, then fastest to slowest",
        rows[0].1.children,
        wells.len()
    )?;
    for (name, b) in &rows {
        let s = Spread::of(&b.runs_us_per_child);
        outln!(out, "{name:<32} {}", with_spread(&s, "us/child"))?;
    }
    let warnings = doubts(rows.iter().map(|(n, b)| {
        let s = Spread::of(&b.runs_us_per_child);
        (n.as_str(), s, s.median * b.children as f64 / 1e6)
    }));
    if json {
        let j: serde_json::Map<String, serde_json::Value> = rows
            .iter()
            .map(|(n, b)| Ok((n.clone(), serde_json::to_value(b)?)))
            .collect::<Result<_>>()?;
        outln!(out, "{}", serde_json::Value::Object(j))?;
    }
    warn_after(out, &warnings)
}
