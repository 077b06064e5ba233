//! The well's text forms: the game's 20 row integers (or the 16 live
//! ones), and the `.`/`#` drawing, top row first. Parsing is a validation
//! boundary: every form goes through [`Well::try_from_board`].

use std::fmt;
use std::str::FromStr;

use super::{Board, Well, WellError, BAR, FULL_ROW, HEIGHT, LIVE_ROWS, WIDTH};

/// Parses 20 integers separated by whitespace or commas (a JSON array's
/// brackets are allowed too) into a board, without checking the bar.
pub fn parse_board_numbers(text: &str) -> Result<Board, WellError> {
    let cleaned = text.trim().trim_start_matches('[').trim_end_matches(']');
    let tokens: Vec<&str> = cleaned
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.len() != HEIGHT {
        return Err(WellError::WrongCount {
            found: tokens.len(),
        });
    }
    let mut board = [0u16; HEIGHT];
    for (row, token) in tokens.iter().enumerate() {
        let value: u32 = token.parse().map_err(|_| WellError::NotANumber {
            token: token.chars().take(40).collect(),
        })?;
        if value > FULL_ROW as u32 {
            return Err(WellError::RowTooWide { row, value });
        }
        board[row] = value as u16;
    }
    Ok(board)
}

/// The board as 20 integers separated by spaces.
pub fn board_to_numbers(board: &Board) -> String {
    let parts: Vec<String> = board.iter().map(|r| r.to_string()).collect();
    parts.join(" ")
}

/// Draws a board as `.`/`#` lines, top row first, with the bar marked.
pub fn draw_board(board: &Board) -> String {
    let mut out = String::with_capacity(HEIGHT * (WIDTH + 4));
    for (i, &row) in board.iter().enumerate() {
        for c in 0..WIDTH {
            out.push(if row >> c & 1 == 1 { '#' } else { '.' });
        }
        if i == BAR - 1 {
            out.push_str("  <- bar");
        }
        out.push('\n');
    }
    out
}

impl FromStr for Well {
    type Err = WellError;

    /// Parses 20 integers (the game's rows), 16 integers (the live rows
    /// only, as [`Well::rows`] holds them), or a `.`/`#` drawing.
    fn from_str(s: &str) -> Result<Well, WellError> {
        let t = s.trim();
        if t.chars().any(|c| c == '#' || c == '.') {
            return parse_drawing(t);
        }
        let inner = t.trim_start_matches('[').trim_end_matches(']');
        let count = inner
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .count();
        if count == LIVE_ROWS {
            // The rows above the bar are always empty.
            Well::parse_numbers(&format!("{} {inner}", "0 ".repeat(BAR)))
        } else {
            Well::parse_numbers(t)
        }
    }
}

/// Parses a drawing: 1 to 20 lines of 10 `.`/`#` characters, top first.
/// Missing rows are empty rows at the top. Anything after the tenth
/// character of a line (such as the `<- bar` marker) is ignored, as are
/// blank lines.
fn parse_drawing(text: &str) -> Result<Well, WellError> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.len() > HEIGHT {
        return Err(WellError::BadDrawing {
            line: HEIGHT + 1,
            reason: format!(
                "a drawing has at most {HEIGHT} rows, this one has {}",
                lines.len()
            ),
        });
    }
    let mut board = [0u16; HEIGHT];
    let first = HEIGHT - lines.len();
    for (i, line) in lines.iter().enumerate() {
        let cells: Vec<char> = line.chars().take(WIDTH).collect();
        if cells.len() < WIDTH {
            return Err(WellError::BadDrawing {
                line: i + 1,
                reason: "a row needs 10 cells".into(),
            });
        }
        let mut row = 0u16;
        for (c, ch) in cells.iter().enumerate() {
            match ch {
                '#' => row |= 1 << c,
                '.' => {}
                other => {
                    return Err(WellError::BadDrawing {
                        line: i + 1,
                        reason: format!("'{other}' is not '.' or '#'"),
                    })
                }
            }
        }
        board[first + i] = row;
    }
    Well::try_from_board(&board)
}

impl fmt::Display for Well {
    /// Draws the 16 live rows as `.`/`#` lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &row in &self.rows {
            for c in 0..WIDTH {
                f.write_str(if row >> c & 1 == 1 { "#" } else { "." })?;
            }
            f.write_str("\n")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Well {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Well[{}]", self.to_numbers())
    }
}
