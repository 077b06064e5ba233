//! The run folder's life: its names, its creation, its opening to go on,
//! and what a resume reads or writes beside the manifest and the log (the
//! evaluator's files, the history snapshots, the settings compared, the
//! best game read back from the depth files).
//!
//! Every step takes the folder's lock first ([`FolderLock`]) and clears a
//! crash's temporary files under it; each writes the manifest before
//! anything that depends on it, so a folder with anything of a run in it
//! has a manifest and resumes.

use std::fs;
use std::path::Path;

use super::chain::check_depth;
use super::manifest::write_manifest;
use super::paths::{depth_path, manifest_path, snapshot_path};
use super::store::{self, Entry, Link};
use super::{read_manifest, shards, Best, DepthStats, Manifest, Plan, RunError, Settings};
use crate::folder::{self, atomic, io, lock_path, remove_temporaries, FolderLock};

/// History snapshots kept: the newest depths a resume can fall back to.
pub const SNAPSHOTS_KEPT: u32 = 3;

/// Starts a run folder, under its lock: refuses one that holds a run or
/// anything else, then writes the manifest (no depths yet) and the root
/// depth, `root` (the empty well, or the well of the game the run starts
/// from, [`Settings::start`]). The manifest comes first, so a folder with
/// anything of a run in it has a manifest and resumes. The evaluator's
/// `files` follow the manifest.
pub(crate) fn create(
    dir: &Path,
    settings: Settings,
    plan: Plan,
    shards: Option<shards::Shards>,
    files: &[(String, Vec<u8>)],
    root: Best,
) -> Result<(FolderLock, Manifest), RunError> {
    folder::refuse_other(dir, folder::Holds::Run)?;
    let lock = FolderLock::take(dir)?;
    if manifest_path(dir).exists() {
        return Err(RunError::AlreadyARun(dir.to_path_buf()));
    }
    remove_temporaries(dir)?;
    let lock_name = lock_path(dir);
    for entry in fs::read_dir(dir).map_err(io(dir))? {
        if entry.map_err(io(dir))?.path() != lock_name {
            return Err(RunError::NotEmpty(dir.to_path_buf()));
        }
    }
    let mut manifest = Manifest::new(settings, root);
    manifest.plan = Some(plan);
    manifest.shards = shards;
    write_manifest(dir, &manifest)?;
    keep_files(dir, files)?;
    // A sharded run's root is written by the worker that owns the empty
    // well, with the other shards' empty files, as any other depth.
    if shards.is_none() {
        write_root(dir, &manifest.settings, root)?;
    }
    Ok((lock, manifest))
}

/// Writes each of `files` into the folder (atomically) unless it already
/// holds those bytes.
pub(crate) fn keep_files(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), RunError> {
    for (name, bytes) in files {
        let path = dir.join(name);
        if fs::read(&path).ok().as_ref() != Some(bytes) {
            atomic::write_atomic(&path, bytes).map_err(io(&path))?;
        }
    }
    Ok(())
}

/// Opens a run folder to go on with it, under its lock: the manifest,
/// with the leftovers of a crash removed and the root depth rewritten if
/// it is missing or damaged (it depends on the settings alone, a start's
/// game included).
pub(crate) fn open_to_resume(dir: &Path) -> Result<(FolderLock, Manifest), RunError> {
    if !manifest_path(dir).exists() {
        folder::refuse_other(dir, folder::Holds::Run)?;
        return Err(RunError::NotARun(dir.to_path_buf()));
    }
    let lock = FolderLock::take(dir)?;
    let manifest = read_manifest(dir)?;
    remove_temporaries(dir)?;
    let run = manifest.settings.run_id();
    // (A sharded run's root is written by its shards' workers.)
    if manifest.shards.is_none() {
        let root = manifest.root();
        let root_ok =
            check_depth(dir, root, None, run, &[0], Some(1)).is_ok_and(|f| f.verify().is_ok());
        if !root_ok {
            write_root(dir, &manifest.settings, manifest.settings.root_best()?)?;
        }
    }
    Ok((lock, manifest))
}

/// Writes the root depth: `root`'s well alone, at its depth.
fn write_root(dir: &Path, settings: &Settings, root: Best) -> Result<(), RunError> {
    let entry = Entry {
        well: root.well.pack(),
        score: root.score,
    };
    let link = Link {
        run: settings.run_id(),
        previous: 0,
    };
    let p = depth_path(dir, root.depth);
    store::write_depth_file(&p, root.depth, link, 1, |_| entry).map_err(io(&p))?;
    Ok(())
}

/// Writes depth `depth`'s snapshot, keeping the last three (so that a
/// corrupt newest depth can fall back).
pub(crate) fn write_snapshot(dir: &Path, depth: u32, bytes: &[u8]) -> Result<(), RunError> {
    let path = snapshot_path(dir, depth);
    atomic::write_atomic(&path, bytes).map_err(io(&path))?;
    if depth >= SNAPSHOTS_KEPT {
        let _ = fs::remove_file(snapshot_path(dir, depth - SNAPSHOTS_KEPT));
    }
    Ok(())
}

/// Depth `depth`'s snapshot, if it can be read.
pub(crate) fn read_snapshot(dir: &Path, depth: u32) -> Option<Vec<u8>> {
    fs::read(snapshot_path(dir, depth)).ok()
}

/// Checks that a run recorded with `run` may go on with `asked`: the
/// settings compared by the folder's one rule ([`folder::differences`]),
/// and the first that differs named, the beam width before the enemy
/// before the evaluator's keys. The width and the enemy are shown as they
/// are named (`hatetris`, not `"hatetris"`), the evaluator's values as
/// its JSON holds them.
pub(crate) fn check_settings(dir: &Path, run: &Settings, asked: &Settings) -> Result<(), RunError> {
    let rank = |key: &str| match key {
        "width" => 0,
        "enemy" => 1,
        _ => 2,
    };
    let Some(first) = folder::differences(run, asked)
        .into_iter()
        .min_by_key(|d| rank(&d.key))
    else {
        return Ok(());
    };
    let bare = |value: String| serde_json::from_str::<String>(&value).unwrap_or(value);
    let (what, run, asked) = match first.key.strip_prefix("evaluator.") {
        Some(key) => (
            format!("the evaluator's {key} (weights, --quiescent or the terms' definition)"),
            first.recorded,
            first.asked,
        ),
        None => (
            match first.key.as_str() {
                "width" => "the beam width".to_string(),
                "enemy" => "the enemy".to_string(),
                other => format!("the {other}"),
            },
            bare(first.recorded),
            bare(first.asked),
        ),
    };
    Err(RunError::SettingsDiffer {
        dir: dir.to_path_buf(),
        what,
        run,
        asked,
    })
}

/// The best game among the root (`root`) and the depths listed, by
/// [`Best`]'s order: the highest score, then the shallowest depth, then
/// the first such entry in the depth file.
pub(crate) fn best_from_files(
    dir: &Path,
    shards: Option<shards::Shards>,
    root: Best,
    depths: &[DepthStats],
) -> Result<Best, RunError> {
    let mut best = root;
    for s in depths {
        if s.best_score > best.score {
            let all = shards::Depth::open(dir, s.depth, shards)?.read_all()?;
            if let Some(e) = all.iter().find(|e| e.score == s.best_score) {
                best = Best {
                    score: e.score,
                    depth: s.depth,
                    well: e.well,
                };
            }
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enemy::EnemyKind;
    use crate::evaluate::Identity;

    #[test]
    fn the_width_is_named_before_the_enemy_and_the_enemy_by_its_name() {
        let settings = |width, enemy| Settings {
            width,
            evaluator: Identity::default(),
            enemy,
            start: None,
            lineage: None,
        };
        let dir = Path::new("run");
        let run = settings(30, EnemyKind::Hatetris);
        assert!(check_settings(dir, &run, &run).is_ok());
        let both = check_settings(dir, &run, &settings(31, EnemyKind::Mild)).unwrap_err();
        assert!(
            both.to_string()
                .ends_with("the beam width differs (run has 30, asked for 31)"),
            "{both}"
        );
        let enemy = check_settings(dir, &run, &settings(30, EnemyKind::Mild)).unwrap_err();
        assert!(
            enemy
                .to_string()
                .ends_with("the enemy differs (run has hatetris, asked for mild)"),
            "{enemy}"
        );
    }
}
