//! The ways into a run folder: a new run ([`start`]), one that goes on
//! from its last complete depth ([`resume`]), and a check of the whole
//! folder ([`verify`]). Each settles where the depth loop begins (its
//! depth, its beam's history) and hands over to it ([`DepthLoop`]).

use std::path::Path;

use super::adversary::BeamHistory;
use super::depth_loop::DepthLoop;
use super::{Adversary, Observer, Options, RunResult, Search, SearchError};
use crate::run::shards::Shards;
use crate::run::{self, RunError};

/// Starts a new run in `dir` (which must be new or empty).
pub fn start(
    dir: &Path,
    search: &Search,
    opts: &Options,
    observer: &dyn Observer,
) -> Result<RunResult, SearchError> {
    let files = search.evaluator.files();
    let shards = opts.expander.as_ref().and_then(|e| e.shards());
    let (lock, manifest) = run::create(dir, search.settings(), opts.plan(), shards, &files)?;
    let history = search
        .adversary
        .keeps_history()
        .then(|| BeamHistory::root(search.adversary));
    if let Some(h) = &history {
        run::write_snapshot(dir, 0, &h.to_snapshot(0))?;
    }
    DepthLoop::new(dir, lock, manifest, history, *search, opts, observer)?.run()
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
    let (lock, mut manifest) = run::open_to_resume(dir)?;
    run::check_settings(dir, &manifest.settings, &search.settings())?;
    check_layout(dir, manifest.shards, opts)?;
    // A folder from before runs kept their files gets them now.
    run::keep_files(dir, &search.evaluator.files())?;
    manifest.plan = Some(opts.plan());
    let adversary = search.adversary;
    let root = || {
        adversary
            .keeps_history()
            .then(|| BeamHistory::root(adversary))
    };
    // A sharded run killed before its first depth was recorded goes on from
    // its root, which its shards write again, as at its start.
    let (d, len, history) = if manifest.shards.is_some() && manifest.depth == 0 {
        (0, 1, root())
    } else {
        run::last_good_depth(
            dir,
            &manifest,
            |d, len| match (adversary.keeps_history(), d) {
                (false, _) => Some(None),
                // The root's history depends on nothing: make it afresh.
                (true, 0) => Some(root()),
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
        manifest.best = run::best_from_files(dir, manifest.shards, &manifest.depths[..d as usize])?;
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
