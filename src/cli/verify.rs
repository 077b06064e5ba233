//! The verify command: a whole run folder checked, each problem one line.

use std::io::Write;

use anyhow::{bail, Context, Result};

use hatetris::search;

use super::args::VerifyArgs;
use super::outln;

pub fn verify(a: VerifyArgs, out: &mut dyn Write) -> Result<()> {
    let report = search::verify(&a.dir)?;
    if a.json {
        outln!(
            out,
            "{}",
            serde_json::json!({
                "ok": report.is_ok(),
                "depth": report.depth,
                "files": report.files,
                "wells": report.wells,
                "problems": report.problems,
                "notes": report.notes,
            })
        )?;
    } else {
        for n in &report.notes {
            outln!(out, "note: {n}")?;
        }
        for p in &report.problems {
            outln!(out, "problem: {p}")?;
        }
        outln!(
            out,
            "{}: {} depth files ({} wells) read to depth {}: {}",
            a.dir.display(),
            report.files,
            report.wells,
            report.depth,
            match report.problems.len() {
                0 => "ok".to_string(),
                1 => "1 problem".to_string(),
                n => format!("{n} problems"),
            }
        )?;
    }
    if !report.is_ok() {
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
