//! Opening a session for `launch` (a plan, run from its start) and
//! `attach` (a snapshot, resumed under the debugger), on the host and with
//! the options `tissvm debug` and `tissvm resume` use. Errors are the text
//! of the request's error response: the compiler's first error for a plan
//! that does not compile, the snapshot's refusal for one that cannot be
//! resumed here.

use std::path::{Path, PathBuf};

use crate::machine::program::Program;
use crate::runner::debug::{DebugOptions, open_session};
use crate::runner::plan::{Diagnostics, load_plan};
use crate::runner::resume::claims::signed_by_user;
use crate::runner::resume::refusals::{being_resumed, resumed_before};
use crate::session::debugger::Debugger;
use crate::session::resume_lock::{LockError, ResumeLock};
use crate::session::snapshot;
use crate::session::snapshot_key::user_key;
use crate::session::workspace_claim;

use super::ParseArgs;
use super::host::{DapHost, Inner};
use super::requests::{Attach, Launch};
use super::wire::Writer;
use crate::runner::execute::project_file::ProjectFiles;

/// A session opened: its debugger, and where `disconnect` leaves a snapshot.
pub struct Opened {
    pub debugger: Debugger<DapHost>,
    pub snapshot_dir: SnapshotDir,
    pub plan: PathBuf,
    /// An attached snapshot's resume lock, held for the session.
    pub _lock: Option<ResumeLock>,
    /// The workspace's project files as the session found them, put back
    /// when it closes if the plan changed them.
    pub project_files: Option<ProjectFiles>,
}

/// Where `disconnect` leaves a snapshot: the directory given (`snapshotDir`,
/// or remembered), else `.tiss` in the workspace, found when the snapshot is
/// written, after the plan's commands ran ([`crate::runner::execute::suspend::snapshot_dir`]).
pub struct SnapshotDir {
    given: Option<PathBuf>,
    workspace: PathBuf,
}

impl SnapshotDir {
    /// The directory, as it stands now.
    pub fn now(&self) -> PathBuf {
        crate::runner::execute::suspend::snapshot_dir(self.given.as_deref(), &self.workspace)
    }
}

/// The words of a launch's options: `args`, with `workdir` and `journal`.
fn words(args: &[String], workdir: Option<&str>, journal: Option<&str>) -> Vec<String> {
    let mut words = args.to_vec();
    if let Some(dir) = workdir {
        words.extend(["--workdir".into(), dir.into()]);
    }
    if let Some(journal) = journal {
        words.extend(["--journal".into(), journal.into()]);
    }
    // Questions go to the debug console, never to stdin: stdin is the protocol.
    words.push("--non-interactive".into());
    words
}

pub fn launch(launch: &Launch, parse: &ParseArgs, out: &Writer) -> Result<Opened, String> {
    let plan = PathBuf::from(&launch.plan);
    if let Some(journal) = &launch.replay {
        return replay(&plan, Path::new(journal), out);
    }
    // As a tissvm starting: the project files as runs since killed, or
    // going on now, leave them to be read.
    crate::runner::execute::project_file::settle_before_reading();
    let options = parse(&plan, &words(&launch.args, launch.workdir.as_deref(), launch.journal.as_deref()))
        .map_err(|e| format!("the launch's `args`: {e}"))?;
    let module = load(&plan)?;
    let program = Program::new(module).map_err(|e| format!("{}: {e}", plan.display()))?;
    open(program, &options, launch.snapshot_dir.as_deref(), None, out)
}

pub fn attach(attach: &Attach, parse: &ParseArgs, out: &Writer) -> Result<Opened, String> {
    crate::runner::execute::project_file::settle_before_reading();
    let path = PathBuf::from(&attach.snapshot);
    let name = path.display().to_string();
    // As `tissvm resume`: one process at a time, and never one resumed before.
    let lock = match ResumeLock::take(&path) {
        Ok(lock) => Some(lock),
        Err(LockError::Held { path: held, pid }) => return Err(being_resumed(&name, &held, pid)),
        Err(LockError::Planted(why)) => return Err(why),
        Err(LockError::Unavailable(_)) => None,
    };
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read the snapshot `{name}`: {e}"))?;
    let snap = snapshot::read_snapshot(&bytes).map_err(|e| format!("{name}: {e}"))?;
    if let Some(continuation) = &snap.resumed {
        return Err(resumed_before(&name, continuation));
    }
    let signed = signed_by_user(&bytes, snap.signed, &user_key());
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let given = attach.workdir.as_deref().map(Path::new);
    let (workdir, _) = workspace_claim::choose(given, &snap.workspace, signed, home.as_deref(), false)
        .map_err(|refusal| format!("{name}: {refusal}; give `workdir` in the attach configuration"))?;
    let workdir = workdir.display().to_string();
    let options = parse(&path, &words(&attach.args, Some(&workdir), attach.journal.as_deref()))
        .map_err(|e| format!("the attach's `args`: {e}"))?;
    let program = Program::new(snap.module).map_err(|e| format!("{name}: {e}"))?;
    let mut opened = open(program, &options, attach.snapshot_dir.as_deref(), Some(snap.machine), out)?;
    opened._lock = lock;
    Ok(opened)
}

/// A journal's replay under the debugger: the plan (or, when it is the
/// journal itself, the bytecode the journal recorded) runs on what the
/// journal holds; nothing is run, written or asked. A plan that differs
/// replays up to the first effect that differs.
fn replay(plan: &Path, journal: &Path, out: &Writer) -> Result<Opened, String> {
    let (reader, recorded, bytecode) = crate::runner::replay::open_journal(journal)?;
    let module = if plan == journal {
        tisslang::container::load(&bytecode)
            .map_err(|e| format!("the journal's bytecode does not load: {e}"))?
    } else {
        load(plan)?
    };
    let mut program = Program::new(module).map_err(|e| format!("{}: {e}", plan.display()))?;
    if program.hash() != recorded {
        out.output(
            "console",
            "the plan differs from the one the journal recorded: it replays up to the first effect that differs",
        );
    }
    if let Some(not) = crate::runner::replay::first_not_yours(journal)? {
        out.output("console", &not.replay_note(&journal.display().to_string()));
    }
    let mut host = crate::runner::replay::replay_host(reader, crate::runner::options::OutputFormat::Json)?;
    let mut machine = crate::machine::Machine::new(&program);
    host.set_up_as_recorded(&mut machine, &mut program)?;
    let mut debugger =
        Debugger::new(program, machine, DapHost::new(Inner::Replay(Box::new(host)), out.clone()));
    debugger.find_source(plan);
    let log = out.clone();
    debugger.on_log = Box::new(move |text| log.output("console", text));
    let snapshot_dir = SnapshotDir { given: Some(std::env::temp_dir()), workspace: PathBuf::new() };
    Ok(Opened { debugger, snapshot_dir, plan: plan.to_path_buf(), _lock: None, project_files: None })
}

fn open(
    program: Program,
    options: &DebugOptions,
    snapshot_dir: Option<&str>,
    machine: Option<crate::machine::Machine>,
    out: &Writer,
) -> Result<Opened, String> {
    let mut program = program;
    let (fresh, host, save_info) = open_session(&mut program, options).map_err(|status| {
        format!("the session could not be set up (exit status {status}); the adapter's stderr says why")
    })?;
    let snapshot_dir = SnapshotDir {
        given: snapshot_dir.map(PathBuf::from).or_else(|| save_info.options.snapshot_dir.clone()),
        workspace: save_info.workspace.clone(),
    };
    // Watched as `tissvm debug` watches them: the answers and policy files too.
    let mut host = host;
    let answers = save_info.answers_file.as_deref();
    let project_files =
        ProjectFiles::watch(&mut host, &save_info.workspace, answers, options.host.policy.as_deref());
    let mut debugger = Debugger::new(
        program,
        machine.unwrap_or(fresh),
        DapHost::new(Inner::Live(Box::new(host)), out.clone()),
    );
    debugger.find_source(&options.plan);
    debugger.save_info = Some(save_info);
    let log = out.clone();
    debugger.on_log = Box::new(move |text| log.output("console", text));
    let project_files = Some(project_files);
    Ok(Opened { debugger, snapshot_dir, plan: options.plan.clone(), _lock: None, project_files })
}

/// The plan's module, loaded as `tissvm run` loads it; a plan that does
/// not compile is refused with the compiler's first error.
fn load(plan: &Path) -> Result<tisslang::module::Module, String> {
    use tiss_compiler::diagnostics::render::ErrorFormat;
    use tiss_compiler::diagnostics::render::termcolor::{ColorChoice, StandardStream};
    let name = plan.display().to_string();
    if let Ok(bytes) = std::fs::read(plan)
        && !tisslang::codec::seal::names_container(&bytes, &tisslang::container::MAGIC)
        && !tisslang::codec::seal::names_container(&bytes, &snapshot::MAGIC)
    {
        let frontend = tiss_compiler::frontend(&name, &bytes);
        let errors: Vec<_> = frontend.diagnostics.iter().filter(|d| d.is_error()).collect();
        if let Some(d) = errors.first() {
            let at = frontend.file.line_col(d.span.start as usize);
            let more = match errors.len() {
                1 => String::new(),
                n => format!(" (and {} more: `tissc check {name}` lists them)", n - 1),
            };
            return Err(format!("{name}:{}:{}: {} [{}]{more}", at.line, at.column, d.message, d.code));
        }
    }
    let mut out =
        Diagnostics { format: ErrorFormat::Human, stderr: StandardStream::stderr(ColorChoice::Never) };
    match load_plan(&mut out, plan) {
        Ok(plan) => Ok(plan.module),
        Err(refused) => Err(format!(
            "`{name}` cannot be run (exit status {}); the adapter's stderr says why",
            refused.status()
        )),
    }
}
