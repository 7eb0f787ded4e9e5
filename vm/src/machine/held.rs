//! How much text a run may hold (book: reference/statements.md, "Limits"). tissvm itself runs
//! outside every sandbox (`--max-memory` holds a RUN, not tissvm), so the
//! plan's own values are bounded here: no text is made longer than
//! [`MAX_TEXT`], and what the variables, the operand stack, `ENV` and
//! `LAST_RUN` hold together stays within [`MAX_HELD`], which a snapshot
//! can keep. Without them a few lines exhausted the machine: forty
//! `VAR x = "${y}${y}"` doubled a string past any memory, thirty READs of a
//! 60 MiB file held 2 GB.
//!
//! Text is only measured where more of it is about to be made: an
//! interpolation (a RUN's command again once quoted), a READ, a record's
//! text field, an answer, an `ENV`; the check is one comparison
//! with a bound ([`HeldBound`]) until that bound would pass the limit, and
//! only then is the held text counted (a string several values share once).

use std::rc::Rc;

use crate::host::RunResult;
use crate::machine::Machine;
use crate::machine::failure::FailureKind;
use crate::machine::flow::Exec;
use crate::machine::value::{Record, Value};

/// The longest text a value may be (64 MiB, as much as a READ takes).
pub const MAX_TEXT: usize = 64 << 20;

/// The most text a run's values may hold at once (192 MiB): a snapshot
/// keeps at most 256 MiB (`tisslang::container::MAX_PAYLOAD`), and this
/// leaves 64 MiB of it for the bytecode and the rest of the state, so a
/// run within it can be suspended unless its bytecode is that large.
pub const MAX_HELD: usize = 192 << 20;

/// An upper bound on the text a run's values hold: what was counted last,
/// plus every text made since. Text is counted again only when the bound
/// would pass [`MAX_HELD`]. Unknown (counted at the next check) in a
/// machine taken from a snapshot. A cache, not run state: a snapshot does
/// not keep it, and machines are equal whatever it holds.
#[derive(Debug, Clone, Copy)]
pub struct HeldBound(usize);

impl HeldBound {
    pub const NOTHING: HeldBound = HeldBound(0);
    pub const UNKNOWN: HeldBound = HeldBound(usize::MAX);
}

impl Default for HeldBound {
    fn default() -> HeldBound {
        HeldBound::UNKNOWN
    }
}

impl PartialEq for HeldBound {
    fn eq(&self, _: &HeldBound) -> bool {
        true
    }
}

impl Value {
    /// The length of the value's text ([`Value::to_text`]) without making it.
    pub(in crate::machine) fn text_len(&self) -> usize {
        match self {
            Value::Str(s) | Value::Tainted(s) => s.len(),
            Value::Answer(a) => a.json.len(),
            other => other.to_text().len(),
        }
    }
}

/// Strings this short are added up without asking whether another value
/// shares them.
const SMALL: usize = 4 << 10;

/// Adds up text, each shared string once.
#[derive(Default)]
struct Tally {
    bytes: usize,
    /// The large strings counted, by address.
    seen: std::collections::HashSet<*const u8>,
}

impl Tally {
    fn shared(&mut self, text: &Rc<str>) {
        if text.len() < SMALL || self.seen.insert(text.as_ptr()) {
            self.bytes += text.len();
        }
    }

    /// A RUN's result, shared by `LAST_RUN` and the records made of it.
    fn run(&mut self, run: &Rc<RunResult>) {
        if self.seen.insert(Rc::as_ptr(run).cast()) {
            self.bytes += run.stdout.len() + run.stderr.len() + run.command.len();
        }
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::Str(s) | Value::Tainted(s) => self.shared(s),
            // The tree beside its JSON text.
            Value::Answer(a) => self.bytes += a.json.len() + a.value.held_bytes(),
            Value::Record(r) => match &**r {
                Record::LastRun { run, .. } => self.run(run),
                Record::Review { comment, .. } => self.bytes += comment.len(),
                _ => {}
            },
            Value::Int(_) | Value::Duration(_) | Value::Bool(_) => {}
        }
    }
}

impl Machine {
    /// Forgets what is known of the text held, which is then counted at the
    /// next check: for a machine given another's values.
    pub(crate) fn held_unknown(&mut self) {
        self.held_bound = HeldBound::UNKNOWN;
    }

    /// The text the run holds: its variables, operand stack, `ENV` and
    /// `LAST_RUN`.
    fn held_text(&self) -> usize {
        let mut tally = Tally::default();
        self.slots.iter().flatten().chain(&self.stack).for_each(|v| tally.value(v));
        tally.bytes += self.env.iter().map(|(name, value)| name.len() + value.len()).sum::<usize>();
        if let Some(run) = &self.last_run {
            tally.run(run);
        }
        tally.bytes
    }

    /// Room for `bytes` more of text, made by `what` (`an interpolation`,
    /// `a READ`, ...), or a `command_error` saying why there is none.
    pub(in crate::machine) fn room_for(&mut self, bytes: usize, what: &str) -> Result<(), Exec> {
        let mib = |n: usize| format!("{:.1} MiB", n as f64 / (1 << 20) as f64);
        if bytes > MAX_TEXT {
            return Err(Exec::Raise((
                FailureKind::CommandError,
                format!(
                    "{what} would make a text of {}, more than a value may hold ({} MiB): keep large text in a \
                     file, and READ or RUN on a part of it",
                    mib(bytes),
                    MAX_TEXT >> 20
                ),
            )));
        }
        let bound = self.held_bound.0.saturating_add(bytes);
        if bound <= MAX_HELD {
            self.held_bound = HeldBound(bound);
            return Ok(());
        }
        let held = self.held_text();
        if held + bytes > MAX_HELD {
            return Err(Exec::Raise((
                FailureKind::CommandError,
                format!(
                    "{what} would make {} more text, and the run's values hold {} already: together more than a \
                     run may hold ({} MiB); keep large text in files, not in variables",
                    mib(bytes),
                    mib(held),
                    MAX_HELD >> 20
                ),
            )));
        }
        self.held_bound = HeldBound(held + bytes);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_text_counts_once_and_small_text_always() {
        let big: Rc<str> = "x".repeat(SMALL).into();
        let mut tally = Tally::default();
        for _ in 0..3 {
            tally.value(&Value::Str(Rc::clone(&big)));
            tally.value(&Value::Tainted(Rc::clone(&big)));
            tally.value(&Value::Str("abc".into()));
        }
        assert_eq!(tally.bytes, SMALL + 9);
    }
}
