//! The run's progress on the terminal: a bar on a terminal (shown after
//! the first second), a plain line every 5 s otherwise (a log file, CI).
//! The engine reports through [`talus::run::Watch`]; this is the CLI's
//! watcher.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};
use talus::run::Watch;

pub struct Bar {
    bar: Option<ProgressBar>,
    shown: bool,
    start: Instant,
    last_plain: Instant,
}

impl Bar {
    pub fn new() -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} steps, ETA {eta} {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar
        });
        Bar {
            bar,
            shown: false,
            start: Instant::now(),
            last_plain: Instant::now(),
        }
    }
}

impl Watch for Bar {
    fn progress(&mut self, done: u64, total: u64, first: u64, particle_steps: f64) {
        let el = self.start.elapsed();
        let rate = particle_steps / el.as_secs_f64().max(1e-9);
        let Some(bar) = &self.bar else {
            if el > Duration::from_secs(1) && self.last_plain.elapsed() >= Duration::from_secs(5) {
                self.last_plain = Instant::now();
                let eta = el.as_secs_f64() * (total - done) as f64
                    / done.saturating_sub(first).max(1) as f64;
                eprintln!(
                    "step {done}/{total} ({:.0}%), {:.1} s elapsed, ETA {:.0} s, {:.3e} particle-steps/s",
                    100.0 * done as f64 / total.max(1) as f64,
                    el.as_secs_f64(),
                    eta,
                    rate
                );
            }
            return;
        };
        if !self.shown {
            bar.set_length(total);
            bar.set_position(first);
            bar.reset_eta();
            if el > Duration::from_secs(1) {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                self.shown = true;
            }
        }
        bar.set_position(done);
        bar.set_message(format!("{rate:.3e} particle-steps/s"));
    }

    fn notice(&mut self, line: &str) {
        match &self.bar {
            Some(bar) if self.shown => bar.suspend(|| eprintln!("{line}")),
            _ => eprintln!("{line}"),
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = &self.bar {
            if self.shown {
                bar.finish_and_clear();
            }
        }
    }
}
