//! Stepping backwards (`back`, `reverse-continue`; book: cookbook/debugging.md): the session
//! keeps what the run took from outside (its tape: each effect's result,
//! each answer, each clock reading, in order) and each statement it reached
//! (`history.rs`). Going back restores an earlier machine and replays
//! the tape from the point it had reached: what comes after is answered
//! from the tape, not done again — a RUN does not run twice, a file is not
//! written twice, a model is not asked twice — until the tape runs out and
//! the run goes on live. Nothing on disk is undone: the files stay as the
//! run left them, which is what the replayed effects say they are.

use std::cell::Cell;
use std::rc::Rc;

use crate::host::{
    Answer, AskedAt, Event, FileQuery, Host, HostError, PromptError, PromptRequest, PromptResponse, Question,
    RunRequest, RunResult,
};

/// One thing the run took from outside, as the machine got it.
#[derive(Debug, Clone)]
enum Taken {
    Run(Result<RunResult, HostError>),
    Text(Result<String, HostError>),
    Done(Result<(), HostError>),
    Test(Result<bool, HostError>),
    Prompt(Result<PromptResponse, PromptError>),
    Ask(Option<Answer>),
    Now(u64),
}

/// The session's tape, and where a replay of it stands.
#[derive(Debug, Default)]
pub(super) struct Tape {
    taken: Vec<Taken>,
    /// `Some(i)`: replaying, entry `i` next; `None`: live, appending.
    cursor: Option<usize>,
    /// How many entries the run has taken so far (live or replayed): where
    /// a statement stands on the tape. Shared with the stop check.
    pub position: Rc<Cell<usize>>,
    /// The last clock reading given.
    last_clock: u64,
    /// A failure a TRY caught since the stop check last looked.
    pub caught: Rc<std::cell::RefCell<Option<super::Caught>>>,
}

impl Tape {
    /// Replays from entry `position` on (live if that is the end).
    pub fn rewind_to(&mut self, position: usize) {
        self.cursor = (position < self.taken.len()).then_some(position);
        self.position.set(position);
    }

    /// Whether the run is answered from the tape now.
    pub fn replaying(&self) -> bool {
        self.cursor.is_some()
    }
}

/// The host a session runs on: `live`, with the tape recorded or replayed.
pub(super) struct Rewind<'a, H: Host> {
    pub live: &'a mut H,
    pub tape: &'a mut Tape,
    /// Rebuilding a statement kept without its machine (`history.rs`):
    /// nothing is shown, and nothing is done live (the tape has it all).
    pub quiet: bool,
}

impl<H: Host> Rewind<'_, H> {
    /// The next entry of a replay, or (live) what `live` gives, recorded.
    /// Clock readings a replay meets before an effect are passed over: a
    /// machine taken up at a statement reads the clock at other points than
    /// the run that went through it did.
    fn take(&mut self, live: impl FnOnce(&mut H) -> Taken) -> Taken {
        while let Some(i) = self.tape.cursor
            && matches!(self.tape.taken[i], Taken::Now(_))
        {
            self.tape.cursor = (i + 1 < self.tape.taken.len()).then_some(i + 1);
            self.tape.position.set(self.tape.position.get() + 1);
        }
        self.take_next(live)
    }

    fn take_next(&mut self, live: impl FnOnce(&mut H) -> Taken) -> Taken {
        let taken = match self.tape.cursor {
            Some(i) => {
                let taken = self.tape.taken[i].clone();
                self.tape.cursor = (i + 1 < self.tape.taken.len()).then_some(i + 1);
                taken
            }
            // Rebuilding: past the tape, the rebuilt run is not the run.
            None if self.quiet => Taken::Now(self.tape.last_clock),
            None => {
                let taken = live(self.live);
                self.tape.taken.push(taken.clone());
                taken
            }
        };
        self.tape.position.set(self.tape.position.get() + 1);
        taken
    }
}

/// A tape entry of another kind than the machine asks for: the same code
/// from the same state asks the same, so only a tape that is not the run's
/// could; it is told as the effect's failure.
fn mismatch() -> HostError {
    HostError::Command("the debugger's record of the run does not fit this effect".into())
}

impl<H: Host> Host for Rewind<'_, H> {
    fn run(&mut self, request: &RunRequest) -> Result<RunResult, HostError> {
        match self.take(|h| Taken::Run(h.run(request))) {
            Taken::Run(r) => r,
            _ => Err(mismatch()),
        }
    }

    fn read(&mut self, path: &str) -> Result<String, HostError> {
        match self.take(|h| Taken::Text(h.read(path))) {
            Taken::Text(r) => r,
            _ => Err(mismatch()),
        }
    }

    fn write(&mut self, path: &str, content: &str, append: bool) -> Result<(), HostError> {
        match self.take(|h| Taken::Done(h.write(path, content, append))) {
            Taken::Done(r) => r,
            _ => Err(mismatch()),
        }
    }

    fn mkdir(&mut self, path: &str) -> Result<(), HostError> {
        match self.take(|h| Taken::Done(h.mkdir(path))) {
            Taken::Done(r) => r,
            _ => Err(mismatch()),
        }
    }

    fn delete(&mut self, path: &str, recursive: bool) -> Result<(), HostError> {
        match self.take(|h| Taken::Done(h.delete(path, recursive))) {
            Taken::Done(r) => r,
            _ => Err(mismatch()),
        }
    }

    fn file_test(&mut self, path: &str, query: FileQuery<'_>) -> Result<bool, HostError> {
        match self.take(|h| Taken::Test(h.file_test(path, query))) {
            Taken::Test(r) => r,
            _ => Err(mismatch()),
        }
    }

    fn prompt(&mut self, request: &PromptRequest) -> Result<PromptResponse, PromptError> {
        match self.take(|h| Taken::Prompt(h.prompt(request))) {
            Taken::Prompt(r) => r,
            _ => Err(PromptError { message: mismatch_text(), requests: 0, out_of_calls: false }),
        }
    }

    fn ask(&mut self, question: &Question, at: AskedAt<'_>) -> Option<Answer> {
        // No answer (a suspension) is not recorded: asking again may get one.
        if self.tape.cursor.is_none() {
            if self.quiet {
                return None;
            }
            let answer = self.live.ask(question, at)?;
            self.tape.taken.push(Taken::Ask(Some(answer.clone())));
            self.tape.position.set(self.tape.position.get() + 1);
            return Some(answer);
        }
        match self.take(|_| Taken::Ask(None)) {
            Taken::Ask(answer) => answer,
            _ => None,
        }
    }

    fn completion_tokens(&self) -> u64 {
        self.live.completion_tokens()
    }

    fn now_ms(&mut self) -> u64 {
        match self.tape.cursor.map(|i| &self.tape.taken[i]) {
            // The reading recorded here; none (an effect next): the last one.
            Some(Taken::Now(_)) | None => match self.take_next(|h| Taken::Now(h.now_ms())) {
                Taken::Now(ms) => {
                    self.tape.last_clock = ms;
                    ms
                }
                _ => self.tape.last_clock,
            },
            Some(_) => self.tape.last_clock,
        }
    }

    fn log(&mut self, event: &Event<'_>) {
        if event.event == "caught" {
            *self.tape.caught.borrow_mut() =
                Some(super::Caught { kind: event.outcome.into(), message: event.op.into() });
        }
        // What a replay shows happened before, and was shown then.
        if !self.tape.replaying() && !self.quiet {
            self.live.log(event);
        }
    }

    fn persist(&mut self) -> Result<(), String> {
        self.live.persist()
    }
}

fn mismatch_text() -> String {
    match mismatch() {
        HostError::Command(m) | HostError::Security(m) => m,
    }
}
