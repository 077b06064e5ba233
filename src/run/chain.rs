//! The chain of depth files, checked: each file against the run, its
//! depth, the count the run recorded and the file before it, and the choice of
//! the depth a resume starts from.

use std::path::Path;

use super::shards::{Depth, Shards};
use super::{Manifest, RunError, SNAPSHOTS_KEPT};

/// Checks depth `d`'s file (a sharded run: each shard's file in `dir`)
/// against the run: its depth, run, link to the file before (`previous`:
/// that file's digest, by shard), entry count (`expected`, when known, of
/// all the files together, when `dir` holds every shard's), and every
/// block's checksum. Returns the depth. A shard whose folder `dir` lacks
/// (on another machine) is left to its own process, which reads the file
/// when the run goes on.
pub(crate) fn check_depth(
    dir: &Path,
    d: u32,
    shards: Option<Shards>,
    run: u64,
    previous: &[u64],
    expected: Option<u64>,
) -> Result<Depth, String> {
    let depth = Depth::open_present(dir, d, shards).map_err(|e| e.to_string())?;
    for (f, &previous) in depth.files().iter().zip(previous) {
        let name = f.path().display();
        if f.depth() != d {
            return Err(format!("{name} holds depth {}, not {d}", f.depth()));
        }
        let link = f.link();
        if link.run != run {
            return Err(format!(
                "{name} belongs to another run (run {:016x}, this run {run:016x})",
                link.run
            ));
        }
        if link.previous != previous {
            return Err(format!(
                "{name} does not follow the file of depth {} (an older or foreign file: it records {:016x}, the file there has {previous:016x})",
                d.saturating_sub(1),
                link.previous
            ));
        }
        f.verify_checksums().map_err(|e| e.to_string())?;
    }
    let expected = expected.filter(|_| depth.is_complete());
    if let Some(expected) = expected.filter(|&e| e != depth.len() as u64) {
        let what = match shards {
            None => depth.files()[0].path().display().to_string(),
            Some(_) => format!("depth {d}'s shard files"),
        };
        return Err(format!(
            "{what} hold{} {} wells, the run recorded {expected}",
            if shards.is_none() { "s" } else { "" },
            depth.len()
        ));
    }
    Ok(depth)
}

/// The digests a depth's successor names, by shard; for the root's
/// predecessor, zeros.
pub(crate) fn digests(depth: &Depth) -> Vec<u64> {
    depth.files().iter().map(|f| f.digest()).collect()
}

/// The `previous` of every file of the root depth.
pub(crate) fn no_digests(shards: Option<Shards>) -> Vec<u64> {
    vec![0; shards.map_or(1, |s| s.count() as usize)]
}

/// The depth to resume from, with its entry count and history: the newest
/// depth, at most the manifest's last, such that it and every depth below
/// form an intact chain ([`check_depth`]), whose blocks all decode, and for
/// which `history(depth, entries)` gives a value (the snapshot the search
/// needs, or `Some(())` when it needs none).
///
/// A resume can start from any of the [`SNAPSHOTS_KEPT`] newest depths
/// (the ones with a history snapshot), so it falls back over at most
/// `SNAPSHOTS_KEPT - 1` damaged newest files (a disk's fault, never a
/// crash's), telling `fell_back(depth, why)` of each. A break lower down is
/// refused ([`RunError::BrokenChain`]): searching on would overwrite files
/// that may be good once the broken one is restored.
pub(crate) fn last_good_depth<T>(
    dir: &Path,
    manifest: &Manifest,
    mut history: impl FnMut(u32, usize) -> Option<T>,
    mut fell_back: impl FnMut(u32, &str),
) -> Result<(u32, usize, T), RunError> {
    let last = manifest.depth;
    let root = manifest.root();
    let run = manifest.settings.run_id();
    let shards = manifest.shards;
    // Up the chain, to the first break.
    let mut previous = no_digests(shards);
    // Depths whose chain holds, from the root.
    let mut good = 0;
    let mut broken: Option<(u32, String)> = None;
    for d in root..=last {
        let expected = manifest.kept_at(d);
        match check_depth(dir, d, shards, run, &previous, expected) {
            Ok(depth) => {
                previous = digests(&depth);
                good += 1;
            }
            Err(why) => {
                broken = Some((d, why));
                break;
            }
        }
    }
    if let Some((b, why)) = &broken {
        // Resuming below a break at `b` starts from `b - 1`.
        if b + SNAPSHOTS_KEPT <= last + 1 {
            return Err(RunError::BrokenChain {
                dir: dir.to_path_buf(),
                why: why.clone(),
            });
        }
        for d in (*b..=last).rev() {
            match d == *b {
                true => fell_back(d, why),
                false => fell_back(d, &format!("above the break at depth {b}")),
            }
        }
    }
    let mut why = broken.map(|(_, why)| why).unwrap_or_default();
    for d in (root..root + good).rev() {
        if d + SNAPSHOTS_KEPT <= last {
            break;
        }
        // The count the run recorded (the files here may be some of the
        // shards' only), which the chain checked when they were all here.
        let len = manifest
            .kept_at(d)
            .expect("the log holds every depth of the manifest") as usize;
        if let Err(e) = Depth::open_present(dir, d, shards).and_then(|f| f.verify()) {
            why = e.to_string();
            fell_back(d, &why);
            continue;
        }
        match history(d, len) {
            Some(h) => return Ok((d, len, h)),
            None => {
                why = "history snapshot missing or damaged".into();
                fell_back(d, &why);
            }
        }
    }
    Err(RunError::NothingToResume {
        dir: dir.to_path_buf(),
        why,
    })
}
