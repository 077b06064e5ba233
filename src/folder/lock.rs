//! A folder's lock, and the leftovers a crash leaves that only the lock's
//! holder may remove.
//!
//! The lock is the kernel's (`flock` through `File::try_lock`), so it goes
//! with its process however that ends: a lock is never stale, and a killed
//! run resumes at once.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::{atomic, io, FolderError};

/// Path of the lock file.
pub fn lock_path(dir: &Path) -> PathBuf {
    dir.join("lock")
}

/// A folder held by this process, for as long as this lives.
///
/// An advisory lock (`flock`) on `DIR/lock`, which also holds the holder's
/// process id for the message a second process gets. The kernel drops the
/// lock when the process ends, however it ends, so a stale lock never
/// blocks a resume.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

impl FolderLock {
    /// Takes the folder's lock (creating the folder if needed), or says
    /// which process holds it.
    pub fn take(dir: &Path) -> Result<FolderLock, FolderError> {
        fs::create_dir_all(dir).map_err(io(dir))?;
        let path = lock_path(dir);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io(&path))?;
        // A lock can look held for a moment after its holder let it go: a
        // process that forks (to run a command) shares the lock file's
        // descriptor with its child until the child's exec closes it. So
        // a held lock is tried again for a tenth of a second before giving
        // up.
        let mut tries = 0;
        let taken = loop {
            match file.try_lock() {
                Err(fs::TryLockError::WouldBlock) if tries < 10 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                other => break other,
            }
        };
        match taken {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                return Err(FolderError::InUse {
                    dir: dir.to_path_buf(),
                    pid: text.trim().parse().ok(),
                });
            }
            Err(fs::TryLockError::Error(e)) => return Err(io(&path)(e).into()),
        }
        let pid = format!("{}\n", std::process::id());
        file.set_len(0)
            .and_then(|()| file.write_all(pid.as_bytes()))
            .map_err(io(&path))?;
        Ok(FolderLock { _file: file })
    }
}

/// Removes the temporary files a crash left in the folder (the caller
/// holds the lock, so no other process is writing them).
pub fn remove_temporaries(dir: &Path) -> Result<(), FolderError> {
    for entry in fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        if entry.file_name().to_str().is_some_and(atomic::is_temporary) {
            let p = entry.path();
            fs::remove_file(&p).map_err(io(&p))?;
        }
    }
    Ok(())
}

/// Whether a process holds the folder's lock, without taking it for more
/// than a moment: `Some(pid)` (the pid when the lock file says it) when
/// one does, `None` when the folder is free (or has no lock file).
pub fn holder(dir: &Path) -> Result<Option<Option<u32>>, FolderError> {
    let path = lock_path(dir);
    let mut file = match File::open(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        other => other.map_err(io(&path))?,
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(None),
        Err(fs::TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            Ok(Some(text.trim().parse().ok()))
        }
        Err(fs::TryLockError::Error(e)) => Err(io(&path)(e).into()),
    }
}
