//! The progress bar of a report: on stderr, only when stderr is a terminal, and only once the
//! run has lasted more than a moment (files, bytes, rate, time left).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes before its bar appears.
const MOMENT: Duration = Duration::from_millis(400);

/// Progress over a known number of bytes on disk.
pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    shown: AtomicBool,
}

impl Progress {
    /// A bar over `bytes` bytes and `files` files; silent when `quiet` or when stderr is not a
    /// terminal.
    pub fn new(bytes: u64, files: usize, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(bytes), ProgressDrawTarget::hidden());
            let style = ProgressStyle::with_template(
                "{prefix} {wide_bar} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_prefix(format!("0/{files} files"));
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }

    fn reveal(&self, bar: &ProgressBar) {
        if !self.shown.load(Ordering::Relaxed)
            && self.started.elapsed() >= MOMENT
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// `bytes` more bytes read from disk.
    pub fn read(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
            self.reveal(bar);
        }
    }

    /// One more file done, of `files`.
    pub fn file_done(&self, done: usize, files: usize) {
        if let Some(bar) = &self.bar {
            bar.set_prefix(format!("{done}/{files} files"));
            self.reveal(bar);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
