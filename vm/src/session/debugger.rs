//! The step-through debugger behind `tissvm debug` (SPEC §9), independent of
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

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tisslang::cost::{Dim, PerDim};
use tisslang::isa::Instr;
use tisslang::module::NONE;
use tisslang::module::kept_source::{self, SourceText, Unavailable};
use tisslang::types::Field;

use crate::host::Host;
use crate::machine::program::Program;
use crate::machine::value::{Record, Value, format_duration};
use crate::machine::{Machine, Outcome, Status, Suspension};
use crate::report::failure_text;
use crate::report::style::Style;
use crate::session::answers;
use crate::session::interrupt;
use crate::session::resume_command;
use crate::session::snapshot::{self, AnswersPosition, RememberedOptions, SnapshotRef};
use crate::session::snapshot_key::{KeyError, KeyFile};

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

/// The commands, in the order `help` lists them: (name, short form, usage, what it does).
const COMMANDS: &[(&str, &str, &str, &str)] = &[
    (
        "break",
        "b",
        "break LINE | break \"STEP\"",
        "stop before LINE, or where a step named STEP starts; alone: list",
    ),
    ("delete", "d", "delete N", "remove breakpoint N; alone: remove them all"),
    ("continue", "c", "continue", "run until a breakpoint, the end, a failure or a suspension"),
    ("step", "s", "step", "run to the next statement, into CALLs"),
    ("next", "n", "next", "run to the next statement, over CALLs"),
    ("print", "p", "print NAME | NAME.FIELD | LAST_RUN | COST", "show a value"),
    ("locals", "", "locals", "every bound variable with its type and value"),
    ("where", "", "where", "the current line, the step path and the call stack"),
    ("list", "l", "list [LINE]", "the source around the current line (or LINE)"),
    ("save", "", "save FILE", "write a snapshot that `tissvm resume FILE` continues"),
    ("quit", "q", "quit", "end the session"),
    ("help", "h", "help", "this list"),
];

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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breakpoint {
    pub id: u32,
    pub target: Target,
    /// The instructions it stops before.
    pub pcs: Vec<u32>,
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Continue,
    Step,
    /// Stop at a statement at this CALL depth or a shallower one.
    Next(usize),
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
        Reply::text(self.stop_text(header))
    }

    /// The exit status of the session: the plan's (SPEC §9) if it ended,
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

    /// Adds a breakpoint; the text reports it, the error says why not.
    pub fn add_breakpoint(&mut self, target: Target) -> Result<String, String> {
        if let Some(old) = self.breakpoints.iter().find(|b| b.target == target) {
            return Ok(format!("breakpoint {} already stops at {}", old.id, target.describe()));
        }
        let module = &self.program.module;
        let pcs: Vec<u32> = match &target {
            Target::Line(line) => module
                .lines
                .iter()
                .filter(|e| e.line == *line && self.is_statement(e.pc))
                .map(|e| e.pc)
                .collect(),
            Target::Step(name) => module
                .code
                .iter()
                .enumerate()
                .filter(|(_, instr)| match instr {
                    Instr::StepEnter { step } => self.step_name(*step) == name,
                    _ => false,
                })
                .map(|(pc, _)| pc as u32)
                .collect(),
        };
        if pcs.is_empty() {
            return Err(match &target {
                Target::Line(line) => self.no_code_at(*line),
                Target::Step(name) => self.no_step_named(name),
            });
        }
        let id = self.next_id;
        self.next_id += 1;
        let text = format!("breakpoint {id} at {}", target.describe());
        self.breakpoints.push(Breakpoint { id, target, pcs });
        self.index_breakpoints(&[]);
        Ok(text)
    }

    /// Flags the pcs of the breakpoints after unflagging `removed`.
    fn index_breakpoints(&mut self, removed: &[u32]) {
        for pc in removed {
            if let Some(flags) = self.stops.get_mut(*pc as usize) {
                *flags &= !BREAK;
            }
        }
        for pc in self.breakpoints.iter().flat_map(|b| &b.pcs) {
            if let Some(flags) = self.stops.get_mut(*pc as usize) {
                *flags |= BREAK;
            }
        }
    }

    fn is_statement(&self, pc: u32) -> bool {
        self.stops.get(pc as usize).is_some_and(|f| f & STATEMENT != 0)
    }

    /// Why a line cannot hold a breakpoint, with the nearest lines that can.
    fn no_code_at(&self, line: u32) -> String {
        let lines: BTreeSet<u32> =
            self.program.module.lines.iter().filter(|e| self.is_statement(e.pc)).map(|e| e.line).collect();
        let before = lines.range(..line).next_back();
        let after = lines.range(line + 1..).next();
        let source_lines = self.source().map(|s| s.lines().count() as u32);
        let what = match source_lines {
            Some(n) if line > n => format!("line {line} is past the end of the plan ({n} lines)"),
            _ => format!("line {line} has no code to stop at"),
        };
        match (before, after) {
            (Some(b), Some(a)) => format!("{what}; the nearest lines with code are {b} and {a}"),
            (Some(b), None) => format!("{what}; the last line with code is {b}"),
            (None, Some(a)) => format!("{what}; the first line with code is {a}"),
            (None, None) => format!("{what}; the plan has no statement to stop at"),
        }
    }

    fn no_step_named(&self, name: &str) -> String {
        let mut names: Vec<&str> = Vec::new();
        for step in &self.program.module.steps {
            let n = self.program.string(step.name);
            if !names.contains(&n) {
                names.push(n);
            }
        }
        let mut text = format!("no step is named {name:?}");
        if let Some(close) = tiss_support::suggest::closest(name, names.iter().copied()) {
            text.push_str(&format!("; did you mean {close:?}?"));
        } else if names.is_empty() {
            text.push_str("; the plan has no steps");
        } else {
            let shown: Vec<String> = names.iter().take(10).map(|n| format!("{n:?}")).collect();
            let more = if names.len() > 10 { ", ..." } else { "" };
            text.push_str(&format!("; the steps are {}{more}", shown.join(", ")));
        }
        text
    }

    fn list_breakpoints(&self) -> String {
        if self.breakpoints.is_empty() {
            return "no breakpoints".into();
        }
        self.breakpoints
            .iter()
            .map(|b| format!("breakpoint {} at {}", b.id, b.target.describe()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn delete(&mut self, arg: &str) -> String {
        if arg.is_empty() {
            let n = self.breakpoints.len();
            let removed: Vec<u32> = self.breakpoints.drain(..).flat_map(|b| b.pcs).collect();
            self.index_breakpoints(&removed);
            return match n {
                0 => "no breakpoints to delete".into(),
                1 => "deleted the breakpoint".into(),
                n => format!("deleted all {n} breakpoints"),
            };
        }
        let Ok(id) = arg.parse::<u32>() else {
            return format!("delete takes a breakpoint number, not `{arg}`: `break` lists them");
        };
        let Some(at) = self.breakpoints.iter().position(|b| b.id == id) else {
            return match self.breakpoints.len() {
                0 => format!("no breakpoint {id}: there are no breakpoints"),
                _ => {
                    let ids: Vec<String> = self.breakpoints.iter().map(|b| b.id.to_string()).collect();
                    format!("no breakpoint {id}; the breakpoints are {}", ids.join(", "))
                }
            };
        };
        let gone = self.breakpoints.remove(at);
        self.index_breakpoints(&gone.pcs);
        format!("deleted breakpoint {id} at {}", gone.target.describe())
    }

    /// Runs until `mode` says stop, a breakpoint, the end, a failure or a
    /// suspension. With `skip_first`, the instruction at the pc runs before
    /// anything can stop (the session is stopped there now).
    fn go(&mut self, mode: Mode, skip_first: bool) -> String {
        if let Some(outcome) = &self.ended {
            return format!(
                "the plan has ended ({}): nothing is left to run; where, print, locals and list still work",
                ended_name(outcome)
            );
        }
        let stops = &self.stops;
        let breakpoints = &self.breakpoints;
        let program = &self.program;
        let start = self.machine.meters[Dim::Instructions];
        // The pc and CALL depth of the last statement that started: a line
        // breakpoint stops when execution enters its line from another one.
        let mut last = (self.machine.pc, self.machine.frames.len());
        let mut hits: Vec<u32> = Vec::new();
        let killed_before = interrupt::killed_runs();
        let outcome = self.machine.run_until(program, &mut self.host, |m| {
            // The hot path: most instructions start no statement.
            let flags = stops.get(m.pc as usize).copied().unwrap_or(0);
            if flags == 0 {
                return false;
            }
            // Ctrl-C pauses at the next statement: no effect can come first.
            if interrupt::requested_fast() {
                return true;
            }
            let here = (m.pc, m.frames.len());
            // The instruction the session stands at runs before anything stops.
            let stop = !(skip_first && m.meters[Dim::Instructions] == start)
                && match mode {
                    Mode::Continue => {
                        flags & BREAK != 0 && {
                            hits = hits_at(breakpoints, program, last, here);
                            !hits.is_empty()
                        }
                    }
                    Mode::Step | Mode::Next(_) => {
                        if flags & BREAK != 0 {
                            hits = hits_at(breakpoints, program, last, here);
                        }
                        !matches!(mode, Mode::Next(max) if here.1 > max) || !hits.is_empty()
                    }
                };
            last = here;
            stop
        });
        let interrupted = interrupt::requested();
        if interrupted {
            interrupt::reset();
        }
        let mut text = match outcome {
            Outcome::Running | Outcome::Suspended(Suspension::Requested) => {
                let header = match hits.as_slice() {
                    [] if interrupted => "interrupted (Ctrl-C) at".to_string(),
                    [] => "at".to_string(),
                    [one] => format!("hit breakpoint {one} at"),
                    many => {
                        let ids: Vec<String> = many.iter().map(u32::to_string).collect();
                        format!("hit breakpoints {} at", ids.join(", "))
                    }
                };
                self.stop_text(&header)
            }
            Outcome::Suspended(Suspension::Interaction { question, .. }) if interrupted => {
                let mut text = self.stop_text("interrupted (Ctrl-C) at");
                text.push_str(&format!(
                    "\nwaiting for an answer to {}: `continue` asks again; `save FILE` writes a snapshot",
                    answers::describe(&question)
                ));
                text
            }
            Outcome::Suspended(Suspension::Interaction { question, .. }) => {
                let mut text = self.stop_text("suspended at");
                text.push_str(&format!(
                    "\nwaiting for an answer to {}: none is available (no terminal, --non-interactive, or the \
                     answers ran out)\n`save FILE` writes a snapshot; `tissvm resume FILE --answer {}` continues it",
                    answers::describe(&question),
                    answers::expected_answers(&question)
                ));
                text
            }
            ended => {
                let text = end_text(&ended);
                self.ended = Some(ended);
                text
            }
        };
        if interrupt::killed_runs() > killed_before {
            text.push_str(
                "\nthe RUN in flight was killed by a second Ctrl-C: LAST_RUN holds what it left, and the run goes on \
                 from there",
            );
        }
        text
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

    /// `line 7:5, step "Write the module", task "lint"` (and `, entering
    /// step "X"` before a STEP_ENTER).
    fn here(&self) -> String {
        let pc = self.machine.pc;
        let mut text = match self.program.module.position(pc) {
            Some((line, column)) => format!("line {line}:{column}"),
            None => format!("pc {pc} (no source position)"),
        };
        let path = self.machine.step_path(&self.program);
        if !self.machine.steps.is_empty() {
            text.push_str(&format!(", step {path:?}"));
        }
        if let Some(task) = self.task_at(pc) {
            text.push_str(&format!(", task {:?}", self.program.string(task)));
        }
        if let Some(Instr::StepEnter { step }) = self.program.module.code.get(pc as usize) {
            text.push_str(&format!(", entering step {:?}", self.step_name(*step)));
        }
        text
    }

    /// The name (string index) of the DEFINE_TASK whose body holds `pc`;
    /// `None` in the main code.
    fn task_at(&self, pc: u32) -> Option<u32> {
        self.program.module.tasks.iter().filter(|t| t.entry <= pc).max_by_key(|t| t.entry).map(|t| t.name)
    }

    fn step_name(&self, step: u32) -> &str {
        self.program.string(self.program.module.steps.get(step as usize).map_or(NONE, |s| s.name))
    }

    fn task(&self) -> &str {
        self.program.string(self.program.module.task)
    }

    fn source(&self) -> Option<&str> {
        self.source.as_ref().ok().map(|s| s.text.as_str())
    }

    fn source_line(&self, line: u32) -> Option<&str> {
        self.source()?.lines().nth((line as usize).checked_sub(1)?)
    }

    /// The line the session stands at: the next instruction's, or where the
    /// run failed; `None` when it ran to its end.
    fn current_line(&self) -> Option<u32> {
        match &self.ended {
            Some(Outcome::Failed(f)) => Some(f.line),
            Some(_) => None,
            None => Some(self.program.line(self.machine.pc)),
        }
    }

    fn where_text(&self) -> String {
        let mut lines = Vec::new();
        match &self.ended {
            Some(outcome @ Outcome::Failed(f)) => {
                lines.push(format!("the plan has ended: {} ({})", ended_name(outcome), f.kind.name()));
                lines.push(format!("at line {}, column {}", f.line, f.column));
                lines.push(format!(
                    "step path: {}",
                    if f.step.is_empty() { "(no step open)" } else { &f.step }
                ));
                return lines.join("\n");
            }
            Some(outcome) => return format!("the plan has ended: {}", ended_name(outcome)),
            None => {}
        }
        let pc = self.machine.pc;
        match self.program.module.position(pc) {
            Some((line, column)) => {
                lines.push(format!("at line {line}, column {column}"));
                match (&self.source, self.source_line(line)) {
                    (_, Some(text)) => lines.push(format!("{line:>5} | {text}")),
                    (Err(why), None) => lines.push(format!("no source to show: {why}")),
                    (Ok(_), None) => {}
                }
            }
            None => lines.push(format!("at pc {pc} (no source position)")),
        }
        let path = self.machine.step_path(&self.program);
        lines.push(format!("step path: {}", if path.is_empty() { "(no step open)" } else { &path }));
        if let Some(Instr::StepEnter { step }) = self.program.module.code.get(pc as usize) {
            lines.push(format!("next: entering step {:?}", self.step_name(*step)));
        }
        lines.push("call stack, innermost first:".into());
        let mut at = pc;
        for frame in self.machine.frames.iter().rev() {
            lines.push(format!("  {} at {}", self.code_name(at), self.position(at)));
            at = frame.return_pc.saturating_sub(1);
        }
        lines.push(format!("  {} at {}", self.code_name(at), self.position(at)));
        if let Status::Suspended(Suspension::Interaction { question, .. }) = &self.machine.status {
            lines.push(format!("waiting for an answer to {}", answers::describe(question)));
        }
        lines.join("\n")
    }

    /// `task "lint"` or `main` (the plan's top level).
    fn code_name(&self, pc: u32) -> String {
        match self.task_at(pc) {
            Some(name) => format!("task {:?}", self.program.string(name)),
            None => "main".into(),
        }
    }

    fn position(&self, pc: u32) -> String {
        match self.program.module.position(pc) {
            Some((line, column)) => format!("line {line}:{column}"),
            None => format!("pc {pc}"),
        }
    }

    /// The value of a variable by name, `LAST_RUN` or `COST`, then fields.
    fn print(&self, arg: &str) -> String {
        if arg.is_empty() {
            return "print needs a name: print NAME, print NAME.FIELD, print LAST_RUN or print COST".into();
        }
        let mut parts = arg.split('.');
        let root = parts.next().unwrap_or("");
        let mut value = match self.lookup(root) {
            Ok(v) => v,
            Err(e) => return e,
        };
        let mut path = root.to_string();
        for name in parts {
            let Value::Record(record) = &value else {
                return format!("`{path}` is {}: it has no field `{name}`", a(value.type_name()));
            };
            match Field::from_name(name).and_then(|f| record.field(f)) {
                Some(v) => value = v,
                None => {
                    let fields: Vec<&str> =
                        record_fields(record).into_iter().map(|(f, _)| f.name()).collect();
                    let mut text = format!("{} record has no field `{name}`", a(record.kind_name()));
                    if let Some(close) = tiss_support::suggest::closest(name, fields.iter().copied()) {
                        text.push_str(&format!("; did you mean `{path}.{close}`?"));
                    } else {
                        text.push_str(&format!("; its fields are {}", fields.join(", ")));
                    }
                    return text;
                }
            }
            path.push('.');
            path.push_str(name);
        }
        match &value {
            Value::Record(record) => {
                let what = match record.as_ref() {
                    Record::Cost(_) if self.machine.steps.is_empty() => {
                        "COST record: what the run has spent (no step is open)".to_string()
                    }
                    Record::Cost(_) => format!(
                        "COST record: what step {:?} has spent so far",
                        self.step_name(self.machine.steps.last().map_or(NONE, |s| s.step))
                    ),
                    other => format!("{} record", other.kind_name()),
                };
                let fields = record_fields(record);
                let width = fields.iter().map(|(f, _)| f.name().len()).max().unwrap_or(0);
                let mut text = format!("{arg} = {what}");
                for (field, v) in fields {
                    text.push_str(&format!("\n  {:width$} = {}", field.name(), show(&v, FIELD_LIMIT)));
                }
                text
            }
            other => format!("{arg} = {}", show(other, PRINT_LIMIT)),
        }
    }

    /// A root of `print`: a variable, `LAST_RUN` or `COST`.
    fn lookup(&self, name: &str) -> Result<Value, String> {
        match name {
            "LAST_RUN" => {
                return match &self.machine.last_run {
                    Some(run) => Ok(Value::Record(Box::new(Record::LastRun(run.clone())))),
                    None => Err("LAST_RUN is not set: no RUN has happened yet".into()),
                };
            }
            "COST" => return Ok(Value::Record(Box::new(Record::Cost(self.spending())))),
            _ => {}
        }
        let module = &self.program.module;
        let slots: Vec<usize> =
            (0..module.slots.len()).filter(|&i| self.program.string(module.slots[i].name) == name).collect();
        if let Some(value) = slots.iter().find_map(|&i| self.machine.slots.get(i).cloned().flatten()) {
            return Ok(value);
        }
        if let Some(&i) = slots.first() {
            return Err(format!("`{name}` is not bound yet ({} variable)", a(module.slots[i].ty.name())));
        }
        let mut candidates: Vec<&str> = module.slots.iter().map(|s| self.program.string(s.name)).collect();
        candidates.extend(["LAST_RUN", "COST"]);
        let mut text = format!("no variable is named `{name}`");
        if let Some(close) = tiss_support::suggest::closest(name, candidates) {
            text.push_str(&format!("; did you mean `{close}`?"));
        }
        Err(text)
    }

    /// What the current step has spent (the whole run outside steps).
    fn spending(&self) -> PerDim<u64> {
        let base = self.machine.steps.last().map_or(PerDim::default(), |s| s.meters_at_entry);
        PerDim::from_fn(|dim| self.machine.meters[dim].saturating_sub(base[dim]))
    }

    fn locals(&self) -> String {
        let module = &self.program.module;
        let lines: Vec<String> = module
            .slots
            .iter()
            .zip(&self.machine.slots)
            .filter_map(|(slot, value)| {
                let value = value.as_ref()?;
                Some(format!(
                    "{}: {} = {}",
                    self.program.string(slot.name),
                    slot.ty.name(),
                    show(value, LOCALS_LIMIT)
                ))
            })
            .collect();
        if lines.is_empty() { "no variable is bound yet".into() } else { lines.join("\n") }
    }

    fn list(&self, arg: &str) -> String {
        let source = match &self.source {
            Ok(source) => &source.text,
            Err(why) => return format!("no source to show: {why}; `tissvm disasm` shows the code"),
        };
        let lines: Vec<&str> = source.lines().collect();
        let total = lines.len() as u32;
        let current = self.current_line();
        let center = if arg.is_empty() {
            // At the end of a run that passed, the end of the plan.
            current.unwrap_or(total)
        } else {
            match arg.parse::<u32>() {
                Ok(0) | Err(_) => return format!("list takes a line number, not `{arg}`"),
                Ok(n) => n,
            }
        };
        if center > total || center == 0 {
            return format!("line {center} is past the end of the plan ({total} lines)");
        }
        let from = center.saturating_sub(LIST_CONTEXT).max(1);
        let to = (center + LIST_CONTEXT).min(total);
        let marked: BTreeSet<u32> =
            self.breakpoints.iter().flat_map(|b| &b.pcs).map(|&pc| self.program.line(pc)).collect();
        let width = to.to_string().len();
        (from..=to)
            .map(|n| {
                let here = if Some(n) == current { "->" } else { "  " };
                let mark = if marked.contains(&n) { "*" } else { " " };
                format!("{here}{mark} {n:>width$} | {}", lines[(n - 1) as usize]).trim_end().to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn save(&mut self, arg: &str) -> String {
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
        if let Err(e) = snapshot::write_snapshot(Path::new(&file), &bytes) {
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

/// The breakpoints that stop at `here` (pc, CALL depth): a step breakpoint
/// always, a line breakpoint when execution enters its line (the `last`
/// statement was on another line or at another CALL depth).
fn hits_at(
    breakpoints: &[Breakpoint],
    program: &Program,
    last: (u32, usize),
    here: (u32, usize),
) -> Vec<u32> {
    let entered = last.1 != here.1 || program.line(last.0) != program.line(here.0);
    breakpoints
        .iter()
        .filter(|b| b.pcs.contains(&here.0))
        .filter(|b| entered || matches!(b.target, Target::Step(_)))
        .map(|b| b.id)
        .collect()
}

/// `a string`, `an integer`.
fn a(noun: &str) -> String {
    let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {noun}")
}

/// The fields a record has, in `Field` order.
fn record_fields(record: &Record) -> Vec<(Field, Value)> {
    Field::ALL.iter().filter_map(|&f| record.field(f).map(|v| (f, v))).collect()
}

/// A value on one line, in plan syntax; strings longer than `limit`
/// characters keep their head and tail.
pub fn show(value: &Value, limit: usize) -> String {
    match value {
        Value::Str(s) => quote(s, limit),
        Value::Tainted(s) => format!("{} (tainted: from a model or a file)", quote(s, limit)),
        Value::Int(i) => i.to_string(),
        Value::Duration(ms) => format_duration(*ms),
        Value::Bool(b) => (if *b { "TRUE" } else { "FALSE" }).to_string(),
        Value::Record(record) => {
            let fields: Vec<String> = record_fields(record)
                .into_iter()
                .map(|(f, v)| format!("{} = {}", f.name(), show(&v, limit / 2)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
    }
}

/// `"text"` with escapes; beyond `limit` characters, `"head" … [N characters omitted] … "tail"`.
fn quote(text: &str, limit: usize) -> String {
    let count = text.chars().count();
    if count <= limit {
        return format!("{text:?}");
    }
    let half = (limit / 2).max(1);
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!("{head:?} … [{} characters omitted] … {tail:?}", count - 2 * half)
}

/// `passed`, `failed`, `internal error` or `suspended`.
fn ended_name(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Completed => "passed",
        // The failure report names the kind; saying it here too would repeat it.
        Outcome::Failed(_) => "failed",
        Outcome::Trapped(_) => "internal error",
        Outcome::Running | Outcome::Suspended(_) => "suspended",
    }
}

fn end_text(outcome: &Outcome) -> String {
    match outcome {
        // Plain: the transcript on stdout is the same on every run.
        Outcome::Failed(f) => {
            format!("the plan ended: {}\n{}", ended_name(outcome), failure_text(f, Style::PLAIN))
        }
        Outcome::Trapped(message) => format!(
            "the plan ended: internal error: {message}\nThis is a bug in tissvm (the verifier accepted this \
             bytecode); please report it."
        ),
        other => format!("the plan ended: {}", ended_name(other)),
    }
}

fn unknown_command(word: &str) -> String {
    let names = COMMANDS.iter().map(|(n, ..)| *n);
    let mut text = format!("unknown command `{word}`");
    if let Some(close) = tiss_support::suggest::closest(word, names.clone()) {
        text.push_str(&format!("; did you mean `{close}`?"));
    }
    text.push_str(&format!("\ncommands: {}", names.collect::<Vec<_>>().join(", ")));
    text
}

fn help() -> String {
    let width = COMMANDS.iter().map(|(_, _, usage, _)| usage.len()).max().unwrap_or(0);
    let mut text = String::from("commands:");
    for (_, _, usage, what) in COMMANDS {
        text.push_str(&format!("\n  {usage:width$}  {what}"));
    }
    let shorts: Vec<&str> = COMMANDS.iter().map(|(_, s, ..)| *s).filter(|s| !s.is_empty()).collect();
    text.push_str(&format!("\nshort forms: {}; an empty line repeats step or next", shorts.join(", ")));
    text
}

#[cfg(test)]
mod tests;
