//! `hatetris plot` and `replay render`: a run's pictures and a game's wells
//! (the drawing is the library's, in `hatetris::plot`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

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

/// Where `--out` puts the pictures: into a folder as `run.svg` and
/// `run.png`; `FILE` (with `.svg`, `.png` or no extension) as `FILE.svg`
/// and `FILE.png`; another extension is refused, since the pictures are
/// SVG and PNG whatever the name says.
fn out_stem(out: &Path) -> Result<PathBuf> {
    if out.is_dir() {
        return Ok(run_plot_stem(out));
    }
    match out.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()) {
        None => Ok(out.to_path_buf()),
        Some(e) if e == "svg" || e == "png" => Ok(out.with_extension("")),
        Some(_) => bail!(
            "--out {}: the pictures are SVG and PNG; give a folder, or a name ending in .svg, .png or nothing (both are written)",
            out.display()
        ),
    }
}

pub fn plot(a: PlotArgs, out: &mut dyn Write) -> Result<()> {
    // A training or tuning folder has its own pictures, drawn into it.
    let own = if hatetris::train::config_path(&a.dir).exists() {
        hatetris::train::redraw(&a.dir)?;
        Some(("progress", "a training folder"))
    } else if hatetris::tune::settings_path(&a.dir).exists() {
        hatetris::tune::redraw(&a.dir)?;
        Some(("fitness", "a tuning folder"))
    } else {
        None
    };
    if let Some((name, kind)) = own {
        if a.out.is_some() {
            bail!("--out: {kind} keeps its pictures in itself ({name}.svg and {name}.png)");
        }
        let (svg, png) = (
            a.dir.join(format!("{name}.svg")),
            a.dir.join(format!("{name}.png")),
        );
        outln!(out, "wrote {} and {}", svg.display(), png.display())?;
        return Ok(());
    }
    let stem = match &a.out {
        Some(p) => out_stem(p)?,
        None => run_plot_stem(&a.dir),
    };
    let wrote = draw(&a.dir, &stem)?;
    outln!(out, "wrote {wrote}")?;
    Ok(())
}
