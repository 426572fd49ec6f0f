//! The terminal side of [`simfind::progress::Reporter`]: one indicatif bar per
//! stage ("2/4 Reading and signing"), shown only when stderr is a terminal and
//! `-q` was not given; warnings always go to stderr, above the bar.

use std::fmt::Display;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use simfind::progress::{Reporter, Stage};

/// `1 pair`, `2 pairs`: counts in summaries agree with their nouns.
pub fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

pub struct Ui {
    show_progress: bool,
    verbose: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl Ui {
    pub fn new(quiet: bool, verbose: bool) -> Ui {
        Ui {
            show_progress: !quiet && std::io::stderr().is_terminal(),
            verbose,
            bar: Mutex::new(None),
        }
    }

    fn print(&self, line: String) {
        match self.bar.lock().expect("not poisoned").as_ref() {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    fn with_bar(&self, f: impl FnOnce(&ProgressBar)) {
        if let Some(bar) = self.bar.lock().expect("not poisoned").as_ref() {
            f(bar);
        }
    }
}

impl Reporter for Ui {
    fn begin(&self, stage: Stage, total: Option<u64>) {
        if !self.show_progress {
            return;
        }
        let prefix = format!(
            "{}/{} {}",
            stage.number(),
            Stage::ALL.len(),
            stage.describe()
        );
        let bar = match total {
            Some(total) => ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
                .with_style(bar_style()),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
                ProgressStyle::with_template("{prefix} {spinner} {human_pos}")
                    .expect("valid template"),
            ),
        };
        bar.set_prefix(prefix);
        bar.enable_steady_tick(Duration::from_millis(120));
        *self.bar.lock().expect("not poisoned") = Some(bar);
    }

    fn set_total(&self, total: u64) {
        // The count becomes a bar once there is something to measure it by.
        self.with_bar(|bar| {
            bar.set_length(total);
            bar.set_style(bar_style());
        });
    }

    fn advance(&self, done: u64) {
        self.with_bar(|bar| bar.inc(done));
    }

    fn end(&self, _stage: Stage) {
        if let Some(bar) = self.bar.lock().expect("not poisoned").take() {
            bar.finish_and_clear();
        }
    }

    fn warn(&self, path: &Path, reason: &dyn Display) {
        self.print(format!("simfind: warning: {}: {reason}", path.display()));
    }

    fn note(&self, path: &Path, reason: &dyn Display) {
        if self.verbose {
            self.print(format!("simfind: note: {}: {reason}", path.display()));
        }
    }
}

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template("{prefix} [{bar:30}] {human_pos}/{human_len} ({eta})")
        .expect("valid template")
        .progress_chars("=> ")
}
