//! Pictures: a run folder's figures by depth, and the wells of a game.
//!
//! Drawn with `plotters`, once per backend from the same code: SVG (text
//! as text, any viewer's font) and PNG (the bitmap backend). The PNG's
//! letters come from a font built into the binary (`data/fonts/`, DejaVu
//! Sans cut to printable ASCII, 10 kB) through plotters' `ab_glyph`
//! renderer, so a picture looks the same on a machine without fonts and
//! nothing depends on fontconfig; [`fonts`] registers it and every drawing
//! (the trainer's too) calls it first.
//!
//! A run's picture ([`draw_run`]) reads only what the run folder already
//! holds (the manifest and `log.jsonl`): the best score kept at each depth
//! and the best so far, the last depth's scores (its histogram), and each
//! depth's seconds and peak memory. A game's picture ([`draw_wells`]) is a
//! strip of wells, one column per well, cells as squares.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::run::DepthStats;
use crate::well::Board;

/// The font the pictures' text is set in.
static FONT: &[u8] = include_bytes!("../data/fonts/DejaVuSans-subset.ttf");

/// Registers the built-in font (`FONT`) as plotters' "sans-serif" (once per process).
pub fn fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is built in and checked by the tests: it parses.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// A tick label: the value to at most 6 significant digits, without the
/// float noise of its sum (0.1 + 0.2 is "0.3", not "0.30000000000000004"),
/// or in scientific notation when very large or very small.
pub fn tick(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let magnitude = v.abs().log10().floor() as i32;
    if !(-4..7).contains(&magnitude) {
        return format!("{v:.2e}");
    }
    let decimals = (5 - magnitude).clamp(0, 10) as usize;
    let text = format!("{v:.decimals$}");
    match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => text,
    }
}

/// Refuses a picture's path that cannot be written (a missing folder, a
/// file where a folder should be) with the system's own words, before the
/// drawing: the backends' errors only print the debug form of it.
fn writable(path: &Path) -> Result<(), PlotError> {
    std::fs::File::create(path)
        .map(drop)
        .map_err(|e| PlotError {
            path: path.display().to_string(),
            why: e.to_string(),
        })
}

/// Why a picture could not be drawn or written.
#[derive(Debug, thiserror::Error)]
#[error("{path}: cannot draw: {why}")]
pub struct PlotError {
    /// The file.
    pub path: String,
    /// Why.
    pub why: String,
}

const BEST: RGBColor = RGBColor(40, 140, 70);
const KEPT: RGBColor = RGBColor(70, 130, 180);
const TIME: RGBColor = RGBColor(220, 90, 40);
const MEMORY: RGBColor = RGBColor(120, 80, 160);

/// A run's picture size, in pixels.
pub const RUN_SIZE: (u32, u32) = (1200, 800);

/// Draws a run's figures (`depths`: the log's lines, depth 1 first) to
/// `svg` and `png`.
pub fn draw_run(
    depths: &[DepthStats],
    title: &str,
    svg: &Path,
    png: &Path,
) -> Result<(), PlotError> {
    fonts();
    let err = |p: &Path| {
        let path = p.display().to_string();
        move |why: String| PlotError {
            path: path.clone(),
            why,
        }
    };
    writable(svg)?;
    writable(png)?;
    let root = SVGBackend::new(svg, RUN_SIZE).into_drawing_area();
    run_into(&root, depths, title).map_err(err(svg))?;
    root.present().map_err(|e| err(svg)(e.to_string()))?;
    drop(root);
    let root = BitMapBackend::new(png, RUN_SIZE).into_drawing_area();
    run_into(&root, depths, title).map_err(err(png))?;
    root.present().map_err(|e| err(png)(e.to_string()))?;
    Ok(())
}

/// Any backend's error as text.
/// A drawing error in words.
pub fn text<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Draws a chart's legend at `position`, in the frame every picture uses.
pub fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(text)
}

fn run_into<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    depths: &[DepthStats],
    title: &str,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(text)?;
    let root = root.titled(title, ("sans-serif", 22)).map_err(text)?;
    let areas = root.split_evenly((2, 2));
    // The depths logged: 1 to the last, or a run from a game's from the
    // piece after its start.
    let first = depths.first().map_or(0, |s| s.depth - 1) as f64;
    let last = depths.last().map_or(0, |s| s.depth).max(1) as f64;

    // Best score kept at each depth, and the best so far.
    let kept: Vec<(f64, f64)> = depths
        .iter()
        .map(|s| (f64::from(s.depth), f64::from(s.best_score)))
        .collect();
    let mut so_far = Vec::with_capacity(kept.len());
    let mut top = 0.0f64;
    for &(d, s) in &kept {
        top = top.max(s);
        so_far.push((d, top));
    }
    let mut chart = ChartBuilder::on(&areas[0])
        .caption("Best score by depth", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(50)
        .build_cartesian_2d(first..last, 0f64..(top * 1.15).max(1.0))
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc("depth (pieces)")
        .y_desc("lines")
        .y_labels((top as usize + 2).clamp(2, 11))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()
        .map_err(text)?;
    chart
        .draw_series(LineSeries::new(kept, KEPT.stroke_width(1)))
        .map_err(text)?
        .label("best kept at the depth")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], KEPT.stroke_width(2)));
    chart
        .draw_series(LineSeries::new(so_far, BEST.stroke_width(2)))
        .map_err(text)?
        .label("best so far")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BEST.stroke_width(2)));
    legend(&mut chart, SeriesLabelPosition::LowerRight)?;

    // The last depth's scores.
    let hist: Vec<(u16, u64)> = depths
        .last()
        .map(|s| s.histogram.clone())
        .unwrap_or_default();
    let lo = hist.first().map_or(0, |h| h.0);
    let hi = hist.last().map_or(1, |h| h.0);
    let most = hist.iter().map(|h| h.1).max().unwrap_or(1);
    let mut chart = ChartBuilder::on(&areas[1])
        .caption(
            format!(
                "Scores kept at depth {}",
                depths.last().map_or(0, |s| s.depth)
            ),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (f64::from(lo) - 0.5)..(f64::from(hi) + 0.5),
            0f64..(most as f64 * 1.1),
        )
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc("score (lines)")
        .y_desc("wells")
        .x_labels(((hi - lo) as usize + 1).clamp(2, 12))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()
        .map_err(text)?;
    chart
        .draw_series(hist.iter().map(|&(s, n)| {
            let s = f64::from(s);
            Rectangle::new([(s - 0.4, 0.0), (s + 0.4, n as f64)], KEPT.filled())
        }))
        .map_err(text)?;

    // Seconds per depth.
    let seconds: Vec<(f64, f64)> = depth_seconds(depths);
    let slowest = seconds.iter().map(|p| p.1).fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(&areas[2])
        .caption("Time by depth", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(60)
        .build_cartesian_2d(first..last, 0f64..(slowest * 1.15).max(1e-3))
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc("depth (pieces)")
        .y_desc("seconds")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| tick(*y))
        .draw()
        .map_err(text)?;
    chart
        .draw_series(LineSeries::new(seconds, TIME.stroke_width(2)))
        .map_err(text)?;

    // Peak memory.
    let memory: Vec<(f64, f64)> = depths
        .iter()
        .filter_map(|s| s.peak_rss.map(|b| (f64::from(s.depth), b as f64 / 1e6)))
        .collect();
    let most = memory.iter().map(|p| p.1).fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(&areas[3])
        .caption("Peak memory by depth", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(60)
        .build_cartesian_2d(first..last, 0f64..(most * 1.15).max(1.0))
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc("depth (pieces)")
        .y_desc("MB (peak resident memory)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()
        .map_err(text)?;
    chart
        .draw_series(LineSeries::new(memory, MEMORY.stroke_width(2)))
        .map_err(text)?;
    Ok(())
}

/// Each depth's seconds, by depth.
fn depth_seconds(depths: &[DepthStats]) -> Vec<(f64, f64)> {
    let seconds = crate::run::depth_seconds(depths);
    depths
        .iter()
        .zip(seconds)
        .map(|(s, step)| (f64::from(s.depth), step))
        .collect()
}

/// Pixels per cell in a picture of wells.
const CELL: u32 = 12;

/// The size of a strip of `n` wells.
pub fn wells_size(n: usize) -> (u32, u32) {
    let w = 10 * CELL + 2 * 6;
    (w * n.max(1) as u32 + 8, 20 * CELL + 2 * 6 + 30)
}

/// Draws `wells` side by side, each under its label, to `path`: SVG when
/// the name ends in `.svg`, otherwise PNG.
pub fn draw_wells(wells: &[(String, Board)], path: &Path) -> Result<(), PlotError> {
    fonts();
    let size = wells_size(wells.len());
    let err = |why: String| PlotError {
        path: path.display().to_string(),
        why,
    };
    let svg = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    writable(path)?;
    if svg {
        let root = SVGBackend::new(path, size).into_drawing_area();
        wells_into(&root, wells).map_err(err)?;
        root.present().map_err(|e| err(e.to_string()))
    } else {
        let root = BitMapBackend::new(path, size).into_drawing_area();
        wells_into(&root, wells).map_err(err)?;
        root.present().map_err(|e| err(e.to_string()))
    }
}

fn wells_into<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    wells: &[(String, Board)],
) -> Result<(), String> {
    root.fill(&WHITE).map_err(text)?;
    let filled = RGBColor(60, 60, 70);
    let empty = RGBColor(235, 235, 240);
    let c = CELL as i32;
    for (i, (label, board)) in wells.iter().enumerate() {
        let x0 = 4 + i as i32 * (10 * c + 12) + 6;
        let y0 = 30;
        root.draw(&Text::new(
            label.clone(),
            (x0, 8),
            ("sans-serif", 12).into_font().color(&BLACK),
        ))
        .map_err(text)?;
        root.draw(&Rectangle::new(
            [(x0 - 2, y0 - 2), (x0 + 10 * c + 1, y0 + 20 * c + 1)],
            BLACK.stroke_width(1),
        ))
        .map_err(text)?;
        for (r, row) in board.iter().enumerate() {
            for col in 0..10 {
                // Bit 0 is the left column, as in the game's well numbers.
                let on = row >> col & 1 == 1;
                let (x, y) = (x0 + col * c, y0 + r as i32 * c);
                root.draw(&Rectangle::new(
                    [(x, y), (x + c - 1, y + c - 1)],
                    if on { filled.filled() } else { empty.filled() },
                ))
                .map_err(text)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::tick;

    #[test]
    fn tick_labels_have_no_float_noise() {
        assert_eq!(tick(0.1 + 0.2), "0.3");
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(1500.0), "1500");
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick(-0.125), "-0.125");
        assert_eq!(tick(1e-7), "1.00e-7");
    }
}
