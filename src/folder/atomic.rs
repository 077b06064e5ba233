//! Writing a file so that a crash at any moment leaves either the old file
//! or the whole new one: a temporary name in the same folder, fsync,
//! rename, then fsync the folder.
//!
//! The temporary name carries the process id (`NAME.tmp-PID`), so two
//! processes writing the same file never write into each other's
//! temporary file; whatever a crash leaves behind is found by
//! [`is_temporary`] and removed by the next process that locks the folder.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

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
