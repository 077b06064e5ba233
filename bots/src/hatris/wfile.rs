//! The weights file shared by `bots hatris` and `bots jewelry`.
//!
//! # Format (version 1)
//!
//! UTF-8 text. Lines starting with `#` and blank lines are ignored. The first
//! other line is `<magic> 1`, where the magic names the game
//! (`hatris-weights`, `jewelry-weights`). Then one line per metric,
//! `<name> <value>`, in any order; every metric of the game appears exactly
//! once and every value is a finite number.
//!
//! # Stability
//!
//! Version 1 is what `train` writes and `play`/`stats --weights` read. A
//! change to the metric set bumps the version; readers reject versions they
//! do not know. Any defect (missing file, wrong magic or version, unknown,
//! duplicate or missing name, bad number, truncation) is an error naming the
//! file and line, never a panic.
//!
//! Text was chosen over a binary record so that weights can be read in a
//! review and pasted into a report.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};

/// Current format version.
pub const VERSION: u32 = 1;

/// Reads `N` weights named `names` from `path`.
pub fn read<const N: usize>(path: &Path, magic: &str, names: &[&str; N]) -> Result<[f64; N]> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read weights file {}", path.display()))?;
    parse(&text, magic, names).with_context(|| format!("bad weights file {}", path.display()))
}

/// Parses the text of a weights file (see the module docs).
pub fn parse<const N: usize>(text: &str, magic: &str, names: &[&str; N]) -> Result<[f64; N]> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((no, header)) = lines.next() else {
        bail!("empty file, expected `{magic} {VERSION}`");
    };
    let mut parts = header.split_whitespace();
    if parts.next() != Some(magic) {
        bail!("line {no}: expected `{magic} {VERSION}`, found `{header}`");
    }
    match parts.next().map(str::parse::<u32>) {
        Some(Ok(VERSION)) if parts.next().is_none() => {}
        _ => bail!("line {no}: unsupported header `{header}`, expected `{magic} {VERSION}`"),
    }
    let mut out = [f64::NAN; N];
    let mut seen = [false; N];
    for (no, line) in lines {
        let mut parts = line.split_whitespace();
        let (Some(name), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
            bail!("line {no}: expected `<name> <value>`, found `{line}`");
        };
        let Some(i) = names.iter().position(|n| *n == name) else {
            bail!("line {no}: unknown metric `{name}`");
        };
        if seen[i] {
            bail!("line {no}: metric `{name}` given twice");
        }
        let v: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .with_context(|| format!("line {no}: `{value}` is not a finite number"))?;
        out[i] = v;
        seen[i] = true;
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        bail!("metric `{}` is missing (file truncated?)", names[i]);
    }
    Ok(out)
}

/// The text of a weights file.
pub fn format<const N: usize>(
    magic: &str,
    names: &[&str; N],
    w: &[f64; N],
    comment: &str,
) -> String {
    let mut s = String::new();
    for line in comment.lines() {
        let _ = writeln!(s, "# {line}");
    }
    let _ = writeln!(s, "{magic} {VERSION}");
    for (n, v) in names.iter().zip(w) {
        let _ = writeln!(s, "{n} {v:.8}");
    }
    s
}

/// Writes a weights file.
pub fn write<const N: usize>(
    path: &Path,
    magic: &str,
    names: &[&str; N],
    w: &[f64; N],
    comment: &str,
) -> Result<()> {
    std::fs::write(path, format(magic, names, w, comment))
        .with_context(|| format!("cannot write weights file {}", path.display()))
}

/// Scales weights so they sum to 100, as both games' hill climbs keep them
/// (left alone when the sum is not positive).
pub fn normalise_to_100<const N: usize>(w: [f64; N]) -> [f64; N] {
    let sum: f64 = w.iter().sum();
    if sum <= 0.0 {
        return w;
    }
    w.map(|x| x * 100.0 / sum)
}

/// One hill-climbing step shared by both games: each weight is scaled by a
/// uniform factor in [0.95, 1.05] (drawn in order), then the weights are
/// normalised to sum to 100.
pub fn perturb_to_100<const N: usize>(
    w: [f64; N],
    rng: &mut crate::hatris::seed::SplitMix64,
) -> [f64; N] {
    let mut v = w;
    for x in v.iter_mut() {
        *x *= 1.0 + (rng.unit() * 2.0 - 1.0) * 0.05;
    }
    normalise_to_100(v)
}
