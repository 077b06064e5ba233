//! A run folder at a glance, for `hatetris status`: how far it is, its best
//! game, how its well's cells move, how fast the last depths went, what it
//! costs in memory and disk, and whether a process is running it.
//!
//! The cells are the early warning of a dying beam. A well holds 4 cells a
//! piece less 10 a line, so a game lives only while it clears 0.4 lines a
//! piece, and any shortfall piles up: the width-100,000 games of
//! `data/train/README.md` ("learn-12") held about 50 cells for hundreds of
//! pieces and died when the beam's best well reached about 110-125,
//! whatever the net. The best well is the beam's emptiest: the game kept
//! runs 20-40 cells above it (the record's own game holds a median of 72,
//! 52-90 on nine pieces in ten, for 9,000 pieces; ours die at 110-130:
//! "Probes of the width-100,000 wall" there). [`Cells`] gives the best
//! well's count and its drift over the last [`DRIFT`] depths.
//!
//! Everything comes from the manifest, the log and the file system, read
//! without the run's lock (the lock is only tried for a moment, to tell
//! whether a process holds it), so a status can be taken while the search
//! runs. The manifest is written after the log line of its depth, so the
//! two always agree; a status taken in the instant a resume rewrites them
//! may fail, and the next one (`--watch`) reads them again.

use std::fs;
use std::path::Path;

use serde::Serialize;

use super::{read_manifest, RunError};
use crate::folder::io;
use crate::place::cells_after;

/// How many of the newest depths the speed figures are taken over.
pub const RECENT: usize = 5;

/// One of the newest depths.
#[derive(Clone, Debug, Serialize)]
pub struct RecentDepth {
    /// Its depth.
    pub depth: u32,
    /// Seconds it took (the sum of its phases, or the difference of the
    /// log's clock for runs that did not record phases).
    pub seconds: f64,
    /// Children generated.
    pub children: u64,
}

/// Depths the cells' drift is taken over.
pub const DRIFT: u32 = 100;

/// The cells of each depth's best-scoring well (4 a piece less 10 a line,
/// counted over the whole game, so also from a game's well) and how they
/// moved over the newest depths.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cells {
    /// Cells of the last depth's best-scoring well.
    pub now: i64,
    /// Depths the drift is taken over: [`DRIFT`], or every depth of a
    /// shorter run.
    pub over: u32,
    /// Cells gained over them (negative: lost).
    pub gained: i64,
    /// Lines a piece the best score rose by over them (0.4 holds the
    /// cells level).
    pub lines_per_piece: f64,
}

impl Cells {
    /// From the depths' (depth, best score), oldest first; `None` for a
    /// run without a complete depth.
    pub fn of(depths: &[(u32, u16)]) -> Option<Cells> {
        let cells = |&(depth, score): &(u32, u16)| cells_after(depth, u32::from(score));
        let last = depths.last()?;
        // The depth DRIFT before the last, or the oldest one logged.
        let from = depths
            .iter()
            .rev()
            .find(|d| last.0 - d.0 >= DRIFT)
            .unwrap_or(&depths[0]);
        let over = last.0 - from.0;
        Some(Cells {
            now: cells(last),
            over,
            gained: cells(last) - cells(from),
            lines_per_piece: match over {
                0 => 0.0,
                // A depth's best score can be below an earlier depth's.
                n => (f64::from(last.1) - f64::from(from.1)) / f64::from(n),
            },
        })
    }
}

/// What `hatetris status` shows.
#[derive(Clone, Debug, Serialize)]
pub struct Status {
    /// Beam width.
    pub width: usize,
    /// The enemy.
    pub enemy: String,
    /// The net's checksum, for a net run.
    pub net: Option<String>,
    /// The lookahead's depth, if any.
    pub quiescent: Option<u64>,
    /// The lookahead's cost per hypothetical clear, when one is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain_step_cost: Option<f64>,
    /// The depth of the game the run starts from (`search --from`);
    /// absent for a run from the empty well.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<u32>,
    /// The lineage cap, `BACK:MOST`, if the run has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lineage_cap: Option<String>,
    /// The last complete depth.
    pub depth: u32,
    /// The depth the run stops at, when recorded.
    pub max_depth: Option<u32>,
    /// Whether the beam died out.
    pub exhausted: bool,
    /// The best score.
    pub best_score: u16,
    /// The depth the best score was first reached at.
    pub best_depth: u32,
    /// The best well's cells and their drift ([`Cells`]).
    pub cells: Option<Cells>,
    /// The newest depth whose well every well of the last depth descends
    /// from, as its log line recorded it (absent without a history or in
    /// runs made before it was recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub common_ancestor: Option<u32>,
    /// The newest depths (at most [`RECENT`]), oldest first.
    pub recent: Vec<RecentDepth>,
    /// Seconds per depth over `recent`.
    pub seconds_per_depth: Option<f64>,
    /// Children generated per second over `recent`.
    pub children_per_second: Option<f64>,
    /// The largest peak resident memory any depth logged, in bytes.
    pub peak_rss: Option<u64>,
    /// Bytes of the files in the folder.
    pub folder_bytes: u64,
    /// Bytes free on the folder's file system (Unix only).
    pub disk_free: Option<u64>,
    /// Whether a process holds the run's lock.
    pub running: bool,
    /// That process's id, when the lock file says it.
    pub pid: Option<u32>,
    /// Whether `best-replay.txt` is there.
    pub best_replay: bool,
    /// The depth being computed, when a process holds the run and has
    /// depths left: the last complete depth + 1 (the search writes no
    /// finer progress to the folder).
    pub in_progress: Option<u32>,
    /// Seconds to the max depth at `seconds_per_depth` (the pace over the
    /// newest depths times the depths left; 0 for a finished run), null
    /// without a max depth or a pace.
    pub eta_s: Option<f64>,
    /// Seconds since the manifest was last written (the end of the last
    /// complete depth, or the start of the run or resume), when a depth is
    /// in progress.
    pub in_progress_s: Option<f64>,
}

/// The status of the run in `dir`.
pub fn status(dir: &Path) -> Result<Status, RunError> {
    let m = read_manifest(dir)?;
    let held = crate::folder::holder(dir)?;
    let from = m.depths.len().saturating_sub(RECENT);
    let recent: Vec<RecentDepth> = m.depths[from..]
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let before = (from + i)
                .checked_sub(1)
                .map(|j| m.depths[j].elapsed_s)
                .filter(|&e| e <= s.elapsed_s);
            let seconds = match (s.phases, before) {
                (Some(p), _) => p.total(),
                (None, Some(e)) => s.elapsed_s - e,
                (None, None) => s.elapsed_s,
            };
            RecentDepth {
                depth: s.depth,
                seconds,
                children: s.children,
            }
        })
        .collect();
    let seconds: f64 = recent.iter().map(|r| r.seconds).sum();
    let children: u64 = recent.iter().map(|r| r.children).sum();
    let (seconds_per_depth, children_per_second) = match (recent.len(), seconds > 0.0) {
        (0, _) => (None, None),
        (n, true) => (Some(seconds / n as f64), Some(children as f64 / seconds)),
        (n, false) => (Some(seconds / n as f64), None),
    };
    let mut folder_bytes = 0;
    for entry in fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        folder_bytes += entry.metadata().map_or(0, |md| md.len());
    }
    let max_depth = m.plan.map(|p| p.max_depth);
    let in_progress = (held.is_some() && !m.exhausted && max_depth.is_none_or(|d| m.depth < d))
        .then_some(m.depth + 1);
    let eta_s = match (max_depth, seconds_per_depth) {
        _ if m.exhausted => Some(0.0),
        (Some(max), Some(pace)) => Some(f64::from(max.saturating_sub(m.depth)) * pace),
        (Some(max), None) if m.depth >= max => Some(0.0),
        _ => None,
    };
    let in_progress_s = in_progress.and_then(|_| {
        let written = fs::metadata(super::manifest_path(dir))
            .ok()?
            .modified()
            .ok()?;
        Some(written.elapsed().unwrap_or_default().as_secs_f64())
    });
    let ev = &m.settings.evaluator;
    Ok(Status {
        width: m.settings.width,
        enemy: m.settings.enemy.to_string(),
        net: ev.get("net").and_then(|v| v.as_str()).map(String::from),
        quiescent: ev.get("quiescent").and_then(|v| v.as_u64()),
        chain_step_cost: ev.get("chain_step_cost").and_then(|v| v.as_f64()),
        from: m.settings.start.as_ref().map(|s| s.at),
        lineage_cap: m.settings.lineage.map(|c| c.to_string()),
        depth: m.depth,
        max_depth,
        exhausted: m.exhausted,
        best_score: m.best.score,
        best_depth: m.best.depth,
        cells: Cells::of(
            &m.depths
                .iter()
                .map(|s| (s.depth, s.best_score))
                .collect::<Vec<_>>(),
        ),
        common_ancestor: m.depths.last().and_then(|s| s.common_ancestor),
        recent,
        seconds_per_depth,
        children_per_second,
        peak_rss: m.depths.iter().filter_map(|s| s.peak_rss).max(),
        folder_bytes,
        disk_free: disk_free(dir),
        running: held.is_some(),
        pid: held.flatten(),
        best_replay: super::best_replay_path(dir).exists(),
        in_progress,
        eta_s,
        in_progress_s,
    })
}

/// Bytes free for an unprivileged user on the file system holding `dir`:
/// the disk whose mount point is the longest prefix of the folder's path,
/// through `sysinfo` (every system it knows).
fn disk_free(dir: &Path) -> Option<u64> {
    let path = dir.canonicalize().ok()?;
    let disks = sysinfo::Disks::new_with_refreshed_list();
    disks
        .iter()
        .filter(|d| path.starts_with(d.mount_point()))
        .max_by_key(|d| d.mount_point().as_os_str().len())
        .map(|d| d.available_space())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_four_a_piece_less_ten_a_line_and_drift_over_the_newest_depths() {
        assert_eq!(Cells::of(&[]), None);
        // 0.4 lines a piece: level.
        let level: Vec<(u32, u16)> = (1..=300).map(|d| (d, (d * 2 / 5) as u16)).collect();
        let c = Cells::of(&level).unwrap();
        assert_eq!((c.now, c.over, c.gained), (0, DRIFT, 0));
        assert!((c.lines_per_piece - 0.4).abs() < 1e-12);
        // 0.3 lines a piece after depth 200: 1 cell a piece more.
        let rising: Vec<(u32, u16)> = (1..=300)
            .map(|d| {
                (
                    d,
                    if d <= 200 {
                        d * 2 / 5
                    } else {
                        80 + (d - 200) * 3 / 10
                    } as u16,
                )
            })
            .collect();
        let c = Cells::of(&rising).unwrap();
        assert_eq!((c.now, c.over, c.gained), (4 * 300 - 10 * 110, 100, 100));
        assert!((c.lines_per_piece - 0.3).abs() < 1e-12);
        // A best score lower than the one DRIFT depths before: cells gained
        // and lines lost, not an overflow.
        let c = Cells::of(&[(100, 40), (200, 39)]).unwrap();
        assert_eq!((c.now, c.over, c.gained), (800 - 390, 100, 410));
        assert!((c.lines_per_piece + 0.01).abs() < 1e-12);
        // A short run, or one from a game's well: its own depths, the whole game's cells.
        let c = Cells::of(&[(8000, 3195), (8010, 3199)]).unwrap();
        assert_eq!((c.now, c.over, c.gained), (4 * 8010 - 10 * 3199, 10, 0));
    }
}
