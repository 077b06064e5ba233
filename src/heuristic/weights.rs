//! The weights of the heuristic and their TOML file.
//!
//! The value of a well is a **cost: lower is better**. Every weight is the
//! cost of one unit of its term, so a term that is bad (holes) has a
//! positive weight and a term that is good (erasability, score, a deep
//! surface bottom) has a negative one.
//!
//! # File format
//! ```toml
//! holes = 11.2106
//! enclosed_holes = 83.7646
//! lines_with_enclosed_holes = 83.7646
//! surface_height = -83.7646
//! score = -332.2211
//!
//! [erasability]
//! S = -83.7646
//! Z = -83.7646
//! O = -83.7646
//! I = -83.7646
//! L = -83.7646
//! J = -83.7646
//! T = -83.7646
//! ```
//! The keys above are required. The [reach terms](super::terms::ReachTerms)
//! are optional and 0 when absent, so a file without them ranks wells as
//! before (their own key names: `s_surface_height`,
//! `s_unreachable_open_cells`, `left_column_height`, `right_column_height`,
//! `deepest_without_clear`, `deepest_after_clear`), and so is `hole_region`
//! (`"deepened-surface"` or `"lowest-surface"`; absent: the one measured best
//! for the evaluator, see [`HoleRegion`]). No other key is allowed; integers
//! are accepted as numbers. The file is checked key by key before it is deserialised, so
//! that an error names the key and the file on one line ([`WeightsError`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::terms::HoleRegion;
use crate::piece::Piece;

/// Weights of the knewjade heuristic. The value is a **cost: lower is
/// better**; each weight is the cost of one unit of its term.
/// It deserialises from its own serialised form (as a run's identity
/// holds it), not from the TOML file's, which [`Weights::parse`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// Cost per hole (a hole is bad: positive).
    pub holes: f64,
    /// Cost per enclosed hole (bad: positive).
    pub enclosed_holes: f64,
    /// Cost per line with an enclosed hole (bad: positive).
    pub lines_with_enclosed_holes: f64,
    /// Cost per row of surface height. Surface height counts rows from the
    /// top (a larger value is a lower surface, which is good), so this is
    /// negative.
    pub surface_height: f64,
    /// Cost of each piece being able to clear a line, indexed S Z O I L J T
    /// (being able to clear is good: negative).
    pub erasability: [f64; 7],
    /// Cost per line cleared so far (good: negative).
    pub score: f64,
    /// Cost per row of [S surface height](super::terms::s_surface_height)
    /// (rows from the top, like `surface_height`). 0 by default, as every
    /// reach term: a zero weight is left out of the run's identity, so a
    /// run without the reach terms keeps the identity it had before them.
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub s_surface_height: f64,
    /// Cost per [open cell no S can reach](super::terms::s_unreachable_open_cells).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub s_unreachable_open_cells: f64,
    /// Cost per row of [left column height](super::terms::left_column_height).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub left_column_height: f64,
    /// Cost per row of [right column height](super::terms::right_column_height).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub right_column_height: f64,
    /// Cost per row of the [deepest row without a
    /// clear](super::terms::deepest_without_clear) (rows from the top).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub deepest_without_clear: f64,
    /// Cost per row of the [deepest row after a
    /// clear](super::terms::deepest_after_clear) (rows from the top).
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    pub deepest_after_clear: f64,
    /// Where the hole terms are counted; `None`: the region measured best
    /// for the evaluator (see [`HoleRegion`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hole_region: Option<HoleRegion>,
}

/// The names of every weight, in file order, as `tune --terms` and
/// [`Weights::get`] take them.
pub const WEIGHT_NAMES: [&str; 18] = [
    "holes",
    "enclosed_holes",
    "lines_with_enclosed_holes",
    "surface_height",
    "score",
    "erasability.S",
    "erasability.Z",
    "erasability.O",
    "erasability.I",
    "erasability.L",
    "erasability.J",
    "erasability.T",
    "s_surface_height",
    "s_unreachable_open_cells",
    "left_column_height",
    "right_column_height",
    "deepest_without_clear",
    "deepest_after_clear",
];

/// The 86-line record's weights; `data/weights/dnf-86.toml` holds the same.
const DNF86: Weights = Weights {
    holes: 11.2106,
    enclosed_holes: 83.7646,
    lines_with_enclosed_holes: 83.7646,
    surface_height: -83.7646,
    erasability: [-83.7646; 7],
    score: -332.2211,
    s_surface_height: 0.0,
    s_unreachable_open_cells: 0.0,
    left_column_height: 0.0,
    right_column_height: 0.0,
    deepest_without_clear: 0.0,
    deepest_after_clear: 0.0,
    hole_region: None,
};

/// The TOML file's top level.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct WeightsFile {
    holes: f64,
    enclosed_holes: f64,
    lines_with_enclosed_holes: f64,
    surface_height: f64,
    score: f64,
    erasability: ErasabilityFile,
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    s_surface_height: f64,
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    s_unreachable_open_cells: f64,
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    left_column_height: f64,
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    right_column_height: f64,
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    deepest_without_clear: f64,
    #[serde(default, skip_serializing_if = "crate::folder::is_default")]
    deepest_after_clear: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hole_region: Option<HoleRegion>,
}

/// The `[erasability]` table: one weight per piece.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
struct ErasabilityFile {
    S: f64,
    Z: f64,
    O: f64,
    I: f64,
    L: f64,
    J: f64,
    T: f64,
}

/// Top-level keys every file has, in file order.
const TOP_KEYS: [&str; 6] = [
    "holes",
    "enclosed_holes",
    "lines_with_enclosed_holes",
    "surface_height",
    "score",
    "erasability",
];

/// The reach terms' weights: the names after the five scalar weights and
/// the seven erasability weights. A file may leave them out (0 when
/// absent), and `hole_region` too.
const REACH_KEYS: &[&str] = WEIGHT_NAMES.split_at(12).1;

/// Top-level keys a file may leave out.
const OPTIONAL_KEYS: [&[&str]; 2] = [REACH_KEYS, &["hole_region"]];

/// Why a weights file was rejected. Each message is one line and names the
/// file and, where there is one, the key.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    /// The file could not be read.
    // The cause is in the message and not a `source`, so that a report of
    // the error chain does not print it twice.
    #[error("{file}: cannot read weights: {error}")]
    Read {
        /// The file.
        file: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The file is not valid TOML.
    #[error("{file}: not valid TOML: {message}")]
    Syntax {
        /// The file.
        file: PathBuf,
        /// The parser's message, first line only.
        message: String,
    },
    /// A key the heuristic doesn't know (a typo, or a term from elsewhere).
    #[error("{file}: unknown key `{key}`")]
    UnknownKey {
        /// The file.
        file: PathBuf,
        /// The key, dotted (`erasability.X`).
        key: String,
    },
    /// A required key is absent.
    #[error("{file}: missing key `{key}`")]
    MissingKey {
        /// The file.
        file: PathBuf,
        /// The key, dotted.
        key: String,
    },
    /// A key's value is not a (finite) number, or `erasability` is not a table.
    #[error("{file}: key `{key}` must be {expected}, found {found}")]
    WrongType {
        /// The file.
        file: PathBuf,
        /// The key, dotted.
        key: String,
        /// What was expected.
        expected: &'static str,
        /// What was found.
        found: String,
    },
}

impl Weights {
    /// The 86-line record's weights (the default), equal to
    /// `data/weights/dnf-86.toml`.
    pub const fn dnf86() -> Weights {
        DNF86
    }

    /// The weight named `name` (one of [`WEIGHT_NAMES`]).
    pub fn get(&self, name: &str) -> Option<f64> {
        let mut copy = *self;
        copy.slot(name).map(|w| *w)
    }

    /// Sets the weight named `name`; `false` if there is no such weight.
    pub fn set(&mut self, name: &str, value: f64) -> bool {
        match self.slot(name) {
            Some(w) => {
                *w = value;
                true
            }
            None => false,
        }
    }

    fn slot(&mut self, name: &str) -> Option<&mut f64> {
        if let Some(letter) = name.strip_prefix("erasability.") {
            let piece = Piece::ALL
                .into_iter()
                .find(|p| letter.chars().eq([p.letter()]))?;
            return Some(&mut self.erasability[piece.index()]);
        }
        Some(match name {
            "holes" => &mut self.holes,
            "enclosed_holes" => &mut self.enclosed_holes,
            "lines_with_enclosed_holes" => &mut self.lines_with_enclosed_holes,
            "surface_height" => &mut self.surface_height,
            "score" => &mut self.score,
            "s_surface_height" => &mut self.s_surface_height,
            "s_unreachable_open_cells" => &mut self.s_unreachable_open_cells,
            "left_column_height" => &mut self.left_column_height,
            "right_column_height" => &mut self.right_column_height,
            "deepest_without_clear" => &mut self.deepest_without_clear,
            "deepest_after_clear" => &mut self.deepest_after_clear,
            _ => return None,
        })
    }

    /// Whether any reach term has a weight (so the terms must be computed).
    pub fn uses_reach(&self) -> bool {
        [
            self.s_surface_height,
            self.s_unreachable_open_cells,
            self.left_column_height,
            self.right_column_height,
            self.deepest_without_clear,
            self.deepest_after_clear,
        ]
        .iter()
        .any(|&w| w != 0.0)
    }

    /// Erasability weight of one piece.
    pub fn erasability_of(&self, piece: Piece) -> f64 {
        self.erasability[piece.index()]
    }

    /// Reads a weights file (see the module doc for the format).
    pub fn load(path: &Path) -> Result<Weights, WeightsError> {
        let text = std::fs::read_to_string(path).map_err(|error| WeightsError::Read {
            file: path.to_path_buf(),
            error,
        })?;
        Weights::parse(&text, path)
    }

    /// Parses weights from TOML text; `file` is only used in errors.
    pub fn parse(text: &str, file: &Path) -> Result<Weights, WeightsError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let message = e.message().lines().next().unwrap_or("").to_string();
            WeightsError::Syntax {
                file: file.to_path_buf(),
                message: match e.span() {
                    Some(span) => {
                        let line = text[..span.start].matches('\n').count() + 1;
                        format!("line {line}: {message}")
                    }
                    None => message,
                },
            }
        })?;
        check_table(&table, "", &TOP_KEYS, &OPTIONAL_KEYS, file)?;
        match &table["erasability"] {
            toml::Value::Table(inner) => {
                let letters: Vec<String> = Piece::ALL.iter().map(|p| p.letter().into()).collect();
                let keys: Vec<&str> = letters.iter().map(String::as_str).collect();
                check_table(inner, "erasability.", &keys, &[], file)?;
            }
            other => {
                return Err(WeightsError::WrongType {
                    file: file.to_path_buf(),
                    key: "erasability".into(),
                    expected: "a table of one weight per piece (S Z O I L J T)",
                    found: other.type_str().into(),
                })
            }
        }
        // Every key is present and numeric, so this cannot fail; the error
        // arm keeps the function total should the struct and the key list
        // ever drift apart.
        let parsed: WeightsFile =
            toml::Value::Table(table)
                .try_into()
                .map_err(|e: toml::de::Error| WeightsError::Syntax {
                    file: file.to_path_buf(),
                    message: e.message().lines().next().unwrap_or("").to_string(),
                })?;
        let e = &parsed.erasability;
        Ok(Weights {
            holes: parsed.holes,
            enclosed_holes: parsed.enclosed_holes,
            lines_with_enclosed_holes: parsed.lines_with_enclosed_holes,
            surface_height: parsed.surface_height,
            erasability: [e.S, e.Z, e.O, e.I, e.L, e.J, e.T],
            score: parsed.score,
            s_surface_height: parsed.s_surface_height,
            s_unreachable_open_cells: parsed.s_unreachable_open_cells,
            left_column_height: parsed.left_column_height,
            right_column_height: parsed.right_column_height,
            deepest_without_clear: parsed.deepest_without_clear,
            deepest_after_clear: parsed.deepest_after_clear,
            hole_region: parsed.hole_region,
        })
    }

    /// The weights as a TOML file that [`Weights::parse`] reads back.
    pub fn to_toml(&self) -> String {
        let e = &self.erasability;
        let file = WeightsFile {
            holes: self.holes,
            enclosed_holes: self.enclosed_holes,
            lines_with_enclosed_holes: self.lines_with_enclosed_holes,
            surface_height: self.surface_height,
            score: self.score,
            erasability: ErasabilityFile {
                S: e[0],
                Z: e[1],
                O: e[2],
                I: e[3],
                L: e[4],
                J: e[5],
                T: e[6],
            },
            s_surface_height: self.s_surface_height,
            s_unreachable_open_cells: self.s_unreachable_open_cells,
            left_column_height: self.left_column_height,
            right_column_height: self.right_column_height,
            deepest_without_clear: self.deepest_without_clear,
            deepest_after_clear: self.deepest_after_clear,
            hole_region: self.hole_region,
        };
        let body = toml::to_string(&file).expect("weights serialise to TOML");
        format!("# Heuristic weights. The value is a cost: lower is better.\n{body}")
    }
}

impl Default for Weights {
    /// [`Weights::dnf86`].
    fn default() -> Weights {
        DNF86
    }
}

/// Checks one table: no unknown key, every expected key present, every
/// value a finite number (except the `erasability` table itself, which is
/// checked by the caller).
fn check_table(
    table: &toml::Table,
    prefix: &str,
    expected: &[&str],
    optional: &[&[&str]],
    file: &Path,
) -> Result<(), WeightsError> {
    for (key, value) in table {
        let allowed = expected.contains(&key.as_str())
            || optional.iter().any(|keys| keys.contains(&key.as_str()));
        if !allowed {
            return Err(WeightsError::UnknownKey {
                file: file.to_path_buf(),
                key: format!("{prefix}{key}"),
            });
        }
        if prefix.is_empty() && key == "erasability" {
            continue;
        }
        if prefix.is_empty() && key == "hole_region" {
            match value.as_str() {
                Some("deepened-surface" | "lowest-surface") => continue,
                _ => {
                    return Err(WeightsError::WrongType {
                        file: file.to_path_buf(),
                        key: key.clone(),
                        expected: "\"deepened-surface\" or \"lowest-surface\"",
                        found: value.to_string(),
                    })
                }
            }
        }
        let number = match value {
            toml::Value::Float(f) => Some(*f),
            toml::Value::Integer(i) => Some(*i as f64),
            _ => None,
        };
        match number {
            Some(f) if f.is_finite() => {}
            _ => {
                return Err(WeightsError::WrongType {
                    file: file.to_path_buf(),
                    key: format!("{prefix}{key}"),
                    expected: "a finite number",
                    found: match value {
                        toml::Value::String(s) => format!("the string {s:?}"),
                        toml::Value::Float(f) => f.to_string(),
                        other => other.type_str().to_string(),
                    },
                })
            }
        }
    }
    for key in expected {
        if !table.contains_key(*key) {
            return Err(WeightsError::MissingKey {
                file: file.to_path_buf(),
                key: format!("{prefix}{key}"),
            });
        }
    }
    Ok(())
}
