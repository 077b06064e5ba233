//! The verify command: a whole run folder checked, each problem one line.

use std::io::Write;

use anyhow::{bail, Context, Result};

use hatetris::search;

use super::args::VerifyArgs;

pub fn verify(a: VerifyArgs) -> Result<()> {
    let report = search::verify(&a.dir)?;
    let mut out = std::io::stdout().lock();
    let written = if a.json {
        writeln!(
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
        )
    } else {
        (|| {
            for n in &report.notes {
                writeln!(out, "note: {n}")?;
            }
            for p in &report.problems {
                writeln!(out, "problem: {p}")?;
            }
            writeln!(
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
            )
        })()
    };
    written.context("writing to standard output")?;
    if !report.is_ok() {
        bail!(
            "{}: {} problem{} (listed above)",
            a.dir.display(),
            report.problems.len(),
            if report.problems.len() == 1 { "" } else { "s" }
        );
    }
    Ok(())
}
