//! Runs one command: parse the arguments, check them, call the library,
//! print. Nothing here knows how the engine works: a search is assembled
//! by [`hatetris::launch`], and this layer turns flags into its request and
//! its progress into bars and lines.
//!
//! This file dispatches and holds the output macros; each command (or
//! family) has its own file: `input` (files, `-` and `@FILE`), `movegen`,
//! `replay`, `search` (with `cluster` for the sharded search and
//! `bench_search`), `eval`, `train`, `tune`, `strength` (`bench
//! strength`), `status`, `plot`, `verify`;
//! `progress` draws the bars they share; `interrupt` is Ctrl-C's handler
//! for all of them; `args` holds the flags.

mod args;
mod bench_search;
mod cluster;
mod eval;
mod input;
mod interrupt;
mod movegen;
mod plot;
mod progress;
mod replay;
mod search;
mod status;
mod strength;
mod train;
mod tune;
mod verify;

use std::io::{self, BufWriter, Write};

use anyhow::{Context, Result};
use clap::Parser;

use args::{BenchCmd, Cli, Command, MovegenCmd};

/// Set when a search was stopped by a signal: the process then exits with
/// code 130, as a shell reports an interrupted command, though everything
/// was written.
pub(crate) static INTERRUPTED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Whether a search was stopped by a signal (see [`INTERRUPTED`]).
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether a signal's handler is ending the process (see
/// [`interrupt::exiting`]): `main` then waits for it instead of reporting.
pub fn exiting() -> bool {
    interrupt::exiting()
}

/// The context of every error writing to standard output (a full disk, say).
pub(crate) const STDOUT: &str = "writing to standard output";

/// `writeln!` to a writer, with the error naming standard output: the
/// commands print only through this, never `println!` (which panics when
/// standard output fails).
macro_rules! outln {
    ($out:expr) => {
        ::anyhow::Context::context(writeln!($out), $crate::cli::STDOUT)
    };
    ($out:expr, $($arg:tt)*) => {
        ::anyhow::Context::context(writeln!($out, $($arg)*), $crate::cli::STDOUT)
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

/// The commands' standard output, taken for them alone: the process's
/// standard output is moved to a new descriptor, which this writes to, and
/// descriptor 1 then points at standard error (at `/dev/null` for a
/// `--quiet` command). So whatever a library prints on its own (timely's
/// networking threads print "awaiting connections" and the like while a
/// sharded search connects) goes with the progress lines, or nowhere when
/// they are not wanted (an error then stays one line), and standard output
/// holds only what the command writes through `out`: its `--json` value
/// alone, when asked for. Where descriptors cannot be moved (not Unix, or
/// no standard output open), standard output as it is.
fn command_stdout(quiet: bool) -> Box<dyn Write> {
    #[cfg(unix)]
    {
        use std::os::fd::{AsRawFd, FromRawFd};
        let null = quiet
            .then(|| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/null")
                    .ok()
            })
            .flatten();
        let target = null.as_ref().map_or(2, |f| f.as_raw_fd());
        // SAFETY: `dup` and `dup2` only copy descriptors; the new one is
        // this process's own and is owned by the `File` alone.
        unsafe {
            let own = libc::dup(1);
            if own >= 0 {
                if libc::dup2(target, 1) >= 0 {
                    return Box::new(std::fs::File::from_raw_fd(own));
                }
                libc::close(own);
            }
        }
    }
    let _ = quiet;
    Box::new(io::stdout())
}

/// Parses the command line and runs it.
pub fn run() -> Result<()> {
    let cli = Cli::parse();
    // Not `stdout().lock()` for the whole command: threads that print on
    // their own would wait on that lock forever (see `command_stdout`).
    let mut out = BufWriter::new(command_stdout(cli.quiet()));
    let out_ref: &mut dyn Write = &mut out;
    match cli.command {
        Command::Movegen(MovegenCmd::Children { wells }) => {
            movegen::movegen_children(wells.as_deref(), out_ref)
        }
        Command::Bench(BenchCmd::Movegen(a)) => movegen::bench_movegen(
            a.wells.as_deref().map(input::at_file).as_deref(),
            a.runs as usize,
            a.json,
            a.transitions,
            out_ref,
        ),
        Command::Replay(cmd) => replay::replay_cmd(cmd, out_ref),
        Command::Search(a) => search::search(a, out_ref),
        Command::Keyframes(a) => search::keyframes(a, out_ref),
        Command::Verify(a) => verify::verify(a, out_ref),
        Command::Eval(a) => eval::eval(a, out_ref),
        Command::Train(a) => train::train(*a, out_ref),
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
        Command::Bench(BenchCmd::Strength(a)) => strength::bench_strength(a, out_ref),
    }?;
    out.flush().context(STDOUT)
}
