//! The `hatetris` command line: a thin layer over the library.
//!
//! `main` turns the result of [`cli::run`] into an exit code: errors become
//! one line on stderr and exit code 1; a closed pipe (`hatetris ... | head`)
//! is not an error.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            if err.chain().any(|e| {
                e.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("hatetris: {err:#}");
            ExitCode::FAILURE
        }
    }
}
