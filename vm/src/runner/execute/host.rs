//! The real host of a run, set up from its [`HostOptions`] (shared by
//! `run`, `resume` and `debug`): the sandbox profile and its limits, the
//! `--budget` caps, the command policy, the model provider, the workspace,
//! answers given in advance, the log file; and the cassette `--record`
//! names. Each piece is checked before anything runs; an error has been
//! told on stderr and is the exit status.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use tiss_support::io_message::io_message;
use tisslang::cost::Dim;

use crate::machine::program::Program;
use crate::policy::{Policy, PolicyRules};
use crate::provider::Provider;
use crate::provider::cassette::{Cassette, Recorder};
use crate::provider::settings::ProviderSettings;
use crate::report::event_log::EventLog;
use crate::report::style::Tone;
use crate::runner::options::{HostOptions, parse_budget};
use crate::runner::os_host::{OsHost, Progress, stdin_is_terminal};
use crate::runner::{color, status};
use crate::session::answers::{self, Reply};
use crate::session::journal::writer::JournalWriter;
use crate::session::journal::{Entry, MAX_OUTPUT_CAP};
use crate::session::snapshot::{AnswersPosition, RememberedOptions};
use crate::session::snapshot_key::{KeyFile, SnapshotKey};
use crate::session::workspace_claim;
use tiss_host::sandbox::{Profile, Sandbox};
use tiss_host::workspace::Workspace;

/// The answers file: its entries from the run's position on.
pub struct AnswersFile {
    /// Absolute where it could be made so.
    pub path: PathBuf,
    pub len: u32,
}

impl AnswersFile {
    /// Where the run stands in the file with `left` of its entries unused.
    pub fn position(&self, left: u32) -> AnswersPosition {
        AnswersPosition { file: self.path.clone(), next: self.len - left }
    }
}

/// How many answers from the answers file `host` has not used yet.
pub fn answers_left(host: &OsHost) -> u32 {
    host.answers.iter().filter(|r| r.entry.is_some()).count() as u32
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

/// The real host of a run in `workdir`, with `options` as given and
/// `remembered`, the options resolved: answers given in advance are
/// `first`, then the answers file's entries from the run's next
/// interaction on (`used`: where the run stood in the file it used); the
/// cassette `--record` names is the caller's ([`open_recorder`]), the
/// `journal` ([`open_journal`]) the host's from here.
#[allow(clippy::too_many_arguments)]
pub fn open_host(
    program: &Program,
    workdir: &Path,
    first: Option<Reply>,
    used: Option<&AnswersPosition>,
    options: &HostOptions,
    remembered: &RememberedOptions,
    progress: Progress,
    journal: Option<JournalWriter>,
) -> Result<OpenedHost, u8> {
    let profile = sandbox_profile(options, remembered)?;
    let caps = budget_caps(options)?;
    let policy = command_policy(remembered)?;
    let provider = model_provider(remembered)?;
    let allow_system = options.allow_system_workdir && options.workdir.is_some();
    workdir_is_dir(workdir)?;
    // The run's records, which no statement or `strict` RUN may change:
    // opened first, for the view to show them read-only.
    let log = open_log(remembered, workdir)?;
    let records: Vec<PathBuf> =
        log.iter().map(|(_, path)| path.clone()).chain(journal.iter().map(|j| j.path.clone())).collect();
    let (mut workspace, sandbox) =
        workspace_and_sandbox(workdir, profile, remembered, allow_system, &records)?;
    if let Some((_, path)) = &log {
        workspace.keep(path, "this run's log file");
    }
    let (queue, answers_file) = answers_given(program, first, used, options, remembered)?;

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
    host.completion_tokens = remembered.provider.max_tokens;
    // With an answers file, running out of answers suspends (CI) rather than asks.
    host.interactive = !options.non_interactive && answers_file.is_none() && stdin_is_terminal();
    host.answers = queue;
    host.log = log.map(|(log, _)| log);
    host.set_journal(journal);
    Ok(OpenedHost { host, answers_file, caps, policy })
}

/// Told before any file of the run's is opened in it.
fn workdir_is_dir(workdir: &Path) -> Result<(), u8> {
    if workdir.is_dir() {
        return Ok(());
    }
    eprintln!("tissvm: --workdir `{}` is not a directory", workdir.display());
    Err(status::INVALID)
}

/// The sandbox profile the run goes by, with a note for limits that it
/// does not set.
fn sandbox_profile(options: &HostOptions, remembered: &RememberedOptions) -> Result<Profile, u8> {
    let Some(profile) = Profile::from_name(&remembered.sandbox_profile) else {
        eprintln!(
            "tissvm: the snapshot's sandbox profile `{}` is not one this tissvm knows; pass --sandbox-profile",
            remembered.sandbox_profile
        );
        return Err(status::INVALID);
    };
    if profile != Profile::Strict && (options.max_procs.is_some() || options.max_memory.is_some()) {
        eprintln!(
            "tissvm: note: --max-procs and --max-memory are limits of the `strict` sandbox profile; the `{}` \
             profile does not set them",
            profile.name()
        );
    }
    Ok(profile)
}

/// The `--budget` caps, parsed.
fn budget_caps(options: &HostOptions) -> Result<Vec<(Dim, u64)>, u8> {
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
    Ok(caps)
}

/// The command policy, if it has any rule.
fn command_policy(remembered: &RememberedOptions) -> Result<Option<Rc<Policy>>, u8> {
    match Policy::new(remembered.policy.clone()) {
        Ok(p) => Ok((*p.rules() != PolicyRules::default()).then(|| Rc::new(p))),
        Err(e) => {
            eprintln!("tissvm: the policy {}: {e}", remembered.policy.origin);
            Err(status::INVALID)
        }
    }
}

/// The model provider; refused if `--env-allow` would hand its key to commands.
fn model_provider(remembered: &RememberedOptions) -> Result<Box<dyn Provider>, u8> {
    let mut settings = remembered.provider.clone();
    // The key leaves the environment before anything runs, under every
    // profile (book: reference/sandbox.md): no RUN inherits it or reads it from /proc.
    // SAFETY: the host is opened before this process starts any thread.
    unsafe { settings.take_key() };
    let settings = &settings;
    if settings.provider != "mock" && remembered.env_allow.contains(&settings.api_key_env) {
        eprintln!(
            "tissvm: --env-allow {} would hand the model's API key to commands; the key is never passed to \
             RUN",
            settings.api_key_env
        );
        return Err(status::INVALID);
    }
    crate::provider::build(settings).map_err(|e| {
        // Each message names its flag or provider already.
        eprintln!("tissvm: {e}");
        status::INVALID
    })
}

/// The workspace, and the sandbox of its RUNs (refused where the kernel
/// cannot enforce the profile: a security violation).
fn workspace_and_sandbox(
    workdir: &Path,
    profile: Profile,
    remembered: &RememberedOptions,
    allow_system: bool,
    records: &[PathBuf],
) -> Result<(Workspace, Sandbox), u8> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    if let Some((resolved, what)) =
        workspace_claim::refused_fresh(workdir, home.as_deref()).filter(|_| !allow_system)
    {
        let named = if workdir == Path::new(".") {
            format!("the current directory, `{}`,", resolved.display())
        } else {
            format!("--workdir `{}` (`{}`)", workdir.display(), resolved.display())
        };
        eprintln!(
            "tissvm: the workspace is {named} which is {what}: a plan's files are never written there. Give \
             --workdir naming a directory of your own (or, if you mean it, --workdir DIR \
             --allow-system-workdir)"
        );
        return Err(status::INVALID);
    }
    let workspace = match Workspace::open(workdir) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("tissvm: {e:?}");
            return Err(status::INVALID);
        }
    };
    // The snapshot key signs what a resume trusts: no `strict` RUN reads it.
    let secrets: Vec<PathBuf> = KeyFile::locate().map(|k| k.path).into_iter().collect();
    let sandbox =
        match Sandbox::prepare_hiding(profile, workspace.root(), remembered.limits, &secrets, records) {
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
    Ok((workspace, sandbox))
}

/// Answers given in advance: `--answer` first, then the file's entries
/// from the run's k-th interaction on (counting continues across resume).
fn answers_given(
    program: &Program,
    first: Option<Reply>,
    used: Option<&AnswersPosition>,
    options: &HostOptions,
    remembered: &RememberedOptions,
) -> Result<(VecDeque<Reply>, Option<AnswersFile>), u8> {
    let mut queue: VecDeque<Reply> = first.into_iter().collect();
    let Some(path) = &options.answers else { return Ok((queue, None)) };
    let name = path.display().to_string();
    let runs_ask = remembered.policy.may_ask();
    // One plan of many that asks nothing ignores the file (book: guide/many-plans.md).
    if options.answers_plan.is_some() && !answers::asks(&program.module, runs_ask) {
        return Ok((queue, None));
    }
    // One a run going on may have changed is read as it stood before it.
    let read = match crate::provider::settings::as_it_stood::as_it_stood(path) {
        Some(Some(bytes)) => Ok(bytes),
        Some(None) => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
        None => std::fs::read(path),
    };
    let replies = match read {
        Ok(bytes) => answers::parse_file(&bytes, &name),
        Err(e) => Err(format!("{name}: cannot read it: {}", io_message(&e))),
    };
    let replies = match replies
        .and_then(|entries| answers::for_plan(entries, options.answers_plan.as_deref()))
        .and_then(|r| answers::check_plan(&r, &program.module, runs_ask).map(|()| r))
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
            let whose = if options.answers_plan.is_some() { " for this plan" } else { "" };
            eprintln!(
                "tissvm: --answers `{name}`: the run used this file before; going on from its entry {}{whose}{left}",
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
    let answers_file = AnswersFile {
        path: std::path::absolute(path).unwrap_or_else(|_| path.clone()),
        len: replies.len() as u32,
    };
    queue.extend(replies.into_iter().skip(skip));
    Ok((queue, Some(answers_file)))
}

/// The log file, if the run keeps one: in the workspace, reached as the
/// plan's paths are (a resumed run opens it again, after the plan's
/// commands could have put a link in its place).
/// With the path it was opened at.
fn open_log(remembered: &RememberedOptions, workdir: &Path) -> Result<Option<(EventLog, PathBuf)>, u8> {
    let Some(path) = &remembered.log_file else { return Ok(None) };
    let opened = match tiss_host::workspace::own_path(workdir, path) {
        Ok(own) => EventLog::open(&own).map(|log| (log, own)),
        Err(tiss_host::Error::Security(why)) => {
            eprintln!(
                "tissvm: security_violation: the log file `{}`: {why}; name another with --log-file",
                path.display()
            );
            return Err(status::SECURITY);
        }
        Err(tiss_host::Error::Command(why)) => Err(std::io::Error::other(why)),
    };
    match opened {
        Ok((mut log, own)) => {
            if let Some(max) = remembered.log_max_output {
                log.max_output = usize::try_from(max).unwrap_or(usize::MAX);
            }
            Ok(Some((log, own)))
        }
        Err(e) => {
            eprintln!("tissvm: cannot open the log file `{}`: {}", path.display(), io_message(&e));
            Err(status::INVALID)
        }
    }
}

/// `--journal`: a new journal opened with the run's bytecode, or, for a
/// resumed run given the journal it recorded, that journal continued.
/// Refused (told, exit status 2) before anything runs.
pub fn open_journal(
    options: &HostOptions,
    program: &Program,
    bytecode: Option<&[u8]>,
    resumed: bool,
    workdir: &Path,
) -> Result<Option<JournalWriter>, u8> {
    // A restart reads --journal, and journals into --new-journal.
    let path = if options.restart.is_some() { &options.new_journal } else { &options.journal };
    let Some(path) = path else { return Ok(None) };
    workdir_is_dir(workdir)?;
    let refuse = |message: String| {
        eprintln!("tissvm: {message}");
        status::INVALID
    };
    // In the workspace, reached as the plan's paths are: a resumed run
    // appends to it after the plan's commands ran.
    let path = &match tiss_host::workspace::own_path(workdir, path) {
        Ok(own) => own,
        Err(tiss_host::Error::Security(why)) => {
            eprintln!("tissvm: security_violation: the journal `{}`: {why}", path.display());
            return Err(status::SECURITY);
        }
        Err(tiss_host::Error::Command(why)) => return Err(refuse(format!("cannot open the journal: {why}"))),
    };
    let cap = options.journal_max_output.unwrap_or(MAX_OUTPUT_CAP);
    if cap > MAX_OUTPUT_CAP {
        return Err(refuse(format!(
            "--journal-max-output {cap} is more than the journal keeps of one output ({MAX_OUTPUT_CAP} bytes)"
        )));
    }
    let bytecode = bytecode.map_or_else(|| tisslang::container::encode(&program.module), <[u8]>::to_vec);
    let module_hash = program.hash().to_string();
    let start = Entry::Start {
        tissvm: env!("CARGO_PKG_VERSION").into(),
        module_hash: module_hash.clone(),
        bytecode,
        resumed,
    };
    let key = journal_key();
    let opened = if resumed && path.exists() {
        JournalWriter::append(path, cap, &module_hash, &start, key)
    } else {
        JournalWriter::create(path, cap, &start, key)
    };
    opened.map(Some).map_err(|e| refuse(e.message))
}

/// This user's key, made now if there is none yet, to sign the journal's
/// frames; if there is no usable one, stderr says why and the journal is
/// written unsigned (a restart from it then needs `--trust-journal`).
fn journal_key() -> Option<SnapshotKey> {
    match KeyFile::locate().and_then(|file| file.load_or_create()) {
        Ok(key) => Some(key),
        Err(e) => {
            let warning = color::stderr().paint(Tone::Warn, "warning");
            eprintln!(
                "tissvm: {warning}: the journal is not signed: {e}; a restart from it needs --trust-journal"
            );
            None
        }
    }
}

/// The cassette `--record` names: a fresh run records a new one (replacing
/// the file when it ends); a resumed run goes on with the run's file, its
/// entries kept. Refused with `replay`, and where it cannot be written,
/// before anything runs.
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
