//! `run`'s progress on stderr: one bar per part with its estimate, then the part's time.
//! The run reports through [`Progress`]; only the CLI draws.

use std::sync::Mutex;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::results::plan::Part;
use crate::run::execute::Progress;

/// Progress bars on stderr, one per part.
#[derive(Default)]
pub(super) struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    started: Mutex<Option<(Part, Instant)>>,
}

impl Progress for Bars {
    fn start(&self, part: Part, estimate_s: f64) {
        let b = ProgressBar::with_draw_target(Some(1), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template("{prefix:>16} [{bar:30}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        b.set_prefix(part.name());
        b.set_message(format!("(about {estimate_s:.0} s)"));
        b.set_position(0);
        *self.bar.lock().unwrap() = Some(b);
        *self.started.lock().unwrap() = Some((part, Instant::now()));
    }
    fn step(&self, done: usize, total: usize) {
        if let Some(b) = self.bar.lock().unwrap().as_ref() {
            b.set_length(total as u64);
            b.set_position(done as u64);
        }
    }
    fn finish(&self) {
        if let Some(b) = self.bar.lock().unwrap().take() {
            b.finish_and_clear();
        }
        if let Some((p, t)) = self.started.lock().unwrap().take() {
            crate::cli::ui::stderr_line(&format!(
                "{:>16} done in {:.1} s",
                p.name(),
                t.elapsed().as_secs_f64()
            ));
        }
    }
}
