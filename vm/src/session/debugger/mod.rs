//! The step-through debugger behind `tissvm debug` (book: cli/tissvm.md), independent of
//! the terminal: a [`Debugger`] owns the machine, the program and the host,
//! and [`Debugger::command`] turns one command line into the text to print.
//!
//! It is built on [`Machine::run_until`], never on callbacks from inside the
//! dispatch loop: between two commands the whole run is the plain data in
//! `machine`, so `save FILE` can write it as a snapshot that `tissvm resume`
//! continues in another process.
//!
//! **Statements.** A statement starts at the first instruction of a line-table
//! entry, except entries that only close a step (`STEP_EXIT`) or end the plan
//! (`HALT`): those are bookkeeping, not something a plan author wrote.
//! `step` runs to the next statement (into CALLs); `next` to the next
//! statement at the same or a shallower CALL depth (over CALLs).
//!
//! **Breakpoints.** `break LINE` stops before the first instruction of LINE
//! each time execution enters that line from another line (or another CALL
//! depth), so a line holding several statements (`IF c { LOG "x" }`) stops
//! once; `break "STEP"` stops before the `STEP_ENTER` of every step with that
//! name. `continue`, `step` and `next` all report a breakpoint they stop at.
//!
//! **Ctrl-C** (when the CLI has installed `interrupt`'s handler) pauses a
//! running command where the next statement starts (no effect can come
//! before it), letting a RUN in flight finish; a second one kills that RUN.
//! The count is then reset, so the session goes on.
//!
//! **Cost.** The stop check before each instruction reads one byte of a
//! per-pc table (statement start, breakpoint); Ctrl-C and breakpoints are
//! looked at only where a statement starts.
//!
//! **Source.** `list`, `where` and the stops show the plan's lines when the
//! module embeds its text, or (set by [`Debugger::find_source`]) when the
//! `.tiss` beside the `.tbc` still has the hash the module keeps; otherwise
//! the banner, `list` and `where` say why (`tisslang::module::kept_source`).
//!
//! **Output** is stable (no timings, no addresses) so sessions can be
//! scripted and compared; values are shown in plan syntax (`TRUE`, `1500ms`,
//! quoted strings with escapes) and long strings are shortened, keeping their
//! head and tail.

use std::path::{Path, PathBuf};

use tisslang::cost::Dim;
use tisslang::isa::Instr;
use tisslang::module::kept_source::{self, SourceText, Unavailable};

use crate::host::Host;
use crate::machine::program::Program;
use crate::machine::{Machine, Outcome, Status, Suspension};
use crate::session::resume_command;
use crate::session::snapshot::{self, AnswersPosition, RememberedOptions, SnapshotRef};
use crate::session::snapshot_key::{KeyError, KeyFile};

mod breakpoints;
mod frames;
mod history;
pub mod probe;
mod rewind;
mod stepping;
mod text;
mod view;

pub use breakpoints::{Placed, Spec};
pub use frames::FrameInfo;
pub use stepping::{Caught, Exceptions, HitCondition, Mode, Stop, Why};
pub use text::{end_text, record_fields, show};

use text::{COMMANDS, ended_name, help, unknown_command};

/// Characters of a string `print` shows before shortening it.
pub const PRINT_LIMIT: usize = 1000;
/// Characters of each string field when `print` shows a whole record.
pub const FIELD_LIMIT: usize = 200;
/// Characters of each string `locals` shows.
pub const LOCALS_LIMIT: usize = 80;
/// Source lines `list` shows on each side of the current line.
pub const LIST_CONTEXT: u32 = 5;

/// A statement starts at this pc (`Debugger::stops`).
const STATEMENT: u8 = 1;
/// A breakpoint may stop at this pc.
const BREAK: u8 = 2;

/// What a command printed, and whether the session is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The text to print, without a final newline (empty: print nothing).
    pub text: String,
    pub quit: bool,
}

impl Reply {
    fn text(text: impl Into<String>) -> Reply {
        let mut text = text.into();
        while text.ends_with('\n') {
            text.pop();
        }
        Reply { text, quit: false }
    }
}

/// Where a breakpoint stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Line(u32),
    Step(String),
}

impl Target {
    /// `12` is a line; anything else names a step, in double quotes (with
    /// `\"` and `\\` escapes) or as written.
    pub fn parse(text: &str) -> Result<Target, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err(
                "break needs a line number or a step name: `break 12` or `break \"Run the tests\"`".into()
            );
        }
        if text.bytes().all(|b| b.is_ascii_digit()) {
            return match text.parse::<u32>() {
                Ok(0) => Err("lines are numbered from 1".into()),
                Ok(line) => Ok(Target::Line(line)),
                Err(_) => Err(format!("`{text}` is not a line number")),
            };
        }
        Ok(Target::Step(unquote(text)?))
    }

    fn describe(&self) -> String {
        match self {
            Target::Line(line) => format!("line {line}"),
            Target::Step(name) => format!("step {name:?}"),
        }
    }
}

/// A word as written, or a double-quoted string with `\"` and `\\` escapes.
fn unquote(text: &str) -> Result<String, String> {
    let Some(inner) = text.strip_prefix('"') else { return Ok(text.to_string()) };
    let Some(inner) = inner.strip_suffix('"').filter(|_| text.len() >= 2) else {
        return Err(format!("{text} has no closing quote"));
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('"' | '\\')) => out.push(e),
                Some(e) => {
                    out.push('\\');
                    out.push(e);
                }
                None => out.push('\\'),
            },
            c => out.push(c),
        }
    }
    Ok(out)
}

#[derive(Debug)]
pub struct Breakpoint {
    pub id: u32,
    pub target: Target,
    /// The instructions it stops before.
    pub pcs: Vec<u32>,
    /// Stops only where this holds.
    pub condition: Option<Checked>,
    /// Stops only at the hits this admits (counted where the condition holds).
    pub hit_condition: Option<HitCondition>,
    /// Says this instead of stopping (a logpoint).
    pub log_message: Option<Checked>,
    hits: stepping::Hits,
}

/// A condition or message as written, and compiled.
#[derive(Debug)]
pub struct Checked {
    pub text: String,
    pub probe: probe::Probe,
}

/// What `save` needs besides the machine: the run's workspace (absolute),
/// the `--answers` file if the run has one, the options `tissvm resume`
/// goes on with, and the user's key file, which signs the snapshot (`Err`:
/// why there is none; the snapshot is then saved unsigned, and resuming it
/// needs `--workdir`).
#[derive(Debug, Clone, PartialEq)]
pub struct SaveInfo {
    pub workspace: PathBuf,
    pub answers_file: Option<PathBuf>,
    pub options: RememberedOptions,
    pub key_file: Result<KeyFile, KeyError>,
}

/// A session. `machine` may be read and changed between commands (it is
/// at an instruction boundary); `program` must stay the one the session was
/// made with (its statement table comes from it).
pub struct Debugger<H: Host> {
    pub machine: Machine,
    pub program: Program,
    pub host: H,
    /// Kept private so that the per-pc index stays in step with it.
    breakpoints: Vec<Breakpoint>,
    /// Set to allow `save`.
    pub save_info: Option<SaveInfo>,
    next_id: u32,
    /// How the run ended (passed, failed, trapped); `None` while it can go on.
    ended: Option<Outcome>,
    /// Per pc: [`STATEMENT`] (a statement starts here), [`BREAK`] (a
    /// breakpoint may stop here). The stop check reads one byte per
    /// instruction.
    stops: Vec<u8>,
    /// The command an empty line repeats (`step` or `next`).
    repeat: Option<&'static str>,
    /// The plan's text to show, or why there is none.
    source: Result<SourceText, Unavailable>,
    /// What the run took from outside, to replay when going back.
    tape: rewind::Tape,
    /// The statements the run reached, to go back to.
    history: history::History,
    /// Which caught failures stop the run.
    pub exceptions: Exceptions,
    /// Where a logpoint's message goes, as it is reached.
    pub on_log: Box<dyn FnMut(&str)>,
}

impl<H: Host> Debugger<H> {
    /// A session over `machine` (fresh, or read from a snapshot). Call
    /// [`Debugger::start`] first: it moves to the first statement.
    pub fn new(program: Program, machine: Machine, host: H) -> Debugger<H> {
        let module = &program.module;
        let mut stops = vec![0u8; module.code.len()];
        for entry in &module.lines {
            let starts = !matches!(
                module.code.get(entry.pc as usize),
                None | Some(Instr::StepExit { .. } | Instr::Halt {})
            );
            if starts {
                stops[entry.pc as usize] = STATEMENT;
            }
        }
        let source = kept_source::find(&module.source, None);
        Debugger {
            machine,
            program,
            host,
            breakpoints: Vec::new(),
            save_info: None,
            next_id: 1,
            ended: None,
            stops,
            repeat: None,
            source,
            tape: rewind::Tape::default(),
            history: history::History::default(),
            exceptions: Exceptions::default(),
            on_log: Box::new(|_| {}),
        }
    }

    /// Shows the source of a module that keeps only its hash from the
    /// `.tiss` beside `plan`, the file the module was loaded from, if the
    /// text there has that hash.
    pub fn find_source(&mut self, plan: &Path) {
        self.source = kept_source::find(&self.program.module.source, Some(plan));
    }

    /// The first line of a session: `debugging "TASK" (help lists the
    /// commands)`, and a second saying why no source is shown, if none is.
    pub fn banner(&self) -> String {
        let mut text = format!("debugging {:?} (help lists the commands)", self.task());
        if let Err(why) = &self.source {
            text.push_str(&format!("\nno source to show: {why}"));
        }
        text
    }

    /// Moves to the first statement (running nothing when the machine is at
    /// one) and says where the session stands.
    pub fn start(&mut self) -> Reply {
        let fresh = self.machine.pc == 0 && self.machine.meters[Dim::Instructions] == 0;
        let at_statement = self.is_statement(self.machine.pc);
        if !at_statement || !matches!(self.machine.status, Status::Running) {
            return Reply::text(self.go(Mode::Step, false));
        }
        let header = if fresh { "paused before the first statement at" } else { "paused at" };
        self.history.keep(&self.machine, self.tape.position.get());
        Reply::text(self.stop_text(header))
    }

    /// The exit status of the session: the plan's (book: reference/failures.md) if it ended,
    /// 70 if the machine trapped, 0 while it could still go on.
    pub fn exit_status(&self) -> i32 {
        match &self.ended {
            None | Some(Outcome::Completed | Outcome::Running | Outcome::Suspended(_)) => 0,
            Some(Outcome::Failed(f)) => f.kind.exit_code(),
            Some(Outcome::Trapped(_)) => 70,
        }
    }

    /// The breakpoints, in the order they were set.
    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }

    /// Whether the run has ended (passed, failed or trapped).
    pub fn has_ended(&self) -> bool {
        self.ended.is_some()
    }

    /// Runs one command line.
    pub fn command(&mut self, line: &str) -> Reply {
        let line = line.trim();
        if line.is_empty() {
            return match self.repeat {
                Some(command) => self.command(command),
                None => Reply::text(""),
            };
        }
        let (word, arg) = match line.split_once(char::is_whitespace) {
            Some((w, a)) => (w, a.trim()),
            None => (line, ""),
        };
        let Some(&(name, ..)) =
            COMMANDS.iter().find(|(n, short, ..)| *n == word || (!short.is_empty() && *short == word))
        else {
            return Reply::text(unknown_command(word));
        };
        let takes_argument = matches!(name, "break" | "delete" | "print" | "list" | "save");
        if !takes_argument && !arg.is_empty() {
            return Reply::text(format!("`{name}` takes no argument"));
        }
        self.repeat = match name {
            "step" => Some("step"),
            "next" => Some("next"),
            _ => None,
        };
        let text = match name {
            "break" if arg.is_empty() => self.list_breakpoints(),
            "break" => match Target::parse(arg).and_then(|t| self.add_breakpoint(t)) {
                Ok(text) | Err(text) => text,
            },
            "delete" => self.delete(arg),
            "continue" => self.go(Mode::Continue, true),
            "step" => self.go(Mode::Step, true),
            "next" => self.go(Mode::Next(self.machine.frames.len()), true),
            "back" => self.back(false),
            "reverse-continue" => self.back(true),
            "print" => self.print(arg),
            "locals" => self.locals(),
            "where" => self.where_text(),
            "list" => self.list(arg),
            "save" => self.save(arg),
            "quit" => return Reply { text: String::new(), quit: true },
            _ => help(),
        };
        Reply::text(text)
    }

    /// `HEADER line L:C, ...` and the source line.
    fn stop_text(&self, header: &str) -> String {
        let mut text = format!("{header} {}", self.here());
        let line = self.program.line(self.machine.pc);
        if let Some(source) = self.source_line(line) {
            text.push_str(&format!("\n{line:>5} | {source}"));
        }
        text
    }

    /// `save FILE`: a snapshot of the run, and how to go on with it.
    pub fn save(&mut self, arg: &str) -> String {
        // Its effects from here on happened already: a resumed snapshot
        // would do them again.
        if self.tape.replaying() {
            return "the session went back: what the run did from here on happened already, and a snapshot \
                    resumed would do it again; go on (continue) to where the run stood, then save"
                .into();
        }
        let file = match unquote(arg) {
            Ok(f) if !f.is_empty() => f,
            Ok(_) => return "save needs a file name: save FILE".into(),
            Err(e) => return e,
        };
        if let Some(outcome) = &self.ended {
            return format!(
                "the plan has ended ({}); a snapshot holds a run that can go on, and this one cannot",
                ended_name(outcome)
            );
        }
        let Some(info) = &self.save_info else {
            return "save is not available in this session: it has no workspace to record".into();
        };
        let mut machine = self.machine.clone();
        if machine.status == Status::Running {
            machine.status = Status::Suspended(Suspension::Requested);
        }
        let bytecode = tisslang::container::encode(&self.program.module);
        let answers = info
            .answers_file
            .as_ref()
            .map(|file| AnswersPosition { file: file.clone(), next: machine.interactions });
        let key = info.key_file.clone().and_then(|file| file.load_or_create());
        let snapshot = SnapshotRef {
            machine: &machine,
            bytecode: &bytecode,
            content_hash: self.program.hash(),
            workspace: &info.workspace,
            answers: answers.as_ref(),
            options: &info.options,
            resumed: None,
            key: key.as_ref().ok(),
        };
        let bytes = match snapshot::encode(&snapshot) {
            Ok(b) => b,
            Err(e) => return format!("cannot save: {e}"),
        };
        // The cassette first: complete up to the snapshot.
        if let Err(e) = self.host.persist() {
            return format!("cannot save: {e}");
        }
        // In the workspace, reached as the plan's paths are: its commands ran.
        let target = match tiss_host::workspace::own_path(&info.workspace, Path::new(&file)) {
            Ok(target) => target,
            Err(tiss_host::Error::Security(why) | tiss_host::Error::Command(why)) => {
                return format!("cannot write the snapshot `{file}`: {why}");
            }
        };
        if let Err(e) = snapshot::write_snapshot(&target, &bytes) {
            return format!("cannot write the snapshot `{file}`: {e}");
        }
        let waiting = match &machine.status {
            Status::Suspended(Suspension::Interaction { question, .. }) => Some(question),
            _ => None,
        };
        let workdir = key.as_ref().err().map(|_| info.workspace.as_path());
        let mut reply = match resume_command::commands(Path::new(&file), workdir, waiting).as_slice() {
            [one] => format!("saved a snapshot to {file}; continue the run with: {one}"),
            many => {
                format!("saved a snapshot to {file}; continue the run with one of:\n  {}", many.join("\n  "))
            }
        };
        if let Err(e) = key {
            reply.push_str(&format!(
                "\nnote: it is not signed ({e}), so resuming it needs --workdir, as above"
            ));
        }
        reply
    }
}

#[cfg(test)]
mod tests;
