//! The tuning folder's picture, `fitness.svg` and `fitness.png`: every
//! evaluation's fitness (mean lines over the start wells, or pieces
//! survived from a suite's positions, with a bar of
//! one standard deviation) by evaluation, and the best so far.
//!
//! Drawn from `evaluations.jsonl` alone, so it matches what is on disk.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::plot::text;

use super::{evaluations, settings_path, Evaluation, TuneError, TuneSettings};

const POINT: RGBColor = RGBColor(70, 130, 180);
const BEST: RGBColor = RGBColor(40, 140, 70);
const START: RGBColor = RGBColor(220, 90, 40);
const SIZE: (u32, u32) = (1000, 600);

/// Redraws the pictures of the tuning folder `dir` (`fitness.svg` and
/// `fitness.png`) from its files.
pub fn draw(dir: &Path) -> Result<(), TuneError> {
    let mut evals = evaluations(dir)?;
    evals.sort_by_key(|e| e.index);
    let unit = match crate::folder::json::read::<TuneSettings>(&settings_path(dir))? {
        Some(s) => s.fitness.unit(),
        None => "lines",
    };
    crate::plot::fonts();
    let fail = |path: &Path| {
        let path = path.display().to_string();
        move |why: String| TuneError::Config(format!("{path}: cannot draw: {why}"))
    };
    let svg = dir.join("fitness.svg");
    let root = SVGBackend::new(&svg, SIZE).into_drawing_area();
    draw_into(&root, &evals, unit).map_err(fail(&svg))?;
    root.present().map_err(|e| fail(&svg)(e.to_string()))?;
    drop(root);
    let png = dir.join("fitness.png");
    let root = BitMapBackend::new(&png, SIZE).into_drawing_area();
    draw_into(&root, &evals, unit).map_err(fail(&png))?;
    root.present().map_err(|e| fail(&png)(e.to_string()))?;
    Ok(())
}

fn draw_into<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    evals: &[Evaluation],
    unit: &str,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(text)?;
    let top = evals
        .iter()
        .map(|e| e.measured.mean + e.measured.sd)
        .fold(1.0f64, f64::max);
    let last = evals.len().max(2) as f64;
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!("hatetris tune: fitness (mean {unit} from the starts) by evaluation"),
            ("sans-serif", 20),
        )
        .margin(14)
        .x_label_area_size(36)
        .y_label_area_size(50)
        .build_cartesian_2d(-0.5f64..last, 0f64..top * 1.1)
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc("evaluation")
        .y_desc(format!(
            "mean {unit} (bar: one sd over the starts, each way)"
        ))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()
        .map_err(text)?;
    chart
        .draw_series(evals.iter().map(|e| {
            let x = e.index as f64;
            let m = &e.measured;
            PathElement::new(
                [(x, (m.mean - m.sd).max(0.0)), (x, m.mean + m.sd)],
                POINT.mix(0.35).stroke_width(1),
            )
        }))
        .map_err(text)?;
    chart
        .draw_series(
            evals
                .iter()
                .map(|e| Circle::new((e.index as f64, e.measured.mean), 3, POINT.filled())),
        )
        .map_err(text)?
        .label("an evaluation")
        .legend(|(x, y)| Circle::new((x + 10, y), 3, POINT.filled()));
    let mut best = f64::NEG_INFINITY;
    let so_far: Vec<(f64, f64)> = evals
        .iter()
        .map(|e| {
            best = best.max(e.measured.mean);
            (e.index as f64, best)
        })
        .collect();
    chart
        .draw_series(LineSeries::new(so_far, BEST.stroke_width(2)))
        .map_err(text)?
        .label("best so far")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BEST.stroke_width(2)));
    if let Some(start) = evals.iter().find(|e| e.index == 0) {
        let y = start.measured.mean;
        chart
            .draw_series(LineSeries::new(
                [(-0.5, y), (last, y)],
                START.stroke_width(1),
            ))
            .map_err(text)?
            .label("the start weights")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], START.stroke_width(1)));
    }
    crate::plot::legend(&mut chart, SeriesLabelPosition::LowerRight)?;
    Ok(())
}
