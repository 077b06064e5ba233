//! Ctrl-C and SIGTERM, for every command that runs long: one line saying
//! what is kept and how to go on, exit code 130, and nothing half-written
//! or temporary left behind.
//!
//! Two ways, one handler each process:
//! - [`stop_search`] (`search`): the first signal sets the search's stop
//!   flag, so the depth in progress is abandoned and the command ends
//!   through its own code (the best game written, the resume line
//!   printed); a second ends the process at once, as below.
//! - [`exit_at_once`] (`train`, `tune`, `compare`, `bench search`, whose
//!   library loops have no stop flag): the signal ends the process from the
//!   handler, after closing the folder room's write gate
//!   ([`hatetris::folder::atomic::close_gate`]: the file or log line being
//!   written is finished, no new one begun) and removing the command's
//!   temporary folders ([`temporary_dir`]). Every file the engine keeps is
//!   written atomically, so the same command goes on from what is on disk.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};

use super::note;

/// The exit code of a command stopped by a signal, as a shell reports
/// one.
pub const EXIT_CODE: i32 = 130;

/// How long a signal waits for the file being written before the process
/// ends anyway (the next process to lock the folder removes what is left).
const WRITE_WAIT: Duration = Duration::from_secs(10);

/// The temporary folders of this process, removed by [`exit_at_once`].
static TEMPORARY: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Set when a signal's handler has begun ending the process.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Whether a signal's handler is ending the process: the command's own
/// thread then reports nothing (what fails under it, a temporary folder
/// removed, is the handler's doing) and waits for the end.
pub fn exiting() -> bool {
    EXITING.load(Ordering::SeqCst)
}

/// Ends the process now with [`EXIT_CODE`], leaving nothing half-written
/// and no temporary folder.
fn exit_now() -> ! {
    EXITING.store(true, Ordering::SeqCst);
    // Kept to the end: no write starts after this.
    let gate = hatetris::folder::atomic::close_gate(WRITE_WAIT);
    let dirs = TEMPORARY.lock().map(|d| d.clone()).unwrap_or_default();
    for dir in dirs {
        let _ = std::fs::remove_dir_all(&dir);
    }
    std::mem::forget(gate);
    std::process::exit(EXIT_CODE);
}

/// `search`'s handler: the first Ctrl-C or SIGTERM sets `stop`, and the
/// search abandons the depth in progress and ends cleanly (see
/// [`hatetris::search::Options::stop`]); a second ends the process at once,
/// which is safe too.
pub fn stop_search(stop: Arc<AtomicBool>) -> Result<()> {
    ctrlc::set_handler(move || {
        if stop.swap(true, Ordering::Relaxed) {
            note!("hatetris: stopped at once");
            exit_now();
        }
        note!("stopping: abandoning the depth in progress and writing the best game (again to quit at once)");
    })
    .context("catching Ctrl-C and SIGTERM")
}

/// The handler of a command that ends at once on Ctrl-C or SIGTERM:
/// `message` is its one line (what is kept, how to go on).
pub fn exit_at_once(message: String) -> Result<()> {
    ctrlc::set_handler(move || {
        EXITING.store(true, Ordering::SeqCst);
        note!("{message}");
        exit_now();
    })
    .context("catching Ctrl-C and SIGTERM")
}

/// A new temporary folder (`hatetris-TAG-…` under the system's), removed
/// when the value is dropped and by [`exit_at_once`]'s handler.
pub fn temporary_dir(tag: &str) -> Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new()
        .prefix(&format!("hatetris-{tag}-"))
        .tempdir()
        .context("making a temporary folder")?;
    if let Ok(mut all) = TEMPORARY.lock() {
        all.push(dir.path().to_path_buf());
    }
    Ok(dir)
}

/// This command as typed, to run again: `hatetris` and its arguments,
/// each quoted for a POSIX shell when it needs it.
pub fn same_command() -> String {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let mut line = String::from("hatetris");
    for arg in args {
        line.push(' ');
        line.push_str(&shell_word(&arg.to_string_lossy()));
    }
    line
}

/// `word` as a POSIX shell reads it back: as it is when it is plain,
/// else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=,:@+%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn words_are_quoted_only_when_a_shell_needs_it() {
        assert_eq!(shell_word("runs/my-nets"), "runs/my-nets");
        assert_eq!(shell_word("--width=5"), "--width=5");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
