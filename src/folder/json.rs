//! JSON files and JSON-lines logs.
//!
//! A JSON file is written whole, pretty and with a final newline, under a
//! temporary name ([`super::atomic`]); reading one tells an absent file
//! (`None`) from one that does not parse (an error naming it). A JSON-lines
//! log grows one line at a time, each line written whole and synced before
//! the call returns, so a kill leaves at most a torn last line, which its
//! reader drops ([`read_lines`]) or its owner writes over
//! ([`write_line_at`]).

use std::fs::{self, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{atomic::write_atomic, io, FolderError, IoError};

/// Reads the JSON file at `path`: `None` when there is none.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, FolderError> {
    match fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| FolderError::Json {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path)(e).into()),
    }
}

/// The text [`write()`] puts in a file: `value` as pretty JSON with a final
/// newline.
pub fn pretty<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("plain data serialises");
    text.push('\n');
    text
}

/// Writes `value` to `path` as pretty JSON, atomically.
pub fn write<T: Serialize>(path: &Path, value: &T) -> Result<(), IoError> {
    write_atomic(path, pretty(value).as_bytes()).map_err(io(path))
}

/// Writes `value` to `path` as pretty JSON with no final newline,
/// atomically: the form of a run folder's `manifest.json` and
/// `shard.json`, which predate [`write()`] and keep their bytes (a run made
/// by an older build and one made now hold the same files).
pub fn write_unterminated<T: Serialize>(path: &Path, value: &T) -> Result<(), IoError> {
    let text = serde_json::to_string_pretty(value).expect("plain data serialises");
    write_atomic(path, text.as_bytes()).map_err(io(path))
}

/// One line of a JSON-lines log: `value` as compact JSON and a newline.
pub fn line<T: Serialize>(value: &T) -> String {
    let mut line = serde_json::to_string(value).expect("plain data serialises");
    line.push('\n');
    line
}

/// Appends `line` (with its newline) to the log at `path`, creating it,
/// and syncs it.
pub fn append_line(path: &Path, line: &str) -> Result<(), IoError> {
    let _open = super::atomic::writing();
    (|| {
        let mut f = OpenOptions::new().create(true).append(true).open(path)?;
        f.write_all(line.as_bytes())?;
        f.sync_data()
    })()
    .map_err(io(path))
}

/// Writes `line` into the log at `path` at byte `at`, over anything after
/// it (what a kill left past the last line its owner recorded), and syncs
/// it.
pub fn write_line_at(path: &Path, at: u64, line: &str) -> Result<(), IoError> {
    let end = at + line.len() as u64;
    let _open = super::atomic::writing();
    (|| {
        let mut log = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        log.seek(SeekFrom::Start(at))?;
        log.write_all(line.as_bytes())?;
        if log.metadata()?.len() > end {
            log.set_len(end)?;
        }
        log.sync_data()
    })()
    .map_err(io(path))
}

/// Every line of the log at `path` that parses as a `T`, in order (none
/// when there is no log): a torn line, the most a kill leaves, is passed
/// over.
pub fn read_lines<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, IoError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(path)(e)),
    };
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_passed_over_and_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        assert!(read_lines::<u32>(&path).unwrap().is_empty());
        append_line(&path, &line(&1)).unwrap();
        append_line(&path, "2").unwrap();
        assert_eq!(read_lines::<u32>(&path).unwrap(), vec![1, 2]);
        write_line_at(&path, 2, &line(&3)).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "1\n3\n");
    }

    #[test]
    fn an_absent_file_is_none_and_a_bad_one_names_itself() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.json");
        assert!(read::<u32>(&path).unwrap().is_none());
        write(&path, &vec![1, 2]).unwrap();
        assert_eq!(read::<Vec<u32>>(&path).unwrap(), Some(vec![1, 2]));
        fs::write(&path, "{").unwrap();
        let e = read::<u32>(&path).unwrap_err().to_string();
        assert!(e.starts_with(&path.display().to_string()), "{e}");
    }
}
