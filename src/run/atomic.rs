//! Writing a file so that a crash at any moment leaves either the old file
//! or the whole new one: a temporary name in the same folder, fsync,
//! rename, then fsync the folder.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

/// Writes `data` to `path` atomically: a temporary file in the same folder,
/// fsynced, renamed into place, then the folder fsynced.
pub fn write_atomic(path: &Path, data: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |w| w.write_all(data))
}

/// Like [`write_atomic`], with the bytes streamed by `fill` into a buffered
/// writer on the temporary file, so they are never all in memory at once.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    {
        let mut w = io::BufWriter::new(File::create(&tmp)?);
        fill(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    }
    fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        // Persist the rename itself. Opening a folder for sync is not
        // possible on every platform; failing to do so is not fatal.
        if let Ok(d) = File::open(if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        }) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}
