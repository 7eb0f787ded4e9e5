//! Running a session on to its next stop, and back to an earlier one: what
//! stops it (a statement, a breakpoint whose condition holds, a caught
//! failure an exception filter asks for, Ctrl-C or a front end's pause),
//! told as a [`Stop`] that each front end words its own way (the CLI's
//! text here, DAP's `stopped` event in `crate::dap`).

use std::cell::Cell;

use tisslang::cost::Dim;

use super::{BREAK, Breakpoint, Debugger, Target};
use crate::host::{Host, Question};
use crate::machine::program::Program;
use crate::machine::{Machine, Outcome, Suspension};
use crate::session::answers;
use crate::session::interrupt;

use super::rewind::Rewind;
use super::text::{end_text, ended_name};

/// How far a command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Continue,
    /// To the next statement, into CALLs.
    Step,
    /// To a statement at this CALL depth or a shallower one.
    Next(usize),
    /// To a statement with fewer open steps and CALLs than this.
    Out(usize),
}

/// A failure a TRY caught, as the exception filters see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caught {
    /// The failure's kind (`assertion_failed`, `command_error`, ...).
    pub kind: String,
    pub message: String,
}

/// Which failures stop a session where a TRY catches them (the exception
/// breakpoints of book: cookbook/debugging.md); an uncaught one ends the run, and the front end
/// tells it as it will.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Exceptions {
    /// Caught assertion failures.
    pub assertions: bool,
    /// Every caught failure.
    pub failures: bool,
}

impl Exceptions {
    pub fn stops_at(&self, caught: &Caught) -> bool {
        self.failures || (self.assertions && caught.kind == "assertion_failed")
    }

    fn any(&self) -> bool {
        self.assertions || self.failures
    }
}

/// Why a run that can go on paused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// The statement a `step`, `next` or step-out runs to.
    Step,
    /// Breakpoints (their ids) whose condition and hit count hold here.
    Breakpoints(Vec<u32>),
    /// Ctrl-C, or a front end's pause.
    Interrupted,
    /// A TRY caught this failure; the session stands where its CATCH starts.
    Caught(Caught),
    /// A breakpoint's condition could not be evaluated here: it stops, to
    /// be looked at, as a debugger does.
    ConditionFailed { id: u32, error: String },
}

/// Where a command left the session.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// Before a statement: the run can go on.
    Paused { why: Why, killed_run: bool },
    /// The run waits for a human's answer to `question`.
    Waiting { question: Question, interrupted: bool, killed_run: bool },
    /// The run ended now: passed, failed, or trapped.
    Ended(Outcome),
    /// Nothing ran: the run had ended before.
    Over(Outcome),
}

/// What a breakpoint does where it is reached.
enum Decision {
    Stop,
    Pass,
    Log(String),
    Failed(String),
}

impl Breakpoint {
    /// Its condition, hit count and message, at `machine`. Hits count
    /// only where the condition holds.
    fn decide(&self, machine: &Machine) -> Decision {
        if let Some(condition) = &self.condition {
            match condition.probe.holds(machine) {
                Ok(true) => {}
                Ok(false) => return Decision::Pass,
                Err(e) => return Decision::Failed(format!("the condition `{}` failed: {e}", condition.text)),
            }
        }
        let hits = self.hits.get() + 1;
        self.hits.set(hits);
        if self.hit_condition.is_some_and(|h| !h.admits(hits)) {
            return Decision::Pass;
        }
        match &self.log_message {
            Some(message) => Decision::Log(match message.probe.eval(machine) {
                Ok(value) => value.to_text().to_string(),
                Err(e) => format!("{} ({e})", message.text),
            }),
            None => Decision::Stop,
        }
    }
}

impl<H: Host> Debugger<H> {
    /// Runs until `mode` says stop, a breakpoint, the end, a failure or a
    /// suspension. With `skip_first`, the instruction at the pc runs before
    /// anything can stop (the session is stopped there now).
    pub fn resume(&mut self, mode: Mode, skip_first: bool) -> Stop {
        if let Some(outcome) = &self.ended {
            return Stop::Over(outcome.clone());
        }
        let stops = &self.stops;
        let breakpoints = &self.breakpoints;
        let program = &self.program;
        let exceptions = self.exceptions;
        let on_log = &mut self.on_log;
        let start = self.machine.meters[Dim::Instructions];
        // The pc and CALL depth of the last statement that started: a line
        // breakpoint stops when execution enters its line from another one.
        let mut last = (self.machine.pc, self.machine.frames.len());
        let mut why = Why::Step;
        let killed_before = interrupt::killed_runs();
        let position = std::rc::Rc::clone(&self.tape.position);
        let caught = std::rc::Rc::clone(&self.tape.caught);
        caught.borrow_mut().take();
        let history = &mut self.history;
        let mut host = Rewind { live: &mut self.host, tape: &mut self.tape, quiet: false };
        let outcome = self.machine.run_until(program, &mut host, |m| {
            // A caught failure stops where its CATCH starts, if asked to.
            if exceptions.any()
                && let Some(c) = caught.borrow_mut().take()
                && exceptions.stops_at(&c)
            {
                why = Why::Caught(c);
                return true;
            }
            // The hot path: most instructions start no statement.
            let flags = stops.get(m.pc as usize).copied().unwrap_or(0);
            if flags == 0 {
                return false;
            }
            let first = skip_first && m.meters[Dim::Instructions] == start;
            // Every statement reached is a place `back` can return to (the
            // one the session stands at is kept already).
            if !first {
                history.keep(m, position.get());
            }
            // Ctrl-C (or a front end's pause, `interrupt::raise`) stops at
            // the next statement: no effect can come first.
            if interrupt::requested_fast() {
                why = Why::Interrupted;
                return true;
            }
            let here = (m.pc, m.frames.len());
            // The instruction the session stands at runs before anything stops.
            if first {
                last = here;
                return false;
            }
            let mut hits = Vec::new();
            if flags & BREAK != 0 {
                for b in reached(breakpoints, program, last, here) {
                    match b.decide(m) {
                        Decision::Stop => hits.push(b.id),
                        Decision::Pass => {}
                        Decision::Log(text) => on_log(&text),
                        Decision::Failed(error) => {
                            why = Why::ConditionFailed { id: b.id, error };
                            return true;
                        }
                    }
                }
            }
            last = here;
            if !hits.is_empty() {
                why = Why::Breakpoints(hits);
                return true;
            }
            match mode {
                Mode::Continue => false,
                Mode::Step => true,
                Mode::Next(max) => here.1 <= max,
                Mode::Out(depth) => m.frames.len() + m.steps.len() < depth,
            }
        });
        let interrupted = interrupt::requested();
        if interrupted {
            interrupt::reset();
        }
        let killed_run = interrupt::killed_runs() > killed_before;
        match outcome {
            Outcome::Running | Outcome::Suspended(Suspension::Requested) => {
                let why = if interrupted && why == Why::Step { Why::Interrupted } else { why };
                Stop::Paused { why, killed_run }
            }
            Outcome::Suspended(Suspension::Interaction { question, .. }) => {
                Stop::Waiting { question, interrupted, killed_run }
            }
            ended => {
                self.ended = Some(ended.clone());
                Stop::Ended(ended)
            }
        }
    }

    /// The depth [`Mode::Out`] runs out of: the open steps and CALLs.
    pub fn depth(&self) -> usize {
        self.machine.frames.len() + self.machine.steps.len()
    }

    /// The CLI's words for a command that runs.
    pub(super) fn go(&mut self, mode: Mode, skip_first: bool) -> String {
        let stop = self.resume(mode, skip_first);
        self.stop_words(&stop)
    }

    /// A stop as the CLI tells it.
    pub(super) fn stop_words(&self, stop: &Stop) -> String {
        let (mut text, killed) = match stop {
            Stop::Over(outcome) => {
                return format!(
                    "the plan has ended ({}): nothing is left to run; where, print, locals and list still work",
                    ended_name(outcome)
                );
            }
            Stop::Paused { why, killed_run } => {
                let header = match why {
                    Why::Step => "at".to_string(),
                    Why::Interrupted => "interrupted (Ctrl-C) at".to_string(),
                    Why::Breakpoints(ids) => match ids.as_slice() {
                        [one] => format!("hit breakpoint {one} at"),
                        many => format!("hit breakpoints {} at", join(many)),
                    },
                    Why::Caught(c) => format!("caught {} ({}) at", c.kind, c.message),
                    Why::ConditionFailed { id, error } => format!("breakpoint {id}: {error}; stopped at"),
                };
                (self.stop_text(&header), *killed_run)
            }
            Stop::Waiting { question, interrupted: true, killed_run } => {
                let mut text = self.stop_text("interrupted (Ctrl-C) at");
                text.push_str(&format!(
                    "\nwaiting for an answer to {}: `continue` asks again; `save FILE` writes a snapshot",
                    question.describe()
                ));
                (text, *killed_run)
            }
            Stop::Waiting { question, killed_run, .. } => {
                let mut text = self.stop_text("suspended at");
                text.push_str(&format!(
                    "\nwaiting for an answer to {}: none is available (no terminal, --non-interactive, or the \
                     answers ran out)\n`save FILE` writes a snapshot; `tissvm resume FILE --answer {}` continues it",
                    question.describe(),
                    answers::expected_answers(question)
                ));
                (text, *killed_run)
            }
            Stop::Ended(outcome) => (end_text(outcome), false),
        };
        if killed {
            text.push_str(
                "\nthe RUN in flight was killed by a second Ctrl-C: LAST_RUN holds what it left, and the run goes on \
                 from there",
            );
        }
        text
    }

    /// `back`: to the statement before this one; `reverse-continue`
    /// (`to_break`): to the last earlier one a breakpoint stops at, or the
    /// first kept. The machine is the one kept there, or rebuilt
    /// (`history.rs`); what the run takes from outside from there on comes
    /// from the tape. `Err`: there is
    /// nothing to go back to.
    pub fn go_back(&mut self, to_break: bool) -> Result<Vec<u32>, String> {
        let now = self.machine.meters[Dim::Instructions];
        let kept = &mut self.history.reached;
        // Standing at the last statement kept: it is not "before".
        if self.ended.is_none() && kept.back().is_some_and(|r| r.instructions == now) && kept.len() > 1 {
            kept.pop_back();
        }
        if kept.is_empty() || (self.ended.is_none() && kept.len() == 1 && kept[0].instructions == now) {
            return Err("at the first statement the session reached: nothing before it".into());
        }
        let mut hits = Vec::new();
        if to_break {
            while self.history.reached.len() > 1 {
                let kept = &self.history.reached;
                let (here, last) = {
                    let (r, before) = (&kept[kept.len() - 1], &kept[kept.len() - 2]);
                    ((r.pc, r.depth), (before.pc, before.depth))
                };
                if self.stops.get(here.0 as usize).is_some_and(|f| f & BREAK != 0) {
                    let conditional = reached(&self.breakpoints, &self.program, last, here)
                        .any(|b| b.log_message.is_none() && b.condition.is_some());
                    // A condition is asked of the machine there, rebuilt if need be.
                    let machine =
                        if conditional { self.machine_at(self.history.reached.len() - 1).ok() } else { None };
                    hits = reached(&self.breakpoints, &self.program, last, here)
                        .filter(|b| b.log_message.is_none())
                        .filter(|b| {
                            b.condition.as_ref().is_none_or(|c| {
                                machine.as_ref().is_none_or(|m| c.probe.holds(m).unwrap_or(true))
                            })
                        })
                        .map(|b| b.id)
                        .collect();
                    if !hits.is_empty() {
                        break;
                    }
                }
                self.history.reached.pop_back();
            }
        }
        self.machine = self.machine_at(self.history.reached.len() - 1)?;
        self.ended = None;
        Ok(hits)
    }

    /// Whether what the run does from here on is replayed from the tape.
    pub fn replaying(&self) -> bool {
        self.tape.replaying()
    }

    /// The CLI's `back` and `reverse-continue`.
    pub(super) fn back(&mut self, to_break: bool) -> String {
        let hits = match self.go_back(to_break) {
            Ok(hits) => hits,
            Err(why) => return why,
        };
        let header = match hits.as_slice() {
            [] if to_break => "no breakpoint before: back at the first statement kept,".to_string(),
            [] => "back at".to_string(),
            [one] => format!("back at breakpoint {one},"),
            many => format!("back at breakpoints {},", join(many)),
        };
        let mut text = self.stop_text(&header);
        if self.tape.replaying() {
            text.push_str(
                "\n(what the run did from here on is replayed, not done again, until it goes further)",
            );
        }
        text
    }
}

fn join(ids: &[u32]) -> String {
    ids.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// The breakpoints reached at `here` (pc, CALL depth): a step breakpoint
/// always, a line breakpoint when execution enters its line (the `last`
/// statement was on another line or at another CALL depth).
fn reached<'b>(
    breakpoints: &'b [Breakpoint],
    program: &Program,
    last: (u32, usize),
    here: (u32, usize),
) -> impl Iterator<Item = &'b Breakpoint> {
    let entered = last.1 != here.1 || program.line(last.0) != program.line(here.0);
    breakpoints
        .iter()
        .filter(move |b| b.pcs.contains(&here.0))
        .filter(move |b| entered || matches!(b.target, Target::Step(_)))
}

/// A hit count's test: `N` stops at the N-th hit, `>= N` from it on, `> N`
/// after it, `% N` at every N-th.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitCondition {
    Exactly(u32),
    AtLeast(u32),
    Every(u32),
}

impl HitCondition {
    pub fn parse(text: &str) -> Result<HitCondition, String> {
        let text = text.trim();
        let number = |s: &str| {
            s.trim().parse::<u32>().map_err(|_| {
                format!("`{text}` is not a hit count: write N (the N-th hit), >= N (from it on) or % N (every N-th)")
            })
        };
        let condition = if let Some(rest) = text.strip_prefix(">=") {
            HitCondition::AtLeast(number(rest)?)
        } else if let Some(rest) = text.strip_prefix('>') {
            HitCondition::AtLeast(number(rest)?.saturating_add(1))
        } else if let Some(rest) = text.strip_prefix('%') {
            match number(rest)? {
                0 => return Err("`% 0` never stops: the count is from 1".into()),
                n => HitCondition::Every(n),
            }
        } else {
            HitCondition::Exactly(number(text.strip_prefix("==").unwrap_or(text))?)
        };
        Ok(condition)
    }

    pub fn admits(&self, hits: u32) -> bool {
        match *self {
            HitCondition::Exactly(n) => hits == n,
            HitCondition::AtLeast(n) => hits >= n,
            HitCondition::Every(n) => hits.is_multiple_of(n),
        }
    }
}

/// A hit count kept in a breakpoint: its hits so far.
pub(super) type Hits = Cell<u32>;

#[cfg(test)]
mod tests {
    use super::HitCondition;

    #[test]
    fn hit_conditions_read_as_dap_clients_write_them() {
        assert_eq!(HitCondition::parse("3"), Ok(HitCondition::Exactly(3)));
        assert_eq!(HitCondition::parse(">= 2"), Ok(HitCondition::AtLeast(2)));
        assert_eq!(HitCondition::parse(">2"), Ok(HitCondition::AtLeast(3)));
        assert_eq!(HitCondition::parse("% 4"), Ok(HitCondition::Every(4)));
        assert!(HitCondition::parse("% 0").is_err());
        assert!(HitCondition::parse("x").unwrap_err().contains("not a hit count"));
        assert!(HitCondition::Every(2).admits(4) && !HitCondition::Every(2).admits(3));
        assert!(HitCondition::Exactly(2).admits(2) && !HitCondition::Exactly(2).admits(3));
    }
}
