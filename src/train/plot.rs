//! The training folder's picture, `progress.svg`: the loss curves of every
//! generation (training and validation, one epoch per step along a shared
//! axis), the master beam's score by generation, and with the learning
//! loop the gate: each candidate's pieces per gate position (filled when
//! it was kept) and the champion's after each gate, and beside the master
//! beams' scores each candidate's mean lines in the gate's wide games
//! (`--gate-wide`: from the empty well, or from `--gate-wide-from`'s wells,
//! the whole games' lines).
//!
//! Drawn with `plotters` into an SVG string from the files in the folder
//! alone, so it can be redrawn at any time and matches what is on disk.

use std::path::Path;

use plotters::prelude::*;

use super::folder::{generation_dir, plot_path, read_json, FitRecord};
use super::{GateRecord, Master, TrainError};

/// One generation's curves, score and gate, as far as they exist.
struct Drawn {
    epochs: Vec<super::Epoch>,
    score: Option<u16>,
    gate: Option<GateRecord>,
}

fn read(dir: &Path) -> Result<Vec<Drawn>, TrainError> {
    let mut out = Vec::new();
    for g in 0.. {
        let gen = generation_dir(dir, g);
        if !gen.is_dir() {
            break;
        }
        let fit: Option<FitRecord> = read_json(&gen.join("fit.json"))?;
        let master: Option<Master> = read_json(&gen.join("master.json"))?;
        out.push(Drawn {
            epochs: fit.map(|f| f.epochs).unwrap_or_default(),
            score: master.map(|m| m.score),
            gate: read_json(&gen.join("gate.json"))?,
        });
    }
    Ok(out)
}

/// The picture of the folder `dir`: SVG text, and the same picture as
/// PNG written to `png` (under a temporary name, then renamed).
pub(super) fn draw(dir: &Path, png: &Path) -> Result<String, TrainError> {
    let drawn = read(dir)?;
    crate::plot::fonts();
    let cannot = |path: &Path| {
        let path = path.to_path_buf();
        move |why: String| TrainError::Config {
            path: path.clone(),
            why: format!("cannot draw: {why}"),
        }
    };
    let size = size(&drawn);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw_into(&root, &drawn).map_err(cannot(&plot_path(dir)))?;
    }
    let tmp = png.with_extension("tmp.png");
    {
        let root = BitMapBackend::new(&tmp, size).into_drawing_area();
        draw_into(&root, &drawn).map_err(cannot(png))?;
    }
    std::fs::rename(&tmp, png).map_err(|e| cannot(png)(e.to_string()))?;
    Ok(svg)
}

/// The picture's size: wider with the gate's panel.
fn size(drawn: &[Drawn]) -> (u32, u32) {
    match drawn.iter().any(|d| d.gate.is_some()) {
        true => (1500, 450),
        false => (1100, 450),
    }
}

const TRAIN: RGBColor = RGBColor(70, 130, 180);
const VALIDATION: RGBColor = RGBColor(220, 90, 40);
const SCORE: RGBColor = RGBColor(40, 140, 70);

fn draw_into<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    drawn: &[Drawn],
) -> Result<(), String> {
    let gated = drawn.iter().any(|d| d.gate.is_some());
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (left, right) = root.split_horizontally(640);
    let (right, gate) = if gated {
        let (r, g) = right.split_horizontally(430);
        (r, Some(g))
    } else {
        (right.clone(), None)
    };

    // Loss curves: x is the epoch counted over all generations.
    let mut train = Vec::new();
    let mut validation = Vec::new();
    let mut starts = Vec::new();
    let mut x = 0.0f64;
    for d in drawn {
        starts.push(x);
        for e in &d.epochs {
            if e.epoch > 0 {
                train.push((x + f64::from(e.epoch), e.train_loss));
            }
            validation.push((x + f64::from(e.epoch), e.validation_loss));
        }
        x += d.epochs.last().map_or(0.0, |e| f64::from(e.epoch)) + 1.0;
    }
    let losses = train.iter().chain(&validation).map(|p| p.1);
    let finite: Vec<f64> = losses.filter(|v| v.is_finite() && *v > 0.0).collect();
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo * 0.9, hi * 1.1)
    } else {
        (0.01, 10.0)
    };
    let mut chart = ChartBuilder::on(&left)
        .caption(
            "Loss by epoch (generations left to right)",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..x.max(1.0), (lo..hi).log_scale())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("mean squared error")
        .x_label_formatter(&|x| crate::plot::tick(x.round()))
        .y_label_formatter(&|y| crate::plot::tick(*y))
        .draw()
        .map_err(|e| e.to_string())?;
    for &s in starts.iter().skip(1) {
        chart
            .draw_series(LineSeries::new([(s, lo), (s, hi)], BLACK.mix(0.2)))
            .map_err(|e| e.to_string())?;
    }
    // One polyline per generation, so the curves break between them.
    let mut first = true;
    for (g, d) in drawn.iter().enumerate() {
        let base = starts[g];
        let t: Vec<(f64, f64)> = d
            .epochs
            .iter()
            .filter(|e| e.epoch > 0 && e.train_loss.is_finite())
            .map(|e| (base + f64::from(e.epoch), e.train_loss))
            .collect();
        let v: Vec<(f64, f64)> = d
            .epochs
            .iter()
            .filter(|e| e.validation_loss.is_finite())
            .map(|e| (base + f64::from(e.epoch), e.validation_loss))
            .collect();
        let ts = chart
            .draw_series(LineSeries::new(t, TRAIN.stroke_width(2)))
            .map_err(|e| e.to_string())?;
        if first {
            ts.label("training")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], TRAIN.stroke_width(2)));
        }
        let vs = chart
            .draw_series(LineSeries::new(v, VALIDATION.stroke_width(2)))
            .map_err(|e| e.to_string())?;
        if first {
            vs.label("validation").legend(|(x, y)| {
                PathElement::new([(x, y), (x + 20, y)], VALIDATION.stroke_width(2))
            });
        }
        first = first && d.epochs.is_empty();
    }
    crate::plot::legend(&mut chart, SeriesLabelPosition::UpperRight)?;

    // Scores: generation g's master beam plays with the net of g - 1
    // (generation 0: the heuristic).
    let scores: Vec<(f64, f64)> = drawn
        .iter()
        .enumerate()
        .filter_map(|(g, d)| d.score.map(|s| (g as f64, f64::from(s))))
        .collect();
    // The gate's wide games: each candidate's mean lines.
    let wide: Vec<(f64, f64, bool)> = drawn
        .iter()
        .enumerate()
        .filter_map(|(g, d)| {
            let r = d.gate.as_ref()?;
            let w = r.wide.as_ref()?;
            let mean = w.lines().0 as f64 / w.candidate.len().max(1) as f64;
            Some((g as f64, mean, r.kept))
        })
        .collect();
    let top = scores
        .iter()
        .map(|p| p.1)
        .chain(wide.iter().map(|p| p.1))
        .fold(1.0, f64::max)
        * 1.15;
    let x_desc = match gated {
        true => "generation (played by the champion)",
        false => "generation (0: heuristic)",
    };
    let axes = ("Master beam score by generation", x_desc, "lines");
    let mut chart = by_generation(&right, axes, drawn.len(), top)?;
    chart
        .draw_series(LineSeries::new(scores.clone(), SCORE.stroke_width(2)))
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(
            scores
                .iter()
                .map(|&(g, s)| Circle::new((g, s), 4, SCORE.filled())),
        )
        .map_err(|e| e.to_string())?;
    if !wide.is_empty() {
        chart
            .draw_series(wide.iter().map(|&(g, lines, kept)| {
                let marker: DynElement<'static, DB, (f64, f64)> = match kept {
                    true => TriangleMarker::new((g, lines), 6, CANDIDATE.filled()).into_dyn(),
                    false => Cross::new((g, lines), 5, CANDIDATE.stroke_width(2)).into_dyn(),
                };
                marker
            }))
            .map_err(|e| e.to_string())?
            .label("candidate's games at the gate (triangle: kept)")
            .legend(|(x, y)| TriangleMarker::new((x + 10, y), 6, CANDIDATE.filled()));
        crate::plot::legend(&mut chart, SeriesLabelPosition::LowerRight)?;
    }
    if let Some(area) = gate {
        draw_gate(&area, drawn)?;
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

const CANDIDATE: RGBColor = RGBColor(120, 80, 170);
const CHAMPION: RGBColor = RGBColor(200, 150, 20);

/// The gate by generation: each candidate's mean pieces per position
/// (filled: kept) and the champion's after the gate.
fn draw_gate<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    drawn: &[Drawn],
) -> Result<(), String> {
    let gates: Vec<(f64, &GateRecord)> = drawn
        .iter()
        .enumerate()
        .filter_map(|(g, d)| d.gate.as_ref().map(|r| (g as f64, r)))
        .collect();
    // (generation, pieces, the game of the gate's positions)
    let champion: Vec<(f64, f64, Option<&str>)> = gates
        .iter()
        .map(|&(g, r)| {
            let best = if r.kept {
                &r.candidate
            } else {
                &r.champion_figures
            };
            (g, best.pieces_mean, r.steady.as_deref())
        })
        .collect();
    let candidates: Vec<(f64, f64, bool)> = gates
        .iter()
        .map(|&(g, r)| (g, r.candidate.pieces_mean, r.kept))
        .collect();
    let values = champion
        .iter()
        .map(|p| p.1)
        .chain(candidates.iter().map(|p| p.1));
    let top = values.fold(1.0, f64::max) * 1.15;
    // Under `--gate-rotate` the gates' positions differ by game, so the
    // champion's line is broken where the game changes, each gate marked.
    let rotated = champion.iter().any(|c| c.2.is_some());
    let caption = match rotated {
        true => "Gate: pieces per position (on each gate's game)",
        false => "Gate: pieces per position",
    };
    let mut chart = by_generation(area, (caption, "generation", "pieces"), drawn.len(), top)?;
    let runs = champion.chunk_by(|a, b| a.2 == b.2);
    for (i, run) in runs.enumerate() {
        let line = run.iter().map(|&(g, p, _)| (g, p));
        let drawn = chart
            .draw_series(LineSeries::new(line, CHAMPION.stroke_width(2)))
            .map_err(|e| e.to_string())?;
        if i == 0 {
            drawn
                .label("champion")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], CHAMPION.stroke_width(2)));
        }
    }
    if rotated {
        chart
            .draw_series(
                champion
                    .iter()
                    .map(|&(g, p, _)| Cross::new((g, p), 4, CHAMPION.stroke_width(2))),
            )
            .map_err(|e| e.to_string())?;
    }
    chart
        .draw_series(candidates.iter().map(|&(g, p, kept)| {
            let style = if kept {
                CANDIDATE.filled()
            } else {
                CANDIDATE.stroke_width(2)
            };
            Circle::new((g, p), 5, style)
        }))
        .map_err(|e| e.to_string())?
        .label("candidate (filled: kept)")
        .legend(|(x, y)| Circle::new((x + 10, y), 5, CANDIDATE.filled()));
    crate::plot::legend(&mut chart, SeriesLabelPosition::LowerRight)?;
    Ok(())
}

/// A chart with one column per generation (`generations` of them) and
/// values from 0 to `top`: its (caption, x label, y label), axes drawn.
fn by_generation<'a, DB: DrawingBackend + 'a>(
    area: &'a DrawingArea<DB, plotters::coord::Shift>,
    (caption, x_desc, y_desc): (&str, &str, &str),
    generations: usize,
    top: f64,
) -> Result<Chart<'a, DB>, String> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(50)
        .build_cartesian_2d(-0.5f64..(generations.max(1) as f64 - 0.5), 0f64..top)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_labels(generations.clamp(2, 12))
        .x_label_formatter(&|x| crate::plot::tick(x.round()))
        .y_label_formatter(&|y| crate::plot::tick(*y))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(chart)
}

/// A chart of [`by_generation`].
type Chart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;
