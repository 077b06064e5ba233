//! The text a command is given: a file, or standard input, read whole with
//! a cap that depends on what it should hold, and wells read from it one
//! per line.
//!
//! A wrong file (`/dev/zero`, a sparse file, a binary) stops with one line
//! instead of filling memory: a regular file over the cap is refused from
//! its length before a byte is read, and anything else is read to one byte
//! past the cap. The caps are far above any real input (see [`Input`]).
//! Each error names the file (or "standard input") and what it should have
//! held, so that the command line can print it as it is.

use std::io::{self, Read};
use std::path::Path;

use crate::well::{parse_board_numbers, Board, Well, WellError};

/// What a file or standard input should hold: its size cap, and the name
/// used when it is over the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A replay in any of the game's formats. The longest known game is
    /// 9,309 pieces: a few hundred thousand keys, a few hundred kB of text
    /// even in the raw format.
    Replay,
    /// Keys as letters (a replay in the raw format).
    Keys,
    /// One well: 20 integers or a 20-row drawing.
    Well,
    /// Wells, one per line (about 60 bytes a line).
    Wells,
    /// A TOML weights file (a few hundred bytes).
    Weights,
}

impl Input {
    /// The largest input accepted, in MiB.
    pub fn cap_mib(self) -> u64 {
        match self {
            Input::Replay | Input::Keys => 16,
            Input::Well | Input::Weights => 1,
            Input::Wells => 256,
        }
    }

    /// What the input should be, for messages: "a replay".
    pub fn what(self) -> &'static str {
        match self {
            Input::Replay => "a replay",
            Input::Keys => "a list of keys",
            Input::Well => "a well",
            Input::Wells => "a list of wells",
            Input::Weights => "a weights file",
        }
    }
}

/// Why a command's input could not be read. `name` is the file as given,
/// or "standard input".
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file or standard input could not be read.
    #[error("reading {name}")]
    Read {
        /// The file.
        name: String,
        /// The cause.
        #[source]
        error: io::Error,
    },
    /// Over the cap of what it should hold.
    #[error("{name}: larger than {} MiB, not {}", .input.cap_mib(), .input.what())]
    TooBig {
        /// The file.
        name: String,
        /// What it should have held.
        input: Input,
    },
    /// Not UTF-8 text.
    #[error("{name}: not UTF-8 text (byte {valid_up_to} is invalid), not {}", .input.what())]
    NotText {
        /// The file.
        name: String,
        /// The offset of the first invalid byte.
        valid_up_to: usize,
        /// What it should have held.
        input: Input,
    },
    /// A line that is not a well.
    #[error("{name}, line {line}")]
    Line {
        /// The file.
        name: String,
        /// The line, from 1.
        line: usize,
        /// Why.
        #[source]
        error: WellError,
    },
    /// A list of wells with none in it, where some are needed.
    #[error("{name} holds no wells")]
    NoWells {
        /// The file.
        name: String,
    },
}

/// How a file is named in messages: as given, or "standard input" for
/// `None`.
pub fn name(path: Option<&Path>) -> String {
    match path {
        Some(p) => p.display().to_string(),
        None => "standard input".to_string(),
    }
}

/// Reads a whole file, or standard input for `None`, as UTF-8 text of at
/// most `input`'s cap.
pub fn read_text(path: Option<&Path>, input: Input) -> Result<String, InputError> {
    let cap = input.cap_mib() << 20;
    let name = name(path);
    let read_error = |error| InputError::Read {
        name: name.clone(),
        error,
    };
    let mut bytes = Vec::new();
    match path {
        None => {
            io::stdin()
                .lock()
                .take(cap + 1)
                .read_to_end(&mut bytes)
                .map_err(read_error)?;
        }
        Some(p) => {
            let file = std::fs::File::open(p).map_err(read_error)?;
            // A regular file's length is known: refuse it before reading.
            if file.metadata().is_ok_and(|m| m.is_file() && m.len() > cap) {
                return Err(InputError::TooBig {
                    name: name.clone(),
                    input,
                });
            }
            file.take(cap + 1)
                .read_to_end(&mut bytes)
                .map_err(read_error)?;
        }
    }
    if bytes.len() as u64 > cap {
        return Err(InputError::TooBig { name, input });
    }
    String::from_utf8(bytes).map_err(|e| InputError::NotText {
        name,
        valid_up_to: e.utf8_error().valid_up_to(),
        input,
    })
}

/// Each non-blank line of `text` parsed by `parse`; an error names the
/// line of `name`.
fn lines<T>(
    text: &str,
    name: &str,
    parse: impl Fn(&str) -> Result<T, WellError>,
) -> Result<Vec<T>, InputError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            parse(line).map_err(|error| InputError::Line {
                name: name.to_string(),
                line: i + 1,
                error,
            })
        })
        .collect()
}

/// Live wells, one per non-blank line (20 integers); `name` is the text's
/// source, for errors.
pub fn parse_wells(text: &str, name: &str) -> Result<Vec<Well>, InputError> {
    lines(text, name, Well::parse_numbers)
}

/// Boards, one per non-blank line (20 integers; rows above the bar
/// allowed, as in a game's last well).
pub fn parse_boards(text: &str, name: &str) -> Result<Vec<Board>, InputError> {
    lines(text, name, parse_board_numbers)
}
