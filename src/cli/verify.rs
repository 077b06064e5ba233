//! The verify command: a whole run, training or tuning folder checked,
//! each problem one line.

use std::io::Write;

use anyhow::{bail, Context, Result};

use hatetris::folder::Holds;
use hatetris::{search, train, tune};

use super::args::VerifyArgs;
use super::outln;

/// What any folder's check found, for printing.
struct Report {
    /// The folder's figures, by JSON key.
    figures: Vec<(&'static str, u64)>,
    /// What was read, in words.
    read: String,
    problems: Vec<String>,
    notes: Vec<String>,
}

pub fn verify(a: VerifyArgs, out: &mut dyn Write) -> Result<()> {
    let report = match hatetris::folder::holds(&a.dir) {
        Some(Holds::Training) => {
            let f = train::verify(&a.dir)?;
            Report {
                figures: vec![
                    ("generations", u64::from(f.generations)),
                    ("samples", f.samples),
                ],
                read: format!(
                    "{} ({}) read",
                    super::search::counted(f.generations as usize, "generation"),
                    super::search::counted(f.samples as usize, "sample")
                ),
                problems: f.problems,
                notes: f.notes,
            }
        }
        Some(Holds::Tuning) => {
            let f = tune::verify(&a.dir)?;
            Report {
                figures: vec![("evaluations", f.evaluations as u64)],
                read: format!(
                    "{} read",
                    super::search::counted(f.evaluations, "evaluation")
                ),
                problems: f.problems,
                notes: f.notes,
            }
        }
        _ => {
            let f = search::verify(&a.dir)?;
            Report {
                figures: vec![
                    ("depth", u64::from(f.depth)),
                    ("files", u64::from(f.files)),
                    ("wells", f.wells),
                ],
                read: format!(
                    "{} depth files ({} wells) read to depth {}",
                    f.files, f.wells, f.depth
                ),
                problems: f.problems,
                notes: f.notes,
            }
        }
    };
    let ok = report.problems.is_empty();
    if a.json {
        let mut v = serde_json::json!({
            "ok": ok,
            "problems": report.problems,
            "notes": report.notes,
        });
        for (key, value) in &report.figures {
            v[*key] = (*value).into();
        }
        outln!(out, "{v}")?;
    } else {
        for n in &report.notes {
            outln!(out, "note: {n}")?;
        }
        for p in &report.problems {
            outln!(out, "problem: {p}")?;
        }
        outln!(
            out,
            "{}: {}: {}",
            a.dir.display(),
            report.read,
            match report.problems.len() {
                0 => "ok".to_string(),
                1 => "1 problem".to_string(),
                n => format!("{n} problems"),
            }
        )?;
    }
    if !ok {
        out.flush().context(super::STDOUT)?;
        bail!(
            "{}: {} problem{} (listed above)",
            a.dir.display(),
            report.problems.len(),
            if report.problems.len() == 1 { "" } else { "s" }
        );
    }
    Ok(())
}
