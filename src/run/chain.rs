//! The chain of depth files, checked: each file against the run, its
//! depth, the count the run recorded and the file before it, and the choice of
//! the depth a resume starts from.

use std::path::Path;

use super::store::DepthFile;
use super::{depth_path, Manifest, RunError, SNAPSHOTS_KEPT};

/// Checks depth `d`'s file against the run: its depth, run, link to the
/// file before (`previous`: that file's digest), entry count (`expected`,
/// when known), and every block's checksum. Returns the file.
pub(crate) fn check_depth(
    dir: &Path,
    d: u32,
    run: u64,
    previous: u64,
    expected: Option<u64>,
) -> Result<DepthFile, String> {
    let path = depth_path(dir, d);
    let name = path.display();
    let f = DepthFile::open(&path).map_err(|e| e.to_string())?;
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
    if let Some(expected) = expected.filter(|&e| e != f.len() as u64) {
        return Err(format!(
            "{name} has {} wells, the run recorded {expected}",
            f.len()
        ));
    }
    f.verify_checksums().map_err(|e| e.to_string())?;
    Ok(f)
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
    let run = manifest.settings.run_id();
    // Up the chain, to the first break.
    let mut previous = 0;
    let mut good = Vec::new();
    let mut broken: Option<(u32, String)> = None;
    for d in 0..=last {
        let expected = match d {
            0 => 1,
            _ => manifest.depths[d as usize - 1].kept,
        };
        match check_depth(dir, d, run, previous, Some(expected)) {
            Ok(f) => {
                previous = f.digest();
                good.push(f.len());
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
    for d in (0..good.len() as u32).rev() {
        if d + SNAPSHOTS_KEPT <= last {
            break;
        }
        let len = good[d as usize];
        if let Err(e) = DepthFile::open(&depth_path(dir, d)).and_then(|f| f.verify()) {
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
