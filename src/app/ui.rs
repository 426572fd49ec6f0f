//! The terminal side of [`simfind::progress::Reporter`]: one indicatif bar per
//! stage ("2/4 Reading and signing"), shown only when stderr is a terminal and
//! `-q` was not given; warnings always go to stderr, above the bar. Also the
//! `-q`/`-v` flags every subcommand shares ([`Verbosity`]), the seconds each
//! stage took (for `-vv` and `--summary-json`), and `--color`: the one place
//! that decides whether the `error:`/`warning:` prefixes are coloured.

use std::fmt::{self, Display};
use std::io::IsTerminal;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::builder::styling::{AnsiColor, Style};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use simfind::progress::{Reporter, Stage};

/// `1 pair`, `2 pairs`: counts in summaries agree with their nouns.
pub fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// `-q` and `-v`, flattened into every subcommand so that each accepts them
/// in the same place with the same meaning.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct Verbosity {
    /// No progress bars and no summary on stderr (warnings and errors are still printed).
    #[arg(long, short = 'q', conflicts_with = "verbose", help_heading = "Output")]
    pub quiet: bool,

    /// More on stderr: -v names each file that takes no part in pairing without
    /// an error (binary, shorter than one shingle, hidden, excluded, ignored, a hard
    /// link counted once, a link not followed); -vv also prints the seconds of each
    /// stage.
    #[arg(long, short = 'v', action = clap::ArgAction::Count, help_heading = "Output")]
    pub verbose: u8,
}

/// `--color`: whether the `error:`/`warning:` prefixes (and clap's own
/// messages) are coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorArg {
    /// When stderr is a terminal and NO_COLOR is unset or empty (no-color.org).
    #[default]
    Auto,
    Always,
    Never,
}

static COLOR: AtomicBool = AtomicBool::new(false);

impl ColorArg {
    /// Whether this choice colours stderr in this process: `always` wins over
    /// NO_COLOR (a command-line flag overrides the environment, as no-color.org
    /// asks).
    pub fn enabled(self) -> bool {
        match self {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stderr().is_terminal()
            }
        }
    }

    /// The choice for the rest of the process.
    pub fn install(self) {
        COLOR.store(self.enabled(), Ordering::Relaxed);
    }
}

fn paint(text: &str, style: Style) -> String {
    if COLOR.load(Ordering::Relaxed) {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

/// `simfind: error:`, the one prefix of every error (clap's usage errors
/// included, see `cli::parse`).
pub fn error_prefix() -> String {
    format!(
        "simfind: {}",
        paint("error:", AnsiColor::Red.on_default().bold())
    )
}

/// `simfind: warning:`.
pub fn warning_prefix() -> String {
    format!(
        "simfind: {}",
        paint("warning:", AnsiColor::Yellow.on_default().bold())
    )
}

/// Seconds spent in each stage, in the order the stages began.
pub type StageSeconds = Vec<(Stage, f64)>;

/// The name of a stage in `--summary-json` and `-vv`.
pub fn stage_key(stage: Stage) -> &'static str {
    match stage {
        Stage::Walk => "walk",
        Stage::Sign => "sign",
        Stage::Band => "band",
        Stage::Verify => "verify",
        Stage::Join => "join",
        Stage::Count => "count",
    }
}

pub struct Ui {
    show_progress: bool,
    verbose: u8,
    bar: Mutex<Option<ProgressBar>>,
    /// Each stage's start, and its seconds once it ended.
    stages: Mutex<Vec<(Stage, Instant, Option<f64>)>>,
}

impl Ui {
    pub fn with(verbosity: Verbosity) -> Ui {
        Ui {
            show_progress: !verbosity.quiet && std::io::stderr().is_terminal(),
            verbose: verbosity.verbose,
            bar: Mutex::new(None),
            stages: Mutex::new(Vec::new()),
        }
    }

    /// The seconds of every stage that ended, summed per stage.
    pub fn stage_seconds(&self) -> StageSeconds {
        let mut out: StageSeconds = Vec::new();
        for &(stage, _, seconds) in self.stages.lock().expect("not poisoned").iter() {
            let Some(seconds) = seconds else { continue };
            match out.iter_mut().find(|(s, _)| *s == stage) {
                Some((_, total)) => *total += seconds,
                None => out.push((stage, seconds)),
            }
        }
        out
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
        self.stages
            .lock()
            .expect("not poisoned")
            .push((stage, Instant::now(), None));
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

    fn end(&self, stage: Stage) {
        if let Some(bar) = self.bar.lock().expect("not poisoned").take() {
            bar.finish_and_clear();
        }
        let seconds = {
            let mut stages = self.stages.lock().expect("not poisoned");
            let open = stages
                .iter_mut()
                .rev()
                .find(|(s, _, done)| *s == stage && done.is_none());
            open.map(|(_, start, done)| *done.insert(start.elapsed().as_secs_f64()))
        };
        if self.verbose >= 2
            && let Some(seconds) = seconds
        {
            self.print(format!(
                "simfind: stage {}/{} {}: {seconds:.3} s",
                stage.number(),
                Stage::ALL.len(),
                stage.describe()
            ));
        }
    }

    fn warn(&self, path: &Path, reason: &dyn Display) {
        self.print(format!(
            "{} {}: {reason}",
            warning_prefix(),
            shown_path(path)
        ));
    }

    fn note(&self, path: &Path, reason: &dyn Display) {
        if self.verbose >= 1 {
            self.print(format!("simfind: note: {}: {reason}", shown_path(path)));
        }
    }

    fn warning(&self, path: &Path, warning: &simfind::progress::Warning) {
        self.warn(path, &crate::app::speak::warning(warning));
    }

    fn notice(&self, path: &Path, notice: &simfind::progress::Notice) {
        if self.verbose >= 1 {
            self.note(path, &crate::app::speak::notice(notice));
        }
    }

    fn wants_notes(&self) -> bool {
        self.verbose >= 1
    }
}

/// A path as one line of stderr: control characters (a newline, a carriage
/// return, an escape) escaped as Rust writes them (`\n`, `\u{1b}`), so a
/// file named to look like a second message, or to move the cursor, cannot
/// forge or hide a line. Other paths are shown as `Path::display` shows them.
pub fn shown_path(path: &Path) -> std::borrow::Cow<'_, str> {
    let text = path.to_string_lossy();
    if !text.chars().any(char::is_control) {
        return text;
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            escaped.extend(c.escape_debug());
        } else {
            escaped.push(c);
        }
    }
    std::borrow::Cow::Owned(escaped)
}

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template("{prefix} [{bar:30}] {human_pos}/{human_len} ({eta})")
        .expect("valid template")
        .progress_chars("=> ")
}

/// What the binary's `eprintln!`/`eprint!` do (`src/main.rs`): one message to
/// stderr, written under its lock so that messages of several threads do not
/// interleave, and dropped if stderr cannot take it (closed, full).
pub fn write_to_stderr(args: fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_fmt(args);
}
