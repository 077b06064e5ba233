//! A command's inputs as the command line names them: a file, `-` for
//! standard input, or (for arguments that may be the value itself) `@FILE`.
//! The reading, with its caps and one-line errors, is the library's
//! ([`hatetris::launch::input`]).

use std::path::Path;

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

/// A file option where `-` means standard input: the path, or `None`.
fn file_or_stdin(path: &Path) -> Option<&Path> {
    Some(path).filter(|p| p.as_os_str() != "-")
}

/// An argument that is the value itself, `-` for standard input, or
/// `@FILE` (`@-` is standard input too).
pub(crate) fn read_arg(arg: &str, input: Input) -> Result<String> {
    match arg.strip_prefix('@') {
        Some(path) => read_input(file_or_stdin(Path::new(path)), input),
        None if arg == "-" => read_input(None, input),
        None => Ok(arg.to_string()),
    }
}

/// Live wells, one per non-blank line, from a file or `-`.
pub(crate) fn read_wells(path: Option<&Path>) -> Result<Vec<Well>> {
    let path = path.and_then(file_or_stdin);
    let text = read_input(path, Input::Wells)?;
    Ok(input::parse_wells(&text, &input::name(path))?)
}

/// Boards, one per non-blank line, from a file or `-`.
pub(crate) fn read_boards(path: &Path) -> Result<Vec<Board>> {
    let path = file_or_stdin(path);
    let text = read_input(path, Input::Wells)?;
    Ok(input::parse_boards(&text, &input::name(path))?)
}

/// A replay argument (the replay, `-` or `@FILE`), decoded.
pub(crate) fn decode_replay(arg: &str) -> Result<Vec<Key>> {
    let text = read_arg(arg, Input::Replay)?;
    replay::decode(&text).context("decoding the replay")
}
