//! `tissvm debug PLAN [--break LINE|STEP]...` (SPEC §9): the step-through
//! debugger of `tiss_vm::debugger` on the real host, set up from the options
//! of `run`. Commands come from the terminal (line editing and history) or,
//! when stdin is not a terminal, one per line from stdin, each echoed after
//! the prompt so the transcript reads like a session; end of input quits.
//! Everything the session prints goes to stdout; the host's step lines go to
//! stderr, so stdout stays the same from one run to the next.
//!
//! Exit status: the plan's (SPEC §9) if it ran to its end (0 passed, 1
//! failed, 4 budget exceeded, 5 security violation, 70 internal error), else
//! 0 when the session ends (`quit` or end of input) before it; 2 for bad
//! options or a `--break` that cannot be set.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use clap::Args;
use tiss_vm::answers;
use tiss_vm::debugger::{Debugger, SaveInfo, Target};
use tiss_vm::machine::Machine;
use tiss_vm::os_host::{OsHost, Progress, stdin_is_terminal};
use tiss_vm::program::Program;
use tisslang::module::Module;

use super::run::{OutputFormat, RunOptions, SandboxProfile, parse_budget};
use super::status;

const PROMPT: &str = "(tissvm) ";

#[derive(Args)]
pub struct DebugArgs {
    /// The plan: bytecode (`.tbc`) or source (`.tiss`).
    #[arg(value_name = "PLAN")]
    pub plan: PathBuf,

    /// Stop before the first instruction of LINE, or where a step named STEP
    /// starts (repeatable).
    #[arg(long = "break", value_name = "LINE|STEP")]
    pub breaks: Vec<String>,

    #[command(flatten)]
    pub options: RunOptions,
}

pub fn debug(module: Module, args: &DebugArgs) -> u8 {
    let program = match Program::new(module) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("tissvm: {}: {e}", args.plan.display());
            return status::INVALID;
        }
    };
    let options = &args.options;
    if options.output_format != OutputFormat::Text {
        eprintln!("tissvm: debug prints its session as text; --output-format applies to `tissvm run`");
        return status::INVALID;
    }
    if options.snapshot_dir.is_some() {
        eprintln!("tissvm: debug writes a snapshot only on `save FILE`, which names it; drop --snapshot-dir");
        return status::INVALID;
    }
    let mut machine = Machine::new(&program);
    let (host, answers_file) = match open_host(&program, &mut machine, options) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let workspace = host.workspace.root().to_path_buf();
    let mut debugger = Debugger::new(program, machine, host);
    debugger.save_info = Some(SaveInfo { workspace, answers_file });

    let mut out = io::stdout().lock();
    let mut say = |text: &str| -> bool {
        if text.is_empty() {
            return true;
        }
        match writeln!(out, "{text}").and_then(|()| out.flush()) {
            Ok(()) => true,
            Err(e) => {
                if e.kind() != io::ErrorKind::BrokenPipe {
                    eprintln!("tissvm: cannot write to stdout: {}", super::io_message(&e));
                }
                false
            }
        }
    };
    if !say(&debugger.banner()) {
        return status::INTERNAL;
    }
    for text in &args.breaks {
        match Target::parse(text).and_then(|t| debugger.add_breakpoint(t)) {
            Ok(reply) => {
                say(&reply);
            }
            Err(e) => {
                eprintln!("tissvm: --break {text}: {e}");
                return status::INVALID;
            }
        }
    }
    let start = debugger.start();
    if say(&start.text) {
        if stdin_is_terminal() {
            terminal_session(&mut debugger, &mut say);
        } else {
            piped_session(&mut debugger, &mut say);
        }
    }
    if let Some(log) = &mut debugger.host.log
        && let Err(e) = log.flush().and(log.error.take().map_or(Ok(()), Err))
    {
        eprintln!("tissvm: writing the log file failed: {e}");
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
                let reply = debugger.command(&line);
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
                eprintln!("tissvm: cannot read a command from stdin: {}", super::io_message(&e));
                return;
            }
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        let echo = format!("{PROMPT}{text}");
        let reply = debugger.command(text);
        if !say(echo.trim_end()) || !say(&reply.text) || reply.quit {
            return;
        }
    }
}

/// The real host from the options of `run`, as `tissvm run` sets it up
/// (budgets applied to `machine`), with step lines on stderr; and the
/// answers file, if any, as an absolute path.
fn open_host(
    program: &Program,
    machine: &mut Machine,
    options: &RunOptions,
) -> Result<(OsHost, Option<PathBuf>), u8> {
    if options.sandbox_profile == SandboxProfile::Strict {
        eprintln!(
            "tissvm: the `strict` sandbox profile (no network, no writes outside the workspace, enforced by the \
             kernel) is not available in this build; refusing to run with weaker isolation. Use `standard`."
        );
        return Err(status::SECURITY);
    }
    for text in &options.budgets {
        match parse_budget(text) {
            Ok((dim, value)) => machine.cap(dim, value),
            Err(e) => {
                eprintln!("tissvm: --budget {e}");
                return Err(status::INVALID);
            }
        }
    }
    let provider = tiss_vm::provider::by_name(&options.provider).map_err(|e| {
        eprintln!("tissvm: --provider: {e}");
        status::INVALID
    })?;
    let workdir = options.workdir.clone().unwrap_or_else(|| PathBuf::from("."));
    if !workdir.is_dir() {
        eprintln!("tissvm: --workdir `{}` is not a directory", workdir.display());
        return Err(status::INVALID);
    }
    let workspace = tiss_vm::workspace::Workspace::open(&workdir).map_err(|e| {
        eprintln!("tissvm: {e:?}");
        status::INVALID
    })?;
    let mut host = OsHost::new(workspace, provider, Progress::Quiet);
    let mut answers_file = None;
    if let Some(path) = &options.answers {
        let name = path.display().to_string();
        let replies = match std::fs::read(path) {
            Ok(bytes) => answers::parse_file(&bytes, &name),
            Err(e) => Err(format!("cannot read the answers file `{name}`: {e}")),
        };
        match replies.and_then(|r| answers::check_plan(&r, &program.module).map(|()| r)) {
            Ok(replies) => host.answers = replies.into(),
            Err(e) => {
                eprintln!("tissvm: --answers {e}");
                return Err(status::INVALID);
            }
        }
        answers_file = Some(std::path::absolute(path).unwrap_or_else(|_| path.clone()));
    }
    host.env_allow = options.env_allow.clone();
    // With an answers file, running out of answers suspends rather than asks.
    host.interactive = !options.non_interactive && answers_file.is_none() && stdin_is_terminal();
    if let Some(path) = &options.log_file {
        match tiss_vm::event_log::EventLog::open(path) {
            Ok(log) => host.log = Some(log),
            Err(e) => {
                eprintln!("tissvm: cannot open the log file `{}`: {e}", path.display());
                return Err(status::INVALID);
            }
        }
    }
    Ok((host, answers_file))
}
