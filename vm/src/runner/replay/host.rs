//! The host of a replay: every effect answered from the journal, nothing
//! done (no process started, no file written, no model or human asked).
//! Each request is checked against the entry the recorded run made at
//! that point; the first that differs stops the replay (`diverged`), as
//! does an output the journal did not keep whole (it cannot be given back).
//! What the run shows (step lines, the log, the report's effects) goes
//! through an [`OsHost`] whose workspace is an empty directory it never
//! touches, so a replay prints what the run printed.

use std::cell::Cell;
use std::rc::Rc;

use crate::host::{
    Answer, AskedAt, Event, FileQuery, Host, HostError, PromptError, PromptRequest, PromptResponse, Question,
    RunRequest, RunResult,
};
use crate::runner::os_host::OsHost;
use crate::session::journal::reader::{JournalReader, Next};
use crate::session::journal::{Entry, Kept, prompt_key};

/// Why a replay stops before its plan does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The plan asks for another effect than the one recorded here.
    Diverged { recorded: String, requested: String },
    /// The effect's recorded output was kept only in part.
    Incomplete { what: String },
    /// The journal cannot be read on from here.
    Unreadable(String),
}

impl Stop {
    /// The exit status a replay that stops here ends with, whether
    /// `tissvm replay` or the debugger's replay launch runs it: the plan
    /// parted from its journal (1), or the journal cannot be replayed on (2).
    pub fn status(&self) -> u8 {
        match self {
            Stop::Diverged { .. } => crate::runner::status::FAILED,
            Stop::Incomplete { .. } | Stop::Unreadable(_) => crate::runner::status::INVALID,
        }
    }
}

/// What followed a recorded suspension ([`ReplayHost::past_suspension`]).
pub(crate) struct Suspended {
    /// The snapshot the recorded run's end names.
    pub snapshot: Option<String>,
    /// Whether the run was resumed (its resumed part follows).
    pub resumed: bool,
}

pub struct ReplayHost {
    pub shown: OsHost,
    /// The shown host's workspace when it is only for show: empty, and
    /// removed when the replay ends.
    _empty: Option<tempfile::TempDir>,
    reader: JournalReader,
    next: Option<Entry>,
    /// Where the journal ended cut short, if it did.
    pub torn: Option<u64>,
    last_clock: u64,
    /// The time the recorded run spent stopped (checkpoints written), left
    /// out of every reading given after it.
    gap: u64,
    /// Added to each clock reading of the part of the run being replayed:
    /// a resumed part is a process of its own, whose clock starts again,
    /// and its readings are shifted to go on from the last one before
    /// ([`ReplayHost::on_timeline`]). Zero until a suspension is passed.
    shift: i128,
    /// A resumed part's start was passed: its first reading sets `shift`.
    shift_next: bool,
    /// The last reading taken, shifted.
    last_reading: u64,
    pub stop: Option<Stop>,
    /// Set with `stop`, read by the dispatch loop's stop check.
    pub stopped: Rc<Cell<bool>>,
    /// The tokens each answer was allowed: the recorded run's (its
    /// `Entry::Limits`), the default for a journal without them.
    pub allowance: u64,
}

impl ReplayHost {
    /// `reader` stands after the entries already taken (the first `start`).
    pub fn new(shown: OsHost, empty: Option<tempfile::TempDir>, reader: JournalReader) -> ReplayHost {
        ReplayHost {
            shown,
            _empty: empty,
            reader,
            next: None,
            torn: None,
            last_clock: 0,
            gap: 0,
            shift: 0,
            shift_next: false,
            last_reading: 0,
            stop: None,
            stopped: Rc::new(Cell::new(false)),
            allowance: tisslang::analysis::cost_model::DEFAULT_MAX_TOKENS,
        }
    }

    /// The first frame read that this user's key did not sign, if the
    /// reader was asked to note it.
    pub fn not_yours(&self) -> Option<&crate::session::journal::signature::NotYours> {
        self.reader.not_yours()
    }

    /// Takes how the recorded run (or its resumed part) was set up, where
    /// it is next, after its start: the isolation RUN had (`Entry::Sandbox`)
    /// and what it was held to (`Entry::Limits`, which a journal of format 1
    /// does not have; see `limits.rs`).
    pub fn take_setup(&mut self) -> (Option<Entry>, Option<Entry>) {
        let sandbox = match self.peek() {
            Some(Entry::Sandbox { .. }) => self.take(),
            _ => None,
        };
        let limits = match self.peek() {
            Some(Entry::Limits { .. }) => self.take(),
            _ => None,
        };
        (sandbox, limits)
    }

    /// [`ReplayHost::take_setup`], then `machine`, `program` and this host
    /// held to what the recorded run (or its resumed part) was held to:
    /// what a replay does at each start. The sandbox it recorded, for the
    /// report, by this tissvm's names (a name it does not know is refused).
    pub(crate) fn set_up_as_recorded(
        &mut self,
        machine: &mut crate::machine::Machine,
        program: &mut crate::machine::program::Program,
    ) -> Result<Option<tiss_host::sandbox::Isolation>, String> {
        let (sandbox, limits) = self.take_setup();
        self.allowance = super::limits::hold(limits, machine, program)?;
        super::sandbox(sandbox)
    }

    /// Where the machine suspended at a gate the journal holds no answer
    /// to: the recorded run stopped here. Takes its end (the snapshot it
    /// kept) and, when the run was resumed, the resumed part's start: the
    /// replay goes on into that part, whose setup is next (a replay holds
    /// itself to it, [`ReplayHost::set_up_as_recorded`]; a restart, which
    /// goes by its own limits, takes it, [`ReplayHost::take_setup`]).
    pub(crate) fn past_suspension(&mut self) -> Suspended {
        let snapshot = match self.take() {
            Some(Entry::End { snapshot, .. }) => snapshot,
            _ => None,
        };
        let resumed = matches!(self.peek(), Some(Entry::Start { resumed: true, .. }));
        if resumed {
            self.take();
            self.shift_next = true;
        }
        Suspended { snapshot, resumed }
    }

    /// The next entry, not taken.
    pub fn peek(&mut self) -> Option<&Entry> {
        if self.next.is_none() && self.stop.is_none() && self.torn.is_none() {
            match self.reader.next_entry() {
                Ok(Next::Entry(_, entry)) => self.next = Some(*entry),
                Ok(Next::Torn(at)) => self.torn = Some(at),
                Ok(Next::End) => {}
                Err(e) => self.halt(Stop::Unreadable(e.message)),
            }
        }
        self.next.as_ref()
    }

    pub fn take(&mut self) -> Option<Entry> {
        self.peek();
        self.next.take()
    }

    /// Takes the next entry as what the run took from outside: a restarted
    /// run's new journal ([`OsHost::journal`]) gets it too, so it is complete.
    /// A clock reading is recorded as it is given, on one timeline
    /// ([`ReplayHost::on_timeline`]).
    fn consume(&mut self) -> Option<Entry> {
        let mut entry = self.take()?;
        if let Entry::Clock { ms } = &mut entry {
            *ms = self.on_timeline(*ms);
        }
        if let Some(journal) = &mut self.shown.journal {
            journal.record(&entry);
        }
        Some(entry)
    }

    fn halt(&mut self, stop: Stop) {
        if self.stop.is_none() {
            self.stop = Some(stop);
        }
        self.stopped.set(true);
    }

    /// Takes a clock reading, if one is next. A reading followed by a stop
    /// marker was the recorded run's as it stopped to write a checkpoint,
    /// and the one after the marker its reading as it went on: the replay,
    /// which does not stop there, takes neither, and leaves the time between
    /// out of every reading after it, as the run left it out.
    fn take_time(&mut self) -> Time {
        match self.peek() {
            Some(Entry::Clock { .. }) => {}
            // A marker without the reading before it: nothing to leave out.
            Some(Entry::Stop) => {
                self.consume();
                return Time::Skipped;
            }
            _ => return Time::None,
        }
        let Some(Entry::Clock { ms }) = self.consume() else { return Time::None };
        if !matches!(self.peek(), Some(Entry::Stop)) {
            self.last_clock = ms.saturating_sub(self.gap);
            return Time::Reading;
        }
        self.consume();
        if let Some(Entry::Clock { .. }) = self.peek()
            && let Some(Entry::Clock { ms: after }) = self.consume()
        {
            self.gap = self.gap.saturating_add(after.saturating_sub(ms));
        }
        Time::Skipped
    }

    /// The last clock reading taken, on the recorded run's one timeline.
    pub fn last_reading(&self) -> u64 {
        self.last_reading
    }

    /// Reading `ms` on the recorded run's one timeline. A resumed part's
    /// clock starts again from zero, so from its first reading on, its
    /// readings are shifted to go on from the last one before the
    /// suspension: the time meters take differences of readings within a
    /// part (a machine starts its clock again at each part), so a replay
    /// gives what the run gave; and a restart's new journal, which records
    /// the readings as given, reads as one run that was never suspended.
    fn on_timeline(&mut self, ms: u64) -> u64 {
        if std::mem::take(&mut self.shift_next) {
            self.shift = i128::from(self.last_reading) - i128::from(ms);
        }
        self.last_reading = (i128::from(ms) + self.shift).clamp(0, i128::from(u64::MAX)) as u64;
        self.last_reading
    }

    /// The next entry that is not a clock reading (those are taken on the
    /// way, their time kept), if it is of the kind `requested` describes
    /// for `matches`; else the replay has diverged.
    fn effect(
        &mut self,
        requested: impl FnOnce() -> String,
        matches: impl FnOnce(&Entry) -> bool,
    ) -> Option<Entry> {
        while self.take_time() != Time::None {}
        if self.stop.is_some() {
            return None;
        }
        let fits = self.peek().map(matches);
        match fits {
            Some(true) => self.consume(),
            _ => {
                let recorded = self.next.as_ref().map_or_else(|| self.journal_end(), describe);
                let requested = requested();
                self.halt(Stop::Diverged { recorded, requested });
                None
            }
        }
    }

    fn journal_end(&self) -> String {
        match self.torn {
            Some(at) => format!("nothing more (the journal ends at byte {at}, cut short)"),
            None => "nothing more (the recorded run stopped here)".to_string(),
        }
    }

    /// Text the journal kept whole, or a stop: `what` names the effect.
    fn whole(&mut self, kept: &Kept, what: impl FnOnce() -> String) -> Option<String> {
        match kept.whole() {
            Some(text) => Some(text.to_string()),
            None => {
                self.halt(Stop::Incomplete { what: what() });
                None
            }
        }
    }
}

/// What [`ReplayHost::take_time`] took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Time {
    /// A reading: the replay's clock stands at it.
    Reading,
    /// A stop and the readings around it, or a lone marker.
    Skipped,
    /// Nothing: the next entry is no clock reading.
    None,
}

const STOPPED: &str = "the replay stopped here";

fn stopped() -> HostError {
    HostError::Command(STOPPED.into())
}

/// An entry as a replay names it.
pub fn describe(entry: &Entry) -> String {
    match entry {
        Entry::Run { command, .. } => format!("RUN `{command}`"),
        Entry::Read { path, .. } => format!("READ \"{path}\""),
        Entry::Write { path, append: false, .. } => format!("WRITE \"{path}\""),
        Entry::Write { path, append: true, .. } => format!("APPEND \"{path}\""),
        Entry::Mkdir { path, .. } => format!("MKDIR \"{path}\""),
        Entry::Delete { path, .. } => format!("DELETE \"{path}\""),
        Entry::FileTest { path, .. } => format!("a test of FILE \"{path}\""),
        Entry::Prompt { query, .. } => format!("PROMPT_AGENT \"{query}\""),
        Entry::Answer { line, .. } => format!("a human's answer (line {line})"),
        Entry::Start { resumed: true, .. } => "the end of a suspended run".into(),
        Entry::End { status, .. } => format!("the end of the run ({status})"),
        other => other.kind().to_string(),
    }
}

fn failed<T>(result: &Result<T, crate::session::journal::Failed>) -> Result<&T, HostError> {
    result.as_ref().map_err(HostError::from)
}

impl Host for ReplayHost {
    fn completion_tokens(&self) -> u64 {
        self.allowance
    }

    fn run(&mut self, request: &RunRequest) -> Result<RunResult, HostError> {
        let asked = || format!("RUN `{}`", request.command);
        let same = |e: &Entry| {
            matches!(e, Entry::Run { command, dir, timeout_ms, .. }
                if *command == request.command && *dir == request.dir && *timeout_ms == request.timeout_ms)
        };
        let Some(Entry::Run { result, .. }) = self.effect(asked, same) else { return Err(stopped()) };
        let record = failed(&result)?;
        let what = || format!("RUN `{}` at line {}", request.command, request.line);
        let stdout = self.whole(&record.stdout, what).ok_or_else(stopped)?;
        let what = || format!("RUN `{}` at line {}", request.command, request.line);
        let stderr = self.whole(&record.stderr, what).ok_or_else(stopped)?;
        Ok(RunResult {
            command: request.command.clone(),
            stdout,
            stderr,
            exit_code: record.exit_code,
            duration_ms: record.duration_ms,
            timed_out: record.timed_out,
        })
    }

    fn read(&mut self, path: &str) -> Result<String, HostError> {
        let asked = || format!("READ \"{path}\"");
        let Some(Entry::Read { result, .. }) =
            self.effect(asked, |e| matches!(e, Entry::Read { path: p, .. } if p == path))
        else {
            return Err(stopped());
        };
        let kept = failed(&result)?.clone();
        self.whole(&kept, || format!("READ \"{path}\"")).ok_or_else(stopped)
    }

    fn write(&mut self, path: &str, content: &str, append: bool) -> Result<(), HostError> {
        let digest = tisslang::codec::seal::sha256(content.as_bytes());
        let verb = if append { "APPEND" } else { "WRITE" };
        let asked = || format!("{verb} \"{path}\" (other content)");
        let same = |e: &Entry| matches!(e, Entry::Write { path: p, append: a, content: c, .. } if p == path && *a == append && *c == digest);
        let Some(Entry::Write { result, .. }) = self.effect(asked, same) else { return Err(stopped()) };
        failed(&result).map(|_| ())
    }

    fn mkdir(&mut self, path: &str) -> Result<(), HostError> {
        let asked = || format!("MKDIR \"{path}\"");
        let Some(Entry::Mkdir { result, .. }) =
            self.effect(asked, |e| matches!(e, Entry::Mkdir { path: p, .. } if p == path))
        else {
            return Err(stopped());
        };
        failed(&result).map(|_| ())
    }

    fn delete(&mut self, path: &str, recursive: bool) -> Result<(), HostError> {
        let asked = || format!("DELETE \"{path}\"");
        let same = |e: &Entry| matches!(e, Entry::Delete { path: p, recursive: r, .. } if p == path && *r == recursive);
        let Some(Entry::Delete { result, .. }) = self.effect(asked, same) else { return Err(stopped()) };
        failed(&result).map(|_| ())
    }

    fn file_test(&mut self, path: &str, query: FileQuery<'_>) -> Result<bool, HostError> {
        let query = format!("{query:?}");
        let asked = || format!("a test of FILE \"{path}\"");
        let same =
            |e: &Entry| matches!(e, Entry::FileTest { path: p, query: q, .. } if p == path && *q == query);
        let Some(Entry::FileTest { result, .. }) = self.effect(asked, same) else { return Err(stopped()) };
        failed(&result).copied()
    }

    fn prompt(&mut self, request: &PromptRequest) -> Result<PromptResponse, PromptError> {
        let key = prompt_key(request);
        let asked = || format!("PROMPT_AGENT \"{}\"", request.query);
        let refused = || PromptError { message: STOPPED.into(), requests: 0, out_of_calls: false };
        let Some(Entry::Prompt { result, .. }) =
            self.effect(asked, |e| matches!(e, Entry::Prompt { key: k, .. } if *k == key))
        else {
            return Err(refused());
        };
        let record = result.map_err(|f| PromptError {
            message: f.message,
            requests: f.requests,
            out_of_calls: f.out_of_calls,
        })?;
        let what = || format!("the answer to PROMPT_AGENT at line {}", request.line);
        let text = self.whole(&record.text, what).ok_or_else(refused)?;
        Ok(PromptResponse {
            text,
            tokens: record.tokens,
            estimated: record.estimated,
            requests: record.requests,
            finish_reason: record.finish_reason,
        })
    }

    fn ask(&mut self, question: &Question, at: AskedAt<'_>) -> Option<Answer> {
        // The recorded run suspended here: it has no answer.
        while self.take_time() != Time::None {}
        if matches!(self.peek(), Some(Entry::End { .. }) | None) && self.stop.is_none() {
            return None;
        }
        let asked = || crate::session::answers::statement(question).to_string();
        let Some(Entry::Answer { answer, origin, .. }) =
            self.effect(asked, |e| matches!(e, Entry::Answer { question: q, .. } if q == question))
        else {
            return None;
        };
        // Shown and logged; journaled (a restart's) by `consume` already.
        let journal = self.shown.journal.take();
        self.shown.log_answer(question, at, &answer, &origin);
        self.shown.journal = journal;
        Some(answer)
    }

    fn now_ms(&mut self) -> u64 {
        while self.take_time() == Time::Skipped {}
        self.last_clock
    }

    fn log(&mut self, event: &Event<'_>) {
        // What follows a stop is the replay's end, not the recorded run's.
        if self.stop.is_none() {
            self.shown.log(event);
        }
    }
}
