//! The one weights-file format of `bots` (Hatris, Magic Jewelry, NES
//! Tetris), and the weight-vector steps the hill climbs share.
//!
//! # Format (version 1)
//!
//! UTF-8 text. Lines starting with `#` and blank lines are ignored. The
//! first other line is `<magic> 1`, where the magic names the game
//! (`hatris-weights`, `jewelry-weights`, `nes-weights`). Then one line per
//! weight, `<name> <value>`, in any order; every weight of the game appears
//! exactly once and every value is a finite number. Writers put the command
//! that made the file in the leading comment.
//!
//! ```text
//! # written by `bots nes train ...`
//! nes-weights 1
//! height -0.51
//! lines 0.76
//! holes -0.36
//! bumpiness -0.18
//! ```
//!
//! # Stability
//!
//! Version 1 is what every `train` writes and every `--weights` reads. A
//! change to a game's weight set bumps the version; readers reject versions
//! they do not know. Any defect (missing file, wrong magic or version,
//! unknown, duplicate or missing name, bad number, truncation) is a
//! [`WeightsError`] naming the file and line, never a panic.
//!
//! Text was chosen over JSON or a binary record so that weights can be read
//! in a review and pasted into a report; the NES trainer's former JSON
//! files are refused with a message that names the expected header.

use std::fmt::Write as _;
use std::path::Path;

use super::rng::SplitMix64;

/// Current format version.
pub const VERSION: u32 = 1;

/// Why a weights file was refused. The `Display` form is one line.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    /// The file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        error: std::io::Error,
    },
    /// The text is not a weights file of the expected game and version.
    #[error("{path}: line {line}: {reason}")]
    Bad {
        /// The file (or `<text>`).
        path: String,
        /// 1-based line of the defect (0: the whole file).
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

fn bad(path: &str, line: usize, reason: String) -> WeightsError {
    WeightsError::Bad {
        path: path.to_string(),
        line,
        reason,
    }
}

/// Reads `N` weights named `names` from `path`.
pub fn read<const N: usize>(
    path: &Path,
    magic: &str,
    names: &[&str; N],
) -> Result<[f64; N], WeightsError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| WeightsError::Io {
        path: name.clone(),
        error,
    })?;
    parse(&text, &name, magic, names)
}

/// Parses the text of a weights file (see the module docs); `path` names
/// it in errors.
pub fn parse<const N: usize>(
    text: &str,
    path: &str,
    magic: &str,
    names: &[&str; N],
) -> Result<[f64; N], WeightsError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((no, header)) = lines.next() else {
        return Err(bad(path, 0, format!("empty, expected `{magic} {VERSION}`")));
    };
    let mut parts = header.split_whitespace();
    if parts.next() != Some(magic) {
        let shown: String = header.chars().take(40).collect();
        return Err(bad(
            path,
            no,
            format!("expected `{magic} {VERSION}`, found `{shown}`"),
        ));
    }
    match parts.next().map(str::parse::<u32>) {
        Some(Ok(VERSION)) if parts.next().is_none() => {}
        _ => {
            return Err(bad(
                path,
                no,
                format!("unsupported header `{header}`, this build reads `{magic} {VERSION}`"),
            ))
        }
    }
    let mut out = [f64::NAN; N];
    let mut seen = [false; N];
    for (no, line) in lines {
        let mut parts = line.split_whitespace();
        let (Some(name), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(bad(
                path,
                no,
                format!("expected `<name> <value>`, found `{line}`"),
            ));
        };
        let Some(i) = names.iter().position(|n| *n == name) else {
            return Err(bad(path, no, format!("unknown weight `{name}`")));
        };
        if seen[i] {
            return Err(bad(path, no, format!("weight `{name}` given twice")));
        }
        match value.parse::<f64>() {
            Ok(v) if v.is_finite() => out[i] = v,
            _ => return Err(bad(path, no, format!("`{value}` is not a finite number"))),
        }
        seen[i] = true;
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        return Err(bad(
            path,
            0,
            format!("weight `{}` is missing (file truncated?)", names[i]),
        ));
    }
    Ok(out)
}

/// The text of a weights file; each line of `comment` becomes a `#` line.
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
        // `{}` prints the shortest text that reads back to the same f64.
        let _ = writeln!(s, "{n} {v}");
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
) -> Result<(), WeightsError> {
    std::fs::write(path, format(magic, names, w, comment)).map_err(|error| WeightsError::Io {
        path: path.display().to_string(),
        error,
    })
}

/// Scales weights so they sum to 100, as both hill climbs keep them (left
/// alone when the sum is not positive).
pub fn normalise_to_100<const N: usize>(w: [f64; N]) -> [f64; N] {
    let sum: f64 = w.iter().sum();
    if sum <= 0.0 {
        return w;
    }
    w.map(|x| x * 100.0 / sum)
}

/// Scales weights to unit Euclidean length (left alone when all are 0):
/// how the NES weights are compared, since the bot's choice does not
/// change when every weight is multiplied by the same positive number.
pub fn unit_length<const N: usize>(w: [f64; N]) -> [f64; N] {
    let len = w.iter().map(|x| x * x).sum::<f64>().sqrt();
    if len == 0.0 {
        return w;
    }
    w.map(|x| x / len)
}

/// One hill-climbing step shared by Hatris and Magic Jewelry: each weight
/// is scaled by a uniform factor in [1 − `step`, 1 + `step`] (drawn in
/// order), then the weights are normalised to sum to 100.
pub fn perturb_to_100<const N: usize>(w: [f64; N], step: f64, rng: &mut SplitMix64) -> [f64; N] {
    let mut v = w;
    for x in v.iter_mut() {
        *x *= 1.0 + (rng.unit() * 2.0 - 1.0) * step;
    }
    normalise_to_100(v)
}

/// [`perturb_to_100`] that can also move a weight by an absolute amount, so
/// a weight near 0 can grow (a factor alone keeps it near 0): per weight,
/// the factor is drawn as there, then, only when `abs` > 0, a uniform
/// amount in [−`abs`, `abs`] (in the units of the sum of 100) is added and
/// the weight is floored at 0. With `abs` = 0 it draws the same numbers and
/// returns the same weights as [`perturb_to_100`].
pub fn perturb_to_100_abs<const N: usize>(
    w: [f64; N],
    step: f64,
    abs: f64,
    rng: &mut SplitMix64,
) -> [f64; N] {
    let mut v = w;
    for x in v.iter_mut() {
        *x *= 1.0 + (rng.unit() * 2.0 - 1.0) * step;
        if abs > 0.0 {
            *x = (*x + (rng.unit() * 2.0 - 1.0) * abs).max(0.0);
        }
    }
    normalise_to_100(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 2] = ["a", "b"];

    #[test]
    fn round_trip_is_exact() {
        let w = [0.1 + 0.2, -1.0e-300];
        let text = format("t-weights", &NAMES, &w, "made by a test");
        assert_eq!(parse(&text, "x", "t-weights", &NAMES).unwrap(), w);
    }

    #[test]
    fn an_additive_step_of_zero_is_the_multiplicative_step() {
        let w = [60.0, 39.999, 0.001];
        let (mut a, mut b) = (SplitMix64::new(7), SplitMix64::new(7));
        for _ in 0..20 {
            assert_eq!(
                perturb_to_100(w, 0.2, &mut a),
                perturb_to_100_abs(w, 0.2, 0.0, &mut b)
            );
        }
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn an_additive_step_moves_a_weight_away_from_zero() {
        let mut rng = SplitMix64::new(3);
        let w = [99.999, 0.001, 0.0];
        let mut grew = false;
        for _ in 0..50 {
            let v = perturb_to_100_abs(w, 0.05, 2.0, &mut rng);
            assert!(v.iter().all(|&x| x >= 0.0), "{v:?}");
            assert!((v.iter().sum::<f64>() - 100.0).abs() < 1e-9);
            grew |= v[1] > 0.5 && v[2] > 0.5;
        }
        assert!(grew);
    }

    #[test]
    fn defects_are_one_line_errors() {
        for (text, needle) in [
            ("", "empty"),
            ("u-weights 1\na 1\nb 2\n", "expected `t-weights 1`"),
            ("t-weights 2\na 1\nb 2\n", "unsupported header"),
            ("t-weights 1\na 1\n", "`b` is missing"),
            ("t-weights 1\na 1\na 2\nb 2\n", "given twice"),
            ("t-weights 1\na 1\nc 2\nb 2\n", "unknown weight"),
            ("t-weights 1\na nan\nb 2\n", "not a finite number"),
            ("t-weights 1\na 1 2\nb 2\n", "expected `<name> <value>`"),
            (
                "{\"format\": \"bots-nes-weights\"}",
                "expected `t-weights 1`",
            ),
        ] {
            let e = parse(text, "f.txt", "t-weights", &NAMES)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(needle) && e.starts_with("f.txt: "),
                "{text:?}: {e}"
            );
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
