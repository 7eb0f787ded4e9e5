//! `tissvm debug PLAN [--break LINE|STEP]...` (book: cli/tissvm.md): the step-through
//! debugger of `crate::session::debugger` on the real host, set up from the options
//! of `run`. Commands come from the terminal (line editing and history) or,
//! when stdin is not a terminal, one per line from stdin, each echoed after
//! the prompt so the transcript reads like a session; end of input quits.
//! Everything the session prints goes to stdout; the host's step lines go to
//! stderr, so stdout stays the same from one run to the next.
//!
//! Exit status: the plan's (book: reference/failures.md) if it ran to its end (0 passed, 1
//! failed, 4 budget exceeded, 5 security violation, 70 internal error), else
//! 0 when the session ends (`quit` or end of input) before it; 2 for bad
//! options or a `--break` that cannot be set.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use crate::host::Host;
use crate::machine::Machine;
use crate::machine::program::Program;
use crate::provider::settings::Origin;
use crate::runner::os_host::{OsHost, Progress, stdin_is_terminal};
use crate::session::debugger::{Debugger, Reply, SaveInfo, Target};
use crate::session::snapshot::RememberedOptions;
use crate::session::snapshot_key::KeyFile;
use tisslang::module::Module;

use crate::runner::execute::host::{OpenedHost, open_host, open_journal, open_recorder};
use crate::runner::options::HostOptions;
use crate::runner::plan::{Diagnostics, load_plan};
use crate::runner::status;
use tiss_support::io_message::io_message;

const PROMPT: &str = "(tissvm) ";

/// What `debug` steps through, and how it runs.
pub struct DebugOptions {
    pub plan: PathBuf,
    /// Breakpoints set before the session starts: `LINE` or `STEP`.
    pub breaks: Vec<String>,
    pub host: HostOptions,
}

/// Runs a debugging session of the plan; the exit status.
pub fn debug(out: &mut Diagnostics, options: &DebugOptions) -> u8 {
    match load_plan(out, &options.plan) {
        Ok(plan) => debug_plan(plan.module, options),
        Err(refused) => refused.status(),
    }
}

fn debug_plan(module: Module, args: &DebugOptions) -> u8 {
    let program = match Program::new(module) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("tissvm: {}: {e}", args.plan.display());
            return status::INVALID;
        }
    };
    match open_debugger(program, args) {
        Ok(mut debugger) => {
            let workspace = debugger.host.workspace.root().to_path_buf();
            let answers = debugger.save_info.as_ref().and_then(|info| info.answers_file.clone());
            let project_files = crate::runner::execute::project_file::ProjectFiles::watch(
                &mut debugger.host,
                &workspace,
                answers.as_deref(),
                args.host.policy.as_deref(),
            );
            let code = converse(&mut debugger, &args.breaks);
            debugger.host.warn_of_moved_records();
            project_files.after();
            code
        }
        Err(code) => code,
    }
}

/// The debugger on the real host, set up from the options of `run`, with
/// what `save` records for `tissvm resume` to go on with; an error has
/// been told and is the exit status.
fn open_debugger(mut program: Program, args: &DebugOptions) -> Result<Debugger<OsHost>, u8> {
    let (machine, host, save_info) = open_session(&mut program, args)?;
    let mut debugger = Debugger::new(program, machine, host);
    debugger.find_source(&args.plan);
    debugger.save_info = Some(save_info);
    Ok(debugger)
}

/// What a debugging session of `program` runs on (the CLI's and `tissvm
/// dap`'s): a fresh machine under the run's caps and policy, the real host
/// (step lines on stderr), and what `save` records; an error has been told
/// on stderr and is the exit status.
pub(crate) fn open_session(
    program: &mut Program,
    args: &DebugOptions,
) -> Result<(Machine, OsHost, SaveInfo), u8> {
    let options = &args.host;
    let mut machine = Machine::new(program);
    let workdir = options.workdir.clone().unwrap_or_else(|| PathBuf::from("."));
    // What `save` records for `tissvm resume` to go on with.
    let remembered = match options.over(None, RememberedOptions::default(), Origin::Default) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("tissvm: {e}");
            return Err(status::INVALID);
        }
    };
    // Step lines go to stderr, so the transcript on stdout is stable.
    let recorder = open_recorder(&remembered.provider, false)?;
    let journal = open_journal(options, program, None, false, &workdir)?;
    let OpenedHost { mut host, answers_file, caps, policy } =
        open_host(program, &workdir, None, None, options, &remembered, Progress::Quiet, journal)?;
    host.recorder = recorder;
    crate::runner::execute::allow_answers_of(program, host.completion_tokens);
    for (dim, value) in caps {
        machine.cap(dim, value);
    }
    machine.set_policy(policy);
    let limits = crate::runner::replay::record_limits(&machine, host.completion_tokens);
    host.journal(|_| limits);
    // Ctrl-C pauses a running command (and a second kills the RUN in
    // flight) instead of ending tissvm with its RUN left running; SIGTERM
    // ends the session (and the watchdog its RUN in flight).
    if let Err(e) = crate::session::interrupt::install_ctrl_c() {
        eprintln!("tissvm: warning: cannot handle Ctrl-C ({e}); it will end the session");
    }
    let save_info = SaveInfo {
        workspace: host.workspace.root().to_path_buf(),
        answers_file: answers_file.map(|f| f.path),
        options: remembered,
        key_file: KeyFile::locate(),
    };
    Ok((machine, host, save_info))
}

/// The session: the breakpoints `breaks` set, then commands until it
/// ends; the host closed after. The exit status.
fn converse(debugger: &mut Debugger<OsHost>, breaks: &[String]) -> u8 {
    let mut out = io::stdout().lock();
    // A closed pipe (`tissvm debug ... | head`) ends the session quietly;
    // another write error is an internal error (70), as for every subcommand.
    let write_failed = std::cell::Cell::new(false);
    let mut say = |text: &str| -> bool {
        if text.is_empty() {
            return true;
        }
        match writeln!(out, "{text}").and_then(|()| out.flush()) {
            Ok(()) => true,
            Err(e) => {
                if e.kind() != io::ErrorKind::BrokenPipe {
                    eprintln!("tissvm: cannot write to stdout: {}", io_message(&e));
                    write_failed.set(true);
                }
                false
            }
        }
    };
    let mut open = say(&debugger.banner());
    for text in breaks {
        match Target::parse(text).and_then(|t| debugger.add_breakpoint(t)) {
            Ok(reply) => open = open && say(&reply),
            Err(e) => {
                eprintln!("tissvm: --break {text}: {e}");
                return status::INVALID;
            }
        }
    }
    let mut start = debugger.start();
    note_answer_error(debugger, &mut start);
    if open && say(&start.text) {
        if stdin_is_terminal() {
            terminal_session(debugger, &mut say);
        } else {
            piped_session(debugger, &mut say);
        }
    }
    if let Err(e) = debugger.host.persist() {
        eprintln!("tissvm: {e}");
    }
    if let Some(log) = &mut debugger.host.log
        && let Err(e) = log.flush().and(log.error.take().map_or(Ok(()), Err))
    {
        eprintln!("tissvm: writing the log file failed: {e}");
    }
    if write_failed.get() {
        return status::INTERNAL;
    }
    debugger.exit_status() as u8
}

/// Commands from a terminal, with line editing and history.
fn terminal_session(debugger: &mut Debugger<OsHost>, say: &mut impl FnMut(&str) -> bool) {
    use rustyline::error::ReadlineError;
    let mut editor = match rustyline::DefaultEditor::new() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("tissvm: no line editing on this terminal ({e}); reading plain lines");
            return piped_session(debugger, say);
        }
    };
    loop {
        match editor.readline(PROMPT) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                let reply = command(debugger, &line);
                if !say(&reply.text) || reply.quit {
                    return;
                }
            }
            // Ctrl-C at the prompt abandons the line, as in a shell.
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => return,
            Err(e) => {
                eprintln!("tissvm: cannot read a command: {e}");
                return;
            }
        }
    }
}

/// Commands from a pipe or a file, one per line, each echoed after the prompt.
fn piped_session(debugger: &mut Debugger<OsHost>, say: &mut impl FnMut(&str) -> bool) {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) => {
                eprintln!("tissvm: cannot read a command from stdin: {}", io_message(&e));
                return;
            }
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        let echo = format!("{PROMPT}{text}");
        let reply = command(debugger, text);
        if !say(echo.trim_end()) || !say(&reply.text) || reply.quit {
            return;
        }
    }
}

/// Runs one command; an answer from `--answers` that did not fit the
/// interaction it met is told after the reply.
fn command(debugger: &mut Debugger<OsHost>, line: &str) -> Reply {
    let mut reply = debugger.command(line);
    note_answer_error(debugger, &mut reply);
    reply
}

fn note_answer_error(debugger: &mut Debugger<OsHost>, reply: &mut Reply) {
    if let Some(e) = debugger.host.answer_error.take() {
        reply.text.push_str(&format!("\n--answers {e}"));
    }
}
