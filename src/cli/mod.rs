//! Runs one command: parse the arguments, check them, call the library,
//! print. Nothing here knows how the engine works.

mod args;
mod search;
mod verify;

use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use clap::Parser;

use hatetris::enemy::{Enemy, EnemyKind};
use hatetris::movegen::MoveGen;
use hatetris::replay::{self, Format};
use hatetris::well::{board_to_numbers, draw_board, parse_board_numbers, Board};
use hatetris::{bench, Key, Piece, Well};

use args::{BenchCmd, Cli, Command, MovegenCmd, ReplayCmd};

/// Parses the command line and runs it.
pub fn run() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Movegen(MovegenCmd::Children { wells }) => movegen_children(wells.as_deref()),
        Command::Bench(BenchCmd::Movegen(a)) => {
            bench_movegen(&a.wells, a.runs as usize, a.json, a.transitions)
        }
        Command::Replay(cmd) => replay_cmd(cmd),
        Command::Search(a) => search::search(a),
        Command::Keyframes(a) => search::keyframes(a),
        Command::Verify(a) => verify::verify(a),
        Command::Eval(a) => search::eval(a),
        Command::Bench(BenchCmd::Eval(a)) => search::bench_eval(a),
        Command::Bench(BenchCmd::Search(a)) => search::bench_search(a),
    }
}

/// Reads text from a path, or standard input for `-`.
fn read_path_or_stdin(path: &str) -> Result<String> {
    let mut text = String::new();
    if path == "-" {
        io::stdin()
            .read_to_string(&mut text)
            .context("reading standard input")?;
    } else {
        text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    }
    Ok(text)
}

/// An argument that is the value itself, `-` for stdin, or `@FILE`.
pub(crate) fn read_arg(arg: &str) -> Result<String> {
    match arg.strip_prefix('@') {
        Some(path) => read_path_or_stdin(path),
        None if arg == "-" => read_path_or_stdin("-"),
        None => Ok(arg.to_string()),
    }
}

/// Reads boards, one per non-blank line (20 integers), naming the line on error.
fn read_boards(text: &str, source: &str) -> Result<Vec<Board>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        out.push(parse_board_numbers(line).with_context(|| format!("{source}, line {}", i + 1))?);
    }
    Ok(out)
}

/// Reads live wells, one per non-blank line.
pub(crate) fn read_wells(text: &str, source: &str) -> Result<Vec<Well>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        out.push(Well::parse_numbers(line).with_context(|| format!("{source}, line {}", i + 1))?);
    }
    Ok(out)
}

pub(crate) fn enemy_arg(name: &str) -> Result<EnemyKind> {
    name.parse::<EnemyKind>().map_err(anyhow::Error::msg)
}

pub(crate) fn format_arg(name: &str) -> Result<Format> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "base2048" => Format::Base2048,
        "base65536" => Format::Base65536,
        "hex" => Format::Hex,
        "raw" => Format::Raw,
        _ => bail!("unknown replay format '{name}' (expected base2048, base65536, hex or raw)"),
    })
}

fn movegen_children(wells: Option<&Path>) -> Result<()> {
    let (text, source) = match wells {
        Some(p) => (
            read_path_or_stdin(&p.to_string_lossy())?,
            p.display().to_string(),
        ),
        None => (read_path_or_stdin("-")?, "standard input".to_string()),
    };
    let wells = read_wells(&text, &source)?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for well in &wells {
        let gen = MoveGen::new(well);
        let mut line = format!(
            "{{\"well\":[{}],\"children\":{{",
            board_to_numbers(&well.to_board()).replace(' ', ",")
        );
        for (i, piece) in Piece::ALL.into_iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            line.push_str(&format!("\"{piece}\":["));
            for (j, o) in gen.outcomes(piece).iter().enumerate() {
                if j > 0 {
                    line.push(',');
                }
                line.push_str(&format!(
                    "[[{}],{}]",
                    board_to_numbers(&o.board).replace(' ', ","),
                    o.lines
                ));
            }
            line.push(']');
        }
        let piece = Enemy::new(EnemyKind::Hatetris).next_piece(well);
        line.push_str(&format!("}},\"hatetris_piece\":\"{piece}\"}}"));
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(())
}

fn bench_movegen(path: &Path, runs: usize, json: bool, transitions: bool) -> Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let wells = read_wells(&text, &path.display().to_string())?;
    if wells.is_empty() {
        bail!("{} holds no wells", path.display());
    }
    let b = bench::bench_movegen(&wells, runs);
    println!("wells: {} ({} runs, median, one thread)", b.wells, runs);
    println!(
        "piece choice:                 {:8.3} us/well  (signature {})",
        b.choice_us, b.choice_signature
    );
    println!(
        "choice + chosen children:     {:8.3} us/well  ({} children)",
        b.chosen_children_us, b.chosen_children
    );
    println!(
        "children of all 7 pieces:     {:8.3} us/well  ({} children)",
        b.all7_children_us, b.all7_children
    );
    if transitions {
        let t = bench::bench_transitions(&wells, runs);
        println!(
            "choice, direct transitions:   {:8.3} us/well\nchoice, ahash-map cache:      {:8.3} us/well  ({} distinct transitions; ratio {:.2})",
            t.direct_us,
            t.cached_us,
            t.distinct,
            t.cached_us / t.direct_us
        );
    }
    if json {
        println!(
            "{{\"choice_us\":{:.4},\"chosen_children_us\":{:.4},\"all7_children_us\":{:.4}}}",
            b.choice_us, b.chosen_children_us, b.all7_children_us
        );
    }
    Ok(())
}

fn decode_replay(arg: &str) -> Result<Vec<Key>> {
    let text = read_arg(arg)?;
    replay::decode(&text).context("decoding the replay")
}

fn replay_cmd(cmd: ReplayCmd) -> Result<()> {
    match cmd {
        ReplayCmd::Score { replay, enemy } => {
            let kind = enemy_arg(&enemy)?;
            let keys = decode_replay(&replay)?;
            let trace = replay::play(&keys, kind);
            println!(
                "keys: {} ({} used), pieces: {}, {}",
                keys.len(),
                trace.keys_used,
                trace.steps.len(),
                if trace.game_over {
                    "game over"
                } else {
                    "game not over"
                }
            );
            println!("{}", trace.score);
        }
        ReplayCmd::Show {
            replay,
            enemy,
            json,
        } => {
            let kind = enemy_arg(&enemy)?;
            let keys = decode_replay(&replay)?;
            let trace = replay::play(&keys, kind);
            if json {
                let v = serde_json::json!({
                    "steps": trace.steps,
                    "score": trace.score,
                    "game_over": trace.game_over,
                    "keys": keys.len(),
                    "keys_used": trace.keys_used,
                    "well": trace.board,
                });
                println!("{v}");
            } else {
                println!("{:>6}  piece  lines  score", "lock");
                for (i, s) in trace.steps.iter().enumerate() {
                    println!(
                        "{:>6}  {:>5}  {:>5}  {:>5}",
                        i + 1,
                        s.piece,
                        s.lines,
                        s.score
                    );
                }
                print!("{}", draw_board(&trace.board));
                println!(
                    "score {}, {} pieces, {} of {} keys used, {}",
                    trace.score,
                    trace.steps.len(),
                    trace.keys_used,
                    keys.len(),
                    if trace.game_over {
                        "game over"
                    } else {
                        "game not over"
                    }
                );
            }
        }
        ReplayCmd::Encode { keys, format } => {
            let format = format_arg(&format)?;
            let text = read_arg(&keys)?;
            let mut parsed = Vec::with_capacity(text.len());
            for (i, c) in text.trim().chars().enumerate() {
                match Key::from_letter(c) {
                    Some(k) => parsed.push(k),
                    None => bail!("character {c:?} at position {i} is not a key (L, R, D or U)"),
                }
            }
            println!("{}", replay::encode(&parsed, format));
        }
        ReplayCmd::FromWells {
            file,
            enemy,
            format,
        } => {
            let kind = enemy_arg(&enemy)?;
            let format = format_arg(&format)?;
            let text = read_path_or_stdin(&file)?;
            let chain = read_boards(&text, &file)?;
            let keys = replay::keys_from_wells(&chain, kind)?;
            println!("{}", replay::encode(&keys, format));
        }
    }
    Ok(())
}
