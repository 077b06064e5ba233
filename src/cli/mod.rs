//! Runs one command: parse the arguments, check them, call the library,
//! print. Nothing here knows how the engine works.

mod args;
mod bench_search;
mod cluster;
mod eval;
mod plot;
mod resume;
mod search;
mod status;
mod train;
mod tune;
mod verify;

use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use clap::Parser;

use hatetris::enemy::{Enemy, EnemyKind};
use hatetris::movegen::MoveGen;
use hatetris::replay::{self, Format};
use hatetris::well::{draw_board, parse_board_numbers, Board};
use hatetris::{bench, Key, Piece, Well};

use args::{BenchCmd, Cli, Command, MovegenCmd, ReplayCmd, ReplayFormat};

/// Set when a search was stopped by a signal: the process then exits with
/// code 130, as a shell reports an interrupted command, though everything
/// was written.
pub(crate) static INTERRUPTED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Whether a search was stopped by a signal (see [`INTERRUPTED`]).
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The context of every error writing to standard output (a full disk, say).
pub(crate) const STDOUT: &str = "writing to standard output";

/// `writeln!` to a writer, with the error naming standard output: the
/// commands print only through this, never `println!` (which panics when
/// standard output fails).
macro_rules! outln {
    ($out:expr) => {
        writeln!($out).context($crate::cli::STDOUT)
    };
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).context($crate::cli::STDOUT)
    };
}
pub(crate) use outln;

/// `eprintln!` that ignores a failing standard error (full or closed)
/// instead of panicking: there is nowhere left to report it.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
pub(crate) use note;

/// Parses the command line and runs it.
pub fn run() -> Result<()> {
    let cli = Cli::parse();
    // Not `stdout().lock()` for the whole command: timely's networking
    // threads print to standard output (a peer not up yet) while a sharded
    // search connects, and would wait on that lock forever.
    let mut out = BufWriter::new(io::stdout());
    let out_ref: &mut dyn Write = &mut out;
    match cli.command {
        Command::Movegen(MovegenCmd::Children { wells }) => {
            movegen_children(wells.as_deref(), out_ref)
        }
        Command::Bench(BenchCmd::Movegen(a)) => {
            bench_movegen(&a.wells, a.runs as usize, a.json, a.transitions, out_ref)
        }
        Command::Replay(cmd) => replay_cmd(cmd, out_ref),
        Command::Search(a) => search::search(a, out_ref),
        Command::Keyframes(a) => search::keyframes(a, out_ref),
        Command::Verify(a) => verify::verify(a, out_ref),
        Command::Eval(a) => eval::eval(a, out_ref),
        Command::Train(a) => train::train(a, out_ref),
        Command::Tune(a) => tune::tune(a, out_ref),
        Command::Compare(a) => tune::compare(a, out_ref),
        Command::Status(a) => status::status(a, out_ref),
        Command::Plot(a) => plot::plot(a, out_ref),
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "hatetris", out_ref);
            Ok(())
        }
        Command::Bench(BenchCmd::Eval(a)) => eval::bench_eval(a, out_ref),
        Command::Bench(BenchCmd::Search(a)) => bench_search::bench_search(a, out_ref),
    }?;
    out.flush().context(STDOUT)
}

/// What a file or standard input should hold: its size cap, and the name
/// used when it is over the cap.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Input {
    /// A replay in any of the game's formats. The longest known game is
    /// 9,309 pieces: a few hundred thousand keys, a few hundred kB of text
    /// even in the raw format.
    Replay,
    /// Keys as letters, for `replay encode` (a replay in the raw format).
    Keys,
    /// One well, for `eval`: 20 integers or a 20-row drawing.
    Well,
    /// Wells, one per line (about 60 bytes a line).
    Wells,
    /// A TOML weights file (a few hundred bytes).
    Weights,
}

impl Input {
    /// The largest input accepted, in MiB.
    fn cap_mib(self) -> u64 {
        match self {
            Input::Replay | Input::Keys => 16,
            Input::Well | Input::Weights => 1,
            Input::Wells => 256,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Input::Replay => "a replay",
            Input::Keys => "a list of keys",
            Input::Well => "a well",
            Input::Wells => "a list of wells",
            Input::Weights => "a weights file",
        }
    }
}

/// Reads a whole file, or standard input for `None`, as UTF-8 text of at
/// most `input`'s cap: `/dev/zero` or a wrong file stops with one line
/// instead of filling memory.
pub(crate) fn read_input(path: Option<&Path>, input: Input) -> Result<String> {
    let cap = input.cap_mib() << 20;
    let name = match path {
        Some(p) => p.display().to_string(),
        None => "standard input".to_string(),
    };
    let too_big = || {
        anyhow::anyhow!(
            "{name}: larger than {} MiB, not {}",
            input.cap_mib(),
            input.what()
        )
    };
    let mut bytes = Vec::new();
    match path {
        None => {
            io::stdin()
                .lock()
                .take(cap + 1)
                .read_to_end(&mut bytes)
                .context("reading standard input")?;
        }
        Some(p) => {
            let file = std::fs::File::open(p).with_context(|| format!("reading {name}"))?;
            // A regular file's length is known: refuse it before reading.
            if file.metadata().is_ok_and(|m| m.is_file() && m.len() > cap) {
                return Err(too_big());
            }
            file.take(cap + 1)
                .read_to_end(&mut bytes)
                .with_context(|| format!("reading {name}"))?;
        }
    }
    if bytes.len() as u64 > cap {
        return Err(too_big());
    }
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{name}: not UTF-8 text (byte {} is invalid), not {}",
            e.utf8_error().valid_up_to(),
            input.what()
        )
    })
}

/// Reads text from a path, or standard input for `-`.
fn read_path_or_stdin(path: &str, input: Input) -> Result<String> {
    if path == "-" {
        read_input(None, input)
    } else {
        read_input(Some(Path::new(path)), input)
    }
}

/// An argument that is the value itself, `-` for stdin, or `@FILE`.
pub(crate) fn read_arg(arg: &str, input: Input) -> Result<String> {
    match arg.strip_prefix('@') {
        Some(path) => read_path_or_stdin(path, input),
        None if arg == "-" => read_path_or_stdin("-", input),
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

fn movegen_children(wells: Option<&Path>, out: &mut dyn Write) -> Result<()> {
    // `--wells -` is standard input too.
    let wells = wells.filter(|p| p.as_os_str() != "-");
    let text = read_input(wells, Input::Wells)?;
    let source = wells.map_or("standard input".to_string(), |p| p.display().to_string());
    let wells = read_wells(&text, &source)?;
    for well in &wells {
        let gen = MoveGen::new(well);
        // One field per piece, in the golden files' order (S Z O I L J T);
        // each child is `[[20 rows], lines]`.
        let children = |piece: Piece| -> Vec<(Board, u8)> {
            gen.outcomes(piece)
                .iter()
                .map(|o| (o.board, o.lines))
                .collect()
        };
        #[derive(serde::Serialize)]
        #[allow(non_snake_case)]
        struct Children {
            S: Vec<(Board, u8)>,
            Z: Vec<(Board, u8)>,
            O: Vec<(Board, u8)>,
            I: Vec<(Board, u8)>,
            L: Vec<(Board, u8)>,
            J: Vec<(Board, u8)>,
            T: Vec<(Board, u8)>,
        }
        #[derive(serde::Serialize)]
        struct Line {
            well: Board,
            children: Children,
            hatetris_piece: String,
        }
        let line = Line {
            well: well.to_board(),
            children: Children {
                S: children(Piece::S),
                Z: children(Piece::Z),
                O: children(Piece::O),
                I: children(Piece::I),
                L: children(Piece::L),
                J: children(Piece::J),
                T: children(Piece::T),
            },
            hatetris_piece: Enemy::new(EnemyKind::Hatetris).next_piece(well).to_string(),
        };
        outln!(out, "{}", serde_json::to_string(&line)?)?;
    }
    Ok(())
}

/// Reads a non-empty file of wells for the benchmarks.
pub(crate) fn read_bench_wells(path: &Path) -> Result<Vec<Well>> {
    let text = read_input(Some(path), Input::Wells)?;
    let wells = read_wells(&text, &path.display().to_string())?;
    if wells.is_empty() {
        bail!("{} holds no wells", path.display());
    }
    Ok(wells)
}

fn bench_movegen(
    path: &Path,
    runs: usize,
    json: bool,
    transitions: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let wells = read_bench_wells(path)?;
    let b = bench::bench_movegen(&wells, runs);
    outln!(
        out,
        "wells: {} ({} runs, median, one thread)",
        b.wells,
        runs
    )?;
    outln!(
        out,
        "piece choice:                 {:8.3} us/well  (signature {})",
        b.choice_us,
        b.choice_signature
    )?;
    outln!(
        out,
        "choice + chosen children:     {:8.3} us/well  ({} children)",
        b.chosen_children_us,
        b.chosen_children
    )?;
    outln!(
        out,
        "children of all 7 pieces:     {:8.3} us/well  ({} children)",
        b.all7_children_us,
        b.all7_children
    )?;
    if transitions {
        let t = bench::bench_transitions(&wells, runs);
        outln!(
            out,
            "choice, direct transitions:   {:8.3} us/well\nchoice, ahash-map cache:      {:8.3} us/well  ({} distinct transitions; ratio {:.2})",
            t.direct_us,
            t.cached_us,
            t.distinct,
            t.cached_us / t.direct_us
        )?;
    }
    if json {
        /// The JSON line's keys; the figures to 4 decimals.
        #[derive(serde::Serialize)]
        struct Line {
            choice_us: f64,
            chosen_children_us: f64,
            all7_children_us: f64,
        }
        let four = |us: f64| (us * 1e4).round() / 1e4;
        let line = Line {
            choice_us: four(b.choice_us),
            chosen_children_us: four(b.chosen_children_us),
            all7_children_us: four(b.all7_children_us),
        };
        outln!(out, "{}", serde_json::to_string(&line)?)?;
    }
    Ok(())
}

pub(crate) fn decode_replay(arg: &str) -> Result<Vec<Key>> {
    let text = read_arg(arg, Input::Replay)?;
    replay::decode(&text).context("decoding the replay")
}

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

fn replay_cmd(cmd: ReplayCmd, out: &mut dyn Write) -> Result<()> {
    match cmd {
        ReplayCmd::Score { replay, enemy } => {
            let kind = enemy;
            let keys = decode_replay(&replay)?;
            let trace = replay::play(&keys, kind);
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
                outln!(out, "{:>6}  piece  lines  score", "lock")?;
                for (i, s) in steps.iter().enumerate() {
                    outln!(
                        out,
                        "{:>6}  {:>5}  {:>5}  {:>5}",
                        first + i,
                        s.piece,
                        s.lines,
                        s.score
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
            let file = Some(file.as_path()).filter(|p| p.as_os_str() != "-");
            let text = read_input(file, Input::Wells)?;
            let source = file.map_or("standard input".to_string(), |p| p.display().to_string());
            let chain = read_boards(&text, &source)?;
            let keys = replay::keys_from_wells(&chain, kind)?;
            outln!(out, "{}", replay::encode(&keys, format))?;
        }
    }
    Ok(())
}
