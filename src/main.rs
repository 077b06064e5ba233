//! The `hatetris` command line: a thin layer over the library.
//!
//! `main` turns the result of [`cli::run`] into an exit code: errors become
//! one line on stderr and exit code 1 (a full disk under standard output
//! too); a closed pipe (`hatetris ... | head`) is not an error.

mod cli;

// The beam search allocates a few big buffers per depth and frees them, from
// several threads. With an earlier design (a B-tree per depth), glibc's
// per-thread arenas fragmented and memory crept up depth after depth: the
// peak RSS that `hatetris search --width 100000` prints with each depth,
// same files, was 310 MB with glibc, 232 MB with glibc and
// MALLOC_ARENA_MAX=2, 166 MB with mimalloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

/// Makes mimalloc give freed memory back at once and commit arena memory
/// only when it is used, unless the user chose otherwise through its
/// `MIMALLOC_*` variables. Its defaults keep each depth's freed buffers
/// resident for a while: `hatetris search --width 10000` peaked at 55 MB
/// instead of 17 MB, same run and speed.
///
/// It runs as a constructor, before `main`: mimalloc reserves its first
/// arena at the first allocation, and the eager-commit option only applies
/// to arenas reserved after it is set (set from `main`, the same run peaked
/// at 36 MB).
#[ctor::ctor]
fn tune_allocator() {
    // Positions in mimalloc.h's `mi_option_e` (the same in its v2 and v3).
    const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    for (option, var) in [
        (ARENA_EAGER_COMMIT, "MIMALLOC_ARENA_EAGER_COMMIT"),
        (PURGE_DELAY, "MIMALLOC_PURGE_DELAY"),
    ] {
        if std::env::var_os(var).is_none() {
            // SAFETY: setting an option is a plain store in mimalloc; it
            // applies to memory obtained from the OS from now on.
            unsafe { libmimalloc_sys::mi_option_set(option, 0) };
        }
    }
}

/// Makes mimalloc return the calling thread's freed memory to the system,
/// including blocks other threads freed on its behalf (see
/// `hatetris::search::Options::release_memory`).
fn release_memory() {
    // SAFETY: a collection only walks and frees mimalloc's own structures
    // for the calling thread; it has no preconditions.
    unsafe { libmimalloc_sys::mi_collect(true) };
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so a print to a closed pipe (`hatetris search |
    // head -1`) fails, and `println!` turns that failure into a panic. Like
    // other Unix tools, stop quietly instead: every file is already written
    // by the time anything is printed.
    #[cfg(unix)]
    // SAFETY: restoring a signal's default action has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let result = cli::run();
    // A signal's handler is ending the process (Ctrl-C on a command that
    // ends at once): whatever failed under it is its doing, and it sets
    // the exit code.
    while cli::exiting() {
        std::thread::park();
    }
    match result {
        Ok(()) if cli::interrupted() => ExitCode::from(130),
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            if err.chain().any(|e| {
                e.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            // A failing standard error is ignored: there is nowhere left
            // to say so, and the exit code still does.
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "hatetris: {err:#}");
            ExitCode::FAILURE
        }
    }
}
