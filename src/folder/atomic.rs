//! Writing a file so that a crash at any moment leaves either the old file
//! or the whole new one: a temporary name in the same folder, fsync,
//! rename, then fsync the folder.
//!
//! The temporary name carries the process id (`NAME.tmp-PID`), so two
//! processes writing the same file never write into each other's
//! temporary file; whatever a crash leaves behind is found by
//! [`is_temporary`] and removed by the next process that locks the folder.
//!
//! Every write here (and every log line of [`json`](super::json)) holds
//! the process's write gate, shared, from its temporary file to its
//! rename; [`close_gate`] takes it alone, so a process about to exit at
//! once (a command stopped by Ctrl-C) waits for the writes in progress and
//! starts no new one: it leaves no temporary file and no torn line.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

/// The write gate (see the module doc).
static GATE: RwLock<()> = RwLock::new(());

/// Holds the gate open for one write (a panicking writer does not close
/// it).
pub(crate) fn writing() -> RwLockReadGuard<'static, ()> {
    GATE.read().unwrap_or_else(|p| p.into_inner())
}

/// Closes the write gate: waits (at most `wait`) for the writes in
/// progress to finish, then holds off new ones for as long as the guard
/// lives, which a process about to exit keeps to its end. `None` when a
/// write outlasted `wait`.
pub fn close_gate(wait: Duration) -> Option<RwLockWriteGuard<'static, ()>> {
    let until = Instant::now() + wait;
    loop {
        match GATE.try_write() {
            Ok(guard) => return Some(guard),
            Err(std::sync::TryLockError::Poisoned(p)) => return Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) if Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(std::sync::TryLockError::WouldBlock) => return None,
        }
    }
}

/// The temporary name `path` is written under by this process.
fn temporary(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    path.with_file_name(name)
}

/// Whether a file name is one of [`write_atomic`]'s temporary names (of
/// any process).
pub fn is_temporary(name: &str) -> bool {
    name.rsplit_once(".tmp-")
        .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// Writes `data` to `path` atomically: a temporary file in the same folder,
/// fsynced, renamed into place, then the folder fsynced.
pub fn write_atomic(path: &Path, data: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |w| w.write_all(data))
}

/// Like [`write_atomic`], with the bytes streamed by `fill` into a buffered
/// writer on the temporary file, so they are never all in memory at once.
/// On an error the temporary file is removed (a full disk leaves nothing
/// behind).
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let _open = writing();
    let tmp = temporary(path);
    let written = (|| {
        let mut w = io::BufWriter::new(File::create(&tmp)?);
        fill(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    sync_folder(path);
    Ok(())
}

/// Persists a rename or removal in `path`'s folder. Opening a folder for
/// sync is not possible on every platform; failing to do so is not fatal.
pub(crate) fn sync_folder(path: &Path) {
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_carry_the_process_and_are_recognised() {
        let t = temporary(Path::new("/x/depth-00001.beam"));
        let name = t.file_name().unwrap().to_str().unwrap();
        assert_eq!(name, format!("depth-00001.beam.tmp-{}", std::process::id()));
        assert!(is_temporary(name));
        assert!(!is_temporary("depth-00001.beam"));
        assert!(!is_temporary("notes.tmp-"));
        assert!(!is_temporary("notes.tmp-x1"));
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let err = write_atomic_with(&path, |_| Err(io::Error::other("disk full")));
        assert!(err.is_err());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
