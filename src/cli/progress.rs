//! The progress bar the long commands draw on standard error (`search`,
//! `train`, `tune`), written once: its style, its replacement at each step,
//! and its silence under `--quiet`.
//!
//! A bar is shared by the threads that advance it (the search's workers),
//! so it sits behind a mutex; a step (a depth, a training phase) puts a
//! fresh bar in its place. indicatif hides a bar by itself when standard
//! error is not a terminal, so logs and tests see only the lines; what the
//! bar would have shown there goes to the log as lines ([`Bar::log`]).

use std::borrow::Cow;
use std::fmt::Display;
use std::io::IsTerminal;
use std::sync::{Mutex, MutexGuard};

use indicatif::{ProgressBar, ProgressStyle};

use super::note;

/// One bar at a time, replaced at each step; nothing at all when quiet.
pub(crate) struct Bar {
    bar: Mutex<ProgressBar>,
    quiet: bool,
}

impl Bar {
    /// No bar yet (a hidden one until the first [`Bar::start`]).
    pub(crate) fn new(quiet: bool) -> Bar {
        Bar {
            bar: Mutex::new(ProgressBar::hidden()),
            quiet,
        }
    }

    /// The bar now (a panicked holder's bar is still a bar).
    pub(crate) fn get(&self) -> MutexGuard<'_, ProgressBar> {
        self.bar.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh bar of `total` steps drawn with indicatif's `template`,
    /// showing `message` as its `{msg}`; unless quiet.
    pub(crate) fn start(&self, total: u64, template: &str, message: impl Into<Cow<'static, str>>) {
        if self.quiet {
            return;
        }
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(template)
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_message(message);
        *self.get() = bar;
    }

    /// `n` more steps done.
    pub(crate) fn inc(&self, n: u64) {
        self.get().inc(n);
    }

    /// The bar wiped from the screen.
    pub(crate) fn clear(&self) {
        self.get().finish_and_clear();
    }

    /// A line on standard error, above the bar; unless quiet.
    pub(crate) fn say(&self, line: impl Display) {
        if !self.quiet {
            self.get().suspend(|| note!("{line}"));
        }
    }

    /// A line on standard error only where no bar is drawn (standard error
    /// is not a terminal: a log), standing in for the bar's progress;
    /// unless quiet.
    pub(crate) fn log(&self, line: impl Display) {
        if !self.quiet && !std::io::stderr().is_terminal() {
            note!("{line}");
        }
    }
}
