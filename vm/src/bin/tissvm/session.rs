//! A run on the real host, fresh (`tissvm run`) or resumed (`tissvm
//! resume`): the host set-up from the run options, answers given in advance,
//! the dispatch loop with its Ctrl-C stop check, and on suspension the
//! snapshot and the command that continues it; then the report.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use tiss_host::sandbox::{Profile, Sandbox};
use tiss_vm::host::{Event, Host};
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Machine, Outcome, Suspension};
use tiss_vm::policy::{Policy, PolicyRules};
use tiss_vm::provider::cassette::{Cassette, Recorder};
use tiss_vm::provider::settings::ProviderSettings;
use tiss_vm::report::style::Tone;
use tiss_vm::report::{RunReport, failure_text};
use tiss_vm::runner::os_host::{OsHost, Progress, stdin_is_terminal};
use tiss_vm::session::answers::{self, Reply};
use tiss_vm::session::interrupt;
use tiss_vm::session::resume_command;
use tiss_vm::session::resume_lock::ResumeLock;
use tiss_vm::session::snapshot::{self, AnswersPosition, Continuation, RememberedOptions, SnapshotRef};
use tiss_vm::session::snapshot_key::{KeyError, KeyFile, SnapshotKey};
use tisslang::cost::Dim;
use tisslang::isa::Instr;

use super::checkpoint::Checkpoint;
use super::color;
use super::options::{HostOptions, OutputFormat, ReportOptions, parse_budget};
use super::resume::Mark;
use super::status;

/// Where a run starts from.
pub struct Start {
    pub program: Program,
    pub machine: Machine,
    /// The module's `.tbc` bytes, if at hand (a resumed snapshot's); else
    /// encoded when a snapshot is written.
    pub bytecode: Option<Vec<u8>>,
    /// The workspace directory.
    pub workdir: PathBuf,
    /// `resume --answer`: answers the interaction the run waits for.
    pub first: Option<Reply>,
    /// The snapshot this run resumes, if any.
    pub resumed: Option<Resumed>,
    /// `--checkpoint`: where the state before each effect is kept.
    pub checkpoint: Option<PathBuf>,
}

/// What a resumed run keeps of its snapshot.
pub struct Resumed {
    /// The snapshot file, as given.
    pub path: PathBuf,
    /// The file's bytes as read, to mark it resumed (or leave it as it was).
    pub bytes: Vec<u8>,
    /// Where the run stood in its answers file, if it had one.
    pub answers: Option<AnswersPosition>,
    /// `--force`: go on even if the snapshot cannot record that it is resumed.
    pub force: bool,
    /// `--raise-budget`: a `--budget` replaces the cap in force, even above it.
    pub raise_budget: bool,
    /// The snapshot's lock, which `Mark` takes over: no other resume of it
    /// runs meanwhile (`None`: its file cannot be marked either).
    pub lock: Option<ResumeLock>,
    /// This user's snapshot key: the marked snapshot stays signed if it
    /// was signed with it.
    pub key: Option<SnapshotKey>,
}

/// The answers file: its entries from the run's position on.
pub struct AnswersFile {
    /// Absolute where it could be made so.
    pub path: PathBuf,
    pub len: u32,
}

/// The real host of a run, and what else its options give.
pub struct OpenedHost {
    pub host: OsHost,
    pub answers_file: Option<AnswersFile>,
    /// The `--budget` caps, for the caller to apply to the machine.
    pub caps: Vec<(Dim, u64)>,
    /// The command policy, for the caller to give the machine (`None`: none).
    pub policy: Option<Rc<Policy>>,
}

/// The real host of a run, set up from its [`HostOptions`] (shared by
/// `run`, `resume` and `debug`): the workspace, the model provider, answers
/// given in advance (`first`, then the answers file's entries from the run's
/// next interaction on), terminal questions, the log file; the cassette
/// `--record` names is the caller's ([`open_recorder`]). An error has been
/// reported and is the exit status.
pub fn open_host(
    program: &Program,
    workdir: &Path,
    first: Option<Reply>,
    used: Option<&AnswersPosition>,
    options: &HostOptions,
    remembered: &RememberedOptions,
    progress: Progress,
) -> Result<OpenedHost, u8> {
    let Some(profile) = Profile::from_name(&remembered.sandbox_profile) else {
        eprintln!(
            "tissvm: the snapshot's sandbox profile `{}` is not one this tissvm knows; pass --sandbox-profile",
            remembered.sandbox_profile
        );
        return Err(status::INVALID);
    };
    let limits = remembered.limits;
    if profile != Profile::Strict && (options.max_procs.is_some() || options.max_memory.is_some()) {
        eprintln!(
            "tissvm: note: --max-procs and --max-memory are limits of the `strict` sandbox profile; the `{}` \
             profile does not set them",
            profile.name()
        );
    }
    let mut caps = Vec::new();
    for text in &options.budgets {
        match parse_budget(text) {
            Ok(cap) => caps.push(cap),
            Err(e) => {
                eprintln!("tissvm: --budget {e}");
                return Err(status::INVALID);
            }
        }
    }
    let policy = match Policy::new(remembered.policy.clone()) {
        Ok(p) => (*p.rules() != PolicyRules::default()).then(|| Rc::new(p)),
        Err(e) => {
            eprintln!("tissvm: the policy {}: {e}", remembered.policy.origin);
            return Err(status::INVALID);
        }
    };
    let settings = &remembered.provider;
    if settings.provider != "mock" && remembered.env_allow.contains(&settings.api_key_env) {
        eprintln!(
            "tissvm: --env-allow {} would hand the model's API key to commands; the key is never passed to RUN \
             (SPEC §7)",
            settings.api_key_env
        );
        return Err(status::INVALID);
    }
    let provider = match tiss_vm::provider::build(settings) {
        Ok(p) => p,
        Err(e) => {
            // Each message names its flag or provider already.
            eprintln!("tissvm: {e}");
            return Err(status::INVALID);
        }
    };
    if !workdir.is_dir() {
        eprintln!("tissvm: --workdir `{}` is not a directory", workdir.display());
        return Err(status::INVALID);
    }
    let workspace = match tiss_host::workspace::Workspace::open(workdir) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("tissvm: {e:?}");
            return Err(status::INVALID);
        }
    };

    let sandbox = match Sandbox::prepare(profile, workspace.root(), limits) {
        Ok(sandbox) => sandbox,
        Err(refusal) => {
            eprintln!("tissvm: security_violation: {refusal}");
            return Err(status::SECURITY);
        }
    };
    if profile == Profile::None {
        let warning = color::stderr().paint(Tone::Warn, "warning");
        eprintln!(
            "tissvm: {warning}: --sandbox-profile none: commands run with your whole environment and no limits; \
             only the plan's own file operations stay confined to the workspace"
        );
    }

    // Answers given in advance: `--answer` first, then the file's entries
    // from the run's k-th interaction on (counting continues across resume).
    let mut queue: VecDeque<Reply> = first.into_iter().collect();
    let mut answers_file = None;
    if let Some(path) = &options.answers {
        let name = path.display().to_string();
        let replies = match std::fs::read(path) {
            Ok(bytes) => answers::parse_file(&bytes, &name),
            Err(e) => Err(format!("{name}: cannot read it: {}", super::io_message(&e))),
        };
        let replies = match replies
            .and_then(|r| answers::check_plan(&r, &program.module, remembered.policy.may_ask()).map(|()| r))
        {
            Ok(r) => r,
            Err(e) => {
                eprintln!("tissvm: --answers {e}");
                return Err(status::INVALID);
            }
        };
        let skip = answers::first_entry(path, used, queue.len());
        match used {
            Some(used) if answers::same_file(path, &used.file) => {
                let left = if skip >= replies.len() {
                    format!(" (it has {} entries: none is left)", replies.len())
                } else {
                    String::new()
                };
                eprintln!(
                    "tissvm: --answers `{name}`: the run used this file before; going on from its entry {}{left}",
                    skip + 1
                );
            }
            Some(used) => eprintln!(
                "tissvm: --answers `{name}` is not the file the run used (`{}`): its first entry answers the \
                 next interaction that has no answer",
                used.file.display()
            ),
            None => {}
        }
        answers_file = Some(AnswersFile {
            path: std::path::absolute(path).unwrap_or_else(|_| path.clone()),
            len: replies.len() as u32,
        });
        queue.extend(replies.into_iter().skip(skip));
    }

    // Step lines go where the progress goes: stdout for text output, else stderr.
    let style = match progress {
        Progress::Text { .. } => color::stdout(),
        Progress::Quiet => color::stderr(),
    };
    let mut host = OsHost::new(workspace, provider, progress);
    host.style = style;
    host.env_allow = remembered.env_allow.clone();
    host.sandbox = sandbox;
    host.show_tokens = std::io::IsTerminal::is_terminal(&std::io::stderr());
    // With an answers file, running out of answers suspends (CI) rather than asks.
    host.interactive = !options.non_interactive && answers_file.is_none() && stdin_is_terminal();
    host.answers = queue;
    if let Some(path) = &remembered.log_file {
        match tiss_vm::report::event_log::EventLog::open(path) {
            Ok(mut log) => {
                if let Some(max) = remembered.log_max_output {
                    log.max_output = usize::try_from(max).unwrap_or(usize::MAX);
                }
                host.log = Some(log);
            }
            Err(e) => {
                eprintln!("tissvm: cannot open the log file `{}`: {}", path.display(), super::io_message(&e));
                return Err(status::INVALID);
            }
        }
    }
    Ok(OpenedHost { host, answers_file, caps, policy })
}

/// The cassette `--record` names: a fresh run records a new one (replacing
/// the file when it ends); a resumed run goes on with the run's file, its
/// entries kept. Refused with `replay`, and where it cannot be written,
/// before anything runs; an error has been reported and is the exit status.
pub fn open_recorder(settings: &ProviderSettings, resumed: bool) -> Result<Option<Recorder>, u8> {
    let recorder = recorder(settings, resumed);
    recorder.map_err(|e| {
        eprintln!("tissvm: {e}");
        status::INVALID
    })
}

fn recorder(settings: &ProviderSettings, resumed: bool) -> Result<Option<Recorder>, String> {
    let Some(path) = &settings.record else { return Ok(None) };
    if settings.provider == "replay" {
        return Err(format!(
            "--record `{path}` records the answers of a provider that asks a model, and `replay` only gives back \
             recorded ones: record with --provider openai, ollama, completion or mock"
        ));
    }
    let path = PathBuf::from(path);
    let dir = tiss_support::atomic_write::parent_of(&path);
    if !dir.is_dir() {
        return Err(format!("--record `{}`: there is no directory `{}`", path.display(), dir.display()));
    }
    if path.is_dir() {
        return Err(format!("--record `{}` is a directory: give the cassette's file name", path.display()));
    }
    let cassette =
        if resumed && path.exists() { Cassette::read(&path, "--record")? } else { Cassette::default() };
    Ok(Some(Recorder::new(path, cassette)))
}

/// Runs from `start` with `options` as given and `remembered`, the options
/// resolved (given, or remembered by the snapshot resumed), then reports.
pub fn execute(
    start: Start,
    options: &HostOptions,
    reporting: &ReportOptions,
    remembered: RememberedOptions,
) -> u8 {
    let Start { program, mut machine, bytecode, workdir, first, mut resumed, checkpoint } = start;
    if let Err(e) = reporting.check() {
        eprintln!("tissvm: {e}");
        return status::INVALID;
    }
    let progress = match reporting.output_format {
        OutputFormat::Text => Progress::Text { live: std::io::IsTerminal::is_terminal(&std::io::stderr()) },
        _ => Progress::Quiet,
    };
    let recorder = match open_recorder(&remembered.provider, resumed.is_some()) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let OpenedHost { mut host, answers_file, caps, policy } = match open_host(
        &program,
        &workdir,
        first,
        resumed.as_ref().and_then(|r| r.answers.as_ref()),
        options,
        &remembered,
        progress,
    ) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    host.recorder = recorder;
    machine.set_policy(policy);
    let checkpoint =
        match checkpoint.map(|path| Checkpoint::open(&path, &program, bytecode.as_deref())).transpose() {
            Ok(c) => c,
            Err(e) => {
                eprintln!("tissvm: {e}");
                return status::INVALID;
            }
        };
    // The state as resumed: if nothing changes it, its snapshot still holds.
    let original = resumed.as_ref().map(|_| machine.clone());
    let raise = resumed.as_ref().is_some_and(|r| r.raise_budget);
    for (dim, value) in caps {
        apply_budget(&mut machine, dim, value, raise);
    }
    // Recorded before the first instruction: a snapshot is resumed once.
    let mark = match resumed.as_mut().map(Mark::start).transpose() {
        Ok(mark) => mark.flatten(),
        Err(invalid) => return invalid.report(reporting),
    };
    if let Err(e) = interrupt::install() {
        let warning = color::stderr().paint(Tone::Warn, "warning");
        eprintln!("tissvm: {warning}: cannot handle Ctrl-C ({e}); it will end the run without a snapshot");
    }

    let killed_before = interrupt::killed_runs();
    // The machine as it stood before a RUN: a RUN killed by a second Ctrl-C
    // did not complete, so the run suspends before it, not after.
    let mut before_run: Option<Machine> = None;
    // With a checkpoint, the run stops before each effect to write it, and
    // goes on from that boundary without stopping there again.
    let mut checkpointed = false;
    let mut outcome = loop {
        let outcome = machine.run_until(&program, &mut host, |m| {
            if interrupt::requested() {
                return true;
            }
            if checkpoint.is_some() && !std::mem::take(&mut checkpointed) && Checkpoint::due(&program, m) {
                return true;
            }
            before_run =
                matches!(program.module.code.get(m.pc as usize), Some(Instr::Run { .. })).then(|| m.clone());
            false
        });
        match &checkpoint {
            Some(checkpoint)
                if outcome == Outcome::Running
                    && !interrupt::requested()
                    && Checkpoint::due(&program, &machine) =>
            {
                let left = host.answers.iter().filter(|r| r.entry.is_some()).count() as u32;
                let position = answers_file
                    .as_ref()
                    .map(|f| AnswersPosition { file: f.path.clone(), next: f.len - left });
                let workspace = host.workspace.root().to_path_buf();
                let parts = Parts { workspace: &workspace, answers: position.as_ref(), options: &remembered };
                checkpoint.write(&program, &machine, &parts, &mut host);
                checkpointed = true;
            }
            _ => break outcome,
        }
    };
    if interrupt::killed_runs() > killed_before
        && let Some(saved) = before_run.take()
    {
        let command = machine.last_run.as_ref().map(|r| r.command.clone()).unwrap_or_default();
        eprintln!(
            "tissvm: the RUN in flight (`{command}`) was killed: it did not complete, and runs again on resume"
        );
        let line = program.line(saved.pc);
        host.log(&Event {
            event: "interrupted",
            step: None,
            depth: 0,
            line,
            op: &command,
            outcome: "killed",
            duration_ms: 0,
            details: &[],
        });
        machine = saved;
        outcome = Outcome::Running;
    }
    let answer_error = host.answer_error.take();
    let remaining = host.answers.iter().filter(|r| r.entry.is_some()).count() as u32;
    if let Some(log) = &mut host.log
        && let Err(e) = log.flush().and(log.error.take().map_or(Ok(()), Err))
    {
        eprintln!("tissvm: writing the log file failed: {e}");
    }
    // The cassette, before the snapshot: complete up to it.
    if let Err(e) = host.persist() {
        eprintln!("tissvm: {e}");
    }
    let workspace_root = host.workspace.root().to_path_buf();
    let isolation = host.sandbox.isolation().clone();
    let effects = std::mem::take(&mut host.effects);
    drop(host);
    if let Outcome::Trapped(message) = &outcome {
        eprintln!(
            "tissvm: internal error: {message}\nThis is a bug in tissvm (the verifier accepted this bytecode); please report it."
        );
        if let Some(mark) = &mark {
            mark.finish(&Continuation::Ended("internal_error".into()));
        }
        return status::INTERNAL;
    }

    let suspended = matches!(outcome, Outcome::Suspended(_) | Outcome::Running);
    let mut snapshot_path = None;
    // The workspace of a snapshot written unsigned, which resuming it names.
    let mut unsigned_in: Option<PathBuf> = None;
    if suspended {
        let position =
            answers_file.as_ref().map(|f| AnswersPosition { file: f.path.clone(), next: f.len - remaining });
        let unchanged = original.as_ref().is_some_and(|o| machine.is_unchanged_since(o));
        let written = match (resumed.as_ref().map(|r| &r.path), unchanged) {
            // Nothing ran: the snapshot resumed from still holds this state.
            (Some(path), true) => {
                if let Some(mark) = &mark {
                    mark.clear();
                }
                Ok(path.clone())
            }
            _ => {
                let dir = remembered.snapshot_dir.clone().unwrap_or_else(|| workdir.join(".tiss"));
                let parts =
                    Parts { workspace: &workspace_root, answers: position.as_ref(), options: &remembered };
                let key = signing_key();
                let written = write_snapshot(&program, &machine, bytecode, &parts, &dir, key.as_ref().ok());
                unsigned_in = key.is_err().then(|| workspace_root.clone());
                if let (Some(mark), Ok(path)) = (&mark, &written) {
                    mark.finish(&Continuation::Snapshot(std::path::absolute(path).unwrap_or(path.clone())));
                }
                written
            }
        };
        match written {
            Ok(path) => snapshot_path = Some(path),
            Err(e) => {
                eprintln!("tissvm: the run is suspended, but its snapshot could not be written: {e}");
                return status::INVALID;
            }
        }
    }
    if let Some(e) = answer_error {
        eprintln!("tissvm: --answers {e}");
        if let Some(path) = &snapshot_path {
            let file = answers_file.as_ref().map_or_else(|| PathBuf::from("FILE"), |f| f.path.clone());
            eprintln!(
                "tissvm: the run stopped before that interaction; its state is in {}: fix the answers and \
                 continue with:\n  {}",
                path.display(),
                resume_command::with_answers_file(path, unsigned_in.as_deref(), &file)
            );
        }
        return status::INVALID;
    }
    if let Some(path) = &snapshot_path {
        print_resume_hint(&program, &machine, &outcome, path, unsigned_in.as_deref(), answers_file.as_ref());
    }

    let snapshot = snapshot_path.map(|p| p.display().to_string());
    let mut report = RunReport::new(&program, &machine, &outcome, snapshot);
    report.sandbox = Some(isolation);
    report.effects = effects;
    if let (Some(mark), false) = (&mark, suspended) {
        mark.finish(&Continuation::Ended(report.status_name().into()));
    }
    let text = match reporting.output_format {
        OutputFormat::Json => {
            let mut text = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
            text.push('\n');
            text
        }
        OutputFormat::Junit => report.to_junit(),
        OutputFormat::Html => tiss_vm::report::html::render(&report.to_json()),
        OutputFormat::Text => report.to_text(color::stdout()),
    };
    if let (
        OutputFormat::Json | OutputFormat::Junit | OutputFormat::Html,
        tiss_vm::report::RunStatus::Failed(f),
    ) = (reporting.output_format, &report.status)
    {
        eprint!("{}", failure_text(f, color::stderr()));
    }
    reporting.deliver(&text, report.exit_code() as u8)
}

/// A `--budget` cap: the lower cap wins, unless `raise` (`--raise-budget`)
/// lets it replace the cap in force. A cap not raised is said so.
fn apply_budget(machine: &mut Machine, dim: Dim, value: u64, raise: bool) {
    match machine.budgets[dim] {
        Some(cap) if raise && value > cap => machine.budgets[dim] = Some(value),
        Some(cap) if value > cap => eprintln!(
            "tissvm: note: --budget {}={value} does not raise the cap in force ({cap}); add --raise-budget to \
             raise it",
            dim.name()
        ),
        _ => machine.cap(dim, value),
    }
}

/// What a snapshot holds besides the machine and the bytecode.
pub struct Parts<'a> {
    pub workspace: &'a Path,
    pub answers: Option<&'a AnswersPosition>,
    pub options: &'a RememberedOptions,
}

/// This user's snapshot key, made now if there is none yet; if there is no
/// usable one, stderr says why: the snapshot is written unsigned (never
/// lost), and resuming it needs `--workdir`.
pub fn signing_key() -> Result<SnapshotKey, KeyError> {
    let key = KeyFile::locate().and_then(|file| file.load_or_create());
    if let Err(e) = &key {
        let warning = color::stderr().paint(Tone::Warn, "warning");
        eprintln!("tissvm: {warning}: the snapshot is not signed: {e}; resuming it needs --workdir");
    }
    key
}

/// Writes the snapshot of a suspended run as `DIR/<task>-<n>.snap`, signed
/// with `key` if there is one.
fn write_snapshot(
    program: &Program,
    machine: &Machine,
    bytecode: Option<Vec<u8>>,
    parts: &Parts<'_>,
    dir: &Path,
    key: Option<&SnapshotKey>,
) -> Result<PathBuf, String> {
    let bytecode = bytecode.unwrap_or_else(|| tisslang::container::encode(&program.module));
    let bytes = snapshot::encode(&SnapshotRef {
        machine,
        bytecode: &bytecode,
        content_hash: program.hash(),
        workspace: parts.workspace,
        answers: parts.answers,
        options: parts.options,
        resumed: None,
        key,
    })
    .map_err(|e| e.to_string())?;
    let stem = snapshot::file_stem(program.string(program.module.task));
    snapshot::write_new_snapshot(dir, &stem, &bytes).map_err(|e| format!("in `{}`: {e}", dir.display()))
}

/// Tells on stderr why the run stopped and the commands that continue it,
/// each ready to paste.
fn print_resume_hint(
    program: &Program,
    machine: &Machine,
    outcome: &Outcome,
    path: &Path,
    workdir: Option<&Path>,
    answers_file: Option<&AnswersFile>,
) {
    let mut text = String::new();
    let waiting = match outcome {
        Outcome::Suspended(Suspension::Interaction { question, line }) => {
            text.push_str(&format!(
                "tissvm: suspended at line {line}, waiting for an answer to {}\n",
                answers::describe(question)
            ));
            Some(question)
        }
        _ => {
            text.push_str(&format!("tissvm: suspended at line {} (interrupted)\n", program.line(machine.pc)));
            None
        }
    };
    let commands = resume_command::commands(path, workdir, waiting);
    let one_of = if commands.len() > 1 { " one of" } else { "" };
    text.push_str(&format!("tissvm: snapshot written to {}; continue with{one_of}:\n", path.display()));
    for command in commands {
        text.push_str(&format!("  {command}\n"));
    }
    if let Some(file) = answers_file {
        text.push_str(&format!(
            "tissvm: or, with more answers in the answers file:\n  {}\n",
            resume_command::with_answers_file(path, workdir, &file.path)
        ));
    }
    eprint!("{text}");
}
