//! The replay commands: `replay score`, `show`, `encode`, `convert`,
//! `render` and `from-wells`, over the library's codecs and player
//! ([`hatetris::replay`]).

use std::io::Write;

use anyhow::{bail, Context, Result};

use hatetris::enemy::EnemyKind;
use hatetris::launch::Input;
use hatetris::replay::{self, Format};
use hatetris::well::{draw_board, Board};
use hatetris::Key;

use super::args::{ReplayCmd, ReplayFormat};
use super::input::{decode_replay, read_arg, read_boards};
use super::{outln, STDOUT};

impl From<ReplayFormat> for Format {
    fn from(f: ReplayFormat) -> Format {
        match f {
            ReplayFormat::Base2048 => Format::Base2048,
            ReplayFormat::Base65536 => Format::Base65536,
            ReplayFormat::Hex => Format::Hex,
            ReplayFormat::Raw => Format::Raw,
        }
    }
}

/// "game over" or "game not over".
fn game_over(over: bool) -> &'static str {
    if over {
        "game over"
    } else {
        "game not over"
    }
}

/// The locks `replay show` shows (0-based), from 1-based `--from` and
/// `--to` over a game of `locks` locks: `--to` past the end means the end;
/// an empty or impossible range is an error.
fn lock_range(locks: usize, from: Option<u32>, to: Option<u32>) -> Result<std::ops::Range<usize>> {
    let start = from.map_or(1, |f| f as usize);
    let end = to.map_or(locks, |t| (t as usize).min(locks));
    if let (Some(f), Some(t)) = (from, to) {
        if t < f {
            bail!("--to {t} is before --from {f}");
        }
    }
    if from.is_some() && start > locks {
        bail!(
            "--from {start} is past the game's end: it has {locks} {}",
            if locks == 1 { "lock" } else { "locks" }
        );
    }
    Ok(start - 1..end.max(start - 1))
}

/// The wells to draw of a game: after every `every`th lock (if asked) and
/// at the end, each labelled with its lock count and score.
fn replay_wells(keys: &[Key], enemy: EnemyKind, every: Option<u32>) -> Vec<(String, Board)> {
    let mut game = hatetris::game::Game::new(enemy);
    let mut wells = Vec::new();
    let mut locks = 0u32;
    for &key in keys {
        match game.press(key) {
            hatetris::game::Event::Ignored => break,
            hatetris::game::Event::Locked { .. } | hatetris::game::Event::GameOver { .. } => {
                locks += 1;
                if every.is_some_and(|n| locks.is_multiple_of(n)) {
                    wells.push((
                        format!("lock {locks}, {} lines", game.score()),
                        *game.board(),
                    ));
                }
            }
            _ => {}
        }
    }
    if wells.last().map(|(_, b)| b) != Some(game.board()) {
        wells.push((
            format!("end: lock {locks}, {} lines", game.score()),
            *game.board(),
        ));
    }
    wells
}

/// `hatetris replay ...`.
pub(crate) fn replay_cmd(cmd: ReplayCmd, out: &mut dyn Write) -> Result<()> {
    match cmd {
        ReplayCmd::Score {
            replay,
            enemy,
            json,
        } => {
            let kind = enemy;
            let keys = decode_replay(&replay)?;
            let trace = replay::play(&keys, kind);
            if json {
                // `depth`: pieces placed, as a run's depths count them.
                let v = serde_json::json!({
                    "score": trace.score,
                    "depth": trace.steps.len(),
                    "keys": keys.len(),
                    "keys_used": trace.keys_used,
                    "game_over": trace.game_over,
                });
                outln!(out, "{v}")?;
                return Ok(());
            }
            outln!(
                out,
                "keys: {} ({} used), pieces: {}, {}",
                keys.len(),
                trace.keys_used,
                trace.steps.len(),
                game_over(trace.game_over)
            )?;
            outln!(out, "{}", trace.score)?;
        }
        ReplayCmd::Show {
            replay,
            enemy,
            from,
            to,
            table,
            json,
        } => {
            let keys = decode_replay(&replay)?;
            let trace = replay::play(&keys, enemy);
            let shown = lock_range(trace.steps.len(), from, to)?;
            let first = shown.start + 1;
            let steps = &trace.steps[shown];
            let summary = format!(
                "score {}, {} pieces, {} of {} keys used, {}",
                trace.score,
                trace.steps.len(),
                trace.keys_used,
                keys.len(),
                game_over(trace.game_over)
            );
            if json {
                let v = serde_json::json!({
                    "steps": steps,
                    "score": trace.score,
                    "game_over": trace.game_over,
                    "keys": keys.len(),
                    "keys_used": trace.keys_used,
                    "well": trace.board,
                });
                outln!(out, "{v}")?;
            } else if table {
                outln!(out, "{:>6}  piece  lines  score  cells", "lock")?;
                for (i, s) in steps.iter().enumerate() {
                    outln!(
                        out,
                        "{:>6}  {:>5}  {:>5}  {:>5}  {:>5}",
                        first + i,
                        s.piece,
                        s.lines,
                        s.score,
                        s.cells()
                    )?;
                }
                write!(out, "{}", draw_board(&trace.board)).context(STDOUT)?;
                outln!(out, "{summary}")?;
            } else {
                for (i, s) in steps.iter().enumerate() {
                    let cleared = match s.lines {
                        0 => String::new(),
                        1 => " (+1 line)".to_string(),
                        n => format!(" (+{n} lines)"),
                    };
                    outln!(
                        out,
                        "lock {}: piece {}, lines so far {}{cleared}",
                        first + i,
                        s.piece,
                        s.score
                    )?;
                    write!(out, "{}", draw_board(&s.board)).context(STDOUT)?;
                }
                outln!(out, "{summary}")?;
            }
        }
        ReplayCmd::Encode { keys, format } => {
            let format = Format::from(format);
            let text = read_arg(&keys, Input::Keys)?;
            let mut parsed = Vec::with_capacity(text.len());
            for (i, c) in text.trim().chars().enumerate() {
                match Key::from_letter(c) {
                    Some(k) => parsed.push(k),
                    None => bail!("character {c:?} at position {i} is not a key (L, R, D or U)"),
                }
            }
            outln!(out, "{}", replay::encode(&parsed, format))?;
        }
        ReplayCmd::Convert { replay, format } => {
            let keys = decode_replay(&replay)?;
            outln!(out, "{}", replay::encode(&keys, format.into()))?;
        }
        ReplayCmd::Render {
            replay,
            out: path,
            every,
            enemy,
        } => {
            let ext = path
                .extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase());
            if !matches!(ext.as_deref(), Some("png" | "svg")) {
                bail!(
                    "--out {}: the picture is PNG or SVG; give a name ending in .png or .svg",
                    path.display()
                );
            }
            let keys = decode_replay(&replay)?;
            let wells = replay_wells(&keys, enemy, every);
            hatetris::plot::draw_wells(&wells, &path)?;
            outln!(
                out,
                "wrote {} ({} {})",
                path.display(),
                wells.len(),
                if wells.len() == 1 { "well" } else { "wells" }
            )?;
        }
        ReplayCmd::FromWells {
            file,
            enemy,
            format,
        } => {
            let kind = enemy;
            let format = Format::from(format);
            let chain = read_boards(&file)?;
            let keys = replay::keys_from_wells(&chain, kind)?;
            outln!(out, "{}", replay::encode(&keys, format))?;
        }
    }
    Ok(())
}
