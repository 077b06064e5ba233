//! Checking a whole run folder, for `hatetris verify`: everything a resume
//! checks, and what only a full read can (every block decoded, every well
//! against its score, the figures the manifest and the log record against
//! the files), reported as a list of problems rather than stopping at the
//! first.
//!
//! What a history snapshot holds is the search's business, so the caller
//! checks those through a closure, as for a resume.

use std::fs;
use std::path::Path;

use super::{
    best_from_files, best_replay_path, check_depth, digests, histogram, log_path, no_digests,
    read_log, read_manifest_file, snapshot_path, DepthStats, Manifest, MANIFEST_VERSION,
    SNAPSHOTS_KEPT,
};
use crate::folder::atomic;
use crate::place::lines_cleared;
use crate::run::shards::{read_shard_manifest, shard_dir, Depth};

/// What [`verify`] found.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// The last depth of the manifest.
    pub depth: u32,
    /// Depth files read in full.
    pub files: u32,
    /// Wells read.
    pub wells: u64,
    /// What is wrong: the run would not resume, or would resume wrongly.
    pub problems: Vec<String>,
    /// What is odd but harmless (left by a kill, and cleaned or rewritten
    /// by the next resume).
    pub notes: Vec<String>,
}

impl Findings {
    /// Whether nothing is wrong.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// A snapshot checker: `(depth, bytes, entries)` to why it is wrong.
pub type SnapshotCheck<'a> = &'a dyn Fn(u32, &[u8], usize) -> Result<(), String>;

/// Checks the run in `dir`. `snapshot` checks a history snapshot, for an
/// adversary that keeps one (`None`: no snapshots expected). Only an
/// unreadable manifest is an `Err`; everything else is in the findings. A log
/// that does not hold what the manifest recorded is a problem, and the
/// checks that need its figures (the counts and histograms of the depth
/// files, the best game) are then left out.
pub fn verify(dir: &Path, snapshot: Option<SnapshotCheck>) -> Result<Findings, super::RunError> {
    let mut manifest = read_manifest_file(dir)?;
    let mut found = Findings {
        depth: manifest.depth,
        ..Findings::default()
    };
    if manifest.version == MANIFEST_VERSION {
        match read_log(dir, &manifest) {
            Ok(depths) => manifest.depths = depths,
            Err(why) => found.problems.push(format!(
                "log.jsonl: {why}; a resume refuses the run, whose per-depth figures it holds"
            )),
        }
    }
    let missing = super::shards::missing(dir, manifest.shards);
    match missing.first() {
        None => check_depths(dir, &manifest, &mut found),
        // Written on other machines: checked once gathered.
        Some(first) => found.problems.push(format!(
            "{} shard folder{} of {} (shard-{first:04} first) {} not here: the depth files are checked in a folder that holds every shard's (copy them in)",
            missing.len(),
            if missing.len() == 1 { "" } else { "s" },
            manifest.shards.map_or(0, |s| s.count()),
            if missing.len() == 1 { "is" } else { "are" },
        )),
    }
    let root = match manifest.settings.root_best() {
        Ok(root) => Some(root),
        Err(e) => {
            found
                .problems
                .push(format!("the run's start (manifest.json): {e}"));
            None
        }
    };
    if let Some(root) = root.filter(|_| found.problems.is_empty()) {
        match best_from_files(dir, manifest.shards, root, &manifest.depths) {
            Ok(best) if best == manifest.best => {}
            Ok(best) => found.problems.push(format!(
                "the manifest's best game (score {} at depth {}) is not the files' (score {} at depth {})",
                manifest.best.score, manifest.best.depth, best.score, best.depth
            )),
            Err(e) => found.problems.push(e.to_string()),
        }
    }
    if let Some(check) = snapshot {
        check_snapshots(dir, &manifest, check, &mut found);
    }
    check_log(dir, &manifest, &mut found);
    check_replay(dir, &manifest, &mut found);
    check_strays(dir, &manifest, &mut found);
    if missing.is_empty() {
        check_shards(dir, &manifest, &mut found);
    }
    Ok(found)
}

/// The chain, every block, every well, and the manifest's figures: the
/// depths in parallel (each needs only its own file and the digest of the
/// one before), their problems reported in depth order.
fn check_depths(dir: &Path, manifest: &Manifest, found: &mut Findings) {
    use rayon::prelude::*;
    let run = manifest.settings.run_id();
    let results: Vec<(Vec<String>, u64, Vec<String>)> = (manifest.root()..=manifest.depth)
        .into_par_iter()
        .map(|d| check_one_depth(dir, manifest, run, d))
        .collect();
    for (problems, wells, notes) in results {
        found.files += u32::from(wells > 0);
        found.wells += wells;
        found.problems.extend(problems);
        found.notes.extend(notes);
    }
}

/// One depth's problems, its wells (0 when it could not be read), and
/// notes. Without the depth's stats (an unreadable log), its count and
/// histogram are not checked.
fn check_one_depth(
    dir: &Path,
    manifest: &Manifest,
    run: u64,
    d: u32,
) -> (Vec<String>, u64, Vec<String>) {
    let mut problems = Vec::new();
    let stats = manifest.stats_at(d);
    let expected = manifest.kept_at(d);
    // The link is checked against the file before as it is, so that one
    // bad file is one problem and the files after it are still checked.
    let shards = manifest.shards;
    let root = manifest.root();
    let previous = match d - root {
        0 => Some(no_digests(shards)),
        // A damaged root is rewritten by a resume (a note below), so
        // the depth after it is not held against it.
        1 => check_depth(dir, root, shards, run, &no_digests(shards), Some(1))
            .ok()
            .map(|f| digests(&f)),
        _ => Depth::open(dir, d - 1, shards).ok().map(|f| digests(&f)),
    };
    if let Some(previous) = previous {
        if let Err(why) = check_depth(dir, d, shards, run, &previous, expected) {
            problems.push(format!("depth {d}: {why}"));
        }
    }
    // The root depends on the settings alone, and a resume rewrites it
    // (a sharded run's is its shards' first file, checked as any other).
    if d == root && !problems.is_empty() && shards.is_none() {
        return (
            Vec::new(),
            0,
            vec![
                "the root depth file is missing or damaged (a kill before it was written); a resume rewrites it"
                    .to_string(),
            ],
        );
    }
    let entries = match Depth::open(dir, d, shards).and_then(|f| f.read_all()) {
        Ok(e) => e,
        Err(e) => {
            if problems.is_empty() {
                problems.push(format!("depth {d}: {e}"));
            }
            return (problems, 0, Vec::new());
        }
    };
    let name = format!("depth {d}");
    if let Some(i) = (1..entries.len()).find(|&i| entries[i - 1].well >= entries[i].well) {
        problems.push(format!("{name}: wells out of order at entry {i}"));
    }
    if let Some((i, e)) = entries
        .iter()
        .enumerate()
        .find(|(_, e)| lines_cleared(0, d, e.well.cells()) != Some(u32::from(e.score)))
    {
        problems.push(format!(
            "{name}: entry {i} has {} cells, which {d} pieces and {} lines cannot give",
            e.well.cells(),
            e.score
        ));
    }
    if let Some(s) = stats {
        if histogram(entries.iter().map(|e| e.score)) != s.histogram {
            problems.push(format!(
                "{name}: the scores in the file differ from the histogram the run recorded"
            ));
        }
    }
    (problems, entries.len() as u64, Vec::new())
}

/// The newest snapshots: the newest depth's must be there and match.
fn check_snapshots(dir: &Path, manifest: &Manifest, check: SnapshotCheck, found: &mut Findings) {
    let (root, last) = (manifest.root(), manifest.depth);
    for d in (root..=last).rev().take(SNAPSHOTS_KEPT as usize) {
        let path = snapshot_path(dir, d);
        // The count the run recorded, or without it the file's.
        let len = manifest.kept_at(d).map(|k| k as usize);
        let Some(len) = len.or_else(|| Depth::open(dir, d, manifest.shards).ok().map(|f| f.len()))
        else {
            continue;
        };
        match fs::read(&path) {
            Ok(bytes) => {
                if let Err(why) = check(d, &bytes, len) {
                    found
                        .problems
                        .push(format!("depth {d}'s history snapshot: {why}"));
                }
            }
            // The root's history depends on the settings alone; a resume
            // makes it.
            Err(_) if d == root => found.notes.push(format!(
                "depth {d}'s history snapshot is missing (a kill before it was written); a resume makes it"
            )),
            Err(_) if d == last => found
                .problems
                .push(format!("depth {d}'s history snapshot is missing")),
            Err(_) => {}
        }
    }
}

/// The log. Of a version 2 manifest: one line per depth of the manifest,
/// each the manifest's (a resume rewrites it). Otherwise its part the
/// manifest recorded was read already; what follows is a kill's leftover.
fn check_log(dir: &Path, manifest: &Manifest, found: &mut Findings) {
    if manifest.version == MANIFEST_VERSION {
        let len = fs::metadata(log_path(dir)).map_or(0, |m| m.len());
        if len > manifest.log.bytes {
            found.notes.push(format!(
                "log.jsonl holds {} bytes after the manifest's last depth (left by a kill); a resume drops them",
                len - manifest.log.bytes
            ));
        }
        return;
    }
    let depths: &[DepthStats] = &manifest.depths;
    let text = fs::read_to_string(log_path(dir)).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let parsed: Vec<Option<DepthStats>> =
        lines.iter().map(|l| serde_json::from_str(l).ok()).collect();
    let same = lines.len() == depths.len()
        && parsed
            .iter()
            .zip(depths)
            .all(|(p, s)| p.as_ref().is_some_and(|p| p.depth == s.depth));
    if !same {
        found.notes.push(format!(
            "log.jsonl has {} lines ({} unreadable) for {} depths; a resume rewrites it from the manifest",
            lines.len(),
            parsed.iter().filter(|p| p.is_none()).count(),
            depths.len()
        ));
    }
}

/// The best game's replay, if written: it must play to a score.
fn check_replay(dir: &Path, manifest: &Manifest, found: &mut Findings) {
    let Ok(text) = fs::read_to_string(best_replay_path(dir)) else {
        return;
    };
    let keys = match crate::replay::decode(text.trim()) {
        Ok(keys) => keys,
        Err(e) => {
            found
                .problems
                .push(format!("best-replay.txt does not decode: {e}"));
            return;
        }
    };
    let trace = crate::replay::play(&keys, manifest.settings.enemy);
    if trace.score != u32::from(manifest.best.score) {
        found.notes.push(format!(
            "best-replay.txt scores {} against {}, the manifest's best is {} (it is rewritten when a search ends)",
            trace.score, manifest.settings.enemy, manifest.best.score
        ));
    }
}

/// A sharded run's shard manifests: each names the run and the layout, and
/// a depth at least the run's (a shard may be one ahead: a kill after it
/// wrote and before the run's manifest named the depth); and the
/// temporaries a kill left in a shard's folder.
fn check_shards(dir: &Path, manifest: &Manifest, found: &mut Findings) {
    let Some(shards) = manifest.shards else {
        return;
    };
    let run = manifest.settings.run_id();
    for s in 0..shards.count() {
        match read_shard_manifest(dir, s) {
            Err(why) => found.problems.push(why),
            Ok(m) if m.run != run || m.shards != shards => found.problems.push(format!(
                "shard {s}'s manifest names another run or layout (run {:016x}, {}; this run {run:016x}, {shards})",
                m.run, m.shards
            )),
            Ok(m) if m.depth < manifest.depth => found.problems.push(format!(
                "shard {s}'s manifest says it wrote depth {} last, behind the run's {}",
                m.depth, manifest.depth
            )),
            Ok(_) => {}
        }
        let folder = shard_dir(dir, s);
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for name in entries.filter_map(|e| e.ok()?.file_name().into_string().ok()) {
            if atomic::is_temporary(&name) {
                found.notes.push(format!(
                    "{}/{name} is a temporary file left by a kill; the shard's worker removes it when the run goes on",
                    folder.display()
                ));
            }
        }
    }
}

/// Files a kill leaves: temporaries, and depths past the manifest's.
fn check_strays(dir: &Path, manifest: &Manifest, found: &mut Findings) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    for name in names {
        if atomic::is_temporary(&name) {
            found.notes.push(format!(
                "{name} is a temporary file left by a kill; a resume removes it"
            ));
        }
        let past = name
            .strip_prefix("depth-")
            .and_then(|n| n.strip_suffix(".beam"))
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|&d| d > manifest.depth);
        if past.is_some() {
            found.notes.push(format!(
                "{name} is past the manifest's last depth {} (left by a kill); a resume overwrites it",
                manifest.depth
            ));
        }
    }
}
