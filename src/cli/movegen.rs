//! The move generator's commands: `movegen children` (what the generator
//! makes of each well, checked against the golden files) and `bench
//! movegen` (its speed, and the piece-choice signature).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use hatetris::bench;
use hatetris::enemy::{Enemy, EnemyKind};
use hatetris::movegen::MoveGen;
use hatetris::well::Board;
use hatetris::Piece;

use super::input::read_wells;
use super::outln;

/// `hatetris movegen children`: every child of every piece of each well,
/// one JSON line per well (the golden files' format).
pub(crate) fn movegen_children(wells: Option<&Path>, out: &mut dyn Write) -> Result<()> {
    // `--wells -` is standard input too.
    let wells = read_wells(wells)?;
    for well in &wells {
        let gen = MoveGen::new(well);
        // One field per piece, in the golden files' order (S Z O I L J T);
        // each child is `[[20 rows], lines]`.
        let children = |piece: Piece| -> Vec<(Board, u8)> {
            gen.outcomes(piece)
                .iter()
                .map(|o| (o.board, o.lines))
                .collect()
        };
        #[derive(serde::Serialize)]
        #[allow(non_snake_case)]
        struct Children {
            S: Vec<(Board, u8)>,
            Z: Vec<(Board, u8)>,
            O: Vec<(Board, u8)>,
            I: Vec<(Board, u8)>,
            L: Vec<(Board, u8)>,
            J: Vec<(Board, u8)>,
            T: Vec<(Board, u8)>,
        }
        #[derive(serde::Serialize)]
        struct Line {
            well: Board,
            children: Children,
            hatetris_piece: String,
        }
        let line = Line {
            well: well.to_board(),
            children: Children {
                S: children(Piece::S),
                Z: children(Piece::Z),
                O: children(Piece::O),
                I: children(Piece::I),
                L: children(Piece::L),
                J: children(Piece::J),
                T: children(Piece::T),
            },
            hatetris_piece: Enemy::new(EnemyKind::Hatetris).next_piece(well).to_string(),
        };
        outln!(out, "{}", serde_json::to_string(&line)?)?;
    }
    Ok(())
}

/// A timed figure with its spread: "0.640 us/well (0.62 to 0.71)".
pub(crate) fn with_spread(s: &bench::Spread, unit: &str) -> String {
    format!("{:8.3} {unit}  ({:.3} to {:.3})", s.median, s.min, s.max)
}

/// A warning for each figure not to be trusted ([`bench::doubt`]).
pub(crate) fn doubts<'a>(
    figures: impl IntoIterator<Item = (&'a str, bench::Spread, f64)>,
) -> Vec<String> {
    figures
        .into_iter()
        .filter_map(|(name, spread, run_s)| {
            bench::doubt(&spread, run_s).map(|why| format!("warning: {name}: {why}"))
        })
        .collect()
}

/// Writes `warnings` to standard error once standard output is flushed
/// (so a failing standard output is the one error line).
pub(crate) fn warn_after(out: &mut dyn Write, warnings: &[String]) -> Result<()> {
    out.flush().context(super::STDOUT)?;
    for w in warnings {
        super::note!("{w}");
    }
    Ok(())
}

/// `hatetris bench movegen`: the move generator timed over a list of wells
/// (the built-in ones unless `path`).
pub(crate) fn bench_movegen(
    path: Option<&Path>,
    runs: usize,
    json: bool,
    transitions: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let wells = bench::wells(path)?;
    let b = bench::bench_movegen(&wells, runs);
    let [choice, chosen, all7] = b.spreads;
    outln!(
        out,
        "wells: {} ({} runs: median, then fastest to slowest; one thread)",
        b.wells,
        runs
    )?;
    outln!(
        out,
        "piece choice:                 {}  (signature {})",
        with_spread(&choice, "us/well"),
        b.choice_signature
    )?;
    outln!(
        out,
        "choice + chosen children:     {}  ({} children)",
        with_spread(&chosen, "us/well"),
        b.chosen_children
    )?;
    outln!(
        out,
        "children of all 7 pieces:     {}  ({} children)",
        with_spread(&all7, "us/well"),
        b.all7_children
    )?;
    let [choice_s, chosen_s, all7_s] = b.run_seconds;
    let warnings = doubts([
        ("piece choice", choice, choice_s),
        ("choice + chosen children", chosen, chosen_s),
        ("children of all 7 pieces", all7, all7_s),
    ]);
    if transitions {
        let t = bench::bench_transitions(&wells, runs);
        outln!(
            out,
            "choice, direct transitions:   {:8.3} us/well\nchoice, ahash-map cache:      {:8.3} us/well  ({} distinct transitions; ratio {:.2})",
            t.direct_us,
            t.cached_us,
            t.distinct,
            t.cached_us / t.direct_us
        )?;
    }
    if json {
        /// The JSON line's keys; the figures to 4 decimals.
        #[derive(serde::Serialize)]
        struct Line {
            choice_us: f64,
            chosen_children_us: f64,
            all7_children_us: f64,
            spreads: [bench::Spread; 3],
        }
        let four = |us: f64| (us * 1e4).round() / 1e4;
        let round = |s: bench::Spread| bench::Spread {
            min: four(s.min),
            median: four(s.median),
            max: four(s.max),
        };
        let line = Line {
            choice_us: four(b.choice_us),
            chosen_children_us: four(b.chosen_children_us),
            all7_children_us: four(b.all7_children_us),
            spreads: b.spreads.map(round),
        };
        outln!(out, "{}", serde_json::to_string(&line)?)?;
    }
    warn_after(out, &warnings)
}
