//! The real host: the workspace on disk (confined), commands through the
//! process runner (both of the `tiss-host` crate, whose output and errors
//! become the machine's `RunResult` and `HostError` here; the second
//! Ctrl-C reaches a running command as its cancel check), the configured
//! model provider, a human at the terminal, the event log, and the live
//! progress display.

use std::collections::VecDeque;
use std::io::{BufRead, IsTerminal, Write};
use std::time::Instant;

use tiss_host::process::{self, Output, ProcessSpec, Stream, WorkDir};
use tiss_host::sandbox::Sandbox;
use tiss_host::workspace::Workspace;

use crate::host::{
    Answer, AskedAt, Detail, Event, FileQuery, Host, HostError, PromptError, PromptRequest, PromptResponse,
    Question, RunRequest, RunResult,
};
use crate::machine::value::format_duration;
use crate::provider::Provider;
use crate::provider::cassette::Recorder;
use crate::report::effects::Effects;
use crate::report::event_log::{EventLog, OutputTrim};
use crate::report::style::{Style, Tone, escape_controls, escape_indented};
use crate::session::answers::Reply;
use crate::session::journal::writer::JournalWriter;
use crate::session::journal::{Entry, Failed, Kept, PromptFailed, PromptRecord, RunRecord, prompt_key};
use tisslang::codec::seal::sha256;

/// Where step lines and progress go.
pub enum Progress {
    /// Text output: step lines on stdout as steps finish, and on a terminal a
    /// live line on stderr with the current step, command and elapsed time.
    Text { live: bool },
    /// JSON or JUnit on stdout: step lines go to stderr.
    Quiet,
}

/// The log's names of a command's streams, by index.
const STREAMS: [&str; 2] = ["stdout", "stderr"];

pub struct OsHost {
    pub workspace: Workspace,
    pub env_allow: Vec<String>,
    /// The confinement of RUN (`Sandbox::none()` until the caller prepares one).
    pub sandbox: Sandbox,
    pub provider: Box<dyn Provider>,
    /// `--record`: every answer the provider gives goes into this cassette,
    /// which the session writes out.
    pub recorder: Option<Recorder>,
    /// `--journal`: what the run takes from outside, appended as it comes.
    pub journal: Option<JournalWriter>,
    pub log: Option<EventLog>,
    /// The effects so far, for the report.
    pub effects: Effects,
    pub progress: Progress,
    /// Ask on the terminal; otherwise interactions suspend the run.
    pub interactive: bool,
    /// Answers given in advance (`--answers`, `resume --answer`), in order;
    /// each is checked against the question it meets.
    pub answers: VecDeque<Reply>,
    /// Why an answer given in advance was refused (a wrong `line` or kind):
    /// the run then stops at that interaction, as if suspended.
    pub answer_error: Option<String>,
    pub output_cap: usize,
    /// Show a streamed answer on stderr as it comes (stderr is a terminal).
    pub show_tokens: bool,
    /// The provider's `max_tokens` ([`Host::completion_tokens`]).
    pub completion_tokens: u64,
    /// Called once, before the first effect that can change a file: where a
    /// run keeps its project files outside the workspace
    /// (`execute::project_file`).
    pub before_change: Option<Box<dyn FnOnce()>>,
    /// Print no step lines at all (benches, embedding).
    pub quiet_steps: bool,
    /// Colour for the step lines, as the stream they go to allows.
    pub style: Style,
    started: Instant,
    /// Added to each clock reading: what a restart's steps taken over from
    /// a journal read last ([`OsHost::continue_clock_from`]).
    clock_base: u64,
    live_line: bool,
}

impl OsHost {
    /// Journals the run into `journal`, which the plan's own statements
    /// may then not change ([`Workspace::keep`]).
    pub fn set_journal(&mut self, journal: Option<JournalWriter>) {
        if let Some(journal) = &journal {
            self.workspace.keep(&journal.path, "this run's journal");
        }
        self.journal = journal;
    }

    /// Says on stderr which of the run's records (journal, log) are no
    /// longer where they were opened: a command moved the directory holding
    /// one, and what is there now is not tissvm's.
    pub fn warn_of_moved_records(&self) {
        for (path, what) in self.workspace.moved_records() {
            let warning = crate::runner::color::stderr().paint(Tone::Warn, "warning");
            eprintln!(
                "tissvm: {warning}: {what} is no longer at `{}`: the plan's commands moved or removed the \
                 directory holding it, so what is there now is not tissvm's record; keep it in the workspace's \
                 top directory or outside the workspace",
                path.display()
            );
        }
    }

    pub fn new(workspace: Workspace, provider: Box<dyn Provider>, progress: Progress) -> OsHost {
        OsHost {
            workspace,
            env_allow: Vec::new(),
            sandbox: Sandbox::none(),
            provider,
            recorder: None,
            journal: None,
            log: None,
            effects: Effects::default(),
            progress,
            interactive: false,
            answers: VecDeque::new(),
            answer_error: None,
            output_cap: process::DEFAULT_OUTPUT_CAP,
            show_tokens: false,
            completion_tokens: tisslang::analysis::cost_model::DEFAULT_MAX_TOKENS,
            before_change: None,
            quiet_steps: false,
            style: Style::PLAIN,
            started: Instant::now(),
            clock_base: 0,
            live_line: false,
        }
    }

    /// The clock goes on from `ms`, the last reading of the steps a restart
    /// took over from a journal, rather than from this process's start: the
    /// new journal then reads as one run whose clock never goes back, and
    /// replays to the run's report (the meters take differences of readings,
    /// so the run itself is timed the same).
    pub fn continue_clock_from(&mut self, ms: u64) {
        self.clock_base = ms.saturating_sub(self.started.elapsed().as_millis() as u64);
    }

    fn live(&mut self, text: &str) {
        if let Progress::Text { live: true } = self.progress {
            let elapsed = format_duration(self.started.elapsed().as_millis() as u64 / 100 * 100);
            let text = escape_controls(text);
            let mut shown: String = text.chars().take(100).collect();
            if shown.len() < text.len() {
                shown.push('…');
            }
            eprint!("\r\x1b[2K[{elapsed}] {shown}");
            let _ = std::io::stderr().flush();
            self.live_line = true;
        }
    }

    fn clear_live(&mut self) {
        if self.live_line {
            eprint!("\r\x1b[2K");
            self.live_line = false;
        }
    }

    /// A step line: on stdout for text output, stderr otherwise.
    fn step_line(&mut self, text: &str) {
        if self.quiet_steps {
            return;
        }
        self.clear_live();
        match self.progress {
            Progress::Text { .. } => tiss_support::cli::print_line(crate::runner::PROGRAM, text),
            Progress::Quiet => eprintln!("{text}"),
        }
    }

    /// Asks on the terminal (stderr for the question, stdin for the answer).
    /// A Ctrl-C while it waits gives no answer: the run suspends.
    fn ask_terminal(&mut self, question: &Question, line: u32) -> Option<Answer> {
        self.clear_live();
        let stdin = std::io::stdin();
        let read = |prompt: &str| -> Option<String> {
            eprint!("{}", escape_controls(prompt));
            let _ = std::io::stderr().flush();
            if !wait_for_stdin() {
                eprintln!();
                return None;
            }
            let mut text = String::new();
            match stdin.lock().read_line(&mut text) {
                Ok(0) | Err(_) => None,
                Ok(_) => Some(text.trim().to_string()),
            }
        };
        match question {
            Question::Pause { message } => {
                read(&format!("PAUSE (line {line}): {message}\nPress Enter to continue: "))?;
                Some(Answer::Continue)
            }
            Question::Review { message } => {
                review(&read, &format!("REVIEW (line {line}): {message}\nApprove? [y/n]: "))
            }
            Question::Approval { command, reason } => review(
                &read,
                &format!("APPROVE RUN (line {line}): {command}\n  because {reason}\nRun it? [y/n]: "),
            ),
            Question::Choose { prompt, options } => loop {
                let mut text = format!("CHOOSE (line {line}): {}\n", prompt.as_deref().unwrap_or(""));
                for (i, o) in options.iter().enumerate() {
                    text.push_str(&format!("  {}. {o}\n", i + 1));
                }
                text.push_str(&format!("Option [1-{}, or its text]: ", options.len()));
                let options: Vec<&str> = options.iter().map(String::as_str).collect();
                match crate::session::answers::option_named(&options, &read(&text)?) {
                    Ok(chosen) => return Some(Answer::Choice(chosen)),
                    Err(why) => eprintln!("{}", escape_controls(&why)),
                }
            },
        }
    }
}

/// A yes-or-no question with an optional comment (REQUEST_REVIEW, a RUN
/// that needs approval), asked until it gets an answer; `None` if reading
/// stops (end of input, Ctrl-C).
fn review(read: &dyn Fn(&str) -> Option<String>, asked: &str) -> Option<Answer> {
    loop {
        let answer = read(asked)?;
        let approved = match answer.to_ascii_lowercase().as_str() {
            "y" | "yes" | "approve" => true,
            "n" | "no" | "reject" => false,
            _ => continue,
        };
        let comment = read("Comment (optional): ")?;
        return Some(Answer::Review { approved, comment });
    }
}

impl Host for OsHost {
    fn run(&mut self, request: &RunRequest) -> Result<RunResult, HostError> {
        self.changing();
        let result = self.run_live(request);
        self.journal(|cap| Entry::Run {
            command: request.command.clone(),
            dir: request.dir.clone(),
            timeout_ms: request.timeout_ms,
            result: match &result {
                Ok(r) => Ok(RunRecord {
                    stdout: Kept::of(&r.stdout, cap),
                    stderr: Kept::of(&r.stderr, cap),
                    exit_code: r.exit_code,
                    duration_ms: r.duration_ms,
                    timed_out: r.timed_out,
                }),
                Err(e) => Err(e.into()),
            },
        });
        result
    }

    fn read(&mut self, path: &str) -> Result<String, HostError> {
        let result = self.workspace.read(path).map_err(host_error);
        self.journal(|cap| Entry::Read {
            path: path.to_string(),
            result: result.as_ref().map(|text| Kept::of(text, cap)).map_err(Failed::from),
        });
        result
    }

    fn write(&mut self, path: &str, content: &str, append: bool) -> Result<(), HostError> {
        self.changing();
        let result = self.workspace.write(path, content, append).map_err(host_error);
        if self.journal.is_some() {
            // The file as it now is, for a restart to check it still is.
            let file = match &result {
                Ok(()) if append => self.workspace.read(path).ok().map(|t| sha256(t.as_bytes())),
                Ok(()) => Some(sha256(content.as_bytes())),
                Err(_) => None,
            };
            self.journal(|_| Entry::Write {
                path: path.to_string(),
                append,
                content: sha256(content.as_bytes()),
                file,
                result: result.as_ref().map(|_| ()).map_err(Failed::from),
            });
        }
        result
    }

    fn mkdir(&mut self, path: &str) -> Result<(), HostError> {
        self.changing();
        let result = self.workspace.mkdir(path).map_err(host_error);
        self.journal(|_| Entry::Mkdir {
            path: path.to_string(),
            result: result.clone().map_err(|e| (&e).into()),
        });
        result
    }

    fn delete(&mut self, path: &str, recursive: bool) -> Result<(), HostError> {
        self.changing();
        let result = self.workspace.delete(path, recursive).map_err(host_error);
        self.journal(|_| Entry::Delete {
            path: path.to_string(),
            recursive,
            result: result.clone().map_err(|e| (&e).into()),
        });
        result
    }

    fn file_test(&mut self, path: &str, query: FileQuery<'_>) -> Result<bool, HostError> {
        let result = self.workspace.file_test(path, query).map_err(host_error);
        self.journal(|_| Entry::FileTest {
            path: path.to_string(),
            query: format!("{query:?}"),
            result: result.clone().map_err(|e| (&e).into()),
        });
        result
    }

    fn prompt(&mut self, request: &PromptRequest) -> Result<PromptResponse, PromptError> {
        let result = self.prompt_live(request);
        self.journal(|cap| Entry::Prompt {
            key: prompt_key(request),
            query: request.query.clone(),
            result: match &result {
                Ok(r) => Ok(PromptRecord {
                    text: Kept::of(&r.text, cap),
                    tokens: r.tokens,
                    estimated: r.estimated,
                    requests: r.requests,
                    finish_reason: r.finish_reason.clone(),
                }),
                Err(e) => Err(PromptFailed {
                    message: e.message.clone(),
                    requests: e.requests,
                    out_of_calls: e.out_of_calls,
                }),
            },
        });
        result
    }

    fn ask(&mut self, question: &Question, at: AskedAt<'_>) -> Option<Answer> {
        self.ask_live(question, at)
    }

    fn completion_tokens(&self) -> u64 {
        self.completion_tokens
    }

    fn now_ms(&mut self) -> u64 {
        let ms = self.clock_base.saturating_add(self.started.elapsed().as_millis() as u64);
        self.journal(|_| Entry::Clock { ms });
        ms
    }

    fn persist(&mut self) -> Result<(), String> {
        let Some(recorder) = &self.recorder else { return Ok(()) };
        let bytes = recorder.cassette.to_bytes();
        // In the workspace, reached as the plan's paths are: the plan's
        // commands ran since `--record` was given.
        let path = tiss_host::workspace::own_path(self.workspace.root(), &recorder.path).map_err(|e| {
            let (tiss_host::Error::Security(why) | tiss_host::Error::Command(why)) = e;
            format!("the cassette `{}` could not be written: {why}", recorder.path.display())
        })?;
        // Private like a snapshot: it holds what the prompts carried (the plan's values).
        tiss_support::atomic_write::write_atomically(&path, &bytes, Some(0o600))
            .map_err(|e| format!("the cassette `{}` could not be written: {e}", recorder.path.display()))
    }

    fn log(&mut self, event: &Event<'_>) {
        if let Some(log) = &mut self.log {
            log.write(event);
        }
        self.effects.record(event);
        match event.event {
            "step_start" => self.live(&format!("STEP {}", event.op)),
            "step_end" => {
                let pad = "  ".repeat(event.depth as usize);
                let (mark, tone) =
                    if event.outcome == "passed" { ("✓", Tone::Good) } else { ("✗", Tone::Bad) };
                let result = self.style.paint(tone, &format!("{mark} {}", escape_controls(event.op)));
                self.step_line(&format!("{pad}{result}  ({})", format_duration(event.duration_ms)));
            }
            "log" => self.step_line(&format!("  LOG {}", escape_indented(event.op, "      "))),
            "budget_warning" => {
                let warning = self.style.paint(Tone::Warn, "warning");
                self.step_line(&format!("  {warning}: {}", escape_indented(event.op, "    ")))
            }
            "caught" => {
                let caught = self.style.paint(Tone::Warn, "caught");
                self.step_line(&format!(
                    "  {caught} {}: {}",
                    event.outcome,
                    escape_indented(event.op, "    ")
                ))
            }
            _ => {}
        }
    }
}

impl OsHost {
    /// Before an effect that can change a file.
    fn changing(&mut self) {
        if let Some(keep) = self.before_change.take() {
            keep();
        }
    }

    /// Appends to the journal, if there is one, what `entry` makes with its cap.
    pub(crate) fn journal(&mut self, entry: impl FnOnce(usize) -> Entry) {
        if let Some(journal) = &mut self.journal {
            let entry = entry(journal.cap);
            journal.record(&entry);
        }
    }

    fn run_live(&mut self, request: &RunRequest) -> Result<RunResult, HostError> {
        self.live(&format!("RUN {}", request.command));
        let dir = self.workspace.dir_for_run(request.dir.as_deref()).map_err(host_error)?;
        let env = self.sandbox.environment(self.workspace.root(), &self.env_allow, &request.env);
        let spec = ProcessSpec {
            command: &request.command,
            cwd: WorkDir::Held(&dir),
            env: &env,
            timeout: request.timeout_ms.map(std::time::Duration::from_millis),
            output_cap: self.output_cap,
            sandbox: &self.sandbox,
        };
        let cancel: Option<&dyn Fn() -> bool> = if crate::session::interrupt::installed() {
            Some(&crate::session::interrupt::kill_requested)
        } else {
            None
        };
        let result = match &mut self.log {
            Some(log) => {
                let mut trim = OutputTrim::new(log.max_output);
                let output = |log: &mut EventLog, stream: usize, data: &[u8]| {
                    log.write(&Event {
                        event: "output",
                        step: request.step.as_deref(),
                        depth: 0,
                        line: request.line,
                        op: &request.command,
                        outcome: STREAMS[stream],
                        duration_ms: 0,
                        details: &[("data", Detail::Text(&String::from_utf8_lossy(data)))],
                    });
                };
                let result = {
                    let mut sink = |stream: Stream, data: &[u8]| {
                        let index = usize::from(stream == Stream::Stderr);
                        if let Some(batch) = trim.admit(index, data, Instant::now()) {
                            output(log, index, &batch);
                        }
                    };
                    process::run_cancellable(&spec, Some(&mut sink), cancel)
                };
                // The rest of the head, what was left out, then the tail.
                for (index, rest) in trim.finish().into_iter().enumerate() {
                    if !rest.head.is_empty() {
                        output(log, index, &rest.head);
                    }
                    let omitted = rest.omitted;
                    if omitted > 0 {
                        log.write(&Event {
                            event: "output_omitted",
                            step: request.step.as_deref(),
                            depth: 0,
                            line: request.line,
                            op: &request.command,
                            outcome: STREAMS[index],
                            duration_ms: 0,
                            details: &[("bytes", Detail::Count(omitted))],
                        });
                    }
                    if !rest.tail.is_empty() {
                        output(log, index, &rest.tail);
                    }
                }
                result
            }
            None => process::run_cancellable(&spec, None, cancel),
        };
        let (run, mut cancelled) = result.map_err(host_error)?;
        // A command that died of a signal while tissvm is being stopped by
        // one (the whole job signalled at once) did not complete either: it
        // runs again on resume, like one tissvm killed.
        let died_of_signal = (129..=128 + 64).contains(&run.exit_code) && !run.timed_out;
        if !cancelled && cancel.is_some() && died_of_signal {
            cancelled =
                crate::session::interrupt::kill_requested_within(std::time::Duration::from_millis(200));
        }
        if cancelled {
            crate::session::interrupt::note_killed_run();
        }
        Ok(run_result(run))
    }

    fn prompt_live(&mut self, request: &PromptRequest) -> Result<PromptResponse, PromptError> {
        self.live(&format!("PROMPT_AGENT {}", request.query));
        let mut streamed = false;
        let show = self.show_tokens;
        let live_line = &mut self.live_line;
        let result = self.provider.complete(request, &mut |piece| {
            if !show || piece.is_empty() {
                return;
            }
            if !streamed && std::mem::take(live_line) {
                eprint!("\r\x1b[2K");
            }
            streamed = true;
            eprint!("{}", escape_controls(piece));
            let _ = std::io::stderr().flush();
        });
        if streamed {
            eprintln!();
        }
        let name = self.provider.name();
        // Only answers are recorded, never a failure. What was sent has a
        // wire: `wire` refuses only what `complete` refused before sending.
        if let (Ok(response), Some(recorder)) = (&result, &mut self.recorder)
            && let Ok(wire) = self.provider.wire(request)
        {
            recorder.record(name, wire, request, response);
        }
        result.map_err(|e| PromptError { message: format!("{name}: {}", e.message), ..e })
    }

    fn ask_live(&mut self, question: &Question, at: AskedAt<'_>) -> Option<Answer> {
        let line = at.line;
        if self.answer_error.is_some() {
            return None;
        }
        if let Some(reply) = self.answers.front() {
            return match reply.answer(question, line) {
                Ok(answer) => {
                    let origin = reply.origin.clone();
                    self.answers.pop_front();
                    self.log_answer(question, at, &answer, &origin);
                    Some(answer)
                }
                Err(e) => {
                    self.answer_error = Some(e);
                    None
                }
            };
        }
        if !self.interactive || crate::session::interrupt::requested() {
            return None;
        }
        let answer = self.ask_terminal(question, line)?;
        self.log_answer(question, at, &answer, "terminal");
        Some(answer)
    }
}

impl OsHost {
    /// Records an answer in the journal, the log file and the report's effects.
    pub(crate) fn log_answer(&mut self, question: &Question, at: AskedAt<'_>, answer: &Answer, origin: &str) {
        let line = at.line;
        self.journal(|_| Entry::Answer {
            line,
            question: question.clone(),
            answer: answer.clone(),
            origin: origin.to_string(),
        });
        let (outcome, comment) = match answer {
            Answer::Continue => ("continue".to_string(), ""),
            Answer::Review { approved, comment } => {
                ((if *approved { "approved" } else { "rejected" }).to_string(), comment.as_str())
            }
            Answer::Choice(i) => (format!("option {}", i + 1), ""),
        };
        let op = match question {
            Question::Pause { message } | Question::Review { message } => message.as_str(),
            Question::Choose { prompt, .. } => prompt.as_deref().unwrap_or(""),
            Question::Approval { command, .. } => command.as_str(),
        };
        let event = Event {
            event: "answer",
            step: at.step,
            depth: at.depth,
            line,
            op,
            outcome: &outcome,
            duration_ms: 0,
            details: &[
                ("statement", Detail::Text(crate::session::answers::statement(question))),
                ("from", Detail::Text(origin)),
                ("comment", Detail::Text(comment)),
            ],
        };
        if let Some(log) = &mut self.log {
            log.write(&event);
        }
        self.effects.record(&event);
    }
}

/// The failure of an operation on the system, as the machine sees it.
fn host_error(e: tiss_host::Error) -> HostError {
    match e {
        tiss_host::Error::Command(message) => HostError::Command(message),
        tiss_host::Error::Security(message) => HostError::Security(message),
    }
}

/// What a command did, as `LAST_RUN` records it.
fn run_result(output: Output) -> RunResult {
    let Output { command, stdout, stderr, exit_code, duration_ms, timed_out } = output;
    RunResult { command, stdout, stderr, exit_code, duration_ms, timed_out }
}

/// Waits until stdin has input; false if a Ctrl-C came first.
fn wait_for_stdin() -> bool {
    loop {
        if crate::session::interrupt::requested() {
            return false;
        }
        let mut fd = libc::pollfd { fd: 0, events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut fd, 1, 100) };
        if n > 0 {
            return true;
        }
        if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            // Not pollable: read and see.
            return true;
        }
    }
}

/// Whether the terminal can be asked: stdin is a TTY.
pub fn stdin_is_terminal() -> bool {
    std::io::stdin().is_terminal()
}

impl Drop for OsHost {
    fn drop(&mut self) {
        self.clear_live();
        if let Some(log) = &mut self.log {
            let _ = log.flush();
        }
    }
}
