//! `hatetris plot` and `replay render`: a run's pictures and a game's wells
//! (the drawing is the library's, in `hatetris::plot`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

use hatetris::run;

use super::args::PlotArgs;
use super::outln;

/// The run's pictures' paths, without their extension: `DIR/run`.
fn run_plot_stem(dir: &Path) -> PathBuf {
    dir.join("run")
}

/// Draws the run in `dir` to `stem`.svg and `stem`.png; returns what it
/// wrote, for a message.
fn draw(dir: &Path, stem: &Path) -> Result<String> {
    let m = run::read_manifest(dir)?;
    let (svg, png) = (stem.with_extension("svg"), stem.with_extension("png"));
    let title = format!(
        "{}: width {}, enemy {}, depth {}, best score {} at depth {}",
        dir.display(),
        m.settings.width,
        m.settings.enemy,
        m.depth,
        m.best.score,
        m.best.depth
    );
    hatetris::plot::draw_run(&m.depths, &title, &svg, &png)?;
    Ok(format!("{} and {}", svg.display(), png.display()))
}

/// Draws the run's pictures into its folder (run.svg, run.png).
pub(crate) fn write_run_plot(dir: &Path) -> Result<String> {
    draw(dir, &run_plot_stem(dir))
}

pub fn plot(a: PlotArgs, out: &mut dyn Write) -> Result<()> {
    let stem = match &a.out {
        Some(p) => match p.extension().and_then(|e| e.to_str()) {
            Some("svg" | "png") => p.with_extension(""),
            _ => p.clone(),
        },
        None => run_plot_stem(&a.dir),
    };
    let wrote = draw(&a.dir, &stem)?;
    outln!(out, "wrote {wrote}")?;
    Ok(())
}
