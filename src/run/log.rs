//! The log, `log.jsonl`: one JSON line per depth, its figures
//! ([`DepthStats`]). It only grows, a synced line per depth
//! ([`json::write_line_at`]), written at the manifest's mark so
//! whatever a kill left after the last recorded depth is written over.
//!
//! It is read back through the manifest's [`LogMark`]: the first
//! `bytes` bytes, their FNV-1a digest checked, one line per depth. What
//! follows them is a kill's leftover, dropped by the next resume; a log
//! whose marked part differs is refused ([`RunError::BadLog`]), since the
//! run's per-depth figures are in it and nowhere else.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;

use super::manifest::{read_manifest_file, write_manifest, MANIFEST_VERSION_INLINE};
use super::paths::log_path;
use super::{DepthStats, LogMark, Manifest, RunError, MANIFEST_VERSION};
use crate::folder::{atomic, io, json};

/// The longest log read: a few hundred bytes per depth.
const MAX_LOG_BYTES: u64 = 1 << 30;

/// Reads a run's manifest, with the per-depth stats from the log, checked
/// against the manifest's record of it (see [`RunError::BadLog`]).
pub fn read_manifest(dir: &Path) -> Result<Manifest, RunError> {
    let mut m = read_manifest_file(dir)?;
    if m.version == MANIFEST_VERSION {
        m.depths = read_log(dir, &m).map_err(|reason| RunError::BadLog {
            path: log_path(dir),
            reason,
        })?;
    }
    Ok(m)
}

/// The per-depth stats of a version 3 manifest's run: the log's first
/// `m.log.bytes` bytes (what follows them is a kill's leftover), checked
/// against the manifest's digest, one line per depth from the root's next
/// to `m.depth`. The error says why not.
pub(crate) fn read_log(dir: &Path, m: &Manifest) -> Result<Vec<DepthStats>, String> {
    let bytes = read_log_bytes(dir, m.log)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| "not UTF-8 text".to_string())?;
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    let root = m.root();
    let depths = m.depth.checked_sub(root).ok_or_else(|| {
        format!(
            "the manifest's last depth {} is before its root {root}",
            m.depth
        )
    })?;
    if lines.len() as u64 != u64::from(depths) || !(text.is_empty() || text.ends_with('\n')) {
        return Err(format!(
            "its first {} bytes hold {} lines, the manifest counts {depths} depths",
            m.log.bytes,
            lines.len(),
        ));
    }
    lines
        .iter()
        .zip(1..)
        .map(|(line, d)| match serde_json::from_str::<DepthStats>(line) {
            Ok(s) if s.depth == root + d => Ok(s),
            Ok(s) => Err(format!("line {d} is depth {}'s", s.depth)),
            Err(e) => Err(format!("line {d}: {e}")),
        })
        .collect()
}

/// The log's first `mark.bytes` bytes, checked against `mark.digest`.
fn read_log_bytes(dir: &Path, mark: LogMark) -> Result<Vec<u8>, String> {
    let path = log_path(dir);
    let file = match File::open(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && mark.bytes == 0 => {
            return Ok(Vec::new())
        }
        Err(e) => return Err(e.to_string()),
        Ok(f) => f,
    };
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    if len < mark.bytes {
        return Err(format!(
            "{len} bytes long, the manifest recorded {} bytes of it",
            mark.bytes
        ));
    }
    if mark.bytes > MAX_LOG_BYTES {
        return Err(format!("larger than {} MiB", MAX_LOG_BYTES >> 20));
    }
    let mut bytes = Vec::with_capacity(mark.bytes as usize);
    file.take(mark.bytes)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if LogMark::EMPTY.then(&bytes) != mark {
        return Err(format!(
            "its first {} bytes are not the ones the manifest recorded (digest {:016x}, recorded {:016x})",
            mark.bytes,
            LogMark::EMPTY.then(&bytes).digest,
            mark.digest
        ));
    }
    Ok(bytes)
}

/// Records a complete depth: its line goes to the log at the manifest's
/// mark (over anything a kill left there), fsynced, then the manifest
/// moves on to it. Both cost the same at any depth.
pub(crate) fn record_depth(
    dir: &Path,
    m: &mut Manifest,
    stats: DepthStats,
) -> Result<(), RunError> {
    let line = json::line(&stats);
    json::write_line_at(&log_path(dir), m.log.bytes, &line)?;
    m.log = m.log.then(line.as_bytes());
    m.depth = stats.depth;
    m.depths.push(stats);
    write_manifest(dir, m)
}

/// Settles a run being resumed from `depth` (at most its last complete
/// one): the manifest and the log hold the depths after the root to
/// `depth` alone, and the
/// manifest is of the current version. The manifest is written before the
/// log is cut, so a kill in between leaves a run that resumes.
pub(crate) fn rewind(dir: &Path, m: &mut Manifest, depth: u32) -> Result<(), RunError> {
    let path = log_path(dir);
    let lines = depth - m.root();
    m.depths.truncate(lines as usize);
    m.depth = depth;
    if m.version == MANIFEST_VERSION_INLINE {
        // The log follows the old manifest, and then the new manifest the
        // log: a kill in between leaves the old manifest, which resumes.
        let text: String = m.depths.iter().map(json::line).collect();
        atomic::write_atomic(&path, text.as_bytes()).map_err(io(&path))?;
        m.log = LogMark::EMPTY.then(text.as_bytes());
        m.version = MANIFEST_VERSION;
        return write_manifest(dir, m);
    }
    let bytes = read_log_bytes(dir, m.log).map_err(|reason| RunError::BadLog {
        path: path.clone(),
        reason,
    })?;
    let kept = match lines {
        0 => 0,
        d => {
            bytes
                .iter()
                .enumerate()
                .filter(|(_, &b)| b == b'\n')
                .nth(d as usize - 1)
                .expect("the log was read with one line per depth")
                .0
                + 1
        }
    };
    m.log = LogMark::EMPTY.then(&bytes[..kept]);
    write_manifest(dir, m)?;
    (|| {
        let log = match OpenOptions::new().write(true).open(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            other => other?,
        };
        if log.metadata()?.len() != m.log.bytes {
            log.set_len(m.log.bytes)?;
            log.sync_data()?;
        }
        Ok(())
    })()
    .map_err(io(&path))?;
    Ok(())
}
