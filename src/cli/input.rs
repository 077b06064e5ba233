//! A command's inputs as the command line names them: a file, `-` for
//! standard input, or (for arguments that may be the value itself) `@FILE`.
//! `@FILE` is read wherever a file is taken too (`--wells @FILE`,
//! `replay from-wells @FILE`), so one spelling works everywhere; a value
//! that fails to parse and looks like a file name gets a hint to put `@`
//! before it ([`file_hint`]).
//! The reading, with its caps and one-line errors, is the library's
//! ([`hatetris::launch::input`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use hatetris::launch::input::{self, Input};
use hatetris::replay;
use hatetris::well::Board;
use hatetris::{Key, Well};

/// Reads a whole file, or standard input for `None`, as UTF-8 text of at
/// most `input`'s cap: `/dev/zero` or a wrong file stops with one line
/// instead of filling memory.
fn read_input(path: Option<&Path>, input: Input) -> Result<String> {
    Ok(input::read_text(path, input)?)
}

/// A file argument as given, or without the `@` that the value arguments
/// take before a file name (`@runs/x.txt` is `runs/x.txt`).
pub(crate) fn at_file(path: &Path) -> PathBuf {
    match path.to_str().and_then(|p| p.strip_prefix('@')) {
        Some(rest) => PathBuf::from(rest),
        None => path.to_path_buf(),
    }
}

/// A file option where `-` means standard input: the path (without a
/// leading `@`), or `None`.
fn file_or_stdin(path: &Path) -> Option<PathBuf> {
    Some(at_file(path)).filter(|p| p.as_os_str() != "-")
}

/// A hint for a value argument that did not parse: when it looks like a
/// file name (an existing file, or one word with a `/` or an extension),
/// " (… looks like a file name: give @… to read it)"; else nothing.
pub(crate) fn file_hint(arg: &str) -> String {
    let word = !arg.is_empty() && !arg.contains(char::is_whitespace) && !arg.starts_with('@');
    let named = arg.contains('/')
        || arg.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        });
    if arg != "-" && word && (named || Path::new(arg).is_file()) {
        format!(" ({arg} looks like a file name: give @{arg} to read it)")
    } else {
        String::new()
    }
}

/// An argument that is the value itself, `-` for standard input, or
/// `@FILE` (`@-` is standard input too).
pub(crate) fn read_arg(arg: &str, input: Input) -> Result<String> {
    match arg.strip_prefix('@') {
        Some(path) => read_input(file_or_stdin(Path::new(path)).as_deref(), input),
        None if arg == "-" => read_input(None, input),
        None => Ok(arg.to_string()),
    }
}

/// Live wells, one per non-blank line, from a file or `-`.
pub(crate) fn read_wells(path: Option<&Path>) -> Result<Vec<Well>> {
    let path = path.and_then(file_or_stdin);
    let text = read_input(path.as_deref(), Input::Wells)?;
    Ok(input::parse_wells(&text, &input::name(path.as_deref()))?)
}

/// Boards, one per non-blank line, from a file or `-`.
pub(crate) fn read_boards(path: &Path) -> Result<Vec<Board>> {
    let path = file_or_stdin(path);
    let text = read_input(path.as_deref(), Input::Wells)?;
    Ok(input::parse_boards(&text, &input::name(path.as_deref()))?)
}

/// A replay argument (the replay, `-` or `@FILE`), decoded.
pub(crate) fn decode_replay(arg: &str) -> Result<Vec<Key>> {
    let text = read_arg(arg, Input::Replay)?;
    replay::decode(&text)
        .map_err(|e| anyhow::anyhow!("{e}{}", file_hint(arg)))
        .context("decoding the replay")
}
