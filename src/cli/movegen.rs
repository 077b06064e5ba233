//! The move generator's commands: `movegen children` (what the generator
//! makes of each well, checked against the golden files) and `bench
//! movegen` (its speed, and the piece-choice signature).

use std::io::Write;
use std::path::Path;

use anyhow::Result;

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

/// `hatetris bench movegen`: the move generator timed over a file of wells.
pub(crate) fn bench_movegen(
    path: &Path,
    runs: usize,
    json: bool,
    transitions: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let wells = bench::read_wells(path)?;
    let b = bench::bench_movegen(&wells, runs);
    outln!(
        out,
        "wells: {} ({} runs, median, one thread)",
        b.wells,
        runs
    )?;
    outln!(
        out,
        "piece choice:                 {:8.3} us/well  (signature {})",
        b.choice_us,
        b.choice_signature
    )?;
    outln!(
        out,
        "choice + chosen children:     {:8.3} us/well  ({} children)",
        b.chosen_children_us,
        b.chosen_children
    )?;
    outln!(
        out,
        "children of all 7 pieces:     {:8.3} us/well  ({} children)",
        b.all7_children_us,
        b.all7_children
    )?;
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
        }
        let four = |us: f64| (us * 1e4).round() / 1e4;
        let line = Line {
            choice_us: four(b.choice_us),
            chosen_children_us: four(b.chosen_children_us),
            all7_children_us: four(b.all7_children_us),
        };
        outln!(out, "{}", serde_json::to_string(&line)?)?;
    }
    Ok(())
}
