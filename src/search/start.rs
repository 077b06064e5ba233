//! The ways into a run folder: a new run ([`start`], or [`start_from`] a
//! game), one that goes on from its last complete depth ([`resume`]), and
//! a check of the whole folder ([`verify`]). Each settles where the depth
//! loop begins (its depth, its beam's history) and hands over to it
//! ([`DepthLoop`]).
//!
//! A run from a game ([`run::Start`]) begins at the game's piece count,
//! its root's history the game's wells before it ([`root_history`]), so
//! the enemy's loop rule (and Brzustowski's state) counts the whole game;
//! sharded or not (the sharded search's processes get that history in the
//! snapshot the depth loop sends them, and write the root's shard files).

use std::path::Path;

use super::adversary::BeamHistory;
use super::depth_loop::DepthLoop;
use super::{Adversary, Observer, Options, RunResult, Search, SearchError};
use crate::run::shards::Shards;
use crate::run::{self, Best, Prefix, RunError, Settings, Start};

/// Starts a new run in `dir` (which must be new or empty) from the empty
/// well.
pub fn start(
    dir: &Path,
    search: &Search,
    opts: &Options,
    observer: &dyn Observer,
) -> Result<RunResult, SearchError> {
    start_from(dir, search, None, opts, observer)
}

/// Starts a new run in `dir` (which must be new or empty) from `from`: the
/// well a game reached, with the game's history (`None`: the empty well,
/// as [`start`]). The same for the sharded search ([`Options::expander`]):
/// its workers write the root's shard files at the game's depth (their
/// [`Shard`](crate::distributed::Shard) must carry this run's settings id
/// and root), and each process decodes the root's history, the game's
/// wells included, from the snapshot the depth loop sends, as at any depth.
pub fn start_from(
    dir: &Path,
    search: &Search,
    from: Option<&Start>,
    opts: &Options,
    observer: &dyn Observer,
) -> Result<RunResult, SearchError> {
    check_lineage(search, opts)?;
    let files = search.evaluator.files();
    let shards = opts.expander.as_ref().and_then(|e| e.shards());
    let settings = Settings {
        start: from.cloned(),
        ..search.settings()
    };
    check_workers(dir, &settings, opts)?;
    let prefix = settings.prefix().map_err(RunError::from)?;
    let root = prefix.as_ref().map_or(Best::START, Prefix::best);
    let (lock, manifest) = run::create(dir, settings, opts.plan(), shards, &files, root)?;
    let history = root_history(search.adversary, prefix.as_ref());
    if let Some(h) = &history {
        run::write_snapshot(dir, root.depth, &h.to_snapshot(root.depth))?;
    }
    DepthLoop::new(dir, lock, manifest, history, *search, opts, observer)?.run()
}

/// A lineage cap needs each entry's ancestry, which only an adversary that
/// keeps a history has, and the kernel (the sharded search does not cut by
/// lineage).
fn check_lineage(search: &Search, opts: &Options) -> Result<(), SearchError> {
    let Some(cap) = search.lineage else {
        return Ok(());
    };
    if !search.adversary.keeps_history() {
        return Err(SearchError::Lineage(format!(
            "the lineage cap {cap} needs an enemy that keeps a history (hatetris or brzustowski), not {}",
            search.adversary.kind()
        )));
    }
    if opts.expander.is_some() {
        return Err(SearchError::Lineage(format!(
            "the lineage cap {cap} is not available to the sharded search"
        )));
    }
    Ok(())
}

/// The history of a run's root, for an adversary that keeps one: the
/// empty well's, or the game's before its root (`prefix`).
fn root_history(adversary: Adversary, prefix: Option<&Prefix>) -> Option<BeamHistory> {
    let before = prefix.map_or(&[][..], Prefix::before_root);
    adversary
        .keeps_history()
        .then(|| BeamHistory::root(adversary, before))
}

/// Continues the run in `dir` from its last complete depth, once the depth
/// files check out against the manifest and each other (see
/// [`run`]'s chain).
pub fn resume(
    dir: &Path,
    search: &Search,
    opts: &Options,
    observer: &dyn Observer,
) -> Result<RunResult, SearchError> {
    check_lineage(search, opts)?;
    let (lock, mut manifest) = run::open_to_resume(dir)?;
    // The start is the run's own: a resume never asks for one.
    let asked = Settings {
        start: manifest.settings.start.clone(),
        ..search.settings()
    };
    run::check_settings(dir, &manifest.settings, &asked)?;
    check_layout(dir, manifest.shards, opts)?;
    if manifest.shards.is_some() {
        check_workers(dir, &manifest.settings, opts)?;
    }
    // A folder from before runs kept their files gets them now.
    run::keep_files(dir, &search.evaluator.files())?;
    manifest.plan = Some(opts.plan());
    let adversary = search.adversary;
    let root_depth = manifest.root();
    // The root's history depends on the settings alone: made afresh (a
    // run from a game plays the game again).
    let settings = &manifest.settings;
    let root = || -> Result<Option<BeamHistory>, RunError> {
        Ok(root_history(adversary, settings.prefix()?.as_ref()))
    };
    // A sharded run killed before its first depth was recorded goes on from
    // its root, which its shards write again, as at its start.
    let (d, len, history) = if manifest.shards.is_some() && manifest.depth == root_depth {
        (root_depth, 1, root()?)
    } else {
        let root = root()?;
        run::last_good_depth(
            dir,
            &manifest,
            |d, len| match (adversary.keeps_history(), d) {
                (false, _) => Some(None),
                (true, d) if d == root_depth => Some(root.clone()),
                (true, _) => Some(Some(BeamHistory::from_snapshot(
                    adversary,
                    &run::read_snapshot(dir, d)?,
                    d,
                    len,
                )?)),
            },
            |d, why| observer.fell_back(d, why),
        )?
    };
    manifest.exhausted = false;
    // The best game by the one order, from the files (newer depths may
    // have been dropped); a sharded run whose other shards are on other
    // machines keeps its manifest's, unless it was in a dropped depth.
    let elsewhere = !run::shards::missing(dir, manifest.shards).is_empty();
    if !elsewhere || manifest.best.depth > d {
        let root = manifest.settings.root_best().map_err(RunError::from)?;
        let upto = (d - root_depth) as usize;
        manifest.best = run::best_from_files(dir, manifest.shards, root, &manifest.depths[..upto])?;
    }
    run::rewind(dir, &mut manifest, d)?;
    observer.resumed(d, len);
    DepthLoop::new(dir, lock, manifest, history, *search, opts, observer)?.run()
}

/// Checks that a run sharded as `run` goes on with the same layout: its
/// shards' files are split by the shard count. (A run with one file per
/// depth may go on sharded: the depth loop then writes its files, as it
/// did when it began.)
fn check_layout(dir: &Path, run: Option<Shards>, opts: &Options) -> Result<(), SearchError> {
    let asked = opts.expander.as_ref().and_then(|e| e.shards());
    match (run, asked) {
        (Some(run), None) => Err(SearchError::Layout(format!(
            "{} is a sharded run ({run}): resume it with --workers {} on its {} process{}",
            dir.display(),
            run.workers,
            run.processes,
            if run.processes == 1 { "" } else { "es" }
        ))),
        (Some(run), Some(asked)) if run != asked => Err(SearchError::Layout(format!(
            "{} is sharded over {run}, not {asked}: resume it with the same --workers and processes",
            dir.display()
        ))),
        _ => Ok(()),
    }
}

/// Checks that the sharded search's workers, if they write shard files,
/// write them for the run of `settings` (its identity, a start included,
/// and its root: [`DepthExpander::run`](super::DepthExpander::run)), before
/// anything is written: files with another run's id or chain would not
/// resume.
fn check_workers(dir: &Path, settings: &Settings, opts: &Options) -> Result<(), SearchError> {
    let this = (settings.run_id(), settings.root());
    let theirs = opts.expander.as_ref().and_then(|e| e.run());
    match theirs.filter(|&t| t != this) {
        None => Ok(()),
        Some((id, root)) => Err(SearchError::Layout(format!(
            "the sharded search's workers write the files of another run (id {id:016x}, root depth {root}) than {}'s (id {:016x}, root depth {}): give every process the run's settings and start",
            dir.display(),
            this.0,
            this.1
        ))),
    }
}

/// Checks the whole run in `dir` ([`run::verify`]), its history snapshots
/// read as its adversary's.
pub fn verify(dir: &Path) -> Result<run::verify::Findings, RunError> {
    let settings = run::read_manifest_file(dir)?.settings;
    let adversary = Adversary::new(settings.enemy);
    let check = move |d: u32, bytes: &[u8], len: usize| match BeamHistory::from_snapshot(
        adversary, bytes, d, len,
    ) {
        Some(_) => Ok(()),
        None => Err("damaged, or not this depth's".to_string()),
    };
    let snapshot: Option<run::verify::SnapshotCheck> = match adversary.keeps_history() {
        true => Some(&check),
        false => None,
    };
    run::verify::verify(dir, snapshot)
}
